"""
.. _questions-processes:

A forked ``DataLoader`` worker's edit is lost: tensors between processes
========================================================================

.. admonition:: Answer
   :class: answer

   Under ``fork``, a child process edits its own copy of a tensor unless its storage is shared, as with
   ``from_file(..., shared=True)``; with ``shared=False`` it is not, though ``is_shared()`` says ``True``. For
   a tensor torch allocated, call ``share_memory_()`` before the workers start:

   .. code-block:: python

      dataset.visits.share_memory_()
      loader = DataLoader(dataset, num_workers=1, multiprocessing_context="fork", timeout=10)

A dataset that counts how often each item was read counts nothing when the ``DataLoader``'s workers
are started with ``fork`` (the default on Linux before Python 3.14, as the Python documentation says, and the
default of the site's build); under ``spawn`` and ``forkserver``
the pickling that sends the dataset to the workers moves the dense CPU tensors (layout ``torch.strided``, neither
nested nor quantized) that torch allocated into shared memory, unless their storage is empty under the ``file_descriptor`` sharing strategy, Linux's
default (checked below: the count under ``fork``, and the pickling, run in this process on a few tensors). A tensor handed to another process is sometimes a copy, sometimes shared. This page
starts real child processes: a worker that edits the dataset, a child that edits a tensor it
inherited (allocated by torch, or from two of the other sources), one that edits a tensor sent through a queue, what a queue does with a tensor it cannot
send, and the fix in a two-epoch loop. Every wait for a child has a time limit, and every child has ended when
the page ends.
"""

# %%
# Helpers
# -------
#
# The children on this page are started with the ``fork`` method, on purpose: a forked child is a
# copy of this process, so it runs the functions defined on this page (in a notebook too) without
# importing anything. The Python documentation says which platforms have ``fork`` and how the
# other methods find a child's function (`contexts and start methods
# <https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods>`__).
# ``run`` starts one child, waits for it at most ``TIMEOUT`` seconds, and checks it ended well.
# ``send_to_child`` starts a child that takes one tensor from a queue and edits it (below), sends it
# ``t``, and returns the child's first ``replies`` answers and its exit code.
#
# A forked child gets this process's memory but not its threads. After a process has used two of
# torch's threads, a child forked from it that adds one to four million numbers hangs: it is still
# running 5 s later. A child that first calls ``torch.set_num_threads(1)`` ends, and a ``DataLoader``
# worker runs with one thread; ``add_one`` and ``edit_from_queue`` make that call first too.
# :fact:`forked-child-needs-one-thread`

import signal
import sys
import tempfile
from multiprocessing import resource_sharer
from multiprocessing.reduction import ForkingPickler

import numpy as np
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

ctx = mp.get_context("fork")
TIMEOUT = 10  # seconds; no wait for a child on this page may last longer
workers = {"multiprocessing_context": ctx, "timeout": TIMEOUT}
sigchld_before = signal.getsignal(signal.SIGCHLD)


def run(target, *args):
    child = ctx.Process(target=target, args=args)
    child.start()
    child.join(TIMEOUT)
    if child.is_alive():
        child.terminate()
        child.join(TIMEOUT)
        raise TimeoutError(f"{target.__name__} did not end within {TIMEOUT} s")
    if child.exitcode != 0:
        raise RuntimeError(f"{target.__name__} failed in the child, exit code {child.exitcode}")


def add_one(t):
    torch.set_num_threads(1)  # this child's own thread count: see above
    t.add_(1)


def send_to_child(t, replies):
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=edit_from_queue, args=(inbox, outbox))
    child.start()
    inbox.put(t)
    answers = [outbox.get(timeout=TIMEOUT) for _ in range(replies)]
    child.join(TIMEOUT)
    for queue in (inbox, outbox):
        queue.close()
        queue.join_thread()
    return answers, child.exitcode


# sphinx_gallery_start_ignore
assert "fork" in mp.get_all_start_methods(), "this platform has the fork start method"
from torch.utils.data._utils import signal_handling  # noqa: E402

sigchld_handler_was_set = signal_handling._SIGCHLD_handler_set
assert resource_sharer._resource_sharer._thread is None, "no listener thread runs before a tensor is put on a queue"
# sphinx_gallery_end_ignore


