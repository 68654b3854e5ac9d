"""Named facts on ``torch.asarray`` given a tensor that requires grad and ``requires_grad`` or not: the warning
that its default changed (given once per process, so the first call runs in fresh Python processes, started
anew rather than forked, as a forked child would inherit the parent's spent warning), and what passing
``requires_grad`` without ``copy=True`` does to the tensor given; and what ``torch.as_tensor`` and ``torch.asarray``
return under each kind of default device (none set, or one set with ``torch.set_default_device`` or
``with torch.device(...)``). They stand behind the ``torch.asarray`` section of copying/plot_02_safe_copy.
Registered on import by :mod:`tensorfacts.facts`, whose docstring says what a fact is.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import subprocess
import sys
import warnings

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact

#: The child: first the calls that must not warn (each on a tensor of its own: ``requires_grad=False`` without a
#: copy switches off a leaf's ``requires_grad`` in place), then the two calls on a leaf that requires grad, in the
#: order its argument gives; it prints, per call, the warnings given as (category, the message's first sentence).
_FIRST_CALLS = r"""
import json, sys, warnings
import torch

def warned(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category.__name__, str(w.message).split(". ")[0]) for w in caught]

def leaf():
    return torch.ones(3, requires_grad=True)

a = leaf()
quiet = [lambda: torch.asarray(torch.ones(3)), lambda: torch.asarray(torch.ones(3), copy=True),
         lambda: torch.asarray([1.0, 2.0]), lambda: torch.as_tensor(a),
         lambda: torch.asarray(a, copy=True, requires_grad=False),
         lambda: torch.asarray(a, copy=True, requires_grad=True),
         lambda: torch.asarray(leaf(), requires_grad=True),
         lambda: torch.asarray(leaf(), requires_grad=False),
         lambda: torch.asarray(leaf() * 2, requires_grad=True),
         lambda: torch.asarray(torch.nn.Parameter(torch.ones(3)), requires_grad=True)]
calls = [lambda: torch.asarray(a), lambda: torch.asarray(a, copy=True)]
if sys.argv[1] == "copy=True first":
    calls.reverse()
print(json.dumps({"quiet": [warned(call) for call in quiet], "first": warned(calls[0]), "second": warned(calls[1])}))
"""

#: Sources that require grad, by name, in a given dtype.
GRAD_GIVENS = {
    "leaf": lambda dtype: torch.ones(3, dtype=dtype, requires_grad=True),
    "non-leaf": lambda dtype: torch.ones(3, dtype=dtype, requires_grad=True) * 2,
    "Parameter": lambda dtype: torch.nn.Parameter(torch.ones(3, dtype=dtype)),
    "view of a leaf": lambda dtype: torch.ones(3, dtype=dtype, requires_grad=True)[1:],
}


def _about_requires_grad(caught: list) -> bool:
    """Exactly one warning, a UserWarning about requires_grad."""
    return len(caught) == 1 and caught[0][0] == "UserWarning" and "requires_grad" in caught[0][1]


def _warnings_always(call) -> list[tuple[str, str]]:
    """The warnings ``call`` gives with torch's once-per-process warnings given every time (set back afterwards)."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
    finally:
        torch.set_warn_always(before)
    return [(w.category.__name__, str(w.message).split(". ")[0]) for w in caught]


#: Calls on ``make(dtype)``, a source that requires grad, that do not warn, by name; each makes its own source.
QUIET_CALLS = {
    "torch.as_tensor(x)": lambda x: torch.as_tensor(x),
    "torch.asarray(x, copy=True, requires_grad=False)": lambda x: torch.asarray(x, copy=True, requires_grad=False),
    "torch.asarray(x, copy=True, requires_grad=True)": lambda x: torch.asarray(x, copy=True, requires_grad=True),
    "torch.asarray(x, requires_grad=False)": lambda x: torch.asarray(x, requires_grad=False),
    "torch.asarray(x, requires_grad=True)": lambda x: torch.asarray(x, requires_grad=True),
    "torch.asarray(x, requires_grad=x.requires_grad)": lambda x: torch.asarray(x, requires_grad=x.requires_grad),
}


