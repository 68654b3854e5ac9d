"""The named facts behind which edits a tensor's version counter sees: the routes that bypass it (the nine silent
rows of the table of ``questions/plot_12_version_counter``, each run under ``torch.no_grad()`` on a leaf whose old
values a loss saved), and the chains of views and ``.detach()`` that share it (the ledger's note on ``.detach()``).
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import copy

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import VERSION_ERROR, backward_error

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
    "map2_": lambda w, new: w.detach().map2_(torch.ones_like(new), torch.ones_like(new), lambda v, _a, _b: v * 10),
}


@fact("counter-bypass-edits-silent", {
    "en": "w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True), in float32 and float64; loss = (w * w).sum() "
          "saves w; under torch.no_grad(), one edit writes [10, 20, 30] into w by one of the nine routes around the "
          "version counter in the version-counter page's table: w.data.copy_(new), a write into w.detach().numpy(), "
          "w.untyped_storage().copy_(new.untyped_storage()), torch.from_dlpack(w.detach()).copy_(new), "
          "nn.utils.vector_to_parameters(new, [w]), copy.copy(w).copy_(new), w.detach().apply_(f), "
          "w.detach().map_(ones, f) and w.detach().map2_(ones, ones, f), f multiplying by 10. Each time w's values "
          "change, w._version stays 0, loss.backward() raises nothing, and w.grad is [20, 40, 60] where the loss's "
          "gradient is [2, 4, 6].",
    "zh_CN": "w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)，float32 和 float64 各一次；loss = (w * w).sum() "
             "保存了 w；在 torch.no_grad() 下，用绕过版本计数器（version counter）的九条途径之一"
             "（列在“版本计数器”那一页的表里）把 [10, 20, 30] 写进 w："
             "w.data.copy_(new)、写入 w.detach().numpy()、w.untyped_storage().copy_(new.untyped_storage())、"
             "torch.from_dlpack(w.detach()).copy_(new)、nn.utils.vector_to_parameters(new, [w])、"
             "copy.copy(w).copy_(new)、w.detach().apply_(f)、w.detach().map_(ones, f) 和 "
             "w.detach().map2_(ones, ones, f)（f 乘以 10）。"
             "每一次 w 的数值都变了，w._version 仍为 0，loss.backward() 不报错，w.grad 是 [20, 40, 60]，"
             "而这个损失的梯度应是 [2, 4, 6]。",
}, {"en": "the nine routes, float32 and float64, on the CPU", "zh_CN": "这九条途径，float32 和 float64，在 CPU 上"})
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


#: What a loss saves, made from the leaf b: b, its view b[1:], or b.detach().
_SAVED = {"b": lambda b: b, "b[1:]": lambda b: b[1:], "b.detach()": lambda b: b.detach()}
#: The tensor an edit goes through, by how it is related to the saved tensor s: (what is saved, the tensor edited).
SHARING_ROUTES = {
    "the saved tensor": ("b", lambda b, s: s),
    "a view of it": ("b", lambda b, s: s[1:]),
    "its base": ("b[1:]", lambda b, s: b),
    "a view of its base": ("b[1:]", lambda b, s: b[:1]),
    "a .detach() of it": ("b", lambda b, s: s.detach()),
    "a .detach() of a view of it": ("b", lambda b, s: s[1:].detach()),
    "a view of a .detach() of it": ("b", lambda b, s: s.detach()[1:]),
    "a .detach() of a .detach() of it": ("b", lambda b, s: s.detach().detach()),
    "a .detach() of its base": ("b[1:]", lambda b, s: b.detach()),
    "the tensor it was detached from": ("b.detach()", lambda b, s: b),
    "a view of the tensor it was detached from": ("b.detach()", lambda b, s: b[1:]),
    "a .detach() of the tensor it was detached from": ("b.detach()", lambda b, s: b.detach()),
}


@fact("version-counter-shared-by-views-and-detach", {
    "en": "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True); loss = (w * s).sum(), with w a tensor of ones "
          "that requires grad, saves s, which is b, b[1:] or b.detach(); then, under torch.no_grad(), mul_(10) on a "
          "tensor related to s by one of " + str(len(SHARING_ROUTES)) + " routes: " + ", ".join(SHARING_ROUTES)
          + ". Each time loss.backward() raises the version-counter error.",
    "zh_CN": "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)；loss = (w * s).sum()（w 是需要梯度的全 1 张量）"
             "保存了 s，s 是 b、b[1:] 或 b.detach()；然后在 torch.no_grad() 下，对与 s 有下列 "
             + str(len(SHARING_ROUTES)) + " 种关系之一的张量调用 mul_(10)：被保存的张量本身、它的视图、它的基张量、"
             "基张量的视图、它的 .detach()、它的视图的 .detach()、它的 .detach() 的视图、它的 .detach() 的 .detach()、"
             "基张量的 .detach()、它从中 detach 出来的那个张量、那个张量的视图、那个张量的 .detach()。"
             "每一次 loss.backward() 都报版本计数器错误。",
}, {"en": f"{len(SHARING_ROUTES)} routes, float32, on the CPU",
    "zh_CN": f"{len(SHARING_ROUTES)} 种关系，float32，在 CPU 上"})
def _version_counter_shared_by_views_and_detach() -> Fact:
    """Views and .detach() share one version counter in either direction and through chains of both: an edit
    through any of them after the save is caught."""
    seen = {}
    for name, (saved, related) in SHARING_ROUTES.items():
        b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = _SAVED[saved](b)
        loss = (torch.ones_like(s, requires_grad=True) * s).sum()  # saves s, for w's gradient
        with torch.no_grad():
            related(b, s).mul_(10)
        seen[name] = backward_error(loss)
    return Fact(all(VERSION_ERROR in error for error in seen.values()),
                "backward raised the version-counter error, per route: "
                + str({name: VERSION_ERROR in error for name, error in seen.items()}))
