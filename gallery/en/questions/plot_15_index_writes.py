"""
.. _questions-index-writes:

``x[idx].add_(1)`` changes nothing: writing through an index
============================================================

.. admonition:: Answer
   :class: answer

   For a dense ``x``, ``x[idx]`` with a list of Python integers, a mask or an ``int64`` index tensor of one or
   more dimensions returns a copy, so ``x[idx].add_(1)`` edits that copy. Write into ``x`` with ``x[idx] += 1``, and use
   ``index_add_`` if an index may repeat:

   .. code-block:: python

      x[idx] += 1
      counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))

For a dense ``x`` (layout ``torch.strided``, neither nested nor quantized), ``x[idx]`` with a list of Python
integers, an ``int64`` index tensor of one or more dimensions or a boolean mask is a copy, and an in-place call on it
edits only that copy: ``x`` stays as it was, and the calls checked give no sign of it. On an ``x`` of four elements,
for example, ``add_(1)`` (``logical_not_()`` on ``bool``), ``zero_()``, ``fill_(1)`` and ``index_put_`` with a
repeated index raise no error and no warning in ``float16``, ``float32``, ``float64``, ``bfloat16``, ``int64``,
``bool`` and ``complex64``, whether or not ``x`` requires grad and on an inference tensor, with grad mode on or off
and in inference mode, on ``meta`` too.
The call checks its arguments against the copy, whose shape is the selection's: ``x[idx].add_(torch.ones(4))``
raises where ``x.add_(torch.ones(4))`` runs. :fact:`index-copy-edit-leaves-x` A boolean mask on ``meta``, which holds no values,
raises already at the indexing, and so does each of these indices on a sparse ``x`` of any layout or a nested ``x``.
This page reproduces that with an index tensor and with a mask, checks which index forms give a view
of ``x`` and which a copy, what an assignment such as ``x[idx] += 1`` needs when ``x`` requires grad or is an
inference tensor, shows the in-place index
methods (``index_put_``, ``index_add_``,
``masked_fill_``, ``scatter_``), and what each does with an index that repeats, in a small counting
loop. The common operations that return a view are measured in the table :doc:`/views`.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.
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
# The symptom
# -----------
#
# ``x[idx]`` with an index tensor, and ``x[mask]`` with a boolean mask, gather the chosen elements
# into a new tensor. ``add_(1)`` and ``[0] = 100.0`` then edit that new tensor, which nothing names:
# ``x`` is unchanged, silently. A list of Python integers and a two-dimensional index tensor do the same.
import warnings

x = torch.arange(6.0)
idx = torch.tensor([0, 2])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")  # record every warning, even one shown before
    x[idx].add_(1)
    print("after x[idx].add_(1):   x =", x)
    x[x > 2][0] = 100.0
    print("after x[x > 2][0] = 100: x =", x)
    x[[0, 2]].add_(1)
    x[torch.tensor([[0], [2]])].add_(1)
    print("after the list and the 2-D index: x =", x)
print("warnings:", len(caught))
assert torch.equal(x, torch.arange(6.0)) and not caught, "each edit changed a copy, with no warning"
# sphinx_gallery_start_ignore
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # torch warns that nested tensors and compressed layouts are new
    not_dense_ = [torch.eye(2).to_sparse(layout=layout_, **({"blocksize": (1, 1)} if layout_ in (
        torch.sparse_bsr, torch.sparse_bsc) else {})) for layout_ in (
        torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc)] + [
        torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=layout_)
        for layout_ in (torch.strided, torch.jagged)]
for not_dense_x_ in not_dense_:
    for not_dense_index_ in ([0, 1], torch.tensor([0, 1]), torch.tensor([[0], [1]]), torch.tensor([True, False])):
        try:
            not_dense_x_[not_dense_index_]
        except RuntimeError as e:
            assert type(e) in (RuntimeError, NotImplementedError), (
                "torch has no advanced indexing for a sparse or nested x")
        else:
            raise AssertionError("a list, an int64 index or a mask must raise at the indexing of a sparse or nested x")
# sphinx_gallery_end_ignore

# %%
# What writes into ``x``
# ----------------------
#
# An assignment to an indexed ``x`` is a call of ``x.__setitem__``, which writes into ``x``; ``+=``
# on an indexed ``x`` reads the elements, adds, and assigns them back the same way. Each is an
# in-place edit of ``x``: its version counter (``x._version``, internal to torch) moves.
x = torch.arange(6.0)
x[idx] = 10.0
print("after x[idx] = 10:   x =", x, " x._version:", x._version)
x[idx] += 1
print("after x[idx] += 1:   x =", x, " x._version:", x._version)
x[x > 5] += 1
print("after x[x > 5] += 1: x =", x, " x._version:", x._version)
assert torch.equal(x, torch.tensor([12.0, 1.0, 12.0, 3.0, 4.0, 5.0])), "the three assignments wrote into x"
# sphinx_gallery_start_ignore
assert x._version == 3, "each assignment is one in-place edit of x"
# sphinx_gallery_end_ignore

# %%
# Which index forms give a view
# -----------------------------
#
# For a dense ``x`` (as above: layout ``torch.strided``, neither nested nor quantized), indexing with integers (a
# zero-dimensional integer tensor too, see below), slices, ``None`` and ``...`` (basic indexing) returns a view of
# ``x``, on its storage, and an edit of the view, where torch allows one (for an ``x`` that requires grad or is an
# inference tensor, see below), is an edit of ``x``. A list of Python integers, an ``int64`` or ``int32`` index tensor of one or more
# dimensions (other dtypes below) or a mask (advanced indexing),
# alone or next to basic indices, returns a copy. A list of fewer than 32 items that holds a tensor, a
# sequence (another list, a tuple, a ``range``), a slice, ``None`` or ``...`` is read as a tuple of indices, with a deprecation warning, and can give a
# view: ``x[[t.argmax()]]`` is ``x[t.argmax()]``. From 32 items on, torch makes the whole list one index tensor: a
# list of integers and one-element tensors of a signed integer dtype, ``uint8`` or ``bool`` (a ``bool`` one counts as
# the position 0 or 1), or of lists, tuples or ranges of integers all of one length, is an advanced index (a copy,
# with no warning); a list of only one-element ``uint8`` or ``bool`` tensors (Python ``True`` and ``False`` count as
# ``bool``), or of lists or tuples of them all of one length, is a mask instead (of as many dimensions as the list
# has levels), with a deprecation warning if it holds a ``uint8`` one; and a list holding a
# floating-point or complex tensor, a tensor of more or fewer than one element, one on ``meta``, a ``uint16``,
# ``uint32`` or ``uint64`` tensor (unless every item is a tensor of that dtype), a slice, ``None`` or ``...`` raises.
# We check each form below by its storage.
x = torch.arange(12.0).reshape(3, 4)
forms = {
    "x[1]": x[1],
    "x[1:]": x[1:],
    "x[:, 1]": x[:, 1],
    "x[::2]": x[::2],
    "x[None]": x[None],
    "x[..., 0]": x[..., 0],
    "x[torch.tensor(1)]": x[torch.tensor(1)],
    "x[[0, 2]]": x[[0, 2]],
    "x[torch.tensor([0, 2])]": x[torch.tensor([0, 2])],
    "x[x > 5]": x[x > 5],
    "x[1, [0, 2]]": x[1, [0, 2]],
    "x[1:, [0]]": x[1:, [0]],
}
for form, result in forms.items():
    print(f"{form:<24} same storage: {same_storage(result, x)}")
views = [form for form, result in forms.items() if same_storage(result, x)]
assert views == list(forms)[:7], "basic indexing gives views, advanced indexing copies"
row_source = torch.arange(12.0).reshape(3, 4)
row = row_source[1]
row.mul_(10)
print("row_source after row = row_source[1]; row.mul_(10):", row_source)
assert torch.equal(row_source[1], torch.tensor([40.0, 50.0, 60.0, 70.0])), "an edit of the view x[1] is an edit of x"

# %%
# The same edit, ``fill_(1)``, of each of the seven views above, on a fresh ``x`` of each of ten dtypes, an inference
# tensor and a leaf that requires grad, with grad mode on, off and inside ``torch.inference_mode()``: every edit that
# torch takes changes exactly the view's elements of ``x``, and torch refuses the edit only for the leaf with grad
# mode on and for the inference tensor outside ``torch.inference_mode()``.


def edit_of_view(kind, mode, index):
    """Fill ``x[index]`` of a fresh 3 x 4 ``x`` of this kind with ones under ``mode``: whether exactly the
    view's elements of ``x`` changed, or "refused" when torch raises."""
    with torch.inference_mode(kind == "inference tensor"):
        x = torch.zeros(3, 4, dtype=torch.float32 if isinstance(kind, str) else kind,
                        requires_grad=kind == "leaf that requires grad")
    with mode():
        view = x[index]
        try:
            view.fill_(1)
        except RuntimeError:
            return "refused"
    changed = x.detach().view(torch.uint8).reshape(3, 4, -1).any(-1)
    return changed.count_nonzero().item() == view.numel()


