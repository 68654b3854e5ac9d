"""Figures on example pages: reproducible SVG files, with alt text and a caption in the page's language.

The pictures are drawn by the page's own code (its helper cell, ``sitetools/authoring/figure_cell.py``), so
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

The helper cell itself is harness, not teaching: every drawing page carries the same ~120 lines of
matplotlib so that its download runs on its own. :func:`fold_helpers` folds that code block on the
rendered page into a ``<details>`` element whose ``<summary>`` ("Drawing helpers (click to show)")
is in the page's language. The block is recognised by its text (the cell ``tests/test_figures.py``
keeps identical to ``sitetools/authoring/figure_cell.py``), so no page needs extra markup and the downloaded
``.py`` and ``.ipynb`` keep the code as it is. A page with pictures whose helper block is not found
fails the build. The folded block is highlighted as Python under a name of its own
(:data:`HELPERS_LANGUAGE`), so sphinx-gallery's code links, which rewrite every token of a Python
block into a node of its own, pass it by: the helpers are about 40 % of the site's code lines, and
a link from ``plt.subplots`` in folded harness serves no reader.
"""

from html import escape

import matplotlib
from docutils import nodes
from docutils.parsers.rst import Directive, directives
from pygments.lexers.python import PythonLexer
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx_gallery.directives import imgsgnode
from sphinx_gallery.scrapers import matplotlib_scraper

from editions import pick
from tensorcopy_sphinx.inline import stylesheet

logger = logging.getLogger(__name__)

#: The SVG settings that make a picture small and the same on every build.
SVG_RC = {"svg.fonttype": "none", "svg.hashsalt": "tensorcopy", "svg.id": None}
SVG_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}


def svg_scraper(block, block_vars, gallery_conf) -> str:
    """sphinx-gallery's matplotlib scraper, saving reproducible SVG files."""
    with matplotlib.rc_context(SVG_RC):
        return matplotlib_scraper(block, block_vars, gallery_conf, format="svg", metadata=SVG_METADATA)


#: The summary line of the folded helper code, per edition.
HELPERS_SUMMARY = {"en": "Drawing helpers (click to show)", "zh_CN": "画图用的辅助函数（点击展开）"}
#: How the helper cell's code block begins, and a line only that cell has.
HELPERS_START, HELPERS_MARK = "import matplotlib.pyplot as plt", "def draw_memory("
HELPERS_LANGUAGE = "python-helpers"  # a Python lexer under a name sphinx-gallery's code links do not take


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
    for number, caption in enumerate(list(doctree.findall(figure_caption)), start=1):
        image = _next_picture(caption)
        if image is None:
            problems.append("a figure-caption is not followed by a picture its cell draws")
            caption.parent.remove(caption)
            continue
        image["alt"] = escape(caption["alt"], quote=True)  # sphinx-gallery writes the alt attribute unescaped
        figure = nodes.figure(classes=["tc-figure"])
        image.replace_self(figure)
        figure += image
        # Sphinx wants an id on every captioned figure; a readable one that a new heading cannot shift
        figure_id = f"figure-{number}"
        if figure_id in doctree.ids:
            raise ValueError(f"two elements of one page want the id {figure_id}")
        figure["ids"].append(figure_id)
        doctree.ids[figure_id] = figure
        paragraphs = list(caption.findall(nodes.paragraph))
        figure += nodes.caption("", "", *[child.deepcopy() for p in paragraphs[:1] for child in p.children])
        for extra in paragraphs[1:]:
            figure += nodes.legend("", extra.deepcopy())
        caption.parent.remove(caption)
    for image in doctree.findall(imgsgnode):
        if not isinstance(image.parent, nodes.figure):
            problems.append(f"the picture {image['uri']} has no figure-caption in the text of the cell that draws it")
    return problems


class folded_code(nodes.General, nodes.Element):
    """A code block shown on demand: ``<details><summary>…</summary>`` around it."""


def helpers_summary(language: str) -> str:
    return pick(HELPERS_SUMMARY, language, "the folded drawing helpers' summary (gallery_figures.HELPERS_SUMMARY)")


def fold_helpers(doctree: nodes.document, summary: str) -> list[str]:
    """Fold the drawing helpers' code block; return a problem if the page draws but has no such block."""
    blocks = [block for block in doctree.findall(nodes.literal_block)
              if block.astext().startswith(HELPERS_START) and HELPERS_MARK in block.astext()]  # fmt: skip
    for block in blocks:
        block["language"] = HELPERS_LANGUAGE
        folded = folded_code(summary=summary)
        block.replace_self(folded)
        folded += block
    if not blocks and any(doctree.findall(imgsgnode)):
        return ["the page draws pictures, but no code block of the drawing helpers was found to fold"]
    return []


def visit_folded_code(self, node: folded_code) -> None:
    self.body.append(f'<details class="tc-helpers"><summary>{escape(node["summary"])}</summary>\n')


def depart_folded_code(self, node: folded_code) -> None:
    self.body.append("</details>\n")


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    problems = attach_captions(doctree) + fold_helpers(doctree, helpers_summary(app.config.language))
    for problem in problems:
        logger.warning("%s (see CONTRIBUTING.md, Figures)", problem, location=doctree["source"])


def setup(app: Sphinx) -> dict:
    app.add_node(figure_caption)
    app.add_node(folded_code, html=(visit_folded_code, depart_folded_code))
    app.add_directive("figure-caption", FigureCaption)
    app.add_lexer(HELPERS_LANGUAGE, PythonLexer)
    app.connect("doctree-read", _doctree_read)
    stylesheet(app, "gallery-figures.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
