"""The view operations table (tensorfacts.view_ops, the view-table directive): every cell is a probe that
runs tensors; the cells below are checked against what the PyTorch documentation says of each
operation, written here by hand; the notes under the table hold on this torch and fail on a table
that contradicts them."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from editions import CODES
from tensorfacts import table_notes, view_ops
from tensorfacts.matrix import failed_premises
from tests.claims_tools import EXT, CountTorchCalls, Override, RefuseTorch

assert EXT  # the extensions' folder is importable (claims_tools puts it on the path)
from tensorcopy_sphinx import op_tables  # noqa: E402

YES, NO = True, False
CELLS = [(row, layout, column) for row in view_ops.ROWS for layout in view_ops.LAYOUTS for column in view_ops.COLUMNS]


@pytest.fixture(scope="module")
def table() -> view_ops.Table:
    return view_ops.probe_all()


def test_every_cell_has_a_probed_value(table):
    assert not view_ops.failures(table)
    assert list(table) == list(view_ops.ROWS)
    for layouts in table.values():
        assert list(layouts) == list(view_ops.LAYOUTS)
        assert all(list(cells) == list(view_ops.COLUMNS) for cells in layouts.values())


def test_probes_are_deterministic(table):
    assert view_ops.probe_all() == table


def test_every_row_reads_a_known_source():
    assert {row.source for row in view_ops.ROWS.values()} == set(view_ops.SOURCES)


def test_the_sources_have_the_layouts_they_are_named_for():
    for name, (_, other) in view_ops.SOURCES.items():
        made = view_ops.make_source(name, "contiguous")
        assert made.is_sparse or (made.is_contiguous() and not made._is_view()), name
        if other is not None:
            made = view_ops.make_source(name, "non-contiguous")
            assert not made.is_contiguous() and not made._is_view(), name
            assert torch.equal(made, view_ops.make_source(name, "contiguous")), f"{name}: the same values"
        grad = view_ops.make_source(name, "contiguous", grad=True)
        # the page says: a non-leaf that requires grad, x.clone() of a leaf x (the sparse source too)
        assert grad.requires_grad and not grad.is_leaf and type(grad.grad_fn).__name__ == "CloneBackward0", name
        assert grad.layout == made.layout, name
    assert view_ops.one_layout_problems() == []


def test_the_non_contiguous_sources_are_laid_out_as_the_page_says(monkeypatch):
    assert view_ops.column_layout_problems() == []
    assert view_ops.make_source("a", "non-contiguous").stride() == (1, 3)
    assert view_ops.make_source("p", "non-contiguous").stride() == (2, 6, 1)
    code = "torch.empty_strided((3, 4, 2), (1, 3, 12)).copy_(torch.arange(24.).reshape(3, 4, 2))"
    monkeypatch.setitem(view_ops.SOURCES, "p", (view_ops.SOURCES["p"][0], code))
    assert view_ops.column_layout_problems() and "first two dimensions" in view_ops.column_layout_problems()[0]


def test_no_source_is_a_view_and_one_that_is_is_named(monkeypatch):
    """The page says neither source is itself a view (the in-place column's non-leaf neither)."""
    assert view_ops.view_source_problems() == []
    monkeypatch.setitem(view_ops.SOURCES, "a", ("torch.arange(12.).reshape(3, 4)", view_ops.SOURCES["a"][1]))
    assert [p.split(":")[0] for p in view_ops.view_source_problems()] == ["a (contiguous)"]


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_view_error_is_shown_whole_with_its_suggestion_and_the_note_reads_it(table, facts_as_run):
    """The views-share note: the error of view() and view_as() on the non-contiguous source suggests reshape, as
    the message listed under the table shows; a message without the suggestion fails the note."""
    for code in ("a.view(4, 3)", "a.view_as(torch.empty(4, 3))"):
        cell = table[code]["non-contiguous"]["shares_storage"]
        assert cell.error.endswith("Use .reshape(...) instead.") and cell.error == "RuntimeError: " + cell.message
    broken = {code: {lay: dict(cells) for lay, cells in layouts.items()} for code, layouts in table.items()}
    cell = broken["a.view_as(torch.empty(4, 3))"]["non-contiguous"]["edit_refused"]
    broken["a.view_as(torch.empty(4, 3))"]["non-contiguous"]["edit_refused"] = view_ops.Raised(
        cell.error, cell.message.replace("Use .reshape(...) instead.", ""))
    assert failed_premises(broken, table_notes.VIEW_NOTES) == ["views-share"]


def test_a_message_of_several_lines_or_with_a_path_is_cut_to_its_first_sentence():
    assert view_ops.shown_message(RuntimeError("One. Two.")) == "RuntimeError: One. Two."
    assert view_ops.shown_message(RuntimeError("One. At /src/x.cpp.")) == "RuntimeError: One"
    assert view_ops.shown_message(RuntimeError("One. Two.\nThree")) == "RuntimeError: One"


def test_a_strided_source_with_one_layout_is_named(monkeypatch):
    monkeypatch.setitem(view_ops.SOURCES, "s", ("torch.tensor([[0., 1.], [2., 0.]])", None))
    assert view_ops.one_layout_problems() and "layout torch.strided" in view_ops.one_layout_problems()[0]


@pytest.mark.parametrize("code", [row.code for row in view_ops.VIEWS])
def test_a_documented_view_of_a_contiguous_tensor_shares_its_storage_and_its_writes(table, code):
    """The PyTorch documentation ("Tensor Views"): a view shares the underlying data with its base,
    and editing the view edits the base."""
    cells = table[code]["contiguous"]
    assert cells["shares_storage"] is YES and cells["writes_through"] is YES


#: (row, layout, column, value): what the PyTorch documentation says, or what was checked by hand on
#: torch 2.13 in a plain interpreter, written here, never read from the engine.
KNOWN = [
    # "view size is not compatible with input tensor's size and stride": view() needs compatible strides
    ("a.view(4, 3)", "non-contiguous", "shares_storage", "raised"),
    ("a.view_as(torch.empty(4, 3))", "non-contiguous", "writes_through", "raised"),
    ("a.t()", "non-contiguous", "shares_storage", YES),
    # detach(): "Returns a new Tensor, detached from the current graph" sharing storage; not an autograd view
    ("a.detach()", "contiguous", "shares_storage", YES),
    ("a.detach()", "contiguous", "autograd_view", NO),
    ("a.detach()", "non-contiguous", "writes_through", YES),
    ("a.t()", "contiguous", "autograd_view", YES),
    ("a.expand(2, 3, 4)", "non-contiguous", "writes_through", YES),
    # multi-output views refuse in-place edits when their base requires grad
    ("a.unbind()[0]", "contiguous", "edit_refused", view_ops.MULTI_OUTPUT),
    ("a.split(1)[0]", "non-contiguous", "edit_refused", view_ops.MULTI_OUTPUT),
    ("a.chunk(3)[0]", "contiguous", "edit_refused", view_ops.MULTI_OUTPUT),
    ("a.narrow(1, 0, 2)", "contiguous", "edit_refused", NO),
    # reshape/flatten: a view when the strides allow it, else a copy; contiguous(): self or a copy
    ("a.reshape(4, 3)", "contiguous", "autograd_view", YES),
    ("a.reshape(4, 3)", "non-contiguous", "shares_storage", NO),
    ("a.flatten()", "non-contiguous", "writes_through", NO),
    ("a.contiguous()", "contiguous", "shares_storage", YES),
    ("a.contiguous()", "non-contiguous", "shares_storage", NO),
    # to(): self when nothing changes, a copy to another dtype
    ("a.to(torch.float32)", "contiguous", "autograd_view", NO),
    ("a.to(torch.float64)", "contiguous", "shares_storage", NO),
    # "advanced indexing returns a copy"
    ("a[[0, 2]]", "contiguous", "shares_storage", NO),
    ("a[a > 5]", "non-contiguous", "writes_through", NO),
    ("a[0]", "non-contiguous", "writes_through", YES),
    ("z.real", "non-contiguous", "writes_through", YES),
    ("s.values()", "contiguous", "writes_through", YES),
    ("s.indices()", "contiguous", "autograd_view", NO),
    ("s.values()", "non-contiguous", "shares_storage", "n/a"),
]


def _matches(value, expected) -> bool:
    if expected == "raised":
        return isinstance(value, view_ops.Raised) and "view size is not compatible" in value.error
    if expected == "n/a":
        return value is view_ops.NOT_APPLICABLE
    if isinstance(value, view_ops.Refused):
        return value.kind == expected
    return value is expected


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: "/".join(map(str, k)))
def test_known_cells(table, known):
    code, layout, column, expected = known
    value = table[code][layout][column]
    assert _matches(value, expected), f"{code} / {layout} / {column}: {value!r}, expected {expected!r}"


