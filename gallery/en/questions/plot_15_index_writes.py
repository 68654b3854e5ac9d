"""
.. _questions-index-writes:

``x[idx].add_(1)`` changes nothing: writing through an index
============================================================

.. admonition:: Answer
   :class: answer

   ``x[idx]`` with a list of integers, a tensor or a mask as index returns a copy, so ``x[idx].add_(1)`` edits
   the copy; an assignment such as ``x[idx] += 1`` writes into ``x``. Assign through the index, and
   where an index may repeat, add with ``index_add_``:

   .. code-block:: python

      x[idx] += 1
      counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))

An in-place call on an indexed tensor raises no error and no warning, and ``x`` stays as it was.
This page reproduces that with an index tensor and with a mask, checks which index forms give a view
of ``x`` and which a copy, shows the in-place index methods (``index_put_``, ``index_add_``,
``masked_fill_``, ``scatter_``), and what each does with an index that repeats, in a small counting
loop. Every operation that returns a view is measured in the table :doc:`/views`.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# The symptom
# -----------
#
# ``x[idx]`` with an index tensor, and ``x[mask]`` with a boolean mask, gather the chosen elements
# into a new tensor. ``add_(1)`` and ``[0] = 100.0`` then edit that new tensor, which nothing names:
# ``x`` is unchanged, silently.
x = torch.arange(6.0)
idx = torch.tensor([0, 2])
x[idx].add_(1)
print("after x[idx].add_(1):   x =", x)
x[x > 2][0] = 100.0
print("after x[x > 2][0] = 100: x =", x)
assert torch.equal(x, torch.arange(6.0)), "both edits changed a copy"

# %%
# What writes into ``x``
# ----------------------
#
# An assignment to an indexed ``x`` is a call of ``x.__setitem__``, which writes into ``x``; ``+=``
# on an indexed ``x`` reads the elements, adds, and assigns them back the same way. Each is an
# in-place edit of ``x``: its version counter (``x._version``, internal to torch) moves.
x = torch.arange(6.0)
x[idx] = 10.0
print("after x[idx] = 10:   x =", x, " x._version:", x._version)
x[idx] += 1
print("after x[idx] += 1:   x =", x, " x._version:", x._version)
x[x > 5] += 1
print("after x[x > 5] += 1: x =", x, " x._version:", x._version)
assert torch.equal(x, torch.tensor([12.0, 1.0, 12.0, 3.0, 4.0, 5.0])), "the three assignments wrote into x"
# sphinx_gallery_start_ignore
assert x._version == 3, "each assignment is one in-place edit of x"
# sphinx_gallery_end_ignore

# %%
# Which index forms give a view
# -----------------------------
#
# Indexing with integers, slices, ``None`` and ``...`` (basic indexing) returns a view of ``x``, on
# its storage; an edit of the view is an edit of ``x``. A list of integers, an index tensor or a mask
# (advanced indexing), alone or next to basic indices, returns a copy. A zero-dimensional integer tensor counts
# as an integer. We check each form below by its storage.
x = torch.arange(12.0).reshape(3, 4)
forms = {
    "x[1]": x[1],
    "x[1:]": x[1:],
    "x[:, 1]": x[:, 1],
    "x[::2]": x[::2],
    "x[None]": x[None],
    "x[..., 0]": x[..., 0],
    "x[torch.tensor(1)]": x[torch.tensor(1)],
    "x[[0, 2]]": x[[0, 2]],
    "x[torch.tensor([0, 2])]": x[torch.tensor([0, 2])],
    "x[x > 5]": x[x > 5],
    "x[1, [0, 2]]": x[1, [0, 2]],
    "x[1:, [0]]": x[1:, [0]],
}
for form, result in forms.items():
    print(f"{form:<24} same storage: {same_storage(result, x)}")
views = [form for form, result in forms.items() if same_storage(result, x)]
assert views == list(forms)[:7], "basic indexing gives views, advanced indexing copies"
# sphinx_gallery_start_ignore
assert all(result._is_view() == (form in views) for form, result in forms.items()), "views are views"
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert same_storage(x[[1, slice(None)]], x), "a list holding a slice indexes as a tuple (deprecated): a view"
# sphinx_gallery_end_ignore

# %%
# The in-place index methods
# --------------------------
#
# Each writes into ``x`` and returns ``x`` itself: ``index_put_``, ``index_add_``, ``masked_fill_``
# and ``scatter_``.
x = torch.zeros(4)
mask = torch.tensor([True, False, False, True])
calls = {
    "index_put_": lambda: x.index_put_((idx,), torch.tensor(5.0)),
    "index_add_": lambda: x.index_add_(0, idx, torch.ones(2)),
    "masked_fill_": lambda: x.masked_fill_(mask, 7.0),
    "scatter_": lambda: x.scatter_(0, torch.tensor([1]), 9.0),
}
for name, call in calls.items():
    print(f"{name:<13} returns x: {call() is x}  x = {x}")
assert torch.equal(x, torch.tensor([7.0, 9.0, 6.0, 7.0])), "each call wrote into x"
# sphinx_gallery_start_ignore
assert x._version == 4, "four in-place edits of x"
# sphinx_gallery_end_ignore

# %%
# An index that repeats
# ---------------------
#
# ``x[idx] += 1`` reads ``x[idx]`` once, adds 1 to each read element, and writes them back: an
# element named twice gets 1, not 2. ``index_put_(..., accumulate=True)`` and ``index_add_`` add
# once per occurrence.
twice = torch.tensor([0, 0, 2])
a, b, c = torch.zeros(3), torch.zeros(3), torch.zeros(3)
a[twice] += 1
b.index_put_((twice,), torch.ones(3), accumulate=True)
c.index_add_(0, twice, torch.ones(3))
print("x[twice] += 1:                ", a)
print("index_put_(accumulate=True):  ", b)
print("index_add_:                   ", c)
assert a[0] == 1 and b[0] == c[0] == 2, "+= adds once, accumulate=True and index_add_ add twice"
# sphinx_gallery_start_ignore
assert torch.equal(b, torch.bincount(twice, minlength=3).float()) and torch.equal(b, c), "both count"
# sphinx_gallery_end_ignore

# %%
# The fix, in a counting loop
# ---------------------------
#
# Counting labels over batches is where a repeated index is the rule. Three ways, over three
# batches: the in-place call on the indexed copy counts nothing, ``+=`` counts each label at most
# once a batch, and ``index_add_`` agrees with ``torch.bincount`` over all the labels.
torch.manual_seed(0)
batches = [torch.randint(0, 4, (6,)) for _ in range(3)]
copied, assigned, counts = torch.zeros(4), torch.zeros(4), torch.zeros(4)
for labels in batches:
    copied[labels].add_(1)
    assigned[labels] += 1
    counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))
expected = torch.bincount(torch.cat(batches), minlength=4).float()
print("copied[labels].add_(1):", copied)
print("assigned[labels] += 1: ", assigned)
print("index_add_:            ", counts)
print("torch.bincount:        ", expected)
assert torch.equal(counts, expected) and not torch.equal(assigned, expected), "only index_add_ counts all"
# sphinx_gallery_start_ignore
assert not copied.any(), "the in-place call on a copy counted nothing"
per_batch = sum((torch.bincount(batch, minlength=4) > 0).float() for batch in batches)
assert torch.equal(assigned, per_batch), "+= counted each label once in each batch that holds it"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Indexing with integers, slices, ``None`` and ``...`` gives a view; a list of integers, an index
# tensor or a mask gives a copy, and an in-place method called on that copy leaves ``x`` unchanged. Write
# through the index with an assignment (``x[idx] = v``, ``x[idx] += 1``) or with an in-place index
# method, and where an index repeats, use ``index_add_`` or ``index_put_(..., accumulate=True)``.
