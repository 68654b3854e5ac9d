"""
.. _questions-activation-checkpointing:

Activation checkpointing runs the forward twice
===============================================

.. admonition:: Answer
   :class: answer

   ``checkpoint(fn, x, use_reentrant=False)`` runs ``fn`` again when ``backward()`` needs a tensor ``fn``
   saved (not a Python number it wrapped), so in-place edits in it, such as ``BatchNorm``'s update of its running
   statistics, can happen twice a step. Move them out of ``fn``:

   .. code-block:: python

      seen.add_(1)
      h = checkpoint(block, x, use_reentrant=False)
      out = head(bn(h))

A print at the top of a checkpointed function can show up twice, and in a step with one ``backward()``
``BatchNorm``'s ``num_batches_tracked`` counts two batches and, with a momentum between 0 and 1 such as the default
0.1, ``running_mean`` differs from a run's without checkpointing wherever the batch mean differs from
``running_mean`` (each batch updates it twice; with ``momentum=None``, a plain average of the batches, it agrees up
to float rounding). This page counts the calls of a function under ``torch.utils.checkpoint.checkpoint`` (activation checkpointing, also called
gradient checkpointing or recomputation), compares ``BatchNorm``'s statistics and in-place edits with a plain run, shows
what happens when the second call computes something else, how dropout gets the same mask twice,
checks two fixes in a three-step training loop, and counts the calls in a step with two ``backward()`` passes or none.
"""

# %%
# Helpers
# -------
#
# ``checkpoint`` is torch's, from ``torch.utils.checkpoint``; every call in the code shown passes
# ``use_reentrant=False``, the variant PyTorch recommends, and the hidden checks also run
# ``use_reentrant=True`` where the text names that variant. ``versions`` reads the version counters
# of the tensors given (``_version``, an internal attribute of torch).

import copy

import torch
from torch.utils.checkpoint import checkpoint


def versions(*tensors):
    return tuple(t._version for t in tensors)


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
# The function runs twice
# -----------------------
#
# ``checkpoint(block, x)`` runs ``block(x)`` once, keeps ``x`` and drops the tensors ``block``'s
# operations saved for the backward pass (:ref:`questions-saved-tensors` shows what each operation
# saves). ``backward()`` needs them, so it calls ``block(x)`` a second time to compute them again. A
# counter of calls in ``block`` reads 1 after the forward pass and 2 after ``backward()``. A function
# whose operations save no tensor, such as ``(x + 1).sum()``, is not called again, nor is one whose
# operations save only a Python number they wrap as a tensor, such as ``(x * 2).sum()``: the operation's node
# keeps that number itself, out of sight of ``checkpoint``'s saved-tensor hooks, so there is nothing to recompute
# (the hidden checks of this cell run both). The
# ``block`` below also adds 1 to a tensor ``c`` in place and runs a ``BatchNorm`` layer in train mode;
# ``timeline`` records the version counters of ``c`` and of ``BatchNorm``'s ``num_batches_tracked``
# for the picture below.

torch.manual_seed(0)
bn = torch.nn.BatchNorm1d(3)
plain_bn = copy.deepcopy(bn)
c = torch.zeros(())
calls = {"block": 0}


def block(x):
    calls["block"] += 1
    c.add_(1)
    return bn(x).relu()


x = torch.randn(8, 3, requires_grad=True)
timeline = [("start", versions(c, bn.num_batches_tracked))]
y = checkpoint(block, x, use_reentrant=False)
print(
    "after checkpoint(): calls", calls["block"], " c", c.item(), " num_batches_tracked", bn.num_batches_tracked.item()
)
timeline.append(("checkpoint()", versions(c, bn.num_batches_tracked)))
y.pow(2).sum().backward()
print(
    "after backward():   calls", calls["block"], " c", c.item(), " num_batches_tracked", bn.num_batches_tracked.item()
)
timeline.append(("backward()", versions(c, bn.num_batches_tracked)))
assert calls["block"] == 2 and c.item() == 2 and bn.num_batches_tracked.item() == 2, (
    "checkpoint calls the function twice, and each edit runs twice"
)
# sphinx_gallery_start_ignore
probe_bn, probe_x = torch.nn.BatchNorm1d(3), torch.linspace(-2.0, 2.0, 24, requires_grad=True).reshape(8, 3)
probe_out = checkpoint(probe_bn, probe_x, use_reentrant=True)
assert probe_bn.num_batches_tracked.item() == 1, "reentrant checkpoint: one call in the forward pass"
probe_out.sum().backward()
assert probe_bn.num_batches_tracked.item() == 2, "reentrant checkpoint runs the function again in backward"
assert torch.allclose(probe_bn.running_mean, 0.19 * probe_x.detach().mean(0)), "reentrant: 0.19 of the batch mean"
with torch.no_grad():
    checkpoint(probe_bn, probe_x, use_reentrant=False)
