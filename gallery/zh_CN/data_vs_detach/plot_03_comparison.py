"""
.. _data-vs-detach-comparison:

逐条检验原博文的总结
====================

原博文最后总结了 ``.data`` 和 ``detach()`` 的异同。本页在 torch |torch_version| 上逐条检验：四条成立（其中一条只有按作者对某个词的本意理解才成立），一条照字面不成立。
"""

# %%
# 同一个源张量
# ------------
#
# 下面的检查大多从 ``out = a.sigmoid()``
# 出发，也就是原文要分离的那个张量；其余几项各自说明从哪个张量出发。辅助函数 ``show`` 和 ``same_storage``
# 与 :ref:`“.data”那一页 <data-vs-detach-data>` 相同。
#
# ``bytes_apart`` 判断两个张量的存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。
import inspect

import torch


def show(name, t):
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}")


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
show("a", a)
show("out", out)

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
# “两者都是原位操作”：按本意成立，按 PyTorch 的用语不成立
# -------------------------------------------------------
#
# 先记下 ``out`` 的值、形状和版本，再取 ``out.data`` 和
# ``out.detach()``，然后重新看 ``out``。
#
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    原文的总结说两者都是“原位操作”。按作者想表达的意思，这没错：两者都直接作用于原来的数据，不做复制（都返回一个新的张量对象，与 ``out`` 共享存储）。但在 PyTorch 的用语里，原地（in-place）操作改变的是被调用的张量本身，而不是另给一个新张量。这类操作大多还会推进该张量的版本计数器（version counter），但不是全部。本站检查过的操作中，有些改变数值，却不推进它：``apply_``、``map_`` 和 ``map2_``，fused 优化器（``fused=True``）的内核，以及 :ref:`“版本计数器”那一页 <questions-version-counter>` 列出的其他 torch 内核，例如 ``torch.amp.GradScaler.unscale_`` 的反缩放。调整到张量现有形状的 ``resize_`` 或 ``resize_as_``，若给的 ``memory_format`` 不是张量现有的布局，比如对连续的 4 维张量给 ``torch.channels_last``，也是这样：它给张量换了步长，读出的数值随之改变。另一些不改变数值，也不推进它，其中有 ``detach_()``、``requires_grad_()``、``share_memory_()``，以及不给 ``memory_format``、调整到张量现有形状的 ``resize_`` 或 ``resize_as_``，见 :ref:`“detach()”那一页 <copying-detach>`。取 ``.data`` 或 ``.detach()`` 之后，``out`` 的值、形状、版本都没变，也还在计算图里（见下面的输出）。要等之后通过返回的张量做原地修改（比如 ``zero_()``），源张量才会改变。
#    :fact:`inplace-ops-raise-version` :fact:`apply-map-not-counted`
#    :fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted`
#    :fact:`underscore-methods-not-counted` :fact:`same-shape-resize-memory-format-restrides`
values, shape, version = out.detach().clone(), out.shape, out._version
via_data = out.data
via_detach = out.detach()
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
print("via_data is out:", via_data is out)
print("via_detach is out:", via_detach is out)
assert out._version == version == 0, "taking .data or .detach() does not bump the version"
# sphinx_gallery_start_ignore
assert torch.equal(out, values) and out.shape == shape, "values and shape of out are unchanged"
assert out.requires_grad and out.grad_fn.name() == "SigmoidBackward0", "out is still in the graph"
assert via_data is not out and via_detach is not out, "both return a new tensor object"
# sphinx_gallery_end_ignore

