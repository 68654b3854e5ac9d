"""A general sentence is checked over the range it claims, not on one example.

"`copy.deepcopy(a)` copies `.grad`" speaks of every kind of `a`. A *scoped* fact states, for each
case, what the sentence says happens there, and runs one observation in every case: each standard
source of the behaviour matrix (leaf, non-leaf, ``Parameter``, view, plain tensor, inference
tensor), each floating dtype, and each device this build has (``meta``, a device with shapes and no
data, is on every build). A fact narrows that range only by saying so in words (``scope``), which
the facts page shows beside it; words that say what ``meta`` tensors do are a :class:`Reason`, checked in the
``meta`` cases the fact leaves out. The fact holds when every case gives what its sentence expects; its
trace names the cases that did not.

Pure Python: imports torch, never Sphinx.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Mapping

import torch

from tensorfacts.standard_sources import SOURCES

#: The floating dtypes every scoped fact runs in (tensors that require grad must be floating).
DTYPES: tuple[torch.dtype, ...] = (torch.float32, torch.float64, torch.bfloat16)

#: The devices this build has: the CPU, ``meta`` (on every build) and a GPU when there is one.
DEVICES: tuple[str, ...] = ("cpu", "meta", *(("cuda",) if torch.cuda.is_available() else ()))

#: The devices whose tensors hold values (a ``meta`` tensor has a shape and a dtype, no data).
VALUE_DEVICES: tuple[str, ...] = tuple(d for d in DEVICES if d != "meta")


def standard_sources() -> tuple[str, ...]:
    """The standard sources, the behaviour matrix's (:mod:`tensorfacts.standard_sources`)."""
    return tuple(SOURCES)


