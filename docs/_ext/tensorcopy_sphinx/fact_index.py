"""Sphinx directive ``fact-index``: every named fact, what it runs, its scope, and who cites it.

Usage in a MyST page::

    ```{fact-index}
    ```

A reviewer reads one page to audit the site's narrative claims. The index has one entry per fact of
``tensorfacts.facts.FACTS`` (a list entry, anchored ``fact-<id>``): its id, whether it held on this
build (it runs once per build: here, or where a page cited it first; :func:`run`), what its check runs and
the range of cases it covers (both in the page's language, from ``tensorfacts.facts.ABOUT``; another fact's id
named there links to its entry, :func:`link_fact_ids`), and the pages that cite it. Citations are collected while the
pages are read: each ``{fact}`` role, each fact a ``behaviour-matrix`` guide names, and each fact the checks of the
``claims-ledger`` run, calls :func:`cite`. The index is filled in once every page has been read
(``doctree-resolved``).

A fact that no page cites is listed with "no page" and does not fail the build: some facts keep a behaviour under
watch before a page states it; the list shows them all the same. A fact that does not hold fails the build, as it
does where it is cited.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from editions import pick
from tensorcopy_sphinx.inline import inline_text
from tensorcopy_sphinx.torch_links import link_late

logger = logging.getLogger(__name__)

#: Every word the index prints, by edition code.
WORDS = {
    "en": {
        "runs": "What it runs",
        "scope": "Scope",
        "held": "On this build",
        "cited": "Cited by",
        True: "holds",
        False: "does not hold",
        "nobody": "no page",
        "between": ", ",
        "quotes": ("", ""),
        "count": "{total} facts, run on torch {torch}: {holds} hold. {cited} are cited by at least one page.",
    },
    "zh_CN": {
        "runs": "检查的内容",
        "scope": "范围",
        "held": "本次构建",
        True: "成立",
        False: "不成立",
        "cited": "引用它的页面",
        "nobody": "没有页面引用",
        "between": "、",
        "quotes": ("《", "》"),  # titles run together without them (one ends in ？), and a title may hold “”
        "count": "共 {total} 条事实，在 torch {torch} 上运行：{holds} 条成立；{cited} 条至少有一个页面引用。",
    },
}

#: The attribute of the build environment that holds the citations: fact id -> the docnames citing it.
STORE = "tensorcopy_fact_citations"
#: The results of the facts a build ran, by build environment: (fact id, its check) -> its result.
_RESULTS: weakref.WeakKeyDictionary[BuildEnvironment, dict] = weakref.WeakKeyDictionary()


def words(language: str) -> dict:
    return pick(WORDS, language, "the facts page's words (tensorcopy_sphinx.fact_index.WORDS)")


def citations(env: BuildEnvironment) -> dict[str, set[str]]:
    if not hasattr(env, STORE):
        setattr(env, STORE, {})
    return getattr(env, STORE)


def cite(env: BuildEnvironment, fact_id: str, docname: str) -> None:
    """Record that ``docname`` cites ``fact_id`` (the ``{fact}`` role and the guides call this)."""
    citations(env).setdefault(fact_id, set()).add(docname)


def run(env: BuildEnvironment, fact_id: str):
    """The result of :func:`tensorfacts.facts.run_fact` for ``fact_id``, run once per build: the pages cite some
    facts several times and the facts page runs every one, and a fact's result depends on torch alone (its check
    builds everything it reads). A fact is known by its id and its registered check."""
    from tensorfacts import facts

    results = _RESULTS.setdefault(env, {})
    key = (fact_id, facts.FACTS.get(fact_id))
    if key not in results:
        results[key] = facts.run_fact(fact_id)
    return results[key]


def purge(store: dict[str, set[str]], docname: str) -> None:
    """Forget what ``docname`` cited (it is about to be read again)."""
    for pages in store.values():
        pages.discard(docname)


def merge(store: dict[str, set[str]], other: dict[str, set[str]], docnames: set[str]) -> None:
    """Take the citations of ``docnames`` from a parallel reader's ``other`` store."""
    for fact_id, pages in other.items():
        store.setdefault(fact_id, set()).update(pages & docnames)


def rows(store: dict[str, set[str]], registry: dict) -> list[tuple[str, list[str]]]:
    """(fact id, the pages citing it, sorted) for every registered fact, in id order."""
    return [(fact_id, sorted(store.get(fact_id, ()))) for fact_id in sorted(registry)]


