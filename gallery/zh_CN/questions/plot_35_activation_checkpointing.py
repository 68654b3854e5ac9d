"""
.. _questions-activation-checkpointing:

梯度检查点让前向传播执行两次
============================

.. admonition:: 答案
   :class: answer

   ``checkpoint(fn, x, use_reentrant=False)`` 在 ``backward()`` 需要 ``fn`` 保存的张量（不包括它包装成张量的 Python 数字）时重跑 ``fn``，其中的原地操作（如 ``BatchNorm`` 更新滑动统计量）每步可能做两次。把它们移出 ``fn``：

   .. code-block:: python

      seen.add_(1)
      h = checkpoint(block, x, use_reentrant=False)
      out = head(bn(h))

写在被 ``checkpoint`` 包住的函数开头的 ``print`` 可能打印两次；在只有一次 ``backward()`` 的一步里，``BatchNorm`` 的 ``num_batches_tracked`` 记两个批次，在 ``momentum`` 介于 0 和 1 之间（如默认的 0.1）时，只要批次均值与 ``running_mean`` 不同，``running_mean`` 也就和不用 ``checkpoint`` 的运行不一样（每批数据都更新了它两次；``momentum=None`` 时它是各批的简单平均，与不用 ``checkpoint`` 的运行只差浮点舍入误差）。本页用 ``torch.utils.checkpoint.checkpoint`` 做梯度检查点（activation checkpointing，也叫 gradient checkpointing 或重计算），数出被包住的函数调用了几次；把 ``BatchNorm`` 的滑动统计量（running statistics）和原地（in-place）操作同普通运行比较；看第二次调用算出别的东西时会怎样、``dropout`` 为什么两次拿到同一个掩码；在三步的训练循环里检查两种解决办法；最后数一数，一步里有两次 ``backward()``，或者一次也没有时，函数被调用几次。
"""

# %%
# 辅助函数
# --------
#
# ``checkpoint`` 是 torch 自带的函数，来自 ``torch.utils.checkpoint``；页面展示的代码每次调用都传 ``use_reentrant=False``，这是 PyTorch 推荐的实现；正文提到 ``use_reentrant=True`` 的实现时，隐藏检查也用它运行一遍。``versions`` 读出给定张量的版本计数器（version counter），即 ``_version``，它是 torch 的内部属性。

import copy

import torch
from torch.utils.checkpoint import checkpoint


def versions(*tensors):
    return tuple(t._version for t in tensors)


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
# 函数运行了两次
# --------------
#
# ``checkpoint(block, x)`` 运行一次 ``block(x)``，保留 ``x``，丢掉 ``block`` 中各运算为反向传播保存的张量（各运算保存哪些张量，见 :ref:`“看运算保存了什么”那一页 <questions-saved-tensors>`）。``backward()`` 需要这些张量，于是再调用一次 ``block(x)``，把它们重新算出来。``block`` 里的调用计数在前向传播之后是 1，在 ``backward()`` 之后是 2。运算不保存张量的函数，比如 ``(x + 1).sum()``，不会再被调用；运算只保存了包装成张量的 Python 数字的函数，比如 ``(x * 2).sum()``，也不会：这个数由运算的节点自己留着，``checkpoint`` 的保存张量钩子看不到它，所以没有要重算的（本单元格的隐藏检查把两种都跑了）。下面的 ``block`` 还对张量 ``c`` 原地加 1，并以训练模式运行一个 ``BatchNorm`` 层；``timeline`` 为下面的图记下 ``c`` 和 ``BatchNorm`` 的 ``num_batches_tracked`` 的版本计数器。

torch.manual_seed(0)
bn = torch.nn.BatchNorm1d(3)
plain_bn = copy.deepcopy(bn)
c = torch.zeros(())
calls = {"block": 0}


def block(x):
    calls["block"] += 1
    c.add_(1)
    return bn(x).relu()


x = torch.randn(8, 3, requires_grad=True)
timeline = [("start", versions(c, bn.num_batches_tracked))]
y = checkpoint(block, x, use_reentrant=False)
print(
    "after checkpoint(): calls", calls["block"], " c", c.item(), " num_batches_tracked", bn.num_batches_tracked.item()
)
timeline.append(("checkpoint()", versions(c, bn.num_batches_tracked)))
y.pow(2).sum().backward()
print(
    "after backward():   calls", calls["block"], " c", c.item(), " num_batches_tracked", bn.num_batches_tracked.item()
)
timeline.append(("backward()", versions(c, bn.num_batches_tracked)))
assert calls["block"] == 2 and c.item() == 2 and bn.num_batches_tracked.item() == 2, (
    "checkpoint calls the function twice, and each edit runs twice"
)
# sphinx_gallery_start_ignore
probe_bn, probe_x = torch.nn.BatchNorm1d(3), torch.linspace(-2.0, 2.0, 24, requires_grad=True).reshape(8, 3)
probe_out = checkpoint(probe_bn, probe_x, use_reentrant=True)
assert probe_bn.num_batches_tracked.item() == 1, "reentrant checkpoint: one call in the forward pass"
probe_out.sum().backward()
assert probe_bn.num_batches_tracked.item() == 2, "reentrant checkpoint runs the function again in backward"
assert torch.allclose(probe_bn.running_mean, 0.19 * probe_x.detach().mean(0)), "reentrant: 0.19 of the batch mean"
with torch.no_grad():
    checkpoint(probe_bn, probe_x, use_reentrant=False)
