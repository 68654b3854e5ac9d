"""Named fact on in-place edits of views, taken with grad mode on, of a tensor that requires grad: the first row of a
leaf, and an output of ``unbind()``, ``split()``, ``split_with_sizes()`` or ``chunk()`` of a leaf or a non-leaf.
Grad mode refuses each edit, also where ``torch.enable_grad()`` turns it on inside ``torch.no_grad()``; inside
``torch.inference_mode()`` the edit runs, even with ``torch.enable_grad()`` turning grad mode on there. What counts is
grad mode as the write runs: ``torch.nn.init.zeros_``, called with grad mode on, writes with it off. It stands
behind the copying part's page on ``a = a + 1``, and the view operations page's note on the functions that return
several views. Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import contextlib

import torch
from torch.overrides import TorchFunctionMode

from tensorfacts.fact_registry import Fact, fact

#: The views edited, each taken with grad mode on, with the sources each is taken of (a fresh 2×2 leaf that requires
#: grad, or that leaf times 1) and words of the error grad mode gives.
VIEWS = {
    "a[0]": (lambda s: s[0], ("leaf",), "a view of a leaf Variable that requires grad"),
    "unbind()[0]": (lambda s: s.unbind()[0], ("leaf", "non-leaf"), "returns multiple views"),
    "split(1)[0]": (lambda s: s.split(1)[0], ("leaf", "non-leaf"), "returns multiple views"),
    "split_with_sizes([1, 1])[0]": (lambda s: s.split_with_sizes([1, 1])[0], ("leaf", "non-leaf"),
                                    "returns multiple views"),
    "chunk(2)[0]": (lambda s: s.chunk(2)[0], ("leaf", "non-leaf"), "returns multiple views"),
}
#: The edits: the augmented assignment the page writes, and the method it runs.
EDITS = {"+= 1": lambda view: view.__iadd__(1), "add_(1)": lambda view: view.add_(1)}
#: Where grad mode is on outside torch.inference_mode(): by default, and by torch.enable_grad() inside torch.no_grad().
GRAD_ON = {"grad mode on": contextlib.nullcontext, "enable_grad() in no_grad()": torch.no_grad}


class _GradModeOfZero(TorchFunctionMode):
    """Records grad mode each time ``zero_`` runs inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[bool] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") == "zero_":
            self.seen.append(torch.is_grad_enabled())
        return func(*args, **(kwargs or {}))


def _init_zeros(view: torch.Tensor) -> list[bool]:
    """``torch.nn.init.zeros_(view)``; grad mode each time it ran ``zero_``."""
    with _GradModeOfZero() as mode:
        torch.nn.init.zeros_(view)
    return mode.seen


def _edit(take, kind: str, edit, outer) -> tuple[bool, str | None, list[float]]:
    """Grad mode inside ``outer()`` with ``torch.enable_grad()``, the error of the edit (None if it ran), and the first
    row of the source after it."""
    leaf = torch.ones(2, 2, requires_grad=True)
    source = leaf if kind == "leaf" else leaf * 1
    view = take(source)
    with outer(), torch.enable_grad():
        grad_on = torch.is_grad_enabled()
        try:
            edit(view)
        except RuntimeError as exc:
            return grad_on, str(exc), source.detach()[0].tolist()
    return grad_on, None, source.detach()[0].tolist()


@fact("view-inplace-refused-outside-inference-mode", {
    "en": "Takes, with grad mode on, a[0] of a fresh 2×2 leaf a that requires grad, and output 0 of unbind(), "
          "split(1), split_with_sizes([1, 1]) and chunk(2) of such a leaf and of a non-leaf (the leaf times 1), "
          "and runs += 1 and add_(1) on each: with grad mode on outside torch.inference_mode(), "
          "torch.enable_grad() inside torch.no_grad() included, each edit raises "
          "(\"a view of a leaf Variable that requires grad\" on a[0], \"returns multiple views\" on the others) "
          "and leaves the source's first row [1, 1]; inside torch.inference_mode() with torch.enable_grad(), "
          "which turns grad mode on, each runs, and the source's first row becomes [2, 2]. "
          "torch.nn.init.zeros_ on each view of a fresh source, called in both grad-mode-on ways above, raises "
          "nothing and makes the source's first row [0, 0]: it runs zero_() once, with grad mode off.",
    "zh_CN": "在梯度模式下，对新建的、需要梯度的 2×2 叶子张量 a 取 a[0]，再对这样的叶子张量和一个非叶子张量"
             "（该叶子张量乘以 1）取 unbind()、split(1)、split_with_sizes([1, 1]) 和 chunk(2) 的第 0 个输出，"
             "对每个分别执行 += 1 和 add_(1)：在 torch.inference_mode() 之外、梯度模式打开时，每次修改都报错"
             "（a[0] 上是“a view of a leaf Variable that requires grad”，其余是"
             "“returns multiple views”），源张量的第一行仍是 [1, 1]，在 torch.no_grad() 里用 torch.enable_grad() "
             "打开梯度模式也一样；在 torch.inference_mode() 里用 torch.enable_grad() 打开梯度"
             "模式，每次修改都能执行，源张量的第一行变为 [2, 2]。在上述两种梯度模式打开的情形下，每次用新的源张量，"
             "对每个视图调用 torch.nn.init.zeros_：不报错，源张量的第一行变为 [0, 0]；它调用了一次 zero_()，"
             "当时梯度模式是关着的。",
})
def _view_inplace_refused_outside_inference_mode() -> Fact:
    """A view of a leaf and an output of unbind/split/chunk refuse an in-place edit with grad mode on, and take it
    inside inference_mode with grad mode on there; torch.nn.init.zeros_, called with grad mode on, writes them with it
    off."""
    wrong = []
    for name, (take, kinds, error) in VIEWS.items():
        for kind in kinds:
            for edit_name, edit in EDITS.items():
                case = f"{name} of a {kind}, {edit_name}"
                for mode, outer in GRAD_ON.items():
                    grad_on, message, first_row = _edit(take, kind, edit, outer)
                    if not (grad_on and message is not None and error in message
                            and first_row == [1.0, 1.0]):
                        wrong.append(f"{case}, {mode}: {message and message[:60]}, first row {first_row}")
                grad_on, message, first_row = _edit(take, kind, edit, torch.inference_mode)
                if not (grad_on and message is None and first_row == [2.0, 2.0]):
                    wrong.append(f"{case}, inference_mode with enable_grad: {message and message[:60]}, "
                                 f"first row {first_row}")
            for mode, outer in GRAD_ON.items():
                seen: list[list[bool]] = []
                grad_on, message, first_row = _edit(take, kind, lambda view, seen=seen: seen.append(_init_zeros(view)),
                                                    outer)
                if not (grad_on and message is None and first_row == [0.0, 0.0] and seen == [[False]]):
                    wrong.append(f"{name} of a {kind}, torch.nn.init.zeros_, {mode}: {message and message[:60]}, "
                                 f"first row {first_row}, grad mode at zero_(): {seen}")
    return Fact(not wrong, f"views {list(VIEWS)}, edits {list(EDITS)} and torch.nn.init.zeros_; not as stated: "
                           f"{wrong or 'none'}")
