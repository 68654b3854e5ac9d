"""
.. _copying-clone:

``clone()``：新的内存，同一张计算图
===================================

当 ``a`` 需要梯度，而且梯度模式（grad mode）开启时（不在 ``torch.inference_mode()`` 里），``a.clone()`` 克隆出一个新张量：数值复制到了新的内存，副本却仍留在自动求导（autograd）的计算图中。它需要梯度，有 ``grad_fn``，不是叶子张量（leaf tensor）；稀疏、嵌套或 mkldnn 推理张量（inference tensor）的副本除外，在 CPU 上它不需要梯度；``a`` 若是梯度模式关闭时取的视图（view），或是 ``unbind()``、``split()``、``split_with_sizes()`` 或 ``chunk()`` 的输出，一旦它与基张量（base tensor）共享的版本计数器（version counter）推进了，``a.clone()`` 就会报错，见小结。本页先运行原博文的例子，再追踪原文以为不存在的那份梯度：由副本算出的损失，会把梯度传回 ``a``。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址；``bytes_apart`` 判断两块存储在本进程中的字节范围是否互不重叠，单凭起始地址不同还说明不了这一点；对只映射一次的内存（本页都是这样），这就是说完全不共享内存（同一个文件映射两次，两段地址范围互不重叠，内存却是共享的）。:fact:`file-mapped-twice-shares-bytes`\ 起始地址不同，本身并不能排除共享内存（:ref:`“b = a 与 b = a.data”那一页 <copying-alias>` 上就有存储起始于源张量存储之内的别名），所以本页在对副本打印出 ``same storage`` ``False`` 的地方，另有一条隐藏检查确认副本的存储与 ``a`` 的存储没有共同的字节。``read_grad`` 读取 ``t.grad``，同时记下读取时触发的警告，把两者一起返回。警告末尾附有触发它的 C++ 源码位置，``read_grad`` 把这一段截掉了。

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap (memory mapped once: no byte shared)."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    found = []
    for w in caught:
        message = str(w.message).split(" (Triggered internally")[0]
        found.append((w.category, message))
    return grad, found


# sphinx_gallery_start_ignore
overlap_source = torch.arange(4.0)
overlap_alias = torch.from_numpy(overlap_source[1:].numpy())
assert not same_storage(overlap_source, overlap_alias) and not bytes_apart(overlap_source, overlap_alias), (
    "a NumPy alias of a slice at offset 1 starts at another address, yet its storage's bytes overlap the source's")

suffix_clone = torch.tensor([1.0], requires_grad=True).clone()
with warnings.catch_warnings(record=True) as suffix_caught:
    warnings.simplefilter("always")
    assert suffix_clone.grad is None, "the .grad of a clone is None"
suffix_raw = str(suffix_caught[0].message)
suffix_head, _, suffix_tail = suffix_raw.partition(" (Triggered internally at ")
assert suffix_tail.endswith(".)") and suffix_tail[:-2].rpartition(":")[2].isdigit() and (
    read_grad(suffix_clone)[1] == [(suffix_caught[0].category, suffix_head)]), (
    "the warning on reading a clone's .grad ends with ' (Triggered internally at <C++ file>:<line>.)', "
    "which read_grad cuts off")
# sphinx_gallery_end_ignore


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
# 原博文的 clone 例子
# -------------------
#
# ``c`` 与 ``a`` 数值相同，内存各自独立。``a`` 需要梯度，梯度模式又开着，所以 ``c`` 也需要；它的 ``grad_fn`` 记下了这次复制，所以它不是叶子张量。在 ``torch.no_grad()`` 下，在 ``torch.inference_mode()`` 里（即使在其中又用了 ``torch.enable_grad()``；在 ``torch.no_grad()`` 下用它倒会恢复记录），或者源张量本不需要梯度时，``clone()`` 什么也不记录，副本是不需要梯度的叶子张量。

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
print("a.requires_grad:", a.requires_grad)
print("c.requires_grad:", c.requires_grad)
print("c.grad_fn:", type(c.grad_fn).__name__)
print("c.is_leaf:", c.is_leaf)
assert bytes_apart(a, c), "the clone must have its own memory"
# sphinx_gallery_start_ignore
assert bytes_apart(a, c), "the storage of a.clone() shares no byte with a's"
assert torch.equal(a.detach(), c.detach()), "the clone must hold the same values"
assert c.requires_grad, "the clone of a tensor that requires grad must require grad"
assert type(c.grad_fn).__name__ == "CloneBackward0", "grad_fn must be CloneBackward0"
assert not c.is_leaf, "the clone must not be a leaf"
with torch.no_grad():
    c_no_grad = a.clone()
assert not c_no_grad.requires_grad and c_no_grad.is_leaf, "a clone made under no_grad must be out of the graph"
with torch.no_grad(), torch.enable_grad():
    c_no_grad_enabled = a.clone()
assert c_no_grad_enabled.requires_grad and type(c_no_grad_enabled.grad_fn).__name__ == "CloneBackward0", (
    "enable_grad() inside no_grad() records the clone again")
with torch.inference_mode():
    c_inference = a.clone()
    with torch.enable_grad():
        c_inference_enabled = a.clone()
assert all(not c_made.requires_grad and c_made.grad_fn is None and c_made.is_leaf
           for c_made in (c_inference, c_inference_enabled)), (
    "a clone made inside inference_mode, even under enable_grad(), must be a leaf that does not require grad")
c_plain = torch.tensor([1.0, 2.0, 3.0]).clone()
assert not c_plain.requires_grad and c_plain.is_leaf, "the clone of a tensor that needs no grad must be a plain leaf"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。``c`` 有自己的存储 ``S2``，也有 ``grad_fn``。

draw_memory("c = a.clone()", a=a, c=c)

# %%
# 原文打印的 ``c`` 里，``grad_fn`` 的名字和这里不一样。

article_c = "tensor([1., 2., 3.], grad_fn=<CloneBackward>)"
this_torch_c = "tensor([1., 2., 3.], grad_fn=<CloneBackward0>)"
print("c prints as in the article:", repr(c) == article_c)
print("c as this torch prints it: ", repr(c))
assert repr(c) == this_torch_c, "c must print with CloneBackward0"
# sphinx_gallery_start_ignore
assert repr(c) != article_c, "c must print differently from the article"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    原文打印的是 ``grad_fn=<CloneBackward>``；上方输出显示，torch |torch_version| 打印的是
#    ``grad_fn=<CloneBackward0>``。变的只是反向节点的类名。

# %%
# 内存是新的：改副本，原来的张量不变
# ----------------------------------
#
# 修改放在 ``torch.no_grad()`` 里，免得自动求导记下它；这里只检验内存。

with torch.no_grad():
    c[0] = 100.0
print("a:", a)
print("c:", c)
assert torch.equal(a.detach(), torch.tensor([1.0, 2.0, 3.0])), "a must not change"
# sphinx_gallery_start_ignore
assert a._version == 0, "a's version counter must not count an edit of the clone"
assert type(c.grad_fn).__name__ == "CloneBackward0", "an edit under no_grad must not be recorded in the graph"
# sphinx_gallery_end_ignore

# %%
# 原博文的反向传播
# ----------------
#
# 原文只对由 ``a`` 算出的损失求导。``a`` 得到梯度 ``2 * a``；``c`` 不是叶子张量，它的 ``.grad`` 仍是 ``None``。在 torch |torch_version| 上，读取它还会触发 ``UserWarning``。

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
b = (a**2).sum()
b.backward()
print("a.grad:", a.grad)

c_grad, found = read_grad(c)
print("c.grad:", c_grad)
for category, message in found:
    print(category.__name__ + ":", message)
assert [category for category, _ in found] == [UserWarning], "reading c.grad must warn once"
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.tensor([2.0, 4.0, 6.0])), "a.grad must be 2 * a"
assert c_grad is None, "a non-leaf's .grad must stay None"
assert "not a leaf Tensor" in found[0][1], "the warning must say that c is not a leaf"
# sphinx_gallery_end_ignore

# %%
# 梯度从副本流回 ``a``
# --------------------
#
# 这次损失只用到 ``c``。``CloneBackward0`` 把传来的梯度原样往下传，于是梯度落进 ``a.grad``：和直接用 ``a`` 计算损失一样，都是 ``2 * a``。

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
loss = (c**2).sum()
loss.backward()
print("a.grad:", a.grad)
assert a.grad.tolist() == [2.0, 4.0, 6.0], "the clone's gradient must reach a"

# %%
# .. figure-caption::
#    :alt: 示意图：loss 的自动求导计算图，从 SumBackward0 经 PowBackward0 和 CloneBackward0 到 AccumulateGrad 和叶子张量 a。
#
#    ``loss`` 背后的计算图，从 ``loss.grad_fn`` 沿 ``next_functions`` 走下去：从副本出发的路径回到叶子张量 ``a``。

draw_graph("loss = (c**2).sum()", loss, a=a)

# %%
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    原文说 ``a`` 与副本的梯度“没有任何关系”，其实是有关系的。在梯度模式下，``clone()`` 记录在计算图中，所以到达这样的副本的梯度会继续传回 ``a``。普通的 ``backward()`` 把它累加进 ``a.grad``，上方输出正说明了这一点；``torch.autograd.grad`` 求 ``a`` 的梯度时把它作为返回值交出来，除了途经的、调用过 ``retain_grad()`` 的张量，不写任何 ``.grad``；``backward(inputs=...)`` 没有点名 ``a`` 时不动 ``a.grad``，点名 ``c`` 时则和求 ``c`` 的梯度的 ``torch.autograd.grad`` 一样，停在副本上。副本只是内存独立，在计算图中并不独立。

# %%
# 用 ``retain_grad()`` 查看副本自己的梯度
# ---------------------------------------
#
# ``c.retain_grad()`` 让自动求导保留非叶子张量 ``c`` 的梯度。损失带权重时，``c.grad`` 就是权重向量，``a.grad`` 与它完全相同：复制这一步的反向传播是恒等映射。

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
c.retain_grad()
weights = torch.tensor([1.0, 10.0, 100.0])
loss = (c * weights).sum()
loss.backward()
c_grad, found = read_grad(c)
print("c.grad:", c_grad)
print("a.grad:", a.grad)
print("warnings when reading c.grad:", len(found))
assert torch.equal(a.grad, c_grad), "a.grad must equal c.grad"
# sphinx_gallery_start_ignore
assert torch.equal(c_grad, weights), "c.grad must be the weights"
assert found == [], "reading a retained grad must not warn"
named_source = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
named_clone = named_source.clone()
named_weights = torch.tensor([1.0, 10.0, 100.0])
(named_clone * named_weights).sum().backward(inputs=[named_clone])
assert torch.equal(named_clone.grad, named_weights), "backward(inputs=[c]) fills the clone's .grad, no retain_grad()"
assert named_source.grad is None, "backward(inputs=[c]) stops at the clone: the source's .grad stays None"
stopped_source = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
stopped_clone = stopped_source.clone()
(stopped_grad,) = torch.autograd.grad((stopped_clone * named_weights).sum(), stopped_clone)
assert torch.equal(stopped_grad, named_weights) and stopped_source.grad is None, "autograd.grad stops at the clone"
for asked_kind in ("leaf", "non-leaf", "retained non-leaf"):
    for clone_retained in (False, True):
        asked_leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        asked_source = asked_leaf if asked_kind == "leaf" else asked_leaf * 2
        if asked_kind == "retained non-leaf":
            asked_source.retain_grad()
        asked_clone = asked_source.clone()
        if clone_retained:
            asked_clone.retain_grad()
        (asked_grad,) = torch.autograd.grad((asked_clone * named_weights).sum(), asked_source)
        assert torch.equal(asked_grad, named_weights) and asked_leaf.grad is None, (
            "autograd.grad asked for the source returns the clone's gradient and writes no leaf's .grad")
        assert ((read_grad(asked_clone)[0] is None) != clone_retained
                and (read_grad(asked_source)[0] is None) != (asked_kind == "retained non-leaf")), (
            "autograd.grad writes the .grad of a tensor on its way only if it called retain_grad()")
for unnamed_kind in ("leaf", "non-leaf", "retained non-leaf"):
    for on_the_way in (False, True) if unnamed_kind != "leaf" else (False,):
        unnamed_leaf, bystander = torch.tensor([1.0, 2.0, 3.0], requires_grad=True), torch.ones(3, requires_grad=True)
        unnamed_source = unnamed_leaf if unnamed_kind == "leaf" else unnamed_leaf * 2
        if unnamed_kind == "retained non-leaf":
            unnamed_source.retain_grad()
        (unnamed_source.clone() * named_weights + bystander).sum().backward(
            inputs=[unnamed_leaf] if on_the_way else [bystander])
        unnamed_grad = read_grad(unnamed_source)[0]
        assert (torch.equal(unnamed_leaf.grad, 2 * named_weights) and bystander.grad is None if on_the_way
                else unnamed_leaf.grad is None and torch.equal(bystander.grad, torch.ones(3))), (
            "backward(inputs=...) fills the .grad of the tensors it names and of no other leaf")
        assert (torch.equal(unnamed_grad, named_weights) if unnamed_kind == "retained non-leaf" and on_the_way
                else unnamed_grad is None), (
            "backward(inputs=...) leaves an unnamed source's .grad alone unless it retains grad on the way to a named one")
for grad_off in (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    for further in (False, True):
        off_base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with grad_off():
            off_view = off_base[1:]
        off_source = off_view[1:] if further else off_view
        off_clone = off_source.clone()
        assert off_view.requires_grad and off_clone.requires_grad and not off_clone.is_leaf, (
            "a view taken with grad mode off requires grad, and so does its clone, which is not a leaf")
        assert off_source.is_leaf != further and off_source._base is off_base, (
            "a view of that view taken with grad mode on is recorded, on the same base")
        (off_clone * off_clone).sum().backward()
        assert off_view.grad is None and off_base.grad is None, (
            "the clone of a view taken with grad mode off, or of a view of it, sends no gradient to the view or base")
        for asked_for in ("base", "view"):
            for allow_unused in (False, True):
                route_base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
                with grad_off():
                    route_view = route_base[1:]
                route_asked = route_base if asked_for == "base" else route_view
                route_clone = (route_view[1:] if further else route_view).clone()
                if allow_unused:
                    (route_clone * route_clone).sum().backward(inputs=[route_asked])
                    assert route_view.grad is None and route_base.grad is None, (
                        "backward(inputs=[base or view]) raises nothing and leaves both .grad at None")
                    assert torch.autograd.grad((route_clone * route_clone).sum(), route_asked, allow_unused=True) == (
                        None,), "torch.autograd.grad(..., allow_unused=True) returns None for the base or the view"
                    continue
                try:
                    torch.autograd.grad((route_clone * route_clone).sum(), route_asked)
                except RuntimeError as route_error:
                    assert "appears to not have been used in the graph" in str(route_error), (
                        "torch.autograd.grad asked for the base or the view says it was not used in the graph")
                else:
                    raise AssertionError("torch.autograd.grad asked for the base or the view raises")
with torch.inference_mode():  # 需要梯度的推理张量，其中有在那里构建的模块的参数
    inference_bases = (torch.tensor([1.0, 2.0, 3.0], requires_grad=True), torch.nn.BatchNorm1d(3).weight,
                       torch.ones(3, dtype=torch.complex64, requires_grad=True),
                       torch.ones(3, device="meta", requires_grad=True))
for grad_taken, grad_on_inside in ((torch.enable_grad, True), (torch.no_grad, False), (torch.inference_mode, False),
                                   (torch.inference_mode, True), (lambda: torch.set_grad_enabled(False), False)):
    for inference_base in inference_bases:
        for further in (False, True):
            with grad_taken(), torch.set_grad_enabled(grad_on_inside):
                inference_view = inference_base[1:]
            inference_clone = (inference_view[1:] if further else inference_view).clone()
            assert inference_base.is_inference() and inference_base.requires_grad and (
                not inference_view.requires_grad) and inference_clone.grad_fn is None, (
                "a view of an inference tensor that requires grad, taken in any grad mode, grad mode on included, "
                "does not require grad, and the clone of it, or of a view of it, has no grad_fn")
            inference_loss = (inference_clone * inference_clone).sum()
            inference_routes = (
                (inference_loss.backward, {}),
                (inference_loss.backward, {"inputs": [inference_base]}),
                (inference_loss.backward, {"inputs": [inference_view]}),
                *((torch.autograd.grad, {"outputs": inference_loss, "inputs": asked, "allow_unused": unused})
                  for asked in (inference_base, inference_view) for unused in (False, True)))
            for inference_route, route_kwargs in inference_routes:
                try:
                    inference_route(**route_kwargs)
                except RuntimeError as inference_error:
                    assert "does not require grad and does not have a grad_fn" in str(inference_error), (
                        "backward() and torch.autograd.grad of the clone of a view of an inference tensor say it "
                        "does not require grad and does not have a grad_fn")
                else:
                    raise AssertionError(
                        "backward(), with or without inputs=, and torch.autograd.grad, even with allow_unused=True, "
                        "raise on the clone of a view of an inference tensor")
for retained in (False, True):
    behind_leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    non_leaf_source = behind_leaf * 2
    if retained:
        non_leaf_source.retain_grad()
    (non_leaf_source.clone() * named_weights).sum().backward()
    non_leaf_grad, non_leaf_found = read_grad(non_leaf_source)
    assert torch.equal(behind_leaf.grad, 2 * named_weights), (
        "the clone's gradient flows through a non-leaf source on to the leaf behind it")
    assert (torch.equal(non_leaf_grad, named_weights) and non_leaf_found == []) if retained else (
        non_leaf_grad is None and len(non_leaf_found) == 1), (
        "a plain backward() leaves a non-leaf source's .grad at None unless it called retain_grad()")


def other_made(other_kind):
    """A leaf that requires grad: a Parameter, or an inference tensor made so inside torch.inference_mode() (alone,
    or the weight of a module built there)."""
    if other_kind == "Parameter":
        return torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    with torch.inference_mode():
        if other_kind == "inference tensor":
            return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return torch.nn.BatchNorm1d(3).weight


for other_kind in ("Parameter", "inference tensor", "module parameter"):
    for other_route in ("backward()", "retain_grad()", "grad(source)", "grad(clone)", "inputs=[other]", "inputs=[clone]"):
        other_source, other_leaf = other_made(other_kind), torch.ones(3, requires_grad=True)
        other_clone = other_source.clone()
        assert other_clone.requires_grad and not other_clone.is_leaf and type(other_clone.grad_fn).__name__ == (
            "CloneBackward0" if other_kind == "Parameter" else "CopyBackwards") and (
            other_source.is_inference() != (other_kind == "Parameter")), (
            "the clone of a Parameter, or of an inference tensor that requires grad, requires grad and is not a leaf; "
            "its node is CopyBackwards for the inference tensor")
        if other_route == "retain_grad()":
            other_clone.retain_grad()
        other_loss = (other_clone * named_weights + other_leaf).sum()
        if other_route.startswith("grad("):
            (other_grad,) = torch.autograd.grad(other_loss, other_clone if other_route == "grad(clone)" else other_source)
            assert torch.equal(other_grad, named_weights), "torch.autograd.grad returns the clone's gradient"
        else:
            other_loss.backward(inputs={"inputs=[other]": [other_leaf], "inputs=[clone]": [other_clone]}.get(other_route))
        other_clone_grad = read_grad(other_clone)[0]
        assert ((other_source.grad is None) != (other_route in ("backward()", "retain_grad()"))
                and (other_clone_grad is None) != (other_route in ("retain_grad()", "inputs=[clone]"))
                and (other_leaf.grad is None) != (other_route in ("backward()", "retain_grad()", "inputs=[other]"))
                and all(torch.equal(g, named_weights) for g in (other_source.grad, other_clone_grad) if g is not None)), (
            "for a Parameter or an inference tensor, a plain backward() fills the source's .grad, torch.autograd.grad "
            "and a backward(inputs=...) not naming it leave it at None, and the clone's .grad is filled only after "
            "retain_grad() or by naming it in inputs=")
# sphinx_gallery_end_ignore

# %%
# 两条路径的梯度在 ``a.grad`` 中相加
# ----------------------------------
#
# 损失同时用到 ``a`` 和它的副本时，``a.grad`` 是两部分之和：第一项贡献 ``2 * a``，第二项贡献权重。

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
loss = (a**2).sum() + (c * weights).sum()
loss.backward()
print("a.grad:", a.grad)
assert a.grad.tolist() == [3.0, 14.0, 106.0], "a.grad must be 2 * a + weights"

# %%
# ``a = 1`` 能证明什么，不能证明什么
# ----------------------------------
#
# 原文在例子最后写了 ``a = 1``，并指出 ``c`` 没有变。这一行没有改动任何张量，只是让名字 ``a``
# 改指整数 ``1``。下面用第二个名字 ``a_old`` 留住原来的张量，再取一个与它共享内存的
# ``d = a.detach()`` 作对照。执行 ``a = 1`` 之后，``c`` 和 ``d`` 都没变：可见这个办法分不清副本和共享内存的张量。

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
d = a.detach()
a_old = a
a = 1
print("a:", a)
print("a_old:", a_old)
print("c:", c)
print("d:", d)
assert torch.equal(d, torch.tensor([1.0, 2.0, 3.0])), "d, which shares memory, must be unchanged too"
# sphinx_gallery_start_ignore
assert torch.equal(c.detach(), torch.tensor([1.0, 2.0, 3.0])), "c must be unchanged"
assert same_storage(a_old, d), "d must still share memory with the old tensor"
# sphinx_gallery_end_ignore

# %%
# 对像这样位于有实际内存的设备上（不是 ``meta``）的 strided 张量，原地（in-place）修改旧张量、改动每个元素，就像这里的 ``mul_(10)``，能把两者区分开：与它共享这些元素的 ``d`` 跟着变，有独立内存的 ``c`` 不变。

with torch.no_grad():
    a_old.mul_(10)
print("a_old:", a_old)
print("c:", c)
print("d:", d)
assert torch.equal(c.detach(), torch.tensor([1.0, 2.0, 3.0])), "c must not see the edit"
# sphinx_gallery_start_ignore
assert torch.equal(d, torch.tensor([10.0, 20.0, 30.0])), "d must see the edit"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``clone()`` 只让内存独立。在梯度模式下（不在 ``torch.inference_mode()`` 里），需要梯度的张量的副本仍连在计算图上，``Parameter`` 和 strided 推理张量也一样，比如在 ``torch.inference_mode()`` 下构建的模块的参数，只是 strided 推理张量的副本带的节点是 ``CopyBackwards``，不是 ``CloneBackward0``；稀疏、嵌套或 mkldnn 推理张量则是例外，在 CPU 上它们的副本不需要梯度。这份副本需要梯度，但不是叶子张量：不调用 ``retain_grad()``、也不在 ``backward(inputs=...)`` 里点名，它的 ``.grad`` 就一直是 ``None``，见 :ref:`“非叶子张量的梯度”那一页 <questions-non-leaf-grad>`。到达副本的梯度会继续流回源张量：源张量是叶子张量时，普通的 ``backward()`` 把它累加进源张量的 ``.grad``，不是叶子张量的源张量（比如 ``x * 2``）则把它继续传给背后的叶子张量，自己的 ``.grad`` 一直是 ``None``，除非它调用过 ``retain_grad()``；``torch.autograd.grad`` 把它作为返回值交出来，除了途经的、调用过 ``retain_grad()`` 的张量，不写 ``.grad``；没有点名源张量的 ``backward(inputs=...)`` 不动它的 ``.grad``，除非源张量调用过 ``retain_grad()``，又位于通往被点名张量的路上，这一点与 ``torch.autograd.grad`` 相同；点名副本的则和求副本梯度的 ``torch.autograd.grad`` 一样，停在副本上。如果源张量是需要梯度的张量在梯度模式关闭时（在 ``torch.no_grad()`` 或 ``torch.set_grad_enabled(False)`` 下），或在 ``torch.inference_mode()`` 里（即使开了 ``torch.enable_grad()``）取的视图，且取视图的运算在梯度模式下会被自动求导记录（``detach()``、``view(dtype)``、稀疏张量的 ``indices()`` 等运算不算），或者这种视图的视图，它的基张量得不到梯度，这样取的那个视图也得不到，除非在取它的副本或它的视图之前就对它调用了 ``requires_grad_()``，但如果它的视图也是用这些方式取的，那个视图的副本即使这样也不把梯度传给它。只要那个需要梯度的张量本身既不是用 ``requires_grad_()`` 变成叶子张量的视图，也不是推理张量（用这些方式对这两种张量取的视图都不需要梯度；对需要梯度的推理张量，在 ``torch.inference_mode()`` 之外开着梯度模式取的视图也不需要梯度，比如训练时对在该模式下构建的模块的参数取的切片），``backward()`` 和点名基张量或那个视图的 ``backward(inputs=...)`` 都不报错；用 ``torch.autograd.grad`` 求基张量的梯度，或者在那个视图得不到梯度时求它的梯度，则抛出 ``RuntimeError``，说它似乎没有在计算图里用到（带 ``allow_unused=True`` 时对它返回 ``None``）。对叶子张量或非叶子张量这样取的视图，上面说的只在它与基张量共享的版本计数器推进之前成立：即使是在 ``torch.no_grad()`` 下或 ``torch.inference_mode()`` 里，对这个视图、它的基张量或基张量的另一个视图调用 ``mul_()``，或者对基张量执行一步 ``torch.optim.SGD``，都会推进这个计数器。此后在梯度模式下对这个视图取副本、对计数器推进之前取的它的视图取副本，或读取它的 ``is_leaf`` 或 ``grad_fn``，都会抛出 ``RuntimeError``，说它的基张量或基张量的另一个视图已被原地修改（its base or another view of its base has been modified inplace），不论有没有对这个视图调用过 ``requires_grad_()``；在 ``torch.no_grad()`` 下则仍能取副本。不推进版本计数器的写入（用 ``fused=True`` 构造的优化器的一步，或经由 ``.data`` 或 NumPy 的写入）则让它仍是叶子张量，它的副本不把梯度传给基张量。在梯度模式下对需要梯度的张量调用 ``unbind()``、``split()``、``split_with_sizes()`` 或 ``chunk()`` 得到的输出 ``o``，在计数器推进之后也会遇到同样的错误：在梯度模式下，``o.clone()``、``torch.empty_like(o).copy_(o)`` 和 ``o.double()`` 都会报错；请在修改之后重新取这些输出，或者复制 ``o.detach()``。对需要梯度的推理张量用这些方式或在梯度模式开着时取的视图，或者它的视图，取得的副本没有 ``grad_fn``，这一点与推理张量本身的副本不同：不论 ``backward()`` 带不带点名基张量或那个视图的 ``inputs=``，也不论求其中哪一个梯度的 ``torch.autograd.grad`` 带不带 ``allow_unused=True``，都会抛出 ``RuntimeError``，说它不需要梯度，也没有 grad_fn。要看两个张量是否共享内存，重新绑定名字看不出来；对有实际内存的设备上（不是 ``meta``）的 strided 张量，改动每个元素的原地修改会落到与它共享这些元素的张量上，就像上面落到 ``d`` 上那样，而有独立内存的副本，比如 ``c``，保持原样。稀疏 COO 张量则不行：它的 ``mul_``、``add_``、``zero_`` 或 ``copy_`` 会让被修改的一方把数值换到新的内存里，原先与它共享这些数值的 ``a.detach()`` 就看不到这次修改。想让副本也脱离计算图，请用 ``detach().clone()``，见 :ref:`“最保险的复制”那一页 <copying-safe-copy>`。
# :fact:`inference-leaf-clone-in-graph` :fact:`clone-of-no-grad-view-passes-no-gradient`
# :fact:`no-grad-view-edit-breaks-clone` :fact:`split-output-edit-breaks-clone`
# :fact:`detach-sparse-coo-edit-not-shared`
