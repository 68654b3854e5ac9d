"""Named facts on what ``a.data = t`` accepts and refuses, run over every standard source, dtype and device, and on
what it makes of a tensor given an inference tensor ``t``: an inference tensor keeping a counter of its own; and that
``a.data = t``, like ``set_`` on ``a`` or on ``a.detach()``, ends the sharing of memory between the two, not of the
version counter.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import scoped_fact
from tensorfacts.general_facts import GRAD_SOURCES
from tensorfacts.meta_reasons import NEEDS_VALUES
from tensorfacts.scope import VALUE_DEVICES, Case, Raised
from tensorfacts.standard_sources import VERSIONED_SOURCES
from tensorfacts.tensors import same_storage, version_read

#: The phrases of torch's refusals of ``a.data = t``, and what each one checks.
SETTER_REFUSALS = {
    "must be floating point or complex dtype": "dtype",
    "incompatible tensor type": "tensor type",
}

#: The sparse layouts, by the name the fact gives each.
SPARSE_LAYOUTS = {"COO": torch.sparse_coo, "CSR": torch.sparse_csr, "CSC": torch.sparse_csc,
                  "BSR": torch.sparse_bsr, "BSC": torch.sparse_bsc}


def _sparse(layout: torch.layout) -> torch.Tensor:
    """A 2×2 sparse tensor of ``layout`` made from a dense one (the blocked layouts with 1×1 blocks)."""
    blocks = {"blocksize": (1, 1)} if layout in (torch.sparse_bsr, torch.sparse_bsc) else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns that the compressed layouts are in beta
        return torch.eye(2).to_sparse(layout=layout, **blocks)


def _made_in_inference_mode() -> torch.Tensor:
    with torch.inference_mode():
        return torch.zeros(3)


#: Dense tensors (layout torch.strided, not nested) of the case's dtype and device, each of a kind other than a's.
STRIDED: dict[str, Callable[[], torch.Tensor]] = {
    "another shape": lambda: torch.zeros(2, 2),
    "non-contiguous": lambda: torch.zeros(3, 4).t(),
    "expanded": lambda: torch.zeros(1).expand(3),
    "requiring grad": lambda: torch.zeros(3, requires_grad=True),
    "made in inference mode": _made_in_inference_mode,
}


def _taken(a: torch.Tensor, t: torch.Tensor) -> str:
    """"accepted" when ``a`` now has ``t``'s shape and dtype and (off ``meta``, which holds no memory) its memory."""
    if tuple(a.shape) == tuple(t.shape) and a.dtype == t.dtype and (a.device.type == "meta" or same_storage(a, t)):
        return "accepted"
    return f"accepted, but a is {tuple(a.shape)} {a.dtype} apart from t"


def data_setter(case: Case) -> dict[str, str]:
    """What ``a.data = t`` accepts: values that are not tensors, dense tensors of ``a``'s dtype and device, another
    dtype (float64, an integer, a complex and a bool one), each sparse layout, another device type. Each answer is
    "accepted" (``a`` then has ``t``'s shape, dtype and memory), the start of torch's message, or "refused: not a
    tensor" for its ``TypeError``."""
    other_device = "cpu" if case.device == "meta" else "meta"
    candidates = {
        "None": lambda: None,
        "a float": lambda: 0.0,
        "a list": lambda: [0.0, 0.0, 0.0],
        **STRIDED,
        "shape and dtype": lambda: torch.zeros(2, 2, dtype=torch.float64),
        "integer dtype": lambda: torch.zeros(3, dtype=torch.int64),
        "complex dtype": lambda: torch.zeros(3, dtype=torch.complex64),
        "bool dtype": lambda: torch.zeros(3, dtype=torch.bool),
        **{f"sparse {name}": (lambda layout=layout: _sparse(layout)) for name, layout in SPARSE_LAYOUTS.items()},
        "device type": lambda: torch.zeros(3, device=other_device),
    }
    answers = {}
    for what, make in candidates.items():
        _, a = case.build()
        if what.startswith("sparse ") and case.device == "meta":
            continue  # a sparse meta tensor cannot be made from a dense one
        t = make()
        try:
            a.data = t
        except RuntimeError as exc:
            answers[what] = next((f"refused: {why}" for phrase, why in SETTER_REFUSALS.items()
                                  if phrase in str(exc)), f"refused: {exc}")
        except TypeError as exc:
            answers[what] = "refused: not a tensor" if "has to be a tensor" in str(exc) else f"TypeError: {exc}"
        else:
            answers[what] = _taken(a, t)
    return answers


