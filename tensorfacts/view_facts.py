"""Named facts on the views the matrix adds as a source, a view of a leaf that requires grad: which in-place edits
it refuses, in which grad mode (over every recorded view of the views page's first table), and which writes an
``expand()`` view refuses in every mode, whatever its dtype, while a view whose windows overlap takes them, even in
the graph, where ``backward()`` then gives a wrong gradient.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import VERSION_ERROR, backward_error, enable_grad_inside

#: The views whose elements overlap (stride 0): torch refuses mul_ on them whatever the grad mode.
_EXPAND_ROWS = ("a.expand(2, 3, 4)", "a.expand_as(torch.empty(2, 3, 4))")
_OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


#: Grad mode on outside inference mode: by default, and turned on by enable_grad() inside no_grad().
_GRAD_ON = {"grad on": contextlib.nullcontext, "enable_grad() in no_grad()": lambda: enable_grad_inside(torch.no_grad)}
#: Where the edit runs: grad mode off three ways, and grad mode on inside inference_mode().
_EDIT_RUNS = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode,
              "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
              "enable_grad() in inference_mode()": lambda: enable_grad_inside(torch.inference_mode)}


def _recorded_views_with_grad_mode_off() -> tuple[bool, str]:
    """Every operation of the views page's first table whose result, from a leaf that requires grad, has a grad_fn:
    mul_(10) raises with grad mode on outside inference mode; with grad mode off, and with grad mode on inside
    inference_mode(), mul_(10) and fill_(-1) run and reach the leaf, except mul_ on an expand() view, refused in every
    mode. (holds, trace)"""

    def attempt(row: view_ops.Row, edit: str, mode: Callable[[], object]) -> tuple[str, str]:
        """(grad_fn of the result, outcome of one edit on it), on a fresh leaf."""
        leaf = view_ops.make_source(row.source, "contiguous").requires_grad_()
        result = view_ops.apply(row, leaf)
        node = type(result.grad_fn).__name__ if result.grad_fn is not None else ""
        with torch.no_grad():
            before = view_ops.snapshot(leaf.detach())
        try:
            with mode():
                if edit == "mul_":
                    result.mul_(10)
                else:
                    result.fill_(view_ops.FILL)
        except RuntimeError as exc:
            return node, "overlap" if _OVERLAP in str(exc) else "raises"
        with torch.no_grad():
            after = view_ops.snapshot(leaf.detach())
        return node, "runs" if not all(torch.equal(x, y) for x, y in zip(before, after, strict=True)) else "no change"

    wrong, nodes = [], []
    for row in view_ops.VIEWS:
        node, outcome = attempt(row, "mul_", contextlib.nullcontext)
        if not node:  # not recorded by autograd (detach(), a sparse tensor's indices())
            continue
        nodes.append(node)
        for name, mode in _GRAD_ON.items():
            outcome = attempt(row, "mul_", mode)[1]
            if outcome not in ("raises", "overlap"):
                wrong.append(f"{row.code} mul_, {name}: {outcome}")
        for name, mode in _EDIT_RUNS.items():
            for edit in ("mul_", "fill_"):
                expected = "overlap" if edit == "mul_" and row.code in _EXPAND_ROWS else "runs"
                got = attempt(row, edit, mode)[1]
                if got != expected:
                    wrong.append(f"{row.code} {edit} under {name}: {got}")
    return (not wrong and len(nodes) == len(view_ops.VIEWS) - 2,
            f"recorded views of the views page's first table: {len(nodes)} of {len(view_ops.VIEWS)}; "
            f"not as stated: {wrong or 'none'}")


@fact("leaf-view-inplace-refused-in-grad-mode", {
    "en": "Takes v = a.view(3) of a leaf a that requires grad and calls v.mul_(10), each time on a fresh a: with "
          "grad mode on outside torch.inference_mode(), torch.enable_grad() inside torch.no_grad() included, it "
          "raises; under torch.no_grad(), torch.inference_mode() and torch.set_grad_enabled(False), and inside "
          "torch.inference_mode() with torch.enable_grad(), which turns grad mode on, it runs and a becomes "
          "[10, 20, 30]. Then takes, with grad mode on, each operation of the first table of the views page on a "
          "fresh leaf that requires grad (that page's contiguous sources), keeping those whose result has a "
          "grad_fn: mul_(10) on the result raises in both grad-mode-on cases; in each of the four others, mul_(10) "
          "and fill_(-1) on it run and change the leaf, except that on the results of expand() and expand_as() "
          "mul_(10) raises \"more than one element of the written-to tensor refers to a single memory "
          "location\" there too (fill_(-1) runs). The dtype form, a.view(torch.float32) and a.view(torch.int32) of a "
          "fresh a, requires no grad, has no grad_fn and is a leaf, and zero_() and += 1 on it run with grad mode "
          "on, each on a fresh a: zero_() makes a [0, 0, 0], += 1 makes it [2, 3, 4] through the float32 form and "
          "changes it through the int32 one; a stays a leaf with no grad_fn, a._version moves by one, and "
          "backward() of (a * a).sum(), computed before the edit, raises the version-counter error.",
    "zh_CN": "对需要梯度的叶子张量 a 取 v = a.view(3)，再调用 v.mul_(10)，每次都用新的 a：在 "
             "torch.inference_mode() 之外、梯度模式打开时报错，在 torch.no_grad() 里用 torch.enable_grad() "
             "打开梯度模式也一样；在 torch.no_grad()、torch.inference_mode() 和 torch.set_grad_enabled(False) 下，"
             "以及在 torch.inference_mode() 里用 torch.enable_grad() 打开梯度模式时，都照常执行，"
             "a 变为 [10, 20, 30]。再在梯度模式下，对《视图操作一览》第一张表的每个操作，各取一个新的、需要梯度的"
             "叶子张量（该页连续的源张量）来执行，留下结果有 grad_fn 的那些：在上述两种梯度模式打开的情形下，"
             "对结果调用 mul_(10) 报错；在其余四种情形下，对它调用 mul_(10) 和 fill_(-1) 都照常执行，叶子张量随之"
             "改变，只有 expand() 和 expand_as() 的结果例外：在这四种情形下 mul_(10) 也报“more than one element of the "
             "written-to tensor refers to a single memory location”（fill_(-1) 照常执行）。"
             "换成 dtype 形式，对新的 a 取 a.view(torch.float32) 和 a.view(torch.int32)："
             "它们不需要梯度，没有 grad_fn，本身是叶子张量；每次用新的 a，在梯度模式下对它们执行 zero_() 和 += 1 "
             "都照常执行：zero_() 让 a 变为 [0, 0, 0]，经 float32 形式的 += 1 让 a 变为 [2, 3, 4]，经 int32 形式的 "
             "+= 1 也改变了 a；a 仍是没有 grad_fn 的叶子张量，a._version 加 1，对修改之前算出的 (a * a).sum() "
             "调用 backward() 会报版本计数器错误。",
})
def _leaf_view_inplace_refused_in_grad_mode() -> Fact:
    """The refusal needs grad mode on outside inference mode: every way of turning grad mode off, and enable_grad()
    inside inference_mode(), lets the edit through, on every recorded view of the views page's first table, unless
    torch refuses the edit in every mode (mul_ on expand()). The dtype
    form of view() is no view for autograd: it takes the edit in grad mode with no node, on a's version counter."""
    outcomes = {}
    for name, mode in {**_GRAD_ON, **_EDIT_RUNS}.items():
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = a.view(3)
        try:
            with mode():
                v.mul_(10)
            outcomes[name] = a.detach().tolist()
        except RuntimeError as exc:
            outcomes[name] = "raises" if "a view of a leaf Variable that requires grad" in str(exc) else str(exc)
    runs = [outcomes[n] for n in _EDIT_RUNS]
    recorded = _recorded_views_with_grad_mode_off()
    dtype_views, dtype_edits = {}, {"zero_()": lambda v: v.zero_(), "+= 1": lambda v: v.__iadd__(1)}
    for dtype in (torch.float32, torch.int32):
        for edit_name, edit in dtype_edits.items():
            a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            loss, v = (a * a).sum(), a.view(dtype)
            unrecorded = not v.requires_grad and v.grad_fn is None and v.is_leaf
            edit(v)  # grad mode is on
            caught = a._version == 1 and VERSION_ERROR in backward_error(loss)
            after = a.detach().tolist()
            plus_one = after == [2.0, 3.0, 4.0] if dtype == torch.float32 else after != [1.0, 2.0, 3.0]
            written = after == [0.0, 0.0, 0.0] if edit_name == "zero_()" else plus_one
            dtype_views[f"{dtype} {edit_name}"] = (unrecorded, written, a.is_leaf and a.grad_fn is None, caught)
    return Fact(all(outcomes[n] == "raises" for n in _GRAD_ON) and all(o == [10.0, 20.0, 30.0] for o in runs)
                and recorded[0] and all(v == (True, True, True, True) for v in dtype_views.values()),
                "; ".join(f"{n}: {o}" for n, o in outcomes.items()) + "; " + recorded[1]
                + "; view(dtype) (no grad, no grad_fn and a leaf; a written; a a leaf; counted and caught): "
                + str(dtype_views))


