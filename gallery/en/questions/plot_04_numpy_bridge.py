"""
.. _questions-numpy-bridge:

The NumPy bridge: "Can't call numpy() on Tensor that requires grad"
===================================================================

.. admonition:: Answer
   :class: answer

   With grad mode on, ``numpy()`` refuses a tensor that requires grad, and the array
   ``x.detach().numpy()`` returns shares ``x``'s memory: writing into it changes ``x`` without
   autograd noticing. Copy it before writing:

   .. code-block:: python

      edited = x.detach().numpy().copy()
      edited[0] = 100.0

``RuntimeError: Can't call numpy() on Tensor that requires grad. Use
tensor.detach().numpy() instead.`` (`pytorch/pytorch#44023
<https://github.com/pytorch/pytorch/issues/44023>`__). The suggested fix works,
and the array it returns shares memory with the tensor. This page shows which
conversions between NumPy and torch share memory and which copy, and how a
write through NumPy changes a gradient without autograd noticing.
"""

# %%
# Helpers
# -------
#
# ``shares`` compares the address of a tensor's first element with the
# address of an array's first element: equal addresses mean one memory.
import signal
import warnings

import numpy as np
import torch
import torch.multiprocessing


def shares(t, array):
    return t.data_ptr() == array.__array_interface__["data"][0]


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
# With grad mode on, a tensor that requires grad refuses to become a NumPy
# array, because NumPy would let you read and change it outside autograd.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    a.numpy()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("numpy() on a tensor that requires grad must raise")
assert message == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.", (
    "numpy() refuses a tensor that requires grad and suggests tensor.detach().numpy()"
)

# %%
# On a dense CPU tensor (not a nested one) of no more dimensions than NumPy allows (64 in NumPy 2, the NumPy of
# the site's build) and of a dtype NumPy has, with neither the conjugate nor the negative bit set, and outside a
# function transformed by ``torch.func``, the suggested ``detach().numpy()`` returns an array over the tensor's own memory, and so does
# ``numpy(force=True)``: neither copies. (With one of those bits set, ``detach().numpy()`` raises and
# ``numpy(force=True)`` copies: see below. On a tensor of more dimensions, both raise ``ValueError``, and so does
# ``np.asarray``. On a ``bfloat16`` or
# float8 tensor, or a sparse one made by ``to_sparse()``, both raise ``TypeError``; on a nested tensor, on an
# instance of a tensor subclass that defines ``__torch_dispatch__`` (a subclass without it is fine), and on
# the tensor a function receives inside ``torch.func.vmap`` or ``torch.func.grad``, both raise as well.)
# :fact:`detach-numpy-needs-plain-dense`
view = a.detach().numpy()
forced = a.numpy(force=True)
print("detach().numpy():", view, " shares a's memory:", shares(a, view))
print("numpy(force=True):", forced, " shares a's memory:", shares(a, forced))
assert shares(a, view) and shares(a, forced), "both arrays use a's memory"
# sphinx_gallery_start_ignore
numpy_dtypes = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16,
                torch.uint32, torch.uint64, torch.float16, torch.float64, torch.complex64, torch.complex128)
for typed in [torch.ones(3, dtype=dtype) for dtype in numpy_dtypes]:
    assert shares(typed, typed.detach().numpy()) and shares(typed, typed.numpy(force=True)), (
        f"detach().numpy() and numpy(force=True) of a {typed.dtype} tensor must use its memory")
no_array = {"bfloat16": torch.ones(3, dtype=torch.bfloat16), "float8": torch.ones(3).to(torch.float8_e4m3fn),
            "sparse": torch.ones(3).to_sparse()}
for kind, refused_source in no_array.items():
    try:
        shares(refused_source, refused_source.numpy(force=True))
    except TypeError as refusal:
        assert "unsupported ScalarType" in str(refusal) or "Sparse layout" in str(refusal), (
            f"numpy(force=True) of a {kind} tensor is refused for its dtype or its sparse layout")
    else:
        raise AssertionError(f"numpy(force=True) on a {kind} tensor must raise TypeError")
try:
    shares(no_array["sparse"], np.asarray(no_array["sparse"]))
except TypeError as refusal:
    assert "Sparse layout" in str(refusal), "np.asarray refuses a sparse tensor for its sparse layout"
else:
    raise AssertionError("np.asarray on a sparse tensor must raise TypeError")
try:
    shares(no_array["sparse"], no_array["sparse"].detach().numpy())
except TypeError as refusal:
    assert "Sparse layout" in str(refusal), "detach().numpy() refuses a sparse tensor for its sparse layout"
else:
    raise AssertionError("detach().numpy() on a sparse tensor must raise TypeError")


def no_array_refusals(t):
    """What detach().numpy(), numpy(force=True) and np.asarray(t.detach()) raise on t (None where one works)."""
    refusals_ = []
    try:
        type(t.detach().numpy())
        refusals_.append(None)
    except (RuntimeError, TypeError) as refusal_:
        refusals_.append(type(refusal_))
    try:
        type(t.numpy(force=True))
        refusals_.append(None)
    except (RuntimeError, TypeError) as refusal_:
        refusals_.append(type(refusal_))
    try:
        type(np.asarray(t.detach()))
        refusals_.append(None)
    except (RuntimeError, TypeError) as refusal_:
        refusals_.append(type(refusal_))
    return refusals_


