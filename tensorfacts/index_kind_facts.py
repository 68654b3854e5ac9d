"""Named facts on index reads of every kind of tensor, behind the glossary's definitions of basic and advanced indexing
(``sitetools/rules/term_facts.py``, ``CHECKED_BY``; the (4, 6) tensors of six dtypes are
:mod:`tensorfacts.layout_facts`'s and :mod:`tensorfacts.index_read_facts`'s): a strided CPU tensor that is not nested,
of every dtype, quantized per tensor and per channel, a leaf that requires grad and an inference tensor in three grad
modes, and a nested tensor of each layout; and advanced indexing of a tensor on the ``meta`` device. Registered on
import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Callable

import numpy as np
import torch

from tensorfacts.autocast_facts import every_dtype
from tensorfacts.fact_registry import Fact, fact
from tensorfacts.index_read_facts import (
    NUMPY_ADVANCED,
    NUMPY_INTEGERS,
    NUMPY_SCALARS,
    UINT8_MASKS,
    ZERO_D_MASKS,
    _reads_alike,
)
from tensorfacts.layout_facts import ADVANCED, BASIC, DTYPES, ZERO_D_POSITION, _base, _nested_strided
from tensorfacts.tensors import bytes_apart

QUANTIZED = (torch.qint8, torch.quint8, torch.qint32, torch.quint4x2, torch.quint2x4)
#: The quantized dtypes ``torch.quantize_per_channel`` takes.
PER_CHANNEL = (torch.qint8, torch.quint8, torch.qint32)
#: The reads that copy: advanced indexes (tensors, lists, NumPy arrays, uint8 masks) and 0-d masks.
COPYING: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    **ADVANCED, **NUMPY_ADVANCED, **UINT8_MASKS,
    **{f"x[np.array([0, 2], dtype=np.{i.__name__})]": lambda x, i=i: x[np.array([0, 2], dtype=i)]
       for i in NUMPY_INTEGERS},
    **{f"x[{index!r}]": lambda x, index=index: x[index] for index, _ in ZERO_D_MASKS},
}
#: The one read of COPYING that the 4-bit and 2-bit quantized dtypes refuse: a mask beside a slice.
MASK_BESIDE_SLICE = "x[row_mask, 1:3]"
MODES = {"grad mode": contextlib.nullcontext, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}


def refuses_copies(name: str) -> bool:
    """The kinds whose every copying read raises, as the glossary says: ``float4_e2m1fn_x2``, the integers of 1 to 7
    bits, the ``bits`` dtypes and a tensor quantized per channel."""
    return name == "torch.float4_e2m1fn_x2" or bool(re.fullmatch(r"torch\.(u?int[1-7]|bits\w+)", name)) \
        or name.endswith("per channel")


def _kinds() -> dict[str, torch.Tensor]:
    """(4, 6) strided CPU tensors, not nested: one of every dtype but the quantized ones (zero bytes), one quantized
    per tensor of each quantized dtype, one quantized per channel (along dimension 0) of each dtype that takes it."""
    made = {str(d): torch.zeros(24 * d.itemsize, dtype=torch.uint8).view(d).reshape(4, 6)
            for d in every_dtype() if d not in QUANTIZED}
    values = _base(torch.float32)
    for d in QUANTIZED:
        made[f"{d} per tensor"] = torch.quantize_per_tensor(values, 0.5, 0, d)
        if d in PER_CHANNEL:
            made[f"{d} per channel"] = torch.quantize_per_channel(
                values, torch.full((4,), 0.5, dtype=torch.float64), torch.zeros(4, dtype=torch.long), 0, d)
    return made


def _raises(read: Callable[[torch.Tensor], object], x: torch.Tensor,
            errors: tuple[type[Exception], ...] = (RuntimeError, NotImplementedError)) -> bool:
    """Whether ``read(x)`` raises one of ``errors``."""
    try:
        read(x)
    except errors:
        return True
    return False


def _shares(result: torch.Tensor, x: torch.Tensor, inference: bool) -> bool:
    """``result`` reads ``x``'s storage; it is a view autograd tracks too, unless ``x`` is an inference tensor."""
    return result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() and result._is_view() != inference


