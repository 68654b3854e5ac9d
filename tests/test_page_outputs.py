"""Each page writes only its own outputs (sitetools/guard/outputs.py), checked on a small gallery laid out as
the build stages one (``docs/en`` with its generated ``examples``, ``gallery/en/<part>``), without Sphinx:
the hooks are called as sphinx-gallery calls them around each page. Ending what a page left running would end
the test worker's own children here, so it is switched off; tests/test_scratch_faults.py builds a page that
leaves a process running."""

from __future__ import annotations

import pytest

from sitetools.guard import outputs as page_outputs

PAGE = "gallery/en/copying/plot_01_x.py"


@pytest.fixture
def ledger(tmp_path, monkeypatch):
    monkeypatch.setattr(page_outputs.descendants, "become_subreaper", lambda: None)
    monkeypatch.setattr(page_outputs.descendants, "end_all", lambda pid: [])
    docs, gallery = tmp_path / "docs" / "en", tmp_path / "gallery" / "en"
    (gallery / "copying").mkdir(parents=True)
    (gallery / "copying" / "plot_01_x.py").write_text("print('a:', 1)\n")
    (docs / "examples" / "copying").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n")
    conf = {"src_dir": str(docs), "gallery_dirs": ["examples"], "examples_dirs": [str(gallery)]}
    ledger = page_outputs._Ledger()
    (docs / "examples" / "copying" / "plot_01_x.py").write_text("print('a:', 1)\n")  # sphinx-gallery's copy
    ledger.before(conf, PAGE)
    return ledger, docs, gallery


def test_a_page_writing_its_own_outputs_passes(ledger):
    ledger, docs, _ = ledger
    (docs / "examples" / "copying" / "plot_01_x.rst").write_text("page")
    (docs / "examples" / "images").mkdir()
    (docs / "examples" / "images" / "sphx_glr_plot_01_x_001.svg").write_text("<svg/>")
    ledger.after(PAGE)
    ledger.seal()


@pytest.mark.parametrize(("where", "named"), [
    ("gallery/en/copying/checkpoint.pt", f"{PAGE} wrote gallery/en/copying/checkpoint.pt (a source)"),
    ("docs/en/index.md", f"{PAGE} wrote docs/en/index.md (a source)"),
    ("docs/en/examples/verified.rst", f"{PAGE} wrote examples/verified.rst while it ran; no page produced it"),
])  # fmt: skip
def test_a_page_writing_elsewhere_is_named_with_the_file(ledger, where, named):
    ledger, docs, _ = ledger
    target = docs.parents[1] / where
    with target.open("a") as handle:
        handle.write("injected")
    with pytest.raises(page_outputs.PageWroteElsewhere) as failure:
        ledger.after(PAGE)
    assert named in str(failure.value), failure.value


def test_a_file_no_page_produced_is_refused_once_the_pages_ran(ledger):
    ledger, docs, _ = ledger
    ledger.after(PAGE)
    (docs / "examples" / "notes.rst").write_text("written later")
    with pytest.raises(page_outputs.PageWroteElsewhere, match="examples/notes.rst: no page produced it"):
        ledger.seal()


@pytest.mark.parametrize(("name", "mine"), [
    ("copying/plot_02_x.rst", True), ("copying/plot_02_x.py", True), ("copying/plot_02_x.py.md5", True),
    ("copying/plot_02_x.ipynb", True), ("copying/plot_02_x.zip", True), ("copying/plot_02_x_codeobj.pickle", True),
    ("copying/images/sphx_glr_plot_02_x_001.svg", True), ("copying/images/thumb/sphx_glr_plot_02_x_thumb.png", True),
    ("copying/plot_01_y.rst", False), ("copying/plot_02_x_extra.rst", False), ("copying/verified.rst", False),
    ("copying/images/sphx_glr_plot_01_y_001.svg", False),
])  # fmt: skip
def test_a_page_owns_only_the_outputs_named_after_it(name, mine):
    assert page_outputs.belongs_to(name, "plot_02_x") is mine
