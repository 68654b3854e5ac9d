"""The named facts behind which edits a tensor's version counter sees: the routes that bypass it (the nine silent
rows of the table of ``questions/plot_12_version_counter``, each run under ``torch.no_grad()`` on a leaf whose old
values a loss saved, torch's public ``unsafe_`` splits, and ``view(dtype)`` taken under inference mode, an inference
tensor), and the views and chains of views and ``.detach()`` that share it (the ledger's note on ``.detach()``).
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import collections
import contextlib
import copy
from collections.abc import Callable

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


def _taken_under(enter: Callable[[], contextlib.AbstractContextManager[object]],
                 view: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
    """``view``, taken inside the context ``enter`` makes."""
    def taken(source: torch.Tensor) -> torch.Tensor:
        with enter():
            return view(source)
    return taken


#: Every operation torch documents as a view (the first table of the view operations page), by its code there:
#: (the source it reads, the view of a source).
_TABLE_VIEWS = {row.code: (row.source, lambda source, row=row: view_ops.apply(row, source)) for row in view_ops.VIEWS}
#: view(dtype) of the table's float32 a, to its own dtype and to others of the same or another element size.
DTYPE_VIEWS = {f"a.view(torch.{name})": ("a", lambda a, name=name: a.view(getattr(torch, name)))
               for name in ("float32", "int32", "uint8", "bfloat16")}
#: The modes a view is also taken in, besides grad mode: view(dtype) is taken only under torch.no_grad() (under
#: inference mode it is an inference tensor: :func:`_view_dtype_under_inference_mode_uncounted`).
TAKEN_UNDER = {"torch.no_grad()": torch.no_grad, "torch.inference_mode()": torch.inference_mode}
#: The views of the table and view(dtype), taken with grad mode on or in a mode of ``TAKEN_UNDER``.
VIEW_ROUTES = {
    **_TABLE_VIEWS, **DTYPE_VIEWS,
    **{f"{code} taken under {mode}": (source, _taken_under(enter, view)) for mode, enter in TAKEN_UNDER.items()
       for code, (source, view) in {**_TABLE_VIEWS, **DTYPE_VIEWS}.items()
       if not (code in DTYPE_VIEWS and enter is torch.inference_mode)},
}
#: Where the edit through a view (or through the source) is made: outside the modes under torch.no_grad(), or
#: inside torch.inference_mode().
EDITED_UNDER = {"torch.no_grad()": torch.no_grad, "torch.inference_mode()": torch.inference_mode}
#: The views whose elements overlap, which torch refuses to write through: increment_version stands in for the edit.
OVERLAPPING = ("a.expand(2, 3, 4)", "a.expand_as(torch.empty(2, 3, 4))")
#: The error backward raises instead, once the base was edited in place, for the saved views of ``BASE_ERROR_VIEWS``.
VIEW_BASE_ERROR = "its base or another view of its base has been modified inplace"
#: The views taken with grad mode on for which backward raises ``VIEW_BASE_ERROR``, not the version counter's error,
#: when the loss saved the view: outputs of unbind, split, split_with_sizes and chunk (one autograd node for all their
#: outputs; tensor_split, hsplit and vsplit give each output its own). A view taken under a mode of ``TAKEN_UNDER``
#: and saved may give either error.
BASE_ERROR_VIEWS = ("a.unbind()[0]", "a.split(1)[0]", "a.split_with_sizes([1, 2])[0]", "a.chunk(3)[0]")


def _edit(name: str, t: torch.Tensor) -> None:
    if name.split(" taken under ")[0] in OVERLAPPING:
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
        for where, enter in EDITED_UNDER.items():
            errors = {}
            for saved in ("source", "view"):
                source = view_ops.make_source(source_name, "contiguous").requires_grad_()
                made = view(source) if saved == "view" else None
                loss = _saved_by_loss(source if made is None else made)
                edited = view(source) if made is None else None
                with enter():
                    if edited is not None:
                        _edit(name, edited)
                    else:
                        source.mul_(10)
                errors[saved] = backward_error(loss)
            seen[f"{name}, edited under {where}"] = errors
    return seen


def _saved_view_error_as_stated(route: str, error: str) -> bool:
    """Whether backward's error, when the loss saved the view of ``route`` ("<code>, edited under <mode>") and the
    source was edited, is the one the fact states: either error for a view taken under a mode of ``TAKEN_UNDER``,
    ``VIEW_BASE_ERROR`` alone for ``BASE_ERROR_VIEWS``, the version counter's error for the others."""
    code = route.split(", edited under ")[0]
    if " taken under " in code:
        return VERSION_ERROR in error or VIEW_BASE_ERROR in error
    if code in BASE_ERROR_VIEWS:
        return VIEW_BASE_ERROR in error and VERSION_ERROR not in error
    return VERSION_ERROR in error


