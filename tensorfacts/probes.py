"""Probes behind the behaviour matrix: what each way of "copying" a tensor really gives you.

Pure Python (imports torch, never Sphinx). Every cell of the matrix is the return value of one
probe function run on fresh tensors, one table per standard source
(:mod:`tensorfacts.standard_sources`); nothing in the table is typed by hand. The site's
``behaviour-matrix`` directive renders the results; :mod:`tensorfacts.matrix` holds the guide whose
premises read them.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import re
import warnings
from collections.abc import Callable

import torch

from tensorfacts.standard_sources import SOURCES, TRUE_GRADIENT
from tensorfacts.tensors import first_sentence, grad_fn_name, same_storage, warning_line


def _clone_under_no_grad(a: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return a.clone()


def _index_write(a: torch.Tensor) -> torch.Tensor:
    a[[0, 2]] = 0.0
    return a


def _module_to(a: torch.Tensor) -> torch.Tensor:
    """``a`` held by a module (its parameter when ``a`` is a ``Parameter``, else its buffer), after
    ``m.to(torch.float64)``; the call must return the module itself."""
    m = torch.nn.Module()
    if isinstance(a, torch.nn.Parameter):
        m.register_parameter("a", a)
    else:
        m.register_buffer("a", a)
    if m.to(torch.float64) is not m:
        raise AssertionError("module.to() did not return the module itself")
    return m.a


#: The ways of getting a "b" from "a" that the matrix compares, as the reader would type them.
OPERATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "b = a": lambda a: a,
    "a.data": lambda a: a.data,
    "a.detach()": lambda a: a.detach(),
    "a.view(3)": lambda a: a.view(3),
    "a.reshape(3)": lambda a: a.reshape(3),
    "a.contiguous()": lambda a: a.contiguous(),
    "a.float()": lambda a: a.float(),
    "a.double()": lambda a: a.double(),
    "torch.as_tensor(a)": lambda a: torch.as_tensor(a),
    "torch.from_dlpack(a)": lambda a: torch.from_dlpack(a),
    "a.clone()": lambda a: a.clone(),
    "with torch.no_grad(): a.clone()": _clone_under_no_grad,
    "a.detach().clone()": lambda a: a.detach().clone(),
    "a.clone().detach()": lambda a: a.clone().detach(),
    "copy.copy(a)": lambda a: copy.copy(a),
    "copy.deepcopy(a)": lambda a: copy.deepcopy(a),
    "torch.tensor(a)": lambda a: torch.tensor(a),
    "torch.empty_like(a).copy_(a)": lambda a: torch.empty_like(a).copy_(a),
    "a.repeat(1)": lambda a: a.repeat(1),
    "a[[0, 2]]": lambda a: a[[0, 2]],
    "a[[0, 2]] = 0.; b = a": _index_write,
    'a.to("meta")': lambda a: a.to("meta"),
    "m.to(torch.float64).a": _module_to,
}
#: The rows that edit ``a`` itself in place before naming it ``b`` (on an inference tensor the write raises after
#: writing).
WRITES = ("a[[0, 2]] = 0.; b = a",)



#: Outcomes of the in-place edit probes (language-neutral keys; the extension translates them).
EDIT_REFUSED = "refused"  # the in-place edit itself raises (a leaf, or a view of one, that requires grad)
EDIT_DETECTED = "detected"  # backward raises the version-counter error: autograd saw the edit
EDIT_SILENT = "silent"  # backward runs and returns a wrong gradient
EDIT_UNAFFECTED = "unaffected"  # backward runs and the gradient is right: the edit did not reach a
EDIT_NO_GRAPH = "no-graph"  # a does not require grad: there is no backward to run
EDIT_OUTCOMES = (EDIT_REFUSED, EDIT_DETECTED, EDIT_SILENT, EDIT_UNAFFECTED, EDIT_NO_GRAPH)

#: The messages that identify each error the edit probes expect; any other error fails the probe.
LEAF_ERROR = "leaf Variable that requires grad is being used in an in-place operation"
VERSION_ERROR = "modified by an inplace operation"

#: The errors torch raises on purpose for some sources, which a probe reports as its answer
#: (language-neutral key -> the phrase that identifies the message). Any other error fails the probe.
NO_COUNTER = "no-version-counter"  # reading the source's version counter: it has none
INFERENCE_EDIT = "inference-edit"  # an in-place edit of an inference tensor outside inference mode
REFUSALS = {
    NO_COUNTER: "Inference tensors do not track version counter",
    INFERENCE_EDIT: "Inplace update to inference tensor outside InferenceMode is not allowed",
}


#: A cell whose result could not be made (the operation raised).
NOT_MADE = None


@dataclasses.dataclass(frozen=True)
class Refused:
    """torch refused a step of a probe with one of the :data:`REFUSALS`: that is the cell's answer."""

    kind: str  #: a key of REFUSALS
    error: str  #: "RuntimeError: first sentence of torch's message"
    changed: bool | None = None  #: did the values of a change all the same? (None: not asked)