basic_indices = {"1": 1, "1:": slice(1, None), ":, 1": (slice(None), 1), "::2": slice(None, None, 2),
                 "None": None, "..., 0": (..., 0), "torch.tensor(1)": torch.tensor(1)}
kinds = (torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float32, torch.float64, torch.int8,
         torch.int64, torch.uint8, torch.bool, torch.complex64, "inference tensor", "leaf that requires grad")
edits = {(str(kind), mode.__name__, shown): edit_of_view(kind, mode, index)
         for mode in (torch.enable_grad, torch.no_grad, torch.inference_mode)
         for kind in kinds for shown, index in basic_indices.items()}
refused_edits = sorted({(kind, mode) for (kind, mode, _), result in edits.items() if result == "refused"})
print("edits of the seven views taken:", sum(result is True for result in edits.values()), "of", len(edits))
print("edits refused, on (x, mode):", refused_edits)
assert all(result in (True, "refused") for result in edits.values()), (
    "an edit of a view by basic indexing that torch takes is an edit of x, for each of ten dtypes, an inference "
    "tensor and a leaf that requires grad, with grad mode on or off and in inference mode")
assert refused_edits == [("inference tensor", "enable_grad"), ("inference tensor", "no_grad"),
                         ("leaf that requires grad", "enable_grad")], (
    "torch refuses the edit only of a view of a leaf that requires grad in grad mode, and of a view of an inference "
    "tensor outside inference mode")

# sphinx_gallery_start_ignore
with torch.inference_mode():
    basic_inference_x = torch.arange(12.0).reshape(3, 4).clone()
basic_scope = [torch.arange(12).reshape(3, 4).to(basic_dtype).clone() for basic_dtype in (
    torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float64, torch.int8, torch.int64, torch.uint8,
    torch.bool, torch.complex64)] + [basic_inference_x, torch.ones(3, 4, requires_grad=True)]
for basic_mode_kind, basic_mode in {"grad mode on": torch.enable_grad, "grad mode off": torch.no_grad,
                                    "inference mode": torch.inference_mode}.items():
    for basic_x in basic_scope:
        with basic_mode():
            basic_reads = [basic_x[1], basic_x[1:], basic_x[:, 1], basic_x[::2], basic_x[None], basic_x[..., 0],
                           basic_x[torch.tensor(1)]]
        assert all(same_storage(basic_read, basic_x) for basic_read in basic_reads), (
            f"with {basic_mode_kind}, basic indexing of a dense x of each of nine dtypes, an inference tensor and a "
            "leaf that requires grad gives views on its storage")
    basic_meta_x = torch.empty(3, 4, device="meta")
    with basic_mode():
        basic_meta_reads = [basic_meta_x[1], basic_meta_x[1:], basic_meta_x[:, 1], basic_meta_x[::2],
                            basic_meta_x[None], basic_meta_x[..., 0], basic_meta_x[torch.tensor(1)]]
    assert all(basic_read._base is basic_meta_x for basic_read in basic_meta_reads), (
        f"with {basic_mode_kind}, basic indexing of an x on meta gives views of x")
assert all(result._is_view() == (form in views) for form, result in forms.items()), "the results that share x's storage are the ones autograd records as views"
for short_kind, short_item in {"slice(None)": slice(None), "None": None, "...": ...}.items():
    with warnings.catch_warnings(record=True) as short_warnings:
        warnings.simplefilter("always")
        short_result = x[[1, short_item]]
    assert same_storage(short_result, x) and torch.equal(short_result, x[1, short_item]) and any(
        "non-tuple sequence" in str(w.message) for w in short_warnings), (
        f"a short list holding {short_kind} is read as a tuple of indices, with the deprecation warning: a view")
with warnings.catch_warnings(record=True) as list_warnings:
    warnings.simplefilter("always")
    argmax_in_list = x[[x[:, 0].argmax()]]
assert same_storage(argmax_in_list, x) and torch.equal(argmax_in_list, x[2]), (
    "x[[t.argmax()]] is x[t.argmax()]: a list holding a 0-d tensor indexes as a tuple, a view")
assert any("non-tuple sequence" in str(w.message) for w in list_warnings), "that list gives a deprecation warning"
for nested_kind, nested_items in {"lists": [[0, 1], [1, 2]], "tuples": [(0, 1), (1, 2)],
                                  "ranges": [range(0, 2), range(1, 3)]}.items():
    with warnings.catch_warnings(record=True) as nested_warnings:
        warnings.simplefilter("always")
        nested_list_result = x[nested_items]
    assert torch.equal(nested_list_result, x[tuple(nested_items)]) and any(
        "non-tuple sequence" in str(w.message) for w in nested_warnings), (
        f"a list holding {nested_kind} is read as a tuple of indices, with the deprecation warning")
with warnings.catch_warnings(record=True) as long_list_warnings:
    warnings.simplefilter("always")
    long_list_result = x[[x[:, 0].argmax()] + [0] * 31]
assert long_list_result.shape == (32, 4) and bytes_apart(long_list_result, x) and not long_list_warnings, (
    "a list of 32 items holding a tensor is an advanced index: a copy, with no warning")
