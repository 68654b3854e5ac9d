"""
.. _questions-inplace-error:

"modified by an inplace operation": which tensor, and how to fix it
===================================================================

.. admonition:: Answer
   :class: answer

   An in-place operation changed a tensor that autograd saved for ``backward()``: its version is no longer the one autograd noted. Write the edit out of place:

   .. code-block:: python

      y = x.exp()
      y = y + 1
      y.sum().backward()

``backward()`` fails with an error that is one of those people most often bring to the PyTorch
trackers (`pytorch/pytorch#96265 <https://github.com/pytorch/pytorch/issues/96265>`__,
`pytorch/pytorch#39141 <https://github.com/pytorch/pytorch/issues/39141>`__). For ``y += 1`` after
``y = x.exp()`` on this page, torch prints it whole as:

``RuntimeError: one of the variables needed for gradient computation has been modified by an
inplace operation: [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected
version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its
gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).``

This page produces it in four settings (a saved output, a saved input, ``ReLU(inplace=True)``, two
optimizers), reads the message, finds the culprit, and checks each fix against the gradient calculus gives.
"""

# %%
# Helpers
# -------
#
# ``show`` prints what autograd keeps about a tensor: its version counter and
# the node (``grad_fn``) that produced it.
import sys
import warnings

import torch


def show(name, t):
    node = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}  grad_fn={node}")


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
# A saved output, edited in place
# -------------------------------
#
# The derivative of ``exp`` is ``exp`` itself, so ``y = x.exp()`` saves its
# output ``y`` for the backward pass, together with ``y``'s version at that
# moment: 0. ``y += 1`` is an in-place edit; it moves the version to 1.
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
show("y", y)
y += 1
show("y", y)
# sphinx_gallery_start_ignore
assert y.grad_fn.name() == "AddBackward0", "the in-place add rebased y's history"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph under y. AddBackward0 points to ExpBackward0, whose saved result reads _version 1 != 0; ExpBackward0 points to AccumulateGrad and the leaf x.
#
#    The graph under ``y``. ``ExpBackward0`` saved its result at version 0; after ``y += 1`` that
#    tensor is at version 1, so its box reads ``_version 1 != 0``.

draw_graph("y = x.exp(); y += 1", y, x=x)
# sphinx_gallery_start_ignore
assert y._version == 1, "y += 1 moved the version of the saved output to 1"
# sphinx_gallery_end_ignore

# %%
# ``backward()`` compares the two numbers and refuses:
try:
    y.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() through an edited saved output must raise")
print("x.grad:", x.grad)
assert f"output 0 of Exp, is at version {y._version}; expected version 0" in message, "the message names Exp, the forward operation (the releases recorded before 2.13, 2.4.1 to 2.12.1, named the backward node, ExpBackward0)"
# sphinx_gallery_start_ignore
assert message == (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead. Hint: "
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
), "the whole message, as the opening quotes it"
assert "[torch.FloatTensor [3]]" in message, "the message gives the type and shape"
assert y.grad_fn.name() == "AddBackward0", "the message names Exp although y's grad_fn at backward() is AddBackward0"
assert x.grad is None, "no gradient was written"
# sphinx_gallery_end_ignore

# %%
# Reading the message
# -------------------
#
# Each part of it points somewhere:
#
# - ``[torch.FloatTensor [3]]``: the type (``torch.FloatTensor``: float32 on the CPU) and shape of
#   the saved tensor;
# - ``which is output 0 of Exp``: it is the first output of ``exp``, the
#   forward operation that produced it (not the backward node that failed;
#   the releases recorded before 2.13, 2.4.1 to 2.12.1, named that node here, ``output 0 of ExpBackward0``);
# - ``is at version 1; expected version 0``: it was edited in place once
#   since ``exp`` saved it. The current version is the tensor's ``_version``.
#
# The fix: write the edit out of place. ``y = y + 1`` makes a new tensor and
# leaves the saved one alone, and the gradient is the one calculus gives,
# ``d/dx (exp(x) + 1) = exp(x)``.
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
y = y + 1
y.sum().backward()
show("y", y)
print("x.grad:  ", x.grad)
print("exp(x):  ", x.detach().exp())
assert torch.allclose(x.grad, x.detach().exp()), "the out-of-place edit gives the calculus gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(x.grad, torch.func.grad(lambda t: (t.exp() + 1).sum())(x.detach())), "torch.func.grad gives the same gradient"
assert "[torch.FloatTensor [3]]" in message and y.type() == "torch.FloatTensor" and (
    y.dtype == torch.float32 and y.device.type == "cpu"), "torch.FloatTensor, the type in the message, is float32 on the CPU"
# sphinx_gallery_end_ignore

# %%
# To keep the edit in place, run the forward pass, the edit and ``backward()`` inside
# ``torch.autograd.graph.allow_mutation_on_saved_tensors()``: it copies a saved tensor when an in-place
# operation writes through a tensor that begins at the saved tensor's first element (``y`` itself, ``y[:2]``,
# ``y.detach()``), so ``backward()`` runs and gives the same gradient (:ref:`questions-saved-tensors`). A write
# through a view that begins at another element (``y[1:]``, ``y[1]``) is neither copied nor checked:
# ``backward()`` raises nothing and computes with the edited values: here, a wrong gradient. Below, ``y += 1``,
# then one write per line, each in a fresh context with grad mode on (the hidden checks repeat them under
# ``torch.no_grad()``, and with ``y[1:]`` as the saved tensor).
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = x.exp()
    y += 1
    y.sum().backward()
print("x.grad, y += 1 inside allow_mutation_on_saved_tensors():", x.grad)
assert torch.allclose(x.grad, x.detach().exp()), "inside allow_mutation_on_saved_tensors() the in-place edit gives exp(x)"


def edit_with_mutation_allowed(write, no_grad=False):
    """x.grad, y after the write, and whether the tensor written begins at y's first element, for
    ``y = x.exp()``, ``write(y)`` and ``backward()`` run inside allow_mutation_on_saved_tensors()."""
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        y = x.exp()
        with torch.set_grad_enabled(not no_grad):
            written = write(y)
        y.sum().backward()
    return x.grad, y.detach(), written.data_ptr() == y.data_ptr()


writes = {
    "y[:].add_(1)": lambda y: y[:].add_(1),
    "y[:2].add_(1)": lambda y: y[:2].add_(1),
    "y[0].add_(1)": lambda y: y[0].add_(1),
    "y.detach().add_(1)": lambda y: y.detach().add_(1),
    "y.unsqueeze(0).add_(1)": lambda y: y.unsqueeze(0).add_(1),
    "y[1:].add_(1)": lambda y: y[1:].add_(1),
    "y[1].add_(1)": lambda y: y[1].add_(1),
    "y.detach()[1:].add_(1)": lambda y: y.detach()[1:].add_(1),
}
exp_of_x = torch.tensor([0.0, 1.0, 2.0]).exp()
for line, write in writes.items():
    grad, edited, same_start = edit_with_mutation_allowed(write)
    print(f"{line:24} begins at y[0]: {same_start!s:5}  x.grad: {grad}")
    assert torch.allclose(grad, exp_of_x) if same_start else torch.equal(grad, edited) and not torch.allclose(
        grad, exp_of_x), ("a write through a tensor that begins at y's first element is copied; one that begins "
                          "elsewhere is not, and backward() computes with the edited y")
