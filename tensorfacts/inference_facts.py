"""Named facts on which tensors ``torch.inference_mode()`` makes inference tensors: the outputs of modules
run there, and the views, ``detach()`` and ``.data`` of a normal tensor taken there. They stand behind the
glossary's definitions (``sitetools/terms.py``, ``CHECKED_BY``), the matrix page and its guide. The facts on
what an inference tensor refuses are in :mod:`tensorfacts.facts`. Registered on import by
:mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, fact


@fact("inference-mode-outputs", {
    "en": "Under torch.inference_mode(), on a normal (2, 3) input x: Linear(3, 3) and ReLU() return inference tensors; "
          "Identity(), Dropout() in eval mode and Flatten() return x itself, a normal tensor; ReLU(inplace=True) "
          "returns its input itself, still a normal tensor, now holding the ReLU of its old values.",
    "zh_CN": "在 torch.inference_mode() 下，对普通的 (2, 3) 输入 x：Linear(3, 3) 和 ReLU() 返回推理张量；Identity()、"
             "eval 模式的 Dropout() 和 Flatten() 返回 x 本身，一个普通张量；ReLU(inplace=True) 返回它的输入本身，"
             "仍是普通张量，里面的值已换成原值经 ReLU 的结果。",
}, {"en": "the six modules it names, float32, on the CPU", "zh_CN": "它列出的六个模块，float32，在 CPU 上"})
def _inference_mode_outputs() -> Fact:
    x = torch.ones(2, 3)
    computing = {"Linear": torch.nn.Linear(3, 3), "ReLU": torch.nn.ReLU()}
    passing = {"Identity": torch.nn.Identity(), "Dropout (eval)": torch.nn.Dropout().eval(),
               "Flatten": torch.nn.Flatten()}
    written = torch.tensor([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]])
    with torch.inference_mode():
        computed = {name: module(x).is_inference() for name, module in computing.items()}
        passed = {name: module(x) is x for name, module in passing.items()}
        in_place = torch.nn.ReLU(inplace=True)(written)
    in_place_kept = in_place is written and not written.is_inference() and written.tolist() == [
        [0.0, 2.0, 0.0], [4.0, 0.0, 6.0]]
    return Fact(all(computed.values()) and all(passed.values()) and not x.is_inference() and in_place_kept,
                f"inference tensors: {computed}; the input itself: {passed}; ReLU(inplace=True) returns its normal "
                f"input, written: {in_place_kept}")


#: Views of a normal tensor taken inside inference mode that are inference tensors: ``view`` with a dtype.
DTYPE_VIEWS = ("a.view(torch.int32)", "a.view(torch.float32)", "z.view(torch.float64)")
#: Every view operation of the views table, ``.data``, and ``view`` with a dtype (another one or its own).
VIEW_ROWS = view_ops.VIEWS + tuple(view_ops.Row(code, "") for code in ("a.data", *DTYPE_VIEWS))
#: The normal sources: as made, a leaf that requires grad, and a non-leaf that requires grad.
NORMAL_KINDS = ("plain", "leaf", "non-leaf")


def _normal(row: view_ops.Row, kind: str) -> torch.Tensor:
    source = view_ops.make_source(row.source, "contiguous", grad=kind == "non-leaf")
    return source.requires_grad_() if kind == "leaf" else source


@fact("inference-mode-views-of-normal-tensor", {
    "en": "Inside torch.inference_mode(), takes each view operation of the views table (indexing, view(shape), t(), "
          "transpose, expand, unbind, real, view_as_real, detach() ...), .data and view with a dtype (int32 and its "
          "own float32 of a float32 tensor, float64 of a complex64 one) of a normal tensor: only the three "
          "view(dtype) results are inference tensors.",
    "zh_CN": "在 torch.inference_mode() 里，对普通张量执行视图表中的每个视图操作（索引、view(shape)、t()、transpose、"
             "expand、unbind、real、view_as_real、detach() 等）、.data 以及带 dtype 的 view（对 float32 张量取 int32 "
             "和它自己的 float32，对 complex64 张量取 float64）：只有这三个 view(dtype) 的结果是推理张量。",
}, {"en": f"{len(VIEW_ROWS)} operations, each on a plain tensor, a leaf that requires grad and a non-leaf that "
          "requires grad (float32, complex64, a sparse tensor), on the CPU",
    "zh_CN": f"{len(VIEW_ROWS)} 个操作，各自作用在普通张量、需要梯度的叶子张量和需要梯度的非叶子张量上"
             "（float32、complex64、稀疏张量），在 CPU 上"})
def _inference_mode_views_of_normal_tensor() -> Fact:
    inference = []
    for kind in NORMAL_KINDS:
        for row in VIEW_ROWS:
            source = _normal(row, kind)
            with torch.inference_mode():
                result = view_ops.apply(row, source)
            if result.is_inference() or source.is_inference():
                inference.append((kind, row.code))
    expected = [(kind, code) for kind in NORMAL_KINDS for code in DTYPE_VIEWS]
    return Fact(inference == expected, f"inference tensors among {len(VIEW_ROWS)} operations on each source: "
                f"{sorted({code for _, code in inference})}, on {sorted({kind for kind, _ in inference})}")
