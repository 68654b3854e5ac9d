"""Sources hold no active content: what a reader's browser would run or follow is written by the site's
own templates and extensions, never by a page.

Refused in the text of gallery pages, in the galleries' headers (``GALLERY_HEADER.rst``) and in the
narrative pages (``docs/<lang>/*.md``): raw HTML (reST ``.. raw::`` and ``(raw)`` roles, MyST HTML
blocks and inline HTML, a ``{raw}`` directive), ``<script``, and ``javascript:``, ``vbscript:`` or
``data:`` links. Directives are held to an allow-list, the ones the pages use
(:data:`REST_DIRECTIVES` in the reST of gallery text and headers, substitution definitions included;
:data:`MYST_DIRECTIVES` in the narrative pages): no ``raw``, ``include``, ``literalinclude`` or
``eval-rst``, whatever the spelling. Inline HTML in a gallery page's text (``<img onerror=...>``) is
refused too: the page shows it escaped, but it reaches the notebook download as Markdown, where it is
HTML.
Refused anywhere in the repository: a symlink in the folders a build stages or publishes (``docs``,
``gallery``, ``tensorfacts``, ``sitetools``), and a symlink elsewhere that leads out of the repository.
(The site's templates, landing page and extensions write HTML of their own; they are not page sources
and are reviewed as code.)
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from editions import CODES
from sitetools.rules import sources

#: Folders copied into the staging tree and so into the site: no symlink at all.
NO_SYMLINKS = ("docs", "gallery", "editions", "sitetools", "tensorfacts")
#: Folders not searched for symlinks (tools' environments, build output, git's own files).
NOT_SEARCHED = {".git", ".nox", "node_modules", "build", "__pycache__", ".pytest_cache", ".ruff_cache"}

RULES = (
    (re.compile(r"^\s*\.\.\s+raw\s*::", re.M), "a raw directive (raw HTML)"),
    (re.compile(r"\(\s*raw\s*\)"), "a role based on raw (raw HTML)"),
    (re.compile(r"<\s*script", re.I), "<script>"),
    (re.compile(r"\b(javascript|vbscript)\s*:", re.I), "a javascript: or vbscript: link"),
    (re.compile(r"""(<|\]\(|\b(href|src)\s*=\s*["']?)\s*data\s*:""", re.I), "a data: link"),
    (re.compile(r"(:|\{)download(:|\})`", re.I), "a download role (it copies any file it names into the site)"),
)


#: The directives the gallery's reST may use (text cells and headers): the site's own and two of docutils'.
REST_DIRECTIVES = {"admonition", "code-block", "figure-caption"}
#: The directives the narrative pages may use (MyST fences).
MYST_DIRECTIVES = {"admonition", "behaviour-matrix", "claims-ledger", "core-terms", "doctest", "fact-index",
                   "saved-table", "release-records", "terms-table", "toctree", "view-table"}  # fmt: skip
