"""How to read the view operations table and the "what operations save" table, each sentence checked.

Each note is a :class:`tensorfacts.matrix.Advice`: its text in every edition's language, and a premise
that reads the probed table (:mod:`tensorfacts.view_ops`, :mod:`tensorfacts.saved_ops`). The
``view-table`` and ``saved-table`` directives render the notes and fail the build when a premise no
longer holds, so a note says no more than the table it sits under.
"""

from __future__ import annotations

from tensorfacts import saved_ops, view_ops
from tensorfacts.matrix import Advice

_MULTI = ("a.unbind()[0]", "a.split(1)[0]", "a.split_with_sizes([1, 2])[0]", "a.chunk(3)[0]")
_NOT_AUTOGRAD_VIEWS = ("a.detach()", "s.indices()")
_RAISES = {("a.view(4, 3)", "non-contiguous"), ("a.view_as(torch.empty(4, 3))", "non-contiguous")}
_SUGGESTS = "Use .reshape(...) instead"  #: what the error of view() on a source it cannot view suggests
_MAYBE = ("a.reshape(4, 3)", "a.reshape_as(torch.empty(4, 3))", "a.flatten()")


def _cells(t: view_ops.Table, rows, layout: str | None = None):
    """(row, layout, cells) for the rows' layouts that exist and did not raise."""
    for code in rows:
        for lay in ((layout,) if layout else view_ops.LAYOUTS):
            cells = t[code][lay]
            if not any(isinstance(v, view_ops.Raised) or v is view_ops.NOT_APPLICABLE for v in cells.values()):
                yield code, lay, cells


def _views_share_and_write(t: view_ops.Table) -> bool:
    views = [row.code for row in view_ops.VIEWS]
    raised = {(code, lay) for code in views for lay in view_ops.LAYOUTS
              if isinstance(t[code][lay]["shares_storage"], view_ops.Raised)}
    missing = {(row.code, lay) for row in view_ops.VIEWS for lay in view_ops.LAYOUTS
               if t[row.code][lay]["shares_storage"] is view_ops.NOT_APPLICABLE}
    sparse = {(row.code, "non-contiguous") for row in view_ops.VIEWS if row.source == "s"}
    suggests = all(isinstance(value, view_ops.Raised) and _SUGGESTS in value.message
                   for code, lay in raised for value in t[code][lay].values())
    return raised == _RAISES and suggests and missing == sparse == {("s.indices()", "non-contiguous"),
                                                       ("s.values()", "non-contiguous")} and all(
        c["shares_storage"] is True and c["writes_through"] is True for _, _, c in _cells(t, views))


def _autograd_views(t: view_ops.Table) -> bool:
    return all(c["autograd_view"] is (code not in _NOT_AUTOGRAD_VIEWS)
               for code, _, c in _cells(t, [row.code for row in view_ops.VIEWS]))


def _multi_output(t: view_ops.Table) -> bool:
    """The four multi-output rows refuse the edit on every layout their operation runs on, and every other row
    accepts it on every layout its operation runs on (a layout where the operation raises has no edit)."""
    ran = [(code, c["edit_refused"]) for code, _, c in _cells(t, view_ops.ROWS)]
    refused = {code for code, edit in ran if isinstance(edit, view_ops.Refused) and edit.kind == view_ops.MULTI_OUTPUT}
    accepted = {code for code, edit in ran if edit is False}
    return (refused == set(_MULTI) and not (refused & accepted) and accepted | refused == set(view_ops.ROWS)
            and all(edit is False for code, edit in ran if code not in _MULTI)
            and {(code, lay) for code in view_ops.ROWS for lay in view_ops.LAYOUTS
                 if isinstance(t[code][lay]["edit_refused"], view_ops.Raised)} == _RAISES)


def _same(cells: dict, value: bool) -> bool:
    return all(cells[c] is value for c in ("shares_storage", "autograd_view", "writes_through"))


