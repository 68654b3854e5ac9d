"""What the build is about to publish carries no active content but the site's own scripts
(sitetools/published_content.py), and the reST of the pages holds only the directives they use and no
inline HTML (sitetools/active_content.py). Each fault is made in a small site of its own, as Sphinx,
sphinx-gallery and matplotlib write those files, and must be refused with the file and the page that
made it; the site's own scripts pass. Each is checked for a site at its host's root and for one under a
sub-path (a project site of GitHub Pages, ``/tensor-copies/``), where the 404 pages' scripts are paths
from the host's root that start with the sub-path."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from sitetools import active_content, published_content  # noqa: E402
from tests.gallery_tools import copy_project  # noqa: E402

PAGE = "gallery/en/copying/plot_04_detach.py"
THEME = '<script>\n      document.body.dataset.theme = localStorage.getItem("theme") || "auto";\n    </script>'
#: Where the site is served on its host: at the root, and under a sub-path (a GitHub Pages project site).
BASES = {"root": "/", "sub-path": "/tensor-copies/"}


def site_scripts(base: str) -> str:
    """The site's own scripts as a page links them: relative, and from the host's root (a 404 page's)."""
    return ('<script src="../../_static/doctools.js?v=fd6eb6e6"></script>'
            f'<script defer="defer" src="{base}en/_static/bilingual.js?v=1"></script>')


def _notebook(markdown: str) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [markdown]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ['print("a:", "<script>")']}]  # fmt: skip
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 0})


def _svg(url: str) -> str:
    """A figure as matplotlib writes it, with a link set on its title (``set_url``)."""
    fig, ax = plt.subplots()
    ax.set_title("c = a.detach()").set_url(url)
    out = io.StringIO()
    fig.savefig(out, format="svg")
    plt.close(fig)
    return out.getvalue()


def _site(tmp_path: Path, base: str, **files: str) -> Path:
    """A small edition ``en`` in ``tmp_path/site``: the site's static files, a clean page, and ``files``."""
    site = tmp_path / "site"
    defaults = {
        "_static/doctools.js": "", "_static/bilingual.js": "",
        "examples/copying/plot_04_detach.html":
            f"<html><head>{THEME}{site_scripts(base)}</head><body><p>a</p></body></html>",
        "404.html": f"<html><head>{THEME}{site_scripts(base).replace('../../', base + 'en/')}</head></html>",
        "searchindex.js": 'Search.setIndex({"docnames":["examples/copying/plot_04_detach"],"titles":["Detach"]})',
    }  # fmt: skip
    for name, text in {**defaults, **files}.items():
        path = site / "en" / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".zip"):
            with zipfile.ZipFile(path, "w") as archive:
                archive.writestr("plot_04_detach.ipynb", text)
        else:
            path.write_text(text, encoding="utf-8")
    return site


def _problems(tmp_path: Path, base: str, **files: str) -> list[str]:
    return published_content.check(_site(tmp_path, base, **files), ["en"], published_content.pages.ROOT, base)


HTML = "examples/copying/plot_04_detach.html"
#: Faults that depend on where the site is served (``{base}``: its base path; ``{other}``: the other one).
BASE_FAULTS = {
    "script-from-another-base": (HTML, '<html><script src="{other}en/_static/bilingual.js"></script></html>'),
    "script-out-of-the-base": (HTML, '<html><script src="{base}../en/_static/bilingual.js"></script></html>'),
    "script-from-the-base-beside-static": ("404.html", '<html><script src="{base}en/_downloads/x.js"></script></html>'),
}
FAULTS = {
    "inline-script": (HTML, f"<html><head>{THEME}</head><body><script>alert(1)</script></body></html>"),
    "outside-script": (HTML, '<html><body><script src="https://example.org/x.js"></script></body></html>'),
    "script-beside-static": (HTML, '<html><body><script src="../../_downloads/x.js"></script></body></html>'),
    "event-attribute": (HTML, '<html><body><img src="x.png" OnError="alert(1)"></body></html>'),
    "javascript-link": (HTML, '<html><body><a href=" jav&#x09;ascript:alert(1)">x</a></body></html>'),
    "iframe": (HTML, '<html><body><iframe src="x.html"></iframe></body></html>'),
    "object": (HTML, '<html><body><object data="x.swf"></object></body></html>'),
    "embed": (HTML, '<html><body><embed src="x.svg"></body></html>'),
    "base": (HTML, f'<html><head><base href="https://example.org/">{site_scripts("/")}</head></html>'),
    "redirect": (HTML, '<html><head><meta http-equiv="Refresh" content="0; url=https://example.org/"></head></html>'),
    "svg-set-url": ("_images/sphx_glr_plot_04_detach_001.svg", _svg("javascript:alert(1)")),
    "notebook-html": ("_downloads/0a/plot_04_detach.ipynb", _notebook('<img src="x" onerror="alert(1)">')),
    "notebook-markdown-link": ("_downloads/0a/plot_04_detach.ipynb", _notebook("[x](javascript:alert(1))")),
    "notebook-script": ("_downloads/0a/plot_04_detach.ipynb", _notebook("<script>alert(1)</script>")),
    "notebook-in-a-zip": ("_downloads/0b/plot_04_detach.zip", _notebook("<iframe src=x></iframe>")),
    "search-index-title": ("searchindex.js", 'Search.setIndex({"docnames":["examples/copying/plot_04_detach"],'
                                             '"titles":["<img src=x onerror=alert(1)>"]})'),
}


