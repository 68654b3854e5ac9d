"""The site built as the deploy workflow builds it, served as GitHub Pages serves it, read in Chromium.

Both builds take the workflow's variables and command from one definition (``sitetools/web/web_build.py``,
which tests/test_web_workflow.py holds the workflow to) with an address on 127.0.0.1 whose port is
taken before the build, so that the absolute links (language switch, canonical, alternates, 404
pages) lead to the server:

- ``sub-path``: a preview of one example, the example pages its text cross-references and one narrative
  page beside the home page (``--only quickref``), for ``http://127.0.0.1:PORT/tensor-copies/`` (a
  project site), served under ``/tensor-copies/`` only, with its ``404.html`` answering a missing
  address there; it has every kind of page;
- ``root``: a preview of the example alone for ``http://127.0.0.1:PORT/``, as the audit builds; it has
  every kind of page but the narrative pages beside the home page, which the whole site at the root
  shows in tests/test_page_visits.py.

Each preview has the narrative pages it names beside the home page, and no other.

A page of each kind in each edition (landing page, home, narrative page, example page, examples index,
search with a query, the 404 page and a missing address) is loaded, and fails on a request that does not
load (status 400 or more, or a request the browser blocked), a console error, and a link, script,
style or image that leaves the site's path or does not load; the language switch and 中英对照 are
pressed; the example pages' Colab and edit links are checked against the published notebooks and the
sources; the example's notebook links each of its cross-references to a page and anchor of the site. The
scan of generated files is run again on each built site, with its own base path (nothing found) and the
other one (the 404 pages' scripts refused).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from editions import CODES, edition
from sitetools.rules.sources import narrative_pages
from sitetools.web import colab, web_build
from sitetools.web.audit import serve
from tests.browser_audit import SEARCH_SUMMARY, SEARCHES
from tests.gallery_tools import ROOT, side_by_side
from tests.site_audit import DEAD_PROXY

pytestmark = pytest.mark.slow

REPOSITORY, BRANCH = "octo-org/tensor-copies", "main"
EXAMPLE = "copying/plot_04_detach"
#: The example pages that EXAMPLE's text cross-references (its notebook links to them on the sub-path site).
LINKED = ("copying/plot_03_clone", "copying/plot_05_rebinding", "questions/plot_12_version_counter")
#: The narrative page (beside the home page) that the sub-path preview keeps.
NARRATIVE = "quickref"
#: name -> the base path the site is served under, and the build's arguments beyond --out and --stage.
BUILDS = {
    "sub-path": ("/tensor-copies/", tuple(arg for name in (EXAMPLE, *LINKED, NARRATIVE) for arg in ("--only", name))),
    "root": ("/", ("--only", EXAMPLE)),
}
#: name -> the narrative pages (beside the home page) that the build keeps.
NARRATIVES = {"sub-path": {NARRATIVE}, "root": set()}
#: A page of each kind in an edition: (kind, address relative to the edition, what must show text first).
KINDS = (
    ("home", "index.html", None),
    ("narrative", f"{NARRATIVE}.html", None),
    ("example", f"examples/{EXAMPLE}.html", None),
    ("examples index", "examples/index.html", None),
    ("search", "search.html?q={query}", SEARCH_SUMMARY),
    ("404", "404.html", None),
    ("missing address", "no-such-page/at/some/depth.html", None),
)
#: Pages where 中英对照 is pressed: the other edition's text must show under each paragraph.
TOGGLED = ("home", "example")


@dataclass(frozen=True)
class Published:
    site: Path  # the built site
    url: str  # where it is served: http://127.0.0.1:PORT/BASE/
    seconds: float  # how long its build took

    @property
    def base_path(self) -> str:
        return urlsplit(self.url).path


def _build(folder: Path, url: str, extra: tuple[str, ...]) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    command = web_build.command(sys.executable, "--out", str(folder / "html"), "--stage", str(folder / "stage"), *extra)
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                            env=web_build.environment(url, REPOSITORY, BRANCH))  # fmt: skip
    return result, time.monotonic() - started


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> dict[str, Published]:
    """Both builds, side by side, each served at the address it was built for (the port is taken first)."""
    with contextlib.ExitStack() as stack:
        jobs = {}
        for name, (base_path, extra) in BUILDS.items():
            folder = tmp_path_factory.mktemp(f"published-{name}")
            jobs[name] = (folder, stack.enter_context(serve(folder / "html", 0, base_path)), extra)
        results = side_by_side(jobs, _build)
        failed = [f"the {name} build for {jobs[name][1]} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
                  for name, (result, _) in results.items() if result.returncode != 0]  # fmt: skip
        if failed:
            pytest.fail("\n".join(failed), pytrace=False)
        for name, (_, seconds) in results.items():
            print(f"{name} build: {seconds:.1f} s")
        yield {name: Published(jobs[name][0] / "html", jobs[name][1], results[name][1]) for name in BUILDS}


def _where(site: Path, raw: str, file: Path) -> str:
    """``en/404.html, line 12``: the file and the line where ``raw`` (an attribute's value) is written."""
    name = file.relative_to(site).as_posix()
    text = file.read_text(encoding="utf-8") if file.is_file() else ""
    at = text.find(f'"{raw}"')
    return f"{name}, line {text.count(chr(10), 0, at) + 1}" if at >= 0 else name


#: Every address a page links to or loads, as written and as the browser resolved it.
_ADDRESSES = """() => [...document.querySelectorAll('a[href], link[href], script[src], img[src], source[src]')]
  .map(el => [el.tagName.toLowerCase(), el.getAttribute(el.hasAttribute('href') ? 'href' : 'src'),
              el.href || el.src, !!el.closest('.bilingual-twin')])"""


class Reader:
    """One browser context reading one served site, recording what goes wrong, each with its file."""

    def __init__(self, browser, published: Published):
        self.published = published
        self.origin = published.url.removesuffix(published.base_path.lstrip("/")).rstrip("/")
        self.context = browser.new_context(viewport={"width": 1280, "height": 800}, proxy=DEAD_PROXY)
        self.problems: list[str] = []
        self.links: dict[str, str] = {}  # every address on the site that a page names -> where it is named

    def file(self, url: str) -> Path:
        """The file of the site that answers ``url`` (the site's 404.html for a missing address)."""
        path = urlsplit(url).path.removeprefix(self.published.base_path)
        file = self.published.site / path
        file = file / "index.html" if path.endswith("/") or not path else file
        return file if file.is_file() else self.published.site / "404.html"

    def open(self, address: str, ready: str | None = None, expect: int = 200):
        """Load ``address`` (relative to the site's URL) in a new tab, recording every request that does not
        load and every console error; returns the tab."""
        url = self.published.url + address
        page = self.context.new_page()
        name = f"{address or 'index.html'} (file {self.file(url).relative_to(self.published.site).as_posix()})"

        def response(answer):
            if answer.status >= 400 and not (answer.url == url and answer.status == expect):
                self.problems.append(f"{name}: {answer.status} for {answer.url}")

        def console(message):
            where = message.location
            if message.type == "error" and not (where.get("url") == url and expect != 200):  # the answer's own status
                self.problems.append(f"{name}: console error {message.text!r} at {where.get('url')}, line "
                                     f"{where.get('lineNumber', 0) + 1}")  # fmt: skip

        page.on("response", response)
        page.on("requestfailed", lambda request: self.problems.append(
            f"{name}: {request.url} did not load ({request.failure})"))
        page.on("console", console)
        page.on("pageerror", lambda error: self.problems.append(f"{name}: uncaught {error}"))
        answer = page.goto(url, wait_until="load")
        if answer is None or answer.status != expect:
            self.problems.append(f"{name}: status {answer and answer.status}, not {expect}")
        if ready:
            page.wait_for_function("s => (document.querySelector(s)?.innerText || '').trim() !== ''", arg=ready)
        page.wait_for_load_state("networkidle")
        return page

    def note_links(self, page) -> None:
        """Record the page's addresses: one on this host outside the site's path, or that resolves to no
        file, is a problem (named with the file and line that write it)."""
        file = self.file(page.url)
        for tag, raw, resolved, twin in page.evaluate(_ADDRESSES):
            parts = urlsplit(resolved)
            if parts.scheme not in ("http", "https") or f"{parts.scheme}://{parts.netloc}" != self.origin:
                continue
            where = _where(self.published.site, raw, file) + (" (in the other edition's text)" if twin else "")
            if not parts.path.startswith(self.published.base_path):
                self.problems.append(f"{where}: <{tag}> {raw!r} leaves {self.published.base_path} ({parts.path})")
                continue
            self.links.setdefault(resolved.split("#")[0], f"{where}: <{tag}> {raw!r}")

    def check_links(self) -> None:
        for url, named in sorted(self.links.items()):
            status = self.context.request.get(url, max_redirects=0).status
            if status != 200:
                self.problems.append(f"{named} -> {status} for {url}")

    def close(self) -> None:
        self.context.close()


def _kinds(published: Published, code: str):
    for kind, address, ready in KINDS:
        address = address.format(query=quote(SEARCHES[code]))
        if kind == "missing address" or (published.site / code / address.split("?")[0]).is_file():
            yield kind, f"{code}/{address}", ready


@pytest.fixture(scope="module", params=sorted(BUILDS))
def read(request, browser, published) -> tuple[Published, list[str], dict]:
    """Every kind of page of one build read in Chromium: (the build, the problems, the kinds shown per edition)."""
    site = published[request.param]
    reader = Reader(browser, site)
    shown = {}
    try:
        for address, expect in (("", 200), ("no-such-page.html", 404)):
            reader.note_links(reader.open(address, expect=expect))
        for code in CODES:
            shown[code] = []
            for kind, address, ready in _kinds(site, code):
                page = reader.open(address, ready, 404 if kind == "missing address" else 200)
                shown[code].append(kind)
                if kind in TOGGLED:
                    _toggle(reader, page, address)
                reader.note_links(page)
                page.close()
        reader.check_links()
    finally:
        reader.close()
    return site, reader.problems, shown


def _toggle(reader: Reader, page, address: str) -> None:
    """Press 中英对照 (unless the reader's choice, kept from an earlier page, turned it on already): the other
    edition's text must show under the paragraphs, and the status say so."""
    button = page.locator("button.bilingual-toggle")
    if button.get_attribute("aria-pressed") == "true":
        if page.wait_for_function("() => !!document.querySelector('.bilingual-twin')", timeout=10_000) is None:
            reader.problems.append(f"{address}: 中英对照 is on, but no text of the other edition shows")
    else:
        button.click()
        page.wait_for_function("() => document.querySelector('.bilingual-status').innerText.trim() !== ''")
        status, on = page.inner_text(".bilingual-status").strip(), button.get_attribute("data-on")
        if status != on or not page.query_selector(".bilingual-twin"):
            reader.problems.append(f"{address}: 中英对照 shows {status!r}, not {on!r}")
    page.wait_for_load_state("networkidle")


def test_every_kind_of_page_loads_and_links_within_the_sites_path(read):
    site, problems, shown = read
    assert not problems, f"{site.url}:\n" + "\n".join(problems)
    kinds = [kind for kind, _, _ in KINDS]
    for code in CODES:
        expected = [kind for kind in kinds if kind != "narrative"] if site.base_path == "/" else kinds
        assert shown[code] == expected, f"{site.url}{code}/: the pages of some kind were not built"


@pytest.mark.parametrize("where", sorted(BUILDS))
def test_a_preview_has_the_narrative_pages_it_names_and_no_other(published, where):
    site = published[where].site
    for code in CODES:
        built = {page.stem for page in narrative_pages(code) if (site / code / f"{page.stem}.html").is_file()}
        assert built == {"index", *NARRATIVES[where]}, f"{where}: {code}/ has the narrative pages {sorted(built)}"


@pytest.mark.parametrize("where", sorted(BUILDS))
def test_the_language_switch_leads_to_the_counterpart_under_the_sites_path(browser, published, where):
    site = published[where]
    reader = Reader(browser, site)
    try:
        for code in CODES:
            (other,) = [row for row in CODES if row != code]
            for name in ("index.html", f"examples/{EXAMPLE}.html", "404.html"):
                page = reader.open(f"{code}/{name}")
                with page.expect_navigation():
                    page.locator("nav.language-switch a.language-other").first.click()
                assert page.url == f"{site.url}{other}/{name}", f"the switch on {code}/{name} led to {page.url}"
                assert page.get_attribute("html", "lang") == edition(other).tag
                page.close()
    finally:
        reader.close()
    assert not reader.problems, "\n".join(reader.problems)


@pytest.mark.parametrize("where", sorted(BUILDS))
def test_colab_and_edit_links_open_the_published_notebook_and_the_source(published, where, tmp_path):
    site = published[where].site
    notebooks = set(colab.collect(site, tmp_path / "notebooks"))
    for code in CODES:
        page = (site / code / "examples" / f"{EXAMPLE}.html").read_text(encoding="utf-8")
        opened = re.findall(rf'href="{re.escape(colab.COLAB)}/{REPOSITORY}/blob/{colab.BRANCH}/([^"]+)"', page)
        assert opened == [colab.notebook_path(code, EXAMPLE)], f"{code}/examples/{EXAMPLE}.html: Colab opens {opened}"
        assert set(opened) <= notebooks
        edits = re.findall(rf'href="https://github\.com/{REPOSITORY}/edit/{BRANCH}/([^"]+)"', page)
        assert edits == [f"gallery/{code}/{EXAMPLE}.py"] and (ROOT / edits[0]).is_file(), edits


def test_the_notebooks_cross_references_lead_to_pages_of_the_published_site(published):
    """Built with an address, every cross-reference of the example's notebook text is a link to a page and
    anchor of the site (the preview has the pages it cross-references, LINKED; tests/test_notebook_text.py
    reads every notebook of the whole site built without one, where they name the page instead)."""
    from tests.test_notebook_text import notebook_problems

    site = published["sub-path"].site
    problems = [problem for code in CODES for problem in notebook_problems(site, code, [EXAMPLE])]
    assert not problems, "\n".join(problems)
