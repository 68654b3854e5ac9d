"""Named facts on index reads the glossary's definitions of basic and advanced indexing name
(``sitetools/rules/term_facts.py``, ``CHECKED_BY``; the other cases are :mod:`tensorfacts.layout_facts`'s): a slice with
a negative step makes the read raise, a NumPy index array or mask reads into a copy, and a 0-d mask (a Python or NumPy
bool scalar aside) reads into a copy while a NumPy integer scalar reads as an integer. Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.layout_facts import DTYPES, _base, _nested_strided
from tensorfacts.tensors import bytes_apart

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
        if flipped._is_view() or not bytes_apart(flipped, x) \
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
            if result._is_view() or not bytes_apart(result, x):
                shared.append(f"{name} {dtype}")
        for integer in NUMPY_INTEGERS:
            result = x[np.array([0, 2], dtype=integer)]
            if result._is_view() or not bytes_apart(result, x) or not torch.equal(result, x[[0, 2]]):
                shared.append(f"a {integer.__name__} array {dtype}")
        for name, read in UINT8_MASKS.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = read(x)
            if not torch.equal(result, x[torch.tensor([True, False, True, False])]) or result._is_view() \
                    or not any("uint8 is now deprecated" in str(w.message) for w in caught):
                shared.append(f"{name} {dtype} not read as a deprecated mask")
    return Fact(not shared, f"reads not as stated: {shared or 'none'}")


#: NumPy integer scalar types: each indexes as the Python integer of its value does.
NUMPY_SCALARS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
#: 0-d masks, each with the number of rows it keeps: Python booleans, 0-d uint8 and bool tensors and NumPy arrays.
ZERO_D_MASKS = tuple((index, int(value)) for value in (1, 0) for index in (
    bool(value), torch.tensor(value, dtype=torch.uint8), torch.tensor(bool(value)), np.array(value, dtype=np.uint8),
    np.array(bool(value))))


def _mask_sources() -> dict[str, torch.Tensor]:
    """(4, 6) strided CPU tensors that are not nested: the 6 dtypes, float8_e4m3fn, bfloat16 and a quint8 one."""
    sources = {str(dtype): _base(dtype) for dtype in DTYPES + (torch.float8_e4m3fn, torch.bfloat16)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns that the quantized dtypes are deprecated
        sources["quint8"] = torch.quantize_per_tensor(_base(torch.float32), 0.5, 0, torch.quint8)
    return sources


def _reads_alike(mine: torch.Tensor, theirs: torch.Tensor) -> bool:
    """Same shape, both views or neither, one _base, and on a strided CPU tensor the same bytes."""
    alike = mine.shape == theirs.shape and mine._is_view() == theirs._is_view() and mine._base is theirs._base
    if alike and mine.layout == torch.strided and not mine.is_nested and mine.device.type == "cpu":
        alike = mine.untyped_storage().data_ptr() == theirs.untyped_storage().data_ptr() \
            and mine.storage_offset() == theirs.storage_offset()
    return alike


@fact("numpy-zero-d-index-reads", {
    "en": "On (4, 6) strided CPU tensors that are not nested, reads x[m] for each 0-d mask m: True and False, 0-d "
          "uint8 and bool tensors and 0-d uint8 and bool NumPy arrays holding 1 (True) or 0 (False), and checks that "
          "each is a copy (no view, another storage) of shape (1, 4, 6) or (0, 4, 6). On these tensors, on a nested "
          "one of layout torch.strided, on a (2, 2) sparse COO one and on one on the meta device, checks that x[s], "
          "for a NumPy scalar s of each integer type holding 0, 1 or (if signed) -1, reads as x[v] does, v being the "
          "Python integer of that value (same shape, a view or not alike, the same _base, and on the strided CPU ones "
          "the same storage and offset), and that x[np.bool_(True)] and x[np.bool_(False)] raise IndexError.",
    "zh_CN": "对非嵌套、布局为 strided 的 (4, 6) CPU 张量，用每个零维掩码 m 读取 x[m]：True 和 False，以及值为 1"
             "（True）或 0（False）的零维 uint8 和 bool 张量、零维 uint8 和 bool NumPy 数组，检查每个结果都是形状为 "
             "(1, 4, 6) 或 (0, 4, 6) 的副本（不是视图，存储不同）。对这些张量、布局为 torch.strided 的嵌套张量、(2, 2)"
             " 的稀疏 COO 张量和 meta 设备上的张量，检查对每种整数类型、值为 0、1 或 -1（仅有符号类型）的 NumPy 标量 "
             "s，x[s] 的读取结果与用同值的 Python 整数 v 读取的 x[v] 相同（形状相同，同为视图或同不是视图，_base 相"
             "同，对 strided CPU 张量还要求存储和偏移相同），并检查 x[np.bool_(True)] 和 x[np.bool_(False)] 抛出 "
             "IndexError。",
}, {"en": "10 0-d masks, NumPy scalars of 8 integer types (holding 0, 1 and, if signed, -1) and 2 NumPy bool scalars, "
          "of a (4, 6) CPU tensor of each of 8 dtypes (float32, float64, int64, uint8, bool, complex64, float8_e4m3fn, "
          "bfloat16) and of a quint8 one; the scalars also of a float32 nested tensor of layout torch.strided, a "
          "(2, 2) float32 sparse COO CPU tensor and a (4, 6) float32 tensor on the meta device",
    "zh_CN": "对 8 种 dtype（float32、float64、int64、uint8、bool、complex64、float8_e4m3fn、bfloat16）的 (4, 6) CPU "
             "张量和一个 quint8 张量，10 种零维掩码、8 种整数类型的 NumPy 标量（值为 0、1，有符号类型还有 -1）和 "
             "2 个 NumPy bool 标量；这些标量还用于布局为 torch.strided 的 float32 嵌套张量、(2, 2) 的 float32 稀疏 "
             "COO CPU 张量和 meta 设备上的 (4, 6) float32 张量"})
def _numpy_zero_d_index_reads() -> Fact:
    wrong = []
    sources = _mask_sources()
    for name, x in sources.items():
        for index, rows in ZERO_D_MASKS:
            result = x[index]
            if result._is_view() or result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() \
                    or result.shape != (rows, 4, 6):
                wrong.append(f"x[{index!r}] not a mask copy {name}")
    sources.update(nested=_nested_strided(), sparse=torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
                   meta=_base(torch.float32).to("meta"))
    for name, x in sources.items():
        wrong += [f"x[np.{scalar.__name__}({value})] {name}" for scalar in NUMPY_SCALARS for value in (0, 1, -1)
                  if (value >= 0 or np.issubdtype(scalar, np.signedinteger))
                  and not _reads_alike(x[scalar(value)], x[value])]
        for flag in (True, False):
            try:
                x[np.bool_(flag)]
            except IndexError:
                continue
            wrong.append(f"x[np.bool_({flag})] {name} did not raise")
    return Fact(not wrong, f"reads not as stated: {wrong or 'none'}")
