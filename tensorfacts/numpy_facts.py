"""Named facts on the NumPy array of a tensor: on which tensors ``a.detach().numpy()`` works and shares memory (a
dense CPU tensor of a dtype NumPy has and of no more dimensions than NumPy allows, not a nested one, not an
instance of a subclass that defines ``__torch_dispatch__``, without the conjugate or negative bit, outside a
``torch.func`` transform), checked in every dtype NumPy has.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import bytes_apart


@fact("detach-numpy-needs-plain-dense", {
    "en": "On a dense float32 CPU tensor a that requires grad, a.detach().numpy() works and follows a later "
          "a.detach().mul_(10). On a dense CPU tensor of each dtype NumPy has, float16, float32, float64, "
          "complex64, complex128, bool, int8, int16, int32, int64, uint8, uint16, uint32 and uint64 (those of them "
          "that can require grad requiring it), a.detach().numpy() shares a's memory and follows a later "
          "a.detach().fill_(1); on bfloat16 and float8_e4m3fn, which NumPy lacks, it raises TypeError. On a float32 "
          "CPU tensor of as many dimensions as NumPy allows (64 in NumPy 2, the NumPy of the site's build), every "
          "size 1 and six "
          "sizes 2 then the rest 1, a.detach().numpy(), a.numpy(force=True) and np.asarray(a) share a's memory; on "
          "one of a dimension more, every size 1, each raises ValueError. "
          ".numpy() and .detach().numpy() raise RuntimeError on z.conj() (conjugate bit set, z complex) and on "
          "z.conj().imag (negative bit set). .numpy() raises TypeError on "
          "a.detach() of a float32 CPU tensor in each sparse layout (to_sparse(), to_sparse_csr(), to_sparse_csc(), "
          "to_sparse_bsr((1, 1)), to_sparse_bsc((1, 1))) and of torch.ones(3).to_mkldnn(), and RuntimeError "
          "on a.detach() of a float32 CPU "
          "nested tensor of each layout, "
          "torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=layout) with layout torch.strided "
          "(the layout torch calls dense) or torch.jagged. .numpy(), .numpy(force=True) and np.asarray raise "
          "RuntimeError (\".numpy() is not "
          "supported for tensor subclasses\") on w.detach() of a wrapper subclass w of torch.ones(3) (made with "
          "torch.Tensor._make_wrapper_subclass, an internal name) and on torch.ones(3).as_subclass(D), both classes "
          "defining __torch_dispatch__, though each is strided, on the CPU, float32, neither sparse, nested nor "
          "mkldnn, with neither bit set; m.detach().numpy(), m.numpy(force=True) and np.asarray(m) of "
          "m = torch.ones(3).as_subclass(M), M a subclass without __torch_dispatch__, are on m's memory. "
          "z.conj().resolve_conj().numpy() and "
          "z.conj().imag.resolve_neg().numpy() work and have storage of their own (a copy). Inside "
          "torch.func.grad, vjp, jvp, jacrev, jacfwd and hessian of f(t, y) over torch.ones(3) twice, "
          "t is strided, on the CPU, float32, neither sparse nor nested, with neither bit set, and "
          ".detach().numpy() raises RuntimeError on t, on y, on a tensor f closes over and on torch.ones(3) made "
          "in f. Inside torch.func.vmap(f, in_dims=(0, None))(torch.ones(2, 3), y), it raises on t (plain as "
          "above), on t * 2 and on torch.zeros_like(t), and works on y and on the tensor closed over, each array on "
          "that tensor's memory, and on torch.ones(3) made in f. Outside them, .detach().numpy() of the inputs "
          "works. Inside "
          "torch.func.functionalize(f)(torch.tensor([1.5, -2.25, 1000.0])), "
          "t.detach().numpy() raises nothing, but the array is not on the input's memory: it does not hold the "
          "input's values, and a write to it leaves the input as it was.",
    "zh_CN": "对需要梯度的稠密 float32 CPU 张量 a，a.detach().numpy() 可以调用，之后 a.detach().mul_(10) 时数组跟着变。"
             "对 NumPy 也有的每种 dtype，即 float16、float32、float64、complex64、complex128、bool、int8、int16、"
             "int32、int64、uint8、uint16、uint32 和 uint64 的稠密 CPU 张量 a（其中能够需要梯度的，都设为需要梯度），"
             "a.detach().numpy() 与 a 共享内存，之后 a.detach().fill_(1) 时数组跟着变；对 NumPy 没有的 bfloat16 和 "
             "float8_e4m3fn，它报 TypeError。对维数等于 NumPy 上限（本站构建所用的 NumPy 2 是 64）的 float32 CPU 张量 a"
             "（各维大小都是 1，或者先有六个大小为 2 的维，其余为 1），a.detach().numpy()、a.numpy(force=True) 和 "
             "np.asarray(a) 都与 a 共享内存；多一维（各维大小都是 1）时，三者都报 ValueError。"
             "对 z.conj()（z 是复数张量，共轭位已设置）和 z.conj().imag（负号位已设置），.numpy() 和 "
             ".detach().numpy() 都报 RuntimeError。对 "
             "float32 CPU 张量在每种稀疏布局下的 a.detach()（to_sparse()、to_sparse_csr()、to_sparse_csc()、"
             "to_sparse_bsr((1, 1))、to_sparse_bsc((1, 1))，报的是 TypeError）、torch.ones(3).to_mkldnn()（也报 "
             "TypeError），"
             "以及两种布局的 float32 CPU 嵌套张量，即 torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], "
             "layout=layout) 在 layout 为 torch.strided（torch 称为稠密的布局）或 torch.jagged 时的 a.detach()"
             "（报的是 RuntimeError），"
             "调用 .numpy() 都报错。对 torch.ones(3) 的包装子类 w（用内部名称 torch.Tensor._make_wrapper_subclass "
             "创建）的 w.detach()，以及 torch.ones(3).as_subclass(D)，两个类都定义了 __torch_dispatch__，"
             ".numpy()、.numpy(force=True) 和 np.asarray 都报 RuntimeError（“.numpy() is not supported for tensor "
             "subclasses”），尽管它们的布局都是 "
             "strided、在 CPU 上、float32，既不是稀疏张量、嵌套张量，也不是 mkldnn 张量，两个位都没有设置；"
             "对 m = torch.ones(3).as_subclass(M)（M 是没有定义 __torch_dispatch__ 的子类），m.detach().numpy()、"
             "m.numpy(force=True) 和 np.asarray(m) 都在 m 的内存上。z.conj().resolve_conj().numpy() 和 "
             "z.conj().imag.resolve_neg().numpy() "
             "可以调用，而且有自己的存储（是副本）。在以两个 torch.ones(3) 为输入的 f(t, y) 的 "
             "torch.func.grad、vjp、jvp、jacrev、jacfwd 和 hessian 里，"
             "t 是 strided 布局、在 CPU 上、float32，既不是稀疏张量也不是嵌套张量，两个位都没有设置，"
             "而对 t、对 y、对 f 引用的外部张量、对 f 里新建的 torch.ones(3) 调用 .detach().numpy() 都报 "
             "RuntimeError。在 torch.func.vmap(f, in_dims=(0, None))(torch.ones(2, 3), y) 里，对 t（同样满足上述"
             "条件）、t * 2 和 torch.zeros_like(t) 调用它报错，对 y 和引用的外部张量调用它可以，数组各在该张量的"
             "内存上，对 f 里新建的 torch.ones(3) 也可以。"
             "在变换之外，对这些输入调用 .detach().numpy() 都可以。在 "
             "torch.func.functionalize(f)(torch.tensor([1.5, -2.25, 1000.0])) 里，t.detach().numpy() 不报错，"
             "但得到的数组不在输入张量的内存上：数组里不是输入的数值，往数组里写，输入张量也不变。",
})
def _detach_numpy_needs_plain_dense() -> Fact:
    """numpy() shares memory only for a dense tensor, not a sparse or nested one nor of a subclass that defines
    ``__torch_dispatch__``, without the conj/neg bit, outside a
    torch.func transform; resolving the bit copies."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    array = a.detach().numpy()
    a.detach().mul_(10)
    follows = array.tolist() == [10.0, 20.0, 30.0]
    z = torch.tensor([1 + 2j, 3 - 1j])
    refused = {}
    for name, t in (("conj", z.conj()), ("neg", z.conj().imag)):
        for call in (t, t.detach()):
            try:
                call.numpy()
                refused[name] = False
            except RuntimeError:
                refused[name] = refused.get(name, True)
    for name, t in {**_sparse_layouts(), "mkldnn": torch.ones(3).to_mkldnn()}.items():
        try:
            t.detach().numpy()
            refused[name] = False
        except TypeError:
            refused[name] = True
    refused.update(_refused_in_transforms())
    refused.update(_refused_for_dispatch_subclasses())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.nested warns that it is a prototype
        nested = {str(layout): torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=layout)
                  for layout in (torch.strided, torch.jagged)}
    for name, nt in nested.items():
        plain = nt.device.type == "cpu" and not nt.is_sparse and nt.dtype == torch.float32
        try:
            nt.detach().numpy()
            refused[f"nested {name}"] = False
        except RuntimeError:
            refused[f"nested {name}"] = plain
    strided_is_dense = nested["torch.strided"].layout == torch.strided  # the layout torch documents as dense
    resolved = (z.conj().resolve_conj(), z.conj().imag.resolve_neg())
    copies = all(bytes_apart(r, z) and r.numpy() is not None for r in resolved)
    dtypes = _numpy_by_dtype()
    return Fact(follows and all(refused.values()) and strided_is_dense and copies and dtypes[0],
                f"array follows a: {follows}; numpy() refused: {refused}; strided nested layout: {strided_is_dense}; "
                f"resolved ones copy: {copies}; {dtypes[1]}")


