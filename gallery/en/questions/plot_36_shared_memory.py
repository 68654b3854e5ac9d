"""
.. _questions-shared-memory:

``share_memory_()``: shared, but not locked
===========================================

.. admonition:: Answer
   :class: answer

   ``share_memory_()`` only puts a tensor's storage in shared memory: processes that update it at the same
   time with ``counter += 1`` (read, add, write) can lose updates. Hold one lock around each update, or give
   each process its own slice:

   .. code-block:: python

      with lock:
          counter += 1

Several processes count into one tensor in shared memory, and the total comes out lower than the
number of updates, or different from one run to the next: a race condition. This page runs
processes that update one shared counter without a lock, with a lock, and in slices of their own,
then shows what ``share_memory_()`` does to a tensor (its storage moves; views, ``detach()`` and
``.data`` follow; a NumPy array taken before does not, nor does a tensor made from the same memory
through DLPack, ``torch.from_numpy`` or ``torch.frombuffer``), and a Hogwild-style training loop on
a shared model. How tensors reach
a child process at all (``fork``, ``spawn``, queues, ``DataLoader`` workers) is the subject of
:ref:`questions-processes`.
"""

# %%
# Helpers
# -------
#
# As on :ref:`questions-processes`, the children are started with the ``fork`` method, so that they
# run the functions defined on this page. ``run_together`` starts one child per tuple of
# arguments, all before waiting for any, then waits for each at most ``TIMEOUT`` seconds and checks
# that each ended well. ``shares`` says whether a NumPy array shares memory with a tensor.
# ``add_many`` adds one to ``counter`` ``times`` times, with no lock: ``counter += 1`` reads the
# value, adds one and writes it back.

from multiprocessing import resource_sharer

import numpy as np
import torch
import torch.multiprocessing as mp

# sphinx_gallery_start_ignore
# no-figure: the counts and the checks on storages it prints are the answer; nothing here has a shape to draw
# sphinx_gallery_end_ignore

ctx = mp.get_context("fork")
TIMEOUT = 10  # seconds; no wait for a child on this page may last longer
TIMES, CHILDREN = 5_000, 4


def run_together(target, arg_tuples):
    children = [ctx.Process(target=target, args=args) for args in arg_tuples]
    for child in children:
        child.start()
    for child in children:
        child.join(TIMEOUT)
    for child in children:
        if child.is_alive():
            child.terminate()
            child.join(TIMEOUT)
    codes = [child.exitcode for child in children]
    if codes != [0] * len(children):
        raise RuntimeError(f"{target.__name__}: the children's exit codes were {codes}")


def shares(array, tensor):
    return np.shares_memory(array, tensor.numpy())


def add_many(counter, times):
    for _ in range(times):
        counter += 1


# %%
# Several processes, one counter, no lock
# ---------------------------------------
#
# Four children each add one to a shared counter 5 000 times. ``share_memory_()`` makes every
# child write into the parent's memory, so the counts add up in one place, but nothing orders the
# children's reads and writes: two children can read the same value, each add one, and write the
# same result back, and one update is lost. Whether that happens depends on how the children's
# steps happen to interleave, so it may happen on one run and not on the next. What always holds is
# that the count is at most the number of updates; the page prints only that, since the count
# itself may vary.

counter = torch.zeros(1).share_memory_()
run_together(add_many, [(counter, TIMES)] * CHILDREN)
updates = TIMES * CHILDREN
print("counter.is_shared():", counter.is_shared(), " updates:", updates)
print("counter.item() <= updates:", counter.item() <= updates)
assert counter.item() <= updates, "a count can lose updates, never gain any"

# %%
# The cell below makes the loss happen on every run. ``read_add_write`` spells out the read, the
# add and the write that ``counter += 1`` does, and a barrier (``ctx.Barrier(2)``) holds each of two
# children after its read until the other has read too. Both read 0 and both write 1: two updates,
# and the count is 1.


def read_add_write(counter, barrier):
    value = counter.item()  # read
    barrier.wait()  # both children have read the same value
    counter.fill_(value + 1)  # add one and write back


counter = torch.zeros(1).share_memory_()
barrier = ctx.Barrier(2)
run_together(read_add_write, [(counter, barrier)] * 2)
print("two read-add-writes, both reads first: counter:", counter.item())
assert counter.item() == 1, "two updates, one lost"

