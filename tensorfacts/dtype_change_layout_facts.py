"""Named fact on changing the dtype of a tensor of another layout than a dense one: an mkldnn tensor and a quantized
one refuse every change, the sparse and nested layouts take or refuse each change as a dense tensor does, but for
``memory_format=torch.contiguous_format``, which the sparse ones refuse and with which a change of a strided nested
tensor to three quantized dtypes ends the process (run in fresh processes). Behind the module-to question's
paragraph on ``tensor.to()``.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import signal
import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import fresh_python

#: The methods named for a dtype, each with the dtype it converts to.
DTYPE_METHODS = {"bfloat16": torch.bfloat16, "bool": torch.bool, "byte": torch.uint8, "cdouble": torch.complex128,
                 "cfloat": torch.complex64, "chalf": torch.complex32, "char": torch.int8, "double": torch.float64,
                 "float": torch.float32, "half": torch.float16, "int": torch.int32, "long": torch.int64,
                 "short": torch.int16}


def _all_dtypes() -> list[torch.dtype]:
    return sorted({value for value in vars(torch).values() if isinstance(value, torch.dtype)}, key=str)


def _outcome(make: Callable[[], torch.Tensor], source: torch.Tensor, dtype: torch.dtype) -> str:
    """``"new"`` for a new tensor of ``dtype`` and of the source's layout, ``"new, old dtype"`` for a new tensor of
    the source's dtype and layout, else what happened."""
    try:
        made = make()
    except (NotImplementedError, RuntimeError) as refusal:
        return type(refusal).__name__
    if made is source or made.layout != source.layout:
        return f"{'the source itself' if made is source else made.layout}"
    return "new" if made.dtype == dtype else "new, old dtype" if made.dtype == source.dtype else str(made.dtype)


def _changes(source: torch.Tensor, formats: dict, left_out: tuple[torch.dtype, ...] = ()) -> dict[
        tuple[str, str, str], str]:
    """Each change of ``source``'s dtype to a dtype not in ``left_out``, by to(dtype), to("cpu", dtype), to(other) or
    a method named for a dtype, with each of ``formats`` (keyword arguments by name)."""
    found = {}
    for form, options in formats.items():
        for dtype in _all_dtypes():
            if dtype != source.dtype and dtype not in left_out:
                found["to(dtype)", str(dtype), form] = _outcome(
                    lambda d=dtype, o=options: source.to(d, **o), source, dtype)
                found['to("cpu", dtype)', str(dtype), form] = _outcome(
                    lambda d=dtype, o=options: source.to("cpu", d, **o), source, dtype)
                found["to(other)", str(dtype), form] = _outcome(
                    lambda d=dtype, o=options: source.to(torch.empty(0, dtype=d), **o), source, dtype)
        for name, dtype in DTYPE_METHODS.items():
            if dtype != source.dtype and set(options) <= {"memory_format"}:  # the methods take no other option
                found[f"{name}()", str(dtype), form] = _outcome(
                    lambda n=name, o=options: getattr(source, n)(**o), source, dtype)
    return found


def _sources() -> tuple[torch.Tensor, dict[str, torch.Tensor], dict[str, tuple[torch.Tensor, str]]]:
    """The dense float32 tensor, the layouts that follow its rules, and those that refuse with their error."""
    grid = torch.arange(16.0).reshape(4, 4)
    same = {"sparse COO": grid.to_sparse(), "sparse CSR": grid.to_sparse_csr(), "sparse CSC": grid.to_sparse_csc(),
            "sparse BSR": grid.to_sparse_bsr((2, 2)), "sparse BSC": grid.to_sparse_bsc((2, 2)),
            "jagged nested": torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged),
            "strided nested": torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])}
    refusing = {f"mkldnn {dtype}": (grid.to(dtype).to_mkldnn(), "NotImplementedError")
                for dtype in (torch.float32, torch.bfloat16, torch.int8)}
    refusing |= {f"quantized {dtype}": (torch.quantize_per_tensor(torch.ones(3), 0.1, 0, dtype), "RuntimeError")
                 for dtype in (torch.quint8, torch.qint8, torch.qint32)}
    refusing["per-channel quantized"] = (torch.quantize_per_channel(
        torch.ones(2, 3), torch.tensor([0.1, 0.2]), torch.tensor([0, 0]), 0, torch.qint8), "RuntimeError")
    return grid, same, refusing


