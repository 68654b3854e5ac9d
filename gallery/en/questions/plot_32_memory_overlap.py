"""
.. _questions-memory-overlap:

Do these two tensors share memory?
==================================

.. admonition:: Answer
   :class: answer

   Equal ``untyped_storage().data_ptr()`` does not mean two tensors share an element, and different ones do
   not rule sharing out. Compare the bytes the elements reach (memory mapped twice, such as a file or a shared
   tensor a forked worker returns, is the exception below):

   .. code-block:: python

      def normalize(batch, data):
          if shares_memory(batch, data):
              batch = batch.clone()
          return batch.sub_(mean).div_(std)

The usual answer to "do ``a`` and ``b`` share memory?" compares where their storages start,
``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()``. But equal ones (storages not empty, not
on ``meta``) mean the storages start at one address, not a shared element; different ones do not rule sharing
out, as with DLPack, NumPy or ``frombuffer`` aliases of a slice. This page runs that test on
ten pairs of tensors and checks each answer with a write: a value written through one tensor,
looked for in the other. It then compares the byte ranges the two tensors' elements reach, shows the
layout where only a write tells, uses the comparison to decide when a data pipeline must clone a
batch before normalising it in place, and ends with batches that no comparison of addresses can judge.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` is the usual test: it compares where two storages start, and prints only the
# answer, never an address. ``write_test`` is the ground truth that every answer on this page is
# checked against: it writes -1, a value that neither tensor it is given holds, into every element of
# ``a``, sees whether any element of ``b`` changed, and puts every byte of ``a``'s storage back.

import numpy as np
import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def write_test(a, b):
    before, saved = b.clone(), a.untyped_storage().clone()
    a.fill_(-1.0)
    changed = not torch.equal(b, before)
    a.untyped_storage().copy_(saved)
    return changed


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
# One storage: views, slices, ``t()``, ``expand``
# -----------------------------------------------
#
# A view, a row, the transpose and an expanded column of ``x`` all have their storage start where
# ``x``'s starts, and a write through each reaches ``x``. ``clone()`` has a storage of its own, and
# its write does not reach ``x``. On these five, the usual test gives the write test's answer.

x = torch.arange(4.0).reshape(2, 2)
views = {
    "x.view(4)": x.view(4),
    "x[1]": x[1],
    "x.t()": x.t(),
    "x[:, :1].expand(2, 2)": x[:, :1].expand(2, 2),
    "x.clone()": x.clone(),
}
for name, t in views.items():
    print(f"{name:<22} same storage: {same_storage(t, x)!s:<5}  write reaches x: {write_test(t, x)}")
assert all(same_storage(t, x) == write_test(t, x) for t in views.values()), "the usual test is right on these five"
# sphinx_gallery_start_ignore
assert [same_storage(t, x) for t in views.values()] == [True, True, True, True, False], "four views, one clone"
assert torch.equal(x, torch.arange(4.0).reshape(2, 2)), "the write tests put x back"
# sphinx_gallery_end_ignore

# %%
# Other storages, shared memory: DLPack, NumPy, ``frombuffer``
# ------------------------------------------------------------
#
# An alias of the row ``x[1]`` made through DLPack, NumPy or ``torch.frombuffer`` has a storage of
# its own, which starts inside ``x``'s: the usual test answers ``False``, and a write through each
# alias reaches ``x`` all the same. :ref:`copying-alias` shows the same three routes, and
# :ref:`the NumPy bridge page <questions-numpy-bridge>` shows what a write through NumPy does to autograd. The
# picture below draws
# a fresh pair, ``source`` and the DLPack alias of its second row.

aliases = {
    "torch.from_dlpack(x[1])": torch.from_dlpack(x[1]),
    "torch.from_numpy(x[1].numpy())": torch.from_numpy(x[1].numpy()),
    "torch.frombuffer(x[1].numpy(), dtype=torch.float32)": torch.frombuffer(x[1].numpy(), dtype=torch.float32),
}
for name, t in aliases.items():
    print(f"{name:<52} same storage: {same_storage(t, x)!s:<5}  write reaches x: {write_test(t, x)}")
assert not any(same_storage(t, x) for t in aliases.values()) and all(write_test(t, x) for t in aliases.values()), (
    "each alias has a storage of its own, and a write through it reaches x"
)
source = torch.arange(4.0).reshape(2, 2)
alias = torch.from_dlpack(source[1])
# sphinx_gallery_start_ignore
assert torch.equal(x, torch.arange(4.0).reshape(2, 2)), "the write tests put x back"
first_row = torch.from_dlpack(x[0])
assert same_storage(first_row, x) and first_row.untyped_storage().nbytes() < x.untyped_storage().nbytes(), (
    "an alias of the row at offset 0: its storage starts where x's does, yet is another storage")
storage_part = torch.asarray(x.untyped_storage()[0:8], dtype=torch.float32)
assert same_storage(storage_part, x) and storage_part.untyped_storage().nbytes() < x.untyped_storage().nbytes(), (
    "a tensor on a slice of x.untyped_storage() at offset 0: its storage starts where x's does, yet is another storage")
assert torch.equal(storage_part, x[0]), "that tensor holds x's first row"
assert all(x.untyped_storage().data_ptr() < t.untyped_storage().data_ptr()
           < x.untyped_storage().data_ptr() + x.untyped_storage().nbytes() for t in aliases.values()), (
    "each alias's storage starts inside x's")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names source and alias point to two tensor objects on two storages, S1 and S2; alias holds 2.0 and 3.0, the second row of source.
#
#    The picture groups tensors by where their storage starts, as ``same_storage`` does: ``source``
#    on ``S1``, ``alias`` on ``S2``, though ``alias`` is the second row of ``source`` in memory.

draw_memory("alias = torch.from_dlpack(source[1])", source=source, alias=alias)
# sphinx_gallery_start_ignore
assert not same_storage(alias, source) and alias.data_ptr() == source[1].data_ptr(), "one memory, two storages"
# sphinx_gallery_end_ignore

# %%
# Comparing the bytes the elements reach
# --------------------------------------
#
# A dense tensor's elements lie between the address of its first element, ``t.data_ptr()`` (where its
# storage starts, plus ``storage_offset()`` elements), and the last byte its strides reach. In memory
# mapped once in this process, two tensors whose byte ranges are disjoint share no memory. Memory
# mapped twice is the exception, two address ranges over the same bytes: a file mapped twice
# (``torch.from_file(path, shared=True)``, ``np.memmap``, or, on Linux, ``torch.from_file(path, shared=False)``, a
# private mapping whose own writes stay its own but which reads the other mappings' writes on the memory pages it
# has not written), or a tensor in shared memory
# (``share_memory_()``) whose view a forked ``DataLoader`` worker sends back through a
# ``torch.multiprocessing`` queue: this process maps it again, at other addresses (section "A second
# mapping" below). ``shares_memory`` compares the two ranges; it
# answers ``False`` for an empty tensor, for two devices, and on ``meta``, where tensors hold no
# memory. A simpler test, whether the two *storages'* byte ranges overlap, is shown beside it. The
# table adds a pair that is neither a view of the other: the two halves of ``flat``, one storage and
# no common element.
# :fact:`file-mapped-twice-shares-bytes` :fact:`private-file-mapping-reads-other-writes`


def byte_range(t):
    start = t.data_ptr()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride(), strict=True))
    return start, start + (last + 1) * t.element_size()


def shares_memory(a, b):
    """False: no byte in common. True: the byte ranges of the elements overlap."""
    if a.numel() == 0 or b.numel() == 0 or a.device != b.device or a.device.type == "meta":
        return False
    (a_start, a_end), (b_start, b_end) = byte_range(a), byte_range(b)
    return a_start < b_end and b_start < a_end


def storage_ranges_overlap(a, b):
    sa, sb = a.untyped_storage(), b.untyped_storage()
    return sa.data_ptr() < sb.data_ptr() + sb.nbytes() and sb.data_ptr() < sa.data_ptr() + sa.nbytes()


flat = torch.arange(8.0)
pairs = {f"{name}, x": (t, x) for name, t in {**views, **aliases}.items()}
pairs["flat[:4], flat[4:]"] = (flat[:4], flat[4:])
tests = (same_storage, storage_ranges_overlap, shares_memory, write_test)
rows = [("pair", "same storage", "storage ranges", "byte ranges", "write test")]
rows += [(name, *(str(test(a, b)) for test in tests)) for name, (a, b) in pairs.items()]
for name, same, storages, elements, written in rows:
    print(f"{name:<55} {same:>12} {storages:>14} {elements:>11} {written:>10}")
assert all(shares_memory(a, b) == write_test(a, b) for a, b in pairs.values()), "byte ranges: the write test's answer"
# sphinx_gallery_start_ignore
wrong_by_storage = [name for name, (a, b) in pairs.items() if same_storage(a, b) != shares_memory(a, b)]
assert wrong_by_storage == [*(f"{name}, x" for name in aliases), "flat[:4], flat[4:]"], (
    "same_storage is wrong on the three aliases of x[1] and flat's halves")
wrong_by_ranges = [name for name, (a, b) in pairs.items() if storage_ranges_overlap(a, b) != shares_memory(a, b)]
assert wrong_by_ranges == ["flat[:4], flat[4:]"], "the storages' ranges are wrong on the halves only"
assert all(bool((a >= 0).all() and (b >= 0).all()) for a, b in pairs.values()), "no tensor tested holds -1"
assert all(
    t.data_ptr() == t.untyped_storage().data_ptr() + t.storage_offset() * t.element_size()
    for pair in pairs.values()
    for t in pair
), "data_ptr() is where the storage starts plus storage_offset() elements"
assert not shares_memory(torch.empty(0), torch.empty(0)), "an empty tensor shares nothing"
assert not shares_memory(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), "meta tensors hold no memory"
assert not shares_memory(x, x.to("meta")), "x and x.to('meta') share no memory"
assert torch.equal(x, torch.arange(4.0).reshape(2, 2)) and torch.equal(flat, torch.arange(8.0)), (
    "the write tests left x and flat with their old values")
# sphinx_gallery_end_ignore

# %%
# Where only a write settles it
# -----------------------------
#
# ``flat[::2]`` and ``flat[1::2]`` take every second element, one from element 0 and one from element
# 1: they are on one storage, so the usual test answers ``True``, and their byte ranges overlap, yet
# they have no element in common, and the write test finds none.
# ``shares_memory`` answers ``True`` there, so read its ``True`` as "may share" and, in memory mapped
# once, its ``False`` as "shares nothing". The byte ranges cannot tell interleaved views from
# overlapping ones; a write can, and so can NumPy's exact ``np.shares_memory`` for CPU tensors that
# NumPy takes: it gave the write test's answer on every pair so far.

evens, odds = flat[::2], flat[1::2]
print("same storage:", same_storage(evens, odds))
print("byte ranges overlap:", shares_memory(evens, odds))
print("write through evens reaches odds:", write_test(evens, odds))
print("np.shares_memory:", np.shares_memory(evens.numpy(), odds.numpy()))
assert shares_memory(evens, odds) and not write_test(evens, odds), "overlapping ranges, no common element"
# sphinx_gallery_start_ignore
assert same_storage(evens, odds), "the usual test says True on the interleaved halves"
# sphinx_gallery_end_ignore
pairs["flat[::2], flat[1::2]"] = (evens, odds)
agree = [np.shares_memory(a.numpy(), b.numpy()) == write_test(a, b) for a, b in pairs.values()]
print("np.shares_memory gives the write test's answer:", sum(agree), "of", len(agree), "pairs")
assert all(agree), "NumPy's exact test agrees with the write test on every pair"

# %%
# Clone only when a batch may share the dataset's memory
# ------------------------------------------------------
#
# A pipeline normalises each batch in place, to save memory, and must never write into the dataset
# ``data`` (:ref:`questions-function-arguments` shows a ``Dataset`` whose items are views, and what
# such an edit does to it). Batches come three ways: a slice of ``data`` (a view), rows picked by a list of indices (a
# copy), and a slice taken through NumPy (an alias with a storage of its own). ``normalize`` clones a
# batch only when ``shares_memory`` says it may share ``data``'s memory. Over three epochs every batch
# comes out normalised, ``data`` stays as it was, and the batches picked by indices are never
# cloned.

data = torch.arange(12.0).reshape(6, 2)
original = data.clone()
mean, std = data.mean(0), data.std(0)
expected = (data - mean) / std
loaders = {
    "data[i : i + 2]": lambda i: data[i : i + 2],
    "data[[i, i + 1]]": lambda i: data[[i, i + 1]],
    "torch.from_numpy(data.numpy()[i : i + 2])": lambda i: torch.from_numpy(data.numpy()[i : i + 2]),
}


def normalize(batch, data):
    if shares_memory(batch, data):
        batch = batch.clone()
    return batch.sub_(mean).div_(std)


clones = {}
for name, take in loaders.items():
    clones[name] = 0
    for epoch in range(3):
        for i in (0, 2, 4):
            batch = take(i)
            clones[name] += shares_memory(batch, data)
            assert torch.allclose(normalize(batch, data), expected[i : i + 2]), f"{name}, epoch {epoch}: normalised"
    print(f"{name:<42} clones: {clones[name]}  data unchanged: {torch.equal(data, original)}")
assert torch.equal(data, original) and list(clones.values()) == [9, 0, 9], "data kept; the copies are not cloned"

# %%
# With the usual test in place of ``shares_memory``, one epoch of the NumPy batches clones only the
# batch of rows 0 and 1, whose storage starts where ``data``'s does. The batches of rows 2 to 5 are
# normalised inside ``data`` itself.


def normalize_if_same_storage(batch, data):
    if same_storage(batch, data):
        batch = batch.clone()
    return batch.sub_(mean).div_(std)


for i in (0, 2, 4):
    normalize_if_same_storage(torch.from_numpy(data.numpy()[i : i + 2]), data)
changed_rows = [row for row in range(6) if not torch.equal(data[row], original[row])]
print("data unchanged:", torch.equal(data, original))
print("rows of data changed:", changed_rows)
assert changed_rows == [2, 3, 4, 5], "rows 2 to 5 were normalised in place, in data"
# sphinx_gallery_start_ignore
through_numpy = loaders["torch.from_numpy(data.numpy()[i : i + 2])"]
assert [same_storage(through_numpy(i), data) for i in (0, 2, 4)] == [True, False, False], "rows 0 and 1 start where data does"
# sphinx_gallery_end_ignore

# %%
# A second mapping: batches from a forked worker
# ----------------------------------------------
#
# Put a fresh ``data`` in shared memory (``share_memory_()``, the fix :ref:`questions-processes`
# gives so that a forked worker's edits reach this process), and let a ``DataLoader`` with one forked
# worker hand out the same three slices, unbatched (``batch_size=None``). Each batch arrives as a
# second mapping of ``data``'s memory: its byte range lies outside ``data``'s, and
# ``np.shares_memory`` answers ``False`` too, yet the write test reaches ``data``. ``normalize``
# trusts that ``False`` and normalises ``data`` itself; cloning every batch, with no test, leaves
# ``data`` as it was. ``DataLoader`` installs a ``SIGCHLD`` handler when it starts its first worker from a
# process's main thread, and none at later ones; the cell puts back the handler it found, and leaves no child
# running. :fact:`dataloader-sigchld-handler-once`

import signal

import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

ctx = mp.get_context("fork")
TIMEOUT = 10  # seconds; no wait for the worker may last longer
sigchld_before = signal.getsignal(signal.SIGCHLD)
# sphinx_gallery_start_ignore
from torch.utils.data._utils import signal_handling  # noqa: E402

sigchld_handler_was_set = signal_handling._SIGCHLD_handler_set
# sphinx_gallery_end_ignore


class Pairs(Dataset):
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.data[2 * i : 2 * i + 2]


data = original.clone().share_memory_()
loader = DataLoader(Pairs(data), batch_size=None, num_workers=1, multiprocessing_context=ctx, timeout=TIMEOUT)
overlap, numpy_says, reached = [], [], []
for batch in loader:
    overlap.append(shares_memory(batch, data))
    numpy_says.append(np.shares_memory(batch.numpy(), data.numpy()))
    reached.append(write_test(batch, data))
print("byte ranges overlap:", overlap, " np.shares_memory:", numpy_says, " write reaches data:", reached)
assert not any(overlap + numpy_says) and all(reached), "each batch: both tests answer False, yet a write reaches data"
for batch in loader:
    normalize(batch, data)
print("after normalize(): data unchanged:", torch.equal(data, original))
assert torch.allclose(data, expected), "normalize() trusted the False and normalised data itself"
data.copy_(original)
cloned = [batch.clone().sub_(mean).div_(std) for batch in loader]
print("after cloning every batch: data unchanged:", torch.equal(data, original))
assert torch.equal(data, original) and torch.allclose(torch.cat(cloned), expected), "cloning every batch keeps data"
# sphinx_gallery_start_ignore
assert signal_handling._SIGCHLD_handler_set and (
    signal.getsignal(signal.SIGCHLD) is sigchld_before if sigchld_handler_was_set
    else signal.getsignal(signal.SIGCHLD).__module__ == signal_handling.__name__
), "DataLoader installed its SIGCHLD handler at the first worker it started in this process, and none at later ones"
# sphinx_gallery_end_ignore
signal.signal(signal.SIGCHLD, sigchld_before)
print("children still running:", mp.active_children())
# sphinx_gallery_start_ignore
assert "fork" in mp.get_all_start_methods(), "this platform has the fork start method"
assert data.is_shared(), "data is in shared memory"
assert mp.active_children() == [], "every child process has ended"
assert signal.getsignal(signal.SIGCHLD) is sigchld_before, "the cell put back the SIGCHLD handler it found"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Equal storage starts mean storages that begin at one address (one storage, or an alias at offset 0
# with a storage of its own, such as one made of a slice at offset 0 through DLPack, NumPy or
# ``frombuffer``, or a tensor on a slice of ``untyped_storage()`` that starts at 0): on the CPU, with
# tensors that are not empty, a view, a row,
# a transpose and an expanded column of ``x`` shared its memory, but two halves of one storage shared
# no element. Different starts did not rule sharing out: aliases made through DLPack, NumPy and
# ``torch.frombuffer`` had storages of their own inside ``x``'s and saw its writes. Comparing the byte
# ranges the elements reach gave the write test's answer on every pair of memory mapped once but the
# interleaved views ``flat[::2]`` and ``flat[1::2]``, where it says "may share" and a write (or
# ``np.shares_memory``) says no. A ``shares_memory`` that answers "may share" is enough to decide when
# to clone before an in-place edit: the pipeline above kept its dataset intact, and cloned none of the
# batches that were copies already. Where a batch can be a second mapping of the dataset's memory (a
# file mapped twice, or a dataset tensor in shared memory whose views a forked worker returns), a
# ``False`` proves nothing: clone every batch, as the last cell did.
# :fact:`file-mapped-twice-shares-bytes`