assert probe_bn.num_batches_tracked.item() == 3, "under no_grad, checkpoint calls the function once"
import warnings

quiet_bn = torch.nn.BatchNorm1d(3)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch warns that no input requires grad
    quiet_out = checkpoint(quiet_bn, probe_x.detach(), use_reentrant=True)
assert quiet_bn.num_batches_tracked.item() == 1 and not quiet_out.requires_grad, "reentrant, no input needs grad: once"
once_calls = []


def saves_nothing(t):
    once_calls.append(t)
    return (t + 1).sum()


once_out = checkpoint(saves_nothing, torch.ones(3, requires_grad=True), use_reentrant=False)
once_out.backward()
assert len(once_calls) == 1, "a function whose operations save no tensor is not called again in backward()"
wrapped_calls = []


def saves_a_number(t):
    wrapped_calls.append(t)
    return (t * 2).sum()


wrapped_out = checkpoint(saves_a_number, torch.ones(3, requires_grad=True), use_reentrant=False)
assert torch.equal(wrapped_out.grad_fn.next_functions[0][0]._saved_other, torch.tensor(2)) and len(wrapped_calls) == 1, (
    "the MulBackward0 node keeps the 2 itself, as a tensor; reading it calls nothing again")
seen_by_hooks = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: seen_by_hooks.append(t) or t, lambda t: t):
    (torch.ones(3, requires_grad=True) * 2).sum()
assert seen_by_hooks == [], "saved-tensor hooks, checkpoint's included, never see a wrapped Python number"
wrapped_out.backward()
assert len(wrapped_calls) == 1, "(x * 2).sum() is not called again in backward()"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Timeline: the _version of c and of bn.num_batches_tracked (row batches) at the start, after checkpoint() and after backward().
#
#    Both in-place edits, ``c.add_(1)`` and ``BatchNorm``'s update of ``num_batches_tracked``, move their
#    tensor's ``_version`` once in the forward pass and once more in ``backward()``. The row ``batches``
#    is ``bn.num_batches_tracked``.

draw_versions("_version", ["c", "batches"], timeline)
# sphinx_gallery_start_ignore
assert [v[1] for v in timeline] == [(0, 1), (1, 2), (2, 3)], "each edit moved the counter once per call"
# sphinx_gallery_end_ignore

# %%
# ``BatchNorm``'s running statistics are updated twice
# ----------------------------------------------------
#
# The same batch through a copy of the layer, without ``checkpoint``: the output and the gradient
# are the same, because a ``BatchNorm`` in train mode normalises with the batch's own statistics,
# both times. Its running statistics are not. With the default ``momentum=0.1``, one update moves
# ``running_mean`` from 0 to 0.1 of the batch mean; the checkpointed layer was updated twice with
# the same batch, and holds 1 - 0.9² = 0.19 of it. ``num_batches_tracked`` counts two batches.
# The ``use_reentrant=True`` variant does the same when an input requires grad; with none, it calls
# the function once, and its output requires no grad.

x_plain = x.detach().clone().requires_grad_()
y_plain = plain_bn(x_plain).relu()
y_plain.pow(2).sum().backward()
batch_mean = x.detach().mean(0)
print("batch mean:                 ", batch_mean)
print("running_mean, checkpointed: ", bn.running_mean)
print("running_mean, plain:        ", plain_bn.running_mean)
print("num_batches_tracked: checkpointed", bn.num_batches_tracked.item(), " plain", plain_bn.num_batches_tracked.item())
print("same output and gradient:", torch.allclose(y, y_plain) and torch.allclose(x.grad, x_plain.grad))
assert torch.allclose(bn.running_mean, 0.19 * batch_mean) and torch.allclose(plain_bn.running_mean, 0.1 * batch_mean), (
    "running_mean: 0.19 of the batch mean checkpointed, 0.1 plain"
)
# sphinx_gallery_start_ignore
assert torch.allclose(y, y_plain) and torch.allclose(x.grad, x_plain.grad), "same output and gradient"
assert plain_bn.num_batches_tracked.item() == 1, "the plain layer counts one batch"
batch_var = x.detach().var(0)
assert torch.allclose(bn.running_var, 0.81 + 0.19 * batch_var), "running_var is updated twice as well"
assert torch.allclose(plain_bn.running_var, 0.9 + 0.1 * batch_var), "the plain layer updates running_var once"
# sphinx_gallery_end_ignore

