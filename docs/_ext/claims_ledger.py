"""Sphinx directive ``claims-ledger``: the articles' claims with verdicts computed during the build.

Usage in a MyST page::

    ```{claims-ledger}
    :article: 000
    ```

``:article:`` (``000`` or ``004``) limits the table to one article; without it every claim is shown.
``:summary-only:`` renders only the count line. Each use runs the checks in ``claims.py`` on the
torch of the build and renders a table in the page's language (``language`` in the configuration),
with a ``:ref:`` link to the gallery page that demonstrates each claim.

Warnings (the build runs with ``-W``, so each one fails it):

- a claim has no check, a check raises, lets a warning escape or returns something else;
- a computed verdict differs from the reviewed baseline ``docs/_data/claim_verdicts.json``
  (the warning names the claim id, the old and the new verdict). After reviewing the pages, refresh
  the baseline with ``python docs/_ext/claims.py --update-baseline``.
"""

from __future__ import annotations

import re

import claims
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: Every word the ledger prints, in both languages.
WORDS = {
    "en": {
        "claim": "Claim",
        "source": "From: {where}",
        "verdict": "Verdict",
        "observed": "What this build shows",
        "page": "Shown on",
        claims.HOLDS: "holds",
        claims.DOES_NOT_HOLD: "does not hold",
        claims.OUTPUT_DIFFERS: "output differs from the article's",
        "problem": "no verdict: {problem}",
        "summary": "{total} claims, checked on torch {torch}: {holds} hold, {not_hold} do not "
        "hold, and for {differs} the output differs from the article's.",
    },
    "zh_CN": {
        "claim": "原文的说法",
        "source": "出处：{where}",
        "verdict": "结论",
        "observed": "本次构建的实际结果",
        "page": "演示页面",
        claims.HOLDS: "成立",
        claims.DOES_NOT_HOLD: "不成立",
        claims.OUTPUT_DIFFERS: "输出与原文不同",
        "problem": "没有结论：{problem}",
        "summary": "共 {total} 条说法，在 torch {torch} 上检验：{holds} 条成立，{not_hold} 条不成立，"
        "{differs} 条输出与原文不同。",
    },
}

_CODE = re.compile(r"`([^`]+)`")


def words(language: str | None) -> dict[str, str]:
    return WORDS["zh_CN" if language == "zh_CN" else "en"]


def inline_text(text: str) -> list[nodes.Node]:
    """Text with `backticked` spans turned into literal nodes."""
    parts: list[nodes.Node] = []
    for index, piece in enumerate(_CODE.split(text)):
        if not piece:
            continue
        parts.append(nodes.literal(piece, piece) if index % 2 else nodes.Text(piece))
    return parts


def reference(label: str, docname: str) -> addnodes.pending_xref:
    """The node a ``:ref:`label``` role makes: Sphinx fills in the page title and the link."""
    node = addnodes.pending_xref(
        "",
        nodes.inline(label, label, classes=["xref", "std", "std-ref"]),
        refdomain="std",
        reftype="ref",
        reftarget=label,
        refexplicit=False,
        refwarn=True,
        refdoc=docname,
    )
    return node


def _cell(*children: nodes.Node) -> nodes.entry:
    entry = nodes.entry()
    entry += nodes.paragraph("", "", *children)
    return entry


def _row(*cells: nodes.entry) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        row += cell
    return row


def build_table(
    outcomes: list[claims.Outcome],
    language: str | None,
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
    lang = "zh_CN" if language == "zh_CN" else "en"
    table = nodes.table(classes=["claims-ledger"])
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
        section = claims.SECTIONS[(entry.article, entry.section)][lang]
        article = claims.ARTICLES[entry.article][lang]
        if outcome.result is not None:
            word = w[outcome.result.verdict]
            verdict = nodes.inline(word, word, classes=["verdict", f"verdict-{outcome.verdict}"])
            observed = outcome.result.observed
        else:
            word = w["problem"].format(problem=outcome.problem)
            verdict = nodes.inline(word, word, classes=["verdict", "verdict-problem"])
            observed = ""
        where = w["source"].format(where=f"{article} · {section}" if name_article else section)
        claim_cell = _cell(*inline_text(entry.text(lang)))
        claim_cell += nodes.paragraph(where, where, classes=["claim-source"])
        row = _row(
            claim_cell,
            _cell(verdict),
            _cell(nodes.literal(observed, observed)) if observed else _cell(),
            _cell(reference(entry.gallery, docname)),
        )
        row["ids"].append(nodes.make_id(f"claim-{entry.id}"))
        body += row
    return table


def summary_line(outcomes: list[claims.Outcome], language: str | None) -> nodes.paragraph:
    import torch

    counts = claims.summary(outcomes)
    text = words(language)["summary"].format(
        total=len(outcomes),
        torch=torch.__version__,
        holds=counts[claims.HOLDS],
        not_hold=counts[claims.DOES_NOT_HOLD],
        differs=counts[claims.OUTPUT_DIFFERS],
    )
    return nodes.paragraph(text, text, classes=["claims-summary"])


class ClaimsLedger(SphinxDirective):
    """Run the claims' checks and render them as a table (see the module docstring)."""

    has_content = False
    option_spec = {
        "article": lambda value: directives.choice(value, tuple(claims.ARTICLES)),
        "summary-only": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(claims.__file__)
        self.env.note_dependency(str(claims.BASELINE))
        article = self.options.get("article")
        chosen = [c for c in claims.CLAIMS if article in (None, c.article)]
        outcomes = [claims.run_claim(entry) for entry in chosen]
        location = self.get_location()

        for outcome in outcomes:
            if outcome.problem:
                logger.warning("claim %s: %s", outcome.claim.id, outcome.problem,
                               location=location, type="claims", subtype="check")
        baseline = claims.load_baseline()
        if article is not None:
            baseline = {k: v for k, v in baseline.items() if k.startswith(f"{article}-")}
        for message in claims.compare_with_baseline(outcomes, baseline):
            logger.warning("%s (review the pages, then run "
                           "`python docs/_ext/claims.py --update-baseline`)", message,
                           location=location, type="claims", subtype="baseline")

        language = self.env.config.language
        result: list[nodes.Node] = [summary_line(outcomes, language)]
        if "summary-only" not in self.options:
            result.append(build_table(outcomes, language, self.env.docname, name_article=article is None))
        return result


def setup(app: Sphinx) -> dict:
    app.add_directive("claims-ledger", ClaimsLedger)
    app.add_css_file("claims.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
