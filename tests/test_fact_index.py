"""The facts page (tensorcopy_sphinx.fact_index): every fact listed once, with the pages that cite it,
collected from the ``{fact}`` roles and the guides while the pages are read."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

import pytest
from bs4 import BeautifulSoup

from editions import CODES
from tensorfacts import fact_registry, facts
from tests.claims_tools import EXT, LABEL_PAGE, ROOT, fact_index


def test_citations_are_collected_purged_and_merged():
    store: dict[str, set[str]] = {}
    fact_index.purge(store, "matrix")
    store.setdefault("a", set()).update({"matrix", "decide"})
    fact_index.purge(store, "matrix")
    assert store == {"a": {"decide"}}
    fact_index.merge(store, {"a": {"quickref", "other"}, "b": {"quickref"}}, {"quickref"})
    assert store == {"a": {"decide", "quickref"}, "b": {"quickref"}}
    assert fact_index.rows(store, {"b": None, "a": None, "c": None}) == [
        ("a", ["decide", "quickref"]), ("b", ["quickref"]), ("c", [])]


def test_one_run_of_a_fact_serves_every_page_of_a_build(monkeypatch):
    """The facts page says so: the facts page, the glossary and the ``{fact}`` roles share one run per build."""
    calls = []
    monkeypatch.setattr(facts, "run_fact", lambda fact_id: calls.append(fact_id) or facts.Fact(True, fact_id))
    fact_id = next(iter(facts.FACTS))
    first, other = type("Env", (), {})(), type("Env", (), {})()
    assert fact_index.run(first, fact_id) is fact_index.run(first, fact_id)
    fact_index.run(other, fact_id)
    assert calls == [fact_id, fact_id]


def test_the_scope_of_an_uncited_fact_names_no_citing_sentence():
    about = fact_registry.About({c: "x" for c in CODES}, fact_registry.ONE_EXAMPLE)
    for code in CODES:
        assert about.scope_in(code) == fact_registry.ONE_EXAMPLE[code]
        assert about.scope_in(code, cited=False) == fact_registry.ONE_EXAMPLE_UNCITED[code]
    listed = fact_registry.About({c: "x" for c in CODES}, {c: "three cases" for c in CODES})
    assert listed.scope_in("en", cited=False) == "three cases"


@pytest.mark.parametrize("code", CODES)
def test_a_quoted_torch_message_keeps_its_backquotes(code):
    """The facts page quotes a message as torch prints it: an escaped backquote stays in the text, and an unescaped
    pair still makes a code span."""
    from tensorcopy_sphinx.inline import inline_text

    from tensorfacts.vmap_data_facts import DATA_UNDER_VMAP

    shown = inline_text(facts.ABOUT["vmap-innermost-refuses-data"].runs_in(code))
    assert DATA_UNDER_VMAP in "".join(node.astext() for node in shown)
    assert [type(node).__name__ for node in inline_text("a `b` c")] == ["Text", "literal", "Text"]


def test_a_fact_id_named_in_plain_text_links_to_its_entry():
    """What a fact runs may be given as another fact's runs ("the 7 basic indexes of basic-index-read-views"): the
    id links to that entry; inside a longer word or a code span it stays text."""
    from docutils import nodes
    from tensorcopy_sphinx.inline import inline_text

    made = fact_index.link_fact_ids(inline_text(
        "each of index-read-views, `index-read-views`, my-index-read-views, index-read-views2 and a-b的"),
        ["index-read-views", "a-b", "b"])
    links = [(node.astext(), node["refid"]) for node in made if isinstance(node, nodes.reference)]
    assert links == [("index-read-views", "fact-index-read-views"), ("a-b", "fact-a-b")]
    assert "".join(node.astext() for node in made) == (
        "each of index-read-views, index-read-views, my-index-read-views, index-read-views2 and a-b的")
    assert [type(node).__name__ for node in made].count("literal") == 1


#: Cases a fact runs besides its main list, by the words that name them in each edition's "What it runs".
RUN_BESIDES = {
    "dense-tensor-reads-storage-by-layout": {"en": "z.conj().imag", "zh_CN": "z.conj().imag"},
    "advanced-index-read-copies": {"en": "0-d int64", "zh_CN": "零维 int64"},
}


@pytest.mark.parametrize("fact_id", sorted(RUN_BESIDES))
@pytest.mark.parametrize("code", CODES)
def test_a_scope_that_lists_its_cases_names_those_run_besides_the_main_list(fact_id, code):
    """As the facts page says, a fact's scope names the cases it runs: one that lists them leaves none out."""
    words, about = RUN_BESIDES[fact_id][code], facts.ABOUT[fact_id]
    assert words in about.runs_in(code), f"{fact_id} no longer runs {words!r}: update RUN_BESIDES"
    assert words in about.scope_in(code), f"the {code} scope of {fact_id} leaves out {words!r}, which it runs"