# sphinx_gallery_start_ignore
assert sorted(edit_with_mutation_allowed(each_write)[2] for each_write in writes.values()) == [False] * 3 + [True] * 5, (
    "five of the writes begin at y's first element, three elsewhere")
for hidden_write_ in writes.values():
    off_grad_, off_edited_, off_same_start_ = edit_with_mutation_allowed(hidden_write_, no_grad=True)
    assert torch.allclose(off_grad_, exp_of_x) if off_same_start_ else torch.equal(off_grad_, off_edited_) and not (
        torch.allclose(off_grad_, exp_of_x)), ("under no_grad too, a write that begins at y's first element is "
                                              "copied, and one that begins elsewhere is not")


def saved_view_case_(write):
    """w.grad, the saved y[1:] as it is after the write, and whether the tensor written begins at y[1], for a
    product w * y[1:] (which saves y[1:]), write(y) and backward() inside allow_mutation_on_saved_tensors()."""
    weight_, source_ = torch.ones(2, requires_grad=True), torch.tensor([1.0, 2.0, 3.0])
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        saved_view_ = source_[1:]
        product_ = weight_ * saved_view_
        written_ = write(source_)
        product_.sum().backward()
    return weight_.grad, saved_view_.clone(), written_.data_ptr() == saved_view_.data_ptr()


view_cases_ = [saved_view_case_(view_write_) for view_write_ in writes.values()]
assert sum(view_same_start_ for _, _, view_same_start_ in view_cases_) == 3 and all(
    torch.equal(view_grad_, torch.tensor([2.0, 3.0])) if view_same_start_ else torch.equal(view_grad_, view_edited_)
    for view_grad_, view_edited_, view_same_start_ in view_cases_), (
    "for a saved view y[1:], a write that begins at its first element is copied; one that begins elsewhere is not, "
    "and backward() computes with the values as edited")
# sphinx_gallery_end_ignore

# %%
# An edit made before the save is fine
# ------------------------------------
#
# The check compares two numbers: the version a tensor had when an operation saved it, and its version
# when ``backward()`` needs it. An in-place edit made before the saving operation runs is already
# counted in the saved version, so ``backward()`` runs; each edit of the first loop below comes before
# ``sin()`` saves ``y``. There are two exceptions. One is an edit that saves ``y``, or a tensor sharing its
# version counter (``y[:]``, ``y.detach()``), for its own backward: ``y.mul_(y)``, ``y.mul_(y[:])`` and
# ``y.mul_(y.detach())`` (or ``y.div_(y)`` or ``y.addcmul_(y, y)``, which saves each of its two tensor operands
# for the other's gradient) save it and then write ``y``, an edit after a save, so ``backward()`` refuses, where
# ``y * y`` written out of place runs; ``y.addcmul_(y, c)``, with a ``c`` that does not require grad, saves
# nothing of ``y``, so ``backward()`` runs and gives the out-of-place gradient. The other is a tensor
# to be saved that is an output of ``unbind``, ``split`` (``split_with_sizes`` included) or ``chunk`` of a
# tensor that requires grad, a view taken with grad mode off of a tensor that requires grad (unless that
# tensor is a view whose ``_base``, an internal attribute of torch naming the tensor whose memory a view uses
# (for a view of a view, the first one's base), does not require grad, see below), a view of its input that a
# custom ``torch.autograd.Function`` returns, for an input that requires grad, or a view taken with grad mode on
# of any of these (``b.split(1)[0][:]``, ``b.chunk(2)[0].t()``): after an edit of its base, even under
# ``torch.no_grad()``, the
# operation that would save it raises at once, "... its base or another view of its base has been modified
# inplace ..." (for a view of a view taken with grad mode off, "... is a view of a view which was created in
# no_grad mode (in inference mode) and its base ..."), and nothing is saved (the third loop below; the fourth shows that such an
# output of a tensor that does not require grad is saved, edit and all, with no error). When autograd records an
# edit that ``backward()`` accepts (grad mode on, made on ``y`` itself, as each edit of the first loop),
# the gradient is the one the same code written out of place gives. Apart from these, the version check refuses
# only an edit made between a save and ``backward()``, and the message's "expected version" is then the version
# ``y`` had at the save: 1, after one edit.

edits = {
    "y.add_(1)": (lambda t: t.add_(1), lambda t: t + 1),
    "y.mul_(3)": (lambda t: t.mul_(3), lambda t: t * 3),
    "y.clamp_(max=2.0)": (lambda t: t.clamp_(max=2.0), lambda t: t.clamp(max=2.0)),
    "y.copy_(torch.ones(3))": (lambda t: t.copy_(torch.ones(3)), lambda t: t * 0 + torch.ones(3)),
}
out_of_place_grads = {}
for name, (in_place, out_of_place) in edits.items():
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = x * 2
    in_place(y)  # before sin() saves y
    y.sin().sum().backward()
    reference = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    out_of_place(reference * 2).sin().sum().backward()
    out_of_place_grads[name] = reference.grad
    print(f"{name} before the save: backward() runs, x.grad equals the out-of-place gradient:",
          torch.allclose(x.grad, reference.grad))  # fmt: skip
    assert torch.allclose(x.grad, reference.grad), f"{name} before the save is counted in the saved version"

saving_edits = {
    "y.mul_(y)": lambda t: t.mul_(t),
    "y.mul_(y[:])": lambda t: t.mul_(t[:]),
    "y.mul_(y.detach())": lambda t: t.mul_(t.detach()),
    "y.div_(y)": lambda t: t.div_(t),
    "y.addcmul_(y, y)": lambda t: t.addcmul_(t, t),
}
for name, saving_edit in saving_edits.items():
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = x * 2
    saving_edit(y)  # saves y or a tensor sharing its version counter for its own backward, then writes y
    try:
        y.sin().sum().backward()
    except RuntimeError as e:
        message = str(e)
        print(f"{name} before the save:", message[message.index("[torch.") : message.index(" instead")])
    else:
        raise AssertionError(
            f"{name} saves y or a tensor sharing its version counter, then writes y: backward() must raise")
    assert "is at version 1; expected version 0" in message, (
        f"{name} saved y or a tensor sharing its version counter at version 0, then wrote y")
# sphinx_gallery_start_ignore
squared_leaf = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
((squared_leaf * 2) * (squared_leaf * 2)).sin().sum().backward()
assert torch.allclose(squared_leaf.grad, 8 * squared_leaf.detach() * torch.cos(4 * squared_leaf.detach() ** 2)), (
    "y * y written out of place: backward() runs and gives the calculus gradient")
# sphinx_gallery_end_ignore

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
c = torch.tensor([2.0, 3.0, 4.0])  # does not require grad
y = x * 2
y.addcmul_(y, c)  # saves c for the gradient of y, nothing of y
y.sin().sum().backward()
reference = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
torch.addcmul(reference * 2, reference * 2, c).sin().sum().backward()
print("y.addcmul_(y, c): backward() runs, x.grad equals the out-of-place gradient:",
      torch.allclose(x.grad, reference.grad))  # fmt: skip
assert torch.allclose(x.grad, reference.grad), "y.addcmul_(y, c) saves nothing of y: backward() runs and gives the out-of-place gradient"

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x * 2
y.add_(1)
z = y.sin()
y.mul_(3)  # after sin() saved y
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print("y.mul_(3) after the save:", message[message.index("is at version") : message.index(" instead")])
else:
    raise AssertionError("an edit after the save must make backward() raise")
assert "is at version 2; expected version 1 instead" in message, "the expected version is the one at the save"


