"""Named facts on two index reads the glossary's definitions of basic and advanced indexing name
(``sitetools/rules/term_facts.py``, ``CHECKED_BY``; the other cases are :mod:`tensorfacts.layout_facts`'s): a slice with
a negative step makes the read raise, and a NumPy index array or mask reads into a copy. Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.layout_facts import DTYPES, _base

#: Slices with a negative step of a (4, 6) tensor.
NEGATIVE_STEP = {"x[::-1]": lambda x: x[::-1], "x[:, ::-2]": lambda x: x[:, ::-2]}

#: NumPy index arrays and masks of a (4, 6) tensor.
NUMPY_ADVANCED = {
    "x[np.array([0, 2])]": lambda x: x[np.array([0, 2])],
    "x[np.array([0, 2], dtype=np.int32)]": lambda x: x[np.array([0, 2], dtype=np.int32)],
    "x[np.array([[0], [3]])]": lambda x: x[np.array([[0], [3]])],
    "x[np.array([True, False, True, False])]": lambda x: x[np.array([True, False, True, False])],
    "x[np_mask]": lambda x: x[np.arange(24).reshape(4, 6) % 2 == 0],
}
#: The other integer dtypes of a NumPy index array: each gathers as an int64 array does.
NUMPY_INTEGERS = (np.int8, np.int16, np.uint16, np.uint32, np.uint64)
#: A uint8 index, array or tensor, is read as a mask (deprecated): rows 0 and 2 of four.
UINT8_MASKS = {"x[np.array([1, 0, 1, 0], dtype=np.uint8)]": lambda x: x[np.array([1, 0, 1, 0], dtype=np.uint8)],
               "x[torch.tensor([1, 0, 1, 0], dtype=torch.uint8)]":
                   lambda x: x[torch.tensor([1, 0, 1, 0], dtype=torch.uint8)]}


@fact("negative-step-slice-raises", {
    "en": "Reads x[::-1] and x[:, ::-2] and checks that each raises ValueError, on x on the CPU and on the meta "
          "device; then checks that x.flip(0) is not a view, has a storage of its own and holds the rows of x in "
          "reverse order.",
    "zh_CN": "读取 x[::-1] 和 x[:, ::-2]，检查 x 在 CPU 上和在 meta 设备上时都报 ValueError；"
             "再检查 x.flip(0) 不是视图，有自己的存储，按相反的顺序存放 x 的各行。",
}, {"en": "2 slices with a negative step of a (4, 6) tensor of each of 6 dtypes (float32, float64, int64, uint8, bool, "
          "complex64), on the CPU and on the meta device; flip(0) on the CPU",
    "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、complex64）的 (4, 6) 张量，在 CPU 上和 meta 设备上，"
             "2 种步长为负的切片；在 CPU 上调用 flip(0)"})
def _negative_step_slice_raises() -> Fact:
    wrong = []
    for dtype in DTYPES:
        x = _base(dtype)
        for device, source in (("cpu", x), ("meta", x.to("meta"))):
            for name, read in NEGATIVE_STEP.items():
                try:
                    read(source)
                except ValueError:
                    continue
                wrong.append(f"{name} {dtype} {device} did not raise")
        flipped = x.flip(0)
        if flipped._is_view() or flipped.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() \
                or not all(torch.equal(flipped[i], x[3 - i]) for i in range(4)):
            wrong.append(f"x.flip(0) not a reversed copy {dtype}")
    return Fact(not wrong, f"reads not as stated: {wrong or 'none'}")


@fact("numpy-index-read-copies", {
    "en": "Reads each of 5 NumPy indexes (int64 arrays of one and two dimensions, an int32 array, boolean masks of "
          "rows and of all elements) and [0, 2] as an int8, int16, uint16, uint32 and uint64 array, and checks that "
          "the result is not a view and has a storage of its own (the latter five equal to x[[0, 2]]); then reads "
          "[1, 0, 1, 0] as a uint8 NumPy array and as a uint8 tensor, and checks that each is read as the mask "
          "[True, False, True, False], with a warning that says uint8 indexing is deprecated.",
    "zh_CN": "用 5 种 NumPy 索引读取（一维和二维的 int64 数组、int32 数组、按行的和按元素的布尔掩码），再把 [0, 2] "
             "分别做成 int8、int16、uint16、uint32 和 uint64 数组读取，检查结果不是视图，有自己的存储（后五种等于 "
             "x[[0, 2]]）；再把 [1, 0, 1, 0] 做成 uint8 的 NumPy 数组和 uint8 张量读取，检查它们都被当作掩码 "
             "[True, False, True, False]，并发出 uint8 索引已弃用的警告。",
}, {"en": f"{len(NUMPY_ADVANCED) + len(NUMPY_INTEGERS) + 1} NumPy indexes (a uint8 array among them) and 1 uint8 "
          "tensor index of a (4, 6) CPU tensor of each of 6 dtypes (float32, float64, int64, uint8, bool, complex64)",
    "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、complex64）的 (4, 6) CPU 张量，"
             f"{len(NUMPY_ADVANCED) + len(NUMPY_INTEGERS) + 1} 种 NumPy 索引（其中一种是 uint8 数组）和 "
             "1 种 uint8 张量索引"})
def _numpy_index_read_copies() -> Fact:
    shared = []
    for dtype in DTYPES:
        x = _base(dtype)
        for name, read in NUMPY_ADVANCED.items():
            result = read(x)
            if result._is_view() or result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr():
                shared.append(f"{name} {dtype}")
        for integer in NUMPY_INTEGERS:
            result = x[np.array([0, 2], dtype=integer)]
            if result._is_view() or result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() \
                    or not torch.equal(result, x[[0, 2]]):
                shared.append(f"a {integer.__name__} array {dtype}")
        for name, read in UINT8_MASKS.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = read(x)
            if not torch.equal(result, x[torch.tensor([True, False, True, False])]) or result._is_view() \
                    or not any("uint8 is now deprecated" in str(w.message) for w in caught):
                shared.append(f"{name} {dtype} not read as a deprecated mask")
    return Fact(not shared, f"reads not as stated: {shared or 'none'}")