eye_ = torch.eye(2)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # torch warns that nested tensors and compressed layouts are new
    sparse_ = [eye_.to_sparse(), eye_.to_sparse_csr(), eye_.to_sparse_csc(), eye_.to_sparse_bsr((1, 1)),
               eye_.to_sparse_bsc((1, 1))]
    nested_ = [torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=layout_)
               for layout_ in (torch.strided, torch.jagged)]
float8_ = [torch.float8_e5m2, torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.float8_e4m3fnuz]
if torch.__version__ >= "2.7":  # torch.float8_e8m0fnu exists from torch 2.7 on
    float8_.append(torch.float8_e8m0fnu)
assert all(
    no_array_refusals(source_) == [TypeError] * 3
    for source_ in [torch.ones(3, dtype=torch.bfloat16)] + [torch.ones(3).to(dtype_) for dtype_ in float8_] + sparse_
), "detach().numpy(), numpy(force=True) and np.asarray raise TypeError on bfloat16, every float8 dtype and every sparse layout"
assert all(None not in no_array_refusals(nested_tensor_) for nested_tensor_ in nested_), (
    "detach().numpy(), numpy(force=True) and np.asarray raise on a nested tensor of either layout")
received_refusals_ = []


def refusals_inside(t):
    received_refusals_.append(no_array_refusals(t))
    return t.sum()


torch.func.vmap(refusals_inside)(torch.ones(2, 3))
torch.func.grad(refusals_inside)(torch.ones(3))
assert len(received_refusals_) == 2 and all(None not in found_ for found_ in received_refusals_), (
    "inside torch.func.vmap and torch.func.grad, detach().numpy(), numpy(force=True) and np.asarray raise on the "
    "tensor the function receives")
numpy_max_dims_ = 64 if int(np.__version__.split(".")[0]) >= 2 else 32
assert all(shares(deep_, deep_.detach().numpy()) and shares(deep_, deep_.numpy(force=True))
           and shares(deep_, np.asarray(deep_))
           for deep_ in (torch.ones([1] * numpy_max_dims_), torch.ones([2] * 6 + [1] * (numpy_max_dims_ - 6)))), (
    "detach().numpy(), numpy(force=True) and np.asarray share the memory of a tensor of as many dimensions as "
    "NumPy allows (64 in NumPy 2, 32 in NumPy 1)")
for too_deep_call_ in (lambda t: type(t.detach().numpy()), lambda t: type(t.numpy(force=True)),
                       lambda t: type(np.asarray(t))):
    try:
        too_deep_call_(torch.ones([1] * (numpy_max_dims_ + 1)))
    except ValueError:
        pass
    else:
        raise AssertionError("detach().numpy(), numpy(force=True) and np.asarray on a tensor of more dimensions than "
                             "NumPy allows must raise ValueError")
# sphinx_gallery_end_ignore

# %%
# The refusal holds only where ``torch.is_grad_enabled()`` is ``True``: with grad mode on, and also inside
# ``torch.inference_mode()`` under ``torch.enable_grad()``. Under ``torch.no_grad()`` and under
# ``torch.inference_mode()``, with no ``torch.enable_grad()`` inside them, ``numpy()`` and ``np.asarray`` take a
# tensor that requires grad and return an array over its memory, with no ``detach()``: a write through that array changes
# the tensor and leaves its ``_version`` where it was, as in the section on writes below.
for mode in (torch.no_grad, torch.inference_mode):
    b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with mode():
        through_numpy = b.numpy()
        through_asarray = np.asarray(b)
        through_numpy[0] = 100.0
    print(f"{mode.__name__}: numpy() shares b's memory:", shares(b, through_numpy),
          " np.asarray shares b's memory:", shares(b, through_asarray))  # fmt: skip
    print(f"{mode.__name__}: b:", b, " b._version:", b._version)
    assert shares(b, through_numpy) and shares(b, through_asarray) and b[0] == 100.0 and b._version == 0, (
        f"under {mode.__name__}, numpy() and np.asarray must share b's memory and the write must not be counted")
# sphinx_gallery_start_ignore
grad_b_ = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for mode_ in (torch.no_grad, torch.inference_mode):
    with mode_(), torch.enable_grad():
        assert torch.is_grad_enabled(), "torch.enable_grad() turns is_grad_enabled() on inside no_grad and inference_mode"
        try:
            grad_b_.numpy()
        except RuntimeError as e:
            assert "requires grad" in str(e), "with enable_grad inside no_grad or inference_mode, numpy() refuses"
        else:
            raise AssertionError("with enable_grad inside no_grad or inference_mode, numpy() must refuse")
        try:
            np.asarray(grad_b_)
        except RuntimeError as e:
            assert "requires grad" in str(e), "with enable_grad inside no_grad or inference_mode, np.asarray refuses"
        else:
            raise AssertionError("with enable_grad inside no_grad or inference_mode, np.asarray must refuse")
# sphinx_gallery_end_ignore

