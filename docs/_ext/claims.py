"""Every factual claim of the two source articles, each with a check that runs real tensors.

This module is pure Python (it imports torch, never Sphinx), so it can be imported by the
``claims_ledger`` extension, by the tests, and run from the command line::

    python docs/_ext/claims.py                    # print every verdict, compare with the baseline
    python docs/_ext/claims.py --update-baseline  # record the current verdicts as the new baseline

A claim is a row of the ledger: its text in both languages, where it comes from (article and
section) and the gallery page that demonstrates it. Its verdict is never written down here: it is
what the claim's check function returns when it runs on the installed torch. The baseline file
(``docs/_data/claim_verdicts.json``) records the verdicts a maintainer last reviewed; the ledger
extension warns about every claim whose computed verdict differs from it, so a new torch that
changes a verdict fails the build until the pages have been re-read and the baseline refreshed.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import dataclasses
import io
import json
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import torch

#: The three verdicts a check may return.
HOLDS = "holds"
DOES_NOT_HOLD = "does-not-hold"
OUTPUT_DIFFERS = "output-differs"
VERDICTS = (HOLDS, DOES_NOT_HOLD, OUTPUT_DIFFERS)

#: The recorded baseline of reviewed verdicts, keyed by claim id.
BASELINE = Path(__file__).resolve().parents[1] / "_data" / "claim_verdicts.json"

#: The two articles, as the ledger names them.
ARTICLES = {
    "000": {
        "en": "Tensor copying pitfalls",
        "zh_CN": "tensor 的复制避坑",
    },
    "004": {
        "en": ".data vs. detach()",
        "zh_CN": "data 与 detach",
    },
}

#: The sections of each article, keyed by (article, section id).
SECTIONS = {
    ("000", "origin"): {"en": "Where the problem came from", "zh_CN": "问题来源"},
    ("000", "safest"): {"en": "The safest way", "zh_CN": "最保险的办法"},
    ("000", "clone"): {"en": "1: tensor.clone()", "zh_CN": "1: tensor.clone()"},
    ("000", "detach"): {"en": "2: tensor.detach()", "zh_CN": "2: tensor.detach()"},
    ("000", "note"): {"en": "But note", "zh_CN": "但是要注意"},
    ("000", "also"): {"en": "Also", "zh_CN": "还有"},
    ("004", "intro"): {"en": "Introduction", "zh_CN": "引言"},
    ("004", "data"): {"en": "data", "zh_CN": "data"},
    ("004", "data-points"): {"en": "data, points (1) and (2)", "zh_CN": "data 的 (1)(2) 两点"},
    ("004", "detach"): {"en": "detach()", "zh_CN": "detach()"},
    ("004", "detach-points"): {
        "en": "Two points on detach()",
        "zh_CN": "tensor.detach() 的两点总结",
    },
    ("004", "summary"): {"en": "Summary of the differences", "zh_CN": "区别总结"},
}

#: The gallery pages a claim may link to (reference labels, the same in both languages).
GALLERY_LABELS = (
    "copying-alias",
    "copying-safe-copy",
    "copying-clone",
    "copying-detach",
    "copying-rebinding",
    "copying-add-rebinding",
    "data-vs-detach-data",
    "data-vs-detach-detach",
    "data-vs-detach-comparison",
)


@dataclasses.dataclass(frozen=True)
class Claim:
    """One row of the ledger. Inline code in ``en`` and ``zh_CN`` is written between backticks."""

    id: str
    article: str
    section: str
    en: str
    zh_CN: str
    gallery: str

    def text(self, language: str) -> str:
        return self.zh_CN if language == "zh_CN" else self.en


@dataclasses.dataclass(frozen=True)
class Result:
    """What a check returns: a verdict, and a short, language-neutral trace of what torch did."""

    verdict: str
    observed: str


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What running one check produced: a result, or the reason there is none."""

    claim: Claim
    result: Result | None
    problem: str | None = None

    @property
    def verdict(self) -> str | None:
        return self.result.verdict if self.result else None


# ---------------------------------------------------------------------------------------------
# The article's code, as the articles print it (comments with outputs removed, see below).
# ---------------------------------------------------------------------------------------------

#: The loop of article 000 exactly as printed: its indentation was lost.
LOOP_AS_PRINTED = """\
a = torch.zeros(2, 3)
for i in range(2):
for j in range(3):
b = a.data
b[i, j] = 1
print("b:", b)
print("a:", a)
"""

#: The same loop with the only indentation that makes it valid Python.
LOOP_RESTORED = """\
a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a.data
        b[i, j] = 1
        print("b:", b)
        print("a:", a)
"""

#: The "out" block under the loop, as the article pastes it.
LOOP_OUT = """\
b: tensor([[1., 0., 0.],
[0., 0., 0.]])
a: tensor([[1., 0., 0.],
[0., 0., 0.]])
b: tensor([[1., 1., 0.],
[0., 0., 0.]])
a: tensor([[1., 1., 0.],
[0., 0., 0.]])
b: tensor([[1., 1., 1.],
[0., 0., 0.]])
a: tensor([[1., 1., 1.],
[0., 0., 0.]])
b: tensor([[1., 1., 1.],
[1., 0., 0.]])
a: tensor([[1., 1., 1.],
[1., 0., 0.]])
b: tensor([[1., 1., 1.],
[1., 1., 0.]])
a: tensor([[1., 1., 1.],
[1., 1., 0.]])
b: tensor([[1., 1., 1.],
[1., 1., 1.]])
a: tensor([[1., 1., 1.],
[1., 1., 1.]])
"""

