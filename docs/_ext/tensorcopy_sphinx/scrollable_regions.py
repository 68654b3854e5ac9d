"""Let keyboard users scroll the code blocks and tables that are wider than the page.

A long code line makes a ``<pre>`` scroll sideways, and so does a wide table inside furo's
``table-wrapper``. A region that scrolls must be reachable with the keyboard (WCAG 2.1.1, axe-core
rule ``scrollable-region-focusable``). Whether a block overflows depends on the reader's screen, so
every highlighted block and every table wrapper gets ``tabindex="0"``.
"""

from sphinx.application import Sphinx

_FOCUSABLE = {
    '<div class="highlight"><pre>': '<div class="highlight"><pre tabindex="0">',
    '<div class="table-wrapper ': '<div tabindex="0" class="table-wrapper ',
}


def _page_context(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    body = context.get("body")
    if body:
        for plain, focusable in _FOCUSABLE.items():
            body = body.replace(plain, focusable)
        context["body"] = body


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
