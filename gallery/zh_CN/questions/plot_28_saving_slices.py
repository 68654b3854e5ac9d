"""
.. _questions-saving-slices:

``torch.save`` 的文件太大：保存切片写出了整块存储
=================================================

.. admonition:: 答案
   :class: answer

   ``t[:3]`` 这样的切片是 ``t`` 的存储（storage）上的视图（view），而 ``torch.save`` 对 CPU 张量写的是整块存储，所以文件和从它加载的张量都带着 ``t`` 的全部元素。保存切片的克隆：

   .. code-block:: python

      torch.save(t[:3].clone(), path)

从 10 万个数里保存 3 个，文件却有 400 KB，远大于这 3 个数本身：文件里是它们背后的整块存储。本页保存几种常见的视图，其中有切片、分出的块、有步长（stride）间隔的视图、一行、一列、转置，以及切片的 ``view`` 或 ``reshape``，每种用五种 dtype，加载回来，再与它们的克隆对比。接着说明三件事：``contiguous()`` 对连续的切片没有用；一次 ``torch.save`` 调用怎样处理同一张量的两个视图和共享权重（tied weights）；经 ``torch.multiprocessing`` 队列或 ``DataLoader`` 的 worker 进程发送视图时，发送的是什么。最后用一个循环保存每个样本的嵌入向量。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。``save_and_load`` 用 ``torch.save`` 把 ``obj`` 保存到临时文件夹里的一个文件，返回文件的字节数、写入的存储块数（每块存储在文件的 zip 归档里占一条 ``data/`` 记录）和 ``torch.load`` 读回的对象；返回之前删除这个文件夹。文件名总是同一个，所以下面打印的大小每次运行都相同。

import tempfile
import zipfile

import torch
import torch.multiprocessing as mp


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def save_and_load(obj):
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/saved.pt"
        torch.save(obj, path)
        with open(path, "rb") as file:
            size = len(file.read())
        with zipfile.ZipFile(path) as archive:
            records = sum("/data/" in name for name in archive.namelist())
        return size, records, torch.load(path)


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
# ``t`` 有 10 万个浮点数，共 40 万字节。只保存它的前三个元素 ``t[:3]``，写出的文件约 400 KB，与保存整个 ``t`` 一样大；保存 ``t[:3].clone()`` 写出的文件不到 2 KB，其中大部分是归档自身的记录。

t = torch.arange(100_000, dtype=torch.float32)
head = t[:3]
size_t, _, _ = save_and_load(t)
size_head, _, _ = save_and_load(head)
size_clone, _, _ = save_and_load(head.clone())
print("storage of t:             ", t.untyped_storage().nbytes(), "bytes")
print("file of torch.save(t):    ", size_t, "bytes")
print("file of torch.save(head): ", size_head, "bytes")
print("file of head.clone():     ", size_clone, "bytes")
assert size_head == size_t > 400_000 > 200 * size_clone, "the slice's file is as large as the whole tensor's"
# sphinx_gallery_start_ignore
assert save_and_load(head)[0] == size_head and save_and_load(head.clone())[0] == size_clone, (
    "saving head and head.clone() again gives the same file sizes")
# sphinx_gallery_end_ignore

# %%
# 原因：视图没有自己的内存
# ------------------------
#
# ``head`` 是视图：它只有形状、步长和在 ``t`` 的存储中的偏移，存储与 ``t`` 共享。``torch.save`` 写的是存储，每块都整块写出，再为每个张量记下它的形状、步长和在存储中的偏移。加载回来的 ``head`` 仍是 40 万字节存储上的三个数，偏移和步长都不变：整个 ``t`` 又回到了内存里，而不只是在文件里。

_, _, loaded = save_and_load(head)
print("head:", head, " same storage as t:", same_storage(head, t))
print("loaded:", loaded, " shape:", tuple(loaded.shape))
print("storage of loaded:", loaded.untyped_storage().nbytes(), "bytes")
assert loaded.untyped_storage().nbytes() == t.untyped_storage().nbytes(), "the loaded slice has t's storage"
# sphinx_gallery_start_ignore
assert same_storage(head, t) and torch.equal(loaded, head), "head is a view of t, and its values came back"
assert loaded.storage_offset() == head.storage_offset() and loaded.stride() == head.stride(), (
    "the loaded slice has head's offset and strides")
assert loaded[:2]._base is loaded and loaded.numel() == 3 and save_and_load(loaded[:2])[2].untyped_storage().nbytes() == (
    t.untyped_storage().nbytes()), "a view of the loaded slice writes the whole storage, more than its base's elements"
# sphinx_gallery_end_ignore

# %%
# 九种视图，五种 dtype
# --------------------
#
# 下面每种视图在五种 dtype 下都是如此：开头或中间的切片，分成十块后的第二块，每隔一个取一个元素，1000×100 矩阵 ``t.view(1000, 100)`` 的一行、一列和它前十行的转置，以及切片的 ``view`` 和 ``reshape``。每种视图加载回来的张量都带着 ``t`` 的整块存储，值、偏移和步长都与视图相同；它的克隆保存再加载后，存储恰好只有它自己的元素。表中是 float32 的情况（后两列的单位是字节）。``meta`` 张量没有数据：``meta`` 上的 ``t`` 的这些视图加载回来时偏移都是 0，存储只到它的最后一个元素为止（``t[500:503]`` 只有 12 字节）。

views = {
    "t[:3]": lambda t: t[:3],
    "t[500:503]": lambda t: t[500:503],
    "t.chunk(10)[1]": lambda t: t.chunk(10)[1],
    "t[::2]": lambda t: t[::2],
    "t.view(1000, 100)[1]": lambda t: t.view(1000, 100)[1],
    "t.view(1000, 100)[:, 0]": lambda t: t.view(1000, 100)[:, 0],
    "t.view(1000, 100)[:10].t()": lambda t: t.view(1000, 100)[:10].t(),
    "t[:300].view(3, 100)": lambda t: t[:300].view(3, 100),
    "t[:300].reshape(3, 100)": lambda t: t[:300].reshape(3, 100),
}
table_rows = [("float32 view", "elements", "loaded, bytes", "clone, bytes")]
whole, own = [], []
for dtype in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64):
    t = torch.arange(100_000).to(dtype)
    for name, make in views.items():
        view = make(t)
        _, _, loaded = save_and_load(view)
        _, _, loaded_clone = save_and_load(view.clone())
        storage, clone_storage = loaded.untyped_storage().nbytes(), loaded_clone.untyped_storage().nbytes()
        whole.append(storage == t.untyped_storage().nbytes())
        own.append(clone_storage == view.numel() * view.element_size())
        if dtype == torch.float32:
            table_rows.append((name, view.numel(), storage, clone_storage))
        # sphinx_gallery_start_ignore
        assert torch.equal(loaded, view) and torch.equal(loaded_clone, view), f"{dtype} {name}: values came back"
        assert loaded.storage_offset() == view.storage_offset() and loaded.stride() == view.stride(), (
            f"the loaded {name} has the view's offset and strides")
        assert same_storage(view, t), f"{name} is a view of t"
        # sphinx_gallery_end_ignore
for name, elements, storage, clone_storage in table_rows:
    print(f"{name:<27} {elements:>8} {storage:>15} {clone_storage:>13}")
print("loaded with the whole storage:", sum(whole), "of", len(whole), " clones with their own:", sum(own))
assert all(whole) and all(own) and len(whole) == 45, "every view saves its whole storage, every clone its own"
# sphinx_gallery_start_ignore
assert t.device.type == "cpu" and all(
    (lambda meta_view, meta_loaded: meta_loaded.device.type == "meta" and meta_loaded.storage_offset() == 0
     and meta_loaded.stride() == meta_view.stride() and meta_loaded.untyped_storage().nbytes() == meta_view.element_size() * (
         1 + sum((size - 1) * step for size, step in zip(meta_view.shape, meta_view.stride(), strict=True))))(
        meta_make(torch.zeros(100_000, device="meta")), save_and_load(meta_make(torch.zeros(100_000, device="meta")))[2])
    for meta_make in views.values()
) and save_and_load(torch.zeros(100_000, device="meta")[500:503])[2].untyped_storage().nbytes() == 12, (
    "the table's views are on the CPU; each view of a meta t comes back at offset 0 over a storage that ends at its last element")
# sphinx_gallery_end_ignore

# %%
# 只调用 ``contiguous()`` 不够
# ----------------------------
#
# 对默认 strided 布局、非嵌套的张量不带参数调用（默认的 ``memory_format``）时，``contiguous()`` 只复制本来不连续的张量。``t[:3]`` 是连续的，所以 ``head.contiguous()`` 就是 ``head`` 本身，是同一个对象，保存时仍写出整块存储。上面那些视图中，它只复制不连续的三种：隔一取一的 ``t[::2]``、取出的一列和转置；切片、分出的块、一行以及切片的 ``view`` 和 ``reshape`` 仍是 ``t`` 的视图。总会复制的是 ``clone()``。

t = torch.arange(100_000, dtype=torch.float32)
head = t[:3]
print("head.contiguous() is head:", head.contiguous() is head)
print("file of torch.save(head.contiguous()):", save_and_load(head.contiguous())[0], "bytes")
copied = [name for name, make in views.items() if not same_storage(make(t).contiguous(), t)]
print("views that contiguous() copies:", copied)
assert head.contiguous() is head and save_and_load(head.contiguous())[0] == save_and_load(t)[0], (
    "head.contiguous() is head, and its file is as large as t's"
)
assert copied == ["t[::2]", "t.view(1000, 100)[:, 0]", "t.view(1000, 100)[:10].t()"], (
    "contiguous() copies only the views that are not contiguous")
# sphinx_gallery_start_ignore
assert copied == [name for name, make in views.items() if not make(t).is_contiguous()], (
    "contiguous() copied exactly the views that are not contiguous")
# sphinx_gallery_end_ignore

# %%
# 一次调用保存的两个视图，加载后仍共享
# ------------------------------------
#
# 在一次 ``torch.save`` 调用里，每个存储对象只写一次，不管有几个被保存的张量用到它，只要它们都以同一种 dtype 查看这块存储；若用了两种 dtype，这次调用会报错（``RuntimeError: Cannot save multiple tensors or storages that view the same data as different types``）。从同一个张量取出的视图，以及它的 ``.data`` 和 ``detach()``，都用它的存储对象（``x.untyped_storage() is y.untyped_storage()``）。经由会另建存储对象的途径落到同一块内存上的张量，比如 ``torch.from_numpy(t.numpy())``、``torch.from_dlpack(t)`` 或 ``torch.frombuffer(t.numpy(), ...)``，对 ``torch.save`` 来说是另一块存储，尽管比较地址的 ``same_storage`` 说它们共享。dtype 相同时，一次调用会把它再写一次，加载回来后它也落在自己的内存上；dtype 不同时，这次调用同样会报错，因为 ``torch.save`` 比较的是每块存储起始处的地址，而不是存储对象。若经由别的途径得到的存储从 ``t`` 中更靠后的位置开始，比如 ``torch.from_numpy(t[2:].numpy())``，它与 ``t`` 以两种 dtype 在一次调用中保存也不会报错。对有 6 个元素的 ``t``，在一次调用里保存 ``a = t[:4]`` 和 ``b = t[2:]``，文件里只有一块存储，加载回来是同一块存储上的两个张量：往加载出的 ``a[3]`` 写入 ``100``，加载出的 ``b[1]`` 也跟着变，它们是同一个元素。分两次调用保存，每个文件都有整块存储的一份副本，加载出的两个张量互不共享。在 ``meta`` 上，一次调用里保存的这两个视图加载回来时偏移都是 0，各自的存储只有自己的 4 个元素；同一个 ``meta`` 张量以两种 dtype 取出的视图，也能在一次调用中保存而不报错。

t = torch.arange(6.0)
_, records_one, one = save_and_load({"a": t[:4], "b": t[2:]})
_, records_a, two_a = save_and_load(t[:4])
_, records_b, two_b = save_and_load(t[2:])
one["a"][3] = 100.0
two_a[3] = 100.0
print("one call:  storages written:", records_one, " loaded b:", one["b"])
print("two calls: storages written:", records_a + records_b, " loaded b:", two_b)
print("one call, same storage:", same_storage(one["a"], one["b"]))
print("two calls, separate storage:", not same_storage(two_a, two_b))
assert records_one == 1 and same_storage(one["a"], one["b"]) and one["b"][1] == 100.0, (
    "one torch.save call: one storage, shared by the loaded a and b")
assert records_a + records_b == 2 and bytes_apart(two_a, two_b) and two_b[1] == 3.0, (
    "two torch.save calls: two storages; a write to a misses b")
routes = {"t[:4]": t[:4], "t[2:]": t[2:], "t.data": t.data, "t.detach()": t.detach()}
print("t's storage object:", {name: route.untyped_storage() is t.untyped_storage() for name, route in routes.items()})
assert all(route.untyped_storage() is t.untyped_storage() for route in routes.values()), (
    "views taken from one tensor, and its .data and detach(), use its storage object")
# sphinx_gallery_start_ignore
assert two_a.untyped_storage().nbytes() == two_b.untyped_storage().nbytes() == 24, "each holds the whole t"
assert all(
    meta_loaded.storage_offset() == 0 and meta_loaded.untyped_storage().nbytes() == 16
    for meta_loaded in (lambda meta_t: save_and_load({"a": meta_t[:4], "b": meta_t[2:]}))(
        torch.zeros(6, device="meta"))[2].values()
), "on meta, a and b saved in one call come back each at offset 0 over a storage of its own 4 elements"
assert [
    (meta_loaded.dtype, meta_loaded.storage_offset(), meta_loaded.untyped_storage().nbytes())
    for meta_loaded in (lambda meta_t: save_and_load({"a": meta_t[:4], "b": meta_t[2:].view(torch.int32)}))(
        torch.zeros(6, device="meta"))[2].values()
] == [(torch.float32, 0, 16), (torch.int32, 0, 16)], "on meta, views of one storage in two dtypes save in one call"
assert torch.equal(t, torch.arange(6.0)), "the edits of the loaded tensors did not reach t"
try:
    save_and_load({"a": t[:4], "b": t[2:].view(torch.int32)})
except RuntimeError as refusal:
    assert str(refusal) == "Cannot save multiple tensors or storages that view the same data as different types", (
        "one call that saves views of one storage with two dtypes raises")
else:
    raise AssertionError("saving views of one storage with two dtypes in one call must raise")
assert all(
    same_storage(t, other_route) and other_route.untyped_storage() is not t.untyped_storage()
    and save_and_load({"a": t[:4], "b": other_route[2:]})[1] == 2
    and bytes_apart(*save_and_load({"a": t[:4], "b": other_route[2:]})[2].values())
    for other_route in (torch.from_numpy(t.numpy()), torch.from_dlpack(t), torch.frombuffer(t.numpy(), dtype=t.dtype))
), ("torch.from_numpy(t.numpy()), torch.from_dlpack(t) and torch.frombuffer reach t's memory with a storage object "
    "of their own: with one dtype, one call writes it a second time, and it comes back apart")
for other_route in (torch.from_numpy(t.numpy()), torch.from_dlpack(t)):
    try:
        save_and_load({"a": t[:4], "b": other_route[2:].view(torch.int32)})
    except RuntimeError as refusal:
        assert str(refusal) == "Cannot save multiple tensors or storages that view the same data as different types", (
            "one call that saves t and another route to its memory with two dtypes raises")
    else:
        raise AssertionError("saving t and another route to its memory with two dtypes in one call must raise")
assert all(
    other_route.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() + 8
    and save_and_load({"a": t[:4], "b": other_route.view(torch.int32)})[1] == 2
    for other_route in (torch.from_numpy(t[2:].numpy()), torch.from_dlpack(t[2:]))
), "a route whose storage starts further into t saves with t in two dtypes in one call"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：从一次调用加载的 one_a 和 one_b 指向同一个存储 S1；two_a 和 two_b 分别指向 S2 和 S3。
#
#    从一次调用加载的 ``one_a`` 和 ``one_b`` 在同一个存储 ``S1`` 上，但谁也不是谁的视图：两者各有自己的版本计数器（version counter），即图中的 ``C1`` 和 ``C2``；``_version`` 是 torch 的内部属性。从两次调用加载的 ``two_a`` 和 ``two_b`` 在两个存储 ``S2`` 和 ``S3`` 上。

draw_memory("loaded from one call, then from two", one_a=one["a"], one_b=one["b"], two_a=two_a, two_b=two_b)
# sphinx_gallery_start_ignore
assert one["a"]._base is None and one["b"]._base is None, "neither loaded tensor is a view of the other"
assert one["a"]._version != one["b"]._version, "the edit of one_a moved its own version counter only"
assert bytes_apart(one["a"], two_a) and bytes_apart(one["a"], two_b), "S1 is not S2 or S3"
# sphinx_gallery_end_ignore

# %%
# 共享权重只保存一次，加载后仍然共享
# ----------------------------------
#
# 同一条规则让共享权重保持共享。如果模型的解码层权重就是嵌入层的那个 ``Parameter``，它的 ``state_dict()`` 里的两个键对应两个不同的张量对象，都在这个 ``Parameter`` 的存储上；``torch.save`` 只为它们写一块存储，加载出的 state dict 里两个键又共享这块存储。这样的权重经过复制和训练会怎样，见 :ref:`“共享权重”那一页 <questions-tied-weights>`。


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(5, 3)
        self.decoder = torch.nn.Linear(3, 5, bias=False)
        self.decoder.weight = self.embedding.weight


torch.manual_seed(0)
model = Tied()
entries = model.state_dict()
print("entries: embedding.weight is decoder.weight:", entries["embedding.weight"] is entries["decoder.weight"],
      " same storage:", same_storage(entries["embedding.weight"], entries["decoder.weight"]))
_, records, state = save_and_load(entries)
print("keys:", list(state), " storages written:", records)
print("loaded, same storage:", same_storage(state["embedding.weight"], state["decoder.weight"]))
assert records == 1 and same_storage(state["embedding.weight"], state["decoder.weight"]), "saved once, still tied"
# sphinx_gallery_start_ignore
assert model.decoder.weight is model.embedding.weight and torch.equal(state["decoder.weight"], model.decoder.weight), (
    "the model is tied, and the loaded entry holds its weight's values")
assert entries["embedding.weight"] is not entries["decoder.weight"] and all(
    same_storage(entry, model.embedding.weight) for entry in entries.values()), (
    "state_dict(): two tensor objects, both on the Parameter's storage")
# sphinx_gallery_end_ignore

# %%
# 发往另一个进程的视图带着它的存储
# --------------------------------
#
# ``torch.multiprocessing`` 队列不写文件，但发送的也是存储：它把 torch 自己分配、还不在共享内存里的非空张量的存储移到共享内存（shared memory），交给接收方一个在这块内存上的张量；它拒绝需要梯度的非叶子张量（non-leaf tensor）和 mkldnn 张量，见下文。下面的子进程（和 :ref:`“多进程”那一页 <questions-processes>` 一样用 ``fork`` 方式启动）从收件队列取出一个张量，回复它的形状和存储大小：``t[:3]`` 到达时带着全部 40 万字节，``t`` 的整块存储都移到了共享内存（见 ``t.is_shared()``）；克隆到达时只有 12 字节，而它的源张量 ``kept`` 的存储留在原处，没有移进共享内存（``kept.is_shared()`` 为 False）。``weights`` 是需要梯度的叶子张量（leaf tensor），在梯度模式（grad mode）下取的切片是需要梯度的非叶子张量：队列用来序列化的 ``ForkingPickler`` 会拒绝它，于是队列把它丢掉，接收方什么也收不到，见 :ref:`“多进程”那一页 <questions-processes>`。要发送的是它的 ``detach()``：这个能序列化，并把 ``weights`` 的存储移到共享内存。在 ``torch.no_grad()`` 下取的切片则是需要梯度的叶子张量，它也能序列化，同样把 ``weights`` 的存储移到共享内存。``ForkingPickler`` 也拒绝 mkldnn 张量（由 ``to_mkldnn()`` 得到），报错为 ``NotImplementedError: Cannot access storage of OpaqueTensorImpl``，所以队列同样把它丢掉：要发送的是它的 ``to_dense()``，这个能序列化，并进入共享内存。

from multiprocessing.reduction import ForkingPickler

ctx = mp.get_context("fork")
TIMEOUT = 10  # 秒；本页每次等待都不超过这个时间


def measure_from_queue(inbox, outbox):
    received = inbox.get(timeout=TIMEOUT)
    outbox.put((tuple(received.shape), received.untyped_storage().nbytes()))


def send_to_child(tensor):
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=measure_from_queue, args=(inbox, outbox))
    child.start()
    inbox.put(tensor)
    answer = outbox.get(timeout=TIMEOUT)
    child.join(TIMEOUT)
    for queue in (inbox, outbox):
        queue.close()
        queue.join_thread()
    return answer, child.exitcode


t = torch.arange(100_000, dtype=torch.float32)
kept = torch.arange(100_000, dtype=torch.float32)
(shape, nbytes), exitcode = send_to_child(t[:3])
(clone_shape, clone_nbytes), clone_exitcode = send_to_child(kept[:3].clone())
print("t[:3] in the child:        ", shape, nbytes, "bytes", " t.is_shared():", t.is_shared())
print("kept[:3].clone() in child: ", clone_shape, clone_nbytes, "bytes", " kept.is_shared():", kept.is_shared())
print("child.exitcode:", exitcode, clone_exitcode)
assert (shape, nbytes) == ((3,), 400_000) and t.is_shared(), "the whole storage of t travelled"
assert (clone_shape, clone_nbytes) == ((3,), 12) and not kept.is_shared(), "the clone travelled alone"
weights = torch.zeros(100_000, requires_grad=True)
try:
    ForkingPickler.dumps(weights[:3])
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("pickling a slice of a tensor that requires grad must raise")
ForkingPickler.dumps(weights[:3].detach())
print("weights.is_shared() after pickling weights[:3].detach():", weights.is_shared())
assert weights.is_shared(), "pickling the detached slice moved the storage of weights into shared memory"
# sphinx_gallery_start_ignore
assert exitcode == 0 and clone_exitcode == 0, "both children ended well"
quiet_weights = torch.zeros(100_000, requires_grad=True)
with torch.no_grad():
    quiet_slice = quiet_weights[:3]
assert quiet_slice.is_leaf and quiet_slice.requires_grad, "a slice taken under no_grad is a leaf that requires grad"
assert ForkingPickler.dumps(quiet_slice) and quiet_weights.is_shared(), (
    "the slice taken under no_grad pickles, and moves the storage of its tensor into shared memory")


def pickling_error(tensor):
    try:
        ForkingPickler.dumps(tensor)
    except (RuntimeError, NotImplementedError) as e:
        return f"{type(e).__name__}: {e}"
    return None


on_mkldnn = torch.arange(4.0).to_mkldnn()
dense_copy = on_mkldnn.to_dense()
assert pickling_error(on_mkldnn) == "NotImplementedError: Cannot access storage of OpaqueTensorImpl" and (
    pickling_error(dense_copy) is None and dense_copy.is_shared()), (
    "ForkingPickler refuses an mkldnn tensor; its to_dense() pickles and moves into shared memory")
with torch.inference_mode():
    made_in_inference = torch.arange(4.0)
other_kinds = {torch.eye(3).to_sparse(): lambda x: x.values(),
               torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)], layout=torch.jagged): lambda x: x.values(),
               torch.arange(4.0).to(torch.complex64).conj(): lambda x: x, made_in_inference: lambda x: x}
assert all(not values_of(kind).is_shared() for kind, values_of in other_kinds.items()) and all(
    pickling_error(kind) is None and values_of(kind).is_shared() for kind, values_of in other_kinds.items()), (
    "a sparse COO, a jagged nested, a conjugate-view and an inference tensor pickle, and their memory moves into "
    "shared memory")
# sphinx_gallery_end_ignore

# %%
# 返回视图的 ``Dataset``
# ----------------------
#
# ``DataLoader`` 的 worker 用 ``__getitem__`` 的返回值组成每一批，再通过这样的队列发送。下面的 ``Rows`` 返回 1000×100 矩阵的第 ``i`` 行：不分批（``batch_size=None``）时，每一行到达本进程时都带着整块 40 万字节的存储。改为返回 ``self.data[i].clone()``，就只发送这一行的 400 字节。用默认的分批方式时，worker 把各行堆叠成一个新张量，所以两行一批的张量无论哪种写法都是 800 字节。不做堆叠的 ``collate_fn``，如 ``list``，发送的是各行本身：两行一批时，每一行到达本进程时又都带着整块存储。``DataLoader`` 在一个进程的主线程里第一次启动 worker 时会安装 ``SIGCHLD`` 处理函数，本单元格把处理函数恢复成它原来的样子，并结束发送共享张量时启动的监听线程（``resource_sharer.stop()``）。:fact:`dataloader-sigchld-handler-once`

import signal
from multiprocessing import resource_sharer

from torch.utils.data import DataLoader, Dataset

sigchld_before = signal.getsignal(signal.SIGCHLD)


class Rows(Dataset):
    def __init__(self, clone):
        self.data = torch.arange(100_000, dtype=torch.float32).view(1000, 100)
        self.clone = clone

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.data[i].clone() if self.clone else self.data[i]


batching = {
    "batch_size=None": {"batch_size": None},
    "batch_size=2": {"batch_size": 2},
    "batch_size=2, collate_fn=list": {"batch_size": 2, "collate_fn": list},
}
arrived = {}
for clone in (False, True):
    for name, options in batching.items():
        loader = DataLoader(Rows(clone), num_workers=1, multiprocessing_context=ctx, timeout=TIMEOUT, **options)
        batches = [b if isinstance(b, list) else [b] for b in loader]
        arrived[clone, name] = [[(tuple(x.shape), x.untyped_storage().nbytes()) for x in b] for b in batches]
        print(f"clone={clone!s:<5} {name:<29}", arrived[clone, name])
# sphinx_gallery_start_ignore
from torch.utils.data._utils import signal_handling  # noqa: E402

assert signal_handling._SIGCHLD_handler_set, (
    "DataLoader has installed its SIGCHLD handler in this process, at the first worker it started")
assert resource_sharer._resource_sharer._thread is not None and resource_sharer._resource_sharer._thread.is_alive(), (
    "sending a shared tensor started the listener thread of multiprocessing's resource_sharer")
# sphinx_gallery_end_ignore
resource_sharer.stop()
signal.signal(signal.SIGCHLD, sigchld_before)
print("children still running:", mp.active_children())
unbatched, stacked, listed = batching
assert arrived[False, unbatched] == [[((100,), 400_000)]] * 4 and arrived[True, unbatched] == [[((100,), 400)]] * 4, (
    "without batching, each row arrives over the whole 400 000-byte storage, and each clone over 400 bytes of its own"
)
assert arrived[False, stacked] == arrived[True, stacked] == [[((2, 100), 800)]] * 2, (
    "a stacked batch is a tensor of its own"
)
assert arrived[False, listed] == [[((100,), 400_000)] * 2] * 2 and arrived[True, listed] == [[((100,), 400)] * 2] * 2, (
    "with collate_fn=list, each row of a batch arrives over the whole storage, and each clone over 400 bytes"
)
# sphinx_gallery_start_ignore
assert mp.active_children() == [], "every child process has ended"
assert signal.getsignal(signal.SIGCHLD) is sigchld_before and resource_sharer._resource_sharer._thread is None, (
    "the cell put the SIGCHLD handler back and ended the listener thread")
# sphinx_gallery_end_ignore

# %%
# 解决办法：克隆切片
# ------------------
#
# ``t[:3].clone()`` 把这三个元素复制到它们自己的存储里，``torch.save`` 随后写的也只有这块存储。

t = torch.arange(100_000, dtype=torch.float32)
with tempfile.TemporaryDirectory() as folder:
    path = f"{folder}/saved.pt"
    torch.save(t[:3].clone(), path)
    loaded = torch.load(path)
print("loaded:", loaded, " storage:", loaded.untyped_storage().nbytes(), "bytes")
assert torch.equal(loaded, t[:3]) and loaded.untyped_storage().nbytes() == 12, "only the three elements"

# %%
# 保存每个样本的嵌入向量
# ----------------------
#
# 这个疏忽常见于这样的场景：编码器一次为一批 16 个样本算出嵌入向量，再把每个样本的嵌入向量（一行 128 个浮点数，512 字节）各存成一个文件。循环处理三批数据，每一行保存两次，一次直接保存这一行，一次保存它的克隆，再把两者都加载回来。每个直接保存一行的文件都带着整批 16×128 个浮点数；每个保存克隆的文件只存着这一行的 512 字节数据，两者加载出来都是这个样本的嵌入向量。

torch.manual_seed(0)
encoder = torch.nn.Linear(32, 128)
bytes_rows, bytes_clones, storages = 0, 0, set()
with torch.no_grad():
    for step in range(3):
        embeddings = encoder(torch.randn(16, 32))
        for i in range(16):
            size_row, _, row = save_and_load(embeddings[i])
            size_clone, _, cloned = save_and_load(embeddings[i].clone())
            bytes_rows, bytes_clones = bytes_rows + size_row, bytes_clones + size_clone
            storages.add((row.untyped_storage().nbytes(), cloned.untyped_storage().nbytes()))
            assert torch.equal(row, embeddings[i]) and torch.equal(cloned, embeddings[i]), f"step {step}, row {i}"
        print(f"step {step}: files of rows {bytes_rows} bytes, files of clones {bytes_clones} bytes")
print("storages loaded (row, clone):", storages)
assert storages == {(16 * 128 * 4, 128 * 4)}, "each row's file holds the batch, each clone's file its row"

# %%
# 小结
# ----
#
# 在 CPU 上，``torch.save`` 写的是整块存储：保存切片、分出的块、有步长间隔的视图、一行、一列、转置或切片的 ``view``，都会写出它所在的整块存储，加载回来后这整块存储也全在内存里。``contiguous()`` 在默认的 ``memory_format`` 下对连续的视图原样返回；``clone()`` 让切片有自己的存储，文件里也就只有这些元素。一次调用中每个存储对象只写一次，所以以同一种 dtype 查看同一张量的几个视图和共享权重，加载后仍共享内存；分开调用保存的，加载后互不共享；经由会另建存储对象的途径（``torch.from_numpy``、``torch.from_dlpack``、``torch.frombuffer``；``.data`` 和 ``detach()`` 用的是原张量自己的存储对象）落到同一块内存上、dtype 相同的张量，即使在一次调用中保存，加载后也互不共享。dtype 不同时，若这样的张量的存储与原张量的存储起始于同一地址，则与同一张量的视图一样会报错；存储从更靠后的位置开始的，如 ``torch.from_numpy(t[2:].numpy())``，可以保存。``torch.multiprocessing`` 队列，以及批次里装的就是视图本身的 ``DataLoader`` worker（``batch_size=None``，或 ``collate_fn`` 不做堆叠，如 ``list``），发送视图时同样带上整块存储；队列会丢掉需要梯度的非叶子张量（要发送它的 ``detach()``）和 mkldnn 张量（要发送它的 ``to_dense()``）。``meta`` 张量没有数据：它的视图加载回来时偏移为 0，存储只到它的最后一个元素为止，即使与同一张量的另一个视图在一次调用中保存也是如此。
