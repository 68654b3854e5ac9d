"""Twin paragraphs of the editions cite the same facts and pages (sitetools/rules/edition_citations.py), and
no narrative doctest is skipped (sitetools/building/doctests.py): each checker passes the real sources and
refuses a known-bad copy, naming the file and line; and what the citation rule cannot catch is shown."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from editions import CODES
from sitetools.building import doctests
from sitetools.rules import edition_citations
from tests.gallery_tools import ROOT

PAGE = "questions/plot_12_version_counter"


@pytest.fixture
def sources(tmp_path) -> Path:
    """A copy of the pages (gallery and narrative), to break."""
    for name in ("gallery", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("_build", "__pycache__"))
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_real_editions_cite_the_same_things_paragraph_by_paragraph():
    assert edition_citations.check(CODES, ROOT) == []


def test_the_citations_of_a_paragraph_are_its_facts_and_references():
    text = "See {fact}`cpu-snapshot`, :ref:`the page <questions-x>` and {ref}`glossary`, and :fact:`a-b`."
    assert sorted(edition_citations.citations(text).elements()) == [
        "fact:a-b", "fact:cpu-snapshot", "ref:glossary", "ref:questions-x"]


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_section_that_drops_its_fact_is_refused_with_both_files(sources):
    _edit(sources / "docs/zh_CN/decide.md", "{fact}`cpu-snapshot`", "")
    problems = edition_citations.check(CODES, sources)
    assert len(problems) == 1, problems
    assert problems[0].startswith("docs/zh_CN/decide.md, line ") and "docs/en/decide.md, line" in problems[0]
    assert "lacks fact:cpu-snapshot" in problems[0]


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_section_that_cites_another_fact_is_refused(sources):
    _edit(sources / "docs/zh_CN/matrix.md", "{fact}`leaf-refuses-inplace`", "{fact}`cpu-snapshot`")
    problems = "\n".join(edition_citations.check(CODES, sources))
    assert "docs/zh_CN/matrix.md, line" in problems and "cites fact:cpu-snapshot" in problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_gallery_text_cell_that_points_elsewhere_is_refused(sources):
    _edit(sources / f"gallery/zh_CN/{PAGE}.py", ":ref:`“.data 与 no_grad”那一页 <questions-data-vs-no-grad>`",
          ":ref:`“.data 与 no_grad”那一页 <questions-inference-mode>`")
    problems = edition_citations.check(CODES, sources)
    assert problems and all(p.startswith(f"gallery/zh_CN/{PAGE}.py, line ") for p in problems), problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_contradiction_that_cites_nothing_is_not_caught(sources):
    """The rule's limit, as CONTRIBUTING.md states it: a sentence that cites nothing is not compared."""
    _edit(sources / "docs/zh_CN/decide.md", "{fact}`cpu-snapshot`", "c 与 a 不共享内存。{fact}`cpu-snapshot`")
    assert edition_citations.check(CODES, sources) == []


def test_a_skipped_doctest_is_refused_with_its_line(tmp_path):
    page = tmp_path / "quickref.md"
    page.write_text("# Q\n\n```{doctest}\n>>> 1 + 1\n2\n>>> print('made up')  # doctest: +SKIP\nmade up\n```\n",
                    encoding="utf-8")
    problems = doctests.skipped(page, "docs/en/quickref.md")
    assert len(problems) == 1 and problems[0].startswith("docs/en/quickref.md, line 6:"), problems


@pytest.mark.parametrize("fence", ["~~~{doctest}", "  ```{doctest}", "````{doctest}", ":::{doctest}"])
def test_a_doctest_the_build_would_not_run_is_refused_with_its_line(tmp_path, fence):
    """MyST renders these fences as doctests; the build's run finds only a backtick fence at column 0."""
    close = fence.strip()[:3]
    page = tmp_path / "quickref.md"
    page.write_text(f"# Q\n\n```{{doctest}}\n>>> 1 + 1\n2\n```\n\n{fence}\n>>> 1 + 1\n5\n{close}\n", encoding="utf-8")
    assert doctests.unseen(page, "docs/en/quickref.md") == [
        "docs/en/quickref.md, line 8: a doctest the build does not run; write it as a ```{doctest} fence at "
        "the start of a line (see CONTRIBUTING.md, 'Pages in every edition')"]


def test_the_real_narrative_pages_skip_no_doctest():
    for lang in CODES:
        for page in sorted((ROOT / "docs" / lang).glob("*.md")):
            assert doctests.skipped(page, page.name) == []
            assert doctests.unseen(page, page.name) == []


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_page_rules_run_the_new_checkers(sources):
    """The build's one call (sitetools/rules/all_rules.py) reaches every rule of this file and of the output
    and check rules."""
    for lang in CODES:
        _edit(sources / f"docs/{lang}/quickref.md", ">>> b = a\n", ">>> b = a  # doctest: +SKIP\n")
        _edit(sources / f"gallery/{lang}/{PAGE}.py", "\nimport torch\n",
              '\nimport torch\nimport sys\nsys.stdout.write("x: 1\\n")\nassert True or torch\n')
    _edit(sources / "docs/zh_CN/decide.md", "{fact}`cpu-snapshot`", "")
    from sitetools.rules import all_rules

    problems = "\n".join(all_rules.check_sources(root=sources))
    for words in ("docs/en/quickref.md, line", "a doctest marked +SKIP", f"gallery/zh_CN/{PAGE}.py, line",
                  "sys.stdout", "`assert True or torch` holds or fails", "docs/zh_CN/decide.md, line"):
        assert words in problems, f"{words!r} not in:\n{problems}"
