"""The claims of article 000, "Tensor copying pitfalls" (tensor 的复制避坑), section 1 (``tensor.clone()``) from
"the clone stays in the computation graph" on, each with its check.

The claims before them are :mod:`tensorfacts.articles.copying_000`, those after them
:mod:`tensorfacts.articles.copying_000_detach`; all register under the article's number, and
:mod:`tensorfacts.articles` lists them in ledger order.
"""

from __future__ import annotations

import warnings

import torch

from tensorfacts.articles.copying_000_clone_cases import (
    clones_with_grad_off,
    edited_view_clones,
    grad_off_trace,
    inference_leaves_trace,
    off_view_clones,
    plain_clones_trace,
)
from tensorfacts.model import DOES_NOT_HOLD, HOLDS, OUTPUT_DIFFERS, Registry, Result, said, verdict
from tensorfacts.pasted import Pasted, first_print, joined
from tensorfacts.snippets import compare_output, run_clean, worst
from tensorfacts.sources import copying_000 as src
from tensorfacts.tensors import grad_fn_name

NUMBER = "000"
TITLE, SECTIONS = src.TITLE, src.SECTIONS
CLAIMS = Registry(NUMBER)


#: The qualifier of the clone's row that holds in grad mode outside torch.inference_mode() only, and not for a sparse,
#: nested or mkldnn inference tensor. The qualifiers leave those tensors out on every device, not on the CPU alone: on
#: ``meta`` the clone of a sparse CSR one leaves the graph and that of a sparse COO one stays in it.
GRAD_MODE_ONLY = {"en": "in grad mode outside torch.inference_mode() only, and not for a sparse, nested or mkldnn "
                        "inference tensor",
                  "zh_CN": "仅在 torch.inference_mode() 之外的梯度模式下，且 a 不是稀疏、嵌套或 mkldnn 推理张量时"}

#: The qualifier of the row that the clone stays in the graph: for an ``a`` that requires grad, nor for a view of
#: ``a`` taken with grad mode off, nor for a sparse, nested or mkldnn inference tensor.
IN_GRAPH_ONLY = {"en": "in grad mode outside torch.inference_mode(), for an a that requires grad, only, and not for a "
                       "view of a taken with grad mode off or inside torch.inference_mode(), nor for a sparse, nested "
                       "or mkldnn inference tensor",
                 "zh_CN": "仅当 a 需要梯度，且在 torch.inference_mode() 之外的梯度模式下，不包括梯度模式关闭时或在 "
                          "torch.inference_mode() 里取的 a 的视图，也不包括稀疏、嵌套或 mkldnn 推理张量"}

#: The sentence of the three notes on sparse, nested and mkldnn inference tensors, checked on the CPU (the fact's
#: scope) by :func:`inference_leaves_trace` (on ``meta``, the clone of a sparse COO one stays in the graph); the
#: Chinese one glosses 推理张量 in the first note (``gloss``).
NOT_STRIDED_INFERENCE = {
    "en": " Nor for a sparse (COO, CSR, CSC, BSR or BSC), nested or mkldnn inference tensor that requires grad: on "
          "the CPU, in grad mode outside `torch.inference_mode()` too, its clone does not require grad and has no "
          "`grad_fn`: it is a leaf, outside the computation graph.",
    "zh_CN": "稀疏（COO、CSR、CSC、BSR 或 BSC）、嵌套或 mkldnn 的推理张量{gloss}需要梯度时也是例外："
             "在 CPU 上，即使在 `torch.inference_mode()` 之外的梯度模式下，它 clone 出来的副本也不需要梯度，没有 "
             "`grad_fn`：它是叶子张量，不在计算图中。",
}

