"""
.. _questions-deepcopy:

对张量做 ``copy.deepcopy`` 与 ``copy.copy``
===========================================

.. admonition:: 答案
   :class: answer

   ``copy.deepcopy`` 只能复制叶子张量，而出错的模块存着一个在梯度模式下由参数做乘法得到的张量，它带有 ``grad_fn``。改在 ``forward`` 里计算它，也不要把它存到模块上（detach 后存在模块上的张量是常量，永远不会被训练）：

   .. code-block:: python

      class ScaledFixed(torch.nn.Module):
          def __init__(self):
              super().__init__()
              self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

          def forward(self, x):
              return x * self.scale * 2

模块里存着一个非叶子张量，也就是带 ``grad_fn`` 的张量（比如在梯度模式（grad mode）下由需要梯度的张量做乘法得到的张量），这时 ``copy.deepcopy(model)`` 会报错：“Only Tensors created
explicitly by the user (graph leaves) support the deepcopy protocol at the moment”。本页用一个很小的模块复现这个报错并修好它，再看深拷贝到底复制了什么：``Parameter`` 以外的张量的 ``.grad``；对不带共轭位（conjugate bit）或负号位（negative bit）的普通 CPU 张量而言，还有视图（view）背后的整块存储，以及对象内部同一块存储上的共享关系（会保留下来）；最后说明浅拷贝
``copy.copy`` 根本不复制内存。本页回答的是 `pytorch/pytorch#54580 <https://github.com/pytorch/pytorch/issues/54580>`__。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import copy
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
# 报错
# ----
#
# 下面的模块把 ``scale * 2`` 存成了属性。这个张量是在 ``scale`` 需要梯度时由乘法得到的，所以带有
# ``grad_fn``，不是叶子张量（leaf tensor）。对模块做 ``copy.deepcopy`` 时会碰到它，于是报错。


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        self.doubled = self.scale * 2  # 存在模块上的非叶子张量

    def forward(self, x):
        return x * self.doubled


model = Scaled()
print("doubled.is_leaf:", model.doubled.is_leaf)
print("doubled.grad_fn:", model.doubled.grad_fn.name())
try:
    copy.deepcopy(model)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("deepcopy of a module holding a non-leaf must raise")
# sphinx_gallery_start_ignore
assert message.startswith(
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment."
), "the message's first sentence, as the opening quotes it"
# sphinx_gallery_end_ignore

# %%
# 单独拷贝这个张量也是同样的报错：不管外面有没有模块，``deepcopy`` 都拒绝带 ``grad_fn`` 的张量。但没有 ``grad_fn`` 还不够：默认 ``torch.strided`` 布局的嵌套张量、CSR、CSC、BSR 或 BSC 布局的稀疏张量和 mkldnn 张量（``to_mkldnn()``）都是叶子张量，``deepcopy`` 却对它们都抛出 ``NotImplementedError``；``torch.jagged`` 布局的嵌套张量和 COO 稀疏张量则能深拷贝，副本有新的内存（这些情形都由隐藏的检查运行）。
# :fact:`deepcopy-refuses-some-leaves`

try:
    copy.deepcopy(model.doubled)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a non-leaf tensor must raise")
# sphinx_gallery_start_ignore
# 嵌套张量还是原型功能：构造 strided 布局的嵌套张量会发出警告，所以这里忽略它。
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    strided_leaf_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
assert strided_leaf_.layout == torch.strided and strided_leaf_.is_leaf and strided_leaf_.grad_fn is None, (
    "a strided nested tensor is a leaf with no grad_fn")
try:
    copy.deepcopy(strided_leaf_)
except NotImplementedError:
    pass
else:
    raise AssertionError("deepcopy of a strided nested tensor must raise NotImplementedError")
jagged_leaf_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)
jagged_copy_ = copy.deepcopy(jagged_leaf_)
assert jagged_leaf_.is_leaf and jagged_copy_.values().data_ptr() != jagged_leaf_.values().data_ptr() and torch.equal(
    jagged_copy_.values(), jagged_leaf_.values()), "a jagged nested tensor deep-copies into new memory"
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # 压缩稀疏布局还是 beta 功能，torch 会发出警告
    dense_ = torch.arange(16.0).reshape(4, 4)
    refused_leaves_ = {"sparse CSR": dense_.to_sparse_csr(), "sparse CSC": dense_.to_sparse_csc(),
                       "sparse BSR": dense_.to_sparse_bsr((2, 2)), "sparse BSC": dense_.to_sparse_bsc((2, 2)),
                       "mkldnn": dense_.to_mkldnn()}
for kind_, refused_leaf_ in refused_leaves_.items():
    assert refused_leaf_.is_leaf and refused_leaf_.grad_fn is None, f"a {kind_} tensor is a leaf with no grad_fn"
    try:
        copy.deepcopy(refused_leaf_)
    except NotImplementedError:
        pass
    else:
        raise AssertionError(f"deepcopy of a {kind_} tensor must raise NotImplementedError")
coo_leaf_ = dense_.to_sparse()
coo_copy_ = copy.deepcopy(coo_leaf_)
assert coo_copy_.layout == torch.sparse_coo and coo_copy_.values().data_ptr() != coo_leaf_.values().data_ptr() and (
    torch.equal(coo_copy_.to_dense(), dense_)), "a sparse COO tensor deep-copies into new memory"
# sphinx_gallery_end_ignore

# %%
# 普通 ``torch.Tensor`` 子类（像下面的 ``Tagged`` 这样什么也没定义，也没有 ``__torch_dispatch__``）的实例同样是叶子张量，``deepcopy`` 却对它抛出 ``RuntimeError``：无论是像这里这样用 ``as_subclass`` 得到的，还是（由隐藏的检查运行）用 ``Tagged(...)`` 得到的、空的或在 ``meta`` 上的。子类定义了返回自身类的 ``new_empty``，或者定义了 ``__deepcopy__`` 时，它的实例就能深拷贝；``Parameter`` 的子类也能深拷贝（由隐藏的检查验证）。
# :fact:`deepcopy-refuses-some-leaves`


class Tagged(torch.Tensor):
    pass


tagged = torch.ones(2).as_subclass(Tagged)
print("type(tagged):", type(tagged).__name__, " is_leaf:", tagged.is_leaf, " grad_fn:", tagged.grad_fn)
try:
    copy.deepcopy(tagged)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('. ')[0]}")
else:
    raise AssertionError("deepcopy of an instance of a plain Tensor subclass must raise")
# sphinx_gallery_start_ignore
for made_ in (tagged, Tagged(torch.ones(2)), torch.empty(0).as_subclass(Tagged),
              torch.ones(2, device="meta").as_subclass(Tagged)):
    assert made_.is_leaf and made_.grad_fn is None, "each instance of Tagged is a leaf with no grad_fn"
    try:
        copy.deepcopy(made_)
    except RuntimeError as refusal_:
        assert str(refusal_).startswith("The default implementation of __deepcopy__() for"), (
            "deepcopy of an instance of Tagged says the default __deepcopy__ cannot rebuild it")
    else:
        raise AssertionError("deepcopy of an instance of Tagged, however made, must raise")


class OwnNewEmpty_(torch.Tensor):
    def new_empty(self, *args, **kwargs):
        return super().new_empty(*args, **kwargs).as_subclass(OwnNewEmpty_)


class OwnDeepcopy_(torch.Tensor):
    def __deepcopy__(self, memo):
        return self.detach().clone().as_subclass(OwnDeepcopy_)


class ParameterKind_(torch.nn.Parameter):
    pass


for copies_ in (torch.ones(2).as_subclass(OwnNewEmpty_), torch.ones(2).as_subclass(OwnDeepcopy_),
                ParameterKind_(torch.ones(2))):
    subclass_copy_ = copy.deepcopy(copies_)
    assert type(subclass_copy_) is type(copies_) and bytes_apart(subclass_copy_, copies_) and torch.equal(
        subclass_copy_, copies_), f"deepcopy of a {type(copies_).__name__} gives a copy of its class"
# sphinx_gallery_end_ignore

# %%
# 在 ``torch.inference_mode()`` 之外用 ``requires_grad=True`` 创建、随后在梯度模式下、``torch.inference_mode()`` 之外经 ``.to()`` 搬到另一个设备（这里是 ``meta``）或转换成另一种浮点或复数 dtype（这里是 ``float64``、``float16``、``bfloat16`` 和 ``complex64``）的张量，就是这样的非叶子张量，它的 ``grad_fn`` 是 ``ToCopyBackward0``：``deepcopy`` 拒绝它，而搬动之前的那个张量可以深拷贝，副本是叶子张量。这里只运行梯度模式下的搬动。``.cuda()`` 也得到这样的非叶子张量，``grad_fn`` 也相同：这一点由 :ref:`“权重搬动之后的 .grad”那一页 <questions-grad-after-move>` 的 GPU 框检查，它只在 torch 找到 GPU 时才运行。

for target in ("meta", torch.float64, torch.float16, torch.bfloat16, torch.complex64):
    before_move = torch.ones(3, requires_grad=True)
    moved = before_move.to(target)
    try:
        copy.deepcopy(moved)
    except RuntimeError as e:
        refusal = str(e)
        print(f"device: {moved.device}  dtype: {moved.dtype}  grad_fn: {moved.grad_fn.name()}  {type(e).__name__}")
    else:
        raise AssertionError(f"deepcopy of a tensor moved by to({target}) must raise")
    assert refusal.startswith("Only Tensors created explicitly by the user (graph leaves)"), (
        f"to({target}): deepcopy refuses with the graph-leaves message")
    # sphinx_gallery_start_ignore
    assert moved.grad_fn.name() == "ToCopyBackward0" and not moved.is_leaf, (
        f"to({target}) in grad mode gives a non-leaf whose grad_fn is ToCopyBackward0")
    assert copy.deepcopy(before_move).is_leaf, f"before to({target}), the tensor deep-copies to a leaf"
    # sphinx_gallery_end_ignore

# %%
# 由不需要梯度的张量算出来的张量，或者在 ``torch.no_grad()`` 下算出来的张量，都是没有 ``grad_fn``
# 的叶子张量：模块里存的是这样的张量时，可以深拷贝。

scale = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    frozen = scale * 2
held = torch.nn.Module()
held.register_buffer("doubled", torch.arange(3.0) * 2)
held.register_buffer("frozen", frozen)
held_copy = copy.deepcopy(held)
for name, t in held.named_buffers():
    print(f"{name}: is_leaf={t.is_leaf}  grad_fn={t.grad_fn}  copy: {held_copy.get_buffer(name)}")
assert all(t.is_leaf for t in held.buffers()) and torch.equal(held_copy.frozen, frozen), (
    "both buffers are leaves; deepcopy(held) copied frozen's values")
# sphinx_gallery_start_ignore
assert torch.equal(held_copy.doubled, held.doubled) and bytes_apart(held_copy.frozen, frozen), (
    "deepcopy copied doubled's values; frozen's copy has memory of its own")
# sphinx_gallery_end_ignore

# %%
# 解决办法
# --------
#
# 模块上只存叶子张量：把 ``scale * 2`` 挪到 ``forward`` 里算。这样的模块可以深拷贝，得到的副本有自己的内存。


class ScaledFixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        return x * self.scale * 2


fixed = ScaledFixed()
twin = copy.deepcopy(fixed)
print("twin.scale:", twin.scale)
print("same storage (scale):", same_storage(fixed.scale, twin.scale))
assert bytes_apart(fixed.scale, twin.scale), "the deep copy must own its parameters' memory"
# sphinx_gallery_start_ignore
assert torch.equal(twin.scale, fixed.scale), "the deep copy must hold the same values"
# sphinx_gallery_end_ignore

# %%
# 如果 ``forward`` 还把算出的张量存到模块上，光在 ``forward`` 里计算还不够；本页回答的那个 issue 里的模块正是这样做的（``self.exp = x``）：这样的模块在第一次调用之前可以深拷贝，在梯度模式下调用之后报同样的错误，在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下调用之后又可以深拷贝，因为这样的调用存下的是叶子张量。
# :fact:`deepcopy-refuses-module-keeping-non-leaf`


class ScaledStored(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        self.doubled = self.scale * 2  # 在 forward 里算出，却存到了模块上
        return x * self.doubled


stored = ScaledStored()
print("before a call, the copy's scale:", copy.deepcopy(stored).scale)
stored(torch.ones(2))
print("after a call, stored.doubled.grad_fn:", stored.doubled.grad_fn.name())
try:
    copy.deepcopy(stored)
except RuntimeError as e:
    stored_message = str(e)
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module that stored a non-leaf in forward must raise")
assert stored_message == message, "after a call in grad mode, deepcopy raises the error above"

# %%
# 改为在模块上存 ``(self.scale * 2).detach()``，同样可以深拷贝，但这个张量是常量：梯度不会经过它传到
# ``scale``，``scale`` 变了它也不跟着变。用 SGD 训练几步就能看出区别：在 ``forward`` 里计算时，``scale``
# 会被训练；用 detach 后的属性时，``scale`` 是唯一的参数，通向损失的路上没有需要梯度的张量，所以
# ``backward()`` 抛出错误，``scale.grad`` 仍是 ``None``，``scale`` 的值也不变。


class ScaledDetached(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        self.doubled = (self.scale * 2).detach()  # 是叶子张量，但也是常量

    def forward(self, x):
        return x * self.doubled


def train(module, steps=3):
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        module(torch.ones(2)).sum().backward()
        optimizer.step()


trained = ScaledFixed()
train(trained)
print("computed in forward, scale after training:", trained.scale.detach())
stuck = ScaledDetached()
print("deep-copies:", copy.deepcopy(stuck).doubled)
try:
    train(stuck)
except RuntimeError as e:
    stuck_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward through a detached attribute alone must raise")
print("detached attribute, scale:", stuck.scale.detach(), " scale.grad:", stuck.scale.grad)
with torch.no_grad():
    stuck.scale.mul_(3.0)
print("after scale *= 3, doubled:", stuck.doubled)
assert not torch.equal(trained.scale, torch.tensor([1.0, 2.0])), "computed in forward, scale trains"
assert stuck.scale.grad is None and torch.equal(stuck.doubled, torch.tensor([2.0, 4.0])), "a detached copy is a constant"
# sphinx_gallery_start_ignore
assert stuck_message.startswith("element 0 of tensors does not require grad"), "the message torch prints"
assert torch.equal(stuck.scale, torch.tensor([3.0, 6.0])), "scale kept its values until the edit above"
# sphinx_gallery_end_ignore

# %%
# 最常见的原因：``weight_norm``
# -----------------------------
#
# 报错信息里已经点了名：``torch.nn.utils.weight_norm``。这个函数已弃用，调用时会发出 ``FutureWarning``；它把
# ``weight`` 作为由两个参数算出的张量存在模块上，所以在梯度模式下建好的模块从一开始就带着一个非叶子张量，无法深拷贝。它在每次调用之前都按这次调用的梯度模式重新计算 ``weight``，就像上面的 ``ScaledStored`` 在 ``forward`` 里做的那样：在 ``torch.no_grad()`` 下建好的模块，或在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下调用过的模块，带着的是叶子张量，可以深拷贝，直到下一次在梯度模式下调用（隐藏的检查验证了这些情况）。取代它的
# ``torch.nn.utils.parametrizations.weight_norm`` 每次读取时才计算权重（在 ``torch.nn.utils.parametrize.cached()`` 块内只算一次），模块上只存那两个参数：这样的模块可以深拷贝，副本用自己的内存算出同样的输出。
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
print("warned:", [f"{w.category.__name__}: {w.message}" for w in caught])
print("legacy.weight.grad_fn:", legacy.weight.grad_fn.name())
try:
    copy.deepcopy(legacy)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("deepcopy of a module with the old weight_norm must raise")
modern = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
modern_copy = copy.deepcopy(modern)
x = torch.ones(1, 3)
print("the copy computes the same output:", torch.equal(modern_copy(x), modern(x)))
print("same storage (weight_g):", same_storage(modern.parametrizations.weight.original0,
                                               modern_copy.parametrizations.weight.original0))  # fmt: skip
assert "torch.nn.utils.weight_norm" in message and torch.equal(modern_copy(x), modern(x)), "old fails, new copies"
# sphinx_gallery_start_ignore
assert [w.category for w in caught] == [FutureWarning], "the old weight_norm is deprecated"
assert [name for name, _ in modern.named_parameters()] == [
    "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"
], "the new weight_norm keeps two parameters for the weight, and no computed weight"
assert bytes_apart(modern.parametrizations.weight.original1, modern_copy.parametrizations.weight.original1), (
    "the copy's weight_v has memory of its own too")
assert modern.weight is not modern.weight and modern.weight.grad_fn is not None, (
    "the new weight_norm computes the weight anew at each read")
with torch.nn.utils.parametrize.cached():
    assert modern.weight is modern.weight, "inside parametrize.cached() the new weight_norm computes the weight once"


def deep_copies_(module_):
    try:
        copy.deepcopy(module_)
    except RuntimeError as refusal_:
        assert str(refusal_) == message, "deepcopy of a module with the old weight_norm raises the error above"
        return False
    return True


with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # 旧版 weight_norm 已弃用，上面已经看到它的警告
    with torch.no_grad():
        quiet_legacy_ = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
assert quiet_legacy_.weight.is_leaf and deep_copies_(quiet_legacy_), (
    "a module given the old weight_norm under torch.no_grad() holds a leaf weight and deep-copies")
call_modes_ = {"in grad mode": torch.enable_grad, "under torch.no_grad()": torch.no_grad,
               "under torch.inference_mode()": torch.inference_mode}
for call_mode_ in ("in grad mode", "under torch.no_grad()", "in grad mode", "under torch.inference_mode()"):
    with call_modes_[call_mode_]():
        quiet_legacy_(x)
    outside_grad_mode_ = call_mode_ != "in grad mode"
    assert quiet_legacy_.weight.is_leaf == deep_copies_(quiet_legacy_) == outside_grad_mode_, (
        f"after a call {call_mode_}, a module with the old weight_norm holds a leaf weight and deep-copies "
        "only outside grad mode")
# sphinx_gallery_end_ignore


# %%
# 深拷贝带走了什么
# ----------------
#
# 一个已经用普通 ``backward()`` 得到梯度的普通叶子张量：副本得到自己的 ``.grad``，数值相同，内存不同；副本仍是需要梯度的叶子张量。调用 ``backward(create_graph=True)`` 之后，由 ``w`` 算出的梯度（比如 ``(w * w).sum()`` 的梯度 ``2 * w``）会让 ``.grad`` 带上 ``grad_fn``，这时深拷贝这个叶子张量会报上面那条错误，而 ``Parameter`` 的副本不带 ``.grad``，照样能深拷贝（见下文）。梯度若不由任何需要梯度的张量算出（比如 ``(w * 2).sum()`` 的梯度），``.grad`` 就没有 ``grad_fn``，这个叶子张量照样能深拷贝。这三种情况由一段隐藏的检查验证。

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(w * w).sum().backward()
w_copy = copy.deepcopy(w)
print("w.grad:", w.grad)
print("w_copy.grad:", w_copy.grad)
print("same storage (grad):", same_storage(w.grad, w_copy.grad))
print("w_copy.requires_grad:", w_copy.requires_grad, " is_leaf:", w_copy.is_leaf)
assert torch.equal(w_copy.grad, w.grad) and bytes_apart(w.grad, w_copy.grad), "deepcopy must copy .grad"
# sphinx_gallery_start_ignore
assert w_copy.requires_grad and w_copy.is_leaf, "the copy must be a leaf that requires grad"
graded_ = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
graded_parameter_ = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
    (graded_ * graded_).sum().backward(create_graph=True)
    (graded_parameter_ * graded_parameter_).sum().backward(create_graph=True)
assert graded_.grad.grad_fn is not None and graded_parameter_.grad.grad_fn is not None, (
    "after backward(create_graph=True), .grad has a grad_fn")
try:
    copy.deepcopy(graded_)
except RuntimeError as refusal_:
    assert str(refusal_).startswith("Only Tensors created explicitly by the user (graph leaves)"), (
        "deepcopy of a leaf whose .grad has a grad_fn raises the graph-leaves error")
else:
    raise AssertionError("deepcopy of a leaf whose .grad has a grad_fn must raise")
assert copy.deepcopy(graded_parameter_).grad is None, (
    "a Parameter whose .grad has a grad_fn deep-copies, and its copy has no .grad")
linear_ = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    (linear_ * 2).sum().backward(create_graph=True)
assert linear_.grad.grad_fn is None and torch.equal(copy.deepcopy(linear_).grad, linear_.grad), (
    "a gradient from no tensor that requires grad has no grad_fn, and the leaf deep-copies")
# sphinx_gallery_end_ignore

# %%
# ``Parameter`` 不一样：无论单独拷贝还是连同模块一起拷贝，副本都保留 ``Parameter`` 类型，却不带梯度。在 ``backward()``
# 之后深拷贝上面的模型，副本里的 ``.grad`` 是 ``None``。

p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
(p * p).sum().backward()
print("p.grad:", p.grad, " copy.deepcopy(p).grad:", copy.deepcopy(p).grad)
fixed(torch.ones(2)).sum().backward()
twin = copy.deepcopy(fixed)
print("fixed.scale.grad:", fixed.scale.grad)
print("twin.scale.grad:", twin.scale.grad)
print("type(twin.scale):", type(twin.scale).__name__)
assert copy.deepcopy(p).grad is None and twin.scale.grad is None, "deepcopy of a Parameter must drop .grad"
# sphinx_gallery_start_ignore
assert p.grad is not None and fixed.scale.grad is not None, "the sources had a gradient to drop"
# sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert type(twin.scale) is torch.nn.Parameter, "deepcopy must keep the Parameter type"
# sphinx_gallery_end_ignore

# %%
# 拷贝一个作为视图的普通 CPU 张量（不带共轭位或负号位）时，视图背后的整块存储都会被复制：视图只有两个浮点数，副本的存储却有十个（40 字节）。副本不再是视图（``_base``
# 是 ``None``），但保留了视图在存储中的偏移量。在不占内存的 ``meta`` 上，``deepcopy`` 改为克隆：副本只有视图的两个浮点数，偏移量为 0（这一点由一段隐藏的检查验证）。

base = torch.arange(10.0)
view = base[2:4]
view_copy = copy.deepcopy(view)
print("view:", view, " bytes in view:", view.nelement() * view.element_size())
print("view_copy storage bytes:", view_copy.untyped_storage().nbytes())
print("view_copy._base:", view_copy._base, " storage_offset:", view_copy.storage_offset())
assert view_copy.untyped_storage().nbytes() == base.untyped_storage().nbytes(), "deepcopy must copy the whole storage"
# sphinx_gallery_start_ignore
assert view_copy.untyped_storage().nbytes() == 40, "the storage of ten float32 holds 40 bytes"
assert view_copy._base is None and view_copy.storage_offset() == 2, "the copy keeps the offset, not the view"
assert bytes_apart(view, view_copy), "the copy must own its storage"
meta_view_copy = copy.deepcopy(torch.arange(10.0, device="meta")[2:4])
assert meta_view_copy.untyped_storage().nbytes() == 8, "on meta, deepcopy clones: the view's two floats"
assert meta_view_copy.storage_offset() == 0, "on meta the clone starts at offset 0"
# sphinx_gallery_end_ignore

# %%
# 被拷贝对象内部，同一块存储上不带共轭位或负号位的普通 CPU 张量之间的共享关系会保留下来（在 ``meta`` 上，下面的视图会被克隆到一块自己的存储上）：一个列表里放了同一个张量两次，外加它的一个视图；对整个列表调用一次
# ``deepcopy``，得到的列表里前两项仍是同一个张量，第三项与它共享内存。经由 ``torch.from_numpy(t.numpy())`` 或
# ``torch.from_dlpack(t)`` 得到的别名落在同一块内存上，却有自己的存储对象：它的副本与 ``t`` 的副本什么也不共享。

t = torch.zeros(3)
items = copy.deepcopy([t, t, t[1:]])
print("items[0] is items[1]:", items[0] is items[1])
print("items[2] shares items[0]'s storage:", same_storage(items[0], items[2]))
print("items[0] shares t's storage:", same_storage(items[0], t))
assert items[0] is items[1] and same_storage(items[0], items[2]), "deepcopy must keep the sharing it copies"
# sphinx_gallery_start_ignore
meta_t = torch.zeros(3, device="meta")
meta_items = copy.deepcopy([meta_t, meta_t, meta_t[1:]])
assert meta_items[0] is meta_items[1], "on meta one tensor twice is still copied once"
assert meta_items[2].untyped_storage().nbytes() == 8, "on meta the view is cloned onto a storage of its own"
assert bytes_apart(items[0], t), "the copy must not share the source's memory"
assert same_storage(t, torch.from_numpy(t.numpy())) and same_storage(t, torch.from_dlpack(t)), (
    "from_numpy(t.numpy()) and from_dlpack(t) sit on t's memory")
assert bytes_apart(*copy.deepcopy([t, torch.from_numpy(t.numpy())])), (
    "deepcopy([t, from_numpy(t.numpy())]) gives copies that share no storage")
assert bytes_apart(*copy.deepcopy([t, torch.from_dlpack(t)])), (
    "deepcopy([t, from_dlpack(t)]) gives copies that share no storage")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 t 指向存储 S1 上的张量对象；items[0] 和 items[1] 指向存储 S2 上的同一个张量对象；items[2] 指向 S2 上的另一个张量对象。
#
#    ``items[0]`` 和 ``items[1]`` 是同一个张量对象；``items[2]`` 与它共享存储 ``S2``；``t`` 仍用自己的存储 ``S1``。

draw_memory("items = copy.deepcopy([t, t, t[1:]])", t=t, **{f"items[{i}]": item for i, item in enumerate(items)})

# %%
# ``Parameter`` 的深拷贝是用克隆做的：副本只含这个参数自己的元素，偏移量为 0；共享同一块存储的两个参数，拷贝后各有各的存储。

base = torch.arange(10.0)
first, second = torch.nn.Parameter(base[0:2]), torch.nn.Parameter(base[1:3])
pair = copy.deepcopy([first, second])
print("pair[0] storage bytes:", pair[0].untyped_storage().nbytes(), " storage_offset:", pair[0].storage_offset())
print("pair[1] storage bytes:", pair[1].untyped_storage().nbytes(), " storage_offset:", pair[1].storage_offset())
print("second.storage_offset():", second.storage_offset())
print("same storage (first, second):", same_storage(first, second))
print("same storage (pair[0], pair[1]):", same_storage(pair[0], pair[1]))
assert pair[0].untyped_storage().nbytes() == 8 and bytes_apart(pair[0], pair[1]), "a Parameter's copy loses the sharing"
# sphinx_gallery_start_ignore
assert same_storage(first, second) and pair[1].storage_offset() == 0, "the sources shared one storage"
assert torch.equal(pair[1], second) and type(pair[1]) is torch.nn.Parameter, "the copy has the values"
# sphinx_gallery_end_ignore

# %%
# 浅拷贝 ``copy.copy`` 不复制内存
# -------------------------------
#
# 对这里的检查试过的每种默认 ``torch.strided`` 布局的张量（``float32``、``int64`` 和 ``bool`` 张量，视图，共轭视图，``meta`` 张量，``Parameter``，叶子张量，非叶子张量），``copy.copy(t)`` 都返回一个新的张量对象，但用的是同一块内存：改其中一个，另一个也跟着变（``meta`` 张量没有数值可改）。它不能用来保存数值快照。它也不是对每个张量都能用：对 mkldnn 张量（``to_mkldnn()``），``copy.copy`` 会抛出 ``NotImplementedError``；对某些 dtype 的 CPU 张量，其中有 ``float8_e4m3fn``、``float8_e5m2``、``uint16`` 和 ``uint32``，它会抛出 ``AttributeError``。:fact:`copy-copy-raises-on-some-tensors`\ 在 ``torch.inference_mode()``
# 之外调用时，对这里的检查试过的每种张量（``float32``、``int64`` 和 ``bool`` 张量，视图，共轭视图，``meta`` 张量和稀疏张量，``Parameter``，叶子张量，非叶子张量），它都让新对象有自己的版本计数器（version counter）；默认 ``torch.strided`` 布局的嵌套张量是例外：它的副本是它的视图（``_base`` 就是源张量），与它共享版本计数器。这里通过 ``shallow`` 写入，``shallow._version``
# 增加，``t._version`` 仍是 0。写入之前，副本的计数器已经是 1（并非每种张量都如此：例如 ``Parameter``、``meta`` 张量和稀疏张量的副本就从 0 开始），所以这次写入表现为加 1。

t = torch.zeros(3)
shallow = copy.copy(t)
versions_before = (t._version, shallow._version)
shallow[0] = 7.0
print("t:", t)
print("shallow:", shallow)
print("shallow is t:", shallow is t, " same storage:", same_storage(t, shallow))
print("(t._version, shallow._version) before the write:", versions_before, " after:", (t._version, shallow._version))
assert same_storage(t, shallow) and t[0] == 7.0, "copy.copy must share memory with its source"
# sphinx_gallery_start_ignore
assert shallow is not t, "copy.copy must return another object"
assert t._version == versions_before[0] == 0 and shallow._version == versions_before[1] + 1, (
    "the write through shallow moved its own counter by one, not t's")
assert versions_before[1] == 1, "copy.copy's result reads version 1 before any write"
assert all(copy.copy(torch.nn.Parameter(torch.ones(3), requires_grad=flag))._version == 0 for flag in (True, False)), (
    "copy.copy of a Parameter starts at version 0")
zero_start = (torch.zeros(3, device="meta"), torch.ones(3).to_sparse())
assert all(copy.copy(source_)._version == 0 for source_ in zero_start), (
    "copy.copy of a meta tensor or of a sparse tensor starts at version 0")
with torch.inference_mode():
    inference_source = torch.zeros(3)
counted_sources = {
    "float tensor": torch.zeros(3),
    "integer tensor": torch.arange(3),
    "bool tensor": torch.ones(3, dtype=torch.bool),
    "view of a tensor that needs no grad": torch.arange(6.0)[1:],
    "conjugate view": torch.ones(3, dtype=torch.complex64).conj(),
    "meta tensor": torch.zeros(3, device="meta"),
    "sparse tensor": torch.ones(3).to_sparse(),
    "Parameter that needs no grad": torch.nn.Parameter(torch.ones(3), requires_grad=False),
    "leaf": torch.ones(3, requires_grad=True),
    "non-leaf": torch.ones(3, requires_grad=True) * 2,
}
for kind, counted in counted_sources.items():
    counted_twin = copy.copy(counted)
    counted_counters = shared_counters([counted, counted_twin])
    assert counted_counters[id(counted)] != counted_counters[id(counted_twin)], (
        f"copy.copy of a {kind} has a version counter of its own")
    assert counted.layout != torch.strided or (counted_twin is not counted and same_storage(counted_twin, counted) and (
        counted_twin.data_ptr(), counted_twin.stride(), counted_twin.shape) == (
        counted.data_ptr(), counted.stride(), counted.shape)), (
        f"copy.copy of a {kind} is another object on the same elements of the same memory")
try:
    copy.copy(torch.arange(4.0).reshape(2, 2).to_mkldnn())
except NotImplementedError:
    pass
else:
    raise AssertionError("copy.copy of an mkldnn tensor must raise NotImplementedError")
refused_dtypes_ = {"float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2, "uint16": torch.uint16,
                   "uint32": torch.uint32}
for refused_name_, refused_dtype_ in refused_dtypes_.items():
    try:
        copy.copy(torch.empty(2, dtype=refused_dtype_))
    except AttributeError:
        pass
    else:
        raise AssertionError(f"copy.copy of a CPU tensor of dtype {refused_name_} must raise AttributeError")
# 嵌套张量还是原型功能：构造 strided 布局的嵌套张量会发出警告，所以这里忽略它。
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    strided_nested_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
    nested_counters_ = shared_counters([strided_nested_, copy.copy(strided_nested_)])
assert strided_nested_.layout == torch.strided and len(nested_counters_) == 2 and len(
    set(nested_counters_.values())) == 1, "copy.copy of a strided nested tensor shares its source's version counter"
assert copy.copy(strided_nested_)._base is strided_nested_, "copy.copy of a strided nested tensor is a view of it"
assert not copy.copy(inference_source).is_inference() and copy.copy(inference_source)._version >= 0, (
    "copy.copy of an inference tensor, outside the mode, is a normal tensor with a version counter")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 t 和 shallow 指向同一块存储 S1 上的两个张量对象，值都是 7.0、0.0、0.0；t 的版本计数器是 C1，shallow 的是 C2。
#
#    两个张量对象共享一块存储 ``S1``：通过 ``shallow`` 的写入也在 ``t`` 里。两者各有自己的版本计数器，``C1`` 和 ``C2``。

draw_memory("shallow = copy.copy(t); shallow[0] = 7.0", t=t, shallow=shallow)

# %%
# 所以 ``copy.copy`` 得到的新对象不只是原来那个张量的另一个名字：下面对需要梯度的叶子张量 ``a`` 调用 ``copy.copy(a)``。对默认 ``torch.strided``
# 布局、需要梯度的张量，只要它和它的副本都在 ``torch.inference_mode()`` 之外创建，``copy.copy``
# 得到的还是一个独立的叶子张量，起初没有 ``.grad``：经过它反向传播，梯度只写进它自己的
# ``.grad``，``a.grad`` 不受影响；通过它原地（in-place）修改，会改变 ``a`` 的数值，``a._version`` 却不动。strided 布局的嵌套张量又是一个例外：它的副本是带 ``grad_fn`` 的视图，源张量被保存之后再经副本这样修改，反向传播会报错。其他布局也不一样：例如需要梯度的 COO 稀疏张量（``Parameter`` 除外），它的副本根本不需要梯度。
# :fact:`copy-copy-of-strided-nested-shares-counter`
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(a * a).sum().backward()
c = copy.copy(a)
print("c.is_leaf:", c.is_leaf, " c.requires_grad:", c.requires_grad, " c.grad:", c.grad)
(c * 3).sum().backward()
print("c.grad:", c.grad, " a.grad:", a.grad)
with torch.no_grad():
    c.add_(1)
print("a:", a, " a._version:", a._version)
assert torch.equal(c.grad, torch.full((3,), 3.0)) and torch.equal(a.grad, torch.tensor([2.0, 4.0, 6.0])), (
    "the backward pass through c fills c.grad and leaves a.grad as it was"
)
# sphinx_gallery_start_ignore
assert same_storage(a, c) and a._version == 0 and torch.equal(a.detach(), torch.tensor([2.0, 3.0, 4.0])), (
    "the edit through c is in a's memory, and a's counter does not see it"
)
for kind in ("leaf", "Parameter", "non-leaf", "view", "meta tensor", "conjugate view"):
    for grad_enabled_ in (True, False):
        origin_ = (torch.nn.Parameter(torch.ones(4)) if kind == "Parameter"
                   else torch.ones(4, device="meta", requires_grad=True) if kind == "meta tensor"
                   else torch.ones(4, dtype=torch.complex64, requires_grad=True) if kind == "conjugate view"
                   else torch.ones(4, requires_grad=True))
        source = {"non-leaf": origin_ * 2, "view": origin_[1:], "conjugate view": origin_.conj()}.get(kind, origin_)
        with torch.set_grad_enabled(grad_enabled_):
            twin_ = copy.copy(source)
        assert source.layout == torch.strided and twin_.is_leaf and twin_.grad_fn is None and twin_.requires_grad and (
            twin_.grad is None), f"copy.copy of a {kind}, in grad mode or under no_grad, is a leaf with no .grad"
        assert same_storage(twin_, source), f"copy.copy of a {kind} shares its memory"
        counters_ = shared_counters([source, twin_])
        assert counters_[id(source)] != counters_[id(twin_)], f"copy.copy of a {kind} has a version counter of its own"
        twin_.abs().sum().backward()
        assert twin_.grad is not None and origin_.grad is None, f"gradients through copy.copy of a {kind} stop there"
with torch.inference_mode():
    inference_leaf_ = torch.ones(3, requires_grad=True)
inference_twin_ = copy.copy(inference_leaf_)
inference_twin_.sum().backward()
assert inference_twin_.is_leaf and inference_twin_.grad is not None and inference_leaf_.grad is None, (
    "outside torch.inference_mode(), copy.copy of an inference tensor that requires grad is a leaf with its own .grad")
coo_indices_ = torch.tensor([[0, 1], [1, 0]])
for coo_kind_ in ("leaf", "non-leaf"):
    for grad_enabled_ in (True, False):
        coo_leaf_ = torch.sparse_coo_tensor(coo_indices_, torch.tensor([2.0, 3.0]), (2, 2), requires_grad=True,
                                            check_invariants=True)
        coo_source_ = coo_leaf_ * 2 if coo_kind_ == "non-leaf" else coo_leaf_
        with torch.set_grad_enabled(grad_enabled_):
            coo_twin_ = copy.copy(coo_source_)
        assert coo_source_.requires_grad and not coo_twin_.requires_grad, (
            f"copy.copy of a sparse COO {coo_kind_} that requires grad does not require grad")
assert copy.copy(torch.nn.Parameter(torch.sparse_coo_tensor(coo_indices_, torch.ones(2), (2, 2),
                                                                       check_invariants=True))).requires_grad, (
    "copy.copy of a sparse COO Parameter requires grad")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    nested_source_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], requires_grad=True)
nested_twin_ = copy.copy(nested_source_)
assert nested_twin_._base is nested_source_ and not nested_twin_.is_leaf and nested_twin_.grad_fn is not None, (
    "copy.copy of a strided nested tensor that requires grad is a view of it with a grad_fn")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``copy.deepcopy`` 只能复制叶子张量（也不是每个叶子张量都行：默认 ``torch.strided`` 布局的嵌套张量、CSR、CSC、BSR 或 BSC 稀疏张量和 mkldnn 张量会抛出 ``NotImplementedError``，普通 ``torch.Tensor`` 子类的实例会抛出 ``RuntimeError``）；模块里存了非叶子张量，就应改在 ``forward`` 里计算它，而且不要存到模块上：detach
# 后存下的张量虽然能深拷贝，却是常量，梯度不会经过它传到 ``scale``。深拷贝得到新的内存；普通张量的副本带着
# ``.grad``，``Parameter`` 的副本则不带；``backward(create_graph=True)`` 让普通张量的 ``.grad`` 带上 ``grad_fn`` 之后，``deepcopy`` 则会报错。对不带共轭位或负号位的普通 CPU 张量，拷贝视图会复制背后的整块存储，同一个存储对象上的共享关系也会保留（在 ``meta`` 上则是克隆；经由 NumPy 或 DLPack 得到的别名有自己的存储对象，它的副本什么也不共享）；``Parameter``
# 则是克隆，副本只含它自己的元素，共享同一块存储的两个参数拷贝后各有各的内存。``copy.copy``
# 不复制内存（对 mkldnn 张量和某些 dtype 的 CPU 张量，比如 ``float8_e4m3fn`` 张量，它会报错），却也不是别名：在 ``torch.inference_mode()`` 之外，它有自己的版本计数器（``torch.strided`` 布局的嵌套张量的副本是它的视图，与源张量共享版本计数器）；对默认 ``torch.strided`` 布局、需要梯度的张量（嵌套张量除外），它是一个独立的叶子张量，有自己的
# ``.grad``，经过它的梯度传不到源张量；而 COO 稀疏张量的副本，除非源张量是 ``Parameter``，连梯度都不需要。只想复制单个张量、又不要它的求导历史，就用 ``detach().clone()``，见 :ref:`“最保险的复制”那一页 <copying-safe-copy>`。
