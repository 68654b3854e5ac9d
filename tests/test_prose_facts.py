"""Prose never says more than its checks: named facts (tensorfacts.facts), the ``{fact}`` role, and the
rule that every behavioural paragraph of a narrative page is backed (tensorfacts.prose)."""

from __future__ import annotations

import re

import pytest

from editions import CODES
from tensorfacts import facts, prose
from tensorfacts import matrix as mp
from tests.claims_tools import ROOT, RefuseTorch, build_mini_site

#: The narrative pages whose paragraphs must be backed (about.md describes the build, not torch).
PAGES = ("index.md", "quickref.md", "matrix.md", "views.md", "saved.md", "ledger.md", "decide.md", "facts.md")


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("fact_id", sorted(facts.FACTS))
def test_every_fact_holds_on_this_torch(fact_id, fact_results):
    result = fact_results[fact_id]
    assert result.holds, f"{fact_id}: {result.trace}"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("fact_id", sorted(facts.FACTS))
def test_every_fact_needs_torch_to_hold(fact_id):
    with RefuseTorch():
        result = facts.run_fact(fact_id)
    assert not result.holds and "torch is switched off" in result.trace


def test_an_unknown_fact_does_not_hold():
    result = facts.run_fact("no-such-fact")
    assert not result.holds and "no fact is registered" in result.trace


@pytest.mark.parametrize("lang", CODES)
@pytest.mark.parametrize("page", PAGES)
def test_every_fact_a_page_names_exists(lang, page):
    named = prose.named_facts((ROOT / "docs" / lang / page).read_text(encoding="utf-8"))
    assert set(named) <= set(facts.FACTS), f"docs/{lang}/{page}: unknown facts {set(named) - set(facts.FACTS)}"


@pytest.mark.parametrize("page", PAGES)
def test_every_edition_names_the_same_facts(page):
    named = {lang: prose.named_facts((ROOT / "docs" / lang / page).read_text(encoding="utf-8"))
             for lang in CODES}
    first = next(iter(named.values()))
    assert all(ids == first for ids in named.values()), f"{page}: {named}"


@pytest.mark.parametrize("lang", CODES)
@pytest.mark.parametrize("page", PAGES)
def test_every_behavioural_paragraph_is_backed(lang, page):
    assert prose.problems(ROOT / "docs" / lang / page) == []


@pytest.mark.parametrize("lang", CODES)
def test_the_quick_reference_prints_what_its_data_counter_sentence_says(lang):
    """The sentence "an edit through `a.data` moves its own counter, not `a._version`" cites the fact that
    checks exactly that, and the doctest under it prints both counters before and after the edit: `a`'s
    stays, `a.data`'s moves by one (the doctest run proves the numbers; this test, that they show it)."""
    text = (ROOT / "docs" / lang / "quickref.md").read_text(encoding="utf-8")
    paragraph = next(p for p in text.split("\n\n") if "`a.data`" in p and "`a._version`" in p)
    assert paragraph.rstrip().endswith("{fact}`data-has-own-version-counter`"), paragraph
    doctest = text.split(paragraph, 1)[1].split("```{doctest}\n", 1)[1].split("```", 1)[0]
    after_data = doctest.split(">>> d = a.data\n", 1)[1]
    printed = re.findall(r">>> a\._version, d\._version\n\((\d+), (\d+)\)", after_data)
    shown = [tuple(map(int, pair)) for pair in printed][:2]  # before and after the edit (later lines go on)
    edit = after_data.index("d.add_(0)")
    assert len(shown) == 2 and after_data.index("a._version, d._version") < edit < after_data.index(
        "a._version, d._version", edit), doctest
    (a_before, d_before), (a_after, d_after) = shown
    assert a_after == a_before and d_after == d_before + 1, shown


def test_guide_entries_name_only_known_facts():
    for advice in mp.GUIDE:
        assert set(advice.facts) <= set(facts.FACTS), advice.id


BAD = "Intro.\n\n`a.detach()` shares memory with `a`.\n"


@pytest.mark.parametrize("backed, expected", [
    (BAD, 1),
    ("`a.detach()` shares memory with `a`. {fact}`detach-set-keeps-version-counter`\n", 0),
    ("`a.detach()` shares memory with `a`:\n\n```{doctest}\n>>> 1\n1\n```\n", 0),
    ("% prose: a title, not a claim\n`a.detach()` shares memory with `a`.\n", 0),
    ("% prose: a list of topics\n- `a.data` shares memory\n- `a.clone()` copies\n", 0),
    ("- `a.data` shares memory\n- `a.clone()` copies\n", 2),
    ("Plain words about memory and gradients, with no code.\n", 0),
], ids=["unbacked", "fact", "doctest", "marked", "marked-list", "unmarked-list", "no-code"])
def test_the_prose_checker_finds_unbacked_paragraphs(backed, expected):
    assert len(prose.unbacked(backed)) == expected


