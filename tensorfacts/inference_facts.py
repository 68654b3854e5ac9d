"""Named facts on which tensors ``torch.inference_mode()`` makes inference tensors: the views, ``detach()``
and ``.data`` of a normal tensor taken there (the outputs of modules run there are in
:mod:`tensorfacts.inference_module_facts`); and what an inference tensor has and refuses (no version counter;
in-place edits outside the mode). They stand behind the glossary's definitions (``sitetools/rules/term_facts.py``,
``CHECKED_BY``), the matrix page and its guide. Registered on import by :mod:`tensorfacts.facts`, whose
docstring says what a fact is.
"""

from __future__ import annotations

import contextlib

import torch

from tensorfacts import view_ops
from tensorfacts.fact_registry import Fact, fact

#: The error of a forward pass that would save an inference tensor for backward, outside the mode.
SAVED_INFERENCE = "Inference tensors cannot be saved for backward"
#: The error of an in-place update of an inference tensor that does not require grad, outside the mode.
INPLACE_ERROR = "Inplace update to inference tensor outside InferenceMode is not allowed"


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


def _three_values() -> torch.Tensor:
    return torch.tensor([1.0, 2.0, 3.0])


def inference_tensor(make=_three_values) -> torch.Tensor:
    """What ``make`` returns when called inside ``torch.inference_mode()``: by default [1., 2., 3.] from a factory."""
    with torch.inference_mode():
        return make()


def linear_output(shape: tuple[int, ...] = (3,)) -> torch.Tensor:
    """The output of a Linear(3, 3) (weights 1, bias 0, built outside the mode) on the normal input 1., 2., 3., ...
    of ``shape`` (by default [1., 2., 3.]): called inside ``torch.inference_mode()``, an inference tensor in new
    memory."""
    with torch.inference_mode(False):
        lin, x = torch.nn.Linear(3, 3), torch.arange(1.0, 1.0 + torch.Size(shape).numel()).view(shape)
        with torch.no_grad():
            lin.weight.fill_(1.0), lin.bias.zero_()
    return lin(x)


#: Other inference tensors made inside the mode, by a module, by ``detach()`` and by ``.data``.
MADE_INSIDE = {"a Linear(3, 3) output": linear_output,
               "a.detach() taken inside the mode": lambda: _three_values().detach(),
               "a.data taken inside the mode": lambda: _three_values().data}


@fact("inference-tensor-has-no-version-counter", {
    "en": "Makes a tensor under torch.inference_mode() and reads its _version: the read raises that inference "
          "tensors do not track a version counter. Its detach() and its .data, taken outside the mode, are "
          "inference tensors too (is_inference() is True), and reading their _version gives 0. That _version stays 0 "
          "after mul_(2), inside the mode (with torch.enable_grad() there too), on them or on the tensor, and each "
          "mul_(2) on them outside the mode, with grad mode on or under torch.no_grad(), moves it by 1.",
    "zh_CN": "在 torch.inference_mode() 下创建张量，读取它的 _version：读取时报错，说推理张量没有版本计数器。"
             "在模式外对它取的 detach() 和 .data 也是推理张量（is_inference() 为 True），读取它们的 _version 得到 0。"
             "在模式里对它们或对原张量调用 mul_(2) 之后（在模式里用 torch.enable_grad() 打开梯度模式也一样），"
             "它仍是 0；在模式外对它们调用 mul_(2)，无论梯度模式开着还是在 torch.no_grad() 下，每次都让它加 1。",
})
def _inference_tensor_has_no_version_counter() -> Fact:
    """Reading the version counter of a tensor made under inference_mode raises: it keeps none. Its
    ``detach()`` and ``.data`` taken outside the mode are inference tensors with a counter, which an edit made
    inside the mode leaves as it was and one made outside it moves."""
    a = inference_tensor()
    try:
        message = f"no error, version {a._version}"
    except RuntimeError as exc:
        message = str(exc)
    outside = {name: (alias.is_inference(), alias._version) for name, alias in (("detach()", a.detach()),
                                                                                 (".data", a.data))}
    counts = {name: _alias_versions(take) for name, take in (("detach()", lambda t: t.detach()),
                                                              (".data", lambda t: t.data))}
    return Fact(a.is_inference() and "do not track version counter" in message
                and outside == {"detach()": (True, 0), ".data": (True, 0)}
                and counts == {"detach()": [0, 0, 0, 1, 2], ".data": [0, 0, 0, 1, 2]},
                f"is_inference: {a.is_inference()}; a._version: {message}; taken outside (is_inference, _version): "
                f"{outside}; their _version after mul_(2) on them inside the mode, there with grad mode on, on the "
                f"tensor inside the mode, on them outside with grad mode on, under no_grad: {counts}")