# %%
# PyTorch 用末尾的下划线标记原地操作的方法。``detach()`` 确实有一个原地版本，叫
# ``detach_()``，是另一个方法。它返回的就是同一个对象，并把这个对象本身移出计算图；对自动求导（autograd）记作视图（view）的张量调用则会报错，这里是 ``b[:2]``；``b.detach()`` 和 ``b.data`` 也读 ``b`` 的内存，但自动求导不把它们记作视图，对 ``b.detach()`` 调用 ``detach_()`` 照常运行。而
# ``.data`` 没有原地方法；它的赋值操作则是另一回事（见下一段）。
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out_b = b.sigmoid()
show("out_b (before detach_)", out_b)
result = out_b.detach_()
show("out_b (after detach_)", out_b)
print("result is out_b:", result is out_b)
print("Tensor has data_:", hasattr(torch.Tensor, "data_"))
assert result is out_b, "detach_() returns the same object"
try:
    b[:2].detach_()
except RuntimeError as e:
    print("b[:2].detach_():", str(e).split(". ")[0])
    assert "Can't detach views in-place" in str(e), "detach_() refuses a view"
else:
    raise AssertionError("detach_() on a view raised nothing")
detached = b.detach()
detached_back = detached.detach_()
print("b.detach().detach_() is b.detach():", detached_back is detached, " same storage as b:", same_storage(detached, b))
# sphinx_gallery_start_ignore
assert not out_b.requires_grad and out_b.grad_fn is None, "detach_() changed out_b itself"
assert detached_back is detached and same_storage(detached, b), "detach_() runs on b.detach(), which shares b's memory"
assert b[:2]._base is b and b.detach()._base is None and b.data._base is None, (
    "autograd tracks b[:2] as a view, not b.detach() or b.data")
assert not hasattr(torch.Tensor, "data_"), "there is no in-place form of .data"
# sphinx_gallery_end_ignore

# %%
# 赋值 ``p.data = t`` 比任何原地修改都危险：它把另一个张量直接放到 ``p``
# 底下，几乎不做检查。下面这个含三个 float32 元素的参数，被换成了 2×2 的 float64 张量：没有报错，``p`` 仍是
# ``Parameter``，``_version`` 仍为 0，自动求导的版本检查无从察觉：赋值之前建好的 ``loss`` 在 ``backward()`` 中读到的是新张量，报错是因为形状不符。

p = torch.nn.Parameter(torch.zeros(3))
loss = (p * p).sum()
p.data = torch.zeros(2, 2, dtype=torch.float64)
print("p:", p)
print("p.shape:", tuple(p.shape), " p.dtype:", p.dtype, " p._version:", p._version)
assert tuple(p.shape) == (2, 2) and p.dtype == torch.float64 and p._version == 0, "p.data = t is silent"
# sphinx_gallery_start_ignore
assert isinstance(p, torch.nn.Parameter), "p is still a Parameter"
saved_p = loss.grad_fn.next_functions[0][0]._saved_self
assert saved_p is p and tuple(saved_p.shape) == (2, 2), "the graph built before the swap reads the new tensor"
# sphinx_gallery_end_ignore
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "must match the size" in str(e) and "modified by an inplace operation" not in str(e), (
        "backward() fails on the new shape, not on the version check")
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward() of the graph built before the swap must fail on the new shape")

# %%
# 按这里实际运行的结果，这个赋值检查的是三点：``t`` 必须是张量（``None``、数字或列表会抛出 ``TypeError``）；torch 要认为 ``t`` 与 ``p`` 是兼容的张量类型；``p`` 需要梯度时，``t`` 的 dtype 必须是浮点或复数。稀疏的 ``t`` 与稠密的 ``p`` 不兼容；``p`` 在 CPU 上而 ``t`` 在 ``meta`` 上，或者反过来，也不兼容。这两种情况 torch 都报“incompatible tensor type”，即张量类型不兼容。形状不查，浮点 dtype 换成另一种浮点 dtype 或换成复数 dtype 也不查；对不需要梯度的张量，连整数 dtype 也能赋进去。哪两种设备算兼容，是 torch 逐对规定的：CPU 与 ``meta`` 不兼容，所以在默认的 ``torch.__future__`` 设置下（转换时既不覆盖也不交换模块参数），``nn.Module.to("meta")`` 会换上新的 ``Parameter`` 对象，不保留原来的对象（CPU 与 GPU 的情况见下面的框）。:fact:`data-setter-checks` :fact:`module-to-meta-gives-new-parameters`

