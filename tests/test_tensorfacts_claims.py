"""The claims ledger (tensorfacts.articles, .verdicts, .baseline, .cli and the claims_ledger directive):
every claim has a check, every verdict is computed, every change is reported."""

from __future__ import annotations

import contextlib
import json
import re

import pytest
import torch

from editions import CODES, edition
from tensorfacts import articles, baseline, cli, snippets, tensors, verdicts
from tensorfacts.model import DOES_NOT_HOLD, HOLDS, NOT_A_CLAIM, OUTPUT_DIFFERS, Outcome
from tensorfacts.sources import copying_000
from tests.claims_tools import (
    MODES,
    PATCHES,
    ROOT,
    CountTorchCalls,
    RefuseTorch,
    build_mini_site,
)

CLAIM_IDS = [c.id for c in articles.CLAIMS]
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return {o.claim.id: o for o in verdicts.run_all()}


# --- The data ---------------------------------------------------------------------------------


def test_every_claim_has_exactly_one_check():
    assert len(CLAIM_IDS) == len(set(CLAIM_IDS)), "claim ids must be unique"
    assert set(articles.CHECKS) == set(CLAIM_IDS), (
        f"claims without a check: {sorted(set(CLAIM_IDS) - set(articles.CHECKS))}; "
        f"checks without a claim: {sorted(set(articles.CHECKS) - set(CLAIM_IDS))}")


@pytest.mark.parametrize("entry", articles.CLAIMS, ids=CLAIM_IDS)
def test_claim_is_described_in_every_edition(entry):
    assert entry.id.startswith(f"{entry.article}-"), "an id starts with its article number"
    assert entry.article in articles.ARTICLES
    assert (entry.article, entry.section) in articles.SECTIONS
    assert entry.gallery in articles.GALLERY_LABELS
    for code in CODES:
        text = entry.text(code)
        assert text.strip() and bool(CJK.search(text)) == edition(code).cjk, f"the {code} text is in {code}"
        assert text.count("`") % 2 == 0, "inline code is closed"


@pytest.mark.parametrize("lang", CODES)
def test_every_gallery_label_exists_in_both_trees(lang):
    scripts = sorted((ROOT / "gallery" / lang).rglob("*.py"))
    defined = {m for s in scripts for m in re.findall(r"^\.\. _([\w-]+):", s.read_text(
        encoding="utf-8"), flags=re.M)}
    used = {c.gallery for c in articles.CLAIMS} | set(articles.GALLERY_LABELS)
    assert used <= defined, f"labels missing from gallery/{lang}: {sorted(used - defined)}"


def test_the_ledger_has_between_30_and_50_claims_from_both_articles():
    assert 30 <= len(articles.CLAIMS) <= 50
    assert {c.article for c in articles.CLAIMS} == set(articles.ARTICLES)
    assert {(c.article, c.section) for c in articles.CLAIMS} == set(articles.SECTIONS), (
        "every section of both articles has at least one claim")


# --- The checks -------------------------------------------------------------------------------


def test_every_check_returns_a_verdict(outcomes):
    problems = {i: o.problem for i, o in outcomes.items() if o.problem}
    assert not problems


def test_verdicts_match_the_reviewed_baseline(outcomes):
    differences = baseline.compare_with_baseline(list(outcomes.values()), baseline.load_baseline())
    assert not differences, (
        "torch changed a verdict: review the pages, then run "
        "`python -m tensorfacts --update-baseline`\n" + "\n".join(differences))


def test_checks_are_deterministic_and_print_no_address(outcomes):
    again = {o.claim.id: o for o in verdicts.run_all()}
    for claim_id, outcome in outcomes.items():
        assert again[claim_id].result == outcome.result, f"{claim_id} differs between two runs"
        for code in CODES:
            assert not re.search(r"0x[0-9a-f]{4,}", outcome.result.trace(code)), claim_id


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_check_runs_tensor_code(claim_id):
    with CountTorchCalls() as counter:
        outcome = verdicts.run_claim(articles.CLAIMS[CLAIM_IDS.index(claim_id)])
    assert outcome.problem is None
    assert counter.calls > 0, f"the check of {claim_id} calls no torch function"


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_check_cannot_answer_without_torch(claim_id):
    """With every torch call failing, no check may still come up with a verdict."""
    with RefuseTorch():
        outcome = verdicts.run_claim(articles.CLAIMS[CLAIM_IDS.index(claim_id)])
    assert outcome.verdict is None and "torch is switched off" in outcome.problem


