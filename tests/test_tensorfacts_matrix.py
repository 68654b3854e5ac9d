"""The behaviour matrix (tensorfacts.matrix and the behaviour_matrix directive): every cell comes from
a probe that runs tensors, and the guide's premises are checked against those cells."""

from __future__ import annotations

import copy
import dataclasses
import re

import pytest
import torch
from bs4 import BeautifulSoup

from sitetools.editions import CODES, edition
from tensorfacts import articles
from tensorfacts import matrix as mp
from tests.claims_tools import MODES, CountTorchCalls, Override, RefuseTorch, behaviour_matrix, build_mini_site

CJK = re.compile(r"[\u4e00-\u9fff]")
CELLS = [(s, o, c) for s in mp.SOURCES for o in mp.OPERATIONS for c in mp.PROBES]


def cell_id(cell) -> str:
    return "/".join(cell)


@pytest.fixture(scope="module")
def matrix() -> mp.Matrix:
    return mp.probe_all()


def test_every_column_has_a_probe_and_words_in_every_edition():
    kinds = set(mp.BOOLEAN_COLUMNS) | set(mp.CODE_COLUMNS) | set(mp.EDIT_COLUMNS)
    assert set(mp.PROBES) == kinds, "every column is rendered by kind and has one probe"
    outcomes = mp.EDIT_OUTCOMES
    for lang in CODES:
        words = behaviour_matrix.words(lang)
        missing = [k for k in ("operation", *mp.PROBES, True, False, *outcomes) if k not in words]
        assert not missing, f"{lang}: no words for {missing}"


def test_every_cell_has_a_probed_value(matrix):
    assert not mp.failures(matrix)
    assert set(matrix) == set(mp.SOURCES)
    for rows in matrix.values():
        assert list(rows) == list(mp.OPERATIONS)
        for cells in rows.values():
            assert list(cells) == list(mp.PROBES)


def test_probes_are_deterministic_and_show_no_address(matrix):
    assert mp.probe_all() == matrix
    for source, operation, column in CELLS:
        assert not re.search(r"0x[0-9a-f]{4,}", str(matrix[source][operation][column]))


@pytest.mark.parametrize("cell", CELLS, ids=cell_id)
def test_probe_runs_tensor_code(cell):
    source, operation, column = cell
    with CountTorchCalls() as counter:
        value = mp.run_probe(column, source, operation)
    assert not isinstance(value, mp.ProbeFailure), value
    assert counter.calls > 0


@pytest.mark.parametrize("cell", CELLS, ids=cell_id)
def test_probe_cannot_answer_without_torch(cell):
    source, operation, column = cell
    with RefuseTorch():
        value = mp.run_probe(column, source, operation)
    assert isinstance(value, mp.ProbeFailure) and "torch is switched off" in value.message


