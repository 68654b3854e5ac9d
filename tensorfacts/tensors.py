"""Small helpers about tensors, written once for the claims and the matrix probes."""

from __future__ import annotations

import contextlib
import itertools
import re
import subprocess
import sys
import warnings
from collections.abc import Callable

import torch


def same_storage(x: torch.Tensor, y: torch.Tensor) -> bool:
    """True when two tensors look at the same memory (compares addresses, never prints them). Refused for two
    ``meta`` tensors: every storage there starts at address 0, so equal starts prove nothing."""
    if x.device.type == "meta" and y.device.type == "meta":
        raise ValueError("same_storage cannot tell on meta: every meta storage starts at address 0")
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x: torch.Tensor, y: torch.Tensor) -> bool:
    """True when the byte ranges of the two storages do not overlap (memory mapped once: no byte shared).
    Different starts (``not same_storage``) do not rule that out: an alias may start inside its source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def version_read(t: torch.Tensor) -> object:
    """``t._version``, or ``"raises"`` where torch says the tensor tracks no version counter (an inference tensor made
    inside the mode); any other error's message after ``"raises: "``."""
    try:
        return t._version
    except RuntimeError as exc:
        return "raises" if "do not track version counter" in str(exc) else f"raises: {exc}"


def grad_fn_name(t: torch.Tensor) -> str:
    """The class name of ``t.grad_fn``, or ``"None"`` (a string) when it has none."""
    return type(t.grad_fn).__name__ if t.grad_fn is not None else "None"


def first_sentence(message: str) -> str:
    """The first sentence of a torch message (the rest may name paths of the machine that built torch)."""
    return re.split(r"\.\s", message.strip(), maxsplit=1)[0].rstrip(".")


def error_line(exc: BaseException) -> str:
    """``"TypeName: first line of the message"``."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"


def warning_line(warning: object) -> str:
    """``"Category: first sentence"`` for a caught :class:`warnings.WarningMessage`."""
    return f"{warning.category.__name__}: {first_sentence(str(warning.message))}"


#: The phrase of the error autograd raises when a saved tensor was edited in place.
VERSION_ERROR = "modified by an inplace operation"
#: What torch says when an argument's shape does not broadcast to the tensor an in-place call writes into (the
#: last on ``meta``).
SHAPE_ERRORS = ("must match the size of tensor", "doesn't match the broadcast shape", "Attempting to broadcast")


def backward_error(loss: torch.Tensor) -> str:
    """Run backward; "" when it ran, else the error's first line."""
    try:
        loss.backward()
    except RuntimeError as exc:
        return str(exc).splitlines()[0]
    return ""


#: The torch.func transforms whose function's input :func:`func_inputs_without_storage` reads.
FUNC_TRANSFORMS = ("vmap", "grad", "jacrev", "jacfwd", "jvp", "vjp")


def func_inputs_without_storage() -> dict[str, bool]:
    """For the tensor a function receives inside each of :data:`FUNC_TRANSFORMS` (torch.func.vmap over
    torch.ones(2, 3), the others at torch.ones(3), with a tangent of ones for jvp): whether it is strided, neither
    nested nor quantized, and its untyped_storage() raises NotImplementedError."""
    seen = {}

    def receive(name: str, t: torch.Tensor) -> torch.Tensor:
        try:
            t.untyped_storage()
        except NotImplementedError:  # a RuntimeError of the narrower kind
            seen[name] = t.layout == torch.strided and not t.is_nested and not t.is_quantized
        else:
            seen[name] = False
        return t * 2

    torch.func.vmap(lambda t: receive("vmap", t))(torch.ones(2, 3))
    torch.func.grad(lambda t: receive("grad", t).sum())(torch.ones(3))
    torch.func.jacrev(lambda t: receive("jacrev", t))(torch.ones(3))
    with warnings.catch_warnings():
        # forward AD's first use imports torch's decompositions, which call the deprecated torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        torch.func.jacfwd(lambda t: receive("jacfwd", t))(torch.ones(3))
        torch.func.jvp(lambda t: receive("jvp", t), (torch.ones(3),), (torch.ones(3),))
    torch.func.vjp(lambda t: receive("vjp", t), torch.ones(3))
    return seen


