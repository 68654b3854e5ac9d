"""Named facts on views taken with grad mode off of a tensor that requires grad, past ``clone()``: the other copies the
matrix guide says do the same (``torch.empty_like(t).copy_(t)``, and ``t.double()`` of a float32 view), run over the
runs of :mod:`tensorfacts.no_grad_view_facts` with its helpers, and other operations than a copy (``* 2``, ``exp()``,
an advanced index) on such a view, or on a view of it, for the glossary's leaf tensor entry: the same holds for them.
Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import itertools

import torch

from tensorfacts.fact_registry import Fact, enough, fact, stopped
from tensorfacts.no_grad_view_facts import (
    GRAD_OFF,
    GRAD_VIEWS,
    INFERENCE_SOURCES,
    ITSELF,
    OFF_MODES,
    copied_dtypes,
    inference_view_runs,
    no_grad_view_runs,
    unrecorded_view_runs,
)

#: The copies other than clone() that the matrix guide says do the same.
OTHER_COPIES = ("double()", "torch.empty_like(t).copy_(t)")


@fact("copy-of-no-grad-view-passes-no-gradient", {
    "en": "The runs of clone-of-no-grad-view-passes-no-gradient that clone a view (the views of a leaf, a non-leaf "
          "and a view made a leaf that requires grad, taken under torch.no_grad(), torch.inference_mode() and "
          "torch.set_grad_enabled(False) and inside torch.inference_mode() with torch.enable_grad(), the views of "
          "them taken with grad mode on or in those four ways, u.requires_grad_() called at each point, the views of "
          "an inference tensor that requires grad and the views autograd does not record; not the runs of the "
          f"{len(ITSELF)} calls that return the tensor itself, a.real of a real tensor and a.mT, a.H, a.mH and "
          "a.adjoint() of a 0-d one), with torch.empty_like(t).copy_(t) taken where the clone t.clone() is taken, and "
          "again with t.double() taken there on the float32 views only (the views of a float32 a, s.values() of a "
          "float32 s, and z.real, z.imag and torch.view_as_real(z) of a complex64 z): each gives what the clone gives "
          "there, with a CopyBackwards or ToCopyBackward0 node in place of CloneBackward0. Its copy of a view of the "
          "leaf or the non-leaf taken in one of those four ways requires grad and has the node, yet passes no "
          "gradient to the view's base, nor to the view unless the view called requires_grad_() before that copy, or "
          "the view copied, was taken, that view being taken with grad mode on. When the source is a view made a "
          "leaf, the copy has the node only when u.requires_grad_() is called right after u is taken and the copy is "
          "taken of u or of a view of it taken with grad mode on, and then passes u the gradient; otherwise it has no "
          "grad_fn; the source's .grad stays None. Its copy of a view of an inference tensor, or of a view autograd "
          "does not record, has no grad_fn.",
    "zh_CN": "clone-of-no-grad-view-passes-no-gradient 中对视图取副本的各次运行（即在 "
             "torch.no_grad()、torch.inference_mode() 和 torch.set_grad_enabled(False) 下，以及在 "
             "torch.inference_mode() 内开启 torch.enable_grad() 时，对需要梯度的叶子张量、"
             "非叶子张量和变成叶子张量的视图取的视图，在梯度模式下或用这四种方式对它们取的视图，在各个时机调用 "
             "u.requires_grad_()，需要梯度的推理张量的视图，以及自动求导不记录的视图；不含返回张量本身的 "
             f"{len(ITSELF)} 种调用，"
             "即实数张量的 a.real，以及零维张量的 a.mT、a.H、a.mH 和 a.adjoint()），在取 t.clone() 的地方"
             "改取 torch.empty_like(t).copy_(t)，再改取 t.double()（只对 float32 的视图：float32 的 a 的视图、"
             "float32 的 s 的 s.values()，以及 complex64 的 z 的 z.real、z.imag 和 torch.view_as_real(z)）："
             "每一次都与副本在那里的结果相同，只是节点由 CloneBackward0 换成了 CopyBackwards 或 ToCopyBackward0。"
             "对叶子张量或非叶子张量用这四种方式取的视图，它得到的副本需要梯度，也带这个节点，却不把梯度传给"
             "视图的基张量；也不传给这个视图，除非这个视图在取得该副本或被复制的视图之前就调用了 "
             "requires_grad_()，而被复制的视图是在梯度模式下取的。源张量是变成叶子张量的视图时，只有在取得 u "
             "后立即调用 u.requires_grad_()，并且副本取自 u 或在梯度模式下取的 u 的视图时，副本才带这个节点，"
             "并把梯度传给 u；其他情况下副本没有 grad_fn；源张量的 .grad 始终是 None。"
             "对推理张量的视图或自动求导不记录的视图，它得到的副本没有 grad_fn。",
}, {"en": "torch.empty_like(t).copy_(t) and t.double() (float32 views only), over the runs of "
          "clone-of-no-grad-view-passes-no-gradient but the calls that return the tensor itself, on the CPU",
    "zh_CN": "torch.empty_like(t).copy_(t) 和 t.double()（只对 float32 的视图），覆盖 "
             "clone-of-no-grad-view-passes-no-gradient 中除返回张量本身的调用以外的各次运行，在 CPU 上"})
def _copy_of_no_grad_view_passes_no_gradient() -> Fact:
    """torch.empty_like(t).copy_(t) and, on a float32 view, t.double() do what clone() does on a view taken with grad
    mode off, on a view of it, on a view of an inference tensor and on a view autograd does not record."""
    wrong, runs, asked, tracked, inference_recorded, inference_runs = [], {}, {}, [], [], {}
    for copy in OTHER_COPIES:
        copy_wrong, copy_runs, copy_asked, expected, asked_expected = no_grad_view_runs(copy)
        wrong += [f"{copy}: {entry}" for entry in copy_wrong]
        if enough(wrong):
            return stopped(wrong)
        runs[copy], asked[copy] = (copy_runs, expected), (copy_asked, asked_expected)
        tracked += [(copy, *entry) for entry in unrecorded_view_runs(copy) if entry[2] or entry[3]]
        count, recorded = inference_view_runs(copy)
        inference_recorded += [f"{copy}: {entry}" for entry in recorded]
        inference_runs[copy] = (count, len(INFERENCE_SOURCES) * (1 + len(OFF_MODES)) * sum(
            len(copied_dtypes(row, copy)) for row in GRAD_VIEWS))
    return Fact(not wrong and all(done == expected for done, expected in runs.values())
                and all(done == expected for done, expected in asked.values()) and not tracked
                and all(done == expected for done, expected in inference_runs.values()) and not inference_recorded,
                f"(views run, expected) per copy: {runs}; (also asked, expected): {asked}; "
                f"not as clone() there: {wrong}; "
                f"unrecorded views that require grad, or whose copy has a grad_fn: {tracked}; (views of an inference "
                f"tensor run, expected): {inference_runs}, of which not as made, or requiring grad, or with a copy "
                f"with a grad_fn: {inference_recorded}")


#: The operations run on a view taken with grad mode off, or on a view of it: three besides clone(), and clone().
OPERATIONS = {"* 2": lambda t: t * 2, "exp()": lambda t: t.exp(), "[[0, 1]]": lambda t: t[[0, 1]],
              "clone()": lambda t: t.clone()}


@fact("no-grad-view-operations-pass-no-gradient", {
    "en": "u = w[1:] of a leaf w that requires grad (float32 and float64), and again u = v[1:] of the non-leaf "
          "v = w * 1 made with grad mode on, taken under torch.no_grad(), again under "
          "torch.inference_mode() and again under torch.set_grad_enabled(False); then, with grad mode on, one "
          "operation (* 2, exp(), [[0, 1]] or clone()) on u, or on its view u[1:] taken with grad mode on, or taken "
          "in the same way as u with grad mode off, and backward() of the sum of the result. With "
          "u.requires_grad_() never called, or called after that view was taken or after the operation, u.grad and "
          "w.grad are None. With it called right after u is taken, u.grad is filled through u and through the view "
          "taken with grad mode on, not through the one taken with grad mode off, and w.grad is None.",
    "zh_CN": "对需要梯度的叶子张量 w（float32 和 float64），以及在梯度模式下算出的非叶子张量 v = w * 1，"
             "分别在 torch.no_grad()、torch.inference_mode() 和 torch.set_grad_enabled(False) 下取 u = w[1:] "
             "或 u = v[1:]；然后在梯度模式下对 u，或对它的视图 u[1:]（在梯度模式下取，或以与 u 相同的方式在"
             "梯度模式关闭时取）做一次运算（* 2、exp()、[[0, 1]] 或 clone()），对结果求和再调用 backward()。"
             "不调用 u.requires_grad_()，或在取得那个视图之后、做完运算之后才调用时，u.grad 和 w.grad 都是 None。"
             "取得 u 后立即调用时，经由 u 本身和在梯度模式下取的视图，u.grad 有了值，经由梯度模式关闭时取的"
             "视图则没有，w.grad 都是 None。",
}, {"en": f"{len(OPERATIONS)} operations, float32 and float64, u of the leaf w and of the non-leaf v, the three "
          "ways to turn grad mode off, u and its view "
          "taken with grad mode on or off, u.requires_grad_() called never, right after u is taken, after the view "
          "or after the operation, on the CPU",
    "zh_CN": f"{len(OPERATIONS)} 种运算，float32 和 float64，取自叶子张量 w 和非叶子张量 v 的 u，三种关闭梯度模式"
             "的方式，u 以及在梯度模式下或梯度模式关闭时对它取的视图，不调用 u.requires_grad_()，"
             "或在取得 u 后立即、取得视图之后、做完运算之后调用，在 CPU 上"})
def _no_grad_view_operations_pass_no_gradient() -> Fact:
    """No operation on a view taken with grad mode off, or on a view of it, passes it a gradient unless it called
    requires_grad_() first, and that view was taken with grad mode on; none passes one to its base."""
    passed = {}  # (dtype, grad mode off, operation, through, when requires_grad_() is called, u's source): results
    for dtype, (mode, off), (name, operation), through, call, kind in itertools.product(
            (torch.float32, torch.float64), GRAD_OFF.items(), OPERATIONS.items(), ("u", "view", "no-grad view"),
            (None, "first", "after the view", "after the operation"), ("leaf", "non-leaf")):
        if through == "u" and call == "after the view":
            continue  # u itself: no view taken
        w = torch.ones(4, dtype=dtype, requires_grad=True)
        source = w if kind == "leaf" else w * 1  # v = w * 1 made with grad mode on
        with off():
            u = source[1:]
        if call == "first":
            u.requires_grad_()
        target = u
        if through != "u":
            with off() if through == "no-grad view" else torch.enable_grad():
                target = u[1:]
        if call == "after the view":
            u.requires_grad_()
        result = operation(target)
        if call == "after the operation":
            u.requires_grad_()
        result.sum().backward()
        passed[(str(dtype), mode, name, through, call, kind)] = (u.is_leaf and u.requires_grad, u.grad is not None,
                                                           w.grad is None)
    gets = [key for key, (_, filled, _) in passed.items() if filled]
    expected = [key for key in passed if key[4] == "first" and key[3] != "no-grad view"]
    leaves = all(leaf for leaf, _, _ in passed.values())
    base_none = all(none for _, _, none in passed.values())
    return Fact(leaves and gets == expected and base_none,
                f"of {len(passed)} runs, u a leaf that requires grad in all: {leaves}; u.grad filled in {len(gets)}, "
                f"those with u.requires_grad_() called first, not through the view taken with grad mode off: "
                f"{gets == expected} (runs that differ: {sorted(set(gets) ^ set(expected)) or 'none'}); w.grad None "
                f"in all: {base_none}")
