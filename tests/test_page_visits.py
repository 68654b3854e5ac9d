"""Every page of both editions (and the landing page), shown in headless Chromium, passes two audits
from one visit each (several pages at a time, in one browser):

- accessibility: zero axe-core WCAG 2.1 A/AA violations in every view that can change the outcome (see
  ``VIEWS`` in tests/site_audit.py): all rules on a desktop screen in the light theme; the colour rules
  in the dark theme; the scrolling rule at phone width; all rules again in the dark theme and on a
  phone for the pages that stand for their template;
- offline: showing a page requests nothing from a host other than the one serving it, every resource
  it requests exists, and it logs no error.

Both read the same visits, so they live in one file: the test tiers run one file per worker."""

import pytest

from tests.gallery_tools import LANGS, serve
from tests.site_audit import (
    ALL_RULES,
    VIEWS,
    PagePlan,
    axe_available,
    html_pages,
    missing_tool,
    outside_resources,
    plan_visits,
    site_visits,
    visit_pages,
)


@pytest.fixture(scope="module")
def visits(browser, site_dir, site_url):
    reason = axe_available()
    if reason:
        missing_tool(reason)
    return site_visits(browser, site_dir, site_url)


def _problems(visits, view, edition):
    """The violations and failed audits in ``view`` of the pages of one edition ("" = landing)."""
    problems = []
    for visit in visits:
        if visit.url.split("/")[0] != edition and not (edition == "" and "/" not in visit.url):
            continue
        if view in visit.violations:
            problems += [f"{visit.url}: {violation}" for violation in visit.violations[view]]
        elif any(step == view for step, _ in visit.plan.steps):
            errors = visit.errors or ["no result"]
            problems += [f"{visit.url}: not audited: {error}" for error in errors]
    return problems


@pytest.mark.browser
@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("lang", LANGS)
def test_no_wcag_violations(visits, lang, view):
    audited = [v for v in visits if v.url.startswith(f"{lang}/") and any(s == view for s, _ in v.plan.steps)]
    assert audited, f"no {lang} page was shown in the {view} view"
    problems = _problems(visits, view, lang)
    summary = f"{len(problems)} axe problems on {len(audited)} {lang} pages ({view}):"
    assert not problems, "\n".join([summary, *problems])


@pytest.mark.browser
@pytest.mark.parametrize("view", VIEWS)
def test_landing_page_has_no_wcag_violations(visits, view):
    problems = _problems(visits, view, "")
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_every_page_is_audited_in_every_view(visits, site_dir):
    """The plan leaves no page out: every page got every rule on the wide light screen, the colour
    rules in the dark theme and the scrolling rule at phone width, and some pages of each edition
    got every rule in the dark theme and on a phone."""
    pages = {path.relative_to(site_dir).as_posix() for path in html_pages(site_dir)}
    ran: dict[tuple[str, str], set] = {}
    for visit in visits:
        for view, rules in visit.plan.steps:
            if view in visit.violations:
                ran.setdefault((visit.url, view), set()).add(rules)
    problems = []
    for url in sorted(pages):
        for view in ("wide-light", "wide-dark", "phone-width"):
            rules = ran.get((url, view), set())
            if not ({ALL_RULES, VIEWS[view].rules} & rules):
                problems.append(f"{url}: not audited in {view}")
    for lang in LANGS:
        for view in ("wide-dark", "phone"):
            if not any(url.startswith(f"{lang}/") and v == view and ALL_RULES in r for (url, v), r in ran.items()):
                problems.append(f"{lang}: no page got every rule in {view}")
    assert not problems, "\n".join(problems)


