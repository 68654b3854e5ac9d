"""
.. _questions-ema:

权重的指数滑动平均（EMA）：副本必须一直是副本
=============================================

.. admonition:: 答案
   :class: answer

   ``ema = model`` 只是给模型多起了一个名字，``model.state_dict()`` 里的张量用的是模型的内存，所以“平均”每一步都和模型一样。在不需要梯度的深拷贝副本上求平均，并在 ``torch.no_grad()`` 下更新它（缓冲区也要复制，见下文）：

   .. code-block:: python

      ema = copy.deepcopy(model).requires_grad_(False)
      with torch.no_grad():
          for e, p in zip(ema.parameters(), model.parameters(), strict=True):
              e.lerp_(p, 1 - decay)

权重的指数滑动平均（exponential moving average，EMA）是另一组权重，每一步朝模型的权重挪一小步：
``ema = decay * ema + (1 - decay) * weight``。EMA 模型就是模型本身时，这份“平均”从来就不是副本。本页先用三种这样的错误写法训练一个小网络，再分别用手写的 EMA 和
``torch.optim.swa_utils.AveragedModel`` 训练，用公式逐一核对，看批归一化（batch norm）的缓冲区会怎样，最后解决某些模型上
``copy.deepcopy`` 抛出的错误：“Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.”
"""

# %%
# 辅助函数
# --------
#
# 一个带批归一化的小网络（它前面的线性层不带偏置，偏置会被批归一化抵消）、四批固定的数据，以及用 SGD 训练一步的函数。
# ``ema_formula`` 直接按公式计算一串记录值的平均：下标为 0 的值权重是 ``decay ** n``，下标为 ``k`` 的值（``k`` 从 1 到最后一个下标 ``n``）权重是
# ``(1 - decay) * decay ** (n - k)``。``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import copy
import warnings

import torch
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn, update_bn


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(3, 4, bias=False), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1))


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()


def ema_formula(values, decay):
    n = len(values) - 1
    return decay**n * values[0] + sum((1 - decay) * decay ** (n - k) * v for k, v in enumerate(values) if k > 0)


def snapshot(model):
    return [p.detach().clone() for p in model.parameters()]


torch.manual_seed(0)
batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(4)]
decay = 0.9

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
# 错误写法：“平均”就是模型本身
# ----------------------------
#
# 下面三种初始化 EMA 的写法看起来都对，其实都不对：``ema = model``；``ema_state = model.state_dict()``，它里面的张量是新对象，用的却是模型自己的内存；以及用 ``load_state_dict`` 装好的真副本，但要平均的张量列表取自错误的模块。每种写法都从头训练一个新模型四步，每步之后用
# ``lerp_`` 把“平均”的张量朝模型的参数挪一步。三种写法里被平均的，要么就是模型自己的参数，要么（用 ``state_dict()`` 时）是与这些参数共享内存的新张量，所以每一步之后，“平均”都等于当前的模型。


def start_alias(model):
    ema = model
    return list(ema.parameters())


def start_state_dict(model):
    ema_state = model.state_dict()
    return [ema_state[name] for name, _ in model.named_parameters()]


def start_wrong_list(model):
    ema = make_model()
    ema.load_state_dict(model.state_dict())
    ema_params = list(model.parameters())  # 本意是 ema.parameters()
    return ema_params


mistakes = {}
for name, start in {
    "ema = model": start_alias,
    "ema_state = model.state_dict()": start_state_dict,
    "ema_params = list(model.parameters())": start_wrong_list,
}.items():
    torch.manual_seed(1)
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    averaged = start(model)
    equal_at_step = []
    for x, y in batches:
        train_step(model, optimizer, x, y)
        with torch.no_grad():
            for e, p in zip(averaged, model.parameters(), strict=True):
                e.lerp_(p, 1 - decay)
        equal_at_step.append(all(torch.equal(e, p) for e, p in zip(averaged, model.parameters(), strict=True)))
    mistakes[name] = equal_at_step
    print(name)
    print("    average == model after each step:", equal_at_step)
    print("    same storage:", same_storage(averaged[0], model[0].weight))
    assert same_storage(averaged[0], model[0].weight), f"{name}: the average shares the model's storage"
