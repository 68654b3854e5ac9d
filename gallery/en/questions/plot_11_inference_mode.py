"""
.. _questions-inference-mode:

``torch.inference_mode()``, ``torch.no_grad()`` or ``detach()``?
================================================================

A tensor made under ``torch.inference_mode()`` is an *inference tensor*, and it refuses some uses
later, outside the mode: "Inference tensors cannot be saved for backward", "Inplace update to
inference tensor outside InferenceMode is not allowed", "Setting requires_grad=True on inference
tensor outside InferenceMode is not allowed". This page makes the same tensor three ways, tries each
use on each, and fixes the inference tensor with ``clone()``. The design is described in
`pytorch/rfcs#17 <https://github.com/pytorch/rfcs/pull/17>`__, which the error message names.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``attempt`` runs one use of a tensor and returns ``"ok"``, or the error it raised. The three
# ``make_*`` functions compute ``x * 2`` under each mode; ``uses`` are three later uses of the result.

import torch


def attempt(use, *tensors):
    try:
        use(*tensors)
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    return "ok"


def make_inference(x):
    with torch.inference_mode():
        return x * 2


def make_no_grad(x):
    with torch.no_grad():
        return x * 2


def make_detached(x):
    return (x * 2).detach()


ways = {"inference_mode": make_inference, "no_grad": make_no_grad, "detach": make_detached}
uses = {
    "saved for backward": lambda x, y: (x * y).sum().backward(),
    "in-place edit": lambda x, y: y.add_(1),
    "requires_grad_()": lambda x, y: y.requires_grad_(),
}

# %%
# What each way gives
# -------------------
#
# All three results are out of the graph (``requires_grad`` is ``False``). Only the one made under
# ``torch.inference_mode()`` is an inference tensor.

for name, make in ways.items():
    y = make(torch.tensor([1.0, 2.0], requires_grad=True))
    print(f"{name:15} is_inference={y.is_inference()}  requires_grad={y.requires_grad}  grad_fn={y.grad_fn}")
    # sphinx_gallery_start_ignore
    assert y.is_inference() == (name == "inference_mode") and not y.requires_grad, f"{name}: unexpected kind"
    # sphinx_gallery_end_ignore

# %%
# What each one refuses later
# ---------------------------
#
# Each use below runs outside any special mode, on a fresh tensor. The inference tensor refuses all
# three; the two others accept all three.

results = {}
for name, make in ways.items():
    for use_name, use in uses.items():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        results[name, use_name] = attempt(use, x, make(x))
for name in ways:
    print(f"{name:15}", "  ".join(f"{u}: {'ok' if results[name, u] == 'ok' else 'refused'}" for u in uses))
assert all((results[n, u] == "ok") == (n != "inference_mode") for n in ways for u in uses), (
    "only the inference tensor must refuse the three uses"
)

# %%
# The three messages in full:

for use_name in uses:
    print(f"{use_name}: {results['inference_mode', use_name]}")

# %%
# An inference tensor does not track a version counter at all, and that counter is how autograd
# notices an edit of a tensor it saved (:ref:`questions-version-counter`).

y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
try:
    y._version
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an inference tensor must have no version counter")

# %%
# A use that does not save it is accepted: an addition saves neither input for backward, so
# ``y + x`` joins the graph and backward reaches ``x``.

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x)
(y + x).sum().backward()
print("x.grad:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(x.grad, torch.ones(2)), "y + x must backpropagate to x"
# sphinx_gallery_end_ignore

# %%
# Memory: ``no_grad`` and ``inference_mode`` compute new values; ``detach()`` of ``x`` itself
# shares ``x``'s memory, so an edit of it is an edit of ``x``.

x = torch.tensor([1.0, 2.0], requires_grad=True)
d = x.detach()
d.add_(1)
print("x:", x)
print("x._version:", x._version, " d._version:", d._version)
# sphinx_gallery_start_ignore
assert torch.equal(x.detach(), torch.tensor([2.0, 3.0])), "an edit of x.detach() must reach x"
assert x._version == d._version == 1, "x and x.detach() must share one version counter"
# sphinx_gallery_end_ignore

# %%
# The fix: ``clone()`` outside the mode
# -------------------------------------
#
# ``y.clone()``, called outside ``torch.inference_mode()``, gives a normal tensor with a version
# counter. It can be saved for backward, and the gradient is the one ``torch.func.grad`` gives for
# ``(x * y).sum()`` with ``y`` held constant.

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x).clone()
(x * y).sum().backward()
expected = torch.func.grad(lambda x_: (x_ * y).sum())(x.detach())
print("y.is_inference():", y.is_inference())
print("x.grad:", x.grad, " expected:", expected)
assert torch.equal(x.grad, expected), "a clone of the inference tensor must work in autograd"
# sphinx_gallery_start_ignore
assert isinstance(y._version, int), "the clone must track a version counter"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Use ``torch.inference_mode()`` for code whose results never meet autograd again; its tensors
# refuse being saved for backward, edited in place or made to require grad outside the mode. When
# results may be reused in training, use ``torch.no_grad()``, or ``clone()`` them outside the mode.
# ``detach()`` computes nothing: it shares the memory it starts from.