# %%
# Which conversions share, which copy
# -----------------------------------
#
# From NumPy to torch, ``torch.from_numpy`` and ``torch.as_tensor`` share the
# array's memory when torch has its dtype (on a dtype torch lacks, such as ``object``
# or ``datetime64``, they raise ``TypeError``. ``torch.from_numpy``, ``torch.as_tensor``, ``torch.asarray``
# and ``torch.tensor`` all raise it too on an array of NumPy's ``ulonglong`` type (dtype char ``"Q"``), although
# its dtype prints as ``uint64`` and equals ``np.dtype(np.uint64)``, which on Linux is ``ulong`` (``"L"``):
# ``array.view(np.uint64)`` gives an array they share, without a copy, and ``torch.from_dlpack`` shares it as
# it is. Three more kinds of array they refuse follow.) Given no ``device=`` argument, under a default device other than ``"cpu"`` (set by
# ``torch.set_default_device`` or ``with torch.device(...)``), even ``"cpu:0"``, ``torch.as_tensor`` does not
# share the array's memory (it copies the array: under ``"cpu:0"`` into a tensor whose device is ``cpu``; on ``meta``
# it gives a tensor with no values)
# while ``torch.from_numpy`` still shares it. A ``device=`` argument decides instead of the default device:
# ``torch.as_tensor`` does not share when it names a device other than ``"cpu"``, even ``"cpu:0"``, and
# shares with ``device="cpu"``, under any default device. ``torch.asarray`` does as ``torch.as_tensor``
# does in each of these cases, except on a 0-d array (``np.array(5.0)``), whose memory it never shares:
# even with ``device="cpu"`` and ``copy=False`` it returns a copy and does not raise.
# ``torch.tensor`` copies. ``torch.from_dlpack`` shares too: an edit of its tensor shows
# in the array below, and its tensor uses the memory of an array that is not flipped, whole or sliced
# (``[::2]``), in native byte order, of each dtype DLPack carries (``bool``, the signed and unsigned
# integers of 8 to 64 bits, ``float16``, ``float32``, ``float64``, ``complex64`` and ``complex128``). It
# refuses with ``BufferError`` an array in the other byte order (``">f4"``), an ``object`` or
# ``datetime64`` array, and the ``float32`` field ``"a"`` of the packed record
# ``[("a", "<f4"), ("b", "i1")]``, whose stride of 5 bytes is not a multiple of its element size. It
# takes the ``int8`` field ``"b"`` of the same record, whose stride is a multiple of its element size,
# and its tensor uses the field's memory. (A flipped array is another matter, below.) From torch to
# NumPy, ``Tensor.numpy()`` and ``np.asarray`` share; ``np.array`` copies, and with this NumPy it also
# warns, because ``Tensor.__array__`` does not take NumPy 2's ``copy`` keyword. We catch the warning to
# show it.
# :fact:`default-device-makes-as-tensor-copy`
array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
print("torch.from_numpy(array) shares:", shares(torch.from_numpy(array), array))
print("torch.as_tensor(array) shares: ", shares(torch.as_tensor(array), array))
print("torch.tensor(array) shares:    ", shares(torch.tensor(array), array))
dlpack_array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
via_dlpack = torch.from_dlpack(dlpack_array)
via_dlpack[0] = 42.0
print("torch.from_dlpack(array) shares:", shares(via_dlpack, dlpack_array), " after via_dlpack[0] = 42.0 the array holds:",
      dlpack_array)
with torch.device("cpu:0"):
    on_default_device = torch.as_tensor(array), torch.from_numpy(array)
print('under torch.device("cpu:0"): torch.as_tensor(array) shares:', shares(on_default_device[0], array),
      " torch.from_numpy(array) shares:", shares(on_default_device[1], array))
