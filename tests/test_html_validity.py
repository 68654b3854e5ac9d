"""Every page the build writes is valid HTML for the Nu HTML checker (vnu-jar, run with the
machine's java): zero errors, all pages of both editions and the landing page in one java call."""

import pytest

from tests.site_audit import html_pages, missing_tool, vnu_available, vnu_errors


@pytest.fixture(scope="module")
def vnu():
    reason = vnu_available()
    if reason:
        missing_tool(reason)
    return vnu_errors


def test_every_page_is_valid_html(site_dir, vnu):
    pages = html_pages(site_dir)
    assert len(pages) > 1, f"no pages in {site_dir}"
    errors = vnu(pages, site_dir)
    assert not errors, f"{len(errors)} Nu HTML checker errors in {len(pages)} pages:\n" + "\n".join(errors)


def test_the_checker_reports_known_errors(vnu, tmp_path):
    """What sphinx-gallery and furo wrote before the fixes in docs/_ext: an unknown attribute and
    a duplicate id. The checker must name both, with the file."""
    good = tmp_path / "good.html"
    good.write_text('<!doctype html><html lang="en"><head><title>ok</title></head><body><p>ok</p></body></html>')
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!doctype html><html lang="en"><head><title>bad</title></head><body>'
        '<div class="sphx-glr-thumbcontainer" tooltip="x">card</div>'
        '<div id="id1"><table id="id1"><tr><td>1</td></tr></table></div></body></html>'
    )
    errors = vnu([good, bad], tmp_path)
    assert len(errors) == 2, errors
    assert all(error.startswith("bad.html:") for error in errors), errors
    assert any("tooltip" in error for error in errors), errors
    assert any("Duplicate ID" in error for error in errors), errors
