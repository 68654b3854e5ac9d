"""
.. _questions-grad-after-move:

"My weights' ``.grad`` is ``None`` after moving them"
=====================================================

.. admonition:: Answer
   :class: answer

   Moved to another device or floating dtype, ``torch.randn(3, requires_grad=True).to(...)`` is the
   result of an operation, not a leaf, so ``backward()`` leaves its ``.grad`` at ``None``. Create the tensor where it will live, or move
   it before ``requires_grad_()``:

   .. code-block:: python

      w = torch.randn(3, dtype=torch.float64, requires_grad=True)
      w = torch.randn(3).to(torch.float64).requires_grad_()

A weight made with ``requires_grad=True`` and then moved to a device or cast to a dtype trains
nothing: its ``.grad`` stays ``None``, reading it warns ("The .grad attribute of a Tensor that is
not a leaf Tensor is being accessed"), and an optimizer either refuses it ("can't optimize a
non-leaf Tensor") or updates another tensor. Readers meet it as "grad is None after ``.cuda()``": a
move to the GPU (``.cuda()``, ``.to("cuda")``) is such a move. This page reproduces all three with a
change of dtype and with the ``meta`` device, which plays the GPU here (every build of torch has it;
a GPU box checks ``.cuda()`` itself where torch finds a GPU), shows where the gradient goes, and
checks three fixes by training with each.
"""

# %%
# Helpers
# -------
#
# ``read_grad`` reads ``t.grad`` and returns the warnings the read raised, so the page shows them
# instead of letting them escape. ``train`` runs a few SGD steps on ``params`` and returns the loss
# of each step. The seed fixes the random weights, so the numbers below are the same on every run.

import warnings

import torch


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    return grad, [str(w.message).split(". ")[0] for w in caught]


def train(params, loss_fn, steps=4):
    optimizer = torch.optim.SGD(params, lr=0.1)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


torch.manual_seed(0)
target = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)

# %%
# The symptom
# -----------
#
# ``w`` is made with ``requires_grad=True`` and cast to float64 in the same line. The cast is an
# operation recorded by autograd (``ToCopyBackward0``), so ``w`` is its result, a non-leaf:
# ``backward()`` leaves ``w.grad`` at ``None``, and reading it warns.
w = torch.randn(3, requires_grad=True).to(torch.float64)
((w - target) ** 2).sum().backward()
grad, warned = read_grad(w)
print("w.is_leaf:", w.is_leaf, " w.grad_fn:", type(w.grad_fn).__name__)
print("w.grad:", grad)
print("warned:", warned)
assert not w.is_leaf and grad is None and warned, "a cast leaf is a non-leaf without .grad"
# sphinx_gallery_start_ignore
assert warned == ["The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"], "the warning"
# sphinx_gallery_end_ignore

# %%
# A move to another device is the same operation. ``meta`` is a device every build of torch has
# (its tensors hold a shape but no values), and here it plays the GPU: the moved tensor is a non-leaf
# there too.
m = torch.randn(3, requires_grad=True).to("meta")
print("m.device:", m.device, " m.is_leaf:", m.is_leaf, " m.grad_fn:", type(m.grad_fn).__name__)
assert not m.is_leaf and type(m.grad_fn) is type(w.grad_fn), "to('meta') is recorded like to(float64)"

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    ``.cuda()`` and ``.to("cuda")`` are moves like ``.to("meta")``: on a tensor that requires grad they
#    return a non-leaf, whose ``.grad`` stays ``None`` after ``backward()``, while a tensor created on
#    the GPU with ``requires_grad=True`` is a leaf (PyTorch documentation:
#    `Tensor.cuda <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.cuda.html>`__,
#    `Tensor.is_leaf <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html>`__). The
#    cell below checks this only where torch finds a GPU; the box's title says whether the site's build did.

if torch.cuda.is_available():
    g = torch.randn(3, requires_grad=True).cuda()
    ((g - target.cuda()) ** 2).sum().backward()
    gpu_grad, gpu_warned = read_grad(g)
    print("g.device:", g.device, " g.is_leaf:", g.is_leaf, " g.grad_fn:", type(g.grad_fn).__name__)
    print("g.grad:", gpu_grad)
    on_gpu = torch.randn(3, device="cuda", requires_grad=True)
    print("created on the GPU, is_leaf:", on_gpu.is_leaf)
    assert not g.is_leaf and gpu_grad is None and gpu_warned, "a leaf moved with .cuda() is a non-leaf without .grad"
    assert type(g.grad_fn) is type(m.grad_fn) and on_gpu.is_leaf, ".cuda() is recorded like to('meta')"
    print("GPU checks passed on:", torch.cuda.get_device_name())


