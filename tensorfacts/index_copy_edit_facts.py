"""The named fact behind the index-writes question page's opening: an in-place call on ``x[idx]``, where the
index is a list of Python integers, an ``int64`` index tensor or a boolean mask, edits a copy and leaves a dense
``x`` as it was, with no error and no warning, and checks its arguments against that copy. Registered on import
by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import SHAPE_ERRORS

#: The dtypes of ``x``: the four floating ones that are not float8 (whose add_ has no kernel), integer, boolean
#: and complex.
DTYPES = (torch.float16, torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.bool, torch.complex64)
#: The grad modes the calls run in.
MODES = {"grad mode on": torch.enable_grad, "torch.no_grad()": torch.no_grad,
         "torch.inference_mode()": torch.inference_mode}
#: The in-place calls made on the copy ``x[idx]`` (``logical_not_()`` stands for ``add_(1)`` on ``bool``).
CALLS: dict[str, Callable[[torch.Tensor], object]] = {
    "add_(1)": lambda t: t.logical_not_() if t.dtype == torch.bool else t.add_(1),
    "zero_()": lambda t: t.zero_(),
    "fill_(1)": lambda t: t.fill_(1),
    "index_put_ with a repeated index": lambda t: t.index_put_(
        (torch.tensor([0, 0], device=t.device),), torch.ones((), dtype=t.dtype, device=t.device), accumulate=True),
}


def _indices(device: str) -> dict[str, object]:
    """The three kinds of index, each picking fewer elements of a 4-element ``x`` than it has."""
    return {"a list [0, 2, 2]": [0, 2, 2], "an int64 index [0, 2, 2]": torch.tensor([0, 2, 2], device=device),
            "a 2-D int64 index [[0], [2]]": torch.tensor([[0], [2]], device=device),
            "a mask": torch.tensor([True, False, True, False], device=device)}


def _sources(dtype: torch.dtype, device: str) -> dict[str, Callable[[], torch.Tensor]]:
    """A fresh ``x`` of each kind: plain and inference, and for a dtype that can require grad a leaf that does,
    a non-leaf, a ``Parameter`` and a view of a leaf."""
    values = [1.0, 0.0, 1.0, 1.0]

    def inference() -> torch.Tensor:
        with torch.inference_mode():
            return torch.tensor(values, dtype=dtype, device=device)

    made = {"plain": lambda: torch.tensor(values, dtype=dtype, device=device), "inference tensor": inference}
    if dtype.is_floating_point or dtype.is_complex:
        made |= {"leaf": lambda: torch.tensor(values, dtype=dtype, device=device, requires_grad=True),
                 "non-leaf": lambda: torch.tensor(values, dtype=dtype, device=device, requires_grad=True) * 1,
                 "Parameter": lambda: torch.nn.Parameter(torch.tensor(values, dtype=dtype, device=device)),
                 "view of a leaf": lambda: torch.tensor([0.0, *values], dtype=dtype, device=device,
                                                        requires_grad=True)[1:]}
    return made


def _edit_copy(x: torch.Tensor, index: object, call: Callable[[torch.Tensor], object], mode) -> str | None:
    """Run ``call(x[index])`` in ``mode``: None when it ran with no warning and left ``x`` as it was (its values off
    meta; its ``_version``, which reading raises on an inference tensor and on no other)."""
    before = None if x.device.type == "meta" else x.detach().clone()
    try:
        version = x._version
    except RuntimeError:  # an inference tensor keeps no version counter
        version = None
    if (version is None) != x.is_inference():
        return f"inference tensor {x.is_inference()}, yet _version read {version}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mode():
            try:
                call(x[index])
            except RuntimeError as e:
                return f"raised {str(e).splitlines()[0][:70]}"
    if caught:
        return f"warned {caught[0].message}"
    if (before is not None and not torch.equal(x.detach(), before)) or (version is not None and x._version != version):
        return "changed x"
    return None


def _indexing_raises(x: torch.Tensor, index: object, mode) -> bool:
    """Whether ``x[index]`` itself raises in ``mode`` (a boolean mask on meta, whose count of True is a value)."""
    try:
        with mode():
            x[index]
    except (RuntimeError, NotImplementedError):
        return True
    return False


def _shape_refused(x: torch.Tensor, index: object) -> bool:
    """``x[index].add_(torch.ones(4))`` raises a shape error where ``x.clone().add_(torch.ones(4))`` runs."""
    x.clone().add_(torch.ones(4, dtype=x.dtype, device=x.device))
    try:
        x[index].add_(torch.ones(4, dtype=x.dtype, device=x.device))
    except RuntimeError as e:
        return any(error in str(e) for error in SHAPE_ERRORS)
    return False


@fact("index-copy-edit-leaves-x", {
    "en": "Makes x of 4 elements (plain, an inference tensor, and in the floating and complex dtypes a leaf that "
          "requires grad, a non-leaf, a Parameter and a view of a leaf) and calls add_(1) (logical_not_() on "
          "bool), zero_(), fill_(1) and index_put_ with the index [0, 0] and accumulate=True on x[idx], for idx a "
          "list [0, 2, 2], an int64 index tensor [0, 2, 2], a 2-D one [[0], [2]] and a boolean mask, with grad mode "
          "on, under torch.no_grad() and inside torch.inference_mode(): each call raises no error and no warning, "
          "and x keeps its values (on the CPU: a meta tensor holds none) and its _version (but for the inference "
          "tensor, whose _version raises RuntimeError when read). Then x[idx].add_(torch.ones(4)) raises a shape "
          "error for each index, where x.clone().add_(torch.ones(4)) runs; on meta the mask raises already at the "
          "indexing.",
    "zh_CN": "构造 4 个元素的 x（普通张量、推理张量，浮点和复数 dtype 下还有需要梯度的叶子张量、非叶子张量、"
             "Parameter 和叶子张量的视图），对 x[idx] 调用 add_(1)（bool 上改用 logical_not_()）、zero_()、"
             "fill_(1)，以及索引为 [0, 0]、accumulate=True 的 index_put_；idx 取列表 [0, 2, 2]、"
             "int64 索引张量 [0, 2, 2]、二维的 [[0], [2]] 和布尔掩码，分别在梯度模式下、torch.no_grad() 里和 "
             "torch.inference_mode() 里执行：每次调用都不报错也不警告，x 的数值（在 CPU 上；meta 张量不存数值）"
             "和 _version（推理张量除外：读取它的 _version 会抛出 RuntimeError）都不变。"
             "再对每种索引执行 x[idx].add_(torch.ones(4))，报形状错误，而 x.clone().add_(torch.ones(4)) "
             "正常运行；在 meta 上，掩码在索引这一步就报错。",
}, {"en": f"{len(CALLS)} in-place calls, 4 indices and 3 grad modes on x of up to 6 kinds in each of "
          f"{len(DTYPES)} dtypes ({', '.join(str(d).removeprefix('torch.') for d in DTYPES)}), on the CPU and on "
          "the meta device (the mask, on meta, at the indexing only); the shape error on a plain float32 x",
    "zh_CN": f"{len(CALLS)} 种原地调用、4 种索引、3 种梯度模式，x 最多 6 种，dtype 共 {len(DTYPES)} 种"
             f"（{'、'.join(str(d).removeprefix('torch.') for d in DTYPES)}），在 CPU 上和 meta 设备上"
             "（meta 上的掩码只检查索引这一步）；形状错误在 float32 的普通张量 x 上检查"})
def _index_copy_edit_leaves_x() -> Fact:
    wrong = []
    for device in ("cpu", "meta"):
        for dtype in DTYPES:
            for source, make in _sources(dtype, device).items():
                for index_name, index in _indices(device).items():
                    if device == "meta" and index_name == "a mask":  # raises already at the indexing
                        wrong += [f"x[a mask], {source} {dtype} meta, {mode_name}: did not raise"
                                  for mode_name, mode in MODES.items() if not _indexing_raises(make(), index, mode)]
                        continue
                    for call_name, call in CALLS.items():
                        for mode_name, mode in MODES.items():
                            if problem := _edit_copy(make(), index, call, mode):
                                wrong.append(f"{call_name} on x[{index_name}], {source} {dtype} {device}, "
                                             f"{mode_name}: {problem}")
        plain = torch.tensor([1.0, 0.0, 1.0, 1.0], device=device)
        refused = [name for name, index in _indices(device).items()
                   if not (device == "meta" and name == "a mask") and not _shape_refused(plain, index)]
        wrong += [f"x[{name}].add_(torch.ones(4)) on {device}: no shape error" for name in refused]
    return Fact(not wrong, f"not as stated: {wrong[:4] or 'none'}")
