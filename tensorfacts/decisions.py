"""The "which one do I want?" page: from a reader's need to the call, each answer resting on the matrix.

Pure Python, like :mod:`tensorfacts.matrix`, whose :class:`~tensorfacts.matrix.Advice` it reuses: an
answer is a sentence in every edition's language plus the premise it rests on, a function of the
probed matrix. The ``behaviour-matrix`` directive renders these answers with ``:guide: decide`` and
fails the build when a premise stops holding, exactly as it does for the matrix page's own guide.
The premises read only the matrix's rows; nothing here probes torch by itself.
"""

from __future__ import annotations

from tensorfacts.matrix import GUIDE, Advice
from tensorfacts.probes import EDIT_DETECTED, EDIT_SILENT, EDIT_UNAFFECTED, NO_COUNTER, Matrix, Refused
from tensorfacts.standard_sources import GRAD_SOURCES, NO_VERSION_COUNTER, SOURCES, VERSIONED_SOURCES


def _rows(m: Matrix, operation: str, sources=tuple(SOURCES), **expected: object) -> bool:
    """Every row of ``sources`` (by default every source) for ``operation`` has the ``expected`` cells.
    What autograd does with an edit is asked of the sources that require grad (``GRAD_SOURCES``)."""
    return all(m[source][operation][column] == value for source in sources for column, value in expected.items())


def _no_counter(m: Matrix, operation: str) -> bool:
    """The row of ``operation`` says, for every source with no version counter, that it has none."""
    return all(isinstance(m[s][operation]["shares_version"], Refused)
               and m[s][operation]["shares_version"].kind == NO_COUNTER for s in NO_VERSION_COUNTER)


