"""What the extensions write on the Chinese pages, besides the pages' own text: links set in Chinese
sentences, the meta description, the examples index's tooltips, the search page without JavaScript,
the notebooks' Markdown and the rerun cell's report. Every expected text is written here."""

from __future__ import annotations

import ast
import html
import itertools
import json
import re
from importlib.metadata import version

import pytest
from docutils import nodes
from docutils.core import publish_doctree
from sphinx_gallery.backreferences import _thumbnail_div
from sphinx_gallery.gen_rst import extract_intro_and_title

from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.gallery_tools import GALLERY, LANGS, gallery_scripts, read_page, script_id

from tensorcopy_sphinx.cjk_linebreaks import join_links, join_paragraph_lines, page_description, tidy_description  # noqa: E402  isort: skip
from tensorcopy_sphinx.gallery_html_fixes import (  # noqa: E402  isort: skip
    _source_read, curly_quotes, plain_title, plain_tooltip, straight_quoted_apostrophes)
from tensorcopy_sphinx.notebook_text import markdown_cell  # noqa: E402  isort: skip


def _joined(text: str) -> str:
    doctree = publish_doctree(text, settings_overrides={"report_level": 5})
    join_links(doctree)
    return doctree.astext()


def test_a_chinese_link_between_chinese_words_loses_the_spaces_rest_needs():
    assert _joined("做法见 `下一页 <https://example.org/a>`__ 。") == "做法见下一页 。"
    assert _joined("`跳到页尾 <https://example.org/b>`__ 下载完整的示例代码。") == "跳到页尾下载完整的示例代码。"
    assert _joined("见 `“版本计数器”那一页 <https://example.org/v>`__ 。") == "见“版本计数器”那一页 。"
    assert _joined("和 `那一页“总结” <https://example.org/s>`__ 一样") == "和那一页“总结”一样"


def test_a_link_to_a_full_title_in_title_marks_loses_the_spaces_rest_needs():
    assert _joined("见 `《各操作保存了哪些张量》 <https://example.org/t>`__ 。") == "见《各操作保存了哪些张量》 。"
    assert _joined("和 `《视图操作一览》 <https://example.org/v>`__ 一样") == "和《视图操作一览》一样"


def test_a_link_keeps_its_space_on_a_latin_side_and_latin_text_keeps_its_own():
    assert _joined("和 `clone() 那一页 <https://example.org/c>`__ 一样") == "和 clone() 那一页一样"
    assert _joined("见 `Saved tensors <https://example.org/d>`__ 一节") == "见 Saved tensors 一节"
    assert _joined("see `the next page <https://example.org/e>`__ first") == "see the next page first"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_link_that_shows_its_pages_title_loses_the_space_before_a_chinese_word(tmp_path):
    """``{doc}`releases``` has no words of its own: its text, the page's title, is known only once resolved."""
    import io

    from sphinx.testing.util import SphinxTestApp

    from tests.claims_tools import ROOT

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(f"import sys\nsys.path[:0] = [{str(ROOT)!r}, {str(EXT)!r}]\nextensions = "
                                 "['myst_parser', 'sphinxext.opengraph', 'tensorcopy_sphinx.cjk_linebreaks']\n"
                                 "language = 'zh_CN'\nogp_social_cards = {'enable': False}  # as the site's\n")
    (src / "index.md").write_text("# 首页\n\n```{toctree}\nreleases\n```\n\n"
                                  "{doc}`releases` 列出每个版本的结果，见 {doc}`releases`。\n", encoding="utf-8")
    (src / "releases.md").write_text("# 各版本 torch 上的检查\n\n正文。\n", encoding="utf-8")
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "build", freshenv=True, status=io.StringIO(),
                        warning=io.StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    paragraph = next(p for p in read_page(app.outdir / "index.html").find_all("p") if "列出" in p.get_text())
    text = " ".join(paragraph.get_text().split())
    assert text == "各版本 torch 上的检查列出每个版本的结果，见各版本 torch 上的检查。", text


