"""What the build publishes carries no active content but the site's own scripts.

:mod:`sitetools.active_content` refuses raw HTML, scripts and script links in the sources, and
:mod:`sitetools.output_channels` keeps a page's output to its prints and figures. This module checks
the result, after Sphinx has written everything and before the site is published: a way round the
source rules (a reST spelling they miss, an extension that lets HTML through, a figure whose SVG
carries a link: matplotlib's ``set_url``) shows here. In every file a reader's browser or notebook
renders (every HTML page, every SVG, the Markdown and outputs of every ``.ipynb``, those inside the
``.zip`` downloads too, and the search index), it refuses:

- a ``<script>`` that is not the site's own: a script file in the edition's ``_static`` folder (or its
  search index), or an inline script of :data:`SITE_INLINE_SCRIPTS` (the theme's);
- an event attribute (``onload=``, ``onerror=``...) and a ``javascript:`` or ``vbscript:`` URL, in any
  attribute (entities decoded), a Markdown link or the search index's text;
- ``<iframe>``, ``<object>``, ``<embed>``, ``<frame>``, ``<frameset>``, ``<applet>``, ``<base>`` and a
  redirect (``<meta http-equiv="refresh">``).

Each problem names the file and, where one made it, the page's source (``gallery/<lang>/<part>/<page>.py``
or ``docs/<lang>/<page>.md``).
"""

from __future__ import annotations

import html.parser
import json
import re
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

from sitetools import pages

#: Inline scripts the site's templates write (furo's colour theme), whitespace folded.
SITE_INLINE_SCRIPTS = {'document.body.dataset.theme = localStorage.getItem("theme") || "auto";'}
#: Elements that load or run other content (``<base>`` would send the site's own script links elsewhere).
EMBEDDING = {"iframe", "object", "embed", "frame", "frameset", "applet", "base"}
SCRIPT_URL = re.compile(r"(javascript|vbscript)\s*:", re.I)
#: In text that is not parsed as HTML (Markdown, the search index): tags and event attributes.
TAG = re.compile(r"<\s*(script|iframe|object|embed|frame|frameset|applet|base)\b", re.I)
EVENT = re.compile(r"<[A-Za-z][^>]*?[\s/\"']on[a-z]+\s*=", re.I)
_INVISIBLE = re.compile(r"[\x00-\x20\x7f]+")


class _Markup(html.parser.HTMLParser):
    """The active content of one HTML or SVG file (or the HTML inside Markdown)."""

    def __init__(self, allowed_script) -> None:
        super().__init__(convert_charrefs=True)
        self.allowed_script = allowed_script  # src -> whether it is one of the site's own scripts
        self.found: list[str] = []
        self._inline: list[str] | None = None

    def handle_starttag(self, tag, attrs) -> None:
        if tag in EMBEDDING:
            self.found.append(f"an <{tag}> element")
        if tag == "meta" and (dict(attrs).get("http-equiv") or "").lower() == "refresh":
            self.found.append("a <meta http-equiv=refresh> (a redirect)")
        for name, value in attrs:
            if name.lower().startswith("on"):
                self.found.append(f"an event attribute {name}= on <{tag}>")
            elif value and SCRIPT_URL.search(_INVISIBLE.sub("", value)):
                self.found.append(f"a script URL in {name}= of <{tag}>: {value[:60]!r}")
        if tag == "script":
            src = dict(attrs).get("src")
            if src is None:
                self._inline = []
            elif not self.allowed_script(src):
                self.found.append(f"a <script> from {src[:80]!r}, not one of the site's own scripts")

    handle_startendtag = handle_starttag

    def handle_data(self, data) -> None:
        if self._inline is not None:
            self._inline.append(data)

    def handle_endtag(self, tag) -> None:
        if tag == "script" and self._inline is not None:
            text = " ".join("".join(self._inline).split())
            if text and text not in SITE_INLINE_SCRIPTS:
                self.found.append(f"an inline <script> that is not the site's own: {text[:80]!r}")
            self._inline = None


def markup_problems(text: str, allowed_script=lambda src: False) -> list[str]:
    """The active content of an HTML or SVG text; ``allowed_script(src)`` says which script files are the site's."""
    parser = _Markup(allowed_script)
    parser.feed(text)
    parser.close()
    return parser.found


def text_problems(text: str) -> list[str]:
    """Active content in text that a browser or notebook may turn into HTML (Markdown, the search index)."""
    found = [f"a <{m.group(1).lower()}> tag" for m in TAG.finditer(text)]
    found += [f"an event attribute in {m.group(0)[:60]!r}" for m in EVENT.finditer(text)]
    found += [f"a {m.group(1).lower()}: URL" for m in SCRIPT_URL.finditer(text)]
    return found + [problem for problem in markup_problems(text) if "<script>" not in problem]


