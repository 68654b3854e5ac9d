"""The claims of article 004, ".data vs. detach()" (.data 与 detach()), each with its check.

Every check runs real tensors (or the article's own code, from
:mod:`tensorfacts.sources.data_vs_detach_004`) on the installed torch and returns a verdict with a
short trace; the claim that only compares pasted output with printed output is a row.
"""

from __future__ import annotations

import inspect

import torch

from tensorfacts.facts import run_fact
from tensorfacts.model import DOES_NOT_HOLD, HOLDS, OUTPUT_DIFFERS, Registry, Result, said, verdict
from tensorfacts.pasted import Pasted
from tensorfacts.snippets import Run, lines, pasted_output, run_snippet
from tensorfacts.sources import data_vs_detach_004 as src
from tensorfacts.tensors import error_line, grad_fn_name, same_storage

NUMBER = "004"
TITLE, SECTIONS = src.TITLE, src.SECTIONS
CLAIMS = Registry(NUMBER)


# --- Article 004, introduction -------------------------------------------------------------------


@CLAIMS.claim(
    "004-both-separate", "intro", "data-vs-detach-comparison",
    "Both `.data` and `.detach()` separate a tensor from the graph it was computed in.",
    "`.data` 和 `.detach()` 都可以把某个张量从原有的计算图中分离出来。")
def _both_separate() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    results = {}
    for name, t in (("data", out.data), ("detach()", out.detach())):
        results[name] = (not t.requires_grad, t.grad_fn is None, t.is_leaf, grad_fn_name(t))
    ok = all(all(flags[:3]) for flags in results.values())
    shown = [f"`{n}: requires_grad={not f[0]}, grad_fn={f[3]}`" for n, f in results.items()]
    return Result(verdict(ok), said("; ".join(shown), "；".join(shown)))


# --- Article 004, data ---------------------------------------------------------------------------


@CLAIMS.claim(
    "004-data-shares", "data", "data-vs-detach-data",
    "`c = out.data` shares its data with `out`.",
    "`c = out.data` 与 `out` 共享同样的数据。")
def _data_shares() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.data
    shared = same_storage(out, c)
    return Result(verdict(shared), f"same_storage(out, c) = {shared}")


@CLAIMS.claim(
    "004-data-not-differentiable", "data", "data-vs-detach-data",
    "The tensor from `.data` cannot be differentiated: its `requires_grad` is `False`.",
    "通过 `.data` 得到的张量不可求导：`requires_grad` 为 `False`。")
def _data_not_differentiable() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a.sigmoid().data
    return Result(verdict(not c.requires_grad), f"c.requires_grad = {c.requires_grad}")


@CLAIMS.claim(
    "004-data-edit-propagates", "data", "data-vs-detach-data",
    "`c.zero_()` on `c = out.data` changes `out` too.",
    "对 `c = out.data` 执行 `c.zero_()`，原来的 `out` 也会改变。")
def _data_edit_propagates() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.data
    c.zero_()
    return Result(verdict(out.tolist() == [0.0, 0.0, 0.0]), said(
        f"after `c.zero_()`, `out = {out.detach().tolist()}`",
        f"执行 `c.zero_()` 后，`out = {out.detach().tolist()}`"))


@CLAIMS.claim(
    "004-data-backward-silent", "data", "data-vs-detach-data",
    "After the edit, `out.sum().backward()` raises no error, but `a.grad` is wrong.",
    "修改之后，`out.sum().backward()` 不会报错，但 `a.grad` 的结果并不正确。")
def _data_backward_silent() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    right = (out * (1 - out)).detach()  # d sigmoid / da, before any edit
    out.data.zero_()
    try:
        out.sum().backward()
    except RuntimeError as exc:
        return Result(DOES_NOT_HOLD, error_line(exc))
    wrong = not torch.allclose(a.grad, right)
    return Result(verdict(wrong), wrong_gradient(a.grad.tolist(), [round(v, 4) for v in right.tolist()], silent=True))


CLAIMS.rows(
    Pasted(
        "004-data-output", "data", "data-vs-detach-data",
        "The example prints `False`, `tensor([0., 0., 0.])`, `True`, "
        "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)`, the dashes and `tensor([0., 0., 0.])`.",
        "例子输出 `False`、`tensor([0., 0., 0.])`、`True`、"
        "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)`、分隔线和 `tensor([0., 0., 0.])`。",
        snippet=src.DATA_EXAMPLE, expected=src.DATA_OUT,
    ),
)