def test_a_markdown_page_loses_the_line_breaks_inside_a_chinese_sentence():
    from docutils.frontend import get_default_settings
    from docutils.utils import new_document
    from myst_parser.parsers.docutils_ import Parser

    doctree = new_document("page.md", get_default_settings(Parser))
    Parser().parse("运行该操作，\n所用的版本\n写在上方；`x` 和\n`y`\n一样\n\n```\n代码，\n行\n```\n", doctree)
    join_paragraph_lines(doctree)  # MyST gives each line break a text node of its own
    paragraph, code = doctree.children
    assert paragraph.astext() == "运行该操作，所用的版本写在上方；x 和\ny\n一样"  # Latin/code neighbours stay spaces
    assert code.astext() == "代码，\n行\n"  # code keeps its lines


def test_the_description_loses_spaces_next_to_full_width_punctuation_and_between_chinese():
    before = "构建过程: 没有 grad_fn ，也不需要梯度 。 下一页 讲 detach() 。 Latin: words"
    assert tidy_description(before) == "构建过程：没有 grad_fn，也不需要梯度。下一页讲 detach()。Latin: words"


@pytest.mark.parametrize(("before", "after"), [
    ("每页可下载的.py 文件；版本计数器_version 和它的.grad", "每页可下载的 .py 文件；版本计数器 _version 和它的 .grad"),
    ("成立：一致；, 不成立：不一致.", "成立：一致；不成立：不一致。"),
    ("一项, 另一项, 最后一项.", "一项，另一项，最后一项。"),
    ("说明很长时截断于...", "说明很长时截断于……"),
], ids=["latin-after-chinese", "list-marks-after-punctuation", "list-marks-after-chinese", "cut"])
def test_the_description_reads_as_chinese(before, after):
    assert tidy_description(before) == after


#: Sphinx keeps the page title as a section (docutils alone would lift it out).
SPHINX_LIKE = {"report_level": 5, "doctitle_xform": False}


def test_the_description_is_the_pages_opening_not_its_code():
    """The opening stops at the first code block or sub-section; the page title and boxes are left out."""
    doctree = publish_doctree("Title\n=====\n\n.. note::\n\n   A box.\n\nOpening words, ``a``'s\nmemory.\n\n"
                              ".. code-block:: python\n\n   import warnings\n\nAfter the code.\n\n"
                              "Part\n----\n\nMore.\n", settings_overrides=SPHINX_LIKE)
    assert page_description(doctree, 200, cjk=False) == "Opening words, a&#x27;s memory."
    assert page_description(doctree, 10, cjk=False) == "Opening..."
    chinese = publish_doctree("标题\n====\n\n读取中间结果的 ``.grad``。\n\n- 成立：一致；\n- 不成立。\n\n"
                              "小节\n----\n\n更多。\n", settings_overrides=SPHINX_LIKE)
    assert page_description(chinese, 200, cjk=True) == "读取中间结果的 .grad。成立：一致；不成立。"


def test_the_description_leaves_out_a_table_and_the_sentence_that_leads_into_it():
    """The about page opens with its table of versions: in a search result "下面这些版本" would point at
    nothing, so the description is the sentences after it."""
    doctree = publish_doctree("标题\n====\n\n用的是下面这些版本：\n\n====== ======\n组件   版本\n====== ======\n"
                              "torch  2.13\n====== ======\n\n版本号取自解释器。\n", settings_overrides=SPHINX_LIKE)
    assert page_description(doctree, 200, cjk=True) == "版本号取自解释器。"
    english = publish_doctree("Title\n=====\n\nBuilt with:\n\n.. comment\n\n===== ====\ntorch 2.13\n===== ====\n\n"
                              "Read from the interpreter.\n", settings_overrides=SPHINX_LIKE)
    assert page_description(english, 200, cjk=False) == "Read from the interpreter."
    for table in list(english.findall(nodes.table)):  # as furo wraps a table
        table.parent.replace(table, nodes.container("", table.deepcopy(), classes=["table-wrapper"]))
    assert page_description(english, 200, cjk=False) == "Read from the interpreter."


