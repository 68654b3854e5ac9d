"""Readers of the rendered claims ledger and behaviour matrix, slot by slot.

Each checker takes a parsed page (BeautifulSoup), the page's language and what the fact engine
computed, and returns a list of problems (empty when every slot shows its computed value). They
follow the engine: every claim, verdict, operation and column it reports is looked up in the page,
cells are found under their header by the header's text, and the summary is read by the position
of each number in its sentence. The tests run them on the real build and on mutated copies of it.
"""

from __future__ import annotations

import copy
import re
import string
from pathlib import Path

import torch
from bs4 import BeautifulSoup, Tag
from docutils import nodes

from tensorfacts import matrix as mp
from tensorfacts import probes, standard_sources
from tensorfacts.model import DOES_NOT_HOLD, HOLDS, NOT_A_CLAIM, OUTPUT_DIFFERS, VERDICTS, Outcome
from tests import expected_words
from tests.gallery_tools import read_page

#: Which verdict each number of the ledger's summary sentence counts, by the sentence's field name.
SUMMARY_VERDICTS = {"holds": HOLDS, "not_hold": DOES_NOT_HOLD, "differs": OUTPUT_DIFFERS,
                    "not_claims": NOT_A_CLAIM}
QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")


def mutated_article(page: Path, mutation, language: str) -> BeautifulSoup:
    """The page's ``<article>`` (all that the checkers read) changed by ``mutation(soup, language)``,
    written out and parsed again, as a build that rendered it so would show it."""
    before = str(read_page(page).select_one("article"))
    soup = BeautifulSoup(before, "html.parser")
    mutation(soup, language)
    after = str(soup)
    assert after != before, f"the mutation {mutation.__name__} changed nothing"
    return BeautifulSoup(after, "html.parser")


def shown(tag: Tag | str) -> str:
    """Text as a reader sees it: whitespace collapsed, no break hints, typographic quotes undone."""
    text = tag if isinstance(tag, str) else tag.get_text()
    text = text.replace("\u200b", "").translate(QUOTES)
    return " ".join(text.split())


def _header_columns(table: Tag, wanted: dict[str, str], where: str, problems: list[str]) -> dict[str, int]:
    """The index of each wanted header text in the table's header row (key -> column index)."""
    headers = [shown(cell) for cell in table.select("thead tr > th, thead tr > td")]
    columns = {}
    for key, text in wanted.items():
        found = [i for i, header in enumerate(headers) if header == shown(text)]
        if len(found) != 1:
            problems.append(f"{where}: the header {text!r} appears {len(found)} times in {headers}")
        else:
            columns[key] = found[0]
    return columns


def _cells(row: Tag) -> list[Tag]:
    return row.find_all(["th", "td"], recursive=False)


# --- The claims ledger ---------------------------------------------------------------------------


def summary_numbers(text: str, template: str) -> dict[str, str] | None:
    """Read each ``{field}`` of ``template`` at its position in ``text`` (None: no match)."""
    pattern = ""
    for literal, field, _, _ in string.Formatter().parse(template):
        pattern += re.escape(re.sub(r"\s+", " ", literal.translate(QUOTES)))
        if field:
            pattern += f"(?P<{field}>.+?)"
    match = re.fullmatch(pattern, shown(text))
    return None if match is None else match.groupdict()


