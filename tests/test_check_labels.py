"""The page rule that gives every check's message a translation in each edition's catalog
(``sitetools/check_labels.py``), on a small copy of the project."""

import shutil
from pathlib import Path

import pytest

from sitetools import check_labels
from sitetools.pages import ROOT

PAGE = ("import torch\nt = torch.zeros(2)\nassert t.sum() == 0, 'sums to zero'\n"
        "assert t.numel() == 2, f'{t.numel()} elements'\nassert t.numel(), t\n")  # fmt: skip


@pytest.fixture
def project(tmp_path) -> Path:
    for lang in ("en", "zh_CN"):
        folder = tmp_path / "gallery" / lang / "questions"
        folder.mkdir(parents=True)
        (folder / "plot_01_x.py").write_text(PAGE, encoding="utf-8")
    return tmp_path


def write_catalog(root: Path, entries: dict[str, str]) -> None:
    path = check_labels.catalog_path("zh_CN", root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"msgid {k!r}\nmsgstr {v!r}\n\n".replace("'", '"') for k, v in entries.items()),
                    encoding="utf-8")


def test_the_messages_are_the_strings_and_f_string_templates_not_computed_ones():
    assert check_labels.messages(PAGE) == [(3, "sums to zero"), (4, "{t.numel()} elements")]


def test_a_complete_catalog_passes_and_the_first_edition_needs_none(project):
    write_catalog(project, {"sums to zero": "和为零", "{t.numel()} elements": "{t.numel()} 个元素"})
    assert check_labels.check("zh_CN", project) == [] and check_labels.check("en", project) == []


@pytest.mark.parametrize("entries, expected", [
    ({"sums to zero": "和为零"}, "gallery/zh_CN/questions/plot_01_x.py:4: the check's message '{t.numel()} elements' "
                                "has no translation"),
    ({"sums to zero": "", "{t.numel()} elements": "{t.numel()} 个元素"}, "plot_01_x.py:3: the check's message "
                                                                     "'sums to zero' has no translation"),
    ({"sums to zero": "和为零", "{t.numel()} elements": "{n} 个元素"}, "plot_01_x.py:4: the translation of "
                                                                 "'{t.numel()} elements'"),
    ({"sums to zero": "和为零", "{t.numel()} elements": "{t.numel()} 个元素", "gone": "没了"},
     "docs/_locale/zh_CN/LC_MESSAGES/checks.po: 'gone' is the message of no check"),
])  # fmt: skip
def test_a_missing_translation_other_fields_or_a_stale_entry_are_named(project, entries, expected):
    write_catalog(project, entries)
    problems = check_labels.check("zh_CN", project)
    assert len(problems) == 1 and expected in problems[0], problems


def test_the_sites_catalog_translates_every_message_of_the_chinese_edition():
    assert check_labels.check("zh_CN", ROOT) == []


def test_adding_the_missing_messages_keeps_the_translations_there_are(project):
    write_catalog(project, {"sums to zero": "和为零", "gone": "没了"})
    assert check_labels.add_missing("zh_CN", project) == 1
    assert check_labels.read("zh_CN", project) == {"sums to zero": "和为零", "{t.numel()} elements": ""}
    shutil.rmtree(project / "docs")
    assert check_labels.add_missing("zh_CN", project) == 2