@fact("leaf-view-has-grad-fn-refuses-inplace", {
    "en": "Slices base[1:] of a leaf that requires grad, and takes w[0] and w.T of w = nn.Parameter(torch.ones(2, 3)), "
          "with grad mode on, each time of a fresh base or w: each view has a grad_fn and is not a leaf; mul_(10) on "
          "it raises the error for a view of a leaf with grad mode on outside torch.inference_mode(), "
          "torch.enable_grad() inside torch.no_grad() included, and runs and changes base or w inside "
          "torch.inference_mode() with torch.enable_grad(), which turns grad mode on.",
    "zh_CN": "每次用新的 base 或 w，在梯度模式下，对需要梯度的叶子张量切片 base[1:]，并对 "
             "w = nn.Parameter(torch.ones(2, 3)) 取 w[0] 和 w.T：每个视图都有 grad_fn、不是叶子张量；在 "
             "torch.inference_mode() 之外、梯度模式打开时，对它调用 mul_(10) 会报“叶子张量的视图”那条错误，在 "
             "torch.no_grad() 里用 torch.enable_grad() 打开梯度模式也一样；在 torch.inference_mode() 里用 "
             "torch.enable_grad() 打开梯度模式时，则照常执行，base 或 w 随之改变。",
})
def _leaf_view_has_grad_fn_refuses_inplace() -> Fact:
    """A slice, an integer index or a transpose of a leaf that requires grad (a Parameter too) has a
    grad_fn, yet refuses an in-place edit with grad mode on outside inference mode, as the leaf itself does; inside
    inference_mode() with enable_grad() the edit runs."""
    views = {"base[1:]": (lambda: torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True), lambda b: b[1:]),
             "w[0]": (lambda: torch.nn.Parameter(torch.ones(2, 3)), lambda w: w[0]),
             "w.T": (lambda: torch.nn.Parameter(torch.ones(2, 3)), lambda w: w.T)}
    outcomes = {}
    for name, (make, take) in views.items():
        by_mode, recorded = {}, True
        for mode_name, mode in {**_GRAD_ON, "enable_grad() in inference_mode()": _EDIT_RUNS[
                "enable_grad() in inference_mode()"]}.items():
            source = make()
            view = take(source)
            recorded, node = recorded and view.grad_fn is not None and not view.is_leaf, type(view.grad_fn).__name__
            before = source.detach().clone()
            try:
                with mode():
                    view.mul_(10)
            except RuntimeError as exc:
                by_mode[mode_name] = ("refused" if "a view of a leaf Variable that requires grad" in str(exc)
                                      else str(exc).splitlines()[0])
            else:
                by_mode[mode_name] = "runs" if not torch.equal(source.detach(), before) else "no change"
        outcomes[name] = (recorded, by_mode, node)
    expected = {**{n: "refused" for n in _GRAD_ON}, "enable_grad() in inference_mode()": "runs"}
    return Fact(all(has and by_mode == expected for has, by_mode, _ in outcomes.values()),
                "; ".join(f"{n}: grad_fn {g}, mul_(10): {m}" for n, (_, m, g) in outcomes.items()))


