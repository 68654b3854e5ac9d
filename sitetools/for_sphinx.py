"""What the Sphinx side (the extensions in ``docs/_ext`` and ``docs/_shared/conf.py``) uses of the site tooling:
its one way in. An extension imports these names from here and nothing else of :mod:`sitetools`
(``tests/test_house.py`` checks it), so that the tooling's inside can move without touching Sphinx code.

- the build's settings (:mod:`sitetools.settings`) and the site on the web (:mod:`sitetools.web`, Colab links);
- the guard around each example (sphinx-gallery's ``reset_modules`` hooks ``reset_torch`` and ``watch_outputs``),
  which GPU blocks ran on a page, and the seal over every page's outputs;
- the page sources as the rules read them: a script's sphinx-gallery blocks, its numbered blocks, its checks;
- the glossary's terms, its list of core terms and the facts that check them (and the files they live in, for
  Sphinx's dependencies);
- the records of other torch releases, the rerun cell's text and the catalogs of check messages.
"""

from __future__ import annotations

from sitetools import settings, web
from sitetools.authoring import check_labels
from sitetools.guard.example import gpu_blocks_ran, reset_torch
from sitetools.guard.outputs import seal as seal_outputs
from sitetools.guard.outputs import watch as watch_outputs
from sitetools.releases import records as release_records
from sitetools.releases import rerun_cell as rerun_checks
from sitetools.releases.rerun_cell import joined
from sitetools.rules import checks_manifest, term_facts, terms
from sitetools.rules.checks_manifest import GPU
from sitetools.rules.generated_prose import core_terms
from sitetools.rules.sources import numbered_blocks
from sitetools.rules.syntax import gallery_blocks
from sitetools.rules.term_facts import CHECKED_BY, MATRIX_SECTIONS
from sitetools.rules.terms import TERMS
from sitetools.web import colab

#: The files that hold the glossary's terms and their facts: a page that shows them depends on both.
TERM_FILES = (terms.__file__, term_facts.__file__)

__all__ = [
    "CHECKED_BY", "GPU", "MATRIX_SECTIONS", "TERMS", "TERM_FILES", "check_labels", "checks_manifest", "colab",
    "core_terms", "gallery_blocks", "gpu_blocks_ran", "joined", "numbered_blocks", "release_records", "rerun_checks",
    "reset_torch", "seal_outputs", "settings", "watch_outputs", "web",
]  # fmt: skip
