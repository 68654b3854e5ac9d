"""
.. _questions-views:

视图：哪些操作共享内存，经由视图写入会怎样
==========================================

.. admonition:: 答案
   :class: answer

   在 CPU 上，``expand`` 让几个元素落在同一个内存位置上时，有些写入（如 ``wide[0] = 1.0``、``add_(1.0)``、从另一块内存 ``copy_``）会被拒绝。``clone()`` 让每个元素有自己的内存：

   .. code-block:: python

      wide = column.expand(3, 4)
      wide = wide.clone()
      wide[0] = 1.0

``wide = column.expand(3, 4)`` 之后，往 ``wide`` 里写入，如 ``wide[0] = 1.0``，会得到这条报错：``RuntimeError: unsupported operation: more than one element of the
written-to tensor refers to a single memory location. Please clone() the
tensor before performing the operation``。为什么一行看起来差不多的代码却不报错，正是
`pytorch/pytorch#42726 <https://github.com/pytorch/pytorch/issues/42726>`__ 问的问题。本页列出哪些操作返回视图（view）、``reshape``
什么时候会复制，以及基张量（base tensor）与它的视图共享哪些东西：内存、同一个版本计数器（version counter），对于在梯度模式（grad mode）下、``torch.inference_mode()`` 之外取得的视图，还有自动求导（autograd）的历史（``CopySlices``）。
"""

# %%
# 辅助函数
# --------
#
# 视图有一个 ``_base``：它所使用的那块内存的主人。推理张量（inference tensor）的视图是例外，它没有 ``_base``，见 :ref:`“推理模式”那一页 <questions-inference-mode>`；在 torch 文档列为视图的操作中，``detach()``、``view(dtype)`` 和稀疏张量的 ``indices()`` 也不设 ``_base``；实数张量的 ``.real``、0 维张量的 ``.mT``，以及 0 维实数张量的 ``.H``、``.mH`` 和 ``adjoint()`` 同样不设，它们返回的就是该张量本身，见下文讲 ``_base`` 的一节。
#
# ``bytes_apart`` 判断两个张量的存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。
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
# 哪些操作返回视图
# ----------------
#
# 切片、整数下标、``view``、对连续张量的 ``reshape``、``t()`` 和 ``expand`` 返回的都是 ``x``
# 的视图。用由 Python 整数组成的列表或掩码做下标，也就是高级索引（advanced indexing），会复制；布局必须改变时，``reshape`` 和 ``contiguous()`` 也会复制。
x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
results = {
    "x[0]": x[0],
    "x[:, 1:]": x[:, 1:],
    "x.view(3, 2)": x.view(3, 2),
    "x.reshape(3, 2)": x.reshape(3, 2),
    "x.t()": x.t(),
    "x[:, :1].expand(2, 3)": x[:, :1].expand(2, 3),
    "x[[0, 1]]": x[[0, 1]],
    "x[x > 2]": x[x > 2],
    "x.t().reshape(6)": x.t().reshape(6),
    "x.t().contiguous()": x.t().contiguous(),
}
views = [name for name, result in results.items() if result._base is x]
for name, result in results.items():
    print(f"{name:<22} view of x: {name in views!s:<5}  same storage: {same_storage(result, x)}")
assert views == list(results)[:6], "the first six are views, the last four are copies"
# sphinx_gallery_start_ignore
assert all(same_storage(results[key], x) for key in views), "every view shares x's memory"
assert all(bytes_apart(results[key], x) for key in list(results)[6:]), (
    "advanced indexing, x.t().reshape and x.t().contiguous() share no memory with x")
# sphinx_gallery_end_ignore

# %%
# ``view`` 还是 ``reshape``
# -------------------------
#
# ``x.t()`` 不是连续的：按行依次读取它，在内存里是跳着走的（由它的步长（stride）可以算出每个元素在 ``x`` 内存中的位置，打印在下面）。``view`` 拒绝把它展平，并建议改用 ``reshape``，后者会复制。
places = [row * x.t().stride(0) + column * x.t().stride(1) for row in range(3) for column in range(2)]
print("places in memory of x.t()'s elements, row by row:", places)
assert places != sorted(places), "reading x.t() row by row does not go through memory in order"
try:
    x.t().view(6)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("view() of a non-contiguous layout must raise")
