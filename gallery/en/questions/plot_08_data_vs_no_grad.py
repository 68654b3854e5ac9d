"""
.. _questions-data-vs-no-grad:

Editing weights in place: ``.data`` or ``torch.no_grad()``?
===========================================================

.. admonition:: Answer
   :class: answer

   The version counter does not count an edit through ``.data``, so ``backward()`` of a graph that saved the tensor can use the edited values and give a wrong gradient without an error. Finish ``backward()`` first, then edit under ``torch.no_grad()``:

   .. code-block:: python

      loss = (w * w).sum()
      loss.backward()
      with torch.no_grad():
          w -= 0.1 * w.grad

Both let you change a tensor that requires grad in place. They differ when a graph that saved the
tensor is still waiting for ``backward()``: under ``torch.no_grad()`` an in-place torch operation on the
tensor or a view of it is counted and ``backward()`` raises "one of the variables needed for gradient computation has been modified by an
inplace operation", except in at least these six cases: the graph saved the tensor through saved-tensor hooks
(``save_on_cpu`` below), a custom ``Function`` kept it as an attribute, a custom ``Function`` saved it but has a
``backward`` that never reads ``ctx.saved_tensors`` (autograd checks the version when ``backward`` reads it back), a kernel that moves no version counter
made the edit (a fused optimizer's step is one; :ref:`questions-version-counter` lists others that the site checked),
the forward pass ran under ``torch.utils.checkpoint`` in a function that reads the tensor from outside its
arguments, which ``backward()`` runs again on the edited values (:ref:`questions-activation-checkpointing`), or torch's
internal ``torch.autograd._unsafe_preserve_version_counter`` set the counter back after the edit (below); through ``.data`` the edit is not counted, and ``backward()``
can return a wrong gradient without a word, as after a write by another route that bypasses the counter,
such as NumPy, under ``torch.no_grad()`` too (below). This page edits one pending graph both ways, then shows ``p.data = t`` changing a
parameter's shape silently. It answers
`pytorch/pytorch#30987 <https://github.com/pytorch/pytorch/issues/30987>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
# ``true_grad`` is what calculus says the
# gradient of ``(w * w).sum()`` is at the original weights, computed by ``torch.func.grad``.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


start = [1.0, 2.0, 3.0]
true_grad = torch.func.grad(lambda w: (w * w).sum())(torch.tensor(start))
print("true gradient:", true_grad)

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
# Under ``torch.no_grad()``: the edit is counted, ``backward()`` raises
# ---------------------------------------------------------------------
#
# ``w * w`` saves ``w`` for the backward pass, at version 0. The edit under ``torch.no_grad()``
# moves ``w._version`` to 1, and ``backward()`` refuses the changed tensor. An edit of a view,
# ``u[:2].mul_(10)`` on a fresh ``u``, is counted on ``u`` as well: the views that the view operations torch
# documents take, outside ``torch.inference_mode()``, of a tensor that is not an inference tensor, one whose
# ``is_inference()`` is ``False``, share its version counter (for views taken inside the mode, see
# :ref:`questions-version-counter`).
# :fact:`version-counter-shared-by-views-and-detach`

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
print("w._version before the edit:", w._version)
with torch.no_grad():
    w.mul_(10)
print("w._version after the edit:", w._version)
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after an edit under no_grad must raise")
u = torch.tensor(start, requires_grad=True)
u_loss = (u * u).sum()
with torch.no_grad():
    u[:2].mul_(10)
print("u._version after u[:2].mul_(10):", u._version)
# sphinx_gallery_start_ignore
assert u._version == 1, "an edit of a view under no_grad is counted on its base"
try:
    u_loss.grad_fn.next_functions[0][0]._saved_self
except RuntimeError as e:
    assert "is at version 1; expected version 0" in str(e), "after the view's edit the saved u is out of date"
else:
    raise AssertionError("the saved u must be out of date after an edit of its view")


def counted_on_normal_of_inference(take_view):
    """Whether a view of a tensor whose is_inference() is False, made from an inference tensor (the view(dtype) of
    its detach() to its own dtype), shares that tensor's version counter."""
    with torch.inference_mode():
        made_in_mode = torch.tensor(start) * 1
    normal_of_inference = made_in_mode.detach().view(torch.float32)
    view_of_it = take_view(normal_of_inference)
    before_ = normal_of_inference._version
    torch.autograd.graph.increment_version(view_of_it)
    return not normal_of_inference.is_inference() and normal_of_inference._version == before_ + 1


