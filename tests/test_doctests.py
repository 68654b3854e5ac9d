"""The narrative pages' doctests run in a process of their own, with a scratch folder as their working
folder (sitetools/building/doctests.py, sitetools/building/pipeline.py's check_doctests): an example that writes
into a folder the build guards fails, named by its page and line, and one that writes into its scratch folder
passes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from editions import CODES
from sitetools.building.pipeline import BuildError, check_doctests
from tests.gallery_tools import ROOT


def _pages_with(tmp_path: Path, code: str) -> int:
    """Copy the narrative pages into ``tmp_path/docs``, append to the English quick reference a doctest
    running ``code``; return the line of that example."""
    shutil.rmtree(tmp_path / "docs", ignore_errors=True)
    for lang in CODES:
        shutil.copytree(ROOT / "docs" / lang, tmp_path / "docs" / lang)
    page = tmp_path / "docs" / "en" / "quickref.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text + f"\n```{{doctest}}\n>>> {code}\n```\n", encoding="utf-8")
    return text.count("\n") + 3


WRITES = {
    "appends to another page": "_ = open({target!r}, 'a', encoding='utf-8').write('<script>')",
    "removes a file": "import os; os.remove({target!r})",
}


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("how", sorted(WRITES))
def test_a_doctest_that_writes_outside_its_scratch_folder_is_named_by_page_and_line(tmp_path, how):
    """The fault: a quick-reference doctest wrote into the checkout, and only the file was named, after the
    build. Now the example fails at once, with its page and line."""
    target = tmp_path / "docs" / "zh_CN" / "index.md"
    line = _pages_with(tmp_path, WRITES[how].format(target=str(target)))
    before = target.read_bytes()
    with pytest.raises(BuildError) as failure:
        check_doctests(list(CODES), tmp_path / "docs", guarded=(tmp_path,))
    message = str(failure.value)
    assert f"docs/en/quickref.md, line {line}" in message, message
    assert str(target) in message, message
    assert target.read_bytes() == before, "the audit hook let the example write"
    assert "docs/zh_CN/index.md," not in message and "docs/en/index.md" not in message, "another page was named"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_doctest_may_write_its_scratch_folder(tmp_path):
    _pages_with(tmp_path, "open('notes.txt', 'w', encoding='utf-8').write('x')\n1")
    assert check_doctests(["en"], tmp_path / "docs", guarded=(tmp_path,)) > 0
