"""The search ranks by relevance: a small site of made-up pages, indexed by the build's own indexer
(``sitetools.web.search``) and searched by the real search script (``docs/_static/site_search.js``) in
Chromium. Each test's expected order follows from the pages' text, written here, not from the code.
These tests need no built site, so they are in the fast tier (about 10 s), where the mutation audit
runs them (the ``chromium`` fixture, without the ``browser`` fixture that marks a test slow)."""

import shutil
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from sitetools.web import search as site_search
from tests.gallery_tools import serve

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
FILLER = "Tensors hold numbers. " * 40

#: edition -> {page: (title, body HTML)}. Each page is small and says what a test needs it to say.
PAGES = {
    "en": {
        "leak.html": ("Loss totals", f"<p>A running total of the loss is a memory leak.</p><p>{FILLER}</p>"),
        "memory.html": ("Memory", "<p>" + "Memory, memory and more memory. " * 30 + "</p>"),
        "names.html": ("Sharing", "<p>Call <code>share_memory_()</code> before the workers start.</p>"),
        "long.html": ("A long reference", f"<p>{FILLER}</p><h2 id='which-one'>Which one</h2><p>Use clone to copy.</p>"),
        "other.html": ("Other", f"<p>{FILLER}</p>"),
        "moves.html": ("Moving", "<p>After <code>w = x.cuda()</code> the tensor is on the GPU.</p>"),
        "chatter.html": ("Chatter", "<p>" + "Why is it so? What is the way it is, and when? " * 8 + "</p>"),
    },
    "zh_CN": {
        "grow.html": ("显存", f"<p>显存一直增长，每一步都在增长。</p><p>{'张量保存数字。' * 40}</p>"),
        "vram.html": ("显存占用", "<p>" + "显存的占用。" * 30 + "</p>"),
        "leaf.html": ("叶子节点", "<p>叶子节点上的原地操作会报错。</p>"),
    },
}
TAGS = {"en": "en", "zh_CN": "zh-CN"}


def _page(tag: str, title: str, body: str) -> str:
    return (f'<!doctype html><html lang="{tag}"><head><meta charset="utf-8"><title>{title}</title></head><body>'
            f'<article role="main" id="furo-main-content"><section id="top"><h1>{title}</h1>{body}</section>'
            "</article></body></html>")  # fmt: skip


def _search_page(tag: str) -> str:
    """The attributes the search script reads, as docs/_templates/search.html writes them."""
    words = {"empty": "Type a question.",
             "searching": "…", "found": "{count} pages", "none": "none", "unmatched": "No page contains: {words}.",
             "more": "More", "file": "file", "failed": "failed", "separator": ", "}
    attributes = " ".join(f'data-{name}="{text}"' for name, text in words.items())
    vocabulary = ' data-vocabulary="pagefind/vocabulary.json"' if tag == "zh-CN" else ""
    return (f'<!doctype html><html lang="{tag}"><head><meta charset="utf-8"><title>Search</title></head><body>'
            f'<form role="search"><input name="q"></form><div id="search-results" {attributes}{vocabulary}></div>'
            '<script defer src="site_search.js"></script></body></html>')  # fmt: skip


#: Readers' words added to a page of the small site: page -> [(anchor, words)].
READERS = {"other.html": [("top", ("OOM", "out of memory"))]}


#: A site of its own for the sections test: each of its words is on more pages than the search script
#: checks by their text (``FEW`` in site_search.js), so no page's data is loaded before the sections are
#: chosen; the small site's pages would move the other tests' ranks.
SECTIONS = {"en": {
    "sections.html": ("Saving", "<h2 id='pickling'>Pickling</h2><p>" + "A pickle of a pickle. " * 6 + "</p>"
                      "<h2 id='both'>Both</h2><p>The pickle holds the whole storage.</p>"
                      "<h2 id='storing'>Storing</h2><p>" + "Storage, storage and storage. " * 6 + "</p>"),
    **{f"note{i}.html": (f"Note {i}", "<p>A pickle, a storage.</p>") for i in range(6)},
}}


def _indexed(site, editions):
    for code, pages in editions.items():
        folder = site / code
        folder.mkdir()
        prepared = {name: site_search.prepared(_page(TAGS[code], *page), READERS.get(name, []))
                    for name, page in pages.items()}  # fmt: skip
        for name, html in prepared.items():
            (folder / name).write_text(html, encoding="utf-8")
        site_search.index(folder, prepared, site_search.ChineseWords(code) if code == "zh_CN" else None)
        (folder / "search.html").write_text(_search_page(TAGS[code]), encoding="utf-8")
        shutil.copyfile(ROOT / "docs" / "_static" / "site_search.js", folder / "site_search.js")
    return site


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    with serve(_indexed(tmp_path_factory.mktemp("search-site"), PAGES)) as url:
        yield url


