"""Named facts behind sentences about the computed tables that no cell shows (continuing
:mod:`tensorfacts.table_facts`): which sources the behaviour matrix's index-write row raises on before writing and
which after, the version check on a non-leaf whose operation saved it as its output, and what the "other" tensors of
the "what operations save" table are.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable

import torch

from tensorfacts import saved_ops
from tensorfacts.fact_registry import Fact, fact
from tensorfacts.probes import INFERENCE_EDIT, LEAF_ERROR, OPERATIONS, REFUSALS, WRITES
from tensorfacts.standard_sources import SOURCES
from tensorfacts.tensors import VERSION_ERROR, backward_error, enable_grad_inside


def _index_write(source: str, mode: Callable[[], object] = contextlib.nullcontext) -> tuple[str, bool, list]:
    """The matrix's index-write row on a fresh ``source``, inside ``mode()``: (the error's first sentence or "no
    error", whether the values of a, and of the leaf behind it, are as before, the values of a after)."""
    leaf, a = SOURCES[source]()
    old_leaf, old_a = leaf.detach().clone(), a.detach().clone()
    try:
        with mode():
            OPERATIONS[WRITES[0]](a)
    except RuntimeError as exc:
        error = str(exc).split(".")[0]
    else:
        error = "no error"
    return error, torch.equal(leaf.detach(), old_leaf) and torch.equal(a.detach(), old_a), a.detach().tolist()


@fact("index-write-raises-before-or-after-writing", {
    "en": "Runs the behaviour matrix's row a[[0, 2]] = 0.; b = a, grad mode on, on fresh sources of its tables "
          "([1., 2., 3.]): on a leaf that requires grad, a Parameter and base[1:] of a leaf base that requires grad, "
          "with grad mode on outside torch.inference_mode(), torch.enable_grad() inside torch.no_grad() included, "
          "it raises that a leaf (or a view of one) that requires grad is used in an in-place operation, and a and "
          "the leaf keep their values, and inside torch.inference_mode() with torch.enable_grad(), which turns grad "
          "mode on, it runs and a becomes [0., 2., 0.]; on an inference tensor made inside torch.inference_mode(), "
          "outside the mode, it raises \"Inplace update to inference tensor outside InferenceMode is not allowed\", "
          "and a is [0., 2., 0.].",
    "zh_CN": "在梯度模式下，对《行为对照表》各表新建的源张量（[1., 2., 3.]）运行表中 a[[0, 2]] = 0.; b = a 这一行："
             "对需要梯度的叶子张量、Parameter 以及需要梯度的叶子张量 base 的 base[1:]，在 torch.inference_mode() 之外、"
             "梯度模式打开时（包括在 torch.no_grad() 里用 torch.enable_grad() 打开梯度模式），它报错说需要梯度的"
             "叶子张量（或它的视图）被用于原地操作，a 和叶子张量的数值都不变，在 torch.inference_mode() 里用 "
             "torch.enable_grad() 打开梯度模式时则照常执行，a 变为 [0., 2., 0.]；"
             "对在 torch.inference_mode() 内创建的推理张量，在模式之外，"
             "它报“Inplace update to inference tensor outside InferenceMode is not allowed”，"
             "而 a 已是 [0., 2., 0.]。",
})
def _index_write_raises_before_or_after_writing() -> Fact:
    """The sources that require grad refuse the index write before writing, outside inference mode (enable_grad() in
    no_grad() too), and take it with enable_grad() inside inference_mode(); the inference tensor raises after it."""
    refused = {source: _index_write(source) for source in ("leaf", "parameter", "view")}
    in_no_grad = {source: _index_write(source, lambda: enable_grad_inside(torch.no_grad)) for source in refused}
    in_inference = {src: _index_write(src, lambda: enable_grad_inside(torch.inference_mode)) for src in refused}
    inference = _index_write("inference")
    return Fact(all(LEAF_ERROR in error and kept for error, kept, _ in [*refused.values(), *in_no_grad.values()])
                and all(o == ("no error", False, [0.0, 2.0, 0.0]) for o in in_inference.values())
                and REFUSALS[INFERENCE_EDIT] in inference[0] and inference[2] == [0.0, 2.0, 0.0],
                f"(error, values kept, a after) of the leaf, the Parameter and the view: {refused}; with enable_grad() "
                f"inside no_grad(): {in_no_grad}; inside inference_mode(): {in_inference}; of the inference "
                f"tensor: {inference}")


#: The rows of the "what operations save" table that save their output, alone or with other tensors, as the fact's
#: text names them.
_OUTPUT_SAVERS = ("torch.exp(x)", "torch.sigmoid(x)", "torch.tanh(x)", "F.relu(x)", "torch.sqrt(x)",
                  "F.softmax(x, -1)", "F.log_softmax(x, -1)", "torch.pow(x, y)", "torch.max(x)", "torch.amax(x, -1)")

