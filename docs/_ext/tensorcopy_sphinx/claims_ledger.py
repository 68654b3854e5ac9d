"""Sphinx directive ``claims-ledger``: the articles' claims with verdicts computed during the build.

Usage in a MyST page::

    ```{claims-ledger}
    :article: 000
    ```

``:article:`` (``000`` or ``004``) limits the table to one article; without it every claim is shown.
``:summary-only:`` renders only the count line. Each use runs the checks of the fact engine
(``tensorfacts``) on the torch of the build and renders a table in the page's language (``language``
in the configuration; its words come from ``WORDS``, one entry per edition, and a missing edition
fails the build), with a ``:ref:`` link to the gallery page that demonstrates each claim. The named facts a
claim's check runs are cited by the page, for the facts page (:mod:`tensorcopy_sphinx.fact_index`). Its
stylesheet, ``static/claims-ledger.css``, is its own: on a phone it shows each row as a card, and
the cells after the claim carry their column's header words in a ``data-label`` attribute for it.

Warnings (the build runs with ``-W``, so each one fails it):

- a claim has no check, a check raises, lets a warning escape or returns something else;
- a computed verdict differs from the reviewed baseline ``tensorfacts/claim_verdicts.json``
  (the warning names the claim id, the old and the new verdict). After reviewing the pages, refresh
  the baseline with ``python -m tensorfacts --update-baseline``.
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from editions import pick
from tensorcopy_sphinx.fact_index import cite
from tensorcopy_sphinx.inline import inline_text, stylesheet
from tensorfacts import articles, baseline, fact_registry, verdicts
from tensorfacts.model import DOES_NOT_HOLD, HOLDS, NOT_A_CLAIM, OUTPUT_DIFFERS, Outcome

logger = logging.getLogger(__name__)

#: Every word the ledger prints, by edition code.
WORDS = {
    "en": {
        "claim": "Claim",
        "source": "From: {where}",
        "verdict": "Verdict",
        "observed": "What this build shows",
        "page": "Shown on",
        HOLDS: "holds",
        DOES_NOT_HOLD: "does not hold",
        OUTPUT_DIFFERS: "output differs from the article's",
        NOT_A_CLAIM: "not a claim",
        "qualifier": " ({qualifier})",
        "problem": "no verdict: {problem}",
        # each count follows a label, so that no word has to agree with it ("1 do not hold")
        "summary": "Claims checked on torch {torch}: {total}. Verdicts: holds {holds}, does not hold {not_hold}, "
        "output differs from the article's {differs}. Rows that are not claims (code damaged in publishing, a "
        "commented-out line), not counted: {not_claims}.",
        "summary, all claims": "Claims checked on torch {torch}: {total}. Verdicts: holds {holds}, does not hold "
        "{not_hold}, output differs from the article's {differs}.",
    },
    "zh_CN": {
        "claim": "原博文的说法",
        "source": "出处：{where}",
        "verdict": "结论",
        "observed": "本次构建的实际结果",
        "page": "演示页面",
        HOLDS: "成立",
        DOES_NOT_HOLD: "不成立",
        OUTPUT_DIFFERS: "输出与原文不同",
        NOT_A_CLAIM: "不算原文的说法",
        "qualifier": "（{qualifier}）",
        "problem": "没有结论：{problem}",
        "summary": "共 {total} 条说法，在 torch {torch} 上检验：{holds} 条成立，{not_hold} 条不成立，"
        "{differs} 条输出与原文不同。另有 {not_claims} 行不算原文的说法"
        "（发表时损坏的代码、被注释掉的一行），不计入统计。",
        "summary, all claims": "共 {total} 条说法，在 torch {torch} 上检验：{holds} 条成立，"
        "{not_hold} 条不成立，{differs} 条输出与原文不同。",
    },
}



def words(language: str) -> dict[str, str]:
    """The ledger's words in ``language``; an edition without them fails loudly."""
    return pick(WORDS, language, "the claims ledger's words (tensorcopy_sphinx.claims_ledger.WORDS)")


