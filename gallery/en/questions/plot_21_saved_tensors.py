"""
.. _questions-saved-tensors:

Which in-place edit breaks ``backward()``: what an operation saved
==================================================================

.. admonition:: Answer
   :class: answer

   Apart from the exceptions below, an in-place edit autograd sees breaks a ``backward()``
   that runs the operation that saved the tensor it changes: ``exp`` saves its output, ``sin`` its input,
   ``mul`` the other operand, ``add`` nothing. Edit a new tensor instead:

   .. code-block:: python

      y = a.exp()
      y = y + 1
      loss.backward()

``y += 1`` after ``y = a.exp()`` makes ``backward()`` raise "modified by an inplace operation",
while the same edit after ``y = a.sin()`` passes. The exceptions are a tensor saved via ``saved_tensors_hooks``,
one a custom ``Function`` kept as a ``ctx`` attribute, and one a custom ``Function`` saved but whose ``backward``
never reads ``ctx.saved_tensors``. This page reads what each operation saved
(its input, its output, both or nothing), shows it with ``saved_tensors_hooks``, checks which edit
breaks ``backward()`` for common operations, and what copying on save, ``torch.utils.checkpoint``
and ``retain_graph`` change. The table :doc:`/saved` measures the same for many more operations.
"""

# %%
# Helpers
# -------
#
# ``breaks(op, edit)`` runs ``y = op(a, b)`` on a fresh ``a`` and ``b`` (outputs of a multiplication,
# as activations in a model are), edits ``a``, ``b`` or ``y`` in place, and reports whether
# ``backward()`` then raised.

import warnings

import torch
from torch.autograd.graph import saved_tensors_hooks
from torch.utils.checkpoint import checkpoint


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def breaks(op, edit):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a, b = x * 2, x * 3
    y = op(a, b)
    {"a": a, "b": b, "y": y}[edit].mul_(2)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return "modified by an inplace operation" in str(e)
    return False


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
# ``a`` stands for an activation inside a model: the output of an operation on a weight ``x``. Add
# one to ``exp(a)`` in place and ``backward()`` raises; do the same to ``sin(a)`` and it runs, with
# the gradient calculus gives, ``d/dx sum(sin(2x) + 1) = 2 cos(2x)``.

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
a = x * 2
y = a.exp()
y += 1
try:
    y.sum().backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() after an in-place edit of exp's output must raise")
s = a.sin()
s += 1
s.sum().backward()
print("x.grad:", x.grad)
assert torch.allclose(x.grad, 2 * torch.cos(2 * x.detach())), "the edit of sin's output left the gradient right"

# %%
# What a node saved
# -----------------
#
# The node behind a result (its ``grad_fn``) keeps what its gradient formula needs, in attributes
# named ``_saved_*``. Like ``_version``, these are internal to torch and may change between
# releases. ``ExpBackward0`` keeps ``result``, a tensor on ``y``'s memory: the derivative of
# ``exp`` is ``exp`` itself. ``SinBackward0`` keeps ``self``, the input ``a``, because its
# derivative is ``cos(a)``. ``AddBackward0`` keeps only the number ``alpha``.

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
a, b = x * 2, x * 3
nodes = {"exp": a.exp(), "sin": a.sin(), "mul": a * b, "add": a + b}
for name, out in nodes.items():
    print(f"{name}: {out.grad_fn.name()} saved", sorted(k for k in dir(out.grad_fn) if k.startswith("_saved_")))
print("exp's result on y's memory:", same_storage(nodes["exp"].grad_fn._saved_result, nodes["exp"]))
print("sin's self on a's memory:", same_storage(nodes["sin"].grad_fn._saved_self, a))
assert same_storage(nodes["exp"].grad_fn._saved_result, nodes["exp"]), "exp saved its output"
# sphinx_gallery_start_ignore
assert same_storage(nodes["sin"].grad_fn._saved_self, a), "sin saved its input"
assert same_storage(nodes["mul"].grad_fn._saved_self, a), "mul saved its first operand"
assert same_storage(nodes["mul"].grad_fn._saved_other, b), "mul saved its second operand"
assert [k for k in dir(nodes["add"].grad_fn) if k.startswith("_saved_")] == ["_saved_alpha"], "add saved a number"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph of exp(a * b). ExpBackward0 saved its result; the MulBackward0 of a * b saved self and other; the two MulBackward0 nodes of a = x * 2 and b = x * 3 saved only other; all lead to AccumulateGrad and the leaf x.
#
#    The graph of ``(a * b).exp()``: ``ExpBackward0`` saved its result, the ``MulBackward0`` of
#    ``a * b`` both operands; those of ``a = x * 2`` and ``b = x * 3`` saved only ``other``, the
#    constant, since ``x`` is not needed for their gradient.

