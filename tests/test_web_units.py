"""Reading online, fast tier: the base URL, the sitemap and robots.txt, readable heading anchors, the
theme's words in every edition, the verified-on stamp's commit, and the source links. No site build."""

import subprocess
from types import SimpleNamespace

import pytest
from babel.messages.pofile import read_po
from docutils import nodes
from docutils.core import publish_doctree
from sphinx.errors import ExtensionError

from editions import CODES, EDITIONS
from sitetools import web
from tests.claims_tools import ROOT, language_switch
from tests.test_editions import fake_app

# --- Base URL -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [
    ("https://example.org/tensor-copies", "https://example.org/tensor-copies/"),
    ("https://example.org/tensor-copies///", "https://example.org/tensor-copies/"),
    (" http://127.0.0.1:8765/ ", "http://127.0.0.1:8765/"),
    ("", ""),
])  # fmt: skip
def test_site_url_has_one_trailing_slash(value, expected):
    assert web.site_url(value) == expected


@pytest.mark.parametrize("value", ["example.org/tensor-copies", "ftp://example.org/", "https://x.org/?a=1", "/docs/"])
def test_a_site_url_that_is_not_an_address_is_refused(value):
    with pytest.raises(web.SiteUrlError, match="SITE_URL"):
        web.site_url(value)


def test_site_path_is_the_folder_the_site_is_published_in():
    assert web.site_path("https://example.org/tensor-copies/") == "/tensor-copies/"
    assert web.site_path("") == "/"


def switch(language: str, base: str) -> dict:
    app = fake_app(language)
    app.config.tensorcopy_site_url = base
    context = {"pathto": lambda target, resource: "../"}
    language_switch._page_context(app, "examples/index", "page.html", context, None)
    return context


def test_alternates_are_absolute_with_a_site_url_and_relative_without():
    published = switch("zh_CN", "https://example.org/t/")["metatags"]
    for row in EDITIONS:
        assert f'hreflang="{row.tag}" href="https://example.org/t/{row.code}/examples/index.html"' in published
    assert 'hreflang="x-default" href="https://example.org/t/"' in published
    local = switch("zh_CN", "")["metatags"]
    assert "https://" not in local and 'href="../../en/examples/index.html"' in local


# --- Sitemap and robots.txt ---------------------------------------------------------------------


def fake_site(tmp_path):
    for code in CODES:
        for page in ("index.html", "examples/copying/plot_01_x.html", "search.html", "404.html", "_static/x.html"):
            (tmp_path / code / page).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / code / page).write_text("<p>", encoding="utf-8")
    return tmp_path


def test_the_sitemap_lists_every_content_page_of_every_edition_with_its_alternates(tmp_path):
    text = web.sitemap(fake_site(tmp_path), "https://example.org/t/", list(CODES))
    for code in CODES:
        for page in ("index.html", "examples/copying/plot_01_x.html"):
            assert f"<loc>https://example.org/t/{code}/{page}</loc>" in text
        assert text.count(f'hreflang="{dict((r.code, r.tag) for r in EDITIONS)[code]}"') == 2 * len(CODES)
    for skipped in ("search.html", "404.html", "_static"):
        assert skipped not in text


def test_the_sitemap_check_sees_a_missing_page(tmp_path):
    site = fake_site(tmp_path)
    (site / CODES[-1] / "examples/copying/plot_01_x.html").unlink()
    text = web.sitemap(site, "https://example.org/t/", list(CODES))
    assert f"<loc>https://example.org/t/{CODES[-1]}/examples/copying/plot_01_x.html</loc>" not in text


def test_robots_names_the_sitemap_only_when_the_address_is_known():
    assert web.robots("https://example.org/t/").splitlines()[-1] == "Sitemap: https://example.org/t/sitemap.xml"
    assert "Sitemap" not in web.robots("")


