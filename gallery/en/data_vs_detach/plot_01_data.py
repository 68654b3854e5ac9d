"""
.. _data-vs-detach-data:

``.data``: a silent edit and a wrong gradient
=============================================

We compute ``out = a.sigmoid()``, zero ``out`` through ``out.data`` and call
``backward()``. The edit reaches ``out``, autograd never notices it, and the
gradient that comes back is wrong, with no error and no warning.
"""

# %%
# A small graph
# -------------
#
# ``a`` is a leaf that requires a gradient. ``out`` is the sigmoid of ``a``:
# it has a ``grad_fn`` and its version counter ``_version`` starts at 0.
# (``_version`` is an internal attribute of torch: this site reads it to show
# the counter, but it may change between releases.)
# Two small helpers: ``show`` prints a tensor together with the autograd
# facts this page is about, and ``same_storage`` compares where two storages
# start.
import warnings

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
print("out.grad_fn:", out.grad_fn.name())
# sphinx_gallery_start_ignore
assert out._version == 0, "a fresh result starts at version 0"
assert out.requires_grad and not out.is_leaf, "out should be a non-leaf that requires grad"
# sphinx_gallery_end_ignore

# %%
# Drawing helpers
# ---------------
#
# Every picture on this page is drawn from the live tensors by the helper functions below, with
# matplotlib. Every page that draws carries the same code, so the page folds it away; the downloaded
# script and notebook carry it in full.

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
# ``.data`` shares the numbers and does not require a gradient
# ------------------------------------------------------------
#
# ``c = out.data`` is a new tensor object over the same storage as ``out``.
# It does not require a gradient and has no ``grad_fn``: for autograd it is
# a plain leaf tensor.
c = out.data
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), ".data shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, ".data returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, ".data is a leaf that does not require grad"
assert torch.equal(c, out), "c holds the same numbers as out"
# sphinx_gallery_end_ignore

# %%
# Zero ``out`` through ``c``
# --------------------------
#
# ``c.zero_()`` writes zeros into the shared storage, so ``out`` is zero too.
# Look at the version counters: ``c._version`` went from 0 to 1, but
# ``out._version`` is still 0. ``.data`` gives ``c`` a version counter of its
# own, so an edit through ``c`` changes the values of ``out`` but not its
# version.
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert out._version == 0, "out's version counter did not move: .data does not share it"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert c._version == 1, "the in-place edit bumped c's version counter"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a, out and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. ``out`` and ``c`` share the storage ``S2`` but count edits in two counters: only ``c`` shows the edit.

draw_memory("c = out.data; c.zero_()", a=a, out=out, c=c)

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article prints ``grad_fn=<SigmoidBackward>``. On this torch the node
#    is called ``SigmoidBackward0`` (see ``out`` above): the backward nodes
#    generated for torch's operators now carry a number. In some names a suffix
#    follows it, such as ``_copy`` (``ViewBackward0_copy``, the node of ``torch.view_copy``)
#    or, for some of the internal ``torch._foreach_*`` operators, the overload's
#    name (``ForeachAddBackward0List``, ``ForeachAddBackward1Scalar``). A node that torch
#    generates for a single dispatch key puts the key's name before the number:
#    ``unbind()`` on a nested tensor gives ``UnbindBackwardAutogradNestedTensor0``. ``AccumulateGrad``
#    in the graph below is written by hand and has no number. The behaviour is the same.
print("out.grad_fn:", out.grad_fn.name())
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"
# sphinx_gallery_start_ignore
hand_written_nodes = {"AccumulateGrad", "CopyBackwards", "CopySlices", "DelayedError", "Error", "NotImplemented",
                      "UndefinedGrad", "UndefinedGradBackward", "SendRpcBackward"}
generated_nodes = [node_name for node_name in dir(torch._C._functions)
                   if not node_name.startswith("_") and node_name not in hand_written_nodes]
assert len(generated_nodes) > 100 and all(node_name.removesuffix("_copy")[-1].isdigit() for node_name in generated_nodes), (
    "the nodes generated for torch's operators carry a number, before the _copy suffix where a node has one")
operator_results = (a * 2, a + 1, a.exp(), a.sum(), a.view(3), a[:2], a.to(torch.float64))
assert all(result.grad_fn.name()[-1].isdigit() for result in operator_results), (
    "the nodes of a * 2, a + 1, exp(), sum(), view(), a[:2] and to() end in a number")
assert torch.view_copy(a, (3,)).grad_fn.name() == "ViewBackward0_copy", "torch.view_copy's node is ViewBackward0_copy"
foreach_add_nodes = {"List": torch.ops.aten._foreach_add.List([a], [a])[0].grad_fn.name(),
                     "Scalar": torch.ops.aten._foreach_add.Scalar([a], 1.0)[0].grad_fn.name(),
                     "ScalarList": torch.ops.aten._foreach_add.ScalarList([a], [1.0])[0].grad_fn.name(),
                     "Tensor": torch.ops.aten._foreach_add.Tensor([a], torch.tensor(1.0))[0].grad_fn.name()}
