"""
.. _questions-data-vs-no-grad:

原地修改权重：用 ``.data`` 还是 ``torch.no_grad()``？
=====================================================

.. admonition:: 答案
   :class: answer

   版本计数器不记录通过 ``.data`` 的修改，所以保存过这个张量的计算图反向传播时可能用上改过的值，算出错误的梯度却不报错。先完成 ``backward()``，再在 ``torch.no_grad()`` 下修改：

   .. code-block:: python

      loss = (w * w).sum()
      loss.backward()
      with torch.no_grad():
          w -= 0.1 * w.grad

两者都能原地（in-place）修改一个需要梯度的张量。区别出现在还有计算图保存着这个张量、等着 ``backward()``
的时候：在 ``torch.no_grad()`` 下用 torch 的原地操作修改这个张量或它的视图（view），会被版本计数器（version counter）记下，``backward()`` 报错“one of the
variables needed for gradient computation has been modified by an inplace operation”；通过 ``.data`` 修改，不会被记下，``backward()`` 可能一声不吭地给出错误的梯度；经由 NumPy 等其他绕开版本计数器的途径写入，即使在 ``torch.no_grad()`` 下也是这样（见下文）。在 ``torch.no_grad()`` 下用原地操作做的修改至少在以下六种情况下不报错：计算图经由保存张量的钩子（saved tensors hooks）保存这个张量，如下文的
``save_on_cpu``；自定义 ``Function`` 把它存成了属性；自定义 ``Function`` 保存了它，``backward`` 却从不读取 ``ctx.saved_tensors``，而自动求导（autograd）是在 ``backward`` 读回张量时检查版本的；修改来自不推进版本计数器的内核，fused 优化器的一步就是这样，本站检查过的其他几个见 :ref:`“版本计数器”那一页 <questions-version-counter>`；前向传播是在 ``torch.utils.checkpoint`` 的梯度检查点（activation checkpointing）下运行的，所用函数从参数之外读取这个张量，``backward()`` 会用改过的值把这个函数再跑一遍（见 :ref:`“梯度检查点”那一页 <questions-activation-checkpointing>`）；torch 内部的 ``torch.autograd._unsafe_preserve_version_counter`` 在修改之后把版本计数器调了回去（见下文）。本页让一张计算图等着反向传播，分别用这两种方式修改它保存的张量，再演示
``p.data = t`` 如何悄悄改掉参数的形状。本页回答的是
`pytorch/pytorch#30987 <https://github.com/pytorch/pytorch/issues/30987>`__。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。``true_grad`` 是 ``(w * w).sum()`` 在原始权重处的梯度，由 ``torch.func.grad`` 算出。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


start = [1.0, 2.0, 3.0]
true_grad = torch.func.grad(lambda w: (w * w).sum())(torch.tensor(start))
print("true gradient:", true_grad)

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
# 在 ``torch.no_grad()`` 下：修改被记下，``backward()`` 报错
# ----------------------------------------------------------
#
# ``w * w`` 为反向传播保存了 ``w``，当时的版本是 0。在 ``torch.no_grad()`` 下修改后，``w._version``
# 变成 1，``backward()`` 拒绝使用这个被改过的张量。修改视图也一样：对新建的 ``u`` 执行 ``u[:2].mul_(10)``，同样记在 ``u`` 上，因为在 ``torch.inference_mode()`` 之外，torch 文档列出的视图操作对不是推理张量（inference tensor）、``is_inference()`` 为 ``False`` 的张量取的视图，与基张量（base tensor）共享版本计数器（在该模式内取的视图，见 :ref:`“版本计数器”那一页 <questions-version-counter>`）。:fact:`version-counter-shared-by-views-and-detach`

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
print("w._version before the edit:", w._version)
with torch.no_grad():
    w.mul_(10)
print("w._version after the edit:", w._version)
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after an edit under no_grad must raise")
u = torch.tensor(start, requires_grad=True)
u_loss = (u * u).sum()
with torch.no_grad():
    u[:2].mul_(10)
print("u._version after u[:2].mul_(10):", u._version)
# sphinx_gallery_start_ignore
assert u._version == 1, "an edit of a view under no_grad is counted on its base"
try:
    u_loss.grad_fn.next_functions[0][0]._saved_self
except RuntimeError as e:
    assert "is at version 1; expected version 0" in str(e), "after the view's edit the saved u is out of date"
else:
    raise AssertionError("the saved u must be out of date after an edit of its view")


def counted_on_normal_of_inference(take_view):
    """Whether a view of a tensor whose is_inference() is False, made from an inference tensor (the view(dtype) of
    its detach() to its own dtype), shares that tensor's version counter."""
    with torch.inference_mode():
        made_in_mode = torch.tensor(start) * 1
    normal_of_inference = made_in_mode.detach().view(torch.float32)
    view_of_it = take_view(normal_of_inference)
    before_ = normal_of_inference._version
    torch.autograd.graph.increment_version(view_of_it)
    return not normal_of_inference.is_inference() and normal_of_inference._version == before_ + 1


