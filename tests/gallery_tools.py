"""Shared helpers for the tests: find gallery scripts, split them into cells, run cells, read pages."""

import atexit
import concurrent.futures
import contextlib
import fcntl
import functools
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from editions import CODES
from sitetools.rules.sources import GALLERY, ROOT, blocks, code_tokens, gallery_scripts, relative_name  # noqa: F401
from sitetools.rules.sources import code_cells as split_cells  # noqa: F401

LANGS = CODES
#: Where sphinx-gallery puts the pages of gallery/<lang>/ inside each edition.
EXAMPLES_DIR = "examples"


#: What a copy of the project holds: everything a build and the tests read.
COPIED = ("docs", "gallery", "editions", "sitetools", "tensorfacts", "tests", "conftest.py", "pyproject.toml")
COPY_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "_build")


def copy_project(target: Path, examples: tuple[str, ...] = ()) -> Path:
    """A fresh copy of the project's sources at ``target``, to break (fault tests, mutations). With
    ``examples`` (names such as ``copying/plot_01_alias_and_data``), the copy's galleries hold those
    examples only, in every edition: a fixture site whose rules and builds read a few pages, not all."""
    target.mkdir(parents=True)
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=COPY_IGNORE)
        elif source.exists():
            shutil.copy2(source, target / name)
    if examples:
        for lang in LANGS:
            for script in gallery_scripts(lang, target / "gallery"):
                if relative_name(script, target / "gallery") not in examples:
                    script.unlink()
    return target


def script_id(script: Path) -> str:
    """A readable test id: ``en/copying/plot_01_x``."""
    lang_dir = next(p for p in script.parents if p.parent == GALLERY)
    return f"{lang_dir.name}/{relative_name(script)}"


def page_path(site: Path, lang: str, name: str) -> Path:
    """The built HTML page of gallery script ``name`` (as given by :func:`relative_name`)."""
    return site / lang / EXAMPLES_DIR / f"{name}.html"


class ExampleFailed(AssertionError):
    """Example code failed in the worker process; the message holds its traceback."""


class _Worker:
    """One long-lived ``tests.cell_worker`` process: torch is imported once, examples never run in pytest."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def ask(self, job: dict, name: str) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.cell_worker"], cwd=ROOT, text=True, encoding="utf-8",
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            )  # fmt: skip
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
            answer = self.process.stdout.readline()
        except BrokenPipeError:
            answer = ""
        if not answer:
            code = self.process.wait()
            self.process.stdin.close()
            self.process.stdout.close()
            self.process = None
            raise ExampleFailed(f"{name} ended the process that ran it (exit code {code}): an exit() or os._exit()?")
        return json.loads(answer)

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()
            self.process.stdout.close()


_WORKER = _Worker()
atexit.register(_WORKER.close)


def _answer(job: dict, name: str) -> list[str]:
    answer = _WORKER.ask(job, name)
    if "error" in answer:
        raise ExampleFailed(f"{name} raised {answer['error']}:\n{answer['traceback']}")
    return answer["outputs"]


def run_cells(cells: list[str], filename: str = "<gallery>") -> list[str]:
    """Run code cells in one fresh namespace, in a worker process; return what each cell printed.

    torch gets the same fresh state as in the build (``sitetools.guard.example``), and any warning a
    cell does not catch itself is raised as an error (:class:`ExampleFailed`). Every run starts from
    the same state, so the same cells print the same output: a repeated run is answered from memory.
    """
    return list(_run_cells(tuple(cells), filename))


@functools.lru_cache(maxsize=256)
def _run_cells(cells: tuple[str, ...], filename: str) -> tuple[str, ...]:
    return tuple(_answer({"cells": list(cells), "filename": filename}, filename))


def run_script(script: Path) -> str:
    """Run a whole script as ``__main__`` in the worker process; return what it printed."""
    name = script.relative_to(ROOT).as_posix() if ROOT in script.parents else str(script)
    return _answer({"script": str(script)}, name)[0]


def build_site(out: Path, stage: Path, *extra: str, cwd: Path = ROOT, **kwargs) -> subprocess.CompletedProcess:
    """Run the project's build (``docs/build_site.py`` under ``cwd``); return the finished process."""
    command = [sys.executable, str(cwd / "docs" / "build_site.py"), "--out", str(out), "--stage", str(stage), *extra]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, **kwargs)


def _shared_folder(request, name: str) -> Path:
    base = request.getfixturevalue("tmp_path_factory").getbasetemp()
    if hasattr(request.config, "workerinput"):  # a pytest-xdist worker (not an inherited variable)
        base = base.parent  # the run's folder, which every worker's own folder is in
    return base / f"shared-{name}"