# %%
# An in-place edit inside the function
# ------------------------------------
#
# ``c.add_(1)`` above ran in both calls, so ``c`` reads 2 after one step. Not every edit runs twice:
# the second call stops as soon as it has saved again every tensor the first call saved, those
# ``backward()`` never reads included, but not a Python number an operation wrapped as a tensor
# (``early_stop=True``, the default). An edit placed after the function's last operation that saves
# such a tensor ran once, even one placed before a final ``* 2`` (the hidden check of this cell runs it).
# One placed before ``x.cos()``, whose result joins the output detached, ran twice, though ``backward()``
# never reads the tensor ``cos`` saved; so did every edit with ``early_stop=False``.


def edits(where, early_stop):
    counter = torch.zeros(())

    def fn(x):
        if where == "first":
            counter.add_(1)
        out = x.sin().exp()
        if where == "middle":
            counter.add_(1)
        out = out + x.cos().detach()  # cos saves x; backward() never reads it
        if where == "last":
            counter.add_(1)
        return out

    x = torch.randn(3, requires_grad=True)
    checkpoint(fn, x, use_reentrant=False, early_stop=early_stop).sum().backward()
    return counter.item()


runs = {(where, stop): edits(where, stop) for where in ("first", "middle", "last") for stop in (True, False)}
for (where, stop), count in runs.items():
    print(f"edit {where:<6}  early_stop={stop!s:<5}  edits per step: {count:.0f}")
assert runs == {
    ("first", True): 2, ("first", False): 2, ("middle", True): 2, ("middle", False): 2,
    ("last", True): 1, ("last", False): 2,
}, "only the edit after the last operation that saves a tensor runs once, with early_stop=True; every other runs twice"
# sphinx_gallery_start_ignore


def probe_wrapped_last(t, probe_log):
    probe_sin = t.sin()
    probe_log.append(t)
    return probe_sin * 2


for probe_stop in (True, False):
    probe_log = []
    probe_out = checkpoint(probe_wrapped_last, torch.arange(3.0, requires_grad=True), probe_log,
                           use_reentrant=False, early_stop=probe_stop)
    probe_out.sum().backward()
    assert len(probe_log) == (1 if probe_stop else 2), (
        f"early_stop={probe_stop}: an edit before a final * 2, after the last tensor saved, runs once only with early stop")
# sphinx_gallery_end_ignore

# %%
# An in-place edit of a positional input raises when the function runs again (``use_reentrant=False``)
# ----------------------------------------------------------------------------------------------------
#
# With ``use_reentrant=False``, ``checkpoint`` keeps the tensors passed to the function as positional
# arguments, with their versions, to call it again. Here the counter is passed as one: editing it in
# place inside the function moves its version counter past the one that was kept, and ``backward()``,
# which needs the tensor ``x.sin()`` saved, raises before the second call. The counter reads 1. A
# ``backward()`` that needs no tensor the function saved, as for an output ``x + 1`` or ``x * 2``, does not
# call it again and raises nothing (the hidden check of this cell runs both after the same edit). A tensor
# passed by keyword, or inside a list, is not kept that way: the same edit raises nothing and runs twice, and a
# function that reads such a tensor after editing it gets the second call's gradient, as in the next section (the
# hidden check of this cell runs both routes). With ``use_reentrant=True``, the same edit of a positional input raises
# nothing either, and runs twice (the hidden check runs it too).

counter = torch.zeros(())


def count_input(x, counter):
    counter.add_(1)
    return x.sin()


x = torch.randn(3, requires_grad=True)
y = checkpoint(count_input, x, counter, use_reentrant=False)
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a checkpointed function's input must break backward()")
print("counter:", counter.item())
assert message.startswith(
    "one of the variables needed for gradient computation has been modified by an inplace operation"
), "backward() raises the in-place error"
# sphinx_gallery_start_ignore
assert counter.item() == 1, "the second call never ran"
assert "is at version 1; expected version 0 instead" in message, "the edit moved the kept input's version"


def passed_by(route, read_after_edit):
    """(edits of the counter, x.grad is the second call's) for the counter passed by keyword or in a list."""
    route_counter, route_x = torch.zeros(()), torch.arange(3.0, requires_grad=True)

    def edit_then_read(t, box):
        held = box if route == "keyword" else box[0]
        route_sin = count_input(t, held)
        return route_sin * held if read_after_edit else route_sin

    if route == "keyword":
        route_out = checkpoint(lambda t, *, box: edit_then_read(t, box), route_x, box=route_counter, use_reentrant=False)
    else:
        route_out = checkpoint(edit_then_read, route_x, [route_counter], use_reentrant=False)
    route_out.sum().backward()
    second_call_factor = 2 if read_after_edit else 1
    return route_counter.item(), torch.allclose(route_out, route_x.sin()) and torch.allclose(
        route_x.grad, second_call_factor * route_x.detach().cos())


