"""The one Sphinx configuration shared by every language edition.

Each edition's ``conf.py`` (``docs/en/conf.py``, ``docs/zh_CN/conf.py``) imports this module and
calls :func:`configure` with its edition code; the title, the Sphinx language and the search options
come from that edition's row in ``editions/__init__.py`` (an unknown code raises).

Importing this module makes two folders importable, once, for every edition and every extension:

- the repository root (the folder holding ``docs/``), for the packages that are not Sphinx glue:
  ``editions`` (the table of editions), ``sitetools`` (the site's tools) and ``tensorfacts`` (the torch
  fact engine the ledger and the matrix render);
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

from editions import edition  # noqa: E402  (importable thanks to the lines above)
from sitetools.for_sphinx import colab, settings, web  # noqa: E402

#: The parts of the gallery (folders of ``gallery/<code>/``), in the order the examples index shows
#: them: the two source articles, then the questions readers bring. A part missing here fails the build.
GALLERY_PARTS = ("copying", "data_vs_detach", "questions")


def configure(language: str) -> dict:
    """Return the Sphinx settings for one language edition (``language``: its edition code)."""
    row = edition(language)
    return {**_site_settings(row), **_web_settings(row)}


def _web_settings(row) -> dict:
    """Settings for reading online: base URL, social tags, 404 page, favicon, source links, the stamp.

    ``SITE_URL`` (the published address) gives absolute canonical, hreflang and og:url links; without
    it the site is for local reading and carries none of them. ``SITE_REPOSITORY`` (``owner/name`` or
    its GitHub address; and ``SITE_BRANCH``) adds "edit this page", "report a problem" and "Open in Colab".
    """
    base = web.site_url()
    given = settings.current()
    repository = colab.repository(given.repository)  # owner/name, or ""
    edition_url = web.edition_url(base, row.code) if base else ""
    return {
        "tensorcopy_site_url": base,
        "html_baseurl": edition_url,
        "html_favicon": str(DOCS / "_static" / "favicon.svg"),
        "ogp_site_url": edition_url,
        "ogp_social_cards": {"enable": False},  # no generated images: the pages print, they draw nothing
        "ogp_custom_meta_tags": [
            '<meta name="twitter:card" content="summary">',
            f'<meta property="og:locale" content="{row.tag.replace("-", "_")}">',
        ],
        "notfound_template": "notfound.html",
        "notfound_urls_prefix": f"{web.site_path(base)}{row.code}/",  # absolute paths: works at any depth
        "tensorcopy_repository": f"https://github.com/{repository}" if repository else "",
        "tensorcopy_colab_repository": repository,  # "Open in Colab" on every example page
        "tensorcopy_branch": given.branch,
    }


def _site_settings(row) -> dict:
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
            "tensorcopy_sphinx.field_colons",
            "tensorcopy_sphinx.gallery_i18n",
            "tensorcopy_sphinx.gallery_figures",
            "tensorcopy_sphinx.gallery_html_fixes",
            "tensorcopy_sphinx.gallery_thumbnails",
            "tensorcopy_sphinx.language_switch",
            "tensorcopy_sphinx.bilingual",
            "tensorcopy_sphinx.scrollable_regions",
            "tensorcopy_sphinx.zh_search",
            "tensorcopy_sphinx.claims_ledger",
            "tensorcopy_sphinx.behaviour_matrix",
            "tensorcopy_sphinx.op_tables",
            "tensorcopy_sphinx.fact_index",
            "tensorcopy_sphinx.site_links",
            "tensorcopy_sphinx.theme_i18n",
            "tensorcopy_sphinx.heading_ids",
            "tensorcopy_sphinx.verified_stamp",
            "tensorcopy_sphinx.gpu_box",
            "tensorcopy_sphinx.colab_link",
            "tensorcopy_sphinx.rerun_cell",
            "tensorcopy_sphinx.download_layout",
            "tensorcopy_sphinx.download_zips",
            "tensorcopy_sphinx.torch_links",
            "tensorcopy_sphinx.notebook_text",
            "tensorcopy_sphinx.script_text",
            "tensorcopy_sphinx.output_ledger",
            "tensorcopy_sphinx.release_table",
            "sphinxext.opengraph",
            "notfound.extension",
            "tensorcopy_sphinx.glossary_terms",
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
                "bilingual-toggle.html",
                "sidebar/search.html",
                "sidebar/scroll-start.html",
                "sidebar/navigation.html",
                "sidebar/scroll-end.html",
            ]
        },
        "html_show_copyright": False,
        # no general index: the site marks no index entries, so genindex.html would be an empty page that
        # every page's <link rel="index"> points to
        "html_use_index": False,
        # The search page loads the edition's Chinese vocabulary (sitetools/web/search.py) if it has one.
        "html_context": {"search_vocabulary": row.cjk},
        # Chinese search: jieba also learns this site's terms (计算图, 自动求导...) as whole words.
        "html_search_options": row.search_options,
        "locale_dirs": [str(DOCS / "_locale")],  # theme words Sphinx's catalogs lack
        "sphinx_gallery_conf": {
            "abort_on_example_error": True,  # an example that raises fails the build
            # No repr of a cell's last expression (nor its _repr_html_, raw HTML): a page shows only what it
            # prints (sitetools/guard/output_channels.py)
            "capture_repr": (),
            # the card of a page that draws nothing: an SVG under 1 KB, not sphinx-gallery's 27 KB PNG
            "default_thumb_file": str(DOCS / "_shared" / "thumb_no_figure.svg"),
            "download_all_examples": False,  # each page offers its own .py and .ipynb
            "examples_dirs": [str(ROOT / "gallery" / row.code)],
            "filename_pattern": r"/plot_",  # execute every example script
            "gallery_dirs": ["examples"],
            # matplotlib's scraper, writing reproducible SVG; alt text and captions: gallery_figures
            "image_scrapers": ("tensorcopy_sphinx.gallery_figures.svg_scraper",),
            "min_reported_time": 10**9,  # never print a run time: pages must be reproducible
            "nested_sections": False,  # one toctree per part, under its own heading in the sidebar
            "remove_config_comments": True,
            # matplotlib: rcdefaults; guard.outputs: each page writes only its own outputs, leaves no process
            "reset_modules": ("sitetools.for_sphinx.reset_torch", "matplotlib", "sitetools.for_sphinx.watch_outputs"),
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
