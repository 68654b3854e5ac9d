"""Test fixtures: one build of the whole site per test session, served on 127.0.0.1, and a browser.

Tests come in two tiers. A test that needs a built site (the ``site_dir``, ``site_url`` or ``browser``
fixtures), or builds one, a mini-site or a preview itself, runs every page's code or the facts, or reads
every page (marked ``slow``, each such test saying why), is in the slow tier; every other test is
fast: ``nox -s fast`` selects them alone. Both tiers run on every core under pytest-xdist, one test file
per worker at a time (``pyproject.toml``,
``[tool.tensorcopy.tiers]``); the site is built once per run, by the first worker that needs it
(``tests.gallery_tools.shared_build``).

``TENSORCOPY_SITE=<dir>`` reuses a site that ``docs/build_site.py`` built already (handy while
editing tests); without it, the session builds the site from the sources into a temporary folder.
The MyST ``{doctest}`` blocks of the narrative pages are collected by sybil.
"""

import json
import os
import shutil
from doctest import ELLIPSIS, NORMALIZE_WHITESPACE
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.myst import DocTestDirectiveParser

from tests.gallery_tools import once_per_run, serve, shared_build
from tests.site_audit import ci_strict

ROOT = Path(__file__).resolve().parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytest_collect_file = Sybil(
    parsers=[DocTestDirectiveParser(optionflags=ELLIPSIS | NORMALIZE_WHITESPACE)],
    path=str(ROOT / "docs"),
    patterns=["en/*.md", "zh_CN/*.md"],
).pytest()


@pytest.fixture(scope="session")
def site_dir(request) -> Path:
    """The built site (both editions and the landing page), built once per test run."""
    reuse = os.environ.get("TENSORCOPY_SITE")
    if reuse:
        return Path(reuse).resolve()
    return shared_build(request, "site")


@pytest.fixture(scope="session")
def fact_results(request) -> dict:
    """What every named fact gives on this torch, unchanged (``tensorfacts.facts.run_fact``), run once per test
    run and shared by the tests that read it (the verdicts, the flips' state before a change, the facts page's
    mini-sites); a test that changes torch or a fact runs the fact itself."""
    from tensorfacts import facts

    return once_per_run(request, "fact-results",
                        lambda folder: {fact_id: facts.run_fact(fact_id) for fact_id in sorted(facts.FACTS)})


@pytest.fixture
def facts_as_run(fact_results, monkeypatch) -> None:
    """Every named fact gives what it gave in this test run (:func:`fact_results`) without running again, for the
    tests of what a build does with a fact's result (a mini-site of the guides or the glossary runs dozens); a test
    that breaks a fact sets that one after."""
    from tensorfacts import facts

    for fact_id, result in fact_results.items():
        monkeypatch.setitem(facts.FACTS, fact_id, lambda result=result: result)


@pytest.fixture(scope="session")
def site_url(site_dir):
    """The built site served on 127.0.0.1 (base URL, no trailing slash)."""
    with serve(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium):
    """Headless system Chromium for the tests of the built site (the slow tier)."""
    return chromium


@pytest.fixture(scope="session")
def chromium():
    """Headless system Chromium driven by Playwright, one per test process; skipped where Chromium is
    not installed. A test that asks for it alone (no built site) stays in the fast tier."""
    if CHROMIUM is None:
        reason = "chromium is not installed (apt-get install chromium fonts-noto-cjk)"
        if ci_strict():
            pytest.fail(f"{reason}: CI must run the browser checks", pytrace=False)
        pytest.skip(f"{reason}; browser checks skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


SLOW_FIXTURES = {"site_dir", "site_url", "browser"}
#: The test files that keep a worker busy longest, measured: they start first, so that no core
#: waits at the end of a run for the last of them.
LONGEST_FIRST = ("test_web_published.py", "test_page_visits.py", "test_faults.py", "test_site_fidelity.py",
                 "test_downloads.py")


def pytest_collection_modifyitems(config, items):
    """Put every test that needs a built site into the slow tier, and the longest files first."""
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    rank = {name: number for number, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


def pytest_sessionfinish(session, exitstatus):
    """Write the result where nox looks for it: a run that ends without reaching this line (a test
    that ended the process) is a failure even if the process exit code was 0. Under pytest-xdist only
    the controller writes it; a worker that dies takes its tests down as failures."""
    report = os.environ.get("TENSORCOPY_PYTEST_REPORT")
    if report and not hasattr(session.config, "workerinput"):
        Path(report).write_text(json.dumps({"exitstatus": int(exitstatus)}), encoding="utf-8")
