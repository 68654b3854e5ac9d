"""
.. _questions-backward-twice:

"Trying to backward through the graph a second time"
====================================================

.. admonition:: Answer
   :class: answer

   By default ``backward()`` frees what the graph's nodes saved, and a second call reached such a node.
   Move a tensor made before the loop into it, or, for a frozen encoder, make it once under
   ``no_grad()``; ``detach()`` the last batch's hidden state; sum two losses for one ``backward()``:

   .. code-block:: python

      with torch.no_grad():
          features = encoder(inputs)
      h = h.detach()
      (loss1 + loss2).backward()

``RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors
after they have already been freed)`` is raised by a second ``backward()`` that reaches a part of a
graph whose saved tensors the first one freed; in the training loops of causes 1 and 2 below, at the second step
(cause 2's second batch). This page runs the three usual causes (a tensor computed once before the training loop, an RNN
hidden state carried from batch to batch, two losses that share part of a graph), shows which part of
the graph each second ``backward()`` reaches, checks each fix in a short training loop, and shows
which graphs run a second time without the error.
"""

# %%
# Helpers
# -------
#
# ``count_nodes`` walks the graph from a tensor's ``grad_fn`` through ``next_functions`` and counts
# the nodes it reaches. ``first_error`` runs ``step`` for the steps given and returns the step that
# raised and the message, or ``(None, None)`` when every step ran.

import copy
import warnings

import torch

# sphinx_gallery_start_ignore
# no-figure: the error and the training losses it prints are the answer; the graph is counted in nodes
# sphinx_gallery_end_ignore


def count_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(child for child, _ in node.next_functions)
    return len(seen)


def first_error(step, steps):
    for i in steps:
        try:
            step(i)
        except RuntimeError as e:
            return i, str(e)
    return None, None


# %%
# The message, and the part of the graph it is about
# --------------------------------------------------
#
# Each node of the graph keeps the tensors its gradient formula needs: ``exp`` keeps its result.
# ``backward()`` frees them as it goes, so a second ``backward()`` that reaches such a node finds
# nothing to compute with and raises. The message starts with "Trying to backward through the
# graph a second time". Reading what the node saved (``_saved_result``, an internal attribute of
# torch, as are all the ``_saved_`` names) raises the same message: the saved tensor is gone.
# :ref:`questions-saved-tensors` shows what common operations save.

w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
loss = w.exp().sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("a second backward() through a freed graph must raise")
assert message.startswith("Trying to backward through the graph a second time"), (
    "a second backward() raises 'Trying to backward through the graph a second time'"
)
# sphinx_gallery_start_ignore
try:
    loss.grad_fn.next_functions[0][0]._saved_result
except RuntimeError as e:
    assert str(e) == message, "reading a freed saved tensor raises the same message"
else:
    raise AssertionError("reading a freed saved tensor must raise")
# sphinx_gallery_end_ignore

# %%
# ``backward()`` frees what the nodes it runs saved (with ``inputs=``, only the nodes on the way to
# the tensors named run, plus, for a named tensor that is not a leaf, the node that made it, whose
# gradient goes nowhere; the others keep theirs), unless its ``retain_graph`` is true: given as
# ``retain_graph=True``, or left at its default with ``create_graph=True`` (which also builds a graph of the
# gradient, to differentiate it again), since ``retain_graph`` defaults to ``create_graph``. With either, a
# second ``backward()`` through the same graph runs and adds the gradient to ``w.grad`` again;
# after ``backward(create_graph=True, retain_graph=False)`` it raises.

for label, keep in {"retain_graph=True": {"retain_graph": True}, "create_graph=True": {"create_graph": True}}.items():
    w.grad = None
    loss = w.exp().sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle; not this page's subject
        loss.backward(**keep)
    loss.backward()
    twice = torch.allclose(w.grad, 2 * w.exp())
    print(f"backward({label}), then backward(): ran; w.grad is two passes' gradient: {twice}")
    assert twice, f"backward({label}) keeps what the nodes saved for a second pass"