# %%
# With a lock, the count is exact
# -------------------------------
#
# One lock, made by the same context that starts the children (``ctx = mp.get_context("fork")``)
# before they start, and held around each read-modify-write, lets one child update at a time. No
# update is lost: the count is exactly the number of updates, on every run.


def add_many_locked(counter, times, lock):
    for _ in range(times):
        with lock:
            counter += 1


counter = torch.zeros(1).share_memory_()
lock = ctx.Lock()
run_together(add_many_locked, [(counter, TIMES, lock)] * CHILDREN)
print("with a lock: counter:", counter.item(), " updates:", updates)
assert counter.item() == updates, "with one lock around each update, no update is lost"

# %%
# Or give each process its own slice
# ----------------------------------
#
# Without a lock, children that never write to the same elements cannot lose each other's
# updates. Each child below gets its own element of one shared tensor, a view (``counts[i]``)
# that writes into the shared storage, and runs the same ``add_many`` as in the first cell. Each
# element is exact, and so is their sum.

counts = torch.zeros(CHILDREN).share_memory_()
run_together(add_many, [(counts[i], TIMES) for i in range(CHILDREN)])
print("each child's own element: counts:", counts, " sum:", counts.sum().item())
assert torch.equal(counts, torch.full((CHILDREN,), float(TIMES))), "disjoint slices lose no update"

# %%
# What ``share_memory_()`` does to the tensor
# -------------------------------------------
#
# What follows holds under the default sharing strategy on Linux, ``file_descriptor``
# (``mp.get_sharing_strategy()``); the other strategy, ``file_system``, is not run here. On the CPU, for a
# non-empty dense tensor torch allocated (all the tensors here), ``share_memory_()`` copies the
# tensor's values into new, shared memory and points the tensor's storage there (a tensor read by
# ``torch.from_file(path, shared=False)`` is left where it is, see :ref:`questions-processes`): the
# storage's address changes (the page compares it, and never prints it) and the values stay. It changes the tensor in place and returns the tensor itself. Views taken before the call
# use the same storage object, so they move with it: they report ``is_shared()``, and a write
# through the tensor shows in them. A second call on a tensor already in shared memory changes
# nothing. The table runs this for several dtypes.

rows = [("dtype", "before", "after", "moved", "view follows", "second call moved")]
for dtype in (torch.float32, torch.float64, torch.int64, torch.uint8, torch.bool, torch.complex64, torch.bfloat16):
    t = torch.tensor([0, 1, 0, 1]).to(dtype)
    values, view = t.clone(), t[1:]
    before, address = t.is_shared(), t.untyped_storage().data_ptr()
    returned = t.share_memory_()
    moved = t.untyped_storage().data_ptr() != address and torch.equal(t, values)
    t[2] = 1
    follows = view.is_shared() and view.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() and view[1].item() == 1
    address = t.untyped_storage().data_ptr()
    t.share_memory_()
    again = t.untyped_storage().data_ptr() != address
    rows.append((str(dtype), str(before), str(t.is_shared()), str(moved), str(follows), str(again)))
    assert returned is t and not before and t.is_shared() and moved and follows and not again, f"{dtype}: moved once"
for name, before, after, moved, follows, again in rows:
    print(f"{name:16} {before:7} {after:6} {moved:6} {follows:13} {again}")
# sphinx_gallery_start_ignore
assert mp.get_sharing_strategy() == "file_descriptor", "the table ran under the default sharing strategy on Linux"
# sphinx_gallery_end_ignore

# %%
# Calling it on a view moves the whole storage the view uses, so its base is in shared memory
# too.

base = torch.zeros(4)
address = base.untyped_storage().data_ptr()
base[1:].share_memory_()
print("base.is_shared():", base.is_shared(), " moved:", base.untyped_storage().data_ptr() != address)
assert base.is_shared() and base.untyped_storage().data_ptr() != address, "a view's call moves its base's storage"

# %%
# A NumPy array taken before is left behind
# -----------------------------------------
#
# ``t.numpy()`` shares the memory the tensor has at that moment, not the tensor's storage object.
# After ``share_memory_()`` the array still points at the old address, where the tensor no longer
# is: the two no longer share memory, and the old memory may have been freed, so reading or
# writing through that array is unsafe (the page does neither). Take the array after
# ``share_memory_()``: it then shares the tensor's memory, and sees its writes.
# :ref:`questions-processes` shows the same for a tensor made by ``torch.from_numpy``. A tensor made
# from ``t``'s memory before the call through DLPack, ``torch.from_numpy`` or ``torch.frombuffer`` is
# left behind too: it has a storage of its own, which stays at the old address and is not shared; as
# with the early array, that memory may have been freed, so reading or writing through it is unsafe.
# ``t[1:]``, ``t.detach()`` and ``t.data`` use ``t``'s storage object, and follow it.

