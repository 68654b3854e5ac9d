"""Downloads that read cleanly: no raw reST directives and no unresolved substitutions.

sphinx-gallery turns a page's text cells into Markdown for the ``.ipynb`` download, but it converts
only ``note`` and ``warning``: the errata boxes (``.. admonition:: ... |torch_version|``) and the
figure captions (``.. figure-caption::``) reached the notebooks as raw reST, and the ``.py`` download
kept ``|torch_version|`` unresolved. After sphinx-gallery has written both (before Sphinx copies
them as downloads), this extension rewrites them:

- in every notebook's Markdown cells, an admonition becomes a blockquote opening with its title in bold
  (a GPU box's title is the page's, saying whether the site's build ran its checks:
  :func:`tensorcopy_sphinx.gpu_box.box_title`), code blocks included:
  sphinx-gallery writes every ``.. code-block::`` as a fence at the start of a line, so a box's code
  (the answer box's fix) lost the indentation that kept it in the box; a fence that follows a box's
  text and holds a code block that box holds in the page's reST (the ``.rst`` sphinx-gallery wrote)
  goes back into it, and a box's code block that does not reach its box fails the build. A figure
  caption becomes its caption paragraph (the alt text
  belongs to the picture, which the notebook draws when it runs), and each of the build's substitutions
  (``|torch_version|``...) becomes its value;
- in every notebook's Markdown cells, a cross-reference (sphinx-gallery leaves ``:ref:`下一页 <label>```
  as ```下一页 <label>``` and ``:ref:`label``` as ```label```, and ``:doc:`` as it is) becomes a
  Markdown link to that page of the published site, since a label means nothing in a notebook opened
  alone: the edition's address (``html_baseurl``, from ``SITE_URL``: ``docs/_shared/conf.py``), the
  page and the label's anchor, all read from Sphinx's own record of the labels and titles it read
  (:class:`Pages`). This is why the downloads are finished once Sphinx has read every page
  (``env-updated``), before they are zipped and copied. Without an address the reference names the
  page by its title instead (``下一页《title》``, or only the title where the reference has no words of
  its own, its words are the title or the title's first words: ``见《视图操作一览》``, a generated page
  as any other; the words alone where the text after them already gives the title). A Chinese notebook
  names a page one way, by its title in 《》: ``“X”那一页`` becomes ``《title》`` and a short name right
  after 见 becomes ``《title》``; words of the sentence's own stay, with the title in brackets
  (``只用 clone()（见《title》）``, as the English ``a copy ("title")``). A label Sphinx does not know is
  a warning of Sphinx's own kind (``ref.ref``, ``ref.doc``),
  which fails the build and which a preview, built without most pages, lets pass. A Markdown link loses the
  ``_`` sphinx-gallery leaves after it when the reST link was anonymous (```text <url>`__``);
- in every notebook's Markdown cells, reST's escaped whitespace (``见\\ :ref:`...```, which reST
  removes and Markdown would show as a backslash) is removed outside code, and any other role left
  (``:func:``...) fails the build, naming the file;
- in every notebook's Markdown cells, a named fact's citation (``:fact:`id```, which renders nothing on
  the page: :mod:`tensorcopy_sphinx.behaviour_matrix`) is removed with the space or line break before it;
- in the notebooks of editions marked ``cjk`` in ``editions``, a line break inside a
  paragraph is removed where the site's pages remove it (between Chinese characters, next to
  full-width punctuation: ``tensorcopy_sphinx.cjk_linebreaks``), since Jupyter shows it as a space;
- every ``.py`` download's text is made plain text by :mod:`tensorcopy_sphinx.script_text`.

Any other directive, or a substitution the build does not define, fails the build and names the file.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import docname_join, logging

from editions import edition
from tensorcopy_sphinx.build_info import build_versions, resolve
from tensorcopy_sphinx.cjk_linebreaks import FULL_WIDTH_PUNCTUATION, HAN, join_lines
from tensorcopy_sphinx.gpu_box import CLASS, box_title, ran_on

#: A reST directive at the start of a line: its name, its argument, then its indented block.
_DIRECTIVE = re.compile(r"^\.\. (?P<name>[a-z][\w-]*)::[ \t]*(?P<argument>.*)\n(?P<block>(?:[ \t]*\n|[ \t]+\S.*\n?)*)",
                        re.MULTILINE)
_OPTION = re.compile(r"^:[\w-]+:.*$")
#: The class option of a GPU box (:mod:`tensorcopy_sphinx.gpu_box`).
_GPU_BOX = re.compile(rf"^[ \t]+:class:.*\b{CLASS}\b", re.MULTILINE)
#: A cross-reference as sphinx-gallery leaves it: ```words <label>``` or ```label``` (``:ref:`` dropped), or
#: ``:doc:`words <name>``` and ``:doc:`name``` as they were.
_LEFT_REFERENCE = re.compile(r"(?P<before> ?)(?:(?<![`:])`|(?P<doc>:doc:`))"
                             r"(?:(?P<words>[^`<>]+?)\s*<(?P<target>[^`<>\s]+)>|(?P<bare>[^`<>\s]+))"
                             r"`(?![`_])(?P<after> ?)")
_HAN = re.compile(f"[{HAN}]")
#: What marks words as code: call parentheses, an attribute's dot, an underscore, an operator.
_API = re.compile(r"[()._=\[\]+-]")
#: The end of a reference's text that stands without a space next to Chinese (a Chinese character, or
#: the full-width bracket of a title named after it, or the quotation mark of a short page name).
_CJK_END = re.compile(f"[{HAN}{FULL_WIDTH_PUNCTUATION}“”]")
#: reST's escaped whitespace, which reST removes and Markdown shows as a backslash.
_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\[ \n]")
#: Code in a Markdown cell, where nothing is rewritten: fenced blocks and ````literal```` spans.
_CODE = re.compile(r"```.*?```|``.+?``", re.DOTALL)
#: A reST role left in the text (``:func:`x```).
_ROLE = re.compile(r"(?<![\w`]):[a-z][\w-]*(?::[a-z][\w-]*)?:`")
#: A named fact's citation (the ``fact`` role renders nothing), with the space or line break before it.
_FACT = re.compile(r"(?:[ \t]*\n)?[ \t]*:fact:`[^`]*`")
#: A Markdown link sphinx-gallery made from an anonymous reST link (```text <url>`__``): it converts
#: ```text <url>`_`` and leaves the second underscore behind.
_LEFT_UNDERSCORE = re.compile(r"(\[[^\]]*\]\([^)\s]*\))_")
#: A Markdown line that starts a block of its own (heading, table, list item, fence) or ends one.
_BLOCK = re.compile(r"\s*(?:#|\||[-*+] |\d+[.)] |```|$)")
_QUOTE = re.compile(r"(?:> ?)*")
#: The lines of a directive's block: blank, or indented.
_BLOCK_LINES = re.compile(r"(?:[ \t]*\n|[ \t]+\S.*\n?)*")
#: A code block as sphinx-gallery writes it into Markdown: a fence at the start of a line.
_FENCE = re.compile(r"```[^`\n]*\n(?P<code>(?:.*\n)*?)```[ \t]*(?:\n|$)")
#: A code block in reST, with its indented content.
_CODE_BLOCK = re.compile(r"^\.\. code-block::.*\n(?P<code>(?:[ \t]*\n|[ \t]+\S.*\n?)*)", re.MULTILINE)


def _body(block: str) -> str:
    """A directive's content: its block dedented, without the leading ``:option:`` lines."""
    lines = textwrap.dedent(block).strip("\n").splitlines()
    while lines and _OPTION.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def _code(code: str) -> str:
    """A code block's code, compared without its indentation and trailing blanks."""
    return "\n".join(line.rstrip() for line in textwrap.dedent(code).strip("\n").splitlines())


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.splitlines())


