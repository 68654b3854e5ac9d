"""
.. _copying-add-rebinding:

``c = a; a = a + 1``: the name moves, the graph stays
=====================================================

The article's last example binds ``c = a`` and then writes ``a = a + 1``. After
that, ``a`` names a new tensor in new memory, and ``c`` is the old leaf. This page
checks that, shows that the two are still linked in the autograd graph, and
contrasts the rebinding with the in-place ``a.add_(1)``, which keeps ``c`` and
``a`` one and the same tensor.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# Before the rebinding, ``c is a``
# --------------------------------
#
# ``c = a`` gives the leaf a second name. There is one tensor, and it is a
# leaf: it requires grad and has no ``grad_fn``.

a = torch.ones(2, 2)
a.requires_grad = True
c = a
print("a:", a)
print("c:", c)
print("c is a:", c is a)
print("c.grad_fn:", c.grad_fn, " c.is_leaf:", c.is_leaf)
assert c.is_leaf and c.grad_fn is None, "c must name a leaf"

# %%
# After ``a = a + 1``, two tensors
# --------------------------------
#
# ``a + 1`` allocates a new tensor, recorded in the graph as ``AddBackward0``,
# and ``=`` moves the name ``a`` to it. ``c`` is left with the original leaf:
# ones, ``requires_grad=True``, no ``grad_fn``.

a = a + 1
print("a:", a)
print("c:", c)
print("c is a:", c is a)
print("same storage:", same_storage(a, c))
print("a.grad_fn:", type(a.grad_fn).__name__, " a.is_leaf:", a.is_leaf)
print("c.grad_fn:", c.grad_fn, " c.is_leaf:", c.is_leaf)
print("c.requires_grad:", c.requires_grad)
assert c.is_leaf and c.requires_grad and c.grad_fn is None, "c must be the old leaf"
# sphinx_gallery_start_ignore
assert not same_storage(a, c), "the new a must have new memory"
assert c is not a, "a must now name a different tensor"
assert torch.equal(a.detach(), torch.full((2, 2), 2.0)), "a must hold twos"
assert torch.equal(c.detach(), torch.ones(2, 2)), "c must still hold ones"
assert type(a.grad_fn).__name__ == "AddBackward0", "a must come from an addition"
assert not a.is_leaf, "the new a must not be a leaf"
# sphinx_gallery_end_ignore

# %%
# Up to white space, both printed tensors read exactly as in the article's
# output block.


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[2., 2.], [2., 2.]], grad_fn=<AddBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]], requires_grad=True)"
print("a as the article prints it:", one_line(a) == article_a)
print("c as the article prints it:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# The graph still links them
# --------------------------
#
# The article says the link between ``a`` and ``c`` is broken, and for memory it
# is. For autograd it is not: the new ``a`` was computed from ``c``, so a loss
# built from ``a`` sends its gradient to ``c``, the leaf.

loss = (a * 3).sum()
loss.backward()
print("c.grad:", c.grad)
assert torch.equal(c.grad, torch.full((2, 2), 3.0)), "the gradient must reach c"

# %%
# In place, the names stay together
# ---------------------------------
#
# On a tensor that does not require grad, ``a.add_(1)`` changes the tensor
# itself: ``c`` is still ``a``, so it sees the new values. The augmented
# assignment ``a += 1`` is in place as well.

a = torch.ones(2, 2)
c = a
a.add_(1)
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a._version:", a._version)
assert torch.equal(c, torch.full((2, 2), 2.0)), "c must see the in-place addition"
# sphinx_gallery_start_ignore
assert a._version == 1, "add_ must count as one in-place change"
# sphinx_gallery_end_ignore

a += 1
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a._version:", a._version)
assert c is a, "a += 1 must not create a new object"
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.full((2, 2), 3.0)), "c must see a += 1"
assert a._version == 2, "two in-place additions must count twice"
# sphinx_gallery_end_ignore

# %%
# A leaf that requires grad refuses ``add_`` (as on :ref:`copying-rebinding`);
# under ``torch.no_grad()`` it accepts it, and stays the same leaf.

a = torch.ones(2, 2)
a.requires_grad = True
c = a
try:
    a.add_(1)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("add_ on the leaf must raise outside no_grad")

with torch.no_grad():
    a.add_(1)
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a.is_leaf:", a.is_leaf, " a.requires_grad:", a.requires_grad)
assert a.is_leaf and a.requires_grad, "a must stay a leaf that requires grad"
# sphinx_gallery_start_ignore
assert c.tolist() == [[2.0, 2.0], [2.0, 2.0]], "c must see the in-place addition"
assert a._version == 1, "only the add_ under no_grad must count"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``a = a + 1`` leaves ``c`` with the old leaf and gives ``a`` a new, non-leaf
# tensor in new memory; the outputs match the article's. The two are no longer
# the same memory, but gradients from the new ``a`` still flow back to ``c``.
# When every name should see the change, update in place: ``a.add_(1)`` or
# ``a += 1``, under ``torch.no_grad()`` for a leaf that requires grad.