out = (a * b).exp()
draw_graph("out = (a * b).exp()", out, x=x)
# sphinx_gallery_start_ignore
assert out.grad_fn.next_functions[0][0].name() == "MulBackward0", "exp's input came from the multiplication"
assert a.grad_fn._saved_self is None and a.grad_fn._saved_other.item() == 2, "x * 2 saved only the constant"
assert b.grad_fn._saved_self is None and b.grad_fn._saved_other.item() == 3, "x * 3 saved only the constant"
# sphinx_gallery_end_ignore

# %%
# Seeing what is packed
# ---------------------
#
# ``torch.autograd.graph.saved_tensors_hooks(pack, unpack)`` hands every tensor an operation saves
# to ``pack`` as the operation runs, except a Python number the operation wraps as a tensor
# (``x * 2`` keeps its ``2`` without the hook: :doc:`/saved`), and ``backward()`` gets it back
# through ``unpack``. Of nested pairs, only the innermost gets them: an outer ``pack`` sees nothing an
# operation saves inside ``torch.autograd.graph.save_on_cpu()``, another ``saved_tensors_hooks`` or a
# function run by ``torch.utils.checkpoint``; from a checkpoint it gets only the tensors passed to the function as
# positional arguments, which ``checkpoint`` itself saves (not one passed by keyword, which only
# ``use_reentrant=False`` takes, or inside a list). But with ``use_reentrant=True`` (which a ``checkpoint`` call
# without the argument also uses), ``checkpoint`` runs the function again during ``backward()``, and a
# ``backward()`` run inside the outer pair hands what that second run saves to the outer ``pack``.
# Recording what ``pack`` receives is a public way to see which tensors are
# saved: for ``exp`` it is the output tensor ``y`` itself, for ``sin`` the input ``a`` itself.
# :fact:`wrapped-number-saved-outside-hooks`

packed = []
with saved_tensors_hooks(lambda t: packed.append(t) or len(packed) - 1, lambda i: packed[i]):
    y = a.exp()
    s = a.sin()
print("packed:", len(packed), " packed[0] is y:", packed[0] is y, " packed[1] is a:", packed[1] is a)
assert packed[0] is y and packed[1] is a, "exp packed its output, sin its input"
# sphinx_gallery_start_ignore
number_packed = []
with saved_tensors_hooks(lambda t: number_packed.append(t) or t, lambda t: t):
    doubled = torch.ones(3, requires_grad=True) * 2
assert not number_packed and doubled.grad_fn._saved_other.item() == 2, "x * 2 saves its 2 without the hook"
outer_packed, nested_input, unsaved_input = [], torch.ones(3, requires_grad=True) * 2, torch.ones(3, requires_grad=True) * 3
with saved_tensors_hooks(lambda t: outer_packed.append(t) or t, lambda t: t):
    with torch.autograd.graph.save_on_cpu():
        nested_input.exp()
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        nested_input.exp()
    checkpoint(lambda t: t.exp().exp(), nested_input, use_reentrant=False)
    checkpoint(lambda t: t.exp().exp(), nested_input, use_reentrant=True)
    checkpoint(lambda t, *, k: (t * k).exp(), nested_input, k=unsaved_input, use_reentrant=False)
    checkpoint(lambda t, ks: (t * ks[0]).exp(), nested_input, [unsaved_input], use_reentrant=False)
    checkpoint(lambda t, ks: (t * ks[0]).exp(), nested_input, [unsaved_input], use_reentrant=True)
assert len(outer_packed) == 5 and all(t is nested_input for t in outer_packed), (
    "an outer pack gets nothing saved inside save_on_cpu(), an inner pair or a checkpointed function, "
    "only the tensors passed to the checkpointed function as positional arguments (not by keyword or in a list)")


def outer_pack_counts(**checkpoint_options):
    rerun_leaf, rerun_packed = torch.tensor([0.5, -1.0, 2.0], requires_grad=True), []
    with saved_tensors_hooks(lambda t: rerun_packed.append(t) or t, lambda t: t):
        rerun_out = checkpoint(lambda t: t.exp().sin(), rerun_leaf * 2, **checkpoint_options)
        forward_count = len(rerun_packed)
        rerun_out.sum().backward()
    return forward_count, len(rerun_packed) - forward_count