@fact("asarray-warns-once-without-requires-grad", {
    "en": "In two fresh Python processes (started anew, not forked), each first calls torch.asarray on a float32 "
          "tensor that does not require grad (with and without copy=True) and on a list, torch.as_tensor(a) on a "
          "float32 leaf a that requires grad, torch.asarray(a, copy=True, requires_grad=False) and (..., "
          "requires_grad=True), and, each on a source of its own, torch.asarray(x, requires_grad=True) of a leaf, "
          "a non-leaf and a Parameter and torch.asarray(x, requires_grad=False) of a leaf: none of these warns. "
          "Then torch.asarray(a) and torch.asarray(a, copy=True), in one process in this order, in the other the "
          "other way round: the first gives exactly one UserWarning, about requires_grad; the second gives none. "
          "In this process, with torch.set_warn_always(True) (set back afterwards), torch.asarray(x) and "
          "torch.asarray(x, copy=True) of a leaf, a non-leaf, a Parameter and a view of a leaf that require grad, "
          "in float32 and float64, each give that one warning, while torch.as_tensor(x), and torch.asarray(x, "
          "requires_grad=False), (..., requires_grad=True) and (..., requires_grad=x.requires_grad), with and "
          "without copy=True (the last without), each on a source of its own, give none.",
    "zh_CN": "在两个全新的 Python 进程里（重新启动，不是 fork 出来的），先对不需要梯度的 float32 张量调用 "
             "torch.asarray（带和不带 copy=True），对一个列表调用 torch.asarray，对需要梯度的 float32 叶子张量 a "
             "调用 torch.as_tensor(a)，再调用 torch.asarray(a, copy=True, requires_grad=False) 和 "
             "(..., requires_grad=True)，并各用一个单独的源张量，对叶子张量、非叶子张量和 Parameter 调用 "
             "torch.asarray(x, requires_grad=True)，对叶子张量调用 torch.asarray(x, requires_grad=False)："
             "这些调用都不发警告。然后调用 torch.asarray(a) 和 "
             "torch.asarray(a, copy=True)，一个进程按这个顺序，另一个反过来：第一次调用恰好发出一条关于 "
             "requires_grad 的 UserWarning，第二次不发。在本进程里，开启 torch.set_warn_always(True)（之后改回），"
             "对需要梯度的叶子张量、非叶子张量、Parameter 和叶子张量的视图，各用 float32 和 float64，"
             "torch.asarray(x) 和 torch.asarray(x, copy=True) 每次都发出这一条警告，而 torch.as_tensor(x)，以及"
             "带和不带 copy=True 的 torch.asarray(x, requires_grad=False)、(..., requires_grad=True) 和"
             "不带 copy=True 的 (..., requires_grad=x.requires_grad)，各用一个单独的源张量，都不发。",
}, {"en": "two fresh processes (one per order of the two calls), 4 sources that require grad in float32 and float64, "
          "on the CPU",
    "zh_CN": "两个全新的进程（两次调用的两种顺序各一个），4 种需要梯度的源张量，float32 和 float64，在 CPU 上"})
def _asarray_warns_once_without_requires_grad() -> Fact:
    orders = ("torch.asarray(a) first", "copy=True first")
    children = {order: subprocess.Popen([sys.executable, "-c", _FIRST_CALLS, order], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True) for order in orders}
    fresh = {}
    for order, child in children.items():
        out, err = child.communicate(timeout=120)
        fresh[order] = json.loads(out) if child.returncode == 0 else {"error": err[-300:]}
    first_once = all(seen.get("first") is not None and _about_requires_grad(seen["first"]) and seen["second"] == []
                     and not any(seen["quiet"]) for seen in fresh.values())
    always = {}
    for name, make in GRAD_GIVENS.items():
        for dtype in (torch.float32, torch.float64):
            x = make(dtype)
            always[f"{name} {dtype}"] = (
                [_about_requires_grad(_warnings_always(lambda x=x: torch.asarray(x))),
                 _about_requires_grad(_warnings_always(lambda x=x: torch.asarray(x, copy=True)))],
                [_warnings_always(functools.partial(call, make(dtype))) for call in QUIET_CALLS.values()])
    each_warns = all(all(warns) for warns, _ in always.values())
    others_quiet = not any(any(quiet) for _, quiet in always.values())
    return Fact(first_once and each_warns and others_quiet,
                f"fresh processes (per call, the warnings): {fresh}; with set_warn_always, per source: "
                f"(asarray, asarray copy=True warn once each) and (the warnings of {', '.join(QUIET_CALLS)}): "
                f"{always}")


