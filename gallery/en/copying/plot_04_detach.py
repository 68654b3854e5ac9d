"""
.. _copying-detach:

``detach()``: same memory, out of the graph
===========================================

``a.detach()`` returns a tensor that shares ``a``'s memory but does not
require grad: a value edit through either one is seen by both. This page runs the article's
example, then tests its warning that ``resize_``, ``resize_as_``, ``set_`` and
``transpose_`` raise an error on either tensor. On this torch the detached
tensor accepts all four, and stays linked to its source by one version
counter; only the source leaf refuses them.
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
# The article's detach
# --------------------
#
# ``c`` shares ``a``'s memory. It does not require grad, has no ``grad_fn``,
# and is a leaf.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.detach()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
print("a.requires_grad:", a.requires_grad)
print("c.requires_grad:", c.requires_grad)
print("c.grad_fn:", c.grad_fn)
print("c.is_leaf:", c.is_leaf)
assert same_storage(a, c), "the detached tensor must share a's memory"
# sphinx_gallery_start_ignore
assert c.requires_grad is False, "the detached tensor must not require grad"
assert c.grad_fn is None, "the detached tensor must have no grad_fn"
assert c.is_leaf, "the detached tensor must be a leaf"
# sphinx_gallery_end_ignore

# %%
# The article's backward pass: ``a`` gets ``2 * a``. ``c`` is a leaf that does
# not require grad, so its ``.grad`` is ``None``, and, unlike the clone's on the
# previous page, reading it raises no warning.

b = (a**2).sum()
b.backward()
print("a.grad:", a.grad)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    c_grad = c.grad
print("c.grad:", c_grad)
print("warnings when reading c.grad:", len(caught))
assert caught == [], "reading the .grad of a leaf must not warn"
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.tensor([2.0, 4.0, 6.0])), "a.grad must be 2 * a"
assert c_grad is None, "c.grad must be None"
# sphinx_gallery_end_ignore

# %%
# The article then writes ``a = 1`` and prints ``c`` unchanged. As on
# :ref:`copying-clone`, that line only rebinds the name ``a``; ``c`` still
# shares memory with the tensor that ``a`` used to name.

a_old = a
a = 1
print("a:", a)
print("c:", c)
print("same storage as the old a:", same_storage(a_old, c))
assert same_storage(a_old, c), "c must still share the old tensor's memory"
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.tensor([1.0, 2.0, 3.0])), "c must be unchanged"
# sphinx_gallery_end_ignore

# %%
# Edits reach the other tensor, in both directions
# ------------------------------------------------
#
# On a fresh pair, a write through ``c`` shows up in ``a``. The two also share
# one version counter: both ``_version`` values go up together. (``_version``
# is an internal attribute of torch: this site reads it to show the counter,
# but it may change between releases.)

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.detach()
c[0] = 100.0
print("a:", a)
print("c:", c)
print("a._version:", a._version, " c._version:", c._version)
assert a[0] == 100.0, "a write through c must reach a"
# sphinx_gallery_start_ignore
assert a._version == c._version == 1, "a and c must share one version counter"
# sphinx_gallery_end_ignore

# %%
# The other direction needs ``torch.no_grad()``, because ``a`` is a leaf that
# requires grad.

with torch.no_grad():
    a[1] = 200.0
print("a:", a)
print("c:", c)
print("a._version:", a._version, " c._version:", c._version)
assert c[1] == 200.0, "a write through a must reach c"
# sphinx_gallery_start_ignore
assert a._version == c._version == 2, "a and c must share one version counter"
# sphinx_gallery_end_ignore

# %%
# In-place size and storage changes
# ---------------------------------
#
# Each test below starts from a fresh pair: a 2×3 leaf ``a`` that requires
# grad, and ``d = a.detach()``. These are the four calls the article names.

values = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def fresh_pair():
    a = torch.tensor(values, requires_grad=True)
    return a, a.detach()


changes = {
    "resize_(3, 2)": lambda t: t.resize_(3, 2),
    "resize_as_(torch.zeros(3, 2))": lambda t: t.resize_as_(torch.zeros(3, 2)),
    "set_(torch.zeros(6))": lambda t: t.set_(torch.zeros(6)),
    "transpose_(0, 1)": lambda t: t.transpose_(0, 1),
}

# %%
# On the detached tensor, all four succeed
# ----------------------------------------
#
# Each call changes the shape of ``d``, not of ``a``: ``a`` keeps its shape
# and its values. After ``resize_``, ``resize_as_`` and ``transpose_``, ``d``
# still looks at ``a``'s memory with a new shape; after ``set_``, ``d`` looks
# at other memory. The next two cells show what still links them.

# sphinx_gallery_start_ignore
expected_shapes = {
    "resize_(3, 2)": (3, 2),
    "resize_as_(torch.zeros(3, 2))": (3, 2),
    "set_(torch.zeros(6))": (6,),
    "transpose_(0, 1)": (3, 2),
}
# sphinx_gallery_end_ignore
for call, change in changes.items():
    a, d = fresh_pair()
    change(d)
    print(f"d.{call}")
    print("a:", a)
    print("d:", d)
    print("same storage:", same_storage(a, d))
    assert a.tolist() == values, f"d.{call} must leave a's values alone"
    # sphinx_gallery_start_ignore
    assert tuple(a.shape) == (2, 3), f"d.{call} must leave a's shape alone"
    assert tuple(d.shape) == expected_shapes[call], f"d.{call} must change d's shape"
    shares = not call.startswith("set_")
    assert same_storage(a, d) == shares, f"d.{call}: memory must stay shared unless set_"
    # sphinx_gallery_end_ignore

# %%
# Still one version counter
# -------------------------
#
# After ``d.set_(...)`` the two tensors no longer share memory, but they still
# share the version counter. ``d.add_(1)`` moves ``a._version``, so a graph
# that saved ``a`` before the edit refuses to run ``backward()``, although
# ``a``'s values never changed.

a, d = fresh_pair()
loss = (a * a).sum()
d.set_(torch.zeros(6))
version_before = a._version
d.add_(1)
print("same storage:", same_storage(a, d))
print("a._version before d.add_(1):", version_before, " after:", a._version)
assert a._version == version_before + 1, "d.add_(1) after d.set_ must still move a._version"
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    # sphinx_gallery_start_ignore
    assert "modified by an inplace operation" in str(e), "the error must be the version check"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward must notice the edit through d")
# sphinx_gallery_start_ignore
assert a.tolist() == values, "a's values never changed"
# sphinx_gallery_end_ignore

# %%
# A growing ``resize_`` moves ``a`` as well
# -----------------------------------------
#
# ``d.resize_(100)`` needs more memory than the 6 elements ``a`` and ``d``
# share. torch allocates a larger storage and puts it under both tensors:
# ``a`` keeps its shape and values, in new memory.

a, d = fresh_pair()
old_address = a.untyped_storage().data_ptr()
d.resize_(100)
print("a:", a)
print("d.shape:", tuple(d.shape))
print("a now in new memory:", a.untyped_storage().data_ptr() != old_address)
print("same storage:", same_storage(a, d))
print("bytes in a's storage:", a.untyped_storage().nbytes())
assert a.untyped_storage().data_ptr() != old_address, "a growing d.resize_ must move a's memory"
# sphinx_gallery_start_ignore
assert same_storage(a, d) and a.untyped_storage().nbytes() == 400, "a and d share the new storage"
assert a.tolist() == values and tuple(a.shape) == (2, 3), "a keeps its shape and values"
# sphinx_gallery_end_ignore

# %%
# On the source leaf, all four raise
# ----------------------------------
#
# The same calls on ``a`` raise ``RuntimeError``, with two different messages,
# and leave both tensors as they were.

resize_error = "cannot resize variables that require grad"
leaf_error = "a leaf Variable that requires grad is being used in an in-place operation."
leaf_errors = {
    "resize_(3, 2)": resize_error,
    "resize_as_(torch.zeros(3, 2))": resize_error,
    "set_(torch.zeros(6))": leaf_error,
    "transpose_(0, 1)": leaf_error,
}
for call, change in changes.items():
    a, d = fresh_pair()
    print(f"a.{call}")
    try:
        change(a)
    except RuntimeError as e:
        print(f"{type(e).__name__}: {e}")
        # sphinx_gallery_start_ignore
        assert str(e) == leaf_errors[call], f"a.{call} must raise this RuntimeError"
        # sphinx_gallery_end_ignore
    else:
        raise AssertionError(f"a.{call} must raise")
    # sphinx_gallery_start_ignore
    assert tuple(a.shape) == tuple(d.shape) == (2, 3), f"a.{call} must change no shape"
    assert same_storage(a, d), f"a.{call} must leave the memory shared"
    # sphinx_gallery_end_ignore

# %%
# The errors come from ``requires_grad``, not from ``detach()``
# -------------------------------------------------------------
#
# A leaf that requires grad and was never detached raises the same errors. The
# same tensor without ``requires_grad`` accepts all four calls.

for call, change in changes.items():
    lone = torch.tensor(values, requires_grad=True)
    print(f"lone.{call}")
    try:
        change(lone)
    except RuntimeError as e:
        print(f"{type(e).__name__}: {e}")
        assert str(e) == leaf_errors[call], f"lone.{call} must raise the same error as a.{call}"
    else:
        raise AssertionError(f"lone.{call} must raise")
    plain = torch.tensor(values)
    change(plain)
    print(f"plain.{call} -> shape", tuple(plain.shape))
    # sphinx_gallery_start_ignore
    assert tuple(plain.shape) == expected_shapes[call], f"plain.{call} must succeed"
    # sphinx_gallery_end_ignore

# %%
# A source that is not a leaf behaves differently again: ``x * 2`` accepts
# ``set_`` and ``transpose_`` and refuses only the two resizes, because it
# requires grad.

def accepts(t, change):
    try:
        change(t)
    except RuntimeError as e:
        print(f"    {type(e).__name__}: {e}")
        return False
    return True


accepted = []
for call, change in changes.items():
    x = torch.tensor(values, requires_grad=True)
    a = x * 2
    print(f"non-leaf a.{call}")
    if accepts(a, change):
        accepted.append(call)
        print("    accepted, shape", tuple(a.shape))
assert accepted == ["set_(torch.zeros(6))", "transpose_(0, 1)"], "a non-leaf accepts set_, transpose_"

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article says that ``resize_``, ``resize_as_``, ``set_`` and
#    ``transpose_`` raise an error when done on either the detached tensor or
#    its source. That was true when it was written: up to torch 1.12 these
#    calls on a tensor from ``.data`` or ``.detach()`` raised "… is not
#    allowed on a Tensor created from .data or .detach()", and the
#    ``Tensor.detach`` docstring said so until the 2.2 docs.
#    `pytorch/pytorch#83590 <https://github.com/pytorch/pytorch/pull/83590>`__
#    ("Always allow tensor metadata changes", August 2022) lifted the
#    restriction. On this torch all four succeed on the detached tensor
#    (output above). They change its shape or storage, not ``a``'s, except
#    that a growing ``resize_`` moves the memory both use, and the two tensors
#    keep one version counter. On the source leaf they raise only because it
#    is a leaf that requires grad; a non-leaf source accepts ``set_`` and
#    ``transpose_``.

# %%
# Conclusion
# ----------
#
# ``detach()`` gives a tensor out of the graph on the same memory: value edits
# through either name reach the other, and both count them in one shared
# ``_version``. Shape and storage changes on the detached tensor change its
# shape, not ``a``'s, but never its version counter, and a growing
# ``resize_`` moves ``a``'s memory too.
# The article's third example, where ``a`` is rebound after ``detach()``, is
# the subject of :ref:`copying-rebinding`.
