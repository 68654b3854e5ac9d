"""The claims of article 000, "Tensor copying pitfalls" (tensor 的复制避坑), first half (up to section 1,
``tensor.clone()``), each with its check; the rest is :mod:`tensorfacts.articles.copying_000_detach`.

Every check runs real tensors (or the article's own code, from :mod:`tensorfacts.sources.copying_000`)
on the installed torch and returns a verdict with a short trace; claims that only compare pasted
output with printed output are rows (:class:`tensorfacts.pasted.Pasted`).
"""

from __future__ import annotations

import warnings

import torch

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
from tensorfacts.pasted import Pasted, count_and_last, first_print, joined
from tensorfacts.snippets import compare_output, run_clean, run_snippet
from tensorfacts.sources import copying_000 as src
from tensorfacts.tensors import bytes_apart, grad_fn_name, same_storage

NUMBER = "000"
TITLE, SECTIONS = src.TITLE, src.SECTIONS
CLAIMS = Registry(NUMBER)


# --- Article 000, where the problem came from ---------------------------------------------------


@CLAIMS.claim(
    "000-loop-runs-as-printed", "origin", "copying-alias",
    "The loop that opens the article, as published, is Python that runs.",
    "开头的循环代码按发表出来的样子就能运行。",
    notes={
        "en": "Not a claim of the author's: the published snippet still starts with the blog's "
              "“// A code block” placeholder, and its indentation was lost in publishing. The site compiles the "
              "loop's lines as published, that placeholder line left out. The next row checks the loop with its "
              "indentation restored.",
        "zh_CN": "这不是作者的说法：发表出来的代码段开头还留着博客的“// A code block”占位符，缩进是在发表时丢失的。"
                 "本站编译的是发表出来的循环各行，不含那一行占位符。下一行检验的是补回缩进后的循环。",
    })
def _loop_runs_as_printed() -> Result:
    try:
        compile(src.LOOP_AS_PRINTED, "article", "exec")
    except IndentationError as exc:
        # Lost in publishing only if restoring the indentation is the one fix needed.
        restored = run_snippet(src.LOOP_RESTORED)
        if restored.error is not None:
            raise restored.error from exc
        error = f"{type(exc).__name__}: {exc.msg}"
        return Result(NOT_A_CLAIM, said(f"`{error}` (line {exc.lineno}); with the indentation restored, it runs",
                                        f"`{error}`（第 {exc.lineno} 行）；补回缩进后可以运行"))
    except SyntaxError as exc:
        error = f"{type(exc).__name__}: {exc.msg}"
        return Result(DOES_NOT_HOLD, said(f"`{error}` (line {exc.lineno})", f"`{error}`（第 {exc.lineno} 行）"))
    run = run_snippet(src.LOOP_AS_PRINTED)
    return Result(verdict(run.error is None), said("compiles", "可以编译"))


CLAIMS.rows(
    Pasted(
        "000-loop-output", "origin", "copying-alias",
        "With its indentation restored, the loop prints the article's “out” block: `a` fills with "
        "ones along with `b`.",
        "补回缩进后，循环的输出与原文的“out”一致：`b` 被逐个写成 1，`a` 也跟着变。",
        snippet=src.LOOP_RESTORED, expected=src.LOOP_OUT, trace=count_and_last,
    ),
)


@CLAIMS.claim(
    "000-data-not-new-memory", "origin", "copying-alias",
    "`b = a.data` gives `b` no memory of its own: writing into `b` changes `a`.",
    "`b = a.data` 并没有给 `b` 开辟新内存：修改 `b`，`a` 也会变。")
def _data_not_new_memory() -> Result:
    a = torch.zeros(2, 3)
    b = a.data
    b[0, 1] = 1
    shared = same_storage(a, b)
    return Result(verdict(shared and a[0, 1].item() == 1), said(
        f"`same_storage(a, b) = {shared}`; `a[0, 1] = {a[0, 1].item()}` after `b[0, 1] = 1`",
        f"`same_storage(a, b) = {shared}`；执行 `b[0, 1] = 1` 后，`a[0, 1] = {a[0, 1].item()}`"))


@CLAIMS.claim(
    "000-alias-and-data-linked", "origin", "copying-alias",
    "Whether `b = a` or `b = a.data`, `a` and `b` stay linked.",
    "无论 `b = a` 还是 `b = a.data`，`a` 和 `b` 的联系都没有断开。")
def _alias_and_data_linked() -> Result:
    a = torch.zeros(3)
    alias = a
    data = a.data
    alias[0] = 1
    data[1] = 2
    linked = a.tolist() == [1.0, 2.0, 0.0] and same_storage(a, data)
    return Result(verdict(linked and alias is a), said(
        f"`(b is a) = {alias is a}`; after both writes, `a = {a.tolist()}`",
        f"`(b is a) = {alias is a}`；两次写入后，`a = {a.tolist()}`"))


