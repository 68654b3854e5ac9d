"""The mutations: each one edit (or one edit per edition) of the sources, and the tests that must fail.

The first group restores the 26 mutations of the audit that opened this catalog (15 of them killed at
the time, most by slow tests); the rest were added with the tests that kill them. Each ``old`` text
must occur exactly once in its file: a mutation whose text has gone is reported stale, and the run
fails, so that the catalog follows the sources.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Edit:
    path: str
    old: str
    new: str


@dataclasses.dataclass(frozen=True)
class Mutation:
    name: str
    edits: tuple[Edit, ...]
    #: pytest arguments selecting the tests expected to catch it (fast tier).
    tests: tuple[str, ...]


def mutation(name: str, path: str, old: str, new: str, *tests: str) -> Mutation:
    return Mutation(name, (Edit(path, old, new),), tests)


def both_editions(name: str, page: str, old: str, new: str, *tests: str) -> Mutation:
    """The same edit in every edition's copy of a gallery page (so that parity still holds)."""
    return Mutation(name, tuple(Edit(f"gallery/{lang}/{page}", old, new) for lang in ("en", "zh_CN")), tests)


LEDGER = "docs/_ext/tensorcopy_sphinx/claims_ledger.py"
MATRIX_EXT = "docs/_ext/tensorcopy_sphinx/behaviour_matrix.py"
ZH_SEARCH = "docs/_ext/tensorcopy_sphinx/zh_search.py"
GUARD = "sitetools/guard/example.py"
WORDS = "tests/test_expected_words.py"
FLIPS = "tests/test_flips.py"
LABELS = "tests/test_print_labels.py"
GATE = "tests/test_gate_units.py"
REFUSALS = "tests/test_build_refusals.py"
GUARD_TESTS = "tests/test_guard.py"
RULES = "tests/test_page_rules.py"

