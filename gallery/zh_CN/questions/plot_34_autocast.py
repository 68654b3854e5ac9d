"""
.. _questions-autocast:

混合精度：转换出来的是副本
==========================

.. admonition:: 答案
   :class: answer

   即时执行模式下，顶层 ``torch.autocast`` 默认 ``cache_enabled=True``：需要梯度的 float32 ``Parameter`` 本身（非视图）进入低精度运算时，每个最外层区域只转一次，之后的前向传播看不到优化器更新（例外见下文）。区域里只放前向传播和损失：

   .. code-block:: python

      with torch.autocast("cpu", dtype=torch.bfloat16):
          loss = torch.nn.functional.mse_loss(model(x).float(), y)
      loss.backward()
      optimizer.step()

在自动混合精度（automatic mixed precision，AMP）的 ``torch.autocast`` 下，模型的权重仍是 float32。``Linear``、卷积这类层用权重的 bfloat16（或 float16）副本计算，梯度再穿过这份副本回到 float32 的 ``.grad``。本页在 CPU 上用 ``torch.autocast("cpu", dtype=torch.bfloat16)`` 把这些跑一遍：副本在哪里；autocast 怎样在一个区域（``with`` 块）内反复使用这份副本，以致训练循环整个写在区域里时，以即时执行模式（eager mode）调用、权重是普通 float32 ``Parameter`` 的 ``Linear`` 层训练不动，除非循环做了清空或关掉缓存这类事（同样的循环照样训练 float64、float16 或 bfloat16 的 ``Linear``，也照样训练权重由 ``weight_norm`` 这类参数化（parametrization）在每次读取时重新计算的层，这种层的权重会被重新转换）；``GradScaler.unscale_`` 和 ``clip_grad_norm_`` 怎样原地（in-place）改写 ``.grad``；以及用 ``.to(torch.bfloat16)`` 或 ``.half()`` 转换模型本身有什么不同。本页的每个层都以即时执行模式运行，没有经过 ``torch.compile`` 编译，本页关于缓存的说法说的都是这样的调用。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。``weight_used`` 运行 ``model(x)``，返回输出和层计算时实际用的权重，即自动求导（autograd）为反向传播保存下来的那一份：保存张量的钩子（saved tensors hooks），即 ``torch.autograd.graph.saved_tensors_hooks``，能看到自动求导保存的每一个张量，权重也在其中。但它看不到运算包装成张量的 Python 数字（见 :doc:`《各操作保存了哪些张量》 </saved>`），也看不到在内层另一对钩子里保存的张量，例如在 ``torch.autograd.graph.save_on_cpu()`` 里或在 ``torch.utils.checkpoint`` 运行的函数里保存的：这样的张量只有最内层的一对钩子看得到。``Linear`` 保存的是转置后的权重，``.T`` 再把它转回来。:fact:`wrapped-number-saved-outside-hooks`

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def weight_used(model, x):
    saved = []

    def keep(t):
        saved.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
        out = model(x)
    (used,) = [t for t in saved if t.shape == model.weight.T.shape]
    return out, used.T


# sphinx_gallery_start_ignore
from torch.utils.checkpoint import checkpoint as nested_checkpoint  # noqa: E402 (torch 2.4 does not import it)

outer_saved = []
with torch.random.fork_rng():
    nested_layer, nested_x = torch.nn.Linear(2, 3), torch.ones(4, 2, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: outer_saved.append(t) or t, lambda t: t):
    with torch.autograd.graph.save_on_cpu():
        nested_layer(nested_x)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        nested_layer(nested_x)
    nested_checkpoint(nested_layer, nested_x, use_reentrant=False)
assert len(outer_saved) == 1 and outer_saved[0] is nested_x, (
    "an outer pack gets nothing saved inside save_on_cpu(), an inner pair or a checkpointed function, "
    "only the checkpoint's input")
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
# autocast 里：权重的 bfloat16 副本
# ---------------------------------
#
# 在区域里，``model(x)`` 返回 bfloat16。它计算时用的权重是一份 bfloat16 副本，有自己的内存，存着舍入到 bfloat16 的 ``model.weight``。``model.weight`` 仍是原来那个 float32 的 ``Parameter``，数值不变。这里让 ``x`` 需要梯度（``requires_grad=True``），自动求导才会为反向传播保存这份副本，辅助函数才拿得到它；在梯度模式（grad mode）下，可训练的层之后的层，输入通常都是如此。换成 ``dtype=torch.float16``，结果也一样（也做了检查）。CPU 上的 autocast 只接受这两种 dtype：给它 torch 的其他任何 dtype（float32、float64、整数、bool、复数、float8、量化类型等），它都会发出警告（``UserWarning``），照不用 autocast 时那样计算。
# :fact:`cpu-autocast-takes-only-bfloat16-and-float16`

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
x = torch.randn(4, 2, requires_grad=True)
weight, before = model.weight, model.weight.detach().clone()
with torch.autocast("cpu", dtype=torch.bfloat16):
    out, copy = weight_used(model, x)
print("out.dtype:", out.dtype, " copy.dtype:", copy.dtype, " model.weight.dtype:", model.weight.dtype)
print("model.weight is weight:", model.weight is weight)
print("same storage:", same_storage(copy, model.weight))
print("copy equals model.weight rounded:", torch.equal(copy, model.weight.to(torch.bfloat16)))
print("model.weight unchanged:", torch.equal(model.weight, before))
assert copy.dtype == torch.bfloat16 and bytes_apart(copy, model.weight), "the layer used a bfloat16 copy"
# sphinx_gallery_start_ignore
assert out.dtype == torch.bfloat16 and torch.equal(copy, model.weight.to(torch.bfloat16)), (
    "out is bfloat16; copy holds model.weight rounded to bfloat16")
assert model.weight is weight and model.weight.dtype == torch.float32 and torch.equal(model.weight, before), (
    "model.weight is the same float32 object, with the same values")
assert isinstance(model.weight, torch.nn.Parameter), "model.weight is still a Parameter"
with torch.autocast("cpu", dtype=torch.float16):
    half_out, half_copy = weight_used(model, x)
assert half_out.dtype == half_copy.dtype == torch.float16, "float16 autocast: a float16 copy"
assert bytes_apart(half_copy, model.weight) and torch.equal(half_copy, model.weight.to(torch.float16)), (
    "the float16 copy has memory of its own and holds model.weight rounded")
assert model.weight.dtype == torch.float32 and torch.equal(model.weight, before), "float16: the weight unchanged"


def shapes_saved_(layer, layer_input, low_dtype):
    shapes_seen = []
    with torch.autocast("cpu", dtype=low_dtype), torch.autograd.graph.saved_tensors_hooks(
        lambda t: shapes_seen.append(t.shape) or t, lambda t: t
    ):
        layer(layer_input)
    return shapes_seen


for low_dtype in (torch.bfloat16, torch.float16):
    assert shapes_saved_(model, torch.ones(4, 2), low_dtype) == [torch.Size([4, 2])], (
        f"{low_dtype}: for an input that does not require grad, autograd saves the input's copy and no weight copy")
    assert model.weight.T.shape in shapes_saved_(model, torch.ones(4, 2, requires_grad=True), low_dtype), (
        f"{low_dtype}: for an input that requires grad, autograd saves the weight's copy")
assert model(torch.ones(4, 2)).requires_grad, "in grad mode the output of a trainable layer requires grad"
import warnings  # noqa: E402


def cpu_autocast_outcome(dtype):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autocast("cpu", dtype=dtype):
            linear_dtype = torch.nn.functional.linear(torch.ones(1, 2), torch.ones(1, 2)).dtype
    return linear_dtype, [(w.category, "not supported" in str(w.message)) for w in caught]


assert [cpu_autocast_outcome(taken) for taken in (torch.bfloat16, torch.float16)] == [
    (torch.bfloat16, []), (torch.float16, [])], "CPU autocast takes bfloat16 and float16 without a warning"
other_dtypes = (
    torch.float32, torch.float64, torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.uint16, torch.uint32, torch.uint64, torch.uint1, torch.uint2, torch.uint3, torch.uint4, torch.uint5,
    torch.uint6, torch.uint7, torch.complex32, torch.complex64, torch.complex128, torch.float8_e4m3fn,
    torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, torch.qint8, torch.quint8, torch.qint32,
    torch.quint4x2, torch.quint2x4, torch.bits1x8, torch.bits2x4, torch.bits4x2, torch.bits8, torch.bits16,
) + ((torch.int1, torch.int2, torch.int3, torch.int4, torch.int5, torch.int6, torch.int7)
     if torch.__version__ >= "2.6" else ()) + (  # torch.int1 到 torch.int7 从 torch 2.6 起才有
    (torch.float8_e8m0fnu, torch.float4_e2m1fn_x2) if torch.__version__ >= "2.8" else ())
assert all(cpu_autocast_outcome(other) == (torch.float32, [(UserWarning, True)]) for other in other_dtypes), (
    "given float32, float64, an integer, bool, complex, float8, float4, quantized or bits dtype, CPU autocast "
    "warns and computes as without it")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：model.weight 是存储 S1 上的 float32 Parameter；copy 是层计算时用的 bfloat16 权重，在另一块存储 S2 上。
#
#    ``model.weight`` 在 ``S1`` 上保留着 float32 的数值；``copy`` 是层计算时用的 bfloat16 权重，是另一块存储 ``S2`` 上的张量。

draw_memory("inside torch.autocast", **{"model.weight": model.weight, "copy": copy})
# sphinx_gallery_start_ignore
assert bytes_apart(model.weight, copy), "model.weight and the autocast copy are on two storages"
# sphinx_gallery_end_ignore

# %%
# 梯度回到 float32 的 ``.grad``
# -----------------------------
#
# 副本是由一个会被自动求导记录下来的操作生成的（下图中的 ``ToCopyBackward0``），所以反向传播穿过它，回到 float32 的 ``Parameter``：无论是 bfloat16 还是 float16 的 autocast，``model.weight.grad`` 和 ``model.bias.grad`` 都是 float32。之后优化器更新的也是 float32 的权重。

out.float().sum().backward()
print("model.weight.grad.dtype:", model.weight.grad.dtype, " model.bias.grad.dtype:", model.bias.grad.dtype)
assert model.weight.grad.dtype == model.bias.grad.dtype == torch.float32, "gradients arrive in float32"
# sphinx_gallery_start_ignore
for low in (torch.bfloat16, torch.float16):
    graded = torch.nn.Linear(2, 2)
    with torch.autocast("cpu", dtype=low):
        graded_out = graded(torch.ones(3, 2))
    graded_out.float().sum().backward()
    assert graded_out.dtype == low, f"{low}: the output is {low}"
    assert graded.weight.grad.dtype == graded.bias.grad.dtype == torch.float32, f"{low}: float32 gradients"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：out 的计算图，AddmmBackward0 与权重、偏置和 x 各自的 AccumulateGrad 之间，各有一个 ToCopyBackward0 节点。
#
#    ``out`` 的计算图：在 ``AddmmBackward0`` 和每个 float32 叶子张量（leaf tensor）的 ``AccumulateGrad`` 之间，都夹着一个 ``ToCopyBackward0``，也就是那次类型转换。

draw_graph("out = model(x) in autocast", out, weight=model.weight, bias=model.bias, x=x)
# sphinx_gallery_start_ignore
walked = [out.grad_fn]
for walked_node in walked:
    walked.extend(edge[0] for edge in walked_node.next_functions if edge[0] is not None)
above_leaves = [type(w).__name__ for w in walked for edge in w.next_functions if hasattr(edge[0], "variable")]
assert above_leaves == ["ToCopyBackward0"] * 3, "a cast sits above each of the three float32 leaves"
assert all(w.variable.dtype == torch.float32 for w in walked if hasattr(w, "variable")), (
    "the three leaves under the casts are float32")
# sphinx_gallery_end_ignore

# %%
# 类型转换的缓存：每个最外层区域一份副本
# --------------------------------------
#
# autocast 为需要梯度而且不是视图（view）的 float32 叶子张量（比如 ``Parameter``）做的副本，会一直留到区域结束：同一个区域里的第二次前向传播用的是同一份副本，不再重新转换。所以在区域内用原地操作改动权重（这里是在 ``torch.no_grad()`` 下调用 ``mul_(2)``），区域内的下一次前向传播看不到这个改动。最外层的区域结束时缓存被清空：顶层的新区域能看到改动，嵌套在另一个开着缓存的区域里的新区域却看不到，外层区域设了 ``enabled=False`` 也一样。在区域内调用 ``torch.clear_autocast_cache()`` 会立即清空缓存，下一次前向传播重新转换。副本保持它生成时的 dtype：在同一个最外层区域里，排在 bfloat16 区域之后嵌套的 float16 区域拿到的是 bfloat16 副本，其中的 ``Linear`` 会抛出 ``RuntimeError: mat1 and mat2 must have the same dtype, but got Half and BFloat16``。没有指定 ``cache_enabled`` 的 ``torch.autocast(...)`` 沿用调用它时生效的设置（顶层默认为 ``True``，``torch.set_autocast_cache_enabled(False)`` 可将其关闭）：在 ``cache_enabled=False`` 的区域里，它什么都不缓存，嵌套的第二个区域能看到改动。在区域内调用 ``torch.set_autocast_cache_enabled(False)`` 之后，每次前向传播都重新转换，直到这个设置被改回来，或者调用它时所在的 ``torch.autocast`` 区域结束（区域结束时会恢复进入它时生效的设置）；此后同一个最外层区域里的前向传播又用上调用之前缓存的那份副本。本次构建在 CPU 上运行，CPU 上也有这个缓存。

model = torch.nn.Linear(2, 2)
with torch.autocast("cpu", dtype=torch.bfloat16):
    first, copy_1 = weight_used(model, x)
    with torch.no_grad():
        model.weight.mul_(2)
    second, copy_2 = weight_used(model, x)
with torch.autocast("cpu", dtype=torch.bfloat16):
    third, copy_3 = weight_used(model, x)
print("copies in one region, same storage:", same_storage(copy_1, copy_2))
print("second forward equals the first:", torch.equal(second, first))
print("new region, new copy, separate storage:", not same_storage(copy_3, copy_1))
print("copy_3 equals 2 * copy_1:", torch.equal(copy_3, 2 * copy_1))
assert same_storage(copy_1, copy_2) and torch.equal(second, first), "in the region the edit is not seen"
assert torch.equal(copy_3, 2 * copy_1) and not torch.equal(third, first), "a new region sees the edit"

for outer in ({"enabled": True}, {"enabled": False}, {"cache_enabled": False}, {"enabled": False, "cache_enabled": False}):
    model = torch.nn.Linear(2, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16, **outer):  # 外层区域
        with torch.autocast("cpu", dtype=torch.bfloat16):
            fourth, copy_4 = weight_used(model, x)
        with torch.no_grad():
            model.weight.mul_(2)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            fifth, copy_5 = weight_used(model, x)
    print(f"outer {outer}: second inner region, same copy:", same_storage(copy_4, copy_5))
    assert same_storage(copy_4, copy_5) == torch.equal(fourth, fifth) == outer.get("cache_enabled", True), (
        "a nested region sees the edit exactly when the outer region has cache_enabled=False"
    )
# sphinx_gallery_start_ignore
with torch.autocast("cpu", dtype=torch.bfloat16):
    assert torch.is_autocast_cache_enabled(), "a top-level torch.autocast caches by default"
made_at_top = torch.autocast("cpu", dtype=torch.bfloat16)
for outer_cache in (True, False):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False, cache_enabled=outer_cache):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert torch.is_autocast_cache_enabled() == outer_cache, (
                f"a torch.autocast not naming cache_enabled takes the outer region's cache_enabled={outer_cache}"
            )
        with made_at_top:
            assert torch.is_autocast_cache_enabled(), "the setting is taken where torch.autocast(...) is called"
top_level_cache_ = torch.is_autocast_cache_enabled()
torch.set_autocast_cache_enabled(False)  # the top-level setting, put back before the assert
with torch.autocast("cpu", dtype=torch.bfloat16):
    cached_nothing_ = not torch.is_autocast_cache_enabled() and not same_storage(
        weight_used(model, x)[1], weight_used(model, x)[1]
    )
torch.set_autocast_cache_enabled(top_level_cache_)
assert cached_nothing_, "after torch.set_autocast_cache_enabled(False), a top-level torch.autocast caches nothing"
with torch.random.fork_rng():
    cache_layer_ = torch.nn.Linear(2, 2)
with torch.autocast("cpu", dtype=torch.bfloat16):
    cached_copy_ = weight_used(cache_layer_, x)[1]
    torch.clear_autocast_cache()
    cleared_copies_ = [weight_used(cache_layer_, x)[1] for _ in range(2)]
assert bytes_apart(cleared_copies_[0], cached_copy_) and same_storage(*cleared_copies_), (
    "torch.clear_autocast_cache() empties the cache inside the region: the next pass casts again")
with torch.autocast("cpu", dtype=torch.bfloat16):
    cached_copy_ = weight_used(cache_layer_, x)[1]
    torch.set_autocast_cache_enabled(False)
    uncached_copies_ = [weight_used(cache_layer_, x)[1] for _ in range(2)]
    torch.set_autocast_cache_enabled(True)
    back_on_copy_ = weight_used(cache_layer_, x)[1]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        torch.set_autocast_cache_enabled(False)
        uncached_copies_.append(weight_used(cache_layer_, x)[1])
    after_nested_end_ = torch.is_autocast_cache_enabled(), weight_used(cache_layer_, x)[1]
    with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
        with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=True):
            torch.set_autocast_cache_enabled(True)
        entered_under_false_ = torch.is_autocast_cache_enabled()
assert all(bytes_apart(c, cached_copy_) for c in uncached_copies_) and bytes_apart(*uncached_copies_[:2]), (
    "after torch.set_autocast_cache_enabled(False) in a region, every pass casts again")
assert same_storage(back_on_copy_, cached_copy_) and same_storage(after_nested_end_[1], cached_copy_), (
    "turned back on, or at the end of the region it was turned off in, the cache gives the copy cached before")
assert after_nested_end_[0] and not entered_under_false_ and torch.is_autocast_cache_enabled() == top_level_cache_, (
    "a region's end puts back the cache setting in force when it was entered")


def reset_loop_losses_(reset, low_dtype, layer_dtype=torch.float32):
    """The losses of the next section's loop inside one region, calling reset() before each forward pass."""
    with torch.random.fork_rng():
        torch.manual_seed(0)
        reset_model = torch.nn.Linear(3, 1, dtype=layer_dtype)
        reset_optimizer = torch.optim.SGD(reset_model.parameters(), lr=0.1)
        reset_x, reset_y = torch.randn(8, 3, dtype=layer_dtype), torch.randn(8, 1)
        reset_losses = []
        with torch.autocast("cpu", dtype=low_dtype):
            for _ in range(4):
                reset()
                reset_optimizer.zero_grad()
                reset_loss = torch.nn.functional.mse_loss(reset_model(reset_x).float(), reset_y)
                reset_loss.backward()
                reset_optimizer.step()
                reset_losses.append(reset_loss.item())
    return reset_losses