def _sparse_layouts() -> dict[str, torch.Tensor]:
    """A float32 CPU tensor in each of torch's five sparse layouts, by layout."""
    d = torch.tensor([[0.0, 1.0], [2.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns that the compressed layouts are in beta
        return {"sparse COO": d.to_sparse(), "sparse CSR": d.to_sparse_csr(), "sparse CSC": d.to_sparse_csc(),
                "sparse BSR": d.to_sparse_bsr((1, 1)), "sparse BSC": d.to_sparse_bsc((1, 1))}


class _Wrapper(torch.Tensor):
    """A wrapper subclass: its own values live in ``elem``, and ``__torch_dispatch__`` runs each call on them."""

    @staticmethod
    def __new__(cls, elem: torch.Tensor) -> _Wrapper:
        return torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device)

    def __init__(self, elem: torch.Tensor) -> None:
        self.elem = elem

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def unwrap(x):
            return x.elem if isinstance(x, _Wrapper) else x
        out = func(*map(unwrap, args), **{key: unwrap(value) for key, value in (kwargs or {}).items()})
        return _Wrapper(out) if isinstance(out, torch.Tensor) else out


class _Dispatching(torch.Tensor):
    """A subclass made with ``as_subclass`` that defines ``__torch_dispatch__`` (never reached here)."""

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        raise AssertionError(f"{func} was dispatched")


class _Plain(torch.Tensor):
    """A subclass that does not define ``__torch_dispatch__``."""


def _refused_for_dispatch_subclasses() -> dict[str, bool]:
    """``.numpy()``, ``.numpy(force=True)`` and ``np.asarray`` raise ``RuntimeError`` ("not supported for tensor
    subclasses") on an instance of a subclass that
    defines ``__torch_dispatch__``, though it is strided, on the CPU, float32, with neither bit and not sparse, nested
    or mkldnn: ``w.detach()`` of a wrapper subclass (itself such an instance) and ``d`` made with ``as_subclass``.
    ``m.detach().numpy()``, ``m.numpy(force=True)`` and ``np.asarray(m)`` of a plain subclass made with ``as_subclass``
    work and are on ``m``'s memory."""
    seen = {}
    for name, t in (("wrapper subclass: w.detach()", _Wrapper(torch.ones(3)).detach()),
                    ("as_subclass with __torch_dispatch__: d", torch.ones(3).as_subclass(_Dispatching))):
        plain = (type(t) is not torch.Tensor and t.layout is torch.strided and t.device.type == "cpu"
                 and t.dtype == torch.float32 and not (t.is_conj() or t.is_neg() or t.is_sparse or t.is_nested
                                                       or t.is_mkldnn))
        for call, convert in (("numpy()", torch.Tensor.numpy), ("numpy(force=True)", lambda u: u.numpy(force=True)),
                              ("np.asarray", np.asarray)):
            try:
                convert(t)
                seen[f"{name}, {call}"] = False
            except RuntimeError as exc:
                seen[f"{name}, {call}"] = plain and "not supported for tensor subclasses" in str(exc)
    m = torch.ones(3).as_subclass(_Plain)
    for call, array in (("m.detach().numpy()", m.detach().numpy()), ("m.numpy(force=True)", m.numpy(force=True)),
                        ("np.asarray(m)", np.asarray(m))):
        on_m = array.__array_interface__["data"][0] == m.data_ptr()
        seen[f"plain subclass: {call} not refused, on m's memory"] = on_m
    return seen


def _numpy_of(t: torch.Tensor) -> int | None:
    """The address of ``t.detach().numpy()``, or None when it raises ``RuntimeError``."""
    try:
        return t.detach().numpy().__array_interface__["data"][0]
    except RuntimeError:
        return None


def _refused_in_transforms() -> dict[str, bool]:
    """Inside ``torch.func.grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian``, ``t.detach().numpy()``
    raises ``RuntimeError`` on every tensor of the function: the argument transformed (which meets every condition of
    the sentence: strided, CPU, float32, neither sparse nor nested, no conjugate or negative bit), a second argument,
    a tensor the function closes over and one it makes. Inside ``vmap`` it raises on the batched argument only: an
    argument given ``in_dims=None`` and a tensor closed over give an array on their own memory, one made inside works
    too. Outside them the array of each input works; inside ``functionalize`` the array is other memory."""
    seen: dict[str, dict[str, int | None]] = {}
    closed = torch.ones(3)

    def f(t: torch.Tensor, y: torch.Tensor, name: str) -> torch.Tensor:
        plain = (t.layout is torch.strided and t.device.type == "cpu" and t.dtype == torch.float32
                 and not t.is_sparse and not t.is_nested and not t.is_conj() and not t.is_neg())
        seen[name] = {"plain": plain, "argument": _numpy_of(t), "t * 2": _numpy_of(t * 2),
                      "zeros_like(t)": _numpy_of(torch.zeros_like(t)), "second argument": _numpy_of(y),
                      "closed over": _numpy_of(closed), "made inside": _numpy_of(torch.ones(3))}
        return t.sum() + y.sum()

    batch, x, y = torch.ones(2, 3), torch.ones(3), torch.ones(3)
    torch.func.vmap(lambda t, y: f(t, y, "in vmap"), in_dims=(0, None))(batch, y)
    torch.func.grad(lambda t, y: f(t, y, "in grad"))(x, y)
    torch.func.vjp(lambda t, y: f(t, y, "in vjp"), x, y)
    torch.func.jacrev(lambda t, y: f(t, y, "in jacrev"))(x, y)
    with warnings.catch_warnings():
        # forward AD's first use imports torch's decompositions, which call the deprecated torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        torch.func.jvp(lambda t, y: f(t, y, "in jvp"), (x, y), (torch.ones(3), torch.ones(3)))
        torch.func.jacfwd(lambda t, y: f(t, y, "in jacfwd"))(x, y)
        torch.func.hessian(lambda t, y: f(t, y, "in hessian"))(x, y)
    outside = all(t.detach().numpy().tolist() == t.tolist() for t in (batch, x, y))
    vmapped = seen.get("in vmap", {})
    names = ("in grad", "in vjp", "in jvp", "in jacrev", "in jacfwd", "in hessian")
    return {**{f"{name}: plain, every tensor refused": name in seen and seen[name]["plain"]
               and all(address is None for key, address in seen[name].items() if key != "plain") for name in names},
            "in vmap: plain, the batched argument and what is computed from it refused": bool(vmapped.get("plain"))
            and all(key in vmapped and vmapped[key] is None for key in ("argument", "t * 2", "zeros_like(t)")),
            "in vmap: in_dims=None and closed over on their own memory, made inside works":
                vmapped.get("second argument") == y.data_ptr() and vmapped.get("closed over") == closed.data_ptr()
                and vmapped.get("made inside") is not None,
            "outside works": outside,
            "functionalize: no error, not the input's memory or values": _array_off_input_in_functionalize()}


def _array_off_input_in_functionalize() -> bool:
    """Inside ``torch.func.functionalize``, ``t.detach().numpy()`` raises nothing, but the array is not on the
    memory of the tensor passed in: it does not hold that tensor's values (it reads other memory, whose bytes change
    from run to run: the input starts with 1.5, which neither leftover bytes nor a zeroed block read as), and a
    write to it leaves that tensor as it was."""
    seen = []

    def f(t: torch.Tensor) -> torch.Tensor:
        array = t.detach().numpy()
        seen.append((array.__array_interface__["data"][0], array.tolist()))
        array[:] = 7.0
        return t * 2

    x = torch.tensor([1.5, -2.25, 1000.0])
    try:
        torch.func.functionalize(f)(x)
    except RuntimeError:
        return False
    [(address, values)] = seen
    return address != x.data_ptr() and values != [1.5, -2.25, 1000.0] and x.tolist() == [1.5, -2.25, 1000.0]


#: The dtypes NumPy has (torch's name for each), and two it lacks.
_NUMPY_DTYPES = (torch.float16, torch.float32, torch.float64, torch.complex64, torch.complex128, torch.bool,
                 torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16, torch.uint32,
                 torch.uint64)
_NOT_NUMPY_DTYPES = (torch.bfloat16, torch.float8_e4m3fn)


def _numpy_by_dtype() -> tuple[bool, str]:
    """a.detach().numpy() shares a's memory and follows a.detach().fill_(1) in every dtype NumPy has (requiring grad
    where the dtype can), and raises TypeError in two it lacks; at NumPy's most dimensions it and numpy(force=True) and
    np.asarray share, and one dimension more raises ValueError. (holds, trace)"""
    wrong = []
    for dtype in _NUMPY_DTYPES:
        a = torch.zeros(3, dtype=dtype, requires_grad=dtype.is_floating_point or dtype.is_complex)
        array = a.detach().numpy()
        a.detach().fill_(1)
        if not (array.__array_interface__["data"][0] == a.data_ptr() and array.tolist() == [1, 1, 1]):
            wrong.append(f"{dtype}: array {array.tolist()}")
    for dtype in _NOT_NUMPY_DTYPES:
        try:
            torch.zeros(3, dtype=dtype).detach().numpy()
        except TypeError:
            continue
        wrong.append(f"{dtype}: numpy() works")
    limit = 64 if int(np.__version__.split(".")[0]) >= 2 else 32  # NumPy's most dimensions
    for a in (torch.ones([1] * limit), torch.ones([2] * 6 + [1] * (limit - 6))):
        if not all(array.__array_interface__["data"][0] == a.data_ptr()
                   for array in (a.detach().numpy(), a.numpy(force=True), np.asarray(a))):
            wrong.append(f"{a.dim()} dimensions of sizes {tuple(a.shape[:7])}...: not on a's memory")
    for call in (lambda t: t.detach().numpy(), lambda t: t.numpy(force=True), np.asarray):
        try:
            call(torch.ones([1] * (limit + 1)))
            wrong.append(f"{limit + 1} dimensions: an array")
        except ValueError:
            pass
    return (not wrong, f"numpy() shares memory and follows fill_(1) in {len(_NUMPY_DTYPES)} dtypes, raises TypeError "
            f"in {len(_NOT_NUMPY_DTYPES)}; with NumPy {np.__version__}, {limit} dimensions share and {limit + 1} raise "
            f"ValueError; not as stated: {wrong or 'none'}")