print("x.t().is_contiguous():", x.t().is_contiguous())
print("x.t().reshape(6):", x.t().reshape(6))
assert not x.t().is_contiguous(), "x.t() is not contiguous"
assert "Use .reshape(...) instead" in message, "view points to reshape"

# %%
# 对本来就连续的张量调用 ``contiguous()``，返回的就是张量本身：不是副本，连新对象都不是。
print("x.contiguous() is x:", x.contiguous() is x)
assert x.contiguous() is x, "contiguous() returns self when there is nothing to do"

# %%
# 往 ``expand`` 的结果里写入
# --------------------------
#
# ``expand`` 用步长 0 重复同一个元素，并不复制：下面 ``wide`` 每一行的四个元素在内存里其实是同一个数（第二维的步长为 0）。往里写入会报错；``clone()``
# 让每个元素都有自己的内存，之后写入就没问题了。
column = torch.zeros(3, 1)
wide = column.expand(3, 4)
print("wide.stride():", wide.stride())
try:
    wide[0] = 1.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("writing into an expanded tensor must raise")
wide = wide.clone()
wide[0] = 1.0
print("after clone():", wide.stride())
print(wide)
assert message.startswith(
    "unsupported operation: more than one element of the written-to tensor refers to a single"
), "the write into the expanded tensor is refused: its elements share memory locations"
# sphinx_gallery_start_ignore
assert wide.stride() == (4, 1) and torch.equal(column, torch.zeros(3, 1)), "the clone has its own memory"
# sphinx_gallery_end_ignore

# %%
# 对 CPU 上扩展出的张量，并非每种写入都会被拒绝，例如，以数值为值的 ``fill_`` 可以执行；``wide[:, 0] = ...`` 写的是第一列，这一列的三个元素是三个不同的位置，也能执行；两者都让每一列跟着变，因为各列本是同一块内存。以 0 维张量为值的 ``fill_`` 被拒绝；``add_``，即使加的只是一个数（如 ``add_(1.0)``），以及来源为另一块内存上的张量（这里是 ``torch.ones(3, 4)`` 和 ``torch.ones(3, 1).expand(3, 4)``）的 ``copy_``，会从几个元素往同一个位置写，也和刚才的 ``wide[0] = 1.0`` 一样被拒绝；以 ``column`` 为来源的 ``copy_`` 也被拒绝，它是同一块内存，但形状不同。来源是 ``column`` 自己那块存储上的视图、形状和步长都与 ``wide`` 相同时（``wide`` 本身，或再做一次的 ``column.expand(3, 4)``），``copy_`` 不会被拒绝：来源和目标是同一批元素。经 DLPack 或 NumPy 给同一块内存建的别名（``torch.from_dlpack(wide)``、``torch.from_numpy(wide.numpy())``）形状和步长也与 ``wide`` 相同，以它为来源的 ``copy_`` 照样被拒绝。
column = torch.zeros(3, 1)
wide = column.expand(3, 4)
wide.fill_(2.0)
wide[:, 0] = torch.tensor([1.0, 2.0, 3.0])
print("column:", column.flatten())
print(wide)
refusals = []
for name, write in {
    "fill_(torch.tensor(2.0))": lambda: wide.fill_(torch.tensor(2.0)),
    "add_(1.0)": lambda: wide.add_(1.0),
    "copy_(torch.ones(3, 4))": lambda: wide.copy_(torch.ones(3, 4)),
    "copy_(torch.ones(3, 1).expand(3, 4))": lambda: wide.copy_(torch.ones(3, 1).expand(3, 4)),
    "copy_(column)": lambda: wide.copy_(column),
    "copy_(torch.from_dlpack(wide))": lambda: wide.copy_(torch.from_dlpack(wide)),
    "copy_(torch.from_numpy(wide.numpy()))": lambda: wide.copy_(torch.from_numpy(wide.numpy())),
}.items():
    try:
        write()
    except RuntimeError as e:
        refusals.append(str(e))
        print(f"wide.{name}: {type(e).__name__}: {str(e).split(':')[0]}")
    else:
        raise AssertionError(f"wide.{name} must raise")
