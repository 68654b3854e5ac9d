"""Link every page to the same page in the other language editions.

Each edition is its own Sphinx build, side by side under one output root
(``<root>/en/...``, ``<root>/zh_CN/...``), and every edition has the same page names. So the
counterpart of ``<root>/en/<page>.html`` is ``<root>/zh_CN/<page>.html``. This extension gives the
templates a ``language_links`` list (used by ``_templates/language-switch.html``) and adds
``<link rel="alternate" hreflang>`` tags for every edition plus an ``x-default`` to the landing page;
those are absolute when the site's base URL is configured (``SITE_URL``, see ``sitetools.web``),
since search engines ignore relative alternates.
The editions, their tags and their names come from the table in ``editions``; a build whose
language is not a row of it fails.
"""

import posixpath
from html import escape

from sphinx.application import Sphinx

import editions


def _links(app: Sphinx, pagename: str, context: dict) -> None:
    # Relative path from this page to the root of its own edition, then one level up.
    root = context["pathto"]("", 1)
    outer = posixpath.normpath(posixpath.join(root, "..")) + "/"
    page = app.builder.get_target_uri(pagename)
    current = editions.edition(app.config.language).code
    links = [
        {
            "edition": row.code,
            "tag": row.tag,
            "name": row.name,
            "noun": row.noun,
            "href": f"{outer}{row.code}/{page}",
            "current": row.code == current,
        }
        for row in editions.EDITIONS
    ]
    context["language_links"] = links
    base = getattr(app.config, "tensorcopy_site_url", "")  # absolute alternates when published
    hrefs = [base + link["edition"] + "/" + page if base else link["href"] for link in links]
    tags = [f'<link rel="alternate" hreflang="{link["tag"]}" href="{escape(href)}">'
            for link, href in zip(links, hrefs, strict=True)]
    tags.append(f'<link rel="alternate" hreflang="x-default" href="{escape(base or outer + "index.html")}">')
    context["metatags"] = context.get("metatags", "") + "\n".join(tags) + "\n"


def _page_context(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    _links(app, pagename, context)  # an unknown language raises editions.UnknownEdition


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
