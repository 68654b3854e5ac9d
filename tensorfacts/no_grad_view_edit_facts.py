"""Named facts on views that autograd cannot rebase once the version counter they share with their base moves after
they are taken: a view taken with grad mode off (under ``torch.no_grad()``, ``torch.inference_mode()`` or
``torch.set_grad_enabled(False)``), or inside ``torch.inference_mode()`` with ``torch.enable_grad()``, of a tensor
that requires grad, and an output of ``unbind()``, ``split()``, ``split_with_sizes()`` or ``chunk()`` taken with grad
mode on. An in-place call on the view, its base or another view of the base moves the counter (an optimizer step does
that to a parameter, under ``torch.no_grad()``): from then on, with grad mode on, the view's clone raises. A write
that moves no counter (through ``.data`` or NumPy, a step of an optimizer made with ``fused=True``) leaves the view as
it was. They bound the sentences of the clone page, the safe copy page, the ledger and the guides that call such a
view a leaf whose clone passes no gradient, or a copy of ``a`` one that passes the gradient on
(:mod:`tensorfacts.no_grad_view_facts`). Registered on import by :mod:`tensorfacts.facts`, whose docstring says what
a fact is.
"""

from __future__ import annotations

import contextlib
import itertools

import numpy as np
import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, enough, fact, stopped
from tensorfacts.no_grad_view_facts import GRAD_VIEWS, OFF_MODES
from tensorfacts.optimizer_facts import fused_optimizers

#: The words every error of the facts holds, whether the view was taken in no_grad, in inference mode or by a split.
EDITED = "its base or another view of its base has been modified inplace"
#: The words the error adds for an output of unbind(), split(), split_with_sizes() or chunk().
MULTIPLE = "returns multiple views"
#: The rows whose view refuses an in-place write of its own (more than one element shares a memory location).
EXPANDED = ("a.expand(2, 3, 4)", "a.expand_as(torch.empty(2, 3, 4))")
#: What is called on the view u right after it is taken, before the edit, by name.
CALLS = {"nothing": lambda u: u, "u.requires_grad_()": lambda u: u.requires_grad_(),
         "torch.asarray(u, requires_grad=True)": lambda u: torch.asarray(u, requires_grad=True)}


def _another_view(source: torch.Tensor) -> torch.Tensor:
    """A view of ``source`` other than u: ``source[...]``, or a sparse tensor's ``values()`` taken again."""
    return source.values() if source.layout == torch.sparse_coo else source[...]


#: The writes that move the version counter u shares with its source, by name: each gets the source and u, and
#: multiplies one of them (or another view of the source) by 2, or moves the counter with no write at all.
EDITS = {"source under no_grad": (torch.no_grad, lambda source, u: source.mul_(2)),
         "source inside inference_mode": (torch.inference_mode, lambda source, u: source.mul_(2)),
         "u under no_grad": (torch.no_grad, lambda source, u: u.mul_(2)),
         "u inside inference_mode": (torch.inference_mode, lambda source, u: u.mul_(2)),
         "another view of the source under no_grad": (torch.no_grad, lambda source, u: _another_view(source).mul_(2)),
         "no write, torch.autograd.graph.increment_version(source)": (
             contextlib.nullcontext, lambda source, u: torch.autograd.graph.increment_version(source))}


def _times_two_through_numpy(source: torch.Tensor) -> None:
    array = source.detach().numpy()
    np.multiply(array, 2, out=array)


#: The writes that move no version counter, by name, made with grad mode on: on the strided sources only (on the sparse
#: tensor, .data.mul_() gives the values new memory, and there is no NumPy array).
UNCOUNTED = {"source.data.mul_(2)": lambda source: source.data.mul_(2),
             "source.detach().numpy() times 2": _times_two_through_numpy}


def _raises_edited(read, also: str = "") -> bool:
    """Whether ``read()`` raises a RuntimeError that says the view's base or another view of it was edited (and
    ``also``)."""
    try:
        read()
    except RuntimeError as exc:
        return EDITED in str(exc) and also in str(exc)
    return False


