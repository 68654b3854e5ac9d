"""
.. _questions-function-arguments:

Editing a tensor inside a function edits the caller's
=====================================================

.. admonition:: Answer
   :class: answer

   A function receives the caller's tensor object, not a copy, so an in-place edit inside it
   (``x += 1``, ``x.add_(1)``) edits the caller's tensor. Compute a new tensor instead:

   .. code-block:: python

      def add_one(x):
          x = x + 1
          return x

``x += 1`` and ``x = x + 1`` read alike and do different things to a tensor passed in. This page
shows both, then three places where the same sharing hides: a default argument holding a tensor, a
``Dataset`` that hands out its own tensors to code that edits them, and ``copy.copy`` of a module.
Each fix is checked by running it the way it is used: repeated calls, two epochs, a few training
steps.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start. The seed fixes the random weights and
# data, so the numbers below are the same on every run.

import copy

import torch

torch.manual_seed(0)


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()

# %%
# ``x += 1`` versus ``x = x + 1``
# -------------------------------
#
# Inside ``add_one_in_place``, ``x`` names the caller's tensor and ``+=`` edits it in place: the
# caller's ``a`` changes, and the function returns ``a`` itself. Inside ``add_one``, ``x + 1`` is
# a new tensor and ``x = ...`` only rebinds the function's own name: ``a`` is untouched.


def add_one_in_place(x):
    x += 1
    return x


def add_one(x):
    x = x + 1
    return x


a = torch.zeros(3)
returned = add_one_in_place(a)
print("after add_one_in_place(a): a =", a, " returned is a:", returned is a)
# sphinx_gallery_start_ignore
assert returned is a, "x += 1 returns the caller's tensor itself"
# sphinx_gallery_end_ignore
returned = add_one(a)
print("after add_one(a):          a =", a, " returned:", returned)
assert torch.equal(a, torch.ones(3)) and not same_storage(returned, a), "+= edited a, x + 1 did not"

# %%
# A default argument holding a tensor
# -----------------------------------
#
# A default value is made once, when ``def`` runs, and every call that omits the argument gets that
# same tensor. ``total += v`` edits it, so each call starts where the previous one ended.


def running_total(v, total=torch.zeros(2)):  # noqa: B008
    total += v
    return total


first = running_total(torch.ones(2)).clone()
second = running_total(torch.ones(2)).clone()
print("first call:", first, " second call:", second)
print("the default now:", running_total.__defaults__[0])
assert torch.equal(second, 2 * first), "the second call started from the first call's total"

# %%
# Make the default ``None`` and the tensor inside the call: every call starts from zero.


def running_total_fixed(v, total=None):
    total = torch.zeros(2) if total is None else total
    total = total + v
    return total


totals = [running_total_fixed(torch.ones(2)) for _ in range(3)]
print("three calls:", totals)
assert all(torch.equal(t, torch.ones(2)) for t in totals), "each call starts from zero"

# %%
# A ``Dataset`` that hands out its own tensors
# --------------------------------------------
#
# ``self.data[i]`` is a view of the dataset's tensor (see :ref:`questions-index-writes`), and
# ``DataLoader(..., batch_size=None)`` with no worker process (the default ``num_workers=0``) passes
# each item on as it is. A loop that normalises each
# item in place with the dataset's mean, ``x.sub_(mean)``, edits the dataset: the first epoch sees
# data centred on zero, the second sees it shifted once more.


class Points(torch.utils.data.Dataset):
    def __init__(self, data, copies=False):
        self.data, self.copies = data, copies

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i].clone() if self.copies else self.data[i]


def epoch_means(dataset, mean, epochs=2):
    means = []
    for _ in range(epochs):
        items = [x.sub_(mean) for x in torch.utils.data.DataLoader(dataset, batch_size=None)]
        means.append(round(torch.stack(items).mean().item(), 2))
    return means


data = torch.randn(4, 3) + 5
original, mean = data.clone(), data.mean()
shared_means = epoch_means(Points(data), mean)
print("shared items, mean per epoch:", shared_means)
print("dataset changed:", not torch.equal(data, original))
assert not torch.equal(data, original) and abs(shared_means[1] + mean) < 0.01, "epoch 2 saw data shifted twice"

# %%
# The fix on the dataset's side: ``__getitem__`` returns ``self.data[i].clone()``. Two epochs later
# the dataset is as it was. (With ``batch_size=2`` the ``DataLoader`` stacks the items into a new
# tensor, a copy, which hides the bug without fixing it.)
data = original.clone()
copied_means = epoch_means(Points(data, copies=True), mean)
print("copied items, mean per epoch:", copied_means)
print("dataset changed:", not torch.equal(data, original))
assert torch.equal(data, original) and copied_means[0] == copied_means[1], "copies leave the dataset as it was"
# sphinx_gallery_start_ignore
assert same_storage(Points(data)[0], data) and not same_storage(Points(data, copies=True)[0], data)
# (its own generator: a DataLoader draws a seed when iterated, which would move the page's random numbers)
batches_of_two = torch.utils.data.DataLoader(Points(data), batch_size=2, generator=torch.Generator())
assert not any(same_storage(batch, data) for batch in batches_of_two), "batch_size=2 stacks the items into copies"
# sphinx_gallery_end_ignore

# %%
# ``copy.copy`` of a module
# -------------------------
#
# A shallow copy is a new module object whose attributes are the original's: the same
# ``Parameter`` objects, and even the same dictionaries that hold them (``_parameters``,
# ``_buffers``, ``_modules``, internal to torch), and the dictionaries of hooks as well
# (``_forward_hooks`` and the others), so a hook registered on the copy runs on the original. Only
# an attribute rebound on one of them afterwards, such as ``training``, becomes separate.
model = torch.nn.Linear(2, 1)
shallow = copy.copy(model)
print("shallow is model:", shallow is model)
print("shallow.weight is model.weight:", shallow.weight is model.weight)
for name in ("_parameters", "_buffers", "_modules", "_forward_hooks", "__dict__"):
    print(f"{name:<14} shared: {getattr(shallow, name) is getattr(model, name)}")
assert shallow.weight is model.weight and shallow._parameters is model._parameters, "shared"
# sphinx_gallery_start_ignore
assert shallow._buffers is model._buffers and shallow._modules is model._modules, "the other dicts too"
assert shallow._forward_hooks is model._forward_hooks and shallow._backward_hooks is model._backward_hooks, (
    "the dicts of hooks are shared"
)
assert shallow._forward_pre_hooks is model._forward_pre_hooks, "the dicts of hooks are shared"
hooked, hook_calls = torch.nn.Identity(), []
copy.copy(hooked).register_forward_hook(lambda *args: hook_calls.append(len(args)))
hooked(torch.ones(1, 2))
assert hook_calls == [3], "a hook registered on the copy runs on the original"
assert shallow.__dict__ is not model.__dict__, "the module's own attributes are separate"
# sphinx_gallery_end_ignore

# %%
# So a new ``Parameter`` given to the copy replaces the original's too, and ``eval()`` on a copy of
# a ``Sequential`` switches the original's layers, which are shared, while the original itself
# stays in training mode.
shallow.weight = torch.nn.Parameter(torch.zeros(1, 2))
print("model.weight is the new Parameter:", model.weight is shallow.weight)
net = torch.nn.Sequential(torch.nn.Linear(2, 1), torch.nn.Dropout(0.5))
copy.copy(net).eval()
print("net.training:", net.training, " net[1].training:", net[1].training)
assert model.weight is shallow.weight and net.training and not net[1].training, "the dicts are shared"

# %%
# The fix: ``copy.deepcopy`` copies the parameters. Three training steps of ``model`` move the
# shallow copy's weight with it and leave the deep copy's as it was.
model = torch.nn.Linear(2, 1)
shallow, deep = copy.copy(model), copy.deepcopy(model)
before = model.weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 2)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
print("model.weight:  ", model.weight.detach())
print("shallow.weight:", shallow.weight.detach())
print("deep.weight:   ", deep.weight.detach())
assert torch.equal(shallow.weight, model.weight) and torch.equal(deep.weight, before), "follows, kept"
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the steps changed the weight"
assert not same_storage(deep.weight, model.weight), "the deep copy has memory of its own"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# A tensor passed to a function, kept as a default argument or held by a shallow copy of a module is
# the same tensor as the original, and an item a dataset hands out as ``self.data[i]`` is a view on
# the original's memory: an in-place edit through any of these names edits the original. Write
# ``x = x + 1`` inside functions, make tensor defaults inside the call,
# hand out ``clone()`` from a dataset whose callers may edit items, and copy modules with
# ``copy.deepcopy``.
