"""Every question page answers first: a reader who arrives from a search with a symptom finds the cause
and the fix on the first screen, before the experiment that proves it.

The rule (run with the other page rules, :mod:`sitetools.page_rules`): the first docstring of every page
under ``questions/`` holds, right after its title and before anything else, an admonition titled
"Answer" in the page's language (:data:`TITLES`) with ``:class: answer``, whose code block shows the
fix; every non-blank line of that block (whitespace normalised) is a line of the page's visible code,
so the fix shown is one the page runs.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from sitetools.editions import pick
from sitetools.pages import blocks, code_cells, gallery_scripts, guide, split_hidden

PART = "questions"
CLASS = "answer"
#: The admonition's title in each edition.
TITLES = {"en": "Answer", "zh_CN": "答案"}
GUIDE = guide("Question pages answer first")

_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")


def _normal(line: str) -> str:
    return " ".join(line.split())


def _code_lines(code: str) -> set[str]:
    """The lines of some Python code, whitespace normalised and trailing comments dropped (a comment is
    text, translated in each edition, so the box shows the code without it)."""
    lines = code.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    return {_normal(line) for line in lines if line.strip()}


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
    title = pick(TITLES, lang, "the answer box's title (sitetools/answer_box.py, TITLES)")
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
    fix = _fix_lines(body)
    if not fix:
        return [*problems, f"{shown}: the answer box has no code block with the fix {GUIDE}"]
    run = {line for cell in code_cells(script) for line in _code_lines(split_hidden(cell)[0])}
    problems += [f"{shown}: the answer's fix line {line!r} is not a line of the page's visible code {GUIDE}"
                 for line in fix if line not in run]
    return problems


def check_answers(lang: str, root: Path) -> list[str]:
    """The rule over every question page of one edition."""
    return [
        problem
        for script in gallery_scripts(lang, root / "gallery")
        if script.parent.name == PART
        for problem in page_problems(script, lang, script.relative_to(root).as_posix())
    ]
