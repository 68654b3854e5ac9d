"""
.. _questions-same-object:

看起来像复制，返回的却是同一个张量
====================================

``b = a.cpu()``、``b = a.to(torch.float32)``、``b = a.float()``：读起来都像“转换出一份副本”，可是没有什么需要转换时，它们返回的都是
``a`` 本身。这时修改 ``b`` 就是修改 ``a``。本页列出这些调用，介绍由 `pytorch/pytorch#12454
<https://github.com/pytorch/pytorch/issues/12454>`__ 加入的 ``to(copy=True)``，并说明真正复制了的类型转换对 autograd 意味着什么（``ToCopyBackward0``）。
"""

# %%
# 辅助函数
# --------
import warnings

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 症状
# ----
#
# 对 CPU 上的张量，``a.cpu()`` 无处可搬，于是返回 ``a``。对这份“副本”的原地修改改的就是 ``a``，两个名字显示的版本也相同。
a = torch.tensor([1.0, 2.0, 3.0])
b = a.cpu()
b.add_(10)
print("a:", a, " a._version:", a._version)
print("b:", b, " b._version:", b._version)
print("b is a:", b is a)
assert b is a and torch.equal(a, torch.tensor([11.0, 12.0, 13.0])), "cpu() returned a itself"

# %%
# 哪些调用返回张量本身
# --------------------
#
# 前八个调用，要求转换成张量本来的样子时，返回的都是同一个对象。只有显式复制，或者真的改变 dtype，才会得到新的内存。
a = torch.tensor([1.0, 2.0, 3.0])
results = {
    "a.to(torch.float32)": a.to(torch.float32),
    "a.to('cpu')": a.to("cpu"),
    "a.cpu()": a.cpu(),
    "a.float()": a.float(),
    "a.contiguous()": a.contiguous(),
    "a.type(torch.float32)": a.type(torch.float32),
    "a.type_as(a)": a.type_as(a),
    "torch.as_tensor(a)": torch.as_tensor(a),
    "a.to(torch.float32, copy=True)": a.to(torch.float32, copy=True),
    "a.double()": a.double(),
    "a.clone()": a.clone(),
}
same = [name for name, result in results.items() if result is a]
for name, result in results.items():
    print(f"{name:<31} is a: {name in same!s:<5}  same storage: {same_storage(result, a)}")
assert same == list(results)[:8], "the first eight return a itself"
# sphinx_gallery_start_ignore
assert not any(same_storage(results[key], a) for key in list(results)[8:]), "the last three copy"
# sphinx_gallery_end_ignore

# %%
# 用 ``to(copy=True)``，而不是 ``torch.tensor(a)``
# --------------------------------------------------
#
# ``to(..., copy=True)`` 总会给出新的内存，即使没有什么需要转换。``torch.tensor(a)`` 也会复制，但会发出警告，建议改用
# ``a.detach().clone()``；这里捕获警告并展示出来。
copied = a.to(copy=True)
copied.add_(10)
print("a:", a)
print("copied:", copied)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    rebuilt = torch.tensor(a)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
assert torch.equal(a, torch.tensor([1.0, 2.0, 3.0])), "the edit of the copy left a alone"
# sphinx_gallery_start_ignore
assert not same_storage(rebuilt, a), "torch.tensor(a) copies"
assert [record.category for record in caught] == [UserWarning] and "detach().clone()" in str(caught[0].message)
# sphinx_gallery_end_ignore

# %%
# 会复制的类型转换仍在计算图里
# ----------------------------
#
# 当 ``requires_grad=True`` 时，返回 ``a`` 本身的那些调用返回的就是这个叶子张量。会复制的类型转换，比如 ``a.double()`` 或
# ``to(copy=True)``，是 autograd 记录的一次运算（``ToCopyBackward0``）：结果不是叶子张量，梯度会以 ``a`` 自己的 dtype
# 流回 ``a``。它复制了内存，却不能让张量脱离计算图；脱离计算图要用 ``detach()``。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
as_float = a.float()
as_double = a.double()
forced = a.to(copy=True)
print("a.float() is a:", as_float is a)
print("a.double(): grad_fn", as_double.grad_fn.name(), " is_leaf", as_double.is_leaf, " dtype", as_double.dtype)
print("a.to(copy=True): grad_fn", forced.grad_fn.name(), " is_leaf", forced.is_leaf)
as_double.sum().backward()
print("a.grad:", a.grad)
assert as_double.grad_fn.name() == "ToCopyBackward0" and a.grad.dtype == torch.float32, "recorded, and back in float32"
# sphinx_gallery_start_ignore
assert as_float is a and forced.grad_fn.name() == "ToCopyBackward0" and not forced.is_leaf
assert torch.equal(a.grad, torch.ones(3)), "the derivative of a cast is 1"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 没有什么需要做时，``to``、``cpu``、``float``、``contiguous``、``type`` 和 ``torch.as_tensor`` 都返回输入本身。想要独立的内存，用
# ``clone()`` 或 ``to(..., copy=True)``；如果还要脱离计算图，用 ``detach().clone()``，见 :ref:`最保险的复制 <copying-safe-copy>`。
