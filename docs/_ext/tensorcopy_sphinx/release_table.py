"""Sphinx directive ``release-records``: the site's checks on other torch releases, from the records.

Usage in a MyST page::

    ```{release-records}
    ```

``nox -s releases`` runs every check of the site (each page's checks, the named facts, the ledger's claims and
the cells of the computed tables) on other torch releases and commits one record per release
(:mod:`sitetools.releases.records`). The directive renders them: one row per release (its torch, Python, NumPy,
date and commit, and, for the checks, the facts, the claims and the table cells alike, how many held, differed,
were not available or errored, and, for the checks, how many did not run because their page stopped first and how
many in the pages' GPU boxes did not run for want of a GPU; the pages whose checks or code changed since the
record, and their checks, not counted; of the claims and table cells, how many ran with code that has changed since),
then one row per check whose result is not this build's on some release, with its status on each release, the
first releases between which the build's behaviour appears (the newest release on which it does not hold: it
differs, is not available, errored or was not run; and the next one, the build's torch included, that agrees)
and, in one line of inline code (program output, verbatim in every edition: no typographic quotes), what the
oldest such release gave (for a check that never ran there, the line and the error where its page stopped; and a
check not run on the newest such release is said to be so, not to have changed), then the list of the pages that
stopped before their end on some release, with the line and the error. A page's check is named by its page
and its message: the one the page's check has now where it is a string (a record keeps the message the check had
when it ran, and a message may be reworded without changing the check), in another edition its translation from
the edition's catalog of the checks' messages (:mod:`sitetools.authoring.check_labels`), its fields' values translated
too, when it has one. A cell of a computed table is named by its source tensor, row and column in the words of
its page (the matrix's sections, the columns of the matrix and of the views and saved tables). The pages whose
checks or code changed since records were taken (by the digest of their code, :mod:`sitetools.releases.code_digests`)
are said once, after the first table: one sentence naming the records (every one, or which) and the list of those
pages by title; they have not been checked on those records' releases, only on this build's torch, and their old
results are not shown. The facts are treated alike, by the digest of their code
(:func:`sitetools.releases.records.unverified_facts`): a record that names no fact's code counts and shows none of
its facts, said in one sentence; of the others, the facts added or changed since are listed and not counted. The
claims and tables whose code was added or changed since a record (:func:`sitetools.releases.records.older`) are
listed after them, by id and by page title: the record's results for them, counted and shown, came from the older
code, and as they now read they ran on this build's torch only. A record of a page the site does not have fails the
build.
"""

from __future__ import annotations

import functools
import json
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

from editions import CODES, pick
from sitetools.for_sphinx import check_labels, checks_manifest, joined, release_records
from tensorcopy_sphinx import behaviour_matrix, op_tables
from tensorcopy_sphinx.build_info import build_versions
from tensorcopy_sphinx.release_words import WORDS as RELEASE_WORDS

#: Every word of the releases page's tables and notes, by edition code (:mod:`tensorcopy_sphinx.release_words`).
WORDS = RELEASE_WORDS


def counts_cell(words: dict, counts: dict[str, int]) -> str:
    """A cell of the records table: how many checks (or facts, claims, table cells) held, differed, were not
    available and errored, each count written even when it is 0, in the same words for every column; then,
    where some did not run because their page stopped before them, how many; where some did not run for want of a
    GPU (the checks of the pages' GPU boxes), how many; and where some ran with code that has changed since (claims,
    table cells), how many."""
    cell = words["counts"].format(**{status: counts.get(status, 0)
                                     for status in ("holds", "differs", "not available", "errored")})
    cell += words["not run"].format(count=counts["not run"]) if counts.get("not run") else ""
    cell += words["no GPU"].format(count=counts["no GPU"]) if counts.get("no GPU") else ""
    return cell + (words["older"].format(count=counts["older"]) if counts.get("older") else "")


def counted(text: str | tuple[str, str], count: int, **fields: str) -> str:
    """A sentence about a list of ``count`` items: ``text`` itself, or of a pair (one item, more items) the
    form for ``count``, its fields filled in."""
    if isinstance(text, tuple):
        text = text[0] if count == 1 else text[1]
    return text.format(count=count, **fields)


