"""The behaviour matrix's guide, "which one should I use?", and the matrix as plain text.

Each entry of the guide states advice in every edition's language and rests on premises that read the probed
matrix (:mod:`tensorfacts.probes`) and on named facts (:mod:`tensorfacts.facts`); the site's ``behaviour-matrix``
directive renders the tables and fails the build when a premise breaks. ``python -m tensorfacts --matrix``
(:mod:`tensorfacts.cli`) prints the matrix as plain text.
"""

from __future__ import annotations

from tensorfacts.advice import FACT_EXPRESSIONS, Advice  # noqa: F401 (the guide's API: decisions and tests read them)
from tensorfacts.avoid_data_advice import AVOID_DATA_TEXTS
from tensorfacts.facts import run_fact
from tensorfacts.inference_advice import INFERENCE_TEXTS
from tensorfacts.matrix_reads import edits, everywhere, no_counter, refused, row, same_row
from tensorfacts.probes import (
    EDIT_COLUMNS,
    EDIT_DETECTED,
    EDIT_NO_GRAPH,
    EDIT_REFUSED,
    EDIT_SILENT,
    EDIT_UNAFFECTED,
    INFERENCE_EDIT,
    OPERATIONS,
    REFUSALS,
    WRITES,
    Matrix,
)
from tensorfacts.standard_sources import GRAD_SOURCES, SOURCES, VERSIONED_SOURCES

