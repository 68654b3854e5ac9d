"""Named facts on processes behind the glossary's definitions (``sitetools/rules/term_facts.py``, ``CHECKED_BY``):
shared memory seen across a fork, and the worker processes of a ``DataLoader``. Each forks its processes (a fork copies
no file and needs nothing pickled). Also the decide page's NumPy entry: ``share_memory_()``, a queue's feeder
thread and pickling for spawn leave an array taken before behind, unless the tensor is a non-leaf that requires grad,
which is not sent at all (no child process). And the ``SIGCHLD`` handler a ``DataLoader`` installs when it
starts its first worker, and at no later one. Registered on import by :mod:`tensorfacts.facts`, whose
docstring says what a fact is.
"""

from __future__ import annotations

import threading

import numpy as np
import torch
import torch.utils.data

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import fresh_python


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
          "share_memory_() still shares a's memory. Pickling with ForkingPickler.dumps, as for a process started "
          "with spawn or forkserver, c = torch.zeros(3) and a leaf torch.zeros(3, requires_grad=True), each with an "
          "array taken by .detach().numpy() before: each tensor's storage is then in shared memory at a new address "
          "and its array no longer shares its memory. For n = torch.zeros(3, requires_grad=True) * 2 (a non-leaf "
          "that requires grad), with such an array: ForkingPickler.dumps(n) raises a RuntimeError naming the "
          "non-leaf tensor; q2.put(n) then q2.put(1) on a new Queue q2 return, q2.get() gives 1, and q2's feeder "
          "thread raised that RuntimeError on n; after each, n's storage is where it was, not shared, and the array "
          "still shares n's memory; n.share_memory_() then moves it into shared memory, and the array no longer "
          "shares n's memory. Under the file_descriptor sharing strategy, a torch.empty(0), whose storage is "
          "empty, keeps its storage's address through each of share_memory_(), ForkingPickler.dumps and a put and "
          "get on a Queue.",
    "zh_CN": "在 CPU 上，对 a = torch.zeros(3)：在 a.share_memory_() 之前用 a.numpy() 取的数组，之后不再与 a 共享内存；"
             "之后取的数组与 a 共享内存，随 a.add_(1) 而变。对 b = torch.zeros(3)，在同一个进程里用 "
             "torch.multiprocessing 的 Queue q 执行 q.put((gate, b))，其中 gate 的序列化要等调用方放行："
             "put 返回时 b 的存储还在原处、不在共享内存里，这时用 b.numpy() 取的数组与 b 共享内存；调用方放行 gate、"
             "q.get() 返回之后，b 的存储已在共享内存里，地址变了，那个数组不再与 b 共享内存。"
             "把已在共享内存里的 a 经 q 发送（put 再 get），a 的存储留在原处：share_memory_() 之后取的数组仍与 a "
             "共享内存。像为 spawn 或 forkserver 方式启动的进程那样，用 ForkingPickler.dumps 序列化 "
             "c = torch.zeros(3) 和叶子张量 torch.zeros(3, requires_grad=True)，序列化之前各用 .detach().numpy() "
             "取一个数组：之后每个张量的存储都在共享内存里，地址变了，它的数组不再与它共享内存。对 "
             "n = torch.zeros(3, requires_grad=True) * 2（需要梯度的非叶子张量），同样先取数组："
             "ForkingPickler.dumps(n) 报 RuntimeError，报错信息点名非叶子张量；在新的 Queue q2 上执行 "
             "q2.put(n) 和 q2.put(1) 都正常返回，q2.get() 得到 1，q2 的 feeder 线程在 n 上报了同一个 "
             "RuntimeError；每次之后 n 的存储都在原处、不在共享内存里，数组仍与 n 共享内存；之后 n.share_memory_() "
             "把它搬进共享内存，数组就不再与 n 共享内存。在共享策略 file_descriptor 下，存储为空的 "
             "torch.empty(0) 经过 share_memory_()、ForkingPickler.dumps 或 Queue 上的一次 put 和 get，"
             "存储的地址都不变。",
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
    pickled, non_leaf, empty = _pickling_moves_storage(), _non_leaf_not_sent(), _empty_storage_stays()
    return Fact(left_behind and follows and at_return and on_b and moved and stays and pickled[0] and non_leaf[0]
                and empty[0],
                f"array before share_memory_() left behind: {left_behind}; array after follows a: {follows}; "
                f"b not moved when put returned: {at_return}, array taken then on b: {on_b}; b moved after get, "
                f"that array left behind: {moved}; shared a stays when sent: {stays}; {pickled[1]}; {non_leaf[1]}; "
                f"{empty[1]}")


