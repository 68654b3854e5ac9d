"""
.. _questions-overlapping-writes:

“refer to a single memory location”：源与目标重叠的写入
=======================================================

.. admonition:: 答案
   :class: answer

   非空的 ``t`` 至少有 3 行时，``t[1:] = t[:-1]`` 的源与目标重叠：``t`` 是连续的 CPU 张量时 torch 拒绝这次写入；``t`` 不连续时（``x[::2]``、``x[:, 0]``、``x.t()``），可能不报错，却写错值。先对源调用 ``clone()``：

   .. code-block:: python

      t[1:] = t[:-1].clone()

原地（in-place）把至少有 3 行的非空连续稠密 CPU 张量（布局为 ``torch.strided``，不是嵌套张量）平移一位（``t[1:] = t[:-1]``）会报错（本页运行的 18 种 dtype 都是如此，从 ``bool`` 和各种整数类型到 float8、复数和量化类型）：``RuntimeError: unsupported operation: some elements of the
input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor
before performing the operation.`` jagged 嵌套张量（布局为 ``torch.jagged``）和 mkldnn 张量（``to_mkldnn()``）得到的则是另一条报错，因为 torch 拒绝对它们取 ``t[:-1]``。需要梯度、又不是推理张量（inference tensor）的叶子张量（leaf tensor），如在 ``torch.inference_mode()`` 之外创建的 ``Parameter``，或者在梯度模式（grad mode）下通过切片、索引或按形状的 ``view()`` 取得的它的视图（view），在梯度模式开启时会得到另一条报错：``RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.`` ``t[1:] = t[:-1].clone()`` 也会得到这条报错；在 ``torch.no_grad()`` 下则能正确完成平移。梯度模式开启时，需要梯度、不是推理张量的张量（无论是否叶子张量）的另一些视图得到的则是自动求导（autograd）对这类视图的报错（先克隆源也一样），其中有以下三类：在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下取得的视图（除非这个张量是 ``_base`` 不需要梯度的视图；``_base`` 是 torch 的内部属性，指向视图所用内存所属的那个张量），``unbind()``、``split()``、``chunk()`` 或 ``split_with_sizes()`` 的输出（遍历张量时，如 ``for row in x``，调用的就是 ``unbind()``），以及自定义 ``autograd.Function`` 返回的视图。这种叶子张量的 ``detach()`` 和 ``view(dtype)`` 是自动求导不记录的视图，不需要梯度，既得不到叶子张量的那条报错，也得不到自动求导的报错：先克隆源时，它们的平移在梯度模式开启时照常运行，并写入叶子张量。推理张量，例如 ``torch.inference_mode()`` 在新内存中创建的张量，或者在该模式下构建的模型的参数（在该模式下创建的 ``Parameter``，是需要梯度的叶子张量），在推理模式之外会拒绝先克隆源的平移，即使在 ``torch.no_grad()`` 下也一样，报错为 ``RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed``，而且报错时平移后的值已经写入；在推理模式之内，先克隆源的平移可以正常完成。这样的 ``Parameter`` 做 ``t[1:] = t[:-1]`` 时，得到的是上面第一条报错信息，梯度模式开启时也一样。本页说明原因（源与目标在同一个存储上共有三个元素），运行另外几种源与目标重叠的写入（有的被拒绝，有的不报错），展示同样的平移用在较长张量每隔一个取出的元素上、一列上、转置上，或沿第二维进行（``w[:, 1:] = w[:, :-1]``）时，不报错却写错值，最后在每一步原地平移一个观测值窗口，平移前先克隆源。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


# %%
# 画图用的辅助函数
# ----------------
#
# 本页的图由下面的辅助函数用 matplotlib 根据运行中的张量画出。每个画图的页面都带着同一段代码，所以页面上把它折叠起来；下载的脚本和 notebook 里是完整的代码。

import matplotlib.pyplot as plt

INK, PAPER, FILLS = "#1f2937", "#ffffff", ("#dbeafe", "#fde68a", "#d1fae5", "#fbcfe8", "#f3f4f6")


def _canvas(width, height, title, xlim, ylim):
    plt.close("all")  # one picture per cell: the pictures of earlier cells were shown already
    fig, ax = plt.subplots(figsize=(width, height), facecolor=PAPER)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.99 - 0.4 / height)
    ax.set_title(title, family="monospace", size=12, color=INK)
    ax.set(xlim=xlim, ylim=ylim)
    ax.set_axis_off()
    return ax


def _box(ax, xy, text, fill):
    return ax.text(*xy, text, ha="center", va="center", family="monospace", size=12, color=INK,
                   bbox={"boxstyle": "round,pad=0.4", "facecolor": fill, "edgecolor": INK})  # fmt: skip


def _arrow(ax, start, end):
    ax.annotate("", end.get_position(), start.get_position(), annotation_clip=False,
                arrowprops={"arrowstyle": "-|>", "color": INK, "shrinkA": 3, "shrinkB": 3,
                            "patchA": start.get_bbox_patch(), "patchB": end.get_bbox_patch()})  # fmt: skip


def _short(values):
    """Numbers to four significant digits, as the printed tensors round them: labels stay narrow."""
    if isinstance(values, list):
        return [_short(v) for v in values]
    return float(f"{values:.4g}") if isinstance(values, float) else values


def _first_seen(items, identity):
    seen = []
    for item in items:
        if not any(identity(item) == identity(other) for other in seen):
            seen.append(item)
    return seen


def shared_counters(tensors):
    """Which tensors share one version counter: move one counter on, see whose ``_version`` moved, put it
    back. ``increment_version`` is public; the context manager that puts the counter back is torch's own and
    takes one tensor on every release the site supports (the private function it calls changed its arguments)."""
    label = {}
    for t in tensors:
        if id(t) not in label:
            versions = [u._version for u in tensors]
            with torch.autograd._unsafe_preserve_version_counter(t):  # sets t's counter back on leaving
                torch.autograd.graph.increment_version(t)
                counter = f"C{len(set(label.values())) + 1}"
                label.update((id(u), counter) for u, v in zip(tensors, versions, strict=True) if u._version != v)
    return label


def draw_memory(title, **names):
    """Names -> tensor objects -> storages (S1, S2 ... in order of appearance) and version counters."""
    tensors = _first_seen(names.values(), id)  # id() only groups here; it is never drawn
    storages = _first_seen([t.untyped_storage().data_ptr() for t in tensors], int)
    counters, rows = shared_counters(tensors), max(len(names), 1)
    left = max(0.25, 0.1 + 0.022 * max(map(len, names), default=0))  # room for the longest name, same scale
    ax = _canvas(5.6 * (left + 2.2) / 2.45, 0.5 + 0.95 * rows, title, (-left, 2.2), (rows - 0.5, -0.5))
    tensor_boxes, storage_boxes = {}, [_box(ax, (2.05, s), f"S{s + 1}", FILLS[s % 4]) for s in range(len(storages))]
    for r, t in enumerate(tensors):
        s = storages.index(t.untyped_storage().data_ptr())
        values = _short(t.tolist()) if t.numel() <= 4 else f"shape={tuple(t.shape)}"
        grad = f"grad_fn={type(t.grad_fn).__name__}" if t.grad_fn else f"requires_grad={t.requires_grad}"
        tensor_boxes[id(t)] = _box(
            ax, (1.05, r), f"{values}\n{grad}\n_version={t._version} ({counters[id(t)]})", FILLS[s % 4]
        )
        _arrow(ax, tensor_boxes[id(t)], storage_boxes[s])
    for r, (label, t) in enumerate(names.items()):
        _arrow(ax, _box(ax, (0, r), label, FILLS[4]), tensor_boxes[id(t)])


def draw_versions(title, names, steps):
    """A ``_version`` timeline: ``steps`` lists (code, the names' ``_version`` values) recorded as the code ran."""
    ax = _canvas(5.6, 0.9 + 0.6 * len(names), title, (-1.6, len(steps) - 0.5), (len(names) - 0.4, -1.1))
    for r, label in enumerate(names):
        _box(ax, (-1, r), label, FILLS[4])
        for col, (_, versions) in enumerate(steps):
            changed = col > 0 and versions[r] != steps[col - 1][1][r]
            _box(ax, (col, r), f"{versions[r]}", FILLS[1] if changed else PAPER)
    for col, (code, _) in enumerate(steps):
        ax.text(col, -0.85, code, ha="center", va="center", family="monospace", size=10, color=INK)


def _saved(node):
    """The tensors a node saved: (attribute, version text), with the versions an in-place edit broke."""
    for attr in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            value = getattr(node, attr)
        except RuntimeError as e:  # "... is at version 1; expected version 0 instead.", or freed by backward()
            if "is at version " not in str(e):
                continue
            now, saved = str(e).split("is at version ")[1].split("; expected version ")
            yield attr[7:], f"_version {now} != {saved.split(' ')[0]}"
        else:
            if isinstance(value, torch.Tensor):
                yield attr[7:], f"_version {value._version}"


def _children(node):
    if isinstance(node, torch.Tensor):
        return []
    children = [f for f, _ in node.next_functions if f is not None]
    return children + ([node.variable] if hasattr(node, "variable") else [])


def draw_graph(title, root, **leaves):
    """The autograd graph under ``root``: grad_fn nodes, AccumulateGrad and leaves, saved tensors."""
    levels, seen = [[root.grad_fn]], {id(root.grad_fn)}
    while levels[-1]:
        levels.append([child for node in levels[-1] for child in _children(node) if id(child) not in seen])
        levels[-1] = _first_seen(levels[-1], id)
        seen.update(id(child) for child in levels[-1])
    width = max(5.6, 2.9 * max(map(len, levels)))
    ax = _canvas(width, 0.3 + 1.1 * (len(levels) - 1), title, (-1, 1), (len(levels) - 1.5, -0.5))
    boxes = {}
    for depth, level in enumerate(levels):
        for i, node in enumerate(level):
            xy = ((2 * i + 1) / len(level) - 1, depth)
            if isinstance(node, torch.Tensor):
                label = next((k for k, v in leaves.items() if v is node), "leaf")
                boxes[id(node)] = _box(ax, xy, f"{label}\n_version={node._version}", FILLS[2])
            else:
                saved = "".join(f"\n{attr}: {text}" for attr, text in _saved(node))
                fill = FILLS[1] if "!=" in saved else FILLS[0]
                boxes[id(node)] = _box(ax, xy, type(node).__name__ + saved, fill)
    for level in levels:
        for node in level:
            for child in _children(node):
                _arrow(ax, boxes[id(node)], boxes[id(child)])


def draw_processes(title, child, **names):
    """This process and a child forked from it: a storage in shared memory (``is_shared()``) is one storage
    that both map; the child gets any other storage as a copy of its own. ``child`` says what the child ran."""
    tensors = _first_seen(names.values(), id)
    storages = _first_seen([t.untyped_storage().data_ptr() for t in tensors], int)
    ax = _canvas(8.4, 1.0 + 0.95 * len(names), title, (-0.75, 3.75), (len(names) - 0.5, -1.1))
    ax.axvspan(1.22, 1.78, color=FILLS[4], zorder=0)
    for x, header in ((0.5, "this process"), (1.5, "shared memory"), (2.5, f"child: {child}")):
        ax.text(x, -0.85, header, ha="center", va="center", family="monospace", size=10, color=INK)
    for r, (label, t) in enumerate(names.items()):
        s = storages.index(t.untyped_storage().data_ptr())
        values = _short(t.tolist()) if t.numel() <= 4 else f"shape={tuple(t.shape)}"
        here = _box(ax, (0, r), f"{label}\n{values}\nis_shared()={t.is_shared()}", FILLS[s % 4])
        there = _box(ax, (3, r), f"{label}\n(forked)", FILLS[s % 4])
        if t.is_shared():
            segment = _box(ax, (1.5, r), f"S{s + 1}", FILLS[s % 4])
            _arrow(ax, here, segment)
            _arrow(ax, there, segment)
        else:
            _arrow(ax, here, _box(ax, (0.9, r), f"S{s + 1}", FILLS[s % 4]))
            _arrow(ax, there, _box(ax, (2.1, r), f"copy of S{s + 1}", FILLS[s % 4]))


# %%
# 报错
# ----
#
# ``t[1:] = t[:-1]`` 本意是把每个元素右移一位。torch 拒绝执行，报错信息如下，``t`` 的值保持不变。

t = torch.arange(5.0)
try:
    t[1:] = t[:-1]
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("t[1:] = t[:-1] must raise")
print("t:", t)
assert message == (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
), "t[1:] = t[:-1] is refused: its two sides share memory locations"
# sphinx_gallery_start_ignore
assert torch.equal(t, torch.arange(5.0)), "the refused write leaves t as it was"
# sphinx_gallery_end_ignore

# %%
# 需要梯度的张量
# --------------
#
# 在需要梯度、又不是推理张量的叶子张量（这里是在 ``torch.inference_mode()`` 之外创建的 ``Parameter``）上，以及在梯度模式下通过切片、索引或按形状的 ``view()`` 取得的这种叶子张量的视图（这里是二维 ``Parameter`` 的一行）上，梯度模式开启时，同样的平移会以另一条报错信息被拒绝；在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下，这个叶子张量和它的连续视图（比如那一行）得到的都是上面那条报错信息，而它不连续的视图可能不报错，写入错误的值，一列 ``[:, 0]`` 和 ``[::2]`` 就是这样。需要梯度的连续张量如果既不是叶子张量也不是视图（这里是 ``arange(5.0, requires_grad=True) * 2``），在这三种模式下得到的都是上面那条报错信息；通过切片、``view()`` 或 ``tensor_split()`` 取得的它的连续视图也一样；它不连续的视图则可能在这三种模式下都不报错，写入错误的值，``[::2]`` 和二维张量的一列就是这样，和下文“没被拦下的同一平移”一节里的那些布局一样。起决定作用的并不是连续与否：这里试过的两种张量的视图，在上述模式下，恰好在两边 ``t[1:]`` 和 ``t[:-1]`` 各自不留空隙地占满一整块内存（维度顺序不限）时，平移以上面那条报错信息被拒绝，所以三维张量的 ``transpose(1, 2)`` 虽然不连续，也会被拒绝。梯度模式开启时，需要梯度、不是推理张量的张量还有一些视图得到的是别的报错信息，自动求导在其中说明为什么不允许原地修改这样的视图，其中有以下三类：``unbind()``、``split()``、``chunk()`` 或 ``split_with_sizes()`` 的输出（遍历张量时，如 ``for row in x``，调用的就是 ``unbind()``）；在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下对需要梯度的张量取得的视图（该张量本身若是 ``_base`` 不需要梯度的视图则除外，例如下文的叶子张量）；自定义 ``autograd.Function`` 返回的视图。在 ``torch.inference_mode()`` 下创建的 ``Parameter``，比如在该模式下构建的模型的参数，是推理张量：它是叶子张量，也需要梯度，但它的平移在这三种模式下得到的都是上面那条报错信息。


def shift_in(mode, g):
    with mode():
        g[1:] = g[:-1]


tensors = {
    "leaf": lambda: torch.nn.Parameter(torch.arange(5.0)),
    "row of a leaf": lambda: torch.nn.Parameter(torch.arange(10.0).reshape(2, 5))[0],
    "not a leaf": lambda: torch.arange(5.0, requires_grad=True) * 2,
}
modes = {"enable_grad": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
grad_messages = {}
for mode_name in modes:
    for kind, make in tensors.items():
        try:
            shift_in(modes[mode_name], make())
        except RuntimeError as e:
            grad_messages[mode_name, kind] = str(e)
            print(f"{mode_name:<14} {kind:<13} {type(e).__name__}: {e}")
        else:
            raise AssertionError(f"the shift of a tensor that requires grad must raise ({kind}, {mode_name})")
leaf_messages = {grad_messages.pop(("enable_grad", kind)) for kind in ("leaf", "row of a leaf")}
assert leaf_messages == {"a view of a leaf Variable that requires grad is being used in an in-place operation."} and all(
    m == message for m in grad_messages.values()), "only the leaf and its row, with grad on, get another message"
# sphinx_gallery_start_ignore
assert [(make_one().requires_grad, make_one().is_leaf) for make_one in tensors.values()] == [
    (True, True), (True, False), (True, False)], "all three tensors require grad; only the first is a leaf"
assert tensors["row of a leaf"]()._base.is_leaf and tensors["not a leaf"]()._base is None, (
    "the row is a view of a leaf; arange(5.0, requires_grad=True) * 2 is a view of nothing")


def refused_with(mode, make_tensor):
    try:
        shift_in(mode, make_tensor())
    except RuntimeError as e:
        return str(e)
    return None


def parameter():
    return torch.nn.Parameter(torch.arange(5.0))


def inference_parameters():
    with torch.inference_mode():
        return torch.nn.Parameter(torch.arange(5.0)), torch.nn.Linear(3, 5).weight


assert all(made.is_inference() and made.is_leaf and made.requires_grad for made in inference_parameters()) and {
    refused_with(mode_, lambda index=index: inference_parameters()[index]) for mode_ in modes.values()
    for index in (0, 1)} == {message}, (
    "a Parameter made inside inference_mode, as a model's weight built there, is an inference tensor, a leaf that "
    "requires grad, and its shift gets the message above in all three modes")

contiguous_views = (lambda: parameter()[:], lambda: parameter().view(5), lambda: parameter().unsqueeze(0)[0],
                    lambda: torch.nn.Parameter(torch.zeros(3, 5))[1])
column_view = (lambda: torch.nn.Parameter(torch.zeros(5, 3))[:, 0],)
assert {refused_with(torch.enable_grad, view) for view in contiguous_views + column_view} == leaf_messages, (
    "with grad on, a view of a leaf taken in grad mode by slicing, indexing or view() with a shape, of any layout, gets "
    "the leaf's message")
assert {refused_with(quiet, view) for quiet in (torch.no_grad, torch.inference_mode) for view in contiguous_views} == {
    message}, "under no_grad and inference_mode, a contiguous view of a leaf gets the message above"
not_views = (lambda: torch.arange(5.0, requires_grad=True) * 2, lambda: parameter() + 0, lambda: parameter()[:].clone(),
             lambda: torch.nn.functional.relu(parameter()))
assert all(made.is_contiguous() and made.requires_grad and not made.is_leaf and made._base is None
           for made in (make_one() for make_one in not_views)), (
    "arange(5.0, requires_grad=True) * 2, p + 0, p[:].clone() and relu(p) are contiguous, require grad, and are "
    "neither a leaf nor a view")
others = not_views + (lambda: (torch.arange(5.0, requires_grad=True) * 2)[:],
                      lambda: (torch.arange(5.0, requires_grad=True) * 2).view(5),
                      lambda: (torch.arange(10.0, requires_grad=True) * 2)[2:7],
                      lambda: (torch.arange(10.0, requires_grad=True) * 2).tensor_split(2)[0])
assert {refused_with(mode_, other) for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode)
        for other in others} == {message}, (
    "a contiguous tensor that requires grad and is neither a leaf nor a view, and its contiguous views by slicing, "
    "view() or tensor_split(), get the message above in every mode")


def shift_outcome(mode, make_tensor):
    """The shift of a fresh tensor in a mode: (its error message or None, whether it gave the values of the shift
    from a cloned source)."""
    shifted = make_tensor()
    from_clone = torch.cat((shifted[:1], shifted[:-1])).detach()
    try:
        shift_in(mode, shifted)
    except RuntimeError as e:
        return str(e), False
    return None, torch.equal(shifted.detach(), from_clone)


strided_leaf_views = (lambda: torch.nn.Parameter(torch.arange(15.0).reshape(5, 3))[:, 0],
                      lambda: torch.nn.Parameter(torch.arange(10.0))[::2])
assert not any(view().is_contiguous() for view in strided_leaf_views) and {
    shift_outcome(quiet, view) for quiet in (torch.no_grad, torch.inference_mode) for view in strided_leaf_views} == {
    (None, False)}, (
    "under no_grad and inference_mode, a view of a leaf taken in grad mode that is not contiguous, a column or [::2], "
    "runs the shift with no error and writes other values than the shift from a cloned source")
strided_others = (lambda: (torch.arange(10.0, requires_grad=True) * 2)[::2],
                  lambda: (torch.arange(15.0, requires_grad=True).reshape(5, 3) * 2)[:, 0],
                  lambda: (torch.arange(10.0, requires_grad=True) * 2).view(5, 2)[:, 1])
assert not any(other().is_contiguous() for other in strided_others) and {
    shift_outcome(mode_, other) for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode)
    for other in strided_others} == {(None, False)}, (
    "a view that is not contiguous ([::2], a column) of a contiguous tensor that requires grad and is neither a leaf "
    "nor a view runs the shift with no error in every mode and writes other values than the shift from a cloned "
    "source")


