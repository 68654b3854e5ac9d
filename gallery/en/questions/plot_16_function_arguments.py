"""
.. _questions-function-arguments:

Editing a tensor inside a function edits the caller's
=====================================================

.. admonition:: Answer
   :class: answer

   A function receives the caller's tensor object, not a copy, so an in-place edit in it (``x += 1``)
   edits the caller's tensor, or raises where torch refuses it, on an inference tensor at times only
   after the edit (below). Compute a new tensor instead:

   .. code-block:: python

      def add_one(x):
          x = x + 1
          return x

``x += 1`` and ``x = x + 1`` read alike and do different things to a tensor passed in. This page
shows both, then three places where the same sharing hides: a default argument holding a tensor, a
``Dataset`` that hands out its own tensors to code that edits them, and ``copy.copy`` of a module.
Each fix is checked by running it the way it is used: repeated calls, two epochs, a few training
steps.
"""

# %%
# Helpers
# -------
#
# ``same_storage`` compares where two tensors' storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.
# The seed fixes the random weights and
# data, so the numbers below are the same on every run.

import copy
import warnings

import torch

torch.manual_seed(0)


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()

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
# ``x += 1`` versus ``x = x + 1``
# -------------------------------
#
# Inside ``add_one_in_place``, ``x`` names the caller's tensor and ``+=`` edits it in place: the
# caller's ``a`` changes, and the function returns ``a`` itself. Inside ``add_one``, ``x + 1`` is
# a new tensor and ``x = ...`` only rebinds the function's own name: ``a`` is untouched.


def add_one_in_place(x):
    x += 1
    return x


def add_one(x):
    x = x + 1
    return x


a = torch.zeros(3)
returned = add_one_in_place(a)
print("after add_one_in_place(a): a =", a, " returned is a:", returned is a)
# sphinx_gallery_start_ignore
assert returned is a, "x += 1 returns the caller's tensor itself"
# sphinx_gallery_end_ignore
returned = add_one(a)
print("after add_one(a):          a =", a, " returned:", returned)
assert torch.equal(a, torch.ones(3)) and bytes_apart(returned, a), "+= edited a, x + 1 did not"

# %%
# .. figure-caption::
#    :alt: Diagram: a points to a tensor object on storage S1, with _version 1 after the edit inside add_one_in_place; returned, the result of add_one(a), is a tensor object on a storage of its own, S2.
#
#    ``a`` is the tensor that ``add_one_in_place`` edited through its own name ``x``: same object,
#    same storage ``S1``, and its ``_version`` counts the one in-place edit. ``add_one(a)`` returned a
#    new tensor on a storage of its own, ``S2``.

draw_memory("add_one_in_place(a); returned = add_one(a)", a=a, returned=returned)
# sphinx_gallery_start_ignore
assert a._version == 1, "one in-place edit of a: x += 1 inside add_one_in_place"
# sphinx_gallery_end_ignore

# %%
# torch refuses some of these edits. With grad mode on, outside ``torch.inference_mode()``,
# ``add_one_in_place`` raises on a leaf that requires grad, a ``Parameter`` included, and leaves it
# as it was.
# :fact:`leaf-refuses-inplace`
# Called outside ``torch.inference_mode()`` on an inference tensor (one made inside it), it raises as
# well, but only after writing: the caller's tensor has changed all the same (more on :ref:`questions-inference-mode`).
# For an inference tensor that requires grad, such as a ``Parameter`` of a module built inside
# ``torch.inference_mode()``, this holds only with grad mode off (``torch.no_grad()``): with grad mode on,
# the leaf check above refuses it first and leaves it as it was. A
# dtype or layout that ``x += 1`` cannot edit at all raises its own error first (next cell).

leaf = torch.zeros(3, requires_grad=True)
weight = torch.nn.Parameter(torch.zeros(3))
with torch.inference_mode():
    frozen = torch.zeros(3)
for name, source in (("leaf", leaf), ("Parameter", weight), ("inference tensor", frozen)):
    try:
        add_one_in_place(source)
    except RuntimeError as e:
        print(f"{name}: {type(e).__name__}: {e}")
    else:
        raise AssertionError(f"x += 1 inside a function must raise on a {name}")