t = torch.zeros(3)
early = t.numpy()
made_before = {
    "torch.from_dlpack(t)": torch.from_dlpack(t),
    "torch.from_numpy(early)": torch.from_numpy(early),
    "torch.frombuffer(early, dtype=torch.float32)": torch.frombuffer(early, dtype=torch.float32),
    "t[1:]": t[1:],
    "t.detach()": t.detach(),
    "t.data": t.data,
}
address = t.untyped_storage().data_ptr()
t.share_memory_()
print("early array shares memory with t:", shares(early, t))
assert not shares(early, t), "an array taken before share_memory_() is left behind"
for name, other in made_before.items():
    print(f"{name:<45} same storage as t: "
          f"{other.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()!s:<5}  is_shared(): {other.is_shared()}")
assert [other.is_shared() for other in made_before.values()] == [False, False, False, True, True, True], (
    "tensors with a storage of their own stay unshared; those on t's storage object follow it"
)
# sphinx_gallery_start_ignore
assert early.__array_interface__["data"][0] == address, "the early array still points at the old address"
assert early.base.untyped_storage().data_ptr() != address, (
    "what the early array keeps alive has moved: nothing it holds keeps the old memory")
assert [other.data_ptr() == address for other in made_before.values()] == [True, True, True, False, False, False], (
    "the DLPack, from_numpy and frombuffer tensors stay at the old address; the others moved")
assert [other.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() for other in made_before.values()] == [
    False, False, False, True, True, True], "t[1:], t.detach() and t.data, and only they, are on t's new storage"
freed_holder = torch.nn.Module()
freed_holder.register_buffer("values", torch.ones(9_000_000))  # 36 MB, above glibc's largest mmap threshold
freed_address = freed_holder.values.data_ptr()
freed_aliases = [torch.from_dlpack(freed_holder.values), torch.from_numpy(freed_holder.values.numpy()),
                 torch.frombuffer(freed_holder.values.numpy(), dtype=torch.float32)]
freed_holder.share_memory()


def mapped(address):
    with open("/proc/self/maps") as maps:
        return any(int(low, 16) <= address < int(high, 16) for low, high in (line.split()[0].split("-") for line in maps))


assert all(alias.data_ptr() == freed_address for alias in freed_aliases) and not mapped(freed_address), (
    "for a 36 MB tensor, the DLPack, from_numpy and frombuffer tensors point at memory freed and unmapped")
del freed_holder, freed_aliases
# sphinx_gallery_end_ignore
late = t.numpy()
t += 1
print("late array:", late, " shares memory with t:", shares(late, t))
assert shares(late, t) and np.array_equal(late, np.ones(3)), "an array taken after follows t"

# %%
# An alias taken afterwards is not shared
# ---------------------------------------
#
# A tensor made from ``t``'s memory after the call, through DLPack, ``torch.from_numpy`` or
# ``torch.frombuffer``, is on that memory in this process, but its own storage is not shared:
# ``is_shared()`` is ``False``. Put on a queue for another process, it is moved to new shared memory,
# in the sender too, so the child's write never reaches ``t``. A view taken afterwards, ``t[:]``, uses
# ``t``'s storage object, and the child's write reaches ``t``. Below, for each, ``t`` is new, and a
# child takes the tensor from a ``ctx.SimpleQueue()`` and writes 99 into its last element.
# Under the default sharing strategy on Linux, ``file_descriptor``, putting the tensors on the queue
# started the listener thread of ``multiprocessing``'s ``resource_sharer``, from which the receiver gets
# the file descriptor of the tensor's shared memory; it runs until ``resource_sharer.stop()`` ends it.


def write_received(queue):
    received = queue.get()
    received[2] = 99.0


