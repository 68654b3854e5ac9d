"""
.. _questions-graph-kept-alive:

Memory keeps growing: ``total_loss += loss`` keeps every step's graph
=====================================================================

.. admonition:: Answer
   :class: answer

   A loss that has a ``grad_fn`` brings its whole graph along, so a running total of losses holds the graph of every step. Add a number, or a detached tensor:

   .. code-block:: python

      total_float += loss.item()
      total_detached += loss.detach()

If the memory of your loop keeps growing step after step (what readers report as a memory
leak, or on a GPU as running out of memory, OOM, after many steps), look at the line that sums the
loss for a report. Summing the loss of every step looks harmless, but a loss that still has a ``grad_fn``
brings its whole graph along: the running total keeps every step's autograd nodes, and, when no
``backward()`` ran on that loss (an evaluation loop outside ``torch.no_grad()``) or it ran with
``retain_graph=True``, the tensors those nodes saved as well. This page counts the autograd nodes
reachable from the total at each step (linear in the steps), checks which saved tensors the total
keeps alive with and without ``backward()``, shows that the graph this loop keeps cannot even
be used, and fixes the loop with
``loss.item()`` or ``loss.detach()``. The PyTorch FAQ warns about this pattern under
`"Don't accumulate history across your training loop"
<https://docs.pytorch.org/docs/stable/notes/faq.html>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``count_nodes`` walks the graph from a tensor's ``grad_fn`` through ``next_functions`` and counts
# each node once. ``train`` runs a few steps of a tiny training loop and hands each step's loss to
# ``record``, which keeps the running total the way the reader's loop does.

import torch


def count_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def train(record, steps=5):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    for _ in range(steps):
        x = torch.randn(3)
        loss = ((w * x) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        record(loss)
    return loss


# %%
# The pictures on this page are drawn from the live tensors by the helper functions below, with
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
# The symptom: the total grows a graph
# ------------------------------------
#
# ``total_loss += loss`` adds the loss as a tensor, inside the graph. After each step the total
# still reaches every earlier step's nodes: the count goes up by the same amount at every step, as
# many nodes as one loss graph holds, so it grows linearly with the number of steps.

total_loss = 0
nodes = []


def keep_tensor(loss):
    global total_loss
    total_loss += loss
    nodes.append(count_nodes(total_loss))


last_loss = train(keep_tensor)
print("nodes in one loss graph:", count_nodes(last_loss))
print("nodes reachable from total_loss after each step:", nodes)
print("total_loss:", total_loss)
growth = [after - before for before, after in zip(nodes[:-1], nodes[1:], strict=True)]
print("growth per step:", growth)
assert growth == [count_nodes(last_loss)] * 4, "the total must grow by one loss graph's node count per step"

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph reachable from total_loss after five steps: a chain of AddBackward0 nodes, each with a branch MeanBackward0, PowBackward0, MulBackward0, all branches ending at one AccumulateGrad and the leaf.
#
#    The graph reachable from ``total_loss`` after five steps: a chain of ``AddBackward0`` nodes, and
#    under it every step's loss graph.

draw_graph("total_loss after five steps", total_loss)
# sphinx_gallery_start_ignore
assert len(nodes) == 5, "five steps"
# sphinx_gallery_end_ignore

# %%
# That graph is of no use: each ``loss.backward()`` already freed the values it saved, so a
# backward through the total raises.

try:
    total_loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "backward through the graph a second time" in str(e), "the saved values were freed"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward through the kept graph must raise")

# %%
# Nodes always, saved tensors without ``backward()``
# --------------------------------------------------
#
# Each step's nodes hold the tensors saved for the backward pass: ``w * x`` saved ``x``, and
# ``** 2`` saved ``w * x``. ``backward()`` frees them, so in the training loop above the total
# keeps the nodes only. Where no ``backward()`` runs on the loss, as in an evaluation loop outside
# ``torch.no_grad()``, or where it runs with ``retain_graph=True``, the total keeps every step's
# saved tensors alive too. ``sum_losses`` runs the loop with ``+=``, with or without
# ``backward()``, and keeps a weak reference (``weakref.ref``) to each step's ``x`` and ``w * x``,
# which does not keep the tensor alive: it reads ``None`` once the tensor is freed.

import weakref


def sum_losses(backward, retain_graph=False, steps=5):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    total, saved = 0, []
    for _ in range(steps):
        x = torch.randn(3)
        wx = w * x
        loss = (wx**2).mean()
        if backward:
            loss.backward(retain_graph=retain_graph)
        total += loss
        saved += [weakref.ref(x), weakref.ref(wx)]
    return total, saved


trained, trained_saved = sum_losses(backward=True)
evaluated, evaluated_saved = sum_losses(backward=False)
runs = {"with backward()": (trained, trained_saved), "without backward()": (evaluated, evaluated_saved)}
for name, (total, saved) in runs.items():
    alive = sum(ref() is not None for ref in saved)
    print(f"{name}: nodes reachable:", count_nodes(total), " saved tensors alive:", alive, "of", len(saved))
assert count_nodes(trained) == count_nodes(evaluated) and all(ref() is None for ref in trained_saved) and all(
    ref() is not None for ref in evaluated_saved
), "the total keeps every step's nodes; their saved tensors only where no backward() ran"
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    retained_total, retained_saved = sum_losses(backward=True, retain_graph=True)
assert count_nodes(retained_total) == count_nodes(trained), "retain_graph=True keeps the same nodes"
assert all(ref() is not None for ref in retained_saved), "after backward(retain_graph=True) saved tensors stay alive"
# sphinx_gallery_end_ignore

# %%
# The fix: keep a number, or a tensor out of the graph
# ----------------------------------------------------
#
# ``loss.item()`` gives a Python float, so the total is a float. ``loss.detach()`` gives a tensor
# without ``grad_fn``, so the total reaches no node at all. Both totals match the one above.

total_float = 0.0
total_detached = torch.zeros(())


def keep_number(loss):
    global total_float, total_detached
    total_float += loss.item()
    total_detached += loss.detach()


train(keep_number)
print("total_float:", round(total_float, 4), type(total_float).__name__)
print("total_detached:", total_detached)
print("nodes reachable from total_detached:", count_nodes(total_detached))
assert count_nodes(total_detached) == 0 and isinstance(total_float, float), "the fixed totals must hold no graph"
# sphinx_gallery_start_ignore
assert torch.allclose(total_detached, total_loss.detach()), "the fixed total must equal the graph-carrying one"
assert abs(total_float - total_loss.item()) < 1e-5, "the float total must equal the graph-carrying one"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# A tensor with a ``grad_fn`` carries its graph wherever it goes. To log or sum a loss, take
# ``loss.item()`` (a number) or ``loss.detach()`` (a tensor out of the graph); the count of reachable
# nodes then stays at zero however long the loop runs. A total of tensors with a ``grad_fn`` keeps
# every step's nodes, and keeps their saved tensors too where no ``backward()`` ran on the loss (an
# evaluation loop outside ``torch.no_grad()``) or it ran with ``retain_graph=True``.