def _passes_base_no_gradient(u: torch.Tensor, leaf: torch.Tensor) -> bool:
    """u a leaf that requires grad, its clone with grad mode on a CloneBackward0 whose backward() leaves the leaf
    behind u's source without a gradient."""
    copy = u.clone()
    if not (u.is_leaf and u.requires_grad and type(copy.grad_fn).__name__ == "CloneBackward0"):
        return False
    copy.abs().sum().backward()
    return leaf.grad is None


def _taken(row: view_ops.Row, kind: str, off, call) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, bool] | None:
    """A fresh source that requires grad (a leaf, or the leaf times 1), its leaf, u taken of it in ``off`` with
    ``call`` on it, and whether u was a leaf that requires grad as taken; None if ``call`` did not return u."""
    leaf = view_ops.make_source(row.source, "contiguous").requires_grad_()
    source = leaf if kind == "leaf" else leaf * 1
    with off():
        u = view_ops.apply(row, source)
    as_taken = u.is_leaf and u.requires_grad
    return (source, leaf, u, as_taken) if call(u) is u else None


def _after_edit(row: view_ops.Row, kind: str, off, call, edit) -> tuple[bool, ...]:
    """One run: u taken in ``off``, ``call`` on u, v = u[..., 1:] taken with grad mode on, then ``edit`` of EDITS:
    (the view as taken a leaf that requires grad, the source's counter moved, u.clone() raising, v.clone() raising,
    u[..., 1:] taken again raising, u.is_leaf raising, u.grad_fn raising, u's clone under no_grad holding its
    values)."""
    taken = _taken(row, kind, off, call)
    if taken is None:
        return (False,)
    source, _, u, as_taken = taken
    v = u[..., 1:]
    before = source._version
    mode, write = EDITS[edit]
    with mode():
        write(source, u)
    with torch.no_grad():
        kept = u.clone()
        same = torch.equal(kept, u)
    return (as_taken, source._version > before, _raises_edited(u.clone), _raises_edited(v.clone),
            _raises_edited(lambda: u[..., 1:]), _raises_edited(lambda: u.is_leaf), _raises_edited(lambda: u.grad_fn),
            same)


def _after_uncounted(row: view_ops.Row, kind: str, off, call, write) -> tuple[bool, ...]:
    """One run: u taken in ``off``, ``call`` on u, v = u[..., 1:] taken with grad mode on, then ``write`` of UNCOUNTED:
    (the view as taken a leaf that requires grad, the source's counter where it was, the source's values doubled,
    v.clone() raising nothing, u still a leaf whose clone passes the source no gradient)."""
    taken = _taken(row, kind, off, call)
    if taken is None:
        return (False,)
    source, leaf, u, as_taken = taken
    v = u[..., 1:]
    before, old = source._version, source.detach().clone()
    UNCOUNTED[write](source)
    return (as_taken, source._version == before, torch.equal(source.detach(), old * 2),
            type(v.clone().grad_fn).__name__ == "CloneBackward0", _passes_base_no_gradient(u, leaf))


def _after_step(optimizer: str, fused: bool) -> tuple[bool, ...]:
    """A Parameter p = [1., 2., 3.], its view p[1:] taken under no_grad, then backward() and one step of ``optimizer``
    (lr=0.1), ``fused`` or not: (the view as taken a leaf that requires grad, p changed, and then, for an unfused step,
    p's counter moved and the view's clone raising; for a fused one, p's counter at 0 and the view still a leaf whose
    clone passes p no gradient)."""
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    step = getattr(torch.optim, optimizer)([p], lr=0.1, **({"fused": True} if fused else {}))
    with torch.no_grad():
        u = p[1:]
    as_taken = u.is_leaf and u.requires_grad
    (p * p).sum().backward()
    step.step()
    changed = not torch.equal(p.detach(), torch.tensor([1.0, 2.0, 3.0]))
    p.grad = None
    if fused:
        return as_taken, changed, p._version == 0, not _raises_edited(u.clone) and _passes_base_no_gradient(u, p)
    return as_taken, changed, p._version > 0, _raises_edited(u.clone)