def inference_tensors() -> dict[str, torch.Tensor]:
    """Inference tensors, by how they were made: x = torch.arange(12.0) * 2 computed in inference mode, its
    detach() and .data taken outside the mode, and the view(torch.int32) of a normal tensor taken in the mode."""
    normal = torch.arange(12.0)
    with torch.inference_mode():
        x, as_int = torch.arange(12.0) * 2, normal.view(torch.int32)
    return {"x": x, "x.detach()": x.detach(), "x.data": x.data, "n.view(torch.int32)": as_int}


#: Grad mode turned on by torch.enable_grad() inside each of these two modes.
ENABLE_GRAD_INSIDE = {"enable_grad() in no_grad()": torch.no_grad,
                      "enable_grad() in inference_mode()": torch.inference_mode}
#: What :func:`enable_grad_edits` gives for an edit refused with grad mode on outside inference mode only.
REFUSED_OUTSIDE = {"enable_grad() in no_grad()": "refused", "enable_grad() in inference_mode()": "runs"}


@contextlib.contextmanager
def enable_grad_inside(outer: Callable[[], object]):
    """Grad mode turned on by torch.enable_grad() inside ``outer()``; refuses to run if it is not on there."""
    with outer(), torch.enable_grad():
        if not torch.is_grad_enabled():
            raise ValueError("enable_grad() did not turn grad mode on")
        yield


def enable_grad_edits(make: Callable[[], torch.Tensor], take: Callable[[torch.Tensor], torch.Tensor],
                      edit: Callable[[torch.Tensor], object], refusal: str,
                      read: Callable[[torch.Tensor], list] = lambda t: [t.clone()]) -> dict[str, str]:
    """``edit(target)`` on ``target = take(source)`` of a fresh ``source = make()`` (both made outside the modes)
    inside each mode of ``ENABLE_GRAD_INSIDE``: "refused" (a RuntimeError naming ``refusal``), "runs"
    (``read(source.detach())`` changed), "no change", or another error's first line."""
    outcomes = {}
    for name, outer in ENABLE_GRAD_INSIDE.items():
        source = make()
        target = take(source)
        with torch.no_grad():
            before = read(source.detach())
        try:
            with enable_grad_inside(outer):
                edit(target)
        except RuntimeError as exc:
            outcomes[name] = "refused" if refusal in str(exc) else str(exc).splitlines()[0]
            continue
        with torch.no_grad():
            after = read(source.detach())
        changed = not all(torch.equal(x, y) for x, y in zip(before, after, strict=True))
        outcomes[name] = "runs" if changed else "no change"
    return outcomes


def expanded_and_step_sliced() -> list[torch.Tensor]:
    """Tensors from ``expand()`` and from slices with a step: ``torch.ones`` of shapes with one to three
    dimensions, in every order of their dimensions (``permute``), sliced with steps 2, 3 and 5 along each
    dimension, and expanded along each dimension of size 1 and along a new first dimension."""
    made = []
    for shape in [(2,), (4,), (2, 2), (2, 4), (4, 2), (1, 4), (2, 1), (3, 2), (2, 3, 2), (4, 1, 2), (2, 2, 2)]:
        for order in itertools.permutations(range(len(shape))):
            t = torch.ones(shape).permute(order)
            for dim, step in itertools.product(range(t.dim()), (2, 3, 5)):
                made.append(t[(slice(None),) * dim + (slice(None, None, step),)])
            made += [t.expand(*t.shape[:dim], 3, *t.shape[dim + 1:]) for dim in range(t.dim()) if t.shape[dim] == 1]
            made.append(t.expand(2, *t.shape))
    return made


def mul_under_no_grad(a: torch.Tensor) -> None:
    """Multiplies ``a`` by 10 in place under ``torch.no_grad()``: the edit of a saved leaf the facts on custom
    ``Function`` classes make."""
    with torch.no_grad():
        a.mul_(10)


def fills_own_memory(t: torch.Tensor) -> bool:
    """Whether ``t`` starts its storage and has exactly one element at each place of it: no gap between
    elements, none stored twice (each element's offset, from the strides, is listed once)."""
    offsets = sorted(sum(i * s for i, s in zip(index, t.stride(), strict=True))
                     for index in itertools.product(*map(range, t.shape)))
    return (t.storage_offset() == 0 and offsets == list(range(t.numel()))
            and t.untyped_storage().nbytes() == t.numel() * t.element_size())


def fresh_python(code: str) -> subprocess.CompletedProcess:
    """``code`` run by this Python in a process of its own, started anew (not forked): what only a fresh process
    shows (a warning given once per process, a crash no except clause catches). Its output is text; it may take
    two minutes."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
