"""Scoped facts behind general sentences of the behaviour matrix's guide and of the notes under the view
operations and "what operations save" tables: conversions that return ``a`` itself, ``reshape()``'s view or
copy, and the operations that save their output. Like those of :mod:`tensorfacts.general_facts` (same
registry, same scope), each runs in every case its sentence claims; one plain fact, on the in-place ``F.relu`` that
the saved table's ``x`` refuses, sits with the output savers.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import warnings
from collections.abc import Callable

import torch
import torch.nn.functional as F

from tensorfacts import saved_ops
from tensorfacts.autocast_facts import every_dtype
from tensorfacts.copy_ways_dtype_facts import LAYOUTS as DTYPE_LAYOUTS
from tensorfacts.copy_ways_dtype_facts import PER_CHANNEL, QUANTIZED
from tensorfacts.fact_registry import Fact, fact, scoped_fact
from tensorfacts.scope import Case
from tensorfacts.standard_sources import GRAD_SOURCES

#: The sparse layouts a tensor of two values is given (every dtype but quantized), and the compressed ones.
SPARSE = {name: build for name, build in DTYPE_LAYOUTS.items() if name != "strided"}
COMPRESSED = (torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc)

# --- Conversions that return a itself ------------------------------------------------------------

#: The grad modes ``cpu()`` and ``contiguous()`` are called in.
GRAD_MODES: dict[str, Callable[[], contextlib.AbstractContextManager[object]]] = {
    "grad mode": torch.enable_grad, "torch.no_grad()": torch.no_grad, "torch.inference_mode()": torch.inference_mode}


def _nested(dtype: torch.dtype, layout: torch.layout, device: str) -> torch.Tensor:
    """A nested tensor of two components (of 2 and 3 zeros) of ``dtype`` on ``device``."""
    if layout == torch.jagged:
        return torch.nested.nested_tensor_from_jagged(torch.zeros(5, dtype=dtype, device=device),
                                                      torch.tensor([0, 2, 5], device=device))
    return torch.nested.nested_tensor([torch.zeros(2, dtype=dtype), torch.zeros(3, dtype=dtype)], layout=layout,
                                      device=device)


@functools.cache
def other_tensors(device: str) -> dict[str, torch.Tensor]:
    """Tensors of every dtype of torch (:func:`~tensorfacts.autocast_facts.every_dtype`) on ``device``, in each layout
    torch builds that dtype in there (a constructor that raises leaves that pair out): strided (a quantized dtype:
    ``quantize_per_tensor`` and ``quantize_per_channel`` on the CPU, ``torch.empty`` on ``meta``), nested (jagged;
    strided too on the CPU), and on the CPU the five sparse layouts and mkldnn. Made once per device (no call
    tried edits them)."""
    made: dict[str, Callable[[], torch.Tensor]] = {}
    for dtype in every_dtype():
        if dtype in QUANTIZED:
            made[f"{dtype} quantized"] = (
                lambda d=dtype: torch.quantize_per_tensor(torch.arange(2.0, dtype=torch.float32), 0.5, 0, d)
            ) if device == "cpu" else (lambda d=dtype: torch.empty(2, dtype=d, device=device))
            if dtype in PER_CHANNEL and device == "cpu":
                made[f"{dtype} quantized per channel"] = lambda d=dtype: torch.quantize_per_channel(
                    torch.arange(4.0, dtype=torch.float32).reshape(2, 2),
                    torch.tensor([0.5, 1.0], dtype=torch.float64), torch.tensor([0, 0]), 0, d)
            continue
        made[f"{dtype} strided"] = lambda d=dtype: torch.zeros(2, dtype=d, device=device)
        made[f"{dtype} nested jagged"] = lambda d=dtype: _nested(d, torch.jagged, device)
        if device == "cpu":
            made[f"{dtype} nested strided"] = lambda d=dtype: _nested(d, torch.strided, device)
            made[f"{dtype} mkldnn"] = lambda d=dtype: torch.zeros(2, 2, dtype=d, device=device).to_mkldnn()
            for name, build in SPARSE.items():
                made[f"{dtype} {name}"] = lambda d=dtype, b=build: b(torch.zeros(2, dtype=d, device=device))
    tensors = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # beta layouts, complex32, deprecated quantized dtypes
        for name, make in made.items():
            try:
                tensors[name] = make()
            except (RuntimeError, NotImplementedError):  # no tensor of this dtype in this layout
                continue
    return tensors


def noop_conversions(case: Case) -> tuple[bool, bool, tuple[str, ...] | None, tuple[str, ...], tuple[str, ...]]:
    """(``a.to(torch.float32) is a``; ``a.type_as(e) is a`` for a float32 ``e`` on a's device (the table's
    ``a.type_as(torch.empty(0))`` on the CPU); on the CPU, the tensors ``t`` among ``a`` and :func:`other_tensors`
    whose ``t.cpu()`` is not ``t`` in some grad mode of :data:`GRAD_MODES`, None elsewhere; the tensors among those
    (sparse ones left out) that are not contiguous or whose ``t.contiguous()`` is not ``t``; the
    layouts among torch's attributes (each ``torch.layout``) that no CPU tensor tried has)."""
    _, a = case.build()
    tensors = {"a": a, **other_tensors(a.device.type)}
    cpu, contiguous = [], []
    for mode, enter in GRAD_MODES.items():
        with enter():
            cpu += [f"{name}, {mode}" for name, t in tensors.items() if t.device.type == "cpu" and t.cpu() is not t]
            contiguous += [f"{name}, {mode}" for name, t in tensors.items() if not t.is_sparse
                           and t.layout not in COMPRESSED and not (t.is_contiguous() and t.contiguous() is t)]
    return (a.to(torch.float32) is a, a.type_as(torch.empty(0, dtype=torch.float32, device=a.device)) is a,
            tuple(cpu) if a.device.type == "cpu" else None, tuple(contiguous),
            tuple(sorted(str(layout) for layout in vars(torch).values() if isinstance(layout, torch.layout)
                         and layout not in {t.layout for t in other_tensors("cpu").values()})))


