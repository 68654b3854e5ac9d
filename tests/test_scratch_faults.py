"""A page can write only its own scratch space: each fault, injected into a temporary copy of the project,
makes the real build fail, naming the page or the file, and leaves the checkout and the published site
as they were. Each fault runs in the sandbox where this machine can make one, and the faults whose
catching differs without it run a second time with the sandbox switched off, as on a machine that
forbids namespaces, where the fingerprints alone must catch them.
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

from sitetools.build import STAGE_PREFIX
from sitetools.build_folders import MARKER
from sitetools.sandbox import OFF_ENV
from sitetools.web import CHECKOUT_ENV
from tests.gallery_tools import copy_project, side_by_side
from tests.test_faults import FIRST, SECOND, build, inject, log_of

pytestmark = pytest.mark.slow

STAGE = "Path.cwd().resolve().parents[2]"  # in a page (run in stage/gallery/<lang>/<part>/): the staging folder
GENERATED = f'{STAGE} / "docs" / "en" / "examples"'
BOTH = ["--lang", "en", "--only", FIRST, "--only", SECOND]


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


def _work_folder(project: Path) -> str:
    return str(project / "build" / ".site.building")


#: A page that edits the staged index.md and puts it back (harmless before Sphinx reads it; refused anyway).
_PAGE_EDITS_INDEX = f"""from pathlib import Path

index = {STAGE} / "docs" / "en" / "index.md"
original = index.read_text(encoding="utf-8")
index.write_text(original + "<script>alert(1)</script>", encoding="utf-8")
index.write_text(original, encoding="utf-8")"""

#: A thread :mod:`threading` does not list, that outlives its page: it publishes ``<script>`` by editing the
#: staged index.md after Sphinx read it, then puts the file back, so that its fingerprint matches at the end.
_THREAD_EDITS_INDEX = f"""import _thread
import time
from pathlib import Path

index = {STAGE} / "docs" / "en" / "index.md"
original = index.read_text(encoding="utf-8")


def edit_index():
    for _ in range(200):
        time.sleep(0.3)
        try:
            index.write_text(original + "<script>alert(1)</script>", encoding="utf-8")
            time.sleep(0.3)
            index.write_text(original, encoding="utf-8")
        except OSError:
            pass


