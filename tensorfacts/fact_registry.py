"""The registry of named facts: what a fact is, how one is registered, and how one is run.

A fact is a small function that runs real tensors and returns a :class:`Fact` (holds or not, plus a
short trace), registered under an id with what it runs and over which range, in every edition's
language. :mod:`tensorfacts.facts` and :mod:`tensorfacts.general_facts` register the site's facts;
import :mod:`tensorfacts.facts` to have them all. Pure Python: imports torch, never Sphinx.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import torch

from editions import CODES, pick
from tensorfacts import scope


@dataclasses.dataclass(frozen=True)
class Fact:
    """What a fact's check returns."""

    holds: bool
    trace: str


@dataclasses.dataclass(frozen=True)
class About:
    """What a fact runs and over which range, in every edition's language (the facts page shows both)."""

    runs: Mapping[str, str]  #: edition code -> what the check does
    #: edition code -> the range of cases it runs; or a function of the code that writes it (a scoped
    #: fact's range is written from its cases, which exist only once the matrix's sources do)
    scope: Mapping[str, str] | Callable[[str], str]

    def runs_in(self, language: str) -> str:
        return pick(self.runs, language, "what a fact runs")

    def scope_in(self, language: str, cited: bool = True) -> str:
        """The range in ``language``; for a fact that no page cites, :data:`ONE_EXAMPLE` loses the words about
        the sentence citing it."""
        if not cited and self.scope == ONE_EXAMPLE:
            return pick(ONE_EXAMPLE_UNCITED, language, "a fact's scope")
        return self.scope(language) if callable(self.scope) else pick(self.scope, language, "a fact's scope")


FACTS: dict[str, Callable[[], Fact]] = {}
ABOUT: dict[str, About] = {}

#: The scope of a fact that runs only the cases its text lists (one or many): the sentence citing it must name them.
ONE_EXAMPLE = {
    "en": "the cases listed under What it runs, those the sentences citing it name",
    "zh_CN": "“检查的内容”一栏所列的情形，即引用它的句子所说的情形",
}
#: That scope on a fact that no page cites.
ONE_EXAMPLE_UNCITED = {"en": "the cases listed under What it runs", "zh_CN": "“检查的内容”一栏所列的情形"}


#: A shape written another way than the site's ``3×4`` or ``1×n``: ``3 x 4``, ``3x4``, ``3 × 4`` or ``1 × n``.
OTHER_SHAPE = re.compile(r"\b\d+ ?x ?\d+\b|\b(?:\d+|[A-Za-z]) × (?:\d+|[A-Za-z])\b")


def fact(fact_id: str, runs: Mapping[str, str], scope: Mapping[str, str] | Callable[[str], str] = ONE_EXAMPLE,
         ) -> Callable[[Callable[[], Fact]], Callable[[], Fact]]:
    """Register a fact under ``fact_id`` (ids are unique), with what it runs in every edition's language."""

    def register(check: Callable[[], Fact]) -> Callable[[], Fact]:
        if fact_id in FACTS:
            raise ValueError(f"fact {fact_id!r} is registered twice")
        missing = [code for code in CODES if code not in runs or not (callable(scope) or code in scope)]
        if missing:
            raise ValueError(f"fact {fact_id!r} says what it runs and its scope in no {missing} text")
        shapes = [shape for texts in (runs, scope) if not callable(texts) for text in texts.values()
                  for shape in OTHER_SHAPE.findall(text)]
        if shapes:
            parts = getattr(check, "__self__", None)  # a scoped fact registers its parts' run: name its observation
            code = (parts.check if parts is not None else check).__code__
            where = Path(code.co_filename).resolve().relative_to(Path(__file__).resolve().parents[1]).as_posix()
            raise ValueError(f"{where}:{code.co_firstlineno}: fact {fact_id!r} writes the shapes {shapes}; "
                             "the site writes a shape as 3×4 or 1×n (no spaces, the sign ×)")
        FACTS[fact_id] = check
        ABOUT[fact_id] = About(dict(runs), scope if callable(scope) else dict(scope))
        return check

    return register