def _unchanged(x: torch.Tensor, requires_grad) -> tuple[bool, bool, bool, bool]:
    """``torch.asarray(x, requires_grad=...)`` without a copy: (it returns ``x``, and ``x`` keeps its
    ``requires_grad``, its ``grad_fn`` and its type)."""
    before = (x.requires_grad, x.grad_fn, type(x))
    result = torch.asarray(x, requires_grad=requires_grad)
    return result is x, x.requires_grad == before[0], x.grad_fn is before[1], type(x) is before[2]


#: The sources of :func:`_asarray_requires_grad_without_copy`'s no-op calls: those that require grad and a plain one.
SOURCES = {**GRAD_GIVENS, "plain": lambda dtype: torch.ones(3, dtype=dtype)}
#: Sources that do not require grad, by name, in a given dtype: ``requires_grad=True`` switches each on in place.
NO_GRAD_GIVENS = {
    "plain": SOURCES["plain"],
    "view of a plain tensor": lambda dtype: torch.ones(3, dtype=dtype)[1:],
    "Parameter(requires_grad=False)": lambda dtype: torch.nn.Parameter(torch.ones(3, dtype=dtype), requires_grad=False),
}
#: The three ways to turn grad mode off, by name.
GRAD_OFF = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode,
            "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False)}
#: Leaves that require grad because their base does: a view of a leaf, of a Parameter and of a non-leaf taken with
#: grad mode off, and a view of that view of a leaf, taken with grad mode off too.
OFF_VIEWS = {"view of a leaf": lambda dtype, off: _off_view(GRAD_GIVENS["leaf"](dtype), off),
             "view of a Parameter": lambda dtype, off: _off_view(GRAD_GIVENS["Parameter"](dtype), off),
             "view of a non-leaf": lambda dtype, off: _off_view(GRAD_GIVENS["non-leaf"](dtype), off),
             "view of such a view": lambda dtype, off: _off_view(_off_view(GRAD_GIVENS["leaf"](dtype), off), off)}


def _off_view(base: torch.Tensor, off) -> torch.Tensor:
    """``base[1:]`` taken inside ``off()``, a way to turn grad mode off."""
    with off():
        return base[1:]


@fact("asarray-requires-grad-without-copy", {
    "en": "torch.asarray(x, requires_grad=False) without copy=True, for x a leaf that requires grad and a "
          "Parameter, in float32 and float64: it returns x itself, whose requires_grad is now False (the Parameter "
          "is still a Parameter). For x = base[1:], where base is such a leaf, such a Parameter or leaf * 2 (a "
          "non-leaf), the slice taken under torch.no_grad(), again under torch.inference_mode() and again under "
          "torch.set_grad_enabled(False), and for x = base[1:][1:] with base the leaf, both slices taken the same "
          "way, called with grad mode on and under torch.no_grad(), in float32 and float64: it returns x itself, "
          "still a leaf without a grad_fn that requires grad. For a non-leaf y = leaf * 2: it returns a tensor "
          "other than y that shares y's storage, has no grad_fn and does not require grad, while y keeps its "
          "requires_grad (True) and its grad_fn. torch.asarray(x, requires_grad=x.requires_grad) without "
          "copy=True, for x a leaf, a non-leaf, a Parameter and a view of a leaf that require grad and a tensor "
          "that does not, and torch.asarray(x, requires_grad=True) for the four that require grad, in float32 and "
          "float64: each "
          "returns x itself, which keeps its requires_grad, its grad_fn and its type. torch.asarray(x, "
          "requires_grad=True) without copy=True, for x a tensor that does not require grad, a view of one and a "
          "Parameter made with requires_grad=False, in float32 and float64: it returns x itself, whose "
          "requires_grad is now True (the Parameter is still a Parameter).",
    "zh_CN": "不带 copy=True 调用 torch.asarray(x, requires_grad=False)，x 分别是需要梯度的叶子张量和 Parameter，"
             "各用 float32 和 float64：返回的是 x 本身，它的 requires_grad 变成了 False（Parameter 仍是 "
             "Parameter）。x = base[1:]，base 是这样的叶子张量、这样的 Parameter 或非叶子张量 leaf * 2，切片分别在 "
             "torch.no_grad()、torch.inference_mode() 和 torch.set_grad_enabled(False) 下取；x 还取 "
             "base[1:][1:]，base 是这样的叶子张量，两次切片都用同样方式取；"
             "在梯度模式（grad mode）下和 torch.no_grad() 下调用，各用 float32 和 float64："
             "返回的是 x 本身，它仍是没有 grad_fn、需要梯度的叶子张量。"
             "对非叶子张量 y = leaf * 2：返回的是另一个张量，与 y 共享存储，没有 grad_fn，不需要梯度，"
             "而 y 仍需要梯度，grad_fn 也不变。不带 copy=True 调用 "
             "torch.asarray(x, requires_grad=x.requires_grad)，x 分别是"
             "需要梯度的叶子张量、非叶子张量、Parameter、叶子张量的视图和不需要梯度的张量，以及对其中需要梯度的"
             "四种调用 torch.asarray(x, requires_grad=True)，各用 float32 和 float64：返回的都是 x 本身，"
             "它的 requires_grad、grad_fn 和类型都不变。不带 copy=True 调用 torch.asarray(x, requires_grad=True)，"
             "x 分别是不需要梯度的张量、它的视图和用 requires_grad=False 建的 Parameter，各用 float32 和 float64："
             "返回的是 x 本身，它的 requires_grad 变成了 True（Parameter 仍是 Parameter）。",
}, {"en": "a leaf, a Parameter, a non-leaf, a view of a leaf, views of a leaf, of a Parameter and of a non-leaf "
          "taken in the three ways with grad mode off and a view of such a view of the leaf, a tensor that does not "
          "require grad, a view of it and a Parameter that does not require grad, float32 and float64, on the CPU",
    "zh_CN": "叶子张量、Parameter、非叶子张量、叶子张量的视图、用三种关闭梯度模式的方式对叶子张量、"
             "Parameter 和非叶子张量取的视图及叶子张量的这种视图的视图、不需要梯度的张量、"
             "它的视图和不需要梯度的 Parameter，float32 和 float64，在 CPU 上"})
