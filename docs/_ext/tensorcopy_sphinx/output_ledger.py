"""Record what the examples produced, for the build to verify after Sphinx exits
(:mod:`sitetools.page_outputs`): the generated pages once every page ran (which ends what they left
running) and again once every download is final (the notebooks' links are written when Sphinx has read
every page: ``tensorcopy_sphinx.notebook_text``), the HTML once
Sphinx and every extension wrote it; and refuse a document that appeared among the edition's
hand-written sources while the examples ran. Without the build's run records (sphinx-build by hand) it
records and refuses nothing."""

import os
from pathlib import Path

from sitetools import page_outputs


def _records() -> Path | None:
    folder = os.environ.get(page_outputs.RECORDS_ENV)
    return Path(folder) if folder else None


def _seal(app, env, docnames) -> None:
    if records := _records():
        page_outputs.seal(records)


def _note_sources(app, config) -> None:
    if _records():
        page_outputs.note_sources(Path(app.srcdir))


def _check_documents(app, env, docnames) -> None:
    if _records():
        page_outputs.check_documents(Path(app.srcdir), {name: Path(env.doc2path(name)) for name in env.found_docs})


def _seal_html(app, exception) -> None:
    if (records := _records()) and exception is None:
        page_outputs.seal_html(Path(app.outdir), records)


def setup(app):
    app.connect("config-inited", _note_sources)  # before sphinx-gallery runs the first page (builder-inited)
    app.connect("env-before-read-docs", _seal, priority=950)  # once the last page ran
    app.connect("env-updated", lambda app, env: _seal(app, env, ()), priority=950)  # after download_zips (900)
    app.connect("env-before-read-docs", _check_documents, priority=960)
    app.connect("build-finished", _seal_html, priority=1000)  # after every extension wrote into the HTML
    return {"parallel_read_safe": True, "parallel_write_safe": True}
