"""
.. _questions-checkpoints:

Checkpoints: what ``torch.load``, ``load_state_dict`` and ``assign=True`` copy
==============================================================================

.. admonition:: Answer
   :class: answer

   With torch's default settings, ``load_state_dict(sd, assign=True)`` gives the model new parameter
   objects; an optimizer made before it still holds the old ones, which get no gradient, so the loss
   stops going down. Make the optimizer after loading:

   .. code-block:: python

      model.load_state_dict(sd, assign=True)
      optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

The loss does not decrease after loading a checkpoint (the parameters keep the checkpoint's values, so on a fixed
batch it prints the same value at every step, unless the forward pass itself changes from step to step, as with
dropout in train mode),
or a saved checkpoint holds later weights than the step it was saved at (``state_dict()`` was taken, then more
steps ran before the file was written). This page saves and loads a small model and shows what each step
copies: ``torch.load`` (with and without
``mmap=True``), ``load_state_dict`` (with and without ``assign=True``) with an optimizer made
before it, a resumed training run, and ``state_dict()`` saved after more training.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
# The model has parameters and
# buffers (the ``BatchNorm1d`` running statistics and its ``int64`` batch count
# ``num_batches_tracked``); ``train`` takes steps on a fixed batch and returns the losses;
# ``round_trip`` saves with ``torch.save`` to a file in a temporary folder and loads it back with
# ``torch.load``.

import copy
import tempfile
import warnings

import torch

# sphinx_gallery_start_ignore
# no-figure: what it shows is which tensors are new objects and whose memory they use, printed for every entry
# sphinx_gallery_end_ignore


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


torch.manual_seed(0)
x, y = torch.randn(16, 3), torch.randn(16, 2)


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(3, 4, bias=False), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))


def train(model, optimizer, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


def round_trip(state):
    with tempfile.TemporaryDirectory() as folder:
        torch.save(state, f"{folder}/checkpoint.pt")
        return torch.load(f"{folder}/checkpoint.pt")


trained = make_model()
print("losses while training the model we save:", train(trained, torch.optim.SGD(trained.parameters(), lr=0.1), 2))

# %%
# ``torch.load`` returns new tensors
# ----------------------------------
#
# For a model in three dtypes, every entry that ``torch.load`` returns has the saved values and
# memory of its own: adding 1 to every loaded entry leaves the model as it was, and editing the
# model's entries afterwards leaves the loaded ones as they were.

for dtype in (torch.float32, torch.float64, torch.bfloat16):
    original = make_model().to(dtype)
    saved = {k: v.clone() for k, v in original.state_dict().items()}
    loaded = round_trip(original.state_dict())
    shared = [k for k in loaded if same_storage(loaded[k], original.state_dict()[k])]
    equal = [k for k in loaded if torch.equal(loaded[k], saved[k])]
    for v in loaded.values():
        v.add_(1)
    model_kept = all(torch.equal(v, saved[k]) for k, v in original.state_dict().items())
    for v in original.state_dict().values():
        v.mul_(0)
    loaded_kept = all(torch.equal(v, saved[k] + 1) for k, v in loaded.items())
    print(f"{str(dtype):<15} entries: {len(loaded)}  saved values: {len(equal)}  shared with the model: "
          f"{len(shared)}  model kept: {model_kept}  loaded kept: {loaded_kept}")  # fmt: skip
    assert len(equal) == len(loaded) and not shared and model_kept and loaded_kept, f"{dtype}: new tensors"

# %%
# ``torch.load(path, mmap=True)``: the file's bytes, edited privately
# -------------------------------------------------------------------
#
# With ``mmap=True`` torch maps the file into memory instead of reading it into new tensors: two
# loaded weights lie as far apart in memory as their bytes lie in the file. The mapping is private
# (torch's default; see ``torch.serialization.set_default_mmap_options``): an in-place edit of a
# loaded tensor, and two training steps of a model that took the loaded tensors with
# ``assign=True``, change them in this process's memory, and the file keeps the saved values, as a
# second ``torch.load`` of it, with and without ``mmap=True``, shows.

with tempfile.TemporaryDirectory() as folder:
    torch.save(trained.state_dict(), f"{folder}/checkpoint.pt")
    mapped = torch.load(f"{folder}/checkpoint.pt", mmap=True)
    with open(f"{folder}/checkpoint.pt", "rb") as file:
        raw = file.read()
    first, last = mapped["0.weight"], mapped["2.weight"]
    first_bytes, last_bytes = first.numpy().tobytes(), last.numpy().tobytes()
    in_file = raw.find(last_bytes) - raw.find(first_bytes)
    print("distance between the two weights, in memory == in the file:", last.data_ptr() - first.data_ptr() == in_file)
    mapped["0.weight"].add_(1)
    resumed = make_model()
    resumed.load_state_dict(mapped, assign=True)
    print("losses:", train(resumed, torch.optim.SGD(resumed.parameters(), lr=0.1), 2))
    again = torch.load(f"{folder}/checkpoint.pt")
    again_mapped = torch.load(f"{folder}/checkpoint.pt", mmap=True)
    changed = [k for k in mapped if not torch.equal(mapped[k], trained.state_dict()[k])]
    file_kept = [k for k in again if torch.equal(again[k], trained.state_dict()[k])]
    mapped_kept = [k for k in again if torch.equal(again_mapped[k], trained.state_dict()[k])]
    print("entries:", len(mapped), " edited in memory:", len(changed), " file kept (load):", len(file_kept),
          " file kept (mmap load):", len(mapped_kept))  # fmt: skip
    assert last.data_ptr() - first.data_ptr() == in_file, "mmap=True: the tensors are the file's bytes, mapped"
    assert len(changed) == len(file_kept) == len(mapped_kept) == len(mapped), "edits stay out of the file"
    del mapped, first, last, resumed, again_mapped  # the mapping is closed before the folder is removed
# sphinx_gallery_start_ignore
assert raw.count(first_bytes) == 1 and raw.count(last_bytes) == 1, "each weight's bytes occur once in the file"
assert in_file > 0, "the two weights are different records of the file"
# sphinx_gallery_end_ignore

# %%
# ``load_state_dict`` copies into the parameters the model has
# ------------------------------------------------------------
#
# A new model, its optimizer made first, then ``load_state_dict(sd)``. Every entry of the model is
# the object it was before, with ``sd``'s values, in memory of its own: adding 1 to every entry of
# ``sd`` afterwards leaves the model as it was. The optimizer made before the load still holds the
# model's parameters, and two steps of it lower the loss.

sd = round_trip(trained.state_dict())
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = dict(model.state_dict(keep_vars=True))
print(model.load_state_dict(sd))
after = model.state_dict(keep_vars=True)
same_objects = [k for k in sd if after[k] is before[k]]
equal = [k for k in sd if torch.equal(after[k], sd[k])]
shared = [k for k in sd if same_storage(after[k], sd[k])]
values = {k: v.clone() for k, v in sd.items()}
for v in sd.values():
    v.add_(1)
kept = [k for k in sd if torch.equal(after[k], values[k])]
print("entries:", len(sd), " same objects:", len(same_objects), " sd's values:", len(equal),
      " shared with sd:", len(shared), " kept after sd was edited:", len(kept))  # fmt: skip
losses = train(model, optimizer, 2)
print("losses:", losses)
assert len(same_objects) == len(equal) == len(kept) == len(sd) and not shared, (
    "load_state_dict copied sd's values into the same parameter objects")
assert losses[1] < losses[0], "the optimizer made before load_state_dict trains the model"

# %%
# ``assign=True`` installs ``sd``'s tensors
# -----------------------------------------
#
# With ``assign=True`` the model takes the checkpoint's tensors instead: every entry is a new
# object on ``sd``'s memory (under torch's default settings, which this page runs with; see
# ``load_state_dict``'s documentation for ``torch.__future__``'s swap setting). A parameter becomes a new ``nn.Parameter`` that requires grad, as the
# old one did; a buffer becomes ``sd``'s tensor itself. Here ``sd`` holds plain tensors, as
# ``torch.load`` gives; from a dict that holds ``nn.Parameter`` objects, such as another model's
# ``state_dict(keep_vars=True)``, ``assign=True`` installs those very objects, and the two models then
# share their parameters. An installed ``Parameter`` takes the ``requires_grad`` of the one it
# replaces, either way: ``frozen``, a copy of ``trained`` whose parameters do not require grad, has
# them require grad again once ``student`` installs them; and ``cold``, a model whose parameters do
# not require grad, turns off ``requires_grad`` of the ``Parameter`` objects it installs from
# ``thawed``, which are still ``thawed``'s own.

sd = round_trip(trained.state_dict())
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
old = dict(model.state_dict(keep_vars=True))
model.load_state_dict(sd, assign=True)
new = model.state_dict(keep_vars=True)
for k in sd:
    print(f"{k:<22} {type(new[k]).__name__:<9} new object: {new[k] is not old[k]}  is sd's: {new[k] is sd[k]}  "
          f"same storage: {same_storage(new[k], sd[k])}  requires_grad: {new[k].requires_grad}")  # fmt: skip
assert all(new[k] is not old[k] and same_storage(new[k], sd[k]) for k in sd), "assign=True installs sd's memory"
frozen = copy.deepcopy(trained).requires_grad_(False)
student = copy.deepcopy(model)
student.load_state_dict(frozen.state_dict(keep_vars=True), assign=True)
print("student[0].weight is frozen[0].weight:", student[0].weight is frozen[0].weight,
      " frozen's requires_grad now:", [p.requires_grad for p in frozen.parameters()])
thawed = make_model()
cold = make_model().requires_grad_(False)
cold.load_state_dict(thawed.state_dict(keep_vars=True), assign=True)
print("cold[0].weight is thawed[0].weight:", cold[0].weight is thawed[0].weight,
      " thawed's requires_grad now:", [p.requires_grad for p in thawed.parameters()])
# sphinx_gallery_start_ignore
for entry in sd:
    if isinstance(old[entry], torch.nn.Parameter):
        assert isinstance(new[entry], torch.nn.Parameter) and new[entry].requires_grad == old[entry].requires_grad, (
            f"{entry}: a new Parameter, with the old one's requires_grad")
    else:
        assert new[entry] is sd[entry], f"{entry}: a buffer becomes sd's tensor itself"
twin = copy.deepcopy(model)
twin.load_state_dict(model.state_dict(keep_vars=True), assign=True)
assert all(t is m for t, m in zip(twin.parameters(), model.parameters(), strict=True)), "a dict of Parameters: installed"
assert all(s is f for s, f in zip(student.parameters(), frozen.parameters(), strict=True)) and all(
    f.requires_grad for f in frozen.parameters()), "student installed frozen's parameters, which now require grad"
assert all(c is t for c, t in zip(cold.parameters(), thawed.parameters(), strict=True)) and not any(
    t.requires_grad for t in thawed.parameters()), "cold installed thawed's parameters, which no longer require grad"
# sphinx_gallery_end_ignore

# %%
# The symptom: the loss does not change
# -------------------------------------
#
# The optimizer was made before the load, so its parameters are the old ones, which the model no
# longer uses. ``backward()`` gives them no gradient, so ``step()`` changes nothing the model
# uses: the parameters keep the checkpoint's values (the ``BatchNorm1d`` buffers still change at
# every forward pass in train mode), and three steps print one loss three times. The
# model's new parameters collect their gradients, which no one applies or zeroes: after three
# steps ``model[0].weight.grad`` is three times one step's gradient. With a ``Dropout`` layer in train
# mode the printed loss changes from step to step, though the parameters keep the checkpoint's values
# there too; in eval mode the loss is again one value.

losses = train(model, optimizer, 3)
print("losses:", losses)
print("the optimizer holds model[0].weight:", any(p is model[0].weight for p in optimizer.param_groups[0]["params"]))
print("old weight's .grad:", old["0.weight"].grad)
one_step = torch.autograd.grad(torch.nn.functional.mse_loss(model(x), y), model[0].weight)[0]
print("model[0].weight.grad == 3 x one step's:", torch.allclose(model[0].weight.grad, 3 * one_step))
assert len(set(losses)) == 1, "with the optimizer made before assign=True the loss does not change"
# sphinx_gallery_start_ignore
assert all(any(p is q for q in old.values()) for p in optimizer.param_groups[0]["params"]), (
    "the optimizer holds only the parameters from before the load")
assert old["0.weight"].grad is None and torch.allclose(model[0].weight.grad, 3 * one_step), (
    "the old weight got no grad; the new one summed three steps' grads")
assert all(torch.equal(p, q) for p, q in zip(model.parameters(), trained.parameters(), strict=True)), (
    "the model's parameters still equal the checkpoint's")
assert model[1].num_batches_tracked == trained[1].num_batches_tracked + 4, (
    "each of the four train-mode forward passes moved the BatchNorm batch count num_batches_tracked")
assert not torch.equal(model[1].running_mean, trained[1].running_mean), "the BatchNorm running mean moved"
with torch.random.fork_rng():
    dropout_source = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Dropout(0.5), torch.nn.Linear(4, 2))
    dropout_model = copy.deepcopy(dropout_source)
    dropout_optimizer = torch.optim.SGD(dropout_model.parameters(), lr=0.1)
    dropout_model.load_state_dict(round_trip(dropout_source.state_dict()), assign=True)
    dropout_train_losses = train(dropout_model, dropout_optimizer, 3)
    dropout_eval_losses = train(dropout_model.eval(), dropout_optimizer, 3)
assert all(a != b for a, b in zip(dropout_train_losses, dropout_train_losses[1:], strict=False)), (
    "with Dropout in train mode the loss changes from step to step")
assert len(set(dropout_eval_losses)) == 1, "with Dropout in eval mode the loss is one value"
assert all(torch.equal(p, q) for p, q in zip(dropout_model.parameters(), dropout_source.parameters(), strict=True)), (
    "with Dropout the model's parameters still equal the checkpoint's")
# sphinx_gallery_end_ignore

# %%
# Why ``assign=True`` exists: a model built on ``meta``
# -----------------------------------------------------
#
# A model built on the ``meta`` device has parameters with no memory. ``load_state_dict(sd)``
# cannot copy into them: it warns once per entry, and the model stays on ``meta``.
# ``assign=True`` gives it ``sd``'s tensors, on the CPU.

sd = round_trip(trained.state_dict())
with torch.device("meta"):
    empty = make_model()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    empty.load_state_dict(sd)
print("warnings:", len(caught), " the first:", caught[0].message)
device_before = empty[0].weight.device
print("device after load_state_dict(sd):", device_before)
empty.load_state_dict(sd, assign=True)
print("device after load_state_dict(sd, assign=True):", empty[0].weight.device)
assert len(caught) == len(sd) and "which is a no-op" in str(caught[0].message), (
    "load_state_dict(sd) on meta warns once per entry that the copy is a no-op"
)
assert device_before.type == "meta" and empty[0].weight.is_cpu, "assign=True gives a meta model sd's tensors"

# %%
# The fix: make the optimizer after loading
# -----------------------------------------
#
# Made after the load, the optimizer holds the parameters the model uses, and the loss goes down
# at every step. Loading without ``assign=True``, as in the first ``load_state_dict`` section
# above, works with an optimizer made at any time, if the dict carries no flag of an earlier load
# with ``assign=True`` (next section).

sd = round_trip(trained.state_dict())
model = make_model()
model.load_state_dict(sd, assign=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = train(model, optimizer, 3)
print("losses:", losses)
assert losses[2] < losses[1] < losses[0], "the optimizer made after the load trains the model"

# %%
# A dict loaded with ``assign=True`` is assigned again
# ----------------------------------------------------
#
# On this torch, ``load_state_dict(sd, assign=True)`` also writes its flag into ``sd``'s own
# metadata (``sd._metadata``), and a later ``load_state_dict(sd)`` without ``assign=True`` reads it
# there, even when called with ``assign=False``: the second model takes ``sd``'s tensors too, and
# shares them with the first (`pytorch/pytorch#188166 <https://github.com/pytorch/pytorch/issues/188166>`__).
# The flag is saved with ``sd``, and ``copy.deepcopy(sd)`` keeps it: a dict saved after such a load
# and loaded back, or a deep copy of it, is assigned as well. Load the file again for each model: when the file was
# saved from a model's ``state_dict()``, as here, the dict ``torch.load`` returns carries no flag.

sd = round_trip(trained.state_dict())
first_model = make_model()
first_model.load_state_dict(sd, assign=True)
second_model = make_model()
second_weight = second_model[0].weight
second_model.load_state_dict(sd)
print("second_model[0].weight is second_weight:", second_model[0].weight is second_weight)
print("same storage:", same_storage(second_model[0].weight, first_model[0].weight))
third_model = make_model()
third_weight = third_model[0].weight
third_model.load_state_dict(round_trip(sd))
print("after a save and a load, third_model[0].weight is third_weight:", third_model[0].weight is third_weight)
fresh_model = make_model()
fresh_weight = fresh_model[0].weight
fresh_model.load_state_dict(round_trip(trained.state_dict()))
print("from a fresh load, fresh_model[0].weight is fresh_weight:", fresh_model[0].weight is fresh_weight)
assert second_model[0].weight is not second_weight and same_storage(second_model[0].weight, first_model[0].weight), (
    "the plain load of sd assigns: the second model shares the first one's memory"
)
assert third_model[0].weight is not third_weight and fresh_model[0].weight is fresh_weight, "the flag is saved with sd"
# sphinx_gallery_start_ignore
deep_model = make_model()
deep_weight = deep_model[0].weight
deep_model.load_state_dict(copy.deepcopy(sd))
assert deep_model[0].weight is not deep_weight, "a deepcopy of sd keeps the flag: a plain load assigns"
explicit_model = make_model()
explicit_weight = explicit_model[0].weight
explicit_model.load_state_dict(sd, assign=False)
explicit_loaded = explicit_model[0].weight
assert explicit_loaded is not explicit_weight and same_storage(explicit_loaded, first_model[0].weight), (
    "the flag in sd overrides an explicit assign=False: the model shares the first one's memory")
# sphinx_gallery_end_ignore

# %%
# A cheaper way to keep the flag out of ``sd``: load a plain ``dict`` of its entries, ``dict(sd)``. A
# plain ``dict`` has no ``_metadata``, so the flag is written into a throwaway dict, and a later load of
# ``sd`` copies. Python's shallow copy, ``copy.copy(sd)``, does not do this: the copy shares ``sd``'s
# ``_metadata``, so the flag lands in ``sd``. ``dict(sd)`` also leaves out the version numbers kept in ``sd._metadata``, and some modules,
# finding none, read even a file this torch saved as one from an older release: ``BatchNorm1d``, as
# here, loads as before, but a ``torch.ao.quantization.MinMaxObserver`` sets its saved ``eps`` back to
# the default. For a model with such a module, load the file again instead.

clean = round_trip(trained.state_dict())
assigned_model = make_model()
assigned_model.load_state_dict(dict(clean), assign=True)
copying_model = make_model()
copying_weight = copying_model[0].weight
copying_model.load_state_dict(clean)
print("assigned_model took clean's memory:", same_storage(assigned_model[0].weight, clean["0.weight"]))
print("copying_model[0].weight is copying_weight:", copying_model[0].weight is copying_weight)
assert same_storage(assigned_model[0].weight, clean["0.weight"]), "dict(sd) with assign=True installs sd's memory"
assert copying_model[0].weight is copying_weight, "a later load of sd copies: its metadata has no flag"
# sphinx_gallery_start_ignore
assert not hasattr(dict(clean), "_metadata") and clean._metadata["1"]["version"] == 2, "the copy has no versions"
assert list(assigned_model.state_dict()) == list(clean) and all(
    torch.equal(entry_loaded, clean[entry_key]) for entry_key, entry_loaded in assigned_model.state_dict().items()), (
    "without the versions, the model with BatchNorm1d loads every entry of dict(sd) as it is")
observed = round_trip(torch.ao.quantization.MinMaxObserver(eps=0.5).state_dict())
for assign_observer in (False, True):
    from_copy, from_sd = torch.ao.quantization.MinMaxObserver(eps=0.5), torch.ao.quantization.MinMaxObserver(eps=0.5)
    from_copy.load_state_dict(dict(observed), assign=assign_observer)
    from_sd.load_state_dict(observed, assign=assign_observer)
    assert from_copy.eps.item() == torch.finfo(torch.float32).eps and from_sd.eps.item() == 0.5, (
        "loaded from dict(sd), a MinMaxObserver sets its saved eps back to the default; loaded from sd, it keeps it")
assert all("assign_to_params_buffers" not in entry for entry in clean._metadata.values()), (
    "loading dict(sd) left no assign flag in sd's _metadata")
shallow_sd = round_trip(trained.state_dict())
shallow_copy = copy.copy(shallow_sd)
flagging_model = make_model()
flagging_model.load_state_dict(shallow_copy, assign=True)
assert shallow_copy._metadata is shallow_sd._metadata and shallow_sd._metadata[""]["assign_to_params_buffers"], (
    "copy.copy(sd) shares sd's _metadata: loading it with assign=True flags sd")
shallow_model = make_model()
shallow_weight = shallow_model[0].weight
shallow_model.load_state_dict(shallow_sd)
assert shallow_model[0].weight is not shallow_weight, "after loading copy.copy(sd) with assign=True, a plain load of sd assigns"
# sphinx_gallery_end_ignore

# %%
# The first model still takes ``sd``'s tensors. One forward pass in train mode updates the
# ``BatchNorm1d`` buffers, which are ``sd``'s tensors, and a training step changes every entry:
# ``sd``'s values change with the first model, and a later load of ``sd`` copies its current
# values, not the checkpoint's. Load ``sd`` into the other models before the first one runs, as
# ``copying_model`` above, or load the file again for each model.

as_loaded = {k: v.clone() for k, v in clean.items()}
assigned_model(x)  # one forward pass in train mode
after_forward = [k for k in clean if not torch.equal(clean[k], as_loaded[k])]
print("entries of clean changed by one forward pass:", after_forward)
train(assigned_model, torch.optim.SGD(assigned_model.parameters(), lr=0.1), 1)
after_step = [k for k in clean if not torch.equal(clean[k], as_loaded[k])]
print("entries of clean changed after one training step:", len(after_step), "of", len(clean))
late_model = make_model()
late_model.load_state_dict(clean)
print("late_model[0].weight equals the checkpoint's:", torch.equal(late_model[0].weight, as_loaded["0.weight"]))
print("copying_model[0].weight equals the checkpoint's:", torch.equal(copying_model[0].weight, as_loaded["0.weight"]))
assert after_forward == ["1.running_mean", "1.running_var", "1.num_batches_tracked"] and after_step == list(clean), (
    "sd's values change with the model that took them: its buffers at a forward pass in train mode, every entry at a "
    "training step")
assert not torch.equal(late_model[0].weight, as_loaded["0.weight"]) and torch.equal(
    copying_model[0].weight, as_loaded["0.weight"]), (
    "a later load of sd copies its current values; a model loaded before the first one ran keeps the checkpoint's")
# sphinx_gallery_start_ignore
assert all(torch.equal(late, now) for late, now in zip(late_model.state_dict().values(),
                                                       assigned_model.state_dict().values(), strict=True)), (
    "the later load of sd copies the first model's current values")
assert all(torch.equal(copying_model.state_dict()[k], as_loaded[k]) for k in clean), (
    "every entry of the model loaded before the first one ran keeps the checkpoint's value")
assert all(bytes_apart(late, now) for late, now in zip(late_model.parameters(), assigned_model.parameters(),
                                                             strict=True)), "the later load of sd copies"
# sphinx_gallery_end_ignore

# %%
# Resuming training from a checkpoint
# -----------------------------------
#
# To resume, save the model's and the optimizer's ``state_dict()`` together, and load them into a
# new model and an optimizer made after the model's load. With momentum, two steps, a checkpoint
# and two more steps give the losses and weights of four steps in one run.

start = round_trip(trained.state_dict())
straight = make_model()
straight.load_state_dict(start)
straight_losses = train(straight, torch.optim.SGD(straight.parameters(), lr=0.1, momentum=0.9), 4)

first_run = make_model()
first_run.load_state_dict(start)
first_optimizer = torch.optim.SGD(first_run.parameters(), lr=0.1, momentum=0.9)
resumed_losses = train(first_run, first_optimizer, 2)
checkpoint = round_trip({"model": first_run.state_dict(), "optimizer": first_optimizer.state_dict()})
resumed = make_model()
resumed.load_state_dict(checkpoint["model"], assign=True)
resumed_optimizer = torch.optim.SGD(resumed.parameters(), lr=0.1, momentum=0.9)
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
resumed_losses += train(resumed, resumed_optimizer, 2)
print("four steps:           ", straight_losses)
print("two, checkpoint, two: ", resumed_losses)
same_weights = all(torch.equal(v, straight.state_dict()[k]) for k, v in resumed.state_dict().items())
print("same weights:", same_weights)
assert resumed_losses == straight_losses and same_weights, "the resumed run matches the run without a break"

# %%
# ``state_dict()`` is live: snapshot it before a later save
# ---------------------------------------------------------
#
# ``state_dict()`` returns tensors on the model's own memory (see :ref:`questions-best-weights`).
# A dict taken now and saved after two more steps (a save in the background, or at the end of an
# epoch) holds the weights of the later step, in every entry. A snapshot,
# ``{k: v.detach().clone() for k, v in sd.items()}`` or ``copy.deepcopy``, keeps the values of the
# moment it was taken.

live = trained.state_dict()
snapshot = {k: v.detach().clone() for k, v in live.items()}
deep = copy.deepcopy(live)
train(trained, torch.optim.SGD(trained.parameters(), lr=0.1), 2)
now = trained.state_dict()
saved_live, saved_snapshot, saved_deep = round_trip(live), round_trip(snapshot), round_trip(deep)
print("entries:", len(live), " on the model's storage:", sum(same_storage(live[k], now[k]) for k in live))
print("saved later, equal to the model now:", sum(torch.equal(saved_live[k], now[k]) for k in live))
print("snapshot, equal to the model now:   ", sum(torch.equal(saved_snapshot[k], now[k]) for k in live))
print("deepcopy, equal to the model now:   ", sum(torch.equal(saved_deep[k], now[k]) for k in live))
assert all(torch.equal(saved_live[k], now[k]) and not torch.equal(saved_snapshot[k], now[k]) for k in live), (
    "in every entry, the dict saved later holds the later weights, and the snapshot the old ones"
)
# sphinx_gallery_start_ignore
assert all(same_storage(live[k], now[k]) for k in live), "state_dict() shares the model's memory"
assert all(torch.equal(saved_snapshot[k], saved_deep[k]) for k in live), "deepcopy keeps the same values"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``torch.load`` gave tensors of their own; with ``mmap=True`` they were the file's bytes, mapped
# privately (torch's default), so edits did not reach the file. ``load_state_dict`` of a dict that
# ``torch.load`` read from a saved ``model.state_dict()`` copied into the model's own parameters,
# and an optimizer made before it kept training. ``assign=True`` put ``sd``'s tensors in their place (and left its flag in ``sd``, so a
# later plain load of ``sd`` did the same), and an optimizer made before it updated nothing: make the
# optimizer after the load.
# ``state_dict()`` followed training until it was saved; a clone or ``copy.deepcopy`` kept the
# moment it was taken.
