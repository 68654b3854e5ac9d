"""
.. _questions-numpy-bridge:

与 NumPy 互转：“Can't call numpy() on Tensor that requires grad”
================================================================

.. admonition:: 答案
   :class: answer

   梯度模式开启时，``numpy()`` 不接受需要梯度的张量；``x.detach().numpy()`` 返回的数组与 ``x`` 共享内存，往数组里写就是改 ``x``，自动求导（autograd）却不知道。写入之前先复制：

   .. code-block:: python

      edited = x.detach().numpy().copy()
      edited[0] = 100.0

对需要梯度的张量调用 ``numpy()``，会得到 ``RuntimeError: Can't call numpy() on Tensor that requires grad. Use
tensor.detach().numpy() instead``，见 `pytorch/pytorch#44023
<https://github.com/pytorch/pytorch/issues/44023>`__。照提示改就能运行，但返回的数组和张量用的是同一块内存。本页说明 NumPy 与 torch
之间哪些转换共享内存、哪些会复制，以及经由 NumPy 的一次写入如何在自动求导毫不知情的情况下改掉梯度。
"""

# %%
# 辅助函数
# --------
#
# ``shares`` 比较张量第一个元素的地址和数组第一个元素的地址：地址相同，就是同一块内存。
import signal
import warnings

import numpy as np
import torch
import torch.multiprocessing


def shares(t, array):
    return t.data_ptr() == array.__array_interface__["data"][0]


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
# 梯度模式（grad mode）开启时，需要梯度的张量不肯转成 NumPy 数组，因为 NumPy 可以在自动求导之外读写它。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    a.numpy()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("numpy() on a tensor that requires grad must raise")
assert message == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.", (
    "numpy() refuses a tensor that requires grad and suggests tensor.detach().numpy()"
)

# %%
# 对 CPU 上 dtype 在 NumPy 里有对应、维数不超过 NumPy 上限（本站构建所用的 NumPy 2 是 64）的稠密张量（不是嵌套张量），只要没有设置共轭位（conjugate bit）或负号位（negative bit），并且不在经 ``torch.func`` 变换的函数里，提示里的 ``detach().numpy()`` 返回的数组用的就是张量自己的内存，``numpy(force=True)``
# 也一样：两者都不复制。（设置了其中一个位时，``detach().numpy()`` 会报错，``numpy(force=True)`` 会复制，见下文。对维数超过这个上限的张量，两者都会抛出 ``ValueError``，``np.asarray`` 也一样。对 ``bfloat16`` 或 float8 张量，以及用 ``to_sparse()`` 得到的稀疏张量，两者都会抛出 ``TypeError``；对嵌套张量、定义了 ``__torch_dispatch__`` 的张量子类的实例（没有定义它的子类不受影响），以及函数在 ``torch.func.vmap`` 或 ``torch.func.grad`` 里收到的张量，两者也都会报错。）
# :fact:`detach-numpy-needs-plain-dense`
view = a.detach().numpy()
forced = a.numpy(force=True)
print("detach().numpy():", view, " shares a's memory:", shares(a, view))
print("numpy(force=True):", forced, " shares a's memory:", shares(a, forced))
assert shares(a, view) and shares(a, forced), "both arrays use a's memory"
# sphinx_gallery_start_ignore
numpy_dtypes = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16,
                torch.uint32, torch.uint64, torch.float16, torch.float64, torch.complex64, torch.complex128)
for typed in [torch.ones(3, dtype=dtype) for dtype in numpy_dtypes]:
    assert shares(typed, typed.detach().numpy()) and shares(typed, typed.numpy(force=True)), (
        f"detach().numpy() and numpy(force=True) of a {typed.dtype} tensor must use its memory")
no_array = {"bfloat16": torch.ones(3, dtype=torch.bfloat16), "float8": torch.ones(3).to(torch.float8_e4m3fn),
            "sparse": torch.ones(3).to_sparse()}
for kind, refused_source in no_array.items():
    try:
        shares(refused_source, refused_source.numpy(force=True))
    except TypeError as refusal:
        assert "unsupported ScalarType" in str(refusal) or "Sparse layout" in str(refusal), (
            f"numpy(force=True) of a {kind} tensor is refused for its dtype or its sparse layout")
    else:
        raise AssertionError(f"numpy(force=True) on a {kind} tensor must raise TypeError")
try:
    shares(no_array["sparse"], np.asarray(no_array["sparse"]))
except TypeError as refusal:
    assert "Sparse layout" in str(refusal), "np.asarray refuses a sparse tensor for its sparse layout"
else:
    raise AssertionError("np.asarray on a sparse tensor must raise TypeError")
try:
    shares(no_array["sparse"], no_array["sparse"].detach().numpy())
except TypeError as refusal:
    assert "Sparse layout" in str(refusal), "detach().numpy() refuses a sparse tensor for its sparse layout"
else:
    raise AssertionError("detach().numpy() on a sparse tensor must raise TypeError")


def no_array_refusals(t):
    """What detach().numpy(), numpy(force=True) and np.asarray(t.detach()) raise on t (None where one works)."""
    refusals_ = []
    try:
        type(t.detach().numpy())
        refusals_.append(None)
    except (RuntimeError, TypeError) as refusal_:
        refusals_.append(type(refusal_))
    try:
        type(t.numpy(force=True))
        refusals_.append(None)
    except (RuntimeError, TypeError) as refusal_:
        refusals_.append(type(refusal_))
    try:
        type(np.asarray(t.detach()))
        refusals_.append(None)
    except (RuntimeError, TypeError) as refusal_:
        refusals_.append(type(refusal_))
    return refusals_


