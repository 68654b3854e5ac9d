"""What happens around every example while the site builds (sphinx-gallery's ``reset_modules`` hook).

Before an example: the same fresh global state for every page (print options, default dtype and
device, grad mode, deterministic flags, anomaly mode, logging), every random generator seeded with a
seed of its own (:func:`fresh_seed`), every warning raised as an error, any ``logging`` record of level
WARNING or above raised as an error, and a time limit.

While it runs, the lines of the script that execute are recorded (:mod:`sitetools.guard.check_runs`), and
so is the text its own ``print()`` calls write to its output (:class:`sitetools.guard.output_channels.PagePrints`,
which wraps ``builtins.print`` while the script runs).

After it: the time limit is lifted, the state is compared with the fresh state, settings by value and
the attributes, modules, loggers, threads, signal handlers and streams of
:mod:`sitetools.guard.state` by identity; then put back. A script that left any of it changed is
named as the culprit (the next page would otherwise fail, or silently print something else). A check
of the script that did not run and hold at least once is refused, with its line. Then a completion
record is written, with the text its prints wrote (``printed``): the build checks that every script has one,
so an ``exit()`` or ``os._exit()`` in a cell, which ends the example without an error, cannot pass, and
that its page shows exactly what its prints wrote (:func:`sitetools.guard.output_channels.unprinted`).

The build passes the record folder and the time limit in environment variables; when they are not
set (sphinx-build run by hand) no record is written and the default limit applies.
"""

from __future__ import annotations

import gc
import json
import logging
import random
import signal
import sys
import warnings
from pathlib import Path

from sitetools import settings
from sitetools.guard import check_runs, output_channels
from sitetools.guard import state as state_fingerprint
from sitetools.releases.rerun_cell import is_gpu_block


class ExampleTimeout(Exception):
    """An example ran longer than its time limit."""


class ExampleLoggedWarning(Exception):
    """An example logged a record of level WARNING or above."""


class ExampleLeftStateChanged(Exception):
    """An example changed global state and did not restore it."""


class ExampleCheckDidNotRun(Exception):
    """A check of an example did not run and hold at least once."""


class _RaiseOnWarning(logging.Handler):
    def __init__(self, script: str):
        super().__init__(level=logging.WARNING)
        self.script = script

    def emit(self, record: logging.LogRecord) -> None:
        raise ExampleLoggedWarning(
            f"{self.script} logged {record.levelname} from logger {record.name!r}: {record.getMessage()}"
        )


def global_state() -> dict[str, object]:
    """The global settings an example can change and the next example would inherit."""
    import numpy
    import torch
    from torch._tensor_str import PRINT_OPTS

    root = logging.getLogger()
    return {
        "torch default dtype": torch.get_default_dtype(),
        "torch default device": str(torch.get_default_device()),
        "torch grad mode": torch.is_grad_enabled(),
        "torch inference mode": torch.is_inference_mode_enabled(),
        "torch anomaly mode": torch.is_anomaly_enabled(),
        "torch deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
        "torch print options": dict(vars(PRINT_OPTS)),
        "numpy print options": numpy.get_printoptions(),
        "logging root level": root.level,
        "logging root handlers": len(root.handlers),
        "logging disabled": logging.root.manager.disable,
        **state_fingerprint.settings(),
    }


def fresh_seed() -> int:
    """A seed drawn anew for each run of each example, as a reader's fresh interpreter draws one.

    A page whose output depends on random numbers must seed them in its own code, where a reader
    sees it. If it does not, its editions run under different seeds and print different output,
    and the build refuses the page (:func:`sitetools.building.pipeline.verify_examples`)."""
    return random.SystemRandom().randrange(1, 2**32)  # NumPy takes seeds below 2**32


def reset_state(seed: int = 0) -> None:
    """Put every setting of :func:`global_state` back to the fresh state, and seed every generator
    with ``seed``."""
    import numpy
    import torch

    torch.set_default_dtype(torch.float32)
    torch.set_default_device(None)
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
    if torch.are_deterministic_algorithms_enabled():  # the setter imports torch's compiler stack: 1.5 s
        torch.use_deterministic_algorithms(False)
    torch.set_printoptions(profile="default")
    numpy.set_printoptions(edgeitems=3, infstr="inf", linewidth=75, nanstr="nan", precision=8,
                           suppress=False, threshold=1000, formatter=None, sign="-", floatmode="maxprec",
                           legacy=False, override_repr=None)  # fmt: skip
    logging.disable(logging.NOTSET)
    _BASE.setdefault("threads", torch.get_num_threads())
    if torch.get_num_threads() != _BASE["threads"]:
        torch.set_num_threads(_BASE["threads"])
    torch.manual_seed(seed)
    random.seed(seed)
    numpy.random.seed(seed)