print("leaf:", leaf.detach(), " Parameter:", weight.detach(), " inference tensor:", frozen)
assert torch.equal(leaf, torch.zeros(3)) and torch.equal(weight, torch.zeros(3)) and torch.equal(frozen, torch.ones(3)), (
    "the leaf and the Parameter are as they were; the inference tensor was written before the error")

# %%
# The same call on an inference tensor of zeros of each of ten dtypes, of no dimension, transposed, requiring
# grad (a plain tensor and a ``Parameter``), sparse (COO), nested (``torch.jagged``) and mkldnn, with grad mode on
# and off, next to the call on the same tensor
# made outside ``torch.inference_mode()``: where ``x += 1`` edits the ordinary tensor, it gives the inference
# tensor the same edit, then raises torch's error on an inference tensor; where it raises on the ordinary
# tensor, it raises the same error on the inference tensor and leaves it as it was.


def call_on(kind, inference, mode):
    """add_one_in_place on a fresh tensor of zeros of this kind, made inside torch.inference_mode() or not,
    under mode: the error's type and first line (None if it ran), the values before and the values after."""
    with torch.inference_mode(inference):
        x = torch.zeros(2, 3, dtype=kind) if isinstance(kind, torch.dtype) else {
            "no dimension": lambda: torch.zeros(()), "transposed": lambda: torch.zeros(2, 3).t(),
            "requires grad": lambda: torch.zeros(2, 3, requires_grad=True),
            "Parameter": lambda: torch.nn.Parameter(torch.zeros(2, 3)),
            "sparse COO": lambda: torch.zeros(2, 3).to_sparse(), "mkldnn": lambda: torch.zeros(2, 3).to_mkldnn(),
            "nested": lambda: torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)], layout=torch.jagged),
        }[kind]()

    def values():
        return [t.tolist() for t in x.unbind()] if x.is_nested else x.to_dense().tolist() if x.is_sparse or (
            x.is_mkldnn) else x.tolist()

    before = values()
    with mode():
        try:
            add_one_in_place(x)
            error = None
        except (RuntimeError, NotImplementedError) as e:
            error = (type(e).__name__, str(e).splitlines()[0])
    return error, before, values()


call_kinds = (torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float32, torch.float64, torch.int8,
              torch.int64, torch.uint8, torch.bool, torch.complex64, "no dimension", "transposed", "requires grad",
              "Parameter", "sparse COO", "nested", "mkldnn")
calls = {(str(kind), mode.__name__): (call_on(kind, False, mode), call_on(kind, True, mode))
         for kind in call_kinds for mode in (torch.enable_grad, torch.no_grad)}


def kinds_where(edited):
    """The kinds whose ordinary tensor x += 1 edits (edited) or refuses, each with its grad mode where the two
    grad modes differ."""
    return sorted({kind if len({calls[kind, other][0][0] is None for other in ("enable_grad", "no_grad")}) == 1
                   else f"{kind} under {mode}" for (kind, mode), (ordinary, _) in calls.items()
                   if (ordinary[0] is None) == edited})


print("edited, then refused as an inference tensor:", kinds_where(True))
print("refused before any edit, ordinary or inference tensor:", kinds_where(False))
assert all(
    inference[0][0] == "RuntimeError" and "Inplace update to inference tensor" in inference[0][1]
    and inference[1:] == ordinary[1:] and ordinary[1] != ordinary[2] if ordinary[0] is None
    else inference == ordinary and inference[1] == inference[2] for ordinary, inference in calls.values()), (
    "x += 1 on an inference tensor outside inference mode raises after giving it the edit an ordinary tensor gets, "
    "or, where it raises on the ordinary tensor, raises the same error and leaves it as it was")
# sphinx_gallery_start_ignore
# fork_rng: drawing the layer's random weights would move the page's random numbers
with torch.random.fork_rng(), torch.inference_mode():
    built_inside = torch.nn.Linear(2, 1)
