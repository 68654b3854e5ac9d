"""Figures on example pages: reproducible SVG files, with alt text and a caption in the page's language.

The pictures are drawn by the page's own code (its helper cell, ``sitetools/figure_cell.py``), so
their labels are code and the same in every language. What a reader of one language needs, the
alt text and the caption, lives in the page's text, in the text of the cell that draws::

    # %%
    # .. figure-caption::
    #    :alt: Diagram: names a and c point to two tensor objects that share storage S1.
    #
    #    ``a`` and ``c`` are two tensor objects on one storage.

    draw_memory("c = a.detach()", a=a, c=c)

This extension gives that caption to the first picture the cell's code draws: the image and the
caption become one ``<figure>`` and the image's alt text is ``:alt:``. A picture without a caption,
or a caption without a picture, fails the build and names the page.

:func:`svg_scraper` is the image scraper (``image_scrapers`` in ``docs/_shared/conf.py``):
sphinx-gallery's matplotlib scraper, writing SVG with text kept as text (small files) and no date,
creator or random ids, so two builds write byte-identical files.
"""

from html import escape

import matplotlib
from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx_gallery.directives import imgsgnode
from sphinx_gallery.scrapers import matplotlib_scraper

logger = logging.getLogger(__name__)

#: The SVG settings that make a picture small and the same on every build.
SVG_RC = {"svg.fonttype": "none", "svg.hashsalt": "tensorcopy", "svg.id": None}
SVG_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}


def svg_scraper(block, block_vars, gallery_conf) -> str:
    """sphinx-gallery's matplotlib scraper, saving reproducible SVG files."""
    with matplotlib.rc_context(SVG_RC):
        return matplotlib_scraper(block, block_vars, gallery_conf, format="svg", metadata=SVG_METADATA)


class figure_caption(nodes.General, nodes.Element):
    """A caption waiting for the picture its cell draws."""


class FigureCaption(Directive):
    """``.. figure-caption::`` with ``:alt:`` (required) and the caption as content."""

    has_content = True
    option_spec = {"alt": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        if not self.options.get("alt") or not self.content:
            raise self.error("figure-caption needs an :alt: text and a caption")
        node = figure_caption(alt=" ".join(self.options["alt"].split()))
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def _next_picture(caption: figure_caption) -> nodes.Node | None:
    """The first picture after ``caption`` in reading order, or ``None`` if another caption comes first."""
    for node in caption.findall(lambda n: isinstance(n, imgsgnode | figure_caption), include_self=False,
                                descend=True, siblings=True, ascend=True):  # fmt: skip
        return node if isinstance(node, imgsgnode) else None
    return None


def attach_captions(doctree: nodes.document) -> list[str]:
    """Wrap each picture and its caption in a figure; return a problem per unmatched picture or caption."""
    problems = []
    for caption in list(doctree.findall(figure_caption)):
        image = _next_picture(caption)
        if image is None:
            problems.append("a figure-caption is not followed by a picture its cell draws")
            caption.parent.remove(caption)
            continue
        image["alt"] = escape(caption["alt"], quote=True)  # sphinx-gallery writes the alt attribute unescaped
        figure = nodes.figure(classes=["tc-figure"])
        image.replace_self(figure)
        figure += image
        doctree.set_id(figure, suggested_prefix="figure")  # Sphinx wants an id on every captioned figure
        paragraphs = list(caption.findall(nodes.paragraph))
        figure += nodes.caption("", "", *[child.deepcopy() for p in paragraphs[:1] for child in p.children])
        for extra in paragraphs[1:]:
            figure += nodes.legend("", extra.deepcopy())
        caption.parent.remove(caption)
    for image in doctree.findall(imgsgnode):
        if not isinstance(image.parent, nodes.figure):
            problems.append(f"the picture {image['uri']} has no figure-caption in the text of the cell that draws it")
    return problems


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    for problem in attach_captions(doctree):
        logger.warning("%s (see CONTRIBUTING.md, Figures)", problem, location=doctree["source"])


def setup(app: Sphinx) -> dict:
    app.add_node(figure_caption)
    app.add_directive("figure-caption", FigureCaption)
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
