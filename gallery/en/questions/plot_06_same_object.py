"""
.. _questions-same-object:

Calls that look like copies and return the same tensor
======================================================

``b = a.cpu()``, ``b = a.to(torch.float32)``, ``b = a.float()``: each reads as
"make me a converted copy", and when there is nothing to convert each returns
``a`` itself. An edit of ``b`` is then an edit of ``a``. This page lists these
calls, shows ``to(copy=True)`` (added by `pytorch/pytorch#12454
<https://github.com/pytorch/pytorch/issues/12454>`__), and what a cast that
does copy means for autograd (``ToCopyBackward0``).
"""

# %%
# Helpers
# -------
import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# The symptom
# -----------
#
# On a CPU tensor, ``a.cpu()`` has nothing to move, so it returns ``a``. The
# in-place edit of the "copy" changes ``a``, and both names show the same
# version.
a = torch.tensor([1.0, 2.0, 3.0])
b = a.cpu()
b.add_(10)
print("a:", a, " a._version:", a._version)
print("b:", b, " b._version:", b._version)
print("b is a:", b is a)
assert b is a and torch.equal(a, torch.tensor([11.0, 12.0, 13.0])), "cpu() returned a itself"

# %%
# Which calls return the tensor itself
# ------------------------------------
#
# Each of the first eight calls, asked for what the tensor already is,
# returns the very same object. Only an explicit copy, or a real change of
# dtype, gives new memory.
a = torch.tensor([1.0, 2.0, 3.0])
results = {
    "a.to(torch.float32)": a.to(torch.float32),
    "a.to('cpu')": a.to("cpu"),
    "a.cpu()": a.cpu(),
    "a.float()": a.float(),
    "a.contiguous()": a.contiguous(),
    "a.type(torch.float32)": a.type(torch.float32),
    "a.type_as(a)": a.type_as(a),
    "torch.as_tensor(a)": torch.as_tensor(a),
    "a.to(torch.float32, copy=True)": a.to(torch.float32, copy=True),
    "a.double()": a.double(),
    "a.clone()": a.clone(),
}
same = [name for name, result in results.items() if result is a]
for name, result in results.items():
    print(f"{name:<31} is a: {name in same!s:<5}  same storage: {same_storage(result, a)}")
assert same == list(results)[:8], "the first eight return a itself"
# sphinx_gallery_start_ignore
assert not any(same_storage(results[key], a) for key in list(results)[8:]), "the last three copy"
# sphinx_gallery_end_ignore

# %%
# ``to(copy=True)``, and not ``torch.tensor(a)``
# ----------------------------------------------
#
# ``to(..., copy=True)`` always gives new memory, even when nothing needs
# converting. ``torch.tensor(a)`` copies too, but warns and recommends
# ``a.detach().clone()``; we catch the warning to show it.
copied = a.to(copy=True)
copied.add_(10)
print("a:", a)
print("copied:", copied)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    rebuilt = torch.tensor(a)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
assert torch.equal(a, torch.tensor([1.0, 2.0, 3.0])), "the edit of the copy left a alone"
# sphinx_gallery_start_ignore
assert not same_storage(rebuilt, a), "torch.tensor(a) copies"
assert [record.category for record in caught] == [UserWarning] and "detach().clone()" in str(caught[0].message)
# sphinx_gallery_end_ignore

# %%
# A cast that copies stays in the graph
# -------------------------------------
#
# With ``requires_grad=True``, the calls that return ``a`` itself return the
# leaf. A cast that copies, ``a.double()`` or ``to(copy=True)``, is an
# operation autograd records (``ToCopyBackward0``): the result is not a leaf,
# and the gradient flows back to ``a`` in ``a``'s own dtype. It is a copy of
# memory, not a way out of the graph; that is ``detach()``.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
as_float = a.float()
as_double = a.double()
forced = a.to(copy=True)
print("a.float() is a:", as_float is a)
print("a.double(): grad_fn", as_double.grad_fn.name(), " is_leaf", as_double.is_leaf, " dtype", as_double.dtype)
print("a.to(copy=True): grad_fn", forced.grad_fn.name(), " is_leaf", forced.is_leaf)
as_double.sum().backward()
print("a.grad:", a.grad)
assert as_double.grad_fn.name() == "ToCopyBackward0" and a.grad.dtype == torch.float32, "recorded, and back in float32"
# sphinx_gallery_start_ignore
assert as_float is a and forced.grad_fn.name() == "ToCopyBackward0" and not forced.is_leaf
assert torch.equal(a.grad, torch.ones(3)), "the derivative of a cast is 1"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``to``, ``cpu``, ``float``, ``contiguous``, ``type`` and ``torch.as_tensor``
# return their input when there is nothing to do. For memory of your own, use
# ``clone()`` or ``to(..., copy=True)``; to leave the graph as well,
# ``detach().clone()`` (see :ref:`copying-safe-copy`).
