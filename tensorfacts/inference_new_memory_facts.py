"""Named facts on what ``torch.inference_mode()`` computes into new memory: factories, arithmetic, and the calls that
copy (``clone()``, ``contiguous()`` and ``reshape()`` of a tensor they cannot return as it is, ``to()`` float64, or
float32 from float64, ``cat``, ``flip``), each run inside the mode on each standard source, give an inference tensor
in memory of its own, with no version counter (reading its ``_version`` raises) and a ``detach()`` and ``.data``,
taken outside the mode, whose counters edits made inside the mode leave at 0.
It stands behind the copying part's page on ``a = a + 1`` (the views, ``detach()`` and ``.data`` taken there are in
:mod:`tensorfacts.inference_facts`). Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a
fact is.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from tensorfacts.fact_registry import scoped_fact
from tensorfacts.meta_reasons import NEEDS_ADDRESSES
from tensorfacts.scope import VALUE_DEVICES, Case
from tensorfacts.tensors import version_read


def _other_dtype(a: torch.Tensor) -> torch.dtype:
    return torch.float32 if a.dtype == torch.float64 else torch.float64


#: The routes to new memory tried inside the mode, each on the case's ``a`` (made beforehand: outside the mode, or
#: inside an earlier ``inference_mode()`` block for the inference tensor) or on nothing.
NEW_MEMORY: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "torch.ones(2, 2)": lambda a: torch.ones(2, 2),
    "torch.tensor([1., 2.])": lambda a: torch.tensor([1.0, 2.0]),
    "torch.zeros_like(a)": lambda a: torch.zeros_like(a),
    "torch.empty_like(a).copy_(a)": lambda a: torch.empty_like(a).copy_(a),
    "a * 2": lambda a: a * 2,
    "a + a": lambda a: a + a,
    "a.exp()": lambda a: a.exp(),
    "a.clone()": lambda a: a.clone(),
    "a.detach().clone()": lambda a: a.detach().clone(),
    "a.flip(0)": lambda a: a.flip(0),
    "torch.cat([a, a])": lambda a: torch.cat([a, a]),
    "a.unsqueeze(1).expand(3, 2).contiguous()": lambda a: a.unsqueeze(1).expand(3, 2).contiguous(),
    "a.unsqueeze(1).expand(3, 2).reshape(6)": lambda a: a.unsqueeze(1).expand(3, 2).reshape(6),
    "a.to(torch.float64), or torch.float32 for a float64 a": lambda a: a.to(_other_dtype(a)),
}


def new_memory_outputs(case: Case) -> dict[str, tuple[bool, bool]]:
    """Each route of :data:`NEW_MEMORY` run inside ``torch.inference_mode()``: (an inference tensor, its storage
    apart from ``a``'s)."""
    _, a = case.build()
    seen = {}
    for name, make in NEW_MEMORY.items():
        with torch.inference_mode():
            result = make(a)
        seen[name] = (result.is_inference(),
                      result.untyped_storage().data_ptr() != a.untyped_storage().data_ptr())
    return seen


@scoped_fact("inference-mode-new-memory-is-inference", {
    "en": "Inside torch.inference_mode(), on a made beforehand (outside the mode, or, for the inference tensor, "
          "inside it earlier): torch.ones(2, 2), torch.tensor([1., 2.]), "
          "torch.zeros_like(a), torch.empty_like(a).copy_(a), a * 2, a + a, a.exp(), a.clone(), a.detach().clone(), "
          "a.flip(0), torch.cat([a, a]), a.unsqueeze(1).expand(3, 2).contiguous() and .reshape(6), and "
          "a.to(torch.float64) (a.to(torch.float32) for a float64 a) each give an inference tensor whose storage "
          "starts elsewhere than a's.",
    "zh_CN": "在 torch.inference_mode() 里，对事先创建的 a（在模式外创建；推理张量则是先前在模式内创建的）："
             "torch.ones(2, 2)、torch.tensor([1., 2.])、"
             "torch.zeros_like(a)、torch.empty_like(a).copy_(a)、a * 2、a + a、a.exp()、a.clone()、"
             "a.detach().clone()、a.flip(0)、torch.cat([a, a])、a.unsqueeze(1).expand(3, 2).contiguous() 和 "
             ".reshape(6)，以及 a.to(torch.float64)（a 为 float64 时用 a.to(torch.float32)），得到的都是推理张量，"
             "存储的起点都不在 a 的存储那里。",
}, lambda case: dict.fromkeys(NEW_MEMORY, (True, True)), devices=VALUE_DEVICES, narrower=NEEDS_ADDRESSES)
def _inference_mode_new_memory_is_inference(case: Case) -> dict[str, tuple[bool, bool]]:
    return new_memory_outputs(case)


def new_memory_counters(case: Case) -> dict[str, tuple[object, ...]]:
    """Each route of :data:`NEW_MEMORY` run inside ``torch.inference_mode()``: what reading the result's ``_version``
    gives, and, for its ``detach()`` and ``.data`` taken outside the mode, whether each is an inference tensor and
    what its ``_version`` reads after ``mul_(2)`` inside the mode on the result, on the ``detach()`` and on the
    ``.data``."""
    _, a = case.build()
    seen = {}
    for name, make in NEW_MEMORY.items():
        with torch.inference_mode():
            result = make(a)
        taken = result.detach(), result.data
        with torch.inference_mode():
            for t in (result, *taken):
                t.mul_(2)
        seen[name] = (version_read(result), *(t.is_inference() for t in taken), *(version_read(t) for t in taken))
    return seen


@scoped_fact("inference-mode-new-memory-no-counter", {
    "en": "Inside torch.inference_mode(), on a made beforehand, runs each call of "
          "inference-mode-new-memory-is-inference (torch.ones(2, 2), a * 2, a.clone(), torch.cat([a, a]) ...), then "
          "takes the result's detach() and .data outside the mode and calls mul_(2) inside the mode on the result, on "
          "the detach() and on the .data: reading the result's _version raises (inference tensors do not track a "
          "version counter), the detach() and the .data are inference tensors, and reading their _version gives 0.",
    "zh_CN": "在 torch.inference_mode() 里，对事先创建的 a 执行 inference-mode-new-memory-is-inference 的每个调用"
             "（torch.ones(2, 2)、a * 2、a.clone()、torch.cat([a, a]) 等），再在模式外取结果的 detach() 和 .data，"
             "然后在模式里对结果、对 detach() 和对 .data 各调用一次 mul_(2)：读取结果的 _version 报错（推理张量"
             "没有版本计数器），detach() 和 .data 都是推理张量，读取它们的 _version 得到 0。",
}, lambda case: dict.fromkeys(NEW_MEMORY, ("raises", True, True, 0, 0)))
def _inference_mode_new_memory_no_counter(case: Case) -> dict[str, tuple[object, ...]]:
    return new_memory_counters(case)
