"""Named facts on custom ``torch.autograd.Function`` classes: autograd checks a tensor saved with
``ctx.save_for_backward`` only when ``backward`` reads ``ctx.saved_tensors``, and ``backward()`` does not release
a tensor kept as an attribute of ``ctx``. Registered on import by :mod:`tensorfacts.facts`, whose docstring says
what a fact is.
"""

from __future__ import annotations

import weakref

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import VERSION_ERROR, backward_error, mul_under_no_grad


class _SavedReadBack(torch.autograd.Function):
    """Triples x, saving x with ``ctx.save_for_backward``; its backward reads ``ctx.saved_tensors``, though the
    gradient needs no saved value."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 3

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 (reading them back is what autograd checks)
        return 3 * grad


class _SavedNeverRead(_SavedReadBack):
    """The same, with a backward that never reads ``ctx.saved_tensors``."""

    @staticmethod
    def backward(ctx, grad):
        return 3 * grad


#: The in-place edits of a saved leaf ``a`` that the unread-saved-tensors fact runs, by name.
_UNREAD_EDITS = {
    "a.mul_(10) under no_grad": mul_under_no_grad,
    "a.detach().mul_(10)": lambda a: a.detach().mul_(10),
}


@fact("unread-saved-tensors-escape-version-check", {
    "en": "Triples a with two custom torch.autograd.Function classes that both save a with ctx.save_for_backward, "
          "edits a in place (a._version becomes 1), runs backward, once for each edit, a.mul_(10) under "
          "torch.no_grad() and a.detach().mul_(10): the one whose backward reads ctx.saved_tensors raises the "
          "version-counter error; the one whose backward never reads ctx.saved_tensors raises nothing and gives "
          "a.grad = [3, 3, 3].",
    "zh_CN": "用两个自定义的 torch.autograd.Function 计算 a 的三倍，两者都用 ctx.save_for_backward 保存 a；"
             "原地修改 a（a._version 变成 1）后反向传播，两种修改各做一次：在 torch.no_grad() 下执行 a.mul_(10)，"
             "以及 a.detach().mul_(10)。backward 读取 ctx.saved_tensors 的那个报版本计数器（version counter）"
             "错误；backward 从不读取 ctx.saved_tensors 的那个不报错，a.grad 为 [3, 3, 3]。",
})
def _unread_saved_tensors_escape_version_check() -> Fact:
    """Autograd checks a saved tensor's version when backward reads it back: a custom Function whose backward
    never reads ``ctx.saved_tensors`` raises nothing after an edit of what it saved."""
    outcomes = {}
    for edit_name, edit in _UNREAD_EDITS.items():
        for function in (_SavedReadBack, _SavedNeverRead):
            a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            loss = function.apply(a).sum()
            edit(a)
            outcomes[edit_name, function.__name__] = (a._version, backward_error(loss),
                                                      a.grad.tolist() if a.grad is not None else None)
    counted = all(version == 1 for version, _, _ in outcomes.values())
    caught = all(VERSION_ERROR in outcomes[edit_name, "_SavedReadBack"][1] for edit_name in _UNREAD_EDITS)
    unnoticed = all(outcomes[edit_name, "_SavedNeverRead"][1:] == ("", [3.0, 3.0, 3.0])
                    for edit_name in _UNREAD_EDITS)
    return Fact(counted and caught and unnoticed,
                "; ".join(f"{edit_name}, {name}: _version {version}, backward {'raises' if error else 'no error'}, "
                          f"a.grad = {grad}" for (edit_name, name), (version, error, grad) in outcomes.items()))


class _KeepsInput(torch.autograd.Function):
    """Computes w * x, keeping x as ``ctx.x``."""

    @staticmethod
    def forward(ctx, w, x):
        ctx.x = x
        return w * x

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.x, None


class _SavesInput(torch.autograd.Function):
    """Computes w * x, saving x with ``ctx.save_for_backward``."""

    @staticmethod
    def forward(ctx, w, x):
        ctx.save_for_backward(x)
        return w * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x, None


@fact("ctx-attribute-outlives-backward", {
    "en": "Runs three training steps with each of two custom torch.autograd.Function classes computing out = w * x "
          "for a fresh x each step, one saving x with ctx.save_for_backward, one keeping it as ctx.x = x: each step "
          "runs backward() on loss = (out * out).mean(), then total = total + loss. Once the loop's names are "
          "deleted, weak references show every x freed for the first class, all three alive for the second "
          "while total exists, and freed once total is deleted.",
    "zh_CN": "用两个自定义的 torch.autograd.Function 各跑三步训练，每步用新的 x 计算 out = w * x，一个用 "
             "ctx.save_for_backward 保存 x，另一个用 ctx.x = x 把它存成属性：每步对 loss = (out * out).mean() "
             "调用 backward()，再执行 total = total + loss。删掉循环里的名字之后，弱引用显示：第一个类的每个 x "
             "都已释放；第二个类的三个 x 在 total 还在时都活着，删掉 total 后才释放。",
})
def _ctx_attribute_outlives_backward() -> Fact:
    """backward() releases what a node saved, not what a custom Function keeps on ctx: a running total that keeps
    the nodes keeps those tensors."""
    alive = {}
    for function in (_SavesInput, _KeepsInput):
        w = torch.ones(3, requires_grad=True)
        total, refs = 0, []
        for step in range(3):
            x = torch.full((3,), float(step + 1))
            out = function.apply(w, x)
            loss = (out * out).mean()
            loss.backward()
            total = total + loss
            refs.append(weakref.ref(x))
        del x, out, loss
        with_total = sum(ref() is not None for ref in refs)
        del total
        alive[function.__name__] = (with_total, sum(ref() is not None for ref in refs))
    return Fact(alive["_SavesInput"] == (0, 0) and alive["_KeepsInput"] == (3, 0),
                "; ".join(f"{name}: x alive with total {kept} of 3, after del total {left} of 3"
                          for name, (kept, left) in alive.items()))
