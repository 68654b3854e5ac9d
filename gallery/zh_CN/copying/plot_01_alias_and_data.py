"""
.. _copying-alias:

``b = a`` 与 ``b = a.data`` 都不是复制
======================================

原博文从一个出人意料的现象讲起：循环里用 ``a.data`` 得到 ``b``，逐个往 ``b`` 里写 1，结果 ``a`` 也变成了全 1。本页分别用 ``b = a.data`` 和 ``b = a`` 运行这个循环，再说明为什么两种写法都没有给 ``b`` 分配独立的内存。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# 在有真实内存的设备上（不包括 ``meta``：那里每块存储的起始地址都是 0），两个张量的存储都有字节时，存储起始地址相同，就说明它们共享内存；起始地址不同，却不能排除共享内存（见下一个单元格）。至于两个张量有没有共同的元素，那是另一个问题，见 :ref:`“两个张量是否共享内存”那一页 <questions-memory-overlap>`。没有字节的存储（比如新建的空张量 ``torch.empty(0)`` 的存储）没有内存可共享，所以下面的辅助函数不适用于它，也不适用于在内部类 ``torch._subclasses.fake_tensor.FakeTensorMode`` 下创建的伪张量（fake tensor），即使它的设备显示为 ``cpu``。辅助函数只比较两个地址，返回比较结果；页面打印的只是这个结果，从不打印地址本身。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# sphinx_gallery_start_ignore
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.zeros(2, device="meta"), torch.ones(3, dtype=torch.int64, device="meta"),
    torch.empty(0, dtype=torch.complex64, device="meta"), torch.zeros(4, dtype=torch.float8_e4m3fn, device="meta"),
    torch.arange(12.0).reshape(3, 4).to("meta")[1:].t())), (
    "on meta every storage starts at address 0: float, integer, complex, float8, empty, moved there or a view")
assert same_storage(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), (
    "on meta same_storage finds unrelated tensors sharing memory")
assert torch.empty(0).untyped_storage().nbytes() == 0, "the storage of a freshly made empty tensor has no bytes"
whole = torch.arange(3.0)
heads = {
    "DLPack": torch.from_dlpack(whole[:2]),
    "NumPy": torch.from_numpy(whole[:2].numpy()),
    "frombuffer": torch.frombuffer(whole[:2].numpy(), dtype=torch.float32),
}
for route, head in heads.items():
    assert same_storage(head, whole) and head.untyped_storage().nbytes() < whole.untyped_storage().nbytes(), (
        f"equal starts, two storages: an alias of a slice at offset 0 made through {route} has a storage of its own")
# sphinx_gallery_end_ignore


# %%
# 在这样的设备上，起始地址相同就证明共享内存；起始地址不同，却不能排除共享内存。非空切片的起点不是源张量存储的起点时（``storage_offset()`` 不为 0，这里是 ``row[1:]``），通过 DLPack、NumPy 或 ``torch.frombuffer`` 给它建的别名有一块自己的存储，起点落在源张量的存储之内：``same_storage`` 回答 ``False``，通过每个别名写入却都落到了源张量上。给存储偏移为 0 的非空切片建的别名也有自己的存储，但起点就是源张量存储的起点，``same_storage`` 回答 ``True``。

row = torch.arange(4.0)
aliases = {
    "torch.from_dlpack(row[1:])": torch.from_dlpack(row[1:]),
    "torch.from_numpy(row[1:].numpy())": torch.from_numpy(row[1:].numpy()),
    "torch.frombuffer(row[1:].numpy(), dtype=torch.float32)": torch.frombuffer(row[1:].numpy(), dtype=torch.float32),
}
for n, (name, alias) in enumerate(aliases.items()):
    alias[n] = -1.0
    print(f"{name:<55} same storage: {same_storage(alias, row)!s:<5}  row: {row.tolist()}")
assert row.tolist() == [0.0, -1.0, -1.0, -1.0], "a write through each alias reaches row"
# sphinx_gallery_start_ignore
assert not any(same_storage(alias, row) for alias in aliases.values()), "each alias has a storage of its own"
inner = torch.arange(6.0)[2:]
assert inner.storage_offset() == 2 and not any(same_storage(alias, inner) for alias in (
    torch.from_dlpack(inner[:2]), torch.from_numpy(inner[:2].numpy()),
    torch.frombuffer(inner[:2].numpy(), dtype=torch.float32))), (
    "from a source at storage offset 2, an alias of the slice at its first element has a storage of its own")
assert all(row.untyped_storage().data_ptr() < alias.untyped_storage().data_ptr()
           < row.untyped_storage().data_ptr() + row.untyped_storage().nbytes() for alias in aliases.values()), (
    "each alias's storage starts inside the source's")
grids = [torch.zeros(3, 4, dtype=dtype) for dtype in (
    torch.int64, torch.float64, torch.uint8, torch.bool, torch.float16, torch.complex64)]
pairs = [(grid, alias) for grid in grids for alias in (
    torch.from_dlpack(grid[1]), torch.from_numpy(grid[1].numpy()),
    torch.frombuffer(grid[1].numpy(), dtype=grid.dtype),
    torch.from_dlpack(grid[:, 1]), torch.from_numpy(grid[:, 1].numpy()))] + [(inner, alias) for alias in (
    torch.from_dlpack(inner[:2]), torch.from_numpy(inner[:2].numpy()),
    torch.frombuffer(inner[:2].numpy(), dtype=torch.float32))]
assert all(source.untyped_storage().data_ptr() < alias.untyped_storage().data_ptr()
           < source.untyped_storage().data_ptr() + source.untyped_storage().nbytes() for source, alias in pairs), (
    "in int64, float64, uint8, bool, float16 and complex64, an alias of a row or a column at a non-zero storage "
    "offset, and an alias of the slice of a source at offset 2, start inside the source's storage")
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
# 原博文的循环丢了缩进
# --------------------
#
# 原文中的循环丢了缩进，照原样不是合法的 Python：逐字编译循环的各行（不含上方博客的“// A code block”占位行），还没运行就失败了。

article_loop = """\
a = torch.zeros(2, 3)
for i in range(2):
for j in range(3):
b = a.data
b[i, j] = 1
print("b:", b)
print("a:", a)
"""
try:
    compile(article_loop, "article_loop", "exec")
except IndentationError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("the loop as printed must not compile")

# %%
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    上方输出表明，原文给出的循环各行会抛出 ``IndentationError``：内层 ``for`` 应当缩进在外层循环之内，后面四条语句应当缩进在内层循环之内。下面的代码补回了缩进，以 ``b:`` 和 ``a:`` 开头的各行与原文的输出一致（代码在每对这样的行之前还多打印一行 ``after …``）。

# %%
# 用 ``b = a.data`` 写入
# ----------------------
#
# 这是补回缩进的循环。每一步通过 ``b`` 写入一个元素，再打印两个名字：写进 ``b`` 的每个 ``1``
# 都立刻出现在 ``a`` 里。

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a.data
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through a.data"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# 用 ``b = a`` 写入
# -----------------
#
# 换成普通赋值，同样的循环，同样的结果。

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through b = a"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# 为什么：``b = a`` 是同一个对象
# ------------------------------
#
# Python 里给名字赋值（``b = a``）从不复制，只是给已有的对象再起一个名字。所以 ``b is a`` 成立：自始至终只有一个张量。

a = torch.zeros(2, 3)
b = a
print("b is a:", b is a)
print("same storage:", same_storage(a, b))
# sphinx_gallery_start_ignore
assert b is a and same_storage(a, b), "b = a must give the same tensor object, on the same storage"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 b，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。两个名字通向同一个张量对象。

draw_memory("b = a", a=a, b=b)

# %%
# 为什么：``a.data`` 是另一个对象，用的是同一块内存
# -------------------------------------------------
#
# ``a.data`` 是另一个 Python 对象：``a.data is a`` 为 ``False``，而且每读一次就新建一个。但它和 ``a`` 用的是同一块存储，通过它写入的值，都落在 ``a`` 的内存里。

a = torch.zeros(2, 3)
b = a.data
print("b is a:", b is a)
print("a.data is a.data:", a.data is a.data)
print("same storage:", same_storage(a, b))
assert same_storage(a, b), "a.data must share a's storage"
# sphinx_gallery_start_ignore
assert b is not a, "a.data must be a separate tensor object"
assert a.data is not a.data, "each access to .data must build a new tensor object"
# sphinx_gallery_end_ignore

b[0, 0] = 7
print("b:", b)
print("a:", a)
# sphinx_gallery_start_ignore
assert a[0, 0] == 7, "a write through a.data must reach a"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 b，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。两个张量对象，一块存储 ``S1``，两个计数器。

# sphinx_gallery_start_ignore
assert (a._version, b._version) == (0, 1), "a.data must count its edit in a counter of its own"
# sphinx_gallery_end_ignore

draw_memory("b = a.data", a=a, b=b)

# %%
# 小结
# ----
#
# ``b = a`` 和 ``b = a.data`` 都没有复制任何东西：前者给同一个张量多起一个名字，后者在同一块内存上新建一个张量对象。要让 ``b`` 有自己的内存，就得显式复制，做法见 :ref:`“最保险的复制”那一页 <copying-safe-copy>`。