class fact_index_node(nodes.General, nodes.Element):  # noqa: N801 (docutils names node classes in lower case)
    """Where the index goes; filled in after every page has been read."""


class FactIndex(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from tensorfacts import facts

        self.env.note_dependency(facts.__file__)
        return [fact_index_node()]


def link_fact_ids(made: list[nodes.Node], fact_ids: Iterable[str]) -> list[nodes.Node]:
    """``made`` with each fact id of ``fact_ids`` that its plain text names (a whole word: no ASCII letter, digit,
    ``_`` or ``-`` touching it; a Chinese character may) made a link to that fact's entry on this page; code spans
    stay as they are."""
    names = sorted(fact_ids, key=len, reverse=True)
    if not names:
        return list(made)
    named = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, names)) + r")(?![\w-])", re.ASCII)
    linked: list[nodes.Node] = []
    for node in made:
        if not isinstance(node, nodes.Text):
            linked.append(node)
            continue
        text, start = node.astext(), 0
        for match in named.finditer(text):
            if match.start() > start:
                linked.append(nodes.Text(text[start:match.start()]))
            linked.append(nodes.reference(match[1], match[1], internal=True,
                                          refid=nodes.make_id(f"fact-{match[1]}")))
            start = match.end()
        if start < len(text):
            linked.append(nodes.Text(text[start:]))
    return linked


def _field(name: str, kind: str, *children: nodes.Node) -> nodes.field:
    """One line of a fact's entry: its name, then a paragraph of class ``fact-<kind>``."""
    field = nodes.field()
    field += nodes.field_name(name, name)
    body = nodes.field_body()
    body += nodes.paragraph("", "", *children, classes=[f"fact-{kind}"])
    field += body
    return field


def build_index(app: Sphinx, docname: str, language: str) -> list[nodes.Node]:
    """The count line, then one entry per fact: its id and verdict, what it runs, its scope, who cites it.

    (A list, not a table: five columns of sentences do not fit a phone, and a list needs no scroll box.)
    """
    import torch

    from tensorfacts import facts

    w = words(language)
    entries = nodes.bullet_list(classes=["fact-index"])
    held = cited = 0
    listed = rows(citations(app.env), facts.FACTS)
    listed_ids = [fact_id for fact_id, _ in listed]
    for fact_id, pages in listed:
        result = run(app.env, fact_id)
        if not result.holds:
            logger.warning("fact %s does not hold on this torch: %s", fact_id, result.trace,
                           location=docname, type="matrix", subtype="fact")
        held += result.holds
        cited += bool(pages)
        about = facts.ABOUT[fact_id]
        links: list[nodes.Node] = []
        opening, closing = w["quotes"]
        for page in pages:
            if links:
                links.append(nodes.Text(w["between"]))
            title = app.env.titles[page].astext() if page in app.env.titles else page
            links += [nodes.Text(opening), nodes.reference(title, title, internal=True,
                                                           refuri=app.builder.get_relative_uri(docname, page)),
                      nodes.Text(closing)]
        word = w[result.holds]
        entry = nodes.list_item(ids=[nodes.make_id(f"fact-{fact_id}")])
        entry += nodes.paragraph("", "", nodes.literal(fact_id, fact_id), classes=["fact-id"])
        fields = nodes.field_list()
        fields += _field(w["held"], "held", nodes.inline(word, word))
        fields += _field(w["runs"], "runs", *link_fact_ids(link_late(inline_text(about.runs_in(language))), listed_ids))
        fields += _field(w["scope"], "scope", *link_fact_ids(
            link_late(inline_text(about.scope_in(language, cited=bool(pages)))), listed_ids))
        fields += _field(w["cited"], "cited", *(links or [nodes.Text(w["nobody"])]))
        entry += fields
        entries += entry
    count = w["count"].format(total=len(listed), torch=torch.__version__, holds=held, cited=cited)
    return [nodes.paragraph(count, count, classes=["fact-index-count"]), entries]


def fill_index(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for node in doctree.findall(fact_index_node):
        node.replace_self(build_index(app, docname, app.config.language))


def setup(app: Sphinx) -> dict:
    app.add_directive("fact-index", FactIndex)
    app.add_node(fact_index_node)
    app.connect("env-purge-doc", lambda app, env, docname: purge(citations(env), docname))
    app.connect("env-merge-info", lambda app, env, docnames, other: merge(
        citations(env), citations(other), set(docnames)))
    app.connect("doctree-resolved", fill_index)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
