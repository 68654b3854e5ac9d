"""What a reader downloads from an example page runs on its own and still checks its claims.

sphinx-gallery offers each page as a ``.py`` and an ``.ipynb``. The ``.py`` is a copy of the source script,
hidden blocks included, so it runs every check the build ran: each one runs alone in an empty folder, with
warnings as errors, as in the build (in a process of its own, forked from one that has only imported
torch: tests/fresh_runs.py; one per core at a time), and must end with its rerun cell
(``tensorcopy_sphinx.rerun_cell``) reporting every check of the page agreeing. The ``.ipynb`` is made
from the cells as the page shows them, without the hidden blocks: its code cells must be exactly the
page's visible code, which tests/test_site_fidelity.py runs on its own (in one interpreter, so that 21
notebooks do not cost 21 imports of torch); it must hold asserts of its own.
"""

import ast
import difflib
import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from sitetools.rules.checks_manifest import checks, problems, read_manifest, visible_cells
from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.fresh_runs import run_alone
from tests.gallery_tools import (
    LANGS,
    gallery_scripts,
    html_output_blocks,
    normalise,
    page_path,
    read_page,
    relative_name,
    script_id,
)

from tensorcopy_sphinx.download_zips import ENTRY_DATE  # noqa: E402  isort: skip
from tensorcopy_sphinx.rerun_cell import PY_MARKER, PY_PAGE_CODE, TAG  # noqa: E402  isort: skip

#: One edition is enough (the code is the same in every language); the last one carries non-ASCII text.
LANG = LANGS[-1]
SCRIPTS = gallery_scripts(LANG)
#: The rerun cell's report in each edition's words, written here (not read from the message catalog):
#: its first line, its last line when every claim agrees ({checks}: the page's checks), a claim that agrees, one that
#: differs, and what the error says when some differ.
REPORT = {
    "en": {"header": r"This page's checks on torch \S+ \(the page was verified on torch \S+\):",
           "all agree": r"(\d+) agree, 0 differ, 0 not run: \1 claims from the page's {checks} checks",
           "agrees": "  agrees   ", "differs": "  DIFFERS  ", "error": "claims of this page differ"},
    "zh_CN": {"header": r"本页的检查在 torch \S+ 上的结果（本页验证时用的是 torch \S+）：",
              "all agree": r"(\d+) 项一致，0 项不一致，0 项未运行：共 \1 项结论，出自本页的 {checks} 项检查",
              # padded to the six columns of 无 GPU, where a Chinese character takes two
              "agrees": "  一致    ", "differs": "  不一致  ", "error": "项结论不一致"},
}[LANG]


def _download(site: Path, script: Path, suffix: str) -> Path:
    """The file the page of ``script`` offers for download with this suffix."""
    page = page_path(site, LANG, relative_name(script))
    links = {a["href"] for a in read_page(page).select("a[href]") if "_downloads/" in a["href"]}
    found = [href for href in links if href.endswith(suffix)]
    assert len(found) == 1, f"{page.relative_to(site)} offers {len(found)} {suffix} downloads: {sorted(links)}"
    path = (page.parent / found[0]).resolve()
    assert path.is_file(), f"{page.relative_to(site)} links to a missing download {found[0]}"
    return path


