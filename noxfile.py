# /// script
# dependencies = ["nox==2026.10.20"]
# ///
"""Maintainer tasks: ``nox -s docs``, ``nox -s tests``, ``nox -s lint``, ``nox -s serve``."""

import shutil
from pathlib import Path

import nox

nox.needs_version = ">=2026.10.20"
nox.options.default_venv_backend = "virtualenv"  # pip finds the pinned CPU build of torch
nox.options.sessions = ["lint", "tests"]

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
PYTHON = PYPROJECT["project"]["requires-python"].removeprefix("==").removesuffix(".*")
SITE = ROOT / "build" / "html"


def install_group(session: nox.Session, group: str) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, group))


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the site in every language, plus the landing page, into build/html."""
    install_group(session, "docs")
    session.run("python", "docs/build_site.py", "--out", str(SITE), *session.posargs)


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run every test; the session builds the site once, in a temporary folder."""
    install_group(session, "tests")
    if shutil.which("npm"):  # axe-core and the Nu HTML checker, pinned in package-lock.json
        # --ignore-scripts: vnu-jar's install script would download a Java of its own.
        session.run("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", external=True)
    else:
        session.warn("npm not found: the HTML-validity and accessibility checks will be skipped")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Check the Python sources with ruff."""
    install_group(session, "lint")
    session.run("ruff", "check", ".")


@nox.session(python=PYTHON)
def serve(session: nox.Session) -> None:
    """Build the site, then preview it on http://127.0.0.1:8000/ (Ctrl-C stops)."""
    install_group(session, "docs")
    session.run("python", "docs/build_site.py", "--out", str(SITE))
    port = session.posargs[0] if session.posargs else "8000"
    session.log(f"Serving {SITE} on http://127.0.0.1:{port}/")
    session.run("python", "-m", "http.server", "--bind", "127.0.0.1", port, "--directory", str(SITE))