assert all(counted_on_normal_of_inference(take) for take in (
    lambda t: t[:2], lambda t: t.view(3), lambda t: t.unsqueeze(0), lambda t: t.expand(2, 3), lambda t: t.detach(),
    lambda t: t.view(torch.int32))), "views of a normal tensor made from an inference tensor share its counter too"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph under loss. SumBackward0 points to MulBackward0, whose two saved tensors, self and other, read _version 1 != 0; MulBackward0 points to AccumulateGrad and the leaf w at _version=1.
#
#    The graph under ``loss``. ``MulBackward0`` saved ``w`` twice, as ``self`` and ``other``, at
#    version 0; after the edit under ``torch.no_grad()`` both read ``_version 1 != 0``.

draw_graph("w.mul_(10) under torch.no_grad()", loss, w=w)
# sphinx_gallery_start_ignore
assert w._version == 1, "the edit under no_grad is counted"
try:
    loss.grad_fn.next_functions[0][0]._saved_self
except RuntimeError as e:
    assert "is at version 1; expected version 0" in str(e), "w was saved at version 0"
else:
    raise AssertionError("the saved w must be out of date")
# sphinx_gallery_end_ignore

# %%
# Through ``.data``: the edit is not counted, the gradient is wrong
# -----------------------------------------------------------------
#
# The same edit through ``w.data`` leaves ``w._version`` at 0. ``backward()`` runs, and uses the
# edited values: the gradient is ten times what calculus gives, and nothing says so.

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
w.data.mul_(10)
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
print("true gradient:", true_grad)
assert w._version == 0 and torch.equal(w.grad, 10 * true_grad), ".data must hide the edit and give a wrong gradient"

# %%
# .. figure-caption::
#    :alt: Diagram: the names w and w.data point to two tensor objects on one storage S1, both holding 10.0, 20.0, 30.0; w is at _version=0.
#
#    ``w`` and ``w.data`` are two tensor objects on one storage ``S1``, holding ten times the start
#    values; ``w`` is still at ``_version=0``.

draw_memory("w.data.mul_(10)", w=w, **{"w.data": w.data})
# sphinx_gallery_start_ignore
assert same_storage(w, w.data) and torch.equal(w.detach(), 10 * torch.tensor(start)), "the edit is in w's memory"
# sphinx_gallery_end_ignore

# %%
# Under ``torch.no_grad()``, through NumPy: not counted either
# ------------------------------------------------------------
#
# ``torch.no_grad()`` does not make every edit visible. Under it, ``w.numpy()`` works on a tensor
# that requires grad, and a write through that array is not counted: ``w._version`` stays at 0,
# and ``backward()`` runs on the edited values without an error, as through ``.data``.

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
with torch.no_grad():
    w.numpy()[:] *= 10
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
assert w._version == 0 and torch.equal(w.grad, 10 * true_grad), "a NumPy write under no_grad must go unnoticed"

# %%
# Under saved-tensor hooks: the edit is counted, and not checked
# --------------------------------------------------------------
#
# ``torch.autograd.graph.save_on_cpu()`` saves the tensors of the graph built inside it through
# saved-tensor hooks, and autograd does not check the version of a tensor saved that way. The same
# edit under ``torch.no_grad()`` moves ``w._version`` to 1, yet with the default ``pin_memory=False``
# ``backward()`` raises nothing and uses the edited values, as through ``.data``.

w = torch.tensor(start, requires_grad=True)
with torch.autograd.graph.save_on_cpu():
    loss = (w * w).sum()
with torch.no_grad():
    w.mul_(10)
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
print("true gradient:", true_grad)
assert w._version == 1 and torch.equal(w.grad, 10 * true_grad), "save_on_cpu must let the edit go unnoticed"

# %%
# With ``pin_memory=False`` (the default) the pack hook keeps a CPU tensor itself, which is why the
# edit reaches ``backward()`` above. With ``pin_memory=True`` it copies every tensor into new memory,
# so the saved copy keeps the values the loss was computed from:
# the same edit still raises nothing, and the gradient is the true one.

pinned = torch.tensor(start, requires_grad=True)
with torch.autograd.graph.save_on_cpu(pin_memory=True):
    loss = (pinned * pinned).sum()
