"""Named facts on memory reached through another route: a file mapped twice (a private mapping too), DLPack over a
NumPy array with a negative stride (which a forked child runs, as it ends the process), and the NumPy and DLPack calls
the glossary's alias entry names (``copy=True`` making the DLPack ones copy). Registered on import by
:mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import faulthandler
import functools
import itertools
import mmap
import os
import signal
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import enable_grad_inside


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


@fact("private-file-mapping-reads-other-writes", {
    "en": "On Linux, a file of two memory pages of float32 zeros mapped with torch.from_file(path, shared=True) and "
          "with torch.from_file(path, shared=False): the two address ranges are disjoint. A write through the "
          "shared mapping (first element) and one through np.memmap(path, mode='r+') (second element) are read "
          "through the private mapping; the private mapping's own write (third element) reaches neither the shared "
          "mapping nor the file; after it, a write through the shared mapping to the fourth element (the same "
          "page) is no longer read through the private mapping, while one to the first element of the second "
          "page still is.",
    "zh_CN": "在 Linux 上，一个占两个内存页、全是 float32 零值的文件，用 torch.from_file(path, shared=True) 和 "
             "torch.from_file(path, shared=False) 各映射一次：两段地址范围互不重叠。经由共享映射写入的值（第一个元素）"
             "和经由 np.memmap(path, mode='r+') 写入的值（第二个元素），从私有映射都读得到；私有映射自己写入的值"
             "（第三个元素）既到不了共享映射，也到不了文件；在它之后，经由共享映射写入第四个元素（同一页）的值，"
             "私有映射就读不到了，而写入第二页第一个元素的值仍然读得到。",
})
def _private_file_mapping_reads_other_writes() -> Fact:
    """A private mapping of a file: other mappings' writes show on the pages it has not written itself."""
    page = mmap.PAGESIZE // 4  # float32 elements per memory page
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "zeros.bin"
        np.zeros(2 * page, dtype=np.float32).tofile(path)
        shared = torch.from_file(str(path), shared=True, size=2 * page, dtype=torch.float32)
        private = torch.from_file(str(path), shared=False, size=2 * page, dtype=torch.float32)
        array = np.memmap(path, dtype=np.float32, mode="r+", shape=(2 * page,))
        (_, lower_end), (upper_start, _) = sorted([_byte_range(shared), _byte_range(private)])
        disjoint = lower_end <= upper_start
        shared[0] = 1.0
        array[1] = 2.0
        array.flush()
        others_read = private[:2].tolist() == [1.0, 2.0]
        private[2] = 3.0
        own_kept = shared[2].item() == 0.0 and float(np.fromfile(path, dtype=np.float32)[2]) == 0.0
        shared[3] = 4.0
        shared[page] = 5.0
        after_own = (private[3].item(), private[page].item())
        del array
    holds = sys.platform == "linux" and disjoint and others_read and own_kept and after_own == (0.0, 5.0)
    return Fact(holds, f"platform {sys.platform}; byte ranges disjoint: {disjoint}; shared and np.memmap writes read "
                       f"through the private mapping: {others_read}; its own write kept from the shared mapping and "
                       f"the file: {own_kept}; then (same page, second page) read: {after_own}")


def _from_dlpack(array: np.ndarray) -> None:
    """The child: torch's abort message would go to the build's stderr, and a fault handler's traceback (pytest
    enables one, on a copy of stderr) to the test log, so both go nowhere: the abort is the expected outcome."""
    faulthandler.disable()
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    torch.from_dlpack(array)  # looked up when called, so the child runs the torch the parent has


