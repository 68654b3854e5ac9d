"""Probes behind the behaviour matrix: what each way of "copying" a tensor really gives you.

Pure Python (imports torch, never Sphinx). Every cell of the matrix is the return value of one
probe function run on fresh tensors; nothing in the table is typed by hand. The site's
``behaviour-matrix`` directive renders the results, and checks the premises of the "which one
should I use" guide (also defined here, next to the facts it relies on) against them.

Run ``python -m tensorfacts --matrix`` to print the matrix as plain text.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import re
import warnings
from collections.abc import Callable, Mapping

import torch

from sitetools.editions import pick
from tensorfacts.facts import run_fact
from tensorfacts.tensors import first_sentence, grad_fn_name, same_storage, warning_line


def _clone_under_no_grad(a: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return a.clone()


#: The ways of getting a "b" from "a" that the matrix compares, as the reader would type them.
OPERATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "b = a": lambda a: a,
    "a.data": lambda a: a.data,
    "a.detach()": lambda a: a.detach(),
    "a.view(3)": lambda a: a.view(3),
    "a.float()": lambda a: a.float(),
    "a.double()": lambda a: a.double(),
    "torch.as_tensor(a)": lambda a: torch.as_tensor(a),
    "a.clone()": lambda a: a.clone(),
    "with torch.no_grad(): a.clone()": _clone_under_no_grad,
    "a.detach().clone()": lambda a: a.detach().clone(),
    "a.clone().detach()": lambda a: a.clone().detach(),
    "copy.copy(a)": lambda a: copy.copy(a),
    "copy.deepcopy(a)": lambda a: copy.deepcopy(a),
    "torch.tensor(a)": lambda a: torch.tensor(a),
    "torch.empty_like(a).copy_(a)": lambda a: torch.empty_like(a).copy_(a),
}


def _pair(x: torch.Tensor, a: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    return x, x if a is None else a


def _inference() -> tuple[torch.Tensor, torch.Tensor]:
    with torch.inference_mode():
        a = torch.tensor([1.0, 2.0, 3.0])
    return _pair(a)


#: The kinds of source tensor, one table each. Each entry builds (leaf, a): the leaf gradients
#: land on (the source itself when it has no history), and a.
SOURCES: dict[str, Callable[[], tuple[torch.Tensor, torch.Tensor]]] = {
    "leaf": lambda: _pair(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    "non-leaf": lambda: (lambda x: _pair(x, x * 2))(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    "parameter": lambda: _pair(torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))),
    "view": lambda: (lambda base: _pair(base, base[1:]))(torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)),
    "plain": lambda: _pair(torch.tensor([1.0, 2.0, 3.0])),
    "inference": _inference,
}

#: How each source is written on the page.
SOURCE_CODE = {
    "leaf": "a = torch.tensor([1., 2., 3.], requires_grad=True)",
    "non-leaf": "x = torch.tensor([1., 2., 3.], requires_grad=True); a = x * 2",
    "parameter": "a = torch.nn.Parameter(torch.tensor([1., 2., 3.]))",
    "view": "base = torch.tensor([0., 1., 2., 3.], requires_grad=True); a = base[1:]",
    "plain": "a = torch.tensor([1., 2., 3.])",
    "inference": "with torch.inference_mode(): a = torch.tensor([1., 2., 3.])",
}

#: The gradient of ``(a * a).sum()`` with respect to the leaf, for each source, as calculus says
#: (None: the source does not require grad, there is no graph).
TRUE_GRADIENT = {
    "leaf": [2.0, 4.0, 6.0],  # d/da a**2 = 2a
    "non-leaf": [8.0, 16.0, 24.0],  # d/dx (2x)**2 = 8x
    "parameter": [2.0, 4.0, 6.0],
    "view": [0.0, 2.0, 4.0, 6.0],  # d/dbase of base[1:]**2: nothing for base[0]
    "plain": None,
    "inference": None,
}

#: The sources that require grad: the ones the edit columns say something about.
GRAD_SOURCES = tuple(s for s, g in TRUE_GRADIENT.items() if g is not None)

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

#: The sources whose tensor has no version counter at all (reading ``_version`` raises).
NO_VERSION_COUNTER = ("inference",)
#: The others: where a sentence about sharing the version counter applies.
VERSIONED_SOURCES = tuple(s for s in SOURCES if s not in NO_VERSION_COUNTER)

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
            return Made(leaf, a, None, f"{type(exc).__name__}: {first_sentence(str(exc))}")
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


@dataclasses.dataclass(frozen=True)
class Advice:
    """One entry of the guide, in every edition's language, and what it rests on.

    ``premise`` reads the probed matrix; ``facts`` names checks of :mod:`tensorfacts.facts` for
    the parts of the sentence no table cell shows. Both must hold.
    """

    id: str
    texts: Mapping[str, str]  #: edition code -> the advice in that language
    premise: Callable[[Matrix], bool]
    facts: tuple[str, ...] = ()

    def text(self, language: str) -> str:
        """The advice in ``language``; a missing translation raises (no fallback)."""
        return pick(self.texts, language, f"guide entry {self.id}")


def _row(m: Matrix, source: str, operation: str) -> dict[str, object]:
    return m[source][operation]


def _everywhere(m: Matrix, operation: str, sources: tuple[str, ...] = tuple(SOURCES),
                **expected: object) -> bool:
    return all(
        all(_row(m, source, operation)[column] == value for column, value in expected.items())
        for source in sources
    )


def _refused(m: Matrix, source: str, operation: str, column: str, kind: str, changed: bool | None = None) -> bool:
    cell = _row(m, source, operation)[column]
    return isinstance(cell, Refused) and cell.kind == kind and (changed is None or cell.changed is changed)


def _no_counter(m: Matrix, *operations: str) -> bool:
    """In each row of ``operations``, every source with no version counter says it has none."""
    return all(_refused(m, s, op, "shares_version", NO_COUNTER) for s in NO_VERSION_COUNTER for op in operations)


def _edits(m: Matrix, operation: str, outcome: str) -> bool:
    """Both edit columns give ``outcome`` for every source that requires grad."""
    return all(_row(m, s, operation)[c] == outcome for s in GRAD_SOURCES for c in EDIT_COLUMNS)


def _same_row(m: Matrix, operation: str, other: str, ignore: tuple[str, ...] = ()) -> bool:
    return all({k: v for k, v in _row(m, s, operation).items() if k not in ignore}
               == {k: v for k, v in _row(m, s, other).items() if k not in ignore} for s in SOURCES)


#: Expressions a guide entry may name outside the table, and the fact that checks each.
FACT_EXPRESSIONS: dict[str, tuple[str, ...]] = {
    "noop-conversions-return-a": ("a.to(torch.float32)", "a.cpu()", "a.contiguous()"),
    "detach-numpy-write-silent": ("a.detach().numpy()",),
    "trainable-copy-in-a-loop": ("a.detach().clone().requires_grad_(True)",),
    "deepcopy-as-trainable-copy": ("a.grad",),
}


GUIDE: tuple[Advice, ...] = (
    Advice(
        "independent-copy",
        {
            "en": "For an independent copy with no autograd history, use `a.detach().clone()`: it has its "
                "own storage and its own version counter (an inference tensor `a` has no version counter at all), "
                "no `grad_fn`, `requires_grad=False`, raises no warning, "
                "and an in-place edit of it, with or without `torch.no_grad()`, leaves the gradient of `a` "
                "alone. `with torch.no_grad(): a.clone()` gives the same row.",
            "zh_CN": "要一份与原张量无关、也不带求导历史的副本，就用 `a.detach().clone()`。它有自己的存储和版本计数器"
                "（推理张量 `a` 根本没有版本计数器），没有 `grad_fn`，`requires_grad=False`，也不会触发警告；"
                "无论是否在 `torch.no_grad()` 下原地修改它，"
                "`a` 的梯度都不受影响。`with torch.no_grad(): a.clone()` 得到的一行与它完全相同。",
        },
        lambda m: _everywhere(
            m, "a.detach().clone()", same_object=False, shares_storage=False,
            requires_grad=False, grad_fn="None", raised="")
        and _everywhere(m, "a.detach().clone()", VERSIONED_SOURCES, shares_version=False)
        and _no_counter(m, "a.detach().clone()")
        and _edits(m, "a.detach().clone()", EDIT_UNAFFECTED)
        and _same_row(m, "with torch.no_grad(): a.clone()", "a.detach().clone()"),
    ),
    Advice(
        "clone-detach-same",
        {
            "en": "`a.clone().detach()` gives the same result in every column.",
            "zh_CN": "`a.clone().detach()` 在表中每一列都与它相同。",
        },
        lambda m: _same_row(m, "a.clone().detach()", "a.detach().clone()"),
    ),
    Advice(
        "copy-in-graph",
        {
            "en": "For a copy that gradients still flow back through, use `a.clone()` on a tensor that "
                "requires grad: its own storage and version counter, `requires_grad=True` and a `CloneBackward0` "
                "node. "
                "`torch.empty_like(a).copy_(a)` does the same through `CopyBackwards`, and `a.double()` "
                "through `ToCopyBackward0` (it also changes the dtype).",
            "zh_CN": "要一份副本、梯度又要传回 `a`，就对需要梯度的张量用 `a.clone()`：它有自己的存储和版本计数器，"
                "`requires_grad=True`，带一个 `CloneBackward0` 节点。`torch.empty_like(a).copy_(a)` 效果相同，"
                "节点是 `CopyBackwards`；`a.double()` 也一样，节点是 `ToCopyBackward0`（同时改变了 dtype）。",
        },
        lambda m: all(
            _everywhere(m, op, GRAD_SOURCES, shares_storage=False, shares_version=False,
                        requires_grad=True, grad_fn=node)
            for op, node in (("a.clone()", "CloneBackward0"),
                             ("torch.empty_like(a).copy_(a)", "CopyBackwards"),
                             ("a.double()", "ToCopyBackward0"))),
    ),
    Advice(
        "detach-view",
        {
            "en": "To read the values without autograd and without copying, use `a.detach()`. It shares "
                "storage and the version counter with `a` (an inference tensor has no version counter at all): "
                "edit it in place after autograd saved `a`, even "
                "under `torch.no_grad()`, and backward raises an error. It does not catch everything: a write "
                "through `a.detach().numpy()` after autograd saved `a` moves no version counter, and backward "
                "returns a wrong gradient without any error. An edit made before autograd saves the tensor is "
                "no error at all: backward treats it as a constant and returns what the same edit under "
                "`torch.no_grad()` gives (for a tenfold edit, what `a + (9 * a).detach()` gives); when the edit "
                "reaches the leaf itself (a leaf, a `Parameter`, a view of a leaf), that is the gradient at the "
                "edited values.",
            "zh_CN": "只想读取数值，既不求导也不复制，就用 `a.detach()`。它与 `a` 共享存储和版本计数器"
                "（推理张量根本没有版本计数器）："
                "自动求导保存了 `a` 之后再原地修改它，即使在 `torch.no_grad()` 下，反向传播也会报错。"
                "但它并非万无一失：自动求导保存了 `a` 之后，"
                "通过 `a.detach().numpy()` 写入数据不会推进版本计数器，"
                "反向传播照常完成，梯度却是错的。"
                "在自动求导保存该张量之前做的修改则根本不算错误：反向传播把它当作常数，"
                "结果与在 `torch.no_grad()` 下做同样的修改相同（放大十倍时，与 `a + (9 * a).detach()` 相同）；"
                "如果修改落到了叶子张量本身（叶子张量、`Parameter`、叶子张量的视图），这就是按修改后的数值算出的梯度。",
        },
        lambda m: _everywhere(m, "a.detach()", shares_storage=True, requires_grad=False, grad_fn="None")
        and _everywhere(m, "a.detach()", VERSIONED_SOURCES, shares_version=True)
        and _no_counter(m, "a.detach()")
        and _edits(m, "a.detach()", EDIT_DETECTED),
        facts=("detach-edit-before-save", "detach-numpy-write-silent"),
    ),
    Advice(
        "view",
        {
            "en": "A view such as `a.view(3)` is not a copy either: it shares storage and the version "
                "counter with `a` (an inference tensor has no version counter at all) and stays in the graph "
                "(`ViewBackward0`). A view of a leaf that requires grad refuses in-place edits outside "
                "`torch.no_grad()`, and so does `b = a` when `a` is itself such a view.",
            "zh_CN": "`a.view(3)` 这样的视图也不是副本：它与 `a` 共享存储和版本计数器（推理张量根本没有版本计数器），"
                "并留在计算图中（`ViewBackward0`）。需要梯度的叶子张量的视图，"
                "在 `torch.no_grad()` 之外一做原地修改就会报错；"
                "如果 `a` 本身就是这样的视图，`b = a` 也一样。",
        },
        lambda m: _everywhere(m, "a.view(3)", shares_storage=True)
        and _everywhere(m, "a.view(3)", VERSIONED_SOURCES, shares_version=True)
        and _no_counter(m, "a.view(3)")
        and _everywhere(m, "a.view(3)", GRAD_SOURCES, grad_fn="ViewBackward0")
        and all(_row(m, s, "a.view(3)")["inplace_edit"] == EDIT_REFUSED for s in ("leaf", "parameter", "view"))
        and _row(m, "view", "b = a")["inplace_edit"] == EDIT_REFUSED,
    ),
    Advice(
        "avoid-data",
        {
            "en": "Avoid `a.data`: it shares storage but not the version counter (an inference tensor has no "
                "version counter at all), so an in-place edit "
                "through it, with or without `torch.no_grad()`, goes unnoticed and backward returns a wrong "
                "gradient without any error. `copy.copy(a)` is no better: it shares storage, not the counter, "
                "and an edit of it under `torch.no_grad()` goes unnoticed in the same way.",
            "zh_CN": "不要用 `a.data`：它共享存储，却不共享版本计数器（推理张量根本没有版本计数器）。"
                "无论是否在 `torch.no_grad()` 下，"
                "通过它做的原地修改自动求导都察觉不到，反向传播不报错，梯度却是错的。"
                "`copy.copy(a)` 也好不到哪里去：它同样共享存储、不共享版本计数器，"
                "在 `torch.no_grad()` 下原地修改它也不会被发现。",
        },
        lambda m: all(_everywhere(m, op, shares_storage=True)
                      and _everywhere(m, op, VERSIONED_SOURCES, shares_version=False)
                      for op in ("a.data", "copy.copy(a)"))
        and _no_counter(m, "a.data", "copy.copy(a)")
        and _edits(m, "a.data", EDIT_SILENT)
        and all(_row(m, s, "copy.copy(a)")["inplace_edit_no_grad"] == EDIT_SILENT for s in GRAD_SOURCES),
    ),
    Advice(
        "alias",
        {
            "en": "`b = a` copies nothing: `b` is the same object as `a`, and so are `torch.as_tensor(a)` "
                "and `a.float()` on a float tensor (likewise `a.to(torch.float32)`, `a.cpu()` on a CPU "
                "tensor and `a.contiguous()` on a contiguous one). An in-place edit of `b` under "
                "`torch.no_grad()` is an edit of `a`: backward raises if autograd saved `a`; if `a` is an "
                "inference tensor, the edit itself raises, and yet `a` has changed.",
            "zh_CN": "`b = a` 什么也没有复制：`b` 和 `a` 就是同一个对象；`torch.as_tensor(a)`、"
                "对 float 张量调用 `a.float()` 也是如此（`a.to(torch.float32)`、对 CPU 张量调用 `a.cpu()`、"
                "对连续张量调用 `a.contiguous()` 同样返回 `a` 本身）。"
                "在 `torch.no_grad()` 下原地修改 `b`，就是在修改 `a`："
                "如果自动求导保存过 `a`，反向传播时会报错；"
                "如果 `a` 是推理张量，修改本身就会报错，可 `a` 的值还是变了。",
        },
        lambda m: all(_everywhere(m, op, same_object=True)
                      for op in ("b = a", "torch.as_tensor(a)", "a.float()"))
        and all(_row(m, s, "b = a")["inplace_edit_no_grad"] == EDIT_DETECTED for s in GRAD_SOURCES)
        and _refused(m, "inference", "b = a", "inplace_edit_no_grad", INFERENCE_EDIT, changed=True),
        facts=("noop-conversions-return-a",),
    ),
    Advice(
        "torch-tensor",
        {
            "en": "Do not pass a tensor to `torch.tensor()`: it warns (`UserWarning`) and suggests "
                "`detach().clone()`, whose row it matches.",
            "zh_CN": "不要把张量传给 `torch.tensor()`：它会发出 `UserWarning`，建议改用 `detach().clone()`；"
                "两者在表中的结果一致。",
        },
        lambda m: all(
            str(_row(m, s, "torch.tensor(a)")["raised"]).startswith("UserWarning")
            and "detach().clone()" in str(_row(m, s, "torch.tensor(a)")["raised"])
            for s in SOURCES) and _same_row(m, "torch.tensor(a)", "a.detach().clone()", ("raised",)),
    ),
    Advice(
        "deepcopy",
        {
            "en": "`copy.deepcopy(a)` works only on a tensor with no `grad_fn` (a leaf, a `Parameter`, a "
                "tensor that does not require grad, an inference tensor); on a non-leaf, a view of a leaf "
                "included, it raises `RuntimeError`. It gives new "
                "storage and keeps `requires_grad` and the class: a `Parameter` stays a `Parameter`. What it "
                "does with `.grad` depends on the class: the copy of a `torch.Tensor` gets a copy of its `.grad`, "
                "the copy of a `Parameter` has none (`.grad` is `None`), and so has every parameter of a "
                "deep-copied model. For a view of a tensor that does not require grad it copies the whole "
                "storage behind it, where `clone()` copies only the view's elements.",
            "zh_CN": "`copy.deepcopy(a)` 只能用于没有 `grad_fn` 的张量（叶子张量、`Parameter`、不需要梯度的张量、"
                "推理张量）；对非叶子张量（包括叶子张量的视图）会抛出 `RuntimeError`。它分配新的存储，保留 "
                "`requires_grad` 和类型：`Parameter` 复制后仍是 `Parameter`。`.grad` 复不复制要看类型："
                "`torch.Tensor` 的副本会得到一份 `.grad` 的拷贝，`Parameter` 的副本则没有（`.grad` 为 `None`），"
                "深拷贝整个模型时，每个参数也都是如此。"
                "对不需要梯度的张量的视图，它复制的是视图背后的整块存储，而 `clone()` 只复制视图中的元素。",
        },
        lambda m: all(
            _row(m, s, "copy.deepcopy(a)")["raised"] == ""
            and _row(m, s, "copy.deepcopy(a)")["shares_storage"] is False
            and _row(m, s, "b = a")["grad_fn"] == "None"
            and _row(m, s, "copy.deepcopy(a)")["requires_grad"] == _row(m, s, "b = a")["requires_grad"]
            and _row(m, s, "copy.deepcopy(a)")["type"] == _row(m, s, "b = a")["type"]
            for s in ("leaf", "parameter", "plain", "inference"))
        and _row(m, "parameter", "copy.deepcopy(a)")["type"] == "Parameter"
        and all(str(_row(m, s, "copy.deepcopy(a)")["raised"]).startswith("RuntimeError")
                for s in ("non-leaf", "view")),
        facts=("deepcopy-grad-by-source", "deepcopy-model-drops-grad", "deepcopy-view-copies-storage"),
    ),
    Advice(
        "inference",
        {
            "en": "A tensor made under `torch.inference_mode()` has no version counter at all. Outside "
                "inference mode an in-place edit of it through `b = a` or `a.view(3)` raises, with or without "
                "`torch.no_grad()`, and yet the values of `a` have changed: do not catch that error and carry "
                "on. `a.data`, `a.detach()` and `copy.copy(a)`, which share its storage, take the edit without "
                "an error, and it reaches `a`. To edit the values, edit `a.clone()` or `a.detach().clone()`: "
                "new storage, and the edit goes through.",
            "zh_CN": "在 `torch.inference_mode()` 下创建的张量根本没有版本计数器。离开推理模式后，无论是否在 "
                "`torch.no_grad()` 下，通过 `b = a` 或 `a.view(3)` 原地修改它都会报错，可 `a` 的值已经变了："
                "不要捕获这个错误后接着往下算。`a.data`、`a.detach()` 和 `copy.copy(a)` 与它共享存储，"
                "原地修改它们不报错，改动会落到 `a` 上。要修改这些数值，就去修改 "
                "`a.clone()` 或 `a.detach().clone()`：它们有新的存储，原地修改可以照常进行。",
        },
        lambda m: _no_counter(m, *OPERATIONS)
        and all(_refused(m, "inference", op, c, INFERENCE_EDIT, changed=True)
                for op in ("b = a", "a.view(3)") for c in EDIT_COLUMNS)
        and all(_row(m, "inference", op)["shares_storage"] is True
                and all(_row(m, "inference", op)[c] == EDIT_NO_GRAPH for c in EDIT_COLUMNS)
                for op in ("a.data", "a.detach()", "copy.copy(a)"))
        and all(_row(m, "inference", op)["shares_storage"] is False
                and all(_row(m, "inference", op)[c] == EDIT_NO_GRAPH for c in EDIT_COLUMNS)
                for op in ("a.clone()", "a.detach().clone()")),
    ),
)


def failed_premises(m: Matrix, guide: tuple[Advice, ...] = GUIDE) -> list[str]:
    """Ids of the entries of ``guide`` (by default the matrix page's) whose premises the probed
    matrix (or whose named facts) do not support."""
    failed = []
    for advice in guide:
        try:
            ok = advice.premise(m)
        except Exception:
            ok = False
        if not ok or not all(run_fact(f).holds for f in advice.facts):
            failed.append(advice.id)
    return failed


def main() -> int:
    """Print the matrix as plain text; nonzero when a probe failed or a premise broke."""
    m = probe_all()
    print(f"torch {torch.__version__}")
    for source, rows in m.items():
        print(f"\n[{source}] {SOURCE_CODE[source]}")
        for operation, cells in rows.items():
            print(f"  {operation:30} " + " | ".join(f"{k}={v!r}" for k, v in cells.items()))
    for problem in failures(m):
        print("PROBE FAILED:", problem)
    failed = failed_premises(m)
    print("\nguide premises:", "all hold" if not failed else f"FAILED: {', '.join(failed)}")
    return 1 if failed or failures(m) else 0

