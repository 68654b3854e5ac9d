"""Named facts on the four in-place shape and storage calls the detach page tests (``resize_``, ``resize_as_``,
``set_``, ``transpose_``) on the ``detach()`` of a strided CPU tensor of every dtype the ``torch`` module names,
without the conjugate or negative bit: each is accepted without a warning, given an argument of the tensor's own
dtype, and moves the detached tensor's version counter, shared with its source unless that is an inference tensor
(then it moves only outside ``torch.inference_mode()``), except ``set_`` from a tensor on a quantized one; on the
``detach()`` of a nested tensor of the strided layout (``torch.nested.nested_tensor``'s default) each raises; on the
``detach()`` of a tensor with the conjugate or negative bit, ``resize_as_`` to a new shape warns. Registered on import
by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import version_read

#: The four calls, each given an argument of the detached tensor's own dtype; the shape each leaves it with.
_CALLS: dict[str, tuple[Callable[[torch.Tensor], object], tuple[int, ...]]] = {
    "resize_(3, 2)": (lambda t: t.resize_(3, 2), (3, 2)),
    "resize_as_(a tensor of its dtype)": (lambda t: t.resize_as_(_like(t, 3, 2)), (3, 2)),
    "set_(a tensor of its dtype)": (lambda t: t.set_(_like(t, 6)), (6,)),
    "transpose_(0, 1)": (lambda t: t.transpose_(0, 1), (3, 2)),
}
_SET_FROM_TENSOR = "set_(a tensor of its dtype)"
_GRAD_MODES = {"grad mode on": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}


def _quantized(dtype: torch.dtype) -> bool:
    return str(dtype).startswith(("torch.qint", "torch.quint"))


def _make(dtype: torch.dtype, *shape: int) -> torch.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # complex32 and quantized tensors warn when made
        if _quantized(dtype):
            return torch.quantize_per_tensor(torch.zeros(shape), 0.5, 0, dtype)
        return torch.empty(shape, dtype=dtype)


def _like(t: torch.Tensor, *shape: int) -> torch.Tensor:
    return _make(t.dtype, *shape)


def _sources(dtype: torch.dtype) -> dict[str, Callable[[], torch.Tensor]]:
    """A 2×3 tensor of this dtype, a view of one, one made inside ``torch.inference_mode()`` and, for a floating or
    complex dtype, a leaf that requires grad and a view of one."""

    def in_inference_mode() -> torch.Tensor:
        with torch.inference_mode():
            return _make(dtype, 2, 3)

    sources = {"tensor": lambda: _make(dtype, 2, 3), "view": lambda: _make(dtype, 2, 3).t().t(),
               "inference tensor": in_inference_mode}
    if dtype.is_floating_point or dtype.is_complex:
        sources["leaf that requires grad"] = lambda: _make(dtype, 2, 3).requires_grad_()
        sources["view of a leaf that requires grad"] = lambda: _make(dtype, 2, 3).requires_grad_()[:, :]
    return sources


def _run(make: Callable[[], torch.Tensor], call: Callable[[torch.Tensor], object], grad_mode) -> object:
    """On ``d = a.detach()`` of a fresh ``a``, in this grad mode: the call, then ``set_`` from a tensor of
    ``d``'s dtype as a later edit (``transpose_(0, 1)`` on a quantized ``d``). The error's type, or ``d``'s shape
    after the call, ``(a._version, d._version)`` after it and after the later edit; any warning the call or the
    later edit gives is returned instead."""
    a = make()
    d = a.detach()
    later = _CALLS["transpose_(0, 1)" if d.is_quantized else _SET_FROM_TENSOR][0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with grad_mode():
                call(d)
                shape, after_call = tuple(d.shape), (version_read(a), version_read(d))
                later(d)
        except RuntimeError as exc:
            return type(exc).__name__
    if caught:
        return f"warns: {caught[0].message}"
    return shape, after_call, (version_read(a), version_read(d))


def _expected(dtype: torch.dtype, inference: bool, mode: str, name: str,
              shape: tuple[int, ...]) -> Callable[[object], bool]:
    if _quantized(dtype) and name == _SET_FROM_TENSOR:
        return lambda seen: seen == "NotImplementedError"
    if inference:  # no counter to read on a; d's moves only outside the mode, inside it d stays at 0
        moves = ((0,), (0,)) if mode == "inference_mode" else ((1,), (2,))
        return lambda seen: seen == (shape, ("raises", *moves[0]), ("raises", *moves[1]))
    return lambda seen: seen == (shape, (1, 1), (2, 2))


#: Each call on the ``detach()`` of a nested tensor, options included, with the error type it raises there.
_NESTED_CALLS: dict[str, tuple[Callable[[torch.Tensor], object], str]] = {
    "resize_(3, 2)": (lambda t: t.resize_(3, 2), "RuntimeError"),
    "resize_(1, 3, 2, 1, memory_format=torch.channels_last)": (
        lambda t: t.resize_(1, 3, 2, 1, memory_format=torch.channels_last), "RuntimeError"),
    "resize_as_(a tensor of its dtype)": (lambda t: t.resize_as_(_like(t, 3, 2)), "RuntimeError"),
    "resize_as_(a nested tensor)": (lambda t: t.resize_as_(t.clone()), "RuntimeError"),
    "set_(a tensor of its dtype)": (lambda t: t.set_(_like(t, 6)), "NotImplementedError"),
    "set_(storage)": (lambda t: t.set_(_like(t, 6).untyped_storage()), "NotImplementedError"),
    "set_(storage, 0, (6,), (1,))": (
        lambda t: t.set_(_like(t, 6).untyped_storage(), 0, (6,), (1,)), "NotImplementedError"),
    "set_()": (lambda t: t.set_(), "NotImplementedError"),
    "transpose_(0, 1)": (lambda t: t.transpose_(0, 1), "NotImplementedError"),
    "transpose_(1, 2)": (lambda t: t.transpose_(1, 2), "NotImplementedError"),
}


def _nested_sources(dtype: torch.dtype) -> dict[str, Callable[[], torch.Tensor]]:
    """A nested tensor of two 2×3 tensors of this dtype, one made inside ``torch.inference_mode()`` and, for a
    floating or complex dtype, a leaf that requires grad; none when ``torch.nested.nested_tensor`` refuses the
    dtype."""

    def make(requires_grad: bool = False) -> torch.Tensor:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # nested tensors warn when made
            return torch.nested.nested_tensor([torch.zeros(2, 3).to(dtype)] * 2, requires_grad=requires_grad)

    def in_inference_mode() -> torch.Tensor:
        with torch.inference_mode():
            return make()

    try:
        make()
    except RuntimeError:  # NotImplementedError too: no nested tensor of this dtype on the CPU
        return {}
    sources = {"nested tensor": make, "nested inference tensor": in_inference_mode}
    if dtype.is_floating_point or dtype.is_complex:
        sources["nested leaf that requires grad"] = lambda: make(True)
    return sources


def _nested_results(dtypes: list[torch.dtype]) -> tuple[int, list[str], list[tuple]]:
    """Over every dtype a nested tensor can have: the runs, the nested sources' layouts that are not strided, and
    the runs where a call on ``a.detach()`` did not raise the error type of ``_NESTED_CALLS`` (a resize of an
    inference tensor inside ``torch.inference_mode()``: ``NotImplementedError``)."""
    runs, layouts, wrong = 0, [], []
    for dtype in dtypes:
        for source, make in _nested_sources(dtype).items():
            if make().layout != torch.strided:
                layouts.append(f"{dtype} {source}: {make().layout}")
            for mode, grad_mode in _GRAD_MODES.items():
                for name, (call, error) in _NESTED_CALLS.items():
                    d = make().detach()
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        try:
                            with grad_mode():
                                call(d)
                        except RuntimeError as exc:
                            seen = type(exc).__name__
                        else:
                            seen = "no error"
                    if caught:
                        seen = f"{seen}, warns: {caught[0].message}"
                    runs += 1
                    if error == "RuntimeError" and source == "nested inference tensor" and mode == "inference_mode":
                        error = "NotImplementedError"  # the resizes reach the nested backend, which has none
                    if seen != error:
                        wrong.append((str(dtype), source, mode, name, seen))
    return runs, layouts, wrong


def _quantized_set_from_storage(dtype: torch.dtype) -> object:
    d = _make(dtype, 2, 3).detach()
    return tuple(d.set_(_like(d, 6).untyped_storage(), 0, (6,), (1,)).shape), d._version


@fact("detach-metadata-calls-every-dtype", {
    "en": "On the CPU, for every dtype the torch module names, takes d = a.detach() of a 2×3 tensor a of the default "
          "strided layout (a plain tensor, a view of one, one made inside torch.inference_mode(), and for a floating "
          "or complex dtype a leaf that requires grad and a view of one; none with the conjugate or negative bit), "
          "with grad mode on, under torch.no_grad() and inside torch.inference_mode(), and calls d.resize_(3, 2), "
          "d.resize_as_(t), d.set_(s) or d.transpose_(0, 1), t and s new strided CPU tensors of a's dtype, each on a "
          "fresh pair: each call gives d its new shape without a warning and moves a._version and d._version to 1, and "
          "a later set_ through d (transpose_ on a quantized d) moves both to 2. When a is an inference tensor, "
          "reading a._version raises instead, and d._version moves to 1 and 2 only with grad mode on and under "
          "torch.no_grad(): inside torch.inference_mode() it stays 0 through the call and the later edit. On a "
          "quantized dtype, d.set_(s) raises NotImplementedError, while d.set_(storage, 0, (6,), (1,)) works. When a "
          "is instead a nested tensor of the strided layout (torch.nested.nested_tensor's default; its layout is "
          "torch.strided) of any dtype torch.nested.nested_tensor can make on the CPU (a plain one, one made inside "
          "torch.inference_mode() and, for a floating or complex dtype, a leaf that requires grad), in the same three "
          "grad modes, every one of the four raises on d: resize_ (channels_last too) and resize_as_ (of a dense or a "
          "nested tensor) raise RuntimeError (NotImplementedError on an inference tensor inside "
          "torch.inference_mode()), set_ (from a tensor, from a storage with or without an offset, size and stride, or "
          "with no argument) and transpose_ raise NotImplementedError.",
    "zh_CN": "在 CPU 上，对 torch 模块列出的每种 dtype，取默认 strided 布局的 2×3 张量 a（普通张量、它的视图、在 torch."
             "inference_mode() 里创建的张量；浮点和复数类型还取需要梯度的叶子张量和它的视图；都不带共轭位或负号位）的 d"
             " = a.detach()，在梯度模式开着时、torch.no_grad() 下和 torch.inference_mode() 里，每次换一对新的张量，调用"
             " d.resize_(3, 2)、d.resize_as_(t)、d.set_(s) 或 d.transpose_(0, 1)，t 和 s 是 CPU 上新建的、a 的 dtype 的"
             " strided 张量：每个调用都让 d 变成新的形状，不给出警告，并让 a._version 和 d._version 变为 1，之后通过 d "
             "再调用一次 set_（量化的 d 则是 transpose_）让两者变为 2。a 是推理张量时，读取 a._version 会报错，d._versi"
             "on 也只在梯度模式开着时和 torch.no_grad() 下变为 1 和 2：在 torch.inference_mode() 里，调用和之后的修改都"
             "不改变它，它一直是 0。对量化类型，d.set_(s) 抛出 NotImplementedError，而 d.set_(storage, 0, (6,), (1,)) "
             "可以成功。a 换成 strided 布局的嵌套张量（torch.nested.nested_tensor 的默认布局；它的布局是 torch.strided"
             "）时，无论是 torch.nested.nested_tensor 在 CPU 上能创建的哪种 dtype（普通的嵌套张量、在 torch.inference_m"
             "ode() 里创建的嵌套张量；浮点和复数类型还取需要梯度的叶子张量），在同样三种梯度模式下，这四种调用在 d 上都"
             "报错：resize_（包括 channels_last）和 resize_as_（参数是稠密张量或嵌套张量）抛出 RuntimeError（推理张量在"
             " torch.inference_mode() 里则抛出 NotImplementedError），set_（从张量、从带或不带偏移、形状和步长的存储，"
             "或者不带参数）和 transpose_ 抛出 NotImplementedError。",
}, {"en": "every dtype of the torch module, five kinds of dense source and three kinds of nested one, three grad "
          "modes, on the CPU",
    "zh_CN": "torch 模块的每种 dtype、五种稠密源张量和三种嵌套源张量、三种梯度模式，在 CPU 上"})
def _detach_metadata_calls_every_dtype() -> Fact:
    dtypes = sorted({v for v in vars(torch).values() if isinstance(v, torch.dtype)}, key=str)
    wrong, runs = [], 0
    for dtype in dtypes:  # each call is watched for warnings; only making a tensor may warn
        for source, make in _sources(dtype).items():
            inference = make().is_inference()
            for mode, grad_mode in _GRAD_MODES.items():
                for name, (call, shape) in _CALLS.items():
                    seen = _run(make, call, grad_mode)
                    runs += 1
                    if not _expected(dtype, inference, mode, name, shape)(seen):
                        wrong.append((str(dtype), source, mode, name, seen))
    storage = {str(dtype): _quantized_set_from_storage(dtype) for dtype in dtypes if _quantized(dtype)}
    nested_runs, nested_layouts, nested_wrong = _nested_results(dtypes)
    quantized = sorted(storage)
    return Fact(not wrong and runs > 0 and len(quantized) >= 1 and all(v == ((6,), 1) for v in storage.values())
                and nested_runs > 0 and not nested_layouts and not nested_wrong,
                f"{runs} runs over {len(dtypes)} dtypes; not as the sentence says: {wrong[:5]} ({len(wrong)} in all); "
                f"quantized dtypes {quantized}: (d's shape, d._version) after set_ from a storage: {storage}; "
                f"nested: {nested_runs} runs, layouts not strided: {nested_layouts}, not raising as said: "
                f"{nested_wrong[:5]} ({len(nested_wrong)} in all)")


#: Tensors with the conjugate or negative bit set, each made from a complex ``x`` of six or twelve values.
_BIT_VIEWS: dict[str, tuple[int, Callable[[torch.Tensor], torch.Tensor]]] = {
    "x.conj()": (3, lambda x: x.conj()),
    "x[:, ::2].conj()": (6, lambda x: x[:, ::2].conj()),
    "x.conj().detach()": (3, lambda x: x.conj().detach()),
    "x.conj().imag": (3, lambda x: x.conj().imag),
    "x[:, ::2].conj().imag": (6, lambda x: x[:, ::2].conj().imag),
}
_CHANGES_VALUES = "x[:, ::2].conj()"


def _bit_view_run(dtype: torch.dtype, columns: int, take: Callable[[torch.Tensor], torch.Tensor], source: str,
                  grad_mode) -> tuple[object, tuple[int, ...], bool, bool]:
    """``d.resize_as_(t)``, ``t`` a 3×2 tensor of ``d``'s dtype, on ``d = a.detach()`` of such a tensor ``a``:
    the warning it gives (or the error), ``d``'s shape, whether ``a`` has either bit, and whether ``a``'s values
    changed."""
    def build() -> tuple[torch.Tensor, torch.Tensor]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # complex32 tensors warn when made
            x = (torch.arange(1.0, 2 * columns + 1).reshape(2, columns) * (1 + 1j)).to(dtype)
        x.requires_grad_(source == "leaf that requires grad")
        return x, take(x)

    if source == "inference tensor":
        with torch.inference_mode():
            x, a = build()
    else:
        x, a = build()
    before = a.detach().resolve_conj().resolve_neg().to(torch.complex128)
    d = a.detach()
    t = _like(d, 3, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with grad_mode():
                d.resize_as_(t)
        except RuntimeError as exc:
            return type(exc).__name__, tuple(d.shape), False, False
    seen = [f"{w.category.__name__}: {str(w.message)[:60]}" for w in caught]
    after = a.detach().resolve_conj().resolve_neg().to(torch.complex128)
    return seen, tuple(d.shape), a.is_conj() or a.is_neg(), not torch.equal(before, after)


@fact("detach-resize-as-conj-neg-warns", {
    "en": "On the CPU, for every complex dtype the torch module names, takes a tensor a with the conjugate or "
          "negative bit (x.conj() of a 2×3 tensor x, x[:, ::2].conj() of a 2×6 one, x.conj().detach(), "
          "x.conj().imag and x[:, ::2].conj().imag), x a plain tensor, a leaf that requires grad or one made inside "
          "torch.inference_mode(), with grad mode on, under torch.no_grad() and inside torch.inference_mode(), and "
          "calls d.resize_as_(t) on d = a.detach(), t a 3×2 tensor of d's dtype: each call gives d the shape (3, 2) "
          "and one UserWarning, that an output with one or more elements was resized; on a = x[:, ::2].conj() each "
          "also changes a's values.",
    "zh_CN": "在 CPU 上，对 torch 模块列出的每种复数 dtype，取带共轭位或负号位的张量 a（2×3 张量 x 的 x.conj()、"
             "2×6 张量的 x[:, ::2].conj()、x.conj().detach()、x.conj().imag 和 x[:, ::2].conj().imag），x 是普通张量、"
             "需要梯度的叶子张量或在 torch.inference_mode() 里创建的张量，在梯度模式开着时、torch.no_grad() 下和 "
             "torch.inference_mode() 里，对 d = a.detach() 调用 d.resize_as_(t)，t 是 d 的 dtype 的 3×2 张量："
             "每次调用都让 d 的形状变为 (3, 2)，并给出一个 UserWarning，说有一个或多个元素的输出被改变了大小；"
             "a = x[:, ::2].conj() 时，每次调用还会改变 a 的数值。",
}, {"en": "every complex dtype of the torch module, five tensors with the conjugate or negative bit, three kinds of "
          "source, three grad modes, on the CPU",
    "zh_CN": "torch 模块的每种复数 dtype、五种带共轭位或负号位的张量、三种源张量、三种梯度模式，在 CPU 上"})
def _detach_resize_as_conj_neg_warns() -> Fact:
    dtypes = sorted({v for v in vars(torch).values() if isinstance(v, torch.dtype) and v.is_complex}, key=str)
    wrong, runs, changed = [], 0, []
    for dtype in dtypes:
        for name, (columns, take) in _BIT_VIEWS.items():
            for source in ("plain tensor", "leaf that requires grad", "inference tensor"):
                for mode, grad_mode in _GRAD_MODES.items():
                    seen, shape, has_bit, values_changed = _bit_view_run(dtype, columns, take, source, grad_mode)
                    runs += 1
                    warned = (isinstance(seen, list) and len(seen) == 1 and seen[0].startswith("UserWarning: An "
                              "output with one or more elements was resized"))
                    if not (warned and shape == (3, 2) and has_bit):
                        wrong.append((str(dtype), name, source, mode, seen, shape, has_bit))
                    if name == _CHANGES_VALUES:
                        changed.append(values_changed)
    return Fact(not wrong and runs > 0 and len(changed) > 0 and all(changed),
                f"{runs} runs over {[str(d) for d in dtypes]}; not as the sentence says: {wrong[:5]} "
                f"({len(wrong)} in all); a = x[:, ::2].conj(): a's values changed in {sum(changed)} of {len(changed)}")
