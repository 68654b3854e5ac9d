"""
.. _questions-processes:

fork 出来的 ``DataLoader`` worker 进程的修改不见了：多进程之间的张量
====================================================================

.. admonition:: 答案
   :class: answer

   用 ``fork`` 时，子进程改的是张量的副本，除非存储是共享的：``from_file(..., shared=True)`` 的是，``shared=False`` 的不是，尽管 ``is_shared()`` 为 ``True``。torch 分配的张量，启动 worker 前调用 ``share_memory_()``：

   .. code-block:: python

      dataset.visits.share_memory_()
      loader = DataLoader(dataset, num_workers=1, multiprocessing_context="fork", timeout=10)

一个记录每项被读了几次的数据集，一旦 ``DataLoader`` 用 ``fork`` 方式（据 Python 文档，是 Python 3.14 之前 Linux 的默认方式，也是本站构建时的默认方式）启动 worker，计数就一直是 0；在 ``spawn`` 和 ``forkserver`` 方式下，把数据集发给 worker 时所做的序列化（pickle）会把其中由 torch 分配的稠密 CPU 张量（布局为 ``torch.strided``，既非嵌套也非量化）移进共享内存，在 Linux 默认的共享策略 ``file_descriptor`` 下存储为空的除外（下文检验了 ``fork`` 下的计数，以及在本进程里对几个张量做的这次序列化）。交给另一个进程的张量，有时是副本，有时又是共享的。本页真的启动子进程：让
worker 修改数据集；让子进程修改从父进程继承来的张量（torch 自己分配的张量，再举两种其他来源的张量为例）；让子进程修改经队列收到的张量；再看队列遇到发送不了的张量时怎么处理。最后在两个 epoch 的循环里检验解决办法。每次等待子进程都有时间上限，页面结束时所有子进程都已退出。
"""

# %%
# 辅助函数
# --------
#
# 本页有意用 ``fork`` 方式启动子进程：fork 出来的子进程是当前进程的一份副本，不用导入任何东西就能运行本页（包括 notebook 里）定义的函数。哪些平台有
# ``fork``，其他启动方式又怎样找到子进程要运行的函数，见 Python 文档（`上下文和启动方法
# <https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods>`__）。``run``
# 启动一个子进程，最多等它 ``TIMEOUT`` 秒，并检查它是否正常结束。``send_to_child`` 启动的子进程从队列取出一个张量并加以修改（见下文）；函数把
# ``t`` 发给这个子进程，返回子进程的前 ``replies`` 条答复和退出码。
#
# fork 出来的子进程得到当前进程的内存，却得不到它的线程。一个进程用过 torch 的两个线程之后，从它 fork 出来、对四百万个数加 1 的子进程会卡住：5 秒后仍在运行。先调用 ``torch.set_num_threads(1)`` 的子进程则能结束，``DataLoader`` 的 worker 进程也只用一个线程；``add_one`` 和 ``edit_from_queue`` 同样先做这次调用。:fact:`forked-child-needs-one-thread`

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
    torch.set_num_threads(1)  # 只改这个子进程自己的线程数，见上文
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
# 画图用的辅助函数
# ----------------
#
# 本页的图由下面的辅助函数用 matplotlib 根据运行中的张量画出。每个画图的页面都带着同一段代码，所以页面上把它折叠起来；下载的脚本和 notebook 里是完整的代码。

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
# 现象
# ----
#
# 把每一项读一遍。不用 worker（``num_workers=0``）时，读取发生在当前进程里，计数都是 ``1``。用一个
# worker 时，取到的批次和之前一样，当前进程里的计数却还是 ``0``：worker 记在了它自己那份 ``visits`` 上。

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
# fork 出来的子进程改的是自己的副本
# ---------------------------------
#
# fork 出来的子进程一开始与父进程内存相同，但它写过的内存页就成了它自己的，所以子进程里的修改到不了父进程。对 torch 自己分配的张量，
# ``share_memory_()`` 把它的存储移进共享内存；此后 fork 出来的子进程与父进程写的是同一块内存。

plain = torch.zeros(3)
run(add_one, plain)
shared = torch.zeros(3).share_memory_()
run(add_one, shared)
print("plain:", plain, " plain.is_shared():", plain.is_shared())
print("shared:", shared, " shared.is_shared():", shared.is_shared())
assert not plain.any() and torch.equal(shared, torch.ones(3)), "only the shared tensor took the child's edit"

# %%
# .. figure-caption::
#    :alt: 示意图：当前进程和 fork 出来的子进程。plain 不在共享内存里，它在当前进程的存储 S1 上，子进程有一份属于自己的 S1 副本；shared 在共享内存里的存储 S2 上，当前进程和子进程都指向它。
#
#    ``plain`` 在当前进程的存储 ``S1`` 上；子进程 fork 出来时带着一份属于自己的 ``S1`` 副本，它的 ``add_one`` 写在那里。``shared`` 在 ``S2`` 上，位于共享内存：当前进程和子进程写的是同一块存储，所以当前进程看得到子进程的修改。