takers = {
    "torch.from_dlpack(t)": torch.from_dlpack,
    "torch.from_numpy(t.numpy())": lambda t: torch.from_numpy(t.numpy()),
    "torch.frombuffer(t.numpy(), dtype=t.dtype)": lambda t: torch.frombuffer(t.numpy(), dtype=t.dtype),
    "t[:]": lambda t: t[:],
}
queue = ctx.SimpleQueue()
results = []
# sphinx_gallery_start_ignore
assert resource_sharer._resource_sharer._thread is None, "no listener thread runs before a tensor is put on a queue"
# sphinx_gallery_end_ignore
for name, take in takers.items():
    t = torch.zeros(3).share_memory_()
    alias = take(t)
    on_memory, shared = alias.data_ptr() == t.data_ptr(), alias.is_shared()
    queue.put(alias)
    run_together(write_received, [(queue,)])
    results.append((on_memory, shared, alias.data_ptr() == t.data_ptr(), t[2].item() == 99))
    print(f"{name:<43} on t's memory: {on_memory!s:<5} is_shared(): {shared!s:<5} "
          f"after put, on t's memory: {results[-1][2]!s:<5} child's write reached t: {results[-1][3]}")
assert results == [(True, False, False, False)] * 3 + [(True, True, True, True)], (
    "tensors made from t's memory after the call are unshared and a queue moves them off it; a write through t[:] reaches t")
# sphinx_gallery_start_ignore
assert mp.get_sharing_strategy() == "file_descriptor" and resource_sharer._resource_sharer._thread.is_alive(), (
    "under the file_descriptor strategy, putting a tensor on the queue started resource_sharer's listener thread")
assert isinstance(mp.reductions.reduce_storage(t.untyped_storage())[1][1], resource_sharer.DupFd), (
    "a tensor's shared memory is sent as a resource_sharer.DupFd: the receiver gets its file descriptor from the listener")
# sphinx_gallery_end_ignore
resource_sharer.stop()
# sphinx_gallery_start_ignore
assert resource_sharer._resource_sharer._thread is None, "resource_sharer.stop() ended the listener thread"
# sphinx_gallery_end_ignore

# %%
# Hogwild: a shared model, updated without a lock
# -----------------------------------------------
#
# Hogwild training runs an optimizer in several processes on one model whose parameters are in
# shared memory, with no lock, on purpose: the algorithm accepts that an update overwritten by
# another process is lost, to save the time a lock would cost. ``model.share_memory()`` puts every
# parameter in shared memory. Below, two children each take three steps of SGD on their own batch,
# each with its own copy of the optimizer made here (a forked child copies it); each child's
# gradients are its own, because each step starts with ``optimizer.zero_grad()``, which by default
# sets ``.grad`` to ``None``, so ``backward()`` makes a new one in the child. That holds even for a
# ``.grad`` that ``share_memory()`` put in shared memory (it does so for an existing ``.grad``, and raises
# ``NotImplementedError`` for a sparse one, such as that of an ``Embedding(sparse=True)``); reset
# with ``zero_grad(set_to_none=False)``, such a ``.grad`` is kept, and the children write into that one
# shared gradient. Each child's steps write into the shared parameters. The
# parent's model has changed, and its total loss over the two batches has gone down. The page prints neither the
# weights nor the losses, which depend on how the children's steps interleaved.

torch.manual_seed(0)
model, true_weight = torch.nn.Linear(3, 1), torch.randn(3, 1)
batches = [(x, x @ true_weight) for x in torch.randn(2, 8, 3)]


def loss_on(model, batches):
    with torch.no_grad():
        return sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in batches)


