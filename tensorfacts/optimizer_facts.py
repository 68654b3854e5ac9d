"""Named facts on in-place writes by torch kernels that move no version counter: a step of an optimizer built
with ``fused=True``, ``GradScaler.unscale_``, a ``BatchNorm`` layer's update of its running statistics and the
update of ``FusedMovingAvgObsFakeQuantize``'s quantization parameters, so autograd cannot notice them; and on
the methods with an in-place name that move none (``apply_``, ``map_``, ``detach_``, ``requires_grad_``,
``share_memory_``, and ``resize_`` and ``resize_as_`` to the current shape, which given another ``memory_format``
lay the values out anew). Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import math

import torch

from editions import pick
from tensorfacts.fact_registry import Fact, fact
from tensorfacts.scope import DTYPES
from tensorfacts.tensors import VERSION_ERROR, backward_error

#: The classes of ``torch.optim`` that accept ``fused=True`` on the torch this site is built with (the pages name them).
FUSED_OPTIMIZERS = ("Adagrad", "Adam", "AdamW", "SGD")


def fused_optimizers() -> tuple[str, ...]:
    """Every optimizer class of ``torch.optim`` that can be built with ``fused=True`` here, found by trying each: built
    on a float32 ``Parameter`` [1., 2., 3.] with that argument alone, it raises nothing. A class with no ``fused``
    argument raises TypeError and is left out; any other error (a class that takes ``fused`` and refuses it here) stops
    the fact, whose list of such classes would then change."""
    found = []
    for name in sorted(dir(torch.optim)):
        cls = getattr(torch.optim, name)
        if not (isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer)) or cls is torch.optim.Optimizer:
            continue
        try:
            cls([torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))], fused=True)
        except TypeError:
            continue
        found.append(name)
    return tuple(found)


#: BatchNorm layers of 3 channels, each with its options and the shape and memory format of the input it is run on.
BATCH_NORMS = (
    (torch.nn.BatchNorm1d, {}, (4, 3), torch.contiguous_format),
    (torch.nn.BatchNorm1d, {}, (4, 3, 5), torch.contiguous_format),
    (torch.nn.BatchNorm1d, {"momentum": None}, (4, 3), torch.contiguous_format),
    (torch.nn.BatchNorm2d, {}, (2, 3, 2, 2), torch.contiguous_format),
    (torch.nn.BatchNorm2d, {}, (2, 3, 2, 2), torch.channels_last),
    (torch.nn.BatchNorm3d, {}, (2, 3, 2, 2, 2), torch.contiguous_format),
)
#: How a case of ``BATCH_NORMS`` reads in each language: (with a contiguous input, with a channels_last one, the
#: mark between two cases).
_CASE_WORDS = {"en": ("{layer}, a {shape} input", "{layer}, a {shape} channels_last input", "; "),
               "zh_CN": ("{layer}，输入形状为 {shape}", "{layer}，输入形状为 {shape}，channels_last", "；")}


def batch_norm_name(case: tuple, language: str = "en") -> str:
    """One case of ``BATCH_NORMS`` in ``language``: the layer, its options, and its input."""
    cls, options, shape, layout = case
    layer = cls.__name__ + (f"({', '.join(f'{k}={v}' for k, v in options.items())})" if options else "")
    plain, channels_last, _ = pick(_CASE_WORDS, language, "the BatchNorm cases' words")
    return (channels_last if layout is torch.channels_last else plain).format(layer=layer, shape=shape)


def batch_norms_in(language: str) -> str:
    """Every case of ``BATCH_NORMS``, listed in ``language`` (for the texts of the facts that run them)."""
    between = pick(_CASE_WORDS, language, "the BatchNorm cases' words")[2]
    return between.join(batch_norm_name(case, language) for case in BATCH_NORMS)


def batch_norm_cases():
    """Each layer of ``BATCH_NORMS`` in each dtype of the standard range, new and in training mode, with its input
    (0, 1, 2 ... in that shape): ``(name, layer, input)``."""
    for case in BATCH_NORMS:
        cls, options, shape, layout = case
        for dtype in DTYPES:
            x = torch.arange(math.prod(shape), dtype=dtype).reshape(shape).contiguous(memory_format=layout)
            name = f"{batch_norm_name(case)}, {str(dtype).removeprefix('torch.')}"
            yield name, cls(3, dtype=dtype, **options).train(), x


@fact("fused-optimizer-step-not-counted", {
    "en": "Builds every optimizer class of torch.optim with fused=True alone, on a float32 Parameter [1., 2., 3.], and "
          "keeps those that raise nothing (on this torch: "
          + ", ".join(FUSED_OPTIMIZERS) + "; the fact fails if that list changes). For each of them (lr=0.1), in "
          "float32, float64 and bfloat16, on a Parameter w and on a plain leaf w that requires grad, both "
          "[1., 2., 3.]: makes w.grad with one backward, saves w in a second loss (w * w).sum(), calls "
          "optimizer.step(), sets w.grad = None, then runs backward of that loss. "
          "With fused=True, w._version does not move, backward raises nothing and w.grad is not the one calculus "
          "gives; with foreach=True and with foreach=False, w._version moves and backward "
          "raises the version-counter error.",
    "zh_CN": "在 float32 的 Parameter [1., 2., 3.] 上，只传 fused=True 构造 torch.optim 里的每个优化器类，"
             "留下不报错的那些（在这个 torch 上是 "
             + "、".join(FUSED_OPTIMIZERS) + "；这份名单一变，这条事实就不成立）。对其中每一个（lr=0.1），分别在 "
             "float32、float64 和 bfloat16 下，对 Parameter w 和需要梯度的普通叶子张量 w（都是 [1., 2., 3.]）："
             "先反向传播一次得到 w.grad，在第二个损失 (w * w).sum() 中保存 w，调用 optimizer.step()，"
             "设 w.grad = None，再对这个损失反向传播。fused=True 时，w._version 不变，"
             "反向传播不报错，w.grad 却不是按求导公式算出的那个；foreach=True 和 foreach=False 时，w._version "
             "增加，反向传播报版本计数器错误。",
}, {"en": "the optimizers of torch.optim that can be built with fused=True here, float32, float64 and bfloat16, a "
          "Parameter and a plain leaf that requires grad, on the CPU",
    "zh_CN": "torch.optim 里在这里能用 fused=True 构造的优化器，float32、float64 和 bfloat16，Parameter 和需要梯度"
             "的普通叶子张量，在 CPU 上"})
def _fused_optimizer_step_not_counted() -> Fact:
    """A fused optimizer step writes the weights without moving their version: autograd cannot notice it."""
    found = fused_optimizers()
    outcomes = {}
    for name in found:
        for dtype in DTYPES:
            for kind in ("Parameter", "leaf"):
                for mode in ({"fused": True}, {"foreach": True}, {"foreach": False}):
                    w = torch.tensor([1.0, 2.0, 3.0], dtype=dtype)
                    w = torch.nn.Parameter(w) if kind == "Parameter" else w.requires_grad_()
                    optimizer = getattr(torch.optim, name)([w], lr=0.1, **mode)
                    (w * w).sum().backward()
                    loss = (w * w).sum()  # saves w
                    before = w._version
                    optimizer.step()
                    w.grad = None  # so that w.grad is this loss's gradient alone
                    error = backward_error(loss)
                    outcomes[name, str(dtype), kind, *mode.items()] = (
                        w._version - before, error, w.grad.tolist() if w.grad is not None else None)
    fused = {key: o for key, o in outcomes.items() if key[3] == ("fused", True)}
    others = {key: o for key, o in outcomes.items() if key[3] != ("fused", True)}
    loud = [key for key, (moved, error, grad) in fused.items()
            if moved or error or grad is None or grad == [2.0, 4.0, 6.0]]
    missed = [key for key, (moved, error, _) in others.items() if not moved or VERSION_ERROR not in error]
    silent = bool(fused) and not loud
    caught = bool(others) and not missed
    return Fact(found == FUSED_OPTIMIZERS and silent and caught,
                f"accept fused=True: {', '.join(found)}; {len(fused)} fused steps, _version unchanged, no error and "
                f"a wrong w.grad but for {loud}; {len(others)} foreach steps, _version moved and backward raises but "
                f"for {missed}")


@fact("kernel-writes-not-counted", {
    "en": "Three in-place writes by torch kernels that move no version counter. torch.amp.GradScaler('cpu', "
          "init_scale=4.0): after scaler.scale((w * w).sum()).backward(), a second loss (u * w.grad).sum(), u a "
          "leaf that requires grad, saves w.grad; scaler.unscale_(optimizer) divides w.grad by 4 in place (the same "
          "tensor), w.grad._version does not move, and backward of the second loss raises nothing, u.grad being "
          "the unscaled w.grad, not the saved one. BatchNorm layers in training mode (" + batch_norms_in("en")
          + "), each in float32, float64 and bfloat16: a loss (v * running_mean).sum(), v a leaf that requires grad, "
          "saves the layer's running_mean; a forward pass updates running_mean and running_var in place (the same "
          "tensors), their _version does not move (num_batches_tracked's does), and backward of the loss raises "
          "nothing, v.grad being the new running_mean, not the saved zeros. "
          "torch.ao.quantization.FusedMovingAvgObsFakeQuantize() in training mode: a loss (v * fq.scale).sum() saves "
          "its scale; a forward pass over torch.linspace(-5, 5, 16) rewrites scale, zero_point and its observer's "
          "min_val and max_val in place (the same tensors), none of their _version moves, and backward of the loss "
          "raises nothing, v.grad being the new scale, not the saved one.",
    "zh_CN": "三种由 torch 内核完成、却不推进版本计数器的原地写入。torch.amp.GradScaler('cpu', init_scale=4.0)："
             "scaler.scale((w * w).sum()).backward() 之后，第二个损失 (u * w.grad).sum()（u 是需要梯度的叶子张量）"
             "保存了 w.grad；scaler.unscale_(optimizer) 把 w.grad 原地除以 4（还是同一个张量），w.grad._version 不变，"
             "对第二个损失反向传播不报错，u.grad 是除过之后的 w.grad，而不是保存时的那个。"
             "训练模式下的 BatchNorm 层（" + batch_norms_in("zh_CN") + "），分别在 float32、float64 和 bfloat16 下："
             "一个损失 (v * running_mean).sum()（v 是需要梯度的叶子张量）保存了该层的 running_mean；一次前向传播原地"
             "更新 running_mean 和 running_var（还是那两个张量），它们的 _version 不变（num_batches_tracked 的变了），"
             "对这个损失反向传播不报错，v.grad 是新的 running_mean，而不是保存时的零。"
             "训练模式下的 torch.ao.quantization.FusedMovingAvgObsFakeQuantize()：一个损失 (v * fq.scale).sum() "
             "保存了它的 scale；对 torch.linspace(-5, 5, 16) 做一次前向传播，原地改写 scale、zero_point 和它的观察器的 "
             "min_val、max_val（还是那几个张量），它们的 _version 都不变，对这个损失反向传播不报错，v.grad 是新的 "
             "scale，而不是保存时的那个。",
}, {"en": "GradScaler('cpu') on one float32 Parameter; the BatchNorm layers it names, float32, float64 and bfloat16; "
          "a FusedMovingAvgObsFakeQuantize with its default arguments; on the CPU",
    "zh_CN": "一个 float32 Parameter 上的 GradScaler('cpu')；它列出的 BatchNorm 层，float32、float64 和 bfloat16；"
             "一个用默认参数建的 FusedMovingAvgObsFakeQuantize；在 CPU 上"})
def _kernel_writes_not_counted() -> Fact:
    """GradScaler.unscale_, BatchNorm's running-statistics update and the fused fake-quant update write in place
    without moving _version."""
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = torch.optim.SGD([w], lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale((w * w).sum()).backward()
    grad, u = w.grad, torch.ones(3, requires_grad=True)
    penalty = (u * grad).sum()  # saves w.grad
    before, values = grad._version, grad.clone()
    scaler.unscale_(optimizer)
    unscaled = w.grad is grad and grad._version == before and torch.equal(grad, values / 4)
    unscale_error = backward_error(penalty)
    unscaled = unscaled and not unscale_error and torch.equal(u.grad, values / 4)

    norms = {}
    for name, bn, x in batch_norm_cases():
        v = torch.ones(3, dtype=x.dtype, requires_grad=True)
        stats, old_var = (bn.running_mean, bn.running_var), bn.running_var.clone()
        loss = (v * bn.running_mean).sum()  # saves running_mean (zeros)
        versions = (bn.running_mean._version, bn.running_var._version, bn.num_batches_tracked._version)
        bn(x)
        after = (bn.running_mean._version, bn.running_var._version, bn.num_batches_tracked._version)
        error = backward_error(loss)
        updated = (bn.running_mean is stats[0] and bn.running_var is stats[1] and bool(bn.running_mean.abs().sum() > 0)
                   and not torch.equal(bn.running_var, old_var))
        norms[name] = (after[:2] == versions[:2] and after[2] > versions[2] and updated and not error
                       and v.grad is not None and torch.equal(v.grad, bn.running_mean))
    noticed = [name for name, silent in norms.items() if not silent]
    fake_quant = _fake_quant_update_not_counted()
    return Fact(unscaled and len(norms) == 3 * len(BATCH_NORMS) and not noticed and fake_quant,
                f"unscale_: same tensor, _version unchanged, divided by 4, u.grad the new values: {unscaled}; "
                f"backward: {unscale_error or 'no error'}; BatchNorm in {len(norms)} cases: running statistics "
                f"updated in place, their _version unchanged, backward without error, v.grad the new running_mean, "
                f"but for {noticed}; FusedMovingAvgObsFakeQuantize: scale, zero_point, min_val and max_val rewritten "
                f"in place, _version unchanged, backward without error, v.grad the new scale: {fake_quant}")


def _fake_quant_update_not_counted() -> bool:
    """A training-mode forward of FusedMovingAvgObsFakeQuantize rewrites its quantization parameters and its
    observer's range in place, moving none of their version counters."""
    fq = torch.ao.quantization.FusedMovingAvgObsFakeQuantize()
    observer = fq.activation_post_process
    buffers = (fq.scale, fq.zero_point, observer.min_val, observer.max_val)
    values, versions = [b.clone() for b in buffers], [b._version for b in buffers]
    v = torch.ones(1, requires_grad=True)
    loss = (v * fq.scale).sum()  # saves scale
    fq(torch.linspace(-5.0, 5.0, 16))
    after = (fq.scale, fq.zero_point, observer.min_val, observer.max_val)
    same = all(a is b for a, b in zip(after, buffers, strict=True)) and [b._version for b in buffers] == versions
    changed = all(not torch.equal(b, old) for b, old in zip(buffers, values, strict=True))
    error = backward_error(loss)
    return same and changed and not error and v.grad is not None and torch.equal(v.grad, fq.scale)