def reference(label: str, docname: str, text: str = "") -> addnodes.pending_xref:
    """The node a ``:ref:`label``` role makes: Sphinx fills in the page title and the link (or, given ``text``,
    the node of ``:ref:`text <label>```: that text, linked)."""
    node = addnodes.pending_xref(
        "",
        nodes.inline(text or label, text or label, classes=["xref", "std", "std-ref"]),
        refdomain="std",
        reftype="ref",
        reftarget=label,
        refexplicit=bool(text),
        refwarn=True,
        refdoc=docname,
    )
    return node


_LINK = re.compile(r"\[([^\]]+)\]\((https://[^)\s]+|ref:[\w-]+)\)")


def note_nodes(text: str, docname: str) -> list[nodes.Node]:
    """A claim's note: inline code between backticks, links written ``[text](https://...)``, and links to a
    label of the site written ``[text](ref:label)`` (a ``:ref:`` with that text: an unknown label fails the build)."""
    parts: list[nodes.Node] = []
    pieces = _LINK.split(text)
    for index in range(0, len(pieces), 3):
        parts.extend(inline_text(pieces[index]))
        if index + 2 < len(pieces):
            label, url = pieces[index + 1], pieces[index + 2]
            parts.append(reference(url.removeprefix("ref:"), docname, label) if url.startswith("ref:")
                         else nodes.reference(label, label, refuri=url))
    return parts


def trace_nodes(outcome: Outcome, language: str) -> list[nodes.Node]:
    """The trace of a check: code alone as one literal; a worded trace as text around its code."""
    text = outcome.result.trace(language, f"the trace of claim {outcome.claim.id}")
    return inline_text(text) if outcome.result.worded else [nodes.literal(text, text)]


class labelled_entry(nodes.entry):  # noqa: N801 (docutils names its node classes in lower case)
    """A cell that names its column in a ``data-label`` attribute (``node["label"]``).

    On a phone each ledger row is a card, and the stylesheet shows this name above the cell's
    content, where the hidden header row can no longer show it. Builders other than HTML treat
    the node as a plain cell (Sphinx looks up a visitor along the node's class hierarchy).
    """


def visit_labelled_entry(self, node: labelled_entry) -> None:
    self.visit_entry(node)
    tag = self.body[-1]
    if not tag.endswith(">"):
        raise ValueError(f"a table cell's start tag was expected, not {tag!r}")
    self.body[-1] = f'{tag[:-1]} data-label="{self.attval(node["label"])}">'


def depart_labelled_entry(self, node: labelled_entry) -> None:
    self.depart_entry(node)


def _cell(*children: nodes.Node, label: str | None = None) -> nodes.entry:
    entry = nodes.entry() if label is None else labelled_entry(label=label)
    entry += nodes.paragraph("", "", *children)
    return entry


def _row(*cells: nodes.entry) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        row += cell
    return row


