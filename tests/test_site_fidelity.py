"""The pages show what their own code prints, and a rebuild shows the same.

Fidelity does not trust sphinx-gallery: each page must show exactly the visible code of its source (the hidden
blocks left out, as in the notebook a reader downloads), and that code, run again cell by cell in a fresh namespace
with warnings as errors, must print, cell by cell, the output block the page shows right after that cell. The
page's blocks are what the whole script printed in the build (hidden blocks included), so this also shows that
the hidden blocks print nothing and that the visible code runs alone. It is run on one edition's pages: the build
refuses editions whose pages print differently (``verify_examples`` in sitetools/building/pipeline.py), so the
other edition shows the same blocks.

Every build runs each page twice already (once per edition, in separate processes) and refuses output
that differs between the two; here a run at test time, later and in another process, prints the same
again. What a second build adds, byte-identical files (pages, search index, downloads, figures), is
checked on two previews of the same examples built side by side.
"""

import difflib
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from sitetools.rules.checks_manifest import visible_cells
from tests.gallery_tools import (
    EXAMPLES_DIR,
    LANGS,
    ROOT,
    build_site,
    gallery_scripts,
    html_cells_with_outputs,
    html_code_cells,
    html_output_blocks,
    normalise,
    page_path,
    relative_name,
    run_cells,
    script_id,
    side_by_side,
)
from tests.site_audit import html_pages

SCRIPTS = [script for lang in LANGS for script in gallery_scripts(lang)]
#: The edition whose pages' code is run again (the last: its pages carry non-ASCII text around the code).
RUN_LANG = LANGS[-1]


def html_pages_of_examples(site: Path, lang: str) -> list[Path]:
    """The example pages of one edition, as built."""
    return sorted((site / lang / EXAMPLES_DIR).rglob("plot_*.html"))


def _lang(script: Path) -> str:
    return next(part for part in script.parts if part in LANGS)


def _diff(shown: str | None, printed: str | None) -> str:
    lines = difflib.unified_diff(
        (shown or "").splitlines(), (printed or "").splitlines(), "page shows", "code prints", lineterm=""
    )
    return "\n".join(lines)


def unfaithful_cells(page: Path, where: str, code: list[str] | None = None) -> list[str]:
    """Run ``code`` (the code cells of a source, hidden blocks left out; by default the code cells read from the
    built page) and describe every cell whose output differs from the block the page shows after it. A cell of
    ``code`` that is empty (all of it hidden) shows no code on the page and must print nothing."""
    cells = html_cells_with_outputs(page)
    assert cells, f"{where} shows no code"
    assert any(shown for _, shown in cells), f"{where} shows no output"
    code = [shown_code for shown_code, _ in cells] if code is None else code
    printed = run_cells(code, filename=where)
    problems = [f"{where}, code cell {number}: a cell the page does not show printed\n{out}"
                for number, (cell, out) in enumerate(zip(code, printed, strict=True), start=1)
                if not cell.strip() and out.strip()]
    printed = [out for cell, out in zip(code, printed, strict=True) if cell.strip()]
    if len(printed) != len(cells):
        return problems + [f"{where}: the page shows {len(cells)} code cells, the code has {len(printed)}"]
    for number, ((_code, shown), out) in enumerate(zip(cells, printed, strict=True), start=1):
        out = normalise(out) or None
        if out != shown:
            problems.append(f"{where}, code cell {number}: the page shows other output than its code prints\n"
                            + _diff(shown, out))  # fmt: skip
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_the_folded_helpers_are_highlighted_without_links_while_the_page_code_keeps_its_links(site_dir, lang):
    """The drawing helpers skip sphinx-gallery's code links (a cost of the build, no use to a reader);
    the page's own code still links ``torch.tensor`` and the like to PyTorch's documentation."""
    problems, linked = [], 0
    for page in html_pages_of_examples(site_dir, lang):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        where = page.relative_to(site_dir).as_posix()
        for block in soup.select("details.tc-helpers div[class^=highlight-]"):
            if block.select("a") or not block.select("span.k"):
                problems.append(f"{where}: the folded helpers carry links or no highlighting")
        linked += bool(soup.select("div.highlight-Python a.sphx-glr-backref-module-torch"))
    assert not problems, "\n".join(problems)
    assert linked >= len(html_pages_of_examples(site_dir, lang)) * 9 // 10, f"{lang}: {linked} pages link code"


@pytest.mark.parametrize("script", gallery_scripts(RUN_LANG), ids=script_id)
def test_the_page_shows_its_visible_code_which_prints_what_the_page_shows(site_dir, script):
    page = page_path(site_dir, _lang(script), relative_name(script))
    where = page.relative_to(site_dir).as_posix()
    assert page.is_file(), f"{where} was not built"
    source, visible = script.relative_to(ROOT).as_posix(), visible_cells(script)
    problems = unfaithful_cells(page, source, visible)
    if [normalise(code) for code in html_code_cells(page)] != [normalise(cell) for cell in visible if cell.strip()]:
        problems.insert(0, f"{where} shows other code than the visible code of {source}")
    assert not problems, "\n".join(problems)


