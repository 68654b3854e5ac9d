"""Every page the build writes is valid HTML for the Nu HTML checker (vnu-jar, run with the
machine's java): zero errors. One java call checks all pages of both editions, the landing page and
the known-bad pages that prove the checker, and its report is read per file."""

import pytest

from tests.site_audit import html_pages, missing_tool, vnu_available, vnu_report

GOOD = '<!doctype html><html lang="en"><head><title>ok</title></head><body><p>ok</p></body></html>'
#: What sphinx-gallery and furo wrote before the fixes in docs/_ext: an unknown attribute and a
#: duplicate id.
BAD = (
    '<!doctype html><html lang="en"><head><title>bad</title></head><body>'
    '<div class="sphx-glr-thumbcontainer" tooltip="x">card</div>'
    '<div id="id1"><table id="id1"><tr><td>1</td></tr></table></div></body></html>'
)


@pytest.fixture(scope="module")
def report(site_dir, tmp_path_factory):
    """The checker's errors per file, for every page of the site and the two known pages."""
    reason = vnu_available()
    if reason:
        missing_tool(reason)
    known = tmp_path_factory.mktemp("known")
    (known / "good.html").write_text(GOOD, encoding="utf-8")
    (known / "bad.html").write_text(BAD, encoding="utf-8")
    pages = html_pages(site_dir)
    return pages, known, vnu_report([*pages, known / "good.html", known / "bad.html"])


def test_every_page_is_valid_html(report, site_dir):
    pages, _, errors = report
    assert len(pages) > 1, f"no pages in {site_dir}"
    found = [f"{page.relative_to(site_dir).as_posix()}:{error}" for page in pages for error in errors.get(page, [])]
    assert not found, f"{len(found)} Nu HTML checker errors in {len(pages)} pages:\n" + "\n".join(found)
    assert set(errors) <= {*pages, *report[1].iterdir()}, f"errors for files not asked about: {set(errors)}"


def test_the_checker_reports_known_errors(report):
    """The checker must name both faults of the bad page, and nothing in the good one."""
    _, known, errors = report
    assert errors.get(known / "good.html", []) == [], errors.get(known / "good.html")
    bad = errors.get(known / "bad.html", [])
    assert len(bad) == 2, bad
    assert any("tooltip" in error for error in bad), bad
    assert any("Duplicate ID" in error for error in bad), bad