assert all(all(steps) for steps in mistakes.values()), "in each mistake the average equals the model at every step"
# sphinx_gallery_start_ignore
assert len(mistakes) == 3 and all(len(steps) == 4 for steps in mistakes.values()), "three runs of four steps"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：model[0].weight 和 ema_state["0.weight"] 是两个张量对象，共享一块存储 S1。
#
#    ``model[0].weight`` 和 ``ema_state["0.weight"]`` 是同一块存储 ``S1`` 上的两个张量对象：写入其中一个，就是写入另一个。

model = make_model()
ema_state = model.state_dict()
draw_memory("ema_state = model.state_dict()", **{"model[0].weight": model[0].weight, 'ema_state["0.weight"]': ema_state["0.weight"]})
# sphinx_gallery_start_ignore
assert same_storage(ema_state["0.weight"], model[0].weight), "state_dict() shares the weight's storage"
assert ema_state["0.weight"] is not model[0].weight, "state_dict() holds new tensor objects"
assert all(averaged_tensor is parameter for start_checked in (start_alias, start_wrong_list)
           for averaged_tensor, parameter in zip(start_checked(model), model.parameters(), strict=True)), (
    "with ema = model and with the wrong list, the tensors averaged are the model's parameters")
assert all(averaged_tensor is not parameter and same_storage(averaged_tensor, parameter)
           for averaged_tensor, parameter in zip(start_state_dict(model), model.parameters(), strict=True)), (
    "with state_dict(), every tensor averaged is a new tensor on the memory of a parameter")
# sphinx_gallery_end_ignore

# %%
# 真正求平均的 EMA
# ----------------
#
# ``copy.deepcopy(model)`` 让 EMA 拥有自己的参数；``requires_grad_(False)`` 让它们不进入自动求导（autograd）；每一步在
# ``torch.no_grad()`` 下把它们朝模型的参数挪一步，并把模型的缓冲区，即批归一化的滑动统计量（running statistics），复制到 EMA 自己的缓冲区里。我们在训练前和每一步之后记下模型参数的快照（``p.detach().clone()``），再用
# ``ema_formula`` 对这些快照计算，与 EMA 比较：每一步之后，EMA 都等于公式的结果，每个参数都与模型的不同，缓冲区则与模型的相同。

torch.manual_seed(1)
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
ema = copy.deepcopy(model).requires_grad_(False)
snapshots = [snapshot(model)]
matches, differs, buffers_follow = [], [], []
for x, y in batches:
    train_step(model, optimizer, x, y)
    with torch.no_grad():
        for e, p in zip(ema.parameters(), model.parameters(), strict=True):
            e.lerp_(p, 1 - decay)
        for e, b in zip(ema.buffers(), model.buffers(), strict=True):
            e.copy_(b)
    snapshots.append(snapshot(model))
    expected = [ema_formula([s[i] for s in snapshots], decay) for i in range(len(snapshots[0]))]
    matches.append(all(torch.allclose(e, want) for e, want in zip(ema.parameters(), expected, strict=True)))
    differs.append(all(not torch.equal(e, p) for e, p in zip(ema.parameters(), model.parameters(), strict=True)))
    buffers_follow.append(all(torch.equal(e, b) for e, b in zip(ema.buffers(), model.buffers(), strict=True)))
print("EMA == formula after each step:", matches)
print("EMA != model after each step:  ", differs)
print("EMA's buffers == model's after each step:", buffers_follow)
print("model[2].weight:", model[2].weight.detach())
print("ema[2].weight:  ", ema[2].weight.detach())
print("same storage:", same_storage(ema[0].weight, model[0].weight))
assert all(matches) and all(differs), "the deep copy follows the formula and is not the model"
assert all(buffers_follow), "the buffer loop keeps the EMA's running statistics the model's"
# sphinx_gallery_start_ignore
for avg, live in zip(ema.parameters(), model.parameters(), strict=True):
    assert bytes_apart(avg, live), "every EMA parameter has memory of its own"
    assert avg.is_leaf and not avg.requires_grad and avg.grad is None, "the EMA stays out of autograd"