wide.copy_(wide)
wide.copy_(column.expand(3, 4))
print("wide.copy_(wide) and wide.copy_(column.expand(3, 4)) pass; column:", column.flatten())
assert torch.equal(column.flatten(), torch.tensor([1.0, 2.0, 3.0])), (
    "fill_, a column write and the two copies of the same elements pass"
)
# sphinx_gallery_start_ignore
assert len(refusals) == 7 and all(
    m.startswith("unsupported operation: more than one element of the written-to tensor") for m in refusals
), "fill_ with a 0-d tensor, add_ and copy_ from other memory, column or an alias are refused as wide[0] was"
assert (column.expand(3, 4).data_ptr(), column.expand(3, 4).shape, column.expand(3, 4).stride()) == (
    wide.data_ptr(), wide.shape, wide.stride()
), "column.expand(3, 4) made again has wide's memory, shape and strides"
assert all(
    (t.data_ptr(), t.shape, t.stride()) == (wide.data_ptr(), wide.shape, wide.stride())
    for t in (torch.from_dlpack(wide), torch.from_numpy(wide.numpy()))
), "the DLPack and NumPy aliases of wide have wide's memory, shape and strides"
# sphinx_gallery_end_ignore

# %%
# `pytorch/pytorch#42726 <https://github.com/pytorch/pytorch/issues/42726>`__ 的疑问：同样是
# ``expand(...).type_as(weight)``，一段代码写入时报错，另一段却不报错。``type_as`` 的目标 dtype
# 与张量原本的相同时，原样返回，仍是 expand 出来的视图；真正的类型转换（这里是 ``bool`` 转 ``float``）会生成一个新的连续张量，可以写入。
weight = torch.rand(4, 4)
ones = torch.ones(4)
same_dtype = ones[:, None].expand_as(weight).type_as(weight)
cast = (ones > 0.5)[:, None].expand_as(weight).type_as(weight)
print("float -> float: stride", same_dtype.stride(), " view:", same_dtype._base is not None)
print("bool -> float:  stride", cast.stride(), " view:", cast._base is not None)
cast[0] = 0.0
assert same_dtype.stride() == (1, 0) and cast.stride() == (4, 1), "only the cast materialises the tensor"

# %%
# 基张量和它的视图共享一个版本计数器
# ----------------------------------
#
# 经由在 ``torch.inference_mode()`` 之外取得的任何一个视图做 torch 原地（in-place）操作，基张量和它其余所有视图的计数器都会一起增加（少数几个根本不推进计数器的内核除外；在推理模式内取得的 ``view(dtype)`` 以及 ``unsafe_chunk`` 和 ``unsafe_split`` 切出的块也是视图，却没有计数器，或者各有自己的计数器，见 :ref:`“版本计数器”那一页 <questions-version-counter>`）。所以无论自动求导保存的是其中哪一个，都能发现这次修改，除非它是经由保存张量的钩子（saved tensors hooks）保存的，或被自定义 ``Function`` 存成了属性，或者保存它的自定义 ``Function`` 的 ``backward`` 从不读取 ``ctx.saved_tensors`` 属性（见 :ref:`“.data 与 no_grad”那一页 <questions-data-vs-no-grad>`）。下面对 ``graph_leaf * 1`` 取同样三个视图：无论经由 ``row`` 的修改是被记录的，还是在 ``torch.no_grad()`` 下做的，只要计算图保存的是基张量、``row`` 或 ``transposed``，``backward()`` 都会报错；一条事实对 torch 文档列出的每种视图操作的视图，两个方向都试了一遍。:fact:`version-counter-shared-by-views-and-detach`\ 对每个值调用 Python 函数的 ``apply_`` 和 ``map_`` 经由视图修改基张量时，不增加任何计数器。在推理模式内得到的推理张量是例外：它们没有版本计数器，它们的视图也没有 ``_base``，见 :ref:`“推理模式”那一页 <questions-inference-mode>`。
base = torch.zeros(2, 3)
row = base[0]
transposed = base.t()
row.add_(1.0)
print("base:", base)
print("_version: base", base._version, " row", row._version, " transposed", transposed._version)
assert base._version == row._version == transposed._version == 1, "row.add_ put base, row and transposed at version 1"
graph_leaf = torch.ones(2, 3, requires_grad=True)
for mode in (torch.enable_grad, torch.no_grad):
    for saved in ("base", "row", "transposed"):
        graph_base = graph_leaf * 1
        graph_views = {"base": graph_base, "row": graph_base[0], "transposed": graph_base.t()}
        loss = graph_views[saved].sin().sum()  # sin 保存了它的输入
        with mode():
            graph_views["row"].add_(1.0)
        try:
            loss.backward()
        except RuntimeError as e:
            print(f"edit through row under {mode.__name__}, graph saved {saved}: {type(e).__name__}: "
                  f"...{str(e)[str(e).index('is at version'):str(e).index(' instead')]}")
        else:
            raise AssertionError(f"an edit through row must break backward() of a graph that saved {saved}")