refused = []
for t in (torch.zeros(3, dtype=torch.int64), torch.zeros(3).to_sparse(), torch.zeros(3, device="meta")):
    try:
        p.data = t
    except RuntimeError as e:
        refused.append(t)
        print(f"p.data = ({t.dtype}, {t.layout}, {t.device}):", type(e).__name__ + ":", str(e).splitlines()[0])
    else:
        raise AssertionError("the setter must refuse this tensor")
print("p after the refusals:", tuple(p.shape), p.dtype, p.device)
assert len(refused) == 3, "the setter refuses an integer dtype, a sparse layout and a meta tensor under a CPU parameter"

q = torch.zeros(3)
q.data = torch.zeros(3, dtype=torch.int64)
print("q.requires_grad:", q.requires_grad, " q.dtype:", q.dtype)
assert q.dtype == torch.int64, "without requires_grad, an integer dtype passes"

lin = torch.nn.Linear(2, 2)
weight, bias = lin.weight, lin.bias
lin.to("meta")
print("lin.weight is weight:", lin.weight is weight, " lin.bias is bias:", lin.bias is bias, " device:", lin.weight.device)
assert lin.weight is not weight and lin.bias is not bias, "Module.to('meta') puts new Parameter objects in place"
# sphinx_gallery_start_ignore
assert all(isinstance(new, torch.nn.Parameter) and new.device.type == "meta" for new in (lin.weight, lin.bias)), (
    "the new objects are Parameters on meta")
assert weight.device.type == "cpu" and bias.device.type == "cpu", "the old Parameters stay on the CPU"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    CPU 上的参数可以用这个赋值换成 GPU 上的张量，反过来也行：torch 把稠密的 CPU 张量和 CUDA 张量算作兼容的张量类型。``nn.Module.to()`` 就靠这一点在 CPU 与 GPU 之间搬动模块，在默认的 ``torch.__future__`` 设置下，搬动后每个 ``Parameter`` 仍是原来的对象（PyTorch 文档：`Module.to <https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.to>`__）。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    g = torch.nn.Parameter(torch.zeros(3))
    g.data = torch.ones(3, device="cuda")
    print("g.device after g.data = (cuda tensor):", g.device)
    assert g.device.type == "cuda" and isinstance(g, torch.nn.Parameter), "a CUDA tensor passes under a CPU parameter"
    g.data = torch.ones(3)
    print("g.device after g.data = (cpu tensor):", g.device)
    assert g.device.type == "cpu", "a CPU tensor passes under a CUDA parameter"
    lin = torch.nn.Linear(2, 2)
    weight = lin.weight
    lin.to("cuda")
    print("lin.weight is weight:", lin.weight is weight, " device:", lin.weight.device)
    assert lin.weight is weight and weight.device.type == "cuda", "Module.to keeps the Parameter object"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# “两者都与源张量共享数据”：成立
# ------------------------------
#
# 两个结果读的都是 ``out`` 的存储，所以任何一方的改动，另一方都看得到。先在 ``torch.no_grad()`` 里把 ``out`` 原地乘以 2，计算图不会记下这次修改（``out`` 的 ``grad_fn`` 不变）：两个结果都跟着变。再分别通过两个结果写入，``out`` 也跟着变。
for name, t in [("via_data", via_data), ("via_detach", via_detach)]:
    same = same_storage(t, out)
    print(f"{name} same storage as out:", same)
    # sphinx_gallery_start_ignore
    assert same, f"{name} shares storage with out"
    # sphinx_gallery_end_ignore

