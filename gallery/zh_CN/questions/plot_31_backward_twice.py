"""
.. _questions-backward-twice:

“Trying to backward through the graph a second time”：第二次反向传播为何报错
============================================================================

.. admonition:: 答案
   :class: answer

   ``backward()`` 默认释放图中节点保存的张量，第二次调用又走到了这样的节点。循环前的张量改到循环内重算，编码器冻结时则在 ``no_grad()`` 下只算一次；上一批的隐藏状态先 ``detach()``；两个损失相加后只做一次 ``backward()``：

   .. code-block:: python

      with torch.no_grad():
          features = encoder(inputs)
      h = h.detach()
      (loss1 + loss2).backward()

``RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors
after they have already been freed)``：第二次 ``backward()`` 走到计算图（computation graph）中已被第一次释放的部分时，就会抛出这个错误；在下面原因一和原因二的训练循环里，它出现在第二步（原因二里是第二批）。本页复现三种常见原因：训练循环之前只算一次的张量、在批次之间传下去的 RNN 隐藏状态、共享一部分计算图的两个损失；说明每种情况下第二次 ``backward()`` 走到了图的哪一部分，在简短的训练循环里检查每种解决办法，最后看哪些图可以再跑一遍而不报错。
"""

# %%
# 辅助函数
# --------
#
# ``count_nodes`` 从张量的 ``grad_fn`` 出发，沿 ``next_functions`` 遍历计算图，数出能走到的节点。``first_error`` 对给定的每一步运行 ``step``，返回报错的那一步和报错信息；每一步都顺利运行时返回 ``(None, None)``。

import copy
import warnings

import torch

# sphinx_gallery_start_ignore
# no-figure: 本页打印的报错和各步损失就是答案；计算图用节点个数来数
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
# 报错信息，以及它说的是图的哪一部分
# ----------------------------------
#
# 图中每个节点都保存着它的求导公式要用的张量：``exp`` 保存它的结果。``backward()`` 一边走一边释放这些张量，所以第二次 ``backward()`` 走到这样的节点时，已经没有可用来计算的东西，于是抛出错误，报错信息以“Trying to backward through the graph a second time”开头。读取节点保存的东西（``_saved_result``，和所有 ``_saved_`` 开头的名字一样，是 torch 的内部属性）也会抛出同一条报错信息：保存的张量已经没有了。常见运算各保存什么，见 :ref:`“看运算保存了什么”那一页 <questions-saved-tensors>`。

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
# ``backward()`` 释放的是它所运行的节点保存的张量（带 ``inputs=`` 时，只运行通往指定张量的那些节点；指定的张量不是叶子张量（leaf tensor）时，生成它的那个节点也会运行，但算出的梯度不往下传；其余节点保存的张量留着）。不过，只要 ``retain_graph`` 为真，它就不释放这些张量：可以直接传入 ``retain_graph=True``，也可以只传入 ``create_graph=True``、让 ``retain_graph`` 取默认值（``create_graph=True`` 还会为梯度建一张计算图，以便对梯度再求导），因为 ``retain_graph`` 的默认值就是 ``create_graph`` 的值。两种做法任用其一，对同一个图的第二次 ``backward()`` 都能运行，并再往 ``w.grad`` 上累加一次梯度；而 ``backward(create_graph=True, retain_graph=False)`` 之后，第二次会报错。

for label, keep in {"retain_graph=True": {"retain_graph": True}, "create_graph=True": {"create_graph": True}}.items():
    w.grad = None
    loss = w.exp().sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_graph=True 在叶子张量上会警告引用循环，与本页无关
        loss.backward(**keep)
    loss.backward()
    twice = torch.allclose(w.grad, 2 * w.exp())
    print(f"backward({label}), then backward(): ran; w.grad is two passes' gradient: {twice}")
    assert twice, f"backward({label}) keeps what the nodes saved for a second pass"
