"""
.. _questions-module-to:

“张量怎么还在 CPU 上”：``module.to()`` 与 ``tensor.to()``
=========================================================

.. admonition:: 答案
   :class: answer

   ``model.to(...)`` 直接改动模型本身，并返回这个模型；``x.to(...)`` 返回转换后的张量，``x``
   本身保持原样。把 ``x.to(...)`` 的结果赋回给 ``x``：

   .. code-block:: python

      model.to(torch.float64)
      x = x.to(torch.float64)

``model.to(...)`` 不赋值也能生效，于是 ``x.to(...)`` 看上去也该如此，结果下一次前向传播就报错，报错的措辞取决于模型里的层。对本页的 ``nn.Linear``，报的是 ``RuntimeError: mat1 and mat2 must have the same dtype, but got Float and Double``；模型在 ``meta`` 上时，报的则是 ``RuntimeError: Tensor on device meta is not on the expected device cpu!`` 这条错误；带默认偏置的 ``nn.Conv2d`` 报的是 ``RuntimeError: Input type (float) and bias type (double) should be the same``。本页分别用改变 dtype 和 ``meta`` 设备（任何构建的 torch 都自带的第二种设备，在这里扮演 GPU；GPU 本身的情况见下面的 GPU 框）复现这个错误，讲清楚
``tensor.to()`` 在什么情况下原样返回张量本身、``module.to()`` 保留了什么，再看
``.half()``、``.float()`` 和 ``.double()``：它们处理复数参数的方式与 ``module.to()`` 不同。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。随机种子固定了随机的权重和输入，所以下面的数字每次运行都一样。

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


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
x = torch.randn(4, 2)

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
# ``model.to(torch.float64)`` 转换了模型。``x.to(torch.float64)`` 没有赋值，它造出的 float64
# 副本随即被丢弃：``x`` 仍是 float32，前向传播拒绝把两者相乘。
model.to(torch.float64)
x.to(torch.float64)
print("model.weight.dtype:", model.weight.dtype)
print("x.dtype:", x.dtype)
try:
    model(x)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a float64 model must refuse a float32 input")
# sphinx_gallery_start_ignore
assert message == "mat1 and mat2 must have the same dtype, but got Float and Double", (
    "the error is torch's 'mat1 and mat2 must have the same dtype, but got Float and Double'")
assert model.weight.dtype == torch.float64 and x.dtype == torch.float32, "the model converted, x not"


def forward_error(module, inputs):
    """The message of the RuntimeError that ``module``'s forward pass raises on ``inputs``."""
    try:
        module(inputs)
    except RuntimeError as e:
        return str(e)
    raise AssertionError("a float64 module must refuse a float32 input")


assert {forward_error(torch.nn.Conv2d(1, 1, 1).double(), image) for image in (
    torch.ones(1, 1, 2, 2), torch.ones(1, 2, 2))} == {"Input type (float) and bias type (double) should be the same"}, (
    "a float64 nn.Conv2d with its default bias says 'Input type (float) and bias type (double) should be the same'")
# sphinx_gallery_end_ignore

# %%
# 换成设备也一样。``meta`` 张量只有形状和 dtype，没有数值，所以在任何机器上都能运行：这里由
# ``meta`` 扮演 GPU。模型搬过去了，``x`` 还留在 CPU 上。
model.to("meta")
x.to("meta")
print("model.weight.device:", model.weight.device)
print("x.device:", x.device)
try:
    model(x)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a model on meta must refuse an input on the CPU")
# sphinx_gallery_start_ignore
assert message == "Tensor on device meta is not on the expected device cpu!", (
    "the error is torch's 'Tensor on device meta is not on the expected device cpu!'")
assert model.weight.is_meta and x.device.type == "cpu", "the model moved, x stayed on the CPU"
# sphinx_gallery_end_ignore

# %%
# ``module.to()`` 改动模块本身并返回它
# ------------------------------------
#
# ``model.to(...)`` 返回的就是调用它的那个模型，所以 ``model = model.to(...)`` 和
# ``model.to(...)`` 效果相同。在默认的 ``torch.__future__`` 设置下，改变 dtype 时，参数仍是原来那些 ``Parameter`` 对象，只是背后换了新内存：调用之前创建的优化器，手里拿的仍是模型的参数。不过优化器的状态不会跟着转换：要在优化器第一次调用 ``step()`` 之前转换模型，而且要在创建 ``Adagrad`` 之前转换，因为它在创建时就建好了状态（见下面的训练循环）。
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
weight, memory = model.weight, model.weight.detach()
returned = model.to(torch.float64)
print("returned is model:", returned is model)
print("model.weight is weight:", model.weight is weight)
print("same storage:", same_storage(model.weight, memory))
print("optimizer holds model.weight:", optimizer.param_groups[0]["params"][0] is model.weight)
assert returned is model and model.weight is weight, "to(dtype) returns the model and keeps its Parameters"
# sphinx_gallery_start_ignore
assert weight.dtype == torch.float64 and bytes_apart(weight, memory), (
    "to(float64) gave the Parameter new float64 memory")
assert optimizer.param_groups[0]["params"][0] is model.weight, "the optimizer holds the converted Parameter"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：model.to(torch.float64) 之后，名字 model.weight、weight 和优化器的 params[0] 指向存储 S1 上的同一个张量对象；调用之前取得的 memory 是另一个张量对象，仍在旧的存储 S2 上。
#
#    ``model.to(torch.float64)`` 之后：``model.weight``、调用之前取得的名字 ``weight`` 和优化器的 ``params[0]`` 是同一个 ``Parameter`` 对象，在新的存储 ``S1`` 上。调用之前从权重取得的 ``memory`` 仍指向旧的存储 ``S2``。

