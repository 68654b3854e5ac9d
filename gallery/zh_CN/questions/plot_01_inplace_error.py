"""
.. _questions-inplace-error:

“modified by an inplace operation”：是哪个张量，怎么修
======================================================

.. admonition:: 答案
   :class: answer

   自动求导（autograd）为 ``backward()`` 保存的张量被原地操作改过，它的版本已不是保存时记下的那个。把修改写成非原地的：

   .. code-block:: python

      y = x.exp()
      y = y + 1
      y.sum().backward()

``backward()`` 的这条报错，是 PyTorch 的 issue 区里被问得最多的问题之一（`pytorch/pytorch#96265
<https://github.com/pytorch/pytorch/issues/96265>`__、`pytorch/pytorch#39141
<https://github.com/pytorch/pytorch/issues/39141>`__）。以本页在 ``y = x.exp()`` 之后执行的 ``y += 1`` 为例，完整的报错信息是：

``RuntimeError: one of the variables needed for gradient computation has been modified by an
inplace operation: [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected
version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its
gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).``

本页在四种情形下触发它（保存下来的输出、保存下来的输入、``ReLU(inplace=True)``、两个优化器），逐段读懂报错信息，找出是哪一行惹的祸，再把每种解决办法算出的梯度与按求导公式算出的梯度对照。
"""

# %%
# 辅助函数
# --------
#
# ``show`` 打印自动求导为一个张量记下的信息：版本计数器（version counter），以及产生它的节点（``grad_fn``）。
import sys
import warnings

import torch


def show(name, t):
    node = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}  grad_fn={node}")


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
# 原地修改了保存下来的输出
# ------------------------
#
# ``exp`` 的导数就是它自己，所以 ``y = x.exp()`` 会为反向传播保存输出 ``y``，同时记下 ``y``
# 此刻的版本：0。``y += 1`` 是原地（in-place）操作，把版本推到 1。
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
show("y", y)
y += 1
show("y", y)
# sphinx_gallery_start_ignore
assert y.grad_fn.name() == "AddBackward0", "the in-place add rebased y's history"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：y 之下的自动求导计算图。AddBackward0 指向 ExpBackward0，它保存的结果显示 _version 1 != 0；ExpBackward0 再指向 AccumulateGrad 和叶子张量 x。
#
#    ``y`` 之下的计算图。``ExpBackward0`` 保存结果时，结果的版本是 0；``y += 1`` 之后这个张量的版本是 1，所以框内写着 ``_version 1 != 0``。

draw_graph("y = x.exp(); y += 1", y, x=x)
# sphinx_gallery_start_ignore
assert y._version == 1, "y += 1 moved the version of the saved output to 1"
# sphinx_gallery_end_ignore

# %%
# ``backward()`` 比较这两个数字，拒绝计算：
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() through an edited saved output must raise")
print("x.grad:", x.grad)
assert f"output 0 of Exp, is at version {y._version}; expected version 0" in message, "the message names Exp, the forward operation (the releases recorded before 2.13, 2.4.1 to 2.12.1, named the backward node, ExpBackward0)"
# sphinx_gallery_start_ignore
assert message == (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead. Hint: "
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
), "the whole message, as the opening quotes it"
assert "[torch.FloatTensor [3]]" in message, "the message gives the type and shape"
assert y.grad_fn.name() == "AddBackward0", "the message names Exp although y's grad_fn at backward() is AddBackward0"
assert x.grad is None, "no gradient was written"
# sphinx_gallery_end_ignore

# %%
# 读懂这条报错
# ------------
#
# 报错的每一段都有所指：
#
# - ``[torch.FloatTensor [3]]``：被保存张量的类型（``torch.FloatTensor``：CPU 上的 float32）和形状；
# - ``which is output 0 of Exp``：它是前向运算 ``exp`` 的第 0 个输出（指的是产生它的前向运算，不是出错的反向节点；2.13 之前记录过的版本（2.4.1 到 2.12.1）在这里写的是反向节点，即 ``output 0 of ExpBackward0``）；
# - ``is at version 1; expected version 0``：自从 ``exp`` 保存它以来，它被原地修改过一次。当前版本就是张量的
#   ``_version``。
#
# 解决办法：改成非原地写法。``y = y + 1`` 生成一个新张量，被保存的那个不受影响，梯度也正是按求导公式算出的
# ``d/dx (exp(x) + 1) = exp(x)``。
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
y = y + 1
y.sum().backward()
show("y", y)
print("x.grad:  ", x.grad)
print("exp(x):  ", x.detach().exp())
assert torch.allclose(x.grad, x.detach().exp()), "the out-of-place edit gives the calculus gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(x.grad, torch.func.grad(lambda t: (t.exp() + 1).sum())(x.detach())), "torch.func.grad gives the same gradient"
assert "[torch.FloatTensor [3]]" in message and y.type() == "torch.FloatTensor" and (
    y.dtype == torch.float32 and y.device.type == "cpu"), "torch.FloatTensor, the type in the message, is float32 on the CPU"
# sphinx_gallery_end_ignore

# %%
# 要保留原地修改，可以把前向传播、修改和 ``backward()`` 都放进
# ``torch.autograd.graph.allow_mutation_on_saved_tensors()`` 里运行：原地操作经由一个从被保存张量的第一个元素开始的张量（``y`` 本身、``y[:2]``、``y.detach()``）写入时，它会把被保存的张量复制一份，所以 ``backward()`` 照常运行，梯度也相同（见 :ref:`“看运算保存了什么”那一页 <questions-saved-tensors>`）。经由从别的元素开始的视图（view）写入，比如 ``y[1:]``、``y[1]``，则既不复制也不检查：``backward()`` 不报错，用修改后的值计算：这里得到的是错误的梯度。下面先做 ``y += 1``，再每行做一次写入，每次都在新的上下文里、梯度模式（grad mode）开启时进行（隐藏的检查在 ``torch.no_grad()`` 下再做一遍，还把被保存的张量换成 ``y[1:]`` 再做一遍）。
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = x.exp()
    y += 1
    y.sum().backward()
print("x.grad, y += 1 inside allow_mutation_on_saved_tensors():", x.grad)
assert torch.allclose(x.grad, x.detach().exp()), "inside allow_mutation_on_saved_tensors() the in-place edit gives exp(x)"


def edit_with_mutation_allowed(write, no_grad=False):
    """x.grad, y after the write, and whether the tensor written begins at y's first element, for
    ``y = x.exp()``, ``write(y)`` and ``backward()`` run inside allow_mutation_on_saved_tensors()."""
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        y = x.exp()
        with torch.set_grad_enabled(not no_grad):
            written = write(y)
        y.sum().backward()
    return x.grad, y.detach(), written.data_ptr() == y.data_ptr()


writes = {
    "y[:].add_(1)": lambda y: y[:].add_(1),
    "y[:2].add_(1)": lambda y: y[:2].add_(1),
    "y[0].add_(1)": lambda y: y[0].add_(1),
    "y.detach().add_(1)": lambda y: y.detach().add_(1),
    "y.unsqueeze(0).add_(1)": lambda y: y.unsqueeze(0).add_(1),
    "y[1:].add_(1)": lambda y: y[1:].add_(1),
    "y[1].add_(1)": lambda y: y[1].add_(1),
    "y.detach()[1:].add_(1)": lambda y: y.detach()[1:].add_(1),
}
exp_of_x = torch.tensor([0.0, 1.0, 2.0]).exp()
for line, write in writes.items():
    grad, edited, same_start = edit_with_mutation_allowed(write)
    print(f"{line:24} begins at y[0]: {same_start!s:5}  x.grad: {grad}")
    assert torch.allclose(grad, exp_of_x) if same_start else torch.equal(grad, edited) and not torch.allclose(
        grad, exp_of_x), ("a write through a tensor that begins at y's first element is copied; one that begins "
                          "elsewhere is not, and backward() computes with the edited y")