assert all(built_param.is_inference() and built_param.requires_grad and isinstance(built_param, torch.nn.Parameter)
           for built_param in built_inside.parameters()), (
    "the parameters of a module built inside torch.inference_mode() are inference tensors that require grad")
# sphinx_gallery_end_ignore

# %%
# A default argument holding a tensor
# -----------------------------------
#
# A default value is made once, when ``def`` runs, and every call that omits the argument gets that
# same tensor. ``total += v`` edits it, so each call starts where the previous one ended.


def running_total(v, total=torch.zeros(2)):  # noqa: B008
    total += v
    return total


first = running_total(torch.ones(2)).clone()
second = running_total(torch.ones(2)).clone()
print("first call:", first, " second call:", second)
print("the default now:", running_total.__defaults__[0])
assert torch.equal(second, 2 * first), "the second call started from the first call's total"

# %%
# Make the default ``None`` and the tensor inside the call: every call starts from zero.


def running_total_fixed(v, total=None):
    total = torch.zeros(2) if total is None else total
    total = total + v
    return total


totals = [running_total_fixed(torch.ones(2)) for _ in range(3)]
print("three calls:", totals)
assert all(torch.equal(t, torch.ones(2)) for t in totals), "each call starts from zero"

# %%
# A ``Dataset`` that hands out its own tensors
# --------------------------------------------
#
# With ``i`` a Python ``int`` and a dense ``self.data`` (layout ``torch.strided``, neither nested nor quantized),
# ``self.data[i]`` is a view of the dataset's tensor (see
# :ref:`writing through an index <questions-index-writes>`), and
# ``DataLoader(dataset, batch_size=None)``, its other arguments left at their defaults (among them
# ``num_workers=0``: no worker process), passes on each tensor item as the very tensor ``__getitem__``
# returned, in any grad mode (a plain tuple of tensors comes out as a new list, a dict as a new dict,
# both holding those same tensors). A loop that normalises each
# item in place with the dataset's mean, ``x.sub_(mean)``, edits the dataset: the first epoch sees
# data centred on zero, the second sees it shifted once more.


class Points(torch.utils.data.Dataset):
    def __init__(self, data, copies=False):
        self.data, self.copies = data, copies

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i].clone() if self.copies else self.data[i]


def epoch_means(dataset, mean, epochs=2):
    means = []
    for _ in range(epochs):
        items = [x.sub_(mean) for x in torch.utils.data.DataLoader(dataset, batch_size=None)]
        means.append(round(torch.stack(items).mean().item(), 2))
    return means


data = torch.randn(4, 3) + 5
original, mean = data.clone(), data.mean()
shared_means = epoch_means(Points(data), mean)
print("shared items, mean per epoch:", shared_means)
print("dataset changed:", not torch.equal(data, original))
assert not torch.equal(data, original) and abs(shared_means[1] + mean) < 0.01, "epoch 2 saw data shifted twice"
# sphinx_gallery_start_ignore
assert abs(shared_means[0]) < 0.01, "epoch 1 saw data centred on zero"
row_item, other_row = data[0], data[1]
tensor_items = [row_item, torch.nn.Parameter(torch.ones(2)), torch.ones(2, requires_grad=True) * 2,
                torch.arange(2), torch.ones(2, device="meta")]
for grad_mode in (torch.enable_grad, torch.no_grad, torch.inference_mode):
    # (fork_rng: a DataLoader draws a seed when iterated, which would move the page's random numbers)
    with torch.random.fork_rng(), grad_mode():
        handed_on = list(torch.utils.data.DataLoader(Points(tensor_items), batch_size=None))
    assert len(handed_on) == len(tensor_items) and all(out is item for out, item in zip(handed_on, tensor_items, strict=True)), (
        "in every grad mode, DataLoader(batch_size=None) hands on the very tensor __getitem__ returned")
pair_item, dict_item = (row_item, other_row), {"x": row_item}
with torch.random.fork_rng():
    pair_out, dict_out = torch.utils.data.DataLoader(Points([pair_item, dict_item]), batch_size=None)
