"""
.. _questions-repeated-layers:

``[layer] * 3``：“每一层的权重都一样”
=====================================

.. admonition:: 答案
   :class: answer

   ``[layer] * 3`` 是把同一个模块放了三次的列表，所以用它建的 ``ModuleList`` 或 ``Sequential`` 只有一套参数，三处用到它时都在训练它。每一项各复制一次这个层：

   .. code-block:: python

      layers = torch.nn.ModuleList([copy.deepcopy(layer) for _ in range(3)])

本页把同一个 ``Linear`` 层用三次堆成一个网络并训练它，看 ``parameters()``、``named_parameters()``、``state_dict()``、参数量、``print(model)`` 和优化器各自怎样反映这件事。然后训练改好的版本，最后讲一个层用三次正合你意的情形。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。``forward`` 依次运行一叠层，每层之后接 ``tanh``；``train`` 用 SGD 对它训练五步，拟合随机的目标，返回优化器和最后一步的损失。

import copy

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def forward(layers, x):
    for layer in layers:
        x = torch.tanh(layer(x))
    return x


def train(layers, steps=5):
    optimizer = torch.optim.SGD(layers.parameters(), lr=0.1)
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(forward(layers, inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return optimizer, loss


torch.manual_seed(0)
inputs, targets = torch.randn(8, 4), torch.randn(8, 4)

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
# 三层 ``Linear(4, 4)``，用简短的写法建出来，训练五步。三层的权重完全一样，模型的参数也只有一层那么多：20 个，而不是 60 个。

layers = torch.nn.ModuleList([torch.nn.Linear(4, 4)] * 3)
optimizer, loss = train(layers)
print("loss after 5 steps:", loss.item())
print("layers[0].weight equal to layers[2].weight:", torch.equal(layers[0].weight, layers[2].weight))
print("parameters:", sum(p.numel() for p in layers.parameters()))
assert torch.equal(layers[0].weight, layers[2].weight) and sum(p.numel() for p in layers.parameters()) == 20, (
    "layers 0 and 2 end with equal weights, 20 parameters in all"
)
# sphinx_gallery_start_ignore
assert torch.equal(layers[0].weight, layers[1].weight), "all three layers have the same weights"
assert all(torch.equal(a, b) for a, b in zip(layers[0].parameters(), layers[2].parameters(), strict=True)), (
    "layers 0 and 2 have equal parameters"
)
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 layers[0].weight、layers[1].weight、layers[2].weight 和优化器的 params[0] 指向同一个张量对象，它在同一块存储 S1 上。
#
#    ``layers[0].weight``、``layers[1].weight``、``layers[2].weight`` 和优化器的第一个参数是同一个张量对象，用的是同一块存储 ``S1``。

draw_memory("ModuleList([Linear(4, 4)] * 3)", **{f"layers[{i}].weight": layers[i].weight for i in range(3)},
            **{"optimizer's params[0]": optimizer.param_groups[0]["params"][0]})  # fmt: skip
# sphinx_gallery_start_ignore
assert layers[0].weight is layers[1].weight is layers[2].weight, (
    "layers[0], layers[1] and layers[2] hold one weight object")
assert optimizer.param_groups[0]["params"][0] is layers[0].weight, "the optimizer holds that object"
# sphinx_gallery_end_ignore

# %%
# 原因：``*`` 重复的是引用
# ------------------------
#
# ``[m] * 3`` 把指向 ``m`` 的引用重复三次，和张量列表的情形一样（见 :ref:`“张量列表”那一页 <questions-containers>`）。``nn.ModuleList`` 和 ``nn.Sequential`` 保存的是传给它们的模块本身，而不是副本：用 ``[block] * 3`` 建的普通列表、``ModuleList`` 和 ``Sequential``，三个位置上放的都是同一个 ``block``。

block = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
containers = {
    "list": [block] * 3,
    "ModuleList": torch.nn.ModuleList([block] * 3),
    "Sequential": torch.nn.Sequential(*[block] * 3),
}
for name, c in containers.items():
    print(f"{name:<10}", "c[0] is c[2]:", c[0] is c[2], " c[0] is block:", c[0] is block)
assert all(c[0] is block and c[1] is block and c[2] is block for c in containers.values()), (
    "a list, ModuleList and Sequential of [block] * 3 hold block itself thrice")

# %%
# ``parameters()`` 和 ``named_parameters()`` 只列一次
# ---------------------------------------------------
#
# 两者都会跳过已经列出过的参数，和 :ref:`“共享权重”那一页 <questions-tied-weights>` 的情形一样：这叠层只列出一个权重和一个偏置，用的是第一层的名字；用 ``parameters()`` 构造的优化器拿着的也只是这两个张量。``named_parameters(remove_duplicate=False)`` 才会列出全部六个名字。

print("parameters():", len(list(layers.parameters())), "tensors")
print("named_parameters():", [name for name, _ in layers.named_parameters()])
print("remove_duplicate=False:", [name for name, _ in layers.named_parameters(remove_duplicate=False)])
print("optimizer holds:", len(optimizer.param_groups[0]["params"]), "tensors")
assert [name for name, _ in layers.named_parameters()] == ["0.weight", "0.bias"], (
    "named_parameters() lists the shared weight and bias once")
# sphinx_gallery_start_ignore
assert len(list(layers.parameters())) == 2 and len(optimizer.param_groups[0]["params"]) == 2, (
    "parameters() and the optimizer hold two tensors")
assert len(list(layers.named_parameters(remove_duplicate=False))) == 6, "six names without deduplication"
for kind in ("ModuleList", "Sequential"):
    assert len(list(containers[kind].parameters())) == 2, f"{kind} of [block] * 3 lists one block's parameters"
    assert [n for n, _ in containers[kind].named_parameters()] == ["0.0.weight", "0.0.bias"], f"{kind}: once"
    kind_optimizer = torch.optim.SGD(containers[kind].parameters(), lr=0.1)
    assert len(kind_optimizer.param_groups[0]["params"]) == 2, f"an optimizer of the {kind} holds two tensors"
    assert sum(p.numel() for p in containers[kind].parameters()) == 20, f"{kind}: one layer's count"
# sphinx_gallery_end_ignore

# %%
# 三处使用，一个梯度
# ------------------
#
# 每一步里，这个权重的 ``.grad`` 是它三处使用各自得到的梯度之和（这里用三个独立的张量 ``uses`` 算出这三份梯度），``step()`` 再把它作用到这一个权重上：三个“层”按同一个更新量一起变，因为它们本来就是一个。

layers.zero_grad()
torch.nn.functional.mse_loss(forward(layers, inputs), targets).backward()
uses = [layers[0].weight.detach().clone().requires_grad_() for _ in range(3)]
out = inputs
for w in uses:
    out = torch.tanh(torch.nn.functional.linear(out, w, layers[0].bias.detach()))
torch.nn.functional.mse_loss(out, targets).backward()
print("grad is the sum of the three uses:", torch.allclose(layers[0].weight.grad, sum(w.grad for w in uses)))
assert torch.allclose(layers[0].weight.grad, sum(w.grad for w in uses)), "one grad, the sum of three uses"
# sphinx_gallery_start_ignore
assert not torch.allclose(uses[0].grad, uses[2].grad), "the three uses' gradients differ"
seq_layer = copy.deepcopy(layers[0])
seq_uses = [torch.nn.Parameter(seq_layer.weight.detach().clone()) for _ in range(3)]
(seq_grad,) = torch.autograd.grad(torch.nn.Sequential(*[seq_layer] * 3)(inputs).sum(), [seq_layer.weight])
use_out = inputs
for seq_w in seq_uses:
    use_out = torch.nn.functional.linear(use_out, seq_w, seq_layer.bias.detach())
assert torch.allclose(seq_grad, sum(torch.autograd.grad(use_out.sum(), seq_uses))), "Sequential: sum of three uses"
# sphinx_gallery_end_ignore

# %%
# ``state_dict()`` 的键会重复
# ---------------------------
#
# ``state_dict()`` 不跳过重复：它在每个下标下都写一遍权重和偏置，共六个键。其中的项既不是 ``Parameter`` 本身，也不是同一个对象，而是三个张量对象，用的都是这个权重的那一块存储。

state = layers.state_dict()
print("keys:", list(state))
print("state['0.weight'] is state['2.weight']:", state["0.weight"] is state["2.weight"])
print("same storage:", same_storage(state["0.weight"], state["2.weight"]))
assert list(state) == [f"{i}.{p}" for i in range(3) for p in ("weight", "bias")], (
    "state_dict() repeats weight and bias under each index: six keys")
assert state["0.weight"] is not state["2.weight"] and same_storage(state["0.weight"], state["2.weight"]), (
    "two entries: two objects on one storage"
)
# sphinx_gallery_start_ignore
assert all(state[f"{i}.weight"] is not layers[0].weight for i in range(3)), "not the Parameter itself"
assert state["0.weight"] is not state["1.weight"] and same_storage(state["1.weight"], layers[0].weight), (
    "entry 1 is another object, on the weight's storage"
)
for kind in ("ModuleList", "Sequential"):
    keys = list(containers[kind].state_dict())
    assert keys == [f"{i}.0.{p}" for i in range(3) for p in ("weight", "bias")], f"{kind}: keys repeat"
    kind_state = containers[kind].state_dict()
    assert same_storage(kind_state["0.0.weight"], kind_state["2.0.weight"]), f"{kind}: over one storage"
assert state["1.weight"] is not state["2.weight"], "the state_dict entries 1.weight and 2.weight are two objects"
assert all(same_storage(state[f"{i}.weight"], layers[0].weight) and same_storage(state[f"{i}.bias"], layers[0].bias)
           for i in range(3)) and bytes_apart(state["0.weight"], state["0.bias"]), (
    "each repeated entry is on the storage of the parameter it names: the weight's entries on the weight's storage, "
    "the bias's on the bias's, two storages")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 state[0.weight]、state[1.weight] 和 state[2.weight] 指向三个张量对象，layers[0].weight 指向第四个，四者都在同一块存储 S1 上。
#
#    ``state_dict()`` 里权重的三项是三个张量对象，权重本身是第四个，四者都用同一块存储 ``S1``。

draw_memory("state = layers.state_dict()", **{f"state[{i}.weight]": state[f"{i}.weight"] for i in range(3)},
            **{"layers[0].weight": layers[0].weight})  # fmt: skip

# %%
# 哪些能看出来，哪些看不出来
# --------------------------
#
# ``print(layers)`` 和 ``len(layers)`` 都显示三层，和三个独立的层完全一样：两种情况下 ``ModuleList`` 都打印 ``(0-2): 3 x Linear(...)``。参数量能把两者区分开，``layers[0] is layers[1]`` 也能。

separate = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
print(layers)
print("repr(layers) == repr(separate):", repr(layers) == repr(separate), " len:", len(layers), len(separate))
print("parameters:", sum(p.numel() for p in layers.parameters()), "vs", sum(p.numel() for p in separate.parameters()))
print("layers[0] is layers[1]:", layers[0] is layers[1], " separate[0] is separate[1]:", separate[0] is separate[1])
assert repr(layers) == repr(separate) and sum(p.numel() for p in separate.parameters()) == 60, (
    "both print the same; the separate layers hold 60 parameters"
)
# sphinx_gallery_start_ignore
assert len(layers) == len(separate) == 3, "len counts three layers either way"
assert all(repr(stack).splitlines()[1:] == ["  (0-2): 3 x Linear(in_features=4, out_features=4, bias=True)", ")"]
           for stack in (layers, separate)), "ModuleList prints (0-2): 3 x Linear(...) for both"
shared_seq, separate_seq = torch.nn.Sequential(*[layers[0]] * 3), torch.nn.Sequential(*separate)
assert repr(shared_seq) == repr(separate_seq), "Sequential prints both the same way too"
assert len(shared_seq) == len(containers["Sequential"]) == 3, "len of a Sequential counts three too"
assert separate[0] is not separate[1], "a comprehension makes separate layers"
# sphinx_gallery_end_ignore

# %%
# ``load_state_dict`` 三层只留下一层
# ----------------------------------
#
# 把三个独立的层保存下来的 ``state_dict()`` 加载进共享的这叠层，结果报告所有键都匹配：``load_state_dict`` 把每一项依次复制进这一个权重，留下的是最后一项 ``2.weight``。另外两层的值就这样丢了，没有任何报错。

result = layers.load_state_dict(separate.state_dict())
print("missing:", result.missing_keys, " unexpected:", result.unexpected_keys)
print("weight equal to separate[2].weight:", torch.equal(layers[0].weight, separate[2].weight))
print("weight equal to separate[0].weight:", torch.equal(layers[0].weight, separate[0].weight))
assert not result.missing_keys and not result.unexpected_keys and torch.equal(layers[0].weight, separate[2].weight), (
    "load_state_dict raises nothing and keeps separate[2]'s weight"
)
# sphinx_gallery_start_ignore
assert not torch.equal(layers[0].weight, separate[0].weight), "the first layer's values are lost"
assert not torch.equal(layers[0].weight, separate[1].weight), "the second layer's values are lost too"
assert bytes_apart(layers[0].weight, separate[2].weight), "load_state_dict copies the values"
# sphinx_gallery_end_ignore

# %%
# 对整叠层 ``copy.deepcopy`` 仍然共享
# -----------------------------------
#
# ``copy.deepcopy(layers)`` 对每个对象只复制一次，同一个对象再次出现时沿用那份副本（见 :ref:`“copy.deepcopy”那一页 <questions-deepcopy>`）：副本里有自己的一个层，三个位置上放的都是它。

whole = copy.deepcopy(layers)
print("whole[0] is whole[2]:", whole[0] is whole[2])
print("same storage (whole, layers):", same_storage(whole[0].weight, layers[0].weight))
assert whole[0] is whole[2] and bytes_apart(whole[0].weight, layers[0].weight), "one new layer, shared"

# %%
# 解决办法
# --------
#
# 每一项各复制一次这个层：在列表推导式里写 ``copy.deepcopy(layer)``，或者每一项新建一个层。深拷贝出来的层一开始与原来的层数值相同，但有自己的内存；新建的层一开始是新的随机值。两种写法下这叠层都有 60 个参数、六个张量。训练同样的五步之后，一开始相同的三个深拷贝变得各不相同。

torch.manual_seed(0)
layer = torch.nn.Linear(4, 4)
layers = torch.nn.ModuleList([copy.deepcopy(layer) for _ in range(3)])
fresh = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
print("before: layers[0].weight equal to layers[2].weight:", torch.equal(layers[0].weight, layers[2].weight))
print("same storage:", same_storage(layers[0].weight, layers[2].weight))
print("fresh[0].weight equal to fresh[2].weight:", torch.equal(fresh[0].weight, fresh[2].weight))
# sphinx_gallery_start_ignore
assert all(torch.equal(p, q) for copied in layers for p, q in zip(copied.parameters(), layer.parameters(), strict=True)), (
    "every deep copy starts with layer's weight and bias")
assert all(bytes_apart(p, q) for x, y in ((layer, layers[0]), (layer, layers[1]), (layer, layers[2]),
                                                (layers[0], layers[1]), (layers[0], layers[2]), (layers[1], layers[2]))
               for p in x.parameters() for q in y.parameters()), (
    "every deep copy's weight and bias have memory of their own")
assert all(not torch.equal(fresh[j].weight, fresh[k].weight) for j, k in ((0, 1), (0, 2), (1, 2))) and not any(
    torch.equal(new.weight, layer.weight) for new in fresh), "new layers start from new random values"
# sphinx_gallery_end_ignore
optimizer, loss = train(layers)
print("loss after 5 steps:", loss.item())
print("after: layers[0].weight equal to layers[2].weight:", torch.equal(layers[0].weight, layers[2].weight))
print("parameters:", sum(p.numel() for p in layers.parameters()), " optimizer holds:",
      len(optimizer.param_groups[0]["params"]), "tensors")  # fmt: skip
assert not torch.equal(layers[0].weight, layers[2].weight) and len(optimizer.param_groups[0]["params"]) == 6, (
    "after the fix the layers train apart; the optimizer holds six tensors"
)
# sphinx_gallery_start_ignore
assert bytes_apart(layers[0].weight, layers[2].weight), "deep copies have memory of their own"
assert all(not torch.equal(layers[j].weight, layers[k].weight) for j, k in ((0, 1), (0, 2), (1, 2))), (
    "every two deep copies come out different after training")
assert sum(p.numel() for p in layers.parameters()) == 60 and len(list(fresh.parameters())) == 6, (
    "the deep-copied stack has 60 parameters; the new layers six tensors")
assert sum(p.numel() for p in fresh.parameters()) == 60, "new layers: 60 too"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 layers[0].weight、layers[1].weight 和 layers[2].weight 指向三个张量对象，分别在三块存储 S1、S2 和 S3 上。
#
#    改好之后，``layers[0].weight``、``layers[1].weight`` 和 ``layers[2].weight`` 是三个张量对象，分别用三块存储 ``S1``、``S2`` 和 ``S3``。

draw_memory("ModuleList([deepcopy(layer) for _ in range(3)])",
            **{f"layers[{i}].weight": layers[i].weight for i in range(3)})  # fmt: skip
# sphinx_gallery_start_ignore
assert bytes_apart(layers[0].weight, layers[1].weight) and bytes_apart(layers[1].weight, layers[2].weight), (
    "layers[1].weight shares no storage with layers[0].weight or layers[2].weight"
)
# sphinx_gallery_end_ignore

# %%
# 一个层用三次正合你意的时候
# --------------------------
#
# 有意重复使用一个层是真实存在的设计：像循环网络那样把一个模块反复作用几次，或者在不同深度之间共享权重以减少参数。这时就在代码里明说：只留一个层，在循环里调用它。它算出的结果与 ``[layer] * 3`` 那叠层完全相同，参数同样是 20 个，读代码的人也不会以为有三层。

looped = inputs
for _ in range(3):
    looped = torch.tanh(layer(looped))
print("same output as ModuleList([layer] * 3):", torch.equal(looped, forward(torch.nn.ModuleList([layer] * 3), inputs)))
print("parameters:", sum(p.numel() for p in layer.parameters()))
assert torch.equal(looped, forward(torch.nn.ModuleList([layer] * 3), inputs)), "the loop is the shared stack"
# sphinx_gallery_start_ignore
assert sum(p.numel() for p in layer.parameters()) == 20, "one Linear(4, 4) layer has 20 parameters"
assert sum(p.numel() for p in torch.nn.ModuleList([layer] * 3).parameters()) == 20, "the same as the stack's"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``[layer] * 3`` 把一个模块放在三个位置上，普通列表、``ModuleList`` 和 ``Sequential`` 都是如此。``parameters()``、``named_parameters()``、用 ``parameters()`` 构造的优化器和参数量看到的是一层；``state_dict()`` 在每个下标下重复列出键，每一项都在它所对应的那个参数的存储上；``print`` 和 ``len`` 显示三层。对 ``ModuleList`` 这叠层，``load_state_dict`` 只留下三层中最后一层的值；对整叠层做 ``copy.deepcopy``，副本里三个位置仍是同一层。解决办法是每一项各复制一次，``[copy.deepcopy(layer) for _ in range(3)]``，或者每一项新建一个层；本来就想共享时，在循环里调用同一个层。