def test_a_sentence_that_ends_the_opening_with_a_colon_before_code_stays():
    doctree = publish_doctree("Title\n=====\n\nFirst words.\n\nAll blocks start from one leaf:\n\n"
                              ".. code-block:: python\n\n   a = 1\n", settings_overrides=SPHINX_LIKE)
    assert page_description(doctree, 200, cjk=False) == "First words. All blocks start from one leaf."


def test_a_question_pages_description_is_its_answer_not_the_error_message_it_opens_with():
    """The opening of a question page quotes the English error: in a Chinese search result the description
    read "RuntimeError: unsupported operation: more than one element of the ...", cut mid-word."""
    doctree = publish_doctree("标题\n====\n\n.. admonition:: 答案\n   :class: answer\n\n"
                              "   写入会被拒绝。``clone()`` 让每个元素有自己的内存：\n\n"
                              "   .. code-block:: python\n\n      wide = wide.clone()\n\n"
                              "``RuntimeError: unsupported operation``：这是写入时得到的报错。\n",
                              settings_overrides=SPHINX_LIKE)
    assert page_description(doctree, 200, cjk=True) == "写入会被拒绝。clone() 让每个元素有自己的内存。"
    note = publish_doctree("Title\n=====\n\n.. admonition:: Note\n\n   A box.\n\nOpening words.\n",
                           settings_overrides=SPHINX_LIKE)
    assert page_description(note, 200, cjk=False) == "Opening words."


@pytest.mark.parametrize(("source", "length", "cjk", "shown"), [
    ("One two three four five six.", 20, False, "One two three..."),
    ("Onetwothreefourfivesix seven.", 20, False, "Onetwothreefourfi..."),  # no word ends in the second half
    ("所有代码块都从同一个叶子张量开始：", 200, True, "所有代码块都从同一个叶子张量开始。"),
    ("All blocks start from one leaf:", 200, False, "All blocks start from one leaf."),
    ("第一句话写得比较长一些呢，第二句话也长，第三句", 20, True, "第一句话写得比较长一些呢……"),
    ("An English error message quoted first: 这是报错", 20, True, "An English error……"),  # no Chinese before ":"
])  # fmt: skip
def test_a_cut_description_ends_where_a_word_or_clause_ends(source, length, cjk, shown):
    doctree = publish_doctree(f"Title\n=====\n\n{source}\n", settings_overrides=SPHINX_LIKE)
    assert page_description(doctree, length, cjk=cjk) == shown


def test_tooltips_show_the_words_of_inline_markup_not_the_markup():
    shown = plain_tooltip("换成（``out.detach()``），``a``、``b`` 见 :ref:`下一页 &lt;copying-clone&gt;` 与 "
                          "`Saved tensors &lt;https://example.org/f&gt;`__ 和 :class:`torch.Tensor`")
    assert shown == "换成（out.detach()），a、b 见 下一页 与 Saved tensors 和 torch.Tensor"


@pytest.mark.parametrize(("answer", "shown"), [
    ("   ``y`` 是运算的结果。在 ``backward()`` 之前调用 ``retain_grad()``：", "y 是运算的结果。"),
    ("   ``y`` is the result of an operation. Call ``retain_grad()`` first:", "y is the result of an operation."),
    ("   One sentence that leads into code:", "One sentence that leads into code:"),
])
def test_a_tooltip_from_an_answer_box_keeps_the_cause_not_the_lead_in_to_the_code(answer, shown):
    assert plain_tooltip(answer) == shown


@pytest.mark.parametrize(("answer", "shown"), [
    ("   ``x``\n   本身保持原样。", "x 本身保持原样。"),
    ("   先把它设成了\n   ``None``。", "先把它设成了 None。"),
    ("   两个\n   张量共享内存。", "两个张量共享内存。"),
    ("   a wrapped\n   English line.", "a wrapped English line."),
])
def test_a_wrapped_answer_box_becomes_one_line_of_hover_text(answer, shown):
    assert plain_tooltip(answer) == shown


