"""Named facts: the checks behind sentences that are not on an example page.

A sentence of a narrative page (home, quick reference, matrix, ledger introduction) or of the
matrix guide that states torch behaviour names the fact that proves it: ``{fact}`id``` in MyST,
or ``facts=(...)`` on a guide entry. Each fact is a small function that runs real tensors and
returns a :class:`Fact` result (holds or not, plus a short trace). The build runs every fact a page
names and fails on an unknown id or a fact that no longer holds; ``tests/test_prose_facts.py``
does the same without a build. Pure Python: imports torch, never Sphinx.

``_version``, ``_saved_self`` and the like are internal attributes of torch, used here because
they are the only way to watch the version counter; they may change between releases, and then
these checks fail loudly rather than go stale.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import Callable

import torch

from tensorfacts.tensors import same_storage


@dataclasses.dataclass(frozen=True)
class Fact:
    """What a fact's check returns."""

    holds: bool
    trace: str


FACTS: dict[str, Callable[[], Fact]] = {}

#: The phrase of the error autograd raises when a saved tensor was edited in place.
VERSION_ERROR = "modified by an inplace operation"


def fact(fact_id: str) -> Callable[[Callable[[], Fact]], Callable[[], Fact]]:
    """Register a fact under ``fact_id`` (ids are unique)."""

    def register(check: Callable[[], Fact]) -> Callable[[], Fact]:
        if fact_id in FACTS:
            raise ValueError(f"fact {fact_id!r} is registered twice")
        FACTS[fact_id] = check
        return check

    return register


def run_fact(fact_id: str) -> Fact:
    """Run one fact with grad mode on; an unknown id, an error or an escaping warning is a failure."""
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


def _backward(loss: torch.Tensor) -> str:
    """Run backward; "" when it ran, else the error's first line."""
    try:
        loss.backward()
    except RuntimeError as exc:
        return str(exc).splitlines()[0]
    return ""


# --- The version counter ---------------------------------------------------------------------


@fact("version-counter-catches-saved-edit")
def _version_counter_catches_saved_edit() -> Fact:
    """An in-place edit of a tensor autograd saved moves its version; backward then raises."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * 1
    loss = (y * y).sum()  # saves y
    before = y._version
    y.mul_(10)
    error = _backward(loss)
    return Fact(y._version == before + 1 and VERSION_ERROR in error,
                f"y._version {before} -> {y._version}; backward: {error or 'no error'}")


@fact("detach-edit-before-save-silent")
def _detach_edit_before_save_silent() -> Fact:
    """An edit through detach() made before autograd saves the tensor gives a silent wrong gradient."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2  # saves nothing from a
    b.detach().mul_(10)  # b is now 20 * a, the graph still says 2 * a
    error = _backward((b * b).sum())
    grad = a.grad.tolist() if a.grad is not None else None
    wrong = grad not in ([8.0 * v for v in (1, 2, 3)], [800.0 * v for v in (1, 2, 3)])
    return Fact(not error and wrong, f"a.grad = {grad}; 8a and 800a would be the true gradients")


