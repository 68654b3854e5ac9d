"""Named facts on indexing with the ``meta`` device: basic indexing, behind the glossary's definition of basic
indexing (``sitetools/rules/term_facts.py``, ``CHECKED_BY``; the CPU cases are :mod:`tensorfacts.layout_facts`'s): a
``meta`` tensor reads as a CPU one does, and a 0-d index tensor on ``meta`` makes the read raise; and a read of a
dense CPU tensor through an index tensor on ``meta``, behind the index question's sentence on it: the values it
returns are not read from the tensor. Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a
fact is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
import torch.utils.deterministic

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


#: Every dtype of a dense CPU ``x`` the read through a ``meta`` index runs: floating (float8 too), complex, signed and
#: unsigned integer, and bool.
READ_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.float8_e4m3fn, torch.float8_e5m2,
               torch.complex64, torch.complex128, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
               torch.uint16, torch.uint32, torch.uint64, torch.bool)


@contextlib.contextmanager
def _filling_uninitialized_memory() -> Iterator[None]:
    """torch's deterministic mode with ``fill_uninitialized_memory``: every uninitialized allocation (``torch.empty``)
    is filled with a fixed value; both settings are put back as they were. The mode is switched by
    ``torch._C._set_deterministic_algorithms``, the half of ``torch.use_deterministic_algorithms`` that sets it in
    torch's core: the other half imports ``torch._inductor`` to set its config (seconds, and a module the pages,
    which run in the same process, must not see)."""
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
              torch.utils.deterministic.fill_uninitialized_memory)
    torch._C._set_deterministic_algorithms(True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch.utils.deterministic.fill_uninitialized_memory = before[2]
        torch._C._set_deterministic_algorithms(before[0], warn_only=before[1])


def _meta_index_sources(dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """Dense CPU tensors of ``dtype``, of shapes (4,) and (4, 3): plain, requiring grad (floating and complex) and
    inference tensors."""
    sources = {}
    for shape in ((4,), (4, 3)):
        plain = torch.arange(torch.Size(shape).numel()).reshape(shape).to(dtype)
        sources[f"{shape}"] = plain
        if dtype.is_floating_point or dtype.is_complex:
            sources[f"{shape} requiring grad"] = plain.clone().requires_grad_()
        with torch.inference_mode():
            sources[f"{shape} inference tensor"] = plain.clone()
    return sources


def _as_bytes(t: torch.Tensor) -> torch.Tensor:
    return t.detach().contiguous().view(torch.uint8)


@fact("meta-index-read-uninitialized", {
    "en": "x[idx] for a dense CPU x of each dtype listed under Scope (none of them quantized) and an int64 or "
          "int32 index tensor idx on the meta device holding no values, of shape (2,) or (2, 2): the read raises "
          "nothing and returns a CPU tensor of x's dtype and of shape idx.shape + x.shape[1:]; run again with "
          "torch's deterministic algorithms on (the switch torch.use_deterministic_algorithms(True) sets in torch's "
          "core) and torch.utils.deterministic.fill_uninitialized_memory True (both put back after), its bytes are "
          "those torch.empty of that shape and dtype is filled with, and not those of x[the same positions on the "
          "CPU]: its memory is a fresh allocation, never written from x.",
    "zh_CN": "对“范围”所列各 dtype（都不是量化 dtype）的稠密 CPU 张量 x 和 meta 设备上不存数值的 int64 或 "
             "int32 索引张量 idx（形状为 (2,) 或 (2, 2)）读取 x[idx]：不报错，返回 CPU 上 dtype "
             "与 x 相同，形状为 idx.shape + x.shape[1:] 的张量；在开启 torch "
             "的确定性算法（torch.use_deterministic_algorithms(True) "
             "在 torch 核心中设置的开关）且 torch.utils.deterministic.fill_uninitialized_memory "
             "为 True 时（事后两者都恢复原状）再读一次，结果的字节与 torch.empty 按同样形状和 "
             "dtype 填入的字节相同，而与在 CPU 上按同样位置读取的 "
             "x 不同：结果的内存是新分配的，从未从 x 写入。",
}, {"en": "x of 17 dtypes (float16, bfloat16, float32, float64, float8_e4m3fn, float8_e5m2, complex64, complex128, "
          "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool), of shapes (4,) and (4, 3), plain, "
          "requiring grad (floating and complex dtypes) and as an inference tensor; index tensors of int64 and int32, "
          "of shapes (2,) and (2, 2); with grad mode on, under torch.no_grad() and under torch.inference_mode()",
    "zh_CN": "17 种 dtype（float16、bfloat16、float32、float64、float8_e4m3fn、float8_e5m2、complex64、complex128、"
             "int8、int16、int32、int64、uint8、uint16、uint32、uint64、bool），形状为 (4,) 和 (4, 3) 的 x，"
             "分别为普通张量、需要梯度的张量（浮点和复数 dtype）和推理张量；int64 和 int32 的索引张量，"
             "形状为 (2,) 和 (2, 2)；在默认的梯度模式下、torch.no_grad() 里和 torch.inference_mode() 里"})
def _meta_index_read_uninitialized() -> Fact:
    wrong, reads = [], 0
    modes = {"grad mode": contextlib.nullcontext, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
    for dtype in READ_DTYPES:
        for source, x in _meta_index_sources(dtype).items():
            for index_dtype in (torch.int64, torch.int32):
                for positions in ([0, 2], [[0, 2], [1, 3]]):
                    on_cpu = torch.tensor(positions, dtype=index_dtype)
                    idx = on_cpu.to("meta")
                    for mode, context in modes.items():
                        case = f"{dtype} {source} {index_dtype} {tuple(idx.shape)} {mode}"
                        try:
                            with context():
                                read = x[idx]
                            with _filling_uninitialized_memory(), context():
                                filled = x[idx]
                                empty = torch.empty(filled.shape, dtype=dtype)
                        except (RuntimeError, NotImplementedError) as e:
                            wrong.append(f"{case} raised {type(e).__name__}")
                            continue
                        reads += 1
                        if read.device.type != "cpu" or read.dtype != dtype or read.shape != idx.shape + x.shape[1:]:
                            wrong.append(f"{case} gave {read.device} {read.dtype} {tuple(read.shape)}")
                        if not torch.equal(_as_bytes(filled), _as_bytes(empty)):
                            wrong.append(f"{case} values not torch.empty's fill")
                        if torch.equal(_as_bytes(filled), _as_bytes(x[on_cpu])):
                            wrong.append(f"{case} values are x's")
    return Fact(not wrong, f"{reads} reads; not as stated: {wrong[:6] or 'none'}")
