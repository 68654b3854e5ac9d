"""
.. _data-vs-detach-comparison:

The article's summary, checked claim by claim
=============================================

The article closes with what ``.data`` and ``detach()`` have in common and
how they differ. We run each statement on this torch: four hold (one of them
only in the author's meaning of a word), and one does not hold as stated.
"""

# %%
# One source
# ----------
#
# Every check below starts from ``out = a.sigmoid()``, the tensor the
# article detaches, with the same helpers ``show`` and ``same_storage`` as
# on the first page.
import inspect

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

# %%
# Claim: both are in-place operations — holds in meaning, not in PyTorch's sense
# ------------------------------------------------------------------------------
#
# We note the values, shape and version of ``out``, take ``out.data`` and
# ``out.detach()``, and look at ``out`` again.
#
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article's summary says both are "in-place operations". Read as the
#    author means it, that holds: both work on the original data, without
#    copying it (each call returns a new tensor object that shares the
#    storage of ``out``). The word itself is wrong in PyTorch's sense, where
#    an in-place operation changes its tensor and moves its version counter:
#    taking ``.data`` or ``.detach()`` leaves ``out`` with its values, shape
#    and version, still in the graph (output below). Only a later in-place
#    edit *through* the result, such as ``zero_()``, changes the source.
values, shape, version = out.detach().clone(), out.shape, out._version
via_data = out.data
via_detach = out.detach()
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
print("via_data is out:", via_data is out)
print("via_detach is out:", via_detach is out)
assert out._version == version == 0, "taking .data or .detach() does not bump the version"
# sphinx_gallery_start_ignore
assert torch.equal(out, values) and out.shape == shape, "values and shape of out are unchanged"
assert out.requires_grad and out.grad_fn.name() == "SigmoidBackward0", "out is still in the graph"
assert via_data is not out and via_detach is not out, "both return a new tensor object"
# sphinx_gallery_end_ignore

# %%
# PyTorch marks in-place methods with a trailing underscore, and there *is*
# an in-place form of ``detach()``: ``detach_()``. It is a different method.
# It returns the very same object and takes that object itself out of the
# graph. ``.data`` has no in-place method; its setter is another matter
# (next cell).
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out_b = b.sigmoid()
show("out_b (before detach_)", out_b)
result = out_b.detach_()
show("out_b (after detach_)", out_b)
print("result is out_b:", result is out_b)
print("Tensor has data_:", hasattr(torch.Tensor, "data_"))
assert result is out_b, "detach_() returns the same object"
# sphinx_gallery_start_ignore
assert not out_b.requires_grad and out_b.grad_fn is None, "detach_() changed out_b itself"
assert not hasattr(torch.Tensor, "data_"), "there is no in-place form of .data"
# sphinx_gallery_end_ignore

# %%
# The setter ``p.data = t`` is worse than any in-place edit: it puts another
# tensor under ``p`` with no check at all. Here a parameter of three floats
# becomes a 2×2 tensor of doubles; nothing raises, ``p`` is still a
# ``Parameter``, and ``_version`` stays 0, so autograd has nothing to notice.

p = torch.nn.Parameter(torch.zeros(3))
p.data = torch.zeros(2, 2, dtype=torch.float64)
print("p:", p)
print("p.shape:", tuple(p.shape), " p.dtype:", p.dtype, " p._version:", p._version)
assert tuple(p.shape) == (2, 2) and p.dtype == torch.float64 and p._version == 0, "p.data = t is silent"
# sphinx_gallery_start_ignore
assert isinstance(p, torch.nn.Parameter), "p is still a Parameter"
# sphinx_gallery_end_ignore

# %%
# Claim: both share data with the source — holds
# ----------------------------------------------
#
# Both results read the storage of ``out``, so a change on either side shows
# on the other. We double ``out`` in place under ``torch.no_grad()``, so the
# graph does not record the edit (``out`` keeps its ``grad_fn``), and both
# results follow; then we write through each result and ``out`` follows.
for name, t in [("via_data", via_data), ("via_detach", via_detach)]:
    same = same_storage(t, out)
    print(f"{name} same storage as out:", same)
    # sphinx_gallery_start_ignore
    assert same, f"{name} shares storage with out"
    # sphinx_gallery_end_ignore