# sphinx_gallery_start_ignore
freeing_leaf = torch.ones(3, requires_grad=True)
freeing_loss = freeing_leaf.exp().sum()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # create_graph=True on a leaf warns of a reference cycle
    freeing_loss.backward(create_graph=True, retain_graph=False)
try:
    freeing_loss.backward()
except RuntimeError as e:
    assert str(e) == message, "backward(create_graph=True, retain_graph=False) freed what the nodes saved"
else:
    raise AssertionError("a second backward() after backward(create_graph=True, retain_graph=False) must raise")
branch_a, branch_b = torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
two_branches = branch_a.exp().sum() + branch_b.exp().sum()
two_branches.backward(inputs=[branch_a])
two_branches.backward(inputs=[branch_b])
assert torch.equal(branch_b.grad, branch_b.exp()), "backward(inputs=[a]) leaves what the other branch saved"
try:
    two_branches.backward(inputs=[branch_a])
except RuntimeError as e:
    assert str(e) == message, "the branch backward(inputs=[a]) ran was freed"
else:
    raise AssertionError("a second backward(inputs=[a]) must raise")
named_leaf = torch.ones(3, requires_grad=True)
named_inner = named_leaf.exp()
named = named_inner.exp()
named.sum().backward(inputs=[named])
try:
    named.grad_fn._saved_result
except RuntimeError as e:
    assert str(e) == message, "backward(inputs=[y]) ran, and freed, the node that made the non-leaf y"
else:
    raise AssertionError("the node that made a named non-leaf must be freed")
assert named_leaf.grad is None and torch.equal(named_inner.grad_fn._saved_result, named_inner), (
    "that node's gradient went nowhere, and the node below it kept what it saved"
)
# sphinx_gallery_end_ignore

# %%
# Cause 1: a tensor computed once, before the loop
# ------------------------------------------------
#
# ``features = encoder(inputs)`` runs once, before the loop, and every step's loss is built on it.
# The graph of each step ends in the node that made ``features``, and that node saved ``inputs``
# (to compute the gradient of the encoder's weight). Step 0's ``backward()`` frees it; step 1's
# ``backward()`` reaches the same node and raises.

torch.manual_seed(0)
inputs, targets = torch.randn(8, 4), torch.randn(8, 1)
encoder, head = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
features = encoder(inputs)


def step_on_features(i):
    optimizer.zero_grad()
    loss = (head(features) - targets).pow(2).mean()
    loss.backward()
    optimizer.step()


failed_step, message = first_error(step_on_features, range(3))
print("features.grad_fn:", features.grad_fn.name())
print("raised at step:", failed_step)
print("message:", message)
assert failed_step == 1 and message.startswith("Trying to backward through the graph a second time"), (
    "a backward() through features fails at step 1"
)
# sphinx_gallery_start_ignore
try:
    features.grad_fn._saved_mat1
except RuntimeError as e:
    assert str(e) == message, "the node that made features lost its saved inputs at step 0"
else:
    raise AssertionError("the saved inputs of the node behind features must be freed")
# sphinx_gallery_end_ignore

# %%
# Fix: compute it inside the loop
# -------------------------------
#
# When the encoder is being trained, its output must be computed again at every step, from its
# current weights: each step then builds and frees a graph of its own. All three steps run, the
# encoder's weight changes, and the loss goes down.

torch.manual_seed(0)
encoder, head = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
encoder_before = encoder.weight.detach().clone()
losses = []
for _ in range(3):
    optimizer.zero_grad()
    features = encoder(inputs)
    loss = (head(features) - targets).pow(2).mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("losses:", [round(v, 4) for v in losses])
print("encoder weight changed:", not torch.equal(encoder.weight, encoder_before))
assert len(losses) == 3 and losses[2] < losses[0] and not torch.equal(encoder.weight, encoder_before), (
    "with features rebuilt each step, the encoder trains"
)

