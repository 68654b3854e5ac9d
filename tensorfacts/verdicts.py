"""Running the claims' checks: each in a clean torch state, never raising, warnings caught."""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections.abc import Iterator

import torch

from tensorfacts import articles
from tensorfacts.model import VERDICTS, Claim, Outcome, Result


@contextlib.contextmanager
def clean_torch_state() -> Iterator[None]:
    """Default print options and grad mode on while checks run; the caller's state comes back."""
    from torch._tensor_str import PRINT_OPTS

    saved = dataclasses.asdict(PRINT_OPTS) if dataclasses.is_dataclass(PRINT_OPTS) else dict(vars(PRINT_OPTS))
    torch.set_printoptions(profile="default")
    try:
        with torch.enable_grad():
            yield
    finally:
        for key, value in saved.items():
            setattr(PRINT_OPTS, key, value)


def run_claim(entry: Claim) -> Outcome:
    """Run one claim's check. Never raises: a missing check or a failure becomes ``problem``."""
    check = articles.CHECKS.get(entry.id)
    if check is None:
        return Outcome(entry, None, "no check is registered for this claim")
    with clean_torch_state(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = check()
        except Exception as exc:  # reported as a build warning, never hidden
            return Outcome(entry, None, f"the check raised {type(exc).__name__}: {exc}")
    if caught:
        first = caught[0]
        return Outcome(entry, None, f"the check let a warning escape: {first.category.__name__}: {first.message}")
    if not isinstance(result, Result) or result.verdict not in VERDICTS:
        return Outcome(entry, None, f"the check returned {result!r}, not one of {VERDICTS}")
    return Outcome(entry, result)


def run_all(claims: list[Claim] | None = None) -> list[Outcome]:
    """Run every claim's check (or those of ``claims``), in ledger order."""
    return [run_claim(entry) for entry in (articles.CLAIMS if claims is None else claims)]


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    """How many outcomes have each verdict."""
    counts = {v: 0 for v in VERDICTS}
    for outcome in outcomes:
        if outcome.verdict is not None:
            counts[outcome.verdict] += 1
    return counts
