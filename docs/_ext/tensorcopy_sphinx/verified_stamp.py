"""The verified-on stamp: on every example page, and as the first cell of its downloadable notebook.

It says which torch and Python printed the page's outputs, from which commit of the sources and that
commit's date (the commit's, not the build's, so two builds of one commit give identical pages), and how
many checks of the page passed: every check recorded for it in ``gallery/asserts.json``, since a failing
one stops the build, except its GPU checks when they did not run (the page printed no GPU mark:
:mod:`tensorcopy_sphinx.gpu_box`), which the stamp names as not run. The commit comes from the checkout
the build staged its sources from (``sitetools.settings.CHECKOUT``); a checkout with changes to tracked
files says so, and outside git the stamp names no commit. The words come from the message catalog
(``docs/_locale``).

After it, the stamp names the other torch releases the page's checks were recorded on (``nox -s releases``,
:mod:`sitetools.releases.records`), how many of them differ, are not available, errored or were not run (their page
stopped before them) on which release, in the words of the Releases page (which says which), and the records that
predate the page's present code, on which the page has not been rerun. It stays short, so
that a question page's answer box still fits a phone's first screen.
"""

import functools
import json
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from sitetools.for_sphinx import GPU, release_records, settings, web
from tensorcopy_sphinx.build_info import build_versions
from tensorcopy_sphinx.gpu_box import ran_on
from tensorcopy_sphinx.theme_i18n import translated

STAMP_CLASS = "verified-stamp"
#: The sentence on GPU checks that did not run: one check, then several (one message each, so that each
#: edition's catalog words both).
GPU_NOT_RUN = (" Its GPU check ({gpu}) did not run on this build.",
               " Its GPU checks ({gpu}) did not run on this build.")
#: The stamp's clause on the checks a record gives each status but ``holds`` and ``no GPU`` (the statuses of
#: :data:`sitetools.releases.records.STATUSES`), for one check and for several, in the Releases page's words: a check
#: that did not run (its page stopped before it) is not said to differ.
STATUS_CLAUSES = {
    "differs": ("1 check differs on", "{count} checks differ on"),
    "not available": ("1 check not available on", "{count} checks not available on"),
    "errored": ("1 check errored on", "{count} checks errored on"),
    "not run": ("1 check not run on", "{count} checks not run on"),
}


def _facts(app: Sphinx) -> dict:
    if not hasattr(app.env, "tensorcopy_stamp_facts"):
        checkout = settings.current().checkout or Path(app.srcdir).parents[1]
        app.env.tensorcopy_stamp_facts = {**build_versions(), "source": web.source_commit(checkout)}
    return app.env.tensorcopy_stamp_facts


def _checks(app: Sphinx, name: str) -> tuple[int, int]:
    """``(checks that ran, GPU checks that did not)`` for example ``name``."""
    manifest = Path(app.srcdir).parents[1] / "gallery" / "asserts.json"
    recorded = json.loads(manifest.read_text(encoding="utf-8"))
    if name not in recorded:
        raise ExtensionError(
            f"gallery/asserts.json records no checks for {name}; run python -m sitetools.rules.checks_manifest --update"
        )
    gpu = sum(check.endswith(GPU) for check in recorded[name])
    if gpu and ran_on(name):
        return len(recorded[name]), 0
    return len(recorded[name]) - gpu, gpu


def stamp_text(app: Sphinx, name: str) -> str:
    """The stamp of example ``name`` (``copying/plot_04_detach``) in the edition's language."""
    gettext = functools.partial(translated, app)
    facts = _facts(app)
    source = facts["source"]
    if source is None:
        where = gettext("from sources outside git")
    elif source["changed"]:
        where = gettext("from commit {short} ({date}) with local changes").format(**source)
    else:
        where = gettext("from commit {short} ({date})").format(**source)
    sentence = gettext("Verified on torch {torch}, Python {python}, {where}: all {checks} checks of this page passed.")
    ran, not_run = _checks(app, name)
    stamp = sentence.format(torch=facts["torch_version"], python=facts["python_version"], where=where, checks=ran)
    if not_run:
        stamp += gpu_not_run(app, not_run)
    return stamp + _releases_text(app, name)


def gpu_not_run(app: Sphinx, count: int) -> str:
    """The stamp's sentence on ``count`` GPU checks that did not run, in the edition's language."""
    return translated(app, GPU_NOT_RUN[count != 1]).format(gpu=count)