for low_dtype in (torch.bfloat16, torch.float16):
    assert len(set(reset_loop_losses_(lambda: None, low_dtype))) == 1, f"{low_dtype}: the loop alone does not train"
    for reset_name, reset in (("torch.clear_autocast_cache()", torch.clear_autocast_cache),
                              ("torch.set_autocast_cache_enabled(False)", lambda: torch.set_autocast_cache_enabled(False))):
        reset_losses_ = reset_loop_losses_(reset, low_dtype)
        assert reset_losses_ == sorted(set(reset_losses_), reverse=True), (
            f"{low_dtype}: with {reset_name} before each pass, the loop inside one region trains")
for outer_enabled in (True, False):
    nested_layer = torch.nn.Linear(2, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=outer_enabled):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert nested_layer(torch.ones(3, 2)).dtype == torch.bfloat16, "the bfloat16 region made a bfloat16 copy"
        try:
            with torch.autocast("cpu", dtype=torch.float16):
                nested_layer(torch.ones(3, 2))
        except RuntimeError as nested_refusal:
            assert str(nested_refusal) == "mat1 and mat2 must have the same dtype, but got Half and BFloat16", (
                f"a nested float16 region gets the cached bfloat16 copy (outer enabled={outer_enabled})")
        else:
            raise AssertionError(
                f"a nested float16 region after a bfloat16 one must raise (outer enabled={outer_enabled})")
