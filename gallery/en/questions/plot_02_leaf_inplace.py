"""
.. _questions-leaf-inplace:

"a leaf Variable that requires grad is being used in an in-place operation"
===========================================================================

.. admonition:: Answer
   :class: answer

   While autograd records, ``w -= ...``, ``w[0] = ...`` and ``torch.add(..., out=w)`` are refused for a leaf ``w`` that requires grad (a write through ``detach()``, ``.data`` or ``view(dtype)``, among others, is not). Make the update step under ``torch.no_grad()``:

   .. code-block:: python

      with torch.no_grad():
          w -= lr * w.grad

A hand-written update step, ``w -= lr * w.grad``, stops with this error:
``RuntimeError: a leaf Variable that requires grad is being used in an
in-place operation.`` Editing one row of a weight (``layer.weight[0] = 0.0``)
gives its variant: ``RuntimeError: a view of a leaf Variable that requires grad
is being used in an in-place operation.`` This page shows both errors, then the ways to edit a
parameter on purpose: ``torch.no_grad()``, ``copy_``, a new layer when the
shape changes (not ``torch.utils.swap_tensors``), and why ``.data`` also works
but says nothing.
It answers the question behind the pull request `pytorch/examples#779
<https://github.com/pytorch/examples/pull/779>`__.
"""

# %%
# Helpers
# -------
#
# ``show`` prints a tensor with its autograd flags and version counter.
import torch


def show(name, t):
    node = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}  grad_fn={node}")


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
# The symptom: a manual SGD step
# ------------------------------
#
# ``w`` is a leaf that requires grad: ``backward()`` stores its gradient in
# ``w.grad``. For ``L = (w**2).sum()`` that gradient is ``2 * w``. The
# update written as Python reads it, ``w -= lr * w.grad``, is an in-place
# subtraction on ``w``, and autograd refuses it while it is recording.
lr = 0.1
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w**2).sum().backward()
show("w", w)
print("w.grad:", w.grad)
try:
    w -= lr * w.grad
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a leaf that requires grad must raise")
show("w", w)
assert message == "a leaf Variable that requires grad is being used in an in-place operation.", (
    "the error is torch's 'a leaf Variable that requires grad is being used ...'")
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.tensor([2.0, 4.0])), "the gradient of sum(w**2) is 2w"
assert w._version == 0, "the refused edit did not happen"
# sphinx_gallery_end_ignore

# %%
# The variant: "a view of a leaf Variable"
# ----------------------------------------
#
# Weight surgery, such as zeroing one row, edits a view of the leaf: ``w[0]``
# is a view, and the message says so.
layer = torch.nn.Linear(3, 2)
try:
    layer.weight[0] = 0.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a view of a leaf must raise")
assert message == "a view of a leaf Variable that requires grad is being used in an in-place operation.", (
    "the error is torch's 'a view of a leaf Variable that requires grad ...'")

# %%
# Fix 1: ``torch.no_grad()``
# --------------------------
#
# An update step is not part of the model: it should not be recorded at all.
# Under ``torch.no_grad()`` the same line runs, ``w`` stays a leaf without a
# ``grad_fn``, and its version counter moves, so a graph that saved ``w``
# would still notice the edit (unless the graph saved it through saved-tensor hooks, or a custom ``Function`` kept it as an
# attribute or has a ``backward`` that never reads ``ctx.saved_tensors``:
# :ref:`questions-data-vs-no-grad`).

# sphinx_gallery_start_ignore
saved_w_square = (w * w).sum()  # mul saves w
# sphinx_gallery_end_ignore
with torch.no_grad():
    w -= lr * w.grad
show("w", w)
assert w.is_leaf and w.grad_fn is None and w._version == 1, "an unrecorded edit that the counter sees"
# sphinx_gallery_start_ignore
try:
    torch.autograd.grad(saved_w_square, w)
except RuntimeError as e:
    assert "is at version 1; expected version 0" in str(e), "the graph that saved w notices the no_grad edit"
else:
    raise AssertionError("a graph that saved w must notice the edit under no_grad")
assert torch.allclose(w, torch.tensor([0.8, 1.6])), "w - lr * 2w"
assert w.requires_grad, "w still requires grad"
# sphinx_gallery_end_ignore

