"""
.. _questions-leaf-inplace:

“a leaf Variable that requires grad is being used in an in-place operation”
===========================================================================

.. admonition:: 答案
   :class: answer

   自动求导（autograd）记录运算时，对需要梯度的叶子张量 ``w`` 做 ``w -= ...``、``w[0] = ...`` 或 ``torch.add(..., out=w)`` 会被拒绝（经 ``detach()``、``.data``、``view(dtype)`` 等写入则不会）。把更新放进 ``torch.no_grad()``：

   .. code-block:: python

      with torch.no_grad():
          w -= lr * w.grad

手写一步参数更新 ``w -= lr * w.grad``，程序报错，停在 ``RuntimeError: a leaf Variable that requires grad is being
used in an in-place operation``。只改权重的某一行（``layer.weight[0] = 0.0``），得到的是它的变体 ``RuntimeError: a view of a leaf Variable that
requires grad is being used in an in-place operation``。本页先复现这两条报错，再介绍有意修改参数的几种正确做法：``torch.no_grad()``、``copy_``，形状要变时换一个新层（而不是用 ``torch.utils.swap_tensors``），并说明为什么
``.data`` 也能用，却一声不吭。它回答的是 PR `pytorch/examples#779
<https://github.com/pytorch/examples/pull/779>`__ 背后的问题。
"""

# %%
# 辅助函数
# --------
#
# ``show`` 打印张量，以及它的自动求导标志和版本计数器（version counter）。
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
# 现象：手写 SGD 的一步
# ---------------------
#
# ``w`` 是需要梯度的叶子张量（leaf tensor）：``backward()`` 把它的梯度存进 ``w.grad``。对 ``L = (w**2).sum()``，梯度是
# ``2 * w``。照着公式写出的更新 ``w -= lr * w.grad`` 是对 ``w`` 的原地（in-place）减法，自动求导在记录计算图时拒绝执行。
lr = 0.1
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w**2).sum().backward()
show("w", w)
print("w.grad:", w.grad)
try:
    w -= lr * w.grad
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a leaf that requires grad must raise")
show("w", w)
assert message == "a leaf Variable that requires grad is being used in an in-place operation.", (
    "the error is torch's 'a leaf Variable that requires grad is being used ...'")
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.tensor([2.0, 4.0])), "the gradient of sum(w**2) is 2w"
assert w._version == 0, "the refused edit did not happen"
# sphinx_gallery_end_ignore

# %%
# 变体：“a view of a leaf Variable”
# ---------------------------------
#
# 修改权重的局部，比如把某一行清零，改的是叶子张量的视图（view）：``w[0]`` 是一个视图，报错也如实说明了这一点。
layer = torch.nn.Linear(3, 2)
try:
    layer.weight[0] = 0.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a view of a leaf must raise")
assert message == "a view of a leaf Variable that requires grad is being used in an in-place operation.", (
    "the error is torch's 'a view of a leaf Variable that requires grad ...'")

# %%
# 解决办法一：``torch.no_grad()``
# -------------------------------
#
# 参数更新不属于模型本身，本来就不该被记录。在 ``torch.no_grad()`` 下，同一行代码可以执行：``w`` 仍是叶子张量，没有
# ``grad_fn``；它的版本计数器照常加一，所以保存了 ``w`` 的计算图依然能发现这次修改，除非计算图经由保存张量的钩子（saved tensors hooks）保存它，或自定义
# ``Function`` 把它存成了属性，或者保存它的自定义 ``Function`` 的 ``backward`` 从不读取 ``ctx.saved_tensors`` 属性（见
# :ref:`“.data 与 no_grad”那一页 <questions-data-vs-no-grad>`）。

# sphinx_gallery_start_ignore
saved_w_square = (w * w).sum()  # mul 保存了 w
# sphinx_gallery_end_ignore
with torch.no_grad():
    w -= lr * w.grad
show("w", w)
assert w.is_leaf and w.grad_fn is None and w._version == 1, "an unrecorded edit that the counter sees"
# sphinx_gallery_start_ignore
try:
    torch.autograd.grad(saved_w_square, w)
except RuntimeError as e:
    assert "is at version 1; expected version 0" in str(e), "the graph that saved w notices the no_grad edit"
else:
    raise AssertionError("a graph that saved w must notice the edit under no_grad")
assert torch.allclose(w, torch.tensor([0.8, 1.6])), "w - lr * 2w"
assert w.requires_grad, "w still requires grad"
# sphinx_gallery_end_ignore

