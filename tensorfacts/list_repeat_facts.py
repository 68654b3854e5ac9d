"""The named fact behind the glossary's entry on a list of tensors (``sitetools/rules/term_facts.py``, ``CHECKED_BY``):
``[t] * n`` holds one tensor ``n`` times, not ``n`` tensors, run over every standard source, dtype and device and
several ``n``. Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts.fact_registry import scoped_fact
from tensorfacts.scope import Case, values_equal

#: The lengths ``n`` of the list ``[t] * n``.
REPEATS = (1, 2, 3, 10)


@scoped_fact("list-repeat-holds-one-tensor", {
    "en": "For t each of the standard sources and n = " + ", ".join(map(str, REPEATS[:-1])) + " and "
          + str(REPEATS[-1]) + ", items = [t] * n: the list has n items and each is the object t itself (items[k] is "
          "t), and "
          "items[0].add_(1), made under torch.no_grad() (inside torch.inference_mode() for the inference tensor), "
          "shows in items[n - 1] and t: both hold t's old values plus 1 (on the CPU; a meta tensor holds none).",
    "zh_CN": "t 取每种标准源张量，n 取 " + "、".join(map(str, REPEATS[:-1])) + " 和 " + str(REPEATS[-1])
             + "，items = [t] * n：列表有 n 项，每一项都是 t 这个对象本身（items[k] is t）；"
             "在 torch.no_grad() 下（推理张量则在 torch.inference_mode() 里）执行 items[0].add_(1)，"
             "items[n - 1] 和 t 上都看得到：两者的数值都是 t 原来的数值加 1（在 CPU 上；meta 张量不存数值）。",
}, lambda case: dict.fromkeys(REPEATS, (True, True)))
def _list_repeat_holds_one_tensor(case: Case) -> dict[int, tuple[bool, bool]]:
    seen = {}
    for n in REPEATS:
        _, t = case.build()
        before = t.detach().clone()
        items = [t] * n
        one = len(items) == n and all(item is t for item in items)
        with torch.inference_mode() if t.is_inference() else torch.no_grad():
            items[0].add_(1)
        seen[n] = (one, values_equal(items[-1].detach(), before + 1) and values_equal(t.detach(), before + 1))
    return seen
