"""
.. _questions-processes:

A forked ``DataLoader`` worker's edit is lost: tensors between processes
========================================================================

.. admonition:: Answer
   :class: answer

   Under ``fork``, a child such as a ``DataLoader`` worker edits its own copy of a tensor unless it
   is in shared memory; a ``torch.multiprocessing`` queue moves what it sends there, so the
   receiver's edits reach the sender (under ``no_grad()`` for a leaf that requires grad; a non-leaf
   that requires grad is not sent). Share it before the workers start:

   .. code-block:: python

      dataset.visits.share_memory_()
      loader = DataLoader(dataset, num_workers=1, multiprocessing_context="fork", timeout=10)

A dataset that counts how often each item was read counts nothing when the ``DataLoader`` has
workers, and a tensor handed to another process is sometimes a copy, sometimes shared. This page
starts real child processes: a worker that edits the dataset, a child that edits a tensor it
inherited, one that edits a tensor sent through a queue, what a queue does with a tensor it cannot
send, and the fix in a two-epoch loop. Every wait has a time limit, and every child has ended when
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
# ``t``, and returns the child's ``replies`` answers and its exit code.

import signal
from multiprocessing import resource_sharer

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

ctx = mp.get_context("fork")
TIMEOUT = 10  # seconds; no wait on this page may last longer
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
# The symptom
# -----------
#
# Read every item once. Without workers (``num_workers=0``) the reads happen in this process and
# the counts are ``1``. With one worker, the batches arrive as before, but the counts in this
# process stay ``0``: the worker counted in its own copy of ``visits``.

dataset = Visits()
batches = list(DataLoader(dataset, batch_size=2))
print("num_workers=0: batches:", batches, " visits:", dataset.visits)
dataset = Visits()
batches = list(DataLoader(dataset, batch_size=2, num_workers=1, **workers))
print("num_workers=1: batches:", batches, " visits:", dataset.visits)
assert torch.equal(torch.cat(batches), dataset.data) and not dataset.visits.any(), "the edit stayed in the worker"

# %%
# A forked child edits its own copy
# ---------------------------------
#
# A forked child starts with the parent's memory, but the pages it writes become its own, so an
# edit in the child does not reach the parent. ``share_memory_()`` moves a tensor's storage into
# shared memory; a child forked after that writes into the same memory as the parent.

plain = torch.zeros(3)
run(add_one, plain)
shared = torch.zeros(3).share_memory_()
run(add_one, shared)
print("plain:", plain, " plain.is_shared():", plain.is_shared())
print("shared:", shared, " shared.is_shared():", shared.is_shared())
assert not plain.any() and torch.equal(shared, torch.ones(3)), "only the shared tensor took the child's edit"

# %%
# A tensor sent through a queue is shared, not copied
# ---------------------------------------------------
#
# Sending a tensor through a ``torch.multiprocessing`` queue puts its storage in shared memory and
# hands the receiver a tensor on that memory. The child below takes ``sent`` from its inbox, adds
# one, and answers through its outbox; the parent sees the edit. A leaf that requires grad arrives
# still requiring grad, so the child's ``add_(1)`` raises; under ``torch.no_grad()`` the same edit
# runs and reaches the sender too.


def edit_from_queue(inbox, outbox):
    t = inbox.get(timeout=TIMEOUT)
    try:
        t.add_(1)
    except RuntimeError as e:
        outbox.put(f"{type(e).__name__}: {e}")
        with torch.no_grad():
            t.add_(1)
    outbox.put(t.is_shared())


sent = torch.zeros(3)
print("before: sent.is_shared():", sent.is_shared())
(in_child,), exitcode = send_to_child(sent, 1)
print("in the child, is_shared():", in_child, " child.exitcode:", exitcode)
print("after: sent:", sent, " sent.is_shared():", sent.is_shared())
assert torch.equal(sent, torch.ones(3)) and sent.is_shared(), "the child's edit reached the sender"
# sphinx_gallery_start_ignore
assert in_child and exitcode == 0, "the child got a shared tensor and ended"
# sphinx_gallery_end_ignore
leaf = torch.zeros(3, requires_grad=True)
(refused, in_child), exitcode = send_to_child(leaf, 2)
print("a leaf that requires grad, in the child:", refused)
print("after the edit under no_grad(): leaf:", leaf, " child.exitcode:", exitcode)
assert refused.startswith("RuntimeError: a leaf Variable that requires grad"), "the leaf refused add_ in the child"
assert torch.equal(leaf.detach(), torch.ones(3)) and in_child, "the edit under no_grad() reached the sender"

# %%
# A non-leaf that requires grad never arrives
# -------------------------------------------
#
# A non-leaf that requires grad cannot cross to another process: ``ForkingPickler``, which the
# queues pickle with, refuses it. ``Queue.put`` does not raise: it hands the tensor to a feeder
# thread, which pickles in the background, drops the item and passes the error to the queue's
# ``_on_queue_feeder_error``, an internal hook that this page replaces to keep the error, since the
# caller never sees it. The next item put, ``torch.ones(3)``, is the first to come out.
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
assert str(feeder_errors[0]).startswith("Cowardly refusing to serialize non-leaf tensor which requires_grad"), "why"
simple = ctx.SimpleQueue()
try:
    simple.put(non_leaf)
except RuntimeError as e:
    print(f"SimpleQueue.put: {type(e).__name__}: {e}")
else:
    raise AssertionError("SimpleQueue.put of a non-leaf that requires grad must raise in the caller")
simple.close()

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
# (``multiprocessing.reduction.ForkingPickler``). Once torch is imported, that pickler moves a
# tensor's storage into shared memory, as sending through a queue did above. So under ``spawn``
# (the default on macOS and Windows) and ``forkserver`` (the default on Linux from Python 3.14) the
# dataset's tensors reach the workers in shared memory, and a worker's edit of them is expected to
# reach the parent as the queue child's did, without ``share_memory_()``. This page starts no such
# worker (it would import the dataset's class from a module file, which a page cannot provide);
# the cell below checks what the pickling does to one tensor. The move gives the tensor new
# memory: a NumPy array taken before it still points at the old memory, which the tensor no longer
# uses. Take such handles after ``share_memory_()``, or after the workers start.

from multiprocessing.reduction import ForkingPickler

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
# sphinx_gallery_end_ignore

# %%
# Every child has ended
# ---------------------
#
# ``mp.active_children()`` lists the children of this process that are still running. The page
# leaves none behind. It also undoes the two things the parent process kept: sending a tensor through
# a queue started ``multiprocessing``'s listener thread, which hands the tensor's shared memory to the
# receiver (``resource_sharer.stop()`` ends it), and the ``DataLoader`` with workers installed a
# ``SIGCHLD`` handler (put back as it was).

resource_sharer.stop()
signal.signal(signal.SIGCHLD, sigchld_before)
print("children still running:", mp.active_children())
assert mp.active_children() == [], "every child process has ended"

# %%
# Conclusion
# ----------
#
# A forked child, and so a ``DataLoader`` worker started with the ``fork`` method, starts with a
# copy of every tensor that is not in shared memory, and its edits stay in that copy. A tensor in
# shared memory, moved there by ``share_memory_()`` or by being sent through a
# ``torch.multiprocessing`` queue, is one memory for the processes that have it, so a child's edits
# reach the parent (a leaf that requires grad takes them only under ``torch.no_grad()``). A non-leaf
# that requires grad is not sent at all: ``Queue.put`` returns and its feeder thread drops it, while
# ``SimpleQueue.put`` raises. Share what the workers must update, and return everything else from
# ``__getitem__``.
#
# This page starts children with the ``fork`` method only. Under ``spawn`` (the default on macOS
# and Windows) and ``forkserver`` (the default on Linux from Python 3.14) the dataset is pickled for
# each worker, which moves its tensors into shared memory; that a worker's edits then reach the
# parent is not run here: check ``visits`` on the platform you run.