with torch.no_grad():
    out.mul_(2)
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
# sphinx_gallery_start_ignore
assert torch.equal(via_data, out) and torch.equal(via_detach, out), "an edit of out shows in both"
# sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert out.grad_fn.name() == "SigmoidBackward0", "the edit under no_grad was not recorded"
# sphinx_gallery_end_ignore

via_data[0] = 10.0
via_detach[1] = 20.0
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
assert out[0].item() == 10.0 and out[1].item() == 20.0, "edits through either one show in out"
# sphinx_gallery_start_ignore
assert len({id(out), id(via_data), id(via_detach)}) == 3, "three tensor objects"
assert (out._version, via_data._version, via_detach._version) == (2, 1, 2), (
    "out and via_detach share one counter, moved by out.mul_(2) and via_detach[1] = 20.0; via_data's own moved once")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 out、via_data 和 via_detach，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。三个张量对象共享一块存储 ``S1``；``out`` 与 ``via_detach`` 共享计数器 ``C1``，``via_data`` 用 ``C2``。

draw_memory("out.mul_(2); via_data[0] = 10.0; via_detach[1] = 20.0", out=out, via_data=via_data, via_detach=via_detach)

# %%
# “两者都脱离计算图，不需要梯度”：成立
# ------------------------------------
#
# 两个结果都是 ``requires_grad=False``，没有
# ``grad_fn``，都是叶子张量（leaf tensor）。只对它们做的运算不会被记录，梯度也不会经由它们传回：它们与需要梯度的张量 ``w`` 相乘，乘积会被记录，但梯度只到达 ``w``。原文说“``.data`` 不能被
# autograd 追踪”，指的就是这一点，而这一点对 ``detach()`` 同样成立。
for name, t in [("via_data", via_data), ("via_detach", via_detach)]:
    y = t * 2
    print(f"{name}: requires_grad={t.requires_grad}  grad_fn={t.grad_fn}  is_leaf={t.is_leaf}")
    print(f"({name} * 2): requires_grad={y.requires_grad}  grad_fn={y.grad_fn}")
    assert not t.requires_grad and t.grad_fn is None and t.is_leaf, f"{name} is a detached leaf"
    # sphinx_gallery_start_ignore
    assert not y.requires_grad and y.grad_fn is None, f"operations on {name} alone are not recorded"
    w = torch.ones(3, requires_grad=True)
    product = t * w
    assert product.grad_fn is not None and [None if g is None else g.tolist() for g in torch.autograd.grad(
        product.sum(), [w, a], allow_unused=True)] == [t.tolist(), None], (
        f"{name} * w, with w requiring grad, is recorded, and its gradient reaches w and does not flow back through {name} to a")
    # sphinx_gallery_end_ignore

# %%
# “``.data`` 是属性，``detach()`` 是方法”：成立
# ---------------------------------------------
#
# 在张量类上，``data`` 是一个 getset
# 描述符（计算属性，读取时不加括号），``detach``
# 是一个方法描述符。计算属性每次读取都会执行代码：每次 ``out.data``
# 得到的都是一个新的张量对象。
data_attr = inspect.getattr_static(torch.Tensor, "data")
detach_attr = inspect.getattr_static(torch.Tensor, "detach")
print("type of Tensor.data:  ", type(data_attr).__name__)
print("type of Tensor.detach:", type(detach_attr).__name__)
print("callable(out.data):  ", callable(out.data))
print("callable(out.detach):", callable(out.detach))
print("out.data is out.data:", out.data is out.data)
assert not callable(out.data) and callable(out.detach), "out.data is a tensor, out.detach is a method"
# sphinx_gallery_start_ignore
assert inspect.isgetsetdescriptor(data_attr), "Tensor.data is a getset descriptor (an attribute)"
assert inspect.ismethoddescriptor(detach_attr), "Tensor.detach is a method descriptor"
assert out.data is not out.data, "each read of .data builds a new tensor object"
# sphinx_gallery_end_ignore


