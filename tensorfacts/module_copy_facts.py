"""Named facts on a module's tensors: ``copy.deepcopy`` of a module that keeps a non-leaf (where the kept tensor comes
from, where the module keeps it, and the grad mode of the call that stored it), and buffers, which ``module.to()``
moves with the module (behind the glossary's entry, ``sitetools/rules/term_facts.py``), a complex one to a real dtype
with a warning torch gives once per process (so seen first in a fresh process, started anew rather than forked).
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import copy
import json
import warnings

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import fresh_python

#: The start of torch's warning when a complex tensor is cast to a real dtype (given once per process).
COMPLEX_TO_REAL = "Casting complex values to real discards the imaginary part"
#: The child: moves two modules with a complex64 buffer to ``torch.float64``, one after the other, and prints the
#: warnings each move gives as (category, message). It runs in a fresh process, as torch gives the warning only the
#: first time in a process, and a forked child would inherit the parent's spent warning.
_TWO_MOVES = r"""
import json, warnings
import torch

seen = []
for _ in range(2):
    module = torch.nn.Module()
    module.register_buffer("c", torch.tensor([1 + 2j, 3j]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.to(torch.float64)
    seen.append([(w.category.__name__, str(w.message)) for w in caught])
print(json.dumps(seen))
"""

#: The start of the error ``copy.deepcopy`` raises on a tensor that is not a leaf.
GRAPH_LEAVES = "Only Tensors created explicitly by the user (graph leaves)"

#: The grad modes a tensor is computed in, and whether ``copy.deepcopy`` then copies the module that keeps it.
MODES = {"in grad mode": (contextlib.nullcontext, False), "under torch.no_grad()": (torch.no_grad, True),
         "under torch.inference_mode()": (torch.inference_mode, True)}


def _deep_copies(module: torch.nn.Module) -> bool | str:
    """True when ``copy.deepcopy(module)`` copies it, False when it raises the graph-leaves error, else the error."""
    try:
        copy.deepcopy(module)
    except RuntimeError as e:
        return False if str(e).startswith(GRAPH_LEAVES) else f"RuntimeError: {e}"
    return True


def _kept(source: str, place: str, mode: str) -> torch.nn.Module:
    """A ``torch.nn.Linear(2, 1)`` that keeps ``t * 2``, computed as ``mode`` says, in ``place``."""
    module = torch.nn.Linear(2, 1)
    t = module.weight if source == "its weight" else torch.ones(2, requires_grad=True)
    with MODES[mode][0]():
        doubled = t * 2
    if place == "a buffer":
        module.register_buffer("kept", doubled)
    else:
        module.kept = [doubled] if place == "a list attribute" else doubled
    return module


class _StoresInForward(torch.nn.Module):
    """The pattern of the deepcopy page: ``forward`` stores a tensor computed from a parameter on the module."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        self.doubled = self.scale * 2
        return x * self.doubled


@fact("deepcopy-refuses-module-keeping-non-leaf", {
    "en": "A torch.nn.Linear(2, 1) keeps t * 2 as an attribute, as a buffer or in a list attribute, where t is its "
          "weight or a leaf made with requires_grad=True that is no parameter: copy.deepcopy of the module raises "
          "the RuntimeError \"Only Tensors created explicitly by the user (graph leaves) ...\" when t * 2 was computed "
          "in grad mode, and copies the module when it was computed under torch.no_grad() or torch.inference_mode(). "
          "A module whose forward stores self.doubled = self.scale * 2 (scale a parameter) deep-copies before its "
          "first call, raises that error after a call in grad mode, deep-copies after a call under torch.no_grad(), "
          "raises after another call in grad mode, and deep-copies after a call under torch.inference_mode().",
    "zh_CN": "一个 torch.nn.Linear(2, 1) 把 t * 2 存为属性、缓冲区，或存在一个列表属性里，其中 t 是它的 weight，"
             "或是用 requires_grad=True 创建、不是参数的叶子张量：t * 2 在梯度模式下算出时，对这个模块做 copy.deepcopy "
             "报 RuntimeError“Only Tensors created explicitly by the user (graph leaves) ...”；在 torch.no_grad() 或 "
             "torch.inference_mode() 下算出时，模块可以深拷贝。forward 里存下 self.doubled = self.scale * 2（scale "
             "是参数）的模块，在第一次调用之前可以深拷贝，在梯度模式下调用之后报这个错误，在 torch.no_grad() "
             "下调用之后可以深拷贝，再在梯度模式下调用之后又报错，在 torch.inference_mode() 下调用之后又可以深拷贝。",
})
def _deepcopy_refuses_module_keeping_non_leaf() -> Fact:
    """deepcopy refuses a module that keeps a non-leaf (here t * 2, which has a grad_fn when computed in grad mode
    from any tensor that requires grad), wherever the module keeps it; the grad mode of the last call that stored
    it decides."""
    kept = {(source, place, mode): _deep_copies(_kept(source, place, mode))
            for source in ("its weight", "a leaf that is no parameter")
            for place in ("an attribute", "a buffer", "a list attribute") for mode in MODES}
    as_stated = [key for key, copies in kept.items() if copies is MODES[key[2]][1]]
    stored = _StoresInForward()
    calls = [("before the first call", _deep_copies(stored))]
    for mode in ("in grad mode", "under torch.no_grad()", "in grad mode", "under torch.inference_mode()"):
        with MODES[mode][0]():
            stored(torch.ones(2))
        calls.append((f"after a call {mode}", _deep_copies(stored)))
    in_forward = [copies for _, copies in calls]
    return Fact(len(as_stated) == len(kept) == 18 and in_forward == [True, False, True, False, True],
                f"deep-copies (True), raises the graph-leaves error (False) or another error: {kept}; "
                f"a module storing self.scale * 2 in forward: {calls}")


@fact("buffer-moves-with-module", {
    "en": "A module with float32, complex64, int64 and bool buffers (register_buffer): all are in buffers(), none in "
          "parameters(); module.to(torch.float64) makes the float32 and the complex64 buffer float64 (the complex one "
          "keeps only its real part) and leaves int64 and bool as they were; "
          "module.to('meta') puts all four on meta, after which module.to('cpu') raises NotImplementedError "
          "\"... Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() ...\"; on a fresh such "
          "module, module.to(torch.complex64) makes the "
          "float32 buffer complex64 (imaginary part 0), keeps the complex64 one's values and leaves int64 and bool. "
          "Dropping the imaginary part gives a UserWarning, \"" + COMPLEX_TO_REAL + "\", only the first time in a "
          "process: in a fresh Python process (started anew, not forked), of two modules with a complex64 buffer "
          "moved to torch.float64 one after the other, the first gives exactly that one warning, the second none; "
          "in this process, with torch.set_warn_always(True) (set back afterwards), module.to(torch.float64) of "
          "a module with the four buffers gives it each time (two modules tried).",
    "zh_CN": "用 register_buffer 注册了 float32、complex64、int64 和 bool 缓冲区的模块：四者都在 buffers() 里，"
             "parameters() 里什么也没有；module.to(torch.float64) 让 float32 和 complex64 的缓冲区变成 float64"
             "（复数的那个只留下实部），int64 和 bool 的保持不变；module.to('meta') 把四者都放到 "
             "meta 上，之后再调用 module.to('cpu') 抛出 NotImplementedError“... Please use "
             "torch.nn.Module.to_empty() instead of torch.nn.Module.to() ...”；"
             "对同样新建的模块，module.to(torch.complex64) 让 float32 的缓冲区变成 complex64（虚部为 0），"
             "complex64 的数值不变，int64 和 bool 的保持不变。丢掉虚部时 torch 给出 UserWarning“" + COMPLEX_TO_REAL
             + "”，但一个进程里只在第一次给出：在一个全新的 Python 进程里（重新启动，不是 fork 出来的），"
             "把两个带 complex64 缓冲区的模块先后转成 torch.float64，第一次恰好给出这一条警告，第二次没有；在本进程里，"
             "开启 torch.set_warn_always(True)（之后改回）时，对带这四个缓冲区的模块，每次 module.to(torch.float64) "
             "都给出这条警告（试了两个模块）。",
})
def _buffer_moves_with_module() -> Fact:
    def with_buffers() -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
        module = torch.nn.Module()
        given = {"f": torch.ones(2), "c": torch.tensor([1 + 2j, 3j]), "n": torch.tensor([5, 7]),
                 "b": torch.tensor([True, False])}
        for name, tensor in given.items():
            module.register_buffer(name, tensor)
        return module, given

    complex_module, complex_given = with_buffers()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        complex_module.to(torch.complex64)
    to_complex = ({n: str(b.dtype) for n, b in complex_module.named_buffers()}
                  == {"f": "torch.complex64", "c": "torch.complex64", "n": "torch.int64", "b": "torch.bool"}
                  and torch.equal(complex_module.f, torch.ones(2, dtype=torch.complex64))
                  and torch.equal(complex_module.c, torch.tensor([1 + 2j, 3j]))
                  and _as_given(complex_module, complex_given))
    child = fresh_python(_TWO_MOVES)
    fresh = json.loads(child.stdout) if child.returncode == 0 else child.stderr[-300:]
    once = isinstance(fresh, list) and len(fresh) == 2 and _complex_to_real(fresh[0]) and fresh[1] == []
    module, given = with_buffers()
    buffers = list(module.buffers())
    listed = all(b is given[n] for n, b in zip(given, buffers, strict=True)) and not list(module.parameters())
    always = []
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # torch gives this warning once per process unless told otherwise
    try:
        for target in (with_buffers()[0], module):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                target.to(torch.float64)
            always.append(_complex_to_real([(w.category.__name__, str(w.message)) for w in caught]))
    finally:
        torch.set_warn_always(warn_always)
    dtypes = {name: str(buffer.dtype) for name, buffer in module.named_buffers()}
    real_part = torch.equal(module.c, torch.tensor([1.0, 0.0], dtype=torch.float64))
    kept = _as_given(module, given)
    module.to("meta")
    devices = {buffer.device.type for buffer in module.buffers()}
    from_meta = _refusal(lambda: module.to("cpu"))
    expected = {"f": "torch.float64", "c": "torch.float64", "n": "torch.int64", "b": "torch.bool"}
    return Fact(listed and dtypes == expected and real_part and kept and devices == {"meta"} and from_meta
                and to_complex and once and always == [True, True],
                f"buffers, not parameters: {listed}; after to(float64): {dtypes}, complex kept its real part: "
                f"{real_part}, the int64 and bool buffers the given ones with their values: {kept}; after "
                f"to('meta'): {devices}; to('cpu') from meta raises NotImplementedError naming to_empty(): "
                f"{from_meta}; to(complex64) as stated: {to_complex}; the warnings of two moves to float64 in a "
                f"fresh process: {fresh}; here, with set_warn_always, each move gives the one warning: {always}")


def _as_given(module: torch.nn.Module, given: dict[str, torch.Tensor]) -> bool:
    """Whether the module's int64 and bool buffers are still the given tensors, with their given values."""
    return all(getattr(module, name) is given[name] and torch.equal(getattr(module, name), values)
               for name, values in (("n", torch.tensor([5, 7])), ("b", torch.tensor([True, False]))))


def _refusal(move) -> bool:
    """Whether ``move()`` raises NotImplementedError, saying to use ``torch.nn.Module.to_empty()``."""
    try:
        move()
    except NotImplementedError as e:
        return "Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to()" in str(e)
    return False


def _complex_to_real(caught: list) -> bool:
    """Exactly one warning, a UserWarning that starts with :data:`COMPLEX_TO_REAL`."""
    return len(caught) == 1 and caught[0][0] == "UserWarning" and caught[0][1].startswith(COMPLEX_TO_REAL)
