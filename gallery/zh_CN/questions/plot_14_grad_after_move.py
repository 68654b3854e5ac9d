"""
.. _questions-grad-after-move:

“搬动之后，权重的 ``.grad`` 是 ``None``”
========================================

.. admonition:: 答案
   :class: answer

   ``torch.randn(3, requires_grad=True).to(...)`` 一旦改变了设备或浮点 dtype，得到的就是一次运算的结果，而不是叶子张量，所以
   ``backward()`` 之后它的 ``.grad`` 仍是 ``None``。要么直接在目标设备上、以目标 dtype 创建张量，要么先搬动、再调用
   ``requires_grad_()``：

   .. code-block:: python

      w = torch.randn(3, dtype=torch.float64, requires_grad=True)
      w = torch.randn(3).to(torch.float64).requires_grad_()

用 ``requires_grad=True`` 创建的权重，随后搬到某个设备或转换成另一种 dtype，就再也训练不动了：它的 ``.grad``
始终是 ``None``，读取时还会警告（“The .grad attribute of a Tensor that is not a leaf Tensor is being accessed”）；优化器要么拒收（“can't optimize a non-leaf Tensor”），要么更新的是另一个张量。读者常搜的是“.cuda() 之后 grad 是 None”：把张量搬到 GPU、放进显存（``.cuda()``、``.to("cuda")``），正是这样一次搬动。本页用改变
dtype 和 ``meta`` 设备把这三种情况都复现出来（``meta`` 在这里扮演 GPU，任何一版 torch 都有它；GPU 框在 torch 找到 GPU 时检查 ``.cuda()`` 本身），说明梯度去了哪里，再用实际训练逐一检验三种解决办法。
"""

# %%
# 辅助函数
# --------
#
# ``read_grad`` 读取 ``t.grad``，同时返回读取时触发的警告，这样页面可以把警告展示出来，而不是任它漏出去。``train``
# 对 ``params`` 跑几步 SGD，返回每一步的损失。随机种子固定了随机的权重，所以下面的数字每次运行都一样。

import warnings

import torch


def read_grad(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    return grad, [str(w.message).split(". ")[0] for w in caught]


def train(params, loss_fn, steps=4):
    optimizer = torch.optim.SGD(params, lr=0.1)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


torch.manual_seed(0)
target = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)

# %%
# 现象
# ----
#
# ``w`` 在同一行里用 ``requires_grad=True`` 创建，又转换成 float64。这次转换是自动求导（autograd）记录下来的一次运算（``ToCopyBackward0``），``w`` 是它的结果，是非叶子张量：``backward()`` 之后 ``w.grad`` 仍是 ``None``，读取它还会警告。
w = torch.randn(3, requires_grad=True).to(torch.float64)
((w - target) ** 2).sum().backward()
grad, warned = read_grad(w)
print("w.is_leaf:", w.is_leaf, " w.grad_fn:", type(w.grad_fn).__name__)
print("w.grad:", grad)
print("warned:", warned)
assert not w.is_leaf and grad is None and warned, "a cast leaf is a non-leaf without .grad"
# sphinx_gallery_start_ignore
assert warned == ["The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"], "the warning"
# sphinx_gallery_end_ignore

# %%
# 搬到另一个设备上，也是同一种运算。``meta`` 是任何一版 torch 都有的设备（它的张量只有形状，没有数值），在这里扮演 GPU：搬过去的张量在那里同样是非叶子张量。
m = torch.randn(3, requires_grad=True).to("meta")
print("m.device:", m.device, " m.is_leaf:", m.is_leaf, " m.grad_fn:", type(m.grad_fn).__name__)
assert not m.is_leaf and type(m.grad_fn) is type(w.grad_fn), "to('meta') is recorded like to(float64)"

# %%
# .. admonition:: 在 GPU 上
#    :class: note gpu-box
#
#    ``.cuda()`` 和 ``.to("cuda")`` 与 ``.to("meta")`` 一样是搬动：作用在需要梯度的张量上，返回的是非叶子张量，``backward()`` 之后它的 ``.grad`` 仍是 ``None``；而用 ``requires_grad=True`` 直接在 GPU 上创建的张量是叶子张量（PyTorch 文档：
#    `Tensor.cuda <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.cuda.html>`__、`Tensor.is_leaf <https://docs.pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html>`__）。下面的单元格只在 torch 找到 GPU 时才做这些检查；框的标题写明本站构建时是否做了。

if torch.cuda.is_available():
    g = torch.randn(3, requires_grad=True).cuda()
    ((g - target.cuda()) ** 2).sum().backward()
    gpu_grad, gpu_warned = read_grad(g)
    print("g.device:", g.device, " g.is_leaf:", g.is_leaf, " g.grad_fn:", type(g.grad_fn).__name__)
    print("g.grad:", gpu_grad)
    on_gpu = torch.randn(3, device="cuda", requires_grad=True)
    print("created on the GPU, is_leaf:", on_gpu.is_leaf)
    assert not g.is_leaf and gpu_grad is None and gpu_warned, "a leaf moved with .cuda() is a non-leaf without .grad"
    assert type(g.grad_fn) is type(m.grad_fn) and on_gpu.is_leaf, ".cuda() is recorded like to('meta')"
    print("GPU checks passed on:", torch.cuda.get_device_name())