assert probe_bn.num_batches_tracked.item() == 3, "under no_grad, checkpoint calls the function once"
import warnings

quiet_bn = torch.nn.BatchNorm1d(3)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch 会警告说没有哪个输入需要梯度
    quiet_out = checkpoint(quiet_bn, probe_x.detach(), use_reentrant=True)
assert quiet_bn.num_batches_tracked.item() == 1 and not quiet_out.requires_grad, "reentrant, no input needs grad: once"
once_calls = []


def saves_nothing(t):
    once_calls.append(t)
    return (t + 1).sum()


once_out = checkpoint(saves_nothing, torch.ones(3, requires_grad=True), use_reentrant=False)
once_out.backward()
assert len(once_calls) == 1, "a function whose operations save no tensor is not called again in backward()"
wrapped_calls = []


def saves_a_number(t):
    wrapped_calls.append(t)
    return (t * 2).sum()


wrapped_out = checkpoint(saves_a_number, torch.ones(3, requires_grad=True), use_reentrant=False)
assert torch.equal(wrapped_out.grad_fn.next_functions[0][0]._saved_other, torch.tensor(2)) and len(wrapped_calls) == 1, (
    "the MulBackward0 node keeps the 2 itself, as a tensor; reading it calls nothing again")
seen_by_hooks = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: seen_by_hooks.append(t) or t, lambda t: t):
    (torch.ones(3, requires_grad=True) * 2).sum()
assert seen_by_hooks == [], "saved-tensor hooks, checkpoint's included, never see a wrapped Python number"
wrapped_out.backward()
assert len(wrapped_calls) == 1, "(x * 2).sum() is not called again in backward()"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 时间线：c 和 bn.num_batches_tracked（batches 一行）的 _version，分别在开始时、checkpoint() 之后和 backward() 之后。
#
#    两个原地操作，``c.add_(1)`` 和 ``BatchNorm`` 对 ``num_batches_tracked`` 的更新，在前向传播中让各自张量的 ``_version`` 加一，在 ``backward()`` 中又加一。``batches`` 一行是 ``bn.num_batches_tracked``。

draw_versions("_version", ["c", "batches"], timeline)
# sphinx_gallery_start_ignore
assert [v[1] for v in timeline] == [(0, 1), (1, 2), (2, 3)], "each edit moved the counter once per call"
# sphinx_gallery_end_ignore

# %%
# ``BatchNorm`` 的滑动统计量更新了两次
# ------------------------------------
#
# 把同一批数据送进这个层的一份副本，不用 ``checkpoint``：输出和梯度都相同，因为训练模式下的 ``BatchNorm`` 两次都用这一批数据自己的统计量做归一化。滑动统计量却不同。默认 ``momentum=0.1`` 时，一次更新把 ``running_mean`` 从 0 移到批均值的 0.1 倍；用了 ``checkpoint`` 的层拿同一批数据更新了两次，得到批均值的 1 - 0.9² = 0.19 倍。``num_batches_tracked`` 记了两个批次。``use_reentrant=True`` 的实现在有输入需要梯度时也是这样；没有输入需要梯度时，它只调用函数一次，输出也不需要梯度。

x_plain = x.detach().clone().requires_grad_()
y_plain = plain_bn(x_plain).relu()
y_plain.pow(2).sum().backward()
batch_mean = x.detach().mean(0)
print("batch mean:                 ", batch_mean)
print("running_mean, checkpointed: ", bn.running_mean)
print("running_mean, plain:        ", plain_bn.running_mean)
print("num_batches_tracked: checkpointed", bn.num_batches_tracked.item(), " plain", plain_bn.num_batches_tracked.item())
print("same output and gradient:", torch.allclose(y, y_plain) and torch.allclose(x.grad, x_plain.grad))
assert torch.allclose(bn.running_mean, 0.19 * batch_mean) and torch.allclose(plain_bn.running_mean, 0.1 * batch_mean), (
    "running_mean: 0.19 of the batch mean checkpointed, 0.1 plain"
)
# sphinx_gallery_start_ignore
assert torch.allclose(y, y_plain) and torch.allclose(x.grad, x_plain.grad), "same output and gradient"
assert plain_bn.num_batches_tracked.item() == 1, "the plain layer counts one batch"
batch_var = x.detach().var(0)
assert torch.allclose(bn.running_var, 0.81 + 0.19 * batch_var), "running_var is updated twice as well"
assert torch.allclose(plain_bn.running_var, 0.9 + 0.1 * batch_var), "the plain layer updates running_var once"
# sphinx_gallery_end_ignore

