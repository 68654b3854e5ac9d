# /// script
# dependencies = ["nox==2026.10.20"]
# ///
"""Maintainer tasks: ``nox -s docs``, ``nox -s tests``, ``nox -s fast``, ``nox -s preview``, ``nox -s lint``,
``nox -s serve``, ``nox -s audit``."""

import json
import shutil
import tempfile
from pathlib import Path

import nox

nox.needs_version = ">=2026.10.20"
nox.options.default_venv_backend = "virtualenv"  # pip finds the pinned CPU build of torch
nox.options.sessions = ["lint", "tests"]
# Reuse each session's virtualenv: installing torch and Sphinx is most of a cold run. pip still checks
# the pinned versions every time, so a changed pin reaches the existing virtualenv.
nox.options.reuse_venv = "yes"

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
PYTHON = PYPROJECT["project"]["requires-python"].removeprefix("==").removesuffix(".*")
SITE = ROOT / "build" / "html"
TIERS = PYPROJECT["tool"]["tensorcopy"]["tiers"]


#: On Ctrl-C nox waits this long for the build to stop its Sphinx processes and clean up before it
#: kills it (its default is a fraction of a second).
STOP_GRACE = {"interrupt_timeout": 20, "terminate_timeout": 20}


def install_group(session: nox.Session, group: str) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, group))


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the site in every language, plus the landing page, into build/html."""
    install_group(session, "docs")
    session.run("python", "docs/build_site.py", *session.posargs, **STOP_GRACE)


def run_pytest(session: nox.Session, *args: str) -> None:
    """Run pytest, and fail unless it reached its end: a test that ends the process with exit code 0
    (an example calling os._exit, say) must not read as success."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "pytest-report.json"
        session.run("pytest", *args, env={"TENSORCOPY_PYTEST_REPORT": str(report)})
        if not report.exists():
            session.error("pytest ended without finishing its run: a test ended the process early")
        if json.loads(report.read_text(encoding="utf-8"))["exitstatus"] != 0:
            session.error("pytest reported failures")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run every test; the session builds the site once, in a temporary folder."""
    install_group(session, "tests")
    if shutil.which("npm"):  # axe-core and the Nu HTML checker, pinned in package-lock.json
        # --ignore-scripts: vnu-jar's install script would download a Java of its own.
        session.run("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", external=True)
    else:
        session.warn("npm not found: the HTML-validity and accessibility checks will be skipped")
    run_pytest(session, *TIERS["whole"], *session.posargs)


@nox.session(python=PYTHON)
def fast(session: nox.Session) -> None:
    """Run the fast tier only: engine, extensions, page rules, parity, scripts; no site build."""
    install_group(session, "tests")
    run_pytest(session, *TIERS["fast"], *session.posargs)


@nox.session(python=PYTHON)
def mutate(session: nox.Session) -> None:
    """Break the sources one mutation at a time in a temporary copy; report which the tests catch."""
    install_group(session, "tests")
    session.run("python", "-m", "tests.mutations", *session.posargs)


@nox.session(python=PYTHON)
def timings(session: nox.Session) -> None:
    """Measure a clean build, a preview, the fast tier and the whole suite in one run."""
    install_group(session, "tests")
    session.run("python", "-m", "sitetools.timings", *session.posargs)


@nox.session(python=PYTHON)
def preview(session: nox.Session) -> None:
    """Build a preview of some examples in every language: nox -s preview -- copying/plot_04_detach."""
    install_group(session, "docs")
    if not session.posargs:
        session.error("name the examples to preview, for example: nox -s preview -- copying/plot_04_detach")
    names = [arg for name in session.posargs for arg in ("--only", name)]
    session.run("python", "docs/build_site.py", *names, **STOP_GRACE)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Check the Python sources with ruff."""
    install_group(session, "lint")
    session.run("ruff", "check", ".")


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """Build the site, then preview it on http://127.0.0.1:8000/ (Ctrl-C stops)."""
    install_group(session, "docs")
    session.run("python", "docs/build_site.py", "--out", str(SITE), **STOP_GRACE)
    port = session.posargs[0] if session.posargs else "8000"
    session.log(f"Serving {SITE} on http://127.0.0.1:{port}/")
    session.run("python", "-m", "http.server", "--bind", "127.0.0.1", port, "--directory", str(SITE))


@nox.session(python=PYTHON)
def audit(session: nox.Session) -> None:
    """Lighthouse (mobile) on both homes, the landing page, an example and the ledger of each edition;
    prints the figures and fails over budget. Builds into build/audit first, unless given a site:
    nox -s audit -- --site build/html (built with SITE_URL=http://127.0.0.1:8765/ for absolute links)."""
    install_group(session, "docs")
    session.run("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", external=True)
    session.run("python", "-m", "sitetools.audit", *session.posargs)
