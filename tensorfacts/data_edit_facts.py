"""Named facts on what an edit through ``a.data`` reaches, the ``.data`` half of the detach pages' sentence that
``detach()`` and ``.data`` share a tensor's numbers and only ``detach()`` its version counter: over the standard
sources (an inference tensor left out) and, on the CPU, a tensor of every dtype torch names, a conj-bit view and a
strided nested tensor, each edit shows in the other tensor while ``a.data`` counts its own edits on a counter of its
own; and, behind the gallery parts' introductions, that an in-place edit through ``a.data`` or ``a.detach()`` of a
sparse COO tensor of every dtype, or through the tensor, is not seen by the other: ``zero_()`` leaves the edited one no
values, ``mul_`` moves them to new memory. Registered on import by :mod:`tensorfacts.facts`, whose module docstring
says what a fact is.
"""

from __future__ import annotations

import warnings

import torch

from tensorfacts.detach_layout_facts import (
    KINDS_SCOPE,
    Kind,
    _after,
    _detach_kinds,
    _leaf_for_every_floating_or_complex,
    _torch_dtypes,
)
from tensorfacts.fact_registry import Fact, fact, scoped_fact
from tensorfacts.meta_reasons import NEEDS_VALUES
from tensorfacts.scope import VALUE_DEVICES, Case, values_equal
from tensorfacts.standard_sources import VERSIONED_SOURCES
from tensorfacts.tensors import bytes_apart

#: Why the scoped fact leaves ``meta`` and the inference tensor out, in every edition's language.
_NARROWER = NEEDS_VALUES.around(after={
    "en": "; the sentence it checks speaks of tensors made outside torch.inference_mode()",
    "zh_CN": "；它检验的句子只说在 torch.inference_mode() 之外创建的张量",
})


def data_edits_reach_both(case: Case) -> dict[str, object]:
    """Edit ``c = a.data`` by ``mul_(2)`` and an index write, then ``a`` by ``add_(1)`` under ``torch.no_grad()``:
    does each edit show in the other tensor, and what do ``a._version`` and ``c._version`` read after each step?"""
    _, a = case.build()
    start = a.detach().clone()
    c = a.data
    c.mul_(2)
    c[0] = 100
    through_c = values_equal(a.detach(), torch.cat([start[:1] * 0 + 100, start[1:] * 2]))
    after_c = (a._version, c._version)
    with torch.no_grad():
        a.add_(1)
    through_a = values_equal(c, torch.cat([start[:1] * 0 + 101, start[1:] * 2 + 1]))
    return {"edits through a.data seen by a": through_c, "(a._version, c._version) after them": after_c,
            "edit through a seen by a.data": through_a, "(a._version, c._version) after it": (a._version, c._version)}


def _expected(case: Case) -> dict[str, object]:
    """Every edit seen; ``a``'s counter moves only for its own edit, ``c``'s only for its two."""
    return {"edits through a.data seen by a": True, "(a._version, c._version) after them": (0, 2),
            "edit through a seen by a.data": True, "(a._version, c._version) after it": (1, 2)}


@scoped_fact("data-edits-reach-both", {
    "en": "On a tensor a of the default strided layout made outside torch.inference_mode(), takes c = a.data, calls "
          "c.mul_(2) and c[0] = 100, then a.add_(1) under torch.no_grad(): a holds the values the edits through c "
          "gave and c the values after a.add_(1); after the edits through c, a._version reads 0 and c._version 2, "
          "and after a.add_(1), a._version reads 1 and c._version still 2.",
    "zh_CN": "对在 torch.inference_mode() 之外创建的默认 strided 布局张量 a，取 c = a.data，先调用 c.mul_(2) 和 "
             "c[0] = 100，再在 torch.no_grad() 下调用 a.add_(1)：a 的数值是通过 c 修改后的数值，c 的数值是 "
             "a.add_(1) 之后的数值；通过 c 修改之后，a._version 是 0，c._version 是 2；a.add_(1) 之后，a._version "
             "是 1，c._version 仍是 2。",
}, _expected, sources=VERSIONED_SOURCES, devices=VALUE_DEVICES, narrower=_NARROWER)
def _data_edits_reach_both(case: Case) -> dict[str, object]:
    return data_edits_reach_both(case)


