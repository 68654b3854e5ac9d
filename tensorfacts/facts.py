"""Named facts: the checks behind sentences that are not on an example page.

A sentence of a narrative page (home, quick reference, matrix, ledger introduction) or of the
matrix guide that states torch behaviour names the fact that proves it: ``{fact}`id``` in MyST,
or ``facts=(...)`` on a guide entry. Each fact is a small function that runs real tensors and
returns a :class:`Fact` result (holds or not, plus a short trace). The build runs every fact a page
names and fails on an unknown id or a fact that no longer holds; ``tests/test_prose_facts.py``
does the same without a build. Every fact says what it runs and over which range, in every
edition's language (shown on the facts page); the registry itself is :mod:`tensorfacts.fact_registry`. A fact
behind a general sentence is a scoped fact: one observation run over the standard range of :mod:`tensorfacts.scope`
(those facts live in :mod:`tensorfacts.general_facts`). Pure Python: imports torch, never Sphinx.

``_version``, ``_saved_self`` and the like are internal attributes of torch, used here because they
are the only way to watch the version counter; they may change between releases, and then these
checks fail loudly rather than go stale."""

from __future__ import annotations

import contextlib
import copy
import itertools

import torch

from tensorfacts.fact_registry import ABOUT, FACTS, SCOPES, Fact, fact, run_fact, scoped_fact  # noqa: F401 (the registry's API)
from tensorfacts.tensors import VERSION_ERROR, backward_error, bytes_apart, mul_under_no_grad

# --- The version counter ---------------------------------------------------------------------


@fact("version-counter-catches-saved-edit", {
    "en": "Saves y = a * 1 for backward in (y * y).sum(), edits y with y.mul_(10), and checks that y._version moved "
          "by one and that backward raises the version-counter error.",
    "zh_CN": "在 (y * y).sum() 中让反向传播保存 y = a * 1，再用 y.mul_(10) 原地修改 y；检查 y._version 加了 1，"
             "且反向传播报版本计数器错误。",
})
def _version_counter_catches_saved_edit() -> Fact:
    """An in-place edit of a tensor autograd saved moves its version; backward then raises."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * 1
    loss = (y * y).sum()  # saves y
    before = y._version
    y.mul_(10)
    error = backward_error(loss)
    return Fact(y._version == before + 1 and VERSION_ERROR in error,
                f"y._version {before} -> {y._version}; backward: {error or 'no error'}")


@fact("version-check-only-in-nodes-run", {
    "en": "Saves y = a * 1 in (y * y).sum() and adds (c * c).sum() for a second leaf c, giving z; edits y with "
          "y.mul_(10), then runs z.backward(inputs=[c]), torch.autograd.grad(z, c) and z.backward(), each on a "
          "fresh graph: the first two do not run the node that saved y (a prehook registered on its grad_fn is not "
          "called), raise nothing and give c's gradient [2, 4, 6]; the full backward runs that node (the prehook is "
          "called) and raises the version-counter error.",
    "zh_CN": "在 (y * y).sum() 中保存 y = a * 1，再加上另一个叶子张量 c 的 (c * c).sum()，得到 z；用 y.mul_(10) "
             "原地修改 y，然后分别执行 z.backward(inputs=[c])、torch.autograd.grad(z, c) 和 z.backward()，"
             "每次都用新的计算图：前两种不运行保存 y 的节点（注册在它的 grad_fn 上的 prehook 没有被调用），不报错，"
             "c 的梯度为 [2, 4, 6]；完整的反向传播运行了这个节点（prehook 被调用），报版本计数器错误。",
})
def _version_check_only_in_nodes_run() -> Fact:
    """The version check happens when a node unpacks its saved tensor: a backward that skips the node says nothing."""
    outcomes = {}
    for how in ("backward(inputs=[c])", "autograd.grad(z, c)", "backward()"):
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = a * 1
        saver = y * y  # saves y
        ran: list[bool] = []  # whether the node that saved y ran: its prehook is called before it unpacks y
        saver.grad_fn.register_prehook(lambda grads, ran=ran: ran.append(True))
        z = saver.sum() + (c * c).sum()
        y.mul_(10)
        try:
            if how == "backward(inputs=[c])":
                z.backward(inputs=[c])
                grad = c.grad.tolist()
            elif how == "autograd.grad(z, c)":
                grad = torch.autograd.grad(z, c)[0].tolist()
            else:
                z.backward()
                grad = c.grad.tolist()
            outcomes[how] = ("", grad, ran == [True])
        except RuntimeError as exc:
            outcomes[how] = (str(exc), None, ran == [True])
    skipped = all(outcomes[how] == ("", [2.0, 4.0, 6.0], False)
                  for how in ("backward(inputs=[c])", "autograd.grad(z, c)"))
    error, _, saver_ran = outcomes["backward()"]
    return Fact(skipped and VERSION_ERROR in error and saver_ran,
                "; ".join(f"{how}: node that saved y ran: {node_ran}, {error or 'no error'}, grad of c = {grad}"
                          for how, (error, grad, node_ran) in outcomes.items()))


@fact("saved-tensor-hooks-hide-edit", {
    "en": "Saves a Parameter w in (w * w).sum(), edits w.detach() with mul_(10) under torch.no_grad() and runs "
          "backward three times: with no hooks it raises the version-counter error; when w was saved under "
          "torch.autograd.graph.save_on_cpu() or under identity pack and unpack hooks "
          "(torch.autograd.graph.saved_tensors_hooks), it raises nothing and w.grad is [20, 40, 60] where the "
          "loss's gradient is [2, 4, 6].",
    "zh_CN": "在 (w * w).sum() 中保存 Parameter w，在 torch.no_grad() 下用 mul_(10) 原地修改 w.detach()，再反向传播，"
             "共做三次：不用钩子时报版本计数器错误；w 是在 torch.autograd.graph.save_on_cpu() 下，或在原样打包、"
             "原样解包的钩子（torch.autograd.graph.saved_tensors_hooks）下保存的，就不报错，w.grad 为 "
             "[20, 40, 60]，而这个损失的梯度应是 [2, 4, 6]。",
})
def _saved_tensor_hooks_hide_edit() -> Fact:
    """Saved-tensor hooks take the saved tensor out of autograd's version check: an edit goes unnoticed."""
    outcomes = {}
    for name, hooks in (("no hooks", contextlib.nullcontext),
                        ("save_on_cpu", torch.autograd.graph.save_on_cpu),
                        ("identity hooks", lambda: torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t))):
        w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
        with hooks():
            loss = (w * w).sum()  # saves w
        with torch.no_grad():
            w.detach().mul_(10)
        outcomes[name] = (backward_error(loss), w.grad.tolist() if w.grad is not None else None)
    caught = VERSION_ERROR in outcomes["no hooks"][0]
    unnoticed = all(outcomes[name] == ("", [20.0, 40.0, 60.0]) for name in ("save_on_cpu", "identity hooks"))
    return Fact(caught and unnoticed, "; ".join(f"{name}: backward {error or 'no error'}, w.grad = {grad}"
                                                for name, (error, grad) in outcomes.items()))