@CLAIMS.claim(
    "004-data-untracked", "data-points", "data-vs-detach-data",
    "autograd cannot track a change made through `.data`: it is not detected, yet the original "
    "has changed.",
    "通过 `.data` 做的修改自动求导（autograd）追踪不到：修改不会被检测到，但原始数据已经变了。")
def _data_untracked() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    before = out._version
    out.data.mul_(2)
    after = out._version
    changed = not torch.allclose(out.detach(), a.detach().sigmoid())
    return Result(verdict(before == after and changed), said(
        f"`out._version`: {before} → {after}; values changed: `{changed}`",
        f"`out._version`：{before} → {after}；数值改变：`{changed}`"))


# --- Article 004, detach() ----------------------------------------------------------------------


@CLAIMS.claim(
    "004-detach-shares", "detach", "data-vs-detach-detach",
    "`c = out.detach()` shares its data with `out`, cannot be differentiated, and "
    "`c.zero_()` changes `out` too.",
    "`c = out.detach()` 与 `out` 共享数据、不可求导，`c.zero_()` 也会改变 `out`。")
def _detach_004_shares() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    c = out.detach()
    shared = same_storage(out, c)
    c.zero_()
    zeroed = out.detach().tolist() == [0.0, 0.0, 0.0]
    return Result(verdict(shared and not c.requires_grad and zeroed), said(
        f"`same_storage(out, c) = {shared}`; `c.requires_grad = {c.requires_grad}`; "
        f"after `c.zero_()`, `out = {out.detach().tolist()}`",
        f"`same_storage(out, c) = {shared}`；`c.requires_grad = {c.requires_grad}`；"
        f"执行 `c.zero_()` 后，`out = {out.detach().tolist()}`"))


@CLAIMS.claim(
    "004-detach-backward-error", "detach", "data-vs-detach-detach",
    "After the edit, `out.sum().backward()` raises an error instead of computing a wrong gradient.",
    "修改之后，`out.sum().backward()` 会报错，而不是算出错误的梯度。")
def _detach_004_backward_error() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    out.detach().zero_()
    try:
        out.sum().backward()
    except RuntimeError:
        return Result(HOLDS, said(f"`RuntimeError`; `out._version = {out._version}`",
                                  f"`RuntimeError`；`out._version = {out._version}`"))
    return Result(DOES_NOT_HOLD, said(f"no error; `a.grad = {a.grad.tolist()}`",
                                      f"没有报错；`a.grad = {a.grad.tolist()}`"))


def _raise_unless_at_backward(run: Run) -> None:
    """An error before the example reached ``backward()`` is a failure of the check itself."""
    if run.error is not None and len(run.prints) < len(lines(src.DETACH_004_OUT)):
        raise run.error


@CLAIMS.claim(
    "004-detach-output", "detach", "data-vs-detach-detach",
    "Before the error, the example prints `False`, `tensor([0., 0., 0.])`, `True`, "
    "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)` and the dashes.",
    "报错之前，例子输出 `False`、`tensor([0., 0., 0.])`、`True`、"
    "`tensor([0., 0., 0.], grad_fn=<SigmoidBackward>)` 和分隔线。")
def _detach_004_output() -> Result:
    run = run_snippet(src.DETACH_004_EXAMPLE)
    _raise_unless_at_backward(run)
    if run.error is None:
        return Result(OUTPUT_DIFFERS, said("no error at `backward()`", "`backward()` 没有报错"))
    return pasted_output(src.DETACH_004_OUT, run)


@CLAIMS.claim(
    "004-detach-error-message", "detach", "data-vs-detach-detach",
    "The error reads `RuntimeError: one of the variables needed for gradient computation has "
    "been modified by an inplace operation`.",
    "报错信息是 `RuntimeError: one of the variables needed for gradient computation has been "
    "modified by an inplace operation`。")
