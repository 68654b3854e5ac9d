"""
.. _questions-views:

Views: which operations share memory, and what writing through them does
========================================================================

.. admonition:: Answer
   :class: answer

   On the CPU, where ``expand`` makes several elements one memory location, writes such as
   ``wide[0] = 1.0``, ``add_(1.0)`` or a ``copy_`` from a tensor over other memory are refused. ``clone()``
   gives each element memory of its own:

   .. code-block:: python

      wide = column.expand(3, 4)
      wide = wide.clone()
      wide[0] = 1.0

After ``wide = column.expand(3, 4)``, a write into ``wide`` such as
``wide[0] = 1.0`` gives this error: ``RuntimeError: unsupported operation:
more than one element of the written-to tensor refers to a single memory
location. Please clone() the tensor before performing the operation.``
Why a similar line does not raise is `pytorch/pytorch#42726
<https://github.com/pytorch/pytorch/issues/42726>`__. This page lists which
operations return views, when ``reshape`` copies, and what a base and its
views share: memory, one version counter, and, for a view taken with grad
mode on outside ``torch.inference_mode()``, an autograd history
(``CopySlices``).
"""

# %%
# Helpers
# -------
#
# A view has a ``_base``: the tensor whose memory it uses (except a view of an inference tensor,
# which has none: :ref:`questions-inference-mode`; of the operations torch's documentation lists as views,
# ``detach()``, ``view(dtype)`` and a sparse tensor's ``indices()`` set none either, nor do ``.real`` of a real
# tensor, ``.mT`` of a 0-d tensor and ``.H``, ``.mH`` and ``adjoint()`` of a 0-d real tensor, which return the
# tensor itself: checked in the section on ``_base`` below).
#
# ``bytes_apart`` tells whether two tensors' storages do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


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
# Which operations return a view
# ------------------------------
#
# Slicing, integer indexing, ``view``, ``reshape`` of a contiguous tensor,
# ``t()`` and ``expand`` return views of ``x``. Indexing with a list of Python
# integers or a mask ("advanced" indexing) copies, and so do ``reshape`` and
# ``contiguous()`` when the layout has to change.
x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
results = {
    "x[0]": x[0],
    "x[:, 1:]": x[:, 1:],
    "x.view(3, 2)": x.view(3, 2),
    "x.reshape(3, 2)": x.reshape(3, 2),
    "x.t()": x.t(),
    "x[:, :1].expand(2, 3)": x[:, :1].expand(2, 3),
    "x[[0, 1]]": x[[0, 1]],
    "x[x > 2]": x[x > 2],
    "x.t().reshape(6)": x.t().reshape(6),
    "x.t().contiguous()": x.t().contiguous(),
}
views = [name for name, result in results.items() if result._base is x]
for name, result in results.items():
    print(f"{name:<22} view of x: {name in views!s:<5}  same storage: {same_storage(result, x)}")
assert views == list(results)[:6], "the first six are views, the last four are copies"
# sphinx_gallery_start_ignore
assert all(same_storage(results[key], x) for key in views), "every view shares x's memory"
assert all(bytes_apart(results[key], x) for key in list(results)[6:]), (
    "advanced indexing, x.t().reshape and x.t().contiguous() share no memory with x")
# sphinx_gallery_end_ignore

# %%
# ``view`` or ``reshape``
# -----------------------
#
# ``x.t()`` is not contiguous: reading its rows in order jumps around in
# memory (its strides give the place of each element in ``x``'s memory, printed
# below). ``view`` refuses to flatten it and points to ``reshape``, which
# copies.
places = [row * x.t().stride(0) + column * x.t().stride(1) for row in range(3) for column in range(2)]
print("places in memory of x.t()'s elements, row by row:", places)
assert places != sorted(places), "reading x.t() row by row does not go through memory in order"
try:
    x.t().view(6)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("view() of a non-contiguous layout must raise")