class Visits(Dataset):
    """Four items; each read adds one to that item's count in ``self.visits``."""

    def __init__(self):
        self.data = torch.arange(4.0)
        self.visits = torch.zeros(4)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        self.visits[i] += 1
        return self.data[i]


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
# Read every item once. Without workers (``num_workers=0``) the reads happen in this process and
# the counts are ``1``. With one worker, the batches arrive as before, but the counts in this
# process stay ``0``: the worker counted in its own copy of ``visits``.

dataset = Visits()
batches = list(DataLoader(dataset, batch_size=2))
print("num_workers=0: batches:", batches, " visits:", dataset.visits)
# sphinx_gallery_start_ignore
assert torch.equal(dataset.visits, torch.ones(4)), "without workers every read is counted once, in this process"
# sphinx_gallery_end_ignore
dataset = Visits()
batches = list(DataLoader(dataset, batch_size=2, num_workers=1, **workers))
print("num_workers=1: batches:", batches, " visits:", dataset.visits)
assert torch.equal(torch.cat(batches), dataset.data) and not dataset.visits.any(), "the edit stayed in the worker"
# sphinx_gallery_start_ignore
assert sys.version_info < (3, 14) and mp.get_all_start_methods()[0] == "fork", (
    "this Python is older than 3.14 and its default start method is fork")
# sphinx_gallery_end_ignore

# %%
# A forked child edits its own copy
# ---------------------------------
#
# A forked child starts with the parent's memory, but the pages it writes become its own, so an
# edit in the child does not reach the parent. For a tensor torch allocated, ``share_memory_()``
# moves its storage into shared memory; a child forked after that writes into the same memory as the
# parent.

plain = torch.zeros(3)
run(add_one, plain)
shared = torch.zeros(3).share_memory_()
run(add_one, shared)
print("plain:", plain, " plain.is_shared():", plain.is_shared())
print("shared:", shared, " shared.is_shared():", shared.is_shared())
assert not plain.any() and torch.equal(shared, torch.ones(3)), "only the shared tensor took the child's edit"

# %%
# .. figure-caption::
#    :alt: Diagram: this process and the forked child. plain, not shared, is on storage S1 in this process, and the child has a copy of S1 of its own; shared is on storage S2 in shared memory, which this process and the child both point to.
#
#    ``plain`` is on storage ``S1`` of this process; the child forked with a copy of ``S1`` of its own,
#    and its ``add_one`` wrote there. ``shared`` is on ``S2``, in shared memory: this process and the
#    child write into one storage, and this process sees the child's edit.

draw_processes("run(add_one, plain); run(add_one, shared)", "add_one(t)", plain=plain, shared=shared)
# sphinx_gallery_start_ignore
assert not plain.is_shared() and shared.is_shared(), "plain is in this process's own memory, shared in shared memory"
# sphinx_gallery_end_ignore

# %%
# Tensors from other sources can behave differently; two examples. ``share_memory_()`` moves the storage of a
# tensor made by ``torch.from_numpy(array)`` too: the child's edit reaches the tensor, but the tensor
# no longer shares memory with ``array``, which stays as it was. A tensor read from a file by
# ``torch.from_file(path, shared=False)`` already reports ``is_shared()`` as ``True``, and under the default
# sharing strategy on Linux, ``file_descriptor``, ``share_memory_()`` leaves its storage where it is: the
# child's edit is lost (the other strategy, ``file_system``, is not run here). One read with
# ``shared=True`` is shared with the child: its edit reaches the parent. ``is_shared()`` is no test
# the other way either: a tensor on a NumPy array mapped from a file for writing
# (``np.memmap(path, mode="r+")``) reports ``False``, and the child's edit reaches the parent. (What several
# processes writing into one shared tensor need, a lock, is on :ref:`questions-shared-memory`.)