# %%
# The step is the one calculus gives, ``w - 0.1 * 2 * w = 0.8 * w``, and
# the next ``backward()`` works on the updated leaf (after ``w.grad`` is
# reset, since gradients add up).
w.grad = None
(w**2).sum().backward()
print("w.grad:", w.grad)
assert torch.allclose(w.grad, 2 * torch.tensor([0.8, 1.6])), "the next gradient is 2w at the new w"

# %%
# Fix 2: ``copy_`` (and ``nn.init``) for weight surgery
# -----------------------------------------------------
#
# To set a parameter to given values, copy them into it under ``no_grad``.
# The parameter stays the same object with the same storage, so an optimizer
# that holds it sees the new values. ``torch.nn.init`` functions do the
# ``no_grad`` themselves.
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
weight = layer.weight
# sphinx_gallery_start_ignore
weight_memory = layer.weight.untyped_storage().data_ptr()
# sphinx_gallery_end_ignore
with torch.no_grad():
    layer.weight.copy_(torch.ones(2, 3))
    layer.weight[0] = 0.0
torch.nn.init.zeros_(layer.bias)
show("layer.weight", layer.weight)
show("layer.bias", layer.bias)
print("same object as before:", layer.weight is weight)
print("the optimizer holds it:", opt.param_groups[0]["params"][0] is layer.weight)
assert layer.weight is weight and torch.equal(layer.weight, torch.tensor([[0.0] * 3, [1.0] * 3])), (
    "layer.weight is the same object, with row 0 zeros and row 1 ones"
)
# sphinx_gallery_start_ignore
assert layer.weight.is_leaf and layer.bias.is_leaf, "after the edits layer.weight and layer.bias are still leaves"
assert layer.weight.untyped_storage().data_ptr() == weight_memory, "the parameter keeps its storage"
assert opt.param_groups[0]["params"][0] is layer.weight, "the optimizer holds the edited parameter"
assert torch.equal(layer.bias, torch.zeros(2)), "nn.init.zeros_ needs no no_grad"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names layer.weight and weight point to one tensor object on one storage S1, at _version=3.
#
#    ``layer.weight`` and ``weight`` name one tensor object on one storage ``S1``: the object the
#    optimizer holds is the one the edits changed.

draw_memory("layer.weight.copy_(...) under no_grad", **{"layer.weight": layer.weight, "weight": weight})
# sphinx_gallery_start_ignore
assert layer.weight._version == 3, "initialisation, copy_ and the item assignment each moved the counter"
# sphinx_gallery_end_ignore

# %%
# Each public in-place function of ``torch.nn.init`` (a name that ends in ``_``) runs in grad mode
# on a non-empty float32 CPU leaf that requires grad (the tensors tried here) without an error, and leaves it a leaf
# with no ``grad_fn`` and a moved version: none of them is recorded. Each gets a 2-d tensor except ``dirac_``, which takes 3
# to 5 dimensions and gets a 3-d one; ``constant_`` and ``sparse_`` get the one more argument they need
# (a value, a sparsity). The last line, ``grad mode on``, says whether grad mode is on.

extra_args = {"constant_": (0.5,), "sparse_": (0.5,)}
init_names = [name for name in dir(torch.nn.init) if name.endswith("_") and not name.startswith("_")]
initialised = {}
for name in init_names:
    target = torch.empty((3, 4, 5) if name == "dirac_" else (3, 4), requires_grad=True)
    getattr(torch.nn.init, name)(target, *extra_args.get(name, ()))
    initialised[name] = (target.is_leaf, target.grad_fn, target._version)
    print(f"{name:16} is_leaf={target.is_leaf}  grad_fn={target.grad_fn}  _version moved: {target._version > 0}")
print("grad mode on:", torch.is_grad_enabled())
assert torch.is_grad_enabled() and all(leaf and fn is None and v > 0 for leaf, fn, v in initialised.values()), (
    "every public nn.init function edits a non-empty float32 CPU leaf that requires grad in grad mode, unrecorded")

