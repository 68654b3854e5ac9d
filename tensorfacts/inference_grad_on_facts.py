"""Named fact on copies and views made inside ``torch.inference_mode()`` with ``torch.enable_grad()`` turning grad mode
on there: autograd records nothing, so no gradient reaches the source. It stands behind the behaviour matrix's advice
on ``a.clone()`` and ``a.view(3)``. Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a
fact is.
"""

from __future__ import annotations

import itertools

import torch

from tensorfacts.fact_registry import Fact, fact

#: The copies made inside the mode, as the matrix's advice names them.
COPIES = {"a.clone()": lambda a: a.clone(), "torch.empty_like(a).copy_(a)": lambda a: torch.empty_like(a).copy_(a),
          "a.double()": lambda a: a.double()}


@fact("inference-mode-grad-on-records-no-node", {
    "en": "Takes a leaf [1, 2, 3] that requires grad, in float32, float64 and bfloat16, and that leaf times 1 (a "
          "non-leaf), as a, and inside torch.inference_mode() with torch.enable_grad(), which turns grad mode on, "
          "makes a.clone(), torch.empty_like(a).copy_(a), a.double() and a.view(3): each copy is an inference tensor "
          "that does not require grad and has no grad_fn, except a.double() of a float64 a, which is a itself; the "
          "view has no grad_fn, and backward() of (v * v).sum() on the view v, outside the mode, leaves the leaf's "
          ".grad None.",
    "zh_CN": "把需要梯度的叶子张量 [1, 2, 3]（float32、float64 和 bfloat16 各一个），以及它乘以 1 得到的非叶子张量，"
             "分别当作 a，在 torch.inference_mode() 里用 torch.enable_grad() 打开梯度模式，做出 a.clone()、"
             "torch.empty_like(a).copy_(a)、a.double() 和 a.view(3)：每个副本都是推理张量，不需要梯度，没有 "
             "grad_fn，只有 float64 的 a 的 a.double() 例外，它就是 a 本身；视图没有 grad_fn，在模式外对视图 v 的 (v * "
             "v).sum() 调用 backward() 之后，叶子张量的 .grad "
             "仍是 None。",
})
def _inference_mode_grad_on_records_no_node() -> Fact:
    """Inside inference_mode with grad mode on, the copies are inference tensors with no node and the view passes no
    gradient to the source."""
    wrong = []
    for dtype, kind in itertools.product((torch.float32, torch.float64, torch.bfloat16), ("leaf", "non-leaf")):
        leaf = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
        a = leaf if kind == "leaf" else leaf * 1
        with torch.inference_mode(), torch.enable_grad():
            grad_on = torch.is_grad_enabled()
            copies = {name: make(a) for name, make in COPIES.items()}
            v = a.view(3)
        for name, b in copies.items():
            if name == "a.double()" and dtype == torch.float64:
                if b is not a:
                    wrong.append(f"a.double() of the float64 {kind} is not a itself")
            elif not (b.is_inference() and not b.requires_grad and b.grad_fn is None):
                wrong.append(f"{name} of the {dtype} {kind}: inference {b.is_inference()}, "
                             f"requires_grad {b.requires_grad}, grad_fn {type(b.grad_fn).__name__}")
        view_node = type(v.grad_fn).__name__
        (v * v).sum().backward()
        if not (grad_on and v.grad_fn is None and leaf.grad is None):
            wrong.append(f"a.view(3) of the {dtype} {kind}: grad mode on {grad_on}, grad_fn {view_node}, "
                         f"leaf.grad {leaf.grad}")
    return Fact(not wrong, f"not as stated: {wrong or 'none'}")