# %%
# Fix: a frozen encoder runs under ``torch.no_grad()``
# ----------------------------------------------------
#
# When the encoder is frozen (a pretrained feature extractor, a fixed embedding), run it under
# ``torch.no_grad()``: it builds no graph, ``features`` has no ``grad_fn``, and each step's graph
# stops at it. Give the optimizer the head's parameters only. When the encoder's input does not
# require grad (as here), ``encoder.requires_grad_(False)`` does the same for every call of the encoder. ``detach()`` is for a tensor already computed with a
# graph: ``encoder(inputs).detach()`` has the same values, but builds the encoder's graph first, then
# drops it.

torch.manual_seed(0)
encoder, head = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
encoder_before, head_before = encoder.weight.detach().clone(), head.weight.detach().clone()
with torch.no_grad():
    features = encoder(inputs)
losses = []
for _ in range(3):
    optimizer.zero_grad()
    loss = (head(features) - targets).pow(2).mean()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("losses:", [round(v, 4) for v in losses])
print("features.grad_fn:", features.grad_fn)
print("encoder weight unchanged:", torch.equal(encoder.weight, encoder_before))
print("head weight changed:", not torch.equal(head.weight, head_before))
assert features.grad_fn is None and torch.equal(encoder.weight, encoder_before) and losses[2] < losses[0], (
    "features made under no_grad() have no graph: the encoder stays, the loss falls"
)
frozen = copy.deepcopy(encoder).requires_grad_(False)
detached = encoder(inputs).detach()
print("frozen(inputs).grad_fn:", frozen(inputs).grad_fn, " equals features:", torch.equal(frozen(inputs), features))
print("encoder(inputs).detach() equals features:", torch.equal(detached, features))
assert frozen(inputs).grad_fn is None and torch.equal(frozen(inputs), features) and torch.equal(detached, features), (
    "a frozen copy and detach() give the same features, without a graph"
)
# sphinx_gallery_start_ignore
assert not features.requires_grad and encoder.weight.grad is None, "no graph, no gradient for the encoder"
assert encoder(inputs).grad_fn is not None, "without no_grad() the encoder builds a graph, which detach() drops"
assert not torch.equal(head.weight, head_before), "the optimizer changed head.weight"
# sphinx_gallery_end_ignore

# %%
# ``retain_graph=True`` hides the mistake here
# --------------------------------------------
#
# The message suggests ``retain_graph=True``. In this loop it stops the error, but ``features``
# stays the encoder's output from before the loop: the optimizer changes the encoder's weight at
# every step, and the loss never sees the change.

torch.manual_seed(0)
encoder, head = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
encoder_before = encoder.weight.detach().clone()
features = encoder(inputs)
for _ in range(3):
    optimizer.zero_grad()
    loss = (head(features) - targets).pow(2).mean()
    loss.backward(retain_graph=True)
    optimizer.step()
stale = not torch.allclose(features, encoder(inputs))
print("encoder weight changed:", not torch.equal(encoder.weight, encoder_before))
print("features differ from encoder(inputs) now:", stale)
assert stale and not torch.equal(encoder.weight, encoder_before), (
    "with retain_graph=True the encoder trains and features go stale"
)
# sphinx_gallery_start_ignore
assert "Specify retain_graph=True if you need to backward through the graph a second time" in message, (
    "the message suggests retain_graph=True")
# sphinx_gallery_end_ignore

# %%
# Cause 2: a recurrent hidden state carried between batches
# ---------------------------------------------------------
#
# Truncated backpropagation through time (truncated BPTT) runs an RNN over a long sequence in
# batches of a few time steps, and starts each batch from the hidden state the last one ended
# with. Carried as it is, ``h`` brings the previous batch's graph along: the graph of batch 1
# holds batch 0's nodes too (the count printed below grows), and its ``backward()`` reaches batch
# 0's nodes, which batch 0's ``backward()`` freed.

torch.manual_seed(0)
cell = torch.nn.RNNCell(2, 3)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
sequence = torch.randn(3, 4, 1, 2)  # 3 batches of 4 time steps, batch size 1, 2 features
h = torch.zeros(1, 3)
nodes = []