def _edit_both_ways(kind: Kind) -> tuple[bool, bool, bool, int, int, int, int]:
    """``c = a.data`` of a zero ``a``; write 1 through ``c``, then 0 through ``a`` (under ``torch.no_grad()``): whether
    ``a`` is strided, whether each write shows in the other tensor, ``c._version`` right after ``c`` is taken, how far
    ``a._version`` moved after the write through ``c`` and at the end, and ``c._version`` at the end."""
    make, write, read = kind
    a = make()
    c, start = a.data, a._version
    c_start = c._version
    with torch.no_grad():
        write(c, 1)
        through_c = read(a) == _after(kind, 1) != _after(kind, 0)
        a_after_c = a._version - start
        write(a, 0)
    return (a.layout == torch.strided, through_c, read(c) == _after(kind, 0), c_start, a_after_c, a._version - start,
            c._version)


@fact("data-edits-reach-both-every-dtype", {
    "en": "On the CPU, for a tensor a of the default strided layout of every dtype the torch module names (for a "
          "floating or complex dtype a leaf that requires grad too), a complex conj() view of a leaf (conj bit set) "
          "and a nested tensor of the default strided layout that requires grad, each made fresh at 0 (for some, "
          "making it moves a._version): takes c = a.data, writes a value through c, then another through a (under "
          "torch.no_grad()), the same writes as detach-edits-reach-both-every-dtype makes: each write shows in the "
          "other tensor; the write through c leaves a._version where it was and the write through a moves it by 1, "
          "and c._version reads 0 right after c = a.data is taken and 1 at the end. On quint4x2 and quint2x4, which "
          "take none of those writes on the CPU, a.data starts at a's memory.",
    "zh_CN": "在 CPU 上，对默认 strided 布局的张量 a：torch 模块列出的每种 dtype（浮点和复数类型还取一个需要梯度的叶"
             "子张量），叶子张量的复数 conj() 视图（带共轭位），以及一个需要梯度的默认 strided 布局的嵌套张量，每"
             "次都新建、值为 0（有的做法本身就让 a._version 加 1）：取 c = a.data，先通过 c 写入一个数值，再通过 a "
             "写入另一个（都在 torch.no_grad() 下），写法与 detach-edits-reach-both-every-dtype 相同：每次写入另一方"
             "都看得到；通过 c 写入不改变 a._version，通过 a 写入让它加 1；c._version 在刚取得 c = a.data 时是 0，"
             "最后是 1。quint4x2 和 quint2x4 在 CPU 上不接受这些写入，它们的 a.data 从 a 的内存起始处开始。",
}, KINDS_SCOPE)
def _data_edits_reach_both_every_dtype() -> Fact:
    """The ``.data`` half of the general sentence beyond the scoped fact's floating dtypes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32, quantized and nested tensors warn when made
        kinds = _detach_kinds()
        seen = {name: kind if isinstance(kind, str) else _edit_both_ways(kind) for name, kind in kinds.items()}
        packed = {str(d).removeprefix("torch."): d for d in _torch_dtypes() if str(d) in ("torch.quint4x2",
                                                                                            "torch.quint2x4")}
        starts = {name: (lambda q: q.data.data_ptr() == q.data_ptr())(
            torch.quantize_per_tensor(torch.zeros(4), 0.5, 0, dtype)) for name, dtype in packed.items()}
    edited = [v for v in seen.values() if not isinstance(v, str)]
    unedited = sorted(name for name, v in seen.items() if isinstance(v, str))
    return Fact(len(edited) > 0 and all(v == (True, True, True, 0, 0, 1, 1) for v in edited)
                and set(unedited) == set(packed) and all(starts.values()) and _leaf_for_every_floating_or_complex(seen),
                f"(strided, write through c seen by a, write through a seen by c, c._version right after "
                f"c = a.data, move of a._version after the write through c, and at the end, c._version at the end) "
                f"per kind: {seen}; a.data starts at a's memory on the packed quantized dtypes: {starts}")


def _coo(dtype: torch.dtype) -> torch.Tensor:
    """A sparse COO CPU tensor of ``dtype`` holding 1, 2, 3 at positions 0 to 2 of 4."""
    return torch.sparse_coo_tensor(torch.tensor([[0, 1, 2]]), torch.tensor([1, 2, 3]).to(dtype), (4,))


def _sparse_coo(dtype: torch.dtype) -> torch.Tensor | None:
    """:func:`_coo`, or None where torch makes none of ``dtype``."""
    try:
        return _coo(dtype)
    except (RuntimeError, NotImplementedError):
        return None


def _values_bytes(t: torch.Tensor) -> torch.Tensor:
    return t._values().view(torch.uint8).clone()


#: The in-place edits made on a sparse COO tensor: one that drops its values, one that keeps them (``mul_(False)``
#: stands for ``mul_(2)`` on ``bool``, which refuses an integer).
SPARSE_EDITS = {"zero_()": lambda t: t.zero_(), "mul_(2)": lambda t: t.mul_(False if t.dtype == torch.bool else 2)}


def _edit_moves_values(make, take: str, through_c: bool, edit: str) -> tuple[bool, bool, bool]:
    """One edit of ``SPARSE_EDITS`` under ``torch.no_grad()`` through ``c`` (``a.data`` or ``a.detach()``) or through
    ``a``, of a fresh sparse COO ``a``: whether the two shared the memory of their values when taken; whether the
    edited one then has no values (``zero_()``: ``_nnz()`` 0), or its three values in memory that shares no byte with
    the other's (``mul_``); and whether the other kept its values."""
    a = make()
    c = a.data if take == ".data" else a.detach()
    shared = a._values().data_ptr() == c._values().data_ptr()
    edited, other = (c, a) if through_c else (a, c)
    kept = _values_bytes(other)
    with torch.no_grad():
        SPARSE_EDITS[edit](edited)
    values = edited._values()
    moved = (edited._nnz() == values.numel() == 0) if edit == "zero_()" else (
        edited._nnz() == values.numel() == 3 and bytes_apart(values, other._values()))
    return shared, moved, torch.equal(_values_bytes(other), kept)


