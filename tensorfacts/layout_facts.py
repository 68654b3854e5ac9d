"""Named facts on how a tensor reads memory: a tensor's layout over its storage, views and their writes,
``_base``, ``contiguous()`` and advanced indexing (a list that repeats one tensor is
:mod:`tensorfacts.list_repeat_facts`'s). They stand behind the glossary's definitions
(``sitetools/rules/term_facts.py``, ``CHECKED_BY``), each run over the cases its definition covers. Registered on
import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import FUNC_TRANSFORMS, bytes_apart, func_inputs_without_storage, inference_tensors

#: dtypes the layout facts run over: floating, integer, boolean and complex.
DTYPES = (torch.float32, torch.float64, torch.int64, torch.uint8, torch.bool, torch.complex64)


def _base(dtype: torch.dtype) -> torch.Tensor:
    return torch.arange(24).reshape(4, 6).to(dtype)


#: Views of a (4, 6) tensor that autograd records as views, by the call that makes them.
VIEWS = {
    "x[1:3]": lambda x: x[1:3], "x[:, ::2]": lambda x: x[:, ::2], "x.t()": lambda x: x.t(),
    "x.view(24)": lambda x: x.view(24), "x.reshape(2, 12)": lambda x: x.reshape(2, 12),
    "x.unsqueeze(0)": lambda x: x.unsqueeze(0), "x.diagonal()": lambda x: x.diagonal(),
    "x.select(1, 2)": lambda x: x.select(1, 2), "x.narrow(1, 1, 3)": lambda x: x.narrow(1, 1, 3),
    "x.unfold(1, 2, 2)": lambda x: x.unfold(1, 2, 2), "x.expand(2, 4, 6)": lambda x: x.expand(2, 4, 6),
    "x.as_strided((3,), (7,))": lambda x: x.as_strided((3,), (7,)),
}
_RANGE_VIEWS = {
    "en": "12 views (slices, t(), view, reshape, unsqueeze, diagonal, select, narrow, unfold, expand, "
          "as_strided) of a (4, 6) CPU tensor of each of 6 dtypes (float32, float64, int64, uint8, bool, complex64)",
    "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、complex64）的 (4, 6) CPU 张量，取 "
             "12 种视图（切片、t()、view、reshape、unsqueeze、diagonal、select、narrow、unfold、expand、as_strided）",
}


def _raises(read: Callable[[], object]) -> bool:
    """Whether ``read()`` raises RuntimeError."""
    try:
        read()
    except RuntimeError:
        return True
    return False


def _nested_strided() -> torch.Tensor:
    """A float32 nested tensor of layout torch.strided, the layout torch calls dense: [0, 1] and [0, 1, 2]."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.nested warns that it is a prototype
        return torch.nested.nested_tensor([torch.arange(2.0), torch.arange(3.0)], layout=torch.strided)


