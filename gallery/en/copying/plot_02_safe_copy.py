"""
.. _copying-safe-copy:

The safe copy: ``a.detach().clone()``
=====================================

The article calls ``a.detach().clone()`` the safest way to copy a tensor: the
result leaves the autograd graph and gets memory of its own. This page checks
both halves of that promise, and shows edits in either direction staying put.
"""

# %%
# A helper for the whole page
# ---------------------------
#
# Two tensors share memory when their storages start at the same address.

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# Make the copy
# -------------
#
# ``a`` is a leaf that requires grad. ``detach()`` first gives a view of ``a``
# outside the graph; ``clone()`` then copies that view into new memory.

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.detach().clone()
print("a:", a)
print("b:", b)
print("same storage:", same_storage(a, b))
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), b), "the copy must hold the same values"
# sphinx_gallery_end_ignore
assert not same_storage(a, b), "the copy must have its own memory"

# %%
# Outside the graph
# -----------------
#
# The copy does not require grad, has no ``grad_fn`` and is a leaf: for
# autograd it is a brand-new constant, unrelated to ``a``.

print("b.requires_grad:", b.requires_grad)
print("b.grad_fn:", b.grad_fn)
print("b.is_leaf:", b.is_leaf)
assert b.requires_grad is False, "the copy must not require grad"
# sphinx_gallery_start_ignore
assert b.grad_fn is None, "the copy must have no grad_fn"
assert b.is_leaf, "the copy must be a leaf"
# sphinx_gallery_end_ignore

# %%
# Autograd has nothing to follow from the copy. A loss built only from ``b``
# cannot be differentiated at all.

loss = (b**2).sum()
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "does not require grad" in str(e), "the error must say that the loss does not require grad"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward through the copy must fail")
print("a.grad:", a.grad)
# sphinx_gallery_start_ignore
assert a.grad is None, "a must receive no gradient from the copy"
# sphinx_gallery_end_ignore

# %%
# Edits to the copy stay in the copy
# ----------------------------------
#
# Writing into ``b`` leaves ``a`` unchanged.

b[0] = 100.0
print("a:", a)
print("b:", b)
assert torch.equal(a.detach(), torch.tensor([1.0, 2.0, 3.0])), "a must not change"
# sphinx_gallery_start_ignore
assert a._version == 0, "a's version counter must not count an edit of the copy"
# sphinx_gallery_end_ignore

# %%
# Edits to the source stay in the source
# --------------------------------------
#
# The other direction holds too. ``a`` is a leaf that requires grad, so an
# in-place edit of it has to run under ``torch.no_grad()``.

with torch.no_grad():
    a.mul_(10)
print("a:", a)
print("b:", b)
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), torch.tensor([10.0, 20.0, 30.0])), "a must change"
# sphinx_gallery_end_ignore
assert torch.equal(b, torch.tensor([100.0, 2.0, 3.0])), "b must not change"

# %%
# PyTorch recommends the same idiom
# ---------------------------------
#
# ``torch.tensor(a)`` also copies, but it warns, and its warning names
# ``detach().clone()`` as the recommended way. The warning is captured here on
# purpose and printed.

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = torch.tensor(a)
for w in caught:
    print(w.category.__name__ + ":", w.message)
print("t:", t)
print("same storage:", same_storage(a, t))
assert "detach().clone()" in str(caught[0].message), "the warning must recommend detach().clone()"
# sphinx_gallery_start_ignore
assert len(caught) == 1, "torch.tensor(a) must warn once"
assert caught[0].category is UserWarning, "the warning must be a UserWarning"
assert not same_storage(a, t), "torch.tensor(a) must copy"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``a.detach().clone()`` gives a tensor with the same values, its own memory and
# no link to the graph: edits in either direction stay put, and no gradient
# flows back to ``a``. The next pages take the two halves apart:
# :ref:`copying-clone` keeps the graph, :ref:`copying-detach` keeps the memory.