@dataclasses.dataclass(frozen=True)
class Case:
    """One case of a scoped fact: a source (``None`` when the fact is not about a source), a dtype, a device."""

    source: str | None
    dtype: torch.dtype
    device: str

    @property
    def label(self) -> str:
        where = f"{str(self.dtype).removeprefix('torch.')} {self.device}"
        return f"{self.source} {where}" if self.source else where

    @contextlib.contextmanager
    def factories(self) -> Iterator[None]:
        """New tensors made inside take this case's dtype and device (``torch.tensor([1., 2.])`` too)."""
        before = torch.get_default_dtype()
        torch.set_default_dtype(self.dtype)
        try:
            with torch.device(self.device):
                yield
        finally:
            torch.set_default_dtype(before)

    def build(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The matrix's ``(leaf, a)`` for this source, made in this case's dtype and on its device."""
        with self.factories():
            return SOURCES[self.source]()


def cases(sources: tuple[str, ...] | None = (), dtypes: tuple[torch.dtype, ...] = DTYPES,
          devices: tuple[str, ...] = DEVICES) -> list[Case]:
    """Every case of a scope. ``sources=()`` means every standard source; ``None``, no source at all."""
    chosen: tuple[str | None, ...] = (None,) if sources is None else (sources or standard_sources())
    return [Case(s, dtype, device) for s in chosen for dtype in dtypes for device in devices]


def values_equal(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Equal values; on ``meta``, which holds none, equal shape and dtype is all there is to compare."""
    if x.device.type == "meta" or y.device.type == "meta":
        return x.shape == y.shape and x.dtype == y.dtype and x.device == y.device
    return x.shape == y.shape and x.dtype == y.dtype and bool(torch.equal(x, y))


Observe = Callable[[Case], object]
Expect = Callable[[Case], object]


def by_source(table: Mapping[str, object], default: object = None) -> Expect:
    """An expectation read from a table of sources (``default`` for a source the table leaves out)."""
    return lambda case: table.get(case.source, default)


@dataclasses.dataclass(frozen=True)
class Raised:
    """An error as an observation: equal to another of the same type; its message shows in traces."""

    type_name: str
    message: str = dataclasses.field(default="", compare=False)

    def __repr__(self) -> str:
        return f"raises {self.type_name}" + (f" ({self.message.splitlines()[0][:70]})" if self.message else "")


def observe(check: Observe, case: Case) -> object:
    """Run one case; an error is an observation too (a :class:`Raised`), so a sentence can expect it."""
    try:
        with case.factories():
            return check(case)
    except Exception as exc:  # recorded, and compared with what the sentence expects
        return Raised(type(exc).__name__, str(exc))


def mismatches(check: Observe, expect: Expect, scope: list[Case]) -> tuple[list[str], dict[str, set[str]]]:
    """The cases that disagree with the sentence ("case: got X, expected Y"), and what each source gave."""
    wrong, seen = [], {}
    for case in scope:
        got, wanted = observe(check, case), expect(case)
        seen.setdefault(case.source or "-", set()).add(repr(got))
        if got != wanted:
            wrong.append(f"{case.label}: {got!r}, expected {wanted!r}")
    return wrong, seen


class Reason(dict):
    """Why a scoped fact runs fewer cases than the standard range, by edition code (the facts page prints it after
    "Narrower because:"), with ``holds``: what the words say of torch on ``meta``, which
    :meth:`tensorfacts.fact_registry.Scoped.run` checks in every ``meta`` case the fact leaves out."""

    def __init__(self, texts: Mapping[str, str], holds: Observe) -> None:
        super().__init__(texts)
        self.holds = holds

    def around(self, before: Mapping[str, str] | None = None, after: Mapping[str, str] | None = None) -> Reason:
        """These words with others before or after them (each with its own separator), checked the same."""
        return Reason({code: (before or {}).get(code, "") + text + (after or {}).get(code, "")
                       for code, text in self.items()}, self.holds)


#: How the facts page names each part of a scope, by edition code.
WORDS = {
    "en": {
        "sources": {"leaf": "a leaf", "non-leaf": "a non-leaf", "parameter": "a Parameter",
                    "view": "a view of a leaf", "plain": "a plain tensor", "inference": "an inference tensor"},
        "no_source": "no source tensor",
        "every_source": "every standard source ({sources})",
        "line": "{sources}; {dtypes}; on {devices} ({count} cases)",
        "and": ", ",
        "because": ". Narrower because: {reason}",
        "end": "",  # after a reason
    },
    "zh_CN": {
        "sources": {"leaf": "叶子张量", "non-leaf": "非叶子张量", "parameter": "Parameter",
                    "view": "叶子张量的视图", "plain": "普通张量", "inference": "推理张量"},
        "no_source": "不涉及源张量",
        "every_source": "全部标准源张量（{sources}）",
        "line": "{sources}；{dtypes}；设备 {devices}（共 {count} 种情形）",
        "and": "、",
        "because": "。范围较窄的原因：{reason}",
        "end": "。",  # after a reason: a list of cases alone ends with no full stop, as the listed scopes do
    },
}


def describe(scope: list[Case], language: str, reason: Mapping[str, str] | None = None) -> str:
    """The range of ``scope`` in words, written from the cases themselves (so it cannot claim more)."""
    from editions import pick

    w = pick(WORDS, language, "the scope words (tensorfacts.scope.WORDS)")
    sources = list(dict.fromkeys(c.source for c in scope))
    if sources == [None]:
        named = w["no_source"]
    elif sources == list(standard_sources()):
        named = w["every_source"].format(sources=w["and"].join(w["sources"][s] for s in sources))
    else:
        named = w["and"].join(w["sources"][s] for s in sources)
    dtypes = w["and"].join(dict.fromkeys(str(c.dtype).removeprefix("torch.") for c in scope))
    devices = w["and"].join(dict.fromkeys(c.device for c in scope))
    text = w["line"].format(sources=named, dtypes=dtypes, devices=devices, count=len(scope))
    if not reason:
        return text
    return text + w["because"].format(reason=pick(reason, language, "a scope's reason")) + w["end"]