eye_ = torch.eye(2)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # torch 会警告嵌套张量和压缩稀疏布局还是新功能
    sparse_ = [eye_.to_sparse(), eye_.to_sparse_csr(), eye_.to_sparse_csc(), eye_.to_sparse_bsr((1, 1)),
               eye_.to_sparse_bsc((1, 1))]
    nested_ = [torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=layout_)
               for layout_ in (torch.strided, torch.jagged)]
float8_ = [torch.float8_e5m2, torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.float8_e4m3fnuz]
if torch.__version__ >= "2.7":  # torch.float8_e8m0fnu 从 torch 2.7 起才有
    float8_.append(torch.float8_e8m0fnu)
assert all(
    no_array_refusals(source_) == [TypeError] * 3
    for source_ in [torch.ones(3, dtype=torch.bfloat16)] + [torch.ones(3).to(dtype_) for dtype_ in float8_] + sparse_
), "detach().numpy(), numpy(force=True) and np.asarray raise TypeError on bfloat16, every float8 dtype and every sparse layout"
assert all(None not in no_array_refusals(nested_tensor_) for nested_tensor_ in nested_), (
    "detach().numpy(), numpy(force=True) and np.asarray raise on a nested tensor of either layout")
received_refusals_ = []


def refusals_inside(t):
    received_refusals_.append(no_array_refusals(t))
    return t.sum()


torch.func.vmap(refusals_inside)(torch.ones(2, 3))
torch.func.grad(refusals_inside)(torch.ones(3))
assert len(received_refusals_) == 2 and all(None not in found_ for found_ in received_refusals_), (
    "inside torch.func.vmap and torch.func.grad, detach().numpy(), numpy(force=True) and np.asarray raise on the "
    "tensor the function receives")
numpy_max_dims_ = 64 if int(np.__version__.split(".")[0]) >= 2 else 32
assert all(shares(deep_, deep_.detach().numpy()) and shares(deep_, deep_.numpy(force=True))
           and shares(deep_, np.asarray(deep_))
           for deep_ in (torch.ones([1] * numpy_max_dims_), torch.ones([2] * 6 + [1] * (numpy_max_dims_ - 6)))), (
    "detach().numpy(), numpy(force=True) and np.asarray share the memory of a tensor of as many dimensions as "
    "NumPy allows (64 in NumPy 2, 32 in NumPy 1)")
for too_deep_call_ in (lambda t: type(t.detach().numpy()), lambda t: type(t.numpy(force=True)),
                       lambda t: type(np.asarray(t))):
    try:
        too_deep_call_(torch.ones([1] * (numpy_max_dims_ + 1)))
    except ValueError:
        pass
    else:
        raise AssertionError("detach().numpy(), numpy(force=True) and np.asarray on a tensor of more dimensions than "
                             "NumPy allows must raise ValueError")
# sphinx_gallery_end_ignore

# %%
# 只有 ``torch.is_grad_enabled()`` 为 ``True`` 时才会拒绝：梯度模式开启时如此，在 ``torch.inference_mode()`` 里用
# ``torch.enable_grad()`` 打开之后也如此。在 ``torch.no_grad()`` 下和 ``torch.inference_mode()`` 下，只要没有在其中用
# ``torch.enable_grad()``，``numpy()`` 和 ``np.asarray`` 都接受需要梯度的张量，不用 ``detach()``，返回的数组直接用张量的内存：通过这个数组写入会改变张量，而张量的
# ``_version`` 保持不变，和下文讲写入的那一节一样。
for mode in (torch.no_grad, torch.inference_mode):
    b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with mode():
        through_numpy = b.numpy()
        through_asarray = np.asarray(b)
        through_numpy[0] = 100.0
    print(f"{mode.__name__}: numpy() shares b's memory:", shares(b, through_numpy),
          " np.asarray shares b's memory:", shares(b, through_asarray))  # fmt: skip
    print(f"{mode.__name__}: b:", b, " b._version:", b._version)
    assert shares(b, through_numpy) and shares(b, through_asarray) and b[0] == 100.0 and b._version == 0, (
        f"under {mode.__name__}, numpy() and np.asarray must share b's memory and the write must not be counted")
# sphinx_gallery_start_ignore
grad_b_ = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for mode_ in (torch.no_grad, torch.inference_mode):
    with mode_(), torch.enable_grad():
        assert torch.is_grad_enabled(), "torch.enable_grad() turns is_grad_enabled() on inside no_grad and inference_mode"
        try:
            grad_b_.numpy()
        except RuntimeError as e:
            assert "requires grad" in str(e), "with enable_grad inside no_grad or inference_mode, numpy() refuses"
        else:
            raise AssertionError("with enable_grad inside no_grad or inference_mode, numpy() must refuse")
        try:
            np.asarray(grad_b_)
        except RuntimeError as e:
            assert "requires grad" in str(e), "with enable_grad inside no_grad or inference_mode, np.asarray refuses"
        else:
            raise AssertionError("with enable_grad inside no_grad or inference_mode, np.asarray must refuse")
# sphinx_gallery_end_ignore