def batch_carrying_h(b):
    global h
    for x_t in sequence[b]:
        h = cell(x_t, h)
    nodes.append(count_nodes(h))
    optimizer.zero_grad()
    h.pow(2).sum().backward()
    optimizer.step()


failed_batch, message = first_error(batch_carrying_h, range(3))
print("nodes reachable from h, per batch:", nodes)
print("raised at batch:", failed_batch)
assert failed_batch == 1 and message.startswith("Trying to backward through the graph a second time"), (
    "carrying h over fails at batch 1"
)
# sphinx_gallery_start_ignore
assert nodes[1] > nodes[0], "the graph of batch 1 holds batch 0's nodes too"
# sphinx_gallery_end_ignore

# %%
# Fix: ``h = h.detach()`` at the start of each batch
# --------------------------------------------------
#
# ``h.detach()`` keeps the values of the hidden state and drops its graph, so each batch's graph
# starts at that batch: every batch reaches the same number of nodes, the one-batch graph's, and
# every ``backward()`` runs.

torch.manual_seed(0)
cell = torch.nn.RNNCell(2, 3)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
weight_before = cell.weight_hh.detach().clone()
h = torch.zeros(1, 3)
nodes, done = [], []
for b in range(3):
    h = h.detach()
    for x_t in sequence[b]:
        h = cell(x_t, h)
    nodes.append(count_nodes(h))
    optimizer.zero_grad()
    h.pow(2).sum().backward()
    optimizer.step()
    done.append(b)
print("nodes reachable from h, per batch:", nodes)
print("batches whose backward() ran:", done)
assert done == [0, 1, 2] and nodes == [nodes[0]] * 3, "with h.detach() every batch runs, on graphs of one size"
# sphinx_gallery_start_ignore
assert not torch.equal(cell.weight_hh, weight_before), "the three steps changed cell.weight_hh"
one_batch = torch.zeros(1, 3)
for first_inputs in sequence[0]:
    one_batch = cell(first_inputs, one_batch)
assert nodes[0] == count_nodes(one_batch), "each batch's graph is the size of a one-batch graph"
# sphinx_gallery_end_ignore

# %%
# ``retain_graph=True`` instead keeps every batch's graph
# -------------------------------------------------------
#
# With ``retain_graph=True`` and no ``detach()``, batch 0's graph stays alive and its saved
# tensors with it: the graph reachable from ``h`` at batch 1 holds batch 0's graph too, as the running total
# on :ref:`the page on growing memory <questions-graph-kept-alive>` holds every step's graph. Here it fails anyway,
# at batch 1, with
# another error: batch 1's ``backward()`` reaches batch 0's nodes, which saved the cell's weight,
# and ``optimizer.step()`` has changed that weight in place since (see
# :ref:`questions-inplace-error`). With an optimizer made with ``fused=True``, whose step changes
# the parameters without moving their version counters, the same loop raises nothing: each
# ``backward()`` runs back through every earlier batch's graph, and the mistake goes unreported (the
# hidden check of this cell runs SGD, with and without momentum, Adam, AdamW and Adagrad).

torch.manual_seed(0)
cell = torch.nn.RNNCell(2, 3)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
h = torch.zeros(1, 3)
nodes = []


def batch_retaining_graph(b):
    global h
    for x_t in sequence[b]:
        h = cell(x_t, h)
    nodes.append(count_nodes(h))
    optimizer.zero_grad()
    h.pow(2).sum().backward(retain_graph=True)
    optimizer.step()


failed_batch, message = first_error(batch_retaining_graph, range(3))
print("nodes reachable from h, per batch:", nodes)
print("raised at batch:", failed_batch)
print("message:", message)
assert failed_batch == 1 and nodes[1] > nodes[0] and "modified by an inplace operation" in message, (
    "retain_graph=True fails at batch 1 with the in-place error, on a larger graph"
)
# sphinx_gallery_start_ignore