with torch.no_grad():
    out.mul_(2)
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
# sphinx_gallery_start_ignore
assert torch.equal(via_data, out) and torch.equal(via_detach, out), "an edit of out shows in both"
# sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert out.grad_fn.name() == "SigmoidBackward0", "the edit under no_grad was not recorded"
# sphinx_gallery_end_ignore

via_data[0] = 10.0
via_detach[1] = 20.0
show("out", out)
show("via_data", via_data)
show("via_detach", via_detach)
assert out[0].item() == 10.0 and out[1].item() == 20.0, "edits through either one show in out"

# %%
# Claim: both leave the graph and do not require grad — holds
# -----------------------------------------------------------
#
# Both results have ``requires_grad=False``, no ``grad_fn``, and are leaves.
# Operations on them are not recorded either. This is what the article means
# by "``.data`` cannot be tracked by autograd", and it is just as true of
# ``detach()``.
for name, t in [("via_data", via_data), ("via_detach", via_detach)]:
    y = t * 2
    print(f"{name}: requires_grad={t.requires_grad}  grad_fn={t.grad_fn}  is_leaf={t.is_leaf}")
    print(f"({name} * 2): requires_grad={y.requires_grad}  grad_fn={y.grad_fn}")
    assert not t.requires_grad and t.grad_fn is None and t.is_leaf, f"{name} is a detached leaf"
    # sphinx_gallery_start_ignore
    assert not y.requires_grad and y.grad_fn is None, f"operations on {name} are not recorded"
    # sphinx_gallery_end_ignore

# %%
# Claim: ``.data`` is an attribute, ``detach()`` is a method — holds
# ------------------------------------------------------------------
#
# On the tensor class, ``data`` is a getset descriptor (a computed attribute,
# read without parentheses) and ``detach`` is a method descriptor. A computed
# attribute runs code on every read: each ``out.data`` is a new tensor object.
data_attr = inspect.getattr_static(torch.Tensor, "data")
detach_attr = inspect.getattr_static(torch.Tensor, "detach")
print("type of Tensor.data:  ", type(data_attr).__name__)
print("type of Tensor.detach:", type(detach_attr).__name__)
print("callable(out.data):  ", callable(out.data))
print("callable(out.detach):", callable(out.detach))
print("out.data is out.data:", out.data is out.data)
assert not callable(out.data) and callable(out.detach), "out.data is a tensor, out.detach is a method"
# sphinx_gallery_start_ignore
assert inspect.isgetsetdescriptor(data_attr), "Tensor.data is a getset descriptor (an attribute)"
assert inspect.ismethoddescriptor(detach_attr), "Tensor.detach is a method descriptor"
assert out.data is not out.data, "each read of .data builds a new tensor object"
# sphinx_gallery_end_ignore


# %%
# Claim: ``.data`` is unsafe, ``detach()`` is safe — the second does not hold as stated
# -------------------------------------------------------------------------------------
#
# ``detach()`` is safer, not safe. Autograd checks the version of a tensor
# only if it *saved* that tensor for the backward pass. Case 1 is the
# article's: ``sigmoid`` saved its output, so the edit through ``detach()``
# is caught, while the same edit through ``.data`` gives a wrong gradient.
def sigmoid_case(how, take):
    print(f"case 1, edit through {how}:")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.sigmoid()
    take(y).zero_()
    print(f"  y._version={y._version}")
    try:
        y.sum().backward()
    except RuntimeError as err:
        print("  backward():", type(err).__name__)
        return None
    print("  backward(): no error, x.grad =", x.grad)
    return x.grad


grad_data = sigmoid_case(".data", lambda y: y.data)
grad_detach = sigmoid_case("detach()", lambda y: y.detach())
assert grad_detach is None, "detach(): the edit is caught"
# sphinx_gallery_start_ignore
assert grad_data is not None and torch.equal(grad_data, torch.zeros(3)), ".data: silent, wrong gradient"
# sphinx_gallery_end_ignore

