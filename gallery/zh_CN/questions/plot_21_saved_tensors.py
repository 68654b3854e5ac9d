"""
.. _questions-saved-tensors:

哪种原地操作会让 ``backward()`` 报错：看运算保存了什么
======================================================

.. admonition:: 答案
   :class: answer

   某个运算为反向传播保存的张量，若被自动求导（autograd）看得见的原地操作改过，``backward()`` 一运行到这个运算就报错（例外见下文）。``exp`` 保存输出，``sin`` 保存输入，``mul`` 保存另一个操作数，``add`` 什么都不保存。把结果写成新张量：

   .. code-block:: python

      y = a.exp()
      y = y + 1
      loss.backward()

同样是 ``y += 1``，接在 ``y = a.exp()`` 后面，``backward()`` 会报“modified by an inplace
operation”；接在 ``y = a.sin()`` 后面却安然无事。例外有：经由保存张量的钩子（saved tensors hooks）保存的张量；被自定义 ``Function`` 存成 ``ctx`` 属性的张量；被自定义 ``Function`` 保存，但它的 ``backward`` 从不读取 ``ctx.saved_tensors`` 的张量。本页先读出每个运算保存了什么（输入、输出、两者都有，或者什么都没有），再用 ``saved_tensors_hooks`` 亲眼看一看，然后逐个检查常见运算：原地（in-place）修改哪个张量会让 ``backward()``
报错；最后看保存时复制一份、``torch.utils.checkpoint`` 和 ``retain_graph`` 各自改变了什么。更多运算的实测结果见 :doc:`《各操作保存了哪些张量》 </saved>`。
"""

# %%
# 辅助函数
# --------
#
# ``breaks(op, edit)`` 每次新建两个乘法结果 ``a`` 和 ``b``，就像模型里的激活值；然后运行
# ``y = op(a, b)``，再原地修改 ``a``、``b`` 或 ``y`` 之一，返回随后的 ``backward()`` 是否报错。

import warnings

import torch
from torch.autograd.graph import saved_tensors_hooks
from torch.utils.checkpoint import checkpoint


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def breaks(op, edit):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a, b = x * 2, x * 3
    y = op(a, b)
    {"a": a, "b": b, "y": y}[edit].mul_(2)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return "modified by an inplace operation" in str(e)
    return False


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
# ``a`` 代表模型里的一个激活值：对权重 ``x`` 做一次运算得到的结果。对 ``exp(a)`` 原地加一，``backward()``
# 就报错；对 ``sin(a)`` 做同样的事，它却照常运行，梯度也与按求导公式算出的
# ``d/dx sum(sin(2x) + 1) = 2 cos(2x)`` 一致。

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
a = x * 2
y = a.exp()
y += 1
try:
    y.sum().backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after an in-place edit of exp's output must raise")
s = a.sin()
s += 1
s.sum().backward()
print("x.grad:", x.grad)
assert torch.allclose(x.grad, 2 * torch.cos(2 * x.detach())), "the edit of sin's output left the gradient right"

# %%
# 节点保存了什么
# --------------
#
# 结果背后的节点（它的 ``grad_fn``）把求梯度要用的东西存在以 ``_saved_`` 开头的属性里。这些属性和
# ``_version`` 一样是 torch 的内部细节，不同版本之间可能会变。``exp`` 的导数就是它自己，所以
# ``ExpBackward0`` 保存 ``result``，一个与 ``y`` 共享内存的张量；``sin`` 的导数是 ``cos(a)``，所以
# ``SinBackward0`` 保存 ``self``，也就是输入 ``a``；``AddBackward0`` 只保存了一个数 ``alpha``。

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
a, b = x * 2, x * 3
nodes = {"exp": a.exp(), "sin": a.sin(), "mul": a * b, "add": a + b}
for name, out in nodes.items():
    print(f"{name}: {out.grad_fn.name()} saved", sorted(k for k in dir(out.grad_fn) if k.startswith("_saved_")))
