"""
.. _questions-function-arguments:

在函数里改张量，改的是调用者的张量
==================================

.. admonition:: 答案
   :class: answer

   函数拿到的是调用者的张量对象本身，不是副本，所以在函数里做原地操作（``x += 1``），改的就是调用者的张量，torch 拒绝时则报错，遇到推理张量时有时要改完才报错（见下文）。改为计算出一个新张量：

   .. code-block:: python

      def add_one(x):
          x = x + 1
          return x

``x += 1`` 和 ``x = x + 1`` 看着差不多，对传进来的张量做的事却不一样。本页先对比这两种写法，再看同样的共享藏在哪三个地方：以张量为默认值的参数；直接交出自家张量、调用方又会改动这些样本的 ``Dataset``；模块的 ``copy.copy``。每个解决办法都按它的实际用法检验：反复调用、跑两个 epoch、训练几步。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。随机种子固定了随机的权重和数据，所以下面的数字每次运行都一样。

import copy
import warnings

import torch

torch.manual_seed(0)


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
# ``x += 1`` 与 ``x = x + 1``
# ---------------------------
#
# 在 ``add_one_in_place`` 里，``x`` 指向调用者的张量，``+=`` 对它做原地（in-place）操作：调用者的 ``a`` 变了，函数返回的也正是
# ``a`` 本身。在 ``add_one`` 里，``x + 1`` 是一个新张量，``x = ...`` 只是把函数自己的名字重新绑定过去：``a`` 原封不动。


def add_one_in_place(x):
    x += 1
    return x


def add_one(x):
    x = x + 1
    return x


a = torch.zeros(3)
returned = add_one_in_place(a)
print("after add_one_in_place(a): a =", a, " returned is a:", returned is a)
# sphinx_gallery_start_ignore
assert returned is a, "x += 1 returns the caller's tensor itself"
# sphinx_gallery_end_ignore
returned = add_one(a)
print("after add_one(a):          a =", a, " returned:", returned)
assert torch.equal(a, torch.ones(3)) and bytes_apart(returned, a), "+= edited a, x + 1 did not"

# %%
# .. figure-caption::
#    :alt: 示意图：a 指向存储 S1 上的一个张量对象，add_one_in_place 里的原地操作之后它的 _version 是 1；add_one(a) 的结果 returned 是另一个张量对象，有自己的存储 S2。
#
#    ``a`` 就是 ``add_one_in_place`` 通过它自己的名字 ``x`` 修改的那个张量：同一个对象，同一块存储 ``S1``，它的 ``_version`` 记下了那一次原地操作。``add_one(a)`` 返回的是一个新张量，有自己的存储 ``S2``。

draw_memory("add_one_in_place(a); returned = add_one(a)", a=a, returned=returned)
# sphinx_gallery_start_ignore
assert a._version == 1, "one in-place edit of a: x += 1 inside add_one_in_place"
# sphinx_gallery_end_ignore

# %%
# 有些这样的原地操作会被 torch 拒绝。在 ``torch.inference_mode()`` 之外、梯度模式（grad mode）打开时，``add_one_in_place`` 遇到需要梯度的叶子张量（leaf tensor），包括 ``Parameter``，会报错，张量保持原样。:fact:`leaf-refuses-inplace`\ 在 ``torch.inference_mode()`` 之外遇到推理张量（inference tensor，即在 ``torch.inference_mode()`` 里创建的张量）也会报错，但报错时已经写完了：调用者的张量照样被改了（详见 :ref:`“推理模式”那一页 <questions-inference-mode>`）。需要梯度的推理张量（例如在 ``torch.inference_mode()`` 里构建的模块的 ``Parameter``）只在梯度模式关闭（``torch.no_grad()``）时如此；梯度模式打开时，上面的叶子张量检查会先拒绝它，张量保持原样。``x += 1`` 根本改不了的 dtype 或布局，则先报它自己的错（见下一个单元格）。

leaf = torch.zeros(3, requires_grad=True)
weight = torch.nn.Parameter(torch.zeros(3))
with torch.inference_mode():
    frozen = torch.zeros(3)
for name, source in (("leaf", leaf), ("Parameter", weight), ("inference tensor", frozen)):
    try:
        add_one_in_place(source)
    except RuntimeError as e:
        print(f"{name}: {type(e).__name__}: {e}")
    else:
        raise AssertionError(f"x += 1 inside a function must raise on a {name}")
print("leaf:", leaf.detach(), " Parameter:", weight.detach(), " inference tensor:", frozen)
assert torch.equal(leaf, torch.zeros(3)) and torch.equal(weight, torch.zeros(3)) and torch.equal(frozen, torch.ones(3)), (
    "the leaf and the Parameter are as they were; the inference tensor was written before the error")

# %%
# 对十种 dtype 的全零推理张量，以及零维、转置、需要梯度（普通张量和 ``Parameter`` 各一个）、稀疏（COO）、嵌套（``torch.jagged``）和 mkldnn 的全零推理张量，在梯度模式开和关时做同样的调用，并与在 ``torch.inference_mode()`` 之外创建的同样张量对照：``x += 1`` 能改普通张量时，它给推理张量做同样的修改，然后才抛出 torch 针对推理张量的错误；在普通张量上报错时，它在推理张量上抛出同样的错误，张量保持原样。


def call_on(kind, inference, mode):
    """add_one_in_place on a fresh tensor of zeros of this kind, made inside torch.inference_mode() or not,
    under mode: the error's type and first line (None if it ran), the values before and the values after."""
    with torch.inference_mode(inference):
        x = torch.zeros(2, 3, dtype=kind) if isinstance(kind, torch.dtype) else {
            "no dimension": lambda: torch.zeros(()), "transposed": lambda: torch.zeros(2, 3).t(),
            "requires grad": lambda: torch.zeros(2, 3, requires_grad=True),
            "Parameter": lambda: torch.nn.Parameter(torch.zeros(2, 3)),
            "sparse COO": lambda: torch.zeros(2, 3).to_sparse(), "mkldnn": lambda: torch.zeros(2, 3).to_mkldnn(),
            "nested": lambda: torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)], layout=torch.jagged),
        }[kind]()

    def values():
        return [t.tolist() for t in x.unbind()] if x.is_nested else x.to_dense().tolist() if x.is_sparse or (
            x.is_mkldnn) else x.tolist()

    before = values()
    with mode():
        try:
            add_one_in_place(x)
            error = None
        except (RuntimeError, NotImplementedError) as e:
            error = (type(e).__name__, str(e).splitlines()[0])
    return error, before, values()


