"""
.. _questions-index-writes:

``x[idx].add_(1)`` 什么也没改：通过索引写入
===========================================

.. admonition:: 答案
   :class: answer

   ``x`` 是稠密张量时，用 Python 整数列表、掩码或一维及以上的 ``int64`` 索引张量做索引，``x[idx]`` 返回副本，``x[idx].add_(1)`` 改的是副本。要写进 ``x`` 就用 ``x[idx] += 1``，索引可能重复时用 ``index_add_``：

   .. code-block:: python

      x[idx] += 1
      counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))

``x`` 是稠密张量（布局为 ``torch.strided``，既非嵌套也非量化）时，用 Python 整数列表、一维及以上的 ``int64`` 索引张量或布尔掩码索引得到的 ``x[idx]`` 是副本，对它做原地（in-place）操作只改这个副本：``x`` 纹丝不动，检查过的这些调用也不给任何提示。以 4 个元素的 ``x`` 为例，``add_(1)``、``zero_()``、``fill_(1)`` 和带重复索引的 ``index_put_`` 这几个调用（在 ``bool`` 上以 ``logical_not_()`` 代替 ``add_(1)``），在 ``float16``、``float32``、``float64``、``bfloat16``、``int64``、``bool`` 和 ``complex64`` 下，不论 ``x`` 是否需要梯度，是不是推理张量（inference tensor），不论在默认状态下、``torch.no_grad()`` 里还是 ``torch.inference_mode()`` 里，在 ``meta`` 上也一样，都既不报错也不警告。这个调用按副本的形状，也就是选中部分的形状，检查参数：``x.add_(torch.ones(4))`` 能运行的地方，``x[idx].add_(torch.ones(4))`` 会报错。:fact:`index-copy-edit-leaves-x`
``meta`` 上的布尔掩码例外：``meta`` 张量没有数值，索引这一步就报错；任何布局的稀疏张量 ``x`` 和嵌套张量 ``x`` 用这几种索引，也在索引这一步就报错。本页分别用索引张量和掩码复现这一点，逐一检查哪些索引写法得到
``x`` 的视图（view）、哪些得到副本，看 ``x`` 需要梯度或是推理张量时，``x[idx] += 1`` 这样的赋值要满足什么条件，介绍原地的索引方法（``index_put_``、``index_add_``、``masked_fill_``、``scatter_``），最后在一个小小的计数循环里看索引重复时各种写法的结果。常用视图操作的实测结果，见 :doc:`《视图操作一览》 </views>`。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import copy

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
# 现象
# ----
#
# 用索引张量的 ``x[idx]`` 和用布尔掩码的 ``x[mask]``，都会把选中的元素收集到一个新张量里。随后的 ``add_(1)`` 和
# ``[0] = 100.0`` 改的是这个没有任何名字指向的新张量：``x`` 没有变化，而且悄无声息。用由 Python 整数组成的列表或二维索引张量也一样。
import warnings

x = torch.arange(6.0)
idx = torch.tensor([0, 2])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")  # record every warning, even one shown before
    x[idx].add_(1)
    print("after x[idx].add_(1):   x =", x)
    x[x > 2][0] = 100.0
    print("after x[x > 2][0] = 100: x =", x)
    x[[0, 2]].add_(1)
    x[torch.tensor([[0], [2]])].add_(1)
    print("after the list and the 2-D index: x =", x)
print("warnings:", len(caught))
assert torch.equal(x, torch.arange(6.0)) and not caught, "each edit changed a copy, with no warning"
# sphinx_gallery_start_ignore
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # torch 会警告嵌套张量和压缩布局还是新功能
    not_dense_ = [torch.eye(2).to_sparse(layout=layout_, **({"blocksize": (1, 1)} if layout_ in (
        torch.sparse_bsr, torch.sparse_bsc) else {})) for layout_ in (
        torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc)] + [
        torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=layout_)
        for layout_ in (torch.strided, torch.jagged)]
for not_dense_x_ in not_dense_:
    for not_dense_index_ in ([0, 1], torch.tensor([0, 1]), torch.tensor([[0], [1]]), torch.tensor([True, False])):
        try:
            not_dense_x_[not_dense_index_]
        except RuntimeError as e:
            assert type(e) in (RuntimeError, NotImplementedError), (
                "torch has no advanced indexing for a sparse or nested x")
        else:
            raise AssertionError("a list, an int64 index or a mask must raise at the indexing of a sparse or nested x")
# sphinx_gallery_end_ignore

# %%
# 什么会写进 ``x``
# ----------------
#
# 给带索引的 ``x`` 赋值，调用的是 ``x.__setitem__``，它写进 ``x``；对带索引的 ``x`` 用 ``+=``，是先读出这些元素、加上，再用同样的方式赋值回去。每一次都是对 ``x`` 的原地操作：它的版本计数器（version counter）随之增加，这个计数器就是 torch 的内部属性 ``x._version``。
x = torch.arange(6.0)
x[idx] = 10.0
print("after x[idx] = 10:   x =", x, " x._version:", x._version)
x[idx] += 1
print("after x[idx] += 1:   x =", x, " x._version:", x._version)
x[x > 5] += 1
print("after x[x > 5] += 1: x =", x, " x._version:", x._version)
assert torch.equal(x, torch.tensor([12.0, 1.0, 12.0, 3.0, 4.0, 5.0])), "the three assignments wrote into x"
# sphinx_gallery_start_ignore
assert x._version == 3, "each assignment is one in-place edit of x"
# sphinx_gallery_end_ignore

# %%
# 哪些索引写法得到视图
# --------------------
#
# ``x`` 是稠密张量（同上：布局为 ``torch.strided``，既非嵌套也非量化）时，用整数（包括零维整数索引张量，见下文）、切片、``None`` 和 ``...`` 索引（基本索引）返回 ``x`` 的视图，与 ``x`` 共享存储；torch 允许的对视图的修改（``x`` 需要梯度或是推理张量时的情形见下文）就是对 ``x`` 的修改。由 Python 整数组成的列表、一维及以上的 ``int64`` 或 ``int32`` 索引张量（其他 dtype 见下文）或掩码，即高级索引（advanced indexing），无论单独使用还是与基本索引混用，返回的都是副本。少于 32 项的列表里若有张量、序列（另一个列表、元组或 ``range``）、切片、``None`` 或 ``...``，torch 会把它当作索引元组来读，并给出弃用警告，结果可能是视图：``x[[t.argmax()]]`` 就是 ``x[t.argmax()]``。列表有 32 项及以上时，torch 把整个列表变成一个索引张量：由整数和只有一个元素、dtype 为有符号整数、``uint8`` 或 ``bool`` 的张量组成的列表（``bool`` 张量按位置 0 或 1 算），或由长度全都相同的整数列表、整数元组或 ``range`` 组成的列表，是高级索引（得到副本，不给警告）；列表里若只有单元素的 ``uint8`` 或 ``bool`` 张量（Python 的 ``True`` 和 ``False`` 算作 ``bool``），或只有由它们组成、长度全都相同的列表或元组，则是掩码（列表有几层，掩码就是几维），其中有 ``uint8`` 张量时还会给出弃用警告；列表里有浮点或复数张量、元素个数不是一的张量、``meta`` 上的张量、``uint16``、``uint32`` 或 ``uint64`` 张量（除非每一项都是该 dtype 的张量）、切片、``None`` 或 ``...`` 时则报错。下面逐一按存储检查每种写法。
x = torch.arange(12.0).reshape(3, 4)
forms = {
    "x[1]": x[1],
    "x[1:]": x[1:],
    "x[:, 1]": x[:, 1],
    "x[::2]": x[::2],
    "x[None]": x[None],
    "x[..., 0]": x[..., 0],
    "x[torch.tensor(1)]": x[torch.tensor(1)],
    "x[[0, 2]]": x[[0, 2]],
    "x[torch.tensor([0, 2])]": x[torch.tensor([0, 2])],
    "x[x > 5]": x[x > 5],
    "x[1, [0, 2]]": x[1, [0, 2]],
    "x[1:, [0]]": x[1:, [0]],
}
for form, result in forms.items():
    print(f"{form:<24} same storage: {same_storage(result, x)}")
views = [form for form, result in forms.items() if same_storage(result, x)]
assert views == list(forms)[:7], "basic indexing gives views, advanced indexing copies"
row_source = torch.arange(12.0).reshape(3, 4)
row = row_source[1]
row.mul_(10)
print("row_source after row = row_source[1]; row.mul_(10):", row_source)
assert torch.equal(row_source[1], torch.tensor([40.0, 50.0, 60.0, 70.0])), "an edit of the view x[1] is an edit of x"

# %%
# 同样的修改 ``fill_(1)``，用在上面七种视图上：``x`` 每次都是新建的，取十种 dtype、推理张量和需要梯度的叶子张量（leaf tensor），分别在梯度模式（grad mode）开启、关闭和 ``torch.inference_mode()`` 之内修改。torch 允许的每次修改，都恰好改变 ``x`` 中属于视图的那些元素；torch 只拒绝两种情形：梯度模式开启时的那个叶子张量，以及 ``torch.inference_mode()`` 之外的推理张量。


def edit_of_view(kind, mode, index):
    """Fill ``x[index]`` of a fresh 3 x 4 ``x`` of this kind with ones under ``mode``: whether exactly the
    view's elements of ``x`` changed, or "refused" when torch raises."""
    with torch.inference_mode(kind == "inference tensor"):
        x = torch.zeros(3, 4, dtype=torch.float32 if isinstance(kind, str) else kind,
                        requires_grad=kind == "leaf that requires grad")
    with mode():
        view = x[index]
        try:
            view.fill_(1)
        except RuntimeError:
            return "refused"
    changed = x.detach().view(torch.uint8).reshape(3, 4, -1).any(-1)
    return changed.count_nonzero().item() == view.numel()


