"""Every reported check ran and held (sitetools/guard/check_runs.py and the guard around each example): a
check disarmed without any change the page rules see (a function never called, a swallowed failure, a
branch that is not taken) is named with its line; a page that ran all its checks passes."""

from __future__ import annotations

import sys
import textwrap

import pytest

from sitetools import settings
from sitetools.guard import check_runs
from sitetools.guard import example as example_guard

SCRIPT = "gallery/en/part/plot_00_runs.py"

PAGE = '''
import torch
a = torch.ones(3)
b = a
assert b is a, "b is a"
for n in range(3):
    assert n >= 0
assert (
    a.sum() == 3
), "three ones"
try:
    a.view(-1, 5)
except RuntimeError as e:
    print(type(e).__name__)
else:
    raise AssertionError("a view of 3 elements as rows of 5 must fail")
'''

#: Disarmed checks, each appended to PAGE; the line of the check that must be named.
DISARMED = {
    "function-never-called": ("def _never():\n    assert a.sum() == 3\n", "assert a.sum() == 3"),
    "swallowed-failure": ("try:\n    assert a.sum() == 4\nexcept AssertionError:\n    pass\n", "assert a.sum() == 4"),
    "swallowed-multi-line": ("try:\n    assert a.sum() == 4, (\n        'four')\nexcept Exception:\n    pass\n",
                             "assert a.sum() == 4"),
    "branch-not-taken": ("if a.sum() == 0:\n    assert a.sum() == 0\n", "assert a.sum() == 0"),
    "handler-never-runs": ("def _later():\n    try:\n        a.view(-1, 5)\n    except RuntimeError:\n"
                           "        pass\n    else:\n        raise AssertionError('must fail')\n", "must raise"),
    "tracer-removed": ("import sys\nsys.settrace(None)\nassert a.sum() == 3\n", "assert a.sum() == 3"),
}


def _run(tmp_path, code: str, gpu: bool = False) -> tuple[list[tuple[int, str]], bool]:
    path = tmp_path / "plot_00_runs.py"
    path.write_text(code, encoding="utf-8")
    runs = check_runs.CheckRuns(path, code)
    runs.start()
    try:
        exec(compile(code, str(path), "exec"), {"__name__": "__main__"})
    finally:
        intact = runs.stop()
    return check_runs.unheld(code, runs, gpu=gpu), intact


def test_a_page_whose_checks_all_ran_and_held_passes(tmp_path):
    assert _run(tmp_path, PAGE) == ([], True)


@pytest.mark.parametrize("name", sorted(DISARMED))
def test_a_disarmed_check_is_named_with_its_line(tmp_path, name):
    extra, text = DISARMED[name]
    code = PAGE + extra
    missing, intact = _run(tmp_path, code)
    assert missing, f"{name}: every check counted as run"
    line, said = missing[-1]
    assert text in said and code.splitlines()[line - 1].lstrip().startswith(("assert", "try")), missing
    assert intact is (name != "tracer-removed")


def test_a_gpu_blocks_checks_are_owed_only_where_there_is_a_gpu(tmp_path):
    """On a build without a GPU the GPU block does not run and its check is not owed (the stamp names it
    as not run); where torch has a GPU, a check of the block that did not run is named."""
    code = PAGE + "if torch.cuda.is_available() and False:\n    assert a.sum() == 3, 'not a GPU block'\n"
    missing, _ = _run(tmp_path, code)
    assert [said for _, said in missing] == ["assert a.sum() == 3"], missing  # a look-alike stays owed
    code = PAGE + "if torch.cuda.is_available():\n    assert a.sum() == 3, 'on the GPU'\n"
    assert _run(tmp_path, code, gpu=False) == ([], True)
    missing, _ = _run(tmp_path, code, gpu=True)  # this machine has no GPU: the block did not run
    assert [line for line, _ in missing] == [len(code.splitlines())], missing


def test_the_guard_refuses_an_example_whose_check_did_not_run(tmp_path, monkeypatch):
    monkeypatch.delenv(settings.RECORDS, raising=False)
    path = tmp_path / "plot_00_runs.py"
    code = PAGE + textwrap.dedent(DISARMED["function-never-called"][0])
    path.write_text(code, encoding="utf-8")
    guard = example_guard._Guard()
    guard.start(SCRIPT, path)
    try:
        exec(compile(code, str(path), "exec"), {"__name__": "__main__"})
    finally:
        line = len(PAGE.splitlines()) + 2  # the assert inside the function
        with pytest.raises(example_guard.ExampleCheckDidNotRun, match=rf"{SCRIPT}: .*line {line}"):
            guard.stop(SCRIPT)
    assert sys.gettrace() is None or sys.gettrace() is not guard.runs._call


def test_the_guard_passes_an_example_whose_checks_all_ran(tmp_path, monkeypatch):
    monkeypatch.delenv(settings.RECORDS, raising=False)
    path = tmp_path / "plot_00_runs.py"
    path.write_text(PAGE, encoding="utf-8")
    guard = example_guard._Guard()
    guard.start(SCRIPT, path)
    exec(compile(PAGE, str(path), "exec"), {"__name__": "__main__"})
    guard.stop(SCRIPT)  # raises nothing
