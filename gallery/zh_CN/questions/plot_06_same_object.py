"""
.. _questions-same-object:

看起来像复制，返回的却是同一个张量
==================================

.. admonition:: 答案
   :class: answer

   没有什么需要转换时，``a.cpu()``、``a.to(torch.float32)`` 和 ``a.float()`` 返回的就是 ``a`` 本身，改结果就是改 ``a``。要新的内存，就加上 ``copy=True``：

   .. code-block:: python

      copied = a.to(copy=True)
      copied.add_(10)

``b = a.cpu()``、``b = a.to(torch.float32)``、``b = a.float()``：读起来都像“转换出一份副本”，可是没有什么需要转换时，它们返回的都是
``a`` 本身。这时修改 ``b`` 就是修改 ``a``。本页列出其中常见的几个，介绍由 `pytorch/pytorch#12454
<https://github.com/pytorch/pytorch/issues/12454>`__ 提出、`pytorch/pytorch#12571
<https://github.com/pytorch/pytorch/pull/12571>`__ 加入的 ``to(copy=True)``，并说明真正复制了的类型转换对自动求导（autograd）意味着什么（``ToCopyBackward0``）。
"""

# %%
# 辅助函数
# --------
#
# ``bytes_apart`` 判断两个张量的存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。
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
# 现象
# ----
#
# 对 CPU 上的张量，``a.cpu()`` 无处可搬，于是返回 ``a``。对这份“副本”的原地（in-place）修改改的就是 ``a``，两个名字显示的版本也相同。
a = torch.tensor([1.0, 2.0, 3.0])
b = a.cpu()
b.add_(10)
print("a:", a, " a._version:", a._version)
print("b:", b, " b._version:", b._version)
print("b is a:", b is a)
assert b is a and torch.equal(a, torch.tensor([11.0, 12.0, 13.0])), "cpu() returned a itself"

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 b 都指向同一个张量对象，它在存储 S1 上，值是 11.0、12.0、13.0，_version=1。
#
#    两个名字，一个张量对象，一块存储：``b`` 就是 ``a``，对 ``b`` 的修改就在 ``a`` 里。

draw_memory("b = a.cpu(); b.add_(10)", a=a, b=b)

# %%
# 哪些调用返回张量本身
# --------------------
#
# 前八个调用在无需转换时，返回的都是同一个对象。在这些调用里，显式复制和真的改变 dtype 会得到新的内存。其他真正的转换也会得到新的内存：对非连续张量调用 ``contiguous()``、用 ``contiguous()`` 或 ``to()`` 把这里的 ``image`` 改成 ``memory_format=torch.channels_last`` 布局（对只有一个通道的批次，``contiguous()`` 返回张量本身，``to()`` 却会复制）。``to(memory_format=torch.contiguous_format)`` 不一定是这种转换：它把转置原样返回，尽管转置并不连续（它复制哪些张量，见 :ref:`“module.to()”那一页 <questions-module-to>`）。移到另一个设备（这里是 ``meta``）也会返回一个新张量，位于那个设备上。
a = torch.tensor([1.0, 2.0, 3.0])
results = {
    "a.to(torch.float32)": a.to(torch.float32),
    "a.to('cpu')": a.to("cpu"),
    "a.cpu()": a.cpu(),
    "a.float()": a.float(),
    "a.contiguous()": a.contiguous(),
    "a.type(torch.float32)": a.type(torch.float32),
    "a.type_as(a)": a.type_as(a),
    "torch.as_tensor(a)": torch.as_tensor(a),
    "a.to(torch.float32, copy=True)": a.to(torch.float32, copy=True),
    "a.double()": a.double(),
    "a.clone()": a.clone(),
}
same = [name for name, result in results.items() if result is a]
for name, result in results.items():
    print(f"{name:<31} is a: {name in same!s:<5}  same storage: {same_storage(result, a)}")
assert same == list(results)[:8], "the first eight return a itself"
# sphinx_gallery_start_ignore
assert all(bytes_apart(results[key], a) for key in list(results)[8:]), "the last three copy"
# sphinx_gallery_end_ignore

