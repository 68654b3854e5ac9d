"""The one terminology list of the site: each Chinese term, its English twin, and the page that shows it.

Three things read this list, so they can never disagree:

- the glossary pages (``docs/<code>/glossary.md``), through the ``terms-table`` and ``core-terms`` directives;
- the Chinese search: ``docs/_shared/zh_search_terms.txt``, jieba's user dictionary, is written from
  this list (``python -m sitetools.rules.terms --update``), so that a reader who types a term, one of its
  other names or a variant we avoid finds the glossary; and every one of those words is an entry of
  the Chinese search index pointing at the term's page (``tensorcopy_sphinx.zh_search``), so that the
  page comes first even where its text uses another word (版本号 for 版本计数器, 内存泄漏);
- the wording rule (:mod:`sitetools.rules.wording`) reports a variant to avoid (原位 for 原地操作) on a Chinese
  page, outside quotation marks (a quoted article keeps its own words).

:data:`sitetools.rules.wording.WORDING` holds the house words that are not terms of the glossary (最保险, 解决办法,
notebook, 单元格, 共享, 本次构建, 框内 ...): the wording rule enforces them, the glossary and the search leave them out.
内存 and 存储 are a rule no list can hold (CONTRIBUTING.md, 'Typography'): 存储 for torch's storage object
(``untyped_storage()``, ``S1`` in the pictures, ``same storage:``), 内存 for memory in general.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from sitetools.rules.index_terms import (
    ADVANCED_INDEXING_EN,
    ADVANCED_INDEXING_ZH,
    BASIC_INDEXING_EN,
    BASIC_INDEXING_ZH,
)

ROOT = Path(__file__).resolve().parents[2]
SEARCH_DICTIONARY = ROOT / "docs" / "_shared" / "zh_search_terms.txt"
UPDATE_COMMAND = "python -m sitetools.rules.terms --update"


@dataclasses.dataclass(frozen=True)
class Term:
    zh: str  #: the word the Chinese pages use
    en: str  #: the English term (backticks mark code)
    page: str  #: the reference label of the page that shows it
    also: tuple[str, ...] = ()  #: other names readers type (aliases), which the pages may use too
    avoid: tuple[str, ...] = ()  #: variants the Chinese pages do not use outside quotations
    define_en: str = ""  #: a short definition, in English (the glossary's last column)
    define_zh: str = ""  #: the same definition, in Chinese
    gloss: str = ""  #: for a core term, the English its first mention on a Chinese page carries in parentheses
    mention: str = ""  #: what counts as a mention of a core term (a pattern; its Chinese word if empty)


TERMS: tuple[Term, ...] = (
    Term("张量", "tensor", "copying-alias",
         define_en="A multi-dimensional array; a strided (dense) CPU tensor that is neither nested nor quantized reads "
                   "its values from a storage through its dtype, shape, strides and offset (and, for a lazily "
                   "conjugated or negated view, its conjugate or negative bit). Exceptions include the tensor a "
                   "function receives inside `torch.func.vmap` or `torch.func.grad`: it is strided too, yet has no "
                   "storage (its `untyped_storage()` raises).",
         define_zh="多维数组；布局为 strided（稠密）、既非嵌套也非量化的 CPU 张量，按 dtype、形状、步长和偏移从一块存储"
                   "读取数值。延迟共轭或取负的视图（view）还要看它的共轭位（conjugate bit）或负号位（negative bit）。"
                   "例外之一是函数在 `torch.func.vmap` 或 `torch.func.grad` 里收到的张量：布局同样是 strided，"
                   "却没有存储（调用它的 `untyped_storage()` 会报错）。"),
    Term("复制", "copy", "copying-clone", also=("拷贝", "副本"),
         define_en="Making a new tensor whose values sit in memory of its own.",
         define_zh="生成一个新张量，数值存放在它自己的内存里。"),
    Term("克隆", "clone, `clone()`", "copying-clone",
         define_en="`clone()`: a copy of the values into new memory; in grad mode (not inside "
                   "`torch.inference_mode()`), the clone of a tensor that requires grad stays in the computation "
                   "graph, except that of a sparse, nested or mkldnn inference tensor and that of a view taken with "
                   "grad mode off (under `torch.no_grad()`, `torch.inference_mode()` or "
                   "`torch.set_grad_enabled(False)`), or of a view of such a view, once the view or its base has been "
                   "edited in place, since the view was taken, by an edit autograd counts (as tried: `mul_()` under "
                   "`torch.no_grad()` or inside `torch.inference_mode()` of the view or of a float32 or complex64 leaf "
                   "or non-leaf, or a step of `torch.optim.SGD` given only a learning rate). Before any in-place edit "
                   "of the view, its base or another view of that base, the clone of such a view, or of a view of it, "
                   "passes no gradient to the view's base, nor to the view taken with grad mode off unless "
                   "`requires_grad_()` was called on it before that clone, or the view of it, was taken; the clone of "
                   "a view of it taken with grad mode off passes it no gradient even then.",
         define_zh="`clone()`：把数值复制到新内存的副本；在梯度模式（grad mode）下（不在 `torch.inference_mode()` 里）"
                   "，需要梯度的张量的副本仍留在计算图中，但稀疏、嵌套或 mkldnn 推理张量（inference tensor）的副本除外"
                   "；梯度模式关闭时（在 `torch.no_grad()`、`torch.inference_mode()` 或 `torch.set_grad_enabled(False)`"
                   " 下）取的视图，从取得它起，一旦它或它的基张量（base tensor）经过自动求导计入的原地（in-place）修改"
                   "（这里试的是：在 `torch.no_grad()` 下或 `torch.inference_mode()` 里，对这个视图或 float32、"
                   "complex64 的叶子张量（leaf tensor）或非叶子张量调用 `mul_()`，或用只给定学习率的 `torch.optim.SGD` "
                   "走一步），它的副本和它的视图的副本也除外。在这种视图、它的基张量或这个基张量的其他视图被原地修改之"
                   "前，这种视图的副本，以及这种视图的视图的副本，都不把梯度传给视图的基张量，也不传给梯度模式关闭时取"
                   "的那个视图，除非在取得这份副本或那个视图之前，就对这个视图调用过 `requires_grad_()`；如果它的视图也"
                   "是在梯度模式关闭时取的，那个视图的副本即使这样也不把梯度传给它。"),
    Term("浅拷贝", "shallow copy, `copy.copy`", "questions-deepcopy", avoid=("浅复制",),
         define_en="Copying only the outer object: the copy holds the same objects as the original, not copies of "
                   "them.",
         define_zh="只复制外层对象：副本装的是原对象所含的那些对象本身，而不是它们的副本。"),
    Term("深拷贝", "deep copy, `copy.deepcopy`", "questions-deepcopy", avoid=("深复制",),
         define_en="Copying an object and, level by level, the objects it holds, instead of sharing them.",
         define_zh="复制一个对象，并逐层复制它所含的对象，而不是共享它们。"),
    Term("存储", "storage", "copying-alias",
         define_en="The memory a tensor reads its values from (`untyped_storage()`), shared by its views and their "
                   "base tensor. Some have none, e.g. a sparse tensor or a function's input in `torch.func.vmap`.",
         define_zh="张量读取数值的那块内存（`untyped_storage()`），它的视图和视图的基张量（base tensor）都共享这块"
                   "存储。有些张量没有存储，例如稀疏张量，以及函数在 `torch.func.vmap` 里收到的张量。"),
    Term("共享内存", "shared memory", "questions-shared-memory",
         define_en="Memory that several processes map at once, so a write in one is seen by the others.",
         define_zh="几个进程同时映射的内存，一个进程写入，其他进程都能看到。"),
    Term("视图", "view", "questions-views", gloss="view",
         define_en="A tensor that reads the storage of the tensor it was made from, so a write to elements they share "
                   "shows in both.",
         define_zh="与源张量读取同一块存储的张量，写入两者共有的元素，两边都能看到改动。"),
    Term("基张量", "base tensor, `_base`", "questions-views", gloss="base tensor",
         define_en="The tensor at the root of a chain of tensors autograd records as views (not, for example, "
                   "`detach()`, `.data`, `view(dtype)`, or a sparse tensor's `indices()`, `crow_indices()`, "
                   "`col_indices()`, `ccol_indices()` or `row_indices()`: their results have no `_base` and start a "
                   "chain of their own); a view's `_base`, where set, names it (`x[1:][1:]._base is x`; "
                   "`v = x.view(torch.int32)` has none, and `v[1:]._base is v`). A view of an inference tensor has "
                   "no `_base`, whether taken inside `torch.inference_mode()` or outside it.",
         define_zh="自动求导（autograd）记作视图的一串张量最初的那个张量（例如 `detach()`、`.data`、`view(dtype)`，以"
                   "及稀疏张量的 `indices()`、`crow_indices()`、`col_indices()`、`ccol_indices()` 和 `row_indices()` "
                   "都不算：它们的结果没有 `_base`，从自己开始另起一串）；视图的 `_base` 若有值，指向的就是它（"
                   "`x[1:][1:]._base is x`；`v = x.view(torch.int32)` 没有 `_base`，`v[1:]._base is v`）。推理张量（"
                   "inference tensor）的视图没有 `_base`，无论是在 `torch.inference_mode()` 之内还是之外取的。"),
    Term("源张量", "source tensor", "copying-alias",
         define_en="The tensor a copy, a view or a conversion is made from.",
         define_zh="复制、视图或转换所依据的那个张量。"),
    Term("别名", "alias", "copying-alias",
         define_en="Another name or object that reaches the memory of a tensor or an array instead of a copy of it, "
                   "such as `b = a`, a view, or what `t.numpy()`, `torch.from_numpy(n)`, `np.from_dlpack(t)`, "
                   "`torch.from_dlpack(t)` and `torch.from_dlpack(n)` return given no other argument, for a strided "
                   "CPU tensor `t` (with `copy=True`, the DLPack calls return a copy; the calls on `t` raise in cases "
                   "that include these: given a `t` that requires grad, the DLPack calls on `t` raise, and so does "
                   "`t.numpy()` wherever `torch.is_grad_enabled()` is true; given a `t` with the conjugate bit set, "
                   "`t.numpy()` and the DLPack calls on `t` raise; given a `t` of a dtype NumPy lacks, such as "
                   "bfloat16, `t.numpy()` and `np.from_dlpack(t)` raise; and given one with the negative bit set, "
                   "`t.numpy()` raises while `np.from_dlpack(t)` and `torch.from_dlpack(t)` return an alias without "
                   "that bit, which reads the negatives of `t`'s values). The calls on `n` fail in some cases too: "
                   "given an array in the other byte order, both raise, and given `np.arange(6.0)[::-1]`, a flipped "
                   "array, `torch.from_numpy(n)` raises while `torch.from_dlpack(n)` aborts the Python process on "
                   "torch 2.13.0.",
         define_zh="通向某个张量或数组的内存的另一个名字或对象，而不是它的副本，比如 `b = a`、视图，或者对布局为 "
                   "strided 的 CPU 张量 `t`，不传其他参数时 `t.numpy()`、`torch.from_numpy(n)`、`np.from_dlpack(t)`、"
                   "`torch.from_dlpack(t)` 和 `torch.from_dlpack(n)` 返回的对象（传入 `copy=True` 时，这几个 DLPack "
                   "调用返回副本；对 `t` 的调用在一些情形下报错，其中包括：`t` 需要梯度时，对 `t` 的 DLPack 调用报错"
                   "，只要 `torch.is_grad_enabled()` 为真，`t.numpy()` 也报错；`t` 带共轭位时，`t.numpy()` 和对 `t` "
                   "的 DLPack 调用都报错；`t` 的 dtype 是 NumPy 没有的（比如 bfloat16）时，`t.numpy()` 和 "
                   "`np.from_dlpack(t)` 报错；`t` 带负号位时，`t.numpy()` 报错，`np.from_dlpack(t)` 和 "
                   "`torch.from_dlpack(t)` 则返回不带这个标志位的别名，读到的是 `t` 各值的相反数）。对 `n` 的调用在一"
                   "些情形下也会失败：数组的字节序与本机不同时，两者都报错；对翻转过的数组 `np.arange(6.0)[::-1]`，"
                   "`torch.from_numpy(n)` 报错，`torch.from_dlpack(n)` 则在 torch 2.13.0 上让 Python 进程直接中止。"),
    Term("原地操作", "in-place operation", "questions-version-counter", also=("原地修改",),
         avoid=("原位操作", "原位", "就地操作", "就地"), gloss="in-place", mention=r"(?<!在)原地",
         define_en="An operation that writes its result into an existing tensor (`add_`, `t[0] = 1`).",
         define_zh="把结果写进已有张量的运算（`add_`、`t[0] = 1`）。"),
    Term("重新绑定", "rebinding a name", "copying-rebinding",
         define_en="Making a Python name refer to another object; the old tensor itself is untouched.",
         define_zh="让 Python 名字指向另一个对象，原来的张量本身不受影响。"),
    Term("版本计数器", "version counter, `_version`", "questions-version-counter", also=("版本号",),
         gloss="version counter",
         define_en="A count on a tensor (`_version`) that `add_` and most other in-place operations move up; autograd "
                   "reads it to see that a tensor it saved changed.",
         define_zh="张量上的一个计数（`_version`），`add_` 等大多数原地操作都会推进它；"
                   "自动求导靠比较它发现自己保存的张量被改过。"),
    Term("异常检测模式", "anomaly detection mode, `torch.autograd.detect_anomaly()`", "questions-inplace-error",
         define_en="A debugging mode, `torch.autograd.detect_anomaly()`, that records where the forward pass created "
                   "each node, so that when a node fails during the backward pass (not an error raised before any "
                   "node runs), a warning names that node and shows the traceback of that forward call.",
         define_zh="一种调试模式（`torch.autograd.detect_anomaly()`）：记下前向传播中每个节点在哪里创建，反向传播中"
                   "某个节点出错时（任何节点运行之前抛出的错误除外），发出警告，给出该节点的名字和创建它的前向调用的调用栈。"),
    Term("计算图", "computation graph", "questions-graph-kept-alive",
         define_en="The graph of operations autograd records to run the backward pass.",
         define_zh="自动求导记录下的运算图，反向传播沿着它进行。"),
    Term("内存泄漏", "memory leak", "questions-graph-kept-alive", also=("显存泄漏",),
         define_en="Memory that keeps growing because something still refers to tensors, or graphs, no longer needed.",
         define_zh="不再需要的张量或计算图仍被引用，内存占用于是不断增长。"),
    Term("显存", "GPU memory", "questions-best-weights",
         define_en="The memory of a GPU, where CUDA tensors keep their storage.",
         define_zh="GPU 上的内存，CUDA 张量的存储就在这里。"),
    Term("自动求导", "autograd", "data-vs-detach-detach", also=("autograd",), gloss="autograd",
         mention=r"自动求导|(?<![\w.`/])autograd(?![\w.`/(])",
         define_en="PyTorch's engine that records operations on tensors and computes their gradients.",
         define_zh="PyTorch 记录张量上的运算并计算梯度的机制。"),
    Term("需要梯度", "`requires_grad=True`", "copying-clone", avoid=("需要求导",),
         define_en="A tensor's flag `requires_grad` set to `True`: in grad mode, autograd records the differentiable "
                   "operations that use the tensor; under `torch.no_grad()` it does not. For an inference tensor that "
                   "requires grad, used outside `torch.inference_mode()`, it records only some: see leaf tensor.",
         define_zh="张量的标志 `requires_grad` 为 `True`：在梯度模式下，用到这个张量的可求导运算会被自动求导记录下来；"
                   "在 `torch.no_grad()` 下不记录。在 `torch.inference_mode()` 之外使用的、需要梯度的推理张量"
                   "（inference tensor），只有部分运算被记录，见“叶子张量（leaf tensor）”。"),
    Term("梯度模式", "grad mode, `torch.is_grad_enabled()`", "copying-clone", avoid=("求导模式",), gloss="grad mode",
         define_en="The default of PyTorch's three grad modes (with no-grad mode, under `torch.no_grad()`, and "
                   "inference mode): autograd records operations. `torch.is_grad_enabled()` tells it, except inside "
                   "`torch.inference_mode()`, which records nothing even where `torch.enable_grad()` makes it `True`.",
         define_zh="PyTorch 三种梯度模式中的默认模式（另两种是 `torch.no_grad()` 下的无梯度模式和推理模式）："
                   "自动求导记录运算。`torch.is_grad_enabled()` 可以判断，只有 `torch.inference_mode()` 例外："
                   "在其中即使用 `torch.enable_grad()` 让它返回 `True`，也什么都不记录。"),
    Term("反向传播", "backward pass, `backward()`", "questions-non-leaf-grad",
         define_en="Walking the computation graph back from a result to compute gradients.",
         define_zh="从结果沿计算图往回走，算出梯度。"),
    Term("梯度", "gradient, `.grad`", "questions-non-leaf-grad",
         define_en="The derivative of a result with respect to a tensor; for a leaf that requires grad, `.grad` is "
                   "where `backward()` accumulates it.",
         define_zh="结果对某个张量的导数；对需要梯度的叶子张量（leaf tensor），`.grad` 是 `backward()` 累加它的地方。"),
    Term("叶子张量", "leaf tensor", "questions-non-leaf-grad", also=("叶子节点", "叶节点"),
         gloss="leaf tensor", mention=r"(?<!非)叶子张量",
         define_en="A tensor whose `grad_fn` is `None`: no recorded operation produced it. If it requires grad and is "
                   "not an inference tensor, `backward()` accumulates its gradient into its `.grad` (a view made a "
                   "leaf with `requires_grad_()` included). Exceptions include a view of such a tensor, or of a "
                   "non-leaf tensor that requires grad, taken with grad mode off (under `torch.no_grad()`, "
                   "`torch.inference_mode()` or `torch.set_grad_enabled(False)`): no operation on it or on a view of "
                   "it (`clone()` included) passes it a gradient unless `requires_grad_()` was called on it before "
                   "that operation ran or that view was taken; through a view of it taken with grad mode off, none "
                   "does even then. A parameter of a module built inside `torch.inference_mode()` is an inference "
                   "tensor that requires grad, and only some of the operations that use it pass it a gradient. To "
                   "train a module, build it outside `torch.inference_mode()`.",
         define_zh="`grad_fn` 为 `None` 的张量，也就是说，它不是自动求导记录下的运算算出来的。若它需要梯度、又不是推理"
                   "张量（inference tensor），`backward()` 会把梯度累加到它的 `.grad` 里，用 `requires_grad_()` 变成叶"
                   "子张量的视图也是如此。例外包括梯度模式关闭时（在 `torch.no_grad()`、`torch.inference_mode()` 或 "
                   "`torch.set_grad_enabled(False)` 下）对这样的张量或需要梯度的非叶子张量取的视图：对它或它的视图"
                   "做的运算（包括 `clone()`）都不把梯度传给它，除非在做这次运算或取那个视图之前，就对它调用过 "
                   "`requires_grad_()`；如果它的视图也是在梯度模式关闭时取的，对那个视图的运算即使这样也不把梯度传给它。"
                   "在 `torch.inference_mode()` 里构建的模块，其参数是需要梯度的推理张量，用到它的运算只有一部分会把梯"
                   "度传给它。要训练一个模块，就在 `torch.inference_mode()` 之外构建它。"),
    Term("非叶子张量", "non-leaf tensor", "questions-non-leaf-grad",
         define_en="The result of a recorded operation (it has a `grad_fn`); its `.grad` stays `None` by default.",
         define_zh="记录下的运算的结果（有 `grad_fn`），它的 `.grad` 默认保持 `None`。"),
    Term("推理张量", "inference tensor", "questions-inference-mode", gloss="inference tensor",
         define_en="A tensor whose `is_inference()` is `True`, such as `x * 2` computed under "
                   "`torch.inference_mode()`, which has no version counter. A view of a normal tensor taken in the "
                   "mode (by indexing, `view(shape)`, `t()` or another view operation), its `detach()` and its `.data` "
                   "are not one, but its `view(dtype)` is; a `detach()` or `.data` of one taken outside the mode is "
                   "one, yet has a counter.",
         define_zh="`is_inference()` 为 `True` 的张量，比如在 `torch.inference_mode()` 下算出的 `x * 2`，"
                   "它没有版本计数器。在该模式下对普通张量用索引、`view(shape)`、`t()` 等视图操作取的视图，"
                   "以及它的 `detach()` 和 `.data`，都不是推理张量，它的 `view(dtype)` 却是；"
                   "在模式外对推理张量取的 `detach()` 或 `.data` 仍是推理张量，却有版本计数器。"),
    Term("推理模式", "inference mode, `torch.inference_mode()`", "questions-inference-mode",
         define_en="The grad mode of `torch.inference_mode()`: autograd records nothing, even under "
                   "`torch.enable_grad()`, and modules that compute their output into new memory, such as `Linear`, "
                   "`Conv2d`, `LSTM` and `ReLU()`, return inference tensors; `nn.ReLU(inplace=True)` writes into its "
                   "input and returns that input itself, so a normal input comes back a normal tensor.",
         define_zh="`torch.inference_mode()` 下的梯度模式：自动求导什么都不记录（即使用了 `torch.enable_grad()`），"
                   "在新内存里算出输出的模块（比如 `Linear`、`Conv2d`、`LSTM` 和 `ReLU()`）返回推理张量；"
                   "`nn.ReLU(inplace=True)` 则把结果写进输入，返回的就是输入本身，所以普通的输入返回时仍是普通张量。"),
    Term("张量列表", "list of tensors, `[t] * n`", "questions-containers",
         define_en="A Python list of tensors; `[t] * n` holds one tensor n times, not n tensors.",
         define_zh="装着张量的 Python 列表；`[t] * n` 是同一个张量放了 n 次，而不是 n 个张量。"),
    Term("优化器", "optimizer, `optimizer.state_dict()`", "questions-optimizer-state", also=("优化器状态",),
         define_en="The object that updates parameters in place from their gradients, maybe keeping state for each.",
         define_zh="根据梯度原地更新参数的对象，可能还为每个参数保存状态。"),
    Term("fused 优化器", "fused optimizer, `fused=True`", "questions-version-counter",
         define_en="An optimizer built with `fused=True` (`Adagrad`, `Adam`, `AdamW` and `SGD` accept it), whose "
                   "`step()` updates the parameters without moving their version counters.",
         define_zh="用 `fused=True` 构造的优化器（`Adagrad`、`Adam`、`AdamW` 和 `SGD` 接受这个参数），"
                   "它的 `step()` 更新参数，却不推进参数的版本计数器。"),
    Term("目标网络", "target network", "questions-target-networks",
         define_en="In reinforcement learning, another copy of a model that computes the targets and follows the "
                   "model only slowly (copied from it now and then, as in DQN, or moved toward it by soft updates), "
                   "so it must not share the model's memory.",
         define_zh="强化学习里模型的另一份副本，用来计算目标值，只缓慢地跟随模型（隔一段时间从模型复制一次，如 DQN；"
                   "或通过软更新（soft update）朝模型移动一小步），所以不能与模型共享内存。"),
    Term("在线网络", "online network", "questions-target-networks", gloss="online network",
         define_en="In reinforcement learning, the model that trains at every step, from which the target network is "
                   "copied or updated.",
         define_zh="强化学习中每一步都在训练的那个模型，目标网络从它复制或更新。"),
    Term("软更新", "soft update", "questions-target-networks", gloss="soft update",
         define_en="Moving each parameter of a target network a small step toward the online network's, "
                   "`t = (1 - tau) * t + tau * o`, instead of copying it.",
         define_zh="让目标网络的每个参数朝在线网络的对应参数移动一小段（`t = (1 - tau) * t + tau * o`），"
                   "而不是复制过来。"),
    Term("共享权重", "tied weights", "questions-tied-weights", also=("权重共享", "绑定权重"),
         define_en="One parameter used by two layers of a model, such as an embedding and an output layer.",
         define_zh="模型的两层用同一个参数，比如词嵌入层和输出层。"),
    Term("梯度检查点", "activation checkpointing, `torch.utils.checkpoint`", "questions-activation-checkpointing",
         also=("激活检查点", "激活重计算"), gloss="activation checkpointing",
         define_en="Saving memory by keeping fewer of a function's inner tensors for the backward pass, which calls "
                   "the function again from its start (with `use_reentrant=False`, when it needs a tensor the function "
                   "saved through the saved tensors hooks, its input included; a function that saves none that way, "
                   "such as `(x + 1).sum()` or `(x * 2).sum()`, is called once); how far that second call runs is "
                   "on the page below.",
         define_zh="少保存函数的中间张量给反向传播，以此节省内存；反向传播时从头再调用一次函数（`use_reentrant=False` "
                   "时，只要需要函数经由保存张量的钩子（saved tensors hooks）保存过的张量就再调用，包括函数的输入；"
                   "没有这样保存任何张量的函数只调用一次，比如 `(x + 1).sum()` 和 `(x * 2).sum()`）；"
                   "第二次调用运行到哪里，见下面的演示页面。"),
    Term("检查点", "checkpoint (a saved training state, `torch.save` / `torch.load`)", "questions-checkpoints",
         define_en="A training state written to a file with `torch.save` and read back with `torch.load`.",
         define_zh="用 `torch.save` 写进文件、再用 `torch.load` 读回的训练状态。"),
    Term("梯度累积", "gradient accumulation", "questions-stale-grad",
         define_en="Adding the gradients of several backward passes into `.grad` before one optimizer step.",
         define_zh="把几次反向传播的梯度累加进 `.grad`，再让优化器走一步。"),
    Term("微批次", "micro-batch", "questions-stale-grad",
         define_en="One of the parts a batch is split into for gradient accumulation, each with a backward pass of "
                   "its own.",
         define_zh="做梯度累积时把一批数据分成的几份之一，每份各做一次反向传播。"),
    Term("多进程", "multiprocessing, `torch.multiprocessing`", "questions-processes", also=("子进程",),
         define_en="Running work in several processes (`torch.multiprocessing`), which can share CPU tensors through "
                   "shared memory.",
         define_zh="在几个进程里运行（`torch.multiprocessing`），进程之间可以通过共享内存共享 CPU 张量。"),
    Term("worker 进程", "worker process, `DataLoader(num_workers=...)`", "questions-processes",
         define_en="One of the processes a `DataLoader` with `num_workers` above 0 starts to load its items.",
         define_zh="`num_workers` 大于 0 的 `DataLoader` 为加载数据项而启动的进程之一。"),
    Term("竞态条件", "race condition (processes updating one shared tensor)", "questions-shared-memory",
         also=("竞争条件", "加锁"),
         define_en="Two processes updating one shared tensor at once, so the result depends on their timing.",
         define_zh="两个进程同时更新同一个共享张量，结果取决于谁先谁后。"),
    Term("混合精度", "mixed precision, `torch.autocast`", "questions-autocast", also=("自动混合精度",),
         define_en="Running some operations in a lower precision dtype (`float16`, `bfloat16`) under `torch.autocast`.",
         define_zh="在 `torch.autocast` 下用较低精度的 dtype（`float16`、`bfloat16`）运行部分运算。"),
    Term("滑动平均", "moving average of weights (EMA)", "questions-ema", also=("指数滑动平均",),
         define_en="An exponential average of a model's weights over training: after each update of the model, the "
                   "average moves a small step toward the current weights, so older weights count for less.",
         define_zh="训练中对模型权重求的指数平均：模型每更新一次，这份平均就朝模型当前的权重移动一小步，"
                   "越早的权重占比越小。"),
    Term("缓冲区", "buffer, `register_buffer`", "questions-module-to",
         define_en="A tensor a module registers with `register_buffer`: state that `module.to()` moves with the module "
                   "(from the CPU to another device; to a floating or complex dtype if floating or complex, a complex "
                   "one losing its imaginary part to a floating dtype; integer and bool keep theirs); not a parameter.",
         define_zh="模块用 `register_buffer` 登记的张量：属于模块的状态，随 `module.to()` 移动（从 CPU 换到别的设备时"
                   "都会跟着换；换浮点或复数 dtype 时，浮点和复数的缓冲区跟着换，换成浮点 dtype 时复数的虚部会丢掉；"
                   "整数和 bool 的缓冲区保持原来的 dtype），但不是参数。"),
    Term("滑动统计量", "running statistics, `running_mean` and `running_var`", "questions-activation-checkpointing",
         define_en="The buffers `running_mean` and `running_var` of a `BatchNorm` layer, which a forward pass in "
                   "training mode updates in place and one in eval mode leaves as they are.",
         define_zh="`BatchNorm` 层的缓冲区 `running_mean` 和 `running_var`：训练模式下的前向传播原地更新它们，"
                   "eval 模式下的前向传播不改变它们。"),
    Term("步长", "stride", "questions-which-calls-copy",
         define_en="How many elements of the storage to skip to reach the next element along a dimension.",
         define_zh="沿某一维走到下一个元素，要在存储里跳过的元素个数。"),
    Term("连续", "contiguous, `contiguous()`", "questions-which-calls-copy",
         define_en="Laid out row by row in its storage, no gaps; `contiguous()` copies a tensor that is not.",
         define_zh="在存储里逐行排列、没有间隔；对不连续的张量，`contiguous()` 返回一个副本。"),
    Term("共轭位", "conjugate bit, `is_conj()`", "questions-numpy-bridge", gloss="conjugate bit",
         define_en="A flag on a tensor (`is_conj()`). For a dense complex `z` with neither this bit nor the negative "
                   "bit (layout `torch.strided`, not nested, with a storage), `z.conj()` has it set, and reads the "
                   "same storage as `z`, with the same "
                   "dtype, shape, strides and offset, yet yields the conjugates of `z`'s values (which differ from "
                   "them wherever an imaginary part is not 0). A sparse `z`'s `conj()` holds the conjugates in new "
                   "memory and has no bit set; a nested `z`'s raises.",
         define_zh="张量上的一个标志（`is_conj()`）。对既没有这个标志也没有负号位、稠密（布局为 strided、非嵌套）"
                   "且有存储的复数张量 `z`，`z.conj()` 返回的张量设置了这个标志："
                   "它与 `z` 读取同一块存储，dtype、形状、步长和偏移都相同，"
                   "读到的却是 `z` 中各数的共轭复数（虚部不为 0 的元素数值不同）。稀疏张量的 `conj()` 把共轭复数存放在"
                   "新的内存里，不设置这个标志；嵌套张量的 `conj()` 会报错。"),
    Term("负号位", "negative bit, `is_neg()`", "questions-numpy-bridge", gloss="negative bit",
         define_en="A flag on a tensor (`is_neg()`). For a dense complex `z` with neither the conjugate bit nor this "
                   "one (layout `torch.strided`, not nested, with a storage), `z.conj().imag` has it set, and yields "
                   "the negatives of the values of `z.imag` (which differ from them wherever they are not 0).",
         define_zh="张量上的一个标志（`is_neg()`）。对既没有共轭位也没有这个标志、稠密（布局为 strided、非嵌套）"
                   "且有存储的复数张量 `z`，`z.conj().imag` 返回的张量设置了这个标志，它读到的是 `z.imag` "
                   "中各数的相反数（不为 0 的元素数值不同）。"),
    Term("基本索引", "basic indexing", "questions-index-writes",
         define_en=BASIC_INDEXING_EN, define_zh=BASIC_INDEXING_ZH),
    Term("高级索引", "advanced indexing", "questions-index-writes", gloss="advanced indexing",
         define_en=ADVANCED_INDEXING_EN, define_zh=ADVANCED_INDEXING_ZH),
    Term("保存张量的钩子", "saved tensors hooks, `saved_tensors_hooks`",
         "questions-saved-tensors", gloss="saved tensors hooks",
         define_en="Two functions autograd can call to pack the tensors it saves and unpack them for the backward pass "
                   "(`x * 2` keeps its `2` without them).",
         define_zh="一对函数（pack 与 unpack）：自动求导保存张量时可以用前者打包，反向传播用到它时用后者取回"
                   "（`x * 2` 保存其中的 `2` 时不经过它们）。"),
)


def search_words() -> list[str]:
    """Every word a Chinese reader may type for a term, in list order, each once."""
    words = [word for term in TERMS for word in (term.zh, *term.also, *term.avoid)]
    return list(dict.fromkeys(words))


def search_dictionary() -> str:
    """jieba's user dictionary: a word, a frequency and a part-of-speech tag a line (jieba reads no comments: this
    docstring says where it comes from). The frequency is 20, enough to keep the site's terms whole, or jieba's own
    where higher: a user dictionary's frequency replaces jieba's, and a lower one splits a word (副本 into 副 本)."""
    import logging

    import jieba

    own = jieba.Tokenizer()  # jieba's own dictionary, never the site's (the build loads that into jieba.dt)
    level = jieba.default_logger.level
    jieba.default_logger.setLevel(logging.WARNING)  # jieba logs each dictionary it loads
    own.initialize()  # (an error here fails the build, whatever the level is left at)
    jieba.default_logger.setLevel(level)
    return "".join(f"{word} {max(20, own.FREQ.get(word, 0))} n\n" for word in search_words())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {SEARCH_DICTIONARY.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    wanted = search_dictionary()
    current = SEARCH_DICTIONARY.read_text(encoding="utf-8") if SEARCH_DICTIONARY.exists() else ""
    if current == wanted:
        print(f"{SEARCH_DICTIONARY.relative_to(ROOT)} is up to date")
        return 0
    if args.update:
        SEARCH_DICTIONARY.write_text(wanted, encoding="utf-8")
        print(f"wrote {SEARCH_DICTIONARY.relative_to(ROOT)}")
        return 0
    print(f"{SEARCH_DICTIONARY.relative_to(ROOT)} differs from sitetools/rules/terms.py; run `{UPDATE_COMMAND}`")
    return 1


if __name__ == "__main__":
    sys.exit(main())
