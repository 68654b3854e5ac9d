"""Named fact on NumPy arrays that the calls of the glossary's alias entry refuse (``sitetools/rules/term_facts.py``,
``CHECKED_BY``): an array in the other byte order, and a flipped one for ``torch.from_numpy`` (``torch.from_dlpack``
aborts on a flipped one: :mod:`tensorfacts.memory_facts`). Registered on import by :mod:`tensorfacts.facts`, whose
docstring says what a fact is.
"""

from __future__ import annotations

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.memory_facts import ALIAS_DTYPES, ALIAS_LAYOUTS


def _flipped(dtype: type) -> dict[str, np.ndarray]:
    """Arrays flipped along an axis of two or more elements, as ``from-dlpack-aborts-on-flipped-array`` runs them."""
    name = np.dtype(dtype).name
    return {f"arange(6)[::-1] {name}": np.arange(6, dtype=dtype)[::-1],
            f"arange(2)[::-1] {name}": np.arange(2, dtype=dtype)[::-1],
            f"(2, 3)[..., ::-1] {name}": np.arange(6, dtype=dtype).reshape(2, 3)[..., ::-1]}


def _swapped(dtype: type) -> dict[str, np.ndarray]:
    """Arrays of four values in the other byte order, contiguous and every other element of a longer one."""
    other = np.dtype(dtype).newbyteorder()
    return {f"{layout} {other.str}": np.arange(length, dtype=dtype).astype(other)[::step]
            for layout, (length, step) in ALIAS_LAYOUTS.items()}


def _taken(array: np.ndarray) -> bool:
    """Whether both calls take a contiguous copy of ``array`` in native byte order, reading its values."""
    native = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("=")))
    return torch.from_numpy(native).tolist() == array.tolist() == torch.from_dlpack(native).tolist()


def _raises(error: type[Exception], call, array: np.ndarray) -> bool:
    """Whether ``call(array)`` raises ``error``."""
    try:
        call(array)
    except error:
        return True
    return False


@fact("array-calls-refuse-swapped-or-flipped", {
    "en": "On NumPy arrays in float32, float64 and int64: torch.from_numpy(n) and torch.from_dlpack(n) raise "
          "(ValueError and BufferError) on an array of four values in the other byte order, contiguous and taken as "
          "every other element of a longer one; torch.from_numpy(n) raises ValueError on np.arange(6)[::-1], "
          "np.arange(2)[::-1] and a (2, 3) array flipped along its last axis. A contiguous copy of each of these "
          "arrays in native byte order is taken by both calls, which read its values.",
    "zh_CN": "对 float32、float64 和 int64 的 NumPy 数组：存放四个值、字节序与本机不同的数组，连续的和从更长的数组里"
             "隔一个取一个得到的，torch.from_numpy(n) 和 torch.from_dlpack(n) 都报错（分别是 ValueError 和 "
             "BufferError）；对 np.arange(6)[::-1]、np.arange(2)[::-1] 和沿最后一维翻转的 (2, 3) 数组，"
             "torch.from_numpy(n) 报 ValueError。把这些数组各复制成字节序与本机相同的连续数组，两个调用都接受，"
             "读到的是数组的值。",
}, {"en": "2 arrays in the other byte order and 3 flipped arrays, each in float32, float64 and int64, on the CPU",
    "zh_CN": "字节序与本机不同的 2 个数组和翻转的 3 个数组，各用 float32、float64 和 int64，在 CPU 上"})
def _array_calls_refuse_swapped_or_flipped() -> Fact:
    swapped = {name: (_raises(ValueError, torch.from_numpy, array), _raises(BufferError, torch.from_dlpack, array))
               for dtype in ALIAS_DTYPES for name, array in _swapped(dtype).items()}
    flipped = {name: _raises(ValueError, torch.from_numpy, array)
               for dtype in ALIAS_DTYPES for name, array in _flipped(dtype).items()}
    copies = {name: _taken(array) for dtype in ALIAS_DTYPES
              for name, array in {**_swapped(dtype), **_flipped(dtype)}.items()}
    return Fact(len(swapped) == 6 and set(swapped.values()) == {(True, True)}
                and len(flipped) == 9 and all(flipped.values()) and len(copies) == 15 and all(copies.values()),
                f"(torch.from_numpy raises ValueError, torch.from_dlpack raises BufferError) in the other byte order: "
                f"{swapped}; torch.from_numpy raises ValueError on a flipped array: {flipped}; a contiguous copy "
                f"in native byte order taken by both: {copies}")
