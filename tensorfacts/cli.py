"""The command line of the fact engine::

    python -m tensorfacts                    # print every verdict, compare with the reviewed baseline
    python -m tensorfacts --list             # list the claims (id, article, section, gallery page)
    python -m tensorfacts --update-baseline  # record the current verdicts as the new baseline
    python -m tensorfacts --matrix           # print the behaviour matrix and check the guide

The default run exits nonzero when a check has no verdict or a verdict differs from the baseline.
"""

from __future__ import annotations

import argparse

import torch

from tensorfacts import articles, baseline, verdicts
from tensorfacts.matrix import failed_premises
from tensorfacts.probes import failures, probe_all
from tensorfacts.standard_sources import SOURCE_CODE


def list_claims() -> int:
    for entry in articles.CLAIMS:
        print(f"{entry.id:40} {entry.article} {entry.section:14} {entry.gallery}")
    print(f"{len(articles.CLAIMS)} claims")
    return 0


def check_claims(update: bool) -> int:
    outcomes = verdicts.run_all()
    for outcome in outcomes:
        shown = outcome.verdict or f"PROBLEM: {outcome.problem}"
        print(f"{outcome.claim.id:40} {shown}")
    problems = [o for o in outcomes if o.problem]
    if update:
        if problems:
            print(f"not updating {baseline.BASELINE.name}: {len(problems)} claim(s) have no verdict")
            return 1
        baseline.write_baseline(outcomes)
        print(f"baseline written: {len(outcomes)} verdicts, torch {torch.__version__}")
        return 0
    differences = baseline.compare_with_baseline(outcomes, baseline.load_baseline())
    for message in differences:
        print(message)
    return 1 if problems or differences else 0


def print_matrix() -> int:
    """Print the matrix as plain text; nonzero when a probe failed or a premise of the guide broke."""
    m = probe_all()
    print(f"torch {torch.__version__}")
    for source, rows in m.items():
        print(f"\n[{source}] {SOURCE_CODE[source]}")
        for operation, cells in rows.items():
            print(f"  {operation:30} " + " | ".join(f"{k}={v!r}" for k, v in cells.items()))
    for problem in failures(m):
        print("PROBE FAILED:", problem)
    failed = failed_premises(m)
    print("\nguide premises:", "all hold" if not failed else f"FAILED: {', '.join(failed)}")
    return 1 if failed or failures(m) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorfacts", description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--list", action="store_true", help="list the claims without running them")
    group.add_argument("--update-baseline", action="store_true",
                       help="record the verdicts computed now as the reviewed baseline")
    group.add_argument("--matrix", action="store_true", help="print the behaviour matrix as plain text")
    args = parser.parse_args(argv)
    if args.list:
        return list_claims()
    if args.matrix:
        return print_matrix()
    return check_claims(update=args.update_baseline)
