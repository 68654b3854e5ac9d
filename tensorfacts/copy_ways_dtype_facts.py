"""Named fact behind the gallery parts' introductions, beside ``copy-ways-memory-and-graph``: what plain assignment,
``.data``, ``detach()``, ``clone()`` and ``detach().clone()`` give in memory and in the autograd graph for a tensor of
every dtype torch has, strided or in each sparse layout, quantized and nested too, and what the copies share of a
per-channel quantized tensor's scales and zero points and a jagged nested tensor's offsets and lengths. Registered on
import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable

import torch

from tensorfacts.autocast_facts import every_dtype
from tensorfacts.copy_ways_facts import WAYS
from tensorfacts.fact_registry import Fact, fact

QUANTIZED = (torch.qint8, torch.quint8, torch.qint32, torch.quint4x2, torch.quint2x4)
#: The quantized dtypes ``torch.quantize_per_channel`` takes (for the other two it raises NotImplementedError).
PER_CHANNEL = (torch.qint8, torch.quint8, torch.qint32)


def no_clone(dtype: torch.dtype) -> bool:
    """The dtypes whose ``clone()`` raises ``NotImplementedError``, as the sentences say: the integers of 1 to 7 bits
    (``torch.int1`` … ``torch.int7``, ``torch.uint1`` … ``torch.uint7``), ``torch.quint4x2`` and ``torch.quint2x4``."""
    return bool(re.fullmatch(r"torch\.u?int[1-7]", str(dtype))) or dtype in (torch.quint4x2, torch.quint2x4)


def _compressed(layout: torch.layout) -> Callable[[torch.Tensor], torch.Tensor]:
    """A 1×4 matrix holding ``v`` (two values) at columns 0 and 2, in a compressed ``layout`` (blocks of 1×1)."""
    def make(v: torch.Tensor) -> torch.Tensor:
        if layout in (torch.sparse_csr, torch.sparse_bsr):
            rows, cols = torch.tensor([0, 2]), torch.tensor([0, 2])
        else:
            rows, cols = torch.tensor([0, 1, 1, 2, 2]), torch.tensor([0, 0])
        values = v if layout in (torch.sparse_csr, torch.sparse_csc) else v.reshape(2, 1, 1)
        return torch.sparse_compressed_tensor(rows, cols, values, (1, 4), layout=layout)
    return make


#: Each layout a tensor of two values ``v`` is given, built by its constructor (which takes every dtype but quantized).
LAYOUTS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "strided": lambda v: v,
    "sparse COO": lambda v: torch.sparse_coo_tensor(torch.tensor([[0, 2]]), v, (4,)),
    **{f"sparse {name}": _compressed(layout) for name, layout in (
        ("CSR", torch.sparse_csr), ("CSC", torch.sparse_csc), ("BSR", torch.sparse_bsr), ("BSC", torch.sparse_bsc))},
}


def values_start(t: torch.Tensor) -> int:
    """Where the memory of ``t``'s first values starts: its storage, its ``values()`` (of a sparse COO tensor,
    ``_values()``, an internal call) or, of a nested tensor, its first component's."""
    if t.is_nested:
        return t.unbind()[0].data_ptr()
    if t.layout == torch.strided:
        return t.untyped_storage().data_ptr()
    return (t._values() if t.layout == torch.sparse_coo else t.values()).untyped_storage().data_ptr()


def aux_tensors(t: torch.Tensor) -> list[torch.Tensor]:
    """The tensors ``t`` holds beside its values: a per-channel quantized tensor's scales and zero points, a jagged
    nested tensor's offsets and, if it has them, lengths; none for the others."""
    if t.is_quantized and t.qscheme() == torch.per_channel_affine:
        return [t.q_per_channel_scales(), t.q_per_channel_zero_points()]
    if t.is_nested and t.layout == torch.jagged:
        return [t.offsets()] + ([] if t.lengths() is None else [t.lengths()])
    return []


