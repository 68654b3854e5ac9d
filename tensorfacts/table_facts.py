"""Named facts behind the view operations and "what operations save" pages, the behaviour matrix's notes
and the ``.data`` comparison page, where a table cell or a page's check cannot show the sentence: a number that an
operation saves without the pack hook, the memory behind a parameter after ``Module.to()``, and the new parameters
``Module.to("meta")`` puts in place (the split functions' autograd nodes are in :mod:`tensorfacts.split_facts`).
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import REFUSED_OUTSIDE, backward_error, bytes_apart, enable_grad_edits, same_storage


@fact("module-to-gives-parameter-new-memory", {
    "en": "With the default torch.__future__ settings (neither overwriting nor swapping module parameters on "
          "conversion), registers a float32 nn.Parameter a in a module m, keeps old = a.detach() and "
          "array = a.detach().numpy(), and calls m.to(torch.float64): m.a is still a, now float64, and a no longer "
          "shares storage with old, which still holds the float32 values, and so does array, still on old's memory.",
    "zh_CN": "在默认的 torch.__future__ 设置下（转换时既不覆盖也不交换模块参数），把 float32 的 nn.Parameter a "
             "注册进模块 m，先留下 old = a.detach() 和 array = a.detach().numpy()，"
             "再调用 m.to(torch.float64)：m.a 仍然是 a，已变成 float64，a 与 old 不再共享存储，old 里还是原来的 "
             "float32 数值；array 仍在 old 的内存上，也还是这些数值。",
})
def _module_to_gives_parameter_new_memory() -> Fact:
    """``Module.to()`` keeps a parameter object and puts new memory behind it; the old memory stays with
    what was taken of it before (``old`` keeps it alive, so reading ``array`` is safe)."""
    a = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    old, m = a.detach(), torch.nn.Module()
    array = a.detach().numpy()
    defaults = not (torch.__future__.get_overwrite_module_params_on_conversion()
                    or torch.__future__.get_swap_module_params_on_conversion())
    m.register_parameter("a", a)
    m.to(torch.float64)
    kept = old.dtype == torch.float32 and old.tolist() == [1.0, 2.0, 3.0]
    on_old = array.__array_interface__["data"][0] == old.data_ptr() and array.tolist() == [1.0, 2.0, 3.0]
    return Fact(defaults and m.a is a and a.dtype == torch.float64 and bytes_apart(a, old) and kept and on_old,
                f"default torch.__future__ settings: {defaults}; m.a is a: {m.a is a}; a.dtype: {a.dtype}; "
                f"a shares storage with old: {same_storage(a, old)}; "
                f"old: {old.dtype} {old.tolist()}; array on old's memory: "
                f"{array.__array_interface__['data'][0] == old.data_ptr()}, values {array.tolist()}")


@fact("module-to-meta-gives-new-parameters", {
    "en": "With the default torch.__future__ settings (neither overwriting nor swapping module parameters on "
          "conversion), keeps weight and bias of an nn.Linear(2, 2) on the CPU and calls lin.to(\"meta\"): "
          "lin.weight and lin.bias are new Parameter objects on meta, and weight and bias stay on the CPU.",
    "zh_CN": "在默认的 torch.__future__ 设置下（转换时既不覆盖也不交换模块参数），先留下 CPU 上 nn.Linear(2, 2) "
             "的 weight 和 bias，再调用 lin.to(\"meta\")：lin.weight 和 lin.bias 是 meta 上新的 Parameter 对象，"
             "weight 和 bias 仍在 CPU 上。",
})
def _module_to_meta_gives_new_parameters() -> Fact:
    """The CPU and ``meta`` are not compatible tensor types for the ``.data`` setter, so ``Module.to("meta")``
    puts new parameter objects in place instead of swapping the memory under the old ones."""
    defaults = not (torch.__future__.get_overwrite_module_params_on_conversion()
                    or torch.__future__.get_swap_module_params_on_conversion())
    lin = torch.nn.Linear(2, 2)
    weight, bias = lin.weight, lin.bias
    lin.to("meta")
    new = [isinstance(p, torch.nn.Parameter) and p.device.type == "meta" for p in (lin.weight, lin.bias)]
    old = [p.device.type for p in (weight, bias)]
    replaced = lin.weight is not weight and lin.bias is not bias
    return Fact(defaults and replaced and all(new) and old == ["cpu", "cpu"],
                f"default torch.__future__ settings: {defaults}; new objects: {replaced}; "
                f"new ones are Parameters on meta: {new}; old ones on: {old}")

@fact("leaf-source-views-refuse-inplace", {
    "en": "Makes each source of the two tables of the view operations page a leaf that requires grad "
          "(requires_grad_()), runs every row of both tables on it with grad mode on, and calls fill_(-1) on each "
          "result that autograd records as a view (_is_view() true), each time on a fresh source: every such call "
          "raises with grad mode on outside torch.inference_mode(), torch.enable_grad() inside torch.no_grad() "
          "included, and runs and changes the source inside torch.inference_mode() with torch.enable_grad(), which "
          "turns grad mode on, and under torch.no_grad(), with grad mode off.",
    "zh_CN": "把视图操作页两张表的每个源张量用 requires_grad_() 变成需要梯度的叶子张量，在梯度模式下在它上面运行"
             "两张表的每一行，再对自动求导（autograd）记作视图（_is_view() 为真）的每个结果调用 fill_(-1)，每次都用"
             "新的源张量：在 torch.inference_mode() 之外、梯度模式打开时，每次调用都报错，在 torch.no_grad() 里用 "
             "torch.enable_grad() 打开梯度模式也一样；在 torch.inference_mode() 里用 torch.enable_grad() 打开梯度"
             "模式时，以及在关闭梯度模式的 torch.no_grad() 下，每次调用都照常执行，源张量随之改变。",
}, {
    "en": "every row of the two tables of the view operations page, on each layout of its source where its "
          "operation runs, float32 (complex64 for z) on the CPU",
    "zh_CN": "视图操作页两张表的每一行，在其源张量具有且操作本身能执行的每种布局上；"
             "CPU 上的 float32（z 为 complex64）",
})
def _leaf_source_views_refuse_inplace() -> Fact:
    """The views page's probe edits views of a non-leaf; views of a leaf that requires grad refuse it in grad mode
    and take it under no_grad()."""
    accepted, refused, grad_off = [], 0, []
    with torch.enable_grad():
        for row in view_ops.ROWS.values():
            for layout in view_ops.LAYOUTS:
                source = view_ops.make_source(row.source, layout)
                if source is None or layout in row.raises:
                    continue
                result = view_ops.apply(row, source.requires_grad_())
                if not result._is_view():
                    continue
                try:
                    result.fill_(view_ops.FILL)
                except RuntimeError:
                    refused += 1
                else:
                    accepted.append(f"{row.code} ({layout})")
                edits = enable_grad_edits(lambda r=row, ly=layout: view_ops.make_source(r.source, ly).requires_grad_(),
                    lambda s, r=row: view_ops.apply(r, s), lambda v: v.fill_(view_ops.FILL), "", view_ops.snapshot)
                if edits != REFUSED_OUTSIDE:
                    accepted.append(f"{row.code} ({layout}) with enable_grad() inside a mode: {edits}")
                off = _edit_with_grad_off(row, layout)
                if off != "runs":
                    grad_off.append(f"{row.code} ({layout}): {off}")
    return Fact(refused > 0 and not accepted and not grad_off,
                f"views whose fill_ raised: {refused}; accepted: {accepted}; "
                f"not run under no_grad() or no change: {grad_off or 'none'}")


def _edit_with_grad_off(row: view_ops.Row, layout: str) -> str:
    """fill_(-1) under torch.no_grad() on the row's result, taken with grad mode on from a fresh leaf that requires
    grad: "runs" (the source changed), "no change" or the error's first line."""
    source = view_ops.make_source(row.source, layout).requires_grad_()
    result = view_ops.apply(row, source)
    before = view_ops.snapshot(source.detach())
    try:
        with torch.no_grad():
            result.fill_(view_ops.FILL)
    except RuntimeError as exc:
        return str(exc).splitlines()[0]
    after = view_ops.snapshot(source.detach())
    return "no change" if all(torch.equal(x, y) for x, y in zip(before, after, strict=True)) else "runs"