call_kinds = (torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float32, torch.float64, torch.int8,
              torch.int64, torch.uint8, torch.bool, torch.complex64, "no dimension", "transposed", "requires grad",
              "Parameter", "sparse COO", "nested", "mkldnn")
calls = {(str(kind), mode.__name__): (call_on(kind, False, mode), call_on(kind, True, mode))
         for kind in call_kinds for mode in (torch.enable_grad, torch.no_grad)}


def kinds_where(edited):
    """The kinds whose ordinary tensor x += 1 edits (edited) or refuses, each with its grad mode where the two
    grad modes differ."""
    return sorted({kind if len({calls[kind, other][0][0] is None for other in ("enable_grad", "no_grad")}) == 1
                   else f"{kind} under {mode}" for (kind, mode), (ordinary, _) in calls.items()
                   if (ordinary[0] is None) == edited})


print("edited, then refused as an inference tensor:", kinds_where(True))
print("refused before any edit, ordinary or inference tensor:", kinds_where(False))
assert all(
    inference[0][0] == "RuntimeError" and "Inplace update to inference tensor" in inference[0][1]
    and inference[1:] == ordinary[1:] and ordinary[1] != ordinary[2] if ordinary[0] is None
    else inference == ordinary and inference[1] == inference[2] for ordinary, inference in calls.values()), (
    "x += 1 on an inference tensor outside inference mode raises after giving it the edit an ordinary tensor gets, "
    "or, where it raises on the ordinary tensor, raises the same error and leaves it as it was")
# sphinx_gallery_start_ignore
# fork_rng：抽取这一层的随机权重会打乱本页后面的随机数
with torch.random.fork_rng(), torch.inference_mode():
    built_inside = torch.nn.Linear(2, 1)
