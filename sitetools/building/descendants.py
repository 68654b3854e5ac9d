"""The processes descended from one process, found in ``/proc``, and ending them.

An orphaned process is adopted by its nearest ancestor that declared itself a subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``): the build process and each Sphinx process are, so a page's
double-forked or ``setsid`` child stays their descendant and is found here.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1)


def _parents() -> dict[int, int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def of(pid: int) -> list[int]:
    """Every living descendant of ``pid`` (children, their children ...)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, []))
    return found


def describe(pid: int) -> str:
    with contextlib.suppress(OSError):
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        return command or f"process {pid}"
    return f"process {pid}"


def end_all(pid: int, keep: tuple[int, ...] = ()) -> list[str]:
    """End (SIGKILL) every descendant of ``pid`` but ``keep`` and theirs, reap the children among them,
    and return their command lines (empty when there were none)."""
    kept = set(keep)
    for kept_pid in keep:
        kept.update(of(kept_pid))
    found = [child for child in of(pid) if child not in kept]
    names = [describe(child) for child in found]
    for child in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while True:  # reap those that became our children (orphans adopted by this subreaper)
        for child in found:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child, os.WNOHANG)
        if not set(of(pid)) & set(found) or time.monotonic() > deadline:
            return names
        time.sleep(0.02)