#: The operations that wrap a Python number as a tensor run by wrapped-number-saved-outside-hooks: (the operation,
#: the number, its node, the shapes of the tensors the pack hook receives).
WRAPPING_OPS = {"x * 2": (lambda x: x * 2, 2, "MulBackward0", []), "2 * x": (lambda x: 2 * x, 2, "MulBackward0", []),
                "x * 2.5": (lambda x: x * 2.5, 2.5, "MulBackward0", []),
                "x / 2": (lambda x: x / 2, 2, "DivBackward0", []),
                "2 / x": (lambda x: 2 / x, 2, "MulBackward0", [(3, 3)])}


@fact("wrapped-number-saved-outside-hooks", {
    "en": "Runs doubled = x * 2, x a 3×3 leaf that requires grad, under torch.autograd.graph.saved_tensors_hooks: "
          "the pack hook receives no tensor, yet doubled.grad_fn._saved_other is the 2, as a zero-dimensional "
          "tensor; after doubled.sum().backward(), reading it raises that the saved tensors were freed. The same "
          "with 2 * x, x * 2.5 and x / 2 (a DivBackward0 node), and with 2 / x, whose MulBackward0 node saves the "
          "2 the same way while the hook receives one tensor only, the 3×3 reciprocal of x.",
    "zh_CN": "x 是需要梯度的 3×3 叶子张量，在 torch.autograd.graph.saved_tensors_hooks 下计算 doubled = x * 2："
             "打包钩子没有收到任何张量，doubled.grad_fn._saved_other 却保存着那个 2，是一个零维张量；"
             "调用 doubled.sum().backward() 之后再读取它，就报错说保存的张量已被释放。2 * x、x * 2.5 和 "
             "x / 2（节点是 DivBackward0）也是这样；2 / x 的 MulBackward0 节点同样这样保存那个 2，"
             "钩子只收到一个张量，即 x 的 3×3 倒数。",
}, {"en": f"{len(WRAPPING_OPS)} operations ({', '.join(WRAPPING_OPS)}) of a float32 leaf, on the CPU",
    "zh_CN": f"float32 叶子张量的 {len(WRAPPING_OPS)} 种运算（{'、'.join(WRAPPING_OPS)}），在 CPU 上"})
