"""
.. _questions-overlapping-writes:

"refer to a single memory location": source and destination overlap
===================================================================

.. admonition:: Answer
   :class: answer

   When a non-empty ``t`` has 3 or more rows, ``t[1:] = t[:-1]`` writes over its own source: refused for a
   contiguous CPU ``t``; on one not contiguous (``x[::2]``, ``x[:, 0]``, ``x.t()``) it can run with no error and
   write wrong values. ``clone()`` the source first:

   .. code-block:: python

      t[1:] = t[:-1].clone()

Shifting a non-empty contiguous dense CPU tensor (layout ``torch.strided``, not nested) of 3 or more rows in place by one step, ``t[1:] = t[:-1]``, stops (in each of the 18 dtypes this page runs, from ``bool`` and the integer types to float8, complex and quantized ones) with ``RuntimeError: unsupported
operation: some elements of the input tensor and the written-to tensor refer to a single memory
location. Please clone() the tensor before performing the operation.`` A jagged nested tensor (layout ``torch.jagged``)
and an mkldnn tensor (``to_mkldnn()``), whose ``t[:-1]`` torch refuses, stop with another error. A leaf that requires
grad and is not an inference tensor (such as a ``Parameter`` made outside ``torch.inference_mode()``), or a view of one
taken in grad mode by slicing, indexing or ``view()`` with a shape, gets another
error while grad mode is on: ``RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place
operation.`` ``t[1:] = t[:-1].clone()`` gets it too; under ``torch.no_grad()`` it works. With grad mode on, some other
kinds of view of a tensor that requires grad and is not an inference tensor, a leaf or not, get autograd's error about such views instead (with the
source cloned too), among them these three: one taken under ``torch.no_grad()`` or ``torch.inference_mode()`` (unless that tensor is a
view whose ``_base``, an internal attribute of torch naming the tensor whose memory a view uses, does not require
grad), an output of ``unbind()`` (iterating over a tensor, ``for row in x``, calls it),
``split()``, ``chunk()`` or ``split_with_sizes()``, and one that a custom ``autograd.Function`` returns. The
``detach()`` and ``view(dtype)`` of such a leaf, views that autograd does not record, do not require grad and get
neither the leaf's error nor autograd's: with the source cloned, their shift runs with grad mode on and writes into the leaf. An inference
tensor (such as one that ``torch.inference_mode()`` creates in new memory, or a ``Parameter`` made inside that mode,
as in a model built there: a leaf that requires grad) refuses the cloned shift outside that mode,
even under ``torch.no_grad()``, with ``RuntimeError: Inplace update to inference tensor outside InferenceMode is not
allowed``, after writing the shifted values; inside the mode the cloned shift works. Such a ``Parameter`` gets the first message above for ``t[1:] = t[:-1]``, with
grad mode on too. This page shows why (the
source and the destination share three elements of one storage), runs other writes whose source
overlaps the destination, some refused and some not, shows the same shift running silently
with wrong values on every second element of a longer tensor, on a column, on a transpose and along a second
dimension (``w[:, 1:] = w[:, :-1]``), and shifts a window of observations at every
step with the source cloned.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
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
# The error
# ---------
#
# ``t[1:] = t[:-1]`` is meant to move every element one place to the right. torch refuses it with
# the message below, and ``t`` keeps its values.

t = torch.arange(5.0)
try:
    t[1:] = t[:-1]
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("t[1:] = t[:-1] must raise")
print("t:", t)
assert message == (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
), "t[1:] = t[:-1] is refused: its two sides share memory locations"
# sphinx_gallery_start_ignore
assert torch.equal(t, torch.arange(5.0)), "the refused write leaves t as it was"
# sphinx_gallery_end_ignore

# %%
# A tensor that requires grad
# ---------------------------
#
# On a leaf that requires grad and is not an inference tensor, here a ``Parameter`` made outside
# ``torch.inference_mode()``, and on a view of such a leaf taken in grad mode by slicing, indexing or ``view()``
# with a shape, here a row of a 2-d ``Parameter``, the same shift is refused with another message while grad mode
# is on; under ``torch.no_grad()`` or ``torch.inference_mode()`` the leaf and a contiguous view of it,
# such as that row, get the message above, while a view of it that is not contiguous may run with no
# error and write wrong values, as a column ``[:, 0]`` and ``[::2]`` do. A
# contiguous tensor that requires grad and is neither a leaf nor a view, here
# ``arange(5.0, requires_grad=True) * 2``, gets the message above in all three modes, and so do its
# contiguous views by slicing, ``view()`` or ``tensor_split()``; a view of it that is not contiguous
# may run with no error in all three modes and write wrong values, as ``[::2]`` and a column of a 2-d
# one do, like the layouts of "The same shift, not caught" below. Being contiguous is not what decides:
# in the views of either tensor tried here, in those modes, the shift was refused with the message
# above exactly where each side, ``t[1:]`` and ``t[:-1]``, fills one block of memory with no gaps, in
# any order of its dimensions, so ``transpose(1, 2)`` of a 3-d tensor, which is not contiguous, is
# refused too. With grad mode on, some other kinds of view
# of a tensor that requires grad and is not an inference tensor get other messages, in which autograd says why it does not allow
# such a view to be modified in place; among them these three: an output of ``unbind()`` (iterating over a tensor,
# ``for row in x``, calls it), ``split()``, ``chunk()`` or ``split_with_sizes()``; a view taken under
# ``torch.no_grad()`` or ``torch.inference_mode()`` of a tensor that requires grad (unless that tensor is itself a
# view whose ``_base`` does not require grad, such as the leaf shown below); and a view that a custom
# ``autograd.Function`` returns. A ``Parameter`` made inside ``torch.inference_mode()``, as in a model built there,
# is an inference tensor: it is a leaf and requires grad, yet its shift gets the message above in all three modes.


def shift_in(mode, g):
    with mode():
        g[1:] = g[:-1]


tensors = {
    "leaf": lambda: torch.nn.Parameter(torch.arange(5.0)),
    "row of a leaf": lambda: torch.nn.Parameter(torch.arange(10.0).reshape(2, 5))[0],
    "not a leaf": lambda: torch.arange(5.0, requires_grad=True) * 2,
}
modes = {"enable_grad": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
grad_messages = {}
for mode_name in modes:
    for kind, make in tensors.items():
        try:
            shift_in(modes[mode_name], make())
        except RuntimeError as e:
            grad_messages[mode_name, kind] = str(e)
            print(f"{mode_name:<14} {kind:<13} {type(e).__name__}: {e}")
        else:
            raise AssertionError(f"the shift of a tensor that requires grad must raise ({kind}, {mode_name})")
leaf_messages = {grad_messages.pop(("enable_grad", kind)) for kind in ("leaf", "row of a leaf")}
assert leaf_messages == {"a view of a leaf Variable that requires grad is being used in an in-place operation."} and all(
    m == message for m in grad_messages.values()), "only the leaf and its row, with grad on, get another message"
# sphinx_gallery_start_ignore
assert [(make_one().requires_grad, make_one().is_leaf) for make_one in tensors.values()] == [
    (True, True), (True, False), (True, False)], "all three tensors require grad; only the first is a leaf"
assert tensors["row of a leaf"]()._base.is_leaf and tensors["not a leaf"]()._base is None, (
    "the row is a view of a leaf; arange(5.0, requires_grad=True) * 2 is a view of nothing")


def refused_with(mode, make_tensor):
    try:
        shift_in(mode, make_tensor())
    except RuntimeError as e:
        return str(e)
    return None


def parameter():
    return torch.nn.Parameter(torch.arange(5.0))


def inference_parameters():
    with torch.inference_mode():
        return torch.nn.Parameter(torch.arange(5.0)), torch.nn.Linear(3, 5).weight


assert all(made.is_inference() and made.is_leaf and made.requires_grad for made in inference_parameters()) and {
    refused_with(mode_, lambda index=index: inference_parameters()[index]) for mode_ in modes.values()
    for index in (0, 1)} == {message}, (
    "a Parameter made inside inference_mode, as a model's weight built there, is an inference tensor, a leaf that "
    "requires grad, and its shift gets the message above in all three modes")

contiguous_views = (lambda: parameter()[:], lambda: parameter().view(5), lambda: parameter().unsqueeze(0)[0],
                    lambda: torch.nn.Parameter(torch.zeros(3, 5))[1])
column_view = (lambda: torch.nn.Parameter(torch.zeros(5, 3))[:, 0],)
assert {refused_with(torch.enable_grad, view) for view in contiguous_views + column_view} == leaf_messages, (
    "with grad on, a view of a leaf taken in grad mode by slicing, indexing or view() with a shape, of any layout, gets "
    "the leaf's message")
assert {refused_with(quiet, view) for quiet in (torch.no_grad, torch.inference_mode) for view in contiguous_views} == {
    message}, "under no_grad and inference_mode, a contiguous view of a leaf gets the message above"
not_views = (lambda: torch.arange(5.0, requires_grad=True) * 2, lambda: parameter() + 0, lambda: parameter()[:].clone(),
             lambda: torch.nn.functional.relu(parameter()))
assert all(made.is_contiguous() and made.requires_grad and not made.is_leaf and made._base is None
           for made in (make_one() for make_one in not_views)), (
    "arange(5.0, requires_grad=True) * 2, p + 0, p[:].clone() and relu(p) are contiguous, require grad, and are "
    "neither a leaf nor a view")
others = not_views + (lambda: (torch.arange(5.0, requires_grad=True) * 2)[:],
                      lambda: (torch.arange(5.0, requires_grad=True) * 2).view(5),
                      lambda: (torch.arange(10.0, requires_grad=True) * 2)[2:7],
                      lambda: (torch.arange(10.0, requires_grad=True) * 2).tensor_split(2)[0])
assert {refused_with(mode_, other) for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode)
        for other in others} == {message}, (
    "a contiguous tensor that requires grad and is neither a leaf nor a view, and its contiguous views by slicing, "
    "view() or tensor_split(), get the message above in every mode")


def shift_outcome(mode, make_tensor):
    """The shift of a fresh tensor in a mode: (its error message or None, whether it gave the values of the shift
    from a cloned source)."""
    shifted = make_tensor()
    from_clone = torch.cat((shifted[:1], shifted[:-1])).detach()
    try:
        shift_in(mode, shifted)
    except RuntimeError as e:
        return str(e), False
    return None, torch.equal(shifted.detach(), from_clone)


strided_leaf_views = (lambda: torch.nn.Parameter(torch.arange(15.0).reshape(5, 3))[:, 0],
                      lambda: torch.nn.Parameter(torch.arange(10.0))[::2])
assert not any(view().is_contiguous() for view in strided_leaf_views) and {
    shift_outcome(quiet, view) for quiet in (torch.no_grad, torch.inference_mode) for view in strided_leaf_views} == {
    (None, False)}, (
    "under no_grad and inference_mode, a view of a leaf taken in grad mode that is not contiguous, a column or [::2], "
    "runs the shift with no error and writes other values than the shift from a cloned source")
strided_others = (lambda: (torch.arange(10.0, requires_grad=True) * 2)[::2],
                  lambda: (torch.arange(15.0, requires_grad=True).reshape(5, 3) * 2)[:, 0],
                  lambda: (torch.arange(10.0, requires_grad=True) * 2).view(5, 2)[:, 1])
assert not any(other().is_contiguous() for other in strided_others) and {
    shift_outcome(mode_, other) for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode)
    for other in strided_others} == {(None, False)}, (
    "a view that is not contiguous ([::2], a column) of a contiguous tensor that requires grad and is neither a leaf "
    "nor a view runs the shift with no error in every mode and writes other values than the shift from a cloned "
    "source")


def fills_one_block(part):
    dims = sorted((st, sz) for st, sz in zip(part.stride(), part.shape, strict=True) if sz != 1)
    return all(stride == torch.Size([size for _, size in dims[:i]]).numel() for i, (stride, _) in enumerate(dims))


def refused_where_dense(mode, make_view):
    tried = make_view()
    dense = fills_one_block(tried[1:]) and fills_one_block(tried[:-1])
    return refused_with(mode, make_view) == (message if dense else None)


def leaf_of(shape):
    return torch.nn.Parameter(torch.arange(float(torch.Size(shape).numel())).reshape(shape))


def made_of(shape):
    return (torch.arange(float(torch.Size(shape).numel()), requires_grad=True) * 2).reshape(shape)


tried_layouts = (((3, 5), lambda x: x[1]), ((5, 3), lambda x: x[:, 0]), ((10,), lambda x: x[::2]),
                 ((5, 2), lambda x: x[:, 1]), ((3, 3), lambda x: x.t()), ((3, 2, 2), lambda x: x.transpose(0, 1)),
                 ((3, 2, 2), lambda x: x.transpose(1, 2)), ((3, 2, 2, 2), lambda x: x.permute(0, 2, 3, 1)))
assert all(refused_where_dense(quiet, lambda shape=shape, take=take: take(leaf_of(shape)))
           for quiet in (torch.no_grad, torch.inference_mode) for shape, take in tried_layouts) and all(
    refused_where_dense(mode_, lambda shape=shape, take=take: take(made_of(shape)))
    for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode) for shape, take in tried_layouts), (
    "in the views tried, of a leaf under no_grad and inference_mode and of a tensor that is neither a leaf nor a view "
    "in every mode, the shift is refused with the message above exactly where t[1:] and t[:-1] each fill one block "
    "of memory with no gaps, and runs with no error elsewhere")
assert not any(make((3, 2, 2)).transpose(1, 2).is_contiguous() for make in (leaf_of, made_of)) and ({
    refused_with(quiet, lambda: leaf_of((3, 2, 2)).transpose(1, 2)) for quiet in (torch.no_grad, torch.inference_mode)} | {
    refused_with(mode_, lambda: made_of((3, 2, 2)).transpose(1, 2))
    for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode)}) == {message}, (
    "transpose(1, 2) of a 3-d tensor is not contiguous, yet its shift is refused with the message above")
multiple_outputs = (lambda: parameter().reshape(1, 5).unbind(0)[0], lambda: parameter().split(5)[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).reshape(2, 5).unbind(0)[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).split(5)[0],
                    lambda: parameter().chunk(1)[0], lambda: parameter().split_with_sizes([5])[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).chunk(2)[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).split_with_sizes([5, 5])[0],
                    lambda: next(iter(torch.nn.Parameter(torch.arange(10.0).reshape(2, 5)))))
assert all(refused_with(torch.enable_grad, output).startswith(
    "Output 0 of Slice is a view and is being modified inplace. This view is the output of a function that returns "
    "multiple views.") for output in multiple_outputs), (
    "with grad on, an output of unbind(), split(), chunk() or split_with_sizes() of a tensor that requires grad gets "
    "autograd's message on such views")
assert all(type(next(iter(make_rows())).grad_fn) is type(make_rows().unbind(0)[0].grad_fn)
           for make_rows in (lambda: torch.nn.Parameter(torch.arange(10.0).reshape(2, 5)),
                             lambda: (torch.arange(10.0, requires_grad=True) * 2).reshape(2, 5))), (
    "iterating over a tensor gives the outputs of unbind()")
assert all(out.is_contiguous() and out.requires_grad and not out.is_leaf and not out._base.is_leaf
           for out in (multiple_outputs[2](), multiple_outputs[3]())), (
    "the outputs of unbind() and split() of arange(10.0, requires_grad=True) * 2 are contiguous, require grad, and "
    "are neither a leaf nor a view of one")


def under_no_grad(make_base, take):
    base = make_base()
    with torch.no_grad():
        return take(base)


view_of_non_leaf = lambda: (torch.arange(10.0, requires_grad=True) * 2).view(2, 5)[0]  # noqa: E731
leaf_view = lambda: under_no_grad(parameter, lambda b: b[:])  # noqa: E731
quiet_views = [lambda make=make, take=take: under_no_grad(make, take)
               for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2, view_of_non_leaf, leaf_view)
               for take in (lambda b: b[:], lambda b: b.view(5), lambda b: b.tensor_split(1)[0], lambda b: b.chunk(1)[0])]
assert all(quiet().requires_grad for quiet in quiet_views) and all(
    refused_with(torch.enable_grad, quiet).startswith(
        "Output 0 of Slice is a view of a view which was created in no_grad mode and is being modified inplace with "
        "grad mode enabled.") for quiet in quiet_views), (
    "with grad on, a view taken under no_grad of a tensor that requires grad gets autograd's message on such views")


def under_inference(make_base, take):
    base = make_base()
    with torch.inference_mode():
        return take(base)


inference_views = [lambda make=make, take=take: under_inference(make, take)
                   for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2, view_of_non_leaf,
                                leaf_view)
                   for take in (lambda b: b[:], lambda b: b.view(5), lambda b: b.tensor_split(1)[0], lambda b: b.chunk(1)[0])]
assert all(view().requires_grad for view in inference_views) and all(
    refused_with(torch.enable_grad, view).startswith(
        "Output 0 of Slice is a view of a view which was created in inference mode and is being modified inplace in "
        "normal mode.") for view in inference_views), (
    "with grad on, a view taken under inference_mode of a tensor that requires grad gets autograd's message on such "
    "views")


class ViewOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[:]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


assert all(refused_with(torch.enable_grad, lambda make=make: ViewOut.apply(make())).startswith(
    "Output 0 of Slice is a view and is being modified inplace. This view was created inside a custom Function")
    for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2)), (
    "with grad on, a view that a custom autograd.Function returns gets autograd's message on such views")
assert {refused_with(quiet, view) for quiet in (torch.no_grad, torch.inference_mode)
        for view in (*multiple_outputs, *quiet_views, *inference_views, lambda: ViewOut.apply(parameter()))} == {
    message}, (
    "written under no_grad or inference_mode, these three kinds of view get the message above")
assert all(make()._base is None for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2)) and (
    view_of_non_leaf()._base is not None and not view_of_non_leaf().is_leaf) and (
    leaf_view().is_leaf and leaf_view()._base.requires_grad), (
    "the tensors whose views are taken under no_grad and inference_mode above: a Parameter and a non-leaf, not views, "
    "a non-leaf that is a view, and a leaf that is a view whose _base requires grad")
# sphinx_gallery_end_ignore

# %%
# A leaf made by ``requires_grad_()`` on a view, here ``torch.arange(10.0).reshape(2, 5).requires_grad_()``,
# is the exception: a row of it taken under ``torch.no_grad()`` or ``torch.inference_mode()`` does not
# require grad, and with grad mode on its shift gets the message above and its cloned shift works.


def view_leaf():
    return torch.arange(10.0).reshape(2, 5).requires_grad_()


for quiet_name in ("no_grad", "inference_mode"):
    w = view_leaf()
    with modes[quiet_name]():
        row = w[0]
    print(f"{quiet_name:<14} w.is_leaf: {w.is_leaf}  w.requires_grad: {w.requires_grad}  "
          f"row.requires_grad: {row.requires_grad}")
    try:
        shift_in(torch.enable_grad, row)
    except RuntimeError as e:
        row_message = str(e)
        print(f"{'':<14} {type(e).__name__}: {e}")
    else:
        raise AssertionError("the shift of a row taken under no_grad or inference_mode must raise")
    with torch.enable_grad():
        row[1:] = row[:-1].clone()
    print(f"{'':<14} cloned shift, row: {row.tolist()}")
    assert w.is_leaf and w.requires_grad and not row.requires_grad and row_message == message and row.tolist() == [
        0.0, 0.0, 1.0, 2.0, 3.0], (
        f"{quiet_name}: a row of a leaf made by requires_grad_() on a view does not require grad, gets the message "
        "above and takes the cloned shift")
# sphinx_gallery_start_ignore
assert w._base is not None and not w._base.requires_grad, (
    "arange(10.0).reshape(2, 5).requires_grad_() is a view of a tensor that does not require grad")
bases_not_requiring_grad = (view_leaf, lambda: view_leaf()[:], lambda: view_leaf()[1], lambda: view_leaf().view(10)[2:])
assert all(made.requires_grad and made._base is not None and not made._base.requires_grad
           for made in (make_one() for make_one in bases_not_requiring_grad)) and [
    make_one().is_leaf for make_one in bases_not_requiring_grad] == [True, False, False, False], (
    "the bases of the next check require grad and are views whose _base does not require grad, a leaf and three "
    "non-leaves")
assert {refused_with(torch.enable_grad, lambda under=under, make=make, take=take: under(make, take))
        for under in (under_no_grad, under_inference) for make in bases_not_requiring_grad
        for take in (lambda b: b.reshape(-1)[:], lambda b: b.view(-1), lambda b: b.reshape(-1).tensor_split(1)[0],
                     lambda b: b.reshape(-1).chunk(1)[0], lambda b: b.reshape(-1)[1:])} == {message}, (
    "with grad on, a view taken under no_grad or inference_mode of a view whose _base does not require grad gets the "
    "message above, not autograd's")
# sphinx_gallery_end_ignore

# %%
# Why: one storage under both sides
# ---------------------------------
#
# The destination ``t[1:]`` and the source ``t[:-1]`` are two views of ``t``, on its storage. The
# elements ``t[1]``, ``t[2]`` and ``t[3]`` belong to both: the source starts one element before the
# destination and ends one element before it, so they share three of their four elements.

dest = t[1:]
source = t[:-1]
print("same storage:", same_storage(dest, source))
print("storage offsets: dest", dest.storage_offset(), " source", source.storage_offset())
print("dest:", dest, " source:", source)
assert same_storage(dest, source) and (dest.storage_offset(), source.storage_offset()) == (1, 0), (
    "dest and source are on one storage, at offsets 1 and 0"
)

# %%
# .. figure-caption::
#    :alt: Diagram: the names t, dest and source point to three tensor objects on one storage S1.
#
#    ``t``, ``dest`` and ``source`` are three tensor objects on one storage ``S1``.

draw_memory("dest = t[1:]; source = t[:-1]", t=t, dest=dest, source=source)
# sphinx_gallery_start_ignore
assert same_storage(t, dest) and same_storage(t, source), "both views are on t's storage"
# sphinx_gallery_end_ignore

# %%
# Other writes that overlap their source
# --------------------------------------
#
# Six other writes whose source overlaps the destination, each on a fresh ``t``: the shift to the
# left, ``t[:-1] = t[1:]``; the shift to the right written with ``+=``, ``copy_``, ``index_copy_``
# and ``torch.add`` with ``out=t[1:]``; and ``s.add_(s.t())`` on a 2 x 2 view ``s`` of ``t``, whose
# transpose has the same elements. Each of the six raises the message above and leaves ``t`` as it
# was.


def shift_assign(t):
    t[:-1] = t[1:]


def shift_add(t):
    t[1:] += t[:-1]


def square_add(t):
    s = t[:4].view(2, 2)
    s.add_(s.t())


raising = {
    "t[:-1] = t[1:]": shift_assign,
    "t[1:] += t[:-1]": shift_add,
    "t[1:].copy_(t[:-1])": lambda t: t[1:].copy_(t[:-1]),
    "t.index_copy_(0, idx, t[:-1])": lambda t: t.index_copy_(0, torch.tensor([1, 2, 3, 4]), t[:-1]),
    "torch.add(t[:-1], 1, out=t[1:])": lambda t: torch.add(t[:-1], 1, out=t[1:]),
    "s.add_(s.t())": square_add,
}
messages, after = {}, {}
for name, write in raising.items():
    t = torch.arange(5.0)
    try:
        write(t)
    except RuntimeError as e:
        messages[name] = str(e)
        print(f"{name:<32} {type(e).__name__}  t: {t}")
    else:
        raise AssertionError(f"{name} must raise")
    after[name] = t
assert all(m == message for m in messages.values()), "all six raise the message of t[1:] = t[:-1]"
# sphinx_gallery_start_ignore
for case, result in after.items():
    assert torch.equal(result, torch.arange(5.0)), f"{case} must leave t as it was"
probe_square = torch.arange(4.0).view(2, 2)
assert probe_square.t().data_ptr() == probe_square.data_ptr() and (probe_square.t() != probe_square).sum() == 2, (
    "s.t() reads the four elements of s, two of them at the place of another: not element for element"
)
# sphinx_gallery_end_ignore

# %%
# Writes that do not raise
# ------------------------
#
# Four more writes, each run twice on a fresh ``t``: as written, and with its source passed
# through ``clone()``. None of the eight runs raises. In ``t.add_(t)`` the source and the
# destination are the same elements, one for one; ``t.flip(0)`` returns a new tensor, not a view,
# so ``t.copy_(t.flip(0))`` has no overlap. Both give what the cloned source gives. In the last two
# the overlap is of another kind: ``masked_scatter_`` from ``t[:-1]`` into ``t[1:]``, with every mask
# element true, overlaps partly; ``torch.sum`` of the two rows of a 2 x 2 view ``s`` of ``t``, written into
# its first row ``s[0]``, writes, like ``t.add_(t)``, into elements it reads, in the same places, but
# computes each output element from two of them. Neither raises, and each gives another result than the
# same write from a cloned source.


def masked(t, src):
    t[1:].masked_scatter_(torch.ones(4, dtype=torch.bool), src(t[:-1]))


def row_sum(t, src):
    s = t[:4].view(2, 2)
    torch.sum(src(s), 0, out=s[0])


silent = {
    "t.add_(t)": lambda t, src: t.add_(src(t)),
    "t.copy_(t.flip(0))": lambda t, src: t.copy_(src(t.flip(0))),
    "t[1:].masked_scatter_(mask, t[:-1])": masked,
    "torch.sum(s, 0, out=s[0])": row_sum,
}
differ = []
for name, write in silent.items():
    as_written, cloned = torch.arange(5.0), torch.arange(5.0)
    write(as_written, lambda x: x)
    write(cloned, torch.clone)
    print(f"{name:<36} as written: {as_written.tolist()}")
    print(f"{'':<36} cloned:     {cloned.tolist()}")
    if not torch.equal(as_written, cloned):
        differ.append(name)
assert differ == ["t[1:].masked_scatter_(mask, t[:-1])", "torch.sum(s, 0, out=s[0])"], (
    "only masked_scatter_ and torch.sum give another result than from a cloned source"
)
# sphinx_gallery_start_ignore
probe = torch.arange(5.0)
assert probe.flip(0)._base is None and bytes_apart(probe.flip(0), probe), "flip(0) is not a view of t"
probe_s = probe[:4].view(2, 2)
assert [(probe_part.storage_offset(), probe_part.numel(), probe_part.stride()) for probe_part in (probe[1:], probe[:-1])] == [
    (1, 4, (1,)), (0, 4, (1,))], (
    "t[1:] and t[:-1] each cover four of t's five elements, at offsets 1 and 0: they share three, a partial overlap"
)
assert probe_s[0].data_ptr() == probe_s.data_ptr() and probe_s[0].stride() == (1,) and probe_s.stride() == (2, 1), (
    "torch.sum writes s[0], the first row of the s it reads: its two elements, in the same places"
)
# sphinx_gallery_end_ignore

# %%
# The same shift, not caught
# --------------------------
#
# The check that raised above does not catch every layout. The same shift runs without an error,
# and writes wrong values, on a ``t`` that is every second element of a longer tensor, on a ``t``
# that is a column ``x[:, 0]`` or the transpose ``x.t()`` of a 3 x 3 tensor, and along
# the second dimension of a 2-d tensor (``w[:, 1:] = w[:, :-1]``, a batch of windows shifted in
# time). None of these ``t`` is contiguous. Each gives another result than the shift from a cloned source,
# so do not count on the error: clone the source whenever the two sides may overlap.
# On a contiguous ``t`` the shift was refused, with the same message, for each of the five
# dtypes and four shapes tried below.


def strided_shift(src):
    t = torch.arange(10.0)[::2]
    t[1:] = src(t[:-1])
    return t


def column_shift(src):
    t = torch.arange(9.0).reshape(3, 3)[:, 0]
    t[1:] = src(t[:-1])
    return t


def transposed_shift(src):
    t = torch.arange(9.0).reshape(3, 3).t()
    t[1:] = src(t[:-1])
    return t


def batch_shift(src):
    w = torch.arange(6.0).reshape(2, 3)
    w[:, 1:] = src(w[:, :-1])
    return w


shifts = {
    "strided t: t[1:] = t[:-1]": strided_shift,
    "column t: t[1:] = t[:-1]": column_shift,
    "transposed t: t[1:] = t[:-1]": transposed_shift,
    "w[:, 1:] = w[:, :-1]": batch_shift,
}
uncaught = []
for name, shift in shifts.items():
    as_written, cloned = shift(lambda x: x), shift(torch.clone)
    print(f"{name:<28} as written: {as_written.tolist()}")
    print(f"{'':<28} cloned:     {cloned.tolist()}")
    if not torch.equal(as_written, cloned):
        uncaught.append(name)
assert uncaught == list(shifts), "all four shifts run without an error and give another result than the cloned source"


def shift_right(c):
    c[1:] = c[:-1]


refused_contiguous = []
for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64):
    for shape in ((3,), (5,), (4, 3), (3, 2, 2)):
        c = torch.zeros(shape, dtype=dtype)
        try:
            shift_right(c)
        except RuntimeError as e:
            refused_contiguous.append("refer to a single memory location" in str(e))
        else:
            raise AssertionError(f"the shift of a contiguous {dtype} tensor of shape {shape} must raise")
print("contiguous, t[1:] = t[:-1] refused:", sum(refused_contiguous), "of 20 dtypes and shapes")
assert refused_contiguous == [True] * 20, "the shift of a contiguous t is refused for every dtype and shape tried"
# sphinx_gallery_start_ignore
assert not any(x.is_contiguous() for x in (torch.arange(10.0)[::2], torch.arange(9.0).reshape(3, 3)[:, 0],
                                           torch.arange(9.0).reshape(3, 3).t(), torch.arange(6.0).reshape(2, 3)[:, 1:])), (
    "none of the strided t, the column, the transpose and w[:, 1:] is contiguous")


def shift_refused(t, shift):
    try:
        shift(t)
    except RuntimeError:
        return True
    return False


assert all(
    [shift_refused(torch.zeros(shape, dtype=dtype), shift)
     for shape in ((3, 0), (2,), (2, 3), (1,), (0,), (3,), (3, 2))] == [False, False, False, False, False, True, True]
    for shift in (shift_right, shift_assign)
    for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64)
), ("t[1:] = t[:-1] and t[:-1] = t[1:] are refused from 3 rows on, in each of the five dtypes, and not on fewer "
    "rows nor on an empty t")
import warnings


def five_zeros(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 is experimental, quantized dtypes are deprecated
        try:
            return torch.zeros(5, dtype=dtype)
        except NotImplementedError:
            return torch.quantize_per_tensor(torch.zeros(5), 0.1, 0, dtype)


more_dtypes = (torch.float64, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2, torch.int8, torch.int16,
               torch.int32, torch.uint8, torch.complex32, torch.complex128, torch.quint8, torch.qint8, torch.qint32)
assert all(five_zeros(dtype).is_contiguous() and refused_with(torch.enable_grad, lambda dtype=dtype: five_zeros(dtype))
           == message for dtype in more_dtypes), (
    "the shift of a contiguous CPU tensor of 5 rows is refused with the message above in thirteen more dtypes, "
    "float8, complex32 and quantized ones among them")


def slicing_refused(make_tensor):
    try:
        make_tensor()[:-1]
    except RuntimeError:
        return True
    return False


unsliced = (lambda: torch.nested.nested_tensor([torch.arange(5.0)] * 3, layout=torch.jagged),
            lambda: torch.arange(5.0).to_mkldnn())
assert all(made.is_contiguous() and made.device.type == "cpu" and made.numel() > 0 and made.size(0) >= 3
           for made in (make_one() for make_one in unsliced)) and all(
    slicing_refused(make_one) and refused_with(torch.enable_grad, make_one) not in (None, message)
    for make_one in unsliced), (
    "a jagged nested tensor and an mkldnn tensor, contiguous CPU tensors of 3 or more rows, refuse t[:-1], and their "
    "shift stops with another error than the message above")
# sphinx_gallery_end_ignore

# %%
# Writes into an expanded tensor
# ------------------------------
#
# In ``column.expand(3, 4)`` the four elements of each row are one memory location. Writing into
# it with ``add_`` gives a related message, "more than one element of the written-to tensor refers
# to a single memory location". :ref:`questions-views` shows which writes into an expanded tensor
# raise and which do not.

column = torch.zeros(3, 1)
try:
    column.expand(3, 4).add_(1.0)
except RuntimeError as e:
    expand_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("add_ into an expanded tensor must raise")
assert expand_message.startswith("unsupported operation: more than one element of the written-to tensor"), (
    "add_ into the expanded tensor is refused: its elements share memory locations"
)

# %%
# The fix: ``clone()`` the source
# -------------------------------
#
# ``t[:-1].clone()`` has memory of its own, so the write reads from a tensor that nothing in
# ``t[1:]`` overlaps, and the shift works.

t = torch.arange(5.0)
t[1:] = t[:-1].clone()
print("t:", t)
assert torch.equal(t, torch.tensor([0.0, 0.0, 1.0, 2.0, 3.0])), "the shift with a cloned source works"

# %%
# On a leaf that requires grad and is not an inference tensor, and on a view of one taken in grad mode by slicing,
# indexing or ``view()`` with a shape,
# the cloned shift is refused too while grad mode is on, with the leaf's message from above. Under
# ``torch.no_grad()`` it gives the intended shift; both still require grad, and the ``Parameter`` is still
# a leaf. Through the leaf's ``detach()`` or ``view(dtype)``, which do not require grad, the cloned shift runs even
# with grad mode on, and writes into the leaf. Below, the ``Parameter`` and the row of one from above. With grad mode on, the three kinds of
# view named above, of such a leaf or of a non-leaf that requires grad (for a view taken under ``torch.no_grad()`` or
# ``torch.inference_mode()``, unless that tensor is a view whose ``_base`` does not require grad), refuse the cloned
# shift too, each with autograd's message. Under ``torch.no_grad()`` it writes the intended values into them as well, but
# afterwards, with grad mode on, an operation on such a view (``v.sum()``), or even reading its ``grad_fn``, raises:
# its base or another view of its base has been modified in place. An operation on its base does not. An inference
# tensor, a ``Parameter`` made inside ``torch.inference_mode()`` among them, refuses the cloned shift outside the mode,
# with grad mode on and under ``torch.no_grad()``, after writing the shifted values; inside the mode it works.


def cloned_shift_in(mode, g):
    with mode():
        g[1:] = g[:-1].clone()


for kind in ("leaf", "row of a leaf"):
    g = tensors[kind]()
    try:
        cloned_shift_in(torch.enable_grad, g)
    except RuntimeError as e:
        cloned_message = str(e)
        print(f"{kind:<13} enable_grad  {type(e).__name__}: {e}")
    else:
        raise AssertionError("the cloned shift of a tensor that requires grad must raise in grad mode")
    cloned_shift_in(torch.no_grad, g)
    print(f"{kind:<13} no_grad      g: {g.tolist()}  requires_grad: {g.requires_grad}  is_leaf: {g.is_leaf}")
    assert cloned_message in leaf_messages and g.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0] and g.requires_grad and (
        g.is_leaf == (kind == "leaf")), "refused in grad mode, the cloned shift works under no_grad and keeps grad"
# sphinx_gallery_start_ignore
leaf_and_views = (parameter, lambda: parameter()[1:], lambda: parameter().view(5),
                  lambda: torch.nn.Parameter(torch.arange(15.0).reshape(3, 5))[1],
                  lambda: torch.nn.Parameter(torch.arange(15.0).reshape(5, 3))[:, 0])


def cloned_refused_in_grad_mode(make_tensor):
    try:
        cloned_shift_in(torch.enable_grad, make_tensor())
    except RuntimeError as e:
        return str(e)
    return None


def cloned_shift_under_no_grad(make_tensor):
    shifted, before = make_tensor(), make_tensor().tolist()
    cloned_shift_in(torch.no_grad, shifted)
    return shifted.tolist() == before[:1] + before[:-1]


assert {cloned_refused_in_grad_mode(make) for make in leaf_and_views} == leaf_messages, (
    "with grad on, the cloned shift of a leaf that requires grad, or of a view of one by slicing, indexing or view() "
    "with a shape, gets the leaf's message")
assert all(cloned_shift_under_no_grad(make) for make in leaf_and_views), (
    "under no_grad, the cloned shift of a leaf that requires grad, and of its views, gives the intended shift")
unrecorded_views = [(make, take) for make in (parameter, lambda: torch.nn.Parameter(torch.arange(12.0).reshape(3, 4)),
                                               lambda: torch.nn.Parameter(torch.arange(24.0).reshape(2, 3, 4).transpose(0, 1)),
                                               lambda: torch.arange(5.0, dtype=torch.float64, requires_grad=True), view_leaf)
                    for take in (lambda x: x.detach(), lambda x: x.view(x.dtype), lambda x: x.view(torch.int32),
                                 lambda x: x.view(torch.bool))]


def shift_through_unrecorded_view(make_leaf, take):
    leaf = make_leaf()
    before, view = leaf.detach().clone(), take(leaf)
    intended = torch.cat((view[:1], view[:-1])).clone()
    plain = refused_with(torch.enable_grad, lambda: take(make_leaf()))
    return (leaf.is_leaf and leaf.requires_grad and not view.requires_grad and plain in (message, None)
            and cloned_refused_in_grad_mode(lambda: view) is None and torch.equal(view, intended)
            and leaf._version == 1 and not torch.equal(leaf.detach(), before))


assert all(shift_through_unrecorded_view(make, take) for make, take in unrecorded_views), (
    "with grad on, the detach() and view(dtype) of a leaf that requires grad do not require grad and get neither the "
    "leaf's message nor autograd's; their cloned shift runs and writes into the leaf")
autograd_views = (*multiple_outputs, *quiet_views, *inference_views, lambda: ViewOut.apply(parameter()),
                  lambda: ViewOut.apply(torch.arange(5.0, requires_grad=True) * 2))
assert all((cloned_refused_in_grad_mode(view) or "").startswith("Output 0 of Slice is a view") and (
    cloned_refused_in_grad_mode(view) == refused_with(torch.enable_grad, view)) for view in autograd_views), (
    "with grad on, the three kinds of view of a leaf or a non-leaf that requires grad refuse the cloned shift with "
    "autograd's message, as they refuse the plain shift")
assert all(cloned_shift_under_no_grad(view) for view in autograd_views), (
    "under no_grad, the cloned shift of the three kinds of view gives the intended shift")
views_of_view_leaves = [lambda under=under, make=make: under(make, lambda b: b[0])
                        for under in (under_no_grad, under_inference)
                        for make in (view_leaf, lambda: view_leaf()[:])]
assert all(not view().requires_grad and view()._base is not None and not view()._base.requires_grad and (
    cloned_refused_in_grad_mode(view) is None) for view in views_of_view_leaves), (
    "with grad on, the cloned shift of a view taken under no_grad or inference_mode of a leaf or a non-leaf that is a "
    "view whose _base does not require grad runs")


def used_in_grad_mode_after_shift(view):
    shifted = view()
    cloned_shift_in(torch.no_grad, shifted)
    refused = []
    with torch.enable_grad():
        for use in (lambda: shifted.sum(), lambda: shifted * 2, lambda: shifted.grad_fn):
            try:
                use()
            except RuntimeError as e:
                refused.append("its base or another view of its base has been modified inplace" in str(e))
            else:
                refused.append(False)
        return refused == [True, True, True] and (shifted._base * 2).sum().requires_grad


assert all(used_in_grad_mode_after_shift(view) for view in autograd_views), (
    "after the cloned shift under no_grad, with grad on, an operation on one of the three kinds of view, or reading its "
    "grad_fn, raises because its base was modified in place; an operation on its base does not")


def inference_tensors():
    normal = torch.arange(5.0)
    with torch.inference_mode():
        return (torch.arange(5.0), torch.arange(12.0).reshape(4, 3), torch.arange(10.0)[::2], torch.arange(5),
                normal.view(torch.int32), torch.nn.Parameter(torch.arange(5.0)), torch.nn.Linear(3, 5).weight)


def cloned_shift_of_inference(mode, it):
    intended = torch.cat((it[:1], it[:-1])).tolist()
    try:
        cloned_shift_in(mode, it)
    except RuntimeError as e:
        return str(e).split(".")[0], it.tolist() == intended
    return None, it.tolist() == intended


assert all(it.is_inference() for it in inference_tensors()) and all(
    it.requires_grad and it.is_leaf for it in inference_tensors()[5:]), (
    "all seven tensors made for these checks are inference tensors; the last two, a Parameter and a model's weight "
    "made in the mode, are leaves that require grad")
inference_message = "Inplace update to inference tensor outside InferenceMode is not allowed"
assert {cloned_shift_of_inference(outside, it) for outside in (torch.enable_grad, torch.no_grad)
        for it in inference_tensors()} == {(inference_message, True)}, (
    "outside inference_mode, even under no_grad, the cloned shift of an inference tensor raises the inference "
    "tensor's message after writing the shifted values")
assert {cloned_shift_of_inference(torch.inference_mode, it) for it in inference_tensors()} == {(None, True)}, (
    "inside inference_mode, the cloned shift of an inference tensor gives the intended shift")
# sphinx_gallery_end_ignore

# %%
# A window of recent observations
# -------------------------------
#
# A buffer of the three latest observations, newest first, shifted in place at each step: the
# shift with the cloned source, then the new observation written at ``window[0]``. After every step
# the window holds what a plain Python list kept the same way holds, and what ``torch.roll`` of the
# previous window, with its first element replaced, holds.

torch.manual_seed(0)
observations = torch.randn(5)
window = torch.zeros(3)
recent = [0.0, 0.0, 0.0]
for step, obs in enumerate(observations):
    rolled = torch.roll(window, 1)
    rolled[0] = obs
    window[1:] = window[:-1].clone()
    window[0] = obs
    recent = [obs.item(), *recent[:-1]]
    print(f"step {step}: window {window}")
    assert window.tolist() == recent and torch.equal(window, rolled), f"step {step}: the shifted window"

# %%
# Conclusion
# ----------
#
# A write whose source overlaps its destination other than element for element (an element of the source lies
# on another element of the destination), such as ``t[1:] = t[:-1]`` or ``s.add_(s.t())``, was refused in seven of
# the forms run here, with the message this page quotes; ``masked_scatter_``, whose overlap is of that kind too, and
# ``torch.sum`` with ``out=`` set to a row of its own input ran without an error and gave another result than the same write
# from a cloned source. With grad mode on, the shift of a leaf that requires grad and is not an inference tensor, and of a row of one, was
# refused too, with the error for an in-place write into a view of a leaf, even with the source cloned. The same shift on
# every second element of a longer tensor, on a column and on a transpose of a 3 x 3 tensor, and along the second
# dimension of a 2-d tensor, ran without an error and wrote wrong values. Cloning the source,
# ``t[1:] = t[:-1].clone()``, gave the intended shift every time the page ran it, except with grad mode on for such a
# leaf, for its views by slicing, indexing or ``view()`` with a shape, and for the three kinds of view of a tensor that requires grad
# named above (outputs of ``unbind()``, ``split()``, ``chunk()`` or ``split_with_sizes()``, views taken under
# ``torch.no_grad()`` or ``torch.inference_mode()`` of a tensor that requires grad, unless that tensor is a view whose
# ``_base`` does not require grad, views that a custom ``autograd.Function`` returns), and outside ``torch.inference_mode()`` for an inference tensor; under
# ``torch.no_grad()`` it did for the former (after which, with grad mode on, an operation on one of those three kinds of
# view raised, one on its base did not), inside ``torch.inference_mode()`` for the latter.