for long_length in (32, 40):
    for long_kind, long_list in {
        "integers and integer tensors of one element": [x[:, 0].argmax(), torch.tensor(1), torch.tensor([[2]]),
                                                        torch.tensor([1], dtype=torch.int32)] + [0] * (long_length - 4),
        "lists of integers": [[0, 2], [1, 0]] * (long_length // 2),
        "tuples of integers": [(0, 2), (1, 0)] * (long_length // 2),
        "ranges of integers": [range(0, 2), range(1, 3)] * (long_length // 2),
    }.items():
        with warnings.catch_warnings(record=True) as long_warnings:
            warnings.simplefilter("always")
            long_result = x[long_list]
        long_index = torch.tensor([int(item) if isinstance(item, torch.Tensor) else list(item) if isinstance(
            item, (tuple, range)) else item for item in long_list])
        assert len(long_list) == long_length and torch.equal(long_result, x[long_index]) and not (
            same_storage(long_result, x) or long_warnings), (
            f"a list of {long_length} {long_kind} is one index tensor: a copy, with no warning")
    for long_kind, long_item in {"slice(None)": slice(None), "None": None, "...": ...}.items():
        try:
            x[[long_item] + [0] * (long_length - 1)]
        except RuntimeError as e:
            assert "Could not infer dtype" in str(e), "torch could not make the list an index tensor"
        else:
            raise AssertionError(f"a list of {long_length} items holding {long_kind} must raise")
    for long_kind, long_item in {"a float tensor": torch.tensor(1.0), "a tensor of two elements": torch.tensor([0, 1]),
                                 "an empty tensor": torch.tensor([], dtype=torch.int64),
                                 "a float16 tensor": torch.tensor(1.0, dtype=torch.float16),
                                 "a complex tensor": torch.tensor(1 + 0j),
                                 "a bool tensor of two elements": torch.tensor([True, False])}.items():
        try:
            x[[long_item] + [0] * (long_length - 1)]
        except TypeError as e:
            assert "single element" in str(e), "only integer tensors of one element can be items of the index tensor"
        else:
            raise AssertionError(f"a list of {long_length} items holding {long_kind} must raise")
    for long_kind, long_item in {"an int64 tensor": torch.tensor(1, device="meta"),
                                 "a bool tensor": torch.tensor([True], device="meta")}.items():
        try:
            x[[long_item] + [0] * (long_length - 1)]
        except RuntimeError as e:
            assert "meta" in str(e), "torch cannot read the value of a tensor on meta"
        else:
            raise AssertionError(f"a list of {long_length} items holding {long_kind} of one element on meta must raise")
    for position_kind, position_dtype in {"int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
                                          "int64": torch.int64, "uint8": torch.uint8, "bool": torch.bool}.items():
        for position_value in (0, 1):
            for position_shape in ((), (1,), (1, 1)):
                position_item = torch.tensor(position_value, dtype=position_dtype).reshape(position_shape)
                with warnings.catch_warnings(record=True) as position_warnings:
                    warnings.simplefilter("always")
                    position_result = x[[position_item] + [2] * (long_length - 1)]
                assert position_result.shape == (long_length, 4) and torch.equal(
                    position_result[0], x[position_value]) and not (
                    same_storage(position_result, x) or position_warnings), (
                    f"a list of {long_length} items holding a one-element {position_kind} tensor reads it as a "
                    "position (a bool one as 0 or 1, not as a mask): a copy, with no warning")
    mask_x = torch.arange(float(long_length))
    for mask_kind, mask_dtypes in {"bool": (torch.bool,), "uint8": (torch.uint8,),
                                   "bool and uint8": (torch.bool, torch.uint8)}.items():
        for mask_shape in ((), (1,), (1, 1)):
            mask_items = [torch.tensor(mask_at % 3, dtype=mask_dtypes[mask_at % len(mask_dtypes)]).reshape(
                mask_shape) for mask_at in range(long_length)]
            for mask_list in (mask_items, [True, False] + mask_items[2:]):
                with warnings.catch_warnings(record=True) as mask_warnings:
                    warnings.simplefilter("always")
                    mask_result = mask_x[mask_list]
                assert torch.equal(mask_result, mask_x[torch.tensor([bool(item) for item in mask_list])]) and len(
                    mask_warnings) == (torch.uint8 in mask_dtypes) and all(
                    "deprecated" in str(w.message) for w in mask_warnings), (
                    f"a list of {long_length} one-element {mask_kind} tensors only (True and False count as bool) "
                    "is a mask, with a deprecation warning if it holds a uint8 one")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the uint8 mask's deprecation warning, checked above
                try:
                    x[mask_items]
                except IndexError as e:
                    assert "shape of the mask" in str(e), "a mask must match the first dimension of x"
                else:
                    raise AssertionError(f"a list of {long_length} one-element {mask_kind} tensors only is a mask: "
                                         "on x, of 3 rows, it must raise")
            for mixed_kind, mixed_item in {"an integer": 2, "int8": torch.tensor(2, dtype=torch.int8),
                                           "int16": torch.tensor(2, dtype=torch.int16),
                                           "int32": torch.tensor(2, dtype=torch.int32),
                                           "int64": torch.tensor(2)}.items():
                with warnings.catch_warnings(record=True) as mixed_warnings:
                    warnings.simplefilter("always")
                    mixed_result = mask_x[mask_items[:-1] + [mixed_item]]
                mixed_index = torch.tensor([int(item) for item in mask_items[:-1]] + [2])
                assert torch.equal(mixed_result, mask_x[mixed_index]) and not mixed_warnings, (
                    f"next to {mixed_kind}, one-element {mask_kind} tensors count as positions: a copy, with no warning")
    for unsigned_dtype in (torch.uint16, torch.uint32, torch.uint64):
        for unsigned_shape in ((), (1,), (1, 1)):
            unsigned_item = torch.tensor(1, dtype=unsigned_dtype).reshape(unsigned_shape)
            assert torch.equal(x[[unsigned_item] + [torch.tensor(2, dtype=unsigned_dtype)] * (long_length - 1)],
                               x[[1] + [2] * (long_length - 1)]), (
                "a long list of uint16, uint32 or uint64 tensors of one dtype only picks positions")
            for other_item in (0, True, *(torch.tensor(0, dtype=other_dtype) for other_dtype in (
                    torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool, torch.uint16,
                    torch.uint32, torch.uint64) if other_dtype != unsigned_dtype)):
                for unsigned_list in ([unsigned_item] + [other_item] * (long_length - 1),
                                      [unsigned_item] * (long_length - 1) + [other_item]):
                    try:
                        x[unsigned_list]
                    except RuntimeError as e:
                        assert "Promotion for uint16, uint32, uint64" in str(e), "torch cannot promote these dtypes"
                    else:
                        raise AssertionError(
                            "a long list holding a uint16, uint32 or uint64 tensor next to an item that is not a "
                            "tensor of its dtype must raise")
mask_rows = torch.arange(64.0).reshape(32, 2)
with warnings.catch_warnings(record=True) as nested_mask_warnings:
    warnings.simplefilter("always")
    nested_bool_results = [mask_rows[[[True, False]] * 32], mask_rows[[(True, False)] * 32],
                           mask_rows[[[torch.tensor(True), torch.tensor([False])]] * 32]]
assert all(torch.equal(result, mask_rows[:, 0]) and bytes_apart(result, mask_rows)
           for result in nested_bool_results) and not nested_mask_warnings, (
    "a list of 32 lists or tuples of bools of one length is a 2-D mask: a copy, with no warning")
assert mask_rows[[[1, 0]] * 32].shape == (32, 2, 2), "a list of 32 lists of integers is an advanced index"
with warnings.catch_warnings(record=True) as nested_uint8_warnings:
    warnings.simplefilter("always")
    nested_uint8_result = mask_rows[[[torch.tensor(1, dtype=torch.uint8), torch.tensor(0, dtype=torch.uint8)]] * 32]
assert torch.equal(nested_uint8_result, mask_rows[:, 0]) and any(
    "uint8" in str(w.message) for w in nested_uint8_warnings), (
    "a list of 32 lists of one-element uint8 tensors is a 2-D mask, with the deprecation warning")
mask_cubes = torch.arange(128.0).reshape(32, 2, 2)
assert torch.equal(mask_cubes[[[[True, False], [False, True]]] * 32],
                   mask_cubes[torch.tensor([[True, False], [False, True]]).expand(32, 2, 2)]), (
    "a list of 32 lists of lists of bools is a 3-D mask")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: x and the results of x[1] and x[:, 1] are tensor objects on x's storage S1; x[[0, 2]] and x[x > 5] each have a storage of their own, S2 and S3.
#
#    The views ``x[1]`` and ``x[:, 1]`` are on ``x``'s own storage ``S1``; the copies ``x[[0, 2]]`` and
#    ``x[x > 5]`` have storages of their own, ``S2`` and ``S3``.

drawn = ["x[1]", "x[:, 1]", "x[[0, 2]]", "x[x > 5]"]
draw_memory("x = torch.arange(12.0).reshape(3, 4)", x=x, **{form: forms[form] for form in drawn})
# sphinx_gallery_start_ignore
assert [form for form in drawn if same_storage(forms[form], x)] == drawn[:2], "two views, two copies"
assert bytes_apart(forms["x[[0, 2]]"], forms["x[x > 5]"]), "each copy has its own storage"
# sphinx_gallery_end_ignore

# %%
# A zero-dimensional index tensor, such as ``argmax()`` returns (``int64``), counts as an integer and
# gives a view, whatever its integer dtype but ``uint8``. A zero-dimensional ``uint8`` or ``bool``
# tensor counts as a mask, like a Python ``True`` or ``False``: a copy with a new first dimension, of
# size 1 if the tensor is non-zero and 0 if it is zero. With one or more dimensions, only an ``int64``
# or ``int32`` index tensor picks by position: a ``uint8`` one is read as a mask, with a deprecation warning
# (``uint8`` class labels select where they are non-zero), and the other integer dtypes raise ``IndexError``.
# In a read ``x[idx]``, an index tensor on ``meta``, which holds no values, raises when it is zero-dimensional, whatever its
# dtype (torch reads its value with ``item()``), or a boolean mask (torch finds the positions it selects
# with ``nonzero()``); a ``uint8`` mask of one or more dimensions raises whenever it or ``x`` is on ``meta``,
# with "tensors used as indices must be long, int, byte or bool tensors".
print("x[x[:, 0].argmax()]: same storage:", same_storage(x[x[:, 0].argmax()], x))
dtypes = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64,
          torch.uint8, torch.bool]  # fmt: skip
results = {dtype: x[torch.tensor(1, dtype=dtype)] for dtype in dtypes}
results["Python True"] = x[True]
for key, result in results.items():
    print(f"{key!s:<13} same storage: {same_storage(result, x)!s:<5}  shape: {tuple(result.shape)}")
copies = [key for key, result in results.items() if not same_storage(result, x)]
assert copies == [torch.uint8, torch.bool, "Python True"], "uint8, bool and True index as masks; the rest as integers"
# sphinx_gallery_start_ignore
assert same_storage(x[x[:, 0].argmax()], x), "the index argmax() returns gives a view"
assert all(results[key].shape == x[None].shape for key in copies), "each mask adds a first dimension of size 1"
assert x[torch.tensor(2, dtype=torch.uint8)].shape == (1, 3, 4), "a non-zero uint8 mask: a first dimension of size 1"
assert x[torch.tensor(False)].shape == x[torch.tensor(0, dtype=torch.uint8)].shape == x[False].shape == (0, 3, 4), \
    "a zero mask, like False: a first dimension of size 0"
assert all(torch.equal(results[key], x[1]) for key in results if key not in copies), "the rest index row 1"
assert all(torch.equal(x[torch.tensor([0, 2], dtype=index_dtype)], x[[0, 2]])
           for index_dtype in (torch.int64, torch.int32)), "int64 and int32 pick by position"
assert bytes_apart(x[torch.tensor([0, 2], dtype=torch.int32)], x), "a 1-D int32 index gives a copy too"
with warnings.catch_warnings(record=True) as uint8_warnings:
    warnings.simplefilter("always")  # record the deprecation warning of each uint8 index
    assert torch.equal(x[torch.tensor([0, 2, 2], dtype=torch.uint8)], x[[1, 2]]), "a 1-D uint8 index is a mask"
    assert torch.equal(x[(x > 5).to(torch.uint8)], x[x > 5]), "a 2-D uint8 index is a mask"
assert len(uint8_warnings) == 2 and all("indexing with dtype torch.uint8 is now deprecated" in str(w.message)
                                        for w in uint8_warnings), "each uint8 index gives a deprecation warning"
for index_dtype in (torch.int8, torch.int16, torch.uint16, torch.uint32, torch.uint64):
    try:
        x[torch.tensor([0, 2], dtype=index_dtype)]
    except IndexError as e:
        assert "tensors used as indices must be long, int, byte or bool tensors" in str(e), \
            f"a 1-D {index_dtype} index is refused: only long, int, byte or bool tensors index"
    else:
        raise AssertionError(f"a 1-D {index_dtype} index must raise IndexError")
for indexed in (x, x.to("meta")):
    for meta_index in [torch.tensor(1, dtype=dtype, device="meta") for dtype in dtypes] + [
            x.to("meta")[:, 0].argmax()]:
        try:
            indexed[meta_index]
        except RuntimeError as meta_error:
            assert "item() cannot be called on meta tensors" in str(meta_error), (
                "torch reads a zero-dimensional index tensor's value with item()")
        else:
            raise AssertionError("a zero-dimensional index tensor on meta must raise")
    for meta_mask in ((x > 5).to("meta"), (x[:, 0] > 3).to("meta")):
        try:
            indexed[meta_mask]
        except NotImplementedError as meta_error:
            assert "torch.nonzero()" in str(meta_error), "torch finds a mask's positions with nonzero()"
        else:
            raise AssertionError("a boolean mask on meta must raise")
for uint8_mask in (torch.tensor([1, 0, 1], dtype=torch.uint8), (x > 5).to(torch.uint8)):
    for x_device, mask_device in (("meta", "cpu"), ("cpu", "meta"), ("meta", "meta")):
        try:
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")  # any deprecation warning of the uint8 index is recorded, not raised
                x.to(x_device)[uint8_mask.to(mask_device)]
        except RuntimeError as meta_error:
            assert "tensors used as indices must be long, int, byte or bool tensors" in str(meta_error), (
                f"a uint8 mask with x on {x_device} and the mask on {mask_device} is refused by its dtype")
        else:
            raise AssertionError(f"a uint8 mask with x on {x_device} and the mask on {mask_device} must raise")
# sphinx_gallery_end_ignore

# %%
# To write through a ``uint8`` mask of one or more dimensions, convert it with ``mask.bool()`` first:
# ``masked_fill_`` refuses it with the error ``masked_fill_ only supports boolean masks``, and so do
# ``x[mask] = v`` with a number or a one-element tensor ``v``, ``index_put_((mask,), v)`` with such a tensor
# and ``x[mask] += 1`` where the mask selects one element. Each refused write leaves ``x`` as it was. Below,
# each write runs on a one-dimensional ``x`` and mask and on two-dimensional ones.
def assign(x, mask, v):
    x[mask] = v


def add_one(x, mask):
    x[mask] += 1


def write_through(write, mask):
    x = torch.arange(4.0).reshape(mask.shape)
    try:
        write(x, mask)
    except RuntimeError as e:
        return f"{type(e).__name__}: {str(e).split(',')[0]}", x.flatten().tolist()
    return "written", x.flatten().tolist()


mask_of_two = torch.tensor([1, 0, 1, 0], dtype=torch.uint8)
mask_of_one = torch.tensor([1, 0, 0, 0], dtype=torch.uint8)
writes = {
    "x[mask] = -1.0": (mask_of_two, lambda x, mask: assign(x, mask, -1.0)),
    "x[mask] = torch.tensor(-1.0)": (mask_of_two, lambda x, mask: assign(x, mask, torch.tensor(-1.0))),
    "x[mask] = torch.tensor([-1.0])": (mask_of_two, lambda x, mask: assign(x, mask, torch.tensor([-1.0]))),
    "x.index_put_((mask,), torch.tensor(5.0))": (mask_of_two, lambda x, mask: x.index_put_((mask,), torch.tensor(5.0))),
    "x.index_put_((mask,), torch.tensor([5.0]))": (mask_of_two, lambda x, mask: x.index_put_((mask,), torch.tensor([5.0]))),
    "x.masked_fill_(mask, 7.0)": (mask_of_two, lambda x, mask: x.masked_fill_(mask, 7.0)),
    "x.masked_fill_(mask, torch.tensor(7.0))": (mask_of_two, lambda x, mask: x.masked_fill_(mask, torch.tensor(7.0))),
    "x[mask] += 1, one element selected": (mask_of_one, add_one),
}
outcomes = {}
with warnings.catch_warnings(record=True) as write_warnings:
    warnings.simplefilter("always")  # the read in x[mask] += 1 gives the uint8 deprecation warning
    for how, (mask, write) in writes.items():
        for shape in ((4,), (2, 2)):
            outcomes[how, shape] = (write_through(write, mask.reshape(shape)),
                                    write_through(write, mask.reshape(shape).bool()))
for how in writes:
    print(f"{how:<42} uint8 mask: {outcomes[how, (4,)][0][0]}  mask.bool(): {outcomes[how, (4,)][1][0]}")
assert all(as_uint8 == ("RuntimeError: masked_fill_ only supports boolean masks", [0.0, 1.0, 2.0, 3.0])
           and as_bool[0] == "written" and [v != i for i, v in enumerate(as_bool[1])] == writes[how][0].bool().tolist()
           for (how, _), (as_uint8, as_bool) in outcomes.items()), (
    "a uint8 mask is refused by each write, which leaves x as it was; converted with bool(), it takes the write")
print("deprecation warnings:", [str(w.message).split(",")[0] for w in write_warnings])

# %%
# A write through an index on ``meta`` need not raise. On a dense CPU ``x``, an ``int64`` or ``int32`` index tensor of
# one or more dimensions on ``meta`` raises nothing: ``x[idx]`` returns a CPU tensor of uninitialized values, in
# memory freshly allocated for it into which nothing of ``x`` is read. :fact:`meta-index-read-uninitialized`
# Into the ``x`` below (one-dimensional, ``float32``, not requiring grad), ``x[idx] = v``, ``x[idx] += 1`` and
# ``index_put_`` through such an index write nothing, nor does ``scatter_`` (its index has ``x``'s one
# dimension), though ``x._version`` moves; so do ``x[mask] = v`` and ``masked_fill_`` with a number, for a boolean
# or ``uint8`` mask on ``meta``, though both refuse a ``uint8`` mask on the CPU (above). ``index_add_`` refuses the
# two devices. Keep the index on ``x``'s device.
x = torch.arange(4.0)
for dtype in (torch.int64, torch.int32):
    index = torch.tensor([0, 2], dtype=dtype, device="meta")
    read = x[index]
    print("index dtype:", dtype, " x[index] device:", read.device, " shape:", tuple(read.shape))
    for through in (index, index.reshape(1, 2)):
        x[through] = -1.0
        x[through] += 1
        x.index_put_((through,), torch.tensor(5.0))
    x.scatter_(0, index, 9.0)
for mask in (torch.tensor([True, False, True, False]), torch.tensor([1, 0, 1, 0], dtype=torch.uint8)):
    x[mask.to("meta")] = -1.0
    x.masked_fill_(mask.to("meta"), 7.0)
print("after the writes: x =", x, " x._version:", x._version)
assert torch.equal(x, torch.arange(4.0)) and x._version == 18, (
    "through an index or mask on meta, each write left the CPU x as it was and moved its _version")
try:
    x.index_add_(0, index, torch.ones(2))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("index_add_ with an index on meta into a CPU x must raise")
# sphinx_gallery_start_ignore
assert all(x[torch.tensor([0, 2], dtype=index_dtype, device="meta")].device.type == "cpu"
           and x[torch.tensor([0, 2], dtype=index_dtype, device="meta")].shape == (2,)
           for index_dtype in (torch.int64, torch.int32)), (
    "x[idx] with an int64 or int32 index on meta returns a CPU tensor of the index's shape")
# sphinx_gallery_end_ignore

# %%
# Chained indexing: ``x[mask][idx] = v``
# --------------------------------------
#
# An assignment writes into the tensor its last index is applied to. In ``x[mask][idx] = v`` that
# tensor is ``x[mask]``, a copy, and ``x`` does not change; in ``x[1:][idx] = v`` it is ``x[1:]``, a
# view, and the write reaches ``x``. Below, each chain of indices is tried with the same ``[idx] = -1``:
# ``x`` changes exactly when the chain before the last index gives a view, that is, when every index
# before the last gives one.

idx = torch.tensor([0, 2])
firsts = {
    "x[1:]": lambda t: t[1:],
    "x[::2]": lambda t: t[::2],
    "x[1:][::2]": lambda t: t[1:][::2],
    "x[x > 0]": lambda t: t[t > 0],
    "x[[1, 2, 3, 4]]": lambda t: t[[1, 2, 3, 4]],
    "x[torch.tensor([1, 2, 3, 4])]": lambda t: t[torch.tensor([1, 2, 3, 4])],
    "x[1:][x[1:] > 0]": lambda t: t[1:][t[1:] > 0],
}
for name, first in firsts.items():
    x = torch.arange(6.0)
    view = same_storage(first(x), x)
    first(x)[idx] = -1.0
    reached = bool((x < 0).any())
    print(f"{name}[idx] = -1: {name} is a view {view}, x changed {reached}")
    assert reached == view, f"{name}[idx] = -1 writes into x exactly when {name} is a view"


# %%
# The fix turns the chain into one index of ``x`` and assigns once: the coordinates of the elements
# the mask selects, ``mask.nonzero()``, indexed by ``idx`` and split into one index tensor per
# dimension by ``unbind(1)``. Checked on a one- and a two-dimensional ``x``.

for x in (torch.arange(6.0), torch.arange(12.0).reshape(3, 4)):
    mask = x > 0
    x[mask.nonzero()[idx].unbind(1)] = -1.0
    written = (x < 0).flatten().nonzero().squeeze(1)
    intended = mask.flatten().nonzero().squeeze(1)[idx]
    print(f"x of shape {tuple(x.shape)}: elements written {written.tolist()}, the mask's elements {idx.tolist()} are {intended.tolist()}")
    assert torch.equal(written, intended), "one index of x reaches exactly the chosen elements of the mask"

# %%
# When ``x`` requires grad
# ------------------------
#
# ``x[idx] += 1`` is an in-place edit of ``x``, and autograd refuses one on a leaf that requires grad
# (a ``Parameter`` too), on a view of such a leaf that autograd records (not on its ``view(dtype)``, which
# takes the write unrecorded) and on one taken of it under ``torch.no_grad()`` or ``torch.inference_mode()`` by
# indexing or any other operation PyTorch documents as a view (listed in :doc:`/views`) but ``detach()``,
# ``view(dtype)`` and a sparse tensor's ``indices()``: write under ``torch.no_grad()``. That last refusal does not
# apply when the leaf is itself a view of a tensor that does not require grad: a view taken by indexing under
# either mode of ``torch.zeros(2, 4)[0].requires_grad_()`` does not require grad and takes the write, which
# reaches the leaf, while the leaf itself and a view of it taken in grad mode still refuse it. An inference
# tensor made in the mode that does not require grad (one ``torch.inference_mode()`` computes, or a ``view(dtype)``
# taken there, even of a normal tensor, one whose ``is_inference()`` is ``False``; a view of a normal tensor taken there by indexing or ``view(shape)``, its ``detach()`` and its
# ``.data`` are normal tensors, and such a view or ``detach()`` of a plain tensor takes the write) refuses
# it outside inference mode, under ``torch.no_grad()`` too,
# and refuses it after writing: its values have changed when the error comes, so a caller that
# catches the error and tries again adds twice. Its ``detach()`` and its ``.data`` taken outside inference mode,
# though inference tensors too, take the same write with no error, and the write reaches the tensor (a write torch
# makes through a view of them, such as ``d[0] += 1`` or ``d[1:3] += 1``, raises after writing, as
# :ref:`questions-inference-mode` shows); a ``detach()`` or
# ``.data`` taken inside the mode (the rows ``inference_mode detach()`` and ``inference_mode .data``) is an inference
# tensor made there and refuses the write like it, after writing. A non-leaf that requires grad and a plain tensor take it either
# way, but four kinds of view of a non-leaf, and a view taken of one of them by indexing, ``view(shape)`` or another
# view operation autograd records (the last two rows of each mode; their ``view(dtype)`` and ``detach()`` take the
# write), refuse it with grad mode on outside ``torch.inference_mode()`` (and take it under
# ``torch.no_grad()``): an output of ``unbind``, ``split`` or ``chunk``, which hang all the views of one
# call on one autograd node (each row that ``for row in x`` gives is an ``unbind`` output, and the error for a
# ``split`` by a list of sizes names ``SplitWithSizes``; an output of ``tensor_split``, each on a node of its own,
# takes the write),
# a view made under ``torch.no_grad()`` and one made under ``torch.inference_mode()``, each by indexing,
# ``view(shape)``, ``t()``, ``narrow()``, ``expand()`` or another of those view operations (a ``view(dtype)`` made
# under ``torch.inference_mode()`` is an inference tensor, refused in both modes), and the
# output of a custom ``torch.autograd.Function`` that returns a view of its input or the input as-is.
# :fact:`inference-tensor-alias-edit-routes` :fact:`grad-off-view-refuses-index-write-in-grad-mode`


class AsIs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad


class ViewOf(AsIs):
    @staticmethod
    def forward(ctx, t):
        return t.view_as(t)


def sources():
    with torch.inference_mode():
        inference = torch.zeros(4)
        inference_detach, inference_data = torch.zeros(4).detach(), torch.zeros(4).data
    non_leaf = torch.zeros(4, requires_grad=True) * 1
    third_non_leaf = torch.zeros(4, requires_grad=True) * 1
    with torch.no_grad():
        no_grad_view = non_leaf[:]
        other_no_grad_view = third_non_leaf[:]
    other_non_leaf = torch.zeros(4, requires_grad=True) * 1
    with torch.inference_mode():
        inference_mode_view = other_non_leaf[:]
    leaf, other_leaf = torch.zeros(4, requires_grad=True), torch.zeros(4, requires_grad=True)
    with torch.no_grad():
        no_grad_view_of_leaf = leaf[:]
    with torch.inference_mode():
        inference_mode_view_of_leaf = other_leaf[:]
    return {
        "leaf": torch.zeros(4, requires_grad=True),
        "Parameter": torch.nn.Parameter(torch.zeros(4)),
        "view of a leaf": torch.zeros(2, 4, requires_grad=True)[0],
        "view(dtype) of leaf": torch.zeros(4, requires_grad=True).view(torch.float32),
        "no_grad view of leaf": no_grad_view_of_leaf,
        "inference_mode view of leaf": inference_mode_view_of_leaf,
        "inference tensor": inference,
        "inference_mode detach()": inference_detach,
        "inference_mode .data": inference_data,
        "non-leaf": torch.zeros(4, requires_grad=True) * 1,
        "plain": torch.zeros(4),
        "tensor_split output": (torch.zeros(8, requires_grad=True) * 1).tensor_split(2)[0],
        "unbind output": (torch.zeros(2, 4, requires_grad=True) * 1).unbind(0)[0],
        "split output": (torch.zeros(8, requires_grad=True) * 1).split(4)[0],
        "chunk output": (torch.zeros(8, requires_grad=True) * 1).chunk(2)[0],
        "no_grad view": no_grad_view,
        "inference_mode view": inference_mode_view,
        "Function as-is": AsIs.apply(torch.zeros(4, requires_grad=True) * 1),
        "Function view": ViewOf.apply(torch.zeros(4, requires_grad=True) * 1),
        "unbind output[:]": (torch.zeros(2, 4, requires_grad=True) * 1).unbind(0)[0][:],
        "no_grad view[:]": other_no_grad_view[:],
    }


def add_one_at(x, grad_mode, where=idx):
    try:
        with torch.set_grad_enabled(grad_mode):
            x[where] += 1
    except RuntimeError as e:
        return f"{type(e).__name__}: {str(e).split('.')[0]}"
    return x.detach()


refused = {}
for grad_mode in (True, False):
    for name, x in sources().items():
        outcome = add_one_at(x, grad_mode)
        print(f"{'grad mode' if grad_mode else 'no_grad  '}  {name:<27} {outcome}")
        if isinstance(outcome, str):
            refused.setdefault(grad_mode, []).append(name)
        else:
            assert torch.equal(outcome, torch.tensor([1.0, 0.0, 1.0, 0.0])), "it wrote into x"
assert refused == {
    True: ["leaf", "Parameter", "view of a leaf", "no_grad view of leaf", "inference_mode view of leaf",
           "inference tensor", "inference_mode detach()", "inference_mode .data", "unbind output", "split output",
           "chunk output", "no_grad view", "inference_mode view", "Function as-is", "Function view",
           "unbind output[:]", "no_grad view[:]"],
    False: ["inference tensor", "inference_mode detach()", "inference_mode .data"],
}, ("in grad mode the seventeen sources listed refuse the write; under no_grad only the inference tensor and the "
    "detach() and .data taken in inference mode")
leaf_on_a_view = torch.zeros(2, 4)[0].requires_grad_()
leaf_refusals = {"itself": add_one_at(leaf_on_a_view, True), "its grad-mode view [:]": add_one_at(leaf_on_a_view[:], True)}
for taken, refusal in leaf_refusals.items():
    print(f"leaf on a view, write in grad mode to {taken}:", refusal)
assert all(str(refusal).startswith("RuntimeError: a view of a leaf Variable") for refusal in leaf_refusals.values()) and (
    leaf_on_a_view.tolist() == [0.0] * 4), "a leaf made on a view, and its view taken in grad mode, still refuse the write"
for mode in (torch.no_grad, torch.inference_mode):
    leaf_on_a_view = torch.zeros(2, 4)[0].requires_grad_()
    with mode():
        view_of_it = leaf_on_a_view[:]
    print(f"leaf on a view, is_leaf {leaf_on_a_view.is_leaf}: its {mode.__name__} view requires_grad",
          view_of_it.requires_grad, " write in grad mode:", add_one_at(view_of_it, True), " leaf:", leaf_on_a_view.detach())
    assert leaf_on_a_view.is_leaf and not view_of_it.requires_grad and leaf_on_a_view.tolist() == [1.0, 0.0, 1.0, 0.0], (
        "a view taken with grad mode off of a leaf made on a view does not require grad and takes the write, "
        "which reaches the leaf")
# sphinx_gallery_start_ignore
views_of_one = {"[1:]": lambda t: t[1:], "view(4)": lambda t: t.view(4), "view(torch.int32)": lambda t: t.view(torch.int32),
                "detach()": lambda t: t.detach()}
for kind_of_view in ("unbind output", "no_grad view", "inference_mode view", "Function view"):
    for view_of_one, make_view_of_one in views_of_one.items():
        assert isinstance(add_one_at(make_view_of_one(sources()[kind_of_view]), True), torch.Tensor) == (
            view_of_one in ("view(torch.int32)", "detach()")), (
            "with grad mode on, a view of one of the four kinds taken by indexing or view(shape) refuses the write; "
            "its view(dtype) and detach() take it")
iterated_rows = list(torch.zeros(3, 4, requires_grad=True) * 1)
split_by_sizes = (torch.zeros(8, requires_grad=True) * 1).split([3, 5])
refused_as = [str(add_one_at(out, True)).split(" is a view")[0].rpartition(" of ")[2]
              for out in iterated_rows + list(split_by_sizes)]
assert refused_as == ["Unbind"] * 3 + ["SplitWithSizes"] * 2, (
    "each row of for row in x is an unbind output, and split by a list of sizes is refused as SplitWithSizes")
assert all(isinstance(add_one_at(out, False), torch.Tensor) for out in iterated_rows + list(split_by_sizes)), (
    "under no_grad they take the write")
# sphinx_gallery_end_ignore
with torch.inference_mode():
    inference = torch.zeros(4)
    inference[idx] += 1
print("inference tensor, under torch.inference_mode():", inference)
assert torch.equal(inference, torch.tensor([1.0, 0.0, 1.0, 0.0])), "inference mode takes it"

retried = sources()["inference tensor"]
for attempt in (1, 2):
    print(f"attempt {attempt} outside inference mode:", add_one_at(retried, False).split(".")[0], " values:", retried)
assert torch.equal(retried, torch.tensor([2.0, 0.0, 2.0, 0.0])), "each refused write added one: a retry adds twice"
# sphinx_gallery_start_ignore
for mode_of_write in (True, False):
    unrequired = sources()["inference tensor"]
    assert not unrequired.requires_grad and isinstance(add_one_at(unrequired, mode_of_write), str), (
        "an inference tensor that does not require grad refuses the write")
    assert torch.equal(unrequired, torch.tensor([1.0, 0.0, 1.0, 0.0])), "its refused write was written"
    made_inference = sources()["inference tensor"]
    assert torch.is_inference(made_inference.detach()) and torch.is_inference(made_inference.data), "both are inference tensors"
    assert isinstance(add_one_at(made_inference.detach(), mode_of_write), torch.Tensor), "detach() takes the write"
    assert isinstance(add_one_at(made_inference.data, mode_of_write), torch.Tensor), ".data takes the write"
    assert torch.equal(made_inference, torch.tensor([2.0, 0.0, 2.0, 0.0])), "both writes reached the tensor"
    for view_index, after_write in ((0, [1.0, 0.0, 0.0, 0.0]), (slice(1, 3), [0.0, 1.0, 1.0, 0.0])):
        through_detach, through_data = sources()["inference tensor"], sources()["inference tensor"]
        refusals = (add_one_at(through_detach.detach(), mode_of_write, view_index),
                    add_one_at(through_data.data, mode_of_write, view_index))
        assert all(str(r).startswith("RuntimeError: Inplace update to inference tensor") for r in refusals), (
            "a write through a view of detach() or .data of an inference tensor raises")
        assert through_detach.tolist() == after_write and through_data.tolist() == after_write, (
            "it raises after writing")
    for route_in_mode in ("inference_mode detach()", "inference_mode .data"):
        made_in_mode = sources()[route_in_mode]
        assert torch.is_inference(made_in_mode) and isinstance(add_one_at(made_in_mode, mode_of_write), str), (
            f"{route_in_mode}: an inference tensor that refuses the write")
        assert torch.equal(made_in_mode, torch.tensor([1.0, 0.0, 1.0, 0.0])), f"{route_in_mode}: refused after writing"
    normal_base = torch.zeros(4)
    with torch.inference_mode():
        taken_in_mode = (normal_base[:], normal_base.view(4), normal_base.detach())
        data_in_mode_is_inference = torch.is_inference(normal_base.data)
    assert not data_in_mode_is_inference and not any(torch.is_inference(t) for t in taken_in_mode), (
        "a view by indexing or view(shape), detach() and .data of a normal tensor taken in inference mode are normal")
    normal_of_inference = sources()["inference tensor"].detach().view(torch.float32)
    with torch.inference_mode():
        taken_of_that_normal = (normal_of_inference[:], normal_of_inference.view(4), normal_of_inference.detach())
        that_data_is_inference = torch.is_inference(normal_of_inference.data)
    assert not normal_of_inference.is_inference() and not that_data_is_inference and not any(
        torch.is_inference(t) for t in taken_of_that_normal), (
        "the same for the normal tensor view(torch.float32) of an inference tensor's detach()")
    assert all(isinstance(add_one_at(t, mode_of_write), torch.Tensor) for t in taken_in_mode), (
        "plain[:], view(4) and detach() made in the mode take the write")
    assert torch.equal(normal_base, torch.tensor([3.0, 0.0, 3.0, 0.0])), "the three writes reached the normal tensor"
    dtype_base = torch.zeros(4)
    with torch.inference_mode():
        dtype_view = dtype_base.view(torch.int32)
    assert torch.is_inference(dtype_view) and isinstance(add_one_at(dtype_view, mode_of_write), str), (
        "view(dtype) of a normal tensor made in the mode is an inference tensor and refuses the write")
    assert torch.equal(dtype_view, torch.tensor([1, 0, 1, 0], dtype=torch.int32)), "its refused write was written"
    assert torch.is_inference(dtype_view.detach()) and torch.is_inference(dtype_view.data), (
        "its detach() and .data are inference tensors")
    assert isinstance(add_one_at(dtype_view.detach(), mode_of_write), torch.Tensor), "its detach() takes the write"
    assert isinstance(add_one_at(dtype_view.data, mode_of_write), torch.Tensor), "its .data takes the write"
    with torch.inference_mode():
        assert isinstance(add_one_at(dtype_view, mode_of_write), torch.Tensor), "inference mode takes it on view(dtype)"
    assert torch.equal(dtype_base.view(torch.int32), torch.tensor([4, 0, 4, 0], dtype=torch.int32)), (
        "the four writes reached the memory of the normal tensor")
    leaf_base = torch.nn.Parameter(torch.zeros(4))
    leaf_as_int = leaf_base.view(torch.int32)
    assert not leaf_as_int.requires_grad and leaf_as_int.grad_fn is None, "view(dtype) of a leaf is not recorded"
    assert isinstance(add_one_at(leaf_as_int, mode_of_write), torch.Tensor) and leaf_base.is_leaf, (
        "view(torch.int32) of a Parameter takes the write; the Parameter stays a leaf")
    assert torch.equal(leaf_as_int, torch.tensor([1, 0, 1, 0], dtype=torch.int32)), "the write reached its memory"
    non_leaf_base = torch.zeros(4, requires_grad=True) * 1
    with torch.inference_mode():
        shaped_of_non_leaf, dtype_of_non_leaf = non_leaf_base.view(4), non_leaf_base.view(torch.int32)
    assert isinstance(add_one_at(shaped_of_non_leaf, mode_of_write), str) == mode_of_write, (
        "a view(4) of a non-leaf made in inference mode refuses the write in grad mode only")
    assert isinstance(add_one_at(dtype_of_non_leaf, mode_of_write), str), "its view(dtype) refuses it in both modes"
for grad_off in (torch.no_grad, torch.inference_mode):
    for view_op in (torch.Tensor.t, lambda t: t.narrow(0, 0, 4), lambda t: t.expand(4), lambda t: t.view(4)):
        grad_sources = (torch.zeros(4, requires_grad=True), torch.zeros(4, requires_grad=True),
                        torch.zeros(4, requires_grad=True) * 1, torch.zeros(4, requires_grad=True) * 1)
        with grad_off():
            made_off = [view_op(grad_source) for grad_source in grad_sources]
        assert all(isinstance(add_one_at(made_view, True), str) for made_view in made_off[0::2]), (
            "a view of a leaf or a non-leaf made by t(), narrow(), expand() or view(shape) under no_grad or "
            "inference_mode refuses the write in grad mode")
        assert all(torch.equal(add_one_at(made_view, False), torch.tensor([1.0, 0.0, 1.0, 0.0]))
                   for made_view in made_off[1::2]), "under no_grad such a view takes the write"
# sphinx_gallery_end_ignore

# %%
# The advice in a small loop: a hand-written update of the embedding rows each batch uses, an
# assignment through the index of a ``Parameter`` under ``torch.no_grad()``, agrees with
# ``torch.optim.SGD`` on a copy over three steps.
torch.manual_seed(0)
emb = torch.nn.Embedding(5, 2)
reference = copy.deepcopy(emb)
sgd = torch.optim.SGD(reference.parameters(), lr=0.1)
start = emb.weight.detach().clone()
for _ in range(3):
    ids = torch.randint(0, 5, (4,))
    for model in (emb, reference):
        model.zero_grad()
        model(ids).pow(2).sum().backward()
    rows = ids.unique()
    with torch.no_grad():
        emb.weight[rows] -= 0.1 * emb.weight.grad[rows]
    sgd.step()
print("by hand:", emb.weight.detach())
print("SGD:    ", reference.weight.detach())
assert torch.allclose(emb.weight, reference.weight) and not torch.equal(emb.weight, start), "the rows stepped by hand match SGD's step, and both moved"

# %%
# The in-place index methods
# --------------------------
#
# Each writes into ``x`` and returns ``x`` itself: ``index_put_``, ``index_add_``, ``masked_fill_``
# and ``scatter_``.
x = torch.zeros(4)
mask = torch.tensor([True, False, False, True])
calls = {
    "index_put_": lambda: x.index_put_((idx,), torch.tensor(5.0)),
    "index_add_": lambda: x.index_add_(0, idx, torch.ones(2)),
    "masked_fill_": lambda: x.masked_fill_(mask, 7.0),
    "scatter_": lambda: x.scatter_(0, torch.tensor([1]), 9.0),
}
returned = {}
for name, call in calls.items():
    returned[name] = call()
    print(f"{name:<13} returns x: {returned[name] is x}  x = {x}")
assert torch.equal(x, torch.tensor([7.0, 9.0, 6.0, 7.0])), "each call wrote into x"
assert all(result is x for result in returned.values()), "each call returned x itself"
# sphinx_gallery_start_ignore
assert x._version == 4, "four in-place edits of x"
# sphinx_gallery_end_ignore

# %%
# An index that repeats
# ---------------------
#
# ``x[idx] += 1`` reads ``x[idx]`` once, adds 1 to each read element, and writes them back: an
# element named twice gets 1, not 2. ``index_put_(..., accumulate=True)`` and ``index_add_`` add
# once per occurrence.
twice = torch.tensor([0, 0, 2])
a, b, c = torch.zeros(3), torch.zeros(3), torch.zeros(3)
a[twice] += 1
b.index_put_((twice,), torch.ones(3), accumulate=True)
c.index_add_(0, twice, torch.ones(3))
print("x[twice] += 1:                ", a)
print("index_put_(accumulate=True):  ", b)
print("index_add_:                   ", c)
assert a[0] == 1 and b[0] == c[0] == 2, "+= adds once, accumulate=True and index_add_ add twice"
# sphinx_gallery_start_ignore
assert torch.equal(b, torch.bincount(twice, minlength=3).float()) and torch.equal(b, c), "accumulate=True and index_add_ both count each index as bincount does"
# sphinx_gallery_end_ignore

# %%
# The fix, in a counting loop
# ---------------------------
#
# Counting labels over batches is where a repeated index is the rule. Three ways, over three
# batches: the in-place call on the indexed copy counts nothing, ``+=`` counts each label at most
# once a batch, and ``index_add_`` agrees with ``torch.bincount`` over all the labels.
torch.manual_seed(0)
batches = [torch.randint(0, 4, (6,)) for _ in range(3)]
copied, assigned, counts = torch.zeros(4), torch.zeros(4), torch.zeros(4)
for labels in batches:
    copied[labels].add_(1)
    assigned[labels] += 1
    counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))