AUDIT = (
    mutation("ledger-en-holds-swapped", LEDGER,
             'HOLDS: "holds",\n        DOES_NOT_HOLD: "does not hold",',
             'HOLDS: "does not hold",\n        DOES_NOT_HOLD: "holds",', WORDS),
    mutation("matrix-zh-yes-no-swapped", MATRIX_EXT, 'True: "是",\n        False: "否",',
             'True: "否",\n        False: "是",', WORDS),
    mutation("matrix-captions-leaf-parameter-swapped", "tensorfacts/standard_sources.py",
             '"leaf": "a = torch.tensor([1., 2., 3.], requires_grad=True)",\n    "non-leaf": "x = torch.tensor('
             '[1., 2., 3.], requires_grad=True); a = x * 2",\n    "parameter": "a = torch.nn.Parameter(torch.tensor('
             '[1., 2., 3.]))",',
             '"leaf": "a = torch.nn.Parameter(torch.tensor([1., 2., 3.]))",\n    "non-leaf": "x = torch.tensor('
             '[1., 2., 3.], requires_grad=True); a = x * 2",\n    "parameter": "a = torch.tensor([1., 2., 3.], '
             'requires_grad=True)",', WORDS),
    mutation("claim-clone-new-memory-and-to-or", "tensorfacts/articles/copying_000.py",
             "c[0] = 100\n    shared, apart = same_storage(a, c), bytes_apart(a, c)\n"
             "    return Result(verdict(not shared and apart and a[0].item() == 1.0)",
             "c[0] = 100\n    shared, apart = same_storage(a, c), bytes_apart(a, c)\n"
             "    return Result(verdict(not shared or a[0].item() == 1.0)", FLIPS, "-k", "claim"),
    mutation("fact-detach-numpy-write-always-true", "tensorfacts/detach_data_facts.py",
             "return Fact(not error and a._version == 0 and grad == [20.0, 40.0, 60.0],",
             "return Fact(True,", FLIPS, "-k", "fact"),
    mutation("decision-never-data-edit-over-no-sources", "tensorfacts/decisions.py",
             '_rows(m, "a.data", GRAD_SOURCES, inplace_edit=EDIT_SILENT)',
             '_rows(m, "a.data", (), inplace_edit=EDIT_SILENT)', FLIPS, "-k", "premise"),
    mutation("volatile-time-removed", "sitetools/rules/sources.py", '"data_ptr", "time", ', '"data_ptr", ', LABELS),
    both_editions("label-same-storage-says-separate", "copying/plot_04_detach.py",
                  'print("same storage:", same_storage(a, c))', 'print("separate storage:", same_storage(a, c))',
                  RULES, "-k", "every_source"),
    mutation("search-one-word-scoring", "docs/_static/site_search.js",
             "page.weight += Math.log(1 + result.score) + 0.5 * rarity * (result.score / best);",
             "page.weight = Math.max(page.weight, result.score);", "tests/test_search_ranking.py"),
    mutation("search-excerpt-shows-readers-words", "docs/_static/site_search.js",
             "marked(ownText(plain(sub.excerpt || data.excerpt)), words)",
             "marked(plain(sub.excerpt || data.excerpt), words)", "tests/test_search_ranking.py"),
    mutation("search-stop-words-kept", "docs/_static/site_search.js", "  return named.length ? named : unique;",
             "  return unique;", "tests/test_search_ranking.py"),
    mutation("search-query-chinese-unsegmented", "docs/_static/site_search.js", "      if (!HAN.test(run)) {",
             "      if (true) {", "tests/test_search_ranking.py"),
    mutation("search-index-chinese-unsegmented", "sitetools/web/search.py",
             "words = [word for word in self.tokenizer.cut(run, HMM=False) if word]", "words = [run]",
             "tests/test_search_ranking.py"),
    mutation("zh-query-splitter-removed", ZH_SEARCH, "    js_splitter_code = SPLIT_QUERY_JS\n", "", GATE,
             "-k", "splitter"),
    mutation("guard-python-warnings-not-errors", GUARD, '        warnings.simplefilter("error")\n', "",
             GUARD_TESTS),
    mutation("rerun-report-any-for-repeated-messages", "sitetools/releases/rerun_cell.py",
             '"agrees" if all(h for h, _ in held)', '"agrees" if any(h for h, _ in held)',
             "tests/test_rerun_checks.py"),
    mutation("stamp-torch-version-hard-coded", "docs/_ext/tensorcopy_sphinx/build_info.py",
             '"torch_version": version("torch"),', '"torch_version": "2.13.0",', GATE, "-k", "versions"),
    mutation("outputs-compared-by-count", "sitetools/building/pipeline.py",
             "blocks != by_lang[reference]:", "len(blocks) != len(by_lang[reference]):", GATE),
    mutation("example-timer-never-set", GUARD, "        signal.setitimer(signal.ITIMER_REAL, limit)\n", "",
             GUARD_TESTS, "-k", "time_limit"),
    mutation("switch-template-inverted", "docs/_templates/language-switch.html", "{%- if link.current %}",
             "{%- if not link.current %}", GATE, "-k", "switch"),
    # The audit's mutations that its tests caught then; they stay in the catalog.
    mutation("same-storage-compares-identity", "tensorfacts/tensors.py",
             "return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()",
             "return x is y", "tests/test_tensorfacts_claims.py"),
    mutation("probe-shares-storage-negated", "tensorfacts/probes.py",
             "return NOT_MADE if m.b is None else same_storage(m.a, m.b)",
             "return NOT_MADE if m.b is None else not same_storage(m.a, m.b)", "tests/test_tensorfacts_matrix.py"),
    mutation("switch-current-inverted", "docs/_ext/tensorcopy_sphinx/language_switch.py",
             '"current": row.code == current,', '"current": row.code != current,', "tests/test_editions.py"),
    mutation("literal-print-any-literal", "sitetools/rules/sources.py", "and all(_literal(arg) for arg in node.args)",
             "and any(_literal(arg) for arg in node.args)", RULES, "-k", "every_source"),
    mutation("parity-compares-token-count", "sitetools/rules/sources.py", "if code_tokens(a) != code_tokens(b):",
             "if len(code_tokens(a)) != len(code_tokens(b)):", RULES, "-k", "number_changed"),
    mutation("hidden-inplace-not-seen", "sitetools/rules/sources.py",
             'func.attr.endswith("_") and not func.attr.startswith("_")',
             'func.attr.endswith("__") and not func.attr.startswith("_")', RULES, "-k", "hidden"),
    mutation("fact-warnings-ignored", "tensorfacts/fact_registry.py",
             "    if caught:\n        return Fact(False, f\"a warning escaped",
             "    if False:\n        return Fact(False, f\"a warning escaped", FLIPS, "-k", "warning"),
    mutation("claim-warnings-ignored", "tensorfacts/verdicts.py", "    if caught:\n", "    if False:\n",
             FLIPS, "-k", "warning"),
    mutation("facts-run-without-grad", "tensorfacts/fact_registry.py",
             "    with torch.enable_grad(), warnings.catch_warnings",
             "    with torch.no_grad(), warnings.catch_warnings", "tests/test_prose_facts.py", "-k", "holds_on"),
    mutation("guard-logging-errors-only", GUARD, "super().__init__(level=logging.WARNING)",
             "super().__init__(level=logging.ERROR)", GUARD_TESTS),
    mutation("ledger-summary-counts-swapped", LEDGER, '"summary": "Claims checked on torch {torch}: {total}. '
             'Verdicts: holds {holds}, does not hold {not_hold}, ', '"summary": "Claims checked on torch {torch}: '
             '{total}. Verdicts: holds {not_hold}, does not hold {holds}, ', WORDS),
    mutation("matrix-zh-headers-swapped", MATRIX_EXT, '"same_object": "同一对象",', '"same_object": "共享存储",',
             WORDS),
)