print("x.t().is_contiguous():", x.t().is_contiguous())
print("x.t().reshape(6):", x.t().reshape(6))
assert not x.t().is_contiguous(), "x.t() is not contiguous"
assert "Use .reshape(...) instead" in message, "view points to reshape"

# %%
# ``contiguous()`` of a tensor that already is contiguous returns the tensor
# itself: not a copy, not even a new object.
print("x.contiguous() is x:", x.contiguous() is x)
assert x.contiguous() is x, "contiguous() returns self when there is nothing to do"

# %%
# Writing through ``expand``
# --------------------------
#
# ``expand`` repeats an element by a stride of 0, without copying: the four
# entries of each row of ``wide`` below are one number in memory (a stride of
# 0 along the second dimension). Writing into it raises; ``clone()``
# gives each element memory of its own, and then the write works.
column = torch.zeros(3, 1)
wide = column.expand(3, 4)
print("wide.stride():", wide.stride())
try:
    wide[0] = 1.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("writing into an expanded tensor must raise")
wide = wide.clone()
wide[0] = 1.0
print("after clone():", wide.stride())
print(wide)
assert message.startswith(
    "unsupported operation: more than one element of the written-to tensor refers to a single"
), "the write into the expanded tensor is refused: its elements share memory locations"
# sphinx_gallery_start_ignore
assert wide.stride() == (4, 1) and torch.equal(column, torch.zeros(3, 1)), "the clone has its own memory"
# sphinx_gallery_end_ignore

# %%
# Not every write into an expanded CPU tensor is refused. For example, ``fill_`` with a number passes,
# and so does ``wide[:, 0] = ...``, which writes the first column, whose three elements are three
# locations; both
# change every column, which are one memory. ``fill_`` with a 0-d tensor as its value is refused, and so are
# ``add_``, even of a number (``add_(1.0)``), and ``copy_`` from a tensor over other memory (here
# ``torch.ones(3, 4)`` and ``torch.ones(3, 1).expand(3, 4)``), which would write one location from several elements, as ``wide[0] = 1.0``
# was; so is ``copy_`` from ``column``, the same memory in another shape. A ``copy_`` from a view of
# ``column``'s own storage with ``wide``'s shape and strides, ``wide`` itself or ``column.expand(3, 4)`` made
# again, is not refused: source and destination are the same elements. An alias of the same memory made
# through DLPack or NumPy (``torch.from_dlpack(wide)``, ``torch.from_numpy(wide.numpy())``) has ``wide``'s
# shape and strides too, and ``copy_`` from it is refused all the same.
column = torch.zeros(3, 1)
wide = column.expand(3, 4)
wide.fill_(2.0)
wide[:, 0] = torch.tensor([1.0, 2.0, 3.0])
print("column:", column.flatten())
print(wide)
refusals = []
for name, write in {
    "fill_(torch.tensor(2.0))": lambda: wide.fill_(torch.tensor(2.0)),
    "add_(1.0)": lambda: wide.add_(1.0),
    "copy_(torch.ones(3, 4))": lambda: wide.copy_(torch.ones(3, 4)),
    "copy_(torch.ones(3, 1).expand(3, 4))": lambda: wide.copy_(torch.ones(3, 1).expand(3, 4)),
    "copy_(column)": lambda: wide.copy_(column),
    "copy_(torch.from_dlpack(wide))": lambda: wide.copy_(torch.from_dlpack(wide)),
    "copy_(torch.from_numpy(wide.numpy()))": lambda: wide.copy_(torch.from_numpy(wide.numpy())),
}.items():
    try:
        write()
    except RuntimeError as e:
        refusals.append(str(e))
        print(f"wide.{name}: {type(e).__name__}: {str(e).split(':')[0]}")
    else:
        raise AssertionError(f"wide.{name} must raise")