_thread.start_new_thread(edit_index, ())"""

#: name -> (how to break the copy, build arguments, what the failure must say in the sandbox, without it)
FAULTS = {
    "rewrites another page's rst": (
        _in_page(SECOND, _write(f'{GENERATED} / "{FIRST}.rst"')), BOTH,
        [f"gallery/en/{SECOND}.py wrote examples/{FIRST}.rst", f"it is an output of gallery/en/{FIRST}.py"]),
    "edits an earlier page's download": (
        _in_page(SECOND, _write(f'{GENERATED} / "{FIRST}.py"')), BOTH,
        [f"gallery/en/{SECOND}.py wrote examples/{FIRST}.py", f"it is an output of gallery/en/{FIRST}.py"]),
    "writes an orphan page": (
        _in_page(FIRST, _write(f'{GENERATED} / "verified.rst"')), ["--lang", "en", "--only", FIRST],
        [f"gallery/en/{FIRST}.py wrote examples/verified.rst", "no page produced it"]),
    "writes a file into its HTML folder": (
        _in_page(FIRST, lambda p: _write(f"{_work_folder(p) + '/en/extra.js'!r}")), ["--lang", "en", "--only", FIRST],
        [f"gallery/en/{FIRST}.py wrote extra.js into the HTML folder"]),
    "writes into the work folder": (
        _in_page(FIRST, lambda p: _write(f"{_work_folder(p) + '/notice.html'!r}")), ["--lang", "en", "--only", FIRST],
        [f"gallery/en/{FIRST}.py", "Read-only file system"], [".site.building/notice.html was created"]),
    "writes the checkout": (
        _checkout_writes, BOTH,
        [f"gallery/en/{FIRST}.py", "Read-only file system"], [
            "the checkout's .git/hooks/pre-commit was created", "the checkout's pyproject.toml changed"]),
    "leaves a setsid child that waits to rewrite the site": (
        _in_page(FIRST, lambda p: "import subprocess\n\nsubprocess.Popen(['setsid', 'sh', '-c', "
                 f"'sleep 40; echo injected >> {p / 'build' / 'site' / 'index.html'}'])"),
        ["--lang", "en", "--only", FIRST],
        [f"gallery/en/{FIRST}.py started processes that were still running after it", "sleep 40"]),
    "an atexit handler edits the built HTML": (
        _in_page(FIRST, lambda p: "import atexit\n\natexit.register(lambda: open("
                 f"{_work_folder(p) + '/en/index.html'!r}, 'a').write('injected'))"),
        ["--lang", "en", "--only", FIRST], ["the HTML file en/index.html changed after Sphinx wrote it"]),
    "an atexit handler starts a process": (
        _in_page(FIRST, "import atexit\nimport subprocess\n\natexit.register(subprocess.Popen, ['sleep', '50'])"),
        ["--lang", "en", "--only", FIRST], ["still running after Sphinx ended", "sleep 50"]),
    "edits the staged index.md and puts it back": (
        _in_page(FIRST, _PAGE_EDITS_INDEX), ["--lang", "en", "--only", FIRST],
        [f"gallery/en/{FIRST}.py", "Read-only file system"]),
    "a _thread thread edits the staged index.md and puts it back": (
        _in_page(FIRST, _THREAD_EDITS_INDEX), ["--lang", "en", "--only", FIRST],
        [f"gallery/en/{FIRST}.py left global state changed",
         "thread 'edit_index (started with _thread)' still running"]),
}
WITHOUT_SANDBOX = ("writes into the work folder", "writes the checkout", "an atexit handler starts a process",
                   "a _thread thread edits the staged index.md and puts it back")
CASES = [(name, False) for name in FAULTS] + [(name, True) for name in WITHOUT_SANDBOX]


def _digest(folder: Path, leave_out: str = "build") -> dict[str, str]:
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and p.relative_to(folder).parts[0] != leave_out]
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def _run(base: Path, name: str, no_sandbox: bool):
    breaks, args, *_ = FAULTS[name]
    project = copy_project(base / f"{name}{' no sandbox' if no_sandbox else ''}".replace(" ", "-").replace("'", ""))
    published = project / "build" / "site"  # a preview an earlier build published
    published.mkdir(parents=True)
    (published / ".tensorcopy-build").write_text('{"kind": "preview"}\n')
    (published / "index.html").write_text("<p>the published preview</p>")
    breaks(project)
    checkout, site = _digest(project), _digest(published, leave_out="")
    result = build(project, *args, **({OFF_ENV: "1"} if no_sandbox else {}))
    time.sleep(1)  # a process left behind would write now
    return result, checkout != _digest(project), site != _digest(published, leave_out="")


@pytest.fixture(scope="module")
def scratch_builds(tmp_path_factory):
    base = tmp_path_factory.mktemp("scratch")
    return side_by_side({case: (base, *case) for case in CASES}, _run)


IDS = [f"{name}{' (no sandbox)' if off else ''}" for name, off in CASES]


@pytest.mark.parametrize(("name", "no_sandbox"), CASES, ids=IDS)
def test_a_page_writing_outside_its_outputs_fails_the_build_and_is_named(scratch_builds, name, no_sandbox):
    result, checkout_changed, site_changed = scratch_builds[(name, no_sandbox)]
    log = log_of(result)
    if not no_sandbox and "sandbox: none" in log:
        pytest.skip("no namespaces on this machine: the cases without the sandbox cover it")
    assert result.returncode != 0, f"the build passed with the fault {name!r}:\n{log}"
    expected = FAULTS[name][3] if no_sandbox and len(FAULTS[name]) > 3 else FAULTS[name][2]
    for words in expected:
        assert words in log, f"the failure does not say {words!r}:\n{log}"
    assert "nothing was published" in result.stderr.strip().splitlines()[-1], log
    assert not site_changed, "the published site changed"
    if not no_sandbox:
        assert not checkout_changed, "the checkout changed although the page ran in the sandbox"


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
        project = copy_project(tmp_path / "project")
        inject(project, FIRST, 'print("same storage: False")')  # refused by the page rules: no Sphinx run
        result = build(project, "--lang", "en", "--only", FIRST, TMPDIR=str(private))
        assert result.returncode != 0, log_of(result)
        assert f"removed {killed}: the staging folder of a build that no longer runs" in result.stdout, log_of(result)
        assert not killed.exists()
        assert (unmarked / "notes.txt").exists(), "a folder without the marker was touched"
    finally:
        for folder in (killed, unmarked):
            shutil.rmtree(folder, ignore_errors=True)
