"""
.. _questions-tied-weights:

Tied weights: two state_dict() keys, one Parameter
==================================================

.. admonition:: Answer
   :class: answer

   A tied weight is one ``Parameter`` held by two modules, so ``state_dict()`` names it twice, over
   one storage. Tie the ``Parameter`` object itself, not its memory:

   .. code-block:: python

      self.embedding = torch.nn.Embedding(5, 3)
      self.decoder = torch.nn.Linear(3, 5, bias=False)
      self.decoder.weight = self.embedding.weight

This page ties a decoder to an embedding and follows the weight through ``state_dict()``,
``named_parameters()``, ``deepcopy``, ``load_state_dict``, ``torch.save`` and ``torch.load``, and a
training step. On the CPU, ``torch.save`` writes the weight as one storage and ``torch.load`` gives its two entries
one storage again, and the others, all but ``state_dict()`` (and ``load_state_dict`` with ``assign=True``, or from a
dict such a load has flagged), treat it as one ``Parameter``. Then it ties only the memory, and shows what that breaks.
"""

# %%
# Helpers
# -------
#
# A tiny language model: token ids go through an embedding, and a decoder whose weight is the
# embedding's turns them back into scores over the 5 tokens. ``same_storage`` compares the
# addresses where two tensors' storages start; ``saved_storages`` counts the storages
# ``torch.save`` writes (one ``data/`` record each in its zip archive), in memory, not to a file.
#
# ``bytes_apart`` tells whether two tensors' storages do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

