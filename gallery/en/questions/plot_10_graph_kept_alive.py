"""
.. _questions-graph-kept-alive:

Memory keeps growing: ``total_loss += loss`` keeps every step's graph
=====================================================================

.. admonition:: Answer
   :class: answer

   A loss or output that has a ``grad_fn`` brings its whole graph along, so a running total, or a list kept for logging, holds the graph of every step. Keep a number, or a detached tensor:

   .. code-block:: python

      total_float += loss.item()
      total_detached += loss.detach()

If the memory of your loop keeps growing step after step (what readers report as a memory
leak, on a GPU as a GPU memory leak, or as running out of memory, OOM, after many steps), look at the line that sums the
loss for a report. Summing the loss of every step looks harmless, but a loss that still has a ``grad_fn``
brings its whole graph along: the running total keeps every step's autograd nodes, and, when no
backward pass (``backward()`` or ``torch.autograd.grad``) ran on that loss (an evaluation loop outside
``torch.no_grad()``) or it ran with
``retain_graph=True`` (which ``create_graph=True`` sets by default), the tensors those nodes saved as well (after
``backward(inputs=...)`` or ``torch.autograd.grad``, those of the nodes they did not run: ``torch.autograd.grad``
runs only the nodes on the way to the tensors it is given, ``backward(inputs=...)`` those and the ``grad_fn`` of
each tensor named that is not a leaf). A list of losses or outputs kept for
logging does the same. This page counts the autograd nodes reachable from the total at each step
(linear in the steps), checks which saved tensors the total keeps alive with and without
``backward()``, shows that the graph this loop keeps cannot even be used, and fixes the loop with
``loss.item()`` or ``loss.detach()``. It then checks what a logging list keeps (graphs, saved
tensors, the outputs' storages), and when a loop without one frees a step's graph: ``backward()``,
``del loss``, and the next ``loss = ...``. The PyTorch FAQ warns about this pattern under
`"Don't accumulate history across your training loop"
<https://docs.pytorch.org/docs/stable/notes/faq.html>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``count_nodes`` walks the graph from the ``grad_fn`` of each value it is given through
# ``next_functions`` and counts each node once; a value without a ``grad_fn`` (a number, a detached
# tensor) adds none. ``train`` runs a few steps of a tiny training loop and hands each step's loss to
# ``record``, which keeps the running total the way the reader's loop does.

import warnings

import torch


def count_nodes(*values):
    seen, stack = set(), [getattr(v, "grad_fn", None) for v in values]
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
# The symptom: the total grows a graph
# ------------------------------------
#
# ``total_loss += loss`` adds the loss as a tensor, inside the graph. After each step the total
# still reaches every earlier step's nodes: the count goes up by the same amount at every step, one
# loss graph's nodes, less the ``AccumulateGrad`` nodes of the parameters, which every step shares,
# plus the ``AddBackward0`` of the sum (with the one parameter here, as many as one loss graph holds),
# so it grows linearly with the number of steps.

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
# sphinx_gallery_start_ignore
assert type(total_loss.grad_fn).__name__ == "AddBackward0", "each step's sum is an AddBackward0 node"
two_parameters = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
two_losses = [sum(((p * x) ** 2).mean() for p in two_parameters) for x in torch.arange(9.0).reshape(3, 3)]
two_totals = [count_nodes(sum(two_losses[:k])) for k in (1, 2, 3)]
assert two_totals[2] - two_totals[1] == two_totals[1] - two_totals[0] == (
    count_nodes(two_losses[0]) - len(two_parameters) + 1
), "with two parameters the total grows by a loss graph's nodes, less two AccumulateGrad nodes, plus one"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph reachable from total_loss after five steps: a chain of AddBackward0 nodes, each with a branch MeanBackward0, PowBackward0, MulBackward0, all branches ending at one AccumulateGrad and the leaf.
#
#    The graph reachable from ``total_loss`` after five steps: a chain of ``AddBackward0`` nodes, and
#    under it every step's loss graph.

draw_graph("total_loss after five steps", total_loss)
# sphinx_gallery_start_ignore
assert len(nodes) == 5, "train() ran five steps, logging total_loss's node count at each"
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
# Nodes always, saved tensors without a plain ``backward()``
# ----------------------------------------------------------
#
# Each step's nodes hold the tensors saved for the backward pass: ``w * x`` saved ``x``, and
# ``** 2`` saved ``w * x``. A plain ``backward()`` (no ``retain_graph=True``, ``create_graph=True``
# or ``inputs=``) frees them, as does ``torch.autograd.grad(loss, w)`` without the first two, so in the
# training loop above the total keeps the nodes only, with whatever they hold besides saved tensors:
# ``backward()`` does not release a tensor that a custom ``Function`` keeps as an attribute of ``ctx``.
# Where neither runs on the loss, as in an evaluation loop outside
# ``torch.no_grad()``, or where it runs with ``retain_graph=True`` (which ``create_graph=True``, building a
# graph of the gradient too, sets by default), the total keeps every step's saved tensors alive too; with
# ``inputs=``, it keeps those of the nodes ``backward()`` did not run. ``sum_losses`` runs the loop with ``+=``, with or without
# ``backward()``, and keeps a weak reference (``weakref.ref``) to each step's ``x`` and ``w * x``,
# which does not keep the tensor alive: it reads ``None`` once the tensor is freed. In the output,
# ``nodes reachable`` is the number of nodes reachable, ``saved tensors alive`` the number of saved tensors
# still alive. :fact:`ctx-attribute-outlives-backward`

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


def _graded_step(graded_w, graph_options):
    graded_x = torch.randn(3)
    graded_wx = graded_w * graded_x
    graded_loss = (graded_wx**2).mean()
    torch.autograd.grad(graded_loss, graded_w, **graph_options)
    return graded_loss, [weakref.ref(graded_x), weakref.ref(graded_wx)]


graded_options = ({}, {"retain_graph": True}, {"create_graph": True}, {"create_graph": True, "retain_graph": False})
for graph_options in graded_options:
    with torch.random.fork_rng():
        graded_w = torch.randn(3, requires_grad=True)
        graded = [_graded_step(graded_w, graph_options) for _ in range(5)]
    graded_kept = graph_options.get("retain_graph", graph_options.get("create_graph", False))
    assert count_nodes(sum(step[0] for step in graded)) == count_nodes(trained), "autograd.grad keeps the same nodes"
    assert all((ref() is not None) == graded_kept for step in graded for ref in step[1]), (
        "torch.autograd.grad frees the saved tensors unless its retain_graph (by default create_graph) is True")
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
# A list kept for logging holds every step's graph too
# ----------------------------------------------------
#
# ``losses.append(loss)`` to plot the losses later, or ``outputs.append(out)`` to look at the
# predictions, keeps every step's graph exactly as the running total does. ``log_steps`` trains a
# small ``nn.Linear`` model for five steps and appends ``keep(loss, out)`` to a list at each step. To
# see what stays alive afterwards it keeps two weak references a step: one to the output's storage,
# and one to a hook that ``node_ref`` registers on the output's ``grad_fn`` node
# (``torch.autograd.graph.Node.register_hook``): the node holds its hooks, so that reference reads
# ``None`` once the node is freed. When a reference still reads an object, ``count_alive`` calls
# ``gc.collect()`` and reads again, so that nothing a reference cycle might still hold is counted as
# alive (collecting frees objects, it never brings one back). In the output,
# ``nodes reachable after each step`` is the number of nodes reachable after each step, ``graphs alive``
# the number of graphs still alive, and ``output storages alive`` the number of outputs' storages still
# alive.

import gc


def node_ref(t):
    def on_backward(grad_inputs, grad_outputs):
        return None

    t.grad_fn.register_hook(on_backward)
    return weakref.ref(on_backward)


def count_alive(refs):
    if any(ref() is not None for ref in refs):
        gc.collect()
    return sum(ref() is not None for ref in refs)


def log_steps(keep, steps=5):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    logged, graphs, storages = [], [], []
    for _ in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 2)
        out = model(x)
        loss = torch.nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        logged.append(keep(loss, out))
        graphs.append(node_ref(out))
        storages.append(weakref.ref(out.untyped_storage()))
    return logged, graphs, storages


ways = {
    "losses.append(loss)": lambda loss, out: loss,
    "outputs.append(out)": lambda loss, out: out,
    "loss.item()": lambda loss, out: loss.item(),
    "loss.detach()": lambda loss, out: loss.detach(),
    "out.detach()": lambda loss, out: out.detach(),
    "out.detach().cpu()": lambda loss, out: out.detach().cpu(),
}
kept = {}
for name, keep in ways.items():
    logged, graphs, storages = log_steps(keep)
    nodes = [count_nodes(*logged[:step]) for step in range(1, 6)]
    kept[name] = nodes, count_alive(graphs), count_alive(storages)
    print(f"{name}: nodes reachable after each step:", nodes, " graphs alive:", kept[name][1], "of 5",
          " output storages alive:", kept[name][2], "of 5")  # fmt: skip
    # sphinx_gallery_start_ignore
    assert (nodes[-1] == 0) == all(getattr(v, "grad_fn", None) is None for v in logged), f"{name}: no grad_fn, no node"
    assert name != "loss.item()" or all(isinstance(v, float) for v in logged), "loss.item() logs Python floats"
    # sphinx_gallery_end_ignore
growing = [kept[name][0] for name in ("losses.append(loss)", "outputs.append(out)")]
assert all(n[1] > n[0] and len({b - a for a, b in zip(n[:-1], n[1:], strict=True)}) == 1 for n in growing) and all(
    kept[name][1] == 5 for name in ("losses.append(loss)", "outputs.append(out)")
), "a list of losses or of outputs keeps every step's graph, and grows by the same number of nodes each step"
assert all(kept[name][:2] == ([0] * 5, 0) for name in list(ways)[2:]), ".item() and .detach() keep no graph"
assert [kept[name][2] for name in ways] == [0, 5, 0, 0, 5, 5], "only the outputs and their detached tensors keep storages"
# sphinx_gallery_start_ignore
assert all(n[0] - (n[1] - n[0]) == 2 for n in growing), "the two parameters' AccumulateGrad nodes are counted once"
assert [n[1] - n[0] for n in growing] == [3, 2], "each step adds 3 nodes to the list of losses and 2 to the list of outputs"
# sphinx_gallery_end_ignore

# %%
# The list of losses and the list of outputs each grow by a fixed number of nodes at every step (3 for
# the losses, 2 for the outputs), one step's graph each time (the ``AccumulateGrad`` nodes of the
# parameters are shared by all steps, so only the first step counts them), and all five graphs are alive at the end. Logged with ``.item()``,
# ``.detach()`` or ``.detach().cpu()``, nothing reaches a node and no step's graph is alive. Each
# step's ``backward()`` freed the tensors its graph saved (as in the running total): the list of
# losses keeps none of the outputs' storages alive.
#
# ``out.detach().cpu()`` holds no graph, but on the CPU it is no copy: ``.cpu()`` on a tensor that is
# already on the CPU returns that very tensor, so the logged tensor is ``out.detach()``, on the
# output's storage, and the list keeps all five outputs' storages alive (the last column above). Even
# one row, ``out[0].detach().cpu()``, keeps the whole output's storage alive; a ``clone()`` of the row
# has a storage of its own, of the row's size. In the output, ``storage bytes`` is a storage's size in
# bytes.

torch.manual_seed(0)
out = torch.nn.Linear(4, 2)(torch.randn(8, 4))
detached = out.detach()
print("detached.cpu() is detached:", detached.cpu() is detached)
print("same storage:", detached.cpu().untyped_storage().data_ptr() == out.untyped_storage().data_ptr())
row, row_copy = out[0].detach().cpu(), out[0].detach().clone()
print("storage bytes: out", out.untyped_storage().nbytes(), " row", row.untyped_storage().nbytes(),
      " row_copy", row_copy.untyped_storage().nbytes())  # fmt: skip
assert detached.cpu() is detached and row.untyped_storage().data_ptr() == out.untyped_storage().data_ptr(), (
    "on the CPU, .cpu() returns the tensor itself: a logged row keeps the output's whole storage"
)
# sphinx_gallery_start_ignore
assert row.untyped_storage().nbytes() == out.untyped_storage().nbytes() == 16 * row.element_size(), (
    "a logged row keeps out's whole 16-element storage")
assert row_copy.untyped_storage().nbytes() == 2 * row.element_size(), "a clone of the row has storage of its own"
assert row_copy.untyped_storage().data_ptr() != out.untyped_storage().data_ptr(), "the clone is a copy"
assert all(d.cpu() is d for d in (row, out.detach(), torch.zeros(3, dtype=torch.int64))), ".cpu() on CPU is self"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    On a GPU, ``out.detach().cpu()`` is a copy into host memory: the logged tensor has a storage of
#    its own on the CPU and no ``grad_fn``, and once the step's output is gone no GPU storage of it
#    stays alive. See ``Tensor.cpu`` in the PyTorch documentation. The cell below checks this only
#    where torch finds a GPU; the box's title says whether the site's build did.

if torch.cuda.is_available():
    torch.manual_seed(0)
    gpu_out = torch.nn.Linear(4, 2).cuda()(torch.randn(8, 4, device="cuda"))
    on_host, gpu_storage = gpu_out.detach().cpu(), weakref.ref(gpu_out.untyped_storage())
    del gpu_out
    print("on_host device:", on_host.device, " grad_fn:", on_host.grad_fn)
    print("GPU storages alive:", count_alive([gpu_storage]))
    assert on_host.device.type == "cpu" and on_host.grad_fn is None and count_alive([gpu_storage]) == 0, (
        "on a GPU, .detach().cpu() is a host copy that keeps no GPU storage alive"
    )
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# When a step's graph is freed: ``backward()``, ``del loss`` and rebinding
# ------------------------------------------------------------------------
#
# Without a list or a total, a loop frees each step's graph by itself, in two stages. ``backward()``
# (with ``retain_graph`` false, its default unless ``create_graph=True``) at once releases the graph's hold on the
# tensors saved by the nodes it runs (all of them here; with ``inputs=``, the nodes on the way to the
# tensors named and, as torch documents for its current implementation, the ``grad_fn`` of each tensor named
# that is not a leaf; ``torch.autograd.grad`` runs only the nodes on the way to the tensors it is given),
# which frees them here, since nothing else holds ``x`` or ``w * x``; the nodes stay alive as long as
# something refers to them, here only the name ``loss``. ``del loss`` drops that reference, and then
# the nodes go too, at once. ``forward`` runs one step's forward pass and keeps weak references to its
# loss's node (through ``node_ref``) and to the two tensors the graph saves, ``x`` and ``w * x``;
# ``alive`` reads them without collecting garbage first (``count_alive`` collects), so what it finds freed was
# freed at once. In the output, ``node alive`` says whether the node is still alive, and ``saved tensors alive``
# is the number of saved tensors still alive.


def forward(w, watched):
    x = torch.randn(3)
    wx = w * x
    loss = (wx**2).mean()
    watched.append((node_ref(loss), weakref.ref(x), weakref.ref(wx)))
    return loss


def alive(refs):
    node, *saved = refs
    return node() is not None, sum(ref() is not None for ref in saved)


torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
watched = []
loss = forward(w, watched)
stages = {"after forward": alive(watched[0])}
loss.backward()
stages["after backward()"] = alive(watched[0])
del loss
stages["after del loss"] = alive(watched[0])
for stage, (node, saved) in stages.items():
    print(f"{stage}: node alive:", node, " saved tensors alive:", saved, "of 2")
assert list(stages.values()) == [(True, 2), (True, 0), (False, 0)], "backward() frees the saved tensors, del the nodes"
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    retained_w, retained = torch.randn(3, requires_grad=True), []
    retained_loss = forward(retained_w, retained)
    retained_loss.backward(retain_graph=True)
    assert alive(retained[0]) == (True, 2), "after backward(retain_graph=True) the saved tensors stay alive"
    del retained_loss
    assert alive(retained[0]) == (False, 0), "del frees a retained graph and its saved tensors"
    higher_w, higher = torch.randn(3, requires_grad=True), []
    higher_loss = forward(higher_w, higher)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
        higher_loss.backward(create_graph=True)
    assert alive(higher[0]) == (True, 2), "after backward(create_graph=True) the saved tensors stay alive"
    freed_loss = forward(torch.randn(3, requires_grad=True), [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
        freed_loss.backward(create_graph=True, retain_graph=False)
    try:
        freed_loss.grad_fn.next_functions[0][0]._saved_self
    except RuntimeError as e:
        assert "after they have already been freed" in str(e), (
            "backward(create_graph=True, retain_graph=False) releases the graph's hold on the saved tensors")
    else:
        raise AssertionError("backward(create_graph=True, retain_graph=False) must release the saved tensors")
branch_a, branch_b = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
saved_a, saved_b = torch.full((3,), 2.0), torch.full((3,), 3.0)
two_branches = (branch_a * saved_a).sum() + (branch_b * saved_b).sum()
branch_refs = [weakref.ref(saved_a), weakref.ref(saved_b)]
del saved_a, saved_b
two_branches.backward(inputs=[branch_a])
gc.collect()
assert [ref() is not None for ref in branch_refs] == [False, True], (
    "backward(inputs=[a]) frees what the nodes it ran saved, and keeps what the others saved"
)
grad_branch_a, grad_branch_b = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
grad_saved_a, grad_saved_b = torch.full((3,), 2.0), torch.full((3,), 3.0)
grad_branches = (grad_branch_a * grad_saved_a).sum() + (grad_branch_b * grad_saved_b).sum()
grad_refs = [weakref.ref(grad_saved_a), weakref.ref(grad_saved_b)]
del grad_saved_a, grad_saved_b
torch.autograd.grad(grad_branches, grad_branch_a)
gc.collect()
assert [ref() is not None for ref in grad_refs] == [False, True], (
    "torch.autograd.grad(loss, a) frees what the nodes it ran saved, and keeps what the others saved"
)


def _named_non_leaf(named_run):
    named_w, named_x = torch.ones(3, requires_grad=True), torch.full((3,), 2.0)
    named_wx = named_w * named_x
    named_loss = (named_wx**2).mean()
    named_refs = [weakref.ref(named_x), weakref.ref(named_wx)]
    named_run(named_loss, named_wx)
    del named_x, named_wx
    gc.collect()
    return named_loss, named_w.grad, [ref() is not None for ref in named_refs]


assert _named_non_leaf(lambda loss, wx: loss.backward(inputs=[wx]))[1:] == (None, [False, False]), (
    "backward(inputs=[w * x]) also runs the grad_fn of w * x, which frees the x it saved, and leaves w.grad alone"
)
assert _named_non_leaf(torch.autograd.grad)[1:] == (None, [True, False]), (
    "torch.autograd.grad(loss, w * x) does not run the grad_fn of w * x: the x it saved stays alive"
)
chain_w, chain_a, chain_b = torch.ones(3, requires_grad=True), torch.full((3,), 2.0), torch.full((3,), 3.0)
chain_h = chain_w * chain_a * chain_b
chain_loss = (chain_h**2).sum()
chain_refs = [weakref.ref(chain_a), weakref.ref(chain_b)]
del chain_a, chain_b
chain_loss.backward(inputs=[chain_h])
gc.collect()
assert [ref() is not None for ref in chain_refs] == [True, False], (
    "backward(inputs=[h]) runs h's own grad_fn only, not the nodes below it"
)
# sphinx_gallery_end_ignore

# %%
# A graph that holds a reference cycle is not freed at once: it waits for Python's garbage collector. A custom
# ``torch.autograd.Function`` that keeps its output on ``ctx`` makes one, since the output holds its node, ``ctx``,
# which holds the output. After ``backward()`` and ``del loss, out``, that node and the output are still alive
# when read without collecting garbage, and ``gc.collect()`` frees them.


class KeepsOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        out = t * 2
        ctx.out = out  # out -> its node, ctx -> out: a reference cycle
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


w = torch.ones(3, requires_grad=True)
out = KeepsOutput.apply(w)
loss = (out**2).sum()
out_refs = (node_ref(out), weakref.ref(out))
loss.backward()
del loss, out
node_kept = out_refs[0]() is not None
out_kept = out_refs[1]() is not None
print("after del loss, out: node alive:", node_kept, " out alive:", out_kept)
gc.collect()
print("after gc.collect(): node alive:", out_refs[0]() is not None, " out alive:", out_refs[1]() is not None)
assert node_kept and out_kept and out_refs[0]() is None and out_refs[1]() is None, (
    "a graph with a reference cycle outlives del loss, out until the garbage collector runs")

# %%
# In a loop, the name ``loss`` still holds the previous step's graph at the top of the next step,
# and the next ``loss = ...`` drops it when nothing else refers to it. Where ``backward()`` ran, that
# graph is nodes only; in an evaluation loop outside ``torch.no_grad()`` it holds its saved tensors
# through the whole next forward pass, so two steps' saved tensors are alive at once. ``del loss`` at
# the end of a step frees it before the next step starts, when no other name holds the step's graph
# (the next cell adds one). A list that keeps the loss keeps the graph
# whatever the loop does with the name. ``run_loop`` runs three steps and reads the previous step's
# graph (node alive, saved tensors alive) at the top of each step and right after its ``loss = ...``.
# In the output, ``at the top of the next step`` means at the start of the next step, and
# ``after loss = ...`` after that step's ``loss = ...``.


def run_loop(backward, end, steps=3):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    watched, losses, at_top, after_rebinding = [], [], [], []
    for _ in range(steps):
        if watched:
            at_top.append(alive(watched[-1]))
        loss = forward(w, watched)
        if len(watched) > 1:
            after_rebinding.append(alive(watched[-2]))
        if backward:
            loss.backward()
        if end == "del loss":
            del loss
        elif end == "losses.append(loss)":
            losses.append(loss)
    return at_top, after_rebinding


previous = {}
for backward in (True, False):
    for end in ("nothing", "del loss", "losses.append(loss)"):
        at_top, after_rebinding = run_loop(backward, end)
        previous[backward, end] = at_top[0], after_rebinding[0]
        print(f"backward()={backward}, end of step: {end}: at the top of the next step:", at_top[0],
              " after loss = ...:", after_rebinding[0])  # fmt: skip
        # sphinx_gallery_start_ignore
        assert at_top == at_top[:1] * 2 and after_rebinding == after_rebinding[:1] * 2, (
            f"run_loop, backward()={backward}, {end}: the previous graph looks the same at steps 2 and 3")
        # sphinx_gallery_end_ignore
assert all(previous[backward, end][1] == (False, 0) for backward in (True, False) for end in ("nothing", "del loss")), (
    "the next loss = ... frees the previous step's graph when nothing else refers to it"
)
assert [previous[backward, end][0] for backward in (True, False) for end in ("nothing", "del loss")] == [
    (True, 0), (False, 0), (True, 2), (False, 0)
], "until then the name keeps it, with its saved tensors where no backward() ran; del loss frees it at once"
assert all(previous[backward, "losses.append(loss)"] == ((True, n), (True, n)) for backward, n in ((True, 0), (False, 2))), (
    "a list that keeps the loss keeps its graph"
)

# %%
# A loop usually names the model's output too, ``out = model(x)``, and ``out.grad_fn`` is the
# model's part of the graph. ``del loss`` alone then leaves that part alive until ``out`` is rebound,
# with its saved tensors where no ``backward()`` ran; ``del loss, out`` frees it before the next
# step starts. ``forward_out`` returns ``out`` and ``loss`` and watches ``out``'s node and the two
# tensors that part of the graph saves, ``x`` and ``w * x``; ``run_loop_out`` is ``run_loop`` with
# both names.


def forward_out(w, watched):
    x = torch.randn(3)
    wx = w * x
    out = wx.sin()
    loss = (out**2).mean()
    watched.append((node_ref(out), weakref.ref(x), weakref.ref(wx)))
    return out, loss


def run_loop_out(backward, end, steps=3):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    watched, at_top, after_rebinding = [], [], []
    for _ in range(steps):
        if watched:
            at_top.append(alive(watched[-1]))
        out, loss = forward_out(w, watched)
        if len(watched) > 1:
            after_rebinding.append(alive(watched[-2]))
        if backward:
            loss.backward()
        if end == "del loss":
            del loss
        elif end == "del loss, out":
            del loss, out
    return at_top, after_rebinding


with_out = {}
for backward in (True, False):
    for end in ("del loss", "del loss, out"):
        at_top, after_rebinding = run_loop_out(backward, end)
        with_out[backward, end] = at_top[0]
        print(f"backward()={backward}, end of step: {end}: at the top of the next step:", at_top[0])
        # sphinx_gallery_start_ignore
        assert at_top == at_top[:1] * 2, (
            f"run_loop_out, backward()={backward}, {end}: the previous graph looks the same at steps 2 and 3")
        assert after_rebinding == [(False, 0)] * 2, "the next out, loss = ... frees the previous step's graph"
        # sphinx_gallery_end_ignore
assert [with_out[backward, end] for backward in (True, False) for end in ("del loss", "del loss, out")] == [
    (True, 0), (False, 0), (True, 2), (False, 0)
], "del loss alone leaves out's part of the graph alive, with its saved tensors where no backward() ran"

# %%
# With ``create_graph=True``, even with ``retain_graph=False``, the gradient carries a graph of its own, and
# that graph can keep some of the step's tensors and nodes alive after ``del loss``: here the saved ``x`` and
# ``w * x``, and with ``w * x`` its node. ``backward()`` leaves that graph in ``w.grad`` until ``w.grad`` is set
# to ``None`` or detached: ``optimizer.zero_grad()`` does the first by default and the second with
# ``set_to_none=False`` (next cell), while ``w.grad.zero_()`` alone keeps it; the result of
# ``torch.autograd.grad`` keeps it as long as that result lives.

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
watched = []
loss = forward(w, watched)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
    loss.backward(create_graph=True, retain_graph=False)
del loss
kept_by_grad = alive(watched[0])
# sphinx_gallery_start_ignore
assert watched[0][2]().grad_fn is not None, "w * x, kept alive by the graph in w.grad, keeps its node"
# sphinx_gallery_end_ignore
print("w.grad requires grad:", w.grad.requires_grad)
print("after del loss: node alive:", kept_by_grad[0], " saved tensors alive:", kept_by_grad[1], "of 2")
optimizer = torch.optim.SGD([w], lr=0.1)
optimizer.zero_grad()
print("after optimizer.zero_grad(): w.grad:", w.grad, " saved tensors alive:", alive(watched[0])[1], "of 2")
assert kept_by_grad == (False, 2) and w.grad is None and alive(watched[0]) == (False, 0), (
    "the graph in w.grad keeps the step's saved tensors after del loss, until zero_grad() sets w.grad to None")
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    returned_w, returned_watched = torch.randn(3, requires_grad=True), []
    returned_loss = forward(returned_w, returned_watched)
    returned_grad = torch.autograd.grad(returned_loss, returned_w, create_graph=True, retain_graph=False)
    del returned_loss
    assert returned_grad[0].requires_grad and alive(returned_watched[0]) == (False, 2), (
        "the gradient torch.autograd.grad(create_graph=True) returns keeps the step's saved tensors after del loss")
    del returned_grad
    assert alive(returned_watched[0]) == (False, 0), "dropping that gradient frees them"
# sphinx_gallery_end_ignore

# %%
# With ``set_to_none=False``, ``zero_grad()`` detaches ``w.grad`` in place and zeroes it: that releases the
# graph, as ``w.grad.detach_()`` does. ``w.grad.zero_()`` alone zeroes the values but keeps the graph, and with
# it the step's saved tensors.


def release_after_create_graph(release):
    """One step's backward(create_graph=True, retain_graph=False) and del loss, then ``release(w)``:
    (w.grad, the number of the step's saved tensors still alive)."""
    torch.manual_seed(0)
    w, watched = torch.randn(3, requires_grad=True), []
    loss = forward(w, watched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
        loss.backward(create_graph=True, retain_graph=False)
    del loss
    release(w)
    return w.grad, alive(watched[0])[1]


releases = {
    "optimizer.zero_grad(set_to_none=False)": lambda w: torch.optim.SGD([w], lr=0.1).zero_grad(set_to_none=False),
    "w.grad.detach_()": lambda w: w.grad.detach_(),
    "w.grad.zero_()": lambda w: w.grad.zero_(),
}
released = {}
for name, release in releases.items():
    grad, saved_alive = release_after_create_graph(release)
    released[name] = (grad.requires_grad, bool(grad.any()), saved_alive)
    print(f"after {name}: w.grad:", grad, " saved tensors alive:", saved_alive, "of 2")
assert released == {"optimizer.zero_grad(set_to_none=False)": (False, False, 0), "w.grad.detach_()": (False, True, 0),
                    "w.grad.zero_()": (True, False, 2)}, (
    "zero_grad(set_to_none=False) detaches and zeroes w.grad, detach_() releases its graph too, zero_() alone keeps it")

# %%
# Conclusion
# ----------
#
# A tensor with a ``grad_fn`` carries its graph wherever it goes. To log or sum a loss, take
# ``loss.item()`` (a number) or ``loss.detach()`` (a tensor out of the graph); the count of reachable
# nodes then stays at zero however long the loop runs. A total of tensors with a ``grad_fn``, or a
# list of them, keeps every step's nodes, and keeps their saved tensors too where no backward pass
# (``backward()`` or ``torch.autograd.grad``) ran on the loss (an evaluation loop outside ``torch.no_grad()``) or it ran with
# ``retain_graph=True``, which ``create_graph=True`` sets by default (after ``backward(inputs=...)`` or
# ``torch.autograd.grad``, those of the nodes they did not run: ``torch.autograd.grad`` runs only the nodes on the way
# to the tensors it is given, ``backward(inputs=...)`` those and the ``grad_fn`` of each tensor named that is not a
# leaf).
# ``out.detach().cpu()`` keeps no graph, but on the CPU it is a tensor on the
# output's own storage, which the list keeps alive. Without such a list, a ``backward()`` or
# ``torch.autograd.grad`` with ``retain_graph`` false (its default unless ``create_graph=True``) releases the
# graph's hold on the tensors saved by the nodes it runs, and ``del loss`` (with ``out`` and any other name for
# the step's tensors) or the next ``out, loss = ...`` frees its nodes, at once unless the graph holds a reference
# cycle, as one does when a custom ``autograd.Function`` keeps its output on ``ctx``: such a graph waits for Python's
# garbage collector. With ``create_graph=True``, even with
# ``retain_graph=False``, the gradient's own graph can keep some of the step's saved tensors and nodes alive after
# ``del loss``: in ``.grad`` until it is set to ``None`` or detached (as ``optimizer.zero_grad()`` does, with either
# ``set_to_none`` setting; ``.grad.zero_()`` alone keeps it), or in what ``torch.autograd.grad`` returns.
