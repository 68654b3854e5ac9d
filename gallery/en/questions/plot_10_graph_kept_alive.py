"""
.. _questions-graph-kept-alive:

``total_loss += loss``: a graph kept alive by accident
======================================================

Summing the loss of every step for a report looks harmless, but a loss that still has a ``grad_fn``
brings its whole graph along: the running total holds every step's graph, and memory grows with the
number of steps. This page counts the autograd nodes reachable from the total at each step (linear
in the steps), shows that this kept graph cannot even be used, and fixes the loop with
``loss.item()`` or ``loss.detach()``. The PyTorch FAQ warns about this pattern under
`"Don't accumulate history across your training loop"
<https://docs.pytorch.org/docs/stable/notes/faq.html>`__.
"""

# %%
# Helpers for the whole page
# --------------------------
#
# ``count_nodes`` walks the graph from a tensor's ``grad_fn`` through ``next_functions`` and counts
# each node once. ``train`` runs a few steps of a tiny training loop and hands each step's loss to
# ``record``, which keeps the running total the way the reader's loop does.

import torch


def count_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def train(record, steps=5):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    for _ in range(steps):
        x = torch.randn(3)
        loss = ((w * x) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        record(loss)
    return loss


# %%
# The symptom: the total grows a graph
# ------------------------------------
#
# ``total_loss += loss`` adds the loss as a tensor, inside the graph. After each step the total
# still reaches every earlier step's nodes: the count goes up by the same amount at every step, as
# many nodes as one loss graph holds, so it grows linearly with the number of steps.

total_loss = 0
nodes = []


def keep_tensor(loss):
    global total_loss
    total_loss += loss
    nodes.append(count_nodes(total_loss))


last_loss = train(keep_tensor)
print("nodes in one loss graph:", count_nodes(last_loss))
print("nodes reachable from total_loss after each step:", nodes)
print("total_loss:", total_loss)
growth = [after - before for before, after in zip(nodes[:-1], nodes[1:], strict=True)]
print("growth per step:", growth)
assert growth == [count_nodes(last_loss)] * 4, "the total must grow by one loss graph's node count per step"

# %%
# That graph is of no use: each ``loss.backward()`` already freed the values it saved, so a
# backward through the total raises.

try:
    total_loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward through the kept graph must raise")

# %%
# The fix: keep a number, or a tensor out of the graph
# ----------------------------------------------------
#
# ``loss.item()`` gives a Python float, so the total is a float. ``loss.detach()`` gives a tensor
# without ``grad_fn``, so the total reaches no node at all. Both totals match the one above.

total_float = 0.0
total_detached = torch.zeros(())


def keep_number(loss):
    global total_float, total_detached
    total_float += loss.item()
    total_detached += loss.detach()


train(keep_number)
print("total_float:", round(total_float, 4), type(total_float).__name__)
print("total_detached:", total_detached)
print("nodes reachable from total_detached:", count_nodes(total_detached))
assert count_nodes(total_detached) == 0 and isinstance(total_float, float), "the fixed totals must hold no graph"
# sphinx_gallery_start_ignore
assert torch.allclose(total_detached, total_loss.detach()), "the fixed total must equal the graph-carrying one"
assert abs(total_float - total_loss.item()) < 1e-5, "the float total must equal the graph-carrying one"
# sphinx_gallery_end_ignore

# %%
# Conclusion
# ----------
#
# A tensor with a ``grad_fn`` carries its graph wherever it goes. To log or sum a loss, take
# ``loss.item()`` (a number) or ``loss.detach()`` (a tensor out of the graph); the count of reachable
# nodes then stays at zero however long the loop runs.
