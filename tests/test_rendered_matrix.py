"""The built behaviour matrix, cell by cell: under each column's header, each row shows what that
column's probe returned for that operation and source; the messages and the guide are the engine's.
Every way of getting it wrong below is applied to a copy of the built page, and the checker must
name it."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from editions import CODES
from tensorfacts import probes, standard_sources
from tests import expected_words
from tests.claims_tools import build_mini_site
from tests.gallery_tools import read_page
from tests.rendered_tables import guide_problems, matrix_problems, mutated_article, shown
from tests.test_tensorfacts_matrix import MATRIX_PAGE


@pytest.fixture(scope="module")
def matrix() -> probes.Matrix:
    return probes.probe_all()


def test_built_matrix_shows_every_probe(site_dir, matrix):
    for lang in CODES:
        soup = read_page(site_dir / lang / "matrix.html")
        problems = matrix_problems(soup, lang, matrix) + guide_problems(soup, lang)
        assert not problems, f"{lang}/matrix.html:\n" + "\n".join(problems)


# --- Mutations of a copy of the built page -----------------------------------------------------


def _column(table, lang, key):
    headers = [shown(th) for th in table.select("thead th")]
    return headers.index(shown(expected_words.matrix(lang)[key]))


def _swap_contents(first, second):
    a, b = list(first.contents), list(second.contents)
    first.clear()
    second.clear()
    first.extend(b)
    second.extend(a)


def two_columns_swapped(soup, lang):
    """"same object" and "shares storage" rendered under each other's headers."""
    for table in soup.select("table.behaviour-matrix"):
        left, right = _column(table, lang, "same_object"), _column(table, lang, "shares_storage")
        for row in table.select("tbody > tr"):
            cells = row.find_all(["th", "td"], recursive=False)
            _swap_contents(cells[left], cells[right])


def headers_swapped(soup, lang):
    table = soup.select_one("table.behaviour-matrix")
    cells = table.select("thead th")
    _swap_contents(cells[_column(table, lang, "same_object")], cells[_column(table, lang, "shares_storage")])


def _invert(span, lang):
    w = expected_words.matrix(lang)
    value = "cell-true" in span["class"]
    span.string = w[not value]
    span["class"] = [f"cell-{str(not value).lower()}"]


def every_yes_no_inverted(soup, lang):
    for span in soup.select("table.behaviour-matrix span.cell-true, table.behaviour-matrix span.cell-false"):
        _invert(span, lang)


def one_yes_no_inverted(soup, lang):
    _invert(soup.select("table.behaviour-matrix span.cell-true, table.behaviour-matrix span.cell-false")[-1],
            lang)


def yes_no_word_kept_mark_inverted(soup, lang):
    span = soup.select_one("table.behaviour-matrix span.cell-true")
    span["class"] = ["cell-false"]


def two_rows_relabelled(soup, lang):
    rows = soup.select("table.behaviour-matrix")[-1].select("tbody > tr")
    _swap_contents(rows[0].find("th"), rows[-1].find("th"))


def outcome_changed(soup, lang):
    w = expected_words.matrix(lang)
    span = soup.select_one(f"span.edit-{probes.EDIT_SILENT}")
    span.string = w[probes.EDIT_UNAFFECTED]


def refusal_read_as_no_graph(soup, lang):
    """A cell where torch raised at the edit shown as if the edit had simply run."""
    span = soup.select_one(f"table.behaviour-matrix span.refused-{probes.INFERENCE_EDIT}")
    span.string = expected_words.matrix(lang)[probes.EDIT_NO_GRAPH]
    span["class"] = [f"edit-{probes.EDIT_NO_GRAPH}"]


def refusal_without_changed_anyway(soup, lang):
    """The refused edit shown without its "yet a changed": the word the reader most needs."""
    span = soup.select_one(f"table.behaviour-matrix span.refused-{probes.INFERENCE_EDIT}")
    span.string = expected_words.matrix(lang)[probes.INFERENCE_EDIT]


def refusal_message_removed(soup, lang):
    items = soup.select("ul.behaviour-matrix-messages li")
    next(li for li in items if "Inference tensors" in li.get_text()).decompose()


def message_changed(soup, lang):
    code = soup.select("ul.behaviour-matrix-messages li code")[-1]
    code.string = shown(code) + " (edited)"


def row_removed(soup, lang):
    soup.select("table.behaviour-matrix tbody > tr")[2].decompose()


def torch_version_changed(soup, lang):
    line = soup.select_one("p.behaviour-matrix-source")
    for text in line.find_all(string=True):
        text.replace_with(text.replace(".", ",", 1) if "torch" in text else text)


def guide_items_swapped(soup, lang):
    items = soup.select("ul.behaviour-guide > li")
    _swap_contents(items[0], items[1])


def guide_item_removed(soup, lang):
    soup.select("ul.behaviour-guide > li")[-1].decompose()


MUTATIONS = [two_columns_swapped, headers_swapped, every_yes_no_inverted, one_yes_no_inverted,
             yes_no_word_kept_mark_inverted, two_rows_relabelled, outcome_changed, message_changed,
             row_removed, torch_version_changed, guide_items_swapped, guide_item_removed,
             refusal_read_as_no_graph, refusal_without_changed_anyway, refusal_message_removed]


@pytest.mark.parametrize("lang", CODES)
@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.__name__)
def test_checker_catches_a_wrong_matrix(site_dir, matrix, lang, mutation):
    changed = mutated_article(site_dir / lang / "matrix.html", mutation, lang)
    assert matrix_problems(changed, lang, matrix) + guide_problems(changed, lang), (
        f"{mutation.__name__} went unnoticed")


# --- The directive itself, without a site build --------------------------------------------------


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", CODES)
def test_rendered_table_follows_the_probes(tmp_path, matrix, lang, monkeypatch, facts_as_run):
    """One probe answering the opposite: every cell of its column, and only those, change."""
    real = probes.PROBES["shares_storage"]
    monkeypatch.setitem(probes.PROBES, "shares_storage", lambda s, o: not real(s, o))
    changed = probes.probe_all()
    html, _ = build_mini_site(tmp_path, MATRIX_PAGE, language=lang)  # warns: the guide's premises break
    soup = BeautifulSoup(html, "html.parser")
    assert matrix_problems(soup, lang, changed) == []
    problems = matrix_problems(soup, lang, matrix)
    for source in standard_sources.SOURCES:
        for op, cells in matrix[source].items():
            if cells["shares_storage"] is not probes.NOT_MADE:
                assert any(f"source {source}, {op} / shares_storage" in p for p in problems), (source, op)
    assert all("shares_storage" in p for p in problems), problems
