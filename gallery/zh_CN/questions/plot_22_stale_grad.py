"""
.. _questions-stale-grad:

记录下来的梯度全都一样：``g = p.grad`` 不是副本
===============================================

.. admonition:: 答案
   :class: answer

   ``g = p.grad`` 不是副本：用 ``zero_grad(set_to_none=False)`` 清零或根本不清零时，``backward()`` 每次都写进同一个张量（例外见下文），记下的各项最后全都相同。记下一份副本：

   .. code-block:: python

      loss.backward()
      grads.append(model.weight.grad.clone())

训练循环把 ``model.weight.grad`` 存进列表，打算过后再看，结果每一项都一样，常常全是零：这发生在用
``zero_grad(set_to_none=False)`` 清零或从不清零的时候；用默认的 ``zero_grad()``，每一项都是各自独立的张量对象。本页演示
``zero_grad()`` 在默认的 ``set_to_none=True`` 和 ``set_to_none=False`` 两种设置下对 ``p.grad``
做了什么，``backward()`` 怎样累加进已有的梯度，分微批次（micro-batch）做梯度累积靠的正是这一点；最后在一个小训练循环里，用手算的梯度检验“存一份副本”这个解决办法。
"""

# %%
# 辅助函数
# --------
#
# 一个线性模型，在一批固定的数据上算均方误差。``by_hand`` 不经过自动求导（autograd），直接按公式算出这个损失对权重的梯度：
# ``2 (model(x) - y)^T x / n``。``bytes_apart`` 判断两个张量的存储是否没有任何共同的字节。

import warnings

import torch


