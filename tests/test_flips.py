"""Every check can fail: each named fact under a realistic change of torch, each operand of a claim's or a
fact's condition when negated alone, each cell a decision or guide premise reads when changed alone.

A check that always returns true, a condition weakened from ``and`` to ``or``, a premise part over no
sources: each fails a test here. A new fact needs an entry in ``FACT_FLIPS`` (the test lists the ids
that lack one); new claims and premises are picked up as they are.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import sys
import warnings
from unittest import mock

import pytest
import torch

from tensorfacts import articles, decisions, facts, no_grad_view_facts, probes, tensors, verdicts
from tensorfacts import matrix as mp
from tensorfacts.fact_registry import first_counterexample_only
from tensorfacts.model import HOLDS
from tests import operand_flips
from tests.claims_tools import Override, _bump_source, call
from tests.premise_reads import ROW, Recorded, watch_helpers

# --- Named facts under a changed torch -----------------------------------------------------------


def _bypass_autograd(func, args, kwargs):
    """An in-place method run on ``.data``: no version bump, no refusal, as if autograd were not told."""
    return getattr(args[0].data, torch_name_of(func))(*args[1:], **kwargs)


def torch_name_of(func) -> str:
    return getattr(func, "__name__", "")


def _inside_inference_mode(func, args, kwargs):
    with torch.inference_mode():
        return func(*args, **kwargs)


def _dtype_view_as_normal(func, args, kwargs):
    """``view(dtype)`` made like the other views: of a normal tensor, a normal tensor even in inference mode."""
    if isinstance(args[1] if len(args) > 1 else kwargs.get("dtype"), torch.dtype):
        with torch.inference_mode(False):
            return func(*args, **kwargs)
    return func(*args, **kwargs)


def _dtype_view_copies(func, args, kwargs):
    """``view(dtype)`` that returns a copy: an edit through it no longer reaches its source."""
    result = func(*args, **kwargs)
    return result.clone() if isinstance(args[1] if len(args) > 1 else kwargs.get("dtype"), torch.dtype) else result


def _relu_inplace_unrecorded(func, args, kwargs):
    """``F.relu(t, inplace=True)`` run on ``t.data``: no refusal on a leaf, as if autograd were not told."""
    if kwargs.get("inplace"):
        return func(args[0].data, *args[1:], **kwargs)
    return func(*args, **kwargs)


def _recorded_under_no_grad(func, args, kwargs):
    """Indexing recorded as in grad mode, even under ``torch.no_grad()``."""
    with torch.enable_grad():
        return func(*args, **kwargs)


def _on_the_cpu(func, args, kwargs):
    """``as_tensor`` and ``asarray`` as if no default device were set: on the CPU unless told otherwise."""
    return func(*args, **{"device": "cpu", **kwargs})


def _share_grad(func, args, kwargs):
    result = func(*args, **kwargs)
    result.grad = args[0].grad
    return result


def _drop_grad(func, args, kwargs):
    result = func(*args, **kwargs)
    result.grad = None
    return result


def _data_setter_checks_shape(func, args, kwargs):
    if torch_name_of(func) == "__set__" and tuple(args[1].shape) != tuple(args[0].shape):
        raise RuntimeError("data: shape mismatch")
    return func(*args, **kwargs)


def _copy_takes_source_shape(func, args, kwargs):
    """``a.copy_(src)`` that gives ``a`` the source's shape, as ``a.data = src`` does, instead of broadcasting."""
    with torch.no_grad():
        args[0].data = args[1].detach().to(args[0].dtype).clone()
    return args[0]


def _version_zero(func, args, kwargs):
    return 0


@contextlib.contextmanager
def _parameter_deepcopy_keeps_grad():
    """``Parameter.__deepcopy__`` (plain Python, not seen by a torch function mode) copies ``.grad`` as a
    ``torch.Tensor``'s does."""
    original = torch.nn.Parameter.__deepcopy__

    def keeping_grad(self, memo):
        result = original(self, memo)
        if self.grad is not None:
            result.grad = self.grad.clone()
        return result

    torch.nn.Parameter.__deepcopy__ = keeping_grad
    try:
        yield
    finally:
        torch.nn.Parameter.__deepcopy__ = original


def _counted_step(func, args, kwargs):
    """A fused optimizer step that moves each parameter's version, as the unfused steps do."""
    result = func(*args, **kwargs)
    for param in args[0]:
        param.add_(0)
    return result


def _counted_unscale(func, args, kwargs):
    """GradScaler's unscaling kernel that moves each gradient's version, as an in-place torch operation does."""
    result = func(*args, **kwargs)
    with torch.no_grad():
        for grad in args[0]:
            grad.add_(0)
    return result


def _counted_batch_norm(func, args, kwargs):
    """``F.batch_norm`` that moves the version of the running statistics it updates."""
    result = func(*args, **kwargs)
    with torch.no_grad():
        for stat in args[1:3]:
            stat.add_(0)
    return result


def _separate_unbind(func, args, kwargs):
    """``unbind()`` as one ``select()`` per output, each view on a node of its own."""
    return tuple(args[0].select(0, i) for i in range(args[0].shape[0]))