@fact("apply-map-not-counted", {
    "en": "For a tensor x that does not require grad, saved by loss = (x * w).sum() with w a leaf that requires "
          "grad, in float32 and float64: b = x; b.apply_(f), b.map_(ones, f) or b.map2_(ones, ones, f), with f "
          "multiplying by 10, changes x without moving x._version, and loss.backward() raises nothing, w.grad being "
          "the new x, not the saved one. On a leaf that requires grad, apply_, map_ and map2_ raise RuntimeError, "
          "under torch.no_grad() too.",
    "zh_CN": "对不需要梯度的张量 x，由 loss = (x * w).sum() 保存（w 是需要梯度的叶子张量），float32 和 float64 各一次："
             "b = x；b.apply_(f)、b.map_(ones, f) 或 b.map2_(ones, ones, f)（f 乘以 10）改变了 x，x._version 却不变，"
             "loss.backward() 不报错，w.grad 是新的 x，而不是保存时的那个。对需要梯度的叶子张量，apply_、map_ 和 "
             "map2_ 抛出 RuntimeError，在 torch.no_grad() 下也一样。",
}, {"en": "apply_, map_ and map2_, float32 and float64, on the CPU",
    "zh_CN": "apply_、map_ 和 map2_，float32 和 float64，在 CPU 上"})