# --- Article 000, the safest way -----------------------------------------------------------------


@CLAIMS.claim(
    "000-detach-clone-leaves-graph", "safest", "copying-safe-copy",
    "`a.detach().clone()` leaves the computation graph.",
    "`a.detach().clone()` 脱离了计算图。")
def _detach_clone_leaves_graph() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = (a * 2).detach().clone()
    out = not b.requires_grad and b.grad_fn is None
    return Result(verdict(out),
                  observed_each(f"requires_grad = {b.requires_grad}", f"grad_fn = {grad_fn_name(b)}"))


@CLAIMS.claim(
    "000-detach-clone-own-memory", "safest", "copying-safe-copy",
    "`a.detach().clone()` shares no memory with `a`.",
    "`a.detach().clone()` 与 `a` 不共享内存。")
def _detach_clone_own_memory() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.detach().clone()
    b[0] = 100
    shared, apart = same_storage(a, b), bytes_apart(a, b)
    return Result(verdict(not shared and apart and a[0].item() == 1.0), said(
        f"`same_storage(a, b) = {shared}`; storages share no byte: {apart}; `a[0] = {a[0].item()}` after `b[0] = 100`",
        f"`same_storage(a, b) = {shared}`；两块存储没有共同的字节：{apart}；"
        f"执行 `b[0] = 100` 后，`a[0] = {a[0].item()}`"))


# --- Article 000, 1: tensor.clone() --------------------------------------------------------------


@CLAIMS.claim(
    "000-clone-identical", "clone", "copying-clone",
    "`clone()` returns a tensor identical to the original.",
    "`clone()` 返回一个完全相同的 tensor。",
    notes={
        "en": "Read as the same values, dtype and shape, which holds. It is not identical in every respect; "
              "among the differences: a clone of a `Parameter` is a plain `Tensor` (`module.weight = "
              "module.weight.clone()` raises a `TypeError`); a clone of a tensor from `expand()` or from a slice "
              "with a step (`x[:, ::2]`) is contiguous, with other strides; a clone of `z.conj()`, or of "
              "`z.conj().imag`, has the conjugation or negation applied to its values (`is_conj()` and "
              "`is_neg()` are `False`); attributes set on the tensor in Python (`a.tag = 1`) are not copied.",
        "zh_CN": "按“数值、dtype 和形状相同”理解，这一条成立。但并非各方面都相同，比如：`Parameter` 的副本是普通的 "
                 "`Tensor`（`module.weight = module.weight.clone()` 会抛出 `TypeError`）；由 `expand()` 或"
                 "隔项切片（`x[:, ::2]`）得到的张量，副本是连续的，步长与原张量不同；`z.conj()` 或 "
                 "`z.conj().imag` 的副本已把共轭或取负算进数值，`is_conj()` 和 `is_neg()` 都为 `False`，即不再带"
                 "共轭位（conjugate bit）或负号位（negative bit）；在 Python 里给张量设置的属性（`a.tag = 1`）"
                 "不会被复制。",
    },
    qualifiers={"en": "read as: same values, dtype and shape", "zh_CN": "按数值、dtype 和形状相同理解"})
def _clone_identical() -> Result:
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    c = a.clone()
    module = torch.nn.Module()  # no random initialisation: the other checks' draws stay as they were
    module.weight = torch.nn.Parameter(torch.ones(2))
    if type(module.weight.clone()) is not torch.Tensor:
        raise AssertionError("the note is out of date: a clone of a Parameter is no longer a plain Tensor")
    try:
        module.weight = module.weight.clone()
    except TypeError:
        pass
    else:
        raise AssertionError("the note is out of date: assigning a clone of a Parameter to a module no longer raises")
    for x in (torch.ones(1, 2).expand(2, 2), torch.ones(2, 4)[:, ::2]):
        if x.is_contiguous() or not x.clone().is_contiguous() or x.clone().stride() == x.stride():
            raise AssertionError("the note is out of date: a clone of an expanded or step-sliced tensor "
                                 "is no longer contiguous with other strides")
    z = torch.tensor([1 + 1j, 2 - 1j]).conj()
    if not z.is_conj() or z.clone().is_conj() or z.clone().tolist() != z.tolist():
        raise AssertionError("the note is out of date: a clone of z.conj() no longer applies the conjugation")
    neg = torch.tensor([1 + 2j]).conj().imag
    if not neg.is_neg() or neg.clone().is_neg() or neg.clone().tolist() != neg.tolist():
        raise AssertionError("the note is out of date: a clone of z.conj().imag no longer applies the negation")
    tagged = torch.ones(2)
    tagged.tag = 1
    if hasattr(tagged.clone(), "tag"):
        raise AssertionError("the note is out of date: clone() now copies attributes set in Python")
    same = torch.equal(a, c) and c.dtype == a.dtype and c.shape == a.shape
    return Result(verdict(same), observed_each(f"torch.equal(a, c) = {torch.equal(a, c)}", f"dtype = {c.dtype}"))