DECISIONS: tuple[Advice, ...] = (
    Advice(
        "need-same-tensor",
        {
            "en": "Another name for the same tensor, so that edits through either are seen by both: `b = a`. "
                "Nothing is copied; `b` is the very object `a` is.",
            "zh_CN": "只想给同一个张量再起个名字，通过哪个名字修改，另一个都看得到：`b = a`。"
                "这样什么也没有复制，`b` 就是 `a` 这个对象本身。",
        },
        lambda m: _rows(m, "b = a", same_object=True, shares_storage=True),
    ),
    Advice(
        "need-read-without-graph",
        {
            "en": "The values without autograd and without copying, to read them now: `a.detach()`. "
                "It shares storage and the version counter with `a` (an inference tensor made inside "
                "`torch.inference_mode()` has no version counter at all, here and below) and does not require grad; "
                "an in-place edit of it after autograd saved "
                "`a` makes a backward that runs the saving node raise. Some kinds of edit go unseen, and backward "
                "raises nothing; for example:\n"
                "- a write by a route that goes around `a`'s version counter (through no tensor that shares it), "
                "such as `a.detach().data`, NumPy or DLPack;\n"
                "- an edit by `apply_` or `map_`, even through `a.detach()` itself;\n"
                "- an edit after autograd saved `a` under saved-tensor hooks such as "
                "`torch.autograd.graph.save_on_cpu()`, or after a custom `torch.autograd.Function` kept it as "
                "`ctx.x = a`;\n"
                "- a write by a torch kernel that moves no version counter, such as a step of an optimizer made "
                "with `fused=True` or `torch.amp.GradScaler.unscale_` on a gradient (when `a` is a `.grad` that "
                "autograd saved).\n"
                "Which edits move the version counter and which do not, each one run: "
                "{ref}`the version-counter page <questions-version-counter>`.",
            "zh_CN": "现在就读数值，不要求导也不复制：`a.detach()`。它与 `a` "
                "共享存储和版本计数器（version counter），不需要梯度。"
                "在 `torch.inference_mode()` 内得到的推理张量（inference tensor）根本没有版本计数器，"
                "这里和下面都是如此。"
                "自动求导（autograd）保存了 `a` 之后再原地（in-place）修改 `a.detach()`，"
                "反向传播一走到保存 `a` 的节点就会报错。"
                "但有几类修改，自动求导察觉不到，反向传播也不报错，例如：\n"
                "- 绕开 `a` 的版本计数器的写入（不经过任何与它共享版本计数器的张量），"
                "比如经由 `a.detach().data`、NumPy 或 DLPack 写入；\n"
                "- 用 `apply_` 或 `map_` 修改，即使经由 `a.detach()` 本身；\n"
                "- 自动求导在 `torch.autograd.graph.save_on_cpu()` 这类保存张量的钩子（saved tensors hooks）"
                "下保存了 `a`，"
                "或者自定义的 `torch.autograd.Function` 用 `ctx.x = a` 留下了 `a`，之后再修改；\n"
                "- 由不推进版本计数器的 torch 内核完成的原地写入，比如 fused 优化器（`fused=True`）的一步、"
                "`torch.amp.GradScaler.unscale_` 对梯度的修改（`a` 是自动求导保存过的 `.grad` 时）。\n"
                "哪些修改推进版本计数器、哪些不推进，逐一运行的结果见"
                "{ref}`“版本计数器”那一页 <questions-version-counter>`。",
        },
        lambda m: _rows(m, "a.detach()", same_object=False, shares_storage=True, requires_grad=False)
        and _rows(m, "a.detach()", VERSIONED_SOURCES, shares_version=True)
        and _no_counter(m, "a.detach()")
        and _rows(m, "a.detach()", GRAD_SOURCES, inplace_edit=EDIT_DETECTED),
        facts=("detach-write-routes", "saved-tensor-hooks-hide-edit", "ctx-attribute-escapes-version-check",
               "fused-optimizer-step-not-counted", "kernel-writes-not-counted"),
    ),
    Advice(
        "need-log-values",
        {
            "en": "Values to log, plot or compare later, while training goes on: a copy. `.item()` for a number "
                "(a loss), `.tolist()` for a short list, `.detach().clone()` for a tensor. Not `a.detach()`: it "
                "shares the storage of `a`, so a list of `w.detach()` kept over a training loop is a list of "
                "aliases, every entry the final `w`.",
            "zh_CN": "训练中途要留下数值，供以后写日志、画图或比较：就得复制。"
                "单个数值（比如损失）用 `.item()`，短列表用 `.tolist()`，张量用 `.detach().clone()`。"
                "不要用 `a.detach()`：它与 `a` 共享存储，"
                "训练循环中攒下的一串 `w.detach()` 都与 `w` 共享存储，每一项显示的都是 `w` 最后的值。",
        },
        lambda m: _rows(m, "a.detach()", shares_storage=True)
        and _rows(m, "a.detach().clone()", shares_storage=False),
        facts=("log-values-in-a-loop",),
    ),
    Advice(
        "need-copy-with-gradient",
        {
            "en": "New memory, with gradients still flowing back to `a`: `a.clone()`. Its own storage and, when `a` "
                "requires grad and the clone is made with grad mode on (not under `torch.no_grad()` or "
                "`torch.set_grad_enabled(False)`) and outside `torch.inference_mode()`, "
                "`requires_grad=True` and a `CloneBackward0` node that passes the gradient on (the node is "
                "`CopyBackwards` when `a` is a strided inference tensor that requires grad, such as a parameter "
                "of a module built inside `torch.inference_mode()`; of a sparse, nested or mkldnn one, on the CPU, "
                "the clone does not require grad and has no node). One exception is a view of a tensor that "
                "requires grad taken with grad mode off (under `torch.no_grad()` or "
                "`torch.set_grad_enabled(False)`) or inside `torch.inference_mode()`, even with `torch.enable_grad()`, "
                "or a view of such a view. It still "
                "requires grad, so its clone has the `CloneBackward0` node too, yet no gradient reaches its base. "
                "That is not a matter of `clone()`: for `v = w[1:]` of a `w` that requires grad, taken under "
                "`torch.no_grad()`, `torch.set_grad_enabled(False)` or `torch.inference_mode()`, `v * 2`, `v.exp()` "
                "and `v[[0, 1]]` pass `w` no gradient either. Nor does a gradient reach the view itself, unless "
                "`requires_grad_()` was called on it before its clone, or a view of it, was taken; the clone of a "
                "view of it taken in one of these "
                "ways passes it no gradient even then. Not every view is such an exception: a view made by an "
                "operation autograd does not record in grad mode (`detach()`, `view(dtype)` or a sparse tensor's "
                "`indices()`, for example), a view of an inference tensor, and a view taken in these ways of a view "
                "made a leaf with `requires_grad_()` do not require grad, so their clones have no node. Such a view, "
                "and an output of `unbind()`, `split()`, `split_with_sizes()` or `chunk()` of a tensor that requires "
                "grad, taken with grad mode on, break once the version counter they share with their base moves, as it "
                "does after `mul_()` on them, on their base or on another view of it, even under `torch.no_grad()`, "
                "or after a step of `torch.optim.SGD` on the base. From then on, with grad mode on, their clone "
                "raises a `RuntimeError` (for the outputs of those four functions, `torch.empty_like(a).copy_(a)` "
                "and `a.double()` too; an output taken again after the edit clones with `CloneBackward0`). A write "
                "that moves no version counter (a step of an optimizer made with `fused=True`, or a write through "
                "`.data` or NumPy) leaves them as they were.",
            "zh_CN": "要新的内存，梯度还要传回 `a`：`a.clone()`。它有自己的存储；如果 `a` 需要梯度，"
                "而且调用时梯度模式（grad mode）是开着的（不在 `torch.no_grad()` 或 "
                "`torch.set_grad_enabled(False)` 下），也不在 `torch.inference_mode()` 里，"
                "副本的 `requires_grad` 也是 `True`，"
                "并带有把梯度传下去的 `CloneBackward0` 节点（如果 `a` 是需要梯度的 strided 推理张量，"
                "比如在 `torch.inference_mode()` 里构建的模块的参数，节点则是 `CopyBackwards`；"
                "如果是需要梯度的稀疏、嵌套或 mkldnn 推理张量，在 CPU 上副本则不需要梯度，也没有节点）。"
                "一个例外是梯度模式关闭时（在 `torch.no_grad()` 或 `torch.set_grad_enabled(False)` 下）"
                "或在 `torch.inference_mode()` 里（即使开了 `torch.enable_grad()`）对需要梯度的张量取的视图（view），"
                "以及这种视图的视图。它仍然需要梯度，所以副本也带 `CloneBackward0` 节点，"
                "梯度却到不了取视图的那个张量。"
                "这与 `clone()` 无关：对需要梯度的 `w`，在 `torch.no_grad()`、`torch.set_grad_enabled(False)` 或 "
                "`torch.inference_mode()` 下取 `v = w[1:]`，`v * 2`、`v.exp()` 和 `v[[0, 1]]` 同样不把梯度传给 "
                "`w`。梯度也到不了这个视图本身，除非在取它的副本或它的视图之前就对它调用了 "
                "`requires_grad_()`；如果它的视图也是用这些方式取的，那个视图的副本即使这样也不把梯度传给它。"
                "并非所有视图都是这样的例外：取法在梯度模式下不被自动求导记录的视图（比如 `detach()`、"
                "`view(dtype)`、稀疏张量的 `indices()`）、推理张量的视图，以及用这些方式对用 `requires_grad_()` "
                "变成叶子张量（leaf tensor）的视图取的视图，都不需要梯度，所以它们的副本没有节点。"
                "这样的视图，以及在梯度模式下对需要梯度的张量调用 `unbind()`、`split()`、`split_with_sizes()` 或 "
                "`chunk()` 得到的输出，一旦它们与取视图的那个张量共享的版本计数器推进，就不能再这样用了："
                "对它们、对取视图的那个张量或它的另一个视图调用 `mul_()`（即使在 `torch.no_grad()` 下），"
                "或者对取视图的那个张量执行一步 `torch.optim.SGD`，都会推进这个计数器。"
                "此后在梯度模式下取它们的副本会抛出 `RuntimeError`"
                "（对那四个函数的输出，`torch.empty_like(a).copy_(a)` 和 `a.double()` 也一样；修改之后重新取的输出，"
                "副本照旧带 `CloneBackward0`）。不推进版本计数器的写入（用 `fused=True` 构造的优化器的一步，"
                "或经由 `.data` 或 NumPy 的写入）让它们保持原样。",
        },
        lambda m: _rows(m, "a.clone()", shares_storage=False)
        and _rows(m, "a.clone()", GRAD_SOURCES, requires_grad=True, grad_fn="CloneBackward0"),
        facts=("clone-requires-grad-in-grad-mode", "copy-in-graph-passes-gradient", "inference-tensor-requiring-grad",
               "inference-leaf-clone-in-graph", "clone-of-no-grad-view-passes-no-gradient",
               "no-grad-view-operations-pass-no-gradient", "no-grad-view-edit-breaks-clone",
               "split-output-edit-breaks-clone"),
    ),
    Advice(
        "need-snapshot",
        {
            "en": "A snapshot for later (the best weights so far, a value before an update) that later edits "
                "of `a` cannot reach and that holds no graph: `a.detach().clone()`. Its own storage, no "
                "`grad_fn`, `requires_grad=False`; editing it leaves the gradient of `a` alone.",
            "zh_CN": "留一份快照以后用（目前最好的权重、更新前的值），之后对 `a` 的修改影响不到它，它也不带计算图："
                "`a.detach().clone()`。它有自己的存储，没有 `grad_fn`，`requires_grad=False`；修改它不影响 "
                "`a` 的梯度。",
        },
        lambda m: _rows(m, "a.detach().clone()", shares_storage=False, grad_fn="None", requires_grad=False)
        and _rows(m, "a.detach().clone()", GRAD_SOURCES, inplace_edit=EDIT_UNAFFECTED),
    ),
    Advice(
        "need-numpy",
        {
            "en": "A NumPy array, from a dense CPU tensor of a dtype NumPy has (float32 or float64, say), of no more "
                "dimensions than NumPy allows (64 in NumPy 2, the NumPy of the site's build; beyond that `.numpy()` "
                "raises "
                "`ValueError`), not a nested one, not an instance of a tensor subclass that defines "
                "`__torch_dispatch__` (a subclass without it is fine), without the conjugate or negative bit: start "
                "from `a.detach()`.\n"
                "- `a.detach()` is out of the graph but on `a`'s memory, so the array follows later in-place edits "
                "of `a` while `a`'s data stays in that memory.\n"
                "- Some calls take `a` off it. With the default `torch.__future__` settings, "
                "`model.to(torch.float64)`, for a float32 parameter `a` of `model`, puts `a` on new memory, and an "
                "array taken before keeps the old values. `share_memory_()`, sending `a` through a queue and "
                "pickling it for a process started with spawn or forkserver move `a`'s storage into shared memory "
                "(unless it is there already, or its storage is empty under the `file_descriptor` sharing "
                "strategy, Linux's default; the last two send nothing when `a` is a "
                "non-leaf that requires grad: "
                "pickling it raises, in the queue's feeder thread too, after `put` has returned, and its storage "
                "stays where it is) and may free the old memory, so an array taken before dangles: "
                "reading or writing it is "
                "undefined and can crash the process ({ref}`the shared-memory page <questions-shared-memory>`, "
                "{ref}`the processes page <questions-processes>`). After `share_memory_()`, take the array. "
                "`Queue.put` can return before its feeder thread moves the storage, so an "
                "array taken right after `put` can dangle too: call `a.share_memory_()` yourself before sending `a` "
                "through a queue, and take the array after that call; sending `a` then leaves its storage where it "
                "is.\n"
                "- When the array must not follow later edits, start from `a.detach().clone()`.\n"
                "- With the conjugate or negative bit set, `.numpy()` raises: call `resolve_conj()` or "
                "`resolve_neg()` first, which copies.\n"
                "- A sparse tensor raises too, in each of its layouts (COO, CSR, CSC, BSR, BSC), and so do a "
                "nested one (`torch.nested`, either layout) and an mkldnn one (`to_mkldnn()`).\n"
                "- An instance of a tensor subclass that defines `__torch_dispatch__` raises too (`RuntimeError: "
                ".numpy() is not supported for tensor subclasses`), even a strided CPU one of a NumPy dtype with "
                "neither bit set.\n"
                "- Inside a function transformed by `torch.func.grad`, `vjp`, `jvp`, `jacrev`, `jacfwd` or "
                "`hessian`, `.numpy()` raises on every tensor the function uses (its arguments, a tensor it closes "
                "over, one it makes), even one that meets the conditions above. Inside `torch.func.vmap` it raises "
                "on the tensor vmap batches and on one computed from it (`x * 2`, `torch.zeros_like(x)`); an "
                "argument given with `in_dims=None` and a tensor the function closes over give an array on that "
                "tensor's memory, and one it makes from no batched tensor (`torch.ones(3)`) works too. Inside "
                "`torch.func.functionalize` it raises nothing, but the array is other memory: it does not hold the "
                "input's values, and a write to it leaves the input as it was. Take the array outside the "
                "transformed function.",
            "zh_CN": "要 NumPy 数组，就从 `a.detach()` 出发。前提是：张量是稠密的 CPU 张量（不是嵌套张量，"
                "也不是定义了 `__torch_dispatch__` 的张量子类的实例；没有定义它的子类可以），"
                "dtype 是 NumPy 也有的（比如 float32、float64），维数不超过 NumPy 的上限（本站构建所用的 "
                "NumPy 2 是 64；超过时 `.numpy()` 会抛出 `ValueError`），"
                "没有设置共轭位（conjugate bit）或负号位（negative bit）。\n"
                "- `a.detach()` 脱离了计算图，但仍在 `a` 的内存上：只要 `a` 的数据还留在原来的内存里，数组就会随 `a` "
                "之后的原地修改而变。\n"
                "- 有些调用会让 `a` 离开这块内存。在默认的 `torch.__future__` 设置下，`a` 是模型的 float32 参数时，"
                "`model.to(torch.float64)` 把 `a` 换到新的内存上，之前取的数组留着原来的数值。"
                "`share_memory_()`、经队列发送 `a` 和为 spawn 或 forkserver 方式启动的进程序列化 `a`，"
                "则把 `a` 的存储搬进共享内存（已在共享内存里的，以及在 Linux 默认的共享策略 `file_descriptor` 下"
                "存储为空的除外；"
                "`a` 是需要梯度的非叶子张量时，后两种方式什么也"
                "发送不出去：序列化它会报错，经队列发送时则是 `put` 返回之后由 feeder 线程报错，它的存储留在原处），"
                "并可能释放旧内存，"
                "之前取的数组就成了悬空数组：读写它的结果是未定义的，可能直接让进程崩溃"
                "（见{ref}`“共享内存与加锁”那一页 <questions-shared-memory>`和"
                "{ref}`“多进程”那一页 <questions-processes>`）。数组要在 `share_memory_()` 之后再取。"
                "`Queue.put` 可能在后台的 feeder 线程搬动存储之前就返回，"
                "所以 `put` 刚返回就取的数组同样可能悬空：经队列发送 `a` 之前先自己调用 `a.share_memory_()`，"
                "在这次调用之后再取数组；这样发送 `a` 时，"
                "它的存储留在原处。\n"
                "- 不想让数组跟着变，就从 `a.detach().clone()` 出发。\n"
                "- 设置了共轭位或负号位时，`.numpy()` 会报错：先调用 `resolve_conj()` 或 `resolve_neg()`，"
                "这会复制一份。\n"
                "- 稀疏张量也会报错（COO、CSR、CSC、BSR、BSC 每种布局都是），"
                "嵌套张量（`torch.nested`，两种布局都是）和 mkldnn 张量（`to_mkldnn()`）也一样。\n"
                "- 定义了 `__torch_dispatch__` 的张量子类的实例也会报错（`RuntimeError: "
                ".numpy() is not supported for tensor subclasses`），即使它的布局是 strided、在 CPU 上、"
                "dtype 是 NumPy 也有的，两个位都没有设置。\n"
                "- 在经 `torch.func.grad`、`vjp`、`jvp`、`jacrev`、`jacfwd` 或 `hessian` 变换的函数里，"
                "对函数用到的每个张量（它的参数、它引用的外部张量、它新建的张量）调用 `.numpy()` 都会报错，"
                "即使张量满足上面这些前提。在 `torch.func.vmap` 里，对 vmap 批处理的张量和由它算出的张量"
                "（`x * 2`、`torch.zeros_like(x)`）调用它会报错；用 `in_dims=None` 交给 vmap 的参数和函数引用的"
                "外部张量，得到的数组就在该张量的内存上；函数不经批处理张量新建的张量（`torch.ones(3)`）也可以。"
                "在 `torch.func.functionalize` 里则不报错，但得到的数组是别处的内存：里面不是输入张量的数值，"
                "往数组里写，输入张量也不变。数组要在被变换的函数之外取。",
        },
        lambda m: _rows(m, "a.detach()", requires_grad=False, shares_storage=True)
        and _rows(m, "a.detach().clone()", requires_grad=False, shares_storage=False),
        facts=("detach-numpy-needs-plain-dense", "module-to-gives-parameter-new-memory",
               "share-memory-leaves-early-array"),
    ),
    Advice(
        "need-trainable-copy",
        {
            "en": "A second trainable copy (a parameter you will optimise separately), from a floating-point `a` "
                "(checked in float32, float64 and bfloat16), made outside `torch.inference_mode()`: "
                "`a.detach().clone().requires_grad_(True)`.\n"
                "- It is a new leaf with its own storage and no `.grad` yet, so its first step starts from its own "
                "gradient alone.\n"
                "- To put it in a module, wrap it as `torch.nn.Parameter(a.detach().clone())`: a plain tensor set on "
                "a module is not among `model.parameters()`, and it cannot replace a parameter (`TypeError`).\n"
                "- Not `copy.deepcopy(a)`: it raises `RuntimeError` on a non-leaf, and on a `torch.Tensor` leaf whose "
                "`.grad` has a `grad_fn` (as after `backward(create_graph=True)`); the other tensors it refuses are "
                "listed on {ref}`the deepcopy page <questions-deepcopy>`.\n"
                "- Where it copies, the deep copy of a `torch.Tensor` that requires grad carries `a.grad` over, so its "
                "first step adds that stale gradient unless the loop zeroes `.grad` before its first `backward()`.\n"
                "- The deep copy of a `Parameter` has no `.grad`, even when that `.grad` has a `grad_fn`; that of a "
                "tensor that does not require grad is no trainable leaf.",
            "zh_CN": "另做一份可训练的副本（之后单独优化的参数），只要 `a` 是浮点张量"
                "（检查过 float32、float64 和 bfloat16），"
                "并且不在 `torch.inference_mode()` 里做，就用 `a.detach().clone().requires_grad_(True)`。\n"
                "- 得到的是有自己存储的新叶子张量，还没有 `.grad`，第一步只用它自己的梯度。\n"
                "- 要放进模块，就包成 `torch.nn.Parameter(a.detach().clone())`：普通张量赋给模块的属性，"
                "不会出现在 `model.parameters()` 里，也不能替换已有的参数（抛出 `TypeError`）。\n"
                "- 不要用 `copy.deepcopy(a)`：它对非叶子张量抛出 `RuntimeError`，对 `.grad` 带 `grad_fn` 的 "
                "`torch.Tensor` 叶子张量（比如调用 `backward(create_graph=True)` 之后）也是如此；"
                "它还拒绝哪些张量，见{ref}`“copy.deepcopy”那一页 <questions-deepcopy>`。\n"
                "- 能深拷贝时，需要梯度的 `torch.Tensor` 的深拷贝会把 `a.grad` 一起带过来；"
                "如果训练循环不在第一次 `backward()` 之前清零 `.grad`，第一步就叠加上这份过时的梯度。\n"
                "- `Parameter` 的深拷贝没有 `.grad`，它的 `.grad` 带 `grad_fn` 时也是如此；"
                "不需要梯度的张量的深拷贝也不是可训练的叶子张量。",
        },
        lambda m: _rows(m, "a.detach().clone()", shares_storage=False, grad_fn="None")
        and str(m["non-leaf"]["copy.deepcopy(a)"]["raised"]).startswith("RuntimeError"),
        facts=("trainable-copy-in-a-loop", "trainable-copy-in-a-module", "deepcopy-as-trainable-copy",
               "deepcopy-grad-by-source", "deepcopy-refuses-some-leaves"),
    ),
    Advice(
        "never-data",
        {
            "en": "None of these needs `a.data`: it shares storage but not the version counter, so an in-place "
                "edit through it after autograd saved `a` can give a wrong gradient without any error.",
            "zh_CN": "以上哪一种都用不着 `a.data`：它共享存储，却不共享版本计数器；"
                "自动求导保存了 `a` 之后再通过它原地修改，梯度可能算错，而且不报错。",
        },
        lambda m: _rows(m, "a.data", shares_storage=True)
        and _rows(m, "a.data", VERSIONED_SOURCES, shares_version=False)
        and _no_counter(m, "a.data")
        and _rows(m, "a.data", GRAD_SOURCES, inplace_edit=EDIT_SILENT),
    ),
)


#: The lists of advice the ``behaviour-matrix`` directive's ``:guide:`` option renders, by its value.
GUIDES: dict[str, tuple[Advice, ...]] = {"": GUIDE, "decide": DECISIONS}
