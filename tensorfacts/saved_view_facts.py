"""Named fact on a saved view edited in place, behind question 01's sentences on the operation the message names:
"output 0 of AsStrided" for a single-output view, the view's own operation for view_as_real, view_as_complex or
conj() taken last, and autograd's error on views whose base was edited for an output of unbind, split or chunk, a view
taken with grad mode off, and views taken of these. Registered on import by :mod:`tensorfacts.facts`, whose docstring
says what a fact is.
"""

from __future__ import annotations

import itertools
import math

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import VERSION_ERROR, backward_error

#: Views of a 2×3 base that autograd saves: single-output views, and an output of unbind, split and chunk.
_SINGLE_VIEWS = {
    "base[1:]": lambda b: b[1:], "base.t()": lambda b: b.t(), "base.view(3, 2)": lambda b: b.view(3, 2),
    "base[0]": lambda b: b[0], "base.diagonal()": lambda b: b.diagonal(), "base.unsqueeze(0)": lambda b: b.unsqueeze(0),
    "base.permute(1, 0)": lambda b: b.permute(1, 0),
}
_MULTI_VIEWS = {"base.unbind()[0]": lambda b: b.unbind()[0], "base.split(1)[0]": lambda b: b.split(1)[0],
                "base.chunk(2)[0]": lambda b: b.chunk(2)[0]}
_MULTI_VIEW_ERROR = "is a view and its base or another view of its base has been modified inplace"


def _taken_with_grad_off(mode, b: torch.Tensor) -> torch.Tensor:
    with mode():
        return b[0]


#: Views taken with grad mode on of an output of ``_MULTI_VIEWS`` or of a view taken with grad mode off: they
#: keep the refusals of the view they are taken of. The error reads "... is a view of a view which was created in
#: no_grad mode (in inference mode) and ..." for the last two; the part shared by all is checked.
_VIEWS_OF_REFUSING_VIEWS = {
    "base.split(1)[0][:]": lambda b: b.split(1)[0][:], "base.chunk(2)[0].t()": lambda b: b.chunk(2)[0].t(),
    "base.unbind()[0].view(3)": lambda b: b.unbind()[0].view(3),
    "base[0] under torch.no_grad(), then [:2]": lambda b: _taken_with_grad_off(torch.no_grad, b)[:2],
    "base[0] under torch.inference_mode(), then [:2]": lambda b: _taken_with_grad_off(torch.inference_mode, b)[:2],
}
_VIEW_OF_VIEW_ERROR = "its base or another view of its base has been modified inplace"
#: The bases the refusing views are taken of: the non-leaf of the other views, a leaf that requires grad, a Parameter.
_SAVED_BASES = {
    "non-leaf": None,
    "leaf": lambda: torch.arange(6.0).reshape(2, 3).sin().requires_grad_(),
    "Parameter": lambda: torch.nn.Parameter(torch.arange(6.0).reshape(2, 3).sin()),
}
#: Views that change the dtype or how the elements read, of the base each takes: the operation the error names.
#: The last view taken decides: view_as_real, view_as_complex and conj() name their own operation, even of a slice;
#: .real, .imag and a slice of any of these views name AsStrided.
_DTYPE_VIEWS = {
    "torch.view_as_real(c)": (torch.view_as_real, "complex", "ViewAsReal"),
    "c.conj()": (torch.conj, "complex", "Conj"),
    "torch.view_as_complex(p)": (torch.view_as_complex, "pairs", "ViewAsComplex"),
    "torch.view_as_real(c[1:])": (lambda c: torch.view_as_real(c[1:]), "complex", "ViewAsReal"),
    "c[1:].conj()": (lambda c: c[1:].conj(), "complex", "Conj"),
    "torch.view_as_complex(p[1:])": (lambda p: torch.view_as_complex(p[1:]), "pairs", "ViewAsComplex"),
    "c.real": (lambda c: c.real, "complex", "AsStrided"),
    "c.imag": (lambda c: c.imag, "complex", "AsStrided"),
    "c[1:].real": (lambda c: c[1:].real, "complex", "AsStrided"),
    "c[1:].imag": (lambda c: c[1:].imag, "complex", "AsStrided"),
    "c.real[1:]": (lambda c: c.real[1:], "complex", "AsStrided"),
    "c.imag[1:]": (lambda c: c.imag[1:], "complex", "AsStrided"),
    "torch.view_as_real(c)[1:]": (lambda c: torch.view_as_real(c)[1:], "complex", "AsStrided"),
    "c.conj()[1:]": (lambda c: c.conj()[1:], "complex", "AsStrided"),
    "torch.view_as_complex(p)[1:]": (lambda p: torch.view_as_complex(p)[1:], "pairs", "AsStrided"),
}