def ledger_problems(soup: BeautifulSoup, language: str, outcomes: list[Outcome]) -> list[str]:
    """Every claim's row shows its computed verdict, trace and page; every summary its counts."""
    w = expected_words.ledger(language)
    problems: list[str] = []
    rows: dict[str, tuple[list[Tag], dict[str, int], int]] = {}
    tables = soup.select("table.claims-ledger")
    if not tables:
        return [f"{language}: no claims-ledger table"]
    for number, table in enumerate(tables):
        columns = _header_columns(table, {k: w[k] for k in ("claim", "verdict", "observed", "page")},
                                  f"{language} ledger table {number + 1}", problems)
        for row in table.select("tbody > tr"):
            rows[row.get("id", "")] = (_cells(row), columns, len(table.select("thead tr > *")))
        problems += _summary_problems(table, language, outcomes)
    expected_ids = {nodes.make_id(f"claim-{o.claim.id}") for o in outcomes}
    problems += [f"{language}: a row {row_id!r} that is no claim" for row_id in sorted(set(rows) - expected_ids)]
    for outcome in outcomes:
        where = f"{language} ledger, claim {outcome.claim.id}"
        if outcome.result is None:
            problems.append(f"{where}: the engine computed no verdict ({outcome.problem})")
            continue
        found = rows.get(nodes.make_id(f"claim-{outcome.claim.id}"))
        if found is None:
            problems.append(f"{where}: no row")
            continue
        cells, columns, width = found
        if len(columns) < 4 or len(cells) != width:
            problems.append(f"{where}: {len(cells)} cells, not one under each header")
            continue
        verdict = cells[columns["verdict"]]
        qualifier = outcome.claim.qualifier(language)  # the cell states it beside the verdict
        squash = lambda text: re.sub(r"[\s()（）]", "", shown(text))  # noqa: E731 (brackets and spaces vary by edition)
        if squash(verdict) != squash(w[outcome.verdict]) + squash(qualifier):
            problems.append(f"{where}: the verdict reads {shown(verdict)!r}, computed "
                            f"{w[outcome.verdict]!r}" + (f" ({qualifier})" if qualifier else ""))
        marks = [c for c in verdict.select_one("span.verdict").get("class", [])
                 if c.startswith("verdict-")] if verdict.select_one("span.verdict") else []
        if marks != [f"verdict-{outcome.verdict}"]:
            problems.append(f"{where}: the verdict is marked {marks}, computed {outcome.verdict}")
        trace = outcome.result.trace(language)
        if shown(cells[columns["observed"]]) != shown(trace.replace("`", "") if outcome.result.worded else trace):
            problems.append(f"{where}: the trace reads {shown(cells[columns['observed']])!r}, "
                            f"computed {trace!r}")
        if not shown(cells[columns["claim"]]).startswith(shown(outcome.claim.text(language).replace("`", ""))):
            problems.append(f"{where}: the claim cell does not state the claim")
        link = cells[columns["page"]].select_one("a[href]")
        if link is None or link["href"].partition("#")[2] != outcome.claim.gallery:
            problems.append(f"{where}: the page cell does not link to {outcome.claim.gallery}")
    return problems


def _summary_problems(table: Tag, language: str, outcomes: list[Outcome]) -> list[str]:
    """The count line above a table: its numbers, read by position, are those of its claims."""
    line = table.find_previous("p", class_="claims-summary")
    ids = {row.get("id") for row in table.select("tbody > tr")}
    articles = {o.claim.article for o in outcomes if nodes.make_id(f"claim-{o.claim.id}") in ids}
    where = f"{language} ledger, summary of article(s) {sorted(articles)}"
    if line is None:
        return [f"{where}: no count line above the table"]
    counted = [o for o in outcomes if o.claim.article in articles]
    # A table without rows that are not claims says nothing of them (no "0 more rows").
    not_claims = sum(o.verdict == NOT_A_CLAIM for o in counted)
    template = expected_words.ledger(language)["summary" if not_claims else "summary, all claims"]
    numbers = summary_numbers(line.get_text(), template)
    if numbers is None:
        return [f"{where}: {shown(line)!r} does not read as {template!r}"]
    expected: dict[str, object] = {field: sum(o.verdict == v for o in counted)
                                   for field, v in SUMMARY_VERDICTS.items()}
    # The total counts claims: the rows that are not a claim are counted apart ("{not_claims} more rows").
    expected |= {"total": sum(o.verdict != NOT_A_CLAIM for o in counted), "torch": torch.__version__}
    problems = [f"{where}: the sentence has a number {field!r} this test cannot compute"
                for field in numbers if field not in expected]
    problems += [f"{where}: no number counts the verdict {v!r}"
                 for v in VERDICTS if not any(SUMMARY_VERDICTS.get(f) == v for f in numbers)
                 and (v != NOT_A_CLAIM or not_claims)]
    problems += [f"{where}: {field} reads {numbers[field]!r}, computed {expected[field]}"
                 for field in numbers if field in expected and numbers[field] != str(expected[field])]
    return problems


# --- The behaviour matrix ------------------------------------------------------------------------


def expected_cell(column: str, value: object, w: dict) -> tuple[str, str | None]:
    """What a reader must see in a cell for ``value``, and the class that marks it (if any)."""
    if isinstance(value, probes.ProbeFailure):
        return "?", "probe-failed"
    if value is probes.NOT_MADE:
        return w["not_made"], None
    if isinstance(value, probes.Refused):
        return w[value.kind] + (w["changed_anyway"] if value.changed else ""), f"refused-{value.kind}"
    if column in probes.BOOLEAN_COLUMNS:
        return w[bool(value)], f"cell-{str(bool(value)).lower()}"
    if column == "raised":
        return (str(value).split(":")[0] if value else w["none_raised"]), None
    if column in probes.CODE_COLUMNS:
        return str(value), None
    return w[value], f"edit-{value}"  # an outcome column: its own words