# sphinx_gallery_start_ignore
assert sorted(edit_with_mutation_allowed(each_write)[2] for each_write in writes.values()) == [False] * 3 + [True] * 5, (
    "five of the writes begin at y's first element, three elsewhere")
for hidden_write_ in writes.values():
    off_grad_, off_edited_, off_same_start_ = edit_with_mutation_allowed(hidden_write_, no_grad=True)
    assert torch.allclose(off_grad_, exp_of_x) if off_same_start_ else torch.equal(off_grad_, off_edited_) and not (
        torch.allclose(off_grad_, exp_of_x)), ("under no_grad too, a write that begins at y's first element is "
                                              "copied, and one that begins elsewhere is not")


def saved_view_case_(write):
    """w.grad, the saved y[1:] as it is after the write, and whether the tensor written begins at y[1], for a
    product w * y[1:] (which saves y[1:]), write(y) and backward() inside allow_mutation_on_saved_tensors()."""
    weight_, source_ = torch.ones(2, requires_grad=True), torch.tensor([1.0, 2.0, 3.0])
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        saved_view_ = source_[1:]
        product_ = weight_ * saved_view_
        written_ = write(source_)
        product_.sum().backward()
    return weight_.grad, saved_view_.clone(), written_.data_ptr() == saved_view_.data_ptr()


view_cases_ = [saved_view_case_(view_write_) for view_write_ in writes.values()]
assert sum(view_same_start_ for _, _, view_same_start_ in view_cases_) == 3 and all(
    torch.equal(view_grad_, torch.tensor([2.0, 3.0])) if view_same_start_ else torch.equal(view_grad_, view_edited_)
    for view_grad_, view_edited_, view_same_start_ in view_cases_), (
    "for a saved view y[1:], a write that begins at its first element is copied; one that begins elsewhere is not, "
    "and backward() computes with the values as edited")
# sphinx_gallery_end_ignore

# %%
# 保存之前的修改没有问题
# ----------------------
#
# 检查比较的是两个数：运算保存张量时它的版本号，以及 ``backward()`` 用到它时的版本号。在保存它的运算执行之前所做的原地修改，已经计入了保存时的版本号，所以 ``backward()`` 照常运行；下面第一个循环里的每一种修改都发生在 ``sin()`` 保存 ``y`` 之前。例外有两种。一是为自己的反向传播保存了 ``y`` 或与它共享版本计数器的张量（``y[:]``、``y.detach()``）的修改：``y.mul_(y)``、``y.mul_(y[:])`` 和 ``y.mul_(y.detach())``，或 ``y.div_(y)``，或为每个张量操作数的梯度保存另一个张量操作数的 ``y.addcmul_(y, y)``，先保存这个张量再写入 ``y``，这本身就是保存之后的修改，所以 ``backward()`` 会拒绝，而不用原地写法的 ``y * y`` 照常运行；``c`` 不需要梯度时，``y.addcmul_(y, c)`` 不保存 ``y`` 的任何部分，所以 ``backward()`` 照常运行，梯度与不用原地写法时相同。二是要保存的张量是需要梯度的张量经 ``unbind``、``split``、``split_with_sizes`` 或 ``chunk`` 得到的一个输出，或是在梯度模式关闭时从需要梯度的张量取得的视图，除非那个张量是 ``_base`` 不需要梯度的视图（``_base`` 是 torch 的内部属性，指向视图所用内存所属的那个张量，视图的视图则指向最初那个视图的基张量（base tensor）；见下文），或是自定义 ``torch.autograd.Function`` 对需要梯度的输入返回的输入的视图，或是在梯度模式下对以上任何一种取的视图（``b.split(1)[0][:]``、``b.chunk(2)[0].t()``）：它的基张量被修改之后，哪怕修改是在 ``torch.no_grad()`` 下进行的，本要保存它的运算也会当场报错“... its base or another view of its base has been modified inplace ...”（对梯度模式关闭时取得的视图再取的视图，报错是“... is a view of a view which was created in no_grad mode (in inference mode) and its base ...”），什么都不会保存（见下面第三个循环；第四个循环表明，不需要梯度的张量这样得到的输出照常被保存，保存的是修改后的值，也不报错）。自动求导记录了一次 ``backward()`` 接受的修改时，即修改在梯度模式下直接作用在 ``y`` 本身上时（第一个循环里的每一次修改都是这样），梯度与不用原地写法的同一段代码相同。除此之外，版本检查只拒绝发生在某次保存之后、``backward()`` 之前的修改，这时报错里的“expected version”就是 ``y`` 在保存时的版本号：改过一次，所以是 1。

edits = {
    "y.add_(1)": (lambda t: t.add_(1), lambda t: t + 1),
    "y.mul_(3)": (lambda t: t.mul_(3), lambda t: t * 3),
    "y.clamp_(max=2.0)": (lambda t: t.clamp_(max=2.0), lambda t: t.clamp(max=2.0)),
    "y.copy_(torch.ones(3))": (lambda t: t.copy_(torch.ones(3)), lambda t: t * 0 + torch.ones(3)),
}
out_of_place_grads = {}
for name, (in_place, out_of_place) in edits.items():
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = x * 2
    in_place(y)  # 在 sin() 保存 y 之前
    y.sin().sum().backward()
    reference = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    out_of_place(reference * 2).sin().sum().backward()
    out_of_place_grads[name] = reference.grad
    print(f"{name} before the save: backward() runs, x.grad equals the out-of-place gradient:",
          torch.allclose(x.grad, reference.grad))  # fmt: skip
    assert torch.allclose(x.grad, reference.grad), f"{name} before the save is counted in the saved version"

saving_edits = {
    "y.mul_(y)": lambda t: t.mul_(t),
    "y.mul_(y[:])": lambda t: t.mul_(t[:]),
    "y.mul_(y.detach())": lambda t: t.mul_(t.detach()),
    "y.div_(y)": lambda t: t.div_(t),
    "y.addcmul_(y, y)": lambda t: t.addcmul_(t, t),
}
for name, saving_edit in saving_edits.items():
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = x * 2
    saving_edit(y)  # 为自己的反向传播保存 y 或与它共享版本计数器的张量，然后写入 y
    try:
        y.sin().sum().backward()
    except RuntimeError as e:
        message = str(e)
        print(f"{name} before the save:", message[message.index("[torch.") : message.index(" instead")])
    else:
        raise AssertionError(
            f"{name} saves y or a tensor sharing its version counter, then writes y: backward() must raise")
    assert "is at version 1; expected version 0" in message, (
        f"{name} saved y or a tensor sharing its version counter at version 0, then wrote y")
# sphinx_gallery_start_ignore
squared_leaf = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
((squared_leaf * 2) * (squared_leaf * 2)).sin().sum().backward()
assert torch.allclose(squared_leaf.grad, 8 * squared_leaf.detach() * torch.cos(4 * squared_leaf.detach() ** 2)), (
    "y * y written out of place: backward() runs and gives the calculus gradient")
# sphinx_gallery_end_ignore

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
c = torch.tensor([2.0, 3.0, 4.0])  # 不需要梯度
y = x * 2
y.addcmul_(y, c)  # 为 y 的梯度保存 c，不保存 y 的任何部分
y.sin().sum().backward()
reference = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
torch.addcmul(reference * 2, reference * 2, c).sin().sum().backward()
print("y.addcmul_(y, c): backward() runs, x.grad equals the out-of-place gradient:",
      torch.allclose(x.grad, reference.grad))  # fmt: skip
assert torch.allclose(x.grad, reference.grad), "y.addcmul_(y, c) saves nothing of y: backward() runs and gives the out-of-place gradient"

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x * 2
y.add_(1)
z = y.sin()
y.mul_(3)  # 在 sin() 保存 y 之后
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print("y.mul_(3) after the save:", message[message.index("is at version") : message.index(" instead")])
else:
    raise AssertionError("an edit after the save must make backward() raise")