#: Article 000, section 1 (clone). Each ``print`` carries the output the article's comment shows.
CLONE_EXAMPLE = """\
a = torch.tensor([1,2,3], requires_grad=True, dtype=torch.float32)
c = a.clone()
b = (a**2).sum()
b.backward()
print(a)
print(c)
print(a.grad)
print(c.grad)
print(a.requires_grad)
print(c.requires_grad)
a = 1
print(c)
"""
CLONE_COMMENTS = (
    "tensor([1., 2., 3.], requires_grad=True)",
    "tensor([1., 2., 3.], grad_fn=<CloneBackward>)",
    "tensor([2., 4., 6.])",
    "None",
    "True",
    "True",
    "tensor([1., 2., 3.], grad_fn=<CloneBackward>)",
)

#: Article 000, section 2 (detach), same layout.
DETACH_EXAMPLE = CLONE_EXAMPLE.replace("c = a.clone()", "c = a.detach()")
DETACH_COMMENTS = (
    "tensor([1., 2., 3.], requires_grad=True)",
    "tensor([1., 2., 3.])",
    "tensor([2., 4., 6.])",
    "None",
    "True",
    "False",
    "tensor([1., 2., 3.])",
)

#: Article 000, "But note". The article leaves ``a[1,2] = 0`` commented out.
NOTE_EXAMPLE = """\
a = torch.ones(2,2)
a.requires_grad = True
c = a.detach()
#a[1,2] = 0
print(c)
print(a)
b = (a*2).sum()
b.backward()
print(a.grad)
a = a - a.grad
print(a)
print(c)
"""
NOTE_PRINT_C_COMMENT = "tensor([1., 2., 3.])"
NOTE_OUT = """\
tensor([[1., 1.],
[1., 1.]])
tensor([[1., 1.],
[1., 1.]], requires_grad=True)
tensor([[2., 2.],
[2., 2.]])
tensor([[-1., -1.],
[-1., -1.]], grad_fn=<SubBackward0>)
tensor([[1., 1.],
[1., 1.]])
"""

#: Article 000, "Also".
ALSO_EXAMPLE = """\
a = torch.ones(2,2)
a.requires_grad = True
c = a
a = a + 1
print(a)
print(c)
"""
ALSO_OUT = """\
tensor([[2., 2.],
[2., 2.]], grad_fn=<AddBackward0>)
tensor([[1., 1.],
[1., 1.]], requires_grad=True)
"""

#: Article 004: the ``.data`` example (``detach`` replaces ``data`` for the second one).
DATA_EXAMPLE = """\
a = torch.tensor([1,2,3.], requires_grad = True)
out = a.sigmoid()
c = out.data
c.zero_()
print(c.requires_grad)
print(c)
print(out.requires_grad)
print(out)
print("----------------------------------------------")
out.sum().backward()
print(a.grad)
"""
DATA_OUT = """\
False
tensor([0., 0., 0.])
True
tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)
----------------------------------------------
tensor([0., 0., 0.])
"""
DETACH_004_EXAMPLE = DATA_EXAMPLE.replace("c = out.data", "c = out.detach()")
DETACH_004_OUT = """\
False
tensor([0., 0., 0.])
True
tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)
----------------------------------------------
"""
DETACH_004_ERROR = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by "
    "an inplace operation"
)


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def same_storage(x: torch.Tensor, y: torch.Tensor) -> bool:
    """True when two tensors look at the same memory (compares addresses, never prints them)."""
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def first_sentence(message: str) -> str:
    """The first sentence of a torch message (the rest may name paths of the machine that built torch)."""
    return re.split(r"\.\s", message.strip(), maxsplit=1)[0].rstrip(".")