assert type(pair_out) is list and len(pair_out) == 2 and pair_out[0] is row_item and pair_out[1] is other_row, (
    "a plain tuple of tensors comes out as a new list that holds the same tensors")
assert type(dict_out) is dict and dict_out is not dict_item and list(dict_out) == ["x"] and dict_out["x"] is row_item, (
    "a dict of tensors comes out as a new dict that holds the same tensors")
# sphinx_gallery_end_ignore

# %%
# The fix on the dataset's side: ``__getitem__`` returns ``self.data[i].clone()``. Two epochs later
# the dataset is as it was. (With ``batch_size=2`` the ``DataLoader`` stacks the items into a new
# tensor, a copy, which hides the bug without fixing it.)
data = original.clone()
copied_means = epoch_means(Points(data, copies=True), mean)
print("copied items, mean per epoch:", copied_means)
print("dataset changed:", not torch.equal(data, original))
assert torch.equal(data, original) and copied_means[0] == copied_means[1], "copies leave the dataset as it was"
# sphinx_gallery_start_ignore
assert same_storage(Points(data)[0], data) and bytes_apart(Points(data, copies=True)[0], data), (
    "an item shares the dataset's memory, and with copies=True it has memory of its own")
assert all(Points(data)[index]._base is data for index in range(-len(data), len(data))), (
    "for any Python int i, negative ones included, self.data[i] is a view of the dataset's tensor")
# (its own generator: a DataLoader draws a seed when iterated, which would move the page's random numbers)
batches_of_two = torch.utils.data.DataLoader(Points(data), batch_size=2, generator=torch.Generator())
assert all(bytes_apart(batch, data) for batch in batches_of_two), "batch_size=2 stacks the items into copies"
# sphinx_gallery_end_ignore

# %%
# ``copy.copy`` of a module
# -------------------------
#
# A shallow copy is a new module object whose attributes are the original's: the same
# ``Parameter`` objects, and even the same dictionaries that hold them (``_parameters``,
# ``_buffers``, ``_modules``, internal to torch), and the dictionaries of hooks as well
# (``_forward_hooks`` and the others), so a forward hook or a pre-hook (forward or backward)
# registered on the copy runs on the original. A backward hook is the exception: one registered
# with ``register_full_backward_hook`` (or the older ``register_backward_hook``) on the copy does not
# run on an original that was never given a backward hook, because the copy alone is marked as having
# one (``_is_full_backward_hook``, internal to torch). An original once given a backward hook of either
# kind, before or after the copy's and even if removed since, keeps that mark and then runs the copy's
# hook too, as a hook of the kind the original is marked with (a full hook registered on the copy then gets the
# older hook's arguments, and the other way round; if it was given the other kind before the copy was made, registering on the copy raises
# instead). Only an attribute kept outside those dictionaries, such as ``training``, rebound afterwards,
# becomes separate.
model = torch.nn.Linear(2, 1)
shallow = copy.copy(model)
print("shallow is model:", shallow is model)
print("shallow.weight is model.weight:", shallow.weight is model.weight)
for name in ("_parameters", "_buffers", "_modules", "_forward_hooks", "__dict__"):
    print(f"{name:<14} shared: {getattr(shallow, name) is getattr(model, name)}")
assert shallow.weight is model.weight and shallow._parameters is model._parameters, (
    "copy.copy(model) shares model's weight and _parameters dict")