@fact("no-grad-view-edit-breaks-clone", {
    "en": f"For each of the {len(GRAD_VIEWS)} view operations left in the views table once a.detach() and "
          "s.indices() are taken out (indexing, view, t(), transpose, expand, split, unbind, diagonal, as_strided, "
          "real, view_as_real, the sparse tensor's values() ...), takes u, the view of a source that requires grad, "
          "a leaf and again a non-leaf (the leaf times 1), in float32 (complex64 for the views of a complex tensor), "
          "under torch.no_grad(), again under torch.inference_mode(), again under torch.set_grad_enabled(False) and "
          "again inside torch.inference_mode() with torch.enable_grad(); calls on u nothing, again u.requires_grad_() "
          "and again torch.asarray(u, requires_grad=True) (which returns u), and takes v = u[..., 1:] with grad mode "
          "on; then moves the version counter u shares with the source: multiplies in place by 2 (mul_) the source "
          "under torch.no_grad(), again the source inside torch.inference_mode(), again u under torch.no_grad(), "
          "again u inside torch.inference_mode() (these two not for the views of expand() and expand_as(), which "
          "refuse that write) and again another view of the source (source[...], or the sparse tensor's values() "
          "taken again) under torch.no_grad(), or writes nothing and calls "
          "torch.autograd.graph.increment_version(source). Taken, u is a leaf that requires grad. After the counter "
          "moved, with grad mode on, u.clone(), v.clone(), taking u[..., 1:] again, reading u.is_leaf and reading "
          "u.grad_fn each raise a "
          f"RuntimeError saying \"... {EDITED} ...\"; under torch.no_grad(), u.clone() raises nothing and holds u's "
          "values. On the sources that are not sparse, the same u and v, with grad mode on, then source.data.mul_(2), "
          "and again a write of 2 times the values into source.detach().numpy(): the source's values double, its "
          "counter stays where it was, v.clone() raises nothing and has a CloneBackward0 node, and u is still a leaf "
          "that requires grad whose clone has a CloneBackward0 node and, through backward() of its abs().sum(), "
          "gives the source's leaf no gradient. Last, for each optimizer of torch.optim that can be built with "
          "fused=True here: a Parameter p = [1., 2., 3.], its view p[1:] taken under torch.no_grad(), then "
          "(p * p).sum().backward() and one step of the optimizer (lr=0.1), built without fused= and again with "
          "fused=True: the view, a leaf that requires grad as taken, p changed; after the step without fused=, "
          "p's version counter has moved and the view's clone with grad mode on raises that RuntimeError; after the "
          "fused step, p's counter is still 0 and the view is still a leaf whose clone passes p no gradient.",
    "zh_CN": f"对视图表中除 a.detach() 和 s.indices() 以外的 {len(GRAD_VIEWS)} 个视图操作（索引、view、t()、"
             "transpose、expand、split、unbind、diagonal、as_strided、real、view_as_real、稀疏张量的 values() 等），"
             "对需要梯度的源张量取视图 u，源张量分别是叶子张量和非叶子张量（叶子张量乘 1），dtype 是 float32"
             "（复数张量的视图用 complex64），分别在 torch.no_grad()、torch.inference_mode() 和 "
             "torch.set_grad_enabled(False) 下，以及在 torch.inference_mode() 内开启 torch.enable_grad() 时取；"
             "对 u 什么也不调用，或调用 u.requires_grad_()，或调用 torch.asarray(u, requires_grad=True)（它返回 u），"
             "再在梯度模式下取 v = u[..., 1:]；然后推进 u 与源张量共享的版本计数器：用 mul_ 原地乘 2，"
             "在 torch.no_grad() 下改源张量，在 torch.inference_mode() 里改源张量，在 torch.no_grad() 下改 u，"
             "在 torch.inference_mode() 里改 u（改 u 的两种不用于 expand() 和 expand_as() 的视图，它们拒绝这种写入），"
             "在 torch.no_grad() 下改源张量的另一个视图（source[...]，稀疏张量则是再取一次的 values()）；"
             "或者什么也不写，只调用 torch.autograd.graph.increment_version(source)。刚取得时，u 是需要梯度的"
             "叶子张量。计数器推进之后，在梯度模式下，u.clone()、v.clone()、再取一次 u[..., 1:]、"
             f"读取 u.is_leaf 和读取 u.grad_fn 都抛出 RuntimeError，说“... {EDITED} ...”；在 torch.no_grad() 下，"
             "u.clone() 不报错，副本的值与 u 相同。对非稀疏的源张量，同样取 u 和 v，再在梯度模式下执行 "
             "source.data.mul_(2)，或者把 2 倍的值写进 source.detach().numpy()：源张量的值翻倍，版本计数器不变，"
             "v.clone() 不报错，带 CloneBackward0 节点；u 仍是需要梯度的叶子张量，它的副本带 CloneBackward0 节点，"
             "对副本的 abs().sum() 调用 backward()，源张量背后的叶子张量得不到梯度。最后，对 torch.optim 里在这里能用 "
             "fused=True 构造的每个优化器：Parameter p = [1., 2., 3.]，在 torch.no_grad() 下取视图 p[1:]，"
             "再执行 (p * p).sum().backward() 和优化器的一步（lr=0.1），优化器分别不传 fused= 和传 fused=True 构造："
             "这个视图刚取得时是需要梯度的叶子张量，p 变了；不传 fused= 的一步之后，p 的版本计数器推进了，"
             "在梯度模式下对视图取副本抛出这个 RuntimeError；fused 的一步之后，p 的计数器仍是 0，"
             "视图仍是叶子张量，它的副本不把梯度传给 p。",
}, {"en": f"{len(GRAD_VIEWS)} view operations, a leaf and a non-leaf source, the three ways to turn grad mode off and "
          "torch.inference_mode() with torch.enable_grad(), three calls on the view, six writes that move the "
          "version counter and two that do not, float32 (complex64 for the views of a complex tensor), and one step "
          "of each optimizer of torch.optim that takes fused=True, with and without it, on the CPU",
    "zh_CN": f"{len(GRAD_VIEWS)} 个视图操作，叶子张量和非叶子张量两种源张量，三种关闭梯度模式的方式和在 "
             "torch.inference_mode() 内开启的 torch.enable_grad()，对视图的三种调用，六种推进版本计数器的写入和两种"
             "不推进的写入，float32（复数张量的视图用 complex64），以及 torch.optim 里接受 fused=True 的每个优化器"
             "带和不带 fused=True 的一步，在 CPU 上"})
