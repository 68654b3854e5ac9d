"""Every question page answers first (sitetools/rules/answer_box.py): an answer box right after the title,
of class ``answer``, whose fix code is code the page runs. The real pages pass; a page that breaks
each part of the rule is refused, by file name and with the missing line."""

import shutil
from pathlib import Path

import pytest

from sitetools.rules import all_rules, answer_box
from sitetools.rules.sources import code_cells, split_hidden
from tests.gallery_tools import ROOT

PAGE = "questions/plot_10_graph_kept_alive.py"
FIX_LINE = "total_detached += loss.detach()"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_every_question_page_answers_first():
    for lang in ("en", "zh_CN"):
        problems = answer_box.check_answers(lang, ROOT)
        assert not problems, "\n".join(problems)


def test_the_rule_reads_every_question_page():
    """The rule is not vacuous: each edition's question folder holds pages, and each has a box."""
    for lang, title in (("en", "Answer"), ("zh_CN", "答案")):
        pages = sorted((ROOT / "gallery" / lang / "questions").glob("plot_*.py"))
        assert len(pages) >= 12, pages
        for page in pages:
            assert f".. admonition:: {title}" in page.read_text(encoding="utf-8"), page


@pytest.fixture
def gallery(tmp_path) -> Path:
    shutil.copytree(ROOT / "gallery", tmp_path / "gallery", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _edit(root: Path, lang: str, old: str, new: str) -> str:
    page = root / "gallery" / lang / PAGE
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    page.write_text(text.replace(old, new), encoding="utf-8")
    return f"gallery/{lang}/{PAGE}"


def _box(lang: str) -> str:
    """The page's answer box as its source writes it: from the directive to the docstring's next paragraph."""
    text = (ROOT / "gallery" / lang / PAGE).read_text(encoding="utf-8")
    start = text.index(".. admonition::")
    end = text.index(f"{FIX_LINE}\n", start) + len(FIX_LINE) + 1
    return text[start:end]


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_copy_passes(gallery):
    """The control for the faults below."""
    assert answer_box.check_answers("en", gallery) == [] and answer_box.check_answers("zh_CN", gallery) == []


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_page_without_the_box_is_refused(gallery, lang):
    shown = _edit(gallery, lang, _box(lang), "")
    problems = answer_box.check_answers(lang, gallery)
    assert any(p.startswith(f"{shown}: the answer box is not first") for p in problems), problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_box_after_another_paragraph_is_refused(gallery, lang):
    shown = _edit(gallery, lang, _box(lang), "A paragraph first.\n\n" + _box(lang))
    problems = answer_box.check_answers(lang, gallery)
    assert any(p.startswith(f"{shown}: the answer box is not first") and "A paragraph first." in p
               for p in problems), problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_box_of_another_class_or_title_is_refused(gallery):
    shown = _edit(gallery, "en", ":class: answer", ":class: note")
    _edit(gallery, "zh_CN", ".. admonition:: 答案", ".. admonition:: Answer")
    problems = answer_box.check_answers("en", gallery) + answer_box.check_answers("zh_CN", gallery)
    assert f"{shown}: the answer box lacks ':class: answer' {answer_box.GUIDE}" in problems, problems
    assert any(p.startswith(f"gallery/zh_CN/{PAGE}: the first box is titled 'Answer'") for p in problems), problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_fix_line_the_page_does_not_run_is_named(gallery, lang):
    shown = _edit(gallery, lang, f"      {FIX_LINE}\n", f"      {FIX_LINE}\n      total_detached += loss.item()\n")
    problems = answer_box.check_answers(lang, gallery)
    assert problems == [f"{shown}: the answer's fix line 'total_detached += loss.item()' is not a line of "
                        f"the page's visible code {answer_box.GUIDE}"], problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_fix_line_that_runs_only_in_a_hidden_block_is_refused(gallery):
    line = ('assert torch.allclose(total_detached, total_loss.detach()), '
            '"the fixed total must equal the graph-carrying one"')
    script = gallery / "gallery" / "en" / PAGE
    visible = "\n".join(split_hidden(cell)[0] for cell in code_cells(script))
    assert line in script.read_text(encoding="utf-8") and line not in visible, "a line of a hidden block only"
    shown = _edit(gallery, "en", f"      {FIX_LINE}\n", f"      {FIX_LINE}\n      {line}\n")
    problems = answer_box.check_answers("en", gallery)
    assert any(shown in p and repr(line) in p for p in problems), problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_box_without_code_is_refused(gallery):
    shown = _edit(gallery, "en", "   .. code-block:: python\n", "   Example::\n")
    problems = answer_box.check_answers("en", gallery)
    assert f"{shown}: the answer box has no code block with the fix {answer_box.GUIDE}" in problems, problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize(("lang", "exception"), [
    ("en", "It holds for every optimizer, every dtype and every device the page runs, and it holds "
           "for the loss of every step, whether the loop keeps a list or a running total."),
    ("zh_CN", "这一点对本页运行过的每种优化器、每种 dtype、每种设备都成立，对每一步的损失也成立，"
              "不论循环记下的是一个列表还是一个累计值；评估循环里没有 no_grad() 时，每个保存的张量也都还留在内存里。")])
def test_a_box_that_also_holds_the_exceptions_is_refused(gallery, lang, exception):
    """The fault: a box that grows a third sentence. Its text runs past a phone's first screen."""
    box = _box(lang)
    prose_end = box.index("\n\n   .. code-block::")
    shown = _edit(gallery, lang, box, box[:prose_end] + " " + exception + box[prose_end:])
    problems = answer_box.check_answers(lang, gallery)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{shown}: the answer box's text before its code is "), problems
    assert f"over the {answer_box.BUDGET[lang]} an answer box holds" in problems[0], problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_build_runs_the_rule(gallery):
    shutil.copytree(ROOT / "docs", gallery / "docs", ignore=shutil.ignore_patterns("__pycache__", "_*"))
    shown = _edit(gallery, "en", ":class: answer", ":class: note")
    problems = all_rules.check_sources(root=gallery, manifest=False)
    assert any(p.startswith(f"{shown}: the answer box lacks") for p in problems), problems


CHECKED = "runs on the page only where it fails"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_failing_line_shown_as_the_fix_is_refused(gallery, lang):
    """The fault: the box shows the line the page runs to show the error (in a must-raise `try`), not the
    fix. It runs, and it is visible; the page checks only that it fails."""
    shown = _edit(gallery, lang, f"      {FIX_LINE}\n", "      total_loss.backward()\n")
    problems = answer_box.check_answers(lang, gallery)
    assert problems == [f"{shown}: the answer's fix line 'total_loss.backward()' {CHECKED} (inside a `try` that "
                        f"catches it) or with no visible `assert` after it in its cell: the box must show a line "
                        f"whose effect the page checks {answer_box.GUIDE}"], problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_fix_line_no_visible_assert_follows_is_refused(gallery):
    """A drawing call followed only by a hidden check: the reader sees nothing that checks it."""
    line = 'draw_graph("total_loss after five steps", total_loss)'
    shown = _edit(gallery, "en", f"      {FIX_LINE}\n", f"      {line}\n")
    problems = answer_box.check_answers("en", gallery)
    assert len(problems) == 1 and problems[0].startswith(f"{shown}: the answer's fix line {line!r} {CHECKED}"), problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_line_that_also_runs_checked_elsewhere_passes(gallery):
    """`y.sum().backward()` fails inside a `try` on plot_01 and runs again, checked, in the fix's cell."""
    page = gallery / "gallery" / "en" / "questions" / "plot_01_inplace_error.py"
    text = page.read_text(encoding="utf-8")
    assert text.count("    y.sum().backward()\n") >= 2 and "      y.sum().backward()\n" in text
    assert answer_box.check_answers("en", gallery) == []
    page.write_text(text.replace("      y.sum().backward()\n", "      r.sum().backward()\n", 1), encoding="utf-8")
    problems = answer_box.check_answers("en", gallery)
    assert len(problems) == 1 and "'r.sum().backward()' " + CHECKED in problems[0], problems


def _box_code_tokens(script: Path) -> list[list[str]]:
    """The Python tokens of each code block in the page's answer box (comments and layout left out)."""
    import ast
    import io
    import textwrap
    import tokenize

    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")), clean=False) or ""
    box = answer_box._box(answer_box._after_title(docstring))
    assert not isinstance(box, str), f"{script}: {box}"
    body = box[2]
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
               tokenize.ENDMARKER}
    found = []
    for number, line in enumerate(body):
        if line.strip().startswith(".. code-block::"):
            indent = len(line) - len(line.lstrip())
            code = []
            for inner in body[number + 1 :]:
                if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                    break
                if not inner.strip().startswith(":"):
                    code.append(inner)
            source = textwrap.dedent("\n".join(code)).strip() + "\n"
            found.append([t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                          if t.type not in skipped])
    return found


def _box_code_differences(root: Path) -> list[str]:
    problems = []
    for en in sorted((root / "gallery" / "en" / "questions").glob("plot_*.py")):
        zh = root / "gallery" / "zh_CN" / "questions" / en.name
        ours, theirs = _box_code_tokens(en), _box_code_tokens(zh)
        if not ours or ours != theirs:
            problems.append(f"questions/{en.name}: answer-box code differs between editions: {ours} != {theirs}")
    return problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_answer_boxes_show_the_same_code_in_both_editions():
    """Readers copy the box's code: the two editions show the same code, token for token, on every question page."""
    pages = sorted((ROOT / "gallery" / "en" / "questions").glob("plot_*.py"))
    assert len(pages) >= 30, pages
    problems = _box_code_differences(ROOT)
    assert not problems, "\n".join(problems)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_box_with_an_extra_code_line_in_one_edition_is_refused(gallery):
    shown = _edit(gallery, "zh_CN", f"      {FIX_LINE}\n", f"      {FIX_LINE}\n      total_detached.zero_()\n")
    problems = _box_code_differences(gallery)
    assert len(problems) == 1 and problems[0].startswith(f"questions/{Path(shown).name}"), problems