def _detach_004_error_message() -> Result:
    run = run_snippet(src.DETACH_004_EXAMPLE)
    _raise_unless_at_backward(run)
    if run.error is None:
        return Result(DOES_NOT_HOLD, said("no error", "没有报错"))
    got = f"{type(run.error).__name__}: {run.error}"
    if got == src.DETACH_004_ERROR:
        return Result(HOLDS, got)
    if got.startswith(src.DETACH_004_ERROR):
        rest = got[len(src.DETACH_004_ERROR):].split(";")[0]
        return Result(OUTPUT_DIFFERS, said(f"`… inplace operation{rest}; …` (continues)",
                                           f"`… inplace operation{rest}; …`（后略）"))
    return Result(OUTPUT_DIFFERS, got.split(";")[0])


@CLAIMS.claim(
    "004-detach-like-data", "detach-points", "data-vs-detach-detach",
    "In sharing data and in `requires_grad = False`, `.detach()` is the same as `.data`.",
    "在共享数据和 `requires_grad = False` 这两点上，`.detach()` 与 `.data` 是一样的。")
def _detach_like_data() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    d, c = out.data, out.detach()
    facts = {
        "data": (same_storage(out, d), d.requires_grad),
        "detach()": (same_storage(out, c), c.requires_grad),
    }
    same = facts["data"] == facts["detach()"] == (True, False)
    shown = [f"`{n}: same_storage={f[0]}, requires_grad={f[1]}`" for n, f in facts.items()]
    return Result(verdict(same), said("; ".join(shown), "；".join(shown)))


# --- Article 004, summary of the differences -----------------------------------------------------


@CLAIMS.claim(
    "004-both-in-place", "summary", "data-vs-detach-comparison",
    "`.data` and `.detach()` are both in-place operations: read as meant, both work on the original "
    "data, without copying it.",
    "`.data` 和 `.detach()` 都是“原位操作 inplace operation”：按作者想表达的意思，"
    "两者都直接作用于原来的数据，不做复制。",
    notes={
        "en": "Judged by its meaning, which holds. The word itself is wrong in PyTorch's sense: in-place "
              "operations such as `zero_()` and `mul_()` change their tensor's values and move its version "
              "counter, while taking `.data` or `.detach()` leaves `out` exactly as it was; only a later "
              "in-place edit through the result changes it.",
        "zh_CN": "按本意判断，这一条成立。但这个词本身用得不对：在 PyTorch 里，"
                 "`zero_()`、`mul_()` 这样的原地操作会改变张量本身的数值，并推进它的版本计数器；"
                 "而取 `.data` 或 `.detach()` 不会改变 `out`，"
                 "只有之后通过结果做的原地操作才会改变它。",
    },
    qualifiers={"en": "in the author's meaning only", "zh_CN": "仅就作者想表达的意思而言"})
def _both_in_place() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = a.sigmoid()
    values = out.detach().clone()
    results = {"data": out.data, "detach()": out.detach()}
    if out._version != 0 or out.grad_fn is None or not torch.equal(out.detach(), values):
        raise AssertionError("the note is out of date: taking .data or .detach() changed out")
    edited = values.clone()
    edited.mul_(2)
    edited.zero_()
    if edited._version != 2 or edited.any():
        raise AssertionError("the note is out of date: mul_() and zero_() no longer change values and move _version")
    no_copy = all(same_storage(out, t) and t is not out for t in results.values())
    return Result(verdict(no_copy), said(
        f"both share the storage of `out`: `{no_copy}`; `out._version` stays {out._version}; "
        f"`out.grad_fn = {grad_fn_name(out)}`",
        f"两者都与 `out` 共享存储：`{no_copy}`；`out._version` 仍为 {out._version}；"
        f"`out.grad_fn = {grad_fn_name(out)}`"))


@CLAIMS.claim(
    "004-attribute-vs-method", "summary", "data-vs-detach-comparison",
    "`.data` is an attribute, `.detach()` is a method.",
    "`.data` 是一个属性，`.detach()` 是一个方法。")
def _attribute_vs_method() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    data_is_tensor = isinstance(a.data, torch.Tensor)  # read without a call
    detach_is_bound_method = callable(a.detach) and not isinstance(a.detach, torch.Tensor)
    static = inspect.getattr_static(torch.Tensor, "data")
    descriptor = hasattr(static, "__get__") and not callable(static)
    ok = data_is_tensor and detach_is_bound_method and descriptor
    shown = (f"`type(Tensor.data) = {type(static).__name__}`", f"`type(a.detach) = {type(a.detach).__name__}`")
    return Result(verdict(ok), said("; ".join(shown), "；".join(shown)))