wide.copy_(wide)
wide.copy_(column.expand(3, 4))
print("wide.copy_(wide) and wide.copy_(column.expand(3, 4)) pass; column:", column.flatten())
assert torch.equal(column.flatten(), torch.tensor([1.0, 2.0, 3.0])), (
    "fill_, a column write and the two copies of the same elements pass"
)
# sphinx_gallery_start_ignore
assert len(refusals) == 7 and all(
    m.startswith("unsupported operation: more than one element of the written-to tensor") for m in refusals
), "fill_ with a 0-d tensor, add_ and copy_ from other memory, column or an alias are refused as wide[0] was"
assert (column.expand(3, 4).data_ptr(), column.expand(3, 4).shape, column.expand(3, 4).stride()) == (
    wide.data_ptr(), wide.shape, wide.stride()
), "column.expand(3, 4) made again has wide's memory, shape and strides"
assert all(
    (t.data_ptr(), t.shape, t.stride()) == (wide.data_ptr(), wide.shape, wide.stride())
    for t in (torch.from_dlpack(wide), torch.from_numpy(wide.numpy()))
), "the DLPack and NumPy aliases of wide have wide's memory, shape and strides"
# sphinx_gallery_end_ignore

# %%
# The question of `pytorch/pytorch#42726
# <https://github.com/pytorch/pytorch/issues/42726>`__: the same
# ``expand(...).type_as(weight)`` line raises on write in one snippet and not
# in the other. ``type_as`` to the dtype the tensor already has returns it as
# it is, still expanded; a real cast (here ``bool`` to ``float``) makes a
# new, contiguous tensor, which can be written.
weight = torch.rand(4, 4)
ones = torch.ones(4)
same_dtype = ones[:, None].expand_as(weight).type_as(weight)
cast = (ones > 0.5)[:, None].expand_as(weight).type_as(weight)
print("float -> float: stride", same_dtype.stride(), " view:", same_dtype._base is not None)
print("bool -> float:  stride", cast.stride(), " view:", cast._base is not None)
cast[0] = 0.0
assert same_dtype.stride() == (1, 0) and cast.stride() == (4, 1), "only the cast materialises the tensor"

# %%
# One version counter for a base and its views
# --------------------------------------------
#
# An in-place torch operation through any view taken outside ``torch.inference_mode()`` moves the counter of
# the base and of every other view of it (all but a few kernels that move no counter at all; inside the mode,
# ``view(dtype)`` and the pieces of ``unsafe_chunk`` and ``unsafe_split`` are views with no counter or one of
# their own: see :ref:`questions-version-counter`), so autograd notices the edit whichever of them it
# saved (unless it saved it through saved-tensor hooks, or a custom ``Function``
# kept it as an attribute or has a ``backward`` that never reads ``ctx.saved_tensors``:
# :ref:`questions-data-vs-no-grad`). Below, the same three views of ``graph_leaf * 1``: an edit through
# ``row``, recorded or under ``torch.no_grad()``, makes ``backward()`` raise for a graph that saved the
# base, ``row`` or ``transposed``; a fact tries the views of every view operation torch documents, both
# ways. :fact:`version-counter-shared-by-views-and-detach` ``apply_`` and ``map_``, which run a
# Python function on each value, edit the base through a view without moving any counter. Inference
# tensors made inside ``torch.inference_mode()`` are the exception: they have no version counter, and
# their views no ``_base`` (:ref:`questions-inference-mode`).
base = torch.zeros(2, 3)
row = base[0]
transposed = base.t()
row.add_(1.0)
print("base:", base)
print("_version: base", base._version, " row", row._version, " transposed", transposed._version)
assert base._version == row._version == transposed._version == 1, "row.add_ put base, row and transposed at version 1"
graph_leaf = torch.ones(2, 3, requires_grad=True)
for mode in (torch.enable_grad, torch.no_grad):
    for saved in ("base", "row", "transposed"):
        graph_base = graph_leaf * 1
        graph_views = {"base": graph_base, "row": graph_base[0], "transposed": graph_base.t()}
        loss = graph_views[saved].sin().sum()  # sin saves its input
        with mode():
            graph_views["row"].add_(1.0)
        try:
            loss.backward()
        except RuntimeError as e:
            print(f"edit through row under {mode.__name__}, graph saved {saved}: {type(e).__name__}: "
                  f"...{str(e)[str(e).index('is at version'):str(e).index(' instead')]}")
        else:
            raise AssertionError(f"an edit through row must break backward() of a graph that saved {saved}")