# sphinx_gallery_start_ignore
assert shallow._buffers is model._buffers and shallow._modules is model._modules, "the other dicts too"
assert shallow._forward_hooks is model._forward_hooks and shallow._backward_hooks is model._backward_hooks, (
    "the dicts of hooks are shared"
)
assert shallow._forward_pre_hooks is model._forward_pre_hooks, "the dicts of hooks are shared"
hooked, hook_calls = torch.nn.Identity(), []
copy.copy(hooked).register_forward_hook(lambda *args: hook_calls.append(len(args)))
hooked(torch.ones(1, 2))
assert hook_calls == [3], "a forward hook registered on the copy runs on the original"
pre_hooked, pre_calls, backward_calls = torch.nn.LayerNorm(2), [], []
copy.copy(pre_hooked).register_forward_pre_hook(lambda *args: pre_calls.append("forward pre"))
copy.copy(pre_hooked).register_full_backward_pre_hook(lambda *args: pre_calls.append("backward pre"))
pre_hooked(torch.ones(1, 2, requires_grad=True)).sum().backward()
assert pre_calls == ["forward pre", "backward pre"], "pre-hooks registered on a copy run on the original"
full_hooked = torch.nn.LayerNorm(2)
full_copy = copy.copy(full_hooked)
full_copy.register_full_backward_hook(lambda *args: backward_calls.append("full backward"))
full_hooked(torch.ones(1, 2, requires_grad=True)).sum().backward()
assert backward_calls == [], "a full backward hook registered on the copy does not run on the original"
assert full_copy._is_full_backward_hook and full_hooked._is_full_backward_hook is None, "the flag is the copy's"
legacy_hooked, legacy_calls = torch.nn.LayerNorm(2), []
copy.copy(legacy_hooked).register_backward_hook(lambda *args: legacy_calls.append("backward"))
legacy_hooked(torch.ones(1, 2, requires_grad=True)).sum().backward()
assert legacy_calls == [], "an older backward hook registered on the copy does not run on the original"
hook_register = {"full": torch.nn.Module.register_full_backward_hook,
                 "older": torch.nn.Module.register_backward_hook}


def linear_leaving_rng():
    # A Linear(2, 2) whose initial values leave the page's random numbers where they were.
    with torch.random.fork_rng(devices=[]):
        return torch.nn.Linear(2, 2)


def grad_input_shapes(grad_input):
    return [None if g is None else tuple(g.shape) for g in grad_input]


def hooks_run_on_original(order, copy_kind, original_kind, removed):
    """The hooks a backward of an original runs after the events of ``order``, in that order: copying it,
    giving the copy a backward hook of copy_kind, giving the original one of original_kind (removed at once
    if removed), each with the shapes of the grad_input it got."""
    marked, ran, marked_copy = linear_leaving_rng(), [], None
    for event in order:
        if event == "copy":
            marked_copy = copy.copy(marked)
        elif event == "the copy's hook":
            hook_register[copy_kind](marked_copy, lambda module, grad_input, grad_output: ran.append(
                ("the copy's", grad_input_shapes(grad_input))))
        else:
            handle = hook_register[original_kind](marked, lambda module, grad_input, grad_output: ran.append(
                ("the original's", grad_input_shapes(grad_input))))
            if removed:
                handle.remove()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # an older hook on a Linear warns that it is deprecated
        marked(torch.ones(1, 2, requires_grad=True) * 1).sum().backward()
    return ran