assert len(matches) == 4, "the EMA was compared with the formula after each of four steps"
for avg, live in zip(ema.buffers(), model.buffers(), strict=True):
    assert bytes_apart(avg, live), "every EMA buffer has memory of its own"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：model[0].weight 和 ema[0].weight 是两个张量对象，分别在两块存储 S1 和 S2 上。
#
#    ``copy.deepcopy`` 之后，``model[0].weight`` 和 ``ema[0].weight`` 分别在两块存储 ``S1`` 和 ``S2`` 上。

draw_memory("ema = copy.deepcopy(model)", **{"model[0].weight": model[0].weight, "ema[0].weight": ema[0].weight})
# sphinx_gallery_start_ignore
assert bytes_apart(model[0].weight, ema[0].weight), "model[0].weight and ema[0].weight are on two storages"
# sphinx_gallery_end_ignore

# %%
# 批归一化的缓冲区
# ----------------
#
# 第二个循环少不得：遍历 ``parameters()`` 的循环碰不到批归一化的 ``running_mean``、``running_var`` 和 ``num_batches_tracked``，它们是缓冲区。下面用同一个种子做同样的训练，EMA
# 只对 ``parameters()`` 求平均：它的参数是同样的平均值，缓冲区却仍是训练前 ``copy.deepcopy`` 复制过来的值（全 0、全 1、0），而模型的已经变了。在 eval 模式下，这样的 EMA
# 就用这些初始值做归一化。``AveragedModel`` 会替你复制缓冲区（见下文）。

torch.manual_seed(1)
bn_model = make_model()
bn_optimizer = torch.optim.SGD(bn_model.parameters(), lr=0.1)
params_only = copy.deepcopy(bn_model).requires_grad_(False)
for x, y in batches:
    train_step(bn_model, bn_optimizer, x, y)
    with torch.no_grad():
        for e, p in zip(params_only.parameters(), bn_model.parameters(), strict=True):
            e.lerp_(p, 1 - decay)
print("model[1].running_mean:      ", bn_model[1].running_mean)
print("params_only[1].running_mean:", params_only[1].running_mean)
print("params_only[1].running_var: ", params_only[1].running_var)
print("num_batches_tracked, model:", bn_model[1].num_batches_tracked.item(),
      " params_only:", params_only[1].num_batches_tracked.item())  # fmt: skip
assert torch.equal(params_only[1].running_mean, torch.zeros(4)) and torch.equal(params_only[1].running_var, torch.ones(4)), (
    "params_only keeps its initial running statistics"
)
assert params_only[1].num_batches_tracked.item() == 0 and bn_model[1].num_batches_tracked.item() == 4, (
    "params_only counted no batch, the model four"
)
# sphinx_gallery_start_ignore
assert all(torch.equal(a, b) for a, b in zip(params_only.parameters(), ema.parameters(), strict=True)), (
    "params_only's parameters equal the EMA's")
assert all(torch.equal(a, b) for a, b in zip(bn_model.buffers(), ema.buffers(), strict=True)), "ema has the model's"
assert not torch.equal(bn_model[1].running_mean, torch.zeros(4)), "the model's running mean moved"
evaluated = copy.deepcopy(params_only)
evaluated.eval()
probe_inputs = batches[0][0]
probe_hidden = evaluated[0](probe_inputs)
by_hand = evaluated[2]((probe_hidden - torch.zeros(4)) / torch.sqrt(torch.ones(4) + evaluated[1].eps)
                       * evaluated[1].weight + evaluated[1].bias)
with_model_statistics = evaluated[2]((probe_hidden - bn_model[1].running_mean)
                                     / torch.sqrt(bn_model[1].running_var + evaluated[1].eps)
                                     * evaluated[1].weight + evaluated[1].bias)
assert torch.allclose(evaluated(probe_inputs), by_hand) and not torch.allclose(by_hand, with_model_statistics), (
    "in eval mode, params_only normalises with its initial running mean 0 and running variance 1, not the model's")
# sphinx_gallery_end_ignore

