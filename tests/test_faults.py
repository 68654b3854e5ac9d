"""Faults are loud: each breakage, injected into a temporary copy of the project (never the working
tree), makes ``docs/build_site.py`` fail with a message that names the offending source, publishes
nothing, and deletes nothing it did not create.

Most faults need a real build. They run as one-page previews (``--only``), which go through the same
gate as the full build, and they run concurrently (one per core) in :func:`fault_builds`, once per test
run, so the whole set costs a few builds' time. Faults that one build reports together share it
(:func:`build_batch`, used by tests/test_gate_faults.py and tests/test_build_refusals.py).
"""

import doctest
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from editions import CODES
from sitetools.building import doctests
from sitetools.building.pipeline import BuildError, check_doctests
from sitetools.rules.sources import narrative_pages
from tests.gallery_tools import ROOT, copy_project, gallery_scripts, once_per_run, relative_name, side_by_side

TIMEOUT = 300  # a fault that takes longer than this to show has not been made loud enough
FIRST, SECOND = (relative_name(script) for script in gallery_scripts("en")[:2])

pytestmark = pytest.mark.slow


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TENSORCOPY_", "PYTEST_"))}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", **extra}


def build_command(project: Path, *args: str) -> list[str]:
    return [sys.executable, str(project / "docs" / "build_site.py"), "--out", str(project / "build" / "site"), *args]


