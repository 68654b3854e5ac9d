"""Probes behind the "what operations save" table: which tensors autograd keeps for backward.

Pure Python (imports torch, never Sphinx). Each row is one line of code, run as written (``eval``) on
fresh leaves ``x`` and ``y`` that require grad (and ``c``, which does not); ``F`` is
``torch.nn.functional`` and ``checkpoint`` is ``torch.utils.checkpoint.checkpoint``. What the row saves is read
with :func:`torch.autograd.graph.saved_tensors_hooks`: each tensor the pack hook receives is named (the
input ``x``, the other operand, the output, or another tensor). A Python number the operation wraps as a
tensor (the ``2`` of ``x * 2``) is saved without passing through the hook, so the column does not show it
(the fact ``wrapped-number-saved-outside-hooks``). The other columns run the consequence: an in-place
edit of the input, or of the output, under ``torch.no_grad()`` and then ``backward()``; and a second
``backward()`` without ``retain_graph``.
The ``saved-table`` directive renders the cells; an unexpected error fails the cell and the build.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable

import torch
import torch.nn.functional as F  # noqa: N812 (the rows are written as readers write them)
from torch.utils.checkpoint import checkpoint

from tensorfacts.tensors import grad_fn_name

#: The tensors every row may read, as code (``x`` and ``y`` are leaves that require grad
#: and, made by ``reshape()``, views of their ``linspace()``; ``c`` does not require grad: :func:`input_problems`).
INPUTS = {
    "x": "torch.linspace(0.5, 1.3, 9).reshape(3, 3).requires_grad_()",
    "y": "torch.linspace(1.5, 0.7, 9).reshape(3, 3).requires_grad_()",
    "c": "torch.full((3, 3), 2.)",
}


def input_problems() -> list[str]:
    """Where the inputs are not as the page says: ``x`` and ``y`` leaves that require grad and views (of the
    ``linspace()`` they are reshaped from), ``c`` a leaf that does not require grad and is no view."""
    problems = []
    for name, tensor in inputs().items():
        grad = name != "c"
        base = tensor._base
        linspace = base is not None and base.dim() == 1 and torch.equal(base.detach().reshape(3, 3), tensor.detach())
        seen = (tensor.is_leaf, tensor.requires_grad, tensor._is_view(), linspace)
        if seen != (True, grad, grad, grad):
            problems.append(f"{name} = {INPUTS[name]}: leaf, requires grad, _is_view(), a 1-d _base: {seen}")
    return problems


@dataclasses.dataclass(frozen=True)
class Row:
    code: str
    doc: str  #: the torch name the code calls, for the link to its documentation


_F = "torch.nn.functional."
ROWS: tuple[Row, ...] = (
    Row("torch.exp(x)", "torch.exp"),
    Row("torch.sigmoid(x)", "torch.sigmoid"),
    Row("torch.tanh(x)", "torch.tanh"),
    Row("F.relu(x)", _F + "relu"),
    Row("torch.sqrt(x)", "torch.sqrt"),
    Row("F.softmax(x, -1)", _F + "softmax"),
    Row("F.log_softmax(x, -1)", _F + "log_softmax"),
    Row("torch.log(x)", "torch.log"),
    Row("torch.sin(x)", "torch.sin"),
    Row("torch.cos(x)", "torch.cos"),
    Row("torch.abs(x)", "torch.abs"),
    Row("torch.clamp(x, 0.6, 1.2)", "torch.clamp"),
    Row("torch.pow(x, 2)", "torch.pow"),
    Row("torch.pow(x, y)", "torch.pow"),
    Row("torch.mul(x, y)", "torch.mul"),
    Row("torch.mul(x, c)", "torch.mul"),
    Row("x * 2", "torch.mul"),
    Row("torch.div(x, y)", "torch.div"),
    Row("torch.matmul(x, y)", "torch.matmul"),
    Row("torch.add(x, y)", "torch.add"),
    Row("torch.sum(x)", "torch.sum"),
    Row("torch.mean(x)", "torch.mean"),
    Row("torch.max(x)", "torch.max"),
    Row("torch.amax(x, -1)", "torch.amax"),
    Row("torch.where(x > 1, x, y)", "torch.where"),
    Row("F.layer_norm(x, (3,))", _F + "layer_norm"),
    Row("checkpoint(torch.exp, x, use_reentrant=False)", "torch.utils.checkpoint.checkpoint"),
)
BY_CODE = {row.code: row for row in ROWS}

#: What a saved tensor is, as the pack hook sees it (language-neutral keys).
INPUT = "input"  # x itself
OPERAND = "operand"  # the row's other operand (y or c)
OUTPUT = "output"  # the row's result
OTHER = "other"  # any other tensor (an intermediate the backward formula needs)
ROLES = (INPUT, OPERAND, OUTPUT, OTHER)

#: Outcomes of the consequence probes.
ERROR_AT_BACKWARD = "error"  # backward raised the version-counter error
SAME_GRADIENT = "same"  # backward ran and gave the gradients of an unedited run
OTHER_GRADIENT = "different"  # backward ran and gave other gradients
NO_ERROR = "no-error"  # (second backward) it ran
SECOND_BACKWARD_ERROR = "error-twice"  # (second backward) it raised: the saved tensors were freed

VERSION_ERROR = "modified by an inplace operation"
FREED_ERROR = "Trying to backward through the graph a second time"

COLUMNS = ("grad_fn", "saves", "edit_input", "edit_output", "backward_twice")


def inputs() -> dict[str, torch.Tensor]:
    """Fresh ``x``, ``y`` and ``c``."""
    return {name: eval(code, {"torch": torch}) for name, code in INPUTS.items()}  # noqa: S307


def run(row: Row, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
    return eval(row.code, {"torch": torch, "F": F, "checkpoint": checkpoint, **tensors})  # noqa: S307 (this module's code)


def _role(t: torch.Tensor, tensors: dict[str, torch.Tensor], out: torch.Tensor) -> str:
    if t is tensors["x"]:
        return INPUT
    if t is tensors["y"] or t is tensors["c"]:
        return OPERAND
    if t is out:
        return OUTPUT
    return OTHER


def probe_saves(row: Row) -> tuple[str, ...]:
    """What autograd packs for the row's backward, in the order of :data:`ROLES` (each role once)."""
    tensors, packed = inputs(), []

    def pack(t: torch.Tensor) -> torch.Tensor:
        packed.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = run(row, tensors)
    found = {_role(t, tensors, out) for t in packed}
    return tuple(role for role in ROLES if role in found)