other = torch.zeros(2, 3)
other[0].apply_(lambda v: v + 1)
other[1].map_(torch.ones(3), lambda v, w: v + w)
print("after other[0].apply_ and other[1].map_: other", other, " _version", other._version)
assert torch.equal(other, torch.ones(2, 3)) and other._version == 0, (
    "apply_ and map_ through views edit the base, no counter moves")

# %%
# .. figure-caption::
#    :alt: Diagram: the names base, row and transposed point to three tensor objects on one storage S1, all with one version counter C1 at _version=1.
#
#    Three tensor objects on one storage ``S1``, with one counter ``C1``: the edit through ``row``
#    shows as ``_version=1`` on all three.

draw_memory("row = base[0]; transposed = base.t(); row.add_(1.0)", base=base, row=row, transposed=transposed)
# sphinx_gallery_start_ignore
assert same_storage(base, row) and same_storage(base, transposed), "the views share the base's storage"
with torch.inference_mode():
    inference_base = torch.zeros(4)
    inference_view = inference_base[1:3]
assert inference_view._base is None and same_storage(inference_base, inference_view), "inference view: no _base"
try:
    inference_base._version
except RuntimeError as e:
    assert "do not track version counter" in str(e), "inference tensors have no version counter"
else:
    raise AssertionError("an inference tensor must have no version counter")
# sphinx_gallery_end_ignore

# %%
# ``CopySlices``: an edit through a view enters the base's history
# ----------------------------------------------------------------
#
# ``y[0] = 10.0`` writes through the view ``y[0]``. autograd records it on
# ``y`` as a ``CopySlices`` node: after it, ``y[0]`` no longer depends on
# ``leaf``, so its gradient there is 0, as calculus says for a constant.
leaf = torch.ones(3, requires_grad=True)
y = leaf * 2
print("y.grad_fn before:", type(y.grad_fn).__name__)
y[0] = 10.0
print("y.grad_fn after: ", type(y.grad_fn).__name__, " y._version:", y._version)
y.sum().backward()
print("leaf.grad:", leaf.grad)
assert type(y.grad_fn).__name__ == "CopySlices" and torch.equal(leaf.grad, torch.tensor([0.0, 2.0, 2.0])), (
    "y[0] = 10.0 is recorded as CopySlices, and leaf.grad is 0 where it wrote"
)

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph under y. CopySlices points to MulBackward0, which points to AccumulateGrad and the leaf.
#
#    The graph under ``y``: the write ``y[0] = 10.0`` is the node ``CopySlices``, above the
#    ``MulBackward0`` of ``leaf * 2``.

draw_graph("y = leaf * 2; y[0] = 10.0", y, leaf=leaf)

# %%
# A view taken under ``torch.no_grad()`` or ``torch.inference_mode()`` is a view all the same (its
# ``_base`` is set), but autograd did not record it. Taken from a tensor that requires grad, a leaf
# or not, it is a leaf with no ``grad_fn``: no gradient reaches ``w`` through it, and an edit through
# it with grad mode on, outside ``torch.inference_mode()``, raises instead of entering the base's history, unless that tensor is a view
# whose ``_base`` does not require grad (a view made a leaf with ``requires_grad_()``, as ``view_leaf``
# below, or a view of one): then the view does not require grad, and the edit runs.
for off in (torch.no_grad, torch.inference_mode):
    for kind in ("w", "w * 2"):
        w = torch.ones(3, requires_grad=True)
        parent = w if kind == "w" else w * 2
        with off():
            quiet = parent[1:]
        (quiet * 3).sum().backward()
        print(f"{off.__name__}, view of {kind}: _base is parent: {quiet._base is parent}  "
              f"is_leaf: {quiet.is_leaf}  grad_fn: {quiet.grad_fn}  w.grad: {w.grad}")  # fmt: skip
        assert quiet._base is parent and quiet.is_leaf and quiet.grad_fn is None and w.grad is None, (
            "a view taken under no_grad or inference_mode is a leaf with no grad_fn; no gradient reaches w")
        for on, where in ((torch.enable_grad, "by default"), (torch.no_grad, "with enable_grad() in no_grad()")):
            with on(), torch.enable_grad():
                try:
                    quiet.mul_(10)
                except RuntimeError as e:
                    print(f"  quiet.mul_(10) {where}: {str(e).split('.')[0]}")
                else:
                    raise AssertionError("an edit with grad mode on of a view taken under no_grad or inference_mode "
                                         "must raise")
