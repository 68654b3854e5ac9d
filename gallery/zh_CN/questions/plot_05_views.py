"""
.. _questions-views:

视图：哪些操作共享内存，经由视图写入会怎样
==============================================

``RuntimeError: unsupported operation: more than one element of the
written-to tensor refers to a single memory location. Please clone() the
tensor before performing the operation.``：这是往 ``expand`` 的结果里写入时得到的报错；为什么一行看起来差不多的代码却不报错，正是
`pytorch/pytorch#42726 <https://github.com/pytorch/pytorch/issues/42726>`__ 问的问题。本页列出哪些操作返回视图、``reshape``
什么时候会复制，以及基张量与它的视图共享哪些东西：内存、同一个版本计数器，还有 autograd 的历史（``CopySlices``）。
"""

# %%
# 辅助函数
# --------
#
# 视图有一个 ``_base``：它所使用的那块内存的主人。
import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 哪些操作返回视图
# ----------------
#
# 切片、整数下标、``view``、对连续张量的 ``reshape``、``t()`` 和 ``expand`` 返回的都是 ``x``
# 的视图。用列表或掩码做下标（即“高级索引”）会复制；布局必须改变时，``reshape`` 和 ``contiguous()`` 也会复制。
x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
results = {
    "x[0]": x[0],
    "x[:, 1:]": x[:, 1:],
    "x.view(3, 2)": x.view(3, 2),
    "x.reshape(3, 2)": x.reshape(3, 2),
    "x.t()": x.t(),
    "x[:, :1].expand(2, 3)": x[:, :1].expand(2, 3),
    "x[[0, 1]]": x[[0, 1]],
    "x[x > 2]": x[x > 2],
    "x.t().reshape(6)": x.t().reshape(6),
    "x.t().contiguous()": x.t().contiguous(),
}
views = [name for name, result in results.items() if result._base is x]
for name, result in results.items():
    print(f"{name:<22} view of x: {name in views!s:<5}  same storage: {same_storage(result, x)}")
assert views == list(results)[:6], "the first six are views, the last four are copies"
# sphinx_gallery_start_ignore
assert all(same_storage(results[key], x) for key in views), "every view shares x's memory"
assert not any(same_storage(results[key], x) for key in list(results)[6:]), "no copy does"
# sphinx_gallery_end_ignore

# %%
# ``view`` 还是 ``reshape``
# --------------------------
#
# ``x.t()`` 不是连续的：按行依次读取它，在内存里是跳着走的。``view`` 拒绝把它展平，并建议改用 ``reshape``，后者会复制。
try:
    x.t().view(6)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("view() of a non-contiguous layout must raise")
print("x.t().is_contiguous():", x.t().is_contiguous())
print("x.t().reshape(6):", x.t().reshape(6))
assert "Use .reshape(...) instead" in message, "view points to reshape"

# %%
# 对本来就连续的张量调用 ``contiguous()``，返回的就是张量本身：不是副本，连新对象都不是。
print("x.contiguous() is x:", x.contiguous() is x)
assert x.contiguous() is x, "contiguous() returns self when there is nothing to do"

# %%
# 往 ``expand`` 的结果里写入
# --------------------------
#
# ``expand`` 用步长 0 重复同一个元素，并不复制：下面的四列在内存里其实是同一个数。往里写入会报错；``clone()``
# 让每个元素都有自己的内存，之后写入就没问题了。
column = torch.zeros(3, 1)
wide = column.expand(3, 4)
print("wide.stride():", wide.stride())
try:
    wide[0] = 1.0
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("writing into an expanded tensor must raise")
wide = wide.clone()
wide[0] = 1.0
print("after clone():", wide.stride())
print(wide)
assert message.startswith("unsupported operation: more than one element of the written-to tensor refers to a single")
# sphinx_gallery_start_ignore
assert wide.stride() == (4, 1) and torch.equal(column, torch.zeros(3, 1)), "the clone has its own memory"
# sphinx_gallery_end_ignore

# %%
# `pytorch/pytorch#42726 <https://github.com/pytorch/pytorch/issues/42726>`__ 的疑问：同样是
# ``expand(...).type_as(weight)``，一段代码写入时报错，另一段却不报错。``type_as`` 的目标 dtype
# 与张量原本的相同时，原样返回，仍是 expand 出来的视图；真正的类型转换（这里是 ``bool`` 转 ``float``）会生成一个新的连续张量，可以写入。
weight = torch.rand(4, 4)
ones = torch.ones(4)
same_dtype = ones[:, None].expand_as(weight).type_as(weight)
cast = (ones > 0.5)[:, None].expand_as(weight).type_as(weight)
print("float -> float: stride", same_dtype.stride(), " view:", same_dtype._base is not None)
print("bool -> float:  stride", cast.stride(), " view:", cast._base is not None)
cast[0] = 0.0
assert same_dtype.stride() == (1, 0) and cast.stride() == (4, 1), "only the cast materialises the tensor"

# %%
# 基张量和它所有的视图共用一个版本计数器
# --------------------------------------
#
# 经由任何一个视图做原地操作，基张量和它其余所有视图的计数器都会一起增加。所以无论 autograd 保存的是其中哪一个，都能发现这次修改。
base = torch.zeros(2, 3)
row = base[0]
transposed = base.t()
row.add_(1.0)
print("base:", base)
print("_version: base", base._version, " row", row._version, " transposed", transposed._version)
assert base._version == row._version == transposed._version == 1, "one counter"

# %%
# ``CopySlices``：经由视图的修改进入基张量的历史
# ------------------------------------------------
#
# ``y[0] = 10.0`` 经由视图 ``y[0]`` 写入。autograd 把它作为一个 ``CopySlices`` 节点记在 ``y`` 上：此后 ``y[0]``
# 不再依赖 ``leaf``，所以那里的梯度是 0，和微积分对常数求导的结果一致。
leaf = torch.ones(3, requires_grad=True)
y = leaf * 2
print("y.grad_fn before:", type(y.grad_fn).__name__)
y[0] = 10.0
print("y.grad_fn after: ", type(y.grad_fn).__name__, " y._version:", y._version)
y.sum().backward()
print("leaf.grad:", leaf.grad)
assert type(y.grad_fn).__name__ == "CopySlices" and torch.equal(leaf.grad, torch.tensor([0.0, 2.0, 2.0]))

# %%
# 小结
# ----
#
# 视图与它的基张量共享内存、版本计数器，在 autograd 看来还共享历史。拿不准时，查看 ``t._base``。``reshape`` 和
# ``contiguous()`` 只在不得不复制时才复制；想确保拥有独立的内存，就用 ``clone()``。
