"""The parts of the scratch-space gate, each on a known-bad case and without building the site: the
sandbox's read-only mounts and its PID namespace, the collection of descendants, which files count as a
page's outputs, the fingerprint of a tree, the clean-up of a killed build's staging folder, and the
refusal of active content and symlinks in the sources. The slow tier runs the same faults through real
builds (tests/test_scratch_faults.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sitetools import active_content, build_folders, descendants, page_outputs
from tests.gallery_tools import ROOT, copy_project

SANDBOX = ROOT / "sitetools" / "sandbox.py"


def _sandboxed(tmp_path: Path, script: str) -> subprocess.CompletedProcess:
    (tmp_path / "ro" / "rw").mkdir(parents=True)
    command = [sys.executable, str(SANDBOX), f"--read-only={tmp_path / 'ro'}", f"--write={tmp_path / 'ro' / 'rw'}",
               "--", "sh", "-c", script]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path / "ro")


def test_the_sandbox_lets_a_command_write_only_its_own_folders(tmp_path):
    result = _sandboxed(tmp_path, "echo x > rw/mine; echo x > theirs; echo x > ../outside")
    if "sandbox: none" in result.stdout:
        pytest.skip(f"no namespaces on this machine: {result.stdout.strip()}")
    assert (tmp_path / "ro" / "rw" / "mine").exists(), result.stderr
    assert not (tmp_path / "ro" / "theirs").exists(), "a read-only folder was written through the working folder"
    assert "Read-only file system" in result.stderr
    assert (tmp_path / "outside").exists(), "only the named folders are read-only"


def test_a_sealed_source_in_a_writable_folder_can_be_neither_written_moved_nor_removed(tmp_path):
    """The fault: a page (a thread it left) edited the staged index.md after Sphinx read it, then put it
    back. The edition's source folder stays writable (sphinx-gallery removes a page there), its files not."""
    (tmp_path / "ro" / "rw").mkdir(parents=True)
    source = tmp_path / "ro" / "rw" / "index.md"
    source.write_text("# Home\n", encoding="utf-8")
    command = [sys.executable, str(SANDBOX), f"--read-only={tmp_path / 'ro'}", f"--write={tmp_path / 'ro' / 'rw'}",
               f"--seal={source}", "--", "sh", "-c",
               "echo '<script>' >> rw/index.md; mv rw/index.md rw/moved.md; rm -f rw/index.md; echo x > rw/new"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path / "ro")
    if "sandbox: none" in result.stdout:
        pytest.skip(f"no namespaces on this machine: {result.stdout.strip()}")
    assert "1 sources in them read-only" in result.stdout, result.stdout
    assert source.read_text(encoding="utf-8") == "# Home\n", "a sealed source was written"
    assert not (tmp_path / "ro" / "rw" / "moved.md").exists(), "a sealed source was moved"
    assert result.stderr.count("Read-only file system") + result.stderr.count("busy") >= 3, result.stderr
    assert (tmp_path / "ro" / "rw" / "new").exists(), "the folder itself stays writable"


def test_a_document_added_to_the_sources_while_the_pages_ran_is_refused(tmp_path):
    """A page adds ``docs/en/notice.md`` (an orphan page, published) and could remove it once Sphinx read
    it: the documents Sphinx finds are compared with the sources there before the first page ran."""
    srcdir = tmp_path / "en"
    (srcdir / page_outputs.GENERATED / "part").mkdir(parents=True)
    (srcdir / "index.md").write_text("# Home\n", encoding="utf-8")
    page_outputs.note_sources(srcdir)
    generated = srcdir / page_outputs.GENERATED / "part" / "plot_01_x.rst"
    generated.write_text("x\n", encoding="utf-8")
    found = {"index": srcdir / "index.md", "examples/part/plot_01_x": generated}
    page_outputs.check_documents(srcdir, found)  # the generated pages may appear
    (srcdir / "notice.md").write_text(":orphan:\n", encoding="utf-8")
    with pytest.raises(page_outputs.PageWroteElsewhere, match=r"docs/en/notice\.md appeared in the edition's sources"):
        page_outputs.check_documents(srcdir, {**found, "notice": srcdir / "notice.md"})


def test_the_sandbox_ends_every_process_its_command_left(tmp_path):
    marker = f"sleep {4000 + os.getpid() % 1000}"
    # The child names the marker from its first instruction (its command line holds it before and after the
    # exec), and the command ends only once the child has started, so a busy machine cannot hide it.
    result = _sandboxed(tmp_path, f"(setsid sh -c 'touch rw/started; exec {marker}' &) ; "
                                  "while [ ! -e rw/started ]; do sleep 0.05; done")
    if "sandbox: none" in result.stdout:
        pytest.skip(f"no namespaces on this machine: {result.stdout.strip()}")
    assert result.returncode != 0 and "still running after" in result.stdout and marker in result.stdout, result
    time.sleep(0.3)
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and marker in descendants.describe(int(p.name))]
    assert not left, "a setsid child outlived the sandbox"


