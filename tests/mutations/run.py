"""Run the mutation audit: ``python -m tests.mutations [--catalog NAME] [--sample N] [--seed S] [--only NAME ...]``.

For each mutation: a fresh copy of the project's sources in a temporary folder, the mutation's edits
applied there (never in the working tree), then the mutation's tests run in that copy with pytest (fast
tier, one process). A test failure kills the mutation; tests that all pass let it survive. Before the
mutations, the same tests run once on an unmutated copy and must pass, so that a kill is the
mutation's doing. One mutation runs at a time. Exit status: 0 when every mutation run was killed, 1
otherwise (a survivor, a baseline that fails, or a stale mutation anywhere in the catalog: that check
reads every mutation's file on every run, a sample's too).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.gallery_tools import ROOT, copy_project
from tests.mutations.catalog import MUTATIONS, Mutation

TIMEOUT = 900  # seconds for one mutation's tests


def apply(project: Path, mutation: Mutation) -> str | None:
    """Apply every edit of ``mutation`` to ``project``; the reason it is stale, or None."""
    for edit in mutation.edits:
        path = project / edit.path
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        count = text.count(edit.old)
        if count != 1:
            return f"{edit.path}: the text to change occurs {count} times, not once"
        path.write_text(text.replace(edit.old, edit.new), encoding="utf-8")
    return None


#: The lists of mutations ``--catalog`` chooses from (modules of tests.mutations holding MUTATIONS).
CATALOGS = ("catalog", "independent")


def load(catalog: str) -> list[Mutation]:
    return list(importlib.import_module(f"tests.mutations.{catalog}").MUTATIONS)


def stale_mutations(root: Path = ROOT, mutations: list[Mutation] = MUTATIONS) -> list[str]:
    """Every mutation of the catalog whose text to change is not in its file exactly once (read only)."""
    found = []
    for mutation in mutations:
        for edit in mutation.edits:
            path = root / edit.path
            count = path.read_text(encoding="utf-8").count(edit.old) if path.exists() else 0
            if count != 1:
                found.append(f"{mutation.name}: {edit.path} holds the text to change {count} times, not once")
    return found


def pytest(project: Path, *selection: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TENSORCOPY_", "PYTEST_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # No -m filter: a mutation names the tests that catch it, and some are in the slow tier (they build a
    # mini-site or run the facts); a test that needs the built site builds it.
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly",
               "--no-header", *selection]
    return subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=TIMEOUT, env=env)


def last_line(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in result.stdout.splitlines() or result.stderr.splitlines() if line.strip()]
    return lines[-1].strip("= ") if lines else ""


def run_one(mutation: Mutation, base: Path) -> tuple[str, str, float]:
    """(status, detail, seconds): status is killed, survived, stale or empty (no test selected)."""
    started = time.monotonic()
    project = copy_project(base / mutation.name)
    try:
        stale = apply(project, mutation)
        if stale:
            return "stale", stale, time.monotonic() - started
        result = pytest(project, *mutation.tests)
    except subprocess.TimeoutExpired:
        return "killed", f"the tests ran past {TIMEOUT} s", time.monotonic() - started
    finally:
        shutil.rmtree(project, ignore_errors=True)
    seconds = time.monotonic() - started
    if result.returncode == 0:
        return "survived", last_line(result), seconds
    if result.returncode == 5:
        return "empty", "the selection collected no test", seconds
    return "killed", last_line(result), seconds


def baseline(mutations: list[Mutation], base: Path) -> subprocess.CompletedProcess:
    """Every selection of ``mutations`` on an unmutated copy (one pytest run per distinct selection)."""
    project = copy_project(base / "baseline")
    try:
        for selection in dict.fromkeys(m.tests for m in mutations):
            result = pytest(project, *selection)
            if result.returncode != 0:
                return result
        return result
    finally:
        shutil.rmtree(project, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutations", description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", choices=CATALOGS, default="catalog", help="the list to run (default catalog)")
    parser.add_argument("--sample", type=int, help="run only N mutations, drawn at random (for CI)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample's draw (default 0)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutations")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run on the unmutated copy")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    every = load(args.catalog)
    chosen = list(every)
    if args.list:
        for m in chosen:
            print(f"{m.name:48} {', '.join(e.path for e in m.edits)}  ->  {' '.join(m.tests)}")
        return 0
    if args.only:
        unknown = set(args.only) - {m.name for m in chosen}
        if unknown:
            parser.error(f"no such mutation: {', '.join(sorted(unknown))}")
        chosen = [m for m in chosen if m.name in args.only]
    if args.sample is not None and args.sample < len(chosen):
        chosen = random.Random(args.seed).sample(chosen, args.sample)
    stale = stale_mutations(mutations=every)
    if stale:  # checked for the whole catalog on every run, a sample's too
        print("stale mutations (update them with the code they break):\n  " + "\n  ".join(stale))
        return 1
    if args.sample is not None:
        print(f"a sample of {len(chosen)} drawn with --seed {args.seed}")
    base = Path(tempfile.mkdtemp(prefix="tensorcopy-mutate-"))
    started = time.monotonic()
    try:
        if not args.no_baseline:
            result = baseline(chosen, base)
            if result.returncode != 0:
                print(f"the tests fail without any mutation:\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}")
                return 1
            print(f"baseline: the selected tests pass on an unmutated copy ({time.monotonic() - started:.0f} s)",
                  flush=True)
        counts: dict[str, list[str]] = {}
        for number, m in enumerate(chosen, start=1):
            status, detail, seconds = run_one(m, base)
            counts.setdefault(status, []).append(m.name)
            print(f"[{number}/{len(chosen)}] {status.upper():8} {m.name} ({seconds:.0f} s): {detail}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    killed, survived = len(counts.get("killed", [])), len(counts.get("survived", []))
    ran = killed + survived
    rate = f"{100 * killed / ran:.1f} %" if ran else "n/a"
    print(f"\n{killed} killed, {survived} survived ({rate} killed); "
          f"{len(counts.get('stale', []))} stale, {len(counts.get('empty', []))} with no test selected; "
          f"{time.monotonic() - started:.0f} s")
    for status in ("survived", "stale", "empty"):
        if counts.get(status):
            print(f"{status}: {', '.join(counts[status])}")
    return 0 if killed == len(chosen) else 1
