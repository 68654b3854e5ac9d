"""Reads of the probed behaviour matrix (:mod:`tensorfacts.probes`) that the premises of the guide in
:mod:`tensorfacts.matrix` are written with: a row, a column over the sources, a refusal, a row compared with another.
"""

from __future__ import annotations

from tensorfacts.probes import EDIT_COLUMNS, NO_COUNTER, Matrix, Refused
from tensorfacts.standard_sources import GRAD_SOURCES, NO_VERSION_COUNTER, SOURCES


def row(m: Matrix, source: str, operation: str) -> dict[str, object]:
    return m[source][operation]


def everywhere(m: Matrix, operation: str, sources: tuple[str, ...] = tuple(SOURCES), **expected: object) -> bool:
    return all(all(row(m, source, operation)[column] == value for column, value in expected.items())
               for source in sources)


def refused(m: Matrix, source: str, operation: str, column: str, kind: str, changed: bool | None = None) -> bool:
    cell = row(m, source, operation)[column]
    return isinstance(cell, Refused) and cell.kind == kind and (changed is None or cell.changed is changed)


def no_counter(m: Matrix, *operations: str) -> bool:
    """In each row of ``operations``, every source with no version counter says it has none."""
    return all(refused(m, s, op, "shares_version", NO_COUNTER) for s in NO_VERSION_COUNTER for op in operations)


def edits(m: Matrix, operation: str, outcome: str) -> bool:
    """Both edit columns give ``outcome`` for every source that requires grad."""
    return all(row(m, s, operation)[c] == outcome for s in GRAD_SOURCES for c in EDIT_COLUMNS)


def same_row(m: Matrix, operation: str, other: str, ignore: tuple[str, ...] = ()) -> bool:
    return all({k: v for k, v in row(m, s, operation).items() if k not in ignore}
               == {k: v for k, v in row(m, s, other).items() if k not in ignore} for s in SOURCES)