view_leaf = torch.ones(3)[:].requires_grad_()
for off in (torch.no_grad, torch.inference_mode):
    for kind, parent in {"view_leaf": view_leaf, "view_leaf[:]": view_leaf[:]}.items():
        with off():
            quiet = parent[1:]
        before = view_leaf._version
        quiet.mul_(10)
        print(f"{off.__name__}, view of {kind}: _base.requires_grad: {parent._base.requires_grad}  is_leaf: "
              f"{quiet.is_leaf}  requires_grad: {quiet.requires_grad}  view_leaf._version: {view_leaf._version}")
        assert parent.requires_grad and not parent._base.requires_grad and quiet.is_leaf and quiet.grad_fn is None \
            and not quiet.requires_grad and view_leaf._version == before + 1, (
                "a view taken with grad off of a view whose _base does not require grad: a leaf that does not "
                "require grad, and an edit through it with grad mode on runs")

# %%
# ``_base`` does not tell whether memory is shared
# ------------------------------------------------
#
# ``_base`` is set on a view only. The first six tensors below share memory with their source
# and have no ``_base`` at all; the last one is a view of the view ``inner``, and its ``_base`` is
# the root ``x``, not ``inner``. To ask whether a tensor shares memory with the one it was made
# from, compare their storages, as ``same_storage`` does. On a device with real memory (not
# ``meta``, where every storage starts at 0), for two storages that each hold at least one byte,
# equal starts prove shared memory (empty storages do not count: those torch allocates all start
# at 0, and one taken from NumPy starts at the array's address, where another storage can start
# too: ``empty_from_numpy`` below starts where ``x`` does), though not a shared element;
# different starts do not rule out shared memory:
# an alias of a slice made through DLPack, NumPy or ``torch.frombuffer``
# has a storage of its own that starts inside the source's (:ref:`copying-alias` shows all three;
# :ref:`questions-memory-overlap` gives a test that is right in each case).
import copy

source = torch.ones(3, requires_grad=True)
layer = torch.nn.Linear(2, 2)
inner = x[1:]
shared = {
    "source.detach()": (source.detach(), source),
    "source.data": (source.data, source),
    "copy.copy(x)": (copy.copy(x), x),
    "x.view(torch.int32)": (x.view(torch.int32), x),
    "torch.from_numpy(x.numpy())": (torch.from_numpy(x.numpy()), x),
    'layer.state_dict()["weight"]': (layer.state_dict()["weight"], layer.weight),
    "inner[:, 1:]": (inner[:, 1:], inner),
}
for name, (t, other) in shared.items():
    print(f"{name:<29} _base is None: {t._base is None!s:<5}  _base is x: {t._base is x!s:<5}  "
          f"same storage: {same_storage(t, other)}")  # fmt: skip
assert all(same_storage(t, other) for t, other in shared.values()), "all seven share their source's memory"
empty_from_numpy = torch.from_numpy(x.numpy()[:0])
print("empty_from_numpy: bytes", empty_from_numpy.untyped_storage().nbytes(), " same start as x:",
      same_storage(empty_from_numpy, x))  # fmt: skip