def wrong_gradient(grad: list[float], right: list[float], silent: bool) -> dict[str, str]:
    """``a.grad`` beside the true gradient, and (``silent``) that backward raised no error."""
    return said(f"`a.grad = {grad}`; true gradient `{right}`" + ("; no error" if silent else ""),
                f"`a.grad = {grad}`；正确的梯度是 `{right}`" + ("；没有报错" if silent else ""))


@CLAIMS.claim(
    "004-data-unsafe", "summary", "data-vs-detach-comparison",
    "`.data` is unsafe: an edit through it can leave a wrong gradient with no error.",
    "`.data` 是不安全的：通过它修改数据，可能得到错误的梯度却没有任何报错。")
def _data_unsafe() -> Result:
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * a  # saves a for backward
    a.data.mul_(10)
    try:
        y.sum().backward()
    except RuntimeError as exc:
        return Result(DOES_NOT_HOLD, error_line(exc))
    right = [2.0, 4.0, 6.0]
    return Result(verdict(a.grad.tolist() != right), wrong_gradient(a.grad.tolist(), right, silent=True))


@CLAIMS.claim(
    "004-detach-safe", "summary", "data-vs-detach-comparison",
    "`.detach()` is safe: autograd catches an edit made through it.",
    "`.detach()` 是安全的：通过它做的修改会被自动求导发现。",
    notes={
        "en": "Not as stated: at `backward()`, autograd detects an in-place edit only when the edited tensor shares "
              "its version counter with a tensor autograd saved before the edit, such as the output `sigmoid` saves "
              "in the article's example. Views and `.detach()` share their source's counter, in either direction "
              "and through any chain of them: the saved tensor, its base, a view of either, the tensor it was "
              "detached from, and a `.detach()` or a view of any of these all share it (after "
              "`loss = (base * base).sum()`, `base[1:].detach().mul_(10)` and `base.detach()[1:].mul_(10)` are "
              "caught; when the loss saved `d = base.detach()`, so is `base.mul_(10)` under `torch.no_grad()`). "
              "The same holds for the result of every operation torch documents as a view ([the first table of the "
              "view operations page](ref:views-documented)), taken with grad mode on, under `torch.no_grad()` or "
              "under `torch.inference_mode()`, and for `view(dtype)` taken outside `torch.inference_mode()`. "
              "The public `unsafe_` functions of torch, `torch.unsafe_split()`, `torch.unsafe_split_with_sizes()` "
              "and `torch.unsafe_chunk()` (and the tensor methods of the same names), are outside it: their outputs "
              "share memory with the source, as `split()`'s views do, but not its counter, so after "
              "`loss = (base * base).sum()` an edit through `base.detach().unsafe_split(2)[1]` goes unnoticed and "
              "the gradient is wrong. `view(dtype)` taken under `torch.inference_mode()` is outside it too: of a "
              "tensor that is not an inference tensor it returns an inference tensor, which has no version counter, "
              "so after `loss = (base * base).sum()` an edit made inside the mode through "
              "`base.detach().view(torch.float32)` goes unnoticed and the gradient is wrong. Other routes to the "
              "memory are outside it too, among them `.data`, `.numpy()` and the others of [the version-counter "
              "page's table](ref:questions-version-counter): a write "
              "through `.detach().numpy()` after the save moves no version counter, goes unnoticed, and the "
              "gradient can be wrong (it is after `loss = (a * a).sum()`). When autograd saved the tensor under "
              "`torch.autograd.graph.save_on_cpu()`, or under saved tensors hooks that pack and unpack it unchanged, "
              "even an edit through `.detach()` itself after the save goes unnoticed, and the gradient can be wrong. "
              "An edit through `.detach()` made before the tensor "
              "is saved goes unnoticed too, but needs no catching: backward treats it as a constant, as it would "
              "the same edit under `torch.no_grad()` (for a leaf, the gradient at the edited values). "
              "`.detach()` is safer than `.data`, not safe.",
        "zh_CN": "按原话不成立：执行 `backward()` 时，只有当被修改的张量与自动求导在修改之前保存的某个张量"
                 "共享版本计数器时，原地修改才会被发现，比如原文例子里 `sigmoid` 保存的输出。"
                 "视图和 `.detach()` 都与源张量共享计数器，不分方向，也不论经过多少层：被保存的张量、"
                 "它的基张量、这两者的视图、它从中 detach 出来的那个张量，"
                 "以及其中任何一个的 `.detach()` 或视图，"
                 "全都共享这个计数器（`loss = (base * base).sum()` 之后，`base[1:].detach().mul_(10)` 和 "
                 "`base.detach()[1:].mul_(10)` 都会被发现；损失保存的是 `d = base.detach()` 时，在 "
                 "`torch.no_grad()` 下执行 `base.mul_(10)` 也会被发现）。torch 文档列为视图的每一种操作"
                 "（[“视图操作一览”那一页的第一张表](ref:views-documented)）给出的视图，"
                 "无论是在梯度模式下、`torch.no_grad()` 下还是 `torch.inference_mode()` 下取的，"
                 "以及在 `torch.inference_mode()` 之外由 `view(dtype)` 给出的视图，也都共享这个计数器。"
                 "torch 的公开 `unsafe_` 函数，即 "
                 "`torch.unsafe_split()`、`torch.unsafe_split_with_sizes()` 和 `torch.unsafe_chunk()`"
                 "（以及同名的张量方法），不在此列：它们的输出像 `split()` 的视图一样与源张量共享内存，"
                 "却不共享它的计数器，所以 `loss = (base * base).sum()` 之后，经由 "
                 "`base.detach().unsafe_split(2)[1]` 做的修改不会被发现，梯度是错的。在 `torch.inference_mode()` 下"
                 "取的 `view(dtype)` 也不在此列：对非推理张量调用它，返回的是推理张量，推理张量没有版本计数器，"
                 "所以 `loss = (base * base).sum()` 之后，在这个模式里经由 `base.detach().view(torch.float32)` "
                 "做的修改不会被发现，梯度是错的。通往这块内存的其他途径"
                 "也不在此列，其中包括 `.data`、`.numpy()` 以及 "
                 "[“版本计数器”那一页表中的其余途径](ref:questions-version-counter)："
                 "保存之后通过 `.detach().numpy()` "
                 "写入不会推进任何版本计数器，不会被发现，"
                 "梯度可能是错的（`loss = (a * a).sum()` 之后就是错的）。"
                 "如果自动求导是在 `torch.autograd.graph.save_on_cpu()` 下，或在原样打包、原样解包的"
                 "保存张量的钩子（saved tensors hooks）下保存这个张量的，那么保存之后即使经由 `.detach()` "
                 "本身做的修改也不会被发现，梯度可能是错的。"
                 "在张量被保存之前经由 `.detach()` 做的修改也不会被发现，但这本就无须发现：反向传播把它当作常数，"
                 "与在 `torch.no_grad()` 下做同样的修改结果相同（对叶子张量而言，就是按修改后的数值算出的梯度）。"
                 "`.detach()` 比 `.data` 安全，但并非绝对安全。",
    })
