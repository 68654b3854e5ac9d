"""The facts behind general sentences and advice, each run over the range its sentence claims.

Each fact here is a :func:`~tensorfacts.fact_registry.scoped_fact`: an observation run in every case of its
scope (every standard source, dtype and device unless it says why not), and a table of what the
sentence citing it states for each case. A piece of advice ("use X to do Y") is checked by doing Y
with X in a small training loop, not by looking at X alone. The observations are module-level
functions so that a test can run an *old* sentence over the same range and watch it fail.

Imported at the end of :mod:`tensorfacts.facts`, which registers them.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import scoped_fact
from tensorfacts.meta_reasons import NEEDS_VALUES
from tensorfacts.scope import VALUE_DEVICES, Case, Raised, by_source, values_equal
from tensorfacts.tensors import SHAPE_ERRORS, bytes_apart

#: The sources the training facts train: the leaves that require grad.
TRAINABLE = ("leaf", "parameter")
#: What a sentence that says "raises RuntimeError" expects.
RAISES = Raised("RuntimeError")
#: The sources that require grad.
GRAD_SOURCES = ("leaf", "non-leaf", "parameter", "view")


def _give_grad(a: torch.Tensor) -> None:
    """Give ``a`` a ``.grad``: by backward when it is a leaf that requires grad, else by hand."""
    if a.requires_grad and a.is_leaf:
        (a * a).sum().backward()
    elif a.is_leaf:
        a.grad = torch.ones_like(a)  # a tensor that does not require grad may still hold a .grad


# --- copy.deepcopy and .grad ----------------------------------------------------------------------


def deepcopy_grad(case: Case) -> str:
    """What ``copy.deepcopy(a)`` does with ``a.grad``: "copied", "dropped", "shared", or the error."""
    _, a = case.build()
    _give_grad(a)
    b = copy.deepcopy(a)  # a non-leaf raises here
    if b.grad is None:
        return "dropped"
    own = b.grad is not a.grad and (a.device.type == "meta" or bytes_apart(a.grad, b.grad))
    return "copied" if own and values_equal(a.grad, b.grad) else "shared"


DEEPCOPY_GRAD = {"parameter": "dropped", "non-leaf": RAISES, "view": RAISES}


@scoped_fact("deepcopy-grad-by-source", {
    "en": "Gives a its .grad (by backward, or by hand when a does not require grad), deep-copies a and "
          "looks at the copy's .grad: a copy of its own for a torch.Tensor (a leaf, a plain tensor, an "
          "inference tensor), None for a Parameter; a non-leaf, and a view of a leaf taken with grad mode on, "
          "raise RuntimeError.",
    "zh_CN": "先让 a 有 .grad（用反向传播；a 不需要梯度时手动赋值），再深拷贝 a，看副本的 .grad："
             "torch.Tensor（叶子张量、普通张量、推理张量）得到一份自己的副本，Parameter 得到 None；"
             "非叶子张量和在梯度模式下取的叶子张量的视图抛出 RuntimeError。",
}, by_source(DEEPCOPY_GRAD, default="copied"))
def _deepcopy_grad(case: Case) -> str:
    return deepcopy_grad(case)


def deepcopy_model_grads(case: Case) -> str:
    """After one backward, what ``copy.deepcopy(model)`` gives each parameter's ``.grad``."""
    model = torch.nn.Linear(3, 1)
    model(torch.ones(2, 3)).sum().backward()
    twin = copy.deepcopy(model)
    if any(p.grad is None for p in model.parameters()):
        return "the model has no gradients to copy"
    grads = {p.grad is None for p in twin.parameters()}
    return "dropped" if grads == {True} else "copied" if grads == {False} else "mixed"


@scoped_fact("deepcopy-model-drops-grad", {
    "en": "Runs one backward through torch.nn.Linear(3, 1), deep-copies the model, and checks that every "
          "parameter of the copy has .grad None while the original's have gradients.",
    "zh_CN": "让 torch.nn.Linear(3, 1) 反向传播一次，再深拷贝这个模型：原模型的参数都有梯度，副本每个参数的 .grad "
             "都是 None。",
}, lambda case: "dropped", sources=None)
def _deepcopy_model_grads(case: Case) -> str:
    return deepcopy_model_grads(case)


