"""
.. _questions-non-leaf-grad:

``.grad`` 为什么是 ``None``？非叶子张量的梯度
================================================

``backward()`` 之后读取中间结果的 ``.grad``，得到的是 ``None``，还伴随一条警告：“The .grad
attribute of a Tensor that is not a leaf Tensor is being accessed”。本页复现这个现象，用三种办法拿到这个梯度（``retain_grad()``、钩子、``torch.autograd.grad``），再演示手写的更新循环如何在不知不觉中把叶子张量变成非叶子张量，最后说明梯度会一直累加，直到你把它清零。警告本身指向
`pytorch/pytorch#30531 <https://github.com/pytorch/pytorch/pull/30531>`__。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``read_grad`` 读取 ``t.grad``，同时返回读取时触发的警告（只取第一句），这样页面可以把警告展示出来，而不是任它漏出去。

import warnings

import torch


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    return grad, [f"{w.category.__name__}: {str(w.message).split('. ')[0]}." for w in caught]


# %%
# 现象
# ----
#
# ``x`` 是叶子张量（由你创建）；``y = x * 2`` 不是（由运算得到，所以有 ``grad_fn``）。``backward()``
# 只填写叶子张量的 ``.grad``：``y.grad`` 是 ``None``，读取它还会触发警告。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = (y * y).sum()
z.backward()
y_grad, caught = read_grad(y)
print("x.is_leaf:", x.is_leaf, " y.is_leaf:", y.is_leaf, " y.grad_fn:", y.grad_fn.name())
print("x.grad:", x.grad)
print("y.grad:", y_grad)
print("warnings:", caught)
assert y_grad is None and caught[0].startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf"), (
    "reading .grad of a non-leaf must give None and warn"
)

# %%
# 拿到 ``y`` 的梯度的三种办法
# ---------------------------
#
# ``dz/dy = 2 * y``。在 ``backward()`` 之前调用 ``y.retain_grad()``，autograd 就会把它留在
# ``y.grad`` 里。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.retain_grad()
(y * y).sum().backward()
print("y.retains_grad:", y.retains_grad)
print("y.grad:", y.grad)
assert torch.equal(y.grad, 2 * y.detach()), "retain_grad() must keep dz/dy in y.grad"

# %%
# 在 ``y`` 上注册钩子，梯度经过时钩子能看到同样的值，但不会存到 ``y`` 上。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
seen = []
y.register_hook(seen.append)
(y * y).sum().backward()
print("the hook saw:", seen)
print("y.grad:", read_grad(y)[0])
# sphinx_gallery_start_ignore
assert len(seen) == 1 and torch.equal(seen[0], 2 * y.detach()), "the hook must see dz/dy"
assert read_grad(y)[0] is None, "the hook must not store the gradient on y"
# sphinx_gallery_end_ignore

# %%
# ``torch.autograd.grad`` 可以直接返回对计算图中任意张量的梯度，而且不写任何 ``.grad``，叶子张量的也不写。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
(dz_dy,) = torch.autograd.grad((y * y).sum(), y)
print("dz/dy:", dz_dy)
print("x.grad:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(dz_dy, 2 * y.detach()) and x.grad is None, "autograd.grad must return dz/dy and write no .grad"
# sphinx_gallery_end_ignore

# %%
# 把叶子张量变成非叶子张量的更新循环
# ----------------------------------
#
# 在 ``torch.no_grad()`` 之外写 ``w = w - lr * w.grad``，是用一次运算造出新张量，再把名字 ``w``
# 重新绑定到它上面：``w`` 从此是非叶子张量，下一次 ``backward()`` 不会填写它的 ``.grad``，于是下一次更新里的
# ``lr * w.grad`` 抛出 ``TypeError``。

lr = 0.1
w = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(2):
    (w * w).sum().backward()
    grad, caught = read_grad(w)
    print(f"step {step}: w.is_leaf={w.is_leaf} w.grad={grad} warnings={len(caught)}")
    if grad is not None:
        w = w - lr * grad
print("w.grad_fn:", w.grad_fn.name())
assert not w.is_leaf and read_grad(w)[0] is None, "the rebinding update must make w a non-leaf without .grad"
try:
    w = w - lr * read_grad(w)[0]
except TypeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an update with w.grad None must raise")

# %%
# 修复办法是在 ``torch.no_grad()`` 下原地修改 ``w``，并在每一步之后把梯度清零：``w``
# 始终是同一个叶子张量，三步之后的值与 ``w <- (1 - 2 lr) w`` 算出的一致。

w = torch.tensor([1.0, 2.0], requires_grad=True)
w_start = w.detach().clone()
for _ in range(3):
    (w * w).sum().backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad.zero_()
print("w:", w, " w.is_leaf:", w.is_leaf)
print("expected:", w_start * (1 - 2 * lr) ** 3)
assert w.is_leaf and torch.allclose(w, w_start * (1 - 2 * lr) ** 3), "the in-place update must keep w a leaf"

# %%
# 梯度会累加，直到清零
# --------------------
#
# 每次 ``backward()`` 都是往 ``.grad`` 上加，从不覆盖。对同一个损失做两遍，梯度就是两倍。``zero_()``
# 让它从头开始。

x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
print("after one backward:", x.grad)
(x * x).sum().backward()
print("after two:", x.grad)
assert torch.equal(x.grad, 2 * (2 * x.detach())), "a second backward must add to .grad"
x.grad.zero_()
(x * x).sum().backward()
print("after zero_() and one more:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(x.grad, 2 * x.detach()), "after zero_(), one backward gives the gradient once"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``.grad`` 只填写在叶子张量上。要中间张量的梯度，可以在 ``backward()`` 之前调用
# ``retain_grad()``，可以注册钩子，也可以用 ``torch.autograd.grad``。更新参数要在
# ``torch.no_grad()`` 下原地进行，这样参数始终是叶子张量；每一步之间记得把梯度清零。
