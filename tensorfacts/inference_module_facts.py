"""Named facts on modules and ``torch.inference_mode()``: run inside it on normal inputs, the modules that compute
into new memory return inference tensors and those that return their input return it unchanged; built inside it
and trained outside it, whether a forward pass gives their weight a gradient, raises, or records nothing depends
on the layer and its input; built outside the mode, each of the layers run trains. They stand behind the
glossary's definitions of inference mode and of a leaf tensor (``sitetools/rules/term_facts.py``,
``CHECKED_BY``) and the matrix page. Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.inference_facts import SAVED_INFERENCE


def _computing_modules() -> dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]:
    """Modules of torch.nn that compute their output into new memory, each with normal inputs made outside
    inference mode: linear, convolution, normalization (BatchNorm1d in training mode and in eval mode),
    embedding, recurrent, attention, activation, pooling and dropout layers, and a Sequential of two."""
    nn = torch.nn
    x, seq, image = torch.ones(2, 3), torch.ones(1, 2, 4), torch.ones(1, 3, 2, 2)
    return {"Linear": (nn.Linear(3, 3), (x,)), "Bilinear": (nn.Bilinear(3, 3, 2), (x, x)),
            "Conv1d": (nn.Conv1d(3, 2, 1), (torch.ones(2, 3, 5),)), "Conv2d": (nn.Conv2d(3, 2, 1), (image,)),
            "BatchNorm1d (train)": (nn.BatchNorm1d(3), (x,)), "BatchNorm1d (eval)": (nn.BatchNorm1d(3).eval(), (x,)),
            "LayerNorm": (nn.LayerNorm(3), (x,)), "GroupNorm": (nn.GroupNorm(1, 3), (x,)),
            "Embedding": (nn.Embedding(5, 3), (torch.tensor([0, 4]),)),
            "LSTM": (nn.LSTM(4, 3, batch_first=True), (seq,)), "GRU": (nn.GRU(4, 3, batch_first=True), (seq,)),
            "MultiheadAttention": (nn.MultiheadAttention(4, 2, batch_first=True), (seq, seq, seq)),
            "ReLU": (nn.ReLU(), (x,)), "GELU": (nn.GELU(), (x,)), "Softmax": (nn.Softmax(dim=1), (x,)),
            "MaxPool1d": (nn.MaxPool1d(2), (torch.ones(2, 3, 4),)), "AvgPool2d": (nn.AvgPool2d(2), (image,)),
            "Dropout (train)": (nn.Dropout(), (x,)),
            "Sequential(Linear, ReLU)": (nn.Sequential(nn.Linear(3, 3), nn.ReLU()), (x,))}


def _outputs(result: object) -> list[torch.Tensor]:
    """The tensors a module returns: itself, or those of a tuple, nested ones included (LSTM's (h, c))."""
    if isinstance(result, torch.Tensor):
        return [result]
    return [t for item in result for t in _outputs(item)]


@fact("inference-mode-outputs", {
    "en": "Under torch.inference_mode(), on normal inputs made outside the mode (a (2, 3) x for most): Linear, "
          "Bilinear, Conv1d, Conv2d, BatchNorm1d in training and in eval mode, LayerNorm, GroupNorm, Embedding, "
          "LSTM, GRU, MultiheadAttention, ReLU(), GELU(), Softmax, MaxPool1d, AvgPool2d, Dropout() in training mode "
          "and a Sequential of Linear and ReLU() return inference tensors, every tensor of their outputs (LSTM's "
          "output, h and c; the attention's output and weights); Identity(), Dropout() in eval mode and Flatten() "
          "return x itself, a normal tensor; ReLU(inplace=True) returns its input itself, still a normal tensor, "
          "now holding the ReLU of its old values.",
    "zh_CN": "在 torch.inference_mode() 下，对在模式外创建的普通输入（多数是 (2, 3) 的 x）：Linear、Bilinear、Conv1d、"
             "Conv2d、训练模式和 eval 模式的 BatchNorm1d、LayerNorm、GroupNorm、Embedding、LSTM、GRU、"
             "MultiheadAttention、ReLU()、GELU()、Softmax、MaxPool1d、AvgPool2d、训练模式的 Dropout()，以及由 Linear "
             "和 ReLU() 组成的 Sequential，返回的都是推理张量，输出中的每个张量都是（LSTM 的输出、h 和 c，注意力层的"
             "输出和权重）；Identity()、eval 模式的 Dropout() 和 Flatten() 返回 x 本身，一个普通张量；"
             "ReLU(inplace=True) 返回它的输入本身，仍是普通张量，里面的值已换成原值经 ReLU 的结果。",
}, {"en": "the modules it names, in the modes it names (19 cases that compute, 3 that return their input, and "
          "ReLU(inplace=True)), float32, on the CPU",
    "zh_CN": "它列出的模块，在它列出的模式下（19 种做计算的情形，3 种返回输入本身的情形，以及 ReLU(inplace=True)），"
             "float32，在 CPU 上"})
def _inference_mode_outputs() -> Fact:
    x = torch.ones(2, 3)
    computing = _computing_modules()
    passing = {"Identity": torch.nn.Identity(), "Dropout (eval)": torch.nn.Dropout().eval(),
               "Flatten": torch.nn.Flatten()}
    written = torch.tensor([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]])
    with torch.inference_mode():
        computed = {name: [t.is_inference() for t in _outputs(module(*inputs))]
                    for name, (module, inputs) in computing.items()}
        passed = {name: module(x) is x for name, module in passing.items()}
        in_place = torch.nn.ReLU(inplace=True)(written)
    in_place_kept = in_place is written and not written.is_inference() and written.tolist() == [
        [0.0, 2.0, 0.0], [4.0, 0.0, 6.0]]
    normal_inputs = not any(t.is_inference() for _, inputs in computing.values() for t in inputs)
    not_inference = sorted(name for name, flags in computed.items() if not all(flags))
    return Fact(not not_inference and normal_inputs and all(passed.values()) and not x.is_inference()
                and in_place_kept,
                f"modules with an output that is not an inference tensor: {not_inference or 'none'} (of "
                f"{len(computed)}); the input itself: {passed}; ReLU(inplace=True) returns its normal input, "
                f"written: {in_place_kept}")


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
    """``"forward raises: <first sentence>"`` if the forward pass raises, ``"backward raises: <first sentence>"`` if
    backward() of its output's sum does, else whether backward() left ``weight.grad`` None."""
    try:
        out = module(*inputs)
    except RuntimeError as exc:
        return f"forward raises: {str(exc).split('.')[0]}"
    try:
        out.sum().backward()
    except RuntimeError as exc:
        return f"backward raises: {str(exc).split('.')[0]}"
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
                and all(seen[name] == f"forward raises: {SAVED_INFERENCE}" for name in raising)
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
