"""Open in Colab: a link on every example page to its notebook, when the site's repository is known.

The link goes under the page's verified-on stamp and opens, in Colab, the notebook the deploy workflow
publishes for this page in this edition (``sitetools.web.colab``: the ``notebooks`` branch of
``SITE_REPOSITORY``). Without a repository there is no link. Colab has torch and matplotlib, so the
notebook installs nothing; its first cell (the stamp) names the torch it was verified on.
"""

from html import escape

from docutils import nodes
from sphinx.application import Sphinx

from editions import edition
from sitetools.for_sphinx import colab
from tensorcopy_sphinx.theme_i18n import translated
from tensorcopy_sphinx.verified_stamp import STAMP_CLASS, _example_name

LINK_CLASS = "colab-link"
TEXT = "Open this page as a notebook in Colab"


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    slug = app.config.tensorcopy_colab_repository
    name = _example_name(app, app.env.docname)
    if not slug or name is None:
        return
    url = colab.colab_url(slug, edition(app.config.language).code, name)
    html = f'<p class="{LINK_CLASS}"><a href="{escape(url)}">{escape(translated(app, TEXT))}</a></p>\n'
    section = doctree.next_node(nodes.section)
    stamps = [i for i, node in enumerate(section.children)
              if isinstance(node, nodes.raw) and STAMP_CLASS in node.astext()]  # fmt: skip
    section.insert(stamps[0] + 1 if stamps else 1, nodes.raw("", html, format="html"))


def setup(app: Sphinx) -> dict:
    app.setup_extension("tensorcopy_sphinx.verified_stamp")
    app.add_config_value("tensorcopy_colab_repository", "", "html", types=frozenset({str}))
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