@pytest.fixture(scope="module")
def sections_site(tmp_path_factory):
    with serve(_indexed(tmp_path_factory.mktemp("sections-site"), SECTIONS)) as url:
        yield url


def results(browser, url: str, code: str, query: str) -> tuple[list[str], str]:
    """The result links (page#anchor) and the summary line of a search. Pagefind answers a word whose index
    chunk failed to download as a word no page holds (it only logs the failure), so a search during which
    the test's own server failed to send a file of the index is asked once more, on a new page; any other
    console error is named in the summary, where the assertion messages show it."""
    for attempt in (1, 2):
        page = browser.new_page()
        messages = []
        page.on("console", lambda message: messages.append(message))  # noqa: B023 (read before the next page)
        try:
            page.goto(f"{url}/{code}/search.html?q={quote(query)}")
            page.wait_for_selector("#search-results[data-ms]", state="attached", timeout=15_000)
            links = page.eval_on_selector_all("#search-results ul.search li > a", "links => links.map(a => a.href)")
            summary = page.inner_text("#search-results p.search-summary")
        finally:
            page.close()
        # The browser's own /favicon.ico request is answered 404; every other error is the search's.
        errors = [message.text for message in messages if message.type == "error" and "404" not in message.text]
        if not (attempt == 1 and any("Failed to load the index chunk" in error for error in errors)):
            break
    if errors:
        summary += " [console errors: " + " | ".join(errors) + "]"
    return [urlsplit(link).path.rsplit("/", 1)[-1] + (f"#{urlsplit(link).fragment}" if urlsplit(link).fragment else "")
            for link in links], summary  # fmt: skip


def pages_of(links: list[str]) -> list[str]:
    return [link.split("#")[0] for link in links]


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_page_that_matches_more_words_ranks_above_one_that_matches_one_word_often(chromium, small_site):
    """memory.html says "memory" thirty times; leak.html says "memory" once and "leak" once."""
    links, summary = results(chromium, small_site, "en", "memory leak")
    assert pages_of(links)[:2] == ["leak.html", "memory.html"], (links, summary)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_an_unknown_word_does_not_empty_the_results_and_is_named(chromium, small_site):
    links, summary = results(chromium, small_site, "en", "memory leak qqxyzzyqq")
    assert pages_of(links)[:1] == ["leak.html"], (links, summary)
    assert "No page contains: qqxyzzyqq." in summary, summary


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_bare_name_matches_the_name_with_its_underscore(chromium, small_site):
    links, summary = results(chromium, small_site, "en", "share_memory")
    assert pages_of(links)[:1] == ["names.html"], (links, summary)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_call_on_a_name_no_page_uses_finds_the_call_on_another_name(chromium, small_site):
    """No page says a.cuda(); moves.html says x.cuda()."""
    links, summary = results(chromium, small_site, "en", "a.cuda()")
    assert pages_of(links)[:1] == ["moves.html"], (links, summary)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_result_leads_to_the_section_that_matches(chromium, small_site):
    links, summary = results(chromium, small_site, "en", "clone")
    assert links[:1] == ["long.html#which-one"], (links, summary)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_result_leads_to_the_section_that_holds_most_of_the_words(chromium, sections_site):
    """Each word alone is densest in a section of its own; only #both holds the two. (Pagefind keeps one
    object per page and writes each word's sections into it, so the words' sections must be read one
    word at a time.)"""
    links, summary = results(chromium, sections_site, "en", "pickle storage")
    assert links[:1] == ["sections.html#both"], (links, summary)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_words_that_only_ask_or_join_do_not_decide(chromium, small_site):
    """Only chatter.html says "why", "is", "it", "the"; only long.html says "clone"."""
    links, summary = results(chromium, small_site, "en", "why is it the clone")
    assert pages_of(links) == ["long.html"], (links, summary)


def test_an_empty_query_says_what_to_type(chromium, small_site):
    links, summary = results(chromium, small_site, "en", "")
    assert links == [] and summary == "Type a question.", summary


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_readers_words_find_a_page_but_its_excerpt_shows_its_own_text(chromium, small_site):
    page = chromium.new_page()
    try:
        page.goto(f"{small_site}/en/search.html?q=OOM")
        page.wait_for_selector("#search-results[data-ms]", state="attached", timeout=15_000)
        links = page.eval_on_selector_all("#search-results ul.search li > a", "links => links.map(a => a.href)")
        excerpt = page.inner_text("#search-results ul.search li p.context")
    finally:
        page.close()
    assert pages_of([link.rsplit("/", 1)[-1] for link in links]) == ["other.html"], links
    assert "OOM" not in excerpt and "⟦" not in excerpt and "Tensors hold numbers" in excerpt, excerpt


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_nonsense_lists_nothing(chromium, small_site):
    links, summary = results(chromium, small_site, "en", "qqxyzzyqq")
    assert links == []


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_an_unspaced_chinese_query_counts_each_of_its_words(chromium, small_site):
    """显存增长 typed without a space: grow.html holds both words, vram.html only 显存 (thirty times);
    both are listed, the page with both words first."""
    links, summary = results(chromium, small_site, "zh_CN", "显存增长")
    assert pages_of(links)[:2] == ["grow.html", "vram.html"], (links, summary)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_two_character_chinese_word_finds_its_page(chromium, small_site):
    links, summary = results(chromium, small_site, "zh_CN", "报错")
    assert pages_of(links) == ["leaf.html"], (links, summary)


