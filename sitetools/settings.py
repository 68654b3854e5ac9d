"""How a build was asked to run, read in one place.

The build and the code inside its Sphinx processes (the guard around each example, the extensions, the
shared configuration) both need these settings. sphinx-build runs in a process of its own, so the build
passes its three settings in that process's environment (:func:`for_sphinx`), and the deploy workflow
sets the three ``SITE_*`` ones (``sitetools/web/web_build.py``). Every reader asks :func:`current`; no
other module reads these variables. Unset (sphinx-build run by hand), each has the default below.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: The folder for each example's completion record; unset: not in a build (nothing is recorded or refused).
RECORDS = "TENSORCOPY_RUN_RECORDS"
#: Seconds one example may run.
TIMEOUT = "TENSORCOPY_EXAMPLE_TIMEOUT"
#: The checkout the sources were staged from: its git history dates the verified-on stamp.
CHECKOUT = "TENSORCOPY_CHECKOUT"
#: The published address; unset: a site for local reading, with no absolute links.
SITE_URL = "SITE_URL"
#: ``owner/name`` (or its GitHub address): "edit this page", "report a problem" and "Open in Colab".
SITE_REPOSITORY = "SITE_REPOSITORY"
#: The branch those links name.
SITE_BRANCH = "SITE_BRANCH"

DEFAULT_TIMEOUT = 180.0  # seconds; the slowest example takes well under one
DEFAULT_BRANCH = "main"


@dataclass(frozen=True)
class Settings:
    records: Path | None
    example_timeout: float
    checkout: Path | None
    site_url: str  # as given; sitetools.web.site_url checks and normalises it
    repository: str  # as given; sitetools.web.colab.repository checks it
    branch: str


def current() -> Settings:
    """The settings of this process, from its environment (read anew at each call: a test may set them)."""

    def given(name: str) -> str:
        return os.environ.get(name, "").strip()

    timeout = given(TIMEOUT)
    try:
        seconds = float(timeout) if timeout else DEFAULT_TIMEOUT
    except ValueError:
        raise ValueError(f"{TIMEOUT}={timeout!r} is not a number of seconds") from None
    return Settings(
        records=Path(given(RECORDS)) if given(RECORDS) else None,
        example_timeout=seconds,
        checkout=Path(given(CHECKOUT)) if given(CHECKOUT) else None,
        site_url=given(SITE_URL),
        repository=given(SITE_REPOSITORY),
        branch=given(SITE_BRANCH) or DEFAULT_BRANCH,
    )


def for_sphinx(records: Path, timeout: float, checkout: Path) -> dict[str, str]:
    """What the build adds to the environment of an edition's Sphinx process."""
    return {RECORDS: str(records), TIMEOUT: str(timeout), CHECKOUT: str(checkout)}


def for_workflow(site_url: str, repository: str, branch: str) -> dict[str, str]:
    """The variables the deploy workflow gives the build."""
    return {SITE_URL: site_url, SITE_REPOSITORY: repository, SITE_BRANCH: branch}
