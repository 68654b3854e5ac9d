"""
.. _questions-compile:

``torch.compile`` 与复制：编译后的模型和原模型共享权重吗？
==========================================================

.. admonition:: 答案
   :class: answer

   ``torch.compile(model)`` 只包装 ``model``，不复制它：两者的参数是同一批对象；但包装器的 ``state_dict()`` 的键都以 ``_orig_mod.`` 开头，普通模块不认。加载 ``model`` 自己的字典，或去掉前缀（见下文）：

   .. code-block:: python

      plain.load_state_dict(model.state_dict())

本页检查编译后的模块拿着的就是模型自己的 ``Parameter`` 对象，分别经由两者训练模型，并展示它的 ``state_dict()`` 里带 ``_orig_mod.`` 的键，以及普通模块加载这些键时报的错：``Missing key(s) in state_dict`` 和 ``Unexpected key(s) in state_dict``。接着双向保存和加载，复制一个编译后的模块，再在编译后的函数里做原地（in-place）操作。本页编译时用 ``backend="aot_eager"``：它用 torch 自己的内核运行 ``torch.compile`` 捕获的计算图。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``shares`` 判断两者存储的字节范围是否重叠，起始地址不同并不说明不共享内存，字节范围才检验内存（两种检验的对比见\ :ref:`“两个张量是否共享内存”那一页 <questions-memory-overlap>`）。``make_model`` 建一个小网络；``train`` 用优化器对它训练三步，返回每一步的损失；``same_values`` 比较两个模块的参数；``save_and_load`` 把 ``state_dict`` 写进临时文件夹里的一个文件，再读回来。

import copy
import tempfile
import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def shares(x, y):
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() < sy.data_ptr() + sy.nbytes() and sy.data_ptr() < sx.data_ptr() + sx.nbytes()


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))


def train(module, optimizer, steps=3):
    losses = []
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(module(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


def same_values(a, b):
    return all(torch.allclose(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))


def save_and_load(state):
    with tempfile.TemporaryDirectory() as folder:
        torch.save(state, f"{folder}/model.pt")
        return torch.load(f"{folder}/model.pt")


torch.manual_seed(0)
inputs, targets = torch.randn(16, 4), torch.randn(16, 2)
start = make_model()

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
# 包装器拿着模型自己的参数
# ------------------------
#
# ``torch.compile`` 返回一个 ``OptimizedModule``。它把 ``model`` 本身作为子模块存在属性 ``_orig_mod`` 里（名字带下划线，表示这是 torch 内部的属性），什么也不复制：它列出的每个参数都和模型的那个参数是同一个 ``Parameter`` 对象，只是名字前面多了 ``_orig_mod.`` 这个前缀。

model = copy.deepcopy(start)
compiled = torch.compile(model, backend="aot_eager")
print("type:", type(compiled).__name__)
print("compiled._orig_mod is model:", compiled._orig_mod is model)
for (name, p), (compiled_name, q) in zip(model.named_parameters(), compiled.named_parameters(), strict=True):
    print(f"{compiled_name:<20} is model's {name}:", q is p)
assert all(q is p for p, q in zip(model.parameters(), compiled.parameters(), strict=True)), (
    "compiled.parameters() are model's own Parameter objects")
# sphinx_gallery_start_ignore
assert type(compiled).__name__ == "OptimizedModule" and compiled._orig_mod is model, "a wrapper around model"
assert [n for n, _ in compiled.named_parameters()] == [f"_orig_mod.{n}" for n, _ in model.named_parameters()], (
    "each parameter's name gains the prefix"
)
# sphinx_gallery_end_ignore

# %%
# 无论经由哪一个训练，两者都得到训练
# ----------------------------------
#
# 经由 ``compiled`` 用 SGD 训练三步，优化器一次用 ``compiled.parameters()`` 构造，一次用 ``model.parameters()`` 构造，每次都从同一个起点的一份新副本开始。两次训练中模型自己的权重都变了，而且最后都和另一份起点副本以即时执行模式（eager mode）训练三步的结果一样。

reference = copy.deepcopy(start)
print("eager reference:       ", train(reference, torch.optim.SGD(reference.parameters(), lr=0.1)))
for route in ("compiled.parameters()", "model.parameters()"):
    model = copy.deepcopy(start)
    compiled = torch.compile(model, backend="aot_eager")
    params = compiled.parameters() if route == "compiled.parameters()" else model.parameters()
    losses = train(compiled, torch.optim.SGD(params, lr=0.1))
    print(f"{route:<22}", losses, " model trained like the reference:", same_values(model, reference))
    assert same_values(model, reference) and not same_values(model, start), f"{route}: the model is trained"

# %%
# 反过来也一样：在即时执行模式下对 ``model`` 训练几步，``compiled`` 算出的结果也跟着变，因为编译后的代码每次调用时都读参数当前的值。

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = compiled(inputs).detach()
print("eager steps on model:", train(model, optimizer))
print("compiled output changed:", not torch.allclose(compiled(inputs), before))
print("compiled(inputs) equal to model(inputs):", torch.allclose(compiled(inputs), model(inputs)))
assert torch.allclose(compiled(inputs), model(inputs)) and not torch.allclose(compiled(inputs), before), (
    "eager steps on model change what compiled computes"
)

# %%
# ``state_dict()`` 的键多了 ``_orig_mod.``
# ----------------------------------------
#
# 包装器的 ``state_dict()`` 里是模型的各项，但用的是包装器自己的名字：每个键都以 ``_orig_mod.`` 开头。各项的值都是张量，用的是参数的存储，和本例这样的普通模块的 ``state_dict()`` 一样（见\ :ref:`“保存最佳权重”那一页 <questions-best-weights>`）。

state = compiled.state_dict()
print("compiled keys:", list(state))
print("model keys:   ", list(model.state_dict()))
print("same storage:", same_storage(state["_orig_mod.0.weight"], model[0].weight))
assert list(state) == [f"_orig_mod.{k}" for k in model.state_dict()], "every key gains the prefix"
# sphinx_gallery_start_ignore
assert all(same_storage(state[f"_orig_mod.{k}"], p) and same_storage(model.state_dict()[k], p)
           for k, p in model.named_parameters()), (
    "every entry of compiled's state_dict, like model's, is on its parameter's storage")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 model[0].weight 和 list(compiled.parameters())[0] 指向同一个张量对象，state["_orig_mod.0.weight"] 指向第二个张量对象，两者都在同一块存储 S1 上。
#
#    ``model[0].weight`` 和编译后模块的第一个参数是同一个张量对象；``state_dict()`` 里的那一项是第二个张量对象，用的是同一块存储 ``S1``。

draw_memory("state = compiled.state_dict()", **{"model[0].weight": model[0].weight,
            "list(compiled.parameters())[0]": list(compiled.parameters())[0],
            'state["_orig_mod.0.weight"]': state["_orig_mod.0.weight"]})  # fmt: skip
# sphinx_gallery_start_ignore
assert list(compiled.parameters())[0] is model[0].weight, "compiled's first parameter is model[0].weight itself"
assert state["_orig_mod.0.weight"] is not model[0].weight, "the entry is another tensor object"
# sphinx_gallery_end_ignore

# %%
# 普通模块不认这些键
# ------------------
#
# 不用 ``torch.compile`` 建的模型（比如用来评估检查点的模型）不认识带前缀的名字：``load_state_dict`` 把它要的每个键都列为缺失，把字典里的每个键都列为多余，然后抛出错误。加上 ``strict=False`` 就不抛出，但也什么都没有加载：新模型保留自己的随机值。反过来，编译后的模块也同样不认普通的字典。

plain = make_model()
try:
    plain.load_state_dict(state)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {str(e).expandtabs(4)}")  # torch 用制表符缩进
else:
    raise AssertionError("loading the compiled module's keys into a plain module must raise")
assert message.startswith("Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict:"), (
    "a plain module lists its keys as missing"
)
assert 'Unexpected key(s) in state_dict: "_orig_mod.0.weight"' in message, (
    "a plain module lists the prefixed keys as unexpected"
)
result = plain.load_state_dict(state, strict=False)
print("strict=False missing:", result.missing_keys)
print("strict=False unexpected:", result.unexpected_keys)
print("plain loaded the weights:", same_values(plain, model))
assert len(result.missing_keys) == 4 and not same_values(plain, model), "strict=False: 4 keys missing, nothing loaded"
try:
    compiled.load_state_dict(model.state_dict())
except RuntimeError as e:
    reverse_message = str(e)
    print(f"{type(e).__name__}: {reverse_message.splitlines()[0]}")
else:
    raise AssertionError("loading plain keys into the compiled module must raise")
assert 'Missing key(s) in state_dict: "_orig_mod.0.weight"' in reverse_message, (
    "the compiled module lists its prefixed keys as missing"
)
# sphinx_gallery_start_ignore
assert result.unexpected_keys == list(state) and result.missing_keys == list(model.state_dict()), (
    "strict=False: every key of the dict unexpected, every key of the module missing"
)
# sphinx_gallery_end_ignore

# %%
# 解决办法：用模型自己的字典，或去掉前缀
# --------------------------------------
#
# 三种字典都能无错地加载进普通模块，让它得到训练好的权重：``model.state_dict()``；经由包装器拿到的同一个字典 ``compiled._orig_mod.state_dict()``；以及每个键都去掉前缀的包装器字典。往编译后的模块里加载也一样，经由 ``compiled._orig_mod`` 或 ``model`` 加载，之后编译后的模块就用加载的权重计算。

plain = make_model()
plain.load_state_dict(model.state_dict())
print("from model.state_dict():", same_values(plain, model))
assert same_values(plain, model), "a plain module loads model.state_dict()"
plain = make_model()
plain.load_state_dict(compiled._orig_mod.state_dict())
print("from compiled._orig_mod.state_dict():", same_values(plain, model))
assert same_values(plain, model), "a plain module loads compiled._orig_mod.state_dict()"
plain = make_model()
plain.load_state_dict({k.removeprefix("_orig_mod."): v for k, v in compiled.state_dict().items()})
print("prefix stripped:", same_values(plain, model))
assert same_values(plain, model), "a plain module loads the dict with the prefix stripped"
other = make_model()
compiled._orig_mod.load_state_dict(other.state_dict())
print("compiled computes with the loaded weights:", torch.allclose(compiled(inputs), other(inputs)))
assert torch.allclose(compiled(inputs), other(inputs)) and same_values(model, other), (
    "loaded through _orig_mod, the compiled module computes with the new weights"
)

# %%
# 存成文件
# --------
#
# 存成文件也一样。从本页的 ``model`` 或 ``compiled._orig_mod`` 保存的字典，键不带前缀；像这里这样只给路径调用 ``torch.load``，读回的张量各有自己的内存：都不和 ``model`` 的张量共享内存，而且由于这个模型没有哪两个参数共享内存，彼此也不共享；普通模块能加载它们。从 ``compiled.state_dict()`` 保存的文件保留前缀。把同一个 ``Linear`` 用了两次的 ``nn.Sequential(layer, nn.ReLU(), layer)``，其字典存成文件再读回，``0.weight`` 和 ``2.weight`` 在同一块存储上，``0.bias`` 和 ``2.bias`` 在另一块存储上。

for route, saved in {
    "model.state_dict()": model.state_dict(),
    "compiled._orig_mod.state_dict()": compiled._orig_mod.state_dict(),
    "compiled.state_dict()": compiled.state_dict(),
}.items():
    loaded = save_and_load(saved)
    print(f"{route:<32} first key in the file: {next(iter(loaded))}")
    if route != "compiled.state_dict()":
        plain = make_model()
        plain.load_state_dict(loaded)
        others = [*model.state_dict().values(), *loaded.values()]
        assert same_values(plain, model) and all(
            not shares(t, other) for t in loaded.values() for other in others if other is not t
        ), f"{route}: a plain module loads the file, whose tensors share no memory with model's or each other"
assert next(iter(loaded)) == "_orig_mod.0.weight", "a file saved from the wrapper keeps the prefix"

# sphinx_gallery_start_ignore
assert all(not shares(p, q) for p in model.parameters() for q in model.parameters() if p is not q), (
    "no two of model's parameters share memory"
)
shared_linear = torch.nn.utils.skip_init(torch.nn.Linear, 4, 4)  # 不抽取随机数：页面的输出保持不变
tied_file = save_and_load(torch.nn.Sequential(shared_linear, torch.nn.ReLU(), shared_linear).state_dict())
assert (same_storage(tied_file["0.weight"], tied_file["2.weight"])
        and same_storage(tied_file["0.bias"], tied_file["2.bias"])
        and not shares(tied_file["0.weight"], tied_file["0.bias"])), (
    "the file of nn.Sequential(layer, nn.ReLU(), layer) gives back 0.weight and 2.weight on one storage, "
    "the biases on another"
)
# sphinx_gallery_end_ignore

# %%
# ``model.compile()``：原地编译，名字不变
# ---------------------------------------
#
# ``nn.Module.compile`` 原地编译模块的调用，而不是把模块包起来：模块仍然是 ``Sequential``，键保持原来的名字，普通模块能加载。经由它用 SGD 训练三步，结果和参照模型以即时执行模式训练三步一样。

model = copy.deepcopy(start)
model.compile(backend="aot_eager")
print("type:", type(model).__name__, " keys:", list(model.state_dict())[:2])
print("losses:", train(model, torch.optim.SGD(model.parameters(), lr=0.1)))
plain = make_model()
plain.load_state_dict(model.state_dict())
print("trained like the reference:", same_values(model, reference), " plain loaded it:", same_values(plain, model))
assert list(model.state_dict()) == list(start.state_dict()) and same_values(model, reference), (
    "model.compile() keeps the key names and trains like the reference"
)
# sphinx_gallery_start_ignore


class CompilingProbe(torch.nn.Module):
    def forward(self, x):
        return x + torch.compiler.is_compiling()


probe = CompilingProbe()
probe.compile(backend="aot_eager")
assert torch.equal(probe(torch.zeros(2)), torch.ones(2)), "after module.compile(), calls run compiled"
assert torch.equal(CompilingProbe()(torch.zeros(2)), torch.zeros(2)), "an uncompiled call does not"
assert same_values(plain, model), "a plain module loads the keys of a module compiled in place"
assert type(model) is torch.nn.Sequential, "model.compile() leaves the module's class as it was"
# sphinx_gallery_end_ignore

# %%
# 对编译后的模块 ``copy.deepcopy`` 会复制模型
# -------------------------------------------
#
# 深拷贝包装器会复制它里面的模块，和深拷贝任何模块一样（见 :ref:`“copy.deepcopy”那一页 <questions-deepcopy>`）：副本仍然是 ``OptimizedModule``，包着一个新模型，新模型的参数都不和 ``model`` 的参数共享内存。训练副本不会改变 ``model``。

model = copy.deepcopy(start)
compiled = torch.compile(model, backend="aot_eager")
twin = copy.deepcopy(compiled)
print("type:", type(twin).__name__, " twin._orig_mod is model:", twin._orig_mod is model)
print("shares memory:", shares(twin._orig_mod[0].weight, model[0].weight))
print("losses of the copy:", train(twin, torch.optim.SGD(twin.parameters(), lr=0.1)))
print("model still at the start:", same_values(model, start))
assert not any(shares(p, q) for p in twin.parameters() for q in model.parameters()) and same_values(model, start), (
    "no parameter of the copy shares memory with model's, and model stays at the start"
)
# sphinx_gallery_start_ignore
assert type(twin).__name__ == "OptimizedModule" and twin._orig_mod is not model, "a wrapper around a new model"
assert same_values(twin, reference), "the copy trains like the reference"
# sphinx_gallery_end_ignore

# %%
# 编译后的函数里的原地操作
# ------------------------
#
# 编译后的函数拿到的是调用方的张量，不是副本。四种原地操作（``add_``、``mul_``、``copy_`` 和下标赋值 ``x[0] = 5``）编译后，各自作用在三种输入上：一个独立的张量、一个长张量的切片、一个转置矩阵的一列。每一种都让调用方的张量，以及它作为视图（view）所属的那个张量，得到与即时执行模式下同一函数相同的值，也都让它们的版本计数器（version counter）增加；``_version`` 是 torch 内部记录原地操作次数的计数。增加多少是 torch 内部的记账，表里列出了两种模式下的值：只拿 ``_version`` 和它之前的值比较，不要和某个具体数字比较。


def add_one(x):
    x.add_(1)


def double(x):
    x.mul_(2)


def fill_ones(x):
    x.copy_(torch.ones_like(x))


def set_first(x):
    x[0] = 5


rows = [("edit", "input", "equal to eager", "_version: eager, compiled")]
for edit in (add_one, double, fill_ones, set_first):
    compiled_edit = torch.compile(edit, backend="aot_eager")
    for kind in ("own", "slice", "transposed"):
        tensors = {}
        for mode, run in (("eager", edit), ("compiled", compiled_edit)):
            base = torch.arange(12.0)
            x = {"own": torch.arange(4.0), "slice": base[4:8], "transposed": base.view(3, 4).t()[1]}[kind]
            run(x)
            tensors[mode] = (x, base)
        (eager_x, eager_base), (compiled_x, compiled_base) = tensors["eager"], tensors["compiled"]
        same = torch.equal(compiled_x, eager_x) and torch.equal(compiled_base, eager_base)
        rows.append((edit.__name__, kind, str(same), f"{eager_x._version}, {compiled_x._version}"))
        assert same and compiled_x._version > 0, f"{edit.__name__} on {kind}: the edit reaches the caller"
for edit_name, kind, same_text, versions in rows:
    print(f"{edit_name:<10} {kind:<11} {same_text:<15} {versions}")
# sphinx_gallery_start_ignore
assert not torch.equal(compiled_x, torch.arange(12.0).view(3, 4).t()[1]), "the last edit changed the values"
assert compiled_base._version > 0, "the view's base saw the edit too"
# sphinx_gallery_end_ignore

# %%
# 自动求导（autograd）看到的版本变化和即时执行模式下一样：在编译后的函数之外（这里是即时执行的 ``w * a``）为反向传播保存下来的张量，随后在编译后的函数里被原地修改，只要它是编译后的函数用到的张量中唯一在它这块存储上的张量对象（这里它是唯一的参数；下面几个单元格会再传入或读取一个），``backward()`` 就会停下来，报出\ :ref:`“原地修改报错”那一页 <questions-inplace-error>` 讲的错误。隐藏检查把上面四种原地操作分别用在那三种输入和一个需要梯度的非叶子张量上，在梯度模式（grad mode）下和 ``torch.no_grad()`` 下各运行一遍。

w = torch.ones(3, requires_grad=True)
a = torch.arange(3.0)
y = (w * a).sum()
torch.compile(add_one, backend="aot_eager")(a)
print("a:", a, " a._version:", a._version)
try:
    y.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    inplace_message = str(e)
else:
    raise AssertionError("backward after a compiled in-place edit of a saved tensor must raise")
assert "modified by an inplace operation" in inplace_message, "backward stops with the in-place error"
# sphinx_gallery_start_ignore
def saved_backward_message(y):
    """The message of the RuntimeError y.backward() raises, or "backward() ran"."""
    try:
        y.backward()
    except RuntimeError as e:
        return str(e)
    return "backward() ran"


for saved_edit in (add_one, double, fill_ones, set_first):
    for saved_kind in ("own", "slice", "transposed", "non-leaf"):
        for saved_grad_mode in (True, False):
            torch.compiler.reset()
            base_saved, w_saved = torch.arange(12.0), torch.ones(4, requires_grad=True)
            x_saved = {"own": torch.arange(4.0), "slice": base_saved[4:8], "transposed": base_saved.view(3, 4).t()[1],
                       "non-leaf": w_saved * 2}[saved_kind]
            y_saved = (w_saved.sum() * x_saved).sum()
            with torch.set_grad_enabled(saved_grad_mode), warnings.catch_warnings(record=True) as saved_caught:
                warnings.simplefilter("always")
                torch.compile(saved_edit, backend="aot_eager")(x_saved)
            assert all("not a leaf Tensor is being accessed" in str(caught_one.message) for caught_one in saved_caught), (
                "compiling the edit warns only that it reads the .grad of a non-leaf")
            saved_message = saved_backward_message(y_saved)
            assert "modified by an inplace operation" in saved_message, (
                "a saved tensor, the only one on its storage the compiled edit uses: backward() raises the in-place "
                "error, grad mode on or off")
# sphinx_gallery_end_ignore

# %%
# 并非每种把内存传进去的方式都是这样。两个不同的张量对象作参数，dtype 都与 ``a`` 相同，本身都没有基张量（base tensor），又在同一块存储上共享元素（但各自都没有两个元素落在同一处内存上，不像 ``expand()`` 得到的张量那样），比如 ``a.detach()`` 和 ``a[1:].detach()``，只要函数两个都用到，函数的修改就会落到 ``a`` 上，但在本次构建的编译调用里，版本计数器一个也不动：``backward()`` 不报错，直接用修改后的 ``a`` 计算 ``w.grad``；即时执行模式下则会报错。

def add_then_double(x, z):
    x.add_(1)
    z.mul_(2)


w = torch.ones(4, requires_grad=True)
a = torch.arange(4.0)
y = (w * a).sum()
torch.compile(add_then_double, backend="aot_eager")(a.detach(), a[1:].detach())
y.backward()
print("compiled: a:", a, " a._version:", a._version, " w.grad:", w.grad)
assert torch.equal(a, torch.tensor([1.0, 4.0, 6.0, 8.0])) and a._version == 0 and torch.equal(w.grad, a), (
    "compiled, two different objects with no base of their own that share elements: the edits reach a, its version "
    "stays, and backward() runs on the edited values")
w = torch.ones(4, requires_grad=True)
a = torch.arange(4.0)
y = (w * a).sum()
add_then_double(a.detach(), a[1:].detach())
try:
    y.backward()
except RuntimeError as e:
    print(f"eager:    a: {a}  {type(e).__name__}: {str(e).split(':')[0]}")
else:
    raise AssertionError("eager: backward after the same two edits must raise")

# %%
# 光是共享存储还决定不了结果。下表在更多对参数上运行 ``add_then_double`` 和 ``read_then_double``，后者读取 ``x``、把 ``z`` 翻倍；每一格先是编译调用之后的 ``a._version``，再是 ``backward()`` 的结果，而 ``a`` 最后总是和即时执行模式下一样。表中凡是由两个不同对象组成、共享元素的一对参数，版本都保持为 0。有自己存储的别名（见\ :ref:`“b = a 与 b = a.data”那一页 <copying-alias>`）则不一样：传入 ``torch.from_dlpack(a)`` 或 ``torch.from_numpy(a.numpy())`` 和 ``a[1:].detach()`` 时，两个函数的编译调用都会推进 ``a._version``，``backward()`` 也会报错；``add_then_double`` 还会让 ``a`` 的值与即时执行模式下不同：``z.mul_(2)`` 翻倍的是 ``x.add_(1)`` 之前 ``z`` 的值。同一个张量对象同时作为两个参数传入，比如 ``f(a, a)``，或 ``d = a.detach()`` 时的 ``f(d, d)``，会像只传一个参数时那样推进 ``a._version``，``backward()`` 也会报错；不共享元素的 ``a[:2].detach()`` 和 ``a[2:].detach()`` 也是如此。``a[::2].detach()`` 和 ``a[1::2].detach()`` 同样不共享元素，却不推进版本。传入 ``a.detach()`` 和另一个 ``detach()`` 的视图 ``a.detach()[1:]`` 时，调用本身就抛出 ``BackendCompilerFailed``。


def read_then_double(x, z):
    return x.sum() + z.mul_(2).sum()


def backward_outcome(y):
    try:
        y.backward()
    except RuntimeError:
        return "raises"
    return "runs"


pairs = [  # （参数，怎样从 a 得到它们，a._version 是否保持为 0 且 backward() 照常运行）
    ("a.detach(), a[1:].detach()", lambda a: (a.detach(), a[1:].detach()), True),
    ("a.detach(), a.detach()", lambda a: (a.detach(), a.detach()), True),
    ("a[:3].detach(), a[1:].detach()", lambda a: (a[:3].detach(), a[1:].detach()), True),
    ("a.view(2, 2).detach(), .t().detach()", lambda a: (a.view(2, 2).detach(), a.view(2, 2).t().detach()), True),
    ("a[::2].detach(), a[1::2].detach()", lambda a: (a[::2].detach(), a[1::2].detach()), True),
    ("a[:2].detach(), a[2:].detach()", lambda a: (a[:2].detach(), a[2:].detach()), False),
]
table = [("arguments", "share an element", "add_then_double", "read_then_double")]
for name, make, stays in pairs:
    cells = []
    for function in (add_then_double, read_then_double):
        torch.compiler.reset()
        w = torch.ones(4, requires_grad=True)
        a = torch.arange(4.0)
        y = (w * a).sum()
        x, z = make(a)
        shared = bool(set(x.flatten().tolist()) & set(z.flatten().tolist()))  # a 的值就是它的下标
        eager_a = torch.arange(4.0)
        function(*make(eager_a))
        torch.compile(function, backend="aot_eager")(x, z)
        outcome = backward_outcome(y)
        cells.append(f"{a._version}, {outcome}")
        assert (
            x._base is None and z._base is None and torch.equal(a, eager_a)
            and (a._version == 0 and outcome == "runs") == stays and (stays or not shared)
        ), "arguments with no base of their own: a as in eager mode; the version stays where the table says"
    table.append((name, str(shared), *cells))
for name, shared_text, first_cells, second_cells in table:
    print(f"{name:<38} {shared_text:<17} {first_cells:<16} {second_cells}")
# sphinx_gallery_start_ignore


def with_own_storage(function, make):
    """a._version moved, what backward() does, and a's values with eager mode's, when the compiled function gets
    an alias of a with a storage of its own and a[1:].detach()."""
    torch.compiler.reset()
    w_own, a_own, eager_own = torch.ones(4, requires_grad=True), torch.arange(4.0), torch.arange(4.0)
    y_own = (w_own * a_own).sum()
    function(*make(eager_own))
    torch.compile(function, backend="aot_eager")(*make(a_own))
    return a_own._version > 0, backward_outcome(y_own), a_own.tolist(), eager_own.tolist()


for make_own in (lambda t: (torch.from_dlpack(t), t[1:].detach()),
                 lambda t: (torch.from_numpy(t.numpy()), t[1:].detach())):
    assert with_own_storage(read_then_double, make_own)[:2] == (True, "raises") and with_own_storage(
        add_then_double, make_own) == (True, "raises", [1.0, 2.0, 4.0, 6.0], [1.0, 4.0, 6.0, 8.0]), (
        "an alias with a storage of its own and a[1:].detach(): a._version moves, backward() raises, and "
        "add_then_double doubles z's values from before x.add_(1), unlike eager mode")


def passed_twice(function, make):
    """Whether a._version moves, and what backward() does, when the compiled function gets one tensor twice."""
    torch.compiler.reset()
    w_twice, a_twice = torch.ones(4, requires_grad=True), torch.arange(4.0)
    y_twice = (w_twice * a_twice).sum()
    both = make(a_twice)
    torch.compile(function, backend="aot_eager")(both, both)
    return a_twice._version > 0, backward_outcome(y_twice)


assert all(
    passed_twice(function_twice, make_twice) == (True, "raises")
    for function_twice in (add_then_double, read_then_double)
    for make_twice in (lambda t: t, lambda t: t.detach(), lambda t: t[1:].detach())
), "one tensor object passed as both arguments moves a._version, and backward() raises"
# sphinx_gallery_end_ignore
torch.compiler.reset()
a = torch.arange(4.0)
try:
    torch.compile(add_then_double, backend="aot_eager")(a.detach(), a.detach()[1:])
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).splitlines()[1].split(' Aliased')[0]}")
    view_error = e
else:
    raise AssertionError("a.detach() with a view of another detach(): the compiled call must raise")
# sphinx_gallery_start_ignore
assert type(view_error).__name__ == "BackendCompilerFailed" and "mixed autograd ._base states" in str(view_error), (
    "the call raises a BackendCompilerFailed about mixed ._base states")
# sphinx_gallery_end_ignore

# %%
# 第二个张量对象不一定是参数。下面 ``a`` 是编译后的函数唯一的参数，函数还从全局变量读取 ``g = a.detach()``：在本次构建的编译调用里，修改落到了 ``a`` 上，版本计数器却不动，``backward()`` 直接用修改后的值运行；即时执行模式下则会报错。把 ``a.detach()`` 换成 ``a[1:].detach()``，或者不放在全局变量里，而是放在闭包变量或模块的缓冲区里，结果也一样。用同样的方式拿着有自己存储的别名 ``torch.from_numpy(a.numpy())``，或 ``a`` 的视图 ``a[1:]`` 时，``a._version`` 会增加，``backward()`` 也会报错。


def add_one_and_read_g(x):
    x.add_(1)
    return g.sum()


torch.compiler.reset()
w = torch.ones(4, requires_grad=True)
a = torch.arange(4.0)
y = (w * a).sum()
g = a.detach()
torch.compile(add_one_and_read_g, backend="aot_eager")(a)
y.backward()
print("compiled: a:", a, " a._version:", a._version, " w.grad:", w.grad)
assert torch.equal(a, torch.arange(1.0, 5.0)) and a._version == 0 and torch.equal(w.grad, a), (
    "compiled, a the only argument and g = a.detach() read from a global: the edit reaches a, its version stays, and "
    "backward() runs on the edited values")
w = torch.ones(4, requires_grad=True)
a = torch.arange(4.0)
y = (w * a).sum()
g = a.detach()
add_one_and_read_g(a)
try:
    y.backward()
except RuntimeError as e:
    print(f"eager:    a: {a}  {type(e).__name__}: {str(e).split(':')[0]}")
else:
    raise AssertionError("eager: backward after the same edit must raise")
# sphinx_gallery_start_ignore


def add_one_then_read_held(x):
    add_one(x)
    return held.sum()


def read_held_then_add_one(x):
    total = held.sum()
    add_one(x)
    return total


def in_closure(held_now, read_first):
    def add_one_and_read_closure(x):
        total = held_now.sum()
        add_one(x)
        return total if read_first else held_now.sum()

    return add_one_and_read_closure


class HoldsBuffer(torch.nn.Module):
    def forward(self, x):
        add_one(x)
        return self.held_buffer.sum()


for make_held, moves in ((lambda t: t.detach(), False), (lambda t: t[1:].detach(), False),
                         (lambda t: torch.from_numpy(t.numpy()), True), (lambda t: t[1:], True)):
    for held_route in ("global", "global read first", "closure", "closure read first", "buffer"):
        torch.compiler.reset()
        w_held, a_held = torch.ones(4, requires_grad=True), torch.arange(4.0)
        y_held = (w_held * a_held).sum()
        held = make_held(a_held)
        held_module = HoldsBuffer()
        held_module.register_buffer("held_buffer", held)
        held_function = {"global": add_one_then_read_held, "global read first": read_held_then_add_one,
                         "closure": in_closure(held, False), "closure read first": in_closure(held, True),
                         "buffer": held_module}[held_route]
        torch.compile(held_function, backend="aot_eager")(a_held)
        assert a_held.tolist() == [1.0, 2.0, 3.0, 4.0] and (a_held._version > 0) == moves and backward_outcome(
            y_held) == ("raises" if moves else "runs"), (
            "a the only argument, a second tensor read from a global, a closure variable or a buffer: a._version stays "
            "and backward() runs for a.detach() or a[1:].detach(), and moves with backward() raising for "
            "torch.from_numpy(a.numpy()) or a[1:]")
# sphinx_gallery_end_ignore

# %%
# 经由 ``.data`` 的修改则不一样。在即时执行模式下，它不推进版本计数器（见\ :ref:`“.data”那一页 <data-vs-detach-data>`），所以 ``backward()`` 照常运行，用修改后的 ``a`` 算出 ``w.grad``。在用 ``backend="aot_eager"`` 编译的函数里，同样的修改会推进 ``a._version``，于是对在这个函数之外算出的 ``y`` 调用 ``backward()``，会抛出原地修改的错误。


def add_one_through_data(x):
    x.data.add_(1)


w = torch.ones(3, requires_grad=True)
a = torch.arange(3.0)
y = (w * a).sum()
version_before = a._version
add_one_through_data(a)
y.backward()
print("eager:    a:", a, " a._version:", a._version, " w.grad:", w.grad)
assert a._version == version_before and torch.equal(w.grad, a), (
    "eager: the .data edit moves no version counter, and w.grad is the edited a"
)
w = torch.ones(3, requires_grad=True)
a = torch.arange(3.0)
y = (w * a).sum()
version_before = a._version
torch.compile(add_one_through_data, backend="aot_eager")(a)
print("compiled: a:", a, " a._version:", a._version)
try:
    y.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    data_message = str(e)
else:
    raise AssertionError("backward after a compiled .data edit of a saved tensor must raise")
assert a._version > version_before and "modified by an inplace operation" in data_message, (
    "compiled: the .data edit moves a._version, and backward raises the in-place error"
)
# sphinx_gallery_start_ignore
assert torch.equal(a, torch.arange(1.0, 4.0)), "compiled: the .data edit reaches a"
# sphinx_gallery_end_ignore

# %%
# 如果同一个编译后的函数在同一张捕获的计算图里既保存这个张量，又原地修改它（经由 ``.data`` 的修改除外），错误来得更早：``torch.compile`` 编译这个函数时，调用本身就抛出这个错误，类型是 ``BackendCompilerFailed``，属于 ``RuntimeError``；``a`` 也没有被修改，值和版本都和原来一样。编译时 torch 还会发出一条警告 ``Error detected in MulBackward0``，本页捕获这条警告，打印它的第一行。


def save_then_edit(w, a):
    y = (w * a).sum()
    a.add_(1)
    return y


w = torch.ones(3, requires_grad=True)
a = torch.arange(3.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        torch.compile(save_then_edit, backend="aot_eager")(w, a)
    except RuntimeError as e:
        print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
        call_error = e
    else:
        raise AssertionError("a compiled function that edits a tensor it saved must raise when called")
print("warnings caught:", [f"{warning.category.__name__}: {str(warning.message).splitlines()[0]}" for warning in caught])
print("a:", a, " a._version:", a._version)
assert "modified by an inplace operation" in str(call_error), "the compiled call raises the in-place error"
# sphinx_gallery_start_ignore
assert type(call_error).__name__ == "BackendCompilerFailed", "the call raises a BackendCompilerFailed"
assert torch.equal(a, torch.arange(3.0)) and a._version == 0, "a is not edited: it keeps its values and its version"
assert [str(warning.message).splitlines()[0] for warning in caught] == [
    "Error detected in MulBackward0. Traceback of forward call that caused the error:"
], "compiling warns once, Error detected in MulBackward0"
# sphinx_gallery_end_ignore

# %%
# 在同一张图里经由 ``.data`` 修改则什么错误也不报：调用修改了 ``a``，也推进了 ``a._version``，但 ``backward()`` 照常运行，并且和即时执行模式下一样，用修改后的 ``a`` 算出 ``w.grad``。


def save_then_edit_through_data(w, a):
    y = (w * a).sum()
    a.data.add_(1)
    return y


w = torch.ones(3, requires_grad=True)
a = torch.arange(3.0)
y = torch.compile(save_then_edit_through_data, backend="aot_eager")(w, a)
print("a:", a, " a._version:", a._version)
y.backward()
print("w.grad:", w.grad)
assert a._version > 0 and torch.equal(w.grad, a), (
    "with the save and a .data edit in one graph, the call moves a._version and backward() uses the edited a")
# sphinx_gallery_start_ignore
assert torch.equal(a, torch.arange(1.0, 4.0)), "the .data edit in the same graph reaches a"
# sphinx_gallery_end_ignore

# %%
# 保存和修改之间如果有图中断（graph break；这里把修改放进一个用 ``torch.compiler.disable`` 标记的函数，编译后的代码把它当普通 Python 函数调用），保存和修改就不在同一张捕获的图里：调用照常运行并修改 ``a``，之后的 ``backward()`` 报出原地修改的错误，和即时执行模式下一样。


@torch.compiler.disable
def add_one_eagerly(a):
    a.add_(1)


def save_break_edit(w, a):
    y = (w * a).sum()
    add_one_eagerly(a)
    return y


w = torch.ones(3, requires_grad=True)
a = torch.arange(3.0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # 图中断之后，torch.compile 读取 y.grad，发出警告；这不是本页的话题
    y = torch.compile(save_break_edit, backend="aot_eager")(w, a)
print("a:", a, " a._version:", a._version)
try:
    y.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    break_message = str(e)
else:
    raise AssertionError("backward() after a graph break between the save and the edit must raise")
assert torch.equal(a, torch.arange(1.0, 4.0)) and "modified by an inplace operation" in break_message, (
    "with a graph break between them, the call edits a and backward() raises the in-place error"
)

# %%
# 在编译后的函数里重新绑定名字
# ----------------------------
#
# 函数里的 ``x = x + 1`` 新建一个张量，把局部名字 ``x`` 绑定到它上面，和即时执行模式下一样（见\ :ref:`“在函数里改张量”那一页 <questions-function-arguments>`）：调用方的张量保留原来的值和版本，返回的张量不和它共享内存。


def rebind(x):
    x = x + 1
    return x


a = torch.zeros(3)
returned = torch.compile(rebind, backend="aot_eager")(a)
print("a:", a, " a._version:", a._version)
print("returned:", returned)
print("shares memory:", shares(returned, a))
assert torch.equal(a, torch.zeros(3)) and a._version == 0 and not shares(returned, a), (
    "rebinding x leaves the caller's tensor as it was; the result shares no memory with it"
)

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    在 GPU 上，用默认的后端（inductor）编译的模型，调用时算出的结果与原模型相同；包装器、它的参数和带 ``_orig_mod.`` 的键都和上面一样。``mode="reduce-overhead"`` 还会用上 CUDA 图（“CUDAGraph Trees”）：一次运行把输出写进内存，而同一个图的下一次运行会重用这块内存。这时再读之前某次运行留下的输出，就会抛出 ``RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run``。要保留的输出，在编译后的函数外面用 ``clone()`` 复制一份（PyTorch 文档：`CUDAGraph Trees <https://docs.pytorch.org/docs/stable/torch.compiler_cudagraph_trees.html>`__）。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():

    def square(x):
        return torch.matmul(x, x)

    gpu_model = torch.nn.Linear(4, 4).cuda()
    gpu_inputs = torch.ones(1, 4, device="cuda")
    gpu_x = torch.randn(10, 10, device="cuda")
    with warnings.catch_warnings(record=True):  # 导入 GPU 上的编译栈时，torch 会发出一条关于 torch.jit 的警告
        warnings.simplefilter("always")
        gpu_compiled = torch.compile(gpu_model)
        gpu_out = gpu_compiled(gpu_inputs)  # 调用一次
        compiled_square = torch.compile(square, mode="reduce-overhead")
        first = compiled_square(gpu_x)
        kept = compiled_square(gpu_x).clone()
        third = compiled_square(gpu_x)
    print("compiled output equal to the model's:", torch.allclose(gpu_out, gpu_model(gpu_inputs)))
    assert torch.allclose(gpu_out, gpu_model(gpu_inputs)), "on a GPU, the compiled model computes what the model does"
    pairs = list(zip(gpu_model.named_parameters(), gpu_compiled.named_parameters(), strict=True))
    print("type(gpu_compiled):", type(gpu_compiled).__name__)
    print("gpu_compiled._orig_mod is gpu_model:", gpu_compiled._orig_mod is gpu_model)
    print("same Parameter objects:", all(q is p for (_, p), (_, q) in pairs))
    print("parameter names:", [m for _, (m, _) in pairs])
    print("state_dict keys:", list(gpu_compiled.state_dict()))
    assert type(gpu_compiled).__name__ == "OptimizedModule" and gpu_compiled._orig_mod is gpu_model and all(
        q is p and m == f"_orig_mod.{n}" for (n, p), (m, q) in pairs
    ) and list(gpu_compiled.state_dict()) == [f"_orig_mod.{k}" for k in gpu_model.state_dict()], (
        "on a GPU, the wrapper holds the model and its very Parameter objects; names and keys gain _orig_mod."
    )
    try:
        print(first)
    except RuntimeError as e:
        gpu_message = str(e)
        print(f"{type(e).__name__}: {gpu_message.split(' Stack trace:')[0]}")
    else:
        raise AssertionError("reading an output overwritten by a later run must raise")
    assert gpu_message.startswith("Error: accessing tensor output of CUDAGraphs that has been overwritten"), (
        "reading an overwritten CUDA graph output raises"
    )
    print("kept clone equal to gpu_x @ gpu_x:", torch.allclose(kept, gpu_x @ gpu_x))
    assert torch.allclose(kept, gpu_x @ gpu_x), "a clone made outside the compiled function survives"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# 小结
# ----
#
# ``torch.compile(model)`` 什么也没有复制：``OptimizedModule`` 拿着 ``model`` 和它的那些 ``Parameter`` 对象本身，所以无论经由哪一个训练，两者都得到了训练，对 ``model`` 训练的几步也改变了 ``compiled`` 的计算结果。它的 ``state_dict()`` 给每一项的名字都加上 ``_orig_mod.`` 前缀，普通模块不认（用 ``strict=False`` 时则是什么都不加载）。``model.state_dict()``、``compiled._orig_mod.state_dict()`` 或去掉前缀的键都加载进了普通模块，经由 ``compiled._orig_mod`` 或 ``model`` 也加载进了编译后的模块（编译后的模块本身不认普通的字典）；``model.compile()`` 则让名字保持了原样。对包装器 ``copy.deepcopy`` 会复制模型。在用 ``backend="aot_eager"`` 编译的函数里，原地操作作用到调用方的张量上，并让它的版本计数器增加（在 ``torch.inference_mode()`` 之外创建该张量、也在它之外调用，且该张量是函数用到的张量中唯一在它这块存储上的张量对象时），连经由 ``.data`` 的修改也是如此，尽管它在即时执行模式下不推进版本计数器；重新绑定名字则不会。同一块存储上还有第二个张量对象在用时，无论它是一起传入的参数，还是从全局变量、闭包变量或模块的缓冲区读取的（比如 ``a.detach()``），版本都可能保持不变，``backward()`` 则用修改后的值运行。一个编译后的函数如果在同一张图里先为反向传播保存一个张量、再原地修改它，一调用就报错，什么也没有修改（经由 ``.data`` 修改则不报错，``backward()`` 用的是修改后的值）；两者之间有图中断时，修改照常执行，到 ``backward()`` 时才报错。
