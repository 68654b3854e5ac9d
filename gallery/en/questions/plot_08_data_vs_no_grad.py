"""
.. _questions-data-vs-no-grad:

Editing weights in place: ``.data`` or ``torch.no_grad()``?
===========================================================

Both let you change a tensor that requires grad in place. They differ when a graph that saved the
tensor is still waiting for ``backward()``: under ``torch.no_grad()`` the edit is counted and
``backward()`` raises "one of the variables needed for gradient computation has been modified by an
inplace operation"; through ``.data`` it is not counted, and ``backward()`` returns a wrong gradient
without a word. This page edits one pending graph both ways, then shows ``p.data = t`` changing a
parameter's shape silently. It answers
`pytorch/pytorch#30987 <https://github.com/pytorch/pytorch/issues/30987>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start. ``true_grad`` is what calculus says the
# gradient of ``(w * w).sum()`` is at the original weights, computed by ``torch.func.grad``.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


start = [1.0, 2.0, 3.0]
true_grad = torch.func.grad(lambda w: (w * w).sum())(torch.tensor(start))
print("true gradient:", true_grad)

# %%
# Under ``torch.no_grad()``: the edit is counted, ``backward()`` raises
# ---------------------------------------------------------------------
#
# ``w * w`` saves ``w`` for the backward pass, at version 0. The edit under ``torch.no_grad()``
# moves ``w._version`` to 1, and ``backward()`` refuses the changed tensor.

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
print("w._version before the edit:", w._version)
with torch.no_grad():
    w.mul_(10)
print("w._version after the edit:", w._version)
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after an edit under no_grad must raise")

# %%
# Through ``.data``: the edit is not counted, the gradient is wrong
# -----------------------------------------------------------------
#
# The same edit through ``w.data`` leaves ``w._version`` at 0. ``backward()`` runs, and uses the
# edited values: the gradient is ten times what calculus gives, and nothing says so.

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
w.data.mul_(10)
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
print("true gradient:", true_grad)
assert w._version == 0 and torch.equal(w.grad, 10 * true_grad), ".data must hide the edit and give a wrong gradient"

# %%
# The fix: finish ``backward()`` first, then edit
# -----------------------------------------------
#
# An update step belongs after ``backward()`` and under ``torch.no_grad()``: the gradient is the
# true one, and the edit is counted in ``_version`` for any graph built later.

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
print("w.grad:", w.grad)
print("w:", w)
print("w._version:", w._version, " w.is_leaf:", w.is_leaf)
assert torch.equal(w.grad, true_grad), "backward before the edit must give the true gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(w, torch.tensor(start) * 0.8), "the step must update w in place"
assert w._version == 1 and w.is_leaf, "the step is counted and w stays a leaf"
# sphinx_gallery_end_ignore

# %%
# ``p.data = t`` swaps the tensor behind a parameter, shape included
# ------------------------------------------------------------------
#
# Assigning to ``.data`` raises nothing even when the shapes differ: the parameter silently takes
# the new shape and, from then on, shares ``t``'s memory.

p = torch.nn.Parameter(torch.ones(3))
t = torch.zeros(5)
p.data = t
print("p.shape:", tuple(p.shape))
print("same storage (p, t):", same_storage(p, t))
print("p.requires_grad:", p.requires_grad, " p.is_leaf:", p.is_leaf)
assert tuple(p.shape) == (5,) and same_storage(p, t), "p.data = t must take t's shape and memory"

# %%
# ``copy_`` under ``torch.no_grad()`` writes the values into the parameter's own memory, and a
# shape that does not fit raises.

p = torch.nn.Parameter(torch.ones(3))
try:
    with torch.no_grad():
        p.copy_(torch.zeros(5))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("copy_ of a tensor of another size must raise")
t = torch.zeros(3)
with torch.no_grad():
    p.copy_(t)
print("p:", p)
print("same storage (p, t):", same_storage(p, t))
print("p._version:", p._version)
# sphinx_gallery_start_ignore
assert not same_storage(p, t) and torch.equal(p, t), "copy_ must copy the values, not the memory"
assert p._version == 1, "copy_ must be counted"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Edit weights under ``torch.no_grad()``, after ``backward()``: an edit that comes while a graph
# still needs the old values then raises instead of corrupting the gradient. ``.data`` hides the
# edit from autograd, and ``p.data = t`` also hides a change of shape; ``copy_`` under
# ``torch.no_grad()`` checks it. :ref:`data-vs-detach-comparison` sets ``.data`` against
# ``detach()``.