#: The dtypes the expand() fact runs (not complex32, whose tensors warn that support is experimental).
_EXPAND_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.float8_e4m3fn, torch.float8_e5m2,
                  torch.complex64, torch.complex128, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
                  torch.uint16, torch.uint32, torch.uint64, torch.bool)


@fact("expand-inplace-write-refused", {
    "en": "On the CPU, on e = x.expand(2, 3) of x = torch.zeros(3) (a new dimension) and again of x = torch.zeros(2, "
          "1) (a size-1 dimension), each in float16, bfloat16, float32, float64, float8_e4m3fn, float8_e5m2, "
          "complex64, complex128, int8, int16, int32, int64, uint8, uint16, uint32, uint64 and bool, and for x = "
          "torch.zeros(3, requires_grad=True).clone() and torch.zeros(2, 1, requires_grad=True).clone() (a non-leaf "
          "that requires grad, grad mode on): fill_(-1) runs and gives every element what fill_(-1) gives in that "
          "dtype; fill_(torch.tensor(-1.0)) (a 0-d tensor as the value), add_(1), mul_(2), and copy_ from "
          "torch.ones(2, 3), from x and from x.clone().expand(2, 3) raise \"more than one element of the written-to "
          "tensor refers to a single memory location\"; copy_(x.expand(2, 3)), the same expand() of x made again, "
          "runs.",
    "zh_CN": "在 CPU 上，对 x = torch.zeros(3) 的 e = x.expand(2, 3)（新增一维），以及对 x = torch.zeros(2, 1) 的 e = "
             "x.expand(2, 3)（扩展长度为 1 的维），x 依次取 float16、bfloat16、float32、float64、float8_e4m3fn、"
             "float8_e5m2、complex64、complex128、int8、int16、int32、int64、uint8、uint16、uint32、uint64 和 bool，"
             "另有 x = torch.zeros(3, requires_grad=True).clone() 和 torch.zeros(2, 1, requires_grad=True).clone()"
             "（需要梯度的非叶子张量，梯度模式打开）：fill_(-1) 正常执行，每个元素都是该 dtype 下 fill_(-1) 给出的值；"
             "fill_(torch.tensor(-1.0))（值是零维张量）、add_(1)、mul_(2)，以及来源为 "
             "torch.ones(2, 3)、x 或 x.clone().expand(2, 3) 的 copy_ 都报“more than one element of the "
             "written-to tensor refers to a single memory location”；copy_(x.expand(2, 3)) 的来源是对 x "
             "再做一次同样的 expand()，它正常执行。",
})
def _expand_inplace_write_refused() -> Fact:
    """On an expanded view (a new dimension, a size-1 one), in every dtype tried and on a non-leaf that requires grad,
    fill_ with a number runs and in-place writes of other values (fill_ with a 0-d tensor among them) raise; copy_
    raises from every source tried but a second expand() of the same tensor."""
    sources = [(f"{dtype}", lambda shape, dtype=dtype: torch.zeros(shape, dtype=dtype)) for dtype in _EXPAND_DTYPES]
    sources.append(("non-leaf", lambda shape: torch.zeros(shape, requires_grad=True).clone()))
    wrong, runs = [], 0
    for name, make in sources:
        for shape in ((3,), (2, 1)):  # expand(2, 3) adds a dimension, then widens a size-1 one
            x = make(shape)
            e, errors = x.expand(2, 3), []
            e.fill_(-1)
            filled = e.tolist() == torch.zeros(2, 3, dtype=x.dtype).fill_(-1).tolist()
            writes = (("fill_", torch.tensor(-1.0)), ("add_", 1), ("mul_", 2), ("copy_", torch.ones(2, 3)),
                      ("copy_", x), ("copy_", x.clone().expand(2, 3)))
            for op, value in writes:
                try:
                    getattr(e, op)(value)
                except RuntimeError as exc:
                    errors.append(_OVERLAP in str(exc))
                else:
                    errors.append(False)
            try:
                e.copy_(x.expand(2, 3))
            except RuntimeError as exc:
                same_source = str(exc).splitlines()[0]
            else:
                same_source = "runs"
            runs += 1
            if not (filled and all(errors) and same_source == "runs"):
                wrong.append(f"{name} x of shape {shape}: fill_(-1) as in that dtype: {filled}; overlap error from "
                             f"each other write: {errors}; copy_(x.expand(2, 3)): {same_source}")
    return Fact(not wrong and runs == 2 * len(sources),
                f"{runs} expand() views ({len(_EXPAND_DTYPES)} dtypes and a non-leaf, two shapes each); "
                f"not as stated: {wrong or 'none'}")


