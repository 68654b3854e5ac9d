"""The named facts behind which edits a tensor's version counter sees: the routes that bypass it (the nine silent
rows of the table of ``questions/plot_12_version_counter``, each run under ``torch.no_grad()`` on a leaf whose old
values a loss saved, and torch's public ``unsafe_`` splits), and the views and chains of views and ``.detach()``
that share it (the ledger's note on ``.detach()``).
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import copy

import torch

from tensorfacts import view_ops
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


def _inference_mode_slice(a: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode():
        return a[1:]


#: Every operation torch documents as a view (the first table of the view operations page), by its code there, and
#: two more: (the source it reads, the view of a source).
VIEW_ROUTES = {
    **{row.code: (row.source, lambda source, row=row: view_ops.apply(row, source)) for row in view_ops.VIEWS},
    "a.view(torch.int32)": ("a", lambda a: a.view(torch.int32)),
    "a[1:] taken under torch.inference_mode()": ("a", _inference_mode_slice),
}
#: The views whose elements overlap, which torch refuses to write through: increment_version stands in for the edit.
OVERLAPPING = ("a.expand(2, 3, 4)", "a.expand_as(torch.empty(2, 3, 4))")
#: The error backward raises instead, once the base was edited in place, for the saved views of ``BASE_ERROR_VIEWS``.
VIEW_BASE_ERROR = "its base or another view of its base has been modified inplace"
#: The views of ``VIEW_ROUTES`` for which backward raises ``VIEW_BASE_ERROR``, not the version counter's error, when
#: the loss saved the view: outputs of unbind, split, split_with_sizes and chunk (one autograd node for all their
#: outputs; tensor_split, hsplit and vsplit give each output its own), and the view taken under inference mode.
BASE_ERROR_VIEWS = ("a.unbind()[0]", "a.split(1)[0]", "a.split_with_sizes([1, 2])[0]", "a.chunk(3)[0]",
                    "a[1:] taken under torch.inference_mode()")


def _edit(name: str, t: torch.Tensor) -> None:
    if name in OVERLAPPING:
        torch.autograd.graph.increment_version(t)
    else:
        t.mul_(10)


def _saved_by_loss(t: torch.Tensor) -> torch.Tensor:
    """A real loss that saves ``t`` (for the gradient of a tensor of ones that requires grad)."""
    floating = t.is_floating_point() or t.is_complex()
    out = torch.ones(t.shape, dtype=t.dtype if floating else torch.float32, requires_grad=True) * t
    return (out.to_dense() if out.is_sparse else out).abs().sum()


def _view_routes_caught() -> dict[str, dict[str, str]]:
    """For each view operation, backward's error when the loss saved the source and the view was edited, and when
    it saved the view and the source was edited."""
    seen = {}
    for name, (source_name, view) in VIEW_ROUTES.items():
        errors = {}
        for saved in ("source", "view"):
            source = view_ops.make_source(source_name, "contiguous").requires_grad_()
            made = view(source) if saved == "view" else None
            loss = _saved_by_loss(source if made is None else made)
            with torch.no_grad():
                if made is None:
                    _edit(name, view(source))
                else:
                    source.mul_(10)
            errors[saved] = backward_error(loss)
        seen[name] = errors
    return seen


def _kind(error: str) -> str:
    """Which error backward raised: the version counter's, the one about a view's base, or another (or none)."""
    return "version counter" if VERSION_ERROR in error else "view base" if VIEW_BASE_ERROR in error else repr(error)


@fact("version-counter-shared-by-views-and-detach", {
    "en": "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True); loss = (w * s).sum(), with w a tensor of ones "
          "that requires grad, saves s, which is b, b[1:] or b.detach(); then, under torch.no_grad(), mul_(10) on a "
          "tensor related to s by one of " + str(len(SHARING_ROUTES)) + " routes: " + ", ".join(SHARING_ROUTES)
          + ". Then each of " + str(len(VIEW_ROUTES)) + " view operations: those of the view operations page's "
          "first table (the views torch documents), a.view(torch.int32) and a[1:] taken under "
          "torch.inference_mode(), each on that page's contiguous source made to require grad: a loss "
          "(w * t).abs().sum() saves the source and mul_(10) under torch.no_grad() goes through its view, or the "
          "loss saves the view and mul_(10) under torch.no_grad() goes through the source "
          "(torch.autograd.graph.increment_version(view) stands in for the edit through expand and expand_as, "
          "which torch refuses to write through). Each time loss.backward() raises an error: the version-counter "
          "error, except when the loss saved one of the views " + ", ".join(BASE_ERROR_VIEWS[:-1]) + " and "
          + BASE_ERROR_VIEWS[-1] + ", for which it raises only the error that \"its base or another view of its "
          "base has been modified inplace\" (the outputs of tensor_split, hsplit and vsplit, which also return "
          "several views, give the version-counter error).",
    "zh_CN": "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)；loss = (w * s).sum()（w 是需要梯度的全 1 张量）"
             "保存了 s，s 是 b、b[1:] 或 b.detach()；然后在 torch.no_grad() 下，对与 s 有下列 "
             + str(len(SHARING_ROUTES)) + " 种关系之一的张量调用 mul_(10)：被保存的张量本身、它的视图、它的基张量、"
             "基张量的视图、它的 .detach()、它的视图的 .detach()、它的 .detach() 的视图、它的 .detach() 的 .detach()、"
             "基张量的 .detach()、它从中 detach 出来的那个张量、那个张量的视图、那个张量的 .detach()。"
             "再逐一运行 " + str(len(VIEW_ROUTES)) + " 种视图操作：“视图操作一览”那一页第一张表中的操作"
             "（torch 文档列为视图的操作），以及 a.view(torch.int32) 和在 torch.inference_mode() 下取的 a[1:]，"
             "各自作用于那一页的连续源张量（设为需要梯度）：损失 (w * t).abs().sum() 保存源张量，"
             "在 torch.no_grad() 下经由它的视图调用 mul_(10)；或者损失保存视图，"
             "在 torch.no_grad() 下经由源张量调用 mul_(10)（expand 和 expand_as 的视图 torch 拒绝写入，"
             "由 torch.autograd.graph.increment_version(view) 代替这次修改）。"
             "每一次 loss.backward() 都报错：损失保存的视图是 " + "、".join(BASE_ERROR_VIEWS[:-1])
             + " 或在 torch.inference_mode() 下取的 a[1:] 时，只报“its base or another view of its base has been "
             "modified inplace”；其余情况都报版本计数器错误（tensor_split、hsplit 和 vsplit 同样返回多个视图，"
             "它们的输出报的也是版本计数器错误）。",
}, {"en": f"{len(SHARING_ROUTES)} routes and {len(VIEW_ROUTES)} view operations both ways, float32 (the complex "
          "source complex64), on the CPU",
    "zh_CN": f"{len(SHARING_ROUTES)} 种关系和 {len(VIEW_ROUTES)} 种视图操作的两个方向，float32（复数源张量为 "
             "complex64），在 CPU 上"})
def _version_counter_shared_by_views_and_detach() -> Fact:
    """Views and .detach() share one version counter in either direction and through chains of both, whatever
    view operation made the view: an edit through any of them after the save is caught."""
    seen = {}
    for name, (saved, related) in SHARING_ROUTES.items():
        b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = _SAVED[saved](b)
        loss = (torch.ones_like(s, requires_grad=True) * s).sum()  # saves s, for w's gradient
        with torch.no_grad():
            related(b, s).mul_(10)
        seen[name] = backward_error(loss)
    views = _view_routes_caught()
    base_error = {name: VIEW_BASE_ERROR in errors["view"] and VERSION_ERROR not in errors["view"]
                  for name, errors in views.items()}
    caught = all(VERSION_ERROR in error for error in seen.values()) and all(
        VERSION_ERROR in errors["source"] and (base_error[name] if name in BASE_ERROR_VIEWS
                                               else VERSION_ERROR in errors["view"])
        for name, errors in views.items()) and set(BASE_ERROR_VIEWS) <= set(views)
    return Fact(caught,
                "backward raised the version-counter error, per route: "
                + str({name: VERSION_ERROR in error for name, error in seen.items()})
                + "; per view operation, the error when the source was saved / when the view was: "
                + str({name: " / ".join(_kind(error) for error in errors.values()) for name, errors in views.items()}))


#: The second output of an unsafe split or chunk of the leaf b, made under torch.no_grad().
UNSAFE_PARTS = {
    "b.unsafe_split(2)": lambda b: b.unsafe_split(2)[1],
    "b.unsafe_chunk(2)": lambda b: b.unsafe_chunk(2)[1],
    "b.unsafe_split_with_sizes([2, 2])": lambda b: b.unsafe_split_with_sizes([2, 2])[1],
    "b.detach().unsafe_split(2)": lambda b: b.detach().unsafe_split(2)[1],
    "torch.unsafe_split(b.detach(), 2)": lambda b: torch.unsafe_split(b.detach(), 2)[1],
    "torch.unsafe_chunk(b.detach(), 2)": lambda b: torch.unsafe_chunk(b.detach(), 2)[1],
    "torch.unsafe_split_with_sizes(b.detach(), [2, 2])": lambda b: torch.unsafe_split_with_sizes(b.detach(), [2, 2])[1],
}


def _unsafe_calls_missing() -> list[str]:
    """The public ``unsafe_`` functions of torch and methods of a tensor that no call of ``UNSAFE_PARTS`` makes."""
    functions = [f"torch.{name}" for name in dir(torch) if name.startswith("unsafe_")
                 if not any(call.startswith(f"torch.{name}(") for call in UNSAFE_PARTS)]
    methods = [f"Tensor.{name}" for name in dir(torch.Tensor) if name.startswith("unsafe_")
               if not any(f".{name}(" in call and not call.startswith("torch.") for call in UNSAFE_PARTS)]
    return functions + methods


@fact("unsafe-split-shares-memory-not-counter", {
    "en": "Every public unsafe_ function of torch and method of a tensor (dir(torch), dir(torch.Tensor)) is called "
          "below. b = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True); loss = (b * b).sum() saves b; under "
          "torch.no_grad(), p is the second output of " + ", ".join(UNSAFE_PARTS) + " (one each time), and "
          "p.mul_(10). Each time b becomes [1, 2, 30, 40], b._version stays 0, loss.backward() raises nothing, "
          "and b.grad is [2, 4, 60, 80] where the loss's gradient is [2, 4, 6, 8].",
    "zh_CN": "下面调用了 torch 的每一个公开 unsafe_ 函数和张量的每一个公开 unsafe_ 方法"
             "（dir(torch)、dir(torch.Tensor)）。"
             "b = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)；loss = (b * b).sum() 保存了 b；在 "
             "torch.no_grad() 下，p 是 " + "、".join(UNSAFE_PARTS) + " 之一的第二个输出，执行 p.mul_(10)。"
             "每一次 b 都变成 [1, 2, 30, 40]，b._version 仍为 0，loss.backward() 不报错，b.grad 是 "
             "[2, 4, 60, 80]，而这个损失的梯度应是 [2, 4, 6, 8]。",
}, {"en": f"{len(UNSAFE_PARTS)} calls, float32, on the CPU",
    "zh_CN": f"{len(UNSAFE_PARTS)} 种调用，float32，在 CPU 上"})
def _unsafe_split_shares_memory_not_counter() -> Fact:
    seen = {}
    for name, part in UNSAFE_PARTS.items():
        b = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        loss = (b * b).sum()  # saves b; its gradient is 2 * b
        with torch.no_grad():
            part(b).mul_(10)
        values, version, error = b.detach().tolist(), b._version, backward_error(loss)
        seen[name] = (values, version, error, b.grad.tolist() if b.grad is not None else None)
    silent = all(values == [1.0, 2.0, 30.0, 40.0] and version == 0 and not error and grad == [2.0, 4.0, 60.0, 80.0]
                 for values, version, error, grad in seen.values())
    uncalled = _unsafe_calls_missing()
    return Fact(silent and not uncalled,
                f"public unsafe_ functions and methods not called: {uncalled}; "
                f"(b, b._version, backward error, b.grad) per call: {seen}; true gradient [2.0, 4.0, 6.0, 8.0]")