class _KeptOnCtx(torch.autograd.Function):
    """Squares x, keeping x as ``ctx.x`` instead of through ``ctx.save_for_backward``."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, grad):
        return 2 * ctx.x * grad


class _SavedForBackward(torch.autograd.Function):
    """Squares x, saving x with ``ctx.save_for_backward``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


#: The in-place edits of a saved leaf ``a`` that the ctx-attribute fact runs, by name.
_CTX_EDITS = {
    "a.mul_(10) under no_grad": mul_under_no_grad,
    "a.detach().mul_(10)": lambda a: a.detach().mul_(10),
}


@fact("ctx-attribute-escapes-version-check", {
    "en": "Squares a with two custom torch.autograd.Function classes, edits a in place (a._version becomes 1), runs "
          "backward, once for each edit, a.mul_(10) under torch.no_grad() and a.detach().mul_(10): the one that "
          "saved a with ctx.save_for_backward raises the version-counter error; the one that kept it as ctx.x = a "
          "raises nothing and gives a.grad = [20, 40, 60] where the loss's gradient is [2, 4, 6].",
    "zh_CN": "用两个自定义的 torch.autograd.Function 计算 a 的平方，原地修改 a（a._version 变成 1）后反向传播，"
             "两种修改各做一次：在 torch.no_grad() 下执行 a.mul_(10)，以及 a.detach().mul_(10)。"
             "用 ctx.save_for_backward 保存 a 的那个报版本计数器（version counter）错误；"
             "用 ctx.x = a 留下它的那个不报错，a.grad 为 [20, 40, 60]，而这个损失的梯度应是 [2, 4, 6]。",
})
def _ctx_attribute_escapes_version_check() -> Fact:
    """A tensor a custom Function keeps as a ctx attribute is not version-checked: an edit goes unnoticed."""
    outcomes = {}
    for edit_name, edit in _CTX_EDITS.items():
        for function in (_SavedForBackward, _KeptOnCtx):
            a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            loss = function.apply(a).sum()
            edit(a)
            outcomes[edit_name, function.__name__] = (a._version, backward_error(loss),
                                                      a.grad.tolist() if a.grad is not None else None)
    counted = all(version == 1 for version, _, _ in outcomes.values())
    caught = all(VERSION_ERROR in outcomes[edit_name, "_SavedForBackward"][1] for edit_name in _CTX_EDITS)
    unnoticed = all(outcomes[edit_name, "_KeptOnCtx"][1:] == ("", [20.0, 40.0, 60.0]) for edit_name in _CTX_EDITS)
    return Fact(counted and caught and unnoticed,
                "; ".join(f"{edit_name}, {name}: _version {version}, backward {'raises' if error else 'no error'}, "
                          f"a.grad = {grad}" for (edit_name, name), (version, error, grad) in outcomes.items()))