print("exp's result on y's memory:", same_storage(nodes["exp"].grad_fn._saved_result, nodes["exp"]))
print("sin's self on a's memory:", same_storage(nodes["sin"].grad_fn._saved_self, a))
assert same_storage(nodes["exp"].grad_fn._saved_result, nodes["exp"]), "exp saved its output"
# sphinx_gallery_start_ignore
assert same_storage(nodes["sin"].grad_fn._saved_self, a), "sin saved its input"
assert same_storage(nodes["mul"].grad_fn._saved_self, a), "mul saved its first operand"
assert same_storage(nodes["mul"].grad_fn._saved_other, b), "mul saved its second operand"
assert [k for k in dir(nodes["add"].grad_fn) if k.startswith("_saved_")] == ["_saved_alpha"], "add saved a number"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：exp(a * b) 的计算图。ExpBackward0 保存了自己的结果；a * b 的 MulBackward0 保存了 self 和 other；a = x * 2 和 b = x * 3 的两个 MulBackward0 只保存了 other；它们都通向 AccumulateGrad 和叶子张量 x。
#
#    ``(a * b).exp()`` 的计算图：``ExpBackward0`` 保存了自己的结果，``a * b`` 的
#    ``MulBackward0`` 保存了两个操作数；``a = x * 2`` 和 ``b = x * 3`` 的节点只保存了
#    ``other``，也就是那个常数，因为求它们的梯度用不到 ``x``。

out = (a * b).exp()
draw_graph("out = (a * b).exp()", out, x=x)
# sphinx_gallery_start_ignore
assert out.grad_fn.next_functions[0][0].name() == "MulBackward0", "exp's input came from the multiplication"
assert a.grad_fn._saved_self is None and a.grad_fn._saved_other.item() == 2, "x * 2 saved only the constant"
assert b.grad_fn._saved_self is None and b.grad_fn._saved_other.item() == 3, "x * 3 saved only the constant"
# sphinx_gallery_end_ignore

# %%
# 看看打包了什么
# --------------
#
# ``torch.autograd.graph.saved_tensors_hooks(pack, unpack)`` 会在运算执行时，把它要保存的每个张量交给
# ``pack``，只有运算包装成张量的 Python 数字例外（``x * 2`` 保存它的 ``2`` 时不经过钩子，见 :doc:`《各操作保存了哪些张量》 </saved>`），``backward()`` 再通过 ``unpack`` 取回。几对钩子嵌套时，只有最内层的一对拿得到这些张量：运算在 ``torch.autograd.graph.save_on_cpu()`` 里、在另一个 ``saved_tensors_hooks`` 里，或者在 ``torch.utils.checkpoint`` 运行的函数里保存的张量，外层的 ``pack`` 一个也看不到；从 ``checkpoint`` 那里，它只收到以位置参数传给函数的张量，那是 ``checkpoint`` 自己保存的（以关键字参数传入的不算，只有 ``use_reentrant=False`` 接受关键字参数；放在列表里传入的也不算）。但在 ``use_reentrant=True`` 时（不传这个参数调用 ``checkpoint`` 也是如此），``checkpoint`` 会在 ``backward()`` 期间把函数再运行一遍；``backward()`` 若在外层那对钩子里运行，这第二遍运行保存的张量就会交给外层的 ``pack``。记下 ``pack`` 收到的东西，就能用公开的接口看到保存了哪些张量：``exp``
# 收到的就是输出张量 ``y`` 本身，``sin`` 收到的就是输入 ``a`` 本身。:fact:`wrapped-number-saved-outside-hooks`

packed = []
with saved_tensors_hooks(lambda t: packed.append(t) or len(packed) - 1, lambda i: packed[i]):
    y = a.exp()
    s = a.sin()
print("packed:", len(packed), " packed[0] is y:", packed[0] is y, " packed[1] is a:", packed[1] is a)
assert packed[0] is y and packed[1] is a, "exp packed its output, sin its input"
# sphinx_gallery_start_ignore
number_packed = []
with saved_tensors_hooks(lambda t: number_packed.append(t) or t, lambda t: t):
    doubled = torch.ones(3, requires_grad=True) * 2
