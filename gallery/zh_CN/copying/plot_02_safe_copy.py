"""
.. _copying-safe-copy:

``a.detach().clone()``：最保险的复制
====================================

原博文说，``a.detach().clone()`` 是复制张量最保险的办法：结果既脱离计算图，又有自己的内存。本页逐一验证这两点，再演示无论改哪一边，另一边都不受影响。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# 在有真实内存的设备上（不包括 ``meta``：那里每块存储的起始地址都是 0），两个张量的存储都有字节时，存储起始地址相同，就说明它们共享内存（至于它们是否还有共同的元素，是另一个问题，见 :ref:`“两个张量是否共享内存”那一页 <questions-memory-overlap>`）。起始地址不同，本身并不能排除共享内存（:ref:`“b = a 与 b = a.data”那一页 <copying-alias>` 上就有存储起始于源张量存储之内的别名），所以本页凡是对 ``a`` 的副本打印出 ``same storage`` ``False`` 的地方，都另有一条检查用下面的 ``bytes_apart`` 确认副本的存储与 ``a`` 的存储没有共同的字节。没有字节的存储（比如新建的空张量 ``torch.empty(0)`` 的存储）没有内存可共享，所以下面的辅助函数不适用于它，也不适用于在内部类 ``torch._subclasses.fake_tensor.FakeTensorMode`` 下创建的伪张量（fake tensor），即使它的设备显示为 ``cpu``。
#
# ``bytes_apart`` 判断两个张量的存储在本进程中的字节范围是否互不重叠；对只映射一次的内存（本页都是这样），这就是说完全不共享内存（同一个文件映射两次，两段地址范围互不重叠，内存却是共享的）。
# :fact:`file-mapped-twice-shares-bytes`

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap (memory mapped once: no byte shared)."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


# sphinx_gallery_start_ignore
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.zeros(2, device="meta"), torch.ones(3, dtype=torch.int64, device="meta"),
    torch.empty(0, dtype=torch.complex64, device="meta"), torch.zeros(4, dtype=torch.float8_e4m3fn, device="meta"),
    torch.arange(12.0).reshape(3, 4).to("meta")[1:].t())), (
    "on meta every storage starts at address 0: float, integer, complex, float8, empty, moved there or a view")
assert same_storage(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), (
    "on meta same_storage finds unrelated tensors sharing memory")
assert torch.empty(0).untyped_storage().nbytes() == 0, "the storage of a freshly made empty tensor has no bytes"



overlap_source = torch.arange(4.0)
overlap_alias = torch.from_numpy(overlap_source[1:].numpy())
assert not same_storage(overlap_source, overlap_alias) and not bytes_apart(overlap_source, overlap_alias), (
    "a NumPy alias of a slice at offset 1 starts at another address, yet its storage's bytes overlap the source's")
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
# 做一份副本
# ----------
#
# ``a`` 是需要梯度的叶子张量（leaf tensor）。``detach()`` 先得到一个在计算图之外、与 ``a`` 共享内存的张量，``clone()`` 再把它复制到新的内存里。

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.detach().clone()
print("a:", a)
print("b:", b)
print("same storage:", same_storage(a, b))
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), b), "the copy must hold the same values"
assert same_storage(a, a.detach()), "detach() must share a's memory"
# sphinx_gallery_end_ignore
assert bytes_apart(a, b), "the copy must have its own memory"
# sphinx_gallery_start_ignore
assert bytes_apart(a, b), "the storage of a.detach().clone() shares no byte with a's"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 b，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。``b`` 有自己的存储 ``S2``。

draw_memory("b = a.detach().clone()", a=a, b=b)

# %%
# 脱离计算图
# ----------
#
# 副本不需要梯度，没有 ``grad_fn``，而且是叶子张量。在自动求导（autograd）看来，它是一个全新的常量，与 ``a`` 毫无关系。

print("b.requires_grad:", b.requires_grad)
print("b.grad_fn:", b.grad_fn)
print("b.is_leaf:", b.is_leaf)
assert b.requires_grad is False, "the copy must not require grad"
# sphinx_gallery_start_ignore
assert b.grad_fn is None, "the copy must have no grad_fn"
assert b.is_leaf, "the copy must be a leaf"
# sphinx_gallery_end_ignore

# %%
# 从副本出发，自动求导无路可走：只由 ``b`` 算出的损失，根本无法求导。

loss = (b**2).sum()
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "does not require grad" in str(e), "the error must say that the loss does not require grad"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward through the copy must fail")
print("a.grad:", a.grad)
# sphinx_gallery_start_ignore
assert a.grad is None, "a must receive no gradient from the copy"
# sphinx_gallery_end_ignore

# %%
# 修改副本，原来的张量不变
# ------------------------
#
# 往 ``b`` 里写入，``a`` 不变。

b[0] = 100.0
print("a:", a)
print("b:", b)
assert torch.equal(a.detach(), torch.tensor([1.0, 2.0, 3.0])), "a must not change"
# sphinx_gallery_start_ignore
assert a._version == 0, "a's version counter must not count an edit of the copy"
# sphinx_gallery_end_ignore

# %%
# 修改原来的张量，副本不变
# ------------------------
#
# 反过来也一样。``a`` 是需要梯度的叶子张量，在梯度模式（grad mode）下、``torch.inference_mode()`` 之外，torch 不允许对它调用 ``a.mul_(10)``
# 这个原地（in-place）操作，见 :ref:`“重新绑定与原地更新”那一页 <copying-rebinding>`。所以这里的修改放在 ``torch.no_grad()`` 里。
# :fact:`leaf-refuses-inplace`

with torch.no_grad():
    a.mul_(10)
print("a:", a)
print("b:", b)
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), torch.tensor([10.0, 20.0, 30.0])), "a.mul_(10) under no_grad() made a [10, 20, 30]"
# sphinx_gallery_end_ignore
assert torch.equal(b, torch.tensor([100.0, 2.0, 3.0])), "b must not change"

# %%
# PyTorch 也推荐这种写法
# ----------------------
#
# ``torch.tensor(a)`` 也会复制，但会发出警告；在 torch |torch_version| 上，警告里推荐的正是 ``detach().clone()``。这里有意捕获这条警告，并把它打印出来。

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = torch.tensor(a)
for w in caught:
    print(w.category.__name__ + ":", w.message)
print("t:", t)
print("same storage:", same_storage(a, t))
assert "detach().clone()" in str(caught[0].message), "the warning must recommend detach().clone()"
# sphinx_gallery_start_ignore
assert len(caught) == 1, "torch.tensor(a) must warn once"
assert caught[0].category is UserWarning, "the warning must be a UserWarning"
assert bytes_apart(a, t), "torch.tensor(a) gave a copy with its own storage"
assert bytes_apart(a, t), "the storage of torch.tensor(a) shares no byte with a's"
# sphinx_gallery_end_ignore

# %%
# ``torch.as_tensor`` 和 ``torch.asarray``：“转成张量”，而不是“复制”
# ------------------------------------------------------------------
#
# 传入的已经是张量、又没有设置默认设备时，``torch.as_tensor(a)`` 和 ``torch.asarray(a)`` 返回的就是这个张量本身，计算图也原样带着：它们是给“接受列表、数组或张量，最后要得到一个张量”的代码用的。但需要梯度的推理张量（inference tensor），比如在 ``torch.inference_mode()`` 下构建的模块的参数，在该模式之外会让 ``torch.asarray(a)`` 抛出 ``RuntimeError``。``torch.asarray`` 在指定 ``copy=True`` 时会复制（这样的张量也一样，不报错）；但在 torch |torch_version| 上，不指定 ``requires_grad=`` 时副本随 ``a``：给定需要梯度的张量，副本也需要梯度，所以指定整数或 bool 的 ``dtype=`` 时（这种张量不能需要梯度），不论带不带 ``copy=True``，``torch.asarray`` 都会抛出 ``RuntimeError``，除非同时传入 ``requires_grad=False``，那样得到的是该 dtype 的副本。这里检查的源张量是在 ``torch.inference_mode()`` 之外创建的稠密叶子张量、非叶子张量、``Parameter`` 和叶子张量的视图（view）；对它们，梯度模式开着时（不在 ``torch.inference_mode()`` 里），副本留在计算图里，和 ``a.clone()`` 一样；在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下，它是一个仍需要梯度的新叶子张量，在 ``torch.inference_mode()`` 下还是推理张量，而 ``a.clone()`` 得到的张量不需要梯度。再加上 ``requires_grad=False``，得到的就是计算图之外的副本，数值与 ``a.detach().clone()`` 相同。默认设备（用 ``torch.set_default_device`` 或 ``with torch.device(...)`` 设置）是 ``"cpu:0"`` 或 ``meta`` 时，对像本页这样的稠密 CPU 张量 ``a``，只要它是 float32、int64、bool 或 complex64，且不是嵌套、mkldnn 或量化张量，``torch.as_tensor(a)`` 和 ``torch.asarray(a)`` 返回一个新张量，形状和 dtype 与 ``a`` 相同，设备类型与默认设备相同。在 ``"cpu:0"`` 下，它是 ``a`` 的值的副本，有自己的内存，设备是 ``cpu``，与 ``a`` 的相同：默认设备 ``torch.device("cpu:0")`` 不等于 ``a`` 的设备 ``torch.device("cpu")``，``a`` 被复制了，但最后几行显示，副本的设备是 ``cpu``，不是 ``cpu:0``。在 ``meta`` 上，它不存任何值。在 ``"cpu"`` 下，``a`` 原样返回；在 ``torch.device("meta")`` 下，``meta`` 上的张量 ``on_meta`` 也原样返回；``on_meta`` 没有可复制的数据，在 ``"cpu"`` 或 ``"cpu:0"`` 下，这两个函数会抛出 ``NotImplementedError``。
# :fact:`default-device-makes-as-tensor-copy`
#
# 给定需要梯度的张量、又不指定 ``requires_grad=`` 时，不论带不带 ``copy=True``，``torch.asarray`` 都会就 ``requires_grad=`` 默认值的改变发出警告（``UserWarning``，下面的代码捕获它，但不打印），但每个进程只在第一次这样调用时发出（调用过 ``torch.set_warn_always(True)`` 之后则每次都发）；传入 ``requires_grad=`` 的调用（带不带 ``copy=True`` 都一样）和 ``torch.as_tensor`` 都不会发出警告。
# :fact:`asarray-warns-once-without-requires-grad`
#
# 本段的调用都是在没有设置默认设备时做的。不带 ``copy=True`` 时，要消除这条警告，就传入 ``requires_grad=a.requires_grad``：给定张量 ``a``，它返回 ``a`` 本身，``a`` 的 ``requires_grad``、``grad_fn`` 和类型都不变（``Parameter`` 仍是 ``Parameter``）；对需要梯度的张量，``requires_grad=True`` 也一样。对需要梯度的推理张量，在 ``torch.inference_mode()`` 之外，这两种调用都与 ``torch.asarray(a)`` 一样抛出 ``RuntimeError``。``requires_grad=False`` 同样能消除警告，但给定自身需要梯度的叶子张量时（比如用 ``requires_grad=True`` 建的张量，或 ``Parameter``），它会改动这个叶子张量：``torch.asarray(a, requires_grad=False)`` 返回 ``a`` 本身，并原地关掉它的 ``requires_grad``。梯度模式关闭时（在 ``torch.no_grad()``、``torch.inference_mode()`` 或 ``torch.set_grad_enabled(False)`` 下）对需要梯度的张量取的视图，只要这个张量不是推理张量，本身也不是视图（用 ``requires_grad_()`` 变成叶子张量的视图仍算视图），而取视图的运算在梯度模式下会被自动求导记录（``detach()``、``view(dtype)``、稀疏张量的 ``indices()`` 等运算不算，它们得到的张量不需要梯度），也是叶子张量，但它需要梯度，是因为它的基张量（base tensor）需要梯度：``torch.asarray(view, requires_grad=False)`` 原样返回这个视图本身，它仍需要梯度。``torch.asarray(view)``、``requires_grad=view.requires_grad`` 和 ``requires_grad=True`` 返回的也是这个视图本身，却像 ``view.requires_grad_()`` 一样改动了它（见 :ref:`“clone()”那一页 <copying-clone>`）：之后对它取的副本会把梯度传给它，写进它的 ``.grad``，而不做这个调用时，它的 ``.grad`` 一直是 ``None``；``torch.as_tensor(view)`` 则不改动它。这样的视图只在它与基张量共享的版本计数器（version counter）推进之前才是叶子张量：即使是在 ``torch.no_grad()`` 下，对这个视图、它的基张量或基张量的另一个视图调用 ``mul_()``，或者对基张量执行一步 ``torch.optim.SGD``，都会推进这个计数器。此后在梯度模式下读取它的 ``is_leaf`` 或对它取副本，都会抛出 ``RuntimeError``，不论之前有没有对它调用 ``requires_grad_()`` 或 ``torch.asarray(view, requires_grad=True)``。不推进版本计数器的写入（用 ``fused=True`` 构造的优化器的一步，或经由 ``.data`` 或 NumPy 的写入）则让它仍是叶子张量。用这样的运算对需要梯度的 strided 推理张量取的视图，不论在哪种梯度模式下取（梯度模式开着时也一样），也不论在 ``torch.inference_mode()`` 之外还是之内，都是不需要梯度的叶子张量：训练时对在 ``torch.inference_mode()`` 下构建的模块的参数取的切片就是这样的视图。``torch.asarray(view)``、``requires_grad=view.requires_grad`` 和 ``requires_grad=False`` 都原样返回它；在 ``torch.inference_mode()`` 之外调用时，``requires_grad=True`` 抛出上面那个 ``RuntimeError``，在该模式里调用时则返回这个视图，并打开它的 ``requires_grad``。给定非叶子张量 ``y`` 时，``torch.asarray(y, requires_grad=False)`` 让 ``y`` 保持原样（``requires_grad`` 和 ``grad_fn`` 都不变），返回的是一个与之共享内存、脱离计算图的张量。反过来，给定不需要梯度的浮点张量（推理张量除外），``torch.asarray(x, requires_grad=True)`` 返回 ``x`` 本身，并原地打开它的 ``requires_grad``：它不会做出可训练的副本。
# :fact:`asarray-requires-grad-without-copy` :fact:`no-grad-view-edit-breaks-clone`

with warnings.catch_warnings(record=True) as asarray_caught:  # 捕获 torch 的那条警告（每个进程只发一次）
    warnings.simplefilter("always")
    by_default = torch.asarray(a, copy=True)
# sphinx_gallery_start_ignore
assert len(asarray_caught) <= 1 and all(
    asarray_warning.category is UserWarning and "requires_grad" in str(asarray_warning.message)
    for asarray_warning in asarray_caught), (
    "torch.asarray(a, copy=True) warns at most once, a UserWarning about the default of requires_grad")
with warnings.catch_warnings(record=True) as again_caught:
    warnings.simplefilter("always")
    torch.asarray(a, copy=True)
assert not again_caught, "torch.asarray(a, copy=True) gives its warning once per process"
with warnings.catch_warnings(record=True) as explicit_caught:
    warnings.simplefilter("always")
    torch.asarray(a, copy=True, requires_grad=True)
    torch.asarray(a, copy=True, requires_grad=False)
assert not explicit_caught, "with requires_grad passed, torch.asarray(a, copy=True) does not warn"
# sphinx_gallery_end_ignore
made = {
    "torch.as_tensor(a)": torch.as_tensor(a),
    "torch.asarray(a)": torch.asarray(a),
    "torch.asarray(a, copy=True)": by_default,
    "torch.asarray(a, copy=True, requires_grad=False)": torch.asarray(a, copy=True, requires_grad=False),
}
for name, made_tensor in made.items():
    node = type(made_tensor.grad_fn).__name__ if made_tensor.grad_fn else None
    print(f"{name}: is a {made_tensor is a}, same storage {same_storage(a, made_tensor)}, grad_fn {node}")
assert made["torch.as_tensor(a)"] is a and made["torch.asarray(a)"] is a, "both return a itself"
assert bytes_apart(a, by_default) and type(by_default.grad_fn).__name__ == "CloneBackward0", (
    "torch.asarray(a, copy=True) is a copy recorded as CloneBackward0")
outside = made["torch.asarray(a, copy=True, requires_grad=False)"]
assert bytes_apart(a, outside) and outside.grad_fn is None and not outside.requires_grad, (
    "torch.asarray(a, copy=True, requires_grad=False) is a copy that needs no grad")
assert torch.equal(outside, a.detach().clone()), "the same values as a.detach().clone()"
# sphinx_gallery_start_ignore
assert bytes_apart(a, by_default) and bytes_apart(a, outside), (
    "the storages of torch.asarray(a, copy=True), with or without requires_grad=False, share no byte with a's")
# sphinx_gallery_end_ignore
for mode_name, grad_mode in {"torch.no_grad()": torch.no_grad, "torch.inference_mode()": torch.inference_mode}.items():
    with grad_mode():
        followed, cloned = torch.asarray(a, copy=True), a.clone()
    print(f"under {mode_name}: asarray copy requires_grad {followed.requires_grad}, is_leaf {followed.is_leaf}, "
          f"inference {followed.is_inference()}; a.clone() requires_grad {cloned.requires_grad}")
    assert followed.requires_grad and followed.is_leaf and not cloned.requires_grad, (
        "outside grad mode the asarray copy is a leaf that requires grad, and a.clone() does not require grad")
# sphinx_gallery_start_ignore
sources_that_require_grad = {
    "leaf": lambda: torch.tensor([1.0, 2.0], requires_grad=True),
    "non-leaf": lambda: torch.tensor([1.0, 2.0], requires_grad=True) * 2,
    "Parameter": lambda: torch.nn.Parameter(torch.tensor([1.0, 2.0])),
    "view of a leaf": lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True)[1:],
}
for make_source in sources_that_require_grad.values():
    for grad_mode_made in (torch.enable_grad, torch.no_grad, torch.inference_mode):
        source = make_source()
        with grad_mode_made():
            copy_made, switched_off, clone_made = (torch.asarray(source, copy=True),
                                                   torch.asarray(source, copy=True, requires_grad=False),
                                                   source.clone())
        assert copy_made.requires_grad and bytes_apart(source, copy_made), (
            "without requires_grad, torch.asarray(x, copy=True) of a tensor that requires grad is a copy that "
            "requires grad, in every grad mode")
        graph_kept = grad_mode_made is torch.enable_grad
        assert (type(copy_made.grad_fn).__name__ == "CloneBackward0") == graph_kept == (not copy_made.is_leaf), (
            "the asarray copy is in the graph (CloneBackward0) with grad mode on, and a leaf under no_grad and "
            "inference_mode")
        assert clone_made.requires_grad == graph_kept, "x.clone() requires grad only with grad mode on"
        assert copy_made.is_inference() == (grad_mode_made is torch.inference_mode), (
            "under inference_mode the asarray copy is an inference tensor")
        assert not switched_off.requires_grad and switched_off.grad_fn is None and bytes_apart(
            source, switched_off) and torch.equal(switched_off, source.detach()), (
            "torch.asarray(x, copy=True, requires_grad=False) is a copy outside the graph in every grad mode")
    source = make_source()
    with torch.inference_mode(), torch.enable_grad():
        copy_made, clone_made = torch.asarray(source, copy=True), source.clone()
    assert copy_made.requires_grad and copy_made.is_leaf and copy_made.is_inference() and not clone_made.requires_grad, (
        "inside inference_mode, even under enable_grad(), the asarray copy is an inference leaf that requires grad, and "
        "x.clone() does not require grad")
# sphinx_gallery_end_ignore
for device in ("cpu:0", "meta"):
    with torch.device(device):
        moved = torch.as_tensor(a), torch.asarray(a)
    print(f"under torch.device({device!r}): is a {[m is a for m in moved]}, device {[str(m.device) for m in moved]}")
    assert all(m is not a and m.device.type == torch.device(device).type and m.shape == a.shape and m.dtype == a.dtype
               for m in moved), (
        f"under torch.device({device!r}) as_tensor(a) and asarray(a) are new tensors on a device of that type, "
        "with a's shape and dtype")
on_meta = torch.ones(3, device="meta")
with torch.device("meta"):
    kept = torch.as_tensor(on_meta), torch.asarray(on_meta)
print('under torch.device("meta"), as_tensor/asarray of a meta tensor is that tensor:', [k is on_meta for k in kept])
# sphinx_gallery_start_ignore
assert all(k is on_meta for k in kept), 'under torch.device("meta") as_tensor and asarray return a meta tensor itself'
with torch.device("cpu:0"):
    copied_under_cpu0 = torch.as_tensor(a), torch.asarray(a)
    assert all(m.device == a.device != torch.get_default_device() for m in copied_under_cpu0), (
        'under torch.device("cpu:0") the copies made by as_tensor(a) and asarray(a) are on a\'s device cpu, which '
        'does not equal the default device cpu:0')
assert all(bytes_apart(a, m) and bytes_apart(a, m) and torch.equal(m, a) for m in copied_under_cpu0), (
    'under torch.device("cpu:0") as_tensor(a) and asarray(a) hold a copy of a\'s values, in memory of their own')
with torch.device("cpu"):
    assert torch.as_tensor(a) is a and torch.asarray(a) is a, 'under torch.device("cpu") as_tensor(a) and asarray(a) return a'
with torch.device("meta"):
    emptied_on_meta = torch.as_tensor(a), torch.asarray(a)
for emptied_ in emptied_on_meta:
    try:
        emptied_.tolist()
    except NotImplementedError:
        pass
    else:
        raise AssertionError('under torch.device("meta") as_tensor(a) and asarray(a) hold no values to read')
with torch.device("cpu:0"):
    made_under_cpu0 = torch.ones(3)
    assert str(made_under_cpu0.device) == "cpu" and all(bytes_apart(made_under_cpu0, m) for m in (
        torch.as_tensor(made_under_cpu0), torch.asarray(made_under_cpu0))), (
        'a tensor made under "cpu:0" is on "cpu", and as_tensor and asarray copy it there')
# 源张量不是叶子张量时也一样：as_tensor 和 asarray 原样返回它，连同它的计算图。
doubled = a * 2
assert torch.as_tensor(doubled) is doubled and torch.asarray(doubled) is doubled, "no copy of a non-leaf either"
doubled_node = doubled.grad_fn
doubled_alias = torch.asarray(doubled, requires_grad=False)
assert doubled_alias is not doubled and same_storage(doubled, doubled_alias) and doubled_alias.grad_fn is None and (
    not doubled_alias.requires_grad) and doubled.requires_grad and doubled.grad_fn is doubled_node, (
    "torch.asarray(a * 2, requires_grad=False) leaves a * 2 as it was and returns a tensor on its memory, outside "
    "the graph")
assert torch.asarray(doubled, copy=True, requires_grad=False).grad_fn is None, (
    "torch.asarray(a * 2, copy=True, requires_grad=False) has no grad_fn")
with torch.inference_mode():
    inference_sources = (torch.nn.BatchNorm1d(3).weight, torch.ones(3, requires_grad=True))
for inference_source in inference_sources:
    assert inference_source.is_inference() and inference_source.requires_grad, (
        "a parameter of a module built under inference_mode, or a tensor made there with requires_grad=True, is an "
        "inference tensor that requires grad")
    for grad_mode_outside in (torch.enable_grad, torch.no_grad, lambda: torch.set_grad_enabled(False)):
        with grad_mode_outside():
            assert torch.as_tensor(inference_source) is inference_source, (
                "torch.as_tensor returns an inference tensor that requires grad itself, outside inference_mode")
            for asarray_kwargs in ({}, {"requires_grad": inference_source.requires_grad}, {"requires_grad": True}):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        torch.asarray(inference_source, **asarray_kwargs)
                except RuntimeError as inference_error:
                    assert "Setting requires_grad=True on inference tensor outside InferenceMode" in str(
                        inference_error), "the error says requires_grad=True is not allowed outside InferenceMode"
                else:
                    raise AssertionError("outside inference_mode, torch.asarray(x), torch.asarray(x, requires_grad="
                                         "x.requires_grad) and torch.asarray(x, requires_grad=True) raise on an "
                                         "inference tensor x that requires grad")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                inference_copies = [torch.asarray(inference_source, copy=True, **asarray_kwargs) for asarray_kwargs in (
                    {}, {"requires_grad": False}, {"requires_grad": True})]
            assert all(bytes_apart(inference_copy, inference_source) and not inference_copy.is_inference()
                       for inference_copy in inference_copies), (
                "outside inference_mode, torch.asarray(x, copy=True) of an inference tensor x that requires grad raises "
                "nothing and is an ordinary copy, with or without requires_grad=")
            assert inference_copies[0].requires_grad and inference_copies[0].is_leaf != (
                grad_mode_outside is torch.enable_grad), (
                "without requires_grad=, that copy requires grad: in the graph with grad mode on, a leaf with it off")
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert all(torch.asarray(inference_source, **asarray_kwargs) is inference_source for asarray_kwargs in (
            {}, {"requires_grad": True})), "inside inference_mode torch.asarray returns that inference tensor itself"
for grad_mode_taken in (torch.enable_grad, torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    off_base, sparse_base = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True).to_sparse()
    with grad_mode_taken():
        unrecorded_views = (off_base.detach(), off_base.view(torch.float32), off_base.view(torch.int32),
                            sparse_base.indices())
    assert sparse_base.requires_grad and not any(unrecorded.requires_grad for unrecorded in unrecorded_views), (
        "detach(), view(dtype) and a sparse tensor's indices() of a tensor that requires grad do not require grad")
view_bases = (lambda: torch.ones(3, requires_grad=True), lambda: torch.nn.Parameter(torch.ones(3)),
              lambda: torch.ones(3, requires_grad=True) * 2)  # 叶子张量、Parameter 和非叶子张量，都不是视图
recorded_views = (lambda view_base: view_base[1:], lambda view_base: view_base.view(3, 1),
                  lambda view_base: view_base.expand(2, 3), lambda view_base: view_base.unbind()[0],
                  lambda view_base: view_base.t())
for grad_off in (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    for make_base in view_bases:
        for grad_mode_asked in (torch.enable_grad, torch.no_grad):
            for take_view in recorded_views:
                off_base = make_base()
                with grad_off():
                    off_view = take_view(off_base)
                with grad_mode_asked():
                    kept_view = torch.asarray(off_view, requires_grad=False)
                assert same_storage(off_base, off_view) and kept_view is off_view and off_view.is_leaf and (
                    off_view.requires_grad), (
                    "torch.asarray(view, requires_grad=False) of a view taken with grad mode off of a tensor that "
                    "requires grad returns that view itself, a leaf that still requires grad")
with torch.inference_mode():  # 另加一个复数张量和一个 meta 上的张量
    viewed_inference_sources = (*inference_sources, torch.ones(3, dtype=torch.complex64, requires_grad=True),
                                torch.ones(3, device="meta", requires_grad=True))
for view_grad_mode, grad_on_inside in ((torch.enable_grad, True), (torch.no_grad, False), (torch.inference_mode, False),
                                       (torch.inference_mode, True), (lambda: torch.set_grad_enabled(False), False)):
    for inference_source in viewed_inference_sources:
        for grad_mode_asked in (torch.enable_grad, torch.no_grad):
            for take_view in recorded_views:
                with view_grad_mode(), torch.set_grad_enabled(grad_on_inside):
                    inference_view = take_view(inference_source)
                with grad_mode_asked(), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    inference_view_kept = [torch.asarray(inference_view, **asarray_kwargs) for asarray_kwargs in (
                        {}, {"requires_grad": inference_view.requires_grad}, {"requires_grad": False})]
                    try:
                        torch.asarray(inference_view, requires_grad=True)
                    except RuntimeError as inference_view_error:
                        assert "Setting requires_grad=True on inference tensor outside InferenceMode" in str(
                            inference_view_error), (
                            "on a view of an inference tensor, requires_grad=True raises that it is not allowed "
                            "outside InferenceMode")
                    else:
                        raise AssertionError("torch.asarray(view, requires_grad=True) raises on a view taken in any "
                                             "grad mode of an inference tensor that requires grad")
                assert inference_source.is_inference() and inference_source.requires_grad and (
                    inference_view.is_leaf) and not inference_view.requires_grad and all(
                    returned_view is inference_view for returned_view in inference_view_kept), (
                    "a view taken in any grad mode, grad mode on included, of an inference tensor that requires grad "
                    "is a leaf that does not require grad, and torch.asarray(view), alone or with "
                    "requires_grad=view.requires_grad or requires_grad=False, returns it unchanged")
                with torch.inference_mode(), grad_mode_asked():
                    switched_inference_view = torch.asarray(inference_view, requires_grad=True)
                assert switched_inference_view is inference_view and inference_view.requires_grad, (
                    "inside inference_mode, torch.asarray(view, requires_grad=True) returns that view of an inference "
                    "tensor with its requires_grad switched on")
off_view_calls = {  # 对梯度模式关闭时取的视图的调用，以及此后它的副本是否把梯度传给它
    "torch.asarray(view)": (lambda v: torch.asarray(v), True),
    "requires_grad=view.requires_grad": (lambda v: torch.asarray(v, requires_grad=v.requires_grad), True),
    "requires_grad=True": (lambda v: torch.asarray(v, requires_grad=True), True),
    "requires_grad=False": (lambda v: torch.asarray(v, requires_grad=False), False),
    "torch.as_tensor(view)": (lambda v: torch.as_tensor(v), False),
}
for grad_off in (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    for make_base in view_bases:
        for grad_mode_asked in (torch.enable_grad, torch.no_grad):
            for call_on_view, passes_gradient in (*off_view_calls.values(), (None, False)):
                for take_view in recorded_views:
                    off_base = make_base()
                    with grad_off():
                        off_view = take_view(off_base)
                    with grad_mode_asked(), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        called_view = off_view if call_on_view is None else call_on_view(off_view)
                    assert called_view is off_view, (
                        "torch.asarray and torch.as_tensor of a view taken with grad mode off return that view itself")
                    off_view.clone().sum().backward()
                    assert (not off_base.is_leaf or off_base.grad is None) and (
                        torch.equal(off_view.grad, torch.ones_like(off_view)) if passes_gradient
                        else off_view.grad is None), (
                        "after torch.asarray(view), alone or with requires_grad=view.requires_grad or requires_grad="
                        "True, a clone of a view taken with grad mode off passes the view a gradient; after "
                        "torch.as_tensor(view), requires_grad=False or no call, its .grad stays None")
sources_without_grad = {
    "tensor": lambda dtype: torch.ones(3, dtype=dtype),
    "view of it": lambda dtype: torch.ones(3, dtype=dtype)[1:],
    "detached leaf": lambda dtype: torch.ones(3, dtype=dtype, requires_grad=True).detach(),
    "Parameter": lambda dtype: torch.nn.Parameter(torch.ones(3, dtype=dtype), requires_grad=False),
}
for make_plain in sources_without_grad.values():
    for plain_dtype in (torch.float32, torch.float64, torch.bfloat16):
        for grad_mode_called in (torch.enable_grad, torch.no_grad, torch.inference_mode):
            plain = make_plain(plain_dtype)
            with grad_mode_called():
                switched_on = torch.asarray(plain, requires_grad=True)
            assert switched_on is plain and plain.requires_grad and type(plain) is type(make_plain(plain_dtype)), (
                "torch.asarray(x, requires_grad=True) of a tensor that does not require grad returns x itself, "
                "its requires_grad switched on in place")
whole_dtypes = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16, torch.uint32, torch.uint64,
                torch.bool)
whole_sources = (*sources_that_require_grad.values(),
                 *(lambda inference_kept=inference_kept: inference_kept for inference_kept in inference_sources))
for make_source in whole_sources:
    for grad_mode_made in (torch.enable_grad, torch.no_grad, torch.inference_mode):
        for whole_dtype in whole_dtypes:
            for copy_asked in ({}, {"copy": True}):
                whole_source = make_source()
                with grad_mode_made(), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        torch.asarray(whole_source, dtype=whole_dtype, **copy_asked)
                    except RuntimeError as whole_error:
                        assert "Only Tensors of floating point and complex dtype can require gradients" in str(
                            whole_error), "the error says only floating-point and complex tensors can require grad"
                    else:
                        raise AssertionError("given a tensor that requires grad, torch.asarray with an integer or bool "
                                             "dtype=, with or without copy=True, raises")
                    whole_copy = torch.asarray(whole_source, dtype=whole_dtype, requires_grad=False, **copy_asked)
                assert whole_copy.dtype == whole_dtype and not whole_copy.requires_grad and bytes_apart(
                    whole_source, whole_copy), (
                    "with requires_grad=False as well, torch.asarray gives a copy of that integer or bool dtype")
# sphinx_gallery_end_ignore


# %%
# ``clone().detach()``：结果一样，只是绕了远路
# --------------------------------------------
#
# 反过来的顺序同样得到数值相等、内存独立、不带计算图的张量。区别在于做的事：``a.clone()`` 先在计算图里记下一个 ``CloneBackward0`` 节点，随后 ``detach()`` 又把它丢掉；``a.detach().clone()`` 克隆的是不需要梯度的张量，什么也不会被记录。

the_long_way, the_short_way = a.clone().detach(), a.detach().clone()
print("a.clone().grad_fn:", type(a.clone().grad_fn).__name__, " a.detach().clone().grad_fn:", a.detach().clone().grad_fn)
print("equal:", torch.equal(the_long_way, the_short_way),
      " same storage as a:", same_storage(a, the_long_way), same_storage(a, the_short_way),
      " requires_grad:", the_long_way.requires_grad, the_short_way.requires_grad)  # fmt: skip
assert (
    torch.equal(the_long_way, the_short_way) and not the_long_way.requires_grad and not the_short_way.requires_grad
), "a.clone().detach() equals a.detach().clone(), and neither requires grad"
assert bytes_apart(a, the_long_way) and bytes_apart(a, the_short_way), "each has memory of its own"
assert type(a.clone().grad_fn).__name__ == "CloneBackward0" and a.detach().clone().grad_fn is None, (
    "a.clone() records CloneBackward0; a.detach().clone() records no node")
# sphinx_gallery_start_ignore
assert bytes_apart(a, the_long_way) and bytes_apart(a, the_short_way), (
    "the storages of a.clone().detach() and a.detach().clone() share no byte with a's")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``a.detach().clone()`` 得到的张量数值相同、内存独立、与计算图无关：改哪一边都不影响另一边，梯度也不会流回 ``a``。后面两页把这两步拆开来看：只用 ``clone()``，副本仍在计算图里，见 :ref:`“clone()”那一页 <copying-clone>`；只用 ``detach()``，结果仍共享内存，见 :ref:`“detach()”那一页 <copying-detach>`。没有设置默认设备时，``torch.as_tensor(a)`` 和 ``torch.asarray(a)`` 不是副本：它们返回的就是 ``a`` 本身（但在 ``torch.inference_mode()`` 之外，``torch.asarray(a)`` 遇到需要梯度的推理张量会报错）。