basic_indices = {"1": 1, "1:": slice(1, None), ":, 1": (slice(None), 1), "::2": slice(None, None, 2),
                 "None": None, "..., 0": (..., 0), "torch.tensor(1)": torch.tensor(1)}
kinds = (torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float32, torch.float64, torch.int8,
         torch.int64, torch.uint8, torch.bool, torch.complex64, "inference tensor", "leaf that requires grad")
edits = {(str(kind), mode.__name__, shown): edit_of_view(kind, mode, index)
         for mode in (torch.enable_grad, torch.no_grad, torch.inference_mode)
         for kind in kinds for shown, index in basic_indices.items()}
refused_edits = sorted({(kind, mode) for (kind, mode, _), result in edits.items() if result == "refused"})
print("edits of the seven views taken:", sum(result is True for result in edits.values()), "of", len(edits))
print("edits refused, on (x, mode):", refused_edits)
assert all(result in (True, "refused") for result in edits.values()), (
    "an edit of a view by basic indexing that torch takes is an edit of x, for each of ten dtypes, an inference "
    "tensor and a leaf that requires grad, with grad mode on or off and in inference mode")
assert refused_edits == [("inference tensor", "enable_grad"), ("inference tensor", "no_grad"),
                         ("leaf that requires grad", "enable_grad")], (
    "torch refuses the edit only of a view of a leaf that requires grad in grad mode, and of a view of an inference "
    "tensor outside inference mode")

# sphinx_gallery_start_ignore
with torch.inference_mode():
    basic_inference_x = torch.arange(12.0).reshape(3, 4).clone()
basic_scope = [torch.arange(12).reshape(3, 4).to(basic_dtype).clone() for basic_dtype in (
    torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float64, torch.int8, torch.int64, torch.uint8,
    torch.bool, torch.complex64)] + [basic_inference_x, torch.ones(3, 4, requires_grad=True)]
for basic_mode_kind, basic_mode in {"grad mode on": torch.enable_grad, "grad mode off": torch.no_grad,
                                    "inference mode": torch.inference_mode}.items():
    for basic_x in basic_scope:
        with basic_mode():
            basic_reads = [basic_x[1], basic_x[1:], basic_x[:, 1], basic_x[::2], basic_x[None], basic_x[..., 0],
                           basic_x[torch.tensor(1)]]
        assert all(same_storage(basic_read, basic_x) for basic_read in basic_reads), (
            f"with {basic_mode_kind}, basic indexing of a dense x of each of nine dtypes, an inference tensor and a "
            "leaf that requires grad gives views on its storage")
    basic_meta_x = torch.empty(3, 4, device="meta")
    with basic_mode():
        basic_meta_reads = [basic_meta_x[1], basic_meta_x[1:], basic_meta_x[:, 1], basic_meta_x[::2],
                            basic_meta_x[None], basic_meta_x[..., 0], basic_meta_x[torch.tensor(1)]]
    assert all(basic_read._base is basic_meta_x for basic_read in basic_meta_reads), (
        f"with {basic_mode_kind}, basic indexing of an x on meta gives views of x")
assert all(result._is_view() == (form in views) for form, result in forms.items()), "the results that share x's storage are the ones autograd records as views"
for short_kind, short_item in {"slice(None)": slice(None), "None": None, "...": ...}.items():
    with warnings.catch_warnings(record=True) as short_warnings:
        warnings.simplefilter("always")
        short_result = x[[1, short_item]]
    assert same_storage(short_result, x) and torch.equal(short_result, x[1, short_item]) and any(
        "non-tuple sequence" in str(w.message) for w in short_warnings), (
        f"a short list holding {short_kind} is read as a tuple of indices, with the deprecation warning: a view")
with warnings.catch_warnings(record=True) as list_warnings:
    warnings.simplefilter("always")
    argmax_in_list = x[[x[:, 0].argmax()]]
assert same_storage(argmax_in_list, x) and torch.equal(argmax_in_list, x[2]), (
    "x[[t.argmax()]] is x[t.argmax()]: a list holding a 0-d tensor indexes as a tuple, a view")
assert any("non-tuple sequence" in str(w.message) for w in list_warnings), "that list gives a deprecation warning"
for nested_kind, nested_items in {"lists": [[0, 1], [1, 2]], "tuples": [(0, 1), (1, 2)],
                                  "ranges": [range(0, 2), range(1, 3)]}.items():
    with warnings.catch_warnings(record=True) as nested_warnings:
        warnings.simplefilter("always")
        nested_list_result = x[nested_items]
    assert torch.equal(nested_list_result, x[tuple(nested_items)]) and any(
        "non-tuple sequence" in str(w.message) for w in nested_warnings), (
        f"a list holding {nested_kind} is read as a tuple of indices, with the deprecation warning")
with warnings.catch_warnings(record=True) as long_list_warnings:
    warnings.simplefilter("always")
    long_list_result = x[[x[:, 0].argmax()] + [0] * 31]
assert long_list_result.shape == (32, 4) and bytes_apart(long_list_result, x) and not long_list_warnings, (
    "a list of 32 items holding a tensor is an advanced index: a copy, with no warning")