def _no_grad_view_edit_breaks_clone() -> Fact:
    """Once the version counter it shares with its source moves, a view taken with grad mode off is no longer a leaf
    to autograd: its clone with grad mode on, and a read of its is_leaf or grad_fn, raise; a clone under no_grad does
    not. A write that moves no counter leaves it a leaf whose clone passes its base no gradient."""
    wrong, runs, uncounted_runs = [], 0, 0
    for row, kind, (mode, off), (call_name, call) in itertools.product(
            GRAD_VIEWS, ("leaf", "non-leaf"), OFF_MODES.items(), CALLS.items()):
        case = f"{row.code} of a {kind} taken {mode}, {call_name}"
        for edit in EDITS:
            if edit.startswith("u ") and row.code in EXPANDED:
                continue
            seen = _after_edit(row, kind, off, call, edit)
            runs += 1
            if not all(seen):
                wrong.append(f"{case}, {edit}: {seen}")
        for write in UNCOUNTED if row.source != "s" else ():
            seen = _after_uncounted(row, kind, off, call, write)
            uncounted_runs += 1
            if not all(seen):
                wrong.append(f"{case}, {write}: {seen}")
        if enough(wrong):
            return stopped(wrong)
    combinations = 2 * len(OFF_MODES) * len(CALLS)
    expected = combinations * (len(EDITS) * len(GRAD_VIEWS) - 2 * len(EXPANDED))
    expected_uncounted = combinations * len(UNCOUNTED) * sum(row.source != "s" for row in GRAD_VIEWS)
    optimizers = fused_optimizers()
    steps = {(name, fused): _after_step(name, fused) for name in optimizers for fused in (False, True)}
    unstepped = {key: seen for key, seen in steps.items() if not all(seen)}
    return Fact(not wrong and runs == expected and uncounted_runs == expected_uncounted and bool(optimizers)
                and not unstepped,
                f"{runs} runs after a write that moves the counter (expected {expected}), {uncounted_runs} after one "
                f"that does not (expected {expected_uncounted}); not as stated: {wrong}; optimizers {optimizers}, "
                f"steps not as stated (as taken a leaf that requires grad, p changed, counter moved and clone raising "
                f"or counter at 0 and the view still a leaf passing no gradient): {unstepped or 'none'}")