assert outer_pack_counts(use_reentrant=False) == (1, 0), (
    "use_reentrant=False: a backward() inside the outer pair hands it nothing the rerun saves")
assert outer_pack_counts(use_reentrant=True) == (1, 2), (
    "use_reentrant=True: a backward() inside the outer pair hands it what the rerun saves")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # checkpoint without use_reentrant warns (checked below)
    assert outer_pack_counts() == (1, 2), "a checkpoint call without use_reentrant runs the reentrant variant"
# sphinx_gallery_end_ignore

# %%
# Which edit breaks ``backward()``
# --------------------------------
#
# For common operations: what ``pack`` received (the inputs ``a``, ``b`` or the output ``y``), and
# whether an in-place edit of each breaks ``backward()``. For each of them, an edit breaks it
# exactly when the edited tensor was saved. ``mul`` saves each operand because the gradient of
# the other one needs it (when only ``a`` needs a gradient, ``a * c`` saves only ``c``). An edit
# through ``.data``, or through a tensor or NumPy array on the same memory that does not share the
# version counter (from ``torch.from_dlpack``, ``torch.from_numpy`` or ``.numpy()``), is one autograd
# does not see: the saved output changes, ``backward()`` runs, and the gradient is wrong (here twice
# ``exp(v)``).

ops = {
    "exp": lambda a, b: a.exp(),
    "sin": lambda a, b: a.sin(),
    "relu": lambda a, b: a.relu(),
    "sigmoid": lambda a, b: a.sigmoid(),
    "tanh": lambda a, b: a.tanh(),
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
}


def saved(op):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a, b, packed = x * 2, x * 3, []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = op(a, b)
    return [name for name, t in {"a": a, "b": b, "y": y}.items() if any(p is t for p in packed)]


for name, op in ops.items():
    edits = {edit: breaks(op, edit) for edit in ("a", "b", "y")}
    print(f"{name:8} saved {saved(op)!s:16} edit breaks backward():", edits)
    assert [edit for edit, broke in edits.items() if broke] == saved(op), f"{name}: an edit breaks it iff saved"
# sphinx_gallery_start_ignore
assert saved(lambda a, b: a * b.detach()) == [], "a * c saved neither a nor the c it was given"
assert (a * torch.ones(3)).grad_fn._saved_self is None, "a * c did not save a"
only_c = torch.ones(3)
assert (a * only_c).grad_fn._saved_other is only_c, "a * c saved c"
assert {name: saved(op) for name, op in ops.items()} == {
    "exp": ["y"], "sin": ["a"], "relu": ["y"], "sigmoid": ["y"], "tanh": ["y"], "mul": ["a", "b"], "add": []
}, "exp, relu, sigmoid and tanh saved their output and not their input; sin its input; mul both; add nothing"
# sphinx_gallery_end_ignore
v = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
v_exp = v.exp()
v_exp.data.mul_(2)
v_exp.sum().backward()
print("edit through .data: v.grad:", v.grad, " exp(v):", v.detach().exp())
assert torch.allclose(v.grad, 2 * v.detach().exp()), "an edit through .data is not caught: the gradient is wrong"
for route in ("torch.from_dlpack", "torch.from_numpy", "the NumPy array"):
    u = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    u_exp = u.exp()
    if route == "torch.from_dlpack":
        torch.from_dlpack(u_exp.detach()).mul_(2)
    elif route == "torch.from_numpy":
        torch.from_numpy(u_exp.detach().numpy()).mul_(2)
    else:
        u_exp.detach().numpy()[:] *= 2
    u_exp.sum().backward()
    print(f"edit through {route}: u.grad:", u.grad)
    assert torch.allclose(u.grad, 2 * u.detach().exp()), f"an edit through {route} is not caught: the gradient is wrong"

# %%
# The fix, in a training loop
# ---------------------------
#
# The loop below fits ``w`` so that ``exp(w * inputs) + 1`` matches ``targets``. Written with
# ``y += 1`` it raises at the first ``backward()``; with ``y = y + 1`` the ``+ 1`` makes a new
# tensor, the saved output stays as it was, and each step's gradient is the one calculus gives,
# ``mean(2 (y - targets) exp(w * inputs) inputs)``.