other = torch.zeros(2, 3)
other[0].apply_(lambda v: v + 1)
other[1].map_(torch.ones(3), lambda v, w: v + w)
print("after other[0].apply_ and other[1].map_: other", other, " _version", other._version)
assert torch.equal(other, torch.ones(2, 3)) and other._version == 0, (
    "apply_ and map_ through views edit the base, no counter moves")

# %%
# .. figure-caption::
#    :alt: 示意图：名字 base、row 和 transposed 指向同一块存储 S1 上的三个张量对象，三者共享版本计数器 C1，读数都是 _version=1。
#
#    三个张量对象在同一块存储 ``S1`` 上，共享计数器 ``C1``：通过 ``row`` 做的一次修改让三者都显示 ``_version=1``。

draw_memory("row = base[0]; transposed = base.t(); row.add_(1.0)", base=base, row=row, transposed=transposed)
# sphinx_gallery_start_ignore
assert same_storage(base, row) and same_storage(base, transposed), "the views share the base's storage"
with torch.inference_mode():
    inference_base = torch.zeros(4)
    inference_view = inference_base[1:3]
assert inference_view._base is None and same_storage(inference_base, inference_view), "inference view: no _base"
try:
    inference_base._version
except RuntimeError as e:
    assert "do not track version counter" in str(e), "inference tensors have no version counter"
else:
    raise AssertionError("an inference tensor must have no version counter")
# sphinx_gallery_end_ignore

# %%
# ``CopySlices``：经由视图的修改进入基张量的历史
# ----------------------------------------------
#
# ``y[0] = 10.0`` 经由视图 ``y[0]`` 写入。自动求导把它作为一个 ``CopySlices`` 节点记在 ``y`` 上：此后 ``y[0]``
# 不再依赖 ``leaf``，所以那里的梯度是 0，和对常数求导的结果一致。
leaf = torch.ones(3, requires_grad=True)
y = leaf * 2
print("y.grad_fn before:", type(y.grad_fn).__name__)
y[0] = 10.0
print("y.grad_fn after: ", type(y.grad_fn).__name__, " y._version:", y._version)
y.sum().backward()
print("leaf.grad:", leaf.grad)
assert type(y.grad_fn).__name__ == "CopySlices" and torch.equal(leaf.grad, torch.tensor([0.0, 2.0, 2.0])), (
    "y[0] = 10.0 is recorded as CopySlices, and leaf.grad is 0 where it wrote"
)

# %%
# .. figure-caption::
#    :alt: 示意图：y 之下的自动求导计算图。CopySlices 指向 MulBackward0，MulBackward0 再指向 AccumulateGrad 和叶子张量 leaf。
#
#    ``y`` 之下的计算图：写入 ``y[0] = 10.0`` 成了节点 ``CopySlices``，它下面是 ``leaf * 2`` 的 ``MulBackward0``。

draw_graph("y = leaf * 2; y[0] = 10.0", y, leaf=leaf)