# %%
# “``.data`` 不安全，``detach()`` 安全”：后半句照字面不成立
# ---------------------------------------------------------
#
# ``detach()`` 只是更安全，并非绝对安全。这里起作用的版本检查，是 ``backward()`` 对自动求导为反向传播保存的张量所做的检查；情况 4 展示另一项检查。情况 1 就是原文的例子：``sigmoid``
# 保存了输出，所以通过 ``detach()`` 的修改会被发现；同样的修改通过
# ``.data``，得到的是错误的梯度。
def sigmoid_case(how, take):
    print(f"case 1, edit through {how}:")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.sigmoid()
    take(y).zero_()
    print(f"  y._version={y._version}")
    try:
        y.sum().backward()
    except RuntimeError as err:
        print("  backward():", type(err).__name__)
        return None
    print("  backward(): no error, x.grad =", x.grad)
    return x.grad


grad_data = sigmoid_case(".data", lambda y: y.data)
grad_detach = sigmoid_case("detach()", lambda y: y.detach())
assert grad_detach is None, "detach(): the edit is caught"
# sphinx_gallery_start_ignore
assert grad_data is not None and torch.equal(grad_data, torch.zeros(3)), ".data: silent, wrong gradient"
# sphinx_gallery_end_ignore

# %%
# 情况 2：被修改的张量没有被保存。对于 ``out = a * 2``，自动求导只保存常数
# 2（``_saved_self`` 是 ``None``；与 ``_version`` 一样，``_saved_*`` 这些属性都是 torch
# 的内部属性，在今后的 torch 发行版中可能会变），``sum()`` 只保存输入的形状。没有谁保存
# ``out``，``backward()`` 也就不检查它的版本。这时通过 ``detach()`` 把 ``out``
# 清零，不会报错。``a.grad`` 是已记录的计算图的梯度，但 ``loss`` 已经不等于
# ``out.sum()`` 了：这次修改没有被发现。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a * 2
loss = out.sum()
sum_saved = [k for k in dir(loss.grad_fn) if k.startswith("_saved")]
print(f"{out.grad_fn.name()} _saved_self:", out.grad_fn._saved_self)
print(f"{out.grad_fn.name()} _saved_other:", out.grad_fn._saved_other)
print(f"{loss.grad_fn.name()} saved fields:", sum_saved)
assert out.grad_fn._saved_self is None, "a * 2 did not save a"
# sphinx_gallery_start_ignore
assert out.grad_fn._saved_other.item() == 2, "a * 2 saved the constant 2"
assert sum_saved == ["_saved_self_sym_sizes"], "sum() saved only a size"
# sphinx_gallery_end_ignore

out.detach().zero_()
loss.backward()
show("a", a)
show("out", out)
print("loss:", loss)
print("out.sum():", out.sum())
print("a.grad:", a.grad)
assert loss.item() == 12.0 and out.sum().item() == 0.0, "loss no longer matches out"
# sphinx_gallery_start_ignore
assert out._version == 1, "the edit bumped out's version"
assert torch.equal(a.grad, torch.full((3,), 2.0)), "backward() ran and returned d(2a)/da = 2"
# sphinx_gallery_end_ignore

# %%
# 情况 3：修改发生在自动求导保存该张量之前。``b = a * 2`` 不保存 ``a`` 的任何东西；
# ``b.detach().mul_(10)`` 让 ``b`` 变成 ``20 * a``；之后 ``b * b`` 才保存 ``b``，保存的已经是修改后的值。保存之前发生的修改，``backward()`` 不会检查，也无须检查：在自动求导看来，这次修改带来的只是一个常数。``backward()``
# 返回 ``80 * a``，与在 ``torch.no_grad()`` 下做同样的修改完全相同，也与 ``b + (9 * b).detach()``
# （``b`` 加上被当作常数的 9b）相同：它是沿着记录下来的 ``b = 2 * a`` 求出的梯度，代入的是 ``b`` 现在的数值。