#: For every claim: a change of torch behaviour (see tests/claims_tools.py) and the verdict the
#: check must then return. A verdict that were typed in, not computed, would not follow.
FLIPS: dict[str, tuple[str, str]] = {
    "000-loop-runs-as-printed": ("restored loop", HOLDS),
    "000-loop-output": ("data copies", DOES_NOT_HOLD),
    "000-data-not-new-memory": ("data copies", DOES_NOT_HOLD),
    "000-alias-and-data-linked": ("data copies", DOES_NOT_HOLD),
    "000-detach-clone-leaves-graph": ("detach keeps grad", DOES_NOT_HOLD),
    "000-detach-clone-own-memory": ("clone aliases", DOES_NOT_HOLD),
    "000-clone-identical": ("equal is false", DOES_NOT_HOLD),
    "000-clone-new-memory": ("clone aliases", DOES_NOT_HOLD),
    "000-clone-in-graph": ("clone detaches", DOES_NOT_HOLD),
    "000-clone-not-leaf": ("clone detaches", DOES_NOT_HOLD),
    "000-clone-print-a": ("repr changed", OUTPUT_DIFFERS),
    "000-clone-print-c": ("old grad_fn names", HOLDS),
    "000-clone-print-a-grad": ("repr changed", OUTPUT_DIFFERS),
    "000-clone-print-c-grad": ("quiet .grad", HOLDS),
    "000-clone-print-requires-grad": ("requires_grad reads False", DOES_NOT_HOLD),
    "000-clone-rebind-keeps-c": ("printing edits the tensor", DOES_NOT_HOLD),
    "000-clone-unrelated": ("clone detaches", HOLDS),
    "000-clone-requires-grad-follows": ("clone detaches", DOES_NOT_HOLD),
    "000-clone-grads-unrelated": ("clone detaches", HOLDS),
    "000-detach-identical": ("detach changes dtype", DOES_NOT_HOLD),
    "000-detach-shares-memory": ("detach copies", DOES_NOT_HOLD),
    "000-detach-leaves-graph": ("detach keeps grad", DOES_NOT_HOLD),
    "000-detach-metadata-ops-error": ("metadata ops raise", HOLDS),
    "000-detach-prints": ("repr changed", OUTPUT_DIFFERS),
    "000-detach-edit-propagates": ("detach copies", DOES_NOT_HOLD),
    "000-detach-only-requires-grad": ("detach copies", DOES_NOT_HOLD),
    "000-note-commented-edit": ("setitem never fails", HOLDS),
    "000-note-print-c-comment": ("ones is 1-D", HOLDS),
    "000-note-output": ("old grad_fn names", OUTPUT_DIFFERS),
    "000-note-rebind-breaks-link": ("sub in place", DOES_NOT_HOLD),
    "000-add-rebind-breaks-link": ("add in place", DOES_NOT_HOLD),
    "000-add-output": ("repr changed", OUTPUT_DIFFERS),
    "004-both-separate": ("detach keeps grad", DOES_NOT_HOLD),
    "004-data-shares": ("data copies", DOES_NOT_HOLD),
    "004-data-not-differentiable": ("data keeps grad", DOES_NOT_HOLD),
    "004-data-edit-propagates": ("data copies", DOES_NOT_HOLD),
    "004-data-backward-silent": ("data copies", DOES_NOT_HOLD),
    "004-data-output": ("old grad_fn names", HOLDS),
    "004-data-untracked": ("views bump version", DOES_NOT_HOLD),
    "004-detach-shares": ("detach copies", DOES_NOT_HOLD),
    "004-detach-backward-error": ("detach copies", DOES_NOT_HOLD),
    "004-detach-output": ("old grad_fn names", HOLDS),
    "004-detach-error-message": ("backward raises the article's error", HOLDS),
    "004-detach-like-data": ("detach copies", DOES_NOT_HOLD),
    "004-both-in-place": ("data copies", DOES_NOT_HOLD),
    "004-attribute-vs-method": ("data is a method", DOES_NOT_HOLD),
    "004-data-unsafe": ("data copies", DOES_NOT_HOLD),
    "004-detach-safe": ("detach copies", HOLDS),
}


