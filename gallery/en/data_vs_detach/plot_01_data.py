"""
.. _data-vs-detach-data:

``.data``: a silent edit and a wrong gradient
=============================================

We compute ``out = a.sigmoid()``, zero ``out`` through ``out.data`` and call
``backward()``. The edit reaches ``out``, autograd never notices it, and the
gradient that comes back is wrong, with no error and no warning.
"""

# %%
# A small graph
# -------------
#
# ``a`` is a leaf that requires a gradient. ``out`` is the sigmoid of ``a``:
# it has a ``grad_fn`` and its version counter ``_version`` starts at 0.
# Two small helpers: ``show`` prints a tensor together with the autograd
# facts this page is about, and ``same_storage`` tells whether two tensors
# read the same memory.
import warnings

import torch


def show(name, t):
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}")


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
show("a", a)
show("out", out)
print("out.grad_fn:", out.grad_fn.name())
# sphinx_gallery_start_ignore
assert out._version == 0, "a fresh result starts at version 0"
assert out.requires_grad and not out.is_leaf, "out should be a non-leaf that requires grad"
# sphinx_gallery_end_ignore

# %%
# ``.data`` shares the numbers and does not require a gradient
# ------------------------------------------------------------
#
# ``c = out.data`` is a new tensor object over the same storage as ``out``.
# It does not require a gradient and has no ``grad_fn``: for autograd it is
# a plain leaf tensor.
c = out.data
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), ".data shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, ".data returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, ".data is a leaf that does not require grad"
assert torch.equal(c, out), "c holds the same numbers as out"
# sphinx_gallery_end_ignore

# %%
# Zero ``out`` through ``c``
# --------------------------
#
# ``c.zero_()`` writes zeros into the shared storage, so ``out`` is zero too.
# Look at the version counters: ``c._version`` went from 0 to 1, but
# ``out._version`` is still 0. ``.data`` gives ``c`` a version counter of its
# own, so an edit through ``c`` changes the values of ``out`` but not its
# version.
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert out._version == 0, "out's version counter did not move: .data does not share it"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert c._version == 1, "the in-place edit bumped c's version counter"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article prints ``grad_fn=<SigmoidBackward>``. On this torch the node
#    is called ``SigmoidBackward0`` (see ``out`` above): backward nodes now
#    carry a number. The behaviour is the same.
print("out.grad_fn:", out.grad_fn.name())
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"

# %%
# What autograd kept for the backward pass
# ----------------------------------------
#
# The derivative of the sigmoid is ``s * (1 - s)``, where ``s`` is its
# output, so ``SigmoidBackward0`` saved the result ``out`` itself. Its
# ``_saved_result`` (see `Saved tensors
# <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__)
# reads from the same storage, and it now holds zeros. Its version is 0, the
# version autograd recorded, so nothing looks wrong.
saved = out.grad_fn._saved_result
show("saved", saved)
print("saved shares storage with out:", same_storage(saved, out))
assert saved._version == 0, "the saved result still reports version 0"
# sphinx_gallery_start_ignore
assert same_storage(saved, out), "the saved result is out's storage"
assert torch.equal(saved, torch.zeros(3)), "the saved result now holds zeros"
# sphinx_gallery_end_ignore

# %%
# ``backward()`` runs and returns zeros
# -------------------------------------
#
# ``out.sum().backward()`` raises nothing and warns nothing. It computes
# ``s * (1 - s)`` from the zeroed ``s`` and stores zeros in ``a.grad``.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out.sum().backward()
print("warnings during backward:", len(caught))
show("a", a)
show("out", out)
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.zeros(3)), "the gradient is all zeros, because the saved output was zeroed"
# sphinx_gallery_start_ignore
assert len(caught) == 0, "backward() emitted no warning"
# sphinx_gallery_end_ignore

# %%
# The correct gradient, for comparison
# ------------------------------------
#
# The same graph without the edit gives the real gradient. We also compute
# ``s * (1 - s)`` by hand from ``s = 1 / (1 + exp(-x))``, without autograd, and
# check that the fresh run agrees with it and the edited run does not.
a_fresh = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out_fresh = a_fresh.sigmoid()
out_fresh.sum().backward()

x = torch.tensor([1.0, 2.0, 3.0])
s = 1 / (1 + torch.exp(-x))
expected = s * (1 - s)
print("a_fresh.grad (no edit):  ", a_fresh.grad)
print("s * (1 - s), by hand:    ", expected)
print("a.grad (after .data edit):", a.grad)
assert not torch.allclose(a.grad, expected), "the edited run does not give s * (1 - s)"
# sphinx_gallery_start_ignore
assert torch.allclose(a_fresh.grad, expected), "the fresh run gives s * (1 - s)"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# An in-place edit through ``.data`` changes the tensor that autograd saved,
# but ``.data`` has its own version counter, so the version autograd checks
# never moves. ``backward()`` succeeds and returns a gradient that is simply
# wrong. The next page makes the same edit through ``detach()``:
# :ref:`data-vs-detach-detach`.
