"""Build the whole site into build/html (see sitetools/building/pipeline.py for what the build checks).

    python docs/build_site.py [--out build/html] [--lang CODE ...] [--only PART/plot_NAME|PAGE ...]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: editions, sitetools, tensorfacts

from sitetools.building.pipeline import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