inputs, targets = torch.tensor([0.1, 0.2, 0.3]), torch.tensor([2.2, 2.5, 2.9])
w = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
losses = []
for step in range(3):
    optimizer.zero_grad()
    a = w * inputs
    y = a.exp()
    y = y + 1
    loss = ((y - targets) ** 2).mean()
    loss.backward()
    expected = (2 * (y - targets) * a.exp() * inputs / 3).detach()
    assert torch.allclose(w.grad, expected), f"step {step}: the gradient calculus gives"
    optimizer.step()
    losses.append(round(loss.item(), 4))
print("losses:", losses)
# sphinx_gallery_start_ignore
assert losses == sorted(losses, reverse=True), "the loss goes down"
assert breaks(lambda a, b: a.exp(), "y"), "the in-place form of the same loop raises"
# sphinx_gallery_end_ignore

# %%
# Copy on save, and the hook that hides the edit
# ----------------------------------------------
#
# Hooks can also keep the old value for you: a ``pack`` that returns ``t.clone()`` saves a copy, so
# the in-place edit no longer reaches what ``backward()`` reads, and the gradient is right. A
# ``pack`` that returns ``t`` as it is neither copies nor checks: the same edit passes silently
# and the gradient comes out wrong, ``2 (exp(2x) + 1)`` instead of ``2 exp(2x)``. Torch has a
# copying kind built in, which copies a saved tensor when an in-place operation writes through a tensor that
# begins at its first element (the rule :ref:`questions-inplace-error` checks), not when it is saved:
# inside ``torch.autograd.graph.allow_mutation_on_saved_tensors()`` the saved output is on ``y``'s
# memory until the edit, and when the forward, ``y += 1`` and the ``backward()`` all run inside it,
# none of them raises and the gradient is right. An edit through ``y[1:]``, which begins at another element,
# is neither copied nor checked: ``backward()`` raises nothing and the gradient comes out wrong. A ``backward()`` run after leaving the
# context raises an ``AssertionError`` when it reads a tensor the context's hooks saved, edited or
# not; one through ``x * 2`` alone, which keeps its ``2`` without the hooks, raises nothing. A custom
# ``torch.autograd.Function`` that keeps its input ``a`` as ``ctx.x`` instead of through
# ``ctx.save_for_backward`` does not check either: after ``a.detach().mul_(10)``, ``backward()`` raises
# nothing and ``a.grad`` is wrong. Nor does one that saves ``a`` with ``ctx.save_for_backward`` but whose
# ``backward`` never reads ``ctx.saved_tensors``: after the same edit, ``backward()`` raises nothing.
# :fact:`ctx-attribute-escapes-version-check` :fact:`unread-saved-tensors-escape-version-check`

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
    y = (x * 2).exp()
y += 1
y.sum().backward()
print("copy on save, x.grad:", x.grad)
assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), "the copy kept the saved output"
x.grad = None
with saved_tensors_hooks(lambda t: t, lambda t: t):
    y = (x * 2).exp()
y += 1
y.sum().backward()
print("as it is, x.grad:     ", x.grad)
assert torch.allclose(x.grad, 2 * (torch.exp(2 * x.detach()) + 1)), "the edit went unseen into the gradient"
x.grad = None
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = (x * 2).exp()
    saved_on_y = same_storage(y.grad_fn._saved_result, y)
    y += 1
    y.sum().backward()
print("before the edit, saved output on y's memory:", saved_on_y)
print("allow_mutation_on_saved_tensors, x.grad:", x.grad)
assert saved_on_y, "allow_mutation_on_saved_tensors() saved no copy before the edit"
assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), "torch's own context copied the saved output"
x.grad = None
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = (x * 2).exp()
    y[1:] += 1
    y.sum().backward()
print("allow_mutation_on_saved_tensors, y[1:] += 1, x.grad:", x.grad)
assert torch.allclose(x.grad, 2 * y.detach()) and not torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), (
    "an edit through y[1:] is neither copied nor checked: backward() computes with the edited y")
with torch.autograd.graph.allow_mutation_on_saved_tensors():
    y = (x * 2).exp()
    y += 1
try:
    y.sum().backward()
except AssertionError as e:
    print(f"backward() after the context: {type(e).__name__}: {e}")
else:
    raise AssertionError("a backward() after leaving allow_mutation_on_saved_tensors() must raise")
