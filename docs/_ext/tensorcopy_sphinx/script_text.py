"""The ``.py`` downloads' text as plain text, for a reader of the file alone.

sphinx-gallery offers each page's script as a ``.py`` download, its text cells as they are in the page's
source: reST, in the docstring and in the comments of each ``# %%`` cell. After sphinx-gallery has written
it (before Sphinx copies it as a download), once Sphinx has read every page (``env-updated``, as for the
notebooks: :mod:`tensorcopy_sphinx.notebook_text`), this extension rewrites its text:

- the build's substitutions (``|torch_version|``) become their values, code lines included;
- a cross-reference names its page as a notebook without an address does (``见《视图操作一览》``), followed by
  the page's address in brackets where the site has one (:func:`tensorcopy_sphinx.notebook_text._reference`);
- an external link (```words <url>`__`` or ```words <url>`_``) becomes its words, then its address in
  brackets: ``pytorch/pytorch#44023（https://github.com/...）``, in English ``Module.to (https://...)``;
- a box (``.. admonition:: 答案`` and its ``:class:``) becomes its title and a colon on a line of its own
  (``答案：``, ``Answer:``), then its text, dedented; a GPU box has the title of the notebook's box, which
  says whether the site's build ran its checks (:func:`tensorcopy_sphinx.notebook_text.gpu_title`). A
  figure's caption (``.. figure-caption::``) becomes its caption text: its alt text belongs to the picture,
  which the script draws when it runs. A code block becomes its code, indented four spaces;
- a named fact's citation and reST's escaped whitespace go.

A comment block whose every line is a text line (``#`` or ``# ...``) is rewritten without its marks, so that
a box or a link may span lines, then marked again. Any other directive fails the build, naming the file.
The code lines are untouched. A rewritten script may have fewer lines, and the script sphinx-gallery wrote
may have more than the page's source (:mod:`tensorcopy_sphinx.download_layout`): the rerun cell's sections
(``PAGE_SECTIONS``, :mod:`tensorcopy_sphinx.rerun_cell`), which give the line where each of the page's code
blocks starts in the script, are set to the lines where they start in the finished script (:func:`renumbered`).
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from editions import edition
from sitetools.for_sphinx import gallery_blocks
from tensorcopy_sphinx import notebook_text as notebook
from tensorcopy_sphinx.build_info import build_versions, resolve
from tensorcopy_sphinx.cjk_linebreaks import FULL_WIDTH_PUNCTUATION, HAN
from tensorcopy_sphinx.notebook_text import Pages, gpu_title

#: An external link, anonymous (```words <url>`__``) or not (```words <url>`_``), its words possibly over lines,
#: with the space before and after it.
_LINK = re.compile(r"(?P<before> ?)(?<![`:\w])`(?P<words>[^`<>]*?)(?P<gap>\s*)<(?P<url>[a-z][a-z+.-]*://[^<>\s`]+)>"
                   r"`__?(?![\w`])(?P<after> ?)")
_CJK = re.compile(f"[{HAN}{FULL_WIDTH_PUNCTUATION}]")
#: A cross-reference in a ``.py`` download's comments, as the page's source writes it (the groups of
#: :data:`tensorcopy_sphinx.notebook_text._LEFT_REFERENCE`, which
#: :func:`~tensorcopy_sphinx.notebook_text._reference` reads).
_REFERENCE = re.compile(r"(?P<before> ?)(?::ref:`|(?P<doc>:doc:`))"
                               r"(?:(?P<words>[^`<>]+?)\s*<(?P<target>[^`<>\s]+)>|(?P<bare>[^`<>\s]+))`(?P<after> ?)")
#: No cross-reference's target: a page is named by its reference's words.
NO_PAGES = Pages()
#: The rerun cell's sections, as :func:`tensorcopy_sphinx.rerun_cell.cell_code` writes them.
_SECTIONS = re.compile(r"^PAGE_SECTIONS = (\[.*\])$", re.MULTILINE)


def _link(link: re.Match, cjk: bool) -> str:
    """An external link as its words and its address in brackets (full-width in a ``cjk`` edition, without
    the spaces that set it apart from Chinese); the address alone where it has no words."""
    words, url, gap = link.group("words"), link.group("url"), link.group("gap")
    before, after, string = link.group("before"), link.group("after"), link.string
    if not words:
        return f"{before}{url}{after}"
    text = f"{words}{gap if chr(10) in gap else ''}（{url}）" if cjk else f"{words}{gap or ' '}({url})"
    if cjk and before and link.start() > 0 and _CJK.match(string[link.start() - 1]) and _CJK.match(words[0]):
        before = ""
    if cjk and after and link.end() < len(string) and _CJK.match(string[link.end()]):
        after = ""
    return f"{before}{text}{after}"


def _plain(text: str, cjk: bool, where: str, gpu: str | None) -> str:
    """``text`` (reST) with each directive at the start of a line as plain text (:func:`_directive`)."""
    parts, position = [], 0
    for match in notebook._DIRECTIVE.finditer(text):
        parts += [text[position:match.start()], _directive(match, cjk, where, gpu)]
        position = match.end()
    return "".join(parts) + text[position:]


def _directive(match: re.Match, cjk: bool, where: str, gpu: str | None) -> str:
    name, block = match.group("name"), match.group("block")
    end = "\n\n" if re.search(r"\n[ \t]*\n$", block) else "\n"  # the blank line its block ended with
    if name == "code-block":
        code = textwrap.dedent(block).strip("\n")
        return "\n".join(f"    {line}" if line.strip() else "" for line in code.splitlines()) + end
    body = _plain(notebook._body(block) + "\n", cjk, where, gpu).rstrip("\n")
    if name == "admonition":
        title = gpu if gpu is not None and notebook._GPU_BOX.search(block) else match.group("argument").strip()
        return f"{title}{'：' if cjk else ':'}\n{body}{end}"
    if name == "figure-caption":
        return f"{body}{end}"
    raise ExtensionError(f"{where}: the script's text holds a `.. {name}::` directive that "
                         f"tensorcopy_sphinx.script_text cannot turn into plain text; add it there")


def _prose(text: str, cjk: bool, pages: Pages, where: str, gpu: str | None) -> str:
    def links(prose: str) -> str:
        return _LINK.sub(lambda link: _link(link, cjk), notebook._ESCAPE.sub(r"\1", prose))

    text = notebook._outside_code(notebook._FACT.sub("", _plain(text, cjk, where, gpu)), links)
    return _REFERENCE.sub(lambda match: notebook._reference(match, cjk, pages, where, plain=True), text)


def _comments(block: str, cjk: bool, pages: Pages, where: str, gpu: str | None) -> str:
    """A block of comment lines: a text cell's, rewritten without its marks; any other as it stands."""
    lines = block.removesuffix("\n").split("\n")
    if not all(line == "#" or line.startswith("# ") for line in lines):  # a comment inside code
        return _prose(block, cjk, pages, where, gpu)
    text = "\n".join(line[2:] for line in lines) + "\n"
    done = _prose(text, cjk, pages, where, gpu)
    if done == text:
        return block
    marked = "\n".join(f"# {line}" if line.strip() else "#" for line in done.removesuffix("\n").split("\n"))
    return marked + ("\n" if block.endswith("\n") else "")


