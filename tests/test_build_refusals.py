"""The build refuses before it builds anything: folders it did not create, and sources that break a
page rule. Each case runs the real build on a temporary copy of the project (the sources that break a page
rule share two: the rules report every problem they find); none gets as far as Sphinx. The builds run side
by side (one per core)."""

import subprocess
import sys

import pytest

from tests.gallery_tools import once_per_run, side_by_side
from tests.test_faults import (
    FIRST,
    FIXTURE,
    SECOND,
    _env,
    build,
    build_batch,
    copy_project,
    digest,
    inject,
    log_of,
    page_cell,
    said_on_one_line,
)

FOLDERS = [("--stage", "."), ("--out", "."), ("--out", "docs"), ("--out", "gallery"), ("--stage", "gallery/en"),
           ("--out", ".git"), ("--out", ".."), ("--out", "/"), ("--out", "~"), ("--out", "mine")]


def _refused_folder(base, option, target):
    project = copy_project(base / f"{option}-{target}".replace("/", "_").replace(".", "dot").replace("~", "home"))
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "mine").mkdir()
    (project / "mine" / "notes.txt").write_text("not the build's")
    before = digest(project)
    command = [sys.executable, str(project / "docs" / "build_site.py"), option, target]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=60, env=_env())
    return result, before, digest(project)


@pytest.fixture(scope="module")
def folder_refusals(request):
    return once_per_run(request, "refusals",
                        lambda base: side_by_side({case: (base, *case) for case in FOLDERS}, _refused_folder))


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize(("option", "target"), FOLDERS)
def test_the_build_refuses_folders_it_did_not_create(folder_refusals, option, target):
    result, before, after = folder_refusals[(option, target)]
    assert result.returncode != 0, f"the build accepted {option} {target}:\n{log_of(result)}"
    assert "refusing" in result.stderr and "nothing was published" in result.stderr, log_of(result)
    assert after == before, "files changed although the build refused"


def _zh_number(project, fault):
    script = project / "gallery" / "zh_CN" / f"{SECOND}.py"
    text = script.read_text(encoding="utf-8")
    script.write_text(text.replace("1.0", "1.5", 1) if "1.0" in text else text.replace("1", "7", 1), "utf-8")
    return SECOND


def _stray_script(project, fault):
    for lang in ("en", "zh_CN"):
        (project / "gallery" / lang / "copying" / "helpers.py").write_text("x = 1\n", encoding="utf-8")


def _folder_without_header(project, fault):
    for lang in ("en", "zh_CN"):
        folder = project / "gallery" / lang / "extra"
        folder.mkdir()
        (folder / "plot_01_extra.py").write_text('"""\nExtra\n=====\n"""\nprint("x:", 1 + 1)\n', encoding="utf-8")


def _in_first(code):
    def breaks(project, fault):
        inject(project, FIRST, code)
        return FIRST

    return breaks


#: name -> (how to break the copy (given the copy and the name; it returns the page it broke, or None), what the
#: refusal must say, on one line; ``{page}``: that page). Each breaks a page of its own, or none, and the
#: rules report every problem they find, so the cases run in two builds: those named in FULL run the whole
#: build's check; the others a preview of the pages they break, which checks those pages' scripts with the
#: same rules (a preview reads only its own pages' scripts).
REFUSED = {
    "zh-code-differs": (_zh_number, ["gallery/zh_CN/{page}.py: code cell"]),
    "printed-literal": (page_cell('print("same storage: False")'),
                        ["gallery/en/{page}.py", "print() of literals only"]),
    "printed-address": (page_cell('print("at:", torch.zeros(1).data_ptr())'),
                        ["gallery/en/{page}.py", "prints data_ptr()"]),
    "hidden-code-edits": (page_cell("z = torch.zeros(2)\n# sphinx_gallery_start_ignore\n"
                                    "z.add_(1)\n# sphinx_gallery_end_ignore\nprint('z:', z)"),
                          ["gallery/en/{page}.py", "calls the in-place method add_()"]),
    "lost-assert": (_in_first("assert torch.zeros(1).sum() == 0"),
                    ["gallery/en/{page}.py", "has a check the manifest does not record yet"]),
    "stray-script": (_stray_script, ["gallery/en/copying/helpers.py: not named plot_*.py"]),
    "folder-without-header": (_folder_without_header, ["gallery/en/extra/GALLERY_HEADER.rst is missing"]),
}


