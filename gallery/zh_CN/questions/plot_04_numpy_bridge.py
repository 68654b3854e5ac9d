"""
.. _questions-numpy-bridge:

与 NumPy 互转：“Can't call numpy() on Tensor that requires grad”
====================================================================

``RuntimeError: Can't call numpy() on Tensor that requires grad. Use
tensor.detach().numpy() instead.``，见 `pytorch/pytorch#44023
<https://github.com/pytorch/pytorch/issues/44023>`__。照提示改就能运行，但返回的数组与张量共用内存。本页说明 NumPy 与 torch
之间哪些转换共享内存、哪些会复制，以及经由 NumPy 的一次写入如何在 autograd 毫不知情的情况下改掉梯度。
"""

# %%
# 辅助函数
# --------
#
# ``shares`` 比较张量第一个元素的地址和数组第一个元素的地址：地址相同，就是同一块内存。
import warnings

import numpy as np
import torch


def shares(t, array):
    return t.data_ptr() == array.__array_interface__["data"][0]


# %%
# 症状
# ----
#
# 需要梯度的张量不肯转成 NumPy 数组，因为 NumPy 可以在 autograd 之外读写它。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    a.numpy()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("numpy() on a tensor that requires grad must raise")
assert message == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."

# %%
# 提示里的 ``detach().numpy()`` 返回的数组用的就是张量自己的内存；对 CPU 上的张量，``numpy(force=True)``
# 也一样：两者都不复制。
view = a.detach().numpy()
forced = a.numpy(force=True)
print("detach().numpy():", view, " shares a's memory:", shares(a, view))
print("numpy(force=True):", forced, " shares a's memory:", shares(a, forced))
assert shares(a, view) and shares(a, forced), "both arrays use a's memory"

# %%
# 哪些转换共享，哪些复制
# ----------------------
#
# 从 NumPy 到 torch：``torch.from_numpy`` 和 ``torch.as_tensor`` 共享数组的内存（前提是 dtype 本来就合适），``torch.tensor``
# 会复制。从 torch 到 NumPy：``Tensor.numpy()`` 和 ``np.asarray`` 共享，``np.array`` 复制；在这个版本的 NumPy 上它还会发出警告，因为
# ``Tensor.__array__`` 不接受 NumPy 2 的 ``copy`` 参数。这里捕获警告并展示出来。
array = np.array([1.0, 2.0, 3.0], dtype=np.float32)
print("torch.from_numpy(array) shares:", shares(torch.from_numpy(array), array))
print("torch.as_tensor(array) shares: ", shares(torch.as_tensor(array), array))
print("torch.tensor(array) shares:    ", shares(torch.tensor(array), array))
t = torch.tensor([1.0, 2.0, 3.0])
print("t.numpy() shares:              ", shares(t, t.numpy()))
print("np.asarray(t) shares:          ", shares(t, np.asarray(t)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    copied = np.array(t)
print("np.array(t) shares:            ", shares(t, copied))
print("np.array(t) warned:", [f"{w.category.__name__}: {w.message}" for w in caught])
assert not shares(torch.tensor(array), array) and not shares(t, copied), "torch.tensor and np.array copy"
# sphinx_gallery_start_ignore
assert shares(torch.from_numpy(array), array) and shares(torch.as_tensor(array), array), "these two share"
assert shares(t, t.numpy()) and shares(t, np.asarray(t)), "these two share"
assert not shares(torch.as_tensor(array, dtype=torch.float64), array), "a dtype change forces a copy"
assert [record.category for record in caught] == [DeprecationWarning], "np.array(t) warns once"
# sphinx_gallery_end_ignore

# %%
# 经由 NumPy 的写入，autograd 看不见
# ----------------------------------
#
# 计算 ``w`` 的梯度要用 ``x``，所以 ``z = w * x`` 保存了 ``x``。如果在 torch 里原地修改 ``x``，``x._version``
# 会增加，``backward()`` 会报错（见 :ref:`原地修改报错那一页 <questions-inplace-error>`）。同样的修改经由 ``x.numpy()``
# 完成，计数器却不动：``backward()`` 照常运行，用的是改过的值。按微积分，``d/dw sum(w * x) = x``，即相乘时的
# ``[4, 5, 6]``；得到的梯度却不是它。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
x.numpy()[0] = 100.0
print("x:", x, " x._version:", x._version)
z.sum().backward()
print("w.grad:", w.grad)
assert x._version == 0 and w.grad[0] == 100.0, "the NumPy write went unseen and changed the gradient"

# %%
# 修法
# ----
#
# 写进一份副本：``x.numpy().copy()`` 是一个独立的数组，autograd 保存的张量保持原值，梯度也就是微积分给出的结果。
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x = torch.tensor([4.0, 5.0, 6.0])
z = w * x
edited = x.numpy().copy()
edited[0] = 100.0
z.sum().backward()
print("x:", x, " edited:", edited)
print("w.grad:", w.grad)
assert torch.equal(w.grad, torch.tensor([4.0, 5.0, 6.0])), "the gradient uses x as it was"
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.func.grad(lambda v: (v * torch.tensor([4.0, 5.0, 6.0])).sum())(w.detach()))
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``detach().numpy()``、``numpy(force=True)``、``np.asarray``、``torch.from_numpy`` 和 ``torch.as_tensor``
# 都共享内存；只有 ``torch.tensor`` 和 ``np.array`` 会复制。经由共享数组的写入，实实在在地改了张量，autograd
# 却毫不知情。要么先复制再写，要么在 torch 里修改，让版本计数器看得见。