def _wrapped_number_saved_outside_hooks() -> Fact:
    """A Python number that an operation wraps as a tensor is saved for backward without the pack hook."""
    seen, wrong = {}, []
    for code, (operation, number, node, shapes) in WRAPPING_OPS.items():
        x, packed = torch.linspace(0.5, 1.3, 9).reshape(3, 3).requires_grad_(), []

        def pack(t: torch.Tensor, into: list = packed) -> torch.Tensor:
            into.append(t)
            return t

        with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            result = operation(x)
        saved = result.grad_fn._saved_other
        reciprocal = [torch.allclose(t, 1 / x.detach()) for t in packed] if shapes else []
        result.sum().backward()
        try:
            after = f"no error: {result.grad_fn._saved_other}"
        except RuntimeError as exc:
            after = "raises: already been freed" if "already been freed" in str(exc) else str(exc).splitlines()[0]
        seen[code] = (type(result.grad_fn).__name__, [tuple(t.shape) for t in packed], saved.dim(), saved.item(),
                      after)
        if not (seen[code][:2] == (node, shapes) and all(reciprocal) and saved.dim() == 0 and saved.item() == number
                and "already been freed" in after):
            wrong.append(code)
    return Fact(not wrong, f"(node, shapes the pack hook received, _saved_other's dim and value, reading it after "
                           f"backward): {seen}; not as said: {wrong}")


#: The shapes the reshape fact asks for, of a 3×4 source (12 elements).
RESHAPE_SHAPES = ((12,), (4, 3), (2, 6), (6, 2), (3, 2, 2), (2, 2, 3), (2, 3, 2), (3, 4, 1), (1, 3, 4))
#: The sources it reshapes: the view table's two layouts of ``a`` and their transposes.
_RESHAPE_SOURCES = {
    "a (contiguous)": lambda: torch.arange(12.).reshape(3, 4).clone(),
    "a (non-contiguous)": lambda: torch.empty_strided((3, 4), (1, 3)).copy_(torch.arange(12.).reshape(3, 4)),
    "a.t() (contiguous a)": lambda: torch.arange(12.).reshape(3, 4).clone().t(),
    "a.t() (non-contiguous a)": lambda: torch.empty_strided((3, 4), (1, 3)).copy_(torch.arange(12.).reshape(3, 4)).t(),
}
_RESHAPES = {
    "reshape": lambda x, shape: x.reshape(shape),
    "reshape_as": lambda x, shape: x.reshape_as(torch.empty(shape)),
    "flatten": lambda x, shape: x.flatten() if len(shape) == 1 else None,
}


def _expressible(x: torch.Tensor, shape: tuple[int, ...]) -> bool:
    """Whether ``shape`` can be laid over ``x``'s memory with strides: ``view`` answers it, raising otherwise."""
    try:
        x.view(shape)
    except RuntimeError:
        return False
    return True