# sphinx_gallery_start_ignore
def backward_after_context(op):
    leaf_outside = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        recorded_outside = op(leaf_outside)
    try:
        recorded_outside.sum().backward()
    except AssertionError as e:
        return str(e)
    return None


assert all("outside of the 'allow_mutation_on_saved_tensors' context" in (backward_after_context(op) or "")
           for op in (lambda t: (t * 2).exp(), lambda t: (t * 2).sin())), (
    "a backward() after leaving the context raises on a saved output or input that was not edited")
assert backward_after_context(lambda t: t * 2) is None, (
    "a backward() through x * 2 alone after leaving the context raises nothing")
# sphinx_gallery_end_ignore

# %%
# ``torch.utils.checkpoint``
# --------------------------
#
# With either ``use_reentrant`` value (and, with ``False``, its default ``context_fn``: no selective
# checkpointing), a checkpointed function saves the tensors passed to it as positional arguments and recomputes
# everything else during ``backward()``; the code below runs both. A tensor passed inside a list, or by keyword
# (which only ``use_reentrant=False`` takes), is not saved: with ``use_reentrant=False``, an in-place edit of it
# raises nothing, and the recomputation reads the edited values (the last loop below).
# The output of a checkpointed ``exp`` is not saved, so editing it in place no longer breaks
# ``backward()``, and the gradient is right (recomputed from ``a``). An in-place edit of the input
# ``a`` now raises, though a plain ``exp`` allowed it: checkpoint saved ``a``.
# (``use_reentrant=False`` is the variant PyTorch recommends; called without the argument,
# ``checkpoint`` runs the reentrant variant and this release warns.) That the function then runs
# twice, and what this does to BatchNorm and other in-place edits inside it, is on
# :ref:`questions-activation-checkpointing`.

for use_reentrant in (False, True):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x * 2
    y = checkpoint(torch.exp, a, use_reentrant=use_reentrant)
    y += 1
    y.sum().backward()
    print(f"use_reentrant={use_reentrant}, edit of the output, x.grad:", x.grad)
    assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach())), "checkpoint recomputed exp from a"
    a = x * 2
    y = checkpoint(torch.exp, a, use_reentrant=use_reentrant)
    a += 1
    try:
        y.sum().backward()
    except RuntimeError as e:
        print(f"use_reentrant={use_reentrant}, edit of the input: {type(e).__name__}: {e}")
    else:
        raise AssertionError("an in-place edit of a checkpoint's input must break backward()")
for route, checkpointed in {
    "by keyword": lambda t: checkpoint(lambda *, kept: kept.exp(), kept=t, use_reentrant=False),
    "inside a list": lambda t: checkpoint(lambda kept: kept[0].exp(), [t], use_reentrant=False),
}.items():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    a = x * 2
    y = checkpointed(a)
    a += 1
    y.sum().backward()
    print(f"use_reentrant=False, a passed {route}, edit of a, x.grad:", x.grad)
    assert torch.allclose(x.grad, 2 * torch.exp(2 * x.detach() + 1)), (
        "a tensor passed by keyword or inside a list is not saved: its edit raises nothing, and the recomputation "
        "reads the edited a")
# sphinx_gallery_start_ignore
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint(torch.exp, x * 2)
assert [record.category for record in caught] == [UserWarning], "checkpoint without use_reentrant warns"
assert "use_reentrant=False is recommended" in str(caught[0].message), "the warning recommends False"
assert not breaks(lambda a, b: a.exp(), "a"), "a plain exp lets an in-place edit of its input pass"
for reentrant in (False, True):
    packed_by_checkpoint, given = [], x * 2
    with saved_tensors_hooks(lambda t, into=packed_by_checkpoint: into.append(t) or t, lambda t: t):
        checkpoint(torch.exp, given, use_reentrant=reentrant)
    assert any(t is given for t in packed_by_checkpoint), "checkpoint saved its input"
for options in ({"use_reentrant": True, "preserve_rng_state": False},
                {"use_reentrant": False, "preserve_rng_state": False},
                {"use_reentrant": False, "determinism_check": "none"}):
    assert not breaks(lambda a, b, options=options: checkpoint(torch.exp, a, **options), "y"), (
        "checkpoint's other options still let its output be edited")
    assert breaks(lambda a, b, options=options: checkpoint(torch.exp, a, **options), "a"), (
        "with checkpoint's other options an edit of its input still breaks backward()")
# sphinx_gallery_end_ignore

