"""Measure what the project promises about its own speed, in one run on this machine:

    python -m sitetools.building.timings [--skip-suite | --builds-only] [--against REV]

a clean build of the whole site, a one-page preview, the fast test tier, the whole test suite, and the
ratio of the suite to the build (the budgets: at most 6 builds and 480 s), plus the length of the largest module. Each
figure comes with the CPU time it took on all cores, which shows what more cores could gain. Each
figure is wall-clock time of a fresh process; nothing is cached between them (each build starts from
an empty folder; the suite builds its own site). With --against REV, a clean build of that git revision
(an archive of it, built by the same Python) is timed in the same run, and both builds are divided by
their page counts: the promise is that build time grows no faster than the pages.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from editions import CODES
from sitetools.rules.sources import ROOT, gallery_scripts, narrative_pages, relative_name

SOURCE_FOLDERS = ("editions", "sitetools", "tensorfacts", "docs", "tests")
TIERS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["tensorcopy"]["tiers"]
SUITE_BUDGET = 6  # the whole suite may take this many clean builds
SUITE_SECONDS = 480.0  # and at most this long
FAST_BUDGET = 30.0  # seconds


#: CPU seconds (user and system, of the command and every process it waited for) of each timed command.
CPU: dict[str, float] = {}
#: What each timed command printed.
OUTPUT: dict[str, str] = {}


def timed(command: list[str], cwd: Path = ROOT, **kwargs) -> float:
    started, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, **kwargs)
    seconds, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    CPU[" ".join(command)] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    OUTPUT[" ".join(command)] = result.stdout
    return seconds


def over(figure: float, budget: float) -> str:
    """What a budget line adds when the figure is over it."""
    return f"; OVER by {figure / budget:.1f} times" if figure > budget else ""


def page_count(tree: Path) -> int:
    """Example and narrative pages of both editions in a project tree."""
    gallery, docs = tree / "gallery", tree / "docs"
    return sum(len(gallery_scripts(code, gallery)) + len(narrative_pages(code, docs)) for code in CODES)


def revision_tree(revision: str, folder: str) -> Path:
    """The project at a git revision, unpacked into ``folder``/``revision``."""
    tree = Path(folder) / revision
    tree.mkdir()
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def build_split(output: str) -> str:
    """The build's own account of its time (Sphinx and the gate), from what it printed."""
    line = next((line for line in output.splitlines() if line.startswith("Published")), "no build summary")
    return line.split("):")[0].removeprefix("Published ") + (")" if "):" in line else "")


def largest_module() -> tuple[str, int]:
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for folder in SOURCE_FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    return max(sizes.items(), key=lambda item: item[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-suite", action="store_true", help="leave out the whole suite (the slowest part)")
    parser.add_argument("--builds-only", action="store_true", help="time the builds and the preview, no tests")
    parser.add_argument("--against", metavar="REV", help="also time a clean build of this git revision, per page")
    args = parser.parse_args(argv)
    build = [sys.executable, "docs/build_site.py"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORCOPY_")}
    figures = {}
    pages = {}
    with tempfile.TemporaryDirectory() as folder:
        if args.against:
            tree = revision_tree(args.against, folder)
            what = f"clean build of {args.against} (both editions)"
            figures[what] = timed([*build, "--out", f"{folder}/old-site"], cwd=tree, env=env)
            pages[what] = page_count(tree)
        figures["clean build (both editions)"] = timed([*build, "--out", f"{folder}/site"], env=env)
        pages["clean build (both editions)"] = page_count(ROOT)
        first = relative_name(gallery_scripts("en")[0])
        figures[f"preview of {first} (both editions)"] = timed([*build, "--out", f"{folder}/preview", "--only", first],
                                                               env=env)  # fmt: skip
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if not args.builds_only:
        figures["fast tier (-m 'not slow')"] = timed([*pytest, *TIERS["fast"]], env=env)
    if not (args.skip_suite or args.builds_only):
        figures["whole suite"] = timed([*pytest, *TIERS["whole"]], env=env)
    name, lines = largest_module()
    width = max(map(len, figures))
    for (what, seconds), cpu in zip(figures.items(), CPU.values(), strict=True):
        print(f"{what:<{width}}  {seconds:7.1f} s  ({cpu:.0f} s of CPU)")
    for (what, count), output in zip(pages.items(), OUTPUT.values(), strict=False):
        print(f"{what:<{width}}  {figures[what] / count:7.2f} s per page  ({count} pages; {build_split(output)})")
    build_time = figures["clean build (both editions)"]
    if "whole suite" in figures:
        suite = figures["whole suite"]
        ratio = suite / build_time
        print(f"{'whole suite / clean build':<{width}}  {ratio:7.1f} x  (budget {SUITE_BUDGET} x"
              f"{over(ratio, SUITE_BUDGET)})")
        print(f"{'whole suite':<{width}}  {suite:7.1f} s  (budget {SUITE_SECONDS:.0f} s{over(suite, SUITE_SECONDS)})")
    if "fast tier (-m 'not slow')" in figures:
        fast = figures["fast tier (-m 'not slow')"]
        print(f"{'fast tier':<{width}}  {fast:7.1f} s  (budget {FAST_BUDGET:.0f} s{over(fast, FAST_BUDGET)})")
    print(f"{'largest module':<{width}}  {lines:7d} lines  ({name})")
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
