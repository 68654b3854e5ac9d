"""中英对照 in Chromium: the button under the language switch shows the other edition's text under
this page's, cell by cell; the choice follows the reader to the next page; search, copy buttons and
the language switch keep working; a phone's 390 px screen does not scroll sideways.

What the English page says in cell k is read from the English page itself, by a rule written here
(the paragraphs and headings between code block k-1 and code block k), not by the page's script."""

import pytest

pytestmark = pytest.mark.browser

PAGE = "examples/questions/plot_03_best_weights.html"
NEXT = "examples/questions/plot_04_numpy_bridge.html"
BUTTON = "button.bilingual-toggle"
#: The text blocks of a page, each with the number of code blocks before it: [[k, text], ...].
#: ``within`` selects where to look: the page's own text, or the inserted text of the other edition.
TEXTS = """within => {
  const article = document.querySelector("article[role='main']");
  const codes = [...article.querySelectorAll("div[class*='highlight-']")];
  const furniture = ".sphx-glr-download-link-note, .sphx-glr-footer, .sphx-glr-signature, .verified-stamp, "
    + ".colab-link, summary, .sphx-glr-script-out, div[class*='highlight-']";
  const blocks = "p, li, dt, dd, h1, h2, h3, h4, h5, h6";
  const picked = within === "twin"
    ? [...article.querySelectorAll(".bilingual-twin")].flatMap(t => [t, ...t.querySelectorAll(blocks)])
        .filter(el => el.matches(blocks))
    : [...article.querySelectorAll(blocks)].filter(el => !el.closest(furniture + ", .bilingual-twin"));
  return picked.filter(el => !el.querySelector(blocks)).map(el => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll(".headerlink").forEach(a => a.remove());
    const k = codes.filter(c => c.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING).length;
    return [k, copy.textContent.replace(/\\s+/g, " ").trim()];
  }).filter(([, text]) => text);
}"""


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


def _turn_on_with_the_keyboard(page):
    page.focus(BUTTON)
    page.keyboard.press("Enter")
    page.wait_for_selector(".bilingual-twin")


def test_the_english_text_of_each_cell_stands_under_the_same_cell_of_the_chinese_page(context, site_url):
    page = context.new_page()
    page.goto(f"{site_url}/en/{PAGE}")
    english = page.evaluate(TEXTS, "page")
    page.goto(f"{site_url}/zh_CN/{PAGE}")
    chinese = page.evaluate(TEXTS, "page")
    assert page.get_attribute(BUTTON, "aria-pressed") == "false" and not page.query_selector(".bilingual-twin")
    assert page.inner_text(BUTTON).strip() == "中英对照：在每段下方显示英文版"
    button, items = page.locator(BUTTON).bounding_box(), page.locator("nav.language-switch ul").bounding_box()
    assert items["x"] - 1 <= button["x"] and button["x"] + button["width"] <= items["x"] + items["width"] + 1, (
        "the button sticks out past the sidebar's items")
    _turn_on_with_the_keyboard(page)
    assert page.get_attribute(BUTTON, "aria-pressed") == "true"
    assert page.inner_text(BUTTON).strip() == "中英对照：隐藏英文版"
    assert page.evaluate(TEXTS, "twin") == english
    assert page.evaluate(TEXTS, "page") == chinese, "the page's own text changed"
    langs = page.eval_on_selector_all(".bilingual-twin", "els => [...new Set(els.map(el => el.lang))]")
    assert langs == ["en"]
    assert page.inner_text(".bilingual-status").strip() == "已在每段下方显示英文版。"
    assert page.get_attribute(".bilingual-status", "role") == "status"
    twice = page.eval_on_selector_all(".bilingual-twin div[class*='highlight-'], .bilingual-twin img", "e => e.length")
    assert twice == 0, "code or a picture was shown twice"


