"""How long a reader waits for search results on a phone: the built site's search page in Chromium, at
a phone's size, with the CPU slowed four times (Lighthouse's mid-range phone), in each edition.

    python -m tests.search_timing [--site build/html] [--queries 12]

For each edition it opens the search page empty, types real questions' queries (``tests/real_questions.toml``)
into the page's own search box, one after another, and measures from the last keystroke to the results
on the page:

- **Enter**: the reader types the query and presses Enter (the page searches at once, without reloading);
- **pause**: the reader types and stops (the page searches after a pause in typing, ``PAUSE`` in
  ``docs/_static/site_search.js``, which the figure includes).

The first query of each edition loads the index (**cold**); the others find it loaded. It prints the
median and the worst per edition and kind, and exits non-zero when a median exceeds :data:`BUDGET_MS`.
A measurement, not a test: timings depend on the machine, so the test suite does not run it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MS = 300  #: results within this long after the reader stops typing (median, warm)
PHONE = {"width": 412, "height": 823}
SLOWDOWN = 4

_WATCH = """() => {
  window.__lastKey = 0; window.__done = 0;
  document.addEventListener('keydown', () => { window.__lastKey = performance.now(); }, true);
  new MutationObserver(() => {
    if (document.querySelector('#search-results').dataset.ms !== undefined) window.__done = performance.now();
  }).observe(document.querySelector('#search-results'), { attributes: true, attributeFilter: ['data-ms'] });
}"""


def _one(tab, query: str, enter: bool) -> float:
    """Type ``query`` into the page's search box; the ms from its last keystroke to its results."""
    box = tab.locator("form.search-page-form input[name=q]")
    box.fill("")
    tab.evaluate("() => { delete document.querySelector('#search-results').dataset.ms; window.__done = 0; }")
    box.type(query, delay=20)
    if enter:
        box.press("Enter")
    tab.wait_for_function("() => window.__done > window.__lastKey", timeout=20_000)
    return tab.evaluate("() => window.__done - window.__lastKey")


def measure(browser, base: str, lang: str, queries: list[str]) -> dict[str, list[float]]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    tab = context.new_page()
    try:
        session = context.new_cdp_session(tab)
        session.send("Emulation.setCPUThrottlingRate", {"rate": SLOWDOWN})
        tab.goto(f"{base}{lang}/search.html")
        tab.evaluate(_WATCH)
        times = {"cold": [_one(tab, queries[0], enter=True)], "enter": [], "pause": []}
        for number, query in enumerate(queries[1:]):
            kind = "enter" if number % 2 == 0 else "pause"
            times[kind].append(_one(tab, query, enter=kind == "enter"))
        return times
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "build" / "html")
    parser.add_argument("--queries", type=int, default=13, help="queries per edition, the first one cold")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.gallery_tools import serve
    from tests.search_ranks import QUERY_FIELD, questions

    over = []
    with serve(args.site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for lang, field in QUERY_FIELD.items():
            queries = [question[field] for question in questions()][: args.queries]
            times = measure(browser, url + "/", lang, queries)
            for kind, values in times.items():
                middle = statistics.median(values)
                print(f"{lang:6} {kind:6} median {middle:6.0f} ms  worst {max(values):6.0f} ms  "
                      f"({len(values)} queries)")
                if kind != "cold" and middle > BUDGET_MS:
                    over.append(f"{lang} {kind}")
        browser.close()
    if over:
        print(f"over the {BUDGET_MS} ms budget: {', '.join(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
