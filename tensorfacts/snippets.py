"""Running the articles' code: record each ``print`` and every warning; compare printed output."""

from __future__ import annotations

import builtins
import dataclasses
import io
import re
import warnings

import torch

from tensorfacts.model import DOES_NOT_HOLD, HOLDS, OUTPUT_DIFFERS, Result, Trace, said
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


#: What a printed value is made of: brackets (its shape), numbers, and the words True, False and None.
#: A name in angle brackets (``grad_fn=<CloneBackward0>``) is left out, and so is a digit inside a word.
VALUE_TOKEN = re.compile(r"[\[\]]|(?<![\w.])-?\d+(?:\.\d*)?(?:e[+-]?\d+)?|\b(?:True|False|None)\b")


def printed_values(text: str) -> list[str]:
    """The values a printed output shows, in order, numbers as floats: ``tensor([[1., 1.], [1., 1.]])``
    and the same tensor printed on two lines give the same list; ``tensor([1., 2., 3.])`` another."""
    tokens = VALUE_TOKEN.findall(re.sub(r"<[^<>]*>", "", text))
    return [token if token in "[]" or token[0].isalpha() else str(float(token)) for token in tokens]


def compare_output(expected: str, actual: str) -> str:
    """HOLDS when the two outputs agree line by line (indentation aside); OUTPUT_DIFFERS when only
    the way they are written differs (a renamed ``grad_fn``, another repr) and they show the same values
    (numbers, shapes, True, False, None); DOES_NOT_HOLD when the values themselves differ."""
    if lines(expected) == lines(actual):
        return HOLDS
    return OUTPUT_DIFFERS if printed_values(expected) == printed_values(actual) else DOES_NOT_HOLD


def worst(outcomes: list[str]) -> str:
    """The verdict of several compared outputs: DOES_NOT_HOLD over OUTPUT_DIFFERS over HOLDS."""
    return next((v for v in (DOES_NOT_HOLD, OUTPUT_DIFFERS) if v in outcomes), HOLDS)


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
