"""Build the whole site into build/html (see sitetools/build.py for what the build checks).

    python docs/build_site.py [--out build/html] [--lang CODE ...] [--only PART/plot_NAME ...]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: sitetools, tensorfacts

from sitetools.build import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