assert all(counted_on_normal_of_inference(take) for take in (
    lambda t: t[:2], lambda t: t.view(3), lambda t: t.unsqueeze(0), lambda t: t.expand(2, 3), lambda t: t.detach(),
    lambda t: t.view(torch.int32))), "views of a normal tensor made from an inference tensor share its counter too"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：loss 之下的自动求导（autograd）计算图。SumBackward0 指向 MulBackward0，它保存的两个张量 self 和 other 都显示 _version 1 != 0；MulBackward0 再指向 AccumulateGrad 和叶子张量 w，w 的 _version=1。
#
#    ``loss`` 之下的计算图。``MulBackward0`` 把 ``w`` 保存了两次（``self`` 和 ``other``），当时版本是 0；在 ``torch.no_grad()`` 下修改之后，两者都显示 ``_version 1 != 0``。

draw_graph("w.mul_(10) under torch.no_grad()", loss, w=w)
# sphinx_gallery_start_ignore
assert w._version == 1, "the edit under no_grad is counted"
try:
    loss.grad_fn.next_functions[0][0]._saved_self
except RuntimeError as e:
    assert "is at version 1; expected version 0" in str(e), "w was saved at version 0"
else:
    raise AssertionError("the saved w must be out of date")
# sphinx_gallery_end_ignore

# %%
# 通过 ``.data``：修改不被记下，梯度是错的
# ----------------------------------------
#
# 同样的修改改为通过 ``w.data`` 进行，``w._version`` 停在 0。``backward()``
# 照常运行，用的却是改过的数值：梯度是按求导公式算出的值的十倍，而且没有任何提示。

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
w.data.mul_(10)
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
print("true gradient:", true_grad)
assert w._version == 0 and torch.equal(w.grad, 10 * true_grad), ".data must hide the edit and give a wrong gradient"

# %%
# .. figure-caption::
#    :alt: 示意图：名字 w 和 w.data 指向同一块存储 S1 上的两个张量对象，值都是 10.0、20.0、30.0；w 的 _version=0。
#
#    ``w`` 和 ``w.data`` 是同一块存储 ``S1`` 上的两个张量对象，值是起始值的十倍；``w`` 的版本仍是 ``_version=0``。

draw_memory("w.data.mul_(10)", w=w, **{"w.data": w.data})
# sphinx_gallery_start_ignore
assert same_storage(w, w.data) and torch.equal(w.detach(), 10 * torch.tensor(start)), "the edit is in w's memory"
# sphinx_gallery_end_ignore