# sphinx_gallery_end_ignore

# %%
# 缓存只对需要梯度而且不是视图的 float32 叶子张量起作用（所有需要梯度的 float32 ``Parameter`` 都是），而且它要传给 autocast 转成低精度的运算，比如 ``linear`` 或卷积。``torch.einsum("ij,kj->ik", x, weight)`` 和 ``torch.tensordot`` 同样返回低精度的 dtype，但直接传给它们的 ``Parameter`` 本身每次前向传播都会重新转换，整个写在一个区域里的循环照样训练（本单元格的隐藏检查跑了这两个函数）。``Embedding`` 和 ``LayerNorm`` 的运算 autocast 不转成低精度，它们直接用 ``Parameter`` 本身计算，能看到改动（本单元格和下一个单元格的隐藏检查跑了卷积、``Embedding`` 和 ``LayerNorm``）。在 CPU 上的 bfloat16 区域里，``Embedding`` 输出 float32；``LayerNorm`` 的输入是 float32 时输出 float32，接在 ``Linear`` 后面时输出 bfloat16。设置 ``cache_enabled=False``、权重不需要梯度（冻结的层），或者叶子张量是视图（下面最后一行）时，每次前向传播都重新转换，能看到改动；在 ``torch.inference_mode()`` 下做的前向传播也是这样（见下一个单元格）。``Parameter`` 的视图，比如层里计算 ``x @ weight.T`` 时的 ``weight.T``，不是叶子张量：它同样在每次前向传播时重新转换，这样的层在整个写在一个区域里的循环中照样训练（本单元格的隐藏检查用转置的权重跑了 ``@`` 和 ``matmul``）。下面对 bfloat16 和 float16 逐一检查：原地改动之后，同一区域内的下一次前向传播看不看得到（``seen``）？