# %%
# 在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下取得的视图仍然是视图（它有 ``_base``），但自动求导没有记录它。从需要梯度的张量取得时，不论这个张量是不是叶子张量（leaf tensor），视图本身都是没有 ``grad_fn`` 的叶子张量：梯度不会经由它到达 ``w``，在梯度模式下、``torch.inference_mode()`` 之外经由它做原地修改会报错，而不会进入基张量的历史。例外是那个张量本身就是 ``_base`` 不需要梯度的视图（用 ``requires_grad_()`` 变成叶子张量的视图，比如下面的 ``view_leaf``，或者这种视图的视图）：这时取得的视图不需要梯度，原地修改照常执行。
for off in (torch.no_grad, torch.inference_mode):
    for kind in ("w", "w * 2"):
        w = torch.ones(3, requires_grad=True)
        parent = w if kind == "w" else w * 2
        with off():
            quiet = parent[1:]
        (quiet * 3).sum().backward()
        print(f"{off.__name__}, view of {kind}: _base is parent: {quiet._base is parent}  "
              f"is_leaf: {quiet.is_leaf}  grad_fn: {quiet.grad_fn}  w.grad: {w.grad}")  # fmt: skip
        assert quiet._base is parent and quiet.is_leaf and quiet.grad_fn is None and w.grad is None, (
            "a view taken under no_grad or inference_mode is a leaf with no grad_fn; no gradient reaches w")
        for on, where in ((torch.enable_grad, "by default"), (torch.no_grad, "with enable_grad() in no_grad()")):
            with on(), torch.enable_grad():
                try:
                    quiet.mul_(10)
                except RuntimeError as e:
                    print(f"  quiet.mul_(10) {where}: {str(e).split('.')[0]}")
                else:
                    raise AssertionError("an edit with grad mode on of a view taken under no_grad or inference_mode "
                                         "must raise")
view_leaf = torch.ones(3)[:].requires_grad_()
for off in (torch.no_grad, torch.inference_mode):
    for kind, parent in {"view_leaf": view_leaf, "view_leaf[:]": view_leaf[:]}.items():
        with off():
            quiet = parent[1:]
        before = view_leaf._version
        quiet.mul_(10)
        print(f"{off.__name__}, view of {kind}: _base.requires_grad: {parent._base.requires_grad}  is_leaf: "
              f"{quiet.is_leaf}  requires_grad: {quiet.requires_grad}  view_leaf._version: {view_leaf._version}")
        assert parent.requires_grad and not parent._base.requires_grad and quiet.is_leaf and quiet.grad_fn is None \
            and not quiet.requires_grad and view_leaf._version == before + 1, (
                "a view taken with grad off of a view whose _base does not require grad: a leaf that does not "
                "require grad, and an edit through it with grad mode on runs")

# %%
# ``_base`` 回答不了“是否共享内存”
# --------------------------------
#
# 只有视图才有 ``_base``。下面前六个张量都和来源共享内存，却根本没有 ``_base``；最后一个是视图 ``inner``
# 的视图，它的 ``_base`` 是最初的 ``x``，而不是 ``inner``。要问一个张量是否与它的来源共享内存，应当比较它们的存储，正如 ``same_storage`` 所做的。在有真实内存的设备上（不包括 ``meta``：那里每块存储的起始地址都是 0），对两块都至少有一个字节的存储，起始地址相同能证明两者共享内存（空存储不算：torch 分配的空存储起始地址都是 0，而从 NumPy 取得的空存储起始于数组的地址，别的存储也可能从那里开始：下面的 ``empty_from_numpy`` 就与 ``x`` 起始于同一地址），但不能证明有共同的元素；起始地址不同却不能排除共享内存：通过 DLPack、NumPy 或 ``torch.frombuffer`` 给切片建的别名，有一块自己的存储，起点落在源张量的存储之内（三种都在 :ref:`“b = a 与 b = a.data”那一页 <copying-alias>` 上演示过）。哪种办法在每种情况下都能判断对，见 :ref:`“两个张量是否共享内存”那一页 <questions-memory-overlap>`。
import copy

source = torch.ones(3, requires_grad=True)
layer = torch.nn.Linear(2, 2)
inner = x[1:]
shared = {
    "source.detach()": (source.detach(), source),
    "source.data": (source.data, source),
    "copy.copy(x)": (copy.copy(x), x),
    "x.view(torch.int32)": (x.view(torch.int32), x),
    "torch.from_numpy(x.numpy())": (torch.from_numpy(x.numpy()), x),
    'layer.state_dict()["weight"]': (layer.state_dict()["weight"], layer.weight),
    "inner[:, 1:]": (inner[:, 1:], inner),
}
for name, (t, other) in shared.items():
    print(f"{name:<29} _base is None: {t._base is None!s:<5}  _base is x: {t._base is x!s:<5}  "
          f"same storage: {same_storage(t, other)}")  # fmt: skip
