"""
.. _questions-torch-func:

“accessing ``data`` under vmap transform is not allowed”：``torch.func`` 与复制
===============================================================================

.. admonition:: 答案
   :class: answer

   ``vmap`` 是最内层的变换时，函数拿到的是批量张量，它没有自己的内存；``vmap`` 拒绝读取它的 ``.data``，``item()``、``tolist()`` 和
   ``numpy()`` 也一样；``detach()`` 可以用。把代码里的 ``.data`` 换成 ``detach()``：

   .. code-block:: python

      def scale(t):
          return t.detach() * 2

``torch.func`` 在你交给它的张量上运行模块或函数。本页检查它复制了什么、共享了什么：``functional_call``
原样使用字典里的张量，字典里没有的就用模块自己的（模块中被字典替换的张量不受影响，但在模块里出现两次的层除外（本页试的是它的权重）：能正常运行的调用，只有在 ``tie_weights=False`` 且字典里只有两个名字之一时，才把层自己的权重换回来；字典里两个名字都有时，这样的调用结束后，字典里排在后面的那个名字下放的是层自己的权重，排在前面的那个名字下放的是原先在后一个名字下传入的张量；梯度和缓冲区的原地（in-place）更新落在张量所在的地方：字典里有它就落在字典里，没有就落在模块里；默认情况下，与字典里某个权重共享的权重也用字典里的张量），``torch.func.grad`` 不需要
``requires_grad``，而 ``vmap`` 作为最内层的变换时，会拒绝批量张量的 ``.data``，本页试过的调用中，凡是要把批量张量变成 Python 数值或数组，或者要交出它的内存的，也都会被拒绝。最后用一个循环训练字典里的参数。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import numpy as np
import torch
from torch.func import functional_call, grad, vmap


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
# 为普通张量写的代码常常读 ``.data``。放到 ``vmap`` 之下，``vmap`` 又是最内层的变换时，就会报错：函数拿到的是一个同时代表多行数据的批量张量（默认情况下，一次调用就代表整批数据的每一行）。

batch = torch.arange(6.0).reshape(2, 3)


def scale_data(t):
    return t.data * 2


try:
    vmap(scale_data)(batch)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError(".data under vmap must raise")
assert message == "accessing `data` under vmap transform is not allowed", (
    "vmap raised 'accessing `data` under vmap transform is not allowed'")
# sphinx_gallery_start_ignore
try:
    vmap(scale_data, chunk_size=1)(batch)
except RuntimeError as refusal:
    assert str(refusal) == message, "vmap(f, chunk_size=1) refuses .data with the same message"
else:
    raise AssertionError(".data under vmap(f, chunk_size=1) must raise")
# sphinx_gallery_end_ignore

# %%
# ``vmap(grad(f))`` 里的 ``.data``
# --------------------------------
#
# ``vmap`` 是包在函数外面最内层的变换时会拒绝 ``.data``：上面的 ``vmap(f)`` 是这样，下面的 ``vmap(vmap(f))`` 和 ``grad(vmap(f))`` 也是。逐样本求梯度的常用写法 ``vmap(grad(f))`` 里，最内层是 ``grad``：``f`` 里的 ``.data`` 能运行，得到的是每一行的值，而 ``item()`` 仍会报错。

nested = {
    "vmap(vmap(f))": lambda: vmap(vmap(scale_data))(batch.reshape(2, 1, 3)),
    "grad(vmap(f))": lambda: grad(lambda w: vmap(scale_data)(w).sum())(batch),
}
for name, f in nested.items():
    try:
        f()
    except RuntimeError as e:
        print(f"{name}: {type(e).__name__}: {e}")
        assert str(e) == message, f"{name} refuses .data with the same message"
    else:
        raise AssertionError(f"{name} must refuse .data: vmap is the innermost transform")


def loss_and_data(t):
    return (t * t).sum(), t.data


_, seen = vmap(grad(loss_and_data, has_aux=True))(batch)
print("vmap(grad(f)), t.data in f:", seen)
assert torch.equal(seen, batch), "in vmap(grad(f)), .data in f runs and gives each row's values"
try:
    vmap(grad(lambda t: t.sum() * t.sum().item()))(batch)
except RuntimeError as e:
    print(f"vmap(grad(f)), t.item(): {type(e).__name__}: {str(e).splitlines()[0]}")
else:
    raise AssertionError("item() in vmap(grad(f)) must raise")

# %%
# ``vmap`` 还拒绝什么
# -------------------
#
# 下面这些也都报错：``item()``、``tolist()``、``numpy()`` 和 ``np.asarray(t)``，它们要把批量张量变成 Python 数值或数组；``data_ptr()``、
# ``untyped_storage()``、``__dlpack__()`` 和 ``torch.utils.dlpack.to_dlpack(t)``，它们要交出它的内存；还有给 ``.data`` 赋值。``detach()``、``clone()`` 和对不需要梯度的张量做的原地
# ``add_`` 都能运行（``add_`` 写进了传给 ``vmap`` 的张量）。读取张量布局的操作也并非都会报错：``stride()`` 和 ``storage_offset()`` 可以运行，给出的是第一行（``batch[0]``）的值，每一行都一样：默认（``chunk_size=None``）时函数对整批只运行一次。``vmap(f, chunk_size=k)``
# 则每 ``k`` 行为一块，每块运行一次函数，每次读到的是这一块第一行的值：``chunk_size=1`` 时，读到的就是每一行自己的值。``repr()`` 也能运行，显示的是一个 ``BatchedTensor``。

calls = {
    "t.item()": lambda t: t.sum().item(),
    "t.tolist()": lambda t: t.tolist(),
    "t.numpy()": lambda t: t.numpy(),
    "np.asarray(t)": lambda t: np.asarray(t),
    "t.data_ptr()": lambda t: t.data_ptr(),
    "t.untyped_storage()": lambda t: t.untyped_storage(),
    "t.__dlpack__()": lambda t: t.__dlpack__(),
    "to_dlpack(t)": lambda t: torch.utils.dlpack.to_dlpack(t),
    "t.data = ...": lambda t: setattr(t, "data", torch.zeros(3)),
}
for call, f in calls.items():
    try:
        vmap(f)(batch.clone())
    except (RuntimeError, NotImplementedError) as e:
        print(f"{call}: {type(e).__name__}: {str(e).splitlines()[0]}")
    else:
        raise AssertionError(f"{call} under vmap must raise")
for call, f in {"t.detach()": lambda t: t.detach(), "t.clone()": lambda t: t.clone()}.items():
    print(f"{call}: runs, returns", vmap(f)(batch))
edited = batch.clone()
vmap(lambda t: t.add_(1))(edited)
print("t.add_(1) on edited:", edited)
assert not edited.requires_grad and torch.equal(edited, batch + 1), (
    "an in-place add_ under vmap wrote into the tensor given to vmap, which does not require grad")
layout = {}


def read_layout(t):
    layout.update(stride=t.stride(), storage_offset=t.storage_offset(), repr=repr(t))
    return t.clone()


vmap(read_layout)(batch)
print("t.stride():", layout["stride"], " t.storage_offset():", layout["storage_offset"],
      " repr(t) starts:", layout["repr"].split("(")[0])  # fmt: skip
assert (layout["stride"], layout["storage_offset"]) == (batch[0].stride(), batch[0].storage_offset()), (
    "inside vmap, t has the first row's stride and storage offset")
assert layout["repr"].startswith("BatchedTensor("), "repr() ran under vmap and names the batched tensor"
# sphinx_gallery_start_ignore
offsets_read = []
vmap(lambda t: offsets_read.append(t.storage_offset()) or t.clone())(batch)
assert offsets_read == [batch[0].storage_offset()] != [batch[1].storage_offset()], (
    "by default vmap ran the function once for the whole batch, and it read the first row's offset")
for refused_call, refused_f in calls.items():
    try:
        vmap(refused_f, chunk_size=1)(batch.clone())
    except (RuntimeError, NotImplementedError):
        pass
    else:
        raise AssertionError(f"{refused_call} under vmap(f, chunk_size=1) must raise")
# sphinx_gallery_end_ignore
chunk_offsets = []
vmap(lambda t: chunk_offsets.append(t.storage_offset()) or t.clone(), chunk_size=1)(batch)
print("storage_offset() per call, chunk_size=1:", chunk_offsets)
# sphinx_gallery_start_ignore
assert chunk_offsets == [row.storage_offset() for row in batch], (
    "with chunk_size=1, vmap ran the function once per row, and each call read its row's offset")
four_rows = torch.arange(12.0).reshape(4, 3)
chunk_reads = []
vmap(lambda t: chunk_reads.append((t.stride(), t.storage_offset(), repr(t))) or t.clone(), chunk_size=2)(four_rows)
assert [(stride, offset) for stride, offset, _ in chunk_reads] == [
    (four_rows[0].stride(), four_rows[0].storage_offset()), (four_rows[2].stride(), four_rows[2].storage_offset())
], "with chunk_size=2, vmap ran the function once per chunk of 2 rows, and each call read its chunk's first row"
assert all(shown.startswith("BatchedTensor(") for _, _, shown in chunk_reads), "repr() shows a BatchedTensor per chunk"
# sphinx_gallery_end_ignore

# %%
# 解决办法
# --------
#
# ``detach()`` 给出同样的值，只是不带计算图，``vmap`` 接受它：每一行都乘以 2，和逐行循环的结果一样。


def scale(t):
    return t.detach() * 2


scaled = vmap(scale)(batch)
print("scaled:", scaled)
assert torch.equal(scaled, torch.stack([row * 2 for row in batch])), "the same as a loop over rows"
# sphinx_gallery_start_ignore
assert torch.equal(vmap(scale, chunk_size=1)(batch), scaled), "vmap(f, chunk_size=1) accepts detach() too"
assert torch.equal(vmap(vmap(scale))(batch.unsqueeze(1)), scaled.unsqueeze(1)), "vmap(vmap(f)) accepts detach() too"
assert torch.equal(grad(lambda b: vmap(scale)(b).sum())(batch), torch.zeros_like(batch)), (
    "grad(vmap(f)) accepts detach() too, and no gradient flows back through it")
# sphinx_gallery_end_ignore

# %%
# 把每行的值写进函数里新建的张量
# ------------------------------
#
# 函数凭空新建的张量（``torch.zeros(2)``）不是批量张量：在 ``vmap`` 下它是这次调用所处理的各行共享的一个张量，装不下每一行各自的值。把由这一行算出的值原地写进去会报错：下面的 ``copy_``、``out[:] = ...``、``add_`` 和 ``mul_`` 都会报错，报错信息是两种之一。写入与这一行无关的值则没有问题。

rows = torch.arange(6.0).reshape(3, 2)
scale = torch.tensor([1.0, 2.0])


def write_copy(x):
    out = torch.zeros(2)
    out.copy_(x * scale)
    return out


def write_index(x):
    out = torch.zeros(2)
    out[:] = x * scale
    return out


def write_add(x):
    out = torch.zeros(2)
    out.add_(x * scale)
    return out


def write_mul(x):
    out = torch.ones(2)
    out.mul_(x * scale)
    return out


for name, f in {"copy_": write_copy, "out[:] = ...": write_index, "add_": write_add, "mul_": write_mul}.items():
    try:
        vmap(f)(rows)
    except RuntimeError as e:
        first = str(e).split(". ")[0]
        print(f"{name}: {type(e).__name__}: {first}")
        assert first.startswith(
            ("vmap: inplace arithmetic(self, *extra_args) is not possible", "output with shape")
        ), f"{name} of a row's value into torch.zeros(2) raises one of the two messages"
    else:
        raise AssertionError(f"{name} of a batched value into torch.zeros(2) must raise under vmap")
unbatched = vmap(lambda x: torch.zeros(2).add_(1.0) + x)(rows)
print("an unbatched value written into torch.zeros(2):", unbatched)
assert torch.equal(unbatched, rows + 1), "writing an unbatched value works"
# sphinx_gallery_start_ignore
chunked_writes = {"copy_": write_copy, "out[:] = ...": write_index, "add_": write_add, "mul_": write_mul}
for chunked_name, chunked_f in chunked_writes.items():
    try:
        vmap(chunked_f, chunk_size=2)(rows)
    except RuntimeError as refusal:
        assert str(refusal).startswith(
            ("vmap: inplace arithmetic(self, *extra_args) is not possible", "output with shape")
        ), f"{chunked_name} of a row's value into torch.zeros(2) raises one of the two messages with chunk_size=2"
    else:
        raise AssertionError(f"{chunked_name} of a batched value into torch.zeros(2) must raise with chunk_size=2")
# sphinx_gallery_end_ignore


# %%
# 解决办法是从输入新建张量，让 ``vmap`` 也把它变成批量张量（``x.new_zeros(2)``、``torch.zeros_like(x)``），或者不往张量里写，直接构造结果（``torch.stack``）。这几种写法都让每一行得到自己的结果。

fixes = {
    "x.new_zeros(2)": lambda x: x.new_zeros(2).copy_(x * scale),
    "torch.zeros_like(x)": lambda x: torch.zeros_like(x).copy_(x * scale),
    "torch.stack": lambda x: torch.stack([x[0] * scale[0], x[1] * scale[1]]),
}
for name, f in fixes.items():
    result = vmap(f)(rows)
    print(f"{name}: {result.tolist()}")
    assert torch.equal(result, rows * scale), f"{name} gives every row its own result"

# %%
# ``functional_call`` 原样使用字典里的张量
# ----------------------------------------
#
# ``functional_call(module, tensors, args)`` 运行模块时，用字典里的张量代替模块的参数和缓冲区。调用过程中，``model.weight``
# 就是字典里的那个张量本身，而不是副本；调用结束后，模块拿回自己的参数，还是原来的那些对象，原封不动，梯度则流向字典里的张量。

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
weight_param = model.weight
weight_before = model.weight.detach().clone()
tensors = {name: torch.zeros_like(p, requires_grad=True) for name, p in model.named_parameters()}
inside = []
hook = model.register_forward_pre_hook(lambda module, args: inside.append(module.weight))
out = functional_call(model, tensors, (batch,))
hook.remove()
out.sum().backward()
print("inside the call, model.weight is tensors['weight']:", inside[0] is tensors["weight"])
print("after: model.weight is weight_param:", model.weight is weight_param,
      " unchanged:", torch.equal(model.weight, weight_before))
print("after: same storage (model.weight, tensors['weight']):", same_storage(model.weight, tensors["weight"]))
print("tensors['weight'].grad:", tensors["weight"].grad, " model.weight.grad:", model.weight.grad)
assert inside[0] is tensors["weight"] and model.weight is weight_param and torch.equal(model.weight, weight_before), (
    "no copy, and the module has its own parameter object back, unchanged")
# sphinx_gallery_start_ignore
assert model.weight.grad is None, "the module's parameter got no gradient"
assert torch.equal(tensors["weight"].grad, batch.sum(0, keepdim=True)), "d/dW sum(xW^T + b) = sum of the rows"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：tensors['weight'] 和 inside[0]（调用期间模块用的权重）是存储 S1 上的同一个张量对象；model.weight 在自己的存储 S2 上，梯度在第三块存储 S3 上。
#
#    ``inside[0]`` 是调用期间模块用的权重，它就是字典里的 ``tensors['weight']`` 本身，在 ``S1`` 上。模块自己的 ``model.weight`` 在 ``S2`` 上，没有变化；梯度进了字典里的那个张量。

names = {"tensors['weight']": tensors["weight"], "inside[0]": inside[0], "model.weight": model.weight}
draw_memory("functional_call(model, tensors, (batch,))", **names, **{"tensors['weight'].grad": tensors["weight"].grad})
# sphinx_gallery_start_ignore
assert bytes_apart(model.weight, tensors["weight"]), "the module's parameter is separate memory"
# sphinx_gallery_end_ignore

# %%
# 缓冲区在字典里更新
# ------------------
#
# 训练模式下的 ``BatchNorm1d`` 会原地更新它的 ``running_mean``。通过 ``functional_call``
# 把它的状态复制一份传进去，更新的就是字典里的张量，与调用前是同一个对象；模块自己的 ``running_mean`` 仍然是零。字典里没有的缓冲区是模块自己的：只传入参数时，这次调用更新的是 ``norm.running_mean``。字典里没有的参数也是模块自己的，梯度落在模块里；用 ``strict=True`` 时，字典缺了任何参数或缓冲区，``functional_call`` 都会报错。共享权重是这两条的例外（见下一节）。

norm = torch.nn.BatchNorm1d(3)
state = {name: t.clone() for name, t in norm.state_dict().items()}
running_mean = state["running_mean"]
functional_call(norm, state, (batch,))
print("state['running_mean']:", state["running_mean"], " same object:", state["running_mean"] is running_mean)
print("norm.running_mean:", norm.running_mean)
assert torch.allclose(running_mean, 0.1 * batch.mean(0)) and not norm.running_mean.any(), "updated in the dict only"
# sphinx_gallery_start_ignore
assert state["running_mean"] is running_mean, "the dict holds the same tensor object after the call"
# sphinx_gallery_end_ignore
params_only = {name: t.detach().clone() for name, t in norm.named_parameters()}
functional_call(norm, params_only, (batch,))
print("parameters only, norm.running_mean:", norm.running_mean)
assert torch.allclose(norm.running_mean, 0.1 * batch.mean(0)), "a buffer not in the dict is updated in the module"
# sphinx_gallery_start_ignore
part_model = torch.nn.Linear(3, 1)
part_weight = torch.zeros_like(part_model.weight, requires_grad=True)
part_out = functional_call(part_model, {"weight": part_weight}, (batch,))
part_out.sum().backward()
assert part_model.weight.grad is None and torch.equal(part_model.bias.grad, torch.tensor([2.0])), (
    "a parameter the dict leaves out is the module's own, and its gradient lands in the module")
try:
    functional_call(part_model, {"weight": part_weight}, (batch,), strict=True)
except RuntimeError as refusal:
    assert "Missing key(s): 'bias'" in str(refusal), "strict=True names the parameter the dict leaves out"
else:
    raise AssertionError("strict=True with a dict that leaves out a parameter must raise")
try:
    functional_call(norm, params_only, (batch,), strict=True)
except RuntimeError as refusal:
    assert "Missing key(s): 'num_batches_tracked', 'running_mean', 'running_var'" in str(refusal), (
        "strict=True names the buffers the dict leaves out")
else:
    raise AssertionError("strict=True with a dict that leaves out buffers must raise")
# sphinx_gallery_end_ignore

# %%
# 共享权重跟随字典
# ----------------
#
# 这里第二层的权重就是第一层的权重，和 :ref:`“共享权重”那一页 <questions-tied-weights>` 的情形一样，字典里只有 ``0.weight``。默认情况下（``tie_weights=True``），``1.weight`` 也用字典里的张量，两处使用的梯度都落在字典里，``strict=True`` 也接受这个字典。``tie_weights=False`` 时，``1.weight`` 用的是模块自己的权重，``strict=True`` 会拒绝这个字典。
#
# 在模型里出现两次的层，比如 ``torch.nn.Sequential(layer, layer)``，它的权重有两个名字：``0.weight`` 和 ``1.weight``。只有在 ``tie_weights=False`` 且字典里只有其中一个名字时，这一层才会拿回自己的权重。在 torch |torch_version| 上，其余能运行的调用，无论 ``strict`` 取什么值、处于哪种梯度模式（grad mode），结束后 ``layer.weight`` 都是两个名字中字典里排在前面的那个对应的张量，这一层自己的参数不见了。（若 ``tie_weights=False``，``strict=True`` 会拒绝只有一个名字的字典；若 ``tie_weights=True``，两个名字对应两个不同张量的字典会被拒绝。）两个名字都有的字典本身也会变：调用结束时，``functional_call`` 把从模块里换出来的张量写回你传入的字典，于是两个名字中排在后面的那个，对应的成了这一层自己的参数；排在前面的那个，对应的成了原先在另一个名字下传入的张量（原先在前一个名字下传入的张量现在是这一层的权重）。

torch.manual_seed(0)
tied = torch.nn.Sequential(torch.nn.Linear(3, 3, bias=False), torch.nn.Linear(3, 3, bias=False))
tied[1].weight = tied[0].weight
tied_weight = torch.randn(3, 3, requires_grad=True)
tied_out = functional_call(tied, {"0.weight": tied_weight}, (batch,), strict=True)
tied_out.sum().backward()
print("both layers used tied_weight:", torch.allclose(tied_out, batch @ tied_weight.T @ tied_weight.T))
print("tied_weight.grad:", tied_weight.grad)
print("tied[0].weight.grad:", tied[0].weight.grad)
untied_out = functional_call(tied, {"0.weight": tied_weight}, (batch,), tie_weights=False)
print("tie_weights=False, the second layer used the module's own weight:",
      torch.allclose(untied_out, batch @ tied_weight.T @ tied[1].weight.T))  # fmt: skip
try:
    functional_call(tied, {"0.weight": tied_weight}, (batch,), strict=True, tie_weights=False)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).expandtabs(4)}")  # 报错信息用制表符缩进
else:
    raise AssertionError("strict=True with tie_weights=False must refuse a dict that leaves out 1.weight")
assert torch.allclose(tied_out, batch @ tied_weight.T @ tied_weight.T) and tied[0].weight.grad is None, (
    "by default, the tied 1.weight takes the dict's tensor too, and the module's weight gets no gradient")
layer = torch.nn.Linear(3, 3, bias=False)
layer_weight, twice_weight = layer.weight, torch.randn(3, 3)
functional_call(torch.nn.Sequential(layer, layer), {"0.weight": twice_weight}, (batch,))
print("layer twice, after: layer.weight is layer_weight:", layer.weight is layer_weight,
      " layer.weight is twice_weight:", layer.weight is twice_weight)
assert layer.weight is twice_weight and not isinstance(layer.weight, torch.nn.Parameter), (
    "a layer that sits in the model twice keeps the dict's tensor after the call")
layer = torch.nn.Linear(3, 3, bias=False)
layer_weight, both_names = layer.weight, {"0.weight": torch.randn(3, 3), "1.weight": torch.randn(3, 3)}
first_weight = both_names["0.weight"]
functional_call(torch.nn.Sequential(layer, layer), both_names, (batch,), tie_weights=False)
print("both names, tie_weights=False, after: layer.weight is first_weight:", layer.weight is first_weight,
      " both_names['1.weight'] is layer_weight:", both_names["1.weight"] is layer_weight)
assert layer.weight is first_weight and both_names["1.weight"] is layer_weight, (
    "the layer keeps the dict's first tensor, and the dict passed now holds the layer's own parameter")
# sphinx_gallery_start_ignore
assert torch.allclose(tied_weight.grad, grad(lambda v: (batch @ v.T @ v.T).sum())(tied_weight.detach())), (
    "the gradient of both uses of the tied weight lands in the dict's tensor")
assert torch.allclose(untied_out, batch @ tied_weight.T @ tied[1].weight.T) and not torch.allclose(
    untied_out, tied_out), "with tie_weights=False, 1.weight is the module's own"
assert torch.allclose(functional_call(tied, {"1.weight": tied_weight}, (batch,), strict=True), tied_out), (
    "a dict holding 1.weight only gives its tensor to the tied 0.weight too")
assert list(dict(tied.named_parameters())) == ["0.weight"] and list(tied.state_dict()) == ["0.weight", "1.weight"], (
    "the tied weight is one parameter under two names")
back_modules = {"Linear": torch.nn.Linear(3, 1), "BatchNorm1d": torch.nn.BatchNorm1d(3), "tied": tied}
for back_kind, back_module in back_modules.items():
    for back_strict in (False, True):
        for back_tie in (True, False):
            for back_grad in (True, False):
                back_own = back_module.state_dict(keep_vars=True)
                back_values = {back_name: back_t.detach().clone() for back_name, back_t in back_own.items()}
                back_names = back_own if not back_tie else {
                    **dict(back_module.named_parameters()), **dict(back_module.named_buffers())}
                back_passed = {back_name: back_values[back_name].clone() for back_name in back_names}
                back_given = dict(back_passed)
                with torch.set_grad_enabled(back_grad):
                    functional_call(back_module, back_passed, (batch,), strict=back_strict, tie_weights=back_tie)
                back_after = back_module.state_dict(keep_vars=True)
                assert list(back_after) == list(back_own) and all(
                    back_after[back_name] is back_t and torch.equal(back_t, back_values[back_name])
                    for back_name, back_t in back_own.items()), (
                    f"{back_kind}, strict={back_strict}, tie_weights={back_tie}, grad enabled={back_grad}: after the "
                    "call the module has its own parameter and buffer objects back, unchanged")
                assert list(back_passed) == list(back_given) and all(
                    back_passed[back_name] is back_t for back_name, back_t in back_given.items()), (
                    f"{back_kind}, strict={back_strict}, tie_weights={back_tie}, grad enabled={back_grad}: the dict "
                    "passed holds its own tensor objects after the call")
def twice_refusal_of(model, given, strict, tie):
    """The name of the error functional_call(model, given, (batch,)) raises with these options (RuntimeError or
    ValueError), or None."""
    try:
        functional_call(model, given, (batch,), strict=strict, tie_weights=tie)
    except (RuntimeError, ValueError) as twice_error:
        return type(twice_error).__name__
    return None


for twice_keys in (("0.weight",), ("1.weight",), ("0.weight", "1.weight"), ("1.weight", "0.weight")):
    for twice_same in (False, True):
        for twice_strict in (False, True):
            for twice_tie in (True, False):
                for twice_grad in (True, False):
                    twice_layer = torch.nn.Linear(3, 3, bias=False)
                    twice_own, twice_shared = twice_layer.weight, torch.randn(3, 3)
                    twice_dict = {twice_name: twice_shared if twice_same else torch.randn(3, 3) for twice_name in twice_keys}
                    twice_given = dict(twice_dict)
                    with torch.set_grad_enabled(twice_grad):
                        twice_refusal = twice_refusal_of(torch.nn.Sequential(twice_layer, twice_layer), twice_dict,
                                                         twice_strict, twice_tie)
                    one_name = len(twice_keys) == 1
                    assert twice_refusal == ("RuntimeError" if twice_strict and not twice_tie and one_name else "ValueError"
                                             if twice_tie and not one_name and not twice_same else None), (
                        f"dict keys {twice_keys}, one tensor under both names: {twice_same}, strict={twice_strict}, "
                        f"tie_weights={twice_tie}, grad enabled={twice_grad}: strict=True with tie_weights=False "
                        "refuses one name, tie_weights=True two different tensors for the two names, and every other "
                        "call runs")
                    assert twice_refusal or (twice_layer.weight is twice_own) == (not twice_tie and one_name) and (
                        twice_layer.weight is twice_own or twice_layer.weight is twice_given[twice_keys[0]]), (
                        f"dict keys {twice_keys}, one tensor under both names: {twice_same}, strict={twice_strict}, "
                        f"tie_weights={twice_tie}, grad enabled={twice_grad}: the layer gets its own weight back only "
                        "with tie_weights=False and one name, else it keeps the dict's tensor for the name it lists first")
                    assert list(twice_dict) == list(twice_keys) and (
                        all(twice_dict[twice_name] is twice_t for twice_name, twice_t in twice_given.items()) if one_name
                        else twice_refusal or twice_dict[twice_keys[-1]] is twice_own
                        and twice_dict[twice_keys[0]] is twice_given[twice_keys[-1]]), (
                        f"dict keys {twice_keys}, one tensor under both names: {twice_same}, strict={twice_strict}, "
                        f"tie_weights={twice_tie}, grad enabled={twice_grad}: a dict with one name keeps its tensor, "
                        "and after the call a dict with both names holds the layer's own parameter under the name it lists "
                        "last, and under the first the tensor passed under the last")
# sphinx_gallery_end_ignore

# %%
# ``torch.func.grad`` 不需要 ``requires_grad``
# --------------------------------------------
#
# 即使 ``w`` 不需要梯度，``grad(f)(w)`` 也会返回 ``f`` 在 ``w`` 处的梯度，并且不碰 ``w.grad``。这里
# ``f(w) = sum(w ** 2)``，梯度是 ``2 w``。

w = torch.tensor([1.0, 2.0, 3.0])
g = grad(lambda v: (v**2).sum())(w)
print("g:", g, " w.requires_grad:", w.requires_grad, " w.grad:", w.grad)
assert torch.equal(g, 2 * w) and w.grad is None, "the gradient, without requires_grad and without w.grad"
# sphinx_gallery_start_ignore
held_grad = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(held_grad * 7).sum().backward()
assert torch.equal(grad(lambda v: (v**2).sum())(held_grad), 2 * held_grad), "the gradient, w requiring grad"
assert torch.equal(held_grad.grad, torch.full((3,), 7.0)), "an existing w.grad is left alone"
# sphinx_gallery_end_ignore

# %%
# 训练一个字典里的张量
# --------------------
#
# 把两者合起来：通过 ``functional_call`` 用 SGD 训练字典里的张量三步，同时在同样的三步里直接训练模块本身。最后字典里的权重与模块的权重相同，而模块的参数只被它自己的循环训练过。

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
tensors = {name: p.detach().clone().requires_grad_() for name, p in model.named_parameters()}
dict_optimizer = torch.optim.SGD(tensors.values(), lr=0.1)
module_optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    dict_optimizer.zero_grad()
    ((functional_call(model, tensors, (x,)) - y) ** 2).mean().backward()
    dict_optimizer.step()
    module_optimizer.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    module_optimizer.step()
print("tensors['weight']:", tensors["weight"])
print("model.weight:     ", model.weight)
assert torch.allclose(tensors["weight"], model.weight), "the same training, on the dict and on the module"
# sphinx_gallery_start_ignore
assert bytes_apart(tensors["weight"], model.weight), "two separate tensors were trained"
assert torch.allclose(tensors["bias"], model.bias), "the biases agree too"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``functional_call`` 在一次调用里把字典里的张量换进模块，结束后再换回模块自己的（在模型里出现两次的层不会换回，除非 ``tie_weights=False`` 且字典里只有它的一个名字）：两个方向都不复制，所以梯度和原地更新的缓冲区都落在字典里（字典里没有的参数或缓冲区是模块自己的，梯度或更新就落在模块里；默认情况下，与字典里某个权重共享的权重用的是字典里的张量）。调用结束时，它把换出来的张量写回字典：对于在模型里出现两次的层，字典里两个名字都有时，排在后面的那个名字随后对应的是这一层自己的参数，排在前面的那个名字对应的是原先在后一个名字下传入的张量。``torch.func.grad``
# 不需要 ``requires_grad``，也不用 ``.grad`` 就能算出梯度。``vmap`` 是最内层的变换时，批量张量的 ``.data`` 会报错，把批量张量变成
# Python 数值或数组的调用（``item()``、``tolist()``、``numpy()``、``np.asarray``）和交出它内存的调用（``data_ptr()``、``untyped_storage()``、DLPack）也会报错；``detach()``、``clone()``、对不需要梯度的张量做的
# ``add_``、``stride()`` 和 ``repr()`` 都能运行。在 ``vmap(grad(f))`` 里，``f`` 中的 ``.data`` 能运行，得到每一行的值，而 ``item()`` 仍会报错。函数里用 ``torch.zeros`` 新建的张量，不能原地接收每一行的值：改用 ``x.new_zeros`` 或 ``torch.zeros_like(x)`` 新建，或者把结果堆叠起来（``torch.stack``）。
