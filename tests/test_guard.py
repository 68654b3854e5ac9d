"""The guard around every example (sitetools/guard/example.py), in-process: a Python warning and a
logged warning stop the example, the time limit stops it, and every piece of global state it resets is
named when an example leaves it changed. The slow tier runs the same faults through a real build
(tests/test_faults.py); these catch a broken guard in the fast tier."""

from __future__ import annotations

import builtins
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import types
import warnings
from pathlib import Path

import numpy
import pytest
import torch

from sitetools import settings
from sitetools.guard import example as example_guard
from sitetools.guard import state as state_fingerprint


@pytest.fixture
def guard(monkeypatch):
    """A guard started for one example; stopped (and the state reset) whatever the test did."""
    monkeypatch.delenv(settings.RECORDS, raising=False)
    monkeypatch.delenv(settings.TIMEOUT, raising=False)
    started = example_guard._Guard()
    started.start("gallery/en/part/plot_00_probe.py")
    yield started
    try:
        started.stop("gallery/en/part/plot_00_probe.py")
    except example_guard.ExampleLeftStateChanged:
        pass


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_clean_example_passes(monkeypatch):
    """Started and stopped inside the test: between a fixture's setup and the test, pytest adds log
    capture handlers to loggers, which the guard would rightly see as a change."""
    monkeypatch.delenv(settings.RECORDS, raising=False)
    guard = example_guard._Guard()
    guard.start("gallery/en/part/plot_00_probe.py")
    torch.ones(2).clone()
    guard.stop("gallery/en/part/plot_00_probe.py")  # raises nothing


def test_a_python_warning_stops_the_example(guard):
    with pytest.raises(UserWarning, match="injected"):
        warnings.warn("injected", UserWarning, stacklevel=1)


def test_a_torch_warning_stops_the_example(guard):
    a = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(UserWarning, match="grad attribute of a Tensor that is not a leaf"):
        a.grad  # noqa: B018 (reading it is what warns)


def test_a_logged_warning_stops_the_example(guard):
    with pytest.raises(example_guard.ExampleLoggedWarning, match="plot_00_probe.py logged WARNING"):
        logging.getLogger("probe").warning("injected")


def test_the_time_limit_stops_the_example(monkeypatch):
    monkeypatch.setenv(settings.TIMEOUT, "0.3")
    guard = example_guard._Guard()
    guard.start("gallery/en/part/plot_00_slow.py")
    try:
        started = time.monotonic()
        with pytest.raises(example_guard.ExampleTimeout, match="plot_00_slow.py ran longer than its time limit"):
            time.sleep(5)
        assert time.monotonic() - started < 3
    finally:
        guard.stop("gallery/en/part/plot_00_slow.py")


#: Each piece of global state a page could leave changed: how to change it, and the word the guard's
#: message must use for it.
LEAKS = {
    "torch print options": (lambda: torch.set_printoptions(precision=2), "torch print options"),
    "numpy print options": (lambda: numpy.set_printoptions(precision=2), "numpy print options"),
    "anomaly mode": (lambda: torch.autograd.set_detect_anomaly(True), "torch anomaly mode"),
    "deterministic algorithms": (lambda: torch.use_deterministic_algorithms(True), "torch deterministic algorithms"),
    "logging level": (lambda: logging.getLogger().setLevel(logging.ERROR), "logging root level"),
    "logging handler": (lambda: logging.getLogger().addHandler(logging.NullHandler()), "logging root handlers"),
    "logging disabled": (lambda: logging.disable(logging.CRITICAL), "logging disabled"),
    "default dtype": (lambda: torch.set_default_dtype(torch.float64), "torch default dtype"),
    "grad mode": (lambda: torch.set_grad_enabled(False), "torch grad mode"),
    "default device": (lambda: torch.set_default_device("meta"), "torch default device"),
}


@pytest.mark.parametrize("what", sorted(LEAKS))
def test_a_leaked_setting_is_named_and_reset(what):
    change, word = LEAKS[what]
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    guard = example_guard._Guard()
    guard.start("gallery/en/part/plot_00_leak.py")
    try:
        change()
        with pytest.raises(example_guard.ExampleLeftStateChanged, match=f"plot_00_leak.py left .*{word} is now"):
            guard.stop("gallery/en/part/plot_00_leak.py")
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers
        torch.set_default_device(None)
    # reset: the next example starts from the fresh state again
    assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled()
    assert not torch.is_anomaly_enabled() and not torch.are_deterministic_algorithms_enabled()
    assert torch.ones(1).device.type == "cpu" and logging.root.manager.disable == logging.NOTSET
    from torch._tensor_str import PRINT_OPTS

    assert PRINT_OPTS.precision == 4 and numpy.get_printoptions()["precision"] == 8


