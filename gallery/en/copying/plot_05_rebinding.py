"""
.. _copying-rebinding:

``a = a - a.grad`` rebinds, ``a -= a.grad`` updates
===================================================

The article's third example takes ``c = a.detach()``, runs a backward pass, then
writes ``a = a - a.grad``. The name ``a`` moves to a brand-new tensor while ``c``
keeps the old values in the old memory. This page runs the example, fixes two
mistakes in its code, and contrasts it with the in-place update under
``torch.no_grad()``, which ``c`` does see.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

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
# The setup
# ---------
#
# A 2×2 leaf of ones that requires grad, and a detached tensor ``c`` on the
# same memory.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
assert same_storage(a, c), "c must share a's memory"

# %%
# The commented-out line would fail
# ---------------------------------
#
# The article keeps ``#a[1,2] = 0`` as a comment. Uncommented, it raises
# ``IndexError``: a 2×2 tensor has no column with index 2. A valid index does not help
# either: ``a`` is a leaf that requires grad, and with grad mode on, outside ``torch.inference_mode()``,
# ``a[1, 1] = 0`` raises ``RuntimeError``.
# :fact:`leaf-refuses-inplace`

try:
    a[1, 2] = 0
except IndexError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a[1, 2] = 0 must raise IndexError")

try:
    a[1, 1] = 0
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("a[1, 1] = 0 must raise RuntimeError")
print("a:", a)
print("c:", c)
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.ones(2, 2)), "the failed writes must change nothing"
# sphinx_gallery_end_ignore

# %%
# ``c`` is a 2×2 tensor of ones
# -----------------------------
#
# The article's ``print(c)`` carries the comment ``#tensor([1., 2., 3.])``, left
# over from its previous example. ``c`` holds four ones, as the article's own
# output block shows.

print("c:", c)
assert torch.equal(c, torch.ones(2, 2)), "c must be a 2x2 tensor of ones"

# %%
# The backward pass
# -----------------
#
# ``b = (a * 2).sum()`` gives every element of ``a`` the gradient 2.

b = (a * 2).sum()
b.backward()
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.full((2, 2), 2.0)), "a.grad must be all twos"

# %%
# ``a = a - a.grad`` builds a new tensor
# --------------------------------------
#
# ``a - a.grad`` allocates a new tensor, and ``=`` points the name ``a`` at it.
# A second name ``a_old`` keeps the original leaf in view. With grad mode on, as here, the new ``a`` has a
# ``grad_fn`` of ``SubBackward0`` and is not a leaf; ``c`` still holds ones and
# still shares memory with ``a_old``.

a_old = a
a = a - a.grad
print("a:", a)
print("a_old:", a_old)
print("c:", c)
print("a is a_old:", a is a_old)
print("a.grad_fn:", type(a.grad_fn).__name__)
print("a.is_leaf:", a.is_leaf)
print("same storage (a, a_old):", same_storage(a, a_old))
print("same storage (c, a_old):", same_storage(c, a_old))
print("same storage (c, a):", same_storage(c, a))
assert torch.equal(c, torch.ones(2, 2)), "c must keep the old values"
# sphinx_gallery_start_ignore
assert bytes_apart(a, a_old), "the new a must have new memory"
assert torch.equal(a.detach(), torch.full((2, 2), -1.0)), "the new a must hold -1"
assert a is not a_old, "the name a must point to a new tensor"
assert type(a.grad_fn).__name__ == "SubBackward0", "a must come from a subtraction"
assert not a.is_leaf, "the new a must not be a leaf"
assert same_storage(c, a_old), "c must still share the old tensor's memory"
assert torch.equal(a_old.detach(), torch.ones(2, 2)), "the old tensor must be unchanged"
for old_sharer in (c, a_old.detach(), a_old.view(4), a_old[0], a_old.T):
    assert same_storage(old_sharer, a_old) and bytes_apart(old_sharer, a), (
        "what shares the old tensor's memory stays with it, apart from the new a")
for rebind_mode in ("grad mode on", "no_grad", "enable_grad in inference_mode"):
    for rebind_requires_grad in (False, True):
        rebind_old = torch.ones(2, 2, requires_grad=rebind_requires_grad)
        with torch.inference_mode(rebind_mode == "enable_grad in inference_mode"), torch.set_grad_enabled(
                rebind_mode != "no_grad"):
            assert torch.is_grad_enabled() == (rebind_mode != "no_grad"), "grad mode is on where the loop says"
            rebind_new = rebind_old - torch.ones(2, 2)
        assert rebind_new.is_leaf != (rebind_mode == "grad mode on" and rebind_requires_grad), (
            "a - a.grad is a non-leaf exactly when grad mode is on outside inference_mode and a requires grad")
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a, a_old and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. ``a`` now names a new tensor on a new storage ``S1``; ``a_old`` and ``c`` stay on the old storage ``S2``.

draw_memory("a = a - a.grad", a=a, a_old=a_old, c=c)

# %%
# Up to white space, ``a`` and ``c`` print exactly as in the article's output
# block.


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[-1., -1.], [-1., -1.]], grad_fn=<SubBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]])"
print("a prints as in the article:", one_line(a) == article_a)
print("c prints as in the article:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    Two lines of the article's code are wrong, though its printed output is
#    right. The commented-out ``#a[1,2] = 0`` raises ``IndexError`` on a 2×2
#    tensor, and the comment ``#tensor([1., 2., 3.])`` after ``print(c)`` does
#    not match ``c``, which is a 2×2 tensor of ones (outputs above).
#    ``SubBackward0`` is printed as the article shows.

# %%
# The in-place update: ``c`` sees it
# ----------------------------------
#
# Repeat the example, but update ``a`` in place with ``a -= a.grad``. On a
# leaf that requires grad this raises with grad mode on, outside ``torch.inference_mode()``, so here it runs
# under ``torch.no_grad()``. Then ``a`` stays the same object and the same leaf, and
# ``c`` sees the new values because it shares the memory.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
a_before = a

try:
    a -= a.grad
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("a -= a.grad must raise outside no_grad")

with torch.no_grad():
    a -= a.grad
print("a:", a)
print("c:", c)
print("a is a_before:", a is a_before)
print("a.is_leaf:", a.is_leaf, " a.grad_fn:", a.grad_fn)
print("same storage (c, a):", same_storage(c, a))
print("a._version:", a._version, " c._version:", c._version)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the update"
# sphinx_gallery_start_ignore
assert a is a_before, "a must still be the same object"
assert a.is_leaf and a.grad_fn is None, "a must still be a leaf"
assert same_storage(c, a), "c must still share a's memory"
assert a._version == c._version == 1, "the update must count once in the shared version"
# sphinx_gallery_end_ignore

# %%
# ``a.sub_(a.grad)`` is the same in-place update, written as a method call.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
with torch.no_grad():
    a.sub_(a.grad)
print("a:", a)
print("c:", c)
print("same storage (c, a):", same_storage(c, a))
print("a.is_leaf:", a.is_leaf)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the update"
# sphinx_gallery_start_ignore
assert a.is_leaf, "a must still be a leaf"
assert same_storage(c, a) and a._version == c._version == 1, "sub_ keeps one storage and moves the shared counter"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. The in-place update kept one storage ``S1`` and moved the shared counter ``C1``.

draw_memory("a.sub_(a.grad)", a=a, c=c)

# %%
# A default ``torch.optim.SGD`` step updates in place too
# -------------------------------------------------------
#
# A step of ``torch.optim.SGD`` built with its default options and learning rate 1
# performs the same update on the same memory, so ``c`` follows it as well.

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
(a * 2).sum().backward()
optimizer = torch.optim.SGD([a], lr=1.0)
optimizer.step()
print("a:", a)
print("c:", c)
print("same storage (c, a):", same_storage(c, a))
print("a.is_leaf:", a.is_leaf)
assert torch.equal(c, torch.full((2, 2), -1.0)), "c must see the optimizer step"
# sphinx_gallery_start_ignore
assert a.is_leaf, "a must still be a leaf"
# sphinx_gallery_end_ignore

# %%
# The next step: ``.grad`` of the rebound ``a`` is ``None``
# ---------------------------------------------------------
#
# In a loop, ``a = a - a.grad`` breaks the second step. The new ``a`` is not a
# leaf, so the next ``backward()`` leaves its ``.grad`` at ``None`` (torch
# warns when it is read) and the update after it fails.

a = torch.ones(2, 2)
a.requires_grad = True
(a * 2).sum().backward()
a = a - a.grad
(a * 2).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    grad = a.grad
# sphinx_gallery_start_ignore
assert len(caught) == 1 and issubclass(caught[0].category, UserWarning) and "not a leaf Tensor" in str(
    caught[0].message), "reading the .grad of a non-leaf warns"
# sphinx_gallery_end_ignore
print("a.is_leaf:", a.is_leaf)
print("a.grad:", grad)
print("warning when reading a.grad:", caught[0].category.__name__)
assert grad is None, "the rebound a is not a leaf: backward leaves its .grad None"
try:
    a = a - grad
except TypeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a - None must raise TypeError")

# %%
# Gradients accumulate until you clear them
# -----------------------------------------
#
# Each ``backward()`` adds its gradient to the values already in ``.grad``
# instead of overwriting them. Two passes
# give twice the gradient, so a training loop clears ``.grad`` (``a.grad =
# None``, or ``optimizer.zero_grad()``, which clears the ``.grad`` of the parameters given to that optimizer and leaves
# another tensor's ``.grad`` in memory of its own as it was; with ``set_to_none=False`` it writes zeros into the memory
# of each ``.grad`` it clears, so a view of that ``.grad`` reads zeros too) once per optimizer step, before the passes
# whose gradients that step uses. Clearing before every pass would keep
# only the last one: gradient accumulation over micro-batches relies on the
# sum (see :ref:`the page on logged gradients <questions-stale-grad>`).

a = torch.ones(2, 2)
a.requires_grad = True
(a * 2).sum().backward()
(a * 2).sum().backward()
print("a.grad after two backward passes:", a.grad)
assert torch.equal(a.grad, torch.full((2, 2), 4.0)), "gradients accumulate: 2 + 2"
a.grad = None
(a * 2).sum().backward()
print("a.grad after a.grad = None and one more:", a.grad)
# sphinx_gallery_start_ignore
assert torch.equal(a.grad, torch.full((2, 2), 2.0)), "after clearing, one pass gives 2"


def one_pass_after_zero_grad(optimizer_class, set_to_none):
    p = torch.nn.Parameter(torch.ones(2, 2))
    not_given = torch.nn.Parameter(torch.ones(2, 2))
    cleared_by = optimizer_class([p], lr=0.1)
    (p * 2 + not_given * 2).sum().backward()
    (p * 2 + not_given * 2).sum().backward()
    grad_row = p.grad[0]
    apart = bytes_apart(p.grad, not_given.grad)
    cleared_by.zero_grad(set_to_none=set_to_none)
    row_after_clearing = grad_row.clone()
    (p * 2).sum().backward()
    return p.grad, not_given.grad, apart, row_after_clearing


assert all(torch.equal(one_pass_after_zero_grad(optimizer_class, set_to_none)[0], torch.full((2, 2), 2.0))
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam) for set_to_none in (True, False)), (
    "after optimizer.zero_grad(), set_to_none True (the default) or False, one pass gives 2")
assert all(torch.equal(one_pass_after_zero_grad(optimizer_class, set_to_none)[1], torch.full((2, 2), 4.0))
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam) for set_to_none in (True, False)), (
    "optimizer.zero_grad() leaves the .grad of a tensor not given to that optimizer, in memory of its own, as it was")
assert all(one_pass_after_zero_grad(optimizer_class, set_to_none)[2]
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam) for set_to_none in (True, False)), (
    "the .grad of the tensor not given to the optimizer has memory of its own")
assert all(torch.equal(one_pass_after_zero_grad(optimizer_class, False)[3], torch.zeros(2))
           for optimizer_class in (torch.optim.SGD, torch.optim.Adam)), (
    "optimizer.zero_grad(set_to_none=False) writes zeros into the .grad's memory: a view of it reads zeros")
# sphinx_gallery_end_ignore

# %%
# An update breaks a graph that still needs the old values
# --------------------------------------------------------
#
# An in-place update is not free either. A graph that was built before the update and saved ``w``,
# here ``(w * w).sum()``, holds ``w`` at its version then; the optimizer step moves the version, and
# ``backward()`` through that graph fails (the exceptions are listed on :ref:`questions-data-vs-no-grad`). This is the usual failure when one
# network is updated between another network's forward and backward passes
# (as in a GAN). A step of an optimizer made with ``fused=True`` moves no
# version, and then ``backward()`` raises nothing and silently gives a wrong
# gradient (:ref:`questions-version-counter`).
# :fact:`fused-optimizer-step-not-counted`

w = torch.ones(2, 2)
w.requires_grad = True
optimizer = torch.optim.SGD([w], lr=0.1)
(w * w).sum().backward()
optimizer.step()
print("w._version after one step:", w._version)
pending = (w * w).sum()
optimizer.step()
print("w._version after another step:", w._version)
try:
    pending.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {str(e).split(' Hint:')[0]}")
    assert "is at version 2; expected version 1" in str(e), "the pending graph saved w at version 1"
else:
    raise AssertionError("backward through a graph that saved w must fail after the step")

# %%
# Conclusion
# ----------
#
# ``a = a - a.grad`` computes a new tensor and moves the name; anything that
# shares the old tensor's memory, like ``c``, stays with it, and (with grad mode
# on, outside ``torch.inference_mode()``, when ``a`` requires grad) the new ``a`` is no longer a leaf. To change the values that other names see, update in
# place under ``torch.no_grad()`` (``a -= a.grad`` above), or step a ``torch.optim.SGD``
# built with its default options; clear ``.grad`` once per update, and run ``backward()`` on every graph that saved the parameter
# before you update it. The next page,
# :ref:`copying-add-rebinding`, shows the same split for ``a = a + 1``.