def _kinds_seen(views: dict[str, dict[str, str]]) -> str:
    """The pairs of errors of :func:`_view_routes_caught` (saved source / saved view) counted by the mode the view
    was taken in, with the views taken with grad mode on whose pair is not the version counter's error twice."""
    counts: dict[str, collections.Counter[str]] = {}
    unusual = set()
    for route, errors in views.items():
        code = route.split(", edited under ")[0]
        taken = code.split(" taken under ")[1] if " taken under " in code else "grad mode"
        kind = " / ".join(_kind(error) for error in errors.values())
        counts.setdefault(taken, collections.Counter())[kind] += 1
        if taken == "grad mode" and kind != "version counter / version counter":
            unusual.add(f"{code}: {kind}")
    return f"{ {taken: dict(kinds) for taken, kinds in counts.items()} }; taken with grad mode on, {sorted(unusual)}"


def _kind(error: str) -> str:
    """Which error backward raised: the version counter's, the one about a view's base, or another (or none)."""
    return "version counter" if VERSION_ERROR in error else "view base" if VIEW_BASE_ERROR in error else repr(error)


@fact("version-counter-shared-by-views-and-detach", {
    "en": "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True); loss = (w * s).sum(), with w a tensor of ones "
          "that requires grad, saves s, which is b, b[1:] or b.detach(); then, under torch.no_grad(), mul_(10) on a "
          "tensor related to s by one of " + str(len(SHARING_ROUTES)) + " routes: " + ", ".join(SHARING_ROUTES)
          + ". Then the views of " + str(len(_TABLE_VIEWS)) + " view operations, those of the view operations "
          "page's first table (the views torch documents), and of " + ", ".join(DTYPE_VIEWS) + ", each taken with "
          "grad mode on and under torch.no_grad(), and the table's views under torch.inference_mode() too ("
          + str(len(VIEW_ROUTES)) + " in all), each from that page's contiguous source made to require grad: a loss "
          "(w * t).abs().sum() saves the source and mul_(10) goes through its view, or the loss saves the view and "
          "mul_(10) goes through the source, each edit made once under torch.no_grad() and once inside "
          "torch.inference_mode() (torch.autograd.graph.increment_version(view) stands in for the edit through "
          "expand and expand_as, which torch refuses to write through). Each time loss.backward() raises an error: "
          "the version-counter error, except when the loss saved the view: for the views "
          + ", ".join(BASE_ERROR_VIEWS[:-1]) + " and " + BASE_ERROR_VIEWS[-1] + " taken with grad mode on it "
          "raises only the error that \"its base or another view of its base has been modified inplace\" (the "
          "outputs of tensor_split, hsplit and vsplit, which also return several views, give the version-counter "
          "error), and for a view taken under torch.no_grad() or torch.inference_mode() one of the two errors.",
    "zh_CN": "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)；loss = (w * s).sum()（w 是需要梯度的全 1 张量）"
             "保存了 s，s 是 b、b[1:] 或 b.detach()；然后在 torch.no_grad() 下，对与 s 有下列 "
             + str(len(SHARING_ROUTES)) + " 种关系之一的张量调用 mul_(10)：被保存的张量本身、它的视图、它的基张量、"
             "基张量的视图、它的 .detach()、它的视图的 .detach()、它的 .detach() 的视图、它的 .detach() 的 .detach()、"
             "基张量的 .detach()、它从中 detach 出来的那个张量、那个张量的视图、那个张量的 .detach()。"
             "再取 " + str(len(_TABLE_VIEWS)) + " 种视图操作（“视图操作一览”那一页第一张表中的操作，"
             "即 torch 文档列为视图的操作）以及 " + "、".join(DTYPE_VIEWS) + " 给出的视图，每种都在梯度模式下和 "
             "torch.no_grad() 下各取一次，表中的操作还在 torch.inference_mode() 下取一次（共 "
             + str(len(VIEW_ROUTES)) + " 种），都取自那一页的连续源张量（设为需要梯度）：损失 (w * t).abs().sum() "
             "保存源张量，经由它的视图调用 mul_(10)；或者损失保存视图，经由源张量调用 mul_(10)；"
             "每次修改都在 torch.no_grad() 下和 torch.inference_mode() 里各做一次（expand 和 expand_as 的视图 "
             "torch 拒绝写入，由 torch.autograd.graph.increment_version(view) 代替这次修改）。"
             "每一次 loss.backward() 都报错，报的是版本计数器错误，只有损失保存视图时例外：在梯度模式下取的 "
             + "、".join(BASE_ERROR_VIEWS[:-1]) + " 和 " + BASE_ERROR_VIEWS[-1]
             + " 只报“its base or another view of its base has been modified inplace”（tensor_split、hsplit 和 "
             "vsplit 同样返回多个视图，它们的输出报的是版本计数器错误）；在 torch.no_grad() 或 "
             "torch.inference_mode() 下取的视图报这两种错误之一。",
}, {"en": f"{len(SHARING_ROUTES)} routes and {len(VIEW_ROUTES)} views both ways, each edit under torch.no_grad() and "
          "inside torch.inference_mode(), float32 (the complex source complex64), on the CPU",
    "zh_CN": f"{len(SHARING_ROUTES)} 种关系和 {len(VIEW_ROUTES)} 种视图的两个方向，每次修改在 torch.no_grad() 下和 "
             "torch.inference_mode() 里各做一次，float32（复数源张量为 complex64），在 CPU 上"})
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
    caught = all(VERSION_ERROR in error for error in seen.values()) and all(
        VERSION_ERROR in errors["source"] and _saved_view_error_as_stated(route, errors["view"])
        for route, errors in views.items()) and set(BASE_ERROR_VIEWS) <= {route.split(", edited")[0] for route in views}
    return Fact(caught,
                "backward raised the version-counter error, per route: "
                + str({name: VERSION_ERROR in error for name, error in seen.items()})
                + f"; the error when the source was saved / when the view was: {_kinds_seen(views)}")


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