# %%
# 在 ``torch.no_grad()`` 下经由 NumPy：同样不计数
# -----------------------------------------------
#
# ``torch.no_grad()`` 并不能让每一种修改都被察觉。在它下面，``w.numpy()`` 可以用在需要梯度的张量上，通过这个数组写入不会被计数：``w._version``
# 仍是 0，``backward()`` 照常运行，用的是修改后的值，不报任何错误，和经由 ``.data`` 时一样。

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
with torch.no_grad():
    w.numpy()[:] *= 10
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
assert w._version == 0 and torch.equal(w.grad, 10 * true_grad), "a NumPy write under no_grad must go unnoticed"

# %%
# 在保存张量的钩子下：修改记下了，却没有检查
# ------------------------------------------
#
# 在 ``torch.autograd.graph.save_on_cpu()`` 里构建的计算图，要保存的张量都经由保存张量的钩子存下来；这样存下的张量，自动求导不检查它的版本。同样在 ``torch.no_grad()`` 下修改，``w._version`` 变成了 1，在默认的 ``pin_memory=False`` 下 ``backward()``
# 却不报错，而且和通过 ``.data`` 修改时一样，用的是修改后的数值。

w = torch.tensor(start, requires_grad=True)
with torch.autograd.graph.save_on_cpu():
    loss = (w * w).sum()
with torch.no_grad():
    w.mul_(10)
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
print("true gradient:", true_grad)
assert w._version == 1 and torch.equal(w.grad, 10 * true_grad), "save_on_cpu must let the edit go unnoticed"

# %%
# 默认的 ``pin_memory=False`` 下，打包钩子对 CPU 张量原样保留这个张量本身，所以上面的修改会影响 ``backward()``。``pin_memory=True`` 时，它把每个张量复制到新的内存里，保存的副本留着计算损失时的数值：同样的修改仍然不报错，但梯度是正确的。

pinned = torch.tensor(start, requires_grad=True)
with torch.autograd.graph.save_on_cpu(pin_memory=True):
    loss = (pinned * pinned).sum()
with torch.no_grad():
    pinned.mul_(10)
print("pinned._version after the edit:", pinned._version)
loss.backward()
print("pinned.grad:", pinned.grad)
assert pinned._version == 1 and torch.equal(pinned.grad, true_grad), "with pin_memory=True the saved copy keeps the old values"

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    对 GPU 上的张量，无论 ``pin_memory`` 取什么值，``save_on_cpu()`` 保存的都是 CPU 内存里的一份副本，所以前向传播之后再修改这个张量，不会影响梯度（PyTorch 文档：`save_on_cpu <https://docs.pytorch.org/docs/stable/autograd.html#torch.autograd.graph.save_on_cpu>`__）。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    for pin_memory in (False, True):
        on_gpu = torch.tensor(start, device="cuda", requires_grad=True)
        with torch.autograd.graph.save_on_cpu(pin_memory=pin_memory):
            loss = (on_gpu * on_gpu).sum()
        with torch.no_grad():
            on_gpu.mul_(10)
        loss.backward()
        print(f"pin_memory={pin_memory}: on_gpu._version:", on_gpu._version, " on_gpu.grad:", on_gpu.grad)
        assert on_gpu._version == 1 and torch.equal(on_gpu.grad.cpu(), true_grad), (
            "with or without pin_memory, a GPU tensor is packed as a CPU copy")
    print("GPU checks passed on:", torch.cuda.get_device_name())


# %%
# 在梯度检查点下：修改被计数，函数再跑一遍
# ----------------------------------------
#
# ``torch.utils.checkpoint.checkpoint`` 在 ``backward()`` 中会把它的函数再跑一遍（见 :ref:`“梯度检查点”那一页 <questions-activation-checkpointing>`）。像 ``scaled_square`` 这样从参数之外读取 ``w`` 的函数，到那时读到的是改过的 ``w``：无论 ``use_reentrant`` 取哪个值，``torch.no_grad()`` 下的修改都把 ``w._version`` 推进到 1，``backward()`` 不报错，梯度却是正确值的十倍。