def _apply_map_not_counted() -> Fact:
    seen, refused = {}, []
    for dtype in (torch.float32, torch.float64):
        edits = {"apply_": lambda b: b.apply_(lambda v: v * 10),
                 "map_": lambda b: b.map_(torch.ones_like(b), lambda v, _: v * 10),
                 "map2_": lambda b: b.map2_(torch.ones_like(b), torch.ones_like(b), lambda v, _a, _b: v * 10)}
        for name, edit in edits.items():
            x, w = torch.tensor([1.0, 2.0, 3.0], dtype=dtype), torch.ones(3, dtype=dtype, requires_grad=True)
            loss, b, before = (x * w).sum(), x, x._version
            edit(b)
            error = backward_error(loss)
            seen[f"{name} {dtype}"] = (x._version - before, error, w.grad.tolist() if w.grad is not None else None)
            for mode in (torch.enable_grad, torch.no_grad):
                try:
                    with mode():
                        edit(torch.ones(3, dtype=dtype, requires_grad=True))
                except RuntimeError:
                    refused.append(True)
                else:
                    refused.append(False)
    silent = all(moved == 0 and not error and grad == [10.0, 20.0, 30.0] for moved, error, grad in seen.values())
    return Fact(silent and all(refused), f"(version moved, backward error, w.grad) per edit: {seen}; "
                                         f"refused on a leaf that requires grad: {refused}")