_RESULTS: dict[tuple[str, object], facts.Fact] = {}


def run_each_fact_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fact runs once per test process here, not once per mini-site: these tests check how the facts
    page shows the results (tests/test_prose_facts.py runs every fact for its own verdict). A fact is known
    by its id and its function, so one that a test registers in its place runs afresh."""
    real = facts.run_fact

    def run_once(fact_id: str) -> facts.Fact:
        key = (fact_id, facts.FACTS.get(fact_id))
        if key not in _RESULTS:
            _RESULTS[key] = real(fact_id)
        return _RESULTS[key]

    monkeypatch.setattr(facts, "run_fact", run_once)


@pytest.fixture(autouse=True)
def facts_run_once_per_process(monkeypatch):
    run_each_fact_once(monkeypatch)


def build(tmp_path: Path, pages: dict[str, str], language: str, more: tuple[str, ...] = ()) -> dict[str, str]:
    """A Sphinx project with the facts page's extensions (and ``more``) and ``pages`` (name -> MyST body); the html of
    each page."""
    from sphinx.testing.util import SphinxTestApp

    src = tmp_path / "src"
    src.mkdir(parents=True, exist_ok=True)
    extensions = ["myst_parser", "tensorcopy_sphinx.behaviour_matrix", "tensorcopy_sphinx.fact_index",
                  "tensorcopy_sphinx.field_colons", *more]  # fmt: skip
    (src / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(ROOT)!r}, {str(EXT)!r}]\n"
        f"extensions = {extensions!r}\n"
        f"language = {language!r}\n", encoding="utf-8")
    toctree = "```{toctree}\n" + "\n".join(n for n in pages if n != "index") + "\n```\n"
    for name, body in pages.items():
        (src / f"{name}.md").write_text(body + ("\n" + toctree if name == "index" else ""), encoding="utf-8")
    warnings = io.StringIO()
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "build", freshenv=True,
                        status=io.StringIO(), warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()
    assert warnings.getvalue() == "", warnings.getvalue()
    return {name: (app.outdir / f"{name}.html").read_text(encoding="utf-8") for name in pages}


PAGES = {
    "index": "# Home\n\n`a.detach()` shares. {fact}`leaf-refuses-inplace`\n",
    "guide": "# Guide page\n\n```{behaviour-matrix}\n:guide:\n```\n",
    "facts": "# Facts\n\n```{fact-index}\n```\n",
    "targets": "# Targets\n\n" + LABEL_PAGE + "\n",  # the pages the guide links
}

#: A page named as the matrix page: a note that cites two facts, a list whose outer item cites one in a nested item.
MATRIX_NOTES = """# Matrix

`a.detach()` shares. {fact}`leaf-refuses-inplace` It is a leaf. {fact}`deepcopy-grad-by-source`
{fact}`leaf-refuses-inplace`

- `b.mul_(10)` raises.
  - `a.clone()` copies. {fact}`detach-write-routes`