#: reST inline markup a reader must not meet on a card: a backquote (literal, role, link), strong
#: emphasis, a substitution reference.
RAW_REST = re.compile(r"`|\*\*|\|[a-z][a-z0-9_]*\|")
#: Titles whose literals sphinx-gallery's own clean-up leaves: one right after punctuation, and the
#: second of two one space apart. Written here, with the words the page's heading shows.
TITLES = {
    "“张量怎么还在 CPU 上”：``module.to()`` 与 ``tensor.to()``": "“张量怎么还在 CPU 上”：module.to() 与 tensor.to()",
    "Why is ``.grad`` ``None``? Gradients of non-leaf tensors": "Why is .grad None? Gradients of non-leaf tensors",
}


def _card(docstring: str) -> tuple[str, str]:
    """The title and tooltip of the card sphinx-gallery writes for a page with this docstring, after this
    site's clean-up of the examples index (its ``source-read``)."""
    intro, title = extract_intro_and_title("plot_x.py", docstring)
    source = [_thumbnail_div("/t", "/s", "plot_x.py", intro, title, check=False)]
    _source_read(None, "examples/index", source)
    shown = re.search(r'<div class="sphx-glr-thumbnail-title">(.*)</div>', source[0]).group(1)
    return shown, re.search(r'data-tooltip="([^"]*)"', source[0]).group(1)


@pytest.mark.parametrize("title", TITLES)
def test_a_card_title_shows_the_words_of_its_literals_not_the_markup(title):
    assert _card(f"{title}\n{'=' * 60}\n\nSome words.\n")[0] == TITLES[title]


def test_a_card_title_is_escaped_html_like_the_tooltip():
    assert plain_title("a < b & ``c``") == "a &lt; b &amp; c"


def test_an_english_card_title_curls_its_quotes_as_the_link_text_does_but_not_in_literals():
    title = '"My weights ``.grad`` is ``"cpu"``": the article\'s "best" weights'
    assert curly_quotes(title, "en") == "“My weights ``.grad`` is ``\"cpu\"``”: the article’s “best” weights"


def test_a_title_keeps_the_apostrophes_of_the_text_it_quotes_straight_as_torch_prints_them():
    """A quoted error keeps torch's ``Can't``: on the card, and in the title Sphinx's smart quotes curled."""
    title = 'The NumPy bridge: "Can\'t call numpy() on Tensor that requires grad"'
    assert curly_quotes(title, "en") == "The NumPy bridge: “Can't call numpy() on Tensor that requires grad”"
    assert curly_quotes("\"It's\" ``x`` isn't", "en") == "“It's” ``x`` isn’t", "only inside the quotes"
    assert straight_quoted_apostrophes(["“Can’t ", "x", "” don’t"]) == ["“Can't ", "x", "” don’t"], (
        "the quotes may open and close in different parts of a title")


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_page_title_and_its_links_keep_the_apostrophes_it_quotes_straight(tmp_path):
    """Sphinx's smart quotes curl a title's apostrophes; those of the text it quotes are made straight again, in
    the page's heading and in a link that shows the title, while the rest of the title keeps its curled ones."""
    import io

    from sphinx.testing.util import SphinxTestApp

    from tests.claims_tools import ROOT

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(f"import sys\nsys.path[:0] = [{str(ROOT)!r}, {str(EXT)!r}]\n"
                                 "extensions = ['myst_parser', 'tensorcopy_sphinx.gallery_html_fixes']\n"
                                 "language = 'en'\n", encoding="utf-8")
    (src / "bridge.md").write_text('# The bridge\'s error: "Can\'t call numpy()"\n\nText.\n', encoding="utf-8")
    (src / "index.md").write_text("# Home\n\n```{toctree}\nbridge\n```\n\nSee {doc}`bridge`.\n", encoding="utf-8")
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "build", freshenv=True, status=io.StringIO(),
                        warning=io.StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    title = "The bridge’s error: “Can't call numpy()”"
    assert title in (app.outdir / "bridge.html").read_text(encoding="utf-8")
    assert read_page(app.outdir / "index.html").select_one("p a").get_text() == title


