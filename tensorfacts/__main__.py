"""``python -m tensorfacts``: see :mod:`tensorfacts.cli`."""

import sys

from tensorfacts.cli import main

sys.exit(main())