# %%
# 哪些转换共享，哪些复制
# ----------------------
#
# 从 NumPy 到 torch：``torch.from_numpy`` 和 ``torch.as_tensor`` 共享数组的内存，前提是 torch 也有这种 dtype（遇到 torch 没有的 dtype，比如 ``object`` 或 ``datetime64``，它们抛出 ``TypeError``。遇到 NumPy 的 ``ulonglong`` 类型（dtype 字符 ``"Q"``）的数组，``torch.from_numpy``、``torch.as_tensor``、``torch.asarray`` 和 ``torch.tensor`` 也都抛出这个错误，尽管它的 dtype 显示为 ``uint64``，也等于 ``np.dtype(np.uint64)``，而在 Linux 上后者是 ``ulong``，即 ``"L"``：用 ``array.view(np.uint64)`` 得到的数组，它们共享其内存，不复制；``torch.from_dlpack`` 则原样共享它的内存。它们拒绝的另外三种数组见下文。）不给 ``device=`` 参数时，如果设置了 ``"cpu"`` 以外的默认设备（用 ``torch.set_default_device`` 或 ``with torch.device(...)`` 设置），即使是 ``"cpu:0"``，``torch.as_tensor`` 也不与数组共享内存（它复制数组：在 ``"cpu:0"`` 下得到的张量，设备是 ``cpu``；在 ``meta`` 上它给出一个没有数值的张量），``torch.from_numpy`` 则仍然共享数组的内存。给了 ``device=`` 参数时，由它决定，与默认设备无关：它指定 ``"cpu"`` 以外的设备时，即使是 ``"cpu:0"``，``torch.as_tensor`` 也不共享内存；``device="cpu"`` 则共享，无论默认设备是什么。在这些情况下，``torch.asarray`` 都与 ``torch.as_tensor`` 一样，只有 0 维数组（``np.array(5.0)``）例外：``torch.asarray`` 从不与它共享内存，即使给了 ``device="cpu"`` 和 ``copy=False``，也返回一个副本，不报错。``torch.tensor``
# 会复制。``torch.from_dlpack`` 也共享：改它得到的张量，下面的数组也跟着变；对没有翻转、字节序与本机相同、dtype 受 DLPack 支持（``bool``、8 到 64 位的有符号和无符号整数、``float16``、``float32``、``float64``、``complex64`` 和 ``complex128``）的数组，无论是整个数组还是切片（``[::2]``），它得到的张量都使用数组的内存。字节序与本机不同的数组（``">f4"``）、``object`` 或 ``datetime64`` 数组，以及紧凑记录 ``[("a", "<f4"), ("b", "i1")]`` 的 ``float32`` 字段 ``"a"``，它以 ``BufferError`` 拒绝：这个字段的步长（stride）是 5 字节，不是元素大小的整数倍。同一记录的 ``int8`` 字段 ``"b"``，步长是元素大小的整数倍，它接受，得到的张量使用这个字段的内存。（翻转过的数组另当别论，见下文。）从 torch 到 NumPy：``Tensor.numpy()`` 和 ``np.asarray`` 共享，``np.array`` 复制；在这个版本的 NumPy 上它还会发出警告，因为
# ``Tensor.__array__`` 不接受 NumPy 2 的 ``copy`` 参数。这里捕获警告并展示出来。
# :fact:`default-device-makes-as-tensor-copy`
array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
print("torch.from_numpy(array) shares:", shares(torch.from_numpy(array), array))
print("torch.as_tensor(array) shares: ", shares(torch.as_tensor(array), array))
print("torch.tensor(array) shares:    ", shares(torch.tensor(array), array))
dlpack_array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
via_dlpack = torch.from_dlpack(dlpack_array)
via_dlpack[0] = 42.0
print("torch.from_dlpack(array) shares:", shares(via_dlpack, dlpack_array), " after via_dlpack[0] = 42.0 the array holds:",
      dlpack_array)
with torch.device("cpu:0"):
    on_default_device = torch.as_tensor(array), torch.from_numpy(array)
print('under torch.device("cpu:0"): torch.as_tensor(array) shares:', shares(on_default_device[0], array),
      " torch.from_numpy(array) shares:", shares(on_default_device[1], array))