assert "is at version 2; expected version 1 instead" in message, "the expected version is the one at the save"


def view_under(grad_off_mode, b):
    with grad_off_mode():
        return b[0]


class ViewOfInput(torch.autograd.Function):  # 自定义 Function，forward 返回输入的一个视图
    @staticmethod
    def forward(ctx, t):
        return t[:]

    @staticmethod
    def backward(ctx, grad):
        return grad


views_of = {
    "b.chunk(2)[0]": lambda b: b.chunk(2)[0],
    "b.split(1)[0]": lambda b: b.split(1)[0],
    "b.split_with_sizes([1, 1])[0]": lambda b: b.split_with_sizes([1, 1])[0],
    "b.unbind()[0]": lambda b: b.unbind()[0],
    "b[0] under no_grad": lambda b: view_under(torch.no_grad, b),
    "b[0] under inference_mode": lambda b: view_under(torch.inference_mode, b),
    "b[1:][0], [0] under no_grad": lambda b: view_under(torch.no_grad, b[1:]),
    "b[1:][0], [0] under inference_mode": lambda b: view_under(torch.inference_mode, b[1:]),
    "b.split(1)[0][:]": lambda b: b.split(1)[0][:],
    "b.chunk(2)[0].t()": lambda b: b.chunk(2)[0].t(),
    "b[0][:2], [0] under no_grad": lambda b: view_under(torch.no_grad, b)[:2],
    "b[0][:2], [0] under inference_mode": lambda b: view_under(torch.inference_mode, b)[:2],
    "ViewOfInput.apply(b)": lambda b: ViewOfInput.apply(b),
}
for name, view in views_of.items():
    for leaf in (True, False):
        b = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = b if leaf else b * 1
        x = view(b)
        with torch.no_grad():
            b.mul_(2)  # 在任何保存之前，就像优化器更新那样
        try:
            torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * x  # 本要保存 x
        except RuntimeError as e:
            message = str(e)
            print(f"x = {name:34} leaf b: {leaf!s:5}  w * x raises: {message[: message.index(' and its base')]}")
        else:
            raise AssertionError(f"x = {name}: after an edit of b, the operation that would save x must raise")
        assert "its base or another view of its base has been modified inplace" in message, (
            f"x = {name}: after an edit of b under no_grad, the operation that would save x raises the error on such views")
        # sphinx_gallery_start_ignore
        assert not name.startswith("b[0][:2]") or "is a view of a view which was created in " + (
            "no_grad" if "no_grad" in name else "inference") + " mode and its base" in message, (
            f"x = {name}: the message says that x is a view of a view taken with grad mode off")
        for saving_op in (torch.sin, torch.exp, torch.sigmoid):
            try:
                saving_op(x)
            except RuntimeError as e:
                assert "its base or another view of its base has been modified inplace" in str(e), (
                    f"x = {name}: after an edit of b under no_grad, sin(), exp() and sigmoid() of x raise the same error")
            else:
                raise AssertionError(f"x = {name}: after an edit of b, an operation that would save x must raise")
        # sphinx_gallery_end_ignore
for name, view in list(views_of.items())[:4]:
    b = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # 不需要梯度
    x = view(b)
    b.mul_(2)
    w = torch.ones(3, requires_grad=True)
    (w * x).sum().backward()  # 保存 x：不报错
    print(f"x = {name:29} b without grad: w * x saves x, w.grad: {w.grad}")
    assert torch.equal(w.grad, x.flatten()), f"x = {name} of a tensor that does not require grad: saved with the edit of b"

# %%
# 自动求导没有记录的修改就不同了。在保存之前于 ``torch.no_grad()`` 下或经由 ``y.detach()`` 做的修改，同样让 ``backward()`` 照常运行，但 ``backward()`` 把它当作常数：梯度等于 ``y + (edited - y).detach()`` 的梯度，其中 ``edited`` 是修改之后的 ``y``，见 :ref:`“检验原博文总结”那一页 <data-vs-detach-comparison>` 的情况 3。除了导数为 1 的 ``add_``，下面每一种修改得到的梯度都不是不用原地写法的同一段代码给出的梯度，而且不报错。:fact:`detach-edit-before-save`
for name, (in_place, out_of_place) in edits.items():
    for way in ("under torch.no_grad()", "through y.detach()"):
        x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
        y = x * 2
        if way == "through y.detach()":
            in_place(y.detach())  # 不被记录：y 保留原来的 grad_fn
        else:
            with torch.no_grad():
                in_place(y)  # 同样不被记录
        y.sin().sum().backward()
        reference = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
        y_ref = reference * 2
        (y_ref + (out_of_place(y_ref) - y_ref).detach()).sin().sum().backward()
        same_as_constant = torch.allclose(x.grad, reference.grad)
        differs = not torch.allclose(x.grad, out_of_place_grads[name])
        print(f"{name} {way}: x.grad equals the gradient with the edit as a constant: {same_as_constant},"
              f" differs from the out-of-place gradient: {differs}")  # fmt: skip
        assert same_as_constant and differs == (name != "y.add_(1)"), (
            f"{name} {way} before the save is a constant to backward()")
        # sphinx_gallery_start_ignore
        assert y.grad_fn.name() == "MulBackward0", f"{name} {way} is not recorded: y keeps the grad_fn of x * 2"
        # sphinx_gallery_end_ignore

# %%
# 原地修改了保存下来的输入
# ------------------------
#
# 计算 ``w`` 的梯度要用到 ``x``，所以 ``z = w * x`` 保存了 ``x``。之后再原地修改 ``x``，会得到同样的报错，但这次报错里没有点名任何运算：``x``
# 不是自动求导记录过的某个运算的输出，也就没有“output 0 of ...”可写。这时要找的是：自己的代码里，哪个这种形状的张量被原地修改了。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
x += 1
show("x", x)
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() through an edited saved input must raise")
assert "[torch.FloatTensor [3]] is at version 1; expected version 0" in message, "no operation is named"

# %%
# 如果被保存的输入本身是某个被记录的运算（这里是 ``sin``）的输出，报错按 ``backward()`` 运行时张量的 ``grad_fn``
# 点名。梯度模式开启时直接作用在 ``x`` 本身上的原地修改会被自动求导记录下来，并换掉这个 ``grad_fn``：执行 ``x.mul_(2)`` 之后，报错里写的是“output 0 of Mul”，也就是这次修改本身，而不是 ``sin``。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True).sin()
z = w * x
x.mul_(2)
print("x.grad_fn:", x.grad_fn.name())
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() through an edited saved non-leaf must raise")
assert "which is output 0 of Mul, is at version 1" in message and x.grad_fn.name() == "MulBackward0", \
    "after the recorded edit, the message names it: output 0 of Mul, at version 1"
# sphinx_gallery_start_ignore
assert "Sin" not in message, "after the recorded edit, the operation that made x is not named"
# sphinx_gallery_end_ignore

# %%
# 换一种修改方式，点名的运算也跟着变，因为报错读的是张量此刻的 ``grad_fn``。在 ``torch.no_grad()`` 下修改，或经由
# ``x.detach()`` 修改，自动求导不会记录这次修改，``grad_fn`` 仍是 ``SinBackward0``，报错写的是“output 0 of Sin”：即产生 ``x`` 的运算，尽管修改发生在它之后。经由 ``x`` 的视图做一次被记录的修改，如 ``x[:2].mul_(2)``，会给
# ``x`` 换上节点 ``CopySlices``，报错点名的就是它，全名 ``torch::autograd::CopySlices``。如果被保存的张量本身是能用步长表示的视图（``x = base[:]``），那么无论修改的是视图还是它的基张量，无论被记录、在 ``torch.no_grad()``
# 下进行，还是经由 ``detach()`` 进行，视图的 ``grad_fn`` 都会变成 ``AsStridedBackward0``，报错写的是“output 0 of AsStrided”。改变 dtype 或元素解释方式的视图中，``.real``、``.imag`` 以及对这类视图取的切片，报错同样写 AsStrided；最后取的视图若是 ``torch.view_as_real``、``torch.view_as_complex`` 或 ``conj()``，报错点名的就是这个运算（复数张量的 ``.H``、``.mH`` 和 ``adjoint()`` 也点名 Conj）：``torch.view_as_real`` 是“output 0 of ViewAsReal”。``view(dtype)`` 得到的张量没有 ``grad_fn``，报错里不点名任何运算。下面每一行都先用 ``z = w * x`` 保存 ``x``，再修改一次，然后运行 ``backward()``。:fact:`saved-view-edit-error` :fact:`saved-conj-transpose-edit-error`