def _alias_versions(take) -> list[int]:
    """The ``_version`` of ``take(a)``, for a fresh inference tensor ``a``, after each ``mul_(2)`` in turn: on it inside
    the mode, there with grad mode on, on ``a`` inside the mode, on it outside with grad mode on, under no_grad."""
    a = inference_tensor()
    alias, seen = take(a), []
    for context, target in ((torch.inference_mode, alias), (_inference_grad_on, alias),
                            (torch.inference_mode, a), (torch.enable_grad, alias), (torch.no_grad, alias)):
        with context():
            target.mul_(2)
        seen.append(alias._version)
    return seen


@contextlib.contextmanager
def _inference_grad_on():
    """Inside ``torch.inference_mode()`` with ``torch.enable_grad()``."""
    with torch.inference_mode(), torch.enable_grad():
        yield


#: In-place torch operations that write values, run on an inference tensor ``a`` (of [1., 2., 3.]) outside the mode.
VALUE_WRITES = {
    "a.add_(1)": lambda a: a.add_(1), "a.zero_()": lambda a: a.zero_(), "a.fill_(5)": lambda a: a.fill_(5),
    "a.copy_(torch.zeros(3))": lambda a: a.copy_(torch.zeros(3)), "a.clamp_(max=1.5)": lambda a: a.clamp_(max=1.5),
    "a.masked_fill_(a > 1, 0)": lambda a: a.masked_fill_(a > 1, 0),
    "a.index_put_((torch.tensor([0]),), torch.tensor(9.0))": lambda a: a.index_put_((torch.tensor([0]),),
                                                                                      torch.tensor(9.0)),
    "a[0] = 9": lambda a: a.__setitem__(0, 9.0), "a += 1": lambda a: a.__iadd__(1),
    "torch.add(a, 1, out=a)": lambda a: torch.add(a, 1, out=a),
}
#: In-place methods that write no values and raise nothing on such a tensor.
NO_ERROR_INPLACE = {"a.detach_()": lambda a: a.detach_(), "a.share_memory_()": lambda a: a.share_memory_(),
                    "a.resize_(3)": lambda a: a.resize_(3)}
#: The edits tried on an inference tensor that requires grad: ``mul_(10)``, ``VALUE_WRITES`` and an init function.
GRAD_EDITS = {"a.mul_(10)": lambda a: a.mul_(10), **VALUE_WRITES, "torch.nn.init.zeros_(a)": torch.nn.init.zeros_}
#: Those of them that, with grad mode on, it refuses before writing; the others write first, then raise.
REFUSED_FIRST = ("a.mul_(10)", "a.add_(1)", "a.copy_(torch.zeros(3))", "a.masked_fill_(a > 1, 0)",
                 "a.index_put_((torch.tensor([0]),), torch.tensor(9.0))", "a += 1", "torch.add(a, 1, out=a)")


def _module_weight() -> torch.Tensor:
    """The weight of a Linear(3, 1) built where it is called, set to [[1., 2., 3.]]."""
    with torch.no_grad():
        return torch.nn.Linear(3, 1, bias=False).weight.copy_(torch.tensor([[1.0, 2.0, 3.0]]))


def _listed(names: dict, between: str, last: str) -> str:
    """The keys of ``names`` as a list in words: ``between`` between them, ``last`` before the last one."""
    *first, final = names
    return between.join(first) + last + final