assert [passed_by(route, read) for route in ("keyword", "list") for read in (False, True)] == [(2, True)] * 4, (
    "a tensor passed by keyword or in a list: the edit raises nothing and runs twice, and a read after it gives the "
    "second call's gradient")
reentrant_counter = torch.zeros(())
reentrant_out = checkpoint(count_input, torch.arange(3.0, requires_grad=True), reentrant_counter, use_reentrant=True)
reentrant_out.sum().backward()
assert reentrant_counter.item() == 2, "use_reentrant=True: the edit of a positional input raises nothing and runs twice"


def needs_no_saved(operation):
    """(edits of the counter, x.grad) when the function edits its positional counter as count_input does, then
    returns operation(x), whose backward() needs no tensor the function saved (the x.sin() of count_input is left
    unused)."""
    unread_counter, unread_x = torch.zeros(()), torch.arange(3.0, requires_grad=True)

    def edit_then(t, box):
        count_input(t, box)
        return operation(t)

    unread_out = checkpoint(edit_then, unread_x, unread_counter, use_reentrant=False)
    unread_out.sum().backward()
    return unread_counter.item(), unread_x.grad.tolist()


assert [needs_no_saved(operation) for operation in (lambda t: t + 1, lambda t: t * 2)] == [
    (1, [1.0] * 3), (1, [2.0] * 3)], (
    "an edit of a positional input, then a backward() that needs no tensor the function saved: the function is not "
    "called again and nothing raises")
# sphinx_gallery_end_ignore

# %%
# When the second call computes something else
# --------------------------------------------
#
# ``scale`` is captured by the function and edited in place before it is used: the forward pass
# computes ``sin(2 * x)``, the second call ``sin(3 * x)``. ``backward()`` takes its tensors from
# the second call, so ``x.grad`` is the gradient of ``sin(3 * x)``, ``3 cos(3x)``, not the
# ``2 cos(2x)`` of the output the forward pass returned, and nothing raises. By default
# (``determinism_check="default"``) ``checkpoint`` compares the shapes, dtypes and devices of the
# recomputed tensors with the first call's, not their values: those saved by operations of the
# output's graph, not one saved by an operation whose result leaves the function only detached (the
# hidden checks of this cell and the next run both kinds).

scale = torch.ones(())


def scaled(x):
    scale.add_(1)
    return (x * scale).sin()


x = torch.randn(3, requires_grad=True)
y = checkpoint(scaled, x, use_reentrant=False)
y.sum().backward()
print("y equals sin(2x):", torch.allclose(y, (2 * x).sin()))
print("x.grad:  ", x.grad)
print("2 cos(2x):", 2 * (2 * x.detach()).cos())
print("3 cos(3x):", 3 * (3 * x.detach()).cos())
assert torch.allclose(x.grad, 3 * (3 * x.detach()).cos()) and not torch.allclose(x.grad, 2 * (2 * x.detach()).cos()), (
    "the gradient is the second call's, 3 cos(3x), not 2 cos(2x)"
)
# sphinx_gallery_start_ignore
assert torch.allclose(y, (2 * x).sin()), "the forward pass returned sin(2x)"
probe_in = torch.linspace(-1.0, 1.0, 3, requires_grad=True)
for probe_targets, probe_shown in (([torch.float64, torch.float32], "torch.float64"), (["meta", "cpu"], "type='meta'")):
    probe_y = checkpoint(lambda t, targets=probe_targets: t.to(targets.pop()).sin(), probe_in, use_reentrant=False)
    try:
        probe_y.sum().backward()
    except RuntimeError as e:
        assert "different metadata" in str(e) and probe_shown in str(e), f"a change to {probe_shown} is caught"
    else:
        raise AssertionError(f"a change to {probe_shown} in the second call must raise")


def probe_detached(t, targets):
    return t.exp(), t.to(targets.pop()).sin().detach()


for probe_targets, probe_change in (([torch.float64, torch.float32], "dtype"), (["meta", "cpu"], "device")):
    probe_y, probe_side = checkpoint(probe_detached, probe_in, probe_targets, use_reentrant=False)
    probe_y.sum().backward()
    assert probe_targets == [], f"a {probe_change} change in a tensor saved by sin, whose result leaves detached: no error"
# sphinx_gallery_end_ignore