t = torch.tensor([1.0, 2.0, 3.0])
print("t.numpy() shares:              ", shares(t, t.numpy()))
print("np.asarray(t) shares:          ", shares(t, np.asarray(t)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    copied = np.array(t)
print("np.array(t) shares:            ", shares(t, copied))
print("np.array(t) warned:", [f"{w.category.__name__}: {w.message}" for w in caught])
assert not shares(torch.tensor(array), array) and not shares(t, copied), "torch.tensor and np.array copy"
# sphinx_gallery_start_ignore
assert shares(torch.from_numpy(array), array) and shares(torch.as_tensor(array), array), (
    "torch.from_numpy and torch.as_tensor share the array's memory")
assert not shares(on_default_device[0], array) and shares(on_default_device[1], array), (
    "under a default device torch.as_tensor copies and torch.from_numpy shares")
assert torch.equal(on_default_device[0], torch.from_numpy(array)), 'under "cpu:0" torch.as_tensor copies the values'
assert str(on_default_device[0].device) == "cpu", 'under "cpu:0" the copy torch.as_tensor makes has the device cpu'
assert shares(torch.asarray(array), array), "torch.asarray shares the array's memory, as torch.as_tensor does"
for convert_ in (torch.as_tensor, torch.asarray):
    assert shares(convert_(array, device="cpu"), array) and not shares(convert_(array, device="cpu:0"), array), (
        'torch.as_tensor and torch.asarray share the array\'s memory with device="cpu" and copy it with device="cpu:0"')
    for default_device_ in ("cpu:0", "meta"):
        with torch.device(default_device_):
            assert shares(convert_(array, device="cpu"), array), (
                'under any default device, torch.as_tensor and torch.asarray with device="cpu" share the array\'s memory')
            assert not shares(convert_(array, device="cpu:0"), array) and convert_(array, device="meta").is_meta, (
                'under any default device, torch.as_tensor and torch.asarray copy the array with device="cpu:0" '
                'and give a meta tensor with device="meta"')
with torch.device("cpu:0"):
    assert not shares(torch.asarray(array), array), 'under the default device "cpu:0" torch.asarray copies, as torch.as_tensor does'
with torch.device("meta"):
    assert torch.asarray(array).is_meta, "under the default device meta torch.asarray gives a meta tensor, as torch.as_tensor does"
with torch.device("meta"):
    on_meta_default_ = torch.as_tensor(array), torch.from_numpy(array)
assert on_meta_default_[0].is_meta and on_meta_default_[1].device.type == "cpu" and shares(on_meta_default_[1], array), (
    "under the default device meta torch.as_tensor gives a meta tensor and torch.from_numpy still shares")
assert shares(t, t.numpy()) and shares(t, np.asarray(t)), "t.numpy() and np.asarray(t) share t's memory"
assert shares(via_dlpack, dlpack_array) and dlpack_array[0] == via_dlpack[0] == 42.0, (
    "torch.from_dlpack shares the array's memory: an edit of the tensor shows in the array")
for dlpack_dtype_shared in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                           "float16", "float32", "float64", "complex64", "complex128"):
    dlpack_whole = array.astype(dlpack_dtype_shared)
    assert shares(torch.from_dlpack(dlpack_whole), dlpack_whole) and shares(
        torch.from_dlpack(dlpack_whole[::2]), dlpack_whole[::2]
    ), "torch.from_dlpack uses the memory of an unflipped array, whole or sliced, of each dtype DLPack carries"
packed_record = array.astype([("a", "<f4"), ("b", "i1")])
assert packed_record["a"].strides == packed_record["b"].strides == (5,), (
    "each field of the packed record steps 5 bytes")
assert shares(torch.from_dlpack(packed_record["b"]), packed_record["b"]), (
    "torch.from_dlpack uses the memory of the int8 field of a packed float32 and int8 record")
for dlpack_refused_array in (array.astype(">f4"), packed_record["a"],
                             array.astype(object), array.astype("int64").astype("datetime64[s]")):
    try:
        torch.from_dlpack(dlpack_refused_array)
    except BufferError as refusal:
        assert "DLPack only supports" in str(refusal), "NumPy says which arrays DLPack takes"
    else:
        raise AssertionError("from_dlpack of an array in the other byte order, the float32 field of a packed "
                             "float32 and int8 record, or an object or datetime64 array must raise BufferError")
assert not shares(torch.as_tensor(array, dtype=torch.float64), array), "a dtype change forces a copy"
assert [record.category for record in caught] == (
    [DeprecationWarning] if int(np.__version__.split(".")[0]) >= 2 else []
), "np.array(t) warns once with NumPy 2 (its copy keyword), never with NumPy 1"
import inspect

assert "copy" not in inspect.signature(torch.Tensor.__array__).parameters and all(
    "doesn't accept a copy keyword" in str(record.message) for record in caught
), "Tensor.__array__ takes no copy keyword, which is what NumPy 2 warns about"
for lacking in (object, "datetime64[D]"):
    for from_array in (torch.from_numpy, torch.as_tensor):
        try:
            from_array(np.array(["2020-01-01"], dtype=lacking))
        except TypeError as refusal:
            assert "can't convert np.ndarray" in str(refusal), (
                f"{from_array.__name__} says it can't convert a {lacking} array")
        else:
            raise AssertionError(f"{from_array.__name__} of a {lacking} array must raise TypeError")
for zero_d_dtype_ in ("float32", "float64", "int64", "bool", "complex64"):
    zero_d_ = np.array(5, dtype=zero_d_dtype_).copy()
    assert shares(torch.from_numpy(zero_d_), zero_d_) and shares(torch.as_tensor(zero_d_), zero_d_) and shares(
        torch.as_tensor(zero_d_, device="cpu"), zero_d_), "torch.from_numpy and torch.as_tensor share a 0-d array's memory"
    assert not any(shares(torch.asarray(zero_d_, **options_), zero_d_) for options_ in (
        {}, {"device": "cpu"}, {"copy": False}, {"device": "cpu", "copy": False})), (
        "torch.asarray never shares a 0-d array's memory")
    for default_device_ in ("cpu", "cpu:0", "meta"):
        with torch.device(default_device_):
            assert not any(shares(torch.asarray(zero_d_, **options_), zero_d_) for options_ in (
                {}, {"device": "cpu"}, {"device": "cpu", "copy": False})), (
                "under any default device, torch.asarray never shares a 0-d array's memory")
            from_zero_d_ = torch.asarray(zero_d_, device="cpu", copy=False)
        assert from_zero_d_.device.type == "cpu" and not shares(from_zero_d_, zero_d_) and torch.equal(
            from_zero_d_, torch.from_numpy(zero_d_)), (
            'under any default device, torch.asarray(a 0-d array, device="cpu", copy=False) returns a copy without raising')
for shared_dtype_ in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                      "float16", "float64", "complex64", "complex128"):
    typed_array_ = array.astype(shared_dtype_)
    assert all(shares(convert_(typed_array_), typed_array_) for convert_ in (torch.from_numpy, torch.as_tensor,
                                                                             torch.asarray)), (
        "torch.from_numpy, torch.as_tensor and torch.asarray share the memory of an array of each dtype torch has")
    typed_tensor_ = torch.from_numpy(typed_array_).clone()
    assert shares(typed_tensor_, np.asarray(typed_tensor_)), "np.asarray shares the memory of a tensor of each dtype NumPy has"
