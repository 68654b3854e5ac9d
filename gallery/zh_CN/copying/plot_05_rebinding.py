"""
.. _copying-rebinding:

``a = a - a.grad`` 与 ``a -= a.grad``：重新绑定与原地更新
=========================================================

原博文的第三个例子先取 ``c = a.detach()``，做一次反向传播，再写 ``a = a - a.grad``。这一行让名字 ``a`` 改指一个全新的张量，``c`` 则留在旧内存上，保存着旧值。本页运行这个例子，改正其中两处代码错误，再与 ``torch.no_grad()`` 里的原地（in-place）更新对比：原地更新时，``c`` 看得到新值。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import warnings

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
# 准备
# ----
#
# ``a`` 是需要梯度的 2×2 全 1 叶子张量（leaf tensor），``c`` 是在同一块内存上 detach 得到的张量。

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
assert same_storage(a, c), "c must share a's memory"

# %%
# 注释掉的那一行会出错
# --------------------
#
# 原文留着一行注释 ``#a[1,2] = 0``。取消注释，它会抛出 ``IndexError``：2×2 的张量没有下标为 2 的列。换成合法的下标也不行：``a`` 是需要梯度的叶子张量，在梯度模式（grad mode）下、``torch.inference_mode()`` 之外，``a[1, 1] = 0`` 会抛出 ``RuntimeError``。
# :fact:`leaf-refuses-inplace`

try:
    a[1, 2] = 0
except IndexError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a[1, 2] = 0 must raise IndexError")

try:
    a[1, 1] = 0
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("a[1, 1] = 0 must raise RuntimeError")
print("a:", a)
print("c:", c)
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.ones(2, 2)), "the failed writes must change nothing"
# sphinx_gallery_end_ignore

# %%
# ``c`` 是 2×2 的全 1 张量
# ------------------------
#
# 原文 ``print(c)`` 后面的注释 ``#tensor([1., 2., 3.])`` 是上一个例子留下的。``c`` 里是四个 1，原文自己的输出也是这样。

print("c:", c)
assert torch.equal(c, torch.ones(2, 2)), "c must be a 2x2 tensor of ones"

# %%
# 反向传播
# --------
#
# ``b = (a * 2).sum()`` 让 ``a`` 的每个元素都得到梯度 2。

b = (a * 2).sum()
b.backward()
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.full((2, 2), 2.0)), "a.grad must be all twos"

# %%
# ``a = a - a.grad`` 造出一个新张量
# ---------------------------------
#
# ``a - a.grad`` 分配一个新张量，``=`` 再让名字 ``a`` 指向它。第二个名字 ``a_old`` 留住原来的叶子张量。梯度模式开着时（本页就是如此），新的 ``a`` 的 ``grad_fn`` 是 ``SubBackward0``，不是叶子张量；``c`` 仍是全 1，仍与 ``a_old`` 共享内存。

a_old = a
a = a - a.grad
print("a:", a)
print("a_old:", a_old)
print("c:", c)
print("a is a_old:", a is a_old)
print("a.grad_fn:", type(a.grad_fn).__name__)
print("a.is_leaf:", a.is_leaf)
print("same storage (a, a_old):", same_storage(a, a_old))
print("same storage (c, a_old):", same_storage(c, a_old))
print("same storage (c, a):", same_storage(c, a))
assert torch.equal(c, torch.ones(2, 2)), "c must keep the old values"
# sphinx_gallery_start_ignore
assert bytes_apart(a, a_old), "the new a must have new memory"
assert torch.equal(a.detach(), torch.full((2, 2), -1.0)), "the new a must hold -1"
assert a is not a_old, "the name a must point to a new tensor"
assert type(a.grad_fn).__name__ == "SubBackward0", "a must come from a subtraction"
assert not a.is_leaf, "the new a must not be a leaf"
assert same_storage(c, a_old), "c must still share the old tensor's memory"
assert torch.equal(a_old.detach(), torch.ones(2, 2)), "the old tensor must be unchanged"
for old_sharer in (c, a_old.detach(), a_old.view(4), a_old[0], a_old.T):
    assert same_storage(old_sharer, a_old) and bytes_apart(old_sharer, a), (
        "what shares the old tensor's memory stays with it, apart from the new a")
for rebind_mode in ("grad mode on", "no_grad", "enable_grad in inference_mode"):
    for rebind_requires_grad in (False, True):
        rebind_old = torch.ones(2, 2, requires_grad=rebind_requires_grad)
        with torch.inference_mode(rebind_mode == "enable_grad in inference_mode"), torch.set_grad_enabled(
                rebind_mode != "no_grad"):
            assert torch.is_grad_enabled() == (rebind_mode != "no_grad"), "grad mode is on where the loop says"
            rebind_new = rebind_old - torch.ones(2, 2)
        assert rebind_new.is_leaf != (rebind_mode == "grad mode on" and rebind_requires_grad), (
            "a - a.grad is a non-leaf exactly when grad mode is on outside inference_mode and a requires grad")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a、a_old 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。``a`` 现在指向新存储 ``S1`` 上的新张量；``a_old`` 和 ``c`` 仍在旧存储 ``S2`` 上。

draw_memory("a = a - a.grad", a=a, a_old=a_old, c=c)

# %%
# 忽略空白的差别，``a`` 和 ``c`` 的打印结果与原文的输出完全一致。


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[-1., -1.], [-1., -1.]], grad_fn=<SubBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]])"
print("a prints as in the article:", one_line(a) == article_a)
print("c prints as in the article:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    原文有两行代码写错了，不过它给出的输出是对的。注释掉的 ``#a[1,2] = 0`` 在 2×2 张量上会抛出
#    ``IndexError``；``print(c)`` 后面的注释 ``#tensor([1., 2., 3.])`` 与 ``c`` 不符，``c`` 是 2×2
#    的全 1 张量（见上方输出）。打印出的 ``SubBackward0`` 与原文一致。

# %%
# 原地更新：``c`` 看得到新值
# --------------------------
#
# 再做一遍这个例子，但改用 ``a -= a.grad`` 原地更新 ``a``。对需要梯度的叶子张量，在梯度模式下、``torch.inference_mode()`` 之外这样做会报错，所以这里放在 ``torch.no_grad()`` 里做。这样 ``a`` 仍是同一个对象、同一个叶子张量；``c`` 与它共享内存，于是看得到新值。

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
a_before = a

try:
    a -= a.grad
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("a -= a.grad must raise outside no_grad")

with torch.no_grad():
    a -= a.grad
print("a:", a)
print("c:", c)
print("a is a_before:", a is a_before)
print("a.is_leaf:", a.is_leaf, " a.grad_fn:", a.grad_fn)
print("same storage (c, a):", same_storage(c, a))
print("a._version:", a._version, " c._version:", c._version)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the update"
# sphinx_gallery_start_ignore
assert a is a_before, "a must still be the same object"
assert a.is_leaf and a.grad_fn is None, "a must still be a leaf"
assert same_storage(c, a), "c must still share a's memory"
assert a._version == c._version == 1, "the update must count once in the shared version"
# sphinx_gallery_end_ignore

# %%
# ``a.sub_(a.grad)`` 是同一个原地更新，只是写成了方法调用。

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
with torch.no_grad():
    a.sub_(a.grad)
print("a:", a)
print("c:", c)
print("same storage (c, a):", same_storage(c, a))
print("a.is_leaf:", a.is_leaf)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the update"
# sphinx_gallery_start_ignore
assert a.is_leaf, "a must still be a leaf"
assert same_storage(c, a) and a._version == c._version == 1, "sub_ keeps one storage and moves the shared counter"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。原地更新后仍只有一块存储 ``S1``，共享的计数器 ``C1`` 也随之增加。

draw_memory("a.sub_(a.grad)", a=a, c=c)

# %%
# 默认选项的 ``torch.optim.SGD`` 走一步也原地更新
# -----------------------------------------------
#
# 用默认选项构造、学习率为 1 的 ``torch.optim.SGD`` 走一步，就在同一块内存上做了同样的更新，所以 ``c`` 也跟着变了。

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
optimizer = torch.optim.SGD([a], lr=1.0)
optimizer.step()
print("a:", a)
print("c:", c)
print("same storage (c, a):", same_storage(c, a))
print("a.is_leaf:", a.is_leaf)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the optimizer step"
# sphinx_gallery_start_ignore
assert a.is_leaf, "a must still be a leaf"
# sphinx_gallery_end_ignore

# %%
# 再走一步：新 ``a`` 的 ``.grad`` 是 ``None``
# -------------------------------------------
#
# 放在循环里，``a = a - a.grad`` 到第二步就出错。新的 ``a`` 不是叶子张量，所以下一次 ``backward()`` 之后，它的 ``.grad`` 仍是 ``None``，读取时 torch 还会发出警告；接下来的更新随之失败。

a = torch.ones(2, 2)
a.requires_grad = True
(a * 2).sum().backward()
a = a - a.grad
(a * 2).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    grad = a.grad
# sphinx_gallery_start_ignore
assert len(caught) == 1 and issubclass(caught[0].category, UserWarning) and "not a leaf Tensor" in str(
    caught[0].message), "reading the .grad of a non-leaf warns"
# sphinx_gallery_end_ignore
print("a.is_leaf:", a.is_leaf)
print("a.grad:", grad)
print("warning when reading a.grad:", caught[0].category.__name__)
assert grad is None, "the rebound a is not a leaf: backward leaves its .grad None"
try:
    a = a - grad
except TypeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a - None must raise TypeError")

# %%
# 梯度会一直累加，直到清零
# ------------------------
#
# 每次 ``backward()`` 都把梯度累加到 ``.grad`` 已有的数值上，而不是覆盖这些数值。两次反向传播，梯度就是两倍，所以训练循环每次优化器更新都要清一次 ``.grad``，用 ``a.grad = None`` 或 ``optimizer.zero_grad()`` 都行（后者清交给这个优化器的参数的 ``.grad``，别的张量的 ``.grad`` 若有自己的内存，就保持原样；``set_to_none=False`` 时，它把 0 写进所清的每个 ``.grad`` 的内存，所以这个 ``.grad`` 的视图（view）也读到 0），而且要在这次更新所用的那几次反向传播之前清。每次反向传播之前都清，就只剩最后一次的梯度：分微批次做梯度累积靠的正是累加（见 :ref:`“记录下来的梯度全都一样”那一页 <questions-stale-grad>`）。

a = torch.ones(2, 2)
a.requires_grad = True
(a * 2).sum().backward()
(a * 2).sum().backward()
print("a.grad after two backward passes:", a.grad)
assert torch.equal(a.grad, torch.full((2, 2), 4.0)), "gradients accumulate: 2 + 2"
a.grad = None
(a * 2).sum().backward()
print("a.grad after a.grad = None and one more:", a.grad)
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.full((2, 2), 2.0)), "after clearing, one pass gives 2"


def one_pass_after_zero_grad(optimizer_class, set_to_none):
    p = torch.nn.Parameter(torch.ones(2, 2))
    not_given = torch.nn.Parameter(torch.ones(2, 2))
    cleared_by = optimizer_class([p], lr=0.1)
    (p * 2 + not_given * 2).sum().backward()
    (p * 2 + not_given * 2).sum().backward()
    grad_row = p.grad[0]
    apart = bytes_apart(p.grad, not_given.grad)
    cleared_by.zero_grad(set_to_none=set_to_none)
    row_after_clearing = grad_row.clone()
    (p * 2).sum().backward()
    return p.grad, not_given.grad, apart, row_after_clearing


assert all(torch.equal(one_pass_after_zero_grad(optimizer_class, set_to_none)[0], torch.full((2, 2), 2.0))
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam) for set_to_none in (True, False)), (
    "after optimizer.zero_grad(), set_to_none True (the default) or False, one pass gives 2")
assert all(torch.equal(one_pass_after_zero_grad(optimizer_class, set_to_none)[1], torch.full((2, 2), 4.0))
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam) for set_to_none in (True, False)), (
    "optimizer.zero_grad() leaves the .grad of a tensor not given to that optimizer, in memory of its own, as it was")
assert all(one_pass_after_zero_grad(optimizer_class, set_to_none)[2]
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam) for set_to_none in (True, False)), (
    "the .grad of the tensor not given to the optimizer has memory of its own")
assert all(torch.equal(one_pass_after_zero_grad(optimizer_class, False)[3], torch.zeros(2))
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam)), (
    "optimizer.zero_grad(set_to_none=False) writes zeros into the .grad's memory: a view of it reads zeros")
# sphinx_gallery_end_ignore

# %%
# 原地更新会破坏仍需要旧值的计算图
# --------------------------------
#
# 原地更新也有代价。在更新之前建好并保存了 ``w`` 的计算图（这里是 ``(w * w).sum()``），保存的是当时那个版本的 ``w``；优化器走一步，推进了版本，再通过那张计算图执行 ``backward()`` 就会失败（例外情形见 :ref:`“.data 与 no_grad”那一页 <questions-data-vs-no-grad>`）。一个网络在另一个网络的前向和反向传播之间被更新时（比如训练 GAN），常见的就是这个错误。fused 优化器（``fused=True``）的一步则不推进版本，``backward()`` 不报错，却悄悄算出错误的梯度（见 :ref:`“版本计数器”那一页 <questions-version-counter>`）。:fact:`fused-optimizer-step-not-counted`

w = torch.ones(2, 2)
w.requires_grad = True
optimizer = torch.optim.SGD([w], lr=0.1)
(w * w).sum().backward()
optimizer.step()
print("w._version after one step:", w._version)
pending = (w * w).sum()
optimizer.step()
print("w._version after another step:", w._version)
try:
    pending.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    assert "is at version 2; expected version 1" in str(e), "the pending graph saved w at version 1"
else:
    raise AssertionError("backward through a graph that saved w must fail after the step")

# %%
# 小结
# ----
#
# ``a = a - a.grad`` 算出一个新张量，再让名字 ``a`` 改指它；与旧张量共享内存的（比如 ``c``）仍留在旧内存上；在梯度模式下、``torch.inference_mode()`` 之外，``a`` 需要梯度时，新的 ``a`` 也不再是叶子张量。想让其他名字看到新值，就在 ``torch.no_grad()`` 里原地更新（如上文的 ``a -= a.grad``），或者让用默认选项构造的 ``torch.optim.SGD`` 走一步。每次更新清一次 ``.grad``；更新参数之前，先对每一张保存了它的计算图执行 ``backward()``。``a = a + 1`` 也有同样的区别，见 :ref:`“名字分开了，计算图还连着”那一页 <copying-add-rebinding>`。