# %%
# 函数里的原地操作
# ----------------
#
# 上面的 ``c.add_(1)`` 在两次调用里都执行了，所以一步之后 ``c`` 是 2。但并非每个原地操作都执行两次：第二次调用一旦把第一次调用保存过的张量都重新保存一遍就停下，``backward()`` 从不读取的那些也算在内，但运算包装成张量的 Python 数字不算（``early_stop=True``，默认值）。如果原地操作放在函数里最后一个保存这种张量的运算之后，它只执行一次，即使它放在末尾的 ``* 2`` 之前也是如此（本单元格的隐藏检查运行了这种情况）。放在 ``x.cos()`` 之前的原地操作执行了两次，尽管 ``x.cos()`` 的结果是先 ``detach()`` 再加进输出的，``backward()`` 从不读取 ``cos`` 保存的张量；``early_stop=False`` 时，每个原地操作都执行了两次。


def edits(where, early_stop):
    counter = torch.zeros(())

    def fn(x):
        if where == "first":
            counter.add_(1)
        out = x.sin().exp()
        if where == "middle":
            counter.add_(1)
        out = out + x.cos().detach()  # cos 保存了 x，backward() 却从不读取它
        if where == "last":
            counter.add_(1)
        return out

    x = torch.randn(3, requires_grad=True)
    checkpoint(fn, x, use_reentrant=False, early_stop=early_stop).sum().backward()
    return counter.item()


runs = {(where, stop): edits(where, stop) for where in ("first", "middle", "last") for stop in (True, False)}
for (where, stop), count in runs.items():
    print(f"edit {where:<6}  early_stop={stop!s:<5}  edits per step: {count:.0f}")
assert runs == {
    ("first", True): 2, ("first", False): 2, ("middle", True): 2, ("middle", False): 2,
    ("last", True): 1, ("last", False): 2,
}, "only the edit after the last operation that saves a tensor runs once, with early_stop=True; every other runs twice"
# sphinx_gallery_start_ignore


def probe_wrapped_last(t, probe_log):
    probe_sin = t.sin()
    probe_log.append(t)
    return probe_sin * 2


for probe_stop in (True, False):
    probe_log = []
    probe_out = checkpoint(probe_wrapped_last, torch.arange(3.0, requires_grad=True), probe_log,
                           use_reentrant=False, early_stop=probe_stop)
    probe_out.sum().backward()
    assert len(probe_log) == (1 if probe_stop else 2), (
        f"early_stop={probe_stop}: an edit before a final * 2, after the last tensor saved, runs once only with early stop")
# sphinx_gallery_end_ignore

# %%
# 对位置参数的原地操作在函数再次运行时报错（``use_reentrant=False``）
# -------------------------------------------------------------------
#
# ``use_reentrant=False`` 时，``checkpoint`` 把以位置参数传给函数的张量连同它们的版本一起保留下来，以便再调用一次。这里把计数张量 ``counter`` 作为位置参数传入：在函数里原地修改它，会让它的版本计数器越过保留时的值，于是需要 ``x.sin()`` 所保存张量的 ``backward()`` 在第二次调用之前就抛出错误。``counter`` 的值是 1。``backward()`` 如果不需要函数保存的任何张量，比如输出是 ``x + 1`` 或 ``x * 2`` 时，就不会再次调用函数，也不报错（本单元格的隐藏检查在同样的原地修改之后把这两种都跑了）。以关键字参数传入或者放在列表里传入的张量不会这样保留：同样的原地修改不报错，而且执行两次；函数如果在修改之后再读取这样的张量，得到的就是第二次调用的梯度，和下一节一样（本单元格的隐藏检查把这两种传法都跑了）。``use_reentrant=True`` 时，对位置参数的同样的原地修改也不报错，而且执行两次（隐藏检查也运行了这种情况）。

counter = torch.zeros(())


def count_input(x, counter):
    counter.add_(1)
    return x.sin()


x = torch.randn(3, requires_grad=True)
y = checkpoint(count_input, x, counter, use_reentrant=False)
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a checkpointed function's input must break backward()")
print("counter:", counter.item())
assert message.startswith(
    "one of the variables needed for gradient computation has been modified by an inplace operation"
), "backward() raises the in-place error"
# sphinx_gallery_start_ignore
assert counter.item() == 1, "the second call never ran"
assert "is at version 1; expected version 0 instead" in message, "the edit moved the kept input's version"