# %%
# A new shape: a new layer, not a swap
# ------------------------------------
#
# ``copy_`` cannot change the shape of a dense tensor: a source that does not broadcast to that shape
# raises ``RuntimeError``. :fact:`copy-keeps-destination-shape`
# ``torch.utils.swap_tensors`` should not be used to change it either:
# it swaps everything two tensor objects hold (shape, values, even their class)
# and touches nothing outside them. Below, a layer
# with 2 outputs has taken one Adam step; swapping in a ``(4, 3)`` weight and a ``(4,)`` bias leaves
# ``out_features`` at 2 and Adam's state for the weight at ``(2, 3)``, and the next ``step()``
# fails. ``swap_tensors`` is for swaps that keep the shape.
torch.manual_seed(0)
inputs, target = torch.randn(8, 3), torch.randn(8, 4)
old = torch.nn.Linear(3, 2)
opt_old = torch.optim.Adam(old.parameters(), lr=0.1)
old(inputs).pow(2).mean().backward()
opt_old.step()
old_weight, old_bias = old.weight[:2].detach().clone(), old.bias[:2].detach().clone()
torch.utils.swap_tensors(old.weight, torch.nn.Parameter(torch.zeros(4, 3)))
torch.utils.swap_tensors(old.bias, torch.nn.Parameter(torch.zeros(4)))
print("old.weight:", tuple(old.weight.shape), " old.out_features:", old.out_features)
print("Adam's exp_avg for old.weight:", tuple(opt_old.state[old.weight]["exp_avg"].shape))
# sphinx_gallery_start_ignore
assert all(tuple(opt_old.state[old.weight][key].shape) == (2, 3) for key in ("exp_avg", "exp_avg_sq")), (
    "the swap leaves Adam's state for the weight at (2, 3)")
# sphinx_gallery_end_ignore
opt_old.zero_grad()
torch.nn.functional.mse_loss(old(inputs), target).backward()
try:
    opt_old.step()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("Adam's step after a swap that changed the shape must raise")
# sphinx_gallery_start_ignore
swapped_a, swapped_b = torch.nn.Parameter(torch.zeros(2)), torch.ones(3)
torch.utils.swap_tensors(swapped_a, swapped_b)
assert type(swapped_a) is torch.Tensor and type(swapped_b) is torch.nn.Parameter, "the class is swapped too"
assert torch.equal(swapped_a, torch.ones(3)) and torch.equal(swapped_b, torch.zeros(2)), "the values are swapped"
assert swapped_a.shape == (3,) and old.out_features == 2, "the shape is swapped; the module is untouched"
# sphinx_gallery_end_ignore

# %%
# To grow a layer from 2 to 4 outputs, build a new ``Linear(3, 4)``, copy the learned rows into it
# under ``torch.no_grad()``, and give it a new optimizer: its state starts empty, with the new
# shapes. A few Adam steps on the same batch show that it trains. (The seed in the cell above
# fixes the random batch and the layers' initial weights.)
grown = torch.nn.Linear(3, 4)
with torch.no_grad():
    grown.weight[:2] = old_weight
    grown.bias[:2] = old_bias
opt = torch.optim.Adam(grown.parameters(), lr=0.1)
losses = []
for _ in range(5):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(grown(inputs), target)
    loss.backward()
    opt.step()
    losses.append(round(loss.item(), 4))
print("grown:", grown)
print("losses:", losses)
assert losses[-1] < losses[0] and tuple(opt.state[grown.weight]["exp_avg"].shape) == (4, 3), (
    "grown trains: the loss falls, and Adam's exp_avg has shape (4, 3)")

# %%
# Four other routes: a clone, ``out=``, ``detach()`` and ``view(dtype)``
# ----------------------------------------------------------------------
#
# When the edit belongs to the computation, so that the gradient should flow through it, edit a
# clone instead of the leaf. The clone is not a leaf and may be edited in place; the gradient reaches
# ``w`` through the elements the edit left, and the overwritten element gets a gradient of 0.

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
edited = w.clone()
edited[0] = 5.0
(edited * edited).sum().backward()
print("w.grad through the edited clone:", w.grad)
assert torch.equal(w.grad, torch.tensor([0.0, 4.0, 6.0])), "2 * w where the clone kept w, 0 where the edit wrote"