def fills_one_block(part):
    dims = sorted((st, sz) for st, sz in zip(part.stride(), part.shape, strict=True) if sz != 1)
    return all(stride == torch.Size([size for _, size in dims[:i]]).numel() for i, (stride, _) in enumerate(dims))


def refused_where_dense(mode, make_view):
    tried = make_view()
    dense = fills_one_block(tried[1:]) and fills_one_block(tried[:-1])
    return refused_with(mode, make_view) == (message if dense else None)


def leaf_of(shape):
    return torch.nn.Parameter(torch.arange(float(torch.Size(shape).numel())).reshape(shape))


def made_of(shape):
    return (torch.arange(float(torch.Size(shape).numel()), requires_grad=True) * 2).reshape(shape)


tried_layouts = (((3, 5), lambda x: x[1]), ((5, 3), lambda x: x[:, 0]), ((10,), lambda x: x[::2]),
                 ((5, 2), lambda x: x[:, 1]), ((3, 3), lambda x: x.t()), ((3, 2, 2), lambda x: x.transpose(0, 1)),
                 ((3, 2, 2), lambda x: x.transpose(1, 2)), ((3, 2, 2, 2), lambda x: x.permute(0, 2, 3, 1)))
assert all(refused_where_dense(quiet, lambda shape=shape, take=take: take(leaf_of(shape)))
           for quiet in (torch.no_grad, torch.inference_mode) for shape, take in tried_layouts) and all(
    refused_where_dense(mode_, lambda shape=shape, take=take: take(made_of(shape)))
    for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode) for shape, take in tried_layouts), (
    "in the views tried, of a leaf under no_grad and inference_mode and of a tensor that is neither a leaf nor a view "
    "in every mode, the shift is refused with the message above exactly where t[1:] and t[:-1] each fill one block "
    "of memory with no gaps, and runs with no error elsewhere")
