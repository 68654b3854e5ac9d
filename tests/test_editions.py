"""One table of editions (editions/__init__.py): every part of the site reads its languages there.

A throw-away third edition ("fr") is added to the table for a test; the configuration, the language
switch and the CJK-dependent extensions pick it up, and every translated-string lookup either uses
texts provided for it or fails with a message naming what is missing. No site build is needed.
"""

import importlib.util
import re
from types import SimpleNamespace

import pytest
from docutils import nodes
from sphinx.errors import ExtensionError

import editions
from tensorfacts import articles
from tensorfacts import matrix as mp
from tests.claims_tools import (
    ROOT,
    behaviour_matrix,
    cjk_linebreaks,
    claims_ledger,
    gallery_i18n,
    language_switch,
    zh_search,
)

FRENCH = editions.Edition(code="fr", sphinx_language="fr", tag="fr", name="Français", noun="French",
                          title="Copies de tenseurs")


def shared_conf():
    """docs/_shared/conf.py, loaded as a module of its own."""
    spec = importlib.util.spec_from_file_location("shared_conf_under_test", ROOT / "docs" / "_shared" / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def french(monkeypatch):
    monkeypatch.setattr(editions, "EDITIONS", (*editions.EDITIONS, FRENCH))
    monkeypatch.setattr(editions, "CODES", (*editions.CODES, "fr"))
    return FRENCH


def fake_app(language: str, page: str = "examples/index.html") -> SimpleNamespace:
    return SimpleNamespace(config=SimpleNamespace(language=language),
                           builder=SimpleNamespace(get_target_uri=lambda name: page, format="html"))


def switch_links(language: str) -> dict:
    context = {"pathto": lambda target, resource: "../"}
    language_switch._page_context(fake_app(language), "examples/index", "page.html", context, None)
    return context


# --- The table as it is -------------------------------------------------------------------------


def test_the_table_lists_the_two_editions():
    assert editions.CODES == ("en", "zh_CN")
    assert [row.tag for row in editions.EDITIONS] == ["en", "zh-CN"]
    assert [row.cjk for row in editions.EDITIONS] == [False, True]
    for row in editions.EDITIONS:
        assert (ROOT / "docs" / row.code / "conf.py").exists() and (ROOT / "gallery" / row.code).is_dir()
        if row.search_dict:
            assert (ROOT / row.search_dict).exists()


@pytest.mark.parametrize("code", editions.CODES)
def test_no_edition_builds_an_empty_general_index(code):
    assert shared_conf().configure(code)["html_use_index"] is False


@pytest.mark.parametrize("code", editions.CODES)
def test_configure_reads_the_row(code):
    settings = shared_conf().configure(code)
    row = editions.edition(code)
    assert settings["project"] == settings["html_title"] == row.title
    assert settings["language"] == row.sphinx_language
    assert settings["html_search_options"] == row.search_options
    assert settings["sphinx_gallery_conf"]["examples_dirs"] == [str(ROOT / "gallery" / code)]
    extensions = [name for name in settings["extensions"] if name.startswith("tensorcopy_sphinx.")]
    package = ROOT / "docs" / "_ext" / "tensorcopy_sphinx"
    with_setup = {f"tensorcopy_sphinx.{path.stem}" for path in package.glob("*.py")
                  if "\ndef setup(" in path.read_text(encoding="utf-8")}
    assert sorted(extensions) == sorted(with_setup), "every local extension is loaded, and only those"
    for name in [*extensions, settings["sphinx_gallery_conf"]["reset_modules"][0].rpartition(".")[0]]:
        importlib.import_module(name)


def test_the_edition_conf_files_are_three_lines_of_glue():
    for code in editions.CODES:
        text = (ROOT / "docs" / code / "conf.py").read_text(encoding="utf-8")
        assert f'globals().update(configure("{code}"))' in text


@pytest.mark.parametrize("code", editions.CODES)
def test_language_switch_lists_every_edition(code):
    context = switch_links(code)
    links = context["language_links"]
    assert [(link["edition"], link["tag"], link["name"]) for link in links] == [
        (row.code, row.tag, row.name) for row in editions.EDITIONS]
    assert [link["edition"] for link in links if link["current"]] == [code]
    for row in editions.EDITIONS:
        assert f'hreflang="{row.tag}" href="../../{row.code}/examples/index.html"' in context["metatags"]


def test_unknown_language_fails_loudly():
    with pytest.raises(editions.UnknownEdition, match="'xx'"):
        shared_conf().configure("xx")
    with pytest.raises(editions.UnknownEdition, match="'xx'"):
        switch_links("xx")
    with pytest.raises(editions.UnknownEdition):
        cjk_linebreaks._doctree_read(fake_app("xx"), nodes.document(None, None))


def test_no_part_guesses_the_language_from_its_name():
    """Languages are rows of the table: no code compares a language with "zh_CN" or "zh"."""
    guessed = re.compile(r'startswith\("zh|== "zh_CN"|== "en"|"zh_CN" if |language == "')
    sources = [*(ROOT / "docs" / "_ext").rglob("*.py"), *(ROOT / "tensorfacts").rglob("*.py"),
               ROOT / "docs" / "_shared" / "conf.py"]
    offenders = [f"{p.relative_to(ROOT)}:{n}" for p in sources
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if guessed.search(line)]
    assert not offenders


# --- A third edition ----------------------------------------------------------------------------


def test_a_third_edition_is_configured_from_its_row(french):
    settings = shared_conf().configure("fr")
    assert settings["project"] == settings["html_title"] == "Copies de tenseurs"
    assert settings["language"] == "fr"
    assert settings["html_search_options"] == {}
    assert settings["sphinx_gallery_conf"]["examples_dirs"] == [str(ROOT / "gallery" / "fr")]


def test_a_third_edition_is_in_the_language_switch(french):
    context = switch_links("fr")
    assert [(link["edition"], link["tag"]) for link in context["language_links"]] == [
        ("en", "en"), ("zh_CN", "zh-CN"), ("fr", "fr")]
    assert [link["name"] for link in context["language_links"] if link["current"]] == ["Français"]
    assert 'hreflang="fr" href="../../fr/examples/index.html"' in context["metatags"]
    english = switch_links("en")
    assert any(link["edition"] == "fr" for link in english["language_links"])


def test_a_third_edition_follows_its_cjk_flag(french, monkeypatch):
    document = nodes.document(None, None)
    document += nodes.paragraph("", "", nodes.Text("计算\n图"))
    cjk_linebreaks._doctree_read(fake_app("fr"), document)
    assert document.astext() == "计算\n图", "fr is not marked cjk: its line breaks stay"
    zh_search._require_jieba(fake_app("fr"))  # returns before looking for jieba
    monkeypatch.setattr(editions, "EDITIONS", (*editions.EDITIONS[:2], editions.dataclasses.replace(FRENCH, cjk=True)))
    cjk_linebreaks._doctree_read(fake_app("fr"), document)
    assert document.astext() == "计算图", "marked cjk, it is joined like Chinese"


@pytest.mark.parametrize("lookup, missing", [
    (lambda: claims_ledger.words("fr"), "claims ledger's words"),
    (lambda: behaviour_matrix.words("fr"), "behaviour matrix's words"),
    (lambda: articles.CLAIMS[0].text("fr"), f"claim {articles.CLAIMS[0].id}"),
    (lambda: mp.GUIDE[0].text("fr"), f"guide entry {mp.GUIDE[0].id}"),
    (lambda: claims_ledger.build_table([], "fr", "ledger", name_article=True), "claims ledger's words"),
], ids=["ledger words", "matrix words", "claim text", "guide text", "ledger table"])
def test_a_third_edition_without_texts_fails_naming_what_is_missing(french, lookup, missing):
    with pytest.raises(editions.UnknownEdition, match=re.escape(missing) + ".* no fr text"):
        lookup()


def test_a_third_edition_without_gallery_translations_fails_the_build(french):
    with pytest.raises(ExtensionError, match="gallery_i18n.TRANSLATIONS.* no fr text"):
        gallery_i18n._check_edition(fake_app("fr"))


def test_a_third_edition_with_texts_uses_them(french, monkeypatch):
    monkeypatch.setitem(claims_ledger.WORDS, "fr", {**claims_ledger.WORDS["en"], "claim": "Affirmation"})
    monkeypatch.setitem(behaviour_matrix.WORDS, "fr", {**behaviour_matrix.WORDS["en"], True: "oui"})
    monkeypatch.setitem(gallery_i18n.TRANSLATIONS, "fr", [])
    assert claims_ledger.words("fr")["claim"] == "Affirmation"
    assert behaviour_matrix.words("fr")[True] == "oui"
    assert gallery_i18n.translate("fr", "examples/x", "Go to the end") == "Go to the end"
    assert editions.pick({"en": "a", "fr": "b"}, "fr", "a test string") == "b"


@pytest.mark.parametrize("code", editions.CODES)
def test_every_page_is_one_sphinx_gallery_runs(code):
    """sphinx-gallery executes only the scripts whose path matches ``filename_pattern``; the others are
    published as they are, without output and without their checks having run."""
    from sitetools.rules import sources as pages

    pattern = shared_conf().configure(code)["sphinx_gallery_conf"]["filename_pattern"]
    scripts = pages.gallery_scripts(code)
    assert len(scripts) > 20
    skipped = [str(s) for s in scripts if not re.search(pattern, str(s))]
    assert not skipped, f"{code}: filename_pattern {pattern!r} would publish these without running them: {skipped}"