# %%
# 这一步的结果正是按求导公式应得的 ``w - 0.1 * 2 * w = 0.8 * w``。下一次 ``backward()``
# 也能在更新后的叶子张量上正常运行（先把 ``w.grad`` 清空，因为梯度会累加）。
w.grad = None
(w**2).sum().backward()
print("w.grad:", w.grad)
assert torch.allclose(w.grad, 2 * torch.tensor([0.8, 1.6])), "the next gradient is 2w at the new w"

# %%
# 解决办法二：用 ``copy_`` 或 ``nn.init`` 修改权重
# ------------------------------------------------
#
# 要把参数设成给定的值，就在 ``no_grad`` 下把值复制进去。参数还是原来那个对象、那块存储，持有它的优化器也就能看到新值。``torch.nn.init``
# 里的函数会自己处理 ``no_grad``。
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
weight = layer.weight
# sphinx_gallery_start_ignore
weight_memory = layer.weight.untyped_storage().data_ptr()
# sphinx_gallery_end_ignore
with torch.no_grad():
    layer.weight.copy_(torch.ones(2, 3))
    layer.weight[0] = 0.0
torch.nn.init.zeros_(layer.bias)
show("layer.weight", layer.weight)
show("layer.bias", layer.bias)
print("same object as before:", layer.weight is weight)
print("the optimizer holds it:", opt.param_groups[0]["params"][0] is layer.weight)
assert layer.weight is weight and torch.equal(layer.weight, torch.tensor([[0.0] * 3, [1.0] * 3])), (
    "layer.weight is the same object, with row 0 zeros and row 1 ones"
)
# sphinx_gallery_start_ignore
assert layer.weight.is_leaf and layer.bias.is_leaf, "after the edits layer.weight and layer.bias are still leaves"
assert layer.weight.untyped_storage().data_ptr() == weight_memory, "the parameter keeps its storage"
assert opt.param_groups[0]["params"][0] is layer.weight, "the optimizer holds the edited parameter"
assert torch.equal(layer.bias, torch.zeros(2)), "nn.init.zeros_ needs no no_grad"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 layer.weight 和 weight 指向同一个张量对象，它在一块存储 S1 上，_version=3。
#
#    ``layer.weight`` 和 ``weight`` 指向同一个张量对象，用的是同一块存储 ``S1``：优化器持有的正是被修改的那个对象。

draw_memory("layer.weight.copy_(...) under no_grad", **{"layer.weight": layer.weight, "weight": weight})
# sphinx_gallery_start_ignore
assert layer.weight._version == 3, "initialisation, copy_ and the item assignment each moved the counter"
# sphinx_gallery_end_ignore

# %%
# ``torch.nn.init`` 里每个公开的原地函数（名字以 ``_`` 结尾），在梯度模式（grad mode）下用在 CPU 上需要梯度、非空的 float32 叶子张量（这里试的就是这样的张量）上都不会报错，用完后它仍是叶子张量，没有 ``grad_fn``，版本号则增加了：这些函数都不会被记录。每个函数拿到的是一个二维张量，只有只接受 3 到 5 维的 ``dirac_`` 拿到的是三维张量；``constant_`` 和 ``sparse_`` 另外拿到各自必需的一个参数（一个值、一个稀疏度）。最后一行的 ``grad mode on`` 表示梯度模式是否开启。

extra_args = {"constant_": (0.5,), "sparse_": (0.5,)}
init_names = [name for name in dir(torch.nn.init) if name.endswith("_") and not name.startswith("_")]
initialised = {}
for name in init_names:
    target = torch.empty((3, 4, 5) if name == "dirac_" else (3, 4), requires_grad=True)
    getattr(torch.nn.init, name)(target, *extra_args.get(name, ()))
    initialised[name] = (target.is_leaf, target.grad_fn, target._version)
    print(f"{name:16} is_leaf={target.is_leaf}  grad_fn={target.grad_fn}  _version moved: {target._version > 0}")
print("grad mode on:", torch.is_grad_enabled())
assert torch.is_grad_enabled() and all(leaf and fn is None and v > 0 for leaf, fn, v in initialised.values()), (
    "every public nn.init function edits a non-empty float32 CPU leaf that requires grad in grad mode, unrecorded")

