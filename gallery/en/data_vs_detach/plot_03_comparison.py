"""
.. _data-vs-detach-comparison:

The article's summary, checked claim by claim
=============================================

The article closes with what ``.data`` and ``detach()`` have in common and
how they differ. We run each statement on this torch: four hold (one of them
only in the author's meaning of a word), and one does not hold as stated.
"""

# %%
# One source
# ----------
#
# Most checks below start from ``out = a.sigmoid()``, the tensor the
# article detaches; the others say what they start from. They use the same helpers ``show`` and ``same_storage`` as
# on :ref:`the first page <data-vs-detach-data>`.
#
# ``bytes_apart`` tells whether two tensors' storages do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
import inspect

import torch


def show(name, t):
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}")


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
show("a", a)
show("out", out)

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
# Claim: both are in-place operations — holds in meaning, not in PyTorch's sense
# ------------------------------------------------------------------------------
#
# We note the values, shape and version of ``out``, take ``out.data`` and
# ``out.detach()``, and look at ``out`` again.
#
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article's summary says both are "in-place operations". Read as the
#    author means it, that holds: both work on the original data, without
#    copying it (each call returns a new tensor object that shares the
#    storage of ``out``). The word itself is wrong in PyTorch's sense, where
#    an in-place operation changes the tensor it is called on instead of
#    giving a new one. Most such operations also move that tensor's version
#    counter, but not all. Of those this site checked, some change values and
#    move none: ``apply_``, ``map_`` and ``map2_``, the kernels of an optimizer made with
#    ``fused=True``, and the other torch kernels listed on
#    :ref:`questions-version-counter`, such as the unscaling of
#    ``torch.amp.GradScaler.unscale_``. So does ``resize_`` or ``resize_as_`` to the shape
#    the tensor already has when given a ``memory_format`` it is not laid out in, such as
#    ``torch.channels_last`` for a contiguous 4-D tensor: it gives the tensor new strides,
#    so that it reads other values. Others change no values and move none
#    either, among them ``detach_()``, ``requires_grad_()``, ``share_memory_()``, and ``resize_`` or
#    ``resize_as_`` to the shape the tensor already has, given no ``memory_format`` (:ref:`copying-detach`).
#    Taking ``.data`` or ``.detach()`` leaves ``out`` with its values, shape
#    and version, still in the graph (output below). Only a later in-place
#    edit *through* the result, such as ``zero_()``, changes the source.
#    :fact:`inplace-ops-raise-version` :fact:`apply-map-not-counted`
#    :fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted`
#    :fact:`underscore-methods-not-counted` :fact:`same-shape-resize-memory-format-restrides`
values, shape, version = out.detach().clone(), out.shape, out._version
via_data = out.data
via_detach = out.detach()
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
print("via_data is out:", via_data is out)
print("via_detach is out:", via_detach is out)
assert out._version == version == 0, "taking .data or .detach() does not bump the version"
# sphinx_gallery_start_ignore
assert torch.equal(out, values) and out.shape == shape, "values and shape of out are unchanged"
assert out.requires_grad and out.grad_fn.name() == "SigmoidBackward0", "out is still in the graph"
assert via_data is not out and via_detach is not out, "both return a new tensor object"
# sphinx_gallery_end_ignore

# %%
# PyTorch marks in-place methods with a trailing underscore, and there *is*
# an in-place form of ``detach()``: ``detach_()``. It is a different method.
# It returns the very same object and takes that object itself out of the
# graph. On a tensor autograd records as a view (here ``b[:2]``) it raises
# instead; ``b.detach()`` and ``b.data`` read ``b``'s memory too, but autograd does
# not record them as views, and ``detach_()`` runs on ``b.detach()``. ``.data`` has no in-place
# method; its setter is another matter (next cell).
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out_b = b.sigmoid()
show("out_b (before detach_)", out_b)
result = out_b.detach_()
show("out_b (after detach_)", out_b)
print("result is out_b:", result is out_b)
print("Tensor has data_:", hasattr(torch.Tensor, "data_"))
assert result is out_b, "detach_() returns the same object"
try:
    b[:2].detach_()
except RuntimeError as e:
    print("b[:2].detach_():", str(e).split(". ")[0])
    assert "Can't detach views in-place" in str(e), "detach_() refuses a view"
