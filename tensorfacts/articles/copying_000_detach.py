"""The claims of article 000, "Tensor copying pitfalls" (tensor 的复制避坑), last part: section 2
(``tensor.detach()``), the note and the closing remark, each with its check.

The claims before them are :mod:`tensorfacts.articles.copying_000` and
:mod:`tensorfacts.articles.copying_000_clone`; all register under the article's number, and
:mod:`tensorfacts.articles` lists them in ledger order.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings

import torch
from torch.autograd import forward_ad

from tensorfacts.model import (
    DOES_NOT_HOLD,
    HOLDS,
    NOT_A_CLAIM,
    OUTPUT_DIFFERS,
    Registry,
    Result,
    observed_each,
    said,
    verdict,
)
from tensorfacts.pasted import Pasted, one_line
from tensorfacts.snippets import compare_output, counted, first_difference, run_clean
from tensorfacts.sources import copying_000 as src
from tensorfacts.tensors import bytes_apart, error_line, grad_fn_name, same_storage

NUMBER = "000"
TITLE, SECTIONS = src.TITLE, src.SECTIONS
CLAIMS = Registry(NUMBER)


# --- Article 000, 2: tensor.detach() -------------------------------------------------------------


@CLAIMS.claim(
    "000-detach-identical", "detach", "copying-detach",
    "`detach()` returns a tensor with the same values as the original.",
    "`detach()` 返回一个值完全相同的张量。")
def _detach_identical() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    equal = torch.equal(a, c)
    return Result(verdict(equal and c.dtype == a.dtype),
                  observed_each(f"torch.equal(a, c) = {equal}", f"a.dtype = {a.dtype}", f"c.dtype = {c.dtype}"))


@CLAIMS.claim(
    "000-detach-shares-memory", "detach", "copying-detach",
    "The detached tensor shares memory with the original (stated twice).",
    "detach 得到的新张量与旧张量共享内存（原文说了两次）。")
def _detach_shares_memory() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    shared = same_storage(a, c)
    return Result(verdict(shared), f"same_storage(a, c) = {shared}")


@CLAIMS.claim(
    "000-detach-leaves-graph", "detach", "copying-detach",
    "The detached tensor leaves the computation graph and takes no part in gradient computation.",
    "detach 得到的新张量会脱离计算图，不牵扯梯度计算。")
def _detach_leaves_graph() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    (c * a).sum().backward()  # c enters this graph as a constant: a.grad is c, nothing flows into c
    out = not c.requires_grad and c.grad_fn is None and a.grad.tolist() == [1.0, 2.0, 3.0]
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = (x * 2).detach()  # the same of a non-leaf source
    (d * x).sum().backward()
    also = not d.requires_grad and d.grad_fn is None and x.grad.tolist() == [2.0, 4.0, 6.0]
    return Result(verdict(out and also), said(
        f"`c = a.detach()`: `requires_grad = {c.requires_grad}`, `grad_fn = {grad_fn_name(c)}`, after "
        f"`(c * a).sum().backward()` `a.grad = {a.grad.tolist()}` (the values of `c`); `(x * 2).detach()`: "
        f"`requires_grad = {d.requires_grad}`, `grad_fn = {grad_fn_name(d)}`",
        f"`c = a.detach()`：`requires_grad = {c.requires_grad}`，`grad_fn = {grad_fn_name(c)}`，执行 "
        f"`(c * a).sum().backward()` 后 `a.grad = {a.grad.tolist()}`（即 `c` 的值）；`(x * 2).detach()`："
        f"`requires_grad = {d.requires_grad}`，`grad_fn = {grad_fn_name(d)}`"))


#: The four calls of the article's warning, each as the detach page runs it on a 2x3 tensor.
METADATA_CALLS = {
    "resize_": lambda t: t.resize_(3, 2),
    "resize_as_": lambda t: t.resize_as_(torch.zeros(3, 2)),
    "set_": lambda t: t.set_(torch.zeros(6)),
    "transpose_": lambda t: t.transpose_(0, 1),
}


def _accepted(make_source, grad_mode: bool = True) -> tuple[list[str], list[str]]:
    """Which of the four calls run, on the detached tensor and on the source (fresh pairs), the calls
    made with grad mode on or off."""
    on_c, on_a = [], []
    for name, call in METADATA_CALLS.items():
        for who, accepted in (("c", on_c), ("a", on_a)):
            a = make_source()
            c = a.detach()
            try:
                with torch.set_grad_enabled(grad_mode):
                    call(c if who == "c" else a)
            except RuntimeError:
                continue
            accepted.append(name)
    return on_c, on_a


@CLAIMS.claim(
    "000-detach-metadata-ops-error", "detach", "copying-detach",
    "In-place `resize_`, `resize_as_`, `set_` or `transpose_` on either of the two tensors "
    "raises an error.",
    "原地操作 `resize_`、`resize_as_`、`set_`、`transpose_` 在两者任意一个上执行都会报错。",
    notes={
        "en": "True when the article was written: up to torch 1.12 these calls on a tensor from `.data` "
              "or `.detach()` raised “… is not allowed on a Tensor created from .data or .detach()”, and "
              "the `Tensor.detach` docstring still said so in the 2.2 docs. "
              "[pytorch/pytorch#83590](https://github.com/pytorch/pytorch/pull/83590) (“Always allow "
              "tensor metadata changes”, August 2022) lifted the restriction. As on the example page, the "
              "source here is the article's: a leaf that requires grad. It refuses all four calls, not because "
              "of the detach: outside `torch.inference_mode()`, the two resizes fail because it requires grad "
              "(under `torch.no_grad()` too, and on a non-leaf), `set_` and `transpose_` because it is a leaf "
              "that requires grad with grad mode on; a view of it is refused them too, though it is not a leaf. "
              "A non-leaf source that is not a view of a leaf that requires grad, such as "
              "`a * 2` or a view of it, and under `torch.no_grad()` the leaf or a view of it, accept `set_` and "
              "`transpose_` and refuse only the two resizes. Inside `torch.inference_mode()`, with or without "
              "`torch.enable_grad()`, all four succeed on each of these sources made outside it.",
        "zh_CN": "文章写成时这是对的：torch 1.12 及以前，对 `.data` 或 `.detach()` 得到的张量执行这些调用会报错"
                 "“… is not allowed on a Tensor created from .data or .detach()”，`Tensor.detach` 的文档"
                 "在 2.2 版里还这样写。"
                 "[pytorch/pytorch#83590](https://github.com/pytorch/pytorch/pull/83590)"
                 "（“Always allow tensor metadata changes”，2022 年 8 月）取消了这一限制。与示例页面一样，"
                 "这里的源张量沿用原文的写法：需要梯度的叶子张量。它拒绝全部四个调用，原因不在 detach："
                 "在 `torch.inference_mode()` 之外，两个 resize 报错是因为它需要梯度（在 `torch.no_grad()` 下、"
                 "换成非叶子张量也一样）；`set_` 和 `transpose_` 报错是因为它是需要梯度的叶子张量，而且梯度模式开着；"
                 "它的视图虽然不是叶子张量，也同样拒绝这两个调用。"
                 "换成非叶子源张量（例如 `a * 2` 或它的视图，但不能是需要梯度的叶子张量的视图），"
                 "或者在 `torch.no_grad()` 下换成这个叶子张量或它的视图，`set_` 和 `transpose_` 都能执行，"
                 "只有两个 resize 会报错。"
                 "在 `torch.inference_mode()` 里，不论是否又用了 `torch.enable_grad()`，四个调用在 inference_mode "
                 "之外得到的上述每一种源张量上都能执行。",
    })
def _detach_metadata_ops_error() -> Result:
    on_c, on_a = _accepted(lambda: torch.ones(2, 3, requires_grad=True))
    nonleaf_c, nonleaf_a = _accepted(lambda: torch.ones(2, 3, requires_grad=True) * 2)
    if on_c or on_a:  # the note says so: it must stay true
        def leaf():
            return torch.ones(2, 3, requires_grad=True)

        def nonleaf():
            return leaf() * 2

        def leaf_view():
            return torch.ones(6, requires_grad=True).view(2, 3)

        def nonleaf_view():
            return (torch.ones(6, requires_grad=True) * 2).view(2, 3)

        def leaf_view_no_grad():
            base = torch.ones(6, requires_grad=True)
            with torch.no_grad():
                return base.view(2, 3)  # a leaf itself, that requires grad through its base

        # The resizes fail whenever the source requires grad; set_ and transpose_ only on the leaf and its
        # views in grad mode.
        sources = {"leaf": leaf, "non-leaf": nonleaf, "view of a leaf": leaf_view,
                   "view of a leaf taken under no_grad": leaf_view_no_grad, "view of a non-leaf": nonleaf_view}
        for (source, make), grad_mode in itertools.product(sources.items(), (True, False)):
            accepts = _accepted(make, grad_mode)[1]
            refused_all = grad_mode and source.startswith(("leaf", "view of a leaf"))
            if accepts != ([] if refused_all else ["set_", "transpose_"]):
                raise AssertionError(f"the note is out of date: a {source} source that requires grad "
                                     f"(grad mode {grad_mode}) accepts {accepts}")
        if _accepted(lambda: torch.ones(2, 3))[1] != list(METADATA_CALLS):
            raise AssertionError("the note is out of date: a source that does not require grad refuses a call")
        inference_refused = []
        for (name, call), make, grad_mode in itertools.product(METADATA_CALLS.items(), sources.values(), (False, True)):
            source = make()
            try:
                with torch.inference_mode(), torch.enable_grad() if grad_mode else contextlib.nullcontext():
                    call(source)
            except RuntimeError:
                inference_refused.append((name, make.__name__, grad_mode))
        if inference_refused:
            raise AssertionError(f"the note is out of date: inside inference_mode (with enable_grad: True) these "
                                 f"calls are refused: {inference_refused}")

    def listed(calls: list[str], sep: str, none: str) -> str:
        return sep.join(f"`{call}`" for call in calls) or none

    trace = said(f"run without error on `c`: {listed(on_c, ', ', 'none')}; "
                 f"on the leaf `a`: {listed(on_a, ', ', 'none')}; on a non-leaf `a`: {listed(nonleaf_a, ', ', 'none')}",
                 f"在 `c` 上能执行：{listed(on_c, '、', '无')}；在叶子张量 `a` 上：{listed(on_a, '、', '无')}；"
                 f"在非叶子张量 `a` 上：{listed(nonleaf_a, '、', '无')}")
    return Result(verdict(not on_c and not on_a), trace)


@CLAIMS.claim(
    "000-detach-prints", "detach", "copying-detach",
    "In the detach example, the comments show what each `print` writes: `a`, `c` without "
    "`grad_fn`, `a.grad` = `tensor([2., 4., 6.])`, `c.grad` = `None`, `True`, `False`, "
    "and `c` again after `a = 1`.",
    "detach 例子中，各行注释就是 `print` 的输出：`a`、不带 `grad_fn` 的 `c`、"
    "`a.grad` 为 `tensor([2., 4., 6.])`、`c.grad` 为 `None`、`True`、`False`，以及 `a = 1` 后的 `c`。")
def _detach_prints() -> Result:
    run = run_clean(src.DETACH_EXAMPLE)
    expected = "\n".join(src.DETACH_COMMENTS)
    outcome = compare_output(expected, run.text)
    if outcome == HOLDS and run.warnings:
        outcome = OUTPUT_DIFFERS
    if outcome == HOLDS:
        return Result(outcome, counted(len(run.prints), "as commented", "与注释一致"))
    differs = first_difference(expected, run.text)
    if run.warnings and isinstance(differs, str):
        return Result(outcome, said(f"`{differs}`; `{run.warnings[0]}`", f"`{differs}`；`{run.warnings[0]}`"))
    return Result(outcome, differs)


@CLAIMS.claim(
    "000-detach-edit-propagates", "detach", "copying-detach",
    "`detach()` does not cut `a` and `c` apart: changing `c` changes `a`.",
    "`detach()` 不会切断 `a` 和 `c` 的联系：改变 `c` 的值，`a` 也会改变。")
def _detach_edit_propagates() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.detach()
    c[0] = 100
    return Result(verdict(a[0].item() == 100.0), said(f"`a[0] = {a[0].item()}` after `c[0] = 100`",
                                                      f"执行 `c[0] = 100` 后，`a[0] = {a[0].item()}`"))


@CLAIMS.claim(
    "000-detach-only-requires-grad", "detach", "copying-detach",
    "`detach()` only turns the new tensor's `requires_grad` to `False`; `a` keeps its own.",
    "`detach()` 只是把新变量的 `requires_grad` 变成了 `False`，`a` 的不变。",
    notes={
        "en": "Read as: the two hold the same values in the same memory, and the new tensor's `requires_grad` is "
              "`False` while `a`'s stays `True`, which holds. `requires_grad` is not all that differs; among the "
              "differences: the new tensor has no `.grad` (`c.grad` is `None` while `a.grad` holds "
              "`tensor([2., 4., 6.])`, as the article's own output shows); a detached non-leaf tensor "
              "(`(a * 2).detach()`) has no `grad_fn` and is a leaf; a detached `Parameter` is a plain `Tensor`; a "
              "forward-mode AD tangent (`torch.autograd.forward_ad.make_dual`) is not carried over; attributes set "
              "on the tensor in Python (`a.tag = 1`) are not copied.",
        "zh_CN": "按“两者的值相同、在同一块内存里，新张量的 `requires_grad` 为 `False`，`a` 的仍为 `True`”理解，"
                 "这一条成立。但不同的不只是 `requires_grad`，比如：新张量没有 `.grad`（原文自己的输出里，`a.grad` "
                 "为 `tensor([2., 4., 6.])`，`c.grad` 却是 `None`）；非叶子张量 detach 出来的张量"
                 "（`(a * 2).detach()`）没有 `grad_fn`，是叶子张量；`Parameter` detach 出来的是普通的 `Tensor`；"
                 "前向模式自动微分的切向量（`torch.autograd.forward_ad.make_dual` 给的 tangent）不会带过去；"
                 "在 Python 里给张量设置的属性（`a.tag = 1`）不会被复制。",
    },
    qualifiers={"en": "read as: same values and memory, requires_grad False in the new tensor; a keeps its own",
                "zh_CN": "理解为值和内存相同，新张量的 requires_grad 为 False，a 的不变"})
def _detach_only_requires_grad() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (a * a).sum().backward()
    c = a.detach()
    if a.grad is None or c.grad is not None:
        raise AssertionError("the note is out of date: a detached leaf now carries the .grad of its source")
    y = a * 2
    if y.grad_fn is None or y.detach().grad_fn is not None or not y.detach().is_leaf:
        raise AssertionError("the note is out of date: a detached non-leaf now keeps a grad_fn or is not a leaf")
    if type(torch.nn.Parameter(torch.ones(2)).detach()) is not torch.Tensor:
        raise AssertionError("the note is out of date: a detached Parameter is no longer a plain Tensor")
    with warnings.catch_warnings(), forward_ad.dual_level():
        # forward AD's first use imports torch's decompositions, which call the deprecated torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        dual = forward_ad.make_dual(torch.ones(2), torch.full((2,), 2.0))
        if forward_ad.unpack_dual(dual).tangent is None or forward_ad.unpack_dual(dual.detach()).tangent is not None:
            raise AssertionError("the note is out of date: detach() now keeps the forward-mode AD tangent")
    tagged = torch.ones(2)
    tagged.tag = 1
    if hasattr(tagged.detach(), "tag"):
        raise AssertionError("the note is out of date: detach() now copies attributes set in Python")
    out = a.requires_grad and not c.requires_grad and torch.equal(a, c) and same_storage(a, c)
    return Result(verdict(out),
                  observed_each(f"a.requires_grad = {a.requires_grad}", f"c.requires_grad = {c.requires_grad}"))


# --- Article 000, but note ----------------------------------------------------------------------


@CLAIMS.claim(
    "000-note-commented-edit", "note", "copying-rebinding",
    "The commented-out line `#a[1,2] = 0` is an edit of `a` that could be switched on.",
    "被注释掉的 `#a[1,2] = 0` 是一句可以打开的、修改 `a` 的代码。",
    notes={
        "en": "Not a claim: the article leaves this line commented out and never runs it. The trace "
              "shows what it would do if switched on.",
        "zh_CN": "这不是原文的说法：原文把这一行注释掉了，从未运行。“本次构建的实际结果”一列记录的是打开它之后"
                 "会发生什么。",
    })
def _note_commented_edit() -> Result:
    commented = "#a[1,2] = 0" in src.NOTE_EXAMPLE.splitlines()
    a = torch.ones(2, 2)
    a.requires_grad = True
    try:
        a[1, 2] = 0
    except (IndexError, RuntimeError) as exc:
        errors = [f"`{error_line(exc)}`"]
    else:
        return Result(HOLDS, said("`a[1, 2] = 0` runs", "`a[1, 2] = 0` 可以运行"))
    try:
        a[1, 1] = 0  # even a valid index is refused: a is a leaf that requires grad
    except RuntimeError as exc:
        errors.append(f"`a[1, 1] = 0` → `{error_line(exc)}`")
    return Result(NOT_A_CLAIM if commented else DOES_NOT_HOLD,
                  said(f"if switched on: {'; '.join(errors)}", f"取消注释后：{'；'.join(errors)}"))


CLAIMS.rows(
    Pasted(
        "000-note-print-c-comment", "note", "copying-rebinding",
        "`print(c)` in this example shows `tensor([1., 2., 3.])` (the comment on that line).",
        "这个例子里 `print(c)` 输出 `tensor([1., 2., 3.])`（该行的注释）。",
        snippet=src.NOTE_EXAMPLE, expected=src.NOTE_PRINT_C_COMMENT, prints=(0,), trace=one_line,
        notes={
            "en": "More than the format differs: `c = a.detach()` of `torch.ones(2,2)` holds four ones in two "
                  "rows, not the values 1, 2, 3 in one row, as the trace and the article's own “out” block (next "
                  "row) show. The comment has the values of the article's earlier clone and detach examples.",
            "zh_CN": "不同的不只是输出格式：`torch.ones(2,2)` 的 `c = a.detach()` 是两行、每行两个 1，"
                     "而不是一行的 1、2、3，“本次构建的实际结果”一列和原文自己的“out”（下一行）都是这样。"
                     "这行注释里的是原文前面 clone 和 detach 例子的值。",
        },
    ),
    Pasted(
        "000-note-output", "note", "copying-rebinding",
        "The “out” block of this example is what the code prints.",
        "这个例子的“out”就是代码的实际输出。",
        snippet=src.NOTE_EXAMPLE, expected=src.NOTE_OUT,
    ),
)


@CLAIMS.claim(
    "000-note-rebind-breaks-link", "note", "copying-rebinding",
    "`a = a - a.grad` gives `a` new memory, which breaks the link between `a` and `c`.",
    "`a = a - a.grad` 给 `a` 分配了新内存，破坏了原来 `a` 与 `c` 的联系。")
def _note_rebind_breaks_link() -> Result:
    run = run_clean(src.NOTE_EXAMPLE)
    a, c = run.names["a"], run.names["c"]
    shared = same_storage(a, c)
    with torch.no_grad():
        a.add_(5)
    untouched = c.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    return Result(verdict(not shared and untouched), said(
        f"`same_storage(a, c) = {shared}`; after `a.add_(5)`, `c = {c.tolist()}`",
        f"`same_storage(a, c) = {shared}`；执行 `a.add_(5)` 后，`c = {c.tolist()}`"))


# --- Article 000, also ---------------------------------------------------------------------------


@CLAIMS.claim(
    "000-add-rebind-breaks-link", "also", "copying-add-rebinding",
    "After `c = a`, `a = a + 1` makes a new `a`: `a` and `c` no longer share memory.",
    "`c = a` 之后，`a = a + 1` 产生新的 `a`：`a` 和 `c` 不再在同一个内存单元。")
def _add_rebind_breaks_link() -> Result:
    run = run_clean(src.ALSO_EXAMPLE)
    a, c = run.names["a"], run.names["c"]
    shared, apart = same_storage(a, c), bytes_apart(a, c)
    return Result(verdict(a is not c and not shared and apart), said(
        f"`(a is c) = {a is c}`; `same_storage(a, c) = {shared}`; storages share no byte: {apart}",
        f"`(a is c) = {a is c}`；`same_storage(a, c) = {shared}`；两块存储没有共同的字节：{apart}"))


CLAIMS.rows(
    Pasted(
        "000-add-output", "also", "copying-add-rebinding",
        "The “out” block shows `a` with `grad_fn=<AddBackward0>` and `c` still all ones with "
        "`requires_grad=True`.",
        "“out”中的 `a` 带 `grad_fn=<AddBackward0>`，`c` 仍全为 1 且 `requires_grad=True`。",
        snippet=src.ALSO_EXAMPLE, expected=src.ALSO_OUT,
    ),
)