held = {"model.weight": model.weight, "weight": weight, "optimizer's params[0]": optimizer.param_groups[0]["params"][0]}
draw_memory("model.to(torch.float64)", **held, memory=memory)
# sphinx_gallery_start_ignore
assert all(t is model.weight for t in held.values()), "one Parameter object under three names"
assert bytes_apart(model.weight, memory), "the converted weight is on new memory"
# sphinx_gallery_end_ignore

# %%
# 搬到 ``meta`` 上就不一样了：在同样的默认设置下，模型换上了新的 ``Parameter`` 对象，旧的留在 CPU 上。搬动之前创建的优化器拿着的是旧参数；优化器要在搬动之后再创建。
weight = model.weight
returned = model.to("meta")
print("returned is model:", returned is model)
print("model.weight is weight:", model.weight is weight)
print("weight.device:", weight.device, " model.weight.device:", model.weight.device)
assert returned is model and model.weight is not weight, "to('meta') returns the model with new Parameters"
# sphinx_gallery_start_ignore
assert isinstance(model.weight, torch.nn.Parameter) and model.weight.is_meta and weight.device.type == "cpu", (
    "model.weight is a Parameter on meta, and the old weight stays on the CPU")
# sphinx_gallery_end_ignore

# %%
# ``tensor.to()`` 返回新张量，或者张量本身
# ----------------------------------------
#
# ``x.to(...)`` 从不改动 ``x``。dtype 或设备变了，或者用 ``copy=True`` 要求复制时，它返回新张量；``memory_format`` 要的布局不是 torch 从 ``x`` 的步长读出的那一种时，也返回新张量；torch 读出的布局，不一定与 ``is_contiguous()`` 说的一致（见下文）。要求的 dtype 和设备正是 ``x`` 现有的（在 CPU 和 ``meta`` 上，设备的写法也相同：对 ``"cpu"`` 上的张量，``x.to("cpu:0")`` 会复制；对 ``"meta"`` 上的张量，``x.to("meta:0")`` 会给出新张量；GPU 的情况见下面的 GPU 框），又没有提 ``copy`` 或 ``memory_format``，它就返回 ``x`` 本身，同一个对象。稀疏张量、嵌套张量、量化张量和 mkldnn 张量在 dtype、设备和 ``copy`` 上遵循同样的规则，``"cpu:0"`` 和 ``"meta:0"`` 也不例外，只是有些复制它们的布局不允许。不带 ``memory_format`` 或带 ``torch.preserve_format`` 时，任何改变 dtype 的调用，无论是 ``to()``，还是 ``.half()``、``.double()``、``.long()`` 这类以 dtype 命名的方法，在 mkldnn 张量（``to_mkldnn()``）上都抛出 ``NotImplementedError``，在量化张量上都抛出 ``RuntimeError``，``to(torch.float32)`` 和 ``.float()`` 也不例外。带 ``memory_format=torch.contiguous_format`` 时，改变 dtype 在 mkldnn 张量和稀疏张量上抛出 ``RuntimeError``，在量化张量上则不报错，返回一个仍是原 dtype 的新张量。对 strided 布局的嵌套张量（``torch.nested.nested_tensor`` 的默认布局），同样的调用改成 ``torch.qint8``、``torch.qint32`` 或 ``torch.quint8`` 时既不返回也不报错：进程因段错误终止，``try`` 捕获不到。:fact:`dtype-change-by-layout`\ 对 mkldnn 张量，``to("cpu:0")`` 和 ``copy=True`` 也会抛出 ``NotImplementedError``；对量化张量、``torch.strided`` 布局的嵌套张量和 mkldnn 张量，``to("meta")`` 会抛出 ``NotImplementedError``。``to(memory_format=torch.contiguous_format)`` 对有些不连续的张量原样返回（如转置，以及内存不按 ``channels_last`` 或 ``channels_last_3d`` 布局排列的维度重排，比如四维张量的 ``permute(0, 1, 3, 2)``、五维张量的 ``permute(0, 2, 1, 3, 4)``），对另一些则会复制（如切片后 torch 仍从步长读出 ``channels_last`` 的 ``channels_last`` 张量，比如按 ``channels_last`` 排列的 ``ones(2, 3, 4, 6)`` 切成 ``[..., ::2]``，而同样切 ``ones(2, 3, 4, 5)`` 得到的张量会原样返回；以及内存按 ``channels_last`` 或 ``channels_last_3d`` 布局排列的维度重排，比如四维张量的 ``permute(0, 3, 1, 2)``、五维张量的 ``permute(0, 4, 1, 2, 3)``），连只有一个通道、``channels_last`` 步长与默认步长不同的批次也会复制，尽管它是连续的；高或宽大于 1 时，``to(memory_format=torch.channels_last)`` 和 ``torch.empty(..., memory_format=torch.channels_last)`` 造出的就是这样的批次。高和宽都是 1，即形状为 ``(N, 1, 1, 1)`` 时，两种布局的步长相同，torch 从中读出的是默认布局：无论这样的批次是怎么得到的，``to(memory_format=torch.contiguous_format)`` 都返回它本身，``to(memory_format=torch.channels_last)`` 则每次都复制它，连它刚复制出来的那份也不例外。决定是否复制的是步长，不是 ``is_contiguous()``：按默认布局创建的单通道批次，``is_contiguous()`` 和 ``is_contiguous(memory_format=torch.channels_last)`` 同样为 ``True``，可是 ``contiguous(memory_format=torch.channels_last)`` 原样返回它，步长不变，``to(memory_format=torch.contiguous_format)`` 返回它本身，``to(memory_format=torch.channels_last)`` 则会复制它。对 ``torch.strided`` 布局的张量，``contiguous()`` 只复制不连续的张量，其他张量都返回它本身，步长按 ``channels_last`` 排列的单通道批次也一样，步长不变：要默认布局的副本，就调用 ``clone(memory_format=torch.contiguous_format)``。下面在各类张量上逐一检查：需要梯度的叶子张量（leaf tensor）、运算的结果、
# ``Parameter``、视图（view）、普通张量和推理张量（inference tensor）。
leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.inference_mode():
    inference = torch.tensor([1.0, 2.0, 3.0])