assert not any(make((3, 2, 2)).transpose(1, 2).is_contiguous() for make in (leaf_of, made_of)) and ({
    refused_with(quiet, lambda: leaf_of((3, 2, 2)).transpose(1, 2)) for quiet in (torch.no_grad, torch.inference_mode)} | {
    refused_with(mode_, lambda: made_of((3, 2, 2)).transpose(1, 2))
    for mode_ in (torch.enable_grad, torch.no_grad, torch.inference_mode)}) == {message}, (
    "transpose(1, 2) of a 3-d tensor is not contiguous, yet its shift is refused with the message above")
multiple_outputs = (lambda: parameter().reshape(1, 5).unbind(0)[0], lambda: parameter().split(5)[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).reshape(2, 5).unbind(0)[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).split(5)[0],
                    lambda: parameter().chunk(1)[0], lambda: parameter().split_with_sizes([5])[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).chunk(2)[0],
                    lambda: (torch.arange(10.0, requires_grad=True) * 2).split_with_sizes([5, 5])[0],
                    lambda: next(iter(torch.nn.Parameter(torch.arange(10.0).reshape(2, 5)))))
assert all(refused_with(torch.enable_grad, output).startswith(
    "Output 0 of Slice is a view and is being modified inplace. This view is the output of a function that returns "
    "multiple views.") for output in multiple_outputs), (
    "with grad on, an output of unbind(), split(), chunk() or split_with_sizes() of a tensor that requires grad gets "
    "autograd's message on such views")