def _inplace_outcomes(edits: dict, make=_three_values) -> dict[str, tuple[str, bool]]:
    """Each edit on a fresh inference tensor (``make`` called inside the mode) outside the mode, with grad mode on and
    under no_grad: (the error's first sentence or "no error", whether the values changed)."""
    seen = {}
    for context in (torch.enable_grad, torch.no_grad):
        for name, edit in edits.items():
            a = inference_tensor(make)
            old = a.clone()
            try:
                with context():
                    edit(a)
            except RuntimeError as exc:
                error = str(exc).split(".")[0]
            else:
                error = "no error"
            seen[f"{name} ({context.__name__})"] = (error, not torch.equal(a, old))
    return seen


@fact("inference-tensor-inplace-outside-raises-yet-writes", {
    "en": "Calls mul_(10) on an inference tensor that does not require grad outside inference mode, with grad mode on "
          "and under torch.no_grad(), one after the other on the same tensor [1., 2., 3.]: both raise, yet each "
          "writes, so after the two the values are 100 times the old ones; a third mul_(10), inside inference mode, "
          "runs without an error and makes them 1000 times the old ones. The same mul_(10), with grad mode on and "
          "under torch.no_grad(), on the output of a Linear(3, 3) "
          "(weights 1, bias 0) computed inside the mode on a normal input, and on a.detach() and a.data taken inside "
          "the mode: "
          "each raises, and the values have changed. On the weight of a Linear(3, 2) built in the mode, an inference "
          "tensor that requires grad: with grad mode on mul_(10) raises that a leaf that requires grad is used in an "
          "in-place operation, and the values stay; under torch.no_grad() it raises, yet the values are 10 times the "
          "old ones. On fresh inference "
          f"tensors that do not require grad, outside the mode, with grad mode on and under torch.no_grad(): "
          f"{_listed(VALUE_WRITES, ', ', ' and ')} each raise \"{INPLACE_ERROR}\", and the values have changed; "
          f"{_listed(NO_ERROR_INPLACE, ', ', ' and ')} raise nothing and leave the values as they were. On the "
          "weight [[1., 2., 3.]] of a fresh Linear(3, 1) built in the mode, outside it, the same edits, mul_(10) and "
          f"torch.nn.init.zeros_(a): with grad mode on, {_listed(REFUSED_FIRST, ', ', ' and ')} raise another error "
          "and leave the values as they were, each other edit raises that error after changing the values; under "
          "torch.no_grad() each raises it after changing the values.",
    "zh_CN": "在推理模式之外，先在梯度模式下、再在 torch.no_grad() 下，对同一个不需要梯度的推理张量 [1., 2., 3.] 调用 "
             "mul_(10)：两次都报错，但每次都写入了，所以两次之后数值是原来的 100 倍；在推理模式内再调用"
             "一次 mul_(10)，不报错，数值变成原来的 1000 倍。分别在梯度模式下和 torch.no_grad() 下，"
             "对在模式内由 Linear(3, 3)（权重为 1，偏置为 0）在普通输入上算出的输出，"
             "以及在模式内取的 a.detach() 和 a.data，"
             "同样执行 mul_(10)：都报错，而数值已经变了。对在该模式里构建的 Linear(3, 2) 的 weight"
             "（需要梯度的推理张量）：梯度模式下 mul_(10) 报错说需要梯度的叶子张量被用于原地操作，数值不变；"
             "在 torch.no_grad() 下报错，但数值已变成原来的 10 倍。在推理模式之外、分别在梯度模式下和 torch.no_grad() "
             f"下，对新建的、不需要梯度的推理张量逐一执行 {_listed(VALUE_WRITES, '、', ' 和 ')}："
             f"每个都报“{INPLACE_ERROR}”，而数值已经变了；{_listed(NO_ERROR_INPLACE, '、', ' 和 ')} 不报错，数值不变。"
             "在该模式里新建一个 Linear(3, 1)，把 weight 设为 [[1., 2., 3.]]，在模式外对它执行同样这些修改以及 "
             f"mul_(10) 和 torch.nn.init.zeros_(a)：梯度模式下，{_listed(REFUSED_FIRST, '、', ' 和 ')} 报别的错误，"
             "数值不变，其余修改都在数值改变后报上面那条错误；在 torch.no_grad() 下，每个都在数值改变后报这条错误。",
})
def _inference_tensor_inplace_outside_raises_yet_writes() -> Fact:
    """An in-place edit of an inference tensor that does not require grad, outside inference mode, raises (under
    no_grad too), and yet the values have changed; inside inference mode it runs without an error. On one that requires
    grad, in grad mode, some edits are refused before writing (``mul_``, ``add_`` ...), others write, then raise."""
    a = inference_tensor()
    refused = []
    for context in (torch.enable_grad, torch.no_grad):
        try:
            with context():
                a.mul_(10)
        except RuntimeError as exc:
            refused.append("outside InferenceMode is not allowed" in str(exc))
        else:
            refused.append(False)
    outside = a.tolist()
    with torch.inference_mode():
        a.mul_(10)
        w = torch.nn.Linear(3, 2).weight
    old = w.tolist()
    weight = {}
    for name, context in (("grad mode", torch.enable_grad), ("no_grad", torch.no_grad)):
        try:
            with context():
                w.mul_(10)
        except RuntimeError as exc:
            weight[name] = (str(exc).split(".")[0], w.tolist() == old)
        else:
            weight[name] = ("no error", w.tolist() == old)
    scaled = torch.equal(w.detach(), torch.tensor(old) * 10)
    writes, others = _inplace_outcomes(VALUE_WRITES), _inplace_outcomes(NO_ERROR_INPLACE)
    made = {name: _inplace_outcomes({"mul_(10)": lambda t: t.mul_(10)}, make) for name, make in MADE_INSIDE.items()}
    on_weight = _inplace_outcomes(GRAD_EDITS, _module_weight)
    first = {f"{name} (enable_grad)" for name in REFUSED_FIRST}
    return Fact(all(refused) and outside == [100.0, 200.0, 300.0] and a.tolist() == [1000.0, 2000.0, 3000.0]
                and all(seen == (INPLACE_ERROR, True) for seen in writes.values())
                and all(seen == ("no error", False) for seen in others.values())
                and all(seen == (INPLACE_ERROR, True) for outcomes in made.values() for seen in outcomes.values())
                and w.is_inference() and w.requires_grad
                and weight["grad mode"] == ("a leaf Variable that requires grad is being used in an in-place operation",
                                            True)
                and weight["no_grad"][0].startswith("Inplace update to inference tensor") and scaled
                and all(seen[0] not in ("no error", INPLACE_ERROR) and not seen[1] if key in first
                        else seen == (INPLACE_ERROR, True) for key, seen in on_weight.items()),
                f"raised outside (grad on, no_grad): {refused}; values after those two mul_(10): {outside}; "
                f"after one more inside: {a.tolist()}; weight of a Linear built in the mode (error, values kept): "
                f"{weight}, 10 times the old values at the end: {scaled}; (error, values changed) of the writes: "
                f"{writes}; of the others: {others}; of mul_(10) on other inference tensors: {made}; of the edits on "
                f"a Linear's weight built in the mode: {on_weight}")


