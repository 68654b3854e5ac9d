"""Named facts on the tensors that share an inference tensor's storage outside ``torch.inference_mode()``: its
``detach()`` and ``.data`` (inference tensors too, with a version counter) and ``copy.copy`` (a normal tensor),
and which in-place edits through them raise. They stand behind the matrix guide's entries on inference tensors
(:mod:`tensorfacts.matrix`) and the matrix page. Registered on import by :mod:`tensorfacts.facts`, whose docstring
says what a fact is.
"""

from __future__ import annotations

import copy

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.inference_facts import INPLACE_ERROR, inference_tensor, linear_output

#: Tensors made outside the mode that share the storage of an inference tensor ``a``.
ALIASES = {"a.detach()": lambda a: a.detach(), "a.data": lambda a: a.data, "copy.copy(a)": copy.copy}
#: In-place calls on such a tensor ``b`` itself: none raises.
CALLS = {
    "b.mul_(10)": lambda b: b.mul_(10), "b.add_(1)": lambda b: b.add_(1), "b += 1": lambda b: b.__iadd__(1),
    "b.zero_()": lambda b: b.zero_(), "b.copy_(torch.zeros(3))": lambda b: b.copy_(torch.zeros(3)),
    "b.index_put_((torch.tensor([0]),), torch.tensor(9.0))": lambda b: b.index_put_((torch.tensor([0]),),
                                                                                      torch.tensor(9.0)),
    "b[torch.tensor([True, False, True])] = 0": lambda b: b.__setitem__(torch.tensor([True, False, True]), 0.0),
    "b[[0, 2]] = 0": lambda b: b.__setitem__([0, 2], 0.0),
}
#: Writes through a view of ``b`` (by indexing, view(shape), t(), unsqueeze(), reshape()) or to an integer or slice
#: index of it: on ``a.detach()`` and ``a.data`` each raises, after writing.
VIEW_WRITES = {
    "b[0] = 9": lambda b: b.__setitem__(0, 9.0), "b[1:] = 0": lambda b: b.__setitem__(slice(1, None), 0.0),
    "b[1:].mul_(10)": lambda b: b[1:].mul_(10), "b[0].add_(1)": lambda b: b[0].add_(1),
    "b.view(3).mul_(10)": lambda b: b.view(3).mul_(10), "b.t().mul_(10)": lambda b: b.t().mul_(10),
    "b.unsqueeze(0).mul_(10)": lambda b: b.unsqueeze(0).mul_(10),
    "b.reshape(3).mul_(10)": lambda b: b.reshape(3).mul_(10),
}
#: Inference tensors of three values made inside the mode: by a factory, and as the output of a Linear(3, 3).
ORIGINS = {"torch.tensor([1., 2., 3.])": lambda: torch.tensor([1.0, 2.0, 3.0]), "a Linear(3, 3) output": linear_output}


def _edit(origin, alias, edit, context) -> tuple[str, bool]:
    """One edit through ``alias`` of a fresh inference tensor made by ``origin``, under ``context``, outside the
    mode: (the error's first sentence or "no error", whether the values of ``a`` changed)."""
    a = inference_tensor(origin)
    old = a.clone()
    try:
        with context():
            edit(alias(a))
    except RuntimeError as exc:
        return str(exc).split(".")[0], not torch.equal(a, old)
    return "no error", not torch.equal(a, old)


def _listed(names) -> str:
    *first, last = names
    return ", ".join(first) + " and " + last


@fact("inference-tensor-alias-edit-routes", {
    "en": "Makes an inference tensor a under torch.inference_mode(), by torch.tensor([1., 2., 3.]) and as the output "
          "of a Linear(3, 3) (weights 1, bias 0) on a normal input; outside the mode takes b = a.detach(), "
          "b = a.data or b = copy.copy(a): the first two are inference tensors, copy.copy(a) is not. For each, with "
          f"grad mode on and under torch.no_grad(), runs on a fresh a each of {_listed(CALLS)}: none raises, and "
          f"each changes a; then each of {_listed(VIEW_WRITES)}: through a.detach() and a.data each raises "
          f"\"{INPLACE_ERROR}\", and a has changed; through copy.copy(a) none raises, and each changes a.",
    "zh_CN": "在 torch.inference_mode() 下得到推理张量 a：用 torch.tensor([1., 2., 3.]) 创建，以及作为 Linear(3, 3)"
             "（权重为 1，偏置为 0）在普通输入上的输出；在模式外取 b = a.detach()、b = a.data 或 b = copy.copy(a)："
             "前两个是推理张量，copy.copy(a) 不是。对每一个，分别在梯度模式下和 torch.no_grad() 下，每次用新的 a，"
             f"逐一执行 {'、'.join(CALLS)}：都不报错，每个都改变了 a；再逐一执行 {'、'.join(VIEW_WRITES)}："
             f"经由 a.detach() 和 a.data，每个都报“{INPLACE_ERROR}”，而 a 已经变了；经由 copy.copy(a)，"
             "都不报错，每个都改变了 a。",
}, {"en": "the two inference tensors it names, float32, on the CPU",
    "zh_CN": "它列出的两个推理张量，float32，在 CPU 上"})
def _inference_tensor_alias_edit_routes() -> Fact:
    """Outside the mode, a.detach() and a.data of an inference tensor are inference tensors that take in-place
    calls on themselves, yet refuse, after writing, a write through one of their views or to an integer or slice
    index; copy.copy(a), a normal tensor, takes them all. Each edit reaches a."""
    kinds, seen = {}, {}
    for origin_name, origin in ORIGINS.items():
        a = inference_tensor(origin)
        kinds[origin_name] = {name: alias(a).is_inference() for name, alias in ALIASES.items()}
        for alias_name, alias in ALIASES.items():
            for context in (torch.enable_grad, torch.no_grad):
                for edits, raises in ((CALLS, False), (VIEW_WRITES, alias_name != "copy.copy(a)")):
                    for edit_name, edit in edits.items():
                        key = f"{origin_name}, {alias_name}, {edit_name} ({context.__name__})"
                        seen[key] = (_edit(origin, alias, edit, context), INPLACE_ERROR if raises else "no error")
    wrong = {key: got for key, (got, expected) in seen.items() if got != (expected, True)}
    inference = {"a.detach()": True, "a.data": True, "copy.copy(a)": False}
    return Fact(kinds == dict.fromkeys(ORIGINS, inference) and not wrong,
                f"is_inference() of a.detach(), a.data, copy.copy(a): {kinds}; {len(seen)} edits, "
                f"as stated: {len(seen) - len(wrong)}; otherwise (error, a changed): {wrong}")