def test_an_inference_mode_left_on_is_named():
    guard = example_guard._Guard()
    guard.start("gallery/en/part/plot_00_leak.py")
    mode = torch.inference_mode()
    mode.__enter__()
    try:
        with pytest.raises(example_guard.ExampleLeftStateChanged, match="torch inference mode is now True"):
            guard.stop("gallery/en/part/plot_00_leak.py")
    finally:
        mode.__exit__(None, None, None)
    assert not torch.is_inference_mode_enabled()


def test_every_example_starts_from_seed_zero():
    """Whatever the page before drew, the next page draws what seed 0 gives."""
    import random

    torch.manual_seed(0)
    expected = (torch.rand(3).tolist(), random.Random(0).random(), numpy.random.RandomState(0).rand())
    torch.rand(5)
    random.random()
    numpy.random.rand()
    example_guard.reset_state()
    assert (torch.rand(3).tolist(), random.random(), numpy.random.rand()) == expected


# --- State compared, not listed: what the review left behind, each named on the page that did it ---

_STOP = threading.Event()


def _thread_left_running():
    _STOP.clear()
    threading.Thread(target=_STOP.wait, name="probe-thread", daemon=True).start()


def _raw_thread_left_running():
    """A thread :mod:`threading` does not list (``threading.enumerate()`` misses it)."""
    import _thread

    _STOP.clear()
    _thread.start_new_thread(_STOP.wait, ())
    time.sleep(0.05)


#: How a page leaves something behind, and the words the guard's message must use for it.
LEFT_BEHIND = {
    "Tensor.__str__": (lambda: setattr(torch.Tensor, "__str__", lambda self: "tensor(0.)"), "torch.Tensor.__str__"),
    "torch.__version__": (lambda: setattr(torch, "__version__", "2.99.0"), "torch.__version__"),
    "builtins.print": (lambda: setattr(builtins, "print", lambda *a, **k: None), "builtins.print"),
    "nn.Module method": (lambda: setattr(torch.nn.Module, "state_dict", lambda self: {}), "torch.nn.Module.state_dict"),
    "new torch attribute": (lambda: setattr(torch, "probe_value", 1), "torch.probe_value set to 1"),
    "thread count": (lambda: torch.set_num_threads(torch.get_num_threads() + 1), "torch threads is now"),
    "recursion limit": (lambda: sys.setrecursionlimit(sys.getrecursionlimit() + 7), "recursion limit is now"),
    "environment": (lambda: os.environ.__setitem__("TENSORCOPY_PROBE", "1"),
                    "environment variable TENSORCOPY_PROBE set"),
    "working directory": (lambda: os.chdir(os.path.dirname(os.getcwd()) or "/"), "working directory is now"),
    "sys.path": (lambda: sys.path.append("probe-folder"), "sys.path is now"),
    "sys.modules entry": (lambda: sys.modules.__setitem__("json", types.ModuleType("json")), "sys.modules['json']"),
    "stdout": (lambda: setattr(sys, "stdout", io.StringIO()), "sys.stdout or sys.stderr replaced"),
    "signal handler": (lambda: signal.signal(signal.SIGUSR1, lambda *a: None), "signal handler of SIGUSR1"),
    "logger level": (lambda: logging.getLogger("probe.logger").setLevel(logging.ERROR), "logger 'probe.logger'"),
    "thread left running": (_thread_left_running, "thread 'probe-thread' still running"),
    "_thread thread left running": (_raw_thread_left_running, "thread 'wait (started with _thread)' still running"),
    "function mode entered": (lambda: torch.overrides.TorchFunctionMode().__enter__(),
                              "torch function modes is now ['TorchFunctionMode']"),
    "dispatch mode entered": (lambda: _dispatch_mode().__enter__(),
                              "torch dispatch modes is now ['TorchDispatchMode']"),
    "saved tensors hooks entered": (lambda: torch.autograd.graph.saved_tensors_hooks(
        lambda t: None, lambda packed: torch.zeros(2)).__enter__(), "saved tensors hooks is now True"),
    "saved tensors hooks disabled": (lambda: _kept(torch.autograd.graph.disable_saved_tensors_hooks("probe")),
                                     "saved tensors hooks disabled is now 'probe'"),
    "umask": (lambda: os.umask(0o077), "umask is now '0o77'"),
}