@fact("from-dlpack-aborts-on-flipped-array", {
    "en": "In a forked child, torch.from_dlpack of a NumPy array with a negative stride: np.arange(6)[::-1], "
          "np.arange(2)[::-1] and a (2, 3) array flipped along its last axis, each in float32 and float64: each "
          "child ends with SIGABRT (the process aborts) instead of an exception. Arrays flipped along an axis of one "
          "element, np.arange(1)[::-1] and a (3, 1) array flipped along its last axis, and the empty "
          "np.arange(0)[::-1], each in float64, are taken: those children exit with 0.",
    "zh_CN": "在 fork 出的子进程里，对带负步长的 NumPy 数组调用 torch.from_dlpack：np.arange(6)[::-1]、"
             "np.arange(2)[::-1] 和沿最后一维翻转的 (2, 3) 数组，各用 float32 和 float64。每个子进程都以 SIGABRT "
             "结束（进程被中止），而不是抛出异常。沿只有一个元素的维翻转的数组（np.arange(1)[::-1] 和沿最后一维翻转的 "
             "(3, 1) 数组）以及空的 np.arange(0)[::-1]，都用 float64，则照常转换：这些子进程的退出码是 0。",
}, {"en": "9 flipped arrays (six shapes; the first three in float32 and float64), torch 2.13.0 on the CPU",
    "zh_CN": "9 个翻转的数组（六种形状，前三种各用 float32 和 float64），CPU 上的 torch 2.13.0"})
def _from_dlpack_aborts_on_flipped_array() -> Fact:
    exits = {}
    torch.ones(1).add(1)  # torch runs in this process too (a check that torch is off must see it)
    arrays = {}
    for dtype in (np.float32, np.float64):
        arrays.update({f"arange(6)[::-1] {np.dtype(dtype).name}": np.arange(6, dtype=dtype)[::-1],
                       f"arange(2)[::-1] {np.dtype(dtype).name}": np.arange(2, dtype=dtype)[::-1],
                       f"(2, 3)[..., ::-1] {np.dtype(dtype).name}": np.arange(6, dtype=dtype).reshape(2, 3)[..., ::-1]})
    taken = {"arange(1)[::-1]": np.arange(1.0)[::-1], "(3, 1)[..., ::-1]": np.arange(3.0).reshape(3, 1)[..., ::-1],
             "arange(0)[::-1]": np.arange(0.0)[::-1]}
    for name, array in {**arrays, **taken}.items():
        child = torch.multiprocessing.get_context("fork").Process(target=_from_dlpack, args=(array,))
        child.start()
        child.join(30)
        exits[name] = child.exitcode
    aborted = {exits[name] for name in arrays} == {-signal.SIGABRT}
    return Fact(aborted and {exits[name] for name in taken} == {0},
                f"exit codes (-{int(signal.SIGABRT)} is SIGABRT): {exits}")


#: The calls the glossary's alias entry names, given no other argument, and the DLPack ones with copy=True: the
#: name, whether the call is on a tensor t (or a NumPy array n), and the call. Looked up when called, so that a
#: test can replace torch.from_dlpack.
ALIAS_CALLS = {
    "t.numpy()": (True, lambda t: t.numpy()),
    "torch.from_numpy(n)": (False, lambda n: torch.from_numpy(n)),
    "np.from_dlpack(t)": (True, lambda t: np.from_dlpack(t)),
    "torch.from_dlpack(t)": (True, lambda t: torch.from_dlpack(t)),
    "torch.from_dlpack(n)": (False, lambda n: torch.from_dlpack(n)),
}
DLPACK_COPIES = {
    "np.from_dlpack(t, copy=True)": (True, lambda t: np.from_dlpack(t, copy=True)),
    "torch.from_dlpack(t, copy=True)": (True, lambda t: torch.from_dlpack(t, copy=True)),
    "torch.from_dlpack(n, copy=True)": (False, lambda n: torch.from_dlpack(n, copy=True)),
}
#: The dtypes the alias calls run in, and the sources' layouts: (length of the whole, step), the source being
#: whole[::step]: contiguous, and every other element of a longer one.
ALIAS_DTYPES = (np.float32, np.float64, np.int64)
ALIAS_LAYOUTS = {"contiguous": (4, 1), "strided": (8, 2)}
#: On a bfloat16 t (NumPy lacks the dtype): the error a call raises, or (a write through the result reaches t, one
#: through t reaches the result).
BFLOAT16_CALLS = {"t.numpy()": TypeError, "np.from_dlpack(t)": RuntimeError,
                  "np.from_dlpack(t, copy=True)": RuntimeError, "torch.from_dlpack(t)": (True, True),
                  "torch.from_dlpack(t, copy=True)": (False, False)}