@fact("dense-tensor-reads-storage-by-layout", {
    "en": "Rebuilds each view from its storage alone (set_ with the view's storage, offset, shape and strides) and "
          "compares values with the view; then z.conj() and z.conj().imag of z = [1+2j, 3-1j, 4+0j]: with the "
          "same storage, dtype, shape, strides and offset as z, z.conj() has the conjugate bit and yields the "
          "conjugates of z's values, and z.conj().imag has the negative bit and yields the negatives of z.imag; "
          "each differs from z (or z.imag) exactly where the imaginary part is not 0. A nested tensor of layout "
          "torch.strided, torch.nested.nested_tensor([torch.arange(2.0), torch.arange(3.0)], layout=torch.strided), "
          "is not quantized, yet its size() and stride() raise RuntimeError: it has no one shape and strides. "
          "The tensor a function receives inside torch.func.vmap over torch.ones(2, 3), and inside grad, jacrev, "
          "jacfwd, jvp and vjp at torch.ones(3), is strided, neither nested nor quantized, yet its untyped_storage() "
          "raises NotImplementedError: it has no storage.",
    "zh_CN": "只用存储重建每个视图（以视图的存储、偏移、形状和步长调用 set_），与视图比较数值；再看 "
             "z = [1+2j, 3-1j, 4+0j] 的 z.conj() 和 z.conj().imag：z.conj() 的存储、dtype、形状、步长和偏移都与 z "
             "相同，它带共轭位（conjugate bit），读到的是 z 中各数的共轭复数；z.conj().imag 带负号位（negative bit），"
             "读到的是 z.imag 中各数的相反数；两者都恰好在虚部不为 0 的元素上与 z（或 z.imag）不同。"
             "布局为 torch.strided 的嵌套张量 torch.nested.nested_tensor([torch.arange(2.0), torch.arange(3.0)], "
             "layout=torch.strided) 不是量化张量，但它的 size() 和 stride() 报 RuntimeError：它没有单一的形状和步长。"
             "函数在 torch.func.vmap（输入 torch.ones(2, 3)）及 grad、jacrev、jacfwd、jvp 和 vjp（输入 torch.ones(3)）"
             "里收到的张量，布局为 strided，非嵌套、非量化，但 untyped_storage() 报 NotImplementedError：它没有存储。",
}, {"en": _RANGE_VIEWS["en"] + ", z.conj() and z.conj().imag of a complex64 z, a strided float32 nested tensor, and "
          "the float32 input of a function inside torch.func.vmap, grad, jacrev, jacfwd, jvp and vjp, all on the CPU",
    "zh_CN": _RANGE_VIEWS["zh_CN"] + "，complex64 张量 z 的 z.conj() 和 z.conj().imag，一个布局为 torch.strided 的 "
             "float32 CPU 嵌套张量，以及函数在 torch.func.vmap、grad、jacrev、jacfwd、jvp 和 vjp 里收到的 "
             "float32 张量（在 CPU 上）"})
def _dense_tensor_reads_storage() -> Fact:
    wrong = []
    for dtype in DTYPES:
        for name, make in VIEWS.items():
            view = make(_base(dtype))
            rebuilt = torch.empty(0, dtype=dtype).set_(view.untyped_storage(), view.storage_offset(),
                                                       view.size(), view.stride())
            if not torch.equal(rebuilt, view):
                wrong.append(f"{name} {dtype}")
    z = torch.tensor([1 + 2j, 3 - 1j, 4 + 0j])
    conj, neg = z.conj(), z.conj().imag
    layout = ((conj.untyped_storage().data_ptr(), conj.untyped_storage().nbytes(), conj.dtype, conj.shape,
               conj.stride(), conj.storage_offset()) == (z.untyped_storage().data_ptr(), z.untyped_storage().nbytes(),
                                                          z.dtype, z.shape, z.stride(), z.storage_offset()))
    conj_values, neg_values = conj.resolve_conj(), neg.resolve_neg()
    imaginary = (z.imag != 0).tolist()  # [True, True, False]: the values differ there only
    bits = (conj.is_conj() and neg.is_neg()
            and torch.equal(conj_values, torch.complex(z.real, -z.imag)) and torch.equal(neg_values, -z.imag)
            and (conj_values != z).tolist() == imaginary and (neg_values != z.imag).tolist() == imaginary)
    nested = _nested_strided()
    nested_apart = (nested.layout == torch.strided and nested.is_nested and not nested.is_quantized
                    and _raises(nested.size) and _raises(nested.stride))
    func_inputs = func_inputs_without_storage()
    return Fact(not wrong and layout and bits and nested_apart and func_inputs == dict.fromkeys(FUNC_TRANSFORMS, True),
                f"rebuilt from storage and layout, values differ: {wrong or 'none'}; conj: same layout {layout}; "
                f"conjugate and negative bits give the conjugates and negatives, which differ where the imaginary "
                f"part is not 0 ({imaginary}): {bits}; a strided nested tensor, not quantized, has no one shape and "
                f"strides (size() and stride() raise): {nested_apart}; a function's input in each of these transforms "
                f"is strided, neither nested nor quantized, and has no storage: {func_inputs}")


