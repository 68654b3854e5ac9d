"""Named fact on torch kernels that move no version counter (a fused optimizer step, the unscaling kernel of
``GradScaler``, ``batch_norm``'s update of its running statistics) run on an inference tensor outside
``torch.inference_mode()``: they write it without the error an in-place torch operation raises there. It stands
behind the matrix page's section on inference tensors and its guide. Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.inference_facts import INPLACE_ERROR, inference_tensor
from tensorfacts.optimizer_facts import FUSED_OPTIMIZERS, fused_optimizers


def _writes(edit) -> tuple[str, bool, bool]:
    """``edit`` run outside the mode on a fresh inference tensor [1, 2, 3]: (the error's first sentence or "no error",
    whether the values changed, whether it is still an inference tensor)."""
    a = inference_tensor()
    try:
        edit(a)
    except RuntimeError as exc:
        return str(exc).split(".")[0], a.tolist() != [1.0, 2.0, 3.0], a.is_inference()
    return "no error", a.tolist() != [1.0, 2.0, 3.0], a.is_inference()


def _fused_step(name: str):
    def step(a: torch.Tensor) -> None:
        optimizer = getattr(torch.optim, name)([a], lr=0.5, fused=True)
        a.grad = torch.ones(3)
        optimizer.step()
    return step


@fact("inference-tensor-uncounted-kernel-writes", {
    "en": "Outside inference mode, on fresh inference tensors [1, 2, 3] that do not require grad: one step (lr 0.5, "
          "grad a tensor of ones) of each optimizer of torch.optim built with fused=True (on this torch: "
          + ", ".join(FUSED_OPTIMIZERS[:-1]) + " and " + FUSED_OPTIMIZERS[-1] + "; the fact fails if that list "
          "changes); torch._amp_foreach_non_finite_check_and_unscale_ (GradScaler.unscale_'s "
          "kernel, internal) with an inverse scale of 0.5; and torch.nn.functional.batch_norm in training mode on a "
          "random (4, 3) input with the tensor as running_mean, then as running_var. None raises, each changes the "
          "values, and the tensor is still an inference tensor: mul_(10) on it then raises \"" + INPLACE_ERROR + "\".",
    "zh_CN": "在推理模式之外，对新建的、不需要梯度的推理张量 [1, 2, 3]：用 fused=True 构造的 torch.optim 里每个优化器"
             "（在这个 torch 上是 " + "、".join(FUSED_OPTIMIZERS[:-1]) + " 和 " + FUSED_OPTIMIZERS[-1]
             + "；这份名单一变，这条事实就不成立）的一步（lr 为 0.5，梯度是全 1 张量）；"
             "torch._amp_foreach_non_finite_check_and_unscale_（GradScaler.unscale_ 用的内核，属内部函数），"
             "逆缩放因子为 0.5；以及训练模式下的 torch.nn.functional.batch_norm，输入是随机的 (4, 3) 张量，"
             "先把这个张量当作 running_mean，再当作 running_var。都不报错，每一个都改变了数值，张量仍是推理张量："
             "之后对它调用 mul_(10) 会报“" + INPLACE_ERROR + "”。",
})
def _inference_tensor_uncounted_kernel_writes() -> Fact:
    """Kernels that move no version counter write an inference tensor outside the mode without raising."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, generator=generator)
    found = fused_optimizers()
    edits = {f"{name}(fused=True).step()": _fused_step(name) for name in found}
    edits["unscale kernel"] = lambda a: torch._amp_foreach_non_finite_check_and_unscale_(
        [a], torch.zeros(1), torch.full((1,), 0.5))
    edits["batch_norm, running_mean"] = lambda a: torch.nn.functional.batch_norm(
        x, a, torch.ones(3), training=True, momentum=0.5)
    edits["batch_norm, running_var"] = lambda a: torch.nn.functional.batch_norm(
        x, torch.zeros(3), a, training=True, momentum=0.5)
    seen = {name: _writes(edit) for name, edit in edits.items()}
    after = {name: _writes(lambda a, edit=edit: (edit(a), a.mul_(10)))[0] for name, edit in edits.items()}
    return Fact(tuple(found) == FUSED_OPTIMIZERS and len(seen) > 3
                and all(outcome == ("no error", True, True) for outcome in seen.values())
                and all(error == INPLACE_ERROR for error in after.values()),
                f"accept fused=True: {', '.join(found)}; "
                f"(error, values changed, still an inference tensor) per kernel: {seen}; "
                f"mul_(10) after each kernel: {after}")
