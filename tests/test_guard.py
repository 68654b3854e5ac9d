"""The guard around every example (sitetools/example_guard.py), in-process: a Python warning and a
logged warning stop the example, the time limit stops it, and every piece of global state it resets is
named when an example leaves it changed. The slow tier runs the same faults through a real build
(tests/test_faults.py); these catch a broken guard in the fast tier."""

from __future__ import annotations

import logging
import time
import warnings

import numpy
import pytest
import torch

from sitetools import example_guard


@pytest.fixture
def guard(monkeypatch):
    """A guard started for one example; stopped (and the state reset) whatever the test did."""
    monkeypatch.delenv(example_guard.RECORDS_ENV, raising=False)
    monkeypatch.delenv(example_guard.TIMEOUT_ENV, raising=False)
    started = example_guard._Guard()
    started.start("gallery/en/part/plot_00_probe.py")
    yield started
    try:
        started.stop("gallery/en/part/plot_00_probe.py")
    except example_guard.ExampleLeftStateChanged:
        pass


def test_a_clean_example_passes(guard):
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
    monkeypatch.setenv(example_guard.TIMEOUT_ENV, "0.3")
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