ulonglong_array_ = array.astype("Q")
assert ulonglong_array_.dtype.char == "Q" and ulonglong_array_.dtype == "uint64" and array.astype("uint64").dtype.char == "L", (
    'a ulonglong array\'s dtype ("Q") equals np.dtype(np.uint64), which is ulong ("L")')
for convert_ in (torch.from_numpy, torch.as_tensor, torch.asarray, torch.tensor):
    try:
        convert_(ulonglong_array_)
    except TypeError as refusal:
        assert "numpy.ulonglong" in str(refusal), "the refusal names numpy.ulonglong"
    else:
        raise AssertionError(f"{convert_.__name__} of a ulonglong array must raise TypeError")
assert all(shares(convert_(ulonglong_array_.view("uint64")), ulonglong_array_) for convert_ in (
    torch.from_numpy, torch.as_tensor, torch.asarray)) and shares(torch.from_dlpack(ulonglong_array_), ulonglong_array_), (
    "torch.from_numpy, torch.as_tensor and torch.asarray share a ulonglong array viewed as np.uint64, "
    "and torch.from_dlpack shares it as it is")
# sphinx_gallery_end_ignore

# %%
# 翻转过的数组：“At least one stride in the given numpy array is negative”
# ------------------------------------------------------------------------
#
# 在 NumPy 里翻转一个轴（``np.flip``，或者用 ``image[..., ::-1]`` 把 OpenCV 的 BGR 转成 RGB），得到的是步长为负的视图（view）。
# torch 没有负步长，``torch.from_numpy``、``torch.as_tensor``、``torch.tensor``、``torch.asarray`` 对 torch 有的 dtype，这四个构造函数都以 ``ValueError`` 拒绝这样的数组，除非它是空的。``torch.tensor`` 本来就要复制，也照样拒绝。对字节序与本机不同的数组（这里是 ``">f4"``），以及步长不是元素大小整数倍的数组（例如上面那个紧凑记录的 ``float32`` 字段），这四个函数同样拒绝。``torch.from_dlpack`` 会以 ``BufferError`` 拒绝字节序与本机不同，或 dtype 不受 DLPack 支持（例如 ``datetime64``）的翻转数组，但不拒绝字节序与本机相同、dtype 受 DLPack 支持的翻转数组：在 torch 2.13.0 上，这样的数组沿元素不止一个的维翻转，会让它直接中止进程；沿只有一个元素的维翻转的数组（比如 ``np.arange(1.0)[::-1]``）和空数组，它照常接受。所以下面最后几行在 fork 出来的子进程里调用它，退出码 ``-signal.SIGABRT`` 就是进程被中止。交给 DLPack 之前，先复制数组。
# :fact:`from-dlpack-aborts-on-flipped-array`

image = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
odd_arrays = {
    "image[..., ::-1]": image[..., ::-1],
    "np.flip(image, 0)": np.flip(image, 0),
    "np.arange(1.0)[::-1]": np.arange(1.0)[::-1],
    "image.astype('>f4')": image.astype(">f4"),
    "packed['a']": np.zeros(3, dtype=[("a", "<f4"), ("b", "i1")])["a"],
}
constructors = (torch.from_numpy, torch.as_tensor, torch.tensor, torch.asarray)
for name, odd in odd_arrays.items():
    messages = set()
    for convert in constructors:
        try:
            convert(odd)
        except ValueError as e:
            messages.add(str(e).split(",")[0])
        else:
            raise AssertionError(f"{convert.__name__} must refuse {name}")
    (message,) = messages
    print(f"{name}: all four raise ValueError: {message}")
empty = np.arange(0.0)[::-1]
print("an empty flipped array is taken by all four:", all(convert(empty).numel() == 0 for convert in constructors))
assert all(convert(empty).numel() == 0 for convert in constructors), "an empty flipped array is taken"
# sphinx_gallery_start_ignore
for torch_has_ in ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16",
                   "float32", "float64", "complex64", "complex128"):
    for convert_ in constructors:
        try:
            convert_(np.array([1, 0], dtype=torch_has_).copy()[::-1])
        except ValueError as e:
            assert "negative" in str(e), "a flipped array of each dtype torch has is refused for its negative stride"
        else:
            raise AssertionError("each of the four constructors must refuse a flipped array of each dtype torch has")
        assert convert_(np.array([], dtype=torch_has_).copy()[::-1]).numel() == 0, (
            "each of the four constructors takes an empty flipped array of each dtype torch has")
# sphinx_gallery_end_ignore

exit_codes = {}
for name, flipped in {"image[..., ::-1]": image[..., ::-1], "np.arange(1.0)[::-1]": np.arange(1.0)[::-1],
                      "np.arange(0.0)[::-1]": empty}.items():
    child = torch.multiprocessing.get_context("fork").Process(target=torch.from_dlpack, args=(flipped,))
    child.start()
    child.join(10)
    exit_codes[name] = child.exitcode
    print(f"torch.from_dlpack({name}) in a forked child, exit code:", child.exitcode)
assert list(exit_codes.values()) == [-signal.SIGABRT, 0, 0], (
    "from_dlpack aborts the process on image[..., ::-1] and takes the one-element and the empty flipped array")