def edit_seen_in_region(dtype, cache_enabled, requires_grad, layer_dtype=torch.float32, layer=None, inputs=None):
    if layer is None:
        layer, inputs = torch.nn.Linear(2, 2, dtype=layer_dtype), torch.ones(3, 2, dtype=layer_dtype)
    layer.requires_grad_(requires_grad)
    with torch.autocast("cpu", dtype=dtype, cache_enabled=cache_enabled):
        before_edit = layer(inputs)
        with torch.no_grad():
            layer.weight.mul_(2)
        after_edit = layer(inputs)
    return not torch.equal(before_edit, after_edit)


for dtype in (torch.bfloat16, torch.float16):
    for cache_enabled, requires_grad in ((True, True), (False, True), (True, False)):
        seen = edit_seen_in_region(dtype, cache_enabled, requires_grad)
        print(f"{str(dtype):<15} cache_enabled={cache_enabled!s:<5} requires_grad={requires_grad!s:<5} seen: {seen}")
        assert seen == (not (cache_enabled and requires_grad)), (
            f"{dtype}, cache_enabled={cache_enabled}, requires_grad={requires_grad}: "
            "the region sees the edit unless the cache is on and the weight requires grad"
        )
view_leaf = torch.ones(4, 2)[:2]
view_leaf.requires_grad_()
with torch.autocast("cpu", dtype=torch.bfloat16):
    before_edit = torch.nn.functional.linear(torch.ones(3, 2), view_leaf)
    with torch.no_grad():
        view_leaf.mul_(2)
    after_edit = torch.nn.functional.linear(torch.ones(3, 2), view_leaf)
view_seen = not torch.equal(before_edit, after_edit)
print("a float32 leaf that is a view, requires_grad=True, seen:", view_seen)
assert view_leaf.is_leaf and view_leaf._is_view() and view_seen, "a leaf that is a view is cast again"
# sphinx_gallery_start_ignore
for low_dtype in (torch.bfloat16, torch.float16):
    assert edit_seen_in_region(low_dtype, True, True, torch.float64), f"{low_dtype}: a float64 layer is not cached"
    conv_seen = edit_seen_in_region(low_dtype, True, True, layer=torch.nn.Conv1d(2, 2, 1), inputs=torch.ones(1, 2, 3))
    assert not conv_seen, f"{low_dtype}: a convolution computes with the cached copy"
    embedding = torch.nn.Embedding(4, 2)
    embedding_seen = edit_seen_in_region(low_dtype, True, True, layer=embedding, inputs=torch.tensor([0, 3]))
    assert embedding_seen, f"{low_dtype}: autocast does not cast an Embedding's weight, so no copy is cached"
    norm_seen = edit_seen_in_region(low_dtype, True, True, layer=torch.nn.LayerNorm(2),
                                    inputs=torch.tensor([[1.0, 3.0]]))
    assert norm_seen, f"{low_dtype}: autocast does not cast a LayerNorm's weight, so no copy is cached"
norm_layer, linear_layer, token_layer = torch.nn.LayerNorm(2), torch.nn.Linear(2, 2), torch.nn.Embedding(4, 2)
with torch.autocast("cpu", dtype=torch.bfloat16):
    norm_dtypes = [norm_layer(torch.ones(3, 2)).dtype, norm_layer(linear_layer(torch.ones(3, 2))).dtype]
    token_dtype = token_layer(torch.tensor([0, 3])).dtype
assert norm_dtypes == [torch.float32, torch.bfloat16], (
    "on the CPU in a bfloat16 region, LayerNorm gives float32 for a float32 input, bfloat16 after a Linear")
assert token_dtype == torch.float32, "on the CPU in a bfloat16 region, Embedding gives float32"