@fact("inference-tensor-apply-map-outside-no-error", {
    "en": "Calls apply_ and map_ on an inference tensor outside inference mode, on the tensor and on its view(3), "
          "with grad mode on and under torch.no_grad(): none raises, and each doubles the values.",
    "zh_CN": "在推理模式之外、分别在梯度模式下和 torch.no_grad() 下，对推理张量本身及其 view(3) 调用 apply_ 和 "
             "map_：都不报错，每次都把数值翻一倍。",
})
def _inference_tensor_apply_map_outside_no_error() -> Fact:
    """apply_ and map_, which run a Python function on each value, edit an inference tensor outside
    inference mode without the error an in-place torch operation such as mul_ raises there."""
    a = inference_tensor()
    edits = {
        "a.apply_(f)": lambda: a.apply_(lambda v: v * 2),
        "a.map_(a, f)": lambda: a.map_(a, lambda v, o: v + o),
        "a.view(3).apply_(f)": lambda: a.view(3).apply_(lambda v: v * 2),
        "a.view(3).map_(a, f)": lambda: a.view(3).map_(a, lambda v, o: v + o),
    }
    outcomes = []
    for context in (torch.enable_grad, torch.no_grad):
        for name, edit in edits.items():
            before = a.tolist()
            try:
                with context():
                    edit()
            except RuntimeError as exc:
                outcomes.append(f"{name}: {exc}")
            else:
                outcomes.append(f"{name}: doubled" if a.tolist() == [2 * v for v in before] else f"{name}: {a}")
    return Fact(not torch.is_inference_mode_enabled() and all(o.endswith(": doubled") for o in outcomes),
                "; ".join(outcomes))


