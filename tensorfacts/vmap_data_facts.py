"""Named fact behind the quick reference and the ``.data`` part's introduction: where ``torch.func.vmap`` is the
innermost transform, ``.data`` of a batched tensor raises while ``detach()`` runs, for every composition tried, every
dtype torch has and each device. Registered on import by :mod:`tensorfacts.facts`, whose module docstring says what a
fact is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch
from torch.func import functionalize, grad, jacfwd, jacrev, jvp, vjp, vmap

from tensorfacts.autocast_facts import every_dtype
from tensorfacts.copy_ways_dtype_facts import QUANTIZED
from tensorfacts.fact_registry import Fact, fact
from tensorfacts.scope import DEVICES

Run = Callable[[Callable, torch.Tensor], object]

#: Where ``vmap`` is the innermost transform around ``f`` and takes any dtype: each with what it gives when ``f``
#: returns twice what it reads, detached, of a float batch ``x`` of shape 2×3.
VMAP_ONLY: dict[str, tuple[Run, Callable[[torch.Tensor], object]]] = {
    "vmap(f)": (lambda f, x: vmap(f)(x), lambda x: x * 2),
    "torch.vmap(f)": (lambda f, x: torch.vmap(f)(x), lambda x: x * 2),
    "vmap(f, chunk_size=1)": (lambda f, x: vmap(f, chunk_size=1)(x), lambda x: x * 2),
    "vmap(f, in_dims=1)": (lambda f, x: vmap(f, in_dims=1)(x), lambda x: x.T * 2),
    "vmap(f, randomness='different')": (lambda f, x: vmap(f, randomness="different")(x), lambda x: x * 2),
    "vmap(vmap(f))": (lambda f, x: vmap(vmap(f))(x.reshape(2, 1, 3)), lambda x: (x * 2).reshape(2, 1, 3)),
    "functionalize(vmap(f))": (lambda f, x: functionalize(vmap(f))(x), lambda x: x * 2),
    "vmap(f) under torch.no_grad()": (lambda f, x: torch.no_grad()(vmap(f))(x), lambda x: x * 2),
    "vmap(f) inside torch.inference_mode()": (lambda f, x: torch.inference_mode()(vmap(f))(x), lambda x: x * 2),
}
#: Where ``vmap`` is the innermost transform inside one that differentiates: the same, and no gradient flows back
#: through the detached value (a zero gradient, tangent or Jacobian).
DIFFERENTIATING: dict[str, tuple[Run, Callable[[torch.Tensor], object]]] = {
    "grad(vmap(f))": (lambda f, x: grad(lambda w: vmap(f)(w).sum())(x), torch.zeros_like),
    "jvp(vmap(f))": (lambda f, x: jvp(vmap(f), (x,), (torch.ones_like(x),)),
                     lambda x: (x * 2, torch.zeros_like(x))),
    "vjp(vmap(f))": (lambda f, x: vjp(vmap(f), x)[1](torch.ones_like(x)), lambda x: (torch.zeros_like(x),)),
    "jacrev(vmap(f))": (lambda f, x: jacrev(vmap(f))(x), lambda x: torch.zeros(2, 3, 2, 3, dtype=x.dtype)),
    "jacfwd(vmap(f))": (lambda f, x: jacfwd(vmap(f))(x), lambda x: torch.zeros(2, 3, 2, 3, dtype=x.dtype)),
}
VMAP_INNERMOST = {**VMAP_ONLY, **DIFFERENTIATING}
DATA_UNDER_VMAP = "accessing `data` under vmap transform is not allowed"
#: The message as the facts page quotes it: its backquotes escaped, so that the page shows them, not a code span.
QUOTED_DATA_UNDER_VMAP = DATA_UNDER_VMAP.replace("`", "\\`")
#: What ``f`` reads: what it receives, and a tensor computed from it (of any dtype, as ``*`` is not).
READS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"x": lambda r: r, "x.reshape(-1)": lambda r: r.reshape(-1)}


def _outcome(run: Callable[[], object]) -> str:
    """``"ran"``, or the error's type and message."""
    try:
        run()
    except Exception as e:  # noqa: BLE001 -- which error, if any, is what is observed
        return f"{type(e).__name__}: {e}"
    return "ran"


def _batch(dtype: torch.dtype, device: str) -> torch.Tensor:
    """A 2×3 batch of ``dtype`` on ``device``: zeros, or of a quantized dtype a torch.quantize_per_tensor one."""
    if dtype in QUANTIZED:
        return torch.quantize_per_tensor(torch.zeros(2, 3, device=device), 0.5, 0, dtype)
    return torch.zeros(2, 3, dtype=dtype, device=device)


def every_batch() -> dict[str, tuple[str, str]]:
    """Of each dtype and device, in each composition, ``f`` reading ``.data`` and ``.detach()`` of each of
    :data:`READS`, where ``f`` returning what it reads runs: (the outcome with ``.data``, with ``.detach()``)."""
    seen = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # deprecated quantized dtypes
        # forward AD's first use imports torch's decompositions, which call the deprecated torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        for dtype in every_dtype():
            for device in DEVICES:
                x = _batch(dtype, device)
                for name, (run, _) in VMAP_INNERMOST.items():
                    for read, of in READS.items():
                        if _outcome(lambda run=run, of=of, x=x: run(of, x)) != "ran":
                            continue  # the composition refuses this batch before f reads anything
                        seen[f"{name} | {read} | {dtype} | {device}"] = (
                            _outcome(lambda run=run, of=of, x=x: run(lambda r: of(r).data, x)),
                            _outcome(lambda run=run, of=of, x=x: run(lambda r: of(r).detach(), x)))
    return seen