def test_the_fidelity_check_notices_a_doctored_page(site_dir, tmp_path):
    """Change one printed value in a copy of a built page, and drop another output block: both
    cells must be reported."""
    script = SCRIPTS[0]
    page = page_path(site_dir, _lang(script), relative_name(script))
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    outputs = soup.select("div.sphx-glr-script-out")
    assert len(outputs) >= 2, f"{page} has fewer than two output blocks to doctor"
    first = outputs[0].pre
    first.string = first.get_text() + "a line no code printed\n"
    outputs[-1].decompose()
    doctored = tmp_path / page.name
    doctored.write_text(str(soup), encoding="utf-8")
    problems = unfaithful_cells(doctored, doctored.name)
    assert len(problems) == 2, problems
    assert "+a line no code printed" not in problems[0] and "-a line no code printed" in problems[0], problems[0]


@pytest.mark.parametrize("lang", LANGS)
def test_every_script_has_exactly_one_page(site_dir, lang):
    built = {p.relative_to(site_dir / lang / EXAMPLES_DIR).with_suffix("").as_posix()
             for p in html_pages_of_examples(site_dir, lang)}  # fmt: skip
    expected = {relative_name(script) for script in gallery_scripts(lang)}
    assert built == expected, (
        f"{lang}: pages without script {built - expected}; scripts without page {expected - built}"
    )


# --- Reproducibility: a second build, from the same sources, shows the same ----------------------

#: Files that may differ between two builds: Sphinx's build hash and zip archives (file times).
UNSTABLE = {".buildinfo", ".zip"}
#: The examples built twice: one with a figure, one question page.
TWICE = ("copying/plot_04_detach", "questions/plot_06_same_object")


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory) -> tuple[Path, Path]:
    """Two previews of the same examples, built side by side from the same sources."""
    folders = [tmp_path_factory.mktemp(f"build-{number}") for number in (1, 2)]
    only = [arg for name in TWICE for arg in ("--only", name)]
    results = side_by_side({folder: (folder / "html", folder / "stage", *only) for folder in folders}, build_site)
    failed = [f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}" for result in results.values() if result.returncode]
    if failed:
        pytest.fail("a preview of " + ", ".join(TWICE) + " failed:\n" + "\n".join(failed), pytrace=False)
    return folders[0] / "html", folders[1] / "html"


def changed_outputs(first_site: Path, second_site: Path, lang: str) -> list[str]:
    """Every example page of ``lang`` whose output blocks differ between two builds."""
    first = html_pages_of_examples(first_site, lang)
    assert first, f"no example pages in {lang}/"
    problems = []
    for page in first:
        name = page.relative_to(first_site).as_posix()
        again = second_site / name
        if not again.is_file():
            problems.append(f"the second build has no {name}")
            continue
        ours, theirs = html_output_blocks(page), html_output_blocks(again)
        if len(ours) != len(theirs):
            problems.append(f"{name}: {len(ours)} output blocks, then {len(theirs)}")
        for number, (a, b) in enumerate(zip(ours, theirs, strict=False), start=1):
            if a != b:
                problems.append(f"{name}, output block {number} changed between two builds\n" + _diff(a, b))
    return problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", LANGS)
def test_a_rebuild_shows_identical_output_blocks(two_builds, lang):
    problems = changed_outputs(*two_builds, lang)
    assert not problems, "\n".join(problems)
    assert len(html_pages_of_examples(two_builds[0], lang)) == len(TWICE)


def test_the_rebuild_check_notices_a_changed_output(site_dir, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site_dir / LANGS[0], copy / LANGS[0])
    page = html_pages_of_examples(copy, LANGS[0])[0]
    html = page.read_text(encoding="utf-8")
    marker = '<div class="sphx-glr-script-out'
    start = html.index(">", html.index("<pre", html.index(marker))) + 1
    page.write_text(html[:start] + "run-dependent 0x7f3a\n" + html[start:], encoding="utf-8")
    problems = changed_outputs(site_dir, copy, LANGS[0])
    assert len(problems) == 1 and "output block 1 changed" in problems[0], problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_rebuild_writes_byte_identical_files(two_builds):
    """Stronger than the outputs alone: every page, search index, download and figure is the same file."""
    first, second = two_builds

    def files(root):
        return {
            p.relative_to(root).as_posix()
            for p in root.rglob("*")
            if p.is_file() and p.suffix not in UNSTABLE and p.name not in UNSTABLE
        }

    ours, theirs = files(first), files(second)
    assert ours == theirs, f"files only in one build: {sorted(ours ^ theirs)}"
    changed = [name for name in sorted(ours) if (first / name).read_bytes() != (second / name).read_bytes()]
    assert not changed, f"{len(changed)} files differ between two builds: {changed}"
    assert len(html_pages(first)) > len(LANGS)
    assert any(name.endswith(".png") for name in ours), "the two builds drew no figure to compare"