assert all(same_storage(t, other) for t, other in shared.values()), "all seven share their source's memory"
empty_from_numpy = torch.from_numpy(x.numpy()[:0])
print("empty_from_numpy: bytes", empty_from_numpy.untyped_storage().nbytes(), " same start as x:",
      same_storage(empty_from_numpy, x))  # fmt: skip
# sphinx_gallery_start_ignore
assert [name for name, (t, _) in shared.items() if t._base is None] == list(shared)[:6], "six have no _base"
assert shared["inner[:, 1:]"][0]._base is x, "a view of a view names the root as its _base"
doubled = source * 2
assert doubled[:1].grad_fn is not None and doubled.detach().grad_fn is None and doubled.data.grad_fn is None, (
    "a slice keeps its base's history; detach() and .data keep none")
sparse = torch.tensor([[0.0, 1.0]]).to_sparse()
assert sparse.indices()._base is None and sparse.values()._base is sparse, "a sparse tensor's indices() has no _base"
documented_views_ = {
    "[1:]": lambda v_: v_[1:], "[0]": lambda v_: v_[0], "adjoint()": lambda v_: v_.adjoint(),
    "as_strided()": lambda v_: v_.as_strided((2,), (1,)), "detach()": lambda v_: v_.detach(),
    "diagonal()": lambda v_: v_.diagonal(), "expand()": lambda v_: v_.expand(2, 3, 4),
    "expand_as()": lambda v_: v_.expand_as(v_), "movedim()": lambda v_: v_.movedim(0, 1),
    "narrow()": lambda v_: v_.narrow(0, 0, 2), "permute()": lambda v_: v_.permute(1, 0),
    "select()": lambda v_: v_.select(0, 1), "squeeze()": lambda v_: v_.squeeze(), "t()": lambda v_: v_.t(),
    "transpose()": lambda v_: v_.transpose(0, 1), "T": lambda v_: v_.T, "H": lambda v_: v_.H, "mT": lambda v_: v_.mT,
    "mH": lambda v_: v_.mH, "real": lambda v_: v_.real, "unflatten()": lambda v_: v_.unflatten(1, (2, 2)),
    "unfold()": lambda v_: v_.unfold(0, 2, 1), "unsqueeze()": lambda v_: v_.unsqueeze(0),
    "view()": lambda v_: v_.view(12), "view(dtype)": lambda v_: v_.view(torch.int64 if v_.is_complex() else torch.int32),
    "view_as()": lambda v_: v_.view_as(v_), "unbind()": lambda v_: v_.unbind()[0], "split()": lambda v_: v_.split(1)[0],
    "hsplit()": lambda v_: v_.hsplit(2)[0], "vsplit()": lambda v_: v_.vsplit(3)[0],
    "tensor_split()": lambda v_: v_.tensor_split(2)[0], "split_with_sizes()": lambda v_: v_.split_with_sizes([1, 2])[0],
    "swapaxes()": lambda v_: v_.swapaxes(0, 1), "swapdims()": lambda v_: v_.swapdims(0, 1),
    "chunk()": lambda v_: v_.chunk(3)[0],
}
real_, complex_ = torch.zeros(3, 4), torch.zeros(3, 4, dtype=torch.complex64)
assert [name_ for name_, op_ in documented_views_.items() if op_(real_)._base is not real_] == [
    "detach()", "real", "view(dtype)"], (
    "of torch's documented view operations, on a real tensor only detach(), .real and view(dtype) set no _base")
assert real_.real is real_, ".real of a real tensor returns the tensor itself"
assert [name_ for name_, op_ in documented_views_.items() if op_(complex_)._base is not complex_] == [
    "detach()", "view(dtype)"], "on a complex tensor only detach() and view(dtype) set no _base; .real sets it"
assert complex_.imag._base is complex_ and torch.view_as_real(complex_)._base is complex_, (
    "the complex-only view operations imag and view_as_real set _base")
import warnings  # noqa: E402