t = torch.tensor([1.0, 2.0, 3.0])
print("t.numpy() shares:              ", shares(t, t.numpy()))
print("np.asarray(t) shares:          ", shares(t, np.asarray(t)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    copied = np.array(t)
print("np.array(t) shares:            ", shares(t, copied))
print("np.array(t) warned:", [f"{w.category.__name__}: {w.message}" for w in caught])
assert not shares(torch.tensor(array), array) and not shares(t, copied), "torch.tensor and np.array copy"
# sphinx_gallery_start_ignore
assert shares(torch.from_numpy(array), array) and shares(torch.as_tensor(array), array), (
    "torch.from_numpy and torch.as_tensor share the array's memory")
assert not shares(on_default_device[0], array) and shares(on_default_device[1], array), (
    "under a default device torch.as_tensor copies and torch.from_numpy shares")
assert torch.equal(on_default_device[0], torch.from_numpy(array)), 'under "cpu:0" torch.as_tensor copies the values'
assert str(on_default_device[0].device) == "cpu", 'under "cpu:0" the copy torch.as_tensor makes has the device cpu'
assert shares(torch.asarray(array), array), "torch.asarray shares the array's memory, as torch.as_tensor does"
for convert_ in (torch.as_tensor, torch.asarray):
    assert shares(convert_(array, device="cpu"), array) and not shares(convert_(array, device="cpu:0"), array), (
        'torch.as_tensor and torch.asarray share the array\'s memory with device="cpu" and copy it with device="cpu:0"')
    for default_device_ in ("cpu:0", "meta"):
        with torch.device(default_device_):
            assert shares(convert_(array, device="cpu"), array), (
                'under any default device, torch.as_tensor and torch.asarray with device="cpu" share the array\'s memory')
            assert not shares(convert_(array, device="cpu:0"), array) and convert_(array, device="meta").is_meta, (
                'under any default device, torch.as_tensor and torch.asarray copy the array with device="cpu:0" '
                'and give a meta tensor with device="meta"')
with torch.device("cpu:0"):
    assert not shares(torch.asarray(array), array), 'under the default device "cpu:0" torch.asarray copies, as torch.as_tensor does'
with torch.device("meta"):
    assert torch.asarray(array).is_meta, "under the default device meta torch.asarray gives a meta tensor, as torch.as_tensor does"
with torch.device("meta"):
    on_meta_default_ = torch.as_tensor(array), torch.from_numpy(array)
assert on_meta_default_[0].is_meta and on_meta_default_[1].device.type == "cpu" and shares(on_meta_default_[1], array), (
    "under the default device meta torch.as_tensor gives a meta tensor and torch.from_numpy still shares")
assert shares(t, t.numpy()) and shares(t, np.asarray(t)), "t.numpy() and np.asarray(t) share t's memory"
assert shares(via_dlpack, dlpack_array) and dlpack_array[0] == via_dlpack[0] == 42.0, (
    "torch.from_dlpack shares the array's memory: an edit of the tensor shows in the array")
for dlpack_dtype_shared in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                           "float16", "float32", "float64", "complex64", "complex128"):
    dlpack_whole = array.astype(dlpack_dtype_shared)
    assert shares(torch.from_dlpack(dlpack_whole), dlpack_whole) and shares(
        torch.from_dlpack(dlpack_whole[::2]), dlpack_whole[::2]
    ), "torch.from_dlpack uses the memory of an unflipped array, whole or sliced, of each dtype DLPack carries"
packed_record = array.astype([("a", "<f4"), ("b", "i1")])
assert packed_record["a"].strides == packed_record["b"].strides == (5,), (
    "each field of the packed record steps 5 bytes")
assert shares(torch.from_dlpack(packed_record["b"]), packed_record["b"]), (
    "torch.from_dlpack uses the memory of the int8 field of a packed float32 and int8 record")
for dlpack_refused_array in (array.astype(">f4"), packed_record["a"],
                             array.astype(object), array.astype("int64").astype("datetime64[s]")):
    try:
        torch.from_dlpack(dlpack_refused_array)
    except BufferError as refusal:
        assert "DLPack only supports" in str(refusal), "NumPy says which arrays DLPack takes"
    else:
        raise AssertionError("from_dlpack of an array in the other byte order, the float32 field of a packed "
                             "float32 and int8 record, or an object or datetime64 array must raise BufferError")
assert not shares(torch.as_tensor(array, dtype=torch.float64), array), "a dtype change forces a copy"
assert [record.category for record in caught] == (
    [DeprecationWarning] if int(np.__version__.split(".")[0]) >= 2 else []
), "np.array(t) warns once with NumPy 2 (its copy keyword), never with NumPy 1"
import inspect

assert "copy" not in inspect.signature(torch.Tensor.__array__).parameters and all(
    "doesn't accept a copy keyword" in str(record.message) for record in caught
), "Tensor.__array__ takes no copy keyword, which is what NumPy 2 warns about"
for lacking in (object, "datetime64[D]"):
    for from_array in (torch.from_numpy, torch.as_tensor):
        try:
            from_array(np.array(["2020-01-01"], dtype=lacking))
        except TypeError as refusal:
            assert "can't convert np.ndarray" in str(refusal), (
                f"{from_array.__name__} says it can't convert a {lacking} array")
        else:
            raise AssertionError(f"{from_array.__name__} of a {lacking} array must raise TypeError")
for zero_d_dtype_ in ("float32", "float64", "int64", "bool", "complex64"):
    zero_d_ = np.array(5, dtype=zero_d_dtype_).copy()
    assert shares(torch.from_numpy(zero_d_), zero_d_) and shares(torch.as_tensor(zero_d_), zero_d_) and shares(
        torch.as_tensor(zero_d_, device="cpu"), zero_d_), "torch.from_numpy and torch.as_tensor share a 0-d array's memory"
    assert not any(shares(torch.asarray(zero_d_, **options_), zero_d_) for options_ in (
        {}, {"device": "cpu"}, {"copy": False}, {"device": "cpu", "copy": False})), (
        "torch.asarray never shares a 0-d array's memory")
    for default_device_ in ("cpu", "cpu:0", "meta"):
        with torch.device(default_device_):
            assert not any(shares(torch.asarray(zero_d_, **options_), zero_d_) for options_ in (
                {}, {"device": "cpu"}, {"device": "cpu", "copy": False})), (
                "under any default device, torch.asarray never shares a 0-d array's memory")
            from_zero_d_ = torch.asarray(zero_d_, device="cpu", copy=False)
        assert from_zero_d_.device.type == "cpu" and not shares(from_zero_d_, zero_d_) and torch.equal(
            from_zero_d_, torch.from_numpy(zero_d_)), (
            'under any default device, torch.asarray(a 0-d array, device="cpu", copy=False) returns a copy without raising')
for shared_dtype_ in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                      "float16", "float64", "complex64", "complex128"):
    typed_array_ = array.astype(shared_dtype_)
    assert all(shares(convert_(typed_array_), typed_array_) for convert_ in (torch.from_numpy, torch.as_tensor,
                                                                             torch.asarray)), (
        "torch.from_numpy, torch.as_tensor and torch.asarray share the memory of an array of each dtype torch has")
    typed_tensor_ = torch.from_numpy(typed_array_).clone()
    assert shares(typed_tensor_, np.asarray(typed_tensor_)), "np.asarray shares the memory of a tensor of each dtype NumPy has"
