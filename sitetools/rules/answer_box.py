"""Every question page answers first: a reader who arrives from a search with a symptom finds the cause
and the fix on the first screen, before the experiment that proves it.

The rule (run with the other page rules, :mod:`sitetools.rules.all_rules`): the first docstring of every page
under ``questions/`` holds, right after its title and before anything else, an admonition titled
"Answer" in the page's language (:data:`TITLES`) with ``:class: answer``, whose code block shows the
fix; every non-blank line of that block (whitespace normalised) is a line of the page's visible code,
so the fix shown is one the page runs, and the page checks what that line did: the line it matches is
not one the page shows failing (a statement in the body of a ``try`` with handlers, as a must-raise
check runs the failing line), and a visible ``assert`` follows it in its cell (for a line in a function
or class definition, which runs when called, in its cell or a later one). Every recorded assert runs and
holds on every build (:mod:`sitetools.guard.check_runs`), so that assert ran after the fix was defined or run.
The box's text before its code holds at most :data:`BUDGET` characters: one sentence of cause, one of
fix, so it fits a phone's first screen under a long title; the exceptions go to the page's body.

What the rule cannot tell: a line of a silent mistake that the page runs outside a ``try`` and then
checks (``best = model.state_dict()`` followed by an assert that ``best`` changed) meets the same form.
Review reads the box against the cell it quotes.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path

from editions import pick
from sitetools.rules import syntax
from sitetools.rules.sources import blocks, code_cells, gallery_scripts, guide, split_hidden

PART = "questions"
CLASS = "answer"
#: The admonition's title in each edition.
TITLES = {"en": "Answer", "zh_CN": "答案"}
#: The most characters (not counting spaces and reST's code marks) the box's text may hold before its code:
#: one sentence of cause and one of fix, which fit a phone's first screen under a long title; the
#: exceptions go to the page's body.
BUDGET = {"en": 225, "zh_CN": 130}
GUIDE = guide("Question pages answer first")

_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")


def _normal(line: str) -> str:
    return " ".join(line.split())


@functools.lru_cache(maxsize=4096)
def _numbered_code_lines(code: str) -> dict[int, str]:
    """The non-blank lines of some Python code by number (1-based), whitespace normalised and trailing
    comments dropped (a comment is text, translated in each edition, so the box shows the code without it)."""
    lines = code.splitlines()
    try:  # a comment starts with "#": code without one has none to drop (most cells)
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline)) if "#" in code else []
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    return {number: _normal(line) for number, line in enumerate(lines, start=1) if line.strip()}


def _code_lines(code: str) -> set[str]:
    """The lines of some Python code, as :func:`_numbered_code_lines` gives them."""
    return set(_numbered_code_lines(code).values())


def _after_title(text: str) -> list[str]:
    """The docstring's lines after its title's underline (label and title come first)."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if number > 0 and _UNDERLINE.match(line) and lines[number - 1].strip():
            return lines[number + 1 :]
    return []


def _box(lines: list[str]) -> tuple[str, list[str], list[str]] | str:
    """``(title, options, body)`` of the admonition that opens ``lines``, or why there is none."""
    content = list(lines)
    while content and not content[0].strip():
        content.pop(0)
    if not content or not content[0].startswith(".. admonition::"):
        first = content[0].strip() if content else "nothing"
        return f"the docstring goes on with {first[:60]!r} right after the title"
    title = content[0][len(".. admonition::") :].strip()
    body = []
    for line in content[1:]:
        if line.strip() and not line.startswith((" ", "\t")):
            break
        body.append(line)
    options = [line.strip() for line in body if line.strip().startswith(":")]
    return title, options, body


def _reading_length(body: list[str]) -> int:
    """The characters of the box's text before its first code block, without spaces and ``code`` marks."""
    text = []
    for line in body:
        if line.strip().startswith(".. code-block::"):
            break
        if not line.strip().startswith(":"):
            text.append(line)
    return len(re.sub(r"\s", "", "".join(text).replace("``", "")))


def _fix_lines(body: list[str]) -> list[str] | None:
    """The non-blank lines of the first ``code-block`` in the admonition's body, or None."""
    for number, line in enumerate(body):
        if line.strip().startswith(".. code-block::"):
            indent = len(line) - len(line.lstrip())
            code = []
            for inner in body[number + 1 :]:
                if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                    break
                code.append(inner)
            shown = [inner for inner in code if inner.strip() and not inner.strip().startswith(":")]
            return [_normal(inner) for inner in shown]
    return None


