"""
.. _copying-detach:

``detach()``: same memory, out of the graph
===========================================

``a.detach()`` returns a tensor that shares ``a``'s memory but does not
require grad: for ``a`` of the default strided (dense) layout, a value edit through either one is seen by
both. This page runs the article's example, then tests its warning that ``resize_``, ``resize_as_``, ``set_`` and
``transpose_`` raise an error on either tensor. On this torch, for a new 2×3 ``a`` of that layout on the CPU (dense,
not nested), or a 2×3 view of all of one, of any dtype, without the conjugate or negative bit (``a.is_conj()``,
``a.is_neg()``), the detached tensor accepts all four as this page calls them, without a warning, given a new
strided CPU tensor of ``a``'s dtype for ``resize_as_`` and ``set_``, except ``set_`` from a tensor when ``a`` is
quantized, which raises ``NotImplementedError``, while on the detached tensor of a nested ``a`` of the strided
layout (``torch.nested.nested_tensor``'s default) all four raise; after each it stays linked to
its source by one version counter unless ``a`` is an inference tensor; with grad mode on, outside
``torch.inference_mode()``, the source leaf refuses them. :fact:`detach-metadata-calls-every-dtype`
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.

import io
import warnings
import zipfile

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


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
# The article's detach
# --------------------
#
# ``c`` shares ``a``'s memory. It does not require grad, has no ``grad_fn``,
# and is a leaf.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.detach()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
print("a.requires_grad:", a.requires_grad)
print("c.requires_grad:", c.requires_grad)
print("c.grad_fn:", c.grad_fn)
print("c.is_leaf:", c.is_leaf)
assert same_storage(a, c), "the detached tensor must share a's memory"
# sphinx_gallery_start_ignore
assert c.requires_grad is False, "the detached tensor must not require grad"
assert c.grad_fn is None, "the detached tensor must have no grad_fn"
assert c.is_leaf, "the detached tensor must be a leaf"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. Two tensor objects on one storage ``S1``, counting edits in one counter ``C1``.

draw_memory("c = a.detach()", a=a, c=c)

# %%
# The article's backward pass: ``a.grad`` is ``2 * a``. ``c`` is a leaf that does
# not require grad, so its ``.grad`` is ``None``, and, unlike the clone's on
# :ref:`the previous page <copying-clone>`, reading it raises no warning.

b = (a**2).sum()
b.backward()
print("a.grad:", a.grad)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    c_grad = c.grad
print("c.grad:", c_grad)
print("warnings when reading c.grad:", len(caught))
assert caught == [], "reading the .grad of a leaf must not warn"
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.tensor([2.0, 4.0, 6.0])), "a.grad must be 2 * a"
assert c_grad is None, "c.grad must be None"
# sphinx_gallery_end_ignore

# %%
# The article then writes ``a = 1`` and prints ``c`` unchanged. As on the
# :ref:`clone() page <copying-clone>`, that line only rebinds the name ``a``;
# ``c`` still shares memory with the tensor that ``a`` used to name.

a_old = a
a = 1
print("a:", a)
print("c:", c)
print("same storage as the old a:", same_storage(a_old, c))
assert same_storage(a_old, c), "c must still share the old tensor's memory"
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.tensor([1.0, 2.0, 3.0])), "c must be unchanged"
# sphinx_gallery_end_ignore

# %%
# Edits reach the other tensor, in both directions
# ------------------------------------------------
#
# On a fresh pair, a write through ``c`` shows up in ``a``. The two also share
# one version counter: both ``_version`` values go up together. (``_version``
# is an internal attribute of torch: this site reads it to show the counter,
# but it may change between releases.) Edits reach the other tensor in both directions for every kind of source this
# site checks in the default strided layout: a leaf, a non-leaf, a ``Parameter``, a view, a tensor that does not
# require grad, and an inference tensor edited inside ``torch.inference_mode()``; all but the inference tensor also
# move the one counter the two share: reading the ``_version`` of the inference tensor, or of its slice ``a[:1]``,
# raises; its ``.data`` and ``detach()``, taken outside the mode, are inference tensors too, yet reading their
# ``_version`` raises nothing: ``a.data._version`` reads 0 after the edits, and the ``detach()``, taken
# outside the mode, reads 0 before and after the edits. On the CPU the same holds for every dtype torch
# names, integer, bool, complex (a ``conj()`` view too) and quantized ones among them, and for a nested tensor of the
# strided layout, but some dtypes refuse some writes on the CPU. ``int1`` to ``int7`` and ``uint1`` to ``uint7`` have
# no copy kernel: ``copy_`` from a tensor of their own dtype or of ``int64``, ``fill_`` and an index write of a number
# each raise ``NotImplementedError``, and an edit written through ``view(torch.uint8)`` reaches the other tensor and
# moves the shared counter as above. The bits dtypes and ``float4_e2m1fn_x2`` take ``copy_`` from a tensor of their
# own dtype, and an edit written that way reaches the other tensor and moves the shared counter, but ``copy_`` from an
# ``int64`` tensor, ``fill_`` and an index write of a number each raise ``NotImplementedError``. On the packed
# quantized dtypes ``quint4x2`` and ``quint2x4``, ``copy_`` from a tensor of their own dtype, ``fill_`` and an index
# write of a number each raise ``NotImplementedError``, and on every quantized dtype ``copy_`` from an ``int64`` tensor
# raises ``RuntimeError``. A sparse tensor can differ: see the conclusion.
# :fact:`detach-edits-reach-both` :fact:`detach-edits-reach-both-every-dtype`

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.detach()
c[0] = 100.0
print("a:", a)
print("c:", c)
print("a._version:", a._version, " c._version:", c._version)
assert a[0] == 100.0, "a write through c must reach a"
# sphinx_gallery_start_ignore
assert a._version == c._version == 1, "a and c must share one version counter"
# sphinx_gallery_end_ignore

# %%
# The other direction runs here under ``torch.no_grad()``: ``a`` is a leaf that requires grad, and with grad
# mode on, outside ``torch.inference_mode()``, the index write ``a[1] = 200.0`` raises.
# :fact:`leaf-refuses-inplace`

try:
    a[1] = 200.0
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a[1] = 200.0 on a leaf that requires grad must raise while grad mode is on")
with torch.no_grad():
    a[1] = 200.0
print("a:", a)
print("c:", c)
print("a._version:", a._version, " c._version:", c._version)
assert c[1] == 200.0, "a write through a must reach c"
# sphinx_gallery_start_ignore
assert a._version == c._version == 2, "a and c must share one version counter"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. After one edit through each name, both show ``_version=2`` from the one counter ``C1``.

draw_memory("c[0] = 100.0; a[1] = 200.0", a=a, c=c)

# %%
# In-place size and storage changes
# ---------------------------------
#
# Each test in the next sections starts from a fresh pair, unless it says otherwise: a 2×3 leaf ``a``
# that requires grad, and ``d = a.detach()``. These are the four in-place calls the article names.

values = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def fresh_pair():
    a = torch.tensor(values, requires_grad=True)
    return a, a.detach()


changes = {
    "resize_(3, 2)": lambda t: t.resize_(3, 2),
    "resize_as_(torch.zeros(3, 2))": lambda t: t.resize_as_(torch.zeros(3, 2)),
    "set_(torch.zeros(6))": lambda t: t.set_(torch.zeros(6)),
    "transpose_(0, 1)": lambda t: t.transpose_(0, 1),
}

# %%
# On the detached tensor, all four succeed
# ----------------------------------------
#
# Each call changes the shape of ``d``, not of ``a``: ``a`` keeps its shape
# and its values. After ``resize_``, ``resize_as_`` and ``transpose_``, ``d``
# still looks at ``a``'s memory with a new shape; after ``set_``, ``d`` looks
# at other memory. The next two cells show what still links them.

# sphinx_gallery_start_ignore
expected_shapes = {
    "resize_(3, 2)": (3, 2),
    "resize_as_(torch.zeros(3, 2))": (3, 2),
    "set_(torch.zeros(6))": (6,),
    "transpose_(0, 1)": (3, 2),
}
# sphinx_gallery_end_ignore
for call, change in changes.items():
    a, d = fresh_pair()
    change(d)
    print(f"d.{call}")
    print("a:", a)
    print("d:", d)
    print("same storage:", same_storage(a, d))
    assert a.tolist() == values, f"d.{call} must leave a's values alone"
    # sphinx_gallery_start_ignore
    assert tuple(a.shape) == (2, 3), f"d.{call} must leave a's shape alone"
    assert tuple(d.shape) == expected_shapes[call], f"d.{call} must change d's shape"
    shares = not call.startswith("set_")
    assert same_storage(a, d) == shares, f"d.{call}: memory must stay shared unless set_"
    assert a._version == d._version == 1, f"d.{call} must move the version counter a and d share"
    # sphinx_gallery_end_ignore

# sphinx_gallery_start_ignore
def version_read(t):
    try:
        return t._version
    except RuntimeError as e:
        return "raises" if "do not track version counter" in str(e) else str(e)


def detached_results(make_source, grad_mode):
    """Per call on ``d``, the ``detach()`` of a fresh source, in this grad mode: the error, or ``d``'s shape after
    it, then ``(a._version, d._version)`` after it and after a later ``d.set_(torch.zeros(6))``."""
    results = []
    for metadata_change in changes.values():
        source = make_source()
        detached = source.detach()
        try:
            with grad_mode():
                metadata_change(detached)
                shape, after_call = tuple(detached.shape), (version_read(source), version_read(detached))
                changes["set_(torch.zeros(6))"](detached)
        except RuntimeError as e:
            results.append(str(e))
        else:
            results.append((shape, after_call, (version_read(source), version_read(detached))))
    return results


def made_in_inference_mode():
    with torch.inference_mode():
        return torch.tensor(values)


strided_sources = (
    lambda: torch.tensor(values, requires_grad=True),
    lambda: torch.tensor(values, requires_grad=True) * 2,
    lambda: torch.nn.Parameter(torch.tensor(values)),
    lambda: torch.tensor([[0.0, 0.0, 0.0], *values], requires_grad=True)[1:],
    lambda: torch.tensor(values),
)
grad_modes = (torch.enable_grad, torch.no_grad, torch.inference_mode)
assert all(detached_results(make_source, grad_mode) == [(shape, (1, 1), (2, 2)) for shape in expected_shapes.values()]
           for make_source in strided_sources for grad_mode in grad_modes), (
    "the detach() of a strided leaf, non-leaf, Parameter, view or tensor that does not require grad accepts all four "
    "calls, with grad mode on, under no_grad and inside inference_mode, and each call, then a later set_ through it, "
    "moves the version counter it shares with its source")
assert all([(shape, result[1][0], result[2][0]) for shape, result in zip(expected_shapes.values(), detached_results(
    made_in_inference_mode, grad_mode), strict=True)] == [(shape, "raises", "raises") for shape in expected_shapes.values()]
           for grad_mode in grad_modes), (
    "the detach() of an inference tensor accepts all four calls, with grad mode on, under no_grad and inside "
    "inference_mode, and reading the inference tensor's _version raises")
# sphinx_gallery_end_ignore

# %%
# Still one version counter
# -------------------------
#
# After ``d.set_(...)`` the two tensors no longer share memory, but they still
# share the version counter. ``d.add_(1)`` moves ``a._version``, so a graph
# like this page's, built after the ``set_`` and so saving ``a`` before the ``add_``, refuses to run
# ``backward()``, although ``a``'s values never changed. :fact:`detach-set-keeps-version-counter`

a, d = fresh_pair()
d.set_(torch.zeros(6))
loss = (a * a).sum()
version_before = a._version
d.add_(1)
print("same storage:", same_storage(a, d))
print("a._version before d.add_(1):", version_before, " after:", a._version)
assert a._version == version_before + 1, "d.add_(1) after d.set_ must still move a._version"
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    # sphinx_gallery_start_ignore
    assert "modified by an inplace operation" in str(e), "the error must be the version check"
    assert f"is at version {a._version}; expected version {version_before}" in str(e), (
        "the graph built after d.set_ saved a at its version before d.add_(1), and that edit alone trips the check")
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward must notice the edit through d")
# sphinx_gallery_start_ignore
assert a.tolist() == values, "a's values never changed"
# sphinx_gallery_end_ignore

# %%
# A ``resize_`` or ``resize_as_`` to the shape ``d`` already has leaves the counter as it is.

a, d = fresh_pair()
d.resize_(2, 3)
print("a._version after d.resize_(2, 3):", a._version)
d.resize_as_(torch.zeros(2, 3))
print("a._version after d.resize_as_(torch.zeros(2, 3)):", a._version, " d._version:", d._version)
print("d.shape:", tuple(d.shape))
assert a._version == d._version == 0, "a resize_ or resize_as_ to d's own shape must leave their counter at 0"
# sphinx_gallery_start_ignore
assert tuple(d.shape) == (2, 3) and same_storage(a, d), "d keeps its shape and a's memory"
# sphinx_gallery_end_ignore

# %%
# A ``resize_`` that outgrows the storage moves ``a`` as well
# -----------------------------------------------------------
#
# ``d.resize_(100)`` needs more memory than the 6 elements ``a`` and ``d``
# share. torch gives the storage they share a larger block of memory:
# ``a`` keeps its shape and values, in new memory. :fact:`detach-resize-grow-reallocates`
#
# On the CPU, the storage decides, through ``untyped_storage().resizable()``: only a storage that reports ``True``
# is moved so, such as the one torch allocates for a new tensor like ``a`` here, for a ``clone()`` or for a
# ``copy.deepcopy``. A storage that ``torch.load`` read onto the CPU from a file in the zip format ``torch.save``
# writes by default (with ``weights_only`` ``True`` or ``False``, with or without ``mmap=True``), and so a parameter
# that ``load_state_dict(..., assign=True)`` put in place from it, is not resizable, and neither is memory from
# ``torch.from_file``, NumPy, ``torch.frombuffer`` or DLPack: there the same call raises
# ``RuntimeError: Trying to resize storage that is not resizable`` and leaves ``a`` as it was (the ``torch.load`` cell below). A file
# in the legacy format (``torch.save(..., _use_new_zipfile_serialization=False)``, an internal option) gives a
# resizable storage instead, with ``weights_only`` ``True`` or ``False``, and so does a parameter that
# ``load_state_dict(..., assign=True)`` put in place from it: the call moves ``a`` as above. A storage moved
# to shared memory by ``a.share_memory_()`` reports ``True``, yet there the call crashes the process with a
# segmentation fault: no Python exception is raised, so no ``try``/``except`` around the call catches it.
# :fact:`detach-resize-grow-on-borrowed-memory`

a, d = fresh_pair()
old_address = a.untyped_storage().data_ptr()
print("resizable:", a.untyped_storage().resizable())
d.resize_(100)
print("a:", a)
print("d.shape:", tuple(d.shape))
print("a now in new memory:", a.untyped_storage().data_ptr() != old_address)
print("same storage:", same_storage(a, d))
print("bytes in a's storage:", a.untyped_storage().nbytes())
assert a.untyped_storage().data_ptr() != old_address, "a growing d.resize_ must move a's memory"
# sphinx_gallery_start_ignore
assert same_storage(a, d) and a.untyped_storage().nbytes() == 400, "a and d share the new storage"
assert a.tolist() == values and tuple(a.shape) == (2, 3), "a keeps its shape and values"
assert a._version == d._version == 1, "a growing d.resize_ must move the version counter a and d share"
assert a.untyped_storage().resizable(), "the storage torch allocated for a reports resizable() True"
# sphinx_gallery_end_ignore

# %%
# A tensor that ``torch.load`` read onto the CPU from the default zip format, here from a buffer in memory, is on a
# storage that is not resizable, and the same call raises. ``d`` keeps the shape ``(100,)`` it took before the error,
# which covers 400 bytes, over the old storage of 24 bytes: reading or writing the whole of ``d`` would go past
# the end of that memory. Do not use ``d`` after such an error; take a new ``d = a.detach()``.

buffer = io.BytesIO()
torch.save(torch.tensor(values), buffer)
buffer.seek(0)
a = torch.load(buffer, weights_only=True).requires_grad_()
d = a.detach()
print("resizable:", a.untyped_storage().resizable())
try:
    d.resize_(100)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a growing d.resize_ on a storage torch.load read from the zip format must raise")
print("a:", a)
print("d.shape:", tuple(d.shape), " bytes in d's storage:", d.untyped_storage().nbytes())
assert tuple(d.shape) == (100,) and d.untyped_storage().nbytes() == 24, "d keeps the shape (100,) over 24 bytes"
# sphinx_gallery_start_ignore
assert zipfile.is_zipfile(buffer), "torch.save wrote the buffer in the zip format"
assert not a.untyped_storage().resizable(), "the storage torch.load read reports resizable() False"
assert d.numel() * d.element_size() == 400, "d's shape (100,) covers 400 bytes"
assert a.tolist() == values and tuple(a.shape) == (2, 3) and a.untyped_storage().nbytes() == 24, (
    "a keeps its values and its shape, on its storage of 24 bytes")
assert tuple(a.detach().shape) == (2, 3) and same_storage(a, a.detach()), "a new a.detach() has a's shape again"
# sphinx_gallery_end_ignore

# %%
# On the source leaf, all four raise
# ----------------------------------
#
# The same calls on ``a`` raise ``RuntimeError``, with two different messages,
# and leave both tensors as they were.

resize_error = "cannot resize variables that require grad"
leaf_error = "a leaf Variable that requires grad is being used in an in-place operation."
leaf_errors = {
    "resize_(3, 2)": resize_error,
    "resize_as_(torch.zeros(3, 2))": resize_error,
    "set_(torch.zeros(6))": leaf_error,
    "transpose_(0, 1)": leaf_error,
}
for call, change in changes.items():
    a, d = fresh_pair()
    print(f"a.{call}")
    try:
        change(a)
    except RuntimeError as e:
        print(f"{type(e).__name__}: {e}")
        # sphinx_gallery_start_ignore
        assert str(e) == leaf_errors[call], f"a.{call} must raise this RuntimeError"
        # sphinx_gallery_end_ignore
    else:
        raise AssertionError(f"a.{call} must raise")
    # sphinx_gallery_start_ignore
    assert tuple(a.shape) == tuple(d.shape) == (2, 3), f"a.{call} must change no shape"
    assert same_storage(a, d), f"a.{call} must leave the memory shared"
    # sphinx_gallery_end_ignore

# %%
# The errors come from ``requires_grad``, not from ``detach()``
# -------------------------------------------------------------
#
# A leaf that requires grad and was never detached raises the same errors. The
# same tensor without ``requires_grad`` accepts all four calls.

for call, change in changes.items():
    lone = torch.tensor(values, requires_grad=True)
    print(f"lone.{call}")
    try:
        change(lone)
    except RuntimeError as e:
        print(f"{type(e).__name__}: {e}")
        assert str(e) == leaf_errors[call], f"lone.{call} must raise the same error as a.{call}"
    else:
        raise AssertionError(f"lone.{call} must raise")
    plain = torch.tensor(values)
    change(plain)
    print(f"plain.{call} -> shape", tuple(plain.shape))
    # sphinx_gallery_start_ignore
    assert tuple(plain.shape) == expected_shapes[call], f"plain.{call} must succeed"
    # sphinx_gallery_end_ignore

# %%
# A source that is not a leaf behaves differently again: ``x * 2`` accepts
# ``set_`` and ``transpose_`` and refuses only the two resizes, because it
# requires grad.

def accepts(t, change):
    try:
        change(t)
    except RuntimeError as e:
        print(f"    {type(e).__name__}: {e}")
        return False
    return True


accepted = []
for call, change in changes.items():
    x = torch.tensor(values, requires_grad=True)
    a = x * 2
    print(f"non-leaf a.{call}")
    if accepts(a, change):
        accepted.append(call)
        print("    accepted, shape", tuple(a.shape))
assert accepted == ["set_(torch.zeros(6))", "transpose_(0, 1)"], "a non-leaf accepts set_, transpose_"
# sphinx_gallery_start_ignore
def error_under(grad_mode, change, grad_on=False):
    leaf_source = torch.tensor(values, requires_grad=True)
    with grad_mode(), torch.set_grad_enabled(grad_on):
        assert torch.is_grad_enabled() == grad_on, (
            "grad mode is on in the check exactly when it turns it on, inside inference_mode too")
        try:
            change(leaf_source)
        except RuntimeError as e:
            return str(e)
    return None if leaf_source.requires_grad and leaf_source.is_leaf else "no longer a leaf that requires grad"


assert [error_under(torch.no_grad, change) for change in changes.values()] == [
    resize_error, resize_error, None, None], (
    "under no_grad a leaf that requires grad still refuses the two resizes, and accepts set_ and transpose_")
assert [error_under(torch.no_grad, change, grad_on=True) for change in changes.values()] == [
    resize_error, resize_error, leaf_error, leaf_error], (
    "with grad mode on, also by enable_grad inside no_grad, a leaf that requires grad refuses all four calls")
assert [error_under(torch.inference_mode, change) for change in changes.values()] == [None, None, None, None], (
    "under inference_mode a leaf that requires grad accepts all four calls")
assert [error_under(torch.inference_mode, change, grad_on=True) for change in changes.values()] == [
    None, None, None, None], "inside inference_mode a leaf that requires grad accepts all four calls with grad mode on"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article says that ``resize_``, ``resize_as_``, ``set_`` and
#    ``transpose_`` raise an error when done on either the detached tensor or
#    its source. That was true when it was written: up to torch 1.12 these
#    calls on a tensor from ``.data`` or ``.detach()`` raised "… is not
#    allowed on a Tensor created from .data or .detach()", and the
#    ``Tensor.detach`` docstring still said so in the 2.2 docs.
#    `pytorch/pytorch#83590 <https://github.com/pytorch/pytorch/pull/83590>`__
#    ("Always allow tensor metadata changes", August 2022) lifted the
#    restriction. On this torch all four, as this page calls them, succeed without a warning on the detached tensor
#    of a new 2×3 ``a`` of the default strided layout on the CPU (dense, not nested), or of a 2×3 view of all of one, of
#    any dtype, without the conjugate or negative bit (``a.is_conj()`` and ``a.is_neg()`` false; output above),
#    given a new strided CPU tensor of ``a``'s dtype for ``resize_as_`` and ``set_``, except ``set_`` from a tensor
#    when ``a`` is quantized, which raises ``NotImplementedError`` (``set_`` from a storage, an offset, a size and a
#    stride works). On the detached tensor of a nested ``a`` of the strided layout
#    (``torch.nested.nested_tensor``'s default), all four raise, whatever their arguments: the two
#    resizes ``RuntimeError`` (``NotImplementedError`` on an inference tensor inside ``torch.inference_mode()``),
#    ``set_`` and ``transpose_`` ``NotImplementedError``. :fact:`detach-metadata-calls-every-dtype` On the
#    detached tensor of a non-empty ``a`` with one of those bits, such as the views ``x.conj()`` and ``x.conj().imag`` of a
#    complex ``x``, ``resize_as_`` to a new shape warns (a ``UserWarning`` that an output was resized, which is
#    deprecated) and goes on, and it can rewrite the values ``a`` shows: on ``a = x[:, ::2].conj()`` it does.
#    :fact:`detach-resize-as-conj-neg-warns` On a dense ``a`` without those bits they change the detached tensor's
#    shape or storage, not ``a``'s, except
#    that a ``resize_`` that needs more bytes than their storage holds moves the
#    memory both use, when that storage is resizable (other storages: see above). Unless ``a`` is an inference
#    tensor, the two tensors keep sharing one version counter, which each of the four calls above moves by one (a
#    ``resize_`` or ``resize_as_`` to the shape ``d`` already has leaves it as it is). On the
#    source leaf they raise for two
#    reasons: the two resizes because it requires grad (under
#    ``torch.no_grad()`` too, and on a non-leaf that requires grad; under
#    ``torch.inference_mode()`` all four succeed on it), ``set_``
#    and ``transpose_`` because it is a leaf that requires grad and grad mode
#    is on, as here (under ``torch.no_grad()`` the leaf accepts them); the
#    non-leaf source ``x * 2`` accepts ``set_`` and ``transpose_``.

# %%
# Conclusion
# ----------
#
# ``detach()`` gives a tensor out of the graph on the same memory: for a tensor of the default strided layout,
# value edits through either name reach the other while both use that memory (``d.set_(...)``, or on the source
# ``a.set_(...)``, ``a.data = t`` or ``torch.nn.utils.vector_to_parameters``, each where torch accepts it, puts one of
# them on other memory, after which edits through either no longer reach the other), and both count the in-place
# torch operations among them in one shared ``_version``, before and after such a move (``apply_``, ``map_`` and
# ``map2_``, which run a Python function on each value, move no counter, and neither do a step of an optimizer
# made with ``fused=True`` and the other kernels this site checked, listed on :ref:`questions-version-counter`; other kernels may do the same),
# an inference tensor excepted, such as a source that ``torch.inference_mode()`` creates in new memory (a view of a
# normal tensor taken inside the mode by indexing is not one): reading the ``_version`` of such a source raises,
# while its ``detach()``, taken outside the mode, is an inference tensor too, yet reads 0 before and after such
# edits made inside the mode; an ``add_`` through it outside the mode reaches the source and moves the detached
# tensor's counter to 1, while reading the source's ``_version`` still raises.
# On a sparse COO tensor, some in-place edits through either name, among them ``mul_``, ``add_``, ``zero_`` and
# ``copy_``, give that tensor new memory for its values, so the other keeps its old values, though the ``_version``
# both read moves; others, such as ``div_``, reach the other, and on a sparse CSR tensor ``mul_`` and ``zero_``
# through the detached tensor reach its source.
# Shape and storage changes on the detached tensor of a dense ``a`` without the conjugate or negative bit change
# its shape, not ``a``'s (on a nested ``a`` of the strided layout they raise; with one of those bits, on a non-empty ``a``, ``resize_as_`` to a new shape
# warns and can change ``a``'s values); unless ``a`` is an inference tensor, the two keep sharing one version counter, which each
# of the four calls above moves by one. A ``resize_`` that needs more bytes than
# the storage holds moves it by one as well, and moves ``a``'s memory too, when the storage
# is resizable (``untyped_storage().resizable()``), as the one torch allocates for a new tensor, a ``clone()``
# or a ``copy.deepcopy`` is, and the one ``torch.load`` reads from a legacy-format file; on a storage that
# ``torch.load`` read onto the CPU from the default zip format, or memory from ``torch.from_file``, NumPy,
# ``torch.frombuffer`` or DLPack, it raises instead, leaving ``d`` with the new shape over the old memory, not
# to be used again (take a new ``d = a.detach()``), and after ``share_memory_()`` it crashes the process with a
# segmentation fault that no ``try``/``except`` catches.
# The article's third example, where ``a`` is rebound after ``detach()``, is
# the subject of :ref:`copying-rebinding`.
# :fact:`detach-resize-grow-on-borrowed-memory` :fact:`counter-bypass-edits-silent`
# :fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted`
# :fact:`detach-edits-reach-both` :fact:`detach-edits-reach-both-every-dtype`
# :fact:`detach-sparse-coo-edit-not-shared` :fact:`inference-mode-new-memory-is-inference`
# :fact:`inference-mode-views-of-normal-tensor` :fact:`detach-metadata-calls-every-dtype`
# :fact:`detach-resize-as-conj-neg-warns` :fact:`detach-memory-moved-apart`
