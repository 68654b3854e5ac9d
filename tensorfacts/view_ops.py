"""Probes behind the view operations table: which operations give a view, on which source.

Pure Python (imports torch, never Sphinx). Each row is one line of code, run as written (``eval``)
on fresh tensors of two layouts: a contiguous source and a non-contiguous one with the same values.
Every cell is the return value of one probe; the ``view-table`` directive renders them. A row that
raises where it says it will (``view`` of a non-contiguous tensor) shows the error; any other error
or warning fails the cell, and the build with it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import warnings
from collections.abc import Callable

import torch

from tensorfacts.tensors import first_sentence

#: The layouts every row runs on, in column order.
LAYOUTS = ("contiguous", "non-contiguous")

#: The source tensors, by the name a row's code uses, as code: (contiguous, non-contiguous). Both
#: layouts hold the same values; the non-contiguous one is laid out column by column
#: (``empty_strided`` with transposed strides, filled by ``copy_``; ``p`` has only its first two dimensions
#: transposed, since ``torch.view_as_complex`` needs stride 1 in the last one: :func:`column_layout_problems`
#: checks that). Neither is itself a view, nor is the source of the in-place column (:func:`view_source_problems`
#: checks that).
#: ``None``: the layout does not exist (the sparse COO source is not strided: it has no column-by-column form;
#: :func:`one_layout_problems` checks that).
SOURCES: dict[str, tuple[str, str | None]] = {
    "a": ("torch.arange(12.).reshape(3, 4).clone()",
          "torch.empty_strided((3, 4), (1, 3)).copy_(torch.arange(12.).reshape(3, 4))"),
    "z": ("torch.arange(12.).reshape(3, 4) * (1 + 1j)",
          "torch.empty_strided((3, 4), (1, 3), dtype=torch.complex64)"
          ".copy_(torch.arange(12.).reshape(3, 4) * (1 + 1j))"),
    "p": ("torch.arange(24.).reshape(3, 4, 2).clone()",
          "torch.empty_strided((3, 4, 2), (2, 6, 1)).copy_(torch.arange(24.).reshape(3, 4, 2))"),
    "s": ("torch.tensor([[0., 1.], [2., 0.]]).to_sparse()", None),
}


@dataclasses.dataclass(frozen=True)
class Row:
    """One operation: its code (run as written), the torch object it documents, and where it raises."""

    code: str
    doc: str  #: the torch name the row's code calls, for the link to its documentation ("" when none)
    raises: dict[str, str] = dataclasses.field(default_factory=dict)  #: layout -> phrase of the error

    @functools.cached_property
    def source(self) -> str:
        """The name of the source the code reads (``a``, ``z``, ``p`` or ``s``)."""
        return next(name for name in re.findall(r"\b([azps])\b", self.code) if name in SOURCES)


_T = "torch.Tensor."
_VIEW_SIZE = "view size is not compatible with input tensor's size and stride"

#: The operations the PyTorch documentation lists as views ("Tensor Views"), with its own examples
#: of indexing. A multi-output operation is probed through its first output.
VIEWS: tuple[Row, ...] = (
    Row("a[0]", ""),
    Row("a[:, 1:3]", ""),
    Row("a[None]", ""),
    Row("a.view(4, 3)", _T + "view", {"non-contiguous": _VIEW_SIZE}),
    Row("a.view_as(torch.empty(4, 3))", _T + "view_as", {"non-contiguous": _VIEW_SIZE}),
    Row("a.t()", _T + "t"),
    Row("a.T", _T + "T"),
    Row("a.mT", _T + "mT"),
    Row("a.H", _T + "H"),
    Row("a.mH", _T + "mH"),
    Row("a.adjoint()", _T + "adjoint"),
    Row("a.transpose(0, 1)", _T + "transpose"),
    Row("a.swapaxes(0, 1)", _T + "swapaxes"),
    Row("a.swapdims(0, 1)", _T + "swapdims"),
    Row("a.permute(1, 0)", _T + "permute"),
    Row("a.movedim(0, 1)", _T + "movedim"),
    Row("a.moveaxis(0, 1)", _T + "moveaxis"),
    Row("a.narrow(1, 0, 2)", _T + "narrow"),
    Row("a.select(0, 1)", _T + "select"),
    Row("a.unbind()[0]", _T + "unbind"),
    Row("a.split(1)[0]", _T + "split"),
    Row("a.split_with_sizes([1, 2])[0]", ""),  # no page of its own in the PyTorch documentation
    Row("a.chunk(3)[0]", _T + "chunk"),
    Row("a.tensor_split(3)[0]", _T + "tensor_split"),
    Row("a.hsplit(2)[0]", _T + "hsplit"),
    Row("a.vsplit(3)[0]", _T + "vsplit"),
    Row("a.expand(2, 3, 4)", _T + "expand"),
    Row("a.expand_as(torch.empty(2, 3, 4))", _T + "expand_as"),
    Row("a.squeeze()", _T + "squeeze"),
    Row("a.unsqueeze(0)", _T + "unsqueeze"),
    Row("a.unflatten(1, (2, 2))", _T + "unflatten"),
    Row("a.unfold(1, 2, 1)", _T + "unfold"),
    Row("a.diagonal()", _T + "diagonal"),
    Row("a.as_strided((2, 2), (1, 1))", _T + "as_strided"),
    Row("a.detach()", _T + "detach"),
    Row("z.real", _T + "real"),
    Row("z.imag", _T + "imag"),
    Row("torch.view_as_real(z)", "torch.view_as_real"),
    Row("torch.view_as_complex(p)", "torch.view_as_complex"),
    Row("s.indices()", _T + "indices"),
    Row("s.values()", _T + "values"),
)

#: Operations that give a view or a copy depending on the source, and ways of indexing that copy.
MAYBE: tuple[Row, ...] = (
    Row("a.reshape(4, 3)", _T + "reshape"),
    Row("a.reshape_as(torch.empty(4, 3))", _T + "reshape_as"),
    Row("a.flatten()", _T + "flatten"),
    Row("a.contiguous()", _T + "contiguous"),
    Row("a.to(torch.float32)", _T + "to"),
    Row("a.to(torch.float64)", _T + "to"),
    Row("a.type_as(torch.empty(0))", _T + "type_as"),
    Row("a.data", ""),
    Row("a[[0, 2]]", ""),
    Row("a[a > 5]", ""),
)

#: The tables of the page, by the directive's option.
GROUPS: dict[str, tuple[Row, ...]] = {"views": VIEWS, "maybe": MAYBE}
ROWS: dict[str, Row] = {row.code: row for group in GROUPS.values() for row in group}

#: The columns, in page order (each shown once per layout).
COLUMNS = ("shares_storage", "autograd_view", "writes_through", "edit_refused")

#: The value written through a result; the sources hold none of it (they count up from 0).
FILL = -1

#: The refusals the in-place probe expects (language-neutral key -> phrase of torch's message).
MULTI_OUTPUT = "multi-output"
REFUSALS = {MULTI_OUTPUT: "This view is the output of a function that returns multiple views"}


@dataclasses.dataclass(frozen=True)
class Raised:
    """The row's operation raised on this layout, as the row says it does: the cell shows the error."""

    error: str  #: "RuntimeError: torch's message", shown under the table (see :func:`shown_message`)
    message: str = ""  #: torch's whole message, read by the notes under the table