# sphinx_gallery_start_ignore
for dlpack_dtype in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                     "float32", "float64", "complex64", "complex128"):
    for length, dlpack_exit in ((6, -signal.SIGABRT), (1, 0), (0, 0)):
        dlpack_child = torch.multiprocessing.get_context("fork").Process(
            target=torch.from_dlpack, args=(image.astype(dlpack_dtype).reshape(-1)[:length][::-1],))
        dlpack_child.start()
        dlpack_child.join(10)
        assert dlpack_child.exitcode == dlpack_exit, (
            "from_dlpack aborts the process on a flipped array of six elements of each dtype DLPack carries, "
            "in native byte order, and takes one of one element or an empty one")
for refused_dtype in (">i2", ">u2", ">i4", ">u4", ">i8", ">u8", ">f2", ">f4", ">f8", ">c8", ">c16",
                      "datetime64[s]", "timedelta64[s]", "U1", object):
    try:
        torch.from_dlpack(image.astype("int64").astype(refused_dtype).reshape(-1)[:6][::-1])
    except BufferError as refusal:
        assert "DLPack only supports" in str(refusal), "NumPy says which arrays DLPack takes"
    else:
        raise AssertionError("from_dlpack of a flipped array in the other byte order or of a dtype DLPack lacks "
                             "must raise BufferError")
# sphinx_gallery_end_ignore

# %%
# 拒绝与 dtype 无关，构造函数的参数也解除不了：再拿五种 dtype 的翻转数组和五种字节序的数组，分别交给四个构造函数，并加上 ``copy=True`` 或指定 ``dtype`` 再试。


def refuses(convert, array, **options):
    try:
        convert(array, **options)
    except ValueError:
        return True
    return False


others = [np.array([1, 0, 1], dtype=flipped_dtype)[::-1] for flipped_dtype in ("int64", "bool", "complex64", "float16", "uint8")]
others += [np.array([1, 0, 1], dtype=order) for order in (">f8", ">i8", ">i4", ">c8", ">f2")]
tries = [(convert, {}) for convert in constructors] + [
    (torch.asarray, {"copy": True}),
    (torch.asarray, {"dtype": torch.float64}),
    (torch.tensor, {"dtype": torch.float64}),
    (torch.as_tensor, {"dtype": torch.float64}),
]
every_refusal = all(refuses(convert, odd, **options) for odd in others for convert, options in tries)
print(f"{len(others)} arrays x {len(tries)} calls, all refused: {every_refusal}")
assert every_refusal, "every dtype, byte order and option is refused"

# %%
# 解决办法是得到一份步长为正的副本：由 NumPy 来复制（``.copy()`` 或 ``np.ascontiguousarray``），或者先把没翻转的数组变成张量，再由 torch 翻转（torch 没有负步长，所以 ``flip`` 会复制）。每种做法得到的都是翻转后的值，内存是自己的，往里写不会改动 ``image``。

flipped_values = image[..., ::-1].tolist()
fixes = {
    "torch.from_numpy(image[..., ::-1].copy())": lambda: torch.from_numpy(image[..., ::-1].copy()),
    "torch.from_numpy(np.ascontiguousarray(image[..., ::-1]))": lambda: torch.from_numpy(
        np.ascontiguousarray(image[..., ::-1])
    ),
    "torch.from_numpy(image).flip(-1)": lambda: torch.from_numpy(image).flip(-1),
}
for name, fix in fixes.items():
    fixed = fix()
    same_values = fixed.tolist() == flipped_values
    fixed[0, 0, 0] = -1.0
    untouched = bool((image >= 0).all())
    print(f"{name}: the flipped values {same_values}, image untouched after a write {untouched}")
    assert same_values and untouched, f"{name} is a flipped copy"
# sphinx_gallery_start_ignore
assert all(convert_(packed_record["a"].copy()).tolist() == [1.0, 2.0, 3.0] for convert_ in constructors), (
    "the four constructors take a NumPy copy of the float32 field of a packed record")
# sphinx_gallery_end_ignore

# %%
# 字节序与本机不同的数组，光复制不够：``.copy()`` 和 ``np.ascontiguousarray`` 都保留它的 dtype ``">f4"``，字节序也一并保留，四个构造函数照样拒绝这份副本。``array.astype(array.dtype.newbyteorder("="))`` 把它转成本机字节序，这四个函数就接受了。

big_endian = image.astype(">f4")
copies = {".copy()": big_endian.copy(), "np.ascontiguousarray": np.ascontiguousarray(big_endian)}
for name, copied in copies.items():
    print(f"{name}: dtype {copied.dtype.str}, refused by all four: {all(refuses(c, copied) for c in constructors)}")
native = big_endian.astype(big_endian.dtype.newbyteorder("="))
print("astype(dtype.newbyteorder('=')): dtype", native.dtype.str, " the values of image:",
      torch.equal(torch.from_numpy(native), torch.from_numpy(image)))  # fmt: skip
assert all(refuses(c, copied) for copied in copies.values() for c in constructors) and torch.equal(
    torch.from_numpy(native), torch.from_numpy(image)
), "a NumPy copy keeps the byte order; astype(dtype.newbyteorder('=')) converts it"
# sphinx_gallery_start_ignore
for order_ in [big_endian, big_endian[..., ::-1]] + others[5:]:
    for kept_ in (order_.copy(), order_.astype(order_.dtype)):
        assert kept_.dtype == order_.dtype and all(refuses(convert_, kept_) for convert_ in constructors), (
            "a NumPy copy of an array in the other byte order keeps its dtype, and the four constructors refuse it")
    native_ = order_.astype(order_.dtype.newbyteorder("="))
    assert all(convert_(native_).tolist() == order_.tolist() for convert_ in constructors), (
        'the four constructors take array.astype(array.dtype.newbyteorder("=")), with the array\'s values')
