"""Named facts on views taken with grad mode off (under ``torch.no_grad()``, ``torch.inference_mode()`` or
``torch.set_grad_enabled(False)``), or inside ``torch.inference_mode()`` with ``torch.enable_grad()``, of a tensor that
requires grad: each is a leaf that requires grad (but of a view made a leaf with ``requires_grad_()``, whose views taken
with grad mode off do not require grad, their clones having no node unless they call ``requires_grad_()``), and neither
its clone nor the clone of a view of it passes a gradient to its base, nor to it unless it called ``requires_grad_()``
before that clone or view was taken and that view was taken with grad mode on. They stand behind the clone exception of
the decision page, the matrix guide, the glossary, the clone page and the copying part's introduction, run over the view
operations of the views table (:mod:`tensorfacts.view_ops`) whose result requires grad; the views autograd does not
record (``detach()``, ``view(dtype)``, a sparse tensor's ``indices()``) are run too, and their clones have no node, and
so are the views of an inference tensor that requires grad, whose clones have no node either, and the calls documented
as views that return the tensor itself (``.real`` of a real tensor), whose clones pass it the gradient.
:mod:`tensorfacts.no_grad_view_operation_facts` runs the other copies and other operations on such views with the
helpers here. Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import warnings

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, enough, fact, stopped

#: The views table's operations autograd does not record: their result does not require grad, in any grad mode.
UNRECORDED_TABLE = ("a.detach()", "s.indices()")
#: The views table's operations whose result requires grad when taken of a tensor that does: all but two.
GRAD_VIEWS = tuple(row for row in view_ops.VIEWS if row.code not in UNRECORDED_TABLE)
#: The views autograd does not record: the two of the table, and view(dtype) to the same dtype, to another of the
#: same size and to one of another size (the table's source is float32).
UNRECORDED = tuple(row for row in view_ops.VIEWS if row.code in UNRECORDED_TABLE) + tuple(
    view_ops.Row(f"a.view(torch.{dtype})", "torch.Tensor.view") for dtype in ("float32", "int32", "float16"))
#: Calls PyTorch documents as views that return the tensor itself, with the shape of the source each is run on:
#: .real of a real tensor, and mT, H, mH and adjoint() of a 0-d tensor (which warn that they are deprecated there).
ITSELF = {"a.real": (lambda a: a.real, (3, 4)), "a.mT": (lambda a: a.mT, ()), "a.H": (lambda a: a.H, ()),
          "a.mH": (lambda a: a.mH, ()), "a.adjoint()": (lambda a: a.adjoint(), ())}
#: The warning the 0-d calls of ITSELF give.
DEPRECATED_0D = ".*deprecated on 0-D tensors"
#: The inference tensors that require grad whose views are run: the source made under torch.inference_mode() and
#: there made to require grad with requires_grad_(), and the same wrapped there in a Parameter (as a module built
#: inside the mode holds it).
INFERENCE_SOURCES = {"tensor": lambda made: made.requires_grad_(), "Parameter": torch.nn.Parameter}
#: The dtypes each source of the views table runs in (the sparse tensor's and view_as_complex's: no bfloat16).
VIEW_DTYPES = {"a": (torch.float32, torch.float64, torch.bfloat16), "p": (torch.float32, torch.float64),
               "z": (torch.complex64, torch.complex128), "s": (torch.float32, torch.float64)}

#: The copies of a view the facts take with grad mode on, by name: how each copies t, the node of its result, and the
#: dtype of the views it is run on (None: every view). double() runs on the float32 views only: on a float64 one it
#: returns the view itself, and on a complex one it drops the imaginary part with a warning.
COPIES = {"clone()": (lambda t: t.clone(), "CloneBackward0", None),
          "torch.empty_like(t).copy_(t)": (lambda t: torch.empty_like(t).copy_(t), "CopyBackwards", None),
          "double()": (lambda t: t.double(), "ToCopyBackward0", torch.float32)}
#: The three ways to turn grad mode off, by name.
GRAD_OFF = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode,
            "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False)}


@contextlib.contextmanager
def _inference_grad_on():
    """torch.inference_mode() with torch.enable_grad() inside it: grad mode is on, yet autograd records nothing."""
    with torch.inference_mode(), torch.enable_grad():
        yield


#: The ways the facts take a view as with grad mode off, by name: the three ways to turn it off, and
#: torch.inference_mode() with torch.enable_grad() inside it.
OFF_MODES = {**GRAD_OFF, "inference_mode with enable_grad": _inference_grad_on}
#: u itself, and the views of u taken with grad mode on that the fact clones instead: a view of u and a view of that.
FURTHER_VIEWS = (lambda u: u, lambda u: u[..., 1:], lambda u: u[..., 1:].unsqueeze(0))
#: The ways a view of u is taken: with grad mode on (the views above), and u[..., 1:] in each of OFF_MODES.
SECOND_VIEW_MODES = (None, *OFF_MODES)
#: The message of torch.autograd.grad asked for a tensor the graph does not reach.
UNUSED = "appears to not have been used in the graph"
#: When u.requires_grad_() is called: never, right after u is taken, after the view of u is taken (before its clone),
#: after the clone is taken. Only the second gives u a gradient, and only through views taken with grad mode on.
CALLS = (None, "first", "after the view", "after the clone")
#: The kinds of source: a leaf, a non-leaf (the leaf times 1), and a view made a leaf with requires_grad_() (a 1-d
#: tensor with the leaf's values reshaped to its shape; none of the sparse tensor), whose views taken with grad mode
#: off do not require grad (their base, the root of the chain, does not): their clones have a node only when
#: u.requires_grad_() is called right after u is taken, through u or a view of it taken with grad mode on.
KINDS = ("leaf", "non-leaf", "view leaf")


def _squares(c: torch.Tensor) -> torch.Tensor:
    """The sum of the squares of ``c``'s values (real and imaginary parts apart), in float32."""
    dense = c.to_dense() if c.is_sparse else c
    values = (torch.view_as_real(dense) if dense.is_complex() else dense).float()
    return (values * values).sum()


