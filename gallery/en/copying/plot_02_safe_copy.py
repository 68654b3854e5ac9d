"""
.. _copying-safe-copy:

The safest copy: ``a.detach().clone()``
=======================================

The article calls ``a.detach().clone()`` the safest way to copy a tensor: the
result leaves the autograd graph and gets memory of its own. This page checks
both halves of that promise, and shows edits in either direction staying put.
"""

# %%
# A helper for the whole page
# ---------------------------
#
# On a device with real memory (not ``meta``, where every storage starts at
# address 0), two tensors whose storages hold bytes share memory when those storages start at
# the same address (whether they also share an element is another question:
# :ref:`questions-memory-overlap`). Different starts do not by themselves rule out shared memory
# (:ref:`copying-alias` shows aliases whose storages start inside their source's), so where this page
# prints ``same storage`` ``False`` for a copy of ``a``, a check with ``bytes_apart`` (below) also finds that the
# copy's storage and ``a``'s share no byte. (A storage of no bytes, such as that of a freshly made empty tensor
# (``torch.empty(0)``), has no memory to share, so the helper is not meant for one, nor for a fake tensor, made under
# the internal ``torch._subclasses.fake_tensor.FakeTensorMode``, even one whose device reads ``cpu``.)
#
# ``bytes_apart`` tells whether the byte ranges of two tensors' storages in this process do not overlap at all; for
# memory mapped once, as on this page, that means that no memory is shared (one file mapped twice shares memory at two
# address ranges apart).
# :fact:`file-mapped-twice-shares-bytes`

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap (memory mapped once: no byte shared)."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


# sphinx_gallery_start_ignore
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.zeros(2, device="meta"), torch.ones(3, dtype=torch.int64, device="meta"),
    torch.empty(0, dtype=torch.complex64, device="meta"), torch.zeros(4, dtype=torch.float8_e4m3fn, device="meta"),
    torch.arange(12.0).reshape(3, 4).to("meta")[1:].t())), (
    "on meta every storage starts at address 0: float, integer, complex, float8, empty, moved there or a view")
assert same_storage(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), (
    "on meta same_storage finds unrelated tensors sharing memory")
assert torch.empty(0).untyped_storage().nbytes() == 0, "the storage of a freshly made empty tensor has no bytes"



overlap_source = torch.arange(4.0)
overlap_alias = torch.from_numpy(overlap_source[1:].numpy())
assert not same_storage(overlap_source, overlap_alias) and not bytes_apart(overlap_source, overlap_alias), (
    "a NumPy alias of a slice at offset 1 starts at another address, yet its storage's bytes overlap the source's")
# sphinx_gallery_end_ignore


# %%
# Drawing helpers
# ---------------
#
# Every picture on this page is drawn from the live tensors by the helper functions below, with
# matplotlib. Every page that draws carries the same code, so the page folds it away; the downloaded
# script and notebook carry it in full.

import matplotlib.pyplot as plt

INK, PAPER, FILLS = "#1f2937", "#ffffff", ("#dbeafe", "#fde68a", "#d1fae5", "#fbcfe8", "#f3f4f6")


def _canvas(width, height, title, xlim, ylim):
    plt.close("all")  # one picture per cell: the pictures of earlier cells were shown already
    fig, ax = plt.subplots(figsize=(width, height), facecolor=PAPER)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.99 - 0.4 / height)
    ax.set_title(title, family="monospace", size=12, color=INK)
    ax.set(xlim=xlim, ylim=ylim)
    ax.set_axis_off()
    return ax


def _box(ax, xy, text, fill):
    return ax.text(*xy, text, ha="center", va="center", family="monospace", size=12, color=INK,
                   bbox={"boxstyle": "round,pad=0.4", "facecolor": fill, "edgecolor": INK})  # fmt: skip


def _arrow(ax, start, end):
    ax.annotate("", end.get_position(), start.get_position(), annotation_clip=False,
                arrowprops={"arrowstyle": "-|>", "color": INK, "shrinkA": 3, "shrinkB": 3,
                            "patchA": start.get_bbox_patch(), "patchB": end.get_bbox_patch()})  # fmt: skip


def _short(values):
    """Numbers to four significant digits, as the printed tensors round them: labels stay narrow."""
    if isinstance(values, list):
        return [_short(v) for v in values]
    return float(f"{values:.4g}") if isinstance(values, float) else values


def _first_seen(items, identity):
    seen = []
    for item in items:
        if not any(identity(item) == identity(other) for other in seen):
            seen.append(item)
    return seen


def shared_counters(tensors):
    """Which tensors share one version counter: move one counter on, see whose ``_version`` moved, put it
    back. ``increment_version`` is public; the context manager that puts the counter back is torch's own and
    takes one tensor on every release the site supports (the private function it calls changed its arguments)."""
    label = {}
    for t in tensors:
        if id(t) not in label:
            versions = [u._version for u in tensors]
            with torch.autograd._unsafe_preserve_version_counter(t):  # sets t's counter back on leaving
                torch.autograd.graph.increment_version(t)
                counter = f"C{len(set(label.values())) + 1}"
                label.update((id(u), counter) for u, v in zip(tensors, versions, strict=True) if u._version != v)
    return label


