"""Each page's "Download zipped" holds the page's downloads as readers get them, byte for byte.

sphinx-gallery zips a page's ``.py`` and ``.ipynb`` when it writes them, before this site's extensions
add the verified-on stamp, the readable notebook text and the rerun cell. This extension runs after them
(once Sphinx has read every page, as the notebook text needs: priority 900 of ``env-updated``) and writes
every zip again from the final files, with a fixed date in each entry, so that
two builds of one commit give identical zips. A zip without its two files fails the build, naming it.
"""

import zipfile
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

#: The date of every zip entry (the earliest a zip can hold): a build's time would make zips differ.
ENTRY_DATE = (1980, 1, 1, 0, 0, 0)


def rezip(zip_path: Path) -> None:
    members = [zip_path.with_suffix(suffix) for suffix in (".py", ".ipynb")]
    missing = [path.name for path in members if not path.is_file()]
    if missing:
        raise ExtensionError(f"{zip_path.name}: the download zip lacks {', '.join(missing)}")
    with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in members:
            archive.writestr(zipfile.ZipInfo(path.name, ENTRY_DATE), path.read_bytes(), zipfile.ZIP_DEFLATED)


def _rezip_all(app: Sphinx, env) -> None:
    gallery = Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"][0]
    for zip_path in sorted(gallery.rglob("plot_*.zip")):
        rezip(zip_path)


def setup(app: Sphinx) -> dict:
    app.connect("env-updated", _rezip_all, priority=900)  # after every extension changed the downloads
    return {"parallel_read_safe": True, "parallel_write_safe": True}
