"""中英对照: every page can show the other edition's text under its own, cell by cell.

The work is done in the reader's browser by ``docs/_static/bilingual.js`` (the button is in
``docs/_templates/language-switch.html``): it fetches the same page of the other edition from the
same site and puts its text cell k under this page's text cell k. That is only right if the two
pages have the same text cells in the same order, so this extension checks it for every example
page before the build reads a page: each of this edition's gallery scripts must have as many text
blocks as the same script in every other edition (sphinx-gallery's own parser counts them), else the
build fails and names the script. The button's words come from the message catalog, and so does the
name of the other language in them (英文 on a Chinese page, not the switch's own name English); a
missing translation fails the build.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from editions import CODES, EDITIONS, edition
from sitetools.for_sphinx import numbered_blocks
from tensorcopy_sphinx.theme_i18n import translated

#: The button's words, off and on, and what it announces (docs/_templates/bilingual-toggle.html).
#: ``{name}`` is the other edition's language as this edition's prose names it (its ``noun``, translated).
WORDS = (
    "Show the {name} text too",
    "Hide the {name} text",
    "The {name} text is shown under each paragraph.",
    "The {name} text is hidden.",
    "The two editions of this page differ in structure: the {name} text cannot be shown paragraph by paragraph.",
    "The {name} page could not be loaded.",
    "This page has no text to show in {name}.",
)


def text_cells(script: Path) -> int:
    """How many text blocks sphinx-gallery reads in ``script`` (its docstring included)."""
    return sum(1 for label, _, _ in numbered_blocks(script) if label == "text")


def mismatches(gallery: Path, code: str) -> list[str]:
    """Scripts of edition ``code`` under ``gallery`` (``gallery/<code>/...``) whose text cells do not
    pair one to one with the same script of another edition."""
    problems = []
    for script in sorted((gallery / code).rglob("plot_*.py")):
        name = script.relative_to(gallery / code)
        for other in (c for c in CODES if c != code):
            twin = gallery / other / name
            if twin.is_file() and text_cells(twin) != text_cells(script):
                problems.append(f"{code}/{name.as_posix()} has {text_cells(script)} text cells, "
                                f"{other}/{name.as_posix()} has {text_cells(twin)}")
    return problems


def _check(app: Sphinx) -> None:
    for word in (*WORDS, *(row.noun for row in EDITIONS if row.code != edition(app.config.language).code)):
        translated(app, word)
    gallery = Path(app.config.sphinx_gallery_conf["examples_dirs"][0]).parent
    problems = mismatches(gallery, edition(app.config.language).code)
    if problems:
        raise ExtensionError("中英对照 pairs text cells one to one, but " + "; ".join(problems))


def setup(app: Sphinx) -> dict:
    app.add_js_file("bilingual.js", loading_method="defer")
    app.connect("builder-inited", _check)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