# %%
# A change in the shape of a tensor that an operation of the output's graph saved is caught. A cache
# that grows by one entry at every call (a list of keys, as in attention with a key cache) gives the
# second call other shapes, those of such saved tensors among them, and ``backward()`` raises (below).
# A change that no such saved tensor shows is not caught: averaged by ``keys.mean(0)`` before use, the
# same cache leaves every saved tensor its shape, and ``backward()`` runs and gives the second call's
# gradient. Nor is one in keys saved only by ``keys.sin()``, whose result leaves the function detached:
# ``backward()`` runs, and the cache has grown twice (the hidden check of this cell runs both).

cache = []


def attend(q):
    cache.append(q)
    keys = torch.cat(cache)
    return (q @ keys.T).softmax(-1) @ keys


q = torch.randn(2, 4, requires_grad=True)
y = checkpoint(attend, q, use_reentrant=False)
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}:", *message.splitlines()[:4], sep="\n")
else:
    raise AssertionError("other shapes in the second call must raise")
print("entries in the cache:", len(cache))
assert message.startswith(
    "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during the forward pass."
), "backward() reports other metadata in the second call"
# sphinx_gallery_start_ignore
assert len(cache) == 2, "the second call appended again"
pooled_cache = []


def attend_pooled(q):
    pooled_cache.append(q.detach() + len(pooled_cache))
    pooled_keys = torch.cat(pooled_cache)
    return (q * pooled_keys.mean(0)).sin()


pooled_q = torch.tensor([[0.1, -0.2, 0.3, -0.4], [0.5, -0.6, 0.7, -0.8]], requires_grad=True)
pooled_y = checkpoint(attend_pooled, pooled_q, use_reentrant=False)
pooled_y.sum().backward()
second_keys = torch.cat(pooled_cache).mean(0)
assert len(pooled_cache) == 2 and torch.allclose(pooled_q.grad, (pooled_q * second_keys).detach().cos() * second_keys), (
    "a growing cache averaged before any saving op: no error, the second call's gradient")
detached_cache = []


def attend_detached(q):
    detached_cache.append(q)
    detached_keys = torch.cat(detached_cache)
    return q.exp() + detached_keys.sin().detach().sum()


detached_q = torch.tensor([[0.1, -0.2, 0.3, -0.4], [0.5, -0.6, 0.7, -0.8]], requires_grad=True)
detached_out = checkpoint(attend_detached, detached_q, use_reentrant=False)
detached_out.sum().backward()
assert len(detached_cache) == 2 and torch.allclose(detached_q.grad, detached_q.detach().exp()), (
    "a growing cache saved only by sin, whose result leaves detached: no error, and the cache grew twice")
# sphinx_gallery_end_ignore

# %%
# Not every tensor the function edits and then reads changes the gradient: the gradient of
# ``x.sin() + shift`` for ``x`` is ``cos(x)``, whatever ``shift`` holds. The edit of ``shift`` runs in
# both calls, and ``x.grad`` is still ``cos(x)``.

shift = torch.zeros(())


def shifted(x):
    shift.add_(1)
    return x.sin() + shift


x = torch.randn(3, requires_grad=True)
checkpoint(shifted, x, use_reentrant=False).sum().backward()
print("shift:", shift.item())
print("x.grad equals cos(x):", torch.allclose(x.grad, x.detach().cos()))
assert shift.item() == 2 and torch.allclose(x.grad, x.detach().cos()), "shift was edited twice; x.grad is cos(x)"

# %%
# Dropout gets the same mask twice
# --------------------------------
#
# Dropout draws a random mask. ``checkpoint`` saves the state of torch's default random number
# generator before the first call and restores it for the second (``preserve_rng_state=True``, the
# default), so both calls draw the same mask, and the gradient equals that of the same seeded run
# without ``checkpoint``. With ``preserve_rng_state=False`` the second call draws another mask, and
# the gradient is another. So it is, even with the default, when the function draws its mask from a
# ``torch.Generator`` of its own (``generator=g``): ``checkpoint`` does not restore that generator
# (the hidden check of this cell runs it).


def dropped(x):
    return torch.nn.functional.dropout(x.sin(), p=0.5, training=True)


x = torch.randn(4, 5, requires_grad=True)
grads = {}
for name in ("plain", "preserve_rng_state=True", "preserve_rng_state=False"):
    x.grad = None
    torch.manual_seed(1)
    if name == "plain":
        y = dropped(x)
    else:
        y = checkpoint(dropped, x, use_reentrant=False, preserve_rng_state=name.endswith("True"))
    y.sum().backward()
    grads[name] = x.grad
    print(f"{name:<25} gradient equals plain: {torch.equal(grads[name], grads['plain'])}")
