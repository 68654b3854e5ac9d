"""Watch which cells of the behaviour matrix a premise reads, and which helper calls read nothing.

``Recorded(matrix)`` is a copy of a probed matrix whose rows note every cell read by key and every
row read whole (``.items()``, ``==``). ``watch_helpers(module, monkeypatch, calls)`` wraps each
function of ``module`` whose first parameter is the matrix (``_rows``, ``_everywhere``, ``_no_counter``
...), and appends to ``calls`` those that read no cell at all: ``all()`` over no sources is true,
so a premise part over an empty tuple of sources says nothing.
"""

from __future__ import annotations

import functools
import inspect


class Row(dict):
    def __init__(self, values, where, log) -> None:
        super().__init__(values)
        self.where, self.log = where, log

    def __getitem__(self, column):
        self.log.append((*self.where, column))
        return super().__getitem__(column)

    def items(self):
        self.log.append((*self.where, None))  # the whole row
        return super().items()

    def __eq__(self, other):
        self.log.append((*self.where, None))
        return super().__eq__(other)

    __hash__ = None


class Rows(dict):
    def __init__(self, values, source, log) -> None:
        super().__init__(values)
        self.source, self.log = source, log

    def __getitem__(self, operation):
        self.log.append((self.source, operation, ROW))
        return super().__getitem__(operation)


#: The column logged when a row itself is looked up (before any of its cells is read).
ROW = "(row)"


class Recorded(dict):
    """source -> operation -> Row; ``log`` lists (source, operation, column) as read: ``None`` for
    the whole row compared or listed, ``ROW`` for the row looked up."""

    def __init__(self, matrix) -> None:
        self.log: list[tuple[str, str, str | None]] = []
        super().__init__({s: Rows({op: Row(cells, (s, op), self.log) for op, cells in ops.items()}, s, self.log)
                          for s, ops in matrix.items()})


def watch_helpers(module, monkeypatch, empty_calls: list[str]) -> None:
    """Wrap every function that ``module`` defines or imports from the fact engine and that takes the matrix
    first (its first parameter is ``m``): the guide's premises call the reads of :mod:`tensorfacts.matrix_reads`."""
    for name, func in list(vars(module).items()):
        if not inspect.isfunction(func) or func.__module__.split(".")[0] != "tensorfacts":
            continue
        parameters = list(inspect.signature(func).parameters)
        if not parameters or parameters[0] != "m":
            continue

        @functools.wraps(func)
        def wrapper(m, *args, _func=func, **kwargs):
            log = getattr(m, "log", None)
            before = len(log) if log is not None else 0
            result = _func(m, *args, **kwargs)
            if log is not None and len(log) == before:
                empty_calls.append(f"{_func.__name__}{(*args,)}{kwargs or ''} reads nothing")
            return result

        monkeypatch.setattr(module, name, wrapper)
