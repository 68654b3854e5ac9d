"""Named fact on casting a leaf that requires grad to another floating or complex dtype, as the conclusion of the
question on a ``.grad`` that stays ``None`` after a move states it: ``to(dtype)`` returns a non-leaf that requires
grad, for every pair of floating and complex dtypes of torch, but for a cast to or from ``torch.float4_e2m1fn_x2``,
which raises ``NotImplementedError`` (no copy kernel). Registered on import by :mod:`tensorfacts.facts`, whose module
docstring says what a fact is.
"""

from __future__ import annotations

import warnings

import torch

from tensorfacts.fact_registry import Fact, fact


def _floating_dtypes() -> list[torch.dtype]:
    """Every floating or complex dtype the torch module names."""
    return sorted({value for value in vars(torch).values() if isinstance(value, torch.dtype)
                   and (value.is_floating_point or value.is_complex)}, key=str)


def _cast(source_dtype: torch.dtype, dtype: torch.dtype) -> str:
    """What ``to(dtype)`` of a leaf of ``source_dtype`` that requires grad gives, with grad mode on."""
    leaf = torch.zeros(2, dtype=source_dtype, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 tensors, and casts of complex values to real, warn
        try:
            cast = leaf.to(dtype)
        except NotImplementedError:
            return "NotImplementedError"
    if cast is leaf or cast.is_leaf or not cast.requires_grad:
        return f"is_leaf {cast.is_leaf}, requires_grad {cast.requires_grad}, the leaf itself {cast is leaf}"
    return "non-leaf"


@fact("cast-of-grad-leaf-is-non-leaf", {
    "en": "For every pair of two different floating or complex dtypes the torch module names, t = torch.zeros(2, "
          "dtype=the first, requires_grad=True), with grad mode on outside torch.inference_mode(): t.to(the second) "
          "is a non-leaf that requires grad, but where either dtype is torch.float4_e2m1fn_x2, where to() raises "
          "NotImplementedError.",
    "zh_CN": "对 torch 模块列出的每一对不同的浮点或复数 dtype，t = torch.zeros(2, dtype=前一种, requires_grad=True)，"
             "在梯度模式下、torch.inference_mode() 之外：t.to(后一种) 是需要梯度的非叶子张量；"
             "两种 dtype 之一是 torch.float4_e2m1fn_x2 时除外，这时 to() 抛出 NotImplementedError。",
}, {"en": "every ordered pair of the floating and complex dtypes of the torch module, on the CPU",
    "zh_CN": "torch 模块的浮点和复数 dtype 的每一个有序对，在 CPU 上"})
def _cast_of_grad_leaf_is_non_leaf() -> Fact:
    with torch.enable_grad():
        outcomes = {(str(a), str(b)): _cast(a, b) for a in _floating_dtypes() for b in _floating_dtypes() if a != b}
    wrong = {pair: outcome for pair, outcome in outcomes.items()
             if outcome != ("NotImplementedError" if any("float4_" in name for name in pair) else "non-leaf")}
    raised = sorted(pair for pair, outcome in outcomes.items() if outcome == "NotImplementedError")
    return Fact(not wrong and len(outcomes) > 0,
                f"{len(outcomes)} casts; not as stated: {wrong}; raised NotImplementedError: {raised}")