def build(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """Run the copy's build (output in the copy's build/site); output captured as text."""
    return subprocess.run(build_command(project, *args), cwd=project, capture_output=True, text=True,
                          timeout=TIMEOUT, env=_env(**env))  # fmt: skip


def log_of(result: subprocess.CompletedProcess) -> str:
    return f"{result.stdout}\n{result.stderr}"


#: Appended to a copy's sitetools/rules/output.py: every module may be imported and no attribute is
#: refused as machine-describing, so that a fault aimed at a later layer (the page's outputs, the guard, the
#: time limit) reaches it instead of stopping at the page rules. The copy only: never the checkout.
ANY_IMPORT = ("\n\ndef allowed_import(name: str) -> bool:  # widened by tests/test_faults.py\n    return True\n\n\n"
              "MACHINE_ATTRIBUTES = WHERE_FROM = frozenset()  # widened by tests/test_faults.py\n")


def allow_any_import(project: Path) -> None:
    rules = project / "sitetools" / "rules" / "output.py"
    text = rules.read_text(encoding="utf-8")
    if ANY_IMPORT not in text:
        rules.write_text(text + ANY_IMPORT, encoding="utf-8")


def inject(project: Path, name: str, code: str, strict: bool = False) -> None:
    """Append a code cell to example ``name`` in every edition (so that parity still holds). Unless
    ``strict``, the copy's import rule is widened (:func:`allow_any_import`): the cell tests a later layer."""
    if not strict:
        allow_any_import(project)
    for lang in ("en", "zh_CN"):
        with (project / "gallery" / lang / f"{name}.py").open("a", encoding="utf-8") as handle:
            handle.write(f"\n\n# %%\n# Injected by tests/test_faults.py.\n\n{code}\n")


#: A page of a few lines (the same code in every edition), one per fault of a batch: :func:`fault_page`.
TINY_PAGE = {
    "en": '"""\nFault page\n==========\n\nA page that one fault test breaks.\n"""\n\n# %%\n# A cell that runs.\n\n',
    "zh_CN": '"""\n故障页\n======\n\n测试中的一个故障弄坏的页面。\n"""\n\n# %%\n# 一个会运行的单元格。\n\n',
}
TINY_CODE = 'import torch\n\nones = torch.ones(2)\ntotal = ones.sum()\nprint("total:", total)\n'


def fault_page(project: Path, fault: str) -> str:
    """Add a tiny example page of its own for ``fault`` to every edition of the copy; return its name
    (``copying/plot_90_<fault>``), to inject into (:func:`inject`) and to build (``--only``)."""
    name = f"copying/plot_90_{fault.replace('-', '_')}"
    for lang in CODES:
        (project / "gallery" / lang / f"{name}.py").write_text(TINY_PAGE[lang] + TINY_CODE, encoding="utf-8")
    return name


def page_cell(code: str, strict: bool = False):
    """A fault of a batch (:func:`build_batch`) that appends ``code`` as a cell of a tiny page of its own."""
    def breaks(project: Path, fault: str) -> str:
        page = fault_page(project, fault)
        inject(project, page, code, strict)
        return page

    return breaks


def build_batch(project: Path, faults: dict, *args: str) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """Faults that one build reports together, every one (the page rules list each problem they find, and
    so do the checks of the examples once Sphinx ended): ``faults`` maps each fault's name to how it breaks
    the copy (given the copy and the name), which returns the page it broke (a tiny page of its own:
    :func:`page_cell`), or None. Build those pages in one preview (``args``: more arguments); return the
    finished build and each fault's page."""
    pages = {name: breaks(project, name) for name, breaks in faults.items()}
    only = (arg for page in dict.fromkeys(pages.values()) if page for arg in ("--only", page))
    return build(project, *args, *only), pages


def said_on_one_line(log: str, words: list[str]) -> bool:
    """Whether one line of ``log`` says all of ``words``: a batch's failure names each page with its own message."""
    return any(all(word in line for word in words) for line in log.splitlines())


def digest(folder: Path) -> dict[str, str]:
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


SAFE_COPY = "copying/plot_02_safe_copy"
#: The examples a fault build's copy keeps (the fixture site): the faults break and build these only.
FIXTURE = (FIRST, SECOND, SAFE_COPY)


def _break_assertion(project: Path) -> None:
    """Simulate torch changing under a page: ``clone()`` starts returning its input, so the "safe copy"
    shares memory again and the page's own assertion about it must stop the build. The change is made
    where torch itself would change, before any page runs (the Sphinx configuration of the copy): a page
    that patched torch would be refused earlier, by the page rules."""
    conf = project / "docs" / "_shared" / "conf.py"
    patch = "\nimport torch\n\ntorch.Tensor.clone = lambda self, *args, **kwargs: self  # as if torch had changed\n"
    conf.write_text(conf.read_text(encoding="utf-8") + patch, encoding="utf-8")


def _hide_jieba(project: Path) -> dict[str, str]:
    shim = project / "no_jieba"
    (shim / "jieba").mkdir(parents=True)
    (shim / "jieba" / "__init__.py").write_text('raise ImportError("jieba hidden by tests/test_faults.py")\n')
    return {"PYTHONPATH": str(shim)}


def cell(code: str, strict: bool = False):
    """A fault that appends ``code`` as a new cell of the first example, in every edition."""
    return lambda project: inject(project, FIRST, code, strict)


EN_FIRST = ["--lang", "en", "--only", FIRST]

#: name -> (how to break the copy, build arguments, what the failure must say)
FAULTS = {
    "uncaught-error": (cell('raise RuntimeError("injected fault: an uncaught error")'), EN_FIRST,
                       ["injected fault: an uncaught error", f"gallery/en/{FIRST}.py"]),
    "failed-assertion": (_break_assertion, ["--lang", "en", "--only", SAFE_COPY],
                         ["AssertionError", f"gallery/en/{SAFE_COPY}.py"]),
    "sys-exit": (cell("import sys\nsys.exit(0)"), EN_FIRST, [f"gallery/en/{FIRST}.py did not run to its end"]),
    "os-exit": (cell("import os\nos._exit(0)"), EN_FIRST, [f"gallery/en/{FIRST}.py did not run to its end"]),
    "timeout": (cell("import time\ntime.sleep(10**6)"), [*EN_FIRST, "--example-timeout", "5"],
                [f"gallery/en/{FIRST}.py ran longer than its time limit of 5 s"]),
    "python-warning": (cell('import warnings\nwarnings.warn("injected python warning", stacklevel=1)'), EN_FIRST,
                       ["injected python warning", f"gallery/en/{FIRST}.py"]),
    "printed-time": (cell('import time\nprint("took:", time.time())'), EN_FIRST,
                     [f"gallery/en/{FIRST}.py: code cell", "prints time()"]),
    "logging-warning": (cell('import logging\nlogging.getLogger("x").warning("injected")'), EN_FIRST,
                        [f"gallery/en/{FIRST}.py logged WARNING", "injected"]),
    "dtype-leak": (cell("torch.set_default_dtype(torch.float64)"), [*EN_FIRST, "--only", SECOND],
                   [f"gallery/en/{FIRST}.py left global state changed", "default dtype is now torch.float64"]),
    "grad-mode-leak": (cell("torch.set_grad_enabled(False)"), [*EN_FIRST, "--only", SECOND],
                       [f"gallery/en/{FIRST}.py left global state changed", "grad mode is now False"]),
    # a page that writes into its sources (relative to its working folder) or into the checkout is named
    "writes-a-source": (cell('with open("../../../docs/en/index.md", "a") as f:\n    f.write("injected")'), EN_FIRST,
                        ["docs/en/index.md", f"{FIRST}.py"]),
    "writes-the-checkout": (lambda p: inject(p, FIRST, f"with open({str(p / 'docs/en/about.md')!r}, 'a') as f:\n"
                                                       "    f.write('x')"),
                            EN_FIRST, ["docs/en/about.md"]),
    "nondeterministic-output": (cell('import os\nnoise = os.urandom(8).hex()\nprint("noise:", noise)', strict=True),
                                ["--only", FIRST], [f"gallery/zh_CN/{FIRST}.py, line", "imports the module os"]),
    "no-jieba": (_hide_jieba, ["--lang", "zh_CN", "--only", FIRST], ["jieba"]),
}


def _run_fault(base: Path, name: str) -> tuple[subprocess.CompletedProcess, float, Path]:
    breaks, args, _ = FAULTS[name]
    project = copy_project(base / name, FIXTURE)
    env = breaks(project) or {}
    started = time.monotonic()
    return build(project, *args, **env), time.monotonic() - started, project


@pytest.fixture(scope="module")
def fault_builds(request):
    """Every fault of :data:`FAULTS` built in its own copy, one per core at a time, once per test run."""
    return once_per_run(request, "faults", lambda base: side_by_side({name: (base, name) for name in FAULTS},
                                                                     _run_fault))


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_fault_fails_the_build_and_is_named(fault_builds, name):
    result, seconds, project = fault_builds[name]
    log = log_of(result)
    assert result.returncode != 0, f"the build passed with the fault {name!r}:\n{log}"
    for words in FAULTS[name][2]:
        assert words in log, f"the failure does not say {words!r}:\n{log}"
    assert "nothing was published" in result.stderr.strip().splitlines()[-1], log
    assert not (project / "build" / "site").exists(), "a failed build published a site"
    if name == "timeout":  # against the same one-page build failing at once, built beside it (same load)
        at_once = fault_builds["uncaught-error"][1]
        assert seconds < at_once + 5 + 30, (
            f"the time limit took {seconds - at_once:.0f} s longer to stop the build than an uncaught error on the "
            f"same page ({seconds:.0f} s, {at_once:.0f} s)")


def test_a_broken_doctest_fails_the_check_and_is_named(tmp_path):
    """A narrative page whose doctest no longer prints what it shows: the build's doctest check fails
    naming the page and the wrong line. (A preview leaves out the narrative pages but the home page,
    and their doctests; the next test shows that the full build runs every one of them.)"""
    for lang in CODES:
        shutil.copytree(ROOT / "docs" / lang, tmp_path / "docs" / lang)
    page = tmp_path / "docs" / "en" / "quickref.md"
    text = page.read_text(encoding="utf-8")
    shown = re.search(r"^\(True, True\)$", text, flags=re.M)  # an output line of the page's first doctest
    assert shown, "quickref.md no longer shows the output this test breaks: pick another"
    page.write_text(text[:shown.start()] + "(False, True)" + text[shown.end():], "utf-8")
    with pytest.raises(BuildError) as failure:
        check_doctests(list(CODES), tmp_path / "docs")
    assert "docs/en/quickref.md" in str(failure.value) and "(False, True)" in str(failure.value), failure.value
    assert "zh_CN" not in str(failure.value), "an unbroken page was reported"


def test_the_full_build_runs_every_narrative_doctest(site_dir):
    """The site build's log counts every example of every narrative page's doctests as passing."""
    log = site_dir.parent / "site-build.log"
    if not log.exists():
        pytest.skip("the site was not built by this run (TENSORCOPY_SITE): its log is not here")
    parser = doctest.DocTestParser()
    examples = sum(len(parser.get_examples(fence)) for lang in CODES for page in narrative_pages(lang)
                   for fence in doctests.FENCE.findall(page.read_text(encoding="utf-8")))  # fmt: skip
    assert examples > 0
    assert f"doctests of the narrative pages: {examples} examples pass" in log.read_text(encoding="utf-8")


# --- Publishing as a whole ------------------------------------------------------------------------


def test_a_failed_build_keeps_the_previous_site_and_a_good_one_leaves_no_stray_file(tmp_path):
    """In a checkout whose path has a space and Chinese characters (the Chinese edition, so jieba
    runs too): a good build, a failed one that leaves it untouched, and a good one again."""
    project = copy_project(tmp_path / "my project 张量", FIXTURE)
    site = project / "build" / "site"
    zh_first = ["--lang", "zh_CN", "--only", FIRST]
    first = build(project, *zh_first)
    assert first.returncode == 0, log_of(first)
    assert (site / "zh_CN" / "examples" / f"{FIRST}.html").exists()
    # A preview keeps one narrative page, the home page, and runs only its doctests (it has none).
    shown = {page.stem: (site / "zh_CN" / f"{page.stem}.html").exists() for page in narrative_pages("zh_CN")}
    assert shown == {name: name == "index" for name in shown}, shown
    assert "doctests of the narrative pages it shows (index.md): 0 examples pass" in first.stdout, log_of(first)
    (site / "fr").mkdir()
    (site / "fr" / "old.html").write_text("<p>a page from an old build</p>")
    good = digest(site)

    inject(project, FIRST, 'raise RuntimeError("injected fault")')
    failed = build(project, *zh_first)
    assert failed.returncode != 0, log_of(failed)
    assert "nothing was published; the previous site, if any, is untouched" in failed.stderr, log_of(failed)
    assert digest(site) == good, "a failed build changed the published site"

    shutil.copy2(ROOT / "gallery" / "en" / f"{FIRST}.py", project / "gallery" / "en" / f"{FIRST}.py")
    shutil.copy2(ROOT / "gallery" / "zh_CN" / f"{FIRST}.py", project / "gallery" / "zh_CN" / f"{FIRST}.py")
    again = build(project, *zh_first)
    assert again.returncode == 0, log_of(again)
    assert not (site / "fr").exists(), "a stray folder from an earlier build survived a rebuild"
    assert (site / "zh_CN" / "examples" / f"{FIRST}.html").exists()
    assert sorted(p.name for p in site.parent.iterdir()) == [".site.lock", "site"], "work folders were left behind"


def test_a_preview_never_replaces_the_published_site(tmp_path):
    project = copy_project(tmp_path / "project", FIXTURE)
    site = project / "build" / "site"
    site.mkdir(parents=True)
    (site / ".tensorcopy-build").write_text('{"kind": "site"}')
    (site / "index.html").write_text("the published site")
    result = build(project, "--lang", "zh_CN")
    assert result.returncode != 0 and "refusing to replace the published site" in result.stderr, log_of(result)
    assert (site / "index.html").read_text() == "the published site"


def _wait_for_line(process: subprocess.Popen, words: str, limit: float = 120) -> str:
    seen = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        seen.append(line)
        if words in line:
            return "".join(seen)
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"the build never printed {words!r}:\n{''.join(seen)}")


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if text in (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


def test_a_second_build_refuses_and_an_interrupted_build_stops_its_children(tmp_path):
    project = copy_project(tmp_path / "project", FIXTURE)
    stage = tmp_path / "stage"
    command = build_command(project, *EN_FIRST, "--stage", str(stage))
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    first = subprocess.Popen(command, cwd=project, text=True, env=_env(), **pipes)
    try:
        _wait_for_line(first, "Building")
        second = build(project, "--lang", "en", "--only", FIRST)
        assert second.returncode != 0 and "another build is writing" in second.stderr, log_of(second)
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130, f"exit code {first.returncode}:\n{err}"
    assert "STOPPED: interrupted by SIGTERM; nothing was published" in err.strip().splitlines()[-1], err
    time.sleep(1)
    assert not _processes_mentioning(str(stage)), "a Sphinx process of the stopped build is still running"
    assert not (project / "build" / "site").exists(), "an interrupted build published a site"


# --- The test run cannot end early and still pass ----------------------------------------------------


def test_a_script_that_ends_the_process_fails_the_tests(tmp_path, site_dir):
    """The copy's test that runs a page's visible code (against the pages of the site built for this run)."""
    project = copy_project(tmp_path / "project", FIXTURE)
    inject(project, FIRST, "import os\nos._exit(0)")
    report = tmp_path / "report.json"
    test = ("tests/test_site_fidelity.py::test_the_page_shows_its_visible_code_which_prints_what_the_page_shows"
            f"[zh_CN/{FIRST}]")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=TIMEOUT,
                            env=_env(TENSORCOPY_PYTEST_REPORT=str(report), TENSORCOPY_SITE=str(site_dir)))  # fmt: skip
    assert result.returncode != 0, log_of(result)
    assert f"gallery/zh_CN/{FIRST}.py ended the process that ran it" in result.stdout, log_of(result)
    assert report.exists(), "pytest did not reach its end, yet the suite ran in a worker"