def test_root_files_without_a_site_url_have_no_absolute_links(tmp_path):
    site = fake_site(tmp_path)
    (site / "index.html").write_text((ROOT / "docs" / "_landing" / "index.html").read_text(encoding="utf-8"))
    web.write_root_files(site, list(CODES), base="")
    assert not (site / "sitemap.xml").exists()
    for name in ("index.html", "404.html", "robots.txt"):
        text = (site / name).read_text(encoding="utf-8")
        assert "<!-- head-links -->" not in text and "{{" not in text and "127.0.0.1" not in text
    assert (site / "favicon.svg").is_file()
    for code in CODES:
        assert f'href="/{code}/index.html"' in (site / "404.html").read_text(encoding="utf-8")


def test_root_files_with_a_site_url(tmp_path):
    site = fake_site(tmp_path)
    (site / "index.html").write_text((ROOT / "docs" / "_landing" / "index.html").read_text(encoding="utf-8"))
    web.write_root_files(site, list(CODES), base="https://example.org/t/")
    landing = (site / "index.html").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="https://example.org/t/">' in landing
    assert all(f'hreflang="{row.tag}" href="https://example.org/t/{row.code}/"' in landing for row in EDITIONS)
    assert 'href="/t/en/index.html"' in (site / "404.html").read_text(encoding="utf-8")
    assert (site / "sitemap.xml").is_file()


# --- Readable heading anchors -------------------------------------------------------------------


DOCUTILS = {"report_level": 5, "auto_id_prefix": "id", "doctitle_xform": False}  # numbered ids as Sphinx makes them


def heading_ids():
    from tensorcopy_sphinx import heading_ids as module

    return module


def transformed(text: str) -> nodes.document:
    document = publish_doctree(text, settings_overrides=DOCUTILS)
    heading_ids().ReadableSectionIds(document).apply()
    return document


def test_slug_keeps_the_words_of_any_script():
    slug = heading_ids().slug
    assert slug("detach()：同一块内存，脱离计算图") == "detach-同一块内存-脱离计算图"
    assert slug("Ｂ = a.data") == "b-a-data"
    assert slug("：（）") == ""


def test_chinese_sections_get_ids_from_their_titles_the_same_on_every_run():
    section = "修改会双向传递\n--------------\n\n文字\n\n"
    text = f"标题\n====\n\n{section}{section}"
    before = publish_doctree(text, settings_overrides=DOCUTILS)
    assert [s["ids"][0] for s in before.findall(nodes.section)] == ["id1", "id2", "id3"]  # docutils numbers them
    ids = [[s["ids"] for s in transformed(text).findall(nodes.section)] for _ in range(2)]
    assert ids[0] == ids[1] == [["标题"], ["修改会双向传递"], ["修改会双向传递-2"]]


def test_references_follow_the_renamed_id():
    document = transformed("标题\n====\n\n小节\n----\n\n见 小节_。\n")
    refids = [node["refid"] for node in document.findall(nodes.reference) if "refid" in node]
    assert refids == ["小节"]


# --- The theme's words --------------------------------------------------------------------------


def catalog(code: str) -> dict[str, str]:
    path = ROOT / "docs" / "_locale" / code / "LC_MESSAGES" / "sphinx.po"
    with path.open("rb") as handle:
        return {message.id: message.string for message in read_po(handle) if message.id}


def test_every_theme_word_has_a_chinese_translation():
    from tensorcopy_sphinx import theme_i18n

    words = catalog("zh_CN")
    missing = [word for word in theme_i18n.words() if not words.get(word)]
    assert not missing
    for word in theme_i18n.words():
        assert not any(char.isascii() and char.isalpha() for char in words[word].replace("{title}", "")
                       .replace("{sphinx}", "").replace("{furo}", "").replace("Furo", "")
                       .replace("JavaScript", "")), word  # names stay as they are


def test_a_missing_translation_fails_the_build_naming_the_catalog():
    from tensorcopy_sphinx import theme_i18n

    words = catalog("zh_CN")
    del words["Back to top"]
    app = SimpleNamespace(config=SimpleNamespace(language="zh_CN"),
                          translator=SimpleNamespace(gettext=lambda word: words.get(word, word)))
    with pytest.raises(ExtensionError, match=r"'Back to top'.*docs/_locale/zh_CN/LC_MESSAGES/sphinx.po"):
        theme_i18n._check(app)
    english = SimpleNamespace(config=SimpleNamespace(language="en"), translator=SimpleNamespace(gettext=str))
    theme_i18n._check(english)  # the theme's own language: nothing to translate


