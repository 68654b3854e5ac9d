"""Named facts on modules built inside ``torch.inference_mode()`` and trained outside it: whether a forward
pass gives their weight a gradient, raises, or records nothing depends on the layer and its input; built outside
the mode, each of the layers run trains. They stand behind the glossary's
definition of a leaf tensor (``sitetools/rules/term_facts.py``, ``CHECKED_BY``). Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.inference_facts import SAVED_INFERENCE


def _layers() -> dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]:
    """The modules the layer facts run, each with its inputs (normal tensors; only the second Linear's requires
    grad); call it inside ``torch.inference_mode()`` to build them there (the inputs are made outside)."""
    modules = {"Linear": torch.nn.Linear(3, 2), "Linear, x requires grad": torch.nn.Linear(3, 2),
               "Conv1d": torch.nn.Conv1d(3, 2, 1), "LayerNorm": torch.nn.LayerNorm(3),
               "GroupNorm": torch.nn.GroupNorm(1, 3), "Embedding": torch.nn.Embedding(5, 3),
               "Bilinear": torch.nn.Bilinear(3, 3, 2), "BatchNorm1d": torch.nn.BatchNorm1d(3)}
    with torch.inference_mode(False):
        rows = torch.arange(6.0).reshape(2, 3)
        inputs = {"Linear": (torch.ones(1, 3),), "Linear, x requires grad": (torch.ones(1, 3, requires_grad=True),),
                  "Conv1d": (torch.ones(1, 3, 4),), "LayerNorm": (rows,), "GroupNorm": (rows,),
                  "Embedding": (torch.tensor([1, 2]),), "Bilinear": (torch.ones(1, 3), torch.ones(1, 3)),
                  "BatchNorm1d": (rows,)}
    return {name: (module, inputs[name]) for name, module in modules.items()}


def _forward_backward(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> str:
    """``"raises: <first sentence>"`` if the forward pass or backward() of its output's sum raises, else whether
    backward() left ``weight.grad`` None."""
    try:
        module(*inputs).sum().backward()
    except RuntimeError as exc:
        return f"raises: {str(exc).split('.')[0]}"
    return "weight.grad None" if module.weight.grad is None else "weight.grad set"


@fact("inference-module-forward-by-layer", {
    "en": "Builds each module under torch.inference_mode(), which makes its parameters inference tensors that require "
          "grad; outside the mode, with grad mode on, runs its forward pass and backward() of the output's sum: "
          "Linear(3, 2) on x = torch.ones(1, 3), which does not require grad, raises nothing and leaves weight.grad "
          "None (bias.grad is 1); the forward passes of Linear(3, 2) and Bilinear(3, 3, 2) on inputs that require "
          "grad, and those of Conv1d(3, 2, 1), LayerNorm(3) and GroupNorm(1, 3) on inputs that do not, raise "
          f"\"{SAVED_INFERENCE}\"; Embedding(5, 3) on indices, and Bilinear(3, 3, 2) on inputs that do not require "
          "grad, raise nothing and give weight a gradient.",
    "zh_CN": "在 torch.inference_mode() 下构建每个模块，它的参数因此是需要梯度的推理张量；在模式外、梯度模式开着时"
             "运行它的前向传播，再对输出之和调用 backward()：Linear(3, 2) 作用于不需要梯度的 x = torch.ones(1, 3) "
             "时不报错，weight.grad 仍是 None（bias.grad 是 1）；Linear(3, 2) 和 Bilinear(3, 3, 2) 作用于需要梯度的"
             "输入时，以及 Conv1d(3, 2, 1)、LayerNorm(3) 和 GroupNorm(1, 3) 作用于不需要梯度的输入时，前向传播都报"
             f"“{SAVED_INFERENCE}”；Embedding(5, 3) 作用于索引时，以及 Bilinear(3, 3, 2) 作用于不需要梯度的输入时，"
             "不报错，weight 得到梯度。",
}, {"en": "the eight cases it names, float32, on the CPU", "zh_CN": "它列出的八种情形，float32，在 CPU 上"})
def _inference_module_forward_by_layer() -> Fact:
    """Whether a module built in inference mode gets a weight gradient outside the mode depends on the layer and
    on its input: some forward passes record nothing, some raise, some record the weight."""
    with torch.inference_mode():
        layers = _layers()
        bilinear = torch.nn.Bilinear(3, 3, 2)
    del layers["BatchNorm1d"]
    layers["Bilinear, inputs require grad"] = (bilinear, (torch.ones(1, 3, requires_grad=True),
                                                          torch.ones(1, 3, requires_grad=True)))
    made = all(p.is_inference() and p.requires_grad for m, _ in layers.values() for p in m.parameters())
    seen = {name: _forward_backward(module, inputs) for name, (module, inputs) in layers.items()}
    raising = ("Linear, x requires grad", "Bilinear, inputs require grad", "Conv1d", "LayerNorm", "GroupNorm")
    bias_grad = layers["Linear"][0].bias.grad
    return Fact(made and seen["Linear"] == "weight.grad None" and bias_grad is not None
                and bias_grad.tolist() == [1.0, 1.0]
                and all(seen[name] == f"raises: {SAVED_INFERENCE}" for name in raising)
                and seen["Embedding"] == "weight.grad set" and seen["Bilinear"] == "weight.grad set",
                f"parameters are inference tensors that require grad: {made}; forward and backward: {seen}; "
                f"the Linear's bias.grad: {bias_grad}")


def _trains(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> list[bool] | str:
    """Three SGD steps on a loss linear in the output: whether each step changed ``weight``, or the error."""
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
    changed = []
    try:
        for _ in range(3):
            before = module.weight.detach().clone()
            optimizer.zero_grad()
            out = module(*inputs)
            (out * torch.arange(1.0, out.numel() + 1).reshape(out.shape)).sum().backward()
            optimizer.step()
            changed.append(not torch.equal(before, module.weight.detach()))
    except RuntimeError as exc:
        return f"raises: {str(exc).split('.')[0]}"
    return changed


@fact("inference-module-trains-when-rebuilt", {
    "en": "Builds each of Linear(3, 2) (on an x that does not require grad, and on one that does), Conv1d(3, 2, 1), "
          "LayerNorm(3), GroupNorm(1, 3), Embedding(5, 3), Bilinear(3, 3, 2) and BatchNorm1d(3) outside "
          "torch.inference_mode(), a normal module whose weight is not an inference tensor, and trains it with three "
          "SGD steps (zero_grad(), forward pass, backward() of a loss, step()): every step runs without an error and "
          "changes weight.",
    "zh_CN": "在 torch.inference_mode() 之外构建 Linear(3, 2)（输入 x 分别不需要梯度和需要梯度）、Conv1d(3, 2, 1)、"
             "LayerNorm(3)、GroupNorm(1, 3)、Embedding(5, 3)、Bilinear(3, 3, 2) 和 BatchNorm1d(3)，得到 weight "
             "不是推理张量的普通模块，再各用 SGD 训练三步（zero_grad()、前向传播、对损失调用 backward()、step()）："
             "每一步都不报错，而且都改变了 weight。",
}, {"en": "the eight cases it names, float32, on the CPU", "zh_CN": "它列出的八种情形，float32，在 CPU 上"})
def _inference_module_trains_when_rebuilt() -> Fact:
    """Each layer whose forward pass the fact above runs on a module built in the mode trains when it is built
    outside the mode instead: the optimizer's steps change its weight."""
    layers = _layers()
    normal = all(not module.weight.is_inference() for module, _ in layers.values())
    outside = {name: _trains(module, inputs) for name, (module, inputs) in layers.items()}
    return Fact(normal and all(steps == [True] * 3 for steps in outside.values()),
                f"weights are normal tensors: {normal}; weight changed by each step, built outside: {outside}")
