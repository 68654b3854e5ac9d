"""Named fact on basic indexing on the ``meta`` device, behind the glossary's definition of basic indexing
(``sitetools/rules/term_facts.py``, ``CHECKED_BY``; the CPU cases are :mod:`tensorfacts.layout_facts`'s): a ``meta``
tensor reads as a CPU one does, and a 0-d index tensor on ``meta`` makes the read raise. Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.layout_facts import BASIC, DTYPES, ZERO_D_MASK, ZERO_D_POSITION, _base


def _raises(read) -> bool:
    """Whether ``read()`` raises RuntimeError."""
    try:
        read()
    except RuntimeError:
        return True
    return False


@fact("basic-index-on-meta", {
    "en": "On x = a (4, 6) tensor on the meta device: each of the 7 basic indexes of basic-index-read-views "
          "(x[1], x[1:3], x[:, 2], x[None], x[..., 1], x[1, ::2], x[torch.tensor(1)]) gives a view of x (its _base "
          "is x); x[i] for a 0-d CPU index tensor i holding 1 is a view of x for the dtypes int8, int16, int32, "
          "int64, uint16, uint32 and uint64, and for uint8 and bool a tensor that is not a view, of shape "
          "(1, 4, 6), as a mask gives; x[True] and x[False] are not views either, of shapes (1, 4, 6) and "
          "(0, 4, 6). Then x[i] for the same 0-d index tensor i on the meta device, in each of those 9 dtypes, "
          "raises RuntimeError, for x on the meta device and for x = the same tensor on the CPU.",
    "zh_CN": "对 meta 设备上的 (4, 6) 张量 x：basic-index-read-views 的 7 种基本索引（x[1]、x[1:3]、x[:, 2]、"
             "x[None]、x[..., 1]、x[1, ::2]、x[torch.tensor(1)]）得到的都是 x 的视图（_base 是 x）；用值为 1 的"
             "零维 CPU 索引张量 i 读取 x[i]，i 的 dtype 为 int8、int16、int32、int64、uint16、uint32 或 uint64 时"
             "结果是 x 的视图，为 uint8 或 bool 时结果和掩码一样，不是视图，形状为 (1, 4, 6)；x[True] 和 "
             "x[False] 也不是视图，形状分别为 (1, 4, 6) 和 (0, 4, 6)。再把同样的零维索引张量 i 放到 meta 设备上，"
             "这 9 种 dtype 逐一读取 x[i]，x 在 meta 设备上和在 CPU 上时都报 RuntimeError。",
}, {"en": "7 indexes, 0-d CPU index tensors of 9 dtypes (int8, int16, int32, int64, uint16, uint32, uint64, uint8, "
          "bool) and a Python True and False, on a (4, 6) meta tensor of each of 6 dtypes (float32, float64, int64, "
          "uint8, bool, complex64); 0-d meta index tensors of the 9 dtypes on the same tensors, on the meta device "
          "and on the CPU",
    "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、complex64）的 (4, 6) meta 张量，7 种索引、"
             "9 种 dtype（int8、int16、int32、int64、uint16、uint32、uint64、uint8、bool）的零维 CPU 索引张量，"
             "以及 Python 的 True 和 False；这 9 种 dtype 的零维 meta 索引张量，作用于同样的张量，"
             "张量分别在 meta 设备上和 CPU 上"})
def _basic_index_on_meta() -> Fact:
    wrong = []
    for dtype in DTYPES:
        cpu = _base(dtype)
        x = cpu.to("meta")
        for name, read in BASIC.items():
            if read(x)._base is not x:
                wrong.append(f"{name} not a view {dtype}")
        for index_dtype in ZERO_D_POSITION + ZERO_D_MASK:
            result = x[torch.tensor(1, dtype=index_dtype)]
            if index_dtype in ZERO_D_POSITION and result._base is not x:
                wrong.append(f"0-d CPU {index_dtype} index not a view {dtype}")
            if index_dtype in ZERO_D_MASK and (result._is_view() or result.shape != (1, 4, 6)):
                wrong.append(f"0-d CPU {index_dtype} index not a mask read {dtype}")
            on_meta = torch.tensor(1, dtype=index_dtype, device="meta")
            for where, indexed in (("meta", x), ("CPU", cpu)):
                if not _raises(lambda indexed=indexed, on_meta=on_meta: indexed[on_meta]):
                    wrong.append(f"0-d meta {index_dtype} index read a {where} tensor {dtype}")
        for flag, rows in ((True, 1), (False, 0)):
            result = x[flag]
            if result._is_view() or result.shape != (rows, 4, 6):
                wrong.append(f"x[{flag}] not a mask read {dtype}")
    return Fact(not wrong, f"meta reads not as stated: {wrong or 'none'}")
