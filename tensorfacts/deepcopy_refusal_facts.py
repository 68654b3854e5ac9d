"""Named facts on the tensors ``copy.deepcopy`` refuses though they have no ``grad_fn`` (a leaf whose ``.grad`` has
one, a strided nested tensor, the compressed sparse layouts, an mkldnn tensor, an instance of a plain ``torch.Tensor``
subclass) next to their neighbours that copy, and on ``copy.copy``: of a nested tensor, whose strided layout makes the
copy a view of its source, of the tensors it raises on, and of a sparse COO tensor. Behind the decide page's and
the matrix guide's deepcopy entries, the guide's avoid-data entry and the deepcopy question.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.module_copy_facts import GRAPH_LEAVES

#: The start of the error ``copy.deepcopy`` raises on an instance of a subclass it cannot rebuild.
SUBCLASS_REFUSAL = "The default implementation of __deepcopy__() for"


def _nested(layout: torch.layout, requires_grad: bool = False) -> torch.Tensor:
    """A nested tensor of two rows (2 and 3 elements); the strided layout is a prototype that warns when built."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=layout, requires_grad=requires_grad)


def _graded(kind: type) -> torch.Tensor:
    """A leaf of ``kind`` after ``backward(create_graph=True)`` of ``(w * w).sum()``: its ``.grad`` has a grad_fn."""
    values = torch.tensor([1.0, 2.0, 3.0])
    w = torch.nn.Parameter(values) if kind is torch.nn.Parameter else values.requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
        (w * w).sum().backward(create_graph=True)
    return w


class _Plain(torch.Tensor):
    """A ``torch.Tensor`` subclass that adds nothing."""


class _OwnNewEmpty(torch.Tensor):
    """A subclass whose ``new_empty`` returns its own class."""

    def new_empty(self, *args, **kwargs):
        return super().new_empty(*args, **kwargs).as_subclass(_OwnNewEmpty)


class _OwnDeepcopy(torch.Tensor):
    """A subclass that defines ``__deepcopy__``."""

    def __deepcopy__(self, memo):
        return self.detach().clone().as_subclass(_OwnDeepcopy)


class _ParameterKind(torch.nn.Parameter):
    """A subclass of ``Parameter``."""


def _dense(dtype: torch.dtype) -> torch.Tensor:
    return torch.arange(16).reshape(4, 4).to(dtype)


#: The compressed sparse layouts, by the call that makes each from a dense (4, 4) tensor.
COMPRESSED = {"CSR": lambda d: d.to_sparse_csr(), "CSC": lambda d: d.to_sparse_csc(),
              "BSR": lambda d: d.to_sparse_bsr((2, 2)), "BSC": lambda d: d.to_sparse_bsc((2, 2))}


def _compressed(layout: str, dtype: torch.dtype, requires_grad: bool) -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns that the compressed layouts are in beta
        return COMPRESSED[layout](_dense(dtype)).requires_grad_(requires_grad)


def refused_leaves() -> dict[str, Callable[[], torch.Tensor]]:
    """Tensors with no grad_fn that ``copy.deepcopy`` raises on, by name; each is built anew when called."""
    cases: dict[str, Callable[[], torch.Tensor]] = {
        "a torch.Tensor leaf whose .grad has a grad_fn": lambda: _graded(torch.Tensor),
    }
    for rg in (False, True):
        tail = " that requires grad" if rg else ""
        cases[f"a strided nested tensor{tail}"] = lambda rg=rg: _nested(torch.strided, rg)
        cases[f"an mkldnn tensor{tail}"] = lambda rg=rg: torch.ones(2, 2).to_mkldnn().requires_grad_(rg)
        for name in COMPRESSED:
            for dtype in ((torch.float32,) if rg else (torch.float32, torch.int64)):
                cases[f"a sparse {name} {dtype} tensor{tail}"] = (
                    lambda name=name, dtype=dtype, rg=rg: _compressed(name, dtype, rg))
        cases[f"_Plain(...) by as_subclass{tail}"] = lambda rg=rg: torch.ones(2).as_subclass(_Plain).requires_grad_(rg)
        cases[f"_Plain(...) by its constructor{tail}"] = lambda rg=rg: _Plain(torch.ones(2)).requires_grad_(rg)
    cases["an empty _Plain(...)"] = lambda: torch.empty(0).as_subclass(_Plain)
    cases["a _Plain(...) on meta"] = lambda: torch.ones(2, device="meta").as_subclass(_Plain)
    return cases