def one_region_route(low_dtype, route):
    torch.manual_seed(0)
    route_weight = torch.nn.Parameter(torch.randn(1, 3))
    route_optimizer = torch.optim.SGD([route_weight], lr=0.1)
    rx, ry = torch.randn(8, 3), torch.randn(8, 1)
    route_losses, route_seen = [], []
    with torch.autocast("cpu", dtype=low_dtype):
        for _ in range(4):
            route_optimizer.zero_grad()
            route_out = route(rx, route_weight)
            route_loss = torch.nn.functional.mse_loss(route_out.float(), ry)
            route_loss.backward()
            route_optimizer.step()
            route_losses.append(route_loss.item())
            route_seen.append(not torch.equal(route(rx, route_weight), route_out))
    return route_losses, route_seen


for low_dtype in (torch.bfloat16, torch.float16):
    for route in (lambda i, w: i @ w.T, lambda i, w: torch.matmul(i, w.t())):
        route_losses, route_seen = one_region_route(low_dtype, route)
        assert all(route_seen) and route_losses == sorted(set(route_losses), reverse=True), (
            f"{low_dtype}: a view such as weight.T is cast again at every pass and trains inside one region")
    for route in (lambda i, w: torch.einsum("ij,kj->ik", i, w), lambda i, w: torch.tensordot(i, w, dims=([1], [1]))):
        route_losses, route_seen = one_region_route(low_dtype, route)
        with torch.autocast("cpu", dtype=low_dtype):
            route_dtype = route(torch.ones(2, 3), torch.nn.Parameter(torch.ones(1, 3))).dtype
        assert route_dtype == low_dtype and all(route_seen) and route_losses == sorted(set(route_losses), reverse=True), (
            f"{low_dtype}: einsum and tensordot return {low_dtype}, yet cast the Parameter itself again at every pass")
    route_losses, route_seen = one_region_route(low_dtype, torch.nn.functional.linear)
    assert not any(route_seen) and len(set(route_losses)) == 1, (
        f"{low_dtype}: the Parameter passed itself is cast once per region and does not train")
# sphinx_gallery_end_ignore

# %%
# 在 ``torch.inference_mode()`` 下做的前向传播既不读缓存，也不往缓存里放副本：它按权重此刻的值转换，能看到改动。之后在梯度模式下做的前向传播，如果本区域里先前已有前向传播缓存了副本，就仍用那份副本，没有才重新转换。``torch.no_grad()`` 下的前向传播两样都做，和梯度模式下一样，所以在区域里用 ``no_grad()`` 做验证，用的也是过时的副本。下面对这两种模式分别在与上面相同的改动前后，各做一次梯度模式下的前向传播和一次该模式下的前向传播，两种先后顺序都试：第二次前向传播看不看得到改动？


def edit_seen_across(first_mode, second_mode, dtype=torch.bfloat16):
    layer = torch.nn.Linear(2, 2)
    with torch.autocast("cpu", dtype=dtype):
        with first_mode():
            before_edit = layer(torch.ones(3, 2))
        with torch.no_grad():
            layer.weight.mul_(2)
        with second_mode():
            after_edit = layer(torch.ones(3, 2))
    return not torch.equal(before_edit, after_edit)


found = {}
for mode in (torch.no_grad, torch.inference_mode):
    found[mode.__name__] = (not edit_seen_across(torch.enable_grad, mode), not edit_seen_across(mode, torch.enable_grad))
    print(f"{mode.__name__:<15} reads the cache: {found[mode.__name__][0]!s:<5}  fills it: {found[mode.__name__][1]}")
assert found == {"no_grad": (True, True), "inference_mode": (False, False)}, (
    "no_grad() passes read and fill the cache; inference_mode() passes do neither"
)
# sphinx_gallery_start_ignore
assert not edit_seen_across(torch.no_grad, torch.no_grad, torch.float16), "float16: no_grad() passes use the cache"
assert edit_seen_across(torch.enable_grad, torch.inference_mode, torch.float16), (
    "float16: an inference_mode() pass does not read the cache")
assert edit_seen_across(torch.inference_mode, torch.enable_grad, torch.float16), (
    "float16: an inference_mode() pass does not fill the cache")
assert edit_seen_across(torch.inference_mode, torch.inference_mode), "two inference_mode() passes each cast anew"


def step_seen_after_validation(earlier_mode, low_dtype):
    torch.manual_seed(0)
    val_layer, val_inputs = torch.nn.Linear(2, 2), torch.ones(3, 2)
    val_optimizer = torch.optim.SGD(val_layer.parameters(), lr=0.5)
    val_layer(val_inputs).sum().backward()  # 这一步用的梯度，在区域外算出
    with torch.autocast("cpu", dtype=low_dtype):
        with earlier_mode():
            before_step = val_layer(val_inputs)
        val_optimizer.step()
        with torch.inference_mode():
            validated = val_layer(val_inputs)
        after_validation = val_layer(val_inputs)
    return not torch.equal(validated, before_step), torch.equal(after_validation, before_step)


for low_dtype in (torch.bfloat16, torch.float16):
    for earlier_mode in (torch.enable_grad, torch.no_grad):
        assert step_seen_after_validation(earlier_mode, low_dtype) == (True, True), (
            f"{low_dtype}: an inference_mode() pass sees a step; a grad-mode pass after it uses the copy an earlier "
            "pass cached")
    assert step_seen_after_validation(torch.inference_mode, low_dtype) == (True, False), (
        f"{low_dtype}: a grad-mode pass after only inference_mode() passes casts the weight again")


def nested_pass_after_step(low_dtype, nested_options):
    torch.manual_seed(0)
    step_layer, step_inputs = torch.nn.Linear(2, 2), torch.ones(3, 2)
    step_optimizer = torch.optim.SGD(step_layer.parameters(), lr=0.5)
    with torch.autocast("cpu", dtype=low_dtype):
        before_step = step_layer(step_inputs)
        before_step.float().sum().backward()
        step_optimizer.step()
        with torch.autocast("cpu", dtype=low_dtype, **nested_options):
            in_nested = step_layer(step_inputs)
        after_nested = step_layer(step_inputs)
    with torch.autocast("cpu", dtype=low_dtype, **nested_options):  # 同样的前向传播，放在一个新的顶层区域里
        fresh = step_layer(step_inputs)
    sees_step = torch.equal(in_nested, fresh) and not torch.equal(in_nested.float(), before_step.float())
    return sees_step, torch.equal(after_nested, before_step)


for low_dtype in (torch.bfloat16, torch.float16):
    for setting, nested_options, sees_step in (("enabled=False", {"enabled": False}, True),
                                               ("cache_enabled=False", {"cache_enabled": False}, True),
                                               ("default settings", {}, False)):
        assert nested_pass_after_step(low_dtype, nested_options) == (sees_step, True), (
            f"{low_dtype}, a nested torch.autocast with {setting}: a pass in it sees an optimizer step exactly "
            "when it has enabled=False or cache_enabled=False; the passes after it still use the cached copy")
