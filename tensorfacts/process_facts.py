"""Named facts on processes behind the glossary's definitions (``sitetools/rules/term_facts.py``, ``CHECKED_BY``):
shared memory seen across a fork, and the worker processes of a ``DataLoader``. Each forks its processes (a fork copies
no file and needs nothing pickled). Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a
fact is.
"""

from __future__ import annotations

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
