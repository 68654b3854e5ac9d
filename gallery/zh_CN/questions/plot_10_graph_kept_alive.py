"""
.. _questions-graph-kept-alive:

内存一直增长：``total_loss += loss`` 留住了每一步的计算图
=========================================================

.. admonition:: 答案
   :class: answer

   带 ``grad_fn`` 的损失连着整张计算图，所以损失的累计值留住了每一步的计算图。改为累加数值，或 detach 之后的张量：

   .. code-block:: python

      total_float += loss.item()
      total_detached += loss.detach()

循环占用的内存一步比一步多、一直增长（读者常说的内存泄漏；在 GPU 上则说成显存泄漏，或者跑了许多步之后显存不足、报 OOM）？先看为了记日志而累加损失的那一行。累加损失看似无害；可是带着 ``grad_fn`` 的损失会把计算图一起带走：累计值留住了每一步的自动求导（autograd）节点；如果没有对这个损失调用 ``backward()`` 方法（例如在 ``torch.no_grad()`` 之外跑的评估循环），或者调用的是 ``backward(retain_graph=True)``，这些节点保存的张量也一并留住。本页在每一步数一数从累计值出发能到达多少个 autograd 节点（随步数线性增长），检查做与不做 ``backward()`` 时累计值留住了哪些保存的张量，说明这个循环留下的这张图根本用不了，再用 ``loss.item()`` 或
``loss.detach()`` 修好循环。PyTorch 的 FAQ 有一节专门提醒过这种写法：`“Don't accumulate history across your training loop”
<https://docs.pytorch.org/docs/stable/notes/faq.html>`__。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``count_nodes`` 从张量的 ``grad_fn`` 出发，沿 ``next_functions`` 遍历计算图，每个节点只数一次。``train``
# 运行一个小训练循环的几步，把每一步的损失交给 ``record``，由它像读者的循环那样维护累计值。

import torch


def count_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def train(record, steps=5):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    for _ in range(steps):
        x = torch.randn(3)
        loss = ((w * x) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        record(loss)
    return loss


# %%
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
# 现象：累计值长出一张计算图
# --------------------------
#
# ``total_loss += loss`` 把损失当作张量相加，加法本身也在计算图里。每一步之后，累计值仍能到达之前每一步的节点：节点数每步增加同样多，恰好是一张损失计算图的节点数，所以随步数线性增长。

total_loss = 0
nodes = []


def keep_tensor(loss):
    global total_loss
    total_loss += loss
    nodes.append(count_nodes(total_loss))


last_loss = train(keep_tensor)
print("nodes in one loss graph:", count_nodes(last_loss))
print("nodes reachable from total_loss after each step:", nodes)
print("total_loss:", total_loss)
growth = [after - before for before, after in zip(nodes[:-1], nodes[1:], strict=True)]
print("growth per step:", growth)
assert growth == [count_nodes(last_loss)] * 4, "the total must grow by one loss graph's node count per step"

# %%
# .. figure-caption::
#    :alt: 示意图：五步之后从 total_loss 能走到的自动求导计算图：一串 AddBackward0 节点，每个节点分出 MeanBackward0、PowBackward0、MulBackward0 一支，各支最后都到同一个 AccumulateGrad 和叶子。
#
#    五步之后从 ``total_loss`` 能走到的计算图：一串 ``AddBackward0`` 节点，下面挂着每一步的损失计算图。

draw_graph("total_loss after five steps", total_loss)
# sphinx_gallery_start_ignore
assert len(nodes) == 5, "five steps"
# sphinx_gallery_end_ignore

# %%
# 这张图毫无用处：每次 ``loss.backward()`` 都已经释放了它保存的值，所以对累计值做反向传播会报错。

try:
    total_loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "backward through the graph a second time" in str(e), "the saved values were freed"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward through the kept graph must raise")

# %%
# 节点总会留住，保存的张量只在没有 ``backward()`` 时留住
# ------------------------------------------------------
#
# 每一步的节点都握着为反向传播保存的张量：``w * x`` 保存了 ``x``，``** 2`` 保存了 ``w * x``。``backward()``
# 会释放它们，所以在上面的训练循环里，累计值只留住节点。如果没有对损失调用 ``backward()`` 方法（例如在 ``torch.no_grad()``
# 之外跑的评估循环），或者调用的是 ``backward(retain_graph=True)``，累计值还会让每一步保存的张量都活着。``sum_losses``
# 用 ``+=`` 跑这个循环，做或不做 ``backward()``，并对每一步的 ``x`` 和 ``w * x`` 各留一个弱引用（``weakref.ref``）。弱引用不会让张量活着：张量被释放后，它读出的是 ``None``。输出里的 ``nodes reachable`` 是能到达的节点数，``saved tensors alive`` 是仍然活着的保存张量个数。

import weakref


def sum_losses(backward, retain_graph=False, steps=5):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    total, saved = 0, []
    for _ in range(steps):
        x = torch.randn(3)
        wx = w * x
        loss = (wx**2).mean()
        if backward:
            loss.backward(retain_graph=retain_graph)
        total += loss
        saved += [weakref.ref(x), weakref.ref(wx)]
    return total, saved


trained, trained_saved = sum_losses(backward=True)
evaluated, evaluated_saved = sum_losses(backward=False)
runs = {"with backward()": (trained, trained_saved), "without backward()": (evaluated, evaluated_saved)}
for name, (total, saved) in runs.items():
    alive = sum(ref() is not None for ref in saved)
    print(f"{name}: nodes reachable:", count_nodes(total), " saved tensors alive:", alive, "of", len(saved))
assert count_nodes(trained) == count_nodes(evaluated) and all(ref() is None for ref in trained_saved) and all(
    ref() is not None for ref in evaluated_saved
), "the total keeps every step's nodes; their saved tensors only where no backward() ran"
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    retained_total, retained_saved = sum_losses(backward=True, retain_graph=True)
assert count_nodes(retained_total) == count_nodes(trained), "retain_graph=True keeps the same nodes"
assert all(ref() is not None for ref in retained_saved), "after backward(retain_graph=True) saved tensors stay alive"
# sphinx_gallery_end_ignore

# %%
# 修复：存一个数，或者存一个脱离计算图的张量
# ------------------------------------------
#
# ``loss.item()`` 返回 Python 浮点数，累计值也就是浮点数。``loss.detach()`` 返回没有 ``grad_fn``
# 的张量，累计值一个节点也到达不了。两个累计值都与上面的结果一致。

total_float = 0.0
total_detached = torch.zeros(())


def keep_number(loss):
    global total_float, total_detached
    total_float += loss.item()
    total_detached += loss.detach()


train(keep_number)
print("total_float:", round(total_float, 4), type(total_float).__name__)
print("total_detached:", total_detached)
print("nodes reachable from total_detached:", count_nodes(total_detached))
assert count_nodes(total_detached) == 0 and isinstance(total_float, float), "the fixed totals must hold no graph"
# sphinx_gallery_start_ignore
assert torch.allclose(total_detached, total_loss.detach()), "the fixed total must equal the graph-carrying one"
assert abs(total_float - total_loss.item()) < 1e-5, "the float total must equal the graph-carrying one"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 带 ``grad_fn`` 的张量走到哪里，就把计算图带到哪里。要记录或累加损失，用 ``loss.item()`` 得到一个数，或用
# ``loss.detach()`` 得到脱离计算图的张量；这样无论循环跑多久，能到达的节点数都是零。累加带 ``grad_fn`` 的张量，会留住每一步的节点；如果没有对损失调用 ``backward()`` 方法（例如在 ``torch.no_grad()`` 之外跑的评估循环），或者调用的是 ``backward(retain_graph=True)``，还会留住这些节点保存的张量。