def probe_grad_fn(row: Row) -> str:
    return grad_fn_name(run(row, inputs()))


def _gradients(tensors: dict[str, torch.Tensor]) -> list[list]:
    return [t.grad.tolist() if t.grad is not None else None for t in (tensors["x"], tensors["y"])]


def _edit_then_backward(row: Row, which: str) -> str:
    """Run the row, edit ``x`` (``which="input"``) or the result in place under ``no_grad``, backward."""
    reference = inputs()
    run(row, reference).sum().backward()
    tensors = inputs()
    out = run(row, tensors)
    with torch.no_grad():
        (tensors["x"] if which == "input" else out).add_(1)
    try:
        out.sum().backward()
    except RuntimeError as exc:
        if VERSION_ERROR in str(exc):
            return ERROR_AT_BACKWARD
        raise
    return SAME_GRADIENT if _gradients(tensors) == _gradients(reference) else OTHER_GRADIENT


def probe_edit_input(row: Row) -> str:
    return _edit_then_backward(row, "input")


def probe_edit_output(row: Row) -> str:
    return _edit_then_backward(row, "output")


def probe_backward_twice(row: Row) -> str:
    """``backward()`` twice on the row's result, without ``retain_graph=True``."""
    out = run(row, inputs()).sum()
    out.backward()
    try:
        out.backward()
    except RuntimeError as exc:
        if FREED_ERROR in str(exc):
            return SECOND_BACKWARD_ERROR
        raise
    return NO_ERROR


PROBES: dict[str, Callable[[Row], object]] = {
    "grad_fn": probe_grad_fn,
    "saves": probe_saves,
    "edit_input": probe_edit_input,
    "edit_output": probe_edit_output,
    "backward_twice": probe_backward_twice,
}


@dataclasses.dataclass(frozen=True)
class ProbeFailure:
    message: str


def run_probe(column: str, row: Row) -> object:
    """One cell. Never raises: a failing probe (an error or a warning) becomes a :class:`ProbeFailure`."""
    with torch.enable_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = PROBES[column](row)
        except Exception as exc:
            return ProbeFailure(f"{type(exc).__name__}: {exc}")
    if caught:
        return ProbeFailure(f"a warning escaped: {caught[0].category.__name__}: {caught[0].message}")
    return value


Table = dict[str, dict[str, object]]  # row code -> column -> cell


def probe_all(rows: tuple[Row, ...] = ROWS) -> Table:
    return {row.code: {column: run_probe(column, row) for column in COLUMNS} for row in rows}


def failures(table: Table) -> list[str]:
    return [f"{code} / {column}: {value.message}" for code, cells in table.items()
            for column, value in cells.items() if isinstance(value, ProbeFailure)]