def draw_memory(title, **names):
    """Names -> tensor objects -> storages (S1, S2 ... in order of appearance) and version counters."""
    tensors = _first_seen(names.values(), id)  # id() only groups here; it is never drawn
    storages = _first_seen([t.untyped_storage().data_ptr() for t in tensors], int)
    counters, rows = shared_counters(tensors), max(len(names), 1)
    left = max(0.25, 0.1 + 0.022 * max(map(len, names), default=0))  # room for the longest name, same scale
    ax = _canvas(5.6 * (left + 2.2) / 2.45, 0.5 + 0.95 * rows, title, (-left, 2.2), (rows - 0.5, -0.5))
    tensor_boxes, storage_boxes = {}, [_box(ax, (2.05, s), f"S{s + 1}", FILLS[s % 4]) for s in range(len(storages))]
    for r, t in enumerate(tensors):
        s = storages.index(t.untyped_storage().data_ptr())
        values = _short(t.tolist()) if t.numel() <= 4 else f"shape={tuple(t.shape)}"
        grad = f"grad_fn={type(t.grad_fn).__name__}" if t.grad_fn else f"requires_grad={t.requires_grad}"
        tensor_boxes[id(t)] = _box(
            ax, (1.05, r), f"{values}\n{grad}\n_version={t._version} ({counters[id(t)]})", FILLS[s % 4]
        )
        _arrow(ax, tensor_boxes[id(t)], storage_boxes[s])
    for r, (label, t) in enumerate(names.items()):
        _arrow(ax, _box(ax, (0, r), label, FILLS[4]), tensor_boxes[id(t)])


def draw_versions(title, names, steps):
    """A ``_version`` timeline: ``steps`` lists (code, the names' ``_version`` values) recorded as the code ran."""
    ax = _canvas(5.6, 0.9 + 0.6 * len(names), title, (-1.6, len(steps) - 0.5), (len(names) - 0.4, -1.1))
    for r, label in enumerate(names):
        _box(ax, (-1, r), label, FILLS[4])
        for col, (_, versions) in enumerate(steps):
            changed = col > 0 and versions[r] != steps[col - 1][1][r]
            _box(ax, (col, r), f"{versions[r]}", FILLS[1] if changed else PAPER)
    for col, (code, _) in enumerate(steps):
        ax.text(col, -0.85, code, ha="center", va="center", family="monospace", size=10, color=INK)


def _saved(node):
    """The tensors a node saved: (attribute, version text), with the versions an in-place edit broke."""
    for attr in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            value = getattr(node, attr)
        except RuntimeError as e:  # "... is at version 1; expected version 0 instead.", or freed by backward()
            if "is at version " not in str(e):
                continue
            now, saved = str(e).split("is at version ")[1].split("; expected version ")
            yield attr[7:], f"_version {now} != {saved.split(' ')[0]}"
        else:
            if isinstance(value, torch.Tensor):
                yield attr[7:], f"_version {value._version}"


def _children(node):
    if isinstance(node, torch.Tensor):
        return []
    children = [f for f, _ in node.next_functions if f is not None]
    return children + ([node.variable] if hasattr(node, "variable") else [])


def draw_graph(title, root, **leaves):
    """The autograd graph under ``root``: grad_fn nodes, AccumulateGrad and leaves, saved tensors."""
    levels, seen = [[root.grad_fn]], {id(root.grad_fn)}
    while levels[-1]:
        levels.append([child for node in levels[-1] for child in _children(node) if id(child) not in seen])
        levels[-1] = _first_seen(levels[-1], id)
        seen.update(id(child) for child in levels[-1])
    width = max(5.6, 2.9 * max(map(len, levels)))
    ax = _canvas(width, 0.3 + 1.1 * (len(levels) - 1), title, (-1, 1), (len(levels) - 1.5, -0.5))
    boxes = {}
    for depth, level in enumerate(levels):
        for i, node in enumerate(level):
            xy = ((2 * i + 1) / len(level) - 1, depth)
            if isinstance(node, torch.Tensor):
                label = next((k for k, v in leaves.items() if v is node), "leaf")
                boxes[id(node)] = _box(ax, xy, f"{label}\n_version={node._version}", FILLS[2])
            else:
                saved = "".join(f"\n{attr}: {text}" for attr, text in _saved(node))
                fill = FILLS[1] if "!=" in saved else FILLS[0]
                boxes[id(node)] = _box(ax, xy, type(node).__name__ + saved, fill)
    for level in levels:
        for node in level:
            for child in _children(node):
                _arrow(ax, boxes[id(node)], boxes[id(child)])


def draw_processes(title, child, **names):
    """This process and a child forked from it: a storage in shared memory (``is_shared()``) is one storage
    that both map; the child gets any other storage as a copy of its own. ``child`` says what the child ran."""
    tensors = _first_seen(names.values(), id)
    storages = _first_seen([t.untyped_storage().data_ptr() for t in tensors], int)
    ax = _canvas(8.4, 1.0 + 0.95 * len(names), title, (-0.75, 3.75), (len(names) - 0.5, -1.1))
    ax.axvspan(1.22, 1.78, color=FILLS[4], zorder=0)
    for x, header in ((0.5, "this process"), (1.5, "shared memory"), (2.5, f"child: {child}")):
        ax.text(x, -0.85, header, ha="center", va="center", family="monospace", size=10, color=INK)
    for r, (label, t) in enumerate(names.items()):
        s = storages.index(t.untyped_storage().data_ptr())
        values = _short(t.tolist()) if t.numel() <= 4 else f"shape={tuple(t.shape)}"
        here = _box(ax, (0, r), f"{label}\n{values}\nis_shared()={t.is_shared()}", FILLS[s % 4])
        there = _box(ax, (3, r), f"{label}\n(forked)", FILLS[s % 4])
        if t.is_shared():
            segment = _box(ax, (1.5, r), f"S{s + 1}", FILLS[s % 4])
            _arrow(ax, here, segment)
            _arrow(ax, there, segment)
        else:
            _arrow(ax, here, _box(ax, (0.9, r), f"S{s + 1}", FILLS[s % 4]))
            _arrow(ax, there, _box(ax, (2.1, r), f"copy of S{s + 1}", FILLS[s % 4]))

