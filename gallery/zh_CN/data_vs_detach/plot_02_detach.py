"""
.. _data-vs-detach-detach:

``detach()``：同样的修改，被 autograd 发现
================================================================

把上一页的 ``out.data`` 换成 ``out.detach()``，再做一遍。修改同样落到了
``out`` 上，但这一次 ``backward()`` 抛出了
``RuntimeError``：自动求导（autograd）发现了这次修改。每一步之后打印的版本计数器会说明原因。
"""

# %%
# 同一个小计算图
# --------------
#
# 还是 ``out = a.sigmoid()``，辅助函数 ``show`` 和 ``same_storage``
# 与上一页相同。两个张量的版本都从 0 开始。
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
# sphinx_gallery_start_ignore
assert a._version == 0 and out._version == 0, "both tensors start at version 0"
# sphinx_gallery_end_ignore

# %%
# ``detach()`` 共享数据，且不需要梯度
# ------------------------------------------------
#
# 和 ``.data`` 一样，``out.detach()`` 返回一个新的张量对象，与 ``out``
# 共用同一块存储，``requires_grad=False``，也没有 ``grad_fn``。
c = out.detach()
show("out", out)
show("c", c)
print("c is out:", c is out)
print("same storage:", same_storage(c, out))
print("c.grad_fn:", c.grad_fn)
assert same_storage(c, out), "detach() shares storage with out"
# sphinx_gallery_start_ignore
assert c is not out, "detach() returns a new tensor object"
assert not c.requires_grad and c.grad_fn is None and c.is_leaf, "detach() gives a leaf that does not require grad"
# sphinx_gallery_end_ignore

# %%
# 通过 ``c`` 把 ``out`` 清零：两个版本一起变
# ----------------------------------------------------------
#
# 与 ``.data`` 的区别就在这里。``c.zero_()`` 把版本计数器加到
# 1，``out._version`` 也是 1。``detach()``
# 与源张量共用一个版本计数器，所以通过 ``c`` 的修改也记在了 ``out`` 上。
c.zero_()
show("a", a)
show("out", out)
show("c", c)
assert c._version == 1 and out._version == 1, "c and out share one version counter"
# sphinx_gallery_start_ignore
assert torch.equal(out, torch.zeros(3)), "the edit through c reached out"
assert a._version == 0, "a was not touched"
# sphinx_gallery_end_ignore

# %%
# ``backward()`` 拒绝执行
# --------------------------------------
#
# 计算 ``s * (1 - s)`` 需要输出 ``s``，所以 ``SigmoidBackward0`` 保存了
# ``out``，同时记下了当时的版本：0。``backward()``
# 取出这个保存的张量时，会把记下的版本和当前版本比较。发现是
# 1，于是报错。``a.grad`` 仍是 ``None``。
try:
    out.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward() must raise")
show("a", a)
print("a.grad:", a.grad)
assert "output 0 of Sigmoid, is at version 1; expected version 0 instead" in message, "the error gives both versions"
# sphinx_gallery_start_ignore
assert "modified by an inplace operation" in message, "the error names the in-place edit"
assert a.grad is None, "no gradient was written"
# sphinx_gallery_end_ignore

# %%
# .. admonition:: 原文与 torch |torch_version| 的实际行为
#    :class: warning
#
#    原文只引用了报错信息的开头：“one of the variables needed for gradient
#    computation has been modified by an inplace operation”。在这个版本的
#    torch
#    上，信息还有后半段：它指出是哪个张量（``[torch.FloatTensor [3]]``，``Sigmoid``
#    的第 0
#    个输出），给出实际版本和期望版本，最后提示可以打开异常检测（见上面的输出）。另外，原文打印的是
#    ``SigmoidBackward``，这里打印的是 ``SigmoidBackward0``。
article_text = "one of the variables needed for gradient computation has been modified by an inplace operation"
print("message starts with the article's text:", message.startswith(article_text))
print("article's text:", len(article_text), "characters; full message:", len(message), "characters")
print("out.grad_fn:", out.grad_fn.name())
assert message.startswith(article_text + ": "), "the article's text is only the start of the message"
# sphinx_gallery_start_ignore
assert "Hint: enable anomaly detection" in message, "the message ends with a hint"
assert out.grad_fn.name() == "SigmoidBackward0", "the backward node is named SigmoidBackward0"
# sphinx_gallery_end_ignore

# %%
# 检查发生在读取保存的张量时
# --------------------------
#
# 保存的输出可以通过 ``out.grad_fn._saved_result``
# 读取。现在读取它，会做同样的版本检查，抛出同样的错误。``backward()``
# 失败，正是因为它要用到这个张量。关于保存的张量，参见 `Saved tensors
# <https://docs.pytorch.org/docs/stable/notes/autograd.html#saved-tensors>`__。
try:
    saved = out.grad_fn._saved_result
except RuntimeError as e:
    saved_message = str(e)
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("reading the saved result must raise")
assert saved_message == message, "reading the saved tensor fails with the same message"

# %%
# 一个计数器，还是两个
# --------------------
#
# 在一个新的计算图上，同时取 ``via_data = out.data`` 和
# ``via_detach = out.detach()``，再分别通过它们修改。通过 ``via_data``
# 的修改只让它自己的计数器加一。通过 ``via_detach`` 的修改让 ``via_detach`` 和
# ``out`` 一起加一，``via_data`` 不动。
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
out = a.sigmoid()
via_data = out.data
via_detach = out.detach()


def versions(step):
    counts = out._version, via_data._version, via_detach._version
    print(f"{step:<26} out={counts[0]}  via_data={counts[1]}  via_detach={counts[2]}")
    return counts


at_start = versions("start")

via_data.mul_(1)
after_data = versions("after via_data.mul_(1)")

via_detach.mul_(1)
after_detach = versions("after via_detach.mul_(1)")
assert after_detach == (1, 1, 1), "detach() shares out's counter"
# sphinx_gallery_start_ignore
assert after_data == (0, 1, 0), ".data has a counter of its own"
assert at_start == (0, 0, 0), "all start at 0"
# sphinx_gallery_end_ignore

# %%
# 之后再取的张量会继承计数：``out.detach()`` 报告的是 ``out``
# 当前的版本，``out.data`` 则重新从 0 开始。
print("out._version:         ", out._version)
print("out.detach()._version:", out.detach()._version)
print("out.data._version:    ", out.data._version)
assert out.detach()._version == out._version == 1, "a new detach() sees the shared count"
# sphinx_gallery_start_ignore
assert out.data._version == 0, "a new .data starts a fresh counter"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``detach()`` 和 ``.data`` 都共享数据。只有 ``detach()``
# 还共享版本计数器。正因如此，autograd
# 才能发现它保存的张量被改过，并拒绝返回错误的梯度。下一页逐条检查原文的总结，见
# :ref:`data-vs-detach-comparison`。