def _maybe(t: view_ops.Table) -> bool:
    return (all(_same(t[code]["contiguous"], True) and _same(t[code]["non-contiguous"], False) for code in _MAYBE)
            and all(t[code][lay]["shares_storage"] is True and t[code][lay]["writes_through"] is True
                    and t[code][lay]["autograd_view"] is False
                    for code in ("a.to(torch.float32)", "a.type_as(torch.empty(0))", "a.data")
                    for lay in view_ops.LAYOUTS)
            and t["a.contiguous()"]["contiguous"] == t["a.to(torch.float32)"]["contiguous"]
            and _same(t["a.contiguous()"]["non-contiguous"], False)
            and all(_same(t[code][lay], False) for code in ("a.to(torch.float64)", "a[[0, 2]]", "a[a > 5]")
                    for lay in view_ops.LAYOUTS))


VIEW_NOTES: tuple[Advice, ...] = (
    Advice(
        "views-share",
        {
            "en": "Every operation of the first table shares storage with its source, and a write through its "
                "result reaches the source, on both layouts (the sparse source of `s.indices()` and `s.values()` has "
                "no non-contiguous one); only `view(4, 3)` and `view_as(torch.empty(4, 3))` "
                "refuse the table's non-contiguous source, with an error, listed under the table, that suggests "
                "`.reshape(...)` instead.",
            "zh_CN": "第一张表里的每个操作都与源张量共享存储，通过结果写入的数据会落到源张量上，两种内存布局都是如此"
                "（`s.indices()` 和 `s.values()` 的稀疏源张量没有不连续的布局）；"
                "只有 `view(4, 3)` 和 `view_as(torch.empty(4, 3))` 在表中那个不连续的源张量上报错，"
                "报错信息（列在表格下方）建议改用 `.reshape(...)`。",
        },
        _views_share_and_write,
    ),
    Advice(
        "autograd-views",
        {
            "en": "Autograd treats each of them as a view (`_is_view()`, a method internal to torch, is true), "
                "except `detach()` and a sparse tensor's `indices()`: they share storage, and autograd does not "
                "record them "
                "as views.",
            "zh_CN": "自动求导（autograd）把它们都当作视图（torch 的内部方法 `_is_view()` 为真），"
                "只有 `detach()` 和稀疏张量的 `indices()` 例外："
                "它们共享存储，自动求导却不把它们记作视图。",
        },
        _autograd_views,
    ),
    Advice(
        "multi-output",
        {
            "en": "With grad mode on as the edit runs (`torch.nn.init.zeros_(o)` of an output `o`, called with grad "
                "mode on, writes with it off), outside `torch.inference_mode()`, and a source that requires grad and "
                "is not an inference tensor, every output of `unbind()`, `split()`, `split_with_sizes()` or `chunk()` "
                "refuses an in-place edit, also when the call returns a single view, though the table probes only the "
                "first output; inside `torch.inference_mode()` the edit runs, even with `torch.enable_grad()`. On an "
                "inference tensor that requires grad (such as a parameter of a module built inside "
                "`torch.inference_mode()`), such an edit outside the mode raises too, but only after writing. These "
                "four functions hang all the views one call returns on a single autograd node. So once the version "
                "counter an output shares with the source moves, as it does after `mul_()` on the source, on that "
                "output or on another one, even under `torch.no_grad()`, that output, with grad mode on, raises a "
                "`RuntimeError` when cloned (`o.clone()`), viewed (`o.view(-1)`, `o[0]`) or used (`o * 2`): take the "
                "outputs again after the edit. "
                "`tensor_split()`, `hsplit()` and `vsplit()` return several views too, each on a node of its own "
                "(`SliceBackward0`), and accept the probe's edit, `fill_(-1)`, as every other row of both tables "
                "does wherever its operation runs (not `view(4, 3)` or `view_as(torch.empty(4, 3))` on the "
                "non-contiguous source, where the operation itself raises); on an `expand()` view of a CPU tensor "
                "that expands a size-1 dimension, or adds a new one, to more than one element, so that several "
                "elements lie at one memory location (a stride of 0), "
                "`fill_()` with a number as its value (`fill_(-1)`) runs while `fill_()` with a 0-d tensor as its "
                "value, `add_()` and `mul_()` are refused, and so is `copy_()` from a new tensor of "
                "the view's shape, from the tensor expanded or from an `expand()` of its clone; `copy_()` from the "
                "same `expand()` of the same tensor, made again, runs. A view whose windows overlap also has elements "
                "that share memory, with no stride of 0, and `mul_()` and `add_()` on it are not refused: on "
                "`torch.arange(1., 5.)`, `unfold(0, 2, 1).mul_(10)` and `as_strided((2, 2), (1, 1)).add_(1)` run and "
                "reach a shared element once per view element that maps to it, giving `[10., 200., 300., 40.]` and "
                "`[2., 4., 4., 4.]`. The probe's source is a non-leaf, `x.clone()` "
                "of a leaf `x`; on a leaf that requires grad, every result of both tables that autograd records as a "
                "view refuses the same edit with grad mode on, outside `torch.inference_mode()`, and takes it under "
                "`torch.no_grad()`, where the edit reaches the source. On a non-leaf such as the probe's, "
                "`a = x.clone()` of `x = torch.arange(1., 5., requires_grad=True)`, `a.unfold(0, 2, 1).mul_(10)` "
                "runs even with grad mode on, and `backward()` through it gives a wrong gradient with no error or "
                "warning: `a` becomes `x * torch.tensor([10., 100., 100., 10.])`, whose sum gives `x.grad` "
                "`[10., 100., 100., 10.]`, yet `a.sum().backward()` gives `[10., 10., 10., 10.]`.",
            "zh_CN": "在梯度模式（grad mode）下（指修改执行时的梯度模式：在梯度模式下对输出 `o` 调用 "
                "`torch.nn.init.zeros_(o)`，它是在关闭梯度模式后写入的）、`torch.inference_mode()` 之外，"
                "源张量需要梯度、"
                "又不是推理张量（inference tensor）时，`unbind()`、`split()`、`split_with_sizes()` 或 `chunk()` "
                "的每个输出一做原地（in-place）操作就报错，"
                "调用只返回一个视图时也是如此，只是表中只测了第一个输出；在 `torch.inference_mode()` 里，即使用 "
                "`torch.enable_grad()` 打开梯度模式，修改也照常执行。对需要梯度的推理张量（比如在 "
                "`torch.inference_mode()` 里构建的模块的参数），在模式外这样修改也会报错，但要等写入之后才报。"
                "这四个函数一次调用返回的所有视图，在自动求导中挂在同一个节点上。"
                "所以一旦某个输出与源张量共享的版本计数器（version counter）"
                "推进（对源张量、对这个输出或对另一个输出调用 `mul_()` 都会推进它，"
                "即使在 `torch.no_grad()` 下也一样），"
                "在梯度模式下对这个输出取副本（`o.clone()`）、取视图（`o.view(-1)`、`o[0]`）或拿它运算（`o * 2`），"
                "都会抛出 `RuntimeError`：请在修改之后重新取这些输出。"
                "`tensor_split()`、`hsplit()` 和 `vsplit()` 也返回多个视图，但每个视图各有自己的节点"
                "（`SliceBackward0`），探测程序做的原地修改 `fill_(-1)` 它们都允许，两张表中其余各行在操作本身"
                "能执行的地方也都允许（`view(4, 3)` 和 `view_as(torch.empty(4, 3))` 在不连续的源张量上操作本身就"
                "报错，不做这个修改）；"
                "CPU 张量的 `expand()` 视图若把长度为 1 的维或新增的维扩展成多个元素，"
                "就有多个元素落在同一个内存位置上（步长为 0）；"
                "在它上面，用数值调用 `fill_()`（`fill_(-1)`）可以执行，用零维张量调用 `fill_()` 以及调用 "
                "`add_()` 和 `mul_()` 都会被拒绝；"
                "`copy_()` 的来源若是与视图形状相同的新张量、被扩展的原张量，或原张量克隆后的 `expand()`，"
                "也会被拒绝，来源若是对同一个张量再做一次同样的 "
                "`expand()`，`copy_()` 则可以执行。窗口相互重叠的视图也有元素共享内存，但没有为 0 的步长，"
                "对它调用 `mul_()` 和 `add_()` 不会被拒绝：对 `torch.arange(1., 5.)` 执行 "
                "`unfold(0, 2, 1).mul_(10)` 和 `as_strided((2, 2), (1, 1)).add_(1)` "
                "都照常运行，共享的元素对应视图里几个元素，就被修改几次，结果分别是 `[10., 200., 300., 40.]` 和 "
                "`[2., 4., 4., 4.]`。探测程序的源张量是非叶子张量，即叶子张量（leaf tensor）`x` 的 "
                "`x.clone()`；若源张量是需要梯度的叶子张量，两张表中自动求导记作视图的每个结果，"
                "在梯度模式下、`torch.inference_mode()` 之外都会拒绝同样的修改，在 `torch.no_grad()` 下则照常执行，"
                "修改落到源张量上。在探测程序那样的非叶子张量上，即 `x = torch.arange(1., 5., requires_grad=True)` "
                "的 `a = x.clone()`，`a.unfold(0, 2, 1).mul_(10)` 即使在梯度模式下也照常执行，之后经过它的 "
                "`backward()` 给出错误的梯度，既不报错也没有警告：`a` 变为 "
                "`x * torch.tensor([10., 100., 100., 10.])`，对它求和再反向传播，`x.grad` 是 "
                "`[10., 100., 100., 10.]`，`a.sum().backward()` 给出的却是 `[10., 10., 10., 10.]`。",
        },
        _multi_output,
        facts=("multi-view-outputs-share-one-node", "split-output-edit-breaks-clone", "expand-inplace-write-refused",
               "overlapping-window-views-take-writes", "leaf-source-views-refuse-inplace",
               "view-inplace-refused-outside-inference-mode", "overlapping-window-edit-wrong-gradient"),
    ),
    Advice(
        "maybe-copy",
        {
            "en": "On a float32, float64, bfloat16, int64, bool or complex64 tensor of the default strided layout "
                "that is not nested, `reshape()`, `reshape_as()` and `flatten()` return a view when strides can "
                "express the new shape over the source's memory (when `view()` of that shape would run), and a copy "
                "otherwise; "
                "`flatten()` returns the tensor itself when there is nothing to merge (`start_dim` and `end_dim` "
                "name the same dimension of a tensor of the default strided layout with one dimension or more), as "
                "`flatten()` of a 1-d tensor and `flatten(1)` of a 2-d one do. For the "
                "shapes of the table, that is a view of the contiguous source and a copy of the non-contiguous one; "
                "other shapes give views of a non-contiguous source too (`a.reshape(3, 2, 2)` of the "
                "non-contiguous `a`, `a.t().reshape(2, 2, 3)` of the contiguous one), and writes through them reach "
                "`a`. Code must not rely on "
                "either: call `view()` where it needs a view (it raises rather than copy) and `clone()` where it "
                "needs a copy. `a.to(torch.float32)` and `a.type_as(torch.empty(0))` on the table's float32 `a`, "
                "and `a.data`, share its storage without being views for autograd (the two conversions "
                "return `a` itself), and so does `a.contiguous()` on the contiguous source, which it returns "
                "itself; on the non-contiguous one `a.contiguous()` copies. On both layouts, "
                "`a.to(torch.float64)` copies, and so does indexing with a list of Python integers or a mask.",
            "zh_CN": "对默认 strided 布局、非嵌套的 float32、float64、bfloat16、int64、bool 或 complex64 张量，"
                "`reshape()`、`reshape_as()` 和 `flatten()` 在源张量的内存上能用步长表示出新形状时"
                "（也就是同一形状的 `view()` 能执行时）返回视图，否则返回副本；对默认的 strided 布局下"
                "至少一维的张量，没有维度可合并时（`start_dim` 和 `end_dim` 是同一维），"
                "`flatten()` 返回的就是这个张量本身，"
                "比如一维张量的 `flatten()`、二维张量的 `flatten(1)`。对表中的形状，"
                "连续的源张量得到视图，不连续的得到副本；换成别的形状，不连续的源张量也会得到视图"
                "（不连续的 `a` 的 `a.reshape(3, 2, 2)`、连续的 `a` 的 `a.t().reshape(2, 2, 3)`），"
                "通过它们写入会落到 `a` 上。"
                "代码不能依赖其中任何一种结果：需要视图就调用 `view()`（不能给出视图时它会报错，而不是复制），"
                "需要副本就调用 `clone()`。"
                "对表中 float32 的 `a`，`a.to(torch.float32)`、`a.type_as(torch.empty(0))` 以及 `a.data` "
                "都与它共享存储，"
                "但在自动求导看来不是视图（这两个转换返回的都是 `a` 本身）；"
                "`a.contiguous()` 对连续的源张量也是这样，返回的就是它本身，对不连续的源张量则会复制。"
                "`a.to(torch.float64)`、用由 Python 整数组成的列表或掩码做索引，在两种布局下都会复制。",
        },
        _maybe,
        facts=("reshape-view-when-strides-allow", "reshape-view-exactly-when-view-runs",
               "flatten-unmerged-returns-itself", "noop-conversions-return-a"),
    ),
)