def test_a_card_tooltip_shows_the_value_of_a_substitution():
    tooltip = _card("标题\n====\n\n本页在 torch |torch_version| 上逐条运行。\n")[1]
    assert tooltip == f"本页在 torch {version('torch')} 上逐条运行。"


def _scripts() -> list:
    return [script for lang in LANGS for script in gallery_scripts(lang)]


@pytest.mark.parametrize("script", _scripts(), ids=script_id)
def test_every_pages_card_shows_its_heading_as_docutils_renders_it_and_no_rest(script):
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")), clean=False)
    lines = docstring.strip("\n").splitlines()
    heading = next(lines[n - 1] for n, line in enumerate(lines) if n and re.fullmatch(r"=+", line))
    rendered = publish_doctree(heading, settings_overrides={"report_level": 5}).astext()
    title, tooltip = _card(docstring)
    assert title == html.escape(rendered, quote=False)
    assert not RAW_REST.search(tooltip), tooltip


def test_the_index_card_is_rewritten_with_a_plain_data_tooltip():
    source = ['<div class="sphx-glr-thumbcontainer" tooltip="把（``grad_fn``）留住">']
    _source_read(None, "examples/index", source)
    assert source == ['<div class="sphx-glr-thumbcontainer" data-tooltip="把（grad_fn）留住">']


NOTEBOOK_TEXT = """做法见 `下一页 <copying-safe-copy>`。和 `clone() 那一页 <copying-clone>` 一样，
副本仍在计算图里；
`下一页 <data-vs-detach-comparison>` 逐条检验原博文的总结。
Two English
lines.

- 第一项，
- 第二项

```python
print("中")
print("文")
```"""


def test_chinese_notebooks_lose_the_line_breaks_and_labels_a_reader_would_see():
    assert markdown_cell(NOTEBOOK_TEXT, {}, "x.ipynb", cjk=True) == (
        "做法见下一页。和 clone() 那一页一样，副本仍在计算图里；下一页逐条检验原博文的总结。Two English\nlines.\n\n"
        "- 第一项，\n- 第二项\n\n```python\nprint(\"中\")\nprint(\"文\")\n```")


def test_other_notebooks_keep_their_lines_and_lose_only_the_labels():
    assert markdown_cell("See `the next page <copying-x>`\nfor more; `x <https://a.b>`_ stays.", {}, "x.ipynb") == (
        "See the next page\nfor more; `x <https://a.b>`_ stays.")


def test_an_anonymous_link_loses_the_underscore_sphinx_gallery_leaves():
    assert markdown_cell("见 [pytorch/pytorch#83590](https://github.com/pytorch/pytorch/pull/83590)_ 取消", {},
                         "x.ipynb") == "见 [pytorch/pytorch#83590](https://github.com/pytorch/pytorch/pull/83590) 取消"


def test_a_fact_citation_leaves_no_trace_in_a_notebook():
    assert markdown_cell("尽管数值从没变过。:fact:`detach-set-keeps-version-counter`\n\n下一段", {}, "x.ipynb",
                         cjk=True) == "尽管数值从没变过。\n\n下一段"
    assert markdown_cell("in new memory.\n:fact:`a-b`\n\nNext", {}, "x.ipynb") == "in new memory.\n\nNext"
    assert markdown_cell("too. :fact:`a-b`", {}, "x.ipynb") == "too."


def test_a_quoted_paragraph_is_joined_inside_its_quote():
    admonition = ".. admonition:: 原博文与 torch |v| 对照\n   :class: warning\n\n   原文说，\n   现在不同。\n"
    assert markdown_cell(admonition, {"v": "9.9"}, "x.ipynb", cjk=True) == (
        "> **原博文与 torch 9.9 对照**\n>\n> 原文说，现在不同。")


