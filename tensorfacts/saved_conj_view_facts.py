"""Named fact on a saved conjugate transpose (``.mH``, ``.H``, ``adjoint()``) edited in place: the error names
``Conj`` for a complex tensor, ``AsStrided`` for a real one. It stands beside ``saved-view-edit-error`` behind
question 01's sentences on the operation the message names. Registered on import by :mod:`tensorfacts.facts`,
whose docstring says what a fact is.
"""

from __future__ import annotations

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.saved_view_facts import _edited_saved_view
from tensorfacts.tensors import VERSION_ERROR

#: The conjugate transposes, and the plain transposes of the same complex tensor.
CONJ_TRANSPOSES = {"mH": lambda t: t.mH, "H": lambda t: t.H, "adjoint()": lambda t: t.adjoint()}
TRANSPOSES = {"mT": lambda t: t.mT, "t()": lambda t: t.t()}


@fact("saved-conj-transpose-edit-error", {
    "en": "Saves x with z = x * x, x being c.mH, c.H or c.adjoint() of the complex c = base * (1 + 1j), base a 2×3 "
          "non-leaf that requires grad, or the same of c[1:], edits x or c with mul_(2), recorded, under "
          "torch.no_grad() or through detach(), and runs backward(): the error names \"output 0 of Conj\"; for the "
          "slice [1:] of c.mH, c.H and c.adjoint(), for c.mT and c.t(), and for base.mH, base.H and base.adjoint() of "
          "the real base, it names \"output 0 of AsStrided\".",
    "zh_CN": "base 是需要梯度的 2×3 非叶子张量，c = base * (1 + 1j) 是复数张量，x 取 c.mH、c.H 或 c.adjoint()，"
             "或对 c[1:] 做的同样操作：用 z = x * x 保存 x，再用 mul_(2) 修改 x 或 c（被记录、在 torch.no_grad() "
             "下，或经由 detach()），然后运行 backward()，报错点名“output 0 of Conj”；对 c.mH、c.H 和 c.adjoint() "
             "各自的切片 [1:]，对 c.mT 和 c.t()，以及实数张量 base 的 base.mH、base.H 和 base.adjoint()，报错点名"
             "“output 0 of AsStrided”。",
}, {
    "en": "mH, H and adjoint() of a 2×3 complex64 non-leaf on the CPU, each also of a slice and sliced, mT and t() of "
          "it, and mH, H and adjoint() of a 2×3 float32 non-leaf; each edit of the view or its base recorded, under "
          "torch.no_grad() and through detach()",
    "zh_CN": "CPU 上 2×3 complex64 非叶子张量的 mH、H 和 adjoint()（每种也都取自切片，或再取切片），它的 mT 和 "
             "t()，以及 2×3 float32 非叶子张量的 mH、H 和 adjoint()；对视图或其基张量的每种修改都分别在被记录时、"
             "torch.no_grad() 下和经由 detach() 运行",
})
def _saved_conj_transpose_edit_error() -> Fact:
    """An edited saved conjugate transpose names Conj when the tensor is complex (also of a slice); a slice of it, a
    transpose, or a conjugate transpose of a real tensor, names AsStrided."""
    cases = [(f"c.{name}", view, "complex", "Conj") for name, view in CONJ_TRANSPOSES.items()]
    for name, view in CONJ_TRANSPOSES.items():
        cases += [(f"c[1:].{name}", lambda c, v=view: v(c[1:]), "complex", "Conj"),
                  (f"c.{name}[1:]", lambda c, v=view: v(c)[1:], "complex", "AsStrided")]
    cases += [(f"c.{name}", view, "complex", "AsStrided") for name, view in TRANSPOSES.items()]
    cases += [(f"base.{name}", view, "real", "AsStrided") for name, view in CONJ_TRANSPOSES.items()]
    edits = [(edit_view, recorded, detached) for edit_view in (False, True)
             for recorded, detached in ((True, False), (False, False), (True, True))]
    wrong = [f"{name} {edit}: {error}" for name, view, kind, node in cases for edit in edits
             if VERSION_ERROR not in (error := _edited_saved_view(view, *edit, kind))
             or f"which is output 0 of {node}," not in error]
    return Fact(not wrong, f"{len(cases)} views, {len(edits)} edits each; differ: {wrong or 'none'}")
