"""
.. _data-vs-detach-data:

``.data``：悄无声息的修改，错误的梯度
==============================================

先算 ``out = a.sigmoid()``，再通过 ``out.data`` 把 ``out`` 清零，然后调用
``backward()``。修改确实落到了 ``out`` 上，自动求导（autograd）
却毫不知情。返回的梯度是错的，既不报错，也不警告。
"""

# %%
# 一个小计算图
# ------------
#
# ``a`` 是需要梯度的叶子张量。``out`` 是 ``a`` 的 sigmoid：它有
# ``grad_fn``，版本计数器 ``_version`` 从 0 开始。两个小辅助函数：``show``
# 打印张量本身，以及本页关心的几项 autograd 信息；``same_storage``
# 判断两个张量是否读同一块内存。
import warnings

import torch


def show(name, t):
    print(f"{name}: {t}")
    print(f"    requires_grad={t.requires_grad}  is_leaf={t.is_leaf}  _version={t._version}")


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
show("a", a)
show("out", out)
print("out.grad_fn:", out.grad_fn.name())
# sphinx_gallery_start_ignore
assert out._version == 0, "a fresh result starts at version 0"
assert out.requires_grad and not out.is_leaf, "out should be a non-leaf that requires grad"
# sphinx_gallery_end_ignore

# %%
# ``.data`` 共享数据，且不需要梯度
# ------------------------------------------
#
# ``c = out.data`` 是一个新的张量对象，和 ``out``
# 共用同一块存储。它不需要梯度，也没有 ``grad_fn``。在 autograd
# 看来，它只是一个普通的叶子张量。
c = out.data
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), ".data shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, ".data returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, ".data is a leaf that does not require grad"
assert torch.equal(c, out), "c holds the same numbers as out"
# sphinx_gallery_end_ignore

# %%
# 通过 ``c`` 把 ``out`` 清零
# ------------------------------------------
#
# ``c.zero_()`` 往共享的存储里写入 0，所以 ``out`` 也变成了
# 0。再看版本计数器：``c._version`` 从 0 变成了 1，``out._version`` 却还是
# 0。``.data`` 给了 ``c`` 一个独立的版本计数器，所以通过 ``c`` 的修改改变了
# ``out`` 的值，却不改变它的版本。
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert out._version == 0, "out's version counter did not move: .data does not share it"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert c._version == 1, "the in-place edit bumped c's version counter"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 原文与 torch |torch_version| 的实际行为
#    :class: warning
#
#    原文打印的是 ``grad_fn=<SigmoidBackward>``。在这个版本的 torch
#    上，节点名是 ``SigmoidBackward0``，见上面打印的
#    ``out``：反向节点的名字现在带一个数字。行为没有变化。
print("out.grad_fn:", out.grad_fn.name())
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"

# %%
# autograd 为反向传播保存了什么
# --------------------------------------
#
# sigmoid 的导数是 ``s * (1 - s)``，其中 ``s`` 是它的输出。所以
# ``SigmoidBackward0`` 保存的正是结果 ``out`` 本身。它的 ``_saved_result``
# 读的是同一块存储，现在里面全是 0。它的版本是 0，也就是 autograd
# 当初记下的版本，所以看不出任何异常。关于保存的张量，参见 `Saved tensors
# <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__。
saved = out.grad_fn._saved_result
show("saved", saved)
print("saved shares storage with out:", same_storage(saved, out))
assert saved._version == 0, "the saved result still reports version 0"
# sphinx_gallery_start_ignore
assert same_storage(saved, out), "the saved result is out's storage"
assert torch.equal(saved, torch.zeros(3)), "the saved result now holds zeros"
# sphinx_gallery_end_ignore

# %%
# ``backward()`` 照常运行，返回全 0
# --------------------------------------------------
#
# ``out.sum().backward()`` 既不报错，也不发出警告。它用被清零的 ``s`` 计算
# ``s * (1 - s)``，于是 ``a.grad`` 里全是 0。
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out.sum().backward()
print("warnings during backward:", len(caught))
show("a", a)
show("out", out)
print("a.grad:", a.grad)
assert torch.equal(a.grad, torch.zeros(3)), "the gradient is all zeros, because the saved output was zeroed"
# sphinx_gallery_start_ignore
assert len(caught) == 0, "backward() emitted no warning"
# sphinx_gallery_end_ignore

# %%
# 对照：正确的梯度
# ----------------
#
# 同一个计算图，不做修改，就能得到真正的梯度。我们再绕开 autograd，从
# ``s = 1 / (1 + exp(-x))`` 手算
# ``s * (1 - s)``。未修改的那次与手算结果一致，被修改的那次则不一致。
a_fresh = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out_fresh = a_fresh.sigmoid()
out_fresh.sum().backward()

x = torch.tensor([1.0, 2.0, 3.0])
s = 1 / (1 + torch.exp(-x))
expected = s * (1 - s)
print("a_fresh.grad (no edit):  ", a_fresh.grad)
print("s * (1 - s), by hand:    ", expected)
print("a.grad (after .data edit):", a.grad)
assert not torch.allclose(a.grad, expected), "the edited run does not give s * (1 - s)"
# sphinx_gallery_start_ignore
assert torch.allclose(a_fresh.grad, expected), "the fresh run gives s * (1 - s)"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 通过 ``.data`` 做的原位修改，改变了 autograd 保存的张量。但 ``.data``
# 有自己的版本计数器，autograd 检查的那个版本号始终没有变。``backward()``
# 顺利完成，返回的梯度却是错的。下一页用 ``detach()`` 做同样的修改，见
# :ref:`data-vs-detach-detach`。