def page_problems(script: Path, lang: str, shown: str) -> list[str]:
    """What keeps one question page from answering first, as "file: ..." messages."""
    title = pick(TITLES, lang, "the answer box's title (sitetools/rules/answer_box.py, TITLES)")
    page_blocks = blocks(script)
    if not page_blocks or page_blocks[0][0] != "text":
        return [f"{shown}: no docstring to hold the answer {GUIDE}"]
    found = _box(_after_title(page_blocks[0][1]))
    if isinstance(found, str):
        return [f"{shown}: the answer box is not first: {found}; open with '.. admonition:: {title}' "
                f"and ':class: {CLASS}' {GUIDE}"]
    box_title, options, body = found
    problems = []
    if box_title != title:
        problems.append(f"{shown}: the first box is titled {box_title!r}, not {title!r} {GUIDE}")
    if f":class: {CLASS}" not in options:
        problems.append(f"{shown}: the answer box lacks ':class: {CLASS}' {GUIDE}")
    read = _reading_length(body)
    budget = pick(BUDGET, lang, "the answer box's budget (sitetools/rules/answer_box.py, BUDGET)")
    if read > budget:
        problems.append(f"{shown}: the answer box's text before its code is {read} characters, over the "
                        f"{budget} an answer box holds: one sentence of cause, one of fix; move the "
                        f"exceptions to the page's body {GUIDE}")
    fix = _fix_lines(body)
    if not fix:
        return [*problems, f"{shown}: the answer box has no code block with the fix {GUIDE}"]
    lines = _visible_lines(script)
    run = {line.text for line in lines}
    problems += [f"{shown}: the answer's fix line {line!r} is not a line of the page's visible code {GUIDE}"
                 for line in fix if line not in run]
    checked = {line.text for line in lines if line.checked}
    problems += [f"{shown}: the answer's fix line {line!r} runs on the page only where it fails (inside a `try` "
                 f"that catches it) or with no visible `assert` after it in its cell: the box must show a line "
                 f"whose effect the page checks {GUIDE}" for line in fix if line in run and line not in checked]
    return problems


class _Line:
    """A visible line of a page's code: its text (whitespace normalised, no comment), and whether the page
    checks what it did (it is not in a ``try`` body that catches, and a visible assert follows it)."""

    def __init__(self, text: str, checked: bool):
        self.text, self.checked = text, checked


def _visible_lines(script: Path) -> list[_Line]:
    cells = [split_hidden(cell) for cell in code_cells(script)]
    trees = [syntax.parse(cell) for cell, _ in cells]
    asserts = [sorted(node.lineno for node in syntax.walk(tree) if isinstance(node, ast.Assert) and node.lineno not in
                      hidden) for tree, (_, hidden) in zip(trees, cells, strict=True)]  # fmt: skip
    found = []
    for index, ((visible, _), tree) in enumerate(zip(cells, trees, strict=True)):
        failing = {line for node in syntax.walk(tree) if isinstance(node, ast.Try) and node.handlers
                   for statement in node.body for line in range(statement.lineno, statement.end_lineno + 1)}
        inner: dict[int, ast.stmt] = {}  # line -> the innermost statement holding it
        defined: set[int] = set()  # lines of a function or class definition (they run when called)
        statements = sorted((node for node in syntax.walk(tree) if isinstance(node, ast.stmt)),
                            key=lambda node: node.lineno - node.end_lineno)  # fmt: skip
        for node in statements:  # the widest first, so that the innermost statement of a line is set last
            span = range(node.lineno, node.end_lineno + 1)
            inner.update(dict.fromkeys(span, node))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.update(span)
        later = any(asserts[index + 1 :])
        for number, text in _numbered_code_lines(visible).items():
            if number in inner:
                after = any(check > inner[number].end_lineno for check in asserts[index])
                found.append(_Line(text, (after or (number in defined and later)) and number not in failing))
    return found


def check_answers(lang: str, root: Path) -> list[str]:
    """The rule over every question page of one edition."""
    return [
        problem
        for script in gallery_scripts(lang, root / "gallery")
        if script.parent.name == PART
        for problem in page_problems(script, lang, script.relative_to(root).as_posix())
    ]
