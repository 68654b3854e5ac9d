"""
.. _questions-inference-mode:

``torch.inference_mode()``, ``torch.no_grad()`` or ``detach()``?
================================================================

.. admonition:: Answer
   :class: answer

   A tensor that ``torch.inference_mode()`` creates in new memory is an inference tensor, and outside the mode it cannot be saved for backward. ``clone()`` it outside the mode:

   .. code-block:: python

      y = make_inference(x).clone()
      (x * y).sum().backward()

A tensor that ``torch.inference_mode()`` creates in new memory is an *inference tensor* (so is one
made there over existing memory, for example by ``torch.from_numpy``, ``torch.as_tensor`` or
``torch.frombuffer`` over a NumPy array, or by ``torch.from_dlpack(a)`` or ``a.view(dtype)``, to another dtype or
its own, of a normal tensor ``a``; a view of a normal tensor taken inside the mode by indexing, ``view(shape)``, ``t()``,
``expand``, ``real``, ``torch.view_as_real`` and the other view operations listed below, its ``detach()``
and its ``.data`` are not), and it refuses some uses
later, outside the mode: "Inference tensors cannot be saved for backward", "Inplace update to
inference tensor outside InferenceMode is not allowed", "Setting requires_grad=True on inference
tensor outside InferenceMode is not allowed". This page computes the same ``x * 2`` three ways, tries
each use on each result, and fixes the inference tensor with ``clone()``. The design is described in
`pytorch/rfcs#17 <https://github.com/pytorch/rfcs/pull/17>`__; of the three messages, only the in-place
one ("Inplace update ...") names it.
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
# What each way gives
# -------------------
#
# All three results are out of the graph (``requires_grad`` is ``False``). Only the one made under
# ``torch.inference_mode()`` is an inference tensor: it was computed there, in new memory. A view of
# a normal tensor (one whose ``is_inference()`` is ``False``) taken inside the mode by indexing, ``view(shape)``,
# ``t()``, ``transpose``, ``expand``, ``unbind``, ``as_strided``, ``real``, ``imag``, ``torch.view_as_real`` or
# ``torch.view_as_complex`` is not one, nor are its ``detach()`` and its ``.data``; its ``view(dtype)``, such as
# ``view(torch.int32)``, is one (unlike ``real``, ``imag`` and ``torch.view_as_real``, which change the dtype too).

for name, make in ways.items():
    y = make(torch.tensor([1.0, 2.0], requires_grad=True))
    print(f"{name:15} is_inference={y.is_inference()}  requires_grad={y.requires_grad}  grad_fn={y.grad_fn}")
    # sphinx_gallery_start_ignore
    assert y.is_inference() == (name == "inference_mode") and not y.requires_grad, f"{name}: unexpected kind"
    # sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
for normal, complex_normal in (
        (torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([1 + 2j, 3j])),
        (make_inference(torch.tensor([[0.5, 1.0], [1.5, 2.0]])).detach().view(torch.float32),
         make_inference(torch.tensor([0.5 + 1j, 1.5j])).detach().view(torch.complex64))):
    assert not normal.is_inference() and not complex_normal.is_inference(), (
        "a plain tensor, and the view(dtype) to its own dtype of an inference tensor's detach(): normal tensors")
    with torch.inference_mode():
        inside = [normal[1:], normal[0], normal.view(4), normal.view(1, 4), normal.t(), normal.transpose(0, 1)]
        detached = [normal.detach().is_inference(), torch.is_inference(normal.data)]
        with_dtype = [normal.view(torch.int32), normal.view(torch.float32)]
        computed = normal * 2
        over_numpy = torch.from_numpy(normal.numpy())
        over_memory = [torch.as_tensor(normal.numpy()), torch.frombuffer(normal.numpy(), dtype=torch.float32),
                       torch.from_dlpack(normal)]
        other_views = [normal[:1].expand(3, 2), normal.unbind()[0], normal.as_strided((2,), (1,)), complex_normal.real,
                       complex_normal.imag, torch.view_as_real(complex_normal), torch.view_as_complex(normal)]
    assert not any(v.is_inference() for v in inside) and computed.is_inference(), (
        "a view by indexing, view(shape) or t() taken inside the mode is not an inference tensor")
    assert not any(detached) and over_numpy.is_inference(), (
        "detach() and .data are not one; from_numpy over old memory is")
    assert not any(v.is_inference() for v in other_views), (
        "expand, unbind, as_strided, real, imag, view_as_real and view_as_complex taken inside the mode are not one")
    assert all(v.is_inference() for v in with_dtype), "view(dtype) taken inside the mode is an inference tensor"
    assert all(v.is_inference() and v.data_ptr() == normal.data_ptr() for v in over_memory), (
        "as_tensor and frombuffer over a NumPy array and from_dlpack of a normal tensor: "
        "inference tensors on its memory")
# sphinx_gallery_end_ignore

# %%
# What each one refuses later
# ---------------------------
#
# Each use below runs outside any special mode, on a fresh tensor. The inference tensor refuses all
# three; the two others accept all three. In the output, ``saved for backward`` means saved for the
# backward pass, ``in-place edit`` an in-place edit, and ``refused`` that the use was refused.

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
# sphinx_gallery_start_ignore
assert "https://github.com/pytorch/rfcs/pull/17" in results["inference_mode", "in-place edit"], (
    "the message refusing the in-place edit names pytorch/rfcs#17")
for unlinked in ("saved for backward", "requires_grad_()"):
    assert "rfcs" not in results["inference_mode", unlinked], f"the message refusing '{unlinked}' names no RFC"
# sphinx_gallery_end_ignore

# %%
# On an inference tensor made inside the mode that does not require grad, such as ``y`` here, the in-place edit is
# refused only after the fact: torch raises once the values are written, so the inference tensor holds the new
# values anyway. Catching that error and carrying on leaves the edit in place.

y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
before = y.clone()
try:
    y.add_(1)
except RuntimeError as e:
    print(f"{type(e).__name__} raised; y before: {before}, y after: {y}")
else:
    raise AssertionError("an in-place edit of an inference tensor outside the mode must raise")
assert not y.requires_grad and torch.equal(y, before + 1), (
    "y does not require grad, and the edit that raised must have been written anyway"
)

# %%
# ``add_`` is not the only one: each of the first ten in-place torch operations below writes values into ``y``,
# and each raises after writing. ``detach_()``, ``share_memory_()`` and ``resize_()`` to the tensor's own size,
# called without ``memory_format``, change no values and raise nothing. Changing no values does not make a call quiet: ``t_()``, ``unsqueeze_(0)``
# and ``copy_`` of the values ``y`` already holds raise the same error, and ``unsqueeze_(0)`` has
# already changed the shape when it raises.

value_writes = {
    "y.mul_(10)": lambda t: t.mul_(10),
    "y.zero_()": lambda t: t.zero_(),
    "y.fill_(5.0)": lambda t: t.fill_(5.0),
    "y.copy_(...)": lambda t: t.copy_(torch.tensor([7.0, 8.0])),
    "y.clamp_(max=1.5)": lambda t: t.clamp_(max=1.5),
    "y.masked_fill_(...)": lambda t: t.masked_fill_(t > 1.5, 0.0),
    "y.index_put_(...)": lambda t: t.index_put_((torch.tensor([0]),), torch.tensor(9.0)),
    "y[0] = 9.0": lambda t: t.__setitem__(0, 9.0),
    "y += 1": lambda t: t.__iadd__(1),
    "torch.add(y, 1, out=y)": lambda t: torch.add(t, 1, out=t),
}
no_values = {
    "y.detach_()": lambda t: t.detach_(),
    "y.share_memory_()": lambda t: t.share_memory_(),
    "y.resize_(2)": lambda t: t.resize_(2),
}
no_new_values = {
    "y.t_()": lambda t: t.t_(),
    "y.unsqueeze_(0)": lambda t: t.unsqueeze_(0),
    "y.copy_(y.clone())": lambda t: t.copy_(t.clone()),
}
outcomes, shapes = {}, {}
for name, edit in {**value_writes, **no_values, **no_new_values}.items():
    y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    before = y.clone()
    outcomes[name] = (attempt(edit, y), not torch.equal(y.reshape(-1), before))
    shapes[name] = tuple(y.shape)
    print(f"{name:24} raised={outcomes[name][0] != 'ok'}  values changed={outcomes[name][1]}  shape: {shapes[name]}")
refusal = "RuntimeError: Inplace update to inference tensor outside InferenceMode"
assert all(outcomes[n][0].startswith(refusal) and outcomes[n][1] for n in value_writes) and all(
    outcomes[n] == ("ok", False) for n in no_values
), "each value write raises after writing; detach_, share_memory_ and resize_ to its size raise nothing and change nothing"
assert shapes["y.unsqueeze_(0)"] == (1, 2) and all(
    outcomes[n][0].startswith(refusal) and not outcomes[n][1] for n in no_new_values
), "t_, unsqueeze_ and copy_ of the same values raise; unsqueeze_ has changed the shape when it raises"

# %%
# Given a ``memory_format`` that lays it out differently, ``resize_()`` to its own size re-strides an inference
# tensor in place: the 4-D ``y4`` below then reads other values at the same indices, and nothing is raised.

y4 = make_inference(torch.arange(8.0).reshape(1, 2, 2, 2))
before4 = y4.clone()
kept = attempt(lambda t: t.resize_(t.shape), y4), torch.equal(y4, before4)
print("y4.resize_(y4.shape):", kept[0], " values kept:", kept[1])
restrided = attempt(lambda t: t.resize_(t.shape, memory_format=torch.channels_last), y4)
print("y4.resize_(y4.shape, memory_format=torch.channels_last):", restrided)
print("values kept:", torch.equal(y4, before4))
assert kept == ("ok", True) and restrided == "ok" and not torch.equal(y4, before4), (
    "resize_ to its own size keeps the values with no memory_format, re-strides them with channels_last, raises nothing"
)

# %%
# An edit through a view of it, here ``y[1:]``, raises the same way. ``y.detach()`` and ``y.data``, taken
# outside the mode as here, are inference tensors too, yet an in-place call that torch carries out on them
# itself, such as ``mul_``, raises nothing, and it reaches ``y``. So do ``apply_`` and ``map_``, which run a
# Python function on each value, even on ``y`` itself, and a write through the NumPy array ``y.numpy()``. A view
# of them, taken by indexing, such as ``y.detach()[1:]``, or by ``view(shape)``, ``t()``, ``unsqueeze()``,
# ``reshape()``, ``narrow()``, ``as_strided()`` or ``unbind()``, is an inference tensor with no version counter,
# and an edit through it raises after writing, as through ``y[1:]``; so do an in-place call that takes a view of
# them inside, such as ``fill_diagonal_``, and an index assignment that writes through a view, such as
# ``d[0] = 9.0`` or ``d[1:] = 9.0`` on ``d = y.detach()`` or ``y.data``, or ``d[:] += 1``, which reads the view
# ``d[:]`` first. The following assignments take no view, raise nothing and reach ``y``:
# ``d[:] = 9.0`` and ``d[...] = 9.0``, a slice over all of ``d`` with no start or a start of 0 and no step or a
# step of 1 (``d[0:] = 9.0``, and ``d[:2] = 9.0`` on the two values of ``d``), and a write whose whole index is a
# list of indices, or an index tensor or boolean mask of one or more dimensions (``d[[0]] = 9.0``,
# ``d[torch.tensor([0])] = 9.0``, ``d[torch.tensor([True, False])] = 9.0``). A 0-d index tensor goes through a
# view, as the integer it holds: ``d[torch.tensor(0)] = 9.0``. Some that cover all of ``d`` still go through a
# view and raise after writing: ``d[-2:] = 9.0``, ``d[None] = 9.0``, and an assignment through a 0-d mask of
# ``True``, ``d[True] = 9.0`` or ``d[torch.tensor(True)] = 9.0``, whose view torch takes inside. A 0-d mask of
# ``False`` writes nothing: ``d[torch.tensor(False)] = 9.0`` still raises, and ``d[False] = 9.0`` raises nothing.
# Their ``view(dtype)`` is a normal tensor: an edit through it raises nothing and reaches ``y``.
# :fact:`inference-tensor-alias-edit-routes`
edits = {"y[1:]": lambda t: t[1:], "y.detach()": lambda t: t.detach(), "y.data": lambda t: t.data,
         "y.detach()[1:]": lambda t: t.detach()[1:], "y.data[1:]": lambda t: t.data[1:]}  # fmt: skip
raised = {}
for name, alias in edits.items():
    y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    raised[name] = attempt(lambda t: t.mul_(10), alias(y)) != "ok"
    print(f"{name:14} is_inference={alias(y).is_inference()}  raised={raised[name]}  y after: {y}")
    # sphinx_gallery_start_ignore
    assert alias(y).is_inference() and y[1].item() == 40.0, f"the edit through {name} must reach y"
    # sphinx_gallery_end_ignore
assert raised == {"y[1:]": True, "y.detach()": False, "y.data": False, "y.detach()[1:]": True, "y.data[1:]": True}, (
    "only the edits through a view raise")
# sphinx_gallery_start_ignore
alias_views = {"indexing": (lambda t: t[0], lambda t: t[1:], lambda t: t[None], lambda t: t[...]),
               "a view method": (lambda t: t.view(2), lambda t: t.view(1, 2), lambda t: t.t(), lambda t: t.unsqueeze(0),
                                 lambda t: t.reshape(2), lambda t: t.narrow(0, 1, 1), lambda t: t.as_strided((1,), (1,)),
                                 lambda t: t.unbind()[0])}
for take_alias in (edits["y.detach()"], edits["y.data"]):
    for taken_by, take_views in alias_views.items():
        for take_view in take_views:
            alias_view = take_view(take_alias(make_inference(torch.tensor([1.0, 2.0], requires_grad=True))))
            assert alias_view.is_inference() and attempt(lambda t: t._version, alias_view).startswith(
                "RuntimeError: Inference tensors do not track version counter"), (
                f"a view of y.detach() or y.data taken by {taken_by} is an inference tensor with no version counter")
    for view_dtype in (torch.float32, torch.int32):
        dtype_alias = take_alias(make_inference(torch.tensor([1.0, 2.0], requires_grad=True))).view(view_dtype)
        assert not dtype_alias.is_inference() and attempt(lambda t: t._version, dtype_alias) == "ok", (
            "view(dtype) of y.detach() or y.data is a normal tensor")
# sphinx_gallery_end_ignore
assignments = {"d[0] = 9.0": lambda d: d.__setitem__(0, 9.0),
               "d[1:] = 9.0": lambda d: d.__setitem__(slice(1, None), 9.0), "d[:] += 1": lambda d: d[:].__iadd__(1),
               "d[:] = 9.0": lambda d: d.__setitem__(slice(None), 9.0),
               "d[...] = 9.0": lambda d: d.__setitem__(Ellipsis, 9.0),
               "d[0:] = 9.0": lambda d: d.__setitem__(slice(0, None), 9.0),
               "d[:2] = 9.0": lambda d: d.__setitem__(slice(None, 2), 9.0),
               "d[[0]] = 9.0": lambda d: d.__setitem__([0], 9.0),
               "d[torch.tensor([0])] = 9.0": lambda d: d.__setitem__(torch.tensor([0]), 9.0),
               "d[torch.tensor([True, False])] = 9.0": lambda d: d.__setitem__(torch.tensor([True, False]), 9.0),
               "d[torch.tensor(0)] = 9.0": lambda d: d.__setitem__(torch.tensor(0), 9.0),
               "d[-2:] = 9.0": lambda d: d.__setitem__(slice(-2, None), 9.0),
               "d[None] = 9.0": lambda d: d.__setitem__(None, 9.0),
               "d[True] = 9.0": lambda d: d.__setitem__(True, 9.0),
               "d[torch.tensor(True)] = 9.0": lambda d: d.__setitem__(torch.tensor(True), 9.0),
               "d[torch.tensor(False)] = 9.0": lambda d: d.__setitem__(torch.tensor(False), 9.0),
               "d[False] = 9.0": lambda d: d.__setitem__(False, 9.0)}  # fmt: skip
for name in ("y.detach()", "y.data"):
    for written, assign in assignments.items():
        y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
        result = attempt(assign, edits[name](y))
        print(f"d = {name}; {written:36}  raised={result != 'ok'}  y after: {y}")
        through_a_view = written in ("d[0] = 9.0", "d[1:] = 9.0", "d[:] += 1", "d[torch.tensor(0)] = 9.0",
                                     "d[-2:] = 9.0", "d[None] = 9.0", "d[True] = 9.0", "d[torch.tensor(True)] = 9.0",
                                     "d[torch.tensor(False)] = 9.0")
        writes_nothing = written in ("d[torch.tensor(False)] = 9.0", "d[False] = 9.0")
        assert (result.startswith(refusal) if through_a_view else result == "ok") and (
            y.tolist() == [2.0, 4.0]) == writes_nothing, (
            f"{written} on d = {name} raises exactly when it goes through a view, and reaches y unless its mask is False")
    y = make_inference(torch.ones(2, 2, requires_grad=True))
    result = attempt(lambda t: t.fill_diagonal_(0.0), edits[name](y))
    print(f"{name}.fill_diagonal_(0.0)  raised={result != 'ok'}  y after: {y.tolist()}")
    assert result.startswith(refusal) and y.trace().item() == 0.0, f"fill_diagonal_ on {name} raises after writing"

other_routes = {
    "y.apply_": lambda t: t.apply_(lambda v: v * 10),
    "y.map_": lambda t: t.map_(t, lambda v, o: v + o),
    "y.numpy()": lambda t: t.numpy().fill(-1.0),
}
for name, edit in other_routes.items():
    y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    result = attempt(edit, y)
    print(f"{name:10} result: {result}  y after: {y}")
    assert result == "ok" and not torch.equal(y, torch.tensor([2.0, 4.0])), f"{name} must edit y and raise nothing"

# %%
# Taken inside the mode, as in ``feats = model(x).detach()`` written there, a ``detach()`` or ``.data`` of an
# inference tensor is itself an inference tensor made in the mode: an edit of it outside the mode raises after writing, as on ``y``.
# A write through a ``numpy()`` taken there raises nothing.
# :fact:`inference-tensor-inplace-outside-raises-yet-writes`
taken_inside = {"detach()": lambda t: t.detach(), ".data": lambda t: t.data, "numpy()": lambda t: t.numpy()}
inside_results = {}
for name, take in taken_inside.items():
    with torch.inference_mode():
        y = torch.tensor([1.0, 2.0]) * 2
        alias = take(y)
    inside_results[name] = attempt(lambda a: a.__imul__(10), alias)
    print(f"{name:9} taken inside the mode: raised={inside_results[name] != 'ok'}  y after: {y}")
    # sphinx_gallery_start_ignore
    assert torch.equal(y, torch.tensor([20.0, 40.0])), f"the edit through {name} taken inside the mode is written"
    assert name == "numpy()" or alias.is_inference(), f"{name} of an inference tensor taken inside the mode is one too"
    # sphinx_gallery_end_ignore
assert inside_results["numpy()"] == "ok" and all(
    inside_results[n].startswith(refusal) for n in ("detach()", ".data")
), "detach() and .data of an inference tensor taken inside the mode refuse the edit after writing; numpy() does not"

# %%
# An inference tensor made inside the mode does not track a version counter at all, and that counter is how
# autograd notices an edit of a tensor it saved (:ref:`questions-version-counter`). Here and on the other
# pages, an inference tensor is one whose ``is_inference()`` is ``True``, and a normal tensor one whose
# ``is_inference()`` is ``False``: a ``detach()`` or ``.data`` of an inference tensor, taken outside the mode, is
# an inference tensor too, yet has a version counter, and an in-place call such as ``mul_`` on it raises nothing (an edit through a view of it, taken by indexing, by one of the view methods above or
# inside the call, as by ``fill_diagonal_``, raises, as shown above).

y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
try:
    y._version
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an inference tensor must have no version counter")

for route in ("detach()", ".data"):
    z = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
    taken_outside = z.detach() if route == "detach()" else z.data
    taken_outside.mul_(1.0)
    print(f"{route:9} taken outside: is_inference() {taken_outside.is_inference()}, _version {taken_outside._version}")
    assert taken_outside.is_inference() and taken_outside._version == 1, f"{route} outside: a counter, and mul_ runs"

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
# A custom ``autograd.Function`` that keeps ``y`` as an attribute of ``ctx``, instead of passing it
# to ``ctx.save_for_backward``, is accepted too: autograd does not see ``y`` saved, and the
# ``backward`` reads ``y`` as it is then.

class KeepOnCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.y = y
        return x * y

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.y, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x)
KeepOnCtx.apply(x, y).sum().backward()
print("x.grad:", x.grad)
assert torch.equal(x.grad, y), "an inference tensor kept on ctx as an attribute is not refused"

# %%
# An inference tensor made inside the mode with ``requires_grad=True`` can lose its gradient
# silently: outside the mode, some operations that use it are not recorded for it (the results of
# ``it.exp()``, ``it * it`` and ``it.sum()`` do not require grad and have no ``grad_fn``; ``it * 2``
# is recorded), so a loss that adds such a result to a normal tensor's runs ``backward()`` without an
# error, and ``it.grad`` stays ``None``. The same happens to the weight of an ``nn.Linear`` built in the
# mode and run outside it on an input that does not require grad: the output is recorded through the
# bias, ``backward()`` runs without an error, and ``weight.grad`` stays ``None``.

with torch.inference_mode():
    it = torch.ones(2, requires_grad=True)
w = torch.tensor([1.0, 2.0], requires_grad=True)
unrecorded = {"it.exp()": it.exp(), "it * it": it * it, "it.sum()": it.sum()}
for name, result in unrecorded.items():
    print(f"{name:9} requires_grad:", result.requires_grad, " grad_fn:", result.grad_fn)
print("it * 2 requires_grad:", (it * 2).requires_grad)
loss = (w * 2).sum() + it.exp().sum()
loss.backward()
print("it.requires_grad:", it.requires_grad, " w.grad:", w.grad, " it.grad:", it.grad)
assert all(res.grad_fn is None and not res.requires_grad for res in unrecorded.values()) and it.grad is None, (
    "it.exp(), it * it and it.sum() are not recorded, and backward leaves it.grad None without an error"
)
# sphinx_gallery_start_ignore
assert it.requires_grad and it.is_inference() and (it * 2).grad_fn is not None, "it requires grad; it * 2 is recorded"
assert torch.equal(w.grad, torch.full((2,), 2.0)), "the normal tensor's gradient is filled"
with torch.inference_mode():
    built_inside = torch.nn.Linear(2, 1)
linear_out = built_inside(torch.ones(4, 2))
assert built_inside.weight.is_inference() and built_inside.weight.requires_grad and linear_out.grad_fn is not None, (
    "an nn.Linear built in the mode has an inference weight that requires grad, and its output is recorded")
linear_out.sum().backward()
assert built_inside.weight.grad is None and torch.equal(built_inside.bias.grad, torch.full((1,), 4.0)), (
    "backward runs without an error; the bias gets its gradient, weight.grad stays None")
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
# .. figure-caption::
#    :alt: Diagram: the names x and d point to two tensor objects on one storage S1, with one version counter C1 at _version=1; both hold 2.0, 3.0.
#
#    ``x`` and ``d`` are two tensor objects on one storage ``S1``, with one version counter ``C1`` at
#    ``_version=1``.

draw_memory("d = x.detach(); d.add_(1)", x=x, d=d)
# sphinx_gallery_start_ignore
assert x.untyped_storage().data_ptr() == d.untyped_storage().data_ptr(), "d shares x's memory"
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
assert not y.is_inference() and isinstance(y._version, int), "the clone is a normal tensor with a version counter"


def clones_under_(mode_, u_):
    with mode_():
        return [u_.clone(memory_format=format_) for format_ in (torch.preserve_format, torch.contiguous_format)]


assert all(not clone_.is_inference() and isinstance(clone_._version, int)
           for mode_ in (torch.enable_grad, torch.no_grad, lambda: torch.inference_mode(False))
           for clone_ in clones_under_(mode_, make_inference(x))), (
    "under no_grad() and inference_mode(False) too, with either memory_format, the clone is a normal tensor")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# Use ``torch.inference_mode()`` for code whose results never meet autograd again; outside the mode
# the inference tensors it makes refuse being saved for backward or made to require grad, and one made there
# with ``requires_grad=True`` can lose its gradient silently (some operations that use it go unrecorded for it, an
# ``nn.Linear``'s forward pass on an input that does not require grad among them). On one that does
# not require grad, each in-place torch operation run above that writes values (``add_``, ``mul_``, ``zero_``,
# ``fill_``, ``copy_``, ``clamp_``, ``masked_fill_``, ``index_put_``, an index assignment, ``+=`` and
# ``out=``) raises after it has been written, and so does ``mul_`` through its view ``y[1:]``; ``detach_()``,
# ``share_memory_()`` and ``resize_()`` to its own size, called without ``memory_format``, change no values and raise nothing, while
# ``t_()``, ``unsqueeze_()`` and ``copy_`` of the same values raise though they write no new values. An in-place
# call such as ``mul_`` on a ``detach()`` or ``.data`` taken outside the mode, or a write through ``numpy()``, raises
# nothing (an edit through a view of that ``detach()`` or ``.data``, taken by indexing (``d[0] = v``, ``d[-2:] = v``
# and ``d[:] += 1`` included; assignments that take no view, such as ``d[:] = v``, ``d[0:] = v``, ``d[...] = v``,
# ``d[[0]] = v`` and one through a boolean mask of one or more dimensions, raise nothing), by
# ``view(shape)`` and the other view methods above, or inside the call, as by ``fill_diagonal_`` or
# ``d[True] = v``, raises after
# writing; one through its ``view(dtype)`` raises nothing),
# and neither do ``apply_`` and ``map_``, which run a Python function on each value; a ``detach()`` or ``.data``
# of an inference tensor taken inside the mode is itself an inference tensor and refuses the edit after writing it. When
# results may be reused in training, use ``torch.no_grad()``, or ``clone()`` them outside the mode.
# ``detach()`` computes nothing: it shares the memory it starts from.