else:
    raise AssertionError("detach_() on a view raised nothing")
detached = b.detach()
detached_back = detached.detach_()
print("b.detach().detach_() is b.detach():", detached_back is detached, " same storage as b:", same_storage(detached, b))
# sphinx_gallery_start_ignore
assert not out_b.requires_grad and out_b.grad_fn is None, "detach_() changed out_b itself"
assert detached_back is detached and same_storage(detached, b), "detach_() runs on b.detach(), which shares b's memory"
assert b[:2]._base is b and b.detach()._base is None and b.data._base is None, (
    "autograd tracks b[:2] as a view, not b.detach() or b.data")
assert not hasattr(torch.Tensor, "data_"), "there is no in-place form of .data"
# sphinx_gallery_end_ignore

# %%
# The setter ``p.data = t`` is worse than any in-place edit: it puts another
# tensor under ``p`` and checks little. Here a parameter of three floats
# becomes a 2×2 tensor of doubles; nothing raises, ``p`` is still a
# ``Parameter``, and ``_version`` stays 0, so autograd's version check has
# nothing to notice: ``loss``, built before the swap, reads the new tensor in
# ``backward()`` and fails on its shape instead.

p = torch.nn.Parameter(torch.zeros(3))
loss = (p * p).sum()
p.data = torch.zeros(2, 2, dtype=torch.float64)
print("p:", p)
print("p.shape:", tuple(p.shape), " p.dtype:", p.dtype, " p._version:", p._version)
assert tuple(p.shape) == (2, 2) and p.dtype == torch.float64 and p._version == 0, "p.data = t is silent"
# sphinx_gallery_start_ignore
assert isinstance(p, torch.nn.Parameter), "p is still a Parameter"
saved_p = loss.grad_fn.next_functions[0][0]._saved_self
assert saved_p is p and tuple(saved_p.shape) == (2, 2), "the graph built before the swap reads the new tensor"
# sphinx_gallery_end_ignore
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "must match the size" in str(e) and "modified by an inplace operation" not in str(e), (
        "backward() fails on the new shape, not on the version check")
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward() of the graph built before the swap must fail on the new shape")

# %%
# What the setter does check, as run here, is three things: that ``t`` is a tensor (``None``, a number or a list
# raises ``TypeError``), of a tensor type torch counts as compatible with ``p``'s, and, when ``p`` requires grad,
# with a floating-point or complex dtype. A sparse ``t`` under a dense ``p`` is not
# compatible, nor a ``t`` on ``meta`` under a ``p`` on the CPU, or the reverse;
# torch calls either an "incompatible tensor type". The shape it leaves alone,
# and a floating-point dtype replaced by another floating-point or by a complex
# one; for a tensor that does not require grad, an integer dtype passes too. Which devices count as compatible is
# torch's choice for each pair: the CPU and ``meta`` do not, so, with the default ``torch.__future__`` settings
# (neither overwriting nor swapping module parameters on conversion), ``nn.Module.to("meta")`` puts new
# ``Parameter`` objects in place instead of keeping them (for the CPU and a GPU, see the box below).
# :fact:`data-setter-checks` :fact:`module-to-meta-gives-new-parameters`

refused = []
for t in (torch.zeros(3, dtype=torch.int64), torch.zeros(3).to_sparse(), torch.zeros(3, device="meta")):
    try:
        p.data = t
    except RuntimeError as e:
        refused.append(t)
        print(f"p.data = ({t.dtype}, {t.layout}, {t.device}):", type(e).__name__ + ":", str(e).splitlines()[0])
    else:
        raise AssertionError("the setter must refuse this tensor")
print("p after the refusals:", tuple(p.shape), p.dtype, p.device)
assert len(refused) == 3, "the setter refuses an integer dtype, a sparse layout and a meta tensor under a CPU parameter"

q = torch.zeros(3)
q.data = torch.zeros(3, dtype=torch.int64)
print("q.requires_grad:", q.requires_grad, " q.dtype:", q.dtype)
assert q.dtype == torch.int64, "without requires_grad, an integer dtype passes"

