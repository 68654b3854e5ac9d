"""``python -m tests.mutations``: see :mod:`tests.mutations.run`."""

import sys

from tests.mutations.run import main

sys.exit(main())