def name_in_message(saved_view, no_grad, edit):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = torch.tensor([4.0, 5.0, 6.0], requires_grad=True).sin()
    x = base[:] if saved_view else base
    z = w * x
    with torch.set_grad_enabled(not no_grad):
        edit(x, base)
    try:
        z.sum().backward()
    except RuntimeError as e:
        return x.grad_fn.name(), str(e).split("which is ")[1].split(", is at")[0]
    raise AssertionError("backward() through an edited saved non-leaf must raise")


cases = {  # 每一行：（x 是否为视图 base[:]，修改是否在 torch.no_grad() 下进行，修改本身）
    "x.mul_(2)": (False, False, lambda x, base: x.mul_(2)),
    "x.mul_(2) under no_grad": (False, True, lambda x, base: x.mul_(2)),
    "x.detach().mul_(2)": (False, False, lambda x, base: x.detach().mul_(2)),
    "x[:2].mul_(2)": (False, False, lambda x, base: x[:2].mul_(2)),
    "x = base[:]; x.mul_(2)": (True, False, lambda x, base: x.mul_(2)),
    "x = base[:]; x.mul_(2) under no_grad": (True, True, lambda x, base: x.mul_(2)),
    "x = base[:]; base.mul_(2)": (True, False, lambda x, base: base.mul_(2)),
    "x = base[:]; base.mul_(2) under no_grad": (True, True, lambda x, base: base.mul_(2)),
    "x = base[:]; x.detach().mul_(2)": (True, False, lambda x, base: x.detach().mul_(2)),
    "x = base[:]; base.detach().mul_(2)": (True, False, lambda x, base: base.detach().mul_(2)),
}
grad_fns, named = {}, {}
for line, (saved_view, no_grad, edit) in cases.items():
    grad_fns[line], named[line] = name_in_message(saved_view, no_grad, edit)
    print(f"{line:40} x.grad_fn: {grad_fns[line]:28} message: {named[line]}")
assert named["x.mul_(2) under no_grad"] == named["x.detach().mul_(2)"] == "output 0 of Sin", (
    "after an edit autograd does not record, the message names Sin, the operation that made x"
)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
base = torch.tensor([4.0, 5.0, 6.0], requires_grad=True).sin()
x = base.view(torch.int32)
z = w * x
with torch.no_grad():
    base.mul_(2)
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print("x = base.view(torch.int32): x.grad_fn:", x.grad_fn, " message:", message.split(" is at")[0])
else:
    raise AssertionError("backward() after an edit of the base of a saved view(dtype) must raise")
assert x.grad_fn is None and "which is" not in message and "[torch.IntTensor [3]] is at version 1" in message, (
    "a saved view(dtype) has no grad_fn, and the message names no operation"
)
# sphinx_gallery_start_ignore
assert all(base.view(dtype_).grad_fn is None for dtype_ in (torch.float32, torch.float16, torch.int32, torch.uint8)), (
    "view(dtype) gives a tensor with no grad_fn, whatever the dtype")
assert all(named[line] == "output 0 of " + grad_fns[line].removesuffix("Backward0") for line in cases), (
    "every message names x's grad_fn at backward()"
)
assert named["x.mul_(2)"] == "output 0 of Mul", "a recorded edit of x itself names the edit, Mul"
assert named["x[:2].mul_(2)"] == "output 0 of torch::autograd::CopySlices", "a recorded edit through a view names CopySlices"
assert all(named[line] == "output 0 of AsStrided" for line in list(cases)[4:]), (
    "a saved view edited through itself or its base, recorded, under no_grad or through detach(), names AsStrided"
)
# sphinx_gallery_end_ignore

# %%
# 在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下从需要梯度的张量（``_base`` 不需要梯度的视图除外，见下文）取得的视图则是另一回事：修改了它的基张量，或在 ``torch.no_grad()`` 下或经由 ``detach()`` 修改了这个视图之后，``backward()`` 报的是另一条错误，即“A view was created in no_grad mode (in inference mode) and its base or another view of its base has been modified inplace with grad mode enabled (in normal mode)”，哪怕修改是在 ``torch.no_grad()`` 下进行的，就像优化器更新权重那样。被记录的对这个视图本身的修改则当场报错：“A view was created in no_grad mode (in inference mode) and is being modified inplace with grad mode enabled (in normal mode)”（见 :ref:`“源与目标重叠的写入”那一页 <questions-overlapping-writes>`）。在梯度模式开启时取得的叶子张量（leaf tensor）的视图，``_base`` 就是那个叶子张量，不算例外。例外是 ``_base`` 不需要梯度的视图，与 :ref:`“视图”那一页 <questions-views>` 所说的相同：用 ``requires_grad_()`` 变成叶子张量的视图（下面的 ``view_leaf``），或在梯度模式开启时取得的这种视图的视图（``view_leaf[:]``）。在梯度模式关闭时从它取得的视图不需要梯度：保存之前修改它的基张量不会报错，被记录的对这个视图的修改照常运行，``backward()`` 报的是通常的“modified by an inplace operation”错误。下面每一行都在梯度模式关闭时取 ``x = base[:]``，用 ``z = w * x`` 保存它，修改一次，然后运行 ``backward()``；最后两个循环做的是被记录的修改。
def grad_off_view_error(mode, kind, no_grad, edit):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = grad_off_sources[kind](torch.tensor([4.0, 5.0, 6.0], requires_grad=True))
    with grad_off[mode]():
        x = base[:]
    z = w * x
    with torch.set_grad_enabled(not no_grad):
        edit(x, base)
    try:
        z.sum().backward()
    except RuntimeError as e:
        return str(e).split(". Given")[0]
    raise AssertionError("backward() after an edit of a saved view taken with grad mode off must raise")


grad_off = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
grad_off_sources = {"leaf": lambda b: b, "non-leaf": torch.sin, "view of a leaf": lambda b: b[:]}  # 由叶子张量 b 得到 base
grad_off_cases = {  # 行名：（base 的种类，修改是否在 torch.no_grad() 下进行，修改）
    "base.mul_(2)": ("non-leaf", False, lambda x, base: base.mul_(2)),
    "base.mul_(2) under no_grad": ("non-leaf", True, lambda x, base: base.mul_(2)),
    "leaf base; base.mul_(2) under no_grad": ("leaf", True, lambda x, base: base.mul_(2)),
    "base = b[:]; base.mul_(2) under no_grad": ("view of a leaf", True, lambda x, base: base.mul_(2)),
    "x.mul_(2) under no_grad": ("non-leaf", True, lambda x, base: x.mul_(2)),
    "x.detach().mul_(2)": ("non-leaf", False, lambda x, base: x.detach().mul_(2)),
    "base.detach().mul_(2)": ("non-leaf", False, lambda x, base: base.detach().mul_(2)),
}
grad_off_messages = {}
for mode in grad_off:
    for line, (kind, no_grad, edit) in grad_off_cases.items():
        grad_off_messages[mode, line] = grad_off_view_error(mode, kind, no_grad, edit)
        print(f"{mode:14} {line:40} message: {grad_off_messages[mode, line]}")
