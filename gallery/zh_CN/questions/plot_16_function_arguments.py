"""
.. _questions-function-arguments:

在函数里改张量，改的是调用者的张量
==================================

.. admonition:: 答案
   :class: answer

   函数拿到的是调用者的张量对象本身，不是副本，所以在函数里做原地操作（``x += 1``、``x.add_(1)``），改的就是调用者的张量。应当改为计算出一个新张量：

   .. code-block:: python

      def add_one(x):
          x = x + 1
          return x

``x += 1`` 和 ``x = x + 1`` 看着差不多，对传进来的张量做的事却不一样。本页先对比这两种写法，再看同样的共享藏在哪三个地方：以张量为默认值的参数；把自己的张量交给调用者、调用者又会修改它的 ``Dataset``；模块的 ``copy.copy``。每个解决办法都按它的实际用法检验：反复调用、跑两个 epoch、训练几步。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同。随机种子固定了随机的权重和数据，所以下面的数字每次运行都一样。

import copy

import torch

torch.manual_seed(0)


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()

# %%
# ``x += 1`` 与 ``x = x + 1``
# ---------------------------
#
# 在 ``add_one_in_place`` 里，``x`` 指向调用者的张量，``+=`` 对它做原地操作：调用者的 ``a`` 变了，函数返回的也正是
# ``a`` 本身。在 ``add_one`` 里，``x + 1`` 是一个新张量，``x = ...`` 只是把函数自己的名字重新绑定过去：``a`` 原封不动。


def add_one_in_place(x):
    x += 1
    return x


def add_one(x):
    x = x + 1
    return x


a = torch.zeros(3)
returned = add_one_in_place(a)
print("after add_one_in_place(a): a =", a, " returned is a:", returned is a)
# sphinx_gallery_start_ignore
assert returned is a, "x += 1 returns the caller's tensor itself"
# sphinx_gallery_end_ignore
returned = add_one(a)
print("after add_one(a):          a =", a, " returned:", returned)
assert torch.equal(a, torch.ones(3)) and not same_storage(returned, a), "+= edited a, x + 1 did not"

# %%
# 以张量为默认值的参数
# --------------------
#
# 默认值只在执行 ``def`` 时创建一次，之后每次省略这个参数的调用，拿到的都是同一个张量。``total += v``
# 原地修改它，于是每次调用都从上一次结束的地方接着算。


def running_total(v, total=torch.zeros(2)):  # noqa: B008
    total += v
    return total


first = running_total(torch.ones(2)).clone()
second = running_total(torch.ones(2)).clone()
print("first call:", first, " second call:", second)
print("the default now:", running_total.__defaults__[0])
assert torch.equal(second, 2 * first), "the second call started from the first call's total"

# %%
# 把默认值设为 ``None``，在调用内部再创建张量：每次调用都从零开始。


def running_total_fixed(v, total=None):
    total = torch.zeros(2) if total is None else total
    total = total + v
    return total


totals = [running_total_fixed(torch.ones(2)) for _ in range(3)]
print("three calls:", totals)
assert all(torch.equal(t, torch.ones(2)) for t in totals), "each call starts from zero"

# %%
# 把自己的张量交出去的 ``Dataset``
# --------------------------------
#
# ``self.data[i]`` 是数据集张量的视图（见\ :ref:`通过索引写入那一页 <questions-index-writes>`），而不启动 worker（默认的
# ``num_workers=0``）时，``DataLoader(..., batch_size=None)`` 把每个样本原样传出来。循环里用数据集的均值对每个样本做原地归一化
# ``x.sub_(mean)``，改的就是数据集本身：第一个 epoch 看到的数据以零为中心，第二个 epoch 看到的又被平移了一次。


class Points(torch.utils.data.Dataset):
    def __init__(self, data, copies=False):
        self.data, self.copies = data, copies

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i].clone() if self.copies else self.data[i]


def epoch_means(dataset, mean, epochs=2):
    means = []
    for _ in range(epochs):
        items = [x.sub_(mean) for x in torch.utils.data.DataLoader(dataset, batch_size=None)]
        means.append(round(torch.stack(items).mean().item(), 2))
    return means


data = torch.randn(4, 3) + 5
original, mean = data.clone(), data.mean()
shared_means = epoch_means(Points(data), mean)
print("shared items, mean per epoch:", shared_means)
print("dataset changed:", not torch.equal(data, original))
assert not torch.equal(data, original) and abs(shared_means[1] + mean) < 0.01, "epoch 2 saw data shifted twice"

# %%
# 在数据集这一侧的解决办法：``__getitem__`` 返回 ``self.data[i].clone()``。跑完两个 epoch，数据集仍是原样。（用
# ``batch_size=2`` 时，``DataLoader`` 会把样本堆叠成一个新张量，也就是副本，这只是把问题掩盖了，并没有解决。）
data = original.clone()
copied_means = epoch_means(Points(data, copies=True), mean)
print("copied items, mean per epoch:", copied_means)
print("dataset changed:", not torch.equal(data, original))
assert torch.equal(data, original) and copied_means[0] == copied_means[1], "copies leave the dataset as it was"
# sphinx_gallery_start_ignore
assert same_storage(Points(data)[0], data) and not same_storage(Points(data, copies=True)[0], data)
# (its own generator: a DataLoader draws a seed when iterated, which would move the page's random numbers)
batches_of_two = torch.utils.data.DataLoader(Points(data), batch_size=2, generator=torch.Generator())
assert not any(same_storage(batch, data) for batch in batches_of_two), "batch_size=2 stacks the items into copies"
# sphinx_gallery_end_ignore

# %%
# 模块的 ``copy.copy``
# --------------------
#
# 浅拷贝得到一个新的模块对象，但它的属性就是原模块的属性：同一批 ``Parameter`` 对象，连存放它们的字典（``_parameters``、
# ``_buffers``、``_modules``，都是 torch 的内部属性）也是同一个；存放钩子的字典（``_forward_hooks`` 等）同样共享，所以在副本上注册的钩子，在原模块上也会运行。只有之后在其中一方上重新赋值的属性（比如 ``training``）才各自独立。
model = torch.nn.Linear(2, 1)
shallow = copy.copy(model)
print("shallow is model:", shallow is model)
print("shallow.weight is model.weight:", shallow.weight is model.weight)
for name in ("_parameters", "_buffers", "_modules", "_forward_hooks", "__dict__"):
    print(f"{name:<14} shared: {getattr(shallow, name) is getattr(model, name)}")
assert shallow.weight is model.weight and shallow._parameters is model._parameters, "shared"
# sphinx_gallery_start_ignore
assert shallow._buffers is model._buffers and shallow._modules is model._modules, "the other dicts too"
assert shallow._forward_hooks is model._forward_hooks and shallow._backward_hooks is model._backward_hooks, (
    "the dicts of hooks are shared"
)
assert shallow._forward_pre_hooks is model._forward_pre_hooks, "the dicts of hooks are shared"
hooked, hook_calls = torch.nn.Identity(), []
copy.copy(hooked).register_forward_hook(lambda *args: hook_calls.append(len(args)))
hooked(torch.ones(1, 2))
assert hook_calls == [3], "a hook registered on the copy runs on the original"
assert shallow.__dict__ is not model.__dict__, "the module's own attributes are separate"
# sphinx_gallery_end_ignore

# %%
# 所以给副本换上新的 ``Parameter``，原模块的也跟着换了；对 ``Sequential`` 的副本调用 ``eval()``，会切换原模块中共享的那些层，而原模块自己仍处于训练模式。
shallow.weight = torch.nn.Parameter(torch.zeros(1, 2))
print("model.weight is the new Parameter:", model.weight is shallow.weight)
net = torch.nn.Sequential(torch.nn.Linear(2, 1), torch.nn.Dropout(0.5))
copy.copy(net).eval()
print("net.training:", net.training, " net[1].training:", net[1].training)
assert model.weight is shallow.weight and net.training and not net[1].training, "the dicts are shared"

# %%
# 解决办法：``copy.deepcopy`` 会复制参数。``model`` 训练三步之后，浅拷贝的权重跟着变了，深拷贝的权重保持原样。
model = torch.nn.Linear(2, 1)
shallow, deep = copy.copy(model), copy.deepcopy(model)
before = model.weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 2)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
print("model.weight:  ", model.weight.detach())
print("shallow.weight:", shallow.weight.detach())
print("deep.weight:   ", deep.weight.detach())
assert torch.equal(shallow.weight, model.weight) and torch.equal(deep.weight, before), "follows, kept"
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the steps changed the weight"
assert not same_storage(deep.weight, model.weight), "the deep copy has memory of its own"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 传给函数的张量、作为默认值保存的张量、模块浅拷贝里的张量，都和原来的是同一个张量；数据集以 ``self.data[i]`` 交出去的样本则是原张量的视图，与它共享内存。经由其中任何一个名字做原地操作，改的都是原来的张量。函数里写 ``x = x + 1``；张量默认值在调用内部创建；调用者可能修改样本时，数据集交出 ``clone()``；复制模块用
# ``copy.deepcopy``。
