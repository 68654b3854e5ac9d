"""
.. _questions-module-to:

"My tensor is still on the CPU": ``module.to()`` and ``tensor.to()``
====================================================================

.. admonition:: Answer
   :class: answer

   ``model.to(...)`` changes the model itself and returns it; ``x.to(...)`` returns the converted
   tensor and leaves ``x`` as it was. Assign the tensor's result:

   .. code-block:: python

      model.to(torch.float64)
      x = x.to(torch.float64)

``model.to(device)`` works without an assignment, so ``x.to(device)`` looks as if it should too, and
the next forward pass fails with an error: ``RuntimeError: mat1 and mat2 must have the same dtype,
but got Float and Double``, or, for a model on ``meta``, ``RuntimeError: Tensor on device meta is not
on the expected device cpu!``. This page reproduces the error
with a change of dtype and with the ``meta`` device (a second device every build of torch has, which
plays the GPU here: on a GPU, ``model.cuda()`` moves the model itself while ``x.cuda()`` returns a new
tensor on the GPU, as the GPU box below checks where torch finds one), shows
exactly when ``tensor.to()`` hands back the tensor itself, what ``module.to()`` keeps, and
``.half()``, ``.float()`` and ``.double()``, which behave the same way.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start. The seed fixes the random weights and
# inputs, so the numbers below are the same on every run.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
x = torch.randn(4, 2)

# %%
# The symptom
# -----------
#
# ``model.to(torch.float64)`` converts the model. ``x.to(torch.float64)`` without an assignment
# makes a float64 copy and throws it away: ``x`` is still float32, and the forward pass refuses to
# multiply the two.
model.to(torch.float64)
x.to(torch.float64)
print("model.weight.dtype:", model.weight.dtype)
print("x.dtype:", x.dtype)
try:
    model(x)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a float64 model must refuse a float32 input")
# sphinx_gallery_start_ignore
assert message == "mat1 and mat2 must have the same dtype, but got Float and Double", "the exact message"
assert model.weight.dtype == torch.float64 and x.dtype == torch.float32, "the model converted, x not"
# sphinx_gallery_end_ignore

# %%
# The same with a device. ``meta`` tensors hold a shape and a dtype but no values, so they run on
# any machine: here ``meta`` plays the GPU. The model moves; ``x`` stays on the CPU.
model.to("meta")
x.to("meta")
print("model.weight.device:", model.weight.device)
print("x.device:", x.device)
try:
    model(x)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a model on meta must refuse an input on the CPU")
# sphinx_gallery_start_ignore
assert message == "Tensor on device meta is not on the expected device cpu!", "the exact message"
assert model.weight.is_meta and x.device.type == "cpu", "the model moved, x stayed on the CPU"
# sphinx_gallery_end_ignore

# %%
# ``module.to()`` changes the module and returns it
# -------------------------------------------------
#
# ``model.to(...)`` returns the very model it was called on, so ``model = model.to(...)`` and
# ``model.to(...)`` do the same thing. For a change of dtype the parameters stay the same
# ``Parameter`` objects, with new memory behind them: an optimizer made before the call still holds
# the model's parameters. Its state is not converted, though: convert before the optimizer's first
# step (see the training loop below).
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
weight, memory = model.weight, model.weight.detach()
returned = model.to(torch.float64)
print("returned is model:", returned is model)
print("model.weight is weight:", model.weight is weight)
print("same storage:", same_storage(model.weight, memory))
print("optimizer holds model.weight:", optimizer.param_groups[0]["params"][0] is model.weight)
assert returned is model and model.weight is weight, "to(dtype) returns the model and keeps its Parameters"
# sphinx_gallery_start_ignore
assert weight.dtype == torch.float64 and not same_storage(weight, memory), "new float64 memory"
assert optimizer.param_groups[0]["params"][0] is model.weight, "the optimizer holds the converted Parameter"
# sphinx_gallery_end_ignore

# %%
# A move to ``meta`` is different: the model gets new ``Parameter`` objects, and the old ones stay
# on the CPU. An optimizer made before such a move holds the old ones; make it after the move.
weight = model.weight
returned = model.to("meta")
print("returned is model:", returned is model)
print("model.weight is weight:", model.weight is weight)
print("weight.device:", weight.device, " model.weight.device:", model.weight.device)
assert returned is model and model.weight is not weight, "to('meta') returns the model with new Parameters"
# sphinx_gallery_start_ignore
assert isinstance(model.weight, torch.nn.Parameter) and model.weight.is_meta and weight.device.type == "cpu"
# sphinx_gallery_end_ignore

# %%
# ``tensor.to()`` returns a new tensor, or the tensor itself
# ----------------------------------------------------------
#
# ``x.to(...)`` never changes ``x``. It returns a new tensor when the dtype or the device changes,
# or when ``copy=True`` or another ``memory_format`` asks for one; when the dtype and the device
# asked for are the ones ``x`` already has, and neither is asked for, it returns ``x`` itself, the
# same object. We check this on each kind of tensor:
# a leaf that requires grad, a result of an operation, a ``Parameter``, a view, a plain tensor and
# an inference tensor.
leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.inference_mode():
    inference = torch.tensor([1.0, 2.0, 3.0])
kinds = {
    "leaf": leaf,
    "non-leaf": leaf * 2,
    "Parameter": torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0])),
    "view": leaf[1:],
    "plain": torch.tensor([1.0, 2.0, 3.0]),
    "inference": inference,
}
for kind, t in kinds.items():
    same = {"to(t.dtype)": t.to(t.dtype), 'to("cpu")': t.to("cpu"), "to(float64)": t.to(torch.float64),
            'to("meta")': t.to("meta"), "to(t.dtype, copy=True)": t.to(t.dtype, copy=True)}  # fmt: skip
    print(f"{kind:>9}: " + ", ".join(f"{call} is t: {result is t}" for call, result in same.items()))
    assert [call for call, result in same.items() if result is t] == ["to(t.dtype)", 'to("cpu")'], kind
# sphinx_gallery_start_ignore
assert all(t.dtype == torch.float32 and t.device.type == "cpu" for t in kinds.values()), "to() left each t as it was"
image = torch.ones(1, 2, 2, 2)
assert image.to(torch.float32) is image, "to() of a 4-D tensor's own dtype returns it"
assert image.to(torch.float32, memory_format=torch.channels_last) is not image, "another memory_format copies"
# sphinx_gallery_end_ignore

# %%
# ``.half()``, ``.float()`` and ``.double()``
# -------------------------------------------
#
# They are ``to()`` with a dtype, and behave the same way: on a module each converts the module and
# returns it; on a tensor each returns a new tensor, or the tensor itself when it already has that
# dtype (``.float()`` of a float32 tensor).
model = torch.nn.Linear(2, 1)
calls = {"half": model.half(), "float": model.float(), "double": model.double()}
print("module:", {name: result is model for name, result in calls.items()})
t = torch.tensor([1.0, 2.0, 3.0])
calls = {"half": t.half(), "float": t.float(), "double": t.double()}
print("tensor:", {name: result is t for name, result in calls.items()})
assert [name for name, result in calls.items() if result is t] == ["float"], "only float() of float32 is t"
# sphinx_gallery_start_ignore
assert all(m is model for m in (model.half(), model.float(), model.double())), "a module's calls return it"
assert t.dtype == torch.float32, "the tensor calls left t as it was"
# sphinx_gallery_end_ignore

# %%
# The fix, in a training loop
# ---------------------------
#
# Convert the model with or without an assignment, and assign every tensor's ``to()``. The optimizer
# was made before the conversion but had not stepped yet, so it trains the model: the loss falls
# over five steps.
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 2), torch.randn(8, 1)
model.to(torch.float64)
x = x.to(torch.float64)
y = y.to(torch.float64)
losses = []
for _ in range(5):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("x.dtype:", x.dtype, " model.weight.dtype:", model.weight.dtype)
print("losses:", [round(v, 4) for v in losses])
assert losses == sorted(set(losses), reverse=True), "the optimizer made before to() trains the model"
# sphinx_gallery_start_ignore
assert model.weight.dtype == x.dtype == torch.float64 and model.weight.grad.dtype == torch.float64
# sphinx_gallery_end_ignore

# %%
# Convert before the optimizer's first step, or make the optimizer after converting. An optimizer
# that has stepped keeps its state in the old dtype: here ``Adam`` steps once in float32, the model
# is converted, and the next step raises. (SGD with momentum, ``RMSprop`` and ``Adagrad`` do not
# raise: their state silently stays float32.) The repair is to reload the optimizer's own state,
# ``optimizer.load_state_dict(optimizer.state_dict())``, which casts it to the parameters' new
# dtype; then the step runs.
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
torch.nn.functional.mse_loss(model(x.float()), y.float()).backward()
optimizer.step()
model.to(torch.float64)
optimizer.zero_grad()
torch.nn.functional.mse_loss(model(x), y).backward()
try:
    optimizer.step()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("Adam that stepped in float32 must refuse float64 parameters")
optimizer.load_state_dict(optimizer.state_dict())
optimizer.step()
print("exp_avg dtype after reloading the state:", optimizer.state[model.weight]["exp_avg"].dtype)
assert optimizer.state[model.weight]["exp_avg"].dtype == torch.float64, "reloading casts the state; the step runs"
# sphinx_gallery_start_ignore
norm = torch.nn.LayerNorm(2)
sgd = torch.optim.SGD(norm.parameters(), lr=0.1, momentum=0.9)
norm(torch.tensor([[1.0, 2.0]])).sum().backward()
sgd.step()
norm.to(torch.float64)
assert norm.weight.dtype == torch.float64, "the module converted"
assert sgd.state[norm.weight]["momentum_buffer"].dtype == torch.float32, "SGD's momentum buffer stays float32"
for make, state_key in ((torch.optim.RMSprop, "square_avg"), (torch.optim.Adagrad, "sum")):
    other_norm = torch.nn.LayerNorm(2)
    other = make(other_norm.parameters(), lr=0.1)
    other_norm(torch.tensor([[1.0, 2.0]])).sum().backward()
    other.step()
    other_norm.to(torch.float64)
    other.zero_grad()
    other_norm(torch.tensor([[1.0, 2.0]], dtype=torch.float64)).sum().backward()
    other.step()
    assert other.state[other_norm.weight][state_key].dtype == torch.float32, f"{make.__name__} state stays float32"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    ``Module.cuda()`` moves the model in place and returns it, and, as for a change of dtype and
#    unlike a move to ``meta``, the model keeps its ``Parameter`` objects. ``Tensor.cuda()`` returns a
#    copy on the GPU, or the tensor itself when it is already on that GPU (PyTorch documentation:
#    `Module.cuda <https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.cuda>`__, `Tensor.cuda <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.cuda.html>`__). The cell below
#    checks this only where torch finds a GPU; the box's title says whether the site's build did.

if torch.cuda.is_available():
    gpu_model = torch.nn.Linear(2, 1)
    weight, t = gpu_model.weight, torch.ones(3)
    print("gpu_model.cuda() is gpu_model:", gpu_model.cuda() is gpu_model)
    print("gpu_model.weight is weight:", gpu_model.weight is weight, " weight.device:", weight.device)
    on_gpu = t.cuda()
    print("t.cuda() is t:", on_gpu is t, " on_gpu.cuda() is on_gpu:", on_gpu.cuda() is on_gpu)
    assert gpu_model.weight is weight and weight.is_cuda, "model.cuda() keeps its Parameter objects"
    assert on_gpu is not t and on_gpu.cuda() is on_gpu, "t.cuda() copies; on the GPU, cuda() returns the tensor itself"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# What ``module.to()`` leaves behind
# ----------------------------------
#
# ``module.to()`` converts the module's parameters and buffers, in every submodule, and nothing
# else. A tensor kept as a plain attribute (``self.scale = torch.ones(2)``) or inside a Python list
# stays where it was: here, on the CPU after ``.to("meta")``, and the forward pass fails.


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 2)
        self.scale = torch.ones(2)
        self.offsets = [torch.zeros(2)]

    def forward(self, x):
        return self.linear(x) * self.scale + self.offsets[0]


scaled = Scaled().to("meta")
print("scaled.linear.weight.device:", scaled.linear.weight.device)
print("scaled.scale.device:", scaled.scale.device, " scaled.offsets[0].device:", scaled.offsets[0].device)
try:
    scaled(torch.ones(1, 2, device="meta"))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a forward pass that mixes meta and CPU tensors must raise")
assert scaled.scale.device.type == "cpu" and scaled.offsets[0].device.type == "cpu", "to() left them on the CPU"

# %%
# The fix is to register such tensors as buffers: ``module.to()`` moves a buffer like a parameter,
# and ``persistent=False`` keeps one out of ``state_dict()``. (For a list of tensors, register each
# one.)


class Buffered(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 2)
        self.register_buffer("scale", torch.ones(2))
        self.register_buffer("offset", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.linear(x) * self.scale + self.offset


buffered = Buffered().to("meta")
out = buffered(torch.ones(1, 2, device="meta"))
print("buffered.scale.device:", buffered.scale.device, " buffered.offset.device:", buffered.offset.device)
print("out.device:", out.device, " keys of state_dict():", list(buffered.state_dict()))
assert buffered.scale.is_meta and buffered.offset.is_meta and out.is_meta, "to() moves buffers, persistent or not"

# %%
# Conclusion
# ----------
#
# ``module.to()``, ``.half()``, ``.float()`` and ``.double()`` change a module and return it, so
# their result may be ignored. On a tensor the same calls change nothing: they return a new tensor,
# or the tensor itself when its dtype and device already match, and only the returned tensor has
# the new dtype or device. Write ``x = x.to(...)``. Convert the model before the optimizer's first
# step; after moving a model to ``meta``, make the optimizer again: that move gives the model new
# ``Parameter`` objects. A tensor kept as a plain attribute or in a list does not move with the
# module: register it as a buffer.