lin = torch.nn.Linear(2, 2)
weight, bias = lin.weight, lin.bias
lin.to("meta")
print("lin.weight is weight:", lin.weight is weight, " lin.bias is bias:", lin.bias is bias, " device:", lin.weight.device)
assert lin.weight is not weight and lin.bias is not bias, "Module.to('meta') puts new Parameter objects in place"
# sphinx_gallery_start_ignore
assert all(isinstance(new, torch.nn.Parameter) and new.device.type == "meta" for new in (lin.weight, lin.bias)), (
    "the new objects are Parameters on meta")
assert weight.device.type == "cpu" and bias.device.type == "cpu", "the old Parameters stay on the CPU"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    The setter accepts a tensor on a GPU under a parameter on the CPU, and the reverse: torch counts
#    dense CPU and CUDA tensors as compatible tensor types. ``nn.Module.to()`` relies on it, and, with the
#    default ``torch.__future__`` settings, keeps each ``Parameter`` object while it moves the module between the
#    CPU and a GPU (PyTorch documentation:
#    `Module.to <https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.to>`__).
#    The cell below checks this only where torch finds a GPU; the box's title says whether the site's
#    build did.

if torch.cuda.is_available():
    g = torch.nn.Parameter(torch.zeros(3))
    g.data = torch.ones(3, device="cuda")
    print("g.device after g.data = (cuda tensor):", g.device)
    assert g.device.type == "cuda" and isinstance(g, torch.nn.Parameter), "a CUDA tensor passes under a CPU parameter"
    g.data = torch.ones(3)
    print("g.device after g.data = (cpu tensor):", g.device)
    assert g.device.type == "cpu", "a CPU tensor passes under a CUDA parameter"
    lin = torch.nn.Linear(2, 2)
    weight = lin.weight
    lin.to("cuda")
    print("lin.weight is weight:", lin.weight is weight, " device:", lin.weight.device)
    assert lin.weight is weight and weight.device.type == "cuda", "Module.to keeps the Parameter object"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# Claim: both share data with the source — holds
# ----------------------------------------------
#
# Both results read the storage of ``out``, so a change on either side shows
# on the other. We double ``out`` in place under ``torch.no_grad()``, so the
# graph does not record the edit (``out`` keeps its ``grad_fn``), and both
# results follow; then we write through each result and ``out`` follows.
for name, t in [("via_data", via_data), ("via_detach", via_detach)]:
    same = same_storage(t, out)
    print(f"{name} same storage as out:", same)
    # sphinx_gallery_start_ignore
    assert same, f"{name} shares storage with out"
    # sphinx_gallery_end_ignore

with torch.no_grad():
    out.mul_(2)
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
# sphinx_gallery_start_ignore
assert torch.equal(via_data, out) and torch.equal(via_detach, out), "an edit of out shows in both"
# sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert out.grad_fn.name() == "SigmoidBackward0", "the edit under no_grad was not recorded"
# sphinx_gallery_end_ignore

via_data[0] = 10.0
via_detach[1] = 20.0
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
assert out[0].item() == 10.0 and out[1].item() == 20.0, "edits through either one show in out"
# sphinx_gallery_start_ignore
assert len({id(out), id(via_data), id(via_detach)}) == 3, "three tensor objects"
assert (out._version, via_data._version, via_detach._version) == (2, 1, 2), (
    "out and via_detach share one counter, moved by out.mul_(2) and via_detach[1] = 20.0; via_data's own moved once")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names out, via_data and via_detach, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. Three tensor objects on one storage ``S1``; ``out`` and ``via_detach`` share the counter ``C1``, ``via_data`` has ``C2``.

draw_memory("out.mul_(2); via_data[0] = 10.0; via_detach[1] = 20.0", out=out, via_data=via_data, via_detach=via_detach)

