"""Named fact behind the view operations page's note on the functions that split a tensor into several views: which
of them hang all the views one call returns on a single autograd node, and that an in-place edit of any output of
those is refused with grad mode on outside ``torch.inference_mode()``. Registered on import by
:mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import REFUSED_OUTSIDE, enable_grad_edits

#: The functions that split a tensor into several views, by the name the fact prints (what one call returns).
_SPLITS = {
    "unbind": lambda a: a.unbind(), "split": lambda a: a.split(1),
    "split_with_sizes": lambda a: a.split_with_sizes([1, 2]), "chunk": lambda a: a.chunk(3),
    "tensor_split": lambda a: a.tensor_split(3), "hsplit": lambda a: a.hsplit(2), "vsplit": lambda a: a.vsplit(3),
}
_ONE_NODE = {"unbind", "split", "split_with_sizes", "chunk"}
#: Words of the error an in-place edit of one of their outputs raises.
REFUSAL = "a function that returns multiple views"
#: More calls of those four: along dimension 1, and calls that return a single view.
_ONE_NODE_MORE = {
    "unbind(1)": lambda a: a.unbind(1), "a[:1].unbind()": lambda a: a[:1].unbind(),
    "split(2, 1)": lambda a: a.split(2, 1), "split(3)": lambda a: a.split(3),
    "split_with_sizes([1, 3], 1)": lambda a: a.split_with_sizes([1, 3], 1),
    "split_with_sizes([3])": lambda a: a.split_with_sizes([3]), "chunk(2, 1)": lambda a: a.chunk(2, 1),
    "chunk(1)": lambda a: a.chunk(1),
}
#: The in-place edits tried on every output of those calls.
_EDITS = {"fill_(-1)": lambda v: v.fill_(-1), "add_(1)": lambda v: v.add_(1), "mul_(2)": lambda v: v.mul_(2),
          "zero_()": lambda v: v.zero_(), "copy_(torch.ones_like(v))": lambda v: v.copy_(torch.ones_like(v))}


def _non_leaf() -> torch.Tensor:
    return torch.arange(12.0).reshape(3, 4).requires_grad_().clone()


def _inference_leaf() -> torch.Tensor:
    with torch.inference_mode():
        return torch.arange(12.0).reshape(3, 4).requires_grad_()


#: Sources of 3×4 that require grad, each with the words of the error an edit of a split output raises on it (on the
#: inference tensor, after writing).
_SOURCES: dict[str, tuple[Callable[[], torch.Tensor], str]] = {
    "non-leaf": (_non_leaf, REFUSAL), "leaf": (lambda: torch.arange(12.0).reshape(3, 4).requires_grad_(), REFUSAL),
    "Parameter": (lambda: torch.nn.Parameter(torch.arange(12.0).reshape(3, 4)), REFUSAL),
    "[:, ::2] of a non-leaf": (lambda: torch.arange(24.0).reshape(3, 8).requires_grad_().clone()[:, ::2], REFUSAL),
    "inference tensor": (_inference_leaf, "Inplace update to inference tensor outside InferenceMode"),
}


@fact("multi-view-outputs-share-one-node", {
    "en": "Calls unbind(), split(1), split_with_sizes([1, 2]), chunk(3), tensor_split(3), hsplit(2) and vsplit(3) on "
          "a fresh 3×4 non-leaf that requires grad, grad mode on, and fill_(-1) on each output of each call (a fresh "
          "non-leaf each time): all the outputs of one call of the first four share one grad_fn, and fill_ raises "
          "\"a function that returns multiple views\" with grad mode on outside torch.inference_mode(), "
          "torch.enable_grad() inside torch.no_grad() included, and runs and changes the non-leaf inside "
          "torch.inference_mode() with torch.enable_grad(), which turns grad mode on; with grad mode on, fill_(-1), "
          "add_(1), mul_(2), zero_() and copy_(torch.ones_like(v)) raise on each output of those four calls and of "
          "unbind(1), a[:1].unbind(), split(2, 1), split(3), split_with_sizes([1, 3], 1), split_with_sizes([3]), "
          "chunk(2, 1) and chunk(1), whether they return several views or one, made of a non-leaf, a leaf, a "
          "Parameter and a [:, ::2] view of a non-leaf (the same error, the source left as it was) and of an inference "
          "tensor that requires grad (\"Inplace update to inference tensor outside InferenceMode\", after the source's "
          "values changed); each output of "
          "the last three has a SliceBackward0 of its own, and fill_ runs and changes the non-leaf in each of the "
          "grad-mode settings above.",
    "zh_CN": "在梯度模式下，对新建的、需要梯度的 3×4 非叶子张量分别调用 unbind()、split(1)、split_with_sizes([1, 2])、"
             "chunk(3)、tensor_split(3)、hsplit(2) 和 vsplit(3)，再对每次调用的每个输出执行 fill_(-1)（每次都用新的"
             "非叶子张量）：前四个函数一次调用的所有输出，grad_fn 都是同一个；在 torch.inference_mode() 之外、"
             "梯度模式打开时，fill_ 报错“a function that returns multiple views”，在 torch.no_grad() 里用 "
             "torch.enable_grad() 打开梯度模式也一样，在 torch.inference_mode() 里用 torch.enable_grad() "
             "打开梯度模式时则照常执行，非叶子张量随之改变；在梯度模式下，对这四次调用以及 unbind(1)、"
             "a[:1].unbind()、split(2, 1)、split(3)、split_with_sizes([1, 3], 1)、split_with_sizes([3])、"
             "chunk(2, 1) 和 chunk(1) 的每个输出执行 fill_(-1)、add_(1)、mul_(2)、zero_() 和 "
             "copy_(torch.ones_like(v))，不论调用返回多个视图还是一个，都会报错：源张量是非叶子张量、叶子张量、"
             "Parameter 或非叶子张量的 [:, ::2] 视图时报同样的错，源张量保持原样；是需要梯度的推理张量时报“Inplace "
             "update to inference tensor outside InferenceMode”，而报错时源张量的值已经变了；后三个函数的每个输出"
             "各有自己的 SliceBackward0，在上述每种梯度模式设置下 fill_ 都照常执行，非叶子张量随之改变。",
})
def _multi_view_outputs_share_one_node() -> Fact:
    """The views one call of unbind/split/split_with_sizes/chunk returns hang on one autograd node, and an in-place
    edit of any of them is refused outside inference mode; tensor_split/hsplit/vsplit give each view a slice node of
    its own, and the edit runs and reaches the non-leaf."""
    own = set(_SPLITS) - _ONE_NODE
    one_node, distinct, nodes, filled, turned_on = set(), set(), {}, {}, {}
    with torch.enable_grad():
        for name, split in _SPLITS.items():
            outputs = split(_non_leaf())
            nodes[name] = sorted({type(out.grad_fn).__name__ for out in outputs})
            ids = {id(out.grad_fn) for out in outputs}
            if len(ids) == 1:
                one_node.add(name)
            if len(ids) == len(outputs):
                distinct.add(name)
            filled[name] = _edit_each(split, _EDITS["fill_(-1)"])
            turned_on[name] = {i: enable_grad_edits(_non_leaf, lambda s, split=split, i=i: split(s)[i],
                               lambda out: out.fill_(-1), REFUSAL)
                               for i in range(len(outputs))}
        more = {(source, call, edit): _edit_each(split, change, *_SOURCES[source]) for call, split in {
            **{name: _SPLITS[name] for name in _ONE_NODE}, **_ONE_NODE_MORE}.items()
            for edit, change in _EDITS.items() for source in _SOURCES}
    slices = all(nodes[name] == ["SliceBackward0"] for name in own)
    edits = all(filled[name] == ["refused" if name in _ONE_NODE else "runs"] for name in _SPLITS)
    modes = all(set(map(str, turned_on[name].values())) == {str(
        REFUSED_OUTSIDE if name in _ONE_NODE else dict.fromkeys(REFUSED_OUTSIDE, "runs"))} for name in _SPLITS)
    refused = {key: seen for key, seen in more.items()
               if seen != ["refused after writing" if key[0] == "inference tensor" else "refused"]}
    return Fact(one_node == _ONE_NODE and own <= distinct and slices and edits and modes and not refused,
                f"one grad_fn for all outputs: {sorted(one_node)}; a grad_fn per output: {sorted(distinct)}; "
                f"nodes: {nodes}; fill_ on each output: {filled}; with enable_grad() inside a mode: {turned_on}; "
                f"sources, calls and edits not refused on every output: {refused}")


def _edit_each(split: Callable[[torch.Tensor], tuple[torch.Tensor, ...]], edit: Callable[[torch.Tensor], object],
               make: Callable[[], torch.Tensor] = _non_leaf, refusal: str = REFUSAL) -> list[str]:
    """``edit`` on each output of ``split`` of a fresh ``make()``, one output at a time: the outcomes, each once
    ("refused": an error naming ``refusal``, the source's values unchanged, "refused after writing" if changed;
    "runs": no error, the source's values changed; "no change"; another error)."""
    outcomes = set()
    for i in range(len(split(make()))):
        source = make()
        before = source.detach().clone()
        try:
            edit(split(source)[i])
        except RuntimeError as exc:
            written = " after writing" if not torch.equal(before, source.detach()) else ""
            outcomes.add(f"refused{written}" if refusal in str(exc) else str(exc).splitlines()[0])
            continue
        outcomes.add("no change" if torch.equal(before, source.detach()) else "runs")
    return sorted(outcomes)