#: Of those, the rows that save other tensors too, with what each saves, as the fact's text says.
_SAVE_OTHERS_TOO = {"torch.pow(x, y)": (saved_ops.INPUT, saved_ops.OPERAND, saved_ops.OUTPUT),
                    "torch.max(x)": (saved_ops.INPUT, saved_ops.OUTPUT),
                    "torch.amax(x, -1)": (saved_ops.INPUT, saved_ops.OUTPUT)}


@fact("detach-edit-of-saved-output-detected", {
    "en": "For each operation that the \"what operations save\" table shows saving its output, alone or with "
          "other tensors (torch.exp, torch.sigmoid, torch.tanh, F.relu, torch.sqrt, F.softmax and F.log_softmax "
          "save only it; torch.pow(x, y), torch.max(x) and torch.amax(x, -1) save x too, and torch.pow(x, y) also "
          "y), in float32 and float64: makes a = op(x) (op(x, y) for torch.pow) of the table's x and y (leaves "
          "that require grad), then a.detach().mul_(10), then "
          "(a * a).sum(), grad mode on: backward() raises the version-counter error (\"modified by an inplace "
          "operation\").",
    "zh_CN": "对“各操作保存了哪些张量”表中保存输出的每个操作，无论是只保存输出还是同时保存其他张量"
             "（torch.exp、torch.sigmoid、torch.tanh、F.relu、torch.sqrt、F.softmax 和 F.log_softmax 只保存输出；"
             "torch.pow(x, y)、torch.max(x) 和 torch.amax(x, -1) 还保存 x，torch.pow(x, y) 也保存 y），"
             "分别在 float32 和 float64 下，在梯度模式中由表中的 x 和 y（需要梯度的叶子张量）得到 a = op(x)"
             "（torch.pow 则是 op(x, y)），再执行 a.detach().mul_(10)，然后算 (a * a).sum()："
             "backward() 报版本计数器错误（“modified by an inplace operation”）。",
})
def _detach_edit_of_saved_output_detected() -> Fact:
    """A non-leaf that its own operation saved is saved before any loss uses it: an edit through detach() made then is
    an edit after the save."""
    saves = {row.code: saved_ops.probe_saves(row) for row in saved_ops.ROWS}
    savers = tuple(code for code, saved in saves.items() if saved_ops.OUTPUT in saved)
    with_others = {code: saves[code] for code in savers if saves[code] != (saved_ops.OUTPUT,)}
    caught = {}
    for dtype in (torch.float32, torch.float64):
        for code in savers:
            tensors = {name: t.detach().to(dtype).requires_grad_(t.requires_grad)
                       for name, t in saved_ops.inputs().items()}
            a = saved_ops.run(saved_ops.BY_CODE[code], tensors)
            a.detach().mul_(10)
            caught[f"{code} {dtype}"] = VERSION_ERROR in backward_error((a * a).sum())
    return Fact(savers == _OUTPUT_SAVERS and all(caught.values()) and with_others == _SAVE_OTHERS_TOO,
                f"rows that save their output: {savers}; of them, those that save more: {with_others}; backward raised "
                f"the version-counter error: {caught}")


#: The routes around the version counter the "what operations save" table's note names, each adding 1 to t in place.
UNCOUNTED_EDITS = {
    "t.data.add_(1)": lambda t: t.data.add_(1),
    "t.detach().numpy() += 1": lambda t: t.detach().numpy().__iadd__(1),
    "torch.from_dlpack(t.detach()).add_(1)": lambda t: torch.from_dlpack(t.detach()).add_(1),
}
#: The rows whose gradients the edit of a tensor they save leaves as they were, with the tensor edited.
_UNCHANGED_THOUGH_SAVED = {("F.relu(x)", saved_ops.OUTPUT), ("torch.abs(x)", saved_ops.INPUT)}


@fact("saved-table-uncounted-edits-silent", {
    "en": "For each row of the \"what operations save\" table, on its fresh x and y (3×3, float32, leaves that "
          "require grad) and c: runs the row, then adds 1 in place to x, and again to the result, through "
          "t.data.add_(1), a write into t.detach().numpy() (+= 1) and torch.from_dlpack(t.detach()).add_(1), each "
          "with grad mode on and again under torch.no_grad(), then result.sum().backward(). In every run the values "
          "of the tensor edited grow by 1, its _version stays as it was and backward() raises nothing; the "
          "gradients of x and y equal those of a run without the edit when the row saves no such tensor (what the "
          "table's saves column reads for it), and differ from them when it does, in every row but F.relu(x), "
          "edited in its result, and torch.abs(x), edited in x.",
    "zh_CN": "对“各操作保存了哪些张量”表中的每一行，用新建的 x 和 y（3×3、float32、需要梯度的叶子张量）以及 c："
             "运行这一行，然后把 x 原地加 1，另一次把结果原地加 1，途径分别是 t.data.add_(1)、写入 "
             "t.detach().numpy()（+= 1）和 torch.from_dlpack(t.detach()).add_(1)，各在梯度模式下做一次，"
             "在 torch.no_grad() 下再做一次，然后调用 result.sum().backward()。每次运行中，被修改的张量的值都加了 1，"
             "它的 _version 不变，backward() 也不报错；这一行没有保存这个张量时（按表中“保存的张量”一列），"
             "x 和 y 的梯度与不做修改时相同；保存了时则不同，只有修改结果的 F.relu(x) 和修改 x 的 torch.abs(x) "
             "例外。",
}, {"en": "the table's rows, x and the result, the three routes, with grad mode on and under torch.no_grad(), "
          "float32, on the CPU",
    "zh_CN": "表中各行，x 和结果，三条途径，梯度模式下和 torch.no_grad() 下，float32，在 CPU 上"})