#: The functions that hang all the views one call returns on one autograd node, each called on a 3×4 source.
SPLITS = {"unbind()": lambda s: s.unbind(), "split(1)": lambda s: s.split(1),
          "split_with_sizes([1, 2])": lambda s: s.split_with_sizes([1, 2]), "chunk(3)": lambda s: s.chunk(3)}
#: The sources those run on, each fresh and requiring grad: its leaf, and the source itself.
PIECE_SOURCES = {"leaf": lambda leaf: leaf, "non-leaf": lambda leaf: leaf * 1,
                 "Parameter": lambda leaf: torch.nn.Parameter(leaf.detach())}
#: What is done with an output o of one call after the version counter moved, with grad mode on: each must raise.
STALE_USES = {"o.clone()": lambda o: o.clone(), "torch.empty_like(o).copy_(o)": lambda o: torch.empty_like(o).copy_(o),
              "o.double()": lambda o: o.double(), "o.view(-1)": lambda o: o.view(-1), "o[0]": lambda o: o[0],
              "o * 2": lambda o: o * 2}
#: The writes after one call, by name: each gets the source, the outputs and the index of o, and says whether it
#: moves the version counter. An optimizer step runs only on a leaf or a Parameter, an edit with grad mode on only on
#: the non-leaf (a leaf refuses it).
GRAD_ON_EDIT = "the source with grad mode on"
PIECE_WRITES = {
    "the source under no_grad": (True, lambda s, outs, i: s.mul_(2)),
    "another output under no_grad": (True, lambda s, outs, i: outs[(i + 1) % len(outs)].mul_(2)),
    "o itself under no_grad": (True, lambda s, outs, i: outs[i].mul_(2)),
    GRAD_ON_EDIT: (True, lambda s, outs, i: s.mul_(2)),
    "a step of torch.optim.SGD": (True, lambda s, outs, i: _step(s, fused=False)),
    "no write, torch.autograd.graph.increment_version(source)": (
        True, lambda s, outs, i: torch.autograd.graph.increment_version(s)),
    "source.data.mul_(2)": (False, lambda s, outs, i: s.data.mul_(2)),
    "source.detach().numpy() times 2": (False, lambda s, outs, i: _times_two_through_numpy(s)),
    "a step of torch.optim.SGD with fused=True": (False, lambda s, outs, i: _step(s, fused=True)),
}


def _step(source: torch.Tensor, *, fused: bool) -> None:
    """backward() of (source * source).sum(), then one step of SGD (lr=0.1) on the source, then its .grad reset."""
    step = torch.optim.SGD([source], lr=0.1, fused=fused)
    (source * source).sum().backward()
    step.step()
    source.grad = None


def _piece_run(split, make, index: int, write: str) -> tuple[bool, ...]:
    """Output ``index`` of ``split`` of a fresh source, taken with grad mode on, then ``write``: (the output requires
    grad, the source's values changed unless no value was written, and then, after a write that moves the counter,
    each use of STALE_USES raising the RuntimeError of EDITED and MULTIPLE, o.detach().clone() holding o's values and
    the output of a call made again cloning with CloneBackward0; after one that does not, o's clone with
    CloneBackward0 passing the gradient on to the leaf)."""
    leaf = torch.arange(12.0).reshape(3, 4).clone().requires_grad_()
    source = make(leaf)
    root = source if source.is_leaf else leaf
    outs = split(source)
    o = outs[index]
    counted, change = PIECE_WRITES[write]
    before = source.detach().clone()
    with torch.no_grad() if write.endswith("under no_grad") else contextlib.nullcontext():
        change(source, outs, index)
    wrote = not torch.equal(before, source.detach()) or write.startswith("no write")
    if counted:
        fresh = split(source)[index].clone()
        stale = [_raises_edited(lambda use=use: use(o), MULTIPLE) for use in STALE_USES.values()]
        return (o.requires_grad, wrote, *stale, torch.equal(o.detach().clone(), split(source.detach())[index]),
                type(fresh.grad_fn).__name__ == "CloneBackward0")
    copy = o.clone()
    if type(copy.grad_fn).__name__ != "CloneBackward0":
        return (False,)
    root.grad = None
    copy.sum().backward()
    return o.requires_grad, wrote, root.grad is not None and root.grad.sum().item() == o.numel()