def _reads_of(name: str, x: torch.Tensor, inference: bool = False) -> list[str]:
    """What differs from the glossary in the reads of the strided tensor ``x``."""
    wrong = [f"{read} {name}" for read, make in BASIC.items() if not _shares(make(x), x, inference)]
    wrong += [f"0-d {i} {name}" for i in ZERO_D_POSITION if not _shares(x[torch.tensor(1, dtype=i)], x, inference)]
    wrong += [f"x[np.{s.__name__}(1)] {name}" for s in NUMPY_SCALARS if not _reads_alike(x[s(1)], x[1])]
    wrong += [f"x[np.bool_({flag})] {name} did not raise IndexError" for flag in (True, False)
              if not _raises(lambda t, flag=flag: t[np.bool_(flag)], x, (IndexError,))]
    for read, make in COPYING.items():
        if refuses_copies(name) or (read == MASK_BESIDE_SLICE and re.search(r"quint(4x2|2x4)", name)):
            wrong += [] if _raises(make, x) else [f"{read} {name} did not raise"]
        elif (result := make(x))._is_view() or not bytes_apart(result, x):
            wrong.append(f"{read} {name} not a copy")
    return wrong


NESTED_VIEWS = {"x[1]": lambda x: x[1], "x[torch.tensor(1)]": lambda x: x[torch.tensor(1)]}
NESTED_REFUSED = {"x[0:1]": lambda x: x[0:1], "x[None]": lambda x: x[None]}


def _nested_reads() -> list[str]:
    """x[1] and x[torch.tensor(1)] of a nested tensor of each layout read its values' memory (a write through x[1] of
    the jagged one shows in x.values()); x[0:1] and x[None] raise; x[...] is a view of the strided one and raises for
    the jagged one."""
    strided = _nested_strided()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.nested warns that it is a prototype
        jagged = torch.nested.nested_tensor([torch.arange(2.0), torch.arange(3.0)], layout=torch.jagged)
    wrong = []
    for name, x, memory in (("strided", strided, strided), ("jagged", jagged, jagged.values())):
        wrong += [f"nested {name} {read}" for read, make in NESTED_VIEWS.items()
                  if make(x).untyped_storage().data_ptr() != memory.untyped_storage().data_ptr()]
        wrong += [f"nested {name} {read} did not raise" for read, make in NESTED_REFUSED.items()
                  if not _raises(make, x)]
    if strided[...]._base is not strided or not _raises(lambda t: t[...], jagged):
        wrong.append("x[...] not a view of the strided nested tensor, or read the jagged one")
    jagged[1].add_(5)
    if jagged.values().tolist() != [0.0, 1.0, 5.0, 6.0, 7.0]:
        wrong.append("a write through x[1] did not show in the jagged x.values()")
    return wrong


@fact("index-reads-every-kind", {
    "en": "On (4, 6) strided CPU tensors that are not nested, of every dtype torch has and quantized per tensor and "
          "per channel: each of the 7 basic indexes of basic-index-read-views and a 0-d index tensor holding 1 of each "
          "of the 7 dtypes that pick by position read x's storage as a view; x[s(1)] for a NumPy scalar type s of each "
          "of the 8 integer types reads as x[1]; x[np.bool_(True)] and x[np.bool_(False)] raise IndexError; each "
          "advanced index of advanced-index-read-copies and numpy-index-read-copies (uint8 masks too) and each 0-d "
          "mask of numpy-zero-d-index-reads gives a copy (no view, no byte shared), except that for float4_e2m1fn_x2, "
          "the integers of 1 to 7 bits, the bits dtypes and the tensors quantized per channel each of these copying "
          "reads raises, and for quint4x2 and quint2x4 the mask beside a slice (x[row_mask, 1:3]) raises. The same "
          "reads of a float32 leaf that requires grad and of an inference tensor, each in grad mode, under "
          "torch.no_grad() and under torch.inference_mode(), give the same views and copies (of the inference tensor, "
          "the views read its storage with _is_view() False). On (4, 6) meta tensors of every dtype but the quantized "
          "ones, the 7 basic indexes give views of x (_base is x). Of a nested tensor of layout torch.strided and of "
          "one of layout torch.jagged, x[1] and x[torch.tensor(1)] read x's memory (a write through x[1] of the jagged "
          "one shows in x.values()) and x[0:1] and x[None] raise; x[...] is a view of the strided one and raises for "
          "the jagged one.",
    "zh_CN": "对非嵌套、布局为 strided 的 (4, 6) CPU 张量，包括 torch 的每种 dtype，以及按张量和按通道量化的张量："
             "basic-index-read-views 的 7 种基本索引，以及按位置取值的 7 种 dtype 中每种值为 1 的零维索引张量，读取结"
             "果都是读取 x 的存储的视图；对 8 种整数类型中每种 NumPy 标量类型 s，x[s(1)] 与 x[1] 的读取结果相同；"
             "x[np.bool_(True)] 和 x[np.bool_(False)] 抛出 IndexError；advanced-index-read-copies 和 "
             "numpy-index-read-copies 的每种高级索引（包括 uint8 掩码）以及 numpy-zero-d-index-reads 的每种零维掩码，"
             "读取结果都是副本（不是视图，没有一个字节共享），只有 float4_e2m1fn_x2、1 到 7 位的整数 dtype、bits 系列 "
             "dtype 和按通道量化的张量例外，这些读取都报错；quint4x2 和 quint2x4 则是掩码与切片并用（x[row_mask, 1:3]"
             "）时报错。对需要梯度的 float32 叶子张量和推理张量，在默认的梯度模式下、torch.no_grad() 里和 "
             "torch.inference_mode() 里做同样的读取，得到同样的视图和副本（推理张量的视图读取它的存储，但 _is_view() "
             "为 False）。对除量化 dtype 外每种 dtype 的 (4, 6) meta 张量，7 种基本索引得到的都是 x 的视图（_base 是 x"
             "）。对布局为 torch.strided 和 torch.jagged 的嵌套张量，x[1] 和 x[torch.tensor(1)] 读取 x 的内存（通过 "
             "jagged 张量的 x[1] 写入，x.values() 里能看到），x[0:1] 和 x[None] 报错；x[...] 对 strided 的是视图，对 "
             "jagged 的则报错。",
}, {"en": "(4, 6) CPU tensors of every dtype of torch, 5 quantized per tensor and 3 per channel; a float32 leaf that "
          "requires grad and a float32 inference tensor in 3 grad modes; (4, 6) meta tensors of every dtype but the "
          "quantized ones; a float32 nested tensor of each layout (torch.strided, torch.jagged)",
    "zh_CN": "torch 每种 dtype 的 (4, 6) CPU 张量，5 个按张量量化的和 3 个按通道量化的张量；在 3 种梯度模式下，需要梯度"
             "的 float32 叶子张量和 float32 推理张量；除量化 dtype 外每种 dtype 的 (4, 6) meta 张量；两种布局"
             "（torch.strided、torch.jagged）的 float32 嵌套张量"})