def passed_by(route, read_after_edit):
    """(edits of the counter, x.grad is the second call's) for the counter passed by keyword or in a list."""
    route_counter, route_x = torch.zeros(()), torch.arange(3.0, requires_grad=True)

    def edit_then_read(t, box):
        held = box if route == "keyword" else box[0]
        route_sin = count_input(t, held)
        return route_sin * held if read_after_edit else route_sin

    if route == "keyword":
        route_out = checkpoint(lambda t, *, box: edit_then_read(t, box), route_x, box=route_counter, use_reentrant=False)
    else:
        route_out = checkpoint(edit_then_read, route_x, [route_counter], use_reentrant=False)
    route_out.sum().backward()
    second_call_factor = 2 if read_after_edit else 1
    return route_counter.item(), torch.allclose(route_out, route_x.sin()) and torch.allclose(
        route_x.grad, second_call_factor * route_x.detach().cos())


assert [passed_by(route, read) for route in ("keyword", "list") for read in (False, True)] == [(2, True)] * 4, (
    "a tensor passed by keyword or in a list: the edit raises nothing and runs twice, and a read after it gives the "
    "second call's gradient")
reentrant_counter = torch.zeros(())
reentrant_out = checkpoint(count_input, torch.arange(3.0, requires_grad=True), reentrant_counter, use_reentrant=True)
reentrant_out.sum().backward()
assert reentrant_counter.item() == 2, "use_reentrant=True: the edit of a positional input raises nothing and runs twice"


def needs_no_saved(operation):
    """(edits of the counter, x.grad) when the function edits its positional counter as count_input does, then
    returns operation(x), whose backward() needs no tensor the function saved (the x.sin() of count_input is left
    unused)."""
    unread_counter, unread_x = torch.zeros(()), torch.arange(3.0, requires_grad=True)

    def edit_then(t, box):
        count_input(t, box)
        return operation(t)

    unread_out = checkpoint(edit_then, unread_x, unread_counter, use_reentrant=False)
    unread_out.sum().backward()
    return unread_counter.item(), unread_x.grad.tolist()


assert [needs_no_saved(operation) for operation in (lambda t: t + 1, lambda t: t * 2)] == [
    (1, [1.0] * 3), (1, [2.0] * 3)], (
    "an edit of a positional input, then a backward() that needs no tensor the function saved: the function is not "
    "called again and nothing raises")
# sphinx_gallery_end_ignore

# %%
# 第二次调用算出别的东西时
# ------------------------
#
# 函数捕获了 ``scale``，并在使用之前原地修改它：前向传播算的是 ``sin(2 * x)``，第二次调用算的是 ``sin(3 * x)``。``backward()`` 用的是第二次调用的张量，所以 ``x.grad`` 是 ``sin(3 * x)`` 的梯度 ``3 cos(3x)``，而不是前向传播返回的输出所对应的 ``2 cos(2x)``，而且没有任何报错。默认情况下（``determinism_check="default"``），``checkpoint`` 只把重算出的张量的形状、dtype 和设备同第一次调用时比较，不比较数值：比较的是输出的计算图中的运算保存的张量，不比较结果只以 ``detach()`` 之后的形式离开函数的运算所保存的张量（本单元格和下一个单元格的隐藏检查把这两类都跑了）。

scale = torch.ones(())


def scaled(x):
    scale.add_(1)
    return (x * scale).sin()


x = torch.randn(3, requires_grad=True)
y = checkpoint(scaled, x, use_reentrant=False)
y.sum().backward()
print("y equals sin(2x):", torch.allclose(y, (2 * x).sin()))
print("x.grad:  ", x.grad)
print("2 cos(2x):", 2 * (2 * x.detach()).cos())
print("3 cos(3x):", 3 * (3 * x.detach()).cos())
assert torch.allclose(x.grad, 3 * (3 * x.detach()).cos()) and not torch.allclose(x.grad, 2 * (2 * x.detach()).cos()), (
    "the gradient is the second call's, 3 cos(3x), not 2 cos(2x)"
)
# sphinx_gallery_start_ignore
assert torch.allclose(y, (2 * x).sin()), "the forward pass returned sin(2x)"
probe_in = torch.linspace(-1.0, 1.0, 3, requires_grad=True)
for probe_targets, probe_shown in (([torch.float64, torch.float32], "torch.float64"), (["meta", "cpu"], "type='meta'")):
    probe_y = checkpoint(lambda t, targets=probe_targets: t.to(targets.pop()).sin(), probe_in, use_reentrant=False)
    try:
        probe_y.sum().backward()
    except RuntimeError as e:
        assert "different metadata" in str(e) and probe_shown in str(e), f"a change to {probe_shown} is caught"
    else:
        raise AssertionError(f"a change to {probe_shown} in the second call must raise")


def probe_detached(t, targets):
    return t.exp(), t.to(targets.pop()).sin().detach()


for probe_targets, probe_change in (([torch.float64, torch.float32], "dtype"), (["meta", "cpu"], "device")):
    probe_y, probe_side = checkpoint(probe_detached, probe_in, probe_targets, use_reentrant=False)
    probe_y.sum().backward()
    assert probe_targets == [], f"a {probe_change} change in a tensor saved by sin, whose result leaves detached: no error"