def _overlapping_write(make: Callable[[], torch.Tensor], view: Callable[[torch.Tensor], torch.Tensor], edit: str,
                       value: float, mode: Callable[[], object] = contextlib.nullcontext,
                       ) -> tuple[tuple[int, ...], str, list]:
    """(the view's strides, "runs" or the error's first line, the source's values after) for one write in ``mode``."""
    a = make()
    v = view(a)
    try:
        with mode():
            getattr(v, edit)(value)
    except RuntimeError as exc:
        outcome = "overlap" if _OVERLAP in str(exc) else str(exc).splitlines()[0]
    else:
        outcome = "runs"
    return v.stride(), outcome, a.detach().tolist()


@fact("overlapping-window-views-take-writes", {
    "en": "On a fresh a = torch.arange(1., 5.) (float32, CPU) each time, grad mode on: a.unfold(0, 2, 1) and "
          "a.as_strided((2, 2), (1, 1)) have no stride of 0; the first takes mul_(10), and a becomes "
          "[10., 200., 300., 40.], the second takes add_(1), and a becomes [2., 4., 4., 4.]; a.expand(2, 4), whose "
          "strides hold a 0, refuses mul_(10): \"more than one element of the written-to tensor refers to a single "
          "memory location\". Under torch.no_grad(), mul_(10) on a.unfold(0, 2, 1) of a leaf "
          "a = torch.arange(1., 5., requires_grad=True) gives [10., 200., 300., 40.] too.",
    "zh_CN": "每次取新的 a = torch.arange(1., 5.)（float32，CPU），在梯度模式下：a.unfold(0, 2, 1) 和 "
             "a.as_strided((2, 2), (1, 1)) 的步长中都没有 0；前者接受 mul_(10)，a 变为 [10., 200., 300., 40.]，"
             "后者接受 add_(1)，a 变为 [2., 4., 4., 4.]；a.expand(2, 4) 的步长中有 0，它拒绝 mul_(10)："
             "“more than one element of the written-to tensor refers to a single memory location”。在 "
             "torch.no_grad() 下，对叶子张量 a = torch.arange(1., 5., requires_grad=True) 的 a.unfold(0, 2, 1) "
             "调用 mul_(10)，也得到 [10., 200., 300., 40.]。",
})
def _overlapping_window_views_take_writes() -> Fact:
    """torch refuses a write to an expand() view (a stride of 0), not to a view whose windows overlap: there the write
    runs and reaches a shared element once per view element that maps to it."""
    def plain() -> torch.Tensor:
        return torch.arange(1.0, 5.0)

    def leaf() -> torch.Tensor:
        return torch.arange(1.0, 5.0, requires_grad=True)

    unfold = _overlapping_write(plain, lambda a: a.unfold(0, 2, 1), "mul_", 10)
    strided = _overlapping_write(plain, lambda a: a.as_strided((2, 2), (1, 1)), "add_", 1)
    of_leaf = _overlapping_write(leaf, lambda a: a.unfold(0, 2, 1), "mul_", 10, torch.no_grad)
    expand = _overlapping_write(plain, lambda a: a.expand(2, 4), "mul_", 10)
    return Fact(0 not in unfold[0] and unfold[1:] == ("runs", [10.0, 200.0, 300.0, 40.0])
                and 0 not in strided[0] and strided[1:] == ("runs", [2.0, 4.0, 4.0, 4.0])
                and of_leaf[1:] == ("runs", [10.0, 200.0, 300.0, 40.0])
                and 0 in expand[0] and expand[1:] == ("overlap", [1.0, 2.0, 3.0, 4.0]),
                f"(strides, outcome, a after): unfold(0, 2, 1).mul_(10): {unfold}; as_strided((2, 2), (1, 1)).add_(1): "
                f"{strided}; unfold(0, 2, 1).mul_(10) of a leaf: {of_leaf}; expand(2, 4).mul_(10): {expand}")