assert all(built_param.is_inference() and built_param.requires_grad and isinstance(built_param, torch.nn.Parameter)
           for built_param in built_inside.parameters()), (
    "the parameters of a module built inside torch.inference_mode() are inference tensors that require grad")
# sphinx_gallery_end_ignore

# %%
# 以张量为默认值的参数
# --------------------
#
# 默认值只在执行 ``def`` 时创建一次，之后每次省略这个参数的调用，拿到的都是同一个张量。``total += v``
# 原地修改它，于是每次调用都从上一次结束的地方接着算。


def running_total(v, total=torch.zeros(2)):  # noqa: B008
    total += v
    return total


first = running_total(torch.ones(2)).clone()
second = running_total(torch.ones(2)).clone()
print("first call:", first, " second call:", second)
print("the default now:", running_total.__defaults__[0])
assert torch.equal(second, 2 * first), "the second call started from the first call's total"

# %%
# 把默认值设为 ``None``，在调用内部再创建张量：每次调用都从零开始。


def running_total_fixed(v, total=None):
    total = torch.zeros(2) if total is None else total
    total = total + v
    return total


totals = [running_total_fixed(torch.ones(2)) for _ in range(3)]
print("three calls:", totals)
assert all(torch.equal(t, torch.ones(2)) for t in totals), "each call starts from zero"

# %%
# 把自己的张量交出去的 ``Dataset``
# --------------------------------
#
# ``i`` 为 Python 的 ``int``、``self.data`` 为稠密张量（布局为 ``torch.strided``，既非嵌套也非量化）时，``self.data[i]`` 是数据集张量的视图（view），见\ :ref:`“通过索引写入”那一页 <questions-index-writes>`；而 ``DataLoader(dataset, batch_size=None)`` 的其余参数都取默认值时（其中 ``num_workers=0``：不启动 worker 进程），它在任何梯度模式下都把 ``__getitem__`` 返回的张量原样传出来，就是那个张量对象本身（由张量组成的普通元组会变成一个新列表，字典会变成一个新字典，两者装的仍是那些张量）。循环里用数据集的均值对每个样本做原地归一化
# ``x.sub_(mean)``，改的就是数据集本身：第一个 epoch 看到的数据以零为中心，第二个 epoch 看到的又被平移了一次。


class Points(torch.utils.data.Dataset):
    def __init__(self, data, copies=False):
        self.data, self.copies = data, copies

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i].clone() if self.copies else self.data[i]


def epoch_means(dataset, mean, epochs=2):
    means = []
    for _ in range(epochs):
        items = [x.sub_(mean) for x in torch.utils.data.DataLoader(dataset, batch_size=None)]
        means.append(round(torch.stack(items).mean().item(), 2))
    return means


data = torch.randn(4, 3) + 5
original, mean = data.clone(), data.mean()
shared_means = epoch_means(Points(data), mean)
print("shared items, mean per epoch:", shared_means)
print("dataset changed:", not torch.equal(data, original))
assert not torch.equal(data, original) and abs(shared_means[1] + mean) < 0.01, "epoch 2 saw data shifted twice"
# sphinx_gallery_start_ignore
assert abs(shared_means[0]) < 0.01, "epoch 1 saw data centred on zero"
row_item, other_row = data[0], data[1]
tensor_items = [row_item, torch.nn.Parameter(torch.ones(2)), torch.ones(2, requires_grad=True) * 2,
                torch.arange(2), torch.ones(2, device="meta")]
for grad_mode in (torch.enable_grad, torch.no_grad, torch.inference_mode):
    # （fork_rng：DataLoader 迭代时会抽取一个种子，否则会打乱本页后面的随机数）
    with torch.random.fork_rng(), grad_mode():
        handed_on = list(torch.utils.data.DataLoader(Points(tensor_items), batch_size=None))
    assert len(handed_on) == len(tensor_items) and all(out is item for out, item in zip(handed_on, tensor_items, strict=True)), (
        "in every grad mode, DataLoader(batch_size=None) hands on the very tensor __getitem__ returned")
pair_item, dict_item = (row_item, other_row), {"x": row_item}
with torch.random.fork_rng():
    pair_out, dict_out = torch.utils.data.DataLoader(Points([pair_item, dict_item]), batch_size=None)
