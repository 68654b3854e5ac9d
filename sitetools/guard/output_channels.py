"""A page shows output through two channels only: ``print`` called by its own code, and the figure helpers.

sphinx-gallery has more ways to put text on a page: the repr (or ``_repr_html_``, raw HTML) of a
cell's last expression, which the shared configuration turns off (``capture_repr=()`` in
``docs/_shared/conf.py``); whatever any function writes to ``sys.stdout`` while the cell runs
(``pprint.pprint``, ``help()``, ``import this``); and any matplotlib figure the cell leaves open. This
module holds each of them to an allow-list:

- **print, from the page's own code.** While an example runs (:mod:`sitetools.guard.example`),
  :class:`PageWrites` accepts a write to sphinx-gallery's capture of the output only from a frame of
  the page's own file: ``print()`` called by the page (a built-in, so the page's frame is the writer).
  Text written by any other module (``pprint``, ``pydoc``, ``this``, ``traceback``, a library's own
  ``print``) is refused: the write raises, and if the page catches that, the guard fails the page after
  it ran, naming the module and line that wrote. The static rules of :mod:`sitetools.rules.output`
  (no ``sys.stdout``, literal prints) apply to the page's prints themselves.
- **The figure helpers.** The page's code draws only by calling ``draw_memory``, ``draw_graph``,
  ``draw_versions`` or ``draw_processes`` of the helper cell, which must be
  ``sitetools/authoring/figure_cell.py``'s text exactly:
  outside it, no matplotlib import and no other name the cell defines (``plt``, ``_box``...; but
  ``shared_counters``, which reads tensors and draws nothing). The
  helpers' arguments follow the literal rule of a print: a title or a label may be text, but a number,
  a truth value or a tensor built from literals is refused (draw what the code computed).
- **No sphinx-gallery setting in a page.** A ``# sphinx_gallery_<name>`` comment changes how the page
  is built (``sphinx_gallery_capture_repr`` would show reprs again); only the markers of hidden blocks
  (``start_ignore``, ``end_ignore``) and ``thumbnail_number = <n>`` are allowed.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
from pathlib import Path

from sitetools.rules import folding, syntax

GUIDE = "(see CONTRIBUTING.md, 'Printing')"
#: The sphinx-gallery comments a page may hold: the markers of a hidden block (flags, no value) and the
#: number of the picture that is the page's thumbnail (a whole number).
FLAGS, THUMBNAIL = {"start_ignore", "end_ignore"}, "thumbnail_number"
#: The helper cell's functions a page calls to draw.
DRAWERS = {"draw_memory", "draw_graph", "draw_versions", "draw_processes"}
#: The helper cell's other function a page may call: it reads tensors and draws nothing.
READERS = {"shared_counters"}
HELPERS_START = "import matplotlib.pyplot as plt"
FIGURE_CELL = Path(__file__).parents[1] / "authoring" / "figure_cell.py"


class OutputAroundPrint(Exception):
    """A page's output was written by other code than the page's own ``print()``."""


# --- Static rules ------------------------------------------------------------------------------


@functools.cache
def helper_cell() -> str:
    """The helper cell every drawing page carries: ``sitetools/authoring/figure_cell.py`` from its matplotlib
    import on."""
    source = FIGURE_CELL.read_text(encoding="utf-8")
    return source[source.index(HELPERS_START):].strip()


@functools.cache
def _helper_names() -> frozenset[str]:
    """The names the helper cell binds, but the functions a page calls (to draw, or to read tensors)."""
    names = set()
    for node in syntax.parse(helper_cell()).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign):
            names.update(n.id for target in node.targets for n in syntax.walk(target) if isinstance(n, ast.Name))
    return frozenset(names - DRAWERS - READERS)


def _without_helper_cell(source: str) -> str:
    """The source with the canonical helper cell blanked out, line numbers kept."""
    cell = helper_cell()
    return source.replace(cell, "\n" * cell.count("\n"))


def _settings(source: str) -> list[tuple[int, str]]:
    from sphinx_gallery.py_source_parser import INFILE_CONFIG_PATTERN

    found = []
    for match in re.finditer(INFILE_CONFIG_PATTERN, source):
        name, value = match.group(1), match.group(3)
        if not ((name in FLAGS and value is None) or (name == THUMBNAIL and (value or "").strip().isdigit())):
            line = source.count("\n", 0, match.start()) + 1
            found.append((line, f"sets the sphinx-gallery option `{match.group(0).strip()}`; a page changes nothing "
                                "in how it is built (only the hidden-block markers and the thumbnail's number are "
                                "allowed)"))  # fmt: skip
    return found


def _label(node: ast.expr) -> bool:
    """Text for a figure: a string, or a list or tuple of strings (the names of a timeline)."""
    known = folding.value(node)
    if isinstance(known, str):
        return True
    return isinstance(known, list | tuple) and all(isinstance(item, str) for item in known)


def _drawing_problems(call: ast.Call, imported: set[str]) -> list[str]:
    arguments = [arg.value if isinstance(arg, ast.Starred) else arg for arg in call.args]
    arguments += [keyword.value for keyword in call.keywords]
    dicts = [node for arg in arguments if isinstance(arg, ast.Dict) for node in arg.values]  # **{"w.grad": w.grad}
    found = []
    for arg in [*arguments, *dicts]:
        if isinstance(arg, ast.Dict):
            continue
        if folding.value(arg) is not folding.UNKNOWN and not _label(arg):
            found.append(f"draws `{ast.unparse(arg)}`, which constants alone decide; draw what the code computed")
        elif folding.value(arg) is folding.UNKNOWN and folding.from_literals(arg, imported):
            found.append(f"draws `{ast.unparse(arg)}`, which literals alone decide (a library called on constants); "
                         "draw a value the page's code computed and named")  # fmt: skip
    return found


def _figure_problems(source: str, where: str) -> list[tuple[int, str]]:
    tree = syntax.parse(_without_helper_cell(source), where)
    private = _helper_names()
    imported = {(alias.asname or alias.name).split(".")[0] for node in syntax.walk(tree)
                if isinstance(node, ast.Import | ast.ImportFrom) for alias in node.names}  # fmt: skip
    found = []
    for node in syntax.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            if any(module.split(".")[0] == "matplotlib" for module in modules):
                found.append((line, "imports matplotlib outside the helper cell (or in a helper cell that is not "
                                    "sitetools/authoring/figure_cell.py's text); a page draws only with draw_memory, "
                                    "draw_graph, draw_versions and draw_processes"))  # fmt: skip
        elif isinstance(node, ast.Name) and node.id in private:
            found.append((line, f"uses `{node.id}` of the drawing helpers; a page draws only by calling "
                                "draw_memory, draw_graph, draw_versions or draw_processes"))  # fmt: skip
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in DRAWERS:
            found += [(line, problem) for problem in _drawing_problems(node, imported)]
    return found


def problems(source: str, where: str = "<page>") -> list[tuple[int, str]]:
    """(line, problem) for every way the page's source shows output around print and the figure helpers."""
    return sorted(set(_settings(source) + _figure_problems(source, where)))