@fact("inference-tensor-requiring-grad", {
    "en": "Builds Linear(3, 2) under torch.inference_mode(); outside the mode, with grad mode on, its weight w is an "
          "inference leaf that requires grad. w.view(6), w[0], w.T and w.t() do not require grad and have no grad_fn; "
          "backward of (w.T * 2).sum() + (w * 1).sum() leaves 1 in w.grad (the calculus gives 3); backward of (w.T * "
          "2).sum() + p.sum(), p = torch.zeros(3, 2) a normal leaf that requires grad, raises nothing, leaves w.grad "
          "None and gives p.grad 1; backward of the module's own output on x = torch.ones(1, 3), a normal tensor that "
          "does not require grad, raises nothing and leaves weight.grad None while bias.grad is 1; backward of (w.T * "
          "2).sum() or w[0].sum() alone raises \"element 0 of tensors does not require grad\"; with that p and h = "
          "torch.ones(4, 3), a normal leaf that requires grad, the forward passes of (w.T * p).sum(), (h @ w.T + "
          "lin.bias).sum() and (w[0] * h[0]).sum() raise \"Inference tensors cannot be saved for backward\"; w * 2 and "
          "w + b (b a normal tensor that does not require grad) require grad, and backward of (w + b).sum() + (w * "
          "2).sum() leaves 3 in w.grad; w.sum(), w.exp(), w * w, w ** 2, w.repeat(1, 1), torch.cat([w, w]) and "
          "F.linear(x, w) raise nothing and do not require grad; w.clone(), w.double() and w.to(copy=True) require "
          "grad with a CopyBackwards node, and w.clone().sum() gives w.grad 1.",
    "zh_CN": "在 torch.inference_mode() 下构建 Linear(3, 2)；在模式外、梯度模式开着时，它的 weight w 是需要梯度的推理"
             "叶子张量。w.view(6)、w[0]、w.T 和 w.t() 不需要梯度，也没有 grad_fn；对 (w.T * 2).sum() + (w * 1).sum() "
             "调用 backward 后 w.grad 是 1（按求导公式算出的是 3）；对 (w.T * 2).sum() + p.sum()（p = torch.zeros(3, "
             "2) 是需要梯度的普通叶子张量）调用 backward 不报错，w.grad 仍是 None，p.grad 是 1；对模块在不需要梯度的普"
             "通张量 x = torch.ones(1, 3) 上的输出调用 backward 不报错，weight.grad 仍是 None，bias.grad 是 1；只对 "
             "(w.T * 2).sum() 或 w[0].sum() 调用 backward 则报错“element 0 of tensors does not require grad”；用同一"
             "个 p 和需要梯度的普通叶子张量 h = torch.ones(4, 3)，(w.T * p).sum()、(h @ w.T + lin.bias).sum() 和 "
             "(w[0] * h[0]).sum() 的前向传播都报“Inference tensors cannot be saved for backward”；w * 2 和 w + b（b 是"
             "不需要梯度的普通张量）需要梯度，对 (w + b).sum() + (w * 2).sum() 调用 backward 后 w.grad 是 3；w.sum()、"
             "w.exp()、w * w、w ** 2、w.repeat(1, 1)、torch.cat([w, w]) 和 F.linear(x, w) 不报错，也不需要梯度；"
             "w.clone()、w.double() 和 w.to(copy=True) 需要梯度，节点是 CopyBackwards，w.clone().sum() 给 w.grad 的是 "
             "1。",
}, {"en": "the parameters of one Linear(3, 2), float32, on the CPU",
    "zh_CN": "一个 Linear(3, 2) 的参数，float32，在 CPU 上"})
