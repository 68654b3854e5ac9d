"""Named facts on optimizer steps: a step of an optimizer built with ``fused=True`` writes the weights
without moving their version counter, so autograd cannot notice it. Registered on import by
:mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import VERSION_ERROR, backward_error

#: The classes of ``torch.optim`` that accept ``fused=True`` on the torch this site is built with (the pages name them).
FUSED_OPTIMIZERS = ("Adagrad", "Adam", "AdamW", "SGD")


def fused_optimizers() -> tuple[str, ...]:
    """Every optimizer class of ``torch.optim`` that can be built with ``fused=True`` here, found by trying each."""
    found = []
    for name in sorted(dir(torch.optim)):
        cls = getattr(torch.optim, name)
        if not (isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer)) or cls is torch.optim.Optimizer:
            continue
        try:
            cls([torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))], fused=True)
        except TypeError:  # no fused= argument at all
            continue
        except (RuntimeError, ValueError):  # accepts the argument, refuses it here: still an optimizer with fused=
            pass
        found.append(name)
    return tuple(found)


@fact("fused-optimizer-step-not-counted", {
    "en": "Builds every optimizer class of torch.optim with fused=True and keeps those that accept it (on this torch: "
          + ", ".join(FUSED_OPTIMIZERS) + "; the fact fails if that list changes). For each of them (lr=0.1): "
          "makes w.grad with one backward, saves the Parameter w in a second loss "
          "(w * w).sum(), calls optimizer.step(), sets w.grad = None, then runs backward of that loss. "
          "With fused=True, w._version does not move, backward raises nothing and w.grad is not the one calculus "
          "gives; with foreach=True and with foreach=False, w._version moves and backward "
          "raises the version-counter error.",
    "zh_CN": "用 fused=True 构造 torch.optim 里的每个优化器类，留下接受它的那些（在这个 torch 上是 "
             + "、".join(FUSED_OPTIMIZERS) + "；这份名单一变，这条事实就不成立）。对其中每一个（lr=0.1）："
             "先反向传播一次得到 w.grad，在第二个损失 (w * w).sum() 中保存 "
             "Parameter w，调用 optimizer.step()，设 w.grad = None，再对这个损失反向传播。"
             "fused=True 时，w._version 不变，"
             "反向传播不报错，w.grad 却不是按求导公式算出的那个；foreach=True 和 foreach=False 时，w._version "
             "增加，反向传播报版本计数器错误。",
})
def _fused_optimizer_step_not_counted() -> Fact:
    """A fused optimizer step writes the weights without moving their version: autograd cannot notice it."""
    found = fused_optimizers()
    outcomes = {}
    for name in found:
        for mode in ({"fused": True}, {"foreach": True}, {"foreach": False}):
            w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
            optimizer = getattr(torch.optim, name)([w], lr=0.1, **mode)
            (w * w).sum().backward()
            loss = (w * w).sum()  # saves w
            before = w._version
            optimizer.step()
            w.grad = None  # so that w.grad is this loss's gradient alone
            error = backward_error(loss)
            outcomes[name, *mode.items()] = (w._version - before, error,
                                             w.grad.tolist() if w.grad is not None else None)
    fused = [o for key, o in outcomes.items() if key[1] == ("fused", True)]
    others = [o for key, o in outcomes.items() if key[1] != ("fused", True)]
    silent = all(moved == 0 and not error and grad != [2.0, 4.0, 6.0] for moved, error, grad in fused)
    caught = all(moved > 0 and VERSION_ERROR in error for moved, error, _ in others)
    return Fact(found == FUSED_OPTIMIZERS and silent and caught,
                f"accept fused=True: {', '.join(found)}; "
                + "; ".join(f"{key[0]} {key[1][0]}={key[1][1]}: _version +{moved}, "
                            f"backward {'raises' if error else 'no error'}, w.grad = {grad}"
                            for key, (moved, error, grad) in outcomes.items()))