def matrix_problems(soup: BeautifulSoup, language: str, matrix: probes.Matrix) -> list[str]:
    """Every source's table shows, under each column's header, what that column's probe returned."""
    w = expected_words.matrix(language)
    problems: list[str] = []
    lines = soup.select("p.behaviour-matrix-source")
    for source in standard_sources.SOURCES:
        where = f"{language} matrix, source {source}"
        line = [p for p in lines if shown(p.select_one("code") or "") == shown(expected_words.SOURCE_CAPTIONS[source])]
        if len(line) != 1:
            problems.append(f"{where}: {len(line)} tables for this source")
            continue
        if torch.__version__ not in shown(line[0]):
            problems.append(f"{where}: the line above the table does not name torch {torch.__version__}")
        table = line[0].find_next("table", class_="behaviour-matrix")
        columns = _header_columns(table, {k: w[k] for k in ("operation", *probes.PROBES)}, where, problems)
        if len(columns) != len(probes.PROBES) + 1:
            continue
        rows = {shown(_cells(row)[columns["operation"]]): _cells(row) for row in table.select("tbody > tr")}
        problems += [f"{where}: a row {op!r} that the engine does not probe"
                     for op in sorted(set(rows) - set(probes.OPERATIONS))]
        for operation, values in matrix[source].items():
            cells = rows.get(shown(operation))
            if cells is None:
                problems.append(f"{where}: no row {operation!r}")
                continue
            for column, value in values.items():
                text, mark = expected_cell(column, value, w)
                cell = cells[columns[column]]
                if shown(cell) != shown(text):
                    problems.append(f"{where}, {operation} / {column}: reads {shown(cell)!r}, probed {text!r}")
                if mark and not cell.select_one(f".{mark}"):
                    problems.append(f"{where}, {operation} / {column}: not marked {mark}")
        problems += _message_problems(table, source, language, matrix)
    return problems


def _message_problems(table: Tag, source: str, language: str, matrix: probes.Matrix) -> list[str]:
    """Under a table: each operation that raised, with its message's first sentence; then each refusal the
    table's cells show, once, with its message."""
    w = expected_words.matrix(language)
    separator = w["message"]
    wanted = [shown(f"{op}{separator}{cells['raised']}") for op, cells in matrix[source].items()
              if isinstance(cells["raised"], str) and cells["raised"]]
    refusals: list[tuple[str, str]] = []  # (kind, error), each once, in the order the cells show them
    for cells in matrix[source].values():
        for value in cells.values():
            if isinstance(value, probes.Refused) and (value.kind, value.error) not in refusals:
                refusals.append((value.kind, value.error))
    wanted += [shown(w["refusal"].format(word=w[kind]) + separator + error) for kind, error in refusals]
    following = table.find_next(["table", "ul"], class_=["behaviour-matrix", "behaviour-matrix-messages"])
    listed = ([shown(li) for li in following.select("li")]
              if following is not None and "behaviour-matrix-messages" in following.get("class", []) else [])
    if listed != wanted:
        return [f"{language} matrix, source {source}: the messages listed are {listed}, probed {wanted}"]
    return []


def advice_as_read(text: str) -> str:
    """A piece of advice as its reader sees it: a link's words for ``{ref}`words <label>```, no backticks,
    and its short list (the lines that start with ``- ``) read on as one text."""
    text = re.sub(r"\{ref\}`([^`<]+?)\s*<[^`>]+>`", r"\1", text)
    return re.sub(r"\n(- )?", " ", text).replace("`", "")


def guide_problems(soup: BeautifulSoup, language: str, guide: tuple[mp.Advice, ...] = mp.GUIDE) -> list[str]:
    """Every piece of advice of ``guide`` (the matrix page's, or the decision page's) is on the page,
    in its own item, in this language, in full; its "Checked by" line links the facts it names."""
    problems = []
    items = soup.select("ul.behaviour-guide > li")
    if len(items) != len(guide):
        problems.append(f"{language} guide: {len(items)} items for {len(guide)} pieces of advice")
    for advice in guide:
        item = soup.find("li", id=nodes.make_id(f"guide-{advice.id}"))
        if item is None:
            problems.append(f"{language} guide: no item for {advice.id}")
            continue
        item = copy.copy(item)  # its "Checked by" line names the facts: compared on its own
        links = [a["href"] for line in item.select("p.guide-checked-by") for a in line.extract().select("a")]
        if shown(item) != shown(advice_as_read(advice.text(language))):
            problems.append(f"{language} guide, {advice.id}: reads {shown(item)!r}")
        if links != [f"facts.html#fact-{fact_id}" for fact_id in advice.facts]:
            problems.append(f"{language} guide, {advice.id}: links the facts {links}")
    return problems
