"""The downloads read cleanly: notebooks hold Markdown, not raw reST, and no download keeps a
``|substitution|`` unresolved (``tensorcopy_sphinx.notebook_text``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sphinx.errors import ExtensionError

from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.gallery_tools import LANGS

from tensorcopy_sphinx.notebook_text import clean_notebook, markdown_cell  # noqa: E402  isort: skip

VALUES = {"torch_version": "9.9.9+cpu"}
RAW_DIRECTIVE = re.compile(r"^\s*\.\. [\w-]+::", re.MULTILINE)
SUBSTITUTION = re.compile(r"\|[a-z][a-z0-9_]*\|")

ERRATUM = """Some text before.

.. admonition:: The article vs. torch |torch_version|
   :class: warning

   The output above shows it:
   ``a`` changed.

   A second paragraph.

Text after."""

CAPTION = """.. figure-caption::
   :alt: Diagram: two names, one tensor.

   ``a`` and ``b`` are one tensor object."""


def download_problems(notebook: Path) -> list[str]:
    """Raw directives or unresolved substitutions in a notebook's Markdown cells."""
    problems = []
    for number, cell in enumerate(json.loads(notebook.read_text(encoding="utf-8"))["cells"]):
        text = "".join(cell["source"])
        if cell["cell_type"] != "markdown":
            continue
        problems += [f"{notebook.name} cell {number}: raw {m.group().strip()}" for m in RAW_DIRECTIVE.finditer(text)]
        problems += [f"{notebook.name} cell {number}: unresolved {m.group()}" for m in SUBSTITUTION.finditer(text)]
    return problems


def test_an_admonition_becomes_a_blockquote_with_its_title_in_bold():
    assert markdown_cell(ERRATUM, VALUES, "x.ipynb") == (
        "Some text before.\n\n"
        "> **The article vs. torch 9.9.9+cpu**\n>\n> The output above shows it:\n> ``a`` changed.\n>\n"
        "> A second paragraph.\n\nText after.")


def test_a_figure_caption_becomes_its_caption_text():
    assert markdown_cell(CAPTION, VALUES, "x.ipynb") == "``a`` and ``b`` are one tensor object."


@pytest.mark.parametrize(("text", "message"), [
    (".. topic:: Extra\n\n   text\n", "x.ipynb: .*topic"),
    ("torch |numpy_version|\n", "x.ipynb: the substitution |numpy_version|"),
])
def test_what_cannot_be_converted_fails_naming_the_file(text, message):
    with pytest.raises(ExtensionError, match=message.replace("|", r"\|")):
        markdown_cell(text, VALUES, "x.ipynb")


def test_the_checker_finds_raw_text_in_a_bad_notebook_and_the_cleaner_removes_it(tmp_path):
    notebook = tmp_path / "plot_bad.ipynb"
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [text]} for text in (ERRATUM, CAPTION)]
    cells.append({"cell_type": "code", "metadata": {}, "source": ["x = 1  # |not_text| in code stays"],
                  "outputs": [], "execution_count": None})
    notebook.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    assert len(download_problems(notebook)) == 3  # two directives and one |torch_version|
    clean_notebook(notebook, VALUES)
    assert download_problems(notebook) == []
    assert "|not_text|" in notebook.read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANGS)
def test_no_download_holds_raw_directives_or_unresolved_substitutions(site_dir, lang):
    notebooks = sorted((site_dir / lang / "_downloads").rglob("plot_*.ipynb"))
    scripts = sorted((site_dir / lang / "_downloads").rglob("plot_*.py"))
    assert notebooks and len(notebooks) == len(scripts), f"{lang}: {len(notebooks)} notebooks, {len(scripts)} scripts"
    problems = [p for notebook in notebooks for p in download_problems(notebook)]
    problems += [f"{script.name}: unresolved {m.group()}" for script in scripts
                 for m in SUBSTITUTION.finditer(script.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)