def refusal(exc: BaseException) -> Refused | None:
    """The known refusal ``exc`` is, or None (then the probe must let it propagate)."""
    for kind, phrase in REFUSALS.items():
        if isinstance(exc, RuntimeError) and phrase in str(exc):
            # Some of these messages run sentences together ("not allowed.You can"): cut there too.
            sentence = re.split(r"\.(?=[A-Z])", first_sentence(str(exc)), maxsplit=1)[0]
            return Refused(kind, f"{type(exc).__name__}: {sentence}")
    return None


@dataclasses.dataclass
class Made:
    """A fresh source, and the result of one operation on it (or what stopped it)."""

    leaf: torch.Tensor
    a: torch.Tensor
    b: torch.Tensor | None
    raised: str  # "" when the operation neither warned nor raised


def make(source: str, operation: str) -> Made:
    """Build a fresh source and apply one operation, recording any warning or error."""
    leaf, a = SOURCES[source]()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            b = OPERATIONS[operation](a)
        except Exception as exc:  # shown in the table, not hidden
            sentence = re.split(r"\.(?=[A-Z])", first_sentence(str(exc)), maxsplit=1)[0]  # "allowed.You can"
            return Made(leaf, a, None, f"{type(exc).__name__}: {sentence}")
    raised = "; ".join(warning_line(w) for w in caught)
    return Made(leaf, a, b, raised)


# ---------------------------------------------------------------------------------------------
# One probe per column. Each takes (source, operation), builds its own tensors and returns a cell.
# ---------------------------------------------------------------------------------------------


def probe_same_object(source: str, operation: str) -> bool | None:
    m = make(source, operation)
    return NOT_MADE if m.b is None else m.b is m.a


def probe_type(source: str, operation: str) -> str | None:
    """The class of the result: ``Tensor`` or ``Parameter``."""
    m = make(source, operation)
    return NOT_MADE if m.b is None else type(m.b).__name__


def probe_shares_storage(source: str, operation: str) -> bool | None:
    m = make(source, operation)
    return NOT_MADE if m.b is None else same_storage(m.a, m.b)


def probe_requires_grad(source: str, operation: str) -> bool | None:
    m = make(source, operation)
    return NOT_MADE if m.b is None else m.b.requires_grad


def probe_grad_fn(source: str, operation: str) -> str | None:
    """The name of the result's ``grad_fn``, or "None" (a string) when it has none."""
    m = make(source, operation)
    if m.b is None:
        return NOT_MADE
    return grad_fn_name(m.b)


def probe_shares_version(source: str, operation: str) -> bool | Refused | None:
    """Does an in-place change of the result move the source's version counter?

    A source with no counter (an inference tensor) refuses the read: the cell says so.
    """
    m = make(source, operation)
    if m.b is None:
        return NOT_MADE
    try:
        before = m.a._version
        with torch.no_grad():
            m.b.add_(0)  # any in-place call bumps the counter of every tensor that shares it
        return m.a._version != before
    except RuntimeError as exc:
        refused = refusal(exc)
        if refused is None:
            raise
        return refused


