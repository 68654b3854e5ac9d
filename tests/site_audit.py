"""Checkers for a built site: links and anchors, HTML validity, outside resources, and what the browser
audit (tests/browser_audit.py) needs: its tools and the requests it lets through.

Each checker is a plain function that takes files or a page and returns a list of problems (empty
when all is well), so that a test can feed it the real build or a known-bad snippet. The external
tools are the npm packages pinned in package.json (``npm ci --ignore-scripts`` installs them into
node_modules/): the Nu HTML checker (vnu-jar, run with the machine's java) and axe-core.
"""

import json
import os
import posixpath
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.gallery_tools import read_page

ROOT = Path(__file__).resolve().parents[1]
NODE_MODULES = ROOT / "node_modules"
VNU_JAR = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE_JS = NODE_MODULES / "axe-core" / "axe.min.js"

#: The axe-core rule tags the site must pass: WCAG 2.0 and 2.1, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

#: Attributes that point somewhere, per element. ``a``/``area`` are links a reader follows; the
#: others make the browser load something when the page is shown.
FOLLOWED = {"a": "href", "area": "href"}
LOADED = {
    "script": "src",
    "img": "src",
    "iframe": "src",
    "embed": "src",
    "source": "src",
    "track": "src",
    "audio": "src",
    "video": "src",
    "object": "data",
    "form": "action",
}
#: ``<link rel=...>`` values that make the browser fetch the target; any other rel (alternate,
#: next, prev, search, index...) is a link to follow.
FETCHED_RELS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest", "apple-touch-icon"}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")


def ci_strict() -> bool:
    """True when the checks run in strict CI mode: ``CI`` is set to anything but "", "0" or "false".

    The one reading of the ``CI`` variable for the whole suite (conftest.py's browser fixture asks
    it too): under CI a missing tool fails the run instead of skipping its checks.
    """
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def missing_tool(reason: str) -> None:
    """Skip a check whose tool is absent, with a one-line reason; in strict CI mode, fail instead.

    A developer without java or node_modules still gets every other check; CI must not pass by
    skipping what it was meant to run.
    """
    if ci_strict():
        pytest.fail(f"{reason} (CI is set: a missing tool fails the run)", pytrace=False)
    pytest.skip(reason)


def html_pages(site: Path) -> list[Path]:
    """Every HTML page of a built site (both editions and the landing page), sorted."""
    return sorted(path for path in site.rglob("*.html") if "_static" not in path.parts)