def record_row(words: dict, record: dict, manifest: dict[str, list[str]] | None = None,
               codes: dict[str, dict[str, str]] | None = None) -> list[str]:  # fmt: skip
    """The row of ``record`` in the records table; given ``manifest``, the pages whose checks changed since the record
    was taken, and their checks, are not counted (the changes table shows none of their old results either); given
    ``codes`` (:func:`sitetools.releases.records.current_codes`, or some of its kinds), nor are the pages whose code
    changed, the facts added or changed since, and any fact of a record that names no fact's code, and the claims and
    table cells that ran with code changed since are counted apart."""
    s = release_records.summary(record, manifest, codes)
    uncoded = codes is not None and "facts" in codes and not release_records.names_fact_codes(record)
    facts = words["not counted"] if uncoded else None
    return [record["torch"], record["python"], record["numpy"], record["date"], record["commit"][:10],
            f"{s['pages_ran_to_end']} / {s['pages']}",
            *(counts_cell(words, s[column]) if column != "facts" or facts is None else facts
              for column in ("checks", "facts", "claims", "table_cells"))]


def output_cell(text: str) -> nodes.paragraph:
    """A cell that quotes what a release gave: program output, shown as inline code, so that it reads verbatim
    in every edition (no typographic quotes or ellipsis)."""
    return nodes.paragraph("", "", nodes.literal(text, text))


def given_cell(words: dict, given: dict) -> nodes.paragraph:
    """The last cell of the changes table: what the oldest release where the check does not hold gave (its entry in
    the row's ``by_release``); for a check that never ran there, the line and the error where its page stopped."""
    if given["seen"] or not given.get("stopped"):
        return output_cell(given["seen"])
    stopped = given["stopped"]
    before, between = words["stopped cell"]
    return nodes.paragraph("", "", nodes.Text(before), nodes.literal(stopped["line"], stopped["line"]),
                           nodes.Text(between), nodes.literal(stopped["error"], stopped["error"]))


def changed_cell(words: dict, row: dict) -> str:
    """The "Changed between" cell of a row: the newest release where it does not hold and the next that gives this
    build's result; where none does, the release that changed it after this build's torch, or "still differs"; for
    a check that did not run on that newest release (its page stopped before it), that it did not run there, not a
    change."""
    if row["by_release"][row["last_differs"]]["status"] != "not run":
        if row["changed_in"]:
            return f"{row['last_differs']} → {row['changed_in']}"
        after = row.get("changed_after_build")
        return words["after build"].format(first=after) if after else words["still"]
    if not row["changed_in"]:
        return words["still not run"].format(last=row["last_differs"])
    return words["not run then"].format(last=row["last_differs"], changed=row["changed_in"])


def stop_notes(stops: list[dict], words: dict) -> list[nodes.Node]:
    """The pages that stopped before their end on some release (:func:`sitetools.releases.records.stops`): a
    sentence, then one item per page and stop, with the releases, the line and the error."""
    if not stops:
        return []
    items = nodes.bullet_list(classes=["release-stops"])
    for stop in stops:
        where = words["stop where"].format(page=stop["page"], releases=words["between"].join(stop["releases"]))
        parts: list[nodes.Node] = [nodes.Text(where + words["stop crashed"])]
        if stop["line"]:  # a crash has no line
            parts = [nodes.Text(where + words["stop line"]), nodes.literal(stop["line"], stop["line"]),
                     nodes.Text(words["stop error"])]
        parts.append(nodes.literal(stop["error"], stop["error"]))
        items += nodes.list_item("", nodes.paragraph("", "", *parts))
    return [nodes.paragraph(text=words["stops"]), items]


def _table(head: tuple[str, ...], rows: list[list[str | nodes.paragraph]],
           classes: tuple[str, ...] = ()) -> nodes.table:  # fmt: skip
    table = nodes.table(classes=["release-records", *classes])
    group = nodes.tgroup(cols=len(head))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in head)
    thead, tbody = nodes.thead(), nodes.tbody()
    for parent, cells in ((thead, [list(head)]), (tbody, rows)):
        for cells_of_row in cells:
            row = nodes.row()
            for text in cells_of_row:
                row += nodes.entry("", text if isinstance(text, nodes.paragraph) else nodes.paragraph(text=text))
            parent += row
        group += parent
    return table