# %%
# Make the copy
# -------------
#
# ``a`` is a leaf that requires grad. ``detach()`` first gives a tensor outside
# the graph that shares ``a``'s memory; ``clone()`` then copies it into new
# memory.

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.detach().clone()
print("a:", a)
print("b:", b)
print("same storage:", same_storage(a, b))
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), b), "the copy must hold the same values"
assert same_storage(a, a.detach()), "detach() must share a's memory"
# sphinx_gallery_end_ignore
assert bytes_apart(a, b), "the copy must have its own memory"
# sphinx_gallery_start_ignore
assert bytes_apart(a, b), "the storage of a.detach().clone() shares no byte with a's"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and b, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. ``b`` has a storage of its own, ``S2``.

draw_memory("b = a.detach().clone()", a=a, b=b)

# %%
# Outside the graph
# -----------------
#
# The copy does not require grad, has no ``grad_fn`` and is a leaf: for
# autograd it is a brand-new constant, unrelated to ``a``.

print("b.requires_grad:", b.requires_grad)
print("b.grad_fn:", b.grad_fn)
print("b.is_leaf:", b.is_leaf)
assert b.requires_grad is False, "the copy must not require grad"
# sphinx_gallery_start_ignore
assert b.grad_fn is None, "the copy must have no grad_fn"
assert b.is_leaf, "the copy must be a leaf"
# sphinx_gallery_end_ignore

# %%
# Autograd has nothing to follow from the copy. A loss built only from ``b``
# cannot be differentiated at all.

loss = (b**2).sum()
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "does not require grad" in str(e), "the error must say that the loss does not require grad"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward through the copy must fail")
print("a.grad:", a.grad)
# sphinx_gallery_start_ignore
assert a.grad is None, "a must receive no gradient from the copy"
# sphinx_gallery_end_ignore

# %%
# Edits to the copy stay in the copy
# ----------------------------------
#
# Writing into ``b`` leaves ``a`` unchanged.

b[0] = 100.0
print("a:", a)
print("b:", b)
assert torch.equal(a.detach(), torch.tensor([1.0, 2.0, 3.0])), "a must not change"
# sphinx_gallery_start_ignore
assert a._version == 0, "a's version counter must not count an edit of the copy"
# sphinx_gallery_end_ignore

# %%
# Edits to the source stay in the source
# --------------------------------------
#
# The other direction holds too. ``a`` is a leaf that requires grad, and with
# grad mode on, outside ``torch.inference_mode()``, torch refuses the in-place call
# ``a.mul_(10)`` on it (see :ref:`copying-rebinding`), so the edit runs under ``torch.no_grad()``.
# :fact:`leaf-refuses-inplace`

with torch.no_grad():
    a.mul_(10)
print("a:", a)
print("b:", b)
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), torch.tensor([10.0, 20.0, 30.0])), "a.mul_(10) under no_grad() made a [10, 20, 30]"
# sphinx_gallery_end_ignore
assert torch.equal(b, torch.tensor([100.0, 2.0, 3.0])), "b must not change"

# %%
# PyTorch recommends the same idiom
# ---------------------------------
#
# ``torch.tensor(a)`` also copies, but it warns, and on torch |torch_version| its
# warning names ``detach().clone()`` as the recommended way. The warning is
# captured here on purpose and printed.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = torch.tensor(a)
for w in caught:
    print(w.category.__name__ + ":", w.message)
print("t:", t)
print("same storage:", same_storage(a, t))
assert "detach().clone()" in str(caught[0].message), "the warning must recommend detach().clone()"
# sphinx_gallery_start_ignore
assert len(caught) == 1, "torch.tensor(a) must warn once"
assert caught[0].category is UserWarning, "the warning must be a UserWarning"
assert bytes_apart(a, t), "torch.tensor(a) gave a copy with its own storage"
assert bytes_apart(a, t), "the storage of torch.tensor(a) shares no byte with a's"
# sphinx_gallery_end_ignore