# %%
# A second ``backward()``
# -----------------------
#
# A plain ``backward()`` (no ``retain_graph=True``, ``create_graph=True`` or ``inputs=``) frees what
# every node saved, so a second ``backward()`` through the same graph
# raises when it reaches a node that reads a tensor it saved (here ``exp``'s node, which saved its output),
# and reading ``_saved_result`` afterwards raises the same error. A custom ``Function`` that saved a tensor
# with ``ctx.save_for_backward`` but whose ``backward`` never reads ``ctx.saved_tensors`` (one of the
# exceptions above) runs a second time without the error and adds its gradient again; reading its
# ``saved_tensors`` afterwards raises that error. ``(x + 1).sum()``, whose nodes saved no
# tensor, runs a second time and adds the same gradient again. A Python number an
# operation wraps as a tensor counts as saved, though ``pack`` never sees it (above): ``(x * 2).sum()``
# raises on a second pass, as :ref:`questions-backward-twice` says. For the operations
# above, applied to two leaves so that only the operation itself saves, a second pass raises
# exactly when the operation saved a tensor.

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * 2).exp()
y.sum().backward()
try:
    y.sum().backward()
except RuntimeError as e:
    twice = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a second backward() through a freed graph must raise")
# sphinx_gallery_start_ignore
try:
    y.grad_fn._saved_result
except RuntimeError as e:
    assert str(e) == twice, "reading the freed saved output raises the same error"
else:
    raise AssertionError("reading a freed saved tensor must raise")