@fact("underscore-methods-not-counted", {
    "en": "On fresh float32 and float64 tensors: out.detach_() of out = a.sigmoid() (a a leaf that requires grad), "
          "t.requires_grad_() and t.share_memory_() each return the tensor they are called on and change it "
          "(out leaves the graph, t requires grad, t's storage is in shared memory), keep its values, and leave its "
          "_version where it was; resize_ to t's own shape and resize_as_(torch.zeros_like(t)), given no "
          "memory_format, on a 2×2 t, on t = x.t() of a 2×3 x, on a 1×2×2×3 t in torch.channels_last, and on "
          "d = a.detach() of a 3-element leaf a that requires grad, return the tensor they are called on with its "
          "shape, strides and values as they were, and leave its _version (and, for d, a's) where it was.",
    "zh_CN": "在新建的 float32 和 float64 张量上：对 out = a.sigmoid()（a 是需要梯度的叶子张量）调用 out.detach_()，"
             "以及 t.requires_grad_() 和 t.share_memory_()，都返回被调用的那个张量并改变它（out 离开计算图，"
             "t 需要梯度，t 的存储进了共享内存），数值不变，_version 也不动；不给 memory_format，"
             "调用 resize_ 到 t 自己的形状以及 resize_as_(torch.zeros_like(t))，t 依次是 2×2 的张量、"
             "2×3 的 x 的 t = x.t()、torch.channels_last 的 1×2×2×3 张量，以及 3 个元素、需要梯度的"
             "叶子张量 a 的 d = a.detach()：都返回被调用的那个张量，形状、步长和数值不变，它的 _version "
             "也不动（对 d 来说，a 的 _version 同样不动）。",
}, {"en": "detach_, requires_grad_, share_memory_, and resize_ and resize_as_ to the current shape with no "
          "memory_format, float32 and float64, on the CPU",
    "zh_CN": "detach_、requires_grad_、share_memory_，以及不给 memory_format、调整到当前形状的 resize_ 和 resize_as_，"
             "float32 和 float64，在 CPU 上"})
