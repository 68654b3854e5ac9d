"""Named facts behind the gallery parts' introductions and the glossary: what plain assignment, ``.data``,
``detach()``, ``clone()`` and ``detach().clone()`` give in memory and in the autograd graph, strided or sparse;
which tensors have a storage a view shares with its base; and that an
in-place operation writes into the tensor it is called on. Registered on import by :mod:`tensorfacts.facts`, whose
module docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact, scoped_fact
from tensorfacts.glossary_facts import INPLACE
from tensorfacts.meta_reasons import NEEDS_ADDRESSES
from tensorfacts.scope import VALUE_DEVICES, Case, Raised
from tensorfacts.standard_sources import GRAD_SOURCES

#: The layouts ``a`` is given, by name: itself, and each sparse layout torch has (the compressed ones of a 1×n
#: matrix, in blocks of 1×1 for BSR and BSC).
LAYOUTS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "strided": lambda a: a,
    "sparse COO": lambda a: a.to_sparse(),
    "sparse CSR": lambda a: a.reshape(1, -1).to_sparse_csr(),
    "sparse CSC": lambda a: a.reshape(1, -1).to_sparse_csc(),
    "sparse BSR": lambda a: a.reshape(1, -1).to_sparse_bsr((1, 1)),
    "sparse BSC": lambda a: a.reshape(1, -1).to_sparse_bsc((1, 1)),
}


def in_layout(a: torch.Tensor, layout: str) -> torch.Tensor:
    """``a`` in ``layout``, of the same kind: a leaf (a ``Parameter``) stays one, an inference tensor is converted
    inside ``torch.inference_mode()``, a tensor with history gets one more node."""
    if layout == "strided":
        return a
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns that the compressed layouts are in beta
        if a.is_inference():
            with torch.inference_mode():
                return LAYOUTS[layout](a)
        if not (a.is_leaf and a.requires_grad):
            return LAYOUTS[layout](a)
        s = LAYOUTS[layout](a.detach())
        return torch.nn.Parameter(s) if isinstance(a, torch.nn.Parameter) else s.requires_grad_()


def values_start(t: torch.Tensor) -> int:
    """Where the memory of ``t``'s values starts (of a sparse COO tensor, ``_values()``, an internal call)."""
    if t.layout == torch.strided:
        return t.untyped_storage().data_ptr()
    return (t._values() if t.layout == torch.sparse_coo else t.values()).untyped_storage().data_ptr()


#: The ways of "copying" a tensor the introductions compare; ``.data`` and ``detach()`` also under the other modes.
WAYS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "b = a": lambda a: a, "a.data": lambda a: a.data, "a.detach()": lambda a: a.detach(),
    "a.clone()": lambda a: a.clone(), "a.detach().clone()": lambda a: a.detach().clone(),
}
MODES = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode}


def copy_ways(case: Case) -> dict[str, tuple[bool, bool, str | None]]:
    """For each way and layout, on a fresh ``a``: (shares the memory of ``a``'s values, requires grad, its node)."""
    seen = {}
    for layout in LAYOUTS:
        calls = {name: (way, None) for name, way in WAYS.items()}
        calls.update({f"{name} under {mode}": (WAYS[name], MODES[mode]) for name in ("a.data", "a.detach()")
                      for mode in MODES})
        for name, (way, mode) in calls.items():
            a = in_layout(case.build()[1], layout)
            if mode is None:
                b = way(a)
            else:
                with mode():
                    b = way(a)
            node = "same node as a" if b.grad_fn is a.grad_fn else type(b.grad_fn).__name__
            seen[f"{name}, {layout}"] = (values_start(b) == values_start(a), b.requires_grad,
                                         node if b.grad_fn is not None else None)
    return seen