def once_per_run(request, name: str, make):
    """``make(folder)`` called once per test run, however many pytest-xdist workers ask (under ``-n`` without
    ``--dist loadfile`` the tests of one module, and so its module fixtures, are spread over workers): the
    first worker that asks calls it, in a new folder of the run's (``shared-<name>``), the others wait for it;
    each gets its result (pickled). Its folders and files are read, not changed."""
    folder = _shared_folder(request, name)
    with open(folder.parent / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this worker dies
        done = folder / "result.pickle"
        if not done.exists():
            folder.mkdir(exist_ok=True)
            written = folder / "result.pickle.part"
            written.write_bytes(pickle.dumps(make(folder)))
            written.replace(done)  # whole or not at all: a worker that died while making it left none
    return pickle.loads(done.read_bytes())


def shared_build(request, name: str) -> Path:
    """A site built from the sources once per test run, under ``name`` (:func:`once_per_run`): the others
    read the same files (they must not change them). The build's output is kept beside the site, as
    ``site-build.log``."""

    def make(folder: Path) -> int:
        result = build_site(folder / "html", folder / "stage")
        (folder / "site-build.log").write_text(f"{result.stdout}\n{result.stderr}", encoding="utf-8")
        return result.returncode

    folder = _shared_folder(request, name)
    if once_per_run(request, name, make) != 0:
        log = (folder / "site-build.log").read_text(encoding="utf-8")
        pytest.fail(f"the {name} build failed:\n{log}", pytrace=False)
    return folder / "html"


def normalise(text: str) -> str:
    """Output text as a page shows it: no trailing spaces, no leading or trailing blank lines."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()).strip("\n")


def printed_blocks(outputs: list[str]) -> list[str]:
    """The output blocks a page shows for these cell outputs (cells that print nothing show none)."""
    return [normalise(out) for out in outputs if out.strip()]


def parse_html(html_path: Path) -> BeautifulSoup:
    """A parsed HTML page of one's own, to change (a test that only reads takes :func:`read_page`)."""
    return BeautifulSoup(html_path.read_text(encoding="utf-8"), "html.parser")


@functools.lru_cache(maxsize=1024)
def _parsed(path: Path, mtime_ns: int, size: int) -> BeautifulSoup:
    return parse_html(path)


def read_page(path: Path) -> BeautifulSoup:
    """The parsed page, parsed once per version of the file and test process: most slow tests read
    every page, and parsing is most of their time. Read it, do not change it."""
    stat = path.stat()
    return _parsed(path.resolve(), stat.st_mtime_ns, stat.st_size)


# a gallery code cell is highlighted as Python; the folded drawing helpers under a lexer name of their own
# (HELPERS_LANGUAGE in tensorcopy_sphinx/gallery_figures.py; tests/test_figures.py checks the built block)
CODE_BLOCKS = "div.highlight-Python, div.highlight-python-helpers"


def html_output_blocks(html_path: Path) -> list[str]:
    """The output blocks of a built gallery page, in page order."""
    return [
        normalise(div.pre.get_text())
        for div in read_page(html_path).select("div.sphx-glr-script-out")
    ]


def html_code_cells(html_path: Path) -> list[str]:
    """The code cells of a built gallery page, in page order, as plain text."""
    return [div.pre.get_text() for div in read_page(html_path).select(CODE_BLOCKS)]


def html_cells_with_outputs(html_path: Path) -> list[tuple[str, str | None]]:
    """Each code cell of a built gallery page with the output block shown right after it (None
    when the cell shows none), in page order. An output block that follows no code cell is an error."""
    pairs: list[tuple[str, str | None]] = []
    for div in read_page(html_path).select(f"{CODE_BLOCKS}, div.sphx-glr-script-out"):
        if "sphx-glr-script-out" in div["class"]:
            if not pairs or pairs[-1][1] is not None:
                raise ValueError(f"{html_path}: an output block follows no code cell")
            pairs[-1] = (pairs[-1][0], normalise(div.pre.get_text()))
        else:
            pairs.append((div.pre.get_text(), None))
    return pairs


@contextlib.contextmanager
def serve(directory: Path):
    """Serve ``directory`` on 127.0.0.1 (a free port), as the audit serves the site (text compressed, as
    a static host sends it), while the block runs; yield the base URL without a trailing slash."""
    from sitetools.web.audit import serve as serve_site

    with serve_site(directory, 0) as url:
        yield url.rstrip("/")


def side_by_side(jobs: dict, run) -> dict:
    """``{key: run(*args)}`` for ``jobs = {key: args}``, one job per core at a time. For jobs that each
    start a process of their own (a build, a script), so running them together only saves wall time."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {key: pool.submit(run, *args) for key, args in jobs.items()}
        return {key: future.result() for key, future in futures.items()}