kinds = {
    "leaf": leaf,
    "non-leaf": leaf * 2,
    "Parameter": torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0])),
    "view": leaf[1:],
    "plain": torch.tensor([1.0, 2.0, 3.0]),
    "inference": inference,
}
for kind, t in kinds.items():
    same = {"to(t.dtype)": t.to(t.dtype), 'to("cpu")': t.to("cpu"), "to(float64)": t.to(torch.float64),
            'to("meta")': t.to("meta"), "to(t.dtype, copy=True)": t.to(t.dtype, copy=True)}  # fmt: skip
    print(f"{kind:>9}: " + ", ".join(f"{call} is t: {result is t}" for call, result in same.items()))
    assert [call for call, result in same.items() if result is t] == ["to(t.dtype)", 'to("cpu")'], (
        f"{kind}: only to(t.dtype) and to('cpu') return t itself"
    )
# sphinx_gallery_start_ignore
assert all(t.dtype == torch.float32 and t.device.type == "cpu" for t in kinds.values()), "to() left each t as it was"
image = torch.ones(1, 2, 2, 2)
assert image.to(torch.float32) is image, "to() of a 4-D tensor's own dtype returns it"
assert image.to(torch.float32, memory_format=torch.channels_last) is not image, (
    "channels_last copies a contiguous 4-D tensor")
assert image.to(torch.float32, memory_format=torch.contiguous_format) is image, "the layout it has: no copy"
channels_last_image = image.contiguous(memory_format=torch.channels_last)
assert channels_last_image.to(torch.float32, memory_format=torch.channels_last) is channels_last_image, (
    "to() in the memory_format a channels_last tensor has returns it")
assert channels_last_image.to(memory_format=torch.contiguous_format) is not channels_last_image, (
    "contiguous_format copies a channels_last tensor")
permuted_image = torch.ones(1, 2, 3, 4).permute(0, 1, 3, 2)
assert permuted_image.to(memory_format=torch.channels_last) is not permuted_image, "channels_last copies a permuted one"
volume = torch.ones(1, 2, 2, 2, 2)
assert volume.to(memory_format=torch.channels_last_3d) is not volume, "channels_last_3d copies a 5-D tensor"
transposed = torch.arange(6.0).reshape(2, 3).t()
permuted_volume_as_is = torch.ones(2, 3, 4, 5, 6).permute(0, 2, 1, 3, 4)
assert not permuted_image.is_contiguous(memory_format=torch.channels_last), (
    "permute(0, 1, 3, 2) of a 4-D tensor is not laid out as channels_last")
assert not permuted_volume_as_is.is_contiguous(memory_format=torch.channels_last_3d), (
    "permute(0, 2, 1, 3, 4) of a 5-D tensor is not laid out as channels_last_3d")
returned_as_is = {"a transpose": transposed, "permute(0, 1, 3, 2) of a 4-D tensor": permuted_image,
                  "permute(0, 2, 1, 3, 4) of a 5-D tensor": permuted_volume_as_is}
for case, odd in returned_as_is.items():
    kept_as_is = odd.to(torch.float32, memory_format=torch.contiguous_format)
    assert kept_as_is is odd and not kept_as_is.is_contiguous(), f"{case}: contiguous_format returns it as it is"
    assert odd.to(memory_format=torch.contiguous_format) is odd, f"{case}: without a dtype too"
    assert odd.contiguous() is not odd and odd.contiguous().is_contiguous(), f"{case}: contiguous() copies it"
assert all(t.to(memory_format=torch.contiguous_format) is t for t in kinds.values()), (
    "contiguous_format returns each of the six kinds of tensor itself")
sliced_channels_last = torch.ones(2, 3, 4, 6).contiguous(memory_format=torch.channels_last)[..., ::2]
permuted_nhwc = torch.ones(2, 4, 5, 3).permute(0, 3, 1, 2)
permuted_volume = torch.ones(2, 4, 5, 6, 3).permute(0, 4, 1, 2, 3)
assert permuted_nhwc.is_contiguous(memory_format=torch.channels_last), (
    "permute(0, 3, 1, 2) of a 4-D tensor is laid out as channels_last")
assert permuted_volume.is_contiguous(memory_format=torch.channels_last_3d), (
    "permute(0, 4, 1, 2, 3) of a 5-D tensor is laid out as channels_last_3d")
read_as_channels_last = {"a sliced channels_last tensor": sliced_channels_last,
                         "permute(0, 3, 1, 2) of a 4-D tensor": permuted_nhwc,
                         "permute(0, 4, 1, 2, 3) of a 5-D tensor": permuted_volume,
                         "a channels_last_3d tensor": volume.contiguous(memory_format=torch.channels_last_3d)}
for case, odd in read_as_channels_last.items():
    assert not odd.is_contiguous(), f"{case}: it is not contiguous"
    assert odd.to(memory_format=torch.contiguous_format) is not odd, f"{case}: contiguous_format copies it"
odd_width_slice = torch.ones(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)[..., ::2]
assert not odd_width_slice.is_contiguous() and not odd_width_slice.is_contiguous(memory_format=torch.channels_last), (
    "[..., ::2] of a channels_last ones(2, 3, 4, 5) is contiguous in neither layout")
assert odd_width_slice.to(memory_format=torch.contiguous_format) is odd_width_slice, (
    "contiguous_format returns [..., ::2] of a channels_last ones(2, 3, 4, 5) as it is")
one_channel = torch.zeros(8, 1, 4, 4)
one_channel_lasts = {"to(channels_last)": one_channel.to(memory_format=torch.channels_last),
                     "torch.empty(channels_last)": torch.empty(8, 1, 4, 4, memory_format=torch.channels_last)}
