"""A fingerprint of everything an example can leave behind for the next one.

A fixed list of settings misses the one a page thinks of next. Besides the settings read through
getters (:func:`sitetools.guard.example.global_state` and :func:`settings` here: torch's thread counts,
its function-mode and dispatch-mode stacks and its saved-tensors hooks, the recursion limit, the
warnings filters, the working directory, ``sys.path``, the interval timer, the process umask),
:func:`fingerprint` holds the environment variables and *every* attribute of the objects a page can patch
(``torch``, ``torch.Tensor``, ``torch.nn.Module``, ``torch.nn.functional``, ``builtins``, ``sys``) and
every ``sys.modules`` entry by identity, the configuration of every logger, the threads alive (those
``_thread.start_new_thread`` started too, which :mod:`threading` does not list), the
signal handlers and ``sys.stdout``/``sys.stderr``. :func:`differences` describes each change in a
phrase; :func:`restore` puts the state back, so that the next page runs clean and only the culprit is
named.

Allowed to appear: a new attribute or ``sys.modules`` entry that is a module (an import, which the next
page would also make), a cache Python fills on first use (:data:`CACHES`), and a new logger left at its
defaults. Everything else that differs is a change.
"""

from __future__ import annotations

import builtins
import logging
import os
import signal
import sys
import threading
import time
import types
import warnings

#: sys attributes compared otherwise: those Python itself sets while code runs, and the lists that
#: sphinx-gallery replaces with equal copies around every example (compared by value in :func:`settings`).
SYS_VOLATILE = {"last_type", "last_value", "last_traceback", "last_exc", "argv", "path"}
ABSENT = object()
#: Attributes Python's own caches add to a class on first use (``copyreg`` keeps ``__slotnames__`` on a
#: class the first time one of its objects is copied or pickled).
CACHES = {"__slotnames__"}
#: Environment variables a test runner sets anew for each phase of a test (the fast tests run the guard
#: under pytest); no build sets them.
ENV_OWN = {"PYTEST_CURRENT_TEST"}


def _patchable() -> dict[str, object]:
    import torch

    return {"torch": torch, "torch.Tensor": torch.Tensor, "torch.nn.Module": torch.nn.Module,
            "torch.nn.functional": torch.nn.functional, "builtins": builtins, "sys": sys}  # fmt: skip


def _loggers() -> dict[str, tuple]:
    """Each logger's (level, handlers, disabled, propagate); handlers compared by identity."""
    found = {}
    for name, logger in [("", logging.root), *list(logging.root.manager.loggerDict.items())]:
        if isinstance(logger, logging.Logger):
            found[name] = (logger.level, tuple(logger.handlers), logger.disabled, logger.propagate)
    return found


#: A logger as ``logging.getLogger`` makes it.
NEW_LOGGER = (logging.NOTSET, (), False, True)


def _umask() -> int:
    """The process umask, read the only way POSIX allows: set, then set back at once."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: The function mode ``torch.set_default_device`` enters: compared as the default device, and put
#: back by :func:`sitetools.guard.example.reset_state`, which exits it.
DEVICE_MODE = "DeviceContext"


def modes() -> dict[str, object]:
    """torch's mode stacks and saved-tensors hooks: a ``with`` left open (``__enter__`` without
    ``__exit__``) changes how every later page's operations run or what autograd saves. Read and put
    back (:func:`restore_modes`) before any other torch call of the guard, which a mode left entered
    would intercept."""
    import torch
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    hooks = torch._C._autograd
    return {
        "torch function modes": [type(mode).__name__ for mode in _get_current_function_mode_stack()
                                 if type(mode).__name__ != DEVICE_MODE],
        "torch dispatch modes": [type(mode).__name__ for mode in _get_current_dispatch_mode_stack()],
        "saved tensors hooks": hooks._top_saved_tensors_default_hooks(True) is not None,
        "saved tensors hooks disabled": hooks._saved_tensors_hooks_get_disabled_error_message(),
    }


def settings() -> dict[str, object]:
    """The settings read through getters that :func:`sitetools.guard.example.global_state` does not
    already list: equal values mean the same state."""
    import torch

    return {
        **modes(),
        "umask": oct(_umask()),
        "torch threads": torch.get_num_threads(),
        "torch interop threads": torch.get_num_interop_threads(),
        "recursion limit": sys.getrecursionlimit(),
        "warnings filters": repr(warnings.filters),
        "working directory": os.getcwd(),
        "sys.path": list(sys.path),
        "sys.argv": list(sys.argv),
        "interval timer": signal.getitimer(signal.ITIMER_REAL)[0] > 0,
    }


def _threads() -> dict[int, str]:
    """Every thread running Python code, by identity: those :mod:`threading` knows by their name, and those
    started with ``_thread.start_new_thread``, which it does not list, by the function they run."""
    named = {thread.ident: thread.name for thread in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        if ident not in named:
            while frame.f_back is not None:
                frame = frame.f_back
            named[ident] = f"{frame.f_code.co_name} (started with _thread)"
    return named


#: Seconds the threads a page started get, all together, to end after the page: a queue's feeder thread
#: ends only once it has flushed what was put before ``close()``, a moment after the page's last line.
THREAD_GRACE_S = 3.0


def settle_threads(before: dict[str, object], seconds: float = THREAD_GRACE_S) -> None:
    """Wait up to ``seconds`` in all for the threads started since ``before`` (a :func:`fingerprint`) to
    end; those still running then are the page's to answer for."""
    deadline = time.monotonic() + seconds
    for thread in threading.enumerate():
        if thread.ident not in before["threads"] and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))