#: The sentence both notes end with: the clone of a tensor that does not require grad is a leaf outside any graph.
NO_GRAD_SOURCE = {
    "en": " And only for an `a` that requires grad: in grad mode as well as with it off, the clone of a tensor that "
          "does not require grad is a leaf with no `grad_fn`, outside any computation graph.",
    "zh_CN": "而且只对需要梯度的 `a` 如此：无论梯度模式开着还是关着，不需要梯度的张量 clone 出来的副本都是没有 "
             "`grad_fn` 的叶子张量，不在任何计算图中。",
}

@CLAIMS.claim(
    "000-clone-in-graph", "clone", "copying-clone",
    "The clone stays in the computation graph.",
    "clone 出来的新张量仍然留在计算图中。",
    notes={
        "en": "In grad mode outside `torch.inference_mode()` only: under `torch.no_grad()`, or inside "
              "`torch.inference_mode()` even with `torch.enable_grad()`, the clone of a tensor that requires grad "
              "has no `grad_fn` and does not require grad: it is a leaf, outside the computation graph. Nor for a "
              "view of `a` taken with grad mode off or inside `torch.inference_mode()`: `a[1:]` or `a.t()`, for "
              "example, taken under `torch.no_grad()` or `torch.set_grad_enabled(False)`, or inside "
              "`torch.inference_mode()` even with `torch.enable_grad()`, is a leaf that requires grad, and its "
              "clone, taken in grad mode, has a `CloneBackward0` node that leads nowhere: `backward()` gives neither "
              "`a` nor the view a gradient. Calling `requires_grad_()` on the view before its clone is taken links "
              "the node to the view, which then gets a gradient; `a` still gets none. This lasts only until the "
              "version counter the view shares with `a` moves, as it does after `mul_()` on the view or on `a`, even "
              "under `torch.no_grad()`, or after a step of `torch.optim.SGD` on `a`. From then on, with grad mode "
              "on, cloning the view, or reading its `is_leaf` or `grad_fn`, raises a `RuntimeError` saying that its "
              "base or another view of its base has been modified inplace, `requires_grad_()` called or not. A write "
              "that moves no version counter, such as a step of `torch.optim.SGD` made with `fused=True` or a write "
              "through `a.data`, leaves the view a leaf whose clone passes `a` no gradient. Which views behave so, "
              "[the clone page](ref:copying-clone) says." + NOT_STRIDED_INFERENCE["en"] + NO_GRAD_SOURCE["en"],
        "zh_CN": "仅在 `torch.inference_mode()` 之外的梯度模式（grad mode）下如此：在 `torch.no_grad()` 下，"
                 "或在 `torch.inference_mode()` 里（即使又用了 `torch.enable_grad()`），需要梯度的张量 clone "
                 "出来的副本没有 `grad_fn`，也不需要梯度：它是叶子张量（leaf tensor），不在计算图中。"
                 "梯度模式关闭时或在 `torch.inference_mode()` 里取的 `a` 的视图（view）也是例外：例如在 "
                 "`torch.no_grad()` 或 `torch.set_grad_enabled(False)` 下，或在 `torch.inference_mode()` 里"
                 "（即使又用了 `torch.enable_grad()`）取的 `a[1:]` 或 `a.t()`，是需要梯度的叶子张量，"
                 "在梯度模式下 clone 出来的副本带有 `CloneBackward0` 节点，但这个节点不通向任何地方："
                 "`backward()` 既不给 `a` 也不给这个视图梯度。在取得副本之前对这个视图调用 "
                 "`requires_grad_()`，节点就会连到这个视图，视图随后得到梯度；`a` 仍然得不到。"
                 "这只在这个视图与 `a` 共享的版本计数器（version counter）推进之前成立："
                 "对这个视图或 `a` 调用 `mul_()`（即使是在 `torch.no_grad()` 下），"
                 "或者对 `a` 执行一步 `torch.optim.SGD`，都会推进这个计数器。"
                 "此后在梯度模式下对这个视图取副本，或读取它的 `is_leaf` 或 `grad_fn`，都会抛出 `RuntimeError`，"
                 "说它的基张量（base tensor）或基张量的另一个视图已被原地（in-place）修改"
                 "（its base or another view of its base has been modified inplace），"
                 "调用没调用 `requires_grad_()` 都一样。不推进版本计数器的写入，比如用 `fused=True` 构造的 "
                 "`torch.optim.SGD` 的一步，或经由 `a.data` 的写入，则让这个视图仍是叶子张量，它的副本不把梯度传给 "
                 "`a`。"
                 "哪些视图会这样，见 [“clone()”那一页](ref:copying-clone)。"
                 + NOT_STRIDED_INFERENCE["zh_CN"].format(gloss="（inference tensor）")
                 + NO_GRAD_SOURCE["zh_CN"],
    },
    qualifiers=IN_GRAPH_ONLY)