# sphinx_gallery_start_ignore
assert [name for name, (t, _) in shared.items() if t._base is None] == list(shared)[:6], "six have no _base"
assert shared["inner[:, 1:]"][0]._base is x, "a view of a view names the root as its _base"
doubled = source * 2
assert doubled[:1].grad_fn is not None and doubled.detach().grad_fn is None and doubled.data.grad_fn is None, (
    "a slice keeps its base's history; detach() and .data keep none")
sparse = torch.tensor([[0.0, 1.0]]).to_sparse()
assert sparse.indices()._base is None and sparse.values()._base is sparse, "a sparse tensor's indices() has no _base"
documented_views_ = {
    "[1:]": lambda v_: v_[1:], "[0]": lambda v_: v_[0], "adjoint()": lambda v_: v_.adjoint(),
    "as_strided()": lambda v_: v_.as_strided((2,), (1,)), "detach()": lambda v_: v_.detach(),
    "diagonal()": lambda v_: v_.diagonal(), "expand()": lambda v_: v_.expand(2, 3, 4),
    "expand_as()": lambda v_: v_.expand_as(v_), "movedim()": lambda v_: v_.movedim(0, 1),
    "narrow()": lambda v_: v_.narrow(0, 0, 2), "permute()": lambda v_: v_.permute(1, 0),
    "select()": lambda v_: v_.select(0, 1), "squeeze()": lambda v_: v_.squeeze(), "t()": lambda v_: v_.t(),
    "transpose()": lambda v_: v_.transpose(0, 1), "T": lambda v_: v_.T, "H": lambda v_: v_.H, "mT": lambda v_: v_.mT,
    "mH": lambda v_: v_.mH, "real": lambda v_: v_.real, "unflatten()": lambda v_: v_.unflatten(1, (2, 2)),
    "unfold()": lambda v_: v_.unfold(0, 2, 1), "unsqueeze()": lambda v_: v_.unsqueeze(0),
    "view()": lambda v_: v_.view(12), "view(dtype)": lambda v_: v_.view(torch.int64 if v_.is_complex() else torch.int32),
    "view_as()": lambda v_: v_.view_as(v_), "unbind()": lambda v_: v_.unbind()[0], "split()": lambda v_: v_.split(1)[0],
    "hsplit()": lambda v_: v_.hsplit(2)[0], "vsplit()": lambda v_: v_.vsplit(3)[0],
    "tensor_split()": lambda v_: v_.tensor_split(2)[0], "split_with_sizes()": lambda v_: v_.split_with_sizes([1, 2])[0],
    "swapaxes()": lambda v_: v_.swapaxes(0, 1), "swapdims()": lambda v_: v_.swapdims(0, 1),
    "chunk()": lambda v_: v_.chunk(3)[0],
}
real_, complex_ = torch.zeros(3, 4), torch.zeros(3, 4, dtype=torch.complex64)
assert [name_ for name_, op_ in documented_views_.items() if op_(real_)._base is not real_] == [
    "detach()", "real", "view(dtype)"], (
    "of torch's documented view operations, on a real tensor only detach(), .real and view(dtype) set no _base")
assert real_.real is real_, ".real of a real tensor returns the tensor itself"
assert [name_ for name_, op_ in documented_views_.items() if op_(complex_)._base is not complex_] == [
    "detach()", "view(dtype)"], "on a complex tensor only detach() and view(dtype) set no _base; .real sets it"
assert complex_.imag._base is complex_ and torch.view_as_real(complex_)._base is complex_, (
    "the complex-only view operations imag and view_as_real set _base")
import warnings  # noqa: E402