#: What x.grad would be if backward() counted each time unfold(0, 2, 1).mul_(10) reached an element of a.
_COUNTED = [10.0, 100.0, 100.0, 10.0]


@fact("overlapping-window-edit-wrong-gradient", {
    "en": "With grad mode on, makes a = x.clone() of a leaf x = torch.arange(1., 5., requires_grad=True) (float32, "
          "CPU), runs a.unfold(0, 2, 1).mul_(10), which raises nothing and makes a [10., 200., 300., 40.], that is "
          "x * [10., 100., 100., 10.], then a.sum().backward(): it raises nothing, gives no warning, and "
          "x.grad is [10., 10., 10., 10.], while the same sum written out of place, "
          "(x * torch.tensor([10., 100., 100., 10.])).sum(), gives x.grad [10., 100., 100., 10.].",
    "zh_CN": "在梯度模式下，对叶子张量 x = torch.arange(1., 5., requires_grad=True)（float32，CPU）取 "
             "a = x.clone()，执行 a.unfold(0, 2, 1).mul_(10)：不报错，a 变为 [10., 200., 300., 40.]，也就是 "
             "x * [10., 100., 100., 10.]；再调用 a.sum().backward()：不报错，也没有警告，x.grad 却是 "
             "[10., 10., 10., 10.]，而不用原地操作写出的同一个和 (x * torch.tensor([10., 100., 100., 10.])).sum() "
             "给出的 x.grad 是 [10., 100., 100., 10.]。",
})
def _overlapping_window_edit_wrong_gradient() -> Fact:
    """An in-place edit through a view whose windows overlap runs in the graph and backward() gives a wrong gradient:
    mul_'s derivative is applied once per element of a, not once per view element that reaches it."""
    with torch.enable_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = torch.arange(1.0, 5.0, requires_grad=True)
        a = x.clone()
        outcome = "runs"
        try:
            a.unfold(0, 2, 1).mul_(10)
        except RuntimeError as exc:
            outcome = str(exc).splitlines()[0]
        values = a.detach().tolist()
        error = backward_error(a.sum())
        y = torch.arange(1.0, 5.0, requires_grad=True)
        (y * torch.tensor(_COUNTED)).sum().backward()
    got = None if x.grad is None else x.grad.tolist()
    return Fact(outcome == "runs" and values == [10.0, 200.0, 300.0, 40.0] and error == "" and not caught
                and got == [10.0] * 4 and y.grad.tolist() == _COUNTED,
                f"unfold(0, 2, 1).mul_(10) of x.clone(): {outcome}, a {values}; backward(): {error or 'no error'}, "
                f"warnings: {[str(w.message) for w in caught]}; x.grad {got}; out of place: {y.grad.tolist()}")