transposed = torch.arange(6.0).reshape(2, 3).t()
image = torch.zeros(1, 2, 2, 2)
conversions = {
    "transposed.contiguous()": (transposed.contiguous(), transposed),
    "image.contiguous(channels_last)": (image.contiguous(memory_format=torch.channels_last), image),
}
for name, (result, source) in conversions.items():
    print(f"{name:<31} is source: {result is source!s:<5}  same storage: {same_storage(result, source)}")
moved = a.to("meta")
print("a.to('meta') is a:", moved is a, " moved.device:", moved.device)
assert all(result is not source and bytes_apart(result, source) for result, source in conversions.values()), (
    "each of the two conversions returns a new tensor on new memory"
)
assert moved is not a and moved.device.type == "meta", "a.to('meta') returns a new tensor, on meta"
# sphinx_gallery_start_ignore
assert image.to(memory_format=torch.channels_last) is not image, "to() in channels_last returns a new tensor"
assert bytes_apart(image.to(memory_format=torch.channels_last), image), "to() in channels_last copies"
one_channel = torch.ones(2, 1, 3, 3)
assert one_channel.contiguous(memory_format=torch.channels_last) is one_channel, "one channel: contiguous() returns it"
assert one_channel.to(memory_format=torch.channels_last) is not one_channel, "one channel: to() copies"
assert one_channel.is_contiguous(memory_format=torch.channels_last), "one channel: it already is channels_last"
assert a.to("cpu:0") is not a and bytes_apart(a.to("cpu:0"), a), 'to("cpu:0") copies a tensor on "cpu"'
assert bytes_apart(torch.as_tensor(a, device="cpu:0"), a), 'torch.as_tensor(a, device="cpu:0") copies it too'
assert torch.asarray(a, device="cpu:0") is not a and bytes_apart(torch.asarray(a, device="cpu:0"), a), (
    'torch.asarray(a, device="cpu:0") copies a tensor on "cpu" too')
with torch.device("cpu:0"):
    assert bytes_apart(torch.as_tensor(a), a), 'under the default device "cpu:0", torch.as_tensor(a) copies it'
with torch.device("meta"):
    assert all(t is not a and t.is_meta for t in (torch.as_tensor(a), torch.asarray(a))), (
        'under the default device "meta", torch.as_tensor(a) and torch.asarray(a) return a new meta tensor')
assert bytes_apart(one_channel.cpu(memory_format=torch.channels_last), one_channel), (
    "one channel: cpu() given memory_format=channels_last copies it, as to() does")
for case, odd in {"transposed": transposed, "a permuted 4-D tensor": torch.ones(1, 2, 3, 4).permute(0, 1, 3, 2)}.items():
    assert odd.to(memory_format=torch.contiguous_format) is odd, f"{case}: to(contiguous_format) returns it"
    assert not odd.is_contiguous(), f"{case}: it is not contiguous"
assert torch.asarray(a) is a, "torch.asarray(a) returns a itself"
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # torch 把 complex32 称为实验性功能，会发出警告
    own_ = {dtype_: torch.ones(3, dtype=dtype_) for dtype_ in (
        torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64,
        torch.bfloat16, torch.bool, torch.complex64, torch.complex128, torch.complex32)}
    shortcut_results_ = {
        "byte": own_[torch.uint8].byte(), "char": own_[torch.int8].char(), "short": own_[torch.int16].short(),
        "int": own_[torch.int32].int(), "long": own_[torch.int64].long(), "half": own_[torch.float16].half(),
        "float": own_[torch.float32].float(), "double": own_[torch.float64].double(),
        "bfloat16": own_[torch.bfloat16].bfloat16(), "bool": own_[torch.bool].bool(),
        "cfloat": own_[torch.complex64].cfloat(), "cdouble": own_[torch.complex128].cdouble(),
        "chalf": own_[torch.complex32].chalf(),
    }
    shortcut_methods_ = (torch.Tensor.byte, torch.Tensor.char, torch.Tensor.short, torch.Tensor.int, torch.Tensor.long,
                         torch.Tensor.half, torch.Tensor.float, torch.Tensor.double, torch.Tensor.bfloat16,
                         torch.Tensor.bool, torch.Tensor.cfloat, torch.Tensor.cdouble, torch.Tensor.chalf)
    batches_ = {shortcut_: torch.ones(2, 1, 3, 3, dtype=result_.dtype) for shortcut_, result_ in shortcut_results_.items()}
    channels_last_results_ = {shortcut_: (method_(batches_[shortcut_]), method_(
        batches_[shortcut_], memory_format=torch.channels_last)) for shortcut_, method_ in zip(batches_, shortcut_methods_, strict=True)}
