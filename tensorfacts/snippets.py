"""Running the articles' code: record each ``print`` and every warning; compare printed output."""

from __future__ import annotations

import builtins
import dataclasses
import io
import warnings

import torch

from tensorfacts.model import HOLDS, OUTPUT_DIFFERS, Result, Trace, said
from tensorfacts.tensors import warning_line


def lines(text: str) -> list[str]:
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
    return Run(prints, [warning_line(w) for w in caught], error, names)


def run_clean(source: str) -> Run:
    """Run a snippet that must not raise: an error there is a failure of the check itself."""
    run = run_snippet(source)
    if run.error is not None:
        raise run.error
    return run


def compare_output(expected: str, actual: str) -> str:
    """HOLDS when the two outputs agree line by line (indentation aside), else OUTPUT_DIFFERS."""
    return HOLDS if lines(expected) == lines(actual) else OUTPUT_DIFFERS


def first_difference(expected: str, actual: str) -> Trace:
    """The first line of ``actual`` that is not the article's (for the ledger's trace column)."""
    exp, act = lines(expected), lines(actual)
    for want, got in zip(exp, act, strict=False):
        if want != got:
            return got
    if len(act) > len(exp):
        return act[len(exp)]
    if len(act) < len(exp):
        return said(f"(missing) `{exp[len(act)]}`", f"（缺少）`{exp[len(act)]}`")
    return act[-1] if act else ""


def pasted_output(expected: str, run: Run) -> Result:
    """Compare everything the snippet printed with the output the article pasted."""
    outcome = compare_output(expected, run.text)
    if outcome != HOLDS:
        return Result(outcome, first_difference(expected, run.text))
    return Result(outcome, counted(len(run.prints), "as pasted", "与原文贴出的一致"))


def counted(prints: int, en: str, zh_CN: str) -> Trace:
    """``"7 prints, as commented"``: how many ``print`` calls ran, and how they compare."""
    return said(f"{prints} prints, {en}", f"共 {prints} 次 `print`，{zh_CN}")