#: The options a change of dtype is tried with, beside the dtype (the methods take ``memory_format`` only).
FORMATS = {"no option": {}, "preserve_format": {"memory_format": torch.preserve_format}, "copy=True": {"copy": True},
           "non_blocking=True": {"non_blocking": True}}
#: The option that changes the outcome, tried on every source; on the strided nested tensor, to every dtype but
#: :data:`SEGFAULTING`.
CONTIGUOUS = {"contiguous_format": {"memory_format": torch.contiguous_format}}
#: The dtypes a strided nested tensor's change with ``memory_format=torch.contiguous_format`` ends the process at (a
#: segmentation fault in torch 2.13): each is tried in a fresh process of its own (:data:`_NESTED_CHANGE`).
SEGFAULTING = (torch.qint8, torch.qint32, torch.quint8)
#: The dtypes a change of the strided nested tensor with ``memory_format=torch.contiguous_format`` refuses with
#: RuntimeError, where the dense tensor's raises NotImplementedError.
NESTED_OTHER_ERROR = ("torch.quint2x4", "torch.quint4x2")
#: The child that changes a strided nested tensor to one of :data:`SEGFAULTING` (its name without ``torch.`` goes in
#: ``{dtype}``): no core file, an except clause that would catch any error, a line printed before and after.
_NESTED_CHANGE = (
    "import resource, warnings, torch\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "warnings.simplefilter('ignore', UserWarning)\n"
    "x = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])\n"
    "print('made:', x.is_nested, x.layout, x.dtype, flush=True)\n"
    "try:\n"
    "    x.to(torch.{dtype}, memory_format=torch.contiguous_format)\n"
    "except BaseException as e:\n"
    "    print('caught', type(e).__name__, flush=True)\n"
    "print('returned', flush=True)\n"
)


def _expected(name: str, change: tuple[str, str, str], dense: dict[tuple[str, str, str], str]) -> str:
    """What the change ``change`` (call, dtype, option) of the source ``name`` of :func:`_sources` that follows the
    dense tensor's rules gives, as the fact says: RuntimeError with ``contiguous_format`` on a sparse tensor and on
    the strided nested one to :data:`NESTED_OTHER_ERROR`, else what the dense float32 tensor's change gave."""
    if change[2] == "contiguous_format" and (
            "sparse" in name or (name == "strided nested" and change[1] in NESTED_OTHER_ERROR)):
        return "RuntimeError"
    return dense.get(change, "RuntimeError")


