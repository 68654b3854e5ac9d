"""Named fact on a view taken with grad mode off (under ``torch.no_grad()``, ``torch.inference_mode()`` or
``torch.set_grad_enabled(False)``), or inside ``torch.inference_mode()`` with ``torch.enable_grad()``, of a tensor that
requires grad, once the view or its base has been edited in place (an optimizer step does that to a parameter, under
``torch.no_grad()``): autograd no longer takes it as a leaf, and its clone taken with grad mode on raises. It bounds
the sentences of the clone page, the safe copy page and the copying part's introduction that call
such a view a leaf whose clone passes no gradient (:mod:`tensorfacts.no_grad_view_facts`). Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import itertools

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, enough, fact, stopped
from tensorfacts.no_grad_view_facts import GRAD_VIEWS, OFF_MODES

#: The words every error of the fact holds, whether the view was taken in no_grad or in inference mode.
EDITED = "its base or another view of its base has been modified inplace"
#: The rows whose view refuses an in-place write of its own (more than one element shares a memory location).
EXPANDED = ("a.expand(2, 3, 4)", "a.expand_as(torch.empty(2, 3, 4))")
#: What is called on the view u right after it is taken, before the edit, by name.
CALLS = {"nothing": lambda u: u, "u.requires_grad_()": lambda u: u.requires_grad_(),
         "torch.asarray(u, requires_grad=True)": lambda u: torch.asarray(u, requires_grad=True)}
#: The in-place edits, by name: each gets the source and u, and multiplies one of them by 2.
EDITS = {"source under no_grad": (torch.no_grad, lambda source, u: source.mul_(2)),
         "source inside inference_mode": (torch.inference_mode, lambda source, u: source.mul_(2)),
         "u under no_grad": (torch.no_grad, lambda source, u: u.mul_(2)),
         "u inside inference_mode": (torch.inference_mode, lambda source, u: u.mul_(2))}


def _raises_edited(read) -> bool:
    """Whether ``read()`` raises a RuntimeError that says the view's base or another view of it was edited."""
    try:
        read()
    except RuntimeError as exc:
        return EDITED in str(exc)
    return False


def _after_edit(row: view_ops.Row, kind: str, off, call, edit) -> tuple[bool, ...]:
    """One run: u taken in ``off`` of a fresh source that requires grad, ``call`` on u, v = u[..., 1:] taken with grad
    mode on, then ``edit``: (the view as taken a leaf that requires grad, u.clone() raising, v.clone() raising,
    u.is_leaf raising, u.grad_fn raising, u's clone under no_grad holding its values)."""
    leaf = view_ops.make_source(row.source, "contiguous").requires_grad_()
    source = leaf if kind == "leaf" else leaf * 1
    with off():
        u = view_ops.apply(row, source)
    as_taken = u.is_leaf and u.requires_grad
    if call(u) is not u:
        return (False,)
    v = u[..., 1:]
    mode, write = EDITS[edit]
    with mode():
        write(source, u)
    with torch.no_grad():
        kept = u.clone()
        same = torch.equal(kept, u)
    return (as_taken, _raises_edited(u.clone), _raises_edited(v.clone), _raises_edited(lambda: u.is_leaf),
            _raises_edited(lambda: u.grad_fn), same)


def _after_sgd_step() -> tuple[bool, bool, bool]:
    """A Parameter, its view p[1:] taken under no_grad, then backward() and one step of torch.optim.SGD (lr=0.1): (the
    view as taken a leaf that requires grad, the step having changed p, the view's clone raising)."""
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = torch.optim.SGD([p], lr=0.1)
    with torch.no_grad():
        u = p[1:]
    as_taken = u.is_leaf and u.requires_grad
    (p * p).sum().backward()
    optimizer.step()
    return as_taken, torch.allclose(p.detach(), torch.tensor([0.8, 1.6, 2.4])), _raises_edited(u.clone)