def _probe(code, layout, column):
    return view_ops.run_probe(column, view_ops.ROWS[code], layout)


def _clone_all(f, a, k):
    return tuple(t.clone() for t in f(*a, **k))


#: (change of torch, row, layout, column, the value the probe must then return)
FLIPS = [
    (lambda: Override(t=lambda f, a, k: f(*a, **k).clone()), "a.t()", "contiguous", "shares_storage", NO),
    (lambda: Override(t=lambda f, a, k: f(*a, **k).clone()), "a.t()", "contiguous", "writes_through", NO),
    (lambda: Override(_is_view=lambda f, a, k: False), "a.t()", "contiguous", "autograd_view", NO),
    (lambda: Override(fill_=lambda f, a, k: a[0]), "a[0]", "contiguous", "writes_through", NO),
    (lambda: Override(unbind=_clone_all), "a.unbind()[0]", "contiguous", "edit_refused", NO),
    (lambda: Override(reshape=lambda f, a, k: f(*a, **k).clone()), "a.reshape(4, 3)", "contiguous",
     "shares_storage", NO),
    (lambda: Override(detach=lambda f, a, k: f(*a, **k).clone()), "a.detach()", "contiguous", "shares_storage", NO),
]


@pytest.mark.parametrize("flip", FLIPS, ids=lambda f: "/".join(map(str, f[1:4])))
def test_a_probe_follows_torch(flip):
    mode, code, layout, column, expected = flip
    assert _probe(code, layout, column) is not expected, "the unchanged torch gives the other answer"
    with mode():
        assert _probe(code, layout, column) is expected