def _saved_table_uncounted_edits_silent() -> Fact:
    """An in-place edit the version counter does not see, of a tensor a row saved, raises nothing at backward() and
    changes the gradients silently (but where the edit leaves what the backward reads as it was)."""
    seen, wrong = 0, []
    for row in saved_ops.ROWS:
        saves = saved_ops.probe_saves(row)
        reference = saved_ops.inputs()
        saved_ops.run(row, reference).sum().backward()
        for which, (name, edit), mode in itertools.product(
                (saved_ops.INPUT, saved_ops.OUTPUT), UNCOUNTED_EDITS.items(), (contextlib.nullcontext, torch.no_grad)):
            tensors = saved_ops.inputs()
            out = saved_ops.run(row, tensors)
            edited = tensors["x"] if which == saved_ops.INPUT else out
            before, version = edited.detach().clone(), edited._version
            with mode():
                edit(edited)
            error = backward_error(out.sum())
            same = saved_ops._gradients(tensors) == saved_ops._gradients(reference)
            seen += 1
            expected_same = which not in saves or (row.code, which) in _UNCHANGED_THOUGH_SAVED
            if not (torch.equal(edited.detach(), before + 1) and edited._version == version and not error
                    and same == expected_same):
                wrong.append(f"{row.code} {which} {name} {mode.__name__}: error {error!r}, same gradients {same}")
    exceptions_saved = all(which in saved_ops.probe_saves(saved_ops.BY_CODE[code])
                           for code, which in _UNCHANGED_THOUGH_SAVED)
    return Fact(seen == len(saved_ops.ROWS) * 2 * len(UNCOUNTED_EDITS) * 2 and not wrong and exceptions_saved,
                f"runs: {seen}; not (edited by 1, _version unchanged, no error, gradients changed exactly where the "
                f"row saves the tensor edited but in {sorted(_UNCHANGED_THOUGH_SAVED)}): {wrong}; those two rows save "
                f"the tensor edited: {exceptions_saved}")


@fact("saved-other-tensors-of-layer-norm-and-where", {
    "en": "Runs F.layer_norm(x, (3,)) and torch.where(x > 1, x, y) on the \"what operations save\" table's fresh x "
          "and y (3×3, float32) under saved_tensors_hooks: of the tensors the pack hook receives, those that are "
          "neither x, y nor the output are two tensors of shape (3, 1) for layer_norm, the first equal to "
          "x.mean(-1, keepdim=True) up to rounding; for where, one tensor, equal to x > 1.",
    "zh_CN": "在 saved_tensors_hooks 下，对“各操作保存了哪些张量”表中新建的 x 和 y（3×3，float32）运行 "
             "F.layer_norm(x, (3,)) 和 torch.where(x > 1, x, y)：打包钩子收到的张量中，既不是 x、y，"
             "也不是输出的那些：layer_norm 是两个形状为 (3, 1) 的张量，第一个在舍入误差内等于 "
             "x.mean(-1, keepdim=True)；where 是一个张量，等于 x > 1。",
})
def _saved_other_tensors_of_layer_norm_and_where() -> Fact:
    """The table's "another tensor": an intermediate of layer_norm (its mean), the condition argument of where."""
    others = {}
    for code in ("F.layer_norm(x, (3,))", "torch.where(x > 1, x, y)"):
        tensors, packed = saved_ops.inputs(), []
        with torch.autograd.graph.saved_tensors_hooks(lambda t, packed=packed: packed.append(t) or t, lambda t: t):
            out = saved_ops.run(saved_ops.BY_CODE[code], tensors)
        others[code] = (tensors["x"], [t for t in packed if all(t is not u for u in (tensors["x"], tensors["y"], out))])
    x, norm = others["F.layer_norm(x, (3,))"]
    cond_x, where = others["torch.where(x > 1, x, y)"]
    mean = len(norm) == 2 and all(t.shape == (3, 1) for t in norm) and torch.allclose(
        norm[0], x.detach().mean(-1, keepdim=True))
    condition = len(where) == 1 and torch.equal(where[0], cond_x > 1)
    return Fact(mean and condition,
                f"layer_norm's other tensors: {[tuple(t.shape) for t in norm]}, the first the mean: {mean}; where's: "
                f"{[(tuple(t.shape), t.dtype) for t in where]}, equal to x > 1: {condition}")