# %%
# In grad mode, when an argument or the output requires grad, ``torch.add`` and ``torch.mul`` refuse
# an ``out=`` argument with a message of their own. Below, each raises it with ``w`` as an argument and the
# output, as the output only, and as an argument only (the output is then ``plain_out``, which does not
# require grad). Under
# ``torch.no_grad()`` the same call writes into the leaf, like Fix 1. Not every function refuses:
# a few composite ones, such as ``torch.tensordot`` (below), accept ``out=`` in grad mode and
# record the write as a copy. ``torch.tensordot`` still refuses an ``out=`` leaf that requires grad:
# it raises with ``out=w``, whose shape is not the result's, and with ``out=scalar_leaf``, a 0-d leaf
# like its result, the latter with the leaf error above.

plain_out = torch.empty(3)
for name, call in {
    "torch.add(w, 1, out=w)": lambda: torch.add(w, 1, out=w),
    "torch.mul(w, 2, out=w)": lambda: torch.mul(w, 2, out=w),
    "torch.add(torch.ones(3), 1, out=w)": lambda: torch.add(torch.ones(3), 1, out=w),
    "torch.mul(torch.ones(3), 2, out=w)": lambda: torch.mul(torch.ones(3), 2, out=w),
    "torch.add(w, 1, out=plain_out)": lambda: torch.add(w, 1, out=plain_out),
    "torch.mul(w, 2, out=plain_out)": lambda: torch.mul(w, 2, out=plain_out),
}.items():
    try:
        call()
    except RuntimeError as e:
        out_message = str(e)
        print(f"{name}: {type(e).__name__}: {out_message}")
        assert "functions with out=... arguments don't support automatic differentiation" in out_message, (
            f"{name} is refused: a function with out= does not support automatic differentiation"
        )
    else:
        raise AssertionError(f"{name} must raise in grad mode")
with torch.no_grad():
    torch.add(w, 1, out=w)
print("after torch.add(w, 1, out=w) under torch.no_grad(): w =", w)
assert torch.equal(w.detach(), torch.tensor([2.0, 3.0, 4.0])), "under no_grad the out= write reaches the leaf"
composite_out = torch.empty(())
torch.tensordot(w, torch.ones(3), dims=1, out=composite_out)
print("torch.tensordot(w, torch.ones(3), dims=1, out=composite_out):", composite_out)
assert type(composite_out.grad_fn).__name__ == "CopyBackwards", "tensordot records the out= write as a copy"
scalar_leaf = torch.tensor(0.0, requires_grad=True)
for name, leaf in {"w": w, "scalar_leaf": scalar_leaf}.items():
    try:
        torch.tensordot(w, torch.ones(3), dims=1, out=leaf)
    except RuntimeError as e:
        out_message = str(e)
        print(f"torch.tensordot(w, torch.ones(3), dims=1, out={name}): {type(e).__name__}: {out_message}")
    else:
        raise AssertionError(f"tensordot with out={name}, a leaf that requires grad, must raise")
assert out_message == "a leaf Variable that requires grad is being used in an in-place operation.", (
    "with out=scalar_leaf, of its result's shape, tensordot gives the leaf error")


# %%
# A write through ``w.detach()`` reaches ``w`` without an error, in grad mode too. ``detach()`` shares
# the version counter, so the write moves it, and a graph that saved ``w`` refuses to run
# ``backward()``; autograd records nothing else of the edit.

saved = w * w  # mul saves w
before = w._version
w.detach()[0] = 7.0
print("after w.detach()[0] = 7:", w, " w._version moved:", w._version == before + 1)
assert w[0].item() == 7.0 and w._version == before + 1, "the write reached w and moved its counter"
try:
    saved.sum().backward()
except RuntimeError as e:
    print(f"backward() through the saved w: {type(e).__name__}: ...{str(e)[str(e).index('is at version'):str(e).index(' instead')]}")
else:
    raise AssertionError("the edit through detach() must make backward() raise")