def test_pytest_ended_by_a_test_leaves_no_report_for_nox(tmp_path):
    """The premise of the guard in noxfile.py: a run ended by os._exit(0) exits 0 but writes no report."""
    project = copy_project(tmp_path / "project", FIXTURE)
    (project / "tests" / "test_ends.py").write_text("import os\n\ndef test_ends():\n    os._exit(0)\n")
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_ends.py"]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=TIMEOUT,
                            env=_env(TENSORCOPY_PYTEST_REPORT=str(report)))  # fmt: skip
    assert result.returncode == 0 and not report.exists(), log_of(result)


def test_a_worker_ended_by_a_test_fails_the_run_under_xdist(tmp_path):
    """The tiers run under pytest-xdist: a worker that a test ends is a failed test, and the report nox
    reads is the controller's, not the crashed worker's."""
    project = copy_project(tmp_path / "project", FIXTURE)
    (project / "tests" / "test_ends.py").write_text("import os\n\ndef test_ends():\n    os._exit(0)\n")
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "tests/test_ends.py"]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=TIMEOUT,
                            env=_env(TENSORCOPY_PYTEST_REPORT=str(report)))  # fmt: skip
    assert result.returncode != 0 and "crashed" in result.stdout, log_of(result)
    assert report.exists() and json.loads(report.read_text())["exitstatus"] != 0, log_of(result)


def test_sphinx_processes_die_with_a_killed_build(tmp_path):
    """nox kills the build outright when it does not stop fast enough; its Sphinx processes must not
    live on and finish writing a site."""
    project = copy_project(tmp_path / "project", FIXTURE)
    inject(project, FIRST, "import time\ntime.sleep(120)")  # a child left alone would live two minutes
    stage = tmp_path / "stage"
    command = build_command(project, *EN_FIRST, "--stage", str(stage))
    build_process = subprocess.Popen(command, cwd=project, text=True, env=_env(), stdout=subprocess.PIPE)
    try:
        _wait_for_line(build_process, "Building")
        deadline = time.monotonic() + 60
        while not set(_processes_mentioning(str(stage))) - {build_process.pid} and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(_processes_mentioning(str(stage))) - {build_process.pid}, "no Sphinx process started"
        build_process.kill()
        build_process.wait(timeout=30)
    finally:
        if build_process.poll() is None:
            build_process.kill()
    deadline = time.monotonic() + 10
    while _processes_mentioning(str(stage)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _processes_mentioning(str(stage)), "a Sphinx process outlived the killed build"
    assert not (project / "build" / "site").exists(), "a killed build published a site"