# sphinx_gallery_end_ignore

# %%
# 现象：整个训练循环都在一个区域里
# --------------------------------
#
# 如果整个训练循环都写在 ``torch.autocast`` 里，优化器的 ``step()`` 就是在区域内调用的。优化器更新了 float32 权重，可每次前向传播用的都还是第一步转换出的副本，看不到 ``Linear`` 权重（各是一个 ``Parameter``）的更新；由 ``weight_norm`` 这类参数化在每次读取时算出的权重会被重新转换，照样训练（本单元格的隐藏检查跑了这种情形）。这里模型只有一个 ``Linear``，损失停在起点不动。模型里的 ``LayerNorm`` 若带参数（默认 ``elementwise_affine=True``），autocast 不转换它的参数，损失仍会下降，只是比下面的解决办法慢；``elementwise_affine=False`` 时损失同样停在起点不动（本单元格的隐藏检查用 ``Linear``、``LayerNorm``、``Linear`` 三层的模型把两种写法都跑了一遍，还跑了 ``LayerNorm`` 不带参数的情形）。

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
start = model.weight.detach().clone()
stuck = []
with torch.autocast("cpu", dtype=torch.bfloat16):
    for _ in range(4):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
        loss.backward()
        optimizer.step()
        stuck.append(loss.item())
print("losses:", [round(v, 4) for v in stuck])
print("model.weight changed:", not torch.equal(model.weight, start))
assert len(set(stuck)) == 1 and not torch.equal(model.weight, start), "the weights move, the loss does not"
# sphinx_gallery_start_ignore
def three_layer_steps(region_per_step, affine=True):
    torch.manual_seed(0)
    layers = torch.nn.Sequential(
        torch.nn.Linear(3, 8), torch.nn.LayerNorm(8, elementwise_affine=affine), torch.nn.Linear(8, 1)
    )
    layers_optimizer = torch.optim.SGD(layers.parameters(), lr=0.1)
    lx, ly = torch.randn(8, 3), torch.randn(8, 1)
    taken = []

    def forward_pass():
        first_copy = weight_used(layers[0], torch.ones(8, 3, requires_grad=True))[1]
        pass_saved = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: pass_saved.append(t) or t, lambda t: t):
            layers_loss = torch.nn.functional.mse_loss(layers(lx).float(), ly)
        taken.append((layers_loss.item(), first_copy, any(t is layers[1].weight for t in pass_saved)))
        return layers_loss

    if region_per_step:
        for _ in range(4):
            layers_optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                layers_loss = forward_pass()
            layers_loss.backward()
            layers_optimizer.step()
    else:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            for _ in range(4):
                layers_optimizer.zero_grad()
                layers_loss = forward_pass()
                layers_loss.backward()
                layers_optimizer.step()
    return taken


one_region_steps, per_step_steps = three_layer_steps(False), three_layer_steps(True)
one_region_losses, per_step_losses = [s[0] for s in one_region_steps], [s[0] for s in per_step_steps]
assert one_region_losses == sorted(set(one_region_losses), reverse=True), "with a LayerNorm the loss still falls"
assert len({s[0] for s in three_layer_steps(False, affine=False)}) == 1, (
    "with a LayerNorm without parameters the loss stays where it started"
)
assert per_step_losses[0] == one_region_losses[0], "both runs start from the same loss"
assert all(f < o for f, o in zip(per_step_losses[1:], one_region_losses[1:], strict=True)), "the fix falls faster at every step"
assert all(same_storage(s[1], one_region_steps[0][1]) for s in one_region_steps), "one copy of Linear's weight"
assert all(bytes_apart(s[1], per_step_steps[0][1]) for s in per_step_steps[1:]), "a new copy at every step"
assert all(s[2] for s in one_region_steps + per_step_steps), "LayerNorm computes with its float32 weight itself"
torch.manual_seed(0)
normed = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 1))
normed_optimizer = torch.optim.SGD(normed.parameters(), lr=0.1)
normed_losses = []
with torch.autocast("cpu", dtype=torch.bfloat16):
    for _ in range(4):
        normed_optimizer.zero_grad()
        normed_loss = torch.nn.functional.mse_loss(normed(x).float(), y)
        normed_loss.backward()
        normed_optimizer.step()
        normed_losses.append(normed_loss.item())
assert normed_losses == sorted(set(normed_losses), reverse=True), "a weight_norm Linear trains inside one region"
for low_dtype in (torch.bfloat16, torch.float16):
    for other_dtype in (torch.float64, torch.float16, torch.bfloat16):
        other_losses_ = reset_loop_losses_(lambda: None, low_dtype, other_dtype)
        assert other_losses_ == sorted(set(other_losses_), reverse=True), (
            f"{low_dtype}: a {other_dtype} Linear trains in a loop inside one region")
# sphinx_gallery_end_ignore

# %%
# 解决办法：autocast 只包住前向传播和损失
# ---------------------------------------
#
# 这是 PyTorch 文档给出的写法：区域里只放前向传播和损失，反向传播和 ``step()`` 放在区域之后。每一步的区域都按权重当时的值转换，损失随之下降，前提是循环外面没有再套一层开着缓存的 ``torch.autocast`` 区域（哪怕是 ``enabled=False`` 的）。（在那一个大区域上设 ``cache_enabled=False`` 也能训练，代价是每次前向传播都要重新复制一次权重；本单元格的隐藏检查运行了这种写法。）

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
losses = []
for _ in range(4):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("losses:", [round(v, 4) for v in losses])
assert losses == sorted(set(losses), reverse=True) and losses[0] == stuck[0], "the loss falls from the same start"
# sphinx_gallery_start_ignore
torch.manual_seed(0)
uncached = torch.nn.Linear(3, 1)
uncached_optimizer = torch.optim.SGD(uncached.parameters(), lr=0.1)
ux, uy = torch.randn(8, 3), torch.randn(8, 1)
uncached_losses = []
with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
    for _ in range(4):
        uncached_optimizer.zero_grad()
        uncached_loss = torch.nn.functional.mse_loss(uncached(ux).float(), uy)
        uncached_loss.backward()
        uncached_optimizer.step()
        uncached_losses.append(uncached_loss.item())
