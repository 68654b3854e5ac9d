"""
.. _data-vs-detach-detach:

``detach()``：同样的修改，这次自动求导发现了
============================================

把 :ref:`“.data”那一页 <data-vs-detach-data>` 的 ``out.data`` 换成 ``out.detach()``，再做一遍。修改同样落到了 ``out`` 上，但这一次 ``backward()`` 抛出了 ``RuntimeError``。每一步之后打印的版本计数器（version counter）说明了原因。
"""

# %%
# 同一个小计算图
# --------------
#
# 还是 ``out = a.sigmoid()``，辅助函数 ``show`` 和 ``same_storage``
# 与 :ref:`“.data”那一页 <data-vs-detach-data>` 相同。两个张量的版本都从 0 开始。（``_version`` 是 torch 的内部属性，本站读它来展示计数器，它在今后的 torch 发行版中可能会变。）
import torch


def show(name, t):
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}")


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
show("a", a)
show("out", out)
# sphinx_gallery_start_ignore
assert a._version == 0 and out._version == 0, "both tensors start at version 0"
# sphinx_gallery_end_ignore

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
# ``detach()`` 共享数据，且不需要梯度
# -----------------------------------
#
# 和 ``.data`` 一样，``out.detach()`` 返回一个新的张量对象，与 ``out``
# 共享同一块存储，``requires_grad=False``，也没有 ``grad_fn``。
c = out.detach()
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), "detach() shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, "detach() returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, "detach() gives a leaf that does not require grad"
# sphinx_gallery_end_ignore

# %%
# 通过 ``c`` 把 ``out`` 清零：两个版本一起变
# ------------------------------------------
#
# 与 ``.data`` 的区别就在这里。``c.zero_()`` 把版本计数器加到
# 1，``out._version`` 也是 1。``out.detach()``
# 与 ``out`` 共享一个版本计数器，所以通过 ``c`` 的修改也记在了 ``out`` 上。
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert c._version == 1 and out._version == 1, "c and out share one version counter"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：名字 a、out 和 c，它们指向的张量对象，以及这些张量的存储和版本计数器。
#
#    左边是名字，中间是张量对象（数值、``requires_grad`` 或 ``grad_fn``、``_version`` 及其计数器），右边是存储。``out`` 与 ``c`` 共享存储 ``S2`` 和计数器 ``C2``：两者都记下了这次修改。

draw_memory("c = out.detach(); c.zero_()", a=a, out=out, c=c)

# %%
# ``backward()`` 拒绝执行
# -----------------------
#
# 计算 ``s * (1 - s)`` 需要输出 ``s``，所以 ``SigmoidBackward0`` 保存了
# ``out``，同时记下了当时的版本：0。``backward()``
# 取出这个保存的张量时，会把记下的版本和当前版本比较，发现当前版本已是
# 1，于是报错。``a.grad`` 仍是 ``None``。
try:
    out.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() must raise")
show("a", a)
print("a.grad:", a.grad)
assert "output 0 of Sigmoid, is at version 1; expected version 0 instead" in message, (
    "the error names Sigmoid, the forward operation, and gives both versions (the releases recorded before 2.13, "
    "2.4.1 to 2.12.1, named the backward node, SigmoidBackward0)")
# sphinx_gallery_start_ignore
assert "modified by an inplace operation" in message, "the error names the in-place edit"
assert a.grad is None, "no gradient was written"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 示意图：out 的自动求导计算图：SigmoidBackward0 保存的 result 现在是版本 1，而保存时是版本 0；然后是 AccumulateGrad 和叶子张量 a。
#
#    ``out`` 背后的计算图：高亮的 ``result`` 显示 ``_version 1 != 0``，前者是当前版本，后者是保存时的版本。

draw_graph("out = a.sigmoid()", out, a=a)