def _is_dark(rgb: str) -> bool:
    channels = [float(c) for c in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    return sum(channels) < 3 * 96


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_the_dark_view_really_is_dark(visits, lang):
    """Else the dark theme's contrast went unchecked: every page of an edition had a dark body."""
    dark = [visit for visit in visits if visit.url.startswith(f"{lang}/") and "wide-dark" in visit.backgrounds]
    shown = {visit.url: visit.backgrounds["wide-dark"] for visit in dark}
    assert shown and all(rgb and _is_dark(rgb) for rgb in shown.values()), shown


# --- The checker itself catches what it must, in the view that must catch it ---------------------

BAD_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bad</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  .faint { color: #767676; background: #fff; }
  @media (prefers-color-scheme: dark) { body { background: #111; } .faint { color: #444; background: #111; } }
  .wide { overflow: auto; } .wide pre { margin: 0; }
</style></head><body><main>
<p><a href="x.html"><span style="display:none">hidden name</span></a></p>
<p class="faint">faint only in the dark</p>
<div class="wide"><pre>{LINE}</pre></div>
</main></body></html>""".replace("{LINE}", "a line that scrolls on a narrow screen only. " * 2)


@pytest.fixture(scope="module")
def bad_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    (root / "bad.html").write_text(BAD_PAGE, encoding="utf-8")
    return root


@pytest.mark.browser
def test_the_checker_reports_known_violations(browser, bad_site, visits):
    """A link whose text is display:none (what sphinx-gallery's cards were before the fix in
    docs/_ext) is found by the light view's full rule set; text that is faint only in the dark
    theme, by the colour rules of the dark view; a block that scrolls only on a narrow screen, by
    the layout rule at phone width and on a phone; and neither of the latter where they do not
    occur. The pages go through the same machinery as the site's."""
    (plan,) = plan_visits(bad_site)  # not a representative page: the views' own rules
    with serve(bad_site) as url:
        wide, phone = visit_pages(browser, url, [plan, PagePlan("bad.html", (("phone", ALL_RULES),))])
    rules = {view: {violation.rule for violation in found} for view, found in wide.violations.items()}
    rules["phone"] = {violation.rule for violation in phone.violations["phone"]}
    assert not wide.errors and not phone.errors, (wide.errors, phone.errors)
    assert {"link-name"} <= rules["wide-light"] and "scrollable-region-focusable" not in rules["wide-light"], rules
    assert "color-contrast" not in rules["wide-light"], rules
    assert rules["wide-dark"] == {"color-contrast"}, rules
    assert rules["phone-width"] == {"scrollable-region-focusable"}, rules
    assert {"link-name", "scrollable-region-focusable"} <= rules["phone"], rules


# --- Offline: nothing from other hosts, nothing missing, no error -------------------------------


def test_no_page_or_stylesheet_names_an_outside_resource(site_dir):
    """Static check, no browser needed: scripts, stylesheets, images, frames, CSS url()/@import."""
    problems = outside_resources(site_dir)
    assert not problems, "resources from other hosts:\n" + "\n".join(problems)


@pytest.mark.browser
def test_pages_request_nothing_from_other_hosts(visits, site_dir):
    loaded = {visit.url for visit in visits}
    assert {path.relative_to(site_dir).as_posix() for path in html_pages(site_dir)} <= loaded
    assert any("search.html?q=" in url for url in loaded)
    problems = [f"{visit.url}: {request}" for visit in visits for request in visit.outside]
    assert not problems, "requests to other hosts (sent nowhere):\n" + "\n".join(problems)


@pytest.mark.browser
def test_every_requested_resource_exists(visits):
    problems = [f"{visit.url}: {request}" for visit in visits for request in visit.failed + visit.errors]
    assert not problems, "failed local requests:\n" + "\n".join(problems)


@pytest.mark.browser
def test_pages_log_no_errors(visits):
    """No page logs an error or throws: what a failed script or resource would show."""
    problems = [f"{visit.url}: {message}" for visit in visits for message in visit.console]
    assert not problems, "console errors:\n" + "\n".join(problems)


OUTSIDE_PAGE = (
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
    (tmp_path / "bad.html").write_text(OUTSIDE_PAGE, encoding="utf-8")
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
