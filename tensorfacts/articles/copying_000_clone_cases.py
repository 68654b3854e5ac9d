"""The cases behind the notes of three clone claims of article 000 (:mod:`tensorfacts.articles.copying_000_clone`):
clones taken with grad mode off, clones of tensors that do not require grad, clones of views of ``a`` taken with grad
mode off, and the fact on sparse, nested and mkldnn inference tensors, whose clones leave the graph even in grad mode.
"""

from __future__ import annotations

import contextlib
import itertools
import warnings

import torch

from tensorfacts.tensors import grad_fn_name

#: Where grad mode is off for a clone: (English, Chinese) name -> the modes entered around it.
GRAD_OFF = {
    ("under `torch.no_grad()`", "在 `torch.no_grad()` 下"): (torch.no_grad,),
    ("inside `torch.inference_mode()`", "在 `torch.inference_mode()` 里"): (torch.inference_mode,),
    ("inside `torch.inference_mode()` with `torch.enable_grad()`",
     "在 `torch.inference_mode()` 里又用 `torch.enable_grad()` 时"): (torch.inference_mode, torch.enable_grad),
}

#: Tensors that do not require grad whose clones :func:`plain_clones_trace` checks.
PLAIN_SOURCES = {("`float32`", "`float32`"): lambda: torch.tensor([1.0, 2.0, 3.0]),
                 ("`int64`", "`int64`"): lambda: torch.arange(3),
                 ("sparse COO", "稀疏 COO"): lambda: torch.tensor([1.0, 2.0, 3.0]).to_sparse(),
                 ("on `meta`", "`meta` 上的张量"): lambda: torch.ones(3, device="meta"),
                 ("`a.detach()[1:]`", "`a.detach()[1:]`"): lambda: (
                     torch.tensor([1.0, 2.0, 3.0], requires_grad=True).detach()[1:])}


def plain_clones_trace() -> tuple[str, str]:
    """The clone of each tensor of PLAIN_SOURCES, taken in grad mode and in each place of GRAD_OFF, is a leaf with no
    ``grad_fn`` that does not require grad (the notes' last sentence); raises when one is not."""
    odd = [name for name, make in PLAIN_SOURCES.items()
           if not all(c.is_leaf and c.grad_fn is None and not c.requires_grad
                      for c in (make().clone(), *clones_with_grad_off(make()).values()))]
    if odd:
        raise AssertionError(f"the note is out of date: the clone of a tensor that does not require grad is a leaf "
                             f"with no grad_fn, except for: {odd}")
    runs = len(PLAIN_SOURCES) * (1 + len(GRAD_OFF))
    return (f"the clone of a tensor that does not require grad ({', '.join(e for e, _ in PLAIN_SOURCES)}), in grad "
            f"mode and in the {len(GRAD_OFF)} places above: a leaf with `grad_fn = None` in all {runs} runs",
            f"不需要梯度的张量（{'、'.join(z for _, z in PLAIN_SOURCES)}）clone 出来的副本，"
            f"在梯度模式下和上述 {len(GRAD_OFF)} 种情况下：{runs} 次运行都是 `grad_fn = None` 的叶子张量")

#: Views of ``a`` the note names, and where they are taken: grad mode off, or inside torch.inference_mode().
NOTE_VIEWS = {"a[1:]": lambda t: t[1:], "a.t()": lambda t: t.t()}
VIEW_PLACES = {"torch.no_grad()": (torch.no_grad,),
               "torch.set_grad_enabled(False)": (lambda: torch.set_grad_enabled(False),),
               "torch.inference_mode()": (torch.inference_mode,),
               "torch.inference_mode() + torch.enable_grad()": (torch.inference_mode, torch.enable_grad)}


def clones_with_grad_off(a: torch.Tensor) -> dict[tuple[str, str], torch.Tensor]:
    """``a.clone()`` made in each place of :data:`GRAD_OFF`."""
    clones = {}
    for names, modes in GRAD_OFF.items():
        with contextlib.ExitStack() as stack:
            for mode in modes:
                stack.enter_context(mode())
            clones[names] = a.clone()
    return clones


