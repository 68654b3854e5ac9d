"""The page rules (sitetools/rules/all_rules.py) hold for every source, and each rule fires on a page that
breaks it. The build runs the same rules before it builds anything."""

import re
import shutil
from pathlib import Path

import pytest

from sitetools.rules import all_rules
from sitetools.rules import sources as pages
from tests.gallery_tools import ROOT, gallery_scripts, run_script, split_cells


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_every_source_follows_the_page_rules():
    problems = all_rules.check_sources()
    assert not problems, "\n".join(problems)


@pytest.fixture
def sources(tmp_path) -> Path:
    """A copy of gallery/ and docs/ (only what the rules read) to break."""
    for name in ("gallery", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "_*"))
    shutil.copytree(ROOT / "docs" / "_locale", tmp_path / "docs" / "_locale")  # the catalogs of check messages
    return tmp_path


def _both(sources: Path, name: str) -> list[Path]:
    return [sources / "gallery" / lang / name for lang in ("en", "zh_CN")]


def _append(script: Path, code: str) -> None:
    with script.open("a", encoding="utf-8") as handle:
        handle.write(f"\n\n# %%\n# Injected by tests/test_page_rules.py.\n\n{code}\n")


FIRST = gallery_scripts("en")[0].relative_to(ROOT / "gallery" / "en").as_posix()


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_copy_follows_the_rules(sources):
    """The control for every fault below."""
    assert all_rules.check_sources(root=sources) == []


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_page_in_one_language_only_is_named(sources):
    shutil.copy2(sources / "gallery" / "en" / FIRST, sources / "gallery" / "en" / "copying" / "plot_99_lonely.py")
    (sources / "docs" / "zh_CN" / "only_here.md").write_text("# 只有中文\n", encoding="utf-8")
    problems = "\n".join(all_rules.check_sources(root=sources))
    assert "gallery/zh_CN/copying/plot_99_lonely.py is missing" in problems, problems
    assert "docs/zh_CN/only_here.md has no en twin" in problems, problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_code_cell_changed_in_one_language_is_named(sources):
    script = sources / "gallery" / "zh_CN" / FIRST
    first_cell = split_cells(script)[0].rstrip("\n")
    text = script.read_text(encoding="utf-8")
    script.write_text(text.replace(first_cell, first_cell + "\nonly_in_chinese = 1", 1), encoding="utf-8")
    problems = "\n".join(all_rules.check_sources(root=sources))
    assert f"gallery/zh_CN/{FIRST}: code cell 1 differs" in problems and "only_in_chinese" in problems, problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_number_changed_in_one_language_is_named(sources):
    script = sources / "gallery" / "zh_CN" / FIRST
    text = script.read_text(encoding="utf-8")
    script.write_text(text.replace("1.0", "1.5", 1), encoding="utf-8")
    assert "1.5" in script.read_text(encoding="utf-8"), "no literal 1.0 to change"
    assert any("differs" in p for p in all_rules.check_sources(root=sources))


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_hidden_marker_read_as_text_or_lost_in_one_edition_is_named(sources):
    """Two faults the code-cell comparison cannot see (markers are comments): a start marker right under a
    text cell's comment lines, which sphinx-gallery reads as text (its end marker then unmatched), and a
    marker lost in one edition only."""
    english, chinese = _both(sources, FIRST)
    hidden = "# sphinx_gallery_start_ignore\nassert x_hidden == 1, 'x_hidden is 1'\n# sphinx_gallery_end_ignore\n"
    for script in (english, chinese):
        with script.open("a", encoding="utf-8") as handle:
            handle.write(f"\n\nx_hidden = 1\n\n# %%\n# A text cell right above a hidden block.\n{hidden}")
    problems = "\n".join(all_rules.check_sources(root=sources, manifest=False))
    marker_line = len(english.read_text(encoding="utf-8").splitlines()) - 2  # the start marker
    assert f"gallery/en/{FIRST}:{marker_line}: a hidden-block marker inside a text cell" in problems, problems
    assert f"{FIRST}:{marker_line + 1}: the code cell starting here has 0 start and 1 end markers" in problems, problems
    for script in (english, chinese):  # end the text cell: both editions are right again
        text = script.read_text(encoding="utf-8")
        script.write_text(text.replace("block.\n# sphinx", "block.\n\n# sphinx"), encoding="utf-8")
    assert all_rules.check_sources(root=sources, manifest=False) == []
    start = "# sphinx_gallery_start_ignore\n"
    text = chinese.read_text(encoding="utf-8").replace(f"{start}assert x_hidden", "assert x_hidden")
    chinese.write_text(text, encoding="utf-8")
    problems = "\n".join(all_rules.check_sources(root=sources, manifest=False))
    assert f"gallery/zh_CN/{FIRST}: code cell" in problems and "hides other lines than" in problems, problems
    assert f"zh_CN/{FIRST}:" in problems and "has 0 start and 1 end markers" in problems, problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_doctest_changed_in_one_language_is_named(sources):
    page = sources / "docs" / "zh_CN" / "quickref.md"
    page.write_text(page.read_text(encoding="utf-8").replace(">>> ", ">>>  ", 1), encoding="utf-8")
    assert any("docs/zh_CN/quickref.md: doctest blocks differ" in p for p in all_rules.check_sources(root=sources))


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_script_not_named_plot_and_a_folder_without_header_are_named(sources):
    for script in _both(sources, FIRST):
        shutil.copy2(script, script.with_name("helper.py"))
        (script.parents[1] / "extra").mkdir()
        shutil.copy2(script, script.parents[1] / "extra" / "plot_x.py")
    problems = "\n".join(all_rules.check_sources(root=sources))
    assert "gallery/en/copying/helper.py: not named plot_*.py" in problems, problems
    assert "gallery/zh_CN/extra/GALLERY_HEADER.rst is missing" in problems, problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ('print("same storage: False")', "print() of literals only"),
        ('print("a", 1, f"b")', "print() of literals only"),
        ('print("address:", a.data_ptr())', "prints data_ptr()"),
        ('print(f"{id(a)}")', "prints id()"),
        ('import time\nprint("took:", time.time())', "prints time()"),
        ('print("same storage:", not same_storage(a, a.data))', "says the storage is shared"),
        ("z = a.clone()\n# sphinx_gallery_start_ignore\nz.zero_()\n# sphinx_gallery_end_ignore\nprint(z)",
         "calls the in-place method zero_()"),
        ("# sphinx_gallery_start_ignore\nprint(a)\n# sphinx_gallery_end_ignore", "prints"),
        ("# sphinx_gallery_start_ignore\nhidden = 2\n# sphinx_gallery_end_ignore\nprint(a * hidden)", "binds hidden"),
        ("z = a.clone()\n# sphinx_gallery_start_ignore\nz[0] = 5\n# sphinx_gallery_end_ignore\nprint(z)",
         "assigns to an attribute or an element"),
    ],
    ids=["literal", "literals", "data_ptr", "id", "time", "label", "hidden-inplace", "hidden-print", "hidden-binds",
         "hidden-setitem"],
)
def test_a_code_rule_fires_and_names_the_script(sources, code, expected):
    for script in _both(sources, FIRST):
        _append(script, code)
    # the rules of single scripts read the one named (the copy is clean: test_the_copy_follows_the_rules)
    problems = [p for p in all_rules.check_sources(root=sources, only=[FIRST.removesuffix(".py")]) if expected in p]
    assert {p.split(":")[0] for p in problems} == {f"gallery/{lang}/{FIRST}" for lang in ("en", "zh_CN")}, problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize(
    ("where", "text", "expected"),
    [
        ("gallery", "\n# 这里就地修改张量。\n", "'就地' outside a quotation"),
        ("docs", "\n这是原位操作。\n", "'原位操作' outside a quotation"),
        ("gallery", "\n# 。 它\n", "a space next to full-width punctuation"),
    ],
    ids=["term-in-script", "term-in-narrative-page", "typography"],
)
def test_the_wording_and_typography_rules_run_with_the_page_rules_and_name_the_guide(sources, where, text, expected):
    page = sources / "gallery" / "zh_CN" / FIRST if where == "gallery" else sources / "docs" / "zh_CN" / "index.md"
    page.write_text(page.read_text(encoding="utf-8").rstrip("\n") + text, encoding="utf-8")
    problems = [p for p in all_rules.check_sources(root=sources) if expected in p]
    assert problems, f"no problem says {expected!r}"
    assert all("(see CONTRIBUTING.md, 'Typography'" in p for p in problems), problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize(
    ("lang", "old", "new", "expected"),
    [
        ("zh_CN", "原博文与 torch |torch_version| 对照", "原文与 torch |torch_version| 对照",
         "'原文与 torch |torch_version| 对照' must be titled '原博文与 torch |torch_version| 对照' "),
        ("zh_CN", "原博文与 torch |torch_version| 对照\n#    :class: warning",
         "原博文与 torch |torch_version| 对照", "needs `:class: warning`"),
        ("zh_CN", "原博文与 torch |torch_version| 对照", "原博文勘误（torch |torch_version| 实测）",
         "'原博文勘误（torch |torch_version| 实测）' must be titled '原博文与 torch |torch_version| 对照' "),
        ("en", "The article vs. torch |torch_version|", "The post vs. torch |torch_version|",
         "'The post vs. torch |torch_version|' must be titled 'The article vs. torch |torch_version|'"),
    ],
    ids=["zh-old-title", "zh-no-class", "zh-errata-title", "en-other-title"],
)
def test_an_article_box_of_another_title_or_class_is_named(sources, lang, old, new, expected):
    script = sources / "gallery" / lang / "copying" / "plot_01_alias_and_data.py"
    text = script.read_text(encoding="utf-8")
    assert f"# .. admonition:: {old}" in text, "the page has no such box to break"
    script.write_text(text.replace(f"# .. admonition:: {old}", f"# .. admonition:: {new}", 1), encoding="utf-8")
    problems = [p for p in all_rules.check_sources([lang], root=sources, manifest=False) if expected in p]
    assert [p.split(":")[0] for p in problems] == [f"gallery/{lang}/copying/plot_01_alias_and_data.py"], problems
    assert all("(see CONTRIBUTING.md, 'Page structure')" in p for p in problems), problems


