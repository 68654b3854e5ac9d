"""Sphinx directives ``terms-table`` and ``core-terms``: the glossary, rendered from the one terminology list.

Usage in a MyST page::

    ```{terms-table}
    ```

    ```{core-terms}
    ```

One row per entry of ``sitetools.rules.terms.TERMS``: the Chinese term, the English term (backticks mark
code), a short definition in the reader's language with, under it, a link to the page that shows
the term and the named facts that run what the definition says torch does (``sitetools.rules.term_facts.CHECKED_BY``:
the build runs each and fails on one that does not hold; the facts page lists the glossary among their
citers), then the other names readers type and the variants the Chinese pages avoid. What a reader
on a phone needs (term, English, definition) comes first; the lists of words come last. The link is a
``ref`` to that page's label, so a label that no page defines fails the build (``-n``). Column headers
come from ``WORDS`` below, one entry per edition. A term with sections of the behaviour matrix in
``sitetools.rules.term_facts.MATRIX_SECTIONS`` links them under its definition too (their titles, by ``ref``).

``core-terms`` writes one paragraph: the core terms (the entries with a ``gloss``, whose first mention on a
Chinese page carries its English), all of them, in list order (``sitetools.rules.first_mentions.core_terms``), so the
glossary's sentence about them cannot leave one out.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from editions import pick
from sitetools.for_sphinx import CHECKED_BY, MATRIX_SECTIONS, TERM_FILES, TERMS, core_terms
from tensorcopy_sphinx.claims_ledger import labelled_entry
from tensorcopy_sphinx.fact_index import cite, run
from tensorcopy_sphinx.inline import inline_text

logger = logging.getLogger(__name__)

WORDS = {
    "en": {"zh": "Chinese", "en": "English", "define": "meaning", "also": "also typed", "avoid": "not written",
           "page": "Shown on: ", "checked": "Checked by: ", "between": ", ",
           "matrix": "More in the behaviour matrix: ", "quotes": ("", "")},
    "zh_CN": {"zh": "中文术语", "en": "英文术语", "define": "释义", "also": "相关说法", "avoid": "本站不用",
              "page": "演示页面：", "checked": "检查它的事实：", "between": "、",
              "matrix": "详见行为对照表：", "quotes": ("“", "”")},
}
#: The field of :class:`sitetools.rules.terms.Term` that holds the definition in each edition's language.
DEFINITIONS = {"en": "define_en", "zh_CN": "define_zh"
}


def _cell(*children: nodes.Node, label: str | None = None) -> nodes.entry:
    """A cell; with ``label``, one that names its column for the phone's card layout (claims-ledger.css)."""
    entry = nodes.entry() if label is None else labelled_entry(label=label)
    entry += nodes.paragraph("", "", *children)
    return entry


def _definition(text: str, page: nodes.Node, shown_on: str, label: str) -> nodes.entry:
    """The definition, and under it the link to the page that shows the term (after ``shown_on``)."""
    entry = _cell(*inline_text(text), label=label)
    entry += nodes.paragraph("", "", nodes.Text(shown_on), page)
    return entry


def _checks(term_zh: str, env, words: dict[str, str]) -> list[nodes.Node]:
    """The facts that run the definition of ``term_zh``, run now (a failure fails the build, naming the term's
    line in ``sitetools/rules/terms.py``) and linked to their entries on the facts page."""
    terms_file = TERM_FILES[0]
    parts: list[nodes.Node] = []
    for fact_id in CHECKED_BY.get(term_zh, ()):
        cite(env, fact_id, env.docname)
        result = run(env, fact_id)
        if not result.holds:
            lines = open(terms_file, encoding="utf-8").read().splitlines()
            line = next((n for n, text in enumerate(lines, 1) if f'Term("{term_zh}"' in text), None)
            logger.warning("glossary: the definition of %s cites fact %s, which does not hold on this torch: %s "
                           "(rewrite the definition or the fact)", term_zh, fact_id, result.trace,
                           location=(terms_file, line), type="matrix", subtype="fact")
        parts += [nodes.Text(words["between"] if parts else words["checked"]),
                  nodes.reference(fact_id, "", nodes.literal(fact_id, fact_id), internal=True,
                                  refuri=f"facts.html#{nodes.make_id('fact-' + fact_id)}")]
    return parts


def _words(words: tuple[str, ...]) -> list[nodes.Node]:
    return [nodes.Text("、".join(words) if words else "—")]


def _matrix_sections(labels: tuple[str, ...], docname: str, words: dict) -> list[nodes.Node]:
    """Links to the behaviour matrix's sections ``labels``, each shown by its title (in quotes in Chinese)."""
    opening, closing = words["quotes"]
    parts: list[nodes.Node] = [nodes.Text(words["matrix"])]
    for index, label in enumerate(labels):
        if index:
            parts.append(nodes.Text(words["between"]))
        link = _link(label, docname)
        parts += [nodes.Text(opening), link, nodes.Text(closing)] if opening else [link]
    return parts


def _link(label: str, docname: str) -> addnodes.pending_xref:
    xref = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget=label, refexplicit=False,
                                 refwarn=True, refdoc=docname)
    xref += nodes.inline(label, label)
    return xref


class TermsTable(SphinxDirective):
    """Render the terminology list as a table (see the module docstring)."""

    has_content = False

    def run(self) -> list[nodes.Node]:

        for path in TERM_FILES:
            self.env.note_dependency(path)
        w = pick(WORDS, self.env.config.language, "the glossary's words (tensorcopy_sphinx.glossary_terms.WORDS)")
        field = pick(DEFINITIONS, self.env.config.language, "the glossary's definitions (glossary_terms.DEFINITIONS)")
        columns = ("zh", "en", "define", "also", "avoid")
        table = nodes.table(classes=["terms-table", "phone-cards"])
        group = nodes.tgroup(cols=len(columns))
        table += group
        for width in (12, 18, 46, 12, 12):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        row = nodes.row()
        for key in columns:
            row += _cell(nodes.Text(w[key]))
        head += row
        group += head
        body = nodes.tbody()
        for term in TERMS:
            row = nodes.row()
            row += _cell(nodes.Text(term.zh))
            row += _cell(*inline_text(term.en), label=w["en"])
            cell = _definition(getattr(term, field), _link(term.page, self.env.docname), w["page"], w["define"])
            if term.zh in MATRIX_SECTIONS:
                cell += nodes.paragraph("", "", *_matrix_sections(MATRIX_SECTIONS[term.zh], self.env.docname, w))
            checks = _checks(term.zh, self.env, w)
            if checks:
                cell += nodes.paragraph("", "", *checks)
            row += cell
            row += _cell(*_words(term.also), label=w["also"])
            row += _cell(*_words(term.avoid), label=w["avoid"])
            body += row
        group += body
        return [table]


class CoreTerms(SphinxDirective):
    """The list of core terms, in the reader's language (see the module docstring)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        for path in TERM_FILES:
            self.env.note_dependency(path)
        return [nodes.paragraph("", "", nodes.Text(core_terms(self.env.config.language)))]


def setup(app: Sphinx) -> dict:
    app.add_directive("terms-table", TermsTable)
    app.add_directive("core-terms", CoreTerms)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