@fact("view-write-shows-in-both", {
    "en": "For each of the 12 views listed under Scope, of a dense (4, 6) CPU tensor: its untyped_storage() starts "
          "where its source's does, and a write through either of the two is read through the other.",
    "zh_CN": "对“范围”所列的 12 种视图（取自稠密的 (4, 6) CPU 张量）中的每一个：它的 untyped_storage() "
             "与源张量的起点相同；经由视图写入的值从源张量读得到，经由源张量写入的值也从视图读得到。",
}, _RANGE_VIEWS)
def _view_write_shows_in_both() -> Fact:
    wrong = []
    for dtype in DTYPES:
        for name, make in VIEWS.items():
            x = torch.zeros(4, 6, dtype=dtype)
            view = make(x)
            shared = view.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
            view[(0,) * view.dim()] = 1
            seen_in_source = bool((x != 0).any())
            x.fill_(1)
            seen_in_view = bool((view != 0).all())
            if not (shared and seen_in_source and seen_in_view):
                wrong.append(f"{name} {dtype}")
    return Fact(not wrong, f"views where storage, write through view or write through source failed: {wrong or 'none'}")


def _sources() -> dict[str, torch.Tensor]:
    """The sources a chain of views can start from: a plain tensor, a leaf that requires grad, a non-leaf, a
    Parameter."""
    leaf = torch.arange(12.0, requires_grad=True)
    return {"plain": torch.arange(12.0), "leaf": leaf, "non-leaf": leaf * 2,
            "Parameter": torch.nn.Parameter(torch.arange(12.0))}


#: Chains of views, two or three calls long.
CHAINS = {
    "x[1:][1:]": lambda x: x[1:][1:], "x.view(3, 4).t()[0]": lambda x: x.view(3, 4).t()[0],
    "x.view(3, 4)[1].unsqueeze(0)": lambda x: x.view(3, 4)[1].unsqueeze(0),
    "x.view(2, 6).narrow(1, 2, 3).diagonal()": lambda x: x.view(2, 6).narrow(1, 2, 3).diagonal(),
}


#: The calls autograd does not record as views: their result has no _base, and starts a chain of its own.
CHAIN_STARTS = {
    "x.detach()": lambda x: x.detach(), "x.data": lambda x: x.data,
    "x.view(torch.int32)": lambda x: x.view(torch.int32), "x.view(x.dtype)": lambda x: x.view(x.dtype),
    "x.view(torch.float16)": lambda x: x.view(torch.float16),
}


#: The index tensors of a compressed sparse tensor of each layout, by the calls that return them.
COMPRESSED_INDICES = {
    "CSR": (lambda x: x.to_sparse_csr(), ("crow_indices", "col_indices")),
    "BSR": (lambda x: x.to_sparse_bsr((2, 2)), ("crow_indices", "col_indices")),
    "CSC": (lambda x: x.to_sparse_csc(), ("ccol_indices", "row_indices")),
    "BSC": (lambda x: x.to_sparse_bsc((2, 2)), ("ccol_indices", "row_indices")),
}


