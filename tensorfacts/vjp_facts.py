"""Named facts on ``torch.func.vjp`` after an in-place edit of its input or output: for an input that does not
require grad, its ``vjp_fn`` raises nothing and computes with the edited values of what the function saved; for
one that requires grad, ``vjp_fn`` raises nothing either, but differentiating its result raises the
version-counter error after an edit of a tensor that result's backward saved. Registered on import by
:mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import VERSION_ERROR, backward_error

#: The two functions the detach page runs through ``torch.func.vjp``: the function, what it saves for its
#: backward, and its derivative from the (edited) input and output.
_FUNCTIONS: dict[str, tuple[Callable, str, Callable]] = {
    "sigmoid": (torch.sigmoid, "output", lambda x, y: y * (1 - y)),
    "t * t": (lambda t: t * t, "input", lambda x, y: 2 * x),
}
#: The page's four edits, each of the input ``x`` or the output ``y``.
_EDITS: dict[str, Callable[[torch.Tensor, torch.Tensor], object]] = {
    "output through detach()": lambda x, y: y.detach().zero_(),
    "output": lambda x, y: y.zero_(),
    "input through detach()": lambda x, y: x.detach().mul_(10),
    "input": lambda x, y: x.mul_(10),
}
_GRAD_MODES = {"grad mode on": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}


def _in_inference_mode() -> torch.Tensor:
    with torch.inference_mode():
        return torch.tensor([1.0, 2.0, 3.0])


#: Inputs that do not require grad: a new tensor, a view of one, a Parameter made with requires_grad=False and an
#: inference tensor (edited inside ``torch.inference_mode()``, the only place it takes an in-place edit).
_NO_GRAD_INPUTS: dict[str, Callable[[], torch.Tensor]] = {
    "new tensor": lambda: torch.tensor([1.0, 2.0, 3.0]),
    "view": lambda: torch.tensor([0.0, 1.0, 2.0, 3.0])[1:],
    "Parameter(requires_grad=False)": lambda: torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]), requires_grad=False),
    "inference tensor": _in_inference_mode,
}


@fact("vjp-edits-unnoticed", {
    "en": "With torch.func.vjp of torch.sigmoid (which saves its output) and of t * t (which saves its input), for "
          "an input x = [1, 2, 3] that does not require grad (a new tensor, a view of one, a Parameter made with "
          "requires_grad=False, an inference tensor edited inside torch.inference_mode()), with grad mode on, under "
          "torch.no_grad() and inside torch.inference_mode(): after an in-place edit of the output y or of x, "
          "direct or through detach(), vjp_fn(ones) raises nothing and gives the derivative computed from the "
          "edited values, y * (1 - y) for sigmoid and 2 * x for t * t, so it changes exactly when the edited tensor "
          "is the one the function saved.",
    "zh_CN": "对 torch.sigmoid（保存输出）和 t * t（保存输入）调用 torch.func.vjp，输入 x = [1, 2, 3] 不需要梯度"
             "（新张量、新张量的视图、用 requires_grad=False 创建的 Parameter、在 torch.inference_mode() 里修改的推理"
             "张量），在梯度模式开着时、torch.no_grad() 下和 torch.inference_mode() 里：对输出 y 或 x 做原地修改之后，"
             "无论直接修改还是经由 detach()，vjp_fn(ones) 都不报错，给出按修改后的值算出的导数，sigmoid 是 "
             "y * (1 - y)，t * t 是 2 * x；因此它恰好在修改的是函数保存的那个张量时改变。",
}, {"en": "two functions, four edits, four kinds of input that does not require grad, three grad modes, "
          "float32, on the CPU",
    "zh_CN": "两个函数、四种修改、四种不需要梯度的输入、三种梯度模式，float32，在 CPU 上"})
def _vjp_edits_unnoticed() -> Fact:
    wrong, runs = [], 0
    for name, (f, saved, derivative) in _FUNCTIONS.items():
        for where, edit in _EDITS.items():
            for source, make in _NO_GRAD_INPUTS.items():
                for mode, grad_mode in _GRAD_MODES.items():
                    x = make()
                    with grad_mode():
                        y, vjp_fn = torch.func.vjp(f, x)
                        (before,) = vjp_fn(torch.ones(3))
                        with torch.inference_mode() if x.is_inference() else contextlib.nullcontext():
                            edit(x, y)
                        try:
                            (after,) = vjp_fn(torch.ones(3))
                        except RuntimeError as exc:
                            after = exc
                    runs += 1
                    if isinstance(after, Exception) or not torch.equal(after, derivative(x, y)) or (
                            torch.equal(after, before) == where.startswith(saved)):
                        wrong.append((name, where, source, mode, repr(after)[:80]))
    return Fact(runs > 0 and not wrong, f"{runs} runs; not as the sentence says: {wrong[:4]} ({len(wrong)} in all)")


#: Inputs that require grad, with grad mode on: a leaf, a non-leaf and a Parameter.
_GRAD_INPUTS: dict[str, Callable[[], torch.Tensor]] = {
    "leaf": lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True),
    "non-leaf": lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1,
    "Parameter": lambda: torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0])),
}
_OUTPUT_EDITS = {"none": lambda y: None, "output": lambda y: y.zero_(),
                 "output through detach()": lambda y: y.detach().zero_()}


@fact("vjp-output-edit-caught-when-differentiated", {
    "en": "With grad mode on, for x = [1, 2, 3] that requires grad (a leaf, a non-leaf, a Parameter), y, vjp_fn = "
          "torch.func.vjp(torch.sigmoid, x), then y.zero_() or y.detach().zero_(): vjp_fn(ones) raises nothing and "
          "gives y * (1 - y) of the edited y, a gradient with a grad_fn, and g.sum().backward() on it raises the "
          "version-counter error (it runs without the edit).",
    "zh_CN": "在梯度模式开着时，x = [1, 2, 3] 需要梯度（叶子张量、非叶子张量、Parameter），y, vjp_fn = "
             "torch.func.vjp(torch.sigmoid, x)，再执行 y.zero_() 或 y.detach().zero_()：vjp_fn(ones) 不报错，"
             "给出按修改后的 y 算出的 y * (1 - y)，这个梯度带有 grad_fn，对它调用 g.sum().backward() 则报版本计数器"
             "错误（不做修改时可以运行）。",
}, {"en": "three kinds of input that requires grad, two edits of the output and none, grad mode on, "
          "float32, on the CPU",
    "zh_CN": "三种需要梯度的输入、对输出的两种修改和不修改，梯度模式开着，float32，在 CPU 上"})
def _vjp_output_edit_caught_when_differentiated() -> Fact:
    seen = {}
    for source, make in _GRAD_INPUTS.items():
        for where, edit in _OUTPUT_EDITS.items():
            y, vjp_fn = torch.func.vjp(torch.sigmoid, make())
            edit(y)
            (g,) = vjp_fn(torch.ones(3))
            seen[source, where] = (torch.equal(g.detach(), (y * (1 - y)).detach()), g.grad_fn is not None,
                                   backward_error(g.sum()))
    caught = all(seen[source, where][:2] == (True, True) and VERSION_ERROR in seen[source, where][2]
                 for source in _GRAD_INPUTS for where in _OUTPUT_EDITS if where != "none")
    clean = all(seen[source, "none"] == (True, True, "") for source in _GRAD_INPUTS)
    return Fact(len(seen) > 0 and caught and clean, "; ".join(
        f"{source}, edit of the {where}: vjp_fn's result right {right}, has a grad_fn {has_fn}, backward "
        f"{error or 'runs'}" for (source, where), (right, has_fn, error) in seen.items()))
