"""The glossary and the "which one do I want?" page: the two directives render them, the decision
answers rest on the behaviour matrix (a broken premise fails the build), and a glossary entry that
points to a page no label names fails it too."""

from __future__ import annotations

import copy
import io
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from editions import CODES, edition
from sitetools.rules import generated_prose, term_facts, terms
from tensorfacts import matrix as mp
from tensorfacts import probes, standard_sources
from tensorfacts.decisions import DECISIONS
from tests.claims_tools import EXT, ROOT
from tests.rendered_tables import guide_problems

CJK = re.compile(r"[\u4e00-\u9fff]")
#: Inline code: reST between double backquotes, MyST between single ones.
INLINE_CODE = re.compile(r"``[^`]+``|`[^`]+`")
CELLS = [(s, o, c) for s in standard_sources.SOURCES for o in probes.OPERATIONS for c in probes.PROBES]
PAGE = "```{behaviour-matrix}\n:guide: decide\n```\n\n```{terms-table}\n```\n\n```{core-terms}\n```\n"


@pytest.fixture(scope="module")
def matrix() -> probes.Matrix:
    return probes.probe_all()


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_decision_premises_hold(matrix):
    assert mp.failed_premises(matrix, DECISIONS) == []


@pytest.mark.parametrize("advice", DECISIONS, ids=lambda a: a.id)
def test_each_decision_reads_the_matrix(advice, matrix):
    """Changing some single cell must break the premise: it is not a constant. (Each cell is changed in
    place and put back, and only this decision's premise is judged: its named facts read no cell, and
    a copy of the matrix per cell, with every fact run again, took minutes.)"""
    for source, operation, column in CELLS:
        row = matrix[source][operation]
        value = row[column]
        row[column] = (not value) if isinstance(value, bool) else "changed"
        try:
            broken = not advice.premise(matrix)
        except Exception:
            broken = True
        finally:
            row[column] = value
        if broken:
            return
    pytest.fail(f"no change of any cell breaks the premise of {advice.id}")


@pytest.mark.parametrize("advice", DECISIONS, ids=lambda a: a.id)
def test_each_decision_is_written_in_every_edition(advice):
    for code in CODES:
        text = advice.text(code)
        assert bool(CJK.search(text)) == edition(code).cjk, f"the {code} text of {advice.id} is in {code}"
        assert text.count("`") % 2 == 0, f"unbalanced backticks in the {code} text of {advice.id}"
        named = set(re.findall(r"`(a\.[^`(]+(?:\(\))*(?:\.[a-z]+\(\))*|b = a|copy\.deepcopy\(a\))`", text))
        checked = set(probes.OPERATIONS).union({"a.data"}, *(mp.FACT_EXPRESSIONS.get(f, ()) for f in advice.facts))
        assert named <= checked, f"{advice.id} names a call the matrix does not probe, nor a fact it names checks"


def build(tmp_path: Path, body: str, language: str) -> tuple[str, str]:
    """A one-page Sphinx project with both directives and every gallery label; (html, warnings)."""
    from sphinx.testing.util import SphinxTestApp

    src = tmp_path / "src"
    src.mkdir(parents=True, exist_ok=True)
    (src / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(ROOT)!r}, {str(EXT)!r}]\n"
        "extensions = ['myst_parser', 'tensorcopy_sphinx.behaviour_matrix', 'tensorcopy_sphinx.glossary_terms']\n"
        f"language = {language!r}\n",
        encoding="utf-8",
    )
    labels = sorted({term.page for term in terms.TERMS} | {s for ss in term_facts.MATRIX_SECTIONS.values() for s in ss})
    (src / "targets.md").write_text(
        "# Targets\n\n" + "\n\n".join(f"({label})=\n## Page {label}\n\nText." for label in labels) + "\n",
        encoding="utf-8",
    )
    (src / "index.md").write_text("# Test page\n\n```{toctree}\ntargets\n```\n\n" + body, encoding="utf-8")
    warnings = io.StringIO()
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "build", freshenv=True,
                        status=io.StringIO(), warning=warnings, confoverrides={"nitpicky": True})
    try:
        app.build()
    finally:
        app.cleanup()
    return (app.outdir / "index.html").read_text(encoding="utf-8"), warnings.getvalue()