@fact("reshape-view-when-strides-allow", {
    "en": "Calls reshape, reshape_as (and flatten, for the flat shape) with nine shapes of 12 elements on four "
          "sources: the view table's contiguous and non-contiguous 3×4 a, and a.t() of each; then fills the result "
          "with 100. The result shares a's storage, and the 100s reach a, exactly when a.view() "
          "of the same shape runs, that is when strides can express the new shape; otherwise it is a copy. "
          "Both happen on a non-contiguous source: reshape(3, 2, 2) of the non-contiguous a and "
          "reshape(2, 2, 3) of a.t() (a contiguous) are views, reshape(4, 3) of the non-contiguous a a copy.",
    "zh_CN": "在四个源张量上（视图表里连续的和不连续的 3×4 张量 a，以及各自的 a.t()），用 9 种 12 个元素的形状调用 "
             "reshape、reshape_as（形状是一维时还调用 flatten），再把结果填满 100。"
             "结果与 a 共享存储、填入的值也落到 a 上，"
             "恰好发生在同一形状的 a.view() 能执行时，也就是新形状能用步长表示时；否则结果是副本。"
             "两种结果在不连续的源张量上都会出现：不连续的 a 的 reshape(3, 2, 2)、连续的 a 的 a.t().reshape(2, 2, 3) "
             "是视图，不连续的 a 的 reshape(4, 3) 是副本。",
}, {"en": "nine shapes (12; 4×3; 2×6; 6×2; 3×2×2; 2×2×3; 2×3×2; 3×4×1; 1×3×4) on four sources (a contiguous and a "
          "non-contiguous 3×4 a, and a.t() of each), float32 on the CPU",
    "zh_CN": "9 种形状（12；4×3；2×6；6×2；3×2×2；2×2×3；2×3×2；3×4×1；1×3×4），四个源张量（连续的和不连续的 3×4 张量 "
             "a，以及各自的 a.t()），CPU 上的 float32"})
def _reshape_view_when_strides_allow() -> Fact:
    """reshape/reshape_as/flatten give a view exactly when view() of that shape would run."""
    wrong, kinds = [], {}
    for name, make in _RESHAPE_SOURCES.items():
        for shape in RESHAPE_SHAPES:
            for call, reshape in _RESHAPES.items():
                x = make()
                result = reshape(x, shape)
                if result is None:
                    continue
                shared = same_storage(result, x)
                result.fill_(100.0)
                reached = bool((x == 100.0).all())
                expected = _expressible(make(), shape)
                kinds[(name, call, shape)] = shared
                if shared != expected or reached != expected:
                    wrong.append(f"{name}.{call}{shape}: shares {shared}, write reaches {reached}, "
                                 f"view runs {expected}")
    non_contiguous = "a (non-contiguous)"
    both = (kinds[(non_contiguous, "reshape", (3, 2, 2))] and kinds[("a.t() (contiguous a)", "reshape", (2, 2, 3))]
            and not kinds[(non_contiguous, "reshape", (4, 3))])
    views = sum(kinds.values())
    return Fact(not wrong and both,
                f"{views} views and {len(kinds) - views} copies of {len(kinds)} calls; "
                f"disagreements with view(): {wrong or 'none'}")