# %%
# Where the gradient goes
# -----------------------
#
# To the tensor ``w`` was made from. Named, that float32 leaf gets the gradient; in the one-liner
# above nothing names it, so nobody ever reads it.
leaf = torch.randn(3, requires_grad=True)
w = leaf.to(torch.float64)
((w - target) ** 2).sum().backward()
print("leaf.grad:", leaf.grad)
print("w.grad:", read_grad(w)[0])
assert leaf.grad is not None and leaf.grad.dtype == torch.float32, "the float32 leaf holds the gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(leaf.grad, (2 * (w - target)).float()), "d/dleaf of sum((leaf - target)**2)"
# sphinx_gallery_end_ignore

# %%
# The optimizer holds the wrong tensor
# ------------------------------------
#
# Handed the moved tensor, an optimizer refuses it.
w = torch.randn(3, requires_grad=True).to(torch.float64)
try:
    torch.optim.SGD([w], lr=0.1)
except ValueError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an optimizer must refuse a non-leaf tensor")
# sphinx_gallery_start_ignore
assert message == "can't optimize a non-leaf Tensor", "the exact message"
# sphinx_gallery_end_ignore

# %%
# Made before the move, it accepts the leaf, and then updates the leaf while the loss reads the
# moved copy, which no step changes: the loss stays where it was.
w = torch.randn(3, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
w = w.to(torch.float64)
losses = []
for _ in range(4):
    optimizer.zero_grad()
    loss = ((w - target) ** 2).sum()
    loss.backward()
    optimizer.step()
    losses.append(round(loss.item(), 4))
print("losses:", losses)
print("optimizer holds w:", optimizer.param_groups[0]["params"][0] is w)
assert len(set(losses)) == 1, "training the leaf leaves the moved copy, and the loss, unchanged"
# sphinx_gallery_start_ignore
assert optimizer.param_groups[0]["params"][0] is w.grad_fn.next_functions[0][0].variable, "it holds the leaf"
# sphinx_gallery_end_ignore

# %%
# Three fixes, each checked by training
# -------------------------------------
#
# Create the tensor with its dtype (or device) and ``requires_grad=True`` in one call: it is a
# leaf where it will live. The loss falls at every step.
w = torch.randn(3, dtype=torch.float64, requires_grad=True)
losses = train([w], lambda: ((w - target) ** 2).sum())
print("w.is_leaf:", w.is_leaf, " w.dtype:", w.dtype, " losses:", losses)
on_meta = torch.randn(3, device="meta", requires_grad=True)
print("on meta, is_leaf:", on_meta.is_leaf)
assert w.is_leaf and losses == sorted(set(losses), reverse=True), "created in place, it trains"
# sphinx_gallery_start_ignore
assert w.grad is not None and w.grad.dtype == torch.float64, "the leaf holds its gradient"
assert torch.randn(3, device="meta", requires_grad=True).is_leaf, "created on meta, it is a leaf"
# sphinx_gallery_end_ignore

# %%
# Or move first and ask for gradients after: ``requires_grad_()`` on the moved tensor makes it a
# leaf that requires grad, since nothing recorded the move.
w = torch.randn(3).to(torch.float64).requires_grad_()
losses = train([w], lambda: ((w - target) ** 2).sum())
print("w.is_leaf:", w.is_leaf, " w.dtype:", w.dtype, " losses:", losses)
assert w.is_leaf and losses == sorted(set(losses), reverse=True), "moved, then requires_grad_(): it trains"

# %%
# In a module, let ``module.to()`` move the parameters: they stay leaves (``Parameter`` objects)
# and the optimizer made after the move trains them.
model = torch.nn.Linear(3, 1)
model.to(torch.float64)
x = torch.randn(8, 3, dtype=torch.float64)
losses = train(model.parameters(), lambda: (model(x) - x.sum(1, keepdim=True)).pow(2).mean())
print("model.weight.is_leaf:", model.weight.is_leaf, " losses:", losses)
assert model.weight.is_leaf and losses == sorted(set(losses), reverse=True), "module.to() keeps leaves"
# sphinx_gallery_start_ignore
assert isinstance(model.weight, torch.nn.Parameter) and model.weight.grad.dtype == torch.float64
casts = (torch.Tensor.double, torch.Tensor.half)
assert not any(cast(torch.randn(3, requires_grad=True)).is_leaf for cast in casts), "casts are recorded"
source = torch.ones(3, requires_grad=True)
assert source.to("cpu") is source and source.to(torch.float32) is source, "a to() that changes nothing returns the leaf"
assert not source.to(torch.int64).requires_grad, "a cast to an integer dtype does not require grad"
with torch.no_grad():
    assert source.to(torch.float64).is_leaf, "under no_grad the cast is a leaf"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``to()``, ``double()`` and the other casts and moves are operations: in grad mode, when they change
# the device or the floating dtype of a tensor that requires grad, they return a non-leaf whose
# ``.grad`` stays ``None``,
# and an optimizer refuses it or updates the tensor it came from. Create the tensor with its
# ``dtype`` and ``device``, call ``requires_grad_()`` after the move, or move a module with
# ``module.to()``.
