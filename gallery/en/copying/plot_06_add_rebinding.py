"""
.. _copying-add-rebinding:

``c = a; a = a + 1``: the name moves, the graph stays
=====================================================

The article's last example binds ``c = a`` and then writes ``a = a + 1``. After
that, ``a`` names a new tensor in new memory, and ``c`` is the old leaf. This page
checks that, shows that the two are still linked in the autograd graph, and
contrasts the rebinding with the in-place ``a.add_(1)``, which keeps ``c`` and
``a`` one and the same tensor.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``same_storage`` compares where two storages start.
# ``bytes_apart`` tells whether their bytes do not overlap at all, that is, whether no memory is
# shared, which different starts alone do not show.

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
# Before the rebinding, ``c is a``
# --------------------------------
#
# ``c = a`` gives the leaf a second name. There is one tensor, and it is a
# leaf: it requires grad and has no ``grad_fn``.

a = torch.ones(2, 2)
a.requires_grad = True
c = a
print("a:", a)
print("c:", c)
print("c is a:", c is a)
print("c.grad_fn:", c.grad_fn, " c.is_leaf:", c.is_leaf)
assert c.is_leaf and c.grad_fn is None, "c must name a leaf"
# sphinx_gallery_start_ignore
assert c is a, "c = a must name the same tensor"
# sphinx_gallery_end_ignore

# %%
# After ``a = a + 1``, two tensors
# --------------------------------
#
# ``a + 1`` allocates a new tensor, recorded in the graph as ``AddBackward0``
# because grad mode is on (under ``torch.no_grad()`` it would be a leaf with no
# ``grad_fn``), and ``=`` moves the name ``a`` to it. ``c`` is left with the original leaf:
# ones, ``requires_grad=True``, no ``grad_fn``.

a = a + 1
print("a:", a)
print("c:", c)
print("c is a:", c is a)
print("same storage:", same_storage(a, c))
print("a.grad_fn:", type(a.grad_fn).__name__, " a.is_leaf:", a.is_leaf)
print("c.grad_fn:", c.grad_fn, " c.is_leaf:", c.is_leaf)
print("c.requires_grad:", c.requires_grad)
assert c.is_leaf and c.requires_grad and c.grad_fn is None, "c must be the old leaf"
# sphinx_gallery_start_ignore
assert bytes_apart(a, c), "the new a must have new memory"
assert c is not a, "a must now name a different tensor"
assert torch.equal(a.detach(), torch.full((2, 2), 2.0)), "a must hold twos"
with torch.no_grad():
    a_no_grad = c + 1
assert a_no_grad.grad_fn is None and a_no_grad.is_leaf, "under no_grad, c + 1 must not be recorded"
assert torch.equal(c.detach(), torch.ones(2, 2)), "c must still hold ones"
assert type(a.grad_fn).__name__ == "AddBackward0", "a must come from an addition"
assert not a.is_leaf, "the new a must not be a leaf"
for plus_inference in (False, True):
    for plus_grad_mode in (torch.enable_grad, torch.no_grad):
        for plus_source in ("leaf", "non-leaf", "no grad"):
            plus_leaf = torch.ones(2, 2, requires_grad=plus_source != "no grad")
            plus_old = plus_leaf * 1 if plus_source == "non-leaf" else plus_leaf
            with torch.inference_mode(plus_inference), plus_grad_mode():
                plus_new = plus_old + 1
            assert plus_new.is_leaf != (
                plus_grad_mode is torch.enable_grad and not plus_inference and plus_source != "no grad"), (
                "a + 1 is a non-leaf exactly when grad mode is on outside inference_mode and a requires grad")
            assert bytes_apart(plus_new, plus_old), "a + 1 is in new memory"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and c, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. After the rebinding, two tensor objects on two storages.

draw_memory("a = a + 1", a=a, c=c)

# %%
# Up to white space, both printed tensors read exactly as in the article's
# output block.


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[2., 2.], [2., 2.]], grad_fn=<AddBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]], requires_grad=True)"
print("a prints as in the article:", one_line(a) == article_a)
print("c prints as in the article:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# The graph still links them
# --------------------------
#
# The article says the link between ``a`` and ``c`` is broken, and for memory it
# is. For autograd it is not: the new ``a`` was computed from ``c``, so a loss
# built from ``a`` sends its gradient to ``c``, the leaf.

loss = (a * 3).sum()
loss.backward()
print("c.grad:", c.grad)
assert torch.equal(c.grad, torch.full((2, 2), 3.0)), "the gradient must reach c"

# %%
# .. figure-caption::
#    :alt: Diagram: the autograd graph of loss, from SumBackward0 through MulBackward0 and AddBackward0 to AccumulateGrad and the leaf c.
#
#    The graph behind ``loss``, walked from ``loss.grad_fn`` along ``next_functions``: it ends at the leaf that ``c`` names.

draw_graph("loss = (a * 3).sum()", loss, c=c)

# %%
# In place, the names stay together
# ---------------------------------
#
# On a tensor that does not require grad, ``a.add_(1)`` changes the tensor
# itself: ``c`` is still ``a``, so it sees the new values. The augmented
# assignment ``a += 1`` is in place as well. (``_version``, printed below, is
# an internal attribute of torch: this site reads it to show the counter, but
# it may change between releases.)

a = torch.ones(2, 2)
c = a
a.add_(1)
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a._version:", a._version)
assert torch.equal(c, torch.full((2, 2), 2.0)), "c must see the in-place addition"
# sphinx_gallery_start_ignore
assert a._version == 1, "add_ must count as one in-place change"
# sphinx_gallery_end_ignore

a += 1
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a._version:", a._version)
assert c is a, "a += 1 must not create a new object"
# sphinx_gallery_start_ignore
assert torch.equal(c, torch.full((2, 2), 3.0)), "c must see a += 1"
assert a._version == 2, "two in-place additions must count twice"
# sphinx_gallery_end_ignore

# %%
# In grad mode, outside ``torch.inference_mode()``, a leaf that requires grad refuses ``add_`` (as on
# :ref:`copying-rebinding`); under ``torch.no_grad()`` it accepts it, and stays the same leaf.
# :fact:`leaf-refuses-inplace`

a = torch.ones(2, 2)
a.requires_grad = True
c = a
try:
    a.add_(1)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "leaf Variable" in str(e), "the error must name the leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("add_ on the leaf must raise outside no_grad")

with torch.no_grad():
    a.add_(1)
print("a:", a)
print("c:", c)
print("c is a:", c is a, " a.is_leaf:", a.is_leaf, " a.requires_grad:", a.requires_grad)
assert a.is_leaf and a.requires_grad, "a must stay a leaf that requires grad"
# sphinx_gallery_start_ignore
assert c is a, "add_ under no_grad must leave c and a one tensor"
assert c.tolist() == [[2.0, 2.0], [2.0, 2.0]], "c must see the in-place addition"
assert a._version == 1, "only the add_ under no_grad must count"
# sphinx_gallery_end_ignore

# %%
# The leaf's first row ``a[0]`` is a view of it that autograd records (it has a ``grad_fn``). It is not a
# leaf, but in grad mode, outside ``torch.inference_mode()``, it refuses ``+=`` just the same; under
# ``torch.no_grad()``, ``+=`` and ``add_`` on it change the leaf, and ``c`` stays the view. The dtype form
# ``a.view(torch.float32)`` is the exception: autograd does not record it, so it requires no grad, is a leaf,
# and takes ``+=`` in grad mode, writing into ``a``.
# :fact:`view-inplace-refused-outside-inference-mode` :fact:`leaf-view-inplace-refused-in-grad-mode`

row = a[0]
c = row
try:
    row += 1
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "a view of a leaf Variable that requires grad" in str(e), "the error must name the view of a leaf"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("row += 1 on a view of a leaf that requires grad must raise outside no_grad")

with torch.no_grad():
    row += 1
    row.add_(1)
print("a:", a)
print("c is row:", c is row, " row.is_leaf:", row.is_leaf, " a.is_leaf:", a.is_leaf)
assert c is row and a.tolist() == [[4.0, 4.0], [2.0, 2.0]], "both edits of the view must reach a, and c stay the view"
# sphinx_gallery_start_ignore
assert row.grad_fn is not None and not row.is_leaf and a.is_leaf and a.requires_grad, (
    "the view has a grad_fn and is not a leaf; a stays a leaf that requires grad")
# sphinx_gallery_end_ignore

# %%
# Outputs of ``unbind()``, ``split()`` and ``chunk()``
# ----------------------------------------------------
#
# One call of ``unbind()``, ``split()`` or ``chunk()`` returns its outputs as views, one or more: two here, or one
# for ``split(2)`` and ``chunk(1)`` of the 2×2 tensor. When the call ran with grad mode on and its source, a leaf
# or a non-leaf, required grad then, torch refuses ``+=`` on one of them in grad mode, outside
# ``torch.inference_mode()``, even when it is the call's only output. Under
# ``torch.no_grad()`` the edit runs and reaches the source, and after it, in grad mode, no output of that call can
# enter an operation autograd records, such as ``output * 2`` or ``output.clone()``, while ``detach()`` still gives
# its values. A call made under ``torch.no_grad()`` or inside ``torch.inference_mode()``, or on a source that did
# not require grad then, is another case, not run here: see :ref:`data-vs-detach-comparison` for an edit of such
# an output through ``detach()``.
# :fact:`view-inplace-refused-outside-inference-mode`

def plus_one(t):
    try:
        t += 1
    except RuntimeError as e:
        return str(e)
    return "no error"


def times_two_runs(t):
    try:
        t * 2
    except RuntimeError:
        return False
    return True


for split_name, split_args in (("unbind", ()), ("split", (1,)), ("chunk", (2,)), ("split", (2,)), ("chunk", (1,))):
    for source in ("leaf", "non-leaf"):
        x = torch.ones(2, 2, requires_grad=True)
        y = x if source == "leaf" else x * 1
        outputs = getattr(y, split_name)(*split_args)
        first = outputs[0]
        call = f"{split_name}({', '.join(map(str, split_args))})"
        # sphinx_gallery_start_ignore
        assert first.requires_grad and not first.is_leaf, "each output requires grad and is not a leaf"
        assert len(outputs) == (1 if call in ("split(2)", "chunk(1)") else 2), (
            "split(2) and chunk(1) of the 2×2 tensor return one output, unbind(), split(1) and chunk(2) two")
        # sphinx_gallery_end_ignore
        error = plus_one(first)
        with torch.no_grad():
            first += 1
        usable = [times_two_runs(output) for output in outputs]
        print(f"{call:<9} of a {source:<8} outputs: {len(outputs)}, += in grad mode: {error.split('.')[0]}")
        print(f"{'':<22} after += under no_grad: y[0] = {y[0].tolist()}, output * 2 runs: {usable}")
        assert "returns multiple views" in error and y[0].tolist() == [2.0, 2.0] and not any(usable), (
            "grad mode refuses +=; under no_grad it reaches the source, and after it output * 2 runs on no output")
        # sphinx_gallery_start_ignore
        assert torch.equal(torch.cat([output.detach().flatten() for output in outputs]), y.detach().flatten()), (
            "detach() still gives the outputs' values")
        for sibling in outputs:
            try:
                sibling.clone()
            except RuntimeError as e:
                assert "modified inplace" in str(e), "clone() refuses each output after the edit too"
            else:
                raise AssertionError("clone() must refuse each output after the edit")
        # sphinx_gallery_end_ignore

# %%
# An inference tensor
# -------------------
#
# A tensor that ``torch.inference_mode()`` creates in new memory, such as ``torch.ones(2, 2)`` here, or ``x * 2`` and
# ``x.clone()`` of a tensor ``x`` made outside the mode, is an inference tensor; a view of a normal tensor taken
# inside the mode by indexing or ``view(shape)``, and the normal tensor's own ``detach()``, are not, though its
# ``view(dtype)`` taken there is one (more on :ref:`questions-inference-mode`). Outside that mode ``add_`` raises
# on ``a`` and on its first row ``a[0]``, in grad mode and under ``torch.no_grad()`` alike, whether ``a`` requires grad or not.
# ``a.view(torch.float32)`` shares its memory too, but is a normal tensor: ``add_`` on it raises nothing and
# writes into ``a``. Its ``a.detach()`` and ``a.data``, taken outside the mode, are inference tensors, yet ``add_``
# on them raises nothing either and writes into ``a``. Every row of the output but one writes the new values, before the error where there is one; in
# that row the tensor itself requires grad and is edited in grad mode, and autograd's check of leaves refuses the
# edit first, so nothing is written.
# :fact:`inference-mode-new-memory-is-inference` :fact:`inference-mode-views-of-normal-tensor`

def add_one(t, grad_mode):
    try:
        with grad_mode():
            t.add_(1)
    except RuntimeError as e:
        return str(e).split(".")[0]
    return "no error"


for requires_grad in (False, True):
    with torch.inference_mode():
        a = torch.ones(2, 2).requires_grad_(requires_grad)
    for edited in ("a", "a[0]", "a.view(torch.float32)", "a.detach()", "a.data"):
        for grad_mode in (torch.enable_grad, torch.no_grad):
            before = a.clone()
            target = {"a": a, "a[0]": a[0], "a.view(torch.float32)": a.view(torch.float32), "a.detach()": a.detach(),
                      "a.data": a.data}[edited]
            outcome = add_one(target, grad_mode)
            changed = not torch.equal(a, before)
            print(f"requires_grad={requires_grad!s:<5} {edited + '.add_(1)':<29} {grad_mode.__name__:<11} changed={changed!s:<5} {outcome}")
            assert (outcome != "no error") == (edited in ("a", "a[0]")), (
                "outside inference mode add_ raises on the inference tensor and on a[0], not on a.view(torch.float32), "
                "a.detach() or a.data")
            assert changed != (requires_grad and edited == "a" and grad_mode is torch.enable_grad), (
                "the values change, except on the tensor itself when it requires grad in grad mode")
            # sphinx_gallery_start_ignore
            assert target.is_inference() == (edited != "a.view(torch.float32)"), (
                "a, a[0], a.detach() and a.data are inference tensors, a.view(torch.float32) is a normal tensor")
            assert ("leaf Variable" in outcome) != changed, "the edit that writes nothing is refused by the leaf check"
            # sphinx_gallery_end_ignore

# sphinx_gallery_start_ignore
for normal_requires_grad in (False, True):
    normal_source = torch.ones(2, 2, requires_grad=normal_requires_grad)
    with torch.inference_mode():
        created_inside = (torch.ones(2, 2), normal_source * 2, normal_source.clone())
        taken_inside = (normal_source[0], normal_source.view(4), normal_source.detach())
        dtype_view_inside = normal_source.view(torch.int32)
    assert all(created.is_inference() for created in created_inside), (
        "torch.ones(2, 2), x * 2 and x.clone() made inside inference mode are inference tensors")
    assert not any(taken.is_inference() for taken in taken_inside) and dtype_view_inside.is_inference(), (
        "a row, a view(shape) and the detach() of a normal tensor taken inside inference mode are not inference "
        "tensors; its view(dtype) is one")
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# In grad mode, outside ``torch.inference_mode()``, when ``a`` requires grad, ``a = a + 1`` leaves ``c`` with the old
# tensor (here the leaf) and gives ``a`` a new, non-leaf tensor in new memory; the outputs match the article's. The two are no longer
# the same memory, but gradients from the new ``a`` still flow back to ``c``.
# When every name should see the change, update in place: ``a.add_(1)`` or
# ``a += 1``, under ``torch.no_grad()`` when grad mode refuses the edit, for example when, outside
# ``torch.inference_mode()``, ``a`` requires grad and is a leaf, a view of one, or an output of ``unbind()``, ``split()`` or ``chunk()``; after
# such an output of a source that required grad at the call is edited, the outputs of that call can enter no
# operation autograd records, though ``detach()`` still gives their values.
# A tensor that ``torch.inference_mode()`` creates in new memory is the exception: outside inference mode, ``add_`` on it or on its
# row ``a[0]`` raises under ``torch.no_grad()`` too, and writes the new values first unless autograd's check of
# leaves refuses it, as shown above; its ``a.detach()`` and ``a.data``, taken outside the mode, are inference
# tensors as well, yet ``add_`` on them raises nothing and writes into ``a`` (more on :ref:`questions-inference-mode`).
# :fact:`leaf-view-inplace-refused-in-grad-mode`
# :fact:`inference-tensor-inplace-outside-raises-yet-writes`
