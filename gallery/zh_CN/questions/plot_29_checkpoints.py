"""
.. _questions-checkpoints:

检查点：``torch.load``、``load_state_dict`` 和 ``assign=True`` 复制了什么
=========================================================================

.. admonition:: 答案
   :class: answer

   在 torch 的默认设置下，``load_state_dict(sd, assign=True)`` 给模型换上新的参数对象；加载之前创建的优化器仍持有旧参数，旧参数得不到梯度，所以损失不再下降。加载之后再创建优化器：

   .. code-block:: python

      model.load_state_dict(sd, assign=True)
      optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

加载检查点（checkpoint）后损失不下降（参数一直是检查点里的值，所以在固定的一批数据上每一步打印同一个值，除非前向传播本身每一步都不一样，例如训练模式下的 dropout），或者检查点里存的是比预定那一步更晚的权重（取了 ``state_dict()`` 之后又训练了几步才写出文件）。本页保存并加载一个小模型，说明每一步复制了什么：带与不带 ``mmap=True`` 的 ``torch.load``；优化器已先创建好时，带与不带 ``assign=True`` 的 ``load_state_dict``；断点续训（resume training）；以及训练更多步之后才保存的 ``state_dict()``。
"""

# %%
# 辅助函数
# --------
#
# ``same_storage`` 比较两个张量的存储起始地址是否相同；``bytes_apart`` 判断两块存储的字节范围是否互不重叠，即是否完全不共享内存，单凭起始地址不同还说明不了这一点。模型既有参数，也有缓冲区（buffer）：``BatchNorm1d`` 的滑动统计量（running statistics）和它的 ``int64`` 批次计数 ``num_batches_tracked``；``train`` 在一批固定的数据上训练若干步，返回各步的损失；``round_trip`` 用 ``torch.save`` 把对象存进临时文件夹里的文件，再用 ``torch.load`` 读回来。

import copy
import tempfile
import warnings

import torch

# sphinx_gallery_start_ignore
# no-figure: 本页要说的是每一项是不是新对象、用谁的内存，逐项打印出来了
# sphinx_gallery_end_ignore


def same_storage(x, y):
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def bytes_apart(x, y):
    """True when the byte ranges of the two storages do not overlap: no memory shared. Different
    storage starts (``not same_storage``) do not rule sharing out: an alias may start inside its
    source's storage."""
    sx, sy = x.untyped_storage(), y.untyped_storage()
    return sx.data_ptr() + sx.nbytes() <= sy.data_ptr() or sy.data_ptr() + sy.nbytes() <= sx.data_ptr()


torch.manual_seed(0)
x, y = torch.randn(16, 3), torch.randn(16, 2)


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(3, 4, bias=False), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))