def _matmul_operands(y_grad: bool, transposed: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The table's x, a y of shape (2, 3, 3) made the same way (``reshape()`` of a ``linspace()``), or y = z.mT of
    such a z when ``transposed``, and the leaf that y's gradient reaches (y itself, or z)."""
    x = torch.linspace(0.5, 1.3, 9).reshape(3, 3).requires_grad_()
    leaf = torch.linspace(1.5, 0.2, 18).reshape(2, 3, 3).requires_grad_(y_grad)
    return x, (leaf.mT if transposed else leaf), leaf


def _saved_by_matmul(y_grad: bool, transposed: bool) -> tuple[torch.Tensor, torch.Tensor, list[torch.Tensor]]:
    """x, y and what the pack hook receives from torch.matmul(x, y)."""
    x, y, _ = _matmul_operands(y_grad, transposed)
    packed: list[torch.Tensor] = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        torch.matmul(x, y)
    return x, y, packed


def _matmul_backward(y_grad: bool, transposed: bool, edit: bool) -> tuple[str, tuple[torch.Tensor | None, ...]]:
    """backward() of torch.matmul(x, y).sum(), after y.add_(1) under torch.no_grad() or not: its error ("" if none)
    and the gradients of x and of y's leaf. Run without hooks: a saved tensor a pack hook returns is not checked
    for in-place edits, so a graph recorded with hooks would not raise."""
    x, y, leaf = _matmul_operands(y_grad, transposed)
    out = torch.matmul(x, y)
    if edit:
        with torch.no_grad():
            y.add_(1)
    return backward_error(out.sum()), (x.grad, leaf.grad)


def _same_grads(a: tuple[torch.Tensor | None, ...], b: tuple[torch.Tensor | None, ...]) -> bool:
    return all((p is None and q is None) or (p is not None and q is not None and torch.equal(p, q))
               for p, q in zip(a, b, strict=True))


@fact("broadcast-matmul-saves-copy", {
    "en": "In grad mode, runs torch.matmul(x, y) on the \"what operations save\" table's x "
          "(torch.linspace(0.5, 1.3, 9).reshape(3, 3).requires_grad_()) and y = torch.linspace(1.5, 0.2, 18)"
          ".reshape(2, 3, 3), with y requiring grad and not, under saved-tensor hooks: of what the pack hook "
          "receives, the tensors not on x's memory are "
          "one tensor, which is neither y nor a view, shares no memory with y and equals y.mT.reshape(6, 3): a copy "
          "of y's transpose reshaped to (6, 3). Run again without hooks, with y.add_(1) under torch.no_grad() after "
          "the matmul, backward() of out.sum() raises nothing and gives the gradients of an unedited run. For "
          "y = z.mT with z made as y was, requiring grad and not, the pack hook receives one tensor on y's memory, "
          "equal to y.mT.reshape(6, 3), and backward() after the same edit raises that a variable needed for "
          "gradient computation was modified by an inplace operation.",
    "zh_CN": "在梯度模式下，对“各操作保存了哪些张量”表中的 x"
             "（torch.linspace(0.5, 1.3, 9).reshape(3, 3).requires_grad_()）和 "
             "y = torch.linspace(1.5, 0.2, 18).reshape(2, 3, 3) 运行 torch.matmul(x, y)，y 需要梯度和不需要梯度"
             "各一次，同时挂上保存张量的钩子（saved tensors hooks）：打包钩子收到的张量中，不在 x 内存上的只有一个，"
             "它既不是 y 也不是视图，与 y 不共享内存，等于 y.mT.reshape(6, 3)：它是 y 的转置改变形状为 (6, 3) "
             "后的副本。不挂钩子再运行一次，在 matmul 之后于 torch.no_grad() 下执行 y.add_(1)，对 out.sum() 调用 "
             "backward() 不报错，梯度与未修改时相同。若 y = z.mT、z 的做法与 y 相同（需要梯度和不需要梯度各一次），"
             "打包钩子收到一个在 y 内存上的张量，等于 y.mT.reshape(6, 3)；同样修改之后 backward() 报错，"
             "说计算梯度所需的变量已被原地操作修改。",
})
def _broadcast_matmul_saves_copy() -> Fact:
    """A broadcasting matmul saves a copy of its batched operand when that operand is contiguous: an edit of it
    goes unnoticed and does no harm. Of a transposed operand, the same reshape is a view, and the edit is caught."""
    copied, unharmed, caught, seen = [], [], [], []
    for y_grad in (False, True):
        x, y, packed = _saved_by_matmul(y_grad, transposed=False)
        rest = [t for t in packed if not same_storage(t, x)]
        copied.append(len(rest) == 1 and rest[0] is not y and rest[0]._base is None
                      and bytes_apart(rest[0], y) and torch.equal(rest[0].detach(), y.detach().mT.reshape(6, 3)))
        error, edited = _matmul_backward(y_grad, transposed=False, edit=True)
        unharmed.append(error == "" and _same_grads(edited, _matmul_backward(y_grad, False, edit=False)[1]))
        x, y, packed = _saved_by_matmul(y_grad, transposed=True)
        on_y = [t for t in packed if same_storage(t, y)]
        error, _ = _matmul_backward(y_grad, transposed=True, edit=True)
        caught.append(len(on_y) == 1 and torch.equal(on_y[0].detach(), y.detach().mT.reshape(6, 3))
                      and "modified by an inplace operation" in error)
        seen.append(f"y requires grad {y_grad}: saved besides x's memory {[tuple(t.shape) for t in rest]}, "
                    f"backward after y.add_(1) on y = z.mT: {error.split(':')[0] or 'no error'}")
    return Fact(all(copied) and all(unharmed) and all(caught),
                f"a copy equal to y.mT.reshape(6, 3) saved: {copied}; backward after y.add_(1) raises nothing and "
                f"gives the same gradients: {unharmed}; for y = z.mT, y.mT.reshape(6, 3) saved on y's memory and the "
                f"edit caught: {caught}; {'; '.join(seen)}")