def fused_retaining_run(fused_class, fused_options):
    """The nodes reachable from h per batch in the loop above with a fused=True optimizer, and per step
    whether it changed every parameter's values and left every parameter's _version where it was."""
    with torch.random.fork_rng():
        fused_cell = torch.nn.RNNCell(2, 3)
        fused_optimizer = fused_class(fused_cell.parameters(), lr=0.1, fused=True, **fused_options)
        fused_h, fused_nodes, fused_quiet = torch.zeros(1, 3), [], []
        for fused_batch in sequence:
            for fused_x in fused_batch:
                fused_h = fused_cell(fused_x, fused_h)
            fused_nodes.append(count_nodes(fused_h))
            fused_optimizer.zero_grad()
            fused_h.pow(2).sum().backward(retain_graph=True)
            fused_before = [(fused_p._version, fused_p.detach().clone()) for fused_p in fused_cell.parameters()]
            fused_optimizer.step()
            fused_quiet.append(all(
                fused_p._version == fused_version and not torch.equal(fused_p, fused_old)
                for fused_p, (fused_version, fused_old) in zip(fused_cell.parameters(), fused_before, strict=True)
            ))
    return fused_nodes, fused_quiet


for fused_name, fused_class, fused_options in (
    ("SGD", torch.optim.SGD, {}), ("SGD with momentum", torch.optim.SGD, {"momentum": 0.9}),
    ("Adam", torch.optim.Adam, {}), ("AdamW", torch.optim.AdamW, {}), ("Adagrad", torch.optim.Adagrad, {}),
):
    fused_nodes, fused_quiet = fused_retaining_run(fused_class, fused_options)
    assert fused_nodes[0] < fused_nodes[1] < fused_nodes[2], (
        f"{fused_name} with fused=True: every batch's backward() ran, through the earlier graphs")
    assert all(fused_quiet), (
        f"{fused_name} with fused=True: each step changed every parameter's values and moved none of their "
        "version counters")
# sphinx_gallery_end_ignore

# %%
# Cause 3: two losses that share part of a graph
# ----------------------------------------------
#
# Two heads on one shared trunk, one loss each. ``loss1.backward()`` runs through ``head1`` and the
# trunk, and frees what the trunk's nodes saved (``tanh`` saved its result). ``loss2.backward()``
# runs through ``head2``, whose nodes were never run backward, then reaches the trunk and raises. By
# then it has already put ``loss2``'s gradient in ``head2``'s ``.grad``, while the trunk's ``.grad``
# still holds ``loss1``'s alone.

torch.manual_seed(0)
trunk, head1, head2 = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1), torch.nn.Linear(3, 1)
targets1, targets2 = torch.randn(8, 1), torch.randn(8, 1)
shared = trunk(inputs).tanh()
loss1 = (head1(shared) - targets1).pow(2).mean()
loss2 = (head2(shared) - targets2).abs().mean()
loss1.backward()
try:
    loss2.backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("the second loss's backward() must raise")
assert message.startswith("Trying to backward through the graph a second time"), (
    "the second loss's backward() raises the same error"
)
# sphinx_gallery_start_ignore
try:
    shared.grad_fn._saved_result
except RuntimeError as e:
    assert str(e) == message, "the trunk's saved result was freed by loss1.backward()"
else:
    raise AssertionError("the trunk's saved result must be freed")
twice_shared = trunk(inputs).tanh()
twice_trunk_grads = torch.autograd.grad((head1(twice_shared) - targets1).pow(2).mean(), [*trunk.parameters()])
twice_head2_grads = torch.autograd.grad((head2(twice_shared) - targets2).abs().mean(), [*head2.parameters()])
assert all(
    torch.equal(twice_p.grad, twice_g) for twice_p, twice_g in zip(head2.parameters(), twice_head2_grads, strict=True)
), (
    "the failed loss2.backward() had already put loss2's gradient in head2's .grad")
assert all(
    torch.equal(twice_p.grad, twice_g) for twice_p, twice_g in zip(trunk.parameters(), twice_trunk_grads, strict=True)
), (
    "the trunk's .grad holds loss1's gradient alone")
# sphinx_gallery_end_ignore