array = np.zeros(3, dtype=np.float32)
from_numpy = torch.from_numpy(array)
from_numpy.share_memory_()
run(add_one, from_numpy)
print("from_numpy:", from_numpy, " array:", array)
assert torch.equal(from_numpy, torch.ones(3)) and not array.any(), "the child's edit reached the tensor, not array"
# sphinx_gallery_start_ignore
assert from_numpy.is_shared() and not np.shares_memory(array, from_numpy.numpy()), "the move left array behind"
# sphinx_gallery_end_ignore
with tempfile.TemporaryDirectory() as folder:
    torch.zeros(3).numpy().tofile(f"{folder}/zeros.bin")
    from_file = torch.from_file(f"{folder}/zeros.bin", shared=False, size=3)
    shared_before = from_file.is_shared()
    print("from_file.is_shared() before share_memory_():", shared_before)
    storage_before = from_file.untyped_storage().data_ptr()
    from_file.share_memory_()
    run(add_one, from_file)
    print("storage moved:", from_file.untyped_storage().data_ptr() != storage_before, " from_file:", from_file)
    assert shared_before and from_file.untyped_storage().data_ptr() == storage_before and not from_file.any(), \
        "shared already, left where it was, the child's edit lost"
    shared_file = torch.from_file(f"{folder}/zeros.bin", shared=True, size=3)
    run(add_one, shared_file)
    print("from_file(shared=True) after the child:", shared_file)
    assert torch.equal(shared_file, torch.ones(3)), "shared=True: the child's edit reached the parent"
    torch.zeros(3).numpy().tofile(f"{folder}/mapped.bin")
    mapped = torch.from_numpy(np.memmap(f"{folder}/mapped.bin", dtype=np.float32, mode="r+", shape=(3,)))
    mapped_shared = mapped.is_shared()
    run(add_one, mapped)
    print("memmap: is_shared():", mapped_shared, " after the child:", mapped)
    assert not mapped_shared and torch.equal(mapped, torch.ones(3)), "is_shared() False, the child's edit reached it"
    del mapped
# sphinx_gallery_start_ignore
assert mp.get_sharing_strategy() == "file_descriptor", "share_memory_() ran under the default strategy on Linux"
# sphinx_gallery_end_ignore

# %%
# A tensor sent through a queue is shared, not copied
# ---------------------------------------------------
#
# Sending a dense CPU tensor that torch allocated, with a storage that is not empty, through a
# ``torch.multiprocessing`` queue puts its storage in shared memory and hands the receiver a tensor on that memory. (A tensor made by
# ``torch.from_numpy(array)`` arrives too, but, as with ``share_memory_()`` above, its storage
# moves away from ``array``, which misses the child's edit; one that ``torch.from_file`` maps from a file of
# three floats, with ``shared=False`` or ``shared=True``, does not arrive under the default sharing strategy on Linux, see below.) The child below takes ``sent`` from its inbox, adds
# one, and answers through its outbox; the parent sees the edit. A leaf that requires grad arrives
# still requiring grad, so the child's ``add_(1)`` raises; under ``torch.no_grad()`` the same edit
# runs and reaches the sender too.


def edit_from_queue(inbox, outbox):
    torch.set_num_threads(1)  # this child's own thread count, as in add_one
    t = inbox.get(timeout=TIMEOUT)
    try:
        t.add_(1)
    except RuntimeError as e:
        outbox.put(f"{type(e).__name__}: {e}")
        with torch.no_grad():
            t.add_(1)
    outbox.put(t.is_shared())


sent = torch.zeros(3)
# sphinx_gallery_start_ignore
sent_address = sent.untyped_storage().data_ptr()
# sphinx_gallery_end_ignore
print("before: sent.is_shared():", sent.is_shared())
(in_child,), exitcode = send_to_child(sent, 1)
print("in the child, is_shared():", in_child, " child.exitcode:", exitcode)
print("after: sent:", sent, " sent.is_shared():", sent.is_shared())
assert torch.equal(sent, torch.ones(3)) and sent.is_shared(), "the child's edit reached the sender"
# sphinx_gallery_start_ignore
assert in_child and exitcode == 0, "the child got a shared tensor and ended"
assert sent.untyped_storage().data_ptr() != sent_address, "sending moved sent's storage to new memory"
# sphinx_gallery_end_ignore
array = np.zeros(3, dtype=np.float32)
from_numpy = torch.from_numpy(array)
(in_child,), exitcode = send_to_child(from_numpy, 1)
print("from_numpy sent:", from_numpy, " array:", array, " child.exitcode:", exitcode)
assert torch.equal(from_numpy, torch.ones(3)) and not array.any(), "the edit reached the tensor, not array"
# sphinx_gallery_start_ignore
assert in_child and exitcode == 0, "the from_numpy tensor arrived, shared, and the child ended"
assert from_numpy.is_shared() and not np.shares_memory(array, from_numpy.numpy()), (
    "the shared from_numpy tensor's storage is no longer array's memory")
# sphinx_gallery_end_ignore
leaf = torch.zeros(3, requires_grad=True)
(refused, in_child), exitcode = send_to_child(leaf, 2)
print("a leaf that requires grad, in the child:", refused)
print("after the edit under no_grad(): leaf:", leaf, " child.exitcode:", exitcode)
assert refused.startswith("RuntimeError: a leaf Variable that requires grad"), "the leaf refused add_ in the child"
assert torch.equal(leaf.detach(), torch.ones(3)) and in_child, "the edit under no_grad() reached the sender"

