"""
.. _questions-target-networks:

Target networks: "my target changes at every step"
==================================================

.. admonition:: Answer
   :class: answer

   ``target = online`` gives the online network a second name, so the target moves with every
   training step. Copy the network, and update the copy under ``torch.no_grad()`` (and copy the buffers,
   as shown below):

   .. code-block:: python

      target = copy.deepcopy(online)
      with torch.no_grad():
          for t, o in zip(target.parameters(), online.parameters(), strict=True):
              t.lerp_(o, tau)

This page runs a small DQN-style loop with an aliased target and with a copied one, then checks
the two ways of copying a network, soft updates with ``lerp_`` and ``mul_().add_()`` against their
formula, and what ``torch.optim.swa_utils.AveragedModel`` copies and averages.
"""

# %%
# Helpers
# -------
#
# A Q-network maps a 2-number state to the values of 2 actions. ``td_step`` takes one step of
# Q-learning on a fixed batch: the goal of each value is ``reward + 0.9 * max target(next state)``,
# computed without gradient; the step returns that goal. ``same_storage`` compares the addresses
# where two tensors' storages start.
#
# ``bytes_apart`` tells whether two tensors' storages do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

import copy

import torch
from torch.optim.swa_utils import AveragedModel

torch.manual_seed(0)
states, next_states = torch.randn(8, 2), torch.randn(8, 2)
actions, rewards = torch.randint(0, 2, (8, 1)), torch.randn(8)


def td_step(online, target, optimizer):
    with torch.no_grad():
        goal = rewards + 0.9 * target(next_states).max(1).values
    q = online(states).gather(1, actions).squeeze(1)
    loss = (q - goal).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return goal


def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


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
# The target network should stay fixed between synchronisations, so that the goals the online
# network chases hold still. With ``target = online`` the goal of the first sample is different at
# every step.

torch.manual_seed(0)
online = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(online.parameters(), lr=0.1)
target = online
goals = [td_step(online, target, optimizer)[0].item() for _ in range(4)]
print("goal of sample 0 at each step:", [round(g, 4) for g in goals])
print("target is online:", target is online)
assert len(set(goals)) == 4, "with an alias the goal moves at every step"

# %%
# The fix: a copy of the network
# ------------------------------
#
# ``copy.deepcopy(online)`` and ``load_state_dict`` (without ``assign=True``, from a dict that carries no
# flag left by a load with ``assign=True``: :ref:`questions-checkpoints`) into a network of the same shape both give the target
# parameters in memory of its own. A training step of the online
# network leaves both copies as they were. With ``assign=True``, ``load_state_dict(online.state_dict())``
# gives the target new ``Parameter`` objects on the online network's memory: not the same tensors, but one
# memory; from ``online.state_dict(keep_vars=True)`` it gives the target the online network's own
# ``Parameter`` objects.

torch.manual_seed(0)
online = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(online.parameters(), lr=0.1)
target = copy.deepcopy(online)
loaded = torch.nn.Linear(2, 2)
loaded.load_state_dict(online.state_dict())
before = online.weight.detach().clone()
td_step(online, target, optimizer)
print("online.weight changed:", not torch.equal(online.weight, before))
print("target.weight kept:   ", torch.equal(target.weight, before), " same storage:",
      same_storage(target.weight, online.weight))  # fmt: skip
print("loaded.weight kept:   ", torch.equal(loaded.weight, before), " same storage:",
      same_storage(loaded.weight, online.weight))  # fmt: skip
assert torch.equal(target.weight, before) and torch.equal(loaded.weight, before), "both copies kept the weights"
# sphinx_gallery_start_ignore
assert not torch.equal(online.weight, before), "the step changed the online network"
assert bytes_apart(target.bias, online.bias) and bytes_apart(loaded.bias, online.bias), (
    "target.bias and loaded.bias do not share online.bias's storage")
# sphinx_gallery_end_ignore
assigned = torch.nn.Linear(2, 2)
assigned.load_state_dict(online.state_dict(), assign=True)
print("assign=True, same storage:", same_storage(assigned.weight, online.weight),
      " assigned.weight is online.weight:", assigned.weight is online.weight)  # fmt: skip
