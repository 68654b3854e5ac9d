"""Named facts on the conjugate and negative bits: which complex tensors ``conj()`` marks lazily (dense ones,
reading the same storage) and which it conjugates into new memory (sparse ones) or refuses (nested ones). They
stand behind the glossary's definitions of the two bits (``sitetools/rules/term_facts.py``, ``CHECKED_BY``).
Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import bytes_apart

#: The complex values the conjugate and negative bit facts start from: imaginary parts 2, -1 and 0.
_COMPLEX = [1 + 2j, 3 - 1j, 4 + 0j]


def _dense_complex() -> dict[str, torch.Tensor]:
    """Dense complex tensors, none with the conjugate or the negative bit, by how they were made (all on the CPU but
    one)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 is experimental, and says so
        chalf = torch.tensor(_COMPLEX).to(torch.complex32)
    grid = torch.complex(torch.arange(12.0), torch.arange(12.0) % 3 - 1).reshape(3, 4)  # imaginary parts -1, 0, 1
    with torch.inference_mode():
        inference = torch.tensor(_COMPLEX)
    return {"complex64": torch.tensor(_COMPLEX), "complex128": torch.tensor(_COMPLEX, dtype=torch.complex128),
            "complex32": chalf, "a strided view with an offset": grid[1:, ::2],
            "a leaf that requires grad": torch.tensor(_COMPLEX, requires_grad=True),
            "an inference tensor": inference, "meta": torch.empty(3, dtype=torch.complex64, device="meta")}


def _sparse_complex() -> dict[str, torch.Tensor]:
    """The 2 x 2 complex matrix [[1+2j, 0], [0, 3-1j]] in each sparse layout."""
    dense = torch.tensor([[1 + 2j, 0], [0, 3 - 1j]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the compressed layouts are in beta, and say so
        return {"COO": dense.to_sparse(), "CSR": dense.to_sparse_csr(), "CSC": dense.to_sparse_csc(),
                "BSR": dense.to_sparse_bsr((1, 1)), "BSC": dense.to_sparse_bsc((1, 1))}


def _nested_complex() -> dict[str, torch.Tensor]:
    parts = [torch.tensor([1 + 2j]), torch.tensor([3 - 1j, 2j])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.nested warns that it is a prototype
        return {layout: torch.nested.nested_tensor(parts, layout=getattr(torch, layout))
                for layout in ("strided", "jagged")}


def _raises_not_implemented(call: Callable[[], object]) -> bool:
    try:
        call()
    except NotImplementedError:
        return True
    return False


@fact("conj-bits-only-on-dense-complex", {
    "en": "For each dense complex z with neither the conjugate nor the negative bit: z.conj() has the conjugate "
          "bit, the same storage (start and size), dtype, shape, strides and offset as z, and yields the conjugates "
          "of z's values, "
          "which differ from them exactly where the imaginary part is not 0; z.conj().imag has the negative bit "
          "and yields the negatives of z.imag, which differ from them exactly where they are not 0 (on meta, "
          "which holds no values, the bits and the layout only). For z = [[1+2j, 0], [0, 3-1j]] in each sparse "
          "layout: z.conj() has no conjugate bit, holds the conjugates (to_dense()), and its values() are in "
          "memory that shares no byte with z's values(); of the COO one, z.conj().imag has no negative bit and "
          "holds the negatives of the imaginary parts. For a complex nested tensor of layout torch.strided or "
          "torch.jagged, z.conj() raises NotImplementedError.",
    "zh_CN": "对每个既不带共轭位也不带负号位的稠密复数张量 z：z.conj() 带共轭位，存储（起点和大小）、dtype、"
             "形状、步长和偏移都与 z "
             "相同，读到的是 z 中各数的共轭复数，恰好在虚部不为 0 的元素上与 z 不同；z.conj().imag 带负号位，读到的是 "
             "z.imag 中各数的相反数，恰好在不为 0 的元素上与 z.imag 不同（meta 张量没有数值，只看标志位和布局）。"
             "对稀疏布局的 z = [[1+2j, 0], [0, 3-1j]]（每种稀疏布局）：z.conj() 不带共轭位，存放的是共轭复数"
             "（to_dense()），它的 values() 与 z 的 values() 在内存上没有一个字节重叠；对 COO 布局的 z，"
             "z.conj().imag 不带负号位，存放的是虚部的相反数。布局为 torch.strided 或 torch.jagged 的复数嵌套张量，"
             "z.conj() 报 NotImplementedError。",
}, {"en": "dense z: complex64, complex128 and complex32 [1+2j, 3-1j, 4+0j], a complex64 view [1:, ::2] of a (3, 4) "
          "tensor (offset 4), a leaf that requires grad, an inference tensor, all on the CPU, and a complex64 "
          "tensor on meta; sparse z: the COO, CSR, CSC, BSR and BSC layouts (z.conj().imag on COO only); nested "
          "z: both layouts",
    "zh_CN": "稠密的 z：complex64、complex128 和 complex32 的 [1+2j, 3-1j, 4+0j]，(3, 4) 张量的 complex64 视图 "
             "[1:, ::2]（偏移为 4），需要梯度的叶子张量，推理张量，以上都在 CPU 上，以及 meta 上的 complex64 张量；"
             "稀疏的 z：COO、CSR、CSC、BSR 和 BSC 布局（z.conj().imag 只在 COO 上检验）；嵌套的 z：两种布局"})
def _conj_bits_only_on_dense_complex() -> Fact:
    wrong = []
    for name, z in _dense_complex().items():
        conj, neg = z.conj(), z.conj().imag
        layout = ((conj.dtype, conj.shape, conj.stride(), conj.storage_offset())
                  == (z.dtype, z.shape, z.stride(), z.storage_offset())
                  and conj.untyped_storage().data_ptr() == z.untyped_storage().data_ptr()
                  and conj.untyped_storage().nbytes() == z.untyped_storage().nbytes())
        values = True
        if z.device.type != "meta":
            wide, imag = z.detach().to(torch.complex128), z.imag.detach().double()
            conj_values = conj.detach().resolve_conj().to(torch.complex128)
            neg_values = neg.detach().resolve_neg().double()
            values = (torch.equal(conj_values, torch.complex(wide.real, -wide.imag))
                      and torch.equal(neg_values, -imag) and torch.equal(conj_values != wide, imag != 0)
                      and torch.equal(neg_values != imag, imag != 0) and bool((imag != 0).any())
                      and bool((imag == 0).any()))
        if z.is_conj() or z.is_neg() or not (conj.is_conj() and neg.is_neg() and layout and values):
            wrong.append(name)
    for name, z in _sparse_complex().items():
        conj = z.conj()
        dense = z.to_dense()
        fresh = (not conj.is_conj() and torch.equal(conj.to_dense(), dense.conj().resolve_conj())
                 and bytes_apart(conj.values(), z.values()))
        if name == "COO":
            imag = conj.imag
            fresh = fresh and not imag.is_neg() and torch.equal(imag.to_dense(), -dense.imag)
        if not fresh:
            wrong.append(name)
    refused = {layout: _raises_not_implemented(z.conj) for layout, z in _nested_complex().items()}
    return Fact(not wrong and all(refused.values()),
                f"cases where the bits, the layout or the values are not as said: {wrong or 'none'}; "
                f"a nested tensor's conj() raises NotImplementedError: {refused}")