def _notes(missed: dict[str, tuple[str, ...]], records: list[dict], sentence, item, classes: str) -> list[nodes.Node]:
    """For each set of records that misses some items (``missed``: item -> the releases whose record misses it),
    in the records' order: one sentence (``sentence(where, count)``) and a list of the items (``item(name)``)."""
    releases = [record["release"] for record in records]
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, where in sorted(missed.items()):
        if where:
            groups.setdefault(where, []).append(name)
    found: list[nodes.Node] = []
    for where in sorted(groups, key=lambda where: [releases.index(release) for release in where]):
        found.append(nodes.paragraph(text=sentence(where, len(groups[where]))))
        items = nodes.bullet_list(classes=[classes])
        for name in groups[where]:
            items += nodes.list_item("", nodes.paragraph("", "", item(name)))
        found.append(items)
    return found


def _doc_link(name: str, target: str, docname: str) -> nodes.Node:
    """A link to the page ``target`` that shows its title."""
    return addnodes.pending_xref("", nodes.inline(name, name), refdomain="std", reftype="doc", reftarget=target,
                                 refexplicit=False, refwarn=True, refdoc=docname)  # fmt: skip


def stale_notes(records: list[dict], manifest: dict[str, list[str]], words: dict, torch: str, gallery: str,
                docname: str, codes: dict[str, str] | None = None) -> list[nodes.Node]:
    """The pages changed since some records were taken (their checks, or given ``codes``, each page's digest now,
    their code), said once: a sentence naming the records (all of them, or which) and a list of the pages, each a
    link that shows its title; one such pair for each set of records, in the records' order."""
    releases = [record["release"] for record in records]
    stale_for: dict[str, tuple[str, ...]] = {}
    for record in records:
        for name in release_records.stale_pages(record, manifest, codes):
            stale_for[name] = (*stale_for.get(name, ()), record["release"])

    def sentence(where: tuple[str, ...], count: int) -> str:
        text = words["stale all"] if list(where) == releases else words["stale some"]
        return counted(text, count, torch=torch, releases=words["between"].join(where))

    def link(name: str) -> nodes.Node:
        return _doc_link(name, f"/{gallery}/{name}", docname)

    return _notes(stale_for, records, sentence, link, "release-stale-pages")


def new_facts_notes(records: list[dict], codes: dict[str, str], words: dict, torch: str) -> list[nodes.Node]:
    """The facts whose result some records do not give for their code now (``codes``: each fact's digest), said
    once: the records that name no fact's code in one sentence, without a list (every fact); then, for each set of
    the other records, a sentence and a list of the facts added or changed since."""
    between = words["between"]
    uncoded = [record["release"] for record in records if not release_records.names_fact_codes(record)]
    found: list[nodes.Node] = []
    if uncoded:
        found.append(nodes.paragraph(text=counted(words["uncoded facts"], len(uncoded), torch=torch,
                                                  releases=between.join(uncoded))))  # fmt: skip
    coded = [record for record in records if record["release"] not in uncoded]
    unverified = {record["release"]: set(release_records.unverified_facts(record, codes)) for record in coded}
    missed = {fact: tuple(r["release"] for r in coded if fact in unverified[r["release"]]) for fact in codes}
    return found + _notes(missed, coded, lambda where, count: counted(
        words["new facts"], count, torch=torch, releases=between.join(where)),
        lambda fact: nodes.literal(fact, fact), "release-new-facts")