assert all(message == {
    "no_grad": "A view was created in no_grad mode and its base or another view of its base has been modified inplace "
               "with grad mode enabled",
    "inference_mode": "A view was created in inference mode and its base or another view of its base has been modified "
                      "inplace in normal mode"}[mode] for (mode, line), message in grad_off_messages.items()), (
    "after an edit of its base, or of it under no_grad or through detach(), a saved view taken with grad mode off "
    "makes backward() raise the error on views created in no_grad or inference mode")
# sphinx_gallery_start_ignore
leaf_ = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
assert grad_off_sources["view of a leaf"](leaf_)._base is leaf_, (
    "a view of a leaf taken with grad mode on has that leaf, which requires grad, as its _base")
# sphinx_gallery_end_ignore
for mode in grad_off:
    for kind, source in grad_off_sources.items():
        base = source(torch.tensor([4.0, 5.0, 6.0], requires_grad=True))
        with grad_off[mode]():
            x = base[:]
        try:
            x.mul_(2)  # 被记录：梯度模式开启
        except RuntimeError as e:
            message = str(e)
            print(f"{mode:14} base: {kind:14}  recorded x.mul_(2): {message.split('. Given')[0]}")
        else:
            raise AssertionError("a recorded edit of a view taken with grad mode off must raise at once")
        assert message.startswith({
            "no_grad": "A view was created in no_grad mode and is being modified inplace with grad mode enabled",
            "inference_mode": "A view was created in inference mode and is being modified inplace in normal mode"}[mode]), (
            "a recorded edit of a view taken with grad mode off raises at once")
for mode in grad_off:
    view_leaf = torch.tensor([0.0, 4.0, 5.0, 6.0])[1:].requires_grad_()  # 变成叶子张量的视图
    for kind, base in {"view_leaf": view_leaf, "view_leaf[:]": view_leaf[:]}.items():
        w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with grad_off[mode]():
            x = base[:]
        with torch.no_grad():
            base.mul_(2)  # 保存之前修改它的基张量
        z = w * x  # 保存 x：不报错
        x.mul_(2)  # 被记录，照常运行
        try:
            z.sum().backward()
        except RuntimeError as e:
            message = str(e)
            print(f"{mode:14} base: {kind:12}  base._base.requires_grad={base._base.requires_grad}  "
                  f"x.requires_grad={x.requires_grad}  after x.mul_(2), backward(): {message.split(':')[0]}")  # fmt: skip
        else:
            raise AssertionError("backward() after an edit of a saved view of a view whose _base needs no grad must raise")
        assert not base._base.requires_grad and not x.requires_grad and "modified by an inplace operation" in message \
            and "A view was" not in message, (
                f"a view taken with grad mode off of {kind}, a view whose _base does not require grad, does not require "
                "grad; an edit of its base before the save raises nothing; after a recorded edit of it, backward() "
                "raises the version error")

# %%
# 这里的修改是有意为之，所以解决办法是在修改之前 ``clone()``：乘法保存的是一份副本，``x`` 可以随意改。``w``
# 的梯度是 ``x`` 参与乘法时的值，即 ``d/dw sum(w * x) = x``。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x.clone()
x += 1
z.sum().backward()
show("x", x)
print("w.grad:", w.grad)
assert torch.equal(w.grad, torch.tensor([4.0, 5.0, 6.0])), "the gradient uses x as it was when multiplied"

# %%
# 版本号记的是 torch 原地操作的次数（不包括对每个值调用 Python 函数的 ``apply_`` 和 ``map_``，也不包括少数几个 torch 内核，见 :ref:`“版本计数器”那一页 <questions-version-counter>`），而不是数值有没有变。对 ``x.detach()`` 调用 ``t_()``：这个别名与 ``x``
# 共享版本计数器，转置的只是别名本身，``x`` 的数值和形状都没变，版本却变成了 1，``backward()`` 照样拒绝计算。
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
x = torch.tensor([[4.0, 5.0], [6.0, 7.0]])
z = w * x
before = x.clone()
x.detach().t_()
show("x", x)
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after t_() on an alias of the saved x must raise")
assert torch.equal(x, before) and "is at version 1; expected version 0" in message, "t_() counts as an edit"

# %%
# ``ReLU(inplace=True)``
# ----------------------
#
# 原地 ReLU 返回的就是传进来的那个张量本身，只是内容被改了。``sigmoid`` 的反向传播需要它自己的输出，所以把原地 ReLU
# 接在 ``sigmoid`` 后面，和 ``y += 1`` 是同一个错误：报错点名的是 ``Sigmoid``。
x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.sigmoid()
r = torch.nn.ReLU(inplace=True)(h)
print("r is h:", r is h)
show("h", h)
try:
    r.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after an in-place ReLU on a saved output must raise")
assert "output 0 of Sigmoid, is at version 1; expected version 0" in message, "the message names Sigmoid"
# sphinx_gallery_start_ignore
assert r is h, "an in-place ReLU returns its input"
# sphinx_gallery_end_ignore

# %%
# 对视图做原地操作，保存的也是视图。对另一个运算的输出 ``h`` 的切片 ``piece = h[:, :2]`` 调用 ``ReLU(inplace=True)``、``exp_()``、``sigmoid_()`` 或 ``tanh_()``，保存的输出都是 ``piece``。只有被记录的、对 ``piece`` 本身的修改之后，报错才点名这个运算；其他修改之后（修改 ``piece`` 的视图、修改 ``h``、在 ``torch.no_grad()`` 下修改或经由 ``detach()`` 修改），报错点名的都是 ``AsStrided``。下面每行做一次修改，四个运算各做一遍，再运行 ``backward()``；隐藏的检查在 ``h[:, 1:]``、``h[0]``、``h.view(3)`` 和 ``h.t()`` 上再做一遍。


def name_after_in_place_on_view(in_place, take_view, no_grad, edit):
    """The operation the message names after ``in_place`` on ``take_view(h)`` for ``h = x * 2``, then ``edit``."""
    x = torch.tensor([[-1.0, 0.5, 2.0]], requires_grad=True)
    h = x * 2
    piece = in_place(take_view(h))
    with torch.set_grad_enabled(not no_grad):
        edit(h, piece)
    try:
        h.sum().backward()
    except RuntimeError as e:
        return str(e).split("which is ")[1].split(", is at")[0]
    raise AssertionError("backward() after an edit of an output saved through a view must raise")


in_place_ops = {"Relu": torch.nn.ReLU(inplace=True), "Exp": torch.Tensor.exp_, "Sigmoid": torch.Tensor.sigmoid_,
                "Tanh": torch.Tensor.tanh_}
view_edits = {  # line: (the edit runs under torch.no_grad(), the edit)
    "piece.mul_(2)": (False, lambda h, piece: piece.mul_(2)),
    "piece.mul_(2) under no_grad": (True, lambda h, piece: piece.mul_(2)),
    "piece.detach().mul_(2)": (False, lambda h, piece: piece.detach().mul_(2)),
    "piece[..., :1].mul_(2)": (False, lambda h, piece: piece[..., :1].mul_(2)),
    "h.mul_(2)": (False, lambda h, piece: h.mul_(2)),
    "h.mul_(2) under no_grad": (True, lambda h, piece: h.mul_(2)),
    "h.detach().mul_(2)": (False, lambda h, piece: h.detach().mul_(2)),
    "h[:, 2:].mul_(2)": (False, lambda h, piece: h[:, 2:].mul_(2)),
}
for line, (no_grad, edit) in view_edits.items():
    named = {op: name_after_in_place_on_view(in_place, lambda h: h[:, :2], no_grad, edit)
             for op, in_place in in_place_ops.items()}
    print(f"{line:28} the message names: {', '.join(name.removeprefix('output 0 of ') for name in named.values())}")
    assert all(name == f"output 0 of {op if line == 'piece.mul_(2)' else 'AsStrided'}" for op, name in named.items()), (
        "the message names the in-place operation after a recorded edit of the view it wrote, AsStrided after "
        "any other edit")
