"""Run the ``{doctest}`` fences of the MyST narrative pages, as the build's own check.

The published expected output must be the real one, so the build runs these examples itself (the
test suite runs them again through sybil). Each page's examples share one namespace, in page order.
"""

from __future__ import annotations

import doctest
import io
import re
from pathlib import Path

FENCE = re.compile(r"^```\{doctest\}[^\n]*\n(.*?)^```", flags=re.S | re.M)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: A directive that turns an example off: its output would be published without being compared.
SKIP = re.compile(r"doctest:.*[+]SKIP")


def skipped(page: Path, shown: str) -> list[str]:
    """One problem for each example of ``page`` that a ``+SKIP`` directive turns off (the site trims
    doctest flags, so the reader would see output that no build compared)."""
    text = page.read_text(encoding="utf-8")
    return [
        f"{shown}, line {text.count(chr(10), 0, match.start(1)) + number}: a doctest marked +SKIP; every "
        "published example runs and its output is compared (see CONTRIBUTING.md, 'Pages in every edition')"
        for match in FENCE.finditer(text)
        for number, line in enumerate(match.group(1).splitlines(), start=1)
        if SKIP.search(line)
    ]


def run_page(page: Path, shown: str) -> tuple[int, list[str]]:
    """Run every doctest fence of ``page``; return (examples run, failure reports naming ``shown``)."""
    text = page.read_text(encoding="utf-8")
    parser = doctest.DocTestParser()
    globs: dict = {"__name__": "__main__"}
    ran, failures = 0, []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start(1))  # 0-based line of the fence's first example
        test = parser.get_doctest(match.group(1), globs, shown, shown, line)
        report = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        result = runner.run(test, out=report.write, clear_globs=False)
        globs = test.globs  # DocTest copies its globals: the next fence continues from these
        ran += result.attempted
        if result.failed:
            failures.append(report.getvalue().rstrip())
    return ran, failures


def run_pages(pages: list[tuple[Path, str]]) -> tuple[int, list[str]]:
    """Run the doctests of several pages; return (examples run, failure reports)."""
    total, failures = 0, []
    for page, shown in pages:
        ran, failed = run_page(page, shown)
        total += ran
        failures += failed
    return total, failures
