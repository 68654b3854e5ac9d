"""Parts of the build's guard, each on a known-bad case and without building the site: the collection of a
page's leftover processes, the fingerprint of a tree, and the clean-up of a killed build's staging folder.
The slow tier runs the same faults through real builds (tests/test_scratch_faults.py). And the pages a
preview builds: the narrative pages it names (``--only quickref``) beside the home page, no other, and a name
that is no page refused (tests/test_web_published.py reads a built one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from editions import CODES
from sitetools.building import descendants, pipeline, sphinx_runs
from sitetools.building import folders as build_folders
from sitetools.rules import sources


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


def _left_out(command: list[str]) -> set[str]:
    """The pages a ``sphinx-build`` command leaves out (its ``-D exclude_patterns=``)."""
    (value,) = [arg.partition("=")[2] for arg in command if arg.startswith("exclude_patterns=")] or [""]
    return set(filter(None, value.split(",")))


@pytest.mark.parametrize("lang", CODES)
def test_a_preview_keeps_the_narrative_pages_it_names_beside_the_home_page_and_no_other(tmp_path, lang):
    docs = sources.ROOT / "docs"
    every = {page.name for page in sources.narrative_pages(lang, docs)}
    assert {"index.md", "quickref.md", "about.md"} <= every
    only = ["copying/plot_04_detach", "quickref"]
    examples, pages = pipeline.preview_parts(only, list(CODES))
    assert (examples, pages) == (["copying/plot_04_detach"], ["quickref"])
    kept = sphinx_runs.preview_kept(pages)
    assert set(kept) == {"index.md", "quickref.md"}, kept
    command = sphinx_runs.sphinx_command(docs, lang, tmp_path / "out", tmp_path / "stage", "Preview", kept)
    assert _left_out(command) == every - {"index.md", "quickref.md"}
    plain = sphinx_runs.sphinx_command(docs, lang, tmp_path / "out", tmp_path / "stage", "Preview",
                                       sphinx_runs.preview_kept(pipeline.preview_parts(only[:1], list(CODES))[1]))
    assert _left_out(plain) == every - {"index.md"}, "a preview that names no narrative page keeps only the home"
    full = sphinx_runs.sphinx_command(docs, lang, tmp_path / "out", tmp_path / "stage", "", kept)
    assert _left_out(full) == set(), "the whole site leaves a narrative page out"


def test_a_preview_refuses_a_name_that_is_no_example_and_no_narrative_page():
    with pytest.raises(build_folders.BuildError, match=r"no such example or narrative page quickrefs;") as refused:
        pipeline.preview_parts(["copying/plot_04_detach", "quickref", "quickrefs"], list(CODES))
    assert "quickref," in str(refused.value) and "copying/plot_04_detach" in str(refused.value)
    with pytest.raises(build_folders.BuildError, match=r"page copying/quickref$|page copying/quickref;"):
        pipeline.preview_parts(["copying/quickref"], list(CODES))
