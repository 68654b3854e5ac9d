"""
.. _copying-rebinding:

``a = a - a.grad`` rebinds, ``a -= a.grad`` updates
===================================================

The article's third example takes ``c = a.detach()``, runs a backward pass, then
writes ``a = a - a.grad``. The name ``a`` moves to a brand-new tensor while ``c``
keeps the old values in the old memory. This page runs the example, fixes two
mistakes in its code, and contrasts it with the in-place update under
``torch.no_grad()``, which ``c`` does see.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# The setup
# ---------
#
# A 2×2 leaf of ones that requires grad, and a detached tensor ``c`` on the
# same memory.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
assert same_storage(a, c), "c must share a's memory"

# %%
# The commented-out line would fail
# ---------------------------------
#
# The article keeps ``#a[1,2] = 0`` as a comment. Uncommented, it raises
# ``IndexError``: a 2×2 tensor has no column with index 2. A valid index does not help
# either: writing into a leaf that requires grad raises ``RuntimeError``.

try:
    a[1, 2] = 0
except IndexError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a[1, 2] = 0 must raise IndexError")

try:
    a[1, 1] = 0
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("a[1, 1] = 0 must raise RuntimeError")
print("a:", a)
print("c:", c)
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.ones(2, 2)), "the failed writes must change nothing"
# sphinx_gallery_end_ignore

# %%
# ``c`` is a 2×2 tensor of ones
# -----------------------------
#
# The article's ``print(c)`` carries the comment ``#tensor([1., 2., 3.])``, left
# over from its previous example. ``c`` holds four ones, as the article's own
# output block shows.

print("c:", c)
assert torch.equal(c, torch.ones(2, 2)), "c must be a 2x2 tensor of ones"

# %%
# The backward pass
# -----------------
#
# ``b = (a * 2).sum()`` gives every element of ``a`` the gradient 2.

b = (a * 2).sum()
b.backward()
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.full((2, 2), 2.0)), "a.grad must be all twos"

# %%
# ``a = a - a.grad`` builds a new tensor
# --------------------------------------
#
# ``a - a.grad`` allocates a new tensor, and ``=`` points the name ``a`` at it.
# A second name ``a_old`` keeps the original leaf in view. The new ``a`` has a
# ``grad_fn`` of ``SubBackward0`` and is not a leaf; ``c`` still holds ones and
# still shares memory with ``a_old``.

a_old = a
a = a - a.grad
print("a:", a)
print("a_old:", a_old)
print("c:", c)
print("a is a_old:", a is a_old)
print("a.grad_fn:", type(a.grad_fn).__name__)
print("a.is_leaf:", a.is_leaf)
print("same storage (a, a_old):", same_storage(a, a_old))
print("same storage (c, a_old):", same_storage(c, a_old))
print("same storage (c, a):", same_storage(c, a))
assert torch.equal(c, torch.ones(2, 2)), "c must keep the old values"
# sphinx_gallery_start_ignore
assert not same_storage(a, a_old), "the new a must have new memory"
assert torch.equal(a.detach(), torch.full((2, 2), -1.0)), "the new a must hold -1"
assert a is not a_old, "the name a must point to a new tensor"
assert type(a.grad_fn).__name__ == "SubBackward0", "a must come from a subtraction"
assert not a.is_leaf, "the new a must not be a leaf"
assert same_storage(c, a_old), "c must still share the old tensor's memory"
assert torch.equal(a_old.detach(), torch.ones(2, 2)), "the old tensor must be unchanged"
# sphinx_gallery_end_ignore

# %%
# Up to white space, ``a`` and ``c`` print exactly as in the article's output
# block.


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[-1., -1.], [-1., -1.]], grad_fn=<SubBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]])"
print("a as the article prints it:", one_line(a) == article_a)
print("c as the article prints it:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    Two lines of the article's code are wrong, though its printed output is
#    right. The commented-out ``#a[1,2] = 0`` raises ``IndexError`` on a 2×2
#    tensor, and the comment ``#tensor([1., 2., 3.])`` after ``print(c)`` does
#    not match ``c``, which is a 2×2 tensor of ones (outputs above).
#    ``SubBackward0`` is printed as the article shows.

# %%
# The in-place update: ``c`` sees it
# ----------------------------------
#
# Repeat the example, but update ``a`` in place with ``a -= a.grad``. On a
# leaf that requires grad this raises, so it has to run under
# ``torch.no_grad()``. Then ``a`` stays the same object and the same leaf, and
# ``c`` sees the new values because it shares the memory.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
a_before = a

try:
    a -= a.grad
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("a -= a.grad must raise outside no_grad")

with torch.no_grad():
    a -= a.grad
print("a:", a)
print("c:", c)
print("a is a_before:", a is a_before)
print("a.is_leaf:", a.is_leaf, " a.grad_fn:", a.grad_fn)
print("same storage (c, a):", same_storage(c, a))
print("a._version:", a._version, " c._version:", c._version)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the update"
# sphinx_gallery_start_ignore
assert a is a_before, "a must still be the same object"
assert a.is_leaf and a.grad_fn is None, "a must still be a leaf"
assert same_storage(c, a), "c must still share a's memory"
assert a._version == c._version == 1, "the update must count once in the shared version"
# sphinx_gallery_end_ignore

# %%
# ``a.sub_(a.grad)`` is the same in-place update, written as a method call.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
with torch.no_grad():
    a.sub_(a.grad)
print("a:", a)
print("c:", c)
print("same storage (c, a):", same_storage(c, a))
print("a.is_leaf:", a.is_leaf)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the update"
# sphinx_gallery_start_ignore
assert a.is_leaf, "a must still be a leaf"
# sphinx_gallery_end_ignore

# %%
# ``torch.optim.SGD`` updates in place too
# ----------------------------------------
#
# An optimizer step with learning rate 1 performs the same update on the same
# memory, so ``c`` follows it as well.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
optimizer = torch.optim.SGD([a], lr=1.0)
optimizer.step()
print("a:", a)
print("c:", c)
print("same storage (c, a):", same_storage(c, a))
print("a.is_leaf:", a.is_leaf)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the optimizer step"
# sphinx_gallery_start_ignore
assert a.is_leaf, "a must still be a leaf"
# sphinx_gallery_end_ignore

# %%
# The next step: ``.grad`` of the rebound ``a`` is ``None``
# ---------------------------------------------------------
#
# In a loop, ``a = a - a.grad`` breaks the second step. The new ``a`` is not a
# leaf, so the next ``backward()`` leaves its ``.grad`` at ``None`` (torch
# warns when it is read) and the update after it fails.

a = torch.ones(2, 2)
a.requires_grad = True
(a * 2).sum().backward()
a = a - a.grad
(a * 2).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    grad = a.grad
print("a.is_leaf:", a.is_leaf)
print("a.grad:", grad)
print("warning when reading a.grad:", caught[0].category.__name__)
assert grad is None, "the rebound a is not a leaf: backward leaves its .grad None"
try:
    a = a - grad
except TypeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a - None must raise TypeError")

# %%
# Gradients accumulate until you clear them
# -----------------------------------------
#
# Each ``backward()`` adds to ``.grad``; it does not replace it. Two passes
# give twice the gradient, so a training loop clears ``.grad`` (``a.grad =
# None``, or ``optimizer.zero_grad()``) before each pass.

a = torch.ones(2, 2)
a.requires_grad = True
(a * 2).sum().backward()
(a * 2).sum().backward()
print("a.grad after two backward passes:", a.grad)
assert torch.equal(a.grad, torch.full((2, 2), 4.0)), "gradients accumulate: 2 + 2"
a.grad = None
(a * 2).sum().backward()
print("a.grad after a.grad = None and one more:", a.grad)
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.full((2, 2), 2.0)), "after clearing, one pass gives 2"
# sphinx_gallery_end_ignore

# %%
# An update breaks a graph that still needs the old values
# --------------------------------------------------------
#
# An in-place update is not free either. A graph built before the update
# saved ``w`` at its version then; the optimizer step moves the version, and
# ``backward()`` through that graph fails. This is the usual failure when one
# network is updated between another network's forward and backward passes
# (as in a GAN).

w = torch.ones(2, 2)
w.requires_grad = True
optimizer = torch.optim.SGD([w], lr=0.1)
(w * w).sum().backward()
optimizer.step()
print("w._version after one step:", w._version)
pending = (w * w).sum()
optimizer.step()
print("w._version after another step:", w._version)
try:
    pending.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    assert "is at version 2; expected version 1" in str(e), "the pending graph saved w at version 1"
else:
    raise AssertionError("backward through a graph that saved w must fail after the step")

# %%
# Conclusion
# ----------
#
# ``a = a - a.grad`` computes a new tensor and moves the name; anything taken
# from the old tensor, like ``c``, stays with the old memory, and the new ``a``
# is no longer a leaf. To change the values that other names see, update in
# place under ``torch.no_grad()``, as optimizers do; clear ``.grad`` between
# passes, and run ``backward()`` on every graph that saved the parameter
# before you update it. The next page,
# :ref:`copying-add-rebinding`, shows the same split for ``a = a + 1``.