def _setter_expected(case: Case) -> dict[str, str]:
    requires_grad = case.source in GRAD_SOURCES
    expected = {
        **dict.fromkeys(("None", "a float", "a list"), "refused: not a tensor"),
        **dict.fromkeys(STRIDED, "accepted"),
        "shape and dtype": "accepted",
        "integer dtype": "refused: dtype" if requires_grad else "accepted",
        "complex dtype": "accepted",
        "bool dtype": "refused: dtype" if requires_grad else "accepted",
        **{f"sparse {name}": "refused: tensor type" for name in SPARSE_LAYOUTS},
        "device type": "refused: tensor type",
    }
    if case.device == "meta":
        expected = {what: answer for what, answer in expected.items() if not what.startswith("sparse ")}
        # on meta, an inference tensor and a normal one are two tensor types: a t of the other kind is refused
        other_kind = [what for what in expected if what not in ("None", "a float", "a list", "device type")
                      and (what == "made in inference mode") != (case.source == "inference")]
        expected.update(dict.fromkeys(other_kind, "refused: tensor type"))
    return expected


@scoped_fact("data-setter-checks", {
    "en": "Sets a.data to None, 0.0 and [0.0, 0.0, 0.0], which are refused with TypeError as not tensors; to dense "
          "tensors (layout torch.strided, not nested) of a's dtype and device: a 2×2 one, a non-contiguous one "
          "(a transpose), an expanded one, one that requires grad and one made under torch.inference_mode(); to "
          "a 2×2 float64 tensor, an int64, a complex64 and a bool tensor; to a sparse CPU tensor of each layout, "
          "COO, CSR, CSC, BSR and BSC (only when a is on the CPU), and to a tensor on meta (on the CPU when a is "
          "on meta). Each dense tensor of a's dtype, the shape and float dtype change and the complex dtype are "
          "accepted, and a then has t's shape, dtype and (off meta) memory; the integer and bool dtypes are refused "
          "when a requires grad and accepted otherwise; every sparse layout (on the CPU) and the CPU-meta switch "
          "are always refused as an incompatible tensor type. On meta, a tensor made in inference mode and a normal "
          "one are two tensor types: a t of the other kind than a is refused in that way. Between the CPU and a "
          "GPU the setter is not run.",
    "zh_CN": "把 a.data 设为 None、0.0 和 [0.0, 0.0, 0.0]，都因不是张量被拒绝，抛出 TypeError；"
             "再设为与 a 的 dtype 和设备相同的稠密张量（布局为 torch.strided，非嵌套）："
             "2×2 的张量、不连续的张量（转置）、扩展（expand）出的张量、需要梯度的张量，"
             "以及在 torch.inference_mode() 下创建的张量；"
             "再设为 2×2 的 float64 张量、int64 张量、complex64 张量、bool 张量；"
             "再设为 CPU 上每一种布局的稀疏张量，即 COO、CSR、CSC、BSR 和 BSC（只在 a 在 CPU 上时）；"
             "最后设为 meta 上的张量（a 在 meta 上时换成 CPU 上的）。"
             "与 a 的 dtype 相同的每个稠密张量、改形状和浮点 dtype、换成复数 dtype 都接受，"
             "之后 a 的形状、dtype 和内存（meta 除外）都是 t 的；"
             "整数和 bool dtype 在 a 需要梯度时被拒绝，否则接受；"
             "每一种稀疏布局（在 CPU 上）、在 CPU 与 meta 之间互换一律以“张量类型不兼容”被拒绝。"
             "在 meta 上，推理模式下创建的张量与普通张量是两种张量类型：与 a 不同种的 t 以同样的方式被拒绝。"
             "CPU 与 GPU 之间的赋值不在运行之列。",
}, _setter_expected)
def _data_setter(case: Case) -> dict[str, str]:
    return data_setter(case)


