"""Named facts on the tensors that share an inference tensor's storage outside ``torch.inference_mode()``: its
``detach()`` and ``.data`` (inference tensors too, with a version counter) and ``copy.copy`` (a normal tensor),
and which in-place edits through them raise. They stand behind the matrix guide's entries on inference tensors
(:mod:`tensorfacts.matrix`) and the matrix page. Registered on import by :mod:`tensorfacts.facts`, whose docstring
says what a fact is.
"""

from __future__ import annotations

import copy
import re

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.inference_facts import INPLACE_ERROR, inference_tensor, linear_output

#: Tensors made outside the mode that share the storage of an inference tensor ``a`` and are inference tensors
#: too, with a version counter: an edit through a view of them raises.
INFERENCE_ALIASES = {"a.detach()": lambda a: a.detach(), "a.data": lambda a: a.data,
                     "a.detach().detach()": lambda a: a.detach().detach(), "a.data.detach()": lambda a: a.data.detach()}
_ROUTES = {"a": lambda a: a, "a.detach()": lambda a: a.detach(), "a.data": lambda a: a.data}


def _view_dtype(route, dtype):
    return lambda a: route(a).view(dtype)


#: Normal tensors made outside the mode that share its storage: no edit through them raises.
NORMAL_ALIASES = {"copy.copy(a)": copy.copy,
                  **{f"{name}.view(torch.{dtype})": _view_dtype(route, getattr(torch, dtype))
                     for dtype in ("float32", "int32") for name, route in _ROUTES.items()}}
ALIASES = {**INFERENCE_ALIASES, **NORMAL_ALIASES}
#: The edits below that an int32 tensor does not take (a float value into index_put_, a random normal fill).
NOT_INT32 = ("b.index_put_((torch.tensor([0]),), torch.tensor(9.0))", "torch.nn.init.orthogonal_(b) (seeded)")