# sphinx_gallery_start_ignore
for other_view_ in (lambda h: h[:, 1:], lambda h: h[0], lambda h: h.view(3), lambda h: h.t()):
    for edit_line_, (edit_no_grad_, view_edit_) in view_edits.items():
        assert all(name_after_in_place_on_view(in_place, other_view_, edit_no_grad_, view_edit_) == "output 0 of " + (
            op if edit_line_ == "piece.mul_(2)" else "AsStrided") for op, in_place in in_place_ops.items()), (
            "on other slices and views of h as well, the message names the in-place operation after a recorded edit "
            "of the view it wrote, AsStrided after any other edit")
# sphinx_gallery_end_ignore

# %%
# 接在 ``Linear`` 层后面，同样的原地 ReLU 却不会出问题：下面 ``layer(x)`` 的节点保存的是 ``x`` 和这一层权重的一个视图，而不是它的输出。所以，接在反向传播不需要自身输出的层后面，且这个输出是一个新张量、没有别的运算保存它时，
# ``inplace=True`` 不会出错（如果这个输出又乘上一个需要梯度的门控张量，乘法会保存它，``backward()`` 就会报错）。层的输入的视图不是新张量（见下一段）；带偏置的 ``nn.Linear`` 对三维输入返回的视图，则是这一层自己算出的乘积的视图，不是输入的视图，对它做原地 ReLU 得到的梯度与普通 ReLU 的相同（隐藏的检查验证了这一点）。在梯度模式下、``torch.inference_mode()`` 之外，输出需要梯度时，用 ``chunk``、``split``、``split_with_sizes`` 或 ``unbind``
# 从这个输出切出的一块就不行了，哪怕只切出一块也一样，对这样一块再取的视图（比如它的 ``[:, :1]``）也不行：对它调用 ``ReLU(inplace=True)`` 或 ``torch.nn.functional.relu(..., inplace=True)``，在前向传播里当场就会报错，报错说这个视图“is the output of a function that returns multiple views”。``tensor_split`` 切出的也是这个输出的视图，但对它切出的其中一块做原地 ReLU 照常运行，得到的梯度与不用原地操作的 ReLU 相同。（固定随机种子，让这一层的随机权重每次运行都一样，比较的结果也就每次相同。）
# :fact:`view-inplace-refused-outside-inference-mode`
torch.manual_seed(0)
layer = torch.nn.Linear(3, 2)
x = torch.tensor([[-1.0, 0.5, 2.0]], requires_grad=True)
out = torch.nn.ReLU(inplace=True)(layer(x))
out.sum().backward()
grad_inplace = x.grad.clone()
x.grad = None
torch.nn.ReLU()(layer(x)).sum().backward()
print("x.grad, in-place ReLU:", grad_inplace)
print("x.grad, plain ReLU:   ", x.grad)
assert torch.equal(grad_inplace, x.grad), "after Linear, the in-place ReLU gives the same gradient"
x.grad = None
out = layer(x)
torch.nn.ReLU(inplace=True)(out.tensor_split(2, dim=1)[0])
out.sum().backward()
print("x.grad, in-place ReLU on a tensor_split piece:", x.grad)
# sphinx_gallery_start_ignore
plain_pieces = layer(x).tensor_split(2, dim=1)
assert torch.equal(x.grad, torch.autograd.grad(torch.nn.ReLU()(plain_pieces[0]).sum() + plain_pieces[1].sum(), x)[0]), (
    "the in-place ReLU on a tensor_split piece gives the same gradient as the plain ReLU")
assert all(piece_of_out._base is out for piece_of_out in out.tensor_split(2, dim=1)), (
    "tensor_split returns views of the output")
assert torch.equal(out.detach(), layer(x).detach().clamp(min=0)) and (layer(x).detach() < 0).any(), (
    "the in-place ReLU on the tensor_split piece cleared a negative value of the output")
assert grad_inplace.abs().sum() > 0, "the gradient compared is not zero"
sequence_leaf_ = torch.linspace(-2.0, 2.0, 24, requires_grad=True)
sequence_out_ = layer(sequence_leaf_.reshape(4, 2, 3))
assert sequence_leaf_.reshape(4, 2, 3)._base is sequence_leaf_ and sequence_out_._base is not None and (
    sequence_out_._base is not sequence_leaf_), (
    "for a 3-d input, Linear with a bias returns a view of the product it computed, not of its input")
assert (sequence_out_ < 0).any(), "the 3-d Linear's output has a negative value for the ReLU to clear"
plain_sequence_grad_ = torch.autograd.grad(torch.nn.ReLU()(layer(sequence_leaf_.reshape(4, 2, 3))).sum(), sequence_leaf_)
assert torch.equal(torch.autograd.grad(torch.nn.ReLU(inplace=True)(sequence_out_).sum(), sequence_leaf_)[0],
                   plain_sequence_grad_[0]), "on the view a 3-d Linear returns, the in-place ReLU gives the same gradient"
linear_node = layer(x).grad_fn
assert (linear_node._saved_mat1 is x and linear_node._saved_mat2._base is layer.weight
        and "_saved_result" not in dir(linear_node)), (
    "the node of layer(x) saves x and a view of the layer's weight, not its output")
# sphinx_gallery_end_ignore
gate = torch.tensor([[2.0, 3.0]], requires_grad=True)
out = layer(x)
gated = out * gate  # 乘法为 gate 的梯度保存了 out
torch.nn.ReLU(inplace=True)(out)
try:
    (out.sum() + gated.sum()).backward()
except RuntimeError as e:
    assert "modified by an inplace operation" in str(e), "the multiply saved the ReLU's input"
    print("in-place ReLU after a gate multiply, backward():", type(e).__name__)
else:
    raise AssertionError("an in-place ReLU on an output another operation saved must make backward() raise")
pieces_of = {
    "chunk(2)": lambda t: t.chunk(2, dim=1), "split(1)": lambda t: t.split(1, dim=1), "unbind(1)": lambda t: t.unbind(1),
    "chunk(1)": lambda t: t.chunk(1, dim=1), "split(5)": lambda t: t.split(5, dim=1), "unbind(0)": lambda t: t.unbind(0),
    "split_with_sizes([1, 1])": lambda t: t.split_with_sizes([1, 1], dim=1),
    "[:, :1] of chunk(2)": lambda t: [piece[:, :1] for piece in t.chunk(2, dim=1)],
}
assert [len(pieces_of[name](layer(x))) for name in ("chunk(1)", "split(5)", "unbind(0)")] == [1] * 3, (
    "chunk(1), split(5) and unbind(0) of the output give a single piece")
refused = []
for grad_on in (torch.enable_grad, torch.no_grad):  # 梯度模式：默认开启，或在 no_grad() 里用 enable_grad() 打开
    for name, pieces in pieces_of.items():
        for relu_in_place in (torch.nn.ReLU(inplace=True), lambda t: torch.nn.functional.relu(t, inplace=True)):
            with grad_on(), torch.enable_grad():
                assert torch.is_grad_enabled(), "grad mode is on, outside inference_mode"
                try:
                    relu_in_place(pieces(layer(x))[0])
                except RuntimeError as e:
                    assert "is the output of a function that returns multiple views" in str(e), (
                        "an in-place ReLU on a piece from chunk, split or unbind, even the only piece, or on a view "
                        "of one, raises the multiple-views error")
                    refused.append(name)
                else:
                    raise AssertionError("an in-place ReLU on an output of chunk, split or unbind, even the only one, "
                                         "or on a view of one, must raise at once")
assert all(refused.count(name) == 4 for name in pieces_of), "two grad modes times two in-place ReLUs, each piece"
print("in-place ReLU raised at once, 4 times each, on the first piece of:", ", ".join(dict.fromkeys(refused)))