def _records(app: Sphinx) -> list[tuple[dict, set[str]]]:
    """Every record of another torch release, with the pages whose checks or code changed since: read once a
    build."""
    if not hasattr(app.env, "tensorcopy_stamp_records"):
        manifest = json.loads((Path(app.srcdir).parents[1] / "gallery" / "asserts.json").read_text(encoding="utf-8"))
        codes = release_records.page_codes()
        app.env.tensorcopy_stamp_records = [(record, set(release_records.stale_pages(record, manifest, codes)))
                                            for record in release_records.load()]  # fmt: skip
    return app.env.tensorcopy_stamp_records


def _releases_text(app: Sphinx, name: str) -> str:
    """What the records of other torch releases say about page ``name`` (empty when none names it)."""
    gettext = functools.partial(translated, app)
    naming = [(record, stale_pages) for record, stale_pages in _records(app) if name in record["pages"]]
    records = [record for record, _ in naming]
    stale = [record["release"] for record, stale_pages in naming if name in stale_pages]
    ran = [record for record in records if record["release"] not in stale]
    between = gettext(", ")
    text = ""
    if ran:
        # (status, count) -> the releases, each count of a status said once
        groups: dict[tuple[str, int | str], list[str]] = {}
        for record in ran:
            page = record["pages"][name]
            if "checks" not in page:
                groups.setdefault(("differs", gettext("all")), []).append(record["release"])
            for status in STATUS_CLAUSES if "checks" in page else ():
                if count := sum(check["status"] == status for check in page["checks"]):
                    groups.setdefault((status, count), []).append(record["release"])
        releases = between.join(record["release"] for record in ran)
        differences = []
        for (status, count), where in groups.items():
            one, several = STATUS_CLAUSES[status]
            words = (one if count == 1 else several) + (" each of {releases}" if len(where) > 1 else " {releases}")
            differences.append(gettext(words).format(count=count, releases=between.join(where)))
        if differences:
            text = gettext(" Also run on torch {releases}; {differences}.").format(
                releases=releases, differences=gettext("; ").join(differences))
        else:
            text = gettext(" Also run on torch {releases}.").format(releases=releases)
    if stale and not ran:
        text += gettext(" Not rerun on other torch releases since its code changed.")
    elif stale:
        text += gettext(" Not rerun on torch {releases} since its code changed.").format(releases=between.join(stale))
    return text


def _example_name(app: Sphinx, docname: str) -> str | None:
    gallery = app.config.sphinx_gallery_conf["gallery_dirs"][0] + "/"
    name = docname.removeprefix(gallery)
    return name if docname.startswith(gallery) and Path(name).name.startswith("plot_") else None


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    name = _example_name(app, app.env.docname)
    if name is None:
        return
    section = doctree.next_node(nodes.section)
    if section is None:
        raise ExtensionError(f"{app.env.docname}: an example page without a title")
    # Raw HTML: the stamp is about the page, so it stays out of the page's description and search terms.
    html = f'<p class="{STAMP_CLASS}">{escape(stamp_text(app, name))}</p>\n'
    section.insert(1, nodes.raw("", html, format="html"))


def _title_cell(cells: list[dict]) -> int:
    """The index of the notebook's title cell (the page's first docstring): the first markdown cell."""
    return next((i for i, cell in enumerate(cells) if cell.get("cell_type") == "markdown"), -1)


def _stamp_notebooks(app: Sphinx, env, docnames) -> None:
    """Put the stamp right under the title cell of every notebook sphinx-gallery wrote, as the page shows it
    under its title (before Sphinx copies the downloads)."""
    gallery = Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"][0]
    for notebook in sorted(gallery.rglob("plot_*.ipynb")):
        name = notebook.relative_to(gallery).with_suffix("").as_posix()
        data = json.loads(notebook.read_text(encoding="utf-8"))
        cells = [cell for cell in data["cells"] if STAMP_CLASS not in cell.get("metadata", {}).get("tags", [])]
        stamp = {"cell_type": "markdown", "metadata": {"tags": [STAMP_CLASS]}, "source": [stamp_text(app, name)]}
        title = _title_cell(cells)
        data["cells"] = [*cells[: title + 1], stamp, *cells[title + 1 :]]
        notebook.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.setup_extension("tensorcopy_sphinx.build_info")
    app.connect("doctree-read", _doctree_read)
    app.connect("env-before-read-docs", _stamp_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
