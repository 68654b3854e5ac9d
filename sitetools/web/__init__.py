"""The site as the web sees it: its base URL, and the files at the root of the whole site.

``SITE_URL`` (an environment variable, for example ``https://example.org/tensor-copies/``) is the one
setting that says where the site is published. With it, every page gets an absolute canonical link,
absolute ``hreflang`` alternates and ``og:url``, and the root gets a ``sitemap.xml`` of every page of
every edition with its alternates. Without it the site is built for local reading: relative links only,
and nothing that would need an absolute address (no canonical link, no ``og:url``, no sitemap).

:func:`write_root_files` runs once, after every edition is built: it writes ``sitemap.xml``,
``robots.txt``, the favicon and the bilingual ``404.html`` at the root, and gives the landing page its
absolute alternates. The editions come from :mod:`editions`.

The package holds the rest of what the site is on the web: its search index (:mod:`sitetools.web.search`),
the Lighthouse audit (:mod:`sitetools.web.audit`), the deploy workflow's command (:mod:`sitetools.web.web_build`)
and the notebooks Colab opens (:mod:`sitetools.web.colab`).
"""

from __future__ import annotations

import os
import re
import shutil
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

from editions import EDITIONS, edition
from sitetools import settings

ROOT = Path(__file__).resolve().parents[2]
LANDING = ROOT / "docs" / "_landing"
FAVICON = ROOT / "docs" / "_static" / "favicon.svg"
#: Pages of an edition that are not content: not in the sitemap, not to be indexed.
NOT_CONTENT = ("search.html", "genindex.html", "404.html")


class SiteUrlError(ValueError):
    """A ``SITE_URL`` that is not an absolute http(s) URL."""


def site_url(value: str | None = None) -> str:
    """The site's base URL with one trailing slash, or '' when none is configured (local reading)."""
    value = (settings.current().site_url if value is None else value).strip()
    if not value:
        return ""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise SiteUrlError(f"{settings.SITE_URL}={value!r} is not an absolute http(s) URL such as https://example.org/tensor-copies/")
    return value.rstrip("/") + "/"


def site_path(base: str) -> str:
    """The path part of the base URL (``/tensor-copies/``), or ``/`` for local reading at the root."""
    return urlsplit(base).path if base else "/"


def edition_url(base: str, code: str) -> str:
    """The absolute URL of an edition's folder (``https://…/zh_CN/``)."""
    return f"{base}{edition(code).code}/"


def edition_pages(site: Path, code: str) -> list[str]:
    """Every content page of an edition, as paths relative to the edition folder, sorted."""
    folder = site / code
    pages = []
    for page in sorted(folder.rglob("*.html")):
        relative = page.relative_to(folder).as_posix()
        if relative.startswith(("_", ".")) or relative in NOT_CONTENT:
            continue
        pages.append(relative)
    return pages


def sitemap(site: Path, base: str, codes: list[str]) -> str:
    """One sitemap for the whole site: every page of every edition, each with all its alternates."""
    pages = sorted({page for code in codes for page in edition_pages(site, code)})
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
             f"  <url><loc>{escape(base)}</loc></url>"]  # fmt: skip
    for page in pages:
        present = [code for code in codes if (site / code / page).exists()]
        alternates = "".join(f'\n    <xhtml:link rel="alternate" hreflang="{edition(code).tag}" '
                             f'href="{escape(edition_url(base, code) + page)}"/>' for code in present)
        for code in present:
            lines.append(f"  <url>\n    <loc>{escape(edition_url(base, code) + page)}</loc>{alternates}\n  </url>")
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


def robots(base: str) -> str:
    """robots.txt: everything may be read; the sitemap is named when the base URL is known."""
    text = "User-agent: *\nAllow: /\n"
    return text + (f"Sitemap: {base}sitemap.xml\n" if base else "")


def head_links(base: str, codes: list[str], page: str = "") -> str:
    """Canonical and hreflang links of the landing page (absolute; none without a base URL)."""
    if not base:
        return ""
    links = [f'<link rel="canonical" href="{escape(base + page)}">']
    links += [f'<link rel="alternate" hreflang="{edition(code).tag}" href="{escape(edition_url(base, code))}">'
              for code in codes]  # fmt: skip
    links.append(f'<link rel="alternate" hreflang="x-default" href="{escape(base)}">')
    return "\n".join(links)


def render(template: Path, values: dict[str, str]) -> str:
    """Fill ``{{ name }}`` slots of a landing template; an unknown or unfilled slot raises."""
    text = template.read_text(encoding="utf-8")

    def fill(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"{template.relative_to(ROOT)}: no value for {{{{ {name} }}}}")
        return values[name]

    return re.sub(r"\{\{ (\w+) \}\}", fill, text)


def write_root_files(site: Path, codes: list[str], base: str | None = None) -> None:
    """Write the root of the site after its editions: landing page links, favicon, 404, robots, sitemap."""
    base = site_url() if base is None else base
    prefix = site_path(base)
    shutil.copyfile(FAVICON, site / FAVICON.name)
    landing = site / "index.html"
    text = landing.read_text(encoding="utf-8")
    landing.write_text(text.replace("<!-- head-links -->", head_links(base, codes)), encoding="utf-8")
    homes = "\n".join(
        f'      <li><a href="{prefix}{row.code}/index.html" hreflang="{row.tag}" lang="{row.tag}">{row.name}</a></li>'
        for row in EDITIONS if row.code in codes
    )
    (site / "404.html").write_text(render(LANDING / "404.html", {"prefix": prefix, "homes": homes}), encoding="utf-8")
    (site / "robots.txt").write_text(robots(base), encoding="utf-8")
    if base:
        (site / "sitemap.xml").write_text(sitemap(site, base, codes), encoding="utf-8")


def source_commit(checkout: Path) -> dict | None:
    """The commit the checkout is at: its hash, short hash, commit date (ISO, UTC) and whether files
    tracked by git differ from it; None outside a git checkout. Deterministic for one commit."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True, check=True,
                              env={**os.environ, "TZ": "UTC"}).stdout.strip()  # the commit date in UTC  # fmt: skip

    try:
        full, date = git("log", "-1", "--format=%H%n%cd", "--date=format-local:%Y-%m-%d").splitlines()
        changed = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
    return {"commit": full, "short": full[:12], "date": date, "changed": changed}
