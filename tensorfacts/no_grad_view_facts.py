"""Named facts on views taken with grad mode off (under ``torch.no_grad()``, ``torch.inference_mode()`` or
``torch.set_grad_enabled(False)``) of a tensor that requires grad: each is a leaf that requires grad, and neither its
clone nor the clone of a view of it taken with grad mode on passes a gradient to its base, nor to it unless its
``requires_grad`` was set (``requires_grad_()`` or ``.requires_grad = True``) before that clone or view was taken;
``backward()`` and ``backward(inputs=...)`` raise nothing, ``torch.autograd.grad`` asked for either raises. They stand
behind the clone exception of the decision page,
the matrix guide, the glossary, the clone page and the copying part's introduction, run over the view operations of the
views table (:mod:`tensorfacts.view_ops`) whose result requires grad; the views autograd does not record
(``detach()``, ``view(dtype)``, a sparse tensor's ``indices()``) are run too, and their clones have no node.
Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import itertools

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, fact

#: The views table's operations autograd does not record: their result does not require grad, in any grad mode.
UNRECORDED_TABLE = ("a.detach()", "s.indices()")
#: The views table's operations whose result requires grad when taken of a tensor that does: all but two.
GRAD_VIEWS = tuple(row for row in view_ops.VIEWS if row.code not in UNRECORDED_TABLE)
#: The views autograd does not record: the two of the table, and view(dtype) to the same dtype, to another of the
#: same size and to one of another size (the table's source is float32).
UNRECORDED = tuple(row for row in view_ops.VIEWS if row.code in UNRECORDED_TABLE) + tuple(
    view_ops.Row(f"a.view(torch.{dtype})", "torch.Tensor.view") for dtype in ("float32", "int32", "float16"))
#: The dtypes each source of the views table runs in (the sparse tensor's and view_as_complex's: no bfloat16).
VIEW_DTYPES = {"a": (torch.float32, torch.float64, torch.bfloat16), "p": (torch.float32, torch.float64),
               "z": (torch.complex64, torch.complex128), "s": (torch.float32, torch.float64)}

#: The three ways to turn grad mode off, by name.
GRAD_OFF = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode,
            "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False)}
#: u itself, and the views of u taken with grad mode on that the fact clones instead: a view of u and a view of that.
FURTHER_VIEWS = (lambda u: u, lambda u: u[..., 1:], lambda u: u[..., 1:].unsqueeze(0))
#: When u.requires_grad_() is called: never, right after u is taken, after the view of u is taken (before its clone),
#: after the clone is taken; and u.requires_grad = True set right after u is taken. Only the second and the last give
#: u a gradient.
CALLS = (None, "first", "after the view", "after the clone", "attribute first")
#: The routes that ask for a gradient, run on a fresh clone of each view (u and the source the view was taken of):
#: by name, the call and whether it must raise "appears to not have been used in the graph".
ROUTES = {
    "backward()": (lambda loss, source, u: loss.backward(), False),
    "backward(inputs=[source])": (lambda loss, source, u: loss.backward(inputs=[source]), False),
    "backward(inputs=[u])": (lambda loss, source, u: loss.backward(inputs=[u]), False),
    "autograd.grad(loss, source)": (lambda loss, source, u: torch.autograd.grad(loss, source), True),
    "autograd.grad(loss, u)": (lambda loss, source, u: torch.autograd.grad(loss, u), True),
    "autograd.grad(loss, (source, u), allow_unused=True)": (
        lambda loss, source, u: torch.autograd.grad(loss, (source, u), allow_unused=True), False),
}


def _sum_of_squares(c: torch.Tensor) -> torch.Tensor:
    """The sum of the squares of ``c``'s values (real and imaginary parts apart)."""
    dense = c.to_dense() if c.is_sparse else c
    values = (torch.view_as_real(dense) if dense.is_complex() else dense).float()
    return (values * values).sum()


def _backward_of_squares(c: torch.Tensor) -> None:
    """backward() of the sum of the squares of ``c``'s values."""
    _sum_of_squares(c).backward()


def _route(name: str, loss: torch.Tensor, source: torch.Tensor, u: torch.Tensor) -> str:
    """What the route ``name`` does: "raises unused" (the error that names an unused tensor), "(None, None)" (what
    ``allow_unused=True`` returns), "ok" (returns ``None``), or else what it returned or raised."""
    call, _ = ROUTES[name]
    try:
        returned = call(loss, source, u)
    except RuntimeError as exc:
        return "raises unused" if "appears to not have been used in the graph" in str(exc) else f"raises {exc}"
    if returned is None:
        return "ok"
    return "(None, None)" if returned == (None, None) else f"returned {returned}"


