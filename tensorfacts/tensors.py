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
