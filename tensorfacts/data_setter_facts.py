"""Named fact on what ``a.data = t`` accepts and refuses, run over every standard source, dtype and device.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import scoped_fact
from tensorfacts.general_facts import GRAD_SOURCES
from tensorfacts.scope import Case
from tensorfacts.tensors import same_storage

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
