"""
.. _questions-saving-slices:

``torch.save`` file too large: a slice saves its whole storage
==============================================================

.. admonition:: Answer
   :class: answer

   A slice such as ``t[:3]`` is a view on the storage of ``t``, and ``torch.save`` writes whole
   storages of CPU tensors, so the file, and the tensor loaded from it, hold every element of ``t``. Save a clone
   of the slice:

   .. code-block:: python

      torch.save(t[:3].clone(), path)

Three numbers saved from a tensor of 100 000 make a file of 400 KB, far bigger than the three
numbers: the file holds the whole storage behind them. This page saves views of common kinds, among them a slice, a chunk, a strided
view, a row, a column, a transpose and a ``view`` or ``reshape`` of a slice, in five dtypes, loads them back, and compares them
with their clones; it shows that ``contiguous()`` does not help a contiguous slice, what one
``torch.save`` call does with two views of one tensor and with tied weights, what a
``torch.multiprocessing`` queue and a ``DataLoader`` worker send for a view, and ends with a loop
that saves per-sample embeddings.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
# ``save_and_load`` saves ``obj``
# with ``torch.save`` to a file in a temporary folder, and returns the file's size in bytes, the
# number of storages written (one ``data/`` record each in the file's zip archive) and what
# ``torch.load`` reads back; the folder is deleted before it returns. The file always has the same
# name, so the sizes printed below are the same on every run.

import tempfile
import zipfile

import torch
import torch.multiprocessing as mp


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def save_and_load(obj):
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/saved.pt"
        torch.save(obj, path)
        with open(path, "rb") as file:
            size = len(file.read())
        with zipfile.ZipFile(path) as archive:
            records = sum("/data/" in name for name in archive.namelist())
        return size, records, torch.load(path)


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
# ``t`` holds 100 000 floats, 400 000 bytes. Saving its first three elements, ``t[:3]``, writes a
# file of about 400 KB, as large as saving ``t`` itself; saving ``t[:3].clone()`` writes a file
# of under 2 KB, most of it the archive's own records.

t = torch.arange(100_000, dtype=torch.float32)
head = t[:3]
size_t, _, _ = save_and_load(t)
size_head, _, _ = save_and_load(head)
size_clone, _, _ = save_and_load(head.clone())
print("storage of t:             ", t.untyped_storage().nbytes(), "bytes")
print("file of torch.save(t):    ", size_t, "bytes")
print("file of torch.save(head): ", size_head, "bytes")
print("file of head.clone():     ", size_clone, "bytes")
assert size_head == size_t > 400_000 > 200 * size_clone, "the slice's file is as large as the whole tensor's"
# sphinx_gallery_start_ignore
assert save_and_load(head)[0] == size_head and save_and_load(head.clone())[0] == size_clone, (
    "saving head and head.clone() again gives the same file sizes")
# sphinx_gallery_end_ignore

# %%
# Why: a view has no memory of its own
# ------------------------------------
#
# ``head`` is a view: a shape, strides and an offset into the storage of ``t``, which it shares.
# ``torch.save`` writes storages, each one whole, and records for each tensor its shape, strides
# and offset into its storage. Loaded back, ``head`` is again three numbers over a storage of
# 400 000 bytes, at the same offset, with the same strides: the whole of ``t`` is in memory again,
# not only in the file.

_, _, loaded = save_and_load(head)
print("head:", head, " same storage as t:", same_storage(head, t))
print("loaded:", loaded, " shape:", tuple(loaded.shape))
print("storage of loaded:", loaded.untyped_storage().nbytes(), "bytes")
assert loaded.untyped_storage().nbytes() == t.untyped_storage().nbytes(), "the loaded slice has t's storage"
# sphinx_gallery_start_ignore
assert same_storage(head, t) and torch.equal(loaded, head), "head is a view of t, and its values came back"
assert loaded.storage_offset() == head.storage_offset() and loaded.stride() == head.stride(), (
    "the loaded slice has head's offset and strides")
assert loaded[:2]._base is loaded and loaded.numel() == 3 and save_and_load(loaded[:2])[2].untyped_storage().nbytes() == (
    t.untyped_storage().nbytes()), "a view of the loaded slice writes the whole storage, more than its base's elements"
# sphinx_gallery_end_ignore

# %%
# Nine views, five dtypes
# -----------------------
#
# The same happens for every view below, in each of five dtypes: a slice at the start or in the
# middle, the second of ten chunks, every second element, a row and a column of the 1000 x 100 matrix
# ``t.view(1000, 100)`` and the transpose of its first ten rows, and a ``view`` and a ``reshape`` of a slice. For each, the tensor loaded back has the whole
# storage of ``t``, and the same values, offset and strides as the view; its clone, saved and
# loaded, has a storage of exactly its own elements. The table shows the float32 case (its last two
# columns in bytes). A ``meta`` tensor holds no data: each of these views of a ``meta`` ``t`` comes
# back at offset 0 over a storage that ends at its last element (12 bytes for ``t[500:503]``).

views = {
    "t[:3]": lambda t: t[:3],
    "t[500:503]": lambda t: t[500:503],
    "t.chunk(10)[1]": lambda t: t.chunk(10)[1],
    "t[::2]": lambda t: t[::2],
    "t.view(1000, 100)[1]": lambda t: t.view(1000, 100)[1],
    "t.view(1000, 100)[:, 0]": lambda t: t.view(1000, 100)[:, 0],
    "t.view(1000, 100)[:10].t()": lambda t: t.view(1000, 100)[:10].t(),
    "t[:300].view(3, 100)": lambda t: t[:300].view(3, 100),
    "t[:300].reshape(3, 100)": lambda t: t[:300].reshape(3, 100),
}
table_rows = [("float32 view", "elements", "loaded, bytes", "clone, bytes")]
whole, own = [], []
for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64):
    t = torch.arange(100_000).to(dtype)
    for name, make in views.items():
        view = make(t)
        _, _, loaded = save_and_load(view)
        _, _, loaded_clone = save_and_load(view.clone())
        storage, clone_storage = loaded.untyped_storage().nbytes(), loaded_clone.untyped_storage().nbytes()
        whole.append(storage == t.untyped_storage().nbytes())
        own.append(clone_storage == view.numel() * view.element_size())
        if dtype == torch.float32:
            table_rows.append((name, view.numel(), storage, clone_storage))
        # sphinx_gallery_start_ignore
        assert torch.equal(loaded, view) and torch.equal(loaded_clone, view), f"{dtype} {name}: values came back"
        assert loaded.storage_offset() == view.storage_offset() and loaded.stride() == view.stride(), (
            f"the loaded {name} has the view's offset and strides")
        assert same_storage(view, t), f"{name} is a view of t"
        # sphinx_gallery_end_ignore
for name, elements, storage, clone_storage in table_rows:
    print(f"{name:<27} {elements:>8} {storage:>15} {clone_storage:>13}")
print("loaded with the whole storage:", sum(whole), "of", len(whole), " clones with their own:", sum(own))
assert all(whole) and all(own) and len(whole) == 45, "every view saves its whole storage, every clone its own"
# sphinx_gallery_start_ignore
assert t.device.type == "cpu" and all(
    (lambda meta_view, meta_loaded: meta_loaded.device.type == "meta" and meta_loaded.storage_offset() == 0
     and meta_loaded.stride() == meta_view.stride() and meta_loaded.untyped_storage().nbytes() == meta_view.element_size() * (
         1 + sum((size - 1) * step for size, step in zip(meta_view.shape, meta_view.stride(), strict=True))))(
        meta_make(torch.zeros(100_000, device="meta")), save_and_load(meta_make(torch.zeros(100_000, device="meta")))[2])
    for meta_make in views.values()
) and save_and_load(torch.zeros(100_000, device="meta")[500:503])[2].untyped_storage().nbytes() == 12, (
    "the table's views are on the CPU; each view of a meta t comes back at offset 0 over a storage that ends at its last element")
# sphinx_gallery_end_ignore

# %%
# ``contiguous()`` is not enough
# ------------------------------
#
# Called without arguments (the default ``memory_format``) on a tensor of the default strided layout that is not
# nested, ``contiguous()`` copies only a tensor that is not contiguous already. ``t[:3]`` is contiguous,
# so ``head.contiguous()`` is ``head`` itself, the same object, and saves the whole storage. Of
# the views above it copies only those that are not contiguous (every second element, ``t[::2]``, the column and the
# transpose); the slices, the chunk, the row and the ``view`` and ``reshape`` of a slice stay views of ``t``, so
# ``clone()`` is the call that always copies.

t = torch.arange(100_000, dtype=torch.float32)
head = t[:3]
print("head.contiguous() is head:", head.contiguous() is head)
print("file of torch.save(head.contiguous()):", save_and_load(head.contiguous())[0], "bytes")
copied = [name for name, make in views.items() if not same_storage(make(t).contiguous(), t)]
print("views that contiguous() copies:", copied)
assert head.contiguous() is head and save_and_load(head.contiguous())[0] == save_and_load(t)[0], (
    "head.contiguous() is head, and its file is as large as t's"
)
assert copied == ["t[::2]", "t.view(1000, 100)[:, 0]", "t.view(1000, 100)[:10].t()"], (
    "contiguous() copies only the views that are not contiguous")
# sphinx_gallery_start_ignore
assert copied == [name for name, make in views.items() if not make(t).is_contiguous()], (
    "contiguous() copied exactly the views that are not contiguous")
# sphinx_gallery_end_ignore

# %%
# Two views saved in one call come back sharing
# ---------------------------------------------
#
# ``torch.save`` writes each storage object once per call, however many of the saved tensors use it, as long
# as they all view it with one dtype; with two dtypes the call raises (``RuntimeError: Cannot save
# multiple tensors or storages that view the same data as different types``). Views taken from one
# tensor, and its ``.data`` and ``detach()``, use its storage object (``x.untyped_storage() is
# y.untyped_storage()``). A tensor that reaches the same memory by a route that makes a storage object of its
# own, such as ``torch.from_numpy(t.numpy())``, ``torch.from_dlpack(t)`` or ``torch.frombuffer(t.numpy(), ...)``,
# is another storage to ``torch.save``, though ``same_storage``, which compares addresses, says they share.
# With one dtype, one call writes it a second time, and it comes back on memory of its own; with two
# dtypes the call raises here too, since ``torch.save`` compares the address where each storage starts,
# not the storage object. A route whose storage starts further into ``t``, such as
# ``torch.from_numpy(t[2:].numpy())``, saves with ``t`` in two dtypes in one call.
# Saved in one call, ``a = t[:4]`` and ``b = t[2:]`` of a 6-element ``t`` are one storage in the
# file and come back as two tensors on one storage: writing ``100`` into the loaded ``a[3]`` changes
# the loaded ``b[1]``, the same element. Saved in two calls, each file holds its own copy of the
# whole storage, and the two loaded tensors share nothing. On ``meta`` the two views saved in one
# call come back each at offset 0 over a storage of its own 4 elements, and views of one ``meta`` tensor
# in two dtypes save in one call without an error.

t = torch.arange(6.0)
_, records_one, one = save_and_load({"a": t[:4], "b": t[2:]})
_, records_a, two_a = save_and_load(t[:4])
_, records_b, two_b = save_and_load(t[2:])
one["a"][3] = 100.0
two_a[3] = 100.0
print("one call:  storages written:", records_one, " loaded b:", one["b"])
print("two calls: storages written:", records_a + records_b, " loaded b:", two_b)
print("one call, same storage:", same_storage(one["a"], one["b"]))
print("two calls, separate storage:", not same_storage(two_a, two_b))
assert records_one == 1 and same_storage(one["a"], one["b"]) and one["b"][1] == 100.0, (
    "one torch.save call: one storage, shared by the loaded a and b")
assert records_a + records_b == 2 and bytes_apart(two_a, two_b) and two_b[1] == 3.0, (
    "two torch.save calls: two storages; a write to a misses b")
routes = {"t[:4]": t[:4], "t[2:]": t[2:], "t.data": t.data, "t.detach()": t.detach()}
print("t's storage object:", {name: route.untyped_storage() is t.untyped_storage() for name, route in routes.items()})
assert all(route.untyped_storage() is t.untyped_storage() for route in routes.values()), (
    "views taken from one tensor, and its .data and detach(), use its storage object")
# sphinx_gallery_start_ignore
assert two_a.untyped_storage().nbytes() == two_b.untyped_storage().nbytes() == 24, "each holds the whole t"
assert all(
    meta_loaded.storage_offset() == 0 and meta_loaded.untyped_storage().nbytes() == 16
    for meta_loaded in (lambda meta_t: save_and_load({"a": meta_t[:4], "b": meta_t[2:]}))(
        torch.zeros(6, device="meta"))[2].values()
), "on meta, a and b saved in one call come back each at offset 0 over a storage of its own 4 elements"
assert [
    (meta_loaded.dtype, meta_loaded.storage_offset(), meta_loaded.untyped_storage().nbytes())
    for meta_loaded in (lambda meta_t: save_and_load({"a": meta_t[:4], "b": meta_t[2:].view(torch.int32)}))(
        torch.zeros(6, device="meta"))[2].values()
] == [(torch.float32, 0, 16), (torch.int32, 0, 16)], "on meta, views of one storage in two dtypes save in one call"
assert torch.equal(t, torch.arange(6.0)), "the edits of the loaded tensors did not reach t"
try:
    save_and_load({"a": t[:4], "b": t[2:].view(torch.int32)})
except RuntimeError as refusal:
    assert str(refusal) == "Cannot save multiple tensors or storages that view the same data as different types", (
        "one call that saves views of one storage with two dtypes raises")
else:
    raise AssertionError("saving views of one storage with two dtypes in one call must raise")
assert all(
    same_storage(t, other_route) and other_route.untyped_storage() is not t.untyped_storage()
    and save_and_load({"a": t[:4], "b": other_route[2:]})[1] == 2
    and bytes_apart(*save_and_load({"a": t[:4], "b": other_route[2:]})[2].values())
    for other_route in (torch.from_numpy(t.numpy()), torch.from_dlpack(t), torch.frombuffer(t.numpy(), dtype=t.dtype))
), ("torch.from_numpy(t.numpy()), torch.from_dlpack(t) and torch.frombuffer reach t's memory with a storage object "
    "of their own: with one dtype, one call writes it a second time, and it comes back apart")
for other_route in (torch.from_numpy(t.numpy()), torch.from_dlpack(t)):
    try:
        save_and_load({"a": t[:4], "b": other_route[2:].view(torch.int32)})
    except RuntimeError as refusal:
        assert str(refusal) == "Cannot save multiple tensors or storages that view the same data as different types", (
            "one call that saves t and another route to its memory with two dtypes raises")
    else:
        raise AssertionError("saving t and another route to its memory with two dtypes in one call must raise")
assert all(
    other_route.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() + 8
    and save_and_load({"a": t[:4], "b": other_route.view(torch.int32)})[1] == 2
    for other_route in (torch.from_numpy(t[2:].numpy()), torch.from_dlpack(t[2:]))
), "a route whose storage starts further into t saves with t in two dtypes in one call"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: one_a and one_b, loaded from one call, point to one storage S1; two_a and two_b point to S2 and S3.
#
#    Loaded from one call, ``one_a`` and ``one_b`` are on one storage ``S1``, yet neither is a view
#    of the other: each has a version counter of its own (``C1``, ``C2``; ``_version`` is internal to
#    torch). Loaded from two calls, ``two_a`` and ``two_b`` are on two storages, ``S2`` and ``S3``.

draw_memory("loaded from one call, then from two", one_a=one["a"], one_b=one["b"], two_a=two_a, two_b=two_b)
# sphinx_gallery_start_ignore
assert one["a"]._base is None and one["b"]._base is None, "neither loaded tensor is a view of the other"
assert one["a"]._version != one["b"]._version, "the edit of one_a moved its own version counter only"
assert bytes_apart(one["a"], two_a) and bytes_apart(one["a"], two_b), "S1 is not S2 or S3"
# sphinx_gallery_end_ignore

# %%
# Tied weights are saved once and come back tied
# ----------------------------------------------
#
# The same rule keeps tied weights tied. A model whose decoder's weight is its embedding's
# ``Parameter`` has a ``state_dict()`` whose two keys hold two tensor objects on that ``Parameter``'s
# storage; ``torch.save`` writes one storage for them, and in the loaded state dict the two keys
# share it again.
# :ref:`questions-tied-weights` follows such a weight through copies and training.


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(5, 3)
        self.decoder = torch.nn.Linear(3, 5, bias=False)
        self.decoder.weight = self.embedding.weight


torch.manual_seed(0)
model = Tied()
entries = model.state_dict()
print("entries: embedding.weight is decoder.weight:", entries["embedding.weight"] is entries["decoder.weight"],
      " same storage:", same_storage(entries["embedding.weight"], entries["decoder.weight"]))
_, records, state = save_and_load(entries)
print("keys:", list(state), " storages written:", records)
print("loaded, same storage:", same_storage(state["embedding.weight"], state["decoder.weight"]))
assert records == 1 and same_storage(state["embedding.weight"], state["decoder.weight"]), "saved once, still tied"
# sphinx_gallery_start_ignore
assert model.decoder.weight is model.embedding.weight and torch.equal(state["decoder.weight"], model.decoder.weight), (
    "the model is tied, and the loaded entry holds its weight's values")
assert entries["embedding.weight"] is not entries["decoder.weight"] and all(
    same_storage(entry, model.embedding.weight) for entry in entries.values()), (
    "state_dict(): two tensor objects, both on the Parameter's storage")
# sphinx_gallery_end_ignore

# %%
# A view sent to another process takes its storage along
# ------------------------------------------------------
#
# A ``torch.multiprocessing`` queue does not write a file, but it sends storages too: it moves the
# storage of a non-empty tensor torch allocated, not yet in shared memory, into shared memory and hands the receiver a
# tensor on it; it refuses a non-leaf that requires grad and an mkldnn tensor (see below). The child below
# (started with the ``fork`` method, as in :ref:`questions-processes`) takes one tensor from its
# inbox and answers with its shape and its storage's size: ``t[:3]`` arrives over all 400 000
# bytes, and the whole storage of ``t`` moved into shared memory (``t.is_shared()``); a clone
# arrives over 12 bytes, and the storage of ``kept``, the tensor it was cloned from, stays where it
# was, out of shared memory (``kept.is_shared()`` is False). Taken in grad mode, a slice of
# ``weights``, a leaf that requires grad, is a non-leaf that requires grad: ``ForkingPickler``, which the
# queue pickles with, refuses it, so the queue drops it and the receiver gets nothing, as
# :ref:`questions-processes` shows. Send its ``detach()``: that pickles, and moves the storage of
# ``weights`` into shared memory. A slice taken under ``torch.no_grad()`` is a leaf that requires
# grad: it pickles too, and moves the storage of ``weights`` into shared memory as well. ``ForkingPickler`` also
# refuses an mkldnn tensor (made by ``to_mkldnn()``), with
# ``NotImplementedError: Cannot access storage of OpaqueTensorImpl``, so the queue drops it too: send its
# ``to_dense()``, which pickles and goes into shared memory.

from multiprocessing.reduction import ForkingPickler

ctx = mp.get_context("fork")
TIMEOUT = 10  # seconds; no wait on this page lasts longer


def measure_from_queue(inbox, outbox):
    received = inbox.get(timeout=TIMEOUT)
    outbox.put((tuple(received.shape), received.untyped_storage().nbytes()))


def send_to_child(tensor):
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=measure_from_queue, args=(inbox, outbox))
    child.start()
    inbox.put(tensor)
    answer = outbox.get(timeout=TIMEOUT)
    child.join(TIMEOUT)
    for queue in (inbox, outbox):
        queue.close()
        queue.join_thread()
    return answer, child.exitcode


t = torch.arange(100_000, dtype=torch.float32)
kept = torch.arange(100_000, dtype=torch.float32)
(shape, nbytes), exitcode = send_to_child(t[:3])
(clone_shape, clone_nbytes), clone_exitcode = send_to_child(kept[:3].clone())
print("t[:3] in the child:        ", shape, nbytes, "bytes", " t.is_shared():", t.is_shared())
print("kept[:3].clone() in child: ", clone_shape, clone_nbytes, "bytes", " kept.is_shared():", kept.is_shared())
print("child.exitcode:", exitcode, clone_exitcode)
assert (shape, nbytes) == ((3,), 400_000) and t.is_shared(), "the whole storage of t travelled"
assert (clone_shape, clone_nbytes) == ((3,), 12) and not kept.is_shared(), "the clone travelled alone"
weights = torch.zeros(100_000, requires_grad=True)
try:
    ForkingPickler.dumps(weights[:3])
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("pickling a slice of a tensor that requires grad must raise")
ForkingPickler.dumps(weights[:3].detach())
print("weights.is_shared() after pickling weights[:3].detach():", weights.is_shared())
assert weights.is_shared(), "pickling the detached slice moved the storage of weights into shared memory"
# sphinx_gallery_start_ignore
assert exitcode == 0 and clone_exitcode == 0, "both children ended well"
quiet_weights = torch.zeros(100_000, requires_grad=True)
with torch.no_grad():
    quiet_slice = quiet_weights[:3]
assert quiet_slice.is_leaf and quiet_slice.requires_grad, "a slice taken under no_grad is a leaf that requires grad"
assert ForkingPickler.dumps(quiet_slice) and quiet_weights.is_shared(), (
    "the slice taken under no_grad pickles, and moves the storage of its tensor into shared memory")


def pickling_error(tensor):
    try:
        ForkingPickler.dumps(tensor)
    except (RuntimeError, NotImplementedError) as e:
        return f"{type(e).__name__}: {e}"
    return None


on_mkldnn = torch.arange(4.0).to_mkldnn()
dense_copy = on_mkldnn.to_dense()
assert pickling_error(on_mkldnn) == "NotImplementedError: Cannot access storage of OpaqueTensorImpl" and (
    pickling_error(dense_copy) is None and dense_copy.is_shared()), (
    "ForkingPickler refuses an mkldnn tensor; its to_dense() pickles and moves into shared memory")
with torch.inference_mode():
    made_in_inference = torch.arange(4.0)
other_kinds = {torch.eye(3).to_sparse(): lambda x: x.values(),
               torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)], layout=torch.jagged): lambda x: x.values(),
               torch.arange(4.0).to(torch.complex64).conj(): lambda x: x, made_in_inference: lambda x: x}
assert all(not values_of(kind).is_shared() for kind, values_of in other_kinds.items()) and all(
    pickling_error(kind) is None and values_of(kind).is_shared() for kind, values_of in other_kinds.items()), (
    "a sparse COO, a jagged nested, a conjugate-view and an inference tensor pickle, and their memory moves into "
    "shared memory")
# sphinx_gallery_end_ignore

# %%
# A ``Dataset`` that returns views
# --------------------------------
#
# A ``DataLoader`` worker sends through such a queue each batch it builds from what ``__getitem__``
# returns. ``Rows`` below
# returns row ``i`` of a 1000 x 100 matrix: without batching (``batch_size=None``), every row
# reaches this process over the whole 400 000-byte storage. Returning
# ``self.data[i].clone()`` sends only the row's 400 bytes. With the default batching, the worker
# stacks the rows into a new tensor, so a batch of two rows holds 800 bytes either way. A
# ``collate_fn`` that does not stack, such as ``list``, sends the
# rows themselves: each row of a batch of two again reaches this process over the whole storage.
# ``DataLoader`` installs a ``SIGCHLD`` handler when it starts its first worker from a process's main thread;
# the cell puts back the one it found, and ends the listener thread that sending a shared tensor started
# (``resource_sharer.stop()``). :fact:`dataloader-sigchld-handler-once`

import signal
from multiprocessing import resource_sharer

from torch.utils.data import DataLoader, Dataset

sigchld_before = signal.getsignal(signal.SIGCHLD)


class Rows(Dataset):
    def __init__(self, clone):
        self.data = torch.arange(100_000, dtype=torch.float32).view(1000, 100)
        self.clone = clone

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.data[i].clone() if self.clone else self.data[i]


batching = {
    "batch_size=None": {"batch_size": None},
    "batch_size=2": {"batch_size": 2},
    "batch_size=2, collate_fn=list": {"batch_size": 2, "collate_fn": list},
}
arrived = {}
for clone in (False, True):
    for name, options in batching.items():
        loader = DataLoader(Rows(clone), num_workers=1, multiprocessing_context=ctx, timeout=TIMEOUT, **options)
        batches = [b if isinstance(b, list) else [b] for b in loader]
        arrived[clone, name] = [[(tuple(x.shape), x.untyped_storage().nbytes()) for x in b] for b in batches]
        print(f"clone={clone!s:<5} {name:<29}", arrived[clone, name])
# sphinx_gallery_start_ignore
from torch.utils.data._utils import signal_handling  # noqa: E402

assert signal_handling._SIGCHLD_handler_set, (
    "DataLoader has installed its SIGCHLD handler in this process, at the first worker it started")
assert resource_sharer._resource_sharer._thread is not None and resource_sharer._resource_sharer._thread.is_alive(), (
    "sending a shared tensor started the listener thread of multiprocessing's resource_sharer")
# sphinx_gallery_end_ignore
resource_sharer.stop()
signal.signal(signal.SIGCHLD, sigchld_before)
print("children still running:", mp.active_children())
unbatched, stacked, listed = batching
assert arrived[False, unbatched] == [[((100,), 400_000)]] * 4 and arrived[True, unbatched] == [[((100,), 400)]] * 4, (
    "without batching, each row arrives over the whole 400 000-byte storage, and each clone over 400 bytes of its own"
)
assert arrived[False, stacked] == arrived[True, stacked] == [[((2, 100), 800)]] * 2, (
    "a stacked batch is a tensor of its own"
)
assert arrived[False, listed] == [[((100,), 400_000)] * 2] * 2 and arrived[True, listed] == [[((100,), 400)] * 2] * 2, (
    "with collate_fn=list, each row of a batch arrives over the whole storage, and each clone over 400 bytes"
)
# sphinx_gallery_start_ignore
assert mp.active_children() == [], "every child process has ended"
assert signal.getsignal(signal.SIGCHLD) is sigchld_before and resource_sharer._resource_sharer._thread is None, (
    "the cell put the SIGCHLD handler back and ended the listener thread")
# sphinx_gallery_end_ignore

# %%
# The fix: clone the slice
# ------------------------
#
# ``t[:3].clone()`` copies the three elements into a storage of their own, which is all that
# ``torch.save`` then writes.

t = torch.arange(100_000, dtype=torch.float32)
with tempfile.TemporaryDirectory() as folder:
    path = f"{folder}/saved.pt"
    torch.save(t[:3].clone(), path)
    loaded = torch.load(path)
print("loaded:", loaded, " storage:", loaded.untyped_storage().nbytes(), "bytes")
assert torch.equal(loaded, t[:3]) and loaded.untyped_storage().nbytes() == 12, "only the three elements"

# %%
# Saving per-sample embeddings
# ----------------------------
#
# A common place for the slip: an encoder embeds a batch of 16 samples at once, and each sample's
# embedding (a row of 128 floats, 512 bytes) is saved to a file of its own. Over three batches,
# the loop saves each row twice, as the row and as its clone, and loads both back. Every file of a
# row holds the whole batch, 16 x 128 floats; every file of a clone holds only its row's 512 bytes
# of data, and both load as the sample's embedding.

torch.manual_seed(0)
encoder = torch.nn.Linear(32, 128)
bytes_rows, bytes_clones, storages = 0, 0, set()
with torch.no_grad():
    for step in range(3):
        embeddings = encoder(torch.randn(16, 32))
        for i in range(16):
            size_row, _, row = save_and_load(embeddings[i])
            size_clone, _, cloned = save_and_load(embeddings[i].clone())
            bytes_rows, bytes_clones = bytes_rows + size_row, bytes_clones + size_clone
            storages.add((row.untyped_storage().nbytes(), cloned.untyped_storage().nbytes()))
            assert torch.equal(row, embeddings[i]) and torch.equal(cloned, embeddings[i]), f"step {step}, row {i}"
        print(f"step {step}: files of rows {bytes_rows} bytes, files of clones {bytes_clones} bytes")
print("storages loaded (row, clone):", storages)
assert storages == {(16 * 128 * 4, 128 * 4)}, "each row's file holds the batch, each clone's file its row"

# %%
# Conclusion
# ----------
#
# On the CPU, ``torch.save`` writes storages, whole: a slice, a chunk, a strided view, a row, a column, a transpose
# or a ``view`` of a slice writes its whole storage, and comes back holding all of it in memory.
# ``contiguous()`` (default ``memory_format``) leaves a contiguous view as it is; ``clone()`` gives the slice a storage of its
# own, and that is all the file holds. Within one call each storage object is written once, so views of
# one tensor with one dtype, and tied weights, come back sharing memory; saved in separate calls they come back
# separate, and so, even in one call, do tensors of one dtype that reach the same memory by a route that makes a
# storage object of their own (``torch.from_numpy``, ``torch.from_dlpack``, ``torch.frombuffer``; ``.data`` and
# ``detach()`` use the tensor's own). In two dtypes such a tensor raises, as views of one tensor do,
# when its storage starts where the tensor's does; one whose storage starts further in, such as
# ``torch.from_numpy(t[2:].numpy())``, saves. A ``torch.multiprocessing`` queue, and so a ``DataLoader`` worker whose batch holds the view
# itself (``batch_size=None``, or a ``collate_fn`` that does not stack, such as ``list``), also sends the whole
# storage of a view; the queue drops a non-leaf that requires grad (send its ``detach()``) and an mkldnn tensor (send
# its ``to_dense()``). A ``meta`` tensor holds no data: a view of one, even saved in one call with another
# view of its tensor, comes back at offset 0 over a storage that ends at its last element.