@fact("split-output-edit-breaks-clone", {
    "en": "Calls unbind(), split(1), split_with_sizes([1, 2]) and chunk(3), with grad mode on, on a fresh 3×4 source "
          "that requires grad (a leaf, a non-leaf, the leaf times 1, and a Parameter), and takes each output o of the "
          "call in turn, each time on a fresh source. Then moves the version counter o shares with the source: "
          "multiplies in place by 2, under torch.no_grad(), the source, another output of the call, or o itself; or "
          "the non-leaf with grad mode on; or runs backward() of (source * source).sum() and one step of "
          "torch.optim.SGD (lr=0.1) on the leaf or the Parameter; or writes nothing and calls "
          "torch.autograd.graph.increment_version(source). o still requires grad, and with grad mode on "
          f"{', '.join(STALE_USES)} each raise a RuntimeError saying \"... {EDITED} ...\" and that o is the output of "
          f"a function that \"{MULTIPLE}\"; o.detach().clone() holds o's values, and the same output of the same call "
          "made again has a clone with a CloneBackward0 node. After source.data.mul_(2), a write of 2 times the "
          "values into source.detach().numpy(), or that step with fused=True, which write the source without "
          "moving its counter, o's clone has a CloneBackward0 node, and "
          "backward() of its sum() gives the leaf behind the source a gradient of ones over o.",
    "zh_CN": "在梯度模式下，对新建的、需要梯度的 3×4 源张量（叶子张量、非叶子张量即叶子张量乘 1、Parameter）"
             "调用 unbind()、split(1)、split_with_sizes([1, 2]) 和 chunk(3)，依次取调用的每个输出 o，每次都用新的"
             "源张量。然后推进 o 与源张量共享的版本计数器：在 torch.no_grad() 下把源张量、调用的另一个输出或 o "
             "本身原地乘 2；或者在梯度模式下原地修改非叶子张量；或者对叶子张量或 Parameter 执行 "
             "(source * source).sum().backward() 和一步 torch.optim.SGD（lr=0.1）；或者什么也不写，只调用 "
             "torch.autograd.graph.increment_version(source)。o 仍然需要梯度，而在梯度模式下，"
             f"{'、'.join(STALE_USES)} 都抛出 RuntimeError，说“... {EDITED} ...”，"
             f"还说 o 是一个“{MULTIPLE}”的函数的输出；o.detach().clone() 的值与 o 相同，"
             "再调用一次同样的函数，同一个输出的副本带 CloneBackward0 节点。执行 source.data.mul_(2)，"
             "把 2 倍的值写进 source.detach().numpy()，或用 fused=True 执行那一步，它们改写源张量却不推进它的"
             "计数器：之后 o 的副本带 CloneBackward0 节点，"
             "对副本的 sum() 调用 backward()，源张量背后的叶子张量在 o 的位置上得到全为 1 的梯度。",
})
def _split_output_edit_breaks_clone() -> Fact:
    """An output of unbind/split/split_with_sizes/chunk, taken with grad mode on, is stale once the version counter it
    shares with its source moves: its copies and views raise with grad mode on; a write that moves no counter leaves
    it in the graph."""
    wrong, runs = [], 0
    for (name, split), (kind, make), write in itertools.product(SPLITS.items(), PIECE_SOURCES.items(), PIECE_WRITES):
        if (write == GRAD_ON_EDIT and kind != "non-leaf") or ("step" in write and kind == "non-leaf"):
            continue  # a leaf refuses an in-place edit with grad mode on; an optimizer takes leaves only
        for index in range(len(split(torch.zeros(3, 4)))):
            seen = _piece_run(split, make, index, write)
            runs += 1
            if not all(seen):
                wrong.append(f"{name}[{index}] of a {kind}, {write}: {seen}")
                if enough(wrong):
                    return stopped(wrong)
    outputs = sum(len(split(torch.zeros(3, 4))) for split in SPLITS.values())
    expected = outputs * (len(PIECE_SOURCES) * len(PIECE_WRITES) - 2 - 2)
    return Fact(not wrong and runs == expected, f"{runs} runs (expected {expected}); not as stated: {wrong or 'none'}")
