"""The downloads' layout (``tensorcopy_sphinx.download_layout``), fast tier: the drawing helpers and the
rerun cell are folded in the notebook (JupyterLab's and Colab's keys) and marked off in the ``.py``;
the reader's cells are left as they are. The built downloads are checked in tests/test_downloads.py."""

from pathlib import Path

import pytest
from sphinx.errors import ExtensionError

from sitetools.authoring import figure_cell
from sitetools.rules.sources import blocks
from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.gallery_tools import LANGS, gallery_scripts, script_id
from tests.test_web_units import catalog

from tensorcopy_sphinx import download_layout  # noqa: E402  isort: skip
from tensorcopy_sphinx.download_layout import fold_notebook, is_helpers, mark_script  # noqa: E402  isort: skip
from tensorcopy_sphinx.rerun_cell import TAG  # noqa: E402  isort: skip

HELPERS = figure_cell.__loader__.get_source(figure_cell.__name__)
HELPERS = HELPERS[HELPERS.index("import matplotlib.pyplot as plt"):]


def notebook():
    code = lambda source, **metadata: {"cell_type": "code", "metadata": metadata, "source": [source],  # noqa: E731
                                       "outputs": [], "execution_count": None}
    return {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
        code("import torch\na = torch.ones(2)\n"),
        code(HELPERS),
        code("draw_memory('a', a=a)\n"),
        code("PAGE_CODE = r'''x'''\n", tags=[TAG]),
    ]}  # fmt: skip


def test_the_helpers_and_the_rerun_cell_are_folded_for_jupyterlab_and_colab_and_nothing_else():
    data = notebook()
    fold_notebook(data, "Drawing helpers", "Rerun", "plot_x.ipynb")
    cells = data["cells"]
    for cell, title in ((cells[2], "Drawing helpers"), (cells[4], "Rerun")):
        assert cell["metadata"]["jupyter"] == {"source_hidden": True}
        assert cell["metadata"]["cellView"] == "form"
        assert "".join(cell["source"]).split("\n")[0] == f"#@title {title}"
    assert cells[4]["metadata"]["tags"] == [TAG], "folding dropped the rerun cell's tag"
    for cell in (cells[1], cells[3]):
        assert cell["metadata"] == {} and not "".join(cell["source"]).startswith("#@title")
    once = [list(cell["source"]) for cell in cells]
    fold_notebook(data, "Drawing helpers", "Rerun", "plot_x.ipynb")
    assert [list(cell["source"]) for cell in cells] == once, "a second pass added a second title"


def test_the_text_before_the_helpers_says_the_notebook_folds_them_not_the_page():
    data = notebook()
    data["cells"].insert(2, {"cell_type": "markdown", "metadata": {},
                             "source": ["Drawn by the helpers below. Every page carries them, so the page\n"
                                        "folds them away; the downloads carry them."]})  # fmt: skip
    notes = ("Every page carries them, so the page folds them away; the downloads carry them.",
             "Every page carries them, so this notebook folds the cell below.")
    fold_notebook(data, "Drawing helpers", "Rerun", "plot_x.ipynb", notes)
    assert data["cells"][2]["source"] == ["Drawn by the helpers below. Every page carries them, so this notebook "
                                          "folds the cell below."]  # fmt: skip
    assert data["cells"][0]["source"] == ["# Title"], "only the text right before the helpers is reworded"


#: How a page's text before the helpers speaks of the page folding them, in each edition (written here).
PAGE_FOLDS = {"en": "the page folds it away", "zh_CN": "页面上把它折叠起来"}


def _helpers_text(script) -> str | None:
    """The text cell right before a page's helper cell, without its whitespace, or None."""
    cells = blocks(script)
    for before, cell in zip(cells, cells[1:], strict=False):
        if cell[0] == "code" and is_helpers(cell[1]) and before[0] == "text":
            return "".join(before[1].split())
    return None


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_that_says_it_folds_its_helpers_says_it_in_the_sentence_the_notebook_rewords(lang):
    note = download_layout.HELPERS_PAGE_NOTE
    note = "".join((note if lang == "en" else catalog(lang)[note]).split())
    texts = {script_id(script): _helpers_text(script) or "" for script in gallery_scripts(lang)}
    folding = [name for name, text in texts.items() if "".join(PAGE_FOLDS[lang].split()) in text]
    assert folding, f"no {lang} page says {PAGE_FOLDS[lang]!r} before its helpers: is this test still needed?"
    assert [name for name in folding if note not in texts[name]] == [], "reworded: the notebook would keep it"


def test_a_notebook_without_its_rerun_cell_fails_naming_it():
    data = notebook()
    data["cells"].pop()
    with pytest.raises(ExtensionError, match="plot_x.ipynb"):
        fold_notebook(data, "Drawing helpers", "Rerun", "plot_x.ipynb")


@pytest.mark.parametrize("blank", ["", "\n", "\n\n"])
def test_the_script_marks_where_the_helpers_start_and_end_and_keeps_their_code(blank):
    text = (f'"""Title"""\n\n# %%\n# Text.\n\nimport torch\n\n# %%\n# The helpers.\n\n{HELPERS}{blank}'
            "\n# %%\n# More.\nx = 1\n")
    marked = mark_script(text, "HELPERS", "END")
    lines = marked.splitlines()
    start, end = lines.index("# ==== HELPERS ===="), lines.index("# ==== END ====")
    assert "\n".join(lines[start + 1 : end]).strip() == HELPERS.strip(), "the helpers' code changed"
    assert lines[start - 1] == "" and lines[start - 2] == "# The helpers."
    assert lines[end + 2 + blank.count("\n") :] == ["# %%", "# More.", "x = 1"]
    assert marked.replace("# ==== HELPERS ====\n", "").replace("# ==== END ====\n", "") == text
    assert mark_script(marked, "HELPERS", "END") == marked, "a second pass added a second banner"
    assert mark_script("import torch\n", "HELPERS", "END") == "import torch\n"


def test_a_download_links_to_the_documentation_of_the_builds_release_not_the_newest():
    """The About page says the links to the PyTorch documentation go to the release the build runs: a hand-written
    "stable" link of a download's text is pinned to it, as the pages' links are."""
    from tensorcopy_sphinx.torch_links import DOCS_URL, STABLE_URL, inventory, pin_text  # isort: skip

    text = f"# see `Tensor.is_leaf <{STABLE_URL}generated/torch.Tensor.is_leaf.html>`__\n"
    pinned = pin_text(text)
    assert STABLE_URL not in pinned
    assert f"<{DOCS_URL.format(version=inventory()[0])}generated/torch.Tensor.is_leaf.html>" in pinned
    assert "pin_text(" in Path(download_layout.__file__).read_text(encoding="utf-8")