# %%
# ``torch.as_tensor`` and ``torch.asarray``: "make it a tensor", not "copy it"
# ----------------------------------------------------------------------------
#
# Given a tensor, and with no default device set, ``torch.as_tensor(a)`` and ``torch.asarray(a)`` return
# that very tensor, graph and all: they are for code that accepts a list, an array or a tensor and wants a tensor. But
# an inference tensor that requires grad, such as a parameter of a module built under ``torch.inference_mode()``,
# makes ``torch.asarray(a)`` raise a ``RuntimeError`` outside that mode. ``torch.asarray``
# copies when told ``copy=True`` (such a tensor too, with no error), but, on this torch, without ``requires_grad=`` the copy follows
# ``a``: given a tensor that requires grad, it requires grad, so an integer or bool ``dtype=``, whose tensors cannot
# require grad, makes ``torch.asarray`` raise a ``RuntimeError`` (with or without ``copy=True``) unless
# ``requires_grad=False`` is passed too, which gives a copy of that dtype. For a dense leaf, non-leaf, ``Parameter`` or view of a
# leaf made outside ``torch.inference_mode()`` (the sources checked here), with grad mode on (not inside
# ``torch.inference_mode()``) it stays in the graph, like ``a.clone()``; under
# ``torch.no_grad()`` or ``torch.inference_mode()`` it is a new leaf that still requires grad (under
# ``torch.inference_mode()`` an inference tensor), where ``a.clone()`` gives a tensor that does not require grad.
# With ``requires_grad=False`` as well it is a copy outside the graph, with the same values as
# ``a.detach().clone()``. Under a
# default device (set by ``torch.set_default_device`` or ``with torch.device(...)``) of ``"cpu:0"`` or ``meta``,
# given a dense CPU tensor ``a`` of float32 (as here), int64, bool or complex64, not a nested, mkldnn or quantized
# one, ``torch.as_tensor(a)`` and ``torch.asarray(a)`` return a new tensor with ``a``'s shape and dtype, on a device of
# that type. Under ``"cpu:0"`` it is a copy of ``a``'s values in memory of its own, and its device is ``cpu``, as
# ``a``'s is: the default device ``torch.device("cpu:0")`` does not equal ``a``'s device ``torch.device("cpu")``, and
# ``a`` is copied, yet the copy's device is ``cpu``, not ``cpu:0`` (last lines). On ``meta`` it holds no values at
# all. ``a`` comes back itself under ``"cpu"``, and ``on_meta``, a tensor on ``meta``, under
# ``torch.device("meta")``; ``on_meta`` has no data to copy, so under ``"cpu"`` or ``"cpu:0"`` they raise a
# ``NotImplementedError``.
# :fact:`default-device-makes-as-tensor-copy`
#
# Given a tensor that requires grad and no ``requires_grad=``, ``torch.asarray`` warns that its default for
# ``requires_grad=`` changed (a ``UserWarning``, which the cell below catches without printing), with or without ``copy=True``, but only on the first such
# call in a process (on every such call after ``torch.set_warn_always(True)``); passing ``requires_grad=``, with or
# without ``copy=True``, or calling ``torch.as_tensor``, gives no warning.
# :fact:`asarray-warns-once-without-requires-grad`
#
# Every call of this paragraph is made with no default device set. Without ``copy=True``, pass
# ``requires_grad=a.requires_grad`` to silence it: given a tensor ``a``, it returns ``a`` itself, which keeps its
# ``requires_grad``, its ``grad_fn`` and its type (a ``Parameter`` stays a ``Parameter``);
# ``requires_grad=True`` does the same for a tensor that requires grad. On an inference tensor that requires grad,
# outside ``torch.inference_mode()``, both raise the same ``RuntimeError`` as ``torch.asarray(a)``.
# ``requires_grad=False`` silences it too, but given a leaf that requires grad of its own (one made with
# ``requires_grad=True``, say, or a ``Parameter``), it changes that leaf: ``torch.asarray(a, requires_grad=False)``
# returns ``a`` itself with its ``requires_grad`` switched off in place. Take a tensor that requires grad, is not an
# inference tensor and is not itself a view (a view made a leaf with ``requires_grad_()`` still counts as one). A view
# of it taken with grad mode off (under ``torch.no_grad()``, ``torch.inference_mode()`` or
# ``torch.set_grad_enabled(False)``), by an operation autograd records in grad mode (not, for example, ``detach()``,
# ``view(dtype)`` or a sparse tensor's ``indices()``, whose results do not require grad), is a leaf too, but one that
# requires grad because its base does: ``torch.asarray(view, requires_grad=False)`` returns
# that view itself, unchanged, and it still requires grad. ``torch.asarray(view)``, ``requires_grad=view.requires_grad``
# and ``requires_grad=True`` return that view too, but change it as ``view.requires_grad_()`` would (see
# :ref:`the clone page <copying-clone>`): a clone of it taken afterwards passes it a gradient, which fills its
# ``.grad``, while without the call its ``.grad`` stays ``None``; ``torch.as_tensor(view)`` leaves it unchanged.
# Such a view is a leaf only until the version counter it shares with its base moves, as it does after ``mul_()`` on
# the view, on its base or on another view of its base, even under ``torch.no_grad()``, or after a step of
# ``torch.optim.SGD`` on the base. From then on, with grad mode on, reading its ``is_leaf`` or cloning it raises a
# ``RuntimeError``, whether ``requires_grad_()`` or ``torch.asarray(view, requires_grad=True)`` was called on it or
# not. A write that moves no version counter (a step of an optimizer made with ``fused=True``, or a write through
# ``.data`` or NumPy) leaves it a leaf.
# A view taken by such an operation of a strided inference tensor that requires grad is a leaf that does not
# require grad in every grad mode, grad mode on included, outside ``torch.inference_mode()`` or inside it: a slice of a
# parameter of a module built under ``torch.inference_mode()``, taken while training, is one.
# ``torch.asarray(view)``, ``requires_grad=view.requires_grad`` and ``requires_grad=False`` return it unchanged, and,
# called outside ``torch.inference_mode()``, ``requires_grad=True`` raises the ``RuntimeError`` above (inside it,
# ``requires_grad=True`` returns the view with its ``requires_grad`` switched on).
# Given a non-leaf ``y``,
# ``torch.asarray(y, requires_grad=False)`` leaves ``y`` as it was (its ``requires_grad`` and its ``grad_fn`` kept) and returns a tensor
# that shares its memory, outside the graph. The other way round, given a floating-point tensor that does not require
# grad, not an inference tensor, ``torch.asarray(x, requires_grad=True)`` returns ``x`` itself with its
# ``requires_grad`` switched on in place: it makes no trainable copy.
# :fact:`asarray-requires-grad-without-copy` :fact:`no-grad-view-edit-breaks-clone`