def _index_reads_every_kind() -> Fact:
    wrong = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # deprecated quantized dtypes and uint8 masks, complex32
        for name, x in _kinds().items():
            wrong += _reads_of(name, x)
        leaf = _base(torch.float32).requires_grad_()
        with torch.inference_mode():
            inference = _base(torch.float32)
        for mode, context in MODES.items():
            with context():
                wrong += _reads_of(f"leaf {mode}", leaf) + _reads_of(f"inference {mode}", inference, inference=True)
        for d in every_dtype():
            if d not in QUANTIZED:
                x = torch.empty(4, 6, dtype=d, device="meta")
                wrong += [f"{read} meta {d}" for read, make in BASIC.items() if make(x)._base is not x]
    wrong += _nested_reads()
    return Fact(not wrong, f"reads not as stated: {wrong[:8] or 'none'}")


#: The integer forms of advanced indexing: lists, int64 and int32 tensors on the CPU and on meta, NumPy integer arrays.
META_INTEGER = {
    **{read: make for read, make in ADVANCED.items() if "mask" not in read},
    "x[torch.tensor([0, 2], device='meta')]": lambda x: x[torch.tensor([0, 2], device="meta")],
    "x[torch.tensor([0, 2], dtype=torch.int32, device='meta')]":
        lambda x: x[torch.tensor([0, 2], dtype=torch.int32, device="meta")],
    **{read: make for read, make in NUMPY_ADVANCED.items() if "True" not in read and "mask" not in read},
}
ROWS = [True, False, True, False]
#: Masks a meta tensor refuses, by the error: bool ones on meta or in NumPy, uint8 ones anywhere.
META_REFUSED = {
    "x[bool mask on meta]": (lambda x: x[torch.tensor(ROWS, device="meta")], NotImplementedError),
    "x[np.array(bool mask)]": (lambda x: x[np.array(ROWS)], NotImplementedError),
    "x[uint8 mask]": (lambda x: x[torch.tensor(ROWS, dtype=torch.uint8)], RuntimeError),
    "x[uint8 mask on meta]": (lambda x: x[torch.tensor(ROWS, dtype=torch.uint8, device="meta")], RuntimeError),
    "x[np.array(uint8 mask)]": (lambda x: x[np.array(ROWS, dtype=np.uint8)], RuntimeError),
}
#: Masks on meta a CPU tensor refuses.
CPU_REFUSED = {read: META_REFUSED[read] for read in ("x[bool mask on meta]", "x[uint8 mask on meta]")}


