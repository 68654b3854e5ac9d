"""
.. _questions-torch-func:

“accessing ``data`` under vmap transform is not allowed”：``torch.func`` 与复制
===============================================================================

.. admonition:: 答案
   :class: answer

   在 ``vmap`` 之下，函数拿到的是批量张量，它没有自己的内存，所以 ``.data`` 会被拒绝，``item()``、``tolist()`` 和
   ``numpy()`` 也一样；``detach()`` 可以用。解决办法是把代码里的 ``.data`` 换成 ``detach()``：

   .. code-block:: python

      def scale(t):
          return t.detach() * 2

``torch.func`` 在你交给它的张量上运行模块或函数。本页检查它复制了什么、共享了什么：``functional_call``
原样使用字典里的张量（模块自己的参数不受影响；缓冲区在哪里就在哪里更新：字典里有它就在字典里更新，没有就在模块里更新），``torch.func.grad`` 不需要
``requires_grad``，以及 ``vmap`` 拒绝哪些操作：``.data``、把批量张量变成 Python 数值或数组的调用，以及会交出它的内存的调用。最后是一个训练字典里参数的循环。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同。

import torch
from torch.func import functional_call, grad, vmap


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 现象
# ----
#
# 为普通张量写的代码常常读 ``.data``。放到 ``vmap`` 之下就会报错：函数只运行一次，拿到的是一个代表整批数据每一行的批量张量。

batch = torch.arange(6.0).reshape(2, 3)


def scale_data(t):
    return t.data * 2


try:
    vmap(scale_data)(batch)
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError(".data under vmap must raise")
assert message == "accessing `data` under vmap transform is not allowed", "the exact message"

# %%
# ``vmap`` 还拒绝什么
# -------------------
#
# 下面这些也都报错：``item()``、``tolist()`` 和 ``numpy()``，它们要把批量张量变成 Python 数值或数组；``data_ptr()`` 和
# ``untyped_storage()``，它们要交出它的内存；还有给 ``.data`` 赋值。``detach()``、``clone()`` 和原地的 ``add_``
# 都能逐行运行。读取张量布局的操作也并非都会报错：``stride()`` 和 ``storage_offset()`` 可以运行，给出的是一行的值；``repr()``
# 也能运行，显示的是一个 ``BatchedTensor``。

calls = {
    "t.item()": lambda t: t.sum().item(),
    "t.tolist()": lambda t: t.tolist(),
    "t.numpy()": lambda t: t.numpy(),
    "t.data_ptr()": lambda t: t.data_ptr(),
    "t.untyped_storage()": lambda t: t.untyped_storage(),
    "t.data = ...": lambda t: setattr(t, "data", torch.zeros(3)),
}
for call, f in calls.items():
    try:
        vmap(f)(batch.clone())
    except (RuntimeError, NotImplementedError) as e:
        print(f"{call}: {type(e).__name__}: {str(e).splitlines()[0]}")
    else:
        raise AssertionError(f"{call} under vmap must raise")
for call, f in {"t.detach()": lambda t: t.detach(), "t.clone()": lambda t: t.clone()}.items():
    print(f"{call}: runs, returns", vmap(f)(batch))
edited = batch.clone()
vmap(lambda t: t.add_(1))(edited)
print("t.add_(1) on edited:", edited)
assert torch.equal(edited, batch + 1), "an in-place add_ under vmap wrote into the tensor given to vmap"
layout = {}


def read_layout(t):
    layout.update(stride=t.stride(), storage_offset=t.storage_offset(), repr=repr(t))
    return t.clone()


vmap(read_layout)(batch)
print("t.stride():", layout["stride"], " t.storage_offset():", layout["storage_offset"],
      " repr(t) starts:", layout["repr"].split("(")[0])  # fmt: skip
assert (layout["stride"], layout["storage_offset"]) == (batch[0].stride(), batch[0].storage_offset()), "one row's"
assert layout["repr"].startswith("BatchedTensor("), "repr() ran under vmap and names the batched tensor"

# %%
# 解决办法
# --------
#
# ``detach()`` 给出同样的值，只是不带计算图，``vmap`` 接受它：每一行都乘以 2，和逐行循环的结果一样。


def scale(t):
    return t.detach() * 2


scaled = vmap(scale)(batch)
print("scaled:", scaled)
assert torch.equal(scaled, torch.stack([row * 2 for row in batch])), "the same as a loop over rows"

# %%
# ``functional_call`` 原样使用字典里的张量
# ----------------------------------------
#
# ``functional_call(module, tensors, args)`` 运行模块时，用字典里的张量代替模块的参数和缓冲区。调用过程中，``model.weight``
# 就是字典里的那个张量本身，而不是副本；调用结束后，模块拿回自己的参数，原封不动，梯度则流向字典里的张量。

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
weight_before = model.weight.detach().clone()
tensors = {name: torch.zeros_like(p, requires_grad=True) for name, p in model.named_parameters()}
inside = []
hook = model.register_forward_pre_hook(lambda module, args: inside.append(module.weight))
out = functional_call(model, tensors, (batch,))
hook.remove()
out.sum().backward()
print("inside the call, model.weight is tensors['weight']:", inside[0] is tensors["weight"])
print("after: model.weight is a Parameter:", isinstance(model.weight, torch.nn.Parameter),
      " unchanged:", torch.equal(model.weight, weight_before))
print("tensors['weight'].grad:", tensors["weight"].grad, " model.weight.grad:", model.weight.grad)
assert inside[0] is tensors["weight"] and torch.equal(model.weight, weight_before), "no copy, module untouched"
# sphinx_gallery_start_ignore
assert model.weight.grad is None, "the module's parameter got no gradient"
assert torch.equal(tensors["weight"].grad, batch.sum(0, keepdim=True)), "d/dW sum(xW^T + b) = sum of the rows"
# sphinx_gallery_end_ignore

# %%
# 缓冲区在字典里更新
# ------------------
#
# 训练模式下的 ``BatchNorm1d`` 会原地更新它的 ``running_mean``。通过 ``functional_call``
# 把它的状态复制一份传进去，更新的就是字典里的张量，与调用前是同一个对象；模块自己的 ``running_mean`` 仍然是零。字典里没有的缓冲区是模块自己的：只传入参数时，这次调用更新的是 ``norm.running_mean``。

norm = torch.nn.BatchNorm1d(3)
state = {name: t.clone() for name, t in norm.state_dict().items()}
running_mean = state["running_mean"]
functional_call(norm, state, (batch,))
print("state['running_mean']:", state["running_mean"], " same object:", state["running_mean"] is running_mean)
print("norm.running_mean:", norm.running_mean)
assert torch.allclose(running_mean, 0.1 * batch.mean(0)) and not norm.running_mean.any(), "updated in the dict only"
# sphinx_gallery_start_ignore
assert state["running_mean"] is running_mean, "the dict holds the same tensor object after the call"
# sphinx_gallery_end_ignore
params_only = {name: t.detach().clone() for name, t in norm.named_parameters()}
functional_call(norm, params_only, (batch,))
print("parameters only, norm.running_mean:", norm.running_mean)
assert torch.allclose(norm.running_mean, 0.1 * batch.mean(0)), "a buffer not in the dict is updated in the module"

# %%
# ``torch.func.grad`` 不需要 ``requires_grad``
# --------------------------------------------
#
# 即使 ``w`` 不需要梯度，``grad(f)(w)`` 也会返回 ``f`` 在 ``w`` 处的梯度，并且不碰 ``w.grad``。这里
# ``f(w) = sum(w ** 2)``，梯度是 ``2 w``。

w = torch.tensor([1.0, 2.0, 3.0])
g = grad(lambda v: (v**2).sum())(w)
print("g:", g, " w.requires_grad:", w.requires_grad, " w.grad:", w.grad)
assert torch.equal(g, 2 * w) and w.grad is None, "the gradient, without requires_grad and without w.grad"

# %%
# 训练一个字典里的张量
# --------------------
#
# 把两者合起来：通过 ``functional_call`` 用 SGD 训练字典里的张量三步，再直接训练模块本身三步。最后字典里的权重与模块的权重相同，而模块的参数只被它自己的循环训练过。

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
tensors = {name: p.detach().clone().requires_grad_() for name, p in model.named_parameters()}
dict_optimizer = torch.optim.SGD(tensors.values(), lr=0.1)
module_optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    dict_optimizer.zero_grad()
    ((functional_call(model, tensors, (x,)) - y) ** 2).mean().backward()
    dict_optimizer.step()
    module_optimizer.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    module_optimizer.step()
print("tensors['weight']:", tensors["weight"])
print("model.weight:     ", model.weight)
assert torch.allclose(tensors["weight"], model.weight), "the same training, on the dict and on the module"
# sphinx_gallery_start_ignore
assert not same_storage(tensors["weight"], model.weight), "two separate tensors were trained"
assert torch.allclose(tensors["bias"], model.bias), "the biases agree too"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``functional_call`` 在一次调用里把字典里的张量换进模块，结束后再换回模块自己的：两个方向都不复制，所以梯度和原地更新的缓冲区都落在字典里（字典里没有的缓冲区是模块自己的，就在模块里更新）。``torch.func.grad``
# 不需要 ``requires_grad``，也不用 ``.grad`` 就能算出梯度。在 ``vmap`` 之下，``.data`` 会报错，把批量张量变成
# Python 数值或数组的调用（``item()``、``tolist()``、``numpy()``）和交出它内存的调用（``data_ptr()``、``untyped_storage()``）也会报错；``detach()``、``clone()``、``add_``、``stride()``
# 和 ``repr()`` 都能运行。