assert type(pair_out) is list and len(pair_out) == 2 and pair_out[0] is row_item and pair_out[1] is other_row, (
    "a plain tuple of tensors comes out as a new list that holds the same tensors")
assert type(dict_out) is dict and dict_out is not dict_item and list(dict_out) == ["x"] and dict_out["x"] is row_item, (
    "a dict of tensors comes out as a new dict that holds the same tensors")
# sphinx_gallery_end_ignore

# %%
# 在数据集这一侧的解决办法：``__getitem__`` 返回 ``self.data[i].clone()``。跑完两个 epoch，数据集仍是原样。（用
# ``batch_size=2`` 时，``DataLoader`` 会把样本堆叠成一个新张量，也就是副本，这只是把问题掩盖了，并没有解决。）
data = original.clone()
copied_means = epoch_means(Points(data, copies=True), mean)
print("copied items, mean per epoch:", copied_means)
print("dataset changed:", not torch.equal(data, original))
assert torch.equal(data, original) and copied_means[0] == copied_means[1], "copies leave the dataset as it was"
# sphinx_gallery_start_ignore
assert same_storage(Points(data)[0], data) and bytes_apart(Points(data, copies=True)[0], data), (
    "an item shares the dataset's memory, and with copies=True it has memory of its own")
assert all(Points(data)[index]._base is data for index in range(-len(data), len(data))), (
    "for any Python int i, negative ones included, self.data[i] is a view of the dataset's tensor")
# (its own generator: a DataLoader draws a seed when iterated, which would move the page's random numbers)
batches_of_two = torch.utils.data.DataLoader(Points(data), batch_size=2, generator=torch.Generator())
assert all(bytes_apart(batch, data) for batch in batches_of_two), "batch_size=2 stacks the items into copies"
# sphinx_gallery_end_ignore

# %%
# 模块的 ``copy.copy``
# --------------------
#
# 浅拷贝得到一个新的模块对象，但它的属性就是原模块的属性：同一批 ``Parameter`` 对象，连存放它们的字典（``_parameters``、
# ``_buffers``、``_modules``，都是 torch 的内部属性）也是同一个；存放钩子的字典（``_forward_hooks`` 等）同样共享，所以在副本上注册的前向钩子或预钩子（前向或反向的），在原模块上也会运行。反向钩子是例外：用 ``register_full_backward_hook`` 或旧的 ``register_backward_hook`` 在副本上注册的钩子，不会在从未注册过反向钩子的原模块上运行，因为只有副本被标记为带有这种钩子（``_is_full_backward_hook``，torch 的内部属性）。原模块只要注册过任一种反向钩子（在副本的钩子之前或之后都算，后来被移除了也算），就保留这个标记，副本的钩子也会在它上面运行，而且是当作原模块所标记的那一种钩子运行（于是副本上注册的完整反向钩子拿到的是旧式钩子的参数，反之亦然；如果原模块在复制之前注册的是另一种，在副本上注册时就会直接报错）。只有存放在这些字典之外、之后又在其中一方上重新赋值的属性（比如 ``training``）才各自独立。
model = torch.nn.Linear(2, 1)
shallow = copy.copy(model)
print("shallow is model:", shallow is model)
print("shallow.weight is model.weight:", shallow.weight is model.weight)
for name in ("_parameters", "_buffers", "_modules", "_forward_hooks", "__dict__"):
    print(f"{name:<14} shared: {getattr(shallow, name) is getattr(model, name)}")
assert shallow.weight is model.weight and shallow._parameters is model._parameters, (
    "copy.copy(model) shares model's weight and _parameters dict")