#: What each refusal raises: (the error's type, the start of its message, or "" for any message).
def _expected(name: str) -> tuple[type, str]:
    if "_Plain" in name:
        return RuntimeError, SUBCLASS_REFUSAL
    if "grad_fn" in name:
        return RuntimeError, GRAPH_LEAVES
    return NotImplementedError, ""


def copied_neighbours() -> dict[str, Callable[[], torch.Tensor]]:
    """Their neighbours, which ``copy.deepcopy`` copies."""
    return {
        "a Parameter whose .grad has a grad_fn": lambda: _graded(torch.nn.Parameter),
        "a jagged nested tensor": lambda: _nested(torch.jagged),
        "a jagged nested tensor that requires grad": lambda: _nested(torch.jagged, True),
        "a sparse COO tensor": lambda: _dense(torch.float32).to_sparse(),
        "a sparse COO tensor that requires grad": lambda: _dense(torch.float32).to_sparse().requires_grad_(),
        "_OwnNewEmpty(...)": lambda: torch.ones(2).as_subclass(_OwnNewEmpty),
        "_OwnDeepcopy(...)": lambda: torch.ones(2).as_subclass(_OwnDeepcopy),
        "a subclass of Parameter": lambda: _ParameterKind(torch.ones(2)),
    }


def _outcome(make: Callable[[], torch.Tensor]) -> tuple[str, str] | str:
    """(type of the error, its message) when ``copy.deepcopy`` raises, else what the copy is."""
    source = make()
    if source.grad_fn is not None or not source.is_leaf:
        return "the source has a grad_fn"
    try:
        twin = copy.deepcopy(source)
    except (RuntimeError, NotImplementedError) as e:
        return type(e).__name__, str(e)
    if type(twin) is not type(source) or twin is source or twin.layout != source.layout:
        return f"a {type(twin).__name__} of layout {twin.layout}"
    if type(source) is torch.nn.Parameter:
        return "copies, without .grad" if twin.grad is None and source.grad is not None else "copies, with .grad"
    return "copies"


@fact("deepcopy-refuses-some-leaves", {
    "en": "copy.deepcopy of tensors that have no grad_fn. It raises RuntimeError \"Only Tensors created explicitly by "
          "the user (graph leaves) ...\" on a torch.Tensor leaf whose .grad has a grad_fn (after "
          "(w * w).sum().backward(create_graph=True)); NotImplementedError on a nested tensor of the torch.strided "
          "layout, on an mkldnn tensor (to_mkldnn()) and on sparse CSR, CSC, BSR and BSC tensors (float32 and int64), "
          "each with requires_grad False and True but the int64 ones, run with requires_grad False only; and "
          "RuntimeError \"The default implementation of __deepcopy__() "
          "for ...\" on an instance of class T(torch.Tensor): pass, made by as_subclass or by T(...), requiring grad "
          "or not, empty, or on meta. It copies their neighbours into a copy of the same class and layout: a "
          "Parameter whose .grad has a grad_fn (the copy has no .grad), a jagged nested tensor and a sparse COO "
          "tensor (with requires_grad False and True), an instance of a subclass whose new_empty returns its own "
          "class, of one that defines __deepcopy__, and of a subclass of Parameter.",
    "zh_CN": "对没有 grad_fn 的张量做 copy.deepcopy。对 .grad 带 grad_fn 的 torch.Tensor 叶子张量（调用 "
             "(w * w).sum().backward(create_graph=True) 之后）抛出 RuntimeError“Only Tensors created explicitly by "
             "the user (graph leaves) ...”；对 torch.strided 布局的嵌套张量、mkldnn 张量（to_mkldnn()）和 CSR、CSC、"
             "BSR、BSC 稀疏张量（float32 和 int64）都抛出 NotImplementedError，其中嵌套张量、mkldnn 张量和 float32 的"
             "稀疏张量在 requires_grad 为 False 和 True 时都是如此，int64 的稀疏张量只在 requires_grad 为 False "
             "时试过；对 "
             "class T(torch.Tensor): pass 的实例，无论是用 as_subclass 还是用 T(...) 得到的、需不需要梯度、为空还是在 "
             "meta 上，都抛出 RuntimeError“The default implementation of __deepcopy__() for ...”。与它们相近的这些张量"
             "则能复制，副本的类和布局不变：.grad 带 grad_fn 的 Parameter（副本没有 .grad），jagged 布局的嵌套张量和 "
             "COO 稀疏张量（requires_grad 为 False 和 True），以及 new_empty 返回自身类的子类、定义了 __deepcopy__ "
             "的子类和 Parameter 的子类的实例。",
})
def _deepcopy_refuses_some_leaves() -> Fact:
    refused = {name: _outcome(make) for name, make in refused_leaves().items()}
    wrong = [name for name, got in refused.items()
             if not (isinstance(got, tuple) and got[0] == _expected(name)[0].__name__
                     and got[1].startswith(_expected(name)[1]))]
    copied = {name: _outcome(make) for name, make in copied_neighbours().items()}
    expected_copies = {name: "copies, without .grad" if "Parameter whose" in name else "copies" for name in copied}
    return Fact(not wrong and len(refused) == 23 and copied == expected_copies,
                f"not raising as stated: {wrong} of {len(refused)}; "
                f"raised: { {name: got[0] if isinstance(got, tuple) else got for name, got in refused.items()} }; "
                f"neighbours: {copied}")


