"""Named facts on the pieces of ``unsafe_chunk`` and ``unsafe_split`` of a strided CPU tensor that is not nested, as
the version-counter page states it: called outside ``torch.inference_mode()``, they return pieces on the tensor's
memory that are not views; on a tensor that is not an inference tensor (``is_inference()`` is ``False``), where
``chunk()`` and ``split()`` return views, each piece has a counter of its own, which an edit through it moves while the
tensor's stays; an inference tensor's pieces have no counter, even when the tensor has one (its ``detach()`` taken
outside the mode). Called inside the mode on a tensor that is not an inference tensor, they return pieces that are
views, yet each still has a counter of its own. Registered on import by :mod:`tensorfacts.facts`,
whose module docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import backward_error

#: The calls on the 2×4 tensor ``t``, each returning two pieces, and the same call without ``unsafe_``.
_CALLS: dict[str, tuple[Callable[[torch.Tensor], tuple[torch.Tensor, ...]], Callable]] = {
    "unsafe_chunk(2)": (lambda t: t.unsafe_chunk(2), lambda t: t.chunk(2)),
    "unsafe_chunk(2, dim=-1)": (lambda t: t.unsafe_chunk(2, dim=-1), lambda t: t.chunk(2, dim=-1)),
    "unsafe_split(1)": (lambda t: t.unsafe_split(1), lambda t: t.split(1)),
    "unsafe_split(2, dim=-1)": (lambda t: t.unsafe_split(2, dim=-1), lambda t: t.split(2, dim=-1)),
}
#: The grad modes the pieces are made in (outside torch.inference_mode()) and the modes an edit is made in.
_MADE_IN = {"grad mode on": torch.enable_grad, "no_grad": torch.no_grad}
_EDITED_IN = {**_MADE_IN, "inference_mode": torch.inference_mode}


def _make(dtype: torch.dtype) -> torch.Tensor:
    if str(dtype).startswith(("torch.qint", "torch.quint")):
        return torch.quantize_per_tensor(torch.zeros(2, 4), 0.5, 0, dtype)
    return torch.empty(2, 4, dtype=dtype)


def _sources(dtype: torch.dtype) -> dict[str, Callable[[], torch.Tensor]]:
    """A 2×4 tensor of this dtype, a view of one, one made inside ``torch.inference_mode()``, its ``detach()`` taken
    outside the mode (an inference tensor with a version counter), for a dtype that is not quantized that
    ``detach()``'s ``view(dtype)`` to its own dtype (not an inference tensor; on a quantized one, a piece of it ends
    the process with a segmentation fault) and, for a floating or complex dtype, a leaf that requires grad."""

    def in_inference_mode() -> torch.Tensor:
        with torch.inference_mode():
            return _make(dtype)

    sources = {"tensor": lambda: _make(dtype), "view": lambda: _make(dtype)[:, :],
               "inference tensor": in_inference_mode,
               "detach() of an inference tensor": lambda: in_inference_mode().detach()}
    if not str(dtype).startswith(("torch.qint", "torch.quint")):
        sources["view(dtype) of an inference tensor's detach()"] = lambda: in_inference_mode().detach().view(dtype)
    if dtype.is_floating_point or dtype.is_complex:
        sources["leaf that requires grad"] = lambda: _make(dtype).requires_grad_()
    return sources


def _version(t: torch.Tensor) -> object:
    try:
        return t._version
    except RuntimeError as exc:
        return "none" if "do not track version counter" in str(exc) else f"raises: {exc}"


def _piece_run(make: Callable[[], torch.Tensor], calls: tuple, made_in, edited_in) -> tuple:
    """``(shares and not a view, the safe call gives views, piece's counter, (t's, piece's) counters after copy_
    of the piece from a clone of itself in ``edited_in``, or the edit's error type)``."""
    t = make()
    with made_in():
        piece = calls[0](t)[0]
        views = all(q._is_view() for q in calls[1](t))
    shared = piece.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() and not piece._is_view()
    before = _version(piece)
    if before == "none":
        return shared, views, before, None
    t_before = t._version
    try:
        with edited_in():
            piece.copy_(piece.detach().clone())
    except NotImplementedError:
        return shared, views, before, "NotImplementedError"
    return shared, views, before, (t._version - t_before, piece._version - before)


@fact("unsafe-pieces-own-counter-every-dtype", {
    "en": "For every dtype the torch module names, on a 2×4 CPU tensor t, a view of one, one made inside "
          "torch.inference_mode(), its detach() taken outside the mode (an inference tensor that has a _version), "
          "(dtypes that are not quantized) that detach()'s view(dtype) to its own dtype (is_inference() False) and "
          "(floating and complex dtypes) a leaf that requires grad: with grad mode on and under torch.no_grad(), "
          "the first piece of t." + ", t.".join(_CALLS) + " shares t's memory and is not a view (_is_view() is "
          "False); the piece of an inference tensor has no _version (reading it raises), even when the tensor has "
          "one; on the other sources the same calls without unsafe_ give views, and the piece then takes "
          "piece.copy_(piece.detach().clone()) with grad mode on, under torch.no_grad() and inside "
          "torch.inference_mode(), which moves the piece's _version by one and leaves t's, except where copy_ raises "
          "NotImplementedError (dtypes with no copy kernel).",
    "zh_CN": "对 torch 模块列出的每种 dtype，在 2×4 的 CPU 张量 t、它的视图、在 torch.inference_mode() 内"
             "创建的张量、在模式之外对这个张量取的 detach()（有 _version 的推理张量）、（非量化 dtype）"
             "这个 detach() 到自身 dtype 的 view(dtype)（is_inference() 为 False），以及（浮点和复数 dtype）"
             "需要梯度的叶子张量上：在梯度模式开启和 torch.no_grad() 下，t." + "、t.".join(_CALLS)
             + " 的第一块与 t 共享内存，不是视图（_is_view() 为 False）；推理张量的块没有 _version"
             "（读取会报错），即使推理张量自己有；在其余源张量上，去掉 unsafe_ 的同名调用给出视图，"
             "而这一块随后在梯度模式开启、torch.no_grad() 下和 torch.inference_mode() 内执行 "
             "piece.copy_(piece.detach().clone())，块的 _version 前进一，t 的不动；copy_ 抛出 "
             "NotImplementedError（没有复制内核的 dtype）的除外。",
}, {"en": f"every dtype of the torch module, six kinds of source, {len(_CALLS)} calls, two grad modes for the call "
          "and three for the edit, on the CPU",
    "zh_CN": f"torch 模块的每种 dtype、六种源张量、{len(_CALLS)} 种调用、调用时两种梯度模式和修改时三种，在 CPU 上"})
def _unsafe_pieces_own_counter_every_dtype() -> Fact:
    dtypes = sorted({v for v in vars(torch).values() if isinstance(v, torch.dtype)}, key=str)
    wrong, counted, uncopied = [], 0, set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 and quantized tensors warn when made
        for dtype in dtypes:
            for source, make in _sources(dtype).items():
                inference = make().is_inference()
                if source == "detach() of an inference tensor" and not (inference and _version(make()) == 0):
                    wrong.append((str(dtype), source, "is an inference tensor with a _version", inference))
                for call_name, calls in _CALLS.items():
                    for made, made_in in _MADE_IN.items():
                        for edited, edited_in in _EDITED_IN.items():
                            shared, views, before, after = _piece_run(make, calls, made_in, edited_in)
                            uncopied |= {str(dtype)} if after == "NotImplementedError" else set()
                            counted += after == (0, 1)
                            if not (shared and (before == "none") == inference
                                    and (inference or views and after in ((0, 1), "NotImplementedError"))):
                                wrong.append((str(dtype), source, call_name, made, edited, shared, views, before,
                                              after))
    return Fact(not wrong and counted > 0,
                f"{counted} edits moved the piece's counter and not t's; not as the sentence says: {wrong[:5]} "
                f"({len(wrong)} in all); dtypes whose copy_ raised NotImplementedError: {sorted(uncopied)}")


def _piece_in_mode_run(make: Callable[[], torch.Tensor], unsafe: Callable, edited_in) -> tuple:
    """``(on t's memory, a view, not an inference tensor, (t's, piece's) counters after copy_ of the piece from a
    clone of itself in ``edited_in``, or the edit's error type)`` for the first piece taken inside
    ``torch.inference_mode()``; the edit is made outside the mode, or inside it again."""
    t = make()
    with torch.inference_mode():
        piece = unsafe(t)[0]
    kind = (piece.untyped_storage().data_ptr() == t.untyped_storage().data_ptr(), piece._is_view(),
            not piece.is_inference())
    t_before, before = t._version, piece._version
    try:
        with edited_in():
            piece.copy_(piece.detach().clone())
    except NotImplementedError:
        return *kind, "NotImplementedError"
    return *kind, (t._version - t_before, piece._version - before)


def _edit_in_mode_piece_of_leaf(unsafe: Callable) -> tuple:
    """``(w's values, w._version, backward's error, w.grad)`` after the first piece of a 2×4 float32 leaf ``w``,
    taken inside ``torch.inference_mode()`` after ``loss = (w * w).sum()`` saved ``w``, is multiplied by 10 under
    ``torch.no_grad()``."""
    w = torch.arange(1.0, 9.0).reshape(2, 4).requires_grad_()
    loss = (w * w).sum()  # saves w; its gradient is 2 * w
    with torch.inference_mode():
        piece = unsafe(w)[0]
    with torch.no_grad():
        piece.mul_(10)
    return w.detach().clone(), w._version, backward_error(loss), w.grad


@fact("unsafe-pieces-in-inference-mode-own-counter", {
    "en": "For every dtype the torch module names, on a 2×4 CPU tensor t, a view of one, (dtypes that are not "
          "quantized) the view(dtype) to its own dtype of the detach() of one made inside torch.inference_mode() "
          "(is_inference() False) and (floating and "
          "complex dtypes) a leaf that requires grad, all made outside torch.inference_mode(): the first piece of t."
          + ", t.".join(_CALLS) + ", taken inside torch.inference_mode(), shares t's memory, is a view (_is_view() "
          "is True) and is not an inference tensor; piece.copy_(piece.detach().clone()), outside the mode under "
          "torch.no_grad() and inside the mode, moves the piece's _version by one and leaves t's, except where copy_ "
          "raises NotImplementedError (dtypes with no copy kernel). Then, for each call, w = torch.arange(1.0, "
          "9.0).reshape(2, 4) made to require grad; loss = (w * w).sum() saves w; the first piece taken inside the "
          "mode is multiplied by 10 under torch.no_grad(): w's values change, w._version stays 0, loss.backward() "
          "raises nothing, and w.grad is 2 * w at the edited values.",
    "zh_CN": "对 torch 模块列出的每种 dtype，在 2×4 的 CPU 张量 t、它的视图、（非量化 dtype）对在 "
             "torch.inference_mode() 内创建的张量取的 detach() 到自身 dtype 的 view(dtype)（is_inference() 为 "
             "False），以及（浮点和复数 dtype）"
             "需要梯度的叶子张量上（都在 torch.inference_mode() 之外创建）：在 torch.inference_mode() 内取 t."
             + "、t.".join(_CALLS) + " 的第一块，它与 t 共享内存，是视图（_is_view() 为 True），不是推理张量；"
             "在该模式之外的 torch.no_grad() 下和该模式之内执行 piece.copy_(piece.detach().clone())，块的 _version "
             "前进一，t 的不动；copy_ 抛出 NotImplementedError（没有复制内核的 dtype）的除外。然后对每种调用，"
             "w = torch.arange(1.0, 9.0).reshape(2, 4) 设为需要梯度；loss = (w * w).sum() 保存了 w；在该模式内取的"
             "第一块在 torch.no_grad() 下乘以 10：w 的数值变了，w._version 仍为 0，loss.backward() 不报错，w.grad "
             "是按修改后的数值算出的 2 * w。",
}, {"en": f"every dtype of the torch module, four kinds of source, {len(_CALLS)} calls taken inside "
          "torch.inference_mode(), two modes for the edit, then a float32 leaf, on the CPU",
    "zh_CN": f"torch 模块的每种 dtype、四种源张量、在 torch.inference_mode() 内取的 {len(_CALLS)} 种调用、"
             "修改时两种模式，再加一个 float32 叶子张量，在 CPU 上"})
def _unsafe_pieces_in_inference_mode_own_counter() -> Fact:
    dtypes = sorted({v for v in vars(torch).values() if isinstance(v, torch.dtype)}, key=str)
    edited_in = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
    wrong, counted, uncopied = [], 0, set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 and quantized tensors warn when made
        for dtype in dtypes:
            for source, make in _sources(dtype).items():
                if source in ("inference tensor", "detach() of an inference tensor"):
                    continue
                for call_name, (unsafe, _) in _CALLS.items():
                    for edited, enter in edited_in.items():
                        *kind, after = _piece_in_mode_run(make, unsafe, enter)
                        uncopied |= {str(dtype)} if after == "NotImplementedError" else set()
                        counted += after == (0, 1)
                        if not (all(kind) and after in ((0, 1), "NotImplementedError")):
                            wrong.append((str(dtype), source, call_name, edited, *kind, after))
    silent = {}
    for call_name, (unsafe, _) in _CALLS.items():
        values, version, error, grad = _edit_in_mode_piece_of_leaf(unsafe)
        start = torch.arange(1.0, 9.0).reshape(2, 4)
        silent[call_name] = (not torch.equal(values, start) and version == 0 and not error and grad is not None
                             and torch.equal(grad, 2 * values))
    return Fact(not wrong and counted > 0 and all(silent.values()),
                f"{counted} edits moved the piece's counter and not t's; not as the sentence says: {wrong[:5]} "
                f"({len(wrong)} in all); dtypes whose copy_ raised NotImplementedError: {sorted(uncopied)}; "
                f"edit of a leaf's piece silent, with the gradient at the edited values, per call: {silent}")
