"""The glossary's definitions of basic and advanced indexing (``TERMS`` in :mod:`sitetools.rules.terms`), kept apart
for their length. The named facts behind them are listed under both terms in ``CHECKED_BY``
(:mod:`sitetools.rules.term_facts`).
"""

from __future__ import annotations

BASIC_INDEXING_EN = (
    "Indexing with integers (a 0-d `int8`, `int16`, `int32`, `int64`, `uint16`, `uint32` or `uint64` "
    "tensor too), slices with a positive step, `None` and `...`; reading a strided tensor that is not "
    "nested this way returns a view on its storage, a quantized one too (for `quint4x2` and `quint2x4` "
    "this says only that the view shares the storage, not that it reads the elements indexed; of a "
    "nested one, of either "
    "layout, `x[1]` is a view while `x[0:1]` and `x[None]` raise, and so does `x[...]` of a jagged one; "
    "of a sparse COO tensor `s`, `s[0]` is a copy, though its `_base` is `s`). A slice with a negative "
    "step (`x[::-1]`) raises a `ValueError`; `x.flip(0)` reverses into a copy. On a non-nested strided "
    "CPU tensor, `True`, `False`, and 0-d tensors and 0-d NumPy arrays of dtype `uint8` or `bool` are "
    "masks (a copy; the read raises for `float4_e2m1fn_x2`, the integers of 1 to 7 bits, the `bits` "
    "dtypes and a tensor quantized per channel); NumPy integer scalars (`np.uint8(1)`) are integers; "
    "`np.bool_` raises `IndexError`. Reading with such a 0-d index tensor on the `meta` device raises."
)
BASIC_INDEXING_ZH = (
    "用整数（包括 dtype 为 `int8`、`int16`、`int32`、`int64`、`uint16`、`uint32` 或 `uint64` 的零维张量"
    "）、步长为正的切片、`None` 和 `...` 做索引；对布局为 strided 且非嵌套的张量（量化张量也一样）这样"
    "读取，得到的是视图，与被索引的张量共享存储（对 `quint4x2` 和 `quint2x4`，这里只说视图与它共享存储，"
    "不保证视图读到的是索引的那些元素；对嵌套张量，不论哪种布局，`x[1]` 是视图，`x[0:1]` 和 "
    "`x[None]` 则报错，jagged 布局的 `x[...]` 也报错；对稀疏 COO 张量 `s`，`s[0]` 的 `_base` 虽然是 `s`"
    "，却是副本）。步长为负的切片（比如 `x[::-1]`）会抛出 `ValueError`；`x.flip(0)` 做反转，得到的是副"
    "本。对非嵌套的 strided CPU 张量，`True`、`False` 以及 dtype 为 `uint8` 或 `bool` 的零维张量和零维 "
    "NumPy 数组都是掩码（得到副本；对 `float4_e2m1fn_x2`、1 到 7 位的整数 dtype、`bits` 系列 dtype 和按"
    "通道量化的张量，这样读取会报错），NumPy 整数标量（如 `np.uint8(1)`）是整数，`np.bool_` 则抛出 "
    "`IndexError`。用 `meta` 设备上的这类零维索引张量读取都会报错。"
)
ADVANCED_INDEXING_EN = (
    "Indexing with a list of Python integers, with an int64 or int32 tensor or a NumPy integer array, either of one "
    "dimension or more (a uint8 array or tensor is read as a mask, with a deprecation warning), or with a mask (a bool "
    "tensor or bool NumPy array). Reading this way a strided CPU tensor `x` that is not nested, with any index tensor "
    "on the CPU too, returns a copy; the read raises for `float4_e2m1fn_x2`, the integers of 1 to 7 bits, the `bits` "
    "dtypes and an `x` quantized per channel, and for `quint4x2` and `quint2x4` a read that also takes an integer or "
    "a slice can raise (a mask beside a slice does). Of an "
    "`x` on the `meta` device, which holds no values, the integer forms and a bool mask on the CPU read into a new "
    "`meta` tensor unless `x` is quantized (then they raise), while a bool mask on `meta`, a bool NumPy array and a "
    "uint8 mask raise. A mask on `meta` makes the read of a CPU `x` raise too, and `x[idx]` of a dense CPU `x` of one "
    "of the 17 dtypes its fact lists (floating, complex, integer and bool ones, none quantized) with an int64 or int32 "
    "index tensor `idx` on `meta` returns uninitialized values, none of them read from `x`."
)
ADVANCED_INDEXING_ZH = (
    "用由 Python 整数组成的列表、一维及以上的 int64 或 int32 张量或 NumPy 整数数组（uint8 的数组或张量被当作掩码，"
    "并发出弃用警告），或掩码（bool 张量或 dtype 为 bool 的 NumPy 数组）做索引。对非嵌套、布局为 strided 的 CPU "
    "张量 `x` 这样读取，如果索引张量也在 CPU 上，得到的是副本，不是视图；对 `float4_e2m1fn_x2`、1 到 7 位的整数 "
    "dtype、`bits` 系列 dtype 和按通道量化的 `x`，这样读取会报错，对 `quint4x2` 和 `quint2x4`，同时用到整数或切片的读取"
    "可能报错（掩码与切片并用时就报错）。对 `meta` 设备上的 `x`（它不存数值），各种整数形式和 CPU 上的 "
    "bool 掩码读出的是新的 `meta` 张量（`x` 是量化张量时则报错），`meta` "
    "上的 bool 掩码、bool NumPy 数组和 uint8 掩码则报错。`meta` 上的掩码读取 CPU 上的 `x` 也报错；对稠密的 CPU "
    "张量 `x`（dtype 为其事实所列 17 种之一：浮点、复数、整数和 bool，都不是量化 dtype）和 `meta` 上的 int64 或 "
    "int32 索引张量 `idx`，`x[idx]` 返回的是未初始化的数值，没有一个是从 `x` 读来的。"
)
