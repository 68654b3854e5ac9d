"""Make sphinx-gallery's gallery index pages valid HTML.

Its thumbnail cards carry a ``tooltip="..."`` attribute, which is not HTML (the Nu checker rejects
it). This extension renames it to ``data-tooltip`` in the generated reST, with the reST markup that
sphinx-gallery leaves in it removed (its clean-up misses a literal right after punctuation, as in
"（``grad_fn``" or "``a``、``b``", so the hover text showed backquotes), and keeps the
``sg-tag-list`` id, which the index repeats once per part, on its first use only. The card's link text, which
sphinx-gallery hides with ``display: none`` (so screen readers get a nameless link), is made
visually hidden but readable in ``_static/site.css``.
"""

import re

from sphinx.application import Sphinx

_TOOLTIP = re.compile(r'(<div class="sphx-glr-thumbcontainer"[^>]*?) tooltip="([^"]*)"')
#: reST inline markup in a tooltip (HTML-escaped), each with the words a reader sees: ``code``,
#: :role:`words <target>` or `words <url>`__, :role:`words`, `words`_.
_MARKUP = (
    (re.compile(r"``(.+?)``"), r"\1"),
    (re.compile(r"(?::[\w.:+-]+:)?`([^`]*?)\s*&lt;[^`]*&gt;`_{0,2}"), r"\1"),
    (re.compile(r":[\w.:+-]+:`~?([^`]*)`"), r"\1"),
    (re.compile(r"`([^`]+)`_{0,2}"), r"\1"),
)


def plain_tooltip(text: str) -> str:
    """A card's tooltip as a reader should see it: the words of its inline markup, without the markup.
    A question page's card shows its answer box's text (sphinx-gallery takes the first paragraph after
    the title), which ends by leading into the fix's code: the tooltip keeps the sentences before that
    lead-in, the cause."""
    for pattern, words in _MARKUP:
        text = pattern.sub(words, text)
    text = text.strip()
    if text.endswith((":", "：")):
        cut = max(text.rfind(". "), text.rfind("。"))
        text = text[: cut + 1] if cut > 0 else text
    return text


_TAG_LIST = "<div id='sg-tag-list' class='sphx-glr-tag-list'></div>"


def _one_tag_list(text: str) -> str:
    """Keep the id on the first tag-list div only: a gallery index repeats it once per part."""
    first = text.find(_TAG_LIST)
    if first < 0:
        return text
    end = first + len(_TAG_LIST)
    return text[:end] + text[end:].replace(_TAG_LIST, "<div class='sphx-glr-tag-list'></div>")


def _source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    tooltips = _TOOLTIP.sub(lambda match: f'{match.group(1)} data-tooltip="{plain_tooltip(match.group(2))}"', source[0])
    source[0] = _one_tag_list(tooltips)


def setup(app: Sphinx) -> dict:
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
