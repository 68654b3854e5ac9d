"""No link of the built site leads nowhere: every local href/src exists, every #fragment names an
element of its target page, and every page's language switch leads to the same page in the other
edition. External links are listed by the offline checks, not fetched."""

from pathlib import PurePosixPath

import pytest

from tests.gallery_tools import LANGS, read_page
from tests.site_audit import broken_links, html_pages, resolve


def _pages(site, lang):
    return html_pages(site / lang)


@pytest.mark.parametrize("lang", LANGS)
def test_no_broken_links_or_anchors(site_dir, lang):
    pages = _pages(site_dir, lang)
    assert pages, f"no page in {lang}/"
    problems = broken_links(site_dir, pages)
    assert not problems, f"{len(problems)} broken links in {lang}/:\n" + "\n".join(problems)


def test_landing_page_links_resolve(site_dir):
    problems = broken_links(site_dir, [site_dir / "index.html"])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_language_switch_leads_to_the_same_page_in_every_other_edition(site_dir, lang):
    problems = []
    for page in _pages(site_dir, lang):
        where = page.relative_to(site_dir).as_posix()
        inside = page.relative_to(site_dir / lang)
        switch = read_page(page).select_one("nav.language-switch")
        if switch is None:
            problems.append(f"{where}: no language switch")
            continue
        links = switch.select("a[href]")
        if len(links) != len(LANGS) - 1:
            problems.append(f"{where}: {len(links)} links in the language switch, expected {len(LANGS) - 1}")
        for link in links:
            target, _ = resolve(site_dir, page, link["href"])
            edition = target.relative_to(site_dir).parts[0]
            counterpart = site_dir / edition / inside
            if edition == lang or edition not in LANGS:
                problems.append(f"{where}: the switch link {link['href']!r} leads to edition {edition!r}")
            elif target != counterpart:
                problems.append(f"{where}: the switch link leads to {target.relative_to(site_dir)}, "
                                f"not to {counterpart.relative_to(site_dir)}")  # fmt: skip
            elif not target.is_file():
                problems.append(f"{where}: the switch link leads to missing {target.relative_to(site_dir)}")
    assert not problems, "\n".join(problems)


# --- The checker itself catches what it must ---------------------------------------------------


def _write(path, html):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!doctype html><html><head><title>t</title></head><body>{html}</body></html>")


def test_the_checker_reports_missing_files_anchors_and_escapes(tmp_path):
    site = tmp_path / "site"
    _write(site / "en" / "a.html", '<h1 id="top">A</h1><a name="old">old</a>')
    _write(site / "en" / "sub" / "b.html", "".join([
        '<a href="../a.html">ok</a>', '<a href="../a.html#top">ok</a>', '<a href="../a.html#old">ok</a>',
        '<a href="#here">ok</a><p id="here">here</p>', '<a href="#">top</a>', '<a href="./">dir index</a>',
        '<a href="https://example.org/x#y">external, not fetched</a>', '<a href="mailto:a@b.c">mail</a>',
        '<img src="data:image/png;base64,AAAA" alt="">',
        '<a href="../missing.html">bad</a>', '<a href="../a.html#nowhere">bad</a>', '<a href="#gone">bad</a>',
        '<img src="img/none.png" alt="">', '<a href="../../../etc/passwd">bad</a>',
        '<link rel="stylesheet" href="../_static/none.css">',
    ]))  # fmt: skip
    _write(site / "en" / "sub" / "index.html", "index")
    problems = broken_links(site)
    found = sorted(p.split(": ", 1)[1].split(" ->")[0] for p in problems)
    assert found == sorted([
        "'../missing.html'", "'../a.html#nowhere'", "'#gone'", "'img/none.png'",
        "'../../../etc/passwd' leaves the site", "'../_static/none.css'",
    ]), problems  # fmt: skip
    assert all(p.startswith("en/sub/b.html: ") for p in problems), problems


def test_the_switch_check_notices_a_page_missing_in_one_edition(site_dir, tmp_path):
    """Delete one Chinese page from a copy of the build: the English page's switch must fail."""
    import shutil

    copy = tmp_path / "site"
    shutil.copytree(site_dir, copy)
    en_page = next(p for p in _pages(copy, "en") if "examples" in p.parts and p.name.startswith("plot_"))
    inside = PurePosixPath(en_page.relative_to(copy / "en").as_posix())
    (copy / "zh_CN" / inside).unlink()
    with pytest.raises(AssertionError, match=f"missing zh_CN/{inside}"):
        test_language_switch_leads_to_the_same_page_in_every_other_edition(copy, "en")
    problems = broken_links(copy, [en_page])
    assert any(f"missing file zh_CN/{inside}" in p for p in problems), problems
