"""Named fact on changing the dtype of a tensor of another layout than a dense one: an mkldnn tensor and a quantized
one refuse every change, the sparse and nested layouts take or refuse each change as a dense tensor does. Behind
the module-to question's paragraph on ``tensor.to()``.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact

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


def _changes(source: torch.Tensor, formats: dict) -> dict[tuple[str, str, str], str]:
    """Each change of ``source``'s dtype, by to(dtype), to("cpu", dtype), to(other) or a method named for a dtype,
    with each of ``formats`` (keyword arguments by name)."""
    found = {}
    for form, options in formats.items():
        for dtype in _all_dtypes():
            if dtype != source.dtype:
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
#: The option that changes the outcome: tried on every source but the strided nested tensor (it crashes the process
#: there: ``to(torch.qint32, memory_format=torch.contiguous_format)`` ends in a segmentation fault in torch 2.13).
CONTIGUOUS = {"contiguous_format": {"memory_format": torch.contiguous_format}}


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
          "raise RuntimeError on the mkldnn and the sparse tensors, and on the quantized tensors return, without "
          "an error, a new tensor of the source's dtype and layout.",
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
             "抛出 RuntimeError，在量化张量上则不报错，返回 dtype 和布局都与源张量相同的新张量。",
})
def _dtype_change_by_layout() -> Fact:
    wrong, tried = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32, quantized, compressed sparse and nested tensors warn
        for grad_mode in (torch.enable_grad, torch.no_grad):
            with grad_mode():
                grid, same, refusing = _sources()
                dense = _changes(grid, FORMATS)
                for name, source in same.items():
                    changes = _changes(source, FORMATS | (CONTIGUOUS if "sparse" in name else {}))
                    tried += len(changes)
                    wrong += [(name, *change, got) for change, got in changes.items()
                              if got != dense.get(change, "RuntimeError")
                              or got not in ("new", "NotImplementedError", "RuntimeError")]
                for name, (source, error) in refusing.items():
                    contiguous = "RuntimeError" if name.startswith("mkldnn") else "new, old dtype"
                    changes = _changes(source, FORMATS | CONTIGUOUS)
                    tried += len(changes)
                    wrong += [(name, *change, got) for change, got in changes.items()
                              if got != (contiguous if change[2] == "contiguous_format" else error)]
    return Fact(not wrong and tried > 0, f"{tried} changes tried; not as stated: {wrong[:6]} ({len(wrong)} in all)")