def view_under(grad_off_mode, b):
    with grad_off_mode():
        return b[0]


class ViewOfInput(torch.autograd.Function):  # a custom Function whose forward returns a view of its input
    @staticmethod
    def forward(ctx, t):
        return t[:]

    @staticmethod
    def backward(ctx, grad):
        return grad


views_of = {
    "b.chunk(2)[0]": lambda b: b.chunk(2)[0],
    "b.split(1)[0]": lambda b: b.split(1)[0],
    "b.split_with_sizes([1, 1])[0]": lambda b: b.split_with_sizes([1, 1])[0],
    "b.unbind()[0]": lambda b: b.unbind()[0],
    "b[0] under no_grad": lambda b: view_under(torch.no_grad, b),
    "b[0] under inference_mode": lambda b: view_under(torch.inference_mode, b),
    "b[1:][0], [0] under no_grad": lambda b: view_under(torch.no_grad, b[1:]),
    "b[1:][0], [0] under inference_mode": lambda b: view_under(torch.inference_mode, b[1:]),
    "b.split(1)[0][:]": lambda b: b.split(1)[0][:],
    "b.chunk(2)[0].t()": lambda b: b.chunk(2)[0].t(),
    "b[0][:2], [0] under no_grad": lambda b: view_under(torch.no_grad, b)[:2],
    "b[0][:2], [0] under inference_mode": lambda b: view_under(torch.inference_mode, b)[:2],
    "ViewOfInput.apply(b)": lambda b: ViewOfInput.apply(b),
}
for name, view in views_of.items():
    for leaf in (True, False):
        b = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = b if leaf else b * 1
        x = view(b)
        with torch.no_grad():
            b.mul_(2)  # before any save, as an optimizer step
        try:
            torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * x  # would save x
        except RuntimeError as e:
            message = str(e)
            print(f"x = {name:34} leaf b: {leaf!s:5}  w * x raises: {message[: message.index(' and its base')]}")
        else:
            raise AssertionError(f"x = {name}: after an edit of b, the operation that would save x must raise")
        assert "its base or another view of its base has been modified inplace" in message, (
            f"x = {name}: after an edit of b under no_grad, the operation that would save x raises the error on such views")
        # sphinx_gallery_start_ignore
        assert not name.startswith("b[0][:2]") or "is a view of a view which was created in " + (
            "no_grad" if "no_grad" in name else "inference") + " mode and its base" in message, (
            f"x = {name}: the message says that x is a view of a view taken with grad mode off")
        for saving_op in (torch.sin, torch.exp, torch.sigmoid):
            try:
                saving_op(x)
            except RuntimeError as e:
                assert "its base or another view of its base has been modified inplace" in str(e), (
                    f"x = {name}: after an edit of b under no_grad, sin(), exp() and sigmoid() of x raise the same error")
            else:
                raise AssertionError(f"x = {name}: after an edit of b, an operation that would save x must raise")
        # sphinx_gallery_end_ignore
for name, view in list(views_of.items())[:4]:
    b = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # does not require grad
    x = view(b)
    b.mul_(2)
    w = torch.ones(3, requires_grad=True)
    (w * x).sum().backward()  # saves x: nothing raises
    print(f"x = {name:29} b without grad: w * x saves x, w.grad: {w.grad}")
    assert torch.equal(w.grad, x.flatten()), f"x = {name} of a tensor that does not require grad: saved with the edit of b"

# %%
# An edit that autograd does not record is another matter. Made before the save under
# ``torch.no_grad()`` or through ``y.detach()``, it lets ``backward()`` run as well, but ``backward()``
# treats it as a constant: the gradient is the one of ``y + (edited - y).detach()``, where ``edited``
# is ``y`` after the edit (case 3 of :ref:`the check of the article's summary <data-vs-detach-comparison>`).
# For each edit below but ``add_``, whose derivative is 1, that is not the gradient the same code
# written out of place gives, and nothing raises. :fact:`detach-edit-before-save`
for name, (in_place, out_of_place) in edits.items():
    for way in ("under torch.no_grad()", "through y.detach()"):
        x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
        y = x * 2
        if way == "through y.detach()":
            in_place(y.detach())  # not recorded: y keeps its grad_fn
        else:
            with torch.no_grad():
                in_place(y)  # not recorded either
        y.sin().sum().backward()
        reference = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
        y_ref = reference * 2
        (y_ref + (out_of_place(y_ref) - y_ref).detach()).sin().sum().backward()
        same_as_constant = torch.allclose(x.grad, reference.grad)
        differs = not torch.allclose(x.grad, out_of_place_grads[name])
        print(f"{name} {way}: x.grad equals the gradient with the edit as a constant: {same_as_constant},"
              f" differs from the out-of-place gradient: {differs}")  # fmt: skip
        assert same_as_constant and differs == (name != "y.add_(1)"), (
            f"{name} {way} before the save is a constant to backward()")
        # sphinx_gallery_start_ignore
        assert y.grad_fn.name() == "MulBackward0", f"{name} {way} is not recorded: y keeps the grad_fn of x * 2"
        # sphinx_gallery_end_ignore

# %%
# A saved input, edited in place
# ------------------------------
#
# ``z = w * x`` needs ``x`` to compute the gradient of ``w``, so it saves
# ``x``. Editing ``x`` afterwards raises the same error, but this message
# names no operation: ``x`` was not produced by an operation autograd
# recorded, so there is no "output 0 of ..." to name. Look for a tensor of
# that shape that your own code edits in place.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
x += 1
show("x", x)
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() through an edited saved input must raise")
assert "[torch.FloatTensor [3]] is at version 1; expected version 0" in message, "no operation is named"

# %%
# When the saved input is itself the output of a recorded operation (here
# ``sin``), the message names the tensor's ``grad_fn`` as it is when
# ``backward()`` runs. An in-place edit that autograd records (grad mode on,
# made on ``x`` itself) replaces that ``grad_fn``: after ``x.mul_(2)`` the
# message says "output 0 of Mul", the edit itself, and not ``sin``.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True).sin()
z = w * x
x.mul_(2)
print("x.grad_fn:", x.grad_fn.name())
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() through an edited saved non-leaf must raise")
assert "which is output 0 of Mul, is at version 1" in message and x.grad_fn.name() == "MulBackward0", \
    "after the recorded edit, the message names it: output 0 of Mul, at version 1"
# sphinx_gallery_start_ignore
assert "Sin" not in message, "after the recorded edit, the operation that made x is not named"
# sphinx_gallery_end_ignore

# %%
# Other edits leave other names, since the message reads whatever ``grad_fn`` the tensor has then.
# Under ``torch.no_grad()`` or through ``x.detach()`` autograd does not record the edit, ``grad_fn``
# stays ``SinBackward0``, and the message says "output 0 of Sin": the operation that made ``x``,
# although the edit came after it. A recorded edit through a view of ``x`` (``x[:2].mul_(2)``) gives
# ``x`` the node ``CopySlices``, which the message names in full, ``torch::autograd::CopySlices``.
# When the saved tensor is itself a view that strides can express (``x = base[:]``), an edit of the view or of
# its base, recorded, under ``torch.no_grad()`` or through ``detach()``, leaves the view with the ``grad_fn``
# ``AsStridedBackward0``, and the message says "output 0 of AsStrided". Of the views that change the dtype or how the elements read,
# ``.real``, ``.imag`` and a slice of any of them name AsStrided too; when the last view taken is
# ``torch.view_as_real``, ``torch.view_as_complex`` or ``conj()``, the message names that operation (``.H``, ``.mH``
# and ``adjoint()`` of a complex tensor name Conj as well): "output 0 of ViewAsReal" for ``torch.view_as_real``.
# :fact:`saved-view-edit-error` :fact:`saved-conj-transpose-edit-error`
# ``view(dtype)`` gives a tensor with no ``grad_fn``, so the message names no operation.
# Each line below saves ``x`` with ``z = w * x``, makes
# one edit and runs ``backward()``.