def case_3(edit):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = edit(a * 2)
    (b * b).sum().backward()
    return b, a.grad


def through_detach(b):
    b.detach().mul_(10)
    return b


def under_no_grad(b):
    with torch.no_grad():
        b.mul_(10)
    return b


b, grad_detach = case_3(through_detach)
_, grad_no_grad = case_3(under_no_grad)
_, grad_constant = case_3(lambda b: b + (9 * b).detach())
show("b", b)
print("a.grad, edit through detach():", grad_detach)
print("a.grad, edit under no_grad():  ", grad_no_grad)
print("a.grad, b + (9 * b).detach():  ", grad_constant)
assert torch.equal(grad_detach, grad_no_grad) and torch.equal(grad_detach, grad_constant), (
    "the edit through detach(), under no_grad() or as a constant: one a.grad")
# sphinx_gallery_start_ignore
assert torch.equal(grad_detach, 80 * torch.tensor([1.0, 2.0, 3.0])), "backward() returned 80 * a"
# sphinx_gallery_end_ignore

# %%
# 对叶子张量，同样的修改落在求梯度的那个张量本身上：在 ``(a * a).sum()`` 保存 ``a`` 之前执行
# ``a.detach().mul_(10)``，``backward()`` 返回按修改后的数值算出的 ``2 * a``，这正是按求导公式应得的梯度。

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a.detach().mul_(10)
(a * a).sum().backward()
show("a", a)
print("a.grad:", a.grad)
assert torch.equal(a.grad, 2 * a.detach()), "the gradient at the edited values"
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), torch.tensor([10.0, 20.0, 30.0])), "the edit reached the leaf"
# sphinx_gallery_end_ignore

# %%
# 情况 4 就是另一项检查，它发生在 ``backward()`` 之外。对需要梯度的张量调用 ``unbind()``、``split()`` 或 ``chunk()``，一次调用返回的各个输出都是需要梯度的视图，可能有几个，也可能只有一个：``q, k, v = x.chunk(3)`` 返回三个，``x.chunk(1)`` 只返回一个。通过 ``detach()`` 对其中一个做原地修改之后，这次调用的每个输出都不能再参与自动求导会记录的运算，不等到 ``backward()`` 就会报错；源张量是不是叶子张量，拆分时梯度模式（grad mode）开着、在 ``torch.no_grad()`` 下还是在 ``torch.inference_mode()`` 里，都是如此，后两种情况下，报错信息会说视图是在那种模式下创建的（在 ``torch.no_grad()`` 下修改也是这样，见 :ref:`“名字分开了，计算图还连着”那一页 <copying-add-rebinding>`）。通过 ``.data`` 做同样的修改，只推进 ``.data`` 返回的张量自己的版本计数器，不推进各输出与源张量共享的那个，也就不会被发现。源张量若从来不需要梯度，就没有这项检查；即使某个输出在修改之前或之后调用自己的 ``requires_grad_()`` 变成需要梯度（被修改的那个输出也算在内），也是如此：``weight`` 需要梯度，每个输出 ``t`` 的 ``t * weight`` 都照常运行并被记录（见第二个循环）。拆分时不需要梯度、之后才用 ``requires_grad_()`` 设为需要梯度的源张量，无论这一步在修改之前还是之后，都和其他源张量一样受这项检查（见第三个循环）。拆分时需要梯度、之后才用 ``requires_grad_(False)`` 关掉的叶子源张量，无论这一步在修改之前还是之后，同样受这项检查：它的输出仍然需要梯度（见第四个循环）。

def times_two_error(t):
    try:
        t * 2
    except RuntimeError as err:
        return str(err).split(".")[0]
    return "no error"


def edit_first(outputs, take):
    """Zero the first output through ``take``, then try ``t * 2`` on every output."""
    edited = take(outputs[0])
    edited.zero_()
    return edited, [times_two_error(t) for t in outputs]


