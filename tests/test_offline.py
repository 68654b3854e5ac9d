"""The site works offline and tells no one it was read: showing any page requests nothing from a host
other than the one serving it, and every resource it does request exists."""

import pytest

from tests.gallery_tools import serve
from tests.site_audit import (
    PagePlan,
    axe_available,
    html_pages,
    missing_tool,
    outside_resources,
    site_visits,
    visit_pages,
)


def test_no_page_or_stylesheet_names_an_outside_resource(site_dir):
    """Static check, no browser needed: scripts, stylesheets, images, frames, CSS url()/@import."""
    problems = outside_resources(site_dir)
    assert not problems, "resources from other hosts:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def page_loads(browser, site_dir, site_url):
    """The visits of the accessibility checks (every page, plus a search with results in each
    edition, loaded in one browser): each recorded the requests to other hosts (they go to a dead
    proxy, so none gets out), the local requests that failed, and the console errors."""
    reason = axe_available()
    if reason:
        missing_tool(reason)
    return site_visits(browser, site_dir, site_url)


@pytest.mark.browser
def test_pages_request_nothing_from_other_hosts(page_loads, site_dir):
    loaded = {visit.url for visit in page_loads}
    assert {path.relative_to(site_dir).as_posix() for path in html_pages(site_dir)} <= loaded
    assert any("search.html?q=" in url for url in loaded)
    problems = [f"{visit.url}: {request}" for visit in page_loads for request in visit.outside]
    assert not problems, "requests to other hosts (sent nowhere):\n" + "\n".join(problems)


@pytest.mark.browser
def test_every_requested_resource_exists(page_loads):
    problems = [f"{visit.url}: {request}" for visit in page_loads for request in visit.failed + visit.errors]
    assert not problems, "failed local requests:\n" + "\n".join(problems)


@pytest.mark.browser
def test_pages_log_no_errors(page_loads):
    """No page logs an error or throws: what a failed script or resource would show."""
    problems = [f"{visit.url}: {message}" for visit in page_loads for message in visit.console]
    assert not problems, "console errors:\n" + "\n".join(problems)


BAD_PAGE = (
    '<!doctype html><html lang="en"><head><title>bad</title>'
    '<script src="https://cdn.example.invalid/lib.js"></script>'
    '<style>@font-face{font-family:F;src:url("https://fonts.example.invalid/f.woff2")}'
    "body{font-family:F}</style></head><body><p>text</p>"
    '<script>fetch("http://127.0.0.2:9/beacon").catch(() => {}); missing_function();</script>'
    '<img src="none.png" alt=""></body></html>'
)


@pytest.mark.browser
def test_the_watch_catches_outside_requests_and_errors(browser, tmp_path):
    """A page that pulls a script and a font from elsewhere, calls home from a script, loads a
    missing image and throws: the same visit as the site's lists every one of them."""
    (tmp_path / "bad.html").write_text(BAD_PAGE, encoding="utf-8")
    with serve(tmp_path) as url:
        (visit,) = visit_pages(browser, url, [PagePlan("bad.html", (("wide-light", ("html-has-lang",)),))])
    assert set(visit.outside) >= {
        "https://cdn.example.invalid/lib.js",
        "https://fonts.example.invalid/f.woff2",
        "http://127.0.0.2:9/beacon",
    }, visit.outside
    assert any("/none.png" in failure for failure in visit.failed), visit.failed
    assert any("missing_function" in message for message in visit.console), visit.console


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