def _asarray_requires_grad_without_copy() -> Fact:
    seen = {}
    for dtype in (torch.float32, torch.float64):
        for name in ("leaf", "Parameter"):
            x = GRAD_GIVENS[name](dtype)
            result = torch.asarray(x, requires_grad=False)
            seen[f"{name} {dtype}"] = (result is x, x.requires_grad, type(x) is type(GRAD_GIVENS[name](dtype)))
        y = GRAD_GIVENS["non-leaf"](dtype)
        node = y.grad_fn
        result = torch.asarray(y, requires_grad=False)
        shares = result.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
        seen[f"non-leaf {dtype}"] = (result is not y and shares, result.grad_fn is None and not result.requires_grad,
                                     y.requires_grad and node is not None and y.grad_fn is node)
    edited = [key for key, (same, still, kind) in seen.items() if not key.startswith("non-leaf")
              and not (same and not still and kind)]
    non_leaf = [all(parts) for key, parts in seen.items() if key.startswith("non-leaf")]
    no_op = {}
    for name, make in SOURCES.items():
        for dtype in (torch.float32, torch.float64):
            x = make(dtype)
            no_op[f"{name} {dtype} requires_grad=x.requires_grad"] = _unchanged(x, x.requires_grad)
            if name in GRAD_GIVENS:
                no_op[f"{name} {dtype} requires_grad=True"] = _unchanged(make(dtype), True)
    changed = [key for key, parts in no_op.items() if not all(parts)]
    switched_on = {}
    for name, make in NO_GRAD_GIVENS.items():
        for dtype in (torch.float32, torch.float64):
            x = make(dtype)
            result = torch.asarray(x, requires_grad=True)
            switched_on[f"{name} {dtype}"] = (result is x, x.requires_grad, type(x) is type(make(dtype)))
    not_switched = [key for key, parts in switched_on.items() if not all(parts)]
    kept_on = {}
    for (name, make), (mode, off), asked in itertools.product(OFF_VIEWS.items(), GRAD_OFF.items(),
                                                                (torch.enable_grad, torch.no_grad)):
        for dtype in (torch.float32, torch.float64):
            x = make(dtype, off)
            with asked():
                result = torch.asarray(x, requires_grad=False)
            kept_on[f"{name} ({mode}) {dtype} asked {asked.__name__}"] = (
                result is x, x.is_leaf and x.requires_grad and x.grad_fn is None)
    switched_off = [key for key, parts in kept_on.items() if not all(parts)]
    return Fact(not edited and non_leaf == [True, True] and not changed and not not_switched and not switched_off,
                f"requires_grad=False, per source (leaf, Parameter: result is x, x.requires_grad after, same type; "
                f"non-leaf: a new tensor on y's storage, out of the graph, y keeps requires_grad and its grad_fn): "
                f"{seen}; "
                f"requires_grad=x.requires_grad or True (result is x, x keeps requires_grad, grad_fn, type): {no_op}; "
                f"requires_grad=True on a tensor that does not require grad (result is x, x.requires_grad after, same "
                f"type): {switched_on}; requires_grad=False on a view taken with grad mode off (result is x, x still a "
                f"leaf that requires grad): {kept_on}")


