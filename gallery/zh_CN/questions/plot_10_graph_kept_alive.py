"""
.. _questions-graph-kept-alive:

``total_loss += loss``：无意中留住的计算图
==========================================

为了汇报而把每一步的损失加起来，看似无害；可是带着 ``grad_fn`` 的损失会把整张计算图一起带走：累计值抓住了每一步的计算图，占用的内存随步数增长。本页在每一步数一数从累计值出发能到达多少个
autograd 节点（随步数线性增长），说明这张留下来的图根本用不了，再用 ``loss.item()`` 或
``loss.detach()`` 修好循环。PyTorch 的 FAQ 在
`“Don't accumulate history across your training loop”
<https://docs.pytorch.org/docs/stable/notes/faq.html>`__ 一节提醒过这种写法。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``count_nodes`` 从张量的 ``grad_fn`` 出发，沿 ``next_functions`` 遍历计算图，每个节点只数一次。``train``
# 运行一个小训练循环的几步，把每一步的损失交给 ``record``，由它像读者的循环那样维护累计值。

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
# 现象：累计值长出一张计算图
# --------------------------
#
# ``total_loss += loss`` 把损失当作张量相加，加法本身也在计算图里。每一步之后，累计值仍能到达之前每一步的节点：节点数每步增加同样多，恰好是一张损失计算图的节点数，所以随步数线性增长。

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
# 这张图毫无用处：每次 ``loss.backward()`` 都已经释放了它保存的值，所以对累计值做反向传播会报错。

try:
    total_loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward through the kept graph must raise")

# %%
# 修复：存一个数，或者存一个脱离计算图的张量
# ------------------------------------------
#
# ``loss.item()`` 返回 Python 浮点数，累计值也就是浮点数。``loss.detach()`` 返回没有 ``grad_fn``
# 的张量，累计值一个节点也到达不了。两个累计值都与上面的结果一致。

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
# 小结
# ----
#
# 带 ``grad_fn`` 的张量走到哪里，就把计算图带到哪里。要记录或累加损失，用 ``loss.item()`` 得到一个数，或用
# ``loss.detach()`` 得到脱离计算图的张量；这样无论循环跑多久，能到达的节点数都是零。
