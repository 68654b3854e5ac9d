"""Named facts on copies and views made inside ``torch.inference_mode()`` with ``torch.enable_grad()`` turning grad mode
on there: autograd records nothing, so no gradient reaches the source. It stands behind the behaviour matrix's advice
on ``a.clone()`` and ``a.view(3)``. The other, ``inference-leaf-clone-in-graph``, clones an inference tensor that
requires grad outside the mode (in every layout torch names: strided, sparse, nested or mkldnn), for the glossary's
clone and the copying part's preface.
:func:`inplace_edits_in` runs an in-place edit in a given grad mode for ``grad-mode-records``
(:mod:`tensorfacts.glossary_facts`). Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a
fact is.
"""

from __future__ import annotations

import itertools
import warnings

import torch

from tensorfacts.autocast_facts import every_dtype
from tensorfacts.fact_registry import Fact, fact

#: The copies made inside the mode, as the matrix's advice names them.
COPIES = {"a.clone()": lambda a: a.clone(), "torch.empty_like(a).copy_(a)": lambda a: torch.empty_like(a).copy_(a),
          "a.double()": lambda a: a.double()}


@fact("inference-mode-grad-on-records-no-node", {
    "en": "Takes a leaf [1, 2, 3] that requires grad, in float32, float64 and bfloat16, and that leaf times 1 (a "
          "non-leaf), as a, and inside torch.inference_mode() with torch.enable_grad(), which turns grad mode on, "
          "makes a.clone(), torch.empty_like(a).copy_(a), a.double() and a.view(3): each copy is an inference tensor "
          "that does not require grad and has no grad_fn, except a.double() of a float64 a, which is a itself; the "
          "view has no grad_fn, and backward() of (v * v).sum() on the view v, outside the mode, leaves the leaf's "
          ".grad None.",
    "zh_CN": "把需要梯度的叶子张量 [1, 2, 3]（float32、float64 和 bfloat16 各一个），以及它乘以 1 得到的非叶子张量，"
             "分别当作 a，在 torch.inference_mode() 里用 torch.enable_grad() 打开梯度模式，做出 a.clone()、"
             "torch.empty_like(a).copy_(a)、a.double() 和 a.view(3)：每个副本都是推理张量，不需要梯度，没有 "
             "grad_fn，只有 float64 的 a 的 a.double() 例外，它就是 a 本身；视图没有 grad_fn，在模式外对视图 v 的 (v * "
             "v).sum() 调用 backward() 之后，叶子张量的 .grad "
             "仍是 None。",
})
def _inference_mode_grad_on_records_no_node() -> Fact:
    """Inside inference_mode with grad mode on, the copies are inference tensors with no node and the view passes no
    gradient to the source."""
    wrong = []
    for dtype, kind in itertools.product((torch.float32, torch.float64, torch.bfloat16), ("leaf", "non-leaf")):
        leaf = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
        a = leaf if kind == "leaf" else leaf * 1
        with torch.inference_mode(), torch.enable_grad():
            grad_on = torch.is_grad_enabled()
            copies = {name: make(a) for name, make in COPIES.items()}
            v = a.view(3)
        for name, b in copies.items():
            if name == "a.double()" and dtype == torch.float64:
                if b is not a:
                    wrong.append(f"a.double() of the float64 {kind} is not a itself")
            elif not (b.is_inference() and not b.requires_grad and b.grad_fn is None):
                wrong.append(f"{name} of the {dtype} {kind}: inference {b.is_inference()}, "
                             f"requires_grad {b.requires_grad}, grad_fn {type(b.grad_fn).__name__}")
        view_node = type(v.grad_fn).__name__
        (v * v).sum().backward()
        if not (grad_on and v.grad_fn is None and leaf.grad is None):
            wrong.append(f"a.view(3) of the {dtype} {kind}: grad mode on {grad_on}, grad_fn {view_node}, "
                         f"leaf.grad {leaf.grad}")
    return Fact(not wrong, f"not as stated: {wrong or 'none'}")