def _grad_asked(squares: torch.Tensor, asked: torch.Tensor, allow_unused: bool):
    """torch.autograd.grad of ``squares`` (:func:`_squares` of a copy), asked for ``asked``, the graph kept: the
    gradient (None with ``allow_unused``), or "unused" when it raises that ``asked`` was not used in the graph."""
    try:
        (grad,) = torch.autograd.grad(squares, asked, allow_unused=allow_unused, retain_graph=True)
    except RuntimeError as exc:
        return "unused" if UNUSED in str(exc) else str(exc)
    return grad


def _asked_as_said(c: torch.Tensor, source: torch.Tensor, u: torch.Tensor, u_grad: torch.Tensor | None) -> bool:
    """Asked for the source, torch.autograd.grad raises "unused" (None with ``allow_unused``); asked for u, the same
    unless u got a gradient (``u_grad``), which it returns. Then backward(inputs=[source]) and backward(inputs=[u])
    raise nothing."""
    squares = _squares(c)  # one sum, asked six times (the graph kept between the calls)
    for asked in (source, u):
        for allow_unused in (False, True):
            got = _grad_asked(squares, asked, allow_unused)
            if asked is u and u_grad is not None:
                holds = isinstance(got, torch.Tensor) and torch.equal(got, u_grad)
            else:
                holds = not isinstance(got, torch.Tensor) and got == (None if allow_unused else "unused")
            if not holds:
                return False
    for asked in (source, u):
        try:
            squares.backward(inputs=[asked], retain_graph=True)
        except RuntimeError:
            return False
    return True


def copied_dtypes(row: view_ops.Row, copy: str) -> tuple[torch.dtype, ...]:
    """The dtypes of VIEW_DTYPES whose view by ``row`` the copy ``copy`` is run on (for double(): float32 views)."""
    return tuple(dtype for dtype in VIEW_DTYPES[row.source] if COPIES[copy][2] is None or view_ops.apply(
        row, view_ops.make_source(row.source, "contiguous").to(dtype)).dtype == COPIES[copy][2])