def _lines(text: str) -> list[str]:
    """Lines with their leading/trailing blanks removed (the articles lost their indentation)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


@dataclasses.dataclass
class Run:
    """What running a snippet produced: one string per ``print`` call, warnings, error, names."""

    prints: list[str]
    warnings: list[str]
    error: BaseException | None
    names: dict

    @property
    def text(self) -> str:
        return "\n".join(self.prints)


def run_snippet(source: str, name: str = "article") -> Run:
    """Execute a snippet of article code; record each ``print`` call and every warning."""
    prints: list[str] = []

    def recording_print(*args, **kwargs):
        buffer = io.StringIO()
        builtins.print(*args, **{**kwargs, "file": buffer})
        prints.append(buffer.getvalue().rstrip("\n"))

    names = {"torch": torch, "print": recording_print}
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(compile(source, name, "exec"), names)
        except Exception as exc:  # the caller decides what an error means
            error = exc
    found = [f"{w.category.__name__}: {first_sentence(str(w.message))}" for w in caught]
    return Run(prints, found, error, names)


def run_clean(source: str) -> Run:
    """Run a snippet that must not raise: an error there is a failure of the check itself."""
    run = run_snippet(source)
    if run.error is not None:
        raise run.error
    return run


def compare_output(expected: str, actual: str) -> str:
    """HOLDS when the two outputs agree line by line (indentation aside), else OUTPUT_DIFFERS."""
    return HOLDS if _lines(expected) == _lines(actual) else OUTPUT_DIFFERS


def first_difference(expected: str, actual: str) -> str:
    """The first line of ``actual`` that is not the article's (for the ledger's trace column)."""
    for want, got in zip(_lines(expected), _lines(actual), strict=False):
        if want != got:
            return got
    exp, act = _lines(expected), _lines(actual)
    if len(act) > len(exp):
        return act[len(exp)]
    if len(act) < len(exp):
        return f"(missing) {exp[len(act)]}"
    return _lines(actual)[-1] if act else ""


def pasted_output(expected: str, run: Run) -> Result:
    """Compare what the snippet printed with the output the article pasted."""
    outcome = compare_output(expected, run.text)
    trace = f"{len(run.prints)} prints, as pasted" if outcome == HOLDS else first_difference(expected, run.text)
    return Result(outcome, trace)


def verdict(condition: bool) -> str:
    return HOLDS if condition else DOES_NOT_HOLD


def _grad_fn_name(t: torch.Tensor) -> str:
    return type(t.grad_fn).__name__ if t.grad_fn is not None else "None"


def _error_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"


# ---------------------------------------------------------------------------------------------
# Claims and their checks
# ---------------------------------------------------------------------------------------------

CLAIMS: list[Claim] = []
CHECKS: dict[str, Callable[[], Result]] = {}


def claim(
    claim_id: str, article: str, section: str, gallery: str, en: str, zh: str
) -> Callable[[Callable[[], Result]], Callable[[], Result]]:
    """Declare a claim; the decorated function is its check."""
    entry = Claim(claim_id, article, section, en, zh, gallery)
    CLAIMS.append(entry)

    def register(check: Callable[[], Result]) -> Callable[[], Result]:
        CHECKS[claim_id] = check
        return check

    return register


# --- Article 000, where the problem came from ---------------------------------------------------


@claim(
    "000-loop-runs-as-printed", "000", "origin", "copying-alias",
    "The loop that opens the article is printed as Python that runs.",
    "开头的循环代码按原样就能运行。",
)
def _loop_runs_as_printed() -> Result:
    try:
        compile(LOOP_AS_PRINTED, "article", "exec")
    except SyntaxError as exc:
        # Restoring the indentation must be the only fix needed: the restored loop runs.
        restored = run_snippet(LOOP_RESTORED)
        if restored.error is not None:
            raise restored.error from exc
        return Result(DOES_NOT_HOLD, f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})")
    run = run_snippet(LOOP_AS_PRINTED)
    return Result(verdict(run.error is None), "compiles")


@claim(
    "000-loop-output", "000", "origin", "copying-alias",
    "With its indentation restored, the loop prints the article's “out” block: `a` fills with "
    "ones along with `b`.",
    "补回缩进后，循环的输出与原文的 “out” 一致：`b` 被逐个写成 1，`a` 也跟着变。",
)
def _loop_output() -> Result:
    run = run_clean(LOOP_RESTORED)
    outcome = compare_output(LOOP_OUT, run.text)
    return Result(outcome, f"{len(run.prints)} prints; last: {run.prints[-1].splitlines()[0]} …")


@claim(
    "000-data-not-new-memory", "000", "origin", "copying-alias",
    "`b = a.data` gives `b` no memory of its own: writing into `b` changes `a`.",
    "`b = a.data` 并没有给 `b` 开辟新内存：修改 `b`，`a` 也会变。",
)
def _data_not_new_memory() -> Result:
    a = torch.zeros(2, 3)
    b = a.data
    b[0, 1] = 1
    shared = same_storage(a, b)
    return Result(verdict(shared and a[0, 1].item() == 1), f"same_storage(a, b) = {shared}; "
                  f"a[0, 1] = {a[0, 1].item()} after b[0, 1] = 1")


@claim(
    "000-alias-and-data-linked", "000", "origin", "copying-alias",
    "Whether `b = a` or `b = a.data`, `a` and `b` stay linked.",
    "无论 `b = a` 还是 `b = a.data`，`a` 和 `b` 的联系都没有断开。",
)
def _alias_and_data_linked() -> Result:
    a = torch.zeros(3)
    alias = a
    data = a.data
    alias[0] = 1
    data[1] = 2
    linked = a.tolist() == [1.0, 2.0, 0.0] and same_storage(a, data)
    return Result(verdict(linked and alias is a),
                  f"b is a: {alias is a}; a after both writes: {a.tolist()}")


# --- Article 000, the safest way -----------------------------------------------------------------


@claim(
    "000-detach-clone-leaves-graph", "000", "safest", "copying-safe-copy",
    "`a.detach().clone()` leaves the computation graph.",
    "`a.detach().clone()` 脱离了计算图。",
)
def _detach_clone_leaves_graph() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = (a * 2).detach().clone()
    out = not b.requires_grad and b.grad_fn is None
    return Result(verdict(out),
                  f"requires_grad = {b.requires_grad}; grad_fn = {_grad_fn_name(b)}")


@claim(
    "000-detach-clone-own-memory", "000", "safest", "copying-safe-copy",
    "`a.detach().clone()` shares no memory with `a`.",
    "`a.detach().clone()` 与 `a` 不共享内存。",
)
def _detach_clone_own_memory() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.detach().clone()
    b[0] = 100
    shared = same_storage(a, b)
    return Result(verdict(not shared and a[0].item() == 1.0),
                  f"same_storage(a, b) = {shared}; a[0] = {a[0].item()} after b[0] = 100")


# --- Article 000, 1: tensor.clone() --------------------------------------------------------------


@claim(
    "000-clone-identical", "000", "clone", "copying-clone",
    "`clone()` returns a tensor identical to the original.",
    "`clone()` 返回一个完全相同的 tensor。",
)
def _clone_identical() -> Result:
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    c = a.clone()
    same = torch.equal(a, c) and c.dtype == a.dtype and c.shape == a.shape
    return Result(verdict(same), f"torch.equal(a, c) = {torch.equal(a, c)}; dtype = {c.dtype}")


@claim(
    "000-clone-new-memory", "000", "clone", "copying-clone",
    "The clone gets new memory of its own.",
    "clone 出来的新 tensor 开辟了新的内存。",
)
def _clone_new_memory() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0])
    c = a.clone()
    c[0] = 100
    shared = same_storage(a, c)
    return Result(verdict(not shared and a[0].item() == 1.0),
                  f"same_storage(a, c) = {shared}; a[0] = {a[0].item()} after c[0] = 100")


@claim(
    "000-clone-in-graph", "000", "clone", "copying-clone",
    "The clone stays in the computation graph.",
    "clone 出来的新 tensor 仍然留在计算图中。",
)
def _clone_in_graph() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    if c.requires_grad:  # otherwise backward() would raise: nothing to flow back
        (c * 3).sum().backward()
    flows = a.grad is not None and a.grad.tolist() == [3.0, 3.0, 3.0]
    return Result(verdict(c.grad_fn is not None and flows),
                  f"c.grad_fn = {_grad_fn_name(c)}; a.grad after (c * 3).sum().backward() = "
                  f"{a.grad.tolist() if a.grad is not None else None}")


@claim(
    "000-clone-not-leaf", "000", "clone", "copying-clone",
    "The clone can no longer take part in gradient computation as a leaf: it is not a leaf, "
    "and `backward()` leaves its `.grad` empty.",
    "这个新 tensor 不能再作为叶子节点参与梯度运算：它不是叶子，`backward()` 后它的 `.grad` 为空。",
)
def _clone_not_leaf() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    if c.requires_grad:
        (c**2).sum().backward()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")  # reading .grad of a non-leaf warns; that is not this claim
        grad = c.grad
    return Result(verdict(not c.is_leaf and grad is None),
                  f"c.is_leaf = {c.is_leaf}; c.grad = {grad}")


def _clone_example_print(index: int) -> Result:
    run = run_clean(CLONE_EXAMPLE)
    return Result(compare_output(CLONE_COMMENTS[index], run.prints[index]), run.prints[index])


@claim(
    "000-clone-print-a", "000", "clone", "copying-clone",
    "In the clone example, `print(a)` shows `tensor([1., 2., 3.], requires_grad=True)`.",
    "clone 例子中，`print(a)` 输出 `tensor([1., 2., 3.], requires_grad=True)`。",
)
def _clone_print_a() -> Result:
    return _clone_example_print(0)


@claim(
    "000-clone-print-c", "000", "clone", "copying-clone",
    "`print(c)` shows `tensor([1., 2., 3.], grad_fn=<CloneBackward>)` (before and after `a = 1`).",
    "`print(c)` 输出 `tensor([1., 2., 3.], grad_fn=<CloneBackward>)`（`a = 1` 前后各一次）。",
)
def _clone_print_c() -> Result:
    run = run_clean(CLONE_EXAMPLE)
    both = (run.prints[1], run.prints[6])
    agree = all(compare_output(CLONE_COMMENTS[1], got) == HOLDS for got in both)
    return Result(HOLDS if agree else OUTPUT_DIFFERS, run.prints[1])


@claim(
    "000-clone-print-a-grad", "000", "clone", "copying-clone",
    "`print(a.grad)` shows `tensor([2., 4., 6.])`.",
    "`print(a.grad)` 输出 `tensor([2., 4., 6.])`。",
)
def _clone_print_a_grad() -> Result:
    return _clone_example_print(2)


@claim(
    "000-clone-print-c-grad", "000", "clone", "copying-clone",
    "`print(c.grad)` shows `None`, and nothing else.",
    "`print(c.grad)` 输出 `None`，别无其他。",
)
def _clone_print_c_grad() -> Result:
    run = run_clean(CLONE_EXAMPLE)
    printed = run.prints[3]
    if printed != CLONE_COMMENTS[3]:
        return Result(DOES_NOT_HOLD, printed)
    if run.warnings:
        return Result(OUTPUT_DIFFERS, f"{printed}, plus {run.warnings[0]}")
    return Result(HOLDS, printed)


@claim(
    "000-clone-print-requires-grad", "000", "clone", "copying-clone",
    "`print(a.requires_grad)` and `print(c.requires_grad)` both show `True`.",
    "`print(a.requires_grad)` 和 `print(c.requires_grad)` 都输出 `True`。",
)
def _clone_print_requires_grad() -> Result:
    run = run_clean(CLONE_EXAMPLE)
    got = run.prints[4:6]
    agree = got == list(CLONE_COMMENTS[4:6])
    return Result(HOLDS if agree else OUTPUT_DIFFERS, " / ".join(got))


@claim(
    "000-clone-rebind-keeps-c", "000", "clone", "copying-clone",
    "After `a = 1`, the value of `c` has not changed.",
    "执行 `a = 1` 之后，`c` 的值并没有改变。",
)
def _clone_rebind_keeps_c() -> Result:
    run = run_clean(CLONE_EXAMPLE)
    c = run.names["c"]
    unchanged = c.tolist() == [1.0, 2.0, 3.0] and run.names["a"] == 1
    return Result(verdict(unchanged), f"c.tolist() = {c.tolist()}")


@claim(
    "000-clone-unrelated", "000", "clone", "copying-clone",
    "The clone and the original variable have nothing to do with each other.",
    "clone 出来的新变量和原来的变量没有任何关系。",
)
def _clone_unrelated() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    reaches_a = c.grad_fn is not None and any(
        fn is not None and type(fn).__name__ == "AccumulateGrad" and fn.variable is a
        for fn, _ in c.grad_fn.next_functions)
    if c.requires_grad:
        c.sum().backward()
    grad = a.grad.tolist() if a.grad is not None else None
    return Result(verdict(not reaches_a and grad is None),
                  f"c.grad_fn.next_functions → a: {reaches_a}; a.grad after c.sum().backward() "
                  f"= {grad}")


@claim(
    "000-clone-requires-grad-follows", "000", "clone", "copying-clone",
    "If `a.requires_grad` is `True`, the clone's `requires_grad` is `True` too.",
    "如果 `a.requires_grad=True`，clone 出来的 `c.requires_grad` 也是 `True`。",
)
def _clone_requires_grad_follows() -> Result:
    follows = []
    for flag in (True, False):
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=flag)
        follows.append(a.clone().requires_grad == flag)
    return Result(verdict(all(follows)), f"clone().requires_grad follows a: {follows}")


@claim(
    "000-clone-grads-unrelated", "000", "clone", "copying-clone",
    "The gradients of `a` and of its clone have nothing to do with each other.",
    "`a` 和它的 clone 两者的梯度没有任何关系。",
)
def _clone_grads_unrelated() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    loss = (c * torch.tensor([10.0, 20.0, 30.0])).sum()
    if loss.requires_grad:
        loss.backward()
    grad = a.grad.tolist() if a.grad is not None else None
    return Result(verdict(grad is None),
                  f"a.grad after (c * [10, 20, 30]).sum().backward() = {grad}")


# --- Article 000, 2: tensor.detach() -------------------------------------------------------------


@claim(
    "000-detach-identical", "000", "detach", "copying-detach",
    "`detach()` returns a tensor with the same values as the original.",
    "`detach()` 返回一个值完全相同的 tensor。",
)
def _detach_identical() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    return Result(verdict(torch.equal(a, c) and c.dtype == a.dtype),
                  f"torch.equal(a, c) = {torch.equal(a, c)}")


@claim(
    "000-detach-shares-memory", "000", "detach", "copying-detach",
    "The detached tensor shares memory with the original (stated twice).",
    "detach 得到的新 tensor 与旧 tensor 共享内存（原文说了两次）。",
)
def _detach_shares_memory() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    shared = same_storage(a, c)
    return Result(verdict(shared), f"same_storage(a, c) = {shared}")


@claim(
    "000-detach-leaves-graph", "000", "detach", "copying-detach",
    "The detached tensor leaves the computation graph and takes no part in gradient computation.",
    "detach 得到的新 tensor 会脱离计算图，不牵扯梯度计算。",
)
def _detach_leaves_graph() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = (a * 2).detach()
    (c * a).sum().backward()  # c enters this graph as a constant: a.grad is c, nothing flows into c
    out = not c.requires_grad and c.grad_fn is None and a.grad.tolist() == [2.0, 4.0, 6.0]
    return Result(verdict(out), f"requires_grad = {c.requires_grad}; grad_fn = {_grad_fn_name(c)}")


@claim(
    "000-detach-metadata-ops-error", "000", "detach", "copying-detach",
    "In-place `resize_`, `resize_as_`, `set_` or `transpose_` on either of the two tensors "
    "raises an error.",
    "原地操作 `resize_`、`resize_as_`、`set_`、`transpose_` 在两者任意一个上执行都会报错。",
)
def _detach_metadata_ops_error() -> Result:
    ops = {
        "resize_": lambda t: t.resize_(4),
        "resize_as_": lambda t: t.resize_as_(torch.zeros(4)),
        "set_": lambda t: t.set_(torch.zeros(4)),
        "transpose_": lambda t: t.transpose_(0, 1),
    }
    allowed = []
    for name, op in ops.items():
        for who in ("detached", "original"):
            x = torch.ones(2, 2, requires_grad=True)
            a = x * 2  # a non-leaf original, so the leaf rule does not hide the answer
            c = a.detach()
            try:
                op(c if who == "detached" else a)
            except RuntimeError:
                continue
            allowed.append(f"{'c' if who == 'detached' else 'a'}.{name}")
    if not allowed:
        return Result(HOLDS, "all eight calls raise RuntimeError")
    return Result(DOES_NOT_HOLD, "no error: " + ", ".join(allowed))


@claim(
    "000-detach-prints", "000", "detach", "copying-detach",
    "In the detach example, the comments show what each `print` writes: `a`, `c` without "
    "`grad_fn`, `a.grad` = `tensor([2., 4., 6.])`, `c.grad` = `None`, `True`, `False`, "
    "and `c` again after `a = 1`.",
    "detach 例子中，各行注释就是 `print` 的输出：`a`、不带 `grad_fn` 的 `c`、"
    "`a.grad` 为 `tensor([2., 4., 6.])`、`c.grad` 为 `None`、`True`、`False`，以及 `a = 1` 后的 `c`。",
)
def _detach_prints() -> Result:
    run = run_clean(DETACH_EXAMPLE)
    expected = "\n".join(DETACH_COMMENTS)
    outcome = compare_output(expected, run.text)
    if outcome == HOLDS and run.warnings:
        outcome = OUTPUT_DIFFERS
    trace = f"{len(run.prints)} prints, as commented" if outcome == HOLDS else (
        first_difference(expected, run.text) + (f"; {run.warnings[0]}" if run.warnings else ""))
    return Result(outcome, trace)


@claim(
    "000-detach-edit-propagates", "000", "detach", "copying-detach",
    "`detach()` does not cut `a` and `c` apart: changing `c` changes `a`.",
    "`detach()` 不会切断 `a` 和 `c` 的联系：改变 `c` 的值，`a` 也会改变。",
)
def _detach_edit_propagates() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    c[0] = 100
    return Result(verdict(a[0].item() == 100.0), f"a[0] = {a[0].item()} after c[0] = 100")


@claim(
    "000-detach-only-requires-grad", "000", "detach", "copying-detach",
    "`detach()` only turns the new tensor's `requires_grad` to `False`; `a` keeps its own.",
    "`detach()` 只是把新变量的 `requires_grad` 变成了 `False`，`a` 的不变。",
)
def _detach_only_requires_grad() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    out = a.requires_grad and not c.requires_grad and torch.equal(a, c) and same_storage(a, c)
    return Result(verdict(out),
                  f"a.requires_grad = {a.requires_grad}; c.requires_grad = {c.requires_grad}")


# --- Article 000, but note ----------------------------------------------------------------------


@claim(
    "000-note-commented-edit", "000", "note", "copying-rebinding",
    "The commented-out line `#a[1,2] = 0` is an edit of `a` that could be switched on.",
    "被注释掉的 `#a[1,2] = 0` 是一句可以打开的、修改 `a` 的代码。",
)
def _note_commented_edit() -> Result:
    a = torch.ones(2, 2)
    a.requires_grad = True
    try:
        a[1, 2] = 0
    except (IndexError, RuntimeError) as exc:
        first = _error_line(exc)
    else:
        return Result(HOLDS, "a[1, 2] = 0 runs")
    try:
        a[1, 1] = 0  # even a valid index is refused: a is a leaf that requires grad
    except RuntimeError as exc:
        return Result(DOES_NOT_HOLD, f"{first}; a[1, 1] = 0 → {_error_line(exc)}")
    return Result(DOES_NOT_HOLD, first)


@claim(
    "000-note-print-c-comment", "000", "note", "copying-rebinding",
    "`print(c)` in this example shows `tensor([1., 2., 3.])` (the comment on that line).",
    "这个例子里 `print(c)` 输出 `tensor([1., 2., 3.])`（该行的注释）。",
)
def _note_print_c_comment() -> Result:
    run = run_clean(NOTE_EXAMPLE)
    return Result(compare_output(NOTE_PRINT_C_COMMENT, run.prints[0]),
                  " ".join(_lines(run.prints[0])))


@claim(
    "000-note-output", "000", "note", "copying-rebinding",
    "The “out” block of this example is what the code prints.",
    "这个例子的 “out” 就是代码的实际输出。",
)
def _note_output() -> Result:
    run = run_clean(NOTE_EXAMPLE)
    return pasted_output(NOTE_OUT, run)


@claim(
    "000-note-rebind-breaks-link", "000", "note", "copying-rebinding",
    "`a = a - a.grad` gives `a` new memory, which breaks the link between `a` and `c`.",
    "`a = a - a.grad` 给 `a` 分配了新内存，破坏了原来 `a` 与 `c` 的联系。",
)
def _note_rebind_breaks_link() -> Result:
    run = run_clean(NOTE_EXAMPLE)
    a, c = run.names["a"], run.names["c"]
    shared = same_storage(a, c)
    with torch.no_grad():
        a.add_(5)
    untouched = c.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    return Result(verdict(not shared and untouched),
                  f"same_storage(a, c) = {shared}; c after a.add_(5) = {c.tolist()}")


# --- Article 000, also ---------------------------------------------------------------------------


@claim(
    "000-add-rebind-breaks-link", "000", "also", "copying-add-rebinding",
    "After `c = a`, `a = a + 1` makes a new `a`: `a` and `c` no longer share memory.",
    "`c = a` 之后，`a = a + 1` 产生新的 `a`：`a` 和 `c` 不再在同一个内存单元。",
)
def _add_rebind_breaks_link() -> Result:
    run = run_clean(ALSO_EXAMPLE)
    a, c = run.names["a"], run.names["c"]
    shared = same_storage(a, c)
    return Result(verdict(a is not c and not shared), f"a is c: {a is c}; same_storage(a, c) = "
                  f"{shared}")


@claim(
    "000-add-output", "000", "also", "copying-add-rebinding",
    "The “out” block shows `a` with `grad_fn=<AddBackward0>` and `c` still all ones with "
    "`requires_grad=True`.",
    "“out” 中 `a` 带 `grad_fn=<AddBackward0>`，`c` 仍全为 1 且 `requires_grad=True`。",
)
def _add_output() -> Result:
    run = run_clean(ALSO_EXAMPLE)
    return pasted_output(ALSO_OUT, run)


# --- Article 004, introduction -------------------------------------------------------------------


@claim(
    "004-both-separate", "004", "intro", "data-vs-detach-comparison",
    "Both `.data` and `.detach()` separate a tensor from the graph it was computed in.",
    "`.data` 和 `.detach()` 都可以把某个 tensor 从原有的计算图中分离出来。",
)
def _both_separate() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    results = {}
    for name, t in (("data", out.data), ("detach()", out.detach())):
        results[name] = (not t.requires_grad, t.grad_fn is None, t.is_leaf)
    ok = all(all(flags) for flags in results.values())
    return Result(verdict(ok), "; ".join(
        f"{n}: requires_grad={not f[0]}, grad_fn={'None' if f[1] else 'set'}"
        for n, f in results.items()))


# --- Article 004, data ---------------------------------------------------------------------------


@claim(
    "004-data-shares", "004", "data", "data-vs-detach-data",
    "`c = out.data` shares its data with `out`.",
    "`c = out.data` 与 `out` 共用同样的数据。",
)
def _data_shares() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.data
    shared = same_storage(out, c)
    return Result(verdict(shared), f"same_storage(out, c) = {shared}")


@claim(
    "004-data-not-differentiable", "004", "data", "data-vs-detach-data",
    "The tensor from `.data` cannot be differentiated: its `requires_grad` is `False`.",
    "通过 `.data` 得到的张量不可求导：`requires_grad` 为 `False`。",
)
def _data_not_differentiable() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.sigmoid().data
    return Result(verdict(not c.requires_grad), f"c.requires_grad = {c.requires_grad}")


@claim(
    "004-data-edit-propagates", "004", "data", "data-vs-detach-data",
    "`c.zero_()` on `c = out.data` changes `out` too.",
    "对 `c = out.data` 执行 `c.zero_()`，原来的 `out` 也会改变。",
)
def _data_edit_propagates() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.data
    c.zero_()
    return Result(verdict(out.tolist() == [0.0, 0.0, 0.0]), f"out after c.zero_() = "
                  f"{out.detach().tolist()}")


@claim(
    "004-data-backward-silent", "004", "data", "data-vs-detach-data",
    "After the edit, `out.sum().backward()` raises no error, but `a.grad` is wrong.",
    "修改之后，`out.sum().backward()` 不会报错，但 `a.grad` 的结果并不正确。",
)
def _data_backward_silent() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    right = (out * (1 - out)).detach()  # d sigmoid / da, before any edit
    out.data.zero_()
    try:
        out.sum().backward()
    except RuntimeError as exc:
        return Result(DOES_NOT_HOLD, _error_line(exc))
    wrong = not torch.allclose(a.grad, right)
    return Result(verdict(wrong), f"a.grad = {a.grad.tolist()}; sigmoid'(a) = "
                  f"{[round(v, 4) for v in right.tolist()]}")


@claim(
    "004-data-output", "004", "data", "data-vs-detach-data",
    "The example prints `False`, `tensor([0., 0., 0.])`, `True`, "
    "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)`, the dashes and `tensor([0., 0., 0.])`.",
    "例子输出 `False`、`tensor([0., 0., 0.])`、`True`、"
    "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)`、分隔线和 `tensor([0., 0., 0.])`。",
)
def _data_output() -> Result:
    run = run_clean(DATA_EXAMPLE)
    return pasted_output(DATA_OUT, run)


@claim(
    "004-data-untracked", "004", "data-points", "data-vs-detach-data",
    "autograd cannot track a change made through `.data`: it is not detected, yet the original "
    "has changed.",
    "通过 `.data` 做的修改 autograd 追踪不到：修改不会被检测到，但原始数据已经变了。",
)
def _data_untracked() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    before = out._version
    out.data.mul_(2)
    after = out._version
    changed = not torch.allclose(out.detach(), a.detach().sigmoid())
    return Result(verdict(before == after and changed),
                  f"out._version {before} → {after}; values changed: {changed}")


# --- Article 004, detach() ----------------------------------------------------------------------


@claim(
    "004-detach-shares", "004", "detach", "data-vs-detach-detach",
    "`c = out.detach()` shares its data with `out`, cannot be differentiated, and "
    "`c.zero_()` changes `out` too.",
    "`c = out.detach()` 与 `out` 共用数据、不可求导，`c.zero_()` 也会改变 `out`。",
)
def _detach_004_shares() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    shared = same_storage(out, c)
    c.zero_()
    zeroed = out.detach().tolist() == [0.0, 0.0, 0.0]
    return Result(verdict(shared and not c.requires_grad and zeroed),
                  f"same_storage(out, c) = {shared}; c.requires_grad = {c.requires_grad}; "
                  f"out after c.zero_() = {out.detach().tolist()}")


@claim(
    "004-detach-backward-error", "004", "detach", "data-vs-detach-detach",
    "After the edit, `out.sum().backward()` raises an error instead of computing a wrong gradient.",
    "修改之后，`out.sum().backward()` 会报错，而不是算出错误的梯度。",
)
def _detach_004_backward_error() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.detach().zero_()
    try:
        out.sum().backward()
    except RuntimeError:
        return Result(HOLDS, f"RuntimeError; out._version = {out._version}")
    return Result(DOES_NOT_HOLD, f"no error; a.grad = {a.grad.tolist()}")


def _raise_unless_at_backward(run: Run) -> None:
    """An error before the example reached ``backward()`` is a failure of the check itself."""
    if run.error is not None and len(run.prints) < len(_lines(DETACH_004_OUT)):
        raise run.error


@claim(
    "004-detach-output", "004", "detach", "data-vs-detach-detach",
    "Before the error, the example prints `False`, `tensor([0., 0., 0.])`, `True`, "
    "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)` and the dashes.",
    "报错之前，例子输出 `False`、`tensor([0., 0., 0.])`、`True`、"
    "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)` 和分隔线。",
)
def _detach_004_output() -> Result:
    run = run_snippet(DETACH_004_EXAMPLE)
    _raise_unless_at_backward(run)
    if run.error is None:
        return Result(OUTPUT_DIFFERS, "no error at backward")
    return pasted_output(DETACH_004_OUT, run)


@claim(
    "004-detach-error-message", "004", "detach", "data-vs-detach-detach",
    "The error reads `RuntimeError: one of the variables needed for gradient computation has "
    "been modified by an inplace operation`.",
    "报错信息是 `RuntimeError: one of the variables needed for gradient computation has been "
    "modified by an inplace operation`。",
)
def _detach_004_error_message() -> Result:
    run = run_snippet(DETACH_004_EXAMPLE)
    _raise_unless_at_backward(run)
    if run.error is None:
        return Result(DOES_NOT_HOLD, "no error")
    got = f"{type(run.error).__name__}: {run.error}"
    if got == DETACH_004_ERROR:
        return Result(HOLDS, got)
    if got.startswith(DETACH_004_ERROR):
        rest = got[len(DETACH_004_ERROR):].split(";")[0]
        return Result(OUTPUT_DIFFERS, f"… inplace operation{rest}; … (continues)")
    return Result(OUTPUT_DIFFERS, got.split(";")[0])


@claim(
    "004-detach-like-data", "004", "detach-points", "data-vs-detach-detach",
    "In sharing data and in `requires_grad = False`, `.detach()` is the same as `.data`.",
    "在共用数据和 `requires_grad = False` 这两点上，`.detach()` 与 `.data` 是一样的。",
)
def _detach_like_data() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    d, c = out.data, out.detach()
    facts = {
        "data": (same_storage(out, d), d.requires_grad),
        "detach()": (same_storage(out, c), c.requires_grad),
    }
    same = facts["data"] == facts["detach()"] == (True, False)
    return Result(verdict(same), "; ".join(
        f"{n}: shares={f[0]}, requires_grad={f[1]}" for n, f in facts.items()))


# --- Article 004, summary of the differences -----------------------------------------------------


@claim(
    "004-both-in-place", "004", "summary", "data-vs-detach-comparison",
    "`.data` and `.detach()` are both in-place operations.",
    "`.data` 和 `.detach()` 都是 “原位操作 inplace operation”。",
)
def _both_in_place() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    changed = []
    for name, take in (("data", lambda t: t.data), ("detach()", lambda t: t.detach())):
        version, grad_fn, requires = out._version, out.grad_fn, out.requires_grad
        result = take(out)
        if result is out or out._version != version or out.grad_fn is not grad_fn or (
                out.requires_grad != requires):
            changed.append(name)
    if len(changed) == 2:
        return Result(HOLDS, "both change out in place")
    return Result(DOES_NOT_HOLD,
                  f"out after both: _version = {out._version}, requires_grad = "
                  f"{out.requires_grad}, grad_fn = {_grad_fn_name(out)}")


@claim(
    "004-attribute-vs-method", "004", "summary", "data-vs-detach-comparison",
    "`.data` is an attribute, `.detach()` is a method.",
    "`.data` 是一个属性，`.detach()` 是一个方法。",
)
def _attribute_vs_method() -> Result:
    import inspect

    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    data_is_tensor = isinstance(a.data, torch.Tensor)  # read without a call
    detach_is_bound_method = callable(a.detach) and not isinstance(a.detach, torch.Tensor)
    static = inspect.getattr_static(torch.Tensor, "data")
    descriptor = hasattr(static, "__get__") and not callable(static)
    ok = data_is_tensor and detach_is_bound_method and descriptor
    return Result(verdict(ok), f"type(Tensor.data) = {type(static).__name__}; "
                  f"type(a.detach) = {type(a.detach).__name__}")


@claim(
    "004-data-unsafe", "004", "summary", "data-vs-detach-comparison",
    "`.data` is unsafe: an edit through it can leave a wrong gradient with no error.",
    "`.data` 是不安全的：通过它修改数据，可能得到错误的梯度却没有任何报错。",
)
def _data_unsafe() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * a  # saves a for backward
    a.data.mul_(10)
    try:
        y.sum().backward()
    except RuntimeError as exc:
        return Result(DOES_NOT_HOLD, _error_line(exc))
    right = [2.0, 4.0, 6.0]
    return Result(verdict(a.grad.tolist() != right),
                  f"a.grad = {a.grad.tolist()}; true gradient {right}; no error")


@claim(
    "004-detach-safe", "004", "summary", "data-vs-detach-comparison",
    "`.detach()` is safe: autograd catches an edit made through it.",
    "`.detach()` 是安全的：通过它做的修改会被 autograd 发现。",
)
def _detach_safe() -> Result:
    # An edit through detach() made *before* autograd saves the tensor is not caught.
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2  # multiplying by a number saves nothing from a
    b.detach().mul_(10)  # b is now 20 * a, but the graph still says 2 * a
    scale = b.detach() / a.detach()  # what b really is, relative to a, when the loss is computed
    try:
        (b * b).sum().backward()  # with b = 20 * a, the loss is 400 * a**2: gradient 800 * a
    except RuntimeError as exc:
        return Result(HOLDS, _error_line(exc))
    right = (2 * b.detach() * scale).tolist()
    return Result(verdict(a.grad.tolist() == right),
                  f"a.grad = {a.grad.tolist()}; true gradient {right}; no error")


# ---------------------------------------------------------------------------------------------
# Running checks and comparing with the baseline
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def clean_torch_state() -> Iterator[None]:
    """Default print options and grad mode on while checks run; the caller's state comes back."""
    from torch._tensor_str import PRINT_OPTS

    saved = dataclasses.asdict(PRINT_OPTS) if dataclasses.is_dataclass(PRINT_OPTS) else dict(
        vars(PRINT_OPTS))
    torch.set_printoptions(profile="default")
    try:
        with torch.enable_grad():
            yield
    finally:
        for key, value in saved.items():
            setattr(PRINT_OPTS, key, value)