# %%
# Fix: one ``backward()`` on the sum
# ----------------------------------
#
# ``(loss1 + loss2).backward()`` runs through the shared trunk once and gives every parameter the
# sum of the two losses' gradients: the same gradients as ``loss1.backward(retain_graph=True)``
# then ``loss2.backward()``, computed below on a fresh graph.

params = [*trunk.parameters(), *head1.parameters(), *head2.parameters()]


def losses_of(x):
    shared = trunk(x).tanh()
    return (head1(shared) - targets1).pow(2).mean(), (head2(shared) - targets2).abs().mean()


loss1, loss2 = losses_of(inputs)
grads1 = torch.autograd.grad(loss1, params, retain_graph=True, allow_unused=True)
grads2 = torch.autograd.grad(loss2, params, allow_unused=True)
for p in params:
    p.grad = None
loss1, loss2 = losses_of(inputs)
(loss1 + loss2).backward()
separate = [sum(g for g in pair if g is not None) for pair in zip(grads1, grads2, strict=True)]
print("grad of the sum equals the sum of the grads:", all(
    torch.allclose(p.grad, s) for p, s in zip(params, separate, strict=True)))  # fmt: skip
assert all(torch.allclose(p.grad, s) for p, s in zip(params, separate, strict=True)), (
    "the grad of the sum equals the sum of the grads"
)

# %%
# In a training loop
# ------------------
#
# Two copies of the model train for three steps from the same weights: one with
# ``(loss1 + loss2).backward()``, the other with ``retain_graph=True`` on the first of two
# ``backward()`` calls. Both run every step and end with the same weights. ``retain_graph=True``
# is right here because the graph is used once more, in the same step; each step builds a new
# one. Used as a blanket fix for causes 1 and 2, it left the encoder's updates out of the loss, or
# kept the previous batch's graph, which then failed on the cell's weight it had saved, since changed in
# place by ``optimizer.step()`` (with this page's unfused SGD), as shown above.

models = {"sum": torch.nn.ModuleList([trunk, head1, head2])}
models["retain_graph"] = copy.deepcopy(models["sum"])
for name, model in models.items():
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        shared = model[0](inputs).tanh()
        loss1 = (model[1](shared) - targets1).pow(2).mean()
        loss2 = (model[2](shared) - targets2).abs().mean()
        if name == "sum":
            (loss1 + loss2).backward()
        else:
            loss1.backward(retain_graph=True)
            loss2.backward()
        optimizer.step()
    print(f"{name:<12} trunk weight after 3 steps: {[round(v, 4) for v in model[0].weight[0].tolist()]}")
assert all(
    torch.allclose(a, b) for a, b in zip(models["sum"].parameters(), models["retain_graph"].parameters(), strict=True)
), "the sum and retain_graph=True end with the same weights"

# %%
# Graphs that run a second time without the error
# -----------------------------------------------
#
# Some nodes raise on a second pass without having saved a tensor. Among them are the node of an in-place edit
# through a view, run eagerly (the next section), and a node made by a
# ``torch.autograd.Function`` whose ``backward`` reads ``ctx.saved_tensors``, which raises even when it
# saved no tensor, or only ``None``: a custom ``Function``, and also the node of ``checkpoint(..., use_reentrant=True)``
# (not with ``use_reentrant=False``) or of a function compiled by ``torch.compile`` with ``backend="aot_eager"``
# (``CompiledFunctionBackward``). With ``backend="eager"``, ``torch.compile`` adds no such node: the compiled
# function's graph keeps the eager nodes.
# Eagerly, ``(x + 1).sum()`` saves none: a second ``backward()``
# runs, and adds the same gradient to ``x.grad`` again, which is why the error shows with some
# graphs and not others. Below, each operation runs backward twice on a fresh leaf, and the table
# lists the tensors its node saved (its ``_saved_`` attributes that hold a tensor, or a tuple with a
# tensor in it, as indexing with a tensor saves its indices). Every second pass raised exactly where
# the node saved a tensor, and every other one doubled ``x.grad``.
# Multiplying by a plain number, ``x * 2``, keeps the number as a tensor (``_saved_other``), so it
# raises too.

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
z = (x + 1).sum()
z.backward()
z.backward()
print("(x + 1).sum(), two backward() calls, x.grad:", x.grad)
assert torch.equal(x.grad, torch.full((3,), 2.0)), "the second pass ran and added the gradient again"
# sphinx_gallery_start_ignore
class SavesAtMostNone(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, save_none):
        if save_none:
            ctx.save_for_backward(None)  # an optional tensor that is absent
        return 3 * t

    @staticmethod
    def backward(ctx, grad):
        saved_by_ctx = ctx.saved_tensors  # a second pass raises here
        assert all(one is None for one in saved_by_ctx), "no tensor was saved"
        return 3 * grad, None


