"""Named fact on a write through an index into a view taken under ``torch.no_grad()`` or ``torch.inference_mode()`` of
a tensor that requires grad: with grad mode on outside ``torch.inference_mode()``, autograd refuses it for every view
operation of the views table that autograd records; under ``torch.no_grad()`` it goes through. It stands behind the
index writes page (a leaf's views and the non-leaf's views made in either mode). Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, fact
from tensorfacts.no_grad_view_facts import GRAD_VIEWS, UNRECORDED_TABLE
from tensorfacts.tensors import enable_grad_inside

#: The two ways to turn grad mode off that the page names, and the phrase of autograd's refusal for each.
MODES = {"no_grad": (torch.no_grad, "A view was created in no_grad mode and is being modified inplace"),
         "inference_mode": (torch.inference_mode, "A view was created in inference mode and is being modified inplace")}
#: The rows whose write under torch.no_grad() warns (index_put_ on an expanded tensor is deprecated).
EXPANDED = ("a.expand(2, 3, 4)", "a.expand_as(torch.empty(2, 3, 4))")
#: The start of the one warning, a UserWarning, that a write through the views of :data:`EXPANDED` gives.
EXPANDED_WARNING = "Use of index_put_ on expanded tensors is deprecated"
#: The advanced index of the write, the page's ``x[idx] += 1``: an index tensor picking the first element.
FIRST = (0,)


def _view(row: view_ops.Row, kind: str, mode: str) -> torch.Tensor:
    """The row's view, taken under ``mode``, of a fresh source that requires grad: a leaf, or the leaf times 1."""
    leaf = view_ops.make_source(row.source, "contiguous").requires_grad_()
    source = leaf if kind == "leaf" else leaf * 1
    with MODES[mode][0]():
        return view_ops.apply(row, source)


def _write(v: torch.Tensor, grad_mode: bool, mode: Callable[[], object] = contextlib.nullcontext,
           ) -> tuple[str, bool, list[tuple[type[Warning], str]]]:
    """``v[torch.tensor([0])] += 1`` with grad mode on or off (inside ``mode()``): the error ("" when none), whether it
    added 1 to ``v[0]``, and the warnings torch gave (category, message)."""
    with torch.no_grad():  # a read with grad mode on of a view made with it off, after a write, raises
        before = v[0].clone()
    error = ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.set_grad_enabled(grad_mode), mode():
                v[torch.tensor(FIRST)] += 1
        except RuntimeError as exc:
            error = str(exc)
    with torch.no_grad():
        added = torch.equal(v[0], before + 1)
    return error, added, [(w.category, str(w.message)) for w in caught]


def _warned_as_stated(row: view_ops.Row, warned: list[tuple[type[Warning], str]]) -> bool:
    """Through the views of :data:`EXPANDED`, one warning, a UserWarning that starts with :data:`EXPANDED_WARNING`;
    through the others, none."""
    if row.code not in EXPANDED:
        return not warned
    return len(warned) == 1 and warned[0][0] is UserWarning and warned[0][1].startswith(EXPANDED_WARNING)