# --- On the built site ----------------------------------------------------------------------------


def test_the_built_chinese_facts_page_has_no_ascii_colon_after_chinese_text(site_dir):
    from tests.test_fact_index import ascii_colons

    html = (site_dir / "zh_CN" / "facts.html").read_text(encoding="utf-8")
    names = {dt.get_text() for dt in read_page(site_dir / "zh_CN" / "facts.html").select("ul.fact-index dt")}
    assert names == {"本次构建：", "检查的内容：", "范围：", "引用它的页面："}, names
    assert ascii_colons(html) == []


def test_the_search_page_without_javascript_speaks_each_editions_language(site_dir):
    expected = {"en": "Please activate JavaScript to enable the search functionality.",
                "zh_CN": "请启用 JavaScript 以使用搜索功能。"}
    for lang, words in expected.items():
        noscript = read_page(site_dir / lang / "search.html").find("noscript")
        assert noscript is not None and words in " ".join(noscript.get_text().split()), (lang, noscript)


def test_the_download_note_reads_as_one_chinese_sentence(site_dir):
    page = read_page(site_dir / "zh_CN" / "examples" / "copying" / "plot_04_detach.html")
    note = " ".join(page.select_one("div.sphx-glr-download-link-note p:not(.admonition-title)").get_text().split())
    assert note == "跳到页尾下载完整的示例代码。", note


def test_the_about_pages_description_points_at_no_table(site_dir):
    descriptions = {lang: read_page(site_dir / lang / "about.html").find("meta", attrs={"name": "description"})
                    ["content"] for lang in ("en", "zh_CN")}  # fmt: skip
    assert descriptions["zh_CN"].startswith("各组件的版本号取自执行构建的解释器"), descriptions
    assert "下面这些版本" not in descriptions["zh_CN"], descriptions
    assert descriptions["en"].startswith("Each component’s version is read from the interpreter"), descriptions
    assert "executed with" not in descriptions["en"] and "above" not in descriptions["en"], descriptions


def test_the_meta_description_has_no_space_before_chinese_punctuation(site_dir):
    page = read_page(site_dir / "zh_CN" / "examples" / "copying" / "plot_04_detach.html")
    description = page.find("meta", attrs={"name": "description"})["content"]
    assert description.startswith(  # it read "。 原文说， resize_ 、 resize_as_ 、 set_ 和"
        "a.detach() 返回的张量与 a 共享内存，但不需要梯度：a 是默认 strided（稠密）布局时，"
        "通过任何一方修改数值，另一方都看得到。"
        "本页先运行原博文的例子，再检验原文的提醒：resize_、resize_as_、set_ 和 transpose_ 无论在哪一方上执行都会报错。"
    ), description


@pytest.mark.parametrize("lang", LANGS)
def test_no_examples_index_card_shows_rest_markup_in_its_title_or_tooltip(site_dir, lang):
    cards = read_page(site_dir / lang / "examples" / "index.html").select("div.sphx-glr-thumbcontainer")
    assert cards, f"{lang}/examples/index.html has no cards"
    texts = [card["data-tooltip"] for card in cards]
    texts += [card.select_one("div.sphx-glr-thumbnail-title").get_text() for card in cards]
    marked = [text for text in texts if RAW_REST.search(text) or ":ref:" in text]
    assert not marked, (lang, marked)


#: Sphinx's smart quotes curl a heading's straight quotes; a card's title keeps them.
_QUOTES = str.maketrans("‘’“”", "''\"\"")


@pytest.mark.parametrize("lang", LANGS)
def test_every_card_title_reads_as_the_title_sphinx_rendered_for_its_link(site_dir, lang):
    cards = read_page(site_dir / lang / "examples" / "index.html").select("div.sphx-glr-thumbcontainer")
    shown = [(card.select_one("div.sphx-glr-thumbnail-title").get_text().translate(_QUOTES),
              card.select_one("a").get_text().translate(_QUOTES)) for card in cards]
    assert shown and all(title == link for title, link in shown), [pair for pair in shown if pair[0] != pair[1]]