def test_the_stamp_counts_one_gpu_check_in_the_singular():
    from tensorcopy_sphinx import verified_stamp

    english = SimpleNamespace(config=SimpleNamespace(language="en"), translator=SimpleNamespace(gettext=str))
    assert verified_stamp.gpu_not_run(english, 1) == " Its GPU check (1) did not run on this build."
    assert verified_stamp.gpu_not_run(english, 3) == " Its GPU checks (3) did not run on this build."
    words = catalog("zh_CN")
    chinese = SimpleNamespace(config=SimpleNamespace(language="zh_CN"),
                              translator=SimpleNamespace(gettext=lambda word: words.get(word, word)))
    assert [verified_stamp.gpu_not_run(chinese, n) for n in (1, 3)] == [
        "另有 1 项 GPU 检查，本次构建没有运行。", "另有 3 项 GPU 检查，本次构建没有运行。"]


def _stamped_records(statuses: dict[str, list[str]]) -> list[tuple[dict, set[str]]]:
    """Records of a page ``p`` that ran its present code, one per release, with its checks' statuses."""
    return [({"release": release, "pages": {"p": {"checks": [{"status": status} for status in checks]}}}, set())
            for release, checks in statuses.items()]


def test_the_stamp_names_each_status_as_the_releases_page_does():
    """A check that did not run (its page stopped first) is not said to differ, nor one that errored or was not
    available; each status has its own clause, in both editions."""
    from tensorcopy_sphinx import verified_stamp

    from sitetools.releases.records import STATUSES

    assert set(verified_stamp.STATUS_CLAUSES) == set(STATUSES) - {"holds", "no GPU"}
    records = _stamped_records({"2.4.1": ["holds", "not run", "not run"], "2.6.0": ["not run", "not run", "no GPU"],
                                "2.8.0": ["differs", "errored", "not available"], "2.10.0": ["holds", "no GPU"]})
    english = SimpleNamespace(config=SimpleNamespace(language="en"), translator=SimpleNamespace(gettext=str),
                              env=SimpleNamespace(tensorcopy_stamp_records=records))
    assert verified_stamp._releases_text(english, "p") == (
        " Also run on torch 2.4.1, 2.6.0, 2.8.0, 2.10.0; 2 checks not run on each of 2.4.1, 2.6.0; 1 check differs on"
        " 2.8.0; 1 check not available on 2.8.0; 1 check errored on 2.8.0.")
    words = catalog("zh_CN")
    chinese = SimpleNamespace(config=SimpleNamespace(language="zh_CN"),
                              translator=SimpleNamespace(gettext=lambda word: words.get(word, word)),
                              env=SimpleNamespace(tensorcopy_stamp_records=_stamped_records(
                                  {"2.4.1": ["not run"], "2.6.0": ["differs", "differs"]})))
    assert verified_stamp._releases_text(chinese, "p") == (
        "本页的检查还在 torch 2.4.1、2.6.0 上运行过，其中 2.4.1 上有 1 项检查未运行；2.6.0 上有 2 项检查与本页不同。")


# --- The stamp's commit -------------------------------------------------------------------------


def git(folder, *args):
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
                        "GIT_COMMITTER_EMAIL": "a@b", "GIT_COMMITTER_DATE": "2026-01-02T23:30:00-05:00",
                        "GIT_AUTHOR_DATE": "2026-01-02T23:30:00-05:00", "HOME": str(folder)})  # fmt: skip


def test_the_stamp_names_the_commit_and_its_date_not_the_build_time(tmp_path):
    assert web.source_commit(tmp_path) is None
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("1")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-qm", "x")
    first = web.source_commit(tmp_path)
    assert first == web.source_commit(tmp_path)
    assert first["date"] == "2026-01-03" and not first["changed"]  # the commit's date, in UTC
    assert len(first["commit"]) == 40 and first["short"] == first["commit"][:12]
    (tmp_path / "a.txt").write_text("2")
    assert web.source_commit(tmp_path)["changed"]