def _clone_in_graph() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    if c.requires_grad:  # otherwise backward() would raise: nothing to flow back
        (c * 3).sum().backward()
    flows = a.grad is not None and a.grad.tolist() == [3.0, 3.0, 3.0]
    grad = a.grad.tolist() if a.grad is not None else None
    off = clones_with_grad_off(a)
    outside = all(o.grad_fn is None and o.is_leaf and not o.requires_grad for o in off.values())
    en, zh = grad_off_trace(off)
    views = off_view_clones()
    runs, unlike = len(views), sorted(run for run, departs in views.items() if departs)
    edited = edited_view_clones()
    unbroken = sorted(run for run, departs in edited.items() if departs)
    plain_en, plain_zh = plain_clones_trace()
    inference, inference_en, inference_zh = inference_leaves_trace()
    return Result(verdict(c.grad_fn is not None and flows and outside and not unlike and not unbroken
                          and inference), said(
        f"`c.grad_fn = {grad_fn_name(c)}`; after `(c * 3).sum().backward()`, `a.grad = {grad}`; {en}; "
        f"`a[1:]` and `a.t()` taken in the note's four ways, with and without `requires_grad_()`: "
        f"{runs - len(unlike)} of {runs} runs as the note says" + (f" (not: {unlike})" if unlike else "")
        + f"; the same, then an in-place edit of `a` or of the view under `torch.no_grad()`, an SGD step on `a` or "
        f"`torch.autograd.graph.increment_version(a)`, and again `a.data` times 2 or a fused SGD step on `a`: "
        f"{len(edited) - len(unbroken)} of {len(edited)} runs as the note says"
        + (f" (not: {unbroken})" if unbroken else "") + f"; {plain_en}; {inference_en}",
        f"`c.grad_fn = {grad_fn_name(c)}`；执行 `(c * 3).sum().backward()` 后，`a.grad = {grad}`；{zh}；"
        f"按注中四种方式取 `a[1:]` 和 `a.t()`，调用或不调用 `requires_grad_()`："
        f"{runs} 次运行中 {runs - len(unlike)} 次与注所说相符" + (f"（不符：{unlike}）" if unlike else "")
        + f"；同样取视图后，在 `torch.no_grad()` 下原地修改 `a` 或视图，对 `a` 执行一步 SGD，或调用 "
        f"`torch.autograd.graph.increment_version(a)`，以及把 `a.data` 乘 2 或对 `a` 执行一步 fused SGD："
        f"{len(edited)} 次运行中 {len(edited) - len(unbroken)} 次与注所说相符"
        + (f"（不符：{unbroken}）" if unbroken else "") + f"；{plain_zh}；{inference_zh}"))