#: The thread count the first example started with: every later example starts with it too.
_BASE: dict[str, int] = {}
#: What torch imports on first use, imported before the first example is fingerprinted: an optimizer's
#: first step imports its compiler stack, which wraps ``torch.manual_seed``, configures loggers of its
#: own and sets ``TORCHINDUCTOR_CACHE_DIR``. Imported during an example, those would count as its changes.
WARM_UP = ("torch._dynamo",)
#: Whether :func:`_warm_up` compiled once in this process. The first call of a ``torch.compile``d
#: module patches ``torch.nn.Module.__init__`` and ``__setstate__`` (Dynamo's generation tagging) and
#: imports modules that configure loggers of their own; its backward imports more. One small compile,
#: forward and backward, on the backend the pages use (``aot_eager``, no C++ compiler), makes them part
#: of the fresh state; ``torch.compiler.reset()`` then drops what it cached.
_COMPILED: list[bool] = []


def _warm_up() -> None:
    import importlib

    for name in WARM_UP:
        if name not in sys.modules:
            importlib.import_module(name)
    if not _COMPILED:
        import torch

        torch.compile(torch.nn.Linear(1, 1), backend="aot_eager")(torch.ones(1, 1)).sum().backward()
        torch.compiler.reset()
        _COMPILED.append(True)


class _Guard:
    """The state kept between the "before" and "after" calls of one example."""

    def __init__(self) -> None:
        self.warnings: warnings.catch_warnings | None = None
        self.handler: logging.Handler | None = None
        self.fresh: dict[str, object] = {}
        self.previous_alarm = None
        self.identities: dict[str, object] = {}
        self.runs: check_runs.CheckRuns | None = None
        self.source: str | None = None
        self.prints: output_channels.PagePrints | None = None

    def start(self, script: str, source: Path | None = None) -> None:
        _warm_up()
        reset_state(fresh_seed())
        self.fresh = global_state()
        self.identities = state_fingerprint.fingerprint()
        self.warnings = warnings.catch_warnings()
        self.warnings.__enter__()
        warnings.simplefilter("error")
        self.handler = _RaiseOnWarning(script)
        logging.getLogger().addHandler(self.handler)
        limit = settings.current().example_timeout

        def _timeout(signum, frame):
            raise ExampleTimeout(f"{script} ran longer than its time limit of {limit:g} s ({settings.TIMEOUT})")

        self.previous_alarm = signal.signal(signal.SIGALRM, _timeout)
        signal.setitimer(signal.ITIMER_REAL, limit)
        self.source, self.runs, self.prints = None, None, None
        if source is not None:
            self.source = source.read_text(encoding="utf-8")  # as it ran, whatever the script does to the file
            self.runs = check_runs.CheckRuns(source, self.source)
            self.prints = output_channels.PagePrints(source)
            self.runs.start()
            self.prints.start()  # last: nothing between it and the page can fail and leave print wrapped
        # What exists before the page (Sphinx, torch and its compiler stack) is left out of the page's own
        # gc.collect() calls, which then scan only what the page made: questions/plot_10_graph_kept_alive
        # collects before each weak reference it reads, and a full collection of the build's heap takes
        # about 0.3 s. Nothing the page made is kept: its cycles are collected as without the freeze.
        gc.freeze()

    def stop(self, script: str) -> None:
        gc.unfreeze()
        printed = self.prints.stop() if self.prints is not None else None  # print is put back first
        intact = self.runs.stop() if self.runs is not None else True
        _record_gpu_blocks(script, self.source, self.runs)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.previous_alarm is not None:
            signal.signal(signal.SIGALRM, self.previous_alarm)
        if self.handler is not None:
            logging.getLogger().removeHandler(self.handler)
        if self.warnings is not None:
            self.warnings.__exit__(None, None, None)
        left = state_fingerprint.modes()  # first: a mode left entered would intercept the calls below
        state_fingerprint.restore_modes(self.fresh)
        state_fingerprint.settle_threads(self.identities)
        now, identities = {**global_state(), **left}, state_fingerprint.fingerprint()
        state_fingerprint.restore(self.identities)
        state_fingerprint.restore_settings(self.fresh)
        reset_state()
        changed = [f"{key} is now {_short(value)}, was {_short(self.fresh.get(key))}"
                   for key, value in now.items() if self.fresh.get(key) != value]
        changed += state_fingerprint.differences(self.identities, identities)
        if changed:
            detail = "; ".join(changed)
            raise ExampleLeftStateChanged(
                f"{script} left global state changed, so the pages after it would run in another state: "
                f"{detail}. Restore it in the script (for example with a context manager)."
            )
        self._check_runs(script, intact)
        records = settings.current().records
        if records:
            records.mkdir(parents=True, exist_ok=True)
            record = {"script": script, "printed": printed}  # compared with the page's output blocks after Sphinx
            (records / f"{Path(script).name}.done").write_text(json.dumps(record), encoding="utf-8")

    def _check_runs(self, script: str, intact: bool) -> None:
        """Refuse the example if a check it reports did not run and hold (:mod:`sitetools.guard.check_runs`)."""
        if self.runs is None or self.source is None:
            if settings.current().records:  # in a build: a script whose checks were not recorded fails
                raise ExampleCheckDidNotRun(f"{script}: its source was not found, so its checks were not recorded")
            return
        missing = check_runs.unheld(self.source, self.runs)
        if missing:
            lines = "; ".join(f"line {line}: {text}" for line, text in missing)
            cause = "" if intact else " (the script replaced the line tracer that records them)"
            raise ExampleCheckDidNotRun(
                f"{script}: checks that never ran and held{cause}: {lines}. A check the page reports must run "
                "on every build (no `if False:`, no function left uncalled, no `except AssertionError`)."
            )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


