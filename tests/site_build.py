"""Run the site build as a subprocess (for tests that need a build of their own).

Tests import this module, never ``conftest``: pytest loads ``conftest.py`` itself, and importing it
again as a module would run it twice.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_site(out: Path, stage: Path, *extra: str) -> subprocess.CompletedProcess:
    """Run docs/build_site.py; return the finished process (output captured as text)."""
    command = [sys.executable, str(ROOT / "docs" / "build_site.py"), "--out", str(out),
               "--stage", str(stage), *extra]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
