"""
.. _questions-deepcopy:

``copy.deepcopy`` and ``copy.copy`` on tensors
==============================================

``copy.deepcopy(model)`` fails with "Only Tensors created explicitly by the user (graph leaves)
support the deepcopy protocol at the moment" when a module holds a tensor that is the result of an
operation. This page reproduces that error with a tiny module and fixes it, then shows what
``deepcopy`` copies (``.grad``, but not a ``Parameter``'s; the whole storage behind a view; shared
tensors) and that ``copy.copy`` copies no memory at all. It answers
`pytorch/pytorch#54580 <https://github.com/pytorch/pytorch/issues/54580>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.

import copy

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# The error
# ---------
#
# The module below keeps ``scale * 2`` as an attribute: a tensor made by an operation while
# ``scale`` required grad, so it has a ``grad_fn`` and is not a leaf. ``copy.deepcopy`` of the
# module reaches that tensor and raises.


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        self.doubled = self.scale * 2  # a non-leaf kept on the module

    def forward(self, x):
        return x * self.doubled


model = Scaled()
print("doubled.is_leaf:", model.doubled.is_leaf)
print("doubled.grad_fn:", model.doubled.grad_fn.name())
try:
    copy.deepcopy(model)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("deepcopy of a module holding a non-leaf must raise")

# %%
# The same error comes from the tensor alone: ``deepcopy`` refuses any tensor that has a
# ``grad_fn``, with or without a module around it.

try:
    copy.deepcopy(model.doubled)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a non-leaf tensor must raise")

# %%
# The fix
# -------
#
# Either keep only leaves on the module (compute ``scale * 2`` inside ``forward``), or store the
# derived value out of the graph with ``detach()``. The second version deep-copies, and the copy
# owns its memory.


class ScaledFixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        self.doubled = (self.scale * 2).detach()  # a leaf: no grad_fn

    def forward(self, x):
        return x * self.scale * 2


fixed = ScaledFixed()
twin = copy.deepcopy(fixed)
print("doubled.is_leaf:", fixed.doubled.is_leaf)
print("twin.scale:", twin.scale)
print("same storage (scale):", same_storage(fixed.scale, twin.scale))
print("same storage (doubled):", same_storage(fixed.doubled, twin.doubled))
assert not same_storage(fixed.scale, twin.scale), "the deep copy must own its parameters' memory"
# sphinx_gallery_start_ignore
assert not same_storage(fixed.doubled, twin.doubled), "the deep copy must own its buffers' memory"
assert torch.equal(twin.scale, fixed.scale), "the deep copy must hold the same values"
# sphinx_gallery_end_ignore

# %%
# What a deep copy carries over
# -----------------------------
#
# A plain leaf that already has a gradient: the copy gets its own ``.grad`` with the same values,
# in new memory, and is a leaf that still requires grad.

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(w * w).sum().backward()
w_copy = copy.deepcopy(w)
print("w.grad:", w.grad)
print("w_copy.grad:", w_copy.grad)
print("same storage (grad):", same_storage(w.grad, w_copy.grad))
print("w_copy.requires_grad:", w_copy.requires_grad, " is_leaf:", w_copy.is_leaf)
assert torch.equal(w_copy.grad, w.grad) and not same_storage(w.grad, w_copy.grad), "deepcopy must copy .grad"
# sphinx_gallery_start_ignore
assert w_copy.requires_grad and w_copy.is_leaf, "the copy must be a leaf that requires grad"
# sphinx_gallery_end_ignore

# %%
# A ``Parameter`` is different: its copy keeps the ``Parameter`` type but not the gradient. A
# deep copy of the model above, taken after ``backward()``, has ``.grad`` set to ``None``.

fixed(torch.ones(2)).sum().backward()
twin = copy.deepcopy(fixed)
print("fixed.scale.grad:", fixed.scale.grad)
print("twin.scale.grad:", twin.scale.grad)
print("type(twin.scale):", type(twin.scale).__name__)
assert fixed.scale.grad is not None and twin.scale.grad is None, "deepcopy of a Parameter must drop .grad"
# sphinx_gallery_start_ignore
assert type(twin.scale) is torch.nn.Parameter, "deepcopy must keep the Parameter type"
# sphinx_gallery_end_ignore

# %%
# A view is copied with the whole storage behind it: two floats of view, ten floats (40 bytes) of
# storage in the copy. The copy is no view any more (``_base`` is ``None``), but it keeps the
# view's offset into that storage.

base = torch.arange(10.0)
view = base[2:4]
view_copy = copy.deepcopy(view)
print("view:", view, " bytes in view:", view.nelement() * view.element_size())
print("view_copy storage bytes:", view_copy.untyped_storage().nbytes())
print("view_copy._base:", view_copy._base, " storage_offset:", view_copy.storage_offset())
assert view_copy.untyped_storage().nbytes() == base.untyped_storage().nbytes(), "deepcopy must copy the whole storage"
# sphinx_gallery_start_ignore
assert view_copy.untyped_storage().nbytes() == 40, "the storage of ten float32 holds 40 bytes"
assert view_copy._base is None and view_copy.storage_offset() == 2, "the copy keeps the offset, not the view"
assert not same_storage(view, view_copy), "the copy must own its storage"
# sphinx_gallery_end_ignore

# %%
# Sharing inside the copied object is kept: one ``deepcopy`` call of a list that holds the same
# tensor twice, and a view of it, gives a list whose first two items are one tensor and whose third
# shares that tensor's memory.

t = torch.zeros(3)
items = copy.deepcopy([t, t, t[1:]])
print("items[0] is items[1]:", items[0] is items[1])
print("items[2] shares items[0]'s storage:", same_storage(items[0], items[2]))
print("items[0] shares t's storage:", same_storage(items[0], t))
assert items[0] is items[1] and same_storage(items[0], items[2]), "deepcopy must keep the sharing it copies"
# sphinx_gallery_start_ignore
assert not same_storage(items[0], t), "the copy must not share the source's memory"
# sphinx_gallery_end_ignore

# %%
# ``copy.copy`` copies no memory
# ------------------------------
#
# ``copy.copy(t)`` returns a new tensor object on the same memory: an edit of one is seen in the
# other. It is not a way to snapshot values.

t = torch.zeros(3)
shallow = copy.copy(t)
shallow[0] = 7.0
print("t:", t)
print("shallow:", shallow)
print("shallow is t:", shallow is t, " same storage:", same_storage(t, shallow))
assert same_storage(t, shallow) and t[0] == 7.0, "copy.copy must share memory with its source"
# sphinx_gallery_start_ignore
assert shallow is not t, "copy.copy must return another object"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``copy.deepcopy`` copies leaves only; a module that keeps a non-leaf needs that tensor detached
# (or computed in ``forward``). The copy owns new memory; a plain tensor's copy carries ``.grad``, a
# ``Parameter``'s does not. It copies the whole storage behind a view, and keeps the sharing it
# finds. ``copy.copy`` only makes a second name for the same memory. For one tensor without its
# history, :ref:`copying-safe-copy` shows ``detach().clone()``.
