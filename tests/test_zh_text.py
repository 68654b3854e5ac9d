"""The Chinese edition's generated text and narrative pages: no English prose, one spacing rule."""

from __future__ import annotations

import re

import pytest

from editions import CODES, ROOT, UnknownEdition
from sitetools.rules.zh_text import english_words, spacing_problems
from tensorfacts import articles, matrix, verdicts
from tensorfacts.model import HOLDS, Result, said

ZH = "zh_CN"


@pytest.fixture(scope="module")
def outcomes():
    return verdicts.run_all()


# --- The checkers, proven on known-bad text ---------------------------------------------------


@pytest.mark.parametrize(("text", "words"), [
    ("12 prints; last: `a: tensor([[1., 1., 1.],` …", ["prints", "last"]),
    ("7 prints, as commented", ["prints", "as"]),
    ("no error; `a.grad = [0.0]`", ["error"]),
    ("a.grad = [20.0]; true gradient [2.0]", ["true", "gradient"]),
    ("`a.grad = [20.0]`；正确的梯度是 `[2.0]`；没有报错", []),
    ("same_storage(a, c) = True", []),
    ("RuntimeError: a leaf Variable that requires grad is being used in an in-place operation", []),
])
def test_the_english_checker_finds_prose_outside_code_and_torch_messages(text, words):
    assert english_words(text) == words


@pytest.mark.parametrize(("text", "bad"), [
    ("用`clone()`复制", 2),
    ("在torch上", 2),
    ("报错： `RuntimeError`", 1),
    ("仍为 `True` 。", 1),
    ("原文的 “out” 一致", 2),
    ("用 `clone()` 复制，在 torch 2.13.0 上报错：`RuntimeError`。", 0),
    ("见{doc}`about`。又见{ref}`对应的示例 <copying-alias>`", 0),
    ("共 {total} 条，torch {{torch_version}} 上", 0),
    ("见 `Use detach() instead.`，再看", 1),
    ("文章《【pytorch】tensor的复制避坑》，链接：<https://example.org/a>。", 0),
])
def test_the_spacing_checker_finds_each_break_of_the_rule(text, bad):
    assert len(spacing_problems(text)) == bad, spacing_problems(text)


# --- The claims ledger's traces ---------------------------------------------------------------


def test_a_worded_trace_without_a_language_fails_naming_it():
    with pytest.raises(UnknownEdition, match="claim 000-x .*has no zh_CN text"):
        Result(HOLDS, {"en": "no error"}).trace(ZH, "the trace of claim 000-x")
    assert Result(HOLDS, said("no error", "没有报错")).trace(ZH) == "没有报错"


def test_every_trace_is_code_or_has_a_text_in_every_edition(outcomes):
    for outcome in outcomes:
        for code in CODES:
            assert outcome.result.trace(code, outcome.claim.id)


def test_no_chinese_trace_holds_english_prose(outcomes):
    problems = [f"{o.claim.id}: {english_words(o.result.trace(ZH))} in {o.result.trace(ZH)!r}"
                for o in outcomes if english_words(o.result.trace(ZH))]
    assert not problems, "\n".join(problems)


def ascii_separators(trace: str, worded: bool) -> list[str]:
    """The ASCII separators a Chinese reader sees in a trace: in a worded trace, ``;:,!?`` outside its
    code spans; in a trace shown as code alone, a ``;`` outside torch's own message (one piece of code
    holds one observation, so a ``;`` in it joins two with the English mark)."""
    if worded:
        return re.findall(r"[;:,!?]", re.sub(r"`[^`]*`", "", trace))
    return re.findall(";", re.sub(r"\b[A-Z]\w*(?:Error|Warning): .*", "", trace))


@pytest.mark.parametrize(("trace", "worded", "found"), [
    ("requires_grad = False; grad_fn = None", False, [";"]),
    ("`requires_grad = False`; `grad_fn = None`", True, [";"]),
    ("`a.grad = [2.0]`；正确的梯度是 `[2.0]`, 没有报错", True, [","]),
    ("`requires_grad = False`；`grad_fn = None`", True, []),
    ("tensor([1., 2.], grad_fn=<CloneBackward0>)", False, []),
    ("RuntimeError: one of the variables ... is at version 1; expected version 0 instead", False, []),
])
def test_the_separator_checker_finds_ascii_marks_outside_code(trace, worded, found):
    assert ascii_separators(trace, worded) == found


def test_every_chinese_trace_separates_its_observations_with_chinese_punctuation(outcomes):
    problems = [f"{o.claim.id}: {o.result.trace(ZH)!r}" for o in outcomes
                if ascii_separators(o.result.trace(ZH), o.result.worded)]
    assert not problems, "ASCII punctuation in the Chinese ledger's result column (use tensorfacts.model." \
                         "observed_each, or said() with ；，：):\n" + "\n".join(problems)


def test_chinese_traces_and_claims_follow_the_spacing_rule(outcomes):
    texts = [(o.claim.id, t) for o in outcomes
             for t in (o.result.trace(ZH), o.claim.text(ZH), o.claim.note(ZH))]
    problems = [f"{where}: {problem}" for where, text in texts for problem in spacing_problems(text)]
    assert not problems, "\n".join(problems)


def test_the_matrix_guide_in_chinese_follows_the_spacing_rule_and_names_backward_in_chinese():
    problems = []
    for advice in matrix.GUIDE:
        text = advice.texts[ZH]
        problems += [f"{advice.id}: {p}" for p in spacing_problems(text)]
        if "backward" in re.sub(r"`[^`]*`", "", text):  # inline code (`backward()`, `ctx.save_for_backward`) aside
            problems.append(f"{advice.id}: the bare English word backward; write 反向传播")
    assert not problems, "\n".join(problems)


# --- The narrative pages ----------------------------------------------------------------------


@pytest.mark.parametrize("page", sorted((ROOT / "docs" / ZH).glob("*.md")), ids=lambda p: p.name)
def test_chinese_narrative_pages_follow_the_spacing_rule(page):
    problems = spacing_problems(page.read_text(encoding="utf-8"))
    assert not problems, "\n".join(f"docs/{ZH}/{page.name}:{line}: {rule}: {excerpt!r}"
                                   for line, excerpt, rule in problems)


def test_ledger_section_titles_in_chinese_follow_the_spacing_rule():
    names = [n[ZH] for n in articles.SECTIONS.values()] + [t[ZH] for t in articles.ARTICLES.values()]
    problems = [(n, spacing_problems(n)) for n in names if spacing_problems(n)]
    assert not problems
