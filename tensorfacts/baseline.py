"""The reviewed baseline: the verdicts a maintainer last accepted, one per claim id.

The ledger reports every claim whose computed verdict differs from the baseline, so a new torch
that changes a verdict fails the build until the pages have been re-read and the baseline refreshed
with ``python -m tensorfacts --update-baseline``.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from tensorfacts.model import Outcome

#: The recorded baseline of reviewed verdicts, keyed by claim id.
BASELINE = Path(__file__).resolve().parent / "claim_verdicts.json"


def load_baseline(path: Path | None = None) -> dict[str, str]:
    """The reviewed verdicts, keyed by claim id ({} when there is no baseline yet)."""
    path = path or BASELINE
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["verdicts"]


def compare_with_baseline(outcomes: list[Outcome], baseline: dict[str, str]) -> list[str]:
    """Messages for every difference between computed verdicts and the recorded baseline."""
    messages = []
    known = set()
    for outcome in outcomes:
        claim_id = outcome.claim.id
        known.add(claim_id)
        if outcome.verdict is None:
            continue  # reported on its own as a problem
        if claim_id not in baseline:
            messages.append(f"claim {claim_id}: no recorded verdict in the baseline (computed: {outcome.verdict})")
        elif baseline[claim_id] != outcome.verdict:
            messages.append(f"claim {claim_id} changed verdict: {baseline[claim_id]} -> {outcome.verdict}")
    for claim_id in sorted(set(baseline) - known):
        messages.append(f"claim {claim_id} is in the baseline but no longer in the ledger")
    return messages


def write_baseline(outcomes: list[Outcome], path: Path | None = None) -> None:
    """Record the verdicts of ``outcomes`` (and the torch they ran on) as the reviewed baseline."""
    path = path or BASELINE
    verdicts = {o.claim.id: o.verdict for o in outcomes if o.verdict is not None}
    payload = {"torch": torch.__version__.split("+")[0], "verdicts": dict(sorted(verdicts.items()))}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
