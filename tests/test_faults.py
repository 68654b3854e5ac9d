"""Faults are loud: each breakage, injected into a temporary copy of the project, fails the build or
the tests with a message that names the offending file.

The copy holds docs/, gallery/, tests/, conftest.py and pyproject.toml (never build/); each test
breaks one thing in its own copy and builds only the edition it needs.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gallery_tools import GALLERY, ROOT, gallery_scripts, split_cells

COPIED = ("docs", "gallery", "sitetools", "tensorfacts", "tests", "conftest.py", "pyproject.toml")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
#: A fault that takes longer than this to show has not been made loud enough.
TIMEOUT = 300


@pytest.fixture
def project(tmp_path) -> Path:
    """A fresh copy of the project's sources, to break."""
    copy = tmp_path / "project"
    copy.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=IGNORE)
        else:
            shutil.copy2(source, copy / name)
    return copy


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TENSORCOPY_SITE"}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", **extra}


def build(project: Path, lang: str, **env: str) -> subprocess.CompletedProcess:
    """Build one edition of the copy (into the copy's own build/); output captured as text."""
    command = [
        sys.executable, str(project / "docs" / "build_site.py"), "--lang", lang,
        "--out", str(project / "build" / "html"), "--stage", str(project / "build" / "stage"),
    ]  # fmt: skip
    return subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=TIMEOUT, env=_env(**env))


def run_pytest(project: Path, *args: str) -> subprocess.CompletedProcess:
    """Run pytest inside the copy, on the given test files or pages."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", *args]
    return subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=TIMEOUT, env=_env())


def output(result: subprocess.CompletedProcess) -> str:
    return f"{result.stdout}\n{result.stderr}"


def in_copy(project: Path, path: Path) -> Path:
    return project / path.relative_to(ROOT)


def append_cell(script: Path, code: str) -> None:
    with script.open("a", encoding="utf-8") as handle:
        handle.write(f"\n\n# %%\n# Injected by tests/test_faults.py.\n\n{code}\n")


def test_an_uncaught_error_in_an_example_fails_the_build(project):
    script = gallery_scripts("zh_CN")[0]  # the first one runs first: the build stops early
    append_cell(in_copy(project, script), 'raise RuntimeError("injected fault: an uncaught error")')
    result = build(project, "zh_CN")
    log = output(result)
    assert result.returncode != 0, f"the build passed with an uncaught error in {script.name}:\n{log}"
    assert "injected fault: an uncaught error" in log, log
    assert f"gallery/zh_CN/{script.parent.name}/{script.name}" in log, f"the log does not name {script}"


def test_an_assertion_that_no_longer_holds_fails_the_build(project):
    """Simulate torch changing under a page: the "safe copy" becomes a plain detach(), so memory is
    shared again and the page's own assertion about it must stop the build."""
    candidates = [s for s in gallery_scripts("en") if ".detach().clone()" in s.read_text(encoding="utf-8")]
    assert candidates, "no English example uses .detach().clone(): pick another fault to inject"
    script = candidates[0]
    copy = in_copy(project, script)
    copy.write_text(copy.read_text(encoding="utf-8").replace(".detach().clone()", ".detach()"), encoding="utf-8")
    result = build(project, "en")
    log = output(result)
    assert result.returncode != 0, f"the build passed though {script.name} no longer copies:\n{log}"
    assert "AssertionError" in log, f"the build failed, but not on an assertion:\n{log}"
    assert f"gallery/en/{script.parent.name}/{script.name}" in log, f"the log does not name {script}"


def test_the_chinese_build_fails_loudly_without_jieba(project, tmp_path):
    shim = tmp_path / "no_jieba"
    (shim / "jieba").mkdir(parents=True)
    (shim / "jieba" / "__init__.py").write_text(
        'raise ImportError("jieba hidden by tests/test_faults.py")\n', encoding="utf-8"
    )
    pythonpath = os.pathsep.join(filter(None, [str(shim), os.environ.get("PYTHONPATH")]))
    probe = subprocess.run(
        [sys.executable, "-c", "import jieba"], capture_output=True, text=True, env=_env(PYTHONPATH=pythonpath)
    )
    assert probe.returncode != 0, "the shim did not hide jieba"

    result = build(project, "zh_CN", PYTHONPATH=pythonpath)
    log = output(result)
    assert result.returncode != 0, f"the zh_CN build passed without jieba:\n{log}"
    assert "jieba" in log and "zh_CN" in log, f"the failure does not say jieba is missing:\n{log}"
    index = project / "build" / "html" / "zh_CN" / "searchindex.js"
    assert not index.exists(), "a Chinese search index was written without jieba"


def test_parity_tests_pass_on_the_untouched_copy(project):
    """The control for the two faults below: the same tests pass before anything is broken."""
    result = run_pytest(project, "tests/test_parity.py")
    assert result.returncode == 0, output(result)


def test_a_page_in_one_language_only_fails_the_tests(project):
    script = gallery_scripts("en")[0]
    lonely_script = in_copy(project, script).with_name("plot_99_only_in_english.py")
    shutil.copy2(script, lonely_script)
    lonely_page = project / "docs" / "en" / "only_in_english.md"
    lonely_page.write_text("# Only in English\n\nThis page has no Chinese twin.\n", encoding="utf-8")
    result = run_pytest(project, "tests/test_parity.py")
    log = output(result)
    assert result.returncode != 0, f"the tests passed with pages in one language only:\n{log}"
    assert "plot_99_only_in_english.py" in log, f"the failure does not name the lonely script:\n{log}"
    assert "only_in_english.md" in log, f"the failure does not name the lonely page:\n{log}"


def test_a_code_cell_changed_in_one_language_fails_the_tests(project):
    script = gallery_scripts("zh_CN")[0]
    copy = in_copy(project, script)
    text = copy.read_text(encoding="utf-8")
    first_cell = split_cells(script)[0].rstrip("\n")
    assert first_cell in text, f"cannot find the first code cell of {script} in its text"
    copy.write_text(text.replace(first_cell, first_cell + "\nonly_in_chinese = 1", 1), encoding="utf-8")
    result = run_pytest(project, "tests/test_parity.py")
    log = output(result)
    assert result.returncode != 0, f"the tests passed with a code cell changed in zh_CN only:\n{log}"
    name = script.relative_to(GALLERY.parent).as_posix()
    assert name in log and "only_in_chinese" in log, f"the failure does not name {name}:\n{log}"


DOCTEST_OUTPUT = re.compile(r"(```\{doctest\}\n(?:(?:>>>|\.\.\.).*\n)+)(?!>>>|\.\.\.|```)(.+)\n")


def test_doctests_pass_on_the_untouched_copy(project):
    """The control for the fault below: the narrative pages' doctests pass as they are."""
    result = run_pytest(project, "docs/en/quickref.md")
    assert result.returncode == 0, output(result)
    assert re.search(r"\b[1-9]\d* passed\b", result.stdout), f"sybil ran no doctest:\n{output(result)}"


def test_a_broken_doctest_fails_the_tests(project):
    page = project / "docs" / "en" / "quickref.md"
    text = page.read_text(encoding="utf-8")
    match = DOCTEST_OUTPUT.search(text)
    assert match, "docs/en/quickref.md has no doctest with an expected output to break"
    broken = text[: match.start(2)] + "'injected wrong output'" + text[match.end(2) :]
    page.write_text(broken, encoding="utf-8")
    result = run_pytest(project, "docs/en/quickref.md")
    log = output(result)
    assert result.returncode != 0, f"a wrong doctest output passed:\n{log}"
    assert "quickref.md" in log and "injected wrong output" in log, log
