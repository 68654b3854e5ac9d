"""The one terminology list (sitetools/terms.py): jieba's dictionary is written from it, the glossary
renders it, and the Chinese pages use its terms rather than the variants it lists to avoid."""

import shutil

import pytest

from sitetools import terms
from sitetools.pages import DOCS, GALLERY
from tests.gallery_tools import ROOT


def test_the_search_dictionary_is_written_from_the_list():
    assert terms.SEARCH_DICTIONARY.read_text(encoding="utf-8") == terms.search_dictionary(), (
        f"{terms.SEARCH_DICTIONARY.relative_to(ROOT)} differs from sitetools/terms.py; run `{terms.UPDATE_COMMAND}`"
    )


def test_the_edition_table_points_jieba_at_that_dictionary():
    from sitetools.editions import edition

    assert edition("zh_CN").search_options == {"dict": str(terms.SEARCH_DICTIONARY)}


def test_the_words_readers_type_are_in_the_dictionary():
    words = terms.search_words()
    for word in ("拷贝", "浅拷贝", "深拷贝", "就地", "原地操作", "视图", "叶子张量", "版本计数器"):
        assert word in words, f"{word} is not in sitetools/terms.py, so a search for it may find nothing"


def test_every_term_names_a_page_that_exists():
    labels = {
        line.strip()[len(".. _") : -1]
        for path in GALLERY.joinpath("en").rglob("plot_*.py")
        for line in path.read_text(encoding="utf-8").splitlines()[:3]
        if line.startswith(".. _")
    }
    missing = [(term.zh, term.page) for term in terms.TERMS if term.page not in labels]
    assert not missing, f"terms point to labels no page defines: {missing}"


def test_no_term_is_also_a_variant_to_avoid():
    rules = (*terms.TERMS, *terms.WORDING)
    used = {word for term in rules for word in (term.zh, *term.also)}
    avoided = {word for term in rules for word in term.avoid}
    assert not used & avoided, used & avoided


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这是原位操作。", [(1, "原位操作", "原地操作")]),
        ("第一行\n就地修改", [(2, "就地", "原地操作")]),
        ("原文说两者都是“原位操作”。", []),
        ("原文说“两者都是\n原位操作”。", []),
        ("这是原地操作。", []),
        ("a 需要求导时", [(1, "需要求导", "需要梯度")]),
        ("在求导模式下", [(1, "求导模式", "梯度模式")]),
        ("这是最稳妥的复制", [(1, "最稳妥", "最保险")]),
        ("是稳妥的复制", [(1, "稳妥", "最保险")]),
        ("修法一", [(1, "修法", "解决办法")]),
        ("修复办法是", [(1, "修复办法", "解决办法")]),
        ("正是微积分给出的梯度", [(1, "微积分", "按求导公式算出的")]),
        ("下载 Jupyter 笔记本", [(1, "笔记本", "notebook")]),
        ("两者的最后一格", [(1, "最后一格", "单元格")]),
        ("两边的代码单元相同", [(1, "代码单元", "单元格")]),
        ("两边的代码单元格相同", []),
        ("由 autograd 记录", []),
        ("两者共用一块存储", [(1, "共用", "共享")]),
        ("两者共享一个 ``_version`` 计数。", [(1, "_version`` 计数", "版本计数器")]),
        ("两者共享一个 ``_version`` 计数器。", []),
        ("本构建只在 CPU 上运行", [(1, "本构建", "本次构建")]),
        ("框里的内容", [(1, "框里", "框内")]),
        ("用 ``fused=True`` 建的优化器", [(1, "fused=True`` 建的", "fused 优化器")]),
        ("用 ``parameters()`` 建的优化器", []),
        ("探针比较两者存储的地址", [(1, "探针", "探测程序")]),
        ("前向计算中的一些张量", [(1, "前向计算", "前向传播")]),
        ("前向传播中的一些张量", []),
        ("分成两个 micro-batch", [(1, "micro-batch", "微批次")]),
        ("多个微批次（micro-batch）的梯度", []),
        ("已经 step 过的优化器", [(1, "step 过", "调用过 ``step()``")]),
        ("``BatchNorm`` 的 running 统计量", [(1, "running 统计量", "滑动统计量")]),
        ("去更新它的来源张量", [(1, "来源张量", "源张量")]),
        ("去更新它的源张量", []),
        ("它会引发 ``IndexError``", [(1, "引发", "抛出")]),
    ],
    ids=["variant", "second-line", "quoted", "quoted-across-lines", "the-term-itself", "requires-grad",
         "grad-mode", "safest", "safe", "fix", "fix-2", "analytic-gradient", "notebook", "last-cell", "code-cell",
         "the-accepted-word-holds-a-variant", "autograd-is-accepted", "share", "version-count",
         "version-counter", "this-build", "in-the-box", "fused-optimizer", "any-other-optimizer", "probe",
         "forward-pass", "forward-pass-accepted", "micro-batch", "micro-batch-first-mention", "stepped",
         "running-statistics", "a-variant-holding-the-accepted-word", "source-tensor", "raise"],
)
def test_the_checker_finds_variants_outside_quotations(text, expected):
    assert terms.variants_in(text) == expected


