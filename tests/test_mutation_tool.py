"""The mutation audit's tool (tests/mutations): it edits a copy, never the sources, refuses a stale
mutation, and every mutation of the catalog names tests that exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import gallery_tools
from tests.mutations import run
from tests.mutations.catalog import Edit, Mutation


@pytest.mark.parametrize("catalog", run.CATALOGS)
def test_names_are_unique_and_every_mutation_names_existing_tests(catalog):
    mutations = run.load(catalog)
    assert len({m.name for m in mutations}) == len(mutations)
    for m in mutations:
        files = [arg for arg in m.tests if arg.startswith("tests/")]
        assert files and all((run.ROOT / f.split("::")[0]).is_file() for f in files), m.name


def test_a_mutation_edits_the_copy_only(tmp_path):
    (tmp_path / "pkg").mkdir()
    target = tmp_path / "pkg" / "mod.py"
    target.write_text("x = 1\ny = 2\n", encoding="utf-8")
    assert run.apply(tmp_path, Mutation("m", (Edit("pkg/mod.py", "y = 2", "y = 3"),), ("tests/x.py",))) is None
    assert target.read_text(encoding="utf-8") == "x = 1\ny = 3\n"


def test_a_text_that_is_not_there_once_is_stale(tmp_path):
    (tmp_path / "mod.py").write_text("a\na\n", encoding="utf-8")
    for old in ("a", "b"):
        assert "not once" in run.apply(tmp_path, Mutation("m", (Edit("mod.py", old, "c"),), ()))
    assert (tmp_path / "mod.py").read_text(encoding="utf-8") == "a\na\n"


def test_the_copy_holds_the_sources_the_tests_need(tmp_path):
    copy = run.copy_project(tmp_path / "copy")
    assert sorted(p.name for p in copy.iterdir()) == sorted(gallery_tools.COPIED)
    assert not any(p.name == "__pycache__" for p in copy.rglob("*"))
    assert copy.resolve() != run.ROOT and Path(run.ROOT / "tests").is_dir()