# --- Copies and conversions ------------------------------------------------------------------


@fact("double-of-float64-is-a", {
    "en": "On a float64 leaf a that requires grad, checks a.double() is a; on a float32 one, that a.double() is "
          "a new float64 tensor with its own storage and a ToCopyBackward0 node.",
    "zh_CN": "对需要梯度的 float64 叶子张量 a，检查 a.double() is a；对 float32 的，检查 a.double() 是一个新的 "
             "float64 张量，有自己的存储，带 ToCopyBackward0 节点。",
})
def _double_of_float64_is_a() -> Fact:
    """a.double() copies only when a is not float64 already."""
    wide = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    narrow = torch.tensor([1.0, 2.0], requires_grad=True)
    copied = narrow.double()
    node = type(copied.grad_fn).__name__
    converted = copied.dtype == torch.float64 and bytes_apart(copied, narrow) and node == "ToCopyBackward0"
    return Fact(wide.double() is wide and converted,
                f"float64: a.double() is a: {wide.double() is wide}; float32: {copied.dtype}, node {node}")


#: Views of a 1000-element tensor ``b`` of every kind the deepcopy sentence covers, a view of a view among them.
DEEPCOPY_VIEWS = {
    "b[:2]": lambda b: b[:2], "b[::500]": lambda b: b[::500], "b.view(10, 100)[3]": lambda b: b.view(10, 100)[3],
    "b.view(10, 100)[:, 1]": lambda b: b.view(10, 100)[:, 1], "b.view(10, 100).t()": lambda b: b.view(10, 100).t(),
    "b.view(1000, 1).expand(1000, 3)": lambda b: b.view(1000, 1).expand(1000, 3),
    "b.view(10, 100).diagonal()": lambda b: b.view(10, 100).diagonal(), "b.unsqueeze(0)": lambda b: b.unsqueeze(0),
    "b.narrow(0, 10, 5)": lambda b: b.narrow(0, 10, 5), "b.as_strided((2, 2), (3, 1), 5)":
        lambda b: b.as_strided((2, 2), (3, 1), 5), "b[:2][1:]": lambda b: b[:2][1:],
    "b.view(torch.uint8)": lambda b: b.view(torch.uint8),
}
DEEPCOPY_DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.uint8, torch.bool, torch.complex64)


def _storage_bytes(t: torch.Tensor) -> torch.Tensor:
    """Every byte of ``t``'s storage, as a uint8 tensor on it (comparing ``storage.tolist()`` reads each byte
    through Python)."""
    with torch.inference_mode(t.is_inference()):
        return torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage())


@fact("deepcopy-view-copies-storage", {
    "en": "Deep-copies and clones 12 views (b[:2], b[::500], a row, a column and the transpose of b.view(10, 100), "
          "an expand(), diagonal(), unsqueeze(), narrow(), as_strided(), a view of a view, view(torch.uint8)) of a "
          "1000-element CPU tensor b that does not require grad, a plain tensor and an inference tensor: the deep "
          "copy's storage holds every byte of b's storage, the clone's only the view's elements; for b[:2] of "
          "float32, 4000 bytes against 8.",
    "zh_CN": "对不需要梯度的 1000 个元素的 CPU 张量 b（普通张量和推理张量）取 12 种视图（b[:2]、b[::500]、"
             "b.view(10, 100) 的一行、一列和转置、expand()、diagonal()、unsqueeze()、narrow()、as_strided()、视图的"
             "视图、view(torch.uint8)），分别深拷贝和 clone()：深拷贝的存储含有 b 的存储的每个字节，clone() 的只含"
             "视图中的元素；float32 的 b[:2]，前者 4000 字节，后者 8 字节。",
}, {"en": "12 views of a plain and of an inference CPU tensor of 1000 elements, each of 7 dtypes (float32, float64, "
          "bfloat16, int64, uint8, bool, complex64)",
    "zh_CN": "CPU 上 1000 个元素的普通张量和推理张量，各 7 种 dtype（float32、float64、bfloat16、int64、uint8、bool、"
             "complex64），每个取 12 种视图"})