with torch.no_grad():
    pinned.mul_(10)
print("pinned._version after the edit:", pinned._version)
loss.backward()
print("pinned.grad:", pinned.grad)
assert pinned._version == 1 and torch.equal(pinned.grad, true_grad), "with pin_memory=True the saved copy keeps the old values"

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    For a tensor on a GPU, ``save_on_cpu()`` always saves a copy in CPU memory, with or without
#    ``pin_memory``, so an edit of the tensor after the forward pass does not reach the gradient
#    (PyTorch documentation:
#    `save_on_cpu <https://docs.pytorch.org/docs/stable/autograd.html#torch.autograd.graph.save_on_cpu>`__).
#    The cell below checks this only where torch finds a GPU; the box's title says whether the site's
#    build did.

if torch.cuda.is_available():
    for pin_memory in (False, True):
        on_gpu = torch.tensor(start, device="cuda", requires_grad=True)
        with torch.autograd.graph.save_on_cpu(pin_memory=pin_memory):
            loss = (on_gpu * on_gpu).sum()
        with torch.no_grad():
            on_gpu.mul_(10)
        loss.backward()
        print(f"pin_memory={pin_memory}: on_gpu._version:", on_gpu._version, " on_gpu.grad:", on_gpu.grad)
        assert on_gpu._version == 1 and torch.equal(on_gpu.grad.cpu(), true_grad), (
            "with or without pin_memory, a GPU tensor is packed as a CPU copy")
    print("GPU checks passed on:", torch.cuda.get_device_name())


# %%
# Under activation checkpointing: the edit is counted, and the function runs again
# --------------------------------------------------------------------------------
#
# ``torch.utils.checkpoint.checkpoint`` runs its function again in ``backward()``
# (:ref:`questions-activation-checkpointing`). A function that reads ``w`` from outside its arguments, as
# ``scaled_square`` does, reads the edited ``w`` then: with either ``use_reentrant`` setting, the edit under
# ``torch.no_grad()`` moves ``w._version`` to 1, ``backward()`` raises nothing, and the gradient is ten times
# the true one.


def scaled_square(scale):
    return (scale * w * w).sum()


for use_reentrant in (False, True):
    w = torch.tensor(start, requires_grad=True)
    scale = torch.ones(3, requires_grad=True)  # use_reentrant=True needs an argument that requires grad
    loss = torch.utils.checkpoint.checkpoint(scaled_square, scale, use_reentrant=use_reentrant)
    with torch.no_grad():
        w.mul_(10)
    loss.backward()
    print(f"use_reentrant={use_reentrant}: w._version:", w._version, " w.grad:", w.grad)
    assert w._version == 1 and torch.equal(w.grad, 10 * true_grad), (
        "checkpoint runs the function again on the edited w: no error, a wrong gradient")


# %%
# With the counter set back: the edit is counted, then hidden
# -----------------------------------------------------------
#
# torch's internal context manager ``torch.autograd._unsafe_preserve_version_counter(w)`` (the drawing
# helpers use it to put back the counters they move) sets ``w``'s counter back on leaving to what it read
# on entering. The edit under ``torch.no_grad()`` inside it moves ``w._version`` to 1, leaving puts it back
# to 0, and ``backward()`` raises nothing: the gradient is ten times the true one.

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
with torch.no_grad(), torch.autograd._unsafe_preserve_version_counter(w):
    w.mul_(10)
    version_inside = w._version
print("w._version inside:", version_inside, " after leaving:", w._version)
loss.backward()
print("w.grad:", w.grad)
assert version_inside == 1 and w._version == 0 and torch.equal(w.grad, 10 * true_grad), (
    "a counter set back hides the edit: no error, a wrong gradient")


# %%
# The fix: finish ``backward()`` first, then edit
# -----------------------------------------------
#
# An update step belongs after ``backward()`` and under ``torch.no_grad()``: the gradient is the
# true one, and the edit is counted in ``_version``. The count matters to a graph that saved ``w``
# before the edit and still awaits ``backward()``: that ``backward()`` raises. A graph built after
# the edit saves ``w`` at its new version and runs (both checked in hidden blocks). In a loop, zero
# ``w.grad`` after each step (below).

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
loss.backward()
# sphinx_gallery_start_ignore
graph_before_step = (w * w).sum()
# sphinx_gallery_end_ignore
with torch.no_grad():
    w -= 0.1 * w.grad