def _seeded_orthogonal(b: torch.Tensor) -> None:
    """``torch.nn.init.orthogonal_(b)`` with a seed of its own, leaving the global random state as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        torch.nn.init.orthogonal_(b)


def _set(index):
    return lambda b: b.__setitem__(index, 0.0)


def _add_one(index):
    """The statement ``b[index] += 1``: Python reads ``b[index]``, runs ``+=`` on it, then assigns it back."""
    def edit(b):
        b[index] += 1
    return edit


#: Edits of a tensor ``b`` of three values that torch carries out on ``b`` itself: it takes no view of ``b``.
ON_ITSELF = {
    "b.mul_(10)": lambda b: b.mul_(10), "b.add_(1)": lambda b: b.add_(1), "b += 1": lambda b: b.__iadd__(1),
    "b.zero_()": lambda b: b.zero_(), "b.copy_(torch.zeros(3))": lambda b: b.copy_(torch.zeros(3)),
    "b.index_put_((torch.tensor([0]),), torch.tensor(9.0))": lambda b: b.index_put_((torch.tensor([0]),),
                                                                                      torch.tensor(9.0)),
    "b[torch.tensor([True, False, True])] = 0": _set(torch.tensor([True, False, True])),
    "b[[0, 2]] = 0": _set([0, 2]), "b[torch.tensor([0, 2])] = 0": _set(torch.tensor([0, 2])),
    "b[torch.tensor([[0, 2]])] = 0": _set(torch.tensor([[0, 2]])), "b[:] = 0": _set(slice(None)),
    "b[0:3] = 0": _set(slice(0, 3)),
    "b[0:] = 0": _set(slice(0, None)), "b[:3] = 0": _set(slice(None, 3)), "b[0:100] = 0": _set(slice(0, 100)),
    "b[::1] = 0": _set(slice(None, None, 1)), "b[...] = 0": _set(Ellipsis),
}
#: Edits of ``b`` that torch carries out through a view of it: one the caller takes (by an index, or a view method)
#: or one the call takes inside.
THROUGH_A_VIEW = {
    "b[0] = 9": lambda b: b.__setitem__(0, 9.0),
    "b[torch.tensor(0)] = 9": lambda b: b.__setitem__(torch.tensor(0), 9.0),
    "b[1:] = 0": _set(slice(1, None)), "b[None] = 0": _set(None),
    "b[:2] = 0": _set(slice(None, 2)), "b[::2] = 0": _set(slice(None, None, 2)),
    "b[-3:] = 0": _set(slice(-3, None)), "b[-5:] = 0": _set(slice(-5, None)), "b[-3:3] = 0": _set(slice(-3, 3)),
    "b[True] = 0": _set(True), "b[torch.tensor(True)] = 0": _set(torch.tensor(True)),
    "b[1:].mul_(10)": lambda b: b[1:].mul_(10), "b[0].add_(1)": lambda b: b[0].add_(1),
    "b.view(3).mul_(10)": lambda b: b.view(3).mul_(10), "b.t().mul_(10)": lambda b: b.t().mul_(10),
    "b.unsqueeze(0).mul_(10)": lambda b: b.unsqueeze(0).mul_(10),
    "b.reshape(3).mul_(10)": lambda b: b.reshape(3).mul_(10),
    "b.narrow(0, 1, 2).mul_(10)": lambda b: b.narrow(0, 1, 2).mul_(10),
    "b.as_strided((2,), (1,)).mul_(10)": lambda b: b.as_strided((2,), (1,)).mul_(10),
    "b.unbind()[0].add_(1)": lambda b: b.unbind()[0].add_(1),
    "b[:].mul_(10)": lambda b: b[:].mul_(10), "b[0:].mul_(10)": lambda b: b[0:].mul_(10),
    "b[...].mul_(10)": lambda b: b[...].mul_(10), "b[:] += 1": _add_one(slice(None)),
}
#: The same two kinds of edit on a (3, 3) ``b``.
ON_ITSELF_2D = {"b[:, :] = 0": _set((slice(None), slice(None))), "b[..., :] = 0": _set((Ellipsis, slice(None))),
                "b[:, 0:] = 0": _set((slice(None), slice(0, None))),
                "b[b > 4] = 0": lambda b: b.__setitem__(b > 4, 0.0),
                "b[:, [0, 1]] = 0": _set((slice(None), [0, 1])), "b[[0, 1], :] = 0": _set(([0, 1], slice(None))),
                "b[:, torch.tensor([0, 1])] = 0": _set((slice(None), torch.tensor([0, 1]))),
                "b[torch.tensor([0, 1]), [0, 1]] = 0": _set((torch.tensor([0, 1]), [0, 1])),
                "b[torch.tensor([True, False, True]), :] = 0": _set((torch.tensor([True, False, True]), slice(None)))}
THROUGH_A_VIEW_2D = {"b[:, -3:] = 0": _set((slice(None), slice(-3, None))),
                     "b.fill_diagonal_(0)": lambda b: b.fill_diagonal_(0.0),
                     "torch.nn.init.orthogonal_(b) (seeded)": _seeded_orthogonal,
                     "b[[0, 1], 1:] = 0": _set(([0, 1], slice(1, None))), "b[0, [0, 1]] = 0": _set((0, [0, 1])),
                     "b[torch.tensor([0, 1]), 1:] = 0": _set((torch.tensor([0, 1]), slice(1, None))),
                     "b[torch.tensor(0), :] = 0": _set((torch.tensor(0), slice(None))),
                     "b[torch.tensor([True, False, True]), 0] = 0": _set((torch.tensor([True, False, True]), 0)),
                     "b[:, :].mul_(10)": lambda b: b[:, :].mul_(10), "b[...].mul_(10)": lambda b: b[...].mul_(10),
                     "b[:] += 1": _add_one(slice(None)), "b[:, :] += 1": _add_one((slice(None), slice(None)))}
#: The names of the edits in the Chinese text.
ZH_NAMES = {" (seeded)": "（固定随机种子）"}


def _zh(names) -> str:
    joined = "、".join(names)
    for english, chinese in ZH_NAMES.items():
        joined = joined.replace(english, chinese)
    return joined


#: An assignment that writes nothing: a Python False as the whole index selects no element, and no view is taken.
WRITES_NOTHING = {"b[False] = 0": _set(False)}
#: An assignment that writes nothing yet takes a view first: a 0-d tensor mask of False (an ``unsqueeze`` of ``b``).
RAISES_WRITING_NOTHING = {"b[torch.tensor(False)] = 0": _set(torch.tensor(False))}
#: Inference tensors made inside the mode, by a factory and as the output of a Linear(3, 3): three values, and 3 × 3.
ORIGINS = {"torch.tensor([1., 2., 3.])": lambda: torch.tensor([1.0, 2.0, 3.0]),
           "a Linear(3, 3) output": linear_output}
ORIGINS_2D = {"torch.arange(1., 10.).view(3, 3)": lambda: torch.arange(1.0, 10.0).view(3, 3),
              "a Linear(3, 3) output on a (3, 3) input": lambda: linear_output((3, 3))}
#: Each group of edits: (its origins, its edits, whether torch carries them out through a view).
GROUPS = ((ORIGINS, ON_ITSELF, False), (ORIGINS, THROUGH_A_VIEW, True),
          (ORIGINS_2D, ON_ITSELF_2D, False), (ORIGINS_2D, THROUGH_A_VIEW_2D, True))


class _ViewsOf(TorchDispatchMode):
    """Records the view operations torch runs on ``target`` or on a tensor that shares its storage."""

    def __init__(self, target: torch.Tensor) -> None:
        super().__init__()
        self.address, self.views = target.untyped_storage().data_ptr(), []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        first = args[0] if args else None
        if func.is_view and isinstance(first, torch.Tensor) \
                and first.untyped_storage().data_ptr() == self.address:
            self.views.append(str(func))
        return func(*args, **(kwargs or {}))


def views_taken(origin, edit) -> list[str]:
    """The view operations torch runs on ``b`` while ``edit`` edits it, ``b`` a normal tensor of the values
    ``origin`` makes, under ``torch.no_grad()``."""
    b = origin().detach().clone()
    with torch.no_grad(), _ViewsOf(b) as seen:
        edit(b)
    return seen.views


def _edit(origin, alias, edit, context) -> tuple[str, bool]:
    """One edit through ``alias`` of a fresh inference tensor made by ``origin``, under ``context``, outside the
    mode: (the error's first sentence or "no error", whether the values of ``a`` changed)."""
    a = inference_tensor(origin)
    old = a.clone()
    try:
        with context():
            edit(alias(a))
    except RuntimeError as exc:
        return str(exc).split(".")[0], not torch.equal(a, old)
    return "no error", not torch.equal(a, old)


def _listed(names) -> str:
    *first, last = names
    return ", ".join(first) + " and " + last


@fact("inference-tensor-alias-edit-routes", {
    "en": "Makes an inference tensor a under torch.inference_mode(), of three values and 3×3: by a factory "
          "(torch.tensor([1., 2., 3.]), torch.arange(1., 10.).view(3, 3)) and as the output of a Linear(3, 3) "
          "(weights 1, bias 0) on a normal input holding the same values (of shape (3,) and (3, 3)); outside the "
          f"mode takes as b each of {_listed(INFERENCE_ALIASES)}, which are inference tensors, and each of "
          "copy.copy(a) and the view(torch.float32) and view(torch.int32) of a, a.detach() and a.data, which are "
          "not. For each, with grad mode on and under torch.no_grad(), runs on a fresh a each edit below (through "
          f"the int32 views, all but {_listed(NOT_INT32)}, which raise an error of their own there, naming the "
          "dtype Int, and change nothing). On the three values: "
          f"{_listed(ON_ITSELF)}, none raises; {_listed(THROUGH_A_VIEW)}, each raises through the four inference "
          "tensors. On the 3×3: "
          f"{_listed(ON_ITSELF_2D)}, none raises; {_listed(THROUGH_A_VIEW_2D)}, each raises through the "
          f"four inference tensors. The error is \"{INPLACE_ERROR}\"; through the normal tensors no edit raises; "
          f"each of these edits changes a. On both shapes, {', '.join(WRITES_NOTHING)} through each b raises "
          f"nothing and leaves a as it was; {', '.join(RAISES_WRITING_NOTHING)} raises that error through the four "
          "inference tensors, nothing through the normal ones, and leaves a as it was. Then runs each edit on a "
          "normal tensor of the same values under torch.no_grad(), "
          "recording the view operations torch runs on it (a TorchDispatchMode): those that raise take a view of b "
          "(slice, select, unsqueeze, view, t, as_strided, alias ...), those that do not take none.",
    "zh_CN": "在 torch.inference_mode() 下得到推理张量 a，有三个值的，也有 3×3 的：用工厂函数创建"
             "（torch.tensor([1., 2., 3.])、torch.arange(1., 10.).view(3, 3)），以及作为 Linear(3, 3)"
             "（权重为 1，偏置为 0）在同样取值的普通输入（形状为 (3,) 和 (3, 3)）上的输出；"
             f"在模式外依次取 b 为 {'、'.join(INFERENCE_ALIASES)}，它们是推理张量；以及 copy.copy(a) 和 a、"
             "a.detach()、a.data 的 view(torch.float32)、view(torch.int32)，它们不是推理张量。"
             "对每一个，分别在梯度模式下和 torch.no_grad() 下，每次用新的 a，逐一执行下面的修改"
             f"（经由 int32 视图时，{_zh(NOT_INT32)}除外：它们在那里报另一条提到 dtype Int 的错，"
             "什么也不改）。三个值的："
             f"{'、'.join(ON_ITSELF)}，都不报错；{'、'.join(THROUGH_A_VIEW)}，经由那四个推理张量每个都报错。"
             f"3×3 的：{'、'.join(ON_ITSELF_2D)}，都不报错；{_zh(THROUGH_A_VIEW_2D)}，"
             f"经由那四个推理张量每个都报错。报的错是“{INPLACE_ERROR}”；经由那些普通张量都不报错；"
             f"这些修改都改变了 a。在两种形状上经由每个 b 执行 {'、'.join(WRITES_NOTHING)}，都不报错，a 保持原样；"
             f"执行 {'、'.join(RAISES_WRITING_NOTHING)}，经由那四个推理张量都报这个错，经由那些普通张量都不报错，"
             "a 保持原样。"
             "再在 torch.no_grad() 下对值相同的普通张量逐一执行这些修改，用 TorchDispatchMode "
             "记录 torch 对它执行的视图操作：报错的那些都对 b 取了视图（slice、select、unsqueeze、view、t、"
             "as_strided、alias 等），不报错的那些一个也没取。",
}, {"en": "the four inference tensors it names and the seven normal tensors over their memory, a made two ways, of "
          "three values and 3×3, float32 (int32 through the int32 views), with grad mode on and under "
          "torch.no_grad(), on the CPU",
    "zh_CN": "它列出的四个推理张量和与它们共享内存的七个普通张量，a 用两种方式得到，三个值的和 3×3 的，"
             "float32（经由 int32 视图时为 int32），在梯度模式下和 torch.no_grad() 下，在 CPU 上"})
def _inference_tensor_alias_edit_routes() -> Fact:
    """Outside the mode, a.detach() and a.data of an inference tensor, and their detach(), are inference tensors:
    an edit torch carries out on them itself raises nothing, one it carries out through a view of them raises after
    writing; copy.copy(a) and view(dtype) of a or of them, normal tensors, take them all. Each edit reaches a."""
    kinds, seen, views = {}, {}, {}
    for origins, edits, through_a_view in GROUPS:
        for origin_name, origin in origins.items():
            a = inference_tensor(origin)
            kinds[origin_name] = {name: alias(a).is_inference() for name, alias in ALIASES.items()}
            for edit_name, edit in edits.items():
                taken = views_taken(origin, edit)
                if bool(taken) != through_a_view:
                    views[f"{origin_name}, {edit_name}"] = taken
                for alias_name, alias in ALIASES.items():
                    raises = through_a_view and alias_name in INFERENCE_ALIASES
                    for context in (torch.enable_grad, torch.no_grad):
                        if alias_name.endswith("int32)") and edit_name in NOT_INT32:  # a dtype error, nothing written
                            outcome, changed = _edit(origin, alias, edit, context)
                            seen[f"{origin_name}, {alias_name}, {edit_name} (int32, {context.__name__})"] = (
                                (re.search(r"\bInt\b", outcome) is not None, changed), (True, False))
                            continue
                        key = f"{origin_name}, {alias_name}, {edit_name} ({context.__name__})"
                        seen[key] = (_edit(origin, alias, edit, context),
                                     (INPLACE_ERROR if raises else "no error", True))
    for origin_name, origin in {**ORIGINS, **ORIGINS_2D}.items():
        for edit_name, edit in {**WRITES_NOTHING, **RAISES_WRITING_NOTHING}.items():
            through_a_view = edit_name in RAISES_WRITING_NOTHING
            taken = views_taken(origin, edit)
            if bool(taken) != through_a_view:
                views[f"{origin_name}, {edit_name}"] = taken
            for alias_name, alias in ALIASES.items():
                raises = through_a_view and alias_name in INFERENCE_ALIASES
                for context in (torch.enable_grad, torch.no_grad):
                    key = f"{origin_name}, {alias_name}, {edit_name} ({context.__name__})"
                    seen[key] = (_edit(origin, alias, edit, context),
                                 (INPLACE_ERROR if raises else "no error", False))
    wrong = {key: got for key, (got, expected) in seen.items() if got != expected}
    inference = {name: name in INFERENCE_ALIASES for name in ALIASES}
    return Fact(kinds == dict.fromkeys(kinds, inference) and len(kinds) == 4 and not wrong and not views,
                f"is_inference() of {', '.join(ALIASES)}: {kinds}; {len(seen)} edits, "
                f"as stated: {len(seen) - len(wrong)}; otherwise (error, a changed): {wrong}; "
                f"views taken, where the statement expects otherwise: {views}")


#: A 0-d mask of True, as a tensor and as a Python bool.
TRUE_MASKS = {"torch.tensor(True)": lambda: torch.tensor(True), "True": lambda: True}


def _read_through(origin, alias, mask, context) -> tuple[bool, str, bool]:
    """``alias(a)[mask]`` of a fresh inference tensor ``a`` made by ``origin``, then ``mul_(10)`` of that result, under
    ``context``, outside the mode: (whether the result is a normal tensor on storage of its own, the error's first
    sentence or "no error", whether the values of ``a`` changed)."""
    a = inference_tensor(origin)
    old = a.clone()
    with context():
        read = alias(a)[mask]
        copied = not read.is_inference() and read.untyped_storage().data_ptr() != a.untyped_storage().data_ptr()
        try:
            read.mul_(10)
        except RuntimeError as exc:
            return copied, str(exc).split(".")[0], not torch.equal(a, old)
    return copied, "no error", not torch.equal(a, old)


@fact("inference-tensor-alias-0d-mask-read-copies", {
    "en": "Makes an inference tensor a under torch.inference_mode(), of three values and 3×3: by a factory "
          "(torch.tensor([1., 2., 3.]), torch.arange(1., 10.).view(3, 3)) and as the output of a Linear(3, 3) "
          "(weights 1, bias 0) on a normal input holding the same values; "
          f"outside the mode takes as b each of {_listed(INFERENCE_ALIASES)}, and as the mask each of "
          f"{_listed(TRUE_MASKS)}. With grad mode on and under torch.no_grad(), on a fresh a each time: reads b[mask], "
          "which must be a normal tensor on storage of its own, and runs mul_(10) on it, which must raise nothing and "
          f"leave a as it was; runs b[mask] = 0, which must raise \"{INPLACE_ERROR}\" with a changed.",
    "zh_CN": "在 torch.inference_mode() 下得到推理张量 a，有三个值的，也有 3×3 的：用工厂函数创建"
             "（torch.tensor([1., 2., 3.])、torch.arange(1., 10.).view(3, 3)），以及作为 Linear(3, 3)"
             "（权重为 1，偏置为 0）在同样取值的普通输入上的输出；在模式外依次取 b 为 "
             f"{'、'.join(INFERENCE_ALIASES)}，取掩码为 {'、'.join(TRUE_MASKS)}。分别在梯度模式下和 torch.no_grad() "
             "下，每次用新的 a：读取 b[mask]，得到的应是有自己存储的普通张量；对它执行 mul_(10)，应不报错，"
             "a 保持原样；"
             f"执行 b[mask] = 0，应报“{INPLACE_ERROR}”，而 a 已经改变。",
}, {"en": "the four inference tensors and two masks it names, float32, on the CPU",
    "zh_CN": "它列出的四个推理张量和两种掩码，float32，在 CPU 上"})
def _inference_tensor_alias_0d_mask_read_copies() -> Fact:
    """Outside the mode, reading through a 0-d mask of True from a.detach() or a.data of an inference tensor (or
    their detach()) gives a copy that takes an edit and leaves a alone; assigning through that mask takes a view
    inside and raises after writing."""
    wrong = {}
    for origin_name, origin in {**ORIGINS, **ORIGINS_2D}.items():
        for alias_name, alias in INFERENCE_ALIASES.items():
            for mask_name, mask in TRUE_MASKS.items():
                for context in (torch.enable_grad, torch.no_grad):
                    key = f"{origin_name}, {alias_name}[{mask_name}] ({context.__name__})"
                    read = _read_through(origin, alias, mask(), context)
                    assigned = _edit(origin, alias, _set(mask()), context)
                    if read != (True, "no error", False) or assigned != (INPLACE_ERROR, True):
                        wrong[key] = {"read (a copy, error, a changed)": read, "assigned (error, a changed)": assigned}
    cases = len(ORIGINS) + len(ORIGINS_2D), len(INFERENCE_ALIASES), len(TRUE_MASKS)
    return Fact(not wrong, f"{cases[0]} origins × {cases[1]} aliases × {cases[2]} masks × 2 grad modes; "
                           f"otherwise than stated: {wrong}")