@pytest.mark.parametrize("where", sorted(BASES))
@pytest.mark.parametrize("name", sorted(FAULTS) + sorted(BASE_FAULTS))
def test_active_content_in_a_generated_file_is_refused_and_named(tmp_path, name, where):
    base, other = BASES[where], next(path for path in BASES.values() if path != BASES[where])
    target, text = FAULTS[name] if name in FAULTS else BASE_FAULTS[name]
    problems = _problems(tmp_path, base, **{target: text.replace("{base}", base).replace("{other}", other)})
    assert problems, f"{name} passed the scan of a site served at {base}"
    assert all(problem.startswith(f"en/{target}") for problem in problems), problems
    if target != "404.html":
        assert all(PAGE in problem for problem in problems), f"the page that made it is not named: {problems}"


@pytest.mark.parametrize("where", sorted(BASES))
def test_the_sites_own_scripts_a_plain_figure_and_a_plain_notebook_pass(tmp_path, where):
    problems = _problems(tmp_path, BASES[where],
                         **{"_images/sphx_glr_plot_04_detach_001.svg": _svg(""),
                            "_downloads/0a/plot_04_detach.ipynb": _notebook("``a`` and ``c``: a < b"),
                            "_downloads/0b/plot_04_detach.zip": _notebook("[docs](https://example.org)")})
    assert problems == []


@pytest.mark.parametrize("where", sorted(BASES))
def test_a_narrative_pages_file_names_its_source(tmp_path, where):
    page = '<html><body><a onclick="x()">a</a></body></html>'
    problems = _problems(tmp_path, BASES[where], **{"quickref.html": page})
    assert problems and problems[0].startswith("en/quickref.html (made from docs/en/quickref.md)"), problems


# --- The same, in the sources -----------------------------------------------------------------------------

SOURCE_FAULTS = {
    "raw-substitution": ".. |x| raw:: html\n\n   <b onmouseover='alert(1)'>x</b>\n\nSee |x|.",
    "raw-upper-case": "..  RAW :: html\n\n   <b>x</b>",
    "include": ".. include:: /etc/hostname",
    "literalinclude": ".. literalinclude:: ../../../pyproject.toml",
    "inline-html": "A picture: <img src=x onerror=alert(1)> here.",
    "html-comment": "Text <!-- hidden --> here.",
}


@pytest.mark.parametrize("name", sorted(SOURCE_FAULTS))
def test_a_directive_off_the_list_or_inline_html_in_a_pages_text_is_refused(tmp_path, name):
    project = copy_project(tmp_path / "project")
    for lang in ("en", "zh_CN"):
        script = project / PAGE.replace("/en/", f"/{lang}/")
        text = "\n".join(f"# {line}".rstrip() for line in SOURCE_FAULTS[name].splitlines())
        with script.open("a", encoding="utf-8") as handle:
            handle.write(f"\n\n# %%\n{text}\n\nprint('a:', a)\n")
    problems = [p for p in active_content.check_text(project) if p.startswith(PAGE)]
    assert problems, f"{name} passed the source rules"


@pytest.mark.parametrize("text", ["```{include} ../../README.md\n```", "````{eval-rst}\n.. |x| raw:: html\n````",
                                  "```{literalinclude} /etc/hostname\n```"])
def test_a_directive_off_the_list_in_a_narrative_page_is_refused(text):
    assert active_content._directives(text, active_content.MYST_DIRECTIVE, active_content.MYST_DIRECTIVES)


@pytest.mark.parametrize("text", ["See ``<CloneBackward0>`` above.", "`the docs <https://example.org/x>`_",
                                  ":ref:`next page <copying-clone>`", "a < b and b > c", ".. _copying-clone:",
                                  ".. admonition:: Answer\n\n   .. code-block:: python\n\n      b = a.clone()"])
def test_the_pages_ordinary_rest_passes(text):
    assert active_content._rest_rules(text) == []
