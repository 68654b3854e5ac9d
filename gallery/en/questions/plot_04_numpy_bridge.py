"""
.. _questions-numpy-bridge:

The NumPy bridge: "Can't call numpy() on Tensor that requires grad"
===================================================================

``RuntimeError: Can't call numpy() on Tensor that requires grad. Use
tensor.detach().numpy() instead.`` (`pytorch/pytorch#44023
<https://github.com/pytorch/pytorch/issues/44023>`__). The suggested fix works,
and the array it returns shares memory with the tensor. This page shows which
conversions between NumPy and torch share memory and which copy, and how a
write through NumPy changes a gradient without autograd noticing.
"""

# %%
# Helpers
# -------
#
# ``shares`` compares the address of a tensor's first element with the
# address of an array's first element: equal addresses mean one memory.
import warnings

import numpy as np
import torch


def shares(t, array):
    return t.data_ptr() == array.__array_interface__["data"][0]


# %%
# The symptom
# -----------
#
# A tensor that requires grad refuses to become a NumPy array, because NumPy
# would let you read and change it outside autograd.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    a.numpy()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("numpy() on a tensor that requires grad must raise")
assert message == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."

# %%
# The suggested ``detach().numpy()`` returns an array over the tensor's own
# memory, and so does ``numpy(force=True)`` on a CPU tensor: neither copies.
view = a.detach().numpy()
forced = a.numpy(force=True)
print("detach().numpy():", view, " shares a's memory:", shares(a, view))
print("numpy(force=True):", forced, " shares a's memory:", shares(a, forced))
assert shares(a, view) and shares(a, forced), "both arrays use a's memory"

# %%
# Which conversions share, which copy
# -----------------------------------
#
# From NumPy to torch, ``torch.from_numpy`` and ``torch.as_tensor`` share the
# array's memory (when the dtype already fits); ``torch.tensor`` copies. From
# torch to NumPy, ``Tensor.numpy()`` and ``np.asarray`` share; ``np.array``
# copies, and with this NumPy it also warns, because ``Tensor.__array__``
# does not take NumPy 2's ``copy`` keyword. We catch the warning to show it.
array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
print("torch.from_numpy(array) shares:", shares(torch.from_numpy(array), array))
print("torch.as_tensor(array) shares: ", shares(torch.as_tensor(array), array))
print("torch.tensor(array) shares:    ", shares(torch.tensor(array), array))
t = torch.tensor([1.0, 2.0, 3.0])
print("t.numpy() shares:              ", shares(t, t.numpy()))
print("np.asarray(t) shares:          ", shares(t, np.asarray(t)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    copied = np.array(t)
print("np.array(t) shares:            ", shares(t, copied))
print("np.array(t) warned:", [f"{w.category.__name__}: {w.message}" for w in caught])
assert not shares(torch.tensor(array), array) and not shares(t, copied), "torch.tensor and np.array copy"
# sphinx_gallery_start_ignore
assert shares(torch.from_numpy(array), array) and shares(torch.as_tensor(array), array), "these two share"
assert shares(t, t.numpy()) and shares(t, np.asarray(t)), "these two share"
assert not shares(torch.as_tensor(array, dtype=torch.float64), array), "a dtype change forces a copy"
assert [record.category for record in caught] == [DeprecationWarning], "np.array(t) warns once"
# sphinx_gallery_end_ignore

# %%
# A write through NumPy is invisible to autograd
# ----------------------------------------------
#
# ``z = w * x`` saves ``x`` to compute the gradient of ``w``. An in-place edit
# of ``x`` in torch would move ``x._version`` and ``backward()`` would raise
# (see :ref:`questions-inplace-error`). The same edit through ``x.numpy()``
# does not move the counter: ``backward()`` runs and uses the edited value.
# Calculus says ``d/dw sum(w * x) = x`` as it was when multiplied,
# ``[4, 5, 6]``; the gradient we get is not that.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
x.numpy()[0] = 100.0
print("x:", x, " x._version:", x._version)
z.sum().backward()
print("w.grad:", w.grad)
assert x._version == 0 and w.grad[0] == 100.0, "the NumPy write went unseen and changed the gradient"

# %%
# The fix
# -------
#
# Write into a copy: ``x.numpy().copy()`` is an array of its own, so the
# tensor autograd saved keeps its values, and the gradient is the one
# calculus gives.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
edited = x.numpy().copy()
edited[0] = 100.0
z.sum().backward()
print("x:", x, " edited:", edited)
print("w.grad:", w.grad)
assert torch.equal(w.grad, torch.tensor([4.0, 5.0, 6.0])), "the gradient uses x as it was"
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.func.grad(lambda v: (v * torch.tensor([4.0, 5.0, 6.0])).sum())(w.detach()))
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``detach().numpy()``, ``numpy(force=True)``, ``np.asarray``,
# ``torch.from_numpy`` and ``torch.as_tensor`` all share memory; only
# ``torch.tensor`` and ``np.array`` copy. Writes through a shared array are
# real writes to the tensor that autograd never hears about. Copy before you
# write, or make the edit in torch, where the version counter sees it.