# %%
# 形状要变：换一个新层，而不是交换张量
# ------------------------------------
#
# ``copy_`` 改不了稠密张量的形状：不能广播成这个形状的源张量会抛出 ``RuntimeError``。:fact:`copy-keeps-destination-shape`
# ``torch.utils.swap_tensors`` 也不该拿来改形状：它交换两个张量对象所含的一切（形状、数值，连同它们的类），对象之外的东西一概不碰。下面这个有 2 个输出的层已经用 Adam 走了一步；换进 ``(4, 3)`` 的权重和 ``(4,)``
# 的偏置之后，``out_features`` 仍是 2，Adam 为这个权重保存的状态仍是 ``(2, 3)``，下一次 ``step()``
# 就会报错。所以 ``swap_tensors`` 只适合形状不变的交换。
torch.manual_seed(0)
inputs, target = torch.randn(8, 3), torch.randn(8, 4)
old = torch.nn.Linear(3, 2)
opt_old = torch.optim.Adam(old.parameters(), lr=0.1)
old(inputs).pow(2).mean().backward()
opt_old.step()
old_weight, old_bias = old.weight[:2].detach().clone(), old.bias[:2].detach().clone()
torch.utils.swap_tensors(old.weight, torch.nn.Parameter(torch.zeros(4, 3)))
torch.utils.swap_tensors(old.bias, torch.nn.Parameter(torch.zeros(4)))
print("old.weight:", tuple(old.weight.shape), " old.out_features:", old.out_features)
print("Adam's exp_avg for old.weight:", tuple(opt_old.state[old.weight]["exp_avg"].shape))
# sphinx_gallery_start_ignore
assert all(tuple(opt_old.state[old.weight][key].shape) == (2, 3) for key in ("exp_avg", "exp_avg_sq")), (
    "the swap leaves Adam's state for the weight at (2, 3)")
# sphinx_gallery_end_ignore
opt_old.zero_grad()
torch.nn.functional.mse_loss(old(inputs), target).backward()
try:
    opt_old.step()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("Adam's step after a swap that changed the shape must raise")
# sphinx_gallery_start_ignore
swapped_a, swapped_b = torch.nn.Parameter(torch.zeros(2)), torch.ones(3)
torch.utils.swap_tensors(swapped_a, swapped_b)
assert type(swapped_a) is torch.Tensor and type(swapped_b) is torch.nn.Parameter, "the class is swapped too"
assert torch.equal(swapped_a, torch.ones(3)) and torch.equal(swapped_b, torch.zeros(2)), "the values are swapped"
assert swapped_a.shape == (3,) and old.out_features == 2, "the shape is swapped; the module is untouched"
# sphinx_gallery_end_ignore

# %%
# 要把一层从 2 个输出扩到 4 个，就新建一个 ``Linear(3, 4)``，在 ``torch.no_grad()``
# 下把学到的那几行复制进去，再给它一个新的优化器：新优化器的状态从空开始，形状也是新的。在同一批数据上走几步
# Adam，可以看到它能正常训练。（上一个单元格里的随机种子固定了这批随机数据和各层的初始权重。）
grown = torch.nn.Linear(3, 4)
with torch.no_grad():
    grown.weight[:2] = old_weight
    grown.bias[:2] = old_bias
opt = torch.optim.Adam(grown.parameters(), lr=0.1)
losses = []
for _ in range(5):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(grown(inputs), target)
    loss.backward()
    opt.step()
    losses.append(round(loss.item(), 4))
print("grown:", grown)
print("losses:", losses)
assert losses[-1] < losses[0] and tuple(opt.state[grown.weight]["exp_avg"].shape) == (4, 3), (
    "grown trains: the loss falls, and Adam's exp_avg has shape (4, 3)")

# %%
# 另外四条路：克隆、``out=``、``detach()`` 和 ``view(dtype)``
# -----------------------------------------------------------
#
# 如果这次修改本身属于计算的一部分，梯度应当穿过它，那就修改叶子张量的克隆，而不是叶子张量本身。克隆不是叶子张量，可以原地修改；梯度经由修改没有碰到的元素回到 ``w``，被覆盖的那个元素梯度为 0。

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
edited = w.clone()
edited[0] = 5.0
(edited * edited).sum().backward()
print("w.grad through the edited clone:", w.grad)
assert torch.equal(w.grad, torch.tensor([0.0, 4.0, 6.0])), "2 * w where the clone kept w, 0 where the edit wrote"


