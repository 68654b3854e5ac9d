"""
.. _questions-best-weights:

保存“最佳”权重：为什么它一直在变
====================================

在最好的那个 epoch 之后写下 ``best = model.state_dict()``，训练结束时 ``best`` 里却是最后一轮的权重，而不是最好的那一轮。PyTorch
教程多年前就合并了修正（`pytorch/tutorials#188 <https://github.com/pytorch/tutorials/pull/188>`__），这个问题却一再有人提起（`pytorch/pytorch#34765
<https://github.com/pytorch/pytorch/issues/34765>`__）。本页说明 ``state_dict()`` 里装的是什么、哪些写法才算快照、``load_state_dict``
复制了什么，以及 ``torch.save`` 保存一个切片时写了多少字节。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量用的是不是同一块内存；``train_step`` 在一批固定数据上做一步 SGD，原地修改参数。
import copy
import io

import torch


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def train_step(model, optimizer):
    optimizer.zero_grad()
    model(torch.ones(4, 2)).pow(2).mean().backward()
    optimizer.step()


model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# %%
# ``state_dict()`` 返回的是引用
# ------------------------------
#
# 其中的张量是新的张量对象，已脱离 autograd，但底下用的是参数自己的存储。
state = model.state_dict()
print("state['weight']:", state["weight"])
print("is model.weight:", state["weight"] is model.weight)
print("same storage:", same_storage(state["weight"], model.weight))
print("requires_grad:", state["weight"].requires_grad)
assert same_storage(state["weight"], model.weight), "state_dict() shares the parameters' memory"
# sphinx_gallery_start_ignore
assert state["weight"] is not model.weight and not state["weight"].requires_grad, "a detached tensor"
# sphinx_gallery_end_ignore

# %%
# 保存“最佳”状态的五种写法，训练一步之后
# ----------------------------------------
#
# 先用每种写法各取一份，训练一步，再与这一步之前的权重比较。直接引用和字典的浅拷贝（``dict(...)``、``.copy()``）会跟着训练变，因为它们装的是同一批张量；``{k: v.detach().clone()}``
# 和 ``copy.deepcopy`` 保住了旧值。
before = model.weight.detach().clone()
candidates = {
    "model.state_dict()": model.state_dict(),
    "state_dict().copy()": model.state_dict().copy(),
    "{k: v.detach().clone()}": {k: v.detach().clone() for k, v in model.state_dict().items()},
    "copy.deepcopy(state_dict())": copy.deepcopy(model.state_dict()),
    "state_dict(keep_vars=True)": model.state_dict(keep_vars=True),
}
train_step(model, optimizer)
print("weight before the step:", before)
print("weight after the step: ", model.weight.detach())
kept = {}
for name, saved in candidates.items():
    kept[name] = torch.equal(saved["weight"], before)
    print(f"{name:<28} kept the old weight: {kept[name]}")
assert [name for name, ok in kept.items() if ok] == ["{k: v.detach().clone()}", "copy.deepcopy(state_dict())"]
# sphinx_gallery_start_ignore
assert not torch.equal(model.weight, before), "the step changed the weight"
# sphinx_gallery_end_ignore

# %%
# ``keep_vars=True`` 连 detach 都不做：返回的就是参数本身，``requires_grad`` 等一应俱全。
params = model.state_dict(keep_vars=True)
print("is model.weight:", params["weight"] is model.weight)
print("type:", type(params["weight"]).__name__)
assert params["weight"] is model.weight, "keep_vars=True returns the Parameter objects"

# %%
# ``load_state_dict`` 复制，``assign=True`` 共享
# ------------------------------------------------
#
# 恢复快照时，值被复制进模型原有的参数：对象不变，内存不变，优化器持有的仍是它们。加上
# ``assign=True``，模型改为直接使用快照里的张量（包装成新的 ``Parameter`` 对象，内存还是同一块），之后训练
# ``other`` 也会写进快照。
best = candidates["{k: v.detach().clone()}"]
weight = model.weight
model.load_state_dict(best)
print("load_state_dict:              same object:", model.weight is weight)
print("load_state_dict:              shares best's memory:", same_storage(model.weight, best["weight"]))
other = torch.nn.Linear(2, 1)
other.load_state_dict(best, assign=True)
print("load_state_dict(assign=True): type:", type(other.weight).__name__)
print("load_state_dict(assign=True): shares best's memory:", same_storage(other.weight, best["weight"]))
assert same_storage(other.weight, best["weight"]) and not same_storage(model.weight, best["weight"])
# sphinx_gallery_start_ignore
assert model.weight is weight and torch.equal(model.weight, before), "restored in place"
assert isinstance(other.weight, torch.nn.Parameter) and other.weight.requires_grad
# sphinx_gallery_end_ignore


# %%
# ``torch.save`` 保存切片，会写出整块存储
# ----------------------------------------
#
# 切片是视图，与它的基张量共用存储。``torch.save`` 保存的是存储，所以只保存 100 000 个浮点数中的前 10 个，也会写出全部 400 000
# 字节；读回来得到的是 10 个数，底下却是一块 400 000 字节的存储。先 ``clone()``，写出的就只有这 10 个数。（文件写在内存里；每次运行大小都一样。）
def saved_bytes(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getbuffer().nbytes


signal = torch.arange(100_000, dtype=torch.float32)
head = signal[:10]
print("storage of head:         ", head.untyped_storage().nbytes(), "bytes")
print("torch.save(head):        ", saved_bytes(head), "bytes")
print("torch.save(head.clone()):", saved_bytes(head.clone()), "bytes")
buffer = io.BytesIO()
torch.save(head, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
print("loaded:", loaded.shape, "over", loaded.untyped_storage().nbytes(), "bytes")
assert saved_bytes(head) > 400_000 > 100 * saved_bytes(head.clone()), "the slice drags its storage along"
# sphinx_gallery_start_ignore
assert loaded.untyped_storage().nbytes() == 400_000 and loaded.shape == (10,), "the storage comes back too"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``state_dict()`` 装的是指向模型参数的引用，不是快照。要保存最佳权重，用
# ``{k: v.detach().clone() for k, v in model.state_dict().items()}`` 或
# ``copy.deepcopy(model.state_dict())``，恢复时用 ``load_state_dict``，它会复制。保存切片之前，先 ``clone()``。
