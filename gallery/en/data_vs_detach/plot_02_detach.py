"""
.. _data-vs-detach-detach:

``detach()``: the same edit, caught by autograd
===============================================

We repeat :ref:`the previous page <data-vs-detach-data>` with ``out.detach()`` in place of ``out.data``.
The edit reaches ``out`` just the same, but this time ``backward()`` raises a
``RuntimeError``. The version counters printed after every step show why.
"""

# %%
# The same small graph
# --------------------
#
# ``out = a.sigmoid()`` again, with the same helpers ``show`` and
# ``same_storage`` as on :ref:`the previous page <data-vs-detach-data>`. Both tensors start at version 0.
# (``_version`` is an internal attribute of torch: this site reads it to show
# the counter, but it may change between releases.)
import torch


def show(name, t):
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}")


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
show("a", a)
show("out", out)
# sphinx_gallery_start_ignore
assert a._version == 0 and out._version == 0, "both tensors start at version 0"
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
# ``detach()`` shares the numbers and does not require a gradient
# ---------------------------------------------------------------
#
# Like ``.data``, ``out.detach()`` returns a new tensor object over the same
# storage, with ``requires_grad=False`` and no ``grad_fn``.
c = out.detach()
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), "detach() shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, "detach() returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, "detach() gives a leaf that does not require grad"
# sphinx_gallery_end_ignore

# %%
# Zero ``out`` through ``c``: both versions move
# ----------------------------------------------
#
# Here is the difference from ``.data``. ``c.zero_()`` bumps the version
# counter to 1, and ``out._version`` is 1 as well: ``out.detach()`` shares the
# version counter of ``out``, so an edit through ``c`` is recorded on ``out``
# too.
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert c._version == 1 and out._version == 1, "c and out share one version counter"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a, out and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. ``out`` and ``c`` share the storage ``S2`` and the counter ``C2``: both show the edit.

draw_memory("c = out.detach(); c.zero_()", a=a, out=out, c=c)

# %%
# ``backward()`` refuses to run
# -----------------------------
#
# ``SigmoidBackward0`` saved ``out`` (it needs the output ``s`` to compute
# ``s * (1 - s)``) and noted its version at that moment: 0. When
# ``backward()`` unpacks the saved tensor, it compares that number with the
# current version, finds 1, and raises. ``a.grad`` stays ``None``.
try:
    out.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() must raise")
show("a", a)
print("a.grad:", a.grad)
assert "output 0 of Sigmoid, is at version 1; expected version 0 instead" in message, (
    "the error names Sigmoid, the forward operation, and gives both versions (the releases recorded before 2.13, "
    "2.4.1 to 2.12.1, named the backward node, SigmoidBackward0)")
# sphinx_gallery_start_ignore
assert "modified by an inplace operation" in message, "the error names the in-place edit"
assert a.grad is None, "no gradient was written"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph of out: SigmoidBackward0, whose saved result is now at version 1 where version 0 was saved, then AccumulateGrad and the leaf a.
#
#    The graph behind ``out``: the saved ``result`` reads ``_version 1 != 0``, its current version and the one autograd saved (highlighted).

draw_graph("out = a.sigmoid()", out, a=a)

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The article quotes only the first part of the message, "one of the
#    variables needed for gradient computation has been modified by an
#    inplace operation". On this torch the message goes on: it names the
#    tensor (``[torch.FloatTensor [3]]``, output 0 of ``Sigmoid``), gives the
#    version it found and the one it expected, and adds a hint about anomaly
#    detection (see the output above). The article also prints
#    ``SigmoidBackward``, where this torch prints ``SigmoidBackward0``.
article_text = "one of the variables needed for gradient computation has been modified by an inplace operation"
print("message starts with the article's text:", message.startswith(article_text))
print("article's text:", len(article_text), "characters; full message:", len(message), "characters")
print("out.grad_fn:", out.grad_fn.name())
assert message.startswith(article_text + ": "), "the article's text is only the start of the message"
# sphinx_gallery_start_ignore
assert "Hint: enable anomaly detection" in message, "the message ends with a hint"
assert "[torch.FloatTensor [3]]" in message, "the message names the tensor"
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"
# sphinx_gallery_end_ignore

# %%
# The check happens when a saved tensor is read
# ---------------------------------------------
#
# The saved output can be read as ``out.grad_fn._saved_result`` (see `Saved
# tensors <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__;
# the ``_saved_*`` attributes are internal to torch as well).
# Reading it now runs the same version check and raises the same error:
# ``backward()`` fails because it needs this tensor.
try:
    saved = out.grad_fn._saved_result
except RuntimeError as e:
    saved_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("reading the saved result must raise")
assert saved_message == message, "reading the saved tensor fails with the same message"

# %%
# One counter or two
# ------------------
#
# On a fresh graph we take both ``via_data = out.data`` and
# ``via_detach = out.detach()``, then edit through each in turn. An edit
# through ``via_data`` moves only its own counter. An edit through
# ``via_detach`` moves ``via_detach`` and ``out`` together and leaves
# ``via_data`` where it was.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
via_data = out.data
via_detach = out.detach()


def versions(step):
    counts = out._version, via_data._version, via_detach._version
    print(f"{step:<26} out={counts[0]}  via_data={counts[1]}  via_detach={counts[2]}")
    return counts


at_start = versions("start")