def _ids(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    if path not in cache:
        soup = read_page(path)
        cache[path] = {tag["id"] for tag in soup.find_all(id=True)} | {
            tag["name"] for tag in soup.find_all("a", attrs={"name": True})
        }
    return cache[path]


def _srcset_urls(value: str) -> list[str]:
    return [part.strip().split()[0] for part in value.split(",") if part.strip()]


def page_urls(page: Path) -> list[tuple[str, str]]:
    """``(kind, url)`` for every URL in a page; kind is "follow" (a link) or "load" (a resource)."""
    soup = read_page(page)
    found = []
    for tags, kind in ((FOLLOWED, "follow"), (LOADED, "load")):
        for name, attribute in tags.items():
            for tag in soup.find_all(name, attrs={attribute: True}):
                found.append((kind, tag[attribute]))
    for tag in soup.find_all("link", href=True):
        fetched = FETCHED_RELS & {rel.lower() for rel in tag.get("rel", [])}
        found.append(("load" if fetched else "follow", tag["href"]))
    for tag in soup.find_all(srcset=True):
        found.extend(("load", url) for url in _srcset_urls(tag["srcset"]))
    for tag in soup.find_all(style=True):
        found.extend(("load", a or b) for a, b in CSS_URL.findall(tag["style"]))
    for tag in soup.find_all("style"):
        found.extend(("load", a or b) for a, b in CSS_URL.findall(tag.get_text()))
    return found


def is_external(url: str) -> bool:
    """True for a URL that names a scheme or host (http:, https:, //host, ...), not a local path."""
    parts = urlsplit(url)
    return bool(parts.scheme or parts.netloc)


def resolve(site: Path, page: Path, url: str) -> tuple[Path, str]:
    """The file and fragment a local URL in ``page`` points at (the file may not exist). A path from
    the root (``/en/...``, as on the 404 pages) is read from the site's root: a local build is served there."""
    parts = urlsplit(url)
    if not parts.path:
        return page, unquote(parts.fragment)
    base = "" if parts.path.startswith("/") else posixpath.dirname(page.relative_to(site).as_posix())
    target = posixpath.normpath(posixpath.join(base, unquote(parts.path).lstrip("/") or "."))
    path = site / target
    if url.split("#")[0].split("?")[0].endswith("/") or path.is_dir():
        path = path / "index.html"
    return path, unquote(parts.fragment)


def broken_links(site: Path, pages: list[Path] | None = None) -> list[str]:
    """Every local link, resource and #fragment in ``pages`` (default: all) that leads nowhere.

    External URLs are not fetched (the checks run offline); ``mailto:`` and the like are skipped.
    A fragment must name an ``id`` (or ``<a name>``) in the target page; a bare ``#`` is the top.
    """
    problems = []
    ids: dict[Path, set[str]] = {}
    for page in pages if pages is not None else html_pages(site):
        where = page.relative_to(site).as_posix()
        for _kind, url in page_urls(page):
            if is_external(url) or url.startswith("data:"):
                continue
            target, fragment = resolve(site, page, url)
            try:
                target.resolve().relative_to(site.resolve())
            except ValueError:
                problems.append(f"{where}: {url!r} leaves the site")
                continue
            if not target.is_file():
                problems.append(f"{where}: {url!r} -> missing file {target.relative_to(site)}")
            elif fragment and target.suffix == ".html" and fragment not in _ids(target, ids):
                problems.append(f"{where}: {url!r} -> no id {fragment!r} in {target.relative_to(site)}")
    return problems


def outside_resources(site: Path) -> list[str]:
    """Every resource a page or a stylesheet of the site would load from another host."""
    problems = []
    for page in html_pages(site):
        for kind, url in page_urls(page):
            if kind == "load" and is_external(url):
                problems.append(f"{page.relative_to(site).as_posix()}: loads {url}")
    for sheet in sorted(site.rglob("*.css")):
        for a, b in CSS_URL.findall(sheet.read_text(encoding="utf-8", errors="replace")):
            if is_external(a or b) and not (a or b).startswith("data:"):
                problems.append(f"{sheet.relative_to(site).as_posix()}: loads {a or b}")
    return problems


# --- Nu HTML checker -------------------------------------------------------------------------


def vnu_available() -> str | None:
    """None when the Nu HTML checker can run here, else the one-line reason it cannot."""
    if shutil.which("java") is None:
        return "java is not installed (apt-get install default-jre-headless): vnu check skipped"
    if not VNU_JAR.is_file():
        return "node_modules/vnu-jar is missing (run: npm ci --ignore-scripts): vnu check skipped"
    return None


def vnu_report(files: list[Path]) -> dict[Path, list[str]]:
    """The Nu HTML checker's errors for ``files``, all checked in one java call: ``{file: ["line:
    message [extract]", ...]}`` for every file with errors (a file without errors is absent)."""
    command = [
        "java", "-Xss8m", "-jar", str(VNU_JAR),
        "--format", "json", "--stdout", "--exit-zero-always", "--errors-only",
        *map(str, files),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    try:
        messages = json.loads(result.stdout)["messages"]
    except (json.JSONDecodeError, KeyError) as error:
        raise RuntimeError(f"vnu gave no JSON report: {result.stdout}\n{result.stderr}") from error
    asked = {path.resolve(): path for path in files}
    errors: dict[Path, list[str]] = {}
    for message in messages:
        if message.get("type") == "info":
            continue
        url = message.get("url", "")
        name = Path(unquote(urlsplit(url).path)) if url else Path("?")
        extract = " ".join(message.get("extract", "").split())[:120]
        text = f"{message.get('lastLine', '?')}: {message.get('message')}  [{extract}]"
        errors.setdefault(asked.get(name.resolve(), name), []).append(text)
    return errors


# --- axe-core ------------------------------------------------------------------------------------


def axe_available() -> str | None:
    """None when axe-core is installed, else the one-line reason the check cannot run."""
    if not AXE_JS.is_file():
        return "node_modules/axe-core is missing (run: npm ci --ignore-scripts): axe check skipped"
    return None


# --- Requests to other hosts ----------------------------------------------------------------------

LOCAL_HOSTS = {"127.0.0.1"}
#: Where a browser context sends every request for another host: a closed port on this machine, so
#: the request fails at once and nothing leaves it. (A proxy costs nothing per request; routing each
#: request through Playwright doubled the cost of loading a page.) Local requests bypass it.
DEAD_PROXY = {"server": "http://127.0.0.1:9", "bypass": ",".join(sorted(LOCAL_HOSTS))}

#: The site lays out a section below the first screen only when it comes near the screen
#: (``content-visibility: auto`` in site.css); until then the browser computes no style inside it. A
#: reader sees every section laid out once they get there, and so must checks of the whole page: this
#: init script lays them all out, as scrolling through the page would.
EVERY_SECTION_LAID_OUT = """document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = "section { content-visibility: visible !important; }";
  document.head.append(style);
});"""


def is_local_request(url: str) -> bool:
    """True for a request the site may make: to 127.0.0.1, or a data:/blob:/about: URL."""
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname in LOCAL_HOSTS