for route, one_channel_last in one_channel_lasts.items():
    assert one_channel_last.stride() == (16, 1, 4, 1), f"{route}: one channel, channels_last strides"
    assert one_channel_last.is_contiguous(), f"{route}: a channels_last batch of one channel is contiguous"
    assert one_channel_last.is_contiguous(memory_format=torch.channels_last), f"{route}: and channels_last"
    assert one_channel_last.to(memory_format=torch.contiguous_format) is not one_channel_last, (
        f"{route}: contiguous_format copies a channels_last batch of one channel")
    assert one_channel_last.contiguous() is one_channel_last, f"{route}: contiguous() returns it itself"
    assert one_channel_last.contiguous().stride() == (16, 1, 4, 1), f"{route}: contiguous() keeps its strides"
    default_copy = one_channel_last.clone(memory_format=torch.contiguous_format)
    assert bytes_apart(default_copy, one_channel_last) and default_copy.stride() == (16, 16, 4, 1), (
        f"{route}: clone(memory_format=torch.contiguous_format) copies it into the default layout")
    assert torch.equal(default_copy.view(torch.int32), one_channel_last.view(torch.int32)), (
        f"{route}: the copy holds the same values")  # compared bit for bit: torch.empty may hold NaN
assert all(t.contiguous() is t for t in kinds.values()), "contiguous() returns each of the six contiguous kinds itself"
assert all(bytes_apart(t.clone(memory_format=torch.contiguous_format), t) for t in kinds.values()), (
    "clone(memory_format=torch.contiguous_format) copies each of the six kinds")
assert all(odd.contiguous() is not odd and odd.contiguous().is_contiguous() for odd in read_as_channels_last.values()), (
    "contiguous() copies each tensor read as channels_last that is not contiguous")
assert one_channel.is_contiguous() and one_channel.is_contiguous(memory_format=torch.channels_last), (
    "one channel in the default layout: contiguous, and channels_last by is_contiguous")
assert one_channel.to(memory_format=torch.channels_last) is not one_channel, "to(channels_last) still copies it"
assert one_channel.contiguous(memory_format=torch.channels_last) is one_channel, (
    "contiguous(channels_last) returns a one-channel batch in the default layout as it is")
assert one_channel.contiguous(memory_format=torch.channels_last).stride() == (16, 16, 4, 1), "strides and all"
assert one_channel.to(memory_format=torch.contiguous_format) is one_channel, (
    "a one-channel batch with default strides: contiguous_format returns it itself")
for shape_ in ((8, 1, 1, 4), (8, 1, 4, 1), (2, 1, 3, 5), (8, 1, 1, 1), (1, 1, 1, 1)):
    flat_ = shape_[2] == shape_[3] == 1  # height and width 1: the two layouts give the same strides
    default_ = torch.zeros(shape_)
    assert default_.contiguous(memory_format=torch.channels_last) is default_ and default_.to(
        memory_format=torch.contiguous_format) is default_ and bytes_apart(
        default_.to(memory_format=torch.channels_last), default_), (
        f"one channel, shape {shape_}, default layout: contiguous(channels_last) and contiguous_format return it, "
        "to(channels_last) copies it")
    for made_ in (default_.to(memory_format=torch.channels_last), torch.empty(shape_, memory_format=torch.channels_last)):
        assert made_.is_contiguous() and (made_.stride() == default_.stride()) == flat_, (
            f"one channel, shape {shape_}: channels_last strides are the default ones exactly when height and width are 1")
        assert (made_.to(memory_format=torch.contiguous_format) is made_) == flat_, (
            f"one channel, shape {shape_}: contiguous_format returns a channels_last batch itself exactly when height "
            "and width are 1, and copies it otherwise")
        assert (made_.to(memory_format=torch.channels_last) is made_) != flat_, (
            f"one channel, shape {shape_}: to(channels_last) copies a batch made channels_last exactly when height and "
            "width are 1")
assert all(t.to("cpu:0") is not t for t in kinds.values()), 'to("cpu:0") of a tensor on "cpu" is a new tensor'
assert all(bytes_apart(t.to("cpu:0"), t) for t in kinds.values()), 'to("cpu:0") copies the memory'
assert torch.device("cpu") != torch.device("cpu:0"), 'to torch, "cpu:0" is another device than "cpu"'
meta_kinds_ = {kind_: t_.to("meta") for kind_, t_ in kinds.items()}
assert all(t_.to("meta") is t_ and t_.to(torch.device("meta")) is t_ and t_.to(t_.dtype) is t_
           for t_ in meta_kinds_.values()), 'to("meta") and to(t.dtype) return each of the six kinds on meta itself'
assert all(t_.to("meta:0") is not t_ and t_.to("meta", copy=True) is not t_ and t_.to(torch.float64) is not t_
           for t_ in meta_kinds_.values()), 'to("meta:0"), copy=True and float64 give each kind on meta a new tensor'
dtyped_ = [torch.ones(3).to(dtype_).to(device_) for dtype_ in (torch.int64, torch.bool, torch.complex64,
                                                                  torch.float8_e4m3fn) for device_ in ("cpu", "meta")]
assert all(t_.to(t_.dtype) is t_ and t_.to(t_.device) is t_ and t_.to(t_.device.type + ":0") is not t_
           for t_ in dtyped_), 'integer, bool, complex and float8 tensors on cpu and meta: same rules, ":0" copies'
with torch.no_grad():
    assert all(t_.to(t_.device) is t_ and t_.to(t_.device.type + ":0") is not t_
               for t_ in list(kinds.values()) + list(meta_kinds_.values())), "under no_grad() too"


def outcome_(make_, u_):
    try:
        return make_(u_), None
    except (NotImplementedError, RuntimeError) as refusal_:
        return None, type(refusal_)