@fact("base-names-root-of-view-chain", {
    "en": "For each chain of views, from each source: the last view's _base is the source; the source's _base is "
          "None. Of each source x and of its view x[2:], x.detach(), x.data, x.view(torch.int32), x.view(x.dtype) "
          "and x.view(torch.float16) have no _base, and a view of each ([1:]) has that result as its _base, not x. "
          "Of a sparse COO tensor, indices() has no _base, and indices()[0]._base is that result. Of torch.eye(4) "
          "as a CSR and a BSR tensor (blocks of 2×2), crow_indices() and col_indices(), and as a CSC and a BSC "
          "tensor, ccol_indices() and row_indices(), have no _base; a view of each ([1:]) has that result as its "
          "_base, and a second call returns a tensor on the same memory. Of an inference tensor x "
          "(torch.arange(12.0) * 2 computed under torch.inference_mode()), of its detach() and .data taken outside "
          "the mode, and of n.view(torch.int32) of a normal tensor n taken in the mode (each an inference tensor), "
          "the view [1:] and the last view of each chain have no _base, and _is_view() is False, whether taken "
          "inside the mode or outside it.",
    "zh_CN": "对每条视图链、每种源张量：最后一个视图的 _base 就是源张量；源张量的 _base 为 None。对每种源张量 x "
             "和它的视图 x[2:]，x.detach()、x.data、x.view(torch.int32)、x.view(x.dtype) 和 "
             "x.view(torch.float16) 都没有 _base，对它们各取一个视图（[1:]），其 _base 是这个结果，而不是 x。"
             "对稀疏 COO 张量，indices() 没有 _base，indices()[0]._base 是这个结果。把 torch.eye(4) 转成 CSR 和 BSR "
             "张量（块大小 2×2）时的 crow_indices() 和 col_indices()，以及转成 CSC 和 BSC 张量时的 ccol_indices() "
             "和 row_indices()，都没有 _base；对它们各取一个视图（[1:]），其 _base 是这个结果；再调用一次，返回的"
             "张量在同一块内存上。对推理张量 x（在 torch.inference_mode() 下算出的 torch.arange(12.0) * 2）、"
             "在该模式外取的 x.detach() 和 x.data，以及在该模式下对普通张量 n 取的 n.view(torch.int32)"
             "（它们都是推理张量），视图 [1:] 和每条视图链的最后一个视图都没有 _base，_is_view() 为 False，"
             "无论是在该模式之内还是之外取的。",
}, {
    "en": "4 chains of 2 or 3 view calls from 4 sources (a plain tensor, a leaf that requires grad, a "
          "non-leaf, a Parameter, each float32), the 5 calls autograd does not record as views of each source and "
          "of a view of it, the indices() of a sparse COO tensor, and the 2 index tensors of a CSR, a CSC, a BSR "
          "and a BSC tensor, and the 4 chains and [1:] of 4 inference tensors (float32 and int32), inside "
          "torch.inference_mode() and outside it, on the CPU",
    "zh_CN": "从 4 种源张量（普通张量、需要梯度的叶子张量、非叶子张量、Parameter，都是 float32）出发的 4 条视图链"
             "（每条 2 到 3 次视图调用），自动求导（autograd）不记作视图的 5 种调用（对每种源张量和它的一个视图），"
             "稀疏 COO 张量的 indices()，CSR、CSC、BSR 和 BSC 张量各自的 2 种索引张量，以及 4 个推理张量"
             "（float32 和 int32）的 4 条视图链和 [1:]（在 torch.inference_mode() 之内和之外），在 CPU 上",
})
def _base_names_root() -> Fact:
    wrong = []
    for source, x in _sources().items():
        for name, make in CHAINS.items():
            if make(x)._base is not x or x._base is not None:
                wrong.append(f"{name} from {source}")
        for start, of in (("x", x), ("x[2:]", x[2:])):
            for name, make in CHAIN_STARTS.items():
                result = make(of)
                if result._base is not None or result[1:]._base is not result or result[1:]._base is x:
                    wrong.append(f"{name} of {start} from {source}")
    indices = torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse().indices()
    if indices._base is not None or indices[0]._base is not indices:
        wrong.append("indices() of a sparse tensor")
    for layout, (convert, calls) in COMPRESSED_INDICES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # torch warns that sparse CSR support is in beta
            compressed = convert(torch.eye(4))
        for call in calls:
            result = getattr(compressed, call)()
            if result._base is not None or result[1:]._base is not result \
                    or getattr(compressed, call)().data_ptr() != result.data_ptr():
                wrong.append(f"{call}() of a {layout} tensor")
    for source, x in inference_tensors().items():
        for mode, context in (("inside", torch.inference_mode), ("outside", contextlib.nullcontext)):
            with context():
                views = {"x[1:]": x[1:], **{name: make(x) for name, make in CHAINS.items()}}
            if not x.is_inference() or any(v._base is not None or v._is_view() for v in views.values()):
                wrong.append(f"views of the inference tensor {source} taken {mode} the mode")
    return Fact(not wrong, f"chains whose _base is not the source, calls that do not start a chain of their own, or "
                           f"views of an inference tensor with a _base: {wrong or 'none'}")


