"""Sphinx configuration of the en edition; every setting lives in docs/_shared/conf.py."""

import sys
from pathlib import Path

_DOCS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(_DOCS / "_shared"), str(_DOCS / "_ext"), str(_DOCS.parent)]

from conf import configure  # noqa: E402  (docs/_shared/conf.py)

globals().update(configure("en"))