def shown_message(exc: BaseException) -> str:
    """``"RuntimeError: message"``: the whole message when it is one line that names no path, else its first
    sentence (the rest of a longer message may name paths of the machine that built torch)."""
    text = str(exc).strip()
    whole = "\n" not in text and "/" not in text
    return f"{type(exc).__name__}: {text if whole else first_sentence(text)}"


@dataclasses.dataclass(frozen=True)
class Refused:
    """The in-place write through the result raised one of :data:`REFUSALS`."""

    kind: str
    error: str


#: A layout that does not exist for the row's source (the sparse COO source has no column-by-column form).
NOT_APPLICABLE = None


def source_code(name: str, layout: str) -> str | None:
    return SOURCES[name][LAYOUTS.index(layout)]


def one_layout_problems() -> list[str]:
    """The sources with one layout only (the page says: sparse COO, so not strided), where that is not so."""
    problems = []
    for name, (code, other) in SOURCES.items():
        layout = eval(code, {"torch": torch}).layout  # noqa: S307 (code of this module, shown on the page)
        if (other is None) != (layout == torch.sparse_coo):
            problems.append(f"{name} = {code}: layout {layout}, second layout given: {other is not None}")
    return problems


def column_layout_problems() -> list[str]:
    """Where the page's account of the non-contiguous sources does not hold: each has the strides of its
    first two dimensions transposed (all of them, for a 2-D source); a source with more dimensions is read by
    ``torch.view_as_complex``, which refuses it with all its dimensions transposed (last stride not 1)."""
    problems = []
    for name, (code, other) in SOURCES.items():
        if other is None:
            continue
        source = eval(code, {"torch": torch})  # noqa: S307 (code of this module, shown on the page)
        made = eval(other, {"torch": torch})  # noqa: S307
        column = source.transpose(0, 1).contiguous().transpose(0, 1).stride()
        if made.stride() != column:
            problems.append(f"{name} = {other}: strides {made.stride()}, first two dimensions transposed: {column}")
        if source.dim() <= 2:
            continue
        if not any(row.code == f"torch.view_as_complex({name})" for row in ROWS.values()):
            problems.append(f"{name}: no row runs torch.view_as_complex({name}), the reason the page gives")
        dims = tuple(reversed(range(source.dim())))
        transposed = torch.empty_strided(source.shape, source.permute(dims).contiguous().permute(dims).stride())
        try:
            torch.view_as_complex(transposed.copy_(source))
        except RuntimeError as exc:
            if "last dimension with stride 1" not in str(exc):
                problems.append(f"{name}: torch.view_as_complex of all dimensions transposed: {exc}")
        else:
            problems.append(f"{name}: torch.view_as_complex takes all dimensions transposed")
    return problems