for long_length in (32, 40):
    for long_kind, long_list in {
        "integers and integer tensors of one element": [x[:, 0].argmax(), torch.tensor(1), torch.tensor([[2]]),
                                                        torch.tensor([1], dtype=torch.int32)] + [0] * (long_length - 4),
        "lists of integers": [[0, 2], [1, 0]] * (long_length // 2),
        "tuples of integers": [(0, 2), (1, 0)] * (long_length // 2),
        "ranges of integers": [range(0, 2), range(1, 3)] * (long_length // 2),
    }.items():
        with warnings.catch_warnings(record=True) as long_warnings:
            warnings.simplefilter("always")
            long_result = x[long_list]
        long_index = torch.tensor([int(item) if isinstance(item, torch.Tensor) else list(item) if isinstance(
            item, (tuple, range)) else item for item in long_list])
        assert len(long_list) == long_length and torch.equal(long_result, x[long_index]) and not (
            same_storage(long_result, x) or long_warnings), (
            f"a list of {long_length} {long_kind} is one index tensor: a copy, with no warning")
    for long_kind, long_item in {"slice(None)": slice(None), "None": None, "...": ...}.items():
        try:
            x[[long_item] + [0] * (long_length - 1)]
        except RuntimeError as e:
            assert "Could not infer dtype" in str(e), "torch could not make the list an index tensor"
        else:
            raise AssertionError(f"a list of {long_length} items holding {long_kind} must raise")
    for long_kind, long_item in {"a float tensor": torch.tensor(1.0), "a tensor of two elements": torch.tensor([0, 1]),
                                 "an empty tensor": torch.tensor([], dtype=torch.int64),
                                 "a float16 tensor": torch.tensor(1.0, dtype=torch.float16),
                                 "a complex tensor": torch.tensor(1 + 0j),
                                 "a bool tensor of two elements": torch.tensor([True, False])}.items():
        try:
            x[[long_item] + [0] * (long_length - 1)]
        except TypeError as e:
            assert "single element" in str(e), "only integer tensors of one element can be items of the index tensor"
        else:
            raise AssertionError(f"a list of {long_length} items holding {long_kind} must raise")
    for long_kind, long_item in {"an int64 tensor": torch.tensor(1, device="meta"),
                                 "a bool tensor": torch.tensor([True], device="meta")}.items():
        try:
            x[[long_item] + [0] * (long_length - 1)]
        except RuntimeError as e:
            assert "meta" in str(e), "torch cannot read the value of a tensor on meta"
        else:
            raise AssertionError(f"a list of {long_length} items holding {long_kind} of one element on meta must raise")
    for position_kind, position_dtype in {"int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
                                          "int64": torch.int64, "uint8": torch.uint8, "bool": torch.bool}.items():
        for position_value in (0, 1):
            for position_shape in ((), (1,), (1, 1)):
                position_item = torch.tensor(position_value, dtype=position_dtype).reshape(position_shape)
                with warnings.catch_warnings(record=True) as position_warnings:
                    warnings.simplefilter("always")
                    position_result = x[[position_item] + [2] * (long_length - 1)]
                assert position_result.shape == (long_length, 4) and torch.equal(
                    position_result[0], x[position_value]) and not (
                    same_storage(position_result, x) or position_warnings), (
                    f"a list of {long_length} items holding a one-element {position_kind} tensor reads it as a "
                    "position (a bool one as 0 or 1, not as a mask): a copy, with no warning")
    mask_x = torch.arange(float(long_length))
    for mask_kind, mask_dtypes in {"bool": (torch.bool,), "uint8": (torch.uint8,),
                                   "bool and uint8": (torch.bool, torch.uint8)}.items():
        for mask_shape in ((), (1,), (1, 1)):
            mask_items = [torch.tensor(mask_at % 3, dtype=mask_dtypes[mask_at % len(mask_dtypes)]).reshape(
                mask_shape) for mask_at in range(long_length)]
            for mask_list in (mask_items, [True, False] + mask_items[2:]):
                with warnings.catch_warnings(record=True) as mask_warnings:
                    warnings.simplefilter("always")
                    mask_result = mask_x[mask_list]
                assert torch.equal(mask_result, mask_x[torch.tensor([bool(item) for item in mask_list])]) and len(
                    mask_warnings) == (torch.uint8 in mask_dtypes) and all(
                    "deprecated" in str(w.message) for w in mask_warnings), (
                    f"a list of {long_length} one-element {mask_kind} tensors only (True and False count as bool) "
                    "is a mask, with a deprecation warning if it holds a uint8 one")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # uint8 掩码的弃用警告，上面已检查
                try:
                    x[mask_items]
                except IndexError as e:
                    assert "shape of the mask" in str(e), "a mask must match the first dimension of x"
                else:
                    raise AssertionError(f"a list of {long_length} one-element {mask_kind} tensors only is a mask: "
                                         "on x, of 3 rows, it must raise")
            for mixed_kind, mixed_item in {"an integer": 2, "int8": torch.tensor(2, dtype=torch.int8),
                                           "int16": torch.tensor(2, dtype=torch.int16),
                                           "int32": torch.tensor(2, dtype=torch.int32),
                                           "int64": torch.tensor(2)}.items():
                with warnings.catch_warnings(record=True) as mixed_warnings:
                    warnings.simplefilter("always")
                    mixed_result = mask_x[mask_items[:-1] + [mixed_item]]
                mixed_index = torch.tensor([int(item) for item in mask_items[:-1]] + [2])
                assert torch.equal(mixed_result, mask_x[mixed_index]) and not mixed_warnings, (
                    f"next to {mixed_kind}, one-element {mask_kind} tensors count as positions: a copy, with no warning")
    for unsigned_dtype in (torch.uint16, torch.uint32, torch.uint64):
        for unsigned_shape in ((), (1,), (1, 1)):
            unsigned_item = torch.tensor(1, dtype=unsigned_dtype).reshape(unsigned_shape)
            assert torch.equal(x[[unsigned_item] + [torch.tensor(2, dtype=unsigned_dtype)] * (long_length - 1)],
                               x[[1] + [2] * (long_length - 1)]), (
                "a long list of uint16, uint32 or uint64 tensors of one dtype only picks positions")
            for other_item in (0, True, *(torch.tensor(0, dtype=other_dtype) for other_dtype in (
                    torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool, torch.uint16,
                    torch.uint32, torch.uint64) if other_dtype != unsigned_dtype)):
                for unsigned_list in ([unsigned_item] + [other_item] * (long_length - 1),
                                      [unsigned_item] * (long_length - 1) + [other_item]):
                    try:
                        x[unsigned_list]
                    except RuntimeError as e:
                        assert "Promotion for uint16, uint32, uint64" in str(e), "torch cannot promote these dtypes"
                    else:
                        raise AssertionError(
                            "a long list holding a uint16, uint32 or uint64 tensor next to an item that is not a "
                            "tensor of its dtype must raise")
mask_rows = torch.arange(64.0).reshape(32, 2)
with warnings.catch_warnings(record=True) as nested_mask_warnings:
    warnings.simplefilter("always")
    nested_bool_results = [mask_rows[[[True, False]] * 32], mask_rows[[(True, False)] * 32],
                           mask_rows[[[torch.tensor(True), torch.tensor([False])]] * 32]]
assert all(torch.equal(result, mask_rows[:, 0]) and bytes_apart(result, mask_rows)
           for result in nested_bool_results) and not nested_mask_warnings, (
    "a list of 32 lists or tuples of bools of one length is a 2-D mask: a copy, with no warning")
assert mask_rows[[[1, 0]] * 32].shape == (32, 2, 2), "a list of 32 lists of integers is an advanced index"
with warnings.catch_warnings(record=True) as nested_uint8_warnings:
    warnings.simplefilter("always")
    nested_uint8_result = mask_rows[[[torch.tensor(1, dtype=torch.uint8), torch.tensor(0, dtype=torch.uint8)]] * 32]
assert torch.equal(nested_uint8_result, mask_rows[:, 0]) and any(
    "uint8" in str(w.message) for w in nested_uint8_warnings), (
    "a list of 32 lists of one-element uint8 tensors is a 2-D mask, with the deprecation warning")
mask_cubes = torch.arange(128.0).reshape(32, 2, 2)
assert torch.equal(mask_cubes[[[[True, False], [False, True]]] * 32],
                   mask_cubes[torch.tensor([[True, False], [False, True]]).expand(32, 2, 2)]), (
    "a list of 32 lists of lists of bools is a 3-D mask")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：x 以及 x[1] 和 x[:, 1] 的结果都是 x 的存储 S1 上的张量对象；x[[0, 2]] 和 x[x > 5] 各有自己的存储 S2 和 S3。
#
#    视图 ``x[1]`` 和 ``x[:, 1]`` 在 ``x`` 自己的存储 ``S1`` 上；副本 ``x[[0, 2]]`` 和 ``x[x > 5]`` 各有自己的存储 ``S2`` 和 ``S3``。

drawn = ["x[1]", "x[:, 1]", "x[[0, 2]]", "x[x > 5]"]
draw_memory("x = torch.arange(12.0).reshape(3, 4)", x=x, **{form: forms[form] for form in drawn})
# sphinx_gallery_start_ignore
assert [form for form in drawn if same_storage(forms[form], x)] == drawn[:2], "two views, two copies"
assert bytes_apart(forms["x[[0, 2]]"], forms["x[x > 5]"]), "each copy has its own storage"
# sphinx_gallery_end_ignore

# %%
# 零维索引张量（例如 ``argmax()`` 返回的 ``int64`` 张量）按整数算，得到视图；除 ``uint8`` 外，各种整数 dtype 都是如此。零维的
# ``uint8`` 或 ``bool`` 张量则和 Python 的 ``True`` 或 ``False`` 一样按掩码算：得到副本，并在最前面多出一个维度，张量非零时大小为 1，为零时大小为 0。一维及以上的索引张量只有 ``int64``
# 或 ``int32`` 才按位置取元素：``uint8`` 的按掩码算，并给出弃用警告（``uint8`` 类别标签选中的是非零的位置），其他整数 dtype 则抛出 ``IndexError``。
# ``meta`` 上的索引张量没有数值。用于读取 ``x[idx]`` 时，零维的不论什么 dtype 都会报错（torch 用 ``item()`` 读出它的值），布尔掩码也会报错（torch 用 ``nonzero()`` 找出它选中的位置）；一维及以上的 ``uint8`` 掩码，只要它或 ``x`` 在 ``meta`` 上就会报错，报错信息是“tensors used as indices must be long, int, byte or bool tensors”。
print("x[x[:, 0].argmax()]: same storage:", same_storage(x[x[:, 0].argmax()], x))
dtypes = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64,
          torch.uint8, torch.bool]  # fmt: skip
results = {dtype: x[torch.tensor(1, dtype=dtype)] for dtype in dtypes}
results["Python True"] = x[True]
for key, result in results.items():
    print(f"{key!s:<13} same storage: {same_storage(result, x)!s:<5}  shape: {tuple(result.shape)}")
copies = [key for key, result in results.items() if not same_storage(result, x)]
assert copies == [torch.uint8, torch.bool, "Python True"], "uint8, bool and True index as masks; the rest as integers"
# sphinx_gallery_start_ignore
assert same_storage(x[x[:, 0].argmax()], x), "the index argmax() returns gives a view"
assert all(results[key].shape == x[None].shape for key in copies), "each mask adds a first dimension of size 1"
assert x[torch.tensor(2, dtype=torch.uint8)].shape == (1, 3, 4), "a non-zero uint8 mask: a first dimension of size 1"
assert x[torch.tensor(False)].shape == x[torch.tensor(0, dtype=torch.uint8)].shape == x[False].shape == (0, 3, 4), \
    "a zero mask, like False: a first dimension of size 0"
assert all(torch.equal(results[key], x[1]) for key in results if key not in copies), "the rest index row 1"
assert all(torch.equal(x[torch.tensor([0, 2], dtype=index_dtype)], x[[0, 2]])
           for index_dtype in (torch.int64, torch.int32)), "int64 and int32 pick by position"
assert bytes_apart(x[torch.tensor([0, 2], dtype=torch.int32)], x), "a 1-D int32 index gives a copy too"
with warnings.catch_warnings(record=True) as uint8_warnings:
    warnings.simplefilter("always")  # 记下每个 uint8 索引的弃用警告
    assert torch.equal(x[torch.tensor([0, 2, 2], dtype=torch.uint8)], x[[1, 2]]), "a 1-D uint8 index is a mask"
    assert torch.equal(x[(x > 5).to(torch.uint8)], x[x > 5]), "a 2-D uint8 index is a mask"
assert len(uint8_warnings) == 2 and all("indexing with dtype torch.uint8 is now deprecated" in str(w.message)
                                        for w in uint8_warnings), "each uint8 index gives a deprecation warning"
for index_dtype in (torch.int8, torch.int16, torch.uint16, torch.uint32, torch.uint64):
    try:
        x[torch.tensor([0, 2], dtype=index_dtype)]
    except IndexError as e:
        assert "tensors used as indices must be long, int, byte or bool tensors" in str(e), \
            f"a 1-D {index_dtype} index is refused: only long, int, byte or bool tensors index"
    else:
        raise AssertionError(f"a 1-D {index_dtype} index must raise IndexError")
for indexed in (x, x.to("meta")):
    for meta_index in [torch.tensor(1, dtype=dtype, device="meta") for dtype in dtypes] + [
            x.to("meta")[:, 0].argmax()]:
        try:
            indexed[meta_index]
        except RuntimeError as meta_error:
            assert "item() cannot be called on meta tensors" in str(meta_error), (
                "torch reads a zero-dimensional index tensor's value with item()")
        else:
            raise AssertionError("a zero-dimensional index tensor on meta must raise")
    for meta_mask in ((x > 5).to("meta"), (x[:, 0] > 3).to("meta")):
        try:
            indexed[meta_mask]
        except NotImplementedError as meta_error:
            assert "torch.nonzero()" in str(meta_error), "torch finds a mask's positions with nonzero()"
        else:
            raise AssertionError("a boolean mask on meta must raise")
for uint8_mask in (torch.tensor([1, 0, 1], dtype=torch.uint8), (x > 5).to(torch.uint8)):
    for x_device, mask_device in (("meta", "cpu"), ("cpu", "meta"), ("meta", "meta")):
        try:
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")  # uint8 索引若有弃用警告，只记下，不抛出
                x.to(x_device)[uint8_mask.to(mask_device)]
        except RuntimeError as meta_error:
            assert "tensors used as indices must be long, int, byte or bool tensors" in str(meta_error), (
                f"a uint8 mask with x on {x_device} and the mask on {mask_device} is refused by its dtype")
        else:
            raise AssertionError(f"a uint8 mask with x on {x_device} and the mask on {mask_device} must raise")
# sphinx_gallery_end_ignore

# %%
# 要通过一维及以上的 ``uint8`` 掩码写入，先用 ``mask.bool()`` 把它转换成布尔掩码：``masked_fill_`` 会拒绝它，报错 ``masked_fill_ only supports boolean masks``；``v``
# 是数字或只有一个元素的张量时的 ``x[mask] = v``、``v`` 是这样的张量时的 ``index_put_((mask,), v)``，以及掩码只选中一个元素时的
# ``x[mask] += 1``，也都会拒绝。被拒绝的写入不会改动 ``x``。下面每种写入都分别在一维和二维的 ``x`` 与掩码上各做一次。
def assign(x, mask, v):
    x[mask] = v


def add_one(x, mask):
    x[mask] += 1


def write_through(write, mask):
    x = torch.arange(4.0).reshape(mask.shape)
    try:
        write(x, mask)
    except RuntimeError as e:
        return f"{type(e).__name__}: {str(e).split(',')[0]}", x.flatten().tolist()
    return "written", x.flatten().tolist()


mask_of_two = torch.tensor([1, 0, 1, 0], dtype=torch.uint8)
mask_of_one = torch.tensor([1, 0, 0, 0], dtype=torch.uint8)
writes = {
    "x[mask] = -1.0": (mask_of_two, lambda x, mask: assign(x, mask, -1.0)),
    "x[mask] = torch.tensor(-1.0)": (mask_of_two, lambda x, mask: assign(x, mask, torch.tensor(-1.0))),
    "x[mask] = torch.tensor([-1.0])": (mask_of_two, lambda x, mask: assign(x, mask, torch.tensor([-1.0]))),
    "x.index_put_((mask,), torch.tensor(5.0))": (mask_of_two, lambda x, mask: x.index_put_((mask,), torch.tensor(5.0))),
    "x.index_put_((mask,), torch.tensor([5.0]))": (mask_of_two, lambda x, mask: x.index_put_((mask,), torch.tensor([5.0]))),
    "x.masked_fill_(mask, 7.0)": (mask_of_two, lambda x, mask: x.masked_fill_(mask, 7.0)),
    "x.masked_fill_(mask, torch.tensor(7.0))": (mask_of_two, lambda x, mask: x.masked_fill_(mask, torch.tensor(7.0))),
    "x[mask] += 1, one element selected": (mask_of_one, add_one),
}
outcomes = {}
with warnings.catch_warnings(record=True) as write_warnings:
    warnings.simplefilter("always")  # x[mask] += 1 中的读取会给出 uint8 的弃用警告
    for how, (mask, write) in writes.items():
        for shape in ((4,), (2, 2)):
            outcomes[how, shape] = (write_through(write, mask.reshape(shape)),
                                    write_through(write, mask.reshape(shape).bool()))
for how in writes:
    print(f"{how:<42} uint8 mask: {outcomes[how, (4,)][0][0]}  mask.bool(): {outcomes[how, (4,)][1][0]}")
assert all(as_uint8 == ("RuntimeError: masked_fill_ only supports boolean masks", [0.0, 1.0, 2.0, 3.0])
           and as_bool[0] == "written" and [v != i for i, v in enumerate(as_bool[1])] == writes[how][0].bool().tolist()
           for (how, _), (as_uint8, as_bool) in outcomes.items()), (
    "a uint8 mask is refused by each write, which leaves x as it was; converted with bool(), it takes the write")
print("deprecation warnings:", [str(w.message).split(",")[0] for w in write_warnings])

# %%
# 经由 ``meta`` 上的索引写入，不一定报错。``x`` 是 CPU 上的稠密张量、一维及以上的 ``int64`` 或 ``int32`` 索引张量在 ``meta`` 上时，什么错都不报：``x[idx]`` 返回
# CPU 上一个数值未初始化的张量，它的内存是为它新分配的，没有从 ``x`` 读入任何数值。:fact:`meta-index-read-uninitialized`\ 对下面这个一维、``float32``、不需要梯度的 ``x``，经由这样的索引做 ``x[idx] = v``、``x[idx] += 1`` 和 ``index_put_``，都不会写进 ``x``，``scatter_`` 也不会（它的索引与 ``x`` 同为一维），``x._version`` 却照样增加。对
# ``meta`` 上的布尔或 ``uint8`` 掩码，``x[mask] = v`` 和填入数字的 ``masked_fill_`` 也是如此（而 CPU 上的 ``uint8`` 掩码，两者都会拒绝，见上文）。``index_add_`` 会因为两个设备不同而报错。索引要放在 ``x`` 所在的设备上。
x = torch.arange(4.0)
for dtype in (torch.int64, torch.int32):
    index = torch.tensor([0, 2], dtype=dtype, device="meta")
    read = x[index]
    print("index dtype:", dtype, " x[index] device:", read.device, " shape:", tuple(read.shape))
    for through in (index, index.reshape(1, 2)):
        x[through] = -1.0
        x[through] += 1
        x.index_put_((through,), torch.tensor(5.0))
    x.scatter_(0, index, 9.0)
for mask in (torch.tensor([True, False, True, False]), torch.tensor([1, 0, 1, 0], dtype=torch.uint8)):
    x[mask.to("meta")] = -1.0
    x.masked_fill_(mask.to("meta"), 7.0)
print("after the writes: x =", x, " x._version:", x._version)
assert torch.equal(x, torch.arange(4.0)) and x._version == 18, (
    "through an index or mask on meta, each write left the CPU x as it was and moved its _version")
try:
    x.index_add_(0, index, torch.ones(2))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("index_add_ with an index on meta into a CPU x must raise")
# sphinx_gallery_start_ignore
assert all(x[torch.tensor([0, 2], dtype=index_dtype, device="meta")].device.type == "cpu"
           and x[torch.tensor([0, 2], dtype=index_dtype, device="meta")].shape == (2,)
           for index_dtype in (torch.int64, torch.int32)), (
    "x[idx] with an int64 or int32 index on meta returns a CPU tensor of the index's shape")
# sphinx_gallery_end_ignore

# %%
# 链式索引：``x[mask][idx] = v``
# ------------------------------
#
# 链式索引（chained indexing）的赋值，写进的是最后一个索引所作用的那个张量。在 ``x[mask][idx] = v`` 里，这个张量是 ``x[mask]``，一份副本，``x`` 不变；在 ``x[1:][idx] = v`` 里，它是 ``x[1:]``，一个视图，写入会落到 ``x`` 上。下面给几种索引链分别接上同样的 ``[idx] = -1``：最后一个索引之前的那段索引链给出视图（也就是其中每个索引都给出视图）时，``x`` 才会改变；给出副本时就不会。

idx = torch.tensor([0, 2])
firsts = {
    "x[1:]": lambda t: t[1:],
    "x[::2]": lambda t: t[::2],
    "x[1:][::2]": lambda t: t[1:][::2],
    "x[x > 0]": lambda t: t[t > 0],
    "x[[1, 2, 3, 4]]": lambda t: t[[1, 2, 3, 4]],
    "x[torch.tensor([1, 2, 3, 4])]": lambda t: t[torch.tensor([1, 2, 3, 4])],
    "x[1:][x[1:] > 0]": lambda t: t[1:][t[1:] > 0],
}
for name, first in firsts.items():
    x = torch.arange(6.0)
    view = same_storage(first(x), x)
    first(x)[idx] = -1.0
    reached = bool((x < 0).any())
    print(f"{name}[idx] = -1: {name} is a view {view}, x changed {reached}")
    assert reached == view, f"{name}[idx] = -1 writes into x exactly when {name} is a view"


# %%
# 解决办法是把链式索引合并成对 ``x`` 的一次索引，只赋值一次：先取出掩码选中元素的坐标 ``mask.nonzero()``，用 ``idx`` 从中挑选，再用 ``unbind(1)`` 拆成每一维一个索引张量。下面在一维和二维的 ``x`` 上各检验一次。

for x in (torch.arange(6.0), torch.arange(12.0).reshape(3, 4)):
    mask = x > 0
    x[mask.nonzero()[idx].unbind(1)] = -1.0
    written = (x < 0).flatten().nonzero().squeeze(1)
    intended = mask.flatten().nonzero().squeeze(1)[idx]
    print(f"x of shape {tuple(x.shape)}: elements written {written.tolist()}, the mask's elements {idx.tolist()} are {intended.tolist()}")
    assert torch.equal(written, intended), "one index of x reaches exactly the chosen elements of the mask"

# %%
# ``x`` 需要梯度时
# ----------------
#
# ``x[idx] += 1`` 是对 ``x`` 的原地操作，而自动求导（autograd）拒绝对需要梯度的叶子张量（``Parameter`` 也是）、自动求导记录下来的这种叶子张量的视图（叶子张量的 ``view(dtype)`` 除外：经由它写入照常进行，自动求导不记录），以及在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下用索引或 PyTorch 文档列为视图的其他操作（列在 :doc:`《视图操作一览》 </views>` 里；``detach()``、``view(dtype)`` 和稀疏张量的 ``indices()`` 除外）对它取的视图做原地操作：要放在 ``torch.no_grad()`` 下写。叶子张量本身是不需要梯度的张量的视图时，最后这一条不成立：在这两种模式下用索引对 ``torch.zeros(2, 4)[0].requires_grad_()`` 取的视图不需要梯度，照常接受写入，写入也落到这个叶子张量上；而这个叶子张量本身，以及在梯度模式下对它取的视图，仍然拒绝写入。
# :fact:`grad-off-view-refuses-index-write-in-grad-mode`
#
# 在 ``torch.inference_mode()`` 下算出的张量是推理张量；在那里取的 ``view(dtype)`` 也是推理张量，即使取自普通张量（``is_inference()`` 为 ``False`` 的张量）。在模式内用索引或 ``view(shape)`` 对普通张量取的视图，以及它的 ``detach()`` 和 ``.data``，都不是推理张量；取自不需要梯度的张量的这种视图和 ``detach()`` 照常接受写入。在模式内得到的、不需要梯度的推理张量在推理模式之外拒绝这样写，放在 ``torch.no_grad()`` 下也一样，而且是先写入、再报错：报错时数值已经改了，调用方捕获错误后再试一次，就加了两次。在推理模式之外对它取的 ``detach()`` 和 ``.data`` 虽然也是推理张量，却照常接受同样的写入，不报错，写入也落到原来的张量上（经由它们的视图写入，如 ``d[0] += 1`` 或 ``d[1:3] += 1``，则先写入、再报错，见 :ref:`“推理模式”那一页 <questions-inference-mode>`）；在模式内取的 ``detach()`` 或 ``.data`` 则是在那里得到的推理张量（表中 ``inference_mode detach()`` 和 ``inference_mode .data`` 两行），与它一样拒绝这样写，也是先写入、再报错。
# :fact:`inference-tensor-alias-edit-routes`
#
# 需要梯度的非叶子张量（non-leaf tensor）和普通张量，两种模式下都照常写入。但非叶子张量的四种视图，以及用索引、``view(shape)`` 等自动求导记录的视图操作从其中之一再取的视图（每种模式的最后两行；对它们取的 ``view(dtype)`` 和 ``detach()`` 则照常接受写入），在 ``torch.inference_mode()`` 之外、梯度模式打开时会拒绝（在 ``torch.no_grad()`` 下照常写入）。这四种视图是：
#
# - ``unbind``、``split`` 或 ``chunk`` 的输出：这几个运算把一次调用返回的所有视图挂在同一个自动求导节点上（``for row in x`` 取出的每一行都是 ``unbind`` 的输出；按大小列表调用 ``split`` 时，报错里的名字是 ``SplitWithSizes``；``tensor_split`` 的输出各有自己的节点，照常接受写入）；
# - 在 ``torch.no_grad()`` 下用索引、``view(shape)``、``t()``、``narrow()``、``expand()`` 或上述其他视图操作得到的视图；
# - 在 ``torch.inference_mode()`` 下用这些视图操作得到的视图（在 ``torch.inference_mode()`` 下得到的 ``view(dtype)`` 是推理张量，两种模式下都拒绝）；
# - 自定义 ``torch.autograd.Function`` 返回的输入的视图或原样返回的输入。


class AsIs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t

    @staticmethod
    def backward(ctx, grad):
        return grad


class ViewOf(AsIs):
    @staticmethod
    def forward(ctx, t):
        return t.view_as(t)


def sources():
    with torch.inference_mode():
        inference = torch.zeros(4)
        inference_detach, inference_data = torch.zeros(4).detach(), torch.zeros(4).data
    non_leaf = torch.zeros(4, requires_grad=True) * 1
    third_non_leaf = torch.zeros(4, requires_grad=True) * 1
    with torch.no_grad():
        no_grad_view = non_leaf[:]
        other_no_grad_view = third_non_leaf[:]
    other_non_leaf = torch.zeros(4, requires_grad=True) * 1
    with torch.inference_mode():
        inference_mode_view = other_non_leaf[:]
    leaf, other_leaf = torch.zeros(4, requires_grad=True), torch.zeros(4, requires_grad=True)
    with torch.no_grad():
        no_grad_view_of_leaf = leaf[:]
    with torch.inference_mode():
        inference_mode_view_of_leaf = other_leaf[:]
    return {
        "leaf": torch.zeros(4, requires_grad=True),
        "Parameter": torch.nn.Parameter(torch.zeros(4)),
        "view of a leaf": torch.zeros(2, 4, requires_grad=True)[0],
        "view(dtype) of leaf": torch.zeros(4, requires_grad=True).view(torch.float32),
        "no_grad view of leaf": no_grad_view_of_leaf,
        "inference_mode view of leaf": inference_mode_view_of_leaf,
        "inference tensor": inference,
        "inference_mode detach()": inference_detach,
        "inference_mode .data": inference_data,
        "non-leaf": torch.zeros(4, requires_grad=True) * 1,
        "plain": torch.zeros(4),
        "tensor_split output": (torch.zeros(8, requires_grad=True) * 1).tensor_split(2)[0],
        "unbind output": (torch.zeros(2, 4, requires_grad=True) * 1).unbind(0)[0],
        "split output": (torch.zeros(8, requires_grad=True) * 1).split(4)[0],
        "chunk output": (torch.zeros(8, requires_grad=True) * 1).chunk(2)[0],
        "no_grad view": no_grad_view,
        "inference_mode view": inference_mode_view,
        "Function as-is": AsIs.apply(torch.zeros(4, requires_grad=True) * 1),
        "Function view": ViewOf.apply(torch.zeros(4, requires_grad=True) * 1),
        "unbind output[:]": (torch.zeros(2, 4, requires_grad=True) * 1).unbind(0)[0][:],
        "no_grad view[:]": other_no_grad_view[:],
    }


def add_one_at(x, grad_mode, where=idx):
    try:
        with torch.set_grad_enabled(grad_mode):
            x[where] += 1
    except RuntimeError as e:
        return f"{type(e).__name__}: {str(e).split('.')[0]}"
    return x.detach()


refused = {}
for grad_mode in (True, False):
    for name, x in sources().items():
        outcome = add_one_at(x, grad_mode)
        print(f"{'grad mode' if grad_mode else 'no_grad  '}  {name:<27} {outcome}")
        if isinstance(outcome, str):
            refused.setdefault(grad_mode, []).append(name)
        else:
            assert torch.equal(outcome, torch.tensor([1.0, 0.0, 1.0, 0.0])), "it wrote into x"
assert refused == {
    True: ["leaf", "Parameter", "view of a leaf", "no_grad view of leaf", "inference_mode view of leaf",
           "inference tensor", "inference_mode detach()", "inference_mode .data", "unbind output", "split output",
           "chunk output", "no_grad view", "inference_mode view", "Function as-is", "Function view",
           "unbind output[:]", "no_grad view[:]"],
    False: ["inference tensor", "inference_mode detach()", "inference_mode .data"],
}, ("in grad mode the seventeen sources listed refuse the write; under no_grad only the inference tensor and the "
    "detach() and .data taken in inference mode")
leaf_on_a_view = torch.zeros(2, 4)[0].requires_grad_()
leaf_refusals = {"itself": add_one_at(leaf_on_a_view, True), "its grad-mode view [:]": add_one_at(leaf_on_a_view[:], True)}
for taken, refusal in leaf_refusals.items():
    print(f"leaf on a view, write in grad mode to {taken}:", refusal)
assert all(str(refusal).startswith("RuntimeError: a view of a leaf Variable") for refusal in leaf_refusals.values()) and (
    leaf_on_a_view.tolist() == [0.0] * 4), "a leaf made on a view, and its view taken in grad mode, still refuse the write"
for mode in (torch.no_grad, torch.inference_mode):
    leaf_on_a_view = torch.zeros(2, 4)[0].requires_grad_()
    with mode():
        view_of_it = leaf_on_a_view[:]
    print(f"leaf on a view, is_leaf {leaf_on_a_view.is_leaf}: its {mode.__name__} view requires_grad",
          view_of_it.requires_grad, " write in grad mode:", add_one_at(view_of_it, True), " leaf:", leaf_on_a_view.detach())
    assert leaf_on_a_view.is_leaf and not view_of_it.requires_grad and leaf_on_a_view.tolist() == [1.0, 0.0, 1.0, 0.0], (
        "a view taken with grad mode off of a leaf made on a view does not require grad and takes the write, "
        "which reaches the leaf")
# sphinx_gallery_start_ignore
views_of_one = {"[1:]": lambda t: t[1:], "view(4)": lambda t: t.view(4), "view(torch.int32)": lambda t: t.view(torch.int32),
                "detach()": lambda t: t.detach()}
for kind_of_view in ("unbind output", "no_grad view", "inference_mode view", "Function view"):
    for view_of_one, make_view_of_one in views_of_one.items():
        assert isinstance(add_one_at(make_view_of_one(sources()[kind_of_view]), True), torch.Tensor) == (
            view_of_one in ("view(torch.int32)", "detach()")), (
            "with grad mode on, a view of one of the four kinds taken by indexing or view(shape) refuses the write; "
            "its view(dtype) and detach() take it")
iterated_rows = list(torch.zeros(3, 4, requires_grad=True) * 1)
split_by_sizes = (torch.zeros(8, requires_grad=True) * 1).split([3, 5])
refused_as = [str(add_one_at(out, True)).split(" is a view")[0].rpartition(" of ")[2]
              for out in iterated_rows + list(split_by_sizes)]
assert refused_as == ["Unbind"] * 3 + ["SplitWithSizes"] * 2, (
    "each row of for row in x is an unbind output, and split by a list of sizes is refused as SplitWithSizes")
assert all(isinstance(add_one_at(out, False), torch.Tensor) for out in iterated_rows + list(split_by_sizes)), (
    "under no_grad they take the write")
# sphinx_gallery_end_ignore
with torch.inference_mode():
    inference = torch.zeros(4)
    inference[idx] += 1
print("inference tensor, under torch.inference_mode():", inference)
assert torch.equal(inference, torch.tensor([1.0, 0.0, 1.0, 0.0])), "inference mode takes it"

retried = sources()["inference tensor"]
for attempt in (1, 2):
    print(f"attempt {attempt} outside inference mode:", add_one_at(retried, False).split(".")[0], " values:", retried)
assert torch.equal(retried, torch.tensor([2.0, 0.0, 2.0, 0.0])), "each refused write added one: a retry adds twice"
# sphinx_gallery_start_ignore
for mode_of_write in (True, False):
    unrequired = sources()["inference tensor"]
    assert not unrequired.requires_grad and isinstance(add_one_at(unrequired, mode_of_write), str), (
        "an inference tensor that does not require grad refuses the write")
    assert torch.equal(unrequired, torch.tensor([1.0, 0.0, 1.0, 0.0])), "its refused write was written"
    made_inference = sources()["inference tensor"]
    assert torch.is_inference(made_inference.detach()) and torch.is_inference(made_inference.data), "both are inference tensors"
    assert isinstance(add_one_at(made_inference.detach(), mode_of_write), torch.Tensor), "detach() takes the write"
    assert isinstance(add_one_at(made_inference.data, mode_of_write), torch.Tensor), ".data takes the write"
    assert torch.equal(made_inference, torch.tensor([2.0, 0.0, 2.0, 0.0])), "both writes reached the tensor"
    for view_index, after_write in ((0, [1.0, 0.0, 0.0, 0.0]), (slice(1, 3), [0.0, 1.0, 1.0, 0.0])):
        through_detach, through_data = sources()["inference tensor"], sources()["inference tensor"]
        refusals = (add_one_at(through_detach.detach(), mode_of_write, view_index),
                    add_one_at(through_data.data, mode_of_write, view_index))
        assert all(str(r).startswith("RuntimeError: Inplace update to inference tensor") for r in refusals), (
            "a write through a view of detach() or .data of an inference tensor raises")
        assert through_detach.tolist() == after_write and through_data.tolist() == after_write, (
            "it raises after writing")
    for route_in_mode in ("inference_mode detach()", "inference_mode .data"):
        made_in_mode = sources()[route_in_mode]
        assert torch.is_inference(made_in_mode) and isinstance(add_one_at(made_in_mode, mode_of_write), str), (
            f"{route_in_mode}: an inference tensor that refuses the write")
        assert torch.equal(made_in_mode, torch.tensor([1.0, 0.0, 1.0, 0.0])), f"{route_in_mode}: refused after writing"
    normal_base = torch.zeros(4)
    with torch.inference_mode():
        taken_in_mode = (normal_base[:], normal_base.view(4), normal_base.detach())
        data_in_mode_is_inference = torch.is_inference(normal_base.data)
    assert not data_in_mode_is_inference and not any(torch.is_inference(t) for t in taken_in_mode), (
        "a view by indexing or view(shape), detach() and .data of a normal tensor taken in inference mode are normal")
    normal_of_inference = sources()["inference tensor"].detach().view(torch.float32)
    with torch.inference_mode():
        taken_of_that_normal = (normal_of_inference[:], normal_of_inference.view(4), normal_of_inference.detach())
        that_data_is_inference = torch.is_inference(normal_of_inference.data)
    assert not normal_of_inference.is_inference() and not that_data_is_inference and not any(
        torch.is_inference(t) for t in taken_of_that_normal), (
        "the same for the normal tensor view(torch.float32) of an inference tensor's detach()")
    assert all(isinstance(add_one_at(t, mode_of_write), torch.Tensor) for t in taken_in_mode), (
        "plain[:], view(4) and detach() made in the mode take the write")
    assert torch.equal(normal_base, torch.tensor([3.0, 0.0, 3.0, 0.0])), "the three writes reached the normal tensor"
    dtype_base = torch.zeros(4)
    with torch.inference_mode():
        dtype_view = dtype_base.view(torch.int32)
    assert torch.is_inference(dtype_view) and isinstance(add_one_at(dtype_view, mode_of_write), str), (
        "view(dtype) of a normal tensor made in the mode is an inference tensor and refuses the write")
    assert torch.equal(dtype_view, torch.tensor([1, 0, 1, 0], dtype=torch.int32)), "its refused write was written"
    assert torch.is_inference(dtype_view.detach()) and torch.is_inference(dtype_view.data), (
        "its detach() and .data are inference tensors")
    assert isinstance(add_one_at(dtype_view.detach(), mode_of_write), torch.Tensor), "its detach() takes the write"
    assert isinstance(add_one_at(dtype_view.data, mode_of_write), torch.Tensor), "its .data takes the write"
    with torch.inference_mode():
        assert isinstance(add_one_at(dtype_view, mode_of_write), torch.Tensor), "inference mode takes it on view(dtype)"
    assert torch.equal(dtype_base.view(torch.int32), torch.tensor([4, 0, 4, 0], dtype=torch.int32)), (
        "the four writes reached the memory of the normal tensor")
    leaf_base = torch.nn.Parameter(torch.zeros(4))
    leaf_as_int = leaf_base.view(torch.int32)
    assert not leaf_as_int.requires_grad and leaf_as_int.grad_fn is None, "view(dtype) of a leaf is not recorded"
    assert isinstance(add_one_at(leaf_as_int, mode_of_write), torch.Tensor) and leaf_base.is_leaf, (
        "view(torch.int32) of a Parameter takes the write; the Parameter stays a leaf")
    assert torch.equal(leaf_as_int, torch.tensor([1, 0, 1, 0], dtype=torch.int32)), "the write reached its memory"
    non_leaf_base = torch.zeros(4, requires_grad=True) * 1
    with torch.inference_mode():
        shaped_of_non_leaf, dtype_of_non_leaf = non_leaf_base.view(4), non_leaf_base.view(torch.int32)
    assert isinstance(add_one_at(shaped_of_non_leaf, mode_of_write), str) == mode_of_write, (
        "a view(4) of a non-leaf made in inference mode refuses the write in grad mode only")
    assert isinstance(add_one_at(dtype_of_non_leaf, mode_of_write), str), "its view(dtype) refuses it in both modes"
for grad_off in (torch.no_grad, torch.inference_mode):
    for view_op in (torch.Tensor.t, lambda t: t.narrow(0, 0, 4), lambda t: t.expand(4), lambda t: t.view(4)):
        grad_sources = (torch.zeros(4, requires_grad=True), torch.zeros(4, requires_grad=True),
                        torch.zeros(4, requires_grad=True) * 1, torch.zeros(4, requires_grad=True) * 1)
        with grad_off():
            made_off = [view_op(grad_source) for grad_source in grad_sources]
        assert all(isinstance(add_one_at(made_view, True), str) for made_view in made_off[0::2]), (
            "a view of a leaf or a non-leaf made by t(), narrow(), expand() or view(shape) under no_grad or "
            "inference_mode refuses the write in grad mode")
        assert all(torch.equal(add_one_at(made_view, False), torch.tensor([1.0, 0.0, 1.0, 0.0]))
                   for made_view in made_off[1::2]), "under no_grad such a view takes the write"
# sphinx_gallery_end_ignore

# %%
# 用一个小循环检验这条建议：手写更新每个批次用到的嵌入行，即在 ``torch.no_grad()`` 下通过索引给 ``Parameter`` 赋值；三步之后，结果与对副本用
# ``torch.optim.SGD`` 更新的一致。
torch.manual_seed(0)
emb = torch.nn.Embedding(5, 2)
reference = copy.deepcopy(emb)
sgd = torch.optim.SGD(reference.parameters(), lr=0.1)
start = emb.weight.detach().clone()
for _ in range(3):
    ids = torch.randint(0, 5, (4,))
    for model in (emb, reference):
        model.zero_grad()
        model(ids).pow(2).sum().backward()
    rows = ids.unique()
    with torch.no_grad():
        emb.weight[rows] -= 0.1 * emb.weight.grad[rows]
    sgd.step()
print("by hand:", emb.weight.detach())
print("SGD:    ", reference.weight.detach())
assert torch.allclose(emb.weight, reference.weight) and not torch.equal(emb.weight, start), "the rows stepped by hand match SGD's step, and both moved"

# %%
# 原地的索引方法
# --------------
#
# 下面每个方法都写进 ``x``，并返回 ``x`` 本身：``index_put_``、``index_add_``、``masked_fill_`` 和 ``scatter_``。
x = torch.zeros(4)
mask = torch.tensor([True, False, False, True])
calls = {
    "index_put_": lambda: x.index_put_((idx,), torch.tensor(5.0)),
    "index_add_": lambda: x.index_add_(0, idx, torch.ones(2)),
    "masked_fill_": lambda: x.masked_fill_(mask, 7.0),
    "scatter_": lambda: x.scatter_(0, torch.tensor([1]), 9.0),
}
returned = {}
for name, call in calls.items():
    returned[name] = call()
    print(f"{name:<13} returns x: {returned[name] is x}  x = {x}")
assert torch.equal(x, torch.tensor([7.0, 9.0, 6.0, 7.0])), "each call wrote into x"
assert all(result is x for result in returned.values()), "each call returned x itself"
# sphinx_gallery_start_ignore
assert x._version == 4, "four in-place edits of x"
# sphinx_gallery_end_ignore

# %%
# 索引重复时
# ----------
#
# ``x[idx] += 1`` 只读一次 ``x[idx]``，给读出的每个元素加 1，再写回去：被索引两次的元素得到的是 1，不是 2。
# ``index_put_(..., accumulate=True)`` 和 ``index_add_`` 则是出现几次就加几次。
twice = torch.tensor([0, 0, 2])
a, b, c = torch.zeros(3), torch.zeros(3), torch.zeros(3)
a[twice] += 1
b.index_put_((twice,), torch.ones(3), accumulate=True)
c.index_add_(0, twice, torch.ones(3))
print("x[twice] += 1:                ", a)
print("index_put_(accumulate=True):  ", b)
print("index_add_:                   ", c)
assert a[0] == 1 and b[0] == c[0] == 2, "+= adds once, accumulate=True and index_add_ add twice"
# sphinx_gallery_start_ignore
assert torch.equal(b, torch.bincount(twice, minlength=3).float()) and torch.equal(b, c), "accumulate=True and index_add_ both count each index as bincount does"
# sphinx_gallery_end_ignore

# %%
# 在计数循环里检验解决办法
# ------------------------
#
# 按批次统计标签，索引重复是常态。三种写法各跑三个批次：对索引副本调用原地操作，什么也没数到；``+=``
# 每个批次里每个标签最多数一次；``index_add_`` 与对全部标签做 ``torch.bincount`` 的结果一致。
torch.manual_seed(0)
batches = [torch.randint(0, 4, (6,)) for _ in range(3)]
copied, assigned, counts = torch.zeros(4), torch.zeros(4), torch.zeros(4)
for labels in batches:
    copied[labels].add_(1)
    assigned[labels] += 1
    counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))
