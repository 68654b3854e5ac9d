"""
.. _questions-version-counter:

版本计数器：哪些操作会改变 ``_version``，哪些不会
=================================================

.. admonition:: 答案
   :class: answer

   自动求导（autograd）保存下来的张量随后又被原地修改了：报错里的两个数，是它的版本计数器现在的读数和保存时的读数。改为修改它的副本（``clone()``）：

   .. code-block:: python

      y = x.exp()
      edited = y.clone()
      edited.add_(1)
      edited.mul_(2)

“is at version 2; expected version 0 instead”：这条报错里的数字，读的是张量的版本计数器（version counter）
``t._version``。自动求导会记下自己保存的每个张量的版本号；反向传播走到保存它的那个节点时，如果版本号变了，就拒绝执行，除非张量是经由保存张量的钩子（saved tensors hooks）保存的，或被自定义 ``Function`` 存成了属性，或者保存它的自定义 ``Function`` 的 ``backward`` 从不读取 ``ctx.saved_tensors`` 属性（见 :ref:`“.data 与 no_grad”那一页 <questions-data-vs-no-grad>`）。本页先读懂这条报错，再列出一张常见修改的表格（在构建本页时现场算出），看哪些修改会推进计数器，哪些改了数值却不动它。:fact:`saved-tensor-hooks-hide-edit` :fact:`ctx-attribute-escapes-version-check` :fact:`unread-saved-tensors-escape-version-check`
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import copy

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
# 读懂报错
# --------
#
# ``x.exp()`` 为反向传播保存了自己的结果 ``y``，当时是版本 0。对 ``y`` 做两次原地（in-place）修改后，它到了版本
# 2，反向传播时报错信息同时给出这两个数字。

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
print("y._version after exp():", y._version)
y.add_(1)
y.mul_(2)
print("y._version after two edits:", y._version)
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after editing a saved output must raise")
assert f"is at version {y._version}; expected version 0" in message, "the message gives the version now and at saving"

# %%
# 解决办法：改副本
# ----------------
#
# ``clone()`` 让修改落在自己的内存和自己的计数器上：``y`` 停在版本 0，反向传播得到 ``2 * exp(x)``，正是
# ``torch.func.grad`` 对 ``(2 * (exp(x) + 1)).sum()`` 算出的梯度。

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
edited = y.clone()
edited.add_(1)
edited.mul_(2)
print("y._version:", y._version, " edited._version:", edited._version)
edited.sum().backward()
expected = torch.func.grad(lambda x_: (2 * (x_.exp() + 1)).sum())(x.detach())
print("x.grad:", x.grad, " expected:", expected)
assert y._version == 0 and torch.allclose(x.grad, expected), "edits of a clone must leave y and the gradient alone"

# %%
# .. figure-caption::
#    :alt: 示意图：名字 y 和 edited 指向两块存储 S1、S2 上的两个张量对象，各有一个版本计数器：y 是 _version=0，edited 是 _version=2。
#
#    ``y`` 和 ``edited`` 用两块存储、两个计数器：``y`` 仍是 ``_version=0``，``edited`` 是 ``_version=2``。

draw_memory("edited = y.clone(); edited.add_(1); edited.mul_(2)", y=y, edited=edited)
# sphinx_gallery_start_ignore
assert edited._version == 2 and bytes_apart(y, edited), "the clone counts its own edits in its own memory"
# sphinx_gallery_end_ignore

# %%
# 表格：哪些操作推进计数器
# ------------------------
#
# 每一行在新建的 ``t = torch.arange(4.0)`` 上执行一行代码，再把数值和版本号与执行前比较。最后一列在
# ``torch.no_grad()`` 下，对一个需要梯度的叶子张量（leaf tensor）重复同一行，这个张量是 ``torch.arange(4.0, requires_grad=True)``；这类修改在那里是允许的。表头的四列依次是：
# ``line`` 是执行的那行代码，``values of t change`` 指 ``t`` 的数值是否改变，``_version moves by`` 指版本号增加了多少，
# ``same, no_grad leaf`` 指在那个叶子张量上版本号增加了多少。

edits = {
    "t.add_(1)": lambda t: t.add_(1),
    "t[0] = 5": lambda t: t.__setitem__(0, 5.0),
    "t.copy_(torch.ones(4))": lambda t: t.copy_(torch.ones(4)),
    "torch.add(torch.ones(4), 1, out=t)": lambda t: torch.add(torch.ones(4), 1, out=t),
    "t[1:].mul_(2)": lambda t: t[1:].mul_(2),
    "t.view(2, 2)[0, 0] = 5": lambda t: t.view(2, 2).__setitem__((0, 0), 5.0),
    "t.detach().zero_()": lambda t: t.detach().zero_(),
    "t.data.zero_()": lambda t: t.data.zero_(),
    "t.detach().numpy()[0] = 5": lambda t: t.detach().numpy().__setitem__(0, 5.0),
    "t.untyped_storage().fill_(0)": lambda t: t.untyped_storage().fill_(0),
    "torch.from_dlpack(t.detach()).zero_()": lambda t: torch.from_dlpack(t.detach()).zero_(),
    "vector_to_parameters(torch.zeros(4), [t])": lambda t: torch.nn.utils.vector_to_parameters(torch.zeros(4), [t]),
    "copy.copy(t).zero_()": lambda t: copy.copy(t).zero_(),
    "t.detach().apply_(lambda v: v + 1)": lambda t: t.detach().apply_(lambda v: v + 1),
    "t.detach().map_(torch.ones(4), lambda v, o: v + o)": lambda t: t.detach().map_(torch.ones(4), lambda v, o: v + o),
    "t.detach().map2_(torch.ones(4), torch.ones(4), lambda v, a, b: v + a + b)": lambda t: t.detach().map2_(
        torch.ones(4), torch.ones(4), lambda v, a, b: v + a + b),
    "t = t + 1": lambda t: t + 1,
}


def run(edit, requires_grad):
    t = torch.arange(4.0, requires_grad=requires_grad)
    before, version = t.detach().clone(), t._version
    if requires_grad:
        with torch.no_grad():
            edit(t)
    else:
        edit(t)
    return not torch.equal(t.detach(), before), t._version - version


table = {line: (run(edit, False), run(edit, True)) for line, edit in edits.items()}
table_rows = [("line", "values of t change", "_version moves by", "same, no_grad leaf")]
table_rows += [(line, str(changed), moved, leaf_moved) for line, ((changed, moved), (_, leaf_moved)) in table.items()]
width = max(len(line) for line, *_ in table_rows)
for line, changed, moved, moved_no_grad in table_rows:
    print(f"{line:{width}} {changed:>18} {moved:>18} {moved_no_grad:>19}")

# %%
# 凡是改变了 ``t`` 的数值的行，都让计数器加一，只有九个例外：通过 ``.data`` 修改，通过 NumPy
# 写入，通过 ``untyped_storage()`` 写入，通过 DLPack 别名（``torch.from_dlpack``）修改，
# ``nn.utils.vector_to_parameters``，通过 ``copy.copy(t)`` 修改，以及对每个值调用 Python 函数的三个方法
# ``apply_``、``map_`` 和 ``map2_``，这里都通过 ``detach()`` 调用。``vector_to_parameters`` 像
# ``t.data = ...`` 一样，把新数据换到 ``t`` 底下；``copy.copy(t)`` 是同一块内存上的新张量对象，有自己的计数器。最后一行根本没有改动
# ``t``：它造出一个新张量，再重新绑定名字。在 ``torch.no_grad()`` 下结果完全相同。

silent = [line for line, ((changed, moved), _) in table.items() if changed and moved == 0]
print("values changed, counter still:", silent)
assert silent == list(table)[7:16], (
    "the edits through .data, NumPy, the storage, DLPack, vector_to_parameters, copy.copy, apply_, map_, map2_")
# sphinx_gallery_start_ignore
assert all(row[0][1] == int(row[0][0]) for name, row in table.items() if name not in silent), (
    "every other edit must move the counter by exactly one"
)
assert all(row[0][1] == row[1][1] for row in table.values()), "no_grad must not change the counting"
assert table["t = t + 1"][0] == (False, 0), "rebinding must leave the old tensor alone"
# sphinx_gallery_end_ignore

# %%
# 这九个例外里，``nn.utils.vector_to_parameters`` 是人们会对模型参数调用的函数，例如在一个作用于整条扁平向量的优化器完成一步之后。``(p * p).sum()``
# 保存了 ``p``；``vector_to_parameters`` 之后计数器仍是 0，于是 ``backward()`` 照常运行，用的却是新数值：得到的梯度，是按计算损失时的数值求导所得的十倍。

p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
loss = (p * p).sum()
torch.nn.utils.vector_to_parameters(torch.tensor([10.0, 20.0, 30.0]), [p])
loss.backward()
expected = torch.func.grad(lambda q: (q * q).sum())(torch.tensor([1.0, 2.0, 3.0]))
print("p._version:", p._version)
print("p.grad:", p.grad, " expected:", expected)
assert p._version == 0 and torch.equal(p.grad, 10 * expected), "vector_to_parameters: a wrong gradient, no error"

# %%
# ``vector_to_parameters`` 也不复制向量：它把向量的一段换到每个参数底下，于是模型的每个参数都与这个向量共享内存，之后再修改这个向量，模型也就跟着被改写。

layer = torch.nn.Linear(2, 1)
flat = torch.tensor([1.0, 2.0, 3.0])
torch.nn.utils.vector_to_parameters(flat, layer.parameters())
flat.mul_(10)
print("layer.weight:", layer.weight)
print("layer.bias:", layer.bias)
print("weight same storage as flat:", same_storage(layer.weight, flat))
print("bias same storage as flat:", same_storage(layer.bias, flat))
assert all(same_storage(q, flat) for q in layer.parameters()) and layer.bias.item() == 30.0, "the model follows flat"

# %%
# ``unsafe_chunk`` 和 ``unsafe_split`` 是绕过计数器的另外两条途径，不在表中。与返回视图（view）的 ``chunk()`` 和 ``split()`` 不同，在 ``torch.inference_mode()`` 之外对布局为 strided、既不是嵌套张量也不是推理张量（inference tensor，即 ``is_inference()`` 为 ``False``）的 CPU 张量调用这两个方法时，返回的各块与原张量共享内存，却不是视图（``_is_view()`` 为 ``False``），各有自己的计数器。经由其中一块修改，原张量的计数器不动；在 ``torch.no_grad()`` 下这样修改下面 float32 的叶子张量 ``weights`` 之后，``backward()`` 照常运行，用的是修改后的数值，不报错。推理张量的各块没有计数器，即使这个推理张量自己有计数器（在模式之外对推理张量取的 ``detach()`` 就有）。在 ``torch.inference_mode()`` 内对布局为 strided、既不是嵌套张量也不是推理张量的 CPU 张量调用这两个方法时，返回的各块是视图（``_is_view()`` 为 ``True``），却仍各有自己的计数器；在 ``torch.no_grad()`` 下对叶子张量的一块做同样的修改之后，``backward()`` 也照常运行，用的是修改后的数值，不报错。:fact:`unsafe-pieces-own-counter-every-dtype` :fact:`unsafe-pieces-in-inference-mode-own-counter`

weights = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
loss = (weights * weights).sum()
with torch.no_grad():
    weights.unsafe_chunk(2)[0].mul_(10)
loss.backward()
weights_expected = torch.func.grad(lambda q: (q * q).sum())(torch.tensor([1.0, 2.0, 3.0, 4.0]))
print("weights._version:", weights._version)
print("weights.grad:", weights.grad, " weights_expected:", weights_expected)
at_edited_values = torch.func.grad(lambda q: (q * q).sum())(weights.detach())
assert weights._version == 0 and torch.equal(weights.grad, at_edited_values) and not torch.equal(
    weights.grad, weights_expected), "unsafe_chunk: a gradient at the edited values, no error"
grid = torch.arange(6.0).reshape(2, 3)
piece = grid.unsafe_split(1, dim=1)[0]
piece.add_(1)
print("piece same storage as grid:", same_storage(piece, grid), " piece._is_view():", piece._is_view())
print("grid._version:", grid._version, " piece._version:", piece._version)
assert same_storage(piece, grid) and not piece._is_view() and (grid._version, piece._version) == (0, 1), (
    "an edit through a piece of unsafe_split moves the piece's counter, not grid's")
# sphinx_gallery_start_ignore
assert grid[0, 0].item() == 1.0 and grid[1, 0].item() == 4.0, "the edit of the piece changed grid's values"
assert weights.chunk(2)[0]._is_view() and grid.split(1, dim=1)[0]._is_view(), "chunk() and split() give views"
for whole_ in (grid, grid.long(), grid.to(torch.complex64), weights):
    pieces_ = whole_.unsafe_chunk(2) + whole_.unsafe_split(1, dim=-1)
    assert all(same_storage(q, whole_) and not q._is_view() for q in pieces_), (
        "unsafe_chunk and unsafe_split: pieces on the memory, not views, for each dtype and a leaf")
# sphinx_gallery_end_ignore

# %%
# 让计数器走动的不只是写入数值。作用于形状而不是数值的原地调用，例如 ``t_()``、``unsqueeze_()``，以及改成新大小的 ``resize_()`` 或 ``resize_as_()``，同样让它加 1（对一维或零维张量调用 ``t_()`` 也是如此，尽管形状不变）；另一些原地调用则不动它：``detach_()``、``requires_grad_()``、``share_memory_()``，以及按张量现有大小调用的 ``resize_()`` 或 ``resize_as_()``。每一行都在全新的 ``t = torch.zeros(2, 3)`` 上运行，梯度模式（grad mode）开启时一次，在 ``torch.no_grad()`` 下再一次，并打印调用之后 ``t`` 的形状。

calls = {
    "t.t_()": lambda t: t.t_(),
    "t.unsqueeze_(0)": lambda t: t.unsqueeze_(0),
    "t.resize_(8)": lambda t: t.resize_(8),
    "t.resize_as_(torch.empty(4))": lambda t: t.resize_as_(torch.empty(4)),
    "t.detach_()": lambda t: t.detach_(),
    "t.requires_grad_()": lambda t: t.requires_grad_(),
    "t.share_memory_()": lambda t: t.share_memory_(),
    "t.resize_(2, 3)": lambda t: t.resize_(2, 3),
    "t.resize_as_(torch.empty(2, 3))": lambda t: t.resize_as_(torch.empty(2, 3)),
}


def moved_by(call, mode):
    t = torch.zeros(2, 3)
    version = t._version
    with mode():
        call(t)
    return t._version - version, tuple(t.shape)


moves = {line: (moved_by(call, torch.enable_grad), moved_by(call, torch.no_grad)) for line, call in calls.items()}
for line, ((moved, shape), (moved_no_grad, _)) in moves.items():
    print(f"{line:31} _version moves by: {moved}  under no_grad: {moved_no_grad}  shape after: {shape}")
assert [(moved, moved_no_grad) for (moved, _), (moved_no_grad, _) in moves.values()] == [(1, 1)] * 4 + [(0, 0)] * 5, (
    "t_(), unsqueeze_(), and resize_() or resize_as_() to a new size move _version by one; detach_(), "
    "requires_grad_(), share_memory_(), and resize_() or resize_as_() to the tensor's own size do not")

# sphinx_gallery_start_ignore
shapes_changed = [(after != (2, 3), after_no_grad != (2, 3)) for (_, after), (_, after_no_grad) in moves.values()]
assert shapes_changed == [(True, True)] * 4 + [(False, False)] * 5, (
    "t_(), unsqueeze_(), and resize_() or resize_as_() to a new size change t's shape (2, 3); the other calls keep it")
# sphinx_gallery_end_ignore
for flat_shape in ((), (3,)):
    flat = torch.zeros(flat_shape)
    flat.t_()
    print(f"t_() on a tensor of shape {flat_shape}: _version {flat._version}, shape after: {tuple(flat.shape)}")
    assert flat._version == 1 and flat.shape == flat_shape, (
        f"t_() moves _version by one on a tensor of shape {flat_shape} too, and leaves its shape as it was")

# %%
# 不推进计数器，并不等于什么都没改：给出 ``memory_format=torch.channels_last`` 时，按自身大小调用的 ``resize_()`` 会原地改写下面这个连续的四维张量 ``x4`` 的步长，同样的下标读出别的数值，``_version`` 却仍是 0；保存过 ``x4`` 的计算图做 ``backward()`` 时就用上这些数值：梯度算错了，却不报错。

w4 = torch.ones(1, 2, 2, 2, requires_grad=True)
x4 = torch.arange(8.0).reshape(1, 2, 2, 2)
loss4 = (w4 * x4).sum()
x4_before = x4.clone()
x4.resize_(x4.shape, memory_format=torch.channels_last)
print("x4._version:", x4._version, " x4 values kept:", torch.equal(x4, x4_before))
loss4.backward()
print("w4.grad equals x4 before:", torch.equal(w4.grad, x4_before), " equals x4 now:", torch.equal(w4.grad, x4))
assert x4._version == 0 and not torch.equal(x4, x4_before) and torch.equal(w4.grad, x4), (
    "resize_ to its own size with channels_last: counter still, other values, a wrong gradient without an error")

# %%
# fused 优化器的一步
# ------------------
#
# fused 优化器（``fused=True``；这里是 ``torch.optim.SGD``，``Adam``、``AdamW`` 和 ``Adagrad`` 也一样）写入新权重时，同样不增加计数器。下面的损失在更新之前保存了 ``w``。不用 ``fused`` 时，这一步会改变计数器，
# ``backward()`` 报错；用 ``fused=True`` 时，计数器仍是 0，``backward()`` 照常运行，用的却是新数值：梯度算错了，而且不报错。


def step_then_backward(make, fused):
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = make([w], lr=0.1, fused=fused)
    (w * w).sum().backward()
    loss = (w * w).sum()  # 保存了 w = [1, 2, 3]
    optimizer.step()
    w.grad = None  # 让 w.grad 只来自这个损失
    loss.backward()
    return w


try:
    step_then_backward(torch.optim.SGD, fused=False)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after a step that is not fused must raise")
w = step_then_backward(torch.optim.SGD, fused=True)
print("w._version:", w._version)
print("w.grad:", w.grad, " expected:", expected)
at_new_values = torch.func.grad(lambda q: (q * q).sum())(w.detach())
assert w._version == 0 and torch.equal(w.grad, at_new_values) and not torch.allclose(w.grad, expected), (
    "a fused step: no error, and backward runs on the new values"
)
# sphinx_gallery_start_ignore
assert all(
    step_then_backward(make, fused=True)._version == 0
    and not torch.allclose(step_then_backward(make, fused=True).grad, expected)
    for make in (torch.optim.Adam, torch.optim.AdamW, torch.optim.Adagrad)
), "a fused Adam, AdamW or Adagrad step must not move _version, and backward must give a wrong gradient"


def fake_quant_update_uncounted():
    fake_quant = torch.ao.quantization.FusedMovingAvgObsFakeQuantize()
    observer = fake_quant.activation_post_process
    buffers = (fake_quant.scale, fake_quant.zero_point, observer.min_val, observer.max_val)
    old_values = [b.clone() for b in buffers]
    q_leaf = torch.ones(1, requires_grad=True)
    q_loss = (q_leaf * fake_quant.scale).sum()  # 保存了 scale
    fake_quant(torch.linspace(-5.0, 5.0, 16))
    q_now = (fake_quant.scale, fake_quant.zero_point, observer.min_val, observer.max_val)
    q_loss.backward()
    return (all(a is b and b._version == 0 for a, b in zip(q_now, buffers, strict=True))
            and not any(torch.equal(b, old) for b, old in zip(buffers, old_values, strict=True))
            and torch.equal(q_leaf.grad, fake_quant.scale))


assert fake_quant_update_uncounted(), (
    "FusedMovingAvgObsFakeQuantize rewrites scale, zero_point, min_val and max_val in place without moving "
    "_version, and backward uses the new scale"
)
# sphinx_gallery_end_ignore

# %%
# 基张量与它的视图共享一个计数器
# ------------------------------
#
# ``view = base[1:3]`` 与 ``base`` 共享内存，也共享计数器：无论通过哪一方修改，两边读到的版本号都会增加。torch 文档列出的视图操作对不是推理张量、``is_inference()`` 为 ``False`` 的张量取的视图，无论是在梯度模式下、``torch.no_grad()`` 下还是 ``torch.inference_mode()`` 内取的，都同样与基张量（base tensor）共享计数器；只有在该模式内取的 ``view(dtype)`` 例外，它给出的是推理张量，没有计数器。``unsafe_chunk`` 和 ``unsafe_split`` 在该模式内返回的各块也是视图，却各有自己的计数器（见上文）。:fact:`version-counter-shared-by-views-and-detach` :fact:`view-dtype-under-inference-mode-uncounted` :fact:`unsafe-pieces-in-inference-mode-own-counter`

base = torch.zeros(4)
view = base[1:3]
view.add_(1)
base[0] = 5.0
print("base:", base)
print("view:", view)
print("base._version:", base._version, " view._version:", view._version)
print("view._base is base:", view._base is base, " same storage:", same_storage(base, view))
assert base._version == view._version == 2, "a base and its view must share one version counter"
# sphinx_gallery_start_ignore


def normal_made_from_inference():
    """A tensor whose is_inference() is False, made from an inference tensor: its detach().view(torch.float32)."""
    with torch.inference_mode():
        made_in_mode = torch.arange(6.0).reshape(2, 3) * 1
    return made_in_mode.detach().view(torch.float32)


def view_moves_base(take_view, enter):
    """Whether moving the counter of a view taken inside ``enter`` moves its base's."""
    base_ = normal_made_from_inference()
    with enter():
        view_ = take_view(base_)
    before_ = base_._version
    torch.autograd.graph.increment_version(view_)
    return base_._version == before_ + 1


