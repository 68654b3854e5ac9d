"""The colon after a field name, in the edition's own punctuation.

Docutils' HTML writer ends every field name of a field list with ``<span class="colon">:</span>``
(the facts page lists four fields for each fact: 本次构建, 检查的内容, 范围, 引用它的页面), so a
Chinese page read "本次构建:". In every edition whose row in ``editions`` is marked
``cjk``, this extension makes that colon the full-width "：" as the writer writes it; the other
editions keep docutils' own. If docutils stops writing the colon this way, the build fails here
rather than let an ASCII colon through unnoticed.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.writers.html5 import HTML5Translator

from editions import edition

#: What docutils writes after a field name, and what a ``cjk`` edition writes instead.
ASCII_COLON = '<span class="colon">:</span>'
FULL_WIDTH_COLON = '<span class="colon">：</span>'


def visit_field_name(self: HTML5Translator, node: nodes.field_name) -> None:
    HTML5Translator.visit_field_name(self, node)


def depart_field_name(self: HTML5Translator, node: nodes.field_name) -> None:
    HTML5Translator.depart_field_name(self, node)
    if not edition(self.config.language).cjk:
        return
    written = self.body[-1]
    if ASCII_COLON not in written:
        raise ExtensionError(f"tensorcopy_sphinx.field_colons: docutils no longer ends a field name with "
                             f"{ASCII_COLON!r} (it wrote {written!r}); update this extension")
    self.body[-1] = written.replace(ASCII_COLON, FULL_WIDTH_COLON)


def setup(app: Sphinx) -> dict:
    app.add_node(nodes.field_name, override=True, html=(visit_field_name, depart_field_name))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