# %%
# 为什么要 ``torch.no_grad()`` 和 ``requires_grad_(False)``
# ---------------------------------------------------------
#
# 不在 ``torch.no_grad()`` 下，自动求导会记录 ``lerp_``。副本的参数仍需要梯度时，它抛出错误；副本的参数不需要梯度时，它能运行，但只要模型的那个参数需要梯度，就会把
# EMA 的参数变成带 ``grad_fn`` 的非叶子张量（non-leaf tensor），连到模型的计算图上。有了 ``requires_grad_(False)``，运行 EMA
# 模型（这里像评估时那样用 eval 模式）也不会把它的参数记进计算图：输入不需要梯度时（如这里），输出也不需要梯度；输入需要梯度时，输出的计算图只通到这个输入。

still_trainable = copy.deepcopy(model)
try:
    still_trainable[0].weight.lerp_(model[0].weight, 1 - decay)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("lerp_ in grad mode on a leaf that requires grad must raise")
frozen = copy.deepcopy(model).requires_grad_(False)
frozen[0].weight.lerp_(model[0].weight, 1 - decay)
print("frozen[0].weight.is_leaf:", frozen[0].weight.is_leaf)
print("frozen[0].weight.grad_fn:", type(frozen[0].weight.grad_fn).__name__)
ema.eval()
out = ema(batches[0][0])
print("out.requires_grad:", out.requires_grad)
assert not frozen[0].weight.is_leaf and not out.requires_grad, (
    "lerp_ in grad mode makes a non-leaf; the frozen EMA's output does not require grad"
)
# sphinx_gallery_start_ignore
inputs_of_lerp = [fn for fn, _ in frozen[0].weight.grad_fn.next_functions if fn is not None]
assert [getattr(fn, "variable", None) is model[0].weight for fn in inputs_of_lerp] == [True], "tied to model's graph"


def graph_leaves_of(node):
    if node is None:
        return []
    own = [node.variable] if hasattr(node, "variable") else []
    return own + [leaf for next_node, _ in node.next_functions for leaf in graph_leaves_of(next_node)]


input_needing_grad = torch.tensor(batches[0][0].tolist(), requires_grad=True)
assert [leaf is input_needing_grad for leaf in graph_leaves_of(ema(input_needing_grad).grad_fn)] == [True], (
    "the frozen EMA's output for an input that requires grad has a graph whose only leaf is that input")
# sphinx_gallery_end_ignore

# %%
# 用 ``AveragedModel`` 做 EMA
# ---------------------------
#
# ``AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay))`` 把模型深拷贝到 ``.module`` 里：它的参数和缓冲区都不与模型的共享内存。每次
# ``update_parameters(model)`` 求一次平均；第一次直接复制模型，所以平均从第一步之后的权重开始（``n_averaged`` 记录更新次数）。我们用同一个种子从头训练一个新模型，同时更新两个
# ``AveragedModel``：一个用默认的 ``use_buffers=False``，一个用 ``use_buffers=True``。

torch.manual_seed(1)
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
averaged = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay))
with_buffers = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay), use_buffers=True)
pairs = list(zip(averaged.module.state_dict().values(), model.state_dict().values(), strict=True))
print("same storage (any of", len(pairs), "tensors):", any(same_storage(a, m) for a, m in pairs))
assert all(bytes_apart(a, m) for a, m in pairs), "AveragedModel deep-copies parameters and buffers"
steps, running_means, buffers_copied = [], [], []
for x, y in batches:
    train_step(model, optimizer, x, y)
    averaged.update_parameters(model)
    with_buffers.update_parameters(model)
    steps.append(snapshot(model))
    running_means.append(model[1].running_mean.clone())
    buffers_copied.append(torch.equal(averaged.module[1].running_mean, model[1].running_mean))
expected = [ema_formula([s[i] for s in steps], decay) for i in range(len(steps[0]))]
print("n_averaged:", averaged.n_averaged.item())
print("averaged.module[2].weight:", averaged.module[2].weight.detach())
print("formula from the first update:", expected[3])
assert all(torch.allclose(a, want) for a, want in zip(averaged.module.parameters(), expected, strict=True)), (
    "AveragedModel follows the formula from the first update"
)
# sphinx_gallery_start_ignore
assert averaged.n_averaged.item() == 4, "averaged counted four update_parameters() calls"
assert not torch.allclose(averaged.module[2].weight, ema[2].weight), "a start at step 1 is another average than one at step 0"
assert all(
    torch.allclose(a, want) for a, want in zip(with_buffers.module.parameters(), expected, strict=True)
), "use_buffers=True averages the parameters the same way"
# sphinx_gallery_end_ignore

