"""What happens around every example while the site builds (sphinx-gallery's ``reset_modules`` hook).

Before an example: the same fresh global state for every page (print options, default dtype and
device, grad mode, deterministic flags, anomaly mode, logging), every random generator seeded with a
seed of its own (:func:`fresh_seed`), every warning raised as an error, any ``logging`` record of level
WARNING or above raised as an error, and a time limit.

After it: the time limit is lifted, the state is compared with the fresh state; a script that left
any of it changed is named as the culprit (the next page would otherwise fail, or silently print
something else). Then a completion record is written: the build checks that every script has one,
so an ``exit()`` or ``os._exit()`` in a cell, which ends the example without an error, cannot pass.

The build passes the record folder and the time limit in environment variables; when they are not
set (sphinx-build run by hand) no record is written and the default limit applies.
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import warnings
from pathlib import Path

RECORDS_ENV = "TENSORCOPY_RUN_RECORDS"
TIMEOUT_ENV = "TENSORCOPY_EXAMPLE_TIMEOUT"
DEFAULT_TIMEOUT = 180.0  # seconds; the slowest example takes well under one


class ExampleTimeout(Exception):
    """An example ran longer than its time limit."""


class ExampleLoggedWarning(Exception):
    """An example logged a record of level WARNING or above."""


class ExampleLeftStateChanged(Exception):
    """An example changed global state and did not restore it."""


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
    }


def fresh_seed() -> int:
    """A seed drawn anew for each run of each example, as a reader's fresh interpreter draws one.

    A page whose output depends on random numbers must seed them in its own code, where a reader
    sees it. If it does not, its editions run under different seeds and print different output,
    and the build refuses the page (:func:`sitetools.build.verify_examples`)."""
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
    torch.manual_seed(seed)
    random.seed(seed)
    numpy.random.seed(seed)


class _Guard:
    """The state kept between the "before" and "after" calls of one example."""

    def __init__(self) -> None:
        self.warnings: warnings.catch_warnings | None = None
        self.handler: logging.Handler | None = None
        self.fresh: dict[str, object] = {}
        self.previous_alarm = None

    def start(self, script: str) -> None:
        reset_state(fresh_seed())
        self.fresh = global_state()
        self.warnings = warnings.catch_warnings()
        self.warnings.__enter__()
        warnings.simplefilter("error")
        self.handler = _RaiseOnWarning(script)
        logging.getLogger().addHandler(self.handler)
        limit = float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT)

        def _timeout(signum, frame):
            raise ExampleTimeout(f"{script} ran longer than its time limit of {limit:g} s ({TIMEOUT_ENV})")

        self.previous_alarm = signal.signal(signal.SIGALRM, _timeout)
        signal.setitimer(signal.ITIMER_REAL, limit)

    def stop(self, script: str) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.previous_alarm is not None:
            signal.signal(signal.SIGALRM, self.previous_alarm)
        if self.handler is not None:
            logging.getLogger().removeHandler(self.handler)
        if self.warnings is not None:
            self.warnings.__exit__(None, None, None)
        changed = {key: value for key, value in global_state().items() if self.fresh.get(key) != value}
        reset_state()
        if changed:
            detail = "; ".join(f"{key} is now {value!r}, was {self.fresh.get(key)!r}" for key, value in changed.items())
            raise ExampleLeftStateChanged(
                f"{script} left global state changed, so the pages after it would run in another state: "
                f"{detail}. Restore it in the script (for example with a context manager)."
            )
        records = os.environ.get(RECORDS_ENV)
        if records:
            Path(records).mkdir(parents=True, exist_ok=True)
            (Path(records) / f"{Path(script).name}.done").write_text(json.dumps({"script": script}), encoding="utf-8")


_GUARD = _Guard()


def _locate(gallery_conf: dict, fname: str) -> str:
    """``plot_x.py`` -> ``gallery/<lang>/<part>/plot_x.py``: the source a reader of the log can open."""
    for folder in map(Path, gallery_conf.get("examples_dirs") or []):
        for path in sorted(folder.rglob(fname)):
            return f"{folder.parent.name}/{folder.name}/{path.relative_to(folder).as_posix()}"
    return fname


def reset_torch(gallery_conf: dict, fname: str | None, when: str) -> None:
    """The sphinx-gallery hook (``reset_modules``, order "both"): guard one example's run."""
    script = _locate(gallery_conf, fname) if fname else "<unknown example>"
    if when == "before":
        _GUARD.start(script)
    else:
        _GUARD.stop(script)