def edit_then_backward(source: str, operation: str, *, no_grad: bool) -> str | Refused | None:
    """Edit the result in place after autograd saved the source, then run backward.

    The edit is tried even when there is no graph: an inference tensor raises at it outside
    inference mode (a :class:`Refused` cell, which records whether the values of a changed
    anyway). Otherwise only the errors this column is about count: the leaf refusing the edit,
    and the version-counter error at backward ("detected").
    Any other error propagates, so the probe fails loudly.
    """
    m = make(source, operation)
    if m.b is None:
        return NOT_MADE
    loss = (m.a * m.a).sum()  # saves a for backward
    values = m.a.tolist()
    try:
        with torch.no_grad() if no_grad else contextlib.nullcontext():
            m.b.mul_(10)
    except RuntimeError as exc:
        if LEAF_ERROR in str(exc):
            return EDIT_REFUSED
        refused = refusal(exc)
        if refused is None:
            raise
        return dataclasses.replace(refused, changed=m.a.tolist() != values)  # raised, but did it write?
    if not loss.requires_grad:
        return EDIT_NO_GRAPH
    try:
        loss.backward()
    except RuntimeError as exc:
        if VERSION_ERROR in str(exc):
            return EDIT_DETECTED
        raise
    right = m.leaf.grad is not None and m.leaf.grad.tolist() == TRUE_GRADIENT[source]
    return EDIT_UNAFFECTED if right else EDIT_SILENT


def probe_inplace_edit(source: str, operation: str) -> str | None:
    """``b.mul_(10)`` with grad mode on, after ``(a * a).sum()``; then backward."""
    return edit_then_backward(source, operation, no_grad=False)


def probe_inplace_edit_no_grad(source: str, operation: str) -> str | None:
    """The same, with the edit under ``torch.no_grad()``, as an optimizer step makes it."""
    return edit_then_backward(source, operation, no_grad=True)


def probe_raised(source: str, operation: str) -> str:
    """Any warning or error raised while making the result ("" when there was none)."""
    return make(source, operation).raised


#: The matrix columns, in page order, each with its probe.
PROBES: dict[str, Callable[[str, str], object]] = {
    "same_object": probe_same_object,
    "type": probe_type,
    "shares_storage": probe_shares_storage,
    "shares_version": probe_shares_version,
    "requires_grad": probe_requires_grad,
    "grad_fn": probe_grad_fn,
    "inplace_edit": probe_inplace_edit,
    "inplace_edit_no_grad": probe_inplace_edit_no_grad,
    "raised": probe_raised,
}

#: Which columns hold booleans (rendered yes/no), code (rendered literally) or outcome keys.
BOOLEAN_COLUMNS = ("same_object", "shares_storage", "shares_version")
CODE_COLUMNS = ("requires_grad", "grad_fn", "type", "raised")
EDIT_COLUMNS = ("inplace_edit", "inplace_edit_no_grad")


Matrix = dict[str, dict[str, dict[str, object]]]  # source -> operation -> column -> cell


@dataclasses.dataclass(frozen=True)
class ProbeFailure:
    """A probe that raised or let a warning escape: the cell has no value, the build warns."""

    message: str


def run_probe(column: str, source: str, operation: str) -> object:
    """One cell. Never raises: a failing probe becomes a :class:`ProbeFailure`."""
    with torch.enable_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = PROBES[column](source, operation)
        except Exception as exc:
            return ProbeFailure(f"{type(exc).__name__}: {exc}")
    if caught:
        return ProbeFailure(f"a warning escaped: {caught[0].category.__name__}: {caught[0].message}")
    return value


def probe_all() -> Matrix:
    """Run every probe for every (source, operation) pair."""
    return {
        source: {
            operation: {column: run_probe(column, source, operation) for column in PROBES}
            for operation in OPERATIONS
        }
        for source in SOURCES
    }


def failures(m: Matrix) -> list[str]:
    """Every cell whose probe failed, as "source / operation / column: message"."""
    return [
        f"{source} / {operation} / {column}: {value.message}"
        for source, rows in m.items()
        for operation, cells in rows.items()
        for column, value in cells.items()
        if isinstance(value, ProbeFailure)
    ]


# ---------------------------------------------------------------------------------------------
# The "which one should I use" guide: each sentence with the premises it rests on.
# ---------------------------------------------------------------------------------------------
