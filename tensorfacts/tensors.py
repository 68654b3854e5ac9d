"""Small helpers about tensors, written once for the claims and the matrix probes."""

from __future__ import annotations

import re

import torch


def same_storage(x: torch.Tensor, y: torch.Tensor) -> bool:
    """True when two tensors look at the same memory (compares addresses, never prints them). Refused for two
    ``meta`` tensors: every storage there starts at address 0, so equal starts prove nothing."""
    if x.device.type == "meta" and y.device.type == "meta":
        raise ValueError("same_storage cannot tell on meta: every meta storage starts at address 0")
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


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


def backward_error(loss: torch.Tensor) -> str:
    """Run backward; "" when it ran, else the error's first line."""
    try:
        loss.backward()
    except RuntimeError as exc:
        return str(exc).splitlines()[0]
    return ""


def func_inputs_without_storage() -> dict[str, bool]:
    """For the tensor a function receives inside torch.func.vmap (over torch.ones(2, 3)) and inside torch.func.grad
    (at torch.ones(3)): whether it is strided, neither nested nor quantized, and its untyped_storage() raises."""
    seen = {}

    def receive(name: str, t: torch.Tensor) -> torch.Tensor:
        try:
            t.untyped_storage()
        except RuntimeError:
            seen[name] = t.layout == torch.strided and not t.is_nested and not t.is_quantized
        else:
            seen[name] = False
        return t * 2

    torch.func.vmap(lambda t: receive("vmap", t))(torch.ones(2, 3))
    torch.func.grad(lambda t: receive("grad", t).sum())(torch.ones(3))
    return seen


def inference_tensors() -> dict[str, torch.Tensor]:
    """Inference tensors, by how they were made: x = torch.arange(12.0) * 2 computed in inference mode, its
    detach() and .data taken outside the mode, and the view(torch.int32) of a normal tensor taken in the mode."""
    normal = torch.arange(12.0)
    with torch.inference_mode():
        x, as_int = torch.arange(12.0) * 2, normal.view(torch.int32)
    return {"x": x, "x.detach()": x.detach(), "x.data": x.data, "n.view(torch.int32)": as_int}