splits = (("unbind", ()), ("split", (1,)), ("chunk", (3,)), ("chunk", (1,)))
routes = ((".data", lambda t: t.data), ("detach()", lambda t: t.detach()))
for split_name, split_args in splits:
    for how, take in routes:
        x = torch.ones(3, 2, requires_grad=True)
        outputs = getattr(x, split_name)(*split_args)
        q = outputs[0]
        edited, errors = edit_first(outputs, take)
        call = f"{split_name}({', '.join(map(str, split_args))})"
        print(f"{call:<9} outputs: {len(outputs)}, q = the first, zeroed through {how:<8} x[0] = {x[0].tolist()}"
              f"  q._version={q._version}  edited._version={edited._version}")
        print(f"{'':<9} last output * 2: {errors[-1]}")
        assert all(("modified inplace" in error) == (how == "detach()") for error in errors), (
            "after an edit through detach() every output is refused, after one through .data none")
        # sphinx_gallery_start_ignore
        assert edited._version == 1, "the edit moves the version counter of the tensor .data or detach() returns"
        assert all(t._version == x._version == (how == "detach()") for t in outputs), (
            "only the edit through detach() moves the version counter the outputs share with x")
        assert len(outputs) == (1 if call == "chunk(1)" else 3), "chunk(1) returns one output, the others three"
        assert torch.equal(x.detach()[0], torch.zeros(2)), "the edit reached x either way"
        # sphinx_gallery_end_ignore

# sphinx_gallery_start_ignore
def refused_after_edit(make_source, split_mode, refusal):
    """Per call and route, on the outputs of a fresh source split in this grad mode: do they all require grad, is
    each refused, with this message, exactly after an edit through detach(), and does only that edit move their
    shared counter?"""
    found = []
    for split_name_, split_args_ in splits:
        for how_, take_ in routes:
            split_source = make_source()
            with split_mode():
                split_outputs = {"unbind": torch.unbind, "split": torch.split, "chunk": torch.chunk}[split_name_](
                    split_source, *split_args_)
            _, split_errors = edit_first(split_outputs, take_)
            found.append(all(t.requires_grad and t._version == (how_ == "detach()") for t in split_outputs)
                         and all((refusal in error and "modified inplace" in error) == (how_ == "detach()")
                                 for error in split_errors))
    return found


assert all(all(refused_after_edit(make_source, split_mode, refusal))
           for make_source in (lambda: torch.ones(3, 2, requires_grad=True),
                               lambda: torch.ones(3, 2, requires_grad=True) * 1)
           for split_mode, refusal in ((torch.enable_grad, "is a view and its base"),
                                       (torch.no_grad, "A view was created in no_grad mode"),
                                       (torch.inference_mode, "A view was created in inference mode"))), (
    "for a leaf or a non-leaf source split with grad mode on, under no_grad or inside inference_mode, every output "
    "requires grad, and after an edit through detach() each is refused, by a message naming the mode the view was "
    "created in, and their counter moves, after one through .data none is and it does not")
# sphinx_gallery_end_ignore

weight = torch.ones(2, requires_grad=True)


def times_weight(t):
    try:
        return type((t * weight).grad_fn).__name__
    except RuntimeError as err:
        return str(err).split(".")[0]


for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (3,))):
    for own, when in (("none", ""), ("q", "before"), ("q", "after"), ("k", "before"), ("k", "after")):
        q, k, v = getattr(torch.ones(3, 2), split_name)(*split_args)  # 源张量不需要梯度
        if when == "before":
            {"q": q, "k": k}[own].requires_grad_()
        q.detach().zero_()
        if when == "after":
            {"q": q, "k": k}[own].requires_grad_()
        recorded = [times_weight(t) for t in (q, k, v)]
        print(f"source without grad, {split_name + '(),':<9} requires_grad_() on {own:<4} {when:<6}"
              f"  requires_grad (q, k, v): {[t.requires_grad for t in (q, k, v)]}  t * weight -> {sorted(set(recorded))}")
        assert [t.requires_grad for t in (q, k, v)] == [own == "q", own == "k", False] and all(
            name == "MulBackward0" for name in recorded), (
            "when the source never required grad, t * weight runs and is recorded for every output, "
            "one made to require grad with its own requires_grad_() included")