def no_grad_view_runs(copy: str) -> tuple[list[str], int, int, int, int]:
    """Every run of the view operations of GRAD_VIEWS taken with grad mode off, copied by ``copy`` of COPIES: (what
    differs from the text of clone-of-no-grad-view-passes-no-gradient, with ``copy`` and its node for clone() and
    CloneBackward0, the runs, those that also ask torch.autograd.grad (every run of the leaf and the non-leaf), the
    runs expected, and those expected to ask). Inside :func:`tensorfacts.fact_registry.first_counterexample_only` it
    returns at the first run that differs, -1 expected."""
    wrong, runs, asked_runs = [], 0, 0
    for row in GRAD_VIEWS:
        for dtype in copied_dtypes(row, copy):
            for mode, off in OFF_MODES.items():
                for kind, (depth, further), second, call in itertools.product(
                        KINDS, enumerate(FURTHER_VIEWS), SECOND_VIEW_MODES, CALLS):
                    if depth == 0 and call == "after the view":
                        continue  # u itself: no view taken before its clone
                    if second is not None and depth != 1:
                        continue  # with grad mode off: u[..., 1:] only
                    if kind == "view leaf" and row.source == "s":
                        continue  # the sparse tensor: no view of it to make a leaf
                    made = view_ops.make_source(row.source, "contiguous").to(dtype)
                    if kind == "view leaf":  # for a: torch.arange(12.).reshape(3, 4)
                        made = made.flatten().clone().reshape(made.shape)
                    leaf = made.requires_grad_()
                    source = leaf * 1 if kind == "non-leaf" else leaf
                    with off():
                        u = view_ops.apply(row, source)
                    as_taken = kind != "view leaf"  # whether u requires grad as taken
                    seen_as_taken = u.is_leaf and u.requires_grad == as_taken
                    if call == "first":
                        u.requires_grad_()
                    if second is None:
                        chained = further(u)
                    else:
                        with OFF_MODES[second]():
                            chained = further(u)
                    if call == "after the view":
                        u.requires_grad_()
                    c = COPIES[copy][0](chained)
                    if call == "after the clone":
                        u.requires_grad_()
                    gets_gradient = call == "first" and second is None
                    node = as_taken or gets_gradient  # whether the clone is recorded
                    recorded = c.requires_grad == node and (
                        type(c.grad_fn).__name__ == COPIES[copy][1] if node else c.grad_fn is None)
                    if c.requires_grad:
                        _squares(c).backward()
                    runs += 1
                    made_as_said = (source.requires_grad and source.is_leaf == (kind != "non-leaf")
                                    and (source._base is not None) == (kind == "view leaf"))
                    taken_as_said = chained is u or ((chained.grad_fn is not None) == (
                        second is None and (as_taken or call == "first")) and chained._base is u._base)
                    seen = (made_as_said and seen_as_taken and taken_as_said, recorded,
                            (u.grad is None) != gets_gradient and leaf.grad is None)
                    if as_taken:  # the leaf and the non-leaf
                        asked_runs += 1
                        u_grad = u.grad.clone() if gets_gradient and u.grad is not None else None
                        seen = (*seen, _asked_as_said(c, source, u, u_grad))
                    if not all(seen):
                        wrong.append(f"{row.code} {dtype} {mode} {kind} view depth {depth} "
                                     f"view of u taken {second or 'with grad mode on'} requires_grad_() {call}: "
                                     f"{seen}")
                        if enough(wrong):
                            return wrong, runs, asked_runs, -1, -1
    # per way to turn grad mode off and kind of source, u: 3 calls, its two views in grad mode and the first in 3
    # ways with grad mode off: 4; the sparse tensor: no view leaf
    per_kind = len(OFF_MODES) * (3 + 4 * (len(FURTHER_VIEWS) - 1 + len(OFF_MODES)))
    expected = per_kind * sum(len(copied_dtypes(row, copy)) * (len(KINDS) - (row.source == "s"))
                              for row in GRAD_VIEWS)
    return wrong, runs, asked_runs, expected, per_kind * 2 * sum(len(copied_dtypes(row, copy)) for row in GRAD_VIEWS)