assert all(node_name.startswith("ForeachAddBackward") and node_name.endswith(overload)
           and node_name.removesuffix(overload)[-1].isdigit() for overload, node_name in foreach_add_nodes.items()), (
    "each overload of torch._foreach_add puts its name after the number in its node's name")
assert (foreach_add_nodes["List"], foreach_add_nodes["Scalar"]) == ("ForeachAddBackward0List", "ForeachAddBackward1Scalar"), (
    "torch._foreach_add's nodes include ForeachAddBackward0List and ForeachAddBackward1Scalar")
keyed_nodes = [node_name for node_name in generated_nodes if "BackwardAutograd" in node_name]
assert len(keyed_nodes) > 10 and all(
    node_name.removesuffix("_copy").split("BackwardAutograd")[-1].rstrip("0123456789").isalpha()
    and node_name.removesuffix("_copy")[-1].isdigit() for node_name in keyed_nodes), (
    "a node generated for a single dispatch key has the key's name between Backward and the number")
nested_leaf = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged, requires_grad=True)
assert nested_leaf.unbind()[0].grad_fn.name() == "UnbindBackwardAutogradNestedTensor0", (
    "unbind() on a nested tensor gives UnbindBackwardAutogradNestedTensor0")
leaf_node = out.grad_fn.next_functions[0][0]
assert type(leaf_node).__name__ == "AccumulateGrad" and not leaf_node.name()[-1].isdigit(), (
    "AccumulateGrad, written by hand, has no number")
# sphinx_gallery_end_ignore

# %%
# What autograd kept for the backward pass
# ----------------------------------------
#
# The derivative of the sigmoid is ``s * (1 - s)``, where ``s`` is its
# output, so ``SigmoidBackward0`` saved the result ``out``. Reading its
# ``_saved_result`` (see `Saved tensors
# <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__;
# the ``_saved_*`` attributes are internal to torch as well) gives another
# tensor object on the same storage, and it now holds zeros. Its version is 0, the
# version autograd recorded, so nothing looks wrong.
saved = out.grad_fn._saved_result
show("saved", saved)
print("saved shares storage with out:", same_storage(saved, out))
assert saved._version == 0, "the saved result still reports version 0"
# sphinx_gallery_start_ignore
assert same_storage(saved, out), "the saved result is out's storage"
assert saved is not out, "reading _saved_result gives another tensor object"
assert torch.equal(saved, torch.zeros(3)), "the saved result now holds zeros"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph of out: SigmoidBackward0 with its saved result, then AccumulateGrad and the leaf a.
#
#    The graph behind ``out``: ``SigmoidBackward0`` saved its ``result``, whose ``_version`` is still the one it saved, so nothing marks it as edited.

draw_graph("out = a.sigmoid()", out, a=a)

# %%
# ``backward()`` runs and returns zeros
# -------------------------------------
#
# ``out.sum().backward()`` raises nothing and warns nothing. It computes
# ``s * (1 - s)`` from the zeroed ``s`` and stores zeros in ``a.grad``.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out.sum().backward()
print("warnings during backward:", len(caught))
show("a", a)
show("out", out)
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.zeros(3)), "the gradient is all zeros, because the saved output was zeroed"
# sphinx_gallery_start_ignore
assert len(caught) == 0, "backward() emitted no warning"
# sphinx_gallery_end_ignore

# %%
# The correct gradient, for comparison
# ------------------------------------
#
# The same graph without the edit gives the real gradient. We also compute
# ``s * (1 - s)`` by hand from ``s = 1 / (1 + exp(-x))``, without autograd, and
# check that the fresh run agrees with it and the edited run does not.
a_fresh = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out_fresh = a_fresh.sigmoid()
out_fresh.sum().backward()

x = torch.tensor([1.0, 2.0, 3.0])
s = 1 / (1 + torch.exp(-x))
expected = s * (1 - s)
print("a_fresh.grad (no edit):  ", a_fresh.grad)
print("s * (1 - s), by hand:    ", expected)
print("a.grad (after .data edit):", a.grad)
assert not torch.allclose(a.grad, expected), "the edited run does not give s * (1 - s)"
# sphinx_gallery_start_ignore
assert torch.allclose(a_fresh.grad, expected), "the fresh run gives s * (1 - s)"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# For a tensor of the default strided layout made outside ``torch.inference_mode()``, an in-place edit
# of its values through ``.data``, such as this page's ``zero_()``, changes the tensor itself, but ``.data``
# has a version counter of its own, so the tensor's counter, the one autograd checks, does not move.
# :fact:`data-edits-reach-both` :fact:`data-edits-reach-both-every-dtype`
# Here the tensor is ``out``, which autograd saved: ``backward()`` succeeds and returns a gradient that is
# simply wrong. The next page makes the same edit through ``detach()``:
# :ref:`data-vs-detach-detach`.
