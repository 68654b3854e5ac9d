"""
.. _PART-TOPIC:

TITLE
=====
ANSWER-BOX
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
# Drawing helpers
# ---------------
#
# Every picture on this page is drawn from the live tensors by the helper functions below, with
# matplotlib. Every page that draws carries the same code, so the page folds it away; the downloaded
# script and notebook carry it in full.

# FIGURE-HELPERS (sitetools/authoring/new_page.py writes the helper cell of sitetools/authoring/figure_cell.py here)

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
# .. figure-caption::
#    :alt: Diagram: the names a and d point to two tensor objects on one storage S1.
#
#    ``a`` and ``d`` are two tensor objects on one storage ``S1``. One picture per cell, right
#    after the code whose state it shows; every behaviour the caption states is asserted above.

draw_memory("d = a.detach()", a=a, d=d)

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
