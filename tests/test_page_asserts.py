"""A page cannot silently lose the checks behind its prose, and it shows claims, not harness.

Every check of every page (``assert`` and must-raise block, visible or hidden) is recorded in
``gallery/asserts.json``; a page that lacks a recorded check is refused by the page rules
(``sitetools.rules.checks_manifest.check_manifest``, run by the build and by tests/test_page_rules.py), naming the
script and the check; here that check is proven on a page stripped of its asserts. New checks ask for
``python -m sitetools.rules.checks_manifest --update``. The must-raise idiom is a page rule too
(``sitetools.rules.checks``, tests/test_check_rules.py).
"""

import ast

import pytest

from sitetools.rules.checks_manifest import (
    MANIFEST,
    REFERENCE,
    ROOT,
    UPDATE_COMMAND,
    checks,
    problems,
    read_manifest,
    script_checks,
    scripts,
    visible_counts,
)
from tests.gallery_tools import LANGS, relative_name

#: The visible code is run in one edition: the editions' code cells are the same token for token
#: (tests/test_sync.py), and the build refuses editions that print differently.
RUN_LANG = LANGS[0]
#: At most this share of the code lines a reader sees may be ``assert`` lines, over all pages of a language...
MAX_RATIO = 0.10
#: ...and on any single page.
MAX_PAGE_RATIO = 0.15


def _where(script) -> str:
    return script.relative_to(ROOT).as_posix()


def test_the_manifest_lists_exactly_the_pages():
    recorded = set(read_manifest())
    pages = set(scripts(REFERENCE))
    assert recorded == pages, (
        f"{MANIFEST.relative_to(ROOT)} is out of date: pages it lacks {sorted(pages - recorded)}, "
        f"pages that no longer exist {sorted(recorded - pages)}; run `{UPDATE_COMMAND}`"
    )


def _strip_asserts(source: str) -> str:
    class Strip(ast.NodeTransformer):
        def visit_Assert(self, node):
            return ast.Pass()

    return ast.unparse(Strip().visit(ast.parse(source)))


def test_a_page_stripped_of_its_asserts_fails_the_check(tmp_path):
    """The check proven on a known-bad page: a copy of a page without any ``assert`` is reported, and
    every assert it lost is named."""
    script = scripts(REFERENCE)[next(iter(scripts(REFERENCE)))]
    stripped = tmp_path / script.name
    stripped.write_text(_strip_asserts(script.read_text(encoding="utf-8")), encoding="utf-8")
    recorded = read_manifest()[relative_name(script)]
    report = problems(str(stripped), script_checks(stripped), recorded)
    lost = [text for text in recorded if text.startswith("assert ")]
    assert lost, f"{_where(script)} records no assert to strip"
    assert len(report) == len(lost), report
    for text in lost:
        assert any(f": {text} " in line and str(stripped) in line for line in report), f"not reported: {text}"


def test_checks_are_told_apart_by_visibility():
    source = "assert x\n# sphinx_gallery_start_ignore\nassert x\n# sphinx_gallery_end_ignore\n"
    assert checks(source) == ["assert x", "assert x (hidden)"]


# --- Pages show claims, not harness --------------------------------------------------------------


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", LANGS)
def test_few_of_the_visible_code_lines_are_asserts(lang):
    counts = {name: visible_counts(path) for name, path in scripts(lang).items()}
    asserts = sum(a for a, _ in counts.values())
    code = sum(c for _, c in counts.values())
    worst = sorted(counts.items(), key=lambda item: item[1][0] / item[1][1], reverse=True)
    table = ", ".join(f"{name} {a}/{c} ({a / c:.0%})" for name, (a, c) in worst[:3])
    assert asserts / code <= MAX_RATIO, (
        f"gallery/{lang}/: {asserts} of {code} visible code lines ({asserts / code:.1%}) are asserts, more than "
        f"{MAX_RATIO:.0%}; keep one visible assert per claim and move bookkeeping checks into "
        f"`# sphinx_gallery_start_ignore` blocks. Worst pages: {table}"
    )
    heavy = [f"{name} {a}/{c} ({a / c:.0%})" for name, (a, c) in worst if a / c > MAX_PAGE_RATIO]
    assert not heavy, f"gallery/{lang}/: pages above {MAX_PAGE_RATIO:.0%} visible assert lines: {heavy}"
