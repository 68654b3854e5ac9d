"""
.. _questions-grad-after-move:

"My weights' ``.grad`` is ``None`` after moving them"
=====================================================

.. admonition:: Answer
   :class: answer

   A tensor made with ``requires_grad=True`` and moved by ``.to()`` in grad mode (not inference mode) to another
   device or floating or complex dtype is not a leaf: its ``.grad`` stays ``None`` without ``retain_grad()``.
   Create it with its device and dtype, or set ``requires_grad`` after the move:

   .. code-block:: python

      w = torch.randn(3, dtype=torch.float64, requires_grad=True)
      w = torch.randn(3).to(torch.float64).requires_grad_()

A weight made with ``requires_grad=True`` and then, in grad mode outside ``torch.inference_mode()``, moved to another device
(``.to("cpu:0")`` counts as one for a tensor on ``"cpu"``) or cast to another floating or complex
dtype is no longer a leaf. Without ``retain_grad()`` (the page does not call it) it trains nothing: its ``.grad``
stays ``None``, reading it warns ("The .grad attribute of a Tensor that is not a leaf Tensor is being
accessed"). Handed to an optimizer of ``torch.optim`` built the usual way, it is refused
("can't optimize a non-leaf Tensor"); an optimizer made before the move holds the source leaf and updates that
instead; an SGD or Adam optimizer built with ``differentiable=True`` accepts it, and its steps leave it unchanged:
its ``.grad`` stays ``None``. After ``retain_grad()``, each optimizer class of ``torch.optim`` accepts the moved
tensor, and each but ``SparseAdam``, whose step takes only sparse gradients, trains that copy in place; the source
leaf is not updated. Readers meet
it as "grad is None after ``.cuda()``". This page reproduces all three
with a change of dtype, and shows with the ``meta`` device, which plays the GPU here (every build of torch
has it), that a move gives the same non-leaf (a ``backward()`` that reaches the CPU leaf through a move to
``meta`` raises: there are no values to copy back); a GPU box checks ``.cuda()`` and ``.to("cuda")`` themselves where torch finds a GPU, and its
title says whether the site's build did. The page also shows where the gradient goes, and checks
three fixes by training with each.
"""

# %%
# Helpers
# -------
#
# ``read_grad`` reads ``t.grad`` and returns the warnings the read raised, so the page shows them
# instead of letting them escape. ``train`` runs a few SGD steps on ``params`` and returns the loss
# of each step. The seed fixes the random weights, so the numbers below are the same on every run.

import warnings

import torch


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    return grad, [str(w.message).split(". ")[0] for w in caught]


def train(params, loss_fn, steps=4):
    optimizer = torch.optim.SGD(params, lr=0.1)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


torch.manual_seed(0)
target = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)

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
# The symptom
# -----------
#
# ``w`` is made with ``requires_grad=True`` and cast to float64 in the same line. The cast is an
# operation recorded by autograd (``ToCopyBackward0``), so ``w`` is its result, a non-leaf:
# ``backward()`` leaves ``w.grad`` at ``None``, and reading it warns.
w = torch.randn(3, requires_grad=True).to(torch.float64)
((w - target) ** 2).sum().backward()
grad, warned = read_grad(w)
print("w.is_leaf:", w.is_leaf, " w.grad_fn:", type(w.grad_fn).__name__)
print("w.grad:", grad)
print("warned:", warned)
assert not w.is_leaf and grad is None and warned, "a cast leaf is a non-leaf without .grad"
# sphinx_gallery_start_ignore
assert warned == ["The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"], (
    "reading w.grad warned 'The .grad attribute of a Tensor that is not a leaf ...'")
for move in (torch.float64, "cpu:0"):
    retained = torch.ones(3, requires_grad=True).to(move)
    retained.retain_grad()
    (retained**2).sum().backward()
    assert not retained.is_leaf and read_grad(retained) == (retained.grad, []), f"to({move!r}), retain_grad(): no warning"
    assert torch.equal(retained.grad, 2 * retained.detach()), f"to({move!r}), retain_grad(): the .grad is filled"