def test_the_choice_follows_the_reader_and_turns_off_again(context, site_url):
    page = context.new_page()
    page.goto(f"{site_url}/en/{PAGE}")
    _turn_on_with_the_keyboard(page)
    assert page.eval_on_selector_all(".bilingual-twin", "els => [...new Set(els.map(el => el.lang))]") == ["zh-CN"]
    page.goto(f"{site_url}/en/{NEXT}")
    page.wait_for_selector(".bilingual-twin")
    assert page.get_attribute(BUTTON, "aria-pressed") == "true"
    assert page.inner_text(BUTTON).strip() == "Hide the Chinese text"
    page.click(BUTTON)
    assert page.get_attribute(BUTTON, "aria-pressed") == "false"
    assert page.inner_text(BUTTON).strip() == "Show the Chinese text too"
    assert page.query_selector(".bilingual-twin") is None
    page.goto(f"{site_url}/en/{PAGE}")
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    assert page.query_selector(".bilingual-twin") is None and page.get_attribute(BUTTON, "aria-pressed") == "false"


def test_with_it_on_the_language_switch_copy_buttons_and_search_still_work(context, site_url):
    page = context.new_page()
    page.goto(f"{site_url}/zh_CN/{PAGE}")
    _turn_on_with_the_keyboard(page)
    codes = page.eval_on_selector_all("article div[class*='highlight-'] pre", "e => e.length")
    assert page.eval_on_selector_all("article button.copybtn", "e => e.length") == codes
    with page.expect_navigation():
        page.click("nav.language-switch a.language-other")
    assert page.url.endswith(f"/en/{PAGE}")
    page.wait_for_selector(".bilingual-twin[lang='zh-CN']")
    page.goto(f"{site_url}/en/search.html?q=clone")
    page.wait_for_selector("#search-results[data-ms]", state="attached")  # the search page's "done"
    assert page.eval_on_selector_all("#search-results ul.search li", "e => e.length") > 0
    assert page.query_selector(".bilingual-twin") is None


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_the_text_stands_under_and_nothing_scrolls_sideways(browser, site_url, scheme):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  color_scheme=scheme)  # fmt: skip
    try:
        page = context.new_page()
        page.goto(f"{site_url}/zh_CN/{PAGE}")
        page.evaluate("() => localStorage.setItem('tensorcopy-bilingual', 'on')")
        page.reload()
        page.wait_for_selector(".bilingual-twin")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        first = page.locator("article h1 + .bilingual-twin, article h1 ~ .bilingual-twin").first
        box, title = first.bounding_box(), page.locator("article h1").bounding_box()
        assert box["y"] >= title["y"] + title["height"] - 1, "the English title is not under the Chinese one"
    finally:
        context.close()


#: A page whose Chinese edition is served with one paragraph more in its first cell, after the title (the
#: editions pair one to one today; a section written in more paragraphs in one edition is what this pins).
UNEVEN = "examples/copying/plot_04_detach.html"
EXTRA_PARAGRAPH = "<p>多写的一段。</p>"


def _one_paragraph_more(route) -> None:
    html = route.fetch().text()
    end = html.index("</h1>") + len("</h1>")
    route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html[:end] + EXTRA_PARAGRAPH + html[end:])
HEADINGS = """mode => [...document.querySelectorAll("article[role='main'] h2")].map(h => {
  const copy = mode === "twin" ? h.nextElementSibling : h.cloneNode(true);
  if (!copy || (mode === "twin" && !copy.matches(".bilingual-heading"))) return null;
  copy.querySelectorAll(".headerlink").forEach(a => a.remove());
  return copy.textContent.replace(/\\s+/g, " ").trim();
})"""


def test_a_cell_with_more_paragraphs_in_one_edition_still_pairs_each_section_heading(context, site_url):
    page = context.new_page()
    page.goto(f"{site_url}/en/{UNEVEN}")
    english = page.evaluate(HEADINGS, "page")
    first = page.evaluate(f"() => ({TEXTS})('page').filter(([k]) => k === 0).length")
    page.route(f"{site_url}/zh_CN/{UNEVEN}", _one_paragraph_more)
    page.goto(f"{site_url}/zh_CN/{UNEVEN}")
    assert page.evaluate(f"() => ({TEXTS})('page').filter(([k]) => k === 0).length") > first, (
        "the premise: the Chinese first cell has more blocks than the English one")
    _turn_on_with_the_keyboard(page)
    assert page.evaluate(HEADINGS, "twin") == english, "a section heading has no English twin right under it"
