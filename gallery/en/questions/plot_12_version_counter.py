"""
.. _questions-version-counter:

The version counter: what moves ``_version``, and what does not
===============================================================

"is at version 2; expected version 0 instead": the numbers in this error are readings of a tensor's
version counter, ``t._version``. Autograd notes the version of every tensor it saves, and refuses
to run backward when it has moved. This page decodes the message, then builds a table of common
edits, computed while the page was built, showing which ones move the counter and which change
values without moving it.
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
# Reading the message
# -------------------
#
# ``x.exp()`` saves its own result ``y`` for backward, at version 0. Two in-place edits of ``y``
# bring it to version 2, and backward names both numbers.

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
print("y._version after exp():", y._version)
y.add_(1)
y.mul_(2)
print("y._version after two edits:", y._version)
try:
    y.sum().backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after editing a saved output must raise")

# %%
# The fix: edit a copy
# --------------------
#
# ``clone()`` gives the edits their own memory and their own counter: ``y`` stays at version 0 and
# backward gives ``2 * exp(x)``, the gradient ``torch.func.grad`` computes for
# ``(2 * (exp(x) + 1)).sum()``.

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
edited = y.clone()
edited.add_(1)
edited.mul_(2)
print("y._version:", y._version, " edited._version:", edited._version)
edited.sum().backward()
expected = torch.func.grad(lambda x_: (2 * (x_.exp() + 1)).sum())(x.detach())
print("x.grad:", x.grad, " expected:", expected)
assert y._version == 0 and torch.allclose(x.grad, expected), "edits of a clone must leave y and the gradient alone"

# %%
# The table: what moves the counter
# ---------------------------------
#
# Each row runs one line on a fresh ``t = torch.arange(4.0)``, then compares the values and the
# version with those before. The third column repeats the line under ``torch.no_grad()`` on a leaf
# that requires grad (``torch.arange(4.0, requires_grad=True)``), where such edits are allowed.

edits = {
    "t.add_(1)": lambda t: t.add_(1),
    "t[0] = 5": lambda t: t.__setitem__(0, 5.0),
    "t.copy_(torch.ones(4))": lambda t: t.copy_(torch.ones(4)),
    "torch.add(torch.ones(4), 1, out=t)": lambda t: torch.add(torch.ones(4), 1, out=t),
    "t[1:].mul_(2)": lambda t: t[1:].mul_(2),
    "t.view(2, 2)[0, 0] = 5": lambda t: t.view(2, 2).__setitem__((0, 0), 5.0),
    "t.detach().zero_()": lambda t: t.detach().zero_(),
    "t.data.zero_()": lambda t: t.data.zero_(),
    "t.detach().numpy()[0] = 5": lambda t: t.detach().numpy().__setitem__(0, 5.0),
    "t = t + 1": lambda t: t + 1,
}


def run(edit, requires_grad):
    t = torch.arange(4.0, requires_grad=requires_grad)
    before, version = t.detach().clone(), t._version
    if requires_grad:
        with torch.no_grad():
            edit(t)
    else:
        edit(t)
    return not torch.equal(t.detach(), before), t._version - version


table = {line: (run(edit, False), run(edit, True)) for line, edit in edits.items()}
print(f"{'line':36} {'values of t change':>18} {'_version moves by':>18} {'same, no_grad leaf':>19}")
for line, ((changed, moved), (_, moved_no_grad)) in table.items():
    print(f"{line:36} {str(changed):>18} {moved:>18} {moved_no_grad:>19}")

# %%
# Every line that changes ``t``'s values moves its counter by one, except two: an edit through
# ``.data`` and a write through NumPy. The last line changes nothing in ``t``: it makes a new tensor
# and rebinds the name. The answers are the same under ``torch.no_grad()``.

silent = [line for line, ((changed, moved), _) in table.items() if changed and moved == 0]
print("values changed, counter still:", silent)
assert silent == ["t.data.zero_()", "t.detach().numpy()[0] = 5"], "only .data and NumPy edits must go uncounted"
# sphinx_gallery_start_ignore
assert all(row[0][1] == int(row[0][0]) for name, row in table.items() if name not in silent), (
    "every other edit must move the counter by exactly one"
)
assert all(row[0][1] == row[1][1] for row in table.values()), "no_grad must not change the counting"
assert table["t = t + 1"][0] == (False, 0), "rebinding must leave the old tensor alone"
# sphinx_gallery_end_ignore

# %%
# One counter for a base and all its views
# ----------------------------------------
#
# A view shares its base's memory and its counter: an edit through either moves both readings.

base = torch.zeros(4)
view = base[1:3]
view.add_(1)
base[0] = 5.0
print("base:", base)
print("view:", view)
print("base._version:", base._version, " view._version:", view._version)
print("view._base is base:", view._base is base, " same storage:", same_storage(base, view))
assert base._version == view._version == 2, "a base and its view must share one version counter"

# %%
# Conclusion
# ----------
#
# ``_version`` counts in-place edits of a tensor's memory, whoever makes them: the tensor itself, a
# view, ``detach()``, ``out=``, with or without ``torch.no_grad()``. ``.data`` and NumPy change
# the values behind its back, which is why their edits can give wrong gradients without an error
# (:ref:`questions-data-vs-no-grad`). Rebinding a name edits nothing.