# The sandbox, told to stop (SIGTERM) in the instant after it forked: its child waits a moment before it
# asks to die with its parent, as a busy machine can make it wait. The command must not run on.
_STOPPED_AFTER_FORK = """
import os, runpy, signal, sys, time
fork, top, forks = os.fork, os.getpid(), []
def fork_then_stop():  # the top process forks twice: to probe the namespaces, then to run the command
    at_top = os.getpid() == top
    forks.extend([1] if at_top else [])
    child = fork()
    if at_top and len(forks) == 2:
        if child == 0:
            time.sleep(0.5)
        else:
            os.kill(os.getpid(), signal.SIGTERM)
    return child
os.fork = fork_then_stop
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_a_sandbox_stopped_right_after_it_forks_leaves_no_command_running(tmp_path):
    marker = f"sleep {5000 + os.getpid() % 1000}"
    (tmp_path / "ro" / "rw").mkdir(parents=True)
    command = [sys.executable, "-c", _STOPPED_AFTER_FORK, str(SANDBOX), f"--read-only={tmp_path / 'ro'}",
               f"--write={tmp_path / 'ro' / 'rw'}", "--", "sh", "-c", marker]  # fmt: skip
    log = tmp_path / "log"
    with log.open("w") as output:  # a file, not a pipe: a command left running would hold a pipe open
        subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, timeout=60, cwd=tmp_path / "ro")
    result = log.read_text()
    if "sandbox: none" in result:
        pytest.skip(f"no namespaces on this machine: {result.strip()}")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and marker in descendants.describe(int(p.name))]
        if left:
            break
        time.sleep(0.1)
    for pid in left:  # a test that fails still leaves no sleeping process behind
        os.kill(int(pid.name), 9)
    assert not left, f"the command ran on after its sandbox was stopped: {result}"


def test_descendants_finds_and_ends_a_double_forked_child():
    descendants.become_subreaper()
    before = tuple(descendants.of(os.getpid()))  # this test process's own (a browser another test started)
    subprocess.run(["sh", "-c", "(setsid sleep 300 &) ; true"], check=True)  # its parent is gone at once
    left = descendants.end_all(os.getpid(), keep=before)
    assert any("sleep 300" in command for command in left), left
    assert not [p for p in descendants.of(os.getpid()) if "sleep 300" in descendants.describe(p)]


def test_descendants_leaves_the_processes_that_ran_before():
    """The build ends only what its Sphinx runs left: a process it had before (a test's worker) lives."""
    before = tuple(descendants.of(os.getpid()))  # this test process's own (a browser another test started)
    worker = subprocess.Popen(["sleep", "301"])
    try:
        descendants.become_subreaper()
        subprocess.run(["sh", "-c", "(setsid sleep 302 &) ; true"], check=True)
        left = descendants.end_all(os.getpid(), keep=(*before, worker.pid))
        assert any("sleep 302" in command for command in left) and not any("301" in command for command in left)
        assert worker.poll() is None, "a process that ran before was ended"
    finally:
        worker.kill()
        worker.wait()


@pytest.mark.parametrize(("name", "mine"), [
    ("copying/plot_02_x.rst", True), ("copying/plot_02_x.py", True), ("copying/plot_02_x.py.md5", True),
    ("copying/plot_02_x.ipynb", True), ("copying/plot_02_x.zip", True), ("copying/plot_02_x_codeobj.pickle", True),
    ("copying/images/sphx_glr_plot_02_x_001.svg", True), ("copying/images/thumb/sphx_glr_plot_02_x_thumb.png", True),
    ("copying/plot_01_y.rst", False), ("copying/plot_02_x_extra.rst", False), ("copying/verified.rst", False),
    ("copying/images/sphx_glr_plot_01_y_001.svg", False),
])  # fmt: skip
def test_a_page_owns_only_the_outputs_named_after_it(name, mine):
    assert page_outputs.belongs_to(name, "plot_02_x") is mine


def test_the_tree_fingerprint_sees_every_file_but_the_unwatched(tmp_path):
    for name in ("a.txt", ".git/hooks/pre-commit", "build/html/x.html", ".nox/site/y", "docs/__pycache__/z.pyc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("1")
    (tmp_path / "link").symlink_to("/etc/hostname")
    prints = build_folders.fingerprint_tree(tmp_path)
    assert sorted(prints) == [".git/hooks/pre-commit", "a.txt", "link"], prints
    (tmp_path / ".git" / "hooks" / "pre-commit").write_text("2")
    assert build_folders.changes(prints, build_folders.fingerprint_tree(tmp_path)) == [".git/hooks/pre-commit changed"]


def test_a_killed_builds_staging_folder_is_removed_and_nothing_else(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    folders = {name: tmp_path / name for name in ("killed", "running", "unmarked", "foreign-marker")}
    for folder in folders.values():
        folder.mkdir()
        (folder / "file").write_text("x")
    (folders["killed"] / build_folders.MARKER).write_text(json.dumps({"kind": "stage", "pid": int(dead.stdout)}))
    (folders["running"] / build_folders.MARKER).write_text(json.dumps({"kind": "stage", "pid": os.getpid()}))
    (folders["foreign-marker"] / build_folders.MARKER).write_text("not json")
    removed = build_folders.remove_abandoned(sorted(folders.values()))
    assert removed == [folders["killed"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign-marker", "running", "unmarked"]


def test_a_link_where_builds_stage_is_neither_followed_nor_removed(tmp_path):
    """A page could plant a link to a folder holding a dead build's marker: the next build must not crash
    on it nor delete what it points at."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / build_folders.MARKER).write_text(json.dumps({"kind": "stage", "pid": int(dead.stdout)}))
    (tmp_path / "link").symlink_to(victim)
    assert build_folders.remove_abandoned([tmp_path / "link"]) == []
    assert (victim / build_folders.MARKER).exists() and (tmp_path / "link").is_symlink()


ACTIVE = {
    "gallery/zh_CN/GALLERY_HEADER.rst": "\n.. raw:: html\n\n   <script>alert(1)</script>\n",
    "docs/en/about.md": "\n<script>alert(1)</script>\n",
    "docs/zh_CN/about.md": "\n点击 <a href=\"x\">这里</a>。\n",
    "docs/en/index.md": "\n[home](javascript:alert(1))\n",
    "docs/zh_CN/index.md": "\n```{raw} html\n<b>x</b>\n```\n",
}


def test_active_content_in_headers_and_narrative_pages_is_refused(tmp_path):
    project = copy_project(tmp_path / "project")
    assert active_content.check(project) == [], "the sources as they are hold active content"
    for name, text in ACTIVE.items():
        with (project / name).open("a", encoding="utf-8") as handle:
            handle.write(text)
    problems = "\n".join(active_content.check(project))
    for name in ACTIVE:
        assert f"{name}:" in problems, f"{name} was not refused:\n{problems}"


@pytest.mark.parametrize("text", ["`click <javascript:alert(1)>`_", ".. raw:: html\n\n   <b>x</b>",
                                  "`x <data:text/html;base64,PHNjcmlwdD4=>`_", "<SCRIPT src=x>",
                                  ":download:`data <../../../../etc/os-release>`", "{download}`x </etc/hostname>`"])
def test_active_content_in_a_pages_text_is_refused(text):
    assert active_content._text_rules(text)


@pytest.mark.parametrize("text", ["print('data:', x)", "see {doc}`the matrix <matrix>`",
                                  "<https://example.org/page>", "metadata: the shape"])
def test_ordinary_text_is_not_active_content(text):
    assert not active_content._text_rules(text) and not active_content._markdown_html(text)


def test_symlinks_in_the_built_folders_or_leaving_the_repository_are_refused(tmp_path):
    project = copy_project(tmp_path / "project")
    (project / "docs" / "_static" / "secret.txt").symlink_to("/etc/hostname")
    (project / "gallery" / "en" / "copying" / "plot_99_link.py").symlink_to(project / "pyproject.toml")
    (project / "tools").mkdir()
    (project / "tools" / "inside").symlink_to(project / "pyproject.toml")
    (project / "tools" / "outside").symlink_to("/etc")
    problems = "\n".join(active_content.check_symlinks(project))
    assert "docs/_static/secret.txt: a symlink" in problems
    assert "gallery/en/copying/plot_99_link.py: a symlink (to" in problems, "a symlink inside the repository passed"
    assert "tools/outside: a symlink that leads out of the repository" in problems
    assert "tools/inside" not in problems, problems


def test_a_sandbox_that_cannot_be_made_runs_the_command_as_it_is_and_says_why(tmp_path):
    """A step the machine refuses (here a writable folder that does not exist) leaves no half-made
    sandbox: the command runs unconfined, and the first line says so and why."""
    (tmp_path / "ro").mkdir()
    command = [sys.executable, str(SANDBOX), f"--read-only={tmp_path / 'ro'}", f"--write={tmp_path / 'missing'}",
               "--", "sh", "-c", "echo x > ro/written"]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("sandbox: none on this machine (") and "missing" in result.stdout, result.stdout
    assert (tmp_path / "ro" / "written").exists()
