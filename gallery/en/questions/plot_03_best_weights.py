"""
.. _questions-best-weights:

Saving the "best" weights: why they keep changing
=================================================

``best = model.state_dict()`` after the best epoch, and at the end of training
``best`` holds the last weights, not the best ones. The fix was merged into
the PyTorch tutorials years ago (`pytorch/tutorials#188
<https://github.com/pytorch/tutorials/pull/188>`__) and the question still
comes back (`pytorch/pytorch#34765
<https://github.com/pytorch/pytorch/issues/34765>`__). This page shows what
``state_dict()`` returns, which snapshots hold, what ``load_state_dict``
copies, and what ``torch.save`` writes for a slice, in bytes.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares the memory two tensors use; ``train_step`` runs
# one SGD step on a fixed batch, editing the parameters in place.
import copy
import io

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def train_step(model, optimizer):
    optimizer.zero_grad()
    model(torch.ones(4, 2)).pow(2).mean().backward()
    optimizer.step()


model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# %%
# ``state_dict()`` returns references
# -----------------------------------
#
# Its tensors are new tensor objects, detached from autograd, over the
# parameters' own storage.
state = model.state_dict()
print("state['weight']:", state["weight"])
print("is model.weight:", state["weight"] is model.weight)
print("same storage:", same_storage(state["weight"], model.weight))
print("requires_grad:", state["weight"].requires_grad)
assert same_storage(state["weight"], model.weight), "state_dict() shares the parameters' memory"
# sphinx_gallery_start_ignore
assert state["weight"] is not model.weight and not state["weight"].requires_grad, "a detached tensor"
# sphinx_gallery_end_ignore

# %%
# Five ways to keep the "best" state, one training step later
# -----------------------------------------------------------
#
# We take each candidate now, train one step, and compare it with the weights
# before the step. The plain reference and a shallow copy of the dict
# (``dict(...)``, ``.copy()``) follow training, because they hold the same
# tensors; ``{k: v.detach().clone()}`` and ``copy.deepcopy`` keep the old
# values.
before = model.weight.detach().clone()
candidates = {
    "model.state_dict()": model.state_dict(),
    "state_dict().copy()": model.state_dict().copy(),
    "{k: v.detach().clone()}": {k: v.detach().clone() for k, v in model.state_dict().items()},
    "copy.deepcopy(state_dict())": copy.deepcopy(model.state_dict()),
    "state_dict(keep_vars=True)": model.state_dict(keep_vars=True),
}
train_step(model, optimizer)
print("weight before the step:", before)
print("weight after the step: ", model.weight.detach())
kept = {}
for name, saved in candidates.items():
    kept[name] = torch.equal(saved["weight"], before)
    print(f"{name:<28} kept the old weight: {kept[name]}")
assert [name for name, ok in kept.items() if ok] == ["{k: v.detach().clone()}", "copy.deepcopy(state_dict())"]
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the step changed the weight"
# sphinx_gallery_end_ignore

# %%
# ``keep_vars=True`` does not even detach: it returns the parameters
# themselves, ``requires_grad`` and all.
params = model.state_dict(keep_vars=True)
print("is model.weight:", params["weight"] is model.weight)
print("type:", type(params["weight"]).__name__)
assert params["weight"] is model.weight, "keep_vars=True returns the Parameter objects"

# %%
# ``load_state_dict`` copies; ``assign=True`` shares
# --------------------------------------------------
#
# Restoring the snapshot copies its values into the parameters the model
# already has: same objects, same memory, the optimizer still holds them.
# With ``assign=True`` the model takes the snapshot's tensors instead (wrapped
# as new ``Parameter`` objects over the same memory), so training ``other``
# would write into the snapshot as well.
best = candidates["{k: v.detach().clone()}"]
weight = model.weight
model.load_state_dict(best)
print("load_state_dict:              same object:", model.weight is weight)
print("load_state_dict:              shares best's memory:", same_storage(model.weight, best["weight"]))
other = torch.nn.Linear(2, 1)
other.load_state_dict(best, assign=True)
print("load_state_dict(assign=True): type:", type(other.weight).__name__)
print("load_state_dict(assign=True): shares best's memory:", same_storage(other.weight, best["weight"]))
assert same_storage(other.weight, best["weight"]) and not same_storage(model.weight, best["weight"])
# sphinx_gallery_start_ignore
assert model.weight is weight and torch.equal(model.weight, before), "restored in place"
assert isinstance(other.weight, torch.nn.Parameter) and other.weight.requires_grad
# sphinx_gallery_end_ignore


# %%
# ``torch.save`` of a slice writes the whole storage
# --------------------------------------------------
#
# A slice is a view: it shares the storage of its base. ``torch.save`` saves
# storages, so saving the first 10 of 100 000 floats writes all 400 000
# bytes; loading it back gives 10 numbers over a 400 000-byte storage.
# ``clone()`` first, and only the 10 numbers are written. (The files are
# written to memory; their sizes are the same on every run.)
def saved_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getbuffer().nbytes


signal = torch.arange(100_000, dtype=torch.float32)
head = signal[:10]
print("storage of head:         ", head.untyped_storage().nbytes(), "bytes")
print("torch.save(head):        ", saved_bytes(head), "bytes")
print("torch.save(head.clone()):", saved_bytes(head.clone()), "bytes")
buffer = io.BytesIO()
torch.save(head, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print("loaded:", loaded.shape, "over", loaded.untyped_storage().nbytes(), "bytes")
assert saved_bytes(head) > 400_000 > 100 * saved_bytes(head.clone()), "the slice drags its storage along"
# sphinx_gallery_start_ignore
assert loaded.untyped_storage().nbytes() == 400_000 and loaded.shape == (10,), "the storage comes back too"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``state_dict()`` holds references into the model, not a snapshot. For the best
# weights keep ``{k: v.detach().clone() for k, v in model.state_dict().items()}``
# or ``copy.deepcopy(model.state_dict())``, and restore them with
# ``load_state_dict`` (which copies). Before saving a slice, ``clone()`` it.
