"""The runner of the downloads (tests/fresh_runs.py) runs each script as ``python -W error name.py`` would,
in an empty folder: what a script sees and what it leaves behind are those of a process of its own."""

import subprocess
import sys

from tests.fresh_runs import run_alone

#: What a script can see of its surroundings; a fresh interpreter and a forked run must agree on it.
SURROUNDINGS = """\
import os, sys
import torch
print(__name__, sys.argv, sorted(os.listdir(".")))
print(torch.get_default_dtype(), torch.is_grad_enabled())
print([name for name in ("tests", "sitetools", "tensorfacts") if name in sys.modules])
try:
    import sitetools
except ImportError:
    print("the project is not importable")
"""


def test_a_forked_run_sees_what_a_fresh_interpreter_sees(tmp_path):
    (tmp_path / "fresh").mkdir()
    (tmp_path / "fork").mkdir()
    (tmp_path / "fresh" / "look.py").write_text(SURROUNDINGS, encoding="utf-8")
    fresh = subprocess.run([sys.executable, "-W", "error", "look.py"], cwd=tmp_path / "fresh",
                           capture_output=True, text=True, encoding="utf-8")  # fmt: skip
    forked = run_alone({"look": (SURROUNDINGS, "look.py", tmp_path / "fork")})["look"]
    assert fresh.returncode == 0, fresh.stderr
    assert (forked.returncode, forked.stdout, forked.stderr) == (0, fresh.stdout, fresh.stderr)
    assert "the project is not importable" in forked.stdout


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
    assert runs["asserts"].returncode == 1 and "AssertionError: the injected claim" in runs["asserts"].stderr
    assert "asserts.py" in runs["asserts"].stderr, "the traceback does not name the script"
    assert sorted(path.name for path in folders["asserts"].iterdir()) == ["asserts.py"], "the runner left files"


def test_a_script_that_runs_too_long_is_stopped_and_says_so(tmp_path):
    run = run_alone({"slow": ("import time\ntime.sleep(60)\n", "slow.py", tmp_path)}, timeout=1)["slow"]
    assert run.returncode == -9 and "stopped after 1 s" in run.stderr, (run.returncode, run.stderr)
