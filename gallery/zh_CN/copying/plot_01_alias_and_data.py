"""
.. _copying-alias:

``b = a`` 与 ``b = a.data`` 都不是复制
================================================================

原文从一个意外开始：循环里通过 ``a.data`` 得到 ``b``，逐个往 ``b`` 里写 1，结果 ``a`` 也变成了全
1。本页分别用 ``b = a.data`` 和 ``b = a`` 运行这个循环，再说明为什么两种写法都没有给 ``b``
分配独立的内存。
"""

# %%
# 全页用到的辅助函数
# ------------------
#
# 两个张量的存储起始地址相同，就说明它们共享内存。辅助函数只比较两个地址，打印比较结果，从不打印地址本身。

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


# %%
# 原文的循环要补回缩进
# --------------------
#
# 原文中的循环丢失了缩进，照原样并不是合法的 Python。把原文逐字编译，还没开始运行就失败了。

article_loop = """\
a = torch.zeros(2, 3)
for i in range(2):
for j in range(3):
b = a.data
b[i, j] = 1
print("b:", b)
print("a:", a)
"""
try:
    compile(article_loop, "article_loop", "exec")
except IndentationError as e:
    print(f"{type(e).__name__}: {e}")
else:
    raise AssertionError("the loop as printed must not compile")

# %%
# .. admonition:: 原文与 torch |torch_version| 的实际行为
#    :class: warning
#
#    上方输出表明，原文印出的循环会引发 ``IndentationError``。内层 ``for``
#    应缩进在外层循环之内，其后的四条语句应缩进在内层循环之内。下面的代码补回了缩进，补回之后的输出与原文一致。

# %%
# 通过 ``b = a.data`` 写入
# ----------------------------------------
#
# 这是补回缩进后的循环。每一步通过 ``b`` 写入一个元素，然后打印两个名字：写进 ``b`` 的每个 ``1``
# 都立刻出现在 ``a`` 中。

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a.data
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through a.data"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# 通过 ``b = a`` 写入
# ------------------------------
#
# 改用普通赋值，同样的循环得到同样的结果。

a = torch.zeros(2, 3)
for i in range(2):
    for j in range(3):
        b = a
        b[i, j] = 1
        print(f"after b[{i}, {j}] = 1")
        print("b:", b)
        print("a:", a)
        # sphinx_gallery_start_ignore
        assert torch.equal(a, b), "a must follow every write through b = a"
        written = 3 * i + j + 1
        expected = [1.0] * written + [0.0] * (6 - written)
        assert a.flatten().tolist() == expected, "a must match the article's output"
        # sphinx_gallery_end_ignore
assert torch.equal(a, torch.ones(2, 3)), "every write through b must have reached a"

# %%
# 原因：``b = a`` 是同一个对象
# --------------------------------------
#
# Python 的赋值从不复制。它只是给已有的对象再起一个名字，所以 ``b is a``
# 成立：自始至终只有一个张量。

a = torch.zeros(2, 3)
b = a
print("b is a:", b is a)
print("same storage:", same_storage(a, b))

# %%
# 原因：``a.data`` 是另一个对象，却用同一块内存
# --------------------------------------------------------
#
# ``a.data`` 是另一个 Python 对象（``a.data is a`` 为
# ``False``，甚至每访问一次就新建一个），但它指向与 ``a`` 相同的存储。通过它写入的值，落在 ``a``
# 的内存里。

a = torch.zeros(2, 3)
b = a.data
print("b is a:", b is a)
print("a.data is a.data:", a.data is a.data)
print("same storage:", same_storage(a, b))
assert same_storage(a, b), "a.data must share a's storage"
# sphinx_gallery_start_ignore
assert b is not a, "a.data must be a separate tensor object"
assert a.data is not a.data, "each access to .data must build a new tensor object"
# sphinx_gallery_end_ignore

b[0, 0] = 7
print("b:", b)
print("a:", a)
# sphinx_gallery_start_ignore
assert a[0, 0] == 7, "a write through a.data must reach a"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``b = a`` 和 ``b = a.data``
# 都没有复制任何东西：前者给同一个张量多起一个名字，后者在同一块内存上新建一个张量对象。想让 ``b``
# 拥有自己的内存，必须显式复制，做法见下一页 :ref:`copying-safe-copy`。