#: For each example run in this process (``questions/plot_13_module_to``): whether each of its GPU blocks
#: (``if torch.cuda.is_available():``), in page order, ran to its last line. The GPU box's title
#: (``tensorcopy_sphinx.gpu_box``) is made from this record, kept by the build, not from what a page prints.
_GPU_BLOCKS: dict[str, list[bool]] = {}


def page_name(script: str) -> str:
    """``gallery/en/questions/plot_13_module_to.py`` -> ``questions/plot_13_module_to``."""
    parts = script.removesuffix(".py").split("/")
    return "/".join(parts[2:]) if parts[:1] == ["gallery"] and len(parts) > 2 else "/".join(parts)


def _record_gpu_blocks(script: str, source: str | None, runs: check_runs.CheckRuns | None) -> None:
    if source is None or runs is None:
        _GPU_BLOCKS.pop(page_name(script), None)
        return
    blocks = [node for node in check_runs.parsed(source).body if is_gpu_block(node)]
    _GPU_BLOCKS[page_name(script)] = [runs.ran[node.body[-1].lineno] > 0 for node in blocks]


def gpu_blocks_ran(name: str) -> list[bool]:
    """Whether each GPU block of example ``name`` ran to its last line in this build (empty when the page
    has none, or did not run in this process)."""
    return list(_GPU_BLOCKS.get(name, []))


_GUARD = _Guard()


def _locate(gallery_conf: dict, fname: str) -> tuple[str, Path | None]:
    """``plot_x.py`` -> ``gallery/<lang>/<part>/plot_x.py``, the source a reader of the log can open,
    and the file that runs."""
    for folder in map(Path, gallery_conf.get("examples_dirs") or []):
        for path in sorted(folder.rglob(fname)):
            return f"{folder.parent.name}/{folder.name}/{path.relative_to(folder).as_posix()}", path
    return fname, None


def reset_torch(gallery_conf: dict, fname: str | None, when: str) -> None:
    """The sphinx-gallery hook (``reset_modules``, order "both"): guard one example's run."""
    script, source = _locate(gallery_conf, fname) if fname else ("<unknown example>", None)
    if when == "before":
        _GUARD.start(script, source)
    else:
        _GUARD.stop(script)