assert not number_packed and doubled.grad_fn._saved_other.item() == 2, "x * 2 saves its 2 without the hook"
outer_packed, nested_input, unsaved_input = [], torch.ones(3, requires_grad=True) * 2, torch.ones(3, requires_grad=True) * 3
with saved_tensors_hooks(lambda t: outer_packed.append(t) or t, lambda t: t):
    with torch.autograd.graph.save_on_cpu():
        nested_input.exp()
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        nested_input.exp()
    checkpoint(lambda t: t.exp().exp(), nested_input, use_reentrant=False)
    checkpoint(lambda t: t.exp().exp(), nested_input, use_reentrant=True)
    checkpoint(lambda t, *, k: (t * k).exp(), nested_input, k=unsaved_input, use_reentrant=False)
    checkpoint(lambda t, ks: (t * ks[0]).exp(), nested_input, [unsaved_input], use_reentrant=False)
    checkpoint(lambda t, ks: (t * ks[0]).exp(), nested_input, [unsaved_input], use_reentrant=True)
assert len(outer_packed) == 5 and all(t is nested_input for t in outer_packed), (
    "an outer pack gets nothing saved inside save_on_cpu(), an inner pair or a checkpointed function, "
    "only the tensors passed to the checkpointed function as positional arguments (not by keyword or in a list)")


def outer_pack_counts(**checkpoint_options):
    rerun_leaf, rerun_packed = torch.tensor([0.5, -1.0, 2.0], requires_grad=True), []
    with saved_tensors_hooks(lambda t: rerun_packed.append(t) or t, lambda t: t):
        rerun_out = checkpoint(lambda t: t.exp().sin(), rerun_leaf * 2, **checkpoint_options)
        forward_count = len(rerun_packed)
        rerun_out.sum().backward()
    return forward_count, len(rerun_packed) - forward_count


assert outer_pack_counts(use_reentrant=False) == (1, 0), (
    "use_reentrant=False: a backward() inside the outer pair hands it nothing the rerun saves")
assert outer_pack_counts(use_reentrant=True) == (1, 2), (
    "use_reentrant=True: a backward() inside the outer pair hands it what the rerun saves")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # 不传 use_reentrant 的 checkpoint 会发出警告（下文检查）
    assert outer_pack_counts() == (1, 2), "a checkpoint call without use_reentrant runs the reentrant variant"
# sphinx_gallery_end_ignore

# %%
# 原地修改哪个会让 ``backward()`` 报错
# ------------------------------------
#
# 下面逐个检查常见运算：``pack`` 收到了什么（输入 ``a``、``b`` 还是输出 ``y``），以及分别原地修改它们之后
# ``backward()`` 会不会报错。对这些运算来说，被修改的张量保存过就报错，没保存过就不报错。``mul``
# 两个操作数都保存，因为求其中一个的梯度要用到另一个（只有 ``a`` 需要梯度时，``a * c`` 只保存 ``c``）。经
# ``.data`` 的修改，或经共享同一块内存、却不共享版本计数器（version counter）的张量或 NumPy 数组（由 ``torch.from_dlpack``、``torch.from_numpy`` 或 ``.numpy()`` 得到）的修改，自动求导都看不见：保存的输出变了，``backward()`` 照常运行，梯度却是错的（这里是 ``exp(v)`` 的两倍）。

ops = {
    "exp": lambda a, b: a.exp(),
    "sin": lambda a, b: a.sin(),
    "relu": lambda a, b: a.relu(),
    "sigmoid": lambda a, b: a.sigmoid(),
    "tanh": lambda a, b: a.tanh(),
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
}


def saved(op):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a, b, packed = x * 2, x * 3, []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = op(a, b)
    return [name for name, t in {"a": a, "b": b, "y": y}.items() if any(p is t for p in packed)]


for name, op in ops.items():
    edits = {edit: breaks(op, edit) for edit in ("a", "b", "y")}
    print(f"{name:8} saved {saved(op)!s:16} edit breaks backward():", edits)
    assert [edit for edit, broke in edits.items() if broke] == saved(op), f"{name}: an edit breaks it iff saved"