assert uncached_losses == losses, "one region with cache_enabled=False trains like the fix"
for enclosing_enabled, enclosing_cache in ((True, True), (False, True), (True, False), (False, False)):
    torch.manual_seed(0)
    enclosed = torch.nn.Linear(3, 1)
    enclosed_optimizer = torch.optim.SGD(enclosed.parameters(), lr=0.1)
    ex, ey = torch.randn(8, 3), torch.randn(8, 1)
    enclosed_losses = []
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=enclosing_enabled, cache_enabled=enclosing_cache):
        for _ in range(4):
            enclosed_optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                enclosed_loss = torch.nn.functional.mse_loss(enclosed(ex).float(), ey)
            enclosed_loss.backward()
            enclosed_optimizer.step()
            enclosed_losses.append(enclosed_loss.item())
    assert enclosed_losses == (stuck if enclosing_cache else losses), (
        f"the fix inside an outer region (enabled={enclosing_enabled}, cache_enabled={enclosing_cache}) "
        "trains as at the top level exactly when the outer cache is off"
    )
# sphinx_gallery_end_ignore

# %%
# ``GradScaler``：``unscale_`` 和梯度裁剪改写 ``.grad``
# -----------------------------------------------------
#
# ``torch.amp.GradScaler`` 在反向传播之前把损失乘上一个缩放因子（起初是 65536），免得很小的 float16 梯度舍入成零；bfloat16 的指数范围和 float32 相同（最小的正规数相同，最大的数也落在同一个 2 的幂之下），用不着它，但调用方式一样，在 CPU 上也能运行。要裁剪梯度，先由 ``scaler.unscale_(optimizer)`` 把每个 ``.grad`` 原地除以缩放因子，这一步不推进它的版本计数器（version counter），见 :ref:`“版本计数器”那一页 <questions-version-counter>`；再由 ``torch.nn.utils.clip_grad_norm_`` 原地把它们缩小。所以 ``backward()`` 之后记下的 ``g = p.grad``，到 ``step()`` 时存的已是去掉缩放、裁剪过的值；``p.grad.clone()`` 则保留原来缩放过的梯度（普通的梯度裁剪也是这样，见 :ref:`“记录下来的梯度全都一样”那一页 <questions-stale-grad>`）。:fact:`kernel-writes-not-counted`

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(8, 3), torch.randn(8, 1)
for step in range(3):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    scale = scaler.get_scale()
    g = model.weight.grad
    kept = model.weight.grad.clone()
    logged = [(p.grad, p.grad.clone()) for p in model.parameters()]  # 权重的和偏置的
    scaler.unscale_(optimizer)
    unscaled = [grad.clone() for grad, _ in logged]
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.25)
    print(f"step {step}: scale {scale:.0f}  norm {norm:.4f}  kept {kept}  g {g}")
    for p, (grad, before), after in zip(model.parameters(), logged, unscaled, strict=True):
        assert grad is p.grad and torch.equal(after, before / scale), f"step {step}: unscale_ rewrote .grad"
        assert torch.allclose(grad, after * 0.25 / (norm + 1e-6)), f"step {step}: clipping rewrote .grad"
    scaler.step(optimizer)
    scaler.update()
# sphinx_gallery_start_ignore
assert norm > 0.25, "the gradient was long enough to be clipped"
assert torch.amp.GradScaler("cpu").get_scale() == 65536.0, "the scale starts at 65536"
assert torch.finfo(torch.bfloat16).tiny == torch.finfo(torch.float32).tiny and torch.frexp(
    torch.tensor([torch.finfo(torch.bfloat16).max, torch.finfo(torch.float32).max], dtype=torch.float64)
).exponent.tolist() == [128, 128], (
    "bfloat16 has float32's exponent range: the same smallest normal number, and a largest one below 2**128")
for low, scale_by, zero in ((torch.float16, 1.0, True), (torch.float16, 65536.0, False), (torch.bfloat16, 1.0, False)):
    tiny_layer = torch.nn.Linear(2, 1)
    with torch.autocast("cpu", dtype=low):
        tiny_loss = tiny_layer(torch.ones(3, 2)).float().sum() * 1e-8
    (tiny_loss * scale_by).backward()
    assert bool((tiny_layer.weight.grad == 0).all()) == zero, f"{low}, loss scaled by {scale_by}: zero gradient {zero}"
assert not torch.equal(kept, g) and kept.abs().min() > 1.0, "kept holds the scaled gradient"
# sphinx_gallery_end_ignore

# %%
# 改为转换模型本身：``.to(torch.bfloat16)`` 和 ``.half()``
# --------------------------------------------------------
#
# ``model.to(torch.bfloat16)`` 或 ``model.half()`` 不是混合精度：它们原地转换 float32 模型本身。在默认的 ``torch.__future__`` 设置下，模型的每个 ``Parameter`` 都还是原来的对象，背后换成新的低精度内存；模型里不再留有 float32 的权重。在 ``torch.inference_mode()`` 之外转换时，梯度也是低精度的。对下一个单元格检查的四种浮点 dtype 的稠密张量，不带其他参数的 ``tensor.to(dtype)`` 返回新张量，张量已经是那个 dtype 时返回张量本身。``module.to()`` 和 ``tensor.to()`` 的其余行为，见 :ref:`“module.to()”那一页 <questions-module-to>`。

for name, convert, dtype in (("model.to(torch.bfloat16)", lambda m: m.to(torch.bfloat16), torch.bfloat16),
                             ("model.half()", lambda m: m.half(), torch.float16)):  # fmt: skip
    model = torch.nn.Linear(2, 2)
    params = dict(model.named_parameters())
    memories = {key: p.detach() for key, p in params.items()}
    returned = convert(model)
    model(torch.ones(3, 2, dtype=dtype)).sum().backward()
    print(f"{name}: returned is model: {returned is model}")
    for key, p in model.named_parameters():
        print(f"  {key:<6}  is the same Parameter: {p is params[key]}  new memory: "
              f"{not same_storage(p, memories[key])}  dtype: {p.dtype}  grad: {p.grad.dtype}")
    assert returned is model and all(p is params[key] and bytes_apart(p, memories[key])
                                     for key, p in model.named_parameters()), (
        f"{name} returns the model, whose every parameter is the same Parameter on new memory"
    )
    assert all(p.dtype == p.grad.dtype == dtype for p in model.parameters()) and not any(
        t.dtype == torch.float32 for t in model.state_dict().values()
    ), f"{name}: low-precision weights and gradients, no float32 weight left"