#: A reST directive, or a substitution defined by one (``.. |x| raw:: html``): its name.
REST_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+(?:\|[^|\n]+\|[ \t]+)?([^\s|`:][^\s]*?)[ \t]*::(?=\s|$)", re.M)
#: A MyST directive fence, nested ones included: its name.
MYST_DIRECTIVE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*\{([^}]*)\}", re.M)
#: An HTML tag, comment or declaration in reST prose (``a < b`` is not one).
INLINE_HTML = re.compile(r"<[A-Za-z!/?]")


def _text_rules(text: str) -> list[str]:
    return [what for pattern, what in RULES if pattern.search(text)]


def _directives(text: str, pattern: re.Pattern, allowed: set[str]) -> list[str]:
    """Each directive of ``text`` outside ``allowed``, with its line."""
    return [f"line {text.count(chr(10), 0, m.start()) + 1}: the `{m.group(1)}` directive (the pages use only "
            f"{', '.join(sorted(allowed))})" for m in pattern.finditer(text)
            if m.group(1).strip().lower() not in allowed]  # fmt: skip


def _rest_html(text: str) -> list[str]:
    """Inline HTML in reST prose: ``<tag`` outside inline literals and link targets (```text <url>`_``)."""
    prose = re.sub(r"``.+?``", lambda m: " " * len(m.group(0)), text, flags=re.S)
    prose = re.sub(r"<[^<>\n]+>`", "`", prose)
    return [f"inline HTML {prose[m.start():m.start() + 30].splitlines()[0]!r}" for m in INLINE_HTML.finditer(prose)]


def _rest_rules(text: str, lines: str | None = None) -> list[str]:
    """The rules for the reST of a gallery page's text or a gallery header; directives are looked for in
    ``lines`` (the whole file, so that their line numbers are the file's) when given."""
    return (_text_rules(text) + _directives(text if lines is None else lines, REST_DIRECTIVE, REST_DIRECTIVES)
            + _rest_html(text))


def _uncommented(source: str) -> str:
    """A script's lines with the ``#`` of its text cells taken off, line numbers kept."""
    return re.sub(r"^([ \t]*)#", r"\1", source, flags=re.M)


@functools.cache
def _markdown():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    return create_md_parser(MdParserConfig(enable_extensions={"substitution"}), RendererHTML)


def _markdown_html(text: str) -> list[str]:
    """MyST HTML blocks, inline HTML and ``{raw}`` directives, with their lines."""
    found = []
    for token in _markdown().parse(text):
        line = (token.map or [0])[0] + 1
        if token.type == "html_block":
            found.append(f"line {line}: raw HTML {token.content.strip()[:40]!r}")
        elif token.type == "fence" and token.info.strip().startswith("{raw}"):
            found.append(f"line {line}: a {{raw}} directive (raw HTML)")
        for child in token.children or []:
            if child.type == "html_inline":
                found.append(f"line {line}: inline HTML {child.content[:40]!r}")
    return found


def check_text(root: Path = sources.ROOT) -> list[str]:
    """Active content in the pages' text, headers and narrative pages, one line each naming the file."""
    problems = []
    gallery, docs = root / "gallery", root / "docs"
    for lang in CODES:
        for script in sources.gallery_scripts(lang, gallery):
            text = "\n".join(content for kind, content in sources.blocks(script) if kind == "text")
            lines = _uncommented(script.read_text(encoding="utf-8"))
            where = script.relative_to(root).as_posix()
            problems += [f"{where}: {what} in its text" for what in _rest_rules(text, lines)]
        for header in sorted((gallery / lang).rglob("*.rst")) + sorted((gallery / lang).rglob("*.txt")):
            text = header.read_text(encoding="utf-8")
            problems += [f"{header.relative_to(root).as_posix()}: {what}" for what in _rest_rules(text)]
        for page in sources.narrative_pages(lang, docs):
            text = page.read_text(encoding="utf-8")
            where = page.relative_to(root).as_posix()
            problems += [f"{where}: {what}" for what in _text_rules(text)]
            problems += [f"{where}: {what}" for what in _markdown_html(text)]
            problems += [f"{where}: {what}" for what in _directives(text, MYST_DIRECTIVE, MYST_DIRECTIVES)]
    return [f"{problem}; pages hold no active content (raw HTML, scripts, javascript:/data: links, includes)"
            for problem in problems]  # fmt: skip


def check_symlinks(root: Path = sources.ROOT) -> list[str]:
    problems = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in NOT_SEARCHED)
        for name in sorted(files + dirs):
            path = here / name
            if not path.is_symlink():
                continue
            relative = path.relative_to(root)
            target = os.readlink(path)
            if relative.parts[0] in NO_SYMLINKS:
                problems.append(f"{relative.as_posix()}: a symlink (to {target}); the folders the site is built "
                                f"from hold files only")  # fmt: skip
            elif root.resolve() not in path.resolve().parents:
                problems.append(f"{relative.as_posix()}: a symlink that leads out of the repository (to {target})")
    return problems


def check(root: Path = sources.ROOT) -> list[str]:
    return check_symlinks(root) + check_text(root)