def _empty_storage_stays() -> tuple[bool, str]:
    """An empty storage is not moved by share_memory_(), by pickling or by a queue. (holds, trace)"""
    from multiprocessing.reduction import ForkingPickler

    import torch.multiprocessing as mp

    def pickle(t: torch.Tensor) -> None:
        ForkingPickler.dumps(t)

    def send(t: torch.Tensor) -> None:
        queue = mp.Queue()
        queue.put(t)
        queue.get(timeout=30)
        queue.close()
        queue.join_thread()

    seen = {}
    for name, route in (("share_memory_()", torch.Tensor.share_memory_), ("ForkingPickler.dumps", pickle),
                        ("Queue put and get", send)):
        e = torch.empty(0)
        address = e.untyped_storage().data_ptr()
        route(e)
        seen[name] = e.untyped_storage().nbytes() == 0 and e.untyped_storage().data_ptr() == address
    strategy = torch.multiprocessing.get_sharing_strategy()
    return all(seen.values()) and strategy == "file_descriptor", (
        f"an empty storage keeps its address under the {strategy} sharing strategy: {seen}")


def _pickling_moves_storage() -> tuple[bool, str]:
    """ForkingPickler.dumps (what spawn and forkserver use) moves a plain tensor's and a leaf's storage into shared
    memory, leaving an array taken before behind. (holds, trace)"""
    from multiprocessing.reduction import ForkingPickler

    seen = {}
    for name, t in (("torch.zeros(3)", torch.zeros(3)), ("leaf", torch.zeros(3, requires_grad=True))):
        early, address = t.detach().numpy(), t.untyped_storage().data_ptr()
        ForkingPickler.dumps(t)
        seen[name] = t.is_shared() and t.untyped_storage().data_ptr() != address and not _shares(early, t)
    return all(seen.values()), f"pickled, moved to shared memory and the early array left behind: {seen}"


def _non_leaf_not_sent() -> tuple[bool, str]:
    """A non-leaf that requires grad is neither pickled nor sent through a queue (whose feeder thread raises after put
    returned): its storage stays, and an array taken before still shares it; share_memory_() still moves it.
    (holds, trace)"""
    from multiprocessing.reduction import ForkingPickler

    import torch.multiprocessing as mp

    n = torch.zeros(3, requires_grad=True) * 2
    early, address = n.detach().numpy(), n.untyped_storage().data_ptr()

    def unmoved() -> bool:
        return n.untyped_storage().data_ptr() == address and not n.is_shared() and _shares(early, n)

    try:
        ForkingPickler.dumps(n)
    except RuntimeError as exc:
        pickling = "non-leaf" in str(exc)
    else:
        pickling = False
    after_pickling = unmoved()
    queue, feeder_errors = mp.Queue(), []

    def record(exc: Exception, obj: object) -> None:
        feeder_errors.append((exc, obj))

    # the hook a Queue's feeder thread calls when pickling an item raises (by default it prints the traceback)
    queue._on_queue_feeder_error = record
    queue.put(n)
    queue.put(1)
    first = queue.get(timeout=30)
    queue.close()
    queue.join_thread()
    dropped = (first == 1 and len(feeder_errors) == 1 and feeder_errors[0][1] is n
               and isinstance(feeder_errors[0][0], RuntimeError) and "non-leaf" in str(feeder_errors[0][0]))
    after_queue = unmoved()
    n.share_memory_()
    shared = n.is_shared() and n.untyped_storage().data_ptr() != address and not _shares(early, n)
    return (pickling and after_pickling and dropped and after_queue and shared,
            f"non-leaf: pickling raises: {pickling}, storage unmoved after: {after_pickling}; through a queue, first "
            f"item got: {first!r}, feeder errors: {[type(e).__name__ for e, _ in feeder_errors]}, storage unmoved "
            f"after: {after_queue}; share_memory_() moves it, the array left behind: {shared}")


#: Run in a fresh interpreter, so that this process's threads play no part: the parent uses two of torch's
#: threads, then forks a child that adds one to its 4,000,000 floats, and one that first calls
#: ``torch.set_num_threads(1)``. Prints whether each was still running after 5 s, its exit code, and the parent's value.
_FORK_AFTER_THREADS = """
import json
import torch
import torch.multiprocessing as mp

torch.set_num_threads(2)
big = torch.zeros(4_000_000)
big.add_(1)


def edit(one_thread):
    if one_thread:
        torch.set_num_threads(1)
    big.add_(1)


seen = {}
for one_thread in (False, True):
    child = mp.get_context("fork").Process(target=edit, args=(one_thread,))
    child.start()
    child.join(5)
    running = child.is_alive()
    child.terminate()
    child.join(5)
    seen[str(one_thread)] = [running, child.exitcode]
print(json.dumps({"children": seen, "parent": big.unique().tolist()}))
"""


def _worker_threads(index: int) -> int:
    return torch.get_num_threads()


class _WorkerThreads(torch.utils.data.Dataset):
    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: int) -> int:
        return _worker_threads(index)


