"""
.. _copying-safe-copy:

``a.detach().clone()``：最保险的复制
==========================================================

原文称 ``a.detach().clone()``
是复制张量最保险的办法：结果既脱离计算图，又有自己的内存。本页逐一验证这两点，并演示两个方向的修改都互不影响。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# 两个张量的存储起始地址相同，就说明它们共享内存。

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 做一份副本
# ----------
#
# ``a`` 是需要梯度的叶子张量。``detach()`` 先得到 ``a`` 在计算图之外的一个视图，``clone()``
# 再把这个视图复制到新的内存中。

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.detach().clone()
print("a:", a)
print("b:", b)
print("same storage:", same_storage(a, b))
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), b), "the copy must hold the same values"
# sphinx_gallery_end_ignore
assert not same_storage(a, b), "the copy must have its own memory"

# %%
# 脱离计算图
# ----------
#
# 副本不需要梯度，没有 ``grad_fn``，而且是叶子：在 autograd 看来，它是一个全新的常量，与 ``a``
# 毫无关系。

print("b.requires_grad:", b.requires_grad)
print("b.grad_fn:", b.grad_fn)
print("b.is_leaf:", b.is_leaf)
assert b.requires_grad is False, "the copy must not require grad"
# sphinx_gallery_start_ignore
assert b.grad_fn is None, "the copy must have no grad_fn"
assert b.is_leaf, "the copy must be a leaf"
# sphinx_gallery_end_ignore

# %%
# autograd 从副本出发无路可走。只由 ``b`` 算出的损失，根本无法求导。

loss = (b**2).sum()
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    # sphinx_gallery_start_ignore
    assert "does not require grad" in str(e), "the error must say that the loss does not require grad"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward through the copy must fail")
print("a.grad:", a.grad)
# sphinx_gallery_start_ignore
assert a.grad is None, "a must receive no gradient from the copy"
# sphinx_gallery_end_ignore

# %%
# 修改副本，原张量不变
# --------------------
#
# 往 ``b`` 里写入，``a`` 保持不变。

b[0] = 100.0
print("a:", a)
print("b:", b)
assert torch.equal(a.detach(), torch.tensor([1.0, 2.0, 3.0])), "a must not change"
# sphinx_gallery_start_ignore
assert a._version == 0, "a's version counter must not count an edit of the copy"
# sphinx_gallery_end_ignore

# %%
# 修改原张量，副本不变
# --------------------
#
# 反方向同样成立。``a`` 是需要梯度的叶子，对它做原地修改，必须放在 ``torch.no_grad()`` 之下。

with torch.no_grad():
    a.mul_(10)
print("a:", a)
print("b:", b)
# sphinx_gallery_start_ignore
assert torch.equal(a.detach(), torch.tensor([10.0, 20.0, 30.0])), "a must change"
# sphinx_gallery_end_ignore
assert torch.equal(b, torch.tensor([100.0, 2.0, 3.0])), "b must not change"

# %%
# PyTorch 推荐的也是这种写法
# ----------------------------------
#
# ``torch.tensor(a)`` 也会复制，但会发出警告，警告里推荐的正是
# ``detach().clone()``。这里有意捕获这条警告并打印出来。

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = torch.tensor(a)
for w in caught:
    print(w.category.__name__ + ":", w.message)
print("t:", t)
print("same storage:", same_storage(a, t))
assert "detach().clone()" in str(caught[0].message), "the warning must recommend detach().clone()"
# sphinx_gallery_start_ignore
assert len(caught) == 1, "torch.tensor(a) must warn once"
assert caught[0].category is UserWarning, "the warning must be a UserWarning"
assert not same_storage(a, t), "torch.tensor(a) must copy"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``a.detach().clone()``
# 得到的张量数值相同、内存独立、与计算图无关：两个方向的修改互不影响，梯度也不会流回
# ``a``。后面两页把这两半拆开来看：:ref:`copying-clone` 保留计算图，:ref:`copying-detach` 保留内存。