def run_claim(entry: Claim) -> Outcome:
    """Run one claim's check. Never raises: a missing check or a failure becomes ``problem``."""
    check = CHECKS.get(entry.id)
    if check is None:
        return Outcome(entry, None, "no check is registered for this claim")
    with clean_torch_state(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = check()
        except Exception as exc:  # reported as a build warning, never hidden
            return Outcome(entry, None, f"the check raised {type(exc).__name__}: {exc}")
    if caught:
        first = caught[0]
        return Outcome(entry, None, f"the check let a warning escape: "
                       f"{first.category.__name__}: {first.message}")
    if not isinstance(result, Result) or result.verdict not in VERDICTS:
        return Outcome(entry, None, f"the check returned {result!r}, not one of {VERDICTS}")
    return Outcome(entry, result)


def run_all() -> list[Outcome]:
    """Run every claim's check, in ledger order."""
    return [run_claim(entry) for entry in CLAIMS]


def load_baseline(path: Path | None = None) -> dict[str, str]:
    """The reviewed verdicts, keyed by claim id ({} when there is no baseline yet)."""
    path = path or BASELINE
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["verdicts"]


def compare_with_baseline(outcomes: list[Outcome], baseline: dict[str, str]) -> list[str]:
    """Messages for every difference between computed verdicts and the recorded baseline."""
    messages = []
    known = set()
    for outcome in outcomes:
        claim_id = outcome.claim.id
        known.add(claim_id)
        if outcome.verdict is None:
            continue  # reported on its own as a problem
        if claim_id not in baseline:
            messages.append(f"claim {claim_id}: no recorded verdict in the baseline "
                            f"(computed: {outcome.verdict})")
        elif baseline[claim_id] != outcome.verdict:
            messages.append(f"claim {claim_id} changed verdict: {baseline[claim_id]} -> "
                            f"{outcome.verdict}")
    for claim_id in sorted(set(baseline) - known):
        messages.append(f"claim {claim_id} is in the baseline but no longer in the ledger")
    return messages


def write_baseline(outcomes: list[Outcome], path: Path | None = None) -> None:
    path = path or BASELINE
    verdicts = {o.claim.id: o.verdict for o in outcomes if o.verdict is not None}
    payload = {"torch": torch.__version__.split("+")[0], "verdicts": dict(sorted(verdicts.items()))}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    counts = {v: 0 for v in VERDICTS}
    for outcome in outcomes:
        if outcome.verdict is not None:
            counts[outcome.verdict] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update-baseline", action="store_true",
                        help="record the verdicts computed now as the reviewed baseline")
    args = parser.parse_args(argv)
    outcomes = run_all()
    for outcome in outcomes:
        shown = outcome.verdict or f"PROBLEM: {outcome.problem}"
        print(f"{outcome.claim.id:40} {shown}")
    problems = [o for o in outcomes if o.problem]
    if args.update_baseline:
        if problems:
            print(f"not updating {BASELINE.name}: {len(problems)} claim(s) have no verdict")
            return 1
        write_baseline(outcomes)
        print(f"baseline written: {len(outcomes)} verdicts, torch {torch.__version__}")
        return 0
    differences = compare_with_baseline(outcomes, load_baseline())
    for message in differences:
        print(message)
    return 1 if problems or differences else 0


if __name__ == "__main__":
    sys.exit(main())
