"""Every page of both editions reads on a phone (390 × 844, headless Chromium) without scrolling sideways.

What a page may and may not do at that width:

- The page itself never scrolls sideways: nothing sticks out of the screen.
- A table is no wider than the screen, unless it sits in a deliberate scroll container: a box that
  scrolls sideways on its own, can be reached with the keyboard (``tabindex``), fits the screen, and
  keeps every row's label (its first cell) in view however far it is scrolled. The claims ledger
  needs no such box: on a phone each of its rows is a card, as wide as the screen.
- No cell with text is narrower than 80 px (the ledger's column of what the build shows once wrapped
  letter by letter in a 35 px column).
- Code and printed output (a ``<pre>``, say a table that an example prints) may be wider than the
  screen: it scrolls in its own box, and that box must be focusable, like the tables' boxes. This
  is the one kind of wide content allowed besides the tables' scroll containers.

The checker is one function run in the page (``PHONE_CHECK``); the known-bad pages below prove that
each of its rules can fail: the built ledger and matrix with their phone rules switched off, and
small pages that break one rule each.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from tensorfacts.standard_sources import SOURCES
from tests.browser_audit import pool_size
from tests.gallery_tools import LANGS, serve
from tests.site_audit import AXE_JS, DEAD_PROXY, EVERY_SECTION_LAID_OUT, axe_available, html_pages, missing_tool

pytestmark = pytest.mark.browser

#: The phone the site is read on: the screen of a common phone, in CSS pixels.
PHONE = {"width": 390, "height": 844}
#: The narrowest a cell with text may be.
MIN_CELL_PX = 80
#: How long one page may take to load and be checked.
PAGE_TIMEOUT_S = 60

#: Run in a loaded page: every way it fails to read at phone width, as sentences (empty: none).
PHONE_CHECK = """async (minCell) => {
  await document.fonts.ready;
  const problems = [], scrolling = [];
  const screen = document.documentElement.clientWidth;
  const name = el => {
    const id = el.id || el.closest('[id]')?.id;
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\\s+/) : [];
    const cls = classes.filter(Boolean).map(c => '.' + c).join('');
    return `<${el.tagName.toLowerCase()}${cls}>` + (id ? ` in #${id}` : '');
  };
  const shows = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const scrolls = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const scroller = el => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return p;
    return null;
  };
  const focusable = el => el.tabIndex >= 0 && el.hasAttribute('tabindex');

  const page = document.scrollingElement.scrollWidth;
  if (page > screen) {
    // Name what sticks out: the innermost elements whose box, or whose text, passes the screen's edge.
    const out = el => {
      const box = el.getBoundingClientRect();
      return box.right > screen + 1 || box.left < -1 || el.scrollWidth > el.clientWidth + 1;
    };
    const culprits = [...document.body.querySelectorAll('*')].filter(el => shows(el) && !scroller(el) && out(el));
    const innermost = culprits.filter(el => !culprits.some(other => other !== el && el.contains(other)));
    const names = innermost.slice(0, 3).map(name).join(', ');
    problems.push(`the page scrolls sideways: ${page} px wide on a ${screen} px screen (${names})`);
  }

  for (const table of document.querySelectorAll('main table, article table')) {
    if (!shows(table)) continue;
    const where = name(table);
    const box = scroller(table);
    const width = table.getBoundingClientRect().width;
    if (!box) {
      if (width > screen) problems.push(`${where} is ${Math.round(width)} px wide on a ${screen} px screen, `
                                        + 'with no box of its own to scroll in');
    } else if (box.scrollWidth > box.clientWidth) {
      scrolling.push(where);
      const frame = box.getBoundingClientRect();
      if (!focusable(box)) problems.push(`${where} scrolls in a box that the keyboard cannot reach (no tabindex)`);
      if (frame.right > screen + 1 || frame.left < -1) problems.push(`${where} scrolls in a box wider than the screen`);
      const before = box.scrollLeft;
      box.scrollLeft = box.scrollWidth;
      const lost = [...table.rows].filter(row => {
        const label = row.cells[0]?.getBoundingClientRect();
        return label && (label.left < frame.left - 1 || label.right > frame.right + 1);
      });
      box.scrollLeft = before;
      if (lost.length) problems.push(`${where} scrolls sideways and ${lost.length} of its ${table.rows.length} `
                                     + 'rows lose their label (first cell) from view');
    }
    for (const cell of table.querySelectorAll('th, td')) {
      if (!shows(cell) || !cell.innerText.trim()) continue;
      const w = cell.getBoundingClientRect().width;
      const text = JSON.stringify(cell.innerText.trim().slice(0, 40));
      if (w < minCell) problems.push(`${where}: a cell is ${Math.round(w)} px wide: ${text}`);
    }
  }

  for (const block of document.querySelectorAll('pre')) {
    if (!shows(block)) continue;
    const box = scrolls(block) ? block : scroller(block);
    if (box && box.scrollWidth > box.clientWidth && !focusable(box) && !box.closest('table'))
      problems.push(`${name(block)} scrolls sideways in a box that the keyboard cannot reach (no tabindex)`);
  }
  return {problems, scrolling};
}"""


def check_pages(browser, base_url: str, urls: list[str], script: str = PHONE_CHECK, arg=MIN_CELL_PX,
                color_scheme: str = "light", viewport: dict = PHONE) -> dict[str, object]:
    """Load each page (at phone size unless told) and run ``script`` in it: its result by URL.

    Several tabs load at once (as in tests/browser_audit.py): a tab starts its page and is checked
    once the page has loaded, while the others load theirs. A page that does not load in time
    gets the string "not loaded ..." as its result.
    """
    mobile = viewport["width"] < 800
    context = browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile,
                                  color_scheme=color_scheme, proxy=DEAD_PROXY)
    context.add_init_script(EVERY_SECTION_LAID_OUT)
    if AXE_JS.is_file():
        context.add_init_script(path=str(AXE_JS))
    queue, running, found = list(urls), [], {}
    tabs = [context.new_page() for _ in range(min(pool_size(), len(urls)))]
    try:
        idle = list(tabs)
        while queue or running:
            while queue and idle:
                tab, url = idle.pop(), queue.pop(0)
                tab.goto(f"{base_url}/{url}", wait_until="commit")
                running.append((tab, url, time.monotonic()))
            for item in list(running):
                tab, url, started = item
                if tab.evaluate("document.readyState") == "complete":
                    found[url] = tab.evaluate(script, arg)
                elif time.monotonic() - started > PAGE_TIMEOUT_S:
                    found[url] = f"not loaded after {PAGE_TIMEOUT_S} s"
                else:
                    continue
                running.remove(item)
                idle.append(tab)
            if running:
                running[0][0].wait_for_timeout(20)
    finally:
        context.close()
    return found


#: Run in the ledger page: how its rows are laid out, as sentences about what is wrong (empty: none).
#: ``cards`` true: each row is a card (its cells one under the other, in the table's order, each as
#: wide as the card, each but the first showing its column's name from ``data-label`` in a colour
#: with a contrast of at least 4.5:1, WCAG AA: axe-core does not read text made by CSS); false: a
#: table row (its cells side by side).
LEDGER_LAYOUT = """(cards) => {
  const problems = [];
  const rgb = text => (text.match(/[\\d.]+/g) || []).map(Number);
  const luminance = colour => {
    const [r, g, b] = colour.map(c => c / 255).map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = el => {
    for (; el; el = el.parentElement) {
      const colour = rgb(getComputedStyle(el).backgroundColor);
      if (colour.length === 3 || colour[3] > 0) return colour.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const contrast = (a, b) => {
    const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (high + 0.05) / (low + 0.05);
  };
  const tables = document.querySelectorAll('table.phone-cards');
  if (!tables.length) return ['no table.phone-cards on the page'];
  for (const table of tables) {
    const headers = [...table.tHead.rows[0].cells].map(cell => cell.innerText.trim());
    for (const row of table.tBodies[0].rows) {
      const where = `row #${row.id}`;
      const frame = row.getBoundingClientRect();
      const cells = [...row.cells];
      if (cells.length !== headers.length) { problems.push(`${where} has ${cells.length} cells`); continue; }
      if (table.classList.contains('claims-ledger') && !cells[cells.length - 1].querySelector('a[href]'))
        problems.push(`${where}: its last cell holds no link`);
      cells.forEach((cell, i) => {
        const box = cell.getBoundingClientRect();
        const before = i ? cells[i - 1].getBoundingClientRect() : null;
        if (cards) {
          if (before && box.top < before.bottom - 1)
            problems.push(`${where}: "${headers[i]}" is not under "${headers[i - 1]}"`);
          if (box.width < 0.9 * frame.width)
            problems.push(`${where}: "${headers[i]}" is ${Math.round(box.width)} px wide in a `
                          + `${Math.round(frame.width)} px card`);
          const label = getComputedStyle(cell, '::before');
          if (i && (cell.dataset.label !== headers[i] || ['none', 'normal'].includes(label.content)))
            problems.push(`${where}: "${headers[i]}" does not show its column's name `
                          + `(data-label ${JSON.stringify(cell.dataset.label)}, ::before ${label.content})`);
          const ratio = contrast(rgb(label.color).slice(0, 3), background(cell));
          if (i && ratio < 4.5)
            problems.push(`${where}: the name "${headers[i]}" has a contrast of ${ratio.toFixed(2)}:1 `
                          + `(${label.color})`);
        } else if (before && Math.abs(box.top - before.top) > 1) {
          problems.push(`${where}: "${headers[i]}" is not beside "${headers[i - 1]}"`);
        }
      });
    }
  }
  return problems;
}"""

#: Run in a page: the axe-core colour-contrast violations (WCAG 2 AA), one sentence each.
CONTRAST = """async () => {
  await document.fonts.ready;
  const result = await axe.run(document, {runOnly: {type: 'rule', values: ['color-contrast']}});
  return result.violations.flatMap(
    v => v.nodes.map(node => `${v.id}: ${node.target.join(' ')}: ${node.failureSummary}`));
}"""

WIDE = {"width": 1280, "height": 800}


def _pages(site: Path) -> list[str]:
    return [path.relative_to(site).as_posix() for path in html_pages(site)]


@pytest.fixture(scope="module")
def phone_results(browser, site_dir, site_url):
    return check_pages(browser, site_url, _pages(site_dir))


def _problems(results: dict, urls) -> list[str]:
    problems = []
    for url in urls:
        result = results[url]
        if isinstance(result, str):
            problems.append(f"{url}: {result}")
        else:
            problems += [f"{url}: {problem}" for problem in result["problems"]]
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_reads_on_a_phone(phone_results, lang):
    urls = [url for url in phone_results if url.startswith(f"{lang}/")]
    assert len(urls) > 5, f"only {urls} were checked"
    problems = _problems(phone_results, urls)
    assert not problems, f"{len(problems)} problems at {PHONE['width']} px:\n" + "\n".join(problems)


def test_the_landing_page_reads_on_a_phone(phone_results):
    problems = _problems(phone_results, [url for url in phone_results if "/" not in url])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_the_matrix_scrolls_under_its_row_labels(phone_results, site_dir, lang):
    """Every table of the matrix is wider than a phone: each one really was scrolled to its end
    by the check above, with every row's label still in view (or the check would be vacuous)."""
    url = f"{lang}/matrix.html"
    tables = len(re.findall(r'<table class="behaviour-matrix', (site_dir / url).read_text(encoding="utf-8")))
    scrolling = [name for name in phone_results[url]["scrolling"] if "behaviour-matrix" in name]
    assert tables == len(SOURCES) and len(scrolling) == tables, (tables, scrolling)


@pytest.mark.parametrize("page", ["ledger", "glossary"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_ledger_is_cards_on_a_phone_and_a_table_on_a_wide_screen(browser, site_url, lang, page):
    url = f"{lang}/{page}.html"
    phone = check_pages(browser, site_url, [url], LEDGER_LAYOUT, True)[url]
    wide = check_pages(browser, site_url, [url], LEDGER_LAYOUT, False, viewport=WIDE)[url]
    assert not phone, f"{url} at {PHONE['width']} px:\n" + "\n".join(phone)
    assert not wide, f"{url} at {WIDE['width']} px:\n" + "\n".join(wide)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", LANGS)
def test_ledger_and_matrix_colours_on_a_phone(browser, site_url, lang, scheme):
    """The ledger's cards (their text, verdicts and column names) and the matrix's pinned column
    read in both themes at phone width (the accessibility tests check colours on a wide screen,
    where the ledger is a table): axe-core's colour rule, and the cards' check for the names."""
    reason = axe_available()
    if reason:
        missing_tool(reason)
    urls = [f"{lang}/ledger.html", f"{lang}/matrix.html"]
    results = check_pages(browser, site_url, urls, CONTRAST, None, color_scheme=scheme)
    problems = [f"{url}: {problem}" for url in urls for problem in results[url]]
    cards = check_pages(browser, site_url, urls[:1], LEDGER_LAYOUT, True, color_scheme=scheme)[urls[0]]
    problems += [f"{urls[0]}: {problem}" for problem in cards]
    assert not problems, "\n".join(problems)


# --- The checks fail where they must ------------------------------------------------------------

#: What opens every rule of the site's stylesheets that applies on a phone only.
PHONE_ONLY = "@media (max-width: 46em)"
STYLESHEETS = ("site.css", "claims-ledger.css", "behaviour-matrix.css")


def _broken_copy(site_dir: Path, root: Path, old: str, new: str, sheets=STYLESHEETS) -> Path:
    """A copy of the built English edition whose stylesheets ``sheets`` have ``old`` made ``new``
    (each must contain ``old``, so that the copy really lost what the test means to take away)."""
    copy = root / "en"
    shutil.copytree(site_dir / "en", copy)
    for name in sheets:
        sheet = copy / "_static" / name
        text = sheet.read_text(encoding="utf-8")
        assert old in text, f"{name} has no {old!r}: the known-bad copy would not be bad"
        sheet.write_text(text.replace(old, new), encoding="utf-8")
    return root


def test_the_checks_fail_without_the_phone_rules(browser, site_dir, tmp_path):
    """The ledger and the matrix as they were before their phone rules: the check finds the
    squeezed cells (the issue's 35 px column), and the ledger's rows are no longer cards."""
    bad = _broken_copy(site_dir, tmp_path, PHONE_ONLY, "@media (max-width: 0px)")
    with serve(bad) as url:
        found = check_pages(browser, url, ["en/ledger.html", "en/matrix.html"])
        layout = check_pages(browser, url, ["en/ledger.html"], LEDGER_LAYOUT, True)["en/ledger.html"]
    for page in ("en/ledger.html", "en/matrix.html"):
        narrow = [p for p in found[page]["problems"] if "px wide: " in p and "a cell is" in p]
        assert narrow, (page, found[page])
    assert any("is not under" in problem for problem in layout), layout


def test_the_check_finds_row_labels_that_scroll_away(browser, site_dir, tmp_path):
    """The matrix with its first column no longer pinned: its rows lose their labels."""
    bad = _broken_copy(site_dir, tmp_path, "position: sticky", "position: static", ("site.css",))
    with serve(bad) as url:
        found = check_pages(browser, url, ["en/matrix.html"])["en/matrix.html"]
    lost = [problem for problem in found["problems"] if "lose their label" in problem]
    assert len(lost) == len(found["scrolling"]) == len(SOURCES), found


BAD_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bad</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>
<p id="long">{WORD}</p>
<table id="bare"><tr><td>{WORDS}</td><td>{WORDS}</td></tr></table>
<div id="trap" style="overflow-x: auto"><table><tr><td>{WORDS}</td></tr></table></div>
<pre id="out" style="overflow-x: auto">{WORDS}</pre>
<pre id="fine" style="overflow-x: auto" tabindex="0">{WORDS}</pre>
</main></body></html>""".replace("{WORD}", "x" * 80).replace("{WORDS}", "nowrap_" * 60)


def test_the_check_finds_what_a_bad_page_does(browser, tmp_path):
    """A word wider than the screen scrolls the page; a table with no box of its own sticks out; a
    box that scrolls a table or printed output without a tabindex traps keyboard users. Printed
    output that scrolls in a focusable box of its own (as sphinx-gallery's output blocks do, made
    focusable by the scrollable_regions extension) is allowed."""
    (tmp_path / "bad.html").write_text(BAD_PAGE, encoding="utf-8")
    with serve(tmp_path) as url:
        found = check_pages(browser, url, ["bad.html"])["bad.html"]["problems"]
    expected = {
        "the page scrolls sideways": "in #long",
        "with no box of its own to scroll in": "#bare",
        "scrolls in a box that the keyboard cannot reach": "in #trap",
        "scrolls sideways in a box that the keyboard cannot reach": "#out",
    }
    for sentence, where in expected.items():
        assert any(sentence in problem and where in problem for problem in found), (sentence, found)
    assert not [problem for problem in found if "#fine" in problem], "printed output in a focusable box is allowed"


#: Run in a question page: where its answer box ends, against the first screen (empty: on it).
ANSWER_ON_FIRST_SCREEN = """async () => {
  await document.fonts.ready;  // measured once the text has its final fonts and a frame is laid out
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const box = document.querySelector('article .admonition.answer');
  if (!box) return ['no answer box'];
  const bottom = box.getBoundingClientRect().bottom + window.scrollY;
  return bottom <= window.innerHeight ? []
    : [`the answer box ends at ${Math.round(bottom)} px, below the first screen (${window.innerHeight} px)`];
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_every_question_page_answers_on_the_first_screen(browser, site_dir, site_url, lang):
    """The title and the answer box of every question page fit the first screen of the phone
    (CONTRIBUTING.md, 'Question pages answer first')."""
    urls = [f"{lang}/examples/questions/{page.name}"
            for page in sorted((site_dir / lang / "examples" / "questions").glob("plot_*.html"))]
    assert len(urls) >= 12, urls
    results = check_pages(browser, site_url, urls, ANSWER_ON_FIRST_SCREEN, None)
    problems = [f"{url}: {problem}" for url in urls for problem in ([results[url]] if isinstance(results[url], str)
                                                                     else results[url])]
    assert not problems, "\n".join(problems)


def test_the_first_screen_check_finds_a_low_or_missing_answer(browser, tmp_path):
    low = ('<html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head>'
           '<body><article><div style="height: 900px">a long preamble</div>'
           '<div class="admonition answer"><p>The answer.</p></div></article></body></html>')
    (tmp_path / "low.html").write_text(low, encoding="utf-8")
    (tmp_path / "none.html").write_text("<html><body><article><p>No box.</p></article></body></html>", "utf-8")
    with serve(tmp_path) as url:
        found = check_pages(browser, url, ["low.html", "none.html"], ANSWER_ON_FIRST_SCREEN, None)
    assert len(found["low.html"]) == 1 and "below the first screen (844 px)" in found["low.html"][0], found
    assert found["none.html"] == ["no answer box"], found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_colour_check_finds_faint_card_labels(browser, site_dir, tmp_path, scheme):
    """The ledger's cards with their column names in a grey that is faint on the theme's
    background: the cards' check names them (axe-core would not: the names are CSS content)."""
    label = "color: var(--color-foreground-secondary);\n    content: attr(data-label)"
    faint = {"light": "#b0b0b0", "dark": "#3a3a3a"}[scheme]
    bad = _broken_copy(site_dir, tmp_path, label, label.replace("var(--color-foreground-secondary)", faint),
                       ("claims-ledger.css",))
    with serve(bad) as url:
        found = check_pages(browser, url, ["en/ledger.html"], LEDGER_LAYOUT, True, color_scheme=scheme)
    faint_names = [problem for problem in found["en/ledger.html"] if "has a contrast of" in problem]
    assert faint_names and len(faint_names) == len(found["en/ledger.html"]), found