import copy
import io
import zipfile

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def saved_storages(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return sum("/data/" in name for name in zipfile.ZipFile(buffer).namelist())


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(5, 3)
        self.decoder = torch.nn.Linear(3, 5, bias=False)
        self.decoder.weight = self.embedding.weight

    def forward(self, tokens):
        return self.decoder(self.embedding(tokens))


tokens, targets = torch.tensor([0, 2, 4, 1]), torch.tensor([2, 4, 1, 3])


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
# The symptom
# -----------
#
# ``state_dict()`` lists the weight under both names. The two entries are two tensor objects over
# one storage: the one ``Parameter`` both modules hold.

torch.manual_seed(0)
model = Tied()
state = model.state_dict()
print("keys:", list(state))
print("decoder.weight is embedding.weight:", model.decoder.weight is model.embedding.weight)
print("same storage:", same_storage(state["embedding.weight"], state["decoder.weight"]))
assert same_storage(state["embedding.weight"], state["decoder.weight"]), "two keys, one storage"
# sphinx_gallery_start_ignore
assert list(state) == ["embedding.weight", "decoder.weight"], "state_dict() names the weight twice"
assert state["embedding.weight"] is not state["decoder.weight"], "as two tensor objects"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names embedding.weight and decoder.weight point to one tensor object; the two state_dict entries are two other tensor objects; all three are on one storage S1.
#
#    ``embedding.weight`` and ``decoder.weight`` are one tensor object; the two entries of
#    ``state_dict()`` are two more objects, all on one storage ``S1``.

draw_memory("state = model.state_dict()", **{"embedding.weight": model.embedding.weight,
            "decoder.weight": model.decoder.weight, "state[embedding.weight]": state["embedding.weight"],
            "state[decoder.weight]": state["decoder.weight"]})  # fmt: skip

# %%
# ``named_parameters()`` and ``parameters()`` list it once
# --------------------------------------------------------
#
# Both skip a parameter they have already listed, so an optimizer built from ``parameters()``
# holds the weight once. ``remove_duplicate=False`` shows both names.

print("named_parameters():", [name for name, _ in model.named_parameters()])
print("parameters():", len(list(model.parameters())), "tensor")
print("remove_duplicate=False:", [name for name, _ in model.named_parameters(remove_duplicate=False)])
assert [name for name, _ in model.named_parameters()] == ["embedding.weight"], (
    "named_parameters() lists the tied weight once, as embedding.weight")
# sphinx_gallery_start_ignore
assert len(list(model.parameters())) == 1 and next(model.parameters()) is model.embedding.weight, (
    "parameters() yields the tied weight once: embedding.weight itself")
assert [name for name, _ in model.named_parameters(remove_duplicate=False)] == [
    "embedding.weight", "decoder.weight"], "named_parameters(remove_duplicate=False) lists both names"
# sphinx_gallery_end_ignore

# %%
# ``copy.deepcopy`` keeps them tied
# ---------------------------------
#
# ``deepcopy`` copies each object once and reuses the copy where the object comes back, so the copy
# has one weight of its own, held by both of its modules.

twin = copy.deepcopy(model)
print("twin.decoder.weight is twin.embedding.weight:", twin.decoder.weight is twin.embedding.weight)
print("same storage (twin, model):", same_storage(twin.embedding.weight, model.embedding.weight))
assert twin.decoder.weight is twin.embedding.weight, "deepcopy keeps the tie"
# sphinx_gallery_start_ignore
assert bytes_apart(twin.embedding.weight, model.embedding.weight), "in memory of the copy's own"
# sphinx_gallery_end_ignore

# %%
# On the CPU, ``torch.save`` writes one storage, ``torch.load`` keeps the tie
# ---------------------------------------------------------------------------
#
# On the CPU, ``torch.save`` writes each storage object once, however many tensors use it: the state dict with two
# keys writes one storage, as many as the weight alone, and half as many as two separate tensors.
# Loaded back, the two entries share one storage again. An alias of the same dtype with a storage object
# of its own over the same memory, made by ``torch.from_numpy(t.numpy())``, ``torch.from_dlpack(t)`` or
# ``torch.frombuffer(t.numpy(), dtype=t.dtype)``, is written a second time and loads back on memory of its own.
# On the CPU, ``torch.save`` raises when it saves tensors of two dtypes whose storages start at one address in memory
# other than 0: a view of another dtype, such as ``t.view(torch.int32)`` or the empty ``t[:0].view(torch.int32)``, or an
# alias of another dtype, such as ``torch.frombuffer(t.numpy(), dtype=torch.int32)``. A storage of no bytes that torch
# allocates, such as that of ``torch.empty(0)``, starts at address 0, so two dtypes over it do not raise. A ``meta`` tensor holds no data: ``torch.save`` writes no
# storage for it, the two entries of a tied ``meta`` model's state dict come back on two storage objects, two
# dtypes do not raise, and ``same_storage``, which compares addresses, calls the two entries shared: every
# ``meta`` storage starts at address 0.

print("storages written, state_dict():", saved_storages(state))
print("storages written, weight alone:", saved_storages(model.embedding.weight.detach()))
print("storages written, two clones:  ", saved_storages([state["embedding.weight"].clone() for _ in range(2)]))
buffer = io.BytesIO()
torch.save(state, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print("loaded, same storage:", same_storage(loaded["embedding.weight"], loaded["decoder.weight"]))
assert saved_storages(state) == 1 and same_storage(loaded["embedding.weight"], loaded["decoder.weight"]), (
    "torch.save writes one storage for the two entries, and the loaded entries share one"
)
# sphinx_gallery_start_ignore
assert saved_storages([state["embedding.weight"].clone() for _ in range(2)]) == 2, "the count can see two"
assert saved_storages(model.embedding.weight.detach()) == saved_storages(state) == 1, (
    "the state dict writes as many storages as the weight alone: one")
assert torch.equal(loaded["decoder.weight"], model.embedding.weight), "the values came back"
for own_object in (torch.from_numpy(state["embedding.weight"].numpy()), torch.from_dlpack(state["embedding.weight"]),
                   torch.frombuffer(state["embedding.weight"].numpy(), dtype=state["embedding.weight"].dtype)):
    alias_stream = io.BytesIO()
    torch.save([state["embedding.weight"], own_object], alias_stream)
    alias_stream.seek(0)
    assert same_storage(state["embedding.weight"], own_object) and not same_storage(*torch.load(alias_stream)) and (
        saved_storages([state["embedding.weight"], own_object]) == 2
    ), "an alias of the same dtype, with a storage object of its own, is written again and loads back apart"
for other_dtype in (torch.frombuffer(state["embedding.weight"].numpy(), dtype=torch.int32),
                    torch.from_numpy(state["embedding.weight"].numpy()).view(torch.int32),
                    state["embedding.weight"][1:].view(torch.int32), state["embedding.weight"][:0].view(torch.int32)):
    try:
        torch.save([state["embedding.weight"], other_dtype], io.BytesIO())
    except RuntimeError as refusal:
        assert "view the same data as different types" in str(refusal), "torch.save refused two types on one memory"
    else:
        raise AssertionError("torch.save of tensors of two dtypes whose storages start at one address must raise")
past_start = torch.frombuffer(state["embedding.weight"].numpy(), dtype=torch.int32, offset=12)
assert not same_storage(state["embedding.weight"], past_start), "this alias's storage starts one row further on"
assert saved_storages([state["embedding.weight"], past_start]) == 2, (
    "an alias of another dtype whose storage starts elsewhere is saved without error")
for allocated_empty in (torch.empty(0), torch.zeros(0, 3), torch.tensor([])):
    assert allocated_empty.untyped_storage().data_ptr() == 0 and (
        saved_storages([allocated_empty, allocated_empty.view(torch.int32)]) == 1
    ), "a storage of no bytes that torch allocates starts at address 0: two dtypes over it are saved without error"
# sphinx_gallery_end_ignore
as_int32 = state["embedding.weight"].view(torch.int32)
try:
    torch.save([state["embedding.weight"], as_int32], io.BytesIO())
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("torch.save of two dtypes on one storage must raise")
# sphinx_gallery_start_ignore
with torch.random.fork_rng(), torch.device("meta"):
    meta_model = Tied()
meta_stream = io.BytesIO()
torch.save(meta_model.state_dict(), meta_stream)
meta_stream.seek(0)
meta_loaded = torch.load(meta_stream)
assert saved_storages(meta_model.state_dict()) == 0 and (
    meta_loaded["embedding.weight"].untyped_storage() is not meta_loaded["decoder.weight"].untyped_storage()
), "on meta torch.save writes no storage, and the two entries come back on two storage objects"
assert saved_storages([meta_model.embedding.weight.detach(), meta_model.embedding.weight.detach().view(torch.int32)]) == 0, (
    "on meta, tensors of two dtypes over one storage are saved without error")
assert same_storage(meta_loaded["embedding.weight"], meta_loaded["decoder.weight"]) and all(
    meta_entry.untyped_storage().data_ptr() == 0 for meta_entry in meta_loaded.values()
), "every meta storage starts at address 0, so same_storage calls the two entries shared"
with torch.random.fork_rng(), torch.device("meta"):
    meta_assigned = Tied()
meta_assigned.load_state_dict(meta_loaded, assign=True)
assert meta_assigned.decoder.weight.untyped_storage() is not meta_assigned.embedding.weight.untyped_storage(), (
    "assign=True from the entries loaded on meta: two parameters over two storage objects")
# sphinx_gallery_end_ignore

# %%
# ``load_state_dict`` into a tied model
# -------------------------------------
#
# Without ``assign=True``, from a dict that carries no flag left by a load with ``assign=True``, loading
# copies each entry into the one weight, the two names one after the other: the model stays tied, with the loaded values. Entries that disagree leave the value of
# the module loaded last, ``decoder`` (``load_state_dict`` follows the model's order of modules, not
# the dict's). With ``assign=True`` (common after building the model on the
# ``meta`` device), each module gets a ``Parameter`` of its own over the loaded storage: two
# parameters over one storage, the memory-only tie of the last section. From a dict whose two entries are
# separate tensors, such as a snapshot of clones, the two parameters get two storages and share nothing. Tie the
# weight again after it. A load with ``assign=True`` also leaves its flag in a dict that carries ``_metadata``, as
# ``loaded``, read back from a ``state_dict()``, does: a later load from that dict assigns too, even without
# ``assign=True``, and unties the model (:ref:`questions-checkpoints`). Loaded from ``state_dict(keep_vars=True)``, whose two entries are the one
# ``Parameter`` itself, ``assign=True`` keeps the tie, but the loaded model then holds the source
# model's own ``Parameter``: the two models share one weight, and training one trains the other.

fresh = Tied()
fresh.load_state_dict(loaded)
print("tied:", fresh.decoder.weight is fresh.embedding.weight, " loaded values:",
      torch.equal(fresh.embedding.weight, model.embedding.weight))  # fmt: skip
fresh.load_state_dict({"embedding.weight": torch.zeros(5, 3), "decoder.weight": torch.ones(5, 3)})
print("after disagreeing entries, embedding.weight[0]:", fresh.embedding.weight.detach()[0])
assert fresh.decoder.weight is fresh.embedding.weight and torch.equal(fresh.embedding.weight, torch.ones(5, 3)), (
    "the model stays tied, with the values of decoder.weight, loaded last"
)
# sphinx_gallery_start_ignore
assert bytes_apart(fresh.embedding.weight, loaded["embedding.weight"]), (
    "load_state_dict copied the entries into the model's own memory")
with torch.random.fork_rng():
    reordered = Tied()
reordered.load_state_dict({"decoder.weight": torch.ones(5, 3), "embedding.weight": torch.zeros(5, 3)})
assert torch.equal(reordered.embedding.weight, torch.ones(5, 3)), "decoder, loaded last, wins whatever the dict's order"
# sphinx_gallery_end_ignore
assigned = Tied()
assigned.load_state_dict(loaded, assign=True)
print("assign=True, parameters:", len(list(assigned.parameters())))
print("assigned.decoder.weight is assigned.embedding.weight:", assigned.decoder.weight is assigned.embedding.weight)
print("same storage:", same_storage(assigned.decoder.weight, assigned.embedding.weight))
assert assigned.decoder.weight is not assigned.embedding.weight, "assign=True unties the Parameter"
assert len(list(assigned.parameters())) == 2, "assign=True leaves two parameters"
assert same_storage(assigned.decoder.weight, assigned.embedding.weight), "over one storage: a memory-only tie"
# sphinx_gallery_start_ignore
with torch.random.fork_rng():
    from_clones = Tied()
from_clones.load_state_dict({k: v.detach().clone() for k, v in model.state_dict().items()}, assign=True)
assert len(list(from_clones.parameters())) == 2 and bytes_apart(
    from_clones.decoder.weight, from_clones.embedding.weight
), "assign=True from a dict of two separate clones: two parameters over two storages"
with torch.random.fork_rng():
    after_flag = Tied()
after_flag.load_state_dict(loaded)
assert after_flag.decoder.weight is not after_flag.embedding.weight and len(list(after_flag.parameters())) == 2, (
    "loaded, flagged by the load with assign=True above, unties a model loaded from it without assign=True")
# sphinx_gallery_end_ignore
assigned.decoder.weight = assigned.embedding.weight
print("tied again, parameters:", len(list(assigned.parameters())))
assert len(list(assigned.parameters())) == 1, "tying again leaves one parameter"
kept = Tied()
kept.load_state_dict(model.state_dict(keep_vars=True), assign=True)
print("keep_vars=True, then assign=True, tied:", kept.decoder.weight is kept.embedding.weight)
print("kept.embedding.weight is model.embedding.weight:", kept.embedding.weight is model.embedding.weight)
assert kept.decoder.weight is kept.embedding.weight is model.embedding.weight, "tied, to model's own Parameter"

# %%
# One gradient, one step
# ----------------------
#
# The weight is used twice in the forward pass, so its ``.grad`` is the sum of two gradients: the
# ones two separate copies get, here ``as_embedding`` and ``as_decoder``. The optimizer steps it
# once per ``step()``: ``weight - lr * grad``.

optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
torch.nn.functional.cross_entropy(model(tokens), targets).backward()
as_embedding = model.embedding.weight.detach().clone().requires_grad_()
as_decoder = model.embedding.weight.detach().clone().requires_grad_()
scores = torch.nn.functional.embedding(tokens, as_embedding) @ as_decoder.T
torch.nn.functional.cross_entropy(scores, targets).backward()
print("grad is the sum:", torch.allclose(model.embedding.weight.grad, as_embedding.grad + as_decoder.grad))
before = model.embedding.weight.detach().clone()
optimizer.step()
print("one step of lr * grad:", torch.allclose(model.embedding.weight, before - 0.5 * model.embedding.weight.grad))
assert torch.allclose(model.embedding.weight.grad, as_embedding.grad + as_decoder.grad), "one grad, both uses"
assert torch.allclose(model.embedding.weight, before - 0.5 * model.embedding.weight.grad), (
    "step() moved the tied weight once: weight - lr * grad")

# %%
# Tying the memory instead breaks it
# ----------------------------------
#
# ``nn.Parameter(embedding.weight.detach())`` makes a second ``Parameter`` over the same memory.
# The model now has two parameters, each with its own ``.grad``; ``copy.deepcopy`` gives them two
# storages, so the copy is untied; and Adam, which keeps a state for each parameter, no longer
# takes the tied model's step.

torch.manual_seed(0)
tied = Tied()
torch.manual_seed(0)
loose = Tied()
loose.decoder.weight = torch.nn.Parameter(loose.embedding.weight.detach())
print("parameters:", len(list(loose.parameters())), " same storage:",
      same_storage(loose.decoder.weight, loose.embedding.weight))  # fmt: skip
loose_copy = copy.deepcopy(loose)
print("deepcopy, same storage:", same_storage(loose_copy.decoder.weight, loose_copy.embedding.weight))
for m in (tied, loose):
    adam = torch.optim.Adam(m.parameters(), lr=0.1)
    torch.nn.functional.cross_entropy(m(tokens), targets).backward()
    adam.step()
print("same weights after one Adam step:", torch.equal(tied.embedding.weight, loose.embedding.weight))
assert bytes_apart(loose_copy.decoder.weight, loose_copy.embedding.weight), "deepcopy unties the memory tie"
assert not torch.equal(tied.embedding.weight, loose.embedding.weight), "Adam steps the memory tie differently"
# sphinx_gallery_start_ignore
assert len(list(loose.parameters())) == 2 and same_storage(loose.decoder.weight, loose.embedding.weight), (
    "loose has two parameters over one storage")
assert not torch.equal(loose.decoder.weight.grad, loose.embedding.weight.grad), "each has its own .grad"
assert len(adam.state) == 2, "Adam keeps a state for each of the two parameters"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Tie weights by giving the second module the same ``Parameter`` object. Then ``state_dict()`` has
# two keys over one storage, ``named_parameters()`` and ``parameters()`` list the weight once,
# ``copy.deepcopy`` keeps the tie, on the CPU ``torch.save`` writes one storage and ``torch.load`` shares it
# again, ``load_state_dict`` without ``assign=True`` (from a dict that carries no flag left by a load with ``assign=True``) copies into
# the one weight, and the optimizer steps it once with the sum of both gradients. A tie of the memory alone is two parameters, which
# ``deepcopy`` unties. ``load_state_dict(..., assign=True)`` unties a tied model: it leaves two parameters, on
# one storage when the dict's two entries share one (as after ``torch.load`` of CPU tensors), on two when they do not; tie
# the weight again after it. The exception is a dict from ``state_dict(keep_vars=True)``, whose entries are
# the one ``Parameter``: the tie stays, but to the source model's own weight.