# %%
# The conjugate and negative bits are not sent. The receiver of ``z.conj()`` or ``z.conj().imag``
# gets a tensor on the same memory without the bit, so it reads the unconjugated or unnegated values;
# below, the child's ``add_(1)`` subtracts one from what the sender reads. Send ``resolve_conj()`` or
# ``resolve_neg()`` of such a tensor, a copy, instead.

z = torch.tensor([1 + 2j, 3 - 4j])
negated = z.conj().imag
before = negated.clone()
print("negated:", negated, " negated.is_neg():", negated.is_neg())
(in_child,), exitcode = send_to_child(negated, 1)
print("after the child's add_(1): negated:", negated, " child.exitcode:", exitcode)
assert torch.equal(negated, before - 1), "the child's add_(1) subtracted one from what the sender reads"
# sphinx_gallery_start_ignore
assert in_child and exitcode == 0, "z.conj().imag arrived, shared, and the child ended"
arrived_conj = ForkingPickler.loads(ForkingPickler.dumps(z.conj()))
arrived_neg = ForkingPickler.loads(ForkingPickler.dumps(negated))
assert not arrived_conj.is_conj() and torch.equal(arrived_conj, z), (
    "the receiver of z.conj() reads z's values, without the conjugate bit")
assert not arrived_neg.is_neg() and torch.equal(arrived_neg, -negated), (
    "the receiver of z.conj().imag reads the unnegated values, without the negative bit")
assert torch.equal(ForkingPickler.loads(ForkingPickler.dumps(z.conj().resolve_conj())), z.conj()) and torch.equal(
    ForkingPickler.loads(ForkingPickler.dumps(negated.resolve_neg())), negated), (
    "resolve_conj() and resolve_neg() send the values the sender reads")
# sphinx_gallery_end_ignore

# %%
# A non-leaf that requires grad never arrives through a queue
# -----------------------------------------------------------
#
# A non-leaf that requires grad cannot be sent through a queue: ``ForkingPickler``, which the
# queues pickle with, refuses it. ``Queue.put`` does not raise: it hands the tensor to a feeder
# thread, which pickles in the background, drops the item and passes the error to the queue's
# ``_on_queue_feeder_error``, an internal hook that this page replaces to keep the error, since no
# exception reaches the caller. The next item put, ``torch.ones(3)``, is the first to come out.
# ``SimpleQueue.put`` pickles in the caller, and raises there.

non_leaf = torch.zeros(3, requires_grad=True) * 2
queue, feeder_errors = ctx.Queue(), []
queue._on_queue_feeder_error = lambda e, item: feeder_errors.append(e)
queue.put(non_leaf)
queue.put(torch.ones(3))
first = queue.get(timeout=TIMEOUT)
queue.close()
queue.join_thread()
print("Queue.put returned; the first item out:", first)
print("the feeder thread's error:", *(f"{type(e).__name__}: {e}" for e in feeder_errors))
assert torch.equal(first, torch.ones(3)) and len(feeder_errors) == 1, "put returned, and the non-leaf was dropped"
assert str(feeder_errors[0]).startswith("Cowardly refusing to serialize non-leaf tensor which requires_grad"), (
    "the feeder thread's error: 'Cowardly refusing to serialize non-leaf tensor ...'")
simple = ctx.SimpleQueue()
try:
    simple.put(non_leaf)
except RuntimeError as e:
    print(f"SimpleQueue.put: {type(e).__name__}: {e}")
else:
    raise AssertionError("SimpleQueue.put of a non-leaf that requires grad must raise in the caller")
simple.close()

# %%
# Under the default sharing strategy on Linux, ``file_descriptor`` (``mp.get_sharing_strategy()``),
# a tensor made by ``torch.from_file(path, shared=False, size=3)`` never arrives either, nor one made with
# ``shared=True``, the kind the answer above shares with a forked child: pickling it fails in the feeder
# thread with ``OSError``, and the queue drops it the same way. Other sizes and dtypes, and the other
# strategy, ``file_system``, are not run here.