def by_hand(model, x, y):
    with torch.no_grad():
        return 2 * (model(x) - y).T @ x / len(x)


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared."""
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
# 训练三步，每一步都把权重的梯度存进 ``grads``，并在这一步的末尾调用
# ``zero_grad(set_to_none=False)``。``grads`` 的每一项都是同一个张量对象，里面全是零。

torch.manual_seed(0)
x, y = torch.randn(8, 2), torch.randn(8, 1)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
grads = []
for _ in range(3):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    grads.append(model.weight.grad)
    optimizer.step()
    optimizer.zero_grad(set_to_none=False)
print("grads:", grads)
print("grads[0] is grads[2]:", grads[0] is grads[2])
assert all(g is model.weight.grad for g in grads), "every entry is the one gradient tensor"
# sphinx_gallery_start_ignore
assert all(torch.equal(g, torch.zeros(1, 2)) for g in grads), (
    "after zero_grad(set_to_none=False) that one gradient tensor holds zeros")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：grads[0]、grads[2] 和 model.weight.grad 三个名字指向同一个全是零的张量对象，它在存储 S1 上。
#
#    ``grads[0]``、``grads[2]`` 和 ``model.weight.grad`` 是同一个张量对象，用的是同一块存储。

draw_memory("zero_grad(set_to_none=False)", **{"grads[0]": grads[0], "grads[2]": grads[2],
                                               "model.weight.grad": model.weight.grad})

# %%
# 默认的 ``zero_grad()``：``set_to_none=True``
# --------------------------------------------
#
# ``zero_grad()`` 把 ``p.grad`` 设成 ``None``；之前取到的 ``g`` 保留原来的值，下一次 ``backward()``
# 给 ``p.grad`` 一个新的张量对象。所以在默认设置下，每一步的梯度都是各自独立的张量对象：把现象里的循环换成 ``zero_grad()``，记下的是三个不同的张量，这里它们也各有自己的内存，每一个都等于按那一步的权重手算出的梯度。新的对象不一定有新的内存：``p.grad`` 为 ``None`` 时，经由视图（view）到达 ``p`` 的 ``backward(gradient=g)``，比如 ``p.view(-1).backward(g)``，会让 ``p.grad`` 落在 ``g`` 的内存上（隐藏的检查验证了这一点）。

p = model.weight
logged, expected = [], []
for _ in range(3):
    expected.append(by_hand(model, x, y))
    ((model(x) - y) ** 2).mean().backward()
    logged.append(p.grad)
    optimizer.step()
    optimizer.zero_grad()
print("logged[0] is logged[2]:", logged[0] is logged[2])
print("logged[0] equals logged[2]:", torch.equal(logged[0], logged[2]))
assert logged[0] is not logged[2] and not torch.equal(logged[0], logged[2]), "with the default, the entries differ"
assert all(torch.allclose(g, e) for g, e in zip(logged, expected, strict=True)), "each entry is its step's gradient"
# sphinx_gallery_start_ignore
assert logged[0] is not logged[1] and logged[1] is not logged[2], "three tensors of their own"
assert bytes_apart(logged[0], logged[1]) and bytes_apart(logged[1], logged[2]) and bytes_apart(logged[0], logged[2]), (
    "here the three logged tensors are on memory of their own too")
viewed_param_ = torch.nn.Parameter(torch.zeros(2, 2))
seed_grad_ = torch.tensor([3.0, 4.0, 0.0, 0.0])
viewed_param_.view(-1).backward(seed_grad_)
assert viewed_param_.grad.untyped_storage().data_ptr() == seed_grad_.untyped_storage().data_ptr(), (
    "with p.grad None, backward(gradient=g) through a view of p leaves p.grad on g's memory")
# sphinx_gallery_end_ignore
((model(x) - y) ** 2).mean().backward()
g = p.grad
before = g.clone()
optimizer.zero_grad()
print("p.grad:", p.grad, " g:", g)
# sphinx_gallery_start_ignore
assert p.grad is None, "zero_grad() with its default set p.grad to None"
# sphinx_gallery_end_ignore
((model(x) - y) ** 2).mean().backward()
print("after backward, p.grad is g:", p.grad is g, " g kept its values:", torch.equal(g, before))
assert p.grad is not g and torch.equal(g, before), "a new p.grad, and g unchanged"

# %%
# 即使用默认设置，在这一步的 ``zero_grad()`` 之前，记下的那一项仍然就是 ``p.grad`` 本身：记下之后再对 ``p.grad`` 做原地（in-place）修改，记下的那一项也跟着被改写。用 ``torch.nn.utils.clip_grad_norm_`` 裁剪就是一种这样的修改。对有些优化器来说，``optimizer.step()`` 也是一种：带 ``momentum`` 和 ``nesterov=True`` 的 ``SGD`` 在 ``foreach=True``，且既没有非零的 ``weight_decay`` 也没有 ``maximize=True`` 时，把动量原地加进 ``p.grad``。带上这两个选项中的任何一个，它都不改动 ``p.grad``；``fused=True`` 和它逐个张量循环的实现（``foreach=False``，也是 CPU 上的默认）也不改动；GPU 上的情况见下面的框。（这些说的是以数值给出的 ``weight_decay``，也就是 SGD 文档里写的类型。若以需要梯度的张量给出，逐个张量循环的实现会把 ``weight_decay * p`` 原地加进 ``p.grad``，除非设了 ``maximize=True``。）下面先记下梯度 ``[6, 8]``，再把它裁剪到范数 1；然后对 ``foreach`` 的每个取值，各把一个记下的 ``[6, 8]`` 送进这样的一步，再在 ``foreach=True`` 下分别加上 ``weight_decay`` 或 ``maximize=True`` 各走一步，最后用 ``fused=True`` 走一步。

clipped = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
(clipped * clipped).sum().backward()
entry = clipped.grad
print("logged entry before clipping:", entry)
torch.nn.utils.clip_grad_norm_([clipped], max_norm=1.0)
print("logged entry after clip_grad_norm_:", entry)
assert entry is clipped.grad and torch.allclose(entry, torch.tensor([0.6, 0.8])), "clipping rewrote the entry"
for options in ({"foreach": False}, {"foreach": None}, {"foreach": True}, {"foreach": True, "weight_decay": 1e-4},
                {"foreach": True, "maximize": True}, {"fused": True}):
    stepped = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
    sgd = torch.optim.SGD([stepped], lr=0.1, momentum=0.9, nesterov=True, **options)
    (stepped * stepped).sum().backward()
    entry = stepped.grad
    sgd.step()
    call = ", ".join(["nesterov=True"] + [f"{key}={value}" for key, value in options.items()])
    print(f"SGD({call}), logged entry after step():", entry)
    changed = not torch.equal(entry, torch.tensor([6.0, 8.0]))
    assert entry is stepped.grad and changed == (options == {"foreach": True}), (
        "SGD.step() rewrites a logged p.grad only with foreach=True and no weight_decay or maximize")
# sphinx_gallery_start_ignore
for tensor_decay in ({}, {"momentum": 0.9, "nesterov": True}, {"foreach": False, "momentum": 0.9},
                     {"maximize": True}, {"foreach": False, "momentum": 0.9, "nesterov": True, "maximize": True}):
    decayed = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
    decay = torch.tensor(1e-4, requires_grad=True)
    decay_sgd = torch.optim.SGD([decayed], lr=0.1, weight_decay=decay, **tensor_decay)
    (decayed * decayed).sum().backward()
    decayed_entry, decayed_before = decayed.grad, decayed.detach().clone()
    decay_sgd.step()
    added = torch.zeros(2) if tensor_decay.get("maximize") else 1e-4 * decayed_before
    assert decayed_entry is decayed.grad and torch.allclose(decayed_entry, torch.tensor([6.0, 8.0]) + added), (
        "a weight_decay tensor that requires grad: the single-tensor loop adds weight_decay * p into p.grad, "
        "unless maximize=True")
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    对 GPU 上的参数，不给 ``foreach`` 时，``SGD`` 会用 ``foreach=True`` 的实现（PyTorch 文档：
#    `SGD <https://docs.pytorch.org/docs/stable/generated/torch.optim.SGD.html>`__），所以带 ``momentum`` 和 ``nesterov=True``，且既没有非零的 ``weight_decay`` 也没有 ``maximize=True`` 时，它默认的 ``step()`` 会改写记下的 ``p.grad``；带上这两个选项中的任何一个，或者用 ``fused=True``，都不改动 ``p.grad``。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    for options in ({}, {"weight_decay": 1e-4}, {"maximize": True}, {"fused": True}):
        on_gpu = torch.nn.Parameter(torch.tensor([3.0, 4.0], device="cuda"))
        gpu_sgd = torch.optim.SGD([on_gpu], lr=0.1, momentum=0.9, nesterov=True, **options)
        (on_gpu * on_gpu).sum().backward()
        entry = on_gpu.grad
        gpu_sgd.step()
        call = ", ".join(["nesterov=True"] + [f"{key}={value}" for key, value in options.items()])
        print(f"SGD({call}) on the GPU, logged entry after step():", entry)
        changed = not torch.equal(entry.cpu(), torch.tensor([6.0, 8.0]))
        assert entry is on_gpu.grad and changed == (not options), (
            "on a GPU the default step() rewrites the entry, with weight_decay, maximize or fused it does not")
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# ``zero_grad(set_to_none=False)``
# --------------------------------
#
# 设了 ``set_to_none=False``，``zero_grad()`` 就对 ``p.grad`` 原地清零：``g`` 跟着被清零，仍然就是
# ``p.grad``，下一次 ``backward()`` 也写进这同一个张量。

g = p.grad
optimizer.zero_grad(set_to_none=False)
print("g:", g, " p.grad is g:", p.grad is g)
((model(x) - y) ** 2).mean().backward()
print("after backward, g:", g, " p.grad is g:", p.grad is g)
assert p.grad is g and torch.allclose(g, by_hand(model, x, y)), "backward() wrote into g"

# %%
# ``backward()`` 会累加进已有的梯度
# ---------------------------------
#
# 梯度累积靠的就是这一点：把一批数据分成两个微批次，每个损失按它所占的比例缩放，各调用一次
# ``backward()``，``p.grad`` 最后就是整批数据的梯度。第一个微批次之后取到的 ``g`` 就是这个张量，所以它同样是两者之和。（也有例外，会在 ``p.grad`` 里放一个装着和的新张量：一个是
# ``backward(create_graph=True)``，另一个是稠密梯度遇上稀疏的 ``.grad``，比如 ``Embedding(..., sparse=True)`` 的权重留下的那种；调用过 ``retain_grad()`` 的非叶子张量（non-leaf tensor）在第一次之后的每次 ``backward()`` 都得到一个装着和的新 ``.grad``。）

optimizer.zero_grad()
for part in (slice(0, 4), slice(4, 8)):
    loss = ((model(x[part]) - y[part]) ** 2).mean() / 2
    loss.backward()
    if part.start == 0:
        g = p.grad
print("p.grad:", p.grad, " whole batch by hand:", by_hand(model, x, y))
print("g is p.grad:", g is p.grad)
assert g is p.grad and torch.allclose(g, by_hand(model, x, y)), "g holds the whole batch's gradient"
# sphinx_gallery_start_ignore
second = torch.ones(2, requires_grad=True)
(second**2).sum().backward()
first_grad = second.grad
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (second**2).sum().backward(create_graph=True)
assert second.grad is not first_grad, "backward(create_graph=True) puts a new tensor in .grad"
assert second.grad.tolist() == [4.0, 4.0] and first_grad.tolist() == [2.0, 2.0], (
    "the new .grad holds the sum of both passes, the old one the first pass's")
sparse_table = torch.nn.Embedding(5, 2, sparse=True)
sparse_table(torch.tensor([1])).sum().backward()
sparse_grad = sparse_table.weight.grad
(sparse_table.weight * 1).sum().backward()
assert sparse_grad.is_sparse and sparse_table.weight.grad is not sparse_grad, "a dense gradient replaces a sparse .grad"
assert not sparse_table.weight.grad.is_sparse and sparse_table.weight.grad[1].tolist() == [2.0, 2.0], (
    "the dense .grad that replaced the sparse one holds the sum")
retained = torch.ones(2, requires_grad=True) * 1
retained.retain_grad()
for _ in range(3):
    first_grad = retained.grad
    (retained**2).sum().backward(retain_graph=True)
    assert first_grad is None or retained.grad is not first_grad, "a retained non-leaf gets a new .grad at each pass"
assert retained.grad.tolist() == [6.0, 6.0] and first_grad.tolist() == [4.0, 4.0], (
    "the retained non-leaf's .grad holds the sum of every pass, the one it replaced the passes before")
# sphinx_gallery_end_ignore

# %%
# 在训练循环里检验解决办法
# ------------------------
#
# ``clone()`` 为每一步的梯度留一份副本。还是上面的循环，``zero_grad`` 两种设置都试一遍：每一项都是独立的张量，并且等于按那一步的权重手算出的梯度。

for set_to_none in (False, True):
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    grads, expected = [], []
    for _ in range(3):
        expected.append(by_hand(model, x, y))
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        grads.append(model.weight.grad.clone())
        optimizer.step()
        optimizer.zero_grad(set_to_none=set_to_none)
    print(f"set_to_none={set_to_none}: grads:", grads)
    assert all(torch.allclose(g, e) for g, e in zip(grads, expected, strict=True)), "each copy is that step's gradient"
# sphinx_gallery_start_ignore
assert not torch.equal(grads[0], grads[2]), "the steps' gradients differ"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``p.grad`` 和别的张量没有两样，``g = p.grad`` 只是给它起了第二个名字。默认的 ``set_to_none=True`` 之下，``zero_grad()``
# 让 ``p.grad`` 不再指向这个张量，下一次 ``backward()`` 另建一个，所以 ``g`` 保留原来的值；``set_to_none=False`` 之下，``zero_grad()``
# 把它清零，``backward()`` 再累加进去。两次 ``backward()`` 之间不调用 ``zero_grad()`` 也是累加，梯度累积就是这样实现的（``backward(create_graph=True)`` 和稠密梯度遇上稀疏的 ``.grad`` 是例外，它们往 ``p.grad`` 放一个存着累加和的新张量）。想留住某一步的梯度，就存
# ``p.grad.clone()``。