assert all(type(next(iter(make_rows())).grad_fn) is type(make_rows().unbind(0)[0].grad_fn)
           for make_rows in (lambda: torch.nn.Parameter(torch.arange(10.0).reshape(2, 5)),
                             lambda: (torch.arange(10.0, requires_grad=True) * 2).reshape(2, 5))), (
    "iterating over a tensor gives the outputs of unbind()")
assert all(out.is_contiguous() and out.requires_grad and not out.is_leaf and not out._base.is_leaf
           for out in (multiple_outputs[2](), multiple_outputs[3]())), (
    "the outputs of unbind() and split() of arange(10.0, requires_grad=True) * 2 are contiguous, require grad, and "
    "are neither a leaf nor a view of one")


def under_no_grad(make_base, take):
    base = make_base()
    with torch.no_grad():
        return take(base)


view_of_non_leaf = lambda: (torch.arange(10.0, requires_grad=True) * 2).view(2, 5)[0]  # noqa: E731
leaf_view = lambda: under_no_grad(parameter, lambda b: b[:])  # noqa: E731
quiet_views = [lambda make=make, take=take: under_no_grad(make, take)
               for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2, view_of_non_leaf, leaf_view)
               for take in (lambda b: b[:], lambda b: b.view(5), lambda b: b.tensor_split(1)[0], lambda b: b.chunk(1)[0])]
assert all(quiet().requires_grad for quiet in quiet_views) and all(
    refused_with(torch.enable_grad, quiet).startswith(
        "Output 0 of Slice is a view of a view which was created in no_grad mode and is being modified inplace with "
        "grad mode enabled.") for quiet in quiet_views), (
    "with grad on, a view taken under no_grad of a tensor that requires grad gets autograd's message on such views")


def under_inference(make_base, take):
    base = make_base()
    with torch.inference_mode():
        return take(base)


inference_views = [lambda make=make, take=take: under_inference(make, take)
                   for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2, view_of_non_leaf,
                                leaf_view)
                   for take in (lambda b: b[:], lambda b: b.view(5), lambda b: b.tensor_split(1)[0], lambda b: b.chunk(1)[0])]
assert all(view().requires_grad for view in inference_views) and all(
    refused_with(torch.enable_grad, view).startswith(
        "Output 0 of Slice is a view of a view which was created in inference mode and is being modified inplace in "
        "normal mode.") for view in inference_views), (
    "with grad on, a view taken under inference_mode of a tensor that requires grad gets autograd's message on such "
    "views")


class ViewOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[:]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


assert all(refused_with(torch.enable_grad, lambda make=make: ViewOut.apply(make())).startswith(
    "Output 0 of Slice is a view and is being modified inplace. This view was created inside a custom Function")
    for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2)), (
    "with grad on, a view that a custom autograd.Function returns gets autograd's message on such views")
assert {refused_with(quiet, view) for quiet in (torch.no_grad, torch.inference_mode)
        for view in (*multiple_outputs, *quiet_views, *inference_views, lambda: ViewOut.apply(parameter()))} == {
    message}, (
    "written under no_grad or inference_mode, these three kinds of view get the message above")
