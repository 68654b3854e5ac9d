"""How the site is built for the web: the one definition that the deploy workflow's build step
(``.github/workflows/pages.yml``) and the tests that build the site as it is published share.

The step runs :data:`COMMAND` (the README's) with exactly the variables :data:`VARIABLES`, whose values
are GitHub expressions (the Pages address, the repository, the branch), plus :data:`INSTALL_ONLY`, which
only tells pip where to find torch's CPU wheels; ``nox -s docs`` runs :data:`SCRIPT` in the site's
environment. A test builds the same way with :func:`environment` (the same variables, given values) and
:func:`command`. ``tests/test_web_workflow.py`` checks that the workflow's step is this definition.
"""

from __future__ import annotations

import os
from pathlib import Path

from sitetools import settings

ROOT = Path(__file__).resolve().parents[2]
#: The build step's command: the README's first command.
COMMAND = "python3.11 -m pip install nox==2026.10.20 && python3.11 -m nox -s docs"
#: What ``nox -s docs`` runs, with the site's interpreter (and the session's arguments, none in the workflow).
SCRIPT = "docs/build_site.py"
#: The variables the build step gives the build: name -> the workflow's value.
VARIABLES = {
    settings.SITE_URL: "${{ steps.pages.outputs.base_url }}/",
    settings.SITE_REPOSITORY: "${{ github.repository }}",
    settings.SITE_BRANCH: "${{ github.ref_name }}",
}
#: Variables of the step that change how the environment is installed, not what is built.
INSTALL_ONLY = ("PIP_EXTRA_INDEX_URL",)


def environment(site_url: str, repository: str, branch: str) -> dict[str, str]:
    """The process environment of a build as the workflow makes it: this one's, with :data:`VARIABLES`
    set to these values (``site_url``: the address it is served at, ``repository``: ``owner/name``)."""
    return {**os.environ, **settings.for_workflow(site_url, repository, branch)}


def command(python: str, *args: str) -> list[str]:
    """The command ``nox -s docs -- ARGS`` runs: :data:`SCRIPT` with ``python`` (the site's interpreter)."""
    return [python, str(ROOT / SCRIPT), *args]
