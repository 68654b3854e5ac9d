"""The behaviour matrix (tensorfacts.matrix and the behaviour_matrix directive): every cell comes from
a probe that runs tensors, and the guide's premises are checked against those cells."""

from __future__ import annotations

import dataclasses
import re

import pytest
import torch
from bs4 import BeautifulSoup

from editions import CODES, edition
from tensorfacts import articles, facts, probes, standard_sources
from tensorfacts import matrix as mp
from tests.claims_tools import MODES, CountTorchCalls, Override, RefuseTorch, behaviour_matrix, build_mini_site

CJK = re.compile(r"[\u4e00-\u9fff]")
CELLS = [(s, o, c) for s in standard_sources.SOURCES for o in probes.OPERATIONS for c in probes.PROBES]
INDEX_WRITE = "a[[0, 2]] = 0.; b = a"  # the matrix's index write, written here by hand


def cell_id(cell) -> str:
    return "/".join(cell)


@pytest.fixture(scope="module")
def matrix() -> probes.Matrix:
    return probes.probe_all()


def test_every_column_has_a_probe_and_words_in_every_edition():
    kinds = set(probes.BOOLEAN_COLUMNS) | set(probes.CODE_COLUMNS) | set(probes.EDIT_COLUMNS)
    assert set(probes.PROBES) == kinds, "every column is rendered by kind and has one probe"
    outcomes = probes.EDIT_OUTCOMES
    for lang in CODES:
        words = behaviour_matrix.words(lang)
        missing = [k for k in ("operation", *probes.PROBES, True, False, *outcomes, *probes.REFUSALS, "refusal")
                   if k not in words]
        assert not missing, f"{lang}: no words for {missing}"


def test_every_cell_has_a_probed_value(matrix):
    assert not probes.failures(matrix)
    assert set(matrix) == set(standard_sources.SOURCES)
    for rows in matrix.values():
        assert list(rows) == list(probes.OPERATIONS)
        for cells in rows.values():
            assert list(cells) == list(probes.PROBES)


def test_probes_are_deterministic_and_show_no_address(matrix):
    assert probes.probe_all() == matrix
    for source, operation, column in CELLS:
        assert not re.search(r"0x[0-9a-f]{4,}", str(matrix[source][operation][column]))


ROWS = [(s, o) for s in standard_sources.SOURCES for o in probes.OPERATIONS]


@pytest.mark.parametrize("row", ROWS, ids=cell_id)
def test_every_probe_runs_tensor_code(row):
    """One test per row (source, operation), every column in it, so that each failing cell is named."""
    problems = []
    for column in probes.PROBES:
        with CountTorchCalls() as counter:
            value = probes.run_probe(column, *row)
        if isinstance(value, probes.ProbeFailure) or counter.calls == 0:
            problems.append(f"{column}: {value!r} after {counter.calls} torch calls")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("row", ROWS, ids=cell_id)
def test_no_probe_can_answer_without_torch(row):
    problems = []
    for column in probes.PROBES:
        with RefuseTorch():
            value = probes.run_probe(column, *row)
        if not (isinstance(value, probes.ProbeFailure) and "torch is switched off" in value.message):
            problems.append(f"{column} answered {value!r} with torch switched off")
    assert not problems, "\n".join(problems)


