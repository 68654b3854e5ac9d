"""A new page, as ``python -m sitetools.authoring.new_page`` writes it, goes through a preview before its checks
are recorded (the preview runs them and says they are not recorded yet), while the full build refuses
it until ``python -m sitetools.rules.checks_manifest --update`` has run. Built in a temporary copy."""

import subprocess
import sys

import pytest

from tests.test_faults import FIXTURE, build, copy_project, log_of

NAME = "questions/plot_99_template_check"

pytestmark = pytest.mark.slow


def test_a_template_page_previews_before_its_checks_are_recorded_and_the_build_refuses_it(tmp_path):
    project = copy_project(tmp_path / "project", FIXTURE)
    made = subprocess.run([sys.executable, "-m", "sitetools.authoring.new_page", NAME], cwd=project,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert made.returncode == 0, log_of(made)
    manifest = (project / "gallery" / "asserts.json").read_text(encoding="utf-8")

    preview = build(project, "--only", NAME)
    assert preview.returncode == 0, log_of(preview)
    assert "not recorded in gallery/asserts.json" in preview.stdout, log_of(preview)
    page = (project / "build" / "site" / "en" / "examples" / f"{NAME}.html").read_text(encoding="utf-8")
    assert "all 3 checks of this page passed" in page, "the stamp does not count the page's own checks"
    assert "sphx-glr-single-img" in page, "the template page shows no picture"
    assert (project / "gallery" / "asserts.json").read_text(encoding="utf-8") == manifest, "the preview wrote it"

    full = build(project, "--out", str(project / "build" / "full"))
    assert full.returncode != 0, log_of(full)
    assert "has a check the manifest does not record yet" in full.stderr, log_of(full)
