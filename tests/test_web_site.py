"""Reading online, on the built site: head tags, favicon, 404 pages, root files, Chinese chrome,
readable anchors and the verified-on stamp. Each checker is also run on a page made bad on purpose."""

import collections
import copy
import functools
import json
import platform
import re
from pathlib import Path

import pytest
import torch
from bs4 import BeautifulSoup

from editions import CODES, EDITIONS, edition
from tests.claims_tools import ROOT
from tests.gallery_tools import gallery_scripts, page_path, read_page, relative_name
from tests.site_audit import broken_links, html_pages

pytestmark = pytest.mark.slow

#: The theme's English words that must not reach a page in another language.
THEME_WORDS = ("Back to top", "On this page", "Skip to content", "pradyunsg", "Toggle", "Light mode", "Dark mode",
               "Contents", "Menu", "Expand", "Made with", "Auto light/dark", "Edit this page", "Page not found")
NUMBERED = re.compile(r"^id\d+$")


def published_base(site: Path) -> str:
    """The SITE_URL the site was built with ('' for a local build), read from its robots.txt."""
    match = re.search(r"^Sitemap: (\S+)sitemap\.xml$", (site / "robots.txt").read_text(encoding="utf-8"), re.M)
    return match.group(1) if match else ""


def theme_english(soup: BeautifulSoup) -> list[str]:
    """English theme words in what a reader sees or hears: text, aria-labels, titles, svg titles."""
    soup = copy.copy(soup)  # the page may be shared (read_page): change a copy
    for tag in soup(["script", "style", "pre", "code"]):
        tag.decompose()
    heard = [soup.get_text(" ")]
    for name in ("aria-label", "title", "placeholder", "alt"):
        heard += [tag[name] for tag in soup.find_all(attrs={name: True})]
    return sorted({word for word in THEME_WORDS for text in heard if word in text})


def head_problems(page: Path, lang: str, base: str) -> list[str]:
    soup = read_page(page)
    metas = {tag.get("name") or tag.get("property"): tag.get("content", "") for tag in soup.find_all("meta")}
    problems = [f"no {name}" for name in ("description", "og:title", "og:description", "twitter:card")
                if not metas.get(name)]  # fmt: skip
    if edition(lang).cjk and not re.search(r"[\u4e00-\u9fff]", metas.get("description", "")):
        problems.append("the description is not in the page's language")
    icons = soup.select('link[rel~="icon"]')
    if not icons:
        problems.append("no favicon link")
    canonical = soup.select_one('link[rel="canonical"]')
    if base:
        if canonical is None or not canonical["href"].startswith(base):
            problems.append("no absolute canonical link")
        if not metas.get("og:url", "").startswith(base):
            problems.append("no absolute og:url")
        hrefs = [link["href"] for link in soup.select('link[rel="alternate"][hreflang]')]
        problems += [f"relative alternate {href}" for href in hrefs if not href.startswith(base)]
    else:
        if canonical is not None:
            problems.append("a canonical link without SITE_URL")
        if "og:url" in metas:
            problems.append("og:url without SITE_URL")
    return problems


def content_pages(site: Path, lang: str) -> list[Path]:
    return [page for page in html_pages(site / lang) if page.name not in ("search.html", "genindex.html", "404.html")]


@pytest.mark.parametrize("lang", CODES)
def test_every_page_has_its_description_social_tags_favicon_and_links(site_dir, lang):
    base = published_base(site_dir)
    problems = [f"{page.relative_to(site_dir)}: {problem}" for page in content_pages(site_dir, lang)
                for problem in head_problems(page, lang, base)]  # fmt: skip
    assert not problems, "\n".join(problems)


def test_the_head_check_notices_missing_tags(tmp_path):
    page = tmp_path / "zh_CN" / "x.html"
    page.parent.mkdir()
    page.write_text('<html><head><meta name="description" content="English only">'
                    '<link rel="canonical" href="x.html"></head></html>', encoding="utf-8")  # fmt: skip
    problems = head_problems(page, "zh_CN", "")
    assert "no og:description" in problems and "no favicon link" in problems
    assert "the description is not in the page's language" in problems
    assert "a canonical link without SITE_URL" in problems
    assert "no absolute canonical link" in head_problems(page, "zh_CN", "https://example.org/")