def _reaches(call, on_tensor: bool, dtype: type, layout: str) -> tuple[bool, bool]:
    """On a fresh source of four values (a CPU tensor or a NumPy array): whether a write through what ``call``
    returns is read through the source, and one through the source is read through what it returns."""
    length, step = ALIAS_LAYOUTS[layout]
    whole = torch.arange(length, dtype=dtype) if isinstance(dtype, torch.dtype) else np.arange(length, dtype=dtype)
    source = (torch.tensor(whole) if on_tensor and isinstance(whole, np.ndarray) else whole)[::step]
    result = call(source)
    result[...] = 7
    forward = [int(v) for v in source.tolist()] == [7, 7, 7, 7]
    source[...] = 5
    backward = [int(v) for v in result.tolist()] == [5, 5, 5, 5]
    return forward, backward


def _dlpack_with_bits() -> dict[str, bool]:
    """For each DLPack call on a tensor (with and without copy=True), in complex64 and complex128, with
    z = [1+2j, 3-1j]: whether it raises BufferError on z.conj() (conjugate bit set), and on t = z.conj().imag
    (negative bit set) whether it gives, without copy=True, an alias without the bit that reads the negatives of
    t's values (a write through either side is read, negated, through the other), with copy=True, t's values in
    memory of their own (neither write reaches the other)."""
    seen = {}
    for dtype in (torch.complex64, torch.complex128):
        for name, (on_tensor, call) in {**ALIAS_CALLS, **DLPACK_COPIES}.items():
            if not on_tensor or "dlpack" not in name:
                continue
            z = torch.tensor([1 + 2j, 3 - 1j], dtype=dtype)
            try:
                call(z.conj())
            except BufferError:
                seen[f"{name} raises on the conjugate bit, {dtype}"] = True
            else:
                seen[f"{name} raises on the conjugate bit, {dtype}"] = False
            t = z.conj().imag
            values = t.tolist()
            result = torch.as_tensor(call(t))
            sign = 1 if "copy=True" in name else -1
            read = result.tolist() == [sign * v for v in values] and t.is_neg() and not result.is_neg()
            result[0] = 5
            t[1] = 4
            forward, backward = t[0].item() == -5, result[1].item() == -4
            seen[f"{name} on the negative bit, {dtype}"] = read and (forward, backward) == ((sign < 0,) * 2)
    return seen


def _tensor_calls_refuse() -> dict[str, bool]:
    """Whether the calls on a tensor raise where the glossary's alias entry says so, in the cases the text of
    ``alias-calls-share-memory`` lists (bfloat16 as BFLOAT16_CALLS says)."""
    seen = {}
    for layout, (name, expected) in itertools.product(ALIAS_LAYOUTS, BFLOAT16_CALLS.items()):
        on_t = functools.partial(_reaches, {**ALIAS_CALLS, **DLPACK_COPIES}[name][1], True, torch.bfloat16, layout)
        seen[f"{name} on bfloat16, {layout}: {getattr(expected, '__name__', expected)}"] = (
            _raises(expected, on_t) if isinstance(expected, type) else on_t() == expected)
    for dtype in (torch.complex64, torch.complex128):
        z = torch.tensor([1 + 2j, 3 - 1j], dtype=dtype)
        for bit, t in (("conjugate", z.conj()), ("negative", z.conj().imag)):
            seen[f"t.numpy() raises on the {bit} bit, {dtype}"] = _raises(RuntimeError, t.numpy)
    dlpack = {name: call for name, (on_tensor, call) in {**ALIAS_CALLS, **DLPACK_COPIES}.items()
              if on_tensor and "dlpack" in name}
    modes = {"grad mode on": contextlib.nullcontext, "torch.no_grad()": torch.no_grad,
             "torch.inference_mode()": torch.inference_mode}
    for dtype in (torch.float32, torch.float64):
        leaf = torch.ones(4, dtype=dtype, requires_grad=True)
        for source, t in (("leaf", leaf), ("Parameter", torch.nn.Parameter(torch.ones(4, dtype=dtype))),
                          ("non-leaf", leaf * 2)):
            for mode, context in modes.items():
                with context():
                    for name, call in dlpack.items():
                        seen[f"{name} raises, {source} that requires grad, {dtype}, {mode}"] = _raises(
                            BufferError, lambda call=call, t=t: call(t))
            for mode, context in (("grad mode on", contextlib.nullcontext()),
                                  ("enable_grad() in inference_mode()", enable_grad_inside(torch.inference_mode))):
                with context:
                    seen[f"t.numpy() raises, {source} that requires grad, {dtype}, {mode}"] = _raises(
                        RuntimeError, t.numpy)
            with torch.no_grad():
                seen[f"t.numpy() works, {source} that requires grad, {dtype}, torch.no_grad()"] = not _raises(
                    RuntimeError, t.numpy)
    return seen