- Plain words.
"""

#: The pages of the mini-site that the tests which only read html share, one build per language. Who cites what:
#: ``leaf-refuses-inplace`` the home page (a role) and the matrix page; ``deepcopy-grad-by-source`` the guide (an
#: entry names it), the home page and the matrix page; ``detach-write-routes`` the guide and the matrix page (in a
#: nested item); the ledger page the facts that the checks of article 004 run; ``detach-resize-grow-reallocates``
#: no page.
SHARED_PAGES = {
    **PAGES,
    "index": PAGES["index"] + "\n`copy.deepcopy` and grads. {fact}`deepcopy-grad-by-source`\n",
    "matrix": MATRIX_NOTES,
    "ledger": '# Ledger\n\n```{claims-ledger}\n:article: "004"\n```\n',
}


@pytest.fixture(scope="module")
def mini_site(tmp_path_factory, fact_results) -> Callable[[str], Mapping[str, str]]:
    """The html of each of :data:`SHARED_PAGES` in a language, built once per test module and language (with
    the claims ledger's extension besides the facts page's), the first time a test asks for it. The build runs
    under its own patch of :func:`run_each_fact_once` (the autouse one is a test's, and ends with it) and sees
    no test's own patches; the facts' results are the run's shared ones (``fact_results`` in conftest.py). Read the
    pages, do not change them: a test that needs other pages builds its own."""
    sites: dict[str, Mapping[str, str]] = {}
    _RESULTS.update({(fact_id, facts.FACTS[fact_id]): result for fact_id, result in fact_results.items()})

    def html(language: str) -> Mapping[str, str]:
        if language not in sites:
            with pytest.MonkeyPatch.context() as patch:
                run_each_fact_once(patch)
                pages = build(tmp_path_factory.mktemp(f"mini-site-{language}"), SHARED_PAGES, language,
                              ("tensorcopy_sphinx.claims_ledger",))
            sites[language] = MappingProxyType(pages)
        return sites[language]

    return html


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang, holds, nobody", [("en", "holds", "no page"), ("zh_CN", "成立", "没有页面引用")])
def test_the_facts_page_lists_every_fact_and_who_cites_it(mini_site, lang, holds, nobody):
    html = mini_site(lang)["facts"]
    soup = BeautifulSoup(html, "html.parser")
    entries = {li["id"].removeprefix("fact-"): li for li in soup.select("ul.fact-index > li")}
    assert sorted(entries) == sorted(facts.FACTS)
    assert all(li.select_one("p.fact-id").get_text(strip=True) == fact_id for fact_id, li in entries.items())

    def field(fact_id, kind):
        return entries[fact_id].select_one(f"p.fact-{kind}")

    cited_by = {fact_id: [a.get_text() for a in field(fact_id, "cited").select("a")] for fact_id in entries}
    assert cited_by["leaf-refuses-inplace"] == ["Home", "Matrix"]  # a role on the home page, two on the matrix page
    assert cited_by["deepcopy-grad-by-source"] == ["Guide page", "Home", "Matrix"]  # a matrix guide entry names it
    assert cited_by["detach-write-routes"] == ["Guide page", "Matrix"]  # the matrix page's role in a nested item
    assert field("detach-resize-grow-reallocates", "cited").get_text(strip=True) == nobody
    assert all(field(fact_id, "held").get_text(strip=True) == holds for fact_id in entries)
    scope_text = field("deepcopy-grad-by-source", "scope").get_text()
    assert "meta" in scope_text and "36" in scope_text
    runs = facts.ABOUT["leaf-refuses-inplace"].runs_in(lang)
    assert field("leaf-refuses-inplace", "runs").get_text(strip=True) == runs
    named = [a["href"] for a in field("index-reads-every-kind", "runs").select("a[href^='#']")]
    assert named[:2] == ["#fact-basic-index-read-views", "#fact-advanced-index-read-copies"], named


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang, cited", [("en", "Guide page, Home, Matrix"),
                                         ("zh_CN", "《Guide page》、《Home》、《Matrix》")])
def test_the_pages_citing_a_fact_are_told_apart(mini_site, lang, cited):
    """A Chinese title may end in ？ (我该用哪一种写法？): unquoted, two titles would run into one."""
    soup = BeautifulSoup(mini_site(lang)["facts"], "html.parser")
    assert soup.select_one("li#fact-deepcopy-grad-by-source p.fact-cited").get_text() == cited


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang, start", [("en", "Checked by: "), ("zh_CN", "检查它的事实：")])
def test_the_matrix_page_shows_under_each_note_the_facts_it_cites(mini_site, lang, start):
    """As its guide entries do; the role leaves nothing on another page."""
    html = mini_site(lang)
    soup = BeautifulSoup(html["matrix"], "html.parser")
    lines = soup.select("p.note-checked-by")
    assert [[a["href"] for a in line.select("a")] for line in lines] == [
        ["facts.html#fact-leaf-refuses-inplace", "facts.html#fact-deepcopy-grad-by-source"],
        ["facts.html#fact-detach-write-routes"]]
    assert lines[0].get_text().startswith(start)
    assert lines[0].find_previous_sibling("p").get_text().startswith("a.detach() shares")
    assert lines[1].parent.name == "li" and lines[1].find_previous_sibling("ul")  # the outer item's, after its list
    assert "checked-by" not in html["index"] and "leaf-refuses-inplace" not in html["index"]


#: A colon right after a Chinese character or full-width punctuation.
ASCII_COLON_AFTER_CHINESE = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]:")


def ascii_colons(html: str) -> list[str]:
    """Each ASCII colon of the facts list that follows Chinese text, with the words before it."""
    text = BeautifulSoup(html, "html.parser").select_one("ul.fact-index").get_text()
    return [text[max(m.start() - 8, 0):m.end()] for m in ASCII_COLON_AFTER_CHINESE.finditer(text)]


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_chinese_facts_page_writes_a_full_width_colon_after_each_field_name(mini_site):
    zh = mini_site("zh_CN")["facts"]
    assert ascii_colons(zh) == []
    names = BeautifulSoup(zh, "html.parser").select("ul.fact-index dt")
    assert names and {dt.get_text() for dt in names} == {"本次构建：", "检查的内容：", "范围：", "引用它的页面："}
    en = mini_site("en")["facts"]
    assert {dt.get_text() for dt in BeautifulSoup(en, "html.parser").select("ul.fact-index dt")} == {
        "On this build:", "What it runs:", "Scope:", "Cited by:"}


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_fact_that_fails_fails_the_facts_page(tmp_path, monkeypatch):
    monkeypatch.setitem(facts.FACTS, "broken", lambda: facts.Fact(False, "broken on purpose"))
    monkeypatch.setitem(facts.ABOUT, "broken", fact_registry.About({c: "x" for c in CODES}, fact_registry.ONE_EXAMPLE))
    with pytest.raises(AssertionError, match="fact broken does not hold on this torch: broken on purpose"):
        build(tmp_path, {"index": "# Home\n", "facts": PAGES["facts"]}, "en")


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang, words", [("en", "holds (in the author's meaning only)"),
                                         ("zh_CN", "成立（仅就作者想表达的意思而言）")])
def test_the_ledger_says_in_the_verdict_cell_when_a_verdict_holds_only_in_the_authors_meaning(
        mini_site, lang, words):
    html = mini_site(lang)["ledger"]
    row = BeautifulSoup(html, "html.parser").select_one("tr#claim-004-both-in-place")
    verdict = row.select("td")[1].get_text().replace("\u2019", "'")  # docutils' smart quotes
    assert " ".join(verdict.split()) == words
    other = BeautifulSoup(html, "html.parser").select_one("tr#claim-004-data-shares").select("td")[1]
    assert "(" not in other.get_text() and "（" not in other.get_text()


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", CODES)
def test_the_facts_page_names_the_ledger_under_every_fact_its_claims_checks_run(mini_site, lang):
    """The claims of the ledger rest on the facts their checks run (004-detach-safe runs five): the facts page lists
    the ledger under each of them, and under no other fact."""
    from tensorfacts import articles, verdicts

    with fact_registry.recording_runs() as ran:
        verdicts.run_all([claim for claim in articles.CLAIMS if claim.article == "004"])
    assert "version-counter-shared-by-views-and-detach" in ran, ran
    soup = BeautifulSoup(mini_site(lang)["facts"], "html.parser")
    citing = {li["id"].removeprefix("fact-") for li in soup.select("ul.fact-index > li")
              if any(a["href"].startswith("ledger.html") for a in li.select("p.fact-cited a[href]"))}  # fmt: skip
    assert citing == ran


def test_recording_runs_holds_the_facts_run_inside_it_only():
    fact_registry.run_fact("list-repeat-holds-one-tensor")
    with fact_registry.recording_runs() as ran:
        fact_registry.run_fact("base-names-root-of-view-chain")
    fact_registry.run_fact("list-repeat-holds-one-tensor")
    assert ran == {"base-names-root-of-view-chain"}


#: Facts that an example page states, and the page (its address under the edition) that must cite them.
STATED_ON_EXAMPLE_PAGES = {
    "detach-set-keeps-version-counter": "examples/copying/plot_04_detach.html",
    "detach-resize-grow-reallocates": "examples/copying/plot_04_detach.html",
    "data-setter-checks": "examples/data_vs_detach/plot_03_comparison.html",
    "module-to-meta-gives-new-parameters": "examples/data_vs_detach/plot_03_comparison.html",
}


@pytest.mark.parametrize("lang", CODES)
def test_the_built_facts_page_names_the_example_pages_that_cite_their_facts(site_dir, lang):
    soup = BeautifulSoup((site_dir / lang / "facts.html").read_text(encoding="utf-8"), "html.parser")
    for fact_id, page in STATED_ON_EXAMPLE_PAGES.items():
        links = [a["href"].partition("#")[0] for a in soup.select(f"li#fact-{fact_id} p.fact-cited a[href]")]
        assert page in links, (lang, fact_id, links)