for save_none in (False, True):
    custom_out = SavesAtMostNone.apply(torch.ones(3, requires_grad=True), save_none).sum()
    custom_out.backward(retain_graph=False)
    try:
        custom_out.backward()
    except RuntimeError as e:
        assert "backward through the graph a second time" in str(e), (
            "a custom Function whose backward reads ctx.saved_tensors raises on a second pass, saving no tensor")
    else:
        raise AssertionError("a second backward() through a custom Function that reads ctx.saved_tensors must raise")
from torch.utils import checkpoint as checkpointing  # noqa: E402

compiled_plus_one = torch.compile(lambda t: (t + 1).sum(), backend="aot_eager")
for name_of_node, saves_none in {
    "CompiledFunctionBackward": lambda t: compiled_plus_one(t),
    "CheckpointFunctionBackward": lambda t: checkpointing.checkpoint(lambda u: (u + 1).sum(), t,
                                                                            use_reentrant=True),
}.items():
    twice_out = saves_none(torch.ones(3, requires_grad=True))
    assert type(twice_out.grad_fn).__name__ == name_of_node, "the node torch.compile or the reentrant checkpoint adds"
    twice_out.backward()
    try:
        twice_out.backward()
    except RuntimeError as e:
        assert "backward through the graph a second time" in str(e), (
            "(x + 1).sum() compiled with backend='aot_eager' and a reentrant checkpoint of it raise on a second pass")
    else:
        raise AssertionError("a second backward() through torch.compile or a reentrant checkpoint must raise")
eager_leaf = torch.ones(3, requires_grad=True)
eager_out = torch.compile(lambda t: (t + 1).sum(), backend="eager")(eager_leaf)
assert [type(eager_out.grad_fn).__name__, type(eager_out.grad_fn.next_functions[0][0]).__name__] == [
    "SumBackward0", "AddBackward0"], "with backend='eager', the compiled (x + 1).sum() keeps the eager nodes"
eager_out.backward()
eager_out.backward()
assert torch.equal(eager_leaf.grad, torch.full((3,), 2.0)), (
    "with backend='eager', a compiled (x + 1).sum() runs a second pass")
non_reentrant_leaf = torch.ones(3, requires_grad=True)
non_reentrant_out = checkpointing.checkpoint(lambda u: (u + 1).sum(), non_reentrant_leaf, use_reentrant=False)
non_reentrant_out.backward()
non_reentrant_out.backward()
assert torch.equal(non_reentrant_leaf.grad, torch.full((3,), 2.0)), (
    "checkpoint with use_reentrant=False of (x + 1).sum() runs a second pass")
# sphinx_gallery_end_ignore


def holds_tensor(value):
    items = value if isinstance(value, (tuple, list)) else [value]
    return any(isinstance(item, torch.Tensor) for item in items)


def saved_tensors(node):
    return [name[7:] for name in dir(node) if name.startswith("_saved_") and holds_tensor(getattr(node, name))]