def grad_off_trace(clones: dict[tuple[str, str], torch.Tensor]) -> tuple[str, str]:
    """What the clones made with grad mode off show (grad_fn, is_leaf, requires_grad), places that show the same
    named together."""
    seen: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for names, c in clones.items():
        pieces = (f"grad_fn = {grad_fn_name(c)}", f"is_leaf = {c.is_leaf}", f"requires_grad = {c.requires_grad}")
        seen.setdefault(pieces, []).append(names)
    en = "; ".join(", ".join(e for e, _ in names) + ": " + ", ".join(f"`{piece}`" for piece in pieces)
                   for pieces, names in seen.items())
    zh = "；".join("、".join(z for _, z in names) + "：" + "，".join(f"`{piece}`" for piece in pieces)
                   for pieces, names in seen.items())
    return en, zh


def off_view_clones() -> dict[str, bool]:
    """For each view of NOTE_VIEWS of ``a`` taken in each place of VIEW_PLACES, without and with ``requires_grad_()``
    called on it right after: whether it departs from the note (the view a leaf that requires grad; its clone,
    taken in grad mode, with a CloneBackward0 node linked to nothing, or to the view after ``requires_grad_()``;
    after ``backward()``, ``a.grad`` None, the view's grad None, or filled after ``requires_grad_()``)."""
    departs = {}
    for (name, take), (where, places), asked in itertools.product(NOTE_VIEWS.items(), VIEW_PLACES.items(),
                                                                  (False, True)):
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with contextlib.ExitStack() as stack:
            for place in places:
                stack.enter_context(place())
            u = take(a)
        if asked:
            u.requires_grad_()
        c = u.clone()
        linked = [fn is not None for fn, _ in c.grad_fn.next_functions] if c.grad_fn is not None else None
        if c.requires_grad:
            (c * c).sum().backward()
        right = u.grad is not None and torch.equal(u.grad, 2 * u.detach())
        departs[f"{name} in {where}" + (", requires_grad_()" if asked else "")] = not (
            u.is_leaf and u.requires_grad and grad_fn_name(c) == "CloneBackward0" and linked == [asked]
            and a.grad is None and (right if asked else u.grad is None))
    return departs


#: Writes made after a view of NOTE_VIEWS is taken that move the version counter it shares with ``a``: ``a`` or the
#: view times 2 under torch.no_grad(), one step of torch.optim.SGD on ``a`` after a backward(), and no write at all,
#: the counter moved by torch.autograd.graph.increment_version(a).
NOTE_EDITS = ("a under torch.no_grad()", "the view under torch.no_grad()", "a torch.optim.SGD step on a",
              "torch.autograd.graph.increment_version(a)")
#: Writes that move no version counter: ``a.data`` times 2, and a step of torch.optim.SGD made with fused=True.
NOTE_UNCOUNTED = ("a.data times 2", "a fused torch.optim.SGD step on a")
#: The words of the error autograd raises then, whether the view was taken in no_grad or in inference mode.
EDITED = "its base or another view of its base has been modified inplace"


def _raises_edited(read) -> bool:
    try:
        read()
    except RuntimeError as exc:
        return EDITED in str(exc)
    return False


