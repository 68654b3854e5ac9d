"""A sentence's scope is checked, not only its example (tensorfacts.scope, the scoped facts of
tensorfacts.general_facts), and the sentences these facts replaced fail over the same range."""

from __future__ import annotations

import copy
import dataclasses
from unittest import mock

import pytest
import torch

from editions import CODES
from tensorfacts import (
    data_setter_facts,
    fact_registry,
    facts,
    general_facts,
    meta_reasons,
    scope,
    standard_sources,
    trainable_copy_facts,
)
from tensorfacts import matrix as mp
from tensorfacts.decisions import DECISIONS
from tensorfacts.scope import Raised

SCOPED = sorted(facts.SCOPES)


def _failing_cases(check, expect, cases) -> list[str]:
    wrong, _ = scope.mismatches(check, expect, cases)
    return wrong


# --- The range --------------------------------------------------------------------------------


def test_the_standard_range_is_every_source_dtype_and_device_meta_included():
    cases = scope.cases()
    assert {c.source for c in cases} == set(standard_sources.SOURCES)
    assert {c.device for c in cases} >= {"cpu", "meta"}
    assert {c.dtype for c in cases} >= {torch.float32, torch.float64}


def test_a_case_makes_the_matrix_source_in_its_dtype_and_on_its_device():
    leaf, a = scope.Case("parameter", torch.float64, "meta").build()
    assert type(a) is torch.nn.Parameter and a.dtype == torch.float64 and a.device.type == "meta"
    assert torch.get_default_dtype() == torch.float32, "the case put the default dtype back"


@pytest.mark.parametrize("fact_id", SCOPED)
def test_a_scoped_fact_covers_the_standard_range_or_says_why_not(fact_id):
    parts = facts.SCOPES[fact_id]
    full = scope.cases(() if parts.sources is not None else None)
    if len(parts.cases) < len(full):
        for code in CODES:
            assert parts.narrower and parts.narrower[code].strip(), f"{fact_id}: no reason in {code}"
    for code in CODES:
        words = facts.ABOUT[fact_id].scope_in(code)
        assert f"({len(parts.cases)} " in words or f"共 {len(parts.cases)} " in words, words
        assert all(device in words for device in {c.device for c in parts.cases}), words


@pytest.mark.parametrize("code", CODES)
def test_a_scope_ends_with_a_reason_only_where_a_scoped_fact_leaves_cases_out(code):
    """As the facts page says: "Narrower because:" ends the scope of each scoped fact that runs fewer cases
    than the standard range, and of no other fact."""
    because = scope.WORDS[code]["because"].split("{")[0]
    with_reason = {fact_id for fact_id in facts.FACTS if because in facts.ABOUT[fact_id].scope_in(code)}
    narrower = {fact_id for fact_id, parts in facts.SCOPES.items()
                if len(parts.cases) < len(scope.cases(() if parts.sources is not None else None))}
    assert narrower and with_reason == narrower


#: Each edition's full stop, written here: a scope that only lists its cases is a phrase and ends without one,
#: in every form (the standard range or a list); the Chinese reason is a sentence and ends with its own.
FULL_STOP = {"en": ".", "zh_CN": "。"}


@pytest.mark.parametrize("code", CODES)
def test_a_scope_ends_with_a_full_stop_only_after_a_chinese_reason(code):
    because = scope.WORDS[code]["because"].split("{")[0]
    endings = {fact_id: (because in facts.ABOUT[fact_id].scope_in(code),
                         facts.ABOUT[fact_id].scope_in(code).rstrip().endswith(FULL_STOP[code]))
               for fact_id in facts.FACTS}
    wrong = {fact_id: ends for fact_id, (reason, ends) in endings.items() if ends != (reason and code == "zh_CN")}
    assert not wrong, f"scopes ending with the wrong punctuation in {code}: {sorted(wrong)}"


def test_a_narrower_range_without_a_reason_is_refused():
    parts = fact_registry.Scoped(lambda case: 1, lambda case: 1, ("leaf",), scope.DTYPES, ("cpu",), None)
    with pytest.raises(ValueError, match="without saying why"):
        _ = parts.cases


def test_leaving_meta_out_needs_a_reason_that_checks_its_words():
    why = {"en": "why", "zh_CN": "为何"}
    parts = fact_registry.Scoped(lambda case: 1, lambda case: 1, (), scope.DTYPES, ("cpu",), why)
    with pytest.raises(ValueError, match="scope.Reason"):
        _ = parts.cases


def test_a_reason_that_does_not_hold_in_a_meta_case_left_out_fails_the_fact():
    reason = scope.Reason({"en": "why", "zh_CN": "为何"}, lambda case: case.dtype != torch.float64)
    parts = fact_registry.Scoped(lambda case: 1, lambda case: 1, ("leaf",), scope.DTYPES, ("cpu",), reason)
    result = parts.run()
    assert not result.holds and "plain float64 meta" in result.trace and "float32" not in result.trace
    assert fact_registry.Scoped(lambda case: 1, lambda case: 1, ("leaf",), scope.DTYPES, ("cpu",),
                                reason.around(after={"en": "; more", "zh_CN": "；更多"})).run().holds is False