def _underscore_methods_not_counted() -> Fact:
    """Methods named in the in-place way that change a tensor's autograd state or memory, not its values, and
    resizes to the shape the tensor already has."""
    seen = {}
    for dtype in (torch.float32, torch.float64):
        out = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True).sigmoid()
        plain, shared = torch.tensor([1.0, 2.0, 3.0], dtype=dtype), torch.tensor([1.0, 2.0, 3.0], dtype=dtype)
        calls = {"detach_": (out, lambda t: t.detach_(), lambda t: not t.requires_grad and t.grad_fn is None),
                 "requires_grad_": (plain, lambda t: t.requires_grad_(), lambda t: t.requires_grad),
                 "share_memory_": (shared, lambda t: t.share_memory_(), lambda t: t.is_shared())}
        for name, (t, call, changed) in calls.items():
            values, before = t.detach().clone(), t._version
            same = call(t) is t
            seen[f"{name} {dtype}"] = (same, changed(t), torch.equal(t.detach(), values), t._version - before)
        seen.update(_resized_to_own_shape(dtype))
    return Fact(all(v[:3] == (True, True, True) and v[3] == 0 for v in seen.values()),
                f"(same object, changed or for a resize same shape, same values, version moved) per call: {seen}")


def _resized_to_own_shape(dtype: torch.dtype) -> dict[str, tuple[bool, bool, bool, int]]:
    """``resize_`` and ``resize_as_`` to the shape a tensor already has, given no ``memory_format``, on a plain 2×2
    tensor, a transposed one, a 4-D one in ``torch.channels_last`` and a detached leaf: (same object, same shape and
    strides, same values, how far the tensor's ``_version`` moved plus, for the detached leaf, how far the leaf's
    did)."""
    seen = {}
    for name, call in {"resize_": lambda t: t.resize_(*t.shape),
                       "resize_as_": lambda t: t.resize_as_(torch.zeros_like(t))}.items():
        for where, make in _OWN_SHAPE_SOURCES.items():
            leaf = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
            t = leaf.detach() if make is None else make(dtype)
            layout, values, before = (t.shape, t.stride()), t.clone(), (t._version, leaf._version)
            same = call(t) is t
            moved = abs(t._version - before[0]) + (abs(leaf._version - before[1]) if make is None else 0)
            seen[f"{name} {where} {dtype}"] = (same, (t.shape, t.stride()) == layout, torch.equal(t, values), moved)
    return seen