#: Tensors laid out with gaps or out of row order.
NOT_CONTIGUOUS = {
    "x.t()": lambda x: x.t(), "x[:, ::2]": lambda x: x[:, ::2], "x.expand(2, 4, 6)": lambda x: x.expand(2, 4, 6),
    "x.view(2, 2, 6).permute(2, 0, 1)": lambda x: x.view(2, 2, 6).permute(2, 0, 1),
}


@fact("contiguous-copies-only-when-needed", {
    "en": "For each of 4 layouts that are not contiguous (t(), x[:, ::2], expand, permute): is_contiguous() is "
          "False, and contiguous() gives equal values in memory of its own, laid out row by row; for the contiguous "
          "source and x[1:3], contiguous() returns the tensor itself.",
    "zh_CN": "对 4 种不连续的布局（t()、x[:, ::2]、expand、permute）：is_contiguous() 为 False，contiguous() 得到"
             "数值相同、有自己内存、逐行排列的张量；对连续的源张量和 x[1:3]，contiguous() 返回张量本身。",
}, {"en": "4 layouts that are not contiguous and 2 that are, of a (4, 6) CPU tensor of each of 6 dtypes (float32, "
          "float64, int64, uint8, bool, complex64)",
    "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、complex64）的 (4, 6) CPU 张量，4 种不连续的布局"
             "和 2 种连续的布局"})
def _contiguous_copies_only_when_needed() -> Fact:
    wrong = []
    for dtype in DTYPES:
        x = _base(dtype)
        for name, make in NOT_CONTIGUOUS.items():
            t = make(x)
            c = t.contiguous()
            if t.is_contiguous() or not bytes_apart(c, x) or not torch.equal(c, t) or not c.is_contiguous():
                wrong.append(f"{name} {dtype}")
        rows = x[1:3]
        if x.contiguous() is not x or rows.contiguous() is not rows:
            wrong.append(f"contiguous source {dtype}")
    return Fact(not wrong, f"cases not as stated: {wrong or 'none'}")


#: Advanced indexes of a (4, 6) tensor, and one 0-d index tensor, which is not one.
ADVANCED = {
    "x[[0, 2]]": lambda x: x[[0, 2]], "x[[0, 2], [1, 3]]": lambda x: x[[0, 2], [1, 3]],
    "x[:, [1, 4]]": lambda x: x[:, [1, 4]], "x[torch.tensor([0, 2])]": lambda x: x[torch.tensor([0, 2])],
    "x[torch.tensor([[0], [3]])]": lambda x: x[torch.tensor([[0], [3]])],
    "x[torch.tensor([0, 2], dtype=torch.int32)]": lambda x: x[torch.tensor([0, 2], dtype=torch.int32)],
    "x[x_mask]": lambda x: x[torch.arange(24).reshape(4, 6) % 2 == 0], "x[row_mask]": lambda x: x[torch.tensor(
        [True, False, True, False])],
    "x[row_mask, 1:3]": lambda x: x[torch.tensor([True, False, True, False]), 1:3],
    "x[:, col_mask]": lambda x: x[:, torch.arange(6) % 2 == 0],
}


#: Basic indexes of a (4, 6) tensor: integers, slices, ``None`` and ``...``, and a 0-d integer tensor.
BASIC = {
    "x[1]": lambda x: x[1], "x[1:3]": lambda x: x[1:3], "x[:, 2]": lambda x: x[:, 2], "x[None]": lambda x: x[None],
    "x[..., 1]": lambda x: x[..., 1], "x[1, ::2]": lambda x: x[1, ::2],
    "x[torch.tensor(1)]": lambda x: x[torch.tensor(1)],
}