def _quiet_tensor(func, args, kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _edit_in_inference_mode(func, args, kwargs):
    with torch.inference_mode():
        return func(*args, **kwargs)


def _raises(message: str):
    def replacement(func, args, kwargs):
        raise RuntimeError(message)

    return replacement


#: Changes of torch that only these tests make (the others are claims_tools.MODES).
LOCAL_MODES = {
    "quiet torch.tensor": lambda: Override(tensor=_quiet_tensor),
    "inference tensors count versions": lambda: Override(_version=lambda f, a, k: 0),
    "inference tensors accept edits": lambda: Override(mul_=_edit_in_inference_mode),
    "inference edits raise before writing": lambda: Override(
        mul_=_raises(probes.REFUSALS[probes.INFERENCE_EDIT] + ". You can make a clone")),
}

#: (change of torch, source, operation, column, the value the probe must then return)
FLIPS = [
    ("clone aliases", "leaf", "a.clone()", "same_object", True),
    ("detach copies", "non-leaf", "a.detach()", "shares_storage", False),
    ("detach keeps grad", "leaf", "a.detach()", "requires_grad", True),
    ("clone detaches", "non-leaf", "a.clone()", "grad_fn", "None"),
    ("detach copies", "leaf", "a.detach()", "shares_version", False),
    ("detach copies", "non-leaf", "a.detach()", "inplace_edit", probes.EDIT_UNAFFECTED),
    ("data copies", "leaf", "a.data", "inplace_edit", probes.EDIT_UNAFFECTED),
    ("data copies", "parameter", "a.data", "inplace_edit_no_grad", probes.EDIT_UNAFFECTED),
    ("clone aliases", "parameter", "a.clone()", "type", "Parameter"),
    ("quiet torch.tensor", "leaf", "torch.tensor(a)", "raised", ""),
    ("clone aliases", "view", "a.clone()", "shares_storage", True),
    ("clone aliases", "plain", "a.clone()", "same_object", True),
    ("inference tensors count versions", "inference", "a.clone()", "shares_version", False),
    ("inference tensors accept edits", "inference", "b = a", "inplace_edit", probes.EDIT_NO_GRAPH),
    ("inference tensors accept edits", "inference", "a.view(3)", "inplace_edit_no_grad", probes.EDIT_NO_GRAPH),
    ("inference edits raise before writing", "inference", "b = a", "inplace_edit",
     probes.Refused(probes.INFERENCE_EDIT, f"RuntimeError: {probes.REFUSALS[probes.INFERENCE_EDIT]}", changed=False)),
]


@pytest.mark.parametrize("flip", FLIPS, ids=lambda f: f"{f[0]}:{f[1]}/{f[2]}/{f[3]}")
def test_cell_follows_torch(flip, matrix):
    change, source, operation, column, expected = flip
    assert matrix[source][operation][column] != expected, "a flip must change the cell"
    mode = LOCAL_MODES[change]() if change in LOCAL_MODES else MODES[change]()
    with mode:
        assert probes.run_probe(column, source, operation) == expected


def test_every_column_and_source_has_a_flip():
    assert {f[3] for f in FLIPS} == set(probes.PROBES)
    assert {f[1] for f in FLIPS} == set(standard_sources.SOURCES)


@pytest.mark.parametrize(("source", "operation", "column", "name"), [
    ("inference", "b = a", "inplace_edit", "mul_"),
    ("inference", "a.clone()", "inplace_edit_no_grad", "mul_"),
    ("inference", "a.clone()", "shares_version", "_version"),
    ("leaf", "a.detach()", "shares_version", "_version"),
])
def test_an_error_that_is_no_known_refusal_fails_the_probe(source, operation, column, name):
    """Only the refusals the engine names are answers; any other error of torch fails the cell."""
    with Override(**{name: _raises("something else went wrong")}):
        value = probes.run_probe(column, source, operation)
    assert isinstance(value, probes.ProbeFailure) and "something else went wrong" in value.message, value


def test_refusal_keeps_the_error_kind_and_torch_message(matrix):
    cells = [v for rows in matrix.values() for cells in rows.values() for v in cells.values()
             if isinstance(v, probes.Refused)]
    assert {c.kind for c in cells} == set(probes.REFUSALS), "every refusal the engine names occurs"
    for cell in cells:
        kind, _, message = cell.error.partition(": ")
        assert kind == "RuntimeError" and probes.REFUSALS[cell.kind] in message
        assert "http" not in message and "." not in message.removeprefix(probes.REFUSALS[cell.kind])


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
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
    refused: str | None = None  # the cell is this refusal (a key of probes.REFUSALS)
    changed: bool | None = None  # ... and the values of a changed all the same (None: not stated)

    def cells(self) -> list[tuple[str, str, str]]:
        operations = (self.operation,) if self.same_as is None else (self.operation, self.same_as)
        return [(s, o, self.column) for s in self.sources or standard_sources.SOURCES for o in operations]

    def holds(self, m: probes.Matrix) -> bool:
        for source in self.sources or standard_sources.SOURCES:
            cell = m[source][self.operation][self.column]
            if self.same_as is not None:
                ok = cell == m[source][self.same_as][self.column]
            elif self.refused is not None:
                ok = (isinstance(cell, probes.Refused) and cell.kind == self.refused
                      and (self.changed is None or cell.changed is self.changed))
            elif self.prefix is not None:
                ok = str(cell).startswith(self.prefix) and self.containing in str(cell)
            else:
                ok = cell == self.value and type(cell) is type(self.value)
            if not ok:
                return False
        return True


def _row_facts(operation: str, like: str, *, but: tuple[str, ...] = ()) -> list[Fact]:
    """``operation`` gives what ``like`` gives, in every column the engine probes (but ``but``)."""
    return [Fact(operation, column, same_as=like) for column in probes.PROBES if column not in but]


#: The sources that require grad: where a sentence about autograd, gradients or backward applies.
GRAD = standard_sources.GRAD_SOURCES
#: The sources ``copy.deepcopy`` works on: "a tensor with no grad_fn (a leaf, a Parameter, a tensor
#: that does not require grad, an inference tensor)".
NO_GRAD_FN = ("leaf", "parameter", "plain", "inference")
#: The sources that have a version counter, and those that have none ("an inference tensor has no
#: version counter at all").
VERSIONED = standard_sources.VERSIONED_SOURCES
UNCOUNTED = standard_sources.NO_VERSION_COUNTER


def _counter_facts(operation: str, shared: bool) -> list[Fact]:
    """"shares (or has its own) version counter ... (an inference tensor has no version counter at all)"."""
    return [Fact(operation, "shares_version", shared, sources=VERSIONED),
            Fact(operation, "shares_version", refused=probes.NO_COUNTER, sources=UNCOUNTED)]


def _edit_facts(operation: str, outcome: str, *, columns: tuple[str, ...] = probes.EDIT_COLUMNS,
                sources: tuple[str, ...] = GRAD) -> list[Fact]:
    return [Fact(operation, column, outcome, sources=sources) for column in columns]


#: For each piece of advice, the table cells its sentence states (read the en text of each entry in
#: tensorfacts/matrix.py). What a sentence says outside the table is in GUIDE_NAMED_FACTS.
GUIDE_FACTS: dict[str, list[Fact]] = {
    "independent-copy": [
        Fact("a.detach().clone()", "same_object", False),  # "an independent copy"
        Fact("a.detach().clone()", "shares_storage", False),  # "its own storage
        *_counter_facts("a.detach().clone()", False),  # and its own version counter (an inference ...)"
        Fact("a.detach().clone()", "grad_fn", "None"),  # "no grad_fn"
        Fact("a.detach().clone()", "requires_grad", False),  # "requires_grad=False"
        Fact("a.detach().clone()", "raised", ""),  # "raises no warning"
        # "an in-place edit of it, with or without torch.no_grad(), leaves the gradient of a alone"
        *_edit_facts("a.detach().clone()", probes.EDIT_UNAFFECTED),
        # "with torch.no_grad(): a.clone() gives the same row"
        *_row_facts("with torch.no_grad(): a.clone()", "a.detach().clone()"),
    ],
    "clone-detach-same": _row_facts("a.clone().detach()", "a.detach().clone()"),
    "copy-in-graph": [  # "on a tensor that requires grad"; the other two "do the same"
        fact
        for operation, node in (("a.clone()", "CloneBackward0"),
                                ("torch.empty_like(a).copy_(a)", "CopyBackwards"),
                                ("a.double()", "ToCopyBackward0"))
        for fact in (
            Fact(operation, "shares_storage", False, sources=GRAD),  # "its own storage
            Fact(operation, "shares_version", False, sources=GRAD),  # and version counter"
            Fact(operation, "requires_grad", True, sources=GRAD),
            Fact(operation, "grad_fn", node, sources=GRAD),  # "a CloneBackward0 node", "through ..."
        )
    ],
    "detach-view": [
        Fact("a.detach()", "requires_grad", False),  # "without autograd": not tracked
        Fact("a.detach()", "grad_fn", "None"),  # and no node in the graph
        Fact("a.detach()", "shares_storage", True),  # "without copying", "shares storage
        *_counter_facts("a.detach()", True),  # and the version counter" (an inference tensor has none)
        # "edit it in place after autograd saved a, even under torch.no_grad(), and a backward that runs the
        # node that saved a raises"
        *_edit_facts("a.detach()", probes.EDIT_DETECTED),
    ],
    "view": [
        Fact("a.view(3)", "shares_storage", True),  # "not a copy either: it shares storage
        *_counter_facts("a.view(3)", True),  # and the version counter" (an inference tensor has none)
        Fact("a.view(3)", "grad_fn", "ViewBackward0", sources=GRAD),  # "stays in the graph"
        # "a view of a leaf that requires grad refuses in-place edits outside torch.no_grad()"
        *_edit_facts("a.view(3)", probes.EDIT_REFUSED, columns=("inplace_edit",),
                     sources=("leaf", "parameter", "view")),
        # "and so does b = a when a is itself such a view"
        Fact("b = a", "inplace_edit", probes.EDIT_REFUSED, sources=("view",)),
    ],
    "avoid-data": [
        Fact("a.data", "shares_storage", True),  # "shares storage
        *_counter_facts("a.data", False),  # but not the version counter" (an inference tensor has none)
        # "an in-place edit through it, with or without torch.no_grad(), goes unnoticed"
        *_edit_facts("a.data", probes.EDIT_SILENT),
        Fact("copy.copy(a)", "shares_storage", True),  # "it shares storage,
        *_counter_facts("copy.copy(a)", False),  # not the counter"
        # "an edit of it under torch.no_grad() goes unnoticed in the same way"
        *_edit_facts("copy.copy(a)", probes.EDIT_SILENT, columns=("inplace_edit_no_grad",)),
    ],
    "alias": [
        Fact("b = a", "same_object", True),  # "b is the same object as a,
        Fact("torch.as_tensor(a)", "same_object", True),  # and so are torch.as_tensor(a)
        Fact("a.float()", "same_object", True),  # and a.float() on a float tensor"
        # "an in-place edit of b under torch.no_grad() is an edit of a: backward raises"
        *_edit_facts("b = a", probes.EDIT_DETECTED, columns=("inplace_edit_no_grad",)),
        # "if a is an inference tensor, an edit such as b.mul_(10) itself raises, and yet a has changed"
        Fact("b = a", "inplace_edit_no_grad", refused=probes.INFERENCE_EDIT, changed=True, sources=("inference",)),
    ],
    "torch-tensor": [
        Fact("torch.tensor(a)", "raised", prefix="UserWarning", containing="detach().clone()"),
        *_row_facts("torch.tensor(a)", "a.detach().clone()", but=("raised",)),
    ],
    "deepcopy": [
        Fact("b = a", "grad_fn", "None", sources=NO_GRAD_FN),  # "a tensor with no grad_fn (a leaf, ...)"
        Fact("copy.deepcopy(a)", "raised", "", sources=NO_GRAD_FN),  # "works"
        # "on a non-leaf, a view of a leaf taken with grad mode on included, it raises RuntimeError"
        Fact("copy.deepcopy(a)", "raised", prefix="RuntimeError", sources=("non-leaf", "view")),
        Fact("copy.deepcopy(a)", "shares_storage", False, sources=NO_GRAD_FN),  # "new storage"
        Fact("copy.deepcopy(a)", "requires_grad", same_as="b = a", sources=NO_GRAD_FN),  # "keeps"
        Fact("copy.deepcopy(a)", "type", same_as="b = a", sources=NO_GRAD_FN),  # "and the class"
        Fact("copy.deepcopy(a)", "type", "Parameter", sources=("parameter",)),  # "stays a Parameter"
    ],
    "inference": [
        # "has no version counter at all": no row of its table can read one
        *[Fact(op, "shares_version", refused=probes.NO_COUNTER, sources=UNCOUNTED) for op in probes.OPERATIONS
          if op != INDEX_WRITE],
        # the index write is an in-place edit of a itself: on an inference tensor it raises ("—"), after writing
        Fact(INDEX_WRITE, "raised", prefix="RuntimeError: " + probes.REFUSALS[probes.INFERENCE_EDIT],
             sources=UNCOUNTED),
        # "an in-place torch operation on it, such as mul_, through b = a or a.view(3) raises, with or
        # without torch.no_grad(),
        # and yet the values of a have changed"
        *[Fact(op, column, refused=probes.INFERENCE_EDIT, changed=True, sources=("inference",))
          for op in ("b = a", "a.view(3)") for column in probes.EDIT_COLUMNS],
        # "Its a.detach() and a.data ... share its storage ... an in-place call on them, such as mul_, runs without
        # an error"; "copy.copy(a) ... shares its storage, takes all of these edits" (the edit ran: "no graph");
        # "a.clone() or a.detach().clone(): new storage, and the edit goes through"
        *[fact for op, shared in (("a.data", True), ("a.detach()", True), ("copy.copy(a)", True),
                                  ("a.clone()", False), ("a.detach().clone()", False))
          for fact in (Fact(op, "shares_storage", shared, sources=("inference",)),
                       *_edit_facts(op, probes.EDIT_NO_GRAPH, sources=("inference",)))],
    ],
}

#: For each piece of advice, the named checks of tensorfacts/facts.py behind what its sentence says
#: outside the table (no cell shows these, so the cell-by-cell test below leaves them out).
GUIDE_NAMED_FACTS: dict[str, tuple[str, ...]] = {
    "detach-view": (
        "detach-edit-before-save",  # "an edit through a.detach() made before autograd saves a ... a constant"
        # "an operation that saves its output ... saves the non-leaf it makes ... the same edit makes backward() raise"
        "detach-edit-of-saved-output-detected",
        "detach-write-routes",  # "a write ... such as a.detach().data, NumPy or DLPack ... a wrong gradient"
        "saved-tensor-hooks-hide-edit",  # "an edit after autograd saved a under saved-tensor hooks"
        "version-check-only-in-nodes-run",  # "a backward that runs the node that saved a raises an error"
        "ctx-attribute-escapes-version-check",  # "or after a custom Function kept a as ctx.x = a"
        "unread-saved-tensors-escape-version-check",  # "or saved it but has a backward that never reads ..."
        "fused-optimizer-step-not-counted",  # "such as a step of an optimizer made with fused=True"
        "kernel-writes-not-counted",  # "a torch kernel that moves no version counter ... GradScaler.unscale_"
    ),
    "copy-in-graph": ("copy-in-graph-passes-gradient",  # "a copy that gradients still flow back through"
                      "double-of-float64-is-a",  # "on a float64 a it returns a itself, no copy"
                      "inference-tensor-requiring-grad",  # "for an inference tensor a ... CopyBackwards"
                      # "for a strided inference tensor ...; for a sparse, nested or mkldnn one ... no node"
                      "inference-leaf-clone-in-graph",
                      # "except on a view ... taken under torch.no_grad() ...: no gradient reaches the view or its base"
                      "clone-of-no-grad-view-passes-no-gradient",
                      # "torch.empty_like(a).copy_(a) does the same, the exception included, ... (a float32 view
                      # for the exception), does a.double()"
                      "copy-of-no-grad-view-passes-no-gradient",
                      # "v * 2, v.exp() and v[[0, 1]] pass w no gradient either"
                      "no-grad-view-operations-pass-no-gradient",
                      # "with grad mode on, outside torch.inference_mode()": inside it no node is recorded
                      "inference-mode-grad-on-records-no-node",
                      # "Such a view ... break[s] once the version counter ... moves ...; a write that moves no
                      # version counter (fused=True, .data, NumPy) leaves them as they were"
                      "no-grad-view-edit-breaks-clone",
                      # "and an output of unbind(), split(), split_with_sizes() or chunk() ...: for those outputs the
                      # other two copies raise too"
                      "split-output-edit-breaks-clone"),
    # "refuses in-place edits with grad mode on (... it accepts them, unless torch refuses the edit in every mode, as
    # it refuses mul_() on an expand() view)"; "a.view(dtype) ... takes in-place edits ..., unrecorded"
    "view": ("leaf-view-inplace-refused-in-grad-mode",
             "overlapping-window-views-take-writes",  # "though not on an unfold() view, whose overlapping windows"
             # "unfold(0, 2, 1).mul_(10) of ....clone() runs even with grad mode on, and backward() ... wrong gradient"
             "overlapping-window-edit-wrong-gradient",
             "inference-tensor-requiring-grad",  # "Not when a is an inference tensor made with requires_grad=True"
             "inference-mode-grad-on-records-no-node",  # "inside it, even with torch.enable_grad(), ... no grad_fn"
             # "refuses in-place edits with grad mode on as the edit runs (torch.nn.init.zeros_(a[0]) ... writes with
             # it off), outside torch.inference_mode() (inside it ... accepts them"
             "view-inplace-refused-outside-inference-mode",
             # "unless a is a view whose counter moved as the entry on a.clone() says (taking a view of it raises)"
             "no-grad-view-edit-breaks-clone", "split-output-edit-breaks-clone"),
    "alias": (
        "noop-conversions-return-a",  # "likewise a.to(torch.float32), ... a.cpu() ..., a.contiguous()"
        "default-device-makes-as-tensor-copy",  # "torch.as_tensor(a) (with no default device set)"
        "version-check-only-in-nodes-run",  # "a backward that runs the node which saved a raises"
        "saved-tensor-hooks-hide-edit",  # "(unless a was saved through saved-tensor hooks"
        "ctx-attribute-escapes-version-check",  # "and not as a custom Function's attribute)"
        # "or saved by a custom Function whose backward never reads ctx.saved_tensors"
        "unread-saved-tensors-escape-version-check",
        "fused-optimizer-step-not-counted",  # "or the edit is ... a step of an optimizer made with fused=True"
        "kernel-writes-not-counted",  # "GradScaler.unscale_ on a gradient, a BatchNorm layer's update ..."
        "apply-map-not-counted",  # "Nor after apply_ or map_, which move no version counter ..."
        "inference-tensor-apply-map-outside-no-error",  # "(apply_ and map_ edit it without an error)"
        # "an inference tensor made inside torch.inference_mode() ... b.mul_(10) itself raises, and yet a has changed"
        "inference-tensor-inplace-outside-raises-yet-writes",
        "inference-tensor-alias-edit-routes",  # "The detach() and .data of such a tensor ... mul_ ... without an error"
    ),
    "deepcopy": (
        "deepcopy-grad-by-source",  # "the copy of a plain tensor gets ... .grad, the copy of a Parameter has none"
        "deepcopy-model-drops-grad",  # "and so has every parameter of a deep-copied model"
        "deepcopy-view-copies-storage",  # "for a view it copies the whole storage behind it"
        # "Having no grad_fn is not enough. It raises RuntimeError on a torch.Tensor leaf whose .grad has a grad_fn ...
        # and NotImplementedError on a nested tensor of the default torch.strided layout, a sparse CSR ... tensor"
        "deepcopy-refuses-some-leaves",
    ),
    "avoid-data": (
        # "(a nested tensor of that layout aside: its copy is a view that shares the counter, so backward raises)"
        "copy-copy-of-strided-nested-shares-counter",
        # "copy.copy raises NotImplementedError on an mkldnn tensor and AttributeError on a CPU tensor of some dtypes"
        "copy-copy-raises-on-some-tensors",
        # "on a sparse COO tensor whether an edit of the copy under torch.no_grad() reaches a depends on the operation"
        "copy-copy-sparse-coo-edit-by-operation",
    ),
    "inference": (
        "inference-tensor-apply-map-outside-no-error",  # "(apply_ and map_ edit it with no error)"
        # "a view of a normal tensor by indexing, view(shape), t() or another view operation is not, nor is its
        # .data; its view(dtype) is one"
        "inference-mode-views-of-normal-tensor",
        # "An inference tensor that requires grad ... with grad mode on, outside the mode, refuses some of these edits
        # before writing (mul_(10) ...), while others write, then raise (zero_() ...); under torch.no_grad() each of
        # them raises after writing"
        "inference-tensor-inplace-outside-raises-yet-writes",
        "inference-tensor-has-no-version-counter",  # "Its a.detach() and a.data ... inference tensors ... a counter"
        # "An in-place call on them ... runs without an error ...; a write through one of their views ... raises after
        # writing"; "copy.copy(a), a normal tensor ..., takes all of these edits without an error"
        "inference-tensor-alias-edit-routes",
        # "an assignment through a 0-d mask of True ... Reading through that mask copies instead"
        "inference-tensor-alias-0d-mask-read-copies",
        # "nor does a kernel that moves no version counter, such as a step of an optimizer built with fused=True"
        "inference-tensor-uncounted-kernel-writes",
        # "torch.nn.init.zeros_, called with grad mode on, though it writes with grad mode off"
        "view-inplace-refused-outside-inference-mode",
    ),
}


def _changed(m: probes.Matrix, cell: tuple[str, str, str]) -> probes.Matrix:
    """A copy of the matrix with one cell holding something else (the dicts on the cell's path are
    copied, the rest is shared: premises only read the matrix)."""
    source, operation, column = cell
    changed = {**m, source: {**m[source], operation: {**m[source][operation]}}}
    value = changed[source][operation][column]
    changed[source][operation][column] = (not value) if isinstance(value, bool) else "changed"
    return changed


def test_every_piece_of_advice_has_its_facts():
    assert set(GUIDE_FACTS) == {advice.id for advice in mp.GUIDE}, "write down what each sentence states"
    assert set(GUIDE_NAMED_FACTS) <= set(GUIDE_FACTS)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("advice", mp.GUIDE, ids=lambda a: a.id)
def test_guide_names_the_checks_behind_what_no_cell_shows(advice, fact_results):
    """The named facts are exactly the ones written down for the sentence, each one holds, and a
    broken one breaks the entry (the cell-by-cell test leaves them out, so this is where they count)."""
    assert advice.facts == GUIDE_NAMED_FACTS.get(advice.id, ()), f"{advice.id}: facts= and GUIDE_NAMED_FACTS differ"
    for fact_id in advice.facts:
        result = fact_results[fact_id]
        assert result.holds, f"{advice.id}: {fact_id} does not hold: {result.trace}"


NAMED_FACTS = sorted({f for ids in GUIDE_NAMED_FACTS.values() for f in ids})


@pytest.fixture(scope="module")
def named_results(fact_results) -> dict[str, facts.Fact]:
    """Each fact the guide names, as it ran once in this test run (the test below breaks one at a time and replays
    the others)."""
    return {fact_id: fact_results[fact_id] for fact_id in NAMED_FACTS}


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("fact_id", NAMED_FACTS)
def test_a_broken_named_fact_breaks_its_advice(fact_id, matrix, named_results, monkeypatch):
    for other, result in named_results.items():
        monkeypatch.setitem(facts.FACTS, other, lambda result=result: result)
    monkeypatch.setitem(facts.FACTS, fact_id, lambda: facts.Fact(False, "broken on purpose"))
    named = {advice_id for advice_id, ids in GUIDE_NAMED_FACTS.items() if fact_id in ids}
    assert set(mp.failed_premises(matrix)) == named


@pytest.mark.parametrize("advice", mp.GUIDE, ids=lambda a: a.id)
def test_guide_sentence_states_what_the_probes_found(advice, matrix):
    wrong = [fact for fact in GUIDE_FACTS[advice.id] if not fact.holds(matrix)]
    assert not wrong, f"{advice.id}: the probes contradict {wrong}"


def premise_breaks(advice: mp.Advice, m: probes.Matrix) -> bool:
    """Does the table premise of ``advice`` (its named facts left out) fail on ``m``?"""
    return bool(mp.failed_premises(m, (dataclasses.replace(advice, facts=()),)))


def premise_problems(advice: mp.Advice, m: probes.Matrix) -> list[str]:
    """How the premise of ``advice`` strays from its sentence: a stated fact whose change leaves it
    holding, or an unstated cell whose change breaks it."""
    problems = []
    stated = {cell for fact in GUIDE_FACTS[advice.id] for cell in fact.cells()}
    for cell in CELLS:
        breaks = premise_breaks(advice, _changed(m, cell))
        if cell in stated and not breaks:
            problems.append(f"{advice.id}: its premise still holds with {cell} changed, which its sentence states")
        if cell not in stated and breaks:
            problems.append(f"{advice.id}: its premise breaks when {cell} changes, which its sentence does not state")
    return problems


@pytest.mark.parametrize("advice", mp.GUIDE, ids=lambda a: a.id)
def test_guide_premise_checks_exactly_what_its_sentence_states(advice, matrix):
    """Changing any one cell the sentence speaks of breaks the premise, and no other cell does."""
    assert not premise_breaks(advice, matrix)
    for fact in GUIDE_FACTS[advice.id]:
        for cell in fact.cells():
            assert not fact.holds(_changed(matrix, cell)), f"changing {cell} does not change {fact}"
    assert premise_problems(advice, matrix) == []


def test_a_premise_that_reads_another_row_is_caught(matrix):
    """The audit's case: the detach-view sentence with the alias premise behind it."""
    alias = next(a for a in mp.GUIDE if a.id == "alias")
    detach_view = next(a for a in mp.GUIDE if a.id == "detach-view")
    problems = premise_problems(dataclasses.replace(detach_view, premise=alias.premise), matrix)
    assert any("('leaf', 'a.detach()', 'shares_version')" in p and "still holds" in p for p in problems)
    assert any("('leaf', 'b = a', 'same_object')" in p and "does not state" in p for p in problems)


@pytest.mark.parametrize("advice", mp.GUIDE, ids=lambda a: a.id)
def test_guide_is_written_in_every_edition(advice):
    for code in CODES:
        text = advice.text(code)
        assert bool(CJK.search(text)) == edition(code).cjk, f"the {code} text is in {code}"
        assert text.count("`") % 2 == 0
        checked = set(probes.OPERATIONS).union(*(mp.FACT_EXPRESSIONS.get(f, ()) for f in advice.facts))
        assert set(re.findall(r"`(a\.[^`]+|b = a|copy\.deepcopy\(a\))`", text)) <= checked, (
            "an expression the guide names is one the table probes, or one a fact it names checks")


#: A page with every source's table and the guide, as the matrix page has them.
MATRIX_PAGE = "".join(
    f"\n```{{behaviour-matrix}}\n:source: {source}\n```\n" for source in standard_sources.SOURCES) + """
```{behaviour-matrix}
:guide:
```
"""


@pytest.mark.parametrize("lang", CODES)
def test_the_built_matrix_page_holds_every_table_and_guide_entry(site_dir, lang):
    """The real build (which turns every warning into an error): one table per standard source, each row an
    operation, and every guide entry linking the facts it rests on, as the page's introduction says."""
    soup = BeautifulSoup((site_dir / lang / "matrix.html").read_text(encoding="utf-8"), "html.parser")
    tables = soup.select("table.behaviour-matrix")
    assert len(tables) == len(standard_sources.SOURCES)
    for table in tables:
        line = table.find_previous("p", class_="behaviour-matrix-source")
        assert torch.__version__ in line.get_text()
        assert len(table.select("tbody tr")) == len(probes.OPERATIONS)
    assert len(soup.select("ul.behaviour-guide > li")) == len(mp.GUIDE)
    for advice in mp.GUIDE:
        item = soup.select_one(f"ul.behaviour-guide > li#guide-{advice.id}")
        links = [a["href"] for a in item.select("p.guide-checked-by a")]
        assert links == [f"facts.html#fact-{fact_id}" for fact_id in advice.facts], (advice.id, links)


def test_a_copied_header_holds_no_zero_width_space(site_dir):
    """A narrow header may break after "_" (a <wbr>), but its text is the name as written."""
    html = (site_dir / "zh_CN" / "matrix.html").read_text(encoding="utf-8")
    assert "\u200b" not in html
    headers = BeautifulSoup(html, "html.parser").select("table.behaviour-matrix thead th")
    texts = [header.get_text() for header in headers]
    assert "requires_grad" in texts and "grad_fn" in texts and "在 no_grad 下原地修改 b 后反向传播" in texts, texts
    header = headers[texts.index("requires_grad")]
    assert str(header.code).count("<wbr/>") == 1 and header.code.get_text() == "requires_grad", header


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_build_warns_when_a_probe_fails_or_a_premise_breaks(tmp_path, monkeypatch, facts_as_run):
    def broken(source, operation):
        raise ValueError("boom")

    monkeypatch.setitem(probes.PROBES, "grad_fn", broken)
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
        for row in rows:  # each row links its gallery page (a note may link other pages of the site too)
            links = [a["href"] for a in row.select("a.reference.internal")]
            assert any(href.startswith("examples/") for href in links), row.get("id")
            assert all((site_dir / lang / href.split("#")[0]).exists() for href in links), (row.get("id"), links)
        page = BeautifulSoup((site_dir / lang / "matrix.html").read_text(encoding="utf-8"),
                             "html.parser")
        rows = len(standard_sources.SOURCES) * len(probes.OPERATIONS)
        assert len(page.select("table.behaviour-matrix tbody tr")) == rows
        for soup in (ledger, page):
            ids = [tag["id"] for tag in soup.find_all(id=True)]
            assert len(ids) == len(set(ids)), "an id appears twice"