def name_in_message(saved_view, no_grad, edit):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = torch.tensor([4.0, 5.0, 6.0], requires_grad=True).sin()
    x = base[:] if saved_view else base
    z = w * x
    with torch.set_grad_enabled(not no_grad):
        edit(x, base)
    try:
        z.sum().backward()
    except RuntimeError as e:
        return x.grad_fn.name(), str(e).split("which is ")[1].split(", is at")[0]
    raise AssertionError("backward() through an edited saved non-leaf must raise")


cases = {  # line: (x is the view base[:], the edit runs under torch.no_grad(), the edit)
    "x.mul_(2)": (False, False, lambda x, base: x.mul_(2)),
    "x.mul_(2) under no_grad": (False, True, lambda x, base: x.mul_(2)),
    "x.detach().mul_(2)": (False, False, lambda x, base: x.detach().mul_(2)),
    "x[:2].mul_(2)": (False, False, lambda x, base: x[:2].mul_(2)),
    "x = base[:]; x.mul_(2)": (True, False, lambda x, base: x.mul_(2)),
    "x = base[:]; x.mul_(2) under no_grad": (True, True, lambda x, base: x.mul_(2)),
    "x = base[:]; base.mul_(2)": (True, False, lambda x, base: base.mul_(2)),
    "x = base[:]; base.mul_(2) under no_grad": (True, True, lambda x, base: base.mul_(2)),
    "x = base[:]; x.detach().mul_(2)": (True, False, lambda x, base: x.detach().mul_(2)),
    "x = base[:]; base.detach().mul_(2)": (True, False, lambda x, base: base.detach().mul_(2)),
}
grad_fns, named = {}, {}
for line, (saved_view, no_grad, edit) in cases.items():
    grad_fns[line], named[line] = name_in_message(saved_view, no_grad, edit)
    print(f"{line:40} x.grad_fn: {grad_fns[line]:28} message: {named[line]}")
assert named["x.mul_(2) under no_grad"] == named["x.detach().mul_(2)"] == "output 0 of Sin", (
    "after an edit autograd does not record, the message names Sin, the operation that made x"
)
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
base = torch.tensor([4.0, 5.0, 6.0], requires_grad=True).sin()
x = base.view(torch.int32)
z = w * x
with torch.no_grad():
    base.mul_(2)
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print("x = base.view(torch.int32): x.grad_fn:", x.grad_fn, " message:", message.split(" is at")[0])
else:
    raise AssertionError("backward() after an edit of the base of a saved view(dtype) must raise")
assert x.grad_fn is None and "which is" not in message and "[torch.IntTensor [3]] is at version 1" in message, (
    "a saved view(dtype) has no grad_fn, and the message names no operation"
)
# sphinx_gallery_start_ignore
assert all(base.view(dtype_).grad_fn is None for dtype_ in (torch.float32, torch.float16, torch.int32, torch.uint8)), (
    "view(dtype) gives a tensor with no grad_fn, whatever the dtype")
assert all(named[line] == "output 0 of " + grad_fns[line].removesuffix("Backward0") for line in cases), (
    "every message names x's grad_fn at backward()"
)
assert named["x.mul_(2)"] == "output 0 of Mul", "a recorded edit of x itself names the edit, Mul"
assert named["x[:2].mul_(2)"] == "output 0 of torch::autograd::CopySlices", "a recorded edit through a view names CopySlices"
assert all(named[line] == "output 0 of AsStrided" for line in list(cases)[4:]), (
    "a saved view edited through itself or its base, recorded, under no_grad or through detach(), names AsStrided"
)
# sphinx_gallery_end_ignore

# %%
# A view taken under ``torch.no_grad()`` or ``torch.inference_mode()`` of a tensor that requires grad (unless
# that tensor is a view whose ``_base`` does not require grad, below) is
# another matter: after an edit of its base, or of the view under ``torch.no_grad()`` or through ``detach()``,
# ``backward()`` raises another error, "A view was created in no_grad mode (in inference mode) and its base or
# another view of its base has been modified inplace with grad mode enabled (in normal mode)", even when the edit
# ran under ``torch.no_grad()``, as an optimizer step edits a weight. A recorded edit of the view itself raises at
# once, with "A view was created in no_grad mode (in inference mode) and is being modified inplace with grad mode
# enabled (in normal mode)" (see :ref:`questions-overlapping-writes`). A view of a leaf, taken with grad mode
# on, has that leaf as its ``_base`` and is no exception. The exception is a tensor that is a view whose ``_base``
# does not require grad, as on :ref:`the views page <questions-views>`: a view made a leaf by ``requires_grad_()``
# (``view_leaf`` below), or a view of one taken with grad mode on (``view_leaf[:]``). A view of it taken with
# grad mode off does not require grad: an edit of its base before the save raises nothing, a recorded edit of
# that view runs, and ``backward()`` raises the usual "modified by an inplace operation" error.
# Each line below takes ``x = base[:]`` with grad mode off, saves
# it with ``z = w * x``, makes one edit and runs ``backward()``; the last two loops make the recorded edits.
def grad_off_view_error(mode, kind, no_grad, edit):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = grad_off_sources[kind](torch.tensor([4.0, 5.0, 6.0], requires_grad=True))
    with grad_off[mode]():
        x = base[:]
    z = w * x
    with torch.set_grad_enabled(not no_grad):
        edit(x, base)
    try:
        z.sum().backward()
    except RuntimeError as e:
        return str(e).split(". Given")[0]
    raise AssertionError("backward() after an edit of a saved view taken with grad mode off must raise")


grad_off = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
grad_off_sources = {"leaf": lambda b: b, "non-leaf": torch.sin, "view of a leaf": lambda b: b[:]}  # base, from leaf b
grad_off_cases = {  # line: (the kind of base, the edit runs under torch.no_grad(), the edit)
    "base.mul_(2)": ("non-leaf", False, lambda x, base: base.mul_(2)),
    "base.mul_(2) under no_grad": ("non-leaf", True, lambda x, base: base.mul_(2)),
    "leaf base; base.mul_(2) under no_grad": ("leaf", True, lambda x, base: base.mul_(2)),
    "base = b[:]; base.mul_(2) under no_grad": ("view of a leaf", True, lambda x, base: base.mul_(2)),
    "x.mul_(2) under no_grad": ("non-leaf", True, lambda x, base: x.mul_(2)),
    "x.detach().mul_(2)": ("non-leaf", False, lambda x, base: x.detach().mul_(2)),
    "base.detach().mul_(2)": ("non-leaf", False, lambda x, base: base.detach().mul_(2)),
}
grad_off_messages = {}
for mode in grad_off:
    for line, (kind, no_grad, edit) in grad_off_cases.items():
        grad_off_messages[mode, line] = grad_off_view_error(mode, kind, no_grad, edit)
        print(f"{mode:14} {line:40} message: {grad_off_messages[mode, line]}")