#: Basic indexes a nested tensor takes and two it refuses, and basic indexes of a (2, 2) sparse COO tensor.
NESTED_BASIC = {"x[1]": lambda x: x[1], "x[torch.tensor(1)]": lambda x: x[torch.tensor(1)]}
NESTED_REFUSED = {"x[0:1]": lambda x: x[0:1], "x[None]": lambda x: x[None]}
SPARSE_BASIC = {"s[0]": lambda s: s[0], "s[1]": lambda s: s[1], "s[:, 0]": lambda s: s[:, 0],
                "s[torch.tensor(0)]": lambda s: s[torch.tensor(0)]}


#: dtypes of a 0-d index tensor: the integer ones but ``uint8`` pick by position (a view), ``uint8`` and ``bool``
#: act as a mask (a copy with a new first dimension).
ZERO_D_POSITION = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64)
ZERO_D_MASK = (torch.uint8, torch.bool)


@fact("basic-index-read-views", {
    "en": "Reads each of 7 basic indexes (x[1], x[1:3], x[:, 2], x[None], x[..., 1], x[1, ::2], x[torch.tensor(1)]) "
          "and checks that the result is a view on x's storage; then reads x[i] for a 0-d index tensor i holding 1: of "
          "dtype int8, int16, int32, int64, uint16, uint32 or uint64 it is a view on x's storage, of dtype uint8 or "
          "bool it is a copy (not a view, another storage) of shape (1, 4, 6), as a mask gives; x[True] is such a copy "
          "too, and x[False] a copy of shape (0, 4, 6). Of a nested tensor x of layout torch.strided, x[1] and "
          "x[torch.tensor(1)] are views on x's storage, while x[0:1] and x[None] raise. Of s = torch.tensor([[0., 1.], "
          "[2., 0.]]).to_sparse(), s[0], s[1], s[:, 0] and s[torch.tensor(0)] have s as their _base, yet their "
          "values() and indices() share no memory with s's, and s[0].mul_(10) changes s[0] and leaves s as it was.",
    "zh_CN": "用 7 种基本索引读取（x[1]、x[1:3]、x[:, 2]、x[None]、x[..., 1]、x[1, ::2]、x[torch.tensor(1)]），检查结果"
             "都是读取 x 的存储的视图；再用值为 1 的零维索引张量 i 读取 x[i]：i 的 dtype 为 int8、int16、int32、int64、"
             "uint16、uint32 或 uint64 时，结果是读取 x 的存储的视图；为 uint8 或 bool 时，结果和掩码一样是形状 (1, 4, "
             "6) 的副本（不是视图，存储不同）；x[True] 也是这样的副本，x[False] 则是形状 (0, 4, 6) 的副本。对布局为 "
             "torch.strided 的嵌套张量 x，x[1] 和 x[torch.tensor(1)] 是读取 x 的存储的视图，x[0:1] 和 x[None] 则报错。"
             "对 s = torch.tensor([[0., 1.], [2., 0.]]).to_sparse()，s[0]、s[1]、s[:, 0] 和 s[torch.tensor(0)] 的 "
             "_base 都是 s，但它们的 values() 和 indices() 与 s 的不共享内存；s[0].mul_(10) 改变 s[0]，s 保持原样。",
}, {"en": "7 indexes, 0-d index tensors of 9 dtypes (int8, int16, int32, int64, uint16, uint32, uint64, uint8, bool) "
          "and a Python True and False, on a (4, 6) CPU tensor of each of 6 dtypes (float32, float64, int64, uint8, "
          "bool, complex64); 4 indexes of a float32 CPU nested tensor of layout torch.strided; 4 indexes of a (2, 2) "
          "float32 sparse COO CPU tensor",
    "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、complex64）的 (4, 6) CPU 张量，7 种索引、9 种 dtype"
             "（int8、int16、int32、int64、uint16、uint32、uint64、uint8、bool）的零维索引张量，以及 Python 的 True 和 "
             "False；布局为 torch.strided 的 float32 CPU 嵌套张量，4 种索引；(2, 2) 的 float32 稀疏 COO CPU 张量，4 种"
             "索引"})
