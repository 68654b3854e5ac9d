"""A second, independent set of mutations, written without reading the catalog's list.

Twenty changes a hurried contributor could make, spread over the engine, the build and its gate, the
Sphinx extensions, the shared configuration and the pages; each names the fast tests judged to catch
it. Run them with ``python -m tests.mutations --catalog independent`` (``nox -s mutate -- --catalog
independent``). Some can only be caught by a site build (the slow tier), which the tool does not run:
their comment says so.
"""

from __future__ import annotations

from tests.mutations.catalog import Edit, Mutation


def mutation(name: str, path: str, old: str, new: str, *tests: str) -> Mutation:
    return Mutation(name, (Edit(path, old, new),), tests)


def both_editions(name: str, page: str, old: str, new: str, *tests: str) -> Mutation:
    return Mutation(name, tuple(Edit(f"gallery/{lang}/{page}", old, new) for lang in ("en", "zh_CN")), tests)


ZH_REBINDING = "gallery/zh_CN/copying/plot_05_rebinding.py"

MUTATIONS: list[Mutation] = [
    # --- The engine ----------------------------------------------------------------------------
    # A claim's check that warns is no longer reported: the ledger shows a verdict of a noisy check.
    mutation("ind-claim-warnings-ignored", "tensorfacts/verdicts.py",
             'warnings.simplefilter("always")', 'warnings.simplefilter("ignore")',
             "tests/test_tensorfacts_claims.py", "tests/test_flips.py"),
    # The calculus of the non-leaf source done wrong (d/dx (2x)**2 read as 4x): the edit columns lie.
    mutation("ind-true-gradient-nonleaf-wrong", "tensorfacts/standard_sources.py",
             '"non-leaf": [8.0, 16.0, 24.0],', '"non-leaf": [4.0, 8.0, 12.0],',
             "tests/test_tensorfacts_matrix.py"),
    # The version column says "shared" for every row (>= instead of !=).
    mutation("ind-shares-version-always-yes", "tensorfacts/probes.py",
             "return m.a._version != before", "return m.a._version >= before",
             "tests/test_tensorfacts_matrix.py"),
    # A silent wrong gradient reads as "unaffected": only the presence of .grad is checked.
    mutation("ind-silent-edit-reads-unaffected", "tensorfacts/probes.py",
             "right = m.leaf.grad is not None and m.leaf.grad.tolist() == TRUE_GRADIENT[source]",
             "right = m.leaf.grad is not None",
             "tests/test_tensorfacts_matrix.py"),
    # Scoped facts compare shape and dtype only: a copy with other values "holds".
    mutation("ind-scope-values-equal-ignores-values", "tensorfacts/scope.py",
             "return x.shape == y.shape and x.dtype == y.dtype and bool(torch.equal(x, y))",
             "return x.shape == y.shape and x.dtype == y.dtype",
             "tests/test_scope.py"),
    # A premise that reads nothing: the row is compared with itself (a copy-paste slip).
    mutation("ind-premise-compares-row-with-itself", "tensorfacts/matrix.py",
             'lambda m: same_row(m, "a.clone().detach()", "a.detach().clone()"),',
             'lambda m: same_row(m, "a.clone().detach()", "a.clone().detach()"),',
             "tests/test_tensorfacts_matrix.py", "tests/test_flips.py"),
    # --- The build and its gate ----------------------------------------------------------------
    # The guard lets an example's warnings pass (shown once, no longer an error).
    mutation("ind-guard-warnings-not-errors", "sitetools/guard/example.py",
             'warnings.simplefilter("error")', 'warnings.simplefilter("default")',
             "tests/test_guard.py"),
    # Parity ignores strings "because labels are translated": printed labels may drift between editions.
    mutation("ind-parity-ignores-strings", "sitetools/rules/sources.py",
             "skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}",
             "skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.STRING}",
             "tests/test_page_rules.py", "tests/test_sync.py"),
    # Printing an address passes the page rules.
    mutation("ind-volatile-forgets-data-ptr", "sitetools/rules/sources.py",
             'VOLATILE = {"id", "data_ptr", "time",', 'VOLATILE = {"id", "time",',
             "tests/test_page_rules.py"),
    # `not same_storage(...)` reads as a sharing test: a label "shared" may print the opposite.
    mutation("ind-label-negation-dropped", "sitetools/rules/print_labels.py",
             "return None if inner is None else not inner", "return inner",
             "tests/test_print_labels.py"),
    # The condition inverted: the full build accepts checks gallery/asserts.json does not record.
    # Only a build sees it (slow tier, tests/test_build_refusals.py); the fast selection is a guess.
    mutation("ind-full-build-accepts-unrecorded", "sitetools/building/pipeline.py",
             "    if not preview:\n        problems += unrecorded",
             "    if preview:\n        problems += unrecorded",
             "tests/test_gate_units.py", "tests/test_page_asserts.py", "tests/test_build_refusals.py"),
    # The editions' outputs compared by count only: a page printing other values in one edition passes.
    mutation("ind-outputs-compared-by-count", "sitetools/building/pipeline.py",
             "and blocks != by_lang[reference]:", "and len(blocks) != len(by_lang[reference]):",
             "tests/test_gate_units.py"),
    # --- The extensions ------------------------------------------------------------------------
    # The ledger's summary counts the differing outputs as "do not hold".
    mutation("ind-ledger-summary-wrong-count", "docs/_ext/tensorcopy_sphinx/claims_ledger.py",
             "not_hold=counts[DOES_NOT_HOLD],", "not_hold=counts[OUTPUT_DIFFERS],",
             "tests/test_rendered_ledger.py"),
    # A refused edit that wrote all the same is shown as a plain refusal.
    mutation("ind-matrix-hides-changed-anyway", "docs/_ext/tensorcopy_sphinx/behaviour_matrix.py",
             'word = w[value.kind] + (w["changed_anyway"] if value.changed else "")',
             "word = w[value.kind]",
             "tests/test_rendered_matrix.py"),
    # The language switch lands on the other edition's home, not the page's counterpart.
    mutation("ind-switch-lands-on-home", "docs/_ext/tensorcopy_sphinx/language_switch.py",
             '"href": f"{outer}{row.code}/{page}",', '"href": f"{outer}{row.code}/index.html",',
             "tests/test_editions.py", "tests/test_gate_units.py"),
    # The query splitter's test inverted: Chinese runs are never segmented, Latin ones are.
    mutation("ind-zh-query-unsegmented", "docs/_ext/tensorcopy_sphinx/zh_search.py",
             r"if (!/\p{Script=Han}/u.test(run) || known(run)) {",
             r"if (/\p{Script=Han}/u.test(run) || known(run)) {",
             "tests/test_gate_units.py", "tests/test_editions.py"),
    # --- The shared configuration --------------------------------------------------------------
    # sphinx-gallery runs only plot_0*: the pages numbered 10 and up are published without running.
    # Caught by a build (the completion records; slow tier); the fast selection is a guess.
    mutation("ind-conf-pattern-skips-late-pages", "docs/_shared/conf.py",
             '"filename_pattern": r"/plot_",', '"filename_pattern": r"/plot_0",',
             "tests/test_editions.py", "tests/test_page_rules.py"),
    # --- The pages -----------------------------------------------------------------------------
    # A check removed from a page (in both editions, so parity holds): the claim is left unchecked.
    both_editions("ind-page-drops-a-check", "copying/plot_03_clone.py",
                  'assert not c.is_leaf, "the clone must not be a leaf"\n', "",
                  "tests/test_page_rules.py"),
    # A translator localises a printed label in the Chinese edition only: the code cells drift.
    mutation("ind-zh-label-translated", ZH_REBINDING,
             'print("same storage:", same_storage(a, c))', 'print("共享存储：", same_storage(a, c))',
             "tests/test_page_rules.py"),
    # A half-width comma in Chinese prose.
    mutation("ind-zh-halfwidth-comma", ZH_REBINDING,
             "，``c`` 则留在旧内存上", ", ``c`` 则留在旧内存上",
             "tests/test_typography.py", "tests/test_page_rules.py"),
]