# sphinx_gallery_start_ignore
assert shallow._buffers is model._buffers and shallow._modules is model._modules, "the other dicts too"
assert shallow._forward_hooks is model._forward_hooks and shallow._backward_hooks is model._backward_hooks, (
    "the dicts of hooks are shared"
)
assert shallow._forward_pre_hooks is model._forward_pre_hooks, "the dicts of hooks are shared"
hooked, hook_calls = torch.nn.Identity(), []
copy.copy(hooked).register_forward_hook(lambda *args: hook_calls.append(len(args)))
hooked(torch.ones(1, 2))
assert hook_calls == [3], "a forward hook registered on the copy runs on the original"
pre_hooked, pre_calls, backward_calls = torch.nn.LayerNorm(2), [], []
copy.copy(pre_hooked).register_forward_pre_hook(lambda *args: pre_calls.append("forward pre"))
copy.copy(pre_hooked).register_full_backward_pre_hook(lambda *args: pre_calls.append("backward pre"))
pre_hooked(torch.ones(1, 2, requires_grad=True)).sum().backward()
assert pre_calls == ["forward pre", "backward pre"], "pre-hooks registered on a copy run on the original"
full_hooked = torch.nn.LayerNorm(2)
full_copy = copy.copy(full_hooked)
full_copy.register_full_backward_hook(lambda *args: backward_calls.append("full backward"))
full_hooked(torch.ones(1, 2, requires_grad=True)).sum().backward()
assert backward_calls == [], "a full backward hook registered on the copy does not run on the original"
assert full_copy._is_full_backward_hook and full_hooked._is_full_backward_hook is None, "the flag is the copy's"
legacy_hooked, legacy_calls = torch.nn.LayerNorm(2), []
copy.copy(legacy_hooked).register_backward_hook(lambda *args: legacy_calls.append("backward"))
legacy_hooked(torch.ones(1, 2, requires_grad=True)).sum().backward()
assert legacy_calls == [], "an older backward hook registered on the copy does not run on the original"
hook_register = {"full": torch.nn.Module.register_full_backward_hook,
                 "older": torch.nn.Module.register_backward_hook}


def linear_leaving_rng():
    # 一个 Linear(2, 2)，它的初始值不动本页的随机数序列。
    with torch.random.fork_rng(devices=[]):
        return torch.nn.Linear(2, 2)


def grad_input_shapes(grad_input):
    return [None if g is None else tuple(g.shape) for g in grad_input]


def hooks_run_on_original(order, copy_kind, original_kind, removed):
    """The hooks a backward of an original runs after the events of ``order``, in that order: copying it,
    giving the copy a backward hook of copy_kind, giving the original one of original_kind (removed at once
    if removed), each with the shapes of the grad_input it got."""
    marked, ran, marked_copy = linear_leaving_rng(), [], None
    for event in order:
        if event == "copy":
            marked_copy = copy.copy(marked)
        elif event == "the copy's hook":
            hook_register[copy_kind](marked_copy, lambda module, grad_input, grad_output: ran.append(
                ("the copy's", grad_input_shapes(grad_input))))
        else:
            handle = hook_register[original_kind](marked, lambda module, grad_input, grad_output: ran.append(
                ("the original's", grad_input_shapes(grad_input))))
            if removed:
                handle.remove()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # an older hook on a Linear warns that it is deprecated
        marked(torch.ones(1, 2, requires_grad=True) * 1).sum().backward()
    return ran