# sphinx_gallery_end_ignore

# %%
# 输出的计算图中的运算所保存的张量形状变了，会被发现。每调用一次就多一项的缓存（一个键的列表，类似注意力机制里的键缓存）让第二次调用得到别的形状，其中包括这样保存的张量的形状，``backward()`` 抛出错误（见下）。没有体现在任何这样保存的张量上的变化则发现不了：同一个缓存先用 ``keys.mean(0)`` 取平均再用，保存的张量形状都不变，``backward()`` 照常运行，给出的是第二次调用的梯度。如果保存键的只有 ``keys.sin()``，而它的结果先 ``detach()`` 再离开函数，变化也发现不了：``backward()`` 照常运行，缓存增长了两次（本单元格的隐藏检查把这两种情况都跑了）。

cache = []


def attend(q):
    cache.append(q)
    keys = torch.cat(cache)
    return (q @ keys.T).softmax(-1) @ keys


q = torch.randn(2, 4, requires_grad=True)
y = checkpoint(attend, q, use_reentrant=False)
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}:", *message.splitlines()[:4], sep="\n")
else:
    raise AssertionError("other shapes in the second call must raise")
print("entries in the cache:", len(cache))
assert message.startswith(
    "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during the forward pass."
), "backward() reports other metadata in the second call"
# sphinx_gallery_start_ignore
assert len(cache) == 2, "the second call appended again"
pooled_cache = []


def attend_pooled(q):
    pooled_cache.append(q.detach() + len(pooled_cache))
    pooled_keys = torch.cat(pooled_cache)
    return (q * pooled_keys.mean(0)).sin()


pooled_q = torch.tensor([[0.1, -0.2, 0.3, -0.4], [0.5, -0.6, 0.7, -0.8]], requires_grad=True)
pooled_y = checkpoint(attend_pooled, pooled_q, use_reentrant=False)
pooled_y.sum().backward()
second_keys = torch.cat(pooled_cache).mean(0)
assert len(pooled_cache) == 2 and torch.allclose(pooled_q.grad, (pooled_q * second_keys).detach().cos() * second_keys), (
    "a growing cache averaged before any saving op: no error, the second call's gradient")
detached_cache = []


def attend_detached(q):
    detached_cache.append(q)
    detached_keys = torch.cat(detached_cache)
    return q.exp() + detached_keys.sin().detach().sum()


detached_q = torch.tensor([[0.1, -0.2, 0.3, -0.4], [0.5, -0.6, 0.7, -0.8]], requires_grad=True)
detached_out = checkpoint(attend_detached, detached_q, use_reentrant=False)
detached_out.sum().backward()
assert len(detached_cache) == 2 and torch.allclose(detached_q.grad, detached_q.detach().exp()), (
    "a growing cache saved only by sin, whose result leaves detached: no error, and the cache grew twice")
# sphinx_gallery_end_ignore

# %%
# 并不是函数先原地修改、再读取的每个张量都会改变梯度：``x.sin() + shift`` 对 ``x`` 的梯度是 ``cos(x)``，与 ``shift`` 的值无关。对 ``shift`` 的修改在两次调用里都做了，``x.grad`` 仍是 ``cos(x)``。

shift = torch.zeros(())


def shifted(x):
    shift.add_(1)
    return x.sin() + shift


x = torch.randn(3, requires_grad=True)
checkpoint(shifted, x, use_reentrant=False).sum().backward()
print("shift:", shift.item())
print("x.grad equals cos(x):", torch.allclose(x.grad, x.detach().cos()))
assert shift.item() == 2 and torch.allclose(x.grad, x.detach().cos()), "shift was edited twice; x.grad is cos(x)"

# %%
# ``dropout`` 两次拿到同一个掩码
# ------------------------------
#
# ``dropout`` 会抽取一个随机掩码。``checkpoint`` 在第一次调用之前保存 torch 默认随机数生成器的状态，在第二次调用之前恢复它（``preserve_rng_state=True``，默认值），所以两次调用抽到同一个掩码，梯度和设了同样种子、不用 ``checkpoint`` 的运行相同。``preserve_rng_state=False`` 时，第二次调用抽到另一个掩码，梯度也就不同。函数用自己的 ``torch.Generator`` 抽取掩码（``generator=g``）时，即使用默认设置也是这样：``checkpoint`` 不恢复这个生成器（本单元格的隐藏检查运行了这种情况）。


def dropped(x):
    return torch.nn.functional.dropout(x.sin(), p=0.5, training=True)


x = torch.randn(4, 5, requires_grad=True)
grads = {}
for name in ("plain", "preserve_rng_state=True", "preserve_rng_state=False"):
    x.grad = None
    torch.manual_seed(1)
    if name == "plain":
        y = dropped(x)
    else:
        y = checkpoint(dropped, x, use_reentrant=False, preserve_rng_state=name.endswith("True"))
    y.sum().backward()
    grads[name] = x.grad
    print(f"{name:<25} gradient equals plain: {torch.equal(grads[name], grads['plain'])}")
