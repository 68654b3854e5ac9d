"""The named fact behind the routes that bypass a tensor's version counter: the eight silent rows of the table
of ``questions/plot_12_version_counter``, each run under ``torch.no_grad()`` on a leaf whose old values a loss
saved. Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import copy

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import backward_error

#: The routes, named as in the table of the version-counter page; each writes w * 10 into w.
BYPASS_ROUTES = {
    ".data": lambda w, new: w.data.copy_(new),
    "NumPy": lambda w, new: w.detach().numpy().__setitem__(slice(None), new.numpy()),
    "untyped_storage()": lambda w, new: w.untyped_storage().copy_(new.untyped_storage()),
    "DLPack": lambda w, new: torch.from_dlpack(w.detach()).copy_(new),
    "vector_to_parameters": lambda w, new: torch.nn.utils.vector_to_parameters(new, [w]),
    "copy.copy": lambda w, new: copy.copy(w).copy_(new),
    "apply_": lambda w, new: w.detach().apply_(lambda v: v * 10),
    "map_": lambda w, new: w.detach().map_(torch.ones_like(new), lambda v, _: v * 10),
}


@fact("counter-bypass-edits-silent", {
    "en": "w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True), in float32 and float64; loss = (w * w).sum() "
          "saves w; under torch.no_grad(), one edit writes [10, 20, 30] into w by one of the eight routes around the "
          "version counter in the version-counter page's table: w.data.copy_(new), a write into w.detach().numpy(), "
          "w.untyped_storage().copy_(new.untyped_storage()), torch.from_dlpack(w.detach()).copy_(new), "
          "nn.utils.vector_to_parameters(new, [w]), copy.copy(w).copy_(new), w.detach().apply_(f) and "
          "w.detach().map_(ones, f), f multiplying by 10. Each time w's values change, w._version stays 0, "
          "loss.backward() raises nothing, and w.grad is [20, 40, 60] where the loss's gradient is [2, 4, 6].",
    "zh_CN": "w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)，float32 和 float64 各一次；loss = (w * w).sum() "
             "保存了 w；在 torch.no_grad() 下，用绕过版本计数器（version counter）的八条途径之一"
             "（列在“版本计数器”那一页的表里）把 [10, 20, 30] 写进 w："
             "w.data.copy_(new)、写入 w.detach().numpy()、w.untyped_storage().copy_(new.untyped_storage())、"
             "torch.from_dlpack(w.detach()).copy_(new)、nn.utils.vector_to_parameters(new, [w])、"
             "copy.copy(w).copy_(new)、w.detach().apply_(f) 和 w.detach().map_(ones, f)（f 乘以 10）。"
             "每一次 w 的数值都变了，w._version 仍为 0，loss.backward() 不报错，w.grad 是 [20, 40, 60]，"
             "而这个损失的梯度应是 [2, 4, 6]。",
}, {"en": "the eight routes, float32 and float64, on the CPU", "zh_CN": "这八条途径，float32 和 float64，在 CPU 上"})
def _counter_bypass_edits_silent() -> Fact:
    seen = {}
    for name, edit in BYPASS_ROUTES.items():
        for dtype in (torch.float32, torch.float64):
            w = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
            loss = (w * w).sum()  # saves w
            with torch.no_grad():
                edit(w, torch.tensor([10.0, 20.0, 30.0], dtype=dtype))
            version, error = w._version, backward_error(loss)
            seen[f"{name} {dtype}"] = (w.detach().tolist(), version, error,
                                       w.grad.tolist() if w.grad is not None else None)
    silent = all(values == [10.0, 20.0, 30.0] and version == 0 and not error and grad == [20.0, 40.0, 60.0]
                 for values, version, error, grad in seen.values())
    return Fact(silent, f"(values, _version, backward error, w.grad) per route: {seen}; true gradient [2.0, 4.0, 6.0]")