@dataclasses.dataclass(frozen=True)
class Scoped:
    """A scoped fact's parts: its observation, what its sentence expects, and the range of cases it runs
    (made on first use: the standard sources are the matrix's, which imports this module)."""

    check: scope.Observe
    expect: scope.Expect
    sources: tuple[str, ...] | None
    dtypes: tuple[torch.dtype, ...]
    devices: tuple[str, ...]
    narrower: Mapping[str, str] | None

    @functools.cached_property
    def cases(self) -> list[scope.Case]:
        chosen = scope.cases(self.sources, self.dtypes, self.devices)
        full = scope.cases(() if self.sources is not None else None)
        if len(chosen) < len(full) and not self.narrower:
            raise ValueError("a scoped fact runs a narrower range than the standard one without saying why")
        if self.left_out_on_meta(chosen) and not isinstance(self.narrower, scope.Reason):
            raise ValueError("a scoped fact that leaves meta out says why in a scope.Reason, which checks its words")
        return chosen

    def left_out_on_meta(self, chosen: list[scope.Case]) -> list[scope.Case]:
        """The standard range's ``meta`` cases that ``chosen`` leaves out, when it leaves ``meta`` out as a device."""
        if any(case.device == "meta" for case in chosen):
            return []
        full = scope.cases(() if self.sources is not None else None)
        return [case for case in full if case.device == "meta"]

    def unfounded(self) -> list[str]:
        """The ``meta`` cases the fact leaves out where its reason's words about torch do not hold."""
        if not isinstance(self.narrower, scope.Reason):
            return []
        return [case.label for case in self.left_out_on_meta(self.cases)
                if scope.observe(self.narrower.holds, case) is not True]

    def words(self, language: str) -> str:
        return scope.describe(self.cases, language, self.narrower)

    def run(self) -> Fact:
        wrong, seen = scope.mismatches(self.check, self.expect, self.cases)
        if wrong:
            return Fact(False, f"{len(wrong)} of {len(self.cases)} cases differ from the sentence: "
                        + "; ".join(wrong[:6]))
        unfounded = self.unfounded()
        if unfounded:
            return Fact(False, f"the reason for leaving meta out fails in {len(unfounded)} cases it leaves out: "
                        + "; ".join(unfounded[:6]))
        reason = self.left_out_on_meta(self.cases) if isinstance(self.narrower, scope.Reason) else []
        return Fact(True, f"all {len(self.cases)} cases as stated: "
                    + "; ".join(f"{s}: {' / '.join(sorted(v))}" for s, v in seen.items())
                    + (f"; the reason holds in the {len(reason)} meta cases left out" if reason else ""))


#: The parts of every scoped fact, for the tests that run an old sentence over the same range.
SCOPES: dict[str, Scoped] = {}


def scoped_fact(fact_id: str, runs: Mapping[str, str], expect: scope.Expect, *,
                sources: tuple[str, ...] | None = (), dtypes: tuple[torch.dtype, ...] = scope.DTYPES,
                devices: tuple[str, ...] = scope.DEVICES,
                narrower: Mapping[str, str] | None = None) -> Callable[[scope.Observe], scope.Observe]:
    """Register a fact that runs one observation over a whole range of cases (:mod:`tensorfacts.scope`).

    By default the range is every standard source (``sources=None``: none, the fact is not about a
    source), dtype and device; a fact that takes less says why in ``narrower`` (every edition's
    language), and the facts page prints it. The fact holds when each case gives what ``expect``
    says its sentence states for that case.
    """
    if narrower is not None and any(code not in narrower for code in CODES):
        raise ValueError(f"fact {fact_id!r}: say why its range is narrower in every edition's language")

    def register(check: scope.Observe) -> scope.Observe:
        parts = Scoped(check, expect, sources, dtypes, devices, narrower)
        fact(fact_id, runs, parts.words)(parts.run)
        SCOPES[fact_id] = parts
        return check

    return register


#: The sets that :func:`recording_runs` fills with the id of every fact run while it is open.
_RECORDING: list[set[str]] = []


@contextlib.contextmanager
def recording_runs() -> Iterator[set[str]]:
    """A set that holds the id of every fact :func:`run_fact` runs while the block runs (the claims ledger cites the
    facts its claims' checks run)."""
    ran: set[str] = set()
    _RECORDING.append(ran)
    try:
        yield ran
    finally:
        _RECORDING.remove(ran)


#: Whether a fact that has found a counterexample may stop there (:func:`first_counterexample_only`).
_FIRST_ONLY: list[bool] = [False]


@contextlib.contextmanager
def first_counterexample_only() -> Iterator[None]:
    """While the block runs, a fact that has found a case where it fails may return there, false, without running
    the rest (the tests that change torch to see each fact turn false ask only that; the build runs every case)."""
    _FIRST_ONLY.append(True)
    try:
        yield
    finally:
        _FIRST_ONLY.pop()


def enough(wrong: object) -> bool:
    """Whether a fact that has found ``wrong`` (its counterexamples so far) may stop running its cases: only when some
    were found, inside :func:`first_counterexample_only`. The fact is false then, whatever it would find later."""
    return bool(wrong) and _FIRST_ONLY[-1]


def stopped(wrong: object) -> Fact:
    """What a fact returns when :func:`enough` let it stop: false, with the cases that differ so far."""
    return Fact(False, f"stopped at the first case that differs: {wrong}")


def run_fact(fact_id: str) -> Fact:
    """Run one fact with grad mode on; an unknown id, an error or an escaping warning is a failure."""
    for ran in _RECORDING:
        ran.add(fact_id)
    check = FACTS.get(fact_id)
    if check is None:
        return Fact(False, f"no fact is registered as {fact_id!r} (tensorfacts/facts.py)")
    with torch.enable_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = check()
        except Exception as exc:
            return Fact(False, f"the check raised {type(exc).__name__}: {exc}")
    if caught:
        return Fact(False, f"a warning escaped: {caught[0].category.__name__}: {caught[0].message}")
    return result
