"""
.. _copying-alias:

``b = a`` and ``b = a.data`` do not copy
========================================

The article starts from a surprise: a loop writes ones into a tensor ``b`` taken
from ``a.data``, and ``a`` fills up with ones as well. This page runs that loop
for ``b = a.data`` and for ``b = a``, then shows why neither gives ``b`` memory
of its own.
"""

# %%
# A helper for the whole page
# ---------------------------
#
# Two tensors share memory when their storages start at the same address.
# The helper compares the two addresses and prints only the answer, never the
# address itself.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# The article's loop needs its indentation back
# ---------------------------------------------
#
# The loop in the article has lost its indentation, so as printed it is not
# valid Python. Compiling the text exactly as printed fails before anything runs.

article_loop = """\
a = torch.zeros(2, 3)
for i in range(2):
for j in range(3):
b = a.data
b[i, j] = 1
print("b:", b)
print("a:", a)
"""
try:
    compile(article_loop, "article_loop", "exec")
except IndentationError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("the loop as printed must not compile")

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The loop as printed in the article raises ``IndentationError`` (output
#    above). The inner ``for`` belongs inside the outer one, and the four
#    statements after it belong inside the inner loop. The cells below restore
#    that indentation; with it, the output matches the article's.

# %%
# Writing through ``b = a.data``
# ------------------------------
#
# Here is the loop with its indentation. Each step writes one element through
# ``b``, then prints both names: every ``1`` written into ``b`` shows up in
# ``a`` at once.

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a.data
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through a.data"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# Writing through ``b = a``
# -------------------------
#
# The same loop with plain assignment gives the same result.

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through b = a"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# Why: ``b = a`` is the same object
# ---------------------------------
#
# Assignment never copies in Python. It gives the existing object a second name,
# so ``b is a``: there is only one tensor.

a = torch.zeros(2, 3)
b = a
print("b is a:", b is a)
print("same storage:", same_storage(a, b))

# %%
# Why: ``a.data`` is another object on the same memory
# ----------------------------------------------------
#
# ``a.data`` is a different Python object (``a.data is a`` is ``False``;
# each access even builds a new one), but it looks at the same storage as
# ``a``. A write through it lands in ``a``'s memory.

a = torch.zeros(2, 3)
b = a.data
print("b is a:", b is a)
print("a.data is a.data:", a.data is a.data)
print("same storage:", same_storage(a, b))
assert same_storage(a, b), "a.data must share a's storage"
# sphinx_gallery_start_ignore
assert b is not a, "a.data must be a separate tensor object"
assert a.data is not a.data, "each access to .data must build a new tensor object"
# sphinx_gallery_end_ignore

b[0, 0] = 7
print("b:", b)
print("a:", a)
# sphinx_gallery_start_ignore
assert a[0, 0] == 7, "a write through a.data must reach a"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Neither ``b = a`` nor ``b = a.data`` copies anything: the first gives the same
# tensor a second name, the second gives a new tensor object on the same memory.
# To get memory of its own, ``b`` has to be copied explicitly; the next page,
# :ref:`copying-safe-copy`, shows how.
