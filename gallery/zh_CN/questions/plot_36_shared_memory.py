"""
.. _questions-shared-memory:

``share_memory_()``：共享了，但没有加锁
=======================================

.. admonition:: 答案
   :class: answer

   ``share_memory_()`` 只把张量的存储放进共享内存；几个进程同时用 ``counter += 1`` 更新它（读、加、写回），更新可能丢失。更新时一律先拿同一把锁，或者让每个进程只写自己的切片：

   .. code-block:: python

      with lock:
          counter += 1

几个进程对共享内存（shared memory）里的同一个张量计数，总数却比更新次数少，或者每次运行都不一样：这是竞态条件（race condition）。本页启动几个进程，分别在不加锁、加锁、各写各的切片三种情况下更新一个共享计数器；然后看 ``share_memory_()`` 对张量做了什么：存储搬了家，视图（view）以及 ``detach()``、``.data`` 跟着走；之前取的 NumPy 数组，以及经由 DLPack、``torch.from_numpy`` 或 ``torch.frombuffer`` 从同一块内存建的张量，却留在原地；最后在共享模型上跑一个 Hogwild 式的训练循环。张量究竟怎样到达子进程（``fork``、``spawn``、队列、``DataLoader`` 的 worker），见 :ref:`“多进程”那一页 <questions-processes>`。
"""

# %%
# 辅助函数
# --------
#
# 和 :ref:`“多进程”那一页 <questions-processes>` 一样，子进程用 ``fork`` 方式启动，这样它们能运行本页定义的函数。``run_together``
# 按每组参数启动一个子进程，全部启动后才开始等待，每个最多等 ``TIMEOUT`` 秒，并检查每个子进程都正常结束。``shares``
# 判断一个 NumPy 数组是否与张量共享内存。``add_many`` 不加锁，把 ``counter`` 加一，共 ``times``
# 次：``counter += 1`` 先读出值，加一，再写回去。

from multiprocessing import resource_sharer

import numpy as np
import torch
import torch.multiprocessing as mp

# sphinx_gallery_start_ignore
# no-figure: 本页打印的计数和对存储的检查就是答案，没有需要画出来的结构
# sphinx_gallery_end_ignore

ctx = mp.get_context("fork")
TIMEOUT = 10  # 秒；本页等待任何子进程都不会超过这个时间
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
# 几个进程，一个计数器，不加锁
# ----------------------------
#
# 四个子进程都给同一个共享计数器加一，每个各加 5000 次。``share_memory_()``
# 让每个子进程都写进父进程的内存，计数汇总在同一处；但没有任何东西规定子进程读写的先后：两个子进程可能读到同一个值，各加一，再写回同一个结果，于是丢掉一次更新。会不会发生，取决于子进程的步骤碰巧怎样交错，所以可能这次发生、下次不发生。始终成立的是：计数不超过更新次数。计数本身每次可能不同，所以本页只打印这一点。

counter = torch.zeros(1).share_memory_()
run_together(add_many, [(counter, TIMES)] * CHILDREN)
updates = TIMES * CHILDREN
print("counter.is_shared():", counter.is_shared(), " updates:", updates)
print("counter.item() <= updates:", counter.item() <= updates)
assert counter.item() <= updates, "a count can lose updates, never gain any"

# %%
# 下面这个单元格让更新每次都丢失。``read_add_write`` 把 ``counter += 1`` 的读、加、写回三步分开写出来，再用一道屏障（``ctx.Barrier(2)``）让两个子进程各自读完之后都停下，直到另一个也读完。两个子进程都读到 0，都写回 1：更新了两次，计数却是 1。


def read_add_write(counter, barrier):
    value = counter.item()  # 读
    barrier.wait()  # 两个子进程都已读到同一个值
    counter.fill_(value + 1)  # 加一，写回


counter = torch.zeros(1).share_memory_()
barrier = ctx.Barrier(2)
run_together(read_add_write, [(counter, barrier)] * 2)
print("two read-add-writes, both reads first: counter:", counter.item())
assert counter.item() == 1, "two updates, one lost"