@fact("forked-child-needs-one-thread", {
    "en": "In a fresh Python process that calls torch.set_num_threads(2) and adds 1 to a tensor of 4,000,000 "
          "floats: a child forked from it (torch.multiprocessing, start method fork) that adds 1 to that tensor is "
          "still running after 5 s (then terminated); one that first calls torch.set_num_threads(1) ends within "
          "5 s with exit code 0, and the parent's tensor still holds 1. In this process, a DataLoader worker "
          "(num_workers=1, start method fork) reads torch.get_num_threads() as 1.",
    "zh_CN": "在一个新的 Python 进程里调用 torch.set_num_threads(2)，对一个有 4,000,000 个浮点数的张量加 1："
             "从它 fork 出的子进程（torch.multiprocessing，fork 方式启动）对这个张量加 1，5 秒后仍在运行"
             "（随后被终止）；先调用 torch.set_num_threads(1) 的子进程在 5 秒内结束，退出码为 0，"
             "父进程的张量仍是 1。在本进程里，DataLoader 的 worker 进程（num_workers=1，fork 方式启动）"
             "读到的 torch.get_num_threads() 是 1。",
})
def _forked_child_needs_one_thread() -> Fact:
    import json

    ran = fresh_python(_FORK_AFTER_THREADS)
    seen = json.loads(ran.stdout) if ran.returncode == 0 else {"children": {}, "parent": [], "error": ran.stderr[-300:]}
    plain, one_thread = seen["children"].get("False"), seen["children"].get("True")
    plain_hangs = plain is not None and plain[0]
    one_thread_ends = one_thread == [False, 0] and seen["parent"] == [1.0]
    loader = torch.utils.data.DataLoader(_WorkerThreads(), batch_size=None, num_workers=1,
                                         multiprocessing_context="fork", timeout=30)
    worker_threads = [int(threads) for threads in loader]
    worker_one_thread = worker_threads == [1]
    return Fact(plain_hangs and one_thread_ends and worker_one_thread,
                f"fresh process with 2 threads: children (still running after 5 s, exit code), plain and after "
                f"set_num_threads(1): {plain}, {one_thread}; parent's tensor: {seen['parent']}"
                f"{'; ' + seen['error'] if 'error' in seen else ''}; DataLoader worker's torch.get_num_threads(): "
                f"{worker_threads}")


def _load_in_one_worker() -> None:
    """Read the 4 items of ``_WorkerIds`` through a ``DataLoader`` with one forked worker."""
    for _ in torch.utils.data.DataLoader(_WorkerIds(), batch_size=None, num_workers=1,
                                         multiprocessing_context="fork", timeout=30):
        pass


def _no_handler(signum, frame) -> None:
    """A ``SIGCHLD`` handler of this module's own, put in place before a second ``DataLoader`` starts."""


@fact("dataloader-sigchld-handler-once", {
    "en": "In this process's main thread, with torch's record that a DataLoader installed its SIGCHLD handler "
          "cleared (torch.utils.data._utils.signal_handling._SIGCHLD_handler_set, an internal flag) and the default "
          "SIGCHLD handler in place: a DataLoader with one worker (start method fork, batch_size=None) that reads "
          "4 items leaves a handler of torch.utils.data._utils.signal_handling in place; with a handler of another "
          "module then put in place, a second such DataLoader leaves that handler as it is. The flag and the "
          "handler are put back after.",
    "zh_CN": "在本进程的主线程里，清掉 torch 记录 DataLoader 已装好 SIGCHLD 处理函数的标志"
             "（torch.utils.data._utils.signal_handling._SIGCHLD_handler_set，内部标志），并换上默认的 SIGCHLD "
             "处理函数：一个只有一个 worker（fork 方式启动，batch_size=None）的 DataLoader 读完 4 个数据项后，"
             "装上的是 torch.utils.data._utils.signal_handling 的处理函数；再换上别的模块的处理函数，"
             "第二个同样的 DataLoader 读完后，这个处理函数原样留着。标志和处理函数最后都恢复原样。",
})
def _dataloader_sigchld_handler_once() -> Fact:
    import signal

    from torch.utils.data._utils import signal_handling

    was_set, before = signal_handling._SIGCHLD_handler_set, signal.getsignal(signal.SIGCHLD)
    try:
        signal_handling._SIGCHLD_handler_set = False
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _load_in_one_worker()
        first = signal.getsignal(signal.SIGCHLD)
        signal.signal(signal.SIGCHLD, _no_handler)
        _load_in_one_worker()
        later = signal.getsignal(signal.SIGCHLD)
    finally:
        signal_handling._SIGCHLD_handler_set = was_set
        signal.signal(signal.SIGCHLD, before)
    installed = getattr(first, "__module__", None) == signal_handling.__name__
    kept = later is _no_handler
    return Fact(installed and kept,
                f"SIGCHLD handler after the first DataLoader: {getattr(first, '__qualname__', first)} of "
                f"{getattr(first, '__module__', None)}; after the second, with _no_handler put in place before it: "
                f"{getattr(later, '__qualname__', later)}")
