"""
.. _questions-inference-mode:

推理时用 ``torch.inference_mode()`` 还是 ``torch.no_grad()`` 或 ``detach()``？
==========================================================================================

在 ``torch.inference_mode()`` 下得到的张量是“推理张量”（inference tensor），离开这个模式后，有些用法它会拒绝：“Inference
tensors cannot be saved for backward”“Inplace update to inference tensor outside InferenceMode is
not allowed”“Setting requires_grad=True on inference tensor outside InferenceMode is not
allowed”。本页用三种方式得到同一个张量，对每一个逐一尝试这些用法，再用 ``clone()``
修好推理张量。这一设计记录在报错信息提到的 `pytorch/rfcs#17 <https://github.com/pytorch/rfcs/pull/17>`__ 中。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``attempt`` 执行张量的一种用法，返回 ``"ok"`` 或它抛出的错误。三个 ``make_*`` 函数分别在三种方式下计算
# ``x * 2``；``uses`` 是之后对结果的三种用法。

import torch


def attempt(use, *tensors):
    try:
        use(*tensors)
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    return "ok"


def make_inference(x):
    with torch.inference_mode():
        return x * 2


def make_no_grad(x):
    with torch.no_grad():
        return x * 2


def make_detached(x):
    return (x * 2).detach()


ways = {"inference_mode": make_inference, "no_grad": make_no_grad, "detach": make_detached}
uses = {
    "saved for backward": lambda x, y: (x * y).sum().backward(),
    "in-place edit": lambda x, y: y.add_(1),
    "requires_grad_()": lambda x, y: y.requires_grad_(),
}

# %%
# 三种方式各得到什么
# ------------------
#
# 三个结果都脱离了计算图（``requires_grad`` 为 ``False``），只有 ``torch.inference_mode()``
# 下得到的那个是推理张量。

for name, make in ways.items():
    y = make(torch.tensor([1.0, 2.0], requires_grad=True))
    print(f"{name:15} is_inference={y.is_inference()}  requires_grad={y.requires_grad}  grad_fn={y.grad_fn}")
    # sphinx_gallery_start_ignore
    assert y.is_inference() == (name == "inference_mode") and not y.requires_grad, f"{name}: unexpected kind"
    # sphinx_gallery_end_ignore

# %%
# 之后各自拒绝什么
# ----------------
#
# 下面每种用法都在任何特殊模式之外、在新建的张量上执行。推理张量三种全部拒绝，另外两个三种全部接受。输出中
# ``saved for backward`` 指被保存用于反向传播，``in-place edit`` 指原地修改，``refused`` 表示被拒绝。

results = {}
for name, make in ways.items():
    for use_name, use in uses.items():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        results[name, use_name] = attempt(use, x, make(x))
for name in ways:
    print(f"{name:15}", "  ".join(f"{u}: {'ok' if results[name, u] == 'ok' else 'refused'}" for u in uses))
assert all((results[n, u] == "ok") == (n != "inference_mode") for n in ways for u in uses), (
    "only the inference tensor must refuse the three uses"
)

# %%
# 三条报错的全文：

for use_name in uses:
    print(f"{use_name}: {results['inference_mode', use_name]}")

# %%
# 推理张量根本不维护版本计数器，而 autograd 正是靠这个计数器察觉被保存的张量有没有被原地修改
# （见 :ref:`版本计数器那一页 <questions-version-counter>`）。

y = make_inference(torch.tensor([1.0, 2.0], requires_grad=True))
try:
    y._version
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("an inference tensor must have no version counter")

# %%
# 不需要保存它的用法是可以的：加法的反向传播不保存任何输入，所以 ``y + x`` 能进入计算图，反向传播也能到达 ``x``。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x)
(y + x).sum().backward()
print("x.grad:", x.grad)
# sphinx_gallery_start_ignore
assert torch.equal(x.grad, torch.ones(2)), "y + x must backpropagate to x"
# sphinx_gallery_end_ignore

# %%
# 内存：``no_grad`` 和 ``inference_mode`` 都会算出新的值；对 ``x`` 本身调用 ``detach()``
# 则与 ``x`` 共享内存，修改它就是修改 ``x``。

x = torch.tensor([1.0, 2.0], requires_grad=True)
d = x.detach()
d.add_(1)
print("x:", x)
print("x._version:", x._version, " d._version:", d._version)
# sphinx_gallery_start_ignore
assert torch.equal(x.detach(), torch.tensor([2.0, 3.0])), "an edit of x.detach() must reach x"
assert x._version == d._version == 1, "x and x.detach() must share one version counter"
# sphinx_gallery_end_ignore

# %%
# 修复：在模式之外 ``clone()``
# ----------------------------
#
# 在 ``torch.inference_mode()`` 之外调用 ``y.clone()``，得到的是带版本计数器的普通张量。它可以被保存用于反向传播，梯度与
# ``torch.func.grad`` 把 ``y`` 当作常量、对 ``(x * y).sum()`` 算出的一致。

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = make_inference(x).clone()
(x * y).sum().backward()
expected = torch.func.grad(lambda x_: (x_ * y).sum())(x.detach())
print("y.is_inference():", y.is_inference())
print("x.grad:", x.grad, " expected:", expected)
assert torch.equal(x.grad, expected), "a clone of the inference tensor must work in autograd"
# sphinx_gallery_start_ignore
assert isinstance(y._version, int), "the clone must track a version counter"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# 结果再也不会进入 autograd 的代码，才用 ``torch.inference_mode()``；它得到的张量在模式之外不能被保存用于反向传播、不能原地修改，也不能设为需要梯度。结果可能还要用于训练时，用
# ``torch.no_grad()``，或者在模式之外 ``clone()`` 一份。``detach()`` 什么也不计算：它与原来的张量共享同一块内存。