@fact("clone-of-no-grad-view-passes-no-gradient", {
    "en": f"For each of the {len(GRAD_VIEWS)} view operations of the views table but a.detach() and s.indices() "
          "(indexing, view, t(), transpose, expand, split, unbind, diagonal, as_strided, real, view_as_real, the "
          "sparse tensor's values() ...), takes u, the view of a source that requires grad, under torch.no_grad(), "
          "again under torch.inference_mode() and again under torch.set_grad_enabled(False), the source a leaf and "
          "again a non-leaf (the leaf times 1), in float32, float64 and bfloat16 (complex64 and complex128 for the "
          "views of a complex tensor; no bfloat16 for view_as_complex and the sparse tensor), and, with grad mode "
          "on, clones u, and in two further runs a "
          "view of u and a view of that view taken with grad mode on (u[..., 1:] and u[..., 1:].unsqueeze(0), each "
          "with a grad_fn and the same base as u): u is a leaf that requires grad, the clone c requires grad and "
          "has a CloneBackward0 node, yet after backward() of the sum of the squares of c, u.grad and the leaf's "
          ".grad are None. Each run again with u.requires_grad_() called right after u is taken: u.grad is filled, "
          "the leaf's .grad is still None, and the same with u.requires_grad = True set right after u is taken "
          "instead; "
          "and again with u.requires_grad_() called after the clone is taken, and (for the two views "
          "of u) after the view is taken but before its clone: u.grad is None. Each run without requires_grad_() "
          "again, on a fresh source, asks for the gradient by another route: loss.backward(inputs=[s]) and "
          "loss.backward(inputs=[u]), s the tensor u was taken of, raise nothing; torch.autograd.grad(loss, s) and "
          "torch.autograd.grad(loss, u) raise a RuntimeError saying the tensor appears to not have been used in the "
          "graph; torch.autograd.grad(loss, (s, u), allow_unused=True) returns (None, None); after each, u.grad "
          "and the leaf's .grad are None. With grad mode on, each of these "
          "operations of the leaf gives a result with a grad_fn. a.detach(), s.indices(), a.view(torch.float32), "
          "a.view(torch.int32) and a.view(torch.float16) of a float32 leaf that requires grad do not require grad, "
          "taken with grad mode on and in each of the three ways with grad mode off, and the clone of each taken "
          "with grad mode off has no grad_fn.",
    "zh_CN": f"对视图表中除 a.detach() 和 s.indices() 以外的 {len(GRAD_VIEWS)} 个视图操作（索引、view、t()、"
             "transpose、expand、split、unbind、diagonal、as_strided、real、view_as_real、稀疏张量的 values() 等），"
             "分别在 torch.no_grad()、torch.inference_mode() 和 torch.set_grad_enabled(False) 下对需要梯度的源张量"
             "取视图 u，源张量分别是叶子张量和非叶子张量（叶子张量乘 1），dtype 分别是 float32、float64 和 "
             "bfloat16（复数张量的视图用 complex64 和 complex128；view_as_complex 和稀疏张量不用 bfloat16），"
             "再在梯度模式（grad mode）下对 u 调用 clone()，"
             "另两次运行则在梯度模式下先取 u 的视图和这个视图的视图（u[..., 1:] 和 u[..., 1:].unsqueeze(0)，都有 "
             "grad_fn，基张量（base tensor）与 u 的相同），再对它调用 clone()：u 是需要梯度的叶子张量，副本 c "
             "需要梯度，带 CloneBackward0 节点，但对 c 的各值平方和调用 backward() 之后，u.grad 和叶子张量的 .grad "
             "都是 None。每次运行再做一遍，取得 u 后立即调用 u.requires_grad_()：u.grad 有了值，叶子张量的 .grad "
             "仍是 None，改成取得 u 后立即设置 u.requires_grad = True 也一样；再做一遍，在取得副本之后才调用 "
             "u.requires_grad_()，对 u 的两种视图还在取得视图之后、调用 clone() 之前调用它：u.grad 是 None。"
             "不调用 requires_grad_() 的每次运行，再换一个新的源张量，用别的途径求梯度：loss.backward(inputs=[s]) 和 "
             "loss.backward(inputs=[u])（s 是取 u 时的那个张量）都不报错；torch.autograd.grad(loss, s) 和 "
             "torch.autograd.grad(loss, u) 抛出 RuntimeError，说这个张量似乎没有在计算图里用到；"
             "torch.autograd.grad(loss, (s, u), allow_unused=True) 返回 (None, None)；每次之后 u.grad 和叶子张量的 "
             ".grad 都是 None。在梯度模式下对叶子张量做这些操作，结果都有 grad_fn。对需要梯度的 float32 叶子张量，"
             "a.detach()、s.indices()、a.view(torch.float32)、a.view(torch.int32) 和 a.view(torch.float16) 不论在梯度"
             "模式下取，还是用三种关闭梯度模式的方式分别取，都不需要梯度；梯度模式关闭时取的这些结果，副本都没有 "
             "grad_fn。",
}, {"en": f"{len(GRAD_VIEWS)} view operations, the dtypes it names, a leaf and a non-leaf source, the three ways to "
          "turn grad mode off, u and two views taken of it with grad mode on, u.requires_grad_() called never, right "
          f"after u is taken, after the view of it or after the clone, u.requires_grad = True set right after u is "
          f"taken, {len(ROUTES)} routes to a gradient, and the {len(UNRECORDED)} views autograd does "
          "not record, on the CPU",
    "zh_CN": f"{len(GRAD_VIEWS)} 个视图操作，它列出的 dtype，叶子张量和非叶子张量两种源张量，三种关闭梯度模式的"
             "方式，u 和在梯度模式下对它取的两种视图，不调用 u.requires_grad_()，或在取得 u 后立即、取得它的视图之后、"
             f"取得副本之后调用，取得 u 后立即设置 u.requires_grad = True，{len(ROUTES)} 种求梯度的途径，"
             f"以及自动求导（autograd）不记录的 {len(UNRECORDED)} 种视图，在 CPU 上"})
