"""Named facts on processes behind the glossary's definitions (``sitetools/rules/term_facts.py``, ``CHECKED_BY``):
shared memory seen across a fork, and the worker processes of a ``DataLoader``. Each forks its processes (a fork copies
no file and needs nothing pickled). Also the decide page's NumPy entry: ``share_memory_()`` and a queue's feeder
thread leave an array taken before behind (no child process). Registered on import by :mod:`tensorfacts.facts`, whose
docstring says what a fact is.
"""

from __future__ import annotations

import threading

import numpy as np
import torch
import torch.utils.data

from tensorfacts.fact_registry import Fact, fact


def _child_writes(target: torch.Tensor) -> None:
    target.fill_(7)


@fact("shared-memory-seen-across-processes", {
    "en": "A forked process (torch.multiprocessing, start method fork) runs fill_(7) on two tensors: the one the "
          "parent moved to shared memory with share_memory_() shows 7 in the parent; an ordinary tensor does not "
          "(the child wrote to its own copy of the page).",
    "zh_CN": "用 fork 方式启动的子进程（torch.multiprocessing）对两个张量执行 fill_(7)：父进程先用 share_memory_() 移到"
             "共享内存的那个，在父进程里读到 7；普通张量读不到（子进程写的是它自己那份页面副本）。",
})
def _shared_memory_seen_across_processes() -> Fact:
    import torch.multiprocessing as mp

    context = mp.get_context("fork")
    shared, private = torch.zeros(3).share_memory_(), torch.zeros(3)
    exits = []
    for tensor in (shared, private):
        child = context.Process(target=_child_writes, args=(tensor,))
        child.start()
        child.join()
        exits.append(child.exitcode)
    return Fact(exits == [0, 0] and shared.tolist() == [7.0] * 3 and private.tolist() == [0.0] * 3,
                f"children's exit codes: {exits}; shared tensor in the parent: {shared.tolist()}; ordinary tensor: "
                f"{private.tolist()}")


def _worker_item(index: int) -> tuple[int, int]:
    """What a ``DataLoader`` worker returns for an item: its process id and its worker id."""
    import os

    return os.getpid(), torch.utils.data.get_worker_info().id


class _WorkerIds(torch.utils.data.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> tuple[int, int]:
        return _worker_item(index)


@fact("dataloader-workers-are-processes", {
    "en": "A DataLoader with num_workers=2 (start method fork, batch_size=None) reads 4 items, each returning the "
          "process id and the worker id of the code that loaded it: the ids are 0 and 1, the process ids are two, "
          "and none is the parent's.",
    "zh_CN": "num_workers=2 的 DataLoader（fork 方式启动，batch_size=None）读取 4 个数据项，"
             "每项返回加载它的代码所在进程的 id 和 worker 编号：编号是 0 和 1，进程 id 有两个，都不是父进程的。",
})
def _dataloader_workers_are_processes() -> Fact:
    import os

    expected = set(torch.arange(2).tolist())  # the worker ids, 0 and 1 (a torch call before any process starts)
    loader = torch.utils.data.DataLoader(_WorkerIds(), batch_size=None, num_workers=2,
                                         multiprocessing_context="fork", timeout=30)
    items = [(int(pid), int(worker)) for pid, worker in loader]
    pids, workers = {pid for pid, _ in items}, {worker for _, worker in items}
    return Fact(len(pids) == 2 and os.getpid() not in pids and workers == expected,
                f"worker ids: {sorted(workers)}; worker processes: {len(pids)}; the parent among them: "
                f"{os.getpid() in pids}")


class _Gate:
    """An item whose pickling waits until ``opened`` is set: it holds a queue's feeder thread before the next item."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    def __reduce__(self):
        self.opened.wait(30)
        return int, (0,)


def _shares(array: np.ndarray, t: torch.Tensor) -> bool:
    return array.__array_interface__["data"][0] == t.data_ptr()


@fact("share-memory-leaves-early-array", {
    "en": "On the CPU, for a = torch.zeros(3): an array taken by a.numpy() before a.share_memory_() no longer shares "
          "a's memory afterwards; one taken after it shares a's memory and follows a.add_(1). For b = torch.zeros(3) "
          "sent with q.put((gate, b)) on a torch.multiprocessing Queue q in the same process, where pickling gate "
          "waits until the caller lets it go: put returns with b's storage where it was and not shared, an array "
          "taken by b.numpy() then shares b's memory, and once the caller lets gate go and q.get() returns, b's "
          "storage is in shared memory at a new address and that array no longer shares b's memory. Sending the "
          "already shared a through q (put, then get) leaves a's storage where it is: the array taken after "
          "share_memory_() still shares a's memory.",
    "zh_CN": "在 CPU 上，对 a = torch.zeros(3)：在 a.share_memory_() 之前用 a.numpy() 取的数组，之后不再与 a 共享内存；"
             "之后取的数组与 a 共享内存，随 a.add_(1) 而变。对 b = torch.zeros(3)，在同一个进程里用 "
             "torch.multiprocessing 的 Queue q 执行 q.put((gate, b))，其中 gate 的序列化要等调用方放行："
             "put 返回时 b 的存储还在原处、不在共享内存里，这时用 b.numpy() 取的数组与 b 共享内存；调用方放行 gate、"
             "q.get() 返回之后，b 的存储已在共享内存里，地址变了，那个数组不再与 b 共享内存。"
             "把已在共享内存里的 a 经 q 发送（put 再 get），a 的存储留在原处：share_memory_() 之后取的数组仍与 a "
             "共享内存。",
})
def _share_memory_leaves_early_array() -> Fact:
    """An array taken before share_memory_(), or right after Queue.put of a tensor not yet shared, is left behind;
    sharing first and taking the array after keeps it on the tensor's memory when the tensor is sent."""
    import torch.multiprocessing as mp

    a = torch.zeros(3)
    early = a.numpy()
    a.share_memory_()
    late = a.numpy()
    a.add_(1)
    left_behind = not _shares(early, a)
    follows = _shares(late, a) and late.tolist() == [1.0] * 3
    queue, gate, b = mp.Queue(), _Gate(), torch.zeros(3)
    address = b.untyped_storage().data_ptr()
    queue.put((gate, b))
    at_return = b.untyped_storage().data_ptr() == address and not b.is_shared()
    taken = b.numpy()
    on_b = _shares(taken, b)
    gate.opened.set()
    queue.get(timeout=30)
    moved = b.is_shared() and b.untyped_storage().data_ptr() != address and not _shares(taken, b)
    address = a.untyped_storage().data_ptr()
    queue.put(a)
    queue.get(timeout=30)
    stays = a.untyped_storage().data_ptr() == address and _shares(late, a)
    queue.close()
    queue.join_thread()
    return Fact(left_behind and follows and at_return and on_b and moved and stays,
                f"array before share_memory_() left behind: {left_behind}; array after follows a: {follows}; "
                f"b not moved when put returned: {at_return}, array taken then on b: {on_b}; b moved after get, "
                f"that array left behind: {moved}; shared a stays when sent: {stays}")