def unrecorded_view_runs(copy: str) -> list[tuple[str, str, bool, bool]]:
    """The views autograd does not record, of a float32 leaf that requires grad, taken with grad mode on and in each
    of OFF_MODES: (view, mode, whether it requires grad, whether its copy by ``copy``, taken with grad mode on, has a
    grad_fn; False where ``copy`` is not run on the view's dtype)."""
    untracked = []
    for row in UNRECORDED:
        leaf = view_ops.make_source(row.source, "contiguous").requires_grad_()
        for mode, taking in {"grad mode on": torch.enable_grad, **OFF_MODES}.items():
            with taking():
                u = view_ops.apply(row, leaf)
            copied = COPIES[copy][2] is None or u.dtype == COPIES[copy][2]
            untracked.append((row.code, mode, u.requires_grad, copied and COPIES[copy][0](u).grad_fn is not None))
    return untracked


def inference_view_runs(copy: str) -> tuple[int, list[str]]:
    """The views of GRAD_VIEWS of an inference tensor that requires grad, copied by ``copy``: (the runs, those where
    the source is not as made, or the view requires grad, or its copy does or has a grad_fn)."""
    inference_runs, inference_recorded = 0, []
    for row, (kind, wrap), mode in itertools.product(GRAD_VIEWS, INFERENCE_SOURCES.items(),
                                                     ("grad mode on", *OFF_MODES)):
        for dtype in copied_dtypes(row, copy):
            with torch.inference_mode():
                w = wrap(view_ops.make_source(row.source, "contiguous").to(dtype))
            with OFF_MODES.get(mode, torch.enable_grad)():
                u = view_ops.apply(row, w)
            c = COPIES[copy][0](u)
            inference_runs += 1
            if not (w.is_inference() and w.requires_grad and isinstance(w, torch.nn.Parameter) == (kind == "Parameter")
                    and not u.requires_grad and not c.requires_grad and c.grad_fn is None):
                inference_recorded.append(f"{row.code} {dtype} {kind} {mode}")
    return inference_runs, inference_recorded


