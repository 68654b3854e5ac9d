"""Named facts on memory reached through another route: a file mapped twice, and DLPack over a NumPy array
with a negative stride (which a forked child runs, as it ends the process). Registered on import by
:mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    """The first and one-past-the-last byte of a contiguous 1-D CPU tensor's elements."""
    return t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()


@fact("file-mapped-twice-shares-bytes", {
    "en": "A file of 8 float32 values mapped twice with torch.from_file(path, shared=True, size=8) and once with "
          "np.memmap(path, mode='r+'): the three address ranges are disjoint, yet a write through one mapping "
          "is read through the others (first[0] = 100 is seen by second and by the array; array[1] = 200 by "
          "first).",
    "zh_CN": "一个存有 8 个 float32 值的文件，用 torch.from_file(path, shared=True, size=8) 映射两次，"
             "再用 np.memmap(path, mode='r+') 映射一次：三段地址范围互不重叠，可经由一个映射写入的值，"
             "从另外两个映射都读得到（first[0] = 100 在 second 和数组里都看得到；array[1] = 200 在 first 里看得到）。",
})
def _file_mapped_twice() -> Fact:
    """Two mappings of one file: disjoint byte ranges over the same bytes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "values.bin"
        np.arange(8, dtype=np.float32).tofile(path)
        first = torch.from_file(str(path), shared=True, size=8, dtype=torch.float32)
        second = torch.from_file(str(path), shared=True, size=8, dtype=torch.float32)
        array = np.memmap(path, dtype=np.float32, mode="r+", shape=(8,))
        ranges = sorted([_byte_range(first), _byte_range(second),
                         (array.ctypes.data, array.ctypes.data + array.nbytes)])
        disjoint = all(end <= start for (_, end), (start, _) in zip(ranges, ranges[1:], strict=False))
        first[0] = 100.0
        first_write_seen = second[0].item() == 100.0 and float(array[0]) == 100.0
        array[1] = 200.0
        array.flush()
        array_write_seen = first[1].item() == 200.0
        del array
    return Fact(disjoint and first_write_seen and array_write_seen,
                f"byte ranges disjoint: {disjoint}; first[0] = 100 seen by second and the array: {first_write_seen}; "
                f"array[1] = 200 seen by first: {array_write_seen}")


def _from_dlpack(array: np.ndarray) -> None:
    """The child: torch's abort message would go to the build's stderr, so it goes nowhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    torch.from_dlpack(array)  # looked up when called, so the child runs the torch the parent has


@fact("from-dlpack-aborts-on-flipped-array", {
    "en": "In a forked child, torch.from_dlpack of a NumPy array with a negative stride: np.arange(6)[::-1] and "
          "a (2, 3) array flipped along its last axis, each in float32 and float64. Each child ends with "
          "SIGABRT (the process aborts) instead of an exception.",
    "zh_CN": "在 fork 出的子进程里，对带负步长的 NumPy 数组调用 torch.from_dlpack：np.arange(6)[::-1] 和沿最后一维"
             "翻转的 (2, 3) 数组，各用 float32 和 float64。每个子进程都以 SIGABRT 结束（进程被中止），而不是抛出异常。",
}, {"en": "4 flipped arrays (two shapes, float32 and float64), torch 2.13.0 on the CPU",
    "zh_CN": "4 个翻转的数组（两种形状，float32 和 float64），CPU 上的 torch 2.13.0"})
def _from_dlpack_aborts_on_flipped_array() -> Fact:
    exits = {}
    torch.ones(1).add(1)  # torch runs in this process too (a check that torch is off must see it)
    for dtype in (np.float32, np.float64):
        for name, array in {"arange(6)[::-1]": np.arange(6, dtype=dtype)[::-1],
                            "(2, 3)[..., ::-1]": np.arange(6, dtype=dtype).reshape(2, 3)[..., ::-1]}.items():
            child = torch.multiprocessing.get_context("fork").Process(target=_from_dlpack, args=(array,))
            child.start()
            child.join(30)
            exits[f"{name} {np.dtype(dtype).name}"] = child.exitcode
    return Fact(set(exits.values()) == {-signal.SIGABRT}, f"exit codes (-{int(signal.SIGABRT)} is SIGABRT): {exits}")
