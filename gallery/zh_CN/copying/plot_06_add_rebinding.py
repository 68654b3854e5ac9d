"""
.. _copying-add-rebinding:

``c = a; a = a + 1``：名字分开了，计算图还连着
==============================================

原博文最后一个例子先写 ``c = a``，再写 ``a = a + 1``。此后 ``a`` 指向新内存里的一个新张量，``c`` 仍是原来的叶子张量（leaf tensor）。本页验证这一点，说明两者在自动求导（autograd）的计算图中仍然相连，再与原地（in-place）操作 ``a.add_(1)`` 对比：原地操作之后，``c`` 和 ``a`` 仍是同一个张量。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。

import torch


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
# 重新绑定之前：``c is a``
# ------------------------
#
# ``c = a`` 给叶子张量多起了一个名字。张量只有一个，而且是叶子张量：需要梯度，没有 ``grad_fn``。

a = torch.ones(2, 2)
a.requires_grad = True
c = a
print("a:", a)
print("c:", c)
print("c is a:", c is a)
print("c.grad_fn:", c.grad_fn, " c.is_leaf:", c.is_leaf)
assert c.is_leaf and c.grad_fn is None, "c must name a leaf"
# sphinx_gallery_start_ignore
assert c is a, "c = a must name the same tensor"
# sphinx_gallery_end_ignore

# %%
# ``a = a + 1`` 之后：两个张量
# ----------------------------
#
# ``a + 1`` 分配一个新张量。梯度模式（grad mode）开着，所以它的 ``grad_fn`` 是 ``AddBackward0``；在 ``torch.no_grad()``
# 里，它会是没有 ``grad_fn`` 的叶子张量。``=`` 再让名字 ``a`` 指向它。
# ``c`` 还指着原来的叶子张量：全 1，``requires_grad=True``，没有 ``grad_fn``。

a = a + 1
print("a:", a)
print("c:", c)
print("c is a:", c is a)
print("same storage:", same_storage(a, c))
print("a.grad_fn:", type(a.grad_fn).__name__, " a.is_leaf:", a.is_leaf)
print("c.grad_fn:", c.grad_fn, " c.is_leaf:", c.is_leaf)
print("c.requires_grad:", c.requires_grad)
assert c.is_leaf and c.requires_grad and c.grad_fn is None, "c must be the old leaf"
# sphinx_gallery_start_ignore
assert bytes_apart(a, c), "the new a must have new memory"
assert c is not a, "a must now name a different tensor"
assert torch.equal(a.detach(), torch.full((2, 2), 2.0)), "a must hold twos"
with torch.no_grad():
    a_no_grad = c + 1
assert a_no_grad.grad_fn is None and a_no_grad.is_leaf, "under no_grad, c + 1 must not be recorded"
assert torch.equal(c.detach(), torch.ones(2, 2)), "c must still hold ones"
assert type(a.grad_fn).__name__ == "AddBackward0", "a must come from an addition"
assert not a.is_leaf, "the new a must not be a leaf"
for plus_inference in (False, True):
    for plus_grad_mode in (torch.enable_grad, torch.no_grad):
        for plus_source in ("leaf", "non-leaf", "no grad"):
            plus_leaf = torch.ones(2, 2, requires_grad=plus_source != "no grad")
            plus_old = plus_leaf * 1 if plus_source == "non-leaf" else plus_leaf
            with torch.inference_mode(plus_inference), plus_grad_mode():
                plus_new = plus_old + 1
            assert plus_new.is_leaf != (
                plus_grad_mode is torch.enable_grad and not plus_inference and plus_source != "no grad"), (
                "a + 1 is a non-leaf exactly when grad mode is on outside inference_mode and a requires grad")
            assert bytes_apart(plus_new, plus_old), "a + 1 is in new memory"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。重新绑定之后，是两块存储上的两个张量对象。

draw_memory("a = a + 1", a=a, c=c)

# %%
# 忽略空白的差别，两个张量的打印结果与原文的输出完全一致。


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[2., 2.], [2., 2.]], grad_fn=<AddBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]], requires_grad=True)"
print("a prints as in the article:", one_line(a) == article_a)
print("c prints as in the article:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# 计算图仍连着两者
# ----------------
#
# 原文说 ``a`` 和 ``c`` 的联系断了。就内存而言确实如此，但在自动求导看来没有断：新的 ``a`` 是由
# ``c`` 算出来的，所以由 ``a`` 算出的损失，会把梯度传给叶子张量 ``c``。

loss = (a * 3).sum()
loss.backward()
print("c.grad:", c.grad)
assert torch.equal(c.grad, torch.full((2, 2), 3.0)), "the gradient must reach c"

# %%
# .. figure-caption::
#    :alt: 示意图：loss 的自动求导计算图，从 SumBackward0 经 MulBackward0 和 AddBackward0 到 AccumulateGrad 和叶子张量 c。
#
#    ``loss`` 背后的计算图，从 ``loss.grad_fn`` 沿 ``next_functions`` 走下去：终点是 ``c`` 指向的叶子张量。

draw_graph("loss = (a * 3).sum()", loss, c=c)

# %%
# 原地操作：名字不分开
# --------------------
#
# 对不需要梯度的张量，``a.add_(1)`` 修改的是张量本身：``c`` 仍然就是 ``a``，所以看得到新值。增强赋值 ``a += 1`` 同样是原地操作。（下面打印的 ``_version`` 是 torch 的内部属性，本站读它来展示计数器，它在今后的 torch 发行版中可能会变。）

a = torch.ones(2, 2)
c = a
a.add_(1)
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a._version:", a._version)
assert torch.equal(c, torch.full((2, 2), 2.0)), "c must see the in-place addition"
# sphinx_gallery_start_ignore
assert a._version == 1, "add_ must count as one in-place change"
# sphinx_gallery_end_ignore

a += 1
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a._version:", a._version)
assert c is a, "a += 1 must not create a new object"
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.full((2, 2), 3.0)), "c must see a += 1"
assert a._version == 2, "two in-place additions must count twice"
# sphinx_gallery_end_ignore

# %%
# 和 :ref:`“重新绑定与原地更新”那一页 <copying-rebinding>` 一样，在梯度模式下、``torch.inference_mode()`` 之外，需要梯度的叶子张量拒绝
# ``add_``；放在 ``torch.no_grad()`` 里就能执行，执行后它仍是同一个叶子张量。
# :fact:`leaf-refuses-inplace`

a = torch.ones(2, 2)
a.requires_grad = True
c = a
try:
    a.add_(1)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("add_ on the leaf must raise outside no_grad")

with torch.no_grad():
    a.add_(1)
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a.is_leaf:", a.is_leaf, " a.requires_grad:", a.requires_grad)
assert a.is_leaf and a.requires_grad, "a must stay a leaf that requires grad"
# sphinx_gallery_start_ignore
assert c is a, "add_ under no_grad must leave c and a one tensor"
assert c.tolist() == [[2.0, 2.0], [2.0, 2.0]], "c must see the in-place addition"
assert a._version == 1, "only the add_ under no_grad must count"
# sphinx_gallery_end_ignore

# %%
# 这个叶子张量的第一行 ``a[0]`` 是它的视图（view），自动求导会记录它（它有 ``grad_fn``）。它不是叶子张量，但在梯度模式下、
# ``torch.inference_mode()`` 之外，它同样拒绝 ``+=``；放在 ``torch.no_grad()`` 里，对它做的 ``+=`` 和 ``add_``
# 都会改动叶子张量，``c`` 仍是这个视图。dtype 形式的 ``a.view(torch.float32)``
# 是例外：自动求导不记录它，所以它不需要梯度，本身是叶子张量，在梯度模式下也接受 ``+=``，新值写进 ``a``。
# :fact:`view-inplace-refused-outside-inference-mode` :fact:`leaf-view-inplace-refused-in-grad-mode`

row = a[0]
c = row
try:
    row += 1
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "a view of a leaf Variable that requires grad" in str(e), "the error must name the view of a leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("row += 1 on a view of a leaf that requires grad must raise outside no_grad")

with torch.no_grad():
    row += 1
    row.add_(1)
print("a:", a)
print("c is row:", c is row, " row.is_leaf:", row.is_leaf, " a.is_leaf:", a.is_leaf)
assert c is row and a.tolist() == [[4.0, 4.0], [2.0, 2.0]], "both edits of the view must reach a, and c stay the view"
# sphinx_gallery_start_ignore
assert row.grad_fn is not None and not row.is_leaf and a.is_leaf and a.requires_grad, (
    "the view has a grad_fn and is not a leaf; a stays a leaf that requires grad")
# sphinx_gallery_end_ignore

# %%
# ``unbind()``、``split()`` 和 ``chunk()`` 的输出
# -----------------------------------------------
#
# ``unbind()``、``split()`` 或 ``chunk()`` 一次调用返回的各个输出都是视图，可能有几个，也可能只有一个：这里是两个，对 2×2 的张量调用 ``split(2)`` 和 ``chunk(1)`` 则只有一个。调用时梯度模式打开、源张量需要梯度的话，无论源张量是叶子张量还是非叶子张量，在梯度模式下、``torch.inference_mode()`` 之外，torch 都拒绝对其中一个输出做 ``+=``，即使它是唯一的输出。在 ``torch.no_grad()`` 里，这次修改会执行，也会改动源张量，但此后在梯度模式下，这次调用的所有输出都不能再参与自动求导会记录的运算，例如 ``output * 2`` 或 ``output.clone()``；``detach()`` 仍能取出它们的数值。在 ``torch.no_grad()`` 里或 ``torch.inference_mode()`` 里调用，或者调用时源张量不需要梯度，是另一种情况，这里不运行：通过 ``detach()`` 修改这种输出的情形见 :ref:`“检验原博文总结”那一页 <data-vs-detach-comparison>`。
# :fact:`view-inplace-refused-outside-inference-mode`

def plus_one(t):
    try:
        t += 1
    except RuntimeError as e:
        return str(e)
    return "no error"


def times_two_runs(t):
    try:
        t * 2
    except RuntimeError:
        return False
    return True


for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (2,)), ("split", (2,)), ("chunk", (1,))):
    for source in ("leaf", "non-leaf"):
        x = torch.ones(2, 2, requires_grad=True)
        y = x if source == "leaf" else x * 1
        outputs = getattr(y, split_name)(*split_args)
        first = outputs[0]
        call = f"{split_name}({', '.join(map(str, split_args))})"
        # sphinx_gallery_start_ignore
        assert first.requires_grad and not first.is_leaf, "each output requires grad and is not a leaf"
        assert len(outputs) == (1 if call in ("split(2)", "chunk(1)") else 2), (
            "split(2) and chunk(1) of the 2×2 tensor return one output, unbind(), split(1) and chunk(2) two")
        # sphinx_gallery_end_ignore
        error = plus_one(first)
        with torch.no_grad():
            first += 1
        usable = [times_two_runs(output) for output in outputs]
        print(f"{call:<9} of a {source:<8} outputs: {len(outputs)}, += in grad mode: {error.split('.')[0]}")
        print(f"{'':<22} after += under no_grad: y[0] = {y[0].tolist()}, output * 2 runs: {usable}")
        assert "returns multiple views" in error and y[0].tolist() == [2.0, 2.0] and not any(usable), (
            "grad mode refuses +=; under no_grad it reaches the source, and after it output * 2 runs on no output")
        # sphinx_gallery_start_ignore
        assert torch.equal(torch.cat([output.detach().flatten() for output in outputs]), y.detach().flatten()), (
            "detach() still gives the outputs' values")
        for sibling in outputs:
            try:
                sibling.clone()
            except RuntimeError as e:
                assert "modified inplace" in str(e), "clone() refuses each output after the edit too"
            else:
                raise AssertionError("clone() must refuse each output after the edit")
        # sphinx_gallery_end_ignore

# %%
# 推理张量
# --------
#
# 在 ``torch.inference_mode()`` 下创建、占用新内存的张量（比如这里的 ``torch.ones(2, 2)``，或者对在模式外创建的张量 ``x`` 算出的 ``x * 2`` 和 ``x.clone()``）是推理张量（inference tensor）；在该模式里用索引或 ``view(shape)`` 对普通张量取的视图，以及这个普通张量本身的 ``detach()``，则不是，不过在该模式里对它取的 ``view(dtype)`` 是推理张量（详见 :ref:`“推理模式”那一页 <questions-inference-mode>`）。在该模式之外，无论在梯度模式下还是在
# ``torch.no_grad()`` 下，无论对 ``a`` 本身还是对它的第一行 ``a[0]``，无论 ``a`` 是否需要梯度，调用 ``add_`` 都会报错。``a.view(torch.float32)`` 也与它共享内存，却是普通张量：对它调用 ``add_`` 不会报错，新值写进了 ``a``。在模式之外对它取的 ``a.detach()`` 和 ``a.data`` 也是推理张量，对它们调用 ``add_`` 同样不报错，新值写进 ``a``。输出中除了一行，每一行都写入了新值，有报错的先写入、再报错；那一行是需要梯度的张量本身在梯度模式下被修改，自动求导对叶子张量的检查先拒绝了这次修改，什么也没有写入。
# :fact:`inference-mode-new-memory-is-inference` :fact:`inference-mode-views-of-normal-tensor`

def add_one(t, grad_mode):
    try:
        with grad_mode():
            t.add_(1)
    except RuntimeError as e:
        return str(e).split(".")[0]
    return "no error"


for requires_grad in (False, True):
    with torch.inference_mode():
        a = torch.ones(2, 2).requires_grad_(requires_grad)
    for edited in ("a", "a[0]", "a.view(torch.float32)", "a.detach()", "a.data"):
        for grad_mode in (torch.enable_grad, torch.no_grad):
            before = a.clone()
            target = {"a": a, "a[0]": a[0], "a.view(torch.float32)": a.view(torch.float32), "a.detach()": a.detach(),
                      "a.data": a.data}[edited]
            outcome = add_one(target, grad_mode)
            changed = not torch.equal(a, before)
            print(f"requires_grad={requires_grad!s:<5} {edited + '.add_(1)':<29} {grad_mode.__name__:<11} changed={changed!s:<5} {outcome}")
            assert (outcome != "no error") == (edited in ("a", "a[0]")), (
                "outside inference mode add_ raises on the inference tensor and on a[0], not on a.view(torch.float32), "
                "a.detach() or a.data")
            assert changed != (requires_grad and edited == "a" and grad_mode is torch.enable_grad), (
                "the values change, except on the tensor itself when it requires grad in grad mode")
            # sphinx_gallery_start_ignore
            assert target.is_inference() == (edited != "a.view(torch.float32)"), (
                "a, a[0], a.detach() and a.data are inference tensors, a.view(torch.float32) is a normal tensor")
            assert ("leaf Variable" in outcome) != changed, "the edit that writes nothing is refused by the leaf check"
            # sphinx_gallery_end_ignore

# sphinx_gallery_start_ignore
for normal_requires_grad in (False, True):
    normal_source = torch.ones(2, 2, requires_grad=normal_requires_grad)
    with torch.inference_mode():
        created_inside = (torch.ones(2, 2), normal_source * 2, normal_source.clone())
        taken_inside = (normal_source[0], normal_source.view(4), normal_source.detach())
        dtype_view_inside = normal_source.view(torch.int32)
    assert all(created.is_inference() for created in created_inside), (
        "torch.ones(2, 2), x * 2 and x.clone() made inside inference mode are inference tensors")
    assert not any(taken.is_inference() for taken in taken_inside) and dtype_view_inside.is_inference(), (
        "a row, a view(shape) and the detach() of a normal tensor taken inside inference mode are not inference "
        "tensors; its view(dtype) is one")
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 在梯度模式下、``torch.inference_mode()`` 之外，``a`` 需要梯度时，``a = a + 1`` 之后，``c`` 指着旧张量（这里是那个叶子张量），``a`` 指着新内存里的一个非叶子张量，输出与原博文一致。两者不再共享内存，但从新的 ``a`` 反向传播，梯度仍会流回 ``c``。想让所有名字都看到变化，就原地更新：
# ``a.add_(1)`` 或 ``a += 1``；torch 在梯度模式下拒绝这次修改时，要放在 ``torch.no_grad()`` 里，例如在 ``torch.inference_mode()`` 之外，``a`` 需要梯度，又是叶子张量、叶子张量的视图，或是 ``unbind()``、``split()`` 或 ``chunk()`` 的输出时；调用时源张量需要梯度的话，这样的输出改过之后，同一次调用的所有输出都不能再参与自动求导会记录的运算，但 ``detach()`` 仍能取出它们的数值。在 ``torch.inference_mode()`` 下创建、占用新内存的张量是例外：如上所示，在推理模式之外，对它或它的一行 ``a[0]`` 调用 ``add_``，在 ``torch.no_grad()`` 下也会报错，而且除非自动求导对叶子张量的检查先拒绝了它，报错前新值已经写入；在模式之外对它取的 ``a.detach()`` 和 ``a.data`` 虽然也是推理张量，对它们调用 ``add_`` 却不报错，新值直接写进 ``a``。详见 :ref:`“推理模式”那一页 <questions-inference-mode>`。
# :fact:`leaf-view-inplace-refused-in-grad-mode`
# :fact:`inference-tensor-inplace-outside-raises-yet-writes`