def _copy_ways_expected(case: Case) -> dict[str, tuple[bool, bool, str | None]]:
    graph = case.source in GRAD_SOURCES
    ways = {"a.clone()": (False, graph, "CloneBackward0" if graph else None),
            "a.detach().clone()": (False, False, None)}
    expected = {}
    for layout in LAYOUTS:
        own = "same node as a" if case.source in ("non-leaf", "view") else None  # a leaf stays one in every layout
        expected[f"b = a, {layout}"] = (True, graph, own)
        for name in ("a.data", "a.detach()"):
            for suffix in ("", " under no_grad", " under inference_mode"):
                expected[f"{name}{suffix}, {layout}"] = (True, False, None)
        expected.update({f"{name}, {layout}": value for name, value in ways.items()})
    return expected


@scoped_fact("copy-ways-memory-and-graph", {
    "en": "With grad mode on, takes b = a, a.data, a.detach(), a.clone() and a.detach().clone() of a fresh a, a "
          "itself and a in each sparse layout (COO, and CSR, CSC, BSR and BSC of a 1×n matrix; a leaf or a "
          "Parameter stays one, an inference tensor is converted inside torch.inference_mode()), and a.data and "
          "a.detach() also under torch.no_grad() and inside torch.inference_mode(). b = a, a.data and a.detach() "
          "start where the memory of a's values starts (of a COO tensor, _values(), an internal call), a.clone() and "
          "a.detach().clone() do not; a.data and a.detach() do not require grad and have no node, nor does "
          "a.detach().clone(); a.clone() requires grad and has a CloneBackward0 node when a requires grad (a leaf, a "
          "non-leaf, a Parameter, a view of a leaf), and neither when it does not (a plain tensor, an inference "
          "tensor).",
    "zh_CN": "在梯度模式下，对新建的 a 取 b = a、a.data、a.detach()、a.clone() 和 a.detach().clone()：a 本身，以及 a "
             "转成的各种稀疏布局（COO，以及 1×n 矩阵的 CSR、CSC、BSR 和 BSC；叶子张量或 Parameter 转换后仍是叶子张量"
             "或 Parameter，推理张量在 torch.inference_mode() 里转换）；a.data 和 a.detach() 还在 torch.no_grad() "
             "下和 torch.inference_mode() 里各取一次。b = a、a.data 和 a.detach() 的起点与 a 的数值所在内存的起点相同"
             "（COO 张量比较的是内部调用 _values() 的内存），a.clone() 和 a.detach().clone() 不同；a.data 和 "
             "a.detach() 不需要梯度，也没有节点，a.detach().clone() 也一样；a 需要梯度时（叶子张量、非叶子张量、"
             "Parameter、叶子张量的视图），a.clone() 需要梯度，带 CloneBackward0 节点，a 不需要梯度时（普通张量、"
             "推理张量）两样都没有。",
}, _copy_ways_expected, devices=VALUE_DEVICES, narrower=NEEDS_ADDRESSES)
def _copy_ways_memory_and_graph(case: Case) -> dict[str, tuple[bool, bool, str | None]]:
    return copy_ways(case)


#: Views of a 1-D ``a`` of three elements.
VIEWS_OF_A: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "a[1:]": lambda a: a[1:], "a[::2]": lambda a: a[::2], "a.view(3, 1)": lambda a: a.view(3, 1),
    "a.unsqueeze(0)": lambda a: a.unsqueeze(0), "a.expand(2, 3)": lambda a: a.expand(2, 3),
    "a.narrow(0, 1, 2)": lambda a: a.narrow(0, 1, 2), "a.unfold(0, 2, 1)": lambda a: a.unfold(0, 2, 1),
    "a.as_strided((2,), (1,))": lambda a: a.as_strided((2,), (1,)),
}
SPARSE_STORAGE = "untyped_storage() of a in the sparse layout"


