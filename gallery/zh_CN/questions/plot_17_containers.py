"""
.. _questions-containers:

张量列表：“改了一项，每一项都变了”
==================================

.. admonition:: 答案
   :class: answer

   ``[torch.zeros(dim)] * n`` 这个列表里是同一个张量放了 ``n`` 次，所以对其中一项做原地修改，每一项都会跟着变。每一项各建一个张量：

   .. code-block:: python

      sums = [torch.zeros(dim) for _ in range(n)]

本页先在一个按类别累加各行的小循环里复现“改了一项，每一项都变了”这个问题，再把复制容器的常见写法分成两类：``list.copy()``、``dict.copy()``
和 ``copy.copy`` 与原容器共享张量；``copy.deepcopy``、``torch.stack``、``torch.cat``、``tolist()`` 和
``v.clone()`` 会复制张量。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

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
# 现象
# ----
#
# 六行特征，三个类别，把每一行加到它所属类别的累加和上。存放累加和的列表是用 ``*`` 建的。每个类别本该只加自己的行，结果三项都是全部六行的和。

features = torch.arange(12.0).reshape(6, 2)
labels = [0, 1, 2, 0, 1, 2]
n, dim = 3, 2
sums = [torch.zeros(dim)] * n
for x, y in zip(features, labels, strict=True):
    sums[y].add_(x)
print("sums[0]:", sums[0])
print("sums[1]:", sums[1])
print("sums[2]:", sums[2])
print("sum of all rows:", features.sum(0))
assert all(torch.equal(s, features.sum(0)) for s in sums), "each item holds the sum of every row"

# %%
# .. figure-caption::
#    :alt: 示意图：名字 sums[0]、sums[1] 和 sums[2] 指向存储 S1 上的同一个张量对象。
#
#    ``sums[0]``、``sums[1]`` 和 ``sums[2]`` 是同一个张量对象，用的是同一块存储 ``S1``。

draw_memory("sums = [torch.zeros(dim)] * n", **{f"sums[{i}]": s for i, s in enumerate(sums)})
# sphinx_gallery_start_ignore
assert sums[0] is sums[1] is sums[2], "the list holds one tensor three times"
# sphinx_gallery_end_ignore

# %%
# 原因：``*`` 重复的是引用
# ------------------------
#
# ``*`` 复制的是列表里的引用，不是张量。对任何一项做原地（in-place）修改（``add_``、``+=``、给某个元素赋值），改的都是那一个张量。而像 ``items[0] = items[0] + 1`` 这样给某一项绑定一个新张量，其他项不受影响：它改的是列表，不是张量。

edited = [torch.zeros(2)] * 2
edited[0] += 1
edited[0][1] = 5.0
rebound = [torch.zeros(2)] * 2
rebound[0] = rebound[0] + 1
print("edited[1]: ", edited[1])
print("rebound[1]:", rebound[1])
assert torch.equal(edited[1], torch.tensor([1.0, 5.0])) and torch.equal(rebound[1], torch.zeros(2)), (
    "edits reach edited[1]; rebinding rebound[0] leaves rebound[1] zeros")

# %%
# 解决办法
# --------
#
# 列表推导式每一项都调用一次 ``torch.zeros``：三个张量，三块存储。同样的循环这回给每个类别算出了各自的和，与下面逐个类别单独算出的结果一致。

sums = [torch.zeros(dim) for _ in range(n)]
for x, y in zip(features, labels, strict=True):
    sums[y].add_(x)
per_class = torch.stack([features[torch.tensor(labels) == c].sum(0) for c in range(n)])
print("sums:", sums)
print("per class:", per_class)
print("same storage (sums[0], sums[1]):", same_storage(sums[0], sums[1]))
assert torch.equal(torch.stack(sums), per_class), "one tensor per item: each class has its own sum"
# sphinx_gallery_start_ignore
assert bytes_apart(sums[0], sums[1]) and bytes_apart(sums[1], sums[2]), (
    "sums[1] shares storage with neither sums[0] nor sums[2]")
assert not torch.equal(per_class[0], per_class[1]), "the classes' sums differ, so the check can fail"
# sphinx_gallery_end_ignore

# %%
# 复制列表或字典
# --------------
#
# ``list.copy()``、``dict.copy()``、``dict(...)`` 和 ``copy.copy`` 得到的新容器里装的还是原来那些张量对象：通过原容器做的原地修改，在副本里也看得到。``copy.deepcopy`` 则把张量复制到新的内存里，不再与原张量共享（副本之间仍可能共享一块新的存储，见下文；它不接受非叶子张量，见\ :ref:`“copy.deepcopy”那一页
# <questions-deepcopy>`）。

state = {"w": torch.ones(2), "b": torch.zeros(1)}
copies = {
    "dict.copy()": state.copy(),
    "dict(state)": dict(state),
    "copy.copy": copy.copy(state),
    "copy.deepcopy": copy.deepcopy(state),
}
state["w"].mul_(3)
for name, c in copies.items():
    print(f"{name:<14} w: {c['w']}", " same storage:", same_storage(c["w"], state["w"]))
shared = [name for name, c in copies.items() if torch.equal(c["w"], state["w"])]
assert shared == ["dict.copy()", "dict(state)", "copy.copy"], "shallow copies share, deepcopy copies"
# sphinx_gallery_start_ignore
assert all(bytes_apart(copies["copy.deepcopy"][key], state[key]) for key in state), (
    "deepcopy(state) puts every tensor on new memory, not the original's")
# sphinx_gallery_end_ignore

# %%
# 列表也一样：``items.copy()``、``items[:]``、``list(items)`` 和 ``copy.copy(items)`` 装的是同样的张量；
# ``copy.deepcopy(items)`` 装的是副本。同一块存储上的普通 CPU 张量，只要不带共轭位（conjugate bit）或负号位（negative bit），复制之后彼此仍然共享（一次深拷贝，每块存储只复制一份）；这样的张量若是由切片得到的（如下面的 ``row[2:]``；我们试了 float32、整数、bool 和复数张量），复制时连同它背后的整块存储一起复制；带共轭位或负号位的切片则只复制它自己的元素。这种共享要求是同一个存储对象：``torch.from_numpy(t.numpy())`` 和 ``torch.from_dlpack(t)`` 得到的别名有自己的存储对象，只是落在同一块内存上，``same_storage`` 报告二者共享存储，可它的深拷贝与 ``t`` 的副本什么也不共享。``Parameter`` 则是克隆出来的：副本只含它自己的元素，原本共享一块存储的两个参数，复制之后不再共享。

items = [torch.ones(2), torch.zeros(2)]
shallow = {"items.copy()": items.copy(), "items[:]": items[:], "list(items)": list(items),
           "copy.copy": copy.copy(items)}  # fmt: skip
deep = copy.deepcopy(items)
items[0].mul_(3)
for name, c in shallow.items():
    print(f"{name:<12} item 0:", c[0], " c[0] is items[0]:", c[0] is items[0])
print("copy.deepcopy item 0:", deep[0], " same storage:", same_storage(deep[0], items[0]))
assert all(c[0] is items[0] for c in shallow.values()) and torch.equal(deep[0], torch.ones(2)), (
    "the four shallow copies hold items[0] itself, and the deep copy's item 0 kept its old values"
)
# sphinx_gallery_start_ignore
assert bytes_apart(deep[0], items[0]) and bytes_apart(deep[1], items[1]), (
    "deepcopy(items) puts both items on new memory, not the originals'")
# sphinx_gallery_end_ignore

row = torch.arange(4.0)
deep_pair = copy.deepcopy([row, row[2:]])
print("deep_pair[0] and deep_pair[1], same storage:", same_storage(deep_pair[0], deep_pair[1]))
print("bytes behind the copy of row[2:]:", deep_pair[1].untyped_storage().nbytes())
assert same_storage(deep_pair[0], deep_pair[1]) and deep_pair[1].untyped_storage().nbytes() == 16, (
    "deepcopy([row, row[2:]]) keeps one storage, all 16 bytes")
# sphinx_gallery_start_ignore
assert bytes_apart(deep_pair[0], row), "the pair's storage is a copy"
assert all(copy.deepcopy(row.to(dtype)[2:]).untyped_storage().nbytes() == row.to(dtype).untyped_storage().nbytes()
           for dtype in (torch.float32, torch.int64, torch.bool, torch.complex64)), (
    "a slice alone is copied with its whole storage")
conj_row = torch.complex(row, row)
assert copy.deepcopy(conj_row.conj()[2:]).untyped_storage().nbytes() == 16 and copy.deepcopy(
    conj_row.conj().imag[2:]).untyped_storage().nbytes() == 8, (
    "a slice with the conjugate or negative bit is copied with its own elements only")
# sphinx_gallery_end_ignore

alias = torch.from_numpy(row.numpy())
deep_alias = copy.deepcopy([row, alias])
print("row and alias, same storage:", same_storage(row, alias))
print("their deep copies, same storage:", same_storage(deep_alias[0], deep_alias[1]))
assert same_storage(row, alias) and bytes_apart(deep_alias[0], deep_alias[1]), (
    "deepcopy([row, from_numpy(row.numpy())]) gives copies that share no storage")
# sphinx_gallery_start_ignore
assert same_storage(row, torch.from_dlpack(row)) and bytes_apart(
    *copy.deepcopy([row, torch.from_dlpack(row)])), "deepcopy([row, from_dlpack(row)]) gives copies that share no storage"
# sphinx_gallery_end_ignore

params = copy.deepcopy([torch.nn.Parameter(row[0:2]), torch.nn.Parameter(row[1:3])])
print("Parameters on one storage, after deepcopy: same storage:", same_storage(params[0], params[1]))
print("bytes behind the copy of Parameter(row[1:3]):", params[1].untyped_storage().nbytes())
assert bytes_apart(params[0], params[1]) and params[1].untyped_storage().nbytes() == 8, "a Parameter is cloned"

# %%
# ``torch.stack``、``torch.cat`` 和 ``tolist()`` 会复制
# -----------------------------------------------------
#
# 不传 ``out=`` 时，``torch.stack`` 和 ``torch.cat`` 把结果写进新的内存，之后再修改输入，结果不会变。``tolist()`` 返回的是 Python
# 数值，对张量的任何修改都碰不到它们。前两个，本页还在叶子张量（leaf tensor）、非叶子张量、``Parameter``、视图（view）、普通张量和推理张量（inference tensor）上都检查过，列表里只有一个张量时也一样，梯度模式（grad mode）下、``torch.no_grad()`` 之下和 ``torch.inference_mode()`` 之内都是如此。

rows = [torch.ones(2), torch.zeros(2)]
stacked = torch.stack(rows)
joined = torch.cat(rows)
numbers = stacked.tolist()
rows[0].mul_(3)
stacked.zero_()
print("rows[0]:", rows[0])
print("stacked:", stacked, " same storage:", same_storage(stacked, rows[0]))
print("joined:", joined, " same storage:", same_storage(joined, rows[0]))
print("numbers:", numbers)
assert torch.equal(joined[:2], torch.ones(2)) and numbers == [[1.0, 1.0], [0.0, 0.0]], (
    "torch.cat's result and tolist() kept the values from before the edits")
# sphinx_gallery_start_ignore
assert bytes_apart(stacked, rows[0]) and bytes_apart(joined, rows[0]), (
    "the results of torch.stack and torch.cat have memory of their own")
with torch.inference_mode():
    inference = torch.tensor([1.0, 2.0])
base = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
sources = {
    "leaf": torch.tensor([1.0, 2.0], requires_grad=True),
    "non-leaf": torch.tensor([1.0, 2.0], requires_grad=True) * 2,
    "Parameter": torch.nn.Parameter(torch.tensor([1.0, 2.0])),
    "view": base[1:],
    "plain": torch.tensor([1.0, 2.0]),
    "inference": inference,
}
for grad_mode in (torch.enable_grad, torch.no_grad, torch.inference_mode):
    with grad_mode():
        for kind, source in sources.items():
            for join in (torch.stack, torch.cat):
                assert bytes_apart(join([source]), source), (
                    f"{join.__name__} of a {kind} alone must copy, under {grad_mode.__name__}")
                assert bytes_apart(join([source, source]), source), (
                    f"{join.__name__} of a {kind} must copy, under {grad_mode.__name__}")
# sphinx_gallery_end_ignore

# %%
# ``state_dict().copy()`` 共享张量
# --------------------------------
#
# ``state_dict()`` 就是上面那样的字典，里面的张量用的是参数自己的内存（见\ :ref:`“保存最佳权重”那一页 <questions-best-weights>`）。它的 ``.copy()`` 共享这些张量，所以会随训练变化；``{k: v.clone() for ...}`` 复制每个张量，留住的是复制那一刻的值。下面两样都先存下来，再训练三步。

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
before = model.weight.detach().clone()
shallow_state = model.state_dict().copy()
snapshot = {k: v.clone() for k, v in model.state_dict().items()}
for _ in range(3):
    optimizer.zero_grad()
    loss = (model(features) - features.sum(1, keepdim=True)).pow(2).mean()
    loss.backward()
    optimizer.step()
print("weight before:", before)
print("weight now:   ", model.weight.detach())
print("state_dict().copy():", shallow_state["weight"], " same storage:",
      same_storage(shallow_state["weight"], model.weight))  # fmt: skip
print("{k: v.clone()}:     ", snapshot["weight"], " same storage:", same_storage(snapshot["weight"], model.weight))
assert torch.equal(snapshot["weight"], before) and not torch.equal(shallow_state["weight"], before), (
    "the snapshot of clones kept the old weight, and state_dict().copy() followed training"
)
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the steps changed the weight"
assert same_storage(shallow_state["weight"], model.weight), "state_dict().copy() holds the parameter's memory"
assert shallow_state["weight"] is not model.weight, "in a tensor of its own, not the Parameter"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# Python 容器里存的是引用。列表的 ``*``、``list.copy()``、``dict.copy()`` 和 ``copy.copy`` 只是给同一批张量多添了几个引用，``state_dict().copy()`` 则给用着参数内存的那些张量多添了引用：通过其中任何一个做原地修改，处处都能看到。要不与原来的张量共享内存，就得每一项新建一个张量（用列表推导式），或者用 ``copy.deepcopy``、``torch.stack``、``torch.cat``、
# ``tolist()`` 和 ``v.clone()``；不过 ``copy.deepcopy`` 的副本里，原本共享一个存储对象、不带共轭位或负号位的普通 CPU 张量之间仍共享一块新存储；经由 NumPy 或 DLPack 得到的别名有自己的存储对象，它的副本与其他副本什么也不共享；原本共享一块存储的 ``Parameter``，副本之间也不再共享。