assert all(make()._base is None for make in (parameter, lambda: torch.arange(5.0, requires_grad=True) * 2)) and (
    view_of_non_leaf()._base is not None and not view_of_non_leaf().is_leaf) and (
    leaf_view().is_leaf and leaf_view()._base.requires_grad), (
    "the tensors whose views are taken under no_grad and inference_mode above: a Parameter and a non-leaf, not views, "
    "a non-leaf that is a view, and a leaf that is a view whose _base requires grad")
# sphinx_gallery_end_ignore

# %%
# 对视图调用 ``requires_grad_()`` 得到的叶子张量（这里是 ``torch.arange(10.0).reshape(2, 5).requires_grad_()``）是例外：在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下取得的它的一行不需要梯度；梯度模式开启时，这一行的平移得到的是上面那条报错信息，先克隆源的平移则能正确完成。


def view_leaf():
    return torch.arange(10.0).reshape(2, 5).requires_grad_()


for quiet_name in ("no_grad", "inference_mode"):
    w = view_leaf()
    with modes[quiet_name]():
        row = w[0]
    print(f"{quiet_name:<14} w.is_leaf: {w.is_leaf}  w.requires_grad: {w.requires_grad}  "
          f"row.requires_grad: {row.requires_grad}")
    try:
        shift_in(torch.enable_grad, row)
    except RuntimeError as e:
        row_message = str(e)
        print(f"{'':<14} {type(e).__name__}: {e}")
    else:
        raise AssertionError("the shift of a row taken under no_grad or inference_mode must raise")
    with torch.enable_grad():
        row[1:] = row[:-1].clone()
    print(f"{'':<14} cloned shift, row: {row.tolist()}")
    assert w.is_leaf and w.requires_grad and not row.requires_grad and row_message == message and row.tolist() == [
        0.0, 0.0, 1.0, 2.0, 3.0], (
        f"{quiet_name}: a row of a leaf made by requires_grad_() on a view does not require grad, gets the message "
        "above and takes the cloned shift")
# sphinx_gallery_start_ignore
assert w._base is not None and not w._base.requires_grad, (
    "arange(10.0).reshape(2, 5).requires_grad_() is a view of a tensor that does not require grad")
bases_not_requiring_grad = (view_leaf, lambda: view_leaf()[:], lambda: view_leaf()[1], lambda: view_leaf().view(10)[2:])
assert all(made.requires_grad and made._base is not None and not made._base.requires_grad
           for made in (make_one() for make_one in bases_not_requiring_grad)) and [
    make_one().is_leaf for make_one in bases_not_requiring_grad] == [True, False, False, False], (
    "the bases of the next check require grad and are views whose _base does not require grad, a leaf and three "
    "non-leaves")
assert {refused_with(torch.enable_grad, lambda under=under, make=make, take=take: under(make, take))
        for under in (under_no_grad, under_inference) for make in bases_not_requiring_grad
        for take in (lambda b: b.reshape(-1)[:], lambda b: b.view(-1), lambda b: b.reshape(-1).tensor_split(1)[0],
                     lambda b: b.reshape(-1).chunk(1)[0], lambda b: b.reshape(-1)[1:])} == {message}, (
    "with grad on, a view taken under no_grad or inference_mode of a view whose _base does not require grad gets the "
    "message above, not autograd's")
# sphinx_gallery_end_ignore

# %%
# 原因：两边在同一个存储上
# ------------------------
#
# 目标 ``t[1:]`` 和源 ``t[:-1]`` 是 ``t`` 的两个视图，都在它的存储上。元素 ``t[1]``、``t[2]`` 和 ``t[3]`` 同时属于两者：源的起点和终点都比目标早一个元素，所以两者的四个元素中有三个是共有的。

dest = t[1:]
source = t[:-1]
print("same storage:", same_storage(dest, source))
print("storage offsets: dest", dest.storage_offset(), " source", source.storage_offset())
print("dest:", dest, " source:", source)
assert same_storage(dest, source) and (dest.storage_offset(), source.storage_offset()) == (1, 0), (
    "dest and source are on one storage, at offsets 1 and 0"
)

# %%
# .. figure-caption::
#    :alt: 示意图：名字 t、dest 和 source 指向同一个存储 S1 上的三个张量对象。
#
#    ``t``、``dest`` 和 ``source`` 是同一个存储 ``S1`` 上的三个张量对象。

draw_memory("dest = t[1:]; source = t[:-1]", t=t, dest=dest, source=source)
# sphinx_gallery_start_ignore
assert same_storage(t, dest) and same_storage(t, source), "both views are on t's storage"
# sphinx_gallery_end_ignore

# %%
# 其他源与目标重叠的写入
# ----------------------
#
# 另外六种源与目标重叠的写入，每种都用一个新的 ``t``：向左平移 ``t[:-1] = t[1:]``；用 ``+=``、``copy_``、``index_copy_`` 以及带 ``out=t[1:]`` 的 ``torch.add`` 向右平移；在 ``t`` 的 2×2 视图 ``s`` 上做 ``s.add_(s.t())``，``s.t()`` 用的正是 ``s`` 的那几个元素，只是排列不同。这六种都抛出上面那条报错信息，并让 ``t`` 保持原样。


def shift_assign(t):
    t[:-1] = t[1:]


def shift_add(t):
    t[1:] += t[:-1]


def square_add(t):
    s = t[:4].view(2, 2)
    s.add_(s.t())


raising = {
    "t[:-1] = t[1:]": shift_assign,
    "t[1:] += t[:-1]": shift_add,
    "t[1:].copy_(t[:-1])": lambda t: t[1:].copy_(t[:-1]),
    "t.index_copy_(0, idx, t[:-1])": lambda t: t.index_copy_(0, torch.tensor([1, 2, 3, 4]), t[:-1]),
    "torch.add(t[:-1], 1, out=t[1:])": lambda t: torch.add(t[:-1], 1, out=t[1:]),
    "s.add_(s.t())": square_add,
}
messages, after = {}, {}
for name, write in raising.items():
    t = torch.arange(5.0)
    try:
        write(t)
    except RuntimeError as e:
        messages[name] = str(e)
        print(f"{name:<32} {type(e).__name__}  t: {t}")
    else:
        raise AssertionError(f"{name} must raise")
    after[name] = t
assert all(m == message for m in messages.values()), "all six raise the message of t[1:] = t[:-1]"
# sphinx_gallery_start_ignore
for case, result in after.items():
    assert torch.equal(result, torch.arange(5.0)), f"{case} must leave t as it was"
probe_square = torch.arange(4.0).view(2, 2)
assert probe_square.t().data_ptr() == probe_square.data_ptr() and (probe_square.t() != probe_square).sum() == 2, (
    "s.t() reads the four elements of s, two of them at the place of another: not element for element"
)
# sphinx_gallery_end_ignore