with warnings.catch_warnings(record=True) as asarray_caught:  # catches torch's warning (given once per process)
    warnings.simplefilter("always")
    by_default = torch.asarray(a, copy=True)
# sphinx_gallery_start_ignore
assert len(asarray_caught) <= 1 and all(
    asarray_warning.category is UserWarning and "requires_grad" in str(asarray_warning.message)
    for asarray_warning in asarray_caught), (
    "torch.asarray(a, copy=True) warns at most once, a UserWarning about the default of requires_grad")
with warnings.catch_warnings(record=True) as again_caught:
    warnings.simplefilter("always")
    torch.asarray(a, copy=True)
assert not again_caught, "torch.asarray(a, copy=True) gives its warning once per process"
with warnings.catch_warnings(record=True) as explicit_caught:
    warnings.simplefilter("always")
    torch.asarray(a, copy=True, requires_grad=True)
    torch.asarray(a, copy=True, requires_grad=False)
assert not explicit_caught, "with requires_grad passed, torch.asarray(a, copy=True) does not warn"
# sphinx_gallery_end_ignore
made = {
    "torch.as_tensor(a)": torch.as_tensor(a),
    "torch.asarray(a)": torch.asarray(a),
    "torch.asarray(a, copy=True)": by_default,
    "torch.asarray(a, copy=True, requires_grad=False)": torch.asarray(a, copy=True, requires_grad=False),
}
for name, made_tensor in made.items():
    node = type(made_tensor.grad_fn).__name__ if made_tensor.grad_fn else None
    print(f"{name}: is a {made_tensor is a}, same storage {same_storage(a, made_tensor)}, grad_fn {node}")
assert made["torch.as_tensor(a)"] is a and made["torch.asarray(a)"] is a, "both return a itself"
assert bytes_apart(a, by_default) and type(by_default.grad_fn).__name__ == "CloneBackward0", (
    "torch.asarray(a, copy=True) is a copy recorded as CloneBackward0")
outside = made["torch.asarray(a, copy=True, requires_grad=False)"]
assert bytes_apart(a, outside) and outside.grad_fn is None and not outside.requires_grad, (
    "torch.asarray(a, copy=True, requires_grad=False) is a copy that needs no grad")
assert torch.equal(outside, a.detach().clone()), "the same values as a.detach().clone()"
# sphinx_gallery_start_ignore
assert bytes_apart(a, by_default) and bytes_apart(a, outside), (
    "the storages of torch.asarray(a, copy=True), with or without requires_grad=False, share no byte with a's")
# sphinx_gallery_end_ignore
for mode_name, grad_mode in {"torch.no_grad()": torch.no_grad, "torch.inference_mode()": torch.inference_mode}.items():
    with grad_mode():
        followed, cloned = torch.asarray(a, copy=True), a.clone()
    print(f"under {mode_name}: asarray copy requires_grad {followed.requires_grad}, is_leaf {followed.is_leaf}, "
          f"inference {followed.is_inference()}; a.clone() requires_grad {cloned.requires_grad}")
    assert followed.requires_grad and followed.is_leaf and not cloned.requires_grad, (
        "outside grad mode the asarray copy is a leaf that requires grad, and a.clone() does not require grad")
# sphinx_gallery_start_ignore
sources_that_require_grad = {
    "leaf": lambda: torch.tensor([1.0, 2.0], requires_grad=True),
    "non-leaf": lambda: torch.tensor([1.0, 2.0], requires_grad=True) * 2,
    "Parameter": lambda: torch.nn.Parameter(torch.tensor([1.0, 2.0])),
    "view of a leaf": lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True)[1:],
}
for make_source in sources_that_require_grad.values():
    for grad_mode_made in (torch.enable_grad, torch.no_grad, torch.inference_mode):
        source = make_source()
        with grad_mode_made():
            copy_made, switched_off, clone_made = (torch.asarray(source, copy=True),
                                                   torch.asarray(source, copy=True, requires_grad=False),
                                                   source.clone())
        assert copy_made.requires_grad and bytes_apart(source, copy_made), (
            "without requires_grad, torch.asarray(x, copy=True) of a tensor that requires grad is a copy that "
            "requires grad, in every grad mode")
        graph_kept = grad_mode_made is torch.enable_grad
        assert (type(copy_made.grad_fn).__name__ == "CloneBackward0") == graph_kept == (not copy_made.is_leaf), (
            "the asarray copy is in the graph (CloneBackward0) with grad mode on, and a leaf under no_grad and "
            "inference_mode")
        assert clone_made.requires_grad == graph_kept, "x.clone() requires grad only with grad mode on"
        assert copy_made.is_inference() == (grad_mode_made is torch.inference_mode), (
            "under inference_mode the asarray copy is an inference tensor")
        assert not switched_off.requires_grad and switched_off.grad_fn is None and bytes_apart(
            source, switched_off) and torch.equal(switched_off, source.detach()), (
            "torch.asarray(x, copy=True, requires_grad=False) is a copy outside the graph in every grad mode")
    source = make_source()
    with torch.inference_mode(), torch.enable_grad():
        copy_made, clone_made = torch.asarray(source, copy=True), source.clone()
    assert copy_made.requires_grad and copy_made.is_leaf and copy_made.is_inference() and not clone_made.requires_grad, (
        "inside inference_mode, even under enable_grad(), the asarray copy is an inference leaf that requires grad, and "
        "x.clone() does not require grad")