OWN = (
    mutation("guard-anomaly-not-reset", GUARD, "    torch.autograd.set_detect_anomaly(False)\n", "", GUARD_TESTS),
    mutation("guard-deterministic-not-watched", GUARD,
             '        "torch deterministic algorithms": torch.are_deterministic_algorithms_enabled(),\n', "",
             GUARD_TESTS),
    mutation("guard-print-options-not-watched", GUARD, '        "torch print options": dict(vars(PRINT_OPTS)),\n',
             "", GUARD_TESTS),
    mutation("guard-logging-level-not-watched", GUARD, '        "logging root level": root.level,\n', "",
             GUARD_TESTS),
    mutation("guard-default-device-not-watched", GUARD,
             '        "torch default device": str(torch.get_default_device()),\n', "", GUARD_TESTS),
    mutation("guard-torch-seed-not-reset", GUARD, "    torch.manual_seed(seed)\n", "", GUARD_TESTS, "-k", "seed"),
    mutation("guard-inference-mode-not-watched", GUARD,
             '        "torch inference mode": torch.is_inference_mode_enabled(),\n', "", GUARD_TESTS, "-k",
             "inference"),
    mutation("volatile-now-removed", "sitetools/rules/sources.py", '"now", ', "", LABELS),
    mutation("labels-rule-unhooked", "sitetools/rules/sources.py",
             "        for line, problem in print_labels.problems(tree):\n", "        for line, problem in []:\n",
             RULES, "-k", "label"),
    mutation("labels-negative-storage-lenient", "sitetools/rules/print_labels.py",
             "        if sharing is not False:", "        if sharing is True:", LABELS),
    mutation("labels-identity-ops-ignored", "sitetools/rules/print_labels.py",
             "not isinstance(value, ast.Compare) or _ops(value) != _ops(node)", "not isinstance(value, ast.Compare)",
             LABELS),
    mutation("splitter-longest-two", ZH_SEARCH, "const longest = 8;", "const longest = 2;", GATE, "-k",
             "splitter"),
    mutation("publish-before-verify", "sitetools/building/pipeline.py",
             "    verify_examples(building, stage, langs, scripts)\n",
             "    publish(building, out)\n    return 0.0\n", GATE, "-k", "publishes"),
    mutation("timeout-not-passed-to-sphinx", "sitetools/settings.py", "TIMEOUT: str(timeout), ", "", GATE, "-k",
             "time_limit"),
    mutation("fact-deepcopy-grad-identity-dropped", "tensorfacts/general_facts.py",
             "own = b.grad is not a.grad and (a.device.type",
             "own = True or b.grad is not a.grad and (a.device.type", FLIPS, "-k", "fact"),
    mutation("premise-snapshot-reads-no-sources", "tensorfacts/decisions.py",
             '_rows(m, "a.detach().clone()", GRAD_SOURCES, inplace_edit=EDIT_UNAFFECTED)',
             '_rows(m, "a.detach().clone()", (), inplace_edit=EDIT_UNAFFECTED)', FLIPS, "-k", "premise"),
    mutation("matrix-en-yes-no-swapped", MATRIX_EXT, 'True: "yes",\n        False: "no",',
             'True: "no",\n        False: "yes",', WORDS),
    mutation("ledger-zh-holds-swapped", LEDGER, 'HOLDS: "成立",\n        DOES_NOT_HOLD: "不成立",',
             'HOLDS: "不成立",\n        DOES_NOT_HOLD: "成立",', WORDS),
    mutation("build-runs-optimised", "sitetools/building/pipeline.py", "    refuse_optimised()\n", "",
             REFUSALS, "-k", "optimised and python"),
    mutation("stage-may-overlap-the-site", "sitetools/building/pipeline.py",
             "    refuse_overlap(stage, out, building)\n", "",
             REFUSALS, "-k", "optimised and published"),
)

