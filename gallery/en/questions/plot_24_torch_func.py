"""
.. _questions-torch-func:

"accessing ``data`` under vmap transform is not allowed": ``torch.func`` and copies
===================================================================================

.. admonition:: Answer
   :class: answer

   Under ``vmap`` a function sees batched tensors that have no memory of their own, so ``.data``
   is refused, and so are ``item()``, ``tolist()`` and ``numpy()``; ``detach()`` works. Write
   ``detach()`` where the code had ``.data``:

   .. code-block:: python

      def scale(t):
          return t.detach() * 2

``torch.func`` runs a module or a function on tensors you hand it. This page checks what it
copies and what it shares: ``functional_call`` uses the tensors of its dict as they are (the
module's own parameters are left alone, and a buffer is updated where it is: in the dict if the
dict holds it, in the module if not),
``torch.func.grad`` needs no ``requires_grad``, and ``vmap`` refuses ``.data``, the calls that turn
a batched tensor into Python numbers or an array, and those that hand out its memory. It ends with a
training loop over a dict of parameters.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' memory starts.

import torch
from torch.func import functional_call, grad, vmap


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# The symptom
# -----------
#
# Code written for plain tensors often reads ``.data``. Under ``vmap`` it raises: the function
# runs once on a batched tensor that stands for every row of the batch.

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
assert message == "accessing `data` under vmap transform is not allowed", "the exact message"

# %%
# What else ``vmap`` refuses
# --------------------------
#
# These raise as well: ``item()``, ``tolist()`` and ``numpy()``, which would turn the batched tensor
# into Python numbers or an array, ``data_ptr()`` and ``untyped_storage()``, which would hand out
# its memory, and setting ``.data``. ``detach()``, ``clone()`` and an in-place ``add_`` run, row by
# row. Not every read of the tensor's layout raises either: ``stride()`` and ``storage_offset()``
# run and give one row's, and ``repr()`` runs and shows a ``BatchedTensor``.

calls = {
    "t.item()": lambda t: t.sum().item(),
    "t.tolist()": lambda t: t.tolist(),
    "t.numpy()": lambda t: t.numpy(),
    "t.data_ptr()": lambda t: t.data_ptr(),
    "t.untyped_storage()": lambda t: t.untyped_storage(),
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
assert torch.equal(edited, batch + 1), "an in-place add_ under vmap wrote into the tensor given to vmap"
layout = {}


def read_layout(t):
    layout.update(stride=t.stride(), storage_offset=t.storage_offset(), repr=repr(t))
    return t.clone()


vmap(read_layout)(batch)
print("t.stride():", layout["stride"], " t.storage_offset():", layout["storage_offset"],
      " repr(t) starts:", layout["repr"].split("(")[0])  # fmt: skip
assert (layout["stride"], layout["storage_offset"]) == (batch[0].stride(), batch[0].storage_offset()), "one row's"
assert layout["repr"].startswith("BatchedTensor("), "repr() ran under vmap and names the batched tensor"

# %%
# The fix
# -------
#
# ``detach()`` gives the same values without the graph, and ``vmap`` accepts it: each row is
# scaled, as the loop over rows would do.


def scale(t):
    return t.detach() * 2


scaled = vmap(scale)(batch)
print("scaled:", scaled)
assert torch.equal(scaled, torch.stack([row * 2 for row in batch])), "the same as a loop over rows"

# %%
# ``functional_call`` uses the dict's tensors as they are
# -------------------------------------------------------
#
# ``functional_call(module, tensors, args)`` runs the module with the tensors of the dict in place
# of its parameters and buffers. Inside the call, ``model.weight`` is the dict's tensor itself,
# not a copy; after the call the module has its own parameter back, unchanged, and the gradient
# goes to the dict's tensor.

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
weight_before = model.weight.detach().clone()
tensors = {name: torch.zeros_like(p, requires_grad=True) for name, p in model.named_parameters()}
inside = []
hook = model.register_forward_pre_hook(lambda module, args: inside.append(module.weight))
out = functional_call(model, tensors, (batch,))
hook.remove()
out.sum().backward()
print("inside the call, model.weight is tensors['weight']:", inside[0] is tensors["weight"])
print("after: model.weight is a Parameter:", isinstance(model.weight, torch.nn.Parameter),
      " unchanged:", torch.equal(model.weight, weight_before))
print("tensors['weight'].grad:", tensors["weight"].grad, " model.weight.grad:", model.weight.grad)
assert inside[0] is tensors["weight"] and torch.equal(model.weight, weight_before), "no copy, module untouched"
# sphinx_gallery_start_ignore
assert model.weight.grad is None, "the module's parameter got no gradient"
assert torch.equal(tensors["weight"].grad, batch.sum(0, keepdim=True)), "d/dW sum(xW^T + b) = sum of the rows"
# sphinx_gallery_end_ignore

# %%
# A buffer is updated in the dict
# -------------------------------
#
# A ``BatchNorm1d`` in training mode updates its running mean in place. Called through
# ``functional_call`` with a copy of its state, it updates the dict's tensor, the same object as
# before the call, and the module's own running mean stays at zero. A buffer the dict leaves out
# is the module's own: called with its parameters alone, the call updates ``norm.running_mean``.

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
assert not same_storage(tensors["weight"], model.weight), "two separate tensors were trained"
assert torch.allclose(tensors["bias"], model.bias), "the biases agree too"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``functional_call`` swaps the dict's tensors into the module for one call and puts the module's
# own back: no copy either way, so gradients and in-place buffer updates land in the dict (a
# buffer the dict leaves out is the module's, and is updated there).
# ``torch.func.grad`` computes a gradient without ``requires_grad`` or ``.grad``. Under ``vmap``,
# ``.data`` raises, and so do the calls that turn a batched tensor into Python numbers or an array
# (``item()``, ``tolist()``, ``numpy()``) or hand out its memory (``data_ptr()``,
# ``untyped_storage()``); ``detach()``, ``clone()``, ``add_``, ``stride()`` and ``repr()`` run.
