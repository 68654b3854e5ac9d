"""中英对照, fast tier: the build refuses an example whose editions do not have the same text cells
(``tensorcopy_sphinx.bilingual``), since the page pairs cell k with cell k. The browser side is
tests/test_bilingual_browser.py."""

import pytest

from editions import CODES
from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.gallery_tools import ROOT

from tensorcopy_sphinx.bilingual import mismatches, text_cells  # noqa: E402  isort: skip

PAGE = '"""\nTitle\n=====\n\nIntro.\n"""\n\n# %%\n# One.\n\nx = 1\n\n# %%\n# Two.\n\ny = 2\n'


def _gallery(tmp_path, pages):
    for code, text in zip(CODES, pages, strict=True):
        (tmp_path / code / "part").mkdir(parents=True)
        (tmp_path / code / "part" / "plot_01_x.py").write_text(text, encoding="utf-8")
    return tmp_path


def test_the_text_cells_are_counted_as_sphinx_gallery_reads_them(tmp_path):
    (tmp_path / "plot_x.py").write_text(PAGE, encoding="utf-8")
    assert text_cells(tmp_path / "plot_x.py") == 3  # the docstring and two cells


def test_editions_with_the_same_cells_pass_and_one_with_a_cell_more_is_named(tmp_path):
    same = _gallery(tmp_path / "same", [PAGE] * len(CODES))
    assert all(mismatches(same, code) == [] for code in CODES)
    extra = PAGE + "\n# %%\n# Three.\n\nz = 3\n"
    differ = _gallery(tmp_path / "differ", [PAGE, *[extra] * (len(CODES) - 1)])
    (problem,) = mismatches(differ, CODES[0])
    assert f"{CODES[0]}/part/plot_01_x.py has 3 text cells" in problem and "has 4" in problem


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_every_example_of_the_site_pairs_its_cells_one_to_one():
    gallery = ROOT / "gallery"
    assert [problem for code in CODES for problem in mismatches(gallery, code)] == []