draw_processes("run(add_one, plain); run(add_one, shared)", "add_one(t)", plain=plain, shared=shared)
# sphinx_gallery_start_ignore
assert not plain.is_shared() and shared.is_shared(), "plain is in this process's own memory, shared in shared memory"
# sphinx_gallery_end_ignore

# %%
# 其他来源的张量可能表现不同，下面举两种为例。对 ``torch.from_numpy(array)`` 得到的张量，``share_memory_()`` 同样会移动它的存储：子进程的修改能到达这个张量，但它不再与 ``array`` 共享内存，``array`` 保持原样。用
# ``torch.from_file(path, shared=False)`` 从文件读出的张量，``is_shared()`` 本来就是 ``True``，在 Linux 默认的共享策略 ``file_descriptor`` 下，``share_memory_()`` 不移动它的存储，子进程的修改就丢了（另一种策略 ``file_system`` 本页没有运行）。用 ``shared=True`` 读出的张量则与子进程共享：子进程的修改能传回父进程。反过来，``is_shared()`` 为 ``False`` 也不说明不共享：建在以可写方式映射文件的 NumPy 数组（``np.memmap(path, mode="r+")``）上的张量，``is_shared()`` 为 ``False``，子进程的修改却能传回父进程。（几个进程同时写同一个共享张量时需要加锁，见 :ref:`“共享内存与加锁”那一页 <questions-shared-memory>`。）

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
# 经队列发送的张量是共享的，不是复制的
# ------------------------------------
#
# 经 ``torch.multiprocessing`` 的队列发送一个 torch 自己分配、存储不为空的稠密 CPU 张量，会把它的存储放进共享内存，接收方拿到的是这块内存上的张量。（``torch.from_numpy(array)`` 得到的张量也能到达，但和上面的 ``share_memory_()`` 一样，它的存储离开了 ``array``，``array`` 看不到子进程的修改；``torch.from_file`` 从一个存有三个浮点数的文件映射出的张量，不论 ``shared=False`` 还是 ``shared=True``，在 Linux 默认的共享策略下都到不了，见下文。）下面的子进程从收件队列取出
# ``sent``，加一，再通过发件队列答复；父进程看到了这次修改。需要梯度的叶子张量（leaf tensor）到了对方那里仍然需要梯度，所以子进程里的
# ``add_(1)`` 会报错；在 ``torch.no_grad()`` 之下，同样的修改可以执行，也会传回发送方。


def edit_from_queue(inbox, outbox):
    torch.set_num_threads(1)  # 只改这个子进程自己的线程数，与 add_one 相同
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
# 共轭位（conjugate bit）和负号位（negative bit）不会随张量发送过去。接收方拿到的 ``z.conj()`` 或
# ``z.conj().imag`` 落在同一块内存上，却不带这个位，读到的是未取共轭或未取负的值；在下面，子进程的 ``add_(1)``
# 让发送方读到的值都减了 1。要发送这样的张量，请改为发送它的一份副本：``resolve_conj()`` 或 ``resolve_neg()`` 的结果。

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
# 需要梯度的非叶子张量经队列永远到不了
# ------------------------------------
#
# 需要梯度的非叶子张量不能经队列发送：队列用来序列化的 ``ForkingPickler`` 会拒绝它。``Queue.put`` 却不报错：它把张量交给一个
# feeder 线程，由这个线程在后台序列化；出错时线程丢掉这一项，把错误交给队列的内部钩子
# ``_on_queue_feeder_error``。调用方不会收到异常，所以本页换掉这个钩子，把错误留下来。于是之后放进去的
# ``torch.ones(3)`` 成了第一个取出来的。``SimpleQueue.put``
# 在调用方序列化，错误就在调用方抛出。

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
# 在 Linux 默认的共享策略 ``file_descriptor`` 下（见 ``mp.get_sharing_strategy()``），
# ``torch.from_file(path, shared=False, size=3)`` 得到的张量也到不了，用 ``shared=True`` 得到的，即上面答案里与
# fork 出来的子进程共享的那种，同样到不了：feeder 线程序列化它们时都抛出 ``OSError``，队列也照样把它们丢掉。其他大小和
# dtype，以及另一种策略 ``file_system``，本页没有运行。

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
# 在两个 epoch 里检验解决办法
# ---------------------------
#
# 在 ``DataLoader`` 启动 worker 之前，把 ``visits`` 放进共享内存。worker 继承了这块共享存储，它记的数当前进程也看得到：两个 epoch
# 之后，每一项都被读了两次。

