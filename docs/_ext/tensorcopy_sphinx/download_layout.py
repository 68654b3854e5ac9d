"""Downloads that read like the page: the drawing helpers and the rerun cell are there, but folded away.

A page that draws carries the drawing helpers (``sitetools/authoring/figure_cell.py``, about 120 lines) as one of
its first code cells, and every download ends with the rerun cell (``tensorcopy_sphinx.rerun_cell``).
Both must stay, or the download would not run on its own, but neither is what the reader came for.
After the other extensions have written the downloads (before they are zipped), this one:

- in the notebook, folds both code cells: ``"jupyter": {"source_hidden": true}`` for JupyterLab and
  Notebook 7, ``"cellView": "form"`` with a ``#@title`` first line for Colab, which then shows the
  title and runs the hidden code as usual; the text before the helpers, which on a page says that the
  page folds them (:data:`HELPERS_PAGE_NOTE`), says in the notebook that the notebook folds them
  (:data:`HELPERS_NOTEBOOK_NOTE`);
- in the ``.py``, puts a banner line before and after the helpers' code, so a reader sees where they
  start and where the page's own code goes on (a script cannot call a function defined further down,
  so they stay where the page needs them; the rerun cell reads the page from the file itself and is
  short);
- in both, points every link to the PyTorch documentation of the newest release ("stable") at that of the
  build's release, as the pages' links are (``tensorcopy_sphinx.torch_links``).

The titles are in the page's language (message catalog). A page that draws without a helper cell, or
a download without its rerun cell, fails the build, naming it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from tensorcopy_sphinx.gallery_figures import HELPERS_MARK, HELPERS_START
from tensorcopy_sphinx.rerun_cell import PY_MARKER, TAG, TITLE
from tensorcopy_sphinx.theme_i18n import translated
from tensorcopy_sphinx.torch_links import pin_text

HELPERS_TITLE = "Drawing helpers (matplotlib): they draw this page's pictures"
HELPERS_END = "End of the drawing helpers: the page goes on below"
#: The sentence of a page's text before its helpers that speaks of the page (translated: message catalog),
#: and what the notebook says instead, since there the notebook folds them.
HELPERS_PAGE_NOTE = ("Every page that draws carries the same code, so the page folds it away; the downloaded "
                     "script and notebook carry it in full.")
HELPERS_NOTEBOOK_NOTE = ("Every page that draws carries the same code, so this notebook folds the cell below: "
                         "open it to read the code.")
#: What folds a code cell: JupyterLab's and Notebook 7's key, and Colab's (with a #@title line).
FOLDED = {"jupyter": {"source_hidden": True}, "cellView": "form"}


def is_helpers(source: str) -> bool:
    return source.lstrip().startswith(HELPERS_START) and HELPERS_MARK in source


def fold(cell: dict, title: str) -> None:
    """Fold a notebook code cell under ``title`` (once: a folded cell is left as it is)."""
    source = "".join(cell["source"])
    if not source.startswith("#@title "):
        cell["source"] = [f"#@title {title}\n{source}"]
    cell["metadata"] = {**cell.get("metadata", {}), **FOLDED}


def _anywhere_broken(sentence: str) -> re.Pattern:
    """``sentence`` wherever the text breaks its lines (or joins them, as the Chinese notebooks do)."""
    return re.compile(r"\s*".join(re.escape(char) for char in sentence if not char.isspace()))


def fold_notebook(data: dict, helpers_title: str, rerun_title: str, where: str,
                  notes: tuple[str, str] | None = None) -> None:  # fmt: skip
    """Fold the helpers and the rerun cell of a notebook; ``notes``, the page's and the notebook's
    sentence about the folded helpers, rewords the text cell right before them."""
    code = [cell for cell in data["cells"] if cell["cell_type"] == "code"]
    rerun = [cell for cell in code if TAG in cell.get("metadata", {}).get("tags", [])]
    if len(rerun) != 1:
        raise ExtensionError(f"{where}: expected one rerun cell to fold, found {len(rerun)}")
    for before, cell in zip([None, *data["cells"]], data["cells"], strict=False):
        if cell["cell_type"] == "code" and is_helpers("".join(cell["source"])):
            fold(cell, helpers_title)
            if notes and before is not None and before["cell_type"] == "markdown":
                text = "".join(before["source"])
                before["source"] = [_anywhere_broken(notes[0]).sub(lambda _: notes[1], text)]
    fold(rerun[0], rerun_title)


def mark_script(text: str, title: str, end: str) -> str:
    """``text`` (a ``.py`` download) with a banner before and after the helper cell's code."""
    start = text.find(f"\n{HELPERS_START}\n")
    if start < 0 or HELPERS_MARK not in text or f"# ==== {title}" in text:
        return text
    stop = text.find("\n# %%", start + 1)
    stop = len(text) if stop < 0 else stop
    body = text[start + 1:stop]
    code = body.rstrip("\n")
    blank = body[len(code) + 1:]  # the blank lines after the code stay, so removing the banners gives the source
    return f"{text[:start + 1]}# ==== {title} ====\n{code}\n# ==== {end} ====\n{blank}" + text[stop:]


def _layout(app: Sphinx, env, docnames) -> None:
    gallery = Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"][0]
    helpers_title, rerun_title = translated(app, HELPERS_TITLE), translated(app, TITLE)
    end = translated(app, HELPERS_END)
    notes = translated(app, HELPERS_PAGE_NOTE), translated(app, HELPERS_NOTEBOOK_NOTE)
    for notebook in sorted(gallery.rglob("plot_*.ipynb")):
        data = json.loads(notebook.read_text(encoding="utf-8"))
        fold_notebook(data, helpers_title, rerun_title, str(notebook.relative_to(gallery)), notes)
        for cell in data["cells"]:
            source = cell["source"]
            cell["source"] = pin_text(source) if isinstance(source, str) else [pin_text(line) for line in source]
        notebook.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for script in sorted(gallery.rglob("plot_*.py")):
        text = script.read_text(encoding="utf-8")
        if PY_MARKER not in text:
            raise ExtensionError(f"{script.relative_to(gallery)}: the download has no rerun cell")
        marked = pin_text(mark_script(text, helpers_title, end))
        if marked != text:
            script.write_text(marked, encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.setup_extension("tensorcopy_sphinx.rerun_cell")
    app.connect("env-before-read-docs", _layout, priority=800)  # after the rerun cell, before the zips
    return {"parallel_read_safe": True, "parallel_write_safe": True}