# sphinx_gallery_start_ignore
assert saved(lambda a, b: a * b.detach()) == [], "a * c saved neither a nor the c it was given"
assert (a * torch.ones(3)).grad_fn._saved_self is None, "a * c did not save a"
only_c = torch.ones(3)
assert (a * only_c).grad_fn._saved_other is only_c, "a * c saved c"
assert {name: saved(op) for name, op in ops.items()} == {
    "exp": ["y"], "sin": ["a"], "relu": ["y"], "sigmoid": ["y"], "tanh": ["y"], "mul": ["a", "b"], "add": []
}, "exp, relu, sigmoid and tanh saved their output and not their input; sin its input; mul both; add nothing"
# sphinx_gallery_end_ignore
v = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
v_exp = v.exp()
v_exp.data.mul_(2)
v_exp.sum().backward()
print("edit through .data: v.grad:", v.grad, " exp(v):", v.detach().exp())
assert torch.allclose(v.grad, 2 * v.detach().exp()), "an edit through .data is not caught: the gradient is wrong"
for route in ("torch.from_dlpack", "torch.from_numpy", "the NumPy array"):
    u = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    u_exp = u.exp()
    if route == "torch.from_dlpack":
        torch.from_dlpack(u_exp.detach()).mul_(2)
    elif route == "torch.from_numpy":
        torch.from_numpy(u_exp.detach().numpy()).mul_(2)
    else:
        u_exp.detach().numpy()[:] *= 2
    u_exp.sum().backward()
    print(f"edit through {route}: u.grad:", u.grad)
    assert torch.allclose(u.grad, 2 * u.detach().exp()), f"an edit through {route} is not caught: the gradient is wrong"

# %%
# 在训练循环里检验解决办法
# ------------------------
#
# 下面的循环拟合 ``w``，让 ``exp(w * inputs) + 1`` 接近 ``targets``。写成 ``y += 1``，第一次
# ``backward()`` 就会报错；写成 ``y = y + 1``，``+ 1`` 生成一个新张量，被保存的输出保持原样，每一步的梯度都等于按求导公式算出的
# ``mean(2 (y - targets) exp(w * inputs) inputs)``。

inputs, targets = torch.tensor([0.1, 0.2, 0.3]), torch.tensor([2.2, 2.5, 2.9])
w = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
losses = []
for step in range(3):
    optimizer.zero_grad()
    a = w * inputs
    y = a.exp()
    y = y + 1
    loss = ((y - targets) ** 2).mean()
    loss.backward()
    expected = (2 * (y - targets) * a.exp() * inputs / 3).detach()
    assert torch.allclose(w.grad, expected), f"step {step}: the gradient calculus gives"
    optimizer.step()
    losses.append(round(loss.item(), 4))
print("losses:", losses)
# sphinx_gallery_start_ignore
assert losses == sorted(losses, reverse=True), "the loss goes down"
assert breaks(lambda a, b: a.exp(), "y"), "the in-place form of the same loop raises"
# sphinx_gallery_end_ignore

# %%
# 保存时复制，以及掩盖修改的钩子
# ------------------------------
#
# 钩子也可以替你留住旧值：``pack`` 返回 ``t.clone()``，保存的就是一份副本，原地操作碰不到
# ``backward()`` 要读的东西，梯度也就是对的。``pack`` 如果原样返回 ``t``，既不复制，也不检查：同样的修改悄无声息地通过，梯度却错了，是
# ``2 (exp(2x) + 1)`` 而不是 ``2 exp(2x)``。torch 自带一种会复制的做法，不过是在原地操作经由从被保存张量的第一个元素开始的张量写入时才复制（这条规则的检查见 :ref:`“原地修改报错”那一页 <questions-inplace-error>`），而不是在保存时：在
# ``torch.autograd.graph.allow_mutation_on_saved_tensors()`` 里面，修改之前保存的输出就在 ``y`` 的内存上；前向传播、``y += 1`` 和 ``backward()`` 都在它里面运行时，都不报错，梯度也是对的。经由 ``y[1:]`` 的修改从别的元素开始，既不复制也不检查：``backward()`` 不报错，梯度却是错的。离开这个上下文之后再运行 ``backward()``，只要读到这个上下文的钩子保存的张量，不管改没改过，都会抛出 ``AssertionError``；只经过 ``x * 2`` 的 ``backward()`` 则不报错，因为 ``x * 2`` 保存它的 ``2`` 时不经过钩子。自定义的 ``torch.autograd.Function`` 如果不用 ``ctx.save_for_backward``，而是把输入 ``a`` 存成 ``ctx.x``，也不检查：``a.detach().mul_(10)`` 之后，``backward()`` 不报错，``a.grad`` 却是错的。用 ``ctx.save_for_backward`` 保存 ``a``，``backward`` 却从不读取 ``ctx.saved_tensors`` 的 ``Function`` 同样不检查：同样的修改之后，``backward()`` 也不报错。:fact:`ctx-attribute-escapes-version-check` :fact:`unread-saved-tensors-escape-version-check`

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
    y = (x * 2).exp()
