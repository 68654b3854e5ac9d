"""Syntax trees and sphinx-gallery's blocks of a script, read by many rules, made once.

The page rules read each script's syntax tree a dozen times over (what it prints, its checks, its hidden
blocks, its labels, its figures ...). :func:`parse` parses a source text once and :func:`walk` lists a
tree's nodes once; both hand the same objects to every reader, so a reader must never change a tree it
got from them (code that rewrites a tree parses its own with :func:`ast.parse`).
"""

from __future__ import annotations

import ast
import functools
import os
import re
import tempfile
from collections.abc import Iterable

_NODES = "_tensorcopy_nodes"


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """:func:`ast.parse`, once per source text and mode (a source that does not parse raises each time,
    naming ``filename``)."""
    try:
        return _parsed(source, mode)
    except SyntaxError:
        return ast.parse(source, filename, mode)  # raises again, naming the file


@functools.lru_cache(maxsize=2048)
def _parsed(source: str, mode: str) -> ast.AST:
    return ast.parse(source, mode=mode)


def walk(node: ast.AST) -> tuple[ast.AST, ...]:
    """Every node under ``node`` (itself included), in :func:`ast.walk`'s order, listed once per node."""
    nodes = node.__dict__.get(_NODES)
    if nodes is None:
        nodes = tuple(ast.walk(node))
        setattr(node, _NODES, nodes)
    return nodes


_BLOCKS: dict[str, tuple] = {}


def gallery_blocks(source: str, path: str | None = None) -> tuple:
    """sphinx-gallery's split of a script's text, kept by content alone (the rules and the build read each page
    often, and the tests check copies of the same texts at other paths; the blocks hold no path). ``path`` is the
    file that holds ``source``, read in place so that an error names it (a text that fails is never kept);
    without one (a text from another revision) the text is parsed from a temporary file."""
    found = _BLOCKS.get(source)
    if found is None:
        if len(_BLOCKS) >= 1024:
            _BLOCKS.clear()
        found = _BLOCKS[source] = _split(source, path)
    return found


def _split(source: str, path: str | None) -> tuple:
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    if path is not None:
        return tuple(split_code_and_text_blocks(path)[1])
    with tempfile.NamedTemporaryFile("w", suffix=".py", encoding="utf-8", delete=False) as handle:
        handle.write(source)
    try:
        _, script_blocks = split_code_and_text_blocks(handle.name)
    finally:
        os.unlink(handle.name)
    return tuple(script_blocks)


def marker_problems(script_blocks) -> Iterable[tuple[int, str]]:
    """``(line, problem)`` for each hidden-block marker sphinx-gallery would misread or refuse: a marker inside a
    text cell (a start marker right under a text cell's comment lines is read as text) and a code cell whose
    start and end markers do not pair up (sphinx-gallery's own ``remove_ignore_blocks`` stops the build)."""
    from sphinx.errors import ExtensionError
    from sphinx_gallery.py_source_parser import remove_ignore_blocks

    for kind, content, first in script_blocks:
        if kind == "text":
            for offset, line in enumerate(content.splitlines()):
                if re.fullmatch(r"\s*(#\s*)?sphinx_gallery_(start|end)_ignore\s*", line):
                    yield first + offset, ("a hidden-block marker inside a text cell, which sphinx-gallery reads as "
                                           "text; put a blank line between the text cell's last comment line and "
                                           "the marker")
            continue
        try:
            remove_ignore_blocks(content)
        except ExtensionError:
            starts, ends = (len(re.findall(rf"^\s*# sphinx_gallery_{which}_ignore\s*$", content, re.M))
                            for which in ("start", "end"))
            yield first, (f"the code cell starting here has {starts} start and {ends} end markers of hidden "
                          f"blocks; each hidden block needs both")