with tempfile.TemporaryDirectory() as folder:
    torch.zeros(3).numpy().tofile(f"{folder}/zeros.bin")
    feeder_errors = []
    for shared in (False, True):
        feeder_errors.clear()
        from_file = torch.from_file(f"{folder}/zeros.bin", shared=shared, size=3)
        queue = ctx.Queue()
        queue._on_queue_feeder_error = lambda e, item: feeder_errors.append(e)
        queue.put(from_file)
        queue.put(torch.ones(3))
        first = queue.get(timeout=TIMEOUT)
        queue.close()
        queue.join_thread()
        print(f"from_file(shared={shared}): the first item out:", first)
        print("the feeder thread's error:", *(f"{type(e).__name__}: {e}" for e in feeder_errors))
        assert torch.equal(first, torch.ones(3)) and len(feeder_errors) == 1 and isinstance(feeder_errors[0], OSError), (
            f"the queue dropped from_file(shared={shared})")
# sphinx_gallery_start_ignore
assert mp.get_sharing_strategy() == "file_descriptor", "the queue ran under the default strategy on Linux"
# sphinx_gallery_end_ignore

# %%
# The fix, over two epochs
# ------------------------
#
# Put ``visits`` in shared memory before the loader starts its worker. The worker inherits the
# shared storage, and its counts reach this process: after two epochs every item was read twice.

dataset = Visits()
dataset.visits.share_memory_()
loader = DataLoader(dataset, num_workers=1, multiprocessing_context="fork", timeout=10)
for epoch in range(2):
    seen = [batch for batch in loader]
    print(f"epoch {epoch}: items:", torch.cat(seen), " visits:", dataset.visits)
assert torch.equal(dataset.visits, torch.full((4,), 2.0)), "the workers' counts reached this process"

# %%
# Under ``spawn`` and ``forkserver``
# ----------------------------------
#
# Under the other start methods a worker does not start as a copy of the parent: the dataset is
# pickled and sent to it, with the pickler the queues use
# (``multiprocessing.reduction.ForkingPickler``). Once torch is imported, that pickler moves the
# storage of a dense CPU tensor torch allocated into shared memory, unless the storage is empty (under the
# ``file_descriptor`` sharing strategy, Linux's default), and drops its conjugate or
# negative bit, as sending through a queue did above. The storage decides, not the tensor: pickling an empty view
# such as ``t[:0]`` moves all of ``t``'s storage into shared memory. So under ``spawn``
# and ``forkserver`` (by the Python documentation's `contexts and start methods
# <https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods>`__, the first is
# the default on macOS and Windows, the second the default on Linux from Python 3.14) the
# dataset's dense CPU tensors (layout ``torch.strided``, neither nested nor quantized) that torch
# allocated, with a storage that is not empty, reach the workers in shared memory (a non-leaf that
# requires grad stops at the pickler, as it did at ``SimpleQueue.put``), and a worker's edit of them is
# expected to reach the parent as the queue child's did, without ``share_memory_()``. This page starts no such
# worker; the cell below checks what the pickling does to a few tensors. The move gives the tensor new
# memory, and the old memory may have been freed: a NumPy array taken before it still points there,
# so it may dangle, and reading or writing through it is undefined.
# Take such handles after ``share_memory_()``, or after the workers start.

pickled = torch.zeros(3)
as_array = pickled.numpy()
old_address = pickled.untyped_storage().data_ptr()
ForkingPickler.dumps(pickled)
print("pickled.is_shared():", pickled.is_shared())
print("storage moved:", pickled.untyped_storage().data_ptr() != old_address)
print("as_array still at the old address:", as_array.__array_interface__["data"][0] == old_address)
assert pickled.is_shared() and pickled.untyped_storage().data_ptr() != old_address, "pickling moves it to shared memory"
# sphinx_gallery_start_ignore
assert as_array.__array_interface__["data"][0] == old_address, "an array taken before keeps the old address"
shared_address = pickled.untyped_storage().data_ptr()
ForkingPickler.dumps(pickled)
assert pickled.untyped_storage().data_ptr() == shared_address, (
    "pickling a tensor already in shared memory leaves its storage where it is")
viewed_base = torch.zeros(3)
ForkingPickler.dumps(viewed_base[:0])
assert viewed_base[:0].numel() == 0 and viewed_base.is_shared(), (
    "pickling an empty view of a tensor moves the tensor's whole storage to shared memory")
empty_storage = torch.zeros(0)
ForkingPickler.dumps(empty_storage)
assert empty_storage.untyped_storage().nbytes() == 0 and not empty_storage.is_shared(), (
    "pickling a tensor whose storage is empty leaves it out of shared memory")
with torch.inference_mode():
    pickled_inference = torch.zeros(3)
