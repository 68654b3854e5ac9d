"""
.. _copying-alias:

``b = a`` and ``b = a.data`` do not copy
========================================

The article starts from a surprise: a loop writes ones into a tensor ``b`` taken
from ``a.data``, and ``a`` fills up with ones as well. This page runs that loop
for ``b = a.data`` and for ``b = a``, then shows why neither gives ``b`` memory
of its own.
"""

# %%
# A helper for the whole page
# ---------------------------
#
# On a device with real memory (not ``meta``, where every storage starts at
# address 0), two tensors whose storages hold bytes share memory when those storages start at
# the same address (whether they also share an element is another question:
# :ref:`questions-memory-overlap`), and different starts do not rule out shared
# memory (next cell). (A storage of no bytes, such as that of a freshly made empty tensor
# (``torch.empty(0)``), has no memory to share, so the helper is not meant for one, nor for a fake tensor, made under
# the internal ``torch._subclasses.fake_tensor.FakeTensorMode``, even one whose device reads ``cpu``.)
# The helper compares the two addresses and returns only the answer; the page prints that answer,
# never an address.

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# sphinx_gallery_start_ignore
assert all(t.untyped_storage().data_ptr() == 0 for t in (
    torch.zeros(2, device="meta"), torch.ones(3, dtype=torch.int64, device="meta"),
    torch.empty(0, dtype=torch.complex64, device="meta"), torch.zeros(4, dtype=torch.float8_e4m3fn, device="meta"),
    torch.arange(12.0).reshape(3, 4).to("meta")[1:].t())), (
    "on meta every storage starts at address 0: float, integer, complex, float8, empty, moved there or a view")
assert same_storage(torch.zeros(2, device="meta"), torch.ones(3, device="meta")), (
    "on meta same_storage finds unrelated tensors sharing memory")
assert torch.empty(0).untyped_storage().nbytes() == 0, "the storage of a freshly made empty tensor has no bytes"
whole = torch.arange(3.0)
heads = {
    "DLPack": torch.from_dlpack(whole[:2]),
    "NumPy": torch.from_numpy(whole[:2].numpy()),
    "frombuffer": torch.frombuffer(whole[:2].numpy(), dtype=torch.float32),
}
for route, head in heads.items():
    assert same_storage(head, whole) and head.untyped_storage().nbytes() < whole.untyped_storage().nbytes(), (
        f"equal starts, two storages: an alias of a slice at offset 0 made through {route} has a storage of its own")
# sphinx_gallery_end_ignore


# %%
# On such a device, equal starts prove shared memory; different starts do not rule it out. An alias
# made through DLPack, NumPy or ``torch.frombuffer`` of a non-empty slice that does not start where the
# source's storage starts (a non-zero ``storage_offset()``, here ``row[1:]``) gets a storage of its own,
# which starts inside the source's: ``same_storage`` answers ``False``, yet a write through each alias
# reaches the source. (An alias of a non-empty slice at storage offset 0 also gets a storage of its
# own, but it starts where the source's does, and ``same_storage`` answers ``True``.)

row = torch.arange(4.0)
aliases = {
    "torch.from_dlpack(row[1:])": torch.from_dlpack(row[1:]),
    "torch.from_numpy(row[1:].numpy())": torch.from_numpy(row[1:].numpy()),
    "torch.frombuffer(row[1:].numpy(), dtype=torch.float32)": torch.frombuffer(row[1:].numpy(), dtype=torch.float32),
}
for n, (name, alias) in enumerate(aliases.items()):
    alias[n] = -1.0
    print(f"{name:<55} same storage: {same_storage(alias, row)!s:<5}  row: {row.tolist()}")
assert row.tolist() == [0.0, -1.0, -1.0, -1.0], "a write through each alias reaches row"
# sphinx_gallery_start_ignore
assert not any(same_storage(alias, row) for alias in aliases.values()), "each alias has a storage of its own"
inner = torch.arange(6.0)[2:]
assert inner.storage_offset() == 2 and not any(same_storage(alias, inner) for alias in (
    torch.from_dlpack(inner[:2]), torch.from_numpy(inner[:2].numpy()),
    torch.frombuffer(inner[:2].numpy(), dtype=torch.float32))), (
    "from a source at storage offset 2, an alias of the slice at its first element has a storage of its own")
assert all(row.untyped_storage().data_ptr() < alias.untyped_storage().data_ptr()
           < row.untyped_storage().data_ptr() + row.untyped_storage().nbytes() for alias in aliases.values()), (
    "each alias's storage starts inside the source's")
grids = [torch.zeros(3, 4, dtype=dtype) for dtype in (
    torch.int64, torch.float64, torch.uint8, torch.bool, torch.float16, torch.complex64)]