# %%
# 加锁后计数准确
# --------------
#
# 在子进程启动前，用启动这些子进程的同一个上下文（``ctx = mp.get_context("fork")``）建一把锁（lock），每次“读、加、写回”时都持有它，同一时刻就只有一个子进程在更新。没有更新丢失：每次运行，计数都正好等于更新次数。


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
# 或者让每个进程只写自己的切片
# ----------------------------
#
# 不加锁时，只要子进程从不写同一个元素，就不会互相丢掉更新。下面每个子进程分到共享张量的一个元素
# ``counts[i]``，它是一个视图，写入会进共享存储；子进程运行的还是第一个单元格里的
# ``add_many``。每个元素都准确，总和也准确。

counts = torch.zeros(CHILDREN).share_memory_()
run_together(add_many, [(counts[i], TIMES) for i in range(CHILDREN)])
print("each child's own element: counts:", counts, " sum:", counts.sum().item())
assert torch.equal(counts, torch.full((CHILDREN,), float(TIMES))), "disjoint slices lose no update"

# %%
# ``share_memory_()`` 对张量做了什么
# ----------------------------------
#
# 下面说的都是在 Linux 默认的共享策略 ``file_descriptor`` 下（见 ``mp.get_sharing_strategy()``）的情形；另一种策略 ``file_system`` 本页没有运行。在 CPU 上，对 torch 自己分配的非空稠密张量（本页的张量都是），``share_memory_()`` 把张量的值复制到新的共享内存，并让张量的存储指向那里（用 ``torch.from_file(path, shared=False)`` 从文件读出的张量则留在原处，见 :ref:`“多进程”那一页 <questions-processes>`）：存储的地址变了（本页只比较地址，从不打印），值不变。它原地（in-place）修改张量，返回的就是张量本身。调用之前取的视图用的是同一个存储对象，所以跟着一起搬走：它们的
# ``is_shared()`` 为 ``True``，经张量写入的值也能在视图里看到。对已经在共享内存里的张量再调用一次，什么都不变。下表对几种 dtype 都跑了一遍。

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
# 在视图上调用，会搬走视图所用的整个存储，所以它的基张量（base tensor）也进了共享内存。

base = torch.zeros(4)
address = base.untyped_storage().data_ptr()
base[1:].share_memory_()
print("base.is_shared():", base.is_shared(), " moved:", base.untyped_storage().data_ptr() != address)
assert base.is_shared() and base.untyped_storage().data_ptr() != address, "a view's call moves its base's storage"