@fact("dtype-change-by-layout", {
    "en": "Changes the dtype of CPU tensors to every other dtype of the torch module, by to(dtype), to(\"cpu\", "
          "dtype), to(other) with an empty tensor of that dtype, and the methods named for a dtype (bfloat16(), "
          "bool(), byte(), cdouble(), cfloat(), chalf(), char(), double(), float(), half(), int(), long(), "
          "short()), with no option, with memory_format=torch.preserve_format, with copy=True and with "
          "non_blocking=True (the methods: the first two), with grad on and under torch.no_grad(). On mkldnn "
          "tensors (to_mkldnn() of float32, bfloat16 and int8 tensors) every change raises NotImplementedError; on "
          "quantized tensors (quantize_per_tensor to quint8, qint8 and qint32, quantize_per_channel to qint8) "
          "RuntimeError; on sparse COO, CSR, CSC, BSR and BSC tensors and on jagged and strided nested tensors "
          "(float32) each change raises or not as on a dense float32 tensor, and each one taken gives a new tensor "
          "of that dtype and of the source's layout. The same changes with memory_format=torch.contiguous_format "
          "raise RuntimeError on the mkldnn and the sparse tensors; on the quantized tensors they return, without "
          "an error, a new tensor of the source's dtype and layout; on the jagged nested tensor, and on the strided "
          "one to every dtype but qint8, qint32 and quint8, each raises or not as on a dense float32 tensor (to "
          "quint4x2 and quint2x4 the strided one raises RuntimeError, the dense one NotImplementedError), and "
          "each one taken gives a new tensor of that dtype and of the source's layout. Those three are run in a "
          "fresh Python process each, with grad on: to(dtype, memory_format=torch.contiguous_format) of the strided "
          "nested tensor, in a try/except BaseException, ends each process with a segmentation fault (the signal "
          "SIGSEGV), and the except clause catches nothing.",
    "zh_CN": "把 CPU 张量的 dtype 改成 torch 模块的其他每种 dtype，经由 to(dtype)、to(\"cpu\", dtype)、"
             "以该 dtype 的空张量为参数的 to(other)，以及以 dtype 命名的方法（bfloat16()、bool()、byte()、"
             "cdouble()、cfloat()、chalf()、char()、double()、float()、half()、int()、long()、short()），"
             "分别不带选项、带 memory_format=torch.preserve_format、带 copy=True 和带 non_blocking=True"
             "（这些方法只试前两种），在梯度模式开启和 torch.no_grad() 下各做一遍。对 mkldnn 张量（float32、"
             "bfloat16 和 int8 张量的 to_mkldnn()），每次改变都抛出 NotImplementedError；对量化张量"
             "（quantize_per_tensor 得到的 quint8、qint8 和 qint32 张量，quantize_per_channel 得到的 qint8 张量）"
             "都抛出 RuntimeError；对 COO、CSR、CSC、BSR 和 BSC 稀疏张量以及 jagged 和 strided 布局的嵌套张量"
             "（float32），每次改变是否报错都与 float32 稠密张量相同，接受的每次改变都给出该 dtype、与源张量布局"
             "相同的新张量。同样的改变带上 memory_format=torch.contiguous_format 时，在 mkldnn 张量和稀疏张量上"
             "抛出 RuntimeError；在量化张量上不报错，返回 dtype 和布局都与源张量相同的新张量；在 jagged 嵌套张量上，"
             "以及在 strided 嵌套张量上改成 qint8、qint32 和 quint8 以外的每种 dtype 时，是否报错都与 float32 "
             "稠密张量相同（改成 quint4x2 和 quint2x4 时，strided 嵌套张量抛出 RuntimeError，稠密张量抛出 "
             "NotImplementedError），接受的每次改变都给出该 dtype、与源张量布局相同的新张量。改成这三种 dtype 的调用，"
             "各在一个全新的 Python 进程里、梯度模式开启时运行：在 try/except BaseException 里对 strided "
             "嵌套张量调用 to(dtype, memory_format=torch.contiguous_format)，进程因段错误（信号 SIGSEGV）终止，"
             "except 子句什么也没捕获到。",
})
def _dtype_change_by_layout() -> Fact:
    wrong, tried = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32, quantized, compressed sparse and nested tensors warn
        for grad_mode in (torch.enable_grad, torch.no_grad):
            with grad_mode():
                grid, same, refusing = _sources()
                dense = _changes(grid, FORMATS | CONTIGUOUS)
                wrong += [("dense float32", *change, dense.get(change)) for change in (
                    (call, dtype, "contiguous_format") for call in ("to(dtype)", 'to("cpu", dtype)', "to(other)")
                    for dtype in NESTED_OTHER_ERROR) if dense.get(change) != "NotImplementedError"]
                for name, source in same.items():
                    changes = (_changes(source, FORMATS) | _changes(source, CONTIGUOUS, SEGFAULTING)
                               if name == "strided nested" else _changes(source, FORMATS | CONTIGUOUS))
                    tried += len(changes)
                    wrong += [(name, *change, got) for change, got in changes.items()
                              if got != _expected(name, change, dense)
                              or got not in ("new", "NotImplementedError", "RuntimeError")]
                for name, (source, error) in refusing.items():
                    contiguous = "RuntimeError" if name.startswith("mkldnn") else "new, old dtype"
                    changes = _changes(source, FORMATS | CONTIGUOUS)
                    tried += len(changes)
                    wrong += [(name, *change, got) for change, got in changes.items()
                              if got != (contiguous if change[2] == "contiguous_format" else error)]
    children = {str(dtype): fresh_python(_NESTED_CHANGE.format(dtype=str(dtype).removeprefix("torch.")))
                for dtype in SEGFAULTING}
    ends = {name: (child.returncode, " ".join(child.stdout.split())) for name, child in children.items()}
    segfaults = all(code == -signal.SIGSEGV and printed == "made: True torch.strided torch.float32"
                    for code, printed in ends.values())
    return Fact(not wrong and tried > 0 and segfaults,
                f"{tried} changes tried; not as stated: {wrong[:6]} ({len(wrong)} in all); a strided nested "
                f"tensor's to(dtype, memory_format=torch.contiguous_format) in a fresh process, per dtype (exit "
                f"status, -{int(signal.SIGSEGV)} is SIGSEGV; what it printed): {ends}")