def script_text(text: str, values: dict[str, str], where: str, cjk: bool = False, pages: Pages = NO_PAGES,
                gpu: str | None = None) -> str:  # fmt: skip
    """A ``.py`` download as a reader of the file alone should read it (see the module's docstring); ``gpu`` is
    the title of the page's GPU box, where it has one."""
    text = resolve(text, values, where)
    end = text.find('"""', text.find('"""') + 3) + 3 if text.startswith('"""') else 0
    parts = [_prose(text[:end], cjk, pages, where, gpu)]
    for block in re.split(r"((?:^[ \t]*#.*(?:\n|$))+)", text[end:], flags=re.MULTILINE):
        parts.append(_comments(block, cjk, pages, where, gpu) if block.lstrip().startswith("#") else block)
    return "".join(parts)


def renumbered(text: str, where: str) -> str:
    """``text`` (a ``.py`` download) with its rerun cell's sections, one for each of the page's code blocks in
    order, at the lines where those blocks start in ``text``."""
    found = _SECTIONS.search(text)
    if found is None:
        return text
    sections = ast.literal_eval(found.group(1))
    starts = [block[2] for block in gallery_blocks(text) if block[0] == "code"]
    if len(starts) <= len(sections):  # the page's code blocks, then the rerun cell's
        raise ExtensionError(f"{where}: the rerun cell names {len(sections)} code blocks, the script has "
                             f"{len(starts)} with its own")
    shown = repr([(start, title) for start, (_, title) in zip(starts, sections, strict=False)])
    return text[:found.start(1)] + shown + text[found.end(1):]


def clean_script(path: Path, values: dict[str, str], cjk: bool = False, pages: Pages = NO_PAGES,
                 gpu: str | None = None) -> None:  # fmt: skip
    text = path.read_text(encoding="utf-8")
    cleaned = renumbered(script_text(text, values, str(path.name), cjk, pages, gpu), path.name)
    if cleaned != text:
        path.write_text(cleaned, encoding="utf-8")


def _clean_scripts(app: Sphinx, env) -> None:
    gallery_dir = app.config.sphinx_gallery_conf["gallery_dirs"][0]
    gallery = Path(app.srcdir) / gallery_dir
    values, cjk, pages = build_versions(), edition(app.config.language).cjk, Pages.read(app, env)
    for script in sorted(gallery.rglob("plot_*.py")):
        name = script.relative_to(gallery).with_suffix("").as_posix()
        clean_script(script, values, cjk, pages.of(f"{gallery_dir}/{name}"), gpu_title(app, name))


def setup(app: Sphinx) -> dict:
    app.connect("env-updated", _clean_scripts)  # once Sphinx knows every label; before the zips (900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