def setter_inference_counter(case: Case) -> dict[str, object]:
    """Give ``a`` (made outside ``torch.inference_mode()``) an inference tensor ``t`` by ``a.data = t``; is ``a`` then
    an inference tensor, what does ``a._version`` read, after ``a.add_(1)`` under ``torch.no_grad()``, what does a
    ``d = a.detach()`` taken then read, and after ``d.add_(1)``, does ``a`` show it and what do both counters read?"""
    _, a = case.build()
    a.data = _made_in_inference_mode()  # refused on meta: the observation is the error
    made = (a.is_inference(), a._version)
    with torch.no_grad():
        a.add_(1)
    d = a.detach()
    taken = (a._version, d._version, d.is_inference())
    d.add_(1)
    return {"(a.is_inference(), a._version) after a.data = t": made,
            "(a._version, d._version, d.is_inference()) after a.add_(1), d = a.detach()": taken,
            "d.add_(1) seen by a": bool(torch.equal(a.detach(), d)) and bool((d == 2).all()),
            "(a._version, d._version) after d.add_(1)": (a._version, d._version)}


def _setter_inference_expected(case: Case) -> object:
    """On the CPU, ``a`` becomes an inference tensor with a counter of its own, at 0 and moved to 1 by ``add_``; ``d``
    starts its own at 0, and ``d.add_(1)`` reaches ``a`` and moves ``d``'s counter only. On meta, the setter refuses
    (``data-setter-checks``: two tensor types there)."""
    if case.device == "meta":
        return Raised("RuntimeError")
    return {"(a.is_inference(), a._version) after a.data = t": (True, 0),
            "(a._version, d._version, d.is_inference()) after a.add_(1), d = a.detach()": (1, 0, True),
            "d.add_(1) seen by a": True,
            "(a._version, d._version) after d.add_(1)": (1, 1)}


@scoped_fact("data-setter-inference-own-counter", {
    "en": "On a tensor a made outside torch.inference_mode(), sets a.data = t, with t made by torch.zeros(3) under "
          "torch.inference_mode(): on the CPU a is then an inference tensor (a.is_inference() is True) whose "
          "_version reads 0, and a.add_(1) under torch.no_grad() moves it to 1; "
          "d = a.detach(), taken then, reads 0, and d.add_(1) shows in a and moves d._version to 1 while "
          "a._version stays 1: d does not share a's counter. On meta the setter refuses t with RuntimeError.",
    "zh_CN": "对在 torch.inference_mode() 之外创建的张量 a，设 a.data = t，t 是在 torch.inference_mode() 下由 "
             "torch.zeros(3) 创建的：在 CPU 上，a 随后成了推理张量（a.is_inference() 为 True），它的 _version 读到 "
             "0，在 torch.no_grad() 下调用 a.add_(1) 让它变为 1；这时取的 d = a.detach() 读到 0，d.add_(1) 在 a "
             "上看得到，让 d._version 变为 1，a._version 仍是 1：d 不共享 a 的计数器。在 meta 上，赋值抛出 "
             "RuntimeError，不接受 t。",
}, _setter_inference_expected, sources=VERSIONED_SOURCES, devices=("cpu", "meta"), narrower={
    "en": "the sentence speaks of tensors that are not inference tensors before a.data = t, on the CPU and on meta",
    "zh_CN": "它检验的句子只说在 a.data = t 之前不是推理张量的张量，在 CPU 和 meta 上",
})
def _data_setter_inference_own_counter(case: Case) -> dict[str, object]:
    return setter_inference_counter(case)