def notebook_problems(text: str) -> list[str]:
    """A notebook's Markdown and raw cells, outputs and metadata: everything but the code it runs."""
    notebook = json.loads(text)
    rendered = [json.dumps(notebook.get("metadata", {}), ensure_ascii=False)]
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            source = cell.get("source", "")
            rendered.append("".join(source) if isinstance(source, list) else source)
        rendered.append(json.dumps([cell.get("outputs", []), cell.get("metadata", {})], ensure_ascii=False))
    return sorted(set(text_problems("\n".join(rendered))))


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in (key, *_strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def search_index_problems(text: str) -> list[tuple[str, list[str]]]:
    """(problem, docnames where known) for every string of a ``searchindex.js``."""
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    docnames = index.get("docnames", [])
    where: dict[str, set[str]] = {}
    for i, title in enumerate(index.get("titles", [])):
        where.setdefault(title, set()).add(docnames[i])
    for title, places in index.get("alltitles", {}).items():
        where.setdefault(title, set()).update(docnames[place[0]] for place in places)
    found = []
    for string in sorted(set(_strings(index))):
        for problem in text_problems(string):
            found.append((f"{problem} in {string[:60]!r}", sorted(where.get(string, ()))))
    return found


# --- The whole output --------------------------------------------------------------------------


def _sources(lang: str, gallery: Path) -> dict[str, str]:
    """A page's file stem -> its source, ``plot_04_detach`` -> ``gallery/en/copying/plot_04_detach.py``."""
    return {script.stem: f"gallery/{lang}/{pages.relative_name(script, gallery)}.py"
            for script in pages.gallery_scripts(lang, gallery)}  # fmt: skip


def _source_of(relative: Path, lang: str, scripts: dict[str, str], docs: Path) -> str:
    """The source that made a built file (``en/_images/sphx_glr_plot_04_detach_001.svg`` ...), or ""."""
    stem = relative.stem
    if relative.parts[:1] == ("_images",):
        stem = re.sub(r"^sphx_glr_(.*?)_\d+$", r"\1", stem)
    if stem in scripts:
        return scripts[stem]
    page = docs / lang / relative.with_suffix(".md")
    return f"docs/{lang}/{relative.with_suffix('.md').as_posix()}" if page.exists() else ""


def _docname_source(docname: str, lang: str, scripts: dict[str, str]) -> str:
    stem = docname.rsplit("/", 1)[-1]
    return scripts[stem] if docname.startswith("examples/") and stem in scripts else f"docs/{lang}/{docname}.md"


def _site_script(edition: Path, page: Path, site: Path, base_path: str = "/"):
    """Whether a script's ``src`` is a file of the edition's own ``_static`` folder or its search index.

    A path from the host's root (``/tensor-copies/en/_static/bilingual.js``, as the 404 pages write them) is
    read from the site's base path (``base_path``, the path of ``SITE_URL``; ``/`` at the host's root): the
    site's folder is served there, and a path outside it is not the site's."""
    static, index = (edition / "_static").resolve(), (edition / "searchindex.js").resolve()
    prefix = "/" + base_path.strip("/") + "/" if base_path.strip("/") else "/"

    def allowed(src: str) -> bool:
        parts = urlsplit(src)
        if parts.scheme or parts.netloc or not parts.path:
            return False
        if parts.path.startswith("/"):
            if not parts.path.startswith(prefix):
                return False  # another site on the same host
            base, path = site, parts.path.removeprefix(prefix)
        else:
            base, path = page.parent, parts.path
        target = (base / path).resolve()
        return target.is_file() and (target == index or static in target.parents)

    return allowed


def _edition_problems(site: Path, lang: str, gallery: Path, docs: Path, base_path: str) -> list[str]:
    edition = site / lang
    scripts = _sources(lang, gallery)
    problems = []
    for path in sorted(p for p in edition.rglob("*") if p.is_file()):
        relative = path.relative_to(edition)
        if relative.parts[0] == "_static":
            continue  # the site's own files (pages cannot write there: sitetools/page_outputs.py)
        suffix = path.suffix.lower()
        if suffix in (".html", ".svg"):
            found = markup_problems(path.read_text(encoding="utf-8"), _site_script(edition, path, site, base_path))
        elif suffix == ".ipynb":
            found = notebook_problems(path.read_text(encoding="utf-8"))
        elif suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                found = [f"{member}: {problem}" for member in archive.namelist() if member.endswith(".ipynb")
                         for problem in notebook_problems(archive.read(member).decode("utf-8"))]  # fmt: skip
        elif relative.as_posix() == "searchindex.js":
            for problem, docnames in search_index_problems(path.read_text(encoding="utf-8")):
                made_by = ", ".join(_docname_source(name, lang, scripts) for name in docnames)
                problems.append(f"{lang}/searchindex.js: {problem}" + (f" (from {made_by})" if made_by else ""))
            continue
        else:
            continue
        source = _source_of(relative, lang, scripts, docs)
        made_by = f" (made from {source})" if source else ""
        problems += [f"{lang}/{relative.as_posix()}{made_by}: {problem}" for problem in sorted(set(found))]
    return problems


def check(site: Path, langs: list[str], root: Path, base_path: str = "/") -> list[str]:
    """Active content in what the build is about to publish (``site``: the work folder, one folder per
    edition in ``langs``); ``root`` holds the ``gallery`` and ``docs`` the build was made from;
    ``base_path`` is where the site is served on its host (the path of ``SITE_URL``: ``/tensor-copies/``)."""
    return [problem for lang in langs
            for problem in _edition_problems(site, lang, root / "gallery", root / "docs", base_path)]  # fmt: skip