def older_notes(records: list[dict], codes: dict[str, dict[str, str]], words: dict, torch: str,
                docname: str) -> list[nodes.Node]:
    """The claims and the tables whose code some records did not run as it now reads (``codes``: the digests now,
    :func:`sitetools.releases.records.current_codes`; :func:`sitetools.releases.records.older`), said once: for
    each set of records, a sentence and a list of the claims by id, then of the tables by their page's title."""
    between = words["between"]
    found: list[nodes.Node] = []
    for kind, item in (("claims", lambda claim: nodes.literal(claim, claim)),
                       ("tables", lambda table: _doc_link(table, f"/{table}", docname))):  # fmt: skip
        if kind not in codes:
            continue
        older = {record["release"]: set(release_records.older(record, codes[kind], kind)) for record in records}
        missed = {name: tuple(r["release"] for r in records if name in older[r["release"]]) for name in codes[kind]}
        found += _notes(missed, records, lambda where, count, kind=kind: counted(
            words[f"older {kind}"], count, torch=torch, releases=between.join(where)), item, f"release-older-{kind}")
    return found


def check_label(message: str, labels: dict[str, str], values: dict[str, str] | None = None) -> str:
    """A page check's message (as a record has it, its fields filled in) in the edition's language: its
    translation from ``labels`` (the edition's catalog, :mod:`sitetools.authoring.check_labels`) with the record's
    values put into the translation's fields, each as its translation in ``values`` (the catalog's values) where it
    has one; the message itself when the catalog has no translation of it."""
    if labels.get(message):
        return labels[message]
    best = None
    for template, label in labels.items():
        parts = check_labels.FIELD.split(template)
        if not label or len(parts) == 1:
            continue
        found = re.fullmatch("(.+?)".join(re.escape(part) for part in parts), message, re.DOTALL)
        if found and (best is None or len("".join(parts)) > best[0]):  # the template that matches the most text
            given = dict(zip(check_labels.FIELD.findall(template), found.groups(), strict=True))
            filled = check_labels.FIELD.sub(
                lambda field, given=given: (values or {}).get(given[field.group()], given[field.group()]), label)
            best = (len("".join(parts)), joined(filled))
    return best[1] if best else message


@functools.cache
def _page_messages(page: str) -> tuple[dict[str, set[str]], str]:
    """The messages of a page's checks in the first edition, by the check's normalised text (as a record names
    it), and the page's source."""
    path = release_records.ROOT / "gallery" / CODES[0] / f"{page}.py"
    if not path.is_file():
        return {}, ""
    source = path.read_text(encoding="utf-8")
    by_line = dict(check_labels.messages(source))
    found: dict[str, set[str]] = {}
    for line, text in checks_manifest.located_checks(source):
        found.setdefault(text, set()).add(by_line.get(line, ""))
    return found, source


def current_message(page: str, check: str | None, message: str) -> str:
    """The message a page's check has now, where a record (whose ``check`` is the check's normalised text)
    took ``message`` before it was reworded: the page's message for that check when it is one string, with no
    fields to fill in from the record; else ``message``."""
    now = _page_messages(page)[0].get(check or "", set())
    if len(now) != 1:
        return message
    (text,) = now
    return text if text and not check_labels.fields(text) else message


def table_key(words: dict, kind: str, key: str) -> str:
    """A cell of a computed table as a record names it (``leaf / torch.tensor(a) / raised``), in the words of
    its page: the matrix's sources and columns, the views table's layouts and columns, the saved table's
    columns (``叶子张量 / torch.tensor(a) / 警告或报错``); the row, code, as it is."""
    if kind == "table matrix":
        source, rest = key.split(" / ", 1)
        row, column = rest.rsplit(" / ", 1)
        cells = behaviour_matrix.words(words["edition"])
        return " / ".join((words["sources"].get(source, source), row, cells.get(column, column)))
    cells = op_tables.words(words["edition"])
    if kind == "table views":
        row, layout, column = key.rsplit(" / ", 2)
        return " / ".join((row, cells.get(layout, layout), cells.get(column, column)))
    if kind == "table saved":
        row, column = key.rsplit(" / ", 1)
        return " / ".join((row, cells.get(column, column)))
    return key