def _detach_safe() -> Result:
    # Saved, then written through .detach().numpy(): the version counter does not move.
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (a * a).sum()  # saves a; its gradient is 2 * a = [2, 4, 6]
    right = (2 * a.detach()).tolist()
    array = a.detach().numpy()
    array *= 10
    try:
        loss.backward()
    except RuntimeError as exc:
        return Result(HOLDS, error_line(exc))
    if a.grad.tolist() == right:
        return Result(HOLDS, wrong_gradient(a.grad.tolist(), right, silent=False))
    for fact_id in ("version-counter-shared-by-views-and-detach", "unsafe-split-shares-memory-not-counter",
                    "view-dtype-under-inference-mode-uncounted", "counter-bypass-edits-silent",
                    "detach-edit-before-save", "saved-tensor-hooks-hide-edit"):
        checked = run_fact(fact_id)
        if not checked.holds:  # the note says so: it must stay true
            raise AssertionError(f"the note is out of date: {checked.trace}")
    return Result(DOES_NOT_HOLD, said(
        f"write through `.detach().numpy()` after the save: `a.grad = {a.grad.tolist()}`; "
        f"the loss's gradient is `{right}`; no error",
        f"保存之后通过 `.detach().numpy()` 写入：`a.grad = {a.grad.tolist()}`；"
        f"这个损失的梯度是 `{right}`；没有报错"))
