"""The facts behind the advice on a second trainable copy of a tensor, checked by training the copy.

Scoped facts like those of :mod:`tensorfacts.general_facts` (same registry, same scope); each trains
the copy a sentence recommends or warns against in a small SGD loop and compares the values with
the ones worked out by hand. Imported at the end of :mod:`tensorfacts.facts`, which registers them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import scoped_fact
from tensorfacts.general_facts import RAISES
from tensorfacts.meta_reasons import NEEDS_VALUES
from tensorfacts.scope import VALUE_DEVICES, Case, by_source
from tensorfacts.tensors import same_storage


def give_grad(a: torch.Tensor) -> None:
    """Give ``a`` a ``.grad`` (every standard source can hold one): by backward of ``(a * a).sum()`` when it requires
    grad (after ``retain_grad()`` when it is not a leaf), by hand when it does not."""
    if not a.requires_grad:
        a.grad = torch.ones_like(a)
        return
    if not a.is_leaf:
        a.retain_grad()
    (a * a).sum().backward()


def train_a_copy(case: Case, make_copy: Callable[[torch.Tensor], torch.Tensor], zero_first: bool = False) -> str:
    """Give ``a`` a gradient (:func:`give_grad`), make ``w = make_copy(a)`` and train ``w`` two SGD
    steps (backward, step, zero_grad; with ``zero_first``, a zero_grad before the first backward too).
    "trains apart" when ``w`` is a new leaf, each step halves it as calculus says, it had no ``.grad``
    to start with (or the loop zeroed it first), and ``a`` keeps its values and its ``.grad``;
    otherwise what went wrong."""
    _, a = case.build()
    give_grad(a)
    start, grad_before = a.detach().tolist(), a.grad.tolist()
    w = make_copy(a)
    if not (w.is_leaf and w.requires_grad) or same_storage(w, a):
        return "not a new trainable leaf"
    carried = w.grad is not None
    optimizer = torch.optim.SGD([w], lr=0.25)
    if zero_first:
        optimizer.zero_grad()
    for _ in range(2):
        (w * w).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
    if w.detach().tolist() != [v / 4 for v in start]:  # two halvings, worked out by hand
        return "wrong values (a stale .grad was added)"
    if carried and not zero_first:
        return "started with a .grad"
    if a.detach().tolist() != start or a.grad is None or a.grad.tolist() != grad_before:
        return "a changed"
    return "trains apart"


@scoped_fact("trainable-copy-in-a-loop", {
    "en": "Makes w = a.detach().clone().requires_grad_(True) from a that already has a .grad (from backward of "
          "(a * a).sum() when a requires grad, after a.retain_grad() when it is not a leaf; assigned when it does "
          "not), trains w two SGD steps and checks: w is a new leaf with no .grad yet, each step halves it "
          "as worked out by hand (no stale gradient), and a keeps its values and its .grad.",
    "zh_CN": "先让 a 有一份 .grad（a 需要梯度时由 (a * a).sum() 的反向传播得到，不是叶子张量的先调用 a.retain_grad()；"
             "不需要梯度时直接赋值），再从 a 得到 w = a.detach().clone().requires_grad_(True)，用 SGD 训练 w "
             "两步，检查：w 是新的叶子张量，还没有 .grad，每一步都按手算的那样减半（没有残留的梯度），"
             "a 的数值和 .grad 都不变。",
}, lambda case: "trains apart", devices=VALUE_DEVICES, narrower=NEEDS_VALUES)
def _trainable_copy(case: Case) -> str:
    return train_a_copy(case, lambda a: a.detach().clone().requires_grad_(True))


@scoped_fact("trainable-copy-in-a-module", {
    "en": "Sets module.w = a.detach().clone().requires_grad_(True) on a module: module.parameters() is empty. "
          "Sets module.w = torch.nn.Parameter(a.detach().clone()) on another: assigning a plain tensor over it "
          "raises TypeError, and two SGD steps built from module.parameters() halve it twice while a keeps "
          "its values.",
    "zh_CN": "在一个模块上设 module.w = a.detach().clone().requires_grad_(True)：module.parameters() 是空的。"
             "在另一个模块上设 module.w = torch.nn.Parameter(a.detach().clone())：再把普通张量赋给它会抛出 "
             "TypeError；用 module.parameters() 建的 SGD 训练两步，它两次减半，a 的数值不变。",
}, lambda case: "trains in the module", devices=VALUE_DEVICES, narrower=NEEDS_VALUES)
def train_in_a_module(case: Case) -> str:
    """A copy of ``a`` in a module, plain and wrapped in ``torch.nn.Parameter``, trained from
    ``module.parameters()``: "trains in the module", or what went wrong."""
    _, a = case.build()
    start, plain, module = a.detach().tolist(), torch.nn.Module(), torch.nn.Module()
    plain.w = a.detach().clone().requires_grad_(True)
    if list(plain.parameters()):
        return "a plain tensor became a parameter"
    module.w = torch.nn.Parameter(a.detach().clone())
    try:
        module.w = a.detach().clone().requires_grad_(True)
    except TypeError:
        optimizer = torch.optim.SGD(module.parameters(), lr=0.25)
    else:
        return "a plain tensor replaced the parameter"
    for _ in range(2):
        (module.w * module.w).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
    if module.w.detach().tolist() != [v / 4 for v in start]:  # two halvings, worked out by hand
        return "not trained as calculus says"
    return "a changed" if a.detach().tolist() != start else "trains in the module"


@scoped_fact("deepcopy-as-trainable-copy", {
    "en": "The loop of trainable-copy-in-a-loop (give a a .grad as it does, make w, train w two SGD "
          "steps), with w = copy.deepcopy(a), run twice: as it is, and with optimizer.zero_grad() before the first "
          "backward. The copy of a leaf carries a's .grad, so in the first loop the first step adds it and the "
          "values go wrong, while the second loop trains it apart; a non-leaf, and a view of a leaf taken with grad "
          "mode on, raise RuntimeError; the copy of a tensor that does not require grad is no trainable leaf; the "
          "copy of a Parameter trains apart in both loops.",
    "zh_CN": "trainable-copy-in-a-loop 的训练循环（像它那样先让 a 有一份 .grad，再得到 w，用 SGD 训练 w 两步），"
             "改用 w = copy.deepcopy(a)，跑两遍：一遍照原样，一遍在第一次反向传播之前先调用 "
             "optimizer.zero_grad()。叶子张量的副本带着 a 的 .grad，第一遍里第一步把它叠加进去，数值就错了，"
             "第二遍则能单独训练；非叶子张量和在梯度模式下取的叶子张量的视图抛出 RuntimeError；"
             "不需要梯度的张量的副本不是可训练的叶子张量；Parameter 的副本两遍都能单独训练。",
}, by_source({"leaf": ("wrong values (a stale .grad was added)", "trains apart"),
              "parameter": ("trains apart", "trains apart"),
              "non-leaf": RAISES, "view": RAISES,
              "plain": ("not a new trainable leaf",) * 2, "inference": ("not a new trainable leaf",) * 2}),
    devices=VALUE_DEVICES, narrower=NEEDS_VALUES)
def _deepcopy_as_trainable_copy(case: Case) -> tuple[str, str]:
    return train_a_copy(case, copy.deepcopy), train_a_copy(case, copy.deepcopy, zero_first=True)