assert all(message == {
    "no_grad": "A view was created in no_grad mode and its base or another view of its base has been modified inplace "
               "with grad mode enabled",
    "inference_mode": "A view was created in inference mode and its base or another view of its base has been modified "
                      "inplace in normal mode"}[mode] for (mode, line), message in grad_off_messages.items()), (
    "after an edit of its base, or of it under no_grad or through detach(), a saved view taken with grad mode off "
    "makes backward() raise the error on views created in no_grad or inference mode")
# sphinx_gallery_start_ignore
leaf_ = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
assert grad_off_sources["view of a leaf"](leaf_)._base is leaf_, (
    "a view of a leaf taken with grad mode on has that leaf, which requires grad, as its _base")
# sphinx_gallery_end_ignore
for mode in grad_off:
    for kind, source in grad_off_sources.items():
        base = source(torch.tensor([4.0, 5.0, 6.0], requires_grad=True))
        with grad_off[mode]():
            x = base[:]
        try:
            x.mul_(2)  # recorded: grad mode is on
        except RuntimeError as e:
            message = str(e)
            print(f"{mode:14} base: {kind:14}  recorded x.mul_(2): {message.split('. Given')[0]}")
        else:
            raise AssertionError("a recorded edit of a view taken with grad mode off must raise at once")
        assert message.startswith({
            "no_grad": "A view was created in no_grad mode and is being modified inplace with grad mode enabled",
            "inference_mode": "A view was created in inference mode and is being modified inplace in normal mode"}[mode]), (
            "a recorded edit of a view taken with grad mode off raises at once")
for mode in grad_off:
    view_leaf = torch.tensor([0.0, 4.0, 5.0, 6.0])[1:].requires_grad_()  # a view made a leaf
    for kind, base in {"view_leaf": view_leaf, "view_leaf[:]": view_leaf[:]}.items():
        w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with grad_off[mode]():
            x = base[:]
        with torch.no_grad():
            base.mul_(2)  # an edit of its base before the save
        z = w * x  # saves x: nothing raises
        x.mul_(2)  # recorded, and it runs
        try:
            z.sum().backward()
        except RuntimeError as e:
            message = str(e)
            print(f"{mode:14} base: {kind:12}  base._base.requires_grad={base._base.requires_grad}  "
                  f"x.requires_grad={x.requires_grad}  after x.mul_(2), backward(): {message.split(':')[0]}")  # fmt: skip
        else:
            raise AssertionError("backward() after an edit of a saved view of a view whose _base needs no grad must raise")
        assert not base._base.requires_grad and not x.requires_grad and "modified by an inplace operation" in message \
            and "A view was" not in message, (
                f"a view taken with grad mode off of {kind}, a view whose _base does not require grad, does not require "
                "grad; an edit of its base before the save raises nothing; after a recorded edit of it, backward() "
                "raises the version error")

# %%
# Here the edit is wanted, so the fix is ``clone()`` before it: the
# multiplication saves a copy, and ``x`` is free to change. The gradient of
# ``w`` is the value ``x`` had when it was multiplied, ``d/dw sum(w * x) = x``.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x.clone()
x += 1
z.sum().backward()
show("x", x)
print("w.grad:", w.grad)
assert torch.equal(w.grad, torch.tensor([4.0, 5.0, 6.0])), "the gradient uses x as it was when multiplied"

# %%
# The version counts in-place torch operations (not ``apply_`` or ``map_``, which run a Python
# function on each value, nor a few torch kernels: :ref:`questions-version-counter`), not changed values. ``t_()`` on
# ``x.detach()``, an alias that shares ``x``'s version counter, transposes
# only that alias: ``x`` keeps its values and its shape, yet its version
# moves to 1 and ``backward()`` refuses.
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
x = torch.tensor([[4.0, 5.0], [6.0, 7.0]])
z = w * x
before = x.clone()
x.detach().t_()
show("x", x)
try:
    z.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after t_() on an alias of the saved x must raise")
assert torch.equal(x, before) and "is at version 1; expected version 0" in message, "t_() counts as an edit"

# %%
# ``ReLU(inplace=True)``
# ----------------------
#
# An in-place ReLU returns the very tensor it was given, edited. After
# ``sigmoid``, whose backward needs its own output, that is the same mistake
# as ``y += 1``: the message names ``Sigmoid``.
x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x.sigmoid()
r = torch.nn.ReLU(inplace=True)(h)
print("r is h:", r is h)
show("h", h)
try:
    r.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after an in-place ReLU on a saved output must raise")
assert "output 0 of Sigmoid, is at version 1; expected version 0" in message, "the message names Sigmoid"
# sphinx_gallery_start_ignore
assert r is h, "an in-place ReLU returns its input"
# sphinx_gallery_end_ignore

# %%
# An in-place operation on a view saves a view. ``ReLU(inplace=True)``, ``exp_()``, ``sigmoid_()`` and
# ``tanh_()`` on ``piece = h[:, :2]``, a slice of another operation's output ``h``, each save ``piece`` as
# their output, and the message names the operation only after a recorded edit of ``piece`` itself; after
# any other edit, of a view of ``piece``, of ``h``, under ``torch.no_grad()`` or through ``detach()``, it
# names ``AsStrided``. Each line below makes one edit after each of the four operations and runs
# ``backward()``; the hidden checks repeat them on ``h[:, 1:]``, ``h[0]``, ``h.view(3)`` and ``h.t()``.


def name_after_in_place_on_view(in_place, take_view, no_grad, edit):
    """The operation the message names after ``in_place`` on ``take_view(h)`` for ``h = x * 2``, then ``edit``."""
    x = torch.tensor([[-1.0, 0.5, 2.0]], requires_grad=True)
    h = x * 2
    piece = in_place(take_view(h))
    with torch.set_grad_enabled(not no_grad):
        edit(h, piece)
    try:
        h.sum().backward()
    except RuntimeError as e:
        return str(e).split("which is ")[1].split(", is at")[0]
    raise AssertionError("backward() after an edit of an output saved through a view must raise")


in_place_ops = {"Relu": torch.nn.ReLU(inplace=True), "Exp": torch.Tensor.exp_, "Sigmoid": torch.Tensor.sigmoid_,
                "Tanh": torch.Tensor.tanh_}
view_edits = {  # line: (the edit runs under torch.no_grad(), the edit)
    "piece.mul_(2)": (False, lambda h, piece: piece.mul_(2)),
    "piece.mul_(2) under no_grad": (True, lambda h, piece: piece.mul_(2)),
    "piece.detach().mul_(2)": (False, lambda h, piece: piece.detach().mul_(2)),
    "piece[..., :1].mul_(2)": (False, lambda h, piece: piece[..., :1].mul_(2)),
    "h.mul_(2)": (False, lambda h, piece: h.mul_(2)),
    "h.mul_(2) under no_grad": (True, lambda h, piece: h.mul_(2)),
    "h.detach().mul_(2)": (False, lambda h, piece: h.detach().mul_(2)),
    "h[:, 2:].mul_(2)": (False, lambda h, piece: h[:, 2:].mul_(2)),
}
for line, (no_grad, edit) in view_edits.items():
    named = {op: name_after_in_place_on_view(in_place, lambda h: h[:, :2], no_grad, edit)
             for op, in_place in in_place_ops.items()}
    print(f"{line:28} the message names: {', '.join(name.removeprefix('output 0 of ') for name in named.values())}")
    assert all(name == f"output 0 of {op if line == 'piece.mul_(2)' else 'AsStrided'}" for op, name in named.items()), (
        "the message names the in-place operation after a recorded edit of the view it wrote, AsStrided after "
        "any other edit")