# %%
# 在梯度模式下，只要某个参数或输出需要梯度，``torch.add`` 和 ``torch.mul`` 就会拒绝 ``out=`` 参数，报的是另一条报错信息；下面每个函数都会报这个错：``w`` 同时作参数和输出时、只作输出时，以及只作参数时（这时输出是不需要梯度的 ``plain_out``）。在 ``torch.no_grad()`` 下，同样的调用会写进叶子张量，和第一种解决办法相同。并非每个函数都拒绝：少数组合函数，例如下面的 ``torch.tensordot``，在梯度模式下也接受 ``out=``，把这次写入记录成一次复制。``torch.tensordot`` 仍然拒绝以需要梯度的叶子张量作 ``out=``：``w`` 的形状和结果不同，``scalar_leaf`` 和结果一样是 0 维的叶子张量，``out=w`` 和 ``out=scalar_leaf`` 都会报错，后者报的正是上面那条叶子张量的报错。

plain_out = torch.empty(3)
for name, call in {
    "torch.add(w, 1, out=w)": lambda: torch.add(w, 1, out=w),
    "torch.mul(w, 2, out=w)": lambda: torch.mul(w, 2, out=w),
    "torch.add(torch.ones(3), 1, out=w)": lambda: torch.add(torch.ones(3), 1, out=w),
    "torch.mul(torch.ones(3), 2, out=w)": lambda: torch.mul(torch.ones(3), 2, out=w),
    "torch.add(w, 1, out=plain_out)": lambda: torch.add(w, 1, out=plain_out),
    "torch.mul(w, 2, out=plain_out)": lambda: torch.mul(w, 2, out=plain_out),
}.items():
    try:
        call()
    except RuntimeError as e:
        out_message = str(e)
        print(f"{name}: {type(e).__name__}: {out_message}")
        assert "functions with out=... arguments don't support automatic differentiation" in out_message, (
            f"{name} is refused: a function with out= does not support automatic differentiation"
        )
    else:
        raise AssertionError(f"{name} must raise in grad mode")
with torch.no_grad():
    torch.add(w, 1, out=w)
print("after torch.add(w, 1, out=w) under torch.no_grad(): w =", w)
assert torch.equal(w.detach(), torch.tensor([2.0, 3.0, 4.0])), "under no_grad the out= write reaches the leaf"
composite_out = torch.empty(())
torch.tensordot(w, torch.ones(3), dims=1, out=composite_out)
print("torch.tensordot(w, torch.ones(3), dims=1, out=composite_out):", composite_out)
assert type(composite_out.grad_fn).__name__ == "CopyBackwards", "tensordot records the out= write as a copy"
scalar_leaf = torch.tensor(0.0, requires_grad=True)
for name, leaf in {"w": w, "scalar_leaf": scalar_leaf}.items():
    try:
        torch.tensordot(w, torch.ones(3), dims=1, out=leaf)
    except RuntimeError as e:
        out_message = str(e)
        print(f"torch.tensordot(w, torch.ones(3), dims=1, out={name}): {type(e).__name__}: {out_message}")
    else:
        raise AssertionError(f"tensordot with out={name}, a leaf that requires grad, must raise")
assert out_message == "a leaf Variable that requires grad is being used in an in-place operation.", (
    "with out=scalar_leaf, of its result's shape, tensordot gives the leaf error")


# %%
# 通过 ``w.detach()`` 写入，即使在梯度模式下也不报错，写入会落到 ``w`` 上。``detach()`` 共享版本计数器，所以这次写入会让它前进，保存了 ``w`` 的计算图会拒绝执行 ``backward()``；除此之外，自动求导对这次修改一无所知。

saved = w * w  # mul 保存了 w
before = w._version
w.detach()[0] = 7.0
print("after w.detach()[0] = 7:", w, " w._version moved:", w._version == before + 1)
assert w[0].item() == 7.0 and w._version == before + 1, "the write reached w and moved its counter"
try:
    saved.sum().backward()
except RuntimeError as e:
    print(f"backward() through the saved w: {type(e).__name__}: ...{str(e)[str(e).index('is at version'):str(e).index(' instead')]}")
else:
    raise AssertionError("the edit through detach() must make backward() raise")

# %%
# ``view`` 的 dtype 形式，比如 ``w.view(torch.int32)``，在自动求导看来不是视图：它不需要梯度，也没有 ``grad_fn``。经由它写入，无论 dtype 相同还是不同，在梯度模式下同样不会被拒绝，自动求导也不记录这次写入；和 ``detach()`` 一样，它会让 ``w`` 的版本计数器前进。

