"""
.. _questions-leaf-inplace:

"a leaf Variable that requires grad is being used in an in-place operation"
===========================================================================

A hand-written update step, ``w -= lr * w.grad``, stops with
``RuntimeError: a leaf Variable that requires grad is being used in an
in-place operation.``; editing one row of a weight gives its variant, "a view
of a leaf Variable ...". This page shows both, then the ways to edit a
parameter on purpose: ``torch.no_grad()``, ``copy_``,
``torch.utils.swap_tensors``, and why ``.data`` also works but says nothing.
It answers the question behind `pytorch/examples#779
<https://github.com/pytorch/examples/pull/779>`__.
"""

# %%
# Helpers
# -------
#
# ``show`` prints a tensor with its autograd flags and version counter.
import torch


def show(name, t):
    node = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}  grad_fn={node}")


# %%
# The symptom: a manual SGD step
# ------------------------------
#
# ``w`` is a leaf that requires grad: ``backward()`` stores its gradient in
# ``w.grad``. For ``L = (w**2).sum()`` that gradient is ``2 * w``. The
# update written as Python reads it, ``w -= lr * w.grad``, is an in-place
# subtraction on ``w``, and autograd refuses it while it is recording.
lr = 0.1
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w**2).sum().backward()
show("w", w)
print("w.grad:", w.grad)
try:
    w -= lr * w.grad
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a leaf that requires grad must raise")
show("w", w)
assert message == "a leaf Variable that requires grad is being used in an in-place operation.", "the exact message"
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.tensor([2.0, 4.0])), "the gradient of sum(w**2) is 2w"
assert w._version == 0, "the refused edit did not happen"
# sphinx_gallery_end_ignore

# %%
# The variant: "a view of a leaf Variable"
# ----------------------------------------
#
# Weight surgery, such as zeroing one row, edits a view of the leaf: ``w[0]``
# is a view, and the message says so.
layer = torch.nn.Linear(3, 2)
try:
    layer.weight[0] = 0.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a view of a leaf must raise")
assert message.startswith("a view of a leaf Variable that requires grad is being used in an in-place operation")

# %%
# Fix 1: ``torch.no_grad()``
# --------------------------
#
# An update step is not part of the model: it should not be recorded at all.
# Under ``torch.no_grad()`` the same line runs, ``w`` stays a leaf without a
# ``grad_fn``, and its version counter moves, so any graph that saved ``w``
# would still notice the edit.
with torch.no_grad():
    w -= lr * w.grad
show("w", w)
assert w.is_leaf and w.grad_fn is None and w._version == 1, "an unrecorded edit that the counter sees"
# sphinx_gallery_start_ignore
assert torch.allclose(w, torch.tensor([0.8, 1.6])), "w - lr * 2w"
assert w.requires_grad, "w still requires grad"
# sphinx_gallery_end_ignore

# %%
# The step is the one calculus gives, ``w - 0.1 * 2 * w = 0.8 * w``, and
# the next ``backward()`` works on the updated leaf (after ``w.grad`` is
# reset, since gradients add up).
w.grad = None
(w**2).sum().backward()
print("w.grad:", w.grad)
assert torch.allclose(w.grad, 2 * torch.tensor([0.8, 1.6])), "the next gradient is 2w at the new w"

# %%
# Fix 2: ``copy_`` (and ``nn.init``) for weight surgery
# -----------------------------------------------------
#
# To set a parameter to given values, copy them into it under ``no_grad``.
# The parameter stays the same object with the same storage, so an optimizer
# that holds it sees the new values. ``torch.nn.init`` functions do the
# ``no_grad`` themselves.
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
weight = layer.weight
with torch.no_grad():
    layer.weight.copy_(torch.ones(2, 3))
    layer.weight[0] = 0.0
torch.nn.init.zeros_(layer.bias)
show("layer.weight", layer.weight)
show("layer.bias", layer.bias)
print("same object as before:", layer.weight is weight)
print("the optimizer holds it:", opt.param_groups[0]["params"][0] is layer.weight)
assert layer.weight is weight and torch.equal(layer.weight, torch.tensor([[0.0] * 3, [1.0] * 3]))
# sphinx_gallery_start_ignore
assert layer.weight.is_leaf and layer.bias.is_leaf, "both stay leaves"
assert torch.equal(layer.bias, torch.zeros(2)), "nn.init.zeros_ needs no no_grad"
# sphinx_gallery_end_ignore

# %%
# Fix 3: ``torch.utils.swap_tensors`` when the shape changes
# ----------------------------------------------------------
#
# ``copy_`` cannot change a shape. To grow a layer from 2 to 4 outputs and
# keep the object the optimizer holds, ``torch.utils.swap_tensors`` swaps the
# contents of two tensor objects: ``layer.weight`` is still the same Python
# object, now with the new shape and values.
bigger = torch.nn.Parameter(torch.full((4, 3), 0.5))
torch.utils.swap_tensors(layer.weight, bigger)
show("layer.weight", layer.weight)
print("same object as before:", layer.weight is weight)
print("the optimizer holds it:", opt.param_groups[0]["params"][0] is layer.weight)
print("bigger now holds the old values:", bigger.shape)
assert layer.weight is weight and layer.weight.shape == (4, 3), "same object, new shape"
# sphinx_gallery_start_ignore
assert bigger.shape == (2, 3), "the other object got the old contents"
assert isinstance(layer.weight, torch.nn.Parameter) and layer.weight.requires_grad
# sphinx_gallery_end_ignore

# %%
# Why ``.data`` also works, and says nothing
# ------------------------------------------
#
# The fix merged for the issue above was ``p.data.add_(...)``. It runs,
# because ``p.data`` is a tensor outside autograd. But it also has a version
# counter of its own, so the edit does not move ``p._version``: a graph that
# saved ``p`` would not notice, and its gradient would be silently wrong (see
# :ref:`data-vs-detach-data`). Under ``no_grad`` the counter moves.
p = torch.tensor([1.0, 2.0], requires_grad=True)
p.data.mul_(10)
print("after p.data.mul_(10):        p._version =", p._version)
with torch.no_grad():
    p.mul_(10)
print("after no_grad(): p.mul_(10):  p._version =", p._version)
show("p", p)
assert p._version == 1, "only the edit under no_grad moved the counter"

# %%
# Conclusion
# ----------
#
# A leaf that requires grad cannot be edited in place while autograd
# records. Edit it under ``torch.no_grad()`` (``w -= lr * w.grad``,
# ``copy_``, item assignment), use a ``torch.nn.init`` function, or swap the
# whole tensor with ``torch.utils.swap_tensors``. ``.data`` works too, but
# hides the edit from the version counter.
