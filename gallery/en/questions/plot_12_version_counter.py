"""
.. _questions-version-counter:

The version counter: what moves ``_version``, and what does not
===============================================================

.. admonition:: Answer
   :class: answer

   A tensor that autograd saved was edited in place after it was saved: the message gives its version counter now and at saving. Edit a ``clone()`` instead:

   .. code-block:: python

      y = x.exp()
      edited = y.clone()
      edited.add_(1)
      edited.mul_(2)

"is at version 2; expected version 0 instead": the numbers in this error are readings of a tensor's
version counter, ``t._version``. Autograd notes the version of every tensor it saves, and a backward
pass that reaches the node which saved it refuses to run when that version has moved (unless the tensor was saved through saved-tensor hooks, or a
custom ``Function`` kept it as an attribute or has a ``backward`` that never reads ``ctx.saved_tensors``:
:ref:`questions-data-vs-no-grad`). This page decodes the message, then builds a table of common
edits, computed while the page was built, showing which ones move the counter and which change
values without moving it.
:fact:`saved-tensor-hooks-hide-edit` :fact:`ctx-attribute-escapes-version-check`
:fact:`unread-saved-tensors-escape-version-check`
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

import copy

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
# Reading the message
# -------------------
#
# ``x.exp()`` saves its own result ``y`` for backward, at version 0. Two in-place edits of ``y``
# bring it to version 2, and backward names both numbers.

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
print("y._version after exp():", y._version)
y.add_(1)
y.mul_(2)
print("y._version after two edits:", y._version)
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after editing a saved output must raise")
assert f"is at version {y._version}; expected version 0" in message, "the message gives the version now and at saving"

# %%
# The fix: edit a copy
# --------------------
#
# ``clone()`` gives the edits their own memory and their own counter: ``y`` stays at version 0 and
# backward gives ``2 * exp(x)``, the gradient ``torch.func.grad`` computes for
# ``(2 * (exp(x) + 1)).sum()``.

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
edited = y.clone()
edited.add_(1)
edited.mul_(2)
print("y._version:", y._version, " edited._version:", edited._version)
edited.sum().backward()
expected = torch.func.grad(lambda x_: (2 * (x_.exp() + 1)).sum())(x.detach())
print("x.grad:", x.grad, " expected:", expected)
assert y._version == 0 and torch.allclose(x.grad, expected), "edits of a clone must leave y and the gradient alone"

# %%
# .. figure-caption::
#    :alt: Diagram: the names y and edited point to two tensor objects on two storages S1 and S2, with two version counters: y at _version=0, edited at _version=2.
#
#    ``y`` and ``edited`` use two storages and two counters: ``y`` is still at ``_version=0``,
#    ``edited`` is at ``_version=2``.

draw_memory("edited = y.clone(); edited.add_(1); edited.mul_(2)", y=y, edited=edited)
# sphinx_gallery_start_ignore
assert edited._version == 2 and bytes_apart(y, edited), "the clone counts its own edits in its own memory"
# sphinx_gallery_end_ignore

# %%
# The table: what moves the counter
# ---------------------------------
#
# Each row runs one line on a fresh ``t = torch.arange(4.0)``, then compares the values and the
# version with those before. The last column repeats the line under ``torch.no_grad()`` on a leaf
# that requires grad (``torch.arange(4.0, requires_grad=True)``), where such edits are allowed. The
# four columns: ``line`` is the line run, ``values of t change`` whether the values of ``t`` changed,
# ``_version moves by`` how much the version went up, and ``same, no_grad leaf`` how much it went up
# on that leaf.

edits = {
    "t.add_(1)": lambda t: t.add_(1),
    "t[0] = 5": lambda t: t.__setitem__(0, 5.0),
    "t.copy_(torch.ones(4))": lambda t: t.copy_(torch.ones(4)),
    "torch.add(torch.ones(4), 1, out=t)": lambda t: torch.add(torch.ones(4), 1, out=t),
    "t[1:].mul_(2)": lambda t: t[1:].mul_(2),
    "t.view(2, 2)[0, 0] = 5": lambda t: t.view(2, 2).__setitem__((0, 0), 5.0),
    "t.detach().zero_()": lambda t: t.detach().zero_(),
    "t.data.zero_()": lambda t: t.data.zero_(),
    "t.detach().numpy()[0] = 5": lambda t: t.detach().numpy().__setitem__(0, 5.0),
    "t.untyped_storage().fill_(0)": lambda t: t.untyped_storage().fill_(0),
    "torch.from_dlpack(t.detach()).zero_()": lambda t: torch.from_dlpack(t.detach()).zero_(),
    "vector_to_parameters(torch.zeros(4), [t])": lambda t: torch.nn.utils.vector_to_parameters(torch.zeros(4), [t]),
    "copy.copy(t).zero_()": lambda t: copy.copy(t).zero_(),
    "t.detach().apply_(lambda v: v + 1)": lambda t: t.detach().apply_(lambda v: v + 1),
    "t.detach().map_(torch.ones(4), lambda v, o: v + o)": lambda t: t.detach().map_(torch.ones(4), lambda v, o: v + o),
    "t.detach().map2_(torch.ones(4), torch.ones(4), lambda v, a, b: v + a + b)": lambda t: t.detach().map2_(
        torch.ones(4), torch.ones(4), lambda v, a, b: v + a + b),
    "t = t + 1": lambda t: t + 1,
}


def run(edit, requires_grad):
    t = torch.arange(4.0, requires_grad=requires_grad)
    before, version = t.detach().clone(), t._version
    if requires_grad:
        with torch.no_grad():
            edit(t)
    else:
        edit(t)
    return not torch.equal(t.detach(), before), t._version - version


table = {line: (run(edit, False), run(edit, True)) for line, edit in edits.items()}
table_rows = [("line", "values of t change", "_version moves by", "same, no_grad leaf")]
table_rows += [(line, str(changed), moved, leaf_moved) for line, ((changed, moved), (_, leaf_moved)) in table.items()]
width = max(len(line) for line, *_ in table_rows)
for line, changed, moved, moved_no_grad in table_rows:
    print(f"{line:{width}} {changed:>18} {moved:>18} {moved_no_grad:>19}")

# %%
# Every line that changes ``t``'s values moves its counter by one, except nine: an edit through
# ``.data``, a write through NumPy, one through ``untyped_storage()``, one through a DLPack alias
# (``torch.from_dlpack``), ``nn.utils.vector_to_parameters``, which puts new data under ``t`` as
# ``t.data = ...`` does, an edit through ``copy.copy(t)``, a new tensor object on the same
# memory with a counter of its own, and the three methods that run a Python function on each value,
# ``apply_``, ``map_`` and ``map2_`` (here through ``detach()``). The last line changes nothing in ``t``: it makes
# a new tensor and rebinds the name. The answers are the same under ``torch.no_grad()``.

silent = [line for line, ((changed, moved), _) in table.items() if changed and moved == 0]
print("values changed, counter still:", silent)
assert silent == list(table)[7:16], (
    "the edits through .data, NumPy, the storage, DLPack, vector_to_parameters, copy.copy, apply_, map_, map2_")
# sphinx_gallery_start_ignore
assert all(row[0][1] == int(row[0][0]) for name, row in table.items() if name not in silent), (
    "every other edit must move the counter by exactly one"
)
assert all(row[0][1] == row[1][1] for row in table.values()), "no_grad must not change the counting"
assert table["t = t + 1"][0] == (False, 0), "rebinding must leave the old tensor alone"
# sphinx_gallery_end_ignore

# %%
# Of these nine, ``nn.utils.vector_to_parameters`` is a function people call on a model's parameters,
# for example after an optimizer that works on one flat vector. ``(p * p).sum()`` saved ``p``; after
# ``vector_to_parameters`` the counter still reads 0, so ``backward()`` runs, on the new values:
# the gradient is ten times the one calculus gives at the values the loss was computed from.

p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
loss = (p * p).sum()
torch.nn.utils.vector_to_parameters(torch.tensor([10.0, 20.0, 30.0]), [p])
loss.backward()
expected = torch.func.grad(lambda q: (q * q).sum())(torch.tensor([1.0, 2.0, 3.0]))
print("p._version:", p._version)
print("p.grad:", p.grad, " expected:", expected)
assert p._version == 0 and torch.equal(p.grad, 10 * expected), "vector_to_parameters: a wrong gradient, no error"

# %%
# ``vector_to_parameters`` does not copy the vector either: it puts a slice of it under each
# parameter, so every parameter of the model then shares the vector's memory, and a later edit of
# the vector rewrites the model.

layer = torch.nn.Linear(2, 1)
flat = torch.tensor([1.0, 2.0, 3.0])
torch.nn.utils.vector_to_parameters(flat, layer.parameters())
flat.mul_(10)
print("layer.weight:", layer.weight)
print("layer.bias:", layer.bias)
print("weight same storage as flat:", same_storage(layer.weight, flat))
print("bias same storage as flat:", same_storage(layer.bias, flat))
assert all(same_storage(q, flat) for q in layer.parameters()) and layer.bias.item() == 30.0, "the model follows flat"

# %%
# ``unsafe_chunk`` and ``unsafe_split`` are two more routes around the counter, outside the table. Called outside
# ``torch.inference_mode()`` on a strided CPU tensor that is neither nested nor an inference tensor (its
# ``is_inference()`` is ``False``), unlike ``chunk()`` and ``split()``, which return views, they return pieces that
# share the tensor's memory but are not views (``_is_view()`` is ``False``), each with a counter of its own: an edit
# through a piece leaves the tensor's counter where it was, and after such an edit of the float32 leaf ``weights``
# below under ``torch.no_grad()``, ``backward()`` runs on the edited values without an error. An inference tensor's
# pieces have no counter, even when the tensor has one, as the ``detach()`` of one taken outside the mode does. Taken
# inside ``torch.inference_mode()`` from a strided CPU tensor that is neither nested nor an inference tensor, the
# pieces are views (``_is_view()`` is ``True``), yet each still has a counter of its own, and after the same edit of
# a leaf under ``torch.no_grad()``, ``backward()`` again runs on the edited values without an error.
# :fact:`unsafe-pieces-own-counter-every-dtype` :fact:`unsafe-pieces-in-inference-mode-own-counter`

weights = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
loss = (weights * weights).sum()
with torch.no_grad():
    weights.unsafe_chunk(2)[0].mul_(10)
loss.backward()
weights_expected = torch.func.grad(lambda q: (q * q).sum())(torch.tensor([1.0, 2.0, 3.0, 4.0]))
print("weights._version:", weights._version)
print("weights.grad:", weights.grad, " weights_expected:", weights_expected)
at_edited_values = torch.func.grad(lambda q: (q * q).sum())(weights.detach())
assert weights._version == 0 and torch.equal(weights.grad, at_edited_values) and not torch.equal(
    weights.grad, weights_expected), "unsafe_chunk: a gradient at the edited values, no error"
grid = torch.arange(6.0).reshape(2, 3)
piece = grid.unsafe_split(1, dim=1)[0]
piece.add_(1)
print("piece same storage as grid:", same_storage(piece, grid), " piece._is_view():", piece._is_view())
print("grid._version:", grid._version, " piece._version:", piece._version)
assert same_storage(piece, grid) and not piece._is_view() and (grid._version, piece._version) == (0, 1), (
    "an edit through a piece of unsafe_split moves the piece's counter, not grid's")
# sphinx_gallery_start_ignore
assert grid[0, 0].item() == 1.0 and grid[1, 0].item() == 4.0, "the edit of the piece changed grid's values"
assert weights.chunk(2)[0]._is_view() and grid.split(1, dim=1)[0]._is_view(), "chunk() and split() give views"
for whole_ in (grid, grid.long(), grid.to(torch.complex64), weights):
    pieces_ = whole_.unsafe_chunk(2) + whole_.unsafe_split(1, dim=-1)
    assert all(same_storage(q, whole_) and not q._is_view() for q in pieces_), (
        "unsafe_chunk and unsafe_split: pieces on the memory, not views, for each dtype and a leaf")
# sphinx_gallery_end_ignore

# %%
# Writes are not all that moves the counter. In-place calls that work on the shape rather than the values, such
# as ``t_()``, ``unsqueeze_()``, and ``resize_()`` or ``resize_as_()`` to a new size, move it by one too (``t_()``
# does so even on a tensor of one dimension or none, whose shape it leaves as it was);
# some other in-place calls do not move it: ``detach_()``, ``requires_grad_()``, ``share_memory_()``, and
# ``resize_()`` or ``resize_as_()`` to the size the tensor already has. Each line runs on a fresh
# ``t = torch.zeros(2, 3)``, with grad mode on and again under ``torch.no_grad()``, and each row also
# prints ``t``'s shape after the call.

calls = {
    "t.t_()": lambda t: t.t_(),
    "t.unsqueeze_(0)": lambda t: t.unsqueeze_(0),
    "t.resize_(8)": lambda t: t.resize_(8),
    "t.resize_as_(torch.empty(4))": lambda t: t.resize_as_(torch.empty(4)),
    "t.detach_()": lambda t: t.detach_(),
    "t.requires_grad_()": lambda t: t.requires_grad_(),
    "t.share_memory_()": lambda t: t.share_memory_(),
    "t.resize_(2, 3)": lambda t: t.resize_(2, 3),
    "t.resize_as_(torch.empty(2, 3))": lambda t: t.resize_as_(torch.empty(2, 3)),
}


def moved_by(call, mode):
    t = torch.zeros(2, 3)
    version = t._version
    with mode():
        call(t)
    return t._version - version, tuple(t.shape)


moves = {line: (moved_by(call, torch.enable_grad), moved_by(call, torch.no_grad)) for line, call in calls.items()}
for line, ((moved, shape), (moved_no_grad, _)) in moves.items():
    print(f"{line:31} _version moves by: {moved}  under no_grad: {moved_no_grad}  shape after: {shape}")
assert [(moved, moved_no_grad) for (moved, _), (moved_no_grad, _) in moves.values()] == [(1, 1)] * 4 + [(0, 0)] * 5, (
    "t_(), unsqueeze_(), and resize_() or resize_as_() to a new size move _version by one; detach_(), "
    "requires_grad_(), share_memory_(), and resize_() or resize_as_() to the tensor's own size do not")

# sphinx_gallery_start_ignore
shapes_changed = [(after != (2, 3), after_no_grad != (2, 3)) for (_, after), (_, after_no_grad) in moves.values()]
assert shapes_changed == [(True, True)] * 4 + [(False, False)] * 5, (
    "t_(), unsqueeze_(), and resize_() or resize_as_() to a new size change t's shape (2, 3); the other calls keep it")
# sphinx_gallery_end_ignore
for flat_shape in ((), (3,)):
    flat = torch.zeros(flat_shape)
    flat.t_()
    print(f"t_() on a tensor of shape {flat_shape}: _version {flat._version}, shape after: {tuple(flat.shape)}")
    assert flat._version == 1 and flat.shape == flat_shape, (
        f"t_() moves _version by one on a tensor of shape {flat_shape} too, and leaves its shape as it was")

# %%
# Not moving the counter does not mean changing nothing: given ``memory_format=torch.channels_last``,
# ``resize_()`` to its own size re-strides the contiguous 4-D ``x4`` below in place, so ``x4`` reads other
# values while ``_version`` stays at 0, and ``backward()`` of a graph that saved ``x4`` runs on them: a wrong
# gradient, and no error.

w4 = torch.ones(1, 2, 2, 2, requires_grad=True)
x4 = torch.arange(8.0).reshape(1, 2, 2, 2)
loss4 = (w4 * x4).sum()
x4_before = x4.clone()
x4.resize_(x4.shape, memory_format=torch.channels_last)
print("x4._version:", x4._version, " x4 values kept:", torch.equal(x4, x4_before))
loss4.backward()
print("w4.grad equals x4 before:", torch.equal(w4.grad, x4_before), " equals x4 now:", torch.equal(w4.grad, x4))
assert x4._version == 0 and not torch.equal(x4, x4_before) and torch.equal(w4.grad, x4), (
    "resize_ to its own size with channels_last: counter still, other values, a wrong gradient without an error")

# %%
# A fused optimizer step
# ----------------------
#
# An optimizer made with ``fused=True`` (``torch.optim.SGD`` here; ``Adam``, ``AdamW`` and
# ``Adagrad`` behave the same) writes the new weights without moving their counter either. The loss below saves
# ``w`` before the step. Without ``fused`` the step moves the counter and ``backward()`` raises;
# with ``fused=True`` the counter stays at 0 and ``backward()`` runs on the new values: a wrong
# gradient, and no error.


def step_then_backward(make, fused):
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = make([w], lr=0.1, fused=fused)
    (w * w).sum().backward()
    loss = (w * w).sum()  # saves w = [1, 2, 3]
    optimizer.step()
    w.grad = None  # so that w.grad comes from this loss alone
    loss.backward()
    return w


try:
    step_then_backward(torch.optim.SGD, fused=False)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after a step that is not fused must raise")
w = step_then_backward(torch.optim.SGD, fused=True)
print("w._version:", w._version)
print("w.grad:", w.grad, " expected:", expected)
at_new_values = torch.func.grad(lambda q: (q * q).sum())(w.detach())
assert w._version == 0 and torch.equal(w.grad, at_new_values) and not torch.allclose(w.grad, expected), (
    "a fused step: no error, and backward runs on the new values"
)
# sphinx_gallery_start_ignore
assert all(
    step_then_backward(make, fused=True)._version == 0
    and not torch.allclose(step_then_backward(make, fused=True).grad, expected)
    for make in (torch.optim.Adam, torch.optim.AdamW, torch.optim.Adagrad)
), "a fused Adam, AdamW or Adagrad step must not move _version, and backward must give a wrong gradient"


def fake_quant_update_uncounted():
    fake_quant = torch.ao.quantization.FusedMovingAvgObsFakeQuantize()
    observer = fake_quant.activation_post_process
    buffers = (fake_quant.scale, fake_quant.zero_point, observer.min_val, observer.max_val)
    old_values = [b.clone() for b in buffers]
    q_leaf = torch.ones(1, requires_grad=True)
    q_loss = (q_leaf * fake_quant.scale).sum()  # saves scale
    fake_quant(torch.linspace(-5.0, 5.0, 16))
    q_now = (fake_quant.scale, fake_quant.zero_point, observer.min_val, observer.max_val)
    q_loss.backward()
    return (all(a is b and b._version == 0 for a, b in zip(q_now, buffers, strict=True))
            and not any(torch.equal(b, old) for b, old in zip(buffers, old_values, strict=True))
            and torch.equal(q_leaf.grad, fake_quant.scale))


assert fake_quant_update_uncounted(), (
    "FusedMovingAvgObsFakeQuantize rewrites scale, zero_point, min_val and max_val in place without moving "
    "_version, and backward uses the new scale"
)
# sphinx_gallery_end_ignore

# %%
# One counter for a base and its views
# ------------------------------------
#
# ``view = base[1:3]`` shares ``base``'s memory and its counter: an edit through either moves both readings. A view
# that one of the view operations torch documents takes of a tensor that is not an inference tensor, one whose
# ``is_inference()`` is ``False``, shares its base's counter in the same way, whether taken with grad mode on, under
# ``torch.no_grad()`` or inside ``torch.inference_mode()``, but for ``view(dtype)`` taken inside the mode, which gives an inference tensor, with no
# counter. The pieces that ``unsafe_chunk`` and ``unsafe_split`` take inside the mode are views too, yet each has a
# counter of its own (above). :fact:`version-counter-shared-by-views-and-detach`
# :fact:`view-dtype-under-inference-mode-uncounted` :fact:`unsafe-pieces-in-inference-mode-own-counter`

base = torch.zeros(4)
view = base[1:3]
view.add_(1)
base[0] = 5.0
print("base:", base)
print("view:", view)
print("base._version:", base._version, " view._version:", view._version)
print("view._base is base:", view._base is base, " same storage:", same_storage(base, view))
assert base._version == view._version == 2, "a base and its view must share one version counter"
# sphinx_gallery_start_ignore


def normal_made_from_inference():
    """A tensor whose is_inference() is False, made from an inference tensor: its detach().view(torch.float32)."""
    with torch.inference_mode():
        made_in_mode = torch.arange(6.0).reshape(2, 3) * 1
    return made_in_mode.detach().view(torch.float32)


def view_moves_base(take_view, enter):
    """Whether moving the counter of a view taken inside ``enter`` moves its base's."""
    base_ = normal_made_from_inference()
    with enter():
        view_ = take_view(base_)
    before_ = base_._version
    torch.autograd.graph.increment_version(view_)
    return base_._version == before_ + 1