def test_the_description_comes_from_the_page_itself(site_dir):
    for row in EDITIONS:
        page = page_path(site_dir, row.code, "copying/plot_04_detach")
        soup = read_page(page)
        description = soup.find("meta", attrs={"name": "description"})["content"]
        first = soup.select_one("article section > p:not(.verified-stamp)").get_text()
        assert re.sub(r"\s+", "", description[:20]) in re.sub(r"\s+", "", first), f"{page}: {description!r}"
        assert "torch" not in description[:20]  # not the stamp


HAN = "\u3400-\u9fff"
FULL_WIDTH = "\u3000-\u303f\uff00-\uffef"


def description_problems(soup: BeautifulSoup, cjk: bool) -> list[str]:
    """What a page's meta description gets wrong: a code block run into it (its first two lines, joined as
    the description joins them: prose may quote one line, as ``a = a + 1``), and in a Chinese edition Latin
    text glued to a Chinese character, an ASCII list mark after full-width punctuation ("；, "), or "..." for
    a cut (a quoted message may hold "...")."""
    description = soup.find("meta", attrs={"name": "description"})["content"]
    blocks = [[line.strip() for line in pre.get_text().splitlines() if line.strip()] for pre in soup.select("pre")]
    run_in = [" ".join(lines[:2]) for lines in blocks if len(lines) >= 2]
    problems = [f"code in the description: {code!r}" for code in run_in if code in description]
    problems += [f"a space before an apostrophe in {m.group()!r}" for m in re.finditer(r"\S+\s’\S*", description)]
    if cjk:
        glued = re.finditer(rf"[{HAN}]{{2}}(?!\.\.\.)[._A-Za-z0-9]\S*", description)
        problems += [f"no space in {m.group()!r}" for m in glued]
        marks = re.finditer(rf"\S{{0,4}}[{FULL_WIDTH}][,.](?![A-Za-z_])", description)  # not ".data", a code word
        problems += [f"an ASCII mark in {m.group()!r}" for m in marks]
        problems += ["'...' for a cut"] * description.endswith("...")
    return problems


@pytest.mark.parametrize("lang", CODES)
def test_every_description_is_prose_written_in_the_pages_language(site_dir, lang):
    problems = [f"{page.relative_to(site_dir)}: {problem}" for page in content_pages(site_dir, lang)
                for problem in description_problems(read_page(page), edition(lang).cjk)]
    assert not problems, "\n".join(problems)


def test_the_description_check_notices_code_glued_words_list_marks_and_cuts():
    page = ('<meta name="description" content="每页可下载的.py 文件；, 不成立 import warnings import torch ...">'
            '<div class="highlight"><pre>import warnings\n\nimport torch</pre></div>')
    soup = BeautifulSoup(page, "html.parser")
    assert description_problems(soup, cjk=False) == ["code in the description: 'import warnings import torch'"]
    assert len(description_problems(soup, cjk=True)) == 4
    apostrophe = BeautifulSoup('<meta name="description" content="shares a ’s memory">', "html.parser")
    assert description_problems(apostrophe, cjk=False) == ["a space before an apostrophe in 'a ’s'"]


def test_links_to_the_pytorch_documentation_say_so_in_the_pages_language(site_dir):
    """intersphinx's tooltip; the Chinese one is the project's catalog's, with full-width parentheses."""
    from tensorcopy_sphinx.torch_links import DOCS_URL

    docs, release = DOCS_URL.split("{")[0], "v" + ".".join(torch.__version__.split(".")[:2])
    expected = {"en": f"(in PyTorch {release})", "zh_CN": f"（PyTorch {release} 文档）"}
    for lang, title in expected.items():
        titles = {a["title"] for page in content_pages(site_dir, lang) for a in read_page(page).select("a[title]")
                  if a.get("href", "").startswith(docs) and "PyTorch" in a["title"]}
        assert titles == {title}, (lang, titles)


