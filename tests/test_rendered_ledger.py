"""The built claims ledger, slot by slot: each claim's row shows the verdict, trace and page the engine
computed for it, and each count line the counts of its table's claims. Every way of getting it wrong
below is applied to a copy of the built page, and the checker must name it."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from editions import CODES
from tensorfacts import articles, verdicts
from tensorfacts.model import NOT_A_CLAIM, VERDICTS, Result
from tests import expected_words
from tests.claims_tools import build_mini_site, claims_ledger
from tests.gallery_tools import read_page
from tests.rendered_tables import SUMMARY_VERDICTS, ledger_problems, mutated_article, shown, summary_numbers


@pytest.fixture(scope="module")
def outcomes():
    return verdicts.run_all()


def test_built_ledger_shows_every_computed_verdict(site_dir, outcomes):
    for lang in CODES:
        problems = ledger_problems(read_page(site_dir / lang / "ledger.html"), lang, outcomes)
        assert not problems, f"{lang}/ledger.html:\n" + "\n".join(problems)


def test_summary_is_read_by_position():
    """Each number is read where its field stands in the sentence, in every edition."""
    for lang in CODES:
        template = expected_words.ledger(lang)["summary"]
        # a different number for each field, so that reading one field's number for another shows
        values = {"total": 42, "torch": "9.9.9"} | {field: n for n, field in enumerate(SUMMARY_VERDICTS, 3)}
        read = summary_numbers(template.format(**values).replace("'", "\u2019"), template)
        assert read == {k: str(v) for k, v in values.items()}, lang
        assert set(read) >= set(SUMMARY_VERDICTS), f"{lang}: the summary does not count every verdict"
        short = expected_words.ledger(lang)["summary, all claims"]
        assert summary_numbers(short.format(**values).replace("'", "\u2019"), short) == {
            k: str(v) for k, v in values.items() if k != "not_claims"}, lang


def test_the_count_line_reads_right_for_any_count():
    """No word of the count line agrees with a number ("1 do not hold"): each count follows a label, so the line for
    counts of 1 is the line for counts of 2 with the digits changed."""
    for lang in CODES:
        for key in ("summary", "summary, all claims"):
            template = claims_ledger.WORDS[lang][key]
            fields = {"torch": "9.9.9"} | {field: "{n}" for field in ("total", *SUMMARY_VERDICTS)}
            line = template.format(**fields)
            assert line.format(n=1).replace("1", "2") == line.format(n=2), (lang, key)


def test_a_table_with_no_rows_that_are_not_claims_says_nothing_of_them(outcomes):
    """No "not counted: 0": the count line names the rows that are not claims only where there are some."""
    claims_only = [o for o in outcomes if o.verdict != NOT_A_CLAIM]
    assert len(claims_only) < len(outcomes), "the articles have rows that are not claims"
    for lang, other_rows in (("en", "Rows that are not claims"), ("zh_CN", "行不算原文的说法")):
        assert other_rows in claims_ledger.summary_line(outcomes, lang).astext(), lang
        assert other_rows not in claims_ledger.summary_line(claims_only, lang).astext(), lang


# --- Mutations of a copy of the built page -----------------------------------------------------


def _verdict_cells(soup, lang):
    """The verdict cell of every row, found under the header that names it."""
    cells = []
    for table in soup.select("table.claims-ledger"):
        headers = [shown(th) for th in table.select("thead th")]
        index = headers.index(expected_words.ledger(lang)["verdict"])
        cells += [row.find_all("td")[index] for row in table.select("tbody > tr")]
    return cells


def _swap_contents(first, second):
    a, b = list(first.contents), list(second.contents)
    first.clear()
    second.clear()
    first.extend(b)
    second.extend(a)


def swap_two_verdicts(soup, lang):
    cells = _verdict_cells(soup, lang)
    other = next(c for c in cells if shown(c) != shown(cells[0]))
    _swap_contents(cells[0], other)


def verdicts_one_row_down(soup, lang):
    cells = _verdict_cells(soup, lang)
    contents = [list(c.contents) for c in cells]
    for cell, moved in zip(cells, contents[-1:] + contents[:-1], strict=True):
        cell.clear()
        cell.extend(moved)


def word_kept_mark_changed(soup, lang):
    span = soup.select_one("span.verdict")
    kept = [c for c in span["class"] if not c.startswith("verdict-")]
    other = next(v for v in VERDICTS if f"verdict-{v}" not in span["class"])
    span["class"] = [*kept, f"verdict-{other}"]


def _rewrite_summary(soup, lang, change):
    line = soup.select_one("p.claims-summary")
    w = expected_words.ledger(lang)
    template = next(t for t in (w["summary"], w["summary, all claims"]) if summary_numbers(line.get_text(), t))
    numbers = summary_numbers(line.get_text(), template)
    line.string = template.format(**change(numbers))


def summary_counts_swapped(soup, lang):
    _rewrite_summary(soup, lang, lambda n: {**n, "holds": n["not_hold"], "not_hold": n["holds"]})


def summary_total_changed(soup, lang):
    _rewrite_summary(soup, lang, lambda n: {**n, "total": int(n["total"]) + 1})


def trace_changed(soup, lang):
    code = soup.select_one("table.claims-ledger tbody tr code")
    code.string = shown(code) + " (edited)"


def row_removed(soup, lang):
    soup.select("table.claims-ledger tbody > tr")[-1].decompose()


def link_to_another_page(soup, lang):
    links = soup.select("table.claims-ledger tbody a[href]")
    other = next(a for a in links if a["href"] != links[0]["href"])
    links[0]["href"], other["href"] = other["href"], links[0]["href"]


MUTATIONS = [swap_two_verdicts, verdicts_one_row_down, word_kept_mark_changed, summary_counts_swapped,
             summary_total_changed, trace_changed, row_removed, link_to_another_page]


@pytest.mark.parametrize("lang", CODES)
@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.__name__)
def test_checker_catches_a_wrong_ledger(site_dir, outcomes, lang, mutation):
    changed = mutated_article(site_dir / lang / "ledger.html", mutation, lang)
    assert ledger_problems(changed, lang, outcomes), f"{mutation.__name__} went unnoticed"


# --- The directive itself, without a site build --------------------------------------------------


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", CODES)
def test_rendered_table_follows_a_changed_check(tmp_path, outcomes, lang, monkeypatch):
    """One check made to return another verdict: its row, and only its row, shows that verdict."""
    claim_id = "000-clone-print-c"
    current = next(o.verdict for o in outcomes if o.claim.id == claim_id)
    new = next(v for v in VERDICTS if v != current)
    monkeypatch.setitem(articles.CHECKS, claim_id, lambda: Result(new, "patched"))
    changed = verdicts.run_all()
    html, _ = build_mini_site(tmp_path, "```{claims-ledger}\n```", language=lang)
    soup = BeautifulSoup(html, "html.parser")
    assert ledger_problems(soup, lang, changed) == []
    problems = ledger_problems(soup, lang, outcomes)
    assert any(claim_id in p and "verdict reads" in p for p in problems), problems
    assert all(claim_id in p or "summary" in p for p in problems), problems