def _notebook_code(notebook: Path) -> str:
    """The code cells of a notebook, in order, as one script."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    assert sources, f"{notebook.name} has no code cell"
    magics = [line for code in sources for line in code.splitlines() if line.lstrip().startswith(("%", "!"))]
    assert not magics, f"{notebook.name} has IPython-only lines, which plain Python cannot run: {magics}"
    return "\n\n".join(sources) + "\n"


def _has_assert(code: str) -> bool:
    return any(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(code)))


def _run_alone(code: str, name: str, folder: Path) -> subprocess.CompletedProcess:
    return run_alone({name: (code, name, folder)})[name]


def _code_of(site: Path, script: Path, suffix: str) -> tuple[Path, str]:
    download = _download(site, script, suffix)
    return download, download.read_text(encoding="utf-8") if suffix == ".py" else _notebook_code(download)


@pytest.fixture(scope="module")
def download_runs(site_dir, tmp_path_factory) -> dict:
    """Every download of every page run on its own, one per core at a time: each run is a process of
    its own, so running them side by side changes nothing but the wall time."""
    jobs = {}
    for script in SCRIPTS:
        download, code = _code_of(site_dir, script, ".py")
        jobs[script] = (code, download.name, tmp_path_factory.mktemp("download"))
    return run_alone(jobs)


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_the_downloaded_script_runs_alone_and_checks(site_dir, download_runs, script):
    download, code = _code_of(site_dir, script, ".py")
    report = problems(f"the downloaded {download.name}", checks(code), read_manifest()[relative_name(script)])
    assert not report, "\n".join(report)  # every check the build ran, hidden ones included
    result = download_runs[script]
    assert result.returncode == 0, f"the downloaded {download.name} fails on its own:\n{result.stderr[-3000:]}"
    last = result.stdout.strip().splitlines()[-1]
    checks_recorded = len(read_manifest()[relative_name(script)])
    everything_agrees = REPORT["all agree"].replace("{checks}", str(checks_recorded))
    assert re.fullmatch(everything_agrees, last), (
        f"the rerun cell of {download.name} did not report every one of the page's {checks_recorded} checks "
        f"agreeing: {last!r}"
    )


def _lines(text: str) -> list[str]:
    """The lines of printed text that hold something, without trailing spaces (as a page's blocks show them)."""
    return [line.rstrip() for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_the_download_run_alone_prints_what_the_page_shows(site_dir, download_runs, script):
    """What a reader sees when they run the download: before its rerun cell's report, the run alone printed
    the lines of the page's output blocks, in order, and nothing else. The build checked each block against
    what its own cell printed (sitetools/guard/output_channels.py); this is a second, separate run, in a fresh
    process, as a reader's. The other edition's pages show the same blocks (tests/test_site.py)."""
    result = download_runs[script]
    assert result.returncode == 0, f"{script_id(script)}: the download fails on its own:\n{result.stderr[-3000:]}"
    lines = result.stdout.splitlines()
    header = next((n for n, line in enumerate(lines) if re.fullmatch(REPORT["header"], line)), None)
    assert header is not None, f"{script_id(script)}: the run printed no rerun report:\n{result.stdout[-2000:]}"
    printed = _lines("\n".join(lines[:header]))
    page = page_path(site_dir, LANG, relative_name(script))
    shown = [line for block in html_output_blocks(page) for line in _lines(block)]
    assert printed == shown, (
        f"{page.relative_to(site_dir)} does not show what its download prints when run alone:\n"
        + "\n".join(difflib.unified_diff(shown, printed, "the page", "the run alone", lineterm="", n=1))
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_the_zipped_download_holds_the_two_downloads_as_they_are(site_dir, script):
    files = {suffix: _download(site_dir, script, suffix) for suffix in (".py", ".ipynb", ".zip")}
    with zipfile.ZipFile(files[".zip"]) as archive:
        held = {info.filename: (archive.read(info), info.date_time) for info in archive.infolist()}
    expected = {files[suffix].name: (files[suffix].read_bytes(), ENTRY_DATE) for suffix in (".py", ".ipynb")}
    assert held == expected, f"{files['.zip'].name} does not hold the page's .py and .ipynb as they are offered"


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_the_notebook_ends_with_the_scripts_rerun_cell(site_dir, script):
    """Both downloads end with the same rerun cell, but for where the page's code comes from: the notebook's
    holds it, the script's reads it from its own file. The script's is run above, on its own."""
    py, notebook = (_download(site_dir, script, suffix) for suffix in (".py", ".ipynb"))
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    assert [cell["cell_type"] for cell in cells if TAG in cell["metadata"].get("tags", [])] == ["markdown", "code"]
    assert cells[-1]["metadata"].get("tags") == [TAG], f"{notebook.name} does not end with its rerun cell"
    notebook_runner = "".join(cells[-1]["source"]).split("'''", 2)[2]  # after PAGE_CODE = r'''...'''
    _, marker, py_cell = py.read_text(encoding="utf-8").partition(f"\n{PY_MARKER}\n")
    assert marker and PY_PAGE_CODE in py_cell, f"{py.name}: no rerun cell reading the page from the file"
    assert py_cell.split(PY_PAGE_CODE, 1)[1].strip() == notebook_runner.strip(), (
        f"{notebook.name} and {py.name} end with different rerun cells"
    )


def _folded(cell: dict) -> bool:
    return cell["metadata"].get("jupyter", {}).get("source_hidden") is True


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_the_helpers_and_the_rerun_cell_are_out_of_the_readers_way(site_dir, script):
    """In the notebook the drawing helpers and the rerun cell are folded (JupyterLab and Colab) and no other
    cell is; in the script the helpers sit between two banners, and the page's code is there only once."""
    py, notebook = (_download(site_dir, script, suffix) for suffix in (".py", ".ipynb"))
    code = [cell for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
    rerun = [cell for cell in code if TAG in cell["metadata"].get("tags", [])]
    harness = [cell for cell in code if "def draw_memory(" in "".join(cell["source"]) and cell not in rerun] + rerun
    assert [cell for cell in code if _folded(cell)] == harness, f"{notebook.name} folds other cells than the harness"
    for cell in harness:
        assert cell["metadata"]["cellView"] == "form", f"{notebook.name}: a folded cell Colab shows unfolded"
        assert "".join(cell["source"]).startswith("#@title "), f"{notebook.name}: a folded cell without a title"
    text = py.read_text(encoding="utf-8")
    banners = re.findall(r"^# ==== .+ ====$", text, flags=re.M)
    draws = "def draw_memory(" in text
    assert len(banners) == (2 if draws else 0), f"{py.name} has {len(banners)} banners around its helpers"
    if draws:
        helpers = text.split(banners[0], 1)[1].split(banners[1], 1)[0]
        assert "def draw_memory(" in helpers and "draw_memory(" not in text.split(banners[0], 1)[0]
    longest = max((line for cell in visible_cells(script) for line in cell.splitlines()), key=len)
    assert text.count(longest) == 1, f"{py.name} holds the page's code more than once"


def test_the_rerun_cell_reports_every_claim_when_torch_differs(site_dir, tmp_path):
    """The rerun cell on a torch whose detach() copies: the claims that depend on it differ, every other
    claim is still reported, and the run ends with an error."""
    script = next(path for path in SCRIPTS if relative_name(path) == "copying/plot_04_detach")
    cells = json.loads(_download(site_dir, script, ".ipynb").read_text(encoding="utf-8"))["cells"]
    patch = "import torch\ntorch.Tensor.detach = lambda self: self.clone().detach_()\n\n"
    result = _run_alone(patch + "".join(cells[-1]["source"]), "rerun.py", tmp_path)
    lines = result.stdout.splitlines()
    assert result.returncode != 0 and REPORT["error"] in result.stderr, result.stderr[-2000:]
    # the two claims in the edition's words (written here, not read from its catalog of check messages)
    shares, leaf = {"en": ("the detached tensor must share a's memory", "the detached tensor must be a leaf"),
                    "zh_CN": ("脱离计算图的张量与 a 共享内存", "脱离计算图的张量是叶子张量")}[LANG]
    assert REPORT["differs"] + shares in lines, result.stdout
    assert REPORT["agrees"] + leaf in lines, result.stdout  # still true of a copy
    assert sum(line.startswith("  ") for line in lines) > 20, "the report stopped before the last claim"


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_the_downloaded_notebook_holds_the_visible_code_and_checks(site_dir, script):
    download, code = _code_of(site_dir, script, ".ipynb")
    assert _has_assert(code), f"the downloaded {download.name} holds no assert: it would check nothing"
    cells = json.loads(download.read_text(encoding="utf-8"))["cells"]
    notebook = [
        normalise(re.sub(r"\A#@title .*\n", "", "".join(cell["source"])))  # Colab's title of a folded cell
        for cell in cells
        if cell["cell_type"] == "code" and TAG not in cell["metadata"].get("tags", [])
    ]
    visible = [normalise(cell) for cell in visible_cells(script) if cell.strip()]
    assert notebook == visible, f"the code cells of {download.name} are not the page's visible code"