def boxed_code(rst: str) -> frozenset[str]:
    """The code of every code block inside an admonition of ``rst`` (a page's reST)."""
    boxes = [_body(match.group("block")) for match in _DIRECTIVE.finditer(rst) if match.group("name") == "admonition"]
    return frozenset(_code(code.group("code")) for box in boxes for code in _CODE_BLOCK.finditer(box))


def _with_boxed_code(text: str, block: str, end: int, boxed: frozenset[str]) -> tuple[str, int]:
    """An admonition's ``block`` (ending at ``end`` of ``text``) with the fences after it that hold its
    code, indented back into it, and the box's lines after each; and where the box now ends."""
    first = next((line for line in block.splitlines() if line.strip()), "   ")
    indent = first[: len(first) - len(first.lstrip())]
    while (fence := _FENCE.match(text, end)) and _code(fence.group("code")) in boxed:
        rest = _BLOCK_LINES.match(text, fence.end())
        code = "\n".join(f"{indent}{line}" if line.strip() else line for line in fence.group().splitlines())
        block, end = f"{block}{code}\n{rest.group()}", rest.end()
    return block, end


def _directives(text: str, where: str, gpu_title: str | None, boxed: frozenset[str]) -> str:
    """``text`` with each directive turned into Markdown (:func:`_markdown`)."""
    parts, position = [], 0
    while match := _DIRECTIVE.search(text, position):
        block, end = match.group("block"), match.end()
        if match.group("name") == "admonition":
            block, end = _with_boxed_code(text, block, end, boxed)
        parts += [text[position:match.start()], _markdown(match.group("name"), match.group("argument"), block,
                                                          where, gpu_title)]  # fmt: skip
        position = end
    return "".join(parts) + text[position:]