# sphinx_gallery_start_ignore
for other_view_ in (lambda h: h[:, 1:], lambda h: h[0], lambda h: h.view(3), lambda h: h.t()):
    for edit_line_, (edit_no_grad_, view_edit_) in view_edits.items():
        assert all(name_after_in_place_on_view(in_place, other_view_, edit_no_grad_, view_edit_) == "output 0 of " + (
            op if edit_line_ == "piece.mul_(2)" else "AsStrided") for op, in_place in in_place_ops.items()), (
            "on other slices and views of h as well, the message names the in-place operation after a recorded edit "
            "of the view it wrote, AsStrided after any other edit")
# sphinx_gallery_end_ignore

# %%
# After a ``Linear`` layer the same in-place ReLU is harmless: the node of
# ``layer(x)`` below saves ``x`` and a view of the layer's weight, not its output. That
# is why ``inplace=True`` works after layers whose backward does not need
# their output, when that output is a new tensor that no other operation saved (a multiply by a gate
# that requires grad saves it, and ``backward()`` then raises). A view of the layer's input is not new (see
# the next cell); the view that ``nn.Linear`` with a bias returns for a 3-d input is a view of the product the
# layer computed, not of its input, and the in-place ReLU on it gives the same gradient as the plain ReLU
# (hidden checks).
# With grad mode on, outside ``torch.inference_mode()``, and an output that requires grad, it does not work
# on a piece of that output taken with ``chunk``, ``split`` (``split_with_sizes`` included) or ``unbind``, even
# when it is the only piece, or on a view of such a piece (``[:, :1]`` of it):
# ``ReLU(inplace=True)`` or ``torch.nn.functional.relu(..., inplace=True)`` on it raises at once, in
# the forward pass, and the message says the view "is the output of a function that returns multiple
# views". ``tensor_split`` also returns views of the output, yet the in-place ReLU on one of its
# pieces runs and gives the same gradient as the plain ReLU. (The seed fixes the layer's random
# weights, so the comparison is the same on every run.)
# :fact:`view-inplace-refused-outside-inference-mode`
torch.manual_seed(0)
layer = torch.nn.Linear(3, 2)
x = torch.tensor([[-1.0, 0.5, 2.0]], requires_grad=True)
out = torch.nn.ReLU(inplace=True)(layer(x))
out.sum().backward()
grad_inplace = x.grad.clone()
x.grad = None
torch.nn.ReLU()(layer(x)).sum().backward()
print("x.grad, in-place ReLU:", grad_inplace)
print("x.grad, plain ReLU:   ", x.grad)
assert torch.equal(grad_inplace, x.grad), "after Linear, the in-place ReLU gives the same gradient"
x.grad = None
out = layer(x)
torch.nn.ReLU(inplace=True)(out.tensor_split(2, dim=1)[0])
out.sum().backward()
print("x.grad, in-place ReLU on a tensor_split piece:", x.grad)
# sphinx_gallery_start_ignore
plain_pieces = layer(x).tensor_split(2, dim=1)
assert torch.equal(x.grad, torch.autograd.grad(torch.nn.ReLU()(plain_pieces[0]).sum() + plain_pieces[1].sum(), x)[0]), (
    "the in-place ReLU on a tensor_split piece gives the same gradient as the plain ReLU")
assert all(piece_of_out._base is out for piece_of_out in out.tensor_split(2, dim=1)), (
    "tensor_split returns views of the output")
assert torch.equal(out.detach(), layer(x).detach().clamp(min=0)) and (layer(x).detach() < 0).any(), (
    "the in-place ReLU on the tensor_split piece cleared a negative value of the output")
assert grad_inplace.abs().sum() > 0, "the gradient compared is not zero"
sequence_leaf_ = torch.linspace(-2.0, 2.0, 24, requires_grad=True)
sequence_out_ = layer(sequence_leaf_.reshape(4, 2, 3))
assert sequence_leaf_.reshape(4, 2, 3)._base is sequence_leaf_ and sequence_out_._base is not None and (
    sequence_out_._base is not sequence_leaf_), (
    "for a 3-d input, Linear with a bias returns a view of the product it computed, not of its input")
assert (sequence_out_ < 0).any(), "the 3-d Linear's output has a negative value for the ReLU to clear"
plain_sequence_grad_ = torch.autograd.grad(torch.nn.ReLU()(layer(sequence_leaf_.reshape(4, 2, 3))).sum(), sequence_leaf_)
assert torch.equal(torch.autograd.grad(torch.nn.ReLU(inplace=True)(sequence_out_).sum(), sequence_leaf_)[0],
                   plain_sequence_grad_[0]), "on the view a 3-d Linear returns, the in-place ReLU gives the same gradient"
linear_node = layer(x).grad_fn
assert (linear_node._saved_mat1 is x and linear_node._saved_mat2._base is layer.weight
        and "_saved_result" not in dir(linear_node)), (
    "the node of layer(x) saves x and a view of the layer's weight, not its output")
# sphinx_gallery_end_ignore
gate = torch.tensor([[2.0, 3.0]], requires_grad=True)
out = layer(x)
gated = out * gate  # the multiply saves out for gate's gradient
torch.nn.ReLU(inplace=True)(out)
try:
    (out.sum() + gated.sum()).backward()
except RuntimeError as e:
    assert "modified by an inplace operation" in str(e), "the multiply saved the ReLU's input"
    print("in-place ReLU after a gate multiply, backward():", type(e).__name__)
else:
    raise AssertionError("an in-place ReLU on an output another operation saved must make backward() raise")
pieces_of = {
    "chunk(2)": lambda t: t.chunk(2, dim=1), "split(1)": lambda t: t.split(1, dim=1), "unbind(1)": lambda t: t.unbind(1),
    "chunk(1)": lambda t: t.chunk(1, dim=1), "split(5)": lambda t: t.split(5, dim=1), "unbind(0)": lambda t: t.unbind(0),
    "split_with_sizes([1, 1])": lambda t: t.split_with_sizes([1, 1], dim=1),
    "[:, :1] of chunk(2)": lambda t: [piece[:, :1] for piece in t.chunk(2, dim=1)],
}
assert [len(pieces_of[name](layer(x))) for name in ("chunk(1)", "split(5)", "unbind(0)")] == [1] * 3, (
    "chunk(1), split(5) and unbind(0) of the output give a single piece")
refused = []
for grad_on in (torch.enable_grad, torch.no_grad):  # grad mode on: by default, and by enable_grad() in no_grad()
    for name, pieces in pieces_of.items():
        for relu_in_place in (torch.nn.ReLU(inplace=True), lambda t: torch.nn.functional.relu(t, inplace=True)):
            with grad_on(), torch.enable_grad():
                assert torch.is_grad_enabled(), "grad mode is on, outside inference_mode"
                try:
                    relu_in_place(pieces(layer(x))[0])
                except RuntimeError as e:
                    assert "is the output of a function that returns multiple views" in str(e), (
                        "an in-place ReLU on a piece from chunk, split or unbind, even the only piece, or on a view "
                        "of one, raises the multiple-views error")
                    refused.append(name)
                else:
                    raise AssertionError("an in-place ReLU on an output of chunk, split or unbind, even the only one, "
                                         "or on a view of one, must raise at once")
assert all(refused.count(name) == 4 for name in pieces_of), "two grad modes times two in-place ReLUs, each piece"
print("in-place ReLU raised at once, 4 times each, on the first piece of:", ", ".join(dict.fromkeys(refused)))

