"""
.. _questions-tied-weights:

共享权重：``state_dict()`` 的两个键，一个 ``Parameter``
=======================================================

.. admonition:: 答案
   :class: answer

   共享的权重是两个模块拿着的同一个 ``Parameter``，所以 ``state_dict()`` 用两个键列出它，背后是同一块存储。共享
   ``Parameter`` 对象本身，而不是只共享它的内存：

   .. code-block:: python

      self.embedding = torch.nn.Embedding(5, 3)
      self.decoder = torch.nn.Linear(3, 5, bias=False)
      self.decoder.weight = self.embedding.weight

本页让解码层与嵌入层共享权重，然后跟着这个权重走一遍 ``state_dict()``、``named_parameters()``、``deepcopy``、``load_state_dict``、
``torch.save`` 和 ``torch.load``，再训练一步。在 CPU 上，``torch.save`` 把这个权重写成一块存储，``torch.load`` 读回的两项又共享一块存储；其余各处，除 ``state_dict()``，以及加了 ``assign=True`` 或从留有这种加载标志的字典加载的 ``load_state_dict`` 外，都把这个权重当作一个 ``Parameter``。最后只共享内存，看看这样会坏在哪里。
"""

# %%
# 辅助函数
# --------
#
# 一个极小的语言模型：词元编号先经过嵌入层，再经过解码层（其权重就是嵌入层的权重），得到 5 个词元各自的得分。``same_storage``
# 比较两个张量的存储起始地址是否相同；``saved_storages`` 数出 ``torch.save`` 写了几块存储（每块在它的 zip 归档里占一条 ``data/``
# 记录）；它写在内存里，不写入文件。
#
# ``bytes_apart`` 判断两个张量的存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import copy
import io
import zipfile

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def saved_storages(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return sum("/data/" in name for name in zipfile.ZipFile(buffer).namelist())


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(5, 3)
        self.decoder = torch.nn.Linear(3, 5, bias=False)
        self.decoder.weight = self.embedding.weight

    def forward(self, tokens):
        return self.decoder(self.embedding(tokens))


tokens, targets = torch.tensor([0, 2, 4, 1]), torch.tensor([2, 4, 1, 3])


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
# ``state_dict()`` 用两个名字列出这个权重。这两项是两个张量对象，用的是同一块存储，也就是两个模块共同拿着的那个 ``Parameter`` 的存储。

torch.manual_seed(0)
model = Tied()
state = model.state_dict()
print("keys:", list(state))
print("decoder.weight is embedding.weight:", model.decoder.weight is model.embedding.weight)
print("same storage:", same_storage(state["embedding.weight"], state["decoder.weight"]))
assert same_storage(state["embedding.weight"], state["decoder.weight"]), "two keys, one storage"
# sphinx_gallery_start_ignore
assert list(state) == ["embedding.weight", "decoder.weight"], "state_dict() names the weight twice"
assert state["embedding.weight"] is not state["decoder.weight"], "as two tensor objects"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 embedding.weight 和 decoder.weight 指向同一个张量对象；state_dict 的两项是另外两个张量对象；三者都在同一块存储 S1 上。
#
#    ``embedding.weight`` 和 ``decoder.weight`` 是同一个张量对象；``state_dict()`` 的两项是另外两个对象，三者都用同一块存储 ``S1``。

draw_memory("state = model.state_dict()", **{"embedding.weight": model.embedding.weight,
            "decoder.weight": model.decoder.weight, "state[embedding.weight]": state["embedding.weight"],
            "state[decoder.weight]": state["decoder.weight"]})  # fmt: skip

# %%
# ``named_parameters()`` 和 ``parameters()`` 只列一次
# ---------------------------------------------------
#
# 两者都会跳过已经列出过的参数，所以拿 ``parameters()`` 构造优化器时，这个权重只交给它一次。加上 ``remove_duplicate=False`` 才会列出两个名字。

print("named_parameters():", [name for name, _ in model.named_parameters()])
print("parameters():", len(list(model.parameters())), "tensor")
print("remove_duplicate=False:", [name for name, _ in model.named_parameters(remove_duplicate=False)])
assert [name for name, _ in model.named_parameters()] == ["embedding.weight"], (
    "named_parameters() lists the tied weight once, as embedding.weight")
# sphinx_gallery_start_ignore
assert len(list(model.parameters())) == 1 and next(model.parameters()) is model.embedding.weight, (
    "parameters() yields the tied weight once: embedding.weight itself")
assert [name for name, _ in model.named_parameters(remove_duplicate=False)] == [
    "embedding.weight", "decoder.weight"], "named_parameters(remove_duplicate=False) lists both names"
# sphinx_gallery_end_ignore

# %%
# ``copy.deepcopy`` 保留共享关系
# ------------------------------
#
# ``deepcopy`` 对每个对象只复制一次，同一个对象再次出现时沿用那份副本；所以副本里也只有一个权重，有自己的内存，由副本的两个模块共同拿着。

twin = copy.deepcopy(model)
print("twin.decoder.weight is twin.embedding.weight:", twin.decoder.weight is twin.embedding.weight)
print("same storage (twin, model):", same_storage(twin.embedding.weight, model.embedding.weight))
assert twin.decoder.weight is twin.embedding.weight, "deepcopy keeps the tie"
# sphinx_gallery_start_ignore
assert bytes_apart(twin.embedding.weight, model.embedding.weight), "in memory of the copy's own"
# sphinx_gallery_end_ignore

# %%
# 在 CPU 上，``torch.save`` 只写一块存储，``torch.load`` 保留共享关系
# -------------------------------------------------------------------
#
# 在 CPU 上，不管有多少个张量使用同一个存储对象，``torch.save`` 都只写一次：有两个键的 ``state_dict()`` 只写一块存储，与单独保存这个权重一样多，是两个独立张量的一半。加载回来以后，这两项仍共享同一块存储。用 ``torch.from_numpy(t.numpy())``、``torch.from_dlpack(t)`` 或 ``torch.frombuffer(t.numpy(), dtype=t.dtype)`` 得到的同 dtype 别名落在同一块内存上，却有自己的存储对象：它会被再写一次，加载回来后也落在自己的内存上。在 CPU 上，要保存的张量若是两种 dtype，而它们的存储在内存中从同一个不为 0 的地址开始，``torch.save`` 就会报错，比如 ``t.view(torch.int32)`` 或空的 ``t[:0].view(torch.int32)`` 这样另一种 dtype 的视图（view），或 ``torch.frombuffer(t.numpy(), dtype=torch.int32)`` 这样另一种 dtype 的别名。torch 分配的零字节存储，比如 ``torch.empty(0)`` 的存储，起始地址是 0，所以两种 dtype 的张量落在这样的存储上也不会报错。``meta`` 张量没有数据：``torch.save`` 不为它写任何存储；在 ``meta`` 上建的共享权重模型，其 ``state_dict()`` 的两项加载回来各在一个存储对象上；两种 dtype 也不报错；``same_storage`` 比较的是地址，会把这两项判为共享，因为每块 ``meta`` 存储的起始地址都是 0。

print("storages written, state_dict():", saved_storages(state))
print("storages written, weight alone:", saved_storages(model.embedding.weight.detach()))
print("storages written, two clones:  ", saved_storages([state["embedding.weight"].clone() for _ in range(2)]))
buffer = io.BytesIO()
torch.save(state, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print("loaded, same storage:", same_storage(loaded["embedding.weight"], loaded["decoder.weight"]))
assert saved_storages(state) == 1 and same_storage(loaded["embedding.weight"], loaded["decoder.weight"]), (
    "torch.save writes one storage for the two entries, and the loaded entries share one"
)
# sphinx_gallery_start_ignore
assert saved_storages([state["embedding.weight"].clone() for _ in range(2)]) == 2, "the count can see two"
assert saved_storages(model.embedding.weight.detach()) == saved_storages(state) == 1, (
    "the state dict writes as many storages as the weight alone: one")
assert torch.equal(loaded["decoder.weight"], model.embedding.weight), "the values came back"
for own_object in (torch.from_numpy(state["embedding.weight"].numpy()), torch.from_dlpack(state["embedding.weight"]),
                   torch.frombuffer(state["embedding.weight"].numpy(), dtype=state["embedding.weight"].dtype)):
    alias_stream = io.BytesIO()
    torch.save([state["embedding.weight"], own_object], alias_stream)
    alias_stream.seek(0)
    assert same_storage(state["embedding.weight"], own_object) and not same_storage(*torch.load(alias_stream)) and (
        saved_storages([state["embedding.weight"], own_object]) == 2
    ), "an alias of the same dtype, with a storage object of its own, is written again and loads back apart"
for other_dtype in (torch.frombuffer(state["embedding.weight"].numpy(), dtype=torch.int32),
                    torch.from_numpy(state["embedding.weight"].numpy()).view(torch.int32),
                    state["embedding.weight"][1:].view(torch.int32), state["embedding.weight"][:0].view(torch.int32)):
    try:
        torch.save([state["embedding.weight"], other_dtype], io.BytesIO())
    except RuntimeError as refusal:
        assert "view the same data as different types" in str(refusal), "torch.save refused two types on one memory"
    else:
        raise AssertionError("torch.save of tensors of two dtypes whose storages start at one address must raise")
past_start = torch.frombuffer(state["embedding.weight"].numpy(), dtype=torch.int32, offset=12)
assert not same_storage(state["embedding.weight"], past_start), "this alias's storage starts one row further on"
assert saved_storages([state["embedding.weight"], past_start]) == 2, (
    "an alias of another dtype whose storage starts elsewhere is saved without error")
for allocated_empty in (torch.empty(0), torch.zeros(0, 3), torch.tensor([])):
    assert allocated_empty.untyped_storage().data_ptr() == 0 and (
        saved_storages([allocated_empty, allocated_empty.view(torch.int32)]) == 1
    ), "a storage of no bytes that torch allocates starts at address 0: two dtypes over it are saved without error"
# sphinx_gallery_end_ignore
as_int32 = state["embedding.weight"].view(torch.int32)
try:
    torch.save([state["embedding.weight"], as_int32], io.BytesIO())
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("torch.save of two dtypes on one storage must raise")
# sphinx_gallery_start_ignore
with torch.random.fork_rng(), torch.device("meta"):
    meta_model = Tied()
meta_stream = io.BytesIO()
torch.save(meta_model.state_dict(), meta_stream)
meta_stream.seek(0)
meta_loaded = torch.load(meta_stream)
assert saved_storages(meta_model.state_dict()) == 0 and (
    meta_loaded["embedding.weight"].untyped_storage() is not meta_loaded["decoder.weight"].untyped_storage()
), "on meta torch.save writes no storage, and the two entries come back on two storage objects"
assert saved_storages([meta_model.embedding.weight.detach(), meta_model.embedding.weight.detach().view(torch.int32)]) == 0, (
    "on meta, tensors of two dtypes over one storage are saved without error")
assert same_storage(meta_loaded["embedding.weight"], meta_loaded["decoder.weight"]) and all(
    meta_entry.untyped_storage().data_ptr() == 0 for meta_entry in meta_loaded.values()
), "every meta storage starts at address 0, so same_storage calls the two entries shared"
with torch.random.fork_rng(), torch.device("meta"):
    meta_assigned = Tied()
meta_assigned.load_state_dict(meta_loaded, assign=True)
assert meta_assigned.decoder.weight.untyped_storage() is not meta_assigned.embedding.weight.untyped_storage(), (
    "assign=True from the entries loaded on meta: two parameters over two storage objects")
# sphinx_gallery_end_ignore

# %%
# 对共享权重的模型调用 ``load_state_dict``
# ----------------------------------------
#
# 不加 ``assign=True``，而且字典里没有 ``assign=True`` 加载留下的标志时，加载按两个名字先后把每一项复制进这一个权重：模型仍然共享权重，数值是加载进来的。两项数值不一致时，留下的是最后加载的模块 ``decoder`` 的值（``load_state_dict`` 按模型里模块的顺序加载，与字典里的顺序无关）。加了 ``assign=True`` 时（先在 ``meta`` 设备上建模型时常这样用），每个模块各拿到一个 ``Parameter``，两者都建在加载进来的同一块存储上：两个参数、一块存储，正是最后一节那种只共享内存的做法。如果字典的两项是各自独立的张量，比如一份克隆出来的快照，两个参数就各有一块存储，什么也不共享。加载之后要重新共享权重。``assign=True`` 的加载还会把标志留在带 ``_metadata`` 的字典里，比如从 ``state_dict()`` 存盘后读回的 ``loaded``：之后再从这个字典加载，即使不加 ``assign=True``，也会像加了它那样加载，拆开共享权重（见 :ref:`“检查点”那一页 <questions-checkpoints>`）。如果从 ``state_dict(keep_vars=True)`` 加载，它的两项就是那一个 ``Parameter`` 本身，``assign=True`` 会保留共享，但加载后的模型拿着的是源模型自己的 ``Parameter``：两个模型共享同一个权重，训练其中一个，另一个也跟着变。

fresh = Tied()
fresh.load_state_dict(loaded)
print("tied:", fresh.decoder.weight is fresh.embedding.weight, " loaded values:",
      torch.equal(fresh.embedding.weight, model.embedding.weight))  # fmt: skip
fresh.load_state_dict({"embedding.weight": torch.zeros(5, 3), "decoder.weight": torch.ones(5, 3)})
print("after disagreeing entries, embedding.weight[0]:", fresh.embedding.weight.detach()[0])
assert fresh.decoder.weight is fresh.embedding.weight and torch.equal(fresh.embedding.weight, torch.ones(5, 3)), (
    "the model stays tied, with the values of decoder.weight, loaded last"
)
# sphinx_gallery_start_ignore
assert bytes_apart(fresh.embedding.weight, loaded["embedding.weight"]), (
    "load_state_dict copied the entries into the model's own memory")
with torch.random.fork_rng():
    reordered = Tied()
reordered.load_state_dict({"decoder.weight": torch.ones(5, 3), "embedding.weight": torch.zeros(5, 3)})
assert torch.equal(reordered.embedding.weight, torch.ones(5, 3)), "decoder, loaded last, wins whatever the dict's order"
# sphinx_gallery_end_ignore
assigned = Tied()
assigned.load_state_dict(loaded, assign=True)
print("assign=True, parameters:", len(list(assigned.parameters())))
print("assigned.decoder.weight is assigned.embedding.weight:", assigned.decoder.weight is assigned.embedding.weight)
print("same storage:", same_storage(assigned.decoder.weight, assigned.embedding.weight))
assert assigned.decoder.weight is not assigned.embedding.weight, "assign=True unties the Parameter"
assert len(list(assigned.parameters())) == 2, "assign=True leaves two parameters"
assert same_storage(assigned.decoder.weight, assigned.embedding.weight), "over one storage: a memory-only tie"
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    from_clones = Tied()
from_clones.load_state_dict({k: v.detach().clone() for k, v in model.state_dict().items()}, assign=True)
assert len(list(from_clones.parameters())) == 2 and bytes_apart(
    from_clones.decoder.weight, from_clones.embedding.weight
), "assign=True from a dict of two separate clones: two parameters over two storages"
with torch.random.fork_rng():
    after_flag = Tied()
after_flag.load_state_dict(loaded)
assert after_flag.decoder.weight is not after_flag.embedding.weight and len(list(after_flag.parameters())) == 2, (
    "loaded, flagged by the load with assign=True above, unties a model loaded from it without assign=True")
# sphinx_gallery_end_ignore
assigned.decoder.weight = assigned.embedding.weight
print("tied again, parameters:", len(list(assigned.parameters())))
assert len(list(assigned.parameters())) == 1, "tying again leaves one parameter"
kept = Tied()
kept.load_state_dict(model.state_dict(keep_vars=True), assign=True)
print("keep_vars=True, then assign=True, tied:", kept.decoder.weight is kept.embedding.weight)
print("kept.embedding.weight is model.embedding.weight:", kept.embedding.weight is model.embedding.weight)
assert kept.decoder.weight is kept.embedding.weight is model.embedding.weight, "tied, to model's own Parameter"

# %%
# 一个梯度，一步更新
# ------------------
#
# 前向传播里这个权重用了两次，所以它的 ``.grad`` 是两个梯度之和，也就是两个独立副本（这里的 ``as_embedding`` 和
# ``as_decoder``）各自得到的梯度相加。每次 ``step()``，优化器只更新它一次：``weight - lr * grad``。

optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
torch.nn.functional.cross_entropy(model(tokens), targets).backward()
as_embedding = model.embedding.weight.detach().clone().requires_grad_()
as_decoder = model.embedding.weight.detach().clone().requires_grad_()
scores = torch.nn.functional.embedding(tokens, as_embedding) @ as_decoder.T
torch.nn.functional.cross_entropy(scores, targets).backward()
print("grad is the sum:", torch.allclose(model.embedding.weight.grad, as_embedding.grad + as_decoder.grad))
before = model.embedding.weight.detach().clone()
optimizer.step()
print("one step of lr * grad:", torch.allclose(model.embedding.weight, before - 0.5 * model.embedding.weight.grad))
assert torch.allclose(model.embedding.weight.grad, as_embedding.grad + as_decoder.grad), "one grad, both uses"
assert torch.allclose(model.embedding.weight, before - 0.5 * model.embedding.weight.grad), (
    "step() moved the tied weight once: weight - lr * grad")

# %%
# 只共享内存会出问题
# ------------------
#
# ``nn.Parameter(embedding.weight.detach())`` 会在同一块内存上再建一个 ``Parameter``。于是模型有了两个参数，各有各的
# ``.grad``；``copy.deepcopy`` 给它们两块存储，副本就不再共享；Adam 为每个参数各存一份状态，走出的这一步也不再与共享权重的模型相同。

torch.manual_seed(0)
tied = Tied()
torch.manual_seed(0)
loose = Tied()
loose.decoder.weight = torch.nn.Parameter(loose.embedding.weight.detach())
print("parameters:", len(list(loose.parameters())), " same storage:",
      same_storage(loose.decoder.weight, loose.embedding.weight))  # fmt: skip
loose_copy = copy.deepcopy(loose)
print("deepcopy, same storage:", same_storage(loose_copy.decoder.weight, loose_copy.embedding.weight))
for m in (tied, loose):
    adam = torch.optim.Adam(m.parameters(), lr=0.1)
    torch.nn.functional.cross_entropy(m(tokens), targets).backward()
    adam.step()
print("same weights after one Adam step:", torch.equal(tied.embedding.weight, loose.embedding.weight))
assert bytes_apart(loose_copy.decoder.weight, loose_copy.embedding.weight), "deepcopy unties the memory tie"
assert not torch.equal(tied.embedding.weight, loose.embedding.weight), "Adam steps the memory tie differently"
# sphinx_gallery_start_ignore
assert len(list(loose.parameters())) == 2 and same_storage(loose.decoder.weight, loose.embedding.weight), (
    "loose has two parameters over one storage")
assert not torch.equal(loose.decoder.weight.grad, loose.embedding.weight.grad), "each has its own .grad"
assert len(adam.state) == 2, "Adam keeps a state for each of the two parameters"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 共享权重的做法，是把同一个 ``Parameter`` 对象交给第二个模块。这样 ``state_dict()`` 有两个键、一块存储；``named_parameters()``
# 和 ``parameters()`` 只列一次；``copy.deepcopy`` 保留共享关系；在 CPU 上，``torch.save`` 只写一块存储，``torch.load`` 之后仍然共享；不加 ``assign=True`` 的 ``load_state_dict`` 复制进这一个权重（字典不带 ``assign=True`` 加载留下的标志时）；优化器用两个梯度之和只更新它一次。只共享内存则是两个参数，
# ``deepcopy`` 之后就不再共享。``load_state_dict(..., assign=True)`` 会拆开共享权重的模型：它留下两个参数，字典的两项共享一块存储时（如 ``torch.load`` 读出的 CPU 张量字典）两者在一块存储上，不共享时各在一块存储上；加载之后要重新共享权重。例外是来自 ``state_dict(keep_vars=True)`` 的字典，它的两项就是那一个 ``Parameter``：共享保留下来，但共享的是源模型自己的权重。