pairs = [(grid, alias) for grid in grids for alias in (
    torch.from_dlpack(grid[1]), torch.from_numpy(grid[1].numpy()),
    torch.frombuffer(grid[1].numpy(), dtype=grid.dtype),
    torch.from_dlpack(grid[:, 1]), torch.from_numpy(grid[:, 1].numpy()))] + [(inner, alias) for alias in (
    torch.from_dlpack(inner[:2]), torch.from_numpy(inner[:2].numpy()),
    torch.frombuffer(inner[:2].numpy(), dtype=torch.float32))]
assert all(source.untyped_storage().data_ptr() < alias.untyped_storage().data_ptr()
           < source.untyped_storage().data_ptr() + source.untyped_storage().nbytes() for source, alias in pairs), (
    "in int64, float64, uint8, bool, float16 and complex64, an alias of a row or a column at a non-zero storage "
    "offset, and an alias of the slice of a source at offset 2, start inside the source's storage")
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
# The article's loop needs its indentation back
# ---------------------------------------------
#
# The loop in the article has lost its indentation, so as printed it is not
# valid Python. Compiling the loop's lines exactly as printed (the blog's
# "// A code block" placeholder line above them left out) fails before anything runs.

article_loop = """\
a = torch.zeros(2, 3)
for i in range(2):
for j in range(3):
b = a.data
b[i, j] = 1
print("b:", b)
print("a:", a)
"""
try:
    compile(article_loop, "article_loop", "exec")
except IndentationError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("the loop as printed must not compile")

# %%
# .. admonition:: The article vs. torch |torch_version|
#    :class: warning
#
#    The loop's lines as printed in the article raise ``IndentationError``
#    (output above). The inner ``for`` belongs inside the outer one, and the four
#    statements after it belong inside the inner loop. The cells below restore
#    that indentation; with it, the ``b:`` and ``a:`` lines match the article's
#    output (the cells add an ``after …`` line before each pair).

# %%
# Writing through ``b = a.data``
# ------------------------------
#
# Here is the loop with its indentation. Each step writes one element through
# ``b``, then prints both names: every ``1`` written into ``b`` shows up in
# ``a`` at once.

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a.data
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through a.data"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# Writing through ``b = a``
# -------------------------
#
# The same loop with plain assignment gives the same result.

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through b = a"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# Why: ``b = a`` is the same object
# ---------------------------------
#
# Binding a name (``b = a``) never copies in Python. It gives the existing object a
# second name, so ``b is a``: there is only one tensor.

a = torch.zeros(2, 3)
b = a
print("b is a:", b is a)
print("same storage:", same_storage(a, b))
# sphinx_gallery_start_ignore
assert b is a and same_storage(a, b), "b = a must give the same tensor object, on the same storage"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and b, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. Both names lead to one tensor object.

draw_memory("b = a", a=a, b=b)

# %%
# Why: ``a.data`` is another object on the same memory
# ----------------------------------------------------
#
# ``a.data`` is a different Python object (``a.data is a`` is ``False``;
# each access even builds a new one), but it looks at the same storage as
# ``a``. A write through it lands in ``a``'s memory.

a = torch.zeros(2, 3)
b = a.data
print("b is a:", b is a)
print("a.data is a.data:", a.data is a.data)
print("same storage:", same_storage(a, b))
assert same_storage(a, b), "a.data must share a's storage"
# sphinx_gallery_start_ignore
assert b is not a, "a.data must be a separate tensor object"
assert a.data is not a.data, "each access to .data must build a new tensor object"
# sphinx_gallery_end_ignore

b[0, 0] = 7
print("b:", b)
print("a:", a)
# sphinx_gallery_start_ignore
assert a[0, 0] == 7, "a write through a.data must reach a"
# sphinx_gallery_end_ignore

# %%
# .. figure-caption::
#    :alt: Diagram: the names a and b, the tensor objects they point to, and the storages and version counters of those tensors.
#
#    Names on the left, tensor objects in the middle (values, ``requires_grad`` or ``grad_fn``, ``_version`` and its counter), storages on the right. Two tensor objects, one storage ``S1``, two counters.

# sphinx_gallery_start_ignore
assert (a._version, b._version) == (0, 1), "a.data must count its edit in a counter of its own"
# sphinx_gallery_end_ignore

draw_memory("b = a.data", a=a, b=b)

# %%
# Conclusion
# ----------
#
# Neither ``b = a`` nor ``b = a.data`` copies anything: the first gives the same
# tensor a second name, the second gives a new tensor object on the same memory.
# To get memory of its own, ``b`` has to be copied explicitly; the next page,
# :ref:`copying-safe-copy`, shows how.