def shares_aux(b: torch.Tensor, a: torch.Tensor) -> bool | None:
    """Whether each of :func:`aux_tensors` of ``b`` starts where ``a``'s does; None when ``a`` has none."""
    mine, theirs = aux_tensors(b), aux_tensors(a)
    if not theirs:
        return None
    return len(mine) == len(theirs) and all(x.data_ptr() == y.data_ptr() for x, y in zip(mine, theirs, strict=True))


def sources() -> dict[str, Callable[[], torch.Tensor]]:
    """The tensors tried, each made fresh: of every dtype, in each layout; a leaf that requires grad of every
    floating-point and complex dtype; a quantized tensor of each quantized dtype; a nested tensor of each layout."""
    made: dict[str, Callable[[], torch.Tensor]] = {}
    for dtype in every_dtype():
        if dtype in QUANTIZED:
            made[f"{dtype} quantized"] = lambda d=dtype: torch.quantize_per_tensor(torch.arange(2.0), 0.5, 0, d)
            if dtype in PER_CHANNEL:
                made[f"{dtype} quantized per channel"] = lambda d=dtype: torch.quantize_per_channel(
                    torch.arange(4.0).reshape(2, 2), torch.tensor([0.5, 1.0], dtype=torch.float64),
                    torch.tensor([0, 0]), 0, d)
            continue
        for layout, build in LAYOUTS.items():
            made[f"{dtype} {layout}"] = lambda d=dtype, b=build: b(torch.zeros(2, dtype=d))
            if dtype.is_floating_point or dtype.is_complex:
                made[f"{dtype} {layout} leaf"] = lambda d=dtype, b=build: b(torch.zeros(2, dtype=d)).requires_grad_()
    for layout in (torch.strided, torch.jagged):
        for grad in (False, True):
            made[f"nested {layout}{' leaf' if grad else ''}"] = lambda lay=layout, g=grad: torch.nested.nested_tensor(
                [torch.zeros(2), torch.zeros(3)], layout=lay, requires_grad=g)
    made["nested torch.jagged with lengths"] = lambda: torch.nested.nested_tensor_from_jagged(
        torch.zeros(6), torch.tensor([0, 3, 6]), lengths=torch.tensor([2, 3]))
    return made