# sphinx_gallery_start_ignore
freeing_leaf = torch.ones(3, requires_grad=True)
freeing_loss = freeing_leaf.exp().sum()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # 对叶子张量用 create_graph=True 会警告存在引用循环
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
# 原因一：循环之前只算一次的张量
# ------------------------------
#
# ``features = encoder(inputs)`` 在循环之前只运行一次，每一步的损失都建立在它上面。每一步的计算图都通到生成 ``features`` 的那个节点，而这个节点保存了 ``inputs``，用来计算编码器权重的梯度。第 0 步的 ``backward()`` 释放了这份保存的 ``inputs``；第 1 步的 ``backward()`` 走到同一个节点，于是报错。

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
# 解决办法：在循环内计算
# ----------------------
#
# 编码器也在训练时，它的输出必须在每一步用当前的权重重新计算：这样每一步都构建并释放自己的计算图。三步都顺利运行，编码器的权重变了，损失也下降了。

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
# 解决办法：冻结的编码器放在 ``torch.no_grad()`` 下运行
# -----------------------------------------------------
#
# 编码器冻结时（预训练的特征提取器、固定的嵌入），在 ``torch.no_grad()`` 下运行它：它不建计算图，``features`` 没有 ``grad_fn``，每一步的计算图到它为止。优化器只拿输出头的参数。编码器的输入不需要梯度时（本页就是这样），``encoder.requires_grad_(False)`` 对编码器的每次调用都有同样的效果。``detach()`` 用于已经带着计算图算出来的张量：``encoder(inputs).detach()`` 的值相同，但要先建好编码器的计算图，再把它丢掉。

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
# ``retain_graph=True`` 在这里掩盖了错误
# --------------------------------------
#
# 报错信息建议加 ``retain_graph=True``。在这个循环里它确实让报错消失了，但 ``features`` 仍是编码器在循环之前的输出：优化器每一步都在改编码器的权重，损失却始终看不到这个变化。

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
# 原因二：在批次之间传下去的 RNN 隐藏状态
# ---------------------------------------
#
# 截断的随时间反向传播（truncated BPTT）把长序列切成每批几个时间步交给 RNN，每一批都从上一批结束时的隐藏状态开始。原样传下去的 ``h`` 带着上一批的计算图：第 1 批的图里也有第 0 批的节点（下面打印的节点数变多了），它的 ``backward()`` 走到第 0 批的节点，而这些节点保存的张量已被第 0 批的 ``backward()`` 释放。