# %%
# 不报错的写入
# ------------
#
# 再看四种写入，每种在新的 ``t`` 上运行两次：一次照原样，一次先把源交给 ``clone()``。八次运行都没有报错。``t.add_(t)`` 中源和目标是同一批元素，一一对应；``t.flip(0)`` 返回新张量而不是视图，所以 ``t.copy_(t.flip(0))`` 没有重叠。这两种的结果与克隆源之后的结果相同。后两种的重叠是另一类：掩码元素全为真时，用 ``masked_scatter_`` 从 ``t[:-1]`` 写入 ``t[1:]``，是部分重叠；用 ``torch.sum`` 把 ``t`` 的 2×2 视图 ``s`` 的两行相加并写入它的第一行 ``s[0]``，则和 ``t.add_(t)`` 一样写回它正在读取的元素，位置也相同，但每个输出元素都由其中两个元素算出。两者都不报错，结果却都与先克隆源的同一写入不同。


def masked(t, src):
    t[1:].masked_scatter_(torch.ones(4, dtype=torch.bool), src(t[:-1]))


def row_sum(t, src):
    s = t[:4].view(2, 2)
    torch.sum(src(s), 0, out=s[0])


silent = {
    "t.add_(t)": lambda t, src: t.add_(src(t)),
    "t.copy_(t.flip(0))": lambda t, src: t.copy_(src(t.flip(0))),
    "t[1:].masked_scatter_(mask, t[:-1])": masked,
    "torch.sum(s, 0, out=s[0])": row_sum,
}
differ = []
for name, write in silent.items():
    as_written, cloned = torch.arange(5.0), torch.arange(5.0)
    write(as_written, lambda x: x)
    write(cloned, torch.clone)
    print(f"{name:<36} as written: {as_written.tolist()}")
    print(f"{'':<36} cloned:     {cloned.tolist()}")
    if not torch.equal(as_written, cloned):
        differ.append(name)
assert differ == ["t[1:].masked_scatter_(mask, t[:-1])", "torch.sum(s, 0, out=s[0])"], (
    "only masked_scatter_ and torch.sum give another result than from a cloned source"
)
# sphinx_gallery_start_ignore
probe = torch.arange(5.0)
assert probe.flip(0)._base is None and bytes_apart(probe.flip(0), probe), "flip(0) is not a view of t"
probe_s = probe[:4].view(2, 2)
assert [(probe_part.storage_offset(), probe_part.numel(), probe_part.stride()) for probe_part in (probe[1:], probe[:-1])] == [
    (1, 4, (1,)), (0, 4, (1,))], (
    "t[1:] and t[:-1] each cover four of t's five elements, at offsets 1 and 0: they share three, a partial overlap"
)
assert probe_s[0].data_ptr() == probe_s.data_ptr() and probe_s[0].stride() == (1,) and probe_s.stride() == (2, 1), (
    "torch.sum writes s[0], the first row of the s it reads: its two elements, in the same places"
)
# sphinx_gallery_end_ignore

# %%
# 没被拦下的同一平移
# ------------------
#
# 上面报错的那项检查并不覆盖所有布局。同样的平移用在较长张量每隔一个取出的元素组成的 ``t`` 上，用在 3×3 张量的一列 ``x[:, 0]`` 或转置 ``x.t()`` 上，或沿二维张量的第二维进行（``w[:, 1:] = w[:, :-1]``，即把一批窗口沿时间平移）时，不会报错，却写出错误的值。这些 ``t`` 都不是连续的。每一种的结果都与先克隆源的平移不同。所以不要指望这个报错：只要两边可能重叠，就先克隆源。对连续的 ``t``，下面试过的五种 dtype、四种形状都会以同一条报错信息拒绝这次平移。


def strided_shift(src):
    t = torch.arange(10.0)[::2]
    t[1:] = src(t[:-1])
    return t


def column_shift(src):
    t = torch.arange(9.0).reshape(3, 3)[:, 0]
    t[1:] = src(t[:-1])
    return t


def transposed_shift(src):
    t = torch.arange(9.0).reshape(3, 3).t()
    t[1:] = src(t[:-1])
    return t


def batch_shift(src):
    w = torch.arange(6.0).reshape(2, 3)
    w[:, 1:] = src(w[:, :-1])
    return w


shifts = {
    "strided t: t[1:] = t[:-1]": strided_shift,
    "column t: t[1:] = t[:-1]": column_shift,
    "transposed t: t[1:] = t[:-1]": transposed_shift,
    "w[:, 1:] = w[:, :-1]": batch_shift,
}
uncaught = []
for name, shift in shifts.items():
    as_written, cloned = shift(lambda x: x), shift(torch.clone)
    print(f"{name:<28} as written: {as_written.tolist()}")
    print(f"{'':<28} cloned:     {cloned.tolist()}")
    if not torch.equal(as_written, cloned):
        uncaught.append(name)
assert uncaught == list(shifts), "all four shifts run without an error and give another result than the cloned source"


def shift_right(c):
    c[1:] = c[:-1]


refused_contiguous = []
for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64):
    for shape in ((3,), (5,), (4, 3), (3, 2, 2)):
        c = torch.zeros(shape, dtype=dtype)
        try:
            shift_right(c)
        except RuntimeError as e:
            refused_contiguous.append("refer to a single memory location" in str(e))
        else:
            raise AssertionError(f"the shift of a contiguous {dtype} tensor of shape {shape} must raise")
print("contiguous, t[1:] = t[:-1] refused:", sum(refused_contiguous), "of 20 dtypes and shapes")
assert refused_contiguous == [True] * 20, "the shift of a contiguous t is refused for every dtype and shape tried"
# sphinx_gallery_start_ignore
assert not any(x.is_contiguous() for x in (torch.arange(10.0)[::2], torch.arange(9.0).reshape(3, 3)[:, 0],
                                           torch.arange(9.0).reshape(3, 3).t(), torch.arange(6.0).reshape(2, 3)[:, 1:])), (
    "none of the strided t, the column, the transpose and w[:, 1:] is contiguous")


def shift_refused(t, shift):
    try:
        shift(t)
    except RuntimeError:
        return True
    return False


assert all(
    [shift_refused(torch.zeros(shape, dtype=dtype), shift)
     for shape in ((3, 0), (2,), (2, 3), (1,), (0,), (3,), (3, 2))] == [False, False, False, False, False, True, True]
    for shift in (shift_right, shift_assign)
    for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64)
), ("t[1:] = t[:-1] and t[:-1] = t[1:] are refused from 3 rows on, in each of the five dtypes, and not on fewer "
    "rows nor on an empty t")
import warnings


