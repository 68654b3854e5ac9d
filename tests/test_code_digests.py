"""The digests of the code each check runs (sitetools/releases/code_digests.py), by which the releases page tells the
checks that ran on another release as they now read from those that ran in an older form: a change anywhere in
the code a check runs must change its digest, and a change that runs nothing (a comment, a docstring, a message, a
registration's texts) must not."""

import importlib
import json
import sys
import textwrap
from pathlib import Path

import pytest

from sitetools.releases import code_digests
from sitetools.releases import records as release_records

ROOT = Path(__file__).resolve().parents[1]

#: A small project: a check that calls a helper that calls another, reads a constant of another module and a
#: closure's cell, runs a fact by its id, and calls a method of a dataclass instance that reads its fields.
PROJECT = {
    "__init__.py": "",
    "helpers.py": '''
        import dataclasses

        LIMIT = 10


        def outer(x):
            return inner(x) + 1


        def inner(x):
            return x * 2


        def scaled(factor):
            def scale(x):
                return x * factor
            return scale


        @dataclasses.dataclass(frozen=True)
        class Row:
            code: str
            text: str

            def run(self):
                return eval(self.code)
        ''',
    "facts.py": '''
        def a_fact():
            return 1 + 1


        FACTS = {"a-fact": a_fact}


        def run_fact(fact_id):
            return FACTS[fact_id]()
        ''',
    "checks.py": '''
        from pkg import helpers
        from pkg.facts import run_fact
        from pkg.helpers import LIMIT

        TRIPLE = helpers.scaled(3)
        ROW = helpers.Row("1 + 2", "what the row says")


        def check():
            """What the check does."""
            # a comment
            assert helpers.outer(2) < LIMIT, "the message"
            if TRIPLE(1) != 3:
                raise AssertionError("another message")
            return run_fact("a-fact")
        ''',
}


def _digests(tmp_path: Path, name: str, changes: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """The digests of ``check`` and of ``ROW.run`` in a copy of the project with ``changes`` (file -> (old, new))."""
    folder = tmp_path / name
    (folder / "pkg").mkdir(parents=True)
    for file, text in PROJECT.items():
        text = textwrap.dedent(text)
        if file in changes:
            old, new = changes[file]
            assert old in text, old
            text = text.replace(old, new)
        (folder / "pkg" / file).write_text(text, encoding="utf-8")
    for module in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        del sys.modules[module]
    sys.path.insert(0, str(folder))
    try:
        checks = importlib.import_module("pkg.checks")
        facts = importlib.import_module("pkg.facts").FACTS
        return (code_digests.closure_digest([checks.check], folder, facts),
                code_digests.closure_digest([checks.ROW.run], folder, facts))
    finally:
        sys.path.remove(str(folder))
        for module in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[module]


@pytest.mark.parametrize(("file", "old", "new"), [
    ("helpers.py", "return x * 2", "return x * 3"),  # a helper two calls deep
    ("helpers.py", "LIMIT = 10", "LIMIT = 11"),  # a constant of another module, imported by name
    ("helpers.py", "return x * factor", "return x * factor + 0"),  # a function a module-level call made
    ("checks.py", "helpers.scaled(3)", "helpers.scaled(4)"),  # the statement that made it
    ("facts.py", "return 1 + 1", "return 1 + 2"),  # a fact the check runs by its id
])  # fmt: skip
def test_a_change_anywhere_in_the_code_a_check_runs_changes_its_digest(tmp_path, file, old, new):
    before, _ = _digests(tmp_path, "before", {})
    after, _ = _digests(tmp_path, "after", {file: (old, new)})
    assert before != after, f"a change in {file} ({old} -> {new}) left the check's digest as it was"


@pytest.mark.parametrize(("file", "old", "new"), [
    ("checks.py", '"""What the check does."""', '"""What the check does, reworded."""'),
    ("checks.py", "# a comment", "# another comment"),
    ("checks.py", '"the message"', '"the message, reworded"'),
    ("checks.py", '"another message"', '"another message, reworded"'),
    ("helpers.py", "def outer(x):", "def unused():\n    return 0\n\n\ndef outer(x):"),  # code nothing calls
])  # fmt: skip
def test_a_change_that_runs_nothing_keeps_the_digest(tmp_path, file, old, new):
    before, _ = _digests(tmp_path, "before", {})
    after, _ = _digests(tmp_path, "after", {file: (old, new)})
    assert before == after


def test_a_bound_methods_digest_holds_the_fields_it_reads_and_not_the_others(tmp_path):
    _, before = _digests(tmp_path, "before", {})
    _, code = _digests(tmp_path, "code", {"checks.py": ('"1 + 2"', '"1 + 3"')})
    _, text = _digests(tmp_path, "text", {"checks.py": ('"what the row says"', '"what the row now says"')})
    assert code != before, "the field the method reads"
    assert text == before, "a field the method does not read"


def test_a_pages_digest_leaves_out_its_text_cells_comments_and_messages():
    page = '"""Title\n=====\n\nWhat it shows."""\n\n# %%\n# Text.\nimport torch\nassert torch.ones(1) == 1, "one"\n'
    same = page.replace("Text.", "Other text.").replace('"one"', '"a one"').replace("What it shows.", "More.")
    assert code_digests.page_digest(page) == code_digests.page_digest(same)
    assert code_digests.page_digest(page) != code_digests.page_digest(page.replace("torch.ones(1)", "torch.ones(2)"))


def test_every_claim_table_page_and_fact_has_a_digest_now():
    codes = release_records.current_codes()
    from tensorfacts import articles
    from tensorfacts.fact_registry import FACTS

    assert set(codes["claims"]) == set(articles.CHECKS)
    assert set(codes["tables"]) == {"matrix", "views", "saved"}
    assert set(codes["facts"]) == set(FACTS)
    manifest = json.loads((ROOT / "gallery" / "asserts.json").read_text(encoding="utf-8"))
    assert set(codes["pages"]) == set(manifest)


def test_a_claims_digest_follows_the_facts_it_runs(monkeypatch):
    """A claim whose check runs named facts (004-detach-safe) changes its digest when one of those facts changes."""
    from tensorfacts import fact_registry

    claim = "004-detach-safe"
    before = code_digests.claim_codes()[claim]
    fact_id = "version-counter-shared-by-views-and-detach"

    def rewritten():
        return fact_registry.Fact(True, "")

    monkeypatch.setitem(fact_registry.FACTS, fact_id, rewritten)
    assert code_digests.claim_codes()[claim] != before, f"{claim} runs {fact_id}: its digest must follow it"
