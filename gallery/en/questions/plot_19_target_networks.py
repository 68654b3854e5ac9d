"""
.. _questions-target-networks:

Target networks: "my target changes at every step"
==================================================

.. admonition:: Answer
   :class: answer

   ``target = online`` gives the online network a second name, so the target moves with every
   training step. Copy the network, and update the copy under ``torch.no_grad()``:

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
# ``copy.deepcopy(online)`` and ``load_state_dict`` (without ``assign=True``) into a network of the
# same shape both give the target parameters in memory of its own. A training step of the online
# network leaves both copies as they were. With ``assign=True``, ``load_state_dict`` gives the target
# new ``Parameter`` objects on the online network's memory: not the same tensors, but one memory.

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
assert not same_storage(target.bias, online.bias) and not same_storage(loaded.bias, online.bias), "own memory"
# sphinx_gallery_end_ignore
assigned = torch.nn.Linear(2, 2)
assigned.load_state_dict(online.state_dict(), assign=True)
print("assign=True, same storage:", same_storage(assigned.weight, online.weight),
      " assigned.weight is online.weight:", assigned.weight is online.weight)  # fmt: skip
pairs = list(zip(assigned.parameters(), online.parameters(), strict=True))
assert all(same_storage(a, o) and a is not o for a, o in pairs), "new Parameter objects on the same memory"
# sphinx_gallery_start_ignore
assert all(type(a) is torch.nn.Parameter for a, _ in pairs), "the target's tensors are Parameter objects"
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
assert goals[0] == goals[1] == goals[2] != goals[3] == goals[4] == goals[5] == online_goal, "still between syncs"

# %%
# Soft updates
# ------------
#
# A soft update moves each target parameter a fraction ``tau`` of the way to the online one:
# ``t = (1 - tau) * t + tau * o``. Written in place on a parameter that requires grad, it raises
# outside ``torch.no_grad()``.

tau = 0.05
try:
    target.weight.lerp_(online.weight, tau)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a leaf that requires grad must raise outside no_grad")

# %%
# Under ``torch.no_grad()``, ``lerp_`` and ``mul_(1 - tau).add_(o, alpha=tau)`` give the formula's
# values, written into the target's own memory. A loop over ``parameters()`` leaves out the
# buffers, such as ``BatchNorm``'s running statistics: a network with buffers needs a second loop,
# over ``buffers()``, that copies them (or blends the floating ones).

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
print("separate storage:", not same_storage(target.weight, online.weight))
assert all(torch.allclose(t, e) for t, e in zip([*target.parameters(), *soft.parameters()], expected * 2, strict=True))
# sphinx_gallery_start_ignore
assert not torch.allclose(target.weight, online.weight), "the target moved only part of the way"
assert not same_storage(soft.weight, online.weight), "the soft copy keeps its own memory"
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
assert torch.equal(norm_target.running_mean, norm_online.running_mean), "a loop over buffers() copies them"

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
assert not same_storage(average.module[0].weight, net[0].weight), "AveragedModel deep-copies the network"
assert average.n_averaged.item() == 3, "three updates"
assert not torch.equal(recorded[0], recorded[2]), "the weights moved, so the mean is not any one of them"
assert torch.equal(average.module[1].running_mean, net[1].running_mean), "buffers are copied from net"
assert not same_storage(average.module[1].running_mean, net[1].running_mean), "into the copy's own buffers"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# A target network must be a copy: ``copy.deepcopy(online)`` or ``load_state_dict`` (without
# ``assign=True``) into a network of its own, never ``target = online``. Update it in place under
# ``torch.no_grad()``, with ``load_state_dict`` for a hard update or ``lerp_`` (``mul_().add_()``)
# for a soft one, over ``parameters()`` and, where the network has buffers, ``buffers()`` too.
# ``AveragedModel`` makes its own deep copy and keeps a running mean of the parameters; with the
# default ``use_buffers=False`` it copies the buffers instead of averaging them.