expected = torch.bincount(torch.cat(batches), minlength=4).float()
print("copied[labels].add_(1):", copied)
print("assigned[labels] += 1: ", assigned)
print("index_add_:            ", counts)
print("torch.bincount:        ", expected)
assert torch.equal(counts, expected) and not torch.equal(assigned, expected), "only index_add_ counts all"
# sphinx_gallery_start_ignore
assert not copied.any(), "the in-place call on a copy counted nothing"
per_batch = sum((torch.bincount(batch, minlength=4) > 0).float() for batch in batches)
assert torch.equal(assigned, per_batch), "+= counted each label once in each batch that holds it"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# For a dense ``x``, indexing with integers, slices, ``None`` and ``...`` gives a view, and so does a zero-dimensional
# index tensor such as ``argmax()`` returns (any integer dtype but ``uint8``); a list of Python integers, an
# ``int64`` or ``int32`` index tensor of one or more dimensions or a mask gives a copy, and an in-place method called on that
# copy leaves ``x`` unchanged. A zero-dimensional index tensor or a boolean mask on ``meta``, or a ``uint8`` mask
# of one or more dimensions where it or ``x`` is on ``meta``, raises in a read ``x[idx]``; on a dense CPU ``x``, an
# ``int64`` or ``int32`` index tensor on ``meta`` reads uninitialized values, none of them read from ``x``, and the
# writes above through it or a mask on ``meta`` write nothing: keep the index on ``x``'s device.
# :fact:`meta-index-read-uninitialized` Write through the index with an assignment (``x[idx] = v``,
# ``x[idx] += 1``; under ``torch.no_grad()`` on a leaf that requires grad, a view of one or one of
# the four kinds of view of a non-leaf above or a view of one, under ``torch.inference_mode()`` on an inference
# tensor) or with an in-place index method, and where an index repeats, use ``index_add_`` or
# ``index_put_(..., accumulate=True)``. Convert a ``uint8`` mask with ``.bool()`` before writing through it.
# A chain such as ``x[mask][idx] = v`` writes into ``x`` only when every index before the last gives a view:
# make it one index of ``x`` and assign once.