def _clone_of_no_grad_view_passes_no_gradient() -> Fact:
    """A view taken with grad mode off is a leaf that requires grad; its clone, and the clone of a view of it taken
    with grad mode on, has a node, and the node passes the gradient neither to its base nor to the view, unless the
    view's ``requires_grad`` was set before that view or clone was taken; ``torch.autograd.grad`` asked for either
    raises. The views autograd does not record require no grad, and their clones have no node."""
    wrong, runs, route_runs = [], 0, 0
    for row in GRAD_VIEWS:
        for dtype in VIEW_DTYPES[row.source]:
            for mode, off in GRAD_OFF.items():
                for kind, (depth, further), call in itertools.product(
                        ("leaf", "non-leaf"), enumerate(FURTHER_VIEWS), CALLS):
                    if depth == 0 and call == "after the view":
                        continue  # u itself: no view taken before its clone
                    leaf = view_ops.make_source(row.source, "contiguous").to(dtype).requires_grad_()
                    source = leaf if kind == "leaf" else leaf * 1
                    with off():
                        u = view_ops.apply(row, source)
                    seen_as_taken = u.is_leaf and u.requires_grad
                    if call == "first":
                        u.requires_grad_()
                    elif call == "attribute first":
                        u.requires_grad = True
                    chained = further(u)
                    if call == "after the view":
                        u.requires_grad_()
                    c = chained.clone()
                    if call == "after the clone":
                        u.requires_grad_()
                    recorded = c.requires_grad and type(c.grad_fn).__name__ == "CloneBackward0"
                    _backward_of_squares(c)
                    runs += 1
                    made = source.requires_grad and source.is_leaf == (kind == "leaf")
                    in_grad_mode = chained is u or (chained.grad_fn is not None and chained._base is u._base)
                    seen = (made and seen_as_taken and in_grad_mode, recorded,
                            (u.grad is None) != (call in ("first", "attribute first")) and leaf.grad is None)
                    if seen != (True, True, True):
                        wrong.append(f"{row.code} {dtype} {mode} {kind} view depth {depth} "
                                     f"requires_grad_() {call}: {seen}")
                    if call is None:
                        for name, (_, raises) in ROUTES.items():
                            leaf = view_ops.make_source(row.source, "contiguous").to(dtype).requires_grad_()
                            source = leaf if kind == "leaf" else leaf * 1
                            with off():
                                u = view_ops.apply(row, source)
                            done = _route(name, _sum_of_squares(further(u).clone()), source, u)
                            route_runs += 1
                            expected_done = "raises unused" if raises else (
                                "(None, None)" if "allow_unused" in name else "ok")
                            if done != expected_done or u.grad is not None or leaf.grad is not None:
                                wrong.append(f"{row.code} {dtype} {mode} {kind} view depth {depth} {name}: {done}")
    not_recorded = [row.code for row in GRAD_VIEWS
                    if view_ops.apply(row, view_ops.make_source(row.source, "contiguous").requires_grad_()).grad_fn
                    is None]
    untracked = []
    for row in UNRECORDED:
        leaf = view_ops.make_source(row.source, "contiguous").requires_grad_()
        untracked.append((row.code, "grad mode on", view_ops.apply(row, leaf).requires_grad, False))
        for mode, off in GRAD_OFF.items():
            with off():
                u = view_ops.apply(row, leaf)
            untracked.append((row.code, mode, u.requires_grad, u.clone().grad_fn is not None))
    # 3 ways to turn grad mode off, 2 sources; u: 4 calls, its two views: 5; per view, each route once
    per_view = 6 * sum(len(VIEW_DTYPES[row.source]) for row in GRAD_VIEWS)
    expected = per_view * (len(CALLS) - 1 + len(CALLS) * (len(FURTHER_VIEWS) - 1))
    tracked = [entry for entry in untracked if entry[2] or entry[3]]
    return Fact(runs == expected and route_runs == per_view * len(FURTHER_VIEWS) * len(ROUTES) and not wrong
                and not not_recorded and not tracked,
                f"views run: {runs}, routes run: {route_runs}; not (a leaf that requires grad, clone recorded, "
                f"u.grad only after requires_grad_() or .requires_grad = True first, none on the leaf; each route "
                f"as expected): {wrong}; without a grad_fn in grad mode: "
                f"{not_recorded}; unrecorded views run: {len(untracked)}, of which (requires grad, clone with a "
                f"grad_fn): {tracked}")
