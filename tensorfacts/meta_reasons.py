"""Why a scoped fact leaves ``meta`` out, in every edition's language, each with the check of what its words say of
torch (a :class:`~tensorfacts.scope.Reason`): run in every ``meta`` case the fact leaves out, on the case's tensor
and on tensors of dtypes the scoped facts do not run.
"""

from __future__ import annotations

import torch

from tensorfacts.scope import Case, Reason

#: Dtypes beyond the scoped facts' floating ones that the reasons' checks also make on ``meta``.
OTHER_DTYPES: tuple[torch.dtype, ...] = (torch.int64, torch.bool, torch.complex64, torch.float8_e4m3fn)


def _meta_tensors(case: Case) -> list[torch.Tensor]:
    """The case's ``a`` and a new tensor of each of :data:`OTHER_DTYPES`, made on the case's device (``meta``)."""
    _, a = case.build()
    with case.factories():
        return [a, *(torch.empty(3, dtype=dtype) for dtype in OTHER_DTYPES)]


def storages_start_at_zero(case: Case) -> bool:
    """``untyped_storage().data_ptr()`` is 0 for each tensor of :func:`_meta_tensors`, a view of it at an offset
    (``t[1:]``) and its ``detach().clone()``, for a sparse COO tensor's values and for a bare ``UntypedStorage``."""
    with case.factories():
        sparse = torch.sparse_coo_tensor(torch.zeros(1, 2, dtype=torch.long), torch.ones(2), (3,),
                                         check_invariants=False)
        bare = torch.UntypedStorage(8, device=case.device)
    starts = [x.untyped_storage().data_ptr() for t in _meta_tensors(case) for x in (t, t[1:], t.detach().clone())]
    return starts + [sparse._values().untyped_storage().data_ptr(), bare.data_ptr()] == [0] * (len(starts) + 2)


def holds_no_values(case: Case) -> bool:
    """Copying the values of each tensor of :func:`_meta_tensors` out, by ``tolist()`` or ``cpu()``, raises
    NotImplementedError: "Cannot copy out of meta tensor; no data!"."""
    for t in _meta_tensors(case):
        for copy_out in (t.tolist, t.cpu):
            try:
                copy_out()
            except NotImplementedError as e:
                if "no data" not in str(e):
                    return False
            else:
                return False
    return True


#: Why a fact that compares where storages start leaves ``meta`` out.
NEEDS_ADDRESSES = Reason({
    "en": "it compares where storages start, and every storage on meta starts at address 0 "
          "(untyped_storage().data_ptr() is 0)",
    "zh_CN": "它要比较存储的起点，而 meta 设备上的每个存储都从地址 0 开始（untyped_storage().data_ptr() 为 0）",
}, storages_start_at_zero)

#: Why a fact that compares values leaves ``meta`` out.
NEEDS_VALUES = Reason({
    "en": "it compares values, and a meta tensor holds none",
    "zh_CN": "它要比较数值，而 meta 张量不存放数值",
}, holds_no_values)
