# /// script
# dependencies = ["nox==2026.10.20"]
# ///
"""Maintainer tasks: docs, preview, fast, tests, lint, serve, audit, timings, releases (nox -l lists them)."""

import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import nox

nox.needs_version = ">=2026.10.20"
nox.options.default_venv_backend = "virtualenv"  # pip finds the pinned CPU build of torch (never uv)
nox.options.sessions = ["lint", "tests"]
nox.options.reuse_venv = "yes"  # lint's own small virtualenv

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
PYTHON = PYPROJECT["project"]["requires-python"].removeprefix("==").removesuffix(".*")
SITE = ROOT / "build" / "html"
TIERS = PYPROJECT["tool"]["tensorcopy"]["tiers"]
# One environment, .nox/site, for every session but lint: it holds the tests group (the docs group and
# the test tools), so after `nox -s docs` a preview or the fast tier starts at once. nox 2026.10.20
# cannot point a session at another session's virtualenv, so these sessions have none of their own
# (venv_backend="none"); the first that runs makes .nox/site, and each calls its interpreter.
ENV = ROOT / ".nox" / "site"
ENV_GROUP = "tests"
ENV_PYTHON = ENV / "bin" / "python"
#: What the environment was last installed from; a changed pin in pyproject.toml changes it.
STAMP = ENV / ".tensorcopy-requirements"


#: On Ctrl-C nox waits this long for the build to stop its Sphinx processes and clean up before it
#: kills it (its default is a fraction of a second).
STOP_GRACE = {"interrupt_timeout": 20, "terminate_timeout": 20}


def install_group(session: nox.Session, group: str) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, group))


def site_env(session: nox.Session) -> dict[str, str]:
    """Make ``.nox/site`` if it is missing and install the ``tests`` group into it when the list of
    requirements changed since the last install (a stamp of the list, so an unchanged environment costs
    nothing); return the variables that run a command inside it. A lock keeps two sessions from
    installing at once."""
    requirements = list(nox.project.dependency_groups(PYPROJECT, ENV_GROUP))
    wanted = json.dumps({"python": PYTHON, "requirements": requirements}, indent=1) + "\n"
    ENV.parent.mkdir(exist_ok=True)
    with (ENV.parent / ".site.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ENV_PYTHON.exists():
            session.log(f"Making the shared environment {ENV.relative_to(ROOT)} (Python {PYTHON})")
            session.run(sys.executable, "-m", "virtualenv", "--quiet", "--python", f"python{PYTHON}", str(ENV))
        if not STAMP.exists() or STAMP.read_text(encoding="utf-8") != wanted:
            session.log(f"Installing the {ENV_GROUP!r} group of pyproject.toml into {ENV.relative_to(ROOT)}")
            STAMP.unlink(missing_ok=True)  # an interrupted install is retried next time
            session.run(str(ENV_PYTHON), "-m", "pip", "install", "--disable-pip-version-check", *requirements)
            STAMP.write_text(wanted, encoding="utf-8")
        else:
            digest = hashlib.sha256(wanted.encode()).hexdigest()[:12]
            session.log(f"{ENV.relative_to(ROOT)} is up to date with pyproject.toml (requirements {digest})")
    return {"PATH": f"{ENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "VIRTUAL_ENV": str(ENV)}


def site_python(session: nox.Session, *args: str, **kwargs) -> None:
    """Run the shared environment's Python (made or refreshed first)."""
    session.run(str(ENV_PYTHON), *args, env=site_env(session), **kwargs)


@nox.session(venv_backend="none")
def docs(session: nox.Session) -> None:
    """Build the site in every language, plus the landing page, into build/html."""
    site_python(session, "docs/build_site.py", *session.posargs, **STOP_GRACE)


def run_pytest(session: nox.Session, *args: str) -> None:
    """Run pytest, and fail unless it reached its end: a test that ends the process with exit code 0
    (an example calling os._exit, say) must not read as success."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "pytest-report.json"
        env = {**site_env(session), "TENSORCOPY_PYTEST_REPORT": str(report)}
        session.run(str(ENV_PYTHON), "-m", "pytest", *args, env=env)
        if not report.exists():
            session.error("pytest ended without finishing its run: a test ended the process early")
        if json.loads(report.read_text(encoding="utf-8"))["exitstatus"] != 0:
            session.error("pytest reported failures")


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """Run every test; the session builds the site once, in a temporary folder."""
    if shutil.which("npm"):  # axe-core and the Nu HTML checker, pinned in package-lock.json
        # --ignore-scripts: vnu-jar's install script would download a Java of its own.
        session.run("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", external=True)
    else:
        session.warn("npm not found: the HTML-validity and accessibility checks will be skipped")
    run_pytest(session, *TIERS["whole"], *session.posargs)


@nox.session(venv_backend="none")
def fast(session: nox.Session) -> None:
    """Run the fast tier only: the unit tests of the tools, the fact engine and the extensions; nothing builds,
    no page or fact runs (pyproject.toml: the slow marker)."""
    run_pytest(session, *TIERS["fast"], *session.posargs)


@nox.session(venv_backend="none")
def mutate(session: nox.Session) -> None:
    """Break the sources one mutation at a time in a temporary copy; report which the tests catch."""
    site_python(session, "-m", "tests.mutations", *session.posargs)


@nox.session(venv_backend="none")
def timings(session: nox.Session) -> None:
    """Measure a clean build, a preview, the fast tier and the whole suite in one run."""
    site_python(session, "-m", "sitetools.building.timings", *session.posargs)


@nox.session(venv_backend="none")
def preview(session: nox.Session) -> None:
    """Build a preview of some pages in every language: nox -s preview -- copying/plot_04_detach quickref."""
    if not session.posargs:
        session.error("name the examples to preview, for example: nox -s preview -- copying/plot_04_detach")
    names = [arg for name in session.posargs for arg in ("--only", name)]
    site_python(session, "docs/build_site.py", *names, **STOP_GRACE)


@nox.session(venv_backend="none")
def releases(session: nox.Session) -> None:
    """Record every check on other torch releases, one environment at a time: nox -s releases -- 2.4.1 2.14.1."""
    site_python(session, "-m", "sitetools.releases.record", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Check the Python sources with ruff."""
    install_group(session, "lint")
    session.run("ruff", "check", ".")


@nox.session(venv_backend="none")
def serve(session: nox.Session) -> None:
    """Build the site, then preview it on http://127.0.0.1:8000/ (Ctrl-C stops)."""
    site_python(session, "docs/build_site.py", "--out", str(SITE), **STOP_GRACE)
    port = session.posargs[0] if session.posargs else "8000"
    session.log(f"Serving {SITE} on http://127.0.0.1:{port}/")
    site_python(session, "-m", "http.server", "--bind", "127.0.0.1", port, "--directory", str(SITE))


@nox.session(venv_backend="none")
def audit(session: nox.Session) -> None:
    """Lighthouse (mobile) on the landing page and a page of every type in each edition, each judged by
    the median of five runs; prints the figures and fails over budget. Builds into build/audit first,
    unless given a site: nox -s audit -- --site build/html (built with SITE_URL=http://127.0.0.1:8765/
    for absolute links)."""
    session.run("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", external=True)
    site_python(session, "-m", "sitetools.web.audit", *session.posargs)