@scoped_fact("noop-conversions-return-a", {
    "en": "Checks that a.to(torch.float32) is a, and a.type_as(e) is a for an empty float32 e on a's device "
          "(torch.empty(0) on the CPU), exactly when a is float32. Then, with grad mode on, under torch.no_grad() and "
          "inside torch.inference_mode(), checks that t.cpu() is t for a CPU tensor t and that t.contiguous() is t "
          "for a contiguous t (a meta one included), where t is a and a tensor of every dtype of torch (each "
          "torch.dtype among torch's attributes) in each layout torch builds it in: strided (a quantized dtype "
          "quantized per tensor, and per channel where torch takes it), nested (jagged; strided too on the CPU), and "
          "on the CPU sparse COO, CSR, CSC, BSR and BSC (for cpu() only) and mkldnn; and that "
          "these CPU tensors have every layout among torch's attributes (each torch.layout).",
    "zh_CN": "检查 a.to(torch.float32) is a，以及 e 是 a 所在设备上空的 float32 张量（在 CPU 上即 torch.empty(0)）时的 "
             "a.type_as(e) is a，两者都恰好在 a 是 float32 时成立。然后在梯度模式下、torch.no_grad() 下和 "
             "torch.inference_mode() 里，对 CPU 张量 t 检查 t.cpu() is t，对连续张量 t（包括 meta 张量）检查 "
             "t.contiguous() is t；t 取 a，以及 torch 每种 dtype（torch 属性中的每个 torch.dtype）在 torch "
             "能构建的每种布局下的张量：strided（量化 dtype 按张量量化，torch 支持时还按通道量化）、"
             "嵌套（jagged；在 CPU 上还有 strided），以及 CPU 上的稀疏 COO、CSR、CSC、BSR 和 BSC"
             "（只检查 cpu()）和 mkldnn；还检查这些 CPU 张量涵盖了 torch 属性中的每种布局"
             "（每个 torch.layout）。",
}, lambda case: (case.dtype == torch.float32, case.dtype == torch.float32, () if case.device == "cpu" else None, (),
                 ()))