def _rows(t: saved_ops.Table, column: str, value: object) -> set[str]:
    return {code for code, cells in t.items() if cells[column] == value}


def _edits_follow_saves(t: saved_ops.Table) -> bool:
    def expected(cells: dict, role: str) -> str:
        return saved_ops.ERROR_AT_BACKWARD if role in cells["saves"] else saved_ops.SAME_GRADIENT

    return all(cells["edit_input"] == expected(cells, saved_ops.INPUT)
               and cells["edit_output"] == expected(cells, saved_ops.OUTPUT) for cells in t.values())


_OUTPUT_SAVERS = ("torch.exp(x)", "torch.sigmoid(x)", "torch.tanh(x)", "F.relu(x)", "torch.sqrt(x)",
                  "F.softmax(x, -1)", "F.log_softmax(x, -1)")
_NO_SAVE = ("torch.add(x, y)", "torch.sum(x)", "torch.mean(x)")
_CHECKPOINT = "checkpoint(torch.exp, x, use_reentrant=False)"


def _saves(t: saved_ops.Table, code: str) -> tuple[str, ...]:
    return t[code]["saves"]


SAVED_NOTES: tuple[Advice, ...] = (
    Advice(
        "edits-follow-saves",
        {
            "en": "In every row, an in-place edit of `x` or of the result through the tensor itself (the table's "
                "`add_(1)` under `torch.no_grad()`), made after the operation, makes "
                "`backward()` raise when the operation saved that tensor, and leaves the gradients as an unedited "
                "run gives them when it did not. The same edit made through `.data`, a NumPy array or DLPack "
                "(`t.data.add_(1)`, `+= 1` on `t.detach().numpy()`, `torch.from_dlpack(t.detach()).add_(1)`, `t` "
                "being `x` or the result) moves no version counter, "
                "so in no row does `backward()` raise: the gradients stay as an unedited run gives them when the "
                "operation did not save the tensor edited, and, when it did, silently differ from them in every row "
                "but `F.relu(x)` and `torch.abs(x)` (more such routes: {ref}`the version-counter page "
                "<questions-version-counter>`).",
            "zh_CN": "每一行都是如此：操作之后再经由张量本身原地修改 `x` 或结果（即表中在 `torch.no_grad()` 下做的 "
                "`add_(1)`），若操作保存了这个张量，`backward()` 就会报错；若没有保存，梯度与未修改时相同。"
                "换成经由 `.data`、NumPy 数组或 DLPack 做同样的修改（`t.data.add_(1)`、对 `t.detach().numpy()` 做 "
                "`+= 1`、`torch.from_dlpack(t.detach()).add_(1)`，`t` 是 `x` 或结果），版本计数器不会变，"
                "所以没有哪一行的 `backward()` 会报错："
                "操作没有保存被修改的张量时，梯度与未修改时相同；保存了时，除 `F.relu(x)` 和 `torch.abs(x)` 外，"
                "每一行的梯度都与未修改时不同，却没有任何提示（更多这样的途径见"
                "{ref}`“版本计数器”那一页 <questions-version-counter>`）。",
        },
        _edits_follow_saves,
        facts=("saved-table-uncounted-edits-silent",),
    ),
    Advice(
        "output-savers",
        {
            "en": "`torch.exp`, `torch.sigmoid`, `torch.tanh`, `F.relu`, `torch.sqrt`, `F.softmax` and "
                "`F.log_softmax` save their output, not their input, on float32, float64 and bfloat16 inputs of "
                "zero, one or two dimensions as on the table's `x`; so do `F.softmax` and `F.log_softmax` given "
                "`dtype=`, and `F.relu` with `inplace=True` on a non-leaf such as `x * 1`, which returns its input "
                "edited (on the table's `x`, a leaf that requires grad, it raises with grad mode on).",
            "zh_CN": "`torch.exp`、`torch.sigmoid`、`torch.tanh`、`F.relu`、`torch.sqrt`、`F.softmax` 和 "
                "`F.log_softmax` 保存的是输出，不是输入，float32、float64 和 bfloat16 的零维、一维、二维输入"
                "都是如此，表中的 `x` 也一样；"
                "传了 `dtype=` 的 `F.softmax` 和 `F.log_softmax`，以及在 `x * 1` 这样的非叶子张量上用 "
                "`inplace=True` 调用、返回修改后的输入的 `F.relu` 也一样。表中的 `x` 是需要梯度的叶子张量"
                "（leaf tensor），在梯度模式（grad mode）下对它这样调用 `F.relu` 会报错。",
        },
        lambda t: all(_saves(t, code) == (saved_ops.OUTPUT,) for code in _OUTPUT_SAVERS),
        facts=("output-savers-save-output", "relu-inplace-refused-on-table-x"),
    ),
    Advice(
        "operands",
        {
            "en": "On the table's 3×3 operands, `torch.mul`, `torch.div` and `torch.matmul` save both operands "
                "when both require grad; `torch.mul(x, c)`, with a `c` that does not, saves only `c`, and `x * 2` "
                "saves no tensor that the hooks see. A `torch.matmul` that broadcasts can save a rearranged copy of "
                "an operand instead: in grad mode, for the table's `x` and a `y` of shape (2, 3, 3) made the same "
                "way (`reshape()` of a `linspace()`), whether `y` requires grad or not, it saves "
                "`y.mT.reshape(6, 3)`, a copy of `y`'s transpose reshaped to (6, 3), so `backward()` after an "
                "in-place edit of `y` neither raises nor gives other gradients. For `y = z.mT`, with `z` made that "
                "way, `y.mT.reshape(6, 3)` shares `y`'s memory, and that `backward()` raises.",
            "zh_CN": "在表中 3×3 的操作数上，两个操作数都需要梯度时，`torch.mul`、`torch.div` 和 `torch.matmul` "
                "两个都保存；`torch.mul(x, c)` 只保存 `c`（`c` 不需要梯度）；`x * 2` 则不保存任何钩子看得到的张量。"
                "做广播的 `torch.matmul` 可能改为保存某个操作数重新排列后的副本：在梯度模式下，对表中的 `x` "
                "和用同样方法（对 `linspace()` 调用 `reshape()`）得到的、形状为 (2, 3, 3) 的 `y`，不论 `y` "
                "是否需要梯度，它保存的都是 `y.mT.reshape(6, 3)`，即 `y` 的转置改变形状为 (6, 3) 后的副本，"
                "于是原地修改 `y` 之后调用 `backward()` 既不报错，梯度也不变。若 `y = z.mT`、`z` 用同样方法得到，"
                "`y.mT.reshape(6, 3)` 就与 `y` 共享内存，这时的 `backward()` 会报错。",
        },
        lambda t: all(_saves(t, code) == (saved_ops.INPUT, saved_ops.OPERAND)
                      for code in ("torch.mul(x, y)", "torch.div(x, y)", "torch.matmul(x, y)"))
        and _saves(t, "torch.mul(x, c)") == (saved_ops.OPERAND,) and _saves(t, "x * 2") == (),
        facts=("broadcast-matmul-saves-copy",),
    ),
    Advice(
        "backward-twice",
        {
            "en": "After a first `backward()` without `retain_graph=True`, a second one runs without error only for "
                "`torch.add`, `torch.sum` and `torch.mean`, which save no tensor; every other row raises there, "
                "`x * 2` included.",
            "zh_CN": "第一次 `backward()` 不加 `retain_graph=True` 时，再调用一次 `backward()`，只有不保存张量的 "
                "`torch.add`、`torch.sum` 和 `torch.mean` 不报错；其余各行都会报错，`x * 2` 也不例外。",
        },
        lambda t: _rows(t, "backward_twice", saved_ops.NO_ERROR) == set(_NO_SAVE)
        and all(_saves(t, code) == () for code in _NO_SAVE)
        and _rows(t, "backward_twice", saved_ops.SECOND_BACKWARD_ERROR) == set(t) - set(_NO_SAVE),
    ),
    Advice(
        "checkpoint",
        {
            "en": "Inside `checkpoint(..., use_reentrant=False)` the hooks see `checkpoint` keep the input of "
                "`torch.exp` instead of its output (an edit of the output leaves the gradient as it was), so the "
                "edit that breaks `backward()` is then the input's.",
            "zh_CN": "放进 `checkpoint(..., use_reentrant=False)` 之后，钩子看到的是 `checkpoint` 替 `torch.exp` "
                "保存的输入，而不是它的输出（修改输出不改变梯度），于是让 `backward()` 报错的就变成了修改输入。",
        },
        lambda t: _saves(t, _CHECKPOINT) == (saved_ops.INPUT,) and _saves(t, "torch.exp(x)") == (saved_ops.OUTPUT,)
        and t[_CHECKPOINT]["edit_input"] == saved_ops.ERROR_AT_BACKWARD
        and t[_CHECKPOINT]["edit_output"] == saved_ops.SAME_GRADIENT,
    ),
    Advice(
        "where",
        {
            "en": "`torch.where(x > 1, x, y)` saves only its condition, another tensor: neither edit breaks "
                "`backward()`.",
            "zh_CN": "`torch.where(x > 1, x, y)` 只保存条件，也就是另一个张量：两种修改都不会让 `backward()` 报错。",
        },
        lambda t: _saves(t, "torch.where(x > 1, x, y)") == (saved_ops.OTHER,)
        and t["torch.where(x > 1, x, y)"]["edit_input"] == t["torch.where(x > 1, x, y)"]["edit_output"]
        == saved_ops.SAME_GRADIENT,
        facts=("saved-other-tensors-of-layer-norm-and-where",),
    ),
)
