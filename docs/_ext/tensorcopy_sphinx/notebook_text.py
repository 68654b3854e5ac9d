"""Downloads that read cleanly: no raw reST directives and no unresolved substitutions.

sphinx-gallery turns a page's text cells into Markdown for the ``.ipynb`` download, but it converts
only ``note`` and ``warning``: the errata boxes (``.. admonition:: ... |torch_version|``) and the
figure captions (``.. figure-caption::``) reached the notebooks as raw reST, and the ``.py`` download
kept ``|torch_version|`` unresolved. After sphinx-gallery has written both (before Sphinx copies
them as downloads), this extension rewrites them:

- in every notebook's Markdown cells, an admonition becomes a blockquote opening with its title in
  bold, a figure caption becomes its caption paragraph (the alt text belongs to the picture, which
  the notebook draws when it runs), and each of the build's substitutions (``|torch_version|``...)
  becomes its value;
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

from tensorcopy_sphinx.build_info import build_versions

#: A reST directive at the start of a line: its name, its argument, then its indented block.
_DIRECTIVE = re.compile(r"^\.\. (?P<name>[a-z][\w-]*)::[ \t]*(?P<argument>.*)\n(?P<block>(?:[ \t]*\n|[ \t]+\S.*\n?)*)",
                        re.MULTILINE)
_OPTION = re.compile(r"^:[\w-]+:.*$")
#: What a reST substitution reference looks like (``|torch_version|``).
SUBSTITUTION = re.compile(r"\|([a-z][a-z0-9_]*)\|")


def _body(block: str) -> str:
    """A directive's content: its block dedented, without the leading ``:option:`` lines."""
    lines = textwrap.dedent(block).strip("\n").splitlines()
    while lines and _OPTION.match(lines[0]):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def _markdown(match: re.Match, where: str) -> str:
    name, body = match.group("name"), _body(match.group("block"))
    if name == "admonition":
        quoted = "\n".join(f"> {line}" if line.strip() else ">" for line in body.splitlines())
        return f"> **{match.group('argument').strip()}**\n>\n{quoted}\n\n"
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


def markdown_cell(text: str, values: dict[str, str], where: str) -> str:
    """One Markdown cell as a notebook reader should see it (see the module docstring)."""
    text = _DIRECTIVE.sub(lambda match: _markdown(match, where), text if text.endswith("\n") else text + "\n")
    return resolve(text, values, where).rstrip("\n")


def clean_notebook(path: Path, values: dict[str, str]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    for cell in data["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = [markdown_cell("".join(cell["source"]), values, str(path.name))]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def clean_script(path: Path, values: dict[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    cleaned = resolve(text, values, str(path.name))
    if cleaned != text:
        path.write_text(cleaned, encoding="utf-8")


def _clean_downloads(app: Sphinx, env, docnames) -> None:
    gallery = Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"][0]
    values = build_versions()
    for notebook in sorted(gallery.rglob("plot_*.ipynb")):
        clean_notebook(notebook, values)
    for script in sorted(gallery.rglob("plot_*.py")):
        clean_script(script, values)


def setup(app: Sphinx) -> dict:
    app.connect("env-before-read-docs", _clean_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
