"""
.. _questions-optimizer-state:

Optimizer state: "my weights stopped updating"
==============================================

.. admonition:: Answer
   :class: answer

   An optimizer keeps the tensors it was given: after ``model.weight = nn.Parameter(...)`` it still
   holds the old one, and the new one is never stepped; ``optimizer.state_dict()`` holds its live
   state. Copy into the existing tensors, and snapshot with ``copy.deepcopy``:

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

import copy

import torch

x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [-2.0, 1.0]])
y = x @ torch.tensor([[2.0], [-1.0]])


def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


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
# The symptom
# -----------
#
# Three steps of SGD with momentum lower the loss. Then we put a new ``nn.Parameter`` in place of
# the weight, as code that re-initialises or loads a layer by assignment does, and train on: the
# loss no longer moves, and the new weight never changes.

torch.manual_seed(0)
model = torch.nn.Linear(2, 1, bias=False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
print("losses:", train(model, optimizer, 3))
old_weight = model.weight
old_values = old_weight.detach().clone()
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
# used. The old weight is
# still there, but it is no longer in the model's graph, so it gets no gradient and
# ``step()`` skips it.

held = optimizer.param_groups[0]["params"][0]
print("held is old_weight:", held is old_weight)
print("held is model.weight:", held is model.weight)
print("old_weight.grad:", old_weight.grad)
assert held is old_weight and held is not model.weight, "the optimizer still holds the old tensor"
# sphinx_gallery_start_ignore
assert torch.allclose(model.weight.grad, 3 * torch.func.grad(lambda w: (x @ w.t() - y).pow(2).mean())(torch.zeros(1, 2))), (
    "the new weight's gradient is three steps' gradients summed"
)
# sphinx_gallery_end_ignore

# %%
# The fix: copy into the existing parameter
# -----------------------------------------
#
# ``model.load_state_dict`` copies the new values into the tensors the model already has: the
# weight stays the same object, the one the optimizer holds, and training goes on. That is with the
# default ``assign=False``; with ``assign=True`` the model takes the dict's tensors as new
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
assert not same_storage(model.weight, new_state["weight"]), "load_state_dict copies the values"
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

# %%
# ``optimizer.state_dict()`` follows training
# -------------------------------------------
#
# The momentum SGD keeps for each parameter is a tensor it edits in place at every step.
# ``optimizer.state_dict()`` returns a new dict, but its tensors are those same tensors (the
# parameters are named by their index, ``0``). A dict saved this way changes with the next step.

saved = optimizer.state_dict()
momentum = saved["state"][0]["momentum_buffer"]
before = momentum.clone()
train(model, optimizer, 1)
print("momentum before the step:", before)
print("saved momentum after it: ", momentum)
print("is the optimizer's own:", momentum is optimizer.state[model.weight]["momentum_buffer"])
assert momentum is optimizer.state[model.weight]["momentum_buffer"] and not torch.equal(momentum, before)
# sphinx_gallery_start_ignore
adam_weight = torch.zeros(1, 2, requires_grad=True)
adam = torch.optim.Adam([adam_weight], lr=0.1)
train(lambda inputs: inputs @ adam_weight.T, adam, 2)
adam_state = adam.state_dict()["state"][0]
assert sorted(adam_state) == ["exp_avg", "exp_avg_sq", "step"], "Adam keeps three state tensors"
for key, value in adam.state[adam_weight].items():
    assert adam_state[key] is value, f"Adam's state_dict() must return its own {key} tensor"
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
assert not same_storage(optimizer.state[model.weight]["momentum_buffer"], best_optimizer["state"][0]["momentum_buffer"])
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
print("takes the snapshot's tensor:",
      optimizer.state[model.weight]["momentum_buffer"] is best_optimizer["state"][0]["momentum_buffer"])  # fmt: skip
print("first restore: ", train(model, optimizer, 3))
model.load_state_dict(best_model)
optimizer.load_state_dict(best_optimizer)
again = train(model, optimizer, 3)
print("second restore:", again)
assert again == weights_only != first_time, "the snapshot loaded without a copy was edited by training"

# %%
# Conclusion
# ----------
#
# The optimizer works on the tensor objects it was given and on state tensors it edits in place.
# Give the model new values with ``model.load_state_dict`` (without ``assign=True``), never a new ``nn.Parameter`` behind
# the optimizer's back; keep the best
# point as ``copy.deepcopy`` of both state dicts, and load the optimizer's from a fresh
# ``copy.deepcopy`` each time.
