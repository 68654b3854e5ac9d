"""Downloads that read cleanly: no raw reST directives and no unresolved substitutions.

sphinx-gallery turns a page's text cells into Markdown for the ``.ipynb`` download, but it converts
only ``note`` and ``warning``: the errata boxes (``.. admonition:: ... |torch_version|``) and the
figure captions (``.. figure-caption::``) reached the notebooks as raw reST, and the ``.py`` download
kept ``|torch_version|`` unresolved. After sphinx-gallery has written both (before Sphinx copies
them as downloads), this extension rewrites them:

- in every notebook's Markdown cells, an admonition becomes a blockquote opening with its title in bold
  (a GPU box's title says whether this build ran its checks, as on the page:
  :mod:`tensorcopy_sphinx.gpu_box`), a figure caption becomes its caption paragraph (the alt text
  belongs to the picture, which the notebook draws when it runs), and each of the build's substitutions
  (``|torch_version|``...) becomes its value;
- in every notebook's Markdown cells, a cross-reference that sphinx-gallery left as
  ```下一页 <copying-rebinding>``` (it only drops the ``:ref:`` role) becomes its words, since the
  label means nothing outside the site, and a Markdown link loses the ``_`` sphinx-gallery leaves
  after it when the reST link was anonymous (```text <url>`__``);
- in every notebook's Markdown cells, a named fact's citation (``:fact:`id```, which renders nothing on
  the page: :mod:`tensorcopy_sphinx.behaviour_matrix`) is removed with the space or line break before it;
- in the notebooks of editions marked ``cjk`` in ``sitetools.editions``, a line break inside a
  paragraph is removed where the site's pages remove it (between Chinese characters, next to
  full-width punctuation: ``tensorcopy_sphinx.cjk_linebreaks``), since Jupyter shows it as a space;
- in every ``.py`` download, the substitutions become their values (the code is untouched).

Any other directive, or a substitution the build does not define, fails the build and names the file.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from sitetools.editions import edition
from tensorcopy_sphinx.build_info import build_versions
from tensorcopy_sphinx.cjk_linebreaks import join_lines
from tensorcopy_sphinx.gpu_box import CLASS, box_title, ran_on

#: A reST directive at the start of a line: its name, its argument, then its indented block.
_DIRECTIVE = re.compile(r"^\.\. (?P<name>[a-z][\w-]*)::[ \t]*(?P<argument>.*)\n(?P<block>(?:[ \t]*\n|[ \t]+\S.*\n?)*)",
                        re.MULTILINE)
_OPTION = re.compile(r"^:[\w-]+:.*$")
#: The class option of a GPU box (:mod:`tensorcopy_sphinx.gpu_box`).
_GPU_BOX = re.compile(rf"^[ \t]+:class:.*\b{CLASS}\b", re.MULTILINE)
#: What a reST substitution reference looks like (``|torch_version|``).
SUBSTITUTION = re.compile(r"\|([a-z][a-z0-9_]*)\|")
#: A cross-reference as sphinx-gallery leaves it (```words <label>```): a label, not an address.
_LEFT_REFERENCE = re.compile(r"(?P<before> ?)(?<!`)`(?P<words>[^`<>]+?)\s*<[\w.-]+>`(?![`_])(?P<after> ?)")
_HAN = re.compile("[\u3400-\u9fff]")
#: A named fact's citation (the ``fact`` role renders nothing), with the space or line break before it.
_FACT = re.compile(r"(?:[ \t]*\n)?[ \t]*:fact:`[^`]*`")
#: A Markdown link sphinx-gallery made from an anonymous reST link (```text <url>`__``): it converts
#: ```text <url>`_`` and leaves the second underscore behind.
_LEFT_UNDERSCORE = re.compile(r"(\[[^\]]*\]\([^)\s]*\))_")
#: A Markdown line that starts a block of its own (heading, table, list item, fence) or ends one.
_BLOCK = re.compile(r"\s*(?:#|\||[-*+] |\d+[.)] |```|$)")
_QUOTE = re.compile(r"(?:> ?)*")


def _body(block: str) -> str:
    """A directive's content: its block dedented, without the leading ``:option:`` lines."""
    lines = textwrap.dedent(block).strip("\n").splitlines()
    while lines and _OPTION.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def _markdown(match: re.Match, where: str, gpu_title: str | None = None) -> str:
    name, body = match.group("name"), _body(match.group("block"))
    if name == "admonition":
        quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in body.splitlines())
        title = match.group("argument").strip()
        if _GPU_BOX.search(match.group("block")):
            if gpu_title is None:
                raise ExtensionError(f"{where}: a GPU box, but no title was given for it")
            title = gpu_title
        return f"> **{title}**\n>\n{quoted}\n\n"
    if name == "figure-caption":
        return f"{body}\n\n"
    raise ExtensionError(f"{where}: the notebook's text holds a `.. {name}::` directive that "
                         f"tensorcopy_sphinx.notebook_text cannot turn into Markdown; add it there")