print("w.grad:", w.grad)
print("w:", w)
print("w._version:", w._version, " w.is_leaf:", w.is_leaf)
assert torch.equal(w.grad, true_grad), "backward before the edit must give the true gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(w, torch.tensor(start) * 0.8), "the step must update w in place"
assert w._version == 1 and w.is_leaf, "the step is counted and w stays a leaf"
try:
    torch.autograd.grad(graph_before_step, w)
except RuntimeError as e:
    assert "modified by an inplace operation" in str(e), "a graph built before the step refuses backward"
else:
    raise AssertionError("a graph that saved w before the step must refuse backward")
assert torch.equal(torch.autograd.grad((w * w).sum(), w)[0], 2 * w.detach()), (
    "a graph built after the step saves w's new version and runs")
# sphinx_gallery_end_ignore

# %%
# Run in a loop, the step needs ``w.grad`` zeroed after it: ``backward()`` adds into ``w.grad``
# (:ref:`questions-non-leaf-grad`), so without ``w.grad.zero_()`` the second step's ``w.grad`` holds the sum of
# both steps' gradients, not the gradient at the current ``w``. With ``w.grad.zero_()`` after each step, each
# ``backward()`` gives its own step's gradient.

for zero_each_step in (False, True):
    w = torch.tensor(start, requires_grad=True)
    matches = []
    for step in range(2):
        step_grad = torch.func.grad(lambda v: (v * v).sum())(w.detach())
        (w * w).sum().backward()
        print(f"zero_each_step={zero_each_step}, step {step}: w.grad:", w.grad, " gradient at w:", step_grad)
        matches.append(torch.allclose(w.grad, step_grad))
        with torch.no_grad():
            w -= 0.1 * w.grad
        if zero_each_step:
            w.grad.zero_()

    # sphinx_gallery_start_ignore
    assert zero_each_step or torch.allclose(w.grad, true_grad + step_grad), (
        "without zero_() the second step's w.grad is the sum of both steps' gradients")
    # sphinx_gallery_end_ignore
    assert matches == [True, zero_each_step], (
        "without zero_() the second step's w.grad is not the gradient at the current w; with zero_() it is")

# %%
# ``p.data = t`` swaps the tensor behind a parameter, shape included
# ------------------------------------------------------------------
#
# Assigning to the ``.data`` of a parameter on the CPU a dense tensor of its dtype, also on the CPU (layout
# ``torch.strided``, not nested), raises nothing even when the shapes differ: the parameter silently takes the
# new shape and, from then on, shares ``t``'s memory. A float64 ``t`` is taken too and changes the parameter's
# dtype. Among the tensors refused are a sparse ``t``, one on ``meta`` and, when the parameter requires grad (the
# default), an integer or bool ``t``. Whether a ``t`` on a GPU is taken by a parameter on the CPU, and the
# reverse, is checked in the GPU box of :ref:`the check of the article's summary <data-vs-detach-comparison>`.
# :fact:`data-setter-checks`

p = torch.nn.Parameter(torch.ones(3))
t = torch.zeros(5)
p.data = t
print("p.shape:", tuple(p.shape))
print("same storage (p, t):", same_storage(p, t))
print("p.requires_grad:", p.requires_grad, " p.is_leaf:", p.is_leaf)
assert tuple(p.shape) == (5,) and same_storage(p, t), "p.data = t must take t's shape and memory"

# %%
# A parameter made with ``requires_grad=False``, such as a frozen weight, takes an integer or bool ``t``
# without a word, and its dtype and shape with it.

for dtype in (torch.int64, torch.bool):
    frozen = torch.nn.Parameter(torch.ones(3), requires_grad=False)
    frozen.data = torch.zeros(5, dtype=dtype)
    print(f"frozen after .data = a {dtype} t:", frozen.dtype, tuple(frozen.shape))
    assert frozen.dtype == dtype and tuple(frozen.shape) == (5,), (
        "a parameter that does not require grad takes an integer or bool t, its dtype and shape")

# %%
# ``copy_`` under ``torch.no_grad()`` writes the values into the parameter's own memory, and the
# parameter keeps its shape.

p = torch.nn.Parameter(torch.ones(3))
t = torch.zeros(3)
with torch.no_grad():
    p.copy_(t)