def train(model, optimizer, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return losses


def round_trip(state):
    with tempfile.TemporaryDirectory() as folder:
        torch.save(state, f"{folder}/checkpoint.pt")
        return torch.load(f"{folder}/checkpoint.pt")


trained = make_model()
print("losses while training the model we save:", train(trained, torch.optim.SGD(trained.parameters(), lr=0.1), 2))

# %%
# ``torch.load`` 返回新的张量
# ---------------------------
#
# 把模型换成三种 dtype 分别试：``torch.load`` 返回的每一项都是保存时的值，内存是它自己的。给加载出的每一项加 1，模型不变；之后再修改模型的各项，加载出的张量也不变。

for dtype in (torch.float32, torch.float64, torch.bfloat16):
    original = make_model().to(dtype)
    saved = {k: v.clone() for k, v in original.state_dict().items()}
    loaded = round_trip(original.state_dict())
    shared = [k for k in loaded if same_storage(loaded[k], original.state_dict()[k])]
    equal = [k for k in loaded if torch.equal(loaded[k], saved[k])]
    for v in loaded.values():
        v.add_(1)
    model_kept = all(torch.equal(v, saved[k]) for k, v in original.state_dict().items())
    for v in original.state_dict().values():
        v.mul_(0)
    loaded_kept = all(torch.equal(v, saved[k] + 1) for k, v in loaded.items())
    print(f"{str(dtype):<15} entries: {len(loaded)}  saved values: {len(equal)}  shared with the model: "
          f"{len(shared)}  model kept: {model_kept}  loaded kept: {loaded_kept}")  # fmt: skip
    assert len(equal) == len(loaded) and not shared and model_kept and loaded_kept, f"{dtype}: new tensors"

# %%
# ``torch.load(path, mmap=True)``：直接映射文件，改动只留在本进程
# ---------------------------------------------------------------
#
# 带 ``mmap=True`` 时，torch 把文件映射（mmap）到内存里，而不是把内容读进新的张量：加载出的两个权重在内存中相隔的距离，与它们的字节在文件中相隔的距离相同。这个映射是私有的（torch 的默认设置，见 ``torch.serialization.set_default_mmap_options``）：对加载出的张量做原地（in-place）操作，或者让一个用 ``assign=True`` 接过这些张量的模型训练两步，改动的都只是本进程内存里的值，文件仍保存着原来的值，再用 ``torch.load`` 读一次（带与不带 ``mmap=True``）就能看到。

with tempfile.TemporaryDirectory() as folder:
    torch.save(trained.state_dict(), f"{folder}/checkpoint.pt")
    mapped = torch.load(f"{folder}/checkpoint.pt", mmap=True)
    with open(f"{folder}/checkpoint.pt", "rb") as file:
        raw = file.read()
    first, last = mapped["0.weight"], mapped["2.weight"]
    first_bytes, last_bytes = first.numpy().tobytes(), last.numpy().tobytes()
    in_file = raw.find(last_bytes) - raw.find(first_bytes)
    print("distance between the two weights, in memory == in the file:", last.data_ptr() - first.data_ptr() == in_file)
    mapped["0.weight"].add_(1)
    resumed = make_model()
    resumed.load_state_dict(mapped, assign=True)
    print("losses:", train(resumed, torch.optim.SGD(resumed.parameters(), lr=0.1), 2))
    again = torch.load(f"{folder}/checkpoint.pt")
    again_mapped = torch.load(f"{folder}/checkpoint.pt", mmap=True)
    changed = [k for k in mapped if not torch.equal(mapped[k], trained.state_dict()[k])]
    file_kept = [k for k in again if torch.equal(again[k], trained.state_dict()[k])]
    mapped_kept = [k for k in again if torch.equal(again_mapped[k], trained.state_dict()[k])]
    print("entries:", len(mapped), " edited in memory:", len(changed), " file kept (load):", len(file_kept),
          " file kept (mmap load):", len(mapped_kept))  # fmt: skip
    assert last.data_ptr() - first.data_ptr() == in_file, "mmap=True: the tensors are the file's bytes, mapped"
    assert len(changed) == len(file_kept) == len(mapped_kept) == len(mapped), "edits stay out of the file"
    del mapped, first, last, resumed, again_mapped  # 先关闭映射，再删除文件夹
# sphinx_gallery_start_ignore
assert raw.count(first_bytes) == 1 and raw.count(last_bytes) == 1, "each weight's bytes occur once in the file"
assert in_file > 0, "the two weights are different records of the file"
# sphinx_gallery_end_ignore

# %%
# ``load_state_dict`` 复制到模型已有的参数里
# ------------------------------------------
#
# 新建一个模型，先创建它的优化器，再调用 ``load_state_dict(sd)``。模型的每一项都还是原来的对象，值是 ``sd`` 的值，内存是它自己的：之后给 ``sd`` 的每一项加 1，模型不变。加载前创建的优化器仍然持有模型的参数，用它训练两步，损失下降。

sd = round_trip(trained.state_dict())
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = dict(model.state_dict(keep_vars=True))
print(model.load_state_dict(sd))
after = model.state_dict(keep_vars=True)
same_objects = [k for k in sd if after[k] is before[k]]
equal = [k for k in sd if torch.equal(after[k], sd[k])]
shared = [k for k in sd if same_storage(after[k], sd[k])]
values = {k: v.clone() for k, v in sd.items()}
for v in sd.values():
    v.add_(1)
kept = [k for k in sd if torch.equal(after[k], values[k])]
print("entries:", len(sd), " same objects:", len(same_objects), " sd's values:", len(equal),
      " shared with sd:", len(shared), " kept after sd was edited:", len(kept))  # fmt: skip
losses = train(model, optimizer, 2)
print("losses:", losses)
assert len(same_objects) == len(equal) == len(kept) == len(sd) and not shared, (
    "load_state_dict copied sd's values into the same parameter objects")
assert losses[1] < losses[0], "the optimizer made before load_state_dict trains the model"

# %%
# ``assign=True`` 直接换上 ``sd`` 的张量
# --------------------------------------
#
# 带 ``assign=True`` 时，模型改为直接使用检查点里的张量：每一项都是新对象，用的是 ``sd`` 的内存（本页在 torch 的默认设置下运行；``torch.__future__`` 的交换设置见 ``load_state_dict`` 的文档）。参数变成一个新的 ``nn.Parameter``，和原来的参数一样需要梯度（requires_grad）；缓冲区就是 ``sd`` 里的那个张量本身。这里 ``sd`` 里是普通张量，和 ``torch.load`` 给出的一样；如果字典里放的是 ``nn.Parameter`` 对象，比如另一个模型的 ``state_dict(keep_vars=True)``，``assign=True`` 换上的就是这些对象本身，两个模型从此共享参数。被换上的 ``Parameter`` 会改用它所替换的参数的 ``requires_grad``，两个方向都是如此：``frozen`` 是 ``trained`` 的副本，参数不需要梯度，被 ``student`` 换上之后又需要梯度了；反过来，``cold`` 的参数不需要梯度，它从 ``thawed`` 换上的 ``Parameter`` 对象仍是 ``thawed`` 自己的参数，却被关掉了 ``requires_grad``。

sd = round_trip(trained.state_dict())
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
old = dict(model.state_dict(keep_vars=True))
model.load_state_dict(sd, assign=True)
new = model.state_dict(keep_vars=True)
for k in sd:
    print(f"{k:<22} {type(new[k]).__name__:<9} new object: {new[k] is not old[k]}  is sd's: {new[k] is sd[k]}  "
          f"same storage: {same_storage(new[k], sd[k])}  requires_grad: {new[k].requires_grad}")  # fmt: skip
assert all(new[k] is not old[k] and same_storage(new[k], sd[k]) for k in sd), "assign=True installs sd's memory"
frozen = copy.deepcopy(trained).requires_grad_(False)
student = copy.deepcopy(model)
student.load_state_dict(frozen.state_dict(keep_vars=True), assign=True)
print("student[0].weight is frozen[0].weight:", student[0].weight is frozen[0].weight,
      " frozen's requires_grad now:", [p.requires_grad for p in frozen.parameters()])
thawed = make_model()
cold = make_model().requires_grad_(False)
cold.load_state_dict(thawed.state_dict(keep_vars=True), assign=True)
print("cold[0].weight is thawed[0].weight:", cold[0].weight is thawed[0].weight,
      " thawed's requires_grad now:", [p.requires_grad for p in thawed.parameters()])
# sphinx_gallery_start_ignore
for entry in sd:
    if isinstance(old[entry], torch.nn.Parameter):
        assert isinstance(new[entry], torch.nn.Parameter) and new[entry].requires_grad == old[entry].requires_grad, (
            f"{entry}: a new Parameter, with the old one's requires_grad")
    else:
        assert new[entry] is sd[entry], f"{entry}: a buffer becomes sd's tensor itself"
twin = copy.deepcopy(model)
twin.load_state_dict(model.state_dict(keep_vars=True), assign=True)
assert all(t is m for t, m in zip(twin.parameters(), model.parameters(), strict=True)), "a dict of Parameters: installed"
assert all(s is f for s, f in zip(student.parameters(), frozen.parameters(), strict=True)) and all(
    f.requires_grad for f in frozen.parameters()), "student installed frozen's parameters, which now require grad"
assert all(c is t for c, t in zip(cold.parameters(), thawed.parameters(), strict=True)) and not any(
    t.requires_grad for t in thawed.parameters()), "cold installed thawed's parameters, which no longer require grad"
# sphinx_gallery_end_ignore

# %%
# 现象：损失不变
# --------------
#
# 优化器是在加载之前创建的，它持有的是旧参数，而模型已经不再使用它们。``backward()`` 不给它们梯度，所以 ``step()`` 不会改动模型用到的任何东西：模型的参数一直是检查点里的值（训练模式下，``BatchNorm1d`` 的缓冲区在每次前向传播时仍会改变），训练三步打印三次同一个损失。模型的新参数照样累积梯度，却没有谁用它们更新参数，也没有谁把它们清零：三步之后，``model[0].weight.grad`` 是一步梯度的三倍。模型里有训练模式的 ``Dropout`` 层时，每一步打印的损失都和上一步不同，但参数同样一直是检查点里的值；切到 eval 模式，损失又是同一个值。

losses = train(model, optimizer, 3)
print("losses:", losses)
print("the optimizer holds model[0].weight:", any(p is model[0].weight for p in optimizer.param_groups[0]["params"]))
print("old weight's .grad:", old["0.weight"].grad)
one_step = torch.autograd.grad(torch.nn.functional.mse_loss(model(x), y), model[0].weight)[0]
print("model[0].weight.grad == 3 x one step's:", torch.allclose(model[0].weight.grad, 3 * one_step))
assert len(set(losses)) == 1, "with the optimizer made before assign=True the loss does not change"
# sphinx_gallery_start_ignore
assert all(any(p is q for q in old.values()) for p in optimizer.param_groups[0]["params"]), (
    "the optimizer holds only the parameters from before the load")
assert old["0.weight"].grad is None and torch.allclose(model[0].weight.grad, 3 * one_step), (
    "the old weight got no grad; the new one summed three steps' grads")
assert all(torch.equal(p, q) for p, q in zip(model.parameters(), trained.parameters(), strict=True)), (
    "the model's parameters still equal the checkpoint's")
assert model[1].num_batches_tracked == trained[1].num_batches_tracked + 4, (
    "each of the four train-mode forward passes moved the BatchNorm batch count num_batches_tracked")
assert not torch.equal(model[1].running_mean, trained[1].running_mean), "the BatchNorm running mean moved"
with torch.random.fork_rng():
    dropout_source = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Dropout(0.5), torch.nn.Linear(4, 2))
    dropout_model = copy.deepcopy(dropout_source)
    dropout_optimizer = torch.optim.SGD(dropout_model.parameters(), lr=0.1)
    dropout_model.load_state_dict(round_trip(dropout_source.state_dict()), assign=True)
    dropout_train_losses = train(dropout_model, dropout_optimizer, 3)
    dropout_eval_losses = train(dropout_model.eval(), dropout_optimizer, 3)
