"""The page rule that gives every check's message a translation in each edition's catalog
(``sitetools/authoring/check_labels.py``), on a small copy of the project."""

import shutil
from pathlib import Path

import pytest

from sitetools.authoring import check_labels
from sitetools.rules.sources import ROOT

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


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_sites_catalog_translates_every_message_of_the_chinese_edition():
    assert check_labels.check("zh_CN", ROOT) == []


def test_adding_the_missing_messages_keeps_the_translations_there_are(project):
    write_catalog(project, {"sums to zero": "和为零", "gone": "没了"})
    assert check_labels.add_missing("zh_CN", project) == 1
    assert check_labels.read("zh_CN", project) == {"sums to zero": "和为零", "{t.numel()} elements": ""}
    shutil.rmtree(project / "docs")
    assert check_labels.add_missing("zh_CN", project) == 2


LOOPS = '''import torch
kinds = {"leaf": torch.ones(1), "a permuted 4-D tensor": torch.ones(1, 1, 1, 1)}
for kind, t in kinds.items():
    assert t.sum(), f"{kind}: holds"
for name, flag in (("x[1:]", True), ("non-leaf", False)):
    for call in ("no_grad", "del loss", ".data", "Parameter"):
        assert name, f"{name} {flag} {call} {call!r}"
for other in ("plain",):
    pass
assert kinds, "no field"
'''


def test_the_values_a_loop_over_literals_gives_a_messages_fields_are_the_ones_read_as_words():
    """A dict's keys (named once at the top of the page), tuples unpacked, bools; not code (an underscore, a
    statement, an attribute), nor a field with a conversion, nor a loop around no check."""
    assert check_labels.values(LOOPS) == [(4, "a permuted 4-D tensor"), (4, "leaf"), (7, "False"), (7, "Parameter"),
                                          (7, "True"), (7, "non-leaf")]  # fmt: skip


@pytest.mark.parametrize(("value", "words"), [
    ("leaf", True), ("non-leaf", True), ("a sliced channels_last tensor", True), ("requires grad", True),
    (True, True), ("x[1:]", False), ("no_grad", False), ("float8", False), ("del loss", False), (".data", False),
    ("type='meta'", False), ("torch.stack", False), (1.0, False),
])  # fmt: skip
def test_a_value_is_words_unless_it_reads_as_code(value, words):
    assert check_labels.shown_as_words(value) is words


def write_values(root: Path, messages: dict[str, str], values: dict[str, str]) -> None:
    write_catalog(root, messages)
    with check_labels.catalog_path("zh_CN", root).open("a", encoding="utf-8") as file:
        file.write("".join(f'msgctxt "value"\nmsgid "{k}"\nmsgstr "{v}"\n\n' for k, v in values.items()))


@pytest.fixture
def looping(project) -> Path:
    for lang in ("en", "zh_CN"):
        (project / "gallery" / lang / "questions" / "plot_01_x.py").write_text(
            "for kind in ('leaf', 'Parameter'):\n    assert kind, f'copy.copy of a {kind}'\n", encoding="utf-8")
    return project


@pytest.mark.parametrize(("values", "expected"), [
    ({"leaf": "叶子张量", "Parameter": "Parameter"}, None),
    ({"leaf": "叶子张量"}, "plot_01_x.py:2: the value 'Parameter' of a field of the check's message has no "
                         "translation"),
    ({"leaf": "叶子张量", "Parameter": ""}, "the value 'Parameter' of a field of the check's message has no"),
    ({"leaf": "叶子张量", "Parameter": "Parameter", "view": "视图"}, "the value 'view' (msgctxt \"value\") is "
                                                                    "given to no field"),
])  # fmt: skip
def test_every_value_has_a_translation_and_none_is_stale(looping, values, expected):
    write_values(looping, {"copy.copy of a {kind}": "对 {kind} 做 copy.copy"}, values)
    problems = check_labels.check("zh_CN", looping)
    assert problems == [] if expected is None else len(problems) == 1 and expected in problems[0], problems


def test_adding_the_missing_values_keeps_the_messages_and_the_translated_values(looping):
    write_values(looping, {"copy.copy of a {kind}": "对 {kind} 做 copy.copy"}, {"leaf": "叶子张量", "view": "视图"})
    assert check_labels.add_missing("zh_CN", looping) == 1
    assert check_labels.read("zh_CN", looping) == {"copy.copy of a {kind}": "对 {kind} 做 copy.copy"}
    assert check_labels.read_values("zh_CN", looping) == {"leaf": "叶子张量", "Parameter": ""}
    assert check_labels.page_values("for k in ('leaf', 'Parameter'):\n    assert k, f'{k}'\n",
                                    {"leaf": "叶子张量", "Parameter": "Parameter"}) == {"leaf": "叶子张量"}