def _number_as_tensor(func, args, kwargs):
    """A number operand of ``mul`` made a full tensor first, so autograd saves it through the hooks."""
    other = args[1]
    if isinstance(other, (int, float)):
        other = torch.full_like(args[0].detach(), other)
    return func(args[0], other, *args[2:], **kwargs)


@contextlib.contextmanager
def _module_to_overwrites_parameters():
    """``Module.to()`` makes new parameter objects (torch's own switch for it)."""
    before = torch.__future__.get_overwrite_module_params_on_conversion()
    torch.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        yield
    finally:
        torch.__future__.set_overwrite_module_params_on_conversion(before)


@contextlib.contextmanager
def _module_to_swaps_parameters():
    """``Module.to()`` keeps every parameter object and swaps its contents (torch's own switch for it)."""
    before = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        yield
    finally:
        torch.__future__.set_swap_module_params_on_conversion(before)


def _refuse_inference_outside_the_mode(func, args, kwargs):
    """``apply_`` and ``map_`` checked like ``mul_``: an inference tensor outside inference mode is refused."""
    if args[0].is_inference() and not torch.is_inference_mode_enabled():
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.")
    return func(*args, **kwargs)


@contextlib.contextmanager
def _checkpoint_keeps_everything():
    """``torch.utils.checkpoint.checkpoint`` that runs the function once and keeps what it saves."""
    import torch.utils.checkpoint

    original = torch.utils.checkpoint.checkpoint
    torch.utils.checkpoint.checkpoint = lambda function, *args, **kwargs: function(*args)
    try:
        yield
    finally:
        torch.utils.checkpoint.checkpoint = original


def _advanced_index_as_view(func, args, kwargs):
    """Indexing that returns a view on the source's storage, whatever the index (values not kept)."""
    result = call(func, args, kwargs)
    return args[0].reshape(-1)[: result.numel()].view(result.shape)


def _negative_step_reads_reversed(func, args, kwargs):
    """Indexing that reads a slice with a negative step as NumPy does, into a copy, instead of raising."""
    try:
        return call(func, args, kwargs)
    except ValueError:
        return args[0].flip(0)


def _meta_index(args) -> bool:
    """Whether an indexing call's index holds a tensor on ``meta`` and its source is not on ``meta``."""
    index = args[1] if isinstance(args[1], tuple) else (args[1],)
    return not args[0].is_meta and any(isinstance(i, torch.Tensor) and i.is_meta for i in index)


def _meta_index_refused(func, args, kwargs):
    """Indexing that refuses an index on ``meta`` into a tensor on another device, as a sparse tensor's does."""
    if _meta_index(args):
        raise RuntimeError("indices should be either on cpu or on the same device as the indexed tensor (cpu)")
    return call(func, args, kwargs)


def _meta_index_zeroed(func, args, kwargs):
    """Indexing through an index on ``meta`` that returns zeros, as if its result were allocated with ``zeros``."""
    result = call(func, args, kwargs)
    return torch.zeros_like(result) if _meta_index(args) else result


INPLACE = ("add_", "mul_", "sub_", "zero_")
FUSED_STEPS = ("_fused_adagrad_", "_fused_sgd_", "_fused_adam_", "_fused_adamw_")

_FROM_DLPACK = torch.from_dlpack
_AUTOCAST = torch.autocast


def _autocast_takes_float32(device_type, dtype=None, **kwargs):
    """``torch.autocast`` that, given float32, computes in bfloat16 without a warning, as if it took float32."""
    return _AUTOCAST(device_type, dtype=torch.bfloat16 if dtype == torch.float32 else dtype, **kwargs)


def _dlpack_of_a_copy(array, *args, **kwargs):
    """``torch.from_dlpack`` of a contiguous copy: a torch that takes a flipped array without aborting."""
    import numpy as np

    return _FROM_DLPACK(np.ascontiguousarray(array), *args, **kwargs)


_FROM_NUMPY = torch.from_numpy


def _native_copy(array):
    """A contiguous copy of ``array`` in native byte order: what a torch that takes any array would read."""
    import numpy as np

    return np.ascontiguousarray(array.astype(array.dtype.newbyteorder("=")))


def _any_array_taken():
    """``torch.from_numpy`` and ``torch.from_dlpack`` that take an array in the other byte order, or flipped."""
    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch.object(torch, "from_numpy", lambda array: _FROM_NUMPY(_native_copy(array))))
    stack.enter_context(mock.patch.object(
        torch, "from_dlpack", lambda array, *args, **kwargs: _FROM_DLPACK(_native_copy(array), *args, **kwargs)))
    return stack


_REBUILD_NESTED = torch._utils._rebuild_nested_tensor


def _nested_rebuilt_on_a_copy():
    """``copy.copy`` (and pickling) of a nested tensor rebuilt on a copy of its buffer, not as a view of it."""
    return mock.patch.object(torch._utils, "_rebuild_nested_tensor",
                             lambda buffer, *args: _REBUILD_NESTED(buffer.detach().clone(), *args))


def _sparse_mul_into_values(func, args, kwargs):
    """``mul_`` of a sparse tensor written into its values tensor in place, as ``neg_`` is, not into new memory."""
    if args[0].layout == torch.sparse_coo:
        args[0]._values().mul_(*args[1:], **kwargs)
        return args[0]
    return func(*args, **kwargs)


