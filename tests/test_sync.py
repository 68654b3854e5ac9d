"""``python -m sitetools.authoring.sync`` (sitetools/authoring/sync.py): a page whose code drifted between editions gets
one edition's code and keeps the other's words, after which the page rules pass; a page whose cells
differ in structure is refused and left untouched."""

import shutil
from pathlib import Path

import pytest

from sitetools.authoring import sync
from sitetools.rules import sources as pages
from tests.gallery_tools import ROOT

PAGE = "questions/plot_07_deepcopy"  # its Chinese code cells carry Chinese comments


@pytest.fixture
def sources(tmp_path) -> Path:
    """A copy of gallery/ and docs/ (what the parity rule reads) to change."""
    for name in ("gallery", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "_*"))
    return tmp_path


def _page(sources: Path, lang: str) -> Path:
    return sources / "gallery" / lang / f"{PAGE}.py"


def _drift(script: Path) -> None:
    """Add a line of code at the end of the script's first and last code cells."""
    text = script.read_text(encoding="utf-8")
    for cell, line in ((pages.code_cells(script)[0], "drifted = 1"), (pages.code_cells(script)[-1], "drifted += 1")):
        text = text.replace(cell.rstrip("\n"), f"{cell.rstrip()}\n{line}", 1)
    script.write_text(text, encoding="utf-8")


def _chinese_comments(script: Path) -> list[str]:
    return [line for line in script.read_text(encoding="utf-8").splitlines()
            if "#" in line and any("\u4e00" <= ch <= "\u9fff" for ch in line.split("#", 1)[1])]  # fmt: skip


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("source_lang", ["en", "zh_CN"])
def test_a_drifted_page_passes_the_parity_rule_after_sync(sources, source_lang):
    other = "zh_CN" if source_lang == "en" else "en"
    words_before = _chinese_comments(_page(sources, "zh_CN"))
    _drift(_page(sources, source_lang))
    assert any("python -m sitetools.authoring.sync questions/plot_07_deepcopy" in p
               for p in pages.check_parity(root=sources)), "the parity rule does not name the sync command"  # fmt: skip
    report = sync.sync(PAGE, source_lang, sources / "gallery")
    assert report == [f"gallery/{other}/{PAGE}.py: code cells synced"], report
    assert pages.check_parity(root=sources) == []
    assert "drifted = 1" in _page(sources, other).read_text(encoding="utf-8")
    # The Chinese page keeps its own words: its comments and text cells are those it had.
    assert _chinese_comments(_page(sources, "zh_CN")) == words_before


def test_a_page_in_sync_is_left_unchanged(sources):
    before = _page(sources, "zh_CN").read_text(encoding="utf-8")
    assert sync.sync(PAGE, "en", sources / "gallery") == [f"gallery/zh_CN/{PAGE}.py: unchanged"]
    assert _page(sources, "zh_CN").read_text(encoding="utf-8") == before


def test_a_page_whose_cells_differ_is_refused_and_left_alone(sources):
    script = _page(sources, "zh_CN")
    script.write_text(script.read_text(encoding="utf-8") + "\n# %%\n# 多出来的一格。\n\nx = 1\n", encoding="utf-8")
    english = _page(sources, "en")
    english.write_text(english.read_text(encoding="utf-8").replace("1.0", "7.0", 1), encoding="utf-8")
    before = script.read_text(encoding="utf-8")
    with pytest.raises(sync.SyncError, match="the cells differ"):
        sync.sync(PAGE, "en", sources / "gallery")
    assert script.read_text(encoding="utf-8") == before


def test_comments_that_cannot_be_matched_are_taken_from_the_source_and_named():
    source = '"""Doc."""\n\n# %%\n# Text.\n\n# one\n# two\nx = 1  # end\n'
    target = '"""文档。"""\n\n# %%\n# 文字。\n\n# 一\ny = 2  # 尾\n'
    merged, notes = sync.sync_text(source, target)
    assert merged == '"""文档。"""\n\n# %%\n# 文字。\n\n# one\n# two\nx = 1  # 尾\n'
    assert notes == ["the page: code cell 2: 2 comment line(s) against 1: the source's comments were kept; "
                     "translate them"]  # fmt: skip


def test_comment_lines_and_end_of_line_comments_are_matched_by_place():
    source = '"""Doc."""\n\n# %%\n# Text.\n\nif True:\n    # first\n    x = 1  # end\n# second\ny = 2\n'
    target = '"""文档。"""\n\n# %%\n# 文字。\n\nif True:\n    # 第一\n    x = 3  # 尾\n# 第二\n'
    merged, notes = sync.sync_text(source, target)
    assert merged == '"""文档。"""\n\n# %%\n# 文字。\n\nif True:\n    # 第一\n    x = 1  # 尾\n# 第二\ny = 2\n'
    assert notes == []


def test_a_new_page_still_the_template_takes_the_whole_written_page(sources):
    """After new_page, the contributor writes one edition (new cells and all); sync gives the other edition,
    still the template, that whole page to translate, where it would otherwise refuse the new cells."""
    from sitetools.authoring import new_page

    name = "questions/plot_99_container_copy"
    new_page.create(name, sources / "gallery")
    english = sources / "gallery" / "en" / f"{name}.py"
    written = english.read_text(encoding="utf-8") + "\n# %%\n# A cell of the writer's own.\n\nextra = 1\n"
    english.write_text(written, encoding="utf-8")
    report = sync.sync(name, "en", sources / "gallery")
    assert report == [f"gallery/zh_CN/{name}.py: was the template; now the whole page of en: translate its text"]
    assert (sources / "gallery" / "zh_CN" / f"{name}.py").read_text(encoding="utf-8") == written
    # A page that is no longer the template keeps its words: a change of cells is refused again.
    chinese = sources / "gallery" / "zh_CN" / f"{name}.py"
    chinese.write_text(written.replace("A cell of the writer's own.", "作者自己的一格。"), encoding="utf-8")
    english.write_text(written + "\n# %%\n# One more.\n\nmore = 2\n", encoding="utf-8")
    with pytest.raises(sync.SyncError, match="the cells differ"):
        sync.sync(name, "en", sources / "gallery")


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_string_changed_in_one_edition_code_is_a_parity_failure(sources):
    """Strings in code cells (printed labels, assert messages) are code: a translated one breaks parity."""
    script = _page(sources, "zh_CN")
    text = script.read_text(encoding="utf-8")
    label = next(cell for cell in pages.code_cells(script) if 'print("' in cell)
    start = label.index('print("') + len('print("')
    changed = label[:start] + "译" + label[start:]
    script.write_text(text.replace(label, changed, 1), encoding="utf-8")
    problems = pages.check_parity(root=sources)
    assert any(f"zh_CN/{PAGE}.py" in p and "code cell" in p for p in problems), problems