dataset = Visits()
dataset.visits.share_memory_()
loader = DataLoader(dataset, num_workers=1, multiprocessing_context="fork", timeout=10)
for epoch in range(2):
    seen = [batch for batch in loader]
    print(f"epoch {epoch}: items:", torch.cat(seen), " visits:", dataset.visits)
assert torch.equal(dataset.visits, torch.full((4,), 2.0)), "the workers' counts reached this process"

# %%
# ``spawn`` 与 ``forkserver`` 方式
# --------------------------------
#
# 用另外两种启动方式时，worker 不是父进程的一份副本：数据集要先序列化，再发送给它，用的就是队列所用的那个 pickler（``multiprocessing.reduction.ForkingPickler``）。导入 torch 之后，这个 pickler 会把 torch 自己分配的稠密 CPU 张量的存储移进共享内存（在 Linux 默认的共享策略 ``file_descriptor`` 下，存储为空的除外），并去掉它的共轭位或负号位，和上面经队列发送时一样。看的是存储，不是张量：序列化 ``t[:0]`` 这样不含元素的视图（view），也会把 ``t`` 的整块存储移进共享内存。所以在 ``spawn`` 和 ``forkserver`` 方式下（据 Python 文档 `上下文和启动方法
# <https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods>`__，前者是 macOS 和 Windows 的默认方式，后者是 Python 3.14 起 Linux 的默认方式），数据集里由 torch 分配、存储不为空的稠密 CPU 张量（布局为 ``torch.strided``，既非嵌套也非量化）是放在共享内存里到达 worker 的（需要梯度的非叶子张量过不了 pickler，就像上面 ``SimpleQueue.put`` 报错那样）；按理说，worker 对它们的修改会像上面那个从队列接收张量的子进程一样到达父进程，不必调用 ``share_memory_()``。本页不启动这样的 worker；下面的单元格只检查序列化对几个张量做了什么。这次移动给了张量新的内存，旧内存可能已被释放：之前取得的 NumPy 数组仍指向那里，可能成了悬空的数组，通过它读写的结果是未定义的。这类句柄要在 ``share_memory_()`` 之后，或者 worker 启动之后再取。

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
# 所有子进程都已结束
# ------------------
#
# ``mp.active_children()`` 列出当前进程仍在运行的子进程。本页不留下任何一个。父进程自己多出的两样东西也要还原：在默认的共享策略 ``file_descriptor`` 下，经队列发送张量时启动了 ``multiprocessing`` 的 ``resource_sharer`` 的监听线程，``resource_sharer.stop()`` 让它结束；``DataLoader`` 在一个进程的主线程里第一次启动 worker 时会安装 ``SIGCHLD`` 信号处理函数，这里把原来的放回去。:fact:`dataloader-sigchld-handler-once`

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
# 小结
# ----
#
# fork 出来的子进程，包括以 ``fork`` 方式启动的 ``DataLoader`` worker 进程，凡是由 torch 分配、又不在共享内存里的 CPU 张量，拿到的都是副本，它的修改只留在副本里。torch 自己分配的张量，由
# ``share_memory_()`` 移进共享内存，或经 ``torch.multiprocessing`` 的队列发送时放进去之后，移动它的父进程与父进程在此之后 fork 出来的子进程、与父进程把它发送过去的进程共享同一块内存，所以这些进程的修改父进程也看得到。需要梯度的叶子张量，在
# ``torch.no_grad()`` 之下能这样修改，在梯度模式（grad mode）下、``torch.inference_mode()`` 之外不行。:fact:`leaf-refuses-inplace`\ ``torch.from_numpy`` 得到的张量经 ``share_memory_()`` 移动之后，不再与它的数组共享内存；在 Linux 默认的共享策略下，``torch.from_file(path, shared=False)``
# 得到的张量则根本不会被移动，fork 出来的子进程对它的修改都会丢失。需要梯度的非叶子张量根本发送不出去：``Queue.put`` 照常返回，由 feeder 线程把它丢掉；``SimpleQueue.put``
# 则直接报错。worker 需要更新的，就共享它；其余的，都从 ``__getitem__`` 返回。
#
# 本页只用 ``fork`` 方式启动子进程。在 ``spawn`` 方式（据 Python 文档，是 macOS 和 Windows 的默认方式）和 ``forkserver`` 方式（同样据 Python 文档，是 Python 3.14 起 Linux 的默认方式）下，数据集要序列化后发给每个 worker，这会把其中由 torch 分配的稠密 CPU 张量移进共享内存，在共享策略 ``file_descriptor`` 下存储为空的除外（见上文）；worker 的修改随后能否到达父进程，本页没有实际检验：请在你用的平台上检查 ``visits``。