@fact("detach-numpy-write-silent")
def _detach_numpy_write_silent() -> Fact:
    """A write through a.detach().numpy() moves no version counter: a silent wrong gradient."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (a * a).sum()  # saves a
    view = a.detach().numpy()
    view *= 10
    error = _backward(loss)
    grad = a.grad.tolist() if a.grad is not None else None
    return Fact(not error and a._version == 0 and grad == [20.0, 40.0, 60.0],
                f"a._version = {a._version}; a.grad = {grad}; true gradient [2.0, 4.0, 6.0]")


@fact("detach-set-keeps-version-counter")
def _detach_set_keeps_version_counter() -> Fact:
    """After d.set_(...) on d = a.detach(), d.add_(1) still moves a._version, and backward fails."""
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    loss = (a * a).sum()
    d = a.detach()
    d.set_(torch.zeros(6))
    before = a._version
    d.add_(1)
    error = _backward(loss)
    return Fact(a._version == before + 1 and not same_storage(a, d) and VERSION_ERROR in error,
                f"a._version {before} -> {a._version} after d.add_(1); backward: {error or 'no error'}")


@fact("detach-resize-grow-reallocates")
def _detach_resize_grow_reallocates() -> Fact:
    """A growing d.resize_(100) on d = a.detach() gives a (and d) a new, larger storage."""
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    d = a.detach()
    old = a.untyped_storage().data_ptr()
    d.resize_(100)
    moved = a.untyped_storage().data_ptr() != old
    nbytes = a.untyped_storage().nbytes()
    return Fact(moved and same_storage(a, d) and nbytes == 400 and tuple(a.shape) == (2, 3),
                f"a's storage moved: {moved}; its size {nbytes} bytes; shared with d: {same_storage(a, d)}")


# --- Copies and conversions ------------------------------------------------------------------


@fact("deepcopy-copies-grad")
def _deepcopy_copies_grad() -> Fact:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (a * a).sum().backward()
    b = copy.deepcopy(a)
    ok = b.grad is not None and b.grad is not a.grad and torch.equal(b.grad, a.grad)
    return Fact(ok and not same_storage(a.grad, b.grad), f"b.grad = {b.grad}")


@fact("deepcopy-view-copies-storage")
def _deepcopy_view_copies_storage() -> Fact:
    base = torch.zeros(1000)
    view = base[:2]
    deep, clone = copy.deepcopy(view).untyped_storage().nbytes(), view.clone().untyped_storage().nbytes()
    return Fact(deep == 4000 and clone == 8, f"deepcopy: {deep} bytes; clone(): {clone} bytes")


@fact("noop-conversions-return-a")
def _noop_conversions_return_a() -> Fact:
    from tensorfacts.matrix import SOURCES

    same = {}
    for source, build in SOURCES.items():
        _, a = build()
        same[source] = (a.to(torch.float32) is a, a.cpu() is a, a.contiguous() is a)
    return Fact(all(all(v) for v in same.values()), f"(to(float32), cpu(), contiguous()) is a: {same}")


@fact("data-setter-silent")
def _data_setter_silent() -> Fact:
    """``p.data = t`` swaps the tensor under a Parameter: new shape and dtype, no error, version 0."""
    p = torch.nn.Parameter(torch.zeros(3))
    p.data = torch.zeros(2, 2, dtype=torch.float64)
    ok = tuple(p.shape) == (2, 2) and p.dtype == torch.float64 and p._version == 0
    return Fact(ok and isinstance(p, torch.nn.Parameter),
                f"shape {tuple(p.shape)}; dtype {p.dtype}; _version {p._version}")


@fact("leaf-refuses-inplace")
def _leaf_refuses_inplace() -> Fact:
    """A leaf that requires grad refuses an in-place edit with grad mode on, accepts it under no_grad."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    try:
        a.add_(1)
    except RuntimeError as exc:
        refused = "leaf Variable" in str(exc)
    else:
        refused = False
    with torch.no_grad():
        a.add_(1)
    return Fact(refused and a.tolist() == [2.0, 3.0, 4.0],
                f"refused with grad on: {refused}; after a.add_(1) under no_grad: {a.tolist()}")


# --- The sources the matrix adds: a view of a leaf, an inference tensor -----------------------


@fact("leaf-view-has-grad-fn-refuses-inplace")
def _leaf_view_has_grad_fn_refuses_inplace() -> Fact:
    """A slice of a leaf that requires grad has a grad_fn, yet refuses an in-place edit with grad
    mode on, as the leaf itself does."""
    base = torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
    a = base[1:]
    try:
        a.mul_(10)
    except RuntimeError as exc:
        refused = "a view of a leaf Variable that requires grad" in str(exc)
    else:
        refused = False
    has_grad_fn = a.grad_fn is not None and not a.is_leaf
    return Fact(has_grad_fn and refused, f"grad_fn: {type(a.grad_fn).__name__}; mul_ refused: {refused}")


def _inference_tensor() -> torch.Tensor:
    with torch.inference_mode():
        return torch.tensor([1.0, 2.0, 3.0])


@fact("inference-tensor-has-no-version-counter")
def _inference_tensor_has_no_version_counter() -> Fact:
    """Reading the version counter of a tensor made under inference_mode raises: it keeps none."""
    a = _inference_tensor()
    try:
        message = f"no error, version {a._version}"
    except RuntimeError as exc:
        message = str(exc)
    return Fact(a.is_inference() and "do not track version counter" in message,
                f"is_inference: {a.is_inference()}; a._version: {message}")


@fact("inference-tensor-inplace-outside-raises-yet-writes")
def _inference_tensor_inplace_outside_raises_yet_writes() -> Fact:
    """An in-place edit of an inference tensor outside inference mode raises (under no_grad too),
    and yet the values have changed; inside inference mode it runs without an error."""
    a = _inference_tensor()
    refused = []
    for context in (torch.enable_grad, torch.no_grad):
        try:
            with context():
                a.mul_(10)
        except RuntimeError as exc:
            refused.append("outside InferenceMode is not allowed" in str(exc))
        else:
            refused.append(False)
    outside = a.tolist()
    with torch.inference_mode():
        a.mul_(10)
    return Fact(all(refused) and outside == [100.0, 200.0, 300.0] and a.tolist() == [1000.0, 2000.0, 3000.0],
                f"raised outside (grad on, no_grad): {refused}; values after those two mul_(10): {outside}; "
                f"after one more inside: {a.tolist()}")
