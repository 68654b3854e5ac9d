"""Every page of both editions (and the landing page), shown in headless Chromium, passes two audits
from one visit each (several pages at a time, in one browser):

- accessibility: zero axe-core WCAG 2.1 A/AA violations in every view that can change the outcome (see
  ``VIEWS`` in tests/browser_audit.py): all rules but the colour rules on a desktop screen in the light
  theme; the colour rules, in the light and the dark theme, on every page that shows a colour
  combination no audited page showed before (so that every combination on the site is audited); the
  scrolling rule at phone width; all rules in the dark theme and on a phone for the pages that stand
  for their template;
- offline: showing a page requests nothing from a host other than the one serving it, every resource
  it requests exists, and it logs no error.

Both read the same visits, so they live in one file: the test tiers run one file per worker."""

import pytest

from tests.browser_audit import (
    ALL_RULES,
    COLOUR_RULES,
    LAYOUT_RULES,
    NOT_COLOUR,
    VIEWS,
    PagePlan,
    plan_visits,
    site_visits,
    visit_pages,
)
from tests.gallery_tools import LANGS, serve
from tests.site_audit import axe_available, html_pages, missing_tool, outside_resources


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


def ran(visit, view: str, rules: tuple[str, ...]) -> bool:
    """True when ``rules`` ran on this visit in ``view`` (alone or with others)."""
    run = visit.rules_run.get(view, ())
    return view in visit.violations and (run is ALL_RULES or (isinstance(run, tuple) and set(rules) <= set(run)))


def colour_audited(visit, view: str) -> bool:
    return ran(visit, view, COLOUR_RULES)


def unaudited_colours(visits, view: str) -> dict[str, list[str]]:
    """The colour signatures shown in ``view`` that no page was audited with the colour rules for,
    with a page that shows each."""
    audited = set().union(*(v.signatures[view] for v in visits if colour_audited(v, view)))
    missing: dict[str, list[str]] = {}
    for visit in visits:
        for signature in sorted(visit.signatures.get(view, frozenset()) - audited):
            missing.setdefault(signature, []).append(visit.url)
    return missing


@pytest.mark.browser
def test_every_page_is_audited_in_every_view(visits, site_dir):
    """The plan leaves no page out: every page got every rule but the colour rules on the wide light
    screen, had its colour signatures taken in the light and dark themes and the scrolling rule at
    phone width; every colour signature of the site was audited in both themes; and some pages of
    each edition got every rule in the dark theme and on a phone."""
    pages = {path.relative_to(site_dir).as_posix() for path in html_pages(site_dir)}
    shown = {visit.url: visit for visit in visits if visit.plan.context == "wide"}
    problems = []
    for url in sorted(pages):
        visit = shown.get(url)
        if visit is None:
            problems.append(f"{url}: not shown")
            continue
        if visit.rules_run.get("wide-light", ()) not in (ALL_RULES, NOT_COLOUR) or "wide-light" not in visit.violations:
            problems.append(f"{url}: not audited with every rule in wide-light")
        for view in ("wide-light", "wide-dark"):
            if not visit.signatures.get(view):
                problems.append(f"{url}: no colour signature taken in {view}")
        if not ran(visit, "phone-width", LAYOUT_RULES):
            problems.append(f"{url}: not audited in phone-width")
    for view in ("wide-light", "wide-dark"):
        problems += [f"{view}: colours never audited: {sig} (on {', '.join(urls[:3])})"
                     for sig, urls in unaudited_colours(visits, view).items()]  # fmt: skip
    for lang in LANGS:
        for view in ("wide-dark", "phone"):
            if not any(v.url.startswith(f"{lang}/") and v.rules_run.get(view, ()) is ALL_RULES
                       and view in v.violations for v in visits):  # fmt: skip
                problems.append(f"{lang}: no page got every rule in {view}")
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_the_colour_rules_skip_pages_with_nothing_new(visits):
    """Most pages share their colours, so some pages go without the colour rules (that every colour
    they show was audited elsewhere is tested above)."""
    for view in ("wide-light", "wide-dark"):
        skipped = [visit for visit in visits if view in visit.signatures and not colour_audited(visit, view)]
        assert skipped, f"every page was audited with the colour rules in {view}: the selection chose nothing"


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


SAME_COLOURS = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body {{ color: #222; background: #fff; }}
  .faint {{ color: #505050; background: #fff; }}
  @media (prefers-color-scheme: dark) {{
    body {{ color: #eee; background: #111; }} .faint {{ color: #444; background: #111; }}
  }}
</style></head><body><main><h1>{title}</h1><p>Ordinary text.</p>{extra}</main></body></html>"""


@pytest.mark.browser
def test_the_colour_rules_follow_new_colours(browser, tmp_path):
    """Two pages with the same colours, a third that adds text faint only in the dark and a fourth
    with a faint value in a text box: of the two, at most one gets the colour rules in each theme,
    whatever the order of the visits; the others get them in both, and their faults are found."""
    pages = {"a.html": "", "b.html": "", "c.html": '<p class="faint">faint only in the dark</p>',
             "d.html": '<p><label>Query <input value="typed words" style="color: #ccc"></label></p>'}
    for name, extra in pages.items():
        (tmp_path / name).write_text(SAME_COLOURS.format(title=name, extra=extra), encoding="utf-8")
    with serve(tmp_path) as url:
        visits = {visit.url: visit for visit in visit_pages(browser, url, plan_visits(tmp_path))}
    assert not any(visit.errors for visit in visits.values()), {u: v.errors for u, v in visits.items()}
    for view in ("wide-light", "wide-dark"):
        assert colour_audited(visits["c.html"], view), view
        assert not (colour_audited(visits["a.html"], view) and colour_audited(visits["b.html"], view)), view
        assert not unaudited_colours(list(visits.values()), view), view
    assert {v.rule for v in visits["c.html"].violations["wide-dark"]} == {"color-contrast"}
    assert not visits["c.html"].violations["wide-light"]
    assert colour_audited(visits["d.html"], "wide-light")
    assert {v.rule for v in visits["d.html"].violations["wide-light"]} == {"color-contrast"}


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