def test_compared_addresses_and_hidden_checks_are_allowed(sources):
    code = ('print("same:", a.data_ptr() == a.data.data_ptr())\n# sphinx_gallery_start_ignore\n'
            "assert a.data_ptr() == a.data.data_ptr()\n# sphinx_gallery_end_ignore")  # fmt: skip
    for script in _both(sources, FIRST):
        _append(script, code)
        assert pages.check_script(script, root=sources) == []


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_template_page_follows_every_rule_and_runs(sources):
    from sitetools.authoring import new_page

    written = new_page.create("questions/plot_01_template_check", gallery=sources / "gallery")
    scripts = [p for p in written if p.suffix == ".py"]
    assert len(scripts) == len(pages.CODES), written
    # a new page records its checks and translates their messages later (a preview runs it before)
    problems = [p for p in all_rules.check_sources(root=sources)
                if "manifest does not record" not in p and "has no translation" not in p]  # fmt: skip
    assert problems == [], problems
    assert run_script(scripts[0]).strip(), "the template printed nothing"


def test_the_template_page_draws_with_the_helper_cell_unchanged(sources):
    from sitetools.authoring import new_page
    from tests.test_figures import DRAWERS, helper_problems

    script = new_page.create("questions/plot_01_template_check", gallery=sources / "gallery")[-1]
    cells = split_cells(script)
    assert any(drawer in cell for cell in cells for drawer in DRAWERS), "the template page draws nothing"
    assert helper_problems(cells) == []
    assert "helper cell starts" not in script.read_text(encoding="utf-8")