# %%
# .. admonition:: 原博文与 torch |torch_version| 对照
#    :class: warning
#
#    原博文只引用了报错信息的开头：“one of the variables needed for gradient computation has been
#    modified by an inplace operation”。在 torch |torch_version| 上，报错还有后半段：指出是哪个张量（``[torch.FloatTensor [3]]``，
#    ``Sigmoid`` 的第 0 个输出），给出实际版本和期望版本，最后提示可以打开异常检测（见上面的输出）。另外，原文打印的是 ``SigmoidBackward``，而 torch |torch_version| 打印的是 ``SigmoidBackward0``。
article_text = "one of the variables needed for gradient computation has been modified by an inplace operation"
print("message starts with the article's text:", message.startswith(article_text))
print("article's text:", len(article_text), "characters; full message:", len(message), "characters")
print("out.grad_fn:", out.grad_fn.name())
assert message.startswith(article_text + ": "), "the article's text is only the start of the message"
# sphinx_gallery_start_ignore
assert "Hint: enable anomaly detection" in message, "the message ends with a hint"
assert "[torch.FloatTensor [3]]" in message, "the message names the tensor"
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"
# sphinx_gallery_end_ignore

# %%
# 检查发生在读取保存的张量时
# --------------------------
#
# 保存的输出可以通过 ``out.grad_fn._saved_result``
# 读取（``_saved_*`` 同样是 torch 的内部属性）。现在读取它，会做同样的版本检查，抛出同样的错误。``backward()``
# 失败，正是因为它要用到这个张量。关于保存的张量，PyTorch 文档（英文）有专门的一节：
# `“Saved tensors” <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__。
try:
    saved = out.grad_fn._saved_result
except RuntimeError as e:
    saved_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("reading the saved result must raise")
assert saved_message == message, "reading the saved tensor fails with the same message"

# %%
# 一个计数器，还是两个
# --------------------
#
# 在一个新的计算图上，同时取 ``via_data = out.data`` 和
# ``via_detach = out.detach()``，再分别通过它们修改。通过 ``via_data``
# 的修改只让它自己的计数器加一。通过 ``via_detach`` 的修改让 ``via_detach`` 和
# ``out`` 一起加一，``via_data`` 不动。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
via_data = out.data
via_detach = out.detach()


def versions(step):
    counts = out._version, via_data._version, via_detach._version
    print(f"{step:<26} out={counts[0]}  via_data={counts[1]}  via_detach={counts[2]}")
    return counts


at_start = versions("start")

via_data.mul_(1)
after_data = versions("after via_data.mul_(1)")

via_detach.mul_(1)
after_detach = versions("after via_detach.mul_(1)")
assert after_detach == (1, 1, 1), "detach() shares out's counter"
# sphinx_gallery_start_ignore
assert after_data == (0, 1, 0), ".data has a counter of its own"
assert at_start == (0, 0, 0), "all start at 0"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: 时间线：out、via_data 和 via_detach 的 _version：开始时、via_data.mul_(1) 之后、via_detach.mul_(1) 之后。
#
#    上面打印的版本号，逐步排开；高亮的数字在这一步发生了变化。

draw_versions("_version", ["out", "via_data", "via_detach"],
              [("start", at_start), ("via_data.mul_(1)", after_data), ("via_detach.mul_(1)", after_detach)])

