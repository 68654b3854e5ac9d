"""
.. _questions-non-leaf-grad:

Why is ``.grad`` ``None``? Gradients of non-leaf tensors
========================================================

After ``backward()``, reading ``.grad`` of an intermediate result gives ``None`` and the warning
"The .grad attribute of a Tensor that is not a leaf Tensor is being accessed". This page reproduces
it, gets that gradient three ways (``retain_grad()``, a hook, ``torch.autograd.grad``), shows the
manual update loop that turns a leaf into a non-leaf without noticing, and shows that gradients add
up until you zero them. The warning itself points to
`pytorch/pytorch#30531 <https://github.com/pytorch/pytorch/pull/30531>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``read_grad`` reads ``t.grad`` and returns it with the first sentence of any warning the read
# raised, so that the page can show the warning instead of letting it escape.

import warnings

import torch


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    return grad, [f"{w.category.__name__}: {str(w.message).split('. ')[0]}." for w in caught]


# %%
# The symptom
# -----------
#
# ``x`` is a leaf (you made it); ``y = x * 2`` is not (an operation made it, so it has a
# ``grad_fn``). ``backward()`` fills ``.grad`` of leaves only: ``y.grad`` is ``None``, and reading
# it warns.

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = (y * y).sum()
z.backward()
y_grad, caught = read_grad(y)
print("x.is_leaf:", x.is_leaf, " y.is_leaf:", y.is_leaf, " y.grad_fn:", y.grad_fn.name())
print("x.grad:", x.grad)
print("y.grad:", y_grad)
print("warnings:", caught)
assert y_grad is None and caught[0].startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf"), (
    "reading .grad of a non-leaf must give None and warn"
)

# %%
# Three ways to get the gradient of ``y``
# ---------------------------------------
#
# ``dz/dy = 2 * y``. ``y.retain_grad()`` before ``backward()`` asks autograd to keep it in
# ``y.grad``.

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.retain_grad()
(y * y).sum().backward()
print("y.retains_grad:", y.retains_grad)
print("y.grad:", y.grad)
assert torch.equal(y.grad, 2 * y.detach()), "retain_grad() must keep dz/dy in y.grad"

# %%
# A hook on ``y`` sees the same gradient as it passes, without storing it on ``y``.

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
seen = []
y.register_hook(seen.append)
(y * y).sum().backward()
print("the hook saw:", seen)
print("y.grad:", read_grad(y)[0])
# sphinx_gallery_start_ignore
assert len(seen) == 1 and torch.equal(seen[0], 2 * y.detach()), "the hook must see dz/dy"
assert read_grad(y)[0] is None, "the hook must not store the gradient on y"
# sphinx_gallery_end_ignore

# %%
# ``torch.autograd.grad`` returns the gradient with respect to any tensor of the graph and writes no
# ``.grad`` at all, not even on the leaf.

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
(dz_dy,) = torch.autograd.grad((y * y).sum(), y)
print("dz/dy:", dz_dy)
print("x.grad:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(dz_dy, 2 * y.detach()) and x.grad is None, "autograd.grad must return dz/dy and write no .grad"
# sphinx_gallery_end_ignore

# %%
# The update loop that makes a leaf a non-leaf
# --------------------------------------------
#
# ``w = w - lr * w.grad`` outside ``torch.no_grad()`` builds a new tensor from an operation and
# rebinds the name ``w`` to it: ``w`` is now a non-leaf, and the next ``backward()`` leaves its
# ``.grad`` at ``None``, so the next update, ``lr * w.grad``, raises ``TypeError``.

lr = 0.1
w = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(2):
    (w * w).sum().backward()
    grad, caught = read_grad(w)
    print(f"step {step}: w.is_leaf={w.is_leaf} w.grad={grad} warnings={len(caught)}")
    if grad is not None:
        w = w - lr * grad
print("w.grad_fn:", w.grad_fn.name())
assert not w.is_leaf and read_grad(w)[0] is None, "the rebinding update must make w a non-leaf without .grad"
try:
    w = w - lr * read_grad(w)[0]
except TypeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an update with w.grad None must raise")

# %%
# The fix edits ``w`` in place under ``torch.no_grad()`` and zeroes the gradient after each step:
# ``w`` stays the same leaf, and after three steps it equals what ``w <- (1 - 2 lr) w`` gives.

w = torch.tensor([1.0, 2.0], requires_grad=True)
w_start = w.detach().clone()
for _ in range(3):
    (w * w).sum().backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad.zero_()
print("w:", w, " w.is_leaf:", w.is_leaf)
print("expected:", w_start * (1 - 2 * lr) ** 3)
assert w.is_leaf and torch.allclose(w, w_start * (1 - 2 * lr) ** 3), "the in-place update must keep w a leaf"

# %%
# Gradients add up until zeroed
# -----------------------------
#
# Each ``backward()`` adds to ``.grad``; it never replaces it. Two passes over the same loss give
# twice the gradient. ``zero_()`` starts afresh.

x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
print("after one backward:", x.grad)
(x * x).sum().backward()
print("after two:", x.grad)
assert torch.equal(x.grad, 2 * (2 * x.detach())), "a second backward must add to .grad"
x.grad.zero_()
(x * x).sum().backward()
print("after zero_() and one more:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(x.grad, 2 * x.detach()), "after zero_(), one backward gives the gradient once"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``.grad`` is filled on leaves only. For an intermediate tensor, call ``retain_grad()`` before
# ``backward()``, register a hook, or ask ``torch.autograd.grad``. Update parameters in place under
# ``torch.no_grad()``, so that they stay leaves, and zero their gradients between steps.
