"""
.. _questions-optimizer-state:

Optimizer state: "my weights stopped updating"
==============================================

.. admonition:: Answer
   :class: answer

   An optimizer keeps the tensors it was given: after ``model.weight = nn.Parameter(...)`` it still holds the
   old one, and its ``state_dict()`` holds its live state. Copy new values into the existing tensors, and
   snapshot with ``copy.deepcopy``:

   .. code-block:: python

      model.load_state_dict(new_state)
      best_optimizer = copy.deepcopy(optimizer.state_dict())
      optimizer.load_state_dict(copy.deepcopy(best_optimizer))

This page replaces a weight in a small training loop and watches the loss stop moving, then follows
the optimizer's momentum through ``state_dict()``, a restore of the best weights without it, and a
restore with it, checked against the steps training took the first time.
"""

# %%
# Helpers
# -------
#
# A linear model without bias learns ``y = 2 x0 - x1`` from four rows. ``train`` runs SGD steps
# and returns the loss before each step. ``same_storage`` compares the addresses where two tensors'
# storages start.
#
# ``bytes_apart`` tells whether two tensors' storages do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

import copy

import torch

x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [-2.0, 1.0]])
y = x @ torch.tensor([[2.0], [-1.0]])


def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def train(model, optimizer, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


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
# Three steps of SGD with momentum lower the loss. Then we put a new ``nn.Parameter`` in place of
# the weight, as code that re-initialises or loads a layer by assignment does, and train on: the
# loss no longer moves, and the new weight never changes.

torch.manual_seed(0)
model = torch.nn.Linear(2, 1, bias=False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
first_losses = train(model, optimizer, 3)
print("losses:", first_losses)
old_weight = model.weight
old_values = old_weight.detach().clone()
# sphinx_gallery_start_ignore
assert first_losses[0] > first_losses[1] > first_losses[2] > (model(x) - y).pow(2).mean().item(), (
    "three steps of SGD with momentum lower the loss, each step below the one before")
old_momentum = optimizer.state[old_weight]["momentum_buffer"].clone()
assert old_weight.grad is not None, "before the swap the old weight holds the last step's gradient"
# sphinx_gallery_end_ignore
model.weight = torch.nn.Parameter(torch.zeros(1, 2))
losses = train(model, optimizer, 3)
print("losses after the swap:", losses)
print("model.weight:", model.weight)
print("model.weight.grad:", model.weight.grad)
assert len(set(losses)) == 1 and torch.equal(model.weight, torch.zeros(1, 2)), "the loss and weight stand still"
# sphinx_gallery_start_ignore
assert model.weight.grad is not None and old_weight.grad is None, "the new weight has a gradient, the old none"
assert torch.equal(old_weight, old_values), "step() left the old weight, which had no gradient, as it was"
# sphinx_gallery_end_ignore

# %%
# Why: the optimizer holds the old tensor
# ---------------------------------------
#
# ``param_groups`` lists the tensors the optimizer was built with. The new parameter is not among
# them, so ``step()`` never touches it, and ``zero_grad()`` never clears its gradient: the
# ``model.weight.grad`` printed above is the sum of the three steps' gradients, computed and never
# used. The old weight is still in ``param_groups``, but it is no longer in the model's graph, so it gets
# no gradient: ``zero_grad()``, with its default ``set_to_none=True``, set its ``.grad`` to ``None``,
# and ``step()`` skips it.

held = optimizer.param_groups[0]["params"][0]
print("held is old_weight:", held is old_weight)
print("held is model.weight:", held is model.weight)
print("old_weight.grad:", old_weight.grad)
assert held is old_weight and held is not model.weight, "the optimizer still holds the old tensor"
# sphinx_gallery_start_ignore
assert old_weight.grad is None, "zero_grad() with its default set_to_none=True set the old weight's .grad to None"
assert torch.allclose(model.weight.grad, 3 * torch.func.grad(lambda w: (x @ w.t() - y).pow(2).mean())(torch.zeros(1, 2))), (
    "the new weight's gradient is three steps' gradients summed"
)
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: model.weight points to the new tensor object on storage S1; the optimizer's params[0] and old_weight point to the old tensor object on storage S2, and the momentum buffer is on a storage of its own, S3.
#
#    The model's ``weight`` is the new ``Parameter``, on ``S1``. The optimizer's ``params[0]`` is still
#    ``old_weight``, on ``S2``, with its momentum on ``S3``: the optimizer holds only these two, and as
#    ``old_weight`` gets no gradient, ``step()`` leaves both as they were.

momentum = optimizer.state[old_weight]["momentum_buffer"]
draw_memory("model.weight = nn.Parameter(...)", **{"model.weight": model.weight, "optimizer's params[0]": held},
            old_weight=old_weight, **{"optimizer's momentum": momentum})  # fmt: skip
# sphinx_gallery_start_ignore
assert bytes_apart(held, model.weight) and bytes_apart(momentum, held), (
    "the optimizer's old weight shares no storage with model.weight or the momentum")
assert model.weight not in optimizer.state, "the optimizer keeps no state for the new weight"
assert len(optimizer.param_groups) == 1 and len(optimizer.param_groups[0]["params"]) == 1, "one parameter: old_weight"
assert len(optimizer.state) == 1 and list(optimizer.state[old_weight]) == ["momentum_buffer"], (
    "the optimizer's only state is old_weight's momentum")
assert torch.equal(momentum, old_momentum) and torch.equal(old_weight, old_values), (
    "step() left old_weight and its momentum as they were")
# sphinx_gallery_end_ignore

# %%
# The fix: copy into the existing parameter
# -----------------------------------------
#
# ``model.load_state_dict`` copies the new values into the tensors the model already has: the
# weight stays the same object, the one the optimizer holds, and training goes on. That is with the
# default ``assign=False``, from a dict that carries no flag of a load with ``assign=True`` (such a
# load leaves its flag in a dict that carries ``_metadata``, such as one that ``state_dict()`` returned,
# and a ``deepcopy`` or a saved copy of that dict keeps it; a plain dict gets no flag:
# :ref:`questions-checkpoints`); with ``assign=True`` the model
# takes the dict's tensors as new
# ``Parameter`` objects, the optimizer made before goes on stepping the old ones, and the loss
# freezes as in the symptom above.

torch.manual_seed(0)
model = torch.nn.Linear(2, 1, bias=False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train(model, optimizer, 3)
weight = model.weight
new_state = {"weight": torch.zeros(1, 2)}
model.load_state_dict(new_state)
losses = train(model, optimizer, 3)
print("losses after loading:", losses)
print("model.weight is weight:", model.weight is weight)
print("model.weight:", model.weight)
assert model.weight is weight and losses[-1] < losses[0], "same object, and the loss goes down again"
# sphinx_gallery_start_ignore
assert bytes_apart(model.weight, new_state["weight"]), "load_state_dict copies the values"
assert torch.equal(new_state["weight"], torch.zeros(1, 2)), "training did not write into new_state"
# sphinx_gallery_end_ignore

assigned = torch.nn.Linear(2, 1, bias=False)
assigned_optimizer = torch.optim.SGD(assigned.parameters(), lr=0.01, momentum=0.9)
old_weight = assigned.weight
assigned.load_state_dict({"weight": torch.zeros(1, 2)}, assign=True)
frozen = train(assigned, assigned_optimizer, 3)
print("assign=True, assigned.weight is old_weight:", assigned.weight is old_weight)
print("assign=True, losses:", frozen)
assert assigned.weight is not old_weight and len(set(frozen)) == 1, "assign=True: the optimizer steps the old weight"
# sphinx_gallery_start_ignore
flagged_state = torch.nn.Linear(2, 1, bias=False).state_dict()
plain_state = {"weight": torch.zeros(1, 2)}
flag_loaders = [torch.nn.Linear(2, 1, bias=False) for _ in range(2)]
flag_loaders[0].load_state_dict(flagged_state, assign=True)
flag_loaders[1].load_state_dict(plain_state, assign=True)
flag_models = [torch.nn.Linear(2, 1, bias=False) for _ in range(2)]
flag_weights = [flag_model.weight for flag_model in flag_models]
flag_models[0].load_state_dict(flagged_state)
flag_models[1].load_state_dict(plain_state)
assert hasattr(flagged_state, "_metadata") and flag_models[0].weight is not flag_weights[0], (
    "a state_dict() loaded with assign=True keeps the flag: a later load without it assigns")
assert not hasattr(plain_state, "_metadata") and flag_models[1].weight is flag_weights[1], (
    "a plain dict loaded with assign=True keeps no flag: a later load without it copies")
# sphinx_gallery_end_ignore

# %%
# ``optimizer.state_dict()`` follows training
# -------------------------------------------
#
# The momentum SGD keeps for each parameter is a tensor it edits in place at every step.
# ``optimizer.state_dict()`` returns a new outer dict, but the dict it holds for each parameter (the
# parameters are named by their index, ``0``) is the optimizer's own, and so are the tensors in it. A
# dict saved this way changes with the next step.

saved = optimizer.state_dict()
momentum = saved["state"][0]["momentum_buffer"]
before = momentum.clone()
train(model, optimizer, 1)
print("momentum before the step:", before)
print("saved momentum after it: ", momentum)
print("is the optimizer's own:", momentum is optimizer.state[model.weight]["momentum_buffer"])
assert momentum is optimizer.state[model.weight]["momentum_buffer"] and not torch.equal(momentum, before), (
    "the saved momentum is the optimizer's own tensor, and the step changed it"
)
# sphinx_gallery_start_ignore
assert saved["state"] is not optimizer.state and saved["state"][0] is optimizer.state[model.weight], (
    "state_dict() returns a new outer dict, but the dict for each parameter is the optimizer's own")
adam_weight = torch.zeros(1, 2, requires_grad=True)
adam = torch.optim.Adam([adam_weight], lr=0.1)
train(lambda inputs: inputs @ adam_weight.T, adam, 2)
adam_state = adam.state_dict()["state"][0]
assert sorted(adam_state) == ["exp_avg", "exp_avg_sq", "step"], "Adam keeps three state tensors"
assert adam_state is adam.state[adam_weight], "Adam's state_dict() must hold its own dict for each parameter"
for key, state_tensor in adam.state[adam_weight].items():
    assert adam_state[key] is state_tensor, f"Adam's state_dict() must return its own {key} tensor"
# sphinx_gallery_end_ignore

# %%
# Restoring the best weights without the optimizer
# ------------------------------------------------
#
# We train three steps, keep the weights and the optimizer with ``copy.deepcopy``, then train three
# more steps: the losses of those steps are what training does from the best point. Restoring only
# the weights does not repeat them: the momentum of the later steps pushes the first step elsewhere.

torch.manual_seed(0)
model = torch.nn.Linear(2, 1, bias=False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train(model, optimizer, 3)
best_model = copy.deepcopy(model.state_dict())
best_optimizer = copy.deepcopy(optimizer.state_dict())
first_time = train(model, optimizer, 3)
model.load_state_dict(best_model)
weights_only = train(model, optimizer, 3)
print("from the best point, first time:", first_time)
print("weights restored, momentum not: ", weights_only)
assert weights_only != first_time, "without the optimizer's state, training takes other steps"

# %%
# Restoring both
# --------------
#
# Loading the optimizer's snapshot as well repeats the first run step for step.

model.load_state_dict(best_model)
optimizer.load_state_dict(copy.deepcopy(best_optimizer))
# sphinx_gallery_start_ignore
assert bytes_apart(
    optimizer.state[model.weight]["momentum_buffer"], best_optimizer["state"][0]["momentum_buffer"]
), "the loaded momentum does not share best_optimizer's memory"
# sphinx_gallery_end_ignore
both = train(model, optimizer, 3)
print("weights and optimizer restored:", both)
assert both == first_time, "restoring both repeats the steps training took from the best point"

# %%
# ``optimizer.load_state_dict`` takes the snapshot's tensors
# ----------------------------------------------------------
#
# The module's ``load_state_dict`` copies into the tensors it has; the optimizer's does not: here,
# where the snapshot already has the parameter's dtype and device, the optimizer takes the
# snapshot's momentum tensor itself and goes on editing it. A snapshot loaded without a copy is
# changed by the next steps, and a second restore from it no longer gives the first run's steps: it
# gives the steps of the weights-only restore, because the snapshot now holds the momentum that the
# first restore's last step left in it.
# This is why the answer above loads ``copy.deepcopy(best_optimizer)``.

model.load_state_dict(best_model)
optimizer.load_state_dict(best_optimizer)
taken = optimizer.state[model.weight]["momentum_buffer"]
print("takes the snapshot's tensor:", taken is best_optimizer["state"][0]["momentum_buffer"])
assert taken is best_optimizer["state"][0]["momentum_buffer"], "load_state_dict took the snapshot's tensor itself"
print("first restore: ", train(model, optimizer, 3))
model.load_state_dict(best_model)
optimizer.load_state_dict(best_optimizer)
again = train(model, optimizer, 3)
print("second restore:", again)
assert again == weights_only != first_time, "the snapshot loaded without a copy was edited by training"

# %%
# ``param_groups`` holds the dicts you passed
# -------------------------------------------
#
# Until the optimizer loads a state dict, a parameter group given as a dict is kept as that very
# dict: the optimizer fills its defaults into it, and a learning rate set later (by a scheduler, or by
# hand) is written into it. Two optimizers built from one dict share it, so a learning rate set
# through one is the other's too. The second one's own arguments do not apply to the keys the first
# filled in: after ``SGD([g], lr=0.1)``, ``SGD([g], lr=0.5, momentum=0.9)`` steps with learning rate 0.1
# and no momentum. ``optimizer.load_state_dict`` (the restores above, the dtype reload
# below) puts copies of the saved groups in place of the dicts: a learning rate set through the dict
# you passed no longer reaches that optimizer, so after a load set it through
# ``optimizer.param_groups``.

group = {"params": [torch.nn.Parameter(torch.ones(2))], "lr": 0.1}
first = torch.optim.SGD([group])
second = torch.optim.SGD([group])
print("first.param_groups[0] is group:", first.param_groups[0] is group,
      " second.param_groups[0] is group:", second.param_groups[0] is group)  # fmt: skip
print("keys the optimizer added to group:", sorted(set(group) - {"params", "lr"}))
first.param_groups[0]["lr"] = 0.01
print("second's lr after setting first's:", second.param_groups[0]["lr"])
assert first.param_groups[0] is group and second.param_groups[0] is group, "both keep the very dict"
assert second.param_groups[0]["lr"] == 0.01, "a learning rate set through one is the other's"
first.load_state_dict(first.state_dict())
print("after first.load_state_dict(...): first.param_groups[0] is group:", first.param_groups[0] is group)
group["lr"] = 0.5
print("lr set through group: first's", first.param_groups[0]["lr"], " second's", second.param_groups[0]["lr"])
assert first.param_groups[0] is not group and first.param_groups[0]["lr"] == 0.01, (
    "after its load, first holds a copy of the group: a learning rate set through group does not reach it")
assert second.param_groups[0] is group and second.param_groups[0]["lr"] == 0.5, "second, not loaded, keeps group"
# sphinx_gallery_start_ignore
scheduled = {"params": [torch.nn.Parameter(torch.ones(2))], "lr": 0.1}
scheduled_optimizer = torch.optim.SGD([scheduled])
scheduled_scheduler = torch.optim.lr_scheduler.StepLR(scheduled_optimizer, step_size=1, gamma=0.5)
scheduled_optimizer.zero_grad()
scheduled["params"][0].sum().backward()
scheduled_optimizer.step()
scheduled_scheduler.step()
assert scheduled_optimizer.param_groups[0] is scheduled and scheduled["lr"] == 0.05, (
    "before a load, a scheduler writes the learning rate into the dict passed as the group")
for reload in (lambda opt: opt.state_dict(), lambda opt: copy.deepcopy(opt.state_dict())):
    kept = {"params": [torch.nn.Parameter(torch.ones(2))], "lr": 0.1}
    kept_optimizer = torch.optim.SGD([kept])
    kept_optimizer.load_state_dict(reload(kept_optimizer))
    kept_scheduler = torch.optim.lr_scheduler.StepLR(kept_optimizer, step_size=1, gamma=0.5)
    for _ in range(2):
        kept_optimizer.zero_grad()
        kept["params"][0].sum().backward()
        kept_optimizer.step()
        kept_scheduler.step()
    assert kept_optimizer.param_groups[0] is not kept and kept["lr"] == 0.1, (
        "after a load (of its own state_dict() or of a deepcopy) the group is a new dict, and the old dict gets no lr")
    assert torch.allclose(kept["params"][0], torch.full((2,), 1 - 0.1 - 0.05)), (
        "after a load the step uses the lr set through optimizer.param_groups (here by a scheduler)")
filled = {"params": [torch.nn.Parameter(torch.ones(2))]}
filled_first = torch.optim.SGD([filled], lr=0.1)
filled_second = torch.optim.SGD([filled], lr=0.5, momentum=0.9)
for _ in range(2):
    filled_second.zero_grad()
    filled["params"][0].sum().backward()
    filled_second.step()
assert filled_second.param_groups[0]["lr"] == 0.1 and filled_second.param_groups[0]["momentum"] == 0, (
    "a second optimizer on a group dict the first filled in keeps the first one's lr and momentum")
assert torch.allclose(filled["params"][0], torch.full((2,), 0.8)), (
    "its steps run at lr 0.1 without momentum, not at its own lr=0.5, momentum=0.9")
# sphinx_gallery_end_ignore


# %%
# State made before ``model.to()``: load it again
# -----------------------------------------------
#
# When ``model.double()`` or ``model.to(dtype)`` converts a floating-point parameter that is a plain
# dense tensor on the CPU (like this model's, not sparse, nested or mkldnn) to another floating-point
# dtype, the ``Parameter`` object stays the same, but its data moves to new memory; such a parameter
# that already has that dtype keeps its memory. The optimizer keeps those objects, but its
# state is not converted: Adam's ``exp_avg`` stays as it was, and here the next ``step()``
# raises. ``optimizer.load_state_dict`` casts the state tensors it loads (all but the ``step``
# count) to the dtype of each floating-point parameter, so for a floating-point model loading the
# optimizer's own state dict again converts them.
# The simpler order converts the model before the optimizer's first step, and before making an
# ``Adagrad``, which makes its state when it is made, as :ref:`questions-module-to` advises. A move
# to ``meta`` is different: the model gets new ``Parameter`` objects, so make the optimizer after the
# move.

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
optimizer.step()
optimizer.zero_grad()
params = list(model.parameters())
params_before = [param.detach() for param in params]
model.double()
print("after model.double(): weight", model.weight.dtype, " exp_avg", optimizer.state[model.weight]["exp_avg"].dtype)
print("model.weight is the Parameter from before:", model.weight is params[0],
      " shares its old memory:", same_storage(model.weight, params_before[0]))  # fmt: skip
assert all(p is q and q in optimizer.state and bytes_apart(q, old)
           for p, q, old in zip(model.parameters(), params, params_before, strict=True)), (
    "model.double() keeps the Parameter objects, which the optimizer holds, and moves their data to new memory")
# sphinx_gallery_start_ignore
assert all(value.dtype == torch.float32 for state in optimizer.state.values() for value in state.values()), (
    "model.double() converts none of the optimizer's state tensors")
# sphinx_gallery_end_ignore
model(torch.ones(1, 2, dtype=torch.float64)).sum().backward()
try:
    optimizer.step()
except RuntimeError as e:
    print(f"optimizer.step(): {type(e).__name__}: {e}")
    assert "dtype" in str(e), "the step's error is about dtypes"
else:
    raise AssertionError("a step with float32 state on float64 parameters must raise here")
optimizer.load_state_dict(optimizer.state_dict())
print("after load_state_dict(state_dict()): exp_avg", optimizer.state[model.weight]["exp_avg"].dtype)
optimizer.step()
assert all(optimizer.state[p]["exp_avg"].dtype == torch.float64 for p in model.parameters()), (
    "after load_state_dict Adam's exp_avg is float64, like the parameters")
# sphinx_gallery_start_ignore
for make in (torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop, torch.optim.Adagrad, torch.optim.NAdam,
             torch.optim.RAdam, torch.optim.Adamax, lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9)):
    net = torch.nn.Linear(2, 1)
    net_optimizer = make(net.parameters(), lr=0.1)
    net(torch.ones(1, 2)).sum().backward()
    net_optimizer.step()
    net.double()
    net_optimizer.load_state_dict(net_optimizer.state_dict())
    assert all(value.dtype == (torch.float32 if key == "step" else torch.float64)
               for state in net_optimizer.state.values() for key, value in state.items()), "all but step are cast"
for to_dtype in (torch.float16, torch.bfloat16, torch.float64):
    net = torch.nn.Linear(2, 1)
    net_optimizer = torch.optim.Adam(net.parameters(), lr=0.1)
    net(torch.ones(1, 2)).sum().backward()
    net_optimizer.step()
    net.to(to_dtype)
    net_optimizer.load_state_dict(net_optimizer.state_dict())
    assert all(value.dtype == (torch.float32 if key == "step" else to_dtype)
               for state in net_optimizer.state.values() for key, value in state.items()), (
        "after model.to() with a floating-point dtype a reload casts Adam's state (all but step) to that dtype")
for make in (torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop, torch.optim.NAdam, torch.optim.RAdam,
             torch.optim.Adamax, torch.optim.Adadelta, torch.optim.ASGD, torch.optim.Rprop,
             lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9), torch.optim.Adagrad):
    net = torch.nn.Linear(2, 1)
    if make is not torch.optim.Adagrad:
        net_optimizer = make(net.parameters(), lr=0.1)
    net.double()
    if make is torch.optim.Adagrad:
        net_optimizer = make(net.parameters(), lr=0.1)
    net(torch.ones(1, 2, dtype=torch.float64)).sum().backward()
    net_optimizer.step()
    assert all(value.dtype == torch.float64 for param, state in net_optimizer.state.items()
               for value in state.values() if value.shape == param.shape), (
        "the model converted before the first step (Adagrad: before it is made): the state is float64")
net = torch.nn.Linear(2, 1)
net_optimizer = torch.optim.Adagrad(net.parameters(), lr=0.1)
assert net_optimizer.state[net.weight]["sum"].dtype == torch.float32, "Adagrad makes its state when it is made"
net.double()
net(torch.ones(1, 2, dtype=torch.float64)).sum().backward()
net_optimizer.step()
assert net_optimizer.state[net.weight]["sum"].dtype == torch.float32, (
    "Adagrad made before model.double(): its state stays float32 after a step")
floats = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.float8_e5m2, torch.float8_e4m3fn,
          torch.float8_e5m2fnuz, torch.float8_e4m3fnuz) + ((torch.float8_e8m0fnu,) if torch.__version__ >= "2.7" else ())
for from_dtype in floats:
    for to_dtype, convert in ((torch.float64, torch.nn.Module.double), *((d, lambda m, d=d: m.to(d)) for d in floats),
                              *((d, lambda m, d=d: m.to(dtype=d, non_blocking=True)) for d in floats)):
        net = torch.nn.Linear(2, 1).to(from_dtype)
        net_params = list(net.parameters())
        net_before = [param.detach() for param in net_params]
        convert(net)
        assert all(p is q and p.dtype == to_dtype and same_storage(q, old) == (from_dtype == to_dtype)
                   for p, q, old in zip(net.parameters(), net_params, net_before, strict=True)), (
            "model.double() and model.to(dtype) keep the Parameter objects and move their data to new memory "
            "exactly when the floating-point dtype changes")
for mode in (torch.enable_grad, torch.no_grad, torch.inference_mode):
    for make in (lambda: torch.nn.Linear(2, 1), torch.inference_mode()(lambda: torch.nn.Linear(2, 1)),
                 lambda: torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2), requires_grad=False)])):
        for to_dtype, convert in ((torch.float64, torch.nn.Module.double), *((d, lambda m, d=d: m.to(d))
                                                                             for d in (torch.float32, torch.float64))):
            net = make()
            net_params = list(net.parameters())
            net_before = [param.detach() for param in net_params]
            with mode():
                convert(net)
            assert all(p is q and p.dtype == to_dtype and same_storage(q, old) == (to_dtype == torch.float32)
                       for p, q, old in zip(net.parameters(), net_params, net_before, strict=True)), (
                "model.double() and model.to(dtype) keep the Parameter objects and move their data to new memory "
                "exactly when the dtype changes, also under torch.no_grad() and in torch.inference_mode(), for a "
                "Parameter that does not require grad and for one made in torch.inference_mode()")
net = torch.nn.Linear(2, 1)
net_optimizer = torch.optim.Adam(net.parameters(), lr=0.1)
cpu_weight = net.weight
net.to("meta")
assert net.weight is not cpu_weight and net_optimizer.param_groups[0]["params"][0] is cpu_weight, (
    "net.to('meta') made new Parameters; the optimizer holds the CPU weight")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# The optimizer works on the tensor objects it was given and on state tensors it edits in place.
# Give the model new values with ``model.load_state_dict`` (without ``assign=True``, from a dict that
# carries no flag left by a load with ``assign=True``), never a new ``nn.Parameter`` behind
# the optimizer's back; keep the best
# point as ``copy.deepcopy`` of both state dicts, and load the optimizer's from a fresh
# ``copy.deepcopy`` each time. A parameter group passed as a dict is kept as that dict until the
# optimizer loads a state dict; after a load, set the learning rate through ``optimizer.param_groups``.
# The state made before ``model.to(dtype)`` with a floating-point ``dtype`` is converted by loading the
# optimizer's own state dict again.