# %%
# Claim: both leave the graph and do not require grad — holds
# -----------------------------------------------------------
#
# Both results have ``requires_grad=False``, no ``grad_fn``, and are leaves.
# Operations on them alone are not recorded, and no gradient flows back through them: a product with a
# tensor ``w`` that requires grad is recorded, but its gradient reaches ``w`` only. This is what the article means
# by "``.data`` cannot be tracked by autograd", and it is just as true of
# ``detach()``.
for name, t in [("via_data", via_data), ("via_detach", via_detach)]:
    y = t * 2
    print(f"{name}: requires_grad={t.requires_grad}  grad_fn={t.grad_fn}  is_leaf={t.is_leaf}")
    print(f"({name} * 2): requires_grad={y.requires_grad}  grad_fn={y.grad_fn}")
    assert not t.requires_grad and t.grad_fn is None and t.is_leaf, f"{name} is a detached leaf"
    # sphinx_gallery_start_ignore
    assert not y.requires_grad and y.grad_fn is None, f"operations on {name} alone are not recorded"
    w = torch.ones(3, requires_grad=True)
    product = t * w
    assert product.grad_fn is not None and [None if g is None else g.tolist() for g in torch.autograd.grad(
        product.sum(), [w, a], allow_unused=True)] == [t.tolist(), None], (
        f"{name} * w, with w requiring grad, is recorded, and its gradient reaches w and does not flow back through {name} to a")
    # sphinx_gallery_end_ignore

# %%
# Claim: ``.data`` is an attribute, ``detach()`` is a method — holds
# ------------------------------------------------------------------
#
# On the tensor class, ``data`` is a getset descriptor (a computed attribute,
# read without parentheses) and ``detach`` is a method descriptor. A computed
# attribute runs code on every read: each ``out.data`` is a new tensor object.
data_attr = inspect.getattr_static(torch.Tensor, "data")
detach_attr = inspect.getattr_static(torch.Tensor, "detach")
print("type of Tensor.data:  ", type(data_attr).__name__)
print("type of Tensor.detach:", type(detach_attr).__name__)
print("callable(out.data):  ", callable(out.data))
print("callable(out.detach):", callable(out.detach))
print("out.data is out.data:", out.data is out.data)
assert not callable(out.data) and callable(out.detach), "out.data is a tensor, out.detach is a method"
# sphinx_gallery_start_ignore
assert inspect.isgetsetdescriptor(data_attr), "Tensor.data is a getset descriptor (an attribute)"
assert inspect.ismethoddescriptor(detach_attr), "Tensor.detach is a method descriptor"
assert out.data is not out.data, "each read of .data builds a new tensor object"
# sphinx_gallery_end_ignore


# %%
# Claim: ``.data`` is unsafe, ``detach()`` is safe — the second does not hold as stated
# -------------------------------------------------------------------------------------
#
# ``detach()`` is safer, not safe. The version check that matters here is
# ``backward()``'s check of the tensors autograd *saved* for the backward
# pass; case 4 shows a second one. Case 1 is the article's: ``sigmoid`` saved its output, so the edit through ``detach()``
# is caught, while the same edit through ``.data`` gives a wrong gradient.
def sigmoid_case(how, take):
    print(f"case 1, edit through {how}:")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.sigmoid()
    take(y).zero_()
    print(f"  y._version={y._version}")
    try:
        y.sum().backward()
    except RuntimeError as err:
        print("  backward():", type(err).__name__)
        return None
    print("  backward(): no error, x.grad =", x.grad)
    return x.grad


grad_data = sigmoid_case(".data", lambda y: y.data)
grad_detach = sigmoid_case("detach()", lambda y: y.detach())
assert grad_detach is None, "detach(): the edit is caught"
# sphinx_gallery_start_ignore
assert grad_data is not None and torch.equal(grad_data, torch.zeros(3)), ".data: silent, wrong gradient"
# sphinx_gallery_end_ignore

# %%
# Case 2: the edited tensor was not saved. For ``out = a * 2`` autograd
# keeps only the constant 2 (``_saved_self`` is ``None``; like ``_version``,
# the ``_saved_*`` attributes are internal to torch and may change between
# releases), and ``sum()``
# keeps only the size of its input. Nobody saved ``out``, so ``backward()`` does not
# check its version. Zeroing ``out`` through ``detach()`` then raises nothing.
# ``a.grad`` is the gradient of the graph that was recorded, but ``loss`` no
# longer equals ``out.sum()``: the edit went unnoticed.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a * 2
loss = out.sum()
sum_saved = [k for k in dir(loss.grad_fn) if k.startswith("_saved")]
print(f"{out.grad_fn.name()} _saved_self:", out.grad_fn._saved_self)
print(f"{out.grad_fn.name()} _saved_other:", out.grad_fn._saved_other)
print(f"{loss.grad_fn.name()} saved fields:", sum_saved)
assert out.grad_fn._saved_self is None, "a * 2 did not save a"
# sphinx_gallery_start_ignore
assert out.grad_fn._saved_other.item() == 2, "a * 2 saved the constant 2"
assert sum_saved == ["_saved_self_sym_sizes"], "sum() saved only a size"
# sphinx_gallery_end_ignore