# sphinx_gallery_end_ignore
for device in ("cpu:0", "meta"):
    with torch.device(device):
        moved = torch.as_tensor(a), torch.asarray(a)
    print(f"under torch.device({device!r}): is a {[m is a for m in moved]}, device {[str(m.device) for m in moved]}")
    assert all(m is not a and m.device.type == torch.device(device).type and m.shape == a.shape and m.dtype == a.dtype
               for m in moved), (
        f"under torch.device({device!r}) as_tensor(a) and asarray(a) are new tensors on a device of that type, "
        "with a's shape and dtype")
on_meta = torch.ones(3, device="meta")
with torch.device("meta"):
    kept = torch.as_tensor(on_meta), torch.asarray(on_meta)
print('under torch.device("meta"), as_tensor/asarray of a meta tensor is that tensor:', [k is on_meta for k in kept])
# sphinx_gallery_start_ignore
assert all(k is on_meta for k in kept), 'under torch.device("meta") as_tensor and asarray return a meta tensor itself'
with torch.device("cpu:0"):
    copied_under_cpu0 = torch.as_tensor(a), torch.asarray(a)
    assert all(m.device == a.device != torch.get_default_device() for m in copied_under_cpu0), (
        'under torch.device("cpu:0") the copies made by as_tensor(a) and asarray(a) are on a\'s device cpu, which '
        'does not equal the default device cpu:0')
assert all(bytes_apart(a, m) and bytes_apart(a, m) and torch.equal(m, a) for m in copied_under_cpu0), (
    'under torch.device("cpu:0") as_tensor(a) and asarray(a) hold a copy of a\'s values, in memory of their own')
with torch.device("cpu"):
    assert torch.as_tensor(a) is a and torch.asarray(a) is a, 'under torch.device("cpu") as_tensor(a) and asarray(a) return a'
with torch.device("meta"):
    emptied_on_meta = torch.as_tensor(a), torch.asarray(a)
for emptied_ in emptied_on_meta:
    try:
        emptied_.tolist()
    except NotImplementedError:
        pass
    else:
        raise AssertionError('under torch.device("meta") as_tensor(a) and asarray(a) hold no values to read')
with torch.device("cpu:0"):
    made_under_cpu0 = torch.ones(3)
    assert str(made_under_cpu0.device) == "cpu" and all(bytes_apart(made_under_cpu0, m) for m in (
        torch.as_tensor(made_under_cpu0), torch.asarray(made_under_cpu0))), (
        'a tensor made under "cpu:0" is on "cpu", and as_tensor and asarray copy it there')
# The same for a non-leaf source: as_tensor and asarray return it, graph and all.
doubled = a * 2
assert torch.as_tensor(doubled) is doubled and torch.asarray(doubled) is doubled, "no copy of a non-leaf either"
doubled_node = doubled.grad_fn
doubled_alias = torch.asarray(doubled, requires_grad=False)
assert doubled_alias is not doubled and same_storage(doubled, doubled_alias) and doubled_alias.grad_fn is None and (
    not doubled_alias.requires_grad) and doubled.requires_grad and doubled.grad_fn is doubled_node, (
    "torch.asarray(a * 2, requires_grad=False) leaves a * 2 as it was and returns a tensor on its memory, outside "
    "the graph")
assert torch.asarray(doubled, copy=True, requires_grad=False).grad_fn is None, (
    "torch.asarray(a * 2, copy=True, requires_grad=False) has no grad_fn")
with torch.inference_mode():
    inference_sources = (torch.nn.BatchNorm1d(3).weight, torch.ones(3, requires_grad=True))
for inference_source in inference_sources:
    assert inference_source.is_inference() and inference_source.requires_grad, (
        "a parameter of a module built under inference_mode, or a tensor made there with requires_grad=True, is an "
        "inference tensor that requires grad")
    for grad_mode_outside in (torch.enable_grad, torch.no_grad, lambda: torch.set_grad_enabled(False)):
        with grad_mode_outside():
            assert torch.as_tensor(inference_source) is inference_source, (
                "torch.as_tensor returns an inference tensor that requires grad itself, outside inference_mode")
            for asarray_kwargs in ({}, {"requires_grad": inference_source.requires_grad}, {"requires_grad": True}):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        torch.asarray(inference_source, **asarray_kwargs)
                except RuntimeError as inference_error:
                    assert "Setting requires_grad=True on inference tensor outside InferenceMode" in str(
                        inference_error), "the error says requires_grad=True is not allowed outside InferenceMode"
                else:
                    raise AssertionError("outside inference_mode, torch.asarray(x), torch.asarray(x, requires_grad="
                                         "x.requires_grad) and torch.asarray(x, requires_grad=True) raise on an "
                                         "inference tensor x that requires grad")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                inference_copies = [torch.asarray(inference_source, copy=True, **asarray_kwargs) for asarray_kwargs in (
                    {}, {"requires_grad": False}, {"requires_grad": True})]
            assert all(bytes_apart(inference_copy, inference_source) and not inference_copy.is_inference()
                       for inference_copy in inference_copies), (
                "outside inference_mode, torch.asarray(x, copy=True) of an inference tensor x that requires grad raises "
                "nothing and is an ordinary copy, with or without requires_grad=")
            assert inference_copies[0].requires_grad and inference_copies[0].is_leaf != (
                grad_mode_outside is torch.enable_grad), (
                "without requires_grad=, that copy requires grad: in the graph with grad mode on, a leaf with it off")
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert all(torch.asarray(inference_source, **asarray_kwargs) is inference_source for asarray_kwargs in (
            {}, {"requires_grad": True})), "inside inference_mode torch.asarray returns that inference tensor itself"
