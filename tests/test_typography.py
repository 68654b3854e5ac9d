"""The typography rules of the gallery's text cells (sitetools/rules/typography.py): inline markup that
docutils recognises, and the Chinese spacing and punctuation."""

import shutil

import pytest
from docutils import nodes
from docutils.core import publish_doctree

from sitetools.rules import sources, typography
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
    "stop-in-quoted-message": ("停在 ``in-place operation.``；只改", "an English full stop followed by Chinese"),
    "stop-then-comma": ("报错 ``Use detach() instead.``，见", "an English full stop followed by Chinese"),
    "stop-in-text": ("原文写 done.。然后", "an English full stop followed by Chinese"),
    "comma-before-or": ("每隔一个取出的元素上、或沿第二维", "an enumeration comma (、) right before"),
    "comma-before-and": ("起点不同、且同在一块存储上", "an enumeration comma (、) right before"),
    "comma-before-bing": ("复制一份、并写进去", "an enumeration comma (、) right before"),
    "comma-before-er": ("不报错、而写出错误的值", "an enumeration comma (、) right before"),
    "space-after-mid-line-fact": ("会抛出 ``RuntimeError``。:fact:`x-y` ``torch.utils`` 也不该",
                                  "a space next to full-width punctuation"),
    "space-between-two-facts": ("起因。:fact:`x-y` :fact:`y-z`\\ 下面每个", "a space next to full-width punctuation"),
    "space-before-fact": ("则可以 :fact:`x-y`。它们", "a space next to full-width punctuation"),
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
        "停在 ``in-place operation``；只改，用 ``a.data``，在 torch 2.13.0。",
        "原文说“a view of a leaf Variable ...”。",
        "元素上，或沿第二维；起点不同或同在一块存储上；输入、输出、两者都有，或者什么都没有",
        "会抛出 ``RuntimeError``。:fact:`x-y`\n``torch.utils`` 也不该",  # the citation renders nothing
        "起因。:fact:`x-y`\\ :fact:`y-z`\\ 下面每个",  # nor does reST's escaped whitespace
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
        "message-without-stop",
        "ellipsis",
        "comma-or-plain-or",
        "fact-at-line-end",
        "fact-before-escaped-space",
    ],  # fmt: skip
)
def test_the_chinese_rules_accept_good_text(text):
    assert typography.cjk_problems(text) == [], text


def test_every_gallery_text_cell_follows_the_typography_rules():
    problems = [problem for code in ("en", "zh_CN") for problem in sources.check_typography(code)]
    assert not problems, "\n".join(problems)


def test_a_fault_in_a_chinese_page_is_named_with_its_line(tmp_path):
    shutil.copytree(ROOT / "gallery", tmp_path / "gallery", ignore=shutil.ignore_patterns("__pycache__"))
    page = tmp_path / "gallery" / "zh_CN" / "copying" / "plot_01_alias_and_data.py"
    lines = page.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("# 小结"))
    lines.insert(index + 3, "# 见 ``b``（下）与``a``。")
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = sources.check_typography("zh_CN", tmp_path)
    where = f"gallery/zh_CN/copying/plot_01_alias_and_data.py:{index + 4}:"
    assert any(p.startswith(where) and "'（' right after ``b``" in p for p in problems), problems
    assert any(p.startswith(where) and "no space between Chinese" in p for p in problems), problems
    assert all("(see CONTRIBUTING.md, 'Typography')" in p for p in problems), problems


# --- Line breaks inside a Chinese sentence ----------------------------------------------------------


@pytest.mark.parametrize(("text", "markdown", "lines"), [
    ("所用的版本，\n写在上方。", False, [1]),  # punctuation, then a Chinese character
    ("一个是连续的\n另一个不是", False, [1]),  # two Chinese characters
    ("“—”表示\n  源张量没有步长", True, [1]),  # an indented list item's next line
    ("说的是\n“原地操作”", False, [1]),  # a Chinese quotation mark
    ("第一段。\n\n第二段。\n第三行", False, [3]),  # a blank line ends a paragraph
    ("起因。{fact}`x-y`\n下面每个", True, [1]),  # a citation renders nothing
    ("起因。:fact:`x-y`\n下面每个", False, [1]),
    ("执行同样的\n`fill_(-1)`，会报错", True, []),  # Chinese, then code: the break stays a space
    ("用 ``clone()``\n复制", False, []),
    ("It is\nfine.", False, []),
    ("# 标题\n正文", True, []),  # a heading is a block of its own
    ("% 注释\n正文", True, []),
    ("```python\nprint(\"中\")  # 中\n# 文\n```\n正文", True, []),  # code keeps its lines
    ("```{doctest}\n>>> 1  # 一\n# 二\n```", True, []),
    ("```{admonition} 本页\n这一句，\n没写完\n```", True, [2]),  # an admonition's text is prose
])
def test_the_line_break_rule_refuses_a_break_between_two_chinese_marks(text, markdown, lines):
    assert [line for line, _ in typography.linebreak_problems(text, markdown)] == lines, text


def test_a_line_break_in_a_chinese_narrative_page_is_named_with_its_file_and_line(tmp_path):
    for folder in ("gallery", "docs"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    page = tmp_path / "docs" / "zh_CN" / "views.md"
    lines = page.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("上面两张表的每个单元格"))
    lines[index] = lines[index].replace("运行该操作，", "运行该操作，\n")
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cell = tmp_path / "gallery" / "zh_CN" / "copying" / "plot_01_alias_and_data.py"
    text = cell.read_text(encoding="utf-8")
    cut = "每个画图的页面都带着同一段代码，"
    cell.write_text(text.replace(cut, cut + "\n# ", 1), encoding="utf-8")
    problems = [p for p in sources.check_typography("zh_CN", tmp_path) if "a line break between" in p]
    assert [p.split(": a line break")[0] for p in problems] == [
        f"gallery/zh_CN/copying/plot_01_alias_and_data.py:{text[:text.index('每个画图的页面')].count(chr(10)) + 1}",
        f"docs/zh_CN/views.md:{index + 1}",
    ], problems
    assert all("(see CONTRIBUTING.md, 'Typography')" in p for p in problems), problems