# %%
# A layer whose output shares its input's memory hands the edit to that input: ``nn.Identity`` returns
# the input itself, and ``nn.Flatten`` the input or a view of it wherever the strides allow, as they do
# for any contiguous input that has the dimensions ``start_dim`` and ``end_dim`` name, ``start_dim`` not
# after ``end_dim`` (with the defaults, 1 and -1, any contiguous input of two or more dimensions; ``h`` here
# is contiguous). After ``sigmoid``, ``nn.Flatten`` and then
# ``ReLU(inplace=True)`` edit the output ``sigmoid`` saved, and ``backward()`` raises, naming ``Sigmoid``.
# Where the strides allow no view, as for a ``channels_last`` batch of several channels and pixels,
# ``nn.Flatten()`` copies: the in-place ReLU edits the copy, and ``backward()`` runs. Under
# ``torch.no_grad()``, the in-place ReLU on a ``chunk`` piece runs.
x = torch.tensor([[-1.0, 0.5, 2.0]], requires_grad=True)
h = x.sigmoid()
flat = torch.nn.ReLU(inplace=True)(torch.nn.Flatten(0)(h))
print("h._version after the ReLU on the flattened h:", h._version)
try:
    flat.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after an in-place ReLU behind Flatten on a saved output must raise")
assert "output 0 of Sigmoid, is at version 1; expected version 0" in message, "behind Flatten, the message names Sigmoid"
with torch.no_grad():
    piece = torch.nn.ReLU(inplace=True)(layer(x).chunk(2, dim=1)[0])
print("under no_grad, the chunk piece after the in-place ReLU:", piece)
# sphinx_gallery_start_ignore
assert h._version == 1 and flat._version == 1, "the ReLU behind Flatten moved h's version"
assert torch.nn.Identity()(h) is h, "nn.Identity returns its input itself"
assert h.is_contiguous(), "the h flattened here is contiguous"
contiguous_inputs = [torch.arange(torch.Size(shape_).numel()).reshape(shape_).to(dtype_).clone() for shape_ in (
    (), (1,), (3,), (1, 3), (2, 1, 3), (2, 3, 4, 5), (6, 1), (0, 3)) for dtype_ in (torch.float32, torch.int64, torch.bool)
] + [torch.empty_strided((1, 3), (1, 1)), torch.ones(2, 3, requires_grad=True).exp()]
for flatten_mode in (torch.enable_grad, torch.no_grad):
    for contiguous_input in contiguous_inputs:
        assert contiguous_input.is_contiguous(), "each input flattened here is contiguous"
        dim_count = max(contiguous_input.dim(), 1)  # a 0-d tensor takes dimension 0 or -1
        flatten_layers = [torch.nn.Flatten(start_dim, end_dim) for start_dim in range(-dim_count, dim_count)
                          for end_dim in range(-dim_count, dim_count) if start_dim % dim_count <= end_dim % dim_count]
        for flatten_layer in flatten_layers + [torch.nn.Flatten()] * (contiguous_input.dim() >= 2):
            with flatten_mode():
                flattened = flatten_layer(contiguous_input)
            assert flattened.untyped_storage().data_ptr() == contiguous_input.untyped_storage().data_ptr() and (
                flattened is contiguous_input or flattened._base is contiguous_input), (
                "nn.Flatten returns a contiguous input or a view of it, for any start_dim and end_dim naming its "
                "dimensions in order, in grad mode and under no_grad")
for batch_shape in ((2, 3, 4, 5), (1, 3, 2, 2), (2, 2, 1, 3), (2, 2, 3, 1)):
    batch_leaf = torch.linspace(-2.0, 2.0, torch.Size(batch_shape).numel(), requires_grad=True)
    batch_h = batch_leaf.reshape(batch_shape).contiguous(memory_format=torch.channels_last).sigmoid()
    assert batch_h.is_contiguous(memory_format=torch.channels_last) and not batch_h.is_contiguous(), (
        "the sigmoid of a channels_last batch is channels_last")
    batch_flat = torch.nn.ReLU(inplace=True)(torch.nn.Flatten()(batch_h))
    assert batch_flat.untyped_storage().data_ptr() != batch_h.untyped_storage().data_ptr(), (
        "nn.Flatten() copies a channels_last batch of several channels and pixels")
    batch_flat.sum().backward()
    assert batch_h._version == 0 and torch.allclose(
        batch_leaf.grad, batch_leaf.detach().sigmoid() * (1 - batch_leaf.detach().sigmoid())), (
        "the in-place ReLU edits the copy: the saved sigmoid output keeps its version, and backward() runs")
assert torch.equal(piece, layer(x).detach().chunk(2, dim=1)[0].clamp(min=0)), (
    "under no_grad, an in-place ReLU on a chunk piece runs")
assert (layer(x).detach()[:, 0] < 0).all(), "the piece compared had a negative value for the ReLU to clear"
# sphinx_gallery_end_ignore

# %%
# Finding the culprit
# -------------------
#
# In a long model, printing ``_version`` after each suspect line finds the
# edit. Anomaly mode does the search for you: it records where each node was
# created in the forward pass, and when backward fails it warns with the name
# of the failing node and the traceback of the forward call that created it;
# the last frame of that traceback is the line ``y = x.exp()``. Here we catch
# the warnings and print the first line of the last one (the traceback gives
# file names and line numbers, which differ between the editions of this
# page); the first warning only says that the mode is on.
x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = x.exp()
        # sphinx_gallery_start_ignore
        forward_line = sys._getframe().f_lineno - 2
        # sphinx_gallery_end_ignore
        y += 1
        try:
            y.sum().backward()
        except RuntimeError as e:
            message = str(e)
            print(f"{type(e).__name__}: {e}")
        else:
            raise AssertionError("backward() must raise in anomaly mode too")
report = str(caught[-1].message)
print("warnings:", len(caught))
print("last warning, first line:", report.splitlines()[0])
assert "Error detected in ExpBackward0. Traceback of forward call" in report, "the warning names the node"
# sphinx_gallery_start_ignore
assert report.rsplit("line ", 1)[1].startswith(f"{forward_line}, in"), "the last frame is the line of y = x.exp()"
assert "Anomaly Detection has been enabled" in str(caught[0].message), "the first warning says the mode is on"
assert "The variable in question was changed in there or anywhere later" in message, \
    "in anomaly mode the error says the variable was changed in the named node or later"
# sphinx_gallery_end_ignore

# %%
# Two optimizers: "is at version 2; expected version 1"
# -----------------------------------------------------
#
# The GAN pattern of `pytorch/pytorch#39141
# <https://github.com/pytorch/pytorch/issues/39141>`__: both losses come from
# one forward pass through the discriminator ``D``; ``D`` takes its step
# between the two ``backward()`` calls. Freshly built, ``D`` has its weight
# already at version 1 (its initialisation edited it in place under ``no_grad``). The
# forward pass saved ``D.weight`` transposed, a ``[3, 1]`` view that shares
# its version counter (the message calls it "output 0 of AsStrided"), at
# version 1; ``opt_D.step()`` edits it in place once more. Made with ``fused=True``, ``opt_D``
# would move no counter, and this ``backward()`` would raise nothing and give ``G`` a wrong
# gradient: wrong, with no error (:ref:`questions-version-counter`).
G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt_G = torch.optim.SGD(G.parameters(), lr=0.1)
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
noise = torch.randn(4, 2)
score = D(G(noise))
loss_D = score.mean()
loss_G = -score.mean()
saved = score.grad_fn._saved_mat2
at_forward = D.weight._version
print("saved:", tuple(saved.shape), " saved._base is D.weight:", saved._base is D.weight)
print("D.weight._version after forward:", at_forward)
opt_D.zero_grad()
loss_D.backward(retain_graph=True)
opt_D.step()
print("D.weight._version after opt_D.step():", D.weight._version)
try:
    opt_G.zero_grad()
    loss_G.backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("loss_G.backward() after opt_D.step() must raise")