@CLAIMS.claim(
    "000-clone-not-leaf", "clone", "copying-clone",
    "The clone can no longer take part in gradient computation as a leaf: it is not a leaf, "
    "and `backward()` leaves its `.grad` empty.",
    "这个新张量不能再作为叶子张量参与梯度运算：它不是叶子张量，`backward()` 后它的 `.grad` 为空。",
    notes={
        "en": "In grad mode outside `torch.inference_mode()` only: under `torch.no_grad()`, or inside "
              "`torch.inference_mode()` even with `torch.enable_grad()`, the clone of a tensor that requires grad "
              "is a leaf that does not require grad. And its `.grad` stays empty only when nothing asks for it: "
              "after `c.retain_grad()`, `backward()` fills `c.grad` with the gradient, and so does "
              "`backward(inputs=[c])`, `c` still not a leaf." + NOT_STRIDED_INFERENCE["en"] + NO_GRAD_SOURCE["en"],
        "zh_CN": "仅在 `torch.inference_mode()` 之外的梯度模式下如此：在 `torch.no_grad()` 下，"
                 "或在 `torch.inference_mode()` 里（即使又用了 `torch.enable_grad()`），需要梯度的张量 clone "
                 "出来的副本是叶子张量，且不需要梯度。它的 `.grad` 也只在没有人要它时才为空："
                 "调用过 `c.retain_grad()` 之后，`backward()` 会把梯度存进 `c.grad`，"
                 "`backward(inputs=[c])` 也会，而 `c` 仍然不是叶子。" + NOT_STRIDED_INFERENCE["zh_CN"].format(gloss="")
                 + NO_GRAD_SOURCE["zh_CN"],
    },
    qualifiers={"en": "in grad mode outside torch.inference_mode(), for an a that requires grad and is not a sparse, "
                      "nested or mkldnn inference tensor, without retain_grad() or backward(inputs=[c]), only",
                "zh_CN": "仅当 a 需要梯度且不是稀疏、嵌套或 mkldnn 推理张量，在 torch.inference_mode() 之外的"
                         "梯度模式下，且没有用 retain_grad() 或 backward(inputs=[c]) 时"})
def _clone_not_leaf() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    asked = {}
    for how in ("retain_grad()", "backward(inputs=[c])"):
        kept = a.clone()
        if not kept.requires_grad:  # a clone cut from the graph: the verdict below says so
            continue
        if how == "retain_grad()":
            kept.retain_grad()
        (kept**2).sum().backward(inputs=[kept] if how != "retain_grad()" else None)
        asked[how] = kept.grad is not None and torch.equal(kept.grad, 2 * a.detach()) and not kept.is_leaf
    if not all(asked.values()):
        raise AssertionError(f"the note is out of date: c.grad filled with the gradient, c not a leaf: {asked}")
    c = a.clone()
    if c.requires_grad:
        (c**2).sum().backward()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")  # reading .grad of a non-leaf warns; that is not this claim
        grad = c.grad
    off = clones_with_grad_off(a)
    leaves = all(o.is_leaf and not o.requires_grad for o in off.values())
    en, zh = grad_off_trace(off)
    plain_en, plain_zh = plain_clones_trace()
    inference, inference_en, inference_zh = inference_leaves_trace()
    return Result(verdict(not c.is_leaf and grad is None and leaves and inference),
                  said(f"`c.is_leaf = {c.is_leaf}`; `c.grad = {grad}`; {en}; {plain_en}; {inference_en}",
                       f"`c.is_leaf = {c.is_leaf}`；`c.grad = {grad}`；{zh}；{plain_zh}；{inference_zh}"))


#: The clone example's prints, each compared with the comment the article writes beside it.
CLAIMS.rows(
    Pasted(
        "000-clone-print-a", "clone", "copying-clone",
        "In the clone example, `print(a)` shows `tensor([1., 2., 3.], requires_grad=True)`.",
        "clone 例子中，`print(a)` 输出 `tensor([1., 2., 3.], requires_grad=True)`。",
        snippet=src.CLONE_EXAMPLE, expected=src.CLONE_COMMENTS[0], prints=(0,), trace=first_print,
    ),
)


@CLAIMS.claim(
    "000-clone-print-c", "clone", "copying-clone",
    "`print(c)` shows `tensor([1., 2., 3.], grad_fn=<CloneBackward>)` (before and after `a = 1`).",
    "`print(c)` 输出 `tensor([1., 2., 3.], grad_fn=<CloneBackward>)`（`a = 1` 前后各一次）。")