for shortcut_, result_ in shortcut_results_.items():
    assert result_ is own_[result_.dtype], f"{shortcut_}() on a tensor of its own dtype returns it itself"
for shortcut_, (plain_, channels_last_) in channels_last_results_.items():
    assert plain_ is batches_[shortcut_] and bytes_apart(channels_last_, batches_[shortcut_]), (
        f"one channel, its own dtype: {shortcut_}() returns it, {shortcut_}(memory_format=channels_last) copies it, "
        "as to() does")
# sphinx_gallery_end_ignore

# %%
# 用 ``to(copy=True)``，而不是 ``torch.tensor(a)``
# ------------------------------------------------
#
# 对 ``a`` 这样的稠密 CPU 张量，``to(..., copy=True)`` 会给出新的内存，即使没有什么需要转换（并非每种布局都如此：对 mkldnn 张量它会抛出 ``NotImplementedError``）。``torch.tensor(a)`` 也会复制，但会发出警告，建议改用
# ``a.detach().clone()``；这里捕获警告并展示出来。
copied = a.to(copy=True)
copied.add_(10)
print("a:", a)
print("copied:", copied)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    rebuilt = torch.tensor(a)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
assert torch.equal(a, torch.tensor([1.0, 2.0, 3.0])), "the edit of the copy left a alone"
# sphinx_gallery_start_ignore
assert bytes_apart(rebuilt, a), "torch.tensor(a) gave a copy with its own storage"
dense_sources_ = [a, torch.arange(6).reshape(2, 3).t(), torch.ones(3, 1).expand(3, 4), torch.ones(4)[1:],
                  torch.tensor(True), torch.ones(2, dtype=torch.complex64).conj(),
                  torch.ones(2, dtype=torch.float16, requires_grad=True)]
assert all(bytes_apart(source_.to(copy=True), source_) and bytes_apart(source_.to(source_.dtype, copy=True), source_)
           and bytes_apart(source_.to("cpu", copy=True), source_) for source_ in dense_sources_), (
    "on a dense CPU tensor, to(..., copy=True) gives new memory even when nothing needs converting")
try:
    torch.ones(2, 2).to_mkldnn().to(copy=True)
except NotImplementedError as mkldnn_refusal:
    assert "MkldnnCPU" in str(mkldnn_refusal), "to(copy=True) of an mkldnn tensor has no MkldnnCPU kernel"
else:
    raise AssertionError("to(copy=True) on an mkldnn tensor must raise NotImplementedError")
assert [record.category for record in caught] == [UserWarning] and "detach().clone()" in str(caught[0].message), (
    "torch.tensor(a) warns once, with a UserWarning that recommends detach().clone()")
# sphinx_gallery_end_ignore

# %%
# 会复制的类型转换仍在计算图里
# ----------------------------
#
# ``a`` 需要梯度时，那些原样返回 ``a`` 的调用，得到的就是这个叶子张量（leaf tensor）本身。在梯度模式（grad mode）下、``torch.inference_mode()`` 之外，复制到浮点或复数 dtype 的类型转换，比如 ``a.double()`` 或
# ``to(copy=True)``，是自动求导记录的一次运算，节点是 ``ToCopyBackward0``；源张量若是以 ``requires_grad=True`` 创建的稠密推理张量（inference tensor），节点则是 ``CopyBackwards``。结果不是叶子张量，梯度会以 ``a`` 自己的 dtype
# 流回 ``a``。转换到整数或 bool dtype（``a.long()``），或者在 ``torch.no_grad()`` 下做的会复制的类型转换，都不会被记录。它复制了内存，却不能让张量脱离计算图；脱离计算图要用 ``detach()``。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
as_float = a.float()
as_double = a.double()
forced = a.to(copy=True)
print("a.float() is a:", as_float is a)
print("a.double(): grad_fn", as_double.grad_fn.name(), " is_leaf", as_double.is_leaf, " dtype", as_double.dtype)
print("a.to(copy=True): grad_fn", forced.grad_fn.name(), " is_leaf", forced.is_leaf)
as_double.sum().backward()
print("a.grad:", a.grad)
assert as_double.grad_fn.name() == "ToCopyBackward0" and a.grad.dtype == torch.float32, "recorded, and back in float32"
# sphinx_gallery_start_ignore
assert as_float is a and forced.grad_fn.name() == "ToCopyBackward0" and not forced.is_leaf, (
    "a.float() returns a itself; a.to(copy=True) is recorded as ToCopyBackward0 and is not a leaf")
