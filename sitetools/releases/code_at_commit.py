"""The digests of a commit's code, for the records of other torch releases taken before records named it.

The records taken before they named the code of each page, claim and table they ran name the commit they were
taken at. ``python -m sitetools.releases.code_at_commit COMMIT`` unpacks that commit into a temporary folder, runs
:mod:`sitetools.releases.code_digests` there as a file (so that it reads that commit's code, not this checkout's),
and keeps the digests of the commit's pages, claims and tables in ``docs/_shared/releases/code/<commit>.json``,
which :func:`sitetools.releases.records.recorded_codes` reads (``tests/test_code_digests.py`` reads the commit
again and compares).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sitetools.releases import code_digests

ROOT = Path(__file__).resolve().parents[2]
#: Where the digests of a commit's code are kept.
COMMITS = ROOT / "docs" / "_shared" / "releases" / "code"


@functools.cache
def at_commit(commit: str) -> dict[str, dict[str, str]] | None:
    """The digests of the pages, claims and tables at ``commit`` (the full hash a record names), as
    :func:`write_commit` kept them; None where none are kept."""
    path = COMMITS / f"{commit}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def of_commit(commit: str, repo: Path) -> dict[str, dict[str, str]]:
    """The digests of the pages, claims and tables of ``commit``, read from git in ``repo``: the commit is unpacked
    into a temporary folder, where :mod:`sitetools.releases.code_digests`, run as a file, reads its claims and
    tables."""

    def git(*args: str) -> bytes:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout

    with tempfile.TemporaryDirectory(prefix="code-at-") as folder:
        tree = Path(folder) / "tree"
        tree.mkdir()
        listed = git("ls-tree", "--name-only", commit).decode().split()
        wanted = [path for path in ("tensorfacts", "sitetools", "editions", "gallery") if path in listed]
        archive = Path(folder) / "tree.tar"
        archive.write_bytes(git("archive", "--format=tar", commit, *wanted))
        subprocess.run(["tar", "-xf", str(archive), "-C", str(tree)], check=True)
        out = Path(folder) / "out.json"
        subprocess.run([sys.executable, code_digests.__file__, "--here", str(out)], cwd=tree, check=True,
                       env={**os.environ, "PYTHONPATH": str(tree), "MPLBACKEND": "Agg"})  # fmt: skip
        found = json.loads(out.read_text(encoding="utf-8"))
        scripts = {path.relative_to(tree / "gallery" / "en").with_suffix("").as_posix(): path
                   for path in sorted((tree / "gallery" / "en").glob("*/plot_*.py"))}  # fmt: skip
        found["pages"] = code_digests.page_codes_of(scripts)
    return {"commit": commit, **{key: found[key] for key in ("pages", "claims", "tables")}}


def write_commit(commit: str, repo: Path) -> Path:
    """Keep the digests of ``commit`` (any name git knows it by) in ``COMMITS``; the file's path."""
    full = subprocess.run(["git", "rev-parse", commit], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip
    COMMITS.mkdir(parents=True, exist_ok=True)
    path = COMMITS / f"{full}.json"
    path.write_text(json.dumps(of_commit(full, repo), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    for commit in sys.argv[1:]:
        print(write_commit(commit, ROOT))