for complex_dtype in (torch.complex64, torch.complex128):
    cast = torch.ones(3, requires_grad=True).to(complex_dtype)
    cast.abs().sum().backward()
    assert not cast.is_leaf and type(cast.grad_fn) is type(w.grad_fn) and read_grad(cast)[0] is None, (
        f"to({complex_dtype!r}) is recorded like to(float64), and .grad stays None")
# sphinx_gallery_end_ignore

# %%
# A move to another device is the same operation. ``meta`` is a device every build of torch has
# (its tensors hold a shape but no values), and here it plays the GPU: the moved tensor is a non-leaf
# there too.
m = torch.randn(3, requires_grad=True).to("meta")
print("m.device:", m.device, " m.is_leaf:", m.is_leaf, " m.grad_fn:", type(m.grad_fn).__name__)
assert not m.is_leaf and type(m.grad_fn) is type(w.grad_fn), "to('meta') is recorded like to(float64)"
# sphinx_gallery_start_ignore
meta_moved = torch.ones(3, requires_grad=True).to("meta")
try:
    (meta_moved * meta_moved).sum().backward()
except NotImplementedError as no_data:
    assert "Cannot copy out of meta tensor" in str(no_data), (
        "a backward() that reaches the CPU leaf through a move to meta raises: no values to copy back")
else:
    raise AssertionError("a backward() that reaches the CPU leaf through a move to meta must raise")
moved_to_cpu0 = torch.ones(3, requires_grad=True).to("cpu:0")
assert not moved_to_cpu0.is_leaf and type(moved_to_cpu0.grad_fn) is type(w.grad_fn), 'to("cpu:0") is a move'
(moved_to_cpu0**2).sum().backward()
assert read_grad(moved_to_cpu0)[0] is None and read_grad(moved_to_cpu0)[1], 'after to("cpu:0") .grad is None'
try:
    torch.optim.SGD([moved_to_cpu0], lr=0.1)
except ValueError as refused:
    assert str(refused) == "can't optimize a non-leaf Tensor", 'an optimizer refuses the tensor moved to "cpu:0"'
else:
    raise AssertionError('an optimizer must refuse the tensor moved to "cpu:0"')
# sphinx_gallery_end_ignore

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    On a CPU tensor, ``.cuda()`` and ``.to("cuda")`` are moves like ``.to("meta")``: when it requires
#    grad they return a non-leaf, whose ``.grad`` stays ``None`` after ``backward()``. A tensor created on
#    the GPU with ``requires_grad=True`` is a leaf, and since it is already on that GPU, both return the
#    tensor itself (PyTorch documentation:
#    `Tensor.cuda <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.cuda.html>`__,
#    `Tensor.is_leaf <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html>`__). The
#    cell below checks this only where torch finds a GPU; the box's title says whether the site's build did.

if torch.cuda.is_available():
    g = torch.randn(3, requires_grad=True).cuda()
    ((g - target.cuda()) ** 2).sum().backward()
    gpu_grad, gpu_warned = read_grad(g)
    print("g.device:", g.device, " g.is_leaf:", g.is_leaf, " g.grad_fn:", type(g.grad_fn).__name__)
    print("g.grad:", gpu_grad)
    on_gpu = torch.randn(3, device="cuda", requires_grad=True)
    print("created on the GPU, is_leaf:", on_gpu.is_leaf)
    print("on_gpu.cuda() is on_gpu:", on_gpu.cuda() is on_gpu, ' on_gpu.to("cuda") is on_gpu:', on_gpu.to("cuda") is on_gpu)
    assert not g.is_leaf and gpu_grad is None and gpu_warned, "a leaf moved with .cuda() is a non-leaf without .grad"
    assert type(g.grad_fn) is type(m.grad_fn) and on_gpu.is_leaf, ".cuda() is recorded like to('meta')"
    assert on_gpu.cuda() is on_gpu and on_gpu.to("cuda") is on_gpu, "on a tensor already on the GPU both return it"
    print("GPU checks passed on:", torch.cuda.get_device_name())