def view_storage(case: Case) -> dict[str, object]:
    """Each view of :data:`VIEWS_OF_A`: whether its storage starts where ``a``'s does, and where its ``_base``'s does
    (``"no _base"`` when it has none); and what ``untyped_storage()`` gives for ``a`` in each sparse layout."""
    seen: dict[str, object] = {}
    for name, make in VIEWS_OF_A.items():
        a = case.build()[1]
        view = make(a)
        start = view.untyped_storage().data_ptr()
        seen[name] = (start == a.untyped_storage().data_ptr(),
                      "no _base" if view._base is None else start == view._base.untyped_storage().data_ptr())
    for layout in list(LAYOUTS)[1:]:
        try:
            seen[f"{SPARSE_STORAGE} {layout}"] = in_layout(case.build()[1], layout).untyped_storage().nbytes()
        except NotImplementedError as e:
            seen[f"{SPARSE_STORAGE} {layout}"] = Raised(type(e).__name__, str(e))
    return seen


@scoped_fact("view-shares-base-storage", {
    "en": "Takes 8 views of a fresh a (a[1:], a[::2], a.view(3, 1), a.unsqueeze(0), a.expand(2, 3), a.narrow(0, 1, 2), "
          "a.unfold(0, 2, 1), a.as_strided((2,), (1,))): the untyped_storage() of each starts where a's does, and "
          "where its _base's does; autograd records no _base for a view of an inference tensor. Then, of a in each "
          "sparse layout (COO, and CSR, CSC, BSR and BSC of a 1×n matrix), untyped_storage() raises "
          "NotImplementedError.",
    "zh_CN": "对新建的 a 取 8 个视图（a[1:]、a[::2]、a.view(3, 1)、a.unsqueeze(0)、a.expand(2, 3)、a.narrow(0, 1, 2)、"
             "a.unfold(0, 2, 1)、a.as_strided((2,), (1,))）：每个视图的 untyped_storage() 都与 a 的起点相同，也与它的 "
             "_base 的起点相同；推理张量的视图，自动求导不记录 _base。再把 a 转成各种稀疏布局（COO，以及 1×n 矩阵的 "
             "CSR、CSC、BSR 和 BSC），对它调用 untyped_storage() 抛出 NotImplementedError。",
}, lambda case: {**dict.fromkeys(VIEWS_OF_A, (True, "no _base" if case.source == "inference" else True)),
                 **{f"{SPARSE_STORAGE} {layout}": Raised("NotImplementedError") for layout in list(LAYOUTS)[1:]}},
    devices=VALUE_DEVICES, narrower=NEEDS_ADDRESSES)
def _view_shares_base_storage(case: Case) -> dict[str, object]:
    return view_storage(case)


@fact("inplace-ops-write-into-tensor", {
    "en": "Runs the " + str(len(INPLACE)) + " in-place calls of inplace-ops-raise-version (" + ", ".join(INPLACE)
          + "), each on a fresh float32 and int64 tensor torch.arange(4): t's storage starts where it did, its "
          "values changed, and a call that returns a tensor returns t itself.",
    "zh_CN": "执行 inplace-ops-raise-version 的 " + str(len(INPLACE)) + " 个原地调用（" + "、".join(INPLACE)
             + "），各在新建的 float32 和 int64 张量 torch.arange(4) 上运行：t 的存储起点不变，数值变了，"
             "返回张量的调用返回的就是 t 本身。",
}, {"en": f"{len(INPLACE)} in-place calls, each on a float32 and an int64 CPU tensor",
    "zh_CN": f"{len(INPLACE)} 个原地调用，各在 float32 和 int64 的 CPU 张量上运行"})
def _inplace_ops_write_into_tensor() -> Fact:
    wrong = []
    for dtype in (torch.float32, torch.int64):
        for name, call in INPLACE.items():
            t = torch.arange(4).to(dtype)
            start, before = t.untyped_storage().data_ptr(), t.clone()
            returned = call(t)
            if not (t.untyped_storage().data_ptr() == start and not torch.equal(t, before)
                    and (returned is None or returned is t)):
                wrong.append(f"{name} {dtype}")
    return Fact(not wrong, f"calls that did not write into t itself: {wrong or 'none'}")