out.detach().zero_()
loss.backward()
show("a", a)
show("out", out)
print("loss:", loss)
print("out.sum():", out.sum())
print("a.grad:", a.grad)
assert loss.item() == 12.0 and out.sum().item() == 0.0, "loss no longer matches out"
# sphinx_gallery_start_ignore
assert out._version == 1, "the edit bumped out's version"
assert torch.equal(a.grad, torch.full((3,), 2.0)), "backward() ran and returned d(2a)/da = 2"
# sphinx_gallery_end_ignore

# %%
# Case 3: the edit comes before autograd saves the tensor. ``b = a * 2``
# saves nothing from ``a``; ``b.detach().mul_(10)`` makes ``b`` hold
# ``20 * a``; only then does ``b * b`` save ``b``, already edited. ``backward()``
# does not check a version that moved before the tensor was saved, and need
# not: to autograd the edit is a constant. ``backward()`` returns ``80 * a``, exactly
# what the same edit under ``torch.no_grad()`` gives, and what
# ``b + (9 * b).detach()`` gives (``b`` plus nine times itself as a constant):
# the gradient through ``b = 2 * a`` as recorded, at the values ``b`` holds.

def case_3(edit):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = edit(a * 2)
    (b * b).sum().backward()
    return b, a.grad


def through_detach(b):
    b.detach().mul_(10)
    return b


def under_no_grad(b):
    with torch.no_grad():
        b.mul_(10)
    return b


b, grad_detach = case_3(through_detach)
_, grad_no_grad = case_3(under_no_grad)
_, grad_constant = case_3(lambda b: b + (9 * b).detach())
show("b", b)
print("a.grad, edit through detach():", grad_detach)
print("a.grad, edit under no_grad():  ", grad_no_grad)
print("a.grad, b + (9 * b).detach():  ", grad_constant)
assert torch.equal(grad_detach, grad_no_grad) and torch.equal(grad_detach, grad_constant), (
    "the edit through detach(), under no_grad() or as a constant: one a.grad")
# sphinx_gallery_start_ignore
assert torch.equal(grad_detach, 80 * torch.tensor([1.0, 2.0, 3.0])), "backward() returned 80 * a"
# sphinx_gallery_end_ignore

# %%
# On a leaf, the same edit reaches the very tensor the gradient is taken
# for: ``a.detach().mul_(10)`` before ``(a * a).sum()`` saves ``a``, and
# ``backward()`` returns ``2 * a`` at the edited values, the gradient
# calculus gives for them.

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a.detach().mul_(10)
(a * a).sum().backward()
show("a", a)
print("a.grad:", a.grad)
assert torch.equal(a.grad, 2 * a.detach()), "the gradient at the edited values"
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), torch.tensor([10.0, 20.0, 30.0])), "the edit reached the leaf"
# sphinx_gallery_end_ignore

# %%
# Case 4 is the second check, outside ``backward()``. One call of ``unbind()``,
# ``split()`` or ``chunk()`` on a tensor that requires grad returns its outputs as views
# that require grad, one or more: three for ``q, k, v = x.chunk(3)``, one for ``x.chunk(1)``. After an in-place edit of
# one of them through ``detach()``, an operation autograd records refuses every
# output of that call, before any ``backward()``, whether the source is a leaf or not, and whether the call ran with
# grad mode on, under ``torch.no_grad()`` or inside ``torch.inference_mode()``; in the last two cases the message
# says the view was created in that mode (:ref:`copying-add-rebinding`
# shows the same after an edit under ``torch.no_grad()``). Through ``.data`` the
# edit moves only the version counter of the tensor ``.data`` returns (a counter of
# its own), not the one the outputs share with their source, and goes unnoticed.
# When the source never required grad there is no such check, even for an output
# made to require grad with its own ``requires_grad_()``, before or after the edit, the
# edited one included: ``t * weight``, with ``weight`` requiring grad, runs and is recorded for every
# output ``t`` (the second loop). A source that did not
# require grad when it was split but is made to require grad later with
# ``requires_grad_()``, before or after the edit, is checked like any other (the third loop).
# A leaf source that required grad when it was split and is switched off later with
# ``requires_grad_(False)``, before or after the edit, is still checked: its outputs keep requiring grad
# (the fourth loop).