# %%
# 输出与输入共享内存的层会把这次修改交给它的输入：``nn.Identity`` 返回输入本身，``nn.Flatten`` 在步长允许时返回输入本身或它的视图：只要输入是连续的，并且有 ``start_dim`` 和 ``end_dim``
# 所指的维度，``start_dim`` 又不在 ``end_dim`` 之后，步长就都允许（用默认值 1 和 -1 时，即任何两维及以上的连续输入；这里的 ``h``
# 就是连续的）。``sigmoid`` 之后接 ``nn.Flatten``，再接 ``ReLU(inplace=True)``，改的就是 ``sigmoid`` 保存的输出，``backward()`` 会报错，报错里点名 ``Sigmoid``。步长不允许视图时，比如多个通道、多个像素的
# ``channels_last`` 批次，``nn.Flatten()`` 会复制：原地 ReLU 改的是这份副本，``backward()`` 照常运行。在 ``torch.no_grad()`` 下，对 ``chunk`` 切出的一块做原地 ReLU 则照常运行。
x = torch.tensor([[-1.0, 0.5, 2.0]], requires_grad=True)
h = x.sigmoid()
flat = torch.nn.ReLU(inplace=True)(torch.nn.Flatten(0)(h))
print("h._version after the ReLU on the flattened h:", h._version)
try:
    flat.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after an in-place ReLU behind Flatten on a saved output must raise")
assert "output 0 of Sigmoid, is at version 1; expected version 0" in message, "behind Flatten, the message names Sigmoid"
with torch.no_grad():
    piece = torch.nn.ReLU(inplace=True)(layer(x).chunk(2, dim=1)[0])
print("under no_grad, the chunk piece after the in-place ReLU:", piece)
# sphinx_gallery_start_ignore
assert h._version == 1 and flat._version == 1, "the ReLU behind Flatten moved h's version"
assert torch.nn.Identity()(h) is h, "nn.Identity returns its input itself"
assert h.is_contiguous(), "the h flattened here is contiguous"
contiguous_inputs = [torch.arange(torch.Size(shape_).numel()).reshape(shape_).to(dtype_).clone() for shape_ in (
    (), (1,), (3,), (1, 3), (2, 1, 3), (2, 3, 4, 5), (6, 1), (0, 3)) for dtype_ in (torch.float32, torch.int64, torch.bool)
] + [torch.empty_strided((1, 3), (1, 1)), torch.ones(2, 3, requires_grad=True).exp()]
for flatten_mode in (torch.enable_grad, torch.no_grad):
    for contiguous_input in contiguous_inputs:
        assert contiguous_input.is_contiguous(), "each input flattened here is contiguous"
        dim_count = max(contiguous_input.dim(), 1)  # a 0-d tensor takes dimension 0 or -1
        flatten_layers = [torch.nn.Flatten(start_dim, end_dim) for start_dim in range(-dim_count, dim_count)
                          for end_dim in range(-dim_count, dim_count) if start_dim % dim_count <= end_dim % dim_count]
        for flatten_layer in flatten_layers + [torch.nn.Flatten()] * (contiguous_input.dim() >= 2):
            with flatten_mode():
                flattened = flatten_layer(contiguous_input)
            assert flattened.untyped_storage().data_ptr() == contiguous_input.untyped_storage().data_ptr() and (
                flattened is contiguous_input or flattened._base is contiguous_input), (
                "nn.Flatten returns a contiguous input or a view of it, for any start_dim and end_dim naming its "
                "dimensions in order, in grad mode and under no_grad")
for batch_shape in ((2, 3, 4, 5), (1, 3, 2, 2), (2, 2, 1, 3), (2, 2, 3, 1)):
    batch_leaf = torch.linspace(-2.0, 2.0, torch.Size(batch_shape).numel(), requires_grad=True)
    batch_h = batch_leaf.reshape(batch_shape).contiguous(memory_format=torch.channels_last).sigmoid()
    assert batch_h.is_contiguous(memory_format=torch.channels_last) and not batch_h.is_contiguous(), (
        "the sigmoid of a channels_last batch is channels_last")
    batch_flat = torch.nn.ReLU(inplace=True)(torch.nn.Flatten()(batch_h))
    assert batch_flat.untyped_storage().data_ptr() != batch_h.untyped_storage().data_ptr(), (
        "nn.Flatten() copies a channels_last batch of several channels and pixels")
    batch_flat.sum().backward()
    assert batch_h._version == 0 and torch.allclose(
        batch_leaf.grad, batch_leaf.detach().sigmoid() * (1 - batch_leaf.detach().sigmoid())), (
        "the in-place ReLU edits the copy: the saved sigmoid output keeps its version, and backward() runs")
assert torch.equal(piece, layer(x).detach().chunk(2, dim=1)[0].clamp(min=0)), (
    "under no_grad, an in-place ReLU on a chunk piece runs")
assert (layer(x).detach()[:, 0] < 0).all(), "the piece compared had a negative value for the ReLU to clear"
# sphinx_gallery_end_ignore

# %%
# 找出是哪一行
# ------------
#
# 模型很长时，在可疑的每一行之后打印 ``_version``，就能找到那次修改。异常检测模式（anomaly mode）会替你找：它记下每个节点在前向传播中创建的位置；反向传播失败时，发出一条警告，给出出错节点的名字，以及创建该节点的那次前向调用的调用栈，栈的最后一帧就是 ``y = x.exp()`` 这一行。本页捕获警告，只打印最后一条警告的第一行（调用栈里有文件名和行号，本页的中英文版本各不相同）；第一条警告只是说明该模式已经打开。
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = x.exp()
        # sphinx_gallery_start_ignore
        forward_line = sys._getframe().f_lineno - 2
        # sphinx_gallery_end_ignore
        y += 1
        try:
            y.sum().backward()
        except RuntimeError as e:
            message = str(e)
            print(f"{type(e).__name__}: {e}")
        else:
            raise AssertionError("backward() must raise in anomaly mode too")
report = str(caught[-1].message)
print("warnings:", len(caught))
print("last warning, first line:", report.splitlines()[0])
assert "Error detected in ExpBackward0. Traceback of forward call" in report, "the warning names the node"
# sphinx_gallery_start_ignore
assert report.rsplit("line ", 1)[1].startswith(f"{forward_line}, in"), "the last frame is the line of y = x.exp()"
assert "Anomaly Detection has been enabled" in str(caught[0].message), "the first warning says the mode is on"
assert "The variable in question was changed in there or anywhere later" in message, \
    "in anomaly mode the error says the variable was changed in the named node or later"
# sphinx_gallery_end_ignore

# %%
# 两个优化器：“is at version 2; expected version 1”
# -------------------------------------------------
#
# 这是 `pytorch/pytorch#39141 <https://github.com/pytorch/pytorch/issues/39141>`__ 里的 GAN
# 写法：两个损失来自同一次经过判别器 ``D`` 的前向传播，而 ``D`` 在两次 ``backward()`` 之间更新了参数。``D`` 刚建好，其权重的版本就已经是
# 1（初始化时在 ``no_grad`` 下原地修改过它）。前向传播保存的是转置后的 ``D.weight``：一个 ``[3, 1]``
# 的视图，与 ``D.weight`` 共享版本计数器（报错里称它为“output 0 of AsStrided”），保存时版本为 1；``opt_D.step()``
# 又原地修改了它一次。如果 ``opt_D`` 是 fused 优化器（``fused=True``），它的一步不会增加计数器，这里的 ``backward()``
# 也就不会报错，却悄悄给 ``G`` 算出错误的梯度（见 :ref:`“版本计数器”那一页 <questions-version-counter>`）。
G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt_G = torch.optim.SGD(G.parameters(), lr=0.1)
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
noise = torch.randn(4, 2)
score = D(G(noise))
loss_D = score.mean()
loss_G = -score.mean()
saved = score.grad_fn._saved_mat2
at_forward = D.weight._version
print("saved:", tuple(saved.shape), " saved._base is D.weight:", saved._base is D.weight)
print("D.weight._version after forward:", at_forward)
opt_D.zero_grad()
loss_D.backward(retain_graph=True)
opt_D.step()
print("D.weight._version after opt_D.step():", D.weight._version)
try:
    opt_G.zero_grad()
    loss_G.backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("loss_G.backward() after opt_D.step() must raise")
