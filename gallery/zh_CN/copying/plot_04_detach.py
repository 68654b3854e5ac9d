"""
.. _copying-detach:

``detach()``：同一块内存，脱离计算图
====================================

``a.detach()`` 返回的张量与 ``a`` 共享内存，但不需要梯度：``a`` 是默认 strided（稠密）布局时，通过任何一方修改数值，另一方都看得到。本页先运行原博文的例子，再检验原文的提醒：``resize_``、``resize_as_``、``set_`` 和 ``transpose_`` 无论在哪一方上执行都会报错。在 torch |torch_version| 上，``a`` 是 CPU 上新建的 2×3 张量（默认 strided 布局，稠密，非嵌套）或这种张量覆盖全部元素的 2×3 视图（view），而且 ``a.is_conj()`` 和 ``a.is_neg()`` 都为 False，即不带共轭位（conjugate bit）或负号位（negative bit）时，无论 dtype 是什么，只要 ``resize_as_`` 和 ``set_`` 的参数是 CPU 上新建的、``a`` 的 dtype 的 strided 张量，本页这样调用的四种操作，detach 得到的张量全都接受，也不给出警告；例外是 ``a`` 为量化张量时，从张量 ``set_`` 会抛出 ``NotImplementedError``。``a`` 是 strided 布局的嵌套张量（``torch.nested.nested_tensor`` 的默认布局）时，detach 得到的张量却四种操作都报错。除非 ``a`` 是推理张量（inference tensor），每次调用之后，它仍通过版本计数器（version counter）与源张量相连；在梯度模式（grad mode）下、``torch.inference_mode()`` 之外，源叶子张量（leaf tensor）会拒绝它们。:fact:`detach-metadata-calls-every-dtype`
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址。

import io
import warnings
import zipfile

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


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
# 原博文的 detach 例子
# --------------------
#
# ``c`` 与 ``a`` 共享内存。它不需要梯度，没有 ``grad_fn``，而且是叶子张量。

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.detach()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
print("a.requires_grad:", a.requires_grad)
print("c.requires_grad:", c.requires_grad)
print("c.grad_fn:", c.grad_fn)
print("c.is_leaf:", c.is_leaf)
assert same_storage(a, c), "the detached tensor must share a's memory"
# sphinx_gallery_start_ignore
assert c.requires_grad is False, "the detached tensor must not require grad"
assert c.grad_fn is None, "the detached tensor must have no grad_fn"
assert c.is_leaf, "the detached tensor must be a leaf"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。两个张量对象共享一块存储 ``S1``，也共享一个计数器 ``C1``。

draw_memory("c = a.detach()", a=a, c=c)

# %%
# 原文的反向传播：``a.grad`` 是 ``2 * a``。``c`` 是不需要梯度的叶子张量，所以它的 ``.grad`` 是 ``None``；和 :ref:`“clone()”那一页 <copying-clone>` 的副本不同，读取它不会触发警告。

b = (a**2).sum()
b.backward()
print("a.grad:", a.grad)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    c_grad = c.grad
print("c.grad:", c_grad)
print("warnings when reading c.grad:", len(caught))
assert caught == [], "reading the .grad of a leaf must not warn"
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.tensor([2.0, 4.0, 6.0])), "a.grad must be 2 * a"
assert c_grad is None, "c.grad must be None"
# sphinx_gallery_end_ignore

# %%
# 原文接着写了 ``a = 1``，打印出的 ``c`` 没有变。和 :ref:`“clone()”那一页 <copying-clone>` 一样，这一行只是重新绑定名字 ``a``；``c`` 仍与 ``a`` 原先指向的张量共享内存。

a_old = a
a = 1
print("a:", a)
print("c:", c)
print("same storage as the old a:", same_storage(a_old, c))
assert same_storage(a_old, c), "c must still share the old tensor's memory"
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.tensor([1.0, 2.0, 3.0])), "c must be unchanged"
# sphinx_gallery_end_ignore

# %%
# 改哪一边，两边都变
# ------------------
#
# 换一对新的张量：通过 ``c`` 写入，``a`` 里也看得到。两者还共享一个版本计数器，两个 ``_version``
# 一起增加。（``_version`` 是 torch 的内部属性，本站读它来展示计数器，它在今后的 torch 发行版中可能会变。）对本站检查的各种默认 strided 布局的源张量，修改都双向可见：叶子张量、非叶子张量、``Parameter``、视图、不需要梯度的张量，以及在 ``torch.inference_mode()`` 里修改的推理张量；除了推理张量，修改还都推进两者共享的那一个计数器：读取这个推理张量或它的切片 ``a[:1]`` 的 ``_version`` 会报错；在模式外对它取的 ``.data`` 和 ``detach()`` 也是推理张量，读取它们的 ``_version`` 却不报错：``a.data._version`` 在修改后读到 0，``detach()`` 则在修改前后都读到 0。在 CPU 上，torch 列出的每种 dtype 也都是这样，其中有整数、bool、复数（包括 ``conj()`` 视图）和量化类型，strided 布局的嵌套张量也一样；不过在 CPU 上，有些 dtype 拒绝某些写入。``int1`` 到 ``int7`` 和 ``uint1`` 到 ``uint7`` 没有 copy 内核：从自身 dtype 或 ``int64`` 的张量 ``copy_``、``fill_`` 和写入一个数的索引写入都抛出 ``NotImplementedError``；通过 ``view(torch.uint8)`` 写入的修改同样让另一个张量看到，并推进两者共享的计数器。bits 类型和 ``float4_e2m1fn_x2`` 可以从自身 dtype 的张量 ``copy_``，这样写入的修改让另一个张量看到，并推进两者共享的计数器，但从 ``int64`` 张量 ``copy_``、``fill_`` 和写入一个数的索引写入都抛出 ``NotImplementedError``。对打包的量化类型 ``quint4x2`` 和 ``quint2x4``，从自身 dtype 的张量 ``copy_``、``fill_`` 和写入一个数的索引写入都抛出 ``NotImplementedError``；对每种量化类型，从 ``int64`` 张量 ``copy_`` 都抛出 ``RuntimeError``。稀疏张量可能不同，见小结。:fact:`detach-edits-reach-both` :fact:`detach-edits-reach-both-every-dtype`

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.detach()
c[0] = 100.0
print("a:", a)
print("c:", c)
print("a._version:", a._version, " c._version:", c._version)
assert a[0] == 100.0, "a write through c must reach a"
# sphinx_gallery_start_ignore
assert a._version == c._version == 1, "a and c must share one version counter"
# sphinx_gallery_end_ignore

# %%
# 反过来修改 ``a``，这里放在 ``torch.no_grad()`` 里：``a`` 是需要梯度的叶子张量，在梯度模式下、``torch.inference_mode()`` 之外，下标写入 ``a[1] = 200.0`` 会报错。
# :fact:`leaf-refuses-inplace`

try:
    a[1] = 200.0
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a[1] = 200.0 on a leaf that requires grad must raise while grad mode is on")
with torch.no_grad():
    a[1] = 200.0
print("a:", a)
print("c:", c)
print("a._version:", a._version, " c._version:", c._version)
assert c[1] == 200.0, "a write through a must reach c"
# sphinx_gallery_start_ignore
assert a._version == c._version == 2, "a and c must share one version counter"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。通过两个名字各修改一次之后，两者从同一个计数器 ``C1`` 读出 ``_version=2``。

draw_memory("c[0] = 100.0; a[1] = 200.0", a=a, c=c)

# %%
# 原地改变形状和存储
# ------------------
#
# 下面的测试，除非另有说明，都从一对新的张量开始：需要梯度的 2×3 叶子张量 ``a``，以及 ``d = a.detach()``。四个调用就是原文点名的四种原地（in-place）操作。

values = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def fresh_pair():
    a = torch.tensor(values, requires_grad=True)
    return a, a.detach()


changes = {
    "resize_(3, 2)": lambda t: t.resize_(3, 2),
    "resize_as_(torch.zeros(3, 2))": lambda t: t.resize_as_(torch.zeros(3, 2)),
    "set_(torch.zeros(6))": lambda t: t.set_(torch.zeros(6)),
    "transpose_(0, 1)": lambda t: t.transpose_(0, 1),
}

# %%
# detach 得到的张量：四种操作都成功
# ---------------------------------
#
# 每个调用改的是 ``d`` 的形状，不是 ``a`` 的：``a`` 的形状和数值都不变。``resize_``、``resize_as_``
# 和 ``transpose_`` 之后，``d`` 换了形状，仍指向 ``a`` 的内存；``set_`` 之后，``d`` 换到了另一块内存。接下来两段说明两者之间还剩下什么联系。

# sphinx_gallery_start_ignore
expected_shapes = {
    "resize_(3, 2)": (3, 2),
    "resize_as_(torch.zeros(3, 2))": (3, 2),
    "set_(torch.zeros(6))": (6,),
    "transpose_(0, 1)": (3, 2),
}
# sphinx_gallery_end_ignore
for call, change in changes.items():
    a, d = fresh_pair()
    change(d)
    print(f"d.{call}")
    print("a:", a)
    print("d:", d)
    print("same storage:", same_storage(a, d))
    assert a.tolist() == values, f"d.{call} must leave a's values alone"
    # sphinx_gallery_start_ignore
    assert tuple(a.shape) == (2, 3), f"d.{call} must leave a's shape alone"
    assert tuple(d.shape) == expected_shapes[call], f"d.{call} must change d's shape"
    shares = not call.startswith("set_")
    assert same_storage(a, d) == shares, f"d.{call}: memory must stay shared unless set_"
    assert a._version == d._version == 1, f"d.{call} must move the version counter a and d share"
    # sphinx_gallery_end_ignore

# sphinx_gallery_start_ignore
def version_read(t):
    try:
        return t._version
    except RuntimeError as e:
        return "raises" if "do not track version counter" in str(e) else str(e)


def detached_results(make_source, grad_mode):
    """Per call on ``d``, the ``detach()`` of a fresh source, in this grad mode: the error, or ``d``'s shape after
    it, then ``(a._version, d._version)`` after it and after a later ``d.set_(torch.zeros(6))``."""
    results = []
    for metadata_change in changes.values():
        source = make_source()
        detached = source.detach()
        try:
            with grad_mode():
                metadata_change(detached)
                shape, after_call = tuple(detached.shape), (version_read(source), version_read(detached))
                changes["set_(torch.zeros(6))"](detached)
        except RuntimeError as e:
            results.append(str(e))
        else:
            results.append((shape, after_call, (version_read(source), version_read(detached))))
    return results


def made_in_inference_mode():
    with torch.inference_mode():
        return torch.tensor(values)


strided_sources = (
    lambda: torch.tensor(values, requires_grad=True),
    lambda: torch.tensor(values, requires_grad=True) * 2,
    lambda: torch.nn.Parameter(torch.tensor(values)),
    lambda: torch.tensor([[0.0, 0.0, 0.0], *values], requires_grad=True)[1:],
    lambda: torch.tensor(values),
)
grad_modes = (torch.enable_grad, torch.no_grad, torch.inference_mode)
assert all(detached_results(make_source, grad_mode) == [(shape, (1, 1), (2, 2)) for shape in expected_shapes.values()]
           for make_source in strided_sources for grad_mode in grad_modes), (
    "the detach() of a strided leaf, non-leaf, Parameter, view or tensor that does not require grad accepts all four "
    "calls, with grad mode on, under no_grad and inside inference_mode, and each call, then a later set_ through it, "
    "moves the version counter it shares with its source")
assert all([(shape, result[1][0], result[2][0]) for shape, result in zip(expected_shapes.values(), detached_results(
    made_in_inference_mode, grad_mode), strict=True)] == [(shape, "raises", "raises") for shape in expected_shapes.values()]
           for grad_mode in grad_modes), (
    "the detach() of an inference tensor accepts all four calls, with grad mode on, under no_grad and inside "
    "inference_mode, and reading the inference tensor's _version raises")
# sphinx_gallery_end_ignore

# %%
# 仍然共享一个版本计数器
# ----------------------
#
# ``d.set_(...)`` 之后，两个张量不再共享内存，却仍共享版本计数器。``d.add_(1)`` 会推进 ``a._version``，所以，如果计算图和本页的一样，是在 ``set_`` 之后建的，因而在 ``add_`` 之前保存了 ``a``，执行 ``backward()`` 就会报错，尽管 ``a`` 的数值从没变过。:fact:`detach-set-keeps-version-counter`

a, d = fresh_pair()
d.set_(torch.zeros(6))
loss = (a * a).sum()
version_before = a._version
d.add_(1)
print("same storage:", same_storage(a, d))
print("a._version before d.add_(1):", version_before, " after:", a._version)
assert a._version == version_before + 1, "d.add_(1) after d.set_ must still move a._version"
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    # sphinx_gallery_start_ignore
    assert "modified by an inplace operation" in str(e), "the error must be the version check"
    assert f"is at version {a._version}; expected version {version_before}" in str(e), (
        "the graph built after d.set_ saved a at its version before d.add_(1), and that edit alone trips the check")
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward must notice the edit through d")
# sphinx_gallery_start_ignore
assert a.tolist() == values, "a's values never changed"
# sphinx_gallery_end_ignore

# %%
# 目标形状与 ``d`` 现有形状相同时，``resize_`` 和 ``resize_as_`` 不改变版本计数器。

a, d = fresh_pair()
d.resize_(2, 3)
print("a._version after d.resize_(2, 3):", a._version)
d.resize_as_(torch.zeros(2, 3))
print("a._version after d.resize_as_(torch.zeros(2, 3)):", a._version, " d._version:", d._version)
print("d.shape:", tuple(d.shape))
assert a._version == d._version == 0, "a resize_ or resize_as_ to d's own shape must leave their counter at 0"
# sphinx_gallery_start_ignore
assert tuple(d.shape) == (2, 3) and same_storage(a, d), "d keeps its shape and a's memory"
# sphinx_gallery_end_ignore

# %%
# 超出存储大小的 ``resize_`` 把 ``a`` 一起搬走
# --------------------------------------------
#
# ``d.resize_(100)`` 需要的内存比 ``a`` 和 ``d`` 共享的 6 个元素多。torch 会给它们共享的存储换一块更大的内存：``a`` 的形状和数值不变，但已经搬进了新的内存。:fact:`detach-resize-grow-reallocates`
#
# 在 CPU 上，决定这一点的是存储，看它的 ``untyped_storage().resizable()``：只有返回 ``True`` 的存储才会这样被搬走，比如 torch 为新张量（如这里的 ``a``）、为 ``clone()`` 或 ``copy.deepcopy`` 分配的存储。``torch.load`` 从 ``torch.save`` 默认写出的 zip 格式文件读到 CPU 上的存储（``weights_only`` 为 ``True`` 或 ``False``，带不带 ``mmap=True`` 都一样），以及 ``load_state_dict(..., assign=True)`` 用这样的张量换上的参数，都不可调整大小；来自 ``torch.from_file``、NumPy、``torch.frombuffer`` 或 DLPack 的内存也不可以：对它们，同样的调用会抛出 ``RuntimeError: Trying to resize storage that is not resizable``，``a`` 保持原样（见下文 ``torch.load`` 那个单元格）。旧格式的文件（``torch.save(..., _use_new_zipfile_serialization=False)``，这是一个内部选项）则给出可调整大小的存储，``weights_only`` 为 ``True`` 或 ``False`` 都一样，``load_state_dict(..., assign=True)`` 从中换上的参数也是如此：这个调用会像上面那样把 ``a`` 搬走。被 ``a.share_memory_()`` 移进共享内存的存储返回 ``True``，这个调用却会让进程因段错误（segmentation fault）崩溃：不抛出 Python 异常，所以调用外面的 ``try``/``except`` 捕获不到。:fact:`detach-resize-grow-on-borrowed-memory`

a, d = fresh_pair()
old_address = a.untyped_storage().data_ptr()
print("resizable:", a.untyped_storage().resizable())
d.resize_(100)
print("a:", a)
print("d.shape:", tuple(d.shape))
print("a now in new memory:", a.untyped_storage().data_ptr() != old_address)
print("same storage:", same_storage(a, d))
print("bytes in a's storage:", a.untyped_storage().nbytes())
assert a.untyped_storage().data_ptr() != old_address, "a growing d.resize_ must move a's memory"
# sphinx_gallery_start_ignore
assert same_storage(a, d) and a.untyped_storage().nbytes() == 400, "a and d share the new storage"
assert a.tolist() == values and tuple(a.shape) == (2, 3), "a keeps its shape and values"
assert a._version == d._version == 1, "a growing d.resize_ must move the version counter a and d share"
assert a.untyped_storage().resizable(), "the storage torch allocated for a reports resizable() True"
# sphinx_gallery_end_ignore

# %%
# ``torch.load`` 从默认的 zip 格式读到 CPU 上的张量（这里从内存里的缓冲区读）所在的存储不可调整大小，同样的调用会抛出错误。``d`` 保留报错之前已经换上的形状 ``(100,)``，这个形状要占 400 个字节，底下却仍是原来只有 24 个字节的存储：完整地读或写 ``d`` 都会越过这块内存的末尾。报错之后不要再用 ``d``，另取一个 ``d = a.detach()``。

buffer = io.BytesIO()
torch.save(torch.tensor(values), buffer)
buffer.seek(0)
a = torch.load(buffer, weights_only=True).requires_grad_()
d = a.detach()
print("resizable:", a.untyped_storage().resizable())
try:
    d.resize_(100)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a growing d.resize_ on a storage torch.load read from the zip format must raise")
print("a:", a)
print("d.shape:", tuple(d.shape), " bytes in d's storage:", d.untyped_storage().nbytes())
assert tuple(d.shape) == (100,) and d.untyped_storage().nbytes() == 24, "d keeps the shape (100,) over 24 bytes"
# sphinx_gallery_start_ignore
assert zipfile.is_zipfile(buffer), "torch.save wrote the buffer in the zip format"
assert not a.untyped_storage().resizable(), "the storage torch.load read reports resizable() False"
assert d.numel() * d.element_size() == 400, "d's shape (100,) covers 400 bytes"
assert a.tolist() == values and tuple(a.shape) == (2, 3) and a.untyped_storage().nbytes() == 24, (
    "a keeps its values and its shape, on its storage of 24 bytes")
assert tuple(a.detach().shape) == (2, 3) and same_storage(a, a.detach()), "a new a.detach() has a's shape again"
# sphinx_gallery_end_ignore

# %%
# 源叶子张量：四种操作都报错
# --------------------------
#
# 同样的调用作用在 ``a`` 上会抛出 ``RuntimeError``，报错信息有两种；两个张量都保持原样。

resize_error = "cannot resize variables that require grad"
leaf_error = "a leaf Variable that requires grad is being used in an in-place operation."
leaf_errors = {
    "resize_(3, 2)": resize_error,
    "resize_as_(torch.zeros(3, 2))": resize_error,
    "set_(torch.zeros(6))": leaf_error,
    "transpose_(0, 1)": leaf_error,
}
for call, change in changes.items():
    a, d = fresh_pair()
    print(f"a.{call}")
    try:
        change(a)
    except RuntimeError as e:
        print(f"{type(e).__name__}: {e}")
        # sphinx_gallery_start_ignore
        assert str(e) == leaf_errors[call], f"a.{call} must raise this RuntimeError"
        # sphinx_gallery_end_ignore
    else:
        raise AssertionError(f"a.{call} must raise")
    # sphinx_gallery_start_ignore
    assert tuple(a.shape) == tuple(d.shape) == (2, 3), f"a.{call} must change no shape"
    assert same_storage(a, d), f"a.{call} must leave the memory shared"
    # sphinx_gallery_end_ignore

# %%
# 报错的原因是 ``requires_grad``，不是 ``detach()``
# -------------------------------------------------
#
# 一个需要梯度、从没 detach 过的叶子张量，报的是同样的错。同样的张量如果不需要梯度，四种调用全都接受。

for call, change in changes.items():
    lone = torch.tensor(values, requires_grad=True)
    print(f"lone.{call}")
    try:
        change(lone)
    except RuntimeError as e:
        print(f"{type(e).__name__}: {e}")
        assert str(e) == leaf_errors[call], f"lone.{call} must raise the same error as a.{call}"
    else:
        raise AssertionError(f"lone.{call} must raise")
    plain = torch.tensor(values)
    change(plain)
    print(f"plain.{call} -> shape", tuple(plain.shape))
    # sphinx_gallery_start_ignore
    assert tuple(plain.shape) == expected_shapes[call], f"plain.{call} must succeed"
    # sphinx_gallery_end_ignore

# %%
# 源张量不是叶子张量时，情况又不同：``x * 2`` 接受 ``set_`` 和 ``transpose_``，只拒绝 ``resize_`` 和 ``resize_as_``，原因是 ``x * 2`` 需要梯度。

def accepts(t, change):
    try:
        change(t)
    except RuntimeError as e:
        print(f"    {type(e).__name__}: {e}")
        return False
    return True


accepted = []
for call, change in changes.items():
    x = torch.tensor(values, requires_grad=True)
    a = x * 2
    print(f"non-leaf a.{call}")
    if accepts(a, change):
        accepted.append(call)
        print("    accepted, shape", tuple(a.shape))
assert accepted == ["set_(torch.zeros(6))", "transpose_(0, 1)"], "a non-leaf accepts set_, transpose_"
# sphinx_gallery_start_ignore
def error_under(grad_mode, change, grad_on=False):
    leaf_source = torch.tensor(values, requires_grad=True)
    with grad_mode(), torch.set_grad_enabled(grad_on):
        assert torch.is_grad_enabled() == grad_on, (
            "grad mode is on in the check exactly when it turns it on, inside inference_mode too")
        try:
            change(leaf_source)
        except RuntimeError as e:
            return str(e)
    return None if leaf_source.requires_grad and leaf_source.is_leaf else "no longer a leaf that requires grad"


assert [error_under(torch.no_grad, change) for change in changes.values()] == [
    resize_error, resize_error, None, None], (
    "under no_grad a leaf that requires grad still refuses the two resizes, and accepts set_ and transpose_")
assert [error_under(torch.no_grad, change, grad_on=True) for change in changes.values()] == [
    resize_error, resize_error, leaf_error, leaf_error], (
    "with grad mode on, also by enable_grad inside no_grad, a leaf that requires grad refuses all four calls")
assert [error_under(torch.inference_mode, change) for change in changes.values()] == [None, None, None, None], (
    "under inference_mode a leaf that requires grad accepts all four calls")
assert [error_under(torch.inference_mode, change, grad_on=True) for change in changes.values()] == [
    None, None, None, None], "inside inference_mode a leaf that requires grad accepts all four calls with grad mode on"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    原文说，``resize_``、``resize_as_``、``set_`` 和 ``transpose_`` 无论在 detach 得到的张量上，还是在源张量上执行，都会报错。文章写成时确实如此：torch 1.12 及以前，对 ``.data`` 或 ``.detach()``
#    得到的张量执行这些调用，会报错“… is not allowed on a Tensor created from .data or .detach()”；
#    ``Tensor.detach`` 的说明在 2.2 版的文档里还这样写。
#    2022 年 8 月，`pytorch/pytorch#83590 <https://github.com/pytorch/pytorch/pull/83590>`__
#    取消了这一限制（“Always allow tensor metadata changes”）。在 torch |torch_version| 上，``a`` 是 CPU 上新建的 2×3 张量（默认 strided 布局，稠密，非嵌套）或这种张量覆盖全部元素的 2×3 视图，而且 ``a.is_conj()`` 和 ``a.is_neg()`` 都为 False，即不带共轭位或负号位时，无论 dtype 是什么，只要 ``resize_as_`` 和 ``set_`` 的参数是 CPU 上新建的、``a`` 的 dtype 的 strided 张量，本页这样调用的四种操作在 detach
#    得到的张量上都能成功，也不给出警告（见上方输出）；例外是 ``a`` 为量化张量时，从张量 ``set_`` 会抛出 ``NotImplementedError``，而从存储、偏移、形状和步长 ``set_`` 则可以。``a`` 是 strided 布局的嵌套张量（``torch.nested.nested_tensor`` 的默认布局）时，无论参数是什么，这四种操作在 detach 得到的张量上都报错：两种 resize 抛出 ``RuntimeError``，推理张量在 ``torch.inference_mode()`` 里则抛出 ``NotImplementedError``；``set_`` 和 ``transpose_`` 抛出 ``NotImplementedError``。:fact:`detach-metadata-calls-every-dtype`\ ``a`` 非空且带其中一种位时，比如复数张量 ``x`` 的视图 ``x.conj()`` 和 ``x.conj().imag``，在 detach 得到的张量上把 ``resize_as_`` 调整到新形状会给出警告（一个 ``UserWarning``，说输出被改变了大小，而这种做法已弃用），然后照常执行，并且可能改写 ``a`` 显示的数值：``a = x[:, ::2].conj()`` 时就是这样。:fact:`detach-resize-as-conj-neg-warns`\ ``a`` 是不带这两种位的稠密张量时，它们改的是 detach 所得张量自己的形状或存储，不是 ``a`` 的；例外是 ``resize_`` 需要的字节比两者共享的存储多时，会把两者共享的内存一起搬走（限于可调整大小的存储，其他存储见上文）。除非 ``a`` 是推理张量，两个张量始终共享一个版本计数器，上面这四个调用各让它加一（目标形状与 ``d`` 现有形状相同的 ``resize_`` 或 ``resize_as_`` 不改变计数器）。它们在源叶子张量上报错，原因有两个：两种 resize 报错，是因为它需要梯度（在 ``torch.no_grad()`` 下也报错，对需要梯度的非叶子张量也报错；在 ``torch.inference_mode()`` 下，四种调用在它上面都能成功）；``set_`` 和 ``transpose_`` 报错，是因为它是需要梯度的叶子张量，而且梯度模式开着，本页就是如此（在 ``torch.no_grad()`` 下这个叶子张量接受它们）。非叶子的源张量 ``x * 2`` 接受 ``set_`` 和 ``transpose_``。

# %%
# 小结
# ----
#
# ``detach()`` 在同一块内存上得到一个脱离计算图的张量：对默认 strided 布局的张量，只要两者仍用这块内存，通过任何一个名字修改数值，另一个都看得到（``d.set_(...)``，或对源张量调用的 ``a.set_(...)``、``a.data = t`` 或 ``torch.nn.utils.vector_to_parameters``，在 torch 接受时都会让其中一个换到别的内存上，此后通过任何一个名字修改，另一个都看不到）；两者还共享一个版本计数器，换了内存前后都一样，用来统计其中的 torch 原地操作（推理张量除外，比如在 ``torch.inference_mode()`` 下创建、占用新内存的源张量，而在该模式里用索引对普通张量取的视图不是推理张量。读取这种源张量的 ``_version`` 会报错；在模式外对它取的 ``detach()`` 也是推理张量，但在模式里做的这类修改前后都读到 0，在模式外通过它调用 ``add_`` 则会改到源张量，并让这个 detach 所得张量的计数器变为 1，读取源张量的 ``_version`` 仍然报错）。对每个值调用 Python 函数的 ``apply_``、``map_`` 和 ``map2_`` 不增加任何计数器；fused 优化器（``fused=True``）走一步，以及 :ref:`“版本计数器”那一页 <questions-version-counter>` 列出的、本站检查过的其他几个内核，也不增加；别的内核也可能如此。COO 稀疏张量则不同：通过任何一个名字做的某些原地修改，其中有 ``mul_``、``add_``、``zero_`` 和 ``copy_``，会让这个张量的数值换到新的内存，另一个仍是原来的数值，两者读到的 ``_version`` 却照样增加；另一些，比如 ``div_``，另一个看得到；CSR 稀疏张量上，通过 detach 所得张量调用的 ``mul_`` 和 ``zero_`` 在源张量上都看得到。``a`` 是不带共轭位或负号位的稠密张量时，改变 detach 所得张量的形状或存储，只改它自己，不改 ``a``，``a`` 是 strided 布局的嵌套张量时则会报错（``a`` 非空且带其中一种位时，把 ``resize_as_`` 调整到新形状会给出警告，还可能改变 ``a`` 的数值）；但除非 ``a`` 是推理张量，两者仍共享版本计数器，上面四个调用各让它加一；``resize_`` 需要的字节比存储现有的多时，同样让它加一，还会把 ``a`` 的内存一起搬走，前提是存储可调整大小（``untyped_storage().resizable()``），torch 为新张量、``clone()`` 或 ``copy.deepcopy`` 分配的存储，以及 ``torch.load`` 从旧格式文件读出的存储，都是这样；存储由 ``torch.load`` 从默认的 zip 格式读到 CPU 上，或内存来自 ``torch.from_file``、NumPy、``torch.frombuffer`` 或 DLPack 时，它会抛出错误，``d`` 却已换上新形状，底下仍是原来的内存，不能再用（另取一个 ``d = a.detach()``）；调用过 ``share_memory_()`` 之后，它会让进程因段错误崩溃，``try``/``except`` 捕获不到。原文的第三个例子在
# ``detach()`` 之后重新绑定了 ``a``，见 :ref:`“重新绑定与原地更新”那一页 <copying-rebinding>`。
# :fact:`detach-resize-grow-on-borrowed-memory` :fact:`counter-bypass-edits-silent`
# :fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted`
# :fact:`detach-edits-reach-both` :fact:`detach-edits-reach-both-every-dtype`
# :fact:`detach-sparse-coo-edit-not-shared` :fact:`inference-mode-new-memory-is-inference`
# :fact:`inference-mode-views-of-normal-tensor` :fact:`detach-metadata-calls-every-dtype`
# :fact:`detach-resize-as-conj-neg-warns` :fact:`detach-memory-moved-apart`
