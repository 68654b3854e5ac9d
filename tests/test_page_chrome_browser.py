"""What Chromium shows around a page's own text: the label before printed output in the page's language,
and the examples index's hover text on each card (sphinx-gallery styles only the attribute the site
renames; see tensorcopy_sphinx/gallery_html_fixes.py)."""

import pytest

pytestmark = pytest.mark.browser

OUTPUT_LABEL = "() => getComputedStyle(document.querySelector('.sphx-glr-script-out'), '::before').content"


@pytest.mark.parametrize(("lang", "label"), [("en", '"Out:"'), ("zh_CN", '"输出："')])
def test_the_label_before_printed_output_is_in_the_pages_language(browser, site_url, lang, label):
    page = browser.new_page()
    try:
        page.goto(f"{site_url}/{lang}/examples/copying/plot_03_clone.html")
        assert page.evaluate(OUTPUT_LABEL) == label
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_hovering_a_card_shows_its_hover_text(browser, site_url, lang):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{site_url}/{lang}/examples/index.html")
        card = page.locator(".sphx-glr-thumbcontainer[data-tooltip]").first
        card.hover()
        page.wait_for_timeout(400)  # the fade-in
        shown = card.evaluate("el => getComputedStyle(el, '::after').content")
        text = card.get_attribute("data-tooltip")
        assert text and shown == f'"{text}"', (shown, text)
        assert card.evaluate("el => getComputedStyle(el, '::before').opacity") == "1"
    finally:
        page.close()
