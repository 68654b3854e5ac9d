"""The typography rules of the gallery's text cells (sitetools/typography.py): inline markup that
docutils recognises, and the Chinese spacing and punctuation."""

import shutil

import pytest
from docutils import nodes
from docutils.core import publish_doctree

from sitetools import pages, typography
from tests.gallery_tools import ROOT

MARKUP_CASES = {
    "space-both-sides": "见 ``x`` 的值",
    "full-width-comma": "见 ``x``，下",
    "full-width-stop": "见 ``x``。",
    "full-width-colon": "``x``：下",
    "in-full-width-brackets": "（``x``）",
    "in-quotes": "“``x``”",
    "full-width-open-bracket-after": "见 ``x``（下）",
    "chinese-before": "见``x`` 下",
    "chinese-after": "见 ``x``的值",
    "role-then-bracket": "见 :ref:`x`（下）",
    "link-then-chinese": "见 `x <https://example.org>`__页",
}


@pytest.mark.parametrize("text", MARKUP_CASES.values(), ids=MARKUP_CASES.keys())
def test_the_markup_rule_agrees_with_docutils(text):
    """The rule reports a problem exactly where docutils leaves backquotes in the running text (an
    unknown role such as :ref: still parses, as a "problematic" node that holds its backquotes)."""
    tree = publish_doctree(text, settings_overrides={"report_level": 5})
    inline = nodes.literal | nodes.reference | nodes.problematic
    stray = [t for t in tree.findall(nodes.Text) if "`" in t and not isinstance(t.parent, inline)]
    assert (typography.markup_problems(text) == []) == (not stray), (text, tree.pformat())


def test_a_markup_problem_names_the_character():
    [(line, message)] = typography.markup_problems("第一行\n见 ``x``（下）")
    assert line == 2 and "'（' right after ``x``" in message


CJK_CASES = {
    "chinese-then-code": ("见``x``。", "no space between Chinese and Latin"),
    "chinese-then-latin": ("由autograd 记录", "no space between Chinese and Latin"),
    "digit-then-chinese": ("第 0个", "no space between Chinese and Latin"),
    "space-between-chinese": ("这是 一句话", "a space between two Chinese characters"),
    "space-before-comma": ("张量 ，再看", "a space next to full-width punctuation"),
    "space-before-quote": ("原文说 “原位操作”", "a space next to full-width punctuation"),
    "break-before-quote": ("原文说\n“原位操作”", "a space next to full-width punctuation"),
    "ascii-comma": ("张量,再看", "ASCII punctuation next to Chinese"),
    "ascii-bracket": ("张量(见下)", "ASCII punctuation next to Chinese"),
    "italics": ("与它 *共享* 内存", "emphasis on Chinese text"),
}


@pytest.mark.parametrize(("text", "expected"), CJK_CASES.values(), ids=CJK_CASES.keys())
def test_the_chinese_rules_find_each_fault(text, expected):
    problems = [message for _, message in typography.cjk_problems(text)]
    assert any(expected in message for message in problems), problems


@pytest.mark.parametrize(
    "text",
    [
        "见 ``x`` 的值，``y``：下。",
        "两个名字\n指向同一个张量。",  # the build drops this line break
        "张量对象，\n每个张量",  # and this one, next to full-width punctuation
        "由 ``c``\n算出来",  # a break between Chinese and code shows as the space the rule wants
        "原文链接：https://example.org",
        "《【pytorch】tensor的复制避坑》",  # a quoted title keeps its spelling
        "（`pytorch/pytorch#1\n<https://github.com/pytorch/pytorch/issues/1>`__、`b <https://b.org>`__）",
        "2×3 的叶子，第 0 个输出",
        "标题\n----\n\n正文。",
        "- ``[3]``：形状；\n- ``x``：输出。",
    ],
    ids=[
        "spaced",
        "break-between-chinese",
        "break-after-comma",
        "break-before-code",
        "url-after-colon",
        "quoted-title",
        "links-across-lines",
        "numbers",
        "title",
        "list",
    ],  # fmt: skip
)
def test_the_chinese_rules_accept_good_text(text):
    assert typography.cjk_problems(text) == [], text


def test_every_gallery_text_cell_follows_the_typography_rules():
    problems = [problem for code in ("en", "zh_CN") for problem in pages.check_typography(code)]
    assert not problems, "\n".join(problems)


def test_a_fault_in_a_chinese_page_is_named_with_its_line(tmp_path):
    shutil.copytree(ROOT / "gallery", tmp_path / "gallery", ignore=shutil.ignore_patterns("__pycache__"))
    page = tmp_path / "gallery" / "zh_CN" / "copying" / "plot_01_alias_and_data.py"
    lines = page.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("# 小结"))
    lines.insert(index + 3, "# 见 ``b``（下）与``a``。")
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = pages.check_typography("zh_CN", tmp_path)
    where = f"gallery/zh_CN/copying/plot_01_alias_and_data.py:{index + 4}:"
    assert any(p.startswith(where) and "'（' right after ``b``" in p for p in problems), problems
    assert any(p.startswith(where) and "no space between Chinese" in p for p in problems), problems
    assert all("(see CONTRIBUTING.md, 'Typography')" in p for p in problems), problems