#: The tensors resized to their own shape: each made in a dtype (None: the detach() of a 3-element leaf).
_OWN_SHAPE_SOURCES = {
    "plain 2x2": lambda dtype: torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dtype),
    "x.t() of a 2x3 x": lambda dtype: torch.arange(6, dtype=dtype).reshape(2, 3).t(),
    "channels_last 1x2x2x3": lambda dtype: torch.arange(12, dtype=dtype).reshape(1, 2, 2, 3).contiguous(
        memory_format=torch.channels_last),
    "detach() of a leaf": None,
}

#: Resizes to a tensor's own shape given a ``memory_format`` it is not laid out in, each on a fresh tensor made in a
#: dtype: (what the call is, the tensor it is called on).
_RESTRIDING = {
    "resize_(shape, memory_format=torch.channels_last) of a contiguous 1x2x2x3 tensor": (
        lambda t: t.resize_(*t.shape, memory_format=torch.channels_last), False),
    "resize_as_(like, memory_format=torch.channels_last) of a contiguous 1x2x2x3 tensor": (
        lambda t: t.resize_as_(torch.zeros(t.shape, dtype=t.dtype), memory_format=torch.channels_last), False),
    "resize_as_(channels_last like, memory_format=torch.preserve_format) of a contiguous 1x2x2x3 tensor": (
        lambda t: t.resize_as_(torch.zeros_like(t).contiguous(memory_format=torch.channels_last),
                               memory_format=torch.preserve_format), False),
    "resize_(shape, memory_format=torch.contiguous_format) of a channels_last 1x2x2x3 tensor": (
        lambda t: t.resize_(*t.shape, memory_format=torch.contiguous_format), True),
}