expected = torch.bincount(torch.cat(batches), minlength=4).float()
print("copied[labels].add_(1):", copied)
print("assigned[labels] += 1: ", assigned)
print("index_add_:            ", counts)
print("torch.bincount:        ", expected)
assert torch.equal(counts, expected) and not torch.equal(assigned, expected), "only index_add_ counts all"
# sphinx_gallery_start_ignore
assert not copied.any(), "the in-place call on a copy counted nothing"
per_batch = sum((torch.bincount(batch, minlength=4) > 0).float() for batch in batches)
assert torch.equal(assigned, per_batch), "+= counted each label once in each batch that holds it"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``x`` 是稠密张量时，用整数、切片、``None`` 和 ``...`` 索引得到视图，``argmax()`` 返回的那种零维索引张量（``uint8``
# 以外的整数 dtype）也一样；用由 Python 整数组成的列表、一维及以上的 ``int64`` 或 ``int32`` 索引张量或掩码索引得到副本，对副本调用原地方法，``x``
# 不会改变。``meta`` 上的零维索引张量或布尔掩码，以及自身或 ``x`` 在 ``meta`` 上的一维及以上的 ``uint8`` 掩码，在读取 ``x[idx]`` 时报错；``x`` 是 CPU 上的稠密张量时，``meta`` 上的 ``int64`` 或 ``int32`` 索引张量读出的是未初始化的数值，没有一个是从 ``x`` 读来的，经由它或 ``meta`` 上的掩码做上面那些写入，什么也写不进 ``x``：索引要放在 ``x`` 所在的设备上。:fact:`meta-index-read-uninitialized`\ 要写进 ``x``，就通过索引赋值（``x[idx] = v``、``x[idx] += 1``；需要梯度的叶子张量、它的视图，以及上文那四种非叶子张量的视图和从它们再取的视图，要放在
# ``torch.no_grad()`` 下，推理张量要放在 ``torch.inference_mode()`` 下），或者用原地的索引方法；索引会重复时，用
# ``index_add_`` 或 ``index_put_(..., accumulate=True)``。通过 ``uint8`` 掩码写入之前，先用 ``.bool()`` 转换它。像 ``x[mask][idx] = v`` 这样的链式索引，只有最后一个索引之前的每个索引都给出视图时才写进 ``x``：把它合并成对 ``x`` 的一次索引，只赋值一次。
