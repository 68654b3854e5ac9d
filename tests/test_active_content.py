"""The sources hold no active content (sitetools/rules/active_content.py): the reST of the pages holds only the
directives they use and no inline HTML, and the narrative pages only the MyST directives on the list."""

from __future__ import annotations

import pytest

from sitetools.rules import active_content
from tests.gallery_tools import copy_project

PAGE = "gallery/en/copying/plot_04_detach.py"
SOURCE_FAULTS = {
    "raw-substitution": ".. |x| raw:: html\n\n   <b onmouseover='alert(1)'>x</b>\n\nSee |x|.",
    "raw-upper-case": "..  RAW :: html\n\n   <b>x</b>",
    "include": ".. include:: /etc/hostname",
    "literalinclude": ".. literalinclude:: ../../../pyproject.toml",
    "inline-html": "A picture: <img src=x onerror=alert(1)> here.",
    "html-comment": "Text <!-- hidden --> here.",
}


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
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


ACTIVE = {
    "gallery/zh_CN/GALLERY_HEADER.rst": "\n.. raw:: html\n\n   <script>alert(1)</script>\n",
    "docs/en/about.md": "\n<script>alert(1)</script>\n",
    "docs/zh_CN/about.md": "\n点击 <a href=\"x\">这里</a>。\n",
    "docs/en/index.md": "\n[home](javascript:alert(1))\n",
    "docs/zh_CN/index.md": "\n```{raw} html\n<b>x</b>\n```\n",
}


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_active_content_in_headers_and_narrative_pages_is_refused(tmp_path):
    project = copy_project(tmp_path / "project")
    assert active_content.check(project) == [], "the sources as they are hold active content"
    for name, text in ACTIVE.items():
        with (project / name).open("a", encoding="utf-8") as handle:
            handle.write(text)
    problems = "\n".join(active_content.check(project))
    for name in ACTIVE:
        assert f"{name}:" in problems, f"{name} was not refused:\n{problems}"


@pytest.mark.parametrize("text", ["`click <javascript:alert(1)>`_", ".. raw:: html\n\n   <b>x</b>",
                                  "`x <data:text/html;base64,PHNjcmlwdD4=>`_", "<SCRIPT src=x>",
                                  ":download:`data <../../../../etc/os-release>`", "{download}`x </etc/hostname>`"])
def test_active_content_in_a_pages_text_is_refused(text):
    assert active_content._text_rules(text)


@pytest.mark.parametrize("text", ["print('data:', x)", "see {doc}`the matrix <matrix>`",
                                  "<https://example.org/page>", "metadata: the shape"])
def test_ordinary_text_is_not_active_content(text):
    assert not active_content._text_rules(text) and not active_content._markdown_html(text)


def test_symlinks_in_the_built_folders_or_leaving_the_repository_are_refused(tmp_path):
    project = copy_project(tmp_path / "project")
    (project / "docs" / "_static" / "secret.txt").symlink_to("/etc/hostname")
    (project / "gallery" / "en" / "copying" / "plot_99_link.py").symlink_to(project / "pyproject.toml")
    (project / "tools").mkdir()
    (project / "tools" / "inside").symlink_to(project / "pyproject.toml")
    (project / "tools" / "outside").symlink_to("/etc")
    problems = "\n".join(active_content.check_symlinks(project))
    assert "docs/_static/secret.txt: a symlink" in problems
    assert "gallery/en/copying/plot_99_link.py: a symlink (to" in problems, "a symlink inside the repository passed"
    assert "tools/outside: a symlink that leads out of the repository" in problems
    assert "tools/inside" not in problems, problems
