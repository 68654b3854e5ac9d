"""The built site: every script became a page in every language, showing what that script prints."""

import json
import re

import pytest
import torch

from tests.gallery_tools import (
    LANGS,
    gallery_scripts,
    html_output_blocks,
    page_path,
    parse_html,
    printed_blocks,
    relative_name,
    run_cells,
    script_id,
    split_cells,
)
from tests.site_audit import read_page

SCRIPTS = [script for lang in LANGS for script in gallery_scripts(lang)]
NAMES = sorted({relative_name(script) for script in SCRIPTS})
TITLES_LANG = {"en": "en", "zh_CN": "zh-CN"}


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_page_shows_what_the_script_prints(site_dir, script):
    lang = next(part for part in script.parts if part in LANGS)
    page = page_path(site_dir, lang, relative_name(script))
    assert page.exists(), f"{script_id(script)}: no page {page.relative_to(site_dir)} in the build"
    expected = printed_blocks(run_cells(split_cells(script), str(script)))
    shown = html_output_blocks(page)
    assert shown == expected, f"{page.relative_to(site_dir)} does not show what {script.name} prints"


@pytest.mark.parametrize("name", NAMES)
def test_editions_show_identical_outputs(site_dir, name):
    reference, *others = LANGS
    ours = html_output_blocks(page_path(site_dir, reference, name))
    assert ours, f"{reference}/{name}: the page shows no output"
    for lang in others:
        theirs = html_output_blocks(page_path(site_dir, lang, name))
        assert theirs == ours, f"{lang}/{name} shows other outputs than {reference}/{name}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_declares_its_language_and_alternates(site_dir, lang):
    pages = sorted((site_dir / lang).rglob("*.html"))
    assert pages
    for page in pages:
        soup = read_page(page)
        where = page.relative_to(site_dir)
        assert soup.html.get("lang") == TITLES_LANG[lang], f"{where}: wrong <html lang>"
        alternates = {link["hreflang"] for link in soup.select('link[rel="alternate"][hreflang]')}
        assert alternates == {*TITLES_LANG.values(), "x-default"}, f"{where}: hreflang {alternates}"


def test_each_edition_has_its_own_title(site_dir):
    titles = {lang: parse_html(site_dir / lang / "index.html").title.get_text() for lang in LANGS}
    assert len(set(titles.values())) == len(LANGS), titles
    assert re.search(r"[\u4e00-\u9fff]", titles["zh_CN"]), titles


def test_landing_page_links_every_edition(site_dir):
    links = {a["href"] for a in parse_html(site_dir / "index.html").select("a[href]")}
    for lang in LANGS:
        assert f"{lang}/index.html" in links
        assert (site_dir / lang / "index.html").exists()


ENGLISH_CHROME = re.compile(
    r"Go to the end|Download Python source|Download Jupyter|Download zipped|Gallery generated|"
    r"Total running time|>\s*Next\s*<|>\s*Previous\s*<"
)


def test_chinese_pages_have_no_english_chrome(site_dir):
    for page in sorted((site_dir / "zh_CN").rglob("*.html")):
        found = ENGLISH_CHROME.search(page.read_text(encoding="utf-8"))
        assert not found, f"{page.relative_to(site_dir)} shows {found.group(0)!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_downloads_are_in_the_page_language(site_dir, lang):
    for script in gallery_scripts(lang):
        py = list((site_dir / lang / "_downloads").rglob(script.name))
        assert py, f"{script_id(script)}: no .py download"
        assert py[0].read_bytes() == script.read_bytes(), f"{script_id(script)}: wrong .py download"
        notebook = list((site_dir / lang / "_downloads").rglob(script.with_suffix(".ipynb").name))
        assert notebook, f"{script_id(script)}: no .ipynb download"
        docstring = script.read_text(encoding="utf-8").split('"""')[1]
        title = docstring.strip().splitlines()[2].strip()  # label, blank line, then the title
        cells = json.loads(notebook[0].read_text(encoding="utf-8"))["cells"]
        assert any(title in "".join(cell["source"]) for cell in cells), (
            f"{script_id(script)}: the notebook does not carry the page's title {title!r}"
        )


@pytest.mark.parametrize("lang", LANGS)
def test_about_page_names_the_running_versions(site_dir, lang):
    import platform

    text = parse_html(site_dir / lang / "about.html").get_text()
    assert torch.__version__ in text, f"{lang}/about.html does not name torch {torch.__version__}"
    assert platform.python_version() in text, f"{lang}/about.html does not name the Python version"


def test_chinese_search_index_holds_chinese_words(site_dir):
    text = (site_dir / "zh_CN" / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(text[text.index("(") + 1 : text.rindex(")")])["terms"]
    for word in ("张量", "克隆", "梯度"):
        assert word in terms, f"zh_CN/searchindex.js lacks {word!r}"
