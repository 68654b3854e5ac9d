"""The site works offline and tells no one it was read: showing any page requests nothing from a host
other than the one serving it, and every resource it does request exists."""

from urllib.parse import quote

import pytest

from tests.gallery_tools import LANGS
from tests.site_audit import guard_requests, html_pages, outside_resources


def test_no_page_or_stylesheet_names_an_outside_resource(site_dir):
    """Static check, no browser needed: scripts, stylesheets, images, frames, CSS url()/@import."""
    problems = outside_resources(site_dir)
    assert not problems, "resources from other hosts:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def page_loads(browser, site_dir, site_url):
    """Load every page (plus a search with results in each edition) in Chromium, every request
    routed: returns the requests to other hosts and the local requests that failed."""
    urls = [path.relative_to(site_dir).as_posix() for path in html_pages(site_dir)]
    urls += [f"{lang}/search.html?q={quote(query)}" for lang, query in (("en", "tensor"), ("zh_CN", "张量"))]
    context = browser.new_context()
    outside = guard_requests(context)
    failed = []
    page = context.new_page()
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("requestfailed", lambda r: None if r.url in outside else failed.append(f"failed {r.url}"))
    loads = {}
    try:
        for url in urls:
            before_outside, before_failed = len(outside), len(failed)
            page.goto(f"{site_url}/{url}", wait_until="networkidle")
            loads[url] = (outside[before_outside:], failed[before_failed:])
    finally:
        context.close()
    return loads


@pytest.mark.browser
def test_pages_request_nothing_from_other_hosts(page_loads):
    assert len(page_loads) > len(LANGS)
    problems = [f"{url}: {request}" for url, (outside, _) in page_loads.items() for request in outside]
    assert not problems, "requests to other hosts (blocked):\n" + "\n".join(problems)


@pytest.mark.browser
def test_every_requested_resource_exists(page_loads):
    problems = [f"{url}: {request}" for url, (_, failed) in page_loads.items() for request in failed]
    assert not problems, "failed local requests:\n" + "\n".join(problems)


@pytest.mark.browser
def test_the_guard_catches_an_outside_request(browser, site_url):
    """A page that pulls a script and a font from elsewhere: both requests are stopped and listed."""
    context = browser.new_context()
    outside = guard_requests(context)
    page = context.new_page()
    try:
        page.goto(f"{site_url}/index.html")
        page.set_content(
            '<!doctype html><html><head><script src="https://cdn.example.invalid/lib.js"></script>'
            '<style>@font-face{font-family:F;src:url("https://fonts.example.invalid/f.woff2")}'
            "body{font-family:F}</style></head><body>text</body></html>"
        )
        page.wait_for_load_state("networkidle")
    finally:
        context.close()
    assert "https://cdn.example.invalid/lib.js" in outside, outside
    assert "https://fonts.example.invalid/f.woff2" in outside, outside


def test_the_static_check_catches_an_outside_resource(tmp_path):
    (tmp_path / "a.html").write_text(
        '<html><head><link rel="stylesheet" href="https://cdn.example.invalid/x.css">'
        '<link rel="alternate" hreflang="en" href="https://example.invalid/en/"></head>'
        '<body><a href="https://example.invalid/read-me">a link is fine</a></body></html>'
    )
    (tmp_path / "s.css").write_text('@import "https://cdn.example.invalid/y.css"; b{background:url(data:,x)}')
    assert outside_resources(tmp_path) == [
        "a.html: loads https://cdn.example.invalid/x.css",
        "s.css: loads https://cdn.example.invalid/y.css",
    ]