assert shares(torch.from_numpy(native), native), "torch.from_numpy shares the converted array's memory"
# sphinx_gallery_end_ignore

# %%
# 写入数组、重新绑定数组，以及 ``tolist()``
# -----------------------------------------
#
# 原博文讲张量时给出的规则（见 :ref:`“名字分开了，计算图还连着”那一页 <copying-add-rebinding>`），对与张量共享内存的 NumPy 数组同样成立：
# ``array += 1`` 写进共享的内存，张量随之改变；``array = array + 1`` 则新建一个数组，再让这个名字指向它，也就是重新绑定（rebinding），张量保持原来的值。``tolist()`` 把值复制成 Python 数字，之后再改张量，列表不受影响。

array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
shared = torch.from_numpy(array)
array += 1
print("after array += 1:       ", shared)
assert shared.tolist() == [2.0, 3.0, 4.0], "+= writes into the memory the tensor shares"
array = array + 1
print("after array = array + 1:", shared, " array:", array)
assert shared.tolist() == [2.0, 3.0, 4.0] and array.tolist() == [3.0, 4.0, 5.0], "the name moved, the tensor did not"
values = shared.tolist()
shared.mul_(10)
print("tolist() before shared.mul_(10):", values)
assert values == [2.0, 3.0, 4.0], "tolist() kept [2, 3, 4] after shared.mul_(10)"

# %%
# 在 CPU 上也会复制的转换
# -----------------------
#
# 要求换一种 dtype 就会复制，两个方向都一样。设置了共轭位的复数张量（``conj()`` 返回的就是这种张量）在
# NumPy 里没有对应物：``numpy()`` 会报错，``numpy(force=True)`` 则先在一份副本里把共轭实际算出来。
wide = torch.as_tensor(array, dtype=torch.float64)
print("torch.as_tensor(array, dtype=torch.float64) shares:", shares(wide, array))
print("np.asarray(t, dtype=np.float64) shares:", shares(t, np.asarray(t, dtype=np.float64)))
z = torch.tensor([1 + 2j, 3 - 1j]).conj()
try:
    z.numpy()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("numpy() on a tensor with the conjugate bit set must raise")
resolved = z.numpy(force=True)
print("z.is_conj():", z.is_conj(), " z.numpy(force=True):", resolved, " shares:", shares(z, resolved))
assert not shares(wide, array) and not shares(z, resolved), "a dtype change and a conjugate bit copy"
# sphinx_gallery_start_ignore
assert not shares(t, np.asarray(t, dtype=np.float64)), "np.asarray with another dtype copies"
assert z.is_conj() and torch.equal(torch.from_numpy(resolved), z.resolve_conj()), "force=True resolves the bit"
try:
    np.asarray(z)
except RuntimeError as e:
    assert "conjugate bit set" in str(e), "np.asarray refuses a conjugate-bit tensor like numpy()"
else:
    raise AssertionError("np.asarray of a conjugate-bit tensor must raise")
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    NumPy 数组无法直接建在 CUDA 张量的内存上：``numpy()`` 会报错，并提示先用 ``Tensor.cpu()``；``numpy(force=True)``
#    会复制到 CPU 内存。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    g = torch.tensor([1.0, 2.0, 3.0], device="cuda")
    try:
        g.numpy()
    except TypeError as e:
        gpu_message = str(e)
        print(f"{type(e).__name__}: {e}")
    else:
        raise AssertionError("numpy() on a CUDA tensor must raise")
    host = g.numpy(force=True)
    print("g.numpy(force=True):", host)
    assert "Tensor.cpu()" in gpu_message and np.array_equal(host, g.cpu().numpy()), "points to cpu(); force copies"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# ``np.asarray`` 不接受的张量
# ---------------------------
#
# 只有 NumPy 能原样接受的张量，``np.asarray`` 才会与它共享内存。梯度模式开启时（这里就是），对需要梯度的张量，它和 ``numpy()``
# 一样报错（在 ``torch.no_grad()`` 下两者都接受，见上文）；对 ``bfloat16`` 张量也报错（NumPy 没有这种 dtype）；对设置了负号位的张量（``conj().imag``
# 返回的就是这种张量）同样报错，``numpy(force=True)`` 则会在一份副本里把取负实际算进数值。

refused = {
    "requires grad": torch.ones(3, requires_grad=True),
    "bfloat16": torch.ones(3, dtype=torch.bfloat16),
    "negative bit, conj().imag": torch.tensor([1 + 2j, 3 - 1j]).conj().imag,
}
for name, x in refused.items():
    try:
        np.asarray(x)
    except (RuntimeError, TypeError) as e:
        print(f"np.asarray, {name}: {type(e).__name__}: {e}")
    else:
        raise AssertionError(f"np.asarray of a tensor with {name} must raise")
negative = refused["negative bit, conj().imag"]
print("negative.is_neg():", negative.is_neg(), " numpy(force=True):", negative.numpy(force=True))
# sphinx_gallery_start_ignore
assert negative.is_neg() and not shares(negative, negative.numpy(force=True)), "force=True resolves the bit"
assert np.array_equal(negative.numpy(force=True), np.array([-2.0, 1.0], dtype=np.float32)), (
    "numpy(force=True) of conj().imag holds [-2, 1]")
try:
    negative.numpy()
except RuntimeError as e:
    assert "negative bit set" in str(e), "numpy() refuses a negative-bit tensor"
else:
    raise AssertionError("numpy() on a tensor with the negative bit set must raise")
# sphinx_gallery_end_ignore