assert torch.equal(a.grad, torch.ones(3)), "the derivative of a cast is 1"
with torch.inference_mode():
    inference_leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
assert all(type(t.grad_fn).__name__ == "CopyBackwards" for t in (
    inference_leaf.double(), inference_leaf.to(copy=True))
), "for a dense inference tensor that requires grad, the copying casts are recorded as CopyBackwards"
as_long = a.long()
assert as_long.grad_fn is None and not as_long.requires_grad, "a cast to an integer dtype is not recorded"
assert a.bool().grad_fn is None, "a cast to bool is not recorded"
with torch.no_grad():
    unrecorded = a.double()
assert unrecorded.grad_fn is None and unrecorded.is_leaf, "under no_grad a copying cast is not recorded"
with torch.no_grad(), torch.enable_grad():
    assert all(t.grad_fn.name() == "ToCopyBackward0" for t in (a.double(), a.to(copy=True), a.to(torch.complex64))), (
        "with enable_grad inside no_grad, grad mode is on and a copying cast is recorded")
complex_source = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
as_complex = complex_source.to(torch.complex64)
assert as_complex.grad_fn.name() == "ToCopyBackward0" and not as_complex.is_leaf, "a cast to complex is recorded"
complex_grad = torch.autograd.grad((as_complex.abs() ** 2).sum(), complex_source)[0]
assert complex_grad.dtype == torch.float32 and torch.equal(complex_grad, 2 * complex_source.detach()), (
    "the gradient through a complex cast comes back in float32")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 没有什么需要做时，``to``、``cpu``、``float``、``contiguous``、``type`` 和 ``torch.as_tensor`` 都返回输入本身（其他一些调用也是这样，例如 ``type_as``、``torch.asarray``，以及其他 dtype 简写方法，比如对 ``float64`` 张量调用 ``double()``）；只是 ``to()`` 会复制一些已经是所要布局或设备的张量（比如上文只有一个通道的批次要 ``channels_last``；又如在
# ``"cpu"`` 上的张量要 ``"cpu:0"``，见 :ref:`“module.to()”那一页 <questions-module-to>`）；接受同样参数的调用也会这样复制：给了 ``memory_format`` 的 ``cpu()`` 和各个 dtype 简写方法（``float()``、``double()``、``half()`` 等），以及 ``torch.as_tensor(a, device="cpu:0")`` 和 ``torch.asarray(a, device="cpu:0")``；对 CPU 张量 ``a``，默认设备是 ``"cpu:0"`` 时（``torch.set_default_device``、``with torch.device(...)``），``torch.as_tensor(a)`` 本身和 ``torch.asarray(a)`` 也会复制，因为 CPU 张量在 ``"cpu"`` 上，从不在 ``"cpu:0"`` 上。默认设备是 ``meta`` 时，这两个函数返回一个新的 ``meta`` 张量，里面没有数值。用 ``torch.set_default_device`` 或 ``with torch.device(...)`` 把默认设备设为 ``"cpu"`` 或 ``"cpu:0"`` 时，给它们 ``meta`` 张量会抛出 ``NotImplementedError``；没有设置默认设备时，尽管 ``torch.get_default_device()`` 这时报告的是 ``cpu``，它们返回的就是这个 ``meta`` 张量本身。想要独立的内存，用
# ``clone()``，对稠密张量也可以用 ``to(..., copy=True)``；如果还要脱离计算图，用 ``detach().clone()``，见 :ref:`“最保险的复制”那一页 <copying-safe-copy>`。
# :fact:`default-device-makes-as-tensor-copy`