ulonglong_array_ = array.astype("Q")
assert ulonglong_array_.dtype.char == "Q" and ulonglong_array_.dtype == "uint64" and array.astype("uint64").dtype.char == "L", (
    'a ulonglong array\'s dtype ("Q") equals np.dtype(np.uint64), which is ulong ("L")')
for convert_ in (torch.from_numpy, torch.as_tensor, torch.asarray, torch.tensor):
    try:
        convert_(ulonglong_array_)
    except TypeError as refusal:
        assert "numpy.ulonglong" in str(refusal), "the refusal names numpy.ulonglong"
    else:
        raise AssertionError(f"{convert_.__name__} of a ulonglong array must raise TypeError")
assert all(shares(convert_(ulonglong_array_.view("uint64")), ulonglong_array_) for convert_ in (
    torch.from_numpy, torch.as_tensor, torch.asarray)) and shares(torch.from_dlpack(ulonglong_array_), ulonglong_array_), (
    "torch.from_numpy, torch.as_tensor and torch.asarray share a ulonglong array viewed as np.uint64, "
    "and torch.from_dlpack shares it as it is")
# sphinx_gallery_end_ignore

# %%
# A flipped array: "At least one stride in the given numpy array is negative"
# ---------------------------------------------------------------------------
#
# Flipping an axis in NumPy (``np.flip``, or ``image[..., ::-1]`` to turn OpenCV's BGR into RGB)
# makes a view with a negative stride. torch has no negative strides, and the four constructors
# ``torch.from_numpy``, ``torch.as_tensor``, ``torch.tensor`` and ``torch.asarray`` refuse
# such an array of a dtype torch has, unless it is empty, with ``ValueError``: ``torch.tensor`` too, though it would copy
# anyway. They refuse an array in the other byte order (``">f4"`` here) as well, and one whose strides
# are not a multiple of its element size, such as the ``float32`` field of the packed record above.
# ``torch.from_dlpack`` refuses a flipped array in the other byte order, or of a dtype DLPack lacks such
# as ``datetime64``, with ``BufferError``, but not one in native byte order of a dtype DLPack carries: on
# torch 2.13.0 it aborts the process on such an array flipped along an axis of two or more elements, and
# takes one flipped along an axis of one element, such as ``np.arange(1.0)[::-1]``, or an empty one. So
# the last lines below call it in forked children; the exit code ``-signal.SIGABRT`` is the abort. Copy the array before handing it to DLPack.
# :fact:`from-dlpack-aborts-on-flipped-array`

image = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
odd_arrays = {
    "image[..., ::-1]": image[..., ::-1],
    "np.flip(image, 0)": np.flip(image, 0),
    "np.arange(1.0)[::-1]": np.arange(1.0)[::-1],
    "image.astype('>f4')": image.astype(">f4"),
    "packed['a']": np.zeros(3, dtype=[("a", "<f4"), ("b", "i1")])["a"],
}
constructors = (torch.from_numpy, torch.as_tensor, torch.tensor, torch.asarray)
for name, odd in odd_arrays.items():
    messages = set()
    for convert in constructors:
        try:
            convert(odd)
        except ValueError as e:
            messages.add(str(e).split(",")[0])
        else:
            raise AssertionError(f"{convert.__name__} must refuse {name}")
    (message,) = messages
    print(f"{name}: all four raise ValueError: {message}")
empty = np.arange(0.0)[::-1]
print("an empty flipped array is taken by all four:", all(convert(empty).numel() == 0 for convert in constructors))
assert all(convert(empty).numel() == 0 for convert in constructors), "an empty flipped array is taken"
# sphinx_gallery_start_ignore
for torch_has_ in ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16",
                   "float32", "float64", "complex64", "complex128"):
    for convert_ in constructors:
        try:
            convert_(np.array([1, 0], dtype=torch_has_).copy()[::-1])
        except ValueError as e:
            assert "negative" in str(e), "a flipped array of each dtype torch has is refused for its negative stride"
        else:
            raise AssertionError("each of the four constructors must refuse a flipped array of each dtype torch has")
        assert convert_(np.array([], dtype=torch_has_).copy()[::-1]).numel() == 0, (
            "each of the four constructors takes an empty flipped array of each dtype torch has")
# sphinx_gallery_end_ignore

exit_codes = {}
for name, flipped in {"image[..., ::-1]": image[..., ::-1], "np.arange(1.0)[::-1]": np.arange(1.0)[::-1],
                      "np.arange(0.0)[::-1]": empty}.items():
    child = torch.multiprocessing.get_context("fork").Process(target=torch.from_dlpack, args=(flipped,))
    child.start()
    child.join(10)
    exit_codes[name] = child.exitcode
    print(f"torch.from_dlpack({name}) in a forked child, exit code:", child.exitcode)
assert list(exit_codes.values()) == [-signal.SIGABRT, 0, 0], (
    "from_dlpack aborts the process on image[..., ::-1] and takes the one-element and the empty flipped array")
