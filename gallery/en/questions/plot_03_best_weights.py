"""
.. _questions-best-weights:

Saving the "best" weights: why they keep changing
=================================================

.. admonition:: Answer
   :class: answer

   For dense parameters and buffers, ``state_dict()`` returns tensors that share the model's memory, not a snapshot, so a dict saved from it follows training. Keep a copy of each tensor (``copy.deepcopy`` the dict if a value is not a tensor), and restore it with ``load_state_dict``:

   .. code-block:: python

      best = {k: v.detach().clone() for k, v in model.state_dict().items()}
      model.load_state_dict(best)

``best = model.state_dict()`` after the best epoch, and at the end of training
``best`` holds the last weights, not the best ones: the saved best model keeps changing. The fix was merged into
the PyTorch tutorials years ago (`pytorch/tutorials#188
<https://github.com/pytorch/tutorials/pull/188>`__) and the question still
comes back (`pytorch/pytorch#34765
<https://github.com/pytorch/pytorch/issues/34765>`__). This page shows what
``state_dict()`` returns, which snapshots hold, what ``load_state_dict``
copies, what ``torch.save`` writes for a slice, in bytes, and how to keep the snapshot out of GPU
memory (``.to("cpu", copy=True)``; a GPU box checks ``.cpu()`` on a GPU where torch finds one).
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start; ``train_step`` runs
# one SGD step on a fixed batch, editing the parameters in place. The seed
# fixes the model's random initial weights, so the numbers below are the same
# on every run.
#
# ``bytes_apart`` tells whether two tensors' storages do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
import copy
import io

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def train_step(model, optimizer):
    optimizer.zero_grad()
    model(torch.ones(4, 2)).pow(2).mean().backward()
    optimizer.step()


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# %%
# Drawing helpers
# ---------------
#
# Every picture on this page is drawn from the live tensors by the helper functions below, with
# matplotlib. Every page that draws carries the same code, so the page folds it away; the downloaded
# script and notebook carry it in full.

import matplotlib.pyplot as plt

INK, PAPER, FILLS = "#1f2937", "#ffffff", ("#dbeafe", "#fde68a", "#d1fae5", "#fbcfe8", "#f3f4f6")


def _canvas(width, height, title, xlim, ylim):
    plt.close("all")  # one picture per cell: the pictures of earlier cells were shown already
    fig, ax = plt.subplots(figsize=(width, height), facecolor=PAPER)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.99 - 0.4 / height)
    ax.set_title(title, family="monospace", size=12, color=INK)
    ax.set(xlim=xlim, ylim=ylim)
    ax.set_axis_off()
    return ax


def _box(ax, xy, text, fill):
    return ax.text(*xy, text, ha="center", va="center", family="monospace", size=12, color=INK,
                   bbox={"boxstyle": "round,pad=0.4", "facecolor": fill, "edgecolor": INK})  # fmt: skip


def _arrow(ax, start, end):
    ax.annotate("", end.get_position(), start.get_position(), annotation_clip=False,
                arrowprops={"arrowstyle": "-|>", "color": INK, "shrinkA": 3, "shrinkB": 3,
                            "patchA": start.get_bbox_patch(), "patchB": end.get_bbox_patch()})  # fmt: skip


def _short(values):
    """Numbers to four significant digits, as the printed tensors round them: labels stay narrow."""
    if isinstance(values, list):
        return [_short(v) for v in values]
    return float(f"{values:.4g}") if isinstance(values, float) else values


def _first_seen(items, identity):
    seen = []
    for item in items:
        if not any(identity(item) == identity(other) for other in seen):
            seen.append(item)
    return seen


def shared_counters(tensors):
    """Which tensors share one version counter: move one counter on, see whose ``_version`` moved, put it
    back. ``increment_version`` is public; the context manager that puts the counter back is torch's own and
    takes one tensor on every release the site supports (the private function it calls changed its arguments)."""
    label = {}
    for t in tensors:
        if id(t) not in label:
            versions = [u._version for u in tensors]
            with torch.autograd._unsafe_preserve_version_counter(t):  # sets t's counter back on leaving
                torch.autograd.graph.increment_version(t)
                counter = f"C{len(set(label.values())) + 1}"
                label.update((id(u), counter) for u, v in zip(tensors, versions, strict=True) if u._version != v)
    return label


def draw_memory(title, **names):
    """Names -> tensor objects -> storages (S1, S2 ... in order of appearance) and version counters."""
    tensors = _first_seen(names.values(), id)  # id() only groups here; it is never drawn
    storages = _first_seen([t.untyped_storage().data_ptr() for t in tensors], int)
    counters, rows = shared_counters(tensors), max(len(names), 1)
    left = max(0.25, 0.1 + 0.022 * max(map(len, names), default=0))  # room for the longest name, same scale
    ax = _canvas(5.6 * (left + 2.2) / 2.45, 0.5 + 0.95 * rows, title, (-left, 2.2), (rows - 0.5, -0.5))
    tensor_boxes, storage_boxes = {}, [_box(ax, (2.05, s), f"S{s + 1}", FILLS[s % 4]) for s in range(len(storages))]
    for r, t in enumerate(tensors):
        s = storages.index(t.untyped_storage().data_ptr())
        values = _short(t.tolist()) if t.numel() <= 4 else f"shape={tuple(t.shape)}"
        grad = f"grad_fn={type(t.grad_fn).__name__}" if t.grad_fn else f"requires_grad={t.requires_grad}"
        tensor_boxes[id(t)] = _box(
            ax, (1.05, r), f"{values}\n{grad}\n_version={t._version} ({counters[id(t)]})", FILLS[s % 4]
        )
        _arrow(ax, tensor_boxes[id(t)], storage_boxes[s])
    for r, (label, t) in enumerate(names.items()):
        _arrow(ax, _box(ax, (0, r), label, FILLS[4]), tensor_boxes[id(t)])


def draw_versions(title, names, steps):
    """A ``_version`` timeline: ``steps`` lists (code, the names' ``_version`` values) recorded as the code ran."""
    ax = _canvas(5.6, 0.9 + 0.6 * len(names), title, (-1.6, len(steps) - 0.5), (len(names) - 0.4, -1.1))
    for r, label in enumerate(names):
        _box(ax, (-1, r), label, FILLS[4])
        for col, (_, versions) in enumerate(steps):
            changed = col > 0 and versions[r] != steps[col - 1][1][r]
            _box(ax, (col, r), f"{versions[r]}", FILLS[1] if changed else PAPER)
    for col, (code, _) in enumerate(steps):
        ax.text(col, -0.85, code, ha="center", va="center", family="monospace", size=10, color=INK)


def _saved(node):
    """The tensors a node saved: (attribute, version text), with the versions an in-place edit broke."""
    for attr in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            value = getattr(node, attr)
        except RuntimeError as e:  # "... is at version 1; expected version 0 instead.", or freed by backward()
            if "is at version " not in str(e):
                continue
            now, saved = str(e).split("is at version ")[1].split("; expected version ")
            yield attr[7:], f"_version {now} != {saved.split(' ')[0]}"
        else:
            if isinstance(value, torch.Tensor):
                yield attr[7:], f"_version {value._version}"


def _children(node):
    if isinstance(node, torch.Tensor):
        return []
    children = [f for f, _ in node.next_functions if f is not None]
    return children + ([node.variable] if hasattr(node, "variable") else [])


def draw_graph(title, root, **leaves):
    """The autograd graph under ``root``: grad_fn nodes, AccumulateGrad and leaves, saved tensors."""
    levels, seen = [[root.grad_fn]], {id(root.grad_fn)}
    while levels[-1]:
        levels.append([child for node in levels[-1] for child in _children(node) if id(child) not in seen])
        levels[-1] = _first_seen(levels[-1], id)
        seen.update(id(child) for child in levels[-1])
    width = max(5.6, 2.9 * max(map(len, levels)))
    ax = _canvas(width, 0.3 + 1.1 * (len(levels) - 1), title, (-1, 1), (len(levels) - 1.5, -0.5))
    boxes = {}
    for depth, level in enumerate(levels):
        for i, node in enumerate(level):
            xy = ((2 * i + 1) / len(level) - 1, depth)
            if isinstance(node, torch.Tensor):
                label = next((k for k, v in leaves.items() if v is node), "leaf")
                boxes[id(node)] = _box(ax, xy, f"{label}\n_version={node._version}", FILLS[2])
            else:
                saved = "".join(f"\n{attr}: {text}" for attr, text in _saved(node))
                fill = FILLS[1] if "!=" in saved else FILLS[0]
                boxes[id(node)] = _box(ax, xy, type(node).__name__ + saved, fill)
    for level in levels:
        for node in level:
            for child in _children(node):
                _arrow(ax, boxes[id(node)], boxes[id(child)])


def draw_processes(title, child, **names):
    """This process and a child forked from it: a storage in shared memory (``is_shared()``) is one storage
    that both map; the child gets any other storage as a copy of its own. ``child`` says what the child ran."""
    tensors = _first_seen(names.values(), id)
    storages = _first_seen([t.untyped_storage().data_ptr() for t in tensors], int)
    ax = _canvas(8.4, 1.0 + 0.95 * len(names), title, (-0.75, 3.75), (len(names) - 0.5, -1.1))
    ax.axvspan(1.22, 1.78, color=FILLS[4], zorder=0)
    for x, header in ((0.5, "this process"), (1.5, "shared memory"), (2.5, f"child: {child}")):
        ax.text(x, -0.85, header, ha="center", va="center", family="monospace", size=10, color=INK)
    for r, (label, t) in enumerate(names.items()):
        s = storages.index(t.untyped_storage().data_ptr())
        values = _short(t.tolist()) if t.numel() <= 4 else f"shape={tuple(t.shape)}"
        here = _box(ax, (0, r), f"{label}\n{values}\nis_shared()={t.is_shared()}", FILLS[s % 4])
        there = _box(ax, (3, r), f"{label}\n(forked)", FILLS[s % 4])
        if t.is_shared():
            segment = _box(ax, (1.5, r), f"S{s + 1}", FILLS[s % 4])
            _arrow(ax, here, segment)
            _arrow(ax, there, segment)
        else:
            _arrow(ax, here, _box(ax, (0.9, r), f"S{s + 1}", FILLS[s % 4]))
            _arrow(ax, there, _box(ax, (2.1, r), f"copy of S{s + 1}", FILLS[s % 4]))

# %%
# ``state_dict()`` returns references
# -----------------------------------
#
# For parameters in the usual dense (strided) layout, as here, its tensors are new tensor objects, detached
# from autograd, over the parameters' own storage. A ``BatchNorm`` layer's dense buffers (its ``running_mean``,
# for example, or a buffer added to it that requires grad) come out the same way, and a buffer registered there
# with ``persistent=False`` does not come out at all. Not every module does so: torch.ao's ``FakeQuantize``
# puts its ``scale`` and ``zero_point`` buffers themselves in the dict, the module's own objects. Lazy modules are an exception before their first call: for
# ``LazyLinear`` and the lazy convolution, transposed convolution, batch-norm and instance-norm layers in
# one, two and three dimensions (``LazyConv2d``, ``LazyBatchNorm1d`` and so on), which the checks try, the
# uninitialised parameters and buffers come out as the module's own objects, and such a parameter still
# requires grad.
# The checks below cover dense tensors only, not sparse ones.
# The quantized ``torch.ao.nn.quantized.Linear`` keeps its weights packed: with or without a bias,
# ``qint8`` or ``float16``, it holds them neither as parameters nor as buffers. With the
# quantized engine of the site's build, ``x86``, its ``state_dict()`` unpacks the weight into new
# memory at every call; with a bias, ``qint8`` or ``float16``, the bias in the same entry is the module's own
# tensor, the one ``bias()`` returns: that dict is not a snapshot either.
state = model.state_dict()
print("state['weight']:", state["weight"])
print("is model.weight:", state["weight"] is model.weight)
print("same storage:", same_storage(state["weight"], model.weight))
print("requires_grad:", state["weight"].requires_grad)
assert same_storage(state["weight"], model.weight), "state_dict() shares the parameters' memory"
# sphinx_gallery_start_ignore
assert state["weight"] is not model.weight and not state["weight"].requires_grad, (
    "state['weight'] is another tensor, which does not require grad")
for key, held in state.items():
    owner = dict(model.named_parameters())[key]
    assert held is not owner and not held.requires_grad and same_storage(held, owner), (
        f"state['{key}'] must be a detached tensor over the parameter's memory")
norm = torch.nn.BatchNorm1d(2)
norm.register_buffer("needs_grad", torch.ones(2, requires_grad=True))
norm.register_buffer("not_saved", torch.ones(2), persistent=False)
norm_owners = dict(norm.named_parameters()) | dict(norm.named_buffers())
norm_state = norm.state_dict()
assert norm_owners["needs_grad"].requires_grad and all(
    held is not norm_owners[key] and not held.requires_grad and same_storage(held, norm_owners[key])
    for key, held in norm_state.items()
), ("a BatchNorm layer's state_dict() holds new detached tensors over its parameters' and buffers' memory, "
    "a buffer that requires grad included")
assert "not_saved" in norm_owners and "not_saved" not in norm_state, (
    "state_dict() leaves out a buffer registered with persistent=False")
fake_quant = torch.ao.quantization.FakeQuantize()
fake_quant_state = fake_quant.state_dict()
assert fake_quant_state["scale"] is fake_quant.scale and fake_quant_state["zero_point"] is fake_quant.zero_point, (
    "a FakeQuantize's state_dict() holds its own scale and zero_point buffers")
assert all(owner.layout == torch.strided
           for owner in [*model.parameters(), *norm_owners.values(), fake_quant.scale, fake_quant.zero_point]), (
    "the parameters and buffers checked here are dense (strided)")
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # recent torch releases call quantized tensors deprecated
    packed = torch.ao.nn.quantized.Linear(2, 1)
    packed_options = [torch.ao.nn.quantized.Linear(2, 1, bias_=bias, dtype=dtype)
                      for bias in (True, False) for dtype in (torch.qint8, torch.float16)]
assert not any([*linear.parameters(), *linear.buffers()] for linear in [packed, *packed_options]), (
    "a quantized Linear, with or without a bias, qint8 or float16, holds its weights neither as parameters "
    "nor as buffers")
assert torch.backends.quantized.engine == "x86", "the site's build quantizes with the x86 engine"
unpacked = [packed.state_dict()["_packed_params._packed_params"] for _ in range(2)]
assert unpacked[0][0].is_quantized and bytes_apart(unpacked[0][0], unpacked[1][0]), (
    "a quantized Linear's state_dict() unpacks its weight into new memory at every call")
assert unpacked[0][1] is unpacked[1][1] is packed.bias(), (
    "a quantized Linear's state_dict() holds the module's own bias")
option_entries_ = [[option_.state_dict()["_packed_params._packed_params"] for _ in range(2)] for option_ in packed_options]
assert all(bytes_apart(first_[0], second_[0]) for first_, second_ in option_entries_), (
    "with or without a bias, qint8 or float16, a quantized Linear's state_dict() unpacks its weight into new memory "
    "at every call")
biased_entries_ = [(option_, entries_) for option_, entries_ in zip(packed_options, option_entries_, strict=True)
                   if option_.bias() is not None]
assert len(biased_entries_) == 2 and all(entries_[0][1] is entries_[1][1] is option_.bias()
                                         for option_, entries_ in biased_entries_), (
    "with a bias, qint8 or float16, a quantized Linear's state_dict() holds the module's own bias")
lazy_classes_ = (torch.nn.LazyLinear, torch.nn.LazyConv1d, torch.nn.LazyConv2d, torch.nn.LazyConv3d,
                 torch.nn.LazyConvTranspose1d, torch.nn.LazyConvTranspose2d, torch.nn.LazyConvTranspose3d,
                 torch.nn.LazyBatchNorm1d, torch.nn.LazyBatchNorm2d, torch.nn.LazyBatchNorm3d,
                 torch.nn.LazyInstanceNorm1d, torch.nn.LazyInstanceNorm2d, torch.nn.LazyInstanceNorm3d)
for lazy_class_ in lazy_classes_:
    lazy_name_ = lazy_class_.__name__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # older torch releases warn that lazy modules are new
        lazy_ = (lazy_class_(2) if "Linear" in lazy_name_ else lazy_class_(2, 1) if "Conv" in lazy_name_
                 else lazy_class_(affine=True, track_running_stats=True))
    lazy_params_ = dict(lazy_.named_parameters())
    lazy_owners_ = lazy_params_ | dict(lazy_.named_buffers())
    lazy_state_ = lazy_.state_dict()
    uninitialized_ = [key for key, owner in lazy_owners_.items() if isinstance(
        owner, (torch.nn.parameter.UninitializedParameter, torch.nn.parameter.UninitializedBuffer))]
    assert uninitialized_ and all(lazy_state_[key] is lazy_owners_[key] for key in uninitialized_), (
        f"before its first call, a {lazy_name_}'s state_dict() holds its own uninitialised parameters and buffers")
    assert all(lazy_params_[key].requires_grad for key in uninitialized_ if key in lazy_params_), (
        f"an uninitialised parameter of a {lazy_name_} that state_dict() returns still requires grad")
# sphinx_gallery_end_ignore

# %%
# Five ways to keep the "best" state, one training step later
# -----------------------------------------------------------
#
# We take each candidate now, train one step, and compare it with the weights
# before the step. The plain references (``state_dict()``,
# ``keep_vars=True``) and a shallow copy of the dict (``.copy()``) follow
# training, because the tensors they hold share the weights' memory;
# ``{k: v.detach().clone()}`` and ``copy.deepcopy`` keep the old values. The comprehension needs every
# value to be a tensor: the state dict of the quantized ``Linear`` above also holds a ``torch.dtype`` and a
# tuple, and on it the comprehension raises ``AttributeError``, while ``copy.deepcopy`` copies it, bias
# included.
before = model.weight.detach().clone()
best = {k: v.detach().clone() for k, v in model.state_dict().items()}
candidates = {
    "model.state_dict()": model.state_dict(),
    "state_dict().copy()": model.state_dict().copy(),
    "{k: v.detach().clone()}": best,
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
assert [name for name, ok in kept.items() if ok] == ["{k: v.detach().clone()}", "copy.deepcopy(state_dict())"], (
    "only the detached clones and the deepcopy kept the old weight"
)
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the step changed the weight"
try:
    {k: v.detach().clone() for k, v in packed.state_dict().items()}
except AttributeError as refusal:
    assert "'torch.dtype' object has no attribute 'detach'" in str(refusal), "the dtype entry has no detach"
else:
    raise AssertionError("the comprehension on a quantized Linear's state dict must raise AttributeError")
assert isinstance(packed.state_dict()["_packed_params.dtype"], torch.dtype) and type(
    packed.state_dict()["_packed_params._packed_params"]) is tuple, (
    "a quantized Linear's state dict also holds a torch.dtype and a tuple")
# Deep-copying a quantized tensor warns that TypedStorage is deprecated on recent releases: ignored here.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    packed_copy_ = copy.deepcopy(packed.state_dict())
packed_bias_ = packed_copy_["_packed_params._packed_params"][1]
assert torch.equal(packed_bias_, packed.bias()) and bytes_apart(packed_bias_, packed.bias()), (
    "copy.deepcopy copies a quantized Linear's state dict, bias included")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: six names and the tensor objects they point to after one training step. model.weight and the keep_vars entry are one object; the state_dict() and copy() entries are other objects on the same storage S1; the clone and deepcopy entries have storages of their own, S2 and S3.
#
#    After one training step. ``state_dict()`` and ``.copy()`` hold new tensor objects on the weight's
#    own storage ``S1``, so they show the stepped values; ``keep_vars=True`` holds ``model.weight``
#    itself. The ``clone()`` and ``deepcopy`` snapshots have storages of their own, ``S2`` and ``S3``,
#    with the old values.

plain, shallow, cloned, deep, kept_vars = (saved["weight"] for saved in candidates.values())
weights = {"model.weight": model.weight, "keep_vars=True": kept_vars, "state_dict()": plain, ".copy()": shallow}
draw_memory("train_step(model, optimizer)", **weights, **{"clone()": cloned, "deepcopy": deep})
# sphinx_gallery_start_ignore
assert same_storage(plain, model.weight) and same_storage(shallow, model.weight), (
    "the state_dict() and .copy() entries share model.weight's storage")
assert kept_vars is model.weight, "keep_vars=True holds the parameter itself"
assert bytes_apart(cloned, model.weight) and bytes_apart(deep, model.weight), (
    "the clone() and deepcopy snapshots do not share model.weight's storage")
assert torch.equal(cloned, before) and torch.equal(deep, before), "the snapshots hold the old values"
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
# writes into the snapshot as well: one step changes ``best``.
weight = model.weight
# sphinx_gallery_start_ignore
weight_memory = model.weight.untyped_storage().data_ptr()
# sphinx_gallery_end_ignore
model.load_state_dict(best)
print("load_state_dict:              same object:", model.weight is weight)
print("load_state_dict:              shares best's memory:", same_storage(model.weight, best["weight"]))
other = torch.nn.Linear(2, 1)
other.load_state_dict(best, assign=True)
print("load_state_dict(assign=True): type:", type(other.weight).__name__)
print("load_state_dict(assign=True): shares best's memory:", same_storage(other.weight, best["weight"]))
snapshot = best["weight"].clone()
train_step(other, torch.optim.SGD(other.parameters(), lr=0.1))
print("after one step of other, best changed:", not torch.equal(best["weight"], snapshot))
assert bytes_apart(model.weight, best["weight"]) and not torch.equal(best["weight"], snapshot), (
    "load_state_dict copied best; after assign=True a step of other changed best")
# sphinx_gallery_start_ignore
assert model.weight is weight and torch.equal(model.weight, before), (
    "load_state_dict restored model.weight in place: same object, old values")
assert model.weight.untyped_storage().data_ptr() == weight_memory, "load_state_dict keeps the parameter's memory"
assert optimizer.param_groups[0]["params"][0] is model.weight, "the optimizer still holds the parameter"
assert isinstance(other.weight, torch.nn.Parameter) and other.weight.requires_grad, (
    "assign=True gives other a Parameter that requires grad"
)
assert same_storage(other.weight, best["weight"]), "assign=True makes the snapshot's memory the parameter's"
restored = torch.nn.Linear(2, 1)
restored_weight = restored.weight
restored.load_state_dict(best)
assert restored.weight is restored_weight, "best, a plain dict, is copied even after a load with assign=True"
deep_best = copy.deepcopy(model.state_dict())
assigned = torch.nn.Linear(2, 1)
assigned.load_state_dict(deep_best, assign=True)
restored.load_state_dict(deep_best)
assert restored.weight is not restored_weight and same_storage(restored.weight, deep_best["weight"]), (
    "a deepcopy keeps _metadata, where a load with assign=True leaves its flag; a later plain load assigns")
# sphinx_gallery_end_ignore

# %%
# A load with ``assign=True`` leaves a flag in the dict it was given when that dict carries a state
# dict's metadata (``_metadata``): a ``state_dict()`` does, and so do its ``deepcopy`` and a dict that
# ``torch.load`` returned. A later ``load_state_dict`` of such a dict, without ``assign=True``, assigns
# as well. ``best``, built by a dict comprehension, has no ``_metadata`` and is still copied
# (:ref:`questions-checkpoints`).
saved = io.BytesIO()
torch.save(torch.nn.Linear(2, 1).state_dict(), saved)
saved.seek(0)
dicts = {"a state_dict()": torch.nn.Linear(2, 1).state_dict(), "a dict from torch.load": torch.load(saved),
         "best, a comprehension": best}  # fmt: skip
assigned_again = {}
for name, sd in dicts.items():
    torch.nn.Linear(2, 1).load_state_dict(sd, assign=True)
    target = torch.nn.Linear(2, 1)
    target_weight = target.weight
    target.load_state_dict(sd)
    assigned_again[name] = target.weight is not target_weight
    print(f"{name}: the later plain load assigns: {assigned_again[name]}")
assert list(assigned_again.values()) == [True, True, False], (
    "after a load with assign=True, a plain load assigns a state_dict() and a torch.load dict, copies best"
)
# sphinx_gallery_start_ignore
assert [getattr(sd, "_metadata", {}).get("", {}).get("assign_to_params_buffers") for sd in dicts.values()] == [
    True, True, None
], "the load with assign=True left its flag in the _metadata of the first two dicts; best has no _metadata"
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
# A snapshot in CPU memory: ``.to("cpu", copy=True)``
# ---------------------------------------------------
#
# To keep the best weights out of GPU memory, ``v.cpu()`` seems enough. On a CPU model it is not a
# snapshot: ``cpu()`` of a tensor that is already on the CPU returns it as it is, so the dict follows
# training again. On the CPU, ``v.detach().to("cpu", copy=True)`` copies (a GPU is in the box below;
# on a ``meta`` tensor, which holds no data, it raises ``NotImplementedError``).
on_cpu = {k: v.cpu() for k, v in model.state_dict().items()}
copied = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
before = model.weight.detach().clone()
train_step(model, optimizer)
print(".cpu() same storage:", same_storage(on_cpu["weight"], model.weight),
      " kept the old weight:", torch.equal(on_cpu["weight"], before))  # fmt: skip
print('.to("cpu", copy=True) same storage:', same_storage(copied["weight"], model.weight),
      " kept the old weight:", torch.equal(copied["weight"], before))  # fmt: skip
assert same_storage(on_cpu["weight"], model.weight) and torch.equal(copied["weight"], before), (
    ".cpu() shares model.weight's storage; .to('cpu', copy=True) kept the old weight")
# sphinx_gallery_start_ignore
assert bytes_apart(copied["weight"], model.weight) and not torch.equal(model.weight, before), (
    "the copy has its own storage, and the step changed model.weight")
try:
    torch.ones(2, device="meta").detach().to("cpu", copy=True)
except NotImplementedError as refusal_:
    assert "no data" in str(refusal_), "torch refuses to copy a meta tensor because it holds no data"
else:
    raise AssertionError('on a meta tensor, .to("cpu", copy=True) must raise NotImplementedError')
# sphinx_gallery_end_ignore

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    For a model on a GPU, ``v.cpu()`` and ``v.detach().to("cpu", copy=True)`` both make a copy in
#    host memory; the second is the one that also copies when the same code runs on the CPU. The
#    cell below checks this only where torch finds a GPU; the box's title says whether the site's build did.

if torch.cuda.is_available():
    gpu_weight = torch.ones(2, device="cuda")
    on_host, copied_host = gpu_weight.cpu(), gpu_weight.detach().to("cpu", copy=True)
    gpu_weight.add_(1)
    print("on_host:", on_host, " copied_host:", copied_host, " gpu_weight:", gpu_weight)
    assert torch.equal(on_host, torch.ones(2)) and torch.equal(copied_host, torch.ones(2)), "both copy to host"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# Conclusion
# ----------
#
# For dense parameters and buffers, ``state_dict()`` holds references into the model, not a snapshot (a
# quantized ``Linear``, which packs its weights, gives its weight in new memory on the engine of the
# site's build, but its bias, if it has one, by reference). For the best
# weights keep ``{k: v.detach().clone() for k, v in model.state_dict().items()}`` (when every value is a
# tensor: on a quantized ``Linear``'s state dict it raises ``AttributeError``)
# or ``copy.deepcopy(model.state_dict())``, and restore them with
# ``load_state_dict`` (which copies, unless it is given ``assign=True`` or the dict carries the flag
# that a load with ``assign=True`` leaves in a dict with ``_metadata``: the ``deepcopy`` can, the
# comprehension's plain dict cannot; :ref:`questions-checkpoints`); to keep them in CPU memory, use
# ``v.detach().to("cpu", copy=True)``, not ``v.cpu()``. Before saving a slice, ``clone()`` it.