as_int = w.view(torch.int32)
print("w.view(torch.int32): requires_grad", as_int.requires_grad, " grad_fn", as_int.grad_fn)
before = w._version
w.view(torch.float32)[1] = 8.0
as_int[2] = 0
print("after w.view(torch.float32)[1] = 8 and as_int[2] = 0:", w, " w._version moved by", w._version - before)
assert torch.is_grad_enabled() and not as_int.requires_grad and as_int.grad_fn is None, "view(dtype) is not recorded"
assert w.tolist() == [7.0, 8.0, 0.0] and w.is_leaf and w._version == before + 2, (
    "both writes reached the leaf w, which stays a leaf, and each moved its counter")

# %%
# 为什么 ``.data`` 也能用，却一声不吭
# -----------------------------------
#
# 上面那个 PR 最终合并的改动是 ``p.data.add_(...)``。它能运行，因为 ``p.data`` 是一个在自动求导之外的张量。但它也有自己独立的版本计数器，所以这次修改不会让
# ``p._version`` 增加：保存了 ``p`` 的计算图察觉不到，算出的梯度可能悄悄出错（见 :ref:`“.data”那一页 <data-vs-detach-data>`）。像解决办法一那样在
# ``no_grad`` 下直接修改 ``p`` 本身，计数器则会增加。
p = torch.tensor([1.0, 2.0], requires_grad=True)
# sphinx_gallery_start_ignore
saved_p_square = (p * p).sum()  # mul 保存了 p；在 p = [1, 2] 处的梯度是 [2, 4]
# sphinx_gallery_end_ignore
p.data.mul_(10)
print("after p.data.mul_(10):        p._version =", p._version)
# sphinx_gallery_start_ignore
assert p._version == 0, "the edit through p.data left p._version at 0"
assert torch.equal(torch.autograd.grad(saved_p_square, p)[0], torch.tensor([20.0, 40.0])), (
    "the graph that saved p does not notice the edit through p.data: its gradient is 2p at the edited p")
# sphinx_gallery_end_ignore
with torch.no_grad():
    p.mul_(10)
print("after no_grad(): p.mul_(10):  p._version =", p._version)
show("p", p)
assert p._version == 1, "the edit of p itself under no_grad moved the counter"

# %%
# 直接写入 ``w`` 的存储也不会被拒绝，即使在梯度模式下、不经过 ``detach()``：经由 ``w.untyped_storage()``，经由
# ``torch.from_dlpack`` 从 ``torch.utils.dlpack.to_dlpack(w)`` 得到的张量，或经由 ``w.numpy(force=True)`` 返回的数组。和经由 ``.data`` 的修改一样，三者都不会让 ``w._version`` 增加。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w.untyped_storage().fill_(0)
print("after w.untyped_storage().fill_(0):", w, " w._version =", w._version)
torch.from_dlpack(torch.utils.dlpack.to_dlpack(w))[0] = 9.0
print("after a write through to_dlpack(w):", w, " w._version =", w._version)
w.numpy(force=True)[1] = 7.0
print("after w.numpy(force=True)[1] = 7.0:", w, " w._version =", w._version)
assert torch.is_grad_enabled() and w.is_leaf and w.tolist() == [9.0, 7.0, 0.0] and w._version == 0, (
    "the three writes reached the leaf w in grad mode, unrefused, and left w._version at 0")

# %%
# 小结
# ----
#
# 自动求导记录计算图时，对需要梯度的叶子张量 ``w`` 做 ``w -= ...``、``w[0] = ...``，或给 ``torch.add`` 或 ``torch.mul`` 传 ``out=w``，都会被拒绝；经由 ``detach()``、``.data``、``view(dtype)`` 或 ``w`` 的存储（``untyped_storage()``、``torch.utils.dlpack.to_dlpack``、``numpy(force=True)``）等途径写入则不会。要修改它，就放在 ``torch.no_grad()`` 下（``w -= lr * w.grad``、``copy_``、按下标赋值），或者用
# ``torch.nn.init`` 里的函数。要改形状，就新建一层，复制要保留的部分，再新建优化器；``torch.utils.swap_tensors``
# 只适合形状不变的交换。``.data`` 和直接写入存储也行，但它们让版本计数器看不到这次修改。