def check_source(where: str, source: str) -> list[str]:
    """The static rules of this module for one script's text; each problem names the file and line."""
    return [f"{where}, line {line}: {problem} {GUIDE}" for line, problem in problems(source, where)]


# --- While a page runs -------------------------------------------------------------------------


class PageWrites:
    """While one example runs: only a frame of the example's own file may write to sphinx-gallery's
    capture of its output (``_LoggingTee``, the ``sys.stdout`` and ``sys.stderr`` of a running cell)."""

    def __init__(self, script: str, source: Path):
        self.script = script  # as the log names it: gallery/<lang>/<part>/<page>.py
        self.source = os.path.normcase(os.path.realpath(source))
        self.refused: list[str] = []
        self._original = None
        self._mine: dict[str, bool] = {}

    def _is_page(self, filename: str) -> bool:
        if filename not in self._mine:
            self._mine[filename] = os.path.normcase(os.path.realpath(filename)) == self.source
        return self._mine[filename]

    def start(self) -> None:
        from sphinx_gallery.gen_rst import _LoggingTee

        original = _LoggingTee.__dict__.get("write")
        if original is None:  # sphinx-gallery changed: fail loudly rather than let every write through
            raise RuntimeError("sphinx_gallery.gen_rst._LoggingTee has no write(); "
                               "update sitetools/guard/output_channels.py")
        self._original = original
        guard = self

        def write(tee, data):
            caller = sys._getframe(1)
            if not guard._is_page(caller.f_code.co_filename):
                what = (f"{caller.f_globals.get('__name__', '?')} ({Path(caller.f_code.co_filename).name}, "
                        f"line {caller.f_lineno}) wrote {data[:60]!r}")  # fmt: skip
                guard.refused.append(what)
                raise OutputAroundPrint(f"{guard.script}: {what}; a page's output comes only from its own print() "
                                        f"calls {GUIDE}")  # fmt: skip
            return original(tee, data)

        _LoggingTee.write = write

    def stop(self) -> list[str]:
        """Put sphinx-gallery's capture back; return what was refused (one line each)."""
        if self._original is not None:
            from sphinx_gallery.gen_rst import _LoggingTee

            _LoggingTee.write = self._original
            self._original = None
        return self.refused