scalar_views_ = {**{name_: documented_views_[name_] for name_ in (
    "adjoint()", "detach()", "expand_as()", "squeeze()", "t()", "T", "H", "mT", "mH", "real", "unsqueeze()",
    "view(dtype)", "view_as()")},
    "[...]": lambda v_: v_[...], "as_strided()": lambda v_: v_.as_strided((), ()), "expand()": lambda v_: v_.expand(2),
    "movedim()": lambda v_: v_.movedim(0, 0), "permute()": lambda v_: v_.permute(()),
    "transpose()": lambda v_: v_.transpose(0, 0), "unfold()": lambda v_: v_.unfold(0, 1, 1),
    "view()": lambda v_: v_.view(1), "swapaxes()": lambda v_: v_.swapaxes(0, 0), "swapdims()": lambda v_: v_.swapdims(0, 0),
}  # fmt: skip
real_scalar_, complex_scalar_ = torch.tensor(2.0), torch.tensor(1 + 2j)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # .T, .H, .mT, .mH and adjoint() warn that they are deprecated on 0-d tensors
    real_scalar_views_ = {name_: op_(real_scalar_) for name_, op_ in scalar_views_.items()}
    complex_scalar_views_ = {name_: op_(complex_scalar_) for name_, op_ in scalar_views_.items()}
assert [name_ for name_, t_ in real_scalar_views_.items() if t_._base is not real_scalar_] == [
    "adjoint()", "detach()", "H", "mT", "mH", "real", "view(dtype)"] and all(
    real_scalar_views_[name_] is real_scalar_ for name_ in ("adjoint()", "H", "mT", "mH", "real")), (
    "of torch's documented view operations, on a 0-d real tensor only detach(), view(dtype) and adjoint(), .H, .mT, "
    ".mH and .real, which return the tensor itself, set no _base")
assert [name_ for name_, t_ in complex_scalar_views_.items() if t_._base is not complex_scalar_] == [
    "detach()", "mT", "view(dtype)"] and complex_scalar_views_["mT"] is complex_scalar_, (
    "on a 0-d complex tensor only detach(), view(dtype) and .mT, which returns the tensor itself, set no _base")
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.empty(0), torch.zeros(3, 0, dtype=torch.float64), torch.tensor([]), x[:, :0].clone())
), "empty storages torch allocates all start at 0: equal starts, no sharing"
assert empty_from_numpy.untyped_storage().nbytes() == 0 and x.untyped_storage().data_ptr() != 0 and same_storage(
    empty_from_numpy, x), "an empty tensor taken from NumPy starts at the array's address, here where x starts"
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.zeros(2, device="meta"), torch.ones(3, dtype=torch.int64, device="meta"),
    torch.empty(0, dtype=torch.complex64, device="meta"), torch.zeros(4, dtype=torch.float8_e4m3fn, device="meta"),
    torch.arange(12.0).reshape(3, 4).to("meta")[1:].t())), (
    "on meta every storage starts at address 0: float, integer, complex, float8, empty, moved there or a view")
assert same_storage(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), (
    "on meta same_storage finds unrelated tensors sharing memory")
# sphinx_gallery_end_ignore


# %%
# Conclusion
# ----------
#
# A view shares memory and the version counter with its base and, when it is taken with grad mode
# on outside ``torch.inference_mode()``, the base's history for autograd; taken under
# ``torch.no_grad()`` or ``torch.inference_mode()`` from a tensor that requires grad, it is a leaf: no
# gradient reaches the base through it, and an in-place edit of it with grad mode on, outside
# ``torch.inference_mode()``, raises, unless
# the tensor it was taken from is a view whose ``_base`` does not require grad.
# Inference tensors made inside ``torch.inference_mode()`` are the exception: they have no version
# counter, and their views no ``_base`` (:ref:`questions-inference-mode`); inside the mode, ``view(dtype)`` of a
# tensor that is not an inference tensor gives one too, and the pieces of ``unsafe_chunk`` and ``unsafe_split`` are
# views with a counter of their own (:ref:`questions-version-counter`).
# :fact:`view-dtype-under-inference-mode-uncounted` :fact:`unsafe-pieces-in-inference-mode-own-counter`
# ``detach()`` and ``.data`` share memory but no history. ``_base`` marks views only: to know whether a tensor
# shares memory with the one it was made from, compare their storages (``same_storage`` above): on a device with real memory (not
# ``meta``), for storages that are not empty, equal starts prove shared memory (not a shared
# element); different starts do not rule sharing out. ``reshape`` and ``contiguous()`` copy only when they must; to be
# sure of memory of your own, ``clone()``.