def test_a_comma_before_a_conjunction_in_a_chinese_narrative_page_is_named_with_its_file_and_line(tmp_path):
    for folder in ("gallery", "docs"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    page = tmp_path / "docs" / "zh_CN" / "ledger.md"
    lines = page.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if "两个张量的存储起点不同，或同在" in line)
    lines[index] = lines[index].replace("起点不同，或同在", "起点不同、或同在")
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = [p for p in sources.check_typography("zh_CN", tmp_path) if "an enumeration comma" in p]
    assert [p.split(": an enumeration comma")[0] for p in problems] == [f"docs/zh_CN/ledger.md:{index + 1}"], problems
    assert "(see CONTRIBUTING.md, 'Typography')" in problems[0], problems
    assert typography.conjunction_problems("一、二\n三、或四") == [(2, typography.CONJUNCTION[1] + ": …三、或四…")]


# --- Title underlines ------------------------------------------------------------------------------

TITLES = ["Copies", "张量的复制", "``detach()``：同一块内存", "“引号”与 NumPy", "é"]


def _docutils_warns_short(title: str, length: int) -> bool:
    """Whether docutils itself reports the underline of ``length`` as too short for ``title``."""
    from io import StringIO

    warnings = StringIO()
    publish_doctree(f"{title}\n{'=' * length}\n\nText.\n",
                    settings_overrides={"report_level": 2, "warning_stream": warnings})  # fmt: skip
    return "underline too short" in warnings.getvalue()


@pytest.mark.parametrize("title", TITLES)
def test_the_underline_width_is_the_width_docutils_measures(title):
    """The width the rule asks for is the shortest underline docutils accepts (a Chinese character and a
    full-width mark count two columns; “ and ” are of ambiguous width, which counts one)."""
    [(_, message)] = typography.underline_problems(f"{title}\n{'=' * 80}\n")
    width = int(message.split(" columns wide")[0].rsplit(" ", 1)[1])
    assert not _docutils_warns_short(title, width)
    assert _docutils_warns_short(title, width - 1) or width - 1 < 4  # docutils treats a 1-3 line as text
    assert typography.underline_problems(f"{title}\n{'=' * width}\n") == []


def test_the_expected_widths_are_east_asian_widths():
    # Written out by hand: Chinese characters and full-width punctuation two columns, the rest one.
    assert [typography.underline_problems(f"{t}\n{'-' * 80}\n")[0][1].split(" columns")[0].rsplit(" ", 1)[1]
            for t in TITLES] == ["6", "10", "24", "14", "1"]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["标题\n------\n", "标题\n---\n", "Title\n======\n", "=======\nTitle\n=====\n"],
    ids=["too-long", "too-short", "ascii-too-long", "overline"],
)
def test_an_underline_of_another_width_is_named(text):
    problems = typography.underline_problems(text)
    assert problems and all("make it" in message for _, message in problems), problems


@pytest.mark.parametrize(
    "text",
    ["标题\n----\n", "text\n\n----\n\nmore\n", "    indented\n    ------\n", "a | b\n===== =====\n"],
    ids=["exact", "transition", "indented-literal", "table"],
)
def test_other_lines_of_punctuation_are_left_alone(text):
    assert typography.underline_problems(text) == []


#: Text cells citing named facts (the ``fact`` role renders nothing on an example page).
CITATION_CASES = {
    "alone-in-brackets": "It returns itself (:fact:`a-b`).",
    "two-alone-in-brackets": "它返回本身（:fact:`a` :fact:`b`）。",
    "first-in-brackets": "By the strides (:fact:`a`; ``flatten`` too).",
    "last-in-brackets": "见下文（见 ``x``；:fact:`a`）。",
    "after-the-sentence": "It returns itself. :fact:`a-b` Next.",
    "after-words-in-brackets": "It returns itself (checked: ``x``) :fact:`a`.",
    "chinese-after-the-sentence": "返回张量本身。:fact:`a`\\ 在这些张量上",
}


def _shown_without_citations(text: str) -> str:
    """The paragraph's text as docutils renders it when the ``fact`` role renders nothing (registered for this
    parse only: Sphinx's own namespace is restored after, so a later Sphinx app in this process registers it anew)."""
    from docutils.parsers.rst import roles
    from sphinx.util.docutils import docutils_namespace

    with docutils_namespace():
        roles.register_local_role("fact", lambda *args, **kwargs: ([], []))
        return publish_doctree(text, settings_overrides={"report_level": 5}).astext()


@pytest.mark.parametrize("text", CITATION_CASES.values(), ids=CITATION_CASES.keys())
def test_the_citation_rule_finds_exactly_the_brackets_left_empty(text):
    """The rule reports a problem exactly where docutils, rendering the citations as nothing, leaves empty
    brackets or a separator right after an opening or right before a closing bracket."""
    shown = "".join(_shown_without_citations(text).split())
    emptied = any(pair in shown for pair in ("()", "（）", "(;", "（；", ";)", "；）"))
    assert (typography.bracket_problems(text) != []) == emptied, (text, shown)


def test_a_citation_problem_names_its_line_and_what_shows():
    [(line, message)] = typography.bracket_problems("first line\nit returns itself (:fact:`a-b`).")
    assert line == 2 and "'()'" in message and ":fact:`a-b`" in message