with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # torch 会对压缩稀疏布局、嵌套张量和量化张量发出警告
    grid_ = torch.arange(16.0).reshape(4, 4)
    layouts_ = {"sparse COO": grid_.to_sparse(), "sparse CSR": grid_.to_sparse_csr(),
                "sparse CSC": grid_.to_sparse_csc(), "sparse BSR": grid_.to_sparse_bsr((2, 2)),
                "sparse BSC": grid_.to_sparse_bsc((2, 2)),
                "jagged nested": torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged),
                "strided nested": torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
                "quantized": torch.quantize_per_tensor(torch.ones(3), 0.1, 0, torch.quint8),
                "per-channel quantized": torch.quantize_per_channel(
                    torch.ones(2, 3), torch.tensor([0.1, 0.2]), torch.tensor([0, 0]), 0, torch.qint8),
                "mkldnn": grid_.to_mkldnn()}
    for kind_, t_ in layouts_.items():
        assert t_.to(t_.dtype) is t_ and t_.to("cpu") is t_ and t_.to(torch.device("cpu")) is t_, (
            f"{kind_}: to() its own dtype and device returns it")
        copy_calls_ = {'to("cpu:0")': lambda u_: u_.to("cpu:0"), "copy=True": lambda u_: u_.to("cpu", copy=True),
                       "float64": lambda u_: u_.to(torch.float64), "float()": lambda u_: u_.float(),
                       "half()": lambda u_: u_.half(), "double()": lambda u_: u_.double(),
                       'to("meta")': lambda u_: u_.to("meta")}
        quantized_refusals_ = {"float64": RuntimeError, "float()": RuntimeError, "half()": RuntimeError,
                               "double()": RuntimeError, 'to("meta")': NotImplementedError}
        refused_ = {"mkldnn": {'to("cpu:0")': NotImplementedError, "copy=True": NotImplementedError,
                               "float64": NotImplementedError, "half()": NotImplementedError,
                               "double()": NotImplementedError, 'to("meta")': NotImplementedError},
                    "quantized": quantized_refusals_, "per-channel quantized": quantized_refusals_,
                    "strided nested": {'to("meta")': NotImplementedError}}
        for call_, make_ in copy_calls_.items():
            if call_ == "float()" and t_.dtype == torch.float32:
                continue
            made_, error_ = outcome_(make_, t_)
            assert error_ is refused_.get(kind_, {}).get(call_), f"{kind_}: {call_} raises only the error the page names"
            assert error_ is not None or made_ is not t_, f"{kind_}: {call_} gives a new tensor"
            if call_ == 'to("meta")' and error_ is None:
                assert made_.to("meta") is made_ and made_.to(made_.dtype) is made_ and (
                    made_.to("meta:0") is not made_), f'{kind_} on meta: to("meta") returns it, "meta:0" copies'
# sphinx_gallery_end_ignore

# %%
# ``.half()``、``.float()`` 和 ``.double()``
# ------------------------------------------
#
# 用在模块上，它们和指定了 dtype 的 ``module.to()`` 一样转换模块并返回它，但只转换浮点参数和缓冲区：与 ``module.to()`` 不同，复数参数仍是复数。用在张量上，返回新张量，张量已经是那个 dtype 时（对 float32 张量调用 ``.float()``）返回张量本身。
model = torch.nn.Linear(2, 1)
calls = {"half": model.half(), "float": model.float(), "double": model.double()}
print("module:", {name: result is model for name, result in calls.items()})
t = torch.tensor([1.0, 2.0, 3.0])
calls = {"half": t.half(), "float": t.float(), "double": t.double()}
print("tensor:", {name: result is t for name, result in calls.items()})
assert [name for name, result in calls.items() if result is t] == ["float"], "only float() of float32 is t"
complex_model = torch.nn.Linear(1, 1, dtype=torch.complex64)
print("complex Linear after double():", complex_model.double().weight.dtype)
assert complex_model.weight.dtype == torch.complex64, "double() leaves complex parameters complex"
# sphinx_gallery_start_ignore
for module_call, target_dtype in ((torch.nn.Module.half, torch.float16), (torch.nn.Module.float, torch.float32),
                       (torch.nn.Module.double, torch.float64)):
    converted_dict = module_call(torch.nn.ModuleDict({"c": torch.nn.Linear(1, 1, dtype=torch.complex64),
                                         "r": torch.nn.Linear(1, 1, dtype=torch.bfloat16),
                                         "n": torch.nn.BatchNorm1d(1, dtype=torch.complex64)}))
    assert all(p.dtype == torch.complex64 for p in converted_dict["c"].parameters()), "complex parameters stay complex"
    assert converted_dict["n"].running_mean.dtype == converted_dict["n"].running_var.dtype == torch.complex64, (
        f"{module_call.__name__}() leaves complex BatchNorm buffers complex64")
    assert converted_dict["n"].num_batches_tracked.dtype == torch.int64, "an integer buffer keeps its dtype"
    assert all(p.dtype == target_dtype for p in converted_dict["r"].parameters()), "floating-point parameters are converted"
assert all(m is model for m in (model.half(), model.float(), model.double())), "a module's calls return it"
assert t.dtype == torch.float32, "the tensor calls left t as it was"
narrow, wide = torch.ones(2, dtype=torch.float16), torch.ones(2, dtype=torch.float64)
assert narrow.half() is narrow and wide.double() is wide, "half() of float16 and double() of float64 return the tensor"
for kind_name, kind_tensor in kinds.items():
    layouts_kept = [kept for layout in (torch.preserve_format, torch.contiguous_format)
                    for kept in (kind_tensor.to(memory_format=layout), kind_tensor.float(memory_format=layout),
                                 kind_tensor.to(kind_tensor.dtype, memory_format=layout),
                                 kind_tensor.to("cpu", memory_format=layout))]
    assert all(kept is kind_tensor for kept in layouts_kept), (
        f"{kind_name}: to() and float() asking for preserve_format or contiguous_format return it")
