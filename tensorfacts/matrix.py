"""Probes behind the behaviour matrix: what each way of "copying" a tensor really gives you.

Pure Python (imports torch, never Sphinx). Every cell of the matrix is the return value of one
probe function run on fresh tensors; nothing in the table is typed by hand. The site's
``behaviour-matrix`` directive renders the results, and checks the premises of the "which one
should I use" guide (also defined here, next to the facts it relies on) against them.

Run ``python -m tensorfacts --matrix`` to print the matrix as plain text.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import Callable, Mapping

import torch

from sitetools.editions import pick
from tensorfacts.tensors import first_sentence, grad_fn_name, same_storage, warning_line

#: The ways of getting a "b" from "a" that the matrix compares, as the reader would type them.
OPERATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "b = a": lambda a: a,
    "a.data": lambda a: a.data,
    "a.detach()": lambda a: a.detach(),
    "a.clone()": lambda a: a.clone(),
    "a.detach().clone()": lambda a: a.detach().clone(),
    "a.clone().detach()": lambda a: a.clone().detach(),
    "copy.deepcopy(a)": lambda a: copy.deepcopy(a),
    "torch.tensor(a)": lambda a: torch.tensor(a),
    "torch.empty_like(a).copy_(a)": lambda a: torch.empty_like(a).copy_(a),
}

#: The two kinds of source tensor. Each entry builds (leaf, a): the leaf gradients land on, and a.
SOURCES: dict[str, Callable[[], tuple[torch.Tensor, torch.Tensor]]] = {
    "leaf": lambda: (lambda x: (x, x))(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    "non-leaf": lambda: (lambda x: (x, x * 2))(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
}

#: How each source is written on the page.
SOURCE_CODE = {
    "leaf": "a = torch.tensor([1., 2., 3.], requires_grad=True)",
    "non-leaf": "x = torch.tensor([1., 2., 3.], requires_grad=True); a = x * 2",
}

#: The gradient of ``(a * a).sum()`` with respect to the leaf, for each source, as calculus says.
TRUE_GRADIENT = {
    "leaf": [2.0, 4.0, 6.0],  # d/da a**2 = 2a
    "non-leaf": [8.0, 16.0, 24.0],  # d/dx (2x)**2 = 8x
}

#: Outcomes of the in-place edit probe (language-neutral keys; the extension translates them).
EDIT_REFUSED = "refused"  # the in-place edit itself raises
EDIT_DETECTED = "detected"  # backward raises: autograd saw the edit
EDIT_SILENT = "silent"  # backward runs and returns a wrong gradient
EDIT_UNAFFECTED = "unaffected"  # backward runs and the gradient is right: the edit did not reach a

#: A cell whose result could not be made (the operation raised).
NOT_MADE = None


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


def probe_shares_version(source: str, operation: str) -> bool | None:
    """Does an in-place change of the result move the source's version counter?"""
    m = make(source, operation)
    if m.b is None:
        return NOT_MADE
    before = m.a._version
    with torch.no_grad():
        m.b.add_(0)  # any in-place call bumps the counter of every tensor that shares it
    return m.a._version != before


def probe_inplace_edit(source: str, operation: str) -> str | None:
    """Edit the result in place after autograd saved the source, then run backward."""
    m = make(source, operation)
    if m.b is None:
        return NOT_MADE
    loss = (m.a * m.a).sum()  # saves a for backward
    try:
        m.b.mul_(10)
    except RuntimeError:
        return EDIT_REFUSED
    try:
        loss.backward()
    except RuntimeError:
        return EDIT_DETECTED
    right = m.leaf.grad is not None and m.leaf.grad.tolist() == TRUE_GRADIENT[source]
    return EDIT_UNAFFECTED if right else EDIT_SILENT


def probe_raised(source: str, operation: str) -> str:
    """Any warning or error raised while making the result ("" when there was none)."""
    return make(source, operation).raised


#: The matrix columns, in page order, each with its probe.
PROBES: dict[str, Callable[[str, str], object]] = {
    "same_object": probe_same_object,
    "shares_storage": probe_shares_storage,
    "requires_grad": probe_requires_grad,
    "grad_fn": probe_grad_fn,
    "shares_version": probe_shares_version,
    "inplace_edit": probe_inplace_edit,
    "raised": probe_raised,
}

#: Which columns hold booleans (rendered yes/no), code (rendered literally) or outcome keys.
BOOLEAN_COLUMNS = ("same_object", "shares_storage", "shares_version")
CODE_COLUMNS = ("requires_grad", "grad_fn", "raised")


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
    """One sentence of the guide, in every edition's language, and the premise it rests on."""

    id: str
    texts: Mapping[str, str]  #: edition code -> the advice in that language
    premise: Callable[[Matrix], bool]

    def text(self, language: str) -> str:
        """The advice in ``language``; a missing translation raises (no fallback)."""
        return pick(self.texts, language, f"guide entry {self.id}")


def _row(m: Matrix, source: str, operation: str) -> dict[str, object]:
    return m[source][operation]


def _everywhere(m: Matrix, operation: str, **expected: object) -> bool:
    return all(
        all(_row(m, source, operation)[column] == value for column, value in expected.items())
        for source in SOURCES
    )


