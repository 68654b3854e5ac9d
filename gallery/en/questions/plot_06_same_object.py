"""
.. _questions-same-object:

TITLE
=====

Two or three sentences: what the reader will see on this page, and which question it answers.
"""

# %%
# Helpers
# -------
#
# A helper a page needs is defined on the page, so that its download runs on its own.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# One idea per cell
# -----------------
#
# A sentence or two on what the code below shows, then only that code. After every change, print
# every name involved. The one visible ``assert`` states what the sentence claims.

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = a.detach()
print("d:", d)
print("same storage:", same_storage(a, d))
print("d.requires_grad:", d.requires_grad)
assert same_storage(a, d), "detach() must share a's memory"
# sphinx_gallery_start_ignore
assert d.grad_fn is None, "the detached tensor must have no grad_fn"
# sphinx_gallery_end_ignore

# %%
# This must raise
# ---------------
#
# The one form for an error the page is about.

try:
    a.resize_(4)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("resize_ on a leaf that requires grad must raise")

# %%
# Conclusion
# ----------
#
# One or two sentences that sum up the page.
