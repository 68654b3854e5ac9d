"""
.. _copying-clone:

``clone()``: new memory, same graph
===================================

When ``a`` requires grad and grad mode is on (not inside
``torch.inference_mode()``), ``a.clone()`` copies the values
into new memory but stays in the autograd graph: the copy requires grad, has a
``grad_fn`` and is not a leaf (a sparse, nested or mkldnn inference tensor aside, whose
copy, on the CPU, does not require grad; and where ``a`` is a view taken with grad mode off, or an
output of ``unbind()``, ``split()``, ``split_with_sizes()`` or ``chunk()``, once the version counter
it shares with its base has moved, ``a.clone()`` raises instead, as the Conclusion says). This page
runs the article's example, then follows the gradient that the article says
does not exist: a loss computed from the clone sends its gradient back to ``a``.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.
# ``bytes_apart`` tells whether their byte ranges in this process do not overlap at all, which different starts
# alone do not show; for memory mapped once, as on this page, that means that no memory is shared (one file mapped
# twice shares memory at two address ranges apart). :fact:`file-mapped-twice-shares-bytes`
# Different starts do not by themselves rule out
# shared memory (:ref:`copying-alias` shows aliases whose storages start inside their source's), so where
# this page prints ``same storage`` ``False`` for the clone, a hidden check also finds that the clone's
# storage and ``a``'s share no byte. ``read_grad`` reads
# ``t.grad`` while recording any warning that the read raises, and returns both;
# the warning message ends with the C++ source line that raised it, which
# ``read_grad`` cuts off.

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap (memory mapped once: no byte shared)."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    found = []
    for w in caught:
        message = str(w.message).split(" (Triggered internally")[0]
        found.append((w.category, message))
    return grad, found


# sphinx_gallery_start_ignore
overlap_source = torch.arange(4.0)
overlap_alias = torch.from_numpy(overlap_source[1:].numpy())
assert not same_storage(overlap_source, overlap_alias) and not bytes_apart(overlap_source, overlap_alias), (
    "a NumPy alias of a slice at offset 1 starts at another address, yet its storage's bytes overlap the source's")

suffix_clone = torch.tensor([1.0], requires_grad=True).clone()
with warnings.catch_warnings(record=True) as suffix_caught:
    warnings.simplefilter("always")
    assert suffix_clone.grad is None, "the .grad of a clone is None"
suffix_raw = str(suffix_caught[0].message)
suffix_head, _, suffix_tail = suffix_raw.partition(" (Triggered internally at ")
assert suffix_tail.endswith(".)") and suffix_tail[:-2].rpartition(":")[2].isdigit() and (
    read_grad(suffix_clone)[1] == [(suffix_caught[0].category, suffix_head)]), (
    "the warning on reading a clone's .grad ends with ' (Triggered internally at <C++ file>:<line>.)', "
    "which read_grad cuts off")
# sphinx_gallery_end_ignore


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
# The article's clone
# -------------------
#
# ``c`` holds the same values as ``a`` in its own memory. It requires grad
# because ``a`` does and grad mode is on, its ``grad_fn`` records the clone,
# and so it is not a leaf. Under ``torch.no_grad()``, inside ``torch.inference_mode()`` even with
# ``torch.enable_grad()`` (which, under ``torch.no_grad()``, does turn recording back on), or from a
# tensor that needs no grad, ``clone()`` records nothing: the copy is a leaf that does not require grad.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
print("a.requires_grad:", a.requires_grad)
print("c.requires_grad:", c.requires_grad)
print("c.grad_fn:", type(c.grad_fn).__name__)
print("c.is_leaf:", c.is_leaf)
assert bytes_apart(a, c), "the clone must have its own memory"
# sphinx_gallery_start_ignore
assert bytes_apart(a, c), "the storage of a.clone() shares no byte with a's"
assert torch.equal(a.detach(), c.detach()), "the clone must hold the same values"
assert c.requires_grad, "the clone of a tensor that requires grad must require grad"
assert type(c.grad_fn).__name__ == "CloneBackward0", "grad_fn must be CloneBackward0"
assert not c.is_leaf, "the clone must not be a leaf"
with torch.no_grad():
    c_no_grad = a.clone()
assert not c_no_grad.requires_grad and c_no_grad.is_leaf, "a clone made under no_grad must be out of the graph"
with torch.no_grad(), torch.enable_grad():
    c_no_grad_enabled = a.clone()
assert c_no_grad_enabled.requires_grad and type(c_no_grad_enabled.grad_fn).__name__ == "CloneBackward0", (
    "enable_grad() inside no_grad() records the clone again")
with torch.inference_mode():
    c_inference = a.clone()
    with torch.enable_grad():
        c_inference_enabled = a.clone()
assert all(not c_made.requires_grad and c_made.grad_fn is None and c_made.is_leaf
           for c_made in (c_inference, c_inference_enabled)), (
    "a clone made inside inference_mode, even under enable_grad(), must be a leaf that does not require grad")
c_plain = torch.tensor([1.0, 2.0, 3.0]).clone()
assert not c_plain.requires_grad and c_plain.is_leaf, "the clone of a tensor that needs no grad must be a plain leaf"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. ``c`` has a storage of its own, ``S2``, and a ``grad_fn``.

draw_memory("c = a.clone()", a=a, c=c)

# %%
# The article prints ``c`` with a different ``grad_fn`` name.

article_c = "tensor([1., 2., 3.], grad_fn=<CloneBackward>)"
this_torch_c = "tensor([1., 2., 3.], grad_fn=<CloneBackward0>)"
print("c prints as in the article:", repr(c) == article_c)
print("c as this torch prints it: ", repr(c))
assert repr(c) == this_torch_c, "c must print with CloneBackward0"
# sphinx_gallery_start_ignore
assert repr(c) != article_c, "c must print differently from the article"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article prints ``grad_fn=<CloneBackward>``. This torch prints
#    ``grad_fn=<CloneBackward0>`` (output above): only the name of the backward
#    node's class has changed.

# %%
# New memory: an edit of the clone stays in the clone
# ---------------------------------------------------
#
# The edit runs under ``torch.no_grad()`` so that autograd does not record it;
# only memory is being tested here.

with torch.no_grad():
    c[0] = 100.0
print("a:", a)
print("c:", c)
assert torch.equal(a.detach(), torch.tensor([1.0, 2.0, 3.0])), "a must not change"
# sphinx_gallery_start_ignore
assert a._version == 0, "a's version counter must not count an edit of the clone"
assert type(c.grad_fn).__name__ == "CloneBackward0", "an edit under no_grad must not be recorded in the graph"
# sphinx_gallery_end_ignore

# %%
# The article's backward pass
# ---------------------------
#
# The article differentiates a loss built from ``a`` alone. ``a`` gets its
# gradient ``2 * a``; ``c`` is not a leaf, so its ``.grad`` stays ``None``, and
# reading it raises a ``UserWarning`` on this torch.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
b = (a**2).sum()
b.backward()
print("a.grad:", a.grad)

c_grad, found = read_grad(c)
print("c.grad:", c_grad)
for category, message in found:
    print(category.__name__ + ":", message)
assert [category for category, _ in found] == [UserWarning], "reading c.grad must warn once"
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.tensor([2.0, 4.0, 6.0])), "a.grad must be 2 * a"
assert c_grad is None, "a non-leaf's .grad must stay None"
assert "not a leaf Tensor" in found[0][1], "the warning must say that c is not a leaf"
# sphinx_gallery_end_ignore

# %%
# The gradient of a loss built from the clone reaches ``a``
# ---------------------------------------------------------
#
# Now the loss uses only ``c``. ``CloneBackward0`` passes the incoming gradient
# through unchanged, so it lands in ``a.grad``: the same ``2 * a`` as if the
# loss had used ``a`` directly.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
loss = (c**2).sum()
loss.backward()
print("a.grad:", a.grad)
assert a.grad.tolist() == [2.0, 4.0, 6.0], "the clone's gradient must reach a"

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph of loss, from SumBackward0 down through PowBackward0 and CloneBackward0 to AccumulateGrad and the leaf a.
#
#    The graph behind ``loss``, walked from ``loss.grad_fn`` along ``next_functions``: the path from the clone leads back to the leaf ``a``.

draw_graph("loss = (c**2).sum()", loss, a=a)

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article says that the gradients of ``a`` and of its clone have nothing
#    to do with each other. They do: in grad mode ``clone()`` is recorded in the
#    graph, so a gradient that reaches such a clone flows on to ``a``. A plain
#    ``backward()`` accumulates it into ``a.grad`` (output above);
#    ``torch.autograd.grad`` asked for ``a`` returns it and writes no ``.grad``
#    but that of a tensor on its way that called ``retain_grad()``;
#    a ``backward(inputs=...)`` that does not name ``a`` leaves ``a.grad`` alone,
#    and one that names ``c``, like ``torch.autograd.grad`` asked for ``c``,
#    stops at the clone. The clone is independent in memory, not in the graph.

# %%
# Seeing the clone's own gradient with ``retain_grad()``
# ------------------------------------------------------
#
# ``c.retain_grad()`` asks autograd to keep the gradient of the non-leaf ``c``.
# With a weighted loss, ``c.grad`` is the vector of weights, and ``a.grad`` is
# exactly the same vector: the clone's backward is the identity.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
c.retain_grad()
weights = torch.tensor([1.0, 10.0, 100.0])
loss = (c * weights).sum()
loss.backward()
c_grad, found = read_grad(c)
print("c.grad:", c_grad)
print("a.grad:", a.grad)
print("warnings when reading c.grad:", len(found))
assert torch.equal(a.grad, c_grad), "a.grad must equal c.grad"
# sphinx_gallery_start_ignore
assert torch.equal(c_grad, weights), "c.grad must be the weights"
assert found == [], "reading a retained grad must not warn"
named_source = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
named_clone = named_source.clone()
named_weights = torch.tensor([1.0, 10.0, 100.0])
(named_clone * named_weights).sum().backward(inputs=[named_clone])
assert torch.equal(named_clone.grad, named_weights), "backward(inputs=[c]) fills the clone's .grad, no retain_grad()"
assert named_source.grad is None, "backward(inputs=[c]) stops at the clone: the source's .grad stays None"
stopped_source = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
stopped_clone = stopped_source.clone()
(stopped_grad,) = torch.autograd.grad((stopped_clone * named_weights).sum(), stopped_clone)
assert torch.equal(stopped_grad, named_weights) and stopped_source.grad is None, "autograd.grad stops at the clone"
for asked_kind in ("leaf", "non-leaf", "retained non-leaf"):
    for clone_retained in (False, True):
        asked_leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        asked_source = asked_leaf if asked_kind == "leaf" else asked_leaf * 2
        if asked_kind == "retained non-leaf":
            asked_source.retain_grad()
        asked_clone = asked_source.clone()
        if clone_retained:
            asked_clone.retain_grad()
        (asked_grad,) = torch.autograd.grad((asked_clone * named_weights).sum(), asked_source)
        assert torch.equal(asked_grad, named_weights) and asked_leaf.grad is None, (
            "autograd.grad asked for the source returns the clone's gradient and writes no leaf's .grad")
        assert ((read_grad(asked_clone)[0] is None) != clone_retained
                and (read_grad(asked_source)[0] is None) != (asked_kind == "retained non-leaf")), (
            "autograd.grad writes the .grad of a tensor on its way only if it called retain_grad()")
for unnamed_kind in ("leaf", "non-leaf", "retained non-leaf"):
    for on_the_way in (False, True) if unnamed_kind != "leaf" else (False,):
        unnamed_leaf, bystander = torch.tensor([1.0, 2.0, 3.0], requires_grad=True), torch.ones(3, requires_grad=True)
        unnamed_source = unnamed_leaf if unnamed_kind == "leaf" else unnamed_leaf * 2
        if unnamed_kind == "retained non-leaf":
            unnamed_source.retain_grad()
        (unnamed_source.clone() * named_weights + bystander).sum().backward(
            inputs=[unnamed_leaf] if on_the_way else [bystander])
        unnamed_grad = read_grad(unnamed_source)[0]
        assert (torch.equal(unnamed_leaf.grad, 2 * named_weights) and bystander.grad is None if on_the_way
                else unnamed_leaf.grad is None and torch.equal(bystander.grad, torch.ones(3))), (
            "backward(inputs=...) fills the .grad of the tensors it names and of no other leaf")
        assert (torch.equal(unnamed_grad, named_weights) if unnamed_kind == "retained non-leaf" and on_the_way
                else unnamed_grad is None), (
            "backward(inputs=...) leaves an unnamed source's .grad alone unless it retains grad on the way to a named one")
for grad_off in (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
    for further in (False, True):
        off_base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with grad_off():
            off_view = off_base[1:]
        off_source = off_view[1:] if further else off_view
        off_clone = off_source.clone()
        assert off_view.requires_grad and off_clone.requires_grad and not off_clone.is_leaf, (
            "a view taken with grad mode off requires grad, and so does its clone, which is not a leaf")
        assert off_source.is_leaf != further and off_source._base is off_base, (
            "a view of that view taken with grad mode on is recorded, on the same base")
        (off_clone * off_clone).sum().backward()
        assert off_view.grad is None and off_base.grad is None, (
            "the clone of a view taken with grad mode off, or of a view of it, sends no gradient to the view or base")
        for asked_for in ("base", "view"):
            for allow_unused in (False, True):
                route_base = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
                with grad_off():
                    route_view = route_base[1:]
                route_asked = route_base if asked_for == "base" else route_view
                route_clone = (route_view[1:] if further else route_view).clone()
                if allow_unused:
                    (route_clone * route_clone).sum().backward(inputs=[route_asked])
                    assert route_view.grad is None and route_base.grad is None, (
                        "backward(inputs=[base or view]) raises nothing and leaves both .grad at None")
                    assert torch.autograd.grad((route_clone * route_clone).sum(), route_asked, allow_unused=True) == (
                        None,), "torch.autograd.grad(..., allow_unused=True) returns None for the base or the view"
                    continue
                try:
                    torch.autograd.grad((route_clone * route_clone).sum(), route_asked)
                except RuntimeError as route_error:
                    assert "appears to not have been used in the graph" in str(route_error), (
                        "torch.autograd.grad asked for the base or the view says it was not used in the graph")
                else:
                    raise AssertionError("torch.autograd.grad asked for the base or the view raises")
with torch.inference_mode():  # inference tensors that require grad: a parameter of a module built there among them
    inference_bases = (torch.tensor([1.0, 2.0, 3.0], requires_grad=True), torch.nn.BatchNorm1d(3).weight,
                       torch.ones(3, dtype=torch.complex64, requires_grad=True),
                       torch.ones(3, device="meta", requires_grad=True))
for grad_taken, grad_on_inside in ((torch.enable_grad, True), (torch.no_grad, False), (torch.inference_mode, False),
                                   (torch.inference_mode, True), (lambda: torch.set_grad_enabled(False), False)):
    for inference_base in inference_bases:
        for further in (False, True):
            with grad_taken(), torch.set_grad_enabled(grad_on_inside):
                inference_view = inference_base[1:]
            inference_clone = (inference_view[1:] if further else inference_view).clone()
            assert inference_base.is_inference() and inference_base.requires_grad and (
                not inference_view.requires_grad) and inference_clone.grad_fn is None, (
                "a view of an inference tensor that requires grad, taken in any grad mode, grad mode on included, "
                "does not require grad, and the clone of it, or of a view of it, has no grad_fn")
            inference_loss = (inference_clone * inference_clone).sum()
            inference_routes = (
                (inference_loss.backward, {}),
                (inference_loss.backward, {"inputs": [inference_base]}),
                (inference_loss.backward, {"inputs": [inference_view]}),
                *((torch.autograd.grad, {"outputs": inference_loss, "inputs": asked, "allow_unused": unused})
                  for asked in (inference_base, inference_view) for unused in (False, True)))
            for inference_route, route_kwargs in inference_routes:
                try:
                    inference_route(**route_kwargs)
                except RuntimeError as inference_error:
                    assert "does not require grad and does not have a grad_fn" in str(inference_error), (
                        "backward() and torch.autograd.grad of the clone of a view of an inference tensor say it "
                        "does not require grad and does not have a grad_fn")
                else:
                    raise AssertionError(
                        "backward(), with or without inputs=, and torch.autograd.grad, even with allow_unused=True, "
                        "raise on the clone of a view of an inference tensor")
for retained in (False, True):
    behind_leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    non_leaf_source = behind_leaf * 2
    if retained:
        non_leaf_source.retain_grad()
    (non_leaf_source.clone() * named_weights).sum().backward()
    non_leaf_grad, non_leaf_found = read_grad(non_leaf_source)
    assert torch.equal(behind_leaf.grad, 2 * named_weights), (
        "the clone's gradient flows through a non-leaf source on to the leaf behind it")
    assert (torch.equal(non_leaf_grad, named_weights) and non_leaf_found == []) if retained else (
        non_leaf_grad is None and len(non_leaf_found) == 1), (
        "a plain backward() leaves a non-leaf source's .grad at None unless it called retain_grad()")


def other_made(other_kind):
    """A leaf that requires grad: a Parameter, or an inference tensor made so inside torch.inference_mode() (alone,
    or the weight of a module built there)."""
    if other_kind == "Parameter":
        return torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    with torch.inference_mode():
        if other_kind == "inference tensor":
            return torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return torch.nn.BatchNorm1d(3).weight


for other_kind in ("Parameter", "inference tensor", "module parameter"):
    for other_route in ("backward()", "retain_grad()", "grad(source)", "grad(clone)", "inputs=[other]", "inputs=[clone]"):
        other_source, other_leaf = other_made(other_kind), torch.ones(3, requires_grad=True)
        other_clone = other_source.clone()
        assert other_clone.requires_grad and not other_clone.is_leaf and type(other_clone.grad_fn).__name__ == (
            "CloneBackward0" if other_kind == "Parameter" else "CopyBackwards") and (
            other_source.is_inference() != (other_kind == "Parameter")), (
            "the clone of a Parameter, or of an inference tensor that requires grad, requires grad and is not a leaf; "
            "its node is CopyBackwards for the inference tensor")
        if other_route == "retain_grad()":
            other_clone.retain_grad()
        other_loss = (other_clone * named_weights + other_leaf).sum()
        if other_route.startswith("grad("):
            (other_grad,) = torch.autograd.grad(other_loss, other_clone if other_route == "grad(clone)" else other_source)
            assert torch.equal(other_grad, named_weights), "torch.autograd.grad returns the clone's gradient"
        else:
            other_loss.backward(inputs={"inputs=[other]": [other_leaf], "inputs=[clone]": [other_clone]}.get(other_route))
        other_clone_grad = read_grad(other_clone)[0]
        assert ((other_source.grad is None) != (other_route in ("backward()", "retain_grad()"))
                and (other_clone_grad is None) != (other_route in ("retain_grad()", "inputs=[clone]"))
                and (other_leaf.grad is None) != (other_route in ("backward()", "retain_grad()", "inputs=[other]"))
                and all(torch.equal(g, named_weights) for g in (other_source.grad, other_clone_grad) if g is not None)), (
            "for a Parameter or an inference tensor, a plain backward() fills the source's .grad, torch.autograd.grad "
            "and a backward(inputs=...) not naming it leave it at None, and the clone's .grad is filled only after "
            "retain_grad() or by naming it in inputs=")
# sphinx_gallery_end_ignore

# %%
# Both paths add up in ``a.grad``
# -------------------------------
#
# When a loss uses both ``a`` and its clone, ``a.grad`` is the sum of the two
# contributions: ``2 * a`` from the first term plus the weights from the second.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
loss = (a**2).sum() + (c * weights).sum()
loss.backward()
print("a.grad:", a.grad)
assert a.grad.tolist() == [3.0, 14.0, 106.0], "a.grad must be 2 * a + weights"

# %%
# What ``a = 1`` proves, and what it does not
# -------------------------------------------
#
# The article ends its example with ``a = 1`` and notes that ``c`` did not
# change. That line changes no tensor: it only makes the name ``a`` point to
# the integer ``1``. Keep the tensor under a second name ``a_old`` and add
# ``d = a.detach()``, which *shares* ``a``'s memory: after ``a = 1`` both ``c``
# and ``d`` are unchanged, so the test cannot tell a copy from a tensor that
# shares memory.

a = torch.tensor([1, 2, 3], requires_grad=True, dtype=torch.float32)
c = a.clone()
d = a.detach()
a_old = a
a = 1
print("a:", a)
print("a_old:", a_old)
print("c:", c)
print("d:", d)
assert torch.equal(d, torch.tensor([1.0, 2.0, 3.0])), "d, which shares memory, must be unchanged too"
# sphinx_gallery_start_ignore
assert torch.equal(c.detach(), torch.tensor([1.0, 2.0, 3.0])), "c must be unchanged"
assert same_storage(a_old, d), "d must still share memory with the old tensor"
# sphinx_gallery_end_ignore

# %%
# For a strided tensor on a device with real memory (not ``meta``), such as this one, an in-place edit of the old
# tensor that changes every element, as ``mul_(10)`` does here, tells the two apart: it reaches ``d``, which shares
# those elements, and not ``c``, which has memory of its own.

with torch.no_grad():
    a_old.mul_(10)
print("a_old:", a_old)
print("c:", c)
print("d:", d)
assert torch.equal(c.detach(), torch.tensor([1.0, 2.0, 3.0])), "c must not see the edit"
# sphinx_gallery_start_ignore
assert torch.equal(d, torch.tensor([10.0, 20.0, 30.0])), "d must see the edit"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# ``clone()`` copies memory, not independence. In grad mode (not inside
# ``torch.inference_mode()``), the clone of a tensor that requires grad, a ``Parameter`` or a strided inference tensor
# such as a parameter of a module built under ``torch.inference_mode()`` included (the clone of a strided inference
# tensor has a ``CopyBackwards`` node, not ``CloneBackward0``; a sparse, nested or mkldnn inference tensor is an
# exception, whose clone, on the CPU, does not require grad), requires grad too, is not a leaf (its ``.grad``
# stays ``None`` unless you call ``retain_grad()`` or name it in
# ``backward(inputs=...)``; :ref:`the page on non-leaf gradients <questions-non-leaf-grad>` shows
# both), and a gradient that reaches it flows on to the source: a plain ``backward()`` accumulates
# it into the source's ``.grad`` when the source is a leaf (a source that is not, such as ``x * 2``,
# passes it on to the leaves behind it and keeps ``.grad`` at ``None`` unless it called
# ``retain_grad()``), ``torch.autograd.grad`` returns it without writing ``.grad`` (but that of a
# tensor on its way that called ``retain_grad()``), a
# ``backward(inputs=...)`` that does not name the source leaves its ``.grad`` alone (unless, as with
# ``torch.autograd.grad``, the source called ``retain_grad()`` and lies on the way to a tensor it
# names), and one that names the clone, like ``torch.autograd.grad`` asked for the clone, stops
# there. When the source is a
# view of a tensor that requires grad, made by an operation autograd records in grad mode (not, for example,
# ``detach()``, ``view(dtype)`` or a sparse tensor's ``indices()``), taken with grad mode off (under ``torch.no_grad()``
# or ``torch.set_grad_enabled(False)``) or inside ``torch.inference_mode()``, even with ``torch.enable_grad()``, or a
# view of such a view, its base gets no gradient, nor does the view so taken unless ``requires_grad_()`` was called on
# it before its clone, or a view of it, was taken (the clone
# of a view of it taken in one of these ways passes it no gradient even then). Unless the tensor viewed is itself a
# view made a leaf with ``requires_grad_()``, or an inference tensor (views taken of either in these ways do not
# require grad; a view of an inference tensor that requires grad does not with grad mode on either, outside
# ``torch.inference_mode()``: a slice of a parameter of a module built there, taken while training, say), ``backward()``,
# and ``backward(inputs=...)`` naming the base or that view, raise nothing; ``torch.autograd.grad`` asked for the
# base, or for that view when it gets no gradient, raises a ``RuntimeError`` saying it appears to not have been
# used in the graph (with ``allow_unused=True`` it returns ``None`` for it). Of a leaf or a non-leaf, such a view keeps
# all this only until the version counter it shares with its base moves, as it does after ``mul_()`` on the view, on
# its base or on another view of its base, even under ``torch.no_grad()`` or inside ``torch.inference_mode()``, or after
# a step of ``torch.optim.SGD`` on the base. From then on, with grad mode on, the view's clone, the clone of a view of it
# taken before the counter moved, and a read of its ``is_leaf`` or ``grad_fn`` raise a ``RuntimeError`` saying that its
# base or another view of its base has been modified inplace, whether ``requires_grad_()`` was called on the view or
# not (under ``torch.no_grad()`` it still clones). A write that moves no version counter (a step of an optimizer made
# with ``fused=True``, or a write through ``.data`` or NumPy) leaves it a leaf whose clone passes its base no gradient.
# An output ``o`` of ``unbind()``, ``split()``, ``split_with_sizes()`` or ``chunk()`` of a tensor that requires grad,
# taken with grad mode on, meets the same error once the counter moves: with grad mode on, ``o.clone()``,
# ``torch.empty_like(o).copy_(o)`` and ``o.double()`` raise; take the outputs again after the edit, or copy
# ``o.detach()``. The clone of a view of an inference tensor
# that requires grad, taken in one of these ways or with grad mode on, or of a view of it, has no ``grad_fn``, unlike
# the clone of the inference tensor itself: ``backward()``, with or without ``inputs=`` naming the base or the
# view, and ``torch.autograd.grad`` asked for either, even with ``allow_unused=True``, raise a ``RuntimeError``
# saying that it does not require grad and does not have a grad_fn. Rebinding a name
# proves nothing about memory; for a strided tensor on a device with real memory (not ``meta``), an in-place edit that
# changes every element reaches a tensor that shares those elements, as it reached ``d`` above, and leaves a copy with
# memory of its own, such as ``c``, as it was. Not for a sparse COO tensor: its ``mul_``, ``add_``, ``zero_`` or
# ``copy_`` gives the edited tensor new memory for its values, so ``a.detach()``, which shared them, misses the edit. When you want a copy that
# is out of the graph too, use :ref:`copying-safe-copy`.
# :fact:`inference-leaf-clone-in-graph` :fact:`clone-of-no-grad-view-passes-no-gradient`
# :fact:`no-grad-view-edit-breaks-clone` :fact:`split-output-edit-breaks-clone`
# :fact:`detach-sparse-coo-edit-not-shared`
