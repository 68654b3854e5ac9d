"""Make sphinx-gallery's gallery index pages valid HTML.

Its thumbnail cards carry a ``tooltip="..."`` attribute, which is not HTML (the Nu checker rejects
it). This extension renames it to ``data-tooltip`` in the generated reST. The card's link text, which
sphinx-gallery hides with ``display: none`` (so screen readers get a nameless link), is made
visually hidden but readable in ``_static/site.css``.
"""

import re

from sphinx.application import Sphinx

_TOOLTIP = re.compile(r'(<div class="sphx-glr-thumbcontainer"[^>]*?) tooltip="')


def _source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    source[0] = _TOOLTIP.sub(r'\1 data-tooltip="', source[0])


def setup(app: Sphinx) -> dict:
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