def test_new_page_never_overwrites(sources):
    from sitetools.authoring import new_page

    with pytest.raises(FileExistsError):
        new_page.create(FIRST.removesuffix(".py"), gallery=sources / "gallery")
    with pytest.raises(ValueError, match="PART/plot_NN_short_name"):
        new_page.create("no-part", gallery=sources / "gallery")


#: A refusal's pointer to the writing guide: ``guide('Printing')``, ``(see CONTRIBUTING.md, 'Printing')``
#: or, in a Sphinx warning, ``(see CONTRIBUTING.md, Figures)``.
GUIDE_POINTER = re.compile(r"""\bguide\(["']([^"']+)["']\)|CONTRIBUTING\.md, (?:'([^']+)'|([A-Z][\w ]*)\))""")


def guide_sections(root: Path = ROOT) -> set[str]:
    """Every section of CONTRIBUTING.md that a refusal message of the project's code names."""
    sources = [path for folder in ("sitetools", "docs/_ext", "tensorfacts") for path in (root / folder).rglob("*.py")]
    found = {next(filter(None, match.groups())) for path in sources
             for match in GUIDE_POINTER.finditer(path.read_text(encoding="utf-8"))}  # fmt: skip
    return {name for name in found if "{" not in name}  # but the pointer's own template, sources.guide


def test_every_section_a_refusal_names_is_a_section_of_the_writing_guide():
    sections = guide_sections()
    assert {"Printing", "Typography", "Figures", "Pages in every edition"} <= sections, sections
    headings = set(re.findall(r"^## (.+?)\s*$", (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"), re.M))
    assert sorted(sections - headings) == [], "refusals name sections CONTRIBUTING.md does not have"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_preview_of_some_pages_reads_those_scripts_and_the_full_check_reads_every_one(sources):
    """What a preview of some pages (``--only``) gives up: the rules of one script at a time skip the pages it
    does not build. A code cell changed in one edition (parity), a check the manifest does not record and whose
    message has no translation, and a print that literals decide, all in the second page, are named when that
    page is chosen or when nothing is, never otherwise."""
    first, second = (script.relative_to(ROOT / "gallery" / "en").with_suffix("").as_posix()
                     for script in gallery_scripts("en")[:2])  # fmt: skip
    code = 'import torch\nprint(torch.tensor(False).item())\nassert torch.ones(1).sum() == 1, "injected"'
    en, zh = _both(sources, f"{second}.py")
    _append(en, code)
    _append(zh, code + "\nonly_in_chinese = 1")
    assert all_rules.check_sources(root=sources, only=[first]) == []
    for only in ([second], None):
        problems = "\n".join(all_rules.check_sources(root=sources, only=only))
        for expected in (f"gallery/zh_CN/{second}.py: code cell", "torch.ones(1).sum() == 1", "message 'injected'",
                         "prints `torch.tensor(False).item()`"):  # fmt: skip
            assert expected in problems, (only, expected, problems)