def scaled_square(scale):
    return (scale * w * w).sum()


for use_reentrant in (False, True):
    w = torch.tensor(start, requires_grad=True)
    scale = torch.ones(3, requires_grad=True)  # use_reentrant=True 要求至少有一个参数需要梯度
    loss = torch.utils.checkpoint.checkpoint(scaled_square, scale, use_reentrant=use_reentrant)
    with torch.no_grad():
        w.mul_(10)
    loss.backward()
    print(f"use_reentrant={use_reentrant}: w._version:", w._version, " w.grad:", w.grad)
    assert w._version == 1 and torch.equal(w.grad, 10 * true_grad), (
        "checkpoint runs the function again on the edited w: no error, a wrong gradient")


# %%
# 版本计数器被调回：修改被计数，随后又被藏起来
# --------------------------------------------
#
# torch 内部的上下文管理器 ``torch.autograd._unsafe_preserve_version_counter(w)`` 退出时，把 ``w`` 的计数器调回进入时的读数（画图辅助函数就用它把自己推进的计数器调回去）。在它里面（并在 ``torch.no_grad()`` 下）做的修改把 ``w._version`` 推进到 1，退出时又调回 0，``backward()`` 不报错：梯度是正确值的十倍。

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
with torch.no_grad(), torch.autograd._unsafe_preserve_version_counter(w):
    w.mul_(10)
    version_inside = w._version
print("w._version inside:", version_inside, " after leaving:", w._version)
loss.backward()
print("w.grad:", w.grad)
assert version_inside == 1 and w._version == 0 and torch.equal(w.grad, 10 * true_grad), (
    "a counter set back hides the edit: no error, a wrong gradient")


# %%
# 解决办法：先做完 ``backward()``，再修改
# ---------------------------------------
#
# 更新参数应该放在 ``backward()`` 之后，并在 ``torch.no_grad()`` 下进行：梯度是正确的，这次修改也记入了
# ``_version``。这个计数对修改之前就保存了 ``w``、还在等 ``backward()`` 的计算图起作用：那次 ``backward()`` 会报错。修改之后新建的计算图保存的是 ``w`` 的新版本，照常运行（两点都由隐藏的检查验证）。在循环里，每一步之后都要把 ``w.grad`` 清零（见下文）。

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
loss.backward()
# sphinx_gallery_start_ignore
graph_before_step = (w * w).sum()
# sphinx_gallery_end_ignore
with torch.no_grad():
    w -= 0.1 * w.grad
print("w.grad:", w.grad)
print("w:", w)
print("w._version:", w._version, " w.is_leaf:", w.is_leaf)
assert torch.equal(w.grad, true_grad), "backward before the edit must give the true gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(w, torch.tensor(start) * 0.8), "the step must update w in place"
assert w._version == 1 and w.is_leaf, "the step is counted and w stays a leaf"
try:
    torch.autograd.grad(graph_before_step, w)
except RuntimeError as e:
    assert "modified by an inplace operation" in str(e), "a graph built before the step refuses backward"
else:
    raise AssertionError("a graph that saved w before the step must refuse backward")
assert torch.equal(torch.autograd.grad((w * w).sum(), w)[0], 2 * w.detach()), (
    "a graph built after the step saves w's new version and runs")
# sphinx_gallery_end_ignore

# %%
# 放进循环里，每一步之后都要把 ``w.grad`` 清零：``backward()`` 是把梯度累加进 ``w.grad`` 的（见 :ref:`“非叶子张量的梯度”那一页 <questions-non-leaf-grad>`），不调用 ``w.grad.zero_()``，第二步的 ``w.grad`` 就是两步梯度之和，而不是当前 ``w`` 处的梯度。每一步之后调用 ``w.grad.zero_()``，每次 ``backward()`` 得到的就是这一步自己的梯度。

