"""
.. _data-vs-detach-detach:

``detach()``: the same edit, caught by autograd
===============================================

We repeat the previous page with ``out.detach()`` in place of ``out.data``.
The edit reaches ``out`` just the same, but this time ``backward()`` raises a
``RuntimeError``. The version counters printed after every step show why.
"""

# %%
# The same small graph
# --------------------
#
# ``out = a.sigmoid()`` again, with the same helpers ``show`` and
# ``same_storage`` as on the previous page. Both tensors start at version 0.
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
# sphinx_gallery_start_ignore
assert a._version == 0 and out._version == 0, "both tensors start at version 0"
# sphinx_gallery_end_ignore

# %%
# ``detach()`` shares the numbers and does not require a gradient
# ----------------------------------------------------------------
#
# Like ``.data``, ``out.detach()`` returns a new tensor object over the same
# storage, with ``requires_grad=False`` and no ``grad_fn``.
c = out.detach()
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), "detach() shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, "detach() returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, "detach() gives a leaf that does not require grad"
# sphinx_gallery_end_ignore

# %%
# Zero ``out`` through ``c``: both versions move
# ----------------------------------------------
#
# Here is the difference from ``.data``. ``c.zero_()`` bumps the version
# counter to 1, and ``out._version`` is 1 as well: ``detach()`` shares the
# version counter of its source, so an edit through ``c`` is recorded on
# ``out`` too.
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert c._version == 1 and out._version == 1, "c and out share one version counter"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# ``backward()`` refuses to run
# -----------------------------
#
# ``SigmoidBackward0`` saved ``out`` (it needs the output ``s`` to compute
# ``s * (1 - s)``) and noted its version at that moment: 0. When
# ``backward()`` unpacks the saved tensor, it compares that number with the
# current version, finds 1, and raises. ``a.grad`` stays ``None``.
try:
    out.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() must raise")
show("a", a)
print("a.grad:", a.grad)
assert "output 0 of Sigmoid, is at version 1; expected version 0 instead" in message, "the error gives both versions"
# sphinx_gallery_start_ignore
assert "modified by an inplace operation" in message, "the error names the in-place edit"
assert a.grad is None, "no gradient was written"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article quotes only the first part of the message, "one of the
#    variables needed for gradient computation has been modified by an
#    inplace operation". On this torch the message goes on: it names the
#    tensor (``[torch.FloatTensor [3]]``, output 0 of ``Sigmoid``), gives the
#    version it found and the one it expected, and adds a hint about anomaly
#    detection (see the output above). The article also prints
#    ``SigmoidBackward``, where this torch prints ``SigmoidBackward0``.
article_text = "one of the variables needed for gradient computation has been modified by an inplace operation"
print("message starts with the article's text:", message.startswith(article_text))
print("article's text:", len(article_text), "characters; full message:", len(message), "characters")
print("out.grad_fn:", out.grad_fn.name())
assert message.startswith(article_text + ": "), "the article's text is only the start of the message"
# sphinx_gallery_start_ignore
assert "Hint: enable anomaly detection" in message, "the message ends with a hint"
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"
# sphinx_gallery_end_ignore

# %%
# The check happens when a saved tensor is read
# ---------------------------------------------
#
# The saved output can be read as ``out.grad_fn._saved_result`` (see `Saved
# tensors <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__).
# Reading it now runs the same version check and raises the same error:
# ``backward()`` fails because it needs this tensor.
try:
    saved = out.grad_fn._saved_result
except RuntimeError as e:
    saved_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("reading the saved result must raise")
assert saved_message == message, "reading the saved tensor fails with the same message"

# %%
# One counter or two
# ------------------
#
# On a fresh graph we take both ``via_data = out.data`` and
# ``via_detach = out.detach()``, then edit through each in turn. An edit
# through ``via_data`` moves only its own counter. An edit through
# ``via_detach`` moves ``via_detach`` and ``out`` together and leaves
# ``via_data`` where it was.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
via_data = out.data
via_detach = out.detach()


def versions(step):
    counts = out._version, via_data._version, via_detach._version
    print(f"{step:<26} out={counts[0]}  via_data={counts[1]}  via_detach={counts[2]}")
    return counts


at_start = versions("start")

via_data.mul_(1)
after_data = versions("after via_data.mul_(1)")

via_detach.mul_(1)
after_detach = versions("after via_detach.mul_(1)")
assert after_detach == (1, 1, 1), "detach() shares out's counter"
# sphinx_gallery_start_ignore
assert after_data == (0, 1, 0), ".data has a counter of its own"
assert at_start == (0, 0, 0), "all start at 0"
# sphinx_gallery_end_ignore

# %%
# A tensor taken later inherits the count: ``out.detach()`` reports the
# current version of ``out``, while ``out.data`` starts again from 0.
print("out._version:         ", out._version)
print("out.detach()._version:", out.detach()._version)
print("out.data._version:    ", out.data._version)
assert out.detach()._version == out._version == 1, "a new detach() sees the shared count"
# sphinx_gallery_start_ignore
assert out.data._version == 0, "a new .data starts a fresh counter"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``detach()`` and ``.data`` share the same numbers. Only ``detach()`` also
# shares the version counter, and that is what lets autograd notice that a
# tensor it saved was changed, and refuse to return a wrong gradient. The
# next page checks each point of the article's summary:
# :ref:`data-vs-detach-comparison`.
