"""Open in Colab: where each example page's notebook is published, and the link that opens it.

Colab opens a notebook of a public GitHub repository at
``https://colab.research.google.com/github/<owner>/<name>/blob/<branch>/<path>.ipynb``. The deploy
workflow (``.github/workflows/pages.yml``) publishes the built notebooks on the branch
:data:`BRANCH` of the site's repository, one per page and edition, at :func:`notebook_path`
(``zh_CN/copying/plot_04_detach.ipynb``), with :func:`collect`; every example page links to its own
(``tensorcopy_sphinx.colab_link``) when the build knows the repository (``SITE_REPOSITORY``, as
``owner/name`` or as the repository's address). ``python -m sitetools.web.colab SITE OUT`` copies the
notebooks of a built site into ``OUT`` laid out as the links expect.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from editions import CODES

#: The branch the deploy workflow writes the notebooks to (generated files only, force-pushed).
BRANCH = "notebooks"
COLAB = "https://colab.research.google.com/github"
EXAMPLES = "examples"
_SLUG = re.compile(r"(?:https://github\.com/)?(?P<slug>[A-Za-z0-9][\w.-]*/[\w.-]+?)(?:\.git)?/?")
_NOTEBOOK_LINK = re.compile(r'href="(?P<href>[^"]*_downloads/[^"]*\.ipynb)"')


def repository(value: str) -> str:
    """``owner/name`` from ``owner/name`` or ``https://github.com/owner/name``; '' for ''. Anything else
    raises ValueError."""
    value = value.strip()
    if not value:
        return ""
    match = _SLUG.fullmatch(value)
    if not match:
        raise ValueError(f"SITE_REPOSITORY={value!r} is neither owner/name nor https://github.com/owner/name")
    return match.group("slug")


def notebook_path(code: str, example: str) -> str:
    """Where the notebook of ``example`` (``copying/plot_04_detach``) in edition ``code`` is published."""
    return f"{code}/{example}.ipynb"


def colab_url(slug: str, code: str, example: str) -> str:
    return f"{COLAB}/{slug}/blob/{BRANCH}/{notebook_path(code, example)}"


def collect(site: Path, out: Path) -> list[str]:
    """Copy the notebook each example page of ``site`` offers into ``out``, at its :func:`notebook_path`;
    return those paths. A page without exactly one notebook raises."""
    written = []
    for code in CODES:
        examples = site / code / EXAMPLES
        for page in sorted(examples.rglob("plot_*.html")):
            links = set(_NOTEBOOK_LINK.findall(page.read_text(encoding="utf-8")))
            if len(links) != 1:
                raise ValueError(f"{page.relative_to(site)} offers {len(links)} notebooks, not one")
            path = notebook_path(code, page.relative_to(examples).with_suffix("").as_posix())
            (out / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile((page.parent / links.pop()).resolve(), out / path)
            written.append(path)
    if not written:
        raise ValueError(f"{site} holds no example page")
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m sitetools.web.colab SITE OUT")
    paths = collect(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{len(paths)} notebooks written to {sys.argv[2]}")
