"""Every check a page reports ran and held while the site was built.

A check listed in ``gallery/asserts.json`` proves nothing if it never ran: inside ``if False:``, in a
function that is never called, after an ``except AssertionError: pass`` swallowed its failure. While
an example runs, :class:`CheckRuns` follows the lines Python executes in the script's own file (a line
tracer, :func:`sys.settrace`, called only for the script's frames) and the assertion errors raised
there; afterwards :func:`unheld` lists every check that did not run and hold at least once:

- an ``assert`` holds when its line ran and did not raise ``AssertionError`` there;
- a must-raise block (``try: ... except E: ... else: raise AssertionError(...)``) holds when one of its
  handlers ran.

The guard around every example (:mod:`sitetools.guard.example`) refuses the page otherwise, naming the
file and line of each check. A page that removes the tracer (``sys.settrace(None)``) stops the record,
so its later checks count as not run: the rule fails closed.
"""

from __future__ import annotations

import ast
import collections
import functools
import os
import sys
from pathlib import Path

from sitetools.releases.rerun_cell import gpu_lines, is_must_raise


@functools.lru_cache(maxsize=4)
def parsed(source: str) -> ast.Module:
    """The syntax tree of a script, parsed once for the guard's several readings of it (never modified)."""
    return ast.parse(source)


class CheckRuns:
    """The lines of one script that ran, and those where an ``AssertionError`` was raised."""

    def __init__(self, script: Path, source: str):
        self.script = os.path.normcase(os.path.realpath(script))
        #: every line of a multi-line assert -> its first line: a line event inside the span that comes
        #: from another line of the span is the same run of the assert (Python reports the raise again)
        self.spans = {line: node.lineno for node in ast.walk(parsed(source)) if isinstance(node, ast.Assert)
                      for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}  # fmt: skip
        self.ran: collections.Counter[int] = collections.Counter()
        self.failed: collections.Counter[int] = collections.Counter()
        self._mine: dict[str, bool] = {}
        self._previous = None

    def _is_script(self, filename: str) -> bool:
        if filename not in self._mine:
            self._mine[filename] = os.path.normcase(os.path.realpath(filename)) == self.script
        return self._mine[filename]

    def _call(self, frame, event, arg):
        if not self._is_script(frame.f_code.co_filename):
            return None
        last = [None]  # the span (or line) of this frame's previous line event

        def line(frame, event, arg):
            here = self.spans.get(frame.f_lineno, -frame.f_lineno)
            if event == "line":
                if here != last[0]:
                    self.ran[abs(here)] += 1
                last[0] = here
            elif event == "exception" and issubclass(arg[0], AssertionError):
                self.failed[abs(here)] += 1
            return line

        return line

    def start(self) -> None:
        self._previous = sys.gettrace()
        sys.settrace(self._call)

    def stop(self) -> bool:
        """Stop recording; False when the script replaced the tracer (the record then stopped early)."""
        intact = sys.gettrace() == self._call
        sys.settrace(self._previous)
        return intact


def checks_with_lines(source: str) -> list[tuple[int, list[int], str]]:
    """``(line, lines that prove it ran, text)`` for each check of a script: an assert's own line, or
    the first line of each handler of a must-raise block."""
    found = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Assert):
            found.append((node.lineno, [node.lineno], f"assert {ast.unparse(node.test)}"))
        elif is_must_raise(node):
            proofs = [handler.body[0].lineno for handler in node.handlers]
            found.append((node.lineno, proofs, f"must raise: {ast.unparse(node.body[0])}"))
    return sorted(found)


def unheld(source: str, runs: CheckRuns, gpu: bool | None = None) -> list[tuple[int, str]]:
    """``(line, text)`` of every check of ``source`` that did not run and hold at least once. The checks
    of a GPU block (``if torch.cuda.is_available():``) are owed only where torch has a GPU (``gpu``,
    asked of torch when not given): elsewhere the manifest marks them ``(GPU)`` and the verified-on
    stamp names them as not run, so none of them is reported as run."""
    if gpu is None:
        import torch

        gpu = torch.cuda.is_available()
    owed_elsewhere = set() if gpu else gpu_lines(parsed(source))
    missing = []
    for line, proofs, text in checks_with_lines(source):
        if line in owed_elsewhere:
            continue
        if text.startswith("assert "):
            held = runs.ran[line] > runs.failed[line]
        else:
            held = any(runs.ran[proof] for proof in proofs)
        if not held:
            missing.append((line, text))
    return missing