assert all(narrow.half(memory_format=layout) is narrow and wide.double(memory_format=layout) is wide
           for layout in (torch.preserve_format, torch.contiguous_format)), (
    "half() and double() asking for preserve_format or contiguous_format return the tensor")
assert channels_last_image.float(memory_format=torch.channels_last) is channels_last_image, (
    "float() asking for the channels_last layout a channels_last tensor has returns it")
assert all(odd.float(memory_format=torch.preserve_format) is odd for odd in (channels_last_image, transposed)), (
    "float() asking for preserve_format returns a channels_last tensor and a transpose as they are")
assert image.float(memory_format=torch.channels_last) is not image, "float() asking for another layout copies"
# sphinx_gallery_end_ignore

# %%
# 在训练循环里检验解决办法
# ------------------------
#
# 模型转换时赋不赋值都行，张量的 ``to()`` 则每一个都要赋值。这个 SGD 优化器是在转换之前创建的，但那时还没有调用过 ``step()``，而 SGD 在第一次调用 ``step()`` 之前不建任何状态，所以照样能训练模型：五步之内损失一路下降。
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# sphinx_gallery_start_ignore
assert not optimizer.state, "SGD makes no state before its first step"
# sphinx_gallery_end_ignore
x, y = torch.randn(8, 2), torch.randn(8, 1)
model.to(torch.float64)
x = x.to(torch.float64)
y = y.to(torch.float64)
losses = []
for _ in range(5):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("x.dtype:", x.dtype, " model.weight.dtype:", model.weight.dtype)
print("losses:", [round(v, 4) for v in losses])
assert losses == sorted(set(losses), reverse=True), "the optimizer made before to() trains the model"
# sphinx_gallery_start_ignore
assert model.weight.dtype == x.dtype == torch.float64 and model.weight.grad.dtype == torch.float64, (
    "the weight, x and the weight's gradient are float64")
graded = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2))])
(graded[0] * 2).sum().backward()
assert graded.to(torch.float64)[0].grad.dtype == torch.float64, "module.to() converts .grad too"
# sphinx_gallery_end_ignore

# %%
# 要在优化器第一次调用 ``step()`` 之前转换模型，或者转换之后再创建优化器。``Adagrad`` 在创建时就建好了状态：要在转换之后再创建它，因为在它第一次调用 ``step()`` 之前转换，它的状态仍会悄悄留在 float32。已经调用过 ``step()`` 的优化器，状态还是旧的 dtype：下面 ``Adam`` 先在 float32 下走一步，再转换模型，下一步就报错。（``torch.optim`` 里其他的优化器类，在默认、非 fused 的设置下，凡是保存状态的也都会报错，只有 ``RMSprop``、``Adagrad``、``Adadelta``、``ASGD``、``Rprop`` 和 ``SparseAdam`` 例外，它们的状态悄悄留在 float32，``LBFGS`` 也是例外；设了动量的 SGD 也不报错，它的动量状态悄悄留在 float32，而默认设置下 SGD 不保存状态。``LBFGS`` 报不报错由数据决定：某一步开始时梯度已在它的 ``tolerance_grad`` 之内，这一步就在读取状态之前返回，状态悄悄留在 float32；其他的步都会读取状态并报错。本页在固定的数值上检查了这两种情况。）补救的办法对 ``Adam`` 和上面的每个类都适用，设了动量的 SGD 也在内：让优化器重新加载自己的状态，``optimizer.load_state_dict(optimizer.state_dict())`` 会把状态张量（``step`` 计数除外）转换成浮点参数的新 dtype，之后这一步就能执行（本页在隐藏的检查里逐个类验证了这一点）。
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
torch.nn.functional.mse_loss(model(x.float()), y.float()).backward()
optimizer.step()
model.to(torch.float64)
optimizer.zero_grad()
torch.nn.functional.mse_loss(model(x), y).backward()
try:
    optimizer.step()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("Adam that stepped in float32 must refuse float64 parameters")
optimizer.load_state_dict(optimizer.state_dict())
optimizer.step()
print("exp_avg dtype after reloading the state:", optimizer.state[model.weight]["exp_avg"].dtype)
assert optimizer.state[model.weight]["exp_avg"].dtype == torch.float64, "reloading casts the state; the step runs"
# sphinx_gallery_start_ignore
assert all(state["step"].dtype == torch.float32 and state["exp_avg_sq"].dtype == torch.float64
           for state in optimizer.state.values()), "reloading casts every state tensor but step"


def state_after_float64(optimizer_class, rows=((1.0, 1.0),), targets=((0.0,),), gradients=None, reload=False,
                        steps=None, **settings):
    """Step once in float32 from fixed weights (no random draw decides the outcome), convert the module to
    float64 (then, if ``reload``, reload the optimizer's own state), step again: the dtypes of the optimizer's
    state tensors but ``step`` (those in its lists included), or None if the second step raised. The loss is the
    squared error of ``rows`` times the weight against ``targets``; ``gradients`` gets the largest gradient of each
    float64 evaluation, ``steps`` the dtypes of the ``step`` tensors. SparseAdam takes only sparse gradients."""
    sparse = optimizer_class is torch.optim.SparseAdam
    fixed_weights = torch.tensor([[0.5, -0.25], [1.0, 2.0], [0.25, 0.75]])
    layer = torch.nn.Embedding.from_pretrained(fixed_weights, freeze=False, sparse=True) if sparse else torch.nn.Module()
    if not sparse:
        layer.register_parameter("weight", torch.nn.Parameter(fixed_weights[:1].clone()))
    stepper = optimizer_class(layer.parameters(), **settings)

    def closure():  # LBFGS 需要它；其他优化器只调用它一次
        stepper.zero_grad()
        if sparse:
            layer_out = layer(torch.tensor([0, 2]))
        else:
            dtype = layer.weight.dtype
            layer_out = torch.tensor(rows, dtype=dtype) @ layer.weight.T - torch.tensor(targets, dtype=dtype)
        step_loss = layer_out.pow(2).sum()
        step_loss.backward()
        if gradients is not None and layer.weight.dtype == torch.float64:
            gradients.append(layer.weight.grad.abs().max().item())
        return step_loss

    stepper.step(closure)
    layer.to(torch.float64)
    if reload:
        stepper.load_state_dict(stepper.state_dict())
    try:
        stepper.step(closure)
    except RuntimeError as e:
        assert "dtype" in str(e), "the step refuses the float64 parameter because of its dtype"
        return None
    assert layer.weight.dtype == torch.float64, "the step ran on the float64 parameter"
    state_tensors = [(key, value) for state in stepper.state.values() for key, values in state.items()
                     for value in (values if isinstance(values, list) else [values]) if torch.is_tensor(value)]
    if steps is not None:
        steps.extend(value.dtype for key, value in state_tensors if key == "step")
    return {value.dtype for key, value in state_tensors if key != "step"}