pickled_kinds = [torch.zeros(3, dtype=dtype) for dtype in (torch.float16, torch.bfloat16, torch.float8_e4m3fn,
                                                           torch.int64, torch.uint8, torch.bool, torch.complex64)] + [
    torch.zeros(3, dtype=torch.complex64).conj(), torch.zeros(()), torch.zeros(2, 3).t(),
    torch.zeros(3, requires_grad=True), torch.nn.Parameter(torch.zeros(3)), pickled_inference]
pickled_received = [ForkingPickler.loads(ForkingPickler.dumps(pickled_kind)) for pickled_kind in pickled_kinds]
assert all(pickled_kind.is_shared() and received.is_shared() and received.tolist() == pickled_kind.tolist()
           for pickled_kind, received in zip(pickled_kinds, pickled_received, strict=True)), (
    "pickling moves a dense CPU tensor torch allocated into shared memory, and what is unpickled is in shared memory, "
    "for seven dtypes, a conjugate view, no dimension, a transposed view, a leaf that requires grad, a Parameter and "
    "an inference tensor")
assert torch.multiprocessing.get_sharing_strategy() == "file_descriptor", (
    "these pickling checks ran under the file_descriptor sharing strategy")
# sphinx_gallery_end_ignore

# %%
# Every child has ended
# ---------------------
#
# ``mp.active_children()`` lists the children of this process that are still running. The page
# leaves none behind. It also undoes the two things the parent process kept: under the default sharing
# strategy, ``file_descriptor``, sending a tensor through a queue started the listener thread of
# ``multiprocessing``'s ``resource_sharer`` (``resource_sharer.stop()`` ends it), and ``DataLoader``
# installs a ``SIGCHLD`` handler when it starts its first worker from a process's main thread (put back as it
# was). :fact:`dataloader-sigchld-handler-once`

# sphinx_gallery_start_ignore
assert mp.get_sharing_strategy() == "file_descriptor" and resource_sharer._resource_sharer._thread.is_alive(), (
    "under the file_descriptor strategy, sending tensors through queues started resource_sharer's listener thread")
assert signal_handling._SIGCHLD_handler_set and (
    signal.getsignal(signal.SIGCHLD) is sigchld_before if sigchld_handler_was_set
    else signal.getsignal(signal.SIGCHLD).__module__ == signal_handling.__name__
), "DataLoader installed its SIGCHLD handler at the first worker it started in this process, and none at later ones"
# sphinx_gallery_end_ignore
resource_sharer.stop()
signal.signal(signal.SIGCHLD, sigchld_before)
print("children still running:", mp.active_children())
assert mp.active_children() == [], "every child process has ended"
# sphinx_gallery_start_ignore
assert signal.getsignal(signal.SIGCHLD) is sigchld_before and resource_sharer._resource_sharer._thread is None, (
    "the cell put the SIGCHLD handler back and ended the listener thread")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# A forked child, and so a ``DataLoader`` worker started with the ``fork`` method, starts with a
# copy of every CPU tensor torch allocated that is not in shared memory, and its edits stay in that copy. A tensor torch
# allocated, moved into shared memory by ``share_memory_()`` or by being sent through a
# ``torch.multiprocessing`` queue, is one memory that the parent that moved it shares with the children it
# forks after the move and the processes it sends the tensor to, so their edits
# reach the parent (a leaf that requires grad takes them under ``torch.no_grad()``, not with grad mode on, outside
# ``torch.inference_mode()``). :fact:`leaf-refuses-inplace` A
# ``torch.from_numpy`` tensor moved by ``share_memory_()`` no longer shares memory with its array,
# and, under the default sharing strategy on Linux, a ``torch.from_file(path, shared=False)`` tensor is not moved, so a forked child's edits of it
# are lost. A non-leaf
# that requires grad is not sent at all: ``Queue.put`` returns and its feeder thread drops it, while
# ``SimpleQueue.put`` raises. Share what the workers must update, and return everything else from
# ``__getitem__``.
#
# This page starts children with the ``fork`` method only. Under ``spawn`` (by the Python
# documentation, the default on macOS and Windows) and ``forkserver`` (by the same, the default on
# Linux from Python 3.14) the dataset is pickled for
# each worker, which moves the dense CPU tensors torch allocated into shared memory, unless their storage is
# empty under the ``file_descriptor`` sharing strategy (as shown above); that a worker's edits then reach the
# parent is not run here: check ``visits`` on the platform you run.