# sphinx_gallery_start_ignore
for dlpack_dtype in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                     "float32", "float64", "complex64", "complex128"):
    for length, dlpack_exit in ((6, -signal.SIGABRT), (1, 0), (0, 0)):
        dlpack_child = torch.multiprocessing.get_context("fork").Process(
            target=torch.from_dlpack, args=(image.astype(dlpack_dtype).reshape(-1)[:length][::-1],))
        dlpack_child.start()
        dlpack_child.join(10)
        assert dlpack_child.exitcode == dlpack_exit, (
            "from_dlpack aborts the process on a flipped array of six elements of each dtype DLPack carries, "
            "in native byte order, and takes one of one element or an empty one")
for refused_dtype in (">i2", ">u2", ">i4", ">u4", ">i8", ">u8", ">f2", ">f4", ">f8", ">c8", ">c16",
                      "datetime64[s]", "timedelta64[s]", "U1", object):
    try:
        torch.from_dlpack(image.astype("int64").astype(refused_dtype).reshape(-1)[:6][::-1])
    except BufferError as refusal:
        assert "DLPack only supports" in str(refusal), "NumPy says which arrays DLPack takes"
    else:
        raise AssertionError("from_dlpack of a flipped array in the other byte order or of a dtype DLPack lacks "
                             "must raise BufferError")
# sphinx_gallery_end_ignore

# %%
# The refusal does not depend on the dtype, and no option of the constructors lifts it: five more
# dtypes flipped and five more byte orders, each tried with the four constructors and with ``copy=True``
# or a ``dtype``.


def refuses(convert, array, **options):
    try:
        convert(array, **options)
    except ValueError:
        return True
    return False


others = [np.array([1, 0, 1], dtype=flipped_dtype)[::-1] for flipped_dtype in ("int64", "bool", "complex64", "float16", "uint8")]
others += [np.array([1, 0, 1], dtype=order) for order in (">f8", ">i8", ">i4", ">c8", ">f2")]
tries = [(convert, {}) for convert in constructors] + [
    (torch.asarray, {"copy": True}),
    (torch.asarray, {"dtype": torch.float64}),
    (torch.tensor, {"dtype": torch.float64}),
    (torch.as_tensor, {"dtype": torch.float64}),
]
every_refusal = all(refuses(convert, odd, **options) for odd in others for convert, options in tries)
print(f"{len(others)} arrays x {len(tries)} calls, all refused: {every_refusal}")
assert every_refusal, "every dtype, byte order and option is refused"

# %%
# The fix is a copy with positive strides: made by NumPy (``.copy()`` or ``np.ascontiguousarray``),
# or made by torch, flipping the tensor of the unflipped array (``flip`` copies, since torch has no
# negative strides). Each result holds the flipped values in memory of its own, so a write into it
# leaves ``image`` as it was.

flipped_values = image[..., ::-1].tolist()
fixes = {
    "torch.from_numpy(image[..., ::-1].copy())": lambda: torch.from_numpy(image[..., ::-1].copy()),
    "torch.from_numpy(np.ascontiguousarray(image[..., ::-1]))": lambda: torch.from_numpy(
        np.ascontiguousarray(image[..., ::-1])
    ),
    "torch.from_numpy(image).flip(-1)": lambda: torch.from_numpy(image).flip(-1),
}
for name, fix in fixes.items():
    fixed = fix()
    same_values = fixed.tolist() == flipped_values
    fixed[0, 0, 0] = -1.0
    untouched = bool((image >= 0).all())
    print(f"{name}: the flipped values {same_values}, image untouched after a write {untouched}")
    assert same_values and untouched, f"{name} is a flipped copy"
# sphinx_gallery_start_ignore
assert all(convert_(packed_record["a"].copy()).tolist() == [1.0, 2.0, 3.0] for convert_ in constructors), (
    "the four constructors take a NumPy copy of the float32 field of a packed record")
# sphinx_gallery_end_ignore

# %%
# For an array in the other byte order a copy is not enough: ``.copy()`` and ``np.ascontiguousarray``
# keep its dtype, ``">f4"``, byte order included, and the four constructors refuse the copy as well.
# ``array.astype(array.dtype.newbyteorder("="))`` converts it to native byte order, which they take.

big_endian = image.astype(">f4")
copies = {".copy()": big_endian.copy(), "np.ascontiguousarray": np.ascontiguousarray(big_endian)}
for name, copied in copies.items():
    print(f"{name}: dtype {copied.dtype.str}, refused by all four: {all(refuses(c, copied) for c in constructors)}")
native = big_endian.astype(big_endian.dtype.newbyteorder("="))
print("astype(dtype.newbyteorder('=')): dtype", native.dtype.str, " the values of image:",
      torch.equal(torch.from_numpy(native), torch.from_numpy(image)))  # fmt: skip
assert all(refuses(c, copied) for copied in copies.values() for c in constructors) and torch.equal(
    torch.from_numpy(native), torch.from_numpy(image)
), "a NumPy copy keeps the byte order; astype(dtype.newbyteorder('=')) converts it"
# sphinx_gallery_start_ignore
for order_ in [big_endian, big_endian[..., ::-1]] + others[5:]:
    for kept_ in (order_.copy(), order_.astype(order_.dtype)):
        assert kept_.dtype == order_.dtype and all(refuses(convert_, kept_) for convert_ in constructors), (
            "a NumPy copy of an array in the other byte order keeps its dtype, and the four constructors refuse it")
    native_ = order_.astype(order_.dtype.newbyteorder("="))
    assert all(convert_(native_).tolist() == order_.tolist() for convert_ in constructors), (
        'the four constructors take array.astype(array.dtype.newbyteorder("=")), with the array\'s values')