_KEPT = []


def _kept(context) -> None:
    """Enter ``context`` and keep it: a generator's context manager closed by the collector would exit."""
    context.__enter__()
    _KEPT.append(context)


def _dispatch_mode():
    from torch.utils._python_dispatch import TorchDispatchMode

    return TorchDispatchMode()


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("what", sorted(LEFT_BEHIND))
def test_what_a_page_leaves_behind_is_named_on_that_page_and_put_back(what, monkeypatch):
    monkeypatch.delenv(settings.RECORDS, raising=False)
    change, words = LEFT_BEHIND[what]
    example_guard._warm_up()  # what the first start imports is no change of this test's
    before_settings, before = example_guard.global_state(), state_fingerprint.fingerprint()
    guard = example_guard._Guard()
    guard.start("gallery/en/part/plot_01_leak.py")
    try:
        change()
        left = "plot_01_leak.py left global state changed"
        with pytest.raises(example_guard.ExampleLeftStateChanged, match=left) as raised:
            guard.stop("gallery/en/part/plot_01_leak.py")
        assert words in str(raised.value)
    finally:
        _STOP.set()
    # the next page runs as on a fresh start: autograd saves the tensor itself, not what a hook made of it
    x = torch.ones(2, requires_grad=True)
    assert torch.equal(x.sin().grad_fn._saved_self, x)
    # put back: the next page starts from what this one found (a running thread cannot be ended)
    if "thread left running" not in what:
        assert state_fingerprint.differences(before, state_fingerprint.fingerprint()) == []
    now = example_guard.global_state()
    assert {k: v for k, v in now.items() if before_settings[k] != v} == {}


def test_a_thread_that_ends_just_after_the_page_is_not_left_behind(monkeypatch):
    """A queue's feeder thread flushes after the page's last line; a thread that ends within the grace
    is no change, one that runs on past it is named (the test above)."""
    monkeypatch.delenv(settings.RECORDS, raising=False)
    example_guard._warm_up()
    guard = example_guard._Guard()
    guard.start("gallery/en/part/plot_01_feeder.py")
    threading.Thread(target=time.sleep, args=(state_fingerprint.THREAD_GRACE_S / 4,), name="feeder").start()
    guard.stop("gallery/en/part/plot_01_feeder.py")


def test_a_cache_python_fills_on_first_use_is_not_a_change(monkeypatch):
    """``torch.save`` of a tensor makes ``copyreg`` cache ``torch.Tensor.__slotnames__``."""

    monkeypatch.delenv(settings.RECORDS, raising=False)
    if "__slotnames__" in vars(torch.Tensor):
        monkeypatch.delattr(torch.Tensor, "__slotnames__")
    guard = example_guard._Guard()
    guard.start("gallery/en/part/plot_01_copy.py")
    torch.save(torch.ones(2), io.BytesIO())
    assert "__slotnames__" in vars(torch.Tensor)
    guard.stop("gallery/en/part/plot_01_copy.py")  # raises nothing


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_what_torch_imports_on_first_use_is_not_blamed_on_the_page():
    """An optimizer's first step imports torch's compiler stack, which wraps ``torch.manual_seed``,
    configures loggers and sets an environment variable: in a fresh interpreter, as in a build, the
    guard has made those part of the fresh state, so the page that takes the first step is not refused."""
    code = (
        "import torch\nfrom sitetools.guard import example as example_guard\n"
        "guard = example_guard._Guard()\nguard.start('gallery/en/part/plot_01_step.py')\n"
        "w = torch.ones(2, requires_grad=True)\nw.sum().backward()\ntorch.optim.SGD([w], lr=0.1).step()\n"
        "guard.stop('gallery/en/part/plot_01_step.py')\nprint('passed')\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TENSORCOPY_", "TORCHINDUCTOR_"))}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                            cwd=Path(__file__).resolve().parents[1], timeout=600)  # fmt: skip
    assert result.returncode == 0 and result.stdout.strip() == "passed", result.stderr[-3000:]