@pytest.mark.parametrize("holds, change", [
    (meta_reasons.storages_start_at_zero, mock.patch.object(torch.UntypedStorage, "data_ptr", lambda self: 8)),
    (meta_reasons.holds_no_values, mock.patch.object(torch.Tensor, "tolist", lambda self: [])),
    (meta_reasons.holds_no_values, mock.patch.object(torch.Tensor, "cpu", lambda self: self)),
])
def test_the_meta_reasons_turn_false_under_a_changed_torch(holds, change):
    case = scope.Case("leaf", torch.float32, "meta")
    assert scope.observe(holds, case) is True
    with change:
        assert scope.observe(holds, case) is not True


@pytest.mark.parametrize("fact_id", SCOPED)
def test_a_scoped_fact_fails_when_one_case_disagrees(fact_id, monkeypatch):
    """Each case counts: expecting something else in any single case makes the fact fail."""
    parts = facts.SCOPES[fact_id]
    for victim in (parts.cases[0], parts.cases[-1]):
        broken = dataclasses.replace(parts, expect=lambda case, v=victim: "something else" if case == v
                                   else parts.expect(case))
        result = broken.run()
        assert not result.holds and victim.label in result.trace


# --- The old sentences, run over the range their words claimed -----------------------------------


def test_old_deepcopy_copies_grad_fails_on_the_parameter():
    """The matrix guide said "It copies .grad too" of every tensor deepcopy accepts."""
    accepted = tuple(s for s in standard_sources.SOURCES if s not in ("non-leaf", "view"))
    wrong = _failing_cases(general_facts.deepcopy_grad, lambda case: "copied", scope.cases(accepted))
    assert wrong and all(w.startswith("parameter ") for w in wrong)


def test_old_edit_before_save_gives_a_wrong_gradient_fails_on_leaves():
    """The guide said such an edit gives "a wrong gradient": on a leaf it is the gradient at the edited values."""
    cases = scope.cases(general_facts.GRAD_SOURCES, devices=scope.VALUE_DEVICES)
    wrong = _failing_cases(general_facts.edit_before_save, lambda case: (True, False), cases)
    assert {w.split()[0] for w in wrong} == {"leaf", "parameter", "view"}


def test_old_logging_with_detach_fails_in_the_loop():
    """The decision page said `a.detach()` is the way "to log, plot or compare" values."""
    cases = scope.cases(general_facts.TRAINABLE, devices=scope.VALUE_DEVICES)
    wrong = _failing_cases(lambda c: general_facts.log_in_a_loop(c, lambda w, loss: w.detach()),
                           lambda case: general_facts.EACH_STEP, cases)
    assert len(wrong) == len(cases) and all(general_facts.FINAL_W in w for w in wrong)


def test_old_trainable_copy_by_deepcopy_fails():
    """The decision page said `copy.deepcopy(a)` makes "a second trainable copy"."""
    cases = scope.cases(devices=scope.VALUE_DEVICES)
    wrong = _failing_cases(lambda c: trainable_copy_facts.train_a_copy(c, copy.deepcopy),
                           lambda case: "trains apart", cases)
    assert {w.split()[0] for w in wrong} == {"leaf", "non-leaf", "view", "plain", "inference"}
    assert any("stale" in w for w in wrong if w.startswith("leaf "))


def test_old_data_setter_with_no_check_at_all_fails():
    """The summary page said `p.data = t` puts another tensor under `p` "with no check at all"."""
    def accepted_all(case):
        return {what: "accepted" for what in data_setter_facts.data_setter(case)}

    wrong = _failing_cases(data_setter_facts.data_setter, accepted_all, scope.cases())
    assert len(wrong) == len(scope.cases())


# --- The new sentences' facts, each stated once and cited where the behaviour is stated ----------


def test_the_advice_checks_the_call_it_recommends():
    """The trainable-copy fact trains exactly the call the decision page names."""
    case = scope.Case("leaf", torch.float32, "cpu")
    assert scope.observe(trainable_copy_facts._trainable_copy, case) == "trains apart"
    assert scope.observe(lambda c: trainable_copy_facts.train_a_copy(c, lambda a: a.detach().clone()), case) == (
        "not a new trainable leaf")


def test_deepcopy_and_grad_is_one_fact_on_both_pages():
    """The matrix guide and the decision page state what deepcopy does with .grad: one fact."""
    guide = next(a for a in mp.GUIDE if a.id == "deepcopy")
    answer = next(a for a in DECISIONS if a.id == "need-trainable-copy")
    assert "deepcopy-grad-by-source" in guide.facts and "deepcopy-grad-by-source" in answer.facts


def test_an_error_is_an_observation_that_keeps_its_message():
    raised = scope.observe(lambda case: copy.deepcopy(case.build()[1]), scope.Case("non-leaf", torch.float32, "cpu"))
    assert raised == Raised("RuntimeError") and "graph leaves" in repr(raised)


def test_values_on_meta_compare_shape_and_dtype_only():
    x, y = torch.zeros(3, device="meta"), torch.ones(3, device="meta")
    assert scope.values_equal(x, y) and not scope.values_equal(x, torch.zeros(2, device="meta"))
    assert not scope.values_equal(torch.zeros(3), torch.ones(3))


@pytest.mark.parametrize("fact_id", sorted(facts.FACTS))
def test_every_fact_says_what_it_runs_and_its_scope_in_every_edition(fact_id):
    about = facts.ABOUT[fact_id]
    for code in CODES:
        assert about.runs_in(code).strip() and about.scope_in(code).strip()