def _raises(error: type[Exception], call) -> bool:
    """Whether ``call()`` raises ``error``."""
    try:
        call()
    except error:
        return True
    return False


@fact("alias-calls-share-memory", {
    "en": "On a CPU tensor t or a NumPy array n of four values, in float32, float64 and int64, contiguous and "
          "taken as every other element of a longer one: a write through what t.numpy(), torch.from_numpy(n), "
          "np.from_dlpack(t), torch.from_dlpack(t) and torch.from_dlpack(n) return is read through t or n, and a "
          "write through t or n is read through it. What np.from_dlpack(t, copy=True), "
          "torch.from_dlpack(t, copy=True) and torch.from_dlpack(n, copy=True) return is a copy: neither write "
          "reaches the other. On z = [1+2j, 3-1j] (complex64 and complex128): np.from_dlpack and torch.from_dlpack, "
          "with copy=True or not, raise BufferError on z.conj(), which has the conjugate bit; on t = z.conj().imag, "
          "which has the negative bit, np.from_dlpack(t) and torch.from_dlpack(t) return an alias without the bit, "
          "which reads the negatives of t's values, a write through either side being read, negated, through the "
          "other; with copy=True, they return a copy that reads t's values, and neither write reaches the other. "
          "t.numpy() raises RuntimeError on z.conj() and on z.conj().imag. On a t that requires grad (a leaf made "
          "with requires_grad=True, a Parameter and a non-leaf, in float32 and float64), the four DLPack calls on t "
          "raise BufferError with grad mode on, under torch.no_grad() and under torch.inference_mode(), and t.numpy() "
          "raises RuntimeError with grad mode on, and inside torch.inference_mode() with torch.enable_grad(); under "
          "torch.no_grad() it works. On a bfloat16 t (a dtype NumPy "
          "lacks), contiguous and strided as above, t.numpy() raises TypeError, np.from_dlpack(t) raises "
          "RuntimeError (with copy=True too), torch.from_dlpack(t) shares t's memory and "
          "torch.from_dlpack(t, copy=True) copies it.",
    "zh_CN": "对存放四个值的 CPU 张量 t 或 NumPy 数组 n，dtype 分别是 float32、float64 和 int64，"
             "分别是连续的和从更长的源里隔一个取一个得到的：经由 t.numpy()、torch.from_numpy(n)、np.from_dlpack(t)、"
             "torch.from_dlpack(t) 和 torch.from_dlpack(n) 的返回值写入的值，从 t 或 n 读得到；经由 t 或 n 写入的值，"
             "也从返回值读得到。np.from_dlpack(t, copy=True)、torch.from_dlpack(t, copy=True) 和 "
             "torch.from_dlpack(n, copy=True) 返回的是副本：两个方向的写入都到不了另一边。"
             "对 z = [1+2j, 3-1j]（complex64 和 complex128）：np.from_dlpack、torch.from_dlpack "
             "作用于带共轭位（conjugate bit）的 z.conj() 时，无论是否带 copy=True，都报 BufferError；"
             "作用于带负号位（negative bit）的 t = z.conj().imag 时，np.from_dlpack(t) 和 torch.from_dlpack(t) "
             "返回的别名不带负号位，读到的是 t 各值的相反数，"
             "经由任一边写入的值从另一边读到的是它的相反数；带 copy=True 时返回的副本读到 t 的值，"
             "两个方向的写入都到不了另一边。对 z.conj() 和 z.conj().imag，t.numpy() 都报 RuntimeError。"
             "对需要梯度的 t（用 requires_grad=True 创建的叶子张量、Parameter 和非叶子张量，float32 和 float64），"
             "作用于 t 的四个 DLPack 调用在梯度模式（grad mode）开着时、在 torch.no_grad() 下和在 "
             "torch.inference_mode() 下都报 BufferError；t.numpy() 在梯度模式开着时，以及在 "
             "torch.inference_mode() 里用 torch.enable_grad() 时，报 RuntimeError，"
             "在 torch.no_grad() 下可以调用。对 bfloat16（NumPy 没有的 dtype）的 t，连续的和带步长的同上：t.numpy() "
             "报 TypeError，np.from_dlpack(t) 报 RuntimeError（带 copy=True 时也是），torch.from_dlpack(t) 共享 t 的"
             "内存，torch.from_dlpack(t, copy=True) 复制它。",
}, {"en": "the five calls and the three with copy=True, float32, float64 and int64, contiguous and strided, and the "
          "four DLPack calls on a tensor, on a complex64 and a complex128 tensor with the conjugate bit and on its "
          "imag with the negative bit; t.numpy() on those two in complex64 and complex128; the four DLPack calls and "
          "t.numpy() on a leaf, a Parameter and a non-leaf that require grad, in float32 and float64, with grad "
          "mode on and off; t.numpy() and the four DLPack calls on t in bfloat16, contiguous and strided; on the CPU",
    "zh_CN": "这五个调用和带 copy=True 的三个，float32、float64 和 int64，连续的和带步长的；以及作用于张量的四个 "
             "DLPack 调用，作用于带共轭位的 complex64 和 complex128 张量和带负号位的它的 imag；作用于这两者的 "
             "t.numpy()；作用于需要梯度的叶子张量、Parameter 和非叶子张量的四个 DLPack 调用和 t.numpy()，"
             "float32 和 float64，梯度模式开着和关着时；作用于 bfloat16 张量 t 的 t.numpy() 和四个 DLPack 调用，"
             "连续的和带步长的；在 CPU 上"})
