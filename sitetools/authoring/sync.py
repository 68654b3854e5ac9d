"""Make a page's code cells identical in every edition, keeping each edition's own words:

    python -m sitetools.authoring.sync PART/plot_NN_name [--from en]

The code cells of the ``--from`` edition (default: the first of :mod:`editions`) are copied
into the same page of every other edition, while each of those keeps its own text cells, docstring and
code comments (a comment line, or a comment at the end of a code line, is matched to the one in the
same place among the comments of its cell). Where a cell's comments cannot be matched (the two
editions have a different number of them), that cell takes the source's comments and the command
says so: translate them. The command refuses, and writes nothing, when the two pages do not have the
same cells in the same order (text, code, text ...): it cannot know which text belongs to which code.
A page still exactly as ``python -m sitetools.authoring.new_page`` wrote it has no words of its own yet: it takes the
source page whole, text included, to be translated.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from pathlib import Path

from editions import CODES
from sitetools.authoring.new_page import label_of, page_text
from sitetools.rules.sources import GALLERY, code_tokens, guide
from sitetools.rules.syntax import gallery_blocks

#: A cell separator, as sphinx-gallery reads one.
SEPARATOR = re.compile(r"^# %%")
#: Comment lines that are not words to translate: sphinx-gallery's markers and settings, tool pragmas.
PRAGMA = re.compile(r"^\s*# (sphinx_gallery_|fmt: |noqa|type: )")


class SyncError(Exception):
    """The pages cannot be synced safely; nothing was written."""


def segments(source: str) -> list[tuple[str, list[str]]]:
    """The script's lines as ``(kind, lines)`` runs: the docstring and each ``# %%`` marker with the
    comment lines right after it are "text", everything between is "code" (as sphinx-gallery splits)."""
    lines = source.splitlines(keepends=True)
    body = ast.parse(source).body
    start = 0
    result: list[tuple[str, list[str]]] = []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        start = body[0].end_lineno
        result.append(("text", lines[:start]))
    index = start
    while index < len(lines):
        if SEPARATOR.match(lines[index]):
            end = index + 1
            while end < len(lines) and lines[end].lstrip().startswith("#") and not SEPARATOR.match(lines[end]):
                end += 1
            result.append(("text", lines[index:end]))
        else:
            end = index
            while end < len(lines) and not SEPARATOR.match(lines[end]):
                end += 1
            result.append(("code", lines[index:end]))
        index = end
    return result


def _comment_lines(cell: list[str]) -> list[int]:
    return [i for i, line in enumerate(cell) if line.lstrip().startswith("#") and not PRAGMA.match(line)]


def _trailing_comments(cell: list[str]) -> dict[int, tuple[int, str]]:
    """Line index -> (column, text) of each comment that ends a line of code (pragmas excluded)."""
    found = {}
    tokens = tokenize.generate_tokens(io.StringIO("".join(cell)).readline)
    for token in tokens:
        line, column = token.start
        if token.type == tokenize.COMMENT and cell[line - 1][:column].strip() and not PRAGMA.match(token.string):
            found[line - 1] = (column, token.string)
    return found


def merge_code(source: list[str], target: list[str]) -> tuple[list[str], list[str]]:
    """The source's code with the target's comments where they can be matched; and what could not."""
    merged, notes = list(source), []
    ours, theirs = _comment_lines(source), _comment_lines(target)
    if len(ours) == len(theirs):
        for i, j in zip(ours, theirs, strict=True):
            indent = source[i][: len(source[i]) - len(source[i].lstrip())]
            merged[i] = indent + target[j].lstrip()
    else:
        notes.append(f"{len(ours)} comment line(s) against {len(theirs)}: the source's comments were kept")
    ours_t, theirs_t = _trailing_comments(source), _trailing_comments(target)
    if len(ours_t) == len(theirs_t):
        for i, (_, text) in zip(ours_t, theirs_t.values(), strict=True):
            column = ours_t[i][0]
            merged[i] = merged[i][:column] + text + ("\n" if merged[i].endswith("\n") else "")
    else:
        notes.append(f"{len(ours_t)} end-of-line comment(s) against {len(theirs_t)}: the source's were kept")
    return merged, notes


def sync_text(source: str, target: str, where: str = "the page") -> tuple[str, list[str]]:
    """The target page with the source's code cells; and notes on cells whose comments were not matched."""
    ours, theirs = segments(source), segments(target)
    kinds_ours, kinds_theirs = [k for k, _ in ours], [k for k, _ in theirs]
    if kinds_ours != kinds_theirs:
        raise SyncError(
            f"{where}: the cells differ ({kinds_theirs.count('code')} code and {kinds_theirs.count('text')} text "
            f"cells against {kinds_ours.count('code')} and {kinds_ours.count('text')}, or in another order); "
            f"give both pages the same cells (`# %%` separators) first {guide('Pages in every edition')}"
        )
    pieces, notes, number = [], [], 0
    for (kind, mine), (_, other) in zip(ours, theirs, strict=True):
        if kind == "text":
            pieces += other
            continue
        number += 1
        merged, cell_notes = merge_code(mine, other)
        pieces += merged
        notes += [f"{where}: code cell {number}: {note}; translate them" for note in cell_notes]
    return "".join(pieces), notes


def _same_code(a: str, b: str) -> bool:
    """Whether two scripts' code cells are identical token for token, as the page rules compare them."""
    return [code_tokens(c) for kind, c, _ in gallery_blocks(a) if kind == "code"] == [
        code_tokens(c) for kind, c, _ in gallery_blocks(b) if kind == "code"
    ]


def sync(name: str, source_lang: str = CODES[0], gallery: Path = GALLERY) -> list[str]:
    """Sync page ``name`` from ``source_lang`` into every other edition; return what was done."""
    source_path = gallery / source_lang / f"{name}.py"
    if not source_path.exists():
        raise SyncError(f"no page gallery/{source_lang}/{name}.py: give PART/plot_NN_name, for example "
                        "copying/plot_04_detach")
    source = source_path.read_text(encoding="utf-8")
    written, report = {}, []
    for lang in CODES:
        path = gallery / lang / f"{name}.py"
        if lang == source_lang:
            continue
        if not path.exists():
            raise SyncError(f"no page gallery/{lang}/{name}.py: copy gallery/{source_lang}/{name}.py there first, "
                            "then translate its text")
        target = path.read_text(encoding="utf-8")
        if target == page_text(label_of(name), name.split("/")[0], lang) != source:  # still the template
            written[path] = source
            report.append(f"gallery/{lang}/{name}.py: was the template; now the whole page of {source_lang}: "
                          "translate its text")
            continue
        result, notes = sync_text(source, target, f"gallery/{lang}/{name}.py")
        if not _same_code(source, result):  # a safety net: never write a page whose code still differs
            raise SyncError(f"gallery/{lang}/{name}.py: the synced code would still differ; nothing was written")
        written[path] = result
        report += notes
        report.append(f"gallery/{lang}/{name}.py: " + ("unchanged" if result == target else "code cells synced"))
    for path, text in written.items():
        path.write_text(text, encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="PART/plot_NN_name, for example copying/plot_04_detach")
    parser.add_argument("--from", dest="source", default=CODES[0], choices=CODES,
                        help="the edition whose code is copied (default %(default)s)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        report = sync(args.name.removesuffix(".py"), args.source)
    except SyncError as error:
        print(f"sync: {error}", file=sys.stderr)
        return 2
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