# --- Source links -------------------------------------------------------------------------------


def test_no_source_links_without_a_repository():
    from tensorcopy_sphinx import site_links

    app = SimpleNamespace(config=SimpleNamespace(tensorcopy_repository=""))
    assert site_links.source_links(app, "index", "Home") == []


def test_the_audit_server_compresses_text_as_the_host_does(tmp_path):
    import gzip
    import urllib.request

    from sitetools.web.audit import serve

    (tmp_path / "en").mkdir()
    page = "<html>" + "tensor " * 500 + "</html>"
    (tmp_path / "en" / "index.html").write_text(page, encoding="utf-8")
    (tmp_path / "img.png").write_bytes(b"\x89PNG" + bytes(100))
    with serve(tmp_path, 0) as url:
        asked = urllib.request.Request(url + "en/", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(asked) as answer:
            assert answer.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(answer.read()).decode() == page
        with urllib.request.urlopen(url + "en/index.html") as answer:  # a client that does not accept gzip
            assert answer.headers.get("Content-Encoding") is None and answer.read().decode() == page
        png = urllib.request.Request(url + "img.png", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(png) as answer:
            assert answer.headers.get("Content-Encoding") is None, "images are sent as they are"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_audit_server_serves_a_project_site_under_its_path_with_its_404_page(tmp_path):
    """As GitHub Pages serves a project site: under /REPO/ only, and a missing address there answered
    with status 404 and the site's own 404.html."""
    import urllib.error
    import urllib.request

    from sitetools.web.audit import serve

    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "index.html").write_text("<html>home</html>", encoding="utf-8")
    (tmp_path / "404.html").write_text("<html>not found</html>", encoding="utf-8")
    (tmp_path / "index.html").write_text("<html>landing</html>", encoding="utf-8")

    def get(url: str) -> tuple[int, str, str]:
        try:
            with urllib.request.urlopen(url) as answer:
                return answer.status, answer.read().decode(), answer.url
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), url

    with serve(tmp_path, 0, "/tensor-copies/") as url:
        host = url.removesuffix("tensor-copies/")
        assert url.startswith("http://127.0.0.1:") and url.endswith("/tensor-copies/")
        assert get(url + "en/index.html")[:2] == (200, "<html>home</html>")
        assert get(url + "en/")[:2] == (200, "<html>home</html>")
        assert get(url + "en/no/such/page.html")[:2] == (404, "<html>not found</html>")
        assert get(url.rstrip("/")) == (200, "<html>landing</html>", url), "redirected to the folder's slash"
        status, body, _ = get(host + "en/index.html")  # the site's file, but outside its base path
        assert status == 404 and "home" not in body and "not found</html>" not in body
    with serve(tmp_path, 0) as url:
        assert get(url + "en/index.html")[:2] == (200, "<html>home</html>")
        assert get(url + "missing.html")[:2] == (404, "<html>not found</html>")


def test_the_copy_button_says_yi_fuzhi_without_an_ascii_exclamation_mark(tmp_path):
    """sphinx-copybutton's template as installed holds '复制成功!'; the published script says 已复制."""
    from pathlib import Path

    import sphinx_copybutton
    from tensorcopy_sphinx import theme_i18n

    template = (Path(sphinx_copybutton.__file__).parent / "_static" / "copybutton.js_t").read_text(encoding="utf-8")
    assert "'copy_success': '复制成功!'" in template, "sphinx-copybutton changed its Chinese words: review the fix"
    fixed = theme_i18n.fix_copybutton(template)
    assert "复制成功!" not in fixed and "'copy_success': '已复制'" in fixed
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "copybutton.js").write_text(template, encoding="utf-8")
    theme_i18n._copybutton(SimpleNamespace(outdir=str(tmp_path)), None)
    assert "'copy_success': '已复制'" in (tmp_path / "_static" / "copybutton.js").read_text(encoding="utf-8")