# %%
# Case 2: the edited tensor was not saved. For ``out = a * 2`` autograd
# keeps only the constant 2 (``_saved_self`` is ``None``; like ``_version``,
# the ``_saved_*`` attributes are internal to torch and may change between
# releases), and ``sum()``
# keeps only the size of its input. Nobody saved ``out``, so nobody checks
# its version. Zeroing ``out`` through ``detach()`` then raises nothing.
# ``a.grad`` is the gradient of the graph that was recorded, but ``loss`` no
# longer equals ``out.sum()``: the edit went unnoticed.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a * 2
loss = out.sum()
sum_saved = [k for k in dir(loss.grad_fn) if k.startswith("_saved")]
print(f"{out.grad_fn.name()} _saved_self:", out.grad_fn._saved_self)
print(f"{out.grad_fn.name()} _saved_other:", out.grad_fn._saved_other)
print(f"{loss.grad_fn.name()} saved fields:", sum_saved)
assert out.grad_fn._saved_self is None, "a * 2 did not save a"
# sphinx_gallery_start_ignore
assert out.grad_fn._saved_other.item() == 2, "a * 2 saved the constant 2"
assert sum_saved == ["_saved_self_sym_sizes"], "sum() saved only a size"
# sphinx_gallery_end_ignore

out.detach().zero_()
loss.backward()
show("a", a)
show("out", out)
print("loss:", loss)
print("out.sum():", out.sum())
print("a.grad:", a.grad)
assert loss.item() == 12.0 and out.sum().item() == 0.0, "loss no longer matches out"
# sphinx_gallery_start_ignore
assert out._version == 1, "the edit bumped out's version"
assert torch.equal(a.grad, torch.full((3,), 2.0)), "backward() ran and returned d(2a)/da = 2"
# sphinx_gallery_end_ignore

# %%
# Case 3: the edit comes before autograd saves the tensor. ``b = a * 2``
# saves nothing from ``a``; ``b.detach().mul_(10)`` makes ``b`` hold
# ``20 * a``; only then does ``b * b`` save ``b``, already edited. Nothing
# checks a version that moved before it was saved: ``backward()`` runs and
# returns ``80 * a``, neither the gradient of the graph that was recorded
# (``8 * a``, for ``b = 2 * a``) nor that of the values ``b`` holds
# (``800 * a``).

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
b.detach().mul_(10)
(b * b).sum().backward()
show("b", b)
print("a.grad:", a.grad)
print("8 * a:", 8 * a.detach(), " 800 * a:", 800 * a.detach())
assert not torch.equal(a.grad, 8 * a.detach()) and not torch.equal(a.grad, 800 * a.detach()), "neither"
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, 80 * a.detach()), "backward() ran and returned 80 * a"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Of the summary, "both share data" and "both leave the graph" hold,
# ".data is an attribute, detach() is a method" holds, "both are in-place"
# holds in the author's meaning (both work on the original data without
# copying) though neither is in-place in PyTorch's sense, and "detach() is
# safe" does not hold as stated: autograd catches the edit only when it saved
# the tensor before the edit.
# In practice: use ``detach()`` rather than ``.data``, and prefer
# out-of-place operations on the result: ``out.detach() * 0`` builds a new
# tensor and leaves ``out`` alone. When you need an independent copy to edit
# in place, use ``.detach().clone()``. The copy has its own storage, so
# editing it cannot touch the graph, and ``backward()`` stays correct.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
scaled = out.detach() * 0
copy = out.detach().clone()
copy.zero_()
out.sum().backward()
show("out", out)
show("scaled", scaled)
show("copy", copy)
print("scaled same storage as out:", same_storage(scaled, out))
print("copy same storage as out:", same_storage(copy, out))
print("a.grad:", a.grad)
s = out.detach()
assert torch.allclose(a.grad, s * (1 - s)), "backward() gives the correct gradient s * (1 - s)"
# sphinx_gallery_start_ignore
assert not same_storage(scaled, out), "out-of-place gives new storage"
assert not same_storage(copy, out), "the copy has its own storage"
assert out._version == 0 and not torch.equal(out, copy), "neither touched out"
# sphinx_gallery_end_ignore