RENDERING = (
    mutation("matrix-renders-booleans-inverted", MATRIX_EXT, "        word = w[bool(value)]\n",
             "        word = w[not value]\n", "tests/test_rendered_matrix.py", "-k", "follows"),
    mutation("ledger-renders-a-fixed-verdict-word", LEDGER, "            word = w[outcome.result.verdict]\n",
             '            word = w["holds"]\n', "tests/test_rendered_ledger.py", "-k", "follows"),
    mutation("guide-items-truncated", MATRIX_EXT, "item += advice_blocks(advice.text(language), docname)",
             "item += advice_blocks(advice.text(language)[:60], docname)",
             "tests/test_glossary_and_decisions.py", "-k", "render"),
    mutation("fact-role-never-warns", MATRIX_EXT, "    if not result.holds:\n        source, line",
             "    if False:\n        source, line", "tests/test_prose_facts.py", "-k", "fact_role"),
)

PAGES = (
    mutation("answer-fix-lines-not-checked", "sitetools/rules/answer_box.py",
             "                 for line in fix if line not in run]", "                 for line in fix if False]",
             "tests/test_answer_box.py", "-k", "fix_line"),
    mutation("answer-box-position-not-checked", "sitetools/rules/answer_box.py",
             "    if not content or not content[0].startswith(\".. admonition::\"):",
             "    while content and not content[0].startswith(\".. admonition::\"):\n        content.pop(0)\n"
             "    if not content:", "tests/test_answer_box.py", "-k", "after_another"),
    mutation("first-mention-not-checked", "sitetools/rules/first_mentions.py",
             "        if first:\n", "        if False:\n",
             "tests/test_terms.py", "-k", "first_mention"),
    mutation("first-mention-reads-alt-text", "sitetools/rules/first_mentions.py",
             "    for pattern in (_ALT_TEXT, _CODE, _TITLE, _XREF):", "    for pattern in (_CODE, _TITLE, _XREF):",
             "tests/test_terms.py", "-k", "first_mention"),
    mutation("description-runs-on-into-code", "docs/_ext/tensorcopy_sphinx/cjk_linebreaks.py",
             "        if isinstance(child, nodes.section) or (", "        if False and (",
             "tests/test_chinese_chrome.py", "-k", "opening"),
    mutation("description-glues-latin-to-chinese", "docs/_ext/tensorcopy_sphinx/cjk_linebreaks.py",
             '    return _LATIN_AFTER_HAN.sub(" ", _STRAY_SPACE.sub("", text))',
             '    return _STRAY_SPACE.sub("", text)',
             "tests/test_chinese_chrome.py", "-k", "reads_as_chinese"),
    mutation("facts-page-titles-unquoted", "docs/_ext/tensorcopy_sphinx/fact_index.py",
             '"quotes": ("《", "》"),', '"quotes": ("", ""),', "tests/test_fact_index.py", "-k", "told_apart"),
    both_editions("page-loses-its-figure-silently", "questions/plot_16_function_arguments.py",
                  'draw_memory("add_one_in_place(a); returned = add_one(a)", a=a, returned=returned)\n',
                  'print("a:", a)\n', "tests/test_figures.py", "-k", "nine_in_ten"),
)

#: One mutation for each module of the gate: the page's outputs, the record of the checks that ran, the
#: compared global state, the output rules, the check rules and the refusal of active content.
GATE_MODULES = (
    mutation("page-outputs-sources-not-compared", "sitetools/guard/outputs.py",
             "for name in diff(self.sources_before, sources)]", "for name in []]", "tests/test_page_outputs.py"),
    mutation("check-runs-a-failed-assert-counts-as-held", "sitetools/guard/check_runs.py",
             "held = runs.ran[line] > runs.failed[line]", "held = runs.ran[line] > 0", "tests/test_check_runs.py"),
    mutation("state-function-modes-not-seen", "sitetools/guard/state.py",
             "for mode in _get_current_function_mode_stack()\n                                 if",
             "for mode in []\n                                 if", GUARD_TESTS, "-k", "leaves_behind"),
    mutation("output-any-module-imported", "sitetools/rules/output.py",
             "refused = [alias.name for alias in node.names if not allowed_import(alias.name)]", "refused = []",
             "tests/test_output_rules.py"),
    mutation("check-rules-hidden-numpy-may-multiply", "sitetools/rules/checks.py",
             '"shares_memory", "may_share_memory",', '"shares_memory", "may_share_memory", "multiply",',
             "tests/test_check_rules.py"),
    mutation("active-content-script-tag-allowed", "sitetools/rules/active_content.py",
             '    (re.compile(r"<\\s*script", re.I), "<script>"),\n', "", "tests/test_active_content.py"),
)

MUTATIONS: tuple[Mutation, ...] = AUDIT + OWN + RENDERING + PAGES + GATE_MODULES
