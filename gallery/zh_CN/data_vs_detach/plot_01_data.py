"""
.. _data-vs-detach-data:

``.data``：悄无声息的修改，错误的梯度
=====================================

先算 ``out = a.sigmoid()``，再通过 ``out.data`` 把 ``out`` 清零，然后调用 ``backward()``。修改确实落到了 ``out`` 上，自动求导（autograd）却毫不知情：返回的梯度是错的，既不报错，也不警告。
"""

# %%
# 一个小计算图
# ------------
#
# ``a`` 是需要梯度的叶子张量（leaf tensor）。``out`` 是 ``a`` 的 sigmoid：它有 ``grad_fn``；``_version``，即它的版本计数器（version counter），从 0 开始。（``_version`` 是 torch 的内部属性，本站读它来展示计数器，它在今后的 torch 发行版中可能会变。）两个小辅助函数：``show`` 打印张量本身和本页关心的几项自动求导信息，
# ``same_storage`` 比较两块存储的起始地址。
import warnings

import torch


def show(name, t):
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}")


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
show("a", a)
show("out", out)
print("out.grad_fn:", out.grad_fn.name())
# sphinx_gallery_start_ignore
assert out._version == 0, "a fresh result starts at version 0"
assert out.requires_grad and not out.is_leaf, "out should be a non-leaf that requires grad"
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
# ``.data`` 共享数据，且不需要梯度
# --------------------------------
#
# ``c = out.data`` 是一个新的张量对象，和 ``out``
# 共享同一块存储。它不需要梯度，也没有 ``grad_fn``。在自动求导看来，它只是一个普通的叶子张量。
c = out.data
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), ".data shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, ".data returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, ".data is a leaf that does not require grad"
assert torch.equal(c, out), "c holds the same numbers as out"
# sphinx_gallery_end_ignore

# %%
# 通过 ``c`` 把 ``out`` 清零
# --------------------------
#
# ``c.zero_()`` 往共享的存储里写入 0，所以 ``out`` 也变成了
# 0。再看版本计数器：``c._version`` 从 0 变成了 1，``out._version`` 却还是
# 0。``.data`` 给了 ``c`` 一个独立的版本计数器，所以通过 ``c`` 的修改改变了
# ``out`` 的值，却不改变它的版本。
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert out._version == 0, "out's version counter did not move: .data does not share it"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert c._version == 1, "the in-place edit bumped c's version counter"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a、out 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。``out`` 与 ``c`` 共享存储 ``S2``，却各用一个计数器：只有 ``c`` 记下了这次修改。

draw_memory("c = out.data; c.zero_()", a=a, out=out, c=c)

# %%
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    原博文打印的是 ``grad_fn=<SigmoidBackward>``。在 torch |torch_version| 上，节点名是 ``SigmoidBackward0``
#    （见上面打印的 ``out``）：torch 为各个运算自动生成的反向节点，名字里都多了一个数字。有些名字在数字后面还带后缀，例如 ``torch.view_copy`` 的节点 ``ViewBackward0_copy`` 带 ``_copy``；``torch._foreach_*`` 这组内部运算中，有些运算的节点带重载名，如 ``ForeachAddBackward0List``、``ForeachAddBackward1Scalar``。torch 只为某一个分发键（dispatch key）生成的节点，会在数字前面带上这个键的名字：对嵌套张量调用 ``unbind()``，得到的节点是 ``UnbindBackwardAutogradNestedTensor0``。下图里的 ``AccumulateGrad`` 是手写的，没有这个数字。行为没有变化。
print("out.grad_fn:", out.grad_fn.name())
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"
# sphinx_gallery_start_ignore
hand_written_nodes = {"AccumulateGrad", "CopyBackwards", "CopySlices", "DelayedError", "Error", "NotImplemented",
                      "UndefinedGrad", "UndefinedGradBackward", "SendRpcBackward"}
generated_nodes = [node_name for node_name in dir(torch._C._functions)
                   if not node_name.startswith("_") and node_name not in hand_written_nodes]
assert len(generated_nodes) > 100 and all(node_name.removesuffix("_copy")[-1].isdigit() for node_name in generated_nodes), (
    "the nodes generated for torch's operators carry a number, before the _copy suffix where a node has one")
operator_results = (a * 2, a + 1, a.exp(), a.sum(), a.view(3), a[:2], a.to(torch.float64))
assert all(result.grad_fn.name()[-1].isdigit() for result in operator_results), (
    "the nodes of a * 2, a + 1, exp(), sum(), view(), a[:2] and to() end in a number")
assert torch.view_copy(a, (3,)).grad_fn.name() == "ViewBackward0_copy", "torch.view_copy's node is ViewBackward0_copy"
foreach_add_nodes = {"List": torch.ops.aten._foreach_add.List([a], [a])[0].grad_fn.name(),
                     "Scalar": torch.ops.aten._foreach_add.Scalar([a], 1.0)[0].grad_fn.name(),
                     "ScalarList": torch.ops.aten._foreach_add.ScalarList([a], [1.0])[0].grad_fn.name(),
                     "Tensor": torch.ops.aten._foreach_add.Tensor([a], torch.tensor(1.0))[0].grad_fn.name()}