# %%
# 经由 NumPy 的写入，自动求导看不见
# ---------------------------------
#
# 计算 ``w`` 的梯度要用 ``x``，所以 ``z = w * x`` 保存了 ``x``。如果在 torch 里原地（in-place）修改 ``x``，``x._version``
# 会增加，``backward()`` 会报错（见 :ref:`“原地修改报错”那一页 <questions-inplace-error>`）。同样的修改经由 ``x.numpy()``
# 完成，计数器却不动：``backward()`` 照常运行，用的是改过的值。按求导公式，``d/dw sum(w * x) = x``，即相乘时的
# ``[4, 5, 6]``；得到的梯度却不是它。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
x.numpy()[0] = 100.0
print("x:", x, " x._version:", x._version)
z.sum().backward()
print("w.grad:", w.grad)
assert x._version == 0 and w.grad[0] == 100.0, "the NumPy write went unseen and changed the gradient"

# %%
# .. figure-caption::
#    :alt: 示意图：名字 x 和 w.grad 指向两块存储上的两个张量对象；x 的值是 100.0、5.0、6.0，_version=0；w.grad 的值是 100.0、5.0、6.0。
#
#    ``x`` 里已是 ``100.0``，版本仍是 ``_version=0``：通过 NumPy 的写入没有被计数，``w.grad`` 用的是改过的值。

draw_memory("x.numpy()[0] = 100.0; z.sum().backward()", x=x, **{"w.grad": w.grad})

# %%
# 解决办法
# --------
#
# 写进一份副本：``x.detach().numpy().copy()`` 是一个独立的数组，自动求导保存的张量保持原值，梯度也就是按求导公式算出的结果。
# ``x`` 不需要梯度；有了 ``detach()``，同一行代码对需要梯度的张量也能用。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
edited = x.detach().numpy().copy()
edited[0] = 100.0
z.sum().backward()
print("x:", x, " edited:", edited)
print("w.grad:", w.grad)
assert torch.equal(w.grad, torch.tensor([4.0, 5.0, 6.0])), "the gradient uses x as it was"
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.func.grad(lambda v: (v * torch.tensor([4.0, 5.0, 6.0])).sum())(w.detach())), (
    "w.grad is what torch.func.grad computes from x's old values")
assert not shares(w, w.detach().numpy().copy()), "the same line copies a tensor that requires grad"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 对嵌套张量、定义了 ``__torch_dispatch__`` 的张量子类的实例，以及函数在 ``torch.func.vmap`` 或 ``torch.func.grad`` 里收到的张量，``detach().numpy()``、``numpy(force=True)`` 和 ``np.asarray`` 都会报错；下面说的是其他张量，且都在经 ``torch.func`` 变换的函数之外。对 CPU 上维数不超过 NumPy 上限（本站构建所用的 NumPy 2 是 64）的稠密张量（维数更多时，``detach().numpy()``、``numpy(force=True)`` 和 ``np.asarray`` 都会抛出 ``ValueError``）和 dtype 相同的数组，``detach().numpy()``、``numpy(force=True)``、``torch.from_numpy``、
# ``torch.as_tensor`` 和 ``torch.asarray`` 都共享内存（后两者在其 ``device=`` 参数指定了 ``"cpu"`` 以外的设备时除外，即使是 ``"cpu:0"``；不给 ``device=`` 时，设置了 ``"cpu"`` 以外的默认设备也除外；``torch.asarray`` 遇到 0 维数组也会复制）；张量不需要梯度时，``np.asarray`` 也共享内存。``torch.tensor`` 和 ``np.array`` 会复制。非空的翻转数组、字节序与本机不同的数组、步长不是元素大小整数倍的数组（例如由一个 ``float32`` 和一个 ``int8`` 组成的紧凑记录的 ``float32`` 字段），以及 NumPy 的 ``ulonglong`` 类型（dtype 字符 ``"Q"``，尽管其 dtype 是 ``uint64``）的数组，构造函数 ``torch.from_numpy``、``torch.as_tensor``、``torch.tensor`` 和 ``torch.asarray`` 都会拒绝（在 torch 2.13.0 上，``torch.from_dlpack`` 遇到字节序与本机相同、dtype 受 DLPack 支持、沿元素不止一个的维翻转的数组，会让进程中止）：翻转数组和这种字段，先用 NumPy 复制（翻转数组也可以改在 torch 里翻转）；字节序与本机不同的数组，要用 ``array.astype(array.dtype.newbyteorder("="))`` 转成本机字节序，因为 NumPy 复制时保留原来的字节序；``ulonglong`` 数组则先用 ``view`` 看作 ``np.uint64``。对稀疏张量，``detach().numpy()``、``numpy(force=True)`` 和 ``np.asarray`` 都会报错。``numpy()`` 和 ``np.asarray`` 只在 ``torch.is_grad_enabled()`` 为 ``True`` 时才拒绝需要梯度的张量（在 ``torch.inference_mode()`` 里用 ``torch.enable_grad()`` 打开后也算）：单用 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 时，它们共享张量的内存，通过数组的写入不会被版本计数器（version counter）记下。换 dtype 也会复制，而 ``bfloat16`` 张量在 NumPy 里根本没有对应的 dtype。对设置了共轭位或负号位的张量，``numpy()``
# 和 ``np.asarray`` 会报错，``numpy(force=True)`` 会复制。（GPU 张量的情况见上面的框。）经由共享数组的写入，实实在在地改了张量，自动求导却毫不知情。要么先复制再写，要么在 torch 里修改，让版本计数器看得见。