# %%
# 两者如何处理缓冲区：默认的 ``use_buffers=False`` 下，每次更新都把模型的缓冲区复制到副本自己的缓冲区里（四步中每一步之后，滑动均值都等于模型的）。``use_buffers=True`` 下，缓冲区和参数一起求平均：滑动均值等于对模型各步滑动均值套用公式的结果；整数缓冲区 ``num_batches_tracked`` 在这四次更新里一直停在第一次更新复制来的 1，而模型的已经数到 4。每次更新取副本计数的 ``decay`` 倍加上模型计数的 ``1 - decay`` 倍，写回整数时小数部分被舍掉：在这个 ``decay`` 下，像本页这样从新建的批归一化开始、每次更新之间模型只数一批时，副本的计数到第十一次更新才第一次变化。

print("use_buffers=False, running_mean == model's after each step:", buffers_copied)
print("use_buffers=True,  running_mean:", with_buffers.module[1].running_mean)
print("formula over the model's running means:", ema_formula(running_means, decay))
print(
    "num_batches_tracked, model:", model[1].num_batches_tracked.item(),
    " use_buffers=False:", averaged.module[1].num_batches_tracked.item(),
    " use_buffers=True:", with_buffers.module[1].num_batches_tracked.item(),
)  # fmt: skip
assert all(buffers_copied) and torch.allclose(with_buffers.module[1].running_mean, ema_formula(running_means, decay)), (
    "use_buffers=False copies the buffers, use_buffers=True averages them"
)
assert with_buffers.module[1].num_batches_tracked.item() == 1 and averaged.module[1].num_batches_tracked.item() == 4, (
    "num_batches_tracked: 1 with use_buffers=True, 4 with use_buffers=False"
)
# sphinx_gallery_start_ignore
assert bytes_apart(averaged.module[1].running_mean, model[1].running_mean), "copied into its own buffer"
assert model[1].num_batches_tracked.item() == 4, "the model counted four batches"
counting = torch.nn.BatchNorm1d(1)
counted = AveragedModel(counting, multi_avg_fn=get_ema_multi_avg_fn(decay), use_buffers=True)
counts = []
for _ in range(11):
    counting(torch.arange(4.0).reshape(4, 1))
    counted.update_parameters(counting)
    counts.append(counted.module.num_batches_tracked.item())
assert counts == [1] * 10 + [2], (
    "use_buffers=True, from a fresh batch norm counting one batch per update: the averaged num_batches_tracked "
    "first moves at the eleventh update")
# sphinx_gallery_end_ignore

# %%
# 为平均后的权重重算批归一化统计量
# --------------------------------
#
# 无论哪种方式，滑动统计量都来自别的权重，而不是平均后的权重。``update_bn(loader, averaged)``
# 重新计算它们：先重置，再让平均后的模型把这几批数据跑一遍。之后，滑动均值就是批归一化层输入的均值，而这些输入是用平均后的权重算出来的（四批数据大小相同），不再来自原模型。

update_bn([x for x, _ in batches], averaged)
with torch.no_grad():
    inputs = torch.cat([averaged.module[0](x) for x, _ in batches])
print("after update_bn, running_mean:", averaged.module[1].running_mean)
print("mean of the inputs:           ", inputs.mean(0))
assert torch.allclose(averaged.module[1].running_mean, inputs.mean(0)), "update_bn recomputes the statistics"
# sphinx_gallery_start_ignore
assert not torch.allclose(averaged.module[1].running_mean, model[1].running_mean), "no longer the model's"
assert averaged.module[1].momentum == model[1].momentum, "update_bn puts the momentum back"
# sphinx_gallery_end_ignore