GUIDE: tuple[Advice, ...] = (
    Advice(
        "independent-copy",
        {
            "en": "For an independent copy with no autograd history, use `a.detach().clone()`: it has its "
                "own storage, no `grad_fn`, `requires_grad=False`, raises no warning, and an in-place "
                "edit of it leaves the gradient of `a` alone.",
            "zh_CN": "需要一份与原张量无关、也不带求导历史的副本：用 `a.detach().clone()`。它有自己的存储，"
                "没有 `grad_fn`，`requires_grad=False`，不会触发警告；原地修改它也不影响 `a` 的梯度。",
        },
        lambda m: _everywhere(
            m, "a.detach().clone()", same_object=False, shares_storage=False,
            requires_grad=False, grad_fn="None", raised="", inplace_edit=EDIT_UNAFFECTED),
    ),
    Advice(
        "clone-detach-same",
        {
            "en": "`a.clone().detach()` gives the same result in every column.",
            "zh_CN": "`a.clone().detach()` 在表中每一列的结果都与之相同。",
        },
        lambda m: all(_row(m, s, "a.clone().detach()") == _row(m, s, "a.detach().clone()")
                      for s in SOURCES),
    ),
    Advice(
        "copy-in-graph",
        {
            "en": "For a copy that gradients still flow back through, use `a.clone()`: its own storage, "
                "`requires_grad=True` and a `CloneBackward0` node. "
                "`torch.empty_like(a).copy_(a)` does the same through `CopyBackwards`.",
            "zh_CN": "需要一份副本、但梯度仍要传回 `a`：用 `a.clone()`。它有自己的存储，`requires_grad=True`，"
                "带 `CloneBackward0` 节点。`torch.empty_like(a).copy_(a)` 效果相同，节点是 `CopyBackwards`。",
        },
        lambda m: _everywhere(m, "a.clone()", shares_storage=False, requires_grad=True,
                              grad_fn="CloneBackward0")
        and _everywhere(m, "torch.empty_like(a).copy_(a)", shares_storage=False,
                        requires_grad=True, grad_fn="CopyBackwards"),
    ),
    Advice(
        "detach-view",
        {
            "en": "To read the values without autograd and without copying, use `a.detach()`. It shares "
                "storage and the version counter with `a`, so if you edit it in place while autograd "
                "still needs `a`, backward raises an error instead of returning a wrong gradient.",
            "zh_CN": "只想读取数值、不要求导、也不想复制：用 `a.detach()`。它与 `a` 共享存储和版本计数器，"
                "所以在 autograd 还需要 `a` 时原地修改它，backward 会报错，而不是给出错误的梯度。",
        },
        lambda m: _everywhere(m, "a.detach()", shares_storage=True, shares_version=True,
                              requires_grad=False, inplace_edit=EDIT_DETECTED),
    ),
    Advice(
        "avoid-data",
        {
            "en": "Avoid `a.data`: it shares storage but not the version counter, so an in-place edit "
                "through it goes unnoticed and backward returns a wrong gradient without any error.",
            "zh_CN": "不要用 `a.data`：它共享存储，却不共享版本计数器。通过它原地修改，autograd 察觉不到，"
                "backward 不报错，却给出错误的梯度。",
        },
        lambda m: _everywhere(m, "a.data", shares_storage=True, shares_version=False,
                              inplace_edit=EDIT_SILENT),
    ),
    Advice(
        "alias",
        {
            "en": "`b = a` copies nothing: `b` is the same object as `a`.",
            "zh_CN": "`b = a` 什么也没有复制：`b` 和 `a` 就是同一个对象。",
        },
        lambda m: _everywhere(m, "b = a", same_object=True),
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
            and {k: v for k, v in _row(m, s, "torch.tensor(a)").items() if k != "raised"}
            == {k: v for k, v in _row(m, s, "a.detach().clone()").items() if k != "raised"}
            for s in SOURCES),
    ),
    Advice(
        "deepcopy",
        {
            "en": "`copy.deepcopy(a)` works only on a leaf, and gives a new leaf that still requires grad; "
                "on a non-leaf it raises `RuntimeError`.",
            "zh_CN": "`copy.deepcopy(a)` 只能用于叶子张量，得到的是一个仍然 `requires_grad=True` 的新叶子；"
                "对非叶子张量会抛出 `RuntimeError`。",
        },
        lambda m: _row(m, "leaf", "copy.deepcopy(a)")["raised"] == ""
        and _row(m, "leaf", "copy.deepcopy(a)")["requires_grad"] is True
        and _row(m, "leaf", "copy.deepcopy(a)")["grad_fn"] == "None"
        and _row(m, "leaf", "copy.deepcopy(a)")["shares_storage"] is False
        and str(_row(m, "non-leaf", "copy.deepcopy(a)")["raised"]).startswith("RuntimeError"),
    ),
)


def failed_premises(m: Matrix, guide: tuple[Advice, ...] = GUIDE) -> list[str]:
    """Ids of the entries of ``guide`` (by default the matrix page's) whose premises the probed
    matrix does not support."""
    failed = []
    for advice in guide:
        try:
            ok = advice.premise(m)
        except Exception:
            ok = False
        if not ok:
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