def five_zeros(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 仍是实验性的，量化 dtype 已被弃用
        try:
            return torch.zeros(5, dtype=dtype)
        except NotImplementedError:
            return torch.quantize_per_tensor(torch.zeros(5), 0.1, 0, dtype)


more_dtypes = (torch.float64, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2, torch.int8, torch.int16,
               torch.int32, torch.uint8, torch.complex32, torch.complex128, torch.quint8, torch.qint8, torch.qint32)
assert all(five_zeros(dtype).is_contiguous() and refused_with(torch.enable_grad, lambda dtype=dtype: five_zeros(dtype))
           == message for dtype in more_dtypes), (
    "the shift of a contiguous CPU tensor of 5 rows is refused with the message above in thirteen more dtypes, "
    "float8, complex32 and quantized ones among them")


def slicing_refused(make_tensor):
    try:
        make_tensor()[:-1]
    except RuntimeError:
        return True
    return False


unsliced = (lambda: torch.nested.nested_tensor([torch.arange(5.0)] * 3, layout=torch.jagged),
            lambda: torch.arange(5.0).to_mkldnn())
assert all(made.is_contiguous() and made.device.type == "cpu" and made.numel() > 0 and made.size(0) >= 3
           for made in (make_one() for make_one in unsliced)) and all(
    slicing_refused(make_one) and refused_with(torch.enable_grad, make_one) not in (None, message)
    for make_one in unsliced), (
    "a jagged nested tensor and an mkldnn tensor, contiguous CPU tensors of 3 or more rows, refuse t[:-1], and their "
    "shift stops with another error than the message above")
# sphinx_gallery_end_ignore

# %%
# 写入 expand 的结果
# ------------------
#
# ``column.expand(3, 4)`` 中每一行的四个元素是同一个内存位置。用 ``add_`` 往里写入，会得到一条相近的报错信息：“more than one element of the written-to tensor refers to a single memory location”。哪些写入 ``expand`` 结果的操作会报错、哪些不会，见 :ref:`“视图”那一页 <questions-views>`。

column = torch.zeros(3, 1)
try:
    column.expand(3, 4).add_(1.0)
except RuntimeError as e:
    expand_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("add_ into an expanded tensor must raise")
assert expand_message.startswith("unsupported operation: more than one element of the written-to tensor"), (
    "add_ into the expanded tensor is refused: its elements share memory locations"
)

# %%
# 解决办法：先克隆源
# ------------------
#
# ``t[:-1].clone()`` 有自己的内存，写入时读取的张量与 ``t[1:]`` 没有任何重叠，平移就成功了。

t = torch.arange(5.0)
t[1:] = t[:-1].clone()
print("t:", t)
assert torch.equal(t, torch.tensor([0.0, 0.0, 1.0, 2.0, 3.0])), "the shift with a cloned source works"

# %%
# 在需要梯度、又不是推理张量的叶子张量上，以及在梯度模式下通过切片、索引或按形状的 ``view()`` 取得的它的视图上，梯度模式开启时，先克隆源的平移同样会被拒绝，报的是上面那条针对叶子张量的报错信息。在 ``torch.no_grad()`` 下，它能正确完成平移；两者仍然需要梯度，``Parameter`` 也仍是叶子张量。通过叶子张量不需要梯度的 ``detach()`` 或 ``view(dtype)``，先克隆源的平移即使在梯度模式开启时也照常运行，并写入叶子张量。下面用的是上文的 ``Parameter`` 和二维 ``Parameter`` 的那一行。梯度模式开启时，上文列出的三类视图，无论取自这样的叶子张量还是需要梯度的非叶子张量（在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下取得的视图，那个张量是 ``_base`` 不需要梯度的视图时除外），也都拒绝先克隆源的平移，各自报自动求导的那条报错信息。在 ``torch.no_grad()`` 下，先克隆源的平移同样能把预期的值写进这些视图，但此后梯度模式开启时，对这样的视图做运算（``v.sum()``），甚至只是读取它的 ``grad_fn``，都会报错：它的基张量（base tensor）或基张量的另一个视图已被原地修改。对它的基张量做运算则不会报错。推理张量（包括在 ``torch.inference_mode()`` 下创建的 ``Parameter``）在推理模式之外，无论梯度模式开启还是在 ``torch.no_grad()`` 下，都会拒绝先克隆源的平移，而且报错时平移后的值已经写入；在推理模式之内，先克隆源的平移可以正常完成。


def cloned_shift_in(mode, g):
    with mode():
        g[1:] = g[:-1].clone()


for kind in ("leaf", "row of a leaf"):
    g = tensors[kind]()
    try:
        cloned_shift_in(torch.enable_grad, g)
    except RuntimeError as e:
        cloned_message = str(e)
        print(f"{kind:<13} enable_grad  {type(e).__name__}: {e}")
    else:
        raise AssertionError("the cloned shift of a tensor that requires grad must raise in grad mode")
    cloned_shift_in(torch.no_grad, g)
    print(f"{kind:<13} no_grad      g: {g.tolist()}  requires_grad: {g.requires_grad}  is_leaf: {g.is_leaf}")
    assert cloned_message in leaf_messages and g.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0] and g.requires_grad and (
        g.is_leaf == (kind == "leaf")), "refused in grad mode, the cloned shift works under no_grad and keeps grad"
# sphinx_gallery_start_ignore
leaf_and_views = (parameter, lambda: parameter()[1:], lambda: parameter().view(5),
                  lambda: torch.nn.Parameter(torch.arange(15.0).reshape(3, 5))[1],
                  lambda: torch.nn.Parameter(torch.arange(15.0).reshape(5, 3))[:, 0])


def cloned_refused_in_grad_mode(make_tensor):
    try:
        cloned_shift_in(torch.enable_grad, make_tensor())
    except RuntimeError as e:
        return str(e)
    return None


def cloned_shift_under_no_grad(make_tensor):
    shifted, before = make_tensor(), make_tensor().tolist()
    cloned_shift_in(torch.no_grad, shifted)
    return shifted.tolist() == before[:1] + before[:-1]


assert {cloned_refused_in_grad_mode(make) for make in leaf_and_views} == leaf_messages, (
    "with grad on, the cloned shift of a leaf that requires grad, or of a view of one by slicing, indexing or view() "
    "with a shape, gets the leaf's message")
assert all(cloned_shift_under_no_grad(make) for make in leaf_and_views), (
    "under no_grad, the cloned shift of a leaf that requires grad, and of its views, gives the intended shift")
unrecorded_views = [(make, take) for make in (parameter, lambda: torch.nn.Parameter(torch.arange(12.0).reshape(3, 4)),
                                               lambda: torch.nn.Parameter(torch.arange(24.0).reshape(2, 3, 4).transpose(0, 1)),
                                               lambda: torch.arange(5.0, dtype=torch.float64, requires_grad=True), view_leaf)
                    for take in (lambda x: x.detach(), lambda x: x.view(x.dtype), lambda x: x.view(torch.int32),
                                 lambda x: x.view(torch.bool))]