def fingerprint() -> dict[str, object]:
    """What is compared by identity (kept as references, compared with ``is``)."""
    return {
        "attributes": {name: dict(vars(owner)) for name, owner in _patchable().items()},
        "modules": dict(sys.modules),
        "loggers": _loggers(),
        "threads": _threads(),
        "signals": {sig.name: signal.getsignal(sig) for sig in signal.Signals},
        "streams": (sys.stdout, sys.stderr),
        "environment": {k: v for k, v in os.environ.items() if k not in ENV_OWN},
    }


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def differences(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """What changed between two fingerprints, one phrase each (empty when nothing did)."""
    found = []
    for owner, now in after["attributes"].items():
        was = before["attributes"].get(owner, {})
        for name in sorted(set(was) | set(now)):
            old, new = was.get(name, ABSENT), now.get(name, ABSENT)
            if old is new or (owner == "sys" and name in SYS_VOLATILE):
                continue
            if old is ABSENT and (isinstance(new, types.ModuleType) or name in CACHES):
                continue  # a submodule imported, or a cache filled: the next page would do the same
            what = ("removed" if new is ABSENT else f"set to {_short(new)}" if old is ABSENT
                    else f"replaced by {_short(new)}")
            found.append(f"{owner}.{name} {what}")
    for name, module in before["modules"].items():
        if name in after["modules"] and after["modules"][name] is not module:
            found.append(f"sys.modules[{name!r}] replaced")
    for name, config in after["loggers"].items():
        if before["loggers"].get(name, NEW_LOGGER) != config:
            found.append(f"logger {name or 'root'!r} configured differently (level, handlers, disabled)")
    for ident, name in after["threads"].items():
        if ident not in before["threads"]:
            found.append(f"thread {name!r} still running")
    for name, handler in after["signals"].items():
        if before["signals"].get(name) is not handler and before["signals"].get(name) != handler:
            found.append(f"signal handler of {name} is now {_short(handler)}")
    if any(a is not b for a, b in zip(before["streams"], after["streams"], strict=True)):
        found.append("sys.stdout or sys.stderr replaced")
    was, now = before["environment"], after["environment"]
    found += [f"environment variable {name} {'removed' if name not in now else 'set'}"
              for name in sorted(set(was) | set(now)) if was.get(name) != now.get(name)]
    return found


def restore(before: dict[str, object]) -> None:
    """Put back what :func:`differences` compares by identity, as far as Python allows."""
    for owner_name, owner in _patchable().items():
        was, now = before["attributes"][owner_name], dict(vars(owner))
        for name in set(was) | set(now):
            old, new = was.get(name, ABSENT), now.get(name, ABSENT)
            if old is new or (owner_name == "sys" and name in SYS_VOLATILE):
                continue
            try:
                if old is ABSENT:
                    if not isinstance(new, types.ModuleType) and name not in CACHES:
                        delattr(owner, name)
                else:
                    setattr(owner, name, old)
            except (AttributeError, TypeError):
                pass  # read-only: the change was reported, the build stops
    for name, module in before["modules"].items():
        if name in sys.modules and sys.modules[name] is not module:
            sys.modules[name] = module
    for name, handler in before["signals"].items():
        if handler is not None and signal.getsignal(signal.Signals[name]) is not handler:
            try:
                signal.signal(signal.Signals[name], handler)
            except (OSError, ValueError, TypeError):
                pass
    sys.stdout, sys.stderr = before["streams"]
    for name in set(os.environ) - set(before["environment"]) - ENV_OWN:
        del os.environ[name]
    os.environ.update({k: v for k, v in before["environment"].items() if os.environ.get(k) != v})
    for name in _loggers():
        logger = logging.getLogger(name or None)
        level, handlers, disabled, propagate = before["loggers"].get(name, NEW_LOGGER)
        if logger.level != level:  # setLevel empties the cache of every logger: only when it changed
            logger.setLevel(level)
        if tuple(logger.handlers) != handlers:
            logger.handlers[:] = handlers
        logger.disabled, logger.propagate = disabled, propagate


def restore_modes(before: dict[str, object]) -> None:
    """Pop what a page left on torch's mode stacks and hooks stack (the fresh state has none)."""
    import torch
    from torch.overrides import _get_current_function_mode_stack
    from torch.overrides import _pop_mode as pop_function_mode
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack
    from torch.utils._python_dispatch import _pop_mode as pop_dispatch_mode

    popped = [pop_function_mode() for _ in range(len(_get_current_function_mode_stack())
                                                 - len(before["torch function modes"]))]
    for mode in reversed(popped):
        if type(mode).__name__ == DEVICE_MODE:
            torch.overrides._push_mode(mode)  # the default device's own: reset_state exits it
    while len(_get_current_dispatch_mode_stack()) > len(before["torch dispatch modes"]):
        pop_dispatch_mode()
    hooks = torch._C._autograd
    if not before["saved tensors hooks"]:
        while hooks._top_saved_tensors_default_hooks(True) is not None:
            hooks._pop_saved_tensors_default_hooks()
    if before["saved tensors hooks disabled"] is None:
        hooks._saved_tensors_hooks_enable()


def restore_settings(before: dict[str, object]) -> None:
    """Put back the settings of :func:`settings` that can be put back (the thread count is put back by
    :func:`sitetools.guard.example.reset_state`)."""
    restore_modes(before)
    os.umask(int(before["umask"], 8))
    sys.setrecursionlimit(before["recursion limit"])
    os.chdir(before["working directory"])
    sys.path[:] = before["sys.path"]
    sys.argv[:] = before["sys.argv"]