# %%
# 之后再取的张量接着这个计数：``out.detach()`` 读到的是 ``out`` 当前的版本，而 ``out.data`` 又从 0 开始。
print("out._version:         ", out._version)
print("out.detach()._version:", out.detach()._version)
print("out.data._version:    ", out.data._version)
assert out.detach()._version == out._version == 1, "a new detach() sees the shared count"
# sphinx_gallery_start_ignore
assert out.data._version == 0, "a new .data starts a fresh counter"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 对在 ``torch.inference_mode()`` 之外创建、又不是推理张量（inference tensor）的默认 strided 布局张量，``detach()`` 和 ``.data`` 都共享数据，但只有 ``detach()`` 还共享版本计数器。正因如此，一个张量被自动求导（autograd）保存之后，再通过它的 ``detach()`` 做 torch 的原地（in-place）操作，自动求导就能发现，并报错而不是返回错误的梯度。``torch.inference_mode()`` 在新内存里创建的张量是推理张量，没有可共享的版本计数器：读取它的 ``_version`` 会报错；在模式外对它取的 ``detach()`` 和 ``.data``，在模式里做过修改之后都读到 0（见 :ref:`“detach()”那一页 <copying-detach>`）。在 CPU 上，若 ``t`` 是这样的推理张量，对在模式外创建的张量 ``a`` 做 ``a.data = t``，``a`` 也会变成推理张量，但它保留自己的计数器：读取 ``a._version`` 不报错，``a.detach()`` 也不共享这个计数器。:fact:`detach-edits-reach-both`\ 原博文的总结，由 :ref:`“检验原博文总结”那一页 <data-vs-detach-comparison>` 逐条检验。:fact:`detach-edits-reach-both-every-dtype` :fact:`data-edits-reach-both` :fact:`data-edits-reach-both-every-dtype` :fact:`inference-mode-new-memory-is-inference` :fact:`inference-mode-new-memory-no-counter` :fact:`data-setter-inference-own-counter`
#
# 张量若是经由保存张量的钩子（saved tensors hooks）保存的，或被自定义 ``Function`` 存成了属性，或者保存它的自定义 ``Function`` 的 ``backward`` 从不读取 ``ctx.saved_tensors``，这样的修改自动求导就发现不了；不推进版本计数器的修改也发现不了，例如用 ``apply_`` 或 ``map_`` 做的修改（本站检查过的几种见 :ref:`“版本计数器”那一页 <questions-version-counter>`，别的内核也可能如此）。:fact:`saved-tensor-hooks-hide-edit` :fact:`ctx-attribute-escapes-version-check` :fact:`unread-saved-tensors-escape-version-check` :fact:`counter-bypass-edits-silent`
#
# 输入不需要梯度时（如下面的 ``x``），``torch.func.vjp`` 同样发现不了这类修改：对它的输入或输出做原地修改之后，无论直接修改还是经由 ``detach()``，无论梯度模式（grad mode）开着还是关着，在 ``torch.inference_mode()`` 里也一样，它返回的 ``vjp_fn`` 都不报错。对下面的两个函数（``sigmoid`` 为反向传播保存输出，``t * t`` 保存输入），函数保存了哪个张量，``vjp_fn`` 就用它修改后的值计算，所以本页的那次修改在这里同样给出错误的梯度；修改的若是函数没有保存的那个张量，结果则不变（见下面的输出）。输入是需要梯度的叶子张量（leaf tensor）、非叶子张量或 ``Parameter`` 时，在梯度模式下这样修改 ``sigmoid`` 的输出之后，``vjp_fn`` 仍不报错，但它返回的梯度会被自动求导记录下来，再对这个梯度求导（比如计算 Hessian 向量积）就会抛出与本页 ``backward()`` 相同的 ``RuntimeError``。
# :fact:`vjp-edits-unnoticed` :fact:`vjp-output-edit-caught-when-differentiated`

vjp_functions = {
    "sigmoid": (torch.sigmoid, "output", lambda x, y: y * (1 - y)),
    "t * t": (lambda t: t * t, "input", lambda x, y: 2 * x),
}
vjp_edits = {
    "output through detach()": lambda x, y: y.detach().zero_(),
    "output": lambda x, y: y.zero_(),
    "input through detach()": lambda x, y: x.detach().mul_(10),
    "input": lambda x, y: x.mul_(10),
}
for name, (f, saved, derivative) in vjp_functions.items():
    for where, edit in vjp_edits.items():
        x = torch.tensor([1.0, 2.0, 3.0])
        y, vjp_fn = torch.func.vjp(f, x)
        (before,) = vjp_fn(torch.ones(3))
        edit(x, y)
        (grad,) = vjp_fn(torch.ones(3))
        changed = not torch.equal(grad, before)
        print(f"{name:<7}  edit of the {where:<23}  changed: {changed!s:<5}  vjp_fn gives: {grad}")
        assert torch.equal(grad, derivative(x, y)) and changed == where.startswith(saved), \
            "vjp_fn of sigmoid and of t * t computes with the edited values of the tensor each saved, and an edit of the other changes nothing"
