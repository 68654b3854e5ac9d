"""
.. _questions-views:

Views: which operations share memory, and what writing through them does
========================================================================

``RuntimeError: unsupported operation: more than one element of the
written-to tensor refers to a single memory location. Please clone() the
tensor before performing the operation.`` is what a write through ``expand``
gives; why a similar line does not raise is `pytorch/pytorch#42726
<https://github.com/pytorch/pytorch/issues/42726>`__. This page lists which
operations return views, when ``reshape`` copies, and what a base and its
views share: memory, one version counter, and an autograd history
(``CopySlices``).
"""

# %%
# Helpers
# -------
#
# A view has a ``_base``: the tensor whose memory it uses.
import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# Which operations return a view
# ------------------------------
#
# Slicing, integer indexing, ``view``, ``reshape`` of a contiguous tensor,
# ``t()`` and ``expand`` return views of ``x``. Indexing with a list or a
# mask ("advanced" indexing) copies, and so do ``reshape`` and
# ``contiguous()`` when the layout has to change.
x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
results = {
    "x[0]": x[0],
    "x[:, 1:]": x[:, 1:],
    "x.view(3, 2)": x.view(3, 2),
    "x.reshape(3, 2)": x.reshape(3, 2),
    "x.t()": x.t(),
    "x[:, :1].expand(2, 3)": x[:, :1].expand(2, 3),
    "x[[0, 1]]": x[[0, 1]],
    "x[x > 2]": x[x > 2],
    "x.t().reshape(6)": x.t().reshape(6),
    "x.t().contiguous()": x.t().contiguous(),
}
views = [name for name, result in results.items() if result._base is x]
for name, result in results.items():
    print(f"{name:<22} view of x: {name in views!s:<5}  same storage: {same_storage(result, x)}")
assert views == list(results)[:6], "the first six are views, the last four are copies"
# sphinx_gallery_start_ignore
assert all(same_storage(results[key], x) for key in views), "every view shares x's memory"
assert not any(same_storage(results[key], x) for key in list(results)[6:]), "no copy does"
# sphinx_gallery_end_ignore

# %%
# ``view`` or ``reshape``
# -----------------------
#
# ``x.t()`` is not contiguous: reading its rows in order jumps around in
# memory. ``view`` refuses to flatten it and points to ``reshape``, which
# copies.
try:
    x.t().view(6)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("view() of a non-contiguous layout must raise")
print("x.t().is_contiguous():", x.t().is_contiguous())
print("x.t().reshape(6):", x.t().reshape(6))
assert "Use .reshape(...) instead" in message, "view points to reshape"

# %%
# ``contiguous()`` of a tensor that already is contiguous returns the tensor
# itself: not a copy, not even a new object.
print("x.contiguous() is x:", x.contiguous() is x)
assert x.contiguous() is x, "contiguous() returns self when there is nothing to do"

# %%
# Writing through ``expand``
# --------------------------
#
# ``expand`` repeats an element by a stride of 0, without copying: all four
# columns below are one number in memory. Writing into it raises; ``clone()``
# gives each element memory of its own, and then the write works.
column = torch.zeros(3, 1)
wide = column.expand(3, 4)
print("wide.stride():", wide.stride())
try:
    wide[0] = 1.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("writing into an expanded tensor must raise")
wide = wide.clone()
wide[0] = 1.0
print("after clone():", wide.stride())
print(wide)
assert message.startswith("unsupported operation: more than one element of the written-to tensor refers to a single")
# sphinx_gallery_start_ignore
assert wide.stride() == (4, 1) and torch.equal(column, torch.zeros(3, 1)), "the clone has its own memory"
# sphinx_gallery_end_ignore

# %%
# The question of `pytorch/pytorch#42726
# <https://github.com/pytorch/pytorch/issues/42726>`__: the same
# ``expand(...).type_as(weight)`` line raises on write in one snippet and not
# in the other. ``type_as`` to the dtype the tensor already has returns it as
# it is, still expanded; a real cast (here ``bool`` to ``float``) makes a
# new, contiguous tensor, which can be written.
weight = torch.rand(4, 4)
ones = torch.ones(4)
same_dtype = ones[:, None].expand_as(weight).type_as(weight)
cast = (ones > 0.5)[:, None].expand_as(weight).type_as(weight)
print("float -> float: stride", same_dtype.stride(), " view:", same_dtype._base is not None)
print("bool -> float:  stride", cast.stride(), " view:", cast._base is not None)
cast[0] = 0.0
assert same_dtype.stride() == (1, 0) and cast.stride() == (4, 1), "only the cast materialises the tensor"

# %%
# One version counter for a base and all its views
# ------------------------------------------------
#
# An in-place edit through any view moves the counter of the base and of
# every other view of it, so autograd notices the edit whichever of them it
# saved.
base = torch.zeros(2, 3)
row = base[0]
transposed = base.t()
row.add_(1.0)
print("base:", base)
print("_version: base", base._version, " row", row._version, " transposed", transposed._version)
assert base._version == row._version == transposed._version == 1, "one counter"

# %%
# ``CopySlices``: an edit through a view enters the base's history
# ----------------------------------------------------------------
#
# ``y[0] = 10.0`` writes through the view ``y[0]``. autograd records it on
# ``y`` as a ``CopySlices`` node: after it, ``y[0]`` no longer depends on
# ``leaf``, so its gradient there is 0, as calculus says for a constant.
leaf = torch.ones(3, requires_grad=True)
y = leaf * 2
print("y.grad_fn before:", type(y.grad_fn).__name__)
y[0] = 10.0
print("y.grad_fn after: ", type(y.grad_fn).__name__, " y._version:", y._version)
y.sum().backward()
print("leaf.grad:", leaf.grad)
assert type(y.grad_fn).__name__ == "CopySlices" and torch.equal(leaf.grad, torch.tensor([0.0, 2.0, 2.0]))

# %%
# Conclusion
# ----------
#
# A view shares memory, the version counter and, for autograd, the history of
# its base. Check ``t._base`` when in doubt. ``reshape`` and ``contiguous()``
# copy only when they must; to be sure of memory of your own, ``clone()``.