@fact("sparse-coo-zero-moves-values", {
    "en": "On the CPU, for a sparse COO tensor a of every dtype torch makes one of (torch.sparse_coo_tensor accepts "
          "its values), and for a float32 sparse COO leaf that requires grad, each made fresh with three values: takes "
          "c = a.data or c = a.detach(), checks that c and a hold their values in one memory, then calls zero_() or "
          "mul_(2) (mul_(False) on bool) through c or through a (under torch.no_grad()): zero_() leaves the edited "
          "tensor no values (its _nnz() becomes 0), mul_ puts the edited tensor's three values in new memory, which "
          "shares no byte with the other's, and each time the other tensor keeps its values.",
    "zh_CN": "在 CPU 上，对 torch 能构建稀疏 COO 张量的每种 dtype（torch.sparse_coo_tensor 接受这种 dtype 的数值）的"
             "稀疏 COO 张量 a，以及需要梯度的 float32 稀疏 COO 叶子张量，每次都新建，各有 3 个数值：取 c = a.data 或 "
             "c = a.detach()，检查 c 和 a 的数值在同一块内存里，再通过 c 或通过 a（在 torch.no_grad() 下）调用 "
             "zero_() 或 mul_(2)（bool 上改用 mul_(False)）：zero_() 让被修改的一方不再有数值（它的 _nnz() 变为 0），"
             "mul_ 把被修改的一方的 3 个数值放进新的内存，与另一方的内存没有一个字节重叠；每一次另一方的数值都保持"
             "原样。",
}, {"en": "every dtype of torch a sparse COO CPU tensor is made of, and a float32 leaf that requires grad; .data and "
          "detach(); zero_() and mul_ through c and through a",
    "zh_CN": "能构建稀疏 COO CPU 张量的每种 torch dtype，以及需要梯度的 float32 叶子张量；.data 和 detach()；通过 c "
             "和通过 a 调用 zero_() 和 mul_"})
def _sparse_coo_zero_moves_values() -> Fact:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 warns when made
        makes = {str(d): (lambda d=d: _sparse_coo(d)) for d in _torch_dtypes() if _sparse_coo(d) is not None}
        makes["float32 leaf"] = lambda: _coo(torch.float32).requires_grad_()  # made, or the fact stops
        seen = {f"{name} {take} {edit} through {'c' if through_c else 'a'}":
                _edit_moves_values(make, take, through_c, edit)
                for name, make in makes.items() for take in (".data", ".detach()") for through_c in (True, False)
                for edit in SPARSE_EDITS}
    wrong = [case for case, outcome in seen.items() if outcome != (True, True, True)]
    return Fact(len(makes) > 1 and not wrong, f"{len(seen)} edits; (shared when taken, edited one's values dropped by "
                f"zero_() or moved by mul_, other kept its values) not as stated: "
                f"{ {case: seen[case] for case in wrong} or 'none'}")
