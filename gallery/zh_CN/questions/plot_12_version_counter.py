"""
.. _questions-version-counter:

版本计数器：哪些操作会改变 ``_version``，哪些不会
==================================================

“is at version 2; expected version 0 instead”：这条报错里的数字，读的是张量的版本计数器
``t._version``。autograd 为它保存的每个张量记下版本号，版本号一旦变了，就拒绝执行反向传播。本页先读懂这条报错，再列出一张常见修改的表格（在构建本页时现场算出），看哪些修改会推动计数器，哪些改了数值却不动它。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# ``same_storage`` 比较两块存储的起始地址。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 读懂报错
# --------
#
# ``x.exp()`` 为反向传播保存了自己的结果 ``y``，当时是版本 0。对 ``y`` 做两次原地修改后，它到了版本
# 2，反向传播时报错信息同时给出这两个数字。

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
print("y._version after exp():", y._version)
y.add_(1)
y.mul_(2)
print("y._version after two edits:", y._version)
try:
    y.sum().backward()
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("backward after editing a saved output must raise")

# %%
# 修复：改副本
# ------------
#
# ``clone()`` 让修改落在自己的内存和自己的计数器上：``y`` 停在版本 0，反向传播得到 ``2 * exp(x)``，正是
# ``torch.func.grad`` 对 ``(2 * (exp(x) + 1)).sum()`` 算出的梯度。

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp()
edited = y.clone()
edited.add_(1)
edited.mul_(2)
print("y._version:", y._version, " edited._version:", edited._version)
edited.sum().backward()
expected = torch.func.grad(lambda x_: (2 * (x_.exp() + 1)).sum())(x.detach())
print("x.grad:", x.grad, " expected:", expected)
assert y._version == 0 and torch.allclose(x.grad, expected), "edits of a clone must leave y and the gradient alone"

# %%
# 表格：哪些操作推动计数器
# ------------------------
#
# 每一行在新建的 ``t = torch.arange(4.0)`` 上执行一行代码，再把数值和版本号与执行前比较。第三列在
# ``torch.no_grad()`` 下，对一个需要梯度的叶子张量（``torch.arange(4.0, requires_grad=True)``）重复同一行；这类修改在那里是允许的。表头
# ``values of t change`` 指 ``t`` 的数值是否改变，``_version moves by`` 指版本号增加了多少。

edits = {
    "t.add_(1)": lambda t: t.add_(1),
    "t[0] = 5": lambda t: t.__setitem__(0, 5.0),
    "t.copy_(torch.ones(4))": lambda t: t.copy_(torch.ones(4)),
    "torch.add(torch.ones(4), 1, out=t)": lambda t: torch.add(torch.ones(4), 1, out=t),
    "t[1:].mul_(2)": lambda t: t[1:].mul_(2),
    "t.view(2, 2)[0, 0] = 5": lambda t: t.view(2, 2).__setitem__((0, 0), 5.0),
    "t.detach().zero_()": lambda t: t.detach().zero_(),
    "t.data.zero_()": lambda t: t.data.zero_(),
    "t.detach().numpy()[0] = 5": lambda t: t.detach().numpy().__setitem__(0, 5.0),
    "t = t + 1": lambda t: t + 1,
}


def run(edit, requires_grad):
    t = torch.arange(4.0, requires_grad=requires_grad)
    before, version = t.detach().clone(), t._version
    if requires_grad:
        with torch.no_grad():
            edit(t)
    else:
        edit(t)
    return not torch.equal(t.detach(), before), t._version - version


table = {line: (run(edit, False), run(edit, True)) for line, edit in edits.items()}
print(f"{'line':36} {'values of t change':>18} {'_version moves by':>18} {'same, no_grad leaf':>19}")
for line, ((changed, moved), (_, moved_no_grad)) in table.items():
    print(f"{line:36} {str(changed):>18} {moved:>18} {moved_no_grad:>19}")

# %%
# 凡是改变了 ``t`` 的数值的行，都让计数器加一，只有两个例外：通过 ``.data`` 修改，以及通过 NumPy
# 写入。最后一行根本没有改动 ``t``：它造出一个新张量，再重新绑定名字。在 ``torch.no_grad()``
# 下结果完全相同。

silent = [line for line, ((changed, moved), _) in table.items() if changed and moved == 0]
print("values changed, counter still:", silent)
assert silent == ["t.data.zero_()", "t.detach().numpy()[0] = 5"], "only .data and NumPy edits must go uncounted"
# sphinx_gallery_start_ignore
assert all(row[0][1] == int(row[0][0]) for name, row in table.items() if name not in silent), (
    "every other edit must move the counter by exactly one"
)
assert all(row[0][1] == row[1][1] for row in table.values()), "no_grad must not change the counting"
assert table["t = t + 1"][0] == (False, 0), "rebinding must leave the old tensor alone"
# sphinx_gallery_end_ignore

# %%
# 基张量与它的所有视图共用一个计数器
# ----------------------------------
#
# 视图与基张量共享内存，也共享计数器：无论通过哪一方修改，两边读到的版本号都会增加。

base = torch.zeros(4)
view = base[1:3]
view.add_(1)
base[0] = 5.0
print("base:", base)
print("view:", view)
print("base._version:", base._version, " view._version:", view._version)
print("view._base is base:", view._base is base, " same storage:", same_storage(base, view))
assert base._version == view._version == 2, "a base and its view must share one version counter"

# %%
# 小结
# ----
#
# ``_version`` 统计的是对张量内存的原地修改，不管是谁改的：张量自己、视图、``detach()`` 的结果、``out=``，在不在
# ``torch.no_grad()`` 下都一样。``.data`` 和 NumPy 则绕过它改动数值，所以通过它们修改可能得到错误的梯度却不报错
# （见 :ref:`.data 还是 no_grad() 那一页 <questions-data-vs-no-grad>`）。重新绑定名字什么也没有修改。