for zero_each_step in (False, True):
    w = torch.tensor(start, requires_grad=True)
    matches = []
    for step in range(2):
        step_grad = torch.func.grad(lambda v: (v * v).sum())(w.detach())
        (w * w).sum().backward()
        print(f"zero_each_step={zero_each_step}, step {step}: w.grad:", w.grad, " gradient at w:", step_grad)
        matches.append(torch.allclose(w.grad, step_grad))
        with torch.no_grad():
            w -= 0.1 * w.grad
        if zero_each_step:
            w.grad.zero_()

    # sphinx_gallery_start_ignore
    assert zero_each_step or torch.allclose(w.grad, true_grad + step_grad), (
        "without zero_() the second step's w.grad is the sum of both steps' gradients")
    # sphinx_gallery_end_ignore
    assert matches == [True, zero_each_step], (
        "without zero_() the second step's w.grad is not the gradient at the current w; with zero_() it is")

# %%
# ``p.data = t`` 换掉参数背后的张量，连形状一起换
# -----------------------------------------------
#
# 参数在 CPU 上时，把 dtype 与它相同、同样在 CPU 上的稠密张量（布局为 ``torch.strided``，非嵌套）赋给它的 ``.data``，即使形状不同也不会报错：参数悄悄换成新的形状，从此与 ``t`` 共享内存。float64 的 ``t`` 也会被接受，参数的 dtype 随之改变。被拒绝的张量包括稀疏张量 ``t`` 和 ``meta`` 上的 ``t``；参数需要梯度时（默认如此），整数或 bool 的 ``t`` 也会被拒绝。GPU 上的 ``t`` 能否赋给 CPU 上的参数，反过来又如何，在 :ref:`“检验原博文总结”那一页 <data-vs-detach-comparison>` 的 GPU 框内检查。:fact:`data-setter-checks`

p = torch.nn.Parameter(torch.ones(3))
t = torch.zeros(5)
p.data = t
print("p.shape:", tuple(p.shape))
print("same storage (p, t):", same_storage(p, t))
print("p.requires_grad:", p.requires_grad, " p.is_leaf:", p.is_leaf)
assert tuple(p.shape) == (5,) and same_storage(p, t), "p.data = t must take t's shape and memory"

# %%
# 用 ``requires_grad=False`` 创建的参数（比如冻结的权重）则会一声不吭地接受整数或 bool 的 ``t``，dtype 和形状也随之改变。

for dtype in (torch.int64, torch.bool):
    frozen = torch.nn.Parameter(torch.ones(3), requires_grad=False)
    frozen.data = torch.zeros(5, dtype=dtype)
    print(f"frozen after .data = a {dtype} t:", frozen.dtype, tuple(frozen.shape))
    assert frozen.dtype == dtype and tuple(frozen.shape) == (5,), (
        "a parameter that does not require grad takes an integer or bool t, its dtype and shape")

# %%
# 在 ``torch.no_grad()`` 下用 ``copy_``，数值会写进参数自己的内存，参数的形状不变。

p = torch.nn.Parameter(torch.ones(3))
t = torch.zeros(3)
with torch.no_grad():
    p.copy_(t)
print("p:", p)
print("same storage (p, t):", same_storage(p, t))
print("p._version:", p._version)
# sphinx_gallery_start_ignore
assert bytes_apart(p, t) and torch.equal(p, t), "copy_ must copy the values, not the memory"
assert p._version == 1, "copy_ must be counted"
# sphinx_gallery_end_ignore

# %%
# ``copy_`` 的检查比看上去要少：源张量只要能广播到目标的形状，就会重复填满目标；浮点数的源张量会被转换成目标的 dtype（这里写进整数时截断了小数部分），整数的源张量也一样。形状无法广播的源张量会报错。
with torch.no_grad():
    p.copy_(torch.tensor([7.0]))