def _edited_saved_view(view, edit_view: bool, recorded: bool, detached: bool = False, kind: str = "real",
                       source=None) -> str:
    """Save ``x = view(base)`` with ``z = x * x``, edit ``x`` or ``base`` (or its ``detach()``, in grad mode); the
    error of the edit, else of backward().
    The base is 2×3 and real, or complex (``c``), or 2×3×2 (``p``, pairs for ``view_as_complex``); a non-leaf,
    unless ``source`` makes it."""
    with torch.enable_grad():
        shape = (2, 3, 2) if kind == "pairs" else (2, 3)
        base = source() if source else torch.arange(float(math.prod(shape)), requires_grad=True).reshape(shape).sin()
        base = base * (1 + 1j) if kind == "complex" else base
        x = view(base)
        z = x * x
    target = x if edit_view else base
    try:
        with torch.enable_grad() if recorded else torch.no_grad():
            (target.detach() if detached else target).mul_(2)
    except RuntimeError as exc:
        return f"edit: {str(exc).splitlines()[0]}"
    return backward_error(torch.view_as_real(z).sum() if z.is_complex() else z.sum())


@fact("saved-view-edit-error", {
    "en": "Saves x, a view of base (a 2×3 non-leaf that requires grad), with z = x * x, edits x or base with mul_(2), "
          "recorded, under torch.no_grad() or through detach(), and runs backward(): for the single-output views "
          "base[1:], base.t(), base.view(3, 2), base[0], base.diagonal(), base.unsqueeze(0) and base.permute(1, 0), "
          "the error names \"output 0 of AsStrided\"; for views that change the dtype or how the elements read, of the "
          "complex c = base * (1 + 1j) or of a 2×3×2 non-leaf p, the last view taken decides: torch.view_as_real(c), "
          "c.conj() and torch.view_as_complex(p), and the same of c[1:] or p[1:], name their own operation, \"output 0 "
          "of ViewAsReal\", \"output 0 of Conj\" and \"output 0 of ViewAsComplex\", while c.real and c.imag, also of "
          "c[1:], and the slice [1:] of each of these five views name \"output 0 of AsStrided\"; for base.unbind()[0], "
          "base.split(1)[0] and base.chunk(2)[0], for the views base.split(1)[0][:], base.chunk(2)[0].t() and "
          "base.unbind()[0].view(3) of such outputs, and for v[:2] where v = base[0] is taken under torch.no_grad() "
          "or torch.inference_mode(), each of these also with base a leaf that requires grad or a Parameter (then with "
          "no recorded edit of base), an edit of base, or of x under torch.no_grad() or "
          "through detach(), makes backward() raise \"... its base or another view of its base has been modified "
          "inplace\" (\"... is a view and its base or another view ...\" for the three outputs themselves), and a "
          "recorded edit of x raises at once.",
    "zh_CN": "base 是需要梯度的 2×3 非叶子张量，x 是它的一个视图：用 z = x * x 保存 x，再用 mul_(2) 修改 x 或 base"
             "（被记录、在 torch.no_grad() 下，或经由 detach()），然后运行 backward()。对单输出的视图 base[1:]、"
             "base.t()、base.view(3, 2)、base[0]、base.diagonal()、base.unsqueeze(0) 和 base.permute(1, 0)，报错点名"
             "“output 0 of AsStrided”；对改变 dtype 或元素解释方式的视图（取自复数张量 c = base * (1 + 1j) "
             "或 2×3×2 非叶子张量 p），由最后取的那个视图决定：torch.view_as_real(c)、c.conj() 和 "
             "torch.view_as_complex(p)，以及对 c[1:] 或 p[1:] 做的同样操作，报错点名它们自己的运算："
             "“output 0 of ViewAsReal”“output 0 of Conj”和“output 0 of ViewAsComplex”；c.real 和 c.imag"
             "（也包括 c[1:] 的），以及这五种视图各自的切片 [1:]，报错点名“output 0 of AsStrided”；"
             "对 base.unbind()[0]、base.split(1)[0] 和 base.chunk(2)[0]，对这类输出的视图 base.split(1)[0][:]、"
             "base.chunk(2)[0].t() 和 base.unbind()[0].view(3)，以及 v[:2]（v = base[0] 在 torch.no_grad() 或 "
             "torch.inference_mode() 下取得），base 也分别换成需要梯度的叶子张量和 Parameter（这时"
             "不做被记录的对 base 的修改），修改 base，或在 torch.no_grad() 下或经由 detach() 修改 x，"
             "backward() 报的是“... its base or another view of its base has been modified inplace”（三个输出本身报"
             "“... is a view and its base or another view ...”），被记录的对 x 的修改则当场报错。",
}, {
    "en": "seven single-output views and an output of each of unbind, split and chunk, of a 2×3 float32 non-leaf on "
          "the CPU, the three outputs, three views of them and a slice of a view taken under torch.no_grad() or "
          "torch.inference_mode() also of a 2×3 float32 leaf that requires grad and of a Parameter, and fifteen "
          "views that change the dtype or how the elements read (of a complex64 or a 2×3×2 "
          "float32 non-leaf: view_as_real, conj(), view_as_complex, .real and .imag, each also of a slice and "
          "sliced); each edit recorded, under torch.no_grad() and through detach()",
    "zh_CN": "CPU 上 2×3 float32 非叶子张量的七种单输出视图，以及 unbind、split、chunk 各一个输出；"
             "这三个输出、它们的三种视图，以及在 torch.no_grad() 或 torch.inference_mode() 下取得的视图的切片，"
             "也分别取自需要梯度的 2×3 float32 叶子张量和 Parameter；"
             "再加上十五种改变 dtype 或元素解释方式的视图（取自 complex64 或 2×3×2 float32 非叶子张量：view_as_real、"
             "conj()、view_as_complex、.real 和 .imag，每种也都取自切片，或再取切片）；"
             "每种修改都分别在被记录时、torch.no_grad() 下和经由 detach() 运行",
})
def _saved_view_edit_error() -> Fact:
    """An edited saved view: "output 0 of AsStrided" for a single-output view, .real, .imag and a slice of any
    view; its own operation for view_as_real, view_as_complex or conj() taken last; the multi-view error for an
    output of unbind/split/chunk."""
    edits = [(edit_view, recorded, detached) for edit_view in (False, True)
             for recorded, detached in ((True, False), (False, False), (True, True))]
    wrong = [f"{name} {edit}: {error}" for name, view in _SINGLE_VIEWS.items() for edit in edits
             if VERSION_ERROR not in (error := _edited_saved_view(view, *edit)) or "output 0 of AsStrided" not in error]
    wrong += [f"{name} {edit}: {error}" for name, (view, kind, node) in _DTYPE_VIEWS.items() for edit in edits
              if VERSION_ERROR not in (error := _edited_saved_view(view, *edit, kind))
              or f"which is output 0 of {node}," not in error]
    multi = [(name, view, _MULTI_VIEW_ERROR) for name, view in _MULTI_VIEWS.items()]
    multi += [(name, view, _VIEW_OF_VIEW_ERROR) for name, view in _VIEWS_OF_REFUSING_VIEWS.items()]
    runs = 0
    for (name, view, after_save), (base_kind, source) in itertools.product(multi, _SAVED_BASES.items()):
        for edit_view, recorded, detached in edits:
            if source and not (edit_view or detached or not recorded):
                continue  # a recorded edit of a leaf that requires grad is another refusal
            error = _edited_saved_view(view, edit_view, recorded, detached, source=source)
            runs += 1
            at_once = edit_view and recorded and not detached  # the refusal of "multi-view-outputs-share-one-node"
            expected = "and is being modified inplace" if at_once else after_save
            if error.startswith("edit: ") != at_once or expected not in error:
                wrong.append(f"{name} of a {base_kind} {(edit_view, recorded, detached)}: {error}")
    return Fact(not wrong, f"{len(_SINGLE_VIEWS) + len(_DTYPE_VIEWS)} views, {len(edits)} edits each; "
                           f"{len(multi)} views of outputs of unbind, split and chunk or taken with grad mode off, "
                           f"on {len(_SAVED_BASES)} bases, {runs} edits in all; differ: {wrong or 'none'}")