def test_every_claim_has_a_flip():
    assert set(FLIPS) == set(CLAIM_IDS), (
        f"claims without a flip test: {sorted(set(CLAIM_IDS) - set(FLIPS))}")


@contextlib.contextmanager
def changed_torch(name: str, monkeypatch):
    """Activate one change: a torch function mode, or a monkeypatch."""
    if name in PATCHES:
        PATCHES[name](monkeypatch)
        yield
    else:
        with MODES[name]():
            yield


@pytest.mark.parametrize("claim_id", CLAIM_IDS)
def test_verdict_follows_torch(claim_id, outcomes, monkeypatch):
    change, expected = FLIPS[claim_id]
    assert outcomes[claim_id].verdict != expected, "a flip must change the verdict"
    entry = articles.CLAIMS[CLAIM_IDS.index(claim_id)]
    with changed_torch(change, monkeypatch):
        flipped = verdicts.run_claim(entry)
    assert flipped.problem is None, flipped.problem
    assert flipped.verdict == expected, (
        f"with '{change}', {claim_id} should be {expected}, got {flipped.verdict}")


# --- Three checks, each against changes that keep its claim true and ones that break it -------


def _run(claim_id: str) -> Outcome:
    outcome = verdicts.run_claim(articles.CLAIMS[CLAIM_IDS.index(claim_id)])
    assert outcome.problem is None, outcome.problem
    return outcome


def _with_source(monkeypatch, old: str, new: str) -> None:
    """Run the article's clone example with ``old`` replaced by ``new``."""
    assert old in copying_000.CLONE_EXAMPLE
    monkeypatch.setattr(copying_000, "CLONE_EXAMPLE", copying_000.CLONE_EXAMPLE.replace(old, new))


def test_rebind_keeps_c_compares_c_before_and_after(monkeypatch):
    """The claim is about `a = 1` leaving `c` as it was, whatever values it holds."""
    claim_id = "000-clone-rebind-keeps-c"
    with MODES["tolist reversed"]():  # both readings reversed alike: c did not change
        assert _run(claim_id).verdict == HOLDS
    with monkeypatch.context() as patch:
        _with_source(patch, "[1,2,3]", "[4,5,6]")
        outcome = _run(claim_id)
        assert outcome.verdict == HOLDS and "[4.0, 5.0, 6.0]" in outcome.result.trace("en")
    with MODES["printing edits the tensor"]():  # the last print(c) moves c after the rebinding
        outcome = _run(claim_id)
    assert outcome.verdict == DOES_NOT_HOLD
    assert "before `a = 1`: `[2.0, 3.0, 4.0]`; after: `[3.0, 4.0, 5.0]`" in outcome.result.trace("en")


def test_print_c_trace_shows_a_print_that_differs(monkeypatch):
    claim_id = "000-clone-print-c"
    printed = _run(claim_id).result.observed
    today = [*copying_000.CLONE_COMMENTS]
    today[1] = printed  # as if the article had pasted what this torch prints
    with monkeypatch.context() as patch:
        patch.setattr(copying_000, "CLONE_COMMENTS", tuple(today))
        assert _run(claim_id).verdict == HOLDS
        # Only the print after `a = 1` differs now: the trace must show that one.
        _with_source(patch, "a = 1\nprint(c)\n", "a = 1\nprint(c * 1)\n")
        outcome = _run(claim_id)
    assert outcome.verdict == OUTPUT_DIFFERS
    assert "MulBackward0" in outcome.result.observed and printed not in outcome.result.observed
    with MODES["old grad_fn names"]():  # both prints as the article pasted them
        assert _run(claim_id).verdict == HOLDS


@pytest.mark.parametrize(("pasted", "printed", "expected"), [
    ("tensor([1., 2., 3.])", "tensor([1., 2., 3.])", HOLDS),
    ("tensor([0., 0.], grad_fn=<SigmoidBackward>)", "tensor([0., 0.], grad_fn=<SigmoidBackward0>)", OUTPUT_DIFFERS),
    ("tensor([[1., 1.], [1., 1.]])", "tensor([[1.0000, 1.0000],\n        [1.0000, 1.0000]])", OUTPUT_DIFFERS),
    ("tensor([1., 2., 3.])", "tensor([[1., 1.],\n        [1., 1.]])", DOES_NOT_HOLD),
    ("tensor([1., 1., 1., 1.])", "tensor([[1., 1.],\n        [1., 1.]])", DOES_NOT_HOLD),
    ("True", "False", DOES_NOT_HOLD),
    ("tensor([2., 4., 6.])", "None", DOES_NOT_HOLD),
])
def test_a_pasted_output_differs_in_format_or_in_values(pasted, printed, expected):
    """Another repr of the same values is an output that differs; other values or another shape do not hold."""
    assert snippets.compare_output(pasted, printed) == expected