def observe() -> dict[str, tuple[bool, bool, str | None, bool | None] | str]:
    """For each tensor and way: (shares the memory of ``a``'s values, requires grad, its node, shares
    :func:`aux_tensors`), or the error's type."""
    seen: dict[str, tuple[bool, bool, str | None, bool | None] | str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # beta layouts, complex32, deprecated quantized dtypes
        for name, make in sources().items():
            for way_name, way in WAYS.items():
                a = make()
                try:
                    b = way(a)
                except NotImplementedError as e:
                    seen[f"{way_name}, {name}"] = type(e).__name__
                    continue
                node = "same node as a" if b.grad_fn is a.grad_fn else type(b.grad_fn).__name__
                seen[f"{way_name}, {name}"] = (values_start(b) == values_start(a), b.requires_grad,
                                               node if b.grad_fn is not None else None, shares_aux(b, a))
    return seen


def expected(name: str, way_name: str, a: torch.Tensor) -> tuple[bool, bool, str | None, bool | None] | str:
    """What the introductions say ``way_name`` gives of ``a``: every way shares :func:`aux_tensors`."""
    aux = True if aux_tensors(a) else None
    if way_name in ("b = a", "a.data", "a.detach()"):
        return (True, a.requires_grad, None, aux) if way_name == "b = a" else (True, False, None, aux)
    if no_clone(a.dtype):
        return "NotImplementedError"
    if way_name == "a.clone()" and a.requires_grad:
        return False, True, "CloneBackward0", aux
    return False, False, None, aux


@fact("copy-ways-every-dtype", {
    "en": "On the CPU, with grad mode on, takes b = a, a.data, a.detach(), a.clone() and a.detach().clone() of a fresh "
          "a of each dtype in torch's namespace: a tensor of two zeros, strided and built sparse "
          "by torch.sparse_coo_tensor and torch.sparse_compressed_tensor (COO; CSR, CSC, BSR and BSC of a 1×4 "
          "matrix), and of each floating-point and complex dtype each of these as a leaf that requires grad; of each "
          "quantized dtype a torch.quantize_per_tensor tensor, and of qint8, quint8 and qint32 a "
          "torch.quantize_per_channel one; a nested tensor of each layout "
          "(strided, jagged), requiring grad or not; and a jagged one with lengths (nested_tensor_from_jagged). "
          "b = a, a.data and a.detach() start where the memory of a's values starts (of a "
          "nested tensor, its first component's), a.data and a.detach() do not require grad and have no node; "
          "a.clone() and a.detach().clone() start elsewhere, a.detach().clone() without grad or node and a.clone() "
          "with a CloneBackward0 node exactly when a requires grad; except that both raise NotImplementedError for "
          "the integer dtypes of 1 to 7 bits, torch.quint4x2 and torch.quint2x4. Every way's result shares the "
          "per-channel quantized tensors' q_per_channel_scales() and q_per_channel_zero_points(), and the jagged "
          "tensors' offsets() and, where they have them, lengths(): each starts where a's does.",
    "zh_CN": "在 CPU 上、梯度模式下，对新建的 a 取 b = a、a.data、a.detach()、a.clone() 和 a.detach().clone()。a 取遍 "
             "torch 命名空间中的每种 dtype：两个 0 组成的张量，strided 的，以及用 "
             "torch.sparse_coo_tensor 和 torch.sparse_compressed_tensor 构造的稀疏张量（COO，以及 1×4 矩阵的 CSR、"
             "CSC、BSR 和 BSC），浮点和复数 dtype 的这些张量还各取一个需要梯度的叶子张量；每种量化 dtype 取一个 "
             "torch.quantize_per_tensor 得到的张量，qint8、quint8 和 qint32 再各取一个 "
             "torch.quantize_per_channel 得到的张量；另取两种布局（strided、jagged）的嵌套张量，"
             "各分需要梯度和不需要梯度两种，再取一个带 lengths 的 jagged 嵌套张量（nested_tensor_from_jagged）。"
             "b = a、a.data 和 a.detach() 的起点与 a 的数值所在内存的起点相同（嵌套张量比较第一个分量），a.data 和 "
             "a.detach() 不需要梯度，也没有节点；a.clone() 和 a.detach().clone() 的起点不同，a.detach().clone() "
             "不需要梯度，也没有节点，a.clone() 恰在 a 需要梯度时带 CloneBackward0 节点；只有 1 到 7 位的整数 dtype、"
             "torch.quint4x2 和 torch.quint2x4 例外：这两种写法都抛出 NotImplementedError。每种写法的结果都与 a 共享"
             "按通道量化张量的 q_per_channel_scales() 和 q_per_channel_zero_points()，以及 jagged 嵌套张量的 "
             "offsets() 和（如果有）lengths()：起点都与 a 的相同。",
}, {"en": "every dtype of torch, strided and in each sparse layout, quantized (per tensor and per channel) and "
          "nested tensors, on the CPU",
    "zh_CN": "torch 的每种 dtype，strided 的和各种稀疏布局的，以及量化张量（按张量和按通道）和嵌套张量，在 CPU 上"})
def _copy_ways_every_dtype() -> Fact:
    seen, made = observe(), sources()
    wrong = {key: got for key, got in seen.items()
             if got != expected(*reversed(key.split(", ", 1)), made[key.split(", ", 1)[1]]())}
    raising = sorted({key.split(", ", 1)[1].split()[0] for key, got in seen.items() if got == "NotImplementedError"})
    return Fact(not wrong and len(seen) == len(made) * len(WAYS),
                f"{len(made)} tensors × {len(WAYS)} ways; clone() raises NotImplementedError for the dtypes {raising}; "
                f"not as the introductions say: {wrong or 'none'}")