@fact("clone-of-no-grad-view-passes-no-gradient", {
    "en": f"For each of the {len(GRAD_VIEWS)} view operations left in the views table once a.detach() and "
          "s.indices() are taken out "
          "(indexing, view, t(), transpose, expand, split, unbind, diagonal, as_strided, real, view_as_real, the "
          "sparse tensor's values() ...), takes u, the view of a source that requires grad, under torch.no_grad(), "
          "again under torch.inference_mode(), again under torch.set_grad_enabled(False) and again inside "
          "torch.inference_mode() with torch.enable_grad() (grad mode on there), the source a leaf and "
          "again a non-leaf (the leaf times 1), in float32, float64 and bfloat16 (complex64 and complex128 for the "
          "views of a complex tensor; no bfloat16 for view_as_complex and the sparse tensor), and, with grad mode "
          "on, clones u, and in two further runs a "
          "view of u and a view of that view taken with grad mode on (u[..., 1:] and u[..., 1:].unsqueeze(0), each "
          "with a grad_fn and the same base as u): u is a leaf that requires grad, the clone c requires grad and "
          "has a CloneBackward0 node, yet after backward() of the sum of the squares of c, u.grad and the leaf's "
          ".grad are None. Each run again with u.requires_grad_() called right after u is taken: u.grad is filled, "
          "the leaf's .grad is still None; and again with it called after the clone is taken, and (for the two views "
          "of u) after the view is taken but before its clone: u.grad is None. Each run with the view u[..., 1:] "
          "taken instead in each of those four ways "
          "(no grad_fn, the same base as u), with u.requires_grad_() called never, "
          "right after u is taken, after the view is taken or after the clone: the clone c requires grad and has a "
          "CloneBackward0 node, and u.grad and the leaf's .grad are None. In every run of the leaf and the non-leaf, "
          "torch.autograd.grad of the sum of the squares of c, asked for the source, raises \"... appears to not "
          "have been used in the graph\" and returns None with allow_unused=True; asked for u, it does the same, "
          "except in the runs where u.grad is filled, where it returns that gradient; backward(inputs=...) of that "
          "sum naming the source or u raises nothing. Each run of the leaf again (not for the sparse tensor, and "
          "without torch.autograd.grad), the source being instead a view made a leaf with requires_grad_(), a 1-d "
          "tensor with the leaf's values reshaped to its shape (torch.arange(12.).reshape(3, 4).requires_grad_() "
          "for a): u is a leaf that does not require grad; the "
          "clone c has a CloneBackward0 node only when u.requires_grad_() is called right after u is taken and c is "
          "taken of u or of a view of it taken with grad mode on, and then, after backward(), u.grad is filled; "
          "otherwise c has no grad_fn and u.grad is None; the source's .grad is None in every run. "
          "With grad mode on, each of these "
          "operations of the leaf gives a result with a grad_fn. Each of them again, taken with grad mode on and in "
          "each of the four ways, in the same dtypes, of an inference tensor that requires grad "
          "(the source made under torch.inference_mode() and there made to require grad with requires_grad_(), and "
          "again wrapped there in a Parameter): the view does not require grad, and its clone has no grad_fn. "
          "a.detach(), s.indices(), a.view(torch.float32), "
          "a.view(torch.int32) and a.view(torch.float16) of a float32 leaf that requires grad do not require grad, "
          "taken with grad mode on and in each of the four ways, and the clone of each, taken with grad mode on, "
          "has no grad_fn. a.real of a real 3×4 tensor, and a.mT, a.H, a.mH and a.adjoint() of a "
          "0-d one (each warns that it is deprecated there: with torch.set_warn_always(True), set back afterwards, "
          "every call gives one UserWarning saying so; a.real gives none), a leaf that requires grad and again a "
          "non-leaf (the "
          "leaf times 1), in float32, float64 and bfloat16, taken with grad mode on and in each of the four ways, "
          "are that tensor itself, and their clone, taken with grad mode on, has a "
          "CloneBackward0 node and passes the gradient to it: torch.autograd.grad of the sum of the squares of the "
          "clone, asked for that tensor, gives twice its values.",
    "zh_CN": f"对视图表中除 a.detach() 和 s.indices() 以外的 {len(GRAD_VIEWS)} 个视图操作（索引、view、t()、"
             "transpose、expand、split、unbind、diagonal、as_strided、real、view_as_real、稀疏张量的 values() 等），"
             "分别在 torch.no_grad()、torch.inference_mode() 和 torch.set_grad_enabled(False) 下，以及在 "
             "torch.inference_mode() 内开启 torch.enable_grad()（这时梯度模式是开着的）时，对需要梯度的源张量"
             "取视图 u，源张量分别是叶子张量和非叶子张量（叶子张量乘 1），dtype 分别是 float32、float64 和 "
             "bfloat16（复数张量的视图用 complex64 和 complex128；view_as_complex 和稀疏张量不用 bfloat16），"
             "再在梯度模式（grad mode）下对 u 调用 clone()，"
             "另两次运行则在梯度模式下先取 u 的视图和这个视图的视图（u[..., 1:] 和 u[..., 1:].unsqueeze(0)，都有 "
             "grad_fn，基张量（base tensor）与 u 的相同），再对它调用 clone()：u 是需要梯度的叶子张量，副本 c "
             "需要梯度，带 CloneBackward0 节点，但对 c 的各值平方和调用 backward() 之后，u.grad 和叶子张量的 .grad "
             "都是 None。每次运行再做一遍，取得 u 后立即调用 u.requires_grad_()：u.grad 有了值，叶子张量的 .grad "
             "仍是 None；再做一遍，在取得副本之后才调用它，对 u 的两种视图还在取得视图之后、调用 clone() 之前调用它："
             "u.grad 是 None。每次运行再改为分别用这四种方式取视图 "
             "u[..., 1:]（没有 grad_fn，基张量与 u 的相同），不调用 "
             "u.requires_grad_()，或在取得 u 后立即、取得这个视图之后、取得副本之后调用：副本 c 需要梯度，带 "
             "CloneBackward0 节点，u.grad 和叶子张量的 .grad 都是 None。在源张量是叶子张量或非叶子张量的每次运行中，"
             "对 c 的各值平方和调用 torch.autograd.grad 求源张量的梯度，会抛出"
             "“... appears to not have been used in the graph”，带 allow_unused=True 时返回 None；"
             "求 u 的梯度也是这样，只有在 u.grad 有值的那些运行中，它返回的正是这个梯度；"
             "对这个平方和调用点名源张量或 u 的 backward(inputs=...) 都不报错。"
             "叶子张量的每次运行再做一遍（稀疏张量除外，也不调用 torch.autograd.grad），源张量改为用 "
             "requires_grad_() 变成叶子张量的视图，即把存放叶子张量各值的一维张量变形成它的形状（对 a 是 "
             "torch.arange(12.).reshape(3, 4).requires_grad_()）：u 是不需要梯度的"
             "叶子张量；只有在取得 u 后立即调用 u.requires_grad_()，并且副本 c 取自 u 或在梯度模式下取的 u 的视图时，"
             "c 才带 CloneBackward0 节点，backward() 之后 u.grad 有了值；其他情况下 c 没有 grad_fn，u.grad 是 None；"
             "每次运行中源张量的 .grad 都是 None。"
             "在梯度模式下对叶子张量做这些操作，结果都有 "
             "grad_fn。再对需要梯度的推理张量（在 torch.inference_mode() 下创建源张量，并在模式内用 "
             "requires_grad_() 让它需要梯度；另一次在模式内把它包成 Parameter）逐一做这些操作，dtype 相同，"
             "不论在梯度模式下取，还是用这四种方式分别取：视图不需要梯度，它的副本没有 grad_fn。"
             "对需要梯度的 float32 叶子张量，a.detach()、s.indices()、a.view(torch.float32)、"
             "a.view(torch.int32) 和 a.view(torch.float16) 不论在梯度"
             "模式下取，还是用这四种方式分别取，都不需要梯度；在梯度模式下对这些结果取的副本都没有 "
             "grad_fn。对 3×4 的实数张量取 a.real，对零维张量取 a.mT、a.H、a.mH 和 a.adjoint()（它们在零维张量上"
             "各自给出已弃用的警告：开启 torch.set_warn_always(True) 并在之后改回，每次调用都给出一条这样的 "
             "UserWarning；a.real 不给出警告），张量分别是需要梯度的叶子张量和非叶子张量（叶子张量乘 1），dtype 分别是 "
             "float32、float64 和 bfloat16，不论在梯度模式下取，还是用这四种方式分别取，得到的都是这个"
             "张量本身；在梯度模式下取的副本带 CloneBackward0 节点，并把梯度传给这个张量：对副本的各值平方和调用 "
             "torch.autograd.grad 求这个张量的梯度，得到的是它各值的两倍。",
}, {"en": f"{len(GRAD_VIEWS)} view operations, the dtypes it names, a leaf, a non-leaf and a view made a leaf as "
          "source, the three ways to turn grad mode off and torch.inference_mode() with torch.enable_grad(), u, "
          "two views taken of it with grad mode on and one taken in each of those four ways, u.requires_grad_() "
          "called never, right after u is taken, after the view of it or after the clone, torch.autograd.grad and "
          "backward(inputs=...) asked for the source and u in every run "
          f"of the leaf and the non-leaf, the same view operations of an inference tensor that requires grad (a tensor "
          f"and a Parameter), the {len(UNRECORDED)} views autograd does not record, and the {len(ITSELF)} calls "
          "that return the tensor itself, on the CPU",
    "zh_CN": f"{len(GRAD_VIEWS)} 个视图操作，它列出的 dtype，叶子张量、非叶子张量和变成叶子张量的视图三种源张量，"
             "三种关闭梯度模式的方式和在 torch.inference_mode() 内开启的 torch.enable_grad()，u、在梯度模式下对它取的"
             "两种视图和用这四种方式分别对它取的一种视图，不调用 "
             "u.requires_grad_()，或在取得 u 后立即、取得它的视图之后、"
             "取得副本之后调用，在叶子张量和非叶子张量的每次运行中对源张量和 u 调用的 torch.autograd.grad 和 "
             "backward(inputs=...)，对需要梯度的推理张量（张量和 Parameter）做的同样的视图操作，"
             f"自动求导（autograd）不记录的 {len(UNRECORDED)} 种视图，以及返回张量本身的 "
             f"{len(ITSELF)} 种调用，在 CPU 上"})
