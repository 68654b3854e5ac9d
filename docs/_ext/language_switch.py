"""Link every page to the same page in the other language editions.

Each edition is its own Sphinx build, side by side under one output root
(``<root>/en/...``, ``<root>/zh_CN/...``), and every edition has the same page names. So the
counterpart of ``<root>/en/<page>.html`` is ``<root>/zh_CN/<page>.html``. This extension gives the
templates a ``language_links`` list (used by ``_templates/language-switch.html``) and adds
``<link rel="alternate" hreflang>`` tags for every edition plus an ``x-default`` to the landing page.
"""

import posixpath
from html import escape

from sphinx.application import Sphinx

#: Edition directory -> (BCP 47 tag, the language's own name for itself).
EDITIONS = {
    "en": ("en", "English"),
    "zh_CN": ("zh-CN", "简体中文"),
}


def _links(app: Sphinx, pagename: str, context: dict) -> None:
    # Relative path from this page to the root of its own edition, then one level up.
    root = context["pathto"]("", 1)
    outer = posixpath.normpath(posixpath.join(root, "..")) + "/"
    page = app.builder.get_target_uri(pagename)
    links = [
        {
            "edition": edition,
            "tag": tag,
            "name": name,
            "href": f"{outer}{edition}/{page}",
            "current": edition == app.config.language,
        }
        for edition, (tag, name) in EDITIONS.items()
    ]
    context["language_links"] = links
    tags = [
        f'<link rel="alternate" hreflang="{link["tag"]}" href="{escape(link["href"])}">'
        for link in links
    ]
    tags.append(f'<link rel="alternate" hreflang="x-default" href="{outer}index.html">')
    context["metatags"] = context.get("metatags", "") + "\n".join(tags) + "\n"


def _page_context(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    if app.config.language not in EDITIONS:
        raise ValueError(f"language {app.config.language!r} has no edition in {EDITIONS}")
    _links(app, pagename, context)


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
