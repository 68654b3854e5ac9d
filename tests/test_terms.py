"""The one terminology list (sitetools/rules/terms.py): jieba's dictionary is written from it, the glossary
renders it, and the Chinese pages use its terms rather than the variants it lists to avoid."""

import re
import shutil

import pytest

from sitetools.rules import first_mentions, generated_prose, terms, wording
from sitetools.rules.sources import DOCS, GALLERY
from tests.gallery_tools import ROOT

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_search_dictionary_is_written_from_the_list():
    assert terms.SEARCH_DICTIONARY.read_text(encoding="utf-8") == terms.search_dictionary(), (
        f"{terms.SEARCH_DICTIONARY.relative_to(ROOT)} differs from sitetools/rules/terms.py; "
        f"run `{terms.UPDATE_COMMAND}`"
    )


def test_the_dictionary_splits_no_word_that_jiebas_own_dictionary_keeps_whole():
    """A user dictionary's frequency replaces jieba's own: a common word written with a lower one is split (副本 into
    副 本, everywhere on the pages), so that a reader who types it finds nothing. Each word of the list that jieba
    keeps whole on its own stays whole with the site's dictionary."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    own, site = jieba.Tokenizer(), jieba.Tokenizer()
    site.load_userdict(str(terms.SEARCH_DICTIONARY))
    for word in terms.search_words():
        text = f"的{word}，"
        if word in own.lcut(text):
            assert word in site.lcut(text), f"{word}: split once {terms.SEARCH_DICTIONARY.name} is loaded"
    assert "副本" in site.lcut("有自己内存的副本；")


def test_the_edition_table_points_jieba_at_that_dictionary():
    from editions import edition

    assert edition("zh_CN").search_options == {"dict": str(terms.SEARCH_DICTIONARY)}


def test_the_words_readers_type_are_in_the_dictionary():
    words = terms.search_words()
    for word in ("拷贝", "浅拷贝", "深拷贝", "就地", "原地操作", "视图", "叶子张量", "版本计数器"):
        assert word in words, f"{word} is not in sitetools/rules/terms.py, so a search for it may find nothing"


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
    rules = (*terms.TERMS, *wording.WORDING)
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
    assert wording.variants_in(text) == expected


def test_a_variant_injected_into_a_chinese_page_is_named(tmp_path):
    for part in ("gallery", "docs"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "_*"))
    page = tmp_path / "docs" / "zh_CN" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n就地修改张量。\n", encoding="utf-8")
    problems = wording.check_variants(tmp_path)
    assert any(p.startswith("docs/zh_CN/index.md:") and "'就地'" in p for p in problems), problems


def test_a_variant_in_a_string_the_chinese_pages_render_is_named(tmp_path):
    shutil.copytree(ROOT / "tensorfacts", tmp_path / "tensorfacts", ignore=shutil.ignore_patterns("__pycache__"))
    module = tmp_path / "tensorfacts" / "matrix.py"
    module.write_text(module.read_text(encoding="utf-8") + '\nEXTRA = "两者共用存储"\n', encoding="utf-8")
    problems = wording.check_variants(tmp_path)
    assert any(p.startswith("tensorfacts/matrix.py:") and "'共用'" in p for p in problems), problems


def test_no_chinese_page_uses_a_variant_to_avoid():
    problems = wording.check_variants()
    assert not problems, "\n".join(problems)


def test_the_glossary_pages_render_the_list():
    for code in ("en", "zh_CN"):
        text = (DOCS / code / "glossary.md").read_text(encoding="utf-8")
        assert "```{terms-table}" in text, f"docs/{code}/glossary.md does not render the terminology list"
        assert "```{core-terms}" in text, f"docs/{code}/glossary.md does not list the core terms from TERMS"


def test_the_list_of_core_terms_names_every_core_term():
    for zh, gloss, _ in first_mentions.FIRST_MENTIONS:
        term = next(t for t in terms.TERMS if t.zh == zh)
        assert term.en.split(", ")[0] in generated_prose.core_terms("en"), zh
        assert f"{zh}（" in generated_prose.core_terms("zh_CN") and gloss in generated_prose.core_terms("zh_CN"), zh


def test_every_term_has_a_definition_in_both_languages():
    for term in terms.TERMS:
        assert term.define_en.strip() and term.define_zh.strip(), f"{term.zh} has no definition in both languages"
        assert term.define_en.endswith(".") and term.define_zh.endswith("。"), f"{term.zh}: one sentence, ended"
        assert CJK.search(term.define_zh) and not CJK.search(term.define_en), term.zh


def test_the_core_terms_carry_a_gloss():
    glossed = {zh: gloss for zh, gloss, _ in first_mentions.FIRST_MENTIONS}
    assert glossed == {"自动求导": "autograd", "版本计数器": "version counter", "原地操作": "in-place",
                       "叶子张量": "leaf tensor", "梯度模式": "grad mode", "视图": "view",
                       "保存张量的钩子": "saved tensors hooks", "基张量": "base tensor", "推理张量": "inference tensor",
                       "梯度检查点": "activation checkpointing", "在线网络": "online network", "软更新": "soft update",
                       "共轭位": "conjugate bit", "负号位": "negative bit", "高级索引": "advanced indexing"}, glossed


BOX = (".. admonition:: 答案\n   :class: answer\n\n   {box}\n\n   .. code-block:: python\n\n      y = x.clone()\n\n"
       "{body}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("自动求导（autograd）记录运算。之后的自动求导与 autograd 都行。", None),
        ("第一行\n自动求导记录运算。", (2, "自动求导")),
        ("由 autograd 记录。后面才写自动求导（autograd）。", (1, "自动求导")),
        ("``torch.autograd.grad`` 求梯度，之后自动求导（autograd）……", None),
        ("没有提到它。", None),
        (".. figure-caption::\n   :alt: 自动求导（autograd）的\n      计算图\n\n   图注。\n\n由 autograd 记录。",
         (7, "自动求导")),
        (".. figure-caption::\n   :alt: 自动求导的计算图\n\n之后自动求导（autograd）……", None),
        ("版本计数器（version counter）记下修改，之后的版本计数器不必再注。", None),
        ("第一行\n版本计数器记下修改。", (2, "版本计数器")),
        ("它的版本计数器（version counter，``x._version``）", None),
        ("对它原地修改（in-place）之后", None),
        ("这是原地操作（in-place operation）。", None),
        ("对它原地修改。", (1, "原地操作")),
        ("NumPy 数组却留在原地。", None),
        ("非叶子张量（non-leaf tensor）没有 ``.grad``。", None),
        ("叶子张量的梯度", (1, "叶子张量")),
        ("在梯度模式下", (1, "梯度模式")),
        ("在梯度模式（grad mode）下", None),
        ("切片得到视图。", (1, "视图")),
        ("``t.view(4)`` 与 ``x._base``", None),
        ("经由保存张量的钩子保存", (1, "保存张量的钩子")),
        ("用 ``torch.autograd.graph.saved_tensors_hooks`` 打包", None),
        ("视图操作一览\n============\n\n视图（view）读另一个张量的存储。", None),
        ("见 :ref:`视图那一页 <questions-views>`，视图（view）……", None),
        (".. code-block:: python\n\n   y = x[0]  # 视图\n\n视图（view）……", None),
        ("```{doctest}\n>>> y = x[0]  # 视图\n```\n\n视图（view）……", None),
        (BOX.format(box="切片是视图。", body="切片是视图（view）。"), None),
        (BOX.format(box="切片是视图（view）。", body="切片是视图。"), None),
        (BOX.format(box="切片是视图。", body="切片是视图。"), (10, "视图")),
        ("视图（view）……\n另一个视图（view）。", (2, "视图")),
        ("视图（view）……\n另一个视图，视图（`_is_view()` 为真）。", None),
    ],
    ids=["autograd-first-carries-both", "autograd-zh-alone", "autograd-en-alone-first",
         "a-torch-name-is-not-a-mention", "no-mention", "alt-text-is-not-the-first-mention", "alt-text-needs-no-pair",
         "version-counter-glossed", "version-counter-not-glossed", "gloss-inside-existing-parentheses",
         "in-place-compound-glossed", "in-place-operation-glossed", "in-place-not-glossed", "stays-in-place-is-not-one",
         "non-leaf-is-not-a-leaf-mention", "leaf-not-glossed", "grad-mode-not-glossed", "grad-mode-glossed",
         "view-not-glossed", "code-names-are-not-mentions", "hooks-not-glossed", "hooks-code-name-is-not-a-mention",
         "a-title-is-not-the-first-mention", "link-text-is-not-the-first-mention", "code-block-is-not-prose",
         "doctest-is-not-prose", "answer-box-is-exempt", "a-gloss-in-the-answer-box-counts",
         "after-the-answer-box-the-body-glosses", "a-second-gloss", "parentheses-that-do-not-gloss"],
)
def test_the_first_mention_of_a_core_term_carries_its_gloss(text, expected):
    found = first_mentions.first_mention_problems(text)
    assert [(line, message.split()[4]) for line, message in found] == ([] if expected is None else [expected]), found


#: ``(page, its glossed first mention, line)``: taking the gloss away must name the page and line.
#: (page, its first glossed mention of a term): the gloss is removed, and the line it stood on must be named.
BREAKS = [
    ("gallery/zh_CN/copying/GALLERY_HEADER.rst", "自动求导（autograd）"),
    ("gallery/zh_CN/questions/GALLERY_HEADER.rst", "版本计数器（version counter）"),
    ("gallery/zh_CN/questions/plot_12_version_counter.py", "视图（view）"),
    ("docs/zh_CN/index.md", "原地（in-place）"),
]


#: (page, a later mention of a term, the same mention glossed): glossing it again must name the page and line.
GLOSSED_AGAIN = [
    ("gallery/zh_CN/questions/GALLERY_HEADER.rst", "、视图、", "、视图（view）、"),
    ("gallery/zh_CN/questions/plot_12_version_counter.py", "之外取的视图或 ``detach()``",
     "之外取的视图（view）或 ``detach()``"),
]


@pytest.mark.slow  # over a second: reads every page
def test_a_term_glossed_again_is_named_outside_the_entry_pages(tmp_path):
    for part in ("gallery", "docs"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "_*"))
    for where, mention, glossed in GLOSSED_AGAIN:
        page = tmp_path / where
        text = page.read_text(encoding="utf-8")
        assert text.count(mention) == 1, (where, mention)
        page.write_text(text.replace(mention, glossed), encoding="utf-8")
        problems = first_mentions.check_first_mentions(tmp_path)
        page.write_text(text, encoding="utf-8")
        line = text[:text.index(mention)].count("\n") + 1
        assert len(problems) == 1 and problems[0].startswith(f"{where}:{line}: a later mention of 视图"), problems
    # The glossary and the facts page gloss a term in each entry that needs it, and pass.
    for name in first_mentions.ENTRY_PAGES:
        text = "\n".join(part for part, _ in first_mentions._pieces(ROOT / "docs/zh_CN" / name, ROOT, "zh_CN"))
        assert any("glosses it again" in message for _, message in first_mentions._unglossed(text)), name


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_page_whose_first_mention_lacks_its_gloss_is_named(tmp_path):
    for part in ("gallery", "docs"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "_*"))
    assert first_mentions.check_first_mentions(tmp_path) == [], "the control: the real pages pass"
    for where, glossed in BREAKS:
        page = tmp_path / where
        text = page.read_text(encoding="utf-8")
        assert glossed in text, (where, glossed)
        line = text[:text.index(glossed)].count("\n") + 1
        page.write_text(text.replace(glossed, glossed.split("（")[0], 1), encoding="utf-8")
        problems = first_mentions.check_first_mentions(tmp_path)
        page.write_text(text, encoding="utf-8")
        assert len(problems) == 1 and problems[0].startswith(f"{where}:{line}: "), problems


def _texts(kind: str, name: str) -> dict[str, str]:
    """The texts, by edition, of a sentence a directive writes on a narrative page (a guide entry, a
    table note, a claim, what a fact runs)."""
    from tensorfacts import articles, facts, table_notes
    from tensorfacts.decisions import DECISIONS

    if kind == "fact":
        return facts.ABOUT[name].runs
    found = {"decision": DECISIONS, "note": table_notes.VIEW_NOTES, "claim": articles.CLAIMS}[kind]
    return next(entry for entry in found if entry.id == name).texts


#: ``(sentence, its glossed first mention, the same mention bare, the module that holds it)``: the first
#: mention on decide, views, ledger and facts lives in a sentence a directive writes, not in the page.
GENERATED_BREAKS = [
    (("decision", "need-read-without-graph"), "版本计数器（version counter）", "版本计数器",
     "tensorfacts/decisions.py"),
    (("note", "autograd-views"), "自动求导（autograd）", "自动求导", "tensorfacts/table_notes.py"),
    (("claim", "004-data-untracked"), "自动求导（autograd）", "自动求导", "tensorfacts/articles/data_vs_detach_004.py"),
    (("fact", "copy-copy-of-strided-nested-shares-counter"), "版本计数器（version counter）", "版本计数器",
     "tensorfacts/deepcopy_refusal_facts.py"),
]


def test_the_generated_sentences_of_the_real_pages_carry_their_glosses():
    assert first_mentions.check_first_mentions() == [], "the control: the pages with what their directives write"


@pytest.mark.parametrize(("sentence", "glossed", "bare", "where"), GENERATED_BREAKS,
                         ids=[kind for (kind, _), *_ in GENERATED_BREAKS])
def test_a_generated_sentence_whose_first_mention_lacks_its_gloss_is_named(monkeypatch, sentence, glossed, bare,
                                                                          where):
    texts = _texts(*sentence)
    assert glossed in texts["zh_CN"], (sentence, glossed)
    monkeypatch.setitem(texts, "zh_CN", texts["zh_CN"].replace(glossed, bare, 1))
    line = next(n for n, text in enumerate((ROOT / where).read_text(encoding="utf-8").splitlines(), 1)
                if glossed in text)
    problems = first_mentions.check_first_mentions()
    assert len(problems) == 1 and problems[0].startswith(f"{where}:{line}: "), problems