via_data.mul_(1)
after_data = versions("after via_data.mul_(1)")

via_detach.mul_(1)
after_detach = versions("after via_detach.mul_(1)")
assert after_detach == (1, 1, 1), "detach() shares out's counter"
# sphinx_gallery_start_ignore
assert after_data == (0, 1, 0), ".data has a counter of its own"
assert at_start == (0, 0, 0), "all start at 0"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Timeline: the _version of out, via_data and via_detach at the start, after via_data.mul_(1) and after via_detach.mul_(1).
#
#    The versions printed above, step by step; a highlighted number changed at that step.

draw_versions("_version", ["out", "via_data", "via_detach"],
              [("start", at_start), ("via_data.mul_(1)", after_data), ("via_detach.mul_(1)", after_detach)])

# %%
# A tensor taken later inherits the count: ``out.detach()`` reports the
# current version of ``out``, while ``out.data`` starts again from 0.
print("out._version:         ", out._version)
print("out.detach()._version:", out.detach()._version)
print("out.data._version:    ", out.data._version)
assert out.detach()._version == out._version == 1, "a new detach() sees the shared count"
# sphinx_gallery_start_ignore
assert out.data._version == 0, "a new .data starts a fresh counter"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# For a tensor of the default strided layout made outside ``torch.inference_mode()`` and not an inference tensor,
# ``detach()`` and ``.data`` share the same numbers, and only ``detach()`` also shares the version counter: that is
# what lets autograd notice that a tensor it had already saved was then changed by an in-place torch operation
# on its ``detach()``, and raise instead of returning a wrong gradient. A tensor that ``torch.inference_mode()``
# creates in new memory is an inference tensor with no version counter to share: reading its ``_version`` raises,
# and its ``detach()`` and ``.data``, taken outside the mode, both read 0 after edits made inside it
# (:ref:`copying-detach`). On the CPU, ``a.data = t`` with such a ``t`` makes a tensor ``a`` made outside the mode an
# inference tensor too, but one that keeps a counter of its own: reading ``a._version`` raises nothing, and
# ``a.detach()`` does not share that counter.
# :fact:`detach-edits-reach-both` :fact:`detach-edits-reach-both-every-dtype` :fact:`data-edits-reach-both`
# :fact:`data-edits-reach-both-every-dtype` :fact:`inference-mode-new-memory-is-inference`
# :fact:`inference-mode-new-memory-no-counter` :fact:`data-setter-inference-own-counter` The next
# page checks each point of the article's summary:
# :ref:`data-vs-detach-comparison`.
#
# Autograd does not notice such an edit of a tensor it saved through
# saved-tensor hooks, of one a custom ``Function`` kept as an attribute, or of one
# a custom ``Function`` saved but whose ``backward`` never reads ``ctx.saved_tensors``, nor an
# edit that moves no counter, such as one by ``apply_`` or ``map_`` (the ones this site checked are listed on
# :ref:`questions-version-counter`; other kernels may do the same).
# :fact:`saved-tensor-hooks-hide-edit` :fact:`ctx-attribute-escapes-version-check`
# :fact:`unread-saved-tensors-escape-version-check` :fact:`counter-bypass-edits-silent`
#
# For an input that does not require grad, as ``x`` below, ``torch.func.vjp`` does not notice such edits either:
# after an in-place edit of its input or output, direct or through ``detach()``, its ``vjp_fn`` raises nothing,
# with grad mode on or off and inside ``torch.inference_mode()``.
# With the two functions below (``sigmoid`` saves its output for its backward, ``t * t`` its input), it computes
# with the edited values of the tensor the function saved, so this page's edit gives a wrong gradient there too,
# while an edit of the tensor the function did not save leaves the result as it was (below). With an input that
# requires grad (a leaf, a non-leaf or a ``Parameter``) and grad mode on, ``vjp_fn`` still raises nothing after
# such an edit of ``sigmoid``'s output, but autograd records the gradient it returns, and differentiating that
# gradient, as a Hessian-vector product does, raises the same ``RuntimeError`` as this page's ``backward()``.
# :fact:`vjp-edits-unnoticed` :fact:`vjp-output-edit-caught-when-differentiated`

vjp_functions = {
    "sigmoid": (torch.sigmoid, "output", lambda x, y: y * (1 - y)),
    "t * t": (lambda t: t * t, "input", lambda x, y: 2 * x),
}
vjp_edits = {
    "output through detach()": lambda x, y: y.detach().zero_(),
    "output": lambda x, y: y.zero_(),
    "input through detach()": lambda x, y: x.detach().mul_(10),
    "input": lambda x, y: x.mul_(10),
}
for name, (f, saved, derivative) in vjp_functions.items():
    for where, edit in vjp_edits.items():
        x = torch.tensor([1.0, 2.0, 3.0])
        y, vjp_fn = torch.func.vjp(f, x)
        (before,) = vjp_fn(torch.ones(3))
        edit(x, y)
        (grad,) = vjp_fn(torch.ones(3))
        changed = not torch.equal(grad, before)
        print(f"{name:<7}  edit of the {where:<23}  changed: {changed!s:<5}  vjp_fn gives: {grad}")
        assert torch.equal(grad, derivative(x, y)) and changed == where.startswith(saved), \
            "vjp_fn of sigmoid and of t * t computes with the edited values of the tensor each saved, and an edit of the other changes nothing"