def _basic_index_read_views() -> Fact:
    wrong = []
    for dtype in DTYPES:
        x = _base(dtype)
        for name, read in BASIC.items():
            result = read(x)
            if not result._is_view() or result.untyped_storage().data_ptr() != x.untyped_storage().data_ptr():
                wrong.append(f"{name} {dtype}")
        for index_dtype in ZERO_D_POSITION + ZERO_D_MASK:
            result = x[torch.tensor(1, dtype=index_dtype)]
            shares = result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
            if index_dtype in ZERO_D_POSITION and not (result._is_view() and shares):
                wrong.append(f"0-d {index_dtype} index copied {dtype}")
            if index_dtype in ZERO_D_MASK and (result._is_view() or shares or result.shape != (1, 4, 6)):
                wrong.append(f"0-d {index_dtype} index not a mask copy {dtype}")
        for flag, rows in ((True, 1), (False, 0)):
            result = x[flag]
            if result._is_view() or result.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() \
                    or result.shape != (rows, 4, 6):
                wrong.append(f"x[{flag}] not a mask copy {dtype}")
    nested = _nested_strided()
    for name, read in NESTED_BASIC.items():
        result = read(nested)
        if not result._is_view() or result.untyped_storage().data_ptr() != nested.untyped_storage().data_ptr():
            wrong.append(f"nested {name}")
    wrong += [f"nested {name} did not raise" for name, read in NESTED_REFUSED.items()
              if not _raises(lambda read=read: read(nested))]
    sparse = torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse()
    for name, read in SPARSE_BASIC.items():
        result = read(sparse)
        if result._base is not sparse or not all(bytes_apart(mine, theirs) for theirs in (sparse.values(),
                                                 sparse.indices()) for mine in (result.values(), result.indices())):
            wrong.append(f"sparse {name} not a copy under a _base")
    row = sparse[0]
    row.mul_(10)
    if row.to_dense().tolist() != [0.0, 10.0] or sparse.to_dense().tolist() != [[0.0, 1.0], [2.0, 0.0]]:
        wrong.append("an edit of sparse s[0] reached s, or did not change s[0]")
    return Fact(not wrong, f"reads not as stated: {wrong or 'none'}")


@fact("advanced-index-read-copies", {
    "en": "Reads each of 10 indexes (lists of Python integers, alone or beside a slice; int64 tensors of one or two "
          "dimensions; an int32 tensor; boolean masks, alone or beside a slice) and checks that the result is no view "
          "and shares no byte of x's storage, then that x[i] with a 0-d int64 tensor i is a view sharing x's storage.",
    "zh_CN": "用 10 种索引读取（Python 整数列表，单独使用或与切片并用；一维或二维 int64 张量；int32 张量；"
             "布尔掩码，单独使用或与切片并用），检查结果不是视图，且它的存储与 x 的存储没有一个字节重叠；"
             "再检查用零维 int64 张量 i 做下标的 x[i] 是共享 x 存储的视图。",
}, {"en": "10 indexes and a 0-d int64 index tensor of a (4, 6) CPU tensor of each of 6 dtypes (float32, float64, "
          "int64, uint8, bool, complex64)", "zh_CN": "对 6 种 dtype（float32、float64、int64、uint8、bool、"
             "complex64）的 (4, 6) CPU 张量，10 种索引和一个零维 int64 索引张量"})
def _advanced_index_read_copies() -> Fact:
    shared = []
    for dtype in DTYPES:
        x = _base(dtype)
        for name, read in ADVANCED.items():
            if (result := read(x))._is_view() or not bytes_apart(result, x):
                shared.append(f"{name} {dtype}")
        zero_d = x[torch.tensor(1)]
        if not zero_d._is_view() or zero_d.untyped_storage().data_ptr() != x.untyped_storage().data_ptr():
            shared.append(f"0-d index copied {dtype}")
    return Fact(not shared, f"reads not as stated: {shared or 'none'}")
