"""Named fact on the dtypes CPU autocast takes: bfloat16 and float16, and no other dtype of torch. It stands behind
the autocast question page's sentence on ``dtype=torch.float16``. Registered on import by :mod:`tensorfacts.facts`,
whose docstring says what a fact is.
"""

from __future__ import annotations

import warnings

import torch

from tensorfacts.fact_registry import Fact, fact

#: The dtypes CPU autocast takes.
LOW = (torch.bfloat16, torch.float16)
#: Words of the warning CPU autocast gives for any other dtype.
NOT_SUPPORTED = "not supported"


def every_dtype() -> list[torch.dtype]:
    """Every dtype of torch: each ``torch.dtype`` among torch's attributes, once (aliases such as torch.half too)."""
    return list(dict.fromkeys(value for value in vars(torch).values() if isinstance(value, torch.dtype)))


def cpu_autocast_outcome(dtype: torch.dtype) -> tuple[torch.dtype, list[tuple[str, bool]]]:
    """The dtype of ``F.linear`` of two float32 tensors inside ``torch.autocast("cpu", dtype=dtype)``, and the
    warnings given there: (category, whether it says the dtype is not supported)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autocast("cpu", dtype=dtype):
            result = torch.nn.functional.linear(torch.ones(1, 2), torch.ones(1, 2)).dtype
    return result, [(w.category.__name__, NOT_SUPPORTED in str(w.message)) for w in caught]


@fact("cpu-autocast-takes-only-bfloat16-and-float16", {
    "en": "For every dtype of torch (each torch.dtype among torch's attributes: the floating, integer, unsigned, bool, "
          "complex, float8, float4, quantized and bits dtypes), computes F.linear of two float32 tensors inside "
          "torch.autocast(\"cpu\", dtype=...): with bfloat16 and float16 no warning is given and the result has that "
          "dtype; with every other dtype exactly one UserWarning says it is not supported, and the result is "
          "float32, as without autocast.",
    "zh_CN": "对 torch 的每种 dtype（torch 的属性中每个 torch.dtype：浮点、整数、无符号整数、bool、复数、"
             "float8、float4、量化和 bits 类型），在 torch.autocast(\"cpu\", dtype=...) 里"
             "计算两个 float32 张量的 F.linear："
             "用 bfloat16 和 float16 时不给出警告，结果就是这个 dtype；用其他任何 dtype 时恰好给出一条 UserWarning，"
             "说它不受支持，结果是 float32，与不用 autocast 时一样。",
}, {"en": "every dtype of torch, on the CPU", "zh_CN": "torch 的每种 dtype，在 CPU 上"})
def _cpu_autocast_takes_only_bfloat16_and_float16() -> Fact:
    """CPU autocast computes in bfloat16 or float16 when given one, and warns and computes in float32 given any other
    dtype of torch."""
    outcomes = {str(dtype): cpu_autocast_outcome(dtype) for dtype in every_dtype()}
    taken = [name for name, outcome in outcomes.items() if outcome != (torch.float32, [("UserWarning", True)])]
    low_as_said = all(outcomes.get(str(dtype)) == (dtype, []) for dtype in LOW)
    return Fact(low_as_said and sorted(taken) == sorted(str(dtype) for dtype in LOW),
                f"dtypes run: {len(outcomes)}; not warning and computing in float32: "
                f"{ {name: outcomes[name] for name in taken} }")