def _asarray_quietly(func, args, kwargs):
    """``asarray`` that gives no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _asarray_of_an_alias(func, args, kwargs):
    """``asarray`` given ``requires_grad`` and no copy as if given ``a.detach()``: a new alias, ``a`` left alone."""
    if "requires_grad" in kwargs and not kwargs.get("copy") and isinstance(args[0], torch.Tensor):
        return func(args[0].detach(), *args[1:], **kwargs)
    return func(*args, **kwargs)


def _batch_norm_in_eval(func, args, kwargs):
    """``batch_norm`` as in eval mode: it normalises with the running statistics and leaves them as they are."""
    if "training" in kwargs:
        return func(*args, **{**kwargs, "training": False})
    return func(*args[:5], False, *args[6:], **kwargs)


def _loader_in_the_parent():
    """A ``DataLoader`` that loads every item in the calling process, as if it had no workers (each item
    still reports worker 0 and 1 in turn, so that only the process ids tell)."""
    loader_init, ids = torch.utils.data.DataLoader.__init__, itertools.count()

    def init(self, *args, **kwargs):
        loader_init(self, *args, **{**kwargs, "num_workers": 0, "multiprocessing_context": None, "timeout": 0})

    def worker_info():
        return mock.Mock(id=next(ids) % 2)

    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch.object(torch.utils.data.DataLoader, "__init__", init))
    stack.enter_context(mock.patch.object(torch.utils.data, "get_worker_info", worker_info))
    return stack


def _sigchld_handler_at_every_worker():
    """A ``DataLoader`` that installs its ``SIGCHLD`` handler whenever it starts workers, not only the first time."""
    from torch.utils.data._utils import signal_handling

    install = signal_handling._set_SIGCHLD_handler

    def install_again() -> None:
        signal_handling._SIGCHLD_handler_set = False
        install()

    return mock.patch.object(signal_handling, "_set_SIGCHLD_handler", install_again)


#: Changes of torch, each a factory of a context manager (a torch function mode, or a patch).
MUTANTS = {
    "detach copies": lambda: Override(detach=lambda f, a, k: call(f, a, k).clone()),
    "in-place edits bypass autograd": lambda: Override(**dict.fromkeys(INPLACE, _bypass_autograd)),
    "in-place edits of inference tensors allowed": lambda: Override(
        **dict.fromkeys(INPLACE, _inside_inference_mode)),
    "deepcopy drops grad": lambda: Override(__deepcopy__=_drop_grad),
    "deepcopy shares grad": lambda: Override(__deepcopy__=_share_grad),
    "deepcopy copies only the view": lambda: Override(__deepcopy__=lambda f, a, k: a[0].clone()),
    "to() always copies": lambda: Override(to=lambda f, a, k: call(f, a, k).clone()),
    "type_as() always copies": lambda: Override(type_as=lambda f, a, k: call(f, a, k).clone()),
    "p.data = t checks the shape": lambda: Override(data=_data_setter_checks_shape),
    "copy_ takes its source's shape": lambda: Override(copy_=_copy_takes_source_shape),
    "every tensor has a version counter": lambda: Override(_version=_version_zero),
    "a Parameter's deepcopy keeps grad": _parameter_deepcopy_keeps_grad,
    "cpu() copies": lambda: Override(cpu=lambda f, a, k: call(f, a, k).clone()),
    "clone() shares memory": lambda: Override(clone=lambda f, a, k: a[0]),
    "clone() returns a detached copy": lambda: Override(clone=lambda f, a, k: call(f, a, k).detach()),
    "double() always copies": lambda: Override(double=lambda f, a, k: call(f, a, k).clone()),
    "fused optimizer steps are counted": lambda: Override(**dict.fromkeys(FUSED_STEPS, _counted_step)),
    "uncounted kernels are counted": lambda: Override(
        _amp_foreach_non_finite_check_and_unscale_=_counted_unscale, batch_norm=_counted_batch_norm),
    "expand() copies": lambda: Override(expand=lambda f, a, k: call(f, a, k).clone()),
    "batch_norm never trains": lambda: Override(batch_norm=_batch_norm_in_eval),
    "anomaly mode records nothing": lambda: mock.patch.object(
        torch.autograd, "detect_anomaly", lambda *a, **k: contextlib.nullcontext()),
    "DataLoader loads in the parent": _loader_in_the_parent,
    "DataLoader workers keep torch's threads": lambda: mock.patch.object(torch, "set_num_threads", lambda n: None),
    "DataLoader installs its SIGCHLD handler at every worker start": _sigchld_handler_at_every_worker,
    "reshape() always copies": lambda: Override(reshape=lambda f, a, k: call(f, a, k).clone()),
    "flatten() always copies": lambda: Override(flatten=lambda f, a, k: call(f, a, k).clone()),
    ".data shares the version counter": lambda: Override(data=lambda f, a, k: a[0].detach()),
    ".data copies": lambda: Override(data=lambda f, a, k: a[0].clone().detach() if len(a) == 1 else call(f, a, k)),
    "unbind() returns separate views": lambda: Override(unbind=_separate_unbind),
    "tensor_split, hsplit and vsplit copy": lambda: Override(**dict.fromkeys(
        ("tensor_split", "hsplit", "vsplit"), lambda f, a, k: tuple(t.clone() for t in call(f, a, k)))),
    "views of a leaf accept fill_": lambda: Override(fill_=_bypass_autograd),
    "a number operand becomes a tensor": lambda: Override(mul=_number_as_tensor),
    "Module.to() makes new parameters": _module_to_overwrites_parameters,
    "Module.to() swaps parameters in place": _module_to_swaps_parameters,
    "a second mapping of a file is a copy": lambda: Override(from_file=lambda f, a, k: call(f, a, k).clone()),
    "from_dlpack copies a flipped array": lambda: mock.patch.object(torch, "from_dlpack", _dlpack_of_a_copy),
    "from_numpy and from_dlpack take any array": _any_array_taken,
    "CPU autocast takes float32": lambda: mock.patch.object(torch, "autocast", _autocast_takes_float32),
    "from_dlpack copies": lambda: mock.patch.object(
        torch, "from_dlpack", lambda *args, **kwargs: _FROM_DLPACK(*args, **kwargs).clone()),
    "apply_ and map_ are counted": lambda: Override(**dict.fromkeys(("apply_", "map_"), _bump_source)),
    "detach_, requires_grad_, share_memory_ and same-shape resizes are counted": lambda: Override(
        **dict.fromkeys(("detach_", "requires_grad_", "share_memory_", "resize_", "resize_as_"), _bump_source)),
    "apply_ and map_ refuse inference tensors": lambda: Override(
        **dict.fromkeys(("apply_", "map_"), _refuse_inference_outside_the_mode)),
    "conj() copies": lambda: Override(conj=lambda f, a, k: call(f, a, k).resolve_conj()),
    "mH, H and adjoint() copy": lambda: Override(
        **dict.fromkeys(("mH", "H", "adjoint"), lambda f, a, k: call(f, a, k).resolve_conj())),
    "indexing copies": lambda: Override(__getitem__=lambda f, a, k: call(f, a, k).clone()),
    "indexing returns views": lambda: Override(__getitem__=_advanced_index_as_view),
    "negative-step slices read reversed": lambda: Override(__getitem__=_negative_step_reads_reversed),
    "a CPU tensor refuses an index on meta": lambda: Override(__getitem__=_meta_index_refused),
    "a read through an index on meta is zeroed": lambda: Override(__getitem__=_meta_index_zeroed),
    "mul() returns a detached result": lambda: Override(mul=lambda f, a, k: call(f, a, k).detach()),
    "add_() writes a copy": lambda: Override(add_=lambda f, a, k: a[0].clone().add_(*a[1:], **k)),
    "a + b edits a": lambda: Override(add=_bump_source),
    "checkpoint keeps every tensor": _checkpoint_keeps_everything,
    "to() returns its input": lambda: Override(to=lambda f, a, k: a[0]),
    "contiguous() always copies": lambda: Override(contiguous=lambda f, a, k: call(f, a, k).clone()),
    "share_memory_() does nothing": lambda: Override(share_memory_=lambda f, a, k: a[0]),
    "linear runs in float32 under autocast": lambda: Override(linear=lambda f, a, k: call(f, a, k).float()),
    "linear returns its input": lambda: Override(linear=lambda f, a, k: a[0]),
    "relu returns a copy": lambda: Override(relu=lambda f, a, k: call(f, a, k).clone()),
    "in-place relu bypasses autograd": lambda: Override(relu=_relu_inplace_unrecorded),
    "view(dtype) gives a normal tensor": lambda: Override(view=_dtype_view_as_normal),
    "view(dtype) copies": lambda: Override(view=_dtype_view_copies),
    "indexing is recorded under no_grad": lambda: Override(__getitem__=_recorded_under_no_grad),
    "as_tensor and asarray ignore the default device": lambda: Override(as_tensor=_on_the_cpu, asarray=_on_the_cpu),
    "asarray gives no warning": lambda: Override(asarray=_asarray_quietly),
    "asarray with requires_grad leaves its input alone": lambda: Override(asarray=_asarray_of_an_alias),
    "matmul broadcasts by views of its operands": lambda: Override(
        matmul=lambda f, a, k: (a[0].unsqueeze(-1) * a[1].unsqueeze(-3)).sum(-2)),
    "index writes refuse inference tensors before writing": lambda: Override(
        __setitem__=_refuse_inference_outside_the_mode),
    "where() multiplies by its mask": lambda: Override(where=lambda f, a, k: a[0] * a[1] + (~a[0]) * a[2]),
    "a nested tensor's copy.copy is rebuilt on a copy": _nested_rebuilt_on_a_copy,
    "copy.copy takes every tensor": lambda: mock.patch.object(torch.Tensor, "__copy__", lambda self: self.detach(),
                                                              create=True),
    "a sparse tensor's mul_ writes into its values": lambda: Override(mul_=_sparse_mul_into_values),
    "unsafe_chunk and unsafe_split return views": lambda: Override(
        unsafe_chunk=lambda f, a, k: a[0].chunk(*a[1:], **k), unsafe_split=lambda f, a, k: a[0].split(*a[1:], **k)),
    "unfold() and as_strided() copy": lambda: Override(
        **dict.fromkeys(("unfold", "as_strided"), lambda f, a, k: call(f, a, k).clone())),
}

#: Fact id -> the change of torch that must make it false (or several changes, each of which must).
FACT_FLIPS = {
    "expand-inplace-write-refused": "expand() copies",
    "multi-view-outputs-share-one-node": ("unbind() returns separate views", "tensor_split, hsplit and vsplit copy"),
    "leaf-source-views-refuse-inplace": "views of a leaf accept fill_",
    "saved-view-edit-error": "unbind() returns separate views",
    "saved-conj-transpose-edit-error": "mH, H and adjoint() copy",
    "wrapped-number-saved-outside-hooks": "a number operand becomes a tensor",
    "cpu-autocast-takes-only-bfloat16-and-float16": "CPU autocast takes float32",
    "module-to-gives-parameter-new-memory": "Module.to() makes new parameters",
    "module-to-meta-gives-new-parameters": "Module.to() swaps parameters in place",
    "version-counter-catches-saved-edit": "in-place edits bypass autograd",
    "detach-numpy-write-silent": "detach copies",
    "detach-write-routes": "detach copies",
    "reshape-view-when-strides-allow": "reshape() always copies",
    "detach-set-keeps-version-counter": "detach copies",
    "detach-resize-grow-reallocates": "detach copies",
    "detach-edits-reach-both": "detach copies",
    "detach-edits-reach-both-every-dtype": "detach copies",
    "detach-metadata-calls-every-dtype": "detach copies",
    "detach-resize-as-conj-neg-warns": "detach copies",
    "detach-sparse-coo-edit-not-shared": "detach copies",
    "detach-resize-grow-on-borrowed-memory": "detach copies",
    "deepcopy-grad-by-source": ("deepcopy drops grad", "deepcopy shares grad"),
    "deepcopy-model-drops-grad": "a Parameter's deepcopy keeps grad",
    "deepcopy-as-trainable-copy": "deepcopy drops grad",
    "detach-edit-before-save": "detach copies",
    "log-values-in-a-loop": "detach copies",
    "trainable-copy-in-a-loop": "clone() shares memory",
    "trainable-copy-in-a-module": "clone() shares memory",
    "saved-tensor-hooks-hide-edit": "detach copies",
    "cpu-snapshot": "cpu() copies",
    "deepcopy-view-copies-storage": "deepcopy copies only the view",
    "deepcopy-refuses-module-keeping-non-leaf": "deepcopy copies only the view",
    "noop-conversions-return-a": ("to() always copies", "type_as() always copies", "cpu() copies",
                                  "contiguous() always copies"),
    "reshape-view-exactly-when-view-runs": "reshape() always copies",
    "flatten-unmerged-returns-itself": "flatten() always copies",
    "output-savers-save-output": "relu returns a copy",
    "relu-inplace-refused-on-table-x": "in-place relu bypasses autograd",
    "data-setter-checks": "p.data = t checks the shape",
    "data-setter-inference-own-counter": ("every tensor has a version counter", "detach copies"),
    "detach-memory-moved-apart": "detach copies",
    "copy-keeps-destination-shape": "copy_ takes its source's shape",
    "index-copy-edit-leaves-x": "indexing returns views",
    "leaf-refuses-inplace": "in-place edits bypass autograd",
    "view-inplace-refused-outside-inference-mode": "in-place edits bypass autograd",
    "leaf-view-has-grad-fn-refuses-inplace": "in-place edits bypass autograd",
    "inference-tensor-has-no-version-counter": ("every tensor has a version counter", "detach copies"),
    "inference-tensor-inplace-outside-raises-yet-writes": "in-place edits of inference tensors allowed",
    "inference-tensor-apply-map-outside-no-error": "apply_ and map_ refuse inference tensors",
    "inference-tensor-uncounted-kernel-writes": ("fused optimizer steps are counted", "uncounted kernels are counted"),
    "inference-tensor-alias-edit-routes": ("in-place edits of inference tensors allowed", "detach copies"),
    "inference-tensor-alias-0d-mask-read-copies": "indexing returns views",
    "inference-tensor-requiring-grad": "clone() shares memory",
    "inference-module-forward-by-layer": "linear returns its input",
    "inference-module-trains-when-rebuilt": "add_() writes a copy",
    "fused-optimizer-step-not-counted": "fused optimizer steps are counted",
    "kernel-writes-not-counted": "uncounted kernels are counted",
    "file-mapped-twice-shares-bytes": "a second mapping of a file is a copy",
    "private-file-mapping-reads-other-writes": "a second mapping of a file is a copy",
    "from-dlpack-aborts-on-flipped-array": "from_dlpack copies a flipped array",
    "apply-map-not-counted": "apply_ and map_ are counted",
    "counter-bypass-edits-silent": ("detach copies", "apply_ and map_ are counted"),
    "underscore-methods-not-counted": "detach_, requires_grad_, share_memory_ and same-shape resizes are counted",
    "same-shape-resize-memory-format-restrides": (
        "detach_, requires_grad_, share_memory_ and same-shape resizes are counted"),
    "double-of-float64-is-a": "double() always copies",
    "ctx-attribute-escapes-version-check": "in-place edits bypass autograd",
    "unread-saved-tensors-escape-version-check": "in-place edits bypass autograd",
    "ctx-attribute-outlives-backward": "mul() returns a detached result",
    "clone-requires-grad-in-grad-mode": "clone() shares memory",
    "inference-leaf-clone-in-graph": "clone() returns a detached copy",
    "copy-in-graph-passes-gradient": ("clone() returns a detached copy", "double() always copies"),
    "inference-mode-grad-on-records-no-node": "clone() shares memory",
    "data-has-own-version-counter": (".data shares the version counter", "detach copies"),
    "data-edits-reach-both": (".data copies", ".data shares the version counter"),
    "data-edits-reach-both-every-dtype": (".data copies", ".data shares the version counter"),
    "version-check-only-in-nodes-run": "in-place edits bypass autograd",
    "leaf-view-inplace-refused-in-grad-mode": ("in-place edits bypass autograd", "view(dtype) copies"),
    "clone-of-no-grad-view-passes-no-gradient": ("indexing is recorded under no_grad", "clone() shares memory"),
    "copy-of-no-grad-view-passes-no-gradient": ("indexing is recorded under no_grad", "double() always copies"),
    "no-grad-view-edit-breaks-clone": ("indexing is recorded under no_grad", "in-place edits bypass autograd",
                                       "fused optimizer steps are counted"),
    "split-output-edit-breaks-clone": ("in-place edits bypass autograd", "unbind() returns separate views"),
    "saved-table-uncounted-edits-silent": ("detach copies", ".data shares the version counter"),
    "grad-off-view-refuses-index-write-in-grad-mode": "indexing is recorded under no_grad",
    "default-device-makes-as-tensor-copy": "as_tensor and asarray ignore the default device",
    "asarray-warns-once-without-requires-grad": "asarray gives no warning",
    "asarray-requires-grad-without-copy": "asarray with requires_grad leaves its input alone",
    "detach-numpy-needs-plain-dense": "detach copies",
    "dense-tensor-reads-storage-by-layout": "conj() copies",
    "conj-bits-only-on-dense-complex": "conj() copies",
    "view-write-shows-in-both": "reshape() always copies",
    "base-names-root-of-view-chain": "indexing copies",
    "inplace-ops-raise-version": "in-place edits bypass autograd",
    "grad-mode-records": ("mul() returns a detached result", "in-place edits bypass autograd"),
    "leaf-grad-accumulates": "mul() returns a detached result",
    "list-repeat-holds-one-tensor": "add_() writes a copy",
    "optimizer-updates-in-place": "add_() writes a copy",
    "checkpoint-reruns-when-backward-needs-it": "checkpoint keeps every tensor",
    "buffer-moves-with-module": "to() returns its input",
    "contiguous-copies-only-when-needed": "contiguous() always copies",
    "advanced-index-read-copies": "indexing returns views",
    "shared-memory-seen-across-processes": "share_memory_() does nothing",
    "autocast-lowers-some-ops": "linear runs in float32 under autocast",
    "rebinding-leaves-old-tensor": "a + b edits a",
    "inference-mode-outputs": ("linear returns its input", "relu returns a copy"),
    "inference-mode-views-of-normal-tensor": ("indexing copies", "view(dtype) gives a normal tensor"),
    "basic-index-read-views": "indexing copies",
    "basic-index-on-meta": "indexing copies",
    "meta-index-read-uninitialized": (
        "a CPU tensor refuses an index on meta", "a read through an index on meta is zeroed", "indexing returns views"),
    "negative-step-slice-raises": "negative-step slices read reversed",
    "numpy-index-read-copies": "indexing returns views",
    "numpy-zero-d-index-reads": "indexing copies",
    "sparse-coo-zero-moves-values": ("detach copies", ".data copies"),
    "index-reads-every-kind": ("indexing copies", "indexing returns views"),
    "advanced-index-on-meta": "indexing returns views",
    "array-calls-refuse-swapped-or-flipped": "from_numpy and from_dlpack take any array",
    "batchnorm-running-statistics": "batch_norm never trains",
    "anomaly-mode-names-forward-call": "anomaly mode records nothing",
    "dataloader-workers-are-processes": "DataLoader loads in the parent",
    "forked-child-needs-one-thread": "DataLoader workers keep torch's threads",
    "dataloader-sigchld-handler-once": "DataLoader installs its SIGCHLD handler at every worker start",
    "share-memory-leaves-early-array": "share_memory_() does nothing",
    "broadcast-matmul-saves-copy": "matmul broadcasts by views of its operands",
    "version-counter-shared-by-views-and-detach": "detach copies",
    "unsafe-split-shares-memory-not-counter": "detach copies",
    "view-dtype-under-inference-mode-uncounted": ("view(dtype) gives a normal tensor", "view(dtype) copies"),
    "cast-of-grad-leaf-is-non-leaf": "to() returns its input",
    "unsafe-pieces-own-counter-every-dtype": ("unsafe_chunk and unsafe_split return views",
                                              "every tensor has a version counter"),
    "unsafe-pieces-in-inference-mode-own-counter": ("unsafe_chunk and unsafe_split return views",
                                                    "every tensor has a version counter"),
    "alias-calls-share-memory": "from_dlpack copies",
    "no-grad-view-operations-pass-no-gradient": "indexing is recorded under no_grad",
    "index-write-raises-before-or-after-writing": "index writes refuse inference tensors before writing",
    "detach-edit-of-saved-output-detected": "detach copies",
    "saved-other-tensors-of-layer-norm-and-where": "where() multiplies by its mask",
    "overlapping-window-views-take-writes": "unfold() and as_strided() copy",
    "overlapping-window-edit-wrong-gradient": "unfold() and as_strided() copy",
    "deepcopy-refuses-some-leaves": "deepcopy copies only the view",
    "dtype-change-by-layout": "to() returns its input",
    "copy-copy-of-strided-nested-shares-counter": "a nested tensor's copy.copy is rebuilt on a copy",
    "copy-copy-raises-on-some-tensors": "copy.copy takes every tensor",
    "copy-copy-sparse-coo-edit-by-operation": "a sparse tensor's mul_ writes into its values",
    "copy-ways-memory-and-graph": ("detach copies", ".data copies", "clone() shares memory",
                                   "clone() returns a detached copy"),
    "copy-ways-every-dtype": ("detach copies", ".data copies", "clone() shares memory",
                              "clone() returns a detached copy"),
    "vmap-innermost-refuses-data": ".data shares the version counter",
    "view-shares-base-storage": "indexing copies",
    "inference-mode-new-memory-is-inference": "clone() shares memory",
    "inference-mode-new-memory-no-counter": "every tensor has a version counter",
    "inplace-ops-write-into-tensor": "add_() writes a copy",
    "vjp-edits-unnoticed": "detach copies",
    "vjp-output-edit-caught-when-differentiated": "detach copies",
}


def test_every_fact_has_a_flip():
    missing = sorted(set(facts.FACTS) - set(FACT_FLIPS))
    assert not missing, f"facts with no change of torch that makes them false (add one to FACT_FLIPS): {missing}"
    stale = sorted(set(FACT_FLIPS) - set(facts.FACTS))
    assert not stale, f"FACT_FLIPS names facts that no longer exist (remove them): {stale}"
    assert set(_changes(*FACT_FLIPS)) <= set(MUTANTS)


def _changes(*fact_ids: str) -> list[str]:
    """The changes of torch listed for ``fact_ids``, each once."""
    found = [FACT_FLIPS[f] for f in fact_ids if f in FACT_FLIPS]
    return list(dict.fromkeys(c for entry in found for c in ((entry,) if isinstance(entry, str) else entry)))


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("fact_id", sorted(facts.FACTS))
def test_each_fact_turns_false_when_torch_changes(fact_id, fact_results):
    if fact_id not in FACT_FLIPS:
        pytest.fail(f"{fact_id}: no entry in FACT_FLIPS")
    assert fact_results[fact_id].holds, "the fact must hold before the change"
    for change in _changes(fact_id):
        with MUTANTS[change](), first_counterexample_only():  # a fact may stop at its first case that differs
            result = facts.run_fact(fact_id)
        assert not result.holds, f"{fact_id} still holds when {change}: {result.trace}"


# --- Conditions: each operand decides --------------------------------------------------------------


def _claim_operands():
    """The operands of every claim that holds on this torch. In a claim that does not hold, one false
    operand of an ``and`` hides the others, so they cannot each decide; its verdict is pinned by the
    reviewed baseline (``tensorfacts/claim_verdicts.json``) instead."""
    holding = {o.claim.id for o in verdicts.run_all() if o.verdict == HOLDS}
    for entry in articles.CLAIMS:
        if entry.id not in holding:
            continue
        for index, text in enumerate(operand_flips.operands(articles.CHECKS[entry.id])):
            yield pytest.param(entry.id, index, id=f"{entry.id}[{index}] {text[:40]}")


def _fact_operands():
    for fact_id, check in sorted(facts.FACTS.items()):
        for index, text in enumerate(operand_flips.operands(check)):
            yield pytest.param(fact_id, index, id=f"{fact_id}[{index}] {text[:40]}")


def _outcome(claim_id):
    entry = next(e for e in articles.CLAIMS if e.id == claim_id)
    return verdicts.run_claim(entry)


@pytest.mark.parametrize("claim_id, index", list(_claim_operands()))
def test_each_operand_of_a_claim_decides_its_verdict(claim_id, index, monkeypatch):
    before = _outcome(claim_id).verdict
    check = articles.CHECKS[claim_id]
    monkeypatch.setitem(articles.CHECKS, claim_id, operand_flips.flipped(check, index))
    after = _outcome(claim_id)
    operand = operand_flips.operands(check)[index]
    assert after.verdict != before, f"{claim_id}: negating `{operand}` leaves the verdict {before}"


#: The costliest inputs of some facts (a fresh Python process, every run of the views taken with grad mode off),
#: which read torch and never the fact's condition: a negated operand cannot change them, so the operand flips of
#: one test process compute each once (a deep copy per call). The flips of torch above never reuse them.
REUSED_BY_OPERAND_FLIPS = (tensors.fresh_python, no_grad_view_facts.no_grad_view_runs)
_REUSED: dict[tuple, object] = {}


def _reuse_costly_inputs(monkeypatch) -> None:
    def reused(function):
        def call_once(*args):
            if (function, args) not in _REUSED:
                _REUSED[function, args] = function(*args)
            return copy.deepcopy(_REUSED[function, args])
        return call_once

    for module in [m for name, m in sys.modules.items() if name.startswith("tensorfacts.")]:
        for name, value in list(vars(module).items()):
            if any(value is function for function in REUSED_BY_OPERAND_FLIPS):
                monkeypatch.setattr(module, name, reused(value))


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("fact_id, index", list(_fact_operands()))
def test_each_operand_of_a_fact_decides_it(fact_id, index, monkeypatch):
    _reuse_costly_inputs(monkeypatch)
    check = facts.FACTS[fact_id]
    monkeypatch.setitem(facts.FACTS, fact_id, operand_flips.flipped(check, index))
    result = facts.run_fact(fact_id)
    assert not result.holds, f"{fact_id}: negating `{operand_flips.operands(check)[index]}` leaves it true"


def test_the_operand_finder_reads_and_or_not_and_assigned_names():
    def check():
        a = torch.ones(1)
        ok = a.sum() == 1 or a.numel() > 3
        return Fact(ok and not a.requires_grad, "")  # noqa: F821 (never run)

    assert operand_flips.operands(check) == ["a.sum() == 1", "a.numel() > 3", "not a.requires_grad"]


# --- Premises: each cell read decides, and no part reads nothing --------------------------------------


class Changed:
    """A cell value no premise expects."""

    def __repr__(self) -> str:
        return "<changed by the test>"


@pytest.fixture(scope="module")
def matrix() -> probes.Matrix:
    return probes.probe_all()


PREMISES = [pytest.param(guide, advice, id=f"{name}:{advice.id}")
            for name, guide in (("decide", decisions.DECISIONS), ("guide", mp.GUIDE)) for advice in guide]


def _reads(advice, matrix, monkeypatch) -> tuple[bool, list, list[str]]:
    empty: list[str] = []
    with monkeypatch.context() as patch:
        for module in (decisions, mp):
            watch_helpers(module, patch, empty)
        recorded = Recorded(matrix)
        holds = advice.premise(recorded)
    return holds, recorded.log, empty


@pytest.mark.parametrize("guide, advice", PREMISES)
def test_no_part_of_a_premise_reads_nothing(guide, advice, matrix, monkeypatch):
    holds, log, empty = _reads(advice, matrix, monkeypatch)
    assert holds, f"{advice.id}: the premise does not hold on this torch"
    assert log, f"{advice.id}: the premise reads no cell of the matrix"
    assert not empty, f"{advice.id}: " + "; ".join(empty)


def _breaks(advice, matrix, cells) -> bool:
    """Whether changing any one of ``cells`` (source, operation, column) makes the premise fail."""
    for source, operation, column in cells:
        row = matrix[source][operation]
        value, row[column] = row[column], Changed()  # in place, put back below: no copy of the matrix per cell
        try:
            if not advice.premise(matrix):
                return True
        except Exception:
            return True
        finally:
            row[column] = value
    return False


@pytest.mark.parametrize("guide, advice", PREMISES)
def test_each_cell_a_premise_reads_decides_it(guide, advice, matrix, monkeypatch):
    """A cell read by its column must decide alone; a row read whole (compared with another row) must
    have some cell that decides."""
    _, log, _ = _reads(advice, matrix, monkeypatch)
    cells = sorted({(s, op, c) for s, op, c in log if c not in (None, ROW)})
    rows = sorted({(s, op) for s, op, c in log if c is None})
    assert cells or rows, f"{advice.id}: reads no cell"
    survivors = [f"{s} / {op} / {c}" for s, op, c in cells if not _breaks(advice, matrix, [(s, op, c)])]
    survivors += [f"{s} / {op} (the whole row)" for s, op in rows
                  if not _breaks(advice, matrix, [(s, op, c) for c in matrix[s][op]])]
    assert not survivors, f"{advice.id}: still holds with one of these changed: {survivors}"


def test_a_premise_over_no_sources_is_found(matrix, monkeypatch):
    """The check above, on a premise whose edit part runs over no sources (it would hold vacuously)."""
    weak = mp.Advice("weak", {}, lambda m: decisions._rows(m, "a.data", shares_storage=True)
                     and decisions._rows(m, "a.data", (), inplace_edit=probes.EDIT_SILENT))
    holds, _, empty = _reads(weak, matrix, monkeypatch)
    assert holds and len(empty) == 1 and "reads nothing" in empty[0], empty


# --- Warnings escaping a check make it fail -------------------------------------------------------


def _warns_then_holds():
    import warnings

    warnings.warn("escaped on purpose", UserWarning, stacklevel=1)
    return facts.Fact(True, "held")


def test_a_fact_that_lets_a_warning_escape_does_not_hold(monkeypatch):
    monkeypatch.setitem(facts.FACTS, "warns", _warns_then_holds)
    result = facts.run_fact("warns")
    assert not result.holds and "escaped on purpose" in result.trace


def test_a_claim_whose_check_lets_a_warning_escape_has_no_verdict(monkeypatch):
    from tensorfacts.model import HOLDS, Result

    entry = articles.CLAIMS[0]

    def check():
        _warns_then_holds()
        return Result(HOLDS, "held")

    monkeypatch.setitem(articles.CHECKS, entry.id, check)
    outcome = verdicts.run_claim(entry)
    assert outcome.verdict is None and "escaped on purpose" in outcome.problem