# %%
# The dtype form of ``view``, such as ``w.view(torch.int32)``, is no view for autograd: it does not
# require grad and has no ``grad_fn``. A write through it, in the same dtype or another, is not refused
# in grad mode either, and autograd does not record it; like ``detach()``, it moves ``w``'s version counter.

as_int = w.view(torch.int32)
print("w.view(torch.int32): requires_grad", as_int.requires_grad, " grad_fn", as_int.grad_fn)
before = w._version
w.view(torch.float32)[1] = 8.0
as_int[2] = 0
print("after w.view(torch.float32)[1] = 8 and as_int[2] = 0:", w, " w._version moved by", w._version - before)
assert torch.is_grad_enabled() and not as_int.requires_grad and as_int.grad_fn is None, "view(dtype) is not recorded"
assert w.tolist() == [7.0, 8.0, 0.0] and w.is_leaf and w._version == before + 2, (
    "both writes reached the leaf w, which stays a leaf, and each moved its counter")

# %%
# Why ``.data`` also works, and says nothing
# ------------------------------------------
#
# The fix merged in the pull request above was ``p.data.add_(...)``. It runs,
# because ``p.data`` is a tensor outside autograd. But it also has a version
# counter of its own, so the edit does not move ``p._version``: a graph that
# saved ``p`` would not notice, and its gradient could be silently wrong (see
# :ref:`data-vs-detach-data`). An edit of ``p`` itself under ``no_grad``, as in Fix 1, does move
# it.
p = torch.tensor([1.0, 2.0], requires_grad=True)
# sphinx_gallery_start_ignore
saved_p_square = (p * p).sum()  # mul saves p; its gradient at p = [1, 2] is [2, 4]
# sphinx_gallery_end_ignore
p.data.mul_(10)
print("after p.data.mul_(10):        p._version =", p._version)
# sphinx_gallery_start_ignore
assert p._version == 0, "the edit through p.data left p._version at 0"
assert torch.equal(torch.autograd.grad(saved_p_square, p)[0], torch.tensor([20.0, 40.0])), (
    "the graph that saved p does not notice the edit through p.data: its gradient is 2p at the edited p")
# sphinx_gallery_end_ignore
with torch.no_grad():
    p.mul_(10)
print("after no_grad(): p.mul_(10):  p._version =", p._version)
show("p", p)
assert p._version == 1, "the edit of p itself under no_grad moved the counter"

# %%
# A write into ``w``'s storage is not refused either, in grad mode and with no ``detach()``: through
# ``w.untyped_storage()``, through the tensor ``torch.from_dlpack`` makes of
# ``torch.utils.dlpack.to_dlpack(w)``, or through the array ``w.numpy(force=True)`` returns. Like an edit
# through ``.data``, none of them moves ``w._version``.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w.untyped_storage().fill_(0)
print("after w.untyped_storage().fill_(0):", w, " w._version =", w._version)
torch.from_dlpack(torch.utils.dlpack.to_dlpack(w))[0] = 9.0
print("after a write through to_dlpack(w):", w, " w._version =", w._version)
w.numpy(force=True)[1] = 7.0
print("after w.numpy(force=True)[1] = 7.0:", w, " w._version =", w._version)
assert torch.is_grad_enabled() and w.is_leaf and w.tolist() == [9.0, 7.0, 0.0] and w._version == 0, (
    "the three writes reached the leaf w in grad mode, unrefused, and left w._version at 0")

# %%
# Conclusion
# ----------
#
# While autograd records, ``w -= ...``, ``w[0] = ...`` and an ``out=w`` argument of ``torch.add`` or
# ``torch.mul`` are refused for a leaf ``w`` that requires grad; a write through ``detach()``,
# ``.data``, ``view(dtype)`` or ``w``'s storage (``untyped_storage()``, ``torch.utils.dlpack.to_dlpack``,
# ``numpy(force=True)``), among others, is not. Edit it under ``torch.no_grad()`` (``w -= lr * w.grad``,
# ``copy_``, item assignment) or use a ``torch.nn.init`` function. To change
# a shape, build a new layer, copy what it keeps, and make a new optimizer;
# ``torch.utils.swap_tensors`` is for swaps that keep the shape. ``.data`` and a write into the
# storage work too, but hide the edit from the version counter.
