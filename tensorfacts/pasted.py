"""Claims that only compare what a snippet prints with what the article pasted, as table rows.

A row names the snippet, the output the article shows, which ``print`` calls to compare (all of them
by default) and how the ledger's trace column reports what this torch printed. Its verdict is
``holds`` when the outputs agree line by line (indentation aside), ``output-differs`` when they show
the same values written another way, and ``does-not-hold`` when the values or shapes differ
(:func:`tensorfacts.snippets.compare_output`). A snippet that raises is a failure of the check itself,
never a verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from tensorfacts.model import HOLDS, Result, Trace, said
from tensorfacts.snippets import Run, compare_output, counted, first_difference, lines, run_clean, worst

#: How a row reports what was printed: (the run, the compared prints, the verdict) -> trace.
Tracer = Callable[[Run, list[str], str], Trace]


def as_pasted(run: Run, compared: list[str], outcome: str, expected: str = "") -> Trace:
    """``"6 prints, as pasted"``, or the first printed line that differs from the article's."""
    return counted(len(run.prints), "as pasted", "与原文贴出的一致") if outcome == HOLDS else (
        first_difference(expected, run.text))


def count_and_last(run: Run, compared: list[str], outcome: str) -> Trace:
    """How many prints, and the first line of the last one."""
    last = run.prints[-1].splitlines()[0]
    return said(f"{len(run.prints)} prints; last: `{last}` …",
                f"共 {len(run.prints)} 次 `print`，最后一次：`{last}` …")


def first_print(run: Run, compared: list[str], outcome: str) -> str:
    """The first compared print, as printed."""
    return compared[0]


def one_line(run: Run, compared: list[str], outcome: str) -> str:
    """The first compared print on one line."""
    return " ".join(lines(compared[0]))


def joined(run: Run, compared: list[str], outcome: str) -> str:
    """Every compared print, separated by slashes."""
    return " / ".join(compared)


@dataclasses.dataclass(frozen=True)
class Pasted:
    """One claim of the form "this code prints that"."""

    id: str
    section: str
    gallery: str
    en: str
    zh_CN: str
    snippet: str  #: the article's code (see tensorfacts.sources)
    expected: str | tuple[str, ...]  #: the whole pasted output, or one expectation per compared print
    prints: tuple[int, ...] | None = None  #: which print calls to compare; None: the whole output
    trace: Tracer | None = None  #: None: "N prints, as pasted" or the first line that differs
    notes: Mapping[str, str] | None = None  #: edition code -> a note under the claim (see Claim.notes)

    def check(self) -> Result:
        run = run_clean(self.snippet)
        if self.prints is None:
            compared = [run.text]
            outcome = compare_output(str(self.expected), run.text)
        else:
            compared = [run.prints[index] for index in self.prints]
            wanted = self.expected if isinstance(self.expected, tuple) else (self.expected,) * len(compared)
            outcome = worst([compare_output(w, got) for w, got in zip(wanted, compared, strict=True)])
        if self.trace is None:
            return Result(outcome, as_pasted(run, compared, outcome, str(self.expected)))
        return Result(outcome, self.trace(run, compared, outcome))