views_of_normal = (lambda t: t[1:], lambda t: t.t(), lambda t: t.view(6), lambda t: t.unbind()[0],
                   lambda t: t.diagonal(), lambda t: t.expand(2, 2, 3), lambda t: t.detach())
assert not normal_made_from_inference().is_inference() and all(
    view_moves_base(take, enter) for take in views_of_normal
    for enter in (torch.enable_grad, torch.no_grad, torch.inference_mode)), (
    "a normal tensor made from an inference tensor shares its counter with its views, in every mode")
assert all(view_moves_base(lambda t: t.view(torch.int32), enter) for enter in (torch.enable_grad, torch.no_grad)), (
    "its view(dtype) taken outside inference_mode shares it too")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names base and view point to two tensor objects on one storage S1, with one version counter C1; both read _version=2.
#
#    One storage ``S1`` and one counter ``C1``: the edit through ``view`` and the edit through
#    ``base`` both count, so both read ``_version=2``.

draw_memory("view = base[1:3]; view.add_(1); base[0] = 5.0", base=base, view=view)
# sphinx_gallery_start_ignore
assert same_storage(base, view), "the view uses the base's memory"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``_version`` counts the in-place torch operations made through the tensor itself or ``out=`` and, on a tensor whose
# ``is_inference()`` is ``False``, through a view taken outside ``torch.inference_mode()`` or ``detach()``, with or
# without ``torch.no_grad()``, shape changes such as ``t_()`` included;
# the Python-callback methods ``apply_``, ``map_`` and ``map2_``, some torch kernels that write in place,
# and the calls ``detach_()``, ``requires_grad_()``, ``share_memory_()``, and ``resize_()`` or
# ``resize_as_()`` to the tensor's own size are not among them. The kernels of
# this kind that this site checked are the fused kernels of an optimizer made with ``fused=True``, the
# unscaling of ``torch.amp.GradScaler.unscale_``, a ``BatchNorm`` layer's update of ``running_mean`` and
# ``running_var``, and the update of the quantization-aware training module
# ``torch.ao.quantization.FusedMovingAvgObsFakeQuantize``, which rewrites its ``scale`` and ``zero_point``
# and its observer's ``min_val`` and ``max_val``; other kernels may do the same. Many routes to the same memory go around it; among
# them ``.data``, NumPy, ``untyped_storage()``, a DLPack alias, ``copy.copy(t)``, ``apply_``,
# ``map_`` and ``map2_``, ``nn.utils.vector_to_parameters``, the pieces of ``unsafe_chunk`` and
# ``unsafe_split`` (taken as above, outside ``torch.inference_mode()`` or inside it), ``view(dtype)`` taken inside
# the mode, and those kernels. They change the
# values behind its back, which is why their edits can give wrong gradients without an error
# (:ref:`questions-data-vs-no-grad`). Rebinding a name edits nothing.
# :fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted` :fact:`counter-bypass-edits-silent`
