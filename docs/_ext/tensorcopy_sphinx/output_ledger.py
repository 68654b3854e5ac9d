"""Refuse what the examples left behind once they all ran (:mod:`sitetools.guard.outputs`): a file in the
generated pages that no page produced, or a process still running; once after the last page ran and
again once every download is final (the notebooks' links are written when Sphinx has read every page:
``tensorcopy_sphinx.notebook_text``). Without the build's run records (sphinx-build by hand) it refuses
nothing."""

from sitetools.for_sphinx import seal_outputs, settings


def _seal(app, env, docnames) -> None:
    if settings.current().records is not None:
        seal_outputs()


def setup(app):
    app.connect("env-before-read-docs", _seal, priority=950)  # once the last page ran
    app.connect("env-updated", lambda app, env: _seal(app, env, ()), priority=950)  # after download_zips (900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