pairs = list(zip(assigned.parameters(), online.parameters(), strict=True))
assert all(same_storage(a, o) and a is not o for a, o in pairs), "new Parameter objects on the same memory"
# sphinx_gallery_start_ignore
assert all(type(a) is torch.nn.Parameter for a, _ in pairs), "the target's tensors are Parameter objects"
aliased = torch.nn.Linear(2, 2)
aliased.load_state_dict(online.state_dict(keep_vars=True), assign=True)
assert all(a is o for a, o in zip(aliased.parameters(), online.parameters(), strict=True)), (
    "keep_vars=True with assign=True: the target holds the online network's own Parameter objects")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the biases of the four networks. online.bias and assigned.bias are two tensor objects on one storage S1; target.bias and loaded.bias each have a storage of their own, S2 and S3.
#
#    Each network's bias, after one training step of ``online``. ``assigned.bias`` is another tensor
#    object on ``online.bias``'s storage ``S1``, so it shows the stepped values; ``target.bias`` (the
#    ``deepcopy``) and ``loaded.bias`` have storages of their own, ``S2`` and ``S3``, with the values
#    from before the step.

biases = {"online.bias": online.bias, "assigned.bias": assigned.bias}
draw_memory("td_step(online, target, optimizer)", **biases, **{"target.bias": target.bias, "loaded.bias": loaded.bias})
# sphinx_gallery_start_ignore
assert same_storage(assigned.bias, online.bias) and assigned.bias is not online.bias, (
    "assign=True: assigned.bias is another object on online.bias's memory")
assert bytes_apart(target.bias, loaded.bias), "the two copies do not share either"
assert torch.equal(target.bias, loaded.bias) and not torch.equal(target.bias, online.bias), "the copies kept the old bias"
# sphinx_gallery_end_ignore

# %%
# The same loop with a copy
# -------------------------
#
# The target is a copy, synchronised every 3 steps with ``load_state_dict``. The goal now holds
# still for 3 steps, and after the synchronisation it is the goal the online network of that moment
# gives.

torch.manual_seed(0)
online = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(online.parameters(), lr=0.1)
target = copy.deepcopy(online)
goals = []
for step in range(6):
    if step == 3:
        target.load_state_dict(online.state_dict())
        with torch.no_grad():
            online_goal = (rewards + 0.9 * online(next_states).max(1).values)[0].item()
    goals.append(td_step(online, target, optimizer)[0].item())
print("goal of sample 0 at each step:", [round(g, 4) for g in goals])
assert goals[0] == goals[1] == goals[2] != goals[3] == goals[4] == goals[5] == online_goal, (
    "the target copy's goal held still for 3 steps, then took the online goal")

# %%
# Soft updates
# ------------
#
# A soft update moves each target parameter a fraction ``tau`` of the way to the online one:
# ``t = (1 - tau) * t + tau * o``. Written in place on a parameter that requires grad, it raises
# with grad mode on, outside ``torch.inference_mode()``.
# :fact:`leaf-refuses-inplace`

tau = 0.05
try:
    target.weight.lerp_(online.weight, tau)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a leaf that requires grad must raise with grad mode on, outside inference_mode")

# %%
# Under ``torch.no_grad()``, ``lerp_`` and ``mul_(1 - tau).add_(o, alpha=tau)`` give the formula's
# values, written into the target's own memory. A loop over ``parameters()`` leaves out the
# buffers, such as ``BatchNorm``'s running statistics: a network with buffers needs a second loop,
# over ``buffers()``, that copies them.

soft = copy.deepcopy(target)
pairs = list(zip(target.parameters(), online.parameters(), strict=True))
expected = [(1 - tau) * t.detach() + tau * o.detach() for t, o in pairs]
with torch.no_grad():
    for t, o in zip(target.parameters(), online.parameters(), strict=True):
        t.lerp_(o, tau)
    for s, o in zip(soft.parameters(), online.parameters(), strict=True):
        s.mul_(1 - tau).add_(o, alpha=tau)