@fact("no-grad-view-edit-breaks-clone", {
    "en": f"For each of the {len(GRAD_VIEWS)} view operations left in the views table once a.detach() and "
          "s.indices() are taken out (indexing, view, t(), transpose, expand, split, unbind, diagonal, as_strided, "
          "real, view_as_real, the sparse tensor's values() ...), takes u, the view of a source that requires grad, "
          "a leaf and again a non-leaf (the leaf times 1), in float32 (complex64 for the views of a complex tensor), "
          "under torch.no_grad(), again under torch.inference_mode(), again under torch.set_grad_enabled(False) and "
          "again inside torch.inference_mode() with torch.enable_grad(); calls on u nothing, again u.requires_grad_() "
          "and again torch.asarray(u, requires_grad=True) (which returns u), and takes v = u[..., 1:] with grad mode "
          "on; then multiplies in place by 2 (mul_) the source under torch.no_grad(), again the source inside "
          "torch.inference_mode(), again u under torch.no_grad() and again u inside torch.inference_mode() (these "
          "two not for the views of expand() and expand_as(), which refuse that write). Taken, u is a leaf that "
          "requires grad. After the edit, with grad mode on, u.clone(), v.clone(), reading u.is_leaf and reading "
          "u.grad_fn each raise a RuntimeError saying \"... "
          f"{EDITED} ...\"; under torch.no_grad(), u.clone() raises nothing and holds u's values. Last, a "
          "Parameter p = [1., 2., 3.], its view p[1:] taken under torch.no_grad(), then (p * p).sum().backward() and "
          "one step of torch.optim.SGD([p], lr=0.1): the view, a leaf that requires grad as taken, now raises that "
          "RuntimeError when cloned with grad mode on, and p is [0.8, 1.6, 2.4].",
    "zh_CN": f"对视图表中除 a.detach() 和 s.indices() 以外的 {len(GRAD_VIEWS)} 个视图操作（索引、view、t()、"
             "transpose、expand、split、unbind、diagonal、as_strided、real、view_as_real、稀疏张量的 values() 等），"
             "对需要梯度的源张量取视图 u，源张量分别是叶子张量和非叶子张量（叶子张量乘 1），dtype 是 float32"
             "（复数张量的视图用 complex64），分别在 torch.no_grad()、torch.inference_mode() 和 "
             "torch.set_grad_enabled(False) 下，以及在 torch.inference_mode() 内开启 torch.enable_grad() 时取；"
             "对 u 什么也不调用，或调用 u.requires_grad_()，或调用 torch.asarray(u, requires_grad=True)（它返回 u），"
             "再在梯度模式下取 v = u[..., 1:]；然后用 mul_ 原地乘 2：在 torch.no_grad() 下改源张量，在 "
             "torch.inference_mode() 里改源张量，在 torch.no_grad() 下改 u，在 torch.inference_mode() 里改 u"
             "（改 u 的两种不用于 expand() 和 expand_as() 的视图，它们拒绝这种写入）。刚取得时，u 是需要梯度的"
             "叶子张量。修改之后，在梯度模式下，u.clone()、v.clone()、"
             f"读取 u.is_leaf 和读取 u.grad_fn 都抛出 RuntimeError，说“... {EDITED} ...”；在 torch.no_grad() 下，"
             "u.clone() 不报错，副本的值与 u 相同。最后，对 Parameter p = [1., 2., 3.]，在 torch.no_grad() 下取视图 "
             "p[1:]，再执行 (p * p).sum().backward() 和一步 torch.optim.SGD([p], lr=0.1)：这个视图刚取得时是"
             "需要梯度的叶子张量，此时在梯度模式下取副本就抛出这个 RuntimeError，p 变为 [0.8, 1.6, 2.4]。",
}, {"en": f"{len(GRAD_VIEWS)} view operations, a leaf and a non-leaf source, the three ways to turn grad mode off and "
          "torch.inference_mode() with torch.enable_grad(), three calls on the view, four in-place edits, float32 "
          "(complex64 for the views of a complex tensor), and one step of torch.optim.SGD, on the CPU",
    "zh_CN": f"{len(GRAD_VIEWS)} 个视图操作，叶子张量和非叶子张量两种源张量，三种关闭梯度模式的方式和在 "
             "torch.inference_mode() 内开启的 torch.enable_grad()，对视图的三种调用，四种原地修改，float32"
             "（复数张量的视图用 complex64），以及一步 torch.optim.SGD，在 CPU 上"})
def _no_grad_view_edit_breaks_clone() -> Fact:
    """After an in-place edit of its source or of itself, a view taken with grad mode off is no longer a leaf to
    autograd: its clone with grad mode on, and a read of its is_leaf or grad_fn, raise; a clone under no_grad does
    not."""
    wrong, runs = [], 0
    for row, kind, (mode, off), (call_name, call), edit in itertools.product(
            GRAD_VIEWS, ("leaf", "non-leaf"), OFF_MODES.items(), CALLS.items(), EDITS):
        if edit.startswith("u ") and row.code in EXPANDED:
            continue
        seen = _after_edit(row, kind, off, call, edit)
        runs += 1
        if not all(seen):
            wrong.append(f"{row.code} of a {kind} taken {mode}, {call_name}, edit of the {edit}: {seen}")
            if enough(wrong):
                return stopped(wrong)
    expected = 2 * len(OFF_MODES) * len(CALLS) * (len(EDITS) * len(GRAD_VIEWS) - 2 * len(EXPANDED))
    stepped = _after_sgd_step()
    return Fact(not wrong and runs == expected and all(stepped),
                f"{runs} runs (expected {expected}); not (a leaf that requires grad as taken, after the edit clone of "
                f"u and of v, is_leaf and grad_fn raising '{EDITED}', clone under no_grad as u): {wrong}; "
                f"SGD step (view a leaf that requires grad as taken, p stepped, clone raising): {stepped}")