GUIDE: tuple[Advice, ...] = (
    Advice(
        "independent-copy",
        {
            "en": "For an independent copy with no autograd history, use `a.detach().clone()`: it has its own "
                "storage and its own version counter (an inference tensor `a` made inside `torch.inference_mode()` "
                "has no version counter at all, here and in every entry below), no `grad_fn`, `requires_grad=False`, "
                "raises no warning, and an in-place edit of it, with or without `torch.no_grad()`, leaves the "
                "gradient of `a` alone. `with torch.no_grad(): a.clone()` gives the same row.",
            "zh_CN": "要一份与源张量无关、也不带求导历史的副本，就用 `a.detach().clone()`。它有自己的存储和版本计数"
                "器（version counter），没有 `grad_fn`，`requires_grad=False`，也不会触发警告；无论是否在 "
                "`torch.no_grad()` 下原地（in-place）修改它，`a` 的梯度都不受影响。在 `torch.inference_mode()` 内"
                "得到的推理张量（inference tensor）`a` 根本没有版本计数器，这里和下面各条都是如此。表中 `with "
                "torch.no_grad(): "
                "a.clone()` 那一行与它完全相同。",
        },
        lambda m: everywhere(m, "a.detach().clone()", same_object=False, shares_storage=False,
                              requires_grad=False, grad_fn="None", raised="")
        and everywhere(m, "a.detach().clone()", VERSIONED_SOURCES, shares_version=False)
        and no_counter(m, "a.detach().clone()")
        and edits(m, "a.detach().clone()", EDIT_UNAFFECTED)
        and same_row(m, "with torch.no_grad(): a.clone()", "a.detach().clone()"),
    ),
    Advice(
        "clone-detach-same",
        {
            "en": "`a.clone().detach()` gives the same result in every column.",
            "zh_CN": "`a.clone().detach()` 在表中每一列都与它相同。",
        },
        lambda m: same_row(m, "a.clone().detach()", "a.detach().clone()"),
    ),
    Advice(
        "copy-in-graph",
        {
            "en": "For a copy that gradients still flow back through, use `a.clone()`, with grad mode on, outside "
                "`torch.inference_mode()`, on a tensor that requires grad: its own storage and version counter, "
                "`requires_grad=True` and a `CloneBackward0` node. `torch.empty_like(a).copy_(a)` does the same "
                "through `CopyBackwards`, and so, on a float32 `a` like the sources here, does `a.double()`, through "
                "`ToCopyBackward0` (it also changes the dtype; on a float64 `a` it returns `a` itself, no copy). For a "
                "strided inference tensor `a` made with `requires_grad=True` (a parameter of a module built inside "
                "`torch.inference_mode()`), the nodes of `a.clone()` and `a.double()` are `CopyBackwards` instead; of "
                "a sparse, nested or mkldnn inference tensor that requires grad, on the CPU, `a.clone()` does not "
                "require grad and has no node. One exception is a view of a tensor that requires grad taken under "
                "`torch.no_grad()` or `torch.set_grad_enabled(False)`, or inside `torch.inference_mode()` even with "
                "`torch.enable_grad()`, or a view of such a view. It still requires grad, so its copy by any of these "
                "three calls (`a.double()` on a float32 view) has the node too, yet no gradient reaches its base. That "
                "is not a matter of copying: for `v = w[1:]` of a `w` that requires grad, taken under "
                "`torch.no_grad()`, `torch.set_grad_enabled(False)` or `torch.inference_mode()`, `v * 2`, `v.exp()` "
                "and `v[[0, 1]]` pass `w` no gradient either. Nor does a gradient reach the view itself, unless "
                "`requires_grad_()` was called on it before its copy, or a view of it, was taken; the copy of a view "
                "of it taken in one of these ways passes it no gradient even then. Not every view is such an "
                "exception: a view made by an operation autograd does not record in grad mode (`detach()`, "
                "`view(dtype)` or a sparse tensor's `indices()`, for example), a view of an inference tensor, and a "
                "view taken in these ways of a view made a leaf with `requires_grad_()` do not require grad. Such a "
                "view, and an output of `unbind()`, `split()`, `split_with_sizes()` or `chunk()` of a tensor that "
                "requires grad, taken with grad mode on, break once the version counter they share with their base "
                "moves (as it does after `mul_()` on them, on their base or on another view of it, even under "
                "`torch.no_grad()`, or after a step of `torch.optim.SGD` on the base): from then on, with grad mode "
                "on, their clone raises a `RuntimeError`, and for those outputs the other two copies raise too. A "
                "write that moves no version counter (a step of an optimizer made with `fused=True`, or a write "
                "through `.data` or NumPy) leaves them as they were.",
            "zh_CN": "要一份副本、梯度又要传回 `a`，就在梯度模式（grad mode）下、`torch.inference_mode()` 之外，"
                "对需要梯度的张量用 `a.clone()`：它有自己的存储和版本计数器，"
                "`requires_grad=True`，带一个 `CloneBackward0` 节点。"
                "`torch.empty_like(a).copy_(a)` 效果相同，节点是 `CopyBackwards`；这里的 `a` "
                "是 float32 张量，`a.double()` 也一样，节点是 `ToCopyBackward0`"
                "（同时改变了 dtype；`a` 本来就是 float64 的话，它返回 `a` 本身，不复制）。"
                "对用 `requires_grad=True` 创建的 strided 推理张量 `a`（比如在 "
                "`torch.inference_mode()` 里构建的模块的参数），`a.clone()` 和 `a.double()` 的节点则都是 "
                "`CopyBackwards`；对需要梯度的稀疏、嵌套或 mkldnn 推理张量，在 CPU 上 `a.clone()` 不需要梯度，"
                "也没有节点。"
                "一个例外是在 `torch.no_grad()` 或 `torch.set_grad_enabled(False)` 下，或在 `torch.inference_mode()` 里"
                "（即使开了 `torch.enable_grad()`）对需要梯度的张量取的视图（view），以及这种视图的视图。"
                "它仍然需要梯度，所以用这三种调用中的任何一种得到的副本（对 float32 的视图才用 `a.double()`）"
                "也带节点，梯度却到不了取视图的那个张量。这与复制无关：对需要梯度的 `w`，在 `torch.no_grad()`、"
                "`torch.set_grad_enabled(False)` 或 `torch.inference_mode()` 下取 `v = w[1:]`，`v * 2`、`v.exp()` "
                "和 `v[[0, 1]]` 同样不把梯度传给 `w`。梯度也到不了这个视图本身，除非在取它的副本或它的视图之前"
                "就对它调用了 `requires_grad_()`；如果它的视图也是用这些方式取的，那个视图的副本即使这样也不把梯度"
                "传给它。并非所有视图都是这样的例外：取法在梯度模式下不被自动求导（autograd）记录的视图（比如 "
                "`detach()`、`view(dtype)`、稀疏张量的 `indices()`）、推理张量的视图，以及用这些方式对用 "
                "`requires_grad_()` 变成叶子张量（leaf tensor）的视图取的视图，都不需要梯度。"
                "这样的视图，以及在梯度模式下对需要梯度的张量调用 `unbind()`、`split()`、`split_with_sizes()` 或 "
                "`chunk()` 得到的输出，一旦它们与取视图的那个张量共享的版本计数器推进，就不能再这样用了"
                "（对它们、对取视图的那个张量或它的另一个视图调用 `mul_()`，即使在 `torch.no_grad()` 下，"
                "或者对取视图的那个张量执行一步 `torch.optim.SGD`，都会推进这个计数器）：此后在梯度模式下取它们的副本会"
                "抛出 `RuntimeError`，对那四个函数的输出，另外两种复制方式也一样。不推进版本计数器的写入"
                "（用 `fused=True` 构造的优化器的一步，或经由 `.data` 或 NumPy 的写入）让它们保持原样。",
        },
        lambda m: all(
            everywhere(m, op, GRAD_SOURCES, shares_storage=False, shares_version=False,
                        requires_grad=True, grad_fn=node)
            for op, node in (("a.clone()", "CloneBackward0"),
                             ("torch.empty_like(a).copy_(a)", "CopyBackwards"), ("a.double()", "ToCopyBackward0"))),
        facts=("copy-in-graph-passes-gradient", "double-of-float64-is-a", "inference-tensor-requiring-grad",
               "inference-leaf-clone-in-graph", "clone-of-no-grad-view-passes-no-gradient",
               "copy-of-no-grad-view-passes-no-gradient", "no-grad-view-operations-pass-no-gradient",
               "inference-mode-grad-on-records-no-node", "no-grad-view-edit-breaks-clone",
               "split-output-edit-breaks-clone"),
    ),
    Advice(
        "detach-view",
        {
            "en": "To read the values without autograd and without copying, use `a.detach()`. It shares "
                "storage and the version counter with `a`: edit it in place after autograd saved `a`, even "
                "under `torch.no_grad()`, and a backward that runs the node that saved `a` raises an error. It "
                "does not catch every edit made after autograd saved `a`; for example:\n"
                "- a write to `a`'s memory by a route that goes around `a`'s version counter (through no tensor "
                "that shares it), such as `a.detach().data`, NumPy or DLPack: backward raises nothing and can return a "
                "wrong gradient (with `(a * a).sum()` it does);\n"
                "- an edit by `apply_` or `map_`, even through `a.detach()` itself: again no error, and the gradient "
                "can be wrong;\n- an edit after autograd saved `a` under saved-tensor hooks such as "
                "`torch.autograd.graph.save_on_cpu()`, or after a custom `torch.autograd.Function` kept `a` as "
                "`ctx.x = a`, or saved it but has a `backward` that never reads `ctx.saved_tensors`: backward "
                "raises nothing;\n"
                "- a write by a torch kernel that moves no version counter, such as a step of an optimizer made "
                "with `fused=True` or `torch.amp.GradScaler.unscale_` on a gradient (when `a` is a `.grad` that "
                "autograd saved).\n"
                "Which edits move the version counter and which do not, each one run: {ref}`the version-counter page "
                "<questions-version-counter>`. An edit through `a.detach()` made before autograd saves `a` raises "
                "nothing: backward treats it as a constant and returns what the same edit under `torch.no_grad()` "
                "gives (for a tenfold edit, what `a + (9 * a).detach()` gives); when the edit reaches the leaf itself "
                "(a leaf, a `Parameter`, a view of a leaf), that is the gradient at the edited values. Autograd can "
                "save `a` as soon as it is made, though: an operation that saves its output, such as `torch.exp()` "
                "(see {ref}`the table of what operations save <saved-ops-table>`), saves the non-leaf it makes, and "
                "for `a = x.exp()` the same edit makes `backward()` raise.",
            "zh_CN": "只想读取数值，既不求导也不复制，就用 `a.detach()`。它与 `a` 共享存储和版本计数器："
                "自动求导保存了 `a` 之后再原地修改 `a.detach()`，即使在 `torch.no_grad()` 下，"
                "运行到保存了 `a` 的那个节点的反向传播也会报错。"
                "但自动求导保存了 `a` 之后的修改，它并不都能察觉，例如：\n"
                "- 绕开 `a` 的版本计数器写入 `a` 的内存（不经过任何与它共享版本计数器的张量），比如经由 "
                "`a.detach().data`、NumPy 或 DLPack 写入：反向传播不报错，梯度可能出错（`(a * a).sum()` 就错了）；\n"
                "- 用 `apply_` 或 `map_` 修改，即使经由 `a.detach()` 本身：同样不报错，梯度可能是错的；\n"
                "- 自动求导在 `torch.autograd.graph.save_on_cpu()` 这类保存张量的钩子（saved tensors hooks）下保存了"
                " `a`，或者自定义的 `torch.autograd.Function` 用 `ctx.x = a` 留下了 `a`，或者保存了 `a` 而它的 "
                "`backward` 从不读取 `ctx.saved_tensors`，之后再修改：反向传播不报错；\n"
                "- 由不推进版本计数器的 torch 内核完成的原地写入，比如 fused 优化器（`fused=True`）的一步、"
                "`torch.amp.GradScaler.unscale_` 对梯度的修改（`a` 是自动求导保存过的 `.grad` 时）。\n"
                "哪些修改推进版本计数器、哪些不推进，逐一运行的结果见"
                "{ref}`“版本计数器”那一页 <questions-version-counter>`。"
                "在自动求导保存 `a` 之前经由 `a.detach()` 做的修改则不会报错：反向传播把它当作常数，"
                "结果与在 `torch.no_grad()` 下做同样的修改相同（放大十倍时，与 `a + (9 * a).detach()` 相同）；"
                "如果修改落到了叶子张量本身，比如叶子张量、`Parameter` 或叶子张量的视图，"
                "这就是按修改后的数值算出的梯度。不过自动求导可能在得到 `a` 的同时就保存了它：保存输出的操作，"
                "比如 `torch.exp()`（见{ref}`“各操作保存了哪些张量”那一页的表格 <saved-ops-table>`），"
                "会保存它得到的非叶子张量；对 `a = x.exp()` 做同样的修改，`backward()` 就会报错。",
        },
        lambda m: everywhere(m, "a.detach()", shares_storage=True, requires_grad=False, grad_fn="None")
        and everywhere(m, "a.detach()", VERSIONED_SOURCES, shares_version=True)
        and no_counter(m, "a.detach()")
        and edits(m, "a.detach()", EDIT_DETECTED),
        facts=("detach-edit-before-save", "detach-edit-of-saved-output-detected", "detach-write-routes",
               "saved-tensor-hooks-hide-edit",
               "version-check-only-in-nodes-run", "ctx-attribute-escapes-version-check",
               "unread-saved-tensors-escape-version-check", "fused-optimizer-step-not-counted",
               "kernel-writes-not-counted"),
    ),
    Advice(
        "view",
        {
            "en": "A view such as `a.view(3)` is not a copy either: it shares storage and the version counter with `a` "
                "and, when `a` is a normal tensor that requires grad and grad mode is on, outside "
                "`torch.inference_mode()`, stays in the graph (`ViewBackward0`), unless `a` is a view whose counter "
                "moved as the entry on `a.clone()` says (taking a view of it raises). Not when `a` is an inference "
                "tensor made with `requires_grad=True` (as above): its views, taken outside the mode, do not require "
                "grad, and a gradient through them never reaches `a`; whether a loss that uses them raises, in "
                "`backward()` or already in the forward pass, depends on the rest of the loss (the cases run are "
                "listed under \"Source: a view of a leaf\" below). Inside `torch.inference_mode()`, even with "
                "`torch.enable_grad()`, a view of a normal `a` has no `grad_fn`, and `a.clone()`, "
                "`torch.empty_like(a).copy_(a)` and, unless `a` is already float64 (then it returns `a` itself), "
                "`a.double()` are inference tensors with no node: no gradient reaches `a`. A view of a normal leaf "
                "that requires grad, one that autograd records, refuses in-place edits with grad mode on as the edit "
                "runs (`torch.nn.init.zeros_(a[0])`, called with grad mode on, writes with it off), outside "
                "`torch.inference_mode()` (inside it, even with `torch.enable_grad()`, and under `torch.no_grad()` or "
                "`torch.set_grad_enabled(False)` it accepts them, unless torch refuses the edit in every mode, as it "
                "refuses `mul_()` on an `expand()` view of a CPU tensor, whose stride of 0 puts several elements at "
                "one memory location, though not on an `unfold()` view, whose overlapping windows share elements too: "
                "`unfold(0, 2, 1).mul_(10)` of `torch.arange(1., 5., requires_grad=True).clone()` runs even with grad "
                "mode on, and `backward()` through it gives a wrong gradient without an error), and so does `b = a` "
                "when `a` is itself such a view. The dtype form `a.view(dtype)` is no such view: it requires no grad, "
                "has no `grad_fn`, and takes in-place edits with grad mode on without adding an autograd node, even "
                "when `a` is a leaf that requires grad; it still shares `a`'s version counter, so such an edit after "
                "autograd saved `a` makes `backward()` raise.",
            "zh_CN": "`a.view(3)` 这样的视图也不是副本：它与 `a` 共享存储和版本计数器；`a` 是需要梯度的普通张量，且视图"
                "是在梯度模式下、`torch.inference_mode()` 之外取的时，它还留在计算图中（`ViewBackward0`），除非 `a` 是"
                "讲 `a.clone()` 的那一条所说的、计数器已推进的视图（对它取视图会报错）。`a` 若是用 "
                "`requires_grad=True` 创建的推理张量（同上），则不然：在模式外对它取的视图不需要梯度，经过这些视图的梯"
                "度到不了 `a`；用到它们的损失会不会报错（在 `backward()` 里，或者早在前向传播时），取决于损失里的其他部"
                "分（试过的情形列在下面“源张量：叶子张量的视图”一节）。在 `torch.inference_mode()` 里，即使用 "
                "`torch.enable_grad()` 打开了梯度模式，普通张量 `a` 的视图也没有 `grad_fn`，`a.clone()`、"
                "`torch.empty_like(a).copy_(a)` 和 `a.double()`（`a` 本来就是 float64 时它返回 `a` 本身，不在此列）也都"
                "是没有节点的推理张量，梯度到不了 `a`。需要梯度的普通叶子张量的视图，只要是自动求导记录下来的，在梯度模"
                "式下（指修改执行时的梯度模式：在梯度模式下调用 `torch.nn.init.zeros_(a[0])`，它是在关闭梯度模式后写入"
                "的）、`torch.inference_mode()` 之外一做原地修改就会报错（在 `torch.inference_mode()` 里，即使用 "
                "`torch.enable_grad()` 打开梯度模式，以及在 `torch.no_grad()` 或 `torch.set_grad_enabled(False)` 下，则"
                "可以修改，除非这个修改在任何模式下都会被拒绝：比如 CPU 张量的 `expand()` 视图靠为 0 的步长让多个元素落"
                "在同一个内存位置上，对它调用 `mul_()` 就是如此；`unfold()` 视图的窗口相互重叠，也有元素共享内存，对它"
                "调用 `mul_()` 却照常执行：对 `torch.arange(1., 5., requires_grad=True).clone()` 做 "
                "`unfold(0, 2, 1).mul_(10)`，即使在梯度模式下也照常执行，之后经过它的 `backward()` 给出错误的梯度，却不"
                "报错）；如果 `a` 本身就是这样的视图，`b = a` 也一样。dtype 形式的 `a.view(dtype)` 不是这样的视图：它不"
                "需要梯度，没有 `grad_fn`，即使 `a` 是需要梯度的叶子张量，在梯度模式下也照常接受原地修改，不产生自动求"
                "导节点；但它与 `a` 共享版本计数器，自动求导保存了 `a` 之后这样修改，`backward()` 会报错。",
        },
        lambda m: everywhere(m, "a.view(3)", shares_storage=True)
        and everywhere(m, "a.view(3)", VERSIONED_SOURCES, shares_version=True)
        and no_counter(m, "a.view(3)")
        and everywhere(m, "a.view(3)", GRAD_SOURCES, grad_fn="ViewBackward0")
        and all(row(m, s, "a.view(3)")["inplace_edit"] == EDIT_REFUSED for s in ("leaf", "parameter", "view"))
        and row(m, "view", "b = a")["inplace_edit"] == EDIT_REFUSED,
        facts=("leaf-view-inplace-refused-in-grad-mode", "overlapping-window-views-take-writes",
               "overlapping-window-edit-wrong-gradient", "inference-tensor-requiring-grad",
               "inference-mode-grad-on-records-no-node", "view-inplace-refused-outside-inference-mode",
               "no-grad-view-edit-breaks-clone", "split-output-edit-breaks-clone"),
    ),
    Advice(
        "avoid-data",
        AVOID_DATA_TEXTS,
        lambda m: all(everywhere(m, op, shares_storage=True)
                      and everywhere(m, op, VERSIONED_SOURCES, shares_version=False)
                      for op in ("a.data", "copy.copy(a)"))
        and no_counter(m, "a.data", "copy.copy(a)")
        and edits(m, "a.data", EDIT_SILENT)
        and all(row(m, s, "copy.copy(a)")["inplace_edit_no_grad"] == EDIT_SILENT for s in GRAD_SOURCES),
        facts=("copy-copy-of-strided-nested-shares-counter", "copy-copy-raises-on-some-tensors",
               "copy-copy-sparse-coo-edit-by-operation"),
    ),
    Advice(
        "alias",
        {
            "en": "`b = a` copies nothing: `b` is the same object as `a`.\n"
                "- So are `torch.as_tensor(a)` (with no default device set) and `a.float()` on a float32 tensor "
                "(likewise `a.to(torch.float32)`, and, called without arguments and whatever the dtype and layout, "
                "`a.cpu()` on a CPU tensor and `a.contiguous()` on a contiguous tensor, a `meta` one included).\n"
                "- An in-place edit of `b` under `torch.no_grad()` is an edit of `a`: a backward that runs the node "
                "which saved `a` raises.\n"
                "- That backward raises nothing when `a` was saved through saved-tensor hooks, kept as a custom "
                "`Function`'s attribute, or saved by a custom `Function` whose `backward` never reads "
                "`ctx.saved_tensors`.\n"
                "- Nor does it when the edit is made by a kernel that moves no version counter, such as a step of an "
                "optimizer made with `fused=True`, `torch.amp.GradScaler.unscale_` on a gradient, a `BatchNorm` "
                "layer's update of `running_mean` and `running_var`.\n"
                "- Nor after `apply_` or `map_`, which move no version counter: a tensor that requires grad refuses "
                "them, but autograd also saves tensors that do not (`x` in `x * w`).\n"
                "- If `a` is an inference tensor made inside `torch.inference_mode()` that does not require grad, an "
                "edit such as `b.mul_(10)` itself raises, and yet `a` has changed (`apply_` and `map_` edit it without "
                "an error). The `detach()` and `.data` of such a tensor, taken outside the mode, are inference tensors "
                "too, yet `mul_` on them runs without an error: see the entry on inference tensors below.",
            "zh_CN": "`b = a` 什么也没有复制：`b` 和 `a` 就是同一个对象。\n"
                "- 未设置默认设备时的 `torch.as_tensor(a)`、对 float32 张量调用 `a.float()` 也是如此"
                "（`a.to(torch.float32)` 同样返回 `a` 本身；不论 dtype 和布局是什么，不带参数地对 CPU 张量调用 "
                "`a.cpu()`、对连续张量（`meta` 张量也算）调用 `a.contiguous()`，也都返回 `a` 本身）。\n"
                "- 在 `torch.no_grad()` 下原地修改 `b`，就是在修改 `a`："
                "如果自动求导保存过 `a`，反向传播一走到保存 `a` 的节点就会报错。\n"
                "- 如果 `a` 是经由保存张量的钩子保存的，或者被自定义 `Function` 存成了属性，或者被 `backward` 从不读取 "
                "`ctx.saved_tensors` 的自定义 `Function` 保存，反向传播不报错。\n"
                "- 修改由不推进版本计数器的内核完成时，也不报错，比如 fused 优化器（`fused=True`）的一步、"
                "`torch.amp.GradScaler.unscale_` 对梯度的修改、`BatchNorm` 层对 `running_mean` 和 `running_var` "
                "的更新。\n"
                "- 用 `apply_` 或 `map_` 修改也不推进版本计数器，同样不报错：需要梯度的张量拒绝这两个方法，"
                "但自动求导也会保存不需要梯度的张量（`x * w` 中的 `x`）。\n"
                "- 如果 `a` 是在 `torch.inference_mode()` 内得到的、不需要梯度的推理张量，`b.mul_(10)` 这样的修改本身"
                "就会报错，可 `a` 的值还是变了（用 `apply_` 和 `map_` 修改则不报错）。在模式外对这种张量取的 "
                "`detach()` 和 `.data` 也是推理张量，对它们调用 `mul_` 却不报错，见下面讲推理张量的那一条。",
        },
        lambda m: all(everywhere(m, op, same_object=True)
                      for op in ("b = a", "torch.as_tensor(a)", "a.float()"))
        and all(row(m, s, "b = a")["inplace_edit_no_grad"] == EDIT_DETECTED for s in GRAD_SOURCES)
        and refused(m, "inference", "b = a", "inplace_edit_no_grad", INFERENCE_EDIT, changed=True),
        facts=("noop-conversions-return-a", "default-device-makes-as-tensor-copy", "version-check-only-in-nodes-run",
               "saved-tensor-hooks-hide-edit", "ctx-attribute-escapes-version-check",
               "unread-saved-tensors-escape-version-check", "fused-optimizer-step-not-counted",
               "kernel-writes-not-counted", "apply-map-not-counted",
               "inference-tensor-apply-map-outside-no-error", "inference-tensor-inplace-outside-raises-yet-writes",
               "inference-tensor-alias-edit-routes"),
    ),
    Advice(
        "torch-tensor",
        {
            "en": "Do not pass a tensor to `torch.tensor()`: it warns (`UserWarning`) and suggests "
                "`detach().clone()`, whose row it matches in every column but \"warning or error\".",
            "zh_CN": "不要把张量传给 `torch.tensor()`：它会发出 `UserWarning`，建议改用 `detach().clone()`；"
                "除“警告或报错”一列外，两者在表中的结果一致。",
        },
        lambda m: all(
            str(row(m, s, "torch.tensor(a)")["raised"]).startswith("UserWarning")
            and "detach().clone()" in str(row(m, s, "torch.tensor(a)")["raised"])
            for s in SOURCES) and same_row(m, "torch.tensor(a)", "a.detach().clone()", ("raised",)),
    ),
    Advice(
        "deepcopy",
        {
            "en": "`copy.deepcopy(a)` copies the table's tensors that have no `grad_fn` (a leaf, a `Parameter`, a "
                "tensor that does not require grad, an inference tensor).\n"
                "- On a non-leaf, a view of a leaf taken with grad mode on included, it raises `RuntimeError`.\n"
                "- Having no `grad_fn` is not enough. It raises `RuntimeError` on a `torch.Tensor` leaf whose "
                "`.grad` has a `grad_fn` (as after `backward(create_graph=True)`; a `Parameter` copies, without "
                "`.grad`) and on an instance of a plain subclass (`class T(torch.Tensor): pass`), and "
                "`NotImplementedError` on a nested tensor of the default `torch.strided` layout, a sparse CSR, CSC, "
                "BSR or BSC tensor and an mkldnn tensor; a `torch.jagged` nested tensor and a sparse COO tensor copy.\n"
                "- It gives new storage and keeps `requires_grad` and the class: a `Parameter` stays a `Parameter`.\n"
                "- What it does with `.grad` depends on the class: the copy of a `torch.Tensor` gets a copy of its "
                "`.grad`, the copy of a `Parameter` has none (`.grad` is `None`), and so has every parameter of a "
                "deep-copied model.\n"
                "- For a view of a CPU tensor that does not require grad (without the conjugate or negative bit), "
                "such as `base[:2]` of 1000 elements, it copies the whole storage behind it (4000 bytes), where "
                "`clone()` copies only the view's elements (8 bytes).",
            "zh_CN": "表中没有 `grad_fn` 的张量（叶子张量、`Parameter`、不需要梯度的张量、推理张量）都能用 "
                "`copy.deepcopy(a)` 复制。\n"
                "- 对非叶子张量（包括在梯度模式下取的叶子张量的视图）会抛出 `RuntimeError`。\n"
                "- 没有 `grad_fn` 还不够。`.grad` 带 `grad_fn` 的 `torch.Tensor` 叶子张量"
                "（比如调用 `backward(create_graph=True)` 之后；`Parameter` 则能复制，副本没有 `.grad`）"
                "和普通子类（`class T(torch.Tensor): pass`）的实例会让它抛出 `RuntimeError`；"
                "默认 `torch.strided` 布局的嵌套张量、CSR、CSC、BSR 或 BSC 稀疏张量和 mkldnn 张量"
                "会让它抛出 `NotImplementedError`；`torch.jagged` 布局的嵌套张量和 COO 稀疏张量则能复制。\n"
                "- 它分配新的存储，保留 `requires_grad` 和类型：`Parameter` 复制后仍是 `Parameter`。\n"
                "- `.grad` 复不复制要看类型：`torch.Tensor` 的副本会得到一份 `.grad` 的副本，`Parameter` 的副本则没有"
                "（`.grad` 为 `None`），深拷贝整个模型时，每个参数也都是如此。\n"
                "- 对不需要梯度的 CPU 张量的视图，只要不带共轭位（conjugate bit）或负号位（negative bit），"
                "例如 1000 个元素的张量的 `base[:2]`，"
                "它复制的是视图背后的整块存储（4000 字节），而 `clone()` 只复制视图中的元素（8 字节）。",
        },
        lambda m: all(
            row(m, s, "copy.deepcopy(a)")["raised"] == ""
            and row(m, s, "copy.deepcopy(a)")["shares_storage"] is False
            and row(m, s, "b = a")["grad_fn"] == "None"
            and row(m, s, "copy.deepcopy(a)")["requires_grad"] == row(m, s, "b = a")["requires_grad"]
            and row(m, s, "copy.deepcopy(a)")["type"] == row(m, s, "b = a")["type"]
            for s in ("leaf", "parameter", "plain", "inference"))
        and row(m, "parameter", "copy.deepcopy(a)")["type"] == "Parameter"
        and all(str(row(m, s, "copy.deepcopy(a)")["raised"]).startswith("RuntimeError")
                for s in ("non-leaf", "view")),
        facts=("deepcopy-grad-by-source", "deepcopy-model-drops-grad", "deepcopy-view-copies-storage",
               "deepcopy-refuses-some-leaves"),
    ),
    Advice(
        "inference",
        INFERENCE_TEXTS,
        lambda m: no_counter(m, *(op for op in OPERATIONS if op not in WRITES))
        and all(str(row(m, "inference", op)["raised"]).startswith(f"RuntimeError: {REFUSALS[INFERENCE_EDIT]}")
                for op in WRITES)
        and all(refused(m, "inference", op, c, INFERENCE_EDIT, changed=True)
                for op in ("b = a", "a.view(3)") for c in EDIT_COLUMNS)
        and all(row(m, "inference", op)["shares_storage"] is True
                and all(row(m, "inference", op)[c] == EDIT_NO_GRAPH for c in EDIT_COLUMNS)
                for op in ("a.data", "a.detach()", "copy.copy(a)"))
        and all(row(m, "inference", op)["shares_storage"] is False
                and all(row(m, "inference", op)[c] == EDIT_NO_GRAPH for c in EDIT_COLUMNS)
                for op in ("a.clone()", "a.detach().clone()")),
        facts=("inference-tensor-apply-map-outside-no-error", "inference-mode-views-of-normal-tensor",
               "inference-tensor-inplace-outside-raises-yet-writes", "inference-tensor-has-no-version-counter",
               "inference-tensor-alias-edit-routes", "inference-tensor-alias-0d-mask-read-copies",
               "inference-tensor-uncounted-kernel-writes", "view-inplace-refused-outside-inference-mode"),
    ),
)


def failed_premises(m: Matrix, guide: tuple[Advice, ...] = GUIDE) -> list[str]:
    """Ids of the entries of ``guide`` (the matrix page's) that the probed matrix or named facts do not support."""
    failed = []
    for advice in guide:
        try:
            ok = advice.premise(m)
        except Exception:
            ok = False
        if not ok or not all(run_fact(f).holds for f in advice.facts):
            failed.append(advice.id)
    return failed