# %%
# Where the gradient goes
# -----------------------
#
# To the tensor ``w`` was made from. Named, that float32 leaf gets the gradient; in the one-liner
# above nothing names it, so nobody ever reads it.
leaf = torch.randn(3, requires_grad=True)
w = leaf.to(torch.float64)
((w - target) ** 2).sum().backward()
print("leaf.grad:", leaf.grad)
print("w.grad:", read_grad(w)[0])
assert leaf.grad is not None and leaf.grad.dtype == torch.float32, "the float32 leaf holds the gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(leaf.grad, (2 * (w - target)).float()), "d/dleaf of sum((leaf - target)**2)"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the graph of w = leaf.to(torch.float64). Its node ToCopyBackward0 leads to AccumulateGrad and the float32 leaf.
#
#    ``w`` is the result of ``ToCopyBackward0``, not a leaf: ``backward()`` passes through it to
#    ``AccumulateGrad``, which writes the gradient into ``leaf.grad``.

draw_graph("w = leaf.to(torch.float64)", w, leaf=leaf)
# sphinx_gallery_start_ignore
assert type(w.grad_fn).__name__ == "ToCopyBackward0", "the move is recorded as ToCopyBackward0"
assert w.grad_fn.next_functions[0][0].variable is leaf, (
    "the AccumulateGrad under w's ToCopyBackward0 holds the float32 leaf")
# sphinx_gallery_end_ignore

# %%
# The optimizer holds the wrong tensor
# ------------------------------------
#
# Handed the moved tensor, an optimizer refuses it.
w = torch.randn(3, requires_grad=True).to(torch.float64)
try:
    torch.optim.SGD([w], lr=0.1)
except ValueError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an optimizer must refuse a non-leaf tensor")
# sphinx_gallery_start_ignore
assert message == "can't optimize a non-leaf Tensor", "SGD([w]) raised 'can't optimize a non-leaf Tensor'"
for move in (torch.float64, "cpu:0"):
    kept_source = torch.ones(3, requires_grad=True)
    kept = kept_source.to(move)
    kept.retain_grad()
    kept_losses = train([kept], lambda kept=kept: ((kept - target) ** 2).sum())
    assert not kept.is_leaf and kept_losses == sorted(set(kept_losses), reverse=True), f"to({move!r}), retain_grad(): an optimizer trains the moved copy"
    assert torch.equal(kept_source, torch.ones(3)), f"to({move!r}), retain_grad(): the source leaf is not updated"
    accepted = torch.ones(3, requires_grad=True).to(move)
    for optimizer_class in (torch.optim.SGD, torch.optim.Adam):
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            differentiable_optimizer = optimizer_class([accepted], lr=0.1, differentiable=True)
            for _ in range(2):
                differentiable_optimizer.zero_grad()
                (accepted**2).sum().backward()
                differentiable_optimizer.step()
        assert differentiable_optimizer.param_groups[0]["params"][0] is accepted, (
            f"to({move!r}): {optimizer_class.__name__}(differentiable=True) accepts the moved tensor")
        assert read_grad(accepted)[0] is None and torch.equal(accepted, torch.ones(3, dtype=accepted.dtype)), (
            f"to({move!r}): {optimizer_class.__name__}(differentiable=True) steps leave it unchanged, .grad None")

import inspect

optimizer_classes = [c for _, c in inspect.getmembers(torch.optim, inspect.isclass)
                     if issubclass(c, torch.optim.Optimizer) and c is not torch.optim.Optimizer]


def steps_on_moved_copy(optimizer_class, move):
    """A 2×2 leaf moved by to(move), retain_grad() on the copy, three steps of optimizer_class with its default
    settings on the copy: (the last loss below the first, the copy changed, the source leaf unchanged)."""
    moved_source = torch.ones(2, 2, requires_grad=True)
    moved_copy = moved_source.to(move)
    moved_copy.retain_grad()
    goal = torch.tensor([[1.0, -2.0], [3.0, 0.5]], dtype=moved_copy.dtype)
    stepper = optimizer_class([moved_copy])

    def closure():
        stepper.zero_grad()
        step_loss = ((moved_copy - goal) ** 2).sum()
        step_loss.backward()
        return step_loss

    step_losses = [stepper.step(closure).detach().item() for _ in range(3)]
    return (step_losses[-1] < step_losses[0], not torch.equal(moved_copy, torch.ones(2, 2, dtype=moved_copy.dtype)),
            torch.equal(moved_source, torch.ones(2, 2)))