assert torch.equal(grads["preserve_rng_state=True"], grads["plain"]), "preserve_rng_state=True gives the plain gradient"
assert not torch.equal(grads["preserve_rng_state=False"], grads["plain"]), (
    "preserve_rng_state=False gives another gradient"
)
# sphinx_gallery_start_ignore
own_generator = torch.Generator()


def own_masked(t):
    return t.sin() * (torch.rand(t.shape, generator=own_generator) > 0.5)


own_generator.manual_seed(1)
own_plain = torch.autograd.grad(own_masked(x).sum(), x)[0]
own_generator.manual_seed(1)
own_checkpointed = torch.autograd.grad(checkpoint(own_masked, x, use_reentrant=False).sum(), x)[0]
assert not torch.equal(own_checkpointed, own_plain), (
    "a mask drawn from the function's own torch.Generator differs in the second call: another gradient"
)
# sphinx_gallery_end_ignore

# %%
# Fixes, in a training loop
# -------------------------
#
# Four copies of one model (a block of two ``Linear`` layers, then ``BatchNorm``, then a head)
# train for three steps on the same batches. Each counts its batches in a tensor ``seen`` with
# ``seen.add_(1)``. ``plain`` does not checkpoint. ``inside`` checkpoints the block with
# ``BatchNorm`` and the count in the checkpointed function. ``outside`` checkpoints the block only,
# and counts and normalises outside it. ``momentum`` is ``inside`` with ``BatchNorm``'s momentum
# set so that two updates with one batch make one of the default momentum:
# 1 - (1 - 0.1) ** 0.5, about 0.0513.


def plain(block, bn, head, seen, x):
    seen.add_(1)
    return head(bn(block(x)))


def inside(block, bn, head, seen, x):
    def region(x):
        seen.add_(1)
        return bn(block(x))

    return head(checkpoint(region, x, use_reentrant=False))


def outside(block, bn, head, seen, x):
    seen.add_(1)
    h = checkpoint(block, x, use_reentrant=False)
    out = head(bn(h))
    return out


torch.manual_seed(0)
start = torch.nn.ModuleDict({
    "block": torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8)),
    "bn": torch.nn.BatchNorm1d(8),
    "head": torch.nn.Linear(8, 1),
})  # fmt: skip
batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(3)]
test_inputs = torch.randn(16, 4)
runs = {"plain": plain, "inside": inside, "outside": outside, "momentum": inside}
models, seen, predictions = {}, {}, {}
for name, forward in runs.items():
    model = copy.deepcopy(start)
    if name == "momentum":
        model.bn.momentum = 1 - (1 - 0.1) ** 0.5
    seen[name] = torch.zeros((), dtype=torch.long)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, target in batches:
        optimizer.zero_grad()
        loss = (forward(model.block, model.bn, model.head, seen[name], x) - target).pow(2).mean()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        predictions[name] = model.head(model.bn(model.block(test_inputs)))
    models[name] = model
    stats_match = torch.allclose(model.bn.running_mean, models["plain"].bn.running_mean, atol=1e-6)
    print(
        f"{name:<9} seen {seen[name].item()}  num_batches_tracked {model.bn.num_batches_tracked.item()}"
        f"  running_mean as plain: {stats_match!s:<5}  eval output as plain: "
        f"{torch.allclose(predictions[name], predictions['plain'], atol=1e-6)}"
    )
assert [seen[name].item() for name in runs] == [3, 6, 3, 6], (
    "plain and outside see three batches, inside and momentum six"
)

# %%
# The weights are the same in all four after three steps: in this loop, checkpointing did not change
# the gradients. In ``inside``, ``BatchNorm`` counted six batches, its running statistics moved
# further than in ``plain``, and the model in eval mode gives other outputs. ``outside`` matches ``plain`` in
# everything. ``momentum`` matches its running statistics and eval outputs, but still counts six
# batches, and ``seen`` counted six too: the momentum fixes ``BatchNorm``'s averages only.

weights_match = all(
    torch.allclose(p, q, atol=1e-6)
    for name in runs
    for p, q in zip(models[name].parameters(), models["plain"].parameters(), strict=True)
)
print("weights as plain in all four:", weights_match)
assert weights_match and models["outside"].bn.num_batches_tracked.item() == 3, (
    "all four train the same weights; outside counts three batches"
)
assert not torch.allclose(predictions["inside"], predictions["plain"], atol=1e-4), (
    "inside gives other eval outputs than plain"
)
# sphinx_gallery_start_ignore
for run, expect in (("outside", True), ("momentum", True), ("inside", False)):
    run_bn, plain_run_bn = models[run].bn, models["plain"].bn
    assert torch.allclose(run_bn.running_mean, plain_run_bn.running_mean, atol=1e-6) == expect, f"{run}: running_mean"
    assert torch.allclose(run_bn.running_var, plain_run_bn.running_var, atol=1e-6) == expect, f"{run}: running_var"
    assert torch.allclose(predictions[run], predictions["plain"], atol=1e-6) == expect, f"{run}: eval outputs"