import inspect

optimizer_classes = [c for _, c in inspect.getmembers(torch.optim, inspect.isclass)
                     if issubclass(c, torch.optim.Optimizer) and c is not torch.optim.Optimizer]
after_float64 = {c.__name__: state_after_float64(c) for c in optimizer_classes if c is not torch.optim.LBFGS}
assert {name for name, dtypes in after_float64.items() if dtypes is not None} == {
    "SGD", "RMSprop", "Adagrad", "Adadelta", "ASGD", "Rprop", "SparseAdam"}, (
    "after to(float64), of torch.optim's optimizers but LBFGS only SGD, RMSprop, Adagrad, Adadelta, ASGD, Rprop "
    "and SparseAdam step without raising")
tolerance_grad = inspect.signature(torch.optim.LBFGS).parameters["tolerance_grad"].default
at_minimum_gradients, fitting_gradients = [], []
lbfgs_at_minimum = state_after_float64(torch.optim.LBFGS, gradients=at_minimum_gradients)
fitting_data = {"rows": ((0.0, 0.25), (0.5, 0.75), (1.0, 1.25), (1.5, 1.75)),
                "targets": ((1.0,), (-1.0,), (2.0,), (0.5,))}
lbfgs_fitting = state_after_float64(torch.optim.LBFGS, gradients=fitting_gradients, **fitting_data)
assert lbfgs_at_minimum == {torch.float32} and at_minimum_gradients[0] <= tolerance_grad, (
    "LBFGS whose next step finds the gradient within tolerance_grad returns early: no error, its state float32")
assert lbfgs_fitting is None and fitting_gradients[0] > tolerance_grad, (
    "LBFGS whose next step finds a gradient above tolerance_grad reads its float32 state and raises")
assert after_float64["SGD"] == set(), "SGD with default settings keeps no state"
assert all(after_float64[name] == {torch.float32} for name in after_float64 if name != "SGD"
           and after_float64[name] is not None), "the state of the others that do not raise stays float32"
assert state_after_float64(torch.optim.SGD, momentum=0.9) == {torch.float32}, (
    "SGD with momentum does not raise, and its momentum buffer stays float32")
reload_steps, reload_gradients = [], []
after_reload = {c.__name__: state_after_float64(c, reload=True, steps=reload_steps, **(
    dict(fitting_data, gradients=reload_gradients) if c is torch.optim.LBFGS else {})) for c in optimizer_classes}
assert after_reload["SGD"] == set() and all(dtypes == {torch.float64} for name, dtypes in after_reload.items()
                                            if name != "SGD"), (
    "after load_state_dict(state_dict()), every optimizer of torch.optim steps, its state tensors but step float64")
assert state_after_float64(torch.optim.SGD, reload=True, momentum=0.9) == {torch.float64}, (
    "after load_state_dict(state_dict()), SGD with momentum steps, its momentum buffer float64")
assert reload_gradients[0] > tolerance_grad, "the reloaded LBFGS step reads its state"
assert reload_steps and set(reload_steps) == {torch.float32}, "reloading leaves every step tensor float32"
ada_norm = torch.nn.LayerNorm(2)
adagrad = torch.optim.Adagrad(ada_norm.parameters(), lr=0.1)
assert adagrad.state[ada_norm.weight]["sum"].dtype == torch.float32, "Adagrad makes its state when it is made"
ada_norm.to(torch.float64)
ada_norm(torch.tensor([[1.0, 2.0]], dtype=torch.float64)).sum().backward()
adagrad.step()
assert ada_norm.weight.dtype == torch.float64, "the module converted before Adagrad's first step"
assert adagrad.state[ada_norm.weight]["sum"].dtype == torch.float32, "Adagrad made before to(): its state stays float32"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    ``Module.cuda()`` 原地（in-place）搬动模型并返回它；与改变 dtype 时一样（而与搬到 ``meta`` 不同），模型保留原来的 ``Parameter`` 对象。
#    ``Tensor.cuda()`` 返回 GPU 上的副本；张量已经在那块 GPU 上时，返回张量本身（PyTorch 文档：
#    `Module.cuda <https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.cuda>`__、`Tensor.cuda <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.cuda.html>`__）。张量在当前 GPU 上时，``x.to("cuda")`` 也返回张量本身，尽管它的设备带编号（``cuda:0``），而 ``"cuda"`` 不带：与 ``"cpu"`` 不同，``"cuda"`` 代表当前 GPU。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    gpu_model = torch.nn.Linear(2, 1)
    weight, t = gpu_model.weight, torch.ones(3)
    print("gpu_model.cuda() is gpu_model:", gpu_model.cuda() is gpu_model)
    print("gpu_model.weight is weight:", gpu_model.weight is weight, " weight.device:", weight.device)
    on_gpu = t.cuda()
    print("t.cuda() is t:", on_gpu is t, " on_gpu.cuda() is on_gpu:", on_gpu.cuda() is on_gpu)
    print("on_gpu.device:", on_gpu.device, ' on_gpu.to("cuda") is on_gpu:', on_gpu.to("cuda") is on_gpu)
    assert gpu_model.weight is weight and weight.is_cuda, "model.cuda() keeps its Parameter objects"
    assert on_gpu is not t and on_gpu.cuda() is on_gpu, "t.cuda() copies; on the GPU, cuda() returns the tensor itself"
    assert on_gpu.to("cuda") is on_gpu and on_gpu.device != torch.device("cuda"), (
        'to("cuda") returns a tensor on the current GPU itself, though its device carries an index')
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# ``module.to()`` 不管的张量
# --------------------------
#
# 用 ``module.to()`` 改变 dtype 时，转换的是模块（包括各层子模块）的浮点参数（连同它们的 ``.grad``）和缓冲区；复数参数和复数缓冲区也会转换：目标是实数 dtype 时变成实数，丢掉虚部；整数参数和整数缓冲区（比如 ``BatchNorm1d`` 的 ``num_batches_tracked``）保留原来的 dtype。换设备时，每个参数和缓冲区都会搬过去，整数的也一样。作为普通属性存放的张量（``self.scale = torch.ones(2)``），或者放在 Python 列表里的张量，都留在原处：这里调用 ``.to("meta")`` 之后，它们仍在 CPU 上，前向传播就报错。


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 2)
        self.scale = torch.ones(2)
        self.offsets = [torch.zeros(2)]

    def forward(self, x):
        return self.linear(x) * self.scale + self.offsets[0]


