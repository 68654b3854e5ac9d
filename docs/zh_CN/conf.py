"""Sphinx configuration of the zh_CN edition; every setting lives in docs/_shared/conf.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_shared"))
from conf import configure  # noqa: E402  (docs/_shared/conf.py)

globals().update(configure("zh_CN"))