inside_stats, plain_stats, start_stats = (models["inside"].bn, models["plain"].bn, start.bn)
for stat, inside_stat, plain_stat, start_stat in (
    ("running_mean", inside_stats.running_mean, plain_stats.running_mean, start_stats.running_mean),
    ("running_var", inside_stats.running_var, plain_stats.running_var, start_stats.running_var),
):
    assert bool(((inside_stat - start_stat).abs() > (plain_stat - start_stat).abs()).all()), (
        f"in every feature, inside's {stat} moved further from where it started than plain's")
assert models["inside"].bn.num_batches_tracked.item() == 6 and models["momentum"].bn.num_batches_tracked.item() == 6, (
    "inside and momentum both count six batches"
)
assert seen["momentum"].item() == 6, "the momentum does not change the count"
probe_x = torch.linspace(-3.0, 3.0, 128, requires_grad=True).reshape(16, 8)
for probe_m in (0.01, 0.1, 0.3, 0.5):
    probe_plain = torch.nn.BatchNorm1d(8, momentum=probe_m)
    probe_twice = torch.nn.BatchNorm1d(8, momentum=1 - (1 - probe_m) ** 0.5)
    probe_plain_out = probe_plain(probe_x)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_x, use_reentrant=False)
    probe_twice_out.sum().backward()
    assert probe_twice.num_batches_tracked.item() == 2, f"momentum {probe_m}: two updates"
    assert torch.allclose(probe_twice.running_mean, probe_plain.running_mean, atol=1e-6), f"momentum {probe_m}: mean"
    assert torch.allclose(probe_twice.running_var, probe_plain.running_var, atol=1e-6), f"momentum {probe_m}: var"
# the introduction: the same momentum checkpointed differs from plain for 0 < m < 1, and not for None (an average)
# or 1.0 (the last batch); num_batches_tracked doubles with every momentum
for probe_m in (0.01, 0.1, 0.5, 0.99, None, 1.0):
    probe_plain, probe_twice = torch.nn.BatchNorm1d(8, momentum=probe_m), torch.nn.BatchNorm1d(8, momentum=probe_m)
    probe_plain_out = probe_plain(probe_x)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_x, use_reentrant=False)
    probe_twice_out.sum().backward()
    probe_same = probe_m is None or probe_m == 1.0
    assert probe_twice.num_batches_tracked.item() == 2 * probe_plain.num_batches_tracked.item() == 2, f"momentum {probe_m}: num_batches_tracked doubles"
    assert torch.allclose(probe_twice.running_mean, probe_plain.running_mean) == probe_same, f"momentum {probe_m}: the same mean as plain"
    assert torch.allclose(probe_twice.running_var, probe_plain.running_var) == probe_same, f"momentum {probe_m}: the same var as plain"
    # a batch whose mean equals running_mean (0 before the step) in features 0 to 3 only: they alone stay equal
    probe_centred = (probe_x - probe_x.mean(0) * (torch.arange(8) < 4)).detach()
    probe_plain, probe_twice = torch.nn.BatchNorm1d(8, momentum=probe_m), torch.nn.BatchNorm1d(8, momentum=probe_m)
    probe_before = probe_twice.running_mean.clone()
    probe_plain_out = probe_plain(probe_centred)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_centred, use_reentrant=False)
    probe_twice_out.sum().backward()
    assert torch.equal(torch.isclose(probe_twice.running_mean, probe_plain.running_mean, atol=1e-6),
                       torch.isclose(probe_centred.mean(0), probe_before, atol=1e-6) | probe_same), (
        f"momentum {probe_m}: running_mean differs from plain where the batch mean differs from running_mean")