@fact("same-shape-resize-memory-format-restrides", {
    "en": "On a fresh t = torch.arange(12.).reshape(1, 2, 2, 3), in float32 and float64, saved by "
          "loss = (w * t).sum() with w a 1×2×2×3 leaf of ones that requires grad: t.resize_(t.shape, "
          "memory_format=torch.channels_last), t.resize_as_ of a tensor of its shape with "
          "memory_format=torch.channels_last, t.resize_as_ of a channels_last template with "
          "memory_format=torch.preserve_format, and, on t in torch.channels_last, t.resize_(t.shape, "
          "memory_format=torch.contiguous_format), each return t with its shape but new strides, so it reads "
          "other values (torch.equal with the old ones is False); t._version stays where it was, and "
          "loss.backward() raises nothing, w.grad being the new t.",
    "zh_CN": "对新建的 1×2×2×3 张量 t = torch.arange(12.).reshape(1, 2, 2, 3)，float32 和 float64 各一次，t 已由 "
             "loss = (w * t).sum() 保存（w 是全为 1、需要梯度的叶子张量）：t.resize_(t.shape, "
             "memory_format=torch.channels_last)、以 memory_format=torch.channels_last 对同形状张量调用 t.resize_as_、"
             "以 memory_format=torch.preserve_format 对 channels_last 的模板调用 t.resize_as_，以及在 "
             "torch.channels_last 的 t 上调用 t.resize_(t.shape, memory_format=torch.contiguous_format)，都返回 t，"
             "形状不变而步长变了，于是读出的数值变了（与原来的数值做 torch.equal 得 False）；t._version 不动，"
             "loss.backward() 不报错，w.grad 是新的 t。",
}, {"en": "four resizes to the current shape with a memory_format the tensor is not laid out in, float32 and "
          "float64, on the CPU",
    "zh_CN": "四种调整到当前形状、memory_format 与张量现有布局不同的调用，float32 和 float64，在 CPU 上"})
def _same_shape_resize_memory_format_restrides() -> Fact:
    """A resize to a tensor's own shape given another memory format lays its values out anew without moving its
    version counter, so a graph that saved it reads the new values without an error."""
    seen = {}
    for dtype in (torch.float32, torch.float64):
        for name, (call, channels_last) in _RESTRIDING.items():
            t = torch.arange(12, dtype=dtype).reshape(1, 2, 2, 3)
            if channels_last:
                t = t.contiguous(memory_format=torch.channels_last)
            w = torch.ones(1, 2, 2, 3, dtype=dtype, requires_grad=True)
            loss, values, strides, before = (w * t).sum(), t.clone(), t.stride(), t._version
            same = call(t) is t
            error = backward_error(loss)
            seen[f"{name} {dtype}"] = (same, t.shape == values.shape and t.stride() != strides,
                                       not torch.equal(t, values), t._version - before, error,
                                       w.grad is not None and torch.equal(w.grad, t))
    return Fact(all(v == (True, True, True, 0, "", True) for v in seen.values()),
                f"(same object, same shape with new strides, values changed, version moved, backward error, w.grad "
                f"is the new t) per call: {seen}")