@fact("grad-off-view-refuses-index-write-in-grad-mode", {
    "en": f"For each of the {len(GRAD_VIEWS)} view operations left in the views table once a.detach() and "
          "s.indices() are taken out "
          "(indexing, view(shape), view_as, t(), transpose, permute, narrow, select, expand, unbind, split, chunk, "
          "diagonal, unfold, as_strided, real, view_as_real, the sparse tensor's values() ...), takes a view v of a "
          "source that requires grad, a leaf and again a non-leaf (the leaf times 1), under torch.no_grad() and "
          "again under torch.inference_mode(), and runs v[torch.tensor([0])] += 1 on it with grad mode on outside "
          "torch.inference_mode(), torch.enable_grad() inside torch.no_grad() included: it "
          "raises \"A view was created in no_grad mode and is being modified inplace ...\" (\"in inference mode\" "
          "for a view taken under torch.inference_mode()) and leaves v[0] as it was. On a "
          "fresh v taken the same way, under torch.no_grad(), the same write raises nothing and adds 1 to v[0] "
          f"(through the views of {' and '.join(EXPANDED)} torch gives one warning, a UserWarning \"{EXPANDED_WARNING} "
          "...\", and no other; through the others it gives no warning), and so it does inside "
          "torch.inference_mode() with torch.enable_grad(), which turns grad mode on. a.detach() and s.indices(), "
          "taken in the same ways, take the write with grad mode on.",
    "zh_CN": f"对视图表中除 a.detach() 和 s.indices() 以外的 {len(GRAD_VIEWS)} 个视图操作（索引、view(shape)、"
             "view_as、t()、transpose、permute、narrow、select、expand、unbind、split、chunk、diagonal、unfold、"
             "as_strided、real、view_as_real、稀疏张量的 values() 等），分别在 torch.no_grad() 和 "
             "torch.inference_mode() 下对需要梯度的源张量取视图 v，源张量分别是叶子张量和非叶子张量（叶子张量乘 1），"
             "再在 torch.inference_mode() 之外、梯度模式打开时（包括在 torch.no_grad() 里用 torch.enable_grad() "
             "打开梯度模式）对它执行 v[torch.tensor([0])] += 1：报错“A view was created in no_grad mode and is being "
             "modified inplace ...”（在 torch.inference_mode() 下取的视图，报错里是 in inference mode），"
             "v[0] 保持原样。用同样方式新取的 v，在 torch.no_grad() 下"
             f"执行同样的写入，不报错，v[0] 加了 1（经由 {' 和 '.join(EXPANDED)} 的视图写入时，torch 只给出一条警告，"
             f"即 UserWarning“{EXPANDED_WARNING} ...”；经由其他视图写入时没有任何警告）；"
             "在 torch.inference_mode() 里用 torch.enable_grad() 打开梯度模式时执行同样的写入，也不报错，v[0] 加了 1。"
             "用同样方式取的 a.detach() 和 s.indices()，"
             "在梯度模式下照常接受写入。",
}, {"en": f"{len(GRAD_VIEWS)} view operations and the two of the views table that autograd does not record "
          "(a.detach(), s.indices()), a leaf and a non-leaf "
          "source, torch.no_grad() and torch.inference_mode(), float32 (complex64 for the views of a complex tensor), "
          "on the CPU",
    "zh_CN": f"{len(GRAD_VIEWS)} 个视图操作和视图表中自动求导不记录的那两个（a.detach()、s.indices()），"
             "叶子张量和非叶子张量两种源张量，torch.no_grad() "
             "和 torch.inference_mode()，float32（复数张量的视图用 complex64），在 CPU 上"})
def _grad_off_view_refuses_index_write_in_grad_mode() -> Fact:
    """A view taken with grad mode off of a tensor that requires grad refuses an in-place write with grad mode on
    outside inference mode, for every view operation autograd records; under no_grad, and with enable_grad() inside
    inference_mode(), the write goes through."""
    wrong, runs = [], 0
    for row in GRAD_VIEWS:
        for kind in ("leaf", "non-leaf"):
            for mode, (_, refusal) in MODES.items():
                error, added, _ = _write(_view(row, kind, mode), True)
                quiet_error, quiet_added, warned = _write(_view(row, kind, mode), False)
                in_no_grad = _write(_view(row, kind, mode), True, lambda: enable_grad_inside(torch.no_grad))
                in_inference = _write(_view(row, kind, mode), True, lambda: enable_grad_inside(torch.inference_mode))
                runs += 1
                stated_warnings = _warned_as_stated(row, warned)
                if refusal not in error or added or quiet_error or not quiet_added or not stated_warnings:
                    wrong.append(f"{row.code} of a {kind} taken under {mode}: grad mode on {error or 'no error'}, "
                                 f"added {added}; no_grad {quiet_error or 'no error'}, added {quiet_added}, "
                                 f"warned {warned}")
                if refusal not in in_no_grad[0] or in_no_grad[1] or in_inference[0] or not in_inference[1]:
                    wrong.append(f"{row.code} of a {kind} taken under {mode}, enable_grad() inside no_grad(): "
                                 f"{in_no_grad[:2]}; inside inference_mode(): {in_inference[:2]}")
    unrecorded = [row for row in view_ops.VIEWS if row.code in UNRECORDED_TABLE]
    for row in unrecorded:
        for kind in ("leaf", "non-leaf"):
            for mode in MODES:
                error, added, warned = _write(_view(row, kind, mode), True)
                runs += 1
                if error or not added or warned:
                    wrong.append(f"{row.code} of a {kind} taken under {mode}: {error or 'no error'}, added {added}")
    expected = 4 * (len(GRAD_VIEWS) + len(unrecorded))
    return Fact(not wrong and runs == expected and len(unrecorded) == len(UNRECORDED_TABLE),
                f"{runs} views written (expected {expected}); otherwise than stated: {wrong}")
