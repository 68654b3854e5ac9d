"""Named facts on whether a value edit through ``a`` or ``a.detach()`` reaches the other, by layout: every standard
source of the default strided layout, and on the CPU a tensor of every dtype torch names, a conj-bit view and a strided
nested tensor, passes each edit on, while on a sparse COO tensor some in-place operations give
the edited tensor new memory for its values, so the other keeps its old values though their one counter moves.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact, scoped_fact
from tensorfacts.meta_reasons import NEEDS_VALUES
from tensorfacts.scope import VALUE_DEVICES, Case, values_equal
from tensorfacts.standard_sources import NO_VERSION_COUNTER
from tensorfacts.tensors import version_read


def _editing(case: Case) -> contextlib.AbstractContextManager:
    """Where ``a`` itself may be edited in place: inside ``torch.inference_mode()`` for an inference tensor, else
    under ``torch.no_grad()`` (a leaf that requires grad refuses the edit in grad mode)."""
    return torch.inference_mode() if case.source == "inference" else torch.no_grad()


def detach_edits_reach_both(case: Case) -> dict[str, object]:
    """Edit ``c = a.detach()`` by ``mul_(2)`` and an index write, then ``a`` by ``add_(1)``: does each edit show in
    the other tensor, and what do ``a._version`` and ``c._version`` read before and after the three edits? Also:
    are ``c`` and ``a.data`` inference tensors, what do ``a.data._version`` and the counters of the views ``a[:1]``
    and ``c[:1]`` read after them, and what does a fourth edit, ``c.add_(1)`` made outside both modes, do?"""
    _, a = case.build()
    start = a.detach().clone()
    c = a.detach()
    d = a.data
    before = (version_read(a), version_read(c))
    with _editing(case):
        c.mul_(2)
        c[0] = 100
    through_c = values_equal(a.detach(), torch.cat([start[:1] * 0 + 100, start[1:] * 2]))
    with _editing(case):
        a.add_(1)
    through_a = values_equal(c, torch.cat([start[:1] * 0 + 101, start[1:] * 2 + 1]))
    after = (version_read(a), version_read(c))
    views = (version_read(a[:1]), version_read(c[:1]))
    c.add_(1)
    outside = values_equal(a.detach(), torch.cat([start[:1] * 0 + 102, start[1:] * 2 + 2]))
    return {"edit through a.detach() seen by a": through_c, "edit through a seen by a.detach()": through_a,
            "(a._version, c._version) before the edits": before,
            "(a._version, c._version) after the three edits": after,
            "(c.is_inference(), a.data.is_inference())": (c.is_inference(), d.is_inference()),
            "a.data._version after the four edits": version_read(d),
            "(a[:1]._version, c[:1]._version) after the three edits": views,
            "c.add_(1) outside both modes seen by a": outside,
            "(a._version, c._version) after c.add_(1)": (version_read(a), version_read(c))}


def _reach_both_expected(case: Case) -> dict[str, object]:
    """Every edit seen; the counters read 0, then 3 (a view's too), then 4, but on an inference ``a``, where ``c``
    and ``a.data`` are inference tensors too, reading ``a._version`` or a view's raises and ``c``, taken outside the
    mode, stays at 0 until ``c.add_(1)`` outside the mode moves it to 1; ``a.data`` has its own counter, at 0."""
    no_counter = case.source in NO_VERSION_COUNTER
    return {"edit through a.detach() seen by a": True, "edit through a seen by a.detach()": True,
            "(a._version, c._version) before the edits": ("raises", 0) if no_counter else (0, 0),
            "(a._version, c._version) after the three edits": ("raises", 0) if no_counter else (3, 3),
            "(c.is_inference(), a.data.is_inference())": (no_counter, no_counter),
            "a.data._version after the four edits": 0,
            "(a[:1]._version, c[:1]._version) after the three edits": ("raises", "raises") if no_counter else (3, 3),
            "c.add_(1) outside both modes seen by a": True,
            "(a._version, c._version) after c.add_(1)": ("raises", 1) if no_counter else (4, 4)}


@scoped_fact("detach-edits-reach-both", {
    "en": "On a tensor a of the default strided layout, takes c = a.detach(), calls c.mul_(2) and c[0] = 100, then "
          "a.add_(1) (each under torch.no_grad(), or inside torch.inference_mode() for an inference tensor made "
          "there, c being taken outside the mode): a holds the values the edits through c gave, c the values after "
          "a.add_(1), and a._version and c._version both read 0 before the edits and 3 after them, as do, after "
          "them, the views a[:1] and c[:1], except on an inference tensor: there c and a.data are inference tensors "
          "too, reading a._version raises before the edits and after them, as does reading a[:1]._version or "
          "c[:1]._version after them, and c._version reads 0 both times; a.data._version reads 0 at the end. "
          "Then c.add_(1), made outside both modes, shows in a and moves a._version and c._version to 4, or, on "
          "the inference tensor, c._version to 1.",
    "zh_CN": "对默认 strided 布局的张量 a 取 c = a.detach()，先调用 c.mul_(2) 和 c[0] = 100，"
             "再调用 a.add_(1)（都在 torch.no_grad() 下；a 是在 torch.inference_mode() 里"
             "创建的推理张量时，修改都在这个模式里，c 则在模式外取）：a 的数值是通过 c 修改后的"
             "数值，c 的数值是 a.add_(1) 之后的数值，a._version 和 c._version 在修改前都是 0，"
             "修改后都是 3，修改后视图 a[:1] 和 c[:1] 也读到 3；推理张量除外：这时 c 和 a.data "
             "也是推理张量，修改前后读取 a._version 都报错，修改后读取 a[:1]._version 或 "
             "c[:1]._version 也报错，c._version 两次都是 0；a.data._version 最后仍是 0。"
             "之后在两种模式外调用 c.add_(1)：a 看得到这次修改，a._version 和 c._version "
             "变为 4；推理张量上则是 c._version 变为 1。",
}, _reach_both_expected, devices=VALUE_DEVICES, narrower=NEEDS_VALUES)
def _detach_edits_reach_both(case: Case) -> dict[str, object]:
    return detach_edits_reach_both(case)


#: In-place operations on a sparse COO tensor, each made once through ``c = a.detach()`` and once through ``a``.
COO_EDITS: dict[str, Callable[[torch.Tensor], object]] = {
    "mul_(2)": lambda t: t.mul_(2),
    "add_(t.clone())": lambda t: t.add_(t.clone()),
    "zero_()": lambda t: t.zero_(),
    "copy_(t * 5)": lambda t: t.copy_(t * 5),
    "div_(2)": lambda t: t.div_(2),
}
#: The edits whose kernel gives the edited COO tensor new memory for its values: the other tensor does not see them.
COO_NOT_SHARED = ("mul_(2)", "add_(t.clone())", "zero_()", "copy_(t * 5)")


def _sparse(layout: str) -> torch.Tensor:
    """A sparse float32 CPU leaf that requires grad, holding [1, 2, 3, 0] (a 2×2 for the compressed layout)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns that the compressed layouts are in beta
        if layout == "COO":
            return torch.tensor([1.0, 2.0, 3.0, 0.0]).to_sparse().requires_grad_()
        return torch.tensor([[1.0, 2.0], [3.0, 0.0]]).to_sparse_csr().requires_grad_()


def _values_at(t: torch.Tensor) -> int:
    """Where a sparse tensor's values start (``_values()`` of a COO tensor, ``values()`` of a CSR one)."""
    return (t._values() if t.layout == torch.sparse_coo else t.values()).data_ptr()


def _edit_seen(layout: str, name: str, through_detach: bool) -> tuple[bool, bool, tuple[bool, bool], int, int]:
    """One edit through ``c = a.detach()`` (or through ``a``, under ``torch.no_grad()``) of a fresh sparse ``a``:
    whether the other tensor sees it, whether the two still hold their values in one memory (COO only), whether the
    edited tensor's values and the other's moved to new memory, and both ``_version`` values after it."""
    a = _sparse(layout)
    c = a.detach()
    edited, other = (c, a) if through_detach else (a, c)
    before = (_values_at(edited), _values_at(other))
    with torch.no_grad():
        COO_EDITS[name](edited)
    moved = (_values_at(edited) != before[0], _values_at(other) != before[1])
    one_memory = layout != "COO" or _values_at(a) == _values_at(c)
    return torch.equal(other.to_dense(), edited.to_dense()), one_memory, moved, a._version, c._version


@fact("detach-sparse-coo-edit-not-shared", {
    "en": "On a sparse COO leaf a (torch.tensor([1., 2., 3., 0.]).to_sparse().requires_grad_()) and c = a.detach(), "
          "which at first share the memory of their values, makes one in-place edit, a fresh pair each time, "
          "through c or through a (under torch.no_grad()): after mul_(2), add_(t.clone()), zero_() or "
          "copy_(t * 5) the edited tensor's values are in new memory and the other tensor does not see the edit, "
          "yet a._version and c._version both read 1; div_(2) keeps the values in the one memory and is seen. On a "
          "sparse CSR a, mul_(2) and zero_() through c are seen by a.",
    "zh_CN": "对 COO 稀疏叶子张量 a（torch.tensor([1., 2., 3., 0.]).to_sparse().requires_grad_()）和 c = a.detach()"
             "（两者起初共享数值所在的内存），每次取一对新的，通过 c 或通过 a（在 torch.no_grad() 下）原地修改一次："
             "mul_(2)、add_(t.clone())、zero_() 或 copy_(t * 5) 之后，被修改的一方的数值换到了新的内存，"
             "另一方看不到这次修改，a._version 和 c._version 却都是 1；div_(2) 之后数值仍在同一块内存里，另一方看得到。"
             "对 CSR 稀疏张量 a，通过 c 的 mul_(2) 和 zero_() 都能在 a 上看到。",
})
def _detach_sparse_coo_edit_not_shared() -> Fact:
    """A COO pair shares its values buffer at first, yet mul_, add_, zero_ and copy_ through either leave the other
    alone."""
    a = _sparse("COO")
    shared_at_first = a._values().data_ptr() == a.detach()._values().data_ptr()
    seen = {f"{name} through {'c' if through_detach else 'a'}": _edit_seen("COO", name, through_detach)
            for name in COO_EDITS for through_detach in (True, False)}
    unseen = all(seen[f"{name} through {who}"] == (False, False, (True, False), 1, 1)
                 for name in COO_NOT_SHARED for who in "ca")
    div_seen = all(seen[f"div_(2) through {who}"] == (True, True, (False, False), 1, 1) for who in "ca")
    csr = {name: _edit_seen("CSR", name, True)[0] for name in ("mul_(2)", "zero_()")}
    return Fact(shared_at_first and unseen and div_seen and all(csr.values()),
                f"values shared at first: {shared_at_first}; (seen by the other, values still in one memory, "
                f"(edited tensor's values moved, other's moved), a._version, c._version) per COO edit: "
                f"{seen}; CSR edits through c seen by a: {csr}")


def _torch_dtypes() -> list[torch.dtype]:
    """Every dtype the ``torch`` module names, each once (``torch.float`` and ``torch.float32`` are one)."""
    return sorted({v for v in vars(torch).values() if isinstance(v, torch.dtype)}, key=str)


#: A kind of tensor: how to make a fresh one, how to write a value into it in place, how to read its values.
Kind = tuple[Callable[[], torch.Tensor], Callable[[torch.Tensor, int], object], Callable[[torch.Tensor], object]]


def _after(kind: Kind, value: int) -> object:
    """What a fresh tensor of this kind reads after ``value`` is written into it."""
    make, write, read = kind
    fresh = make()
    with torch.no_grad():
        write(fresh, value)
    return read(fresh)


def _edit_both_ways(kind: Kind) -> tuple[bool, bool, bool, int, int]:
    """``c = a.detach()`` of a zero ``a``; write 1 through ``c``, then 0 through ``a`` (under ``torch.no_grad()``):
    whether ``a`` is strided, whether each write shows in the other tensor, and how far each ``_version`` moved."""
    make, write, read = kind
    a = make()
    c, start = a.detach(), a._version
    with torch.no_grad():
        write(c, 1)
        through_c = read(a) == _after(kind, 1) != _after(kind, 0)
        write(a, 0)
    return a.layout == torch.strided, through_c, read(c) == _after(kind, 0), a._version - start, c._version - start


def _raw(t: torch.Tensor) -> list[int]:
    return t.view(torch.uint8).tolist()


def _copy_in(t: torch.Tensor, value: int) -> object:
    return t.copy_(torch.full(t.shape, value).to(t.dtype))


def _copy_own_dtype(t: torch.Tensor, value: int) -> object:
    """``copy_`` from a tensor of ``t``'s own dtype each of whose bytes is ``value`` (no conversion of dtype)."""
    return t.copy_(torch.empty_like(t).view(torch.uint8).fill_(value).view(t.dtype))


def _refused(make: Callable[[], torch.Tensor], writes: dict[str, Callable[[torch.Tensor], object]]) -> list[str]:
    """The in-place writes that raise ``NotImplementedError`` on a fresh tensor, each tried on its own."""
    refused = []
    for name, write in writes.items():
        try:
            write(make())
        except NotImplementedError:
            refused.append(name)
    return refused


#: The in-place writes tried on a fresh tensor of each dtype that is not quantized.
_WRITES: dict[str, Callable[[torch.Tensor], object]] = {
    "copy_ from its own dtype": lambda t: _copy_own_dtype(t, 1),
    "copy_ from int64": lambda t: t.copy_(torch.full(t.shape, 1)),
    "fill_": lambda t: t.fill_(1),
    "index write of a number": lambda t: t.__setitem__(0, 1),
}
#: The writes the bits dtypes and float4_e2m1fn_x2 refuse: all but ``copy_`` from a tensor of their own dtype.
_ALL_BUT_OWN_COPY = [name for name in _WRITES if name != "copy_ from its own dtype"]


def _named_without_copy_kernel(name: str) -> bool:
    """Whether the page names this dtype among those with no copy kernel: ``int1`` to ``int7`` and ``uint1`` to
    ``uint7``."""
    return name in {f"{sign}int{bits}" for sign in ("", "u") for bits in range(1, 8)}


def _named_own_dtype_copy_only(name: str) -> bool:
    """Whether the page names this dtype among those that take ``copy_`` from their own dtype but refuse the other
    writes of ``_WRITES``: the bits dtypes and ``float4_e2m1fn_x2``."""
    return name.startswith("bits") or name == "float4_e2m1fn_x2"


def _quantized_kind(dtype: torch.dtype) -> Kind | str:
    def make() -> torch.Tensor:
        return torch.quantize_per_tensor(torch.zeros(4), 0.5, 0, dtype)

    refused = _refused(make, {"copy_ from its own dtype": lambda t: t.copy_(make()), "fill_": lambda t: t.fill_(0.5),
                              "index write of a number": lambda t: t.__setitem__(0, 0.5)})
    if refused:  # the packed quantized dtypes on the CPU
        return f"raise NotImplementedError: {refused}"
    return make, lambda t, v: t.copy_(torch.quantize_per_tensor(torch.full(t.shape, float(v)), 0.5, 0, dtype)), \
        lambda t: t.int_repr().tolist()


def _quantized_int64_copy(dtype: torch.dtype) -> str:
    """The error type ``copy_`` from an int64 tensor raises on a fresh quantized tensor of this dtype, or
    ``"no error"``."""
    q = torch.quantize_per_tensor(torch.zeros(4), 0.5, 0, dtype)
    try:
        q.copy_(torch.full(q.shape, 1))
    except RuntimeError as exc:
        return type(exc).__name__
    return "no error"


#: The range of the facts that run :func:`_detach_kinds`, in every edition's language.
KINDS_SCOPE = {"en": "every dtype of the torch module, a conj-bit view and a strided nested tensor, on the CPU",
               "zh_CN": "torch 模块的每种 dtype、一个带共轭位的视图和一个 strided 嵌套张量，在 CPU 上"}


def _detach_kinds() -> dict[str, Kind | str]:
    """Per dtype of ``torch`` (and a conj-bit view and a strided nested tensor): a kind of tensor, or why no
    in-place write exists for that dtype on the CPU."""
    kinds: dict[str, Kind | str] = {}
    for dtype in _torch_dtypes():
        name = str(dtype).removeprefix("torch.")
        if str(dtype).startswith(("torch.qint", "torch.quint")):
            kinds[name] = _quantized_kind(dtype)
            continue

        def make(dtype: torch.dtype = dtype) -> torch.Tensor:
            return torch.empty(4, dtype=dtype).view(torch.uint8).zero_().view(dtype)

        refused = _refused(make, _WRITES)
        if refused == list(_WRITES):  # no copy kernel (int1 to int7, uint1 to uint7): write its bytes through a view
            kinds[f"{name} (bytes)"] = (make, lambda t, v: t.view(torch.uint8).fill_(v), _raw)
            continue
        if refused == _ALL_BUT_OWN_COPY:  # bits and float4_e2m1fn_x2: copy_ from a tensor of the same dtype
            kinds[f"{name} (own dtype)"] = (make, _copy_own_dtype, _raw)
            if dtype.is_floating_point or dtype.is_complex:  # float4_e2m1fn_x2
                kinds[f"{name} leaf that requires grad"] = (lambda make=make: make().requires_grad_(), _copy_own_dtype,
                                                            _raw)
            continue
        if refused:  # some writes refused, others not: a case the fact's sentence does not cover
            kinds[name] = f"raise NotImplementedError: {refused}"
            continue
        kinds[name] = (make, _copy_in, _raw)
        if dtype.is_floating_point or dtype.is_complex:
            kinds[f"{name} leaf that requires grad"] = (lambda make=make: make().requires_grad_(), _copy_in, _raw)
    kinds["complex64 conj() of a leaf"] = (lambda: torch.tensor([1 + 1j, 2 + 2j], requires_grad=True).conj(),
                                           _copy_in, lambda t: t.resolve_conj().tolist())
    kinds["nested strided, requires grad"] = (
        lambda: torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)], requires_grad=True),
        lambda t, v: t.copy_(torch.nested.nested_tensor([torch.full((2,), float(v)), torch.full((3,), float(v))])),
        lambda t: [x.tolist() for x in t.unbind()])
    return kinds