for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (3,))):
    for when in ("before", "after"):
        x = torch.ones(3, 2)
        q, k, v = getattr(x, split_name)(*split_args)  # 拆分时 x 不需要梯度
        if when == "before":
            x.requires_grad_()
        q.detach().zero_()
        x.requires_grad_()
        errors = [times_two_error(t) for t in (q, k, v)]
        print(f"requires_grad_() {when:<6} the edit, {split_name}(): x.requires_grad={x.requires_grad}")
        print(f"{'':<9} k * 2: {errors[1]}")
        assert all("modified inplace" in error for error in errors), (
            "a source made to require grad after the split is checked like any other, before or after the edit")

for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (3,))):
    for when in ("before", "after"):
        x = torch.ones(3, 2, requires_grad=True)
        q, k, v = getattr(x, split_name)(*split_args)  # 拆分时 x 需要梯度
        if when == "before":
            x.requires_grad_(False)
        q.detach().zero_()
        x.requires_grad_(False)
        errors = [times_two_error(t) for t in (q, k, v)]
        print(f"requires_grad_(False) {when:<6} the edit, {split_name}(): x.requires_grad={x.requires_grad}"
              f"  k.requires_grad={k.requires_grad}")
        print(f"{'':<9} k * 2: {errors[1]}")
        assert all(t.requires_grad for t in (q, k, v)) and all("modified inplace" in error for error in errors), (
            "a leaf source switched off after the split is still checked: its outputs keep requiring grad")

# %%
# 小结
# ----
#
# 原文的总结里，“两者共享数据”“两者脱离计算图”“``.data`` 是属性，``detach()`` 是方法”都成立；“两者都是原位操作”，若按作者想表达的意思理解则成立（两者都直接作用于原来的数据，不做复制），但按 PyTorch 的用语，两者都不是原地操作；“``detach()`` 是安全的”照字面不成立：通过 ``detach()`` 做的原地修改，只有当被修改的张量与自动求导在修改之前保存的某个张量共享版本计数器时，才会被 ``backward()`` 的版本检查发现；另一项检查（情况 4）则在需要梯度的张量经 ``unbind()``、``split()`` 或 ``chunk()`` 得到的某个输出被这样修改之后，让这次调用的所有输出都不能再参与自动求导会记录的运算。实际使用时，用 ``detach()``，不用 ``.data``；对结果尽量用非原地运算，``out.detach() * 0`` 会生成新张量，不动 ``out``。需要一份可以原地修改的独立副本时，用 ``.detach().clone()``：副本有自己的存储，改它碰不到计算图，``backward()`` 也保持正确。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
scaled = out.detach() * 0
copy = out.detach().clone()
copy.zero_()
out.sum().backward()
show("out", out)
show("scaled", scaled)
show("copy", copy)
print("scaled same storage as out:", same_storage(scaled, out))
print("copy same storage as out:", same_storage(copy, out))
print("a.grad:", a.grad)
s = out.detach()
assert torch.allclose(a.grad, s * (1 - s)), "backward() gives the correct gradient s * (1 - s)"
# sphinx_gallery_start_ignore
assert bytes_apart(scaled, out), "out-of-place gives new storage"
assert bytes_apart(copy, out), "the copy has its own storage"
assert out._version == 0 and not torch.equal(out, copy), "out is unedited (version 0) and unlike the zeroed copy"
# sphinx_gallery_end_ignore