def _clone_of_no_grad_view_passes_no_gradient() -> Fact:
    """A view taken with grad mode off is a leaf that requires grad (not one of a view made a leaf with
    ``requires_grad_()``: its clone has a node only after ``requires_grad_()``); its clone, and the clone of a view of
    it, has a node, and the node passes the gradient neither to its base nor to the view, unless the view called
    ``requires_grad_()`` before that view or clone was taken and that view was taken with grad mode on. The views
    autograd does not record require no grad, and their clones have no node. A call documented as a view that returns
    the tensor itself (``.real`` of a real tensor) gives no view: its clone passes the gradient to the tensor."""
    wrong, runs, asked_runs, expected, asked_expected = no_grad_view_runs("clone()")
    if enough(wrong):
        return stopped(wrong)
    not_recorded = [row.code for row in GRAD_VIEWS
                    if view_ops.apply(row, view_ops.make_source(row.source, "contiguous").requires_grad_()).grad_fn
                    is None]
    untracked = unrecorded_view_runs("clone()")
    tracked = [entry for entry in untracked if entry[2] or entry[3]]
    inference_runs, inference_recorded = inference_view_runs("clone()")
    itself, itself_runs = [], 0
    for (code, (call, shape)), dtype, kind, mode in itertools.product(
            ITSELF.items(), (torch.float32, torch.float64, torch.bfloat16), ("leaf", "non-leaf"),
            ("grad mode on", *OFF_MODES)):
        leaf = torch.arange(1.0, 13.0)[: 12 if shape else 1].reshape(shape).to(dtype).requires_grad_()
        source = leaf if kind == "leaf" else leaf * 1
        warn_always = torch.is_warn_always_enabled()
        torch.set_warn_always(True)  # torch gives this warning once per process unless told otherwise
        try:
            with OFF_MODES.get(mode, torch.enable_grad)(), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = call(source)
        finally:
            torch.set_warn_always(warn_always)
        warned = len(caught) == (1 if shape == () else 0) and all(
            issubclass(w.category, UserWarning) and re.match(DEPRECATED_0D, str(w.message)) for w in caught)
        c = r.clone()
        (grad,) = torch.autograd.grad((c * c).sum(), source)
        itself_runs += 1
        if not (r is source and warned and type(c.grad_fn).__name__ == "CloneBackward0"
                and torch.equal(grad, 2 * source.detach())):
            itself.append(f"{code} {dtype} {kind} {mode}")
    return Fact(runs == expected and asked_runs == asked_expected and not wrong and not not_recorded and not tracked
                and itself_runs == len(ITSELF) * 3 * 2 * (1 + len(OFF_MODES)) and not itself
                and inference_runs == len(INFERENCE_SOURCES) * (1 + len(OFF_MODES)) * sum(
                    len(VIEW_DTYPES[row.source]) for row in GRAD_VIEWS) and not inference_recorded,
                f"views run: {runs}, of which {asked_runs} also asked; not (a leaf that requires grad, but of a view "
                f"leaf, clone recorded but of a view leaf's u without requires_grad_() called first, "
                f"u.grad only after requires_grad_() called first and through views taken in grad mode, none on the "
                f"leaf[, leaf and non-leaf: autograd.grad raises '{UNUSED}' for the source and for u but "
                f"when u gets a gradient, backward(inputs=...) raises nothing]): {wrong}; "
                f"without a grad_fn in grad mode: {not_recorded}; unrecorded views run: {len(untracked)}, of which "
                f"(requires grad, clone with a grad_fn): {tracked}; views of an inference tensor that requires grad "
                f"run: {inference_runs}, of which (not as made, or requiring grad or with a clone with a grad_fn): "
                f"{inference_recorded}; calls that return the tensor itself run: {itself_runs}, of which not the "
                f"tensor itself, not warning as said, or their clone not passing it the gradient: {itself}")