@fact("advanced-index-on-meta", {
    "en": "On x = a (4, 6) tensor on the meta device, in grad mode, under torch.no_grad() and under "
          "torch.inference_mode(): each integer form of advanced indexing (lists of Python integers, int64 and int32 "
          "tensors on the CPU and on meta, NumPy int64 and int32 arrays) and a bool mask on the CPU, alone or beside a "
          "slice, give a meta tensor that is not a view, of the shape the same read of a CPU tensor gives; a bool mask "
          "on meta and a bool NumPy array raise NotImplementedError; a uint8 mask, a tensor on the CPU or on meta or "
          "a NumPy array, raises RuntimeError. On the same tensor on the CPU, the bool and uint8 masks on meta raise "
          "the same errors. On an empty (4, 6) meta tensor of every other dtype of torch, in the same grad modes, the "
          "integer forms and a bool mask on the CPU give a meta tensor of that shape, except for each quantized dtype, "
          "where each of them raises NotImplementedError or RuntimeError.",
    "zh_CN": "对 meta 设备上的 (4, 6) 张量 x，在默认的梯度模式（grad mode）下、torch.no_grad() 里和 "
             "torch.inference_mode() 里：高级索引（advanced indexing）的每种整数形式（Python 整数列表、CPU 上和 meta "
             "上的 int64 与 int32 张量、NumPy 的 int64 与 int32 数组），以及 CPU 上的 bool 掩码（单独使用或与切片并用"
             "），得到的都是 meta 张量，不是视图，形状与对 CPU 张量做同样读取时相同；meta 上的 bool 掩码和 bool NumPy "
             "数组抛出 NotImplementedError；uint8 掩码，不论是 CPU 上或 meta 上的张量还是 NumPy 数组，都抛出 "
             "RuntimeError。对 CPU 上的同一个张量，meta 上的 bool 和 uint8 掩码抛出同样的错误。"
             "对 torch 其余每种 dtype 的"
             "空 (4, 6) meta 张量，在同样的梯度模式下，各种整数形式和 CPU 上的 bool 掩码都得到形状相同的 meta 张量，"
             "只有量化 dtype 例外：每种读取都抛出 NotImplementedError 或 RuntimeError。",
}, {"en": "the integer forms, 4 bool masks on the CPU and 5 refused masks, on a (4, 6) meta tensor of each of 6 dtypes "
          "(float32, float64, int64, uint8, bool, complex64) in 3 grad modes; the 2 masks on meta on the same tensors "
          "on the CPU; the integer forms and the 4 bool masks on the CPU on an empty (4, 6) meta tensor of each other "
          "dtype among torch's attributes (quantized, bits, sub-byte and float8 ones too) in 3 grad modes",
    "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、complex64）的 (4, 6) meta 张量，在 3 种梯度模式下，"
             "各种整数形式、CPU 上的 4 种 bool 掩码和 5 种报错的掩码；对 CPU 上的同样张量，meta 上的 2 种掩码；"
             "对 torch 属性中其余每种 dtype（包括量化、bits、低于一字节的整数和 float8 dtype）的空 (4, 6) meta 张量，"
             "在 3 种梯度模式下，各种整数形式和 CPU 上的 4 种 bool 掩码"})
def _advanced_index_on_meta() -> Fact:
    wrong = []
    reads = {**META_INTEGER, **{read: make for read, make in ADVANCED.items() if "mask" in read}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # uint8 masks are deprecated
        for dtype in DTYPES:
            cpu = _base(dtype)
            x = cpu.to("meta")
            for mode, context in MODES.items():
                with context():
                    for read, make in reads.items():
                        result = make(x)
                        if result.device.type != "meta" or result._is_view() or result.shape != make(cpu).shape:
                            wrong.append(f"{read} {dtype} {mode}")
                    wrong += [f"{read} {dtype} {mode} did not raise {error.__name__}"
                              for read, (make, error) in META_REFUSED.items() if not _raises(make, x, (error,))]
            wrong += [f"{read} of a CPU tensor {dtype} did not raise {error.__name__}"
                      for read, (make, error) in CPU_REFUSED.items() if not _raises(make, cpu, (error,))]
        shape = {read: make(_base(torch.float32)).shape for read, make in reads.items()}
        others = [dtype for dtype in every_dtype() if dtype not in DTYPES]
        for dtype in others:
            x = torch.empty(4, 6, dtype=dtype, device="meta")  # quantized ones warn that they are deprecated
            for mode, context in MODES.items():
                with context():
                    for read, make in reads.items():
                        if dtype in QUANTIZED:
                            if not _raises(make, x):
                                wrong.append(f"{read} {dtype} {mode} did not raise")
                            continue
                        result = make(x)
                        if result.device.type != "meta" or result._is_view() or result.shape != shape[read]:
                            wrong.append(f"{read} {dtype} {mode}")
    return Fact(not wrong, f"reads not as stated: {wrong[:8] or 'none'}")