def resolve(text: str, values: dict[str, str], where: str) -> str:
    """``text`` with each ``|name|`` of ``values`` replaced; an unknown name raises, naming ``where``."""

    def value(match: re.Match) -> str:
        if match.group(1) not in values:
            raise ExtensionError(f"{where}: the substitution |{match.group(1)}| is not one the build "
                                 f"defines ({', '.join(sorted(values))})")
        return values[match.group(1)]

    return SUBSTITUTION.sub(value, text)


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


def markdown_cell(text: str, values: dict[str, str], where: str, cjk: bool = False,
                  gpu_title: str | None = None) -> str:  # fmt: skip
    """One Markdown cell as a notebook reader should see it (see the module docstring)."""
    text = text if text.endswith("\n") else text + "\n"
    text = _FACT.sub("", _DIRECTIVE.sub(lambda match: _markdown(match, where, gpu_title), text))
    text = _LEFT_UNDERSCORE.sub(r"\1", resolve(text, values, where))
    text = _LEFT_REFERENCE.sub(lambda match: _words(match, cjk), text).rstrip("\n")
    return join_chinese_lines(text) if cjk else text


def _words(reference: re.Match, cjk: bool) -> str:
    """A left cross-reference as its words; in a ``cjk`` edition without the spaces around it where
    Chinese meets Chinese (the pages drop those too: ``tensorcopy_sphinx.cjk_linebreaks``)."""
    words, text = reference.group("words"), reference.string
    start, end = reference.start(), reference.end()
    before, after = reference.group("before"), reference.group("after")
    if cjk and before and start > 0 and _HAN.match(text[start - 1]) and _HAN.match(words[0]):
        before = ""
    if cjk and after and end < len(text) and _HAN.match(text[end]) and _HAN.match(words[-1]):
        after = ""
    return f"{before}{words}{after}"


def clean_notebook(path: Path, values: dict[str, str], cjk: bool = False, gpu_title: str | None = None) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    for cell in data["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = [markdown_cell("".join(cell["source"]), values, str(path.name), cjk, gpu_title)]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def clean_script(path: Path, values: dict[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    cleaned = resolve(text, values, str(path.name))
    if cleaned != text:
        path.write_text(cleaned, encoding="utf-8")


def _clean_downloads(app: Sphinx, env, docnames) -> None:
    gallery = Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"][0]
    values, cjk = build_versions(), edition(app.config.language).cjk
    for notebook in sorted(gallery.rglob("plot_*.ipynb")):
        gpus = ran_on(notebook.with_suffix(".rst").read_text(encoding="utf-8"))
        clean_notebook(notebook, values, cjk, box_title(app, gpus))
    for script in sorted(gallery.rglob("plot_*.py")):
        clean_script(script, values)


def setup(app: Sphinx) -> dict:
    app.connect("env-before-read-docs", _clean_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