assert torch.equal(grads["preserve_rng_state=True"], grads["plain"]), "preserve_rng_state=True gives the plain gradient"
assert not torch.equal(grads["preserve_rng_state=False"], grads["plain"]), (
    "preserve_rng_state=False gives another gradient"
)
# sphinx_gallery_start_ignore
own_generator = torch.Generator()


def own_masked(t):
    return t.sin() * (torch.rand(t.shape, generator=own_generator) > 0.5)


own_generator.manual_seed(1)
own_plain = torch.autograd.grad(own_masked(x).sum(), x)[0]
own_generator.manual_seed(1)
own_checkpointed = torch.autograd.grad(checkpoint(own_masked, x, use_reentrant=False).sum(), x)[0]
assert not torch.equal(own_checkpointed, own_plain), (
    "a mask drawn from the function's own torch.Generator differs in the second call: another gradient"
)
# sphinx_gallery_end_ignore

# %%
# 解决办法：在训练循环里检查
# --------------------------
#
# 同一个模型的四份副本（由两个 ``Linear`` 层组成的块，接 ``BatchNorm``，再接输出层）在同样的批次上训练三步。每份都用 ``seen.add_(1)`` 在张量 ``seen`` 里数批次。``plain`` 不用梯度检查点。``inside`` 把块、``BatchNorm`` 和计数都放进被 ``checkpoint`` 包住的函数。``outside`` 只对块做梯度检查点，计数和归一化都放在外面。``momentum`` 就是 ``inside``，只是把 ``BatchNorm`` 的 ``momentum`` 调小，让同一批数据的两次更新恰好相当于默认 ``momentum`` 下的一次更新：1 - (1 - 0.1) ** 0.5，约为 0.0513。


def plain(block, bn, head, seen, x):
    seen.add_(1)
    return head(bn(block(x)))


def inside(block, bn, head, seen, x):
    def region(x):
        seen.add_(1)
        return bn(block(x))

    return head(checkpoint(region, x, use_reentrant=False))


def outside(block, bn, head, seen, x):
    seen.add_(1)
    h = checkpoint(block, x, use_reentrant=False)
    out = head(bn(h))
    return out


torch.manual_seed(0)
start = torch.nn.ModuleDict({
    "block": torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8)),
    "bn": torch.nn.BatchNorm1d(8),
    "head": torch.nn.Linear(8, 1),
})  # fmt: skip
batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(3)]
test_inputs = torch.randn(16, 4)
runs = {"plain": plain, "inside": inside, "outside": outside, "momentum": inside}
models, seen, predictions = {}, {}, {}
for name, forward in runs.items():
    model = copy.deepcopy(start)
    if name == "momentum":
        model.bn.momentum = 1 - (1 - 0.1) ** 0.5
    seen[name] = torch.zeros((), dtype=torch.long)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, target in batches:
        optimizer.zero_grad()
        loss = (forward(model.block, model.bn, model.head, seen[name], x) - target).pow(2).mean()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        predictions[name] = model.head(model.bn(model.block(test_inputs)))
    models[name] = model
    stats_match = torch.allclose(model.bn.running_mean, models["plain"].bn.running_mean, atol=1e-6)
    print(
        f"{name:<9} seen {seen[name].item()}  num_batches_tracked {model.bn.num_batches_tracked.item()}"
        f"  running_mean as plain: {stats_match!s:<5}  eval output as plain: "
        f"{torch.allclose(predictions[name], predictions['plain'], atol=1e-6)}"
    )
assert [seen[name].item() for name in runs] == [3, 6, 3, 6], (
    "plain and outside see three batches, inside and momentum six"
)

# %%
# 三步之后，四份副本的权重都相同：在这个循环里，梯度检查点没有改变梯度。``inside`` 里的 ``BatchNorm`` 记了六个批次，滑动统计量比 ``plain`` 走得更远，模型在评估模式下给出别的输出。``outside`` 处处和 ``plain`` 一样。``momentum`` 的滑动统计量和评估模式下的输出与 ``plain`` 一致，但仍记了六个批次，``seen`` 也数到了六：改 ``momentum`` 只修正 ``BatchNorm`` 的滑动统计量。