# --- An edit through detach() made before autograd saves the tensor ------------------------------


def _edited_run(case: Case, edit: Callable[[torch.Tensor], torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """Build the source, ``edit`` it before any loss saves it, then backward ``(a * a).sum()`` of the
    edited tensor; (the leaf's gradient, the leaf's values after the run)."""
    leaf, a = case.build()
    a = edit(a)
    (a * a).sum().backward()
    return leaf.grad, leaf.detach().clone()


def _through_detach(a: torch.Tensor) -> torch.Tensor:
    a.detach().mul_(10)
    return a


def _under_no_grad(a: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        a.mul_(10)
    return a


def edit_before_save(case: Case) -> tuple[bool, bool]:
    """``a.detach().mul_(10)`` before ``(a * a).sum()`` saves ``a``, then backward. Returns
    (the same gradient as that edit under ``torch.no_grad()`` and as ``a + (9 * a).detach()``,
     the same gradient as a fresh run whose leaf starts at the values the edited run ended with)."""
    grad, leaf_values = _edited_run(case, _through_detach)
    as_no_grad = values_equal(grad, _edited_run(case, _under_no_grad)[0])
    as_constant = values_equal(grad, _edited_run(case, lambda a: a + (9 * a).detach())[0])

    leaf, a = case.build()  # a fresh run, its leaf set to the edited values first
    with torch.no_grad():
        leaf.copy_(leaf_values)
    (a * a).sum().backward()
    return as_no_grad and as_constant, values_equal(grad, leaf.grad)


@scoped_fact("detach-edit-before-save", {
    "en": "Edits a.detach().mul_(10) before (a * a).sum() saves a, then runs backward (no error), and compares the "
          "gradient this gives the leaf behind a (a itself, the tensor a is computed from, or the base a is a view "
          "of) with three others. For each of the four sources (a leaf, a non-leaf, a Parameter, a view of a leaf) "
          "it equals the gradient of the same edit made under torch.no_grad() and that of a + (9 * a).detach() "
          "(the edit as a constant). It also equals the gradient of a fresh run whose leaf starts at the values the "
          "edited run left in it for a leaf, a Parameter and a view of a leaf, but not for a non-leaf (a = x * 2).",
    "zh_CN": "在 (a * a).sum() 保存 a 之前执行 a.detach().mul_(10)，再反向传播（不报错），"
             "把 a 背后的叶子张量（a 本身、算出 a 的那个张量，或 a 作为视图所属的基张量）得到的梯度与另外三种梯度比较。"
             "对四种源张量（叶子张量、非叶子张量、Parameter、叶子张量的视图）中的每一种，它都等于把同样的修改放在 "
             "torch.no_grad() 下得到的梯度，也等于 a + (9 * a).detach()（把修改当作常数）的梯度。对叶子张量、"
             "Parameter 和叶子张量的视图，它还等于让叶子张量从修改后留下的数值重新算一遍得到的梯度；"
             "对非叶子张量（a = x * 2）则不相等。",
}, by_source({"leaf": (True, True), "parameter": (True, True), "view": (True, True),
              "non-leaf": (True, False)}), sources=GRAD_SOURCES, devices=VALUE_DEVICES,
    narrower=NEEDS_VALUES.around(before={
    "en": "only a tensor that requires grad has a backward to run; ",
    "zh_CN": "只有需要梯度的张量才有反向传播可做；",
}))
def _edit_before_save(case: Case) -> tuple[bool, bool]:
    return edit_before_save(case)


# --- Advice checked by doing it: logging values (a second trainable copy: trainable_copy_facts) -----------------------


#: What a log holds after the loop.
EACH_STEP, FINAL_W = "each step's values", "every entry the final w"


def log_in_a_loop(case: Case, log: Callable[[torch.Tensor, torch.Tensor], object]) -> str:
    """Train ``w`` three SGD steps on ``(w * w).sum()`` with ``lr = 0.25`` (each step halves ``w``),
    calling ``log(w, loss)`` before each step: does the log hold each step's values, or is every
    entry the final ``w``?"""
    _, w = case.build()
    start = w.detach().tolist()
    optimizer = torch.optim.SGD([w], lr=0.25)
    logged = []
    for _ in range(3):
        loss = (w * w).sum()
        logged.append(log(w, loss))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    halvings = [[v / 2**step for v in start] for step in range(3)]  # calculus: w - 0.25 * 2w = w / 2
    wanted = {"w": halvings, "loss": [sum(v * v for v in h) for h in halvings]}
    entries = [e.tolist() if isinstance(e, torch.Tensor) else e for e in logged]
    kind = "loss" if not isinstance(entries[0], list) else "w"
    if entries == wanted[kind]:
        return EACH_STEP
    final = [v / 2**3 for v in start]  # after the third step
    return FINAL_W if entries == [final] * 3 else f"something else: {entries}"


#: The ways of logging a value the sentence names, and whether each keeps the value of its step.
LOGGERS: dict[str, Callable[[torch.Tensor, torch.Tensor], object]] = {
    "loss.item()": lambda w, loss: loss.item(),
    "w.tolist()": lambda w, loss: w.tolist(),
    "w.detach().clone()": lambda w, loss: w.detach().clone(),
    "w.detach()": lambda w, loss: w.detach(),
}


def logs_over_training(case: Case) -> dict[str, str]:
    return {name: log_in_a_loop(case, log) for name, log in LOGGERS.items()}


@scoped_fact("log-values-in-a-loop", {
    "en": "Trains w three SGD steps (each halves w) and logs, before each step, loss.item(), w.tolist(), "
          "w.detach().clone() and w.detach(); compares each log with the halvings worked out by hand: the "
          "first three keep each step's values, the list of w.detach() does not (every entry is the final w).",
    "zh_CN": "用 SGD 训练 w 三步（每步 w 减半），每步之前分别记录 loss.item()、w.tolist()、w.detach().clone() 和 "
             "w.detach()，再与手算的减半结果比较：前三种记下的是每一步的值，w.detach() 的列表不是（每一项显示的都是 "
             "w 最后的值）。",
}, lambda case: {"loss.item()": EACH_STEP, "w.tolist()": EACH_STEP, "w.detach().clone()": EACH_STEP,
                 "w.detach()": FINAL_W},
    sources=TRAINABLE, devices=VALUE_DEVICES, narrower=NEEDS_VALUES.around(before={
    "en": "the sentence is about the weights a training loop trains, and the fact trains leaves that require grad; ",
    "zh_CN": "句子说的是训练循环训练的权重，这条事实训练的是需要梯度的叶子张量；",
}))
def _logs_over_training(case: Case) -> dict[str, str]:
    return logs_over_training(case)


# --- A snapshot on the CPU ------------------------------------------------------------------------


def cpu_snapshot(case: Case) -> tuple[bool, bool, bool]:
    """(``a.cpu() is a``; ``a.detach().to("cpu", copy=True)`` has storage of its own and needs no grad;
    it keeps its values after ``a`` is edited in place)."""
    _, a = case.build()
    alias, snapshot = a.cpu(), a.detach().to("cpu", copy=True)
    before = snapshot.tolist()
    with torch.inference_mode() if a.is_inference() else torch.no_grad():
        a.mul_(10)
    return alias is a, bytes_apart(snapshot, a) and not snapshot.requires_grad, snapshot.tolist() == before


@scoped_fact("cpu-snapshot", {
    "en": "On a CPU tensor a, checks that a.cpu() is a itself, and that a.detach().to(\"cpu\", copy=True) has storage "
          "of its own, does not require grad, and keeps its values when a is then multiplied by 10 in place (under "
          "torch.no_grad(), or inside torch.inference_mode() for an inference tensor).",
    "zh_CN": "对 CPU 张量 a，检查 a.cpu() 就是 a 本身；a.detach().to(\"cpu\", copy=True) 有自己的存储、不需要梯度，"
             "之后把 a 原地（in-place）乘以 10（在 torch.no_grad() 下；a 是推理张量时在 torch.inference_mode() 里），"
             "这份副本的数值保持不变。",
}, lambda case: (True, True, True), devices=VALUE_DEVICES, narrower=NEEDS_VALUES.around(before={
    "en": "the sentence is about CPU tensors (this build has no GPU); ",
    "zh_CN": "句子说的是 CPU 张量（本次构建没有 GPU）；",
}))
def _cpu_snapshot(case: Case) -> tuple[bool, bool, bool]:
    return cpu_snapshot(case)


# --- Copies that stay in the graph pass the gradient on ---------------------------------------------


#: The copies the guides say gradients flow back through, each made from ``a`` with grad mode on.
GRAPH_COPIES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "a.clone()": lambda a: a.clone(),
    "torch.empty_like(a).copy_(a)": lambda a: torch.empty_like(a).copy_(a),
    "a.double()": lambda a: a.double(),
}

#: The key under which :func:`copy_passes_gradient` records, on a float64 source, whether ``a.double()`` is ``a``.
DOUBLE_IS_A = "a.double() is a (float64 a)"


def copy_passes_gradient(case: Case) -> dict[str, object]:
    """For each copy ``b`` of :data:`GRAPH_COPIES`: whether ``torch.autograd.grad((b * b).sum(), leaf)`` equals the
    gradient of ``(a * a).sum()`` on a fresh source (compared in float64); "no graph" when ``b`` requires no grad.
    On a float64 source, also whether ``a.double() is a``."""
    seen: dict[str, object] = {}
    if case.dtype == torch.float64:
        _, a = case.build()
        seen[DOUBLE_IS_A] = a.double() is a
    for name, make in GRAPH_COPIES.items():
        leaf, a = case.build()
        b = make(a)
        if not b.requires_grad:
            seen[name] = "no graph"
            continue
        through, = torch.autograd.grad((b * b).sum(), leaf)
        fresh_leaf, fresh = case.build()
        direct, = torch.autograd.grad((fresh * fresh).sum(), fresh_leaf)
        seen[name] = values_equal(through.double(), direct.double())
    return seen


@scoped_fact("copy-in-graph-passes-gradient", {
    "en": "Makes b = a.clone(), b = torch.empty_like(a).copy_(a) and b = a.double() with grad mode on (on a float64 a, "
          "a.double() is a itself, checked on every source), each from a fresh source, and compares "
          "torch.autograd.grad((b * b).sum(), leaf) with the gradient of (a * a).sum() on another fresh source "
          "(compared in float64): equal for each of the three when a requires grad (a leaf, a non-leaf, a Parameter, "
          "a view of a leaf); when it does not (a plain tensor, an inference tensor), b does not require grad either.",
    "zh_CN": "在梯度模式下，每次从新建的源张量做出 b = a.clone()、b = torch.empty_like(a).copy_(a) 和 "
             "b = a.double()（a 是 float64 时，a.double() 就是 a 本身，每种源张量都检查），"
             "把 torch.autograd.grad((b * b).sum(), leaf) 与另一个新建的源张量上 (a * a).sum() 的梯度比较"
             "（都转成 float64 比较）：a 需要梯度时（叶子张量、非叶子张量、Parameter、叶子张量的视图），"
             "三种写法的梯度都相等；a 不需要梯度时（普通张量、推理张量），b 也不需要梯度。",
}, lambda case: {**({DOUBLE_IS_A: True} if case.dtype == torch.float64 else {}),
                 **dict.fromkeys(GRAPH_COPIES, True if case.source in GRAD_SOURCES else "no graph")},
    devices=VALUE_DEVICES, narrower=NEEDS_VALUES)
def _copy_passes_gradient(case: Case) -> dict[str, object]:
    return copy_passes_gradient(case)


# --- copy_ keeps the shape of the tensor it writes into -------------------------------------------

#: The modes ``copy_`` is tried in: grad mode on, off, and inside ``torch.inference_mode()``.
COPY_MODES = {"grad mode on": contextlib.nullcontext, "torch.no_grad()": torch.no_grad,
              "torch.inference_mode()": torch.inference_mode}


def _copy_error(a: torch.Tensor, source: tuple[int, ...], mode, non_blocking: bool) -> str | None:
    """``a.copy_(torch.ones(source), non_blocking=...)`` in ``mode``: None, or the first line of its RuntimeError."""
    with mode():
        try:
            a.copy_(torch.ones(source), non_blocking=non_blocking)
        except RuntimeError as e:
            return str(e).splitlines()[0]
    return None


def copy_into_keeps_shape(case: Case) -> str:
    """``a.copy_(torch.ones(shape), non_blocking=...)`` into a fresh ``a`` for each source shape, in each mode of
    :data:`COPY_MODES`, with ``non_blocking`` off and on: "shape kept" when ``a``'s shape never changed; each source
    that does not broadcast to it raised RuntimeError, a shape error (:data:`SHAPE_ERRORS`) whenever a source of
    ``a``'s own shape ran, else a shape error or that source's error; each broadcasting call that returned left ``a``
    all ones (on a device with values); and one from a source of another shape returned (and wrote) at least once."""
    shape = tuple(case.build()[1].shape)
    broadcasts, refused = (shape, (1,), ()), ((shape[0] + 1, *shape[1:]), (2, *shape), (*shape, 1))
    wrong, broadcast_ran = [], False
    for mode_name, mode in COPY_MODES.items():
        for non_blocking in (False, True):
            own_error = _copy_error(case.build()[1], shape, mode, non_blocking)
            for source in (*broadcasts, *refused):
                _, a = case.build()
                error = _copy_error(a, source, mode, non_blocking)
                written = error is None and (a.device.type == "meta" or bool((a == 1).all()))
                shape_error = error is not None and any(text in error for text in SHAPE_ERRORS)
                if tuple(a.shape) != shape or (source in refused and not (shape_error or (
                        own_error is not None and error == own_error))) or (error is None and not written):
                    wrong.append(f"{mode_name}, a {source} source, non_blocking={non_blocking}: shape "
                                 f"{tuple(a.shape)}, raised {error}, written {written}")
                broadcast_ran = broadcast_ran or (source != shape and source in broadcasts and written)
    return "shape kept" if not wrong and broadcast_ran else f"broadcast ran: {broadcast_ran}; {wrong[:3]}"


@scoped_fact("copy-keeps-destination-shape", {
    "en": "Into a fresh a, runs a.copy_(torch.ones(shape)) for sources of a's shape, of shape (1,) and 0-d, which "
          "broadcast to it, and of shapes that do not ((n + 1,), (2, n) and (n, 1) for a of shape (n,)), with "
          "grad mode on, under torch.no_grad() and inside torch.inference_mode(), with non_blocking False and True: "
          "a keeps its shape every time; each source that does not broadcast to it raises RuntimeError, with a shape "
          "error wherever a source of a's own shape is accepted (where that one is refused too, as on a leaf with "
          "grad mode on, the error may be that refusal); each broadcasting call that returns leaves a all ones (on "
          "meta, which holds no values, it only returns), and at least one such call copies a source of another "
          "shape.",
    "zh_CN": "对新建的 a 执行 a.copy_(torch.ones(shape))：源张量的形状有能广播成 a 的形状的"
             "（与 a 相同、(1,) 和 0 维），也有不能广播的（a 的形状为 (n,) 时取 (n + 1,)、(2, n) 和 (n, 1)）；"
             "分别在梯度模式下、torch.no_grad() 里和 torch.inference_mode() 里执行，non_blocking 取 False 和 "
             "True：a 的形状每次都不变；不能广播成它的形状的源张量都抛出 RuntimeError，凡是与 a 同形状的源张量"
             "能写入的情形，报的都是形状错误（同形状的源张量也被拒绝时，例如梯度模式下的叶子张量，报的可以是那个"
             "拒绝的错误）；能广播的源张量只要调用正常返回，a 就全为 1（meta 张量不存放数值，只检查调用正常返回）；"
             "这样的调用中至少有一次复制的是形状与 a 不同的源张量。",
}, lambda case: "shape kept")
def _copy_into_keeps_shape(case: Case) -> str:
    return copy_into_keeps_shape(case)