def _clone_print_c() -> Result:
    """Both prints of ``c`` against the article's comment; the trace shows a print that differs."""
    run = run_clean(src.CLONE_EXAMPLE)
    printed = [run.prints[1], run.prints[6]]  # print(c) before and after `a = 1`
    outcomes = [compare_output(src.CLONE_COMMENTS[1], p) for p in printed]
    differing = [p for p, outcome in zip(printed, outcomes, strict=True) if outcome != HOLDS]
    return Result(worst(outcomes), differing[0] if differing else printed[0])


CLAIMS.rows(
    Pasted(
        "000-clone-print-a-grad", "clone", "copying-clone",
        "`print(a.grad)` shows `tensor([2., 4., 6.])`.",
        "`print(a.grad)` 输出 `tensor([2., 4., 6.])`。",
        snippet=src.CLONE_EXAMPLE, expected=src.CLONE_COMMENTS[2], prints=(2,), trace=first_print,
    ),
)


@CLAIMS.claim(
    "000-clone-print-c-grad", "clone", "copying-clone",
    "`print(c.grad)` shows `None`, and nothing else.",
    "`print(c.grad)` 输出 `None`，别无其他。")
def _clone_print_c_grad() -> Result:
    run = run_clean(src.CLONE_EXAMPLE)
    printed = run.prints[3]
    if printed != src.CLONE_COMMENTS[3]:
        return Result(DOES_NOT_HOLD, printed)
    if run.warnings:
        return Result(OUTPUT_DIFFERS, said(f"`{printed}`, plus `{run.warnings[0]}`",
                                           f"`{printed}`，另有 `{run.warnings[0]}`"))
    return Result(HOLDS, printed)


CLAIMS.rows(
    Pasted(
        "000-clone-print-requires-grad", "clone", "copying-clone",
        "`print(a.requires_grad)` and `print(c.requires_grad)` both show `True`.",
        "`print(a.requires_grad)` 和 `print(c.requires_grad)` 都输出 `True`。",
        snippet=src.CLONE_EXAMPLE, expected=src.CLONE_COMMENTS[4:6], prints=(4, 5), trace=joined,
    ),
)


@CLAIMS.claim(
    "000-clone-rebind-keeps-c", "clone", "copying-clone",
    "After `a = 1`, the value of `c` has not changed.",
    "执行 `a = 1` 之后，`c` 的值并没有改变。")
def _clone_rebind_keeps_c() -> Result:
    """The value of ``c`` just before the article's ``a = 1``, and at the end of its code."""
    head, rebind, tail = src.CLONE_EXAMPLE.partition("\na = 1\n")
    if not rebind:
        raise ValueError("the clone example has no line `a = 1`")
    run = run_clean(f"{head}\nc_before = c.tolist(){rebind}{tail}c_after = c.tolist()\n")
    before, after = run.names["c_before"], run.names["c_after"]
    return Result(verdict(run.names["a"] == 1 and before == after), said(
        f"`c.tolist()` before `a = 1`: `{before}`; after: `{after}`",
        f"`a = 1` 之前 `c.tolist()` 为 `{before}`，之后为 `{after}`"))


@CLAIMS.claim(
    "000-clone-unrelated", "clone", "copying-clone",
    "The clone and the original variable have nothing to do with each other.",
    "clone 出来的新变量和原来的变量没有任何关系。")
def _clone_unrelated() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    reaches_a = c.grad_fn is not None and any(
        fn is not None and type(fn).__name__ == "AccumulateGrad" and fn.variable is a
        for fn, _ in c.grad_fn.next_functions)
    if c.requires_grad:
        c.sum().backward()
    grad = a.grad.tolist() if a.grad is not None else None
    return Result(verdict(not reaches_a and grad is None), said(
        f"`c.grad_fn.next_functions` reaches `a`: `{reaches_a}`; after `c.sum().backward()`, `a.grad = {grad}`",
        f"`c.grad_fn.next_functions` 通向 `a`：`{reaches_a}`；执行 `c.sum().backward()` 后，`a.grad = {grad}`"))


