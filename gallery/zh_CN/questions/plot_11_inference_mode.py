"""
.. _questions-inference-mode:

``torch.inference_mode()``、``torch.no_grad()`` 还是 ``detach()``？
===================================================================

.. admonition:: 答案
   :class: answer

   在 ``torch.inference_mode()`` 下创建、占用新内存的张量是推理张量，离开推理模式后，不能再保存给反向传播使用。在推理模式之外对它调用 ``clone()``：

   .. code-block:: python

      y = make_inference(x).clone()
      (x * y).sum().backward()

在 ``torch.inference_mode()`` 下创建、占用新内存的张量是推理张量（inference tensor）。在该模式里建在已有内存上的张量也是推理张量，例如用 ``torch.from_numpy``、``torch.as_tensor`` 或 ``torch.frombuffer`` 建在 NumPy 数组上的张量，或者对普通张量 ``a`` 取的 ``torch.from_dlpack(a)`` 或 ``a.view(dtype)``，无论换成别的 dtype 还是保持原来的 dtype；在推理模式中用索引、``view(shape)``、``t()``、``expand``、``real``、``torch.view_as_real`` 以及下文列出的其他视图（view）操作对普通张量取的视图，以及它的 ``detach()`` 和 ``.data``，则不是。离开这个模式后，推理张量会拒绝一些用法：“Inference
tensors cannot be saved for backward”“Inplace update to inference tensor outside InferenceMode is
not allowed”“Setting requires_grad=True on inference tensor outside InferenceMode is not
allowed”。本页用三种方式算出同样的 ``x * 2``，对三个结果逐一尝试这些用法，再用 ``clone()``
修好推理张量。这一设计记录在 `pytorch/rfcs#17 <https://github.com/pytorch/rfcs/pull/17>`__ 中；三条报错里只有“Inplace update …”那一条提到它。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``attempt`` 执行张量的一种用法，返回 ``"ok"`` 或它抛出的错误。三个 ``make_*`` 函数分别在三种方式下计算
# ``x * 2``；``uses`` 是之后对结果的三种用法。

import torch


def attempt(use, *tensors):
    try:
        use(*tensors)
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    return "ok"


def make_inference(x):
    with torch.inference_mode():
        return x * 2


def make_no_grad(x):
    with torch.no_grad():
        return x * 2


def make_detached(x):
    return (x * 2).detach()


ways = {"inference_mode": make_inference, "no_grad": make_no_grad, "detach": make_detached}
uses = {
    "saved for backward": lambda x, y: (x * y).sum().backward(),
    "in-place edit": lambda x, y: y.add_(1),
    "requires_grad_()": lambda x, y: y.requires_grad_(),
}

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
# 三种方式各得到什么
# ------------------
#
# 三个结果都脱离了计算图（``requires_grad`` 为 ``False``），只有 ``torch.inference_mode()``
# 下得到的那个是推理张量：它是在推理模式中计算出来的，用的是新内存。在推理模式中用索引、``view(shape)``、``t()``、
# ``transpose``、``expand``、``unbind``、``as_strided``、``real``、``imag``、``torch.view_as_real`` 或
# ``torch.view_as_complex`` 对普通张量（``is_inference()`` 为 ``False`` 的张量）取的视图不是推理张量，它的 ``detach()`` 和 ``.data`` 也不是；它的 ``view(dtype)``，比如
# ``view(torch.int32)``，则是推理张量（同样改变 dtype 的 ``real``、``imag`` 和 ``torch.view_as_real`` 不是）。

for name, make in ways.items():
    y = make(torch.tensor([1.0, 2.0], requires_grad=True))
    print(f"{name:15} is_inference={y.is_inference()}  requires_grad={y.requires_grad}  grad_fn={y.grad_fn}")
    # sphinx_gallery_start_ignore
    assert y.is_inference() == (name == "inference_mode") and not y.requires_grad, f"{name}: unexpected kind"
    # sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
for normal, complex_normal in (
        (torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1 + 2j, 3j])),
        (make_inference(torch.tensor([[0.5, 1.0], [1.5, 2.0]])).detach().view(torch.float32),
         make_inference(torch.tensor([0.5 + 1j, 1.5j])).detach().view(torch.complex64))):
    assert not normal.is_inference() and not complex_normal.is_inference(), (
        "a plain tensor, and the view(dtype) to its own dtype of an inference tensor's detach(): normal tensors")
    with torch.inference_mode():
        inside = [normal[1:], normal[0], normal.view(4), normal.view(1, 4), normal.t(), normal.transpose(0, 1)]
        detached = [normal.detach().is_inference(), torch.is_inference(normal.data)]
        with_dtype = [normal.view(torch.int32), normal.view(torch.float32)]
        computed = normal * 2
        over_numpy = torch.from_numpy(normal.numpy())
        over_memory = [torch.as_tensor(normal.numpy()), torch.frombuffer(normal.numpy(), dtype=torch.float32),
                       torch.from_dlpack(normal)]
        other_views = [normal[:1].expand(3, 2), normal.unbind()[0], normal.as_strided((2,), (1,)), complex_normal.real,
                       complex_normal.imag, torch.view_as_real(complex_normal), torch.view_as_complex(normal)]
    assert not any(v.is_inference() for v in inside) and computed.is_inference(), (
        "a view by indexing, view(shape) or t() taken inside the mode is not an inference tensor")
    assert not any(detached) and over_numpy.is_inference(), (
        "detach() and .data are not one; from_numpy over old memory is")
    assert not any(v.is_inference() for v in other_views), (
        "expand, unbind, as_strided, real, imag, view_as_real and view_as_complex taken inside the mode are not one")
    assert all(v.is_inference() for v in with_dtype), "view(dtype) taken inside the mode is an inference tensor"
    assert all(v.is_inference() and v.data_ptr() == normal.data_ptr() for v in over_memory), (
        "as_tensor and frombuffer over a NumPy array and from_dlpack of a normal tensor: "
        "inference tensors on its memory")
# sphinx_gallery_end_ignore

# %%
# 之后各自拒绝什么
# ----------------
#
# 下面每种用法都在任何特殊模式之外、在新建的张量上执行。推理张量三种用法全部拒绝，另外两个张量三种用法全部接受。输出中
# ``saved for backward`` 指被保存用于反向传播，``in-place edit`` 指原地（in-place）修改，``refused`` 表示被拒绝。

results = {}
for name, make in ways.items():
    for use_name, use in uses.items():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        results[name, use_name] = attempt(use, x, make(x))
for name in ways:
    print(f"{name:15}", "  ".join(f"{u}: {'ok' if results[name, u] == 'ok' else 'refused'}" for u in uses))
assert all((results[n, u] == "ok") == (n != "inference_mode") for n in ways for u in uses), (
    "only the inference tensor must refuse the three uses"
)

# %%
# 三条报错的全文：

for use_name in uses:
    print(f"{use_name}: {results['inference_mode', use_name]}")
# sphinx_gallery_start_ignore
assert "https://github.com/pytorch/rfcs/pull/17" in results["inference_mode", "in-place edit"], (
    "the message refusing the in-place edit names pytorch/rfcs#17")
for unlinked in ("saved for backward", "requires_grad_()"):
    assert "rfcs" not in results["inference_mode", unlinked], f"the message refusing '{unlinked}' names no RFC"
# sphinx_gallery_end_ignore

# %%
# 对 ``y`` 这样在推理模式内得到、不需要梯度的推理张量，原地修改的“拒绝”来得晚：torch 先把新值写进去，再抛出错误，所以推理张量里已经是新值了。捕获这个错误后接着往下跑，修改依然留在张量里。

y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
before = y.clone()
try:
    y.add_(1)
except RuntimeError as e:
    print(f"{type(e).__name__} raised; y before: {before}, y after: {y}")
else:
    raise AssertionError("an in-place edit of an inference tensor outside the mode must raise")
assert not y.requires_grad and torch.equal(y, before + 1), (
    "y does not require grad, and the edit that raised must have been written anyway"
)

# %%
# 不只是 ``add_``：下面前十个 torch 原地操作都往 ``y`` 里写入数值，每个都是先写入、再报错。``detach_()``、``share_memory_()`` 和按张量自己的大小、不给 ``memory_format`` 调用的 ``resize_()`` 不改变数值，也不报错。但不改变数值并不意味着不报错：``t_()``、``unsqueeze_(0)``，以及用 ``y`` 已有的数值做的 ``copy_``，都抛出同样的错误，而且 ``unsqueeze_(0)`` 报错时已经改了形状。

value_writes = {
    "y.mul_(10)": lambda t: t.mul_(10),
    "y.zero_()": lambda t: t.zero_(),
    "y.fill_(5.0)": lambda t: t.fill_(5.0),
    "y.copy_(...)": lambda t: t.copy_(torch.tensor([7.0, 8.0])),
    "y.clamp_(max=1.5)": lambda t: t.clamp_(max=1.5),
    "y.masked_fill_(...)": lambda t: t.masked_fill_(t > 1.5, 0.0),
    "y.index_put_(...)": lambda t: t.index_put_((torch.tensor([0]),), torch.tensor(9.0)),
    "y[0] = 9.0": lambda t: t.__setitem__(0, 9.0),
    "y += 1": lambda t: t.__iadd__(1),
    "torch.add(y, 1, out=y)": lambda t: torch.add(t, 1, out=t),
}
no_values = {
    "y.detach_()": lambda t: t.detach_(),
    "y.share_memory_()": lambda t: t.share_memory_(),
    "y.resize_(2)": lambda t: t.resize_(2),
}
no_new_values = {
    "y.t_()": lambda t: t.t_(),
    "y.unsqueeze_(0)": lambda t: t.unsqueeze_(0),
    "y.copy_(y.clone())": lambda t: t.copy_(t.clone()),
}
outcomes, shapes = {}, {}
for name, edit in {**value_writes, **no_values, **no_new_values}.items():
    y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    before = y.clone()
    outcomes[name] = (attempt(edit, y), not torch.equal(y.reshape(-1), before))
    shapes[name] = tuple(y.shape)
    print(f"{name:24} raised={outcomes[name][0] != 'ok'}  values changed={outcomes[name][1]}  shape: {shapes[name]}")
refusal = "RuntimeError: Inplace update to inference tensor outside InferenceMode"
assert all(outcomes[n][0].startswith(refusal) and outcomes[n][1] for n in value_writes) and all(
    outcomes[n] == ("ok", False) for n in no_values
), "each value write raises after writing; detach_, share_memory_ and resize_ to its size raise nothing and change nothing"
assert shapes["y.unsqueeze_(0)"] == (1, 2) and all(
    outcomes[n][0].startswith(refusal) and not outcomes[n][1] for n in no_new_values
), "t_, unsqueeze_ and copy_ of the same values raise; unsqueeze_ has changed the shape when it raises"

# %%
# 如果给出的 ``memory_format`` 与张量现有的布局不同，按自己的大小调用的 ``resize_()`` 会原地改写推理张量的步长：下面四维的 ``y4`` 之后在同样的下标读出别的数值，也不报错。

y4 = make_inference(torch.arange(8.0).reshape(1, 2, 2, 2))
before4 = y4.clone()
kept = attempt(lambda t: t.resize_(t.shape), y4), torch.equal(y4, before4)
print("y4.resize_(y4.shape):", kept[0], " values kept:", kept[1])
restrided = attempt(lambda t: t.resize_(t.shape, memory_format=torch.channels_last), y4)
print("y4.resize_(y4.shape, memory_format=torch.channels_last):", restrided)
print("values kept:", torch.equal(y4, before4))
assert kept == ("ok", True) and restrided == "ok" and not torch.equal(y4, before4), (
    "resize_ to its own size keeps the values with no memory_format, re-strides them with channels_last, raises nothing"
)

# %%
# 通过它的视图（这里是 ``y[1:]``）做原地修改，也同样报错。像这里这样在模式之外取的 ``y.detach()`` 和 ``y.data`` 也是推理张量，可对它们调用的原地操作，只要 torch 直接在它们本身上完成（比如 ``mul_``），就不报任何错，而且改动会落到 ``y`` 上。对每个值调用 Python 函数的 ``apply_`` 和 ``map_`` 即使直接作用在 ``y`` 上也不报错，同样改动 ``y``；经由 NumPy 数组 ``y.numpy()`` 写入也是如此。对它们取的视图，无论是用索引取的（比如 ``y.detach()[1:]``），还是用 ``view(shape)``、``t()``、``unsqueeze()``、``reshape()``、``narrow()``、``as_strided()`` 或 ``unbind()`` 取的，都是没有版本计数器（version counter）的推理张量，通过这种视图修改，和通过 ``y[1:]`` 一样，先写入再报错；在内部对它们取视图的原地调用（比如 ``fill_diagonal_``）也是如此；经由视图写入的按下标赋值同样如此，比如对 ``d = y.detach()`` 或 ``y.data`` 做 ``d[0] = 9.0`` 或 ``d[1:] = 9.0``，还有要先读出视图 ``d[:]`` 的 ``d[:] += 1``。下面这些赋值不取视图，不报错，改动会落到 ``y`` 上：``d[:] = 9.0`` 和 ``d[...] = 9.0``，覆盖整个 ``d``、不写起点或起点为 0、不写步长或步长为 1 的切片（``d[0:] = 9.0``，以及 ``d`` 只有两个值时的 ``d[:2] = 9.0``），还有整个下标是一个下标列表，或是至少一维的索引张量或布尔掩码的写入（``d[[0]] = 9.0``、``d[torch.tensor([0])] = 9.0``、``d[torch.tensor([True, False])] = 9.0``）。零维索引张量则和它所含的整数一样，经由视图写入：``d[torch.tensor(0)] = 9.0``。有些覆盖整个 ``d`` 的赋值仍会经由视图写入，写入之后报错，比如 ``d[-2:] = 9.0``、``d[None] = 9.0``，还有用零维 ``True`` 掩码的赋值，即 ``d[True] = 9.0`` 或 ``d[torch.tensor(True)] = 9.0``，torch 会在内部对 ``d`` 取视图。零维 ``False`` 掩码什么也不写入：``d[torch.tensor(False)] = 9.0`` 照样报错，``d[False] = 9.0`` 则不报错。它们的 ``view(dtype)`` 则是普通张量：经由它修改不报错，改动会落到 ``y`` 上。:fact:`inference-tensor-alias-edit-routes`
edits = {"y[1:]": lambda t: t[1:], "y.detach()": lambda t: t.detach(), "y.data": lambda t: t.data,
         "y.detach()[1:]": lambda t: t.detach()[1:], "y.data[1:]": lambda t: t.data[1:]}  # fmt: skip
raised = {}
for name, alias in edits.items():
    y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    raised[name] = attempt(lambda t: t.mul_(10), alias(y)) != "ok"
    print(f"{name:14} is_inference={alias(y).is_inference()}  raised={raised[name]}  y after: {y}")
    # sphinx_gallery_start_ignore
    assert alias(y).is_inference() and y[1].item() == 40.0, f"the edit through {name} must reach y"
    # sphinx_gallery_end_ignore
assert raised == {"y[1:]": True, "y.detach()": False, "y.data": False, "y.detach()[1:]": True, "y.data[1:]": True}, (
    "only the edits through a view raise")
# sphinx_gallery_start_ignore
alias_views = {"indexing": (lambda t: t[0], lambda t: t[1:], lambda t: t[None], lambda t: t[...]),
               "a view method": (lambda t: t.view(2), lambda t: t.view(1, 2), lambda t: t.t(), lambda t: t.unsqueeze(0),
                                 lambda t: t.reshape(2), lambda t: t.narrow(0, 1, 1), lambda t: t.as_strided((1,), (1,)),
                                 lambda t: t.unbind()[0])}
for take_alias in (edits["y.detach()"], edits["y.data"]):
    for taken_by, take_views in alias_views.items():
        for take_view in take_views:
            alias_view = take_view(take_alias(make_inference(torch.tensor([1.0, 2.0], requires_grad=True))))
            assert alias_view.is_inference() and attempt(lambda t: t._version, alias_view).startswith(
                "RuntimeError: Inference tensors do not track version counter"), (
                f"a view of y.detach() or y.data taken by {taken_by} is an inference tensor with no version counter")
    for view_dtype in (torch.float32, torch.int32):
        dtype_alias = take_alias(make_inference(torch.tensor([1.0, 2.0], requires_grad=True))).view(view_dtype)
        assert not dtype_alias.is_inference() and attempt(lambda t: t._version, dtype_alias) == "ok", (
            "view(dtype) of y.detach() or y.data is a normal tensor")
# sphinx_gallery_end_ignore
assignments = {"d[0] = 9.0": lambda d: d.__setitem__(0, 9.0),
               "d[1:] = 9.0": lambda d: d.__setitem__(slice(1, None), 9.0), "d[:] += 1": lambda d: d[:].__iadd__(1),
               "d[:] = 9.0": lambda d: d.__setitem__(slice(None), 9.0),
               "d[...] = 9.0": lambda d: d.__setitem__(Ellipsis, 9.0),
               "d[0:] = 9.0": lambda d: d.__setitem__(slice(0, None), 9.0),
               "d[:2] = 9.0": lambda d: d.__setitem__(slice(None, 2), 9.0),
               "d[[0]] = 9.0": lambda d: d.__setitem__([0], 9.0),
               "d[torch.tensor([0])] = 9.0": lambda d: d.__setitem__(torch.tensor([0]), 9.0),
               "d[torch.tensor([True, False])] = 9.0": lambda d: d.__setitem__(torch.tensor([True, False]), 9.0),
               "d[torch.tensor(0)] = 9.0": lambda d: d.__setitem__(torch.tensor(0), 9.0),
               "d[-2:] = 9.0": lambda d: d.__setitem__(slice(-2, None), 9.0),
               "d[None] = 9.0": lambda d: d.__setitem__(None, 9.0),
               "d[True] = 9.0": lambda d: d.__setitem__(True, 9.0),
               "d[torch.tensor(True)] = 9.0": lambda d: d.__setitem__(torch.tensor(True), 9.0),
               "d[torch.tensor(False)] = 9.0": lambda d: d.__setitem__(torch.tensor(False), 9.0),
               "d[False] = 9.0": lambda d: d.__setitem__(False, 9.0)}  # fmt: skip
for name in ("y.detach()", "y.data"):
    for written, assign in assignments.items():
        y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
        result = attempt(assign, edits[name](y))
        print(f"d = {name}; {written:36}  raised={result != 'ok'}  y after: {y}")
        through_a_view = written in ("d[0] = 9.0", "d[1:] = 9.0", "d[:] += 1", "d[torch.tensor(0)] = 9.0",
                                     "d[-2:] = 9.0", "d[None] = 9.0", "d[True] = 9.0", "d[torch.tensor(True)] = 9.0",
                                     "d[torch.tensor(False)] = 9.0")
        writes_nothing = written in ("d[torch.tensor(False)] = 9.0", "d[False] = 9.0")
        assert (result.startswith(refusal) if through_a_view else result == "ok") and (
            y.tolist() == [2.0, 4.0]) == writes_nothing, (
            f"{written} on d = {name} raises exactly when it goes through a view, and reaches y unless its mask is False")
    y = make_inference(torch.ones(2, 2, requires_grad=True))
    result = attempt(lambda t: t.fill_diagonal_(0.0), edits[name](y))
    print(f"{name}.fill_diagonal_(0.0)  raised={result != 'ok'}  y after: {y.tolist()}")
    assert result.startswith(refusal) and y.trace().item() == 0.0, f"fill_diagonal_ on {name} raises after writing"

other_routes = {
    "y.apply_": lambda t: t.apply_(lambda v: v * 10),
    "y.map_": lambda t: t.map_(t, lambda v, o: v + o),
    "y.numpy()": lambda t: t.numpy().fill(-1.0),
}
for name, edit in other_routes.items():
    y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    result = attempt(edit, y)
    print(f"{name:10} result: {result}  y after: {y}")
    assert result == "ok" and not torch.equal(y, torch.tensor([2.0, 4.0])), f"{name} must edit y and raise nothing"

# %%
# 比如在模式内写 ``feats = model(x).detach()``，这样在模式内对推理张量取的 ``detach()`` 或 ``.data`` 本身就是在模式内得到的推理张量：在模式之外修改它，和修改 ``y`` 一样，先写入再报错。经由在模式内取的 ``numpy()`` 写入则不报错。
# :fact:`inference-tensor-inplace-outside-raises-yet-writes`
taken_inside = {"detach()": lambda t: t.detach(), ".data": lambda t: t.data, "numpy()": lambda t: t.numpy()}
inside_results = {}
for name, take in taken_inside.items():
    with torch.inference_mode():
        y = torch.tensor([1.0, 2.0]) * 2
        alias = take(y)
    inside_results[name] = attempt(lambda a: a.__imul__(10), alias)
    print(f"{name:9} taken inside the mode: raised={inside_results[name] != 'ok'}  y after: {y}")
    # sphinx_gallery_start_ignore
    assert torch.equal(y, torch.tensor([20.0, 40.0])), f"the edit through {name} taken inside the mode is written"
    assert name == "numpy()" or alias.is_inference(), f"{name} of an inference tensor taken inside the mode is one too"
    # sphinx_gallery_end_ignore
assert inside_results["numpy()"] == "ok" and all(
    inside_results[n].startswith(refusal) for n in ("detach()", ".data")
), "detach() and .data of an inference tensor taken inside the mode refuse the edit after writing; numpy() does not"

# %%
# 在推理模式内得到的推理张量根本没有版本计数器，而自动求导（autograd）正是靠这个计数器察觉被保存的张量有没有被原地修改（见 :ref:`“版本计数器”那一页 <questions-version-counter>`）。本页和其他页面说的推理张量，指 ``is_inference()`` 为 ``True`` 的张量，普通张量则指 ``is_inference()`` 为 ``False`` 的张量：在模式外对推理张量取的 ``detach()`` 或 ``.data`` 也是推理张量，却有版本计数器，直接对它调用 ``mul_`` 这类原地操作也不报错（通过对它取的视图修改则会报错，无论视图是用索引或上面那些视图方法取的，还是像 ``fill_diagonal_`` 那样由调用在内部取的，见上文）。

y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
try:
    y._version
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an inference tensor must have no version counter")

for route in ("detach()", ".data"):
    z = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    taken_outside = z.detach() if route == "detach()" else z.data
    taken_outside.mul_(1.0)
    print(f"{route:9} taken outside: is_inference() {taken_outside.is_inference()}, _version {taken_outside._version}")
    assert taken_outside.is_inference() and taken_outside._version == 1, f"{route} outside: a counter, and mul_ runs"

# %%
# 不需要保存它的用法是可以的：加法不为反向传播保存任何一个输入，所以 ``y + x`` 能进入计算图，反向传播也能到达 ``x``。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x)
(y + x).sum().backward()
print("x.grad:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(x.grad, torch.ones(2)), "y + x must backpropagate to x"
# sphinx_gallery_end_ignore

# %%
# 自定义的 ``autograd.Function`` 若把 ``y`` 存成 ``ctx`` 的属性，而不是交给 ``ctx.save_for_backward``，也可以：自动求导看不到 ``y`` 被保存，``backward`` 读到的是 ``y`` 当时的值。

class KeepOnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.y = y
        return x * y

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.y, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x)
KeepOnCtx.apply(x, y).sum().backward()
print("x.grad:", x.grad)
assert torch.equal(x.grad, y), "an inference tensor kept on ctx as an attribute is not refused"

# %%
# 在模式内以 ``requires_grad=True`` 创建的推理张量，可能悄无声息地得不到梯度：在模式之外，用到它的一些运算不会把它记入计算图（``it.exp()``、``it * it`` 和 ``it.sum()`` 的结果不需要梯度，也没有 ``grad_fn``；``it * 2`` 则会把它记入计算图），所以把这样的结果与普通张量的结果相加的损失，``backward()`` 不报错，``it.grad`` 却一直是 ``None``。在模式内构建的 ``nn.Linear``，在模式外作用于不需要梯度的输入时，它的权重也是这样：输出经由偏置被记录下来，``backward()`` 不报错，``weight.grad`` 却一直是 ``None``。

with torch.inference_mode():
    it = torch.ones(2, requires_grad=True)
w = torch.tensor([1.0, 2.0], requires_grad=True)
unrecorded = {"it.exp()": it.exp(), "it * it": it * it, "it.sum()": it.sum()}
for name, result in unrecorded.items():
    print(f"{name:9} requires_grad:", result.requires_grad, " grad_fn:", result.grad_fn)
print("it * 2 requires_grad:", (it * 2).requires_grad)
loss = (w * 2).sum() + it.exp().sum()
loss.backward()
print("it.requires_grad:", it.requires_grad, " w.grad:", w.grad, " it.grad:", it.grad)
assert all(res.grad_fn is None and not res.requires_grad for res in unrecorded.values()) and it.grad is None, (
    "it.exp(), it * it and it.sum() are not recorded, and backward leaves it.grad None without an error"
)
# sphinx_gallery_start_ignore
assert it.requires_grad and it.is_inference() and (it * 2).grad_fn is not None, "it requires grad; it * 2 is recorded"
assert torch.equal(w.grad, torch.full((2,), 2.0)), "the normal tensor's gradient is filled"
with torch.inference_mode():
    built_inside = torch.nn.Linear(2, 1)
linear_out = built_inside(torch.ones(4, 2))
assert built_inside.weight.is_inference() and built_inside.weight.requires_grad and linear_out.grad_fn is not None, (
    "an nn.Linear built in the mode has an inference weight that requires grad, and its output is recorded")
linear_out.sum().backward()
assert built_inside.weight.grad is None and torch.equal(built_inside.bias.grad, torch.full((1,), 4.0)), (
    "backward runs without an error; the bias gets its gradient, weight.grad stays None")
# sphinx_gallery_end_ignore

# %%
# 内存：``no_grad`` 和 ``inference_mode`` 都会算出新的值；对 ``x`` 本身调用 ``detach()``
# 则与 ``x`` 共享内存，修改它就是修改 ``x``。

x = torch.tensor([1.0, 2.0], requires_grad=True)
d = x.detach()
d.add_(1)
print("x:", x)
print("x._version:", x._version, " d._version:", d._version)
# sphinx_gallery_start_ignore
assert torch.equal(x.detach(), torch.tensor([2.0, 3.0])), "an edit of x.detach() must reach x"
assert x._version == d._version == 1, "x and x.detach() must share one version counter"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 x 和 d 指向同一块存储 S1 上的两个张量对象，共享版本计数器 C1，读数是 _version=1；值都是 2.0、3.0。
#
#    ``x`` 和 ``d`` 是同一块存储 ``S1`` 上的两个张量对象，共享一个版本计数器 ``C1``，读数是 ``_version=1``。

draw_memory("d = x.detach(); d.add_(1)", x=x, d=d)
# sphinx_gallery_start_ignore
assert x.untyped_storage().data_ptr() == d.untyped_storage().data_ptr(), "d shares x's memory"
# sphinx_gallery_end_ignore

# %%
# 解决办法：在模式之外 ``clone()``
# --------------------------------
#
# 在 ``torch.inference_mode()`` 之外调用 ``y.clone()``，得到的是带版本计数器的普通张量。它可以被保存用于反向传播，梯度与
# ``torch.func.grad`` 把 ``y`` 当作常量、对 ``(x * y).sum()`` 算出的一致。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x).clone()
(x * y).sum().backward()
expected = torch.func.grad(lambda x_: (x_ * y).sum())(x.detach())
print("y.is_inference():", y.is_inference())
print("x.grad:", x.grad, " expected:", expected)
assert torch.equal(x.grad, expected), "a clone of the inference tensor must work in autograd"
# sphinx_gallery_start_ignore
assert not y.is_inference() and isinstance(y._version, int), "the clone is a normal tensor with a version counter"


def clones_under_(mode_, u_):
    with mode_():
        return [u_.clone(memory_format=format_) for format_ in (torch.preserve_format, torch.contiguous_format)]


assert all(not clone_.is_inference() and isinstance(clone_._version, int)
           for mode_ in (torch.enable_grad, torch.no_grad, lambda: torch.inference_mode(False))
           for clone_ in clones_under_(mode_, make_inference(x))), (
    "under no_grad() and inference_mode(False) too, with either memory_format, the clone is a normal tensor")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``torch.inference_mode()`` 用在结果不会再参与自动求导的代码上；它创建的推理张量在模式之外不能被保存用于反向传播，也不能设为需要梯度；在模式内以 ``requires_grad=True`` 创建的推理张量，还可能悄无声息地得不到梯度（用到它的一些运算不会把它记入计算图，``nn.Linear`` 在不需要梯度的输入上的前向传播就是其一）。对不需要梯度的推理张量，上面做过的每个写入数值的 torch 原地操作（``add_``、``mul_``、``zero_``、``fill_``、``copy_``、``clamp_``、``masked_fill_``、``index_put_``、按下标赋值、``+=`` 和 ``out=``）都会报错，但新值已经写进去了，通过它的视图 ``y[1:]`` 做 ``mul_`` 也是如此；``detach_()``、``share_memory_()`` 和按它自己的大小、不给 ``memory_format`` 调用的 ``resize_()`` 不改变数值，也不报错；``t_()``、``unsqueeze_()`` 和用相同数值做的 ``copy_`` 虽然不写入新值，却会报错。直接对在模式之外取的 ``detach()`` 或 ``.data`` 调用 ``mul_`` 这类原地操作，或者经由 ``numpy()`` 写入，都不报错（通过对这个 ``detach()`` 或 ``.data`` 取的视图修改都先写入再报错，无论视图是用索引（包括 ``d[0] = v``、``d[-2:] = v`` 和 ``d[:] += 1``；不取视图的赋值，比如 ``d[:] = v``、``d[0:] = v``、``d[...] = v``、``d[[0]] = v`` 和用至少一维的布尔掩码的赋值，不报错）、用 ``view(shape)`` 等上面那些视图方法取的，还是像 ``fill_diagonal_`` 或 ``d[True] = v`` 那样由调用在内部取的；经由它的 ``view(dtype)`` 修改则不报错），对每个值调用 Python 函数的 ``apply_`` 和 ``map_`` 也不报错；在模式内对推理张量取的 ``detach()`` 或 ``.data`` 本身就是推理张量，照样先写入再报错。结果可能还要用于训练时，用
# ``torch.no_grad()``，或者在模式之外 ``clone()`` 一份。``detach()`` 什么也不计算：它与原来的张量共享同一块内存。