def test_an_expected_error_that_does_not_come_fails_the_cell():
    row = dataclasses.replace(view_ops.ROWS["a.t()"], raises={"non-contiguous": "view size is not compatible"})
    assert isinstance(view_ops.run_probe("shares_storage", row, "non-contiguous"), view_ops.ProbeFailure)


def test_an_unexpected_error_fails_the_cell():
    with Override(view=lambda f, a, k: (_ for _ in ()).throw(RuntimeError("surprise"))):
        value = _probe("a.view(4, 3)", "contiguous", "shares_storage")
    assert isinstance(value, view_ops.ProbeFailure) and "surprise" in value.message


@pytest.mark.parametrize("code", ["a.t()", "a.unbind()[0]", "s.values()"])
def test_no_probe_answers_without_torch(code):
    for column in view_ops.COLUMNS:
        with CountTorchCalls() as counter:
            _probe(code, "contiguous", column)
        assert counter.calls > 0
        with RefuseTorch():
            value = _probe(code, "contiguous", column)
        assert isinstance(value, view_ops.ProbeFailure) and "torch is switched off" in value.message


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_notes_hold_and_each_fails_on_a_table_that_contradicts_it(table, facts_as_run):
    assert failed_premises(table, table_notes.VIEW_NOTES) == []
    broken = {code: {lay: dict(cells) for lay, cells in layouts.items()} for code, layouts in table.items()}
    broken["a.detach()"]["contiguous"]["autograd_view"] = True
    broken["a.tensor_split(3)[0]"]["contiguous"]["edit_refused"] = view_ops.Refused(view_ops.MULTI_OUTPUT, "x")
    broken["a.flatten()"]["non-contiguous"]["shares_storage"] = True
    broken["a.squeeze()"]["non-contiguous"]["writes_through"] = False
    assert failed_premises(broken, table_notes.VIEW_NOTES) == [
        "views-share", "autograd-views", "multi-output", "maybe-copy"]


def test_the_words_of_every_edition_cover_every_cell():
    needed = {"operation", *view_ops.LAYOUTS, *view_ops.COLUMNS, True, False, "raised", *view_ops.REFUSALS,
              "not_applicable", "sources", "layout", "messages", "message", "sparse_coo"}
    for lang in CODES:
        assert needed <= set(op_tables.words(lang)), lang
    with pytest.raises(Exception, match="unknown language edition"):
        op_tables.words("fr")


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang, start", [("en", "Checked by: "), ("zh_CN", "检查它的事实：")])
def test_each_note_that_rests_on_facts_links_them_under_it(tmp_path, lang, start, facts_as_run):
    """The views and saved pages say so above their notes: where a table cannot show a sentence, the facts listed
    under it after "Checked by" do."""
    import io

    from bs4 import BeautifulSoup
    from sphinx.testing.util import SphinxTestApp

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(EXT)!r}]\n"
        "extensions = ['myst_parser', 'tensorcopy_sphinx.op_tables', 'tensorcopy_sphinx.behaviour_matrix', "
        f"'tensorcopy_sphinx.fact_index']\nlanguage = {lang!r}\n", encoding="utf-8")
    (src / "index.md").write_text("# Notes\n\n```{view-table} notes\n```\n\n```{saved-table} notes\n```\n",
                                  encoding="utf-8")
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "build", freshenv=True, status=io.StringIO(),
                        warning=io.StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    soup = BeautifulSoup((app.outdir / "index.html").read_text(encoding="utf-8"), "html.parser")
    notes = (*table_notes.VIEW_NOTES, *table_notes.SAVED_NOTES)
    assert len(soup.select("ul.behaviour-guide > li")) == len(notes)
    for note in notes:
        item = soup.select_one(f"ul.behaviour-guide > li#guide-{note.id}")
        lines = item.select("p.guide-checked-by")
        assert [a["href"] for line in lines for a in line.select("a")] == [
            f"facts.html#fact-{fact_id}" for fact_id in note.facts], note.id
        assert all(line.get_text().startswith(start) for line in lines) and len(lines) == bool(note.facts), note.id
    assert any(note.facts for note in notes) and any(not note.facts for note in notes)