for grad_mode_taken in (torch.enable_grad, torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    off_base, sparse_base = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True).to_sparse()
    with grad_mode_taken():
        unrecorded_views = (off_base.detach(), off_base.view(torch.float32), off_base.view(torch.int32),
                            sparse_base.indices())
    assert sparse_base.requires_grad and not any(unrecorded.requires_grad for unrecorded in unrecorded_views), (
        "detach(), view(dtype) and a sparse tensor's indices() of a tensor that requires grad do not require grad")
view_bases = (lambda: torch.ones(3, requires_grad=True), lambda: torch.nn.Parameter(torch.ones(3)),
              lambda: torch.ones(3, requires_grad=True) * 2)  # a leaf, a Parameter and a non-leaf, none of them a view
recorded_views = (lambda view_base: view_base[1:], lambda view_base: view_base.view(3, 1),
                  lambda view_base: view_base.expand(2, 3), lambda view_base: view_base.unbind()[0],
                  lambda view_base: view_base.t())
for grad_off in (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    for make_base in view_bases:
        for grad_mode_asked in (torch.enable_grad, torch.no_grad):
            for take_view in recorded_views:
                off_base = make_base()
                with grad_off():
                    off_view = take_view(off_base)
                with grad_mode_asked():
                    kept_view = torch.asarray(off_view, requires_grad=False)
                assert same_storage(off_base, off_view) and kept_view is off_view and off_view.is_leaf and (
                    off_view.requires_grad), (
                    "torch.asarray(view, requires_grad=False) of a view taken with grad mode off of a tensor that "
                    "requires grad returns that view itself, a leaf that still requires grad")
with torch.inference_mode():  # a complex one and one on meta besides
    viewed_inference_sources = (*inference_sources, torch.ones(3, dtype=torch.complex64, requires_grad=True),
                                torch.ones(3, device="meta", requires_grad=True))
for view_grad_mode, grad_on_inside in ((torch.enable_grad, True), (torch.no_grad, False), (torch.inference_mode, False),
                                       (torch.inference_mode, True), (lambda: torch.set_grad_enabled(False), False)):
    for inference_source in viewed_inference_sources:
        for grad_mode_asked in (torch.enable_grad, torch.no_grad):
            for take_view in recorded_views:
                with view_grad_mode(), torch.set_grad_enabled(grad_on_inside):
                    inference_view = take_view(inference_source)
                with grad_mode_asked(), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    inference_view_kept = [torch.asarray(inference_view, **asarray_kwargs) for asarray_kwargs in (
                        {}, {"requires_grad": inference_view.requires_grad}, {"requires_grad": False})]
                    try:
                        torch.asarray(inference_view, requires_grad=True)
                    except RuntimeError as inference_view_error:
                        assert "Setting requires_grad=True on inference tensor outside InferenceMode" in str(
                            inference_view_error), (
                            "on a view of an inference tensor, requires_grad=True raises that it is not allowed "
                            "outside InferenceMode")
                    else:
                        raise AssertionError("torch.asarray(view, requires_grad=True) raises on a view taken in any "
                                             "grad mode of an inference tensor that requires grad")
                assert inference_source.is_inference() and inference_source.requires_grad and (
                    inference_view.is_leaf) and not inference_view.requires_grad and all(
                    returned_view is inference_view for returned_view in inference_view_kept), (
                    "a view taken in any grad mode, grad mode on included, of an inference tensor that requires grad "
                    "is a leaf that does not require grad, and torch.asarray(view), alone or with "
                    "requires_grad=view.requires_grad or requires_grad=False, returns it unchanged")
                with torch.inference_mode(), grad_mode_asked():
                    switched_inference_view = torch.asarray(inference_view, requires_grad=True)
                assert switched_inference_view is inference_view and inference_view.requires_grad, (
                    "inside inference_mode, torch.asarray(view, requires_grad=True) returns that view of an inference "
                    "tensor with its requires_grad switched on")
off_view_calls = {  # a call on a view taken with grad mode off, and whether its clone then passes it a gradient
    "torch.asarray(view)": (lambda v: torch.asarray(v), True),
    "requires_grad=view.requires_grad": (lambda v: torch.asarray(v, requires_grad=v.requires_grad), True),
    "requires_grad=True": (lambda v: torch.asarray(v, requires_grad=True), True),
    "requires_grad=False": (lambda v: torch.asarray(v, requires_grad=False), False),
    "torch.as_tensor(view)": (lambda v: torch.as_tensor(v), False),
}
for grad_off in (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    for make_base in view_bases:
        for grad_mode_asked in (torch.enable_grad, torch.no_grad):
            for call_on_view, passes_gradient in (*off_view_calls.values(), (None, False)):
                for take_view in recorded_views:
                    off_base = make_base()
                    with grad_off():
                        off_view = take_view(off_base)
                    with grad_mode_asked(), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        called_view = off_view if call_on_view is None else call_on_view(off_view)
                    assert called_view is off_view, (
                        "torch.asarray and torch.as_tensor of a view taken with grad mode off return that view itself")
                    off_view.clone().sum().backward()
                    assert (not off_base.is_leaf or off_base.grad is None) and (
                        torch.equal(off_view.grad, torch.ones_like(off_view)) if passes_gradient
                        else off_view.grad is None), (
                        "after torch.asarray(view), alone or with requires_grad=view.requires_grad or requires_grad="
                        "True, a clone of a view taken with grad mode off passes the view a gradient; after "
                        "torch.as_tensor(view), requires_grad=False or no call, its .grad stays None")
sources_without_grad = {
    "tensor": lambda dtype: torch.ones(3, dtype=dtype),
    "view of it": lambda dtype: torch.ones(3, dtype=dtype)[1:],
    "detached leaf": lambda dtype: torch.ones(3, dtype=dtype, requires_grad=True).detach(),
    "Parameter": lambda dtype: torch.nn.Parameter(torch.ones(3, dtype=dtype), requires_grad=False),
}
for make_plain in sources_without_grad.values():
    for plain_dtype in (torch.float32, torch.float64, torch.bfloat16):
        for grad_mode_called in (torch.enable_grad, torch.no_grad, torch.inference_mode):
            plain = make_plain(plain_dtype)
            with grad_mode_called():
                switched_on = torch.asarray(plain, requires_grad=True)
            assert switched_on is plain and plain.requires_grad and type(plain) is type(make_plain(plain_dtype)), (
                "torch.asarray(x, requires_grad=True) of a tensor that does not require grad returns x itself, "
                "its requires_grad switched on in place")
whole_dtypes = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16, torch.uint32, torch.uint64,
                torch.bool)
whole_sources = (*sources_that_require_grad.values(),
                 *(lambda inference_kept=inference_kept: inference_kept for inference_kept in inference_sources))
for make_source in whole_sources:
    for grad_mode_made in (torch.enable_grad, torch.no_grad, torch.inference_mode):
        for whole_dtype in whole_dtypes:
            for copy_asked in ({}, {"copy": True}):
                whole_source = make_source()
                with grad_mode_made(), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        torch.asarray(whole_source, dtype=whole_dtype, **copy_asked)
                    except RuntimeError as whole_error:
                        assert "Only Tensors of floating point and complex dtype can require gradients" in str(
                            whole_error), "the error says only floating-point and complex tensors can require grad"
                    else:
                        raise AssertionError("given a tensor that requires grad, torch.asarray with an integer or bool "
                                             "dtype=, with or without copy=True, raises")
                    whole_copy = torch.asarray(whole_source, dtype=whole_dtype, requires_grad=False, **copy_asked)
                assert whole_copy.dtype == whole_dtype and not whole_copy.requires_grad and bytes_apart(
                    whole_source, whole_copy), (
                    "with requires_grad=False as well, torch.asarray gives a copy of that integer or bool dtype")
# sphinx_gallery_end_ignore


# %%
# ``clone().detach()`` gives the same tensor the long way
# -------------------------------------------------------
#
# The other order gives equal values, memory of its own and no graph too. The difference is the
# work: ``a.clone()`` first records a ``CloneBackward0`` node in the graph, which ``detach()`` then
# drops, while ``a.detach().clone()`` clones a tensor that does not require grad, and nothing is recorded.

the_long_way, the_short_way = a.clone().detach(), a.detach().clone()
print("a.clone().grad_fn:", type(a.clone().grad_fn).__name__, " a.detach().clone().grad_fn:", a.detach().clone().grad_fn)
print("equal:", torch.equal(the_long_way, the_short_way),
      " same storage as a:", same_storage(a, the_long_way), same_storage(a, the_short_way),
      " requires_grad:", the_long_way.requires_grad, the_short_way.requires_grad)  # fmt: skip
assert (
    torch.equal(the_long_way, the_short_way) and not the_long_way.requires_grad and not the_short_way.requires_grad
), "a.clone().detach() equals a.detach().clone(), and neither requires grad"
assert bytes_apart(a, the_long_way) and bytes_apart(a, the_short_way), "each has memory of its own"
assert type(a.clone().grad_fn).__name__ == "CloneBackward0" and a.detach().clone().grad_fn is None, (
    "a.clone() records CloneBackward0; a.detach().clone() records no node")
# sphinx_gallery_start_ignore
assert bytes_apart(a, the_long_way) and bytes_apart(a, the_short_way), (
    "the storages of a.clone().detach() and a.detach().clone() share no byte with a's")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``a.detach().clone()`` gives a tensor with the same values, its own memory and
# no link to the graph: edits in either direction stay put, and no gradient
# flows back to ``a``. The next pages take the two halves apart:
# :ref:`clone() alone <copying-clone>` keeps the graph, :ref:`detach() alone <copying-detach>` keeps the memory.
# With no default device set, ``torch.as_tensor(a)`` and ``torch.asarray(a)`` are not copies: they return
# ``a`` itself (but outside ``torch.inference_mode()``, ``torch.asarray(a)`` raises on an inference tensor that
# requires grad).
