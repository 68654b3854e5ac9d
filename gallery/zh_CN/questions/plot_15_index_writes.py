"""
.. _questions-index-writes:

``x[idx].add_(1)`` 什么也没改：通过索引写入
===========================================

.. admonition:: 答案
   :class: answer

   用整数列表、掩码或索引张量做索引时，``x[idx]`` 返回的是副本（零维 ``int64`` 索引得到视图，如
   ``x[x.argmax()]``），``x[idx].add_(1)`` 改的是这个副本；而 ``x[idx] += 1`` 会写进 ``x``，对需要梯度的叶子张量要在
   ``torch.no_grad()`` 下写。索引可能重复时，用 ``index_add_`` 累加：

   .. code-block:: python

      x[idx] += 1
      counts.index_add_(0, labels, torch.ones(len(labels), dtype=counts.dtype))

对索引得到的张量调用原地操作，既不报错也不警告，``x`` 却纹丝不动。本页分别用索引张量和掩码复现这一点，逐一检查哪些索引写法得到
``x`` 的视图、哪些得到副本，看 ``x`` 需要梯度时赋值要满足什么条件，介绍原地的索引方法（``index_put_``、``index_add_``、``masked_fill_``、``scatter_``），最后在一个小小的计数循环里看索引重复时各种写法的结果。常用的返回视图的操作的实测结果见 :doc:`视图操作一览 </views>`。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同。

import copy

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
# 用整数、切片、``None`` 和 ``...`` 索引（基本索引）返回 ``x`` 的视图，与 ``x`` 共享存储；改视图就是改 ``x``。整数列表、索引张量或掩码（高级索引），无论单独使用还是与基本索引混用，返回的都是副本。下面逐一按存储检查每种写法。
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
# 零维索引张量（例如 ``argmax()`` 返回的 ``int64`` 张量）按整数算，得到视图；除 ``uint8`` 外，各种整数 dtype 都是如此。零维的
# ``uint8`` 或 ``bool`` 张量则和 Python 的 ``True`` 一样按掩码算：得到副本，并在最前面多出一个大小为 1 的维度。
print("x[x[:, 0].argmax()]: same storage:", same_storage(x[x[:, 0].argmax()], x))
dtypes = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64,
          torch.uint8, torch.bool]  # fmt: skip
results = {dtype: x[torch.tensor(1, dtype=dtype)] for dtype in dtypes}
results["Python True"] = x[True]
for key, result in results.items():
    print(f"{key!s:<13} same storage: {same_storage(result, x)!s:<5}  shape: {tuple(result.shape)}")
copies = [key for key, result in results.items() if not same_storage(result, x)]
assert copies == [torch.uint8, torch.bool, "Python True"], "uint8, bool and True index as masks; the rest as integers"
# sphinx_gallery_start_ignore
assert same_storage(x[x[:, 0].argmax()], x), "the index argmax() returns gives a view"
assert all(results[key].shape == x[None].shape for key in copies), "each mask adds a first dimension of size 1"
assert all(torch.equal(results[key], x[1]) for key in results if key not in copies), "the rest index row 1"
# sphinx_gallery_end_ignore

# %%
# ``x`` 需要梯度时
# ----------------
#
# ``x[idx] += 1`` 是对 ``x`` 的原地操作，而自动求导（autograd）拒绝对需要梯度的叶子张量（``Parameter`` 也是）或这种叶子张量的视图做原地操作：要放在
# ``torch.no_grad()`` 下写。推理张量在 ``torch.inference_mode()`` 之外拒绝这样写，放在 ``torch.no_grad()``
# 下也一样，而且是先写入、再报错：报错时数值已经改了，调用方捕获错误后再试一次，就加了两次。需要梯度的非叶子张量和普通张量，两种模式下都照常写入。


def sources():
    with torch.inference_mode():
        inference = torch.zeros(4)
    return {
        "leaf": torch.zeros(4, requires_grad=True),
        "Parameter": torch.nn.Parameter(torch.zeros(4)),
        "view of a leaf": torch.zeros(2, 4, requires_grad=True)[0],
        "inference tensor": inference,
        "non-leaf": torch.zeros(4, requires_grad=True) * 1,
        "plain": torch.zeros(4),
    }


def add_one_at(x, grad_mode):
    try:
        with torch.set_grad_enabled(grad_mode):
            x[idx] += 1
    except RuntimeError as e:
        return f"{type(e).__name__}: {str(e).split('.')[0]}"
    return x.detach()


refused = {}
for grad_mode in (True, False):
    for name, x in sources().items():
        outcome = add_one_at(x, grad_mode)
        print(f"{'grad mode' if grad_mode else 'no_grad  '}  {name:<16} {outcome}")
        if isinstance(outcome, str):
            refused.setdefault(grad_mode, []).append(name)
        else:
            assert torch.equal(outcome, torch.tensor([1.0, 0.0, 1.0, 0.0])), "it wrote into x"
assert refused == {True: ["leaf", "Parameter", "view of a leaf", "inference tensor"], False: ["inference tensor"]}
with torch.inference_mode():
    inference = torch.zeros(4)
    inference[idx] += 1
print("inference tensor, under torch.inference_mode():", inference)
assert torch.equal(inference, torch.tensor([1.0, 0.0, 1.0, 0.0])), "inference mode takes it"

retried = sources()["inference tensor"]
for attempt in (1, 2):
    print(f"attempt {attempt} outside inference mode:", add_one_at(retried, False).split(".")[0], " values:", retried)
assert torch.equal(retried, torch.tensor([2.0, 0.0, 2.0, 0.0])), "each refused write added one: a retry adds twice"

# %%
# 用一个小循环检验这条建议：手写更新每个批次用到的嵌入行，即在 ``torch.no_grad()`` 下通过索引给 ``Parameter`` 赋值；三步之后，结果与对副本用
# ``torch.optim.SGD`` 更新的一致。
torch.manual_seed(0)
emb = torch.nn.Embedding(5, 2)
reference = copy.deepcopy(emb)
sgd = torch.optim.SGD(reference.parameters(), lr=0.1)
start = emb.weight.detach().clone()
for _ in range(3):
    ids = torch.randint(0, 5, (4,))
    for model in (emb, reference):
        model.zero_grad()
        model(ids).pow(2).sum().backward()
    rows = ids.unique()
    with torch.no_grad():
        emb.weight[rows] -= 0.1 * emb.weight.grad[rows]
    sgd.step()
print("by hand:", emb.weight.detach())
print("SGD:    ", reference.weight.detach())
assert torch.allclose(emb.weight, reference.weight) and not torch.equal(emb.weight, start), "same steps"

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
# 用整数、切片、``None`` 和 ``...`` 索引得到视图，``argmax()`` 返回的那种零维索引张量（``uint8``
# 以外的整数 dtype）也一样；用整数列表、一维及以上的索引张量或掩码索引得到副本，对副本调用原地方法，``x``
# 不会改变。要写进 ``x``，就通过索引赋值（``x[idx] = v``、``x[idx] += 1``；需要梯度的叶子张量或它的视图要放在
# ``torch.no_grad()`` 下，推理张量要放在 ``torch.inference_mode()`` 下），或者用原地的索引方法；索引会重复时，用
# ``index_add_`` 或 ``index_put_(..., accumulate=True)``。
