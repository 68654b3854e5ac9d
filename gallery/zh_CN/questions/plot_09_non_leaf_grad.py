"""
.. _questions-non-leaf-grad:

``.grad`` 为什么是 ``None``？非叶子张量的梯度
=============================================

.. admonition:: 答案
   :class: answer

   默认情况下，``backward()`` 只为叶子张量写入 ``.grad``，而 ``y`` 是一次运算的结果。在 ``backward()`` 之前对它调用 ``retain_grad()``：

   .. code-block:: python

      y = x * 2
      y.retain_grad()
      (y * y).sum().backward()

``backward()`` 之后读取中间结果的 ``.grad``，得到的是 ``None``，还伴随一条警告：“The .grad
attribute of a Tensor that is not a leaf Tensor is being accessed”。本页复现这个现象，用四种办法拿到这个梯度（``retain_grad()``、钩子、``torch.autograd.grad``、``backward(inputs=...)``），再演示手写的更新循环如何在不知不觉中把叶子张量（leaf tensor）变成非叶子张量，最后说明梯度会一直累加，直到你把它清零。页面只打印警告的第一句，警告全文还指向
`pytorch/pytorch#30531 <https://github.com/pytorch/pytorch/pull/30531>`__。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``read_grad`` 读取 ``t.grad``，同时返回读取时触发的警告（只取第一句），这样页面可以把警告展示出来，而不是任它漏出去。

import warnings

import torch


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    return grad, [f"{w.category.__name__}: {str(w.message).split('. ')[0]}." for w in caught]


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
# 现象
# ----
#
# ``x`` 是叶子张量（由你创建）；``y = x * 2`` 不是（由运算得到，所以有 ``grad_fn``）。``backward()``
# 只填写叶子张量的 ``.grad``：``y.grad`` 是 ``None``，读取它还会触发警告。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = (y * y).sum()
z.backward()
y_grad, caught = read_grad(y)
print("x.is_leaf:", x.is_leaf, " y.is_leaf:", y.is_leaf, " y.grad_fn:", y.grad_fn.name())
print("x.grad:", x.grad)
print("y.grad:", y_grad)
print("warnings:", caught)
assert y_grad is None and caught[0].startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf"), (
    "reading .grad of a non-leaf must give None and warn"
)
# sphinx_gallery_start_ignore
with warnings.catch_warnings(record=True) as full_warnings:
    warnings.simplefilter("always")
    assert y.grad is None, "reading y.grad again gives None"
assert [record.category for record in full_warnings] == [UserWarning] and str(full_warnings[0].message).startswith(
    "The .grad attribute of a Tensor that is not a leaf"), "reading y.grad again gives the same one warning"
assert "github.com/pytorch/pytorch/pull/30531" in str(full_warnings[0].message), (
    "the full text of the warning on reading a non-leaf's .grad points to pytorch/pytorch#30531")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：z 之下的自动求导（autograd）计算图。SumBackward0 指向 y * y 的 MulBackward0，它两次指向 y = x * 2 的 MulBackward0，后者再指向 AccumulateGrad 和叶子张量 x。
#
#    ``z`` 之下的计算图：``y = x * 2`` 是下面那个 ``MulBackward0`` 节点，只有叶子张量 ``x`` 挂在 ``AccumulateGrad`` 下。``backward()`` 填了 ``x.grad``，``y.grad`` 还是 ``None``。

draw_graph("z = (y * y).sum(); y = x * 2", z, x=x)
# sphinx_gallery_start_ignore
assert x.grad is not None and not y.is_leaf, "backward() filled the leaf's .grad"
# sphinx_gallery_end_ignore

# %%
# 拿到 ``y`` 的梯度的四种办法
# ---------------------------
#
# ``dz/dy = 2 * y``。在 ``backward()`` 之前调用 ``y.retain_grad()``，自动求导（autograd）就会把它留在
# ``y.grad`` 里。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.retain_grad()
(y * y).sum().backward()
print("y.retains_grad:", y.retains_grad)
print("y.grad:", y.grad)
assert torch.equal(y.grad, 2 * y.detach()), "retain_grad() must keep dz/dy in y.grad"

# %%
# 在 ``y`` 上注册钩子，梯度经过时钩子能看到同样的值，但不会存到 ``y`` 上。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
seen = []
y.register_hook(seen.append)
(y * y).sum().backward()
print("the hook saw:", seen)
print("y.grad:", read_grad(y)[0])
# sphinx_gallery_start_ignore
assert len(seen) == 1 and torch.equal(seen[0], 2 * y.detach()), "the hook must see dz/dy"
assert read_grad(y)[0] is None, "the hook must not store the gradient on y"
# sphinx_gallery_end_ignore

# %%
# ``torch.autograd.grad`` 可以直接返回对计算图中任意张量的梯度，而且不写 ``.grad``，叶子张量的也不写；只有调用过 ``retain_grad()`` 的非叶子张量例外（见下文）。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
(dz_dy,) = torch.autograd.grad((y * y).sum(), y)
print("dz/dy:", dz_dy)
print("x.grad:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(dz_dy, 2 * y.detach()) and x.grad is None, "autograd.grad must return dz/dy and write no .grad"
# sphinx_gallery_end_ignore

# %%
# ``backward(inputs=[y])`` 把梯度累加到它点名的张量的 ``.grad`` 上，非叶子张量也一样，不会触发警告；其他叶子张量都不写：``x.grad`` 仍是 ``None``。这样点名非叶子张量，还会为它打开 ``retain_grad()``：从此 ``y.retains_grad`` 为 ``True``，之后经过 ``y`` 的反向传播即使没有点名它，也会累加到 ``y.grad`` 上（即下面的例外）。不过这样的反向传播要求 ``y`` 自己的 ``grad_fn`` 完好无损：``backward(inputs=[y])`` 也运行了这个节点，并释放了它保存的东西（对 ``y = x * 2`` 来说是那个 2），所以一路回到 ``x`` 的普通 ``backward()``，或再一次 ``backward(inputs=[y])``，都会报错“Trying to backward through the graph a second time”，除非第一次调用传了 ``retain_graph=True``。之后对在 ``y`` 上重新构建的损失（比如新的 ``(y * y).sum()``）调用 ``torch.autograd.grad(..., y)``，不运行这个节点，可以正常执行；``y`` 的 ``grad_fn`` 不保存张量时（``y = x + 1``），之后经过这种新损失的每种反向传播也都能正常执行。对同一个 ``(y * y).sum()`` 再做一次反向传播，无论 ``y`` 的 ``grad_fn`` 是什么，都会报同样的错，``torch.autograd.grad`` 也一样，因为第一次已经释放了这个损失自己的节点保存的东西，除非第一次调用传了 ``retain_graph=True``；见 :ref:`“第二次反向传播报错”那一页 <questions-backward-twice>`。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
(y * y).sum().backward(inputs=[y])
y_grad, caught = read_grad(y)
print("y.grad:", y_grad)
print("warnings:", caught)
print("x.grad:", x.grad)
print("y.retains_grad:", y.retains_grad)
assert torch.equal(y_grad, 2 * y.detach()) and caught == [] and x.grad is None, "inputs=[y]: y.grad, not x.grad"
try:
    (y * y).sum().backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("after backward(inputs=[y]) without retain_graph=True, a backward() through y must raise")
# sphinx_gallery_start_ignore
assert y.retains_grad, "backward(inputs=[y]) turns on retain_grad() for the non-leaf y"
named_x = torch.tensor([1.0, 2.0], requires_grad=True)
named_y = named_x * 2
assert not named_y.retains_grad, "a non-leaf does not retain its gradient before it is named"
(named_y * named_y).sum().backward(inputs=[named_y], retain_graph=True)
(named_y * named_y).sum().backward()
assert torch.equal(named_y.grad, 2 * (2 * named_y.detach())) and torch.equal(named_x.grad, 4 * named_y.detach()), (
    "after backward(inputs=[y]), a plain backward() through y adds into y.grad too"
)
torch.autograd.grad((named_y * named_y).sum(), named_y)
assert torch.equal(named_y.grad, 3 * (2 * named_y.detach())), (
    "after backward(inputs=[y]), torch.autograd.grad(..., y) adds into y.grad too"
)
saves_two = torch.tensor([1.0, 2.0], requires_grad=True) * 2
assert saves_two.grad_fn._saved_other.item() == 2, "y = x * 2 saves the 2 for backward"
(saves_two * saves_two).sum().backward(inputs=[saves_two])
try:
    saves_two.grad_fn._saved_other
except RuntimeError as e:
    assert "already been freed" in str(e), "backward(inputs=[y]) freed what y's grad_fn saved"
else:
    raise AssertionError("backward(inputs=[y]) without retain_graph=True must free what y's grad_fn saved")


def later_pass_grad(make_mid, retain, later):
    """Name mid = make_mid(leaf) in backward(inputs=[mid]), then run a later pass: mid.grad, or None if it raised."""
    pass_leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    mid = make_mid(pass_leaf)
    (mid * mid).sum().backward(inputs=[mid], retain_graph=retain)
    try:
        later(mid)
    except RuntimeError as e:
        assert "backward through the graph a second time" in str(e), "the later pass reached a freed node"
        return None
    return mid.grad


later_passes = {
    "plain backward()": lambda mid: (mid * mid).sum().backward(),
    "backward(inputs=[y])": lambda mid: (mid * mid).sum().backward(inputs=[mid]),
    "torch.autograd.grad(..., y)": lambda mid: torch.autograd.grad((mid * mid).sum(), mid),
}
for made_by, make_mid, saves in (("x * 2", lambda v: v * 2, True), ("x.sin()", torch.sin, True),
                                 ("x + 1", lambda v: v + 1, False)):
    for retain in (False, True):
        for later_name, later in later_passes.items():
            later_grad = later_pass_grad(make_mid, retain, later)
            if saves and not retain and later_name != "torch.autograd.grad(..., y)":
                assert later_grad is None, f"y = {made_by}: after inputs=[y] without retain_graph, {later_name} raises"
            else:
                assert later_grad is not None and torch.equal(later_grad, 4 * make_mid(torch.tensor([1.0, 2.0]))), (
                    f"y = {made_by}: the later {later_name} runs and adds into y.grad")


def same_loss_again(make_mid, retain, later):
    """backward(inputs=[mid]) on (mid * mid).sum(), then a later pass over that same loss: whether it ran."""
    pass_leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    mid = make_mid(pass_leaf)
    same_loss = (mid * mid).sum()
    same_loss.backward(inputs=[mid], retain_graph=retain)
    try:
        later(same_loss, mid)
    except RuntimeError as e:
        assert "backward through the graph a second time" in str(e), "the pass over the same loss reached a freed node"
        return False
    return True


same_loss_passes = (lambda loss_, mid: loss_.backward(), lambda loss_, mid: loss_.backward(inputs=[mid]),
                    lambda loss_, mid: torch.autograd.grad(loss_, mid))
assert all(same_loss_again(make_mid, retain, later) == retain for make_mid in (lambda v: v * 2, torch.sin, lambda v: v + 1)
           for retain in (False, True) for later in same_loss_passes), (
    "a second pass over the same (y * y).sum() raises unless the first passed retain_graph=True, whatever y's grad_fn")
# sphinx_gallery_end_ignore

# %%
# 两者都有一个例外：调用过 ``retain_grad()`` 的张量，只要反向传播经过它，即使没有点名它，也会得到 ``.grad``。下面 ``u = y * 3`` 保留了梯度；``torch.autograd.grad`` 和 ``backward(inputs=[y])`` 都会填写 ``u.grad``，而叶子张量的 ``x.grad`` 仍是 ``None``。

for way in ("torch.autograd.grad", "backward(inputs=[y])"):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    u = y * 3
    u.retain_grad()
    if way == "torch.autograd.grad":
        torch.autograd.grad((u * u).sum(), y)
    else:
        (u * u).sum().backward(inputs=[y])
    print(f"{way}: u.grad:", u.grad, " x.grad:", x.grad)
    assert torch.equal(u.grad, 2 * u.detach()) and x.grad is None, f"{way} must fill the retained u.grad, not x.grad"

# %%
# 把叶子张量变成非叶子张量的更新循环
# ----------------------------------
#
# 在 ``torch.no_grad()`` 之外写 ``w = w - lr * w.grad``，是用一次运算造出新张量，再把名字 ``w``
# 重新绑定到它上面：``w`` 从此是非叶子张量，下一次 ``backward()`` 不会填写它的 ``.grad``，于是下一次更新里的
# ``lr * w.grad`` 抛出 ``TypeError``。

lr = 0.1
w = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(2):
    (w * w).sum().backward()
    grad, caught = read_grad(w)
    print(f"step {step}: w.is_leaf={w.is_leaf} w.grad={grad} warnings={len(caught)}")
    if grad is not None:
        w = w - lr * grad
print("w.grad_fn:", w.grad_fn.name())
assert not w.is_leaf and read_grad(w)[0] is None, "the rebinding update must make w a non-leaf without .grad"
try:
    w = w - lr * read_grad(w)[0]
except TypeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an update with w.grad None must raise")

# %%
# 解决办法是在 ``torch.no_grad()`` 下原地（in-place）修改 ``w``，并在每一步之后把梯度清零：``w``
# 始终是同一个叶子张量，三步之后的值与 ``w <- (1 - 2 lr) w`` 算出的一致。

w = torch.tensor([1.0, 2.0], requires_grad=True)
w_start = w.detach().clone()
for _ in range(3):
    (w * w).sum().backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad.zero_()
print("w:", w, " w.is_leaf:", w.is_leaf)
print("expected:", w_start * (1 - 2 * lr) ** 3)
assert w.is_leaf and torch.allclose(w, w_start * (1 - 2 * lr) ** 3), "the in-place update must keep w a leaf"

# %%
# 梯度会一直累加，直到清零
# ------------------------
#
# 每次 ``backward()`` 都把算出的梯度加到 ``.grad`` 已有的数值上。对同一个损失做两遍，梯度就是两倍。``zero_()``
# 让它从头开始。

x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
print("after one backward:", x.grad)
(x * x).sum().backward()
print("after two:", x.grad)
assert torch.equal(x.grad, 2 * (2 * x.detach())), "a second backward must add to .grad"
x.grad.zero_()
(x * x).sum().backward()
print("after zero_() and one more:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(x.grad, 2 * x.detach()), "after zero_(), one backward gives the gradient once"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 默认情况下，``backward()`` 只填写叶子张量的 ``.grad``。要中间张量的梯度，可以在 ``backward()`` 之前调用
# ``retain_grad()``，可以在 ``backward(inputs=[...])`` 里点名它，可以注册钩子，也可以用 ``torch.autograd.grad``。更新参数要在
# ``torch.no_grad()`` 下原地进行，这样参数始终是叶子张量；每一步之间记得把梯度清零。
