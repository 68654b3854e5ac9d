"""A careless page writes only its own outputs: each fault, injected into a temporary copy of the project,
makes the real build fail, naming the page or the file, and leaves the published site as it was. These
are the careless cases of the trust model (MAINTAINING.md, "Trust model"): a file saved into the page's
working folder, a file written where another page's output goes or where no page's goes, a write into the
checkout by an absolute path, and a process left running.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from sitetools.building.folders import MARKER
from sitetools.building.pipeline import STAGE_PREFIX
from sitetools.settings import CHECKOUT as CHECKOUT_ENV
from tests.gallery_tools import copy_project, once_per_run, side_by_side
from tests.test_faults import FIRST, FIXTURE, SECOND, build, inject, log_of

pytestmark = pytest.mark.slow

STAGE = "Path.cwd().resolve().parents[2]"  # in a page (run in stage/gallery/<lang>/<part>/): the staging folder
GENERATED = f'{STAGE} / "docs" / "en" / "examples"'
BOTH = ["--lang", "en", "--only", FIRST, "--only", SECOND]
ONE = ["--lang", "en", "--only", FIRST]


def _write(target: str) -> str:
    return f"from pathlib import Path\n\nwith open({target}, 'a') as handle:\n    handle.write('injected')"


def _in_page(page: str, code):
    def breaks(project: Path) -> None:
        inject(project, page, code(project) if callable(code) else code)

    return breaks


def _checkout_writes(project: Path) -> None:
    (project / ".git" / "hooks").mkdir(parents=True)
    inject(project, FIRST, _write(f"{str(project / '.git' / 'hooks' / 'pre-commit')!r}"))
    inject(project, SECOND, "import os\n" + _write(f'os.path.join(os.environ[{CHECKOUT_ENV!r}], "pyproject.toml")'))


#: name -> (how to break the copy, build arguments, what the failure must say)
FAULTS = {
    "saves a file into its working folder": (
        _in_page(FIRST, _write("'checkpoint.pt'")), ONE,
        [f"gallery/en/{FIRST}.py wrote gallery/en/{FIRST.split('/')[0]}/checkpoint.pt (a source) while it ran"]),
    "rewrites another page's rst": (
        _in_page(SECOND, _write(f'{GENERATED} / "{FIRST}.rst"')), BOTH,
        [f"gallery/en/{SECOND}.py wrote examples/{FIRST}.rst", f"it is an output of gallery/en/{FIRST}.py"]),
    "writes an orphan page": (
        _in_page(FIRST, _write(f'{GENERATED} / "verified.rst"')), ONE,
        [f"gallery/en/{FIRST}.py wrote examples/verified.rst", "no page produced it"]),
    "writes the checkout": (
        _checkout_writes, BOTH,
        ["the checkout's .git/hooks/pre-commit was created", "the checkout's pyproject.toml changed"]),
    "leaves a process running": (
        _in_page(FIRST, "import subprocess\n\nsubprocess.Popen(['sleep', '40'])"), ONE,
        [f"gallery/en/{FIRST}.py started processes that were still running after it", "sleep 40"]),
}


def _digest(folder: Path) -> dict[str, str]:
    files = [p for p in sorted(folder.rglob("*")) if p.is_file()]
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def _run(base: Path, name: str):
    breaks, args, _ = FAULTS[name]
    project = copy_project(base / name.replace(" ", "-").replace("'", ""), FIXTURE)
    published = project / "build" / "site"  # a preview an earlier build published
    published.mkdir(parents=True)
    (published / ".tensorcopy-build").write_text('{"kind": "preview"}\n')
    (published / "index.html").write_text("<p>the published preview</p>")
    breaks(project)
    site = _digest(published)
    result = build(project, *args)
    time.sleep(1)  # a process left behind would write now
    return result, site != _digest(published)


@pytest.fixture(scope="module")
def scratch_builds(request):
    return once_per_run(request, "scratch-faults", lambda base: side_by_side({name: (base, name) for name in FAULTS},
                                                                             _run))


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_page_writing_outside_its_outputs_fails_the_build_and_is_named(scratch_builds, name):
    result, site_changed = scratch_builds[name]
    log = log_of(result)
    assert result.returncode != 0, f"the build passed with the fault {name!r}:\n{log}"
    for words in FAULTS[name][2]:
        assert words in log, f"the failure does not say {words!r}:\n{log}"
    assert "nothing was published" in result.stderr.strip().splitlines()[-1], log
    assert not site_changed, "the published site changed"


def test_the_next_build_removes_a_killed_builds_staging_folder_and_nothing_else(tmp_path):
    """A build killed outright cannot remove its temporary staging folder; the next build removes the
    folders whose marker names a build process that no longer runs, says so, and leaves the others."""
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout)  # fmt: skip
    private = tmp_path / "tmp"  # this build's own temporary folder: other tests' builds clean theirs meanwhile
    private.mkdir()
    killed = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=private))
    (killed / MARKER).write_text(json.dumps({"kind": "stage", "pid": dead}))
    (killed / "docs").mkdir()
    unmarked = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=private))
    (unmarked / "notes.txt").write_text("not a build's")
    try:
        project = copy_project(tmp_path / "project", FIXTURE)
        inject(project, FIRST, 'print("same storage: False")')  # refused by the page rules: no Sphinx run
        result = build(project, "--lang", "en", "--only", FIRST, TMPDIR=str(private))
        assert result.returncode != 0, log_of(result)
        assert f"removed {killed}: the staging folder of a build that no longer runs" in result.stdout, log_of(result)
        assert not killed.exists()
        assert (unmarked / "notes.txt").exists(), "a folder without the marker was touched"
    finally:
        for folder in (killed, unmarked):
            shutil.rmtree(folder, ignore_errors=True)
