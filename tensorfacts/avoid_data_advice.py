"""The text of the matrix guide's entry on `a.data` and `copy.copy(a)` (:mod:`tensorfacts.matrix`, entry
``avoid-data``), in every edition's language. Its premise and the facts it names stay with the entry in
:mod:`tensorfacts.matrix`; the text lives here to keep that module short.
"""

from __future__ import annotations

AVOID_DATA_TEXTS = {
    "en": "Avoid `a.data`: it shares storage but not the version counter, so an in-place edit through it "
        "after autograd saved `a`, with or without `torch.no_grad()`, goes unnoticed and backward can return "
        "a wrong gradient without any error. `copy.copy(a)`, taken with grad mode on, outside "
        "`torch.inference_mode()`, is no better on a `float32` CPU tensor of the default `torch.strided` "
        "layout, such as each source of the tables: it shares storage, not the counter, and an edit of it "
        "under `torch.no_grad()` goes unnoticed in the same way (a nested tensor of that layout aside: its "
        "copy is a view that shares the counter, so backward raises). Other tensors differ, for example: "
        "`copy.copy` raises `NotImplementedError` on an mkldnn tensor and `AttributeError` on a CPU tensor of "
        "some dtypes (`float8_e4m3fn`, `float8_e5m2`, `uint16` and `uint32` among them), and on a sparse COO "
        "tensor whether an edit of the copy under `torch.no_grad()` reaches `a` depends on the operation "
        "(`neg_()` does, `mul_()` does not).",
    "zh_CN": "不要用 `a.data`：它共享存储，却不共享版本计数器。自动求导保存了 `a` 之后，无论是否在 "
        "`torch.no_grad()` 下，通过它做的原地修改都不会被察觉，反向传播不报错，梯度却可能是错的。"
        "在梯度模式下、`torch.inference_mode()` 之外取的 `copy.copy(a)`，对默认 `torch.strided` 布局的 "
        "`float32` CPU 张量（比如表中的每个源张量）也好不到哪里去：它同样共享存储、不共享版本计数器，在 "
        "`torch.no_grad()` 下原地修改它也不会被发现（这种布局的嵌套张量除外：它的副本是共享版本计数器的视图，"
        "反向传播会报错）。别的张量情况不同，例如：`copy.copy` 对 mkldnn 张量抛出 `NotImplementedError`，"
        "对某些 dtype 的 CPU 张量（其中有 `float8_e4m3fn`、`float8_e5m2`、`uint16` 和 `uint32`）抛出 "
        "`AttributeError`；对 COO 稀疏张量，在 `torch.no_grad()` 下原地修改副本会不会落到 `a` 上，取决于所用的"
        "操作（`neg_()` 会，`mul_()` 不会）。",
}
