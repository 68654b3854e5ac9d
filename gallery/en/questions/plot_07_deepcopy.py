"""
.. _questions-deepcopy:

``copy.deepcopy`` and ``copy.copy`` on tensors
==============================================

.. admonition:: Answer
   :class: answer

   ``copy.deepcopy`` copies only leaf tensors, and the module keeps a product of a parameter computed in grad mode, which has a ``grad_fn``. Compute that tensor in ``forward``, without storing it on the module (a detached copy kept there would be a constant that never trains):

   .. code-block:: python

      class ScaledFixed(torch.nn.Module):
          def __init__(self):
              super().__init__()
              self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

          def forward(self, x):
              return x * self.scale * 2

``copy.deepcopy(model)`` fails with the error "Only Tensors created explicitly by the user (graph
leaves) support the deepcopy protocol at the moment." when a module holds a tensor that is not a leaf: one
with a ``grad_fn``, such as a product computed in grad mode from a tensor that requires grad. This page reproduces that error with a tiny module and fixes it, then shows what
``deepcopy`` copies (``.grad``, but not a ``Parameter``'s; for a plain CPU tensor without the
conjugate or negative bit, the whole storage behind a view, and the sharing between tensors on one storage, which the copy keeps) and that ``copy.copy`` copies no memory at all. It answers
`pytorch/pytorch#54580 <https://github.com/pytorch/pytorch/issues/54580>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

import copy
import warnings

import torch


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
# The error
# ---------
#
# The module below keeps ``scale * 2`` as an attribute: a product made while ``scale`` required
# grad, so it has a ``grad_fn`` and is not a leaf. ``copy.deepcopy`` of the
# module reaches that tensor and raises.


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        self.doubled = self.scale * 2  # a non-leaf kept on the module

    def forward(self, x):
        return x * self.doubled


model = Scaled()
print("doubled.is_leaf:", model.doubled.is_leaf)
print("doubled.grad_fn:", model.doubled.grad_fn.name())
try:
    copy.deepcopy(model)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("deepcopy of a module holding a non-leaf must raise")
# sphinx_gallery_start_ignore
assert message.startswith(
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment."
), "the message's first sentence, as the opening quotes it"
# sphinx_gallery_end_ignore

# %%
# The same error comes from the tensor alone: ``deepcopy`` refuses any tensor that has a
# ``grad_fn``, with or without a module around it. Having no ``grad_fn`` is not enough: a nested tensor
# of the default ``torch.strided`` layout, a sparse tensor of the CSR, CSC, BSR or BSC layout and an mkldnn
# tensor (``to_mkldnn()``) are leaves, yet ``deepcopy`` raises ``NotImplementedError`` on each; a
# ``torch.jagged`` nested tensor and a sparse COO tensor deep-copy into new memory (hidden checks run them all).
# :fact:`deepcopy-refuses-some-leaves`

try:
    copy.deepcopy(model.doubled)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a non-leaf tensor must raise")
# sphinx_gallery_start_ignore
# Nested tensors are a prototype: building one of the strided layout warns, so the warning is ignored here.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    strided_leaf_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
assert strided_leaf_.layout == torch.strided and strided_leaf_.is_leaf and strided_leaf_.grad_fn is None, (
    "a strided nested tensor is a leaf with no grad_fn")
try:
    copy.deepcopy(strided_leaf_)
except NotImplementedError:
    pass
else:
    raise AssertionError("deepcopy of a strided nested tensor must raise NotImplementedError")
jagged_leaf_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)
jagged_copy_ = copy.deepcopy(jagged_leaf_)
assert jagged_leaf_.is_leaf and jagged_copy_.values().data_ptr() != jagged_leaf_.values().data_ptr() and torch.equal(
    jagged_copy_.values(), jagged_leaf_.values()), "a jagged nested tensor deep-copies into new memory"
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # the compressed sparse layouts are in beta, and torch warns so
    dense_ = torch.arange(16.0).reshape(4, 4)
    refused_leaves_ = {"sparse CSR": dense_.to_sparse_csr(), "sparse CSC": dense_.to_sparse_csc(),
                       "sparse BSR": dense_.to_sparse_bsr((2, 2)), "sparse BSC": dense_.to_sparse_bsc((2, 2)),
                       "mkldnn": dense_.to_mkldnn()}
for kind_, refused_leaf_ in refused_leaves_.items():
    assert refused_leaf_.is_leaf and refused_leaf_.grad_fn is None, f"a {kind_} tensor is a leaf with no grad_fn"
    try:
        copy.deepcopy(refused_leaf_)
    except NotImplementedError:
        pass
    else:
        raise AssertionError(f"deepcopy of a {kind_} tensor must raise NotImplementedError")
coo_leaf_ = dense_.to_sparse()
coo_copy_ = copy.deepcopy(coo_leaf_)
assert coo_copy_.layout == torch.sparse_coo and coo_copy_.values().data_ptr() != coo_leaf_.values().data_ptr() and (
    torch.equal(coo_copy_.to_dense(), dense_)), "a sparse COO tensor deep-copies into new memory"
# sphinx_gallery_end_ignore

# %%
# An instance of a plain ``torch.Tensor`` subclass, one that defines nothing (no ``__torch_dispatch__``
# either), as ``Tagged`` below, is a leaf too, and ``deepcopy`` raises ``RuntimeError`` on it: made by
# ``as_subclass`` as here, or (in hidden checks) by ``Tagged(...)``, empty or on ``meta``. It copies when the
# subclass defines ``new_empty`` returning its own class, or ``__deepcopy__``; a subclass of ``Parameter``
# copies too (hidden checks).
# :fact:`deepcopy-refuses-some-leaves`


class Tagged(torch.Tensor):
    pass


tagged = torch.ones(2).as_subclass(Tagged)
print("type(tagged):", type(tagged).__name__, " is_leaf:", tagged.is_leaf, " grad_fn:", tagged.grad_fn)
try:
    copy.deepcopy(tagged)
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split('. ')[0]}")
else:
    raise AssertionError("deepcopy of an instance of a plain Tensor subclass must raise")
# sphinx_gallery_start_ignore
for made_ in (tagged, Tagged(torch.ones(2)), torch.empty(0).as_subclass(Tagged),
              torch.ones(2, device="meta").as_subclass(Tagged)):
    assert made_.is_leaf and made_.grad_fn is None, "each instance of Tagged is a leaf with no grad_fn"
    try:
        copy.deepcopy(made_)
    except RuntimeError as refusal_:
        assert str(refusal_).startswith("The default implementation of __deepcopy__() for"), (
            "deepcopy of an instance of Tagged says the default __deepcopy__ cannot rebuild it")
    else:
        raise AssertionError("deepcopy of an instance of Tagged, however made, must raise")


class OwnNewEmpty_(torch.Tensor):
    def new_empty(self, *args, **kwargs):
        return super().new_empty(*args, **kwargs).as_subclass(OwnNewEmpty_)


class OwnDeepcopy_(torch.Tensor):
    def __deepcopy__(self, memo):
        return self.detach().clone().as_subclass(OwnDeepcopy_)


class ParameterKind_(torch.nn.Parameter):
    pass


for copies_ in (torch.ones(2).as_subclass(OwnNewEmpty_), torch.ones(2).as_subclass(OwnDeepcopy_),
                ParameterKind_(torch.ones(2))):
    subclass_copy_ = copy.deepcopy(copies_)
    assert type(subclass_copy_) is type(copies_) and bytes_apart(subclass_copy_, copies_) and torch.equal(
        subclass_copy_, copies_), f"deepcopy of a {type(copies_).__name__} gives a copy of its class"
# sphinx_gallery_end_ignore

# %%
# A tensor made with ``requires_grad=True`` outside ``torch.inference_mode()`` and then moved by ``.to()`` with grad
# mode on, outside ``torch.inference_mode()``, to another device
# (``meta`` here) or to another floating or complex dtype (``float64``, ``float16``, ``bfloat16`` and
# ``complex64`` here) is such a non-leaf, with the ``grad_fn`` ``ToCopyBackward0``: ``deepcopy`` refuses it,
# while the tensor before the move copies, and its copy is a leaf. Only moves in grad mode run here. That
# ``.cuda()`` makes such a non-leaf too, with the same ``grad_fn``, is checked by the GPU box of
# :ref:`questions-grad-after-move`, only where torch finds a GPU.

for target in ("meta", torch.float64, torch.float16, torch.bfloat16, torch.complex64):
    before_move = torch.ones(3, requires_grad=True)
    moved = before_move.to(target)
    try:
        copy.deepcopy(moved)
    except RuntimeError as e:
        refusal = str(e)
        print(f"device: {moved.device}  dtype: {moved.dtype}  grad_fn: {moved.grad_fn.name()}  {type(e).__name__}")
    else:
        raise AssertionError(f"deepcopy of a tensor moved by to({target}) must raise")
    assert refusal.startswith("Only Tensors created explicitly by the user (graph leaves)"), (
        f"to({target}): deepcopy refuses with the graph-leaves message")
    # sphinx_gallery_start_ignore
    assert moved.grad_fn.name() == "ToCopyBackward0" and not moved.is_leaf, (
        f"to({target}) in grad mode gives a non-leaf whose grad_fn is ToCopyBackward0")
    assert copy.deepcopy(before_move).is_leaf, f"before to({target}), the tensor deep-copies to a leaf"
    # sphinx_gallery_end_ignore

# %%
# A tensor computed from tensors that need no grad, or computed under ``torch.no_grad()``, is a
# leaf with no ``grad_fn``: a module that holds such tensors deep-copies.

scale = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    frozen = scale * 2
held = torch.nn.Module()
held.register_buffer("doubled", torch.arange(3.0) * 2)
held.register_buffer("frozen", frozen)
held_copy = copy.deepcopy(held)
for name, t in held.named_buffers():
    print(f"{name}: is_leaf={t.is_leaf}  grad_fn={t.grad_fn}  copy: {held_copy.get_buffer(name)}")
assert all(t.is_leaf for t in held.buffers()) and torch.equal(held_copy.frozen, frozen), (
    "both buffers are leaves; deepcopy(held) copied frozen's values")
# sphinx_gallery_start_ignore
assert torch.equal(held_copy.doubled, held.doubled) and bytes_apart(held_copy.frozen, frozen), (
    "deepcopy copied doubled's values; frozen's copy has memory of its own")
# sphinx_gallery_end_ignore

# %%
# The fix
# -------
#
# Keep only leaves on the module: compute ``scale * 2`` inside ``forward``. The module
# deep-copies, and the copy owns its memory.


class ScaledFixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        return x * self.scale * 2


fixed = ScaledFixed()
twin = copy.deepcopy(fixed)
print("twin.scale:", twin.scale)
print("same storage (scale):", same_storage(fixed.scale, twin.scale))
assert bytes_apart(fixed.scale, twin.scale), "the deep copy must own its parameters' memory"
# sphinx_gallery_start_ignore
assert torch.equal(twin.scale, fixed.scale), "the deep copy must hold the same values"
# sphinx_gallery_end_ignore

# %%
# Computing the tensor in ``forward`` is not enough if ``forward`` also stores it on the module, as the
# module in the issue this page answers does (``self.exp = x``): such a module deep-copies before its
# first call, raises the same error after a call in grad mode, and deep-copies again after a call under
# ``torch.no_grad()`` or ``torch.inference_mode()``, which stores a leaf.
# :fact:`deepcopy-refuses-module-keeping-non-leaf`


class ScaledStored(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        self.doubled = self.scale * 2  # computed in forward, but stored on the module
        return x * self.doubled


stored = ScaledStored()
print("before a call, the copy's scale:", copy.deepcopy(stored).scale)
stored(torch.ones(2))
print("after a call, stored.doubled.grad_fn:", stored.doubled.grad_fn.name())
try:
    copy.deepcopy(stored)
except RuntimeError as e:
    stored_message = str(e)
    print(f"{type(e).__name__}: {str(e).split('.')[0]}")
else:
    raise AssertionError("deepcopy of a module that stored a non-leaf in forward must raise")
assert stored_message == message, "after a call in grad mode, deepcopy raises the error above"

# %%
# Storing ``(self.scale * 2).detach()`` on the module instead also deep-copies, but that tensor is
# a constant: no gradient reaches ``scale`` through it, and it does not follow when ``scale``
# changes. A few steps of SGD show the difference. Computed in ``forward``, ``scale`` trains; with
# the detached attribute, ``scale`` is the only parameter and nothing that requires grad leads to
# the loss, so ``backward()`` raises, ``scale.grad`` stays ``None`` and ``scale`` keeps its values.


class ScaledDetached(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        self.doubled = (self.scale * 2).detach()  # a leaf, but a constant

    def forward(self, x):
        return x * self.doubled


def train(module, steps=3):
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        module(torch.ones(2)).sum().backward()
        optimizer.step()


trained = ScaledFixed()
train(trained)
print("computed in forward, scale after training:", trained.scale.detach())
stuck = ScaledDetached()
print("deep-copies:", copy.deepcopy(stuck).doubled)
try:
    train(stuck)
except RuntimeError as e:
    stuck_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward through a detached attribute alone must raise")
print("detached attribute, scale:", stuck.scale.detach(), " scale.grad:", stuck.scale.grad)
with torch.no_grad():
    stuck.scale.mul_(3.0)
print("after scale *= 3, doubled:", stuck.doubled)
assert not torch.equal(trained.scale, torch.tensor([1.0, 2.0])), "computed in forward, scale trains"
assert stuck.scale.grad is None and torch.equal(stuck.doubled, torch.tensor([2.0, 4.0])), "a detached copy is a constant"
# sphinx_gallery_start_ignore
assert stuck_message.startswith("element 0 of tensors does not require grad"), "the message torch prints"
assert torch.equal(stuck.scale, torch.tensor([3.0, 6.0])), "scale kept its values until the edit above"
# sphinx_gallery_end_ignore

# %%
# The most common cause: ``weight_norm``
# --------------------------------------
#
# The error message names it: ``torch.nn.utils.weight_norm`` (deprecated, and it says so with a
# ``FutureWarning``) stores ``weight`` on the module as a tensor computed from two parameters, so
# a module built in grad mode holds a non-leaf from the start and cannot be deep-copied. It computes
# ``weight`` again before every call, in that call's grad mode, as ``ScaledStored`` above does in ``forward``:
# built under ``torch.no_grad()``, or after a call under ``torch.no_grad()`` or ``torch.inference_mode()``,
# the module holds a leaf and deep-copies, until its next call in grad mode (hidden checks). Its replacement,
# ``torch.nn.utils.parametrizations.weight_norm``, computes the weight each time it is read (once
# per block inside ``torch.nn.utils.parametrize.cached()``) and keeps only the two parameters: the
# module deep-copies, and the copy gives the same output from memory of its own.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
print("warned:", [f"{w.category.__name__}: {w.message}" for w in caught])
print("legacy.weight.grad_fn:", legacy.weight.grad_fn.name())
try:
    copy.deepcopy(legacy)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("deepcopy of a module with the old weight_norm must raise")
modern = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
modern_copy = copy.deepcopy(modern)
x = torch.ones(1, 3)
print("the copy computes the same output:", torch.equal(modern_copy(x), modern(x)))
print("same storage (weight_g):", same_storage(modern.parametrizations.weight.original0,
                                               modern_copy.parametrizations.weight.original0))  # fmt: skip
assert "torch.nn.utils.weight_norm" in message and torch.equal(modern_copy(x), modern(x)), "old fails, new copies"
# sphinx_gallery_start_ignore
assert [w.category for w in caught] == [FutureWarning], "the old weight_norm is deprecated"
assert [name for name, _ in modern.named_parameters()] == [
    "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"
], "the new weight_norm keeps two parameters for the weight, and no computed weight"
assert bytes_apart(modern.parametrizations.weight.original1, modern_copy.parametrizations.weight.original1), (
    "the copy's weight_v has memory of its own too")
assert modern.weight is not modern.weight and modern.weight.grad_fn is not None, (
    "the new weight_norm computes the weight anew at each read")
with torch.nn.utils.parametrize.cached():
    assert modern.weight is modern.weight, "inside parametrize.cached() the new weight_norm computes the weight once"


def deep_copies_(module_):
    try:
        copy.deepcopy(module_)
    except RuntimeError as refusal_:
        assert str(refusal_) == message, "deepcopy of a module with the old weight_norm raises the error above"
        return False
    return True


with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # the old weight_norm is deprecated, as shown above
    with torch.no_grad():
        quiet_legacy_ = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
assert quiet_legacy_.weight.is_leaf and deep_copies_(quiet_legacy_), (
    "a module given the old weight_norm under torch.no_grad() holds a leaf weight and deep-copies")
call_modes_ = {"in grad mode": torch.enable_grad, "under torch.no_grad()": torch.no_grad,
               "under torch.inference_mode()": torch.inference_mode}
for call_mode_ in ("in grad mode", "under torch.no_grad()", "in grad mode", "under torch.inference_mode()"):
    with call_modes_[call_mode_]():
        quiet_legacy_(x)
    outside_grad_mode_ = call_mode_ != "in grad mode"
    assert quiet_legacy_.weight.is_leaf == deep_copies_(quiet_legacy_) == outside_grad_mode_, (
        f"after a call {call_mode_}, a module with the old weight_norm holds a leaf weight and deep-copies "
        "only outside grad mode")
# sphinx_gallery_end_ignore


# %%
# What a deep copy carries over
# -----------------------------
#
# A plain leaf that already has a gradient from a plain ``backward()``: the copy gets its own ``.grad``
# with the same values, in new memory, and is a leaf that still requires grad. After
# ``backward(create_graph=True)``, a ``.grad`` computed from ``w`` (``2 * w``, from ``(w * w).sum()``) has a
# ``grad_fn``, and ``deepcopy`` of the leaf raises the error above instead, while a ``Parameter``'s copy, which
# drops ``.grad`` (below), still works. A gradient computed from no tensor that requires grad, as from
# ``(w * 2).sum()``, has no ``grad_fn``, and the leaf deep-copies. A hidden check runs all three.

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(w * w).sum().backward()
w_copy = copy.deepcopy(w)
print("w.grad:", w.grad)
print("w_copy.grad:", w_copy.grad)
print("same storage (grad):", same_storage(w.grad, w_copy.grad))
print("w_copy.requires_grad:", w_copy.requires_grad, " is_leaf:", w_copy.is_leaf)
assert torch.equal(w_copy.grad, w.grad) and bytes_apart(w.grad, w_copy.grad), "deepcopy must copy .grad"
# sphinx_gallery_start_ignore
assert w_copy.requires_grad and w_copy.is_leaf, "the copy must be a leaf that requires grad"
graded_ = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
graded_parameter_ = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
    (graded_ * graded_).sum().backward(create_graph=True)
    (graded_parameter_ * graded_parameter_).sum().backward(create_graph=True)
assert graded_.grad.grad_fn is not None and graded_parameter_.grad.grad_fn is not None, (
    "after backward(create_graph=True), .grad has a grad_fn")
try:
    copy.deepcopy(graded_)
except RuntimeError as refusal_:
    assert str(refusal_).startswith("Only Tensors created explicitly by the user (graph leaves)"), (
        "deepcopy of a leaf whose .grad has a grad_fn raises the graph-leaves error")
else:
    raise AssertionError("deepcopy of a leaf whose .grad has a grad_fn must raise")
assert copy.deepcopy(graded_parameter_).grad is None, (
    "a Parameter whose .grad has a grad_fn deep-copies, and its copy has no .grad")
linear_ = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    (linear_ * 2).sum().backward(create_graph=True)
assert linear_.grad.grad_fn is None and torch.equal(copy.deepcopy(linear_).grad, linear_.grad), (
    "a gradient from no tensor that requires grad has no grad_fn, and the leaf deep-copies")
# sphinx_gallery_end_ignore

# %%
# A ``Parameter`` is different: its copy keeps the ``Parameter`` type but not the gradient, alone
# or inside a module. A deep copy of the model above, taken after ``backward()``, has ``.grad`` set
# to ``None``.

p = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
(p * p).sum().backward()
print("p.grad:", p.grad, " copy.deepcopy(p).grad:", copy.deepcopy(p).grad)
fixed(torch.ones(2)).sum().backward()
twin = copy.deepcopy(fixed)
print("fixed.scale.grad:", fixed.scale.grad)
print("twin.scale.grad:", twin.scale.grad)
print("type(twin.scale):", type(twin.scale).__name__)
assert copy.deepcopy(p).grad is None and twin.scale.grad is None, "deepcopy of a Parameter must drop .grad"
# sphinx_gallery_start_ignore
assert p.grad is not None and fixed.scale.grad is not None, "the sources had a gradient to drop"
# sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert type(twin.scale) is torch.nn.Parameter, "deepcopy must keep the Parameter type"
# sphinx_gallery_end_ignore

# %%
# A plain CPU tensor that is a view (without the conjugate or negative bit) is copied with the whole
# storage behind it: two floats of view, ten floats (40 bytes) of storage in the copy. The copy is no view any more (``_base`` is
# ``None``), but it keeps the view's offset into that storage. On ``meta``, which holds no memory,
# ``deepcopy`` clones instead: the copy holds the view's two floats at offset 0 (a hidden check runs it).

base = torch.arange(10.0)
view = base[2:4]
view_copy = copy.deepcopy(view)
print("view:", view, " bytes in view:", view.nelement() * view.element_size())
print("view_copy storage bytes:", view_copy.untyped_storage().nbytes())
print("view_copy._base:", view_copy._base, " storage_offset:", view_copy.storage_offset())
assert view_copy.untyped_storage().nbytes() == base.untyped_storage().nbytes(), "deepcopy must copy the whole storage"
# sphinx_gallery_start_ignore
assert view_copy.untyped_storage().nbytes() == 40, "the storage of ten float32 holds 40 bytes"
assert view_copy._base is None and view_copy.storage_offset() == 2, "the copy keeps the offset, not the view"
assert bytes_apart(view, view_copy), "the copy must own its storage"
meta_view_copy = copy.deepcopy(torch.arange(10.0, device="meta")[2:4])
assert meta_view_copy.untyped_storage().nbytes() == 8, "on meta, deepcopy clones: the view's two floats"
assert meta_view_copy.storage_offset() == 0, "on meta the clone starts at offset 0"
# sphinx_gallery_end_ignore

# %%
# Sharing of one storage inside the copied object is kept between plain CPU tensors without the
# conjugate or negative bit (on ``meta`` the view below is cloned onto a storage of its own): one ``deepcopy`` call of a list that holds the same
# tensor twice, and a view of it, gives a list whose first two items are one tensor and whose third
# shares that tensor's memory. An alias made through ``torch.from_numpy(t.numpy())`` or
# ``torch.from_dlpack(t)`` has a storage object of its own over the same memory: its copy shares
# nothing with the copy of ``t``.

t = torch.zeros(3)
items = copy.deepcopy([t, t, t[1:]])
print("items[0] is items[1]:", items[0] is items[1])
print("items[2] shares items[0]'s storage:", same_storage(items[0], items[2]))
print("items[0] shares t's storage:", same_storage(items[0], t))
assert items[0] is items[1] and same_storage(items[0], items[2]), "deepcopy must keep the sharing it copies"
# sphinx_gallery_start_ignore
meta_t = torch.zeros(3, device="meta")
meta_items = copy.deepcopy([meta_t, meta_t, meta_t[1:]])
assert meta_items[0] is meta_items[1], "on meta one tensor twice is still copied once"
assert meta_items[2].untyped_storage().nbytes() == 8, "on meta the view is cloned onto a storage of its own"
assert bytes_apart(items[0], t), "the copy must not share the source's memory"
assert same_storage(t, torch.from_numpy(t.numpy())) and same_storage(t, torch.from_dlpack(t)), (
    "from_numpy(t.numpy()) and from_dlpack(t) sit on t's memory")
assert bytes_apart(*copy.deepcopy([t, torch.from_numpy(t.numpy())])), (
    "deepcopy([t, from_numpy(t.numpy())]) gives copies that share no storage")
assert bytes_apart(*copy.deepcopy([t, torch.from_dlpack(t)])), (
    "deepcopy([t, from_dlpack(t)]) gives copies that share no storage")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the name t points to a tensor object on storage S1; items[0] and items[1] point to one tensor object on storage S2; items[2] points to another tensor object on S2.
#
#    ``items[0]`` and ``items[1]`` are one tensor object; ``items[2]`` shares its storage ``S2``;
#    ``t`` keeps its own storage ``S1``.

draw_memory("items = copy.deepcopy([t, t, t[1:]])", t=t, **{f"items[{i}]": item for i, item in enumerate(items)})

# %%
# A ``Parameter`` is deep-copied by cloning it: the copy holds only the parameter's own elements,
# at offset 0, and two parameters on one storage get storages of their own.

base = torch.arange(10.0)
first, second = torch.nn.Parameter(base[0:2]), torch.nn.Parameter(base[1:3])
pair = copy.deepcopy([first, second])
print("pair[0] storage bytes:", pair[0].untyped_storage().nbytes(), " storage_offset:", pair[0].storage_offset())
print("pair[1] storage bytes:", pair[1].untyped_storage().nbytes(), " storage_offset:", pair[1].storage_offset())
print("second.storage_offset():", second.storage_offset())
print("same storage (first, second):", same_storage(first, second))
print("same storage (pair[0], pair[1]):", same_storage(pair[0], pair[1]))
assert pair[0].untyped_storage().nbytes() == 8 and bytes_apart(pair[0], pair[1]), "a Parameter's copy loses the sharing"
# sphinx_gallery_start_ignore
assert same_storage(first, second) and pair[1].storage_offset() == 0, "the sources shared one storage"
assert torch.equal(pair[1], second) and type(pair[1]) is torch.nn.Parameter, "the copy has the values"
# sphinx_gallery_end_ignore

# %%
# ``copy.copy`` copies no memory
# ------------------------------
#
# For each tensor of the default ``torch.strided`` layout that the checks here try (``float32``, ``int64`` and
# ``bool`` tensors, views, conjugate views, ``meta`` tensors, a ``Parameter``, a leaf, a non-leaf),
# ``copy.copy(t)`` returns a new tensor object on the same memory: an edit of one is seen in the
# other (a ``meta`` tensor has no values to edit). It is not a way to snapshot values. Nor does it take every
# tensor: on an mkldnn tensor (``to_mkldnn()``) ``copy.copy`` raises ``NotImplementedError``, and on a CPU tensor
# of some dtypes, among them ``float8_e4m3fn``, ``float8_e5m2``, ``uint16`` and ``uint32``, ``AttributeError``. :fact:`copy-copy-raises-on-some-tensors`
# Called outside ``torch.inference_mode()``, it gives the
# new object a version counter of its own for each kind of tensor the checks here try (``float32``, ``int64`` and
# ``bool`` tensors, views, conjugate views, ``meta`` and sparse tensors, a ``Parameter``, a leaf, a non-leaf);
# a nested tensor of the default ``torch.strided`` layout is the exception: its copy is a view of it
# (``_base`` is the source) and shares its counter. Here the write through ``shallow`` moves
# ``shallow._version`` and leaves ``t._version`` at 0. The copy's counter already reads 1 before that
# write (not for every kind of tensor: for example the copy of a ``Parameter``, of a ``meta`` tensor or of a
# sparse tensor starts at 0), so the write shows as a move of one.

t = torch.zeros(3)
shallow = copy.copy(t)
versions_before = (t._version, shallow._version)
shallow[0] = 7.0
print("t:", t)
print("shallow:", shallow)
print("shallow is t:", shallow is t, " same storage:", same_storage(t, shallow))
print("(t._version, shallow._version) before the write:", versions_before, " after:", (t._version, shallow._version))
assert same_storage(t, shallow) and t[0] == 7.0, "copy.copy must share memory with its source"
# sphinx_gallery_start_ignore
assert shallow is not t, "copy.copy must return another object"
assert t._version == versions_before[0] == 0 and shallow._version == versions_before[1] + 1, (
    "the write through shallow moved its own counter by one, not t's")
assert versions_before[1] == 1, "copy.copy's result reads version 1 before any write"
assert all(copy.copy(torch.nn.Parameter(torch.ones(3), requires_grad=flag))._version == 0 for flag in (True, False)), (
    "copy.copy of a Parameter starts at version 0")
zero_start = (torch.zeros(3, device="meta"), torch.ones(3).to_sparse())
assert all(copy.copy(source_)._version == 0 for source_ in zero_start), (
    "copy.copy of a meta tensor or of a sparse tensor starts at version 0")
with torch.inference_mode():
    inference_source = torch.zeros(3)
counted_sources = {
    "float tensor": torch.zeros(3),
    "integer tensor": torch.arange(3),
    "bool tensor": torch.ones(3, dtype=torch.bool),
    "view of a tensor that needs no grad": torch.arange(6.0)[1:],
    "conjugate view": torch.ones(3, dtype=torch.complex64).conj(),
    "meta tensor": torch.zeros(3, device="meta"),
    "sparse tensor": torch.ones(3).to_sparse(),
    "Parameter that needs no grad": torch.nn.Parameter(torch.ones(3), requires_grad=False),
    "leaf": torch.ones(3, requires_grad=True),
    "non-leaf": torch.ones(3, requires_grad=True) * 2,
}
for kind, counted in counted_sources.items():
    counted_twin = copy.copy(counted)
    counted_counters = shared_counters([counted, counted_twin])
    assert counted_counters[id(counted)] != counted_counters[id(counted_twin)], (
        f"copy.copy of a {kind} has a version counter of its own")
    assert counted.layout != torch.strided or (counted_twin is not counted and same_storage(counted_twin, counted) and (
        counted_twin.data_ptr(), counted_twin.stride(), counted_twin.shape) == (
        counted.data_ptr(), counted.stride(), counted.shape)), (
        f"copy.copy of a {kind} is another object on the same elements of the same memory")
try:
    copy.copy(torch.arange(4.0).reshape(2, 2).to_mkldnn())
except NotImplementedError:
    pass
else:
    raise AssertionError("copy.copy of an mkldnn tensor must raise NotImplementedError")
refused_dtypes_ = {"float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2, "uint16": torch.uint16,
                   "uint32": torch.uint32}
for refused_name_, refused_dtype_ in refused_dtypes_.items():
    try:
        copy.copy(torch.empty(2, dtype=refused_dtype_))
    except AttributeError:
        pass
    else:
        raise AssertionError(f"copy.copy of a CPU tensor of dtype {refused_name_} must raise AttributeError")
# Nested tensors are a prototype: building one of the strided layout warns, so the warning is ignored here.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    strided_nested_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
    nested_counters_ = shared_counters([strided_nested_, copy.copy(strided_nested_)])
assert strided_nested_.layout == torch.strided and len(nested_counters_) == 2 and len(
    set(nested_counters_.values())) == 1, "copy.copy of a strided nested tensor shares its source's version counter"
assert copy.copy(strided_nested_)._base is strided_nested_, "copy.copy of a strided nested tensor is a view of it"
assert not copy.copy(inference_source).is_inference() and copy.copy(inference_source)._version >= 0, (
    "copy.copy of an inference tensor, outside the mode, is a normal tensor with a version counter")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names t and shallow point to two tensor objects on one storage S1; both hold 7.0, 0.0, 0.0; t's version counter is C1, shallow's is C2.
#
#    Two tensor objects on one storage ``S1``: the write through ``shallow`` is in ``t``. Each has a
#    version counter of its own, ``C1`` and ``C2``.

draw_memory("shallow = copy.copy(t); shallow[0] = 7.0", t=t, shallow=shallow)

# %%
# So the object ``copy.copy`` returns is not just a second name for its source: below, ``a`` is a
# leaf that requires grad and ``c = copy.copy(a)``. For a tensor of the default ``torch.strided`` layout
# that requires grad, with the tensor and its copy both made outside ``torch.inference_mode()``,
# ``copy.copy`` also makes a separate leaf, with no ``.grad`` at first: a backward pass through it
# fills its own ``.grad`` and leaves ``a.grad`` alone, and an edit through it changes ``a``'s values
# without moving ``a._version``. A strided nested tensor is again an exception: its copy is a view with a
# ``grad_fn``, and backward raises after such an edit of a source it saved. Other layouts differ too:
# for example, the copy of a sparse COO tensor that requires grad (a ``Parameter`` aside) does not
# require grad at all.
# :fact:`copy-copy-of-strided-nested-shares-counter`
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(a * a).sum().backward()
c = copy.copy(a)
print("c.is_leaf:", c.is_leaf, " c.requires_grad:", c.requires_grad, " c.grad:", c.grad)
(c * 3).sum().backward()
print("c.grad:", c.grad, " a.grad:", a.grad)
with torch.no_grad():
    c.add_(1)
print("a:", a, " a._version:", a._version)
assert torch.equal(c.grad, torch.full((3,), 3.0)) and torch.equal(a.grad, torch.tensor([2.0, 4.0, 6.0])), (
    "the backward pass through c fills c.grad and leaves a.grad as it was"
)
# sphinx_gallery_start_ignore
assert same_storage(a, c) and a._version == 0 and torch.equal(a.detach(), torch.tensor([2.0, 3.0, 4.0])), (
    "the edit through c is in a's memory, and a's counter does not see it"
)
for kind in ("leaf", "Parameter", "non-leaf", "view", "meta tensor", "conjugate view"):
    for grad_enabled_ in (True, False):
        origin_ = (torch.nn.Parameter(torch.ones(4)) if kind == "Parameter"
                   else torch.ones(4, device="meta", requires_grad=True) if kind == "meta tensor"
                   else torch.ones(4, dtype=torch.complex64, requires_grad=True) if kind == "conjugate view"
                   else torch.ones(4, requires_grad=True))
        source = {"non-leaf": origin_ * 2, "view": origin_[1:], "conjugate view": origin_.conj()}.get(kind, origin_)
        with torch.set_grad_enabled(grad_enabled_):
            twin_ = copy.copy(source)
        assert source.layout == torch.strided and twin_.is_leaf and twin_.grad_fn is None and twin_.requires_grad and (
            twin_.grad is None), f"copy.copy of a {kind}, in grad mode or under no_grad, is a leaf with no .grad"
        assert same_storage(twin_, source), f"copy.copy of a {kind} shares its memory"
        counters_ = shared_counters([source, twin_])
        assert counters_[id(source)] != counters_[id(twin_)], f"copy.copy of a {kind} has a version counter of its own"
        twin_.abs().sum().backward()
        assert twin_.grad is not None and origin_.grad is None, f"gradients through copy.copy of a {kind} stop there"
with torch.inference_mode():
    inference_leaf_ = torch.ones(3, requires_grad=True)
inference_twin_ = copy.copy(inference_leaf_)
inference_twin_.sum().backward()
assert inference_twin_.is_leaf and inference_twin_.grad is not None and inference_leaf_.grad is None, (
    "outside torch.inference_mode(), copy.copy of an inference tensor that requires grad is a leaf with its own .grad")
coo_indices_ = torch.tensor([[0, 1], [1, 0]])
for coo_kind_ in ("leaf", "non-leaf"):
    for grad_enabled_ in (True, False):
        coo_leaf_ = torch.sparse_coo_tensor(coo_indices_, torch.tensor([2.0, 3.0]), (2, 2), requires_grad=True,
                                            check_invariants=True)
        coo_source_ = coo_leaf_ * 2 if coo_kind_ == "non-leaf" else coo_leaf_
        with torch.set_grad_enabled(grad_enabled_):
            coo_twin_ = copy.copy(coo_source_)
        assert coo_source_.requires_grad and not coo_twin_.requires_grad, (
            f"copy.copy of a sparse COO {coo_kind_} that requires grad does not require grad")
assert copy.copy(torch.nn.Parameter(torch.sparse_coo_tensor(coo_indices_, torch.ones(2), (2, 2),
                                                                       check_invariants=True))).requires_grad, (
    "copy.copy of a sparse COO Parameter requires grad")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    nested_source_ = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], requires_grad=True)
nested_twin_ = copy.copy(nested_source_)
assert nested_twin_._base is nested_source_ and not nested_twin_.is_leaf and nested_twin_.grad_fn is not None, (
    "copy.copy of a strided nested tensor that requires grad is a view of it with a grad_fn")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``copy.deepcopy`` copies leaves only (and not every leaf: a nested tensor of the default ``torch.strided``
# layout, a sparse CSR, CSC, BSR or BSC tensor and an mkldnn tensor raise ``NotImplementedError``, an
# instance of a plain ``torch.Tensor`` subclass ``RuntimeError``); a module that keeps a non-leaf should compute that tensor in
# ``forward``, without storing it on the module: a detached copy deep-copies, but it is a constant, and no
# gradient reaches ``scale`` through it. The copy owns new memory; a plain tensor's copy carries ``.grad``
# (``deepcopy`` raises instead once ``backward(create_graph=True)`` has given that ``.grad`` a ``grad_fn``), a
# ``Parameter``'s does not. For plain CPU tensors without the conjugate or negative bit it copies the whole storage
# behind a view, and keeps the sharing of tensors on one storage object (on ``meta`` it clones; an alias made
# through NumPy or DLPack has a storage object of its own, and its copy shares nothing); a ``Parameter`` is cloned, so its copy holds only its own elements, and two parameters on
# one storage get separate memory. ``copy.copy`` copies no memory (and raises on an mkldnn tensor and on a CPU
# tensor of some dtypes, ``float8_e4m3fn`` among them), but it is no alias either:
# outside ``torch.inference_mode()`` it has a version counter of its own (a strided nested tensor's copy
# is a view of it and shares its source's), and for a tensor of the default ``torch.strided`` layout that
# requires grad (a nested one aside) it is a separate leaf with its own ``.grad``, and gradients through it do not reach
# the source; a sparse COO tensor's copy, for example, does not even require grad unless the tensor is a
# ``Parameter``. For one tensor without its
# history, use ``detach().clone()`` (see :ref:`copying-safe-copy`).