def _deepcopy_view_copies_storage() -> Fact:
    wrong = []
    for dtype in DEEPCOPY_DTYPES:
        for inference in (False, True):
            with torch.inference_mode(inference):
                base = torch.arange(1000).to(dtype)
            for name, take in DEEPCOPY_VIEWS.items():
                view = take(base)
                deep, clone = copy.deepcopy(view), view.clone()
                if (not torch.equal(_storage_bytes(deep), _storage_bytes(base)) or not torch.equal(deep, view)
                        or clone.untyped_storage().nbytes() != view.numel() * view.element_size()):
                    wrong.append(f"{name} {dtype} inference={inference}")
    example = torch.zeros(1000)[:2]
    deep, clone = copy.deepcopy(example).untyped_storage().nbytes(), example.clone().untyped_storage().nbytes()
    return Fact(not wrong and deep == 4000 and clone == 8,
                f"float32 b[:2], deepcopy: {deep} bytes, clone(): {clone} bytes; "
                f"views not as stated: {wrong or 'none'}")


#: The leaves that require grad the in-place edits of ``leaf-refuses-inplace`` are tried on.
LEAVES = {"a = [1, 2, 3]": lambda: torch.tensor([1.0, 2.0, 3.0], requires_grad=True),
          "a = [[1, 2], [3, 4]]": lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
          "a = Parameter([1, 2, 3])": lambda: torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))}
#: The in-place edits: two calls, an index write (``a[1, 1]`` on the 2×2 leaf), ``+=`` and a soft update.
LEAF_EDITS = {"add_(1)": lambda t: t.add_(1), "mul_(10)": lambda t: t.mul_(10),
              "a[1] = 200.0": lambda t: t.__setitem__((1,) * t.dim(), 200.0), "a += 1": lambda t: t.__iadd__(1),
              "lerp_(ones, 0.05)": lambda t: t.lerp_(torch.ones_like(t), 0.05)}


@fact("leaf-refuses-inplace", {
    "en": "Tries a.add_(1), a.mul_(10), the index write a[1] = 200.0 (a[1, 1] = 200.0 on the 2×2 leaf), a += 1 and "
          "a.lerp_(ones, 0.05) on three leaves that require grad, a = [1, 2, 3], a = [[1, 2], [3, 4]] and "
          "a = Parameter([1, 2, 3]), each fresh: each edit is refused (an error that names the leaf Variable) with "
          "grad mode on outside torch.inference_mode(), torch.enable_grad() inside torch.no_grad() included, leaving "
          "a as it was, and under torch.no_grad() it runs and changes a, which stays a leaf. Then on a = [1, 2, 3], "
          "under torch.no_grad() a.add_(1) makes a [2, 3, 4]; inside torch.inference_mode() with "
          "torch.enable_grad(), which turns grad mode on, it runs, and a becomes [3, 4, 5].",
    "zh_CN": "对三个需要梯度的叶子张量 a = [1, 2, 3]、a = [[1, 2], [3, 4]] 和 a = Parameter([1, 2, 3])，每次都新建，"
             "分别尝试 a.add_(1)、a.mul_(10)、索引写入 a[1] = 200.0（2×2 的叶子张量上是 a[1, 1] = 200.0）、"
             "a += 1 和 a.lerp_(ones, 0.05)：在 torch.inference_mode() 之外、梯度模式打开时，每次修改都被拒绝"
             "（报错信息提到 leaf Variable），在 torch.no_grad() 里用 torch.enable_grad() 打开梯度模式也一样，"
             "a 保持原样；在 torch.no_grad() 下每次修改都能执行，a 的数值变了，仍是叶子张量。"
             "再对 a = [1, 2, 3]：在 torch.no_grad() 下 a.add_(1) 让 a 变为 [2, 3, 4]；"
             "在 torch.inference_mode() 里用 torch.enable_grad() 打开梯度模式，它也可以执行，a 变为 [3, 4, 5]。",
})
def _leaf_refuses_inplace() -> Fact:
    """A leaf that requires grad refuses an in-place edit with grad mode on, accepts it under no_grad, and inside
    inference_mode with grad mode turned on there."""
    refused, accepted = {}, {}
    for (leaf, make), (edit_name, edit) in itertools.product(LEAVES.items(), LEAF_EDITS.items()):
        for name, outer in (("grad on", contextlib.nullcontext), ("enable_grad() in no_grad()", torch.no_grad)):
            a = make()
            with outer(), torch.enable_grad():
                try:
                    edit(a)
                except RuntimeError as exc:
                    refused[f"{leaf}: {edit_name}, {name}"] = "leaf Variable" in str(exc) and torch.equal(a, make())
                else:
                    refused[f"{leaf}: {edit_name}, {name}"] = False
        a = make()
        with torch.no_grad():
            edit(a)
        accepted[f"{leaf}: {edit_name}"] = a.is_leaf and not torch.equal(a, make())
    a = LEAVES["a = [1, 2, 3]"]()
    with torch.no_grad():
        a.add_(1)
    after_no_grad = a.tolist()
    with torch.inference_mode(), torch.enable_grad():
        grad_on_inside = torch.is_grad_enabled()
        a.add_(1)
    return Fact(all(refused.values()) and all(accepted.values()) and after_no_grad == [2.0, 3.0, 4.0]
                and grad_on_inside and a.tolist() == [3.0, 4.0, 5.0],
                f"{len(refused)} edits with grad mode on not refused with a kept: "
                f"{[case for case, ok in refused.items() if not ok] or 'none'}; {len(accepted)} under no_grad that "
                f"did not run and change a: {[case for case, ok in accepted.items() if not ok] or 'none'}; "
                f"after a.add_(1) under no_grad: {after_no_grad}; grad mode on inside "
                f"inference_mode with enable_grad: {grad_on_inside}; after a.add_(1) there: {a.tolist()}")


