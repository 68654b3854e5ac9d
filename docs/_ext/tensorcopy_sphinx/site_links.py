"""The page head as the web sees it: canonical link, ``og:url``, social tags and a favicon.

The base URL is the ``SITE_URL`` environment variable, read once by ``docs/_shared/conf.py`` through
``sitetools.web`` into ``tensorcopy_site_url`` (and, for this edition's folder, ``html_baseurl`` and
``ogp_site_url``, from which the theme writes ``<link rel="canonical">`` and sphinxext-opengraph
writes ``og:url``). Without a base URL the site is for local reading: this extension then removes the
relative ``og:url`` sphinxext-opengraph would write, so that no page carries a placeholder address.
It also marks the 404 page as not to be indexed.

When a repository is configured (``SITE_REPOSITORY``, a GitHub repository's address, and
``SITE_BRANCH``, default ``main``), every page's footer links to "edit this page" (its source file:
the gallery script or the narrative page) and "report a problem" (a new issue naming the page).
Without one there are no such links at all.
"""

import re
from pathlib import Path
from urllib.parse import urlencode

from sphinx.application import Sphinx

from sitetools.for_sphinx import web

_OG_URL = re.compile(r'<meta property="og:url" content="[^"]*" */?>\n?')
_ALTERNATE = re.compile(r'<link rel="alternate" hreflang="[^"]*" href="[^"]*">\n?')


def _not_found_links(app: Sphinx, context: dict) -> str:
    """The 404 page is served at any depth: its language switch and alternates use absolute paths
    (absolute URLs when the site's address is known). Returns the alternates."""
    base = app.config.tensorcopy_site_url
    prefix = web.site_path(base)
    root = base or prefix
    tags = []
    for link in context.get("language_links", []):
        link["href"] = f"{prefix}{link['edition']}/404.html"
        tags.append(f'<link rel="alternate" hreflang="{link["tag"]}" href="{root}{link["edition"]}/404.html">')
    tags.append(f'<link rel="alternate" hreflang="x-default" href="{root}">')
    return "\n".join(tags) + "\n"


def source_path(app: Sphinx, pagename: str) -> str | None:
    """The repository path of the file a page is written in (the gallery script for an example page),
    or None for a page the build generates (search, index, 404)."""
    if pagename not in app.env.found_docs:
        return None
    checkout = Path(app.srcdir).parents[1]  # docs/<code>/ lies two levels below the checkout
    gallery = app.config.sphinx_gallery_conf["gallery_dirs"][0]
    if pagename.startswith(gallery + "/"):
        examples = Path(app.config.sphinx_gallery_conf["examples_dirs"][0])
        name = pagename.removeprefix(gallery + "/")
        if name == "index" or name.endswith("/index"):
            source = examples / name.removesuffix("index") / "GALLERY_HEADER.rst"
        else:
            source = examples / f"{name}.py"
    else:
        source = Path(app.env.doc2path(pagename))
    return source.resolve().relative_to(checkout.resolve()).as_posix() if source.is_file() else None


def source_links(app: Sphinx, pagename: str, title: str) -> list[dict]:
    """The "edit this page" and "report a problem" links of a page; none without a repository."""
    repository = app.config.tensorcopy_repository.rstrip("/")
    if not repository:
        return []
    gettext = app.translator.gettext
    links = []
    path = source_path(app, pagename)
    if path:
        links.append({"href": f"{repository}/edit/{app.config.tensorcopy_branch}/{path}",
                      "text": gettext("Edit this page"), "rel": "edit"})  # fmt: skip
    where = path or f"{app.config.language}/{pagename}"
    query = urlencode({"title": f"{where}: ", "body": f"{title}\n{where}\n"})
    links.append({"href": f"{repository}/issues/new?{query}", "text": gettext("Report a problem on this page"),
                  "rel": ""})  # fmt: skip
    return links


def _page_context(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    context["source_links"] = source_links(app, pagename, re.sub(r"<[^>]+>", "", context.get("title", "")))
    metatags = context.get("metatags", "")
    if not app.config.tensorcopy_site_url:
        metatags = _OG_URL.sub("", metatags)
    if pagename == "404":
        context["title"] = app.translator.gettext("Page not found")  # sphinx-notfound-page's is English
        metatags = _ALTERNATE.sub("", metatags) + _not_found_links(app, context)
        metatags += '<meta name="robots" content="noindex">\n'
    context["metatags"] = metatags


def setup(app: Sphinx) -> dict:
    app.add_config_value("tensorcopy_site_url", "", "html", types=frozenset({str}))
    app.add_config_value("tensorcopy_repository", "", "html", types=frozenset({str}))
    app.add_config_value("tensorcopy_branch", "main", "html", types=frozenset({str}))
    app.connect("html-page-context", _page_context, priority=900)  # after sphinxext-opengraph
    return {"parallel_read_safe": True, "parallel_write_safe": True}