class SavesUnread(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * 3

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


class SavesRead(SavesUnread):
    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors  # noqa: B018 (reading them back is what raises on a second pass)
        return grad * 3


def custom_second_pass(function):
    """The custom node, how many tensors it saved, the error of a second plain backward() through it ("" if none)
    and the leaf's .grad after the two passes."""
    custom_leaf = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    custom_out = function.apply(custom_leaf)
    saved_count = len(custom_out.grad_fn.saved_tensors)
    custom_out.backward(torch.ones(3))
    try:
        custom_out.backward(torch.ones(3))
    except RuntimeError as e:
        return custom_out.grad_fn, saved_count, str(e), custom_leaf.grad
    return custom_out.grad_fn, saved_count, "", custom_leaf.grad


unread_node, unread_count, unread_error, unread_grad = custom_second_pass(SavesUnread)
assert unread_count == 1 and unread_error == "" and torch.equal(unread_grad, torch.full((3,), 6.0)), (
    "a custom Function that saved a tensor but never reads it runs a second time and adds its gradient again")
try:
    unread_node.saved_tensors  # noqa: B018 (reading them is the check)
except RuntimeError as e:
    assert str(e) == twice, "reading that Function's saved_tensors afterwards raises the same error"
else:
    raise AssertionError("reading the freed saved_tensors of a custom Function must raise")
read_node, read_count, read_error, read_grad = custom_second_pass(SavesRead)
assert read_count == 1 and read_error == twice, (
    "a custom Function whose backward reads its saved tensor raises the same error on a second pass")
# sphinx_gallery_end_ignore
x.grad = None
z = (x + 1).sum()
z.backward()
z.backward()
print("(x + 1).sum() twice, x.grad:", x.grad)
assert torch.equal(x.grad, torch.full((3,), 2.0)), "add and sum saved no tensor: the second pass ran"
# sphinx_gallery_start_ignore
doubled_sum = (x * 2).sum()
doubled_sum.backward()
try:
    doubled_sum.backward()
except RuntimeError as e:
    assert str(e) == twice, "x * 2 saved its wrapped 2: the second pass raises the same error"
else:
    raise AssertionError("a second backward() through (x * 2).sum() must raise")
# sphinx_gallery_end_ignore


def second_pass_raises(op):
    v, w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True), torch.tensor([1.5, 2.0, -0.5], requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        out = op(v, w).sum()
    out.backward()
    try:
        out.backward()
    except RuntimeError as e:
        return len(packed), "backward through the graph a second time" in str(e)
    return len(packed), False


for name, op in ops.items():
    count, raised = second_pass_raises(op)
    print(f"{name:8} tensors saved: {count}  second backward() raised: {raised}")
    assert raised == (count > 0), f"{name}: a second pass raises exactly when the operation saved a tensor"

# %%
# ``retain_graph``
# ----------------
#
# ``retain_graph=True`` keeps the saved tensors until a ``backward()`` or ``torch.autograd.grad``
# with ``retain_graph`` false (its default unless ``create_graph=True``) runs the nodes that saved them (with
# ``inputs=``, it frees what the nodes it runs saved): of the four passes below, the first three keep them, each
# pass adds the same gradient, and after the fourth the saved
# output is freed. An in-place edit between two passes breaks the later one.

x.grad = None
y = (x * 2).exp()
for i in range(4):
    y.sum().backward(retain_graph=i < 3)
print("four passes, x.grad:", x.grad)
assert torch.allclose(x.grad, 4 * 2 * torch.exp(2 * x.detach())), "each pass added the same gradient"
# sphinx_gallery_start_ignore
try:
    y.grad_fn._saved_result
except RuntimeError as e:
    assert "after they have already been freed" in str(e), "the saved output is freed after the last pass"
else:
    raise AssertionError("reading a freed saved tensor must raise")
other_leaf = torch.tensor([1.0, 2.0], requires_grad=True)
retained = (other_leaf * 2).exp()
retained.sum().backward(retain_graph=True)
retained.sum().backward(inputs=[other_leaf])
try:
    retained.grad_fn._saved_result
except RuntimeError as e:
    assert "after they have already been freed" in str(e), "backward(inputs=...) frees what its nodes saved"
else:
    raise AssertionError("backward(inputs=...) after retain_graph=True must free the saved output")
graded = (other_leaf * 2).exp()
graded.sum().backward(retain_graph=True)
torch.autograd.grad(graded.sum(), other_leaf, retain_graph=True)
assert torch.equal(graded.grad_fn._saved_result, graded), (
    "torch.autograd.grad(retain_graph=True) keeps the saved output")
torch.autograd.grad(graded.sum(), other_leaf)
try:
    graded.sum().backward()
except RuntimeError as e:
    assert "backward through the graph a second time" in str(e), "torch.autograd.grad frees what its nodes saved"
else:
    raise AssertionError("a backward() after torch.autograd.grad without retain_graph=True must raise")
def saved_output_kept(node_output):
    """Whether the node that made ``node_output`` still holds it (reading it once freed raises)."""
    try:
        return torch.equal(node_output.grad_fn._saved_result, node_output)
    except RuntimeError as e:
        assert "after they have already been freed" in str(e), "reading a freed saved output raises"
        return False


for create_options in ({"create_graph": True}, {"create_graph": True, "retain_graph": False}):
    for create_call in ("backward", "torch.autograd.grad"):
        created = (other_leaf * 2).exp()
        created.sum().backward(retain_graph=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
            if create_call == "backward":
                created.sum().backward(**create_options)
            else:
                torch.autograd.grad(created.sum(), other_leaf, **create_options)
        assert saved_output_kept(created) is create_options.get("retain_graph", True), (
            f"{create_call}(create_graph=True) keeps the saved output unless retain_graph=False is given")
# sphinx_gallery_end_ignore
y = (x * 2).exp()
y.sum().backward(retain_graph=True)
y += 1
try:
    y.sum().backward()
except RuntimeError as e:
    print(f"edit between the passes: {type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit between two passes must break the second")

# %%
# Conclusion
# ----------
#
# Whether an in-place edit breaks ``backward()`` depends on what the operations that used the
# tensor before the edit saved: for the operations above, exactly the saved tensors are the ones an edit breaks. ``exp``,
# ``relu``, ``sigmoid`` and ``tanh`` save their output, ``sin`` its input, ``mul`` the other
# operand (both when both need a gradient), ``add`` nothing; an edit through ``.data`` is not
# caught, and the gradient can be wrong (for ``exp`` above it is). Out-of-place code (``y = y + 1``) is the plain fix; a copying
# ``saved_tensors_hooks`` (``allow_mutation_on_saved_tensors()``, with the ``backward()`` inside it,
# is one, for an edit through a tensor that begins at the saved tensor's first element) or ``torch.utils.checkpoint``
# (with either ``use_reentrant`` value and the default ``context_fn``) also let the output be
# edited, but hooks that do not copy let an edit through unseen, and so does
# ``allow_mutation_on_saved_tensors()`` for an edit that begins at another element. ``retain_graph=True`` keeps the saved tensors, and
# the check with them, until a ``backward()`` or ``torch.autograd.grad`` with ``retain_graph`` false (its
# default unless ``create_graph=True``) runs the nodes that saved them (``inputs=`` included). How to read the
# error itself is on :ref:`questions-inplace-error`.