def test_root_files(site_dir):
    base = published_base(site_dir)
    robots = (site_dir / "robots.txt").read_text(encoding="utf-8")
    assert robots.startswith("User-agent: *\n")
    assert (site_dir / "favicon.svg").is_file()
    if base:
        sitemap = (site_dir / "sitemap.xml").read_text(encoding="utf-8")
        for lang in CODES:
            for page in content_pages(site_dir, lang):
                assert f"<loc>{base}{page.relative_to(site_dir).as_posix()}</loc>" in sitemap
    else:
        assert not (site_dir / "sitemap.xml").exists()
        assert "Sitemap" not in robots


@pytest.mark.parametrize("lang", CODES)
def test_no_edition_has_an_empty_general_index_nor_links_to_one(site_dir, lang):
    assert not (site_dir / lang / "genindex.html").exists()
    linked = [page.relative_to(site_dir).as_posix() for page in [*html_pages(site_dir / lang), site_dir / "404.html"]
              if "genindex" in page.read_text(encoding="utf-8")]
    assert not linked, linked[:5]


def test_404_pages_link_from_the_site_root_in_every_edition(site_dir):
    pages = [site_dir / "404.html", *(site_dir / code / "404.html" for code in CODES)]
    assert not broken_links(site_dir, pages)
    for page in pages[1:]:
        links = [tag.get("href") or tag.get("src") for tag in read_page(page).find_all(["a", "link", "script"])]
        relative = [link for link in links if link and not re.match(r"^(/|#|https?:|mailto:)", link)]
        assert not relative, f"{page.relative_to(site_dir)}: relative links break at another depth: {relative[:3]}"
    for row in EDITIONS:
        soup = read_page(site_dir / row.code / "404.html")
        assert soup.html["lang"] == row.tag and soup.find("meta", attrs={"name": "robots"})["content"] == "noindex"


@pytest.mark.parametrize("row", [row for row in EDITIONS if row.cjk], ids=lambda row: row.code)
def test_no_english_theme_words_on_chinese_pages(site_dir, row):
    problems = [f"{page.relative_to(site_dir)}: {words}" for page in html_pages(site_dir / row.code)
                if (words := theme_english(read_page(page)))]  # fmt: skip
    assert not problems, "\n".join(problems)


def test_the_theme_word_check_hears_labels_and_titles():
    soup = BeautifulSoup('<p>中文</p><button aria-label="Toggle Light / Dark / Auto color theme"></button>'
                         '<svg><title>Menu</title></svg><a title="Back to top">↑</a>', "html.parser")  # fmt: skip
    assert theme_english(soup) == ["Back to top", "Menu", "Toggle"]


def numbered_anchors(soup: BeautifulSoup) -> list[str]:
    return [tag["id"] for tag in soup.find_all(id=NUMBERED)] + [
        link["href"] for link in soup.find_all("a", href=re.compile(r"#id\d+$"))]


@pytest.mark.parametrize("lang", CODES)
def test_headings_have_readable_anchors(site_dir, lang):
    problems = [f"{page.relative_to(site_dir)}: {found}" for page in html_pages(site_dir / lang)
                if (found := numbered_anchors(read_page(page)))]  # fmt: skip
    assert not problems, "\n".join(problems)
    soup = read_page(page_path(site_dir, lang, "copying/plot_04_detach"))
    for heading in soup.select("article section > h2"):
        assert not NUMBERED.match(heading.parent["id"])


def test_the_anchor_check_notices_numbered_ids():
    soup = BeautifulSoup('<section id="id3"><h2>标题</h2></section><a href="#id3">x</a>', "html.parser")
    assert numbered_anchors(soup) == ["id3", "#id3"]