def _shares_counter(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Whether moving ``x``'s version counter moves ``y``'s (the counter is put back afterwards)."""
    before = y._version
    with torch.autograd._unsafe_preserve_version_counter(x):
        torch.autograd.graph.increment_version(x)
        return y._version != before


def _copy_edit_caught(layout: torch.layout) -> dict[str, object]:
    """``copy.copy`` of a nested tensor that requires grad: what it is, and whether backward catches an edit of the
    copy under ``torch.no_grad()`` made after ``nt * nt`` saved the source."""
    nt = _nested(layout, requires_grad=True)
    twin = copy.copy(nt)
    seen = {"view of the source": twin._base is nt, "leaf": twin.is_leaf,
            "grad_fn": type(twin.grad_fn).__name__ if twin.grad_fn else None,
            "same memory": twin.values().data_ptr() == nt.values().data_ptr(),
            "shares the counter": _shares_counter(nt, twin)}
    product = nt * nt
    with torch.no_grad():
        twin.mul_(3)
    seen["source edited"] = nt.unbind()[0].detach().tolist() == [3.0, 3.0]
    try:
        product.values().sum().backward() if layout == torch.jagged else torch.cat(product.unbind()).sum().backward()
    except RuntimeError as e:
        seen["backward"] = "raises" if "modified by an inplace operation" in str(e) else str(e)
    else:
        seen["backward"] = "no error"
    return seen


@fact("copy-copy-of-strided-nested-shares-counter", {
    "en": "copy.copy of a nested tensor of the torch.strided layout (two rows, 2 and 3 elements) made with "
          "requires_grad=True and with requires_grad=False: the copy is a view of it (_base is the source) on its "
          "memory that shares its version counter; with requires_grad=True it is a non-leaf with a grad_fn. After "
          "nt * nt saved the source, an in-place edit of the copy under torch.no_grad() changes the source and "
          "backward raises the in-place error. The same run on a torch.jagged nested tensor: its copy is a leaf on "
          "the same memory with a counter of its own, the edit changes the source and backward raises nothing.",
    "zh_CN": "对 torch.strided 布局的嵌套张量（两行，分别 2 个和 3 个元素；用 requires_grad=True 和 "
             "requires_grad=False 各建一个）做 copy.copy：副本是它的视图（_base 就是源张量），用它的内存，"
             "与它共享版本计数器（version counter）；requires_grad=True 时副本是带 grad_fn 的非叶子张量。"
             "nt * nt 保存了源张量之后，"
             "在 torch.no_grad() 下原地修改副本，源张量也变了，反向传播报原地修改的错误。对 torch.jagged "
             "布局的嵌套张量做同样的事：副本是同一块内存上的叶子张量，有自己的版本计数器，修改同样落到源张量上，"
             "反向传播却不报错。",
})
def _copy_copy_of_strided_nested_shares_counter() -> Fact:
    plain = _nested(torch.strided)
    plain_twin = copy.copy(plain)
    plain_seen = (plain_twin._base is plain, plain_twin.is_leaf,
                  plain_twin.values().data_ptr() == plain.values().data_ptr(), _shares_counter(plain, plain_twin))
    strided, jagged = _copy_edit_caught(torch.strided), _copy_edit_caught(torch.jagged)
    holds = (plain_seen == (True, True, True, True)
             and strided == {"view of the source": True, "leaf": False, "grad_fn": strided["grad_fn"],
                             "same memory": True, "shares the counter": True, "source edited": True,
                             "backward": "raises"} and strided["grad_fn"] is not None
             and jagged == {"view of the source": False, "leaf": True, "grad_fn": None, "same memory": True,
                            "shares the counter": False, "source edited": True, "backward": "no error"})
    return Fact(holds, f"strided, no grad (view, leaf, same memory, shares the counter): {plain_seen}; strided, "
                       f"requires grad: {strided}; jagged, requires grad: {jagged}")


#: The CPU dtypes, by name, on which ``copy.copy`` of a tensor raises ``AttributeError`` (an open list: not all).
COPY_REFUSED_DTYPES = {"float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2,
                       "uint16": torch.uint16, "uint32": torch.uint32}


def _copy_raises(make: Callable[[], torch.Tensor]) -> str:
    """The type of the error ``copy.copy`` raises on what ``make`` builds (one the fact expects), or "copies"; any
    other error, or one raised while building the tensor, propagates."""
    made = make()
    try:
        copy.copy(made)
    except (AttributeError, NotImplementedError) as e:
        return type(e).__name__
    return "copies"


@fact("copy-copy-raises-on-some-tensors", {
    "en": "copy.copy of an mkldnn tensor (to_mkldnn() of a float32 and of a bfloat16 tensor, with requires_grad "
          "False and True) raises NotImplementedError; copy.copy of a CPU tensor of dtype float8_e4m3fn, float8_e5m2, "
          "uint16 or uint32 (torch.empty(2, dtype=...), and a view of one) raises AttributeError. A float32 CPU "
          "tensor is copied.",
    "zh_CN": "对 mkldnn 张量（float32 和 bfloat16 张量的 to_mkldnn()，requires_grad 为 False 和 True）做 copy.copy，"
             "抛出 NotImplementedError；对 dtype 为 float8_e4m3fn、float8_e5m2、uint16 或 uint32 的 CPU 张量"
             "（torch.empty(2, dtype=...) 及其视图）做 copy.copy，抛出 AttributeError。float32 的 CPU 张量则照常复制。",
})
def _copy_copy_raises_on_some_tensors() -> Fact:
    mkldnn = {f"{dtype} mkldnn, requires_grad={rg}": _copy_raises(
        lambda dtype=dtype, rg=rg: torch.ones(2, 2, dtype=dtype).to_mkldnn().requires_grad_(rg))
        for dtype in (torch.float32, torch.bfloat16) for rg in (False, True)}
    dtypes = {f"{name}{part}": _copy_raises(lambda dtype=dtype, part=part: (
        torch.empty(4, dtype=dtype)[1:] if part else torch.empty(2, dtype=dtype)))
        for name, dtype in COPY_REFUSED_DTYPES.items() for part in ("", " view")}
    control = _copy_raises(lambda: torch.ones(2))
    holds = (set(mkldnn.values()) == {"NotImplementedError"} and set(dtypes.values()) == {"AttributeError"}
             and control == "copies")
    return Fact(holds, f"mkldnn: {mkldnn}; dtypes: {dtypes}; float32: {control}")


def _sparse_copy_edit(op: str, requires_grad: bool) -> tuple[bool, bool]:
    """A sparse COO tensor and its ``copy.copy``: (do their values share memory, does ``op`` on the copy under
    ``torch.no_grad()`` change the source)."""
    source = torch.arange(6.0).reshape(2, 3).to_sparse().requires_grad_(requires_grad)
    twin = copy.copy(source)
    shared = twin._values().data_ptr() == source._values().data_ptr()
    before = source.detach().to_dense().clone()
    with torch.no_grad():
        getattr(twin, op)(*((10.0,) if op == "mul_" else ()))
    return shared, not torch.equal(source.detach().to_dense(), before)


@fact("copy-copy-sparse-coo-edit-by-operation", {
    "en": "copy.copy of a sparse COO tensor (to_sparse() of a float32 tensor of shape (2, 3), with requires_grad "
          "False and True): the copy's _values() share memory with the source's; under torch.no_grad(), neg_() on "
          "the copy changes the source's values, while mul_(10.0) on the copy leaves them as they were.",
    "zh_CN": "对 COO 稀疏张量（形状为 (2, 3) 的 float32 张量的 to_sparse()，requires_grad 为 False 和 True）做 "
             "copy.copy：副本的 _values() 与源张量的共享内存；在 torch.no_grad() 下，对副本调用 neg_() 会改变源张量的"
             "值，调用 mul_(10.0) 则不改变。",
})
def _copy_copy_sparse_coo_edit_by_operation() -> Fact:
    seen = {f"{op}, requires_grad={rg}": _sparse_copy_edit(op, rg) for op in ("neg_", "mul_") for rg in (False, True)}
    holds = all(got == (True, key.startswith("neg_")) for key, got in seen.items())
    return Fact(holds, f"(values share memory, source changed): {seen}")