@pytest.mark.parametrize("lang", CODES)
def test_both_pages_render_cleanly(site_dir, lang):
    """The real build's decide page and glossary (the build turns every warning into an error)."""
    decide = BeautifulSoup((site_dir / lang / "decide.html").read_text(encoding="utf-8"), "html.parser")
    assert guide_problems(decide, lang, DECISIONS) == []
    soup = BeautifulSoup((site_dir / lang / "glossary.html").read_text(encoding="utf-8"), "html.parser")
    rows = soup.select("table.terms-table tbody tr")
    assert len(rows) == len(terms.TERMS)
    for row, term in zip(rows, terms.TERMS, strict=True):
        assert row.select_one("th, td").get_text(strip=True) == term.zh
        link = row.select_one("a.reference.internal")
        assert link is not None and link["href"].endswith(f"#{term.page}"), row
        definition = term.define_en if lang == "en" else term.define_zh
        cells = row.select("th, td")
        assert cells[2].p.get_text().replace("’", "'") == definition.replace("`", ""), cells[2]  # smart quotes
        assert link in cells[2].find_all("a"), "the page link sits under the definition"
        sections = [a["href"] for a in cells[2].find_all("a") if a is not link and "facts.html" not in a["href"]
                    and not a["href"].startswith("https://")]  # torch's documentation, linked by the build
        wanted = term_facts.MATRIX_SECTIONS.get(term.zh, ())  # the matrix's sections, linked in order
        assert len(sections) == len(wanted), (term.zh, sections)
        linked = zip(sections, wanted, strict=True)
        assert all(href.endswith(f"#{label}") for href, label in linked), (term.zh, sections)
        cited = [a["href"] for a in cells[2].find_all("a") if "facts.html#fact-" in a["href"]]
        assert cited == [f"facts.html#fact-{f}" for f in term_facts.CHECKED_BY.get(term.zh, ())], (term.zh, cited)
    assert soup.find("p", string=generated_prose.core_terms(lang)) is not None, "the list of core terms, rendered whole"
    heads = [cell.get_text(strip=True) for cell in soup.select("table.terms-table thead th")]
    assert heads[2] == {"en": "meaning", "zh_CN": "释义"}[lang], heads


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_decision_whose_premise_breaks_fails_the_build(tmp_path, monkeypatch, facts_as_run):
    real = probes.PROBES["shares_storage"]
    monkeypatch.setitem(probes.PROBES, "shares_storage", lambda s, o: not real(s, o))
    _, warnings = build(tmp_path, PAGE, "en")
    assert "the premises of 'need-snapshot' do not hold" in warnings, warnings


def test_the_built_decision_page_shows_every_answer(site_dir):
    """Each answer in full, with a "Checked by" line linking the facts it names; the snapshot paragraph, which cites
    a fact, gets such a line under it too (as the page's introduction says)."""
    for lang in CODES:
        soup = BeautifulSoup((site_dir / lang / "decide.html").read_text(encoding="utf-8"), "html.parser")
        assert guide_problems(soup, lang, DECISIONS) == [], lang
        notes = soup.select("p.note-checked-by")
        source = (ROOT / "docs" / lang / "decide.md").read_text(encoding="utf-8")
        paragraph = next(part for part in source.split("\n\n") if 'a.detach().to("cpu", copy=True)' in part)
        cited = [f"facts.html#fact-{fact_id}" for fact_id in re.findall(r"\{fact\}`([\w-]+)`", paragraph)]
        assert cited and [[a["href"] for a in line.select("a")] for line in notes] == [cited], lang
        assert 'a.detach().to("cpu", copy=True)' in notes[0].find_previous_sibling("p").get_text(), lang


#: The terms whose definitions describe an idea and state nothing torch does (a reader's reading of
#: each definition, kept here rather than taken from sitetools/rules/terms.py): they need no fact.
DEFINED_ONLY = {"复制", "浅拷贝", "深拷贝", "计算图", "内存泄漏", "显存", "自动求导", "反向传播",
                "目标网络", "共享权重", "检查点", "竞态条件", "滑动平均", "源张量",
                "在线网络", "软更新", "微批次"}


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_every_definition_that_states_behaviour_names_facts_that_hold(fact_results):
    described = {term.zh for term in terms.TERMS} - DEFINED_ONLY
    assert set(term_facts.CHECKED_BY) == described, (set(term_facts.CHECKED_BY) ^ described)
    named = {f for ids in term_facts.CHECKED_BY.values() for f in ids}
    assert named <= set(fact_results), f"no fact has these ids: {sorted(named - set(fact_results))}"
    failing = {f: fact_results[f].trace for f in sorted(named) if not fact_results[f].holds}
    assert failing == {}


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_definition_whose_fact_fails_fails_the_build(tmp_path, monkeypatch, facts_as_run):
    from tensorfacts import facts

    monkeypatch.setitem(facts.FACTS, "advanced-index-read-copies", lambda: facts.Fact(False, "x[[0, 2]] shares x"))
    _, warnings = build(tmp_path, PAGE, "zh_CN")
    assert "高级索引" in warnings and "advanced-index-read-copies" in warnings and "terms.py" in warnings, warnings


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_term_pointing_nowhere_fails_the_build(tmp_path, monkeypatch, facts_as_run):
    broken = (*terms.TERMS, terms.Term("无处", "nowhere", "no-such-page"))
    monkeypatch.setattr("tensorcopy_sphinx.glossary_terms.TERMS", broken)
    _, warnings = build(tmp_path, PAGE, "en")
    assert "no-such-page" in warnings, warnings


#: What a Chinese reader types, which must find the glossary.
READER_WORDS = ("拷贝", "副本", "浅拷贝", "深拷贝", "就地", "原地操作", "原位", "视图", "叶子张量", "版本计数器")


