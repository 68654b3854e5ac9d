"""The language editions hold the same pages and run the same code, cell for cell."""

import re

import pytest

from tests.gallery_tools import GALLERY, LANGS, ROOT, blocks, code_tokens, relative_name

REFERENCE, *OTHERS = LANGS
DOCS = ROOT / "docs"


def _names(lang: str, pattern: str) -> set[str]:
    base = GALLERY / lang
    return {path.relative_to(base).as_posix() for path in base.rglob(pattern)}


def _pages(lang: str) -> set[str]:
    return {path.name for path in (DOCS / lang).glob("*.md")}


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("pattern", ["plot_*.py", "GALLERY_HEADER.rst"])
def test_same_gallery_files(lang, pattern):
    ours, theirs = _names(REFERENCE, pattern), _names(lang, pattern)
    assert ours == theirs, (
        f"gallery files differ: only in gallery/{REFERENCE}/: {sorted(ours - theirs)}; "
        f"only in gallery/{lang}/: {sorted(theirs - ours)}"
    )


@pytest.mark.parametrize("lang", OTHERS)
def test_same_narrative_pages(lang):
    ours, theirs = _pages(REFERENCE), _pages(lang)
    assert ours == theirs, (
        f"pages differ: only in docs/{REFERENCE}/: {sorted(ours - theirs)}; "
        f"only in docs/{lang}/: {sorted(theirs - ours)}"
    )


def _pairs():
    for script in sorted((GALLERY / REFERENCE).rglob("plot_*.py")):
        for lang in OTHERS:
            other = GALLERY / lang / script.relative_to(GALLERY / REFERENCE)
            if other.exists():  # a missing file fails test_same_gallery_files
                yield pytest.param(script, other, id=f"{lang}/{relative_name(script)}")


@pytest.mark.parametrize(("ours", "theirs"), list(_pairs()))
def test_same_cell_structure(ours, theirs):
    kinds_ours = [kind for kind, _ in blocks(ours)]
    kinds_theirs = [kind for kind, _ in blocks(theirs)]
    assert kinds_ours == kinds_theirs, (
        f"{theirs.relative_to(ROOT)} has cells {kinds_theirs}, "
        f"but {ours.relative_to(ROOT)} has {kinds_ours}"
    )


@pytest.mark.parametrize(("ours", "theirs"), list(_pairs()))
def test_identical_code_cells(ours, theirs):
    cells_ours = [code for kind, code in blocks(ours) if kind == "code"]
    cells_theirs = [code for kind, code in blocks(theirs) if kind == "code"]
    for number, (a, b) in enumerate(zip(cells_ours, cells_theirs, strict=False), start=1):
        assert code_tokens(a) == code_tokens(b), (
            f"code cell {number} of {theirs.relative_to(ROOT)} differs from "
            f"{ours.relative_to(ROOT)} (comments aside):\n--- {REFERENCE}\n{a}\n--- {theirs.parent}\n{b}"
        )
    assert len(cells_ours) == len(cells_theirs), f"{theirs.relative_to(ROOT)}: cell count differs"


def _doctests(page):
    return re.findall(r"```\{doctest\}\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("lang", OTHERS)
def test_identical_doctests(lang):
    for name in sorted(_pages(REFERENCE) & _pages(lang)):
        ours, theirs = _doctests(DOCS / REFERENCE / name), _doctests(DOCS / lang / name)
        assert ours == theirs, f"docs/{lang}/{name}: doctest blocks differ from docs/{REFERENCE}/{name}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_gallery_folder_has_a_header(lang):
    """sphinx-gallery silently skips a sub-folder without GALLERY_HEADER.rst: fail instead."""
    for script in (GALLERY / lang).rglob("plot_*.py"):
        header = script.parent / "GALLERY_HEADER.rst"
        assert header.exists(), f"{header.relative_to(ROOT)} is missing: {script.name} would vanish"