# %%
# “graph leaves”：``copy.deepcopy`` 拒绝复制模型
# ----------------------------------------------
#
# ``copy.deepcopy`` 只复制叶子张量（leaf tensor），见 :ref:`“copy.deepcopy”那一页 <questions-deepcopy>`。模块里存着一个非叶子张量（带 ``grad_fn`` 的张量，比如在梯度模式（grad mode）下由需要梯度的参数做乘法得到的张量）时，它无法被深拷贝，所以
# ``copy.deepcopy(model)`` 和 ``AveragedModel(model)`` 都无法为它建 EMA。这里有两个这样的模块，都在梯度模式下建出：一个用已弃用的
# ``torch.nn.utils.weight_norm`` 包装（它存着由 ``weight_g`` 和 ``weight_v`` 算出的 ``weight``，包装时算一次，每次前向传播再算一次；调用时发出警告），另一个存着
# ``self.w2 = self.w * 2``。两条途径对两个模块都抛出同样的错误，在 ``torch.no_grad()`` 下也一样：那个张量早已有了 ``grad_fn``。由冻结的参数（``requires_grad=False``）算出的张量是叶子张量，这样的模块可以深拷贝。旧的 ``weight_norm`` 在 ``torch.no_grad()`` 下包装时，或在 ``torch.no_grad()`` 或 ``torch.inference_mode()`` 下做一次前向传播（比如验证）之后，存的 ``weight`` 也是叶子张量：这时两条途径都能复制这个模块，直到它下一次在梯度模式下做前向传播（三种情形都由隐藏的检查验证）。


class Doubled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))
        self.w2 = self.w * 2


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old_style = torch.nn.utils.weight_norm(torch.nn.Linear(3, 1))
print(f"{caught[0].category.__name__}: {caught[0].message}")
print("old_style.weight.is_leaf:", old_style.weight.is_leaf)
messages = []
for name, module in {"weight_norm": old_style, "self.w2 = self.w * 2": Doubled()}.items():
    for route, make_copy in {"copy.deepcopy": copy.deepcopy, "AveragedModel": AveragedModel}.items():
        for grad_mode in (True, False):
            try:
                with torch.set_grad_enabled(grad_mode):
                    make_copy(module)
            except RuntimeError as e:
                messages.append(str(e))
                print(f"{name:<21} {route:<14} grad mode {grad_mode!s:<5}: {type(e).__name__}")
            else:
                raise AssertionError(f"{route} of the {name} module must raise")
print(messages[0])
assert len(messages) == 8 and all(m == messages[0] for m in messages), (
    "both routes raise one error for both modules, in and out of grad mode"
)
assert messages[0].startswith("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol"), (
    "the error: only graph leaves support deepcopy"
)
# sphinx_gallery_start_ignore
assert issubclass(caught[0].category, FutureWarning) and "deprecated" in str(caught[0].message), (
    "the old weight_norm warns that it is deprecated"
)
assert not Doubled().w2.is_leaf and not old_style.weight.is_leaf and Doubled().w2.grad_fn is not None and (
    old_style.weight.grad_fn is not None), "both modules keep a non-leaf"
frozen_holder = torch.nn.Module()
frozen_holder.register_parameter("w", torch.nn.Parameter(torch.ones(2), requires_grad=False))
with torch.enable_grad():
    frozen_holder.register_buffer("w2", frozen_holder.w * 2)
assert frozen_holder.w2.is_leaf and bytes_apart(copy.deepcopy(frozen_holder).w2, frozen_holder.w2), (
    "a tensor computed in grad mode from a frozen parameter is a leaf, and its module deep-copies"
)
assert isinstance(AveragedModel(frozen_holder).module.w2, torch.Tensor), "AveragedModel copies that module too"
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # 旧的 weight_norm 会警告它已被弃用
    with torch.no_grad():
        probe_quiet = torch.nn.utils.weight_norm(torch.nn.Linear(3, 1))
    probe_wn = torch.nn.utils.weight_norm(torch.nn.Linear(3, 1))
    probe_inference = torch.nn.utils.weight_norm(torch.nn.Linear(3, 1))
with torch.no_grad():
    probe_wn(torch.ones(1, 3))
with torch.inference_mode():
    probe_inference(torch.ones(1, 3))
