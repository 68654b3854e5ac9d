"""
.. _copying-add-rebinding:

``c = a; a = a + 1``：名字移走了，计算图还在
================================================================

原文最后一个例子先绑定 ``c = a``，再写 ``a = a + 1``。此后 ``a`` 指向新内存中的一个新张量，而 ``c``
仍是原来的叶子。本页验证这一点，说明两者在 autograd 的计算图中仍然相连，再与原地的 ``a.add_(1)``
对比：原地操作之后 ``c`` 和 ``a`` 仍是同一个张量。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 重新绑定之前，``c is a``
# ----------------------------------
#
# ``c = a`` 给叶子张量多起了一个名字。张量只有一个，它是叶子：需要梯度，没有 ``grad_fn``。

a = torch.ones(2, 2)
a.requires_grad = True
c = a
print("a:", a)
print("c:", c)
print("c is a:", c is a)
print("c.grad_fn:", c.grad_fn, " c.is_leaf:", c.is_leaf)
assert c.is_leaf and c.grad_fn is None, "c must name a leaf"

# %%
# ``a = a + 1`` 之后，有了两个张量
# ----------------------------------------------
#
# ``a + 1`` 分配一个新张量，在计算图中记为 ``AddBackward0``；``=`` 再把名字 ``a`` 移到它上面。``c``
# 留下的是原来的叶子：全 1，``requires_grad=True``，没有 ``grad_fn``。

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
assert not same_storage(a, c), "the new a must have new memory"
assert c is not a, "a must now name a different tensor"
assert torch.equal(a.detach(), torch.full((2, 2), 2.0)), "a must hold twos"
assert torch.equal(c.detach(), torch.ones(2, 2)), "c must still hold ones"
assert type(a.grad_fn).__name__ == "AddBackward0", "a must come from an addition"
assert not a.is_leaf, "the new a must not be a leaf"
# sphinx_gallery_end_ignore

# %%
# 忽略空白的差别，两个张量的打印结果与原文的输出完全一致。


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[2., 2.], [2., 2.]], grad_fn=<AddBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]], requires_grad=True)"
print("a as the article prints it:", one_line(a) == article_a)
print("c as the article prints it:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# 计算图仍把它们连在一起
# ----------------------
#
# 原文说 ``a`` 和 ``c`` 的联系断了。就内存而言确实如此；但对 autograd 来说并没有断：新的 ``a`` 是由
# ``c`` 算出来的，所以由 ``a`` 算出的损失，会把梯度传给叶子 ``c``。

loss = (a * 3).sum()
loss.backward()
print("c.grad:", c.grad)
assert torch.equal(c.grad, torch.full((2, 2), 3.0)), "the gradient must reach c"

# %%
# 原地操作时，名字不会分开
# ------------------------
#
# 对不需要梯度的张量，``a.add_(1)`` 修改的是张量本身：``c`` 仍然就是
# ``a``，所以看得到新的值。增强赋值 ``a += 1`` 同样是原地操作。

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
# 和 :ref:`copying-rebinding` 中一样，需要梯度的叶子张量拒绝 ``add_``；放在 ``torch.no_grad()``
# 之下就能执行，而且它仍是同一个叶子。

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
assert c.tolist() == [[2.0, 2.0], [2.0, 2.0]], "c must see the in-place addition"
assert a._version == 1, "only the add_ under no_grad must count"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``a = a + 1`` 让 ``c`` 留着旧的叶子，给 ``a``
# 一个新内存中的非叶子张量；输出与原文一致。两者不再共享内存，但来自新 ``a`` 的梯度仍会流回
# ``c``。如果希望所有名字都看到变化，就原地更新：``a.add_(1)`` 或
# ``a += 1``；对需要梯度的叶子张量，要放在 ``torch.no_grad()`` 之下。