def expected_stamp_facts(name: str) -> dict:
    recorded = json.loads((ROOT / "gallery" / "asserts.json").read_text(encoding="utf-8"))[name]
    # A GPU box's checks (marked " (GPU)") run, and count as passed, only on a build with a GPU.
    gpu = sum(check.endswith(" (GPU)") for check in recorded)
    checks = len(recorded) - (0 if torch.cuda.is_available() else gpu)
    facts = {"torch": torch.__version__, "python": platform.python_version(), "checks": str(checks)}
    return facts | ({"GPU checks not run": str(gpu)} if gpu and not torch.cuda.is_available() else {})


def stamp_problems(text: str, name: str) -> list[str]:
    facts = expected_stamp_facts(name)
    # Each value as a whole word: the count 34 is not named by a commit id that happens to hold "34".
    problems = [f"{what} {value} not named" for what, value in facts.items()
                if not re.search(rf"(?<![\w.+]){re.escape(value)}(?![\w.+])", text)]
    if not re.search(r"[0-9a-f]{12}.{1,3}\d{4}-\d{2}-\d{2}", text) and "git" not in text:
        problems.append("no commit and date")
    return problems + release_problems(text, name)


@functools.cache
def _page_code(name: str) -> str:
    from sitetools.releases import code_digests

    return code_digests.page_digest((ROOT / "gallery" / CODES[0] / f"{name}.py").read_text(encoding="utf-8"))


def _recorded_page_code(record: dict, name: str) -> str | None:
    """The digest of page ``name``'s code that ``record`` ran: the record's own, else the one kept for its commit."""
    if "code" in record["pages"][name]:
        return record["pages"][name]["code"]
    kept = ROOT / "docs" / "_shared" / "releases" / "code" / f"{record['commit']}.json"
    return json.loads(kept.read_text(encoding="utf-8"))["pages"].get(name) if kept.is_file() else None


def expected_releases(name: str) -> dict[str, int | str | None]:
    """Each release whose record names page ``name``: how many of its checks differ there ("all" when it
    crashed), or None when the page's checks or code changed since the record (read from the records, the
    manifest and the page here, not through the stamp's code)."""
    manifest = collections.Counter(json.loads((ROOT / "gallery" / "asserts.json").read_text(encoding="utf-8"))[name])
    found = {}
    for path in sorted((ROOT / "docs" / "_shared" / "releases").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        page = record["pages"].get(name)
        if page is None:
            continue
        checks = page.get("checks")
        if _recorded_page_code(record, name) != _page_code(name):
            found[record["release"]] = None
        elif checks is None:
            found[record["release"]] = "all"
        elif collections.Counter(check["check"] for check in checks) != manifest:
            found[record["release"]] = None
        else:
            found[record["release"]] = sum(check["status"] not in ("holds", "no GPU") for check in checks)
    return found


def release_problems(text: str, name: str) -> list[str]:
    """The stamp names every release that ran the page's present checks, with the count of those that differ,
    and the releases whose records predate them, unless every record does."""
    releases = expected_releases(name)
    every_stale = all(count is None for count in releases.values())
    problems = []
    for release, count in releases.items():
        named = re.search(rf"(?<![\d.]){re.escape(release)}(?!\.?\d)", text)
        if count is None and every_stale:
            if named:
                problems.append(f"release {release} named, though every record predates the page's checks")
        elif not named:
            problems.append(f"release {release} not named")
        elif count not in (None, 0) and _differing(text).get(release) != count:
            problems.append(f"release {release}: {count} differing checks not named")
    return problems


def _differing(text: str) -> dict[str, int | str]:
    """Release -> how many checks the stamp's clauses say do not hold there, summed over its clauses, one per status
    ("5 checks differ on each of 2.4.1, 2.6.0"; "2 checks not run on 2.4.1";
    "2.4.1、2.6.0 各有 5 项检查与本页不同"), or "all": each count of a status is said once for all the releases that
    share it."""
    found: dict[str, int | str] = {}
    said = r"(?:differs?|not available|errored|not run)"
    english = rf"(\S+) checks? {said} on (?:each of )?(.*?)(?=;|\.(?:\s|$)|$)"
    clauses = [(m[1], m[2]) for m in re.finditer(english, text)]
    chinese = r"([^，；。]*?) (?:各有|上有) (\S+) 项检查(?:与本页不同|不可用|出错|未运行)"
    clauses += [(m[2], m[1]) for m in re.finditer(chinese, text)]
    for count, releases in clauses:
        for release in re.findall(r"\d+\.\d+(?:\.\d+)?", releases):
            every = "all" in (count, found.get(release)) or count == "全部"
            found[release] = "all" if every else found.get(release, 0) + int(count)
    return found


SCRIPTS = [script for lang in CODES for script in gallery_scripts(lang)]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: f"{s.parts[-3]}/{relative_name(s)}")
def test_every_example_page_and_notebook_carries_the_stamp(site_dir, script):
    lang = next(part for part in script.parts if part in CODES)
    name = relative_name(script)
    stamp = read_page(page_path(site_dir, lang, name)).select_one("p.verified-stamp")
    assert stamp is not None, f"{lang}/{name}: no stamp"
    assert not stamp_problems(stamp.get_text(), name)
    notebooks = list((site_dir / lang / "_downloads").rglob(f"{Path(name).name}.ipynb"))
    assert len(notebooks) == 1
    title, under = json.loads(notebooks[0].read_text(encoding="utf-8"))["cells"][:2]
    assert title["cell_type"] == "markdown" and "".join(title["source"]).lstrip().startswith("# "), "title first"
    assert under["cell_type"] == "markdown" and "".join(under["source"]) == stamp.get_text(), "the stamp under it"


