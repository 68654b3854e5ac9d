"""The claims of article 000, "Tensor copying pitfalls" (tensor 的复制避坑), first part (up to section 1,
``tensor.clone()``, whose claims from "the clone stays in the computation graph" on are
:mod:`tensorfacts.articles.copying_000_clone`), each with its check; the rest is
:mod:`tensorfacts.articles.copying_000_detach`.

Every check runs real tensors (or the article's own code, from :mod:`tensorfacts.sources.copying_000`)
on the installed torch and returns a verdict with a short trace; claims that only compare pasted
output with printed output are rows (:class:`tensorfacts.pasted.Pasted`).
"""

from __future__ import annotations

import torch

from tensorfacts.model import (
    DOES_NOT_HOLD,
    NOT_A_CLAIM,
    Registry,
    Result,
    observed_each,
    said,
    verdict,
)
from tensorfacts.pasted import Pasted, count_and_last
from tensorfacts.snippets import run_snippet
from tensorfacts.sources import copying_000 as src
from tensorfacts.tensors import bytes_apart, expanded_and_step_sliced, fills_own_memory, grad_fn_name, same_storage

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
    b = a.detach().clone()
    from_non_leaf = (a * 2).detach().clone()  # the same of a non-leaf source
    out = not b.requires_grad and b.grad_fn is None
    also = not from_non_leaf.requires_grad and from_non_leaf.grad_fn is None
    return Result(verdict(out and also), said(
        f"`a.detach().clone()`: `requires_grad = {b.requires_grad}`, `grad_fn = {grad_fn_name(b)}`; "
        f"`(a * 2).detach().clone()`: `requires_grad = {from_non_leaf.requires_grad}`, "
        f"`grad_fn = {grad_fn_name(from_non_leaf)}`",
        f"`a.detach().clone()`：`requires_grad = {b.requires_grad}`，`grad_fn = {grad_fn_name(b)}`；"
        f"`(a * 2).detach().clone()`：`requires_grad = {from_non_leaf.requires_grad}`，"
        f"`grad_fn = {grad_fn_name(from_non_leaf)}`"))


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
    "`clone()` 返回一个完全相同的张量。",
    notes={
        "en": "Read as the same values, dtype and shape, which holds. It is not identical in every respect; "
              "among the differences: a clone of a `Parameter` is a plain `Tensor` (`module.weight = "
              "module.weight.clone()` raises a `TypeError`); a clone of a tensor from `expand()` or from a slice "
              "with a step (`x[:, ::2]`) can have other strides, as its memory, its own, has no gaps and holds no "
              "element twice: `torch.ones(1, 2).expand(2, 2)`, with strides `(0, 1)`, clones to strides `(2, 1)`, "
              "and `torch.ones(2, 4)[:, ::2]`, with strides `(4, 2)`, to `(2, 1)`; a clone of `z.conj()`, or of "
              "`z.conj().imag`, has the conjugation or negation applied to its values (`is_conj()` and "
              "`is_neg()` are `False`); attributes set on the tensor in Python (`a.tag = 1`) are not copied.",
        "zh_CN": "按“数值、dtype 和形状相同”理解，这一条成立。但并非各方面都相同，比如：`Parameter` 的副本是普通的 "
                 "`Tensor`（`module.weight = module.weight.clone()` 会抛出 `TypeError`）；由 `expand()` 或"
                 "隔项切片（`x[:, ::2]`）得到的张量，副本的步长可能与原张量不同，因为副本放在自己的内存里，"
                 "元素之间没有空隙，也没有哪个元素存了两次：步长为 `(0, 1)` 的 `torch.ones(1, 2).expand(2, 2)`，"
                 "副本的步长是 `(2, 1)`；步长为 `(4, 2)` 的 `torch.ones(2, 4)[:, ::2]`，副本的步长也是 `(2, 1)`；"
                 "`z.conj()` 或 "
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
    strides = [(x.stride(), x.clone().stride()) for x in (torch.ones(1, 2).expand(2, 2), torch.ones(2, 4)[:, ::2])]
    if strides != [((0, 1), (2, 1)), ((4, 2), (2, 1))]:
        raise AssertionError(f"the note is out of date: the strides of its two examples and their clones are {strides}")
    if not all(fills_own_memory(x.clone()) and bytes_apart(x, x.clone()) for x in expanded_and_step_sliced()):
        raise AssertionError("the note is out of date: a clone of an expanded or step-sliced tensor does not "
                             "always fill memory of its own with no gaps and no element twice")
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
    "clone 出来的新张量开辟了新的内存。")
def _clone_new_memory() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0])
    c = a.clone()
    c[0] = 100
    shared, apart = same_storage(a, c), bytes_apart(a, c)
    return Result(verdict(not shared and apart and a[0].item() == 1.0), said(
        f"`same_storage(a, c) = {shared}`; storages share no byte: {apart}; `a[0] = {a[0].item()}` after `c[0] = 100`",
        f"`same_storage(a, c) = {shared}`；两块存储没有共同的字节：{apart}；"
        f"执行 `c[0] = 100` 后，`a[0] = {a[0].item()}`"))
