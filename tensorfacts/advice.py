"""What an entry of a guide is (the matrix page's, :mod:`tensorfacts.matrix`; the decision page's,
:mod:`tensorfacts.decisions`), and the expressions an entry may name outside the table, each with the fact that
checks it. Pure Python: imports torch (through the facts), never Sphinx.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from editions import pick
from tensorfacts.detach_data_facts import DETACH_ROUTES
from tensorfacts.probes import Matrix


@dataclasses.dataclass(frozen=True)
class Advice:
    """One entry of the guide, in every edition's language, and what it rests on: ``premise`` reads the probed
    matrix; ``facts`` names checks of :mod:`tensorfacts.facts` for the parts of the sentence no table cell shows.
    Both must hold.
    """

    id: str
    texts: Mapping[str, str]  #: edition code -> the advice in that language
    premise: Callable[[Matrix], bool]
    facts: tuple[str, ...] = ()

    def text(self, language: str) -> str:
        """The advice in ``language``; a missing translation raises (no fallback)."""
        return pick(self.texts, language, f"guide entry {self.id}")


#: Expressions a guide entry may name outside the table, and the fact that checks each.
FACT_EXPRESSIONS: dict[str, tuple[str, ...]] = {
    "noop-conversions-return-a": ("a.to(torch.float32)", "a.cpu()", "a.contiguous()"),
    "detach-numpy-write-silent": ("a.detach().numpy()",),
    "detach-write-routes": tuple(DETACH_ROUTES),
    "saved-tensor-hooks-hide-edit": ("torch.autograd.graph.save_on_cpu()",),
    "trainable-copy-in-a-loop": ("a.detach().clone().requires_grad_(True)",),
    "deepcopy-as-trainable-copy": ("a.grad",),
    "leaf-view-inplace-refused-in-grad-mode": ("a.view(dtype)",),
    "share-memory-leaves-early-array": ("a.share_memory_()",),
    "inference-tensor-alias-edit-routes": ("a.detach()[0] = 9", "a.detach()[:] = v", "a.detach()[-3:] = v",
                                           "a.detach()[:, [0, 1]] = v", "a.detach()[[0, 1], 1:] = v",
                                           "a.detach()[mask, 0] = v", "a.detach()[False] = v",
                                           "a.detach()[torch.tensor(False)] = v", "a.detach()[:].mul_(10)",
                                           "a.detach()[:] += v"),
    "inference-tensor-alias-0d-mask-read-copies": ("a.detach()[torch.tensor(True)] = v", "a.detach()[True] = v",
                                                   "a.detach()[torch.tensor(True)].mul_(10)"),
}