def _noop_conversions(case: Case) -> tuple[bool, bool, tuple[str, ...] | None, tuple[str, ...], tuple[str, ...]]:
    return noop_conversions(case)


# --- reshape(): a view exactly when view() runs --------------------------------------------------

#: Shapes to ask for, by number of elements (12 as in the view table's 3×4 source).
_SHAPES = {12: ((12,), (4, 3), (2, 6), (6, 2), (3, 2, 2), (2, 2, 3), (2, 3, 2), (3, 4, 1), (1, 3, 4)),
           3: ((3,), (1, 3), (3, 1), (1, 3, 1)), 2: ((2,), (1, 2), (2, 1)), 0: ((0,), (0, 3), (3, 0), (1, 0))}
#: Layouts made from a 1-d source of three elements: contiguous, strided, expanded (a stride of 0), transposed,
#: empty.
LAYOUTS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "t": lambda t: t, "t[::2]": lambda t: t[::2], "t.expand(4, 3)": lambda t: t.expand(4, 3),
    "t.expand(4, 3).t()": lambda t: t.expand(4, 3).t(), "t[:, None].expand(3, 4)": lambda t: t[:, None].expand(3, 4),
    "t[:0].expand(3, 0)": lambda t: t[:0].expand(3, 0), "t[:0].expand(3, 0).t()": lambda t: t[:0].expand(3, 0).t(),
}
#: The tensors each layout is made of: a, and tensors of other dtypes and with the conjugate or negative bit.
KINDS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "a": lambda a: a, "int64": lambda a: a.detach().to(torch.int64), "bool": lambda a: a.detach().to(torch.bool),
    "conj": lambda a: a.detach().to(torch.complex64).conj(),
    "neg bit": lambda a: a.detach().to(torch.complex64).conj().imag,
}
_CALLS: dict[str, Callable[[torch.Tensor, tuple[int, ...]], torch.Tensor | None]] = {
    "reshape": lambda x, shape: x.reshape(shape),
    "reshape, -1 first": lambda x, shape: x.reshape(-1, *shape[1:]) if x.numel() else None,
    "reshape_as": lambda x, shape: x.reshape_as(torch.empty(shape)),
}


def _flattened(x: torch.Tensor) -> dict[str, tuple[torch.Tensor, tuple[int, ...]]]:
    """``x.flatten(s, e)`` for every pair of dimensions s <= e, each written with a negative index too, and
    ``x.flatten()``: each result with the shape it has."""
    n, out = x.dim(), {"flatten()": (x.flatten(), (x.numel(),))}
    for s, e in ((s, e) for s in range(-n, n) for e in range(-n, n) if s % n <= e % n):
        shape = (*x.shape[:s % n], math.prod(x.shape[s % n:e % n + 1]), *x.shape[e % n + 1:])
        out[f"flatten({s}, {e})"] = x.flatten(s, e), shape
    return out


def _view_runs(x: torch.Tensor, shape: tuple[int, ...]) -> bool:
    try:
        x.view(shape)
    except RuntimeError:
        return False
    return True


def reshape_views(case: Case) -> tuple[tuple[str, ...], bool, bool]:
    """(The calls whose result shares the storage of the tensor reshaped (the same storage object, which meta has
    too) when ``view()`` of that shape raises, or does not share it when ``view()`` runs; whether some result was a
    view; whether some was a copy)."""
    _, a = case.build()
    wrong, kinds = [], set()
    for (kind, make), (layout, lay), (mode, enter) in itertools.product(KINDS.items(), LAYOUTS.items(),
                                                                        GRAD_MODES.items()):
        x = lay(make(a))
        with enter():
            results = {f"{call}{shape}": (reshape(x, shape), shape) for shape in _SHAPES[x.numel()]
                       for call, reshape in _CALLS.items()} | _flattened(x)
            for call, (result, shape) in results.items():
                if result is None:
                    continue
                shares = result.untyped_storage()._cdata == x.untyped_storage()._cdata
                kinds.add(shares)
                if shares != _view_runs(x, shape):
                    wrong.append(f"{layout.replace('t', kind, 1)}.{call}, {mode}: shares {shares}")
    return tuple(wrong), True in kinds, False in kinds