y += 1
y.sum().backward()
print("copy on save, x.grad:", x.grad)
assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), "the copy kept the saved output"
x.grad = None
with saved_tensors_hooks(lambda t: t, lambda t: t):
    y = (x * 2).exp()
y += 1
y.sum().backward()
print("as it is, x.grad:     ", x.grad)
assert torch.allclose(x.grad, 2 * (torch.exp(2 * x.detach()) + 1)), "the edit went unseen into the gradient"
x.grad = None
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = (x * 2).exp()
    saved_on_y = same_storage(y.grad_fn._saved_result, y)
    y += 1
    y.sum().backward()
print("before the edit, saved output on y's memory:", saved_on_y)
print("allow_mutation_on_saved_tensors, x.grad:", x.grad)
assert saved_on_y, "allow_mutation_on_saved_tensors() saved no copy before the edit"
assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), "torch's own context copied the saved output"
x.grad = None
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = (x * 2).exp()
    y[1:] += 1
    y.sum().backward()
print("allow_mutation_on_saved_tensors, y[1:] += 1, x.grad:", x.grad)
assert torch.allclose(x.grad, 2 * y.detach()) and not torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), (
    "an edit through y[1:] is neither copied nor checked: backward() computes with the edited y")
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = (x * 2).exp()
    y += 1
try:
    y.sum().backward()
except AssertionError as e:
    print(f"backward() after the context: {type(e).__name__}: {e}")
else:
    raise AssertionError("a backward() after leaving allow_mutation_on_saved_tensors() must raise")
# sphinx_gallery_start_ignore
def backward_after_context(op):
    leaf_outside = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        recorded_outside = op(leaf_outside)
    try:
        recorded_outside.sum().backward()
    except AssertionError as e:
        return str(e)
    return None


assert all("outside of the 'allow_mutation_on_saved_tensors' context" in (backward_after_context(op) or "")
           for op in (lambda t: (t * 2).exp(), lambda t: (t * 2).sin())), (
    "a backward() after leaving the context raises on a saved output or input that was not edited")
assert backward_after_context(lambda t: t * 2) is None, (
    "a backward() through x * 2 alone after leaving the context raises nothing")
# sphinx_gallery_end_ignore

# %%
# ``torch.utils.checkpoint``
# --------------------------
#
# 用 checkpoint 做梯度检查点（activation checkpointing）时，``use_reentrant`` 取哪个值都一样（取 ``False`` 时用默认的 ``context_fn``，即不做选择性检查点）：被包起来的函数只保存以位置参数传给它的张量，其余的在 ``backward()`` 时重新计算；下面的代码两个值都运行了。放在列表里传入的张量，或以关键字参数传入的张量（只有 ``use_reentrant=False`` 接受关键字参数），不会被保存：在 ``use_reentrant=False`` 时原地修改它不报错，重新计算读到的是修改后的值（下面最后一个循环）。checkpoint 里的 ``exp``
# 不保存输出，所以原地修改输出不再让 ``backward()`` 报错，梯度也是对的（由 ``a`` 重新算出）。原地修改输入
# ``a`` 反而会报错，而普通的 ``exp`` 允许这样改：checkpoint 保存了 ``a``。（PyTorch 推荐 ``use_reentrant=False``；不传这个参数，``checkpoint`` 运行的是 ``use_reentrant=True`` 的版本，当前版本还会发出警告。）函数因此会执行两次，这对 BatchNorm 和函数里的其他原地修改意味着什么，见 :ref:`“梯度检查点”那一页 <questions-activation-checkpointing>`。