assert "[torch.FloatTensor [3, 1]], which is output 0 of AsStrided, is at version 2; expected version 1" in message, \
    "the error names D.weight's transpose (AsStrided), at version 2 where 1 was saved"
# sphinx_gallery_start_ignore
assert at_forward == 1 and saved._base is D.weight, "the saved tensor is a view of D.weight, saved at version 1"


def fused_gan_grad():
    with torch.random.fork_rng():
        fused_g, fused_d = torch.nn.Linear(2, 3), torch.nn.Linear(3, 1)
    fused_step = torch.optim.SGD(fused_d.parameters(), lr=0.1, fused=True)
    fused_score = fused_d(fused_g(torch.ones(4, 2)))
    calculus = torch.autograd.grad(-fused_score.mean(), fused_g.weight, retain_graph=True)[0]
    fused_score.mean().backward(retain_graph=True)
    before_step = [param._version for param in fused_d.parameters()]
    fused_step.step()
    counters_kept = [param._version for param in fused_d.parameters()] == before_step
    try:
        after_step = torch.autograd.grad(-fused_score.mean(), fused_g.weight)[0]
    except RuntimeError:
        return None, calculus, counters_kept
    return after_step, calculus, counters_kept


fused_grad, fused_calculus, fused_counters_kept = fused_gan_grad()
assert fused_counters_kept, "with a fused opt_D, opt_D.step() moves the counter of neither D.weight nor D.bias"
assert fused_grad is not None, "with a fused opt_D, loss_G.backward() raises nothing"
assert not torch.allclose(fused_grad, fused_calculus), "with a fused opt_D, G's gradient is wrong, with no error"
# sphinx_gallery_end_ignore

# %%
# 解决办法是调整顺序：趁权重还是前向传播时的样子，先把两个梯度都算出来，再更新参数。``inputs=``
# 让每个损失的梯度只流向它自己的模型。这样 ``G`` 的梯度就与 ``torch.func.grad`` 用同一组权重算出的结果相同。
G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt_G = torch.optim.SGD(G.parameters(), lr=0.1)
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
noise = torch.randn(4, 2)


def generator_loss(params):
    return -D(torch.func.functional_call(G, params, (noise,))).mean()


expected = torch.func.grad(generator_loss)(dict(G.named_parameters()))
score = D(G(noise))
loss_D = score.mean()
loss_G = -score.mean()
loss_D.backward(retain_graph=True, inputs=list(D.parameters()))
loss_G.backward(inputs=list(G.parameters()))
opt_D.step()
opt_G.step()
print("G.weight.grad:", G.weight.grad)
print("torch.func.grad:", expected["weight"].detach())
print("D.weight._version:", D.weight._version)
assert torch.allclose(G.weight.grad, expected["weight"]), "G's gradient is the one computed before the step"
# sphinx_gallery_start_ignore
assert torch.allclose(G.bias.grad, expected["bias"]), "G's bias gradient is also the one computed before the step"
assert D.weight._version == 2, "one step after initialisation"
# sphinx_gallery_end_ignore

# %%
# 常见的 GAN 训练循环用另一种办法避开这个错误：算 ``D`` 的损失时对假样本 ``detach()``，这个损失就传不到
# ``G``；``opt_D.step()`` 之后再算一遍 ``D(fake)`` 作为 ``G`` 的损失，这样 ``loss_G`` 背后的计算图保存的是
# ``D`` 更新之后的权重。用 Adam 走三步，不会报错。
torch.manual_seed(0)
G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt_G = torch.optim.Adam(G.parameters(), lr=0.01)
opt_D = torch.optim.Adam(D.parameters(), lr=0.01)
bce = torch.nn.functional.binary_cross_entropy_with_logits
real, ones, zeros = torch.randn(4, 3) + 2.0, torch.ones(4, 1), torch.zeros(4, 1)
untouched = []
for step in range(3):
    fake = G(torch.randn(4, 2))
    opt_D.zero_grad()
    opt_G.zero_grad()
    loss_D = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    loss_D.backward()
    opt_D.step()
    untouched.append(G.weight.grad is None)
    loss_G = bce(D(fake), ones)
    loss_G.backward()
    opt_G.step()
    print(f"step {step}: loss_D {loss_D.item():.4f}  loss_G {loss_G.item():.4f}")
print("G had no gradient after D's backward, every step:", all(untouched))
assert all(untouched) and G.weight.grad is not None, "D's loss never reaches G; G's own loss does"

# %%
# 小结
# ----
#
# 报错信息用类型和形状指明被保存的张量，并点名一个运算：被保存的输出，点名的是产生它的运算，即使原地修改已经给了这个张量新的 ``grad_fn`` 也是如此（如上面的 ``y += 1``），但若它是原地操作经由另一个输出的视图写出的（如对 ``h[:, :2]`` 调用 ``ReLU(inplace=True)``），除了被记录的、对这个视图本身的修改，任何修改之后点名的都是 ``AsStrided``；被保存的非叶子输入，点名的是 ``backward()`` 运行时这个输入的 ``grad_fn``：直接作用在输入本身上、被自动求导记录的修改之后，是那次修改；输入不是视图时，在 ``torch.no_grad()`` 下或经由 ``detach()`` 的修改之后，仍是产生这个输入的运算；经由视图、被记录的修改之后，是 ``CopySlices``；被保存的输入是单个能用步长表示的视图（切片、转置、``view()``、``.real`` 或 ``.imag`` 等），而它或它的基张量被修改过（无论被记录、在 ``torch.no_grad()`` 下，还是经由 ``detach()``），则是 ``AsStrided``；最后取的视图若是 ``torch.view_as_real``、``torch.view_as_complex`` 或 ``conj()``，则是这个视图自己的运算（``ViewAsReal``、``ViewAsComplex``、``Conj``；复数张量的 ``.H``、``.mH`` 和 ``adjoint()`` 也是 ``Conj``）。被保存的若是需要梯度的张量经 ``unbind``、``split`` 或 ``chunk`` 得到的一个输出，或是在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下从需要梯度的张量（``_base`` 不需要梯度的视图除外）取得的视图，或是在梯度模式下对这两种张量再取的视图（``b.split(1)[0][:]``），``backward()`` 报的则是另一条错误（“... its base or another view of its base has been modified inplace ...”），被记录的对这个输出或视图本身的修改则当场报错。没有 ``grad_fn`` 的被保存张量，报错里不点名运算。两个版本号不同，说明它被保存之后，有原地操作作用在它或与它共享版本计数器的张量上，哪怕这个操作没有改变任何数值，比如上面的
# ``t_()``。``_version`` 或异常检测模式能帮你找到那一行。可行的解决办法包括：改成非原地写法；让运算用一份 ``clone()`` 出来的副本；把前向传播、修改和 ``backward()`` 都放进 ``allow_mutation_on_saved_tensors()`` 里运行（前提是修改经由从被保存张量的第一个元素开始的张量写入：经由 ``y[1:]`` 的写入既不复制也不检查）；调整顺序，让所有
# ``backward()`` 都在修改之前完成；或者像 GAN 训练循环那样，在修改之后重新构建计算图。相反的情形，即自动求导根本察觉不到的修改，见 :ref:`“.data”那一页 <data-vs-detach-data>`。:fact:`saved-view-edit-error` :fact:`saved-conj-transpose-edit-error`