#: The refusals the whole build must show itself: a check the manifest lacks (a preview runs it instead) and a
#: code cell that differs between the editions.
FULL = ("lost-assert", "zh-code-differs")


def _refused_sources(base, full):
    project = copy_project(base / ("full" if full else "preview"), () if full else FIXTURE)
    faults = {name: REFUSED[name][0] for name in REFUSED if (name in FULL) == full}
    if full:  # the whole build: no --only (its pages are all there)
        pages = {name: breaks(project, name) for name, breaks in faults.items()}
        result = build(project)
    else:
        result, pages = build_batch(project, faults)
    return result, pages, project


@pytest.fixture(scope="module")
def source_refusals(request):
    return once_per_run(request, "sources",
                        lambda base: side_by_side({full: (base, full) for full in (True, False)}, _refused_sources))


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("name", list(REFUSED))
def test_the_build_refuses_a_source_that_breaks_a_page_rule(source_refusals, name):
    result, pages, project = source_refusals[name in FULL]
    says = [word.replace("{page}", pages[name] or "") for word in REFUSED[name][1]]
    assert result.returncode != 0, f"the build accepted {name}:\n{log_of(result)}"
    assert said_on_one_line(result.stderr, says), f"no line of the refusal says all of {says}:\n{log_of(result)}"
    assert "Building" not in result.stdout, "the build started before checking the sources"
    assert not (project / "build" / "site").exists()


def _published(project):
    """A site as an earlier build left it: build/html with the build's marker and a page."""
    site = project / "build" / "html"
    site.mkdir(parents=True)
    (site / ".tensorcopy-build").write_text('{"kind": "site"}\n')
    (site / "index.html").write_text("<p>the published site</p>")
    return site


GATE_REFUSALS = {
    # Python run optimised strips every assert: the pages would report checks that never ran.
    "PYTHONOPTIMIZE": ((), {"PYTHONOPTIMIZE": "1"}, (), "optimised"),
    "python -O": (("-O",), {}, (), "optimised"),
    # A staging folder over the published site would be emptied into by the build and lost when it fails.
    "--stage over the published site": ((), {}, ("--out", "build/other", "--stage", "build/html"),
                                        "overlaps the published site"),
    "--stage inside the output": ((), {}, ("--out", "build/mine", "--stage", "build/mine/stage"),
                                  "overlaps the output folder"),
}


def _gate_refusal(base, name, python_flags, env, args, _):
    project = copy_project(base / name.replace(" ", "_").replace("/", "_").replace("-", ""))
    _published(project)
    before = digest(project)
    command = [sys.executable, *python_flags, str(project / "docs" / "build_site.py"), *args]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=60, env=_env(**env))
    return result, before, digest(project)


@pytest.fixture(scope="module")
def gate_refusals(request):
    def jobs(base):
        return side_by_side({name: (base, name, *case) for name, case in GATE_REFUSALS.items()}, _gate_refusal)

    return once_per_run(request, "gate-refusals", jobs)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("name", GATE_REFUSALS)
def test_the_build_refuses_to_run_optimised_or_over_its_own_output(gate_refusals, name):
    result, before, after = gate_refusals[name]
    assert result.returncode != 0, f"the build accepted {name}:\n{log_of(result)}"
    assert GATE_REFUSALS[name][3] in result.stderr and "nothing was published" in result.stderr, log_of(result)
    assert after == before, "files changed although the build refused (the published site included)"