def grad_input_of_kind(kind):
    """The shapes of the grad_input a backward hook of that kind gets on a Linear of its own."""
    alone, got = linear_leaving_rng(), []
    hook_register[kind](alone, lambda module, grad_input, grad_output: got.append(grad_input_shapes(grad_input)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # an older hook on a Linear warns that it is deprecated
        alone(torch.ones(1, 2, requires_grad=True) * 1).sum().backward()
    return got[0]


kind_shapes = {kind: grad_input_of_kind(kind) for kind in hook_register}
assert kind_shapes["full"] != kind_shapes["older"], "on a Linear, the two kinds of backward hook get different grad_input"


orders = (("the original's hook", "copy", "the copy's hook"), ("copy", "the original's hook", "the copy's hook"),
          ("copy", "the copy's hook", "the original's hook"))
backward_hook_cases = [(order, copy_kind, original_kind, removed) for order in orders for copy_kind in hook_register
                       for original_kind in hook_register for removed in (False, True)]
def hooks_run_or_error(*case):
    """What hooks_run_on_original returns, or the RuntimeError it raises."""
    try:
        return hooks_run_on_original(*case)
    except RuntimeError as e:
        return e


for order, copy_kind, original_kind, removed in backward_hook_cases:
    other_kind_first = order[0] == "the original's hook" and copy_kind != original_kind
    ran = hooks_run_or_error(order, copy_kind, original_kind, removed)
    if isinstance(ran, RuntimeError):
        assert other_kind_first and "Cannot use both regular backward hooks and full" in str(ran), (
            "registering on the copy raises only if the original had the other kind before the copy")
    else:
        assert "the copy's" in [who for who, _ in ran] and not other_kind_first, (
            "an original given either kind of backward hook, before or after the copy's, removed or not, runs it")
        assert all(got == kind_shapes[original_kind] for _, got in ran), (
            "the original runs the copy's hook as a hook of the kind the original is marked with")
assert shallow.__dict__ is not model.__dict__, "the module's own attributes are separate"
# sphinx_gallery_end_ignore

# %%
# 所以给副本换上新的 ``Parameter``，原模块的也跟着换了；对 ``Sequential`` 的副本调用 ``eval()``，会切换原模块中共享的那些层，而原模块自己仍处于训练模式。
shallow.weight = torch.nn.Parameter(torch.zeros(1, 2))
print("model.weight is the new Parameter:", model.weight is shallow.weight)
net = torch.nn.Sequential(torch.nn.Linear(2, 1), torch.nn.Dropout(0.5))
copy.copy(net).eval()
print("net.training:", net.training, " net[1].training:", net[1].training)
assert model.weight is shallow.weight and net.training and not net[1].training, "the dicts are shared"

# %%
# 解决办法：``copy.deepcopy`` 会复制参数。``model`` 训练三步之后，浅拷贝的权重跟着变了，深拷贝的权重保持原样。
model = torch.nn.Linear(2, 1)
shallow, deep = copy.copy(model), copy.deepcopy(model)
before = model.weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 2)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
print("model.weight:  ", model.weight.detach())
print("shallow.weight:", shallow.weight.detach())
print("deep.weight:   ", deep.weight.detach())
assert torch.equal(shallow.weight, model.weight) and torch.equal(deep.weight, before), (
    "shallow.weight followed the steps; deep.weight kept the old values")
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the steps changed the weight"
assert bytes_apart(deep.weight, model.weight), "the deep copy has memory of its own"
# sphinx_gallery_end_ignore

# %%
# 模块若存着一个非叶子张量，即带 ``grad_fn`` 的张量，比如下面 ``forward`` 在梯度模式下存下的输出，
# ``copy.deepcopy`` 就拒绝复制这个模块。:fact:`deepcopy-refuses-module-keeping-non-leaf`\ 参数的 ``.grad``
# 不算在内，带 ``grad_fn`` 的也一样，比如把 ``Linear`` 层的输出平方后调用 ``backward(create_graph=True)``
# 留下的 ``.grad``：``copy.deepcopy`` 照样复制这个模块，副本的 ``.grad`` 是 ``None``。模块上存着的不是
# ``Parameter`` 的张量（缓冲区或普通属性），会连同它的 ``.grad`` 一起复制：这个 ``.grad`` 若带 ``grad_fn``，即使张量本身是叶子张量，``copy.deepcopy`` 也会拒绝复制这个模块。
#
# 比较运算（如 ``out > 0``）或 ``argmax()`` 的结果没有 ``grad_fn``，即使是在梯度模式下由需要梯度的张量算出的也一样：存着它的模块可以深拷贝（详见 :ref:`“copy.deepcopy”那一页 <questions-deepcopy>`）。
#
# 模块若存着一个 ``copy.deepcopy`` 单独复制时就拒绝的叶子张量（见 :ref:`“copy.deepcopy”那一页 <questions-deepcopy>`），也会被拒绝复制，比如下面的 ``holder`` 存进一个普通 ``torch.Tensor`` 子类的实例之后。隐藏检查把这些张量作为缓冲区存进模块逐一试过：``torch.strided`` 布局的嵌套张量（需要梯度和不需要梯度的）、CSR、CSC、BSR 或 BSC 稀疏张量（float32 和 int64）、mkldnn 张量，以及用这个子类的构造函数得到的、为空的和在 ``meta`` 上的实例。每个张量都是叶子张量，``copy.deepcopy`` 单独复制它和复制模块时抛出的错误相同。


class KeepsOutput(torch.nn.Linear):
    def forward(self, x):
        self.output = super().forward(x)  # 存在模块上的非叶子张量
        return self.output


keeper = KeepsOutput(2, 1)
keeper(x)
print("keeper.output.is_leaf:", keeper.output.is_leaf)
try:
    copy.deepcopy(keeper)
except RuntimeError as e:
    refusal = str(e)
    print(f"{type(e).__name__}: {refusal.split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module that kept its output in grad mode must raise")
leaf = torch.ones(2, requires_grad=True)
(leaf * leaf).sum().backward()  # 不带 grad_fn 的 .grad
holder = torch.nn.Module()
holder.kept = leaf  # 普通属性，不是 Parameter
kept_copy = copy.deepcopy(holder).kept
print("kept_copy.grad:", kept_copy.grad, " kept_copy.grad is leaf.grad:", kept_copy.grad is leaf.grad)
# sphinx_gallery_start_ignore
assert kept_copy is not leaf and kept_copy.grad is not None and kept_copy.grad is not leaf.grad and torch.equal(
    kept_copy.grad, leaf.grad), "deepcopy copies a plain attribute that is not a Parameter with its .grad"
# sphinx_gallery_end_ignore
leaf.grad = leaf * 2  # 带 grad_fn 的 .grad
print("leaf.is_leaf:", leaf.is_leaf, " leaf.grad.grad_fn:", type(leaf.grad.grad_fn).__name__)
try:
    copy.deepcopy(holder)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module keeping a leaf whose .grad has a grad_fn must raise")
# sphinx_gallery_start_ignore
assert leaf.is_leaf and leaf.grad.grad_fn is not None, "the tensor kept as an attribute is a leaf whose .grad has a grad_fn"
buffered_leaf = torch.nn.Module()
buffered_leaf.register_buffer("kept", leaf)
try:
    copy.deepcopy(buffered_leaf)
except RuntimeError as leaf_refusal:
    assert "(graph leaves)" in str(leaf_refusal), "deepcopy refuses a leaf buffer whose .grad has a grad_fn"
else:
    raise AssertionError("deepcopy of a module with a leaf buffer whose .grad has a grad_fn must raise")
graded_leaf = torch.ones(2, requires_grad=True)
(graded_leaf * graded_leaf).sum().backward()
holds_graded = torch.nn.Module()
holds_graded.register_buffer("kept", graded_leaf)
copied_graded = copy.deepcopy(holds_graded).kept
assert copied_graded.grad is not None and copied_graded.grad is not graded_leaf.grad and torch.equal(
    copied_graded.grad, graded_leaf.grad), "deepcopy copies a buffer that is not a Parameter with its .grad"
assert "(graph leaves) support the deepcopy protocol" in refusal, "deepcopy refuses the non-leaf kept on the module"
buffered = torch.nn.Linear(2, 1)
buffered.register_buffer("doubled", buffered.weight * 2)
try:
    copy.deepcopy(buffered)
except RuntimeError as buffer_refusal:
    assert "(graph leaves)" in str(buffer_refusal), "deepcopy refuses a non-leaf kept as a buffer too"
else:
    raise AssertionError("deepcopy of a module with a non-leaf buffer must raise")
quiet = KeepsOutput(2, 1)
with torch.no_grad():
    quiet(x)
assert quiet.output.is_leaf and copy.deepcopy(quiet).output is not quiet.output, (
    "an output kept from a forward under no_grad is a leaf: the module deep-copies")
penalised = torch.nn.Linear(2, 1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
    (penalised(torch.ones(1, 2)) ** 2).sum().backward(create_graph=True)
assert all(p.grad.grad_fn is not None and copied.grad is None
           for p, copied in zip(penalised.parameters(), copy.deepcopy(penalised).parameters(), strict=True)), (
    "a parameter's .grad with a grad_fn (backward(create_graph=True)) does not stop deepcopy, and is not copied")
assert keeper.output.grad_fn is not None, "the output kept in grad mode, a non-leaf, has a grad_fn"
kept_results = [keeper.output > 0, keeper.output < 0, keeper.output >= 0, keeper.output <= 0, keeper.output == 0,
                keeper.output != 0, keeper.output.argmax(), keeper.weight.argmax()]
holds_results = torch.nn.Module()
for kept_number, kept_result in enumerate(kept_results):
    holds_results.register_buffer(f"kept{kept_number}", kept_result)
copied_results = list(copy.deepcopy(holds_results).buffers())
assert torch.is_grad_enabled() and keeper.output.requires_grad and len(copied_results) == len(kept_results) and all(
    kept_result.grad_fn is None and kept_result.is_leaf and copied is not kept_result
    for copied, kept_result in zip(copied_results, kept_results, strict=True)), (
    "comparisons and argmax() in grad mode give results without a grad_fn: a module keeping them deep-copies")
for kept_non_leaf in (keeper.output.sign(), keeper.output[0], keeper.output // 1, keeper.weight.t()):
    holds_non_leaf = torch.nn.Module()
    holds_non_leaf.register_buffer("kept", kept_non_leaf)
    try:
        copy.deepcopy(holds_non_leaf)
    except RuntimeError as non_leaf_refusal:
        assert kept_non_leaf.grad_fn is not None and "(graph leaves)" in str(non_leaf_refusal), (
            "deepcopy refuses a module keeping a tensor with a grad_fn")
    else:
        raise AssertionError("deepcopy of a module keeping a tensor with a grad_fn must raise")
# sphinx_gallery_end_ignore


class Tagged(torch.Tensor):  # 普通子类：copy.deepcopy 拒绝单独复制它的实例
    pass


holder.kept = torch.ones(2).as_subclass(Tagged)
print("holder.kept.is_leaf:", holder.kept.is_leaf, " holder.kept.grad_fn:", holder.kept.grad_fn)
try:
    copy.deepcopy(holder)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module keeping an instance of a plain Tensor subclass must raise")
# sphinx_gallery_start_ignore
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # strided 嵌套张量还是原型功能，压缩稀疏布局还在 beta 阶段
    refused_alone = [holder.kept, torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
                     torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], requires_grad=True),
                     torch.ones(2, 2).to_mkldnn(), Tagged(torch.ones(2)), torch.empty(0).as_subclass(Tagged),
                     torch.ones(2, device="meta").as_subclass(Tagged)]
    for dense_kept in (torch.arange(16.0).reshape(4, 4), torch.arange(16).reshape(4, 4)):
        refused_alone.extend([dense_kept.to_sparse_csr(), dense_kept.to_sparse_csc(), dense_kept.to_sparse_bsr((2, 2)),
                              dense_kept.to_sparse_bsc((2, 2))])
for refused_leaf in refused_alone:
    holds_refused = torch.nn.Module()
    holds_refused.register_buffer("kept", refused_leaf)
    try:
        copy.deepcopy(refused_leaf)
    except (NotImplementedError, RuntimeError) as alone_refusal:
        refused_how = (type(alone_refusal), str(alone_refusal).split(".")[0])
    else:
        raise AssertionError("deepcopy of each leaf of the list, on its own, must raise")
    try:
        copy.deepcopy(holds_refused)
    except (NotImplementedError, RuntimeError) as module_refusal:
        assert refused_leaf.is_leaf and refused_leaf.grad_fn is None and refused_how == (
            type(module_refusal), str(module_refusal).split(".")[0]), (
            "deepcopy refuses a module keeping a leaf it refuses alone, with the same error")
    else:
        raise AssertionError("deepcopy of a module keeping a leaf deepcopy refuses alone must raise")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 传给函数的张量、作为默认值保存的张量、模块浅拷贝里的张量，都和原来的是同一个张量；``i`` 为 Python 的 ``int``、``self.data`` 为稠密张量（布局为 ``torch.strided``，既非嵌套也非量化）时，数据集以 ``self.data[i]`` 交出去的样本则是原来那个张量的视图，与它共享内存。经由其中任何一个名字做原地操作，改的都是原来的张量，除非 torch 拒绝这次操作（比如上面在梯度模式打开时对需要梯度的叶子张量）。函数里写 ``x = x + 1``；张量默认值在调用内部创建；调用者可能修改样本时，数据集交出 ``clone()``；复制模块用
# ``copy.deepcopy``，它拒绝复制的情形包括：模块存着非叶子张量（带 ``grad_fn`` 的张量），存着 ``.grad`` 带 ``grad_fn`` 的非 ``Parameter`` 张量，或存着它单独复制时就拒绝的叶子张量，比如普通 ``torch.Tensor`` 子类的实例（详见 :ref:`“copy.deepcopy”那一页 <questions-deepcopy>`）。