# The facts of the other modules, registered on import (each module's docstring says which facts it holds).
import tensorfacts.anomaly_facts  # noqa: E402, F401
import tensorfacts.autocast_facts  # noqa: E402, F401
import tensorfacts.conj_bit_facts  # noqa: E402, F401
import tensorfacts.copy_ways_dtype_facts  # noqa: E402, F401
import tensorfacts.copy_ways_facts  # noqa: E402, F401
import tensorfacts.custom_function_facts  # noqa: E402, F401
import tensorfacts.deepcopy_refusal_facts  # noqa: E402, F401
import tensorfacts.glossary_facts  # noqa: E402, F401
import tensorfacts.grad_mode_write_facts  # noqa: E402, F401
import tensorfacts.grad_off_view_write_facts  # noqa: E402, F401
import tensorfacts.inference_alias_facts  # noqa: E402, F401
import tensorfacts.inference_facts  # noqa: E402, F401
import tensorfacts.inference_grad_on_facts  # noqa: E402, F401
import tensorfacts.inference_module_facts  # noqa: E402, F401
import tensorfacts.inference_new_memory_facts  # noqa: E402, F401
import tensorfacts.inference_uncounted_facts  # noqa: E402, F401
import tensorfacts.layout_facts  # noqa: E402, F401
import tensorfacts.list_repeat_facts  # noqa: E402, F401
import tensorfacts.memory_facts  # noqa: E402, F401
import tensorfacts.module_copy_facts  # noqa: E402, F401
import tensorfacts.no_grad_view_edit_facts  # noqa: E402, F401
import tensorfacts.no_grad_view_facts  # noqa: E402, F401
import tensorfacts.no_grad_view_operation_facts  # noqa: E402, F401
import tensorfacts.saved_conj_view_facts  # noqa: E402, F401
import tensorfacts.saved_view_facts  # noqa: E402, F401
import tensorfacts.view_facts  # noqa: E402, F401
import tensorfacts.vmap_data_facts  # noqa: E402, F401
from tensorfacts import (  # noqa: E402, F401
    array_refusal_facts,
    asarray_facts,
    cast_leaf_facts,
    counter_bypass_facts,
    data_edit_facts,
    data_setter_facts,
    detach_data_facts,
    detach_layout_facts,
    detach_metadata_facts,
    dtype_change_layout_facts,
    general_facts,
    index_copy_edit_facts,
    index_kind_facts,
    index_read_facts,
    meta_index_facts,
    numpy_facts,
    optimizer_facts,
    process_facts,
    scoped_table_facts,
    split_facts,
    table_facts,
    table_note_facts,
    trainable_copy_facts,
    unsafe_piece_facts,
    vjp_facts,  # noqa: E402, F401
)