# %%
# 之前取的 NumPy 数组被留在原地
# -----------------------------
#
# ``t.numpy()`` 共享的是张量此刻所在的内存，而不是张量的存储对象。``share_memory_()``
# 之后，数组仍指向旧地址，而张量已经不在那里：两者不再共享内存，旧内存还可能已被释放，所以通过这个数组读写都不安全（本页既不读也不写）。应该在
# ``share_memory_()`` 之后再取数组：这时它与张量共享内存，能看到张量的写入。对
# ``torch.from_numpy`` 创建的张量，:ref:`“多进程”那一页 <questions-processes>` 展示了同样的情况。调用之前经由 DLPack、``torch.from_numpy`` 或 ``torch.frombuffer`` 从 ``t`` 的内存建的张量也被留在原地：它有自己的存储，这块存储留在旧地址，也不在共享内存里；和之前取的数组一样，那块旧内存可能已被释放，所以通过它读写都不安全。``t[1:]``、``t.detach()`` 和 ``t.data`` 用的是 ``t`` 的存储对象，会跟着走。

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
# 之后取的别名不算共享
# --------------------
#
# 调用之后经由 DLPack、``torch.from_numpy`` 或 ``torch.frombuffer`` 从 ``t`` 的内存建的张量，在本进程里就在那块内存上，但它自己的存储不算共享：``is_shared()`` 为 ``False``。把它放进队列发给别的进程时，它会被搬到新的共享内存，发送方这边也一样，所以子进程的写入到不了 ``t``。之后取的视图 ``t[:]`` 用的是 ``t`` 的存储对象，子进程的写入能到达 ``t``。下面对每一种都新建 ``t``，由子进程从 ``ctx.SimpleQueue()`` 取出张量，往最后一个元素写入 99。在 Linux 默认的共享策略 ``file_descriptor`` 下，把张量放进队列启动了 ``multiprocessing`` 的 ``resource_sharer`` 的监听线程，接收方从它那里拿到张量共享内存的文件描述符；这个线程一直运行，直到 ``resource_sharer.stop()`` 让它结束。


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
# Hogwild：不加锁地更新共享模型
# -----------------------------
#
# Hogwild 训练在几个进程里对同一个模型运行优化器，模型参数在共享内存里，而且有意不加锁：这个算法接受被其他进程覆盖的更新就此丢失，以省下加锁的时间。``model.share_memory()``
# 把每个参数都放进共享内存。下面两个子进程各在自己的批次上做三步 SGD，各用一份这里创建的优化器的副本（fork 出来的子进程会复制它）；每个子进程的梯度是它自己的，因为每一步都先调用 ``optimizer.zero_grad()``，它默认把 ``.grad`` 设为 ``None``，``backward()`` 便在子进程里新建一个。即使 ``.grad`` 已被 ``share_memory()`` 放进共享内存（已有的 ``.grad`` 它也会放进去；``.grad`` 是稀疏张量时，例如 ``Embedding(sparse=True)`` 得到的那种，它抛出 ``NotImplementedError``），也是如此；改用 ``zero_grad(set_to_none=False)`` 清零时，这样的 ``.grad`` 会保留下来，各子进程都写进同一个共享的梯度。每个子进程的每一步都写进共享的参数。父进程的模型变了，它在两个批次上的总损失也下降了。权重和损失的具体数值取决于子进程的步骤怎样交错，本页都不打印。

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
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    CUDA 张量不会被搬走：``share_memory_()`` 让它留在原处，``is_shared()`` 为 ``True``。CUDA
#    张量怎样到达另一个进程（经 CUDA IPC，需要 ``spawn`` 或 ``forkserver`` 启动方式，接收方使用期间发送方要让张量保持存活），见 PyTorch 文档（`多进程最佳实践
#    <https://docs.pytorch.org/docs/stable/notes/multiprocessing.html#sharing-cuda-tensors>`__）；本页不运行这部分。下面的单元格只在 torch 找到 GPU 时检查第一句话；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    g = torch.zeros(3, device="cuda")
    gpu_address = g.untyped_storage().data_ptr()
    g.share_memory_()
    print("g.is_shared():", g.is_shared(), " moved:", g.untyped_storage().data_ptr() != gpu_address)
    assert g.is_shared() and g.untyped_storage().data_ptr() == gpu_address, "share_memory_() leaves CUDA tensors"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# 所有子进程都已结束
# ------------------
#
# ``mp.active_children()`` 列出本进程仍在运行的子进程。本页不留下任何一个。

print("children still running:", mp.active_children())
assert mp.active_children() == [], "every child process has ended"

# %%
# 小结
# ----
#
# 对 torch 自己分配的稠密张量，``share_memory_()`` 让进程之间共享内存，但不规定它们写入的先后。像 ``counter += 1``
# 这样“读、加、写回”的更新，两个进程同时做时可能丢失：每次更新时都持有同一把锁，或者让每个进程只写自己的元素。在 CPU 上并采用 Linux 默认的共享策略时，这个调用把这类张量（非空、还不在共享内存里时）的存储搬到新的内存：视图以及 ``detach()``、``.data`` 跟着走；之前取的 NumPy
# 数组，以及经由 DLPack、``torch.from_numpy`` 或 ``torch.frombuffer`` 从那块内存建的张量都不跟。调用之后再这样建的张量虽然在 ``t`` 的内存上，却不算共享，经队列发送时会被搬到新的内存：发给别的进程的应该是 ``t`` 或它的视图，不要发这类张量。张量最初怎样到达子进程、在哪种启动方式下是副本，见 :ref:`“多进程”那一页 <questions-processes>`。
