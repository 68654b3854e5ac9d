"""
.. _questions-which-calls-copy:

Does this call copy? expand, repeat, contiguous, clone and reshape
==================================================================

.. admonition:: Answer
   :class: answer

   ``expand`` and ``view`` share memory, ``reshape`` and ``flatten`` of a strided tensor share it only where strides allow;
   ``repeat`` copies, and ``clone()`` copies but keeps the strides of ``w.t()``. Share with ``view``, copy with a
   contiguous ``clone``:

   .. code-block:: python

      live = w.view(-1)
      kept = w.t().clone(memory_format=torch.contiguous_format).view(-1)

``a.t().clone().view(-1)`` stops with ``RuntimeError: view size is not compatible with input tensor's
size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...)
instead.`` The clone is a copy, yet not contiguous. This page runs ``expand`` against ``repeat``,
``contiguous()`` on tensors that are and are not contiguous, ``clone()`` on several layouts, and
``reshape``, ``flatten`` and ``view`` on contiguous and non-contiguous tensors, and says for each
result whether it shares the source's memory: by comparing storages or objects, and for ``expand``,
``repeat`` and ``reshape`` also by writing into it.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
# ``viewable`` says whether ``view``
# accepts a shape: ``view`` never copies, it raises instead.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def viewable(t, shape):
    try:
        t.view(shape)
    except RuntimeError:
        return False
    return True


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
# ``expand`` against ``repeat``
# -----------------------------
#
# ``column.expand(3, 4)`` gives a view with a stride of 0 along the new columns: the four elements
# of a row are one memory location, on ``column``'s storage. ``column.repeat(1, 4)`` writes every
# element out, into new memory: a write into it does not reach ``column``. The loop runs both, and
# ``expand_as``, on five dtypes.

column = torch.arange(3.0).reshape(3, 1)
expanded = column.expand(3, 4)
repeated = column.repeat(1, 4)
repeated[0, 0] = 100.0
print("expanded.stride():", expanded.stride(), " same storage:", same_storage(expanded, column))
print("repeated.stride():", repeated.stride(), " new memory:", not same_storage(repeated, column))
print("column after the write into repeated:", column.flatten())
layouts = []
for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64):
    c = torch.zeros(3, 1, dtype=dtype)
    e, e_as, r = c.expand(3, 4), c.expand_as(torch.empty(3, 4)), c.repeat(1, 4)
    layouts.append((e.stride(), e_as.stride(), same_storage(e, c), same_storage(e_as, c), same_storage(r, c)))
assert set(layouts) == {((1, 0), (1, 0), True, True, False)}, "expand(_as) share with stride 0, repeat copies"
# sphinx_gallery_start_ignore
assert torch.equal(column.flatten(), torch.arange(3.0)), "the write into repeated does not reach column"
assert torch.equal(repeated[1], torch.full((4,), 1.0)), "repeat copies the values"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: column and expanded point to storage S1; repeated points to its own storage S2.
#
#    ``column`` and ``expanded`` are two tensor objects on one storage ``S1``; ``repeated`` has its
#    own storage ``S2``.

draw_memory("expanded = column.expand(3, 4); repeated = column.repeat(1, 4)",
            column=column, expanded=expanded, repeated=repeated)  # fmt: skip
# sphinx_gallery_start_ignore
assert same_storage(column, expanded) and bytes_apart(column, repeated), "S1 shared, S2 of its own"
# sphinx_gallery_end_ignore

# %%
# Not every write into an expanded tensor is refused. ``add_`` and ``mul_`` compute each element from
# its old value and ``copy_`` from ``torch.ones(3, 4)`` copies values from other memory in; on the CPU all three
# raise, because several elements of ``expanded`` are one memory location, and so do ``fill_`` given a 0-d
# tensor as its value and the slice assignment ``expanded[:] = 7.0``. ``fill_`` with a number and ``zero_``
# pass: they write into the tensor that was expanded. So does
# ``copy_`` from ``column.expand(3, 4)`` made again, whose elements are those of ``expanded`` itself
# (:ref:`questions-views` shows some other writes that pass).

for name, write in {
    "add_(1.0)": lambda: expanded.add_(1.0),
    "mul_(2.0)": lambda: expanded.mul_(2.0),
    "copy_(ones)": lambda: expanded.copy_(torch.ones(3, 4)),
    "fill_(torch.tensor(7.0))": lambda: expanded.fill_(torch.tensor(7.0)),
}.items():
    try:
        write()
    except RuntimeError as e:
        expand_message = str(e)
        print(f"expanded.{name}: {type(e).__name__}: {str(e).split('.')[0]}")
    else:
        raise AssertionError(f"expanded.{name} must raise")
    assert expand_message.startswith(
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location"
    ), f"expanded.{name} is refused: several of its elements are one memory location"
try:
    expanded[:] = 7.0
except RuntimeError as e:
    slice_message = str(e)
    print(f"expanded[:] = 7.0: {type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("expanded[:] = 7.0 must raise")
# sphinx_gallery_start_ignore
assert slice_message == expand_message and slice_message.startswith(
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location"
), "expanded[:] = 7.0 is refused with the same message: several of its elements are one memory location"
# sphinx_gallery_end_ignore
spare = torch.arange(3.0).reshape(3, 1)
spare.expand(3, 4).fill_(7.0)
print("spare after spare.expand(3, 4).fill_(7.0):", spare.flatten())
assert torch.equal(spare, torch.full((3, 1), 7.0)), "fill_ passes and writes into the expanded tensor"
spare.expand(3, 4).zero_()
print("spare after spare.expand(3, 4).zero_():", spare.flatten())
assert torch.equal(spare, torch.zeros(3, 1)), "zero_ passes and writes into the expanded tensor"
expanded.copy_(column.expand(3, 4))
print("expanded.copy_(column.expand(3, 4)) passes; column:", column.flatten())
assert torch.equal(column.flatten(), torch.arange(3.0)), "copy_ from the same expand() made again passes"
# sphinx_gallery_start_ignore
assert (column.expand(3, 4).data_ptr(), column.expand(3, 4).stride()) == (
    expanded.data_ptr(), expanded.stride()
), "column.expand(3, 4) made again has the memory and strides of expanded"
# sphinx_gallery_end_ignore

# %%
# ``contiguous()``: the tensor itself, or a copy
# ----------------------------------------------
#
# On a tensor of the default strided layout that is not nested, called without arguments, so with the default
# ``memory_format``, ``contiguous()`` returns the very tensor it is called on when that tensor is already contiguous (a new tensor, a row of it, a view of it, the transpose of a single row), and a contiguous copy,
# in new memory, when it is not: a transpose, a slice with a step, an expanded tensor, a
# ``channels_last`` image.

a = torch.arange(6.0).reshape(2, 3)
already = {"a": a, "a[1]": a[1], "a.view(3, 2)": a.view(3, 2), "a[:1].t()": a[:1].t()}
not_yet = {
    "a.t()": a.t(),
    "torch.arange(6.0)[::2]": torch.arange(6.0)[::2],
    "column.expand(3, 4)": column.expand(3, 4),
    "channels_last image": torch.zeros(1, 2, 2, 2).contiguous(memory_format=torch.channels_last),
}
itself = [name for name, t in already.items() if t.contiguous() is t]
copied = [name for name, t in not_yet.items() if not same_storage(t.contiguous(), t) and t.contiguous().is_contiguous()]
for name in already:
    print(f"{name:<24} contiguous() is itself: {name in itself}")
for name in not_yet:
    print(f"{name:<24} contiguous() is a contiguous copy: {name in copied}")
assert itself == list(already) and copied == list(not_yet), "itself when contiguous, a copy when not"

# %%
# ``clone()`` keeps the strides
# -----------------------------
#
# ``clone()`` always copies, but by default (``memory_format=torch.preserve_format``) it keeps the
# strides of a tensor whose elements cover one block of memory without overlap: the clone of
# ``a.t()`` is as non-contiguous as ``a.t()``, and ``view(-1)`` still raises on it.

flipped = a.t().clone()
print("a.t().stride():", a.t().stride(), " clone:", flipped.stride(), " contiguous:", flipped.is_contiguous())
try:
    flipped.view(-1)
except RuntimeError as e:
    view_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("view(-1) of a.t().clone() must raise")
assert view_message == (
    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Use .reshape(...) instead."
), "view(-1) refuses the clone's strides and suggests reshape()"

# %%
# The same holds for a permutation of a 3-d tensor. Where the source leaves gaps (a slice with a
# step, a column slice), the clone is dense and keeps the source's order of dimensions: the sources
# below, in row-major order, clone to contiguous strides, while a gapped transpose such as
# ``x[0][:, ::2].t()`` clones to transposed strides, not contiguous. Where the source overlaps itself
# (an expanded tensor), the clone is dense too; ``column.expand(3, 4)``, ``column.t().expand(4, 3)``
# and their transposes all clone to contiguous strides.

x = torch.arange(24.0).reshape(2, 3, 4)
kept_strides = {"a.t()": a.t(), "x.permute(2, 0, 1)": x.permute(2, 0, 1), "x.transpose(0, 1)": x.transpose(0, 1)}
made_contiguous = {"column.expand(3, 4)": column.expand(3, 4), "x[:, ::2]": x[:, ::2], "x[:, :, :2]": x[:, :, :2]}
for name, t in {**kept_strides, **made_contiguous}.items():
    print(f"{name:<20} stride {t.stride()!s:<12} clone's stride {t.clone().stride()}")
assert all(t.clone().stride() == t.stride() and not t.is_contiguous() for t in kept_strides.values()), (
    "clone() keeps the strides of a.t(), the permute and the transpose")
assert all(t.clone().is_contiguous() and not t.is_contiguous() for t in made_contiguous.values()), (
    "clone() of the expand and the two gapped slices is contiguous")
# sphinx_gallery_start_ignore
assert all(bytes_apart(t.clone(), t) for t in {**kept_strides, **made_contiguous}.values()), (
    "every clone above is in new memory")
assert x[0][:, ::2].t().stride() == (2, 4), "x[0][:, ::2].t() has strides (2, 4)"
assert x[0][:, ::2].t().clone().stride() == (1, 2), (
    "the clone of x[0][:, ::2].t() is dense, in the transposed order")
assert not x[0][:, ::2].t().clone().is_contiguous(), "so the clone of a gapped transpose is not contiguous"
expand_sources = [column.expand(3, 4), column.t().expand(4, 3)]
assert all(e.clone().is_contiguous() and e.t().clone().is_contiguous() for e in expand_sources), (
    "the two 2-d expands and their transposes clone to contiguous strides")
# sphinx_gallery_end_ignore

# %%
# For a contiguous copy, ask for it: ``clone(memory_format=torch.contiguous_format)``, or
# ``contiguous()`` of the non-contiguous tensor. Both give new memory, and ``view(-1)`` works on it.

fixes = {
    "a.t().clone(memory_format=torch.contiguous_format)": a.t().clone(memory_format=torch.contiguous_format),
    "a.t().contiguous()": a.t().contiguous(),
}
for name, copy in fixes.items():
    print(f"{name:<50} contiguous: {copy.is_contiguous()}  view(-1): {copy.view(-1)}")
assert all(c.is_contiguous() and bytes_apart(c, a) for c in fixes.values()), "both are contiguous copies"
# sphinx_gallery_start_ignore
flat_values = torch.tensor([0.0, 3.0, 1.0, 4.0, 2.0, 5.0])
assert all(torch.equal(c.view(-1), flat_values) for c in fixes.values()), (
    "view(-1) works on both contiguous copies, in a.t()'s order")
# sphinx_gallery_end_ignore

# %%
# ``reshape``: a view where strides allow, a copy elsewhere
# ---------------------------------------------------------
#
# On the float32 tensors of the default strided layout below, ``reshape`` returns a view whenever the
# new shape can be written with strides over the source's memory, and a copy otherwise, whether the
# source is contiguous or not. So on the non-contiguous
# ``a.t()`` (shape 3 x 2), ``reshape(3, 1, 2)`` is a view and ``reshape(6)`` a copy; on the
# non-contiguous ``torch.arange(12.0)[::2]`` every shape below is a view. For each source and shape
# the table compares storages, fills the result with -1 and looks whether the source changed, and
# asks ``view`` whether it accepts the shape.

sources = {
    "a": (lambda: torch.arange(6.0).reshape(2, 3), [(3, 2), (6,), (1, 6)]),
    "a.t()": (lambda: torch.arange(6.0).reshape(2, 3).t(), [(3, 1, 2), (1, 3, 2), (6,), (2, 3)]),
    "arange(12)[::2]": (lambda: torch.arange(12.0)[::2], [(2, 3), (3, 2), (6, 1)]),
    "x[:, 1:]": (lambda: torch.arange(24.0).reshape(2, 3, 4)[:, 1:], [(2, 8), (2, 2, 2, 2), (16,), (4, 4)]),
    "column.expand(3, 4)": (lambda: torch.arange(3.0).reshape(3, 1).expand(3, 4), [(3, 2, 2), (12,), (4, 3)]),
}
rows = []
for name, (make, shapes) in sources.items():
    for shape in shapes:
        t = make()
        r = t.reshape(shape)
        shares = same_storage(r, t)
        r.fill_(-1.0)
        rows.append((name, shape, t.is_contiguous(), shares, bool((t == -1.0).all()), viewable(make(), shape)))
table_rows = [("source", "shape", "contiguous", "same storage", "write reaches source", "view accepts")]
table_rows += [(name, *map(str, cells)) for name, *cells in rows]
for name, shape, contiguous, shares, reached, accepted in table_rows:
    print(f"{name:<20} {shape:<14} {contiguous:<11} {shares:<13} {reached:<21} {accepted}")
assert all(shares == reached == accepted for _, _, _, shares, reached, accepted in rows), "a view exactly where view accepts"
# sphinx_gallery_start_ignore
by_source = {name: {shares for n, _, _, shares, _, _ in rows if n == name} for name in sources}
assert by_source["a"] == {True} and by_source["arange(12)[::2]"] == {True}, "contiguous or 1-d strided: all views"
mixed = [by_source[name] for name in ("a.t()", "x[:, 1:]", "column.expand(3, 4)")]
assert mixed == [{True, False}] * 3, "these three sources give views and copies"
assert all(same_storage(t.view(s), t) for make, shapes in sources.values() for s in shapes for t in [make()]
           if viewable(t, s)), "every shape view accepts gives a tensor on the source's storage"
assert not any(sources[name][0]().is_contiguous() for name in ("a.t()", "arange(12)[::2]")), (
    "a.t() and arange(12)[::2] are not contiguous")
# sphinx_gallery_end_ignore

# %%
# ``flatten`` and ``view``
# ------------------------
#
# ``flatten`` follows the same rule: of the non-contiguous ``y = x[:, 1:]``, ``y.flatten(1)`` is a
# view, while ``y.flatten()`` copies, and so does ``a.t().flatten()``. On a 1-d tensor of the default
# strided layout ``flatten()`` returns the tensor itself. :fact:`flatten-unmerged-returns-itself`
# On these tensors, ``view`` accepts a shape exactly where ``reshape`` and ``flatten`` give a view,
# and raises where they copy, with the message quoted above.

y = x[:, 1:]
flat = {
    "a.flatten()": (a.flatten(), a, (-1,)),
    "y.flatten(1)": (y.flatten(1), y, (2, -1)),
    "y.flatten()": (y.flatten(), y, (-1,)),
    "a.t().flatten()": (a.t().flatten(), a.t(), (-1,)),
}
for name, (f, source, shape) in flat.items():
    print(f"{name:<16} same storage: {same_storage(f, source)!s:<6} view accepts: {viewable(source, shape)}")
assert [same_storage(f, s) for f, s, _ in flat.values()] == [True, True, False, False], "two views, two copies"
# sphinx_gallery_start_ignore
assert all(same_storage(f, s) == viewable(s, shape) for f, s, shape in flat.values()), "flatten shares iff view does"


def view_refusal(t, shape):
    try:
        t.view(shape)
    except RuntimeError as refusal:
        return str(refusal)
    return None


assert {view_refusal(make(), shape) for make, shapes in sources.values() for shape in shapes if not viewable(make(), shape)} | {
    view_refusal(s, shape) for _, s, shape in flat.values() if not viewable(s, shape)} == {view_message}, (
    "every shape view refuses in the table and for flatten gets the message quoted above")
# sphinx_gallery_end_ignore
v = torch.arange(3.0)
print("v.flatten() is v:", v.flatten() is v)
assert v.flatten() is v, "flatten() of a 1-d tensor returns the tensor itself"
# sphinx_gallery_start_ignore
assert a.dim() == 2 and all(m.flatten(1) is m for m in (a, a.t())), "flatten(1) of a 2-d tensor returns the tensor itself"
assert all(p.flatten(d, d) is p for p in map(torch.zeros, [(3,), (2, 3), (2, 3, 4)]) for d in range(-p.dim(), p.dim())), (
    "flatten(d, d) of a tensor with dimensions returns the tensor itself"
)
probe_scalar = torch.tensor(2.0)
probe_flat = probe_scalar.flatten()
assert probe_flat is not probe_scalar and probe_flat.shape == (1,) and probe_flat._base is probe_scalar, (
    "flatten() of a 0-d tensor returns a new one-element view"
)
# sphinx_gallery_end_ignore

# %%
# The fix: ask for what you need
# ------------------------------
#
# Code that needs sharing asks for ``view``, which raises rather than copy; code that needs a copy
# asks for one. Here, over three optimizer steps, a flat view ``live`` of a layer's weight follows
# every step, and a contiguous clone of the weight's transpose, flattened with ``view``, keeps the
# value of its step.

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
w = model.weight.detach()
live = w.view(-1)
snapshots, values = [], []
for _ in range(3):
    loss = model(torch.randn(4, 3)).pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    kept = w.t().clone(memory_format=torch.contiguous_format).view(-1)
    snapshots.append(kept)
    values.append([v for row in w.t().tolist() for v in row])
print("live, the weight now:", [round(v, 4) for v in live.tolist()])
for step, kept in enumerate(snapshots):
    print(f"kept at step {step}:", [round(v, 4) for v in kept.tolist()])
print("live, same storage as the weight:", same_storage(live, model.weight))
assert torch.equal(live, model.weight.detach().reshape(-1)), "live follows the weight"
assert [s.tolist() for s in snapshots] == values, "each snapshot kept the value of its step"
# sphinx_gallery_start_ignore
assert same_storage(live, model.weight), "live is a view of the weight"
assert all(bytes_apart(s, model.weight) for s in snapshots), "the snapshots are copies"
assert values[0] != values[2], "the weight moved, so the snapshots differ"
assert w.t().clone().stride() == w.t().stride() != w.t().contiguous().stride(), (
    "clone() keeps the strides of w.t(), which are not contiguous")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``expand`` and ``view`` never copy, ``repeat`` always does. On a tensor of the default strided layout that is not
# nested, ``contiguous()`` (with its default ``memory_format``) copies only a non-contiguous tensor, and returns a contiguous one itself. ``clone()`` always copies, with the
# source's strides where the source is dense, so its result may still refuse ``view``. On a float32,
# float64, bfloat16, int64, bool or complex64 tensor of the default strided layout that is not nested,
# ``reshape`` and ``flatten`` give a view exactly where ``view`` runs, so by the strides, not by the
# source's contiguity (``flatten``
# returns a tensor of the default strided layout itself when ``start_dim`` and ``end_dim`` name the same
# dimension: ``flatten()`` of a 1-d tensor, ``flatten(1)`` of a 2-d one;
# of a 0-d tensor, which has no dimension, ``flatten()``
# returns a new one-element view): where the
# difference matters, say which one you want with ``view`` or with a contiguous ``clone``.
# :fact:`reshape-view-exactly-when-view-runs` :fact:`flatten-unmerged-returns-itself`