def _markdown(name: str, argument: str, block: str, where: str, gpu_title: str | None = None) -> str:
    body = _body(block)
    if name == "admonition":
        quoted = _quoted(body)
        title = argument.strip()
        if _GPU_BOX.search(block):
            if gpu_title is None:
                raise ExtensionError(f"{where}: a GPU box, but no title was given for it")
            title = gpu_title
        return f"> **{title}**\n>\n{quoted}\n\n"
    if name == "figure-caption":
        return f"{body}\n\n"
    raise ExtensionError(f"{where}: the notebook's text holds a `.. {name}::` directive that "
                         f"tensorcopy_sphinx.notebook_text cannot turn into Markdown; add it there")


def join_chinese_lines(markdown: str) -> str:
    """``markdown`` with the line breaks inside a paragraph (or a quoted paragraph) joined where the
    site's Chinese pages join them; headings, lists, tables and fenced code keep their lines."""
    lines: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        quote = _QUOTE.match(line).group()
        body = line[len(quote):]
        if body.lstrip().startswith("```"):
            fenced = not fenced
        previous = lines[-1] if lines and not fenced else ""
        before = previous[len(_QUOTE.match(previous).group()):]
        same_block = quote.strip() == _QUOTE.match(previous).group().strip()
        if same_block and before.strip() and not before.lstrip().startswith("#") and not _BLOCK.match(body):
            joined = join_lines(f"{previous}\n{body}")
            if "\n" not in joined:
                lines[-1] = joined
                continue
        lines.append(line)
    return "\n".join(lines)


logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pages:
    """Where the edition's cross-references lead, as Sphinx read them: ``labels`` (label -> the page,
    the anchor and the title of what it labels: the standard domain's), ``titles`` (page -> title),
    ``base`` (the edition's published address, ``html_baseurl``; '' when it has none), ``docname`` (the
    page whose notebook this is: a relative ``:doc:`` starts there)."""

    labels: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    base: str = ""
    docname: str = ""
    suffix: str = ".html"

    @classmethod
    def read(cls, app: Sphinx, env) -> Pages:
        titles = {name: title.astext() for name, title in env.titles.items()}
        return cls(dict(env.domains.standard_domain.labels), titles, app.config.html_baseurl,
                   suffix=getattr(app.builder, "link_suffix", ".html"))

    def of(self, docname: str) -> Pages:
        return Pages(self.labels, self.titles, self.base, docname, self.suffix)

    def target(self, target: str, doc: bool) -> tuple[str, str | None] | None:
        """The title of what ``target`` (a label, or a page for ``doc``) names, and its address on the
        published site (None without one); None for a target Sphinx does not know."""
        if doc:
            docname = docname_join(self.docname, target.removeprefix("/")) if not target.startswith("/") \
                else target.removeprefix("/")  # fmt: skip
            if docname not in self.titles:
                return None
            docname, anchor, title = docname, "", self.titles[docname]
        elif target in self.labels:
            docname, anchor, title = self.labels[target]
            title = title or self.titles.get(docname, target)
        else:
            return None
        url = f"{self.base}{quote(docname)}{self.suffix}" + (f"#{anchor}" if anchor else "") if self.base else None
        return title, url


def _outside_code(text: str, change) -> str:
    """``text`` with ``change`` applied to every piece of it that is not code."""
    parts, position = [], 0
    for code in _CODE.finditer(text):
        parts += [change(text[position:code.start()]), code.group()]
        position = code.end()
    return "".join(parts) + change(text[position:])


def markdown_cell(text: str, values: dict[str, str], where: str, cjk: bool = False,
                  gpu_title: str | None = None, boxed: frozenset[str] = frozenset(),
                  pages: Pages = Pages()) -> str:  # fmt: skip
    """One Markdown cell as a notebook reader should see it (see the module docstring); ``boxed`` holds
    the code of the code blocks the page's admonitions hold (:func:`boxed_code`), ``pages`` where its
    cross-references lead."""
    text = text if text.endswith("\n") else text + "\n"
    text = _FACT.sub("", _directives(text, where, gpu_title, boxed))
    text = _LEFT_UNDERSCORE.sub(r"\1", resolve(text, values, where))
    text = _outside_code(text, lambda prose: _ESCAPE.sub(r"\1", prose))
    text = _LEFT_REFERENCE.sub(lambda match: _reference(match, cjk, pages, where), text).rstrip("\n")
    if role := _ROLE.search(_CODE.sub(" ", text)):
        raise ExtensionError(f"{where}: the notebook's text holds the role {role.group()}`, which "
                             f"tensorcopy_sphinx.notebook_text cannot turn into Markdown; add it there")
    return join_chinese_lines(text) if cjk else text


def _reference(reference: re.Match, cjk: bool, pages: Pages, where: str, plain: bool = False) -> str:
    """A left cross-reference as a link to its page (or its words and the page's title, where the site
    has no address); in a ``cjk`` edition without the spaces around it where Chinese meets Chinese (the
    pages drop those too: ``tensorcopy_sphinx.cjk_linebreaks``). A code span that is no label stays.
    ``plain`` text (a ``.py`` download's comments) has no links: the page is named as without an
    address, and its address follows in brackets."""
    words, doc = reference.group("words"), bool(reference.group("doc"))
    target = reference.group("target") or reference.group("bare")
    found = pages.target(target, doc)
    if found is None:
        if words is None and not doc and not plain:
            return reference.group()  # inline code (`assert`), not a label
        logger.warning(f"{where}: the notebook's cross-reference to {target!r} leads to no page",
                       type="ref", subtype="doc" if doc else "ref")
        title, url = words or target, None
    else:
        title, url = found
    shown = words or title
    named = reference.string[reference.end():].lstrip().startswith(title)  # the text goes on with the title
    if url and not plain:
        text = "[{}]({})".format(shown.replace("[", r"\[").replace("]", r"\]"), url)
    elif named:
        text = shown
    elif shown == title:  # the page's title, quoted as a title like the references named by it below
        text = f"《{title}》" if cjk and found is not None else title
    elif cjk:
        text = _one_name(shown, title, reference.string[: reference.start()])
    elif title.startswith(shown) and not _api_name(shown):  # the title's first words: the title alone
        text = f'"{title}"'
    else:
        text = f'{shown} ("{title}")'
    if url and plain:
        text = f"{text}（{url}）" if cjk else f"{text} ({url})"
    visible = shown if url and not plain else text
    string, start, end = reference.string, reference.start(), reference.end()
    before, after = reference.group("before"), reference.group("after")
    if cjk and before and start > 0 and _HAN.match(string[start - 1]) and _CJK_END.match(visible[0]):
        before = ""
    if cjk and after and end < len(string) and _HAN.match(string[end]) and _CJK_END.match(visible[-1]):
        after = ""
    return f"{before}{text}{after}"


