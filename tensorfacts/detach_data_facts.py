"""Named facts on what an edit through ``a.detach()`` or ``a.data`` reaches: the version counter
``a.detach()`` shares and ``a.data`` does not, a NumPy write through it, and the metadata changes
(``set_``; a growing ``resize_``, which raises on a storage that is not resizable, such as memory torch did
not allocate or what ``torch.load`` read, and on shared memory ends the process) made on ``a.detach()``.
Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a fact is.
"""

from __future__ import annotations

import copy
import pathlib
import signal
import tempfile
import warnings
from collections.abc import Callable

import numpy as np
import torch

from tensorfacts.fact_registry import Fact, fact
from tensorfacts.tensors import VERSION_ERROR, backward_error, bytes_apart, fresh_python, same_storage

_NUMBERS = {"en": ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
            "zh_CN": ("两", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二")}


def _count(n: int, language: str) -> str:
    return _NUMBERS[language][n - 2] if 2 <= n <= 12 else str(n)


#: The in-place edits the quick reference names, and the two routes to a's memory it compares.
COUNTED_EDITS = {"add_(1)": lambda t: t.add_(1), "mul_(10)": lambda t: t.mul_(10)}
UNCOUNTED_EDITS = {"apply_(f)": lambda t: t.apply_(lambda v: v * 10),
                   "map_(ones, f)": lambda t: t.map_(torch.ones_like(t), lambda v, _: v * 10)}
DETACH_OR_DATA = {"a.detach()": lambda a: a.detach(), "a.data": lambda a: a.data}


@fact("data-has-own-version-counter", {
    "en": "Saves the leaf a (which requires grad) in (a * a).sum(), then edits it once, a fresh a each time, through "
          "a.detach() or through d = a.data, by add_(1), mul_(10), apply_(f) or map_(ones, f) (f multiplying by "
          "10). Through a.detach(), add_ and mul_ move a._version by one and backward raises the version-counter "
          "error. Through a.data, they move d._version by one, a._version does not move, and backward raises "
          "nothing, giving a.grad twice the new values (after mul_(10), [20, 40, 60] where the loss's gradient is "
          "[2, 4, 6]). Through either, apply_ and map_ move neither a._version nor the counter of the tensor they "
          "are called on, and backward raises nothing, giving a.grad = [20, 40, 60].",
    "zh_CN": "对需要梯度的叶子张量 a，在 (a * a).sum() 中保存 a，再原地修改一次（每次都用新的 a）：通过 a.detach() "
             "或通过 d = a.data，用 add_(1)、mul_(10)、apply_(f) 或 map_(ones, f)（f 乘以 10）。通过 a.detach() 时，"
             "add_ 和 mul_ 让 a._version 加 1，反向传播报版本计数器错误；通过 a.data 时，它们让 d._version 加 1，"
             "a._version 不变，反向传播不报错，a.grad 是新数值的两倍（mul_(10) 之后为 [20, 40, 60]，而这个损失的"
             "梯度应是 [2, 4, 6]）。无论通过哪一个，apply_ 和 map_ 既不推进 a._version，也不推进被调用的那个张量的"
             "计数器，反向传播不报错，a.grad 为 [20, 40, 60]。",
})
def _data_has_own_version_counter() -> Fact:
    """add_ and mul_ through a.detach() are caught, through a.data move its own counter; apply_ and map_ move none."""
    seen = {}
    for route, take in DETACH_OR_DATA.items():
        for name, edit in {**COUNTED_EDITS, **UNCOUNTED_EDITS}.items():
            a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            loss, t = (a * a).sum(), take(a)  # the loss saves a
            before, own_before = a._version, t._version
            edit(t)
            new, error = a.detach() * 2, backward_error(loss)
            seen[f"{name} through {route}"] = (a._version - before, t._version - own_before, "version-counter error"
                                               if VERSION_ERROR in error else error or "no error",
                                               a.grad is not None and torch.equal(a.grad, new), new.tolist())
    caught = all(seen[f"{name} through a.detach()"][:3] == (1, 1, "version-counter error") for name in COUNTED_EDITS)
    own = all(seen[f"{name} through a.data"][:4] == (0, 1, "no error", True) for name in COUNTED_EDITS)
    wrong_grad = seen["mul_(10) through a.data"][4] == [20.0, 40.0, 60.0]
    unseen = all(seen[f"{name} through {route}"] == (0, 0, "no error", True, [20.0, 40.0, 60.0])
                 for name in UNCOUNTED_EDITS for route in DETACH_OR_DATA)
    return Fact(caught and own and wrong_grad and unseen, "(a._version moved, the edited tensor's counter moved, "
                f"backward, a.grad is twice the new values, those doubled values) per edit: {seen}")


@fact("detach-numpy-write-silent", {
    "en": "For the float32 leaf a = [1., 2., 3.] that requires grad (CPU), saves a in (a * a).sum(), multiplies "
          "a.detach().numpy() by 10 in place, runs backward: no error, a._version still 0, a.grad = [20, 40, 60] "
          "where the loss's gradient is [2, 4, 6].",
    "zh_CN": "对需要梯度的 float32 叶子张量 a = [1., 2., 3.]（CPU 上），在 (a * a).sum() 中保存 a，把 "
             "a.detach().numpy() 原地乘以 10，再反向传播：不报错，a._version 仍为 0，a.grad = [20, 40, 60]，"
             "而这个损失的梯度应是 [2, 4, 6]。",
})
def _detach_numpy_write_silent() -> Fact:
    """A write through a.detach().numpy() moves no version counter: a silent wrong gradient."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (a * a).sum()  # saves a
    view = a.detach().numpy()
    view *= 10
    error = backward_error(loss)
    grad = a.grad.tolist() if a.grad is not None else None
    return Fact(not error and a._version == 0 and grad == [20.0, 40.0, 60.0],
                f"a._version = {a._version}; a.grad = {grad}; true gradient [2.0, 4.0, 6.0]")


@fact("detach-set-keeps-version-counter", {
    "en": "For a 2×3 float32 leaf a that requires grad (CPU), on d = a.detach(), calls d.set_(torch.zeros(6)), "
          "computes the loss (a * a).sum(), which saves a, then calls d.add_(1): a._version moves, a and d no "
          "longer share storage, and backward of that loss raises.",
    "zh_CN": "对需要梯度的 2×3 float32 叶子张量 a（CPU 上），取 d = a.detach()，先调用 d.set_(torch.zeros(6))，"
             "再算出保存了 a 的损失 (a * a).sum()，然后调用 d.add_(1)：a._version 随之增加，a 与 d 已不共享存储，"
             "这个损失反向传播时报错。",
})
def _detach_set_keeps_version_counter() -> Fact:
    """After d.set_(...) on d = a.detach(), d.add_(1) still moves a._version, and backward of a loss computed after
    the set_ fails."""
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    d = a.detach()
    d.set_(torch.zeros(6))
    loss = (a * a).sum()
    before = a._version
    d.add_(1)
    error = backward_error(loss)
    return Fact(a._version == before + 1 and bytes_apart(a, d) and VERSION_ERROR in error,
                f"a._version {before} -> {a._version} after d.add_(1); backward: {error or 'no error'}")


@fact("detach-resize-grow-reallocates", {
    "en": "On d = a.detach() of a 2×3 float32 leaf a that requires grad (CPU), calls d.resize_(100): the storage "
          "of a moves to a new one of 400 bytes (100 float32 elements), still shared with d, and a keeps its "
          "shape (2, 3).",
    "zh_CN": "对需要梯度的 2×3 float32 叶子张量 a（CPU 上），取 d = a.detach()，调用 d.resize_(100)：a 的存储换成"
             "了一块 400 字节（100 个 float32 元素）的新存储，仍与 d 共享，a 的形状仍是 (2, 3)。",
})
def _detach_resize_grow_reallocates() -> Fact:
    """A growing d.resize_(100) on d = a.detach() gives a (and d) a new, larger storage."""
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    d = a.detach()
    old = a.untyped_storage().data_ptr()
    d.resize_(100)
    moved = a.untyped_storage().data_ptr() != old
    nbytes = a.untyped_storage().nbytes()
    return Fact(moved and same_storage(a, d) and nbytes == 400 and tuple(a.shape) == (2, 3),
                f"a's storage moved: {moved}; its size {nbytes} bytes; shared with d: {same_storage(a, d)}")


def _saved_six(folder: pathlib.Path, legacy: bool = False) -> pathlib.Path:
    """A file holding ``{"w": torch.ones(6)}`` (float32) as torch.save writes it: in its default zip format, or in the
    legacy one (``_use_new_zipfile_serialization=False``)."""
    path = folder / "six.pt"
    torch.save({"w": torch.ones(6)}, path, _use_new_zipfile_serialization=not legacy)
    return path


def _loaded(folder: pathlib.Path, legacy: bool = False, **options) -> torch.Tensor:
    return torch.load(_saved_six(folder, legacy), **options)["w"]


def _assigned(folder: pathlib.Path, legacy: bool = False) -> torch.Tensor:
    """The parameter that ``load_state_dict(..., assign=True)`` puts in place from a state dict torch.load read."""
    module = torch.nn.Module()
    module.w = torch.nn.Parameter(torch.zeros(6))
    module.load_state_dict(torch.load(_saved_six(folder, legacy), weights_only=True), assign=True)
    return module.w


def _from_file(folder: pathlib.Path, shared: bool) -> torch.Tensor:
    path = folder / "six.bin"
    np.ones(6, dtype=np.float32).tofile(path)
    return torch.from_file(str(path), shared=shared, size=6)


#: Tensors of 6 float32 elements on a storage that is not resizable (``untyped_storage().resizable()`` is False), by
#: route; each is made in a folder of its own. A growing ``resize_`` raises on them.
NOT_RESIZABLE: dict[str, Callable[[pathlib.Path], torch.Tensor]] = {
    "torch.from_numpy(array)": lambda folder: torch.from_numpy(np.ones(6, dtype=np.float32)),
    "torch.frombuffer(bytearray)": lambda folder: torch.frombuffer(
        bytearray(np.ones(6, dtype=np.float32).tobytes()), dtype=torch.float32),
    "torch.from_dlpack(array)": lambda folder: torch.from_dlpack(np.ones(6, dtype=np.float32)),
    "torch.load(f, weights_only=True)": lambda folder: _loaded(folder, weights_only=True),
    "torch.load(f, weights_only=False)": lambda folder: _loaded(folder, weights_only=False),
    "torch.load(f, weights_only=True, mmap=True)": lambda folder: _loaded(folder, weights_only=True, mmap=True),
    "torch.load(f, weights_only=False, mmap=True)": lambda folder: _loaded(folder, weights_only=False, mmap=True),
    "load_state_dict(torch.load(f), assign=True)": _assigned,
    "torch.from_file(f, shared=False)": lambda folder: _from_file(folder, shared=False),
    "torch.from_file(f, shared=True)": lambda folder: _from_file(folder, shared=True),
}
#: Tensors of 6 float32 elements on a resizable storage, by route: a growing ``resize_`` moves them.
RESIZABLE: dict[str, Callable[[pathlib.Path], torch.Tensor]] = {
    "torch.ones(6)": lambda folder: torch.ones(6),
    "torch.load(f).clone()": lambda folder: _loaded(folder, weights_only=True).clone(),
    "copy.deepcopy(torch.load(f))": lambda folder: copy.deepcopy(_loaded(folder, weights_only=True)),
    "torch.from_numpy(array).clone()": lambda folder: torch.from_numpy(np.ones(6, dtype=np.float32)).clone(),
    "torch.load(legacy_f, weights_only=True)": lambda folder: _loaded(folder, legacy=True, weights_only=True),
    "torch.load(legacy_f, weights_only=False)": lambda folder: _loaded(folder, legacy=True, weights_only=False),
    "load_state_dict(torch.load(legacy_f), assign=True)": lambda folder: _assigned(folder, legacy=True),
}
#: The child of :func:`_detach_resize_grow_on_borrowed_memory`: no core file; a growing resize_ of shared memory.
_SHARED_GROW = (
    "import resource, torch\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "a = torch.ones(6, requires_grad=True)\n"
    "a.share_memory_()\n"
    "print('shared:', a.is_shared(), 'resizable:', a.untyped_storage().resizable(), flush=True)\n"
    "try:\n"
    "    a.detach().resize_(100)\n"
    "except BaseException as e:\n"
    "    print('caught', type(e).__name__, flush=True)\n"
    "print('resized', flush=True)\n"
)


def _grow(a: torch.Tensor) -> tuple[bool, str]:
    """``d.resize_(100)`` on ``d = a.detach()``: (``a``'s storage reported resizable, "raises" or "moves" as the
    fact expects each, or what else happened)."""
    d = a.detach()
    resizable = a.untyped_storage().resizable()
    address, version, values = a.untyped_storage().data_ptr(), a._version, a.tolist()
    try:
        d.resize_(100)
    except RuntimeError as e:
        kept = (a.untyped_storage().data_ptr() == address and a._version == version and a.tolist() == values
                and tuple(a.shape) == (6,))
        over_old = tuple(d.shape) == (100,) and d.untyped_storage().nbytes() == 24
        expected = "Trying to resize storage that is not resizable" in str(e) and kept and over_old
        return resizable, "raises" if expected else f"raises {e}, a kept: {kept}, d (100,) over 24 bytes: {over_old}"
    moved = (a.untyped_storage().data_ptr() != address and same_storage(a, d) and a.untyped_storage().nbytes() == 400
             and a.tolist() == values and tuple(a.shape) == (6,) and a._version == version + 1)
    return resizable, "moves" if moved else "resized, not as expected"


@fact("detach-resize-grow-on-borrowed-memory", {
    "en": "On d = a.detach() of a leaf a of 6 float32 elements made to require grad by requires_grad_(), calls "
          "d.resize_(100) (f is a file torch.save wrote {'w': torch.ones(6)} to in its default zip format, "
          "legacy_f one it wrote it to with _use_new_zipfile_serialization=False, torch.load(f) stands for the "
          "tensor a file holds, and torch.from_file reads a file of 24 bytes). On a from each of these "
          f"{_count(len(NOT_RESIZABLE), 'en')} routes, whose storage reports untyped_storage().resizable() False: "
          + ", ".join(NOT_RESIZABLE) + ", the call raises a RuntimeError, \"Trying to resize storage that is not "
          "resizable\"; d then has the shape (100,) over the same 24 bytes, and a keeps its memory, its values, its "
          f"shape and its _version. On a from each of these {_count(len(RESIZABLE), 'en')} routes, whose storage "
          "reports resizable() True: " + ", ".join(RESIZABLE) + ", a's storage moves to a new one of 400 bytes, "
          "shared with d, a keeps its values and its shape, and _version moves by one. In a fresh Python process, "
          "after a.share_memory_(), whose storage also reports resizable() True, the same call, in a try/except "
          "BaseException, ends the process with a segmentation fault (the signal SIGSEGV), and the except clause "
          "catches nothing.",
    "zh_CN": "对有 6 个 float32 元素、用 requires_grad_() 设为需要梯度的叶子张量 a，对 d = a.detach() 调用 "
             "d.resize_(100)（f 是 torch.save 以默认的 zip 格式写入 {'w': torch.ones(6)} 的文件，legacy_f 是以 "
             "_use_new_zipfile_serialization=False 写入的同样内容的文件，torch.load(f) 代表文件中的张量；"
             "torch.from_file 读的是一个 24 字节的文件）。下面"
             f"{_count(len(NOT_RESIZABLE), 'zh_CN')}条途径得到的 a，存储的 untyped_storage().resizable() 都是 False："
             + "、".join(NOT_RESIZABLE) + "；对它们，这个调用抛出 RuntimeError“Trying to resize storage that is not "
             "resizable”，之后 d 的形状是 (100,)，底下仍是原来的 24 个字节，a 的内存、数值、形状和 _version 都不变。"
             f"下面{_count(len(RESIZABLE), 'zh_CN')}条途径得到的 a，存储的 resizable() 都是 True："
             + "、".join(RESIZABLE) + "；对它们，a 的存储换成一块 400 字节的新存储，仍与 d 共享，a 的数值和形状不变，"
             "_version 加 1。在一个全新的 Python 进程里，先调用 a.share_memory_()（它的存储的 resizable() 也是 "
             "True），再在 try/except BaseException 里做同样的调用，进程因段错误（信号 SIGSEGV）"
             "终止，except 子句什么也没捕获到。",
}, {"en": f"{len(NOT_RESIZABLE)} routes to a storage that is not resizable (NumPy, a bytearray, DLPack, torch.load "
          "of a zip-format file with weights_only True and False, with and without mmap, load_state_dict(assign=True) "
          f"from it, torch.from_file shared and not), {len(RESIZABLE)} to a resizable one (torch.load of a "
          "legacy-format file and load_state_dict(assign=True) from it among them), and shared memory; a leaf of 6 "
          "float32 elements, on the CPU",
    "zh_CN": f"{len(NOT_RESIZABLE)} 条途径得到不可调整大小的存储（NumPy、bytearray、DLPack、对 zip 格式文件 "
             "weights_only 为 True 和 False、带和不带 mmap 的 torch.load、由此的 load_state_dict(assign=True)、"
             f"shared 与否的 torch.from_file），{len(RESIZABLE)} 条得到可调整大小的存储（其中有对旧格式文件的 "
             "torch.load 和由此的 load_state_dict(assign=True)），以及共享内存；6 个 float32 元素的叶子张量，"
             "在 CPU 上"})
def _detach_resize_grow_on_borrowed_memory() -> Fact:
    """A growing d.resize_(100) raises on a storage that is not resizable, after d took the new shape, and moves a
    resizable one; on shared memory, resizable too, it ends the process with a segmentation fault that no except
    clause catches (run in a child)."""
    seen = {}
    with tempfile.TemporaryDirectory() as folder:
        for i, (route, make) in enumerate({**NOT_RESIZABLE, **RESIZABLE}.items()):
            (pathlib.Path(folder) / str(i)).mkdir()
            seen[route] = _grow(make(pathlib.Path(folder) / str(i)).requires_grad_())
    child = fresh_python(_SHARED_GROW)
    crashed = (child.returncode == -signal.SIGSEGV and "shared: True resizable: True" in child.stdout
               and "caught" not in child.stdout and "resized" not in child.stdout)
    return Fact(all(seen[route] == (False, "raises") for route in NOT_RESIZABLE)
                and all(seen[route] == (True, "moves") for route in RESIZABLE) and crashed,
                f"per route (resizable(), what d.resize_(100) did): {seen}; "
                f"shared memory in a child: exit status {child.returncode}, printed {child.stdout.split()}")


def _through_numpy(a: torch.Tensor) -> None:
    array = a.detach().numpy()
    array *= 10


def _through_storage(a: torch.Tensor) -> None:
    a.detach().untyped_storage().copy_((a.detach() * 10).untyped_storage())


def _through_typed_storage(a: torch.Tensor) -> None:
    with warnings.catch_warnings():  # TypedStorage is deprecated, and still there
        warnings.simplefilter("ignore", UserWarning)
        storage = a.detach().storage()
        for i in range(len(storage)):
            storage[i] = storage[i] * 10


def _through_numpy_dlpack(a: torch.Tensor) -> None:
    array = np.from_dlpack(a.detach())
    array *= 10


#: The routes from ``a.detach()`` to the memory of ``a``, each with a write of ten times the values
#: through it (``a`` a contiguous leaf). The name is the expression the pages and guides quote.
DETACH_ROUTES: dict[str, Callable[[torch.Tensor], object]] = {
    "a.detach()": lambda a: a.detach().mul_(10),
    "a.detach()[:]": lambda a: a.detach()[:].mul_(10),
    "a.detach().data": lambda a: a.detach().data.mul_(10),
    "a.detach().numpy()": _through_numpy,
    "a.detach().untyped_storage()": _through_storage,
    "torch.from_dlpack(a.detach())": lambda a: torch.from_dlpack(a.detach()).mul_(10),
    "torch.frombuffer(a.detach().numpy(), dtype=a.dtype)":
        lambda a: torch.frombuffer(a.detach().numpy(), dtype=a.dtype).mul_(10),
    "a.detach().storage()": _through_typed_storage,
    "np.from_dlpack(a.detach())": _through_numpy_dlpack,
    "torch.empty(0).set_(a.detach().untyped_storage())":
        lambda a: torch.empty(0).set_(a.detach().untyped_storage()).mul_(10),
    "a.detach().apply_(f)": lambda a: a.detach().apply_(lambda v: v * 10),
    "a.detach().map_(a.detach(), f)": lambda a: a.detach().map_(a.detach(), lambda v, o: v * 10),
}
#: The routes whose write autograd's version check catches; through every other one it goes unseen.
CAUGHT_ROUTES = ("a.detach()", "a.detach()[:]")
#: The routes through which backward raises nothing, in the order the guides list them.
SILENT_ROUTES = tuple(route for route in DETACH_ROUTES if route not in CAUGHT_ROUTES)
#: The silent routes that go through ``a.detach()`` itself, which shares a's version counter: ``apply_`` and
#: ``map_`` run a Python function on each value and move no version counter at all.
UNCOUNTED_METHOD_ROUTES = ("a.detach().apply_(f)", "a.detach().map_(a.detach(), f)")
#: The silent routes that do not go through a tensor sharing a's version counter.
OTHER_MEMORY_ROUTES = tuple(route for route in SILENT_ROUTES if route not in UNCOUNTED_METHOD_ROUTES)


def detach_route_outcomes() -> dict[str, str]:
    """For each route: "error at backward", "wrong gradient, no error", or what else happened."""
    outcomes = {}
    for route, write in DETACH_ROUTES.items():
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (a * a).sum()  # saves a
        write(a)
        error = backward_error(loss)
        grad = a.grad.tolist() if a.grad is not None else None
        if VERSION_ERROR in error:
            outcomes[route] = "error at backward"
        elif not error and grad == [20.0, 40.0, 60.0]:
            outcomes[route] = "wrong gradient, no error"
        else:
            outcomes[route] = f"{error or 'no error'}, a.grad = {grad}"
    return outcomes



@fact("detach-write-routes", {
    "en": "Saves the leaf a (which requires grad) in (a * a).sum(), multiplies its values by 10 through one route "
          f"from a.detach() to its memory, and runs backward; {_count(len(DETACH_ROUTES), 'en')} routes, each on a "
          "fresh a (f multiplies a value by 10): " + ", ".join(DETACH_ROUTES) + ". The routes through a tensor that "
          "shares a's version counter by mul_ (" + " and ".join(CAUGHT_ROUTES) + ") make backward raise the "
          f"version-counter error; through the other {_count(len(SILENT_ROUTES), 'en')} backward raises nothing and "
          "a.grad is [20, 40, 60] where the loss's gradient is [2, 4, 6]. Among them " + " and ".join(
              UNCOUNTED_METHOD_ROUTES) + " edit through a.detach() itself and leave a._version at 0.",
    "zh_CN": "在 (a * a).sum() 中保存需要梯度的叶子张量 a，经由从 a.detach() 到它内存的一条途径把数值乘以 10，"
             f"再反向传播；共{_count(len(DETACH_ROUTES), 'zh_CN')}条途径，每条都用新的 a（f 把一个值乘以 10）："
             + "、".join(DETACH_ROUTES) + "。经由与 a 共享版本计数器的张量、用 mul_ 修改的途径（"
             + " 和 ".join(CAUGHT_ROUTES) + "）让反向传播报版本计数器错误；"
             f"经由其余{_count(len(SILENT_ROUTES), 'zh_CN')}条，反向传播都不报错，a.grad 为 [20, 40, 60]，"
             "而这个损失的梯度应是 [2, 4, 6]。其中 " + " 和 ".join(UNCOUNTED_METHOD_ROUTES)
             + " 就是经由 a.detach() 本身修改的，a._version 仍为 0。",
})
def _detach_write_routes() -> Fact:
    """Only mul_ through a.detach() itself or a view of it is caught; apply_ and map_ through a.detach() and
    the other routes go unseen."""
    outcomes = detach_route_outcomes()
    expected = {route: "error at backward" if route in CAUGHT_ROUTES else "wrong gradient, no error"
                for route in DETACH_ROUTES}
    versions = {}
    for route in UNCOUNTED_METHOD_ROUTES:
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        DETACH_ROUTES[route](a)
        versions[route] = a._version
    return Fact(outcomes == expected and set(versions.values()) == {0},
                "; ".join(f"{route}: {outcome}" for route, outcome in outcomes.items())
                + "; a._version after " + ", ".join(f"{route}: {v}" for route, v in versions.items()))