assert "[torch.FloatTensor [3, 1]], which is output 0 of AsStrided, is at version 2; expected version 1" in message, \
    "the error names D.weight's transpose (AsStrided), at version 2 where 1 was saved"
# sphinx_gallery_start_ignore
assert at_forward == 1 and saved._base is D.weight, "the saved tensor is a view of D.weight, saved at version 1"


def fused_gan_grad():
    with torch.random.fork_rng():
        fused_g, fused_d = torch.nn.Linear(2, 3), torch.nn.Linear(3, 1)
    fused_step = torch.optim.SGD(fused_d.parameters(), lr=0.1, fused=True)
    fused_score = fused_d(fused_g(torch.ones(4, 2)))
    calculus = torch.autograd.grad(-fused_score.mean(), fused_g.weight, retain_graph=True)[0]
    fused_score.mean().backward(retain_graph=True)
    before_step = [param._version for param in fused_d.parameters()]
    fused_step.step()
    counters_kept = [param._version for param in fused_d.parameters()] == before_step
    try:
        after_step = torch.autograd.grad(-fused_score.mean(), fused_g.weight)[0]
    except RuntimeError:
        return None, calculus, counters_kept
    return after_step, calculus, counters_kept


fused_grad, fused_calculus, fused_counters_kept = fused_gan_grad()
assert fused_counters_kept, "with a fused opt_D, opt_D.step() moves the counter of neither D.weight nor D.bias"
assert fused_grad is not None, "with a fused opt_D, loss_G.backward() raises nothing"
assert not torch.allclose(fused_grad, fused_calculus), "with a fused opt_D, G's gradient is wrong, with no error"
# sphinx_gallery_end_ignore

# %%
# The fix is to reorder: compute both gradients while the weights are as the
# forward pass saw them, then step. ``inputs=`` sends each loss's gradient to
# its own model only. ``G``'s gradient then equals what ``torch.func.grad``
# computes from the same weights.
G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt_G = torch.optim.SGD(G.parameters(), lr=0.1)
opt_D = torch.optim.SGD(D.parameters(), lr=0.1)
noise = torch.randn(4, 2)


def generator_loss(params):
    return -D(torch.func.functional_call(G, params, (noise,))).mean()


expected = torch.func.grad(generator_loss)(dict(G.named_parameters()))
score = D(G(noise))
loss_D = score.mean()
loss_G = -score.mean()
loss_D.backward(retain_graph=True, inputs=list(D.parameters()))
loss_G.backward(inputs=list(G.parameters()))
opt_D.step()
opt_G.step()
print("G.weight.grad:", G.weight.grad)
print("torch.func.grad:", expected["weight"].detach())
print("D.weight._version:", D.weight._version)
assert torch.allclose(G.weight.grad, expected["weight"]), "G's gradient is the one computed before the step"
# sphinx_gallery_start_ignore
assert torch.allclose(G.bias.grad, expected["bias"]), "G's bias gradient is also the one computed before the step"
assert D.weight._version == 2, "one step after initialisation"
# sphinx_gallery_end_ignore

# %%
# The usual GAN loop avoids the error in another way: it detaches the fake for ``D``'s loss, so
# that loss never reaches ``G``, and after ``opt_D.step()`` it runs ``D(fake)`` again for ``G``'s
# loss, so the graph behind ``loss_G`` saved ``D``'s weights as they are after the step. Three steps
# with Adam run without an error.
torch.manual_seed(0)
G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt_G = torch.optim.Adam(G.parameters(), lr=0.01)
opt_D = torch.optim.Adam(D.parameters(), lr=0.01)
bce = torch.nn.functional.binary_cross_entropy_with_logits
real, ones, zeros = torch.randn(4, 3) + 2.0, torch.ones(4, 1), torch.zeros(4, 1)
untouched = []
for step in range(3):
    fake = G(torch.randn(4, 2))
    opt_D.zero_grad()
    opt_G.zero_grad()
    loss_D = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    loss_D.backward()
    opt_D.step()
    untouched.append(G.weight.grad is None)
    loss_G = bce(D(fake), ones)
    loss_G.backward()
    opt_G.step()
    print(f"step {step}: loss_D {loss_D.item():.4f}  loss_G {loss_G.item():.4f}")
print("G had no gradient after D's backward, every step:", all(untouched))
assert all(untouched) and G.weight.grad is not None, "D's loss never reaches G; G's own loss does"

# %%
# Conclusion
# ----------
#
# The message names the saved tensor by its type and shape, and names an
# operation: for a saved output, the operation that produced it, even after
# an in-place edit gave the tensor a new ``grad_fn`` (``y += 1`` above), unless an in-place operation wrote it
# through a view of another output (``ReLU(inplace=True)`` on ``h[:, :2]``): then ``AsStrided`` after any edit but
# a recorded one of that view itself; for a
# saved non-leaf input, the input's ``grad_fn`` at the time ``backward()``
# runs: the edit, after one autograd records on the input itself; still the
# operation that made the input, after one under ``torch.no_grad()`` or
# through ``detach()`` on an input that is not a view; ``CopySlices`` after a recorded edit through a view;
# ``AsStrided`` when the saved input is a single view that strides can express (a slice, a transpose, a
# ``view()``, ``.real`` or ``.imag`` ...) and it or its base was edited, recorded, under ``torch.no_grad()`` or
# through ``detach()``;
# the view's own operation when the last view taken is ``torch.view_as_real``, ``torch.view_as_complex`` or
# ``conj()`` (``ViewAsReal``, ``ViewAsComplex``, ``Conj``; ``.H``, ``.mH`` and ``adjoint()`` of a complex tensor
# give ``Conj`` too). For an output of ``unbind``, ``split``
# or ``chunk`` of a tensor that requires grad, for a view taken under ``torch.no_grad()`` or
# ``torch.inference_mode()`` of a tensor that requires grad (unless that tensor is a view whose ``_base`` does not
# require grad), and for a view taken of either with grad mode on (``b.split(1)[0][:]``), ``backward()`` raises
# another error instead (“... its base or another
# view of its base has been modified inplace ...”), and a recorded edit of that output or view raises at once.
# :fact:`saved-view-edit-error` :fact:`saved-conj-transpose-edit-error` A saved tensor with no ``grad_fn`` gets no name. Its two
# versions differ because an in-place operation ran on the tensor, or on one
# sharing its version counter, after it was saved, even one that changes no
# value, as ``t_()`` above. ``_version`` or anomaly mode finds the line. Fixes include: write the edit out of
# place, give the operation a ``clone()``, run the forward pass, the edit and ``backward()`` inside
# ``allow_mutation_on_saved_tensors()`` (when the edit writes through a tensor that begins at the saved tensor's
# first element: a write through ``y[1:]`` is neither copied nor checked), reorder so that every ``backward()`` runs before
# the edit, or, as a GAN loop does, build the graph again after the edit.
# The reverse mistake, an edit that autograd never sees, is on
# :ref:`data-vs-detach-data`.
