"""Where the answer lands: the real questions of ``tests/real_questions.toml`` typed into the built site's
search page, in Chromium, in each edition; the rank of the first result that answers each one.

    python -m tests.search_ranks [--site build/html] [--lang en] [--set held-out] [--show]

Two sets: ``tuned``, the questions the search and the readers' words were tuned on, and ``held-out``
(``tests/real_questions_heldout.toml``), gathered from other threads after that tuning and never used
for it: its shares say how the search does on questions it was not fitted to. Do not tune on it; add
its lessons to the tuned set and gather new held-out questions instead.

prints one line per query (its rank, or "-" when no answering page is listed) and the shares that
:data:`BUDGET` holds the search to. ``tests/test_real_questions.py`` runs the same measurement.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tomllib
from pathlib import Path
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
SETS = {"tuned": ROOT / "tests" / "real_questions.toml", "held-out": ROOT / "tests" / "real_questions_heldout.toml"}
QUERY_FIELD = {"en": "query_en", "zh_CN": "query_zh"}
#: The goal: the share of queries whose answer comes first, and within the first three.
GOAL = {"first": 0.80, "top3": 0.95}
#: What the search holds today, per set and edition, less one query (a page's new wording moves one
#: query a rank, up or down): the test fails below it, so that no change makes the search worse; raise it
#: toward :data:`GOAL` as the search improves. No query may list nothing. On 2026-12-04 the held-out set
#: of the day before joined the tuned set, and 24 new threads were gathered by someone who had read the
#: site's page titles; before any change they gave en 22 and 23 of 24 (first, first three), zh 21 and 24.
#: A second set of 24, its queries written blind (from the thread alone, before the site was read), gave en
#: 18 and 20, zh 19 and 23: below the goal in English. Its misses were studied (readers' words for generic
#: comparisons and for the words those threads used) and it joined the tuned set (161 questions); a third
#: set of 24, written blind in the same way and never tuned on, then gave en 22 and 24, zh 22 and 23. The
#: held-out set is the first and the third (48): en 44 and 47, zh 43 and 47; tuned en 86 % and 98 %, zh
#: 92 % and 99 %. On 2026-12-05 each query got a Pagefind instance of its own with its index chunks loaded
#: before its searches (site_search.js): tuned en 87 % and 98 % (140 of 161 first), the rest unchanged.
#: The pages' new sections of that day (inference tensors made with requires_grad=True, deepcopy of NumPy and
#: DLPack aliases, ...) outranked the answer for two English questions ("deepcopy cuda tensor graph leaves",
#: "w = w - lr * w.grad loses requires_grad") and one Chinese; readers' words for them (search_words.toml) won
#: them back. Three more rounds of review then scoped many sentences on .data, detach() and inference tensors
#: (inference-mode, index-write and clone pages): tuned en 140, zh 144 of 161 first (87 %, 89 %), 158 and 161 in
#: the first three; held-out en 44 and 47, zh 43 and 45 of 48 (first, first three). The held-out Chinese set
#: lost two answers from its first three to those pages ("x += res inplace 报错 ...", "detach 是 深拷贝 吗 ..."):
#: below GOAL for the first time. The floors are today's figures less one query; win those back.
BUDGET = {
    "tuned": {"en": {"first": 0.86, "top3": 0.97}, "zh_CN": {"first": 0.88, "top3": 0.99}},
    "held-out": {"en": {"first": 0.89, "top3": 0.95}, "zh_CN": {"first": 0.87, "top3": 0.91}},
}
TIMEOUT_MS = 20_000
AT_ONCE = 8  # tabs searching at the same time


@dataclasses.dataclass
class Rank:
    lang: str
    query: str
    url: str  #: the public thread the question comes from
    answers: list[str]
    listed: list[str]  #: the result links, edition-relative, anchors kept

    @property
    def rank(self) -> int | None:
        """1-based rank of the first result on an answering page, or None."""
        pages = [link.split("#")[0] for link in self.listed]
        return next((number for number, page in enumerate(pages, 1) if page in self.answers), None)


def questions(name: str = "tuned") -> list[dict]:
    return tomllib.loads(SETS[name].read_text(encoding="utf-8"))["question"]


def _links(tab, base: str) -> list[str]:
    # Done: this site's search page sets data-ms; Sphinx's own (for a before/after figure) fills its summary.
    tab.wait_for_function("""() => { const box = document.querySelector('#search-results');
        const summary = box && box.querySelector('p.search-summary');
        return box && (box.dataset.ms !== undefined
                       || (!box.dataset.searching && summary && summary.innerText.trim())); }""",
                          timeout=TIMEOUT_MS)  # fmt: skip
    hrefs = tab.eval_on_selector_all("#search-results ul.search li > a", "links => links.map(a => a.href)")
    return [urlsplit(href).path.removeprefix(urlsplit(base).path) + (f"#{urlsplit(href).fragment}"
            if urlsplit(href).fragment else "") for href in hrefs]  # fmt: skip


#: Types ``query`` into the search page's box and presses Enter, as a reader asks a second question on the
#: same page (site_search.js searches without reloading); the done mark of the last search is cleared first.
#: The query the page shows already is not asked again (the page would not search it again).
_ASK = """(query) => { if ((new URLSearchParams(location.search).get('q') || '').trim() === query.trim()) return;
    const box = document.querySelector('#search-results'); delete box.dataset.ms;
    const input = document.querySelector('input[name=q]'); input.value = query; input.form.requestSubmit(); }"""


def measure(browser, base: str, langs: list[str], name: str = "tuned") -> list[Rank]:
    """Run every query of the set ``name`` on ``base`` (the site's URL, ending in /) in each edition of
    ``langs``."""
    asked = [(lang, question) for lang in langs for question in questions(name)]
    found = ask_all(browser, [(f"{base}{lang}/", question[QUERY_FIELD[lang]]) for lang, question in asked],
                    lambda tab, edition, _: _links(tab, edition))  # fmt: skip
    return [Rank(lang, question[QUERY_FIELD[lang]], question["url"],
                 sorted({answer["page"] for answer in question["answers"]}), links)
            for (lang, question), links in zip(asked, found, strict=True)]


def ask_all(browser, asked: list[tuple[str, str]], read) -> list:
    """``read(tab, edition, query)`` once the results of each ``(edition, query)`` of ``asked`` show, in
    order (``edition``: the URL of an edition, ending in /). :data:`AT_ONCE` tabs search at the same time;
    each opens the search page for its first query and asks the next ones in the same page, as a reader
    does (a page whose search reloads, as Sphinx's own does, is opened again for each query). The list a
    query gets does not depend on what the page searched before (tests/test_search_and_switch.py)."""
    lanes = [range(start, len(asked), AT_ONCE) for start in range(AT_ONCE)]  # indexes into asked, per tab
    found = {}
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        tabs: list = [None] * AT_ONCE
        for step in range(len(lanes[0])):
            now = [(tab, lane[step]) for tab, lane in enumerate(lanes) if step < len(lane)]
            for tab, index in now:
                tabs[tab] = _ask(context, tabs[tab], *asked[index])
            for tab, index in now:
                found[index] = read(tabs[tab], *asked[index])
    finally:
        context.close()
    return [found[index] for index in range(len(asked))]


def _ask(context, tab, edition: str, query: str):
    """Show ``query``'s results in ``tab`` (opened on ``edition``'s search page if it is not open on it)."""
    if tab is not None and tab.url.startswith(edition) and tab.evaluate(
            "() => document.querySelector('#search-results').dataset.ms !== undefined"):
        tab.evaluate(_ASK, query)
        return tab
    if tab is not None:
        tab.close()
    tab = context.new_page()
    tab.goto(f"{edition}search.html?q={quote(query)}")
    return tab


def shares(ranks: list[Rank]) -> dict[str, float]:
    count = max(1, len(ranks))
    return {
        "first": sum(r.rank == 1 for r in ranks) / count,
        "top3": sum(r.rank is not None and r.rank <= 3 for r in ranks) / count,
        "not_found": sum(r.rank is None for r in ranks) / count,
        "empty": sum(not r.listed for r in ranks) / count,
    }


def report(ranks: list[Rank], show: bool = True) -> str:
    lines = []
    for lang in dict.fromkeys(r.lang for r in ranks):
        mine = [r for r in ranks if r.lang == lang]
        if show:
            for r in mine:
                first = r.listed[0] if r.listed else "(nothing)"
                lines.append(f"{lang:6} {r.rank or '-':>2}  {r.query[:60]!r:64} -> {first}")
        got = shares(mine)
        lines.append(f"{lang}: {len(mine)} queries; answer first {got['first']:.0%}, in the first three "
                     f"{got['top3']:.0%}, not listed {got['not_found']:.0%}, empty {got['empty']:.0%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "build" / "html")
    parser.add_argument("--lang", action="append")
    parser.add_argument("--set", choices=list(SETS), action="append", help="default: both")
    parser.add_argument("--show", action="store_true", help="one line per query")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.gallery_tools import serve

    with serve(args.site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for name in args.set or list(SETS):
            print(f"{name} set:")
            print(report(measure(browser, url + "/", args.lang or list(QUERY_FIELD), name), args.show))
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