assert shares(torch.from_numpy(native), native), "torch.from_numpy shares the converted array's memory"
# sphinx_gallery_end_ignore

# %%
# Writing into an array, rebinding it, and ``tolist()``
# -----------------------------------------------------
#
# The rule the articles give for tensors (:ref:`copying-add-rebinding`) holds for a NumPy array a
# tensor shares: ``array += 1`` writes into the shared memory, so the tensor changes, while
# ``array = array + 1`` makes a new array and points the name at it, a rebinding, so the tensor keeps
# the old values. ``tolist()`` copies the values into Python numbers: a later edit of the tensor does not
# reach the list.

array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
shared = torch.from_numpy(array)
array += 1
print("after array += 1:       ", shared)
assert shared.tolist() == [2.0, 3.0, 4.0], "+= writes into the memory the tensor shares"
array = array + 1
print("after array = array + 1:", shared, " array:", array)
assert shared.tolist() == [2.0, 3.0, 4.0] and array.tolist() == [3.0, 4.0, 5.0], "the name moved, the tensor did not"
values = shared.tolist()
shared.mul_(10)
print("tolist() before shared.mul_(10):", values)
assert values == [2.0, 3.0, 4.0], "tolist() kept [2, 3, 4] after shared.mul_(10)"

# %%
# Conversions that copy on the CPU as well
# ----------------------------------------
#
# Asking for another dtype copies, in both directions. A complex tensor with the conjugate bit
# set, as ``conj()`` returns it, has no NumPy equivalent: ``numpy()`` raises, and
# ``numpy(force=True)`` resolves the bit into a copy.
wide = torch.as_tensor(array, dtype=torch.float64)
print("torch.as_tensor(array, dtype=torch.float64) shares:", shares(wide, array))
print("np.asarray(t, dtype=np.float64) shares:", shares(t, np.asarray(t, dtype=np.float64)))
z = torch.tensor([1 + 2j, 3 - 1j]).conj()
try:
    z.numpy()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("numpy() on a tensor with the conjugate bit set must raise")
resolved = z.numpy(force=True)
print("z.is_conj():", z.is_conj(), " z.numpy(force=True):", resolved, " shares:", shares(z, resolved))
assert not shares(wide, array) and not shares(z, resolved), "a dtype change and a conjugate bit copy"
# sphinx_gallery_start_ignore
assert not shares(t, np.asarray(t, dtype=np.float64)), "np.asarray with another dtype copies"
assert z.is_conj() and torch.equal(torch.from_numpy(resolved), z.resolve_conj()), "force=True resolves the bit"
try:
    np.asarray(z)
except RuntimeError as e:
    assert "conjugate bit set" in str(e), "np.asarray refuses a conjugate-bit tensor like numpy()"
else:
    raise AssertionError("np.asarray of a conjugate-bit tensor must raise")
# sphinx_gallery_end_ignore

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    A CUDA tensor has no NumPy array over its memory: ``numpy()`` raises and points to
#    ``Tensor.cpu()``, and ``numpy(force=True)`` copies to host memory. The cell below checks this
#    only where torch finds a GPU; the box's title says whether the site's build did.

if torch.cuda.is_available():
    g = torch.tensor([1.0, 2.0, 3.0], device="cuda")
    try:
        g.numpy()
    except TypeError as e:
        gpu_message = str(e)
        print(f"{type(e).__name__}: {e}")
    else:
        raise AssertionError("numpy() on a CUDA tensor must raise")
    host = g.numpy(force=True)
    print("g.numpy(force=True):", host)
    assert "Tensor.cpu()" in gpu_message and np.array_equal(host, g.cpu().numpy()), "points to cpu(); force copies"
    print("GPU checks passed on:", torch.cuda.get_device_name())

# %%
# Tensors ``np.asarray`` refuses
# ------------------------------
#
# ``np.asarray`` shares only what NumPy can take as it is. With grad mode on, as here, it raises
# on a tensor that requires grad (as ``numpy()`` does; under ``torch.no_grad()`` both take it, as
# shown above). It raises on a ``bfloat16`` tensor (NumPy has no such dtype), and on a tensor
# with the negative bit set, as ``conj().imag`` returns it; ``numpy(force=True)`` resolves that bit
# into a copy.

refused = {
    "requires grad": torch.ones(3, requires_grad=True),
    "bfloat16": torch.ones(3, dtype=torch.bfloat16),
    "negative bit, conj().imag": torch.tensor([1 + 2j, 3 - 1j]).conj().imag,
}
for name, x in refused.items():
    try:
        np.asarray(x)
    except (RuntimeError, TypeError) as e:
        print(f"np.asarray, {name}: {type(e).__name__}: {e}")
    else:
        raise AssertionError(f"np.asarray of a tensor with {name} must raise")
negative = refused["negative bit, conj().imag"]
print("negative.is_neg():", negative.is_neg(), " numpy(force=True):", negative.numpy(force=True))
# sphinx_gallery_start_ignore
assert negative.is_neg() and not shares(negative, negative.numpy(force=True)), "force=True resolves the bit"
assert np.array_equal(negative.numpy(force=True), np.array([-2.0, 1.0], dtype=np.float32)), (
    "numpy(force=True) of conj().imag holds [-2, 1]")
