"""Record every check of the site on other torch releases: ``nox -s releases -- 2.4.1 2.14.1``.

For each release, one at a time: make a virtual environment in a temporary folder, install that torch
with the NumPy it was built for and the site's matplotlib, run :mod:`sitetools.releases.checks` with its
Python (every page's checks as the rerun cell of its download runs them, the named facts, the ledger's
claims and the computed tables), compare what it found with this build's torch, write the record
``docs/_shared/releases/<release>.json`` and delete the environment, so the disk holds one release at a
time. The records are data from real runs, each naming the code of every page, fact, claim and table it ran by a
digest (:mod:`sitetools.releases.code_digests`); the build reads them (:mod:`sitetools.releases.records`).

Neither the build nor the tests run this: it downloads several GB per release.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sitetools.releases.records import RECORDS, current_codes, summary
from sitetools.rules.checks_manifest import located_checks, scripts
from sitetools.rules.sources import numbered_blocks

ROOT = Path(__file__).resolve().parents[2]
#: Every other minor release from the oldest the site supports to the newest pip offers here; the
#: workflow runs every minor release.
DEFAULT = ("2.4.1", "2.6.0", "2.8.0", "2.10.0", "2.12.1", "2.14.1")
#: NumPy for a release: 2.4 was built before NumPy 2 and is used with NumPy 1 (the last release of 1.26).
OLD_NUMPY = {"2.4": "numpy<2"}


def _pin(name: str) -> str:
    """The site's own pin of a package (``matplotlib==3.11.2``), from pyproject.toml."""
    import tomllib

    pins = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["dependency-groups"]["docs"]
    return next(pin for pin in pins if pin.split("==")[0].strip() == name)


def requirements(release: str) -> list[str]:
    """What the environment of ``release`` gets: that torch, its NumPy and the site's matplotlib."""
    minor = ".".join(release.split(".")[:2])
    return [f"torch=={release}", OLD_NUMPY.get(minor, _pin("numpy")), _pin("matplotlib")]


def page_codes() -> dict[str, dict]:
    """Every page's code as its download's rerun cell runs it, with its checks' normalised texts by line."""
    found = {}
    for name, script in scripts("en").items():
        blocks = numbered_blocks(script)
        code = "\n\n".join(content.strip("\n") for label, content, _ in blocks if label == "code") + "\n"
        found[name] = {"code": code, "checks": {str(line): text for line, text in located_checks(code)}}
    return found


def _status(holds: bool | None, error: str | None = None, missing: bool = False) -> str:
    return "not available" if missing else "errored" if error else "holds" if holds else "differs"


def compare(found: dict, reference: dict) -> dict:
    """The facts, claims and table cells of ``found`` (another release) against ``reference`` (this build):
    every fact and claim with its status; of the tables, the cells that differ, and how many agree."""
    facts = {}
    for fact_id, result in found["facts"].items():
        entry = {"status": _status(result.get("holds"), result.get("error"), result.get("missing", False))}
        if entry["status"] != "holds":
            entry["seen"] = result.get("error") or result["seen"]
        facts[fact_id] = entry
    claims = {}
    for claim_id, result in found["claims"].items():
        expected = reference["claims"].get(claim_id, {}).get("verdict")
        entry = {"status": "errored" if result["problem"] else "holds" if result["verdict"] == expected else "differs"}
        if entry["status"] != "holds":
            entry["seen"], entry["expected"] = result["problem"] or result["verdict"], expected
        claims[claim_id] = entry
    tables = {}
    for table, cells in found["tables"].items():
        expected = reference["tables"][table]
        differ = {key: {"seen": value, "expected": expected.get(key)} for key, value in cells.items()
                  if value != expected.get(key)}  # fmt: skip
        tables[table] = {"cells": len(cells), "holds": len(cells) - len(differ), "differs": differ}
    return {"facts": facts, "claims": claims, "tables": tables}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def record_release(release: str, reference: dict, pages: dict, log=print) -> dict:
    """Install ``release`` in a temporary environment, run every check, return its record; the environment
    is deleted after."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"torch-{release}-") as folder:
        env, work = Path(folder) / "env", Path(folder)
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
        python = env / "bin" / "python"
        log(f"torch {release}: installing {' '.join(requirements(release))}")
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        *requirements(release)], check=True)  # fmt: skip
        installed = time.monotonic()
        disk = sum(f.stat().st_size for f in env.rglob("*") if f.is_file() and not f.is_symlink())
        (work / "pages.json").write_text(json.dumps(pages), encoding="utf-8")
        log(f"torch {release}: installed in {installed - started:.0f} s ({disk / 1e9:.1f} GB); running the checks")
        subprocess.run([str(python), "-m", "sitetools.releases.checks", str(work / "pages.json"),
                        str(work / "found.json")], cwd=ROOT, check=True)  # fmt: skip
        found = json.loads((work / "found.json").read_text(encoding="utf-8"))
    if "crashed" in found["tables"]:
        raise RuntimeError(f"torch {release}: the facts and tables did not run: {found['tables']['crashed']}")
    record = {
        "release": release, "torch": found["torch"], "python": found["python"], "numpy": found["numpy"],
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(), "commit": _git("rev-parse", "HEAD"),
        "compared_with": reference["torch"],
        "pages": found["pages"], **compare(found["tables"], reference),
        "cost": {"install_s": round(installed - started), "checks_s": round(time.monotonic() - installed),
                 "env_gb": round(disk / 1e9, 1)},
    }  # fmt: skip
    # the code of the pages, facts, claims and tables as this tree, which the release just ran, has it
    codes = current_codes()
    for kind in ("pages", "facts", "claims", "tables"):
        for name, entry in record[kind].items():
            entry["code"] = codes[kind].get(name)
    record["summary"] = summary(record)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nox -s releases --", description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*", default=list(DEFAULT), help=f"default: {' '.join(DEFAULT)}")
    parser.add_argument("--out", type=Path, default=RECORDS, help="folder of the records")
    args = parser.parse_args(argv)
    import torch

    from sitetools.releases.checks import run_tables

    if shutil.which("git") is None:
        parser.error("git is needed to name the commit a record was taken from")
    started = time.monotonic()
    reference = {"torch": torch.__version__, **run_tables()}
    pages = page_codes()
    args.out.mkdir(parents=True, exist_ok=True)
    for release in args.releases:
        record = record_release(release, reference, pages)
        path = args.out / f"{release}.json"
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"torch {release}: {json.dumps(record['summary'])} -> {shown}")
    print(f"{len(args.releases)} releases in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