print("lerp_:            ", target.weight.detach())
print("mul_().add_():    ", soft.weight.detach())
print("formula:          ", expected[0])
print("no memory shared:", bytes_apart(target.weight, online.weight))
assert all(
    torch.allclose(t, e) for t, e in zip([*target.parameters(), *soft.parameters()], expected * 2, strict=True)
), "lerp_ and mul_().add_() give the formula's values in every parameter"
# sphinx_gallery_start_ignore
assert not torch.allclose(target.weight, online.weight), "the target moved only part of the way"
assert all(bytes_apart(mine, theirs) for net in (target, soft)
           for mine, theirs in zip(net.parameters(), online.parameters(), strict=True)), (
    "the lerp_ target and the mul_().add_() copy keep their own memory in every parameter")
# sphinx_gallery_end_ignore
norm_online, norm_target = torch.nn.BatchNorm1d(2), torch.nn.BatchNorm1d(2)
normalized = norm_online(states)
with torch.no_grad():
    for t, o in zip(norm_target.parameters(), norm_online.parameters(), strict=True):
        t.lerp_(o, tau)
print("parameters() only, running_mean:", norm_target.running_mean)
assert not norm_target.running_mean.any(), "a loop over parameters() leaves the running statistics out"
with torch.no_grad():
    for t, o in zip(norm_target.buffers(), norm_online.buffers(), strict=True):
        t.copy_(o)
print("after buffers(), running_mean:  ", norm_target.running_mean)
print("after buffers(), num_batches_tracked:", norm_target.num_batches_tracked)
assert all(
    torch.equal(t, o) for t, o in zip(norm_target.buffers(), norm_online.buffers(), strict=True)
), "a loop over buffers() copies them"

# %%
# ``AveragedModel``: a copy that averages
# ---------------------------------------
#
# ``torch.optim.swa_utils.AveragedModel(net)`` deep-copies ``net`` into ``.module`` and adds a
# buffer ``n_averaged``. Each ``update_parameters(net)`` folds ``net``'s parameters into a running
# mean (the first call copies them). Buffers, such as a batch norm's running mean, are not averaged
# (``use_buffers=False``, the default): each update copies them from ``net``. We train three steps
# and compare with the mean of the three weights we recorded.

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
average = AveragedModel(net)
print("same storage (weight):", same_storage(average.module[0].weight, net[0].weight))
net_optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
recorded = []
for _ in range(3):
    net_optimizer.zero_grad()
    net(torch.randn(4, 2)).pow(2).mean().backward()
    net_optimizer.step()
    average.update_parameters(net)
    recorded.append(net[0].weight.detach().clone())
print("n_averaged:", average.n_averaged)
print("averaged weight:   ", average.module[0].weight.detach())
print("mean of the steps: ", torch.stack(recorded).mean(0))
print("running_mean equal:", torch.equal(average.module[1].running_mean, net[1].running_mean))
assert torch.allclose(average.module[0].weight, torch.stack(recorded).mean(0)), "a running mean of the weights"
# sphinx_gallery_start_ignore
assert bytes_apart(average.module[0].weight, net[0].weight), "AveragedModel deep-copies the network"
assert average.n_averaged.item() == 3, "AveragedModel counted three update_parameters() calls"
assert any(b is average.n_averaged for b in average.buffers()), "n_averaged is a buffer of the AveragedModel"
assert not torch.equal(recorded[0], recorded[2]), "the weights moved, so the mean is not any one of them"
assert torch.equal(average.module[1].running_mean, net[1].running_mean), "buffers are copied from net"
assert bytes_apart(average.module[1].running_mean, net[1].running_mean), "into the copy's own buffers"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# A target network must be a copy: ``copy.deepcopy(online)`` or ``load_state_dict`` (without
# ``assign=True``, from an unflagged dict) into a network of its own, never ``target = online``. Update it in place under
# ``torch.no_grad()``: a hard update with ``load_state_dict``; a soft one with ``lerp_`` (``mul_().add_()``) in a
# loop over ``parameters()``, plus, where the network has buffers, a second loop over ``buffers()`` that copies
# them with ``copy_``.
# ``AveragedModel`` makes its own deep copy and keeps a running mean of the parameters; with the
# default ``use_buffers=False`` it copies the buffers instead of averaging them.
