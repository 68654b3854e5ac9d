"""
.. _questions-memory-overlap:

这两个张量共享内存吗？
======================

.. admonition:: 答案
   :class: answer

   两个张量的 ``untyped_storage().data_ptr()`` 相等，不说明它们有共同的元素；不相等，也不能排除共享。比较元素所占的字节（同一块内存映射两次是例外，如文件映射两次、fork 出来的 worker 进程送回的共享内存张量，见下文）：

   .. code-block:: python

      def normalize(batch, data):
          if shares_memory(batch, data):
              batch = batch.clone()
          return batch.sub_(mean).div_(std)

判断 ``a`` 和 ``b`` 是否共享内存，常见的办法是比较两者的存储从哪里开始：``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()``。两者相等（存储非空、不在 ``meta`` 上）只说明两块存储起点相同，不说明有共同的元素；不相等也不能排除共享，例如经 DLPack、NumPy 或 ``frombuffer`` 给切片建的别名。本页在十对张量上运行这个判断，并用写入核对每个答案：通过一个张量写入一个值，再到另一个张量里去找。接着比较两个张量的元素所占的字节范围，指出只有写入才能判断的那种布局，然后用这个比较决定：数据管道对一个批次做原地（in-place）归一化之前，是否必须先克隆它；最后给出任何地址比较都判断不了的批次。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 是常见的判断：比较两块存储的起始地址，只打印结果，从不打印地址。``write_test`` 是本页核对每个答案的标准：它把 -1（传给它的两个张量都不含这个值）写入 ``a`` 的每个元素，看 ``b`` 有没有元素改变，再把 ``a`` 的存储的每个字节恢复原样。

import numpy as np
import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def write_test(a, b):
    before, saved = b.clone(), a.untyped_storage().clone()
    a.fill_(-1.0)
    changed = not torch.equal(b, before)
    a.untyped_storage().copy_(saved)
    return changed


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
# 同一块存储：视图、切片、``t()``、``expand``
# -------------------------------------------
#
# ``x`` 的视图（view）、一行、转置和扩展后的一列，存储的起始地址都与 ``x`` 的相同，通过它们写入都会改到 ``x``。``x.clone()`` 有自己的存储，通过它写入改不到 ``x``。在这五种情况下，常见的判断与写入测试的答案一致。

x = torch.arange(4.0).reshape(2, 2)
views = {
    "x.view(4)": x.view(4),
    "x[1]": x[1],
    "x.t()": x.t(),
    "x[:, :1].expand(2, 2)": x[:, :1].expand(2, 2),
    "x.clone()": x.clone(),
}
for name, t in views.items():
    print(f"{name:<22} same storage: {same_storage(t, x)!s:<5}  write reaches x: {write_test(t, x)}")
assert all(same_storage(t, x) == write_test(t, x) for t in views.values()), "the usual test is right on these five"
# sphinx_gallery_start_ignore
assert [same_storage(t, x) for t in views.values()] == [True, True, True, True, False], "four views, one clone"
assert torch.equal(x, torch.arange(4.0).reshape(2, 2)), "the write tests put x back"
# sphinx_gallery_end_ignore

# %%
# 存储不同，内存共享：DLPack、NumPy、``frombuffer``
# -------------------------------------------------
#
# 通过 DLPack、NumPy 或 ``torch.frombuffer`` 给 ``x[1]`` 这一行建的别名，有一块自己的存储，起点落在 ``x`` 的存储之内：常见的判断回答 ``False``，可通过每个别名写入照样会改到 ``x``。同样三种途径在 :ref:`“b = a 与 b = a.data”那一页 <copying-alias>` 上也演示过；通过 NumPy 写入对自动求导（autograd）有什么影响，见 :ref:`“NumPy”那一页 <questions-numpy-bridge>`。下面的图另建了一对张量：``source`` 和它第二行的 DLPack 别名。

aliases = {
    "torch.from_dlpack(x[1])": torch.from_dlpack(x[1]),
    "torch.from_numpy(x[1].numpy())": torch.from_numpy(x[1].numpy()),
    "torch.frombuffer(x[1].numpy(), dtype=torch.float32)": torch.frombuffer(x[1].numpy(), dtype=torch.float32),
}
for name, t in aliases.items():
    print(f"{name:<52} same storage: {same_storage(t, x)!s:<5}  write reaches x: {write_test(t, x)}")
assert not any(same_storage(t, x) for t in aliases.values()) and all(write_test(t, x) for t in aliases.values()), (
    "each alias has a storage of its own, and a write through it reaches x"
)
source = torch.arange(4.0).reshape(2, 2)
alias = torch.from_dlpack(source[1])
# sphinx_gallery_start_ignore
assert torch.equal(x, torch.arange(4.0).reshape(2, 2)), "the write tests put x back"
first_row = torch.from_dlpack(x[0])
assert same_storage(first_row, x) and first_row.untyped_storage().nbytes() < x.untyped_storage().nbytes(), (
    "an alias of the row at offset 0: its storage starts where x's does, yet is another storage")
storage_part = torch.asarray(x.untyped_storage()[0:8], dtype=torch.float32)
assert same_storage(storage_part, x) and storage_part.untyped_storage().nbytes() < x.untyped_storage().nbytes(), (
    "a tensor on a slice of x.untyped_storage() at offset 0: its storage starts where x's does, yet is another storage")
assert torch.equal(storage_part, x[0]), "that tensor holds x's first row"
assert all(x.untyped_storage().data_ptr() < t.untyped_storage().data_ptr()
           < x.untyped_storage().data_ptr() + x.untyped_storage().nbytes() for t in aliases.values()), (
    "each alias's storage starts inside x's")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 source 和 alias 指向两块存储 S1 和 S2 上的两个张量对象；alias 的值是 2.0 和 3.0，即 source 的第二行。
#
#    图中按存储的起始地址给张量分组，与 ``same_storage`` 的做法相同：``source`` 在 ``S1`` 上，``alias`` 在 ``S2`` 上，尽管在内存里 ``alias`` 就是 ``source`` 的第二行。

draw_memory("alias = torch.from_dlpack(source[1])", source=source, alias=alias)
# sphinx_gallery_start_ignore
assert not same_storage(alias, source) and alias.data_ptr() == source[1].data_ptr(), "one memory, two storages"
# sphinx_gallery_end_ignore

# %%
# 比较元素所占的字节范围
# ----------------------
#
# 稠密张量的元素位于两个地址之间：第一个元素的地址是 ``t.data_ptr()``，即存储的起始地址加上 ``storage_offset()`` 个元素；最后一个字节是按各维步长（stride）能走到的最远处。在本进程只映射一次的内存里，字节范围不相交的两个张量不共享任何内存。同一块内存映射两次是例外，两段地址范围对着同一批字节：同一个文件映射两次（``torch.from_file(path, shared=True)``、``np.memmap``，或者在 Linux 上用 ``torch.from_file(path, shared=False)`` 建的私有映射：它自己写入的值只留在自己这里，但在它自己没有写过的内存页上，读得到其他映射写入的值），或者共享内存里的张量（``share_memory_()``），它的视图由 fork 出来的 ``DataLoader`` worker 进程经 ``torch.multiprocessing`` 队列送回：本进程在另一段地址上再映射它一次（见下文“第二次映射”一节）。``shares_memory`` 比较这两个范围；对空张量、不在同一设备上的两个张量，以及 ``meta`` 上的张量（那里的张量不占内存），它都回答 ``False``。旁边还列出一个更简单的判断：两块存储各自的字节范围是否重叠。表中多了一对互不为视图的张量：``flat`` 的前后两半，同一块存储，没有共同的元素。
# :fact:`file-mapped-twice-shares-bytes` :fact:`private-file-mapping-reads-other-writes`


def byte_range(t):
    start = t.data_ptr()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride(), strict=True))
    return start, start + (last + 1) * t.element_size()


def shares_memory(a, b):
    """False: no byte in common. True: the byte ranges of the elements overlap."""
    if a.numel() == 0 or b.numel() == 0 or a.device != b.device or a.device.type == "meta":
        return False
    (a_start, a_end), (b_start, b_end) = byte_range(a), byte_range(b)
    return a_start < b_end and b_start < a_end


def storage_ranges_overlap(a, b):
    sa, sb = a.untyped_storage(), b.untyped_storage()
    return sa.data_ptr() < sb.data_ptr() + sb.nbytes() and sb.data_ptr() < sa.data_ptr() + sa.nbytes()


flat = torch.arange(8.0)
pairs = {f"{name}, x": (t, x) for name, t in {**views, **aliases}.items()}
pairs["flat[:4], flat[4:]"] = (flat[:4], flat[4:])
tests = (same_storage, storage_ranges_overlap, shares_memory, write_test)
rows = [("pair", "same storage", "storage ranges", "byte ranges", "write test")]
rows += [(name, *(str(test(a, b)) for test in tests)) for name, (a, b) in pairs.items()]
for name, same, storages, elements, written in rows:
    print(f"{name:<55} {same:>12} {storages:>14} {elements:>11} {written:>10}")
assert all(shares_memory(a, b) == write_test(a, b) for a, b in pairs.values()), "byte ranges: the write test's answer"
# sphinx_gallery_start_ignore
wrong_by_storage = [name for name, (a, b) in pairs.items() if same_storage(a, b) != shares_memory(a, b)]
assert wrong_by_storage == [*(f"{name}, x" for name in aliases), "flat[:4], flat[4:]"], (
    "same_storage is wrong on the three aliases of x[1] and flat's halves")
wrong_by_ranges = [name for name, (a, b) in pairs.items() if storage_ranges_overlap(a, b) != shares_memory(a, b)]
assert wrong_by_ranges == ["flat[:4], flat[4:]"], "the storages' ranges are wrong on the halves only"
assert all(bool((a >= 0).all() and (b >= 0).all()) for a, b in pairs.values()), "no tensor tested holds -1"
assert all(
    t.data_ptr() == t.untyped_storage().data_ptr() + t.storage_offset() * t.element_size()
    for pair in pairs.values()
    for t in pair
), "data_ptr() is where the storage starts plus storage_offset() elements"
assert not shares_memory(torch.empty(0), torch.empty(0)), "an empty tensor shares nothing"
assert not shares_memory(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), "meta tensors hold no memory"
assert not shares_memory(x, x.to("meta")), "x and x.to('meta') share no memory"
assert torch.equal(x, torch.arange(4.0).reshape(2, 2)) and torch.equal(flat, torch.arange(8.0)), (
    "the write tests left x and flat with their old values")
# sphinx_gallery_end_ignore

# %%
# 只有写入才能判断的情况
# ----------------------
#
# ``flat[::2]`` 和 ``flat[1::2]`` 都是每隔一个元素取一个，一个从第 0 个开始，一个从第 1 个开始：两者在同一块存储上，所以常见的判断回答 ``True``，两者的字节范围也重叠，却没有共同的元素，写入测试也一个都没找到。``shares_memory`` 在这里回答 ``True``，所以它的 ``True`` 应读作“可能共享”；在只映射一次的内存里，它的 ``False`` 才是“不共享”。字节范围分不清交错的视图和真正重叠的视图；写入分得清，对 NumPy 能接收的 CPU 张量，NumPy 的精确判断 ``np.shares_memory`` 也分得清：它在到此为止的每一对张量上都给出了与写入测试相同的答案。

evens, odds = flat[::2], flat[1::2]
print("same storage:", same_storage(evens, odds))
print("byte ranges overlap:", shares_memory(evens, odds))
print("write through evens reaches odds:", write_test(evens, odds))
print("np.shares_memory:", np.shares_memory(evens.numpy(), odds.numpy()))
assert shares_memory(evens, odds) and not write_test(evens, odds), "overlapping ranges, no common element"
# sphinx_gallery_start_ignore
assert same_storage(evens, odds), "the usual test says True on the interleaved halves"
# sphinx_gallery_end_ignore
pairs["flat[::2], flat[1::2]"] = (evens, odds)
agree = [np.shares_memory(a.numpy(), b.numpy()) == write_test(a, b) for a, b in pairs.values()]
print("np.shares_memory gives the write test's answer:", sum(agree), "of", len(agree), "pairs")
assert all(agree), "NumPy's exact test agrees with the write test on every pair"

# %%
# 只在批次可能与数据集共享内存时克隆
# ----------------------------------
#
# 一个数据管道为了省内存，原地归一化每个批次，但绝不能写进数据集 ``data``。条目是视图的 ``Dataset`` 会被这样的修改改掉，见 :ref:`“在函数里改张量”那一页 <questions-function-arguments>`。批次有三种来源：``data`` 的切片（视图）、用索引列表取出的行（副本），以及经由 NumPy 取的切片（有自己存储的别名）。``normalize`` 只在 ``shares_memory`` 说批次可能与 ``data`` 共享内存时才克隆它。跑完三个 epoch，每个批次都正确归一化，``data`` 保持原样，用索引取出的批次一次也没有被克隆。

data = torch.arange(12.0).reshape(6, 2)
original = data.clone()
mean, std = data.mean(0), data.std(0)
expected = (data - mean) / std
loaders = {
    "data[i : i + 2]": lambda i: data[i : i + 2],
    "data[[i, i + 1]]": lambda i: data[[i, i + 1]],
    "torch.from_numpy(data.numpy()[i : i + 2])": lambda i: torch.from_numpy(data.numpy()[i : i + 2]),
}


def normalize(batch, data):
    if shares_memory(batch, data):
        batch = batch.clone()
    return batch.sub_(mean).div_(std)


clones = {}
for name, take in loaders.items():
    clones[name] = 0
    for epoch in range(3):
        for i in (0, 2, 4):
            batch = take(i)
            clones[name] += shares_memory(batch, data)
            assert torch.allclose(normalize(batch, data), expected[i : i + 2]), f"{name}, epoch {epoch}: normalised"
    print(f"{name:<42} clones: {clones[name]}  data unchanged: {torch.equal(data, original)}")
assert torch.equal(data, original) and list(clones.values()) == [9, 0, 9], "data kept; the copies are not cloned"

# %%
# 把 ``shares_memory`` 换成常见的判断，NumPy 批次跑一个 epoch，只克隆了第 0、1 行那个批次：它的存储起点与 ``data`` 的相同。第 2 到 5 行的批次直接在 ``data`` 里被归一化了。


def normalize_if_same_storage(batch, data):
    if same_storage(batch, data):
        batch = batch.clone()
    return batch.sub_(mean).div_(std)


for i in (0, 2, 4):
    normalize_if_same_storage(torch.from_numpy(data.numpy()[i : i + 2]), data)
changed_rows = [row for row in range(6) if not torch.equal(data[row], original[row])]
print("data unchanged:", torch.equal(data, original))
print("rows of data changed:", changed_rows)
assert changed_rows == [2, 3, 4, 5], "rows 2 to 5 were normalised in place, in data"
# sphinx_gallery_start_ignore
through_numpy = loaders["torch.from_numpy(data.numpy()[i : i + 2])"]
assert [same_storage(through_numpy(i), data) for i in (0, 2, 4)] == [True, False, False], "rows 0 and 1 start where data does"
# sphinx_gallery_end_ignore

# %%
# 第二次映射：fork 出来的 worker 进程送回的批次
# ---------------------------------------------
#
# 把一个新的 ``data`` 放进共享内存（``share_memory_()``，这是 :ref:`“多进程”那一页 <questions-processes>` 给出的解决办法，让 fork 出来的 worker 进程所做的修改能回到本进程），再用一个 ``DataLoader``，只开一个 fork 出来的 worker 进程，不分批（``batch_size=None``）地送出同样的三个切片。每个批次到达时都是 ``data`` 那块内存的第二次映射：它的字节范围在 ``data`` 的字节范围之外，``np.shares_memory`` 也回答 ``False``，写入测试却写到了 ``data``。``normalize`` 相信这个 ``False``，把 ``data`` 本身归一化了；不做判断、每个批次都克隆，``data`` 就保持原样。``DataLoader`` 在一个进程的主线程里第一次启动 worker 时会安装 ``SIGCHLD`` 处理函数，之后再启动就不再安装；本单元格把处理函数恢复成它原来的样子，也不留下还在运行的子进程。:fact:`dataloader-sigchld-handler-once`

import signal

import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

ctx = mp.get_context("fork")
TIMEOUT = 10  # 秒；等待 worker 进程都不超过这个时长
sigchld_before = signal.getsignal(signal.SIGCHLD)
# sphinx_gallery_start_ignore
from torch.utils.data._utils import signal_handling  # noqa: E402

sigchld_handler_was_set = signal_handling._SIGCHLD_handler_set
# sphinx_gallery_end_ignore


class Pairs(Dataset):
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.data[2 * i : 2 * i + 2]


data = original.clone().share_memory_()
loader = DataLoader(Pairs(data), batch_size=None, num_workers=1, multiprocessing_context=ctx, timeout=TIMEOUT)
overlap, numpy_says, reached = [], [], []
for batch in loader:
    overlap.append(shares_memory(batch, data))
    numpy_says.append(np.shares_memory(batch.numpy(), data.numpy()))
    reached.append(write_test(batch, data))
print("byte ranges overlap:", overlap, " np.shares_memory:", numpy_says, " write reaches data:", reached)
assert not any(overlap + numpy_says) and all(reached), "each batch: both tests answer False, yet a write reaches data"
for batch in loader:
    normalize(batch, data)
print("after normalize(): data unchanged:", torch.equal(data, original))
assert torch.allclose(data, expected), "normalize() trusted the False and normalised data itself"
data.copy_(original)
cloned = [batch.clone().sub_(mean).div_(std) for batch in loader]
print("after cloning every batch: data unchanged:", torch.equal(data, original))
assert torch.equal(data, original) and torch.allclose(torch.cat(cloned), expected), "cloning every batch keeps data"
# sphinx_gallery_start_ignore
assert signal_handling._SIGCHLD_handler_set and (
    signal.getsignal(signal.SIGCHLD) is sigchld_before if sigchld_handler_was_set
    else signal.getsignal(signal.SIGCHLD).__module__ == signal_handling.__name__
), "DataLoader installed its SIGCHLD handler at the first worker it started in this process, and none at later ones"
# sphinx_gallery_end_ignore
signal.signal(signal.SIGCHLD, sigchld_before)
print("children still running:", mp.active_children())
# sphinx_gallery_start_ignore
assert "fork" in mp.get_all_start_methods(), "this platform has the fork start method"
assert data.is_shared(), "data is in shared memory"
assert mp.active_children() == [], "every child process has ended"
assert signal.getsignal(signal.SIGCHLD) is sigchld_before, "the cell put back the SIGCHLD handler it found"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 存储起始地址相等，说明两块存储从同一地址开始（是同一块存储，或是从偏移 0 开始、有自己存储的别名，例如经由 DLPack、NumPy 或 ``frombuffer`` 给偏移为 0 的切片建的别名，或者建在从 0 开始的 ``untyped_storage()`` 切片上的张量）：在 CPU 上、对非空张量，``x`` 的视图、一行、转置和扩展后的一列都与它共享内存，但同一块存储的前后两半没有共同的元素。起始地址不同也不能排除共享：经由 DLPack、NumPy 和 ``torch.frombuffer`` 建的别名有自己的存储，位于 ``x`` 的存储之内，能看到 ``x`` 上的写入。在只映射一次的内存里，比较元素所占的字节范围，除了交错的视图 ``flat[::2]`` 和 ``flat[1::2]``，在每一对上都给出了与写入测试相同的答案；对这对交错视图，它回答“可能共享”，而写入（或 ``np.shares_memory``）回答不共享。一个会回答“可能共享”的 ``shares_memory``，足以决定原地修改之前要不要克隆：上面的数据管道保住了数据集，已经是副本的批次一个也没有克隆。如果批次可能是数据集那块内存的第二次映射（同一个文件映射两次，或者数据集张量在共享内存里、fork 出来的 worker 进程送回它的视图），``False`` 就什么也说明不了：每个批次都要克隆，就像最后一个单元格那样。
# :fact:`file-mapped-twice-shares-bytes`