views_of_normal = (lambda t: t[1:], lambda t: t.t(), lambda t: t.view(6), lambda t: t.unbind()[0],
                   lambda t: t.diagonal(), lambda t: t.expand(2, 2, 3), lambda t: t.detach())
assert not normal_made_from_inference().is_inference() and all(
    view_moves_base(take, enter) for take in views_of_normal
    for enter in (torch.enable_grad, torch.no_grad, torch.inference_mode)), (
    "a normal tensor made from an inference tensor shares its counter with its views, in every mode")
assert all(view_moves_base(lambda t: t.view(torch.int32), enter) for enter in (torch.enable_grad, torch.no_grad)), (
    "its view(dtype) taken outside inference_mode shares it too")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 base 和 view 指向同一块存储 S1 上的两个张量对象，共享版本计数器 C1，读数都是 _version=2。
#
#    一块存储 ``S1``，一个计数器 ``C1``：通过 ``view`` 的修改和通过 ``base`` 的修改都被计数，所以两者都是 ``_version=2``。

draw_memory("view = base[1:3]; view.add_(1); base[0] = 5.0", base=base, view=view)
# sphinx_gallery_start_ignore
assert same_storage(base, view), "the view uses the base's memory"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``_version`` 统计的 torch 原地操作（包括 ``t_()`` 这类改形状的操作），是通过张量自己或 ``out=`` 做的，对 ``is_inference()`` 为 ``False`` 的张量，还有通过在 ``torch.inference_mode()`` 之外取的视图或 ``detach()`` 的结果做的，在不在
# ``torch.no_grad()`` 下都一样；调用 Python 函数的方法 ``apply_``、``map_`` 和 ``map2_``，一些原地写入的 torch 内核，以及 ``detach_()``、``requires_grad_()``、``share_memory_()`` 和按张量自身大小调用的 ``resize_()`` 或 ``resize_as_()``，都不在其中。本站检查过的这类内核有：``fused=True`` 的优化器所用的融合内核、``torch.amp.GradScaler.unscale_`` 的反缩放、
# ``BatchNorm`` 层对 ``running_mean`` 和 ``running_var`` 的更新，以及量化感知训练模块 ``torch.ao.quantization.FusedMovingAvgObsFakeQuantize`` 的更新，它原地改写自己的 ``scale`` 和 ``zero_point`` 以及观察器的 ``min_val`` 和 ``max_val``；别的内核也可能这样。通往同一块内存的不少途径绕得过版本计数器，例如 ``.data``、NumPy、``untyped_storage()``、DLPack 别名、
# ``copy.copy(t)``、``apply_``、``map_`` 和 ``map2_``、``nn.utils.vector_to_parameters``、``unsafe_chunk`` 和 ``unsafe_split`` 按上文的方式（在 ``torch.inference_mode()`` 之外或之内）返回的各块、在该模式内取的 ``view(dtype)``，以及上面这几个内核：它们改了数值，计数器却没有动，所以经由它们的修改可能让梯度算错而不报错（见 :ref:`“.data 与 no_grad”那一页 <questions-data-vs-no-grad>`）。重新绑定名字什么也没有修改。:fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted` :fact:`counter-bypass-edits-silent`