def _quiet_tensor(func, args, kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


#: (change of torch, source, operation, column, the value the probe must then return)
FLIPS = [
    ("clone aliases", "leaf", "a.clone()", "same_object", True),
    ("detach copies", "non-leaf", "a.detach()", "shares_storage", False),
    ("detach keeps grad", "leaf", "a.detach()", "requires_grad", True),
    ("clone detaches", "non-leaf", "a.clone()", "grad_fn", "None"),
    ("detach copies", "leaf", "a.detach()", "shares_version", False),
    ("detach copies", "non-leaf", "a.detach()", "inplace_edit", mp.EDIT_UNAFFECTED),
    ("data copies", "leaf", "a.data", "inplace_edit", mp.EDIT_UNAFFECTED),
    ("data copies", "parameter", "a.data", "inplace_edit_no_grad", mp.EDIT_UNAFFECTED),
    ("clone aliases", "parameter", "a.clone()", "type", "Parameter"),
    ("quiet torch.tensor", "leaf", "torch.tensor(a)", "raised", ""),
]


@pytest.mark.parametrize("flip", FLIPS, ids=lambda f: f"{f[0]}:{f[1]}/{f[2]}/{f[3]}")
def test_cell_follows_torch(flip, matrix):
    change, source, operation, column, expected = flip
    assert matrix[source][operation][column] != expected, "a flip must change the cell"
    mode = Override(tensor=_quiet_tensor) if change == "quiet torch.tensor" else MODES[change]()
    with mode:
        assert mp.run_probe(column, source, operation) == expected


def test_every_column_has_a_flip():
    assert {f[3] for f in FLIPS} == set(mp.PROBES)


def test_guide_premises_hold(matrix):
    assert mp.failed_premises(matrix) == []


@dataclasses.dataclass(frozen=True)
class Fact:
    """What one guide sentence states about one cell: ``operation`` / ``column`` in ``sources``
    equals ``value``, or the same cell of ``same_as`` (another operation), or starts with ``prefix``
    and contains ``containing``."""

    operation: str
    column: str
    value: object = None
    same_as: str | None = None
    prefix: str | None = None
    containing: str = ""
    sources: tuple[str, ...] | None = None  # None: every source

    def cells(self) -> list[tuple[str, str, str]]:
        operations = (self.operation,) if self.same_as is None else (self.operation, self.same_as)
        return [(s, o, self.column) for s in self.sources or mp.SOURCES for o in operations]

    def holds(self, m: mp.Matrix) -> bool:
        for source in self.sources or mp.SOURCES:
            cell = m[source][self.operation][self.column]
            if self.same_as is not None:
                ok = cell == m[source][self.same_as][self.column]
            elif self.prefix is not None:
                ok = str(cell).startswith(self.prefix) and self.containing in str(cell)
            else:
                ok = cell == self.value and type(cell) is type(self.value)
            if not ok:
                return False
        return True


def _row_facts(operation: str, like: str, *, but: tuple[str, ...] = ()) -> list[Fact]:
    """``operation`` gives what ``like`` gives, in every column the engine probes (but ``but``)."""
    return [Fact(operation, column, same_as=like) for column in mp.PROBES if column not in but]


#: For each piece of advice, the facts its sentence states (read the sentences in tensorfacts/matrix.py).
GUIDE_FACTS: dict[str, list[Fact]] = {
    "independent-copy": [
        Fact("a.detach().clone()", "same_object", False),  # "a copy"
        Fact("a.detach().clone()", "shares_storage", False),  # "its own storage"
        Fact("a.detach().clone()", "grad_fn", "None"),
        Fact("a.detach().clone()", "requires_grad", False),
        Fact("a.detach().clone()", "raised", ""),
        Fact("a.detach().clone()", "inplace_edit", mp.EDIT_UNAFFECTED),
    ],
    "clone-detach-same": _row_facts("a.clone().detach()", "a.detach().clone()"),
    "copy-in-graph": [
        Fact("a.clone()", "shares_storage", False),
        Fact("a.clone()", "requires_grad", True),
        Fact("a.clone()", "grad_fn", "CloneBackward0"),
        Fact("torch.empty_like(a).copy_(a)", "shares_storage", False),  # "does the same"
        Fact("torch.empty_like(a).copy_(a)", "requires_grad", True),
        Fact("torch.empty_like(a).copy_(a)", "grad_fn", "CopyBackwards"),
    ],
    "detach-view": [
        Fact("a.detach()", "requires_grad", False),  # "without autograd"
        Fact("a.detach()", "shares_storage", True),  # "without copying"
        Fact("a.detach()", "shares_version", True),
        Fact("a.detach()", "inplace_edit", mp.EDIT_DETECTED),
    ],
    "avoid-data": [
        Fact("a.data", "shares_storage", True),
        Fact("a.data", "shares_version", False),
        Fact("a.data", "inplace_edit", mp.EDIT_SILENT),
    ],
    "alias": [Fact("b = a", "same_object", True)],
    "torch-tensor": [
        Fact("torch.tensor(a)", "raised", prefix="UserWarning", containing="detach().clone()"),
        *_row_facts("torch.tensor(a)", "a.detach().clone()", but=("raised",)),
    ],
    "deepcopy": [
        Fact("copy.deepcopy(a)", "raised", "", sources=("leaf",)),  # "works only on a leaf"
        Fact("copy.deepcopy(a)", "grad_fn", "None", sources=("leaf",)),  # "a new leaf"
        Fact("copy.deepcopy(a)", "shares_storage", False, sources=("leaf",)),
        Fact("copy.deepcopy(a)", "requires_grad", True, sources=("leaf",)),
        Fact("copy.deepcopy(a)", "raised", prefix="RuntimeError", sources=("non-leaf",)),
    ],
}


def _changed(m: mp.Matrix, cell: tuple[str, str, str]) -> mp.Matrix:
    """A copy of the matrix with one cell holding something else."""
    source, operation, column = cell
    changed = copy.deepcopy(m)
    value = changed[source][operation][column]
    changed[source][operation][column] = (not value) if isinstance(value, bool) else "changed"
    return changed


def test_every_piece_of_advice_has_its_facts():
    assert set(GUIDE_FACTS) == {advice.id for advice in mp.GUIDE}, "write down what each sentence states"


@pytest.mark.parametrize("advice", mp.GUIDE, ids=lambda a: a.id)
def test_guide_sentence_states_what_the_probes_found(advice, matrix):
    wrong = [fact for fact in GUIDE_FACTS[advice.id] if not fact.holds(matrix)]
    assert not wrong, f"{advice.id}: the probes contradict {wrong}"


def premise_problems(advice: mp.Advice, m: mp.Matrix) -> list[str]:
    """How the premise of ``advice`` strays from its sentence: a stated fact whose change leaves it
    holding, or an unstated cell whose change breaks it."""
    problems = []
    stated = {cell for fact in GUIDE_FACTS[advice.id] for cell in fact.cells()}
    for cell in CELLS:
        breaks = advice.id in mp.failed_premises(_changed(m, cell))
        if cell in stated and not breaks:
            problems.append(f"{advice.id}: its premise still holds with {cell} changed, which its sentence states")
        if cell not in stated and breaks:
            problems.append(f"{advice.id}: its premise breaks when {cell} changes, which its sentence does not state")
    return problems


@pytest.mark.parametrize("advice", mp.GUIDE, ids=lambda a: a.id)
def test_guide_premise_checks_exactly_what_its_sentence_states(advice, matrix):
    """Changing any one cell the sentence speaks of breaks the premise, and no other cell does."""
    for fact in GUIDE_FACTS[advice.id]:
        for cell in fact.cells():
            assert not fact.holds(_changed(matrix, cell)), f"changing {cell} does not change {fact}"
    assert premise_problems(advice, matrix) == []


def test_a_premise_that_reads_another_row_is_caught(matrix, monkeypatch):
    """The audit's case: the detach-view sentence with the alias premise behind it."""
    alias = next(a for a in mp.GUIDE if a.id == "alias")
    swapped = tuple(dataclasses.replace(a, premise=alias.premise) if a.id == "detach-view" else a
                    for a in mp.GUIDE)
    monkeypatch.setattr(mp, "GUIDE", swapped)
    problems = premise_problems(next(a for a in swapped if a.id == "detach-view"), matrix)
    assert any("('leaf', 'a.detach()', 'shares_version')" in p and "still holds" in p for p in problems)
    assert any("('leaf', 'b = a', 'same_object')" in p and "does not state" in p for p in problems)


@pytest.mark.parametrize("advice", mp.GUIDE, ids=lambda a: a.id)
def test_guide_is_written_in_every_edition(advice):
    for code in CODES:
        text = advice.text(code)
        assert bool(CJK.search(text)) == edition(code).cjk, f"the {code} text is in {code}"
        assert text.count("`") % 2 == 0
        checked = set(mp.OPERATIONS).union(*(mp.FACT_EXPRESSIONS.get(f, ()) for f in advice.facts))
        assert set(re.findall(r"`(a\.[^`]+|b = a|copy\.deepcopy\(a\))`", text)) <= checked, (
            "an expression the guide names is one the table probes, or one a fact it names checks")


MATRIX_PAGE = """
```{behaviour-matrix}
:source: leaf
```

```{behaviour-matrix}
:source: non-leaf
```

```{behaviour-matrix}
:guide:
```
"""


@pytest.mark.parametrize("lang", CODES)
def test_matrix_page_builds_cleanly(tmp_path, lang):
    html, warnings = build_mini_site(tmp_path, MATRIX_PAGE, language=lang)
    assert warnings == ""
    soup = BeautifulSoup(html, "html.parser")
    tables = soup.select("table.behaviour-matrix")
    assert len(tables) == 2
    for table in tables:
        line = table.find_previous("p", class_="behaviour-matrix-source")
        assert torch.__version__ in line.get_text()
        assert len(table.select("tbody tr")) == len(mp.OPERATIONS)
    assert len(soup.select("ul.behaviour-guide > li")) == len(mp.GUIDE)


def test_build_warns_when_a_probe_fails_or_a_premise_breaks(tmp_path, monkeypatch):
    def broken(source, operation):
        raise ValueError("boom")

    monkeypatch.setitem(mp.PROBES, "grad_fn", broken)
    _, warnings = build_mini_site(tmp_path, MATRIX_PAGE)
    assert "probe failed: leaf / a.clone() / grad_fn: ValueError: boom" in warnings
    assert "the premises of 'copy-in-graph' do not hold" in warnings


def test_built_site_pages(site_dir):
    """The real build: both editions have the ledger and the matrix, with links that resolve."""
    for lang in CODES:
        ledger = BeautifulSoup((site_dir / lang / "ledger.html").read_text(encoding="utf-8"),
                               "html.parser")
        rows = ledger.select("table.claims-ledger tbody tr")
        assert len(rows) == len(articles.CLAIMS)
        for row in rows:
            link = row.select_one("a.reference.internal")
            assert link is not None and link["href"].startswith("examples/"), row.get("id")
            assert (site_dir / lang / link["href"].split("#")[0]).exists()
        page = BeautifulSoup((site_dir / lang / "matrix.html").read_text(encoding="utf-8"),
                             "html.parser")
        assert len(page.select("table.behaviour-matrix tbody tr")) == len(mp.SOURCES) * len(mp.OPERATIONS)
        for soup in (ledger, page):
            ids = [tag["id"] for tag in soup.find_all(id=True)]
            assert len(ids) == len(set(ids)), "an id appears twice"
