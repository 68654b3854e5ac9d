"""
.. _questions-torch-func:

"accessing ``data`` under vmap transform is not allowed": ``torch.func`` and copies
===================================================================================

.. admonition:: Answer
   :class: answer

   When ``vmap`` is the innermost transform, the function sees batched tensors, which have no memory
   of their own; ``vmap`` refuses their ``.data``, ``item()``, ``tolist()`` and ``numpy()``; ``detach()`` works. Write
   ``detach()`` where the code had ``.data``:

   .. code-block:: python

      def scale(t):
          return t.detach() * 2

``torch.func`` runs a module or a function on tensors you hand it. This page checks what it
copies and what it shares: ``functional_call`` uses the tensors of its dict as they are, and the
module's own for what the dict leaves out (a tensor of the module that the dict replaces is left
alone, except in a layer that sits in the module twice, whose weight the page tries: a call that runs gives the
layer its own weight back only with ``tie_weights=False`` and a dict that holds one of its two names, and
leaves a dict that holds both names with the layer's own weight under the name it lists last and, under the first, the
tensor passed under the last; a gradient or an in-place buffer update lands where the tensor is: in the dict if the dict holds it, in
the module if not; by default, a weight tied to one in the dict takes the dict's tensor too),
``torch.func.grad`` needs no ``requires_grad``, and ``vmap``, as the innermost transform, refuses ``.data`` of a batched tensor and each call
the page tries that would turn a batched tensor into Python numbers or an array, or hand out its memory. It
ends with a training loop over a dict of parameters.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

import numpy as np
import torch
from torch.func import functional_call, grad, vmap


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
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
# Code written for plain tensors often reads ``.data``. Under ``vmap``, when it is the innermost transform, that
# raises: the function runs on a batched tensor that stands for many rows at once (by default, every
# row of the batch, in one call).

batch = torch.arange(6.0).reshape(2, 3)


def scale_data(t):
    return t.data * 2


try:
    vmap(scale_data)(batch)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError(".data under vmap must raise")
assert message == "accessing `data` under vmap transform is not allowed", (
    "vmap raised 'accessing `data` under vmap transform is not allowed'")
# sphinx_gallery_start_ignore
try:
    vmap(scale_data, chunk_size=1)(batch)
except RuntimeError as refusal:
    assert str(refusal) == message, "vmap(f, chunk_size=1) refuses .data with the same message"
else:
    raise AssertionError(".data under vmap(f, chunk_size=1) must raise")
# sphinx_gallery_end_ignore

# %%
# ``.data`` in ``vmap(grad(f))``
# ------------------------------
#
# ``vmap`` refuses ``.data`` when it is the innermost transform around the function: ``vmap(f)``
# above, and ``vmap(vmap(f))`` and ``grad(vmap(f))`` below. In ``vmap(grad(f))``, the usual way to
# get per-sample gradients, ``grad`` is innermost: ``.data`` in ``f`` runs and gives each row's
# values, while ``item()`` still raises.

nested = {
    "vmap(vmap(f))": lambda: vmap(vmap(scale_data))(batch.reshape(2, 1, 3)),
    "grad(vmap(f))": lambda: grad(lambda w: vmap(scale_data)(w).sum())(batch),
}
for name, f in nested.items():
    try:
        f()
    except RuntimeError as e:
        print(f"{name}: {type(e).__name__}: {e}")
        assert str(e) == message, f"{name} refuses .data with the same message"
    else:
        raise AssertionError(f"{name} must refuse .data: vmap is the innermost transform")


def loss_and_data(t):
    return (t * t).sum(), t.data


_, seen = vmap(grad(loss_and_data, has_aux=True))(batch)
print("vmap(grad(f)), t.data in f:", seen)
assert torch.equal(seen, batch), "in vmap(grad(f)), .data in f runs and gives each row's values"
try:
    vmap(grad(lambda t: t.sum() * t.sum().item()))(batch)
except RuntimeError as e:
    print(f"vmap(grad(f)), t.item(): {type(e).__name__}: {str(e).splitlines()[0]}")
else:
    raise AssertionError("item() in vmap(grad(f)) must raise")

# %%
# What else ``vmap`` refuses
# --------------------------
#
# These raise as well: ``item()``, ``tolist()``, ``numpy()`` and ``np.asarray(t)``, which would turn
# the batched tensor into Python numbers or an array, ``data_ptr()``, ``untyped_storage()``,
# ``__dlpack__()`` and ``torch.utils.dlpack.to_dlpack(t)``, which would hand out its memory, and
# setting ``.data``. ``detach()``, ``clone()`` and an in-place ``add_`` on a tensor that does not require grad run
# (``add_`` writes into the tensor passed to ``vmap``). Not every read of the tensor's layout raises either: ``stride()`` and ``storage_offset()``
# run and give the first row's, ``batch[0]``'s, the same for every row: by default
# (``chunk_size=None``) the function runs once for the whole batch. ``vmap(f, chunk_size=k)`` runs it
# once for each chunk of ``k`` rows, and each call reads its chunk's first row: with ``chunk_size=1``,
# each row's own. ``repr()`` runs and shows a ``BatchedTensor``.

calls = {
    "t.item()": lambda t: t.sum().item(),
    "t.tolist()": lambda t: t.tolist(),
    "t.numpy()": lambda t: t.numpy(),
    "np.asarray(t)": lambda t: np.asarray(t),
    "t.data_ptr()": lambda t: t.data_ptr(),
    "t.untyped_storage()": lambda t: t.untyped_storage(),
    "t.__dlpack__()": lambda t: t.__dlpack__(),
    "to_dlpack(t)": lambda t: torch.utils.dlpack.to_dlpack(t),
    "t.data = ...": lambda t: setattr(t, "data", torch.zeros(3)),
}
for call, f in calls.items():
    try:
        vmap(f)(batch.clone())
    except (RuntimeError, NotImplementedError) as e:
        print(f"{call}: {type(e).__name__}: {str(e).splitlines()[0]}")
    else:
        raise AssertionError(f"{call} under vmap must raise")
for call, f in {"t.detach()": lambda t: t.detach(), "t.clone()": lambda t: t.clone()}.items():
    print(f"{call}: runs, returns", vmap(f)(batch))
edited = batch.clone()
vmap(lambda t: t.add_(1))(edited)
print("t.add_(1) on edited:", edited)
assert not edited.requires_grad and torch.equal(edited, batch + 1), (
    "an in-place add_ under vmap wrote into the tensor given to vmap, which does not require grad")
layout = {}


def read_layout(t):
    layout.update(stride=t.stride(), storage_offset=t.storage_offset(), repr=repr(t))
    return t.clone()


vmap(read_layout)(batch)
print("t.stride():", layout["stride"], " t.storage_offset():", layout["storage_offset"],
      " repr(t) starts:", layout["repr"].split("(")[0])  # fmt: skip
assert (layout["stride"], layout["storage_offset"]) == (batch[0].stride(), batch[0].storage_offset()), (
    "inside vmap, t has the first row's stride and storage offset")
assert layout["repr"].startswith("BatchedTensor("), "repr() ran under vmap and names the batched tensor"
# sphinx_gallery_start_ignore
offsets_read = []
vmap(lambda t: offsets_read.append(t.storage_offset()) or t.clone())(batch)
assert offsets_read == [batch[0].storage_offset()] != [batch[1].storage_offset()], (
    "by default vmap ran the function once for the whole batch, and it read the first row's offset")
for refused_call, refused_f in calls.items():
    try:
        vmap(refused_f, chunk_size=1)(batch.clone())
    except (RuntimeError, NotImplementedError):
        pass
    else:
        raise AssertionError(f"{refused_call} under vmap(f, chunk_size=1) must raise")
# sphinx_gallery_end_ignore
chunk_offsets = []
vmap(lambda t: chunk_offsets.append(t.storage_offset()) or t.clone(), chunk_size=1)(batch)
print("storage_offset() per call, chunk_size=1:", chunk_offsets)
# sphinx_gallery_start_ignore
assert chunk_offsets == [row.storage_offset() for row in batch], (
    "with chunk_size=1, vmap ran the function once per row, and each call read its row's offset")
four_rows = torch.arange(12.0).reshape(4, 3)
chunk_reads = []
vmap(lambda t: chunk_reads.append((t.stride(), t.storage_offset(), repr(t))) or t.clone(), chunk_size=2)(four_rows)
assert [(stride, offset) for stride, offset, _ in chunk_reads] == [
    (four_rows[0].stride(), four_rows[0].storage_offset()), (four_rows[2].stride(), four_rows[2].storage_offset())
], "with chunk_size=2, vmap ran the function once per chunk of 2 rows, and each call read its chunk's first row"
assert all(shown.startswith("BatchedTensor(") for _, _, shown in chunk_reads), "repr() shows a BatchedTensor per chunk"
# sphinx_gallery_end_ignore

# %%
# The fix
# -------
#
# ``detach()`` gives the same values without the graph, and ``vmap`` accepts it: each row is
# multiplied by 2, as the loop over rows would do.


def scale(t):
    return t.detach() * 2


scaled = vmap(scale)(batch)
print("scaled:", scaled)
assert torch.equal(scaled, torch.stack([row * 2 for row in batch])), "the same as a loop over rows"
# sphinx_gallery_start_ignore
assert torch.equal(vmap(scale, chunk_size=1)(batch), scaled), "vmap(f, chunk_size=1) accepts detach() too"
assert torch.equal(vmap(vmap(scale))(batch.unsqueeze(1)), scaled.unsqueeze(1)), "vmap(vmap(f)) accepts detach() too"
assert torch.equal(grad(lambda b: vmap(scale)(b).sum())(batch), torch.zeros_like(batch)), (
    "grad(vmap(f)) accepts detach() too, and no gradient flows back through it")
# sphinx_gallery_end_ignore

# %%
# Writing a row's values into a tensor made inside the function
# -------------------------------------------------------------
#
# A tensor the function makes from nothing (``torch.zeros(2)``) is not batched: under ``vmap`` it is
# one tensor for all the rows of the call, and it cannot hold a value for each row. An in-place write of a
# value computed from the row into it raises: each of ``copy_``, ``out[:] = ...``, ``add_`` and
# ``mul_`` below raises, with one of two messages. Writing a value that does not depend on
# the row works.

rows = torch.arange(6.0).reshape(3, 2)
scale = torch.tensor([1.0, 2.0])


def write_copy(x):
    out = torch.zeros(2)
    out.copy_(x * scale)
    return out


def write_index(x):
    out = torch.zeros(2)
    out[:] = x * scale
    return out


def write_add(x):
    out = torch.zeros(2)
    out.add_(x * scale)
    return out


def write_mul(x):
    out = torch.ones(2)
    out.mul_(x * scale)
    return out


for name, f in {"copy_": write_copy, "out[:] = ...": write_index, "add_": write_add, "mul_": write_mul}.items():
    try:
        vmap(f)(rows)
    except RuntimeError as e:
        first = str(e).split(". ")[0]
        print(f"{name}: {type(e).__name__}: {first}")
        assert first.startswith(
            ("vmap: inplace arithmetic(self, *extra_args) is not possible", "output with shape")
        ), f"{name} of a row's value into torch.zeros(2) raises one of the two messages"
    else:
        raise AssertionError(f"{name} of a batched value into torch.zeros(2) must raise under vmap")
unbatched = vmap(lambda x: torch.zeros(2).add_(1.0) + x)(rows)
print("an unbatched value written into torch.zeros(2):", unbatched)
assert torch.equal(unbatched, rows + 1), "writing an unbatched value works"
# sphinx_gallery_start_ignore
chunked_writes = {"copy_": write_copy, "out[:] = ...": write_index, "add_": write_add, "mul_": write_mul}
for chunked_name, chunked_f in chunked_writes.items():
    try:
        vmap(chunked_f, chunk_size=2)(rows)
    except RuntimeError as refusal:
        assert str(refusal).startswith(
            ("vmap: inplace arithmetic(self, *extra_args) is not possible", "output with shape")
        ), f"{chunked_name} of a row's value into torch.zeros(2) raises one of the two messages with chunk_size=2"
    else:
        raise AssertionError(f"{chunked_name} of a batched value into torch.zeros(2) must raise with chunk_size=2")
# sphinx_gallery_end_ignore


# %%
# The fix makes the tensor from the input, so that ``vmap`` batches it too (``x.new_zeros(2)``,
# ``torch.zeros_like(x)``), or builds the result without writing into a tensor (``torch.stack``).
# Each gives every row its own result.

fixes = {
    "x.new_zeros(2)": lambda x: x.new_zeros(2).copy_(x * scale),
    "torch.zeros_like(x)": lambda x: torch.zeros_like(x).copy_(x * scale),
    "torch.stack": lambda x: torch.stack([x[0] * scale[0], x[1] * scale[1]]),
}
for name, f in fixes.items():
    result = vmap(f)(rows)
    print(f"{name}: {result.tolist()}")
    assert torch.equal(result, rows * scale), f"{name} gives every row its own result"

# %%
# ``functional_call`` uses the dict's tensors as they are
# -------------------------------------------------------
#
# ``functional_call(module, tensors, args)`` runs the module with the tensors of the dict in place
# of its parameters and buffers. Inside the call, ``model.weight`` is the dict's tensor itself,
# not a copy; after the call the module has its own parameters back, the same objects, unchanged,
# and the gradient goes to the dict's tensor.

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
weight_param = model.weight
weight_before = model.weight.detach().clone()
tensors = {name: torch.zeros_like(p, requires_grad=True) for name, p in model.named_parameters()}
inside = []
hook = model.register_forward_pre_hook(lambda module, args: inside.append(module.weight))
out = functional_call(model, tensors, (batch,))
hook.remove()
out.sum().backward()
print("inside the call, model.weight is tensors['weight']:", inside[0] is tensors["weight"])
print("after: model.weight is weight_param:", model.weight is weight_param,
      " unchanged:", torch.equal(model.weight, weight_before))
print("after: same storage (model.weight, tensors['weight']):", same_storage(model.weight, tensors["weight"]))
print("tensors['weight'].grad:", tensors["weight"].grad, " model.weight.grad:", model.weight.grad)
assert inside[0] is tensors["weight"] and model.weight is weight_param and torch.equal(model.weight, weight_before), (
    "no copy, and the module has its own parameter object back, unchanged")
# sphinx_gallery_start_ignore
assert model.weight.grad is None, "the module's parameter got no gradient"
assert torch.equal(tensors["weight"].grad, batch.sum(0, keepdim=True)), "d/dW sum(xW^T + b) = sum of the rows"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: tensors['weight'] and inside[0], the weight the module used during the call, are one tensor object on storage S1; model.weight is on a storage of its own, S2, and the gradient on a third, S3.
#
#    ``inside[0]``, the weight the module used during the call, is the dict's ``tensors['weight']``
#    itself, on ``S1``. The module's own ``model.weight`` is on ``S2``, unchanged, and the gradient
#    went to the dict's tensor.

names = {"tensors['weight']": tensors["weight"], "inside[0]": inside[0], "model.weight": model.weight}
draw_memory("functional_call(model, tensors, (batch,))", **names, **{"tensors['weight'].grad": tensors["weight"].grad})
# sphinx_gallery_start_ignore
assert bytes_apart(model.weight, tensors["weight"]), "the module's parameter is separate memory"
# sphinx_gallery_end_ignore

# %%
# A buffer is updated in the dict
# -------------------------------
#
# A ``BatchNorm1d`` in training mode updates its running mean in place. Called through
# ``functional_call`` with a copy of its state, it updates the dict's tensor, the same object as
# before the call, and the module's own running mean stays at zero. A buffer the dict leaves out
# is the module's own: called with its parameters alone, the call updates ``norm.running_mean``.
# So is a parameter the dict leaves out, and its gradient lands in the module; with
# ``strict=True``, ``functional_call`` refuses a dict that leaves out any parameter or buffer. Tied
# weights are the exception to both (next section).

norm = torch.nn.BatchNorm1d(3)
state = {name: t.clone() for name, t in norm.state_dict().items()}
running_mean = state["running_mean"]
functional_call(norm, state, (batch,))
print("state['running_mean']:", state["running_mean"], " same object:", state["running_mean"] is running_mean)
print("norm.running_mean:", norm.running_mean)
assert torch.allclose(running_mean, 0.1 * batch.mean(0)) and not norm.running_mean.any(), "updated in the dict only"
# sphinx_gallery_start_ignore
assert state["running_mean"] is running_mean, "the dict holds the same tensor object after the call"
# sphinx_gallery_end_ignore
params_only = {name: t.detach().clone() for name, t in norm.named_parameters()}
functional_call(norm, params_only, (batch,))
print("parameters only, norm.running_mean:", norm.running_mean)
assert torch.allclose(norm.running_mean, 0.1 * batch.mean(0)), "a buffer not in the dict is updated in the module"
# sphinx_gallery_start_ignore
part_model = torch.nn.Linear(3, 1)
part_weight = torch.zeros_like(part_model.weight, requires_grad=True)
part_out = functional_call(part_model, {"weight": part_weight}, (batch,))
part_out.sum().backward()
assert part_model.weight.grad is None and torch.equal(part_model.bias.grad, torch.tensor([2.0])), (
    "a parameter the dict leaves out is the module's own, and its gradient lands in the module")
try:
    functional_call(part_model, {"weight": part_weight}, (batch,), strict=True)
except RuntimeError as refusal:
    assert "Missing key(s): 'bias'" in str(refusal), "strict=True names the parameter the dict leaves out"
else:
    raise AssertionError("strict=True with a dict that leaves out a parameter must raise")
try:
    functional_call(norm, params_only, (batch,), strict=True)
except RuntimeError as refusal:
    assert "Missing key(s): 'num_batches_tracked', 'running_mean', 'running_var'" in str(refusal), (
        "strict=True names the buffers the dict leaves out")
else:
    raise AssertionError("strict=True with a dict that leaves out buffers must raise")
# sphinx_gallery_end_ignore

# %%
# Tied weights follow the dict
# ----------------------------
#
# Here the second layer's weight is the first one's, as for :ref:`tied weights <questions-tied-weights>`,
# and the dict holds ``0.weight`` only. By default (``tie_weights=True``), ``1.weight`` takes the
# dict's tensor too, the gradient of both uses lands in the dict, and ``strict=True`` accepts the
# dict. With ``tie_weights=False``, ``1.weight`` is the module's own, and ``strict=True`` refuses
# the dict.
#
# A layer that sits in the model twice, ``torch.nn.Sequential(layer, layer)``, has its weight under
# two names, ``0.weight`` and ``1.weight``, and gets it back only with ``tie_weights=False`` and a
# dict that holds only one of the two. On torch |torch_version|, every other call that runs, whatever
# ``strict`` and the grad mode, leaves ``layer.weight`` the dict's tensor for whichever of the two
# names the dict lists first, and the layer's own parameter is gone from it. (``strict=True`` with ``tie_weights=False``
# refuses a dict that holds only one name; ``tie_weights=True`` refuses two different tensors for the two
# names.) A dict that holds both names changes too: at the end of the call ``functional_call`` writes
# what it swaps out of the module back into the dict you passed, and of the two names, the one the
# dict lists last then holds the layer's own parameter, and the one it lists first the tensor that was passed
# under the other name (the tensor passed under the first name is now the layer's weight).

torch.manual_seed(0)
tied = torch.nn.Sequential(torch.nn.Linear(3, 3, bias=False), torch.nn.Linear(3, 3, bias=False))
tied[1].weight = tied[0].weight
tied_weight = torch.randn(3, 3, requires_grad=True)
tied_out = functional_call(tied, {"0.weight": tied_weight}, (batch,), strict=True)
tied_out.sum().backward()
print("both layers used tied_weight:", torch.allclose(tied_out, batch @ tied_weight.T @ tied_weight.T))
print("tied_weight.grad:", tied_weight.grad)
print("tied[0].weight.grad:", tied[0].weight.grad)
untied_out = functional_call(tied, {"0.weight": tied_weight}, (batch,), tie_weights=False)
print("tie_weights=False, the second layer used the module's own weight:",
      torch.allclose(untied_out, batch @ tied_weight.T @ tied[1].weight.T))  # fmt: skip
try:
    functional_call(tied, {"0.weight": tied_weight}, (batch,), strict=True, tie_weights=False)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).expandtabs(4)}")  # the message indents with a tab
else:
    raise AssertionError("strict=True with tie_weights=False must refuse a dict that leaves out 1.weight")
assert torch.allclose(tied_out, batch @ tied_weight.T @ tied_weight.T) and tied[0].weight.grad is None, (
    "by default, the tied 1.weight takes the dict's tensor too, and the module's weight gets no gradient")
layer = torch.nn.Linear(3, 3, bias=False)
layer_weight, twice_weight = layer.weight, torch.randn(3, 3)
functional_call(torch.nn.Sequential(layer, layer), {"0.weight": twice_weight}, (batch,))
print("layer twice, after: layer.weight is layer_weight:", layer.weight is layer_weight,
      " layer.weight is twice_weight:", layer.weight is twice_weight)
assert layer.weight is twice_weight and not isinstance(layer.weight, torch.nn.Parameter), (
    "a layer that sits in the model twice keeps the dict's tensor after the call")
layer = torch.nn.Linear(3, 3, bias=False)
layer_weight, both_names = layer.weight, {"0.weight": torch.randn(3, 3), "1.weight": torch.randn(3, 3)}
first_weight = both_names["0.weight"]
functional_call(torch.nn.Sequential(layer, layer), both_names, (batch,), tie_weights=False)
print("both names, tie_weights=False, after: layer.weight is first_weight:", layer.weight is first_weight,
      " both_names['1.weight'] is layer_weight:", both_names["1.weight"] is layer_weight)
assert layer.weight is first_weight and both_names["1.weight"] is layer_weight, (
    "the layer keeps the dict's first tensor, and the dict passed now holds the layer's own parameter")
# sphinx_gallery_start_ignore
assert torch.allclose(tied_weight.grad, grad(lambda v: (batch @ v.T @ v.T).sum())(tied_weight.detach())), (
    "the gradient of both uses of the tied weight lands in the dict's tensor")
assert torch.allclose(untied_out, batch @ tied_weight.T @ tied[1].weight.T) and not torch.allclose(
    untied_out, tied_out), "with tie_weights=False, 1.weight is the module's own"
assert torch.allclose(functional_call(tied, {"1.weight": tied_weight}, (batch,), strict=True), tied_out), (
    "a dict holding 1.weight only gives its tensor to the tied 0.weight too")
assert list(dict(tied.named_parameters())) == ["0.weight"] and list(tied.state_dict()) == ["0.weight", "1.weight"], (
    "the tied weight is one parameter under two names")
back_modules = {"Linear": torch.nn.Linear(3, 1), "BatchNorm1d": torch.nn.BatchNorm1d(3), "tied": tied}
for back_kind, back_module in back_modules.items():
    for back_strict in (False, True):
        for back_tie in (True, False):
            for back_grad in (True, False):
                back_own = back_module.state_dict(keep_vars=True)
                back_values = {back_name: back_t.detach().clone() for back_name, back_t in back_own.items()}
                back_names = back_own if not back_tie else {
                    **dict(back_module.named_parameters()), **dict(back_module.named_buffers())}
                back_passed = {back_name: back_values[back_name].clone() for back_name in back_names}
                back_given = dict(back_passed)
                with torch.set_grad_enabled(back_grad):
                    functional_call(back_module, back_passed, (batch,), strict=back_strict, tie_weights=back_tie)
                back_after = back_module.state_dict(keep_vars=True)
                assert list(back_after) == list(back_own) and all(
                    back_after[back_name] is back_t and torch.equal(back_t, back_values[back_name])
                    for back_name, back_t in back_own.items()), (
                    f"{back_kind}, strict={back_strict}, tie_weights={back_tie}, grad enabled={back_grad}: after the "
                    "call the module has its own parameter and buffer objects back, unchanged")
                assert list(back_passed) == list(back_given) and all(
                    back_passed[back_name] is back_t for back_name, back_t in back_given.items()), (
                    f"{back_kind}, strict={back_strict}, tie_weights={back_tie}, grad enabled={back_grad}: the dict "
                    "passed holds its own tensor objects after the call")
def twice_refusal_of(model, given, strict, tie):
    """The name of the error functional_call(model, given, (batch,)) raises with these options (RuntimeError or
    ValueError), or None."""
    try:
        functional_call(model, given, (batch,), strict=strict, tie_weights=tie)
    except (RuntimeError, ValueError) as twice_error:
        return type(twice_error).__name__
    return None


for twice_keys in (("0.weight",), ("1.weight",), ("0.weight", "1.weight"), ("1.weight", "0.weight")):
    for twice_same in (False, True):
        for twice_strict in (False, True):
            for twice_tie in (True, False):
                for twice_grad in (True, False):
                    twice_layer = torch.nn.Linear(3, 3, bias=False)
                    twice_own, twice_shared = twice_layer.weight, torch.randn(3, 3)
                    twice_dict = {twice_name: twice_shared if twice_same else torch.randn(3, 3) for twice_name in twice_keys}
                    twice_given = dict(twice_dict)
                    with torch.set_grad_enabled(twice_grad):
                        twice_refusal = twice_refusal_of(torch.nn.Sequential(twice_layer, twice_layer), twice_dict,
                                                         twice_strict, twice_tie)
                    one_name = len(twice_keys) == 1
                    assert twice_refusal == ("RuntimeError" if twice_strict and not twice_tie and one_name else "ValueError"
                                             if twice_tie and not one_name and not twice_same else None), (
                        f"dict keys {twice_keys}, one tensor under both names: {twice_same}, strict={twice_strict}, "
                        f"tie_weights={twice_tie}, grad enabled={twice_grad}: strict=True with tie_weights=False "
                        "refuses one name, tie_weights=True two different tensors for the two names, and every other "
                        "call runs")
                    assert twice_refusal or (twice_layer.weight is twice_own) == (not twice_tie and one_name) and (
                        twice_layer.weight is twice_own or twice_layer.weight is twice_given[twice_keys[0]]), (
                        f"dict keys {twice_keys}, one tensor under both names: {twice_same}, strict={twice_strict}, "
                        f"tie_weights={twice_tie}, grad enabled={twice_grad}: the layer gets its own weight back only "
                        "with tie_weights=False and one name, else it keeps the dict's tensor for the name it lists first")
                    assert list(twice_dict) == list(twice_keys) and (
                        all(twice_dict[twice_name] is twice_t for twice_name, twice_t in twice_given.items()) if one_name
                        else twice_refusal or twice_dict[twice_keys[-1]] is twice_own
                        and twice_dict[twice_keys[0]] is twice_given[twice_keys[-1]]), (
                        f"dict keys {twice_keys}, one tensor under both names: {twice_same}, strict={twice_strict}, "
                        f"tie_weights={twice_tie}, grad enabled={twice_grad}: a dict with one name keeps its tensor, "
                        "and after the call a dict with both names holds the layer's own parameter under the name it lists "
                        "last, and under the first the tensor passed under the last")
# sphinx_gallery_end_ignore

# %%
# ``torch.func.grad`` needs no ``requires_grad``
# ----------------------------------------------
#
# ``grad(f)(w)`` returns the gradient of ``f`` at ``w`` even when ``w`` does not require grad, and
# leaves ``w.grad`` alone. Here ``f(w) = sum(w ** 2)``, whose gradient is ``2 w``.

w = torch.tensor([1.0, 2.0, 3.0])
g = grad(lambda v: (v**2).sum())(w)
print("g:", g, " w.requires_grad:", w.requires_grad, " w.grad:", w.grad)
assert torch.equal(g, 2 * w) and w.grad is None, "the gradient, without requires_grad and without w.grad"
# sphinx_gallery_start_ignore
held_grad = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(held_grad * 7).sum().backward()
assert torch.equal(grad(lambda v: (v**2).sum())(held_grad), 2 * held_grad), "the gradient, w requiring grad"
assert torch.equal(held_grad.grad, torch.full((3,), 7.0)), "an existing w.grad is left alone"
# sphinx_gallery_end_ignore

# %%
# Training a dict of tensors
# --------------------------
#
# The two pieces together: train the tensors of a dict through ``functional_call`` for three SGD
# steps, and the module itself for the same three steps. The dict ends with the weights the
# module ends with, and the module's parameters were trained only by its own loop.

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
tensors = {name: p.detach().clone().requires_grad_() for name, p in model.named_parameters()}
dict_optimizer = torch.optim.SGD(tensors.values(), lr=0.1)
module_optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    dict_optimizer.zero_grad()
    ((functional_call(model, tensors, (x,)) - y) ** 2).mean().backward()
    dict_optimizer.step()
    module_optimizer.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    module_optimizer.step()
print("tensors['weight']:", tensors["weight"])
print("model.weight:     ", model.weight)
assert torch.allclose(tensors["weight"], model.weight), "the same training, on the dict and on the module"
# sphinx_gallery_start_ignore
assert bytes_apart(tensors["weight"], model.weight), "two separate tensors were trained"
assert torch.allclose(tensors["bias"], model.bias), "the biases agree too"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``functional_call`` swaps the dict's tensors into the module for one call and puts the module's
# own back (but not into a layer that sits in the model twice, unless ``tie_weights=False`` and the dict holds only one of
# its names): no copy either way, so gradients and in-place buffer updates land in the dict (a
# parameter or buffer the dict leaves out is the module's, and its gradient or update lands there; by
# default, a weight tied to one in the dict takes the dict's tensor). At the end of the call it writes what it swapped
# out back into the dict: for a dict that holds both names of a layer that sits in the model twice, the name it lists
# last then holds the layer's own parameter, and the name it lists first the tensor passed under the last.
# ``torch.func.grad`` computes a gradient without ``requires_grad`` or ``.grad``. With ``vmap`` as the
# innermost transform, ``.data`` of a batched tensor raises, and so do the calls that turn a batched tensor into Python numbers or an array
# (``item()``, ``tolist()``, ``numpy()``, ``np.asarray``) or hand out its memory (``data_ptr()``,
# ``untyped_storage()``, DLPack); ``detach()``, ``clone()``, ``add_`` on a tensor that does not require grad,
# ``stride()`` and ``repr()`` run.
# In ``vmap(grad(f))``, ``.data`` in ``f`` runs and gives each row's values, while ``item()`` still raises.
# A tensor made inside the function with ``torch.zeros`` cannot take a row's values in place: make it
# with ``x.new_zeros`` or ``torch.zeros_like(x)``, or stack the result.
