"""
.. _questions-stale-grad:

My logged gradients are all the same: ``g = p.grad`` is not a copy
==================================================================

.. admonition:: Answer
   :class: answer

   ``g = p.grad`` is no copy: after ``zero_grad(set_to_none=False)``, or with no reset, ``backward()`` writes into that
   one tensor (exceptions below) and every logged entry ends up equal. Log a copy:

   .. code-block:: python

      loss.backward()
      grads.append(model.weight.grad.clone())

A training loop that keeps ``model.weight.grad`` in a list to look at later finds every entry
equal, often all zeros, when it zeroes the gradient with ``zero_grad(set_to_none=False)`` or never
zeroes it; with the default ``zero_grad()`` the entries are tensor objects of their own. This page shows what ``zero_grad()`` does to ``p.grad`` with
``set_to_none=True`` (the default) and with ``set_to_none=False``, how ``backward()`` adds into an
existing gradient (which is what gradient accumulation over micro-batches relies on), and checks
the copy in a small training loop against the gradient worked out by hand.
"""

# %%
# Helpers
# -------
#
# A linear model with a mean squared error on a fixed batch. ``by_hand`` is the gradient of that
# loss with respect to the weight, worked out without autograd: ``2 (model(x) - y)^T x / n``. ``bytes_apart``
# tells whether two tensors' storages share no byte.

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
# Three training steps, each keeping the weight's gradient in ``grads``, with
# ``zero_grad(set_to_none=False)`` at the end of the step. Every entry of ``grads`` is the same
# tensor object, and it holds zeros.

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
#    :alt: Diagram: the names grads[0], grads[2] and model.weight.grad point to one tensor object holding zeros, on one storage S1.
#
#    ``grads[0]``, ``grads[2]`` and ``model.weight.grad`` are one tensor object on one storage.

draw_memory("zero_grad(set_to_none=False)", **{"grads[0]": grads[0], "grads[2]": grads[2],
                                               "model.weight.grad": model.weight.grad})

# %%
# ``zero_grad()`` with its default, ``set_to_none=True``
# ------------------------------------------------------
#
# ``zero_grad()`` sets ``p.grad`` to ``None``; a ``g`` taken before keeps its values, and the next
# ``backward()`` gives ``p.grad`` a new tensor object. So with the default, each step's gradient is a
# tensor object of its own: the symptom's loop with ``zero_grad()`` logs three different tensors, here on memory
# of their own too, each equal to the gradient worked out by hand for that step's weights. A new object is not
# always new memory: with ``p.grad`` at ``None``, a ``backward(gradient=g)`` that reaches ``p`` through a view
# (``p.view(-1).backward(g)``) leaves ``p.grad`` on ``g``'s memory (hidden check).

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
# Even with the default, an entry is the live ``p.grad`` until the step's ``zero_grad()``: an
# in-place edit of ``p.grad`` after it is logged rewrites the logged entry too. Clipping with
# ``torch.nn.utils.clip_grad_norm_`` is one such edit. For some optimizers ``optimizer.step()`` is
# another: ``SGD`` with ``momentum`` and ``nesterov=True``, run with ``foreach=True`` and with neither a
# nonzero ``weight_decay`` nor ``maximize=True``, adds the momentum into ``p.grad`` in place. With either
# of those options it leaves ``p.grad`` as it was, and so do ``fused=True`` and its loop over single
# tensors (``foreach=False``, and the default on the CPU); on a GPU, see the box below. (This is for a
# ``weight_decay`` given as a number, as SGD documents it. Given as a tensor that requires grad, it makes
# the loop over single tensors add ``weight_decay * p`` into ``p.grad`` in place, unless ``maximize=True``.)
# Here the gradient ``[6, 8]`` is logged, then clipped to norm 1; then a logged ``[6, 8]`` goes through one
# such step for each value of ``foreach``, two more with ``foreach=True`` and a ``weight_decay`` or
# ``maximize=True``, and one with ``fused=True``.

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
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    For parameters on a GPU, ``SGD`` runs with ``foreach=True`` when ``foreach`` is left out (PyTorch
#    documentation: `SGD <https://docs.pytorch.org/docs/stable/generated/torch.optim.SGD.html>`__), so with
#    ``momentum`` and ``nesterov=True``, and with neither a nonzero ``weight_decay`` nor ``maximize=True``,
#    its default ``step()`` rewrites a logged ``p.grad``; with either of those, or with ``fused=True``, it
#    leaves ``p.grad`` as it was. The cell below checks this only where torch finds a GPU; the box's
#    title says whether the site's build did.

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
# With ``set_to_none=False``, ``zero_grad()`` zeroes ``p.grad`` in place: ``g`` is zeroed with it
# and stays ``p.grad``, and the next ``backward()`` writes into that same tensor.

g = p.grad
optimizer.zero_grad(set_to_none=False)
print("g:", g, " p.grad is g:", p.grad is g)
((model(x) - y) ** 2).mean().backward()
print("after backward, g:", g, " p.grad is g:", p.grad is g)
assert p.grad is g and torch.allclose(g, by_hand(model, x, y)), "backward() wrote into g"

# %%
# ``backward()`` adds into an existing gradient
# ---------------------------------------------
#
# Gradient accumulation relies on this: split the batch into two micro-batches, scale each loss by
# its share, call ``backward()`` on each, and ``p.grad`` ends up as the gradient of the whole
# batch. A ``g`` taken after the first micro-batch is that same tensor, so it holds the sum too.
# (There are exceptions that put a new tensor in ``p.grad``, holding the sum: one is
# ``backward(create_graph=True)``, another a dense gradient arriving at a sparse ``.grad``, as from
# an ``Embedding(..., sparse=True)``; and a non-leaf that called ``retain_grad()`` gets a new
# ``.grad`` holding the sum at every ``backward()`` after the first.)

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
# The fix, in the training loop
# -----------------------------
#
# ``clone()`` keeps a copy of each step's gradient. The same loop as above, with either setting
# of ``zero_grad``: each entry is a tensor of its own and equals the gradient worked out by hand
# for that step's weights.

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
# Conclusion
# ----------
#
# ``p.grad`` is a tensor like any other, and ``g = p.grad`` a second name for it. With
# ``set_to_none=True`` (the default), ``zero_grad()`` lets go of it and the next ``backward()``
# makes a new one, so ``g`` keeps its values; with ``set_to_none=False``, ``zero_grad()`` zeroes
# it and ``backward()`` adds into it, and so does a ``backward()`` with no ``zero_grad()`` in
# between, which is how gradient accumulation works (``backward(create_graph=True)`` and a dense
# gradient arriving at a sparse ``.grad`` are exceptions: they put a new tensor holding the sum in
# ``p.grad``). To keep a step's gradient, keep ``p.grad.clone()``.