@CLAIMS.claim(
    "000-clone-requires-grad-follows", "clone", "copying-clone",
    "If `a.requires_grad` is `True`, the clone's `requires_grad` is `True` too.",
    "如果 `a.requires_grad=True`，clone 出来的 `c.requires_grad` 也是 `True`。",
    notes={
        "en": "In grad mode outside `torch.inference_mode()` only: under `torch.no_grad()`, or inside "
              "`torch.inference_mode()` even with `torch.enable_grad()`, the clone of a tensor that requires grad "
              "does not require grad." + NOT_STRIDED_INFERENCE["en"],
        "zh_CN": "仅在 `torch.inference_mode()` 之外的梯度模式下如此：在 `torch.no_grad()` 下，"
                 "或在 `torch.inference_mode()` 里（即使又用了 `torch.enable_grad()`），需要梯度的张量 clone "
                 "出来的副本不需要梯度。" + NOT_STRIDED_INFERENCE["zh_CN"].format(gloss=""),
    },
    qualifiers=GRAD_MODE_ONLY)
def _clone_requires_grad_follows() -> Result:
    seen = {}
    for flag in (True, False):
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=flag)
        seen[flag] = a.clone().requires_grad
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        under_no_grad = a.clone().requires_grad
    with torch.inference_mode():
        under_inference = a.clone().requires_grad
    with torch.inference_mode(), torch.enable_grad():
        grad_mode_on = torch.is_grad_enabled()
        under_inference_enabled = a.clone().requires_grad
    pairs = seen.items()
    inference, inference_en, inference_zh = inference_leaves_trace()
    follows = all(clone == flag for flag, clone in pairs)
    return Result(verdict(follows and not under_no_grad and not under_inference and grad_mode_on
                          and not under_inference_enabled and inference), said(
        "; ".join(f"`a.requires_grad = {flag}`: `a.clone().requires_grad = {clone}`" for flag, clone in pairs)
        + f"; under `torch.no_grad()`, `a.requires_grad = True`: `a.clone().requires_grad = {under_no_grad}`"
        + f"; under `torch.inference_mode()`: `{under_inference}`"
        + f"; inside `torch.inference_mode()` with `torch.enable_grad()` (`torch.is_grad_enabled() = {grad_mode_on}`): "
          f"`{under_inference_enabled}`; {inference_en}",
        "；".join(f"`a.requires_grad = {flag}` 时 `a.clone().requires_grad = {clone}`" for flag, clone in pairs)
        + f"；在 `torch.no_grad()` 下，`a.requires_grad = True` 时 `a.clone().requires_grad = {under_no_grad}`"
        + f"；在 `torch.inference_mode()` 下为 `{under_inference}`"
        + f"；在 `torch.inference_mode()` 里又用 `torch.enable_grad()` 时（`torch.is_grad_enabled() = {grad_mode_on}`）"
          f"为 `{under_inference_enabled}`；{inference_zh}"))


@CLAIMS.claim(
    "000-clone-grads-unrelated", "clone", "copying-clone",
    "The gradients of `a` and of its clone have nothing to do with each other.",
    "`a` 和它的 clone 两者的梯度没有任何关系。")
def _clone_grads_unrelated() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    loss = (c * torch.tensor([10.0, 20.0, 30.0])).sum()
    if loss.requires_grad:
        loss.backward()
    grad = a.grad.tolist() if a.grad is not None else None
    return Result(verdict(grad is None), said(
        f"after `(c * [10, 20, 30]).sum().backward()`, `a.grad = {grad}`",
        f"执行 `(c * [10, 20, 30]).sum().backward()` 后，`a.grad = {grad}`"))