def test_a_variant_injected_into_a_chinese_page_is_named(tmp_path):
    for part in ("gallery", "docs"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "_*"))
    page = tmp_path / "docs" / "zh_CN" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n就地修改张量。\n", encoding="utf-8")
    problems = terms.check_variants(tmp_path)
    assert any(p.startswith("docs/zh_CN/index.md:") and "'就地'" in p for p in problems), problems


def test_a_variant_in_a_string_the_chinese_pages_render_is_named(tmp_path):
    shutil.copytree(ROOT / "tensorfacts", tmp_path / "tensorfacts", ignore=shutil.ignore_patterns("__pycache__"))
    module = tmp_path / "tensorfacts" / "matrix.py"
    module.write_text(module.read_text(encoding="utf-8") + '\nEXTRA = "两者共用存储"\n', encoding="utf-8")
    problems = terms.check_variants(tmp_path)
    assert any(p.startswith("tensorfacts/matrix.py:") and "'共用'" in p for p in problems), problems


def test_no_chinese_page_uses_a_variant_to_avoid():
    problems = terms.check_variants()
    assert not problems, "\n".join(problems)


def test_the_glossary_pages_render_the_list():
    for code in ("en", "zh_CN"):
        text = (DOCS / code / "glossary.md").read_text(encoding="utf-8")
        assert "```{terms-table}" in text, f"docs/{code}/glossary.md does not render the terminology list"


@pytest.mark.parametrize(
    ("text", "expected_line"),
    [
        ("自动求导（autograd）记录运算。之后的自动求导与 autograd 都行。", None),
        ("第一行\n自动求导记录运算。", 2),
        ("由 autograd 记录。后面才写自动求导（autograd）。", 1),
        ("``torch.autograd.grad`` 求梯度，之后自动求导（autograd）……", None),
        ("没有提到它。", None),
        (".. figure-caption::\n   :alt: 自动求导（autograd）的\n      计算图\n\n   图注。\n\n由 autograd 记录。", 7),
        (".. figure-caption::\n   :alt: 自动求导的计算图\n\n之后自动求导（autograd）……", None),
    ],
    ids=["first-carries-both", "zh-alone", "en-alone-first", "a-torch-name-is-not-a-mention", "no-mention",
         "alt-text-is-not-the-first-mention", "alt-text-needs-no-pair"],
)
def test_the_first_mention_of_autograd_carries_both_words(text, expected_line):
    found = terms.first_mention_problems(text)
    assert [line for line, _ in found] == ([] if expected_line is None else [expected_line]), found


def test_a_page_whose_first_mention_lacks_autograd_is_named(tmp_path):
    for part in ("gallery", "docs"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "_*"))
    assert terms.check_first_mentions(tmp_path) == [], "the control: the real pages pass"
    page = tmp_path / "gallery" / "zh_CN" / "copying" / "GALLERY_HEADER.rst"
    page.write_text(page.read_text(encoding="utf-8").replace("自动求导（autograd）", "自动求导", 1), encoding="utf-8")
    problems = terms.check_first_mentions(tmp_path)
    assert len(problems) == 1 and problems[0].startswith("gallery/zh_CN/copying/GALLERY_HEADER.rst:4: "), problems
