"""A docutils helper shared by the directives (not an extension): inline code in plain text."""

from __future__ import annotations

import re

from docutils import nodes

#: A code span: text between two backquotes, neither of them escaped.
_CODE = re.compile(r"(?<!\\)`([^`]+)(?<!\\)`")
#: A backquote of the text itself (a quoted torch message has some), never the edge of a code span.
ESCAPED_BACKQUOTE = "\\`"


def inline_text(text: str) -> list[nodes.Node]:
    """Text with `backticked` spans turned into literal nodes; an escaped backquote (a backslash before it) stays a
    backquote of the text."""
    parts: list[nodes.Node] = []
    for index, piece in enumerate(_CODE.split(text)):
        if not piece:
            continue
        piece = piece.replace(ESCAPED_BACKQUOTE, "`")
        parts.append(nodes.literal(piece, piece) if index % 2 else nodes.Text(piece))
    return parts


def stylesheet(app, filename: str) -> None:
    """Publish ``static/<filename>`` (beside this module) and link it from every page."""
    from pathlib import Path

    static = str(Path(__file__).resolve().parent / "static")

    def add_static(app, config) -> None:
        if static not in config.html_static_path:
            config.html_static_path.append(static)

    app.connect("config-inited", add_static)
    app.add_css_file(filename)