#: The dtypes the clone of an inference leaf that requires grad is run in.
CLONE_DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.complex64)


def _inference_leaves(dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """Inference tensors that require grad, each made inside ``torch.inference_mode()``, by name."""
    with torch.inference_mode():
        lin = torch.nn.Linear(3, 2, dtype=dtype)
        return {"requires_grad_()": torch.ones(3, dtype=dtype).requires_grad_(),
                "requires_grad=True": torch.ones(3, dtype=dtype, requires_grad=True),
                "Parameter": torch.nn.Parameter(torch.ones(3, dtype=dtype)),
                "Linear.weight": lin.weight, "Linear.bias": lin.bias}


def _mkldnn_leaf(dtype: torch.dtype, make=torch.ones) -> torch.Tensor | None:
    """An mkldnn inference tensor that requires grad, ``make(2, 2)`` made inside ``torch.inference_mode()``, or None
    for a dtype ``to_mkldnn()`` refuses."""
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 is experimental
        try:
            return make(2, 2, dtype=dtype).to_mkldnn().requires_grad_()
        except RuntimeError as exc:
            if "dense_to_mkldnn expects" not in str(exc):
                raise
            return None


#: Sparse and nested inference tensors that require grad, each made inside ``torch.inference_mode()`` in a dtype, by
#: name: the sparse ones from a 2×2 tensor of ones, the nested ones from rows of 2 and 3 ones.
NOT_STRIDED = {
    "COO": lambda d: torch.ones(2, 2, dtype=d).to_sparse().requires_grad_(),
    "COO Parameter": lambda d: torch.nn.Parameter(torch.ones(2, 2, dtype=d).to_sparse()),
    "CSR": lambda d: torch.ones(2, 2, dtype=d).to_sparse_csr().requires_grad_(),
    "CSC": lambda d: torch.ones(2, 2, dtype=d).to_sparse_csc().requires_grad_(),
    "BSR": lambda d: torch.ones(2, 2, dtype=d).to_sparse_bsr((1, 1)).requires_grad_(),
    "BSC": lambda d: torch.ones(2, 2, dtype=d).to_sparse_bsc((1, 1)).requires_grad_(),
    "nested strided": lambda d: torch.nested.nested_tensor([torch.ones(2, dtype=d), torch.ones(3, dtype=d)],
                                                           requires_grad=True),
    "nested jagged": lambda d: torch.nested.nested_tensor([torch.ones(2, dtype=d), torch.ones(3, dtype=d)],
                                                          layout=torch.jagged, requires_grad=True),
}


def _inference_leaves_not_strided(dtype: torch.dtype, built_only: bool = False) -> dict[str, torch.Tensor]:
    """Sparse, nested and (in a dtype ``to_mkldnn()`` takes) mkldnn inference tensors that require grad, each made
    inside ``torch.inference_mode()``, by name; with ``built_only``, the sparse and nested ones torch builds in
    ``dtype`` (it refuses some, such as COO and strided nested ones in the float8 dtypes, saying a kernel is "not
    implemented for" the dtype)."""
    leaves = {}
    for name, make in NOT_STRIDED.items():
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # sparse CSR beta, nested prototype, complex32 experimental
            try:
                leaves[name] = make(dtype)
            except RuntimeError as exc:
                if not built_only or "not implemented for" not in str(exc):
                    raise
    mkldnn = None if built_only else _mkldnn_leaf(dtype)
    return {**leaves, **({} if mkldnn is None else {"mkldnn": mkldnn})}


@fact("inference-leaf-clone-in-graph", {
    "en": "Makes inference tensors that require grad inside torch.inference_mode(): torch.ones(3).requires_grad_(), "
          "torch.ones(3, requires_grad=True), a Parameter, and the weight and bias of a Linear(3, 2), in float32, "
          "float64, bfloat16, float16 and complex64. Outside the mode, each is a leaf; with grad mode on, its "
          "clone(), clone(memory_format=torch.contiguous_format) and clone(memory_format=torch.preserve_format) "
          "require grad and have a CopyBackwards node (not CloneBackward0), and backward() of torch.real(c * "
          "2).sum() leaves 2 in every element of the tensor's .grad; its clone() under torch.no_grad(), inside "
          "torch.inference_mode() and under torch.set_grad_enabled(False) does not require grad and has no node. "
          "In grad mode the clone() of torch.zeros(3, dtype=d).requires_grad_() made inside the mode has a "
          "CopyBackwards node for every floating-point and complex dtype d torch names. "
          "It makes sparse and nested inference tensors that require grad there too, in the same dtypes: a 2×2 "
          "tensor of ones in the COO (by requires_grad_() and as a Parameter), CSR, CSC, BSR and BSC layouts (all "
          "the sparse layouts torch names) and a nested tensor of rows of 2 and 3 in the strided and jagged "
          "layouts, and, in float32, bfloat16 and float16, the mkldnn tensor torch.ones(2, 2).to_mkldnn()."
          "requires_grad_(); with the strided tensors, these are all the layouts torch names. Each is a leaf "
          "outside the mode, yet its clone() made outside it with grad mode on does not require grad and has no "
          "node, and so do the nested tensors' clone(memory_format=torch.contiguous_format) and "
          "clone(memory_format=torch.preserve_format); those two raise RuntimeError (\"unsupported memory "
          "format\") on the sparse and mkldnn tensors. The clone() of torch.zeros(2, 2, dtype=d).to_mkldnn()."
          "requires_grad_() made inside the mode does not require grad and has no node, in grad mode, for every "
          "floating-point and complex dtype d torch names that to_mkldnn() takes; so does the clone() of each sparse "
          "and nested tensor above made in every floating-point and complex dtype torch builds it in (it refuses "
          "some, such as the COO and strided nested ones in the float8 dtypes).",
    "zh_CN": "在 torch.inference_mode() 里做出需要梯度的推理张量：torch.ones(3).requires_grad_()、torch.ones(3, "
             "requires_grad=True)、一个 Parameter，以及 Linear(3, 2) 的 weight 和 bias，dtype 为 float32、float64、"
             "bfloat16、float16 和 complex64。在模式外，它们都是叶子张量；梯度模式开着时，它们的 clone()、"
             "clone(memory_format=torch.contiguous_format) 和 clone(memory_format=torch.preserve_format) 都需要梯度，"
             "节点是 CopyBackwards（不是 CloneBackward0），对 torch.real(c * 2).sum() 调用 backward() 后，张量的 "
             ".grad 每个元素都是 2；在 torch.no_grad() 下、torch.inference_mode() 里和 "
             "torch.set_grad_enabled(False) 下调用 clone()，得到的副本不需要梯度，也没有节点。"
             "对 torch 列出的每种浮点和复数 dtype d，在模式里做出的 torch.zeros(3, dtype=d).requires_grad_() 在梯度"
             "模式下的 clone() 节点都是 CopyBackwards。它也在模式里做出"
             "需要梯度的稀疏张量和嵌套张量，dtype 相同：COO（用 requires_grad_() 做一个，再做一个 Parameter）、CSR、"
             "CSC、BSR 和 BSC 布局（torch 列出的全部稀疏布局）的 2×2 全一张量，以及 strided 和 jagged 布局、"
             "两行分别有 2 个和 3 个元素的嵌套张量，以及 float32、bfloat16 和 float16 的 mkldnn 张量 "
             "torch.ones(2, 2).to_mkldnn().requires_grad_()；加上 strided 张量，这就是 torch 列出的全部布局。"
             "它们在模式外都是叶子张量，但在模式外开着梯度模式调用 "
             "clone()，得到的副本不需要梯度，也没有节点；嵌套张量的 clone(memory_format=torch.contiguous_format) 和 "
             "clone(memory_format=torch.preserve_format) 也一样，这两种调用对稀疏张量和 mkldnn 张量则抛出 "
             "RuntimeError（“unsupported memory format”）。对 torch 列出的、to_mkldnn() 接受的每种浮点和复数 "
             "dtype d，在模式里做出的 torch.zeros(2, 2, dtype=d).to_mkldnn().requires_grad_() 在梯度模式下的 "
             "clone() 都不需要梯度，也没有节点；上面的每个稀疏张量和嵌套张量，只要 torch 能用某种浮点或复数 dtype "
             "做出来（有些做不出来，比如 float8 各 dtype 的 COO 张量和 strided 嵌套张量），用这种 dtype 做出的"
             "张量在梯度模式下的 clone() 同样不需要梯度，没有节点。",
}, {"en": "the five strided tensors it names, six sparse, two nested ones and an mkldnn one, in five dtypes (the "
          "mkldnn one in the three of them to_mkldnn() takes; the node alone, and the clone of the sparse and nested "
          "ones, in every floating-point and complex dtype torch builds them in), on the CPU",
    "zh_CN": "它列出的五个 strided 张量、六个稀疏张量、两个嵌套张量和一个 mkldnn 张量，五种 dtype（mkldnn 张量只用"
             "其中 to_mkldnn() 接受的三种；只看节点时，以及看稀疏张量和嵌套张量的副本时，是 torch 能做出它们的每种"
             "浮点和复数 dtype），在 CPU 上"})
def _inference_leaf_clone_in_graph() -> Fact:
    """An inference leaf that requires grad: its clone in grad mode is in the graph (as ``CopyBackwards``) and passes
    the gradient back to it; with grad mode off, or in inference mode, the clone has no node. A sparse, nested or mkldnn
    one's clone has no node even in grad mode."""
    wrong = []
    off = (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False))
    for dtype in CLONE_DTYPES:
        for name, t in _inference_leaves(dtype).items():
            if not (t.is_inference() and t.requires_grad and t.is_leaf):
                wrong.append(f"{name} {dtype}: not an inference leaf that requires grad")
            for form in (None, torch.contiguous_format, torch.preserve_format):
                t.grad = None
                c = t.clone() if form is None else t.clone(memory_format=form)
                node = type(c.grad_fn).__name__
                torch.real(c * 2).sum().backward()
                if not (c.requires_grad and node == "CopyBackwards" and torch.equal(t.grad, torch.full_like(t, 2))):
                    wrong.append(f"{name} {dtype} clone({form or ''}): node {node}, grad {t.grad}")
            for context in off:
                with context():
                    c = t.clone()
                if c.requires_grad or c.grad_fn is not None:
                    wrong.append(f"{name} {dtype} clone() with grad mode off: {c.requires_grad}, {c.grad_fn}")
        for name, t in _inference_leaves_not_strided(dtype).items():
            if not (t.is_inference() and t.requires_grad and t.is_leaf):
                wrong.append(f"{name} {dtype}: not an inference leaf that requires grad")
            for form in (None, torch.contiguous_format, torch.preserve_format):
                try:
                    c = t.clone() if form is None else t.clone(memory_format=form)
                except RuntimeError as exc:  # a sparse or mkldnn tensor takes no memory_format
                    if form is None or t.is_nested or "unsupported memory format" not in str(exc):
                        wrong.append(f"{name} {dtype} clone({form or ''}) raised: {exc}")
                    continue
                if form is not None and not t.is_nested:
                    wrong.append(f"{name} {dtype} clone({form}) of a sparse or mkldnn tensor raised nothing")
                elif c.requires_grad or c.grad_fn is not None:
                    wrong.append(f"{name} {dtype} clone({form or ''}): {c.requires_grad}, {c.grad_fn}")
    built, refused = set(), {}
    for dtype in (d for d in every_dtype() if d.is_floating_point or d.is_complex):
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # complex32 is experimental
            t = torch.zeros(3, dtype=dtype).requires_grad_()
        if type(t.clone().grad_fn).__name__ != "CopyBackwards":
            wrong.append(f"torch.zeros(3, dtype={dtype}).requires_grad_(): clone node {t.clone().grad_fn}")
        m = _mkldnn_leaf(dtype, torch.zeros)
        if m is not None and (m.clone().requires_grad or m.clone().grad_fn is not None):
            wrong.append(f"mkldnn {dtype}: clone {m.clone().requires_grad}, {m.clone().grad_fn}")
        leaves = _inference_leaves_not_strided(dtype, built_only=True)
        for name, t in leaves.items():
            if not (t.is_inference() and t.requires_grad and t.is_leaf) or t.clone().requires_grad or (
                    t.clone().grad_fn is not None):
                wrong.append(f"{name} {dtype}: clone {t.clone().requires_grad}, {t.clone().grad_fn}")
            built.add(name)
        refused[dtype] = set(NOT_STRIDED) - set(leaves)
    float8 = [dtype for dtype in refused if str(dtype).startswith("torch.float8_")]
    for dtype in float8:
        if not {"COO", "COO Parameter", "nested strided"} <= refused[dtype]:
            wrong.append(f"{dtype}: torch builds a COO or strided nested one, refusing only {sorted(refused[dtype])}")
    if not float8:
        wrong.append("torch names no float8 dtype")
    takes = [dtype for dtype in CLONE_DTYPES if _mkldnn_leaf(dtype) is not None]
    if takes != [torch.float32, torch.bfloat16, torch.float16]:
        wrong.append(f"to_mkldnn() takes {takes} of the five dtypes, not float32, bfloat16 and float16")
    tried = {t.layout for leaves in (_inference_leaves(torch.float32), _inference_leaves_not_strided(torch.float32))
             for t in leaves.values()}
    layouts = {layout for layout in vars(torch).values() if isinstance(layout, torch.layout)}
    if built != set(NOT_STRIDED):
        wrong.append(f"built in the float and complex dtypes: {sorted(built)}")
    if tried != layouts:
        wrong.append(f"layouts tried {sorted(map(str, tried))}, torch has {sorted(map(str, layouts))}")
    return Fact(not wrong, f"not as stated: {wrong or 'none'}")


