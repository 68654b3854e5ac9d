"""The one Sphinx configuration shared by every language edition.

Each edition's ``conf.py`` (``docs/en/conf.py``, ``docs/zh_CN/conf.py``) calls :func:`configure` with
its language and publishes the returned settings. Nothing here has side effects at import time.
"""

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent

#: The language editions, in the order the landing page lists them.
LANGUAGES = ("en", "zh_CN")

#: Per-language settings that are words, not code.
TITLES = {
    "en": "Tensor copies in PyTorch",
    "zh_CN": "PyTorch 张量复制指南",
}


def configure(language: str) -> dict:
    """Return the Sphinx settings for one language edition."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; expected one of {LANGUAGES}")
    return {
        "project": TITLES[language],
        "html_title": TITLES[language],
        "language": language,
        "extensions": [
            "myst_parser",
            "sphinx.ext.doctest",
            "sphinx_copybutton",
            "sphinx_gallery.gen_gallery",
            # Local extensions (docs/_ext), one job each.
            "build_info",
            "cjk_linebreaks",
            "gallery_i18n",
            "gallery_html_fixes",
            "language_switch",
            "scrollable_regions",
            "zh_search",
            "claims_ledger",
            "behaviour_matrix",
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
        "html_search_options": {"dict": str(DOCS / "_shared" / "zh_search_terms.txt")}
        if language == "zh_CN"
        else {},
        "locale_dirs": [str(DOCS / "_locale")],  # theme words Sphinx's catalogs lack
        "sphinx_gallery_conf": {
            "abort_on_example_error": True,  # an example that raises fails the build
            "download_all_examples": False,  # each page offers its own .py and .ipynb
            "examples_dirs": [str(ROOT / "gallery" / language)],
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
            "within_subsection_order": "FileNameSortKey",
            "write_computation_times": False,  # its page carries timings and loads a CDN
        },
    }