torch.manual_seed(0)
cell = torch.nn.RNNCell(2, 3)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
sequence = torch.randn(3, 4, 1, 2)  # 3 批，每批 4 个时间步，批大小 1，2 个特征
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
# 解决办法：每批开始时 ``h = h.detach()``
# ---------------------------------------
#
# ``h.detach()`` 保留隐藏状态的值，丢掉它的计算图，于是每一批的图都从这一批开始：每批能走到的节点数都相同，等于单独一批的图的节点数，每次 ``backward()`` 都顺利运行。

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
# 改用 ``retain_graph=True`` 会留住每一批的图
# -------------------------------------------
#
# 用 ``retain_graph=True`` 而不 ``detach()``，第 0 批的图连同它保存的张量都留了下来：第 1 批时从 ``h`` 能走到的图里也有第 0 批的图，就像 :ref:`“total_loss += loss”那一页 <questions-graph-kept-alive>` 里的累计值留住了每一步的图。这里它照样失败，在第 1 批报出另一个错误：第 1 批的 ``backward()`` 走到第 0 批的节点，这些节点保存了 RNN 单元（cell）的权重，而 ``optimizer.step()`` 之后已经原地（in-place）改过这个权重（见 :ref:`“原地修改报错”那一页 <questions-inplace-error>`）。如果优化器是用 ``fused=True`` 创建的，它的一步改了参数的值，却不推进参数的版本计数器（version counter），同样的循环就不会报错：每次 ``backward()`` 都沿着之前每一批的计算图一路传回去，错误悄无声息（本单元格的隐藏检查跑了带动量和不带动量的 SGD，以及 Adam、AdamW 和 Adagrad）。

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
# 原因三：共享一部分计算图的两个损失
# ----------------------------------
#
# 一个共享的主干上接两个输出头，各有一个损失。``loss1.backward()`` 经过 ``head1`` 和主干，释放主干节点保存的张量（``tanh`` 保存了它的结果）。``loss2.backward()`` 先经过还没做过反向传播的 ``head2``，接着走到主干，于是报错。这时它已经把 ``loss2`` 的梯度写进了 ``head2`` 的 ``.grad``，而主干的 ``.grad`` 里仍只有 ``loss1`` 的梯度。

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
# 解决办法：对两者之和做一次 ``backward()``
# -----------------------------------------
#
# ``(loss1 + loss2).backward()`` 只经过共享的主干一次，给每个参数的是两个损失的梯度之和：与先 ``loss1.backward(retain_graph=True)`` 再 ``loss2.backward()`` 得到的梯度相同（下面在新建的计算图上分别算出）。

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
# 在训练循环里
# ------------
#
# 模型的两份副本从相同的权重出发各训练三步：一份用 ``(loss1 + loss2).backward()``，另一份调用两次 ``backward()``，第一次带 ``retain_graph=True``。两份都每步顺利运行，最后权重相同。这里用 ``retain_graph=True`` 是对的，因为计算图只在同一步里再用一次，每一步都会构建新的图。若把它当作原因一和原因二的万能解决办法，如上文所示，它要么让编码器的更新进不了损失，要么留住上一批的计算图，而这张图保存的 RNN 单元权重已被 ``optimizer.step()`` 原地改过，于是报错（用的是本页未融合的 SGD）。

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
# 可以再跑一遍而不报错的图
# ------------------------
#
# 有些节点没有保存张量，第二遍也会报错。其中有即时执行（eager）时经由视图（view）的原地修改所生成的节点（见下一节），也有由 ``torch.autograd.Function`` 生成、在 ``backward`` 里读取 ``ctx.saved_tensors`` 的节点：后者即使什么张量都没保存，或只保存了 ``None``，第二遍也会报错：自定义的 ``Function`` 是这样，``checkpoint(..., use_reentrant=True)`` 的节点（``use_reentrant=False`` 的不会）和以 ``backend="aot_eager"`` 经 ``torch.compile`` 编译的函数的节点（``CompiledFunctionBackward``）也是这样。用 ``backend="eager"`` 时，``torch.compile`` 不会添加这样的节点：编译后的函数的图里仍是即时执行时的那些节点。即时执行时，``(x + 1).sum()`` 什么都不保存：第二次 ``backward()`` 照常运行，再往 ``x.grad`` 上累加一次同样的梯度。所以这个错误只在一部分图上出现。下面每种运算都在一个新的叶子张量上做两次反向传播，表中列出它的节点保存的张量（节点中存有张量或存有含张量的元组的 ``_saved_`` 属性，用张量做索引时保存的下标就是这样的元组）。凡是节点保存了张量的，第二遍都报错；没有保存的，第二遍都让 ``x.grad`` 翻了一倍。乘以一个普通的数 ``x * 2`` 也会把这个数存成张量（``_saved_other``），所以同样报错。

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
# 经由视图的原地修改
# ------------------
#
# 下面对 ``b = x.clone()`` 经由视图所做的每一种原地修改，比如 ``b[0] = 5`` 或 ``b[:2].add_(1)``，都让 ``b`` 的节点变成 ``CopySlices``，第二次 ``backward()`` 随之报错，尽管 ``b`` 的计算图里没有哪个节点保存了张量。直接对 ``b`` 本身做同样的修改（``b.fill_(5)``、``b.add_(1)`` 和 ``b.zero_()``）也什么都不保存，第二遍却照常运行。所以上表的办法，即读取 ``_saved_`` 属性，无法事先判断含有这种修改的图能否运行两次。


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
# 小结
# ----
#
# “Trying to backward through the graph a second time”说的是：某次 ``backward()`` 走到了一个节点，而它保存的张量已被先前的 ``backward()`` 释放；或者走到了上文那些没有保存张量、第二遍也会报错的节点之一，比如经由视图的原地修改所生成的节点。在训练循环里，这个节点属于两次 ``backward()`` 共享的东西：循环之前算好的张量（改在循环内计算；编码器冻结时，在 ``torch.no_grad()`` 下算一次即可）、从上一批传下来的隐藏状态（每批开始时 ``h = h.detach()``），或者同一步里两个损失共享的主干（对两者之和做一次 ``backward()``）。在本页三种原因的训练循环里，``retain_graph=True`` 只在原因三、同一步有两个损失的那个循环里用对了；在另外两个循环里，它要么让编码器的更新进不了损失，要么留住上一批的计算图，而这张图保存的 RNN 单元权重已被 ``optimizer.step()`` 原地改过，于是报错（换成 ``fused=True`` 的优化器，连错都不报）。