assert all(node_name.startswith("ForeachAddBackward") and node_name.endswith(overload)
           and node_name.removesuffix(overload)[-1].isdigit() for overload, node_name in foreach_add_nodes.items()), (
    "each overload of torch._foreach_add puts its name after the number in its node's name")
assert (foreach_add_nodes["List"], foreach_add_nodes["Scalar"]) == ("ForeachAddBackward0List", "ForeachAddBackward1Scalar"), (
    "torch._foreach_add's nodes include ForeachAddBackward0List and ForeachAddBackward1Scalar")
keyed_nodes = [node_name for node_name in generated_nodes if "BackwardAutograd" in node_name]
assert len(keyed_nodes) > 10 and all(
    node_name.removesuffix("_copy").split("BackwardAutograd")[-1].rstrip("0123456789").isalpha()
    and node_name.removesuffix("_copy")[-1].isdigit() for node_name in keyed_nodes), (
    "a node generated for a single dispatch key has the key's name between Backward and the number")
nested_leaf = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged, requires_grad=True)
assert nested_leaf.unbind()[0].grad_fn.name() == "UnbindBackwardAutogradNestedTensor0", (
    "unbind() on a nested tensor gives UnbindBackwardAutogradNestedTensor0")
leaf_node = out.grad_fn.next_functions[0][0]
assert type(leaf_node).__name__ == "AccumulateGrad" and not leaf_node.name()[-1].isdigit(), (
    "AccumulateGrad, written by hand, has no number")
# sphinx_gallery_end_ignore

# %%
# 自动求导为反向传播保存了什么
# ----------------------------
#
# sigmoid 的导数是 ``s * (1 - s)``，其中 ``s`` 是它的输出。所以
# ``SigmoidBackward0`` 保存的正是结果 ``out``。读取它的 ``_saved_result``，得到的是同一块存储上的另一个张量对象（``_saved_*`` 同样是 torch 的内部属性），现在里面全是 0。它的版本是 0，也就是自动求导当初记下的版本，所以看不出任何异常。关于保存的张量，PyTorch 文档（英文）有专门的一节：
# `“Saved tensors” <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__。
saved = out.grad_fn._saved_result
show("saved", saved)
print("saved shares storage with out:", same_storage(saved, out))
assert saved._version == 0, "the saved result still reports version 0"
# sphinx_gallery_start_ignore
assert same_storage(saved, out), "the saved result is out's storage"
assert saved is not out, "reading _saved_result gives another tensor object"
assert torch.equal(saved, torch.zeros(3)), "the saved result now holds zeros"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：out 的自动求导计算图：SigmoidBackward0 及其保存的 result，然后是 AccumulateGrad 和叶子张量 a。
#
#    ``out`` 背后的计算图：``SigmoidBackward0`` 保存了它的 ``result``，其 ``_version`` 仍是保存时的值，所以没有任何标记显示它被改过。

draw_graph("out = a.sigmoid()", out, a=a)

# %%
# ``backward()`` 照常运行，返回全 0
# ---------------------------------
#
# ``out.sum().backward()`` 既不报错，也不发出警告。它用被清零的 ``s`` 计算
# ``s * (1 - s)``，于是 ``a.grad`` 里全是 0。
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out.sum().backward()
print("warnings during backward:", len(caught))
show("a", a)
show("out", out)
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.zeros(3)), "the gradient is all zeros, because the saved output was zeroed"
# sphinx_gallery_start_ignore
assert len(caught) == 0, "backward() emitted no warning"
# sphinx_gallery_end_ignore

# %%
# 对照：正确的梯度
# ----------------
#
# 同一个计算图，不做修改，得到的就是真正的梯度。再绕开自动求导，从 ``s = 1 / (1 + exp(-x))``
# 手算 ``s * (1 - s)``：没修改的那次与手算结果一致，修改过的那次不一致。
a_fresh = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out_fresh = a_fresh.sigmoid()
out_fresh.sum().backward()

x = torch.tensor([1.0, 2.0, 3.0])
s = 1 / (1 + torch.exp(-x))
expected = s * (1 - s)
print("a_fresh.grad (no edit):  ", a_fresh.grad)
print("s * (1 - s), by hand:    ", expected)
print("a.grad (after .data edit):", a.grad)
assert not torch.allclose(a.grad, expected), "the edited run does not give s * (1 - s)"
# sphinx_gallery_start_ignore
assert torch.allclose(a_fresh.grad, expected), "the fresh run gives s * (1 - s)"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 对在 ``torch.inference_mode()`` 之外创建的默认 strided 布局张量，通过 ``.data`` 原地（in-place）修改它的数值，例如本页的 ``zero_()``，改变的就是张量本身；但 ``.data`` 有自己的版本计数器，张量自己的计数器，也就是自动求导检查的那个，不会变。
# :fact:`data-edits-reach-both` :fact:`data-edits-reach-both-every-dtype`
# 本页的张量是自动求导保存的 ``out``：``backward()`` 顺利完成，返回的梯度却是错的。
# :ref:`“同样的修改，这次自动求导发现了”那一页 <data-vs-detach-detach>` 用 ``detach()`` 做同样的修改。
