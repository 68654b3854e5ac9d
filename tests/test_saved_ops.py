"""The "what operations save" table (tensorfacts.saved_ops, the saved-table directive): what each row saves
is checked against the derivative formulas (written here by hand: d/dx exp(x) = exp(x) needs the
output, d/dx sin(x) = cos(x) needs the input ...), the consequence columns against torch's own
errors, and the notes under the table fail on a table that contradicts them."""

from __future__ import annotations

import pytest

from editions import CODES
from tensorfacts import saved_ops, table_notes
from tensorfacts.matrix import failed_premises
from tests.claims_tools import EXT, CountTorchCalls, Override, RefuseTorch

assert EXT  # the extensions' folder is importable (claims_tools puts it on the path)
from tensorcopy_sphinx import op_tables  # noqa: E402

IN, OP, OUT, OTHER = saved_ops.INPUT, saved_ops.OPERAND, saved_ops.OUTPUT, saved_ops.OTHER

#: What each row's backward formula needs, from the formulas (by hand, not from the engine).
FORMULAS = {
    "torch.exp(x)": (OUT,),  # exp(x)
    "torch.sigmoid(x)": (OUT,),  # s(1 - s)
    "torch.tanh(x)": (OUT,),  # 1 - t**2
    "F.relu(x)": (OUT,),  # result > 0
    "torch.sqrt(x)": (OUT,),  # 1 / (2 sqrt(x))
    "torch.log(x)": (IN,),  # 1 / x
    "torch.sin(x)": (IN,),  # cos(x)
    "torch.pow(x, 2)": (IN,),  # 2x
    "torch.mul(x, y)": (IN, OP),  # y for x, x for y
    "torch.mul(x, c)": (OP,),  # c for x; x is needed by no one
    "torch.matmul(x, y)": (IN, OP),
    "torch.add(x, y)": (),  # 1 and 1
    "torch.sum(x)": (),
    "torch.mean(x)": (),
}


@pytest.fixture(scope="module")
def table() -> saved_ops.Table:
    return saved_ops.probe_all()


def test_every_cell_has_a_probed_value(table):
    assert not saved_ops.failures(table)
    assert list(table) == [row.code for row in saved_ops.ROWS]
    assert all(list(cells) == list(saved_ops.COLUMNS) for cells in table.values())


def test_the_inputs_are_as_the_page_says_and_a_change_is_named(monkeypatch):
    """x and y: leaves that require grad, views of their linspace(); c: a leaf that does not require grad."""
    assert saved_ops.input_problems() == []
    monkeypatch.setitem(saved_ops.INPUTS, "y", "torch.linspace(1.5, 0.7, 9).reshape(3, 3).clone().requires_grad_()")
    assert [p.split(" = ")[0] for p in saved_ops.input_problems()] == ["y"]


def test_probes_are_deterministic(table):
    assert saved_ops.probe_all() == table


@pytest.mark.parametrize("code", sorted(FORMULAS))
def test_what_a_row_saves_is_what_its_formula_needs(table, code):
    assert table[code]["saves"] == FORMULAS[code]


@pytest.mark.parametrize("code", sorted(FORMULAS))
def test_an_edit_breaks_backward_exactly_when_it_hits_a_saved_tensor(table, code):
    cells = table[code]
    assert (cells["edit_input"] == saved_ops.ERROR_AT_BACKWARD) == (IN in FORMULAS[code])
    assert (cells["edit_output"] == saved_ops.ERROR_AT_BACKWARD) == (OUT in FORMULAS[code])


def _run(code: str, column: str):
    return saved_ops.run_probe(column, saved_ops.BY_CODE[code])


def _save_nothing(f, a, k):
    import torch

    with torch.autograd.graph.saved_tensors_hooks(lambda t: None, lambda t: t):  # nested hooks win
        return f(*a, **k)


#: (change of torch, row, column, the value the probe must then return)
FLIPS = [
    (lambda: Override(sin=lambda f, a, k: f(a[0] * 1, **k)), "torch.sin(x)", "edit_input", saved_ops.SAME_GRADIENT),
    (lambda: Override(add_=lambda f, a, k: a[0]), "torch.exp(x)", "edit_output", saved_ops.SAME_GRADIENT),
    (lambda: Override(exp=_save_nothing), "torch.exp(x)", "saves", ()),
]


@pytest.mark.parametrize("flip", FLIPS, ids=lambda f: "/".join(map(str, f[1:3])))
def test_a_probe_follows_torch(flip):
    mode, code, column, expected = flip
    assert _run(code, column) != expected, "the unchanged torch gives the other answer"
    with mode():
        assert _run(code, column) == expected


def test_a_second_backward_raises_only_where_something_was_freed(table):
    assert table["torch.sum(x)"]["backward_twice"] == saved_ops.NO_ERROR
    assert table["torch.exp(x)"]["backward_twice"] == saved_ops.SECOND_BACKWARD_ERROR


@pytest.mark.parametrize("code", ["torch.exp(x)", "torch.mul(x, y)"])
def test_no_probe_answers_without_torch(code):
    for column in saved_ops.COLUMNS:
        with CountTorchCalls() as counter:
            _run(code, column)
        assert counter.calls > 0
        with RefuseTorch():
            value = _run(code, column)
        assert isinstance(value, saved_ops.ProbeFailure) and "torch is switched off" in value.message


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_notes_hold_and_each_fails_on_a_table_that_contradicts_it(table, facts_as_run):
    assert failed_premises(table, table_notes.SAVED_NOTES) == []
    broken = {code: dict(cells) for code, cells in table.items()}
    broken["torch.cos(x)"]["edit_output"] = saved_ops.ERROR_AT_BACKWARD
    broken["F.relu(x)"]["saves"] = (IN,)
    broken["x * 2"]["saves"] = (IN,)
    broken["torch.sum(x)"]["backward_twice"] = saved_ops.SECOND_BACKWARD_ERROR
    broken["checkpoint(torch.exp, x, use_reentrant=False)"]["saves"] = (OUT,)
    broken["torch.where(x > 1, x, y)"]["saves"] = ()
    assert failed_premises(broken, table_notes.SAVED_NOTES) == [
        "edits-follow-saves", "output-savers", "operands", "backward-twice", "checkpoint", "where"]


def test_the_words_of_every_edition_cover_every_cell():
    needed = {"operation", *saved_ops.COLUMNS, *saved_ops.ROLES, "nothing", "separator", "inputs",
              saved_ops.ERROR_AT_BACKWARD, saved_ops.SAME_GRADIENT, saved_ops.OTHER_GRADIENT,
              saved_ops.NO_ERROR, saved_ops.SECOND_BACKWARD_ERROR}
    for lang in CODES:
        assert needed <= set(op_tables.words(lang)), lang