def change_label(words: dict, row: dict, labels: dict[str, str] | None = None,
                 values: dict[str, str] | None = None) -> str:  # fmt: skip
    """The label of a row of the changes table: its kind and what it checks (``事实：detach-write-routes``); a
    page's check is its page and its message (:func:`current_message`), the message in the edition's language
    when ``labels`` (the edition's catalog) has it, the values of its fields in ``values`` (the catalog's
    values, those the page's loops give: :func:`sitetools.authoring.check_labels.page_values`)
    (``页面：questions/plot_01_inplace_error：报错信息提到 Sigmoid``); a table's cell is named by
    :func:`table_key`."""
    what = row["what"]
    if row["kind"] == "page":
        page, message = what.split(": ", 1)
        message = current_message(page, row.get("check"), message)
        given = check_labels.page_values(_page_messages(page)[1], values or {})
        what = words["page check"].format(page=page, check=check_label(message, labels or {}, given))
    elif row["kind"].startswith("table "):
        what = table_key(words, row["kind"], what)
    return words["label"].format(kind=words["kinds"][row["kind"]], what=what)


def _manifest() -> dict[str, list[str]]:
    return json.loads((release_records.ROOT / "gallery" / "asserts.json").read_text(encoding="utf-8"))


class ReleaseRecords(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        words = pick(WORDS, self.env.config.language, "the releases page's words")
        records, manifest = release_records.load(), _manifest()
        self.env.note_dependency(str(release_records.RECORDS))
        for path in release_records.RECORDS.glob("*.json"):
            self.env.note_dependency(str(path))
        if problems := release_records.problems(records, manifest):
            raise ExtensionError("; ".join(problems))
        if not records:
            return [nodes.paragraph(text=words["none"])]
        for path in (release_records.RECORDS / "code").glob("*.json"):
            self.env.note_dependency(str(path))
        torch = build_versions()["torch_version"]
        codes = release_records.current_codes()
        found: list[nodes.Node] = [_table(words["head"], [record_row(words, record, manifest, codes)
                                                          for record in records])]
        gallery = self.env.config.sphinx_gallery_conf["gallery_dirs"][0]
        found += stale_notes(records, manifest, words, torch, gallery, self.env.docname, codes["pages"])
        found += new_facts_notes(records, codes["facts"], words, torch)
        found += older_notes(records, codes, words, torch, self.env.docname)
        changes = release_records.changes(records, manifest, torch, codes)
        stopped = stop_notes(release_records.stops(records, manifest, codes), words)
        if not changes:
            return [*found, nodes.paragraph(text=words["no changes"]), *stopped]
        language = self.env.config.language
        labels, values = {}, {}
        if language != CODES[0]:  # the first edition's checks are written in its language
            labels, values = check_labels.read(language), check_labels.read_values(language)
            self.env.note_dependency(str(check_labels.catalog_path(language)))
        releases = [record["release"] for record in records]
        head = (words["changes"][0], *releases, words["changes"][1], words["changes"][2])
        rows = []
        for row in changes:
            oldest = next(row["by_release"][r] for r in releases if r in row["by_release"])
            statuses = [words["status"][row["by_release"].get(r, {"status": "holds"})["status"]] for r in releases]
            rows.append([change_label(words, row, labels, values), *statuses, changed_cell(words, row),
                         given_cell(words, oldest)])  # fmt: skip
        return [*found, _table(head, rows, ("release-changes",)), *stopped]


def _publish(app: Sphinx, config) -> None:
    """``{{supported_releases}}`` (the range the site supports), ``{{recorded_releases}}`` (the releases the
    records hold) and ``{{pages_as_now}}`` (how many example pages some record ran as they now are) for the MyST
    pages."""
    words = pick(WORDS, config.language, "the releases page's words")
    oldest, newest = release_records.SUPPORTED
    records, manifest = release_records.load(), _manifest()
    recorded = words["between"].join(record["release"] for record in records) or "—"
    pages = release_records.current_codes()["pages"]
    as_now = [name for name in manifest
              if any(name not in release_records.stale_pages(record, manifest, pages) for record in records)]
    config.myst_substitutions = {**config.myst_substitutions, "recorded_releases": recorded,
                                 "supported_releases": words["range"].format(oldest=oldest, newest=newest),
                                 "pages_as_now": words["pages as now"].format(count=len(as_now),
                                                                              total=len(manifest))}


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _publish)
    app.add_directive("release-records", ReleaseRecords)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