def _releases_named(name: str) -> str:
    """The releases as a right stamp names them: those that ran with their differing counts, then the rest."""
    releases = expected_releases(name)

    ran = [release for release, count in releases.items() if count is not None]
    groups: dict[int | str, list[str]] = {}
    for release, count in releases.items():
        if count:
            groups.setdefault(count, []).append(release)
    clauses = [f"{count} check{' differs' if count == 1 else 's differ'} on {'each of ' if len(where) > 1 else ''}"
               f"{', '.join(where)}" for count, where in groups.items()]
    stale = [release for release, count in releases.items() if count is None]
    later = f" Not rerun on torch {', '.join(stale)}." if ran and stale else ""
    return f" Also run on torch {', '.join(ran)}" + (f"; {'; '.join(clauses)}." if clauses else ".") + later


def test_the_stamp_check_notices_a_wrong_count():
    name = "copying/plot_04_detach"
    facts = expected_stamp_facts(name)
    good = (f"torch {facts['torch']}, Python {facts['python']}, commit 0123456789ab (2026-01-01): {facts['checks']}"
            + _releases_named(name))
    assert stamp_problems(good, name) == []
    wrong = good.replace(f": {facts['checks']}", ": 1000")
    assert stamp_problems(wrong, name) == [f"checks {facts['checks']} not named"]


def test_the_stamp_check_notices_a_release_left_out_or_its_count_wrong(monkeypatch):
    """On records made up here (the real ones may hold no differing check at a given time): a release where three
    checks differ, one where all hold, one whose record predates the page's checks."""
    made_up = {"2.4.1": 3, "2.6.0": 0, "2.8.0": None}
    monkeypatch.setattr(f"{__name__}.expected_releases", lambda name: made_up)
    name = "copying/plot_01_alias_and_data"
    good = _releases_named(name)
    assert good == " Also run on torch 2.4.1, 2.6.0; 3 checks differ on 2.4.1. Not rerun on torch 2.8.0."
    assert release_problems(good, name) == []
    miscounted = good.replace("; 3 check", "; 4 check")
    assert "release 2.4.1: 3 differing checks not named" in release_problems(miscounted, name)
    assert "release 2.4.1 not named" in release_problems(good.replace("2.4.1", "9.9.9"), name)
    assert "release 2.8.0 not named" in release_problems(good.replace(" Not rerun on torch 2.8.0.", ""), name)