print("p after copy_(torch.tensor([7.0])):", p)
grid = torch.zeros(2, 3)
grid.copy_(torch.tensor([1.0, 2.0, 3.0]))
print("grid after copy_ of a (3,) source:", grid)
counts = torch.zeros(3, dtype=torch.int64)
counts.copy_(torch.tensor([1.7, 2.5, -3.9]))
print("int64 counts after copy_ of floats:", counts)
weights = torch.zeros(3)
weights.copy_(torch.tensor([1, 2, 3]))
print("float32 weights after copy_ of int64:", weights)
try:
    with torch.no_grad():
        p.copy_(torch.zeros(5))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("copy_ of a source that cannot broadcast must raise")
assert torch.equal(p, torch.full((3,), 7.0)) and torch.equal(counts, torch.tensor([1, 2, -3])), (
    "copy_ broadcast [7.0] over p and truncated floats into int64")
# sphinx_gallery_start_ignore
assert torch.equal(grid, torch.tensor([[1.0, 2.0, 3.0]] * 2)), "a (3,) source fills every row of a (2, 3) target"
assert p.shape == (3,) and counts.dtype == torch.int64, "copy_ keeps the target's shape and dtype"
assert weights.dtype == torch.float32 and weights.tolist() == [1.0, 2.0, 3.0], "an int64 source is cast"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 修改权重要在 ``backward()`` 之后、在 ``torch.no_grad()`` 下进行：如果还有计算图需要旧值，这时对 ``w`` 或它的视图做 torch 的原地操作，就会报错，而不是把梯度算错。例外至少有以下六种：计算图是在 ``torch.autograd.graph.save_on_cpu()`` 这类保存张量的钩子下保存旧值的；自定义 ``Function``
# 把旧值存成了属性（``ctx.x = x``，而不是 ``ctx.save_for_backward(x)``）；自定义 ``Function`` 用 ``ctx.save_for_backward(x)`` 保存了旧值，它的 ``backward`` 却从不读取 ``ctx.saved_tensors``；前向传播是在 ``torch.utils.checkpoint`` 下运行的，所用函数从参数之外读取 ``w``，``backward()`` 会用改过的值把这个函数再跑一遍（见 :ref:`“梯度检查点”那一页 <questions-activation-checkpointing>`）；修改来自不推进版本计数器的内核（其中有 fused 优化器的一步、``GradScaler.unscale_``、``BatchNorm`` 对 ``running_mean`` 和 ``running_var`` 的更新，以及 ``FusedMovingAvgObsFakeQuantize`` 对 ``scale`` 和 ``zero_point`` 的更新，见 :ref:`“版本计数器”那一页 <questions-version-counter>`）；或者修改之后，``torch.autograd._unsafe_preserve_version_counter`` 把版本计数器调了回去。绕过版本计数器的九条修改途径（列在 :ref:`“版本计数器”那一页的表 <questions-version-counter>` 里），在 ``torch.no_grad()`` 下同样不会报错，得到的梯度却可能是错的：``.data``、经由 NumPy 写入（见上文）、经由 ``untyped_storage()`` 或 DLPack 别名写入、``nn.utils.vector_to_parameters``、经由 ``copy.copy(w)`` 修改，以及对 ``w.detach()`` 调用 ``apply_``、``map_`` 或 ``map2_``。``.data``
# 让自动求导看不见修改，``p.data = t`` 连形状的改变也一并藏起来。``torch.no_grad()`` 下的
# ``copy_`` 保留参数的形状和 dtype，但能广播的源张量会被广播，浮点数和整数源张量的 dtype 也会被悄悄转换；形状无法广播的源张量会报错。``.data`` 与 ``detach()`` 的逐条对比，见 :ref:`“检验原博文总结”那一页 <data-vs-detach-comparison>`。:fact:`ctx-attribute-escapes-version-check` :fact:`unread-saved-tensors-escape-version-check` :fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted` :fact:`counter-bypass-edits-silent`
