"""The standard sources: the kinds of tensor every general sentence of the site is checked on.

A leaf that requires grad, a non-leaf, a ``Parameter``, a view of a leaf, a plain tensor and an
inference tensor. The behaviour matrix (:mod:`tensorfacts.probes`) has one table per source, and a
scoped fact (:mod:`tensorfacts.scope`) runs over all of them unless its sentence names a narrower range.

Pure Python: imports torch, never Sphinx.
"""

from __future__ import annotations

from collections.abc import Callable

import torch


def _pair(x: torch.Tensor, a: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    return x, x if a is None else a


def _inference() -> tuple[torch.Tensor, torch.Tensor]:
    with torch.inference_mode():
        a = torch.tensor([1.0, 2.0, 3.0])
    return _pair(a)


#: The kinds of source tensor, one table each. Each entry builds (leaf, a): the leaf gradients
#: land on (the source itself when it has no history), and a.
SOURCES: dict[str, Callable[[], tuple[torch.Tensor, torch.Tensor]]] = {
    "leaf": lambda: _pair(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    "non-leaf": lambda: (lambda x: _pair(x, x * 2))(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)),
    "parameter": lambda: _pair(torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))),
    "view": lambda: (lambda base: _pair(base, base[1:]))(torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)),
    "plain": lambda: _pair(torch.tensor([1.0, 2.0, 3.0])),
    "inference": _inference,
}

#: How each source is written on the page.
SOURCE_CODE = {
    "leaf": "a = torch.tensor([1., 2., 3.], requires_grad=True)",
    "non-leaf": "x = torch.tensor([1., 2., 3.], requires_grad=True); a = x * 2",
    "parameter": "a = torch.nn.Parameter(torch.tensor([1., 2., 3.]))",
    "view": "base = torch.tensor([0., 1., 2., 3.], requires_grad=True); a = base[1:]",
    "plain": "a = torch.tensor([1., 2., 3.])",
    "inference": "with torch.inference_mode(): a = torch.tensor([1., 2., 3.])",
}

#: The gradient of ``(a * a).sum()`` with respect to the leaf, for each source, as calculus says
#: (None: the source does not require grad, there is no graph).
TRUE_GRADIENT = {
    "leaf": [2.0, 4.0, 6.0],  # d/da a**2 = 2a
    "non-leaf": [8.0, 16.0, 24.0],  # d/dx (2x)**2 = 8x
    "parameter": [2.0, 4.0, 6.0],
    "view": [0.0, 2.0, 4.0, 6.0],  # d/dbase of base[1:]**2: nothing for base[0]
    "plain": None,
    "inference": None,
}

#: The sources that require grad: the ones the edit columns say something about.
GRAD_SOURCES = tuple(s for s, g in TRUE_GRADIENT.items() if g is not None)

#: The sources whose tensor has no version counter at all (reading ``_version`` raises).
NO_VERSION_COUNTER = ("inference",)
#: The others: where a sentence about sharing the version counter applies.
VERSIONED_SOURCES = tuple(s for s in SOURCES if s not in NO_VERSION_COUNTER)