#: Tensors that are not inference tensors, made outside inference mode: view(dtype) of each, taken under
#: torch.inference_mode(), is an inference tensor.
NORMAL_SOURCES = {
    "a leaf that requires grad": lambda: torch.ones(4, requires_grad=True),
    "its .detach()": lambda: torch.ones(4, requires_grad=True).detach(),
    "a non-leaf": lambda: torch.ones(4, requires_grad=True) * 1,
    "a view of a leaf, [4:] of 8 elements": lambda: torch.ones(8, requires_grad=True)[4:],
    "a Parameter": lambda: torch.nn.Parameter(torch.ones(4)),
    "a plain tensor": lambda: torch.ones(4),
    "a meta tensor": lambda: torch.ones(4, device="meta"),
    "an int64 tensor": lambda: torch.ones(4, dtype=torch.int64),
    "a complex64 tensor": lambda: torch.ones(4, dtype=torch.complex64),
}
#: The edits made inside torch.inference_mode() after loss = (base * base).sum(): through view(dtype) of base or of
#: base.detach(), to float32 (multiplied by 10) or to int32 (1 << 23 added to each float's bits, which doubles it).
INFERENCE_DTYPE_EDITS = {
    "base.view(torch.float32)": (lambda b: b.view(torch.float32).mul_(10), 10.0),
    "base.detach().view(torch.float32)": (lambda b: b.detach().view(torch.float32).mul_(10), 10.0),
    "base.view(torch.int32)": (lambda b: b.view(torch.int32).add_(1 << 23), 2.0),
    "base.detach().view(torch.int32)": (lambda b: b.detach().view(torch.int32).add_(1 << 23), 2.0),
}