weights_match = all(
    torch.allclose(p, q, atol=1e-6)
    for name in runs
    for p, q in zip(models[name].parameters(), models["plain"].parameters(), strict=True)
)
print("weights as plain in all four:", weights_match)
assert weights_match and models["outside"].bn.num_batches_tracked.item() == 3, (
    "all four train the same weights; outside counts three batches"
)
assert not torch.allclose(predictions["inside"], predictions["plain"], atol=1e-4), (
    "inside gives other eval outputs than plain"
)
# sphinx_gallery_start_ignore
for run, expect in (("outside", True), ("momentum", True), ("inside", False)):
    run_bn, plain_run_bn = models[run].bn, models["plain"].bn
    assert torch.allclose(run_bn.running_mean, plain_run_bn.running_mean, atol=1e-6) == expect, f"{run}: running_mean"
    assert torch.allclose(run_bn.running_var, plain_run_bn.running_var, atol=1e-6) == expect, f"{run}: running_var"
    assert torch.allclose(predictions[run], predictions["plain"], atol=1e-6) == expect, f"{run}: eval outputs"
inside_stats, plain_stats, start_stats = (models["inside"].bn, models["plain"].bn, start.bn)
for stat, inside_stat, plain_stat, start_stat in (
    ("running_mean", inside_stats.running_mean, plain_stats.running_mean, start_stats.running_mean),
    ("running_var", inside_stats.running_var, plain_stats.running_var, start_stats.running_var),
):
    assert bool(((inside_stat - start_stat).abs() > (plain_stat - start_stat).abs()).all()), (
        f"in every feature, inside's {stat} moved further from where it started than plain's")
assert models["inside"].bn.num_batches_tracked.item() == 6 and models["momentum"].bn.num_batches_tracked.item() == 6, (
    "inside and momentum both count six batches"
)
assert seen["momentum"].item() == 6, "the momentum does not change the count"
probe_x = torch.linspace(-3.0, 3.0, 128, requires_grad=True).reshape(16, 8)
for probe_m in (0.01, 0.1, 0.3, 0.5):
    probe_plain = torch.nn.BatchNorm1d(8, momentum=probe_m)
    probe_twice = torch.nn.BatchNorm1d(8, momentum=1 - (1 - probe_m) ** 0.5)
    probe_plain_out = probe_plain(probe_x)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_x, use_reentrant=False)
    probe_twice_out.sum().backward()
    assert probe_twice.num_batches_tracked.item() == 2, f"momentum {probe_m}: two updates"
    assert torch.allclose(probe_twice.running_mean, probe_plain.running_mean, atol=1e-6), f"momentum {probe_m}: mean"
    assert torch.allclose(probe_twice.running_var, probe_plain.running_var, atol=1e-6), f"momentum {probe_m}: var"
# 开头一段：同一个 momentum，0 < m < 1 时用 checkpoint 的和普通的不同；None（简单平均）和 1.0（只留最后一批）时相同；
# num_batches_tracked 无论 momentum 是多少都翻倍
for probe_m in (0.01, 0.1, 0.5, 0.99, None, 1.0):
    probe_plain, probe_twice = torch.nn.BatchNorm1d(8, momentum=probe_m), torch.nn.BatchNorm1d(8, momentum=probe_m)
    probe_plain_out = probe_plain(probe_x)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_x, use_reentrant=False)
    probe_twice_out.sum().backward()
    probe_same = probe_m is None or probe_m == 1.0
    assert probe_twice.num_batches_tracked.item() == 2 * probe_plain.num_batches_tracked.item() == 2, f"momentum {probe_m}: num_batches_tracked doubles"
    assert torch.allclose(probe_twice.running_mean, probe_plain.running_mean) == probe_same, f"momentum {probe_m}: the same mean as plain"
    assert torch.allclose(probe_twice.running_var, probe_plain.running_var) == probe_same, f"momentum {probe_m}: the same var as plain"
    # 只有特征 0 到 3 的批次均值等于 running_mean（这一步之前是 0）：只有这几个特征仍然相同
    probe_centred = (probe_x - probe_x.mean(0) * (torch.arange(8) < 4)).detach()
    probe_plain, probe_twice = torch.nn.BatchNorm1d(8, momentum=probe_m), torch.nn.BatchNorm1d(8, momentum=probe_m)
    probe_before = probe_twice.running_mean.clone()
    probe_plain_out = probe_plain(probe_centred)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_centred, use_reentrant=False)
    probe_twice_out.sum().backward()
    assert torch.equal(torch.isclose(probe_twice.running_mean, probe_plain.running_mean, atol=1e-6),
                       torch.isclose(probe_centred.mean(0), probe_before, atol=1e-6) | probe_same), (
        f"momentum {probe_m}: running_mean differs from plain where the batch mean differs from running_mean")