print("p:", p)
print("same storage (p, t):", same_storage(p, t))
print("p._version:", p._version)
# sphinx_gallery_start_ignore
assert bytes_apart(p, t) and torch.equal(p, t), "copy_ must copy the values, not the memory"
assert p._version == 1, "copy_ must be counted"
# sphinx_gallery_end_ignore

# %%
# ``copy_`` checks less than it may seem: a source that broadcasts to the target's shape is
# repeated to fill it, and a float source is cast to the target's dtype (here truncated into
# integers), and so is an integer source. A source whose shape cannot broadcast
# raises.
with torch.no_grad():
    p.copy_(torch.tensor([7.0]))
print("p after copy_(torch.tensor([7.0])):", p)
grid = torch.zeros(2, 3)
grid.copy_(torch.tensor([1.0, 2.0, 3.0]))
print("grid after copy_ of a (3,) source:", grid)
counts = torch.zeros(3, dtype=torch.int64)
counts.copy_(torch.tensor([1.7, 2.5, -3.9]))
print("int64 counts after copy_ of floats:", counts)
weights = torch.zeros(3)
weights.copy_(torch.tensor([1, 2, 3]))
print("float32 weights after copy_ of int64:", weights)
try:
    with torch.no_grad():
        p.copy_(torch.zeros(5))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("copy_ of a source that cannot broadcast must raise")
assert torch.equal(p, torch.full((3,), 7.0)) and torch.equal(counts, torch.tensor([1, 2, -3])), (
    "copy_ broadcast [7.0] over p and truncated floats into int64")
# sphinx_gallery_start_ignore
assert torch.equal(grid, torch.tensor([[1.0, 2.0, 3.0]] * 2)), "a (3,) source fills every row of a (2, 3) target"
assert p.shape == (3,) and counts.dtype == torch.int64, "copy_ keeps the target's shape and dtype"
assert weights.dtype == torch.float32 and weights.tolist() == [1.0, 2.0, 3.0], "an int64 source is cast"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Edit weights under ``torch.no_grad()``, after ``backward()``: an in-place torch operation on ``w``
# or a view of it that comes while a graph still needs the old values then raises instead of
# corrupting the gradient, except in at least six cases: the graph saved
# them under saved-tensor hooks such as ``torch.autograd.graph.save_on_cpu()``, a custom
# ``Function`` keeps them as an attribute (``ctx.x = x`` instead of ``ctx.save_for_backward(x)``), a custom ``Function``
# saves them with ``ctx.save_for_backward(x)`` but its ``backward`` never reads ``ctx.saved_tensors``,
# the forward pass ran under ``torch.utils.checkpoint`` in a function that reads ``w`` from outside its
# arguments, which ``backward()`` runs again on the edited values (:ref:`questions-activation-checkpointing`),
# a kernel that moves no version counter made the edit (among them a fused optimizer's step,
# ``GradScaler.unscale_``, BatchNorm's update of ``running_mean`` and ``running_var``, and the
# update of ``FusedMovingAvgObsFakeQuantize``'s ``scale`` and ``zero_point``: :ref:`questions-version-counter`),
# or ``torch.autograd._unsafe_preserve_version_counter`` set the counter back after the edit. An edit by one of the nine routes around the version counter
# in the table of :ref:`questions-version-counter` stays silent under ``torch.no_grad()`` too, and can
# give a wrong gradient: ``.data``, a write through NumPy (above), through ``untyped_storage()`` or a
# DLPack alias, ``nn.utils.vector_to_parameters``, an edit through ``copy.copy(w)``, and ``apply_``,
# ``map_`` or ``map2_`` on ``w.detach()``. ``.data`` hides the
# edit from autograd, and ``p.data = t`` also hides a change of shape. ``copy_`` under
# ``torch.no_grad()`` keeps the parameter's shape and dtype, but it broadcasts a source that fits
# and casts a float or an integer source's dtype silently; a source whose shape cannot broadcast
# raises.
# ``.data`` and ``detach()`` are compared point by point in
# :ref:`the check of the article's summary <data-vs-detach-comparison>`.
# :fact:`ctx-attribute-escapes-version-check` :fact:`unread-saved-tensors-escape-version-check`
# :fact:`fused-optimizer-step-not-counted` :fact:`kernel-writes-not-counted` :fact:`counter-bypass-edits-silent`
