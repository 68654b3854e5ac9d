"""
.. _questions-graph-kept-alive:

内存一直增长：``total_loss += loss`` 留住了每一步的计算图
=========================================================

.. admonition:: 答案
   :class: answer

   带 ``grad_fn`` 的损失或输出连着整张计算图，所以损失的累计值、为记日志而存的列表，都会留住每一步的计算图。改为保存数值，或脱离计算图的张量：

   .. code-block:: python

      total_float += loss.item()
      total_detached += loss.detach()

循环占用的内存一步比一步多、一直增长？这就是读者常说的内存泄漏（memory leak），在 GPU 上则说成显存（GPU memory）泄漏，或者跑了许多步之后内存或显存不足、报 OOM。先看为了记日志而累加损失的那一行。累加损失看似无害；可是带着 ``grad_fn`` 的损失会把计算图（computation graph）一起带走：累计值留住了每一步的自动求导（autograd）节点；如果没有对这个损失做反向传播（既没有调用 ``backward()``，也没有调用 ``torch.autograd.grad``；例如没有包在 ``torch.no_grad()`` 里的评估循环），或者反向传播时 ``retain_graph`` 为真（给了 ``create_graph=True`` 时，它默认就为真），这些节点保存的张量也一并留住（调用 ``backward(inputs=...)`` 或 ``torch.autograd.grad`` 之后，留住的是它们没有运行的那些节点保存的张量：``torch.autograd.grad`` 只运行通往所给张量的那些节点，``backward(inputs=...)`` 除了这些节点，还会运行每个不是叶子张量（leaf tensor）的指定张量自己的 ``grad_fn``）。为记日志而保存损失或输出的列表也是一样。本页在每一步数一数从累计值出发能到达多少个自动求导节点（随步数线性增长），检查做与不做 ``backward()`` 时累计值留住了哪些保存的张量，说明这个循环留下的这张图根本用不了，再用 ``loss.item()`` 或
``loss.detach()`` 修好循环。接着检查记日志的列表留住了什么：计算图、保存的张量，还是输出的存储；再检查没有这种列表时，一步的计算图在什么时候释放：``backward()``、``del loss``，还有下一步把名字 ``loss`` 重新绑定（rebinding）到新的损失上。PyTorch 的 FAQ 有一节专门提醒过这种写法：`“Don't accumulate history across your training loop”
<https://docs.pytorch.org/docs/stable/notes/faq.html>`__。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``count_nodes`` 从传给它的每个值的 ``grad_fn`` 出发，沿 ``next_functions`` 遍历计算图，每个节点只数一次；没有 ``grad_fn``
# 的值（一个数、``detach()`` 得到的张量）不计入任何节点。``train``
# 把一个很小的训练循环跑几步，每一步的损失都交给 ``record``，由它像读者的循环那样维护累计值。

import warnings

import torch


def count_nodes(*values):
    seen, stack = set(), [getattr(v, "grad_fn", None) for v in values]
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
# 现象：累计值长出一张计算图
# --------------------------
#
# ``total_loss += loss`` 把损失当作张量相加，加法本身也在计算图里。每一步之后，累计值仍能到达之前每一步的节点：每步增加的节点数相同，都是一张损失计算图的节点数，减去各步共享的参数 ``AccumulateGrad`` 节点，再加上这次加法的 ``AddBackward0`` 节点（这里只有一个参数，所以正好等于一张损失计算图的节点数），所以节点数随步数线性增长。

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
# sphinx_gallery_start_ignore
assert type(total_loss.grad_fn).__name__ == "AddBackward0", "each step's sum is an AddBackward0 node"
two_parameters = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
two_losses = [sum(((p * x) ** 2).mean() for p in two_parameters) for x in torch.arange(9.0).reshape(3, 3)]
two_totals = [count_nodes(sum(two_losses[:k])) for k in (1, 2, 3)]
assert two_totals[2] - two_totals[1] == two_totals[1] - two_totals[0] == (
    count_nodes(two_losses[0]) - len(two_parameters) + 1
), "with two parameters the total grows by a loss graph's nodes, less two AccumulateGrad nodes, plus one"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：五步之后从 total_loss 能走到的自动求导计算图：一串 AddBackward0 节点，每个节点分出 MeanBackward0、PowBackward0、MulBackward0 一支，各支最后都到同一个 AccumulateGrad 和叶子张量。
#
#    五步之后从 ``total_loss`` 能走到的计算图：一串 ``AddBackward0`` 节点，下面挂着每一步的损失计算图。

draw_graph("total_loss after five steps", total_loss)
# sphinx_gallery_start_ignore
assert len(nodes) == 5, "train() ran five steps, logging total_loss's node count at each"
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
# 节点总会留住，保存的张量在没有普通 ``backward()`` 时留住
# --------------------------------------------------------
#
# 每一步的节点都持有为反向传播保存的张量：``w * x`` 保存了 ``x``，``** 2`` 保存了 ``w * x``。不带 ``retain_graph=True``、``create_graph=True`` 或 ``inputs=`` 的普通 ``backward()``
# 会释放它们，不带前两者的 ``torch.autograd.grad(loss, w)`` 也一样，所以在上面的训练循环里，累计值只留住节点，以及节点在保存的张量之外持有的东西：自定义 ``Function`` 存成 ``ctx`` 属性的张量，``backward()`` 不会释放。如果对损失两者都没有调用（例如没有包在 ``torch.no_grad()``
# 里的评估循环），或者调用时 ``retain_graph`` 为真（``create_graph=True`` 还会为梯度建一张计算图，给了它时，``retain_graph`` 默认就为真），累计值还会让每一步保存的张量都活着；带 ``inputs=`` 时，留住的是 ``backward()`` 没有运行的那些节点保存的张量。``sum_losses``
# 用 ``+=`` 跑这个循环，做或不做 ``backward()``，并对每一步的 ``x`` 和 ``w * x`` 各留一个弱引用（``weakref.ref``）。弱引用不会让张量活着：张量被释放后，它读出的是 ``None``。输出里的 ``nodes reachable`` 是能到达的节点数，``saved tensors alive`` 是仍然活着的保存张量个数。:fact:`ctx-attribute-outlives-backward`

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


def _graded_step(graded_w, graph_options):
    graded_x = torch.randn(3)
    graded_wx = graded_w * graded_x
    graded_loss = (graded_wx**2).mean()
    torch.autograd.grad(graded_loss, graded_w, **graph_options)
    return graded_loss, [weakref.ref(graded_x), weakref.ref(graded_wx)]


graded_options = ({}, {"retain_graph": True}, {"create_graph": True}, {"create_graph": True, "retain_graph": False})
for graph_options in graded_options:
    with torch.random.fork_rng():
        graded_w = torch.randn(3, requires_grad=True)
        graded = [_graded_step(graded_w, graph_options) for _ in range(5)]
    graded_kept = graph_options.get("retain_graph", graph_options.get("create_graph", False))
    assert count_nodes(sum(step[0] for step in graded)) == count_nodes(trained), "autograd.grad keeps the same nodes"
    assert all((ref() is not None) == graded_kept for step in graded for ref in step[1]), (
        "torch.autograd.grad frees the saved tensors unless its retain_graph (by default create_graph) is True")
# sphinx_gallery_end_ignore

# %%
# 解决办法：存一个数，或者存一个脱离计算图的张量
# ----------------------------------------------
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
# 为记日志而保存的列表，同样留住每一步的计算图
# --------------------------------------------
#
# 为了之后画损失曲线而写 ``losses.append(loss)``，或者为了查看预测而写 ``outputs.append(out)``，都和累计值一样会留住每一步的计算图。``log_steps``
# 把一个小的 ``nn.Linear`` 模型训练五步，每一步把 ``keep(loss, out)`` 追加到一个列表里。为了看清事后还有什么活着，它每一步留两个弱引用：一个指向输出的存储，一个指向 ``node_ref``
# 在输出的 ``grad_fn`` 节点上注册的钩子（用 ``torch.autograd.graph.Node.register_hook`` 注册）。节点持有注册在它上面的钩子，所以节点被释放后，这个弱引用读出 ``None``。弱引用还读得出对象时，``count_alive``
# 先调用 ``gc.collect()`` 再读一次，免得把只靠引用循环留着的对象算作活着（回收只会释放对象，不会让对象复活）。输出里的 ``nodes reachable after each step`` 是每一步之后能到达的节点数，``graphs alive``
# 是仍然活着的计算图个数，``output storages alive`` 是仍然活着的输出存储个数。

import gc


def node_ref(t):
    def on_backward(grad_inputs, grad_outputs):
        return None

    t.grad_fn.register_hook(on_backward)
    return weakref.ref(on_backward)


def count_alive(refs):
    if any(ref() is not None for ref in refs):
        gc.collect()
    return sum(ref() is not None for ref in refs)


def log_steps(keep, steps=5):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    logged, graphs, storages = [], [], []
    for _ in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 2)
        out = model(x)
        loss = torch.nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        logged.append(keep(loss, out))
        graphs.append(node_ref(out))
        storages.append(weakref.ref(out.untyped_storage()))
    return logged, graphs, storages


ways = {
    "losses.append(loss)": lambda loss, out: loss,
    "outputs.append(out)": lambda loss, out: out,
    "loss.item()": lambda loss, out: loss.item(),
    "loss.detach()": lambda loss, out: loss.detach(),
    "out.detach()": lambda loss, out: out.detach(),
    "out.detach().cpu()": lambda loss, out: out.detach().cpu(),
}
kept = {}
for name, keep in ways.items():
    logged, graphs, storages = log_steps(keep)
    nodes = [count_nodes(*logged[:step]) for step in range(1, 6)]
    kept[name] = nodes, count_alive(graphs), count_alive(storages)
    print(f"{name}: nodes reachable after each step:", nodes, " graphs alive:", kept[name][1], "of 5",
          " output storages alive:", kept[name][2], "of 5")  # fmt: skip
    # sphinx_gallery_start_ignore
    assert (nodes[-1] == 0) == all(getattr(v, "grad_fn", None) is None for v in logged), f"{name}: no grad_fn, no node"
    assert name != "loss.item()" or all(isinstance(v, float) for v in logged), "loss.item() logs Python floats"
    # sphinx_gallery_end_ignore
growing = [kept[name][0] for name in ("losses.append(loss)", "outputs.append(out)")]
assert all(n[1] > n[0] and len({b - a for a, b in zip(n[:-1], n[1:], strict=True)}) == 1 for n in growing) and all(
    kept[name][1] == 5 for name in ("losses.append(loss)", "outputs.append(out)")
), "a list of losses or of outputs keeps every step's graph, and grows by the same number of nodes each step"
assert all(kept[name][:2] == ([0] * 5, 0) for name in list(ways)[2:]), ".item() and .detach() keep no graph"
assert [kept[name][2] for name in ways] == [0, 5, 0, 0, 5, 5], "only the outputs and their detached tensors keep storages"
# sphinx_gallery_start_ignore
assert all(n[0] - (n[1] - n[0]) == 2 for n in growing), "the two parameters' AccumulateGrad nodes are counted once"
assert [n[1] - n[0] for n in growing] == [3, 2], "each step adds 3 nodes to the list of losses and 2 to the list of outputs"
# sphinx_gallery_end_ignore

# %%
# 损失的列表和输出的列表每一步各自增加固定数目的节点（损失的列表每步 3 个，输出的列表每步 2 个），每次正好是一步的计算图（参数的 ``AccumulateGrad`` 节点为各步共有，只在第一步计入），最后五张计算图都还活着。用 ``.item()``、``.detach()``
# 或 ``.detach().cpu()`` 记录时，什么节点也到达不了，没有哪一步的计算图还活着。每一步的 ``backward()`` 都已释放这一步的计算图保存的张量（和累计值的情形一样）：损失的列表没有让任何一个输出的存储活着。
#
# ``out.detach().cpu()`` 不带计算图，但在 CPU 上它不是副本：对已经在 CPU 上的张量调用 ``.cpu()``，返回的就是这个张量本身，所以记下的张量就是 ``out.detach()``，位于输出的存储上，列表因此让五个输出的存储都活着（上面的最后一列）。哪怕只记一行
# ``out[0].detach().cpu()``，也会让整个输出的存储活着；对这一行做 ``clone()``，得到的张量有自己的存储，大小只有这一行。输出里的 ``storage bytes`` 是存储的字节数。

torch.manual_seed(0)
out = torch.nn.Linear(4, 2)(torch.randn(8, 4))
detached = out.detach()
print("detached.cpu() is detached:", detached.cpu() is detached)
print("same storage:", detached.cpu().untyped_storage().data_ptr() == out.untyped_storage().data_ptr())
row, row_copy = out[0].detach().cpu(), out[0].detach().clone()
print("storage bytes: out", out.untyped_storage().nbytes(), " row", row.untyped_storage().nbytes(),
      " row_copy", row_copy.untyped_storage().nbytes())  # fmt: skip
assert detached.cpu() is detached and row.untyped_storage().data_ptr() == out.untyped_storage().data_ptr(), (
    "on the CPU, .cpu() returns the tensor itself: a logged row keeps the output's whole storage"
)
# sphinx_gallery_start_ignore
assert row.untyped_storage().nbytes() == out.untyped_storage().nbytes() == 16 * row.element_size(), (
    "a logged row keeps out's whole 16-element storage")
assert row_copy.untyped_storage().nbytes() == 2 * row.element_size(), "a clone of the row has storage of its own"
assert row_copy.untyped_storage().data_ptr() != out.untyped_storage().data_ptr(), "the clone is a copy"
assert all(d.cpu() is d for d in (row, out.detach(), torch.zeros(3, dtype=torch.int64))), ".cpu() on CPU is self"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    在 GPU 上，``out.detach().cpu()`` 会复制到 CPU 内存：记下的张量在 CPU 上有自己的存储，没有 ``grad_fn``；这一步的输出被释放之后，它在 GPU
#    上的存储也就不再活着。参见 PyTorch 文档中的 ``Tensor.cpu``。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    torch.manual_seed(0)
    gpu_out = torch.nn.Linear(4, 2).cuda()(torch.randn(8, 4, device="cuda"))
    on_host, gpu_storage = gpu_out.detach().cpu(), weakref.ref(gpu_out.untyped_storage())
    del gpu_out
    print("on_host device:", on_host.device, " grad_fn:", on_host.grad_fn)
    print("GPU storages alive:", count_alive([gpu_storage]))
    assert on_host.device.type == "cpu" and on_host.grad_fn is None and count_alive([gpu_storage]) == 0, (
        "on a GPU, .detach().cpu() is a host copy that keeps no GPU storage alive"
    )
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# 一步的计算图何时释放：``backward()``、``del loss`` 与重新绑定
# -------------------------------------------------------------
#
# 没有列表或累计值时，循环会自己分两个阶段释放每一步的计算图。``retain_graph`` 为假（除非给了 ``create_graph=True``，否则这就是它的默认值）的 ``backward()`` 会立刻让计算图放开它所运行的节点保存的张量（这里是全部节点；带 ``inputs=`` 时，是通往指定张量的那些节点，以及每个不是叶子张量的指定张量自己的 ``grad_fn``，torch 的文档说明这是它目前的实现；``torch.autograd.grad`` 只运行通往传给它的张量的那些节点），这里没有别的东西引用 ``x`` 和 ``w * x``，它们也就随之释放；节点则只要还有东西引用就一直活着，这里引用它们的只有名字
# ``loss``。``del loss`` 去掉这个引用，节点随之立刻释放。``forward`` 跑一步前向传播，对这一步损失的节点（借助 ``node_ref``）以及计算图保存的两个张量 ``x`` 和 ``w * x`` 各留一个弱引用；``alive``
# 读取它们，与 ``count_alive`` 不同，它读取前不先回收垃圾，所以它读到已释放的，都是立刻释放的。输出里的 ``node alive`` 表示节点是否还活着，``saved tensors alive`` 是仍然活着的保存张量个数。


def forward(w, watched):
    x = torch.randn(3)
    wx = w * x
    loss = (wx**2).mean()
    watched.append((node_ref(loss), weakref.ref(x), weakref.ref(wx)))
    return loss


def alive(refs):
    node, *saved = refs
    return node() is not None, sum(ref() is not None for ref in saved)


torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
watched = []
loss = forward(w, watched)
stages = {"after forward": alive(watched[0])}
loss.backward()
stages["after backward()"] = alive(watched[0])
del loss
stages["after del loss"] = alive(watched[0])
for stage, (node, saved) in stages.items():
    print(f"{stage}: node alive:", node, " saved tensors alive:", saved, "of 2")
assert list(stages.values()) == [(True, 2), (True, 0), (False, 0)], "backward() frees the saved tensors, del the nodes"
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    retained_w, retained = torch.randn(3, requires_grad=True), []
    retained_loss = forward(retained_w, retained)
    retained_loss.backward(retain_graph=True)
    assert alive(retained[0]) == (True, 2), "after backward(retain_graph=True) the saved tensors stay alive"
    del retained_loss
    assert alive(retained[0]) == (False, 0), "del frees a retained graph and its saved tensors"
    higher_w, higher = torch.randn(3, requires_grad=True), []
    higher_loss = forward(higher_w, higher)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
        higher_loss.backward(create_graph=True)
    assert alive(higher[0]) == (True, 2), "after backward(create_graph=True) the saved tensors stay alive"
    freed_loss = forward(torch.randn(3, requires_grad=True), [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
        freed_loss.backward(create_graph=True, retain_graph=False)
    try:
        freed_loss.grad_fn.next_functions[0][0]._saved_self
    except RuntimeError as e:
        assert "after they have already been freed" in str(e), (
            "backward(create_graph=True, retain_graph=False) releases the graph's hold on the saved tensors")
    else:
        raise AssertionError("backward(create_graph=True, retain_graph=False) must release the saved tensors")
branch_a, branch_b = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
saved_a, saved_b = torch.full((3,), 2.0), torch.full((3,), 3.0)
two_branches = (branch_a * saved_a).sum() + (branch_b * saved_b).sum()
branch_refs = [weakref.ref(saved_a), weakref.ref(saved_b)]
del saved_a, saved_b
two_branches.backward(inputs=[branch_a])
gc.collect()
assert [ref() is not None for ref in branch_refs] == [False, True], (
    "backward(inputs=[a]) frees what the nodes it ran saved, and keeps what the others saved"
)
grad_branch_a, grad_branch_b = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
grad_saved_a, grad_saved_b = torch.full((3,), 2.0), torch.full((3,), 3.0)
grad_branches = (grad_branch_a * grad_saved_a).sum() + (grad_branch_b * grad_saved_b).sum()
grad_refs = [weakref.ref(grad_saved_a), weakref.ref(grad_saved_b)]
del grad_saved_a, grad_saved_b
torch.autograd.grad(grad_branches, grad_branch_a)
gc.collect()
assert [ref() is not None for ref in grad_refs] == [False, True], (
    "torch.autograd.grad(loss, a) frees what the nodes it ran saved, and keeps what the others saved"
)


def _named_non_leaf(named_run):
    named_w, named_x = torch.ones(3, requires_grad=True), torch.full((3,), 2.0)
    named_wx = named_w * named_x
    named_loss = (named_wx**2).mean()
    named_refs = [weakref.ref(named_x), weakref.ref(named_wx)]
    named_run(named_loss, named_wx)
    del named_x, named_wx
    gc.collect()
    return named_loss, named_w.grad, [ref() is not None for ref in named_refs]


assert _named_non_leaf(lambda loss, wx: loss.backward(inputs=[wx]))[1:] == (None, [False, False]), (
    "backward(inputs=[w * x]) also runs the grad_fn of w * x, which frees the x it saved, and leaves w.grad alone"
)
assert _named_non_leaf(torch.autograd.grad)[1:] == (None, [True, False]), (
    "torch.autograd.grad(loss, w * x) does not run the grad_fn of w * x: the x it saved stays alive"
)
chain_w, chain_a, chain_b = torch.ones(3, requires_grad=True), torch.full((3,), 2.0), torch.full((3,), 3.0)
chain_h = chain_w * chain_a * chain_b
chain_loss = (chain_h**2).sum()
chain_refs = [weakref.ref(chain_a), weakref.ref(chain_b)]
del chain_a, chain_b
chain_loss.backward(inputs=[chain_h])
gc.collect()
assert [ref() is not None for ref in chain_refs] == [True, False], (
    "backward(inputs=[h]) runs h's own grad_fn only, not the nodes below it"
)
# sphinx_gallery_end_ignore

# %%
# 含有引用环的计算图不会立刻释放，要等 Python 的垃圾回收器来回收。把输出留在 ``ctx`` 上的自定义
# ``torch.autograd.Function`` 就会造成引用环：输出持有它的节点 ``ctx``，``ctx`` 又持有输出。``backward()`` 并
# ``del loss, out`` 之后，不先回收垃圾就读取，这个节点和输出都还活着，``gc.collect()`` 才释放它们。


class KeepsOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        out = t * 2
        ctx.out = out  # out -> 它的节点 ctx -> out：一个引用环
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


w = torch.ones(3, requires_grad=True)
out = KeepsOutput.apply(w)
loss = (out**2).sum()
out_refs = (node_ref(out), weakref.ref(out))
loss.backward()
del loss, out
node_kept = out_refs[0]() is not None
out_kept = out_refs[1]() is not None
print("after del loss, out: node alive:", node_kept, " out alive:", out_kept)
gc.collect()
print("after gc.collect(): node alive:", out_refs[0]() is not None, " out alive:", out_refs[1]() is not None)
assert node_kept and out_kept and out_refs[0]() is None and out_refs[1]() is None, (
    "a graph with a reference cycle outlives del loss, out until the garbage collector runs")

# %%
# 在循环里，到了下一步的开头，名字 ``loss`` 仍然引用着上一步的计算图；下一步的 ``loss = ...`` 重新绑定这个名字，在没有别的东西引用那张图时把它丢掉。做过 ``backward()``
# 时，这张图只剩节点；在没有包在 ``torch.no_grad()`` 里的评估循环里，它在下一步的整个前向传播期间都持有自己保存的张量，于是两步保存的张量同时活着。只要没有别的名字引用着这一步的计算图（下一个单元格会加上一个），在一步的末尾写 ``del loss``，就能在下一步开始之前释放它。留着损失的列表，不管循环怎样处理这个名字，都会留住计算图。``run_loop``
# 跑三步，在每一步的开头和这一步的 ``loss = ...`` 之后，读取上一步计算图的状态（节点是否活着，活着的保存张量个数）。输出里的 ``at the top of the next step`` 指下一步的开头，``after loss = ...``
# 指这一步的 ``loss = ...`` 之后。


def run_loop(backward, end, steps=3):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    watched, losses, at_top, after_rebinding = [], [], [], []
    for _ in range(steps):
        if watched:
            at_top.append(alive(watched[-1]))
        loss = forward(w, watched)
        if len(watched) > 1:
            after_rebinding.append(alive(watched[-2]))
        if backward:
            loss.backward()
        if end == "del loss":
            del loss
        elif end == "losses.append(loss)":
            losses.append(loss)
    return at_top, after_rebinding


previous = {}
for backward in (True, False):
    for end in ("nothing", "del loss", "losses.append(loss)"):
        at_top, after_rebinding = run_loop(backward, end)
        previous[backward, end] = at_top[0], after_rebinding[0]
        print(f"backward()={backward}, end of step: {end}: at the top of the next step:", at_top[0],
              " after loss = ...:", after_rebinding[0])  # fmt: skip
        # sphinx_gallery_start_ignore
        assert at_top == at_top[:1] * 2 and after_rebinding == after_rebinding[:1] * 2, (
            f"run_loop, backward()={backward}, {end}: the previous graph looks the same at steps 2 and 3")
        # sphinx_gallery_end_ignore
assert all(previous[backward, end][1] == (False, 0) for backward in (True, False) for end in ("nothing", "del loss")), (
    "the next loss = ... frees the previous step's graph when nothing else refers to it"
)
assert [previous[backward, end][0] for backward in (True, False) for end in ("nothing", "del loss")] == [
    (True, 0), (False, 0), (True, 2), (False, 0)
], "until then the name keeps it, with its saved tensors where no backward() ran; del loss frees it at once"
assert all(previous[backward, "losses.append(loss)"] == ((True, n), (True, n)) for backward, n in ((True, 0), (False, 2))), (
    "a list that keeps the loss keeps its graph"
)

# %%
# 循环通常也给模型的输出起个名字 ``out = model(x)``，而 ``out.grad_fn`` 就是计算图里模型的那一部分。这时只写 ``del loss``，这部分会一直活到 ``out`` 被重新绑定；没做过 ``backward()`` 时，它保存的张量也一起活着。写 ``del loss, out``，就能在下一步开始之前释放它。``forward_out`` 返回 ``out`` 和 ``loss``，并监视 ``out`` 的节点以及这部分计算图保存的两个张量 ``x`` 和 ``w * x``；``run_loop_out`` 就是同时用这两个名字的 ``run_loop``。


def forward_out(w, watched):
    x = torch.randn(3)
    wx = w * x
    out = wx.sin()
    loss = (out**2).mean()
    watched.append((node_ref(out), weakref.ref(x), weakref.ref(wx)))
    return out, loss


def run_loop_out(backward, end, steps=3):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    watched, at_top, after_rebinding = [], [], []
    for _ in range(steps):
        if watched:
            at_top.append(alive(watched[-1]))
        out, loss = forward_out(w, watched)
        if len(watched) > 1:
            after_rebinding.append(alive(watched[-2]))
        if backward:
            loss.backward()
        if end == "del loss":
            del loss
        elif end == "del loss, out":
            del loss, out
    return at_top, after_rebinding


with_out = {}
for backward in (True, False):
    for end in ("del loss", "del loss, out"):
        at_top, after_rebinding = run_loop_out(backward, end)
        with_out[backward, end] = at_top[0]
        print(f"backward()={backward}, end of step: {end}: at the top of the next step:", at_top[0])
        # sphinx_gallery_start_ignore
        assert at_top == at_top[:1] * 2, (
            f"run_loop_out, backward()={backward}, {end}: the previous graph looks the same at steps 2 and 3")
        assert after_rebinding == [(False, 0)] * 2, "the next out, loss = ... frees the previous step's graph"
        # sphinx_gallery_end_ignore
assert [with_out[backward, end] for backward in (True, False) for end in ("del loss", "del loss, out")] == [
    (True, 0), (False, 0), (True, 2), (False, 0)
], "del loss alone leaves out's part of the graph alive, with its saved tensors where no backward() ran"

# %%
# 给了 ``create_graph=True`` 时，即使 ``retain_graph=False``，梯度也带着自己的一张计算图，而这张图可能在 ``del loss`` 之后仍让这一步的部分张量和节点活着：这里是保存的 ``x`` 和 ``w * x``，以及 ``w * x`` 的节点。``backward()`` 把这张图留在 ``w.grad`` 里，直到 ``w.grad`` 被设为 ``None`` 或脱离计算图为止：``optimizer.zero_grad()`` 默认做前者，传 ``set_to_none=False`` 时做后者（见下一个单元格），只调用 ``w.grad.zero_()`` 则仍留着它；``torch.autograd.grad`` 返回的结果活多久，这张图就活多久。

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
watched = []
loss = forward(w, watched)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
    loss.backward(create_graph=True, retain_graph=False)
del loss
kept_by_grad = alive(watched[0])
# sphinx_gallery_start_ignore
assert watched[0][2]().grad_fn is not None, "w * x, kept alive by the graph in w.grad, keeps its node"
# sphinx_gallery_end_ignore
print("w.grad requires grad:", w.grad.requires_grad)
print("after del loss: node alive:", kept_by_grad[0], " saved tensors alive:", kept_by_grad[1], "of 2")
optimizer = torch.optim.SGD([w], lr=0.1)
optimizer.zero_grad()
print("after optimizer.zero_grad(): w.grad:", w.grad, " saved tensors alive:", alive(watched[0])[1], "of 2")
assert kept_by_grad == (False, 2) and w.grad is None and alive(watched[0]) == (False, 0), (
    "the graph in w.grad keeps the step's saved tensors after del loss, until zero_grad() sets w.grad to None")
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    returned_w, returned_watched = torch.randn(3, requires_grad=True), []
    returned_loss = forward(returned_w, returned_watched)
    returned_grad = torch.autograd.grad(returned_loss, returned_w, create_graph=True, retain_graph=False)
    del returned_loss
    assert returned_grad[0].requires_grad and alive(returned_watched[0]) == (False, 2), (
        "the gradient torch.autograd.grad(create_graph=True) returns keeps the step's saved tensors after del loss")
    del returned_grad
    assert alive(returned_watched[0]) == (False, 0), "dropping that gradient frees them"
# sphinx_gallery_end_ignore

# %%
# 传 ``set_to_none=False`` 时，``zero_grad()`` 原地（in-place）让 ``w.grad`` 脱离计算图，再把它清零：和 ``w.grad.detach_()`` 一样，这会放开那张计算图。只调用 ``w.grad.zero_()`` 则只把值清零，那张图仍然留着，这一步保存的张量也随之留着。


def release_after_create_graph(release):
    """One step's backward(create_graph=True, retain_graph=False) and del loss, then ``release(w)``:
    (w.grad, the number of the step's saved tensors still alive)."""
    torch.manual_seed(0)
    w, watched = torch.randn(3, requires_grad=True), []
    loss = forward(w, watched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
        loss.backward(create_graph=True, retain_graph=False)
    del loss
    release(w)
    return w.grad, alive(watched[0])[1]


releases = {
    "optimizer.zero_grad(set_to_none=False)": lambda w: torch.optim.SGD([w], lr=0.1).zero_grad(set_to_none=False),
    "w.grad.detach_()": lambda w: w.grad.detach_(),
    "w.grad.zero_()": lambda w: w.grad.zero_(),
}
released = {}
for name, release in releases.items():
    grad, saved_alive = release_after_create_graph(release)
    released[name] = (grad.requires_grad, bool(grad.any()), saved_alive)
    print(f"after {name}: w.grad:", grad, " saved tensors alive:", saved_alive, "of 2")
assert released == {"optimizer.zero_grad(set_to_none=False)": (False, False, 0), "w.grad.detach_()": (False, True, 0),
                    "w.grad.zero_()": (True, False, 2)}, (
    "zero_grad(set_to_none=False) detaches and zeroes w.grad, detach_() releases its graph too, zero_() alone keeps it")

# %%
# 小结
# ----
#
# 带 ``grad_fn`` 的张量走到哪里，就把计算图带到哪里。要记录或累加损失，用 ``loss.item()`` 得到一个数，或用
# ``loss.detach()`` 得到脱离计算图的张量；这样无论循环跑多久，能到达的节点数都是零。累加带 ``grad_fn`` 的张量，或者把它们存进列表，会留住每一步的节点；如果没有对损失做反向传播（既没有调用 ``backward()``，也没有调用 ``torch.autograd.grad``；例如没有包在 ``torch.no_grad()`` 里的评估循环），或者反向传播时 ``retain_graph`` 为真（给了 ``create_graph=True`` 时，它默认就为真），还会留住这些节点保存的张量（调用 ``backward(inputs=...)`` 或 ``torch.autograd.grad`` 之后，留住的是它们没有运行的那些节点保存的张量：``torch.autograd.grad`` 只运行通往所给张量的那些节点，``backward(inputs=...)`` 除了这些节点，还会运行每个不是叶子张量的指定张量自己的 ``grad_fn``）。``out.detach().cpu()``
# 不带计算图，但在 CPU 上它用的就是输出自己的存储，列表会让这块存储一直活着。没有这种列表时，``retain_graph`` 为假（除非给了 ``create_graph=True``，否则这就是它的默认值）的 ``backward()`` 或 ``torch.autograd.grad`` 让计算图放开它所运行的节点保存的张量；把 ``loss`` 连同 ``out`` 等指向这一步张量的名字一起 ``del`` 掉，或者执行下一个 ``out, loss = ...``，就会释放它的节点；除非计算图里有引用环（比如把输出留在 ``ctx`` 上的自定义 ``autograd.Function`` 就会造成引用环），否则是立刻释放，有引用环的要等 Python 的垃圾回收器来回收。给了 ``create_graph=True`` 时，即使 ``retain_graph=False``，梯度自己的计算图也可能在 ``del loss`` 之后仍让这一步的部分保存的张量和节点活着：这张图或者留在 ``.grad`` 里，直到 ``.grad`` 被设为 ``None`` 或脱离计算图为止（``optimizer.zero_grad()`` 不论 ``set_to_none`` 取哪个值都会这样做；只调用 ``.grad.zero_()`` 则仍留着它），或者留在 ``torch.autograd.grad`` 返回的结果里。
