"""
.. _questions-repeated-layers:

``[layer] * 3``: "all my layers have the same weights"
======================================================

.. admonition:: Answer
   :class: answer

   ``[layer] * 3`` is a list that holds one module three times, so the ``ModuleList`` or
   ``Sequential`` built from it has one set of parameters, trained by all three uses. Copy the
   layer once per item:

   .. code-block:: python

      layers = torch.nn.ModuleList([copy.deepcopy(layer) for _ in range(3)])

This page trains a stack made of one ``Linear`` layer three times, and shows what ``parameters()``,
``named_parameters()``, ``state_dict()``, the parameter count, ``print(model)`` and the optimizer
say about it. Then it trains the fix, and ends with the case where one layer used three times is
what you want.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares the addresses where two tensors' storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
# ``forward`` runs a
# stack of layers, each followed by ``tanh``; ``train`` takes five steps of SGD on it, fitting
# random targets, and returns its optimizer and the last loss.

import copy

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def forward(layers, x):
    for layer in layers:
        x = torch.tanh(layer(x))
    return x


def train(layers, steps=5):
    optimizer = torch.optim.SGD(layers.parameters(), lr=0.1)
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(forward(layers, inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return optimizer, loss


torch.manual_seed(0)
inputs, targets = torch.randn(8, 4), torch.randn(8, 4)

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
# Three layers of ``Linear(4, 4)``, built the short way, trained for five steps. The three layers
# come out with the same weights, and the model has the parameters of one layer: 20, not 60.

layers = torch.nn.ModuleList([torch.nn.Linear(4, 4)] * 3)
optimizer, loss = train(layers)
print("loss after 5 steps:", loss.item())
print("layers[0].weight equal to layers[2].weight:", torch.equal(layers[0].weight, layers[2].weight))
print("parameters:", sum(p.numel() for p in layers.parameters()))
assert torch.equal(layers[0].weight, layers[2].weight) and sum(p.numel() for p in layers.parameters()) == 20, (
    "layers 0 and 2 end with equal weights, 20 parameters in all"
)
# sphinx_gallery_start_ignore
assert torch.equal(layers[0].weight, layers[1].weight), "all three layers have the same weights"
assert all(torch.equal(a, b) for a, b in zip(layers[0].parameters(), layers[2].parameters(), strict=True)), (
    "layers 0 and 2 have equal parameters"
)
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names layers[0].weight, layers[1].weight, layers[2].weight and the optimizer's params[0] point to one tensor object on one storage S1.
#
#    ``layers[0].weight``, ``layers[1].weight``, ``layers[2].weight`` and the optimizer's first
#    parameter are one tensor object on one storage ``S1``.

draw_memory("ModuleList([Linear(4, 4)] * 3)", **{f"layers[{i}].weight": layers[i].weight for i in range(3)},
            **{"optimizer's params[0]": optimizer.param_groups[0]["params"][0]})  # fmt: skip
# sphinx_gallery_start_ignore
assert layers[0].weight is layers[1].weight is layers[2].weight, (
    "layers[0], layers[1] and layers[2] hold one weight object")
assert optimizer.param_groups[0]["params"][0] is layers[0].weight, "the optimizer holds that object"
# sphinx_gallery_end_ignore

# %%
# Why: ``*`` repeats the reference
# --------------------------------
#
# ``[m] * 3`` repeats the reference to ``m``, as it does for a list of tensors
# (:ref:`questions-containers`). ``nn.ModuleList`` and ``nn.Sequential`` keep the modules they are
# given, not copies: a plain list, a ``ModuleList`` and a ``Sequential`` built from ``[block] * 3``
# all hold the one ``block`` at all three places.

block = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
containers = {
    "list": [block] * 3,
    "ModuleList": torch.nn.ModuleList([block] * 3),
    "Sequential": torch.nn.Sequential(*[block] * 3),
}
for name, c in containers.items():
    print(f"{name:<10}", "c[0] is c[2]:", c[0] is c[2], " c[0] is block:", c[0] is block)
assert all(c[0] is block and c[1] is block and c[2] is block for c in containers.values()), (
    "a list, ModuleList and Sequential of [block] * 3 hold block itself thrice")

# %%
# ``parameters()`` and ``named_parameters()`` list it once
# --------------------------------------------------------
#
# Both skip a parameter they have listed already, as for :ref:`tied weights <questions-tied-weights>`:
# the stack lists one weight and one bias, under the first layer's names, and the optimizer built
# from ``parameters()`` holds those two tensors. ``named_parameters(remove_duplicate=False)`` lists
# all six names.

print("parameters():", len(list(layers.parameters())), "tensors")
print("named_parameters():", [name for name, _ in layers.named_parameters()])
print("remove_duplicate=False:", [name for name, _ in layers.named_parameters(remove_duplicate=False)])
print("optimizer holds:", len(optimizer.param_groups[0]["params"]), "tensors")
assert [name for name, _ in layers.named_parameters()] == ["0.weight", "0.bias"], (
    "named_parameters() lists the shared weight and bias once")
# sphinx_gallery_start_ignore
assert len(list(layers.parameters())) == 2 and len(optimizer.param_groups[0]["params"]) == 2, (
    "parameters() and the optimizer hold two tensors")
assert len(list(layers.named_parameters(remove_duplicate=False))) == 6, "six names without deduplication"
for kind in ("ModuleList", "Sequential"):
    assert len(list(containers[kind].parameters())) == 2, f"{kind} of [block] * 3 lists one block's parameters"
    assert [n for n, _ in containers[kind].named_parameters()] == ["0.0.weight", "0.0.bias"], f"{kind}: once"
    kind_optimizer = torch.optim.SGD(containers[kind].parameters(), lr=0.1)
    assert len(kind_optimizer.param_groups[0]["params"]) == 2, f"an optimizer of the {kind} holds two tensors"
    assert sum(p.numel() for p in containers[kind].parameters()) == 20, f"{kind}: one layer's count"
# sphinx_gallery_end_ignore

# %%
# One gradient from three uses
# ----------------------------
#
# In each step the weight's ``.grad`` is the sum of the gradients its three uses would get as three
# separate tensors (here ``uses``), and ``step()`` applies it to the one weight: all three
# "layers" move by the same update, because they are one.

layers.zero_grad()
torch.nn.functional.mse_loss(forward(layers, inputs), targets).backward()
uses = [layers[0].weight.detach().clone().requires_grad_() for _ in range(3)]
out = inputs
for w in uses:
    out = torch.tanh(torch.nn.functional.linear(out, w, layers[0].bias.detach()))
torch.nn.functional.mse_loss(out, targets).backward()
print("grad is the sum of the three uses:", torch.allclose(layers[0].weight.grad, sum(w.grad for w in uses)))
assert torch.allclose(layers[0].weight.grad, sum(w.grad for w in uses)), "one grad, the sum of three uses"
# sphinx_gallery_start_ignore
assert not torch.allclose(uses[0].grad, uses[2].grad), "the three uses' gradients differ"
seq_layer = copy.deepcopy(layers[0])
seq_uses = [torch.nn.Parameter(seq_layer.weight.detach().clone()) for _ in range(3)]
(seq_grad,) = torch.autograd.grad(torch.nn.Sequential(*[seq_layer] * 3)(inputs).sum(), [seq_layer.weight])
use_out = inputs
for seq_w in seq_uses:
    use_out = torch.nn.functional.linear(use_out, seq_w, seq_layer.bias.detach())
assert torch.allclose(seq_grad, sum(torch.autograd.grad(use_out.sum(), seq_uses))), "Sequential: sum of three uses"
# sphinx_gallery_end_ignore

# %%
# ``state_dict()`` repeats the keys
# ---------------------------------
#
# ``state_dict()`` does not skip: it writes the weight and the bias under every index, six keys.
# Its entries are not the ``Parameter`` itself, and not one object either: three tensor objects
# over the weight's one storage.

state = layers.state_dict()
print("keys:", list(state))
print("state['0.weight'] is state['2.weight']:", state["0.weight"] is state["2.weight"])
print("same storage:", same_storage(state["0.weight"], state["2.weight"]))
assert list(state) == [f"{i}.{p}" for i in range(3) for p in ("weight", "bias")], (
    "state_dict() repeats weight and bias under each index: six keys")
assert state["0.weight"] is not state["2.weight"] and same_storage(state["0.weight"], state["2.weight"]), (
    "two entries: two objects on one storage"
)
# sphinx_gallery_start_ignore
assert all(state[f"{i}.weight"] is not layers[0].weight for i in range(3)), "not the Parameter itself"
assert state["0.weight"] is not state["1.weight"] and same_storage(state["1.weight"], layers[0].weight), (
    "entry 1 is another object, on the weight's storage"
)
for kind in ("ModuleList", "Sequential"):
    keys = list(containers[kind].state_dict())
    assert keys == [f"{i}.0.{p}" for i in range(3) for p in ("weight", "bias")], f"{kind}: keys repeat"
    kind_state = containers[kind].state_dict()
    assert same_storage(kind_state["0.0.weight"], kind_state["2.0.weight"]), f"{kind}: over one storage"
assert state["1.weight"] is not state["2.weight"], "the state_dict entries 1.weight and 2.weight are two objects"
assert all(same_storage(state[f"{i}.weight"], layers[0].weight) and same_storage(state[f"{i}.bias"], layers[0].bias)
           for i in range(3)) and bytes_apart(state["0.weight"], state["0.bias"]), (
    "each repeated entry is on the storage of the parameter it names: the weight's entries on the weight's storage, "
    "the bias's on the bias's, two storages")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names state[0.weight], state[1.weight] and state[2.weight] point to three tensor objects, and layers[0].weight to a fourth, all on one storage S1.
#
#    The three entries of ``state_dict()`` for the weight are three tensor objects, and the weight is
#    a fourth, all on one storage ``S1``.

draw_memory("state = layers.state_dict()", **{f"state[{i}.weight]": state[f"{i}.weight"] for i in range(3)},
            **{"layers[0].weight": layers[0].weight})  # fmt: skip

# %%
# What shows it, and what does not
# --------------------------------
#
# ``print(layers)`` and ``len(layers)`` show three layers, exactly as for three separate ones:
# ``ModuleList`` prints ``(0-2): 3 x Linear(...)`` for both. The parameter count tells them apart,
# and so does ``layers[0] is layers[1]``.

separate = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
print(layers)
print("repr(layers) == repr(separate):", repr(layers) == repr(separate), " len:", len(layers), len(separate))
print("parameters:", sum(p.numel() for p in layers.parameters()), "vs", sum(p.numel() for p in separate.parameters()))
print("layers[0] is layers[1]:", layers[0] is layers[1], " separate[0] is separate[1]:", separate[0] is separate[1])
assert repr(layers) == repr(separate) and sum(p.numel() for p in separate.parameters()) == 60, (
    "both print the same; the separate layers hold 60 parameters"
)
# sphinx_gallery_start_ignore
assert len(layers) == len(separate) == 3, "len counts three layers either way"
assert all(repr(stack).splitlines()[1:] == ["  (0-2): 3 x Linear(in_features=4, out_features=4, bias=True)", ")"]
           for stack in (layers, separate)), "ModuleList prints (0-2): 3 x Linear(...) for both"
shared_seq, separate_seq = torch.nn.Sequential(*[layers[0]] * 3), torch.nn.Sequential(*separate)
assert repr(shared_seq) == repr(separate_seq), "Sequential prints both the same way too"
assert len(shared_seq) == len(containers["Sequential"]) == 3, "len of a Sequential counts three too"
assert separate[0] is not separate[1], "a comprehension makes separate layers"
# sphinx_gallery_end_ignore

# %%
# ``load_state_dict`` keeps one layer of three
# --------------------------------------------
#
# Loading a checkpoint of three separate layers into the shared stack reports every key matched:
# ``load_state_dict`` copies each entry into the one weight in turn, and the last one,
# ``2.weight``, stays. The other two layers' values are gone without an error.

result = layers.load_state_dict(separate.state_dict())
print("missing:", result.missing_keys, " unexpected:", result.unexpected_keys)
print("weight equal to separate[2].weight:", torch.equal(layers[0].weight, separate[2].weight))
print("weight equal to separate[0].weight:", torch.equal(layers[0].weight, separate[0].weight))
assert not result.missing_keys and not result.unexpected_keys and torch.equal(layers[0].weight, separate[2].weight), (
    "load_state_dict raises nothing and keeps separate[2]'s weight"
)
# sphinx_gallery_start_ignore
assert not torch.equal(layers[0].weight, separate[0].weight), "the first layer's values are lost"
assert not torch.equal(layers[0].weight, separate[1].weight), "the second layer's values are lost too"
assert bytes_apart(layers[0].weight, separate[2].weight), "load_state_dict copies the values"
# sphinx_gallery_end_ignore

# %%
# ``copy.deepcopy`` of the whole stack keeps the sharing
# ------------------------------------------------------
#
# ``copy.deepcopy(layers)`` copies each object once and reuses the copy where the object comes
# back (see :ref:`questions-deepcopy`): the copy has one layer of its own, at all three places.

whole = copy.deepcopy(layers)
print("whole[0] is whole[2]:", whole[0] is whole[2])
print("same storage (whole, layers):", same_storage(whole[0].weight, layers[0].weight))
assert whole[0] is whole[2] and bytes_apart(whole[0].weight, layers[0].weight), "one new layer, shared"

# %%
# The fix
# -------
#
# Copy the layer once per item, with ``copy.deepcopy(layer)`` inside the comprehension, or build a
# new layer per item. Deep copies start with the layer's values, in memory of their own; new layers
# start from new random values. Either way the stack has 60 parameters in six tensors. Trained for
# the same five steps, the deep copies, equal at the start, come out different.

torch.manual_seed(0)
layer = torch.nn.Linear(4, 4)
layers = torch.nn.ModuleList([copy.deepcopy(layer) for _ in range(3)])
fresh = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
print("before: layers[0].weight equal to layers[2].weight:", torch.equal(layers[0].weight, layers[2].weight))
print("same storage:", same_storage(layers[0].weight, layers[2].weight))
print("fresh[0].weight equal to fresh[2].weight:", torch.equal(fresh[0].weight, fresh[2].weight))
# sphinx_gallery_start_ignore
assert all(torch.equal(p, q) for copied in layers for p, q in zip(copied.parameters(), layer.parameters(), strict=True)), (
    "every deep copy starts with layer's weight and bias")
assert all(bytes_apart(p, q) for x, y in ((layer, layers[0]), (layer, layers[1]), (layer, layers[2]),
                                                (layers[0], layers[1]), (layers[0], layers[2]), (layers[1], layers[2]))
               for p in x.parameters() for q in y.parameters()), (
    "every deep copy's weight and bias have memory of their own")
assert all(not torch.equal(fresh[j].weight, fresh[k].weight) for j, k in ((0, 1), (0, 2), (1, 2))) and not any(
    torch.equal(new.weight, layer.weight) for new in fresh), "new layers start from new random values"
# sphinx_gallery_end_ignore
optimizer, loss = train(layers)
print("loss after 5 steps:", loss.item())
print("after: layers[0].weight equal to layers[2].weight:", torch.equal(layers[0].weight, layers[2].weight))
print("parameters:", sum(p.numel() for p in layers.parameters()), " optimizer holds:",
      len(optimizer.param_groups[0]["params"]), "tensors")  # fmt: skip
assert not torch.equal(layers[0].weight, layers[2].weight) and len(optimizer.param_groups[0]["params"]) == 6, (
    "after the fix the layers train apart; the optimizer holds six tensors"
)
# sphinx_gallery_start_ignore
assert bytes_apart(layers[0].weight, layers[2].weight), "deep copies have memory of their own"
assert all(not torch.equal(layers[j].weight, layers[k].weight) for j, k in ((0, 1), (0, 2), (1, 2))), (
    "every two deep copies come out different after training")
assert sum(p.numel() for p in layers.parameters()) == 60 and len(list(fresh.parameters())) == 6, (
    "the deep-copied stack has 60 parameters; the new layers six tensors")
assert sum(p.numel() for p in fresh.parameters()) == 60, "new layers: 60 too"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names layers[0].weight, layers[1].weight and layers[2].weight point to three tensor objects on three storages S1, S2 and S3.
#
#    After the fix, ``layers[0].weight``, ``layers[1].weight`` and ``layers[2].weight`` are three
#    tensor objects on three storages ``S1``, ``S2`` and ``S3``.

draw_memory("ModuleList([deepcopy(layer) for _ in range(3)])",
            **{f"layers[{i}].weight": layers[i].weight for i in range(3)})  # fmt: skip
# sphinx_gallery_start_ignore
assert bytes_apart(layers[0].weight, layers[1].weight) and bytes_apart(layers[1].weight, layers[2].weight), (
    "layers[1].weight shares no storage with layers[0].weight or layers[2].weight"
)
# sphinx_gallery_end_ignore

# %%
# When one layer three times is what you want
# -------------------------------------------
#
# Reusing one layer on purpose is a real design: a recurrent-style block applied several times, or
# weights shared across depth to save parameters. Then say so in the code: keep one layer and call
# it in a loop. It computes exactly what the ``[layer] * 3`` stack computes, with the same 20
# parameters, and no reader expects three layers.

looped = inputs
for _ in range(3):
    looped = torch.tanh(layer(looped))
print("same output as ModuleList([layer] * 3):", torch.equal(looped, forward(torch.nn.ModuleList([layer] * 3), inputs)))
print("parameters:", sum(p.numel() for p in layer.parameters()))
assert torch.equal(looped, forward(torch.nn.ModuleList([layer] * 3), inputs)), "the loop is the shared stack"
# sphinx_gallery_start_ignore
assert sum(p.numel() for p in layer.parameters()) == 20, "one Linear(4, 4) layer has 20 parameters"
assert sum(p.numel() for p in torch.nn.ModuleList([layer] * 3).parameters()) == 20, "the same as the stack's"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``[layer] * 3`` puts one module at three places, in a plain list, a ``ModuleList`` or a
# ``Sequential``. ``parameters()``, ``named_parameters()``, an optimizer built from ``parameters()``
# and the parameter count see one layer; ``state_dict()`` repeats its keys under every index, each
# entry on the storage of the parameter it names; ``print`` and ``len`` show three layers. On the
# ``ModuleList`` stack, ``load_state_dict`` keeps the last of three layers, and ``copy.deepcopy`` of
# the whole stack keeps the sharing. Copy per item,
# ``[copy.deepcopy(layer) for _ in range(3)]``, or build a new layer per item; where sharing is the
# design, call one layer in a loop.