def shift_through_unrecorded_view(make_leaf, take):
    leaf = make_leaf()
    before, view = leaf.detach().clone(), take(leaf)
    intended = torch.cat((view[:1], view[:-1])).clone()
    plain = refused_with(torch.enable_grad, lambda: take(make_leaf()))
    return (leaf.is_leaf and leaf.requires_grad and not view.requires_grad and plain in (message, None)
            and cloned_refused_in_grad_mode(lambda: view) is None and torch.equal(view, intended)
            and leaf._version == 1 and not torch.equal(leaf.detach(), before))


assert all(shift_through_unrecorded_view(make, take) for make, take in unrecorded_views), (
    "with grad on, the detach() and view(dtype) of a leaf that requires grad do not require grad and get neither the "
    "leaf's message nor autograd's; their cloned shift runs and writes into the leaf")
autograd_views = (*multiple_outputs, *quiet_views, *inference_views, lambda: ViewOut.apply(parameter()),
                  lambda: ViewOut.apply(torch.arange(5.0, requires_grad=True) * 2))
assert all((cloned_refused_in_grad_mode(view) or "").startswith("Output 0 of Slice is a view") and (
    cloned_refused_in_grad_mode(view) == refused_with(torch.enable_grad, view)) for view in autograd_views), (
    "with grad on, the three kinds of view of a leaf or a non-leaf that requires grad refuse the cloned shift with "
    "autograd's message, as they refuse the plain shift")
assert all(cloned_shift_under_no_grad(view) for view in autograd_views), (
    "under no_grad, the cloned shift of the three kinds of view gives the intended shift")
views_of_view_leaves = [lambda under=under, make=make: under(make, lambda b: b[0])
                        for under in (under_no_grad, under_inference)
                        for make in (view_leaf, lambda: view_leaf()[:])]
assert all(not view().requires_grad and view()._base is not None and not view()._base.requires_grad and (
    cloned_refused_in_grad_mode(view) is None) for view in views_of_view_leaves), (
    "with grad on, the cloned shift of a view taken under no_grad or inference_mode of a leaf or a non-leaf that is a "
    "view whose _base does not require grad runs")


def used_in_grad_mode_after_shift(view):
    shifted = view()
    cloned_shift_in(torch.no_grad, shifted)
    refused = []
    with torch.enable_grad():
        for use in (lambda: shifted.sum(), lambda: shifted * 2, lambda: shifted.grad_fn):
            try:
                use()
            except RuntimeError as e:
                refused.append("its base or another view of its base has been modified inplace" in str(e))
            else:
                refused.append(False)
        return refused == [True, True, True] and (shifted._base * 2).sum().requires_grad


assert all(used_in_grad_mode_after_shift(view) for view in autograd_views), (
    "after the cloned shift under no_grad, with grad on, an operation on one of the three kinds of view, or reading its "
    "grad_fn, raises because its base was modified in place; an operation on its base does not")


def inference_tensors():
    normal = torch.arange(5.0)
    with torch.inference_mode():
        return (torch.arange(5.0), torch.arange(12.0).reshape(4, 3), torch.arange(10.0)[::2], torch.arange(5),
                normal.view(torch.int32), torch.nn.Parameter(torch.arange(5.0)), torch.nn.Linear(3, 5).weight)


def cloned_shift_of_inference(mode, it):
    intended = torch.cat((it[:1], it[:-1])).tolist()
    try:
        cloned_shift_in(mode, it)
    except RuntimeError as e:
        return str(e).split(".")[0], it.tolist() == intended
    return None, it.tolist() == intended


assert all(it.is_inference() for it in inference_tensors()) and all(
    it.requires_grad and it.is_leaf for it in inference_tensors()[5:]), (
    "all seven tensors made for these checks are inference tensors; the last two, a Parameter and a model's weight "
    "made in the mode, are leaves that require grad")
inference_message = "Inplace update to inference tensor outside InferenceMode is not allowed"
assert {cloned_shift_of_inference(outside, it) for outside in (torch.enable_grad, torch.no_grad)
        for it in inference_tensors()} == {(inference_message, True)}, (
    "outside inference_mode, even under no_grad, the cloned shift of an inference tensor raises the inference "
    "tensor's message after writing the shifted values")
assert {cloned_shift_of_inference(torch.inference_mode, it) for it in inference_tensors()} == {(None, True)}, (
    "inside inference_mode, the cloned shift of an inference tensor gives the intended shift")
# sphinx_gallery_end_ignore

# %%
# 最近观测值的窗口
# ----------------
#
# 一个缓冲区保存最近的三个观测值，最新的在前，每一步原地平移：先用克隆的源平移，再把新的观测值写到 ``window[0]``。每一步之后，窗口的内容都与用同样方式维护的普通 Python 列表相同，也与对上一步的窗口做 ``torch.roll`` 再替换第一个元素的结果相同。

torch.manual_seed(0)
observations = torch.randn(5)
window = torch.zeros(3)
recent = [0.0, 0.0, 0.0]
for step, obs in enumerate(observations):
    rolled = torch.roll(window, 1)
    rolled[0] = obs
    window[1:] = window[:-1].clone()
    window[0] = obs
    recent = [obs.item(), *recent[:-1]]
    print(f"step {step}: window {window}")
    assert window.tolist() == recent and torch.equal(window, rolled), f"step {step}: the shifted window"

# %%
# 小结
# ----
#
# 源与目标重叠而不是逐元素对应（源的某个元素落在目标的另一个元素上）的写入，如 ``t[1:] = t[:-1]`` 或 ``s.add_(s.t())``，在本页运行的形式中有七种被拒绝，报的都是本页引用的那条报错信息；重叠也属这一类的 ``masked_scatter_``，以及 ``out=`` 设为自己输入的一行的 ``torch.sum``，运行时都没有报错，结果却与先克隆源的同一写入不同。梯度模式开启时，在需要梯度、不是推理张量的叶子张量上，以及在这种叶子张量的一行上，这次平移也被拒绝，报的是对叶子张量的视图做原地写入的那条错误，先克隆源也一样。同样的平移用在较长张量每隔一个取出的元素上，用在 3×3 张量的一列或转置上，或沿二维张量的第二维进行时，没有报错，却写出了错误的值。先克隆源（``t[1:] = t[:-1].clone()``），本页每次运行都得到了预期的平移，只有梯度模式开启时用在这样的叶子张量及其通过切片、索引或按形状的 ``view()`` 取得的视图上、用在需要梯度的张量的上文列出的三类视图上（``unbind()``、``split()``、``chunk()`` 或 ``split_with_sizes()`` 的输出，在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下对需要梯度的张量（``_base`` 不需要梯度的视图除外）取得的视图，自定义 ``autograd.Function`` 返回的视图），以及在 ``torch.inference_mode()`` 之外用在推理张量上除外；前者改在 ``torch.no_grad()`` 下、后者改在 ``torch.inference_mode()`` 之内运行，也得到了预期的平移；只是在 ``torch.no_grad()`` 下平移之后，梯度模式开启时对那三类视图做运算会报错，对它们的基张量做运算则不会。
