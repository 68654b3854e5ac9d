"""
.. _copying-rebinding:

``a = a - a.grad`` 是重新绑定，而 ``a -= a.grad`` 是原地更新
================================================================================================

原文的第三个例子先取 ``c = a.detach()``，做一次反向传播，再写 ``a = a - a.grad``。名字 ``a``
移到了一个全新的张量上，而 ``c``
仍留在旧内存里，保存着旧值。本页运行这个例子，纠正其代码中的两处错误，再与 ``torch.no_grad()``
下的原地更新对比，那时 ``c`` 看得到变化。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址。

import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 准备
# ----
#
# 一个需要梯度的 2×2 全 1 叶子张量 ``a``，以及在同一块内存上 detach 得到的 ``c``。

a = torch.ones(2, 2)
a.requires_grad = True
c = a.detach()
print("a:", a)
print("c:", c)
print("same storage:", same_storage(a, c))
assert same_storage(a, c), "c must share a's memory"

# %%
# 被注释掉的那一行会失败
# ----------------------
#
# 原文保留了一行注释 ``#a[1,2] = 0``。取消注释后，它会引发 ``IndexError``：2×2 的张量没有下标为 2
# 的列。换成合法的下标也不行：往需要梯度的叶子张量里写入，会引发 ``RuntimeError``。

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
# ``c`` 是 2×2 的全 1 张量
# --------------------------------------
#
# 原文 ``print(c)`` 后面的注释 ``#tensor([1., 2., 3.])`` 是从上一个例子遗留下来的。``c`` 包含四个
# 1，原文自己的输出也是这样。

print("c:", c)
assert torch.equal(c, torch.ones(2, 2)), "c must be a 2x2 tensor of ones"

# %%
# 反向传播
# --------
#
# ``b = (a * 2).sum()`` 让 ``a`` 的每个元素都得到梯度 2。

b = (a * 2).sum()
b.backward()
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.full((2, 2), 2.0)), "a.grad must be all twos"

# %%
# ``a = a - a.grad`` 构造了一个新张量
# ------------------------------------------------------
#
# ``a - a.grad`` 分配一个新张量，``=`` 再让名字 ``a`` 指向它。第二个名字 ``a_old``
# 留住原来的叶子张量。新的 ``a`` 的 ``grad_fn`` 是 ``SubBackward0``，不是叶子；``c`` 仍然是全
# 1，并且仍与 ``a_old`` 共享内存。

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
assert not same_storage(a, a_old), "the new a must have new memory"
assert torch.equal(a.detach(), torch.full((2, 2), -1.0)), "the new a must hold -1"
assert a is not a_old, "the name a must point to a new tensor"
assert type(a.grad_fn).__name__ == "SubBackward0", "a must come from a subtraction"
assert not a.is_leaf, "the new a must not be a leaf"
assert same_storage(c, a_old), "c must still share the old tensor's memory"
assert torch.equal(a_old.detach(), torch.ones(2, 2)), "the old tensor must be unchanged"
# sphinx_gallery_end_ignore

# %%
# 忽略空白的差别，``a`` 和 ``c`` 的打印结果与原文的输出完全一致。


def one_line(t):
    return " ".join(repr(t).split())


article_a = "tensor([[-1., -1.], [-1., -1.]], grad_fn=<SubBackward0>)"
article_c = "tensor([[1., 1.], [1., 1.]])"
print("a as the article prints it:", one_line(a) == article_a)
print("c as the article prints it:", one_line(c) == article_c)
assert (one_line(a), one_line(c)) == (article_a, article_c), "a and c must print as in the article"

# %%
# .. admonition:: 原文与 torch |torch_version| 的实际行为
#    :class: warning
#
#    原文有两行代码写错了，不过它印出的输出是对的。被注释掉的 ``#a[1,2] = 0`` 在 2×2 张量上会引发
#    ``IndexError``；``print(c)`` 后面的注释 ``#tensor([1., 2., 3.])`` 与 ``c`` 不符，``c`` 是 2×2
#    的全 1 张量（见上方输出）。``SubBackward0`` 的打印与原文一致。

# %%
# 原地更新：``c`` 看得到
# ----------------------------
#
# 重复这个例子，但改用 ``a -= a.grad`` 原地更新
# ``a``。对需要梯度的叶子张量这样做会报错，所以必须放在 ``torch.no_grad()`` 之下。这样一来，``a``
# 仍是同一个对象、同一个叶子；``c`` 与它共享内存，于是看得到新的值。

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
# ``a.sub_(a.grad)`` 是同样的原地更新，只是写成了方法调用。

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
# sphinx_gallery_end_ignore

# %%
# ``torch.optim.SGD`` 也是原地更新
# ----------------------------------------------------
#
# 学习率为 1 的一步优化器更新，在同一块内存上做了同样的更新，所以 ``c`` 也跟着变了。

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
# 下一步：重新绑定后的 ``a`` 的 ``.grad`` 是 ``None``
# -----------------------------------------------------
#
# 在循环里，``a = a - a.grad`` 会让第二步出错。新的 ``a`` 不是叶子，所以下一次
# ``backward()`` 之后它的 ``.grad`` 仍是 ``None``，读取时 torch 还会发出警告；接下来的更新就失败了。

a = torch.ones(2, 2)
a.requires_grad = True
(a * 2).sum().backward()
a = a - a.grad
(a * 2).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    grad = a.grad
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
# 梯度会累加，除非清零
# --------------------
#
# 每次 ``backward()`` 都是把梯度加到 ``.grad`` 上，而不是替换它。两次反向传播得到两倍的梯度，所以训练循环在每次反向传播之前都要清掉
# ``.grad``：``a.grad = None``，或者 ``optimizer.zero_grad()``。

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
# sphinx_gallery_end_ignore

# %%
# 更新会破坏仍需要旧值的计算图
# ----------------------------
#
# 原地更新也有代价。更新之前建立的计算图保存的是当时版本的 ``w``；优化器的一步更新推进了版本，再通过那张计算图执行
# ``backward()`` 就会失败。一个网络在另一个网络的前向和反向传播之间被更新时（比如 GAN），常见的就是这个错误。

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
# 小结
# ----
#
# ``a = a - a.grad`` 算出一个新张量，并把名字移过去；从旧张量得到的东西（比如
# ``c``）留在旧内存上，新的 ``a`` 也不再是叶子。想让其他名字看到新值，就要在 ``torch.no_grad()``
# 下原地更新，优化器正是这样做的；两次反向传播之间要清掉 ``.grad``，并且在更新参数之前，
# 先对每一张保存了它的计算图执行 ``backward()``。下一页 :ref:`copying-add-rebinding` 展示 ``a = a + 1``
# 的同样区别。