def _raises(error: type[Exception], call) -> bool:
    """Whether ``call()`` raises ``error``."""
    try:
        call()
    except error:
        return True
    return False


@contextlib.contextmanager
def _set_default_device(device: str):
    """``torch.set_default_device`` for the length of a block, set back to none afterwards."""
    torch.set_default_device(device)
    try:
        yield
    finally:
        torch.set_default_device(None)


def _same_kind_and_values(source: torch.Tensor, made: torch.Tensor) -> bool:
    """``made`` has ``source``'s shape and dtype and, off ``meta``, its values; on ``meta`` it has no values to read."""
    return made.shape == source.shape and made.dtype == source.dtype and (
        _raises(NotImplementedError, made.tolist) if made.is_meta else torch.equal(made, source))


@fact("default-device-makes-as-tensor-copy", {
    "en": "Calls torch.as_tensor and torch.asarray on a float32 CPU tensor a and on a float32 NumPy array, "
          "and torch.from_numpy on the array: with no default device, inside with torch.device('cpu') and "
          "under torch.set_default_device('cpu') (set back afterwards), the first two return a itself and "
          "share the array's memory. Under torch.set_default_device('cpu:0') (set back afterwards) and "
          "inside with torch.device('cpu:0'), with torch.device('meta') and under "
          "torch.set_default_device('meta') (set back afterwards), they return a new tensor on a device of "
          "that type, with the shape and dtype of their input (a or the array), that shares neither a's "
          "storage nor the array's memory: under cpu:0 it holds the input's values and its device is cpu, "
          "a's own device, which does not equal the default device cpu:0; on meta it holds none (reading its "
          "values raises NotImplementedError); torch.from_numpy still shares the array's memory. In each of "
          "these seven settings the first two do the same on an int64, a bool and a complex64 CPU tensor. A "
          "tensor made inside with torch.device('cpu:0') has the device cpu, and there the two copy it too. "
          "A float32 tensor m on meta: with no default device (torch.get_default_device() is cpu), inside "
          "with torch.device('meta') and under torch.set_default_device('meta') (set back afterwards), both "
          "return m itself; inside with torch.device('cpu') and with torch.device('cpu:0'), and under "
          "torch.set_default_device('cpu') and torch.set_default_device('cpu:0') (each set back afterwards), "
          "both raise NotImplementedError on m.",
    "zh_CN": "对 float32 的 CPU 张量 a 和 float32 的 NumPy 数组调用 torch.as_tensor 和 "
             "torch.asarray，并对数组调用 torch.from_numpy：没有设置默认设备时，在 with torch.device('cpu') "
             "里，以及在 torch.set_default_device('cpu') 下（之后改回），前两个函数返回 a "
             "本身，并与数组共享内存。在 torch.set_default_device('cpu:0') 和 "
             "torch.set_default_device('meta') 下（每次之后都改回），以及在 with torch.device('cpu:0') 和 "
             "with torch.device('meta') 里，它们返回一个新张量，设备类型与默认设备相同，形状和 dtype 与输入（a "
             "或数组）相同，既不与 a 共享存储，也不与数组共享内存：在 cpu:0 下它存有输入的值，设备是 a "
             "自己的设备 cpu，不等于默认设备 cpu:0；在 meta 上它不存任何值（读取它的值会抛出 "
             "NotImplementedError）；torch.from_numpy "
             "仍与数组共享内存。在这七种设置下，前两个函数对 int64、bool 和 complex64 的 CPU "
             "张量也都是这样。在 with torch.device('cpu:0') 里创建的张量，设备是 "
             "cpu，在那里这两个函数同样复制它。对 meta 上的 float32 张量 "
             "m：没有设置默认设备时（torch.get_default_device() 是 cpu），在 with torch.device('meta') 里和 "
             "torch.set_default_device('meta') 下（之后改回），两个函数都返回 m 本身；在 with "
             "torch.device('cpu') 和 with torch.device('cpu:0') 里，以及在 torch.set_default_device('cpu') "
             "和 torch.set_default_device('cpu:0') 下（每次之后都改回），两个函数对 m 都抛出 "
             "NotImplementedError。",
})
def _default_device_makes_as_tensor_copy() -> Fact:
    a, array = torch.ones(2), np.zeros(2, dtype=np.float32)
    at = array.__array_interface__["data"][0]
    seen, sources = {}, [a, *(torch.ones(2, dtype=dtype) for dtype in (torch.int64, torch.bool, torch.complex64))]
    for name, device, context in (("none", "cpu", contextlib.nullcontext()), ("cpu", "cpu", torch.device("cpu")),
                                  ("set cpu", "cpu", _set_default_device("cpu")),
                                  ("set cpu:0", "cpu", _set_default_device("cpu:0")),
                                  ("cpu:0", "cpu", torch.device("cpu:0")), ("meta", "meta", torch.device("meta")),
                                  ("set meta", "meta", _set_default_device("meta"))):
        with context:
            made = [(source, call(source)) for source in sources for call in (torch.as_tensor, torch.asarray)]
            default = torch.get_default_device()
            from_array = torch.as_tensor(array), torch.asarray(array)
            numpy_shared = torch.from_numpy(array).data_ptr() == at
        is_self, shared = {t is s for s, t in made}, {t.untyped_storage().data_ptr() == s.data_ptr() for s, t in made}
        seen[name] = (min(is_self) if len(is_self) == 1 else "mixed", min(shared) if len(shared) == 1 else "mixed",
                      all(t.data_ptr() == at for t in from_array),
                      all(t.device.type == device for t in (*(t for _, t in made), *from_array)),
                      numpy_shared, all(_same_kind_and_values(s, t) for s, t in made)
                      and all(_same_kind_and_values(torch.from_numpy(array), t) for t in from_array))
        if "cpu:0" in name:
            seen[name] += (all(t.device == s.device != default for s, t in made)
                           and all(t.device == a.device != default for t in from_array),)
    with torch.device("cpu:0"):
        made_there = torch.ones(2)
        again = torch.as_tensor(made_there), torch.asarray(made_there)
    made_there_copied = str(made_there.device) == "cpu" and not any(
        t is made_there or t.untyped_storage().data_ptr() == made_there.data_ptr() for t in again)
    m, kept, raised = torch.ones(2, device="meta"), {}, {}
    for name, context in (("none", contextlib.nullcontext()), ("with meta", torch.device("meta")),
                          ("set meta", _set_default_device("meta"))):
        with context:
            kept[name] = str(torch.get_default_device()) == ("cpu" if name == "none" else "meta") and (
                torch.as_tensor(m) is m and torch.asarray(m) is m)
    for name, context in (("with cpu", lambda: torch.device("cpu")), ("with cpu:0", lambda: torch.device("cpu:0")),
                          ("set cpu", lambda: _set_default_device("cpu")),
                          ("set cpu:0", lambda: _set_default_device("cpu:0"))):
        for call in (torch.as_tensor, torch.asarray):
            with context():
                raised[f"{call.__name__} {name}"] = _raises(NotImplementedError, functools.partial(call, m))
    return Fact(seen["none"] == seen["cpu"] == seen["set cpu"] == (True, True, True, True, True, True)
                and all(seen[n] == (False, False, False, True, True, True, True) for n in ("set cpu:0", "cpu:0"))
                and all(seen[n] == (False, False, False, True, True, True) for n in ("meta", "set meta"))
                and made_there_copied and all(kept.values()) and all(raised.values()),
                f"(as_tensor and asarray give a, share a's storage, share the array, on the device (the array's "
                f"too); from_numpy shares; the input's shape and dtype, with its values off meta and none on "
                f"meta; under cpu:0, on the source's device, not the default device): {seen}; "
                f"a tensor made under cpu:0 is on {made_there.device} and copied there: "
                f"{made_there_copied}; a meta tensor given back itself with no default device or a meta one: {kept}; "
                f"NotImplementedError on a meta tensor under a cpu default device: {raised}")