# %%
# 梯度去了哪里
# ------------
#
# 去了 ``w`` 的源张量。给这个 float32 叶子张量起个名字，就能看到梯度在它身上；上面那一行写法没有名字指向它，所以谁也读不到。
leaf = torch.randn(3, requires_grad=True)
w = leaf.to(torch.float64)
((w - target) ** 2).sum().backward()
print("leaf.grad:", leaf.grad)
print("w.grad:", read_grad(w)[0])
assert leaf.grad is not None and leaf.grad.dtype == torch.float32, "the float32 leaf holds the gradient"
# sphinx_gallery_start_ignore
assert torch.allclose(leaf.grad, (2 * (w - target)).float()), "d/dleaf of sum((leaf - target)**2)"
# sphinx_gallery_end_ignore

# %%
# 优化器拿错了张量
# ----------------
#
# 把搬动后的张量交给优化器，优化器直接拒收。
w = torch.randn(3, requires_grad=True).to(torch.float64)
try:
    torch.optim.SGD([w], lr=0.1)
except ValueError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an optimizer must refuse a non-leaf tensor")
# sphinx_gallery_start_ignore
assert message == "can't optimize a non-leaf Tensor", "the exact message"
# sphinx_gallery_end_ignore

# %%
# 在搬动之前创建优化器，它收下的是叶子张量，之后更新的也是这个叶子张量；损失读的却是搬过去的副本，哪一步都不会改动它：损失一直不变。
w = torch.randn(3, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
w = w.to(torch.float64)
losses = []
for _ in range(4):
    optimizer.zero_grad()
    loss = ((w - target) ** 2).sum()
    loss.backward()
    optimizer.step()
    losses.append(round(loss.item(), 4))
print("losses:", losses)
print("optimizer holds w:", optimizer.param_groups[0]["params"][0] is w)
assert len(set(losses)) == 1, "training the leaf leaves the moved copy, and the loss, unchanged"
# sphinx_gallery_start_ignore
assert optimizer.param_groups[0]["params"][0] is w.grad_fn.next_functions[0][0].variable, "it holds the leaf"
# sphinx_gallery_end_ignore

# %%
# 用训练逐一检验三种解决办法
# --------------------------
#
# 在一次调用里同时给出 dtype（或设备）和 ``requires_grad=True``：张量一创建就是目标位置上的叶子张量。损失每一步都在下降。
w = torch.randn(3, dtype=torch.float64, requires_grad=True)
losses = train([w], lambda: ((w - target) ** 2).sum())
print("w.is_leaf:", w.is_leaf, " w.dtype:", w.dtype, " losses:", losses)
on_meta = torch.randn(3, device="meta", requires_grad=True)
print("on meta, is_leaf:", on_meta.is_leaf)
assert w.is_leaf and losses == sorted(set(losses), reverse=True), "created in place, it trains"
# sphinx_gallery_start_ignore
assert w.grad is not None and w.grad.dtype == torch.float64, "the leaf holds its gradient"
assert torch.randn(3, device="meta", requires_grad=True).is_leaf, "created on meta, it is a leaf"
# sphinx_gallery_end_ignore

# %%
# 或者先搬动，再要求梯度：搬动时还没有需要梯度的张量，autograd 什么都没记录，对搬过去的张量调用
# ``requires_grad_()``，得到的就是需要梯度的叶子张量。
w = torch.randn(3).to(torch.float64).requires_grad_()
losses = train([w], lambda: ((w - target) ** 2).sum())
print("w.is_leaf:", w.is_leaf, " w.dtype:", w.dtype, " losses:", losses)
assert w.is_leaf and losses == sorted(set(losses), reverse=True), "moved, then requires_grad_(): it trains"

# %%
# 参数在模块里时，交给 ``module.to()`` 去搬：参数仍是叶子张量（``Parameter`` 对象），搬动之后创建的优化器能训练它们。
model = torch.nn.Linear(3, 1)
model.to(torch.float64)
x = torch.randn(8, 3, dtype=torch.float64)
losses = train(model.parameters(), lambda: (model(x) - x.sum(1, keepdim=True)).pow(2).mean())
print("model.weight.is_leaf:", model.weight.is_leaf, " losses:", losses)
assert model.weight.is_leaf and losses == sorted(set(losses), reverse=True), "module.to() keeps leaves"
# sphinx_gallery_start_ignore
assert isinstance(model.weight, torch.nn.Parameter) and model.weight.grad.dtype == torch.float64
casts = (torch.Tensor.double, torch.Tensor.half)
assert not any(cast(torch.randn(3, requires_grad=True)).is_leaf for cast in casts), "casts are recorded"
source = torch.ones(3, requires_grad=True)
assert source.to("cpu") is source and source.to(torch.float32) is source, "a to() that changes nothing returns the leaf"
assert not source.to(torch.int64).requires_grad, "a cast to an integer dtype does not require grad"
with torch.no_grad():
    assert source.to(torch.float64).is_leaf, "under no_grad the cast is a leaf"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``to()``、``double()`` 以及其他转换和搬动都是运算：在梯度模式下，它们改变一个需要梯度的张量的设备或浮点 dtype 时，返回的是非叶子张量，它的
# ``.grad`` 始终是 ``None``；优化器要么拒收它，要么去更新它的源张量。解决办法：创建张量时直接给出 ``dtype`` 和
# ``device``，或者搬动之后再调用 ``requires_grad_()``；模块则用 ``module.to()`` 搬动。