@CLAIMS.claim(
    "000-clone-new-memory", "clone", "copying-clone",
    "The clone gets new memory of its own.",
    "clone 出来的新 tensor 开辟了新的内存。")
def _clone_new_memory() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0])
    c = a.clone()
    c[0] = 100
    shared, apart = same_storage(a, c), bytes_apart(a, c)
    return Result(verdict(not shared and apart and a[0].item() == 1.0), said(
        f"`same_storage(a, c) = {shared}`; storages share no byte: {apart}; `a[0] = {a[0].item()}` after `c[0] = 100`",
        f"`same_storage(a, c) = {shared}`；两块存储没有共同的字节：{apart}；"
        f"执行 `c[0] = 100` 后，`a[0] = {a[0].item()}`"))


@CLAIMS.claim(
    "000-clone-in-graph", "clone", "copying-clone",
    "The clone stays in the computation graph.",
    "clone 出来的新 tensor 仍然留在计算图中。")
def _clone_in_graph() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    if c.requires_grad:  # otherwise backward() would raise: nothing to flow back
        (c * 3).sum().backward()
    flows = a.grad is not None and a.grad.tolist() == [3.0, 3.0, 3.0]
    grad = a.grad.tolist() if a.grad is not None else None
    return Result(verdict(c.grad_fn is not None and flows), said(
        f"`c.grad_fn = {grad_fn_name(c)}`; after `(c * 3).sum().backward()`, `a.grad = {grad}`",
        f"`c.grad_fn = {grad_fn_name(c)}`；执行 `(c * 3).sum().backward()` 后，`a.grad = {grad}`"))


@CLAIMS.claim(
    "000-clone-not-leaf", "clone", "copying-clone",
    "The clone can no longer take part in gradient computation as a leaf: it is not a leaf, "
    "and `backward()` leaves its `.grad` empty.",
    "这个新 tensor 不能再作为叶子节点参与梯度运算：它不是叶子，`backward()` 后它的 `.grad` 为空。")
def _clone_not_leaf() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.clone()
    if c.requires_grad:
        (c**2).sum().backward()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")  # reading .grad of a non-leaf warns; that is not this claim
        grad = c.grad
    return Result(verdict(not c.is_leaf and grad is None),
                  observed_each(f"c.is_leaf = {c.is_leaf}", f"c.grad = {grad}"))


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
    differing = [p for p in printed if compare_output(src.CLONE_COMMENTS[1], p) != HOLDS]
    if differing:
        return Result(OUTPUT_DIFFERS, differing[0])
    return Result(HOLDS, printed[0])


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
              "does not require grad.",
        "zh_CN": "仅在 `torch.inference_mode()` 之外的梯度模式（grad mode）下如此：在 `torch.no_grad()` 下，"
                 "或在 `torch.inference_mode()` 里（即使又用了 `torch.enable_grad()`），需要梯度的张量 clone "
                 "出来的副本不需要梯度。",
    },
    qualifiers={"en": "in grad mode outside torch.inference_mode() only",
                "zh_CN": "仅在 torch.inference_mode() 之外的梯度模式下"})
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
    follows = all(clone == flag for flag, clone in pairs)
    return Result(verdict(follows and not under_no_grad and not under_inference and grad_mode_on
                          and not under_inference_enabled), said(
        "; ".join(f"`a.requires_grad = {flag}`: `a.clone().requires_grad = {clone}`" for flag, clone in pairs)
        + f"; under `torch.no_grad()`, `a.requires_grad = True`: `a.clone().requires_grad = {under_no_grad}`"
        + f"; under `torch.inference_mode()`: `{under_inference}`"
        + f"; inside `torch.inference_mode()` with `torch.enable_grad()` (`torch.is_grad_enabled() = {grad_mode_on}`): "
          f"`{under_inference_enabled}`",
        "；".join(f"`a.requires_grad = {flag}` 时 `a.clone().requires_grad = {clone}`" for flag, clone in pairs)
        + f"；在 `torch.no_grad()` 下，`a.requires_grad = True` 时 `a.clone().requires_grad = {under_no_grad}`"
        + f"；在 `torch.inference_mode()` 下为 `{under_inference}`"
        + f"；在 `torch.inference_mode()` 里又用 `torch.enable_grad()` 时（`torch.is_grad_enabled() = {grad_mode_on}`）"
          f"为 `{under_inference_enabled}`"))


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