def build_table(
    outcomes: list[Outcome],
    language: str,
    docname: str,
    name_article: bool,
) -> nodes.table:
    """The ledger table for ``outcomes``, in ``language``.

    Each claim cell ends with where the claim comes from: the section, and the article too when
    ``name_article`` (a page that shows one article per table names it in the heading above).
    The table has no caption: a captioned table gets an id, which the theme's table wrapper
    copies, and the page would then hold the same id twice.
    """
    w = words(language)
    table = nodes.table(classes=["claims-ledger", "phone-cards"])
    widths = (40, 14, 28, 18)
    group = nodes.tgroup(cols=len(widths))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row(*(_cell(nodes.Text(w[key]))
                   for key in ("claim", "verdict", "observed", "page")))
    body = nodes.tbody()
    group += body
    for outcome in outcomes:
        entry = outcome.claim
        section = pick(articles.SECTIONS[(entry.article, entry.section)], language,
                       f"section {entry.section} of article {entry.article}")
        article = pick(articles.ARTICLES[entry.article], language, f"the title of article {entry.article}")
        if outcome.result is not None:
            word = w[outcome.result.verdict]
            verdict = [nodes.inline(word, word, classes=["verdict", f"verdict-{outcome.verdict}"])]
            qualifier = entry.qualifier(language)
            if qualifier:  # the verdict holds only in the reading its note explains: say so here
                verdict.append(nodes.inline(qualifier, w["qualifier"].format(qualifier=qualifier),
                                            classes=["verdict-qualifier"]))
            observed = trace_nodes(outcome, language)
        else:
            word = w["problem"].format(problem=outcome.problem)
            verdict = [nodes.inline(word, word, classes=["verdict", "verdict-problem"])]
            observed = []
        where = w["source"].format(where=f"{article} · {section}" if name_article else section)
        claim_cell = _cell(*inline_text(entry.text(language)))
        note = entry.note(language)
        if note:
            claim_cell += nodes.paragraph("", "", *note_nodes(note, docname), classes=["claim-note"])
        claim_cell += nodes.paragraph(where, where, classes=["claim-source"])
        row = _row(
            claim_cell,
            _cell(*verdict, label=w["verdict"]),
            _cell(*observed, label=w["observed"]),
            _cell(reference(entry.gallery, docname), label=w["page"]),
        )
        row["ids"].append(nodes.make_id(f"claim-{entry.id}"))
        body += row
    return table


def summary_template(language: str, not_claims: int) -> str:
    """The count line's sentence: the one that counts the rows that are not claims, when there are any."""
    return words(language)["summary" if not_claims else "summary, all claims"]


def summary_line(outcomes: list[Outcome], language: str) -> nodes.paragraph:
    import torch

    counts = verdicts.summary(outcomes)
    text = summary_template(language, counts[NOT_A_CLAIM]).format(
        total=len(outcomes) - counts[NOT_A_CLAIM],
        not_claims=counts[NOT_A_CLAIM],
        torch=torch.__version__,
        holds=counts[HOLDS],
        not_hold=counts[DOES_NOT_HOLD],
        differs=counts[OUTPUT_DIFFERS],
    )
    return nodes.paragraph(text, text, classes=["claims-summary"])


class ClaimsLedger(SphinxDirective):
    """Run the claims' checks and render them as a table (see the module docstring)."""

    has_content = False
    option_spec = {
        "article": lambda value: directives.choice(value, tuple(articles.ARTICLES)),
        "summary-only": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        for module in articles.MODULES:
            self.env.note_dependency(module.__file__)
        self.env.note_dependency(str(baseline.BASELINE))
        article = self.options.get("article")
        chosen = [c for c in articles.CLAIMS if article in (None, c.article)]
        with fact_registry.recording_runs() as ran:
            outcomes = verdicts.run_all(chosen)
        for fact_id in sorted(ran):  # the page rests on the facts its claims' checks run
            cite(self.env, fact_id, self.env.docname)  # for the facts page
        location = self.get_location()

        for outcome in outcomes:
            if outcome.problem:
                logger.warning("claim %s: %s", outcome.claim.id, outcome.problem,
                               location=location, type="claims", subtype="check")
        reviewed = baseline.load_baseline()
        if article is not None:
            reviewed = {k: v for k, v in reviewed.items() if k.startswith(f"{article}-")}
        for message in baseline.compare_with_baseline(outcomes, reviewed):
            logger.warning("%s (review the pages, then run "
                           "`python -m tensorfacts --update-baseline`)", message,
                           location=location, type="claims", subtype="baseline")

        language = self.env.config.language
        result: list[nodes.Node] = [summary_line(outcomes, language)]
        if "summary-only" not in self.options:
            result.append(build_table(outcomes, language, self.env.docname, name_article=article is None))
        return result


def setup(app: Sphinx) -> dict:
    app.add_directive("claims-ledger", ClaimsLedger)
    app.add_node(labelled_entry, html=(visit_labelled_entry, depart_labelled_entry))
    stylesheet(app, "claims-ledger.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