def view_source_problems() -> list[str]:
    """The sources that are views (the page says none is): each layout, as built for the first three columns
    and as the non-leaf of the in-place column, with ``_is_view()`` true or a ``_base``."""
    return [f"{name} ({layout}{', grad' if grad else ''}): _is_view() {t._is_view()}, _base {t._base is not None}"
            for name in SOURCES for layout in LAYOUTS for grad in (False, True)
            if (t := make_source(name, layout, grad=grad)) is not None and (t._is_view() or t._base is not None)]


def make_source(name: str, layout: str, *, grad: bool = False) -> torch.Tensor | None:
    """A fresh source; with ``grad``, a non-leaf that requires grad (``x.clone()`` of a leaf ``x``)."""
    code = source_code(name, layout)
    if code is None:
        return None
    if not grad:
        return eval(_compiled(code), {"torch": torch})  # noqa: S307 (code of this module, shown on the page)
    leaf = eval(_compiled(code), {"torch": torch})  # noqa: S307
    return leaf.requires_grad_().clone()


def apply(row: Row, source: torch.Tensor) -> torch.Tensor:
    """Run the row's code on ``source``."""
    return eval(_compiled(row.code), {"torch": torch, row.source: source})  # noqa: S307


@functools.cache
def _compiled(code: str):
    """The code of a row or a source, compiled once (the facts run each row thousands of times)."""
    return compile(code, code, "eval")


def storages(t: torch.Tensor) -> set[int]:
    """The addresses of the memory ``t`` looks at (a sparse tensor: its indices' and its values')."""
    if t.is_sparse:
        return {t._indices().untyped_storage().data_ptr(), t._values().untyped_storage().data_ptr()}
    return {t.untyped_storage().data_ptr()}