def times_two_error(t):
    try:
        t * 2
    except RuntimeError as err:
        return str(err).split(".")[0]
    return "no error"


def edit_first(outputs, take):
    """Zero the first output through ``take``, then try ``t * 2`` on every output."""
    edited = take(outputs[0])
    edited.zero_()
    return edited, [times_two_error(t) for t in outputs]


splits = (("unbind", ()), ("split", (1,)), ("chunk", (3,)), ("chunk", (1,)))
routes = ((".data", lambda t: t.data), ("detach()", lambda t: t.detach()))
for split_name, split_args in splits:
    for how, take in routes:
        x = torch.ones(3, 2, requires_grad=True)
        outputs = getattr(x, split_name)(*split_args)
        q = outputs[0]
        edited, errors = edit_first(outputs, take)
        call = f"{split_name}({', '.join(map(str, split_args))})"
        print(f"{call:<9} outputs: {len(outputs)}, q = the first, zeroed through {how:<8} x[0] = {x[0].tolist()}"
              f"  q._version={q._version}  edited._version={edited._version}")
        print(f"{'':<9} last output * 2: {errors[-1]}")
        assert all(("modified inplace" in error) == (how == "detach()") for error in errors), (
            "after an edit through detach() every output is refused, after one through .data none")
        # sphinx_gallery_start_ignore
        assert edited._version == 1, "the edit moves the version counter of the tensor .data or detach() returns"
        assert all(t._version == x._version == (how == "detach()") for t in outputs), (
            "only the edit through detach() moves the version counter the outputs share with x")
        assert len(outputs) == (1 if call == "chunk(1)" else 3), "chunk(1) returns one output, the others three"
        assert torch.equal(x.detach()[0], torch.zeros(2)), "the edit reached x either way"
        # sphinx_gallery_end_ignore

# sphinx_gallery_start_ignore
def refused_after_edit(make_source, split_mode, refusal):
    """Per call and route, on the outputs of a fresh source split in this grad mode: do they all require grad, is
    each refused, with this message, exactly after an edit through detach(), and does only that edit move their
    shared counter?"""
    found = []
    for split_name_, split_args_ in splits:
        for how_, take_ in routes:
            split_source = make_source()
            with split_mode():
                split_outputs = {"unbind": torch.unbind, "split": torch.split, "chunk": torch.chunk}[split_name_](
                    split_source, *split_args_)
            _, split_errors = edit_first(split_outputs, take_)
            found.append(all(t.requires_grad and t._version == (how_ == "detach()") for t in split_outputs)
                         and all((refusal in error and "modified inplace" in error) == (how_ == "detach()")
                                 for error in split_errors))
    return found


assert all(all(refused_after_edit(make_source, split_mode, refusal))
           for make_source in (lambda: torch.ones(3, 2, requires_grad=True),
                               lambda: torch.ones(3, 2, requires_grad=True) * 1)
           for split_mode, refusal in ((torch.enable_grad, "is a view and its base"),
                                       (torch.no_grad, "A view was created in no_grad mode"),
                                       (torch.inference_mode, "A view was created in inference mode"))), (
    "for a leaf or a non-leaf source split with grad mode on, under no_grad or inside inference_mode, every output "
    "requires grad, and after an edit through detach() each is refused, by a message naming the mode the view was "
    "created in, and their counter moves, after one through .data none is and it does not")
# sphinx_gallery_end_ignore

weight = torch.ones(2, requires_grad=True)


def times_weight(t):
    try:
        return type((t * weight).grad_fn).__name__
    except RuntimeError as err:
        return str(err).split(".")[0]


