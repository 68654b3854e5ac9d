"""
.. _questions-which-calls-copy:

这个调用会复制吗？expand、repeat、contiguous、clone 与 reshape
==============================================================

.. admonition:: 答案
   :class: answer

   ``expand`` 与 ``view`` 共享内存；对 strided 张量，``reshape`` 和 ``flatten`` 只在步长（stride）允许时共享；``repeat`` 会复制，``clone()`` 也复制，但保留 ``w.t()`` 的步长。要共享就用 ``view``；要副本就克隆出连续（contiguous）的副本：

   .. code-block:: python

      live = w.view(-1)
      kept = w.t().clone(memory_format=torch.contiguous_format).view(-1)

``a.t().clone().view(-1)`` 会报错 ``RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.`` 克隆得到的是副本，却不是连续的。本页依次运行：``expand`` 对比 ``repeat``；在连续和不连续的张量上调用 ``contiguous()``；在几种布局上调用 ``clone()``；在连续和不连续的张量上调用 ``reshape``、``flatten`` 和 ``view``。每个结果都比较存储或对象本身，检验是否与源张量共享内存；``expand``、``repeat`` 和 ``reshape`` 的结果还往里写入来检验。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。``viewable`` 判断 ``view`` 是否接受某个形状：``view`` 从不复制，做不到时直接抛出错误。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def viewable(t, shape):
    try:
        t.view(shape)
    except RuntimeError:
        return False
    return True


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
# ``expand`` 与 ``repeat`` 对比
# -----------------------------
#
# ``column.expand(3, 4)`` 返回一个视图（view），新增的列方向上步长为 0：一行的四个元素是同一个内存位置，位于 ``column`` 的存储上。``column.repeat(1, 4)`` 把每个元素都实实在在写出来，放进新的内存：往它里面写入，不会影响 ``column``。循环在五种 dtype 上运行这两者以及 ``expand_as``。

column = torch.arange(3.0).reshape(3, 1)
expanded = column.expand(3, 4)
repeated = column.repeat(1, 4)
repeated[0, 0] = 100.0
print("expanded.stride():", expanded.stride(), " same storage:", same_storage(expanded, column))
print("repeated.stride():", repeated.stride(), " new memory:", not same_storage(repeated, column))
print("column after the write into repeated:", column.flatten())
layouts = []
for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64):
    c = torch.zeros(3, 1, dtype=dtype)
    e, e_as, r = c.expand(3, 4), c.expand_as(torch.empty(3, 4)), c.repeat(1, 4)
    layouts.append((e.stride(), e_as.stride(), same_storage(e, c), same_storage(e_as, c), same_storage(r, c)))
assert set(layouts) == {((1, 0), (1, 0), True, True, False)}, "expand(_as) share with stride 0, repeat copies"
# sphinx_gallery_start_ignore
assert torch.equal(column.flatten(), torch.arange(3.0)), "the write into repeated does not reach column"
assert torch.equal(repeated[1], torch.full((4,), 1.0)), "repeat copies the values"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：column 和 expanded 指向存储 S1；repeated 指向自己的存储 S2。
#
#    ``column`` 和 ``expanded`` 是同一个存储 ``S1`` 上的两个张量对象；``repeated`` 有自己的存储 ``S2``。

draw_memory("expanded = column.expand(3, 4); repeated = column.repeat(1, 4)",
            column=column, expanded=expanded, repeated=repeated)  # fmt: skip
# sphinx_gallery_start_ignore
assert same_storage(column, expanded) and bytes_apart(column, repeated), "S1 shared, S2 of its own"
# sphinx_gallery_end_ignore

# %%
# 往 expand 出来的张量里写入，并非每一种都会被拒绝。``add_`` 和 ``mul_`` 要由每个元素的旧值算出新值，以 ``torch.ones(3, 4)`` 为来源的 ``copy_`` 要把另一块内存里的值复制进来：在 CPU 上三者都会抛出错误，因为 ``expanded`` 的多个元素指向同一个内存位置；以 0 维张量为值的 ``fill_`` 和切片赋值 ``expanded[:] = 7.0`` 也一样。以数值为值的 ``fill_`` 和 ``zero_`` 则可以执行，写入的是被 expand 的那个张量。以再做一次的 ``column.expand(3, 4)`` 为来源的 ``copy_`` 也可以执行，它的元素就是 ``expanded`` 自己的元素（另外几种能通过的写入，见 :ref:`“视图”那一页 <questions-views>`）。

for name, write in {
    "add_(1.0)": lambda: expanded.add_(1.0),
    "mul_(2.0)": lambda: expanded.mul_(2.0),
    "copy_(ones)": lambda: expanded.copy_(torch.ones(3, 4)),
    "fill_(torch.tensor(7.0))": lambda: expanded.fill_(torch.tensor(7.0)),
}.items():
    try:
        write()
    except RuntimeError as e:
        expand_message = str(e)
        print(f"expanded.{name}: {type(e).__name__}: {str(e).split('.')[0]}")
    else:
        raise AssertionError(f"expanded.{name} must raise")
    assert expand_message.startswith(
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location"
    ), f"expanded.{name} is refused: several of its elements are one memory location"
try:
    expanded[:] = 7.0
except RuntimeError as e:
    slice_message = str(e)
    print(f"expanded[:] = 7.0: {type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("expanded[:] = 7.0 must raise")
# sphinx_gallery_start_ignore
assert slice_message == expand_message and slice_message.startswith(
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location"
), "expanded[:] = 7.0 is refused with the same message: several of its elements are one memory location"
# sphinx_gallery_end_ignore
spare = torch.arange(3.0).reshape(3, 1)
spare.expand(3, 4).fill_(7.0)
print("spare after spare.expand(3, 4).fill_(7.0):", spare.flatten())
assert torch.equal(spare, torch.full((3, 1), 7.0)), "fill_ passes and writes into the expanded tensor"
spare.expand(3, 4).zero_()
print("spare after spare.expand(3, 4).zero_():", spare.flatten())
assert torch.equal(spare, torch.zeros(3, 1)), "zero_ passes and writes into the expanded tensor"
expanded.copy_(column.expand(3, 4))
print("expanded.copy_(column.expand(3, 4)) passes; column:", column.flatten())
assert torch.equal(column.flatten(), torch.arange(3.0)), "copy_ from the same expand() made again passes"
# sphinx_gallery_start_ignore
assert (column.expand(3, 4).data_ptr(), column.expand(3, 4).stride()) == (
    expanded.data_ptr(), expanded.stride()
), "column.expand(3, 4) made again has the memory and strides of expanded"
# sphinx_gallery_end_ignore

# %%
# ``contiguous()``：张量本身，还是副本
# ------------------------------------
#
# 对默认 strided 布局、非嵌套的张量，不带参数调用（即使用默认的 ``memory_format``）时，如果张量已经是连续的，``contiguous()`` 返回的就是被调用的那个张量本身（新建的张量、它的一行、它的一个视图、单独一行的转置都是如此）；不连续时，返回一个放在新内存里的连续副本：转置、带步长的切片、expand 出来的张量、``channels_last`` 格式的图像都是如此。

a = torch.arange(6.0).reshape(2, 3)
already = {"a": a, "a[1]": a[1], "a.view(3, 2)": a.view(3, 2), "a[:1].t()": a[:1].t()}
not_yet = {
    "a.t()": a.t(),
    "torch.arange(6.0)[::2]": torch.arange(6.0)[::2],
    "column.expand(3, 4)": column.expand(3, 4),
    "channels_last image": torch.zeros(1, 2, 2, 2).contiguous(memory_format=torch.channels_last),
}
itself = [name for name, t in already.items() if t.contiguous() is t]
copied = [name for name, t in not_yet.items() if not same_storage(t.contiguous(), t) and t.contiguous().is_contiguous()]
for name in already:
    print(f"{name:<24} contiguous() is itself: {name in itself}")
for name in not_yet:
    print(f"{name:<24} contiguous() is a contiguous copy: {name in copied}")
assert itself == list(already) and copied == list(not_yet), "itself when contiguous, a copy when not"

# %%
# ``clone()`` 保留步长
# --------------------
#
# ``clone()`` 总是复制，但默认（``memory_format=torch.preserve_format``）会保留步长，前提是张量的元素不重叠地铺满一整块内存：``a.t()`` 的克隆和 ``a.t()`` 一样不连续，对它调用 ``view(-1)`` 仍会抛出错误。

flipped = a.t().clone()
print("a.t().stride():", a.t().stride(), " clone:", flipped.stride(), " contiguous:", flipped.is_contiguous())
try:
    flipped.view(-1)
except RuntimeError as e:
    view_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("view(-1) of a.t().clone() must raise")
assert view_message == (
    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Use .reshape(...) instead."
), "view(-1) refuses the clone's strides and suggests reshape()"

# %%
# 三维张量的维度重排也是如此。源张量留有空隙（带步长的切片、按列切片）时，克隆得到稠密的内存，维度顺序与源张量相同：下面这些按行排列的源张量，克隆结果的步长是连续的；而有空隙的转置（如 ``x[0][:, ::2].t()``）克隆后仍是转置的步长，并不连续。源张量自身有重叠（expand 出来的张量）时，克隆同样是稠密的；``column.expand(3, 4)``、``column.t().expand(4, 3)`` 以及它们的转置，克隆后的步长都是连续的。

x = torch.arange(24.0).reshape(2, 3, 4)
kept_strides = {"a.t()": a.t(), "x.permute(2, 0, 1)": x.permute(2, 0, 1), "x.transpose(0, 1)": x.transpose(0, 1)}
made_contiguous = {"column.expand(3, 4)": column.expand(3, 4), "x[:, ::2]": x[:, ::2], "x[:, :, :2]": x[:, :, :2]}
for name, t in {**kept_strides, **made_contiguous}.items():
    print(f"{name:<20} stride {t.stride()!s:<12} clone's stride {t.clone().stride()}")
assert all(t.clone().stride() == t.stride() and not t.is_contiguous() for t in kept_strides.values()), (
    "clone() keeps the strides of a.t(), the permute and the transpose")
assert all(t.clone().is_contiguous() and not t.is_contiguous() for t in made_contiguous.values()), (
    "clone() of the expand and the two gapped slices is contiguous")
# sphinx_gallery_start_ignore
assert all(bytes_apart(t.clone(), t) for t in {**kept_strides, **made_contiguous}.values()), (
    "every clone above is in new memory")
assert x[0][:, ::2].t().stride() == (2, 4), "x[0][:, ::2].t() has strides (2, 4)"
assert x[0][:, ::2].t().clone().stride() == (1, 2), (
    "the clone of x[0][:, ::2].t() is dense, in the transposed order")
assert not x[0][:, ::2].t().clone().is_contiguous(), "so the clone of a gapped transpose is not contiguous"
expand_sources = [column.expand(3, 4), column.t().expand(4, 3)]
assert all(e.clone().is_contiguous() and e.t().clone().is_contiguous() for e in expand_sources), (
    "the two 2-d expands and their transposes clone to contiguous strides")
# sphinx_gallery_end_ignore

# %%
# 要连续的副本，就明确要求：``clone(memory_format=torch.contiguous_format)``，或者对不连续的张量调用 ``contiguous()``。两者都给出新的内存，在结果上 ``view(-1)`` 可以正常执行。

fixes = {
    "a.t().clone(memory_format=torch.contiguous_format)": a.t().clone(memory_format=torch.contiguous_format),
    "a.t().contiguous()": a.t().contiguous(),
}
for name, copy in fixes.items():
    print(f"{name:<50} contiguous: {copy.is_contiguous()}  view(-1): {copy.view(-1)}")
assert all(c.is_contiguous() and bytes_apart(c, a) for c in fixes.values()), "both are contiguous copies"
# sphinx_gallery_start_ignore
flat_values = torch.tensor([0.0, 3.0, 1.0, 4.0, 2.0, 5.0])
assert all(torch.equal(c.view(-1), flat_values) for c in fixes.values()), (
    "view(-1) works on both contiguous copies, in a.t()'s order")
# sphinx_gallery_end_ignore

# %%
# ``reshape``：步长允许时是视图，否则是副本
# -----------------------------------------
#
# 对下面这些默认 strided 布局的 float32 张量，只要新形状能用步长在源张量的内存上表示出来，``reshape`` 就返回视图，否则返回副本，与源张量是否连续无关。所以在形状为 3×2、不连续的 ``a.t()`` 上，``reshape(3, 1, 2)`` 是视图，``reshape(6)`` 是副本；在同样不连续的 ``torch.arange(12.0)[::2]`` 上，下面每个形状都是视图。对每个源张量和形状，代码比较两者的存储，把结果填成 -1 看源张量是否跟着变，再检查 ``view`` 是否接受这个形状，结果列在下表。

sources = {
    "a": (lambda: torch.arange(6.0).reshape(2, 3), [(3, 2), (6,), (1, 6)]),
    "a.t()": (lambda: torch.arange(6.0).reshape(2, 3).t(), [(3, 1, 2), (1, 3, 2), (6,), (2, 3)]),
    "arange(12)[::2]": (lambda: torch.arange(12.0)[::2], [(2, 3), (3, 2), (6, 1)]),
    "x[:, 1:]": (lambda: torch.arange(24.0).reshape(2, 3, 4)[:, 1:], [(2, 8), (2, 2, 2, 2), (16,), (4, 4)]),
    "column.expand(3, 4)": (lambda: torch.arange(3.0).reshape(3, 1).expand(3, 4), [(3, 2, 2), (12,), (4, 3)]),
}
rows = []
for name, (make, shapes) in sources.items():
    for shape in shapes:
        t = make()
        r = t.reshape(shape)
        shares = same_storage(r, t)
        r.fill_(-1.0)
        rows.append((name, shape, t.is_contiguous(), shares, bool((t == -1.0).all()), viewable(make(), shape)))
table_rows = [("source", "shape", "contiguous", "same storage", "write reaches source", "view accepts")]
table_rows += [(name, *map(str, cells)) for name, *cells in rows]
for name, shape, contiguous, shares, reached, accepted in table_rows:
    print(f"{name:<20} {shape:<14} {contiguous:<11} {shares:<13} {reached:<21} {accepted}")
assert all(shares == reached == accepted for _, _, _, shares, reached, accepted in rows), "a view exactly where view accepts"
# sphinx_gallery_start_ignore
by_source = {name: {shares for n, _, _, shares, _, _ in rows if n == name} for name in sources}
assert by_source["a"] == {True} and by_source["arange(12)[::2]"] == {True}, "contiguous or 1-d strided: all views"
mixed = [by_source[name] for name in ("a.t()", "x[:, 1:]", "column.expand(3, 4)")]
assert mixed == [{True, False}] * 3, "these three sources give views and copies"
assert all(same_storage(t.view(s), t) for make, shapes in sources.values() for s in shapes for t in [make()]
           if viewable(t, s)), "every shape view accepts gives a tensor on the source's storage"
assert not any(sources[name][0]().is_contiguous() for name in ("a.t()", "arange(12)[::2]")), (
    "a.t() and arange(12)[::2] are not contiguous")
# sphinx_gallery_end_ignore

# %%
# ``flatten`` 与 ``view``
# -----------------------
#
# ``flatten`` 遵循同样的规则：对不连续的 ``y = x[:, 1:]``，``y.flatten(1)`` 是视图，``y.flatten()`` 则是副本，``a.t().flatten()`` 也是副本。对默认 strided 布局的一维张量，``flatten()`` 返回张量本身。:fact:`flatten-unmerged-returns-itself`\ 在这些张量上，``view`` 接受某个形状，当且仅当 ``reshape`` 和 ``flatten`` 在这个形状上给出视图；凡是它们复制的地方，``view`` 都会抛出上面引用的那条错误。

y = x[:, 1:]
flat = {
    "a.flatten()": (a.flatten(), a, (-1,)),
    "y.flatten(1)": (y.flatten(1), y, (2, -1)),
    "y.flatten()": (y.flatten(), y, (-1,)),
    "a.t().flatten()": (a.t().flatten(), a.t(), (-1,)),
}
for name, (f, source, shape) in flat.items():
    print(f"{name:<16} same storage: {same_storage(f, source)!s:<6} view accepts: {viewable(source, shape)}")
assert [same_storage(f, s) for f, s, _ in flat.values()] == [True, True, False, False], "two views, two copies"
# sphinx_gallery_start_ignore
assert all(same_storage(f, s) == viewable(s, shape) for f, s, shape in flat.values()), "flatten shares iff view does"


def view_refusal(t, shape):
    try:
        t.view(shape)
    except RuntimeError as refusal:
        return str(refusal)
    return None


assert {view_refusal(make(), shape) for make, shapes in sources.values() for shape in shapes if not viewable(make(), shape)} | {
    view_refusal(s, shape) for _, s, shape in flat.values() if not viewable(s, shape)} == {view_message}, (
    "every shape view refuses in the table and for flatten gets the message quoted above")
# sphinx_gallery_end_ignore
v = torch.arange(3.0)
print("v.flatten() is v:", v.flatten() is v)
assert v.flatten() is v, "flatten() of a 1-d tensor returns the tensor itself"
# sphinx_gallery_start_ignore
assert a.dim() == 2 and all(m.flatten(1) is m for m in (a, a.t())), "flatten(1) of a 2-d tensor returns the tensor itself"
assert all(p.flatten(d, d) is p for p in map(torch.zeros, [(3,), (2, 3), (2, 3, 4)]) for d in range(-p.dim(), p.dim())), (
    "flatten(d, d) of a tensor with dimensions returns the tensor itself"
)
probe_scalar = torch.tensor(2.0)
probe_flat = probe_scalar.flatten()
assert probe_flat is not probe_scalar and probe_flat.shape == (1,) and probe_flat._base is probe_scalar, (
    "flatten() of a 0-d tensor returns a new one-element view"
)
# sphinx_gallery_end_ignore

# %%
# 解决办法：需要什么就明确要什么
# ------------------------------
#
# 需要共享的代码用 ``view``：它宁可抛出错误也不复制；需要副本的代码就明确要一个副本。下面让优化器走三步：层权重的展平视图 ``live`` 每一步都跟着变；每一步对权重的转置做一份连续克隆（再用 ``view`` 展平），它留住的是那一步的值。

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
w = model.weight.detach()
live = w.view(-1)
snapshots, values = [], []
for _ in range(3):
    loss = model(torch.randn(4, 3)).pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    kept = w.t().clone(memory_format=torch.contiguous_format).view(-1)
    snapshots.append(kept)
    values.append([v for row in w.t().tolist() for v in row])
print("live, the weight now:", [round(v, 4) for v in live.tolist()])
for step, kept in enumerate(snapshots):
    print(f"kept at step {step}:", [round(v, 4) for v in kept.tolist()])
print("live, same storage as the weight:", same_storage(live, model.weight))
assert torch.equal(live, model.weight.detach().reshape(-1)), "live follows the weight"
assert [s.tolist() for s in snapshots] == values, "each snapshot kept the value of its step"
# sphinx_gallery_start_ignore
assert same_storage(live, model.weight), "live is a view of the weight"
assert all(bytes_apart(s, model.weight) for s in snapshots), "the snapshots are copies"
assert values[0] != values[2], "the weight moved, so the snapshots differ"
assert w.t().clone().stride() == w.t().stride() != w.t().contiguous().stride(), (
    "clone() keeps the strides of w.t(), which are not contiguous")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``expand`` 和 ``view`` 从不复制，``repeat`` 总是复制。对默认 strided 布局、非嵌套的张量，``contiguous()`` 在默认的 ``memory_format`` 下只复制不连续的张量，对连续的张量返回其本身。``clone()`` 总是复制；源张量的元素不重叠地铺满一块内存（即稠密）时，克隆会保留它的步长，所以结果仍可能被 ``view`` 拒绝。对默认 strided 布局、非嵌套的 float32、float64、bfloat16、int64、bool 或 complex64 张量，``reshape`` 和 ``flatten`` 恰好在 ``view`` 能执行时返回视图，所以返回视图还是副本取决于步长，而不是源张量是否连续（对默认 strided 布局的张量，``start_dim`` 和 ``end_dim`` 指的是同一维时，``flatten`` 返回张量本身，一维张量的 ``flatten()`` 和二维张量的 ``flatten(1)`` 都是这样；0 维张量没有维度，它的 ``flatten()`` 返回一个只有一个元素的新视图）：在这个区别要紧的地方，用 ``view`` 或连续的 ``clone`` 说清楚你要的是哪一种。:fact:`reshape-view-exactly-when-view-runs` :fact:`flatten-unmerged-returns-itself`