def train_steps(model, optimizer, x, y, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


model.share_memory()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
weight_before, loss_before = model.weight.detach().clone(), loss_on(model, batches)
run_together(train_steps, [(model, optimizer, x, y, 3) for x, y in batches])
print("all parameters shared:", all(p.is_shared() for p in model.parameters()))
print("weights changed:", not torch.equal(model.weight.detach(), weight_before))
print("loss went down:", loss_on(model, batches) < loss_before)
assert all(p.is_shared() for p in model.parameters()), "model.share_memory() shares every parameter"
assert not torch.equal(model.weight.detach(), weight_before), "the children's steps reached the parent's model"
# sphinx_gallery_start_ignore
assert loss_on(model, batches) < loss_before, "the shared model's loss went down"
grad_queue = ctx.SimpleQueue()


def report_grads(model, optimizer, x, y, queue):
    train_steps(model, optimizer, x, y, 1)
    queue.put([p.grad is not None and not p.grad.is_shared() for p in model.parameters()])


run_together(report_grads, [(model, optimizer, x, y, grad_queue) for x, y in batches])
assert [grad_queue.get() for _ in batches] == [[True, True]] * 2, "each child's gradients are its own"
assert all(p.grad is None for p in model.parameters()), "the parent's model has no .grad"
with_grad = torch.nn.Linear(3, 1)
with_grad(torch.ones(1, 3)).sum().backward()
with_grad.share_memory()
assert all(p.grad.is_shared() for p in with_grad.parameters()), "share_memory() shares an existing .grad"
shared_grad_optimizer = torch.optim.SGD(with_grad.parameters(), lr=0.1)
run_together(report_grads, [(with_grad, shared_grad_optimizer, x, y, grad_queue) for x, y in batches])
assert [grad_queue.get() for _ in batches] == [[True, True]] * 2, "zero_grad() gives each child its own .grad"
grads_before = [p.grad.clone() for p in with_grad.parameters()]


def report_kept_grads(model, optimizer, x, y, queue):
    optimizer.zero_grad(set_to_none=False)
    torch.nn.functional.mse_loss(model(x), y).backward()
    queue.put([p.grad.is_shared() for p in model.parameters()])


run_together(report_kept_grads, [(with_grad, shared_grad_optimizer, x, y, grad_queue) for x, y in batches])
assert [grad_queue.get() for _ in batches] == [[True, True]] * 2, "zero_grad(set_to_none=False) keeps the shared .grad"
assert not any(torch.equal(p.grad, g) for p, g in zip(with_grad.parameters(), grads_before, strict=True)), (
    "with zero_grad(set_to_none=False) the children write into the parent's .grad")
with torch.random.fork_rng():
    sparse_grad_model = torch.nn.Embedding(5, 2, sparse=True)
sparse_grad_model(torch.tensor([1, 2])).sum().backward()
try:
    sparse_grad_model.share_memory()
except NotImplementedError as e:
    assert "SparseTensorImpl" in str(e), "share_memory() raises NotImplementedError for a sparse .grad"
else:
    raise AssertionError("share_memory() of a module with a sparse .grad must raise")
# sphinx_gallery_end_ignore

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    A CUDA tensor is not moved: ``share_memory_()`` leaves it where it is, and ``is_shared()`` is
#    ``True``. How a CUDA tensor reaches another process (through CUDA IPC, under the ``spawn`` or
#    ``forkserver`` start method, with the sender keeping it alive while the receiver uses it) is
#    described in the PyTorch documentation (`multiprocessing best practices
#    <https://docs.pytorch.org/docs/stable/notes/multiprocessing.html#sharing-cuda-tensors>`__); this
#    page does not run it. The cell below checks the first sentence only where torch finds a GPU;
#    the box's title says whether the site's build did.

if torch.cuda.is_available():
    g = torch.zeros(3, device="cuda")
    gpu_address = g.untyped_storage().data_ptr()
    g.share_memory_()
    print("g.is_shared():", g.is_shared(), " moved:", g.untyped_storage().data_ptr() != gpu_address)
    assert g.is_shared() and g.untyped_storage().data_ptr() == gpu_address, "share_memory_() leaves CUDA tensors"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# Every child has ended
# ---------------------
#
# ``mp.active_children()`` lists the children of this process that are still running. The page
# leaves none behind.

print("children still running:", mp.active_children())
assert mp.active_children() == [], "every child process has ended"

# %%
# Conclusion
# ----------
#
# For a dense tensor torch allocated, ``share_memory_()`` shares memory between processes; it does not
# order their writes. Updates that read, add and write back, such as ``counter += 1``, can be lost
# when two processes make them at the same time: hold one lock around each update, or give each
# process elements of its own. On the CPU, under the default sharing strategy on Linux, the call moves such a
# tensor's storage, when it is not empty and not yet shared, to new memory:
# views, ``detach()`` and ``.data`` follow it; a NumPy array taken before does not, nor does a
# tensor made from that memory through DLPack, ``torch.from_numpy`` or ``torch.frombuffer``. Taken
# afterwards, such a tensor is on ``t``'s memory but not shared, and a queue moves it to new memory:
# send ``t`` or a view of it to another process, never such a tensor. How a tensor reaches
# a child process in the first place, and under which start method it is a copy, is on
# :ref:`questions-processes`.