def test_fills_own_memory_finds_gaps_and_repeats():
    """The clone-identical note's check: an expanded tensor repeats elements, a step slice leaves gaps, a
    slice from offset 1 starts inside its storage; a clone of each fills memory of its own."""
    made = [torch.ones(1, 2).expand(2, 2), torch.ones(2, 4)[:, ::2], torch.ones(4)[1:], torch.ones(2, 3).t()]
    assert [tensors.fills_own_memory(t) for t in made] == [False, False, False, True]
    assert all(tensors.fills_own_memory(t.clone()) for t in made)
    assert len(tensors.expanded_and_step_sliced()) > 200


def test_detach_identical_reports_what_differs():
    claim_id = "000-detach-identical"
    for change in ("detach copies", "detach keeps grad"):  # still the same values and dtype
        with MODES[change]():
            assert _run(claim_id).verdict == HOLDS, change
    with MODES["detach changes dtype"]():
        outcome = _run(claim_id)
    assert outcome.verdict == DOES_NOT_HOLD
    assert "`a.dtype = torch.float32`; `c.dtype = torch.float64`" in outcome.result.trace("en")
    with MODES["detach changes values"]():
        outcome = _run(claim_id)
    assert outcome.verdict == DOES_NOT_HOLD
    assert "`torch.equal(a, c) = False`" in outcome.result.trace("en")


# --- Build warnings ------------------------------------------------------------------------------


def test_build_warns_about_each_changed_verdict(tmp_path, outcomes, monkeypatch):
    recorded_path = tmp_path / "baseline.json"
    reviewed = {i: o.verdict for i, o in outcomes.items()}
    reviewed["004-detach-safe"] = HOLDS  # as if a maintainer had reviewed another torch
    recorded_path.write_text(json.dumps({"torch": "x", "verdicts": reviewed}), encoding="utf-8")
    monkeypatch.setattr(baseline, "BASELINE", recorded_path)
    html, warnings = build_mini_site(tmp_path, "```{claims-ledger}\n```")
    assert "004-detach-safe changed verdict: holds -> does-not-hold" in warnings
    assert warnings.count("WARNING") == 1, warnings
    assert 'id="claim-004-detach-safe"' in html


def test_build_warns_about_missing_and_failing_checks(tmp_path, monkeypatch):
    monkeypatch.delitem(articles.CHECKS, "000-clone-identical")

    def broken():
        raise ValueError("boom")

    monkeypatch.setitem(articles.CHECKS, "000-clone-in-graph", broken)
    _, warnings = build_mini_site(tmp_path, "```{claims-ledger}\n:article: \"000\"\n```")
    assert "claim 000-clone-identical: no check is registered" in warnings
    assert "claim 000-clone-in-graph: the check raised ValueError: boom" in warnings


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_clean_build_has_no_warning_and_links_every_claim(tmp_path):
    html, warnings = build_mini_site(tmp_path, "```{claims-ledger}\n```", language="zh_CN")
    assert warnings == ""
    assert html.count('class="reference internal"') >= len(articles.CLAIMS)
    counted = len(articles.CLAIMS) - verdicts.summary(verdicts.run_all())[NOT_A_CLAIM]
    assert f"共 {counted} 条说法" in html


def test_update_baseline_command(tmp_path, monkeypatch, capsys):
    recorded_path = tmp_path / "claim_verdicts.json"
    monkeypatch.setattr(baseline, "BASELINE", recorded_path)
    assert cli.main([]) == 1  # no baseline yet: every claim is reported
    assert cli.main(["--update-baseline"]) == 0
    recorded = json.loads(recorded_path.read_text(encoding="utf-8"))["verdicts"]
    assert set(recorded) == set(CLAIM_IDS)
    assert cli.main([]) == 0
    capsys.readouterr()


def test_list_command_names_every_claim_without_running_it(capsys):
    with RefuseTorch():
        assert cli.main(["--list"]) == 0
    shown = capsys.readouterr().out
    assert all(claim_id in shown for claim_id in CLAIM_IDS)
