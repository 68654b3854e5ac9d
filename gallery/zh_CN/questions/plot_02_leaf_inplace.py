"""
.. _questions-leaf-inplace:

“a leaf Variable that requires grad is being used in an in-place operation”
=============================================================================

手写一步参数更新 ``w -= lr * w.grad``，程序停在 ``RuntimeError: a leaf Variable that requires grad is being
used in an in-place operation.``；只改权重的某一行，得到的是它的变体“a view of a leaf Variable ...”。本页先复现这两条报错，再介绍有意修改参数的几种正确做法：``torch.no_grad()``、``copy_``、``torch.utils.swap_tensors``，并说明为什么
``.data`` 也能用，却一声不吭。它回答的是 `pytorch/examples#779
<https://github.com/pytorch/examples/pull/779>`__ 背后的问题。
"""

# %%
# 辅助函数
# --------
#
# ``show`` 打印张量，以及它的 autograd 标志和版本计数器。
import torch


def show(name, t):
    node = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}  grad_fn={node}")


# %%
# 症状：手写 SGD 的一步
# ----------------------
#
# ``w`` 是需要梯度的叶子张量：``backward()`` 把它的梯度存进 ``w.grad``。对 ``L = (w**2).sum()``，梯度是
# ``2 * w``。照着公式写出的更新 ``w -= lr * w.grad`` 是对 ``w`` 的原地减法，autograd 在记录计算图时拒绝执行。
lr = 0.1
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w**2).sum().backward()
show("w", w)
print("w.grad:", w.grad)
try:
    w -= lr * w.grad
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a leaf that requires grad must raise")
show("w", w)
assert message == "a leaf Variable that requires grad is being used in an in-place operation.", "the exact message"
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.tensor([2.0, 4.0])), "the gradient of sum(w**2) is 2w"
assert w._version == 0, "the refused edit did not happen"
# sphinx_gallery_end_ignore

# %%
# 变体：“a view of a leaf Variable”
# ----------------------------------
#
# 修改权重的局部，比如把某一行清零，改的是叶子张量的视图：``w[0]`` 是一个视图，报错也如实说明了这一点。
layer = torch.nn.Linear(3, 2)
try:
    layer.weight[0] = 0.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an in-place edit of a view of a leaf must raise")
assert message.startswith("a view of a leaf Variable that requires grad is being used in an in-place operation")

# %%
# 修法一：``torch.no_grad()``
# ----------------------------
#
# 参数更新不属于模型本身，本来就不该被记录。在 ``torch.no_grad()`` 下，同一行代码可以执行：``w`` 仍是叶子张量，没有
# ``grad_fn``；它的版本计数器照常加一，所以任何保存了 ``w`` 的计算图依然能发现这次修改。
with torch.no_grad():
    w -= lr * w.grad
show("w", w)
assert w.is_leaf and w.grad_fn is None and w._version == 1, "an unrecorded edit that the counter sees"
# sphinx_gallery_start_ignore
assert torch.allclose(w, torch.tensor([0.8, 1.6])), "w - lr * 2w"
assert w.requires_grad, "w still requires grad"
# sphinx_gallery_end_ignore

# %%
# 这一步正是微积分给出的 ``w - 0.1 * 2 * w = 0.8 * w``。下一次 ``backward()``
# 也能在更新后的叶子张量上正常运行（先把 ``w.grad`` 清空，因为梯度会累加）。
w.grad = None
(w**2).sum().backward()
print("w.grad:", w.grad)
assert torch.allclose(w.grad, 2 * torch.tensor([0.8, 1.6])), "the next gradient is 2w at the new w"

# %%
# 修法二：用 ``copy_`` 或 ``nn.init`` 修改权重
# -----------------------------------------------
#
# 要把参数设成给定的值，就在 ``no_grad`` 下把值复制进去。参数还是原来那个对象、那块存储，持有它的优化器也就能看到新值。``torch.nn.init``
# 里的函数会自己处理 ``no_grad``。
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
weight = layer.weight
with torch.no_grad():
    layer.weight.copy_(torch.ones(2, 3))
    layer.weight[0] = 0.0
torch.nn.init.zeros_(layer.bias)
show("layer.weight", layer.weight)
show("layer.bias", layer.bias)
print("same object as before:", layer.weight is weight)
print("the optimizer holds it:", opt.param_groups[0]["params"][0] is layer.weight)
assert layer.weight is weight and torch.equal(layer.weight, torch.tensor([[0.0] * 3, [1.0] * 3]))
# sphinx_gallery_start_ignore
assert layer.weight.is_leaf and layer.bias.is_leaf, "both stay leaves"
assert torch.equal(layer.bias, torch.zeros(2)), "nn.init.zeros_ needs no no_grad"
# sphinx_gallery_end_ignore

# %%
# 修法三：形状要变时用 ``torch.utils.swap_tensors``
# --------------------------------------------------
#
# ``copy_`` 改不了形状。要把一层的输出从 2 个扩到 4 个，同时保留优化器持有的那个对象，可以用
# ``torch.utils.swap_tensors`` 交换两个张量对象的内容：``layer.weight`` 仍是同一个 Python 对象，但形状和数值都换成了新的。
bigger = torch.nn.Parameter(torch.full((4, 3), 0.5))
torch.utils.swap_tensors(layer.weight, bigger)
show("layer.weight", layer.weight)
print("same object as before:", layer.weight is weight)
print("the optimizer holds it:", opt.param_groups[0]["params"][0] is layer.weight)
print("bigger now holds the old values:", bigger.shape)
assert layer.weight is weight and layer.weight.shape == (4, 3), "same object, new shape"
# sphinx_gallery_start_ignore
assert bigger.shape == (2, 3), "the other object got the old contents"
assert isinstance(layer.weight, torch.nn.Parameter) and layer.weight.requires_grad
# sphinx_gallery_end_ignore

# %%
# 为什么 ``.data`` 也能用，却一声不吭
# ------------------------------------
#
# 上面那个 PR 最终合并的修法是 ``p.data.add_(...)``。它能运行，因为 ``p.data`` 是一个在 autograd 之外的张量。但它也有自己独立的版本计数器，所以这次修改不会让
# ``p._version`` 增加：保存了 ``p`` 的计算图察觉不到，算出的梯度会悄悄出错（见 :ref:`.data 那一页 <data-vs-detach-data>`）。在
# ``no_grad`` 下修改，计数器则会增加。
p = torch.tensor([1.0, 2.0], requires_grad=True)
p.data.mul_(10)
print("after p.data.mul_(10):        p._version =", p._version)
with torch.no_grad():
    p.mul_(10)
print("after no_grad(): p.mul_(10):  p._version =", p._version)
show("p", p)
assert p._version == 1, "only the edit under no_grad moved the counter"

# %%
# 小结
# ----
#
# autograd 记录计算图时，不能原地修改需要梯度的叶子张量。要修改它，就放在 ``torch.no_grad()`` 下（``w -= lr * w.grad``、``copy_``、按下标赋值），或者用
# ``torch.nn.init`` 里的函数，或者用 ``torch.utils.swap_tensors`` 整个换掉。``.data`` 也行，但它让版本计数器看不到这次修改。