# --- The index's own marks and the readers' words (no browser) -------------------------------------------


def test_readers_words_go_after_the_heading_of_their_section_with_a_weight():
    html = _page("en", "Title", "<span id='fix'></span><h2>The fix</h2><p>text</p>").replace("'fix'", '"fix"')
    out = site_search.prepared(html, [("fix", ("OOM", "memory leak"))])
    assert '<h2>The fix</h2>\n<p data-pagefind-weight="6">⟦OOM · memory leak⟧</p>' in out, out
    assert "<article" in out and "data-pagefind-body" in out


CODE = '<div class="highlight-Python notranslate"><pre>{}</pre></div>'
DOCTEST = '<div class="highlight-pycon notranslate"><pre>&gt;&gt;&gt; {}\n&gt;&gt;&gt; f(a)\ntensor([1.])</pre></div>'
OUTPUT = '<div class="sphx-glr-script-out"><pre>tensor([1.])</pre></div>'


@pytest.mark.parametrize(("code", "output", "ignored"), [
    ('<span class="k">def</span> same_storage(x, y): ...', "", True),  # helpers: defined, nothing shown
    ('<span class="k">def</span> show(t): ...\nshow(a)', OUTPUT, False),  # a function used at once
    ("a.add_(1)", "", False),  # a section that checks without printing
    ('<span class="k">def</span> f(t): ...', "", False),  # a doctest shows its output in its own block
])
def test_a_section_of_helper_functions_is_left_out_of_the_index(code, output, ignored):
    block = (DOCTEST if "f(t)" in code else CODE).format(code)
    body = (f'<section id="helpers"><h2>Helpers</h2><p>same_storage compares</p>{block}{output}</section>'
            '<section id="next"><h2>Next</h2><p>text</p></section>')
    out = site_search.prepared(_page("en", "Title", body), [])
    assert ('<section data-pagefind-ignore id="helpers">' in out) is ignored, out
    assert '<section id="next">' in out, out


def test_the_table_of_checks_that_changed_between_releases_is_left_out_of_the_index():
    tables = '<table class="release-records"><tr><td>2.4.1</td></tr></table>' \
             '<table class="release-records release-changes"><tr><td>UserWarning: To copy</td></tr></table>'
    out = site_search.prepared(_page("en", "Releases", tables), [])
    assert '<table class="release-records" data-pagefind-weight' in out, out
    assert '<table class="release-records release-changes" data-pagefind-ignore' in out, out


def test_the_list_of_pages_changed_since_the_records_is_left_out_of_the_index():
    """Other pages' titles: a reader who types them is looking for those pages."""
    stale = '<ul class="release-stale-pages simple"><li><p>梯度检查点让前向传播执行两次</p></li></ul>'
    out = site_search.prepared(_page("zh_CN", "各版本 torch 上的检查", stale), [])
    assert '<ul class="release-stale-pages simple" data-pagefind-ignore>' in out, out
    tables = '<ul class="release-older-tables simple"><li><p>视图操作一览</p></li></ul>'
    out = site_search.prepared(_page("zh_CN", "各版本 torch 上的检查", tables), [])
    assert '<ul class="release-older-tables simple" data-pagefind-ignore>' in out, out


def test_a_word_list_entry_with_an_unknown_label_fails_naming_file_and_line(tmp_path, monkeypatch):
    words = tmp_path / "words.toml"
    words.write_text('# list\n\n[[words]]\nlabel = "no-such-page"\nen = ["OOM"]\n', encoding="utf-8")
    monkeypatch.setattr(site_search, "ROOT", tmp_path)
    entries = site_search.read_words(words)
    monkeypatch.setattr(site_search, "labels", lambda folder: {"questions-views": ("v.html", "")})
    with pytest.raises(site_search.SearchIndexError, match=r"words\.toml:3: no page or section of the en edition"):
        site_search.placed_words(tmp_path, "en", entries)


def test_every_entry_of_the_word_list_names_words_of_known_editions():
    entries = site_search.read_words()
    assert entries and all(entry.words for entry in entries)
