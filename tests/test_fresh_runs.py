"""The runner of the downloads (tests/fresh_runs.py) runs each script as ``python -W error name.py`` would,
in an empty folder: what a script sees and what it leaves behind are those of a process of its own."""

import subprocess
import sys

import pytest

from tests.fresh_runs import run_alone
from tests.gallery_tools import side_by_side

#: The runner serves the downloads test, in the slow tier; its probes start interpreters with torch.
pytestmark = pytest.mark.slow

#: Probes of what a script can see and how it ends; a fresh interpreter and a forked run must agree.
PROBES = {
    "surroundings": """\
import os, sys
import torch
print(__name__, sys.argv, sorted(os.listdir(".")), os.path.isabs(__file__))
print(sorted(os.listdir(os.path.dirname(__file__))))
print(torch.get_default_dtype(), torch.is_grad_enabled(), sys.warnoptions)
print([name for name in ("tests", "editions", "sitetools", "tensorfacts") if name in sys.modules])
try:
    import sitetools
except ImportError:
    print("the project is not importable")
""",
    # The idiom of the warnings documentation: quiet unless -W was given.
    "warnoptions": "import sys, warnings\nif not sys.warnoptions:\n    warnings.simplefilter('ignore')\n"
                   "warnings.warn('deprecated')\nprint('not reached under -W error')\n",
    "submodule-not-imported": "import torch, matplotlib\nprint(matplotlib.pyplot)\n",
    "pickles-its-own-class": "import pickle\nclass Point:\n    pass\nprint(len(pickle.dumps(Point())) > 0)\n",
    "atexit": "import atexit, os\natexit.register(print, 'at exit')\natexit.register(os._exit, 4)\n",
    "thread": "import threading, time\ndef late():\n    time.sleep(0.3)\n    print('from the thread')\n"
              "threading.Thread(target=late).start()\nprint('main ends')\n",
    "raises": "def f():\n    raise ValueError('the message')\nf()\n",
    "exits": "import sys\nprint('bye')\nsys.exit('a reason')\n",
}


def _fresh(code: str, folder) -> subprocess.CompletedProcess:
    (folder / "probe.py").write_text(code, encoding="utf-8")
    return subprocess.run([sys.executable, "-W", "error", "probe.py"], cwd=folder,
                          capture_output=True, text=True, encoding="utf-8")  # fmt: skip


def test_a_forked_run_ends_as_a_fresh_interpreter_does(tmp_path):
    """Each probe gives the same exit code, output and last line of errors both ways (a traceback's
    frames may differ in the runner's own lines; its last line is what a reader sees)."""
    folders = {(how, key): tmp_path / how / key for how in ("fresh", "fork") for key in PROBES}
    for folder in folders.values():
        folder.mkdir(parents=True)
    fresh = side_by_side({key: (code, folders["fresh", key]) for key, code in PROBES.items()}, _fresh)
    forked = run_alone({key: (code, "probe.py", folders["fork", key]) for key, code in PROBES.items()})
    for key in PROBES:
        want, got = fresh[key], forked[key]
        last = [run.stderr.strip().splitlines()[-1:] for run in (want, got)]
        assert (got.returncode, got.stdout, last[1]) == (want.returncode, want.stdout, last[0]), (
            f"{key}: fresh {want.returncode} {want.stdout!r} {want.stderr[-300:]!r}\n"
            f"forked {got.returncode} {got.stdout!r} {got.stderr[-300:]!r}")
    assert "the project is not importable" in forked["surroundings"].stdout
    assert forked["warnoptions"].returncode == 1 and forked["atexit"].returncode == 4


def test_scripts_share_nothing_and_fail_as_python_would(tmp_path):
    scripts = {
        "leaks": "import torch\ntorch.set_default_dtype(torch.float64)\ntorch.set_grad_enabled(False)\n",
        "reads": "import torch\nprint(torch.get_default_dtype(), torch.is_grad_enabled())\n",
        "seed-1": "import numpy, torch\nprint(torch.initial_seed(), numpy.random.randint(2**31))\n",
        "seed-2": "import numpy, torch\nprint(torch.initial_seed(), numpy.random.randint(2**31))\n",
        "forgets-import": "print(torch.zeros(1))\n",
        "warns": "import warnings\nwarnings.warn('a warning is an error here')\nprint('not reached')\n",
        "exits": "import sys\nprint('bye')\nsys.exit(3)\n",
        "asserts": "assert 1 == 2, 'the injected claim'\n",
    }
    folders = {key: tmp_path / key for key in scripts}
    for folder in folders.values():
        folder.mkdir()
    runs = run_alone({key: (code, f"{key}.py", folders[key]) for key, code in scripts.items()})
    assert runs["leaks"].returncode == 0, runs["leaks"].stderr
    assert runs["reads"].stdout == "torch.float32 True\n", "a script saw what another one changed"
    seeds = [runs[key].stdout.split() for key in ("seed-1", "seed-2")]
    assert seeds[0][0] != seeds[1][0] and seeds[0][1] != seeds[1][1], f"two scripts drew the same seeds: {seeds}"
    assert runs["forgets-import"].returncode == 1 and "NameError: name 'torch'" in runs["forgets-import"].stderr
    assert runs["warns"].returncode == 1 and "UserWarning: a warning is an error here" in runs["warns"].stderr
    assert runs["warns"].stdout == ""
    assert (runs["exits"].returncode, runs["exits"].stdout) == (3, "bye\n")
    # A download whose check fails is noticed: the run fails and says which claim.
    assert runs["asserts"].returncode == 1 and "AssertionError: the injected claim" in runs["asserts"].stderr
    assert "asserts.py" in runs["asserts"].stderr, "the traceback does not name the script"
    assert sorted(path.name for path in folders["asserts"].iterdir()) == ["asserts.py"], "the runner left files"


def test_a_script_that_runs_too_long_is_stopped_and_says_so(tmp_path):
    run = run_alone({"slow": ("import time\ntime.sleep(60)\n", "slow.py", tmp_path)}, timeout=1)["slow"]
    assert run.returncode == -9 and "stopped after 1 s" in run.stderr, (run.returncode, run.stderr)