for use_reentrant in (False, True):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x * 2
    y = checkpoint(torch.exp, a, use_reentrant=use_reentrant)
    y += 1
    y.sum().backward()
    print(f"use_reentrant={use_reentrant}, edit of the output, x.grad:", x.grad)
    assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), "checkpoint recomputed exp from a"
    a = x * 2
    y = checkpoint(torch.exp, a, use_reentrant=use_reentrant)
    a += 1
    try:
        y.sum().backward()
    except RuntimeError as e:
        print(f"use_reentrant={use_reentrant}, edit of the input: {type(e).__name__}: {e}")
    else:
        raise AssertionError("an in-place edit of a checkpoint's input must break backward()")
for route, checkpointed in {
    "by keyword": lambda t: checkpoint(lambda *, kept: kept.exp(), kept=t, use_reentrant=False),
    "inside a list": lambda t: checkpoint(lambda kept: kept[0].exp(), [t], use_reentrant=False),
}.items():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x * 2
    y = checkpointed(a)
    a += 1
    y.sum().backward()
    print(f"use_reentrant=False, a passed {route}, edit of a, x.grad:", x.grad)
    assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach() + 1)), (
        "a tensor passed by keyword or inside a list is not saved: its edit raises nothing, and the recomputation "
        "reads the edited a")
# sphinx_gallery_start_ignore
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint(torch.exp, x * 2)
assert [record.category for record in caught] == [UserWarning], "checkpoint without use_reentrant warns"
assert "use_reentrant=False is recommended" in str(caught[0].message), "the warning recommends False"
assert not breaks(lambda a, b: a.exp(), "a"), "a plain exp lets an in-place edit of its input pass"
for reentrant in (False, True):
    packed_by_checkpoint, given = [], x * 2
    with saved_tensors_hooks(lambda t, into=packed_by_checkpoint: into.append(t) or t, lambda t: t):
        checkpoint(torch.exp, given, use_reentrant=reentrant)
    assert any(t is given for t in packed_by_checkpoint), "checkpoint saved its input"
for options in ({"use_reentrant": True, "preserve_rng_state": False},
                {"use_reentrant": False, "preserve_rng_state": False},
                {"use_reentrant": False, "determinism_check": "none"}):
    assert not breaks(lambda a, b, options=options: checkpoint(torch.exp, a, **options), "y"), (
        "checkpoint's other options still let its output be edited")
    assert breaks(lambda a, b, options=options: checkpoint(torch.exp, a, **options), "a"), (
        "with checkpoint's other options an edit of its input still breaks backward()")
# sphinx_gallery_end_ignore

# %%
# 第二次 ``backward()``
# ---------------------
#
# 不带 ``retain_graph=True``、``create_graph=True`` 或 ``inputs=`` 的普通 ``backward()`` 会释放各节点保存的张量，所以沿同一个计算图再调用一次 ``backward()``，一走到要读取自己所保存张量的节点就会报错（这里是
# ``exp`` 的节点，它保存了输出）；之后再读 ``_saved_result`` 也报同样的错。自定义 ``Function`` 若用 ``ctx.save_for_backward`` 保存了张量，``backward`` 却从不读取 ``ctx.saved_tensors``，这属于上文的例外之一：第二次反向传播经过它时不报这个错，梯度会再累加一遍；之后读它的 ``saved_tensors`` 则会报这个错。``(x + 1).sum()`` 的节点都没有保存张量，它就可以再跑一次，同样的梯度会再累加一遍。运算包装成张量的 Python 数也算保存了，尽管 ``pack`` 从来看不到它（见上文）：``(x * 2).sum()`` 第二次反向传播会报错，见 :ref:`“第二次反向传播报错”那一页 <questions-backward-twice>`。把上面这些运算作用在两个叶子张量（leaf tensor）上（这样只有运算本身会保存张量），可以看到：第二次反向传播报不报错，恰好取决于这个运算有没有保存张量。

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * 2).exp()
y.sum().backward()
try:
    y.sum().backward()
