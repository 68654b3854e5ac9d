"""The faults of the adversarial review that a page can commit against the gate's checks, built in copies
of the project as ``nox -s docs`` builds (previews, which pass the same gate): a check reported that did not
run, state left behind for the next page, output that no code computed or that differs between editions,
twin paragraphs that cite different facts. Each must fail the build, name the page that did it, and publish
nothing.

A fault that stops the Sphinx run (the first page that fails stops it) has a build and a copy of its own.
The others share one, each on a page of its own and named with its own message (:func:`build_batch`):
those the page rules refuse before Sphinx runs, and those the checks of the examples find once it ended.

The static rules have fast tests of their own (tests/test_output_rules.py, tests/test_check_rules.py,
tests/test_edition_citations.py); here one fault of each kind proves that the build runs them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gallery_tools import copy_project, once_per_run, side_by_side
from tests.test_faults import (
    EN_FIRST,
    FIRST,
    FIXTURE,
    SECOND,
    build,
    build_batch,
    cell,
    log_of,
    page_cell,
    said_on_one_line,
)

pytestmark = pytest.mark.slow

SOURCE = f"gallery/en/{FIRST}.py"
NEXT = [*EN_FIRST, "--only", SECOND]  # the culprit runs first, the page it would spoil next


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _skipped_doctest(project: Path, fault: str) -> None:
    """A quick-reference doctest marked +SKIP with false output (the site trims the flag)."""
    for lang in ("en", "zh_CN"):
        _edit(project / "docs" / lang / "quickref.md", ">>> b = a\n", ">>> b = a  # doctest: +SKIP\n")


def _contradicting_twin(project: Path, fault: str) -> None:
    """The Chinese decision page rests a sentence on another fact than its English twin."""
    _edit(project / "docs" / "zh_CN" / "decide.md", "{fact}`cpu-snapshot`", "{fact}`leaf-refuses-inplace`")


def _unseeded_figure(project: Path, fault: str) -> str:
    """A captioned picture of unseeded random numbers, drawn by the first page's helpers: each edition draws
    other ones."""
    for lang in ("en", "zh_CN"):
        with (project / "gallery" / lang / f"{FIRST}.py").open("a", encoding="utf-8") as handle:
            handle.write("\n\n# %%\n# .. figure-caption::\n#    :alt: Random numbers.\n#\n#    Random numbers.\n\n"
                         'r = torch.rand(2)\ndraw_memory("r = torch.rand(2)", r=r)\n')
    return FIRST


LEFT = f"{SOURCE} left global state changed"
PAGE = "gallery/en/{page}.py"  # the page of a fault that shares its build (one of BATCHES), given to each
#: The faults that share a build, and its arguments: those the page rules refuse before Sphinx runs, and those
#: the checks of the examples find once it ended. Each fault breaks a page of its own and is named with it.
BATCHES = {"rules": [], "examples": []}

#: name -> (how to break the copy, build arguments or the batch it is built in, what the failure must say;
#: in a batch, on one line, ``{page}`` its page)
FAULTS = {
    # Global state compared, not listed: named on the page that changed it, not on the next one.
    # A page that patches a shared module is refused before anything runs, named with its line (the state
    # comparison behind it is tested on the guard: tests/test_guard.py).
    "tensor-str-patched": (page_cell('torch.Tensor.__str__ = lambda self: "tensor(0.)"'), "rules",
                           [f"{PAGE}, line", "changes `torch.Tensor.__str__`, an attribute of a module"]),
    "thread-count": (cell("torch.set_num_threads(1 if torch.get_num_threads() > 1 else 2)"), NEXT,
                     [LEFT, "torch threads is now"]),
    "recursion-limit": (cell("import sys\nsys.setrecursionlimit(200)"), NEXT, [LEFT, "recursion limit is now 200"]),
    "default-device-meta": (cell('torch.set_default_device("meta")'), NEXT,
                            [LEFT, "torch default device is now 'meta'"]),
    "torch-version": (page_cell('torch.__version__ = "2.99.0"'), "rules",
                      [f"{PAGE}, line", "changes `torch.__version__`, an attribute of a module"]),
    # Every reported check ran.
    "check-never-run": (cell("def _never():\n    assert torch.ones(1).sum() == 1"), EN_FIRST,
                        [f"{SOURCE}: checks that never ran and held", "assert torch.ones(1).sum() == 1"]),
    "vacuous-check": (page_cell("assert True or torch.ones(1)"), "rules",
                      [f"{PAGE}, line", "`assert True or torch.ones(1)` holds or fails whatever the code computes"]),
    "skipped-doctest": (_skipped_doctest, "rules", ["docs/en/quickref.md, line", "a doctest marked +SKIP"]),
    "hidden-dunder": (page_cell("t = torch.ones(3)\n# sphinx_gallery_start_ignore\nt.__iadd__(1)\n"
                                "# sphinx_gallery_end_ignore\nprint('t:', t)"), "rules",
                      [f"{PAGE}, line", "calls the dunder method __iadd__()"]),
    # Output only from computation.
    "stdout-write": (page_cell('import sys\nsys.stdout.write("b: tensor([1., 2., 3.])\\n")'), "rules",
                     [f"{PAGE}, line", "writes through `sys.stdout`"]),
    "unseeded-figure": (_unseeded_figure, "examples", ["gallery/zh_CN/{page}.py drew figure", "differently"]),
    "heavy-page": (page_cell('values = torch.arange(10**5)\nprint("values:", values.tolist())'), "examples",
                   ["{page}", "weighs", "over the limit of"]),
    "output-written-by-help": (page_cell("help(torch.Tensor.detach)"), "examples",
                               [f"{PAGE}, output block", "(after the code cell starting `help(torch.Tensor.detach)`)"
                                ": shows 'Help on method_descriptor:', which no print() of the page wrote",
                                "a page's output comes only from its own print() calls"]),
    # Editions say the same thing.
    "twin-cites-another-fact": (_contradicting_twin, "rules",
                                ["docs/zh_CN/decide.md, line", "cites fact:leaf-refuses-inplace"]),
}


def _run_fault(base: Path, name: str):
    project = copy_project(base / name, FIXTURE)
    if name in BATCHES:
        result, pages = build_batch(project, {fault: FAULTS[fault][0] for fault in _batch(name)}, *BATCHES[name])
        return result, pages, project
    breaks, args, _ = FAULTS[name]
    breaks(project)
    return build(project, *args), {}, project


def _batch(name: str) -> list[str]:
    return [fault for fault in FAULTS if _build_of(fault) == name]


def _build_of(fault: str) -> str:
    """The build that shows ``fault``: its batch (one of :data:`BATCHES`), or a build of its own."""
    args = FAULTS[fault][1]
    return args if isinstance(args, str) else fault


@pytest.fixture(scope="module")
def fault_builds(request):
    """The faults of the selected tests (``-k`` picks a few), built side by side once per test run: one build
    for each fault that needs its own, one for each batch."""
    selected = {item.callspec.params["name"] for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec")}  # fmt: skip
    builds = {_build_of(name) for name in FAULTS if name in selected}
    done = once_per_run(request, "gate-faults", lambda base: side_by_side({build: (base, build) for build in builds},
                                                                           _run_fault))
    return {name: done[_build_of(name)] for name in FAULTS if name in selected}


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_gate_fault_fails_the_build_and_names_its_page(fault_builds, name):
    result, pages, project = fault_builds[name]
    log = log_of(result)
    assert result.returncode != 0, f"the build passed with the fault {name!r}:\n{log}"
    if name in pages:  # built with others: its own page named with its own message, on one line
        words = [word.replace("{page}", pages[name] or "") for word in FAULTS[name][2]]
        assert said_on_one_line(log, words), f"no line of the failure says all of {words}:\n{log[-6000:]}"
    for words in FAULTS[name][2] if name not in pages else ():
        assert words in log, f"the failure does not say {words!r}:\n{log[-6000:]}"
    if FAULTS[name][1] == "rules":
        assert "Building" not in result.stdout, f"the build started before checking the sources:\n{log[-6000:]}"
    assert "nothing was published" in result.stderr.strip().splitlines()[-1], log[-3000:]
    assert not (project / "build" / "site").exists(), "a failed build published a site"
    if name in ("thread-count", "recursion-limit", "default-device-meta"):
        assert f"gallery/en/{SECOND}.py" not in log, f"the next page was blamed too:\n{log[-6000:]}"