def _api_name(words: str) -> bool:
    """Whether a reference's words are an API name the sentence uses (``clone()``, ``a.grad``), which the
    sentence needs even where the title starts with them, not a short name of the page (``共享权重``)."""
    return not _HAN.search(words) and bool(_API.search(words))


def _one_name(shown: str, title: str, before: str) -> str:
    """The page named once in a ``cjk`` edition, and always the same way, by its title in 《》: a short
    name gives way to it (``“X”那一页的表`` becomes ``《title》的表``; a name right after 见, in quotes or
    in 《》, or the title's first words becomes ``《title》``); an ordinal (``上一页``) keeps the title after it
    (``上一页《title》``); words of the sentence's own (``只用 clone()``, an API name even where the title
    starts with it) stay and the title follows in brackets (``只用 clone()（见《title》）``), since the page
    shows those words and the sentence needs them."""
    if "那一页" in shown:
        return f"《{title}》{shown[shown.index('那一页') + len('那一页'):]}"
    if shown.endswith("页"):
        return f"{shown}《{title}》"
    after_see = before.rstrip(" \\\n").endswith("见")
    quoted = (shown.startswith("“") and shown.endswith("”")) or (shown.startswith("《") and shown.endswith("》"))
    if after_see or quoted or (title.startswith(shown) and not _api_name(shown)):  # a short name: 共享权重
        return f"《{title}》"
    return f"{shown}（见《{title}》）"


def clean_notebook(path: Path, values: dict[str, str], cjk: bool = False, gpu_title: str | None = None,
                   boxed: frozenset[str] = frozenset(), pages: Pages = Pages()) -> None:  # fmt: skip
    data = json.loads(path.read_text(encoding="utf-8"))
    for cell in data["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            cell["source"] = [markdown_cell(source, values, str(path.name), cjk, gpu_title, boxed, pages)]
    markdown = "\n".join(cell["source"][0] for cell in data["cells"] if cell["cell_type"] == "markdown")
    for code in sorted(boxed):
        if _quoted(code) not in markdown:
            raise ExtensionError(f"{path.name}: a box's code block did not reach its blockquote (sphinx-gallery "
                                 f"changed how it writes code blocks? see tensorcopy_sphinx.notebook_text):\n{code}")
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def gpu_title(app: Sphinx, name: str) -> str:
    """The title of the GPU boxes in the notebook of example ``name``: the page's own
    (:func:`tensorcopy_sphinx.gpu_box.box_title`)."""
    return box_title(app, ran_on(name))


def _clean_downloads(app: Sphinx, env) -> None:
    gallery_dir = app.config.sphinx_gallery_conf["gallery_dirs"][0]
    gallery = Path(app.srcdir) / gallery_dir
    values, cjk, pages = build_versions(), edition(app.config.language).cjk, Pages.read(app, env)
    for notebook in sorted(gallery.rglob("plot_*.ipynb")):
        name = notebook.relative_to(gallery).with_suffix("").as_posix()
        rst = notebook.with_suffix(".rst").read_text(encoding="utf-8")
        clean_notebook(notebook, values, cjk, gpu_title(app, name), boxed_code(rst),
                       pages.of(f"{gallery_dir}/{name}"))


def setup(app: Sphinx) -> dict:
    app.connect("env-updated", _clean_downloads)  # once Sphinx knows every label; before the zips (900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