def grad_input_of_kind(kind):
    """The shapes of the grad_input a backward hook of that kind gets on a Linear of its own."""
    alone, got = linear_leaving_rng(), []
    hook_register[kind](alone, lambda module, grad_input, grad_output: got.append(grad_input_shapes(grad_input)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # an older hook on a Linear warns that it is deprecated
        alone(torch.ones(1, 2, requires_grad=True) * 1).sum().backward()
    return got[0]


kind_shapes = {kind: grad_input_of_kind(kind) for kind in hook_register}
assert kind_shapes["full"] != kind_shapes["older"], "on a Linear, the two kinds of backward hook get different grad_input"


orders = (("the original's hook", "copy", "the copy's hook"), ("copy", "the original's hook", "the copy's hook"),
          ("copy", "the copy's hook", "the original's hook"))
backward_hook_cases = [(order, copy_kind, original_kind, removed) for order in orders for copy_kind in hook_register
                       for original_kind in hook_register for removed in (False, True)]
def hooks_run_or_error(*case):
    """What hooks_run_on_original returns, or the RuntimeError it raises."""
    try:
        return hooks_run_on_original(*case)
    except RuntimeError as e:
        return e


for order, copy_kind, original_kind, removed in backward_hook_cases:
    other_kind_first = order[0] == "the original's hook" and copy_kind != original_kind
    ran = hooks_run_or_error(order, copy_kind, original_kind, removed)
    if isinstance(ran, RuntimeError):
        assert other_kind_first and "Cannot use both regular backward hooks and full" in str(ran), (
            "registering on the copy raises only if the original had the other kind before the copy")
    else:
        assert "the copy's" in [who for who, _ in ran] and not other_kind_first, (
            "an original given either kind of backward hook, before or after the copy's, removed or not, runs it")
        assert all(got == kind_shapes[original_kind] for _, got in ran), (
            "the original runs the copy's hook as a hook of the kind the original is marked with")
assert shallow.__dict__ is not model.__dict__, "the module's own attributes are separate"
# sphinx_gallery_end_ignore

# %%
# So a new ``Parameter`` given to the copy replaces the original's too, and ``eval()`` on a copy of
# a ``Sequential`` switches the original's layers, which are shared, while the original itself
# stays in training mode.
shallow.weight = torch.nn.Parameter(torch.zeros(1, 2))
print("model.weight is the new Parameter:", model.weight is shallow.weight)
net = torch.nn.Sequential(torch.nn.Linear(2, 1), torch.nn.Dropout(0.5))
copy.copy(net).eval()
print("net.training:", net.training, " net[1].training:", net[1].training)
assert model.weight is shallow.weight and net.training and not net[1].training, "the dicts are shared"

# %%
# The fix: ``copy.deepcopy`` copies the parameters. Three training steps of ``model`` move the
# shallow copy's weight with it and leave the deep copy's as it was.
model = torch.nn.Linear(2, 1)
shallow, deep = copy.copy(model), copy.deepcopy(model)
before = model.weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 2)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
print("model.weight:  ", model.weight.detach())
print("shallow.weight:", shallow.weight.detach())
print("deep.weight:   ", deep.weight.detach())
assert torch.equal(shallow.weight, model.weight) and torch.equal(deep.weight, before), (
    "shallow.weight followed the steps; deep.weight kept the old values")
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the steps changed the weight"
assert bytes_apart(deep.weight, model.weight), "the deep copy has memory of its own"
# sphinx_gallery_end_ignore

# %%
# ``copy.deepcopy`` refuses a module that keeps a non-leaf, a tensor with a ``grad_fn``, such as the output
# that ``forward`` stores below in grad mode. :fact:`deepcopy-refuses-module-keeping-non-leaf` A parameter's
# ``.grad`` does not count, even one with a ``grad_fn`` like those ``backward(create_graph=True)`` leaves when
# a ``Linear`` layer's output is squared: ``copy.deepcopy`` copies the module, and the copy's ``.grad`` is
# ``None``. A tensor kept on the module that is not a ``Parameter`` (a buffer, a plain attribute) is copied
# with its ``.grad``: if that ``.grad`` has a ``grad_fn``, ``copy.deepcopy`` refuses the module, although the
# tensor itself is a leaf.
#
# The result of a comparison (``out > 0``) or of ``argmax()`` has no ``grad_fn``, even when computed in grad
# mode from a tensor that requires grad: a module that keeps it deep-copies (more on :ref:`questions-deepcopy`).
#
# A module is refused too when it keeps a leaf that ``copy.deepcopy`` refuses on its own (see
# :ref:`questions-deepcopy`), as ``holder`` is below once it keeps an instance of a plain ``torch.Tensor``
# subclass. Hidden checks try modules that keep, as a buffer, a nested tensor of the ``torch.strided`` layout
# (requiring grad or not), a sparse CSR, CSC, BSR or BSC tensor (float32 and int64), an mkldnn tensor, and
# instances of that subclass made by its constructor, empty or on ``meta``: each tensor is a leaf, and
# ``copy.deepcopy`` raises the same error on it alone and on the module.


class KeepsOutput(torch.nn.Linear):
    def forward(self, x):
        self.output = super().forward(x)  # a non-leaf kept on the module
        return self.output


keeper = KeepsOutput(2, 1)
keeper(x)
print("keeper.output.is_leaf:", keeper.output.is_leaf)
try:
    copy.deepcopy(keeper)
except RuntimeError as e:
    refusal = str(e)
    print(f"{type(e).__name__}: {refusal.split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module that kept its output in grad mode must raise")
leaf = torch.ones(2, requires_grad=True)
(leaf * leaf).sum().backward()  # a .grad without a grad_fn
holder = torch.nn.Module()
holder.kept = leaf  # a plain attribute, not a Parameter
kept_copy = copy.deepcopy(holder).kept
print("kept_copy.grad:", kept_copy.grad, " kept_copy.grad is leaf.grad:", kept_copy.grad is leaf.grad)
# sphinx_gallery_start_ignore
assert kept_copy is not leaf and kept_copy.grad is not None and kept_copy.grad is not leaf.grad and torch.equal(
    kept_copy.grad, leaf.grad), "deepcopy copies a plain attribute that is not a Parameter with its .grad"
# sphinx_gallery_end_ignore
leaf.grad = leaf * 2  # a .grad with a grad_fn
print("leaf.is_leaf:", leaf.is_leaf, " leaf.grad.grad_fn:", type(leaf.grad.grad_fn).__name__)
try:
    copy.deepcopy(holder)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module keeping a leaf whose .grad has a grad_fn must raise")
# sphinx_gallery_start_ignore
assert leaf.is_leaf and leaf.grad.grad_fn is not None, "the tensor kept as an attribute is a leaf whose .grad has a grad_fn"
buffered_leaf = torch.nn.Module()
buffered_leaf.register_buffer("kept", leaf)
try:
    copy.deepcopy(buffered_leaf)
except RuntimeError as leaf_refusal:
    assert "(graph leaves)" in str(leaf_refusal), "deepcopy refuses a leaf buffer whose .grad has a grad_fn"
else:
    raise AssertionError("deepcopy of a module with a leaf buffer whose .grad has a grad_fn must raise")
graded_leaf = torch.ones(2, requires_grad=True)
(graded_leaf * graded_leaf).sum().backward()
holds_graded = torch.nn.Module()
holds_graded.register_buffer("kept", graded_leaf)
copied_graded = copy.deepcopy(holds_graded).kept
assert copied_graded.grad is not None and copied_graded.grad is not graded_leaf.grad and torch.equal(
    copied_graded.grad, graded_leaf.grad), "deepcopy copies a buffer that is not a Parameter with its .grad"
assert "(graph leaves) support the deepcopy protocol" in refusal, "deepcopy refuses the non-leaf kept on the module"
buffered = torch.nn.Linear(2, 1)
buffered.register_buffer("doubled", buffered.weight * 2)
try:
    copy.deepcopy(buffered)
except RuntimeError as buffer_refusal:
    assert "(graph leaves)" in str(buffer_refusal), "deepcopy refuses a non-leaf kept as a buffer too"
else:
    raise AssertionError("deepcopy of a module with a non-leaf buffer must raise")
quiet = KeepsOutput(2, 1)
with torch.no_grad():
    quiet(x)
assert quiet.output.is_leaf and copy.deepcopy(quiet).output is not quiet.output, (
    "an output kept from a forward under no_grad is a leaf: the module deep-copies")
penalised = torch.nn.Linear(2, 1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
    (penalised(torch.ones(1, 2)) ** 2).sum().backward(create_graph=True)
assert all(p.grad.grad_fn is not None and copied.grad is None
           for p, copied in zip(penalised.parameters(), copy.deepcopy(penalised).parameters(), strict=True)), (
    "a parameter's .grad with a grad_fn (backward(create_graph=True)) does not stop deepcopy, and is not copied")
assert keeper.output.grad_fn is not None, "the output kept in grad mode, a non-leaf, has a grad_fn"
kept_results = [keeper.output > 0, keeper.output < 0, keeper.output >= 0, keeper.output <= 0, keeper.output == 0,
                keeper.output != 0, keeper.output.argmax(), keeper.weight.argmax()]
holds_results = torch.nn.Module()
for kept_number, kept_result in enumerate(kept_results):
    holds_results.register_buffer(f"kept{kept_number}", kept_result)
copied_results = list(copy.deepcopy(holds_results).buffers())
assert torch.is_grad_enabled() and keeper.output.requires_grad and len(copied_results) == len(kept_results) and all(
    kept_result.grad_fn is None and kept_result.is_leaf and copied is not kept_result
    for copied, kept_result in zip(copied_results, kept_results, strict=True)), (
    "comparisons and argmax() in grad mode give results without a grad_fn: a module keeping them deep-copies")
for kept_non_leaf in (keeper.output.sign(), keeper.output[0], keeper.output // 1, keeper.weight.t()):
    holds_non_leaf = torch.nn.Module()
    holds_non_leaf.register_buffer("kept", kept_non_leaf)
    try:
        copy.deepcopy(holds_non_leaf)
    except RuntimeError as non_leaf_refusal:
        assert kept_non_leaf.grad_fn is not None and "(graph leaves)" in str(non_leaf_refusal), (
            "deepcopy refuses a module keeping a tensor with a grad_fn")
    else:
        raise AssertionError("deepcopy of a module keeping a tensor with a grad_fn must raise")
# sphinx_gallery_end_ignore


class Tagged(torch.Tensor):  # a plain subclass: copy.deepcopy refuses its instances on their own
    pass


holder.kept = torch.ones(2).as_subclass(Tagged)
print("holder.kept.is_leaf:", holder.kept.is_leaf, " holder.kept.grad_fn:", holder.kept.grad_fn)
try:
    copy.deepcopy(holder)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module keeping an instance of a plain Tensor subclass must raise")
# sphinx_gallery_start_ignore
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # strided nested tensors are a prototype, compressed layouts in beta
    refused_alone = [holder.kept, torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
                     torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], requires_grad=True),
                     torch.ones(2, 2).to_mkldnn(), Tagged(torch.ones(2)), torch.empty(0).as_subclass(Tagged),
                     torch.ones(2, device="meta").as_subclass(Tagged)]
    for dense_kept in (torch.arange(16.0).reshape(4, 4), torch.arange(16).reshape(4, 4)):
        refused_alone.extend([dense_kept.to_sparse_csr(), dense_kept.to_sparse_csc(), dense_kept.to_sparse_bsr((2, 2)),
                              dense_kept.to_sparse_bsc((2, 2))])
for refused_leaf in refused_alone:
    holds_refused = torch.nn.Module()
    holds_refused.register_buffer("kept", refused_leaf)
    try:
        copy.deepcopy(refused_leaf)
    except (NotImplementedError, RuntimeError) as alone_refusal:
        refused_how = (type(alone_refusal), str(alone_refusal).split(".")[0])
    else:
        raise AssertionError("deepcopy of each leaf of the list, on its own, must raise")
    try:
        copy.deepcopy(holds_refused)
    except (NotImplementedError, RuntimeError) as module_refusal:
        assert refused_leaf.is_leaf and refused_leaf.grad_fn is None and refused_how == (
            type(module_refusal), str(module_refusal).split(".")[0]), (
            "deepcopy refuses a module keeping a leaf it refuses alone, with the same error")
    else:
        raise AssertionError("deepcopy of a module keeping a leaf deepcopy refuses alone must raise")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# A tensor passed to a function, kept as a default argument or held by a shallow copy of a module is
# the same tensor as the original, and an item a dataset hands out as ``self.data[i]``, with ``i`` a Python
# ``int`` and a dense ``self.data`` (layout ``torch.strided``, neither nested nor quantized), is a view on the
# original's memory: an in-place edit through any of these names edits the
# original, unless torch refuses it (as it does on a leaf that requires grad with grad mode on,
# above). Write ``x = x + 1`` inside functions, make tensor defaults inside the call,
# hand out ``clone()`` from a dataset whose callers may edit items, and copy modules with
# ``copy.deepcopy``, which refuses, among others, a module that keeps a non-leaf (a tensor with a ``grad_fn``),
# a tensor that is not a ``Parameter`` whose ``.grad`` has a ``grad_fn``, or a leaf it refuses on its own, such as
# an instance of a plain ``torch.Tensor`` subclass (more on :ref:`questions-deepcopy`).