def _edit_source(dtype: torch.dtype, kind: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(root, a), fresh: a leaf that requires grad, that leaf times 2, a Parameter and a view of a leaf (``kind`` 0 to
    3), the root being the leaf gradients land on."""
    root = torch.nn.Parameter(torch.ones(4, dtype=dtype)) if kind == 2 else torch.ones(4, dtype=dtype,
                                                                                        requires_grad=True)
    return root, (root, root * 2, root, root[1:])[kind]


def inplace_edits_in(context) -> list[str | tuple[int, bool, bool, list[float]]]:
    """``a.mul_(3)`` made in ``context`` on each source of :func:`_edit_source`, float32 then float64: the error's first
    sentence, or (how far ``a._version`` moved, whether ``a`` kept its ``grad_fn``, and, after backward of ``a.sum()``,
    whether the root's gradient is that of a twin never edited, and the root's gradient). A view's ``grad_fn`` is
    rebuilt after any edit of it (grad mode on or off), so for it the second field says only that it is no leaf."""
    seen: list[str | tuple[int, bool, bool, list[float]]] = []
    for dtype, kind in itertools.product((torch.float32, torch.float64), range(4)):
        twin_root, twin = _edit_source(dtype, kind)
        twin.sum().backward()
        root, a = _edit_source(dtype, kind)
        node, version = a.grad_fn, a._version
        try:
            with context():
                a.mul_(3)
        except RuntimeError as exc:
            seen.append(str(exc).split(".")[0])
            continue
        a.sum().backward()
        seen.append((a._version - version, not a.is_leaf if kind == 3 else a.grad_fn is node,
                     torch.equal(root.grad, twin_root.grad), root.grad.tolist()))
    return seen