ops = {
    "x + 1": lambda x: x + 1,
    "x - 1": lambda x: x - 1,
    "-x": lambda x: -x,
    "x.view(3)": lambda x: x.view(3),
    "x.mean()": lambda x: x.mean(),
    "x * 2": lambda x: x * 2,
    "x * x": lambda x: x * x,
    "x.exp()": lambda x: x.exp(),
    "x.relu()": lambda x: x.relu(),
    "x.pow(2)": lambda x: x.pow(2),
    "x[torch.tensor([0, 2])]": lambda x: x[torch.tensor([0, 2])],
}
agree = []
for name, op in ops.items():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = op(x)
    saved = saved_tensors(y.grad_fn)
    out = y.sum()
    out.backward()
    once = x.grad.clone()
    raised, _ = first_error(lambda i, out=out: out.backward(), range(1))
    print(f"{name:<23} saved: {str(saved):<18} second backward() raised: {raised is not None}")
    agree.append((raised is not None) == bool(saved) and (raised is not None or torch.equal(x.grad, 2 * once)))
assert all(agree), "a second pass raises exactly when the node saved a tensor, and otherwise adds the gradient again"

# %%
# An in-place edit through a view
# -------------------------------
#
# Each in-place edit through a view of ``b = x.clone()`` below, such as ``b[0] = 5`` or ``b[:2].add_(1)``, makes
# ``CopySlices`` the node of ``b``, and a second ``backward()`` raises although no node of ``b``'s graph saved a
# tensor. The same edits of ``b`` itself, ``b.fill_(5)``, ``b.add_(1)`` and ``b.zero_()``, save nothing either and
# run a second time. So the table's method, reading the ``_saved_`` attributes, cannot tell beforehand whether a
# graph with such an edit runs twice.


def saved_in_graph(t):
    seen, stack = [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack.extend(child for child, _ in node.next_functions)
    return [name for node in seen for name in saved_tensors(node)]


def set_first(b):
    b[0] = 5


edits = {
    "through a view": {
        "b[0] = 5": set_first,
        "b[:2].add_(1)": lambda b: b[:2].add_(1),
        "b[:2].zero_()": lambda b: b[:2].zero_(),
        "b.view(3).add_(1)": lambda b: b.view(3).add_(1),
    },
    "of b itself": {
        "b.fill_(5)": lambda b: b.fill_(5),
        "b.add_(1)": lambda b: b.add_(1),
        "b.zero_()": lambda b: b.zero_(),
    },
}
second_pass = []
for kind, edits_of_kind in edits.items():
    for name, edit in edits_of_kind.items():
        x = torch.ones(3, requires_grad=True)
        b = x.clone()
        edit(b)
        saved = saved_in_graph(b)
        out = b.sum()
        out.backward()
        raised, _ = first_error(lambda i, out=out: out.backward(), range(1))
        second_pass.append((kind, type(b.grad_fn).__name__, saved, raised is not None))
        print(f"{name:<18} grad_fn: {type(b.grad_fn).__name__:<14} saved in b's graph: {saved}  "
              f"second backward() raised: {raised is not None}")
assert all((kind == "through a view") == (node == "CopySlices") == raised and not saved
           for kind, node, saved, raised in second_pass), (
    "an edit through a view makes CopySlices and a second pass raise, nothing saved; an edit of b itself runs twice")

# %%
# Conclusion
# ----------
#
# "Trying to backward through the graph a second time" means that a ``backward()`` reached a node
# whose saved tensors an earlier ``backward()`` freed, or one of the nodes above that raise on a second pass without
# having saved a tensor, such as that of an in-place edit through a view. In a training loop that node belongs to
# something two ``backward()`` calls share: a tensor computed before the loop (compute it inside; for a frozen
# encoder, once under ``torch.no_grad()``), a hidden state carried from the last batch
# (``h = h.detach()`` at the start of each batch), or, within one step, the trunk of two losses (one ``backward()``
# on their sum). Of the training loops of this page's three causes, ``retain_graph=True`` was right only in
# cause 3's, with two losses of one step; in the other two it left the encoder's updates out of the loss, or kept the
# previous batch's graph, which then failed on the cell's weight it had saved, since changed in place by
# ``optimizer.step()`` (a ``fused=True`` optimizer would not even have failed).