except RuntimeError as e:
    twice = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a second backward() through a freed graph must raise")
# sphinx_gallery_start_ignore
try:
    y.grad_fn._saved_result
except RuntimeError as e:
    assert str(e) == twice, "reading the freed saved output raises the same error"
else:
    raise AssertionError("reading a freed saved tensor must raise")


class SavesUnread(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * 3

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


class SavesRead(SavesUnread):
    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 (reading them back is what raises on a second pass)
        return grad * 3


def custom_second_pass(function):
    """The custom node, how many tensors it saved, the error of a second plain backward() through it ("" if none)
    and the leaf's .grad after the two passes."""
    custom_leaf = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    custom_out = function.apply(custom_leaf)
    saved_count = len(custom_out.grad_fn.saved_tensors)
    custom_out.backward(torch.ones(3))
    try:
        custom_out.backward(torch.ones(3))
    except RuntimeError as e:
        return custom_out.grad_fn, saved_count, str(e), custom_leaf.grad
    return custom_out.grad_fn, saved_count, "", custom_leaf.grad


unread_node, unread_count, unread_error, unread_grad = custom_second_pass(SavesUnread)
assert unread_count == 1 and unread_error == "" and torch.equal(unread_grad, torch.full((3,), 6.0)), (
    "a custom Function that saved a tensor but never reads it runs a second time and adds its gradient again")
try:
    unread_node.saved_tensors  # noqa: B018 (reading them is the check)
except RuntimeError as e:
    assert str(e) == twice, "reading that Function's saved_tensors afterwards raises the same error"
else:
    raise AssertionError("reading the freed saved_tensors of a custom Function must raise")
read_node, read_count, read_error, read_grad = custom_second_pass(SavesRead)
assert read_count == 1 and read_error == twice, (
    "a custom Function whose backward reads its saved tensor raises the same error on a second pass")
# sphinx_gallery_end_ignore
x.grad = None
z = (x + 1).sum()
z.backward()
z.backward()
print("(x + 1).sum() twice, x.grad:", x.grad)
assert torch.equal(x.grad, torch.full((3,), 2.0)), "add and sum saved no tensor: the second pass ran"
# sphinx_gallery_start_ignore
doubled_sum = (x * 2).sum()
doubled_sum.backward()
try:
    doubled_sum.backward()
except RuntimeError as e:
    assert str(e) == twice, "x * 2 saved its wrapped 2: the second pass raises the same error"
else:
    raise AssertionError("a second backward() through (x * 2).sum() must raise")
# sphinx_gallery_end_ignore


def second_pass_raises(op):
    v, w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True), torch.tensor([1.5, 2.0, -0.5], requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        out = op(v, w).sum()
    out.backward()
    try:
        out.backward()
    except RuntimeError as e:
        return len(packed), "backward through the graph a second time" in str(e)
    return len(packed), False


for name, op in ops.items():
    count, raised = second_pass_raises(op)
    print(f"{name:8} tensors saved: {count}  second backward() raised: {raised}")
    assert raised == (count > 0), f"{name}: a second pass raises exactly when the operation saved a tensor"

# %%
# ``retain_graph``
# ----------------
#
# ``retain_graph=True`` 会一直留住保存的张量，直到某一次 ``retain_graph`` 为假（除非给了 ``create_graph=True``，否则这就是它的默认值）的 ``backward()`` 或 ``torch.autograd.grad`` 运行了保存它们的节点（带 ``inputs=`` 时，它会释放它所运行的节点保存的张量）：下面四次反向传播，前三次带着它，保存的张量都留着，每一次都累加同样的梯度；第四次之后，保存的输出就被释放了。如果两次之间做了原地操作，后一次就会报错。

x.grad = None
y = (x * 2).exp()
for i in range(4):
    y.sum().backward(retain_graph=i < 3)
print("four passes, x.grad:", x.grad)
assert torch.allclose(x.grad, 4 * 2 * torch.exp(2 * x.detach())), "each pass added the same gradient"
# sphinx_gallery_start_ignore
try:
    y.grad_fn._saved_result
except RuntimeError as e:
    assert "after they have already been freed" in str(e), "the saved output is freed after the last pass"
else:
    raise AssertionError("reading a freed saved tensor must raise")
other_leaf = torch.tensor([1.0, 2.0], requires_grad=True)
retained = (other_leaf * 2).exp()
retained.sum().backward(retain_graph=True)
retained.sum().backward(inputs=[other_leaf])
try:
    retained.grad_fn._saved_result
except RuntimeError as e:
    assert "after they have already been freed" in str(e), "backward(inputs=...) frees what its nodes saved"
else:
    raise AssertionError("backward(inputs=...) after retain_graph=True must free the saved output")
graded = (other_leaf * 2).exp()
graded.sum().backward(retain_graph=True)
torch.autograd.grad(graded.sum(), other_leaf, retain_graph=True)
assert torch.equal(graded.grad_fn._saved_result, graded), (
    "torch.autograd.grad(retain_graph=True) keeps the saved output")
torch.autograd.grad(graded.sum(), other_leaf)
try:
    graded.sum().backward()
except RuntimeError as e:
    assert "backward through the graph a second time" in str(e), "torch.autograd.grad frees what its nodes saved"
else:
    raise AssertionError("a backward() after torch.autograd.grad without retain_graph=True must raise")
def saved_output_kept(node_output):
    """Whether the node that made ``node_output`` still holds it (reading it once freed raises)."""
    try:
        return torch.equal(node_output.grad_fn._saved_result, node_output)
    except RuntimeError as e:
        assert "after they have already been freed" in str(e), "reading a freed saved output raises"
        return False


for create_options in ({"create_graph": True}, {"create_graph": True, "retain_graph": False}):
    for create_call in ("backward", "torch.autograd.grad"):
        created = (other_leaf * 2).exp()
        created.sum().backward(retain_graph=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
            if create_call == "backward":
                created.sum().backward(**create_options)
            else:
                torch.autograd.grad(created.sum(), other_leaf, **create_options)
        assert saved_output_kept(created) is create_options.get("retain_graph", True), (
            f"{create_call}(create_graph=True) keeps the saved output unless retain_graph=False is given")
# sphinx_gallery_end_ignore
y = (x * 2).exp()
y.sum().backward(retain_graph=True)
y += 1
try:
    y.sum().backward()
except RuntimeError as e:
    print(f"edit between the passes: {type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit between two passes must break the second")

# %%
# 小结
# ----
#
# 原地修改会不会让 ``backward()`` 报错，取决于用到这个张量、在修改之前已经运行过的运算保存了什么：对上面这些运算，被保存的张量恰好就是改了会报错的那些。``exp``、
# ``relu``、``sigmoid`` 和 ``tanh`` 保存输出，``sin`` 保存输入，``mul`` 保存另一个操作数（两个都需要梯度时两个都保存），``add``
# 什么都不保存；经 ``.data`` 的修改不会被发现，梯度可能是错的（上面的 ``exp`` 就是如此）。最直接的解决办法是改用非原地写法（``y = y + 1``）；会复制的 ``saved_tensors_hooks`` 和 ``use_reentrant`` 取哪个值都行、``context_fn`` 用默认值的
# ``torch.utils.checkpoint`` 也允许原地修改输出（``allow_mutation_on_saved_tensors()`` 就是前一种，``backward()`` 也要在它里面运行，修改还要经由从被保存张量的第一个元素开始的张量写入），但不复制的钩子会让这种修改无人察觉，``allow_mutation_on_saved_tensors()`` 对从别的元素开始的修改也是如此。``retain_graph=True``
# 会一直留住保存的张量，检查也随之保留，直到某一次 ``retain_graph`` 为假（除非给了 ``create_graph=True``，否则这就是它的默认值）的 ``backward()`` 或 ``torch.autograd.grad`` 运行了保存它们的节点（带 ``inputs=`` 的也算）。怎么读这条报错，见\ :ref:`“原地修改报错”那一页 <questions-inplace-error>`。