# momentum=None 时连跑三步，每步的批次不同，均值都不等于 running_mean：每一步之后，每批记两次得到的平均值
# 与普通运行的平均值只差浮点舍入误差
probe_plain, probe_twice = torch.nn.BatchNorm1d(8, momentum=None), torch.nn.BatchNorm1d(8, momentum=None)
for probe_step in range(3):
    probe_batch = (probe_x * (probe_step + 1) + 2.0 * probe_step).detach()
    assert not torch.isclose(probe_batch.mean(0), probe_plain.running_mean).any(), f"step {probe_step}: a new mean"
    probe_plain_out = probe_plain(probe_batch)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_batch, use_reentrant=False)
    probe_twice_out.sum().backward()
    assert probe_twice.num_batches_tracked.item() == 2 * probe_plain.num_batches_tracked.item() == 2 * probe_step + 2, (
        f"momentum None, step {probe_step}: num_batches_tracked doubles")
    assert torch.allclose(probe_twice.running_mean, probe_plain.running_mean), f"momentum None, step {probe_step}: mean"
    assert torch.allclose(probe_twice.running_var, probe_plain.running_var), f"momentum None, step {probe_step}: var"
# sphinx_gallery_end_ignore

# %%
# 一步里函数没有调用两次时
# ------------------------
#
# 第二次调用来自 ``backward()``：每一次需要函数所保存张量的反向传播，都会再调用它一次。一步里有两次反向传播（先对第一个损失 ``backward(retain_graph=True)``，再对第二个损失 ``backward()``）时，函数被调用三次；在 ``torch.no_grad()`` 下做前向传播（比如模型仍处于训练模式时做验证）时，只调用一次。按一批数据更新两次算出的 momentum 1 - (1 - 0.1) ** 0.5，这时得到的 ``running_mean`` 与普通层用默认 momentum 更新一次的结果不同：它只适用于每步一次 ``backward()``。

fitted = 1 - (1 - 0.1) ** 0.5
torch.manual_seed(0)
batch = torch.randn(8, 3)
plain_layer = torch.nn.BatchNorm1d(3)
plain_layer(batch)


def fitted_layer(backward_passes):
    layer = torch.nn.BatchNorm1d(3, momentum=fitted)
    inputs = batch.clone().requires_grad_()
    with torch.set_grad_enabled(backward_passes > 0):
        out = checkpoint(layer, inputs, use_reentrant=False)
    for _ in range(backward_passes):
        out.pow(2).sum().backward(retain_graph=True)
    return layer


fitted_runs = {"forward under no_grad()": 0, "one backward()": 1, "two backward()": 2}
matches = {}
for name, backward_passes in fitted_runs.items():
    layer = fitted_layer(backward_passes)
    matches[name] = torch.allclose(layer.running_mean, plain_layer.running_mean, atol=1e-6)
    print(
        f"{name:<24} num_batches_tracked {layer.num_batches_tracked.item()}  running_mean as plain: {matches[name]}"
    )
assert list(matches.values()) == [False, True, False], "the fitted momentum matches plain only with one backward()"
# sphinx_gallery_start_ignore
assert [fitted_layer(n).num_batches_tracked.item() for n in fitted_runs.values()] == [1, 2, 3], (
    "under no_grad the function runs once, with one backward() twice, with two backward() three times"
)
probe_layer, probe_in = torch.nn.BatchNorm1d(3), torch.linspace(-2.0, 2.0, 24, requires_grad=True).reshape(8, 3)
probe_out = checkpoint(probe_layer, probe_in, use_reentrant=False)
torch.autograd.grad(probe_out.pow(2).sum(), probe_in, retain_graph=True)
probe_out.pow(2).sum().backward()
assert probe_layer.num_batches_tracked.item() == 3, "torch.autograd.grad is a backward pass too: three calls"
probe_frozen, probe_head = torch.nn.BatchNorm1d(3, affine=False), torch.nn.Linear(3, 1)
probe_frozen_loss = probe_head(checkpoint(probe_frozen, batch, use_reentrant=False)).sum()
probe_frozen_loss.backward()
assert probe_frozen.num_batches_tracked.item() == 1, "a backward() that does not reach the function: one call"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``checkpoint(fn, x, use_reentrant=False)`` 在前向传播中调用 ``fn`` 一次；``backward()`` 需要 ``fn`` 里的运算保存的张量（不包括运算包装成张量的 Python 数字）时，每次反向传播都再调用它一次，而这次调用可能提前停下。``fn`` 除了计算输出之外做的事，在这次调用停下之前的部分都会再做一遍：在只有一次 ``backward()`` 的一步里，``BatchNorm`` 用同一批数据再更新一次滑动统计量，原地修改的计数器数两次。只要第二次调用算出的和第一次相同，梯度就是对的：``dropout`` 能拿回它的掩码（默认 ``preserve_rng_state=True`` 时），但函数先原地修改、再读取的张量可能悄悄给出不同的梯度。把 ``BatchNorm`` 和原地计数之类的记账操作放到被 ``checkpoint`` 包住的函数外面。设不用梯度检查点时要用的数值 momentum 是 m，把 ``BatchNorm`` 的 ``momentum`` 设成 1 - (1 - m) ** 0.5，只修正它的滑动统计量，不修正它的 ``num_batches_tracked``，而且只在每步恰好有一次 ``backward()`` 走到这个函数时成立：一步两次反向传播时不成立，在 ``torch.no_grad()`` 下也不成立。
