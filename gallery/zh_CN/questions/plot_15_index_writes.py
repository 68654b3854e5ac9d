"""
.. _questions-index-writes:

``x[idx].add_(1)`` 什么也没改：通过索引写入
===========================================

.. admonition:: 答案
   :class: answer

   用整数列表、张量或掩码做索引时，``x[idx]`` 返回的是副本，``x[idx].add_(1)`` 改的是这个副本；而
   ``x[idx] += 1`` 这样的赋值会写进 ``x``。应当通过索引赋值；索引可能重复时，用 ``index_add_`` 累加：

   .. code-block:: python

      x[idx] += 1
      counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))

对索引得到的张量调用原地操作，既不报错也不警告，``x`` 却纹丝不动。本页分别用索引张量和掩码复现这一点，逐一检查哪些索引写法得到
``x`` 的视图、哪些得到副本，介绍原地的索引方法（``index_put_``、``index_add_``、``masked_fill_``、``scatter_``），最后在一个小小的计数循环里看索引重复时各种写法的结果。返回视图的每个操作的实测结果见 :doc:`视图操作一览 </views>`。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 现象
# ----
#
# 用索引张量的 ``x[idx]`` 和用布尔掩码的 ``x[mask]``，都会把选中的元素收集到一个新张量里。随后的 ``add_(1)`` 和
# ``[0] = 100.0`` 改的是这个没有任何名字指向的新张量：``x`` 没有变化，而且悄无声息。
x = torch.arange(6.0)
idx = torch.tensor([0, 2])
x[idx].add_(1)
print("after x[idx].add_(1):   x =", x)
x[x > 2][0] = 100.0
print("after x[x > 2][0] = 100: x =", x)
assert torch.equal(x, torch.arange(6.0)), "both edits changed a copy"

# %%
# 什么会写进 ``x``
# ----------------
#
# 给带索引的 ``x`` 赋值，调用的是 ``x.__setitem__``，它写进 ``x``；对带索引的 ``x`` 用 ``+=``，是先读出这些元素、加上，再用同样的方式赋值回去。每一次都是对 ``x`` 的原地操作：它的版本计数器（``x._version``，torch 的内部属性）随之增加。
x = torch.arange(6.0)
x[idx] = 10.0
print("after x[idx] = 10:   x =", x, " x._version:", x._version)
x[idx] += 1
print("after x[idx] += 1:   x =", x, " x._version:", x._version)
x[x > 5] += 1
print("after x[x > 5] += 1: x =", x, " x._version:", x._version)
assert torch.equal(x, torch.tensor([12.0, 1.0, 12.0, 3.0, 4.0, 5.0])), "the three assignments wrote into x"
# sphinx_gallery_start_ignore
assert x._version == 3, "each assignment is one in-place edit of x"
# sphinx_gallery_end_ignore

# %%
# 哪些索引写法得到视图
# --------------------
#
# 用整数、切片、``None`` 和 ``...`` 索引（基本索引）返回 ``x`` 的视图，与 ``x`` 共享存储；改视图就是改 ``x``。整数列表、索引张量或掩码（高级索引），无论单独使用还是与基本索引混用，返回的都是副本。零维整数张量按整数算。下面逐一按存储检查每种写法。
x = torch.arange(12.0).reshape(3, 4)
forms = {
    "x[1]": x[1],
    "x[1:]": x[1:],
    "x[:, 1]": x[:, 1],
    "x[::2]": x[::2],
    "x[None]": x[None],
    "x[..., 0]": x[..., 0],
    "x[torch.tensor(1)]": x[torch.tensor(1)],
    "x[[0, 2]]": x[[0, 2]],
    "x[torch.tensor([0, 2])]": x[torch.tensor([0, 2])],
    "x[x > 5]": x[x > 5],
    "x[1, [0, 2]]": x[1, [0, 2]],
    "x[1:, [0]]": x[1:, [0]],
}
for form, result in forms.items():
    print(f"{form:<24} same storage: {same_storage(result, x)}")
views = [form for form, result in forms.items() if same_storage(result, x)]
assert views == list(forms)[:7], "basic indexing gives views, advanced indexing copies"
# sphinx_gallery_start_ignore
assert all(result._is_view() == (form in views) for form, result in forms.items()), "views are views"
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    assert same_storage(x[[1, slice(None)]], x), "a list holding a slice indexes as a tuple (deprecated): a view"
# sphinx_gallery_end_ignore

# %%
# 原地的索引方法
# --------------
#
# 下面每个方法都写进 ``x``，并返回 ``x`` 本身：``index_put_``、``index_add_``、``masked_fill_`` 和 ``scatter_``。
x = torch.zeros(4)
mask = torch.tensor([True, False, False, True])
calls = {
    "index_put_": lambda: x.index_put_((idx,), torch.tensor(5.0)),
    "index_add_": lambda: x.index_add_(0, idx, torch.ones(2)),
    "masked_fill_": lambda: x.masked_fill_(mask, 7.0),
    "scatter_": lambda: x.scatter_(0, torch.tensor([1]), 9.0),
}
for name, call in calls.items():
    print(f"{name:<13} returns x: {call() is x}  x = {x}")
assert torch.equal(x, torch.tensor([7.0, 9.0, 6.0, 7.0])), "each call wrote into x"
# sphinx_gallery_start_ignore
assert x._version == 4, "four in-place edits of x"
# sphinx_gallery_end_ignore

# %%
# 索引重复时
# ----------
#
# ``x[idx] += 1`` 只读一次 ``x[idx]``，给读出的每个元素加 1，再写回去：被索引两次的元素得到的是 1，不是 2。
# ``index_put_(..., accumulate=True)`` 和 ``index_add_`` 则是出现几次就加几次。
twice = torch.tensor([0, 0, 2])
a, b, c = torch.zeros(3), torch.zeros(3), torch.zeros(3)
a[twice] += 1
b.index_put_((twice,), torch.ones(3), accumulate=True)
c.index_add_(0, twice, torch.ones(3))
print("x[twice] += 1:                ", a)
print("index_put_(accumulate=True):  ", b)
print("index_add_:                   ", c)
assert a[0] == 1 and b[0] == c[0] == 2, "+= adds once, accumulate=True and index_add_ add twice"
# sphinx_gallery_start_ignore
assert torch.equal(b, torch.bincount(twice, minlength=3).float()) and torch.equal(b, c), "both count"
# sphinx_gallery_end_ignore

# %%
# 在计数循环里检验解决办法
# ------------------------
#
# 按批次统计标签，索引重复是常态。三种写法各跑三个批次：对索引副本调用原地操作，什么也没数到；``+=``
# 每个批次里每个标签最多数一次；``index_add_`` 与对全部标签做 ``torch.bincount`` 的结果一致。
torch.manual_seed(0)
batches = [torch.randint(0, 4, (6,)) for _ in range(3)]
copied, assigned, counts = torch.zeros(4), torch.zeros(4), torch.zeros(4)
for labels in batches:
    copied[labels].add_(1)
    assigned[labels] += 1
    counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))
expected = torch.bincount(torch.cat(batches), minlength=4).float()
print("copied[labels].add_(1):", copied)
print("assigned[labels] += 1: ", assigned)
print("index_add_:            ", counts)
print("torch.bincount:        ", expected)
assert torch.equal(counts, expected) and not torch.equal(assigned, expected), "only index_add_ counts all"
# sphinx_gallery_start_ignore
assert not copied.any(), "the in-place call on a copy counted nothing"
per_batch = sum((torch.bincount(batch, minlength=4) > 0).float() for batch in batches)
assert torch.equal(assigned, per_batch), "+= counted each label once in each batch that holds it"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 用整数、切片、``None`` 和 ``...`` 索引得到视图；用整数列表、索引张量或掩码索引得到副本，对副本调用原地方法，``x``
# 不会改变。要写进 ``x``，就通过索引赋值（``x[idx] = v``、``x[idx] += 1``），或者用原地的索引方法；索引会重复时，用
# ``index_add_`` 或 ``index_put_(..., accumulate=True)``。