assert all(a != b for a, b in zip(dropout_train_losses, dropout_train_losses[1:], strict=False)), (
    "with Dropout in train mode the loss changes from step to step")
assert len(set(dropout_eval_losses)) == 1, "with Dropout in eval mode the loss is one value"
assert all(torch.equal(p, q) for p, q in zip(dropout_model.parameters(), dropout_source.parameters(), strict=True)), (
    "with Dropout the model's parameters still equal the checkpoint's")
# sphinx_gallery_end_ignore

# %%
# ``assign=True`` 的用处：在 ``meta`` 上构建的模型
# ------------------------------------------------
#
# 在 ``meta`` 设备上构建的模型，参数没有内存。``load_state_dict(sd)`` 无法复制进去：每一项警告一次，模型仍在 ``meta`` 上。``assign=True`` 则把 ``sd`` 的张量交给它，模型就到了 CPU 上。

sd = round_trip(trained.state_dict())
with torch.device("meta"):
    empty = make_model()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    empty.load_state_dict(sd)
print("warnings:", len(caught), " the first:", caught[0].message)
device_before = empty[0].weight.device
print("device after load_state_dict(sd):", device_before)
empty.load_state_dict(sd, assign=True)
print("device after load_state_dict(sd, assign=True):", empty[0].weight.device)
assert len(caught) == len(sd) and "which is a no-op" in str(caught[0].message), (
    "load_state_dict(sd) on meta warns once per entry that the copy is a no-op"
)
assert device_before.type == "meta" and empty[0].weight.is_cpu, "assign=True gives a meta model sd's tensors"