def snapshot(t: torch.Tensor) -> list[torch.Tensor]:
    """Copies of the values of ``t`` (a sparse tensor: of its indices and its values)."""
    return [t._indices().clone(), t._values().clone()] if t.is_sparse else [t.clone()]


def _made(row: Row, layout: str, *, grad: bool = False) -> tuple[torch.Tensor, torch.Tensor] | Raised | None:
    """(source, result), or the :class:`Raised` the row declares, or NOT_APPLICABLE."""
    source = make_source(row.source, layout, grad=grad)
    if source is None:
        return NOT_APPLICABLE
    expected = row.raises.get(layout)
    try:
        result = apply(row, source)
    except RuntimeError as exc:
        if expected and expected in str(exc):
            return Raised(shown_message(exc), str(exc))
        raise
    if expected:
        raise AssertionError(f"{row.code} on the {layout} source was expected to raise ({expected!r})")
    return source, result


def probe_shares_storage(row: Row, layout: str) -> object:
    made = _made(row, layout)
    if not isinstance(made, tuple):
        return made
    source, result = made
    return bool(storages(result) & storages(source))


def probe_autograd_view(row: Row, layout: str) -> object:
    """``result._is_view()``: does autograd treat the result as a view of another tensor?"""
    made = _made(row, layout)
    if not isinstance(made, tuple):
        return made
    return made[1]._is_view()


def probe_writes_through(row: Row, layout: str) -> object:
    """``result.fill_(-1)`` on a source that does not require grad: did the source change?"""
    made = _made(row, layout)
    if not isinstance(made, tuple):
        return made
    source, result = made
    before = snapshot(source)
    result.fill_(FILL)
    return not all(torch.equal(x, y) for x, y in zip(before, snapshot(source), strict=True))


def probe_edit_refused(row: Row, layout: str) -> object:
    """``result.fill_(-1)`` with grad mode on, the source a non-leaf that requires grad: does it raise?"""
    made = _made(row, layout, grad=True)
    if not isinstance(made, tuple):
        return made
    try:
        made[1].fill_(FILL)
    except RuntimeError as exc:
        for kind, phrase in REFUSALS.items():
            if phrase in str(exc):
                return Refused(kind, shown_message(exc))
        raise
    return False


PROBES: dict[str, Callable[[Row, str], object]] = {
    "shares_storage": probe_shares_storage,
    "autograd_view": probe_autograd_view,
    "writes_through": probe_writes_through,
    "edit_refused": probe_edit_refused,
}


@dataclasses.dataclass(frozen=True)
class ProbeFailure:
    """A probe that raised or let a warning escape: the cell has no value, the build fails."""

    message: str


def run_probe(column: str, row: Row, layout: str) -> object:
    """One cell. Never raises: a failing probe becomes a :class:`ProbeFailure`."""
    with torch.enable_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = PROBES[column](row, layout)
        except Exception as exc:
            return ProbeFailure(f"{type(exc).__name__}: {exc}")
    if caught:
        return ProbeFailure(f"a warning escaped: {caught[0].category.__name__}: {caught[0].message}")
    return value


Table = dict[str, dict[str, dict[str, object]]]  # row code -> layout -> column -> cell


def probe_all(rows: tuple[Row, ...] | None = None) -> Table:
    """Every cell of every row (by default the rows of both tables)."""
    rows = tuple(ROWS.values()) if rows is None else rows
    return {row.code: {layout: {column: run_probe(column, row, layout) for column in COLUMNS}
                       for layout in LAYOUTS} for row in rows}


def failures(table: Table) -> list[str]:
    """Every cell whose probe failed, as "row / layout / column: message"."""
    return [f"{code} / {layout} / {column}: {value.message}"
            for code, layouts in table.items() for layout, cells in layouts.items()
            for column, value in cells.items() if isinstance(value, ProbeFailure)]