# sphinx_gallery_start_ignore
for convert_mode in (torch.enable_grad, torch.no_grad, torch.inference_mode):
    for convert_call, convert_dtype in ((lambda cm: cm.to(torch.bfloat16), torch.bfloat16),
                                        (lambda cm: cm.half(), torch.float16)):
        convert_model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 1))
        convert_params = list(convert_model.parameters())
        convert_memories = [q.detach() for q in convert_params]
        with convert_mode():
            convert_returned = convert_call(convert_model)
        assert convert_returned is convert_model and all(
            q is q_before and bytes_apart(q, q_memory) and q.dtype == convert_dtype
            for q, q_before, q_memory in zip(convert_model.parameters(), convert_params, convert_memories, strict=True)
        ), f"{convert_mode.__name__}: every parameter of a Sequential stays the same Parameter, on new low-precision memory"
        assert not any(entry.dtype == torch.float32 for entry in convert_model.state_dict().values()), (
            f"{convert_mode.__name__}: no float32 weight or buffer is left in the converted Sequential"
        )
        if convert_mode is not torch.inference_mode:
            convert_model(torch.ones(3, 2, dtype=convert_dtype)).sum().backward()
            assert all(q.grad.dtype == convert_dtype for q in convert_model.parameters()), (
                f"{convert_mode.__name__}: every gradient of the converted Sequential is low precision"
            )
# sphinx_gallery_end_ignore

# %%
# 在四种浮点 dtype 之间，只有 ``t`` 已经是 ``dtype`` 时，``t.to(dtype)`` 才返回 ``t`` 本身，其余情况都返回一个有自己内存的新张量。

dtypes = (torch.float32, torch.float64, torch.bfloat16, torch.float16)
for source in dtypes:
    t = torch.ones(3, dtype=source)
    results = {target: t.to(target) for target in dtypes}
    returned_itself = [str(target).removeprefix("torch.") for target, r in results.items() if r is t]
    print(f"t of {str(source).removeprefix('torch.'):<8}  t.to(dtype) is t for: {returned_itself}")
    assert [target for target, r in results.items() if r is t] == [source], (
        f"t.to(dtype) returns t itself only for t's own dtype, {source}"
    )
    assert all(bytes_apart(r, t) for target, r in results.items() if target != source), (
        f"t of {source}: t.to(dtype) of every other dtype has memory of its own"
    )

# sphinx_gallery_start_ignore
# 对其他稠密张量（需要梯度的叶子张量、转置得到的视图、meta 上的张量、推理张量）也一样，
# 梯度模式开着时和在 no_grad 下都一样
for to_source in dtypes:
    with torch.inference_mode():
        to_inference = torch.ones(2, 3, dtype=to_source)
    for to_kind, to_dense in (
        ("a leaf that requires grad", torch.ones(3, dtype=to_source, requires_grad=True)),
        ("a transposed view", torch.ones(2, 3, dtype=to_source).t()),
        ("a meta tensor", torch.ones(3, dtype=to_source, device="meta")),
        ("an inference tensor", to_inference),
    ):
        for to_mode in (torch.enable_grad, torch.no_grad):
            with to_mode():
                to_itself = [to_dense.to(target) is to_dense for target in dtypes]
            assert to_itself == [target == to_source for target in dtypes], (
                f"{to_kind} of {to_source}, under {to_mode.__name__}: t.to(dtype) returns t itself only for t's own dtype"
            )
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    在 GPU 上，autocast 默认用 float16，这就需要 ``GradScaler``；权重缓存和 CPU 上一样：在同一个 ``torch.autocast("cuda")`` 区域里原地改动权重，下一次前向传播看不到，顶层的新区域能看到；``unscale_`` 也是原地把 ``.grad`` 除以缩放因子（PyTorch 文档：`Automatic Mixed Precision <https://docs.pytorch.org/docs/stable/amp.html>`__、`示例 <https://docs.pytorch.org/docs/stable/notes/amp_examples.html>`__）。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

# sphinx_gallery_start_ignore
assert torch.get_autocast_dtype("cuda") == torch.float16, "autocast's default dtype for cuda is float16, read without a GPU"
# sphinx_gallery_end_ignore

if torch.cuda.is_available():
    gpu_model = torch.nn.Linear(2, 2).cuda()
    gpu_x = torch.ones(3, 2, device="cuda")
    with torch.autocast("cuda"):
        gpu_first = gpu_model(gpu_x)
        with torch.no_grad():
            gpu_model.weight.mul_(2)
        gpu_second = gpu_model(gpu_x)
    with torch.autocast("cuda"):
        gpu_third = gpu_model(gpu_x)
    print("gpu_first.dtype:", gpu_first.dtype)
    assert gpu_first.dtype == torch.float16, "autocast's default dtype on a GPU is float16"
    print("in the region, edit seen:", not torch.equal(gpu_first, gpu_second))
    print("new region, edit seen:", not torch.equal(gpu_first, gpu_third))
    assert torch.equal(gpu_first, gpu_second) and not torch.equal(gpu_first, gpu_third), "the cast cache on CUDA"
    gpu_scaler = torch.amp.GradScaler("cuda")
    gpu_optimizer = torch.optim.SGD(gpu_model.parameters(), lr=0.1)
    with torch.autocast("cuda"):
        gpu_loss = gpu_model(gpu_x).float().sum()
    gpu_scaler.scale(gpu_loss).backward()
    gpu_g, gpu_kept = gpu_model.weight.grad, gpu_model.weight.grad.clone()
    gpu_scaler.unscale_(gpu_optimizer)
    print("g is p.grad after unscale_:", gpu_g is gpu_model.weight.grad, " g changed:", not torch.equal(gpu_g, gpu_kept))
    assert gpu_g.dtype == torch.float32 and torch.equal(gpu_g, gpu_kept / gpu_scaler.get_scale()), (
        "unscale_ divided the float32 p.grad in place by the scale")
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# 小结
# ----
#
# 在 ``torch.autocast`` 下，权重仍是 float32 的 ``Parameter`` 对象；运算由 autocast 转成低精度的层（``Linear``、卷积；不包括 ``Embedding`` 和 ``LayerNorm``）用的是一份有自己内存的低精度副本，梯度穿过这次类型转换回到 float32 的 ``.grad``。在 ``cache_enabled=True`` 下（这是顶层区域的默认值），即时执行模式下的 autocast 把需要梯度、直接（不是 ``.T`` 之类的视图）传给这类运算的 float32 ``Parameter`` 的副本留到最外层的区域结束（除非 ``torch.clear_autocast_cache()`` 提前清空了缓存），所以区域内的优化器更新，同一区域里之后的前向传播看不到（也有例外，比如 ``torch.inference_mode()`` 下的前向传播，嵌套在其中、设了 ``enabled=False`` 或 ``cache_enabled=False`` 的 ``torch.autocast`` 里的前向传播，以及在区域内用 ``torch.set_autocast_cache_enabled(False)`` 关掉缓存期间的前向传播）：``torch.autocast`` 里只放前向传播和损失。``scaler.unscale_`` 和 ``clip_grad_norm_`` 原地改写 ``.grad``：要记录梯度，就记 ``p.grad.clone()``。``model.to(torch.bfloat16)`` 和 ``model.half()`` 原地转换 float32 模型自己的参数，模型里不留 float32 的权重。