#: The calls that put ``a`` or ``d = a.detach()`` on other memory, each given a new tensor of ``a``'s shape.
MOVES: dict[str, Callable[[torch.Tensor, torch.Tensor], object]] = {
    "d.set_(t)": lambda a, d: d.set_(torch.zeros(3)),
    "a.set_(t)": lambda a, d: a.set_(torch.zeros(3)),
    "a.data = t": lambda a, d: setattr(a, "data", torch.zeros(3)),
    "vector_to_parameters(t, [a])": lambda a, d: torch.nn.utils.vector_to_parameters(torch.zeros(3), [a]),
}


def moved_apart(case: Case) -> dict[str, tuple[object, ...]]:
    """For each call of :data:`MOVES` on a fresh ``a`` and ``d = a.detach()`` (under ``torch.no_grad()``, or inside
    ``torch.inference_mode()`` for an inference tensor, as the edits after it): whether ``d.add_(5)`` leaves ``a``'s
    values as they were, whether ``a.mul_(2)`` then leaves ``d``'s, and ``(a._version, d._version)`` after each."""
    mode = torch.inference_mode if case.source == "inference" else torch.no_grad
    seen = {}
    for name, move in MOVES.items():
        _, a = case.build()
        d = a.detach()
        with mode():
            move(a, d)
            a_before = a.detach().clone()
            d.add_(5)
            after_d = (bool(torch.equal(a.detach(), a_before)), version_read(a), version_read(d))
            d_before = d.clone()
            a.mul_(2)
        seen[name] = (*after_d, bool(torch.equal(d, d_before)), version_read(a), version_read(d))
    return seen


def _moved_apart_expected(case: Case) -> dict[str, tuple[object, ...]]:
    """Neither edit reaches the other tensor; the counter stays shared (at 1 or 2 after the two edits, one more after a
    set_, which moves it), but for an inference tensor, whose own read raises and whose ``d`` stays at 0."""
    if case.source == "inference":
        return dict.fromkeys(MOVES, (True, "raises", 0, True, "raises", 0))
    return {name: (True, 1 + moves, 1 + moves, True, 2 + moves, 2 + moves)
            for name, moves in ((name, int("set_" in name)) for name in MOVES)}


@scoped_fact("detach-memory-moved-apart", {
    "en": "On a tensor a of the default strided layout and d = a.detach(), calls d.set_(t), a.set_(t), a.data = t or "
          "torch.nn.utils.vector_to_parameters(t, [a]) with t = torch.zeros(3) (a fresh pair each time), then "
          "d.add_(5) and a.mul_(2), all under torch.no_grad() (inside torch.inference_mode() for an inference tensor "
          "made there): d.add_(5) leaves a's values as they were and a.mul_(2) leaves d's, while a._version and "
          "d._version read the same after each edit (set_ moves that counter by one too), except on the inference "
          "tensor, where reading a._version raises and d._version stays 0.",
    "zh_CN": "对默认 strided 布局的张量 a 和 d = a.detach()，每次取一对新的，调用 d.set_(t)、a.set_(t)、a.data = t "
             "或 torch.nn.utils.vector_to_parameters(t, [a])（t = torch.zeros(3)），再调用 d.add_(5) 和 a.mul_(2)，"
             "都在 torch.no_grad() 下（a 是在 torch.inference_mode() 里创建的推理张量时，都在这个模式里）：d.add_(5) "
             "不改变 a 的数值，a.mul_(2) 也不改变 d 的数值，而每次修改之后 a._version 和 d._version 都相同（set_ "
             "也让这个计数器加一）；推理张量除外：这时读取 a._version 报错，d._version 一直是 0。",
}, _moved_apart_expected, devices=VALUE_DEVICES, narrower=NEEDS_VALUES)
def _detach_memory_moved_apart(case: Case) -> dict[str, tuple[object, ...]]:
    return moved_apart(case)