for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (3,))):
    for own, when in (("none", ""), ("q", "before"), ("q", "after"), ("k", "before"), ("k", "after")):
        q, k, v = getattr(torch.ones(3, 2), split_name)(*split_args)  # a source that does not require grad
        if when == "before":
            {"q": q, "k": k}[own].requires_grad_()
        q.detach().zero_()
        if when == "after":
            {"q": q, "k": k}[own].requires_grad_()
        recorded = [times_weight(t) for t in (q, k, v)]
        print(f"source without grad, {split_name + '(),':<9} requires_grad_() on {own:<4} {when:<6}"
              f"  requires_grad (q, k, v): {[t.requires_grad for t in (q, k, v)]}  t * weight -> {sorted(set(recorded))}")
        assert [t.requires_grad for t in (q, k, v)] == [own == "q", own == "k", False] and all(
            name == "MulBackward0" for name in recorded), (
            "when the source never required grad, t * weight runs and is recorded for every output, "
            "one made to require grad with its own requires_grad_() included")

for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (3,))):
    for when in ("before", "after"):
        x = torch.ones(3, 2)
        q, k, v = getattr(x, split_name)(*split_args)  # split while x does not require grad
        if when == "before":
            x.requires_grad_()
        q.detach().zero_()
        x.requires_grad_()
        errors = [times_two_error(t) for t in (q, k, v)]
        print(f"requires_grad_() {when:<6} the edit, {split_name}(): x.requires_grad={x.requires_grad}")
        print(f"{'':<9} k * 2: {errors[1]}")
        assert all("modified inplace" in error for error in errors), (
            "a source made to require grad after the split is checked like any other, before or after the edit")

for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (3,))):
    for when in ("before", "after"):
        x = torch.ones(3, 2, requires_grad=True)
        q, k, v = getattr(x, split_name)(*split_args)  # split while x requires grad
        if when == "before":
            x.requires_grad_(False)
        q.detach().zero_()
        x.requires_grad_(False)
        errors = [times_two_error(t) for t in (q, k, v)]
        print(f"requires_grad_(False) {when:<6} the edit, {split_name}(): x.requires_grad={x.requires_grad}"
              f"  k.requires_grad={k.requires_grad}")
        print(f"{'':<9} k * 2: {errors[1]}")
        assert all(t.requires_grad for t in (q, k, v)) and all("modified inplace" in error for error in errors), (
            "a leaf source switched off after the split is still checked: its outputs keep requiring grad")

# %%
# Conclusion
# ----------
#
# Of the summary, "both share data" and "both leave the graph" hold,
# ".data is an attribute, detach() is a method" holds, "both are in-place"
# holds in the author's meaning (both work on the original data without
# copying) though neither is in-place in PyTorch's sense, and "detach() is
# safe" does not hold as stated: ``backward()``'s version check catches an
# in-place edit through ``detach()`` only when the edited tensor shares its version counter with a tensor
# autograd saved before the edit; after such an edit of one output of ``unbind()``, ``split()`` or ``chunk()`` of
# a tensor that requires grad, the second check (case 4) keeps every output of that call out of the operations
# autograd records.
# In practice: use ``detach()`` rather than ``.data``, and prefer
# out-of-place operations on the result: ``out.detach() * 0`` builds a new
# tensor and leaves ``out`` alone. When you need an independent copy to edit
# in place, use ``.detach().clone()``. The copy has its own storage, so
# editing it cannot touch the graph, and ``backward()`` stays correct.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
scaled = out.detach() * 0
copy = out.detach().clone()
copy.zero_()
out.sum().backward()
show("out", out)
show("scaled", scaled)
show("copy", copy)
print("scaled same storage as out:", same_storage(scaled, out))
print("copy same storage as out:", same_storage(copy, out))
print("a.grad:", a.grad)
s = out.detach()
assert torch.allclose(a.grad, s * (1 - s)), "backward() gives the correct gradient s * (1 - s)"
# sphinx_gallery_start_ignore
assert bytes_apart(scaled, out), "out-of-place gives new storage"
assert bytes_apart(copy, out), "the copy has its own storage"
assert out._version == 0 and not torch.equal(out, copy), "out is unedited (version 0) and unlike the zeroed copy"
# sphinx_gallery_end_ignore