scaled = Scaled().to("meta")
print("scaled.linear.weight.device:", scaled.linear.weight.device)
print("scaled.scale.device:", scaled.scale.device, " scaled.offsets[0].device:", scaled.offsets[0].device)
try:
    scaled(torch.ones(1, 2, device="meta"))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a forward pass that mixes meta and CPU tensors must raise")
assert scaled.scale.device.type == "cpu" and scaled.offsets[0].device.type == "cpu", "to() left them on the CPU"
# sphinx_gallery_start_ignore
batch_norm = torch.nn.BatchNorm1d(2).to(torch.float64)
assert batch_norm.running_mean.dtype == torch.float64, "a floating buffer takes the new dtype"
assert Scaled().to(torch.float64).linear.weight.dtype == torch.float64, "a submodule's parameters take the new dtype"
assert batch_norm.num_batches_tracked.dtype == torch.int64, "an integer buffer keeps its dtype"
assert all(b.is_meta for b in batch_norm.to("meta").buffers()), "every buffer moves device, the integer one too"
mixed = torch.nn.Module()
mixed.register_parameter("z", torch.nn.Parameter(torch.tensor([1.0 + 2.0j])))
mixed.register_parameter("n", torch.nn.Parameter(torch.ones(1, dtype=torch.int64), requires_grad=False))
mixed.register_buffer("zb", torch.tensor([3.0 + 4.0j]))
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    mixed.to(torch.float64)
assert mixed.z.dtype == torch.float64 and mixed.z.item() == 1.0, "a complex parameter becomes real, without its imaginary part"
assert mixed.n.dtype == torch.int64, "an integer parameter keeps its dtype"
assert mixed.zb.dtype == torch.float64 and mixed.zb.item() == 3.0, "a complex buffer becomes real, without its imaginary part"
assert all(t.is_meta for t in mixed.to("meta").parameters()), "a device move moves every parameter, the integer one too"
# sphinx_gallery_end_ignore

# %%
# 解决办法是把这类张量注册为缓冲区：``module.to()`` 搬动缓冲区和搬动参数一样；``persistent=False`` 则让它不进入 ``state_dict()``。


class Buffered(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 2)
        self.register_buffer("scale", torch.ones(2))
        self.register_buffer("offset", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.linear(x) * self.scale + self.offset


buffered = Buffered().to("meta")
out = buffered(torch.ones(1, 2, device="meta"))
print("buffered.scale.device:", buffered.scale.device, " buffered.offset.device:", buffered.offset.device)
print("out.device:", out.device, " keys of state_dict():", list(buffered.state_dict()))
assert buffered.scale.is_meta and buffered.offset.is_meta and out.is_meta, "to() moves buffers, persistent or not"
assert "scale" in buffered.state_dict() and "offset" not in buffered.state_dict(), "persistent=False keeps it out"

# %%
# 小结
# ----
#
# ``module.to()``、``.half()``、``.float()`` 和 ``.double()`` 改动模块并返回它，不接收返回值也无妨。同样的调用用在张量上，什么都不改：它们返回新张量；dtype 和设备都已相符（在 CPU 和 ``meta`` 上，设备的写法也相同；在 GPU 上，``"cuda"`` 与当前 GPU 上的张量相符），没有要求 ``copy=True``，``memory_format`` 也没有要求，或者要求的正是 ``torch.preserve_format`` 或 torch 从张量步长读出的那种布局时，返回张量本身（有些张量拒绝其中一些复制，mkldnn 张量、量化张量、稀疏张量和 ``torch.strided`` 布局的嵌套张量都在其列；带 ``memory_format=torch.contiguous_format`` 时，量化张量返回的新张量仍是原 dtype，strided 布局的嵌套张量改成 ``torch.qint8``、``torch.qint32`` 或 ``torch.quint8`` 则会让进程终止，见上文）；只有返回的那个张量才是新的 dtype 或设备。:fact:`dtype-change-by-layout`\ 要写成
# ``x = x.to(...)``。要在优化器第一次调用 ``step()`` 之前转换模型，也要在创建 ``Adagrad`` 之前转换（它在创建时就建好了状态）；模型搬到 ``meta`` 之后要重新创建优化器：在默认的 ``torch.__future__`` 设置下，这次搬动给模型换上了新的
# ``Parameter`` 对象。作为普通属性或放在列表里的张量不随模块搬动：要把它注册为缓冲区。
