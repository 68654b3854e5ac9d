"""
.. _questions-data-vs-no-grad:

原地修改权重：用 ``.data`` 还是 ``torch.no_grad()``？
========================================================

两者都能原地修改一个需要梯度的张量。区别出现在还有计算图保存着这个张量、等着 ``backward()``
的时候：在 ``torch.no_grad()`` 下修改，这次修改会被记下，``backward()`` 报错“one of the
variables needed for gradient computation has been modified by an inplace operation”；通过
``.data`` 修改则不会被记下，``backward()`` 一声不吭地给出错误的梯度。本页用两种方式修改同一张待求导的计算图，再演示
``p.data = t`` 如何悄悄改掉参数的形状。本页回答的是
`pytorch/pytorch#30987 <https://github.com/pytorch/pytorch/issues/30987>`__。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址。``true_grad`` 是按微积分在原始权重处
# ``(w * w).sum()`` 的梯度，由 ``torch.func.grad`` 算出。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


start = [1.0, 2.0, 3.0]
true_grad = torch.func.grad(lambda w: (w * w).sum())(torch.tensor(start))
print("true gradient:", true_grad)

# %%
# 在 ``torch.no_grad()`` 下：修改被记下，``backward()`` 报错
# ------------------------------------------------------------
#
# ``w * w`` 为反向传播保存了 ``w``，当时的版本是 0。在 ``torch.no_grad()`` 下修改后，``w._version``
# 变成 1，``backward()`` 拒绝使用这个被改过的张量。

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
print("w._version before the edit:", w._version)
with torch.no_grad():
    w.mul_(10)
print("w._version after the edit:", w._version)
try:
    loss.backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after an edit under no_grad must raise")

# %%
# 通过 ``.data``：修改不被记下，梯度是错的
# ------------------------------------------
#
# 同样的修改改为通过 ``w.data`` 进行，``w._version`` 停在 0。``backward()``
# 照常运行，用的却是改过的数值：梯度是微积分结果的十倍，而且没有任何提示。

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
w.data.mul_(10)
print("w._version after the edit:", w._version)
loss.backward()
print("w.grad:", w.grad)
print("true gradient:", true_grad)
assert w._version == 0 and torch.equal(w.grad, 10 * true_grad), ".data must hide the edit and give a wrong gradient"

# %%
# 修复：先做完 ``backward()``，再修改
# ------------------------------------
#
# 更新参数应该放在 ``backward()`` 之后，并在 ``torch.no_grad()`` 下进行：梯度是正确的，这次修改也记入了
# ``_version``，之后新建的计算图都能察觉。

w = torch.tensor(start, requires_grad=True)
loss = (w * w).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
print("w.grad:", w.grad)
print("w:", w)
print("w._version:", w._version, " w.is_leaf:", w.is_leaf)
assert torch.equal(w.grad, true_grad), "backward before the edit must give the true gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(w, torch.tensor(start) * 0.8), "the step must update w in place"
assert w._version == 1 and w.is_leaf, "the step is counted and w stays a leaf"
# sphinx_gallery_end_ignore

# %%
# ``p.data = t`` 换掉参数背后的张量，连形状一起换
# ------------------------------------------------
#
# 给 ``.data`` 赋值时，即使形状不同也不会报错：参数悄悄换成新的形状，从此与 ``t`` 共享内存。

p = torch.nn.Parameter(torch.ones(3))
t = torch.zeros(5)
p.data = t
print("p.shape:", tuple(p.shape))
print("same storage (p, t):", same_storage(p, t))
print("p.requires_grad:", p.requires_grad, " p.is_leaf:", p.is_leaf)
assert tuple(p.shape) == (5,) and same_storage(p, t), "p.data = t must take t's shape and memory"

# %%
# 在 ``torch.no_grad()`` 下用 ``copy_``，数值会写进参数自己的内存；形状对不上则报错。

p = torch.nn.Parameter(torch.ones(3))
try:
    with torch.no_grad():
        p.copy_(torch.zeros(5))
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("copy_ of a tensor of another size must raise")
t = torch.zeros(3)
with torch.no_grad():
    p.copy_(t)
print("p:", p)
print("same storage (p, t):", same_storage(p, t))
print("p._version:", p._version)
# sphinx_gallery_start_ignore
assert not same_storage(p, t) and torch.equal(p, t), "copy_ must copy the values, not the memory"
assert p._version == 1, "copy_ must be counted"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 修改权重要在 ``backward()`` 之后、在 ``torch.no_grad()`` 下进行：如果修改时还有计算图需要旧值，就会报错，而不是把梯度算错。``.data``
# 让 autograd 看不见修改，``p.data = t`` 连形状的改变也一并藏起来；``torch.no_grad()`` 下的
# ``copy_`` 则会检查形状。``.data`` 与 ``detach()`` 的逐条对比，见 :ref:`第二部分的最后一页 <data-vs-detach-comparison>`。