try:
    negative.numpy()
except RuntimeError as e:
    assert "negative bit set" in str(e), "numpy() refuses a negative-bit tensor"
else:
    raise AssertionError("numpy() on a tensor with the negative bit set must raise")
# sphinx_gallery_end_ignore

# %%
# A write through NumPy is invisible to autograd
# ----------------------------------------------
#
# ``z = w * x`` saves ``x`` to compute the gradient of ``w``. An in-place edit
# of ``x`` in torch would move ``x._version`` and ``backward()`` would raise
# (see :ref:`questions-inplace-error`). The same edit through ``x.numpy()``
# does not move the counter: ``backward()`` runs and uses the edited value.
# Calculus says ``d/dw sum(w * x) = x`` as it was when multiplied,
# ``[4, 5, 6]``; the gradient we get is not that.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
x.numpy()[0] = 100.0
print("x:", x, " x._version:", x._version)
z.sum().backward()
print("w.grad:", w.grad)
assert x._version == 0 and w.grad[0] == 100.0, "the NumPy write went unseen and changed the gradient"

# %%
# .. figure-caption::
#    :alt: Diagram: the names x and w.grad point to two tensor objects on two storages; x holds 100.0, 5.0, 6.0 at _version=0, and w.grad holds 100.0, 5.0, 6.0.
#
#    ``x`` holds ``100.0`` and is still at ``_version=0``: the write through NumPy was not counted,
#    and ``w.grad`` took the edited value.

draw_memory("x.numpy()[0] = 100.0; z.sum().backward()", x=x, **{"w.grad": w.grad})

# %%
# The fix
# -------
#
# Write into a copy: ``x.detach().numpy().copy()`` is an array of its own,
# so the tensor autograd saved keeps its values, and the gradient is the one
# calculus gives. ``x`` does not require grad; ``detach()`` makes the same
# line work for a tensor that does.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
edited = x.detach().numpy().copy()
edited[0] = 100.0
z.sum().backward()
print("x:", x, " edited:", edited)
print("w.grad:", w.grad)
assert torch.equal(w.grad, torch.tensor([4.0, 5.0, 6.0])), "the gradient uses x as it was"
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.func.grad(lambda v: (v * torch.tensor([4.0, 5.0, 6.0])).sum())(w.detach())), (
    "w.grad is what torch.func.grad computes from x's old values")
assert not shares(w, w.detach().numpy().copy()), "the same line copies a tensor that requires grad"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# On a nested tensor, on an instance of a tensor subclass that defines ``__torch_dispatch__``, and on the
# tensor a function receives inside ``torch.func.vmap`` or ``torch.func.grad``, ``detach().numpy()``,
# ``numpy(force=True)`` and ``np.asarray`` raise; what follows is about other tensors,
# outside a function transformed by ``torch.func``. For a dense CPU tensor of no more dimensions than NumPy allows
# (64 in NumPy 2, the NumPy of the site's build; on one of more, ``detach().numpy()``, ``numpy(force=True)`` and
# ``np.asarray`` raise ``ValueError``) and an array of the same dtype,
# ``detach().numpy()``,
# ``numpy(force=True)``, ``torch.from_numpy``, ``torch.as_tensor`` and ``torch.asarray`` (the last two unless
# their ``device=`` argument names a device other than ``"cpu"``, even ``"cpu:0"``, or, given no ``device=``, a
# default device other than ``"cpu"`` is set; ``torch.asarray`` also copies a 0-d array) share memory, and so does ``np.asarray`` on a tensor that does not require grad;
# ``torch.tensor`` and ``np.array`` copy. A flipped array that is not empty, one in the other byte order,
# one whose strides are not a multiple of its element size (such as the ``float32`` field of a packed
# record of a ``float32`` and an ``int8``), or one of NumPy's ``ulonglong`` type (dtype char ``"Q"``, though its
# dtype is ``uint64``) is refused by each of the four constructors ``torch.from_numpy``, ``torch.as_tensor``, ``torch.tensor``
# and ``torch.asarray`` (on torch 2.13.0, ``torch.from_dlpack`` aborts the process on an array in native
# byte order, of a dtype DLPack carries, flipped along an axis of two or more elements):
# copy a flipped array or such a field with NumPy (or flip in torch), and convert an array in the other byte
# order with ``array.astype(array.dtype.newbyteorder("="))``, since a NumPy copy keeps the byte order; view a
# ``ulonglong`` array as ``np.uint64``. On a sparse tensor, ``detach().numpy()``,
# ``numpy(force=True)`` and ``np.asarray`` raise. ``numpy()`` and ``np.asarray`` refuse a tensor that
# requires grad only where ``torch.is_grad_enabled()`` is ``True`` (``torch.enable_grad()`` inside
# ``torch.inference_mode()`` included): under ``torch.no_grad()`` or ``torch.inference_mode()`` alone
# they share its memory, and a write through the array is not counted. A change of dtype copies too, and a
# ``bfloat16`` tensor has no NumPy dtype at all. On a tensor with the
# conjugate or the negative bit set, ``numpy()`` and ``np.asarray`` raise and
# ``numpy(force=True)`` copies. (A GPU tensor is in
# the box above.) Writes through a shared array are
# real writes to the tensor that autograd never hears about. Copy before you
# write, or make the edit in torch, where the version counter sees it.