def _dtype_views_not_inference() -> tuple[list[str], int]:
    """The view(dtype) calls, taken under torch.inference_mode() on each of ``NORMAL_SOURCES`` for every dtype of
    torch, that raised or did not return an inference tensor on the source's storage; and how many calls were made."""
    wrong, ran = [], 0
    for name, make in NORMAL_SOURCES.items():
        source = make()
        for dtype in dict.fromkeys(v for v in vars(torch).values() if isinstance(v, torch.dtype)):
            ran += 1
            with torch.inference_mode():
                try:
                    view = source.view(dtype)
                except (RuntimeError, NotImplementedError) as exc:
                    wrong.append(f"{name}.view({dtype}): {type(exc).__name__}")
                    continue
            # The same storage object, which meta has too (every meta storage starts at address 0).
            if not view.is_inference() or view.untyped_storage()._cdata != source.untyped_storage()._cdata:
                wrong.append(f"{name}.view({dtype})")
    return wrong, ran


@fact("view-dtype-under-inference-mode-uncounted", {
    "en": "Under torch.inference_mode(), calls view(dtype) for every dtype of torch (each torch.dtype among torch's "
          "attributes) on tensors that are not inference tensors, made outside the mode: " + ", ".join(NORMAL_SOURCES)
          + " (four elements each): each call runs and returns an inference tensor on the source's storage (the same "
          "storage object, on meta too). Then "
          "base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True); loss = (base * base).sum() saves base; "
          "inside torch.inference_mode(), "
          "one edit goes through " + ", ".join(INFERENCE_DTYPE_EDITS) + " (mul_(10) on float32, add_(1 << 23) on "
          "int32, which doubles each float): each time base's values change, base._version stays 0, "
          "loss.backward() raises nothing, and base.grad is 2 * base at the edited values, not [2, 4, 6].",
    "zh_CN": "在 torch.inference_mode() 下，对在该模式之外创建的非推理张量调用 view(dtype)，dtype 取 torch 的每种 "
             "dtype（torch 属性中的每个 torch.dtype），张量为需要梯度的叶子张量、它的 .detach()、非叶子张量、"
             "叶子张量的视图（8 个元素的 [4:]）、Parameter、普通张量、meta 张量、int64 张量和 complex64 张量"
             "（各 4 个元素）：每次调用都能执行，返回的都是源张量存储上的推理张量（同一个存储对象，meta 上也是）。"
             "然后 base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)；loss = (base * base).sum() 保存了 base；"
             "在 torch.inference_mode() 里经由 "
             + "、".join(INFERENCE_DTYPE_EDITS) + " 之一做一次修改（float32 上 mul_(10)，int32 上 add_(1 << 23)，"
             "即把每个浮点数翻倍）：每一次 base 的数值都变了，base._version 仍为 0，loss.backward() 不报错，"
             "base.grad 是按修改后的数值算出的 2 * base，而不是 [2, 4, 6]。",
}, {"en": f"{len(NORMAL_SOURCES)} sources and every dtype of torch, then {len(INFERENCE_DTYPE_EDITS)} edits of a "
          "float32 base, on the CPU (one source on meta)",
    "zh_CN": f"{len(NORMAL_SOURCES)} 种源张量和 torch 的每种 dtype，再对 float32 的 base 做 "
             f"{len(INFERENCE_DTYPE_EDITS)} 种修改，在 CPU 上（一种源张量在 meta 上）"})
def _view_dtype_under_inference_mode_uncounted() -> Fact:
    """view(dtype) taken under inference mode is an inference tensor: it has no version counter, so an edit through
    it inside the mode after a save goes unnoticed and the gradient is wrong."""
    wrong, ran = _dtype_views_not_inference()
    seen = {}
    for name, (edit, factor) in INFERENCE_DTYPE_EDITS.items():
        base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (base * base).sum()  # saves base; its gradient is 2 * base = [2, 4, 6]
        with torch.inference_mode():
            edit(base)
        values, version, error = base.detach().tolist(), base._version, backward_error(loss)
        grad = base.grad.tolist() if base.grad is not None else None
        seen[name] = (values, version, error, grad,
                      values == [factor, 2 * factor, 3 * factor] and grad == [2 * factor, 4 * factor, 6 * factor])
    silent = all(version == 0 and not error and as_edited for _, version, error, _, as_edited in seen.values())
    return Fact(not wrong and silent,
                f"{ran} view(dtype) calls; raised, or not an inference tensor on the source's storage object: "
                f"{wrong or 'none'}; "
                f"(base, base._version, backward error, base.grad, edited and 2 * base) per edit: {seen}; "
                "true gradient [2.0, 4.0, 6.0]")