_CHINESE_END = re.compile(r"[\u4e00-\u9fff，、（“]$")
_CHINESE_START = re.compile(r"^[\u4e00-\u9fff，。、）”]")


def test_the_chinese_notebooks_keep_no_label_and_no_break_inside_a_chinese_sentence(site_dir):
    notebook = site_dir / "zh_CN" / "_downloads"
    texts = ["".join(cell["source"]) for path in notebook.rglob("plot_04_detach.ipynb")
             for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "markdown"]
    assert texts, "no notebook of copying/plot_04_detach in zh_CN/_downloads"
    text = "\n".join(texts)
    # Built without SITE_URL (as the tests build it), a reference names its page by the title it has on the site.
    title = (GALLERY / "zh_CN" / "copying" / "plot_05_rebinding.py").read_text(encoding="utf-8").splitlines()[3]
    closing = f"见《{title.replace('``', '')}》。"
    assert closing in text, f"the closing cross-reference should read {closing}"
    assert "<copying-rebinding>" not in text
    assert "(https://github.com/pytorch/pytorch/pull/83590)\n" in text  # no "_" left after the link
    # No markdown line of any Chinese notebook breaks between two Chinese characters (a reader would see a space there).
    breaks = [(path.name, before[-20:], after[:20]) for path in notebook.rglob("*.ipynb")
              for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "markdown"
              for before, after in itertools.pairwise("".join(cell["source"]).splitlines())
              if _CHINESE_END.search(before) and _CHINESE_START.search(after)]
    assert not breaks, breaks


def test_no_notebook_shows_a_fact_citation(site_dir):
    notebooks = sorted(site_dir.glob("*/_downloads/**/*.ipynb"))
    assert notebooks, "no notebooks under */_downloads"
    shown = [path.name for path in notebooks if ":fact:`" in path.read_text(encoding="utf-8")]
    assert not shown, shown


def test_the_rerun_cell_of_a_chinese_page_reports_in_chinese(site_dir):
    notebook = next((site_dir / "zh_CN" / "_downloads").rglob("plot_04_detach.ipynb"))
    code = "".join(json.loads(notebook.read_text(encoding="utf-8"))["cells"][-1]["source"])
    assert "本页的检查在 torch {torch} 上的结果（本页验证时用的是 torch {verified_on}）：" in code
    assert "'agrees': '一致'" in code and "'DIFFERS': '不一致'" in code and "'not run': '未运行'" in code
    english = next((site_dir / "en" / "_downloads").rglob("plot_04_detach.ipynb"))
    code = "".join(json.loads(english.read_text(encoding="utf-8"))["cells"][-1]["source"])
    assert "This page's checks on torch {torch} (the page was verified on torch {verified_on}):" in code
    assert "'agrees': 'agrees'" in code


#: Two full-width marks that end a sentence, side by side: what a link to a title ending in "？" before "。" shows;
#: and two parentheses side by side, "视图（view）（比如……）", where a reader takes the second for part of the gloss.
_DOUBLE_STOP = re.compile(r"[？！。][。，；？！]|）（")


def test_no_chinese_page_puts_two_sentence_ends_side_by_side(site_dir):
    """A title that ends with a question mark, linked at the end of a sentence, would show "？。"; a gloss followed by
    a parenthesis of its own would show "）（"."""
    pages = sorted((site_dir / "zh_CN").rglob("*.html"))
    assert len(pages) > 40, f"only {len(pages)} Chinese pages"
    found = [(page.relative_to(site_dir).as_posix(), match.string[max(match.start() - 20, 0):match.end()])
             for page in pages for main in read_page(page).select("article")
             for match in _DOUBLE_STOP.finditer(main.get_text())]
    assert not found, found
