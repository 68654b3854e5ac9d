"""Drop the line breaks that reST keeps inside Chinese sentences.

A source line break between two Chinese characters reaches the HTML as a newline, which the browser
shows as a space ("。 我们"). Chinese has no spaces between words, so in every edition whose row in
``sitetools.editions`` is marked ``cjk`` this extension removes a line break when both neighbours
are Chinese characters, or when either is full-width punctuation. A break between Chinese and Latin
text stays a space, which is the site's convention anyway.
"""

import re

from docutils import nodes
from sphinx.application import Sphinx

from sitetools.editions import edition

HAN = "\u3400-\u9fff"
FULL_WIDTH_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"
BREAK = re.compile(
    rf"(?<=[{HAN}])[ \t]*\n[ \t]*(?=[{HAN}])"
    rf"|(?<=[{FULL_WIDTH_PUNCTUATION}])[ \t]*\n[ \t]*"
    rf"|[ \t]*\n[ \t]*(?=[{FULL_WIDTH_PUNCTUATION}])"
)


def join_lines(text: str) -> str:
    """Remove the line breaks a Chinese reader would see as stray spaces."""
    return BREAK.sub("", text)


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    if not edition(app.config.language).cjk:
        return
    for text in list(doctree.findall(nodes.Text)):
        if isinstance(text.parent, nodes.FixedTextElement | nodes.literal):
            continue  # code and literal blocks keep their lines
        joined = join_lines(text.astext())
        if joined != text.astext():
            text.parent.replace(text, nodes.Text(joined))


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