def _same(got: object, want: object) -> bool:
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(map(_same, got, want))
    return isinstance(got, torch.Tensor) and torch.equal(got, want)


@fact("vmap-innermost-refuses-data", {
    "en": "Where vmap is the innermost transform: vmap(f), torch.vmap(f), vmap(f, chunk_size=1), vmap(f, in_dims=1), "
          "vmap(f, randomness='different'), vmap(vmap(f)), functionalize(vmap(f)), vmap(f) under torch.no_grad() and "
          "inside torch.inference_mode(), grad(vmap(f)), jvp(vmap(f)), vjp(vmap(f)), jacrev(vmap(f)) and "
          "jacfwd(vmap(f)). Of a 2×3 batch of each dtype in torch's namespace (zeros; of a quantized dtype a "
          "torch.quantize_per_tensor tensor) on each device (CPU, meta), in each composition that runs when f "
          "returns x or x.reshape(-1) of the x it receives: f reading .data of it raises RuntimeError \""
          + QUOTED_DATA_UNDER_VMAP + "\", and f reading .detach() of it runs. On a float32, float64 "
          "and bfloat16 batch torch.arange(6.).reshape(2, 3) on the CPU, f returning x.detach() * 2 or "
          "(x * 1).detach() * 2 gives twice the values (transposed with in_dims=1; vmap(vmap(f)), run on the batch "
          "reshaped to 2×1×3, returns them in that shape), and no gradient flows back through the detached value: "
          "grad, vjp and the Jacobians give zeros, jvp a zero tangent. In vmap(grad(f)) and vmap(jacrev(f)), where "
          "grad or jacrev is innermost, x.data in f runs and gives each row's values (the gradient of "
          "(x.data * x).sum(), the diagonal Jacobian of x.data * x).",
    "zh_CN": "vmap 是最内层的变换时：vmap(f)、torch.vmap(f)、vmap(f, chunk_size=1)、vmap(f, in_dims=1)、"
             "vmap(f, randomness='different')、vmap(vmap(f))、functionalize(vmap(f))、在 torch.no_grad() 下和 "
             "torch.inference_mode() 里的 vmap(f)、grad(vmap(f))、jvp(vmap(f))、vjp(vmap(f))、jacrev(vmap(f)) 和 "
             "jacfwd(vmap(f))。取 torch 命名空间中每种 dtype 的 2×3 批量张量（全为 0；量化 dtype 的用 "
             "torch.quantize_per_tensor 得到），放在每种设备上（CPU、meta），在 f 返回所收到的 x 或 x.reshape(-1) "
             "时能运行的每种组合里：f 读取它们的 .data 抛出 RuntimeError“" + QUOTED_DATA_UNDER_VMAP
             + "”，读取它们的 .detach() 则能运行。对 CPU 上 float32、float64 和 bfloat16 的批量张量 "
             "torch.arange(6.).reshape(2, 3)，f 返回 x.detach() * 2 或 (x * 1).detach() * 2 时得到数值的 2 倍"
             "（in_dims=1 时是转置后的值；vmap(vmap(f)) 作用在变形为 2×1×3 的批量张量上，返回的也是这个形状），"
             "梯度也不会经由 detach 后的值传回："
             "grad、vjp 和雅可比矩阵都得到 0，jvp 得到零切向量。在 vmap(grad(f)) 和 vmap(jacrev(f)) 中，grad 或 "
             "jacrev 在最内层，f 中的 x.data 可以运行，得到每行的数值（(x.data * x).sum() 的梯度，x.data * x 的"
             "对角雅可比矩阵）。",
}, {"en": "14 compositions, every dtype of torch, on the CPU and meta; the values on float32, float64 and bfloat16 "
          "batches on the CPU",
    "zh_CN": "14 种组合，torch 的每种 dtype，在 CPU 和 meta 上；数值在 CPU 上 float32、float64 和 bfloat16 的批量张量上"
             "检验"})
def _vmap_innermost_refuses_data() -> Fact:
    swept = every_batch()
    wrong = {key: got for key, got in swept.items() if not (got[0] == f"RuntimeError: {DATA_UNDER_VMAP}"
                                                          and got[1] == "ran")}
    parts = [key.split(" | ") for key in swept]
    every = ({name for name, *_ in parts} == set(VMAP_INNERMOST)
             and len({(dtype, device) for *_, dtype, device in parts}) == len(every_dtype()) * len(DEVICES))
    values, inner = {}, []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)  # as above
        for dtype in (torch.float32, torch.float64, torch.bfloat16):
            x = torch.arange(6.0, dtype=dtype).reshape(2, 3)
            for read, of in {"x": lambda r: r, "x * 1": lambda r: r * 1}.items():
                values.update({f"{name} {read} {dtype}": _same(run(lambda r, of=of: of(r).detach() * 2, x), want(x))
                               for name, (run, want) in VMAP_INNERMOST.items()})
            inner.append(torch.equal(vmap(grad(lambda r: (r.data * r).sum()))(x), x)
                         and torch.equal(vmap(jacrev(lambda r: r.data * r))(x), torch.diag_embed(x)))
    return Fact(not wrong and every and all(values.values()) and all(inner),
                f"{len(swept)} runs; every composition, dtype and device among them: {every}; .data not refused or "
                f"detach() failing: {wrong or 'none'}; detach() gives twice the values, no gradient: "
                f"{[k for k, v in values.items() if not v] or 'all'}; .data in vmap(grad(f)) and vmap(jacrev(f)): "
                f"{inner}")