probe_cases = {
    "wrapping under no_grad": probe_quiet,
    "a forward pass under no_grad": probe_wn,
    "a forward pass under inference_mode": probe_inference,
}
for probe_case, probe_module in probe_cases.items():
    assert probe_module.weight.is_leaf, f"after {probe_case} the old weight_norm's weight is a leaf"
    assert bytes_apart(copy.deepcopy(probe_module).weight_v, probe_module.weight_v), (
        f"after {probe_case} the module with the old weight_norm deep-copies"
    )
    assert bytes_apart(AveragedModel(probe_module).module.weight_v, probe_module.weight_v), (
        f"after {probe_case} AveragedModel copies it too"
    )
    probe_module(torch.ones(1, 3))
    try:
        copy.deepcopy(probe_module)
    except RuntimeError as probe_error:
        assert str(probe_error).startswith("Only Tensors created explicitly by the user (graph leaves)"), (
            f"after {probe_case}, a forward pass in grad mode brings the deepcopy error back"
        )
    else:
        raise AssertionError(f"after {probe_case} and a forward pass in grad mode, deepcopy must raise again")
# sphinx_gallery_end_ignore

# %%
# 权重归一化的解决办法就是警告里提到的 ``torch.nn.utils.parametrizations.weight_norm``：它在读取权重时才计算，模块上只存叶子张量。这样的模块在前向传播前后都能深拷贝，
# ``AveragedModel`` 平均的是它列出的参数：模长 ``original0``、方向 ``original1`` 和偏置，四步之后每一个都等于公式的结果。（对于 ``self.w2``，把它放到
# ``forward`` 里计算，见 :ref:`“copy.deepcopy”那一页 <questions-deepcopy>`。）

torch.manual_seed(1)
new_style = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 1))
new_optimizer = torch.optim.SGD(new_style.parameters(), lr=0.1)
new_ema = AveragedModel(new_style, multi_avg_fn=get_ema_multi_avg_fn(decay))
new_steps = []
for x, y in batches:
    train_step(new_style, new_optimizer, x, y)
    new_ema.update_parameters(new_style)
    new_steps.append(snapshot(new_style))
new_expected = [ema_formula([s[i] for s in new_steps], decay) for i in range(len(new_steps[0]))]
print("parameters:", [name for name, _ in new_ema.module.named_parameters()])
print("new_ema.module.weight:", new_ema.module.weight.detach())
print("new_style.weight:     ", new_style.weight.detach())
twin = copy.deepcopy(new_style)
print("deepcopy after training, same storage:", same_storage(twin.parametrizations.weight.original1, new_style.parametrizations.weight.original1))
assert all(torch.allclose(a, want) for a, want in zip(new_ema.module.parameters(), new_expected, strict=True)), (
    "the EMA of the new weight_norm follows the formula"
)
assert bytes_apart(twin.parametrizations.weight.original1, new_style.parametrizations.weight.original1), (
    "a deep copy after training has memory of its own"
)
# sphinx_gallery_start_ignore
assert not torch.allclose(new_ema.module.weight, new_style.weight), "the average is not the model"
assert torch.equal(twin.weight, new_style.weight), "the deep copy computes the same weight"
assert [name for name, _ in new_ema.module.named_parameters()] == [
    "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"], (
    "AveragedModel lists three parameters: the bias, original0 and original1")
assert all(torch.allclose(module.weight, module.parametrizations.weight.original0 * (
    module.parametrizations.weight.original1 / module.parametrizations.weight.original1.norm(dim=1, keepdim=True)))
    and module.parametrizations.weight.original0.shape == (1, 1) for module in (new_style, new_ema.module)), (
    "original0 is the magnitude and original1 the direction: weight = original0 * original1 / original1.norm(dim=1, keepdim=True)")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# EMA 需要自己的权重：``ema = model`` 指的是模型本身，``model.state_dict()`` 里的张量用的是模型的内存，基于它们的 EMA 每一步之后都等于模型。把模型深拷贝一份，关掉它的梯度，在
# ``torch.no_grad()`` 下把它的参数朝模型的参数挪，并把模型的缓冲区（批归一化的滑动统计量）复制过来；或者交给带 ``get_ema_multi_avg_fn`` 的
# ``AveragedModel``：它默认在每次更新时复制缓冲区，``use_buffers=True`` 时对缓冲区求平均，``update_bn``
# 为平均后的权重重算批归一化统计量。像旧的 ``weight_norm`` 在梯度模式下包装或前向传播之后那样，存着非叶子张量（带 ``grad_fn`` 的张量）的模块无法深拷贝；参数化的 ``weight_norm`` 可以。
