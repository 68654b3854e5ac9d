"""Every page of both editions (and the landing page) has zero axe-core WCAG 2.1 A/AA violations in
headless Chromium: on a desktop screen in the light and the dark theme, and on a phone screen, where
code blocks and tables overflow and the sidebar turns into a drawer."""

from urllib.parse import quote

import pytest

from tests.gallery_tools import LANGS
from tests.site_audit import axe_available, axe_violations, html_pages, missing_tool

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
VIEWS = {
    "desktop-light": {"viewport": DESKTOP, "color_scheme": "light"},
    "desktop-dark": {"viewport": DESKTOP, "color_scheme": "dark"},
    "phone-light": {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "color_scheme": "light"},
}
DARK_BODY = "() => getComputedStyle(document.body).backgroundColor"


@pytest.fixture(scope="module")
def axe():
    reason = axe_available()
    if reason:
        missing_tool(reason)
    return axe_violations


#: A search whose results page is audited too (results are added by script, with highlights).
SEARCHES = {"en": "tensor", "zh_CN": "张量"}
SEARCH_DONE = "() => (document.querySelector('#search-results p.search-summary')?.innerText || '').trim() !== ''"


def _audit(browser, site_url, urls, view, axe):
    context = browser.new_context(**VIEWS[view])
    page = context.new_page()
    problems, backgrounds = [], set()
    try:
        for where in urls:
            page.goto(f"{site_url}/{where}", wait_until="load")
            if "search.html?q=" in where:
                page.wait_for_function(SEARCH_DONE, timeout=15_000)
            backgrounds.add(page.evaluate(DARK_BODY))
            problems.extend(f"{where}: {violation}" for violation in axe(page))
    finally:
        context.close()
    return problems, backgrounds


def _is_dark(rgb: str) -> bool:
    channels = [float(c) for c in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    return sum(channels) < 3 * 96


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("lang", LANGS)
def test_no_wcag_violations(browser, site_dir, site_url, lang, view, axe):
    pages = html_pages(site_dir / lang)
    assert pages, f"no page in {lang}/"
    urls = [path.relative_to(site_dir).as_posix() for path in pages]
    urls.append(f"{lang}/search.html?q={quote(SEARCHES[lang])}")
    problems, backgrounds = _audit(browser, site_url, urls, view, axe)
    if view.endswith("dark"):  # the dark theme really was shown, else its contrast went unchecked
        assert all(_is_dark(rgb) for rgb in backgrounds), f"not every page was dark: {backgrounds}"
    assert not problems, f"{len(problems)} axe violations on {len(urls)} {lang} pages ({view}):\n" + "\n".join(problems)


@pytest.mark.parametrize("view", VIEWS)
def test_landing_page_has_no_wcag_violations(browser, site_dir, site_url, view, axe):
    problems, _ = _audit(browser, site_url, ["index.html"], view, axe)
    assert not problems, "\n".join(problems)


def test_the_checker_reports_known_violations(browser, axe):
    """What sphinx-gallery's cards and an overflowing <pre> were before the fixes in docs/_ext:
    a link whose text is display:none, and a scrollable region the keyboard cannot reach."""
    page = browser.new_page(viewport={"width": 400, "height": 600})
    try:
        page.set_content(
            '<!doctype html><html lang="en"><head><title>bad</title></head><body><main>'
            '<p><a href="x.html"><span style="display:none">hidden name</span></a></p>'
            '<div style="width:200px;overflow:auto"><pre>' + "x" * 400 + "</pre></div>"
            '<p style="color:#bbb;background:#fff">faint text</p>'
            "</main></body></html>"
        )
        rules = {violation.rule for violation in axe(page)}
    finally:
        page.close()
    assert {"link-name", "scrollable-region-focusable", "color-contrast"} <= rules, rules