def test_the_built_chinese_index_sends_each_reader_word_to_the_glossary(site_dir):
    import json

    text = (site_dir / "zh_CN" / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    glossary = index["docnames"].index("glossary")
    for word in READER_WORDS:
        found = index["terms"].get(word, [])
        found = [found] if isinstance(found, int) else found
        assert glossary in found, f"zh_CN/searchindex.js: {word!r} does not lead to glossary.html"
    assert "qqxyzzyqq" not in index["terms"], "the index must not hold a made-up word"


#: How a line of the version-counter page's table reaches the memory of ``t``, and the route of
#: ``tensorfacts.detach_data_facts.DETACH_ROUTES`` that reaches it the same way from ``a.detach()``.
_TABLE_ROUTES = {
    ".numpy()": "a.detach().numpy()",
    ".untyped_storage()": "a.detach().untyped_storage()",
    "from_dlpack": "torch.from_dlpack(a.detach())",
    "frombuffer": "torch.frombuffer(a.detach().numpy(), dtype=a.dtype)",
    ".apply_(": "a.detach().apply_(f)",
    ".map_(": "a.detach().map_(a.detach(), f)",
}


def _version_table_edits() -> dict[str, object]:
    """The ``edits`` of questions/plot_12_version_counter (English), as functions of ``t``."""
    import ast

    import torch

    page = ROOT / "gallery" / "en" / "questions" / "plot_12_version_counter.py"
    tree = ast.parse(page.read_text(encoding="utf-8"))
    table = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 and [getattr(t, "id", None) for t in node.targets] == ["edits"])
    return {key.value: eval(compile(ast.Expression(value), str(page), "eval"), {"copy": copy, "torch": torch})  # noqa: S307
            for key, value in zip(table.keys, table.values, strict=True)}


def test_the_guides_list_every_silent_route_of_the_version_counter_table():
    """A line of the table whose write the counter misses, through NumPy, the storage, DLPack, a buffer, apply_
    or map_, has its route in the fact's list; the decision page and the matrix guide, which name a few of them,
    link that table."""
    import torch

    from tensorfacts.detach_data_facts import CAUGHT_ROUTES, DETACH_ROUTES, SILENT_ROUTES

    assert set(SILENT_ROUTES) == set(DETACH_ROUTES) - set(CAUGHT_ROUTES)
    silent_lines = []
    for line, edit in _version_table_edits().items():
        t = torch.arange(4.0)
        before, version = t.clone(), t._version
        edit(t)
        if not torch.equal(t, before) and t._version == version:
            silent_lines.append(line)
    routed = {line: route for line in silent_lines for key, route in _TABLE_ROUTES.items() if key in line}
    assert len(routed) >= 5, f"the table's silent lines through NumPy, storage, DLPack, apply_, map_: {silent_lines}"
    missing = {line: route for line, route in routed.items() if route not in SILENT_ROUTES}
    assert not missing, f"silent in the version-counter table, missing from the guides' list: {missing}"
    for advice in (*DECISIONS, *mp.GUIDE):  # a guide names a few routes and links the table for every one
        if "detach-write-routes" in advice.facts:
            for code in CODES:
                assert "<questions-version-counter>`" in advice.text(code), (advice.id, code)


def test_the_chinese_prose_writes_autograd_only_as_a_gloss_in_code_or_quoted():
    """The glossary says so: outside code and quotations, a Chinese page writes autograd only in the parentheses
    right after 自动求导, 自动求导（autograd）; the pages' prose includes the sentences their directives write."""
    from sitetools.rules.first_mentions import _pieces, _reader_pages, prose
    from sitetools.rules.wording import QUOTED

    word = re.compile(r"(?<![\w.`/])autograd(?![\w.`/(])")
    bare = []
    for group in _reader_pages(ROOT, "zh_CN"):
        for text, where in (part for page in group for part in _pieces(page, ROOT, "zh_CN")):
            text = prose(text)
            exempt = [match.span() for pattern in (QUOTED, INLINE_CODE) for match in pattern.finditer(text)]
            for found in word.finditer(text):
                glossed = text[: found.start()].endswith("自动求导（") and text[found.end() :].startswith("）")
                if not glossed and not any(start < found.start() < end for start, end in exempt):
                    bare.append(where(found.start()))
    assert len(list(word.finditer("自动求导（autograd）"))) == 1
    assert not bare, f"autograd written outside 自动求导（autograd）, code and quotations: {bare}"


def test_a_glossary_definition_names_no_torch_release_but_this_builds():
    """The facts under a definition run on this build's torch only: a definition that said how another release
    behaves would rest on nothing the build runs (the releases page shows the recorded releases, from the records)."""
    from importlib.metadata import version

    built = version("torch").split("+")[0]
    for term in terms.TERMS:
        for definition in (term.define_en, term.define_zh):
            named = set(re.findall(r"(?<![\d.])2\.\d+(?:\.\d+)?(?![\d.])", definition))
            assert named <= {built}, (term.zh, named)
