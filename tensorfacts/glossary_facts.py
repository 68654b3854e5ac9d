"""Named facts on autograd, optimizers, modules and processes behind the glossary's definitions
(``sitetools/rules/term_facts.py``, ``CHECKED_BY``; the layout facts are in :mod:`tensorfacts.layout_facts`), each run
over the cases its definition covers (those on processes are in :mod:`tensorfacts.process_facts`). Registered
on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import torch
import torch.utils.checkpoint

from tensorfacts.fact_registry import Fact, fact, scoped_fact
from tensorfacts.inference_grad_on_facts import inplace_edits_in
from tensorfacts.no_grad_view_facts import GRAD_OFF, OFF_MODES
from tensorfacts.optimizer_facts import BATCH_NORMS, batch_norm_cases, batch_norms_in
from tensorfacts.scope import Case, values_equal
from tensorfacts.standard_sources import GRAD_SOURCES

#: The range of the facts that run their cases in two floating dtypes.
TWO_FLOATS = {"en": "the cases it names, float32 and float64, on the CPU",
              "zh_CN": "它列出的各种情形，float32 和 float64，在 CPU 上"}

#: In-place calls that change values, each on a fresh float32 and int64 tensor.
INPLACE = {
    "add_(1)": lambda t: t.add_(1), "mul_(2)": lambda t: t.mul_(2), "zero_()": lambda t: t.zero_(),
    "fill_(3)": lambda t: t.fill_(3), "copy_(ones)": lambda t: t.copy_(torch.ones_like(t)),
    "clamp_(max=1)": lambda t: t.clamp_(max=1), "t[0] = 5": lambda t: t.__setitem__(0, 5),
    "index_add_": lambda t: t.index_add_(0, torch.tensor([0]), torch.ones(1, dtype=t.dtype)),
    "masked_fill_": lambda t: t.masked_fill_(t > 0, 7), "t += 1": lambda t: t.__iadd__(1),
}


@fact("inplace-ops-raise-version", {
    "en": "Runs each of 10 in-place calls (add_, mul_, zero_, fill_, copy_, clamp_, item assignment, index_add_, "
          "masked_fill_, +=) on a fresh tensor and checks that its _version went up.",
    "zh_CN": "对新建的张量分别执行 10 个原地调用（add_、mul_、zero_、fill_、copy_、clamp_、元素赋值、"
             "index_add_、masked_fill_、+=），检查 _version 都增加了。",
}, {
    "en": "10 in-place calls, each on a float32 and an int64 CPU tensor (the glossary says \"most\": the writes "
          "the version counter does not see are on the version-counter page)",
    "zh_CN": "10 个原地调用，各在 float32 和 int64 的 CPU 张量上运行（术语对照表说的是“大多数”："
             "版本计数器看不到的写入，列在“版本计数器”那一页）",
})
def _inplace_ops_raise_version() -> Fact:
    still = []
    for dtype in (torch.float32, torch.int64):
        for name, call in INPLACE.items():
            t = torch.arange(4).to(dtype)
            before = t._version
            call(t)
            if t._version <= before:
                still.append(f"{name} {dtype}")
    return Fact(not still, f"calls that left _version where it was: {still or 'none'}")


#: The grad modes a clone is made in, by name.
CLONE_MODES = {"grad mode": contextlib.nullcontext, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode,
               "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False)}


def clone_in_modes(case: Case) -> dict[str, tuple[bool, str | None]]:
    """``a.clone()`` made in each grad mode: its ``requires_grad`` and the name of its ``grad_fn``."""
    _, a = case.build()
    seen = {}
    for mode, context in CLONE_MODES.items():
        with context():
            c = a.clone()
        seen[mode] = (c.requires_grad, type(c.grad_fn).__name__ if c.grad_fn else None)
    return seen


def _clone_expected(case: Case) -> dict[str, tuple[bool, str | None]]:
    expected = dict.fromkeys(CLONE_MODES, (False, None))
    if case.source in GRAD_SOURCES:
        expected["grad mode"] = (True, "CloneBackward0")
    return expected


@scoped_fact("clone-requires-grad-in-grad-mode", {
    "en": "Clones a four times, in grad mode and under torch.no_grad(), torch.inference_mode() and "
          "torch.set_grad_enabled(False). When a requires grad (a leaf, a non-leaf, a Parameter, a view of a leaf), "
          "the clone made in grad mode requires grad and has a CloneBackward0 node, and the other three require no "
          "grad and have no node; the clones of a tensor that does not require grad (a plain tensor, an inference "
          "tensor) have neither.",
    "zh_CN": "对 a 调用四次 clone()：在梯度模式下，以及在 torch.no_grad()、torch.inference_mode() 和 "
             "torch.set_grad_enabled(False) 下。a 需要梯度时（叶子张量、非叶子张量、Parameter、叶子张量的视图），"
             "梯度模式下的副本需要梯度，带 CloneBackward0 节点，另外三个副本不需要梯度，也没有节点；"
             "不需要梯度的张量（普通张量、推理张量）的副本两样都没有。",
}, _clone_expected)
def _clone_requires_grad_in_grad_mode(case: Case) -> dict[str, tuple[bool, str | None]]:
    return clone_in_modes(case)


#: The grad modes in which an in-place edit is not recorded, by name.
EDIT_MODES = {name: OFF_MODES[name] for name in ("no_grad", "inference_mode with enable_grad")}


@fact("grad-mode-records", {
    "en": "In a new thread torch.is_grad_enabled() is True, whether the thread is started with grad mode on, under "
          "torch.no_grad(), inside torch.inference_mode() or under torch.set_grad_enabled(False); under "
          "torch.no_grad() it is False. y = a * 2 of a tensor "
          "a that requires grad (a leaf, a non-leaf, a Parameter, a view of a leaf) has a grad_fn in grad mode "
          "and none under torch.no_grad(); of a tensor that does not "
          "require grad it has none. Inside torch.inference_mode() with torch.enable_grad(), is_grad_enabled() is "
          "True, yet a * 2 and a.clone() have no grad_fn and a.to(torch.float64) of a float32 a, a.to(torch.float32) "
          "of a float64 one, is a leaf. An in-place a.mul_(3) of each of the four, made under torch.no_grad() and "
          "again inside torch.inference_mode() with torch.enable_grad(), raises nothing and moves a._version by one; "
          "the non-leaf keeps its grad_fn, the leaf and the Parameter stay leaves with none, and backward() of "
          "a.sum() then leaves in the leaf's .grad what it leaves when a was never edited (2, not 6, through the "
          "non-leaf). Made in grad mode, the same edit raises on the leaf, the Parameter and the view (\"a leaf "
          "Variable\" or \"a view of a leaf Variable that requires grad is being used in an in-place operation\"), "
          "and on the non-leaf it replaces the grad_fn and backward() leaves 6.",
    "zh_CN": "在新线程里 torch.is_grad_enabled() 为 True，无论线程是在梯度模式下、torch.no_grad() 下、"
             "torch.inference_mode() 里还是 torch.set_grad_enabled(False) 下启动的；在 torch.no_grad() 下为 "
             "False。需要梯度的张量 a（叶子张量、"
             "非叶子张量、Parameter、叶子张量的视图）算出的 "
             "y = a * 2，梯度模式下有 grad_fn，在 torch.no_grad() 下没有；不需要梯度的张量算出的 y 没有 grad_fn。在 "
             "torch.inference_mode() 里用 torch.enable_grad() 时，is_grad_enabled() 为 True，但 a * 2 和 a.clone() "
             "都没有 grad_fn；float32 的 a 的 a.to(torch.float64)、float64 的 a 的 a.to(torch.float32) 是叶子张量。"
             "在 torch.no_grad() 下，以及在 torch.inference_mode() 里用 torch.enable_grad() 时，对这四种 a 各做一次"
             "原地的 a.mul_(3)：都不报错，a._version 加一；非叶子张量保留原来的 grad_fn，叶子张量和 Parameter 仍是"
             "没有 grad_fn 的叶子张量；之后对 a.sum() 调用 backward()，叶子张量的 .grad 与 a 从未被修改时相同（经过"
             "非叶子张量时是 2，不是 6）。在梯度模式下做同样的修改，叶子张量、Parameter 和视图会报错（“a leaf "
             "Variable”或“a view of a leaf Variable that requires grad is being used in an in-place operation”），"
             "非叶子张量的 grad_fn 被替换，backward() 之后是 6。",
}, TWO_FLOATS)
def _grad_mode_records() -> Fact:
    default: list[bool] = []
    for parent in (torch.enable_grad, *GRAD_OFF.values()):  # the thread started in each grad mode of its parent
        with parent():
            thread = threading.Thread(target=lambda: default.append(torch.is_grad_enabled()))
            thread.start()
            thread.join()
    with torch.no_grad():
        off = torch.is_grad_enabled()
    records, inference, givens = [], [], []
    for dtype in (torch.float32, torch.float64):
        x = torch.ones(4, dtype=dtype, requires_grad=True)  # a leaf, a non-leaf, a Parameter, a view of a leaf
        givens += [x, x * 2, torch.nn.Parameter(torch.ones(3, dtype=dtype)), x[1:]]
    for given in givens:
        with torch.no_grad():
            quiet = given * 2
        records.append((given * 2).grad_fn is not None and quiet.grad_fn is None
                       and (torch.ones(3, dtype=given.dtype) * 2).grad_fn is None)
    for a in givens:  # the four sources in float32 and float64, made outside the mode
        with torch.inference_mode(), torch.enable_grad():
            inference.append((torch.is_grad_enabled(), (a * 2).grad_fn, a.clone().grad_fn,
                              a.to(torch.float64 if a.dtype == torch.float32 else torch.float32).is_leaf))
    unrecorded = {name: inplace_edits_in(context) for name, context in EDIT_MODES.items()}
    # the root's gradient when a was never edited, a being the leaf, the non-leaf, the Parameter or the view
    unedited = [[1.0] * 4, [2.0] * 4, [1.0] * 4, [0.0, 1.0, 1.0, 1.0]]
    leaf = "a leaf Variable that requires grad is being used in an in-place operation"
    recorded = [leaf, (1, False, False, [6.0] * 4), leaf, "a view of " + leaf] * 2
    return Fact(default == [True] * (1 + len(GRAD_OFF)) and not off and all(records)
                and inference == [(True, None, None, True)] * len(givens)
                and unrecorded == dict.fromkeys(EDIT_MODES, [(1, True, True, grad) for grad in unedited] * 2)
                and inplace_edits_in(torch.enable_grad) == recorded,
                f"default in a new thread started with grad mode on, under {', '.join(GRAD_OFF)}: {default}; "
                f"under no_grad: {off}; recorded as stated: {records}; inside "
                f"inference_mode with enable_grad (grad mode, mul's and clone's grad_fn, to() a leaf): {inference}; "
                f"mul_(3) (version moved, grad_fn kept, gradient of the unedited graph, the root's gradient): "
                f"{unrecorded}; "
                f"in grad mode: {inplace_edits_in(torch.enable_grad)}")


#: The start of torch's warning on reading the ``.grad`` of a tensor that is not a leaf.
NON_LEAF_GRAD = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"


@fact("leaf-grad-accumulates", {
    "en": "A leaf a that requires grad: grad_fn None; two backward() calls of (a * a).sum() and one of (y * p).sum() "
          "with y = a * 2 and p = torch.ones(2) in a's dtype, a leaf that does not require grad, leave 4a + 2 in "
          "a.grad (added, not replaced); y has a grad_fn, is not a leaf, and y.grad is None after backward, the read "
          "giving exactly one warning, a UserWarning that starts \"" + NON_LEAF_GRAD
          + "\". The leaf p, which does not require grad, gets no .grad. "
          "Two views that are leaves: v = torch.zeros(3)[1:].requires_grad_() gets 2 in v.grad from "
          "(v * 2).sum().backward(); u = w[1:] of a leaf w that requires grad, taken under torch.no_grad(), "
          "again under torch.inference_mode() and again under torch.set_grad_enabled(False), requires grad and is "
          "a leaf, yet after (u * 2).sum().backward() u.grad and w.grad are None.",
    "zh_CN": "需要梯度的叶子张量 a：grad_fn 为 None；对 (a * a).sum() 调用两次 backward()，再令 y = a * 2，"
             "p = torch.ones(2)（dtype 与 a 相同，是不需要梯度的叶子张量），对 (y * p).sum() 调用一次，"
             "a.grad 是 4a + 2（累加，不是替换）；y 有 grad_fn，不是叶子张量，backward 之后 "
             "y.grad 仍是 None，读取它时恰好给出一条警告，是以“" + NON_LEAF_GRAD + "”开头的 UserWarning。"
             "不需要梯度的叶子张量 p 得不到 .grad。"
             "两个本身是叶子张量的视图：v = torch.zeros(3)[1:].requires_grad_() 在 (v * 2).sum().backward() 之后，"
             "v.grad 是 2；对需要梯度的叶子张量 w，分别在 torch.no_grad()、torch.inference_mode() 和 "
             "torch.set_grad_enabled(False) 下取 u = w[1:]，"
             "u 需要梯度，也是叶子张量，但 (u * 2).sum().backward() 之后 u.grad 和 w.grad 都是 None。",
}, TWO_FLOATS)
def _leaf_grad_accumulates() -> Fact:
    import warnings

    ok = []
    for dtype in (torch.float32, torch.float64):
        a = torch.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
        (a * a).sum().backward()
        (a * a).sum().backward()
        y = a * 2
        p = torch.ones(2, dtype=dtype)
        (y * p).sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            non_leaf_grad = y.grad
        warned = (len(caught) == 1 and issubclass(caught[0].category, UserWarning)
                  and str(caught[0].message).startswith(NON_LEAF_GRAD))
        ok.append(a.grad_fn is None and a.is_leaf and torch.equal(a.grad, 4 * a.detach() + 2)
                  and y.grad_fn is not None and not y.is_leaf and non_leaf_grad is None and warned
                  and p.grad is None)
    views = []  # per dtype: (the view made a leaf gets 2, then per grad-mode-off view: (leaf, no grad anywhere))
    for dtype in (torch.float32, torch.float64):
        base = torch.zeros(3, dtype=dtype)
        v = base[1:].requires_grad_()
        (v * 2).sum().backward()
        seen = [v._base is base and v.is_leaf and v.grad is not None and v.grad.tolist() == [2.0, 2.0]]
        for off in GRAD_OFF.values():
            w = torch.ones(3, dtype=dtype, requires_grad=True)
            with off():
                u = w[1:]
            (u * 2).sum().backward()
            seen.append((u._base is w and u.requires_grad and u.is_leaf, u.grad is None and w.grad is None))
        views.append(seen)
    return Fact(all(ok) and views == [[True] + [(True, True)] * len(GRAD_OFF)] * 2,
                f"as stated per dtype: {ok}; views that are leaves (made a leaf gets .grad; taken under "
                f"{', '.join(GRAD_OFF)}: a leaf that requires grad, no .grad on it or its base): {views}")


#: Optimizers in their default configuration, and SGD with momentum.
OPTIMIZERS = {
    "SGD": lambda p: torch.optim.SGD(p, lr=0.1), "SGD momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    "Adam": lambda p: torch.optim.Adam(p, lr=0.1), "AdamW": lambda p: torch.optim.AdamW(p, lr=0.1),
    "RMSprop": lambda p: torch.optim.RMSprop(p, lr=0.1), "Adagrad": lambda p: torch.optim.Adagrad(p, lr=0.1),
}


@fact("optimizer-updates-in-place", {
    "en": "For each of 6 optimizers: one step() on a Linear layer's parameters after a backward; each "
          "parameter is the same object at the same address with new values, and Adam's state holds an exp_avg "
          "for each.",
    "zh_CN": "对 6 个优化器中的每一个：反向传播后，对 Linear 层的参数执行一次 step()；每个参数仍是同一个对象、"
             "地址不变、数值变了；Adam 的状态里每个参数都有一份 exp_avg。",
}, {"en": "6 optimizers (SGD, SGD with momentum, Adam, AdamW, RMSprop, Adagrad), float32, on the CPU",
    "zh_CN": "6 个优化器（SGD、带动量的 SGD、Adam、AdamW、RMSprop、Adagrad），float32，在 CPU 上"})
def _optimizer_updates_in_place() -> Fact:
    wrong = []
    for name, make in OPTIMIZERS.items():
        torch.manual_seed(0)
        layer = torch.nn.Linear(3, 2)
        params = list(layer.parameters())
        before = [(p, p.data_ptr(), p.detach().clone()) for p in params]
        optimizer = make(params)
        layer(torch.ones(4, 3)).pow(2).sum().backward()
        optimizer.step()
        after = list(layer.parameters())
        if not all(p is q and p.data_ptr() == ptr and not torch.equal(p.detach(), old)
                   for (p, ptr, old), q in zip(before, after, strict=True)):
            wrong.append(name)
        if name == "Adam" and not all("exp_avg" in optimizer.state[p] for p in params):
            wrong.append("Adam state")
    return Fact(not wrong, f"optimizers not updating in place: {wrong or 'none'}")


def _saved_for_backward(operation: Callable[[torch.Tensor], torch.Tensor]) -> tuple[list[str], object]:
    """What a pack hook receives while ``operation`` runs on a fresh leaf x (``"x"``, ``"output"`` or a 0-d
    tensor's value), and the number its node keeps as ``_saved_other`` (an internal name), if it keeps one."""
    x, packed = torch.tensor([0.0, 1.0], requires_grad=True), []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        out = operation(x)
    other = getattr(out.grad_fn, "_saved_other", None)
    return ["x" if t is x else "output" if t is out else t.item() if t.dim() == 0 else "other" for t in packed], (
        other.item() if other is not None and other.dim() == 0 else None)


@fact("checkpoint-reruns-when-backward-needs-it", {
    "en": "Counts the calls of fn in checkpoint(fn, x, use_reentrant=...) followed by backward(): with "
          "use_reentrant=False, fn = x.exp().sum() (exp saves its output) is called twice and gives the gradient "
          "exp(x), fn = (x * x).sum() (mul saves its input x) twice too, fn = (x * torch.tensor(2.0)).sum() (mul "
          "saves the tensor 2) twice too, fn = (x + 1).sum() (nothing saved) once, and fn = (x * 2).sum() (mul "
          "keeps its number 2 outside the saved tensors hooks) once, giving the gradient 2; with "
          "use_reentrant=True, (x + 1).sum() is called twice too. What each operation saves is what the pack hook "
          "of torch.autograd.graph.saved_tensors_hooks receives when it runs outside checkpoint (for x * x, x "
          "twice; for x * 2, nothing, while its node still holds the 2).",
    "zh_CN": "数 checkpoint(fn, x, use_reentrant=...) 再 backward() 时 fn 被调用的次数：use_reentrant=False 时，"
             "fn = x.exp().sum()（exp 保存它的输出）被调用两次，梯度是 exp(x)；fn = (x * x).sum()（mul 保存它的输入 x）"
             "也被调用两次；fn = (x * torch.tensor(2.0)).sum()（mul 保存张量 2）也被调用两次；fn = (x + 1).sum()"
             "（什么也没保存）只被调用一次；fn = (x * 2).sum()（mul 保存数 2 时不经过保存张量的钩子）也只被调用一次，"
             "梯度是 2；use_reentrant=True 时，(x + 1).sum() 也被调用两次。各运算保存了什么，是在 checkpoint 之外"
             "运行它时 torch.autograd.graph.saved_tensors_hooks 的打包钩子收到的张量（x * x 收到两次 x；x * 2 "
             "什么也没收到，而它的节点仍保存着那个 2）。",
})
def _checkpoint_reruns() -> Fact:
    operations = {"exp": lambda x: x.exp(), "add": lambda x: x + 1, "square": lambda x: x * x,
                  "times tensor 2": lambda x: x * torch.tensor(2.0), "times 2": lambda x: x * 2}
    calls, grads = dict.fromkeys(operations, 0), {}

    def counted(name: str, use_reentrant: bool = False) -> None:
        """checkpoint(fn, x, use_reentrant=...).backward() on a fresh x, counting the calls of fn."""
        def fn(x: torch.Tensor) -> torch.Tensor:
            calls[name] += 1
            return operations[name](x).sum()

        x = torch.tensor([0.0, 1.0], requires_grad=True)
        checkpoint = torch.utils.checkpoint.checkpoint  # looked up at each run, so a test can replace it
        checkpoint(fn, x, use_reentrant=use_reentrant).backward()
        grads[name] = x.grad

    for name in operations:
        counted(name)
    right = torch.allclose(grads["exp"], torch.tensor([0.0, 1.0]).exp())
    number_grad = grads["times 2"] is not None and grads["times 2"].tolist() == [2.0, 2.0]
    non_reentrant = dict(calls)
    counted("add", use_reentrant=True)
    reentrant_add = calls["add"] - non_reentrant["add"]
    saved = {name: _saved_for_backward(operation) for name, operation in operations.items()}
    return Fact(non_reentrant == {"exp": 2, "add": 1, "square": 2, "times tensor 2": 2, "times 2": 1}
                and reentrant_add == 2 and right and number_grad
                and saved == {"exp": (["output"], None), "add": ([], None), "square": (["x", "x"], None),
                              "times tensor 2": ([2.0], 2.0), "times 2": ([], 2)},
                f"use_reentrant=False calls: {non_reentrant}; use_reentrant=True calls of (x + 1).sum(): "
                f"{reentrant_add}; exp gradient right: {right}; gradient of (x * 2).sum() is 2: {number_grad}; "
                f"(what the pack hook receives, the number the node keeps) outside checkpoint: {saved}")


@fact("batchnorm-running-statistics", {
    "en": "BatchNorm layers (" + batch_norms_in("en") + "), each in float32, float64 and bfloat16, list "
          "running_mean, running_var and num_batches_tracked in buffers(), none in parameters(); a forward pass in "
          "training mode updates running_mean and running_var in place (the same tensors, with new values and the "
          "_version they had before the pass); then one in eval mode leaves them as they were.",
    "zh_CN": "BatchNorm 层（" + batch_norms_in("zh_CN") + "），分别在 float32、float64 和 bfloat16 下：buffers() 里有 "
             "running_mean、running_var 和 num_batches_tracked，parameters() 里没有它们；训练模式下的一次前向传播原地"
             "（in-place）更新 running_mean 和 running_var（还是那两个张量，数值变了，_version 与前向传播之前相同）；"
             "之后 eval 模式下的一次前向传播不改变它们。",
}, {"en": "the BatchNorm layers it names, float32, float64 and bfloat16, on the CPU",
    "zh_CN": "它列出的 BatchNorm 层，float32、float64 和 bfloat16，在 CPU 上"})
def _batchnorm_running_statistics() -> Fact:
    seen = {}
    for name, norm, x in batch_norm_cases():
        stats = (norm.running_mean, norm.running_var)
        buffers = dict(norm.named_buffers())
        listed = set(buffers) == {"running_mean", "running_var", "num_batches_tracked"} and not any(
            tensor is buffer for tensor in norm.parameters() for buffer in buffers.values()) and not any(
            parameter in buffers for parameter, _ in norm.named_parameters())
        before, versions = [stat.clone() for stat in stats], [stat._version for stat in stats]
        norm(x)
        trained = [(now is stat, stat._version == version, not torch.equal(stat, old)) for now, stat, old, version
                   in zip((norm.running_mean, norm.running_var), stats, before, versions, strict=True)]
        after = [stat.clone() for stat in stats]
        norm.eval()(x)
        kept = all(torch.equal(stat, old) for stat, old in zip(stats, after, strict=True))
        seen[name] = (listed, trained == [(True, True, True)] * 2, kept)
    wrong = {name: found for name, found in seen.items() if found != (True, True, True)}
    return Fact(len(seen) == 3 * len(BATCH_NORMS) and not wrong,
                f"{len(seen)} layers and dtypes; (buffers, not parameters; a training step updates them in place, "
                f"version kept; an eval step leaves them) not all true for: {wrong}")


@fact("autocast-lowers-some-ops", {
    "en": "Under torch.autocast('cpu', dtype=torch.bfloat16) a float32 Linear layer given a float32 input returns "
          "bfloat16, while a float32 LayerNorm returns float32 for that float32 input and bfloat16 for the Linear "
          "layer's bfloat16 output. Outside the region the Linear layer returns float32.",
    "zh_CN": "在 torch.autocast('cpu', dtype=torch.bfloat16) 里，float32 的 Linear 层对 float32 输入返回 bfloat16；"
             "float32 的 LayerNorm 则对同一个 float32 输入返回 float32，"
             "对 Linear 层输出的 bfloat16 张量返回 bfloat16。"
             "离开该区域后 Linear 层返回 float32。",
})
def _autocast_lowers_some_ops() -> Fact:
    linear, norm, x = torch.nn.Linear(4, 4), torch.nn.LayerNorm(4), torch.ones(2, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        lowered = linear(x)
        inside = (lowered.dtype, norm(x).dtype, norm(lowered).dtype)
    outside = linear(x).dtype
    return Fact(inside == (torch.bfloat16, torch.float32, torch.bfloat16) and outside == torch.float32,
                f"inside: Linear {inside[0]}, LayerNorm of the float32 input {inside[1]}, LayerNorm of the Linear "
                f"layer's output {inside[2]}; outside: Linear {outside}")


@scoped_fact("rebinding-leaves-old-tensor", {
    "en": "old = a, then a = a + 1: a now names a new tensor, and old is the same object as before, with the same "
          "values and the same version counter value (an inference tensor has no counter).",
    "zh_CN": "old = a，再 a = a + 1：a 指向一个新张量，old 仍是原来的对象，数值和版本计数器的值都不变"
             "（推理张量没有版本计数器）。",
}, lambda case: (True, True, True))
def _rebinding_leaves_old_tensor(case: Case) -> tuple[bool, bool, bool]:
    _, a = case.build()
    old, version = a, None if a.is_inference() else a._version
    before = old.detach().clone()
    a = a + 1
    return a is not old, values_equal(old.detach(), before), (None if old.is_inference() else old._version) == version
