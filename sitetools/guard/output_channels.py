"""A page shows output through two channels only: ``print`` called by its own code, and the figure helpers.

sphinx-gallery has more ways to put text on a page: the repr (or ``_repr_html_``, raw HTML) of a
cell's last expression, which the shared configuration turns off (``capture_repr=()`` in
``docs/_shared/conf.py``); whatever any function writes to ``sys.stdout`` while the cell runs
(``pprint.pprint``, ``help()``, ``import this``); and any matplotlib figure the cell leaves open. This
module holds each of them to an allow-list:

- **print, from the page's own code.** While an example runs (:mod:`sitetools.guard.example`),
  :class:`PagePrints` wraps ``builtins.print`` and records the text of each ``print()`` called from a frame
  of the page's own file (the page's code, or a function of it a library calls back) that writes to the
  page's output; the record is kept with the example's completion record. After Sphinx, the build
  (:func:`sitetools.building.pipeline.verify_examples`, with :func:`unprinted`) compares the lines the
  page's output blocks show with the lines its own prints wrote, in order: a line shown that no print of
  the page wrote (text written by ``pprint``, ``pydoc``, ``this``, ``traceback``, a library's own
  ``print``) fails the build, naming the page, the output block, the code cell it follows and the text.
  It does not name the module that wrote the text (nothing patches sphinx-gallery's capture to see the
  writer), and the page runs to its end. The static rules of :mod:`sitetools.rules.output` (no
  ``sys.stdout``, literal prints) apply to the page's prints themselves.
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
import builtins
import functools
import html
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


# --- While a page runs, and after the build ---------------------------------------------------

#: What sphinx-gallery strips from a cell's captured output (``gen_rst._get_code_output``): ANSI escapes.
ANSI_ESCAPE = re.compile(r"\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])")
#: The start of a code cell of a built page (the page's Python, or the figure helpers' cell) and its text.
CODE_CELL = re.compile(r'<div class="highlight-(?:Python|python-helpers)[^"]*"><div class="highlight"><pre[^>]*>'
                       r"(.*?)</pre>", flags=re.S)  # fmt: skip
#: Set on the wrapper of ``print``, so that a wrapper a failed example left in place is never wrapped again.
WRAPPER = "_tensorcopy_page_prints"


class PagePrints:
    """While one example runs: ``builtins.print`` wrapped, to record what the example's own prints show.

    A ``print()`` called from a frame of the example's own file (the page's code, or a function of it that a
    library calls back) whose ``file`` is left out, or is the ``sys.stdout`` or ``sys.stderr`` of the moment
    (which sphinx-gallery captures while a cell runs), has its text recorded, in order, as print writes it:
    ``sep.join(map(str, args)) + end``. Every call, recorded or not, still prints."""

    def __init__(self, source: Path):
        self.source = os.path.normcase(os.path.realpath(source))
        self.printed: list[str] = []
        self._original = None
        self._mine: dict[str, bool] = {}

    def _is_page(self, filename: str) -> bool:
        if filename not in self._mine:
            self._mine[filename] = os.path.normcase(os.path.realpath(filename)) == self.source
        return self._mine[filename]

    def start(self) -> None:
        original = builtins.print
        while getattr(original, WRAPPER, False):  # left in place by an example that ended in an error
            original = original.__wrapped__
        self._original = original
        printed, is_page = self.printed, self._is_page

        @functools.wraps(original)
        def recording_print(*args, sep=None, end=None, file=None, flush=False):
            if ((file is None or file is sys.stdout or file is sys.stderr) and isinstance(sep, str | None)
                    and isinstance(end, str | None) and is_page(sys._getframe(1).f_code.co_filename)):
                args = tuple(str(arg) for arg in args)  # each value's str() once: the text recorded is the text printed
                printed.append((" " if sep is None else sep).join(args) + ("\n" if end is None else end))
            return original(*args, sep=sep, end=end, file=file, flush=flush)

        setattr(recording_print, WRAPPER, True)
        builtins.print = recording_print

    def stop(self) -> str:
        """Put ``print`` back; return the text the example's own prints wrote to its output."""
        if self._original is not None:
            builtins.print = self._original
            self._original = None
        return "".join(self.printed)


def _clean(text: str) -> list[str]:
    """The lines of ``text`` as a page shows captured output: tabs expanded and ANSI escapes removed
    (sphinx-gallery), vertical tabs and form feeds made spaces and trailing whitespace removed (docutils);
    blank lines are left out."""
    text = re.sub(r"[\v\f]", " ", ANSI_ESCAPE.sub("", text.expandtabs()))
    return [line for line in (line.rstrip() for line in text.splitlines()) if line]


def _dedented(lines: list[str]) -> list[str]:
    """As docutils reads the literal block of an output block: the indentation all its lines share removed."""
    common = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return [line[common:] for line in lines]


def shown_lines(text: str) -> list[str]:
    """The lines one output block shows for ``text``, the output sphinx-gallery captured while its cell ran."""
    return _dedented(_clean(text))


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", markup))


def shown_blocks(page: str, blocks: list[re.Match]) -> list[tuple[str, list[str]]]:
    """For each output block of a built ``page`` (``blocks``, its matches in the page), the first line of the
    code cell it follows and the lines it shows."""
    cells = [(cell.start(), _text(cell.group(1))) for cell in CODE_CELL.finditer(page)]
    found = []
    for block in blocks:
        code = next((text for start, text in reversed(cells) if start < block.start()), "")
        first = next((line.strip() for line in code.splitlines() if line.strip()), "")
        found.append((first, shown_lines(_text(block.group(0)))))
    return found


def unprinted(script: str, blocks: list[tuple[str, list[str]]], printed: str | None) -> list[str]:
    """How a page's output blocks differ from what its own prints wrote (:class:`PagePrints`); [] when they agree.

    ``blocks``: for each output block, in order, the first line of the code cell it follows and the lines it
    shows (:func:`shown_blocks`). The lines the prints wrote, normalised as the page shows them, must be the
    lines shown, in order: the first line shown that no print wrote is named, with its block; so is a line
    printed but not shown. ``printed`` is None when the example's record does not hold its prints. A print
    that leaves its line open at the end of a cell (``end=""``), continued by the next cell's, would be reported
    too: the two cells show two lines where the prints wrote one."""
    if printed is None:
        return [f"{script}: its completion record does not hold what its print() calls wrote, so its output "
                "cannot be checked (sitetools/guard/example.py writes it after the page ran)"]  # fmt: skip
    wrote, at = _clean(printed), 0
    for number, (cell, lines) in enumerate(blocks, 1):
        expected = _dedented(wrote[at:at + len(lines)])
        if lines != expected:
            index = next((i for i, line in enumerate(lines)
                          if i >= len(expected) or line.strip() != expected[i].strip()), None)  # fmt: skip
            if index is None:  # the same words, indented otherwise
                index = next(i for i, line in enumerate(lines) if line != expected[i])
            after = f" (after the code cell starting `{cell[:60]}`)" if cell else ""
            return [f"{script}, output block {number}{after}: shows {lines[index][:60]!r}, which no print() of the "
                    f"page wrote (pprint, help(), `import this`, a library's own output?); a page's output comes "
                    f"only from its own print() calls {GUIDE}"]  # fmt: skip
        at += len(lines)
    if at < len(wrote):
        return [f"{script}: its own print() calls wrote {wrote[at][:60]!r}, which its page does not show; this "
                "should not happen (the record of its prints, sitetools/guard/output_channels.py, and "
                "sphinx-gallery's capture disagree)"]  # fmt: skip
    return []