def _leaf_for_every_floating_or_complex(kinds: dict) -> bool:
    """Whether the kinds hold a leaf that requires grad for every floating or complex dtype of ``torch``, and for no
    other dtype."""
    suffix = " leaf that requires grad"
    leaves = {name.removesuffix(suffix) for name in kinds if name.endswith(suffix)}
    return leaves == {str(d).removeprefix("torch.") for d in _torch_dtypes() if d.is_floating_point or d.is_complex}


@fact("detach-edits-reach-both-every-dtype", {
    "en": "On the CPU, for a tensor a of the default strided layout of every dtype the torch module names (bool, "
          "the integer, unsigned, floating, float8, float4, complex, quantized and bits ones; for a floating or "
          "complex dtype a leaf that requires grad too), a complex conj() view of a leaf (conj bit set) and a "
          "nested tensor of the default strided layout that requires grad: takes c = a.detach(), writes a value "
          "through c with copy_, then another through a (under torch.no_grad()): each write shows in the other "
          "tensor and a._version and c._version both move by 2. The dtypes int1 to int7 and uint1 to uint7 have no "
          "copy kernel: copy_ from a "
          "tensor of the same dtype, copy_ from an int64 tensor, fill_ and an index write of a number each raise "
          "NotImplementedError on the CPU, and both writes go through t.view(torch.uint8).fill_() instead. The bits "
          "dtypes and float4_e2m1fn_x2 take copy_ from a tensor of their own dtype, and both writes are made that "
          "way, but copy_ from an int64 tensor, fill_ and an index write of a number each raise NotImplementedError "
          "on the CPU. On the packed quantized quint4x2 and quint2x4, copy_ from a tensor of the same dtype, fill_ "
          "and an index write of a number each raise NotImplementedError on the CPU, so no edit is made. On every "
          "quantized dtype (quint4x2 and quint2x4 too), copy_ from an int64 tensor raises RuntimeError, not "
          "NotImplementedError. Apart from the refusals named here, every dtype the torch module names takes all "
          "four of these writes.",
    "zh_CN": "在 CPU 上，对默认 strided 布局的张量 a：torch 模块列出的每种 dtype（bool、有符号和无符号整数、浮点、"
             "float8、float4、复数、量化和 bits 类型；浮点和复数类型还取一个需要梯度的叶子张量），"
             "叶子张量的复数 conj() 视图（带共轭位），以及一个需要梯度的默认 strided 布局的嵌套张量："
             "取 c = a.detach()，先用 copy_ 通过 c 写入一个数值，再通过 a 写入另一个（都在 torch.no_grad() 下）："
             "每次写入另一方都看得到，a._version 和 c._version 都增加 2。int1 到 int7 和 uint1 到 uint7 "
             "没有 copy 内核：从同一 dtype 的张量 copy_、"
             "从 int64 张量 copy_、fill_ 和写入一个数的索引写入，在 CPU 上都抛出 NotImplementedError，两次写入改为"
             "通过 t.view(torch.uint8).fill_() 进行。bits 类型和 float4_e2m1fn_x2 可以从自身 dtype 的张量 copy_，"
             "两次写入就这样进行，但从 int64 张量 copy_、fill_ 和写入一个数的索引写入在 CPU 上都抛出 "
             "NotImplementedError。对打包的量化类型 quint4x2 和 quint2x4，从同一 dtype 的张量 copy_、fill_ 和写入"
             "一个数的索引写入在 CPU 上都抛出 NotImplementedError，不作修改。对每种量化类型（包括 quint4x2 和 "
             "quint2x4），从 int64 张量 copy_ 都抛出 RuntimeError，而不是 NotImplementedError。除了这里列出的报错，"
             "torch 模块列出的每种 dtype 都接受这四种写入。",
}, KINDS_SCOPE)
def _detach_edits_reach_both_every_dtype() -> Fact:
    """The general sentence beyond the scoped fact's floating dtypes: integer, bool, complex, quantized, nested."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32, quantized and nested tensors warn when made
        seen = {name: kind if isinstance(kind, str) else _edit_both_ways(kind)
                for name, kind in _detach_kinds().items()}
    edited = [v for v in seen.values() if not isinstance(v, str)]
    unedited = sorted(name for name, v in seen.items() if isinstance(v, str))
    through_bytes = {name.removesuffix(" (bytes)") for name in seen if name.endswith(" (bytes)")}
    own_dtype = {name.removesuffix(" (own dtype)") for name in seen if name.endswith(" (own dtype)")}
    named = {str(d).removeprefix("torch.") for d in _torch_dtypes()}
    int64_copies = {str(d).removeprefix("torch."): _quantized_int64_copy(d) for d in _torch_dtypes()
                    if str(d).startswith(("torch.qint", "torch.quint"))}
    quantized_refusal = "['copy_ from its own dtype', 'fill_', 'index write of a number']"
    return Fact(all(v == (True, True, True, 2, 2) for v in edited) and set(unedited) == {"quint2x4", "quint4x2"}
                and _leaf_for_every_floating_or_complex(seen)
                and all(seen[name].endswith(quantized_refusal) for name in unedited)
                and through_bytes == {name for name in named if _named_without_copy_kernel(name)}
                and own_dtype == {name for name in named if _named_own_dtype_copy_only(name)}
                and set(unedited) < set(int64_copies) and set(int64_copies.values()) == {"RuntimeError"},
                f"(strided, write through c seen by a, write through a seen by c, moves of a._version and "
                f"c._version) per kind: {seen}; no copy kernel (all of {list(_WRITES)} raise NotImplementedError): "
                f"{sorted(through_bytes)}; copy_ from their own dtype, but {_ALL_BUT_OWN_COPY} raise "
                f"NotImplementedError: {sorted(own_dtype)}; copy_ from int64 on each quantized dtype: {int64_copies}")