@scoped_fact("reshape-view-exactly-when-view-runs", {
    "en": "Takes a, and makes from it an int64, a bool, a conjugate complex64 tensor and its imaginary part "
          "(negative bit); lays each of the five out seven ways (itself, [::2], expand(4, 3) and its transpose, "
          "[:, None].expand(3, 4), and the empty [:0].expand(3, 0) and its transpose). With grad mode on, under "
          "torch.no_grad() and inside torch.inference_mode(), calls reshape (with the shape written out, and with "
          "-1 for its first size when there are elements) and reshape_as with three to nine shapes of the same "
          "number of elements, and flatten() and flatten(s, e) for every pair of dimensions s <= e (each written "
          "with a negative index too): the result keeps the storage it was made from exactly when view() of its "
          "shape runs; both happen.",
    "zh_CN": "取 a，再由它做出 int64 张量、bool 张量、共轭的 complex64 张量及其虚部（负号位），这五个张量各排成七种布局"
             "（本身、[::2]、expand(4, 3) 及其转置、[:, None].expand(3, 4)，以及空的 [:0].expand(3, 0) 及其转置）。"
             "在梯度模式下、torch.no_grad() 下和 torch.inference_mode() 里，用元素个数相同的三到九种形状调用 "
             "reshape（形状逐项写出；有元素时还把第一维写成 -1）和 reshape_as，并对每一对满足 s <= e 的维度调用 "
             "flatten() 和 flatten(s, e)（维度也用负数下标写一遍）：结果沿用原来的存储，恰好发生在同一形状的 "
             "view() 能执行时；两种结果都出现。",
}, lambda case: ((), True, True))
def _reshape_views(case: Case) -> tuple[tuple[str, ...], bool, bool]:
    return reshape_views(case)


# --- flatten() with nothing to merge returns the tensor itself -----------------------------------

#: The calls that merge dimensions start_dim to end_dim = d of t, a tensor of n >= 1 dimensions: named by their
#: code, each returns its result or None where it does not apply (flatten(d) merges d to the last dimension).
_UNMERGED: dict[str, Callable[[torch.Tensor, int], torch.Tensor | None]] = {
    "t.flatten(d, d)": lambda t, d: t.flatten(d, d),
    "t.flatten(start_dim=d, end_dim=d)": lambda t, d: t.flatten(start_dim=d, end_dim=d),
    "torch.flatten(t, d, d)": lambda t, d: torch.flatten(t, d, d),
    "t.flatten(d), d the last dimension": lambda t, d: t.flatten(d) if d in (-1, t.dim() - 1) else None,
    "t.flatten(), t 1-d": lambda t, d: t.flatten() if t.dim() == 1 else None,
}