def _inference_tensor_requiring_grad() -> Fact:
    """An inference tensor that requires grad (a parameter of a module built in the mode): outside the mode, its
    views are out of the graph, so gradients through them are lost (backward of a loss in which nothing else requires
    grad raises; an operation that would save them beside a tensor that requires grad raises in the forward pass);
    some operations on it record nothing, with no error, ``w ** 2``, ``repeat``, ``cat`` and ``F.linear`` on an input
    that does not require grad among them; a few that were run are recorded: ``w * 2``, ``w + b`` and its copies (as
    ``CopyBackwards``). What the forward passes of other layers do is in :mod:`tensorfacts.inference_module_facts`."""
    with torch.inference_mode():
        lin = torch.nn.Linear(3, 2)
    w = lin.weight
    made = w.is_inference() and w.requires_grad and w.is_leaf and torch.is_grad_enabled()
    views = {name: (v.requires_grad, v.grad_fn) for name, v in (("view(6)", w.view(6)), ("[0]", w[0]),
                                                                 ("T", w.T), ("t()", w.t()))}
    ((w.T * 2).sum() + (w * 1).sum()).backward()
    through_views = w.grad.tolist()
    w.grad = None
    p = torch.zeros(3, 2, requires_grad=True)
    ((w.T * 2).sum() + p.sum()).backward()
    other = (w.grad, p.grad.tolist())
    x = torch.ones(1, 3)
    lin(x).sum().backward()
    module = (lin.weight.grad, lin.bias.grad.tolist())
    only_views = {}
    for name, loss in (("(w.T * 2).sum()", (w.T * 2).sum()), ("w[0].sum()", w[0].sum())):
        try:
            loss.backward()
        except RuntimeError as exc:
            only_views[name] = "element 0 of tensors does not require grad" in str(exc)
        else:
            only_views[name] = False
    h = torch.ones(4, 3, requires_grad=True)
    forward = {}
    for name, loss in (("(w.T * p).sum()", lambda: (w.T * p).sum()),
                       ("(h @ w.T + lin.bias).sum()", lambda: (h @ w.T + lin.bias).sum()),
                       ("(w[0] * h[0]).sum()", lambda: (w[0] * h[0]).sum())):
        try:
            loss()
        except RuntimeError as exc:
            forward[name] = str(exc).split(".")[0]
        else:
            forward[name] = "no error"
    b = torch.zeros(2, 3)
    ops = {name: r.requires_grad for name, r in (
        ("w * 2", w * 2), ("w + b", w + b), ("w.sum()", w.sum()), ("w.exp()", w.exp()), ("w * w", w * w),
        ("w ** 2", w ** 2), ("w.repeat(1, 1)", w.repeat(1, 1)), ("torch.cat([w, w])", torch.cat([w, w])),
        ("F.linear(x, w)", torch.nn.functional.linear(x, w)))}
    lin.weight.grad = None
    ((w + b).sum() + (w * 2).sum()).backward()
    through_ops = w.grad.tolist()
    copies = {name: (c.requires_grad, type(c.grad_fn).__name__)
              for name, c in (("clone()", w.clone()), ("double()", w.double()), ("to(copy=True)", w.to(copy=True)))}
    lin.weight.grad = None
    w.clone().sum().backward()
    ones = [[1.0] * 3] * 2
    return Fact(made and all(v == (False, None) for v in views.values()) and through_views == ones
                and other == (None, [[1.0, 1.0]] * 3) and module == (None, [1.0, 1.0]) and all(only_views.values())
                and all(message == SAVED_INFERENCE for message in forward.values())
                and ops == {name: name in ("w * 2", "w + b") for name in ops}
                and through_ops == [[3.0] * 3] * 2
                and all(c == (True, "CopyBackwards") for c in copies.values()) and w.grad.tolist() == ones,
                f"inference leaf requiring grad: {made}; views (requires_grad, grad_fn): {views}; w.grad through "
                f"w.T * 2 + w * 1: {through_views}; (w.grad, p.grad) through w.T * 2 + p: {other}; module "
                f"(weight.grad, bias.grad): {module}; backward through views only raises: {only_views}; "
                f"forward passes: {forward}; requires_grad: {ops}; w.grad through w + b and w * 2: {through_ops}; "
                f"copies: {copies}; w.grad through clone(): {w.grad.tolist()}")

