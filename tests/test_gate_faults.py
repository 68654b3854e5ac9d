"""The faults of the adversarial review that a page can commit against the gate's checks, each built in
its own copy of the project as ``nox -s docs`` builds (one-page previews, which pass the same gate): a
check reported that did not run, state left behind for the next page, output that no code computed or
that differs between editions, twin paragraphs that cite different facts. Each must fail the build,
name the page that did it, and publish nothing.

The static rules have fast tests of their own (tests/test_output_rules.py, tests/test_check_rules.py,
tests/test_edition_citations.py); here one fault of each kind proves that the build runs them.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.gallery_tools import copy_project, side_by_side
from tests.test_faults import EN_FIRST, FIRST, FIXTURE, SECOND, build, cell, log_of

pytestmark = pytest.mark.slow

SOURCE = f"gallery/en/{FIRST}.py"
NEXT = [*EN_FIRST, "--only", SECOND]  # the culprit runs first, the page it would spoil next


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _skipped_doctest(project: Path) -> None:
    """A quick-reference doctest marked +SKIP with false output (the site trims the flag)."""
    for lang in ("en", "zh_CN"):
        _edit(project / "docs" / lang / "quickref.md", ">>> b = a\n", ">>> b = a  # doctest: +SKIP\n")


def _contradicting_twin(project: Path) -> None:
    """The Chinese decision page rests a sentence on another fact than its English twin."""
    _edit(project / "docs" / "zh_CN" / "decide.md", "{fact}`cpu-snapshot`", "{fact}`leaf-refuses-inplace`")


def _unseeded_figure(project: Path) -> None:
    """A captioned picture of unseeded random numbers, drawn by the helpers: each edition draws other ones."""
    for lang in ("en", "zh_CN"):
        with (project / "gallery" / lang / f"{FIRST}.py").open("a", encoding="utf-8") as handle:
            handle.write("\n\n# %%\n# .. figure-caption::\n#    :alt: Random numbers.\n#\n#    Random numbers.\n\n"
                         'r = torch.rand(2)\ndraw_memory("r = torch.rand(2)", r=r)\n')


LEFT = f"{SOURCE} left global state changed"

#: name -> (how to break the copy, build arguments, what the failure must say)
FAULTS = {
    # Global state compared, not listed: named on the page that changed it, not on the next one.
    # A page that patches a shared module is refused before anything runs, named with its line (the state
    # comparison behind it is tested on the guard: tests/test_guard.py).
    "tensor-str-patched": (cell('torch.Tensor.__str__ = lambda self: "tensor(0.)"'), NEXT,
                           [f"{SOURCE}, line", "changes `torch.Tensor.__str__`, an attribute of a module"]),
    "thread-count": (cell("torch.set_num_threads(1 if torch.get_num_threads() > 1 else 2)"), NEXT,
                     [LEFT, "torch threads is now"]),
    "recursion-limit": (cell("import sys\nsys.setrecursionlimit(200)"), NEXT, [LEFT, "recursion limit is now 200"]),
    "default-device-meta": (cell('torch.set_default_device("meta")'), NEXT,
                            [LEFT, "torch default device is now 'meta'"]),
    "torch-version": (cell('torch.__version__ = "2.99.0"'), NEXT,
                      [f"{SOURCE}, line", "changes `torch.__version__`, an attribute of a module"]),
    # Every reported check ran.
    "check-never-run": (cell("def _never():\n    assert torch.ones(1).sum() == 1"), EN_FIRST,
                        [f"{SOURCE}: checks that never ran and held", "assert torch.ones(1).sum() == 1"]),
    "vacuous-check": (cell("assert True or torch.ones(1)"), EN_FIRST,
                      [f"{SOURCE}, line", "`assert True or torch.ones(1)` holds or fails whatever the code computes"]),
    "skipped-doctest": (_skipped_doctest, EN_FIRST, ["docs/en/quickref.md, line", "a doctest marked +SKIP"]),
    "hidden-dunder": (cell("t = torch.ones(3)\n# sphinx_gallery_start_ignore\nt.__iadd__(1)\n"
                           "# sphinx_gallery_end_ignore\nprint('t:', t)"), EN_FIRST,
                      [f"{SOURCE}, line", "calls the dunder method __iadd__()"]),
    # Output only from computation.
    "stdout-write": (cell('import sys\nsys.stdout.write("b: tensor([1., 2., 3.])\\n")'), EN_FIRST,
                     [f"{SOURCE}, line", "writes through `sys.stdout`"]),
    "unseeded-figure": (_unseeded_figure, ["--only", FIRST],
                        [f"gallery/zh_CN/{FIRST}.py drew figure", "differently"]),
    "heavy-page": (cell('values = torch.arange(10**6)\nprint("values:", values.tolist())'), EN_FIRST,
                   ["weighs", "over the limit of"]),
    "output-written-by-help": (cell("help(torch.Tensor.detach)"), EN_FIRST,
                               [f"{SOURCE}, output block", "(after the code cell starting `help(torch.Tensor.detach)`)"
                                ": shows 'Help on method_descriptor:', which no print() of the page wrote",
                                "a page's output comes only from its own print() calls"]),
    # Editions say the same thing.
    "twin-cites-another-fact": (_contradicting_twin, ["--only", FIRST],
                                ["docs/zh_CN/decide.md, line", "cites fact:leaf-refuses-inplace"]),
}


def _run_fault(base: Path, name: str):
    breaks, args, _ = FAULTS[name]
    project = copy_project(base / name, FIXTURE)
    env = breaks(project) or {}
    started = time.monotonic()
    return build(project, *args, **env), time.monotonic() - started, project


@pytest.fixture(scope="module")
def fault_builds(request, tmp_path_factory):
    """The faults of the selected tests (``-k`` picks a few), built side by side."""
    base = tmp_path_factory.mktemp("gate-faults")
    selected = {item.callspec.params["name"] for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec")}  # fmt: skip
    return side_by_side({name: (base, name) for name in FAULTS if name in selected}, _run_fault)


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_gate_fault_fails_the_build_and_names_its_page(fault_builds, name):
    result, _, project = fault_builds[name]
    log = log_of(result)
    assert result.returncode != 0, f"the build passed with the fault {name!r}:\n{log}"
    for words in FAULTS[name][2]:
        assert words in log, f"the failure does not say {words!r}:\n{log[-6000:]}"
    assert "nothing was published" in result.stderr.strip().splitlines()[-1], log[-3000:]
    assert not (project / "build" / "site").exists(), "a failed build published a site"
    if name in ("tensor-str-patched", "thread-count", "recursion-limit", "default-device-meta", "torch-version"):
        assert f"gallery/en/{SECOND}.py" not in log, f"the next page was blamed too:\n{log[-6000:]}"