def _alias_calls_share_memory() -> Fact:
    """The calls the glossary's alias entry names share their source's memory; the DLPack calls with copy=True
    copy it; the calls on a tensor raise where the entry says so."""
    seen = {(name, dtype.__name__, layout): _reaches(call, on_tensor, dtype, layout)
            for name, (on_tensor, call) in {**ALIAS_CALLS, **DLPACK_COPIES}.items()
            for dtype in ALIAS_DTYPES for layout in ALIAS_LAYOUTS}
    shared = [key for key, reached in seen.items() if key[0] in ALIAS_CALLS and reached == (True, True)]
    copied = [key for key, reached in seen.items() if key[0] in DLPACK_COPIES and reached == (False, False)]
    runs = len(ALIAS_DTYPES) * len(ALIAS_LAYOUTS)
    bits = _dlpack_with_bits()
    refused = _tensor_calls_refuse()
    return Fact(len(shared) == runs * len(ALIAS_CALLS) and len(copied) == runs * len(DLPACK_COPIES)
                and len(bits) == 16 and all(bits.values()) and len(refused) == 104 and all(refused.values()),
                f"(write through it read in the source, write through the source read in it) per call, dtype and "
                f"layout: {seen}; with the conjugate or negative bit set: {bits}; t.numpy() on either bit, and the "
                f"calls on a t that requires grad, as stated in {sum(refused.values())} of {len(refused)} cases"
                + "".join(f"; not so: {key}" for key, held in refused.items() if not held))