for move in (torch.float64, "cpu:0"):
    for optimizer_class in optimizer_classes:
        try:
            optimizer_class([torch.ones(2, 2, requires_grad=True).to(move)])
        except ValueError as refused:
            assert str(refused) == "can't optimize a non-leaf Tensor", (
                f"to({move!r}): {optimizer_class.__name__} refuses the moved tensor as a non-leaf")
        else:
            raise AssertionError(f"to({move!r}): {optimizer_class.__name__} must refuse the moved tensor")
        if optimizer_class is torch.optim.SparseAdam:
            try:
                steps_on_moved_copy(optimizer_class, move)
            except RuntimeError as dense:
                assert "does not support dense gradients" in str(dense), (
                    f"to({move!r}), retain_grad(): SparseAdam accepts the copy, and its step refuses dense gradients")
            else:
                raise AssertionError("SparseAdam's step must refuse the copy's dense gradient")
        else:
            assert steps_on_moved_copy(optimizer_class, move) == (True, True, True), (
                f"to({move!r}), retain_grad(): {optimizer_class.__name__} trains the moved copy, not the source leaf")
# sphinx_gallery_end_ignore

# %%
# Made before the move, it accepts the leaf, and then updates the leaf while the loss reads the
# moved copy, which no step changes: the loss stays where it was.
w = torch.randn(3, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
w = w.to(torch.float64)
losses = []
for _ in range(4):
    optimizer.zero_grad()
    loss = ((w - target) ** 2).sum()
    loss.backward()
    optimizer.step()
    losses.append(round(loss.item(), 4))
print("losses:", losses)
print("optimizer holds w:", optimizer.param_groups[0]["params"][0] is w)
assert len(set(losses)) == 1, "training the leaf leaves the moved copy, and the loss, unchanged"
# sphinx_gallery_start_ignore
assert optimizer.param_groups[0]["params"][0] is w.grad_fn.next_functions[0][0].variable, (
    "the optimizer holds the leaf w was moved from")
assert not torch.equal(optimizer.param_groups[0]["params"][0].detach().double(), w.detach()), (
    "the optimizer updates the leaf w was moved from")
# sphinx_gallery_end_ignore

# %%
# Three fixes, each checked by training
# -------------------------------------
#
# Create the tensor with its dtype (or device) and ``requires_grad=True`` in one call: it is a
# leaf where it will live. The loss falls at every step.
w = torch.randn(3, dtype=torch.float64, requires_grad=True)
losses = train([w], lambda: ((w - target) ** 2).sum())
print("w.is_leaf:", w.is_leaf, " w.dtype:", w.dtype, " losses:", losses)
on_meta = torch.randn(3, device="meta", requires_grad=True)
print("on meta, is_leaf:", on_meta.is_leaf)
assert w.is_leaf and losses == sorted(set(losses), reverse=True), "created in place, it trains"
# sphinx_gallery_start_ignore
assert w.grad is not None and w.grad.dtype == torch.float64, "the leaf holds its gradient"
assert torch.randn(3, device="meta", requires_grad=True).is_leaf, "created on meta, it is a leaf"
try:
    on_meta.to("cpu")
except NotImplementedError:
    pass
else:
    raise AssertionError("a move out of meta must raise: there are no values to move")
# sphinx_gallery_end_ignore

# %%
# Or move first and ask for gradients after: ``requires_grad_()`` on the moved tensor makes it a
# leaf that requires grad, since nothing recorded the move.
w = torch.randn(3).to(torch.float64).requires_grad_()
losses = train([w], lambda: ((w - target) ** 2).sum())
print("w.is_leaf:", w.is_leaf, " w.dtype:", w.dtype, " losses:", losses)
assert w.is_leaf and losses == sorted(set(losses), reverse=True), "moved, then requires_grad_(): it trains"

# %%
# In a module, let ``module.to()`` move the parameters: they stay leaves (``Parameter`` objects)
# and the optimizer made after the move trains them.
model = torch.nn.Linear(3, 1)
model.to(torch.float64)
x = torch.randn(8, 3, dtype=torch.float64)
losses = train(model.parameters(), lambda: (model(x) - x.sum(1, keepdim=True)).pow(2).mean())
print("model.weight.is_leaf:", model.weight.is_leaf, " losses:", losses)
assert model.weight.is_leaf and losses == sorted(set(losses), reverse=True), (
    "after module.to() model.weight is a leaf and the loss falls")
# sphinx_gallery_start_ignore
assert isinstance(model.weight, torch.nn.Parameter) and model.weight.grad.dtype == torch.float64, (
    "model.weight is still a Parameter, and its gradient is float64")
casts = (torch.Tensor.double, torch.Tensor.half)
assert not any(cast(torch.randn(3, requires_grad=True)).is_leaf for cast in casts), (
    "double() and half() of a leaf that requires grad give non-leaves")
source = torch.ones(3, requires_grad=True)
assert source.to("cpu") is source and source.to(torch.float32) is source, "a to() that changes nothing returns the leaf"
assert not source.to(torch.int64).requires_grad, "a cast to an integer dtype does not require grad"
with torch.no_grad():
    assert source.to(torch.float64).is_leaf, "under no_grad the cast is a leaf"
    assert not source.to(torch.float64).requires_grad, "under no_grad the cast does not require grad"
with torch.inference_mode():
    assert source.to(torch.float64).is_leaf, "under inference_mode the cast is a leaf"
    assert not source.to(torch.float64).requires_grad, "under inference_mode the cast does not require grad"
with torch.inference_mode(), torch.enable_grad():
    assert torch.is_grad_enabled() and source.to(torch.float64).is_leaf, (
        "inside inference_mode, even with enable_grad, the cast is a leaf")
weight_4d = torch.randn(2, 3, 2, 2, requires_grad=True)
copies_in_place_of_dtype = (weight_4d.to(torch.float32, copy=True), weight_4d.to(memory_format=torch.channels_last))
assert all(not c.is_leaf and type(c.grad_fn).__name__ == "ToCopyBackward0" for c in copies_in_place_of_dtype), (
    "to() with copy=True or with a memory_format the strides do not have gives a non-leaf")
with torch.no_grad():
    assert weight_4d.to(memory_format=torch.channels_last).is_leaf, "under no_grad that copy is a leaf"
transposed_leaf = torch.empty_strided((3, 4), (1, 3), requires_grad=True)
assert not transposed_leaf.is_contiguous() and transposed_leaf.to(memory_format=torch.contiguous_format) is (
    transposed_leaf), "to(contiguous_format) returns a transposed leaf itself: the layout read from the strides decides"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``to()``, ``double()`` and the other casts and moves are operations: in grad mode, outside
# ``torch.inference_mode()``, when they change the device of a tensor that requires grad (a move out of ``meta``
# raises instead, and so does a ``backward()`` back through a move into it: there are no values to move) or cast it
# to another floating or complex dtype (a cast to or from ``torch.float4_e2m1fn_x2`` raises ``NotImplementedError``
# instead), they return a non-leaf, and so does a ``to()`` that copies while changing
# neither, given ``copy=True`` or a ``memory_format`` other than the layout torch reads from the tensor's strides
# (not always what ``is_contiguous()`` says: see :ref:`questions-module-to`). Without ``retain_grad()`` its
# ``.grad`` stays ``None``; an optimizer of ``torch.optim`` built the usual way refuses it, one made before the move updates the
# tensor it came from instead, and an SGD or Adam optimizer built with ``differentiable=True`` accepts it and
# its steps leave it unchanged; after ``retain_grad()``
# each optimizer class of ``torch.optim`` but ``SparseAdam`` (sparse gradients only) trains the moved copy in place and
# leaves the source leaf as it was. Create the tensor with its ``dtype`` and ``device``, call
# ``requires_grad_()`` after the move, or move a module with ``module.to()``.
# :fact:`cast-of-grad-leaf-is-non-leaf`