# momentum=None over three steps of different batches, each mean away from running_mean: after every step, the
# average of the batches each counted twice is the plain run's average, up to float rounding
probe_plain, probe_twice = torch.nn.BatchNorm1d(8, momentum=None), torch.nn.BatchNorm1d(8, momentum=None)
for probe_step in range(3):
    probe_batch = (probe_x * (probe_step + 1) + 2.0 * probe_step).detach()
    assert not torch.isclose(probe_batch.mean(0), probe_plain.running_mean).any(), f"step {probe_step}: a new mean"
    probe_plain_out = probe_plain(probe_batch)
    probe_plain_out.sum().backward()
    probe_twice_out = checkpoint(probe_twice, probe_batch, use_reentrant=False)
    probe_twice_out.sum().backward()
    assert probe_twice.num_batches_tracked.item() == 2 * probe_plain.num_batches_tracked.item() == 2 * probe_step + 2, (
        f"momentum None, step {probe_step}: num_batches_tracked doubles")
    assert torch.allclose(probe_twice.running_mean, probe_plain.running_mean), f"momentum None, step {probe_step}: mean"
    assert torch.allclose(probe_twice.running_var, probe_plain.running_var), f"momentum None, step {probe_step}: var"
# sphinx_gallery_end_ignore

# %%
# When a step does not call the function twice
# --------------------------------------------
#
# The second call comes from ``backward()``, and each backward pass that needs the tensors the
# function saved calls it once more. A step with two backward passes (``backward(retain_graph=True)``
# for a first loss, then ``backward()`` for a second) calls it three times; a forward pass under ``torch.no_grad()`` (a
# validation pass with the model left in train mode) calls it once. The momentum
# 1 - (1 - 0.1) ** 0.5, fitted to two updates with one batch, then leaves ``running_mean`` away from
# a plain layer's after one update with the default momentum: it holds only for one ``backward()`` a step.

fitted = 1 - (1 - 0.1) ** 0.5
torch.manual_seed(0)
batch = torch.randn(8, 3)
plain_layer = torch.nn.BatchNorm1d(3)
plain_layer(batch)


def fitted_layer(backward_passes):
    layer = torch.nn.BatchNorm1d(3, momentum=fitted)
    inputs = batch.clone().requires_grad_()
    with torch.set_grad_enabled(backward_passes > 0):
        out = checkpoint(layer, inputs, use_reentrant=False)
    for _ in range(backward_passes):
        out.pow(2).sum().backward(retain_graph=True)
    return layer


fitted_runs = {"forward under no_grad()": 0, "one backward()": 1, "two backward()": 2}
matches = {}
for name, backward_passes in fitted_runs.items():
    layer = fitted_layer(backward_passes)
    matches[name] = torch.allclose(layer.running_mean, plain_layer.running_mean, atol=1e-6)
    print(
        f"{name:<24} num_batches_tracked {layer.num_batches_tracked.item()}  running_mean as plain: {matches[name]}"
    )
assert list(matches.values()) == [False, True, False], "the fitted momentum matches plain only with one backward()"
# sphinx_gallery_start_ignore
assert [fitted_layer(n).num_batches_tracked.item() for n in fitted_runs.values()] == [1, 2, 3], (
    "under no_grad the function runs once, with one backward() twice, with two backward() three times"
)
probe_layer, probe_in = torch.nn.BatchNorm1d(3), torch.linspace(-2.0, 2.0, 24, requires_grad=True).reshape(8, 3)
probe_out = checkpoint(probe_layer, probe_in, use_reentrant=False)
torch.autograd.grad(probe_out.pow(2).sum(), probe_in, retain_graph=True)
probe_out.pow(2).sum().backward()
assert probe_layer.num_batches_tracked.item() == 3, "torch.autograd.grad is a backward pass too: three calls"
probe_frozen, probe_head = torch.nn.BatchNorm1d(3, affine=False), torch.nn.Linear(3, 1)
probe_frozen_loss = probe_head(checkpoint(probe_frozen, batch, use_reentrant=False)).sum()
probe_frozen_loss.backward()
assert probe_frozen.num_batches_tracked.item() == 1, "a backward() that does not reach the function: one call"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``checkpoint(fn, x, use_reentrant=False)`` calls ``fn`` once in the forward pass and, when
# ``backward()`` needs a tensor its operations saved (not a Python number one wrapped), once more in each backward
# pass, a call that may stop early. What ``fn`` does besides computing its output, up to where that call stops,
# happens again: in a step with one ``backward()``, ``BatchNorm`` updates its running statistics a second time with
# the same batch, and a counter edited in place counts twice. The gradients stay right as long as the second call
# computes what the first did: dropout gets its mask back (with the default ``preserve_rng_state=True``), but a
# tensor the function edits and then reads can give a silently different gradient. Keep ``BatchNorm`` and in-place
# bookkeeping outside the checkpointed function. If m is the numeric momentum you would use without checkpointing,
# setting ``BatchNorm``'s ``momentum`` to 1 - (1 - m) ** 0.5 corrects its running averages alone, not its
# ``num_batches_tracked``, and only in steps where exactly one ``backward()`` reaches the function: not with two
# backward passes, nor under ``torch.no_grad()``.