# %%
# 解决办法：加载之后再创建优化器
# ------------------------------
#
# 加载之后才创建的优化器持有模型正在使用的参数，损失每一步都下降。不带 ``assign=True`` 加载时（见上文讲 ``load_state_dict`` 复制的一节），只要这个字典不带之前用 ``assign=True`` 加载留下的标志（见下一节），优化器何时创建都可以。

sd = round_trip(trained.state_dict())
model = make_model()
model.load_state_dict(sd, assign=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = train(model, optimizer, 3)
print("losses:", losses)
assert losses[2] < losses[1] < losses[0], "the optimizer made after the load trains the model"

# %%
# 用 ``assign=True`` 加载过的字典，下次加载仍按 ``assign=True`` 处理
# ------------------------------------------------------------------
#
# 在本次构建所用的 torch 上，``load_state_dict(sd, assign=True)`` 还会把这个标志写进 ``sd`` 自己的元数据（``sd._metadata``），之后不带 ``assign=True`` 的 ``load_state_dict(sd)``，即使显式写上 ``assign=False``，也会从那里读到它：第二个模型也换上了 ``sd`` 的张量，与第一个模型共享这些张量（`pytorch/pytorch#188166 <https://github.com/pytorch/pytorch/issues/188166>`__）。这个标志随 ``sd`` 一起保存，``copy.deepcopy(sd)`` 也会保留它：这样加载过的字典保存后再读回来，或者它的深拷贝，加载时同样按 ``assign=True`` 处理。给每个模型都重新读一次文件：文件若像这里一样是从模型的 ``state_dict()`` 保存的，``torch.load`` 新读出的字典就不带这个标志。

sd = round_trip(trained.state_dict())
first_model = make_model()
first_model.load_state_dict(sd, assign=True)
second_model = make_model()
second_weight = second_model[0].weight
second_model.load_state_dict(sd)
print("second_model[0].weight is second_weight:", second_model[0].weight is second_weight)
print("same storage:", same_storage(second_model[0].weight, first_model[0].weight))
third_model = make_model()
third_weight = third_model[0].weight
third_model.load_state_dict(round_trip(sd))
print("after a save and a load, third_model[0].weight is third_weight:", third_model[0].weight is third_weight)
fresh_model = make_model()
fresh_weight = fresh_model[0].weight
fresh_model.load_state_dict(round_trip(trained.state_dict()))
print("from a fresh load, fresh_model[0].weight is fresh_weight:", fresh_model[0].weight is fresh_weight)
assert second_model[0].weight is not second_weight and same_storage(second_model[0].weight, first_model[0].weight), (
    "the plain load of sd assigns: the second model shares the first one's memory"
)
assert third_model[0].weight is not third_weight and fresh_model[0].weight is fresh_weight, "the flag is saved with sd"
# sphinx_gallery_start_ignore
deep_model = make_model()
deep_weight = deep_model[0].weight
deep_model.load_state_dict(copy.deepcopy(sd))
assert deep_model[0].weight is not deep_weight, "a deepcopy of sd keeps the flag: a plain load assigns"
explicit_model = make_model()
explicit_weight = explicit_model[0].weight
explicit_model.load_state_dict(sd, assign=False)
explicit_loaded = explicit_model[0].weight
assert explicit_loaded is not explicit_weight and same_storage(explicit_loaded, first_model[0].weight), (
    "the flag in sd overrides an explicit assign=False: the model shares the first one's memory")
# sphinx_gallery_end_ignore

# %%
# 让 ``sd`` 不沾上这个标志的更省事的办法：把它的各项放进一个普通的 ``dict`` 再加载，即 ``dict(sd)``。普通的 ``dict`` 没有 ``_metadata``，标志写进的是一个用完即弃的字典，之后再加载 ``sd`` 仍是复制。Python 的浅拷贝 ``copy.copy(sd)`` 做不到这一点：它与 ``sd`` 共享同一个 ``_metadata``，标志还是写进了 ``sd``。``dict(sd)`` 也丢掉了 ``sd._metadata`` 里各模块的格式版本；有些模块找不到版本号，就连本版本 torch 保存的文件也当作旧版保存的来读：本页的 ``BatchNorm1d`` 照常加载，``torch.ao.quantization.MinMaxObserver`` 却会把保存的 ``eps`` 重置为默认值。模型里有这样的模块时，还是重新读一次文件。

clean = round_trip(trained.state_dict())
assigned_model = make_model()
assigned_model.load_state_dict(dict(clean), assign=True)
copying_model = make_model()
copying_weight = copying_model[0].weight
copying_model.load_state_dict(clean)
print("assigned_model took clean's memory:", same_storage(assigned_model[0].weight, clean["0.weight"]))
print("copying_model[0].weight is copying_weight:", copying_model[0].weight is copying_weight)
assert same_storage(assigned_model[0].weight, clean["0.weight"]), "dict(sd) with assign=True installs sd's memory"
assert copying_model[0].weight is copying_weight, "a later load of sd copies: its metadata has no flag"
# sphinx_gallery_start_ignore
assert not hasattr(dict(clean), "_metadata") and clean._metadata["1"]["version"] == 2, "the copy has no versions"
assert list(assigned_model.state_dict()) == list(clean) and all(
    torch.equal(entry_loaded, clean[entry_key]) for entry_key, entry_loaded in assigned_model.state_dict().items()), (
    "without the versions, the model with BatchNorm1d loads every entry of dict(sd) as it is")
observed = round_trip(torch.ao.quantization.MinMaxObserver(eps=0.5).state_dict())
for assign_observer in (False, True):
    from_copy, from_sd = torch.ao.quantization.MinMaxObserver(eps=0.5), torch.ao.quantization.MinMaxObserver(eps=0.5)
    from_copy.load_state_dict(dict(observed), assign=assign_observer)
    from_sd.load_state_dict(observed, assign=assign_observer)
    assert from_copy.eps.item() == torch.finfo(torch.float32).eps and from_sd.eps.item() == 0.5, (
        "loaded from dict(sd), a MinMaxObserver sets its saved eps back to the default; loaded from sd, it keeps it")
assert all("assign_to_params_buffers" not in entry for entry in clean._metadata.values()), (
    "loading dict(sd) left no assign flag in sd's _metadata")
shallow_sd = round_trip(trained.state_dict())
shallow_copy = copy.copy(shallow_sd)
flagging_model = make_model()
flagging_model.load_state_dict(shallow_copy, assign=True)
assert shallow_copy._metadata is shallow_sd._metadata and shallow_sd._metadata[""]["assign_to_params_buffers"], (
    "copy.copy(sd) shares sd's _metadata: loading it with assign=True flags sd")
shallow_model = make_model()
shallow_weight = shallow_model[0].weight
shallow_model.load_state_dict(shallow_sd)
assert shallow_model[0].weight is not shallow_weight, "after loading copy.copy(sd) with assign=True, a plain load of sd assigns"
# sphinx_gallery_end_ignore

# %%
# 第一个模型换上的仍是 ``sd`` 的张量。在训练模式下做一次前向传播，就会更新 ``BatchNorm1d`` 的缓冲区，而它们正是 ``sd`` 的张量；训练一步则会改变每一项：``sd`` 的值随第一个模型一起变化，之后再加载 ``sd``，复制进来的是它当前的值，而不是检查点里的值。要么像上面的 ``copying_model`` 那样，在第一个模型运行之前把 ``sd`` 加载进其他模型，要么给每个模型重新读一次文件。

as_loaded = {k: v.clone() for k, v in clean.items()}
assigned_model(x)  # 在训练模式下做一次前向传播
after_forward = [k for k in clean if not torch.equal(clean[k], as_loaded[k])]
print("entries of clean changed by one forward pass:", after_forward)
train(assigned_model, torch.optim.SGD(assigned_model.parameters(), lr=0.1), 1)
after_step = [k for k in clean if not torch.equal(clean[k], as_loaded[k])]
print("entries of clean changed after one training step:", len(after_step), "of", len(clean))
late_model = make_model()
late_model.load_state_dict(clean)
print("late_model[0].weight equals the checkpoint's:", torch.equal(late_model[0].weight, as_loaded["0.weight"]))
print("copying_model[0].weight equals the checkpoint's:", torch.equal(copying_model[0].weight, as_loaded["0.weight"]))
assert after_forward == ["1.running_mean", "1.running_var", "1.num_batches_tracked"] and after_step == list(clean), (
    "sd's values change with the model that took them: its buffers at a forward pass in train mode, every entry at a "
    "training step")
assert not torch.equal(late_model[0].weight, as_loaded["0.weight"]) and torch.equal(
    copying_model[0].weight, as_loaded["0.weight"]), (
    "a later load of sd copies its current values; a model loaded before the first one ran keeps the checkpoint's")
# sphinx_gallery_start_ignore
assert all(torch.equal(late, now) for late, now in zip(late_model.state_dict().values(),
                                                       assigned_model.state_dict().values(), strict=True)), (
    "the later load of sd copies the first model's current values")
assert all(torch.equal(copying_model.state_dict()[k], as_loaded[k]) for k in clean), (
    "every entry of the model loaded before the first one ran keeps the checkpoint's value")
assert all(bytes_apart(late, now) for late, now in zip(late_model.parameters(), assigned_model.parameters(),
                                                             strict=True)), "the later load of sd copies"
# sphinx_gallery_end_ignore

# %%
# 断点续训
# --------
#
# 断点续训时，把模型和优化器的 ``state_dict()`` 一起保存；恢复时加载进一个新模型，并在模型加载之后创建优化器、加载它的状态。带动量时，先训练两步、保存检查点、再训练两步，得到的损失和权重与一次连续训练四步完全相同。

start = round_trip(trained.state_dict())
straight = make_model()
straight.load_state_dict(start)
straight_losses = train(straight, torch.optim.SGD(straight.parameters(), lr=0.1, momentum=0.9), 4)

first_run = make_model()
first_run.load_state_dict(start)
first_optimizer = torch.optim.SGD(first_run.parameters(), lr=0.1, momentum=0.9)
resumed_losses = train(first_run, first_optimizer, 2)
checkpoint = round_trip({"model": first_run.state_dict(), "optimizer": first_optimizer.state_dict()})
resumed = make_model()
resumed.load_state_dict(checkpoint["model"], assign=True)
resumed_optimizer = torch.optim.SGD(resumed.parameters(), lr=0.1, momentum=0.9)
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
resumed_losses += train(resumed, resumed_optimizer, 2)
print("four steps:           ", straight_losses)
print("two, checkpoint, two: ", resumed_losses)
same_weights = all(torch.equal(v, straight.state_dict()[k]) for k, v in resumed.state_dict().items())
print("same weights:", same_weights)
assert resumed_losses == straight_losses and same_weights, "the resumed run matches the run without a break"

# %%
# ``state_dict()`` 是活的：稍后保存前先做快照
# -------------------------------------------
#
# ``state_dict()`` 返回的张量用的是模型自己的内存（见 :ref:`“保存最佳权重”那一页 <questions-best-weights>`）。现在取出的字典，如果等再训练两步后才保存（在后台保存，或在一个 epoch 结束时保存），存下来的每一项都是两步之后的权重。快照（``{k: v.detach().clone() for k, v in sd.items()}`` 或 ``copy.deepcopy``）保留的是取快照那一刻的值。

live = trained.state_dict()
snapshot = {k: v.detach().clone() for k, v in live.items()}
deep = copy.deepcopy(live)
train(trained, torch.optim.SGD(trained.parameters(), lr=0.1), 2)
now = trained.state_dict()
saved_live, saved_snapshot, saved_deep = round_trip(live), round_trip(snapshot), round_trip(deep)
print("entries:", len(live), " on the model's storage:", sum(same_storage(live[k], now[k]) for k in live))
print("saved later, equal to the model now:", sum(torch.equal(saved_live[k], now[k]) for k in live))
print("snapshot, equal to the model now:   ", sum(torch.equal(saved_snapshot[k], now[k]) for k in live))
print("deepcopy, equal to the model now:   ", sum(torch.equal(saved_deep[k], now[k]) for k in live))
assert all(torch.equal(saved_live[k], now[k]) and not torch.equal(saved_snapshot[k], now[k]) for k in live), (
    "in every entry, the dict saved later holds the later weights, and the snapshot the old ones"
)
# sphinx_gallery_start_ignore
assert all(same_storage(live[k], now[k]) for k in live), "state_dict() shares the model's memory"
assert all(torch.equal(saved_snapshot[k], saved_deep[k]) for k in live), "deepcopy keeps the same values"
# sphinx_gallery_end_ignore

# %%
# 小结
# ----
#
# ``torch.load`` 得到的张量有自己的内存；带 ``mmap=True`` 时，它们就是映射进来的文件字节，映射是私有的（torch 的默认设置），所以修改没有写回文件。``torch.load`` 从保存的 ``model.state_dict()`` 新读出的字典经 ``load_state_dict`` 复制进了模型自己的参数，之前创建的优化器照常训练。``assign=True`` 用 ``sd`` 的张量替换了参数（还把标志留在了 ``sd`` 里，之后不带这个参数加载 ``sd`` 也是如此），之前创建的优化器什么也没有更新：要在加载之后创建优化器。``state_dict()`` 在保存之前一直跟着训练变化；``clone()`` 或 ``copy.deepcopy`` 保留了取快照那一刻的值。