scalar_views_ = {**{name_: documented_views_[name_] for name_ in (
    "adjoint()", "detach()", "expand_as()", "squeeze()", "t()", "T", "H", "mT", "mH", "real", "unsqueeze()",
    "view(dtype)", "view_as()")},
    "[...]": lambda v_: v_[...], "as_strided()": lambda v_: v_.as_strided((), ()), "expand()": lambda v_: v_.expand(2),
    "movedim()": lambda v_: v_.movedim(0, 0), "permute()": lambda v_: v_.permute(()),
    "transpose()": lambda v_: v_.transpose(0, 0), "unfold()": lambda v_: v_.unfold(0, 1, 1),
    "view()": lambda v_: v_.view(1), "swapaxes()": lambda v_: v_.swapaxes(0, 0), "swapdims()": lambda v_: v_.swapdims(0, 0),
}  # fmt: skip
real_scalar_, complex_scalar_ = torch.tensor(2.0), torch.tensor(1 + 2j)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # .T、.H、.mT、.mH 和 adjoint() 用于 0 维张量时会发出已弃用的警告
    real_scalar_views_ = {name_: op_(real_scalar_) for name_, op_ in scalar_views_.items()}
    complex_scalar_views_ = {name_: op_(complex_scalar_) for name_, op_ in scalar_views_.items()}
assert [name_ for name_, t_ in real_scalar_views_.items() if t_._base is not real_scalar_] == [
    "adjoint()", "detach()", "H", "mT", "mH", "real", "view(dtype)"] and all(
    real_scalar_views_[name_] is real_scalar_ for name_ in ("adjoint()", "H", "mT", "mH", "real")), (
    "of torch's documented view operations, on a 0-d real tensor only detach(), view(dtype) and adjoint(), .H, .mT, "
    ".mH and .real, which return the tensor itself, set no _base")
assert [name_ for name_, t_ in complex_scalar_views_.items() if t_._base is not complex_scalar_] == [
    "detach()", "mT", "view(dtype)"] and complex_scalar_views_["mT"] is complex_scalar_, (
    "on a 0-d complex tensor only detach(), view(dtype) and .mT, which returns the tensor itself, set no _base")
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.empty(0), torch.zeros(3, 0, dtype=torch.float64), torch.tensor([]), x[:, :0].clone())
), "empty storages torch allocates all start at 0: equal starts, no sharing"
assert empty_from_numpy.untyped_storage().nbytes() == 0 and x.untyped_storage().data_ptr() != 0 and same_storage(
    empty_from_numpy, x), "an empty tensor taken from NumPy starts at the array's address, here where x starts"
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.zeros(2, device="meta"), torch.ones(3, dtype=torch.int64, device="meta"),
    torch.empty(0, dtype=torch.complex64, device="meta"), torch.zeros(4, dtype=torch.float8_e4m3fn, device="meta"),
    torch.arange(12.0).reshape(3, 4).to("meta")[1:].t())), (
    "on meta every storage starts at address 0: float, integer, complex, float8, empty, moved there or a view")
assert same_storage(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), (
    "on meta same_storage finds unrelated tensors sharing memory")
# sphinx_gallery_end_ignore


# %%
# 小结
# ----
#
# 视图与它的基张量共享内存和版本计数器；在梯度模式下、``torch.inference_mode()`` 之外取得的视图，还共享基张量的求导历史；在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下从需要梯度的张量取得的视图是叶子张量：梯度不会经由它到达基张量，在梯度模式下、``torch.inference_mode()`` 之外对它做原地修改会报错，除非取视图的那个张量是 ``_base`` 不需要梯度的视图。在推理模式内得到的推理张量是例外：它们没有版本计数器，它们的视图也没有 ``_base``，见 :ref:`“推理模式”那一页 <questions-inference-mode>`；在推理模式内，对非推理张量取 ``view(dtype)`` 得到的也是推理张量。:fact:`view-dtype-under-inference-mode-uncounted`\ 在推理模式内用 ``unsafe_chunk`` 和 ``unsafe_split`` 切出的块则是有自己计数器的视图，见 :ref:`“版本计数器”那一页 <questions-version-counter>`。:fact:`unsafe-pieces-in-inference-mode-own-counter`\ ``detach()`` 和 ``.data`` 共享内存，但不共享求导历史。``_base`` 只标记视图：要知道一个张量是否与它的来源共享内存，就比较它们的存储（即上面的 ``same_storage``）：在有真实内存的设备上（不包括 ``meta``），对非空的存储，起始地址相同能证明两者共享内存（但不能证明有共同的元素），起始地址不同却不能排除共享内存。``reshape`` 和 ``contiguous()``
# 只在不得不复制时才复制；想确保拥有独立的内存，就用 ``clone()``。