def flatten_unmerged(case: Case) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(The calls of :data:`_UNMERGED` that do not return the tensor t itself, t being each kind of :data:`KINDS`
    made from a in each layout of :data:`LAYOUTS`, and each tensor of :func:`other_tensors` of the strided layout,
    in each grad mode of :data:`GRAD_MODES`; the kinds of other tensor expected among those, quantized and on the
    CPU nested strided, that none was)."""
    _, a = case.build()
    tensors = {f"{layout.replace('t', kind, 1)}": lay(make(a)) for kind, make in KINDS.items()
               for layout, lay in LAYOUTS.items()}
    tensors |= {name: t for name, t in other_tensors(a.device.type).items() if t.layout == torch.strided}
    wrong = []
    for mode, enter in GRAD_MODES.items():
        with enter():
            for name, t in tensors.items():
                for d in range(-t.dim(), t.dim()):
                    wrong += [f"{code} of {name}, d={d}, {mode}" for code, call in _UNMERGED.items()
                              if (result := call(t, d)) is not None and result is not t]
    expected = ("quantized", "nested strided") if a.device.type == "cpu" else ("quantized",)
    return tuple(wrong), tuple(kind for kind in expected if not any(name.endswith(kind) for name in tensors))


@scoped_fact("flatten-unmerged-returns-itself", {
    "en": "With grad mode on, under torch.no_grad() and inside torch.inference_mode(), merges dimension d of a "
          "tensor t with itself, for every d from -t.dim() to t.dim() - 1: t.flatten(d, d), "
          "t.flatten(start_dim=d, end_dim=d), torch.flatten(t, d, d), t.flatten(d) when d is the last dimension and "
          "t.flatten() when t is 1-d; each returns t itself. t is a, an int64, a bool, a conjugate complex64 tensor "
          "made from it and the conjugate's imaginary part (negative bit), each laid out seven ways (itself, [::2], "
          "expand(4, 3) and its transpose, [:, None].expand(3, 4), and the empty [:0].expand(3, 0) and its "
          "transpose), and a tensor of the strided layout of every dtype of torch (each torch.dtype among torch's "
          "attributes) on a's device: a quantized dtype quantized per tensor, and per channel where torch takes it "
          "(torch.empty on meta), and on the CPU a nested tensor of the strided layout too.",
    "zh_CN": "在梯度模式下、torch.no_grad() 下和 torch.inference_mode() 里，把张量 t 的第 d 维与自身合并，"
             "d 取 -t.dim() 到 t.dim() - 1 的每个值：t.flatten(d, d)、t.flatten(start_dim=d, end_dim=d)、"
             "torch.flatten(t, d, d)，d 是最后一维时还有 t.flatten(d)，t 是一维时还有 t.flatten()；"
             "每次返回的都是 t 本身。t 取 a，以及由它做出的 int64 张量、bool 张量、共轭的 complex64 张量及其虚部"
             "（负号位），这五个张量各排成七种布局（本身、[::2]、expand(4, 3) 及其转置、[:, None].expand(3, 4)，"
             "以及空的 [:0].expand(3, 0) 及其转置）；还取 a 所在设备上 torch 每种 dtype（torch 属性中的每个 "
             "torch.dtype）的 strided 布局张量：量化 dtype 按张量量化，torch 支持时还按通道量化（在 meta 上用 "
             "torch.empty），在 CPU 上还有 strided 布局的嵌套张量。",
}, lambda case: ((), ()))
def _flatten_unmerged(case: Case) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return flatten_unmerged(case)


# --- Operations that save their output ------------------------------------------------------------

#: The output savers of the "what operations save" table, with the options they take.
OUTPUT_SAVERS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "torch.exp(x)": torch.exp, "torch.sigmoid(x)": torch.sigmoid, "torch.tanh(x)": torch.tanh, "F.relu(x)": F.relu,
    "F.relu(x * 1, inplace=True)": lambda x: F.relu(x * 1, inplace=True), "torch.sqrt(x)": torch.sqrt,
    "F.softmax(x, -1)": lambda x: F.softmax(x, -1), "F.log_softmax(x, -1)": lambda x: F.log_softmax(x, -1),
    "F.softmax(x, 0, dtype=torch.float64)": lambda x: F.softmax(x, 0, dtype=torch.float64),
    "F.log_softmax(x, 0, dtype=torch.float64)": lambda x: F.log_softmax(x, 0, dtype=torch.float64),
}
#: Shapes of x made from a: 1-d, 0-d and 2-d.
X_SHAPES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "a": lambda a: a, "a[0]": lambda a: a[0], "a.expand(2, 3)": lambda a: a.expand(2, 3)}


#: The name of each output saver's run on each x, as :func:`output_savers` names them.
_OUTPUT_SAVER_RUNS = tuple(f"{code} on x = {shape}" for shape in X_SHAPES for code in OUTPUT_SAVERS)


def output_savers(case: Case) -> dict[str, tuple[str, ...]]:
    """What the pack hook of saved-tensor hooks receives, for each output saver on each x: "output" for the
    tensor the call returns, "input" for x (or ``x * 1``), "other" for anything else; every call that saves only
    its output is left out."""
    _, a = case.build()
    seen = {}
    for shape, make in X_SHAPES.items():
        for code, operation in OUTPUT_SAVERS.items():
            x, packed = make(a), []

            def pack(t: torch.Tensor, packed: list = packed) -> torch.Tensor:
                packed.append(t)
                return t

            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                out = operation(x)
            roles = tuple("output" if t is out else "input" if t is x else "other" for t in packed)
            if roles != ("output",):
                seen[f"{code} on x = {shape}"] = roles
    return seen


@scoped_fact("output-savers-save-output", {
    "en": "Runs torch.exp, torch.sigmoid, torch.tanh, F.relu (also with inplace=True, on x * 1), torch.sqrt, "
          "F.softmax and F.log_softmax (also with dtype=torch.float64) on x = a, a[0] and a.expand(2, 3) under "
          "saved-tensor hooks: when a requires grad, the pack hook receives one tensor, the one the call returns, "
          "and never x; when it does not (a plain tensor, an inference tensor), the hook receives nothing.",
    "zh_CN": "在保存张量的钩子下，对 x = a、a[0] 和 a.expand(2, 3) 调用 torch.exp、torch.sigmoid、torch.tanh、"
             "F.relu（也用 inplace=True，作用在 x * 1 上）、torch.sqrt、F.softmax 和 F.log_softmax"
             "（也用 dtype=torch.float64）：a 需要梯度时，打包钩子只收到一个张量，就是调用返回的那个，从来不是 x；"
             "a 不需要梯度时（普通张量、推理张量），钩子什么也收不到。",
}, lambda case: {} if case.source in GRAD_SOURCES else dict.fromkeys(_OUTPUT_SAVER_RUNS, ()))
def _output_savers(case: Case) -> dict[str, tuple[str, ...]]:
    return output_savers(case)


#: The refusal of an in-place edit of a view of a leaf that requires grad, as torch words it.
LEAF_VIEW_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation"


@fact("relu-inplace-refused-on-table-x", {
    "en": "Builds the \"what operations save\" table's x, " + saved_ops.INPUTS["x"] + " (a leaf that requires grad "
          "and, made by reshape(), a view), and calls F.relu(x, inplace=True) with grad mode on: it raises \""
          + LEAF_VIEW_INPLACE + "\" and x keeps its values; F.relu(x * 1, inplace=True) runs and returns the "
          "tensor x * 1 itself, edited, with a grad_fn of ReluBackward0.",
    "zh_CN": "构造“各操作保存了哪些张量”表中的 x，即 " + saved_ops.INPUTS["x"]
             + "（需要梯度的叶子张量，由 reshape() 得来，也是视图），在梯度模式下调用 F.relu(x, inplace=True)：报错“"
             + LEAF_VIEW_INPLACE + "”，x 的数值不变；"
             "F.relu(x * 1, inplace=True) 照常执行，返回的就是被修改后的张量 x * 1 本身，其 grad_fn 为 ReluBackward0。",
})
def _relu_inplace_refused_on_table_x() -> Fact:
    """The in-place form of F.relu saves its output on a non-leaf, but the table's x, a leaf, refuses it."""
    with torch.enable_grad():
        x = eval(saved_ops.INPUTS["x"], {"torch": torch})  # noqa: S307 (the table's code)
        before = x.detach().clone()
        try:
            F.relu(x, inplace=True)
        except RuntimeError as exc:
            refusal = str(exc).splitlines()[0]
        else:
            refusal = "runs"
        product = x * 1
        out = F.relu(product, inplace=True)
    edited = out is product and type(out.grad_fn).__name__ == "ReluBackward0"
    kept = torch.equal(x.detach(), before)
    return Fact(x.is_leaf and x._is_view() and refusal == LEAF_VIEW_INPLACE + "." and kept and edited,
                f"x a leaf: {x.is_leaf}, a view: {x._is_view()}; F.relu(x, inplace=True): {refusal}; x unchanged: "
                f"{kept}; F.relu(x * 1, inplace=True) returns x * 1 itself with ReluBackward0: {edited}")