def edited_view_clones() -> dict[str, bool]:
    """For each view of NOTE_VIEWS of ``a`` taken in each place of VIEW_PLACES, without and with ``requires_grad_()``
    called on it right after, then each write of NOTE_EDITS and NOTE_UNCOUNTED: whether it departs from the note
    (after a write of NOTE_EDITS, ``a``'s counter moved, and cloning the view with grad mode on, reading its
    ``is_leaf`` and reading its ``grad_fn`` each raise the RuntimeError of EDITED; after one of NOTE_UNCOUNTED,
    ``a`` changed, its counter still 0, and the view still a leaf whose clone has a CloneBackward0 node that leaves
    ``a`` without a gradient)."""
    departs = {}
    for (name, take), (where, places), asked, edit in itertools.product(NOTE_VIEWS.items(), VIEW_PLACES.items(),
                                                                        (False, True), NOTE_EDITS + NOTE_UNCOUNTED):
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with contextlib.ExitStack() as stack:
            for place in places:
                stack.enter_context(place())
            u = take(a)
        if asked:
            u.requires_grad_()
        if "SGD" in edit:
            (a * a).sum().backward()
            torch.optim.SGD([a], lr=0.1, fused=edit in NOTE_UNCOUNTED).step()
            a.grad = None
        elif edit == NOTE_EDITS[3]:
            torch.autograd.graph.increment_version(a)
        elif edit == NOTE_UNCOUNTED[0]:
            a.data.mul_(2)
        else:
            with torch.no_grad():
                (a if edit == NOTE_EDITS[0] else u).mul_(2)
        key = f"{name} in {where}" + (", requires_grad_()" if asked else "") + f", edit of {edit}"
        if edit in NOTE_EDITS:
            departs[key] = not (a._version > 0 and _raises_edited(u.clone)
                                and _raises_edited(lambda view=u: view.is_leaf)
                                and _raises_edited(lambda view=u: view.grad_fn))
            continue
        changed = not torch.equal(a.detach(), torch.tensor([1.0, 2.0, 3.0]))
        kept = a._version == 0 and not _raises_edited(u.clone) and u.is_leaf and u.requires_grad
        c = u.clone() if kept else None
        if c is not None and grad_fn_name(c) == "CloneBackward0":
            (c * c).sum().backward()
        departs[key] = not (changed and c is not None and grad_fn_name(c) == "CloneBackward0" and a.grad is None)
    return departs


#: The fact behind the notes' sentence on sparse, nested and mkldnn inference tensors (and on strided ones, whose
#: clones stay in the graph): it runs every floating-point and complex dtype and every layout torch has, and the
#: build runs it with the facts page; the ledger's checks, which the page rules and many tests run too, run its
#: float32 cases themselves (a fraction of a second, where the whole fact takes seconds).
NOT_STRIDED_FACT = "inference-leaf-clone-in-graph"


def inference_leaves_trace() -> tuple[bool, str, str]:
    """In grad mode, the clone of each sparse (COO, CSR, CSC, BSR, BSC), strided nested and mkldnn float32 inference
    tensor that requires grad (the fact's own tensors; not the jagged one, whose first construction in a process
    imports torch's compiler stack, seconds) does not require grad and has no ``grad_fn``, and that of a strided one
    does; whether it holds, and what the trace says of it."""
    from tensorfacts.inference_grad_on_facts import NOT_STRIDED, _mkldnn_leaf

    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # sparse CSR is beta, nested tensors a prototype
        strided = torch.ones(3).requires_grad_()
        leaves = {name: make(torch.float32) for name, make in NOT_STRIDED.items() if name != "nested jagged"}
    leaves["mkldnn"] = _mkldnn_leaf(torch.float32)
    wrong = [name for name, t in leaves.items()
             if not (t.is_inference() and t.requires_grad and t.is_leaf) or t.clone().requires_grad
             or t.clone().grad_fn is not None]
    wrong += [] if strided.clone().requires_grad and strided.clone().grad_fn is not None else ["strided"]
    said_en = "as the note says" if not wrong else f"not as the note says: {wrong}"
    said_zh = "与说明一致" if not wrong else f"与说明不符：{wrong}"
    return (not wrong, f"inference tensors that require grad ({', '.join(leaves)} and strided, float32; every layout "
                       f"and dtype: fact `{NOT_STRIDED_FACT}`): {said_en}",
            f"需要梯度的推理张量（{'、'.join(leaves)} 和 strided，float32；所有布局和 dtype 见事实 "
            f"`{NOT_STRIDED_FACT}`）：{said_zh}")