def test_the_fact_role_fails_the_build_on_an_unknown_or_broken_fact(tmp_path, monkeypatch):
    monkeypatch.setitem(facts.FACTS, "broken", lambda: facts.Fact(False, "broken on purpose"))
    _, warnings = build_mini_site(
        tmp_path, "`a` shares memory. {fact}`no-such-fact` It is copied. {fact}`broken`\n")
    assert "fact no-such-fact does not hold" in warnings
    assert "fact broken does not hold on this torch: broken on purpose" in warnings


def test_the_fact_role_renders_nothing_and_builds_cleanly(tmp_path):
    html, warnings = build_mini_site(tmp_path, "`a.detach()` sticks. {fact}`detach-set-keeps-version-counter`\n")
    assert warnings == ""
    assert "detach-set-keeps-version-counter" not in html


#: A fact role that renders nothing between a word and the punctuation ending its sentence leaves a space before
#: that mark ("is not ."): the role goes after the mark, or straight after the word.
_SPACE_BEFORE_MARK = re.compile(r"\s(?:\{fact\}|:fact:)`[^`]+`[.,;:!?。，；：）)]")


@pytest.mark.parametrize("lang", CODES)
def test_no_fact_role_leaves_a_space_before_a_punctuation_mark(lang):
    sources = [*(ROOT / "docs" / lang).glob("*.md"), *(ROOT / "gallery" / lang).rglob("*.py")]
    found = [f"{path.relative_to(ROOT)}: {hit.group()!r}" for path in sources
             for hit in _SPACE_BEFORE_MARK.finditer(path.read_text(encoding="utf-8"))]
    assert found == [], found


#: The words by which copying/plot_04_detach names each route of the fact detach-resize-grow-on-borrowed-memory
#: (an edition's own words under its code, code words for every edition under ``None``).
_RESIZE_ROUTE_WORDS = {
    "torch.from_numpy(array)": {None: ("NumPy",)},
    "torch.frombuffer(bytearray)": {None: ("torch.frombuffer",)},
    "torch.from_dlpack(array)": {None: ("DLPack",)},
    "torch.load(f, weights_only=True)": {None: ("torch.load", "weights_only", "``True``")},
    "torch.load(f, weights_only=False)": {None: ("torch.load", "weights_only", "``False``")},
    "torch.load(f, weights_only=True, mmap=True)": {None: ("torch.load", "mmap=True")},
    "torch.load(f, weights_only=False, mmap=True)": {None: ("torch.load", "mmap=True")},
    "load_state_dict(torch.load(f), assign=True)": {None: ("load_state_dict(..., assign=True)",)},
    "torch.from_file(f, shared=False)": {None: ("torch.from_file",)},
    "torch.from_file(f, shared=True)": {None: ("torch.from_file",)},
    "torch.ones(6)": {"en": ("a new tensor",), "zh_CN": ("新张量",)},
    "torch.load(f).clone()": {None: ("clone()",)},
    "copy.deepcopy(torch.load(f))": {None: ("copy.deepcopy",)},
    "torch.from_numpy(array).clone()": {None: ("clone()",)},
    "torch.load(legacy_f, weights_only=True)": {None: ("_use_new_zipfile_serialization=False", "``True``")},
    "torch.load(legacy_f, weights_only=False)": {None: ("_use_new_zipfile_serialization=False", "``False``")},
    "load_state_dict(torch.load(legacy_f), assign=True)": {None: ("_use_new_zipfile_serialization=False",
                                                                  "load_state_dict(..., assign=True)")},
}


@pytest.mark.parametrize("lang", CODES)
def test_the_detach_page_names_every_route_its_resize_fact_runs(lang):
    """The paragraph of copying/plot_04_detach that states which storages a growing resize_ moves and on which it
    raises names each route the fact it cites runs, and the fact runs each route the paragraph names."""
    from tensorfacts.detach_data_facts import NOT_RESIZABLE, RESIZABLE

    assert set(_RESIZE_ROUTE_WORDS) == set(NOT_RESIZABLE) | set(RESIZABLE)
    text = (ROOT / "gallery" / lang / "copying" / "plot_04_detach.py").read_text(encoding="utf-8")
    before = text.split(":fact:`detach-resize-grow-on-borrowed-memory`", 1)[0]
    paragraph = before.rsplit("\n#\n", 1)[1]
    assert "resizable()" in paragraph and "not resizable" in paragraph, paragraph
    missing = {route: word for route, words in _RESIZE_ROUTE_WORDS.items()
               for word in (*words.get(None, ()), *words.get(lang, ())) if word not in paragraph}
    assert not missing, f"{lang}: the paragraph does not name {missing}"
