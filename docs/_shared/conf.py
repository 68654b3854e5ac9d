"""The one Sphinx configuration shared by every language edition.

Each edition's ``conf.py`` (``docs/en/conf.py``, ``docs/zh_CN/conf.py``) imports this module and
calls :func:`configure` with its edition code; the title, the Sphinx language and the search options
come from that edition's row in ``sitetools/editions.py`` (an unknown code raises).

Importing this module makes two folders importable, once, for every edition and every extension:

- the repository root (the folder holding ``docs/``), for the packages that are not Sphinx glue:
  ``sitetools`` (the table of editions) and ``tensorfacts`` (the torch fact engine the ledger and
  the matrix render);
- ``docs/_ext``, for the one package of local Sphinx extensions, ``tensorcopy_sphinx``, which
  Sphinx imports by the names listed below.

Both paths are derived from this file's location, so a build of a staged copy of the sources uses
the staged packages.
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
for _folder in (ROOT, DOCS / "_ext"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from sitetools.editions import edition  # noqa: E402  (importable thanks to the lines above)

#: The parts of the gallery (folders of ``gallery/<code>/``), in the order the examples index shows
#: them: the two source articles, then the questions readers bring. A part missing here fails the build.
GALLERY_PARTS = ("copying", "data_vs_detach", "questions")


def configure(language: str) -> dict:
    """Return the Sphinx settings for one language edition (``language``: its edition code)."""
    row = edition(language)
    return {
        "project": row.title,
        "html_title": row.title,
        "language": row.sphinx_language,
        "extensions": [
            "myst_parser",
            "sphinx.ext.doctest",
            "sphinx_copybutton",
            "sphinx_gallery.gen_gallery",
            # Local extensions (docs/_ext/tensorcopy_sphinx), one job each.
            "tensorcopy_sphinx.build_info",
            "tensorcopy_sphinx.cjk_linebreaks",
            "tensorcopy_sphinx.gallery_i18n",
            "tensorcopy_sphinx.gallery_html_fixes",
            "tensorcopy_sphinx.language_switch",
            "tensorcopy_sphinx.scrollable_regions",
            "tensorcopy_sphinx.zh_search",
            "tensorcopy_sphinx.claims_ledger",
            "tensorcopy_sphinx.behaviour_matrix",
        ],
        "source_suffix": {".rst": "restructuredtext", ".md": "markdown"},
        "myst_enable_extensions": ["substitution"],
        "exclude_patterns": [],
        "templates_path": [str(DOCS / "_templates")],
        "html_static_path": [str(DOCS / "_static")],
        "html_css_files": ["site.css"],
        "html_theme": "furo",
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "html_sidebars": {
            "**": [
                "sidebar/brand.html",
                "language-switch.html",
                "sidebar/search.html",
                "sidebar/scroll-start.html",
                "sidebar/navigation.html",
                "sidebar/scroll-end.html",
            ]
        },
        "html_show_copyright": False,
        # Chinese search: jieba also learns this site's terms (计算图, 自动求导...) as whole words.
        "html_search_options": row.search_options,
        "locale_dirs": [str(DOCS / "_locale")],  # theme words Sphinx's catalogs lack
        "sphinx_gallery_conf": {
            "abort_on_example_error": True,  # an example that raises fails the build
            "download_all_examples": False,  # each page offers its own .py and .ipynb
            "examples_dirs": [str(ROOT / "gallery" / row.code)],
            "filename_pattern": r"/plot_",  # execute every example script
            "gallery_dirs": ["examples"],
            "image_scrapers": (),  # the examples print tensors; they draw nothing
            "min_reported_time": 10**9,  # never print a run time: pages must be reproducible
            "nested_sections": False,  # one toctree per part, under its own heading in the sidebar
            "remove_config_comments": True,
            "reset_modules": ("sitetools.example_guard.reset_torch",),
            "reset_modules_order": "both",
            "run_stale_examples": True,  # re-run every example on every build, even if unchanged
            "show_memory": False,
            # sphinx-gallery names each part by its path relative to the edition's source folder.
            "subsection_order": [
                os.path.relpath(ROOT / "gallery" / row.code / part, DOCS / row.code) for part in GALLERY_PARTS
            ],
            "within_subsection_order": "FileNameSortKey",
            "write_computation_times": False,  # its page carries timings and loads a CDN
        },
    }
