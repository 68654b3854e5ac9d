"""Sphinx directive ``behaviour-matrix``: a cheat sheet probed on real tensors during the build.

Usage in a MyST page::

    ```{behaviour-matrix}
    :source: leaf
    ```

    ```{behaviour-matrix}
    :guide:
    ```

    ```{behaviour-matrix}
    :guide: decide
    ```

``:source:`` (a key of ``tensorfacts.standard_sources.SOURCES``: ``leaf``, ``non-leaf``, ``parameter``,
``view``, ``plain`` or ``inference``) renders the table for one kind of source tensor: one row per
operation, one column per probe in ``tensorfacts.probes``, and a caption with the torch version the
probes ran on. A cell where torch refused a step of the probe on purpose (an inference tensor has
no version counter) names the refusal; its message is listed under the table with the others.
``:guide:`` renders the "which one should I
use" list; each item's premises are checked against the probe results (and the facts it names),
and an item whose premises fail is reported as a warning (the build runs with ``-W``, so it
fails). ``:guide: decide`` does the same for the answers of the "which one do I want?" page
(``tensorfacts.decisions``). Under each item that names facts, a "Checked by" line links them.

The role ``{fact}`id``` marks a sentence of a narrative page as resting on the fact ``id`` of
``tensorfacts.facts``: the build runs that fact and warns when the id is unknown or the fact no
longer holds. The role renders nothing; it is the sentence's link to its check. On the matrix and decision
pages each block that cites facts gets a "Checked by" line naming them, as each guide entry does
(``tensorcopy_sphinx.fact_links``). Each citation (a role, or a fact a guide entry names) is recorded for
the facts page (``tensorcopy_sphinx.fact_index``).

Column headers and cell words come from ``WORDS`` below, one entry per edition (a missing
edition fails the build). Its stylesheet, ``static/behaviour-matrix.css``, is its own.
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
from tensorcopy_sphinx.fact_index import cite, run
from tensorcopy_sphinx.fact_links import add_checked_by, checked_by, marker
from tensorcopy_sphinx.inline import inline_text, stylesheet
from tensorfacts import matrix as mp
from tensorfacts import probes, standard_sources
from tensorfacts.decisions import GUIDES

logger = logging.getLogger(__name__)

#: Every word the matrix prints, by edition code.
WORDS = {
    "en": {
        "operation": "how b is made",
        "same_object": "same object",
        "type": "type(b)",
        "shares_storage": "shares storage",
        "requires_grad": "requires_grad",
        "grad_fn": "grad_fn",
        "shares_version": "shares version counter",
        "inplace_edit": "edit b in place, then backward",
        "inplace_edit_no_grad": "edit b under no_grad, then backward",
        "raised": "warning or error",
        True: "yes",
        False: "no",
        probes.EDIT_REFUSED: "error at the edit",
        probes.EDIT_DETECTED: "error at backward",
        probes.EDIT_SILENT: "wrong gradient, no error",
        probes.EDIT_UNAFFECTED: "gradient unaffected",
        probes.EDIT_NO_GRAPH: "no graph (a needs no grad)",
        probes.NO_COUNTER: "error: a has no version counter",
        probes.INFERENCE_EDIT: "error at the edit (inference tensor)",
        "changed_anyway": ", yet a changed",
        "refusal": "“{word}”",
        "not_made": "—",
        "none_raised": "none",
        "caption": "Source: {code} — probed on torch {torch}",
        "messages": "The messages, first sentence only:",
        "message": ": ",
    },
    "zh_CN": {
        "operation": "得到 b 的写法",
        "same_object": "同一对象",
        "type": "type(b)",
        "shares_storage": "共享存储",
        "requires_grad": "requires_grad",
        "grad_fn": "grad_fn",
        "shares_version": "共享版本计数器",
        "inplace_edit": "原地修改 b 后反向传播",
        "inplace_edit_no_grad": "在 no_grad 下原地修改 b 后反向传播",
        "raised": "警告或报错",
        True: "是",
        False: "否",
        probes.EDIT_REFUSED: "修改时报错",
        probes.EDIT_DETECTED: "反向传播时报错",
        probes.EDIT_SILENT: "梯度错误，不报错",
        probes.EDIT_UNAFFECTED: "梯度不受影响",
        probes.EDIT_NO_GRAPH: "无计算图（a 不需要梯度）",
        probes.NO_COUNTER: "报错：a 没有版本计数器",
        probes.INFERENCE_EDIT: "修改时报错（推理张量）",
        "changed_anyway": "，但 a 的值已被改动",
        "refusal": "“{word}”",
        "not_made": "—",
        "none_raised": "无",
        "caption": "源张量：{code}（在 torch {torch} 上实测）",
        "messages": "警告和报错信息（只列第一句）：",
        "message": "：",
    },
}


def words(language: str) -> dict:
    """The matrix's words in ``language``; an edition without them fails loudly."""
    return pick(WORDS, language, "the behaviour matrix's words (tensorcopy_sphinx.behaviour_matrix.WORDS)")


def cell_nodes(column: str, value: object, w: dict) -> list[nodes.Node]:
    """The nodes of one cell: booleans and outcomes as words, code as literals."""
    if isinstance(value, probes.ProbeFailure):
        return [nodes.inline("?", "?", classes=["probe-failed"])]
    if value is probes.NOT_MADE:
        return [nodes.Text(w["not_made"])]
    if isinstance(value, probes.Refused):  # its message is listed under the table
        word = w[value.kind] + (w["changed_anyway"] if value.changed else "")
        return [nodes.inline(word, word, classes=[f"refused-{value.kind}"])]
    if column in probes.BOOLEAN_COLUMNS:
        word = w[bool(value)]
        return [nodes.inline(word, word, classes=[f"cell-{str(bool(value)).lower()}"])]
    if column in probes.EDIT_COLUMNS:
        word = w[value]
        return [nodes.inline(word, word, classes=[f"edit-{value}"])]
    if column == "raised":
        if value == "":
            return [nodes.Text(w["none_raised"])]
        category = str(value).split(":")[0]  # the message itself is listed under the table
        return [nodes.literal(category, category)]
    text = str(value)
    return [nodes.literal(text, text)]


def refusals(matrix: probes.Matrix, source: str) -> list[tuple[str, str]]:
    """The distinct refusals (kind, error) in a source's table, in the order they first appear."""
    found: list[tuple[str, str]] = []
    for cells in matrix[source].values():
        for value in cells.values():
            if isinstance(value, probes.Refused) and (value.kind, value.error) not in found:
                found.append((value.kind, value.error))
    return found


def build_messages(matrix: probes.Matrix, source: str, language: str) -> list[nodes.Node]:
    """Under the table: each warning or error message, its first sentence (its cell shows only the type), then
    each refusal's message once (its cells show only the refusal's words)."""
    w = words(language)
    raised = [(op, cells["raised"]) for op, cells in matrix[source].items()
              if isinstance(cells["raised"], str) and cells["raised"]]
    refused = refusals(matrix, source)
    if not raised and not refused:
        return []
    items = nodes.bullet_list(classes=["behaviour-matrix-messages"])
    for operation, message in raised:
        item = nodes.list_item()
        item += nodes.paragraph("", "", nodes.literal(operation, operation), nodes.Text(w["message"]),
                                nodes.literal(message, message))
        items += item
    for kind, error in refused:
        item = nodes.list_item()
        label = w["refusal"].format(word=w[kind])
        item += nodes.paragraph("", "", nodes.Text(label), nodes.Text(w["message"]), nodes.literal(error, error))
        items += item
    return [nodes.paragraph(w["messages"], w["messages"], classes=["behaviour-matrix-messages-intro"]), items]


def build_source_line(source: str, language: str) -> nodes.paragraph:
    """The line above a table: the source tensor's code and the torch the probes ran on.

    (A paragraph, not a table caption: a captioned table gets an id, which the theme's table
    wrapper copies, and the page would then hold the same id twice.)
    """
    import torch

    before, after = words(language)["caption"].split("{code}")
    code = standard_sources.SOURCE_CODE[source]
    return nodes.paragraph("", "", nodes.Text(before), nodes.literal(code, code),
                           nodes.Text(after.format(torch=torch.__version__)),
                           classes=["behaviour-matrix-source"])


def _breakable(label: str) -> list[nodes.Node]:
    """A header's words, which a narrow column may break after each "_": a ``<wbr>`` there, not a
    zero-width space, so that a copied header reads as it is written (``requires_grad``)."""
    *pieces, last = label.split("_")
    parts: list[nodes.Node] = []
    for piece in pieces:
        parts += [nodes.Text(f"{piece}_"), nodes.raw("", "<wbr>", format="html")]
    return [*parts, nodes.Text(last)]


def build_matrix(matrix: probes.Matrix, source: str, language: str) -> nodes.table:
    w = words(language)
    columns = list(probes.PROBES)
    table = nodes.table(classes=["behaviour-matrix"])
    group = nodes.tgroup(cols=len(columns) + 1)
    table += group
    widths = {"same_object": 7, "type": 9, "shares_storage": 7, "shares_version": 8,
              "requires_grad": 8, "grad_fn": 12, "inplace_edit": 14, "inplace_edit_no_grad": 14,
              "raised": 10}
    for index, width in enumerate((22, *(widths[c] for c in columns))):
        spec = nodes.colspec(colwidth=width)
        if index == 0:
            spec["stub"] = 1  # the operation heads its row (a <th> for screen readers)
        group += spec
    head = nodes.thead()
    group += head
    header = nodes.row()
    for key in ["operation", *columns]:
        entry = nodes.entry()
        label = w[key]
        pieces = _breakable(label)
        shown = nodes.literal(label, "", *pieces) if key in ("type", "requires_grad", "grad_fn") else pieces
        entry += nodes.paragraph("", "", *([shown] if isinstance(shown, nodes.Node) else shown))
        header += entry
    head += header
    body = nodes.tbody()
    group += body
    for operation, cells in matrix[source].items():
        row = nodes.row()
        first = nodes.entry()
        first += nodes.paragraph("", "", nodes.literal(operation, operation))
        row += first
        for column in columns:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", *cell_nodes(column, cells[column], w))
            row += entry
        body += row
    return table


#: A link in a piece of advice: ``{ref}`words <label>``` (the words are the link's, as in MyST).
_REF = re.compile(r"\{ref\}`([^`<]+?)\s*<([^`>]+)>`")


def _advice_inline(text: str, docname: str) -> list[nodes.Node]:
    """A line of advice: inline code between backticks, and ``{ref}`words <label>``` links."""
    parts: list[nodes.Node] = []
    pieces = _REF.split(text)
    for index in range(0, len(pieces), 3):
        parts.extend(inline_text(pieces[index]))
        if index + 2 < len(pieces):
            words, label = pieces[index + 1], pieces[index + 2]
            parts.append(addnodes.pending_xref(
                "", nodes.inline(words, words, classes=["xref", "std", "std-ref"]), refdomain="std",
                reftype="ref", reftarget=label, refexplicit=True, refwarn=True, refdoc=docname))
    return parts


def advice_blocks(text: str, docname: str = "") -> list[nodes.Node]:
    """A piece of advice: one paragraph per line, and the lines that start with ``- `` as a short list."""
    blocks: list[nodes.Node] = []
    for line in text.split("\n"):
        if line.startswith("- "):
            if not blocks or not isinstance(blocks[-1], nodes.bullet_list):
                blocks.append(nodes.bullet_list())
            blocks[-1] += nodes.list_item("", nodes.paragraph("", "", *_advice_inline(line[2:], docname)))
        else:
            blocks.append(nodes.paragraph("", "", *_advice_inline(line, docname)))
    return blocks


def build_guide(language: str, guide: tuple[mp.Advice, ...] = mp.GUIDE, docname: str = "",
                with_facts: bool = False) -> nodes.bullet_list:
    """The guide's entries as a list; ``with_facts``: under each entry that names facts, a line linking them."""
    items = nodes.bullet_list(classes=["behaviour-guide"])
    for advice in guide:
        item = nodes.list_item(ids=[nodes.make_id(f"guide-{advice.id}")])
        item += advice_blocks(advice.text(language), docname)
        if with_facts and advice.facts:
            item += checked_by(language, advice.facts)
        items += item
    return items


class BehaviourMatrix(SphinxDirective):
    """Probe real tensors and render one matrix table or the guide (see the module docstring)."""

    has_content = False
    option_spec = {
        "source": lambda value: directives.choice(value, tuple(standard_sources.SOURCES)),
        "guide": lambda value: directives.choice((value or "").strip(), tuple(GUIDES)),
    }

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(mp.__file__)
        language = self.env.config.language
        location = self.get_location()
        matrix = probes.probe_all()
        for problem in probes.failures(matrix):
            logger.warning("behaviour matrix: probe failed: %s", problem, location=location,
                           type="matrix", subtype="probe")
        if "guide" in self.options:
            guide = GUIDES[self.options["guide"]]
            for advice in guide:
                for fact_id in advice.facts:
                    cite(self.env, fact_id, self.env.docname)  # for the facts page
            for advice_id in mp.failed_premises(matrix, guide):
                logger.warning("behaviour matrix guide: the premises of %r do not hold on this "
                               "torch; rewrite that advice", advice_id, location=location,
                               type="matrix", subtype="guide")
            # each guide entry links the facts it rests on, as the intros of the matrix and decision pages say
            return [build_guide(language, guide, self.env.docname, with_facts=True)]
        source = self.options.get("source", "leaf")
        return [
            build_source_line(source, language),
            build_matrix(matrix, source, language),
            *build_messages(matrix, source, language),
        ]


def fact_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{fact}`id```: run the fact during the build; render nothing but, on the matrix page, a marker for the
    "Checked by" line under its block (``tensorcopy_sphinx.fact_links``)."""
    fact_id = text.strip()
    env = inliner.document.settings.env
    cite(env, fact_id, env.docname)  # for the facts page
    result = run(env, fact_id)
    if not result.holds:
        source, line = inliner.reporter.get_source_and_line(lineno)
        logger.warning("fact %s does not hold on this torch: %s (rewrite the sentence that names it)",
                       fact_id, result.trace, location=(source, line), type="matrix", subtype="fact")
    return marker(env.docname, fact_id), []


def setup(app: Sphinx) -> dict:
    app.add_directive("behaviour-matrix", BehaviourMatrix)
    app.add_role("fact", fact_role)
    app.connect("doctree-read", add_checked_by)  # the "Checked by" lines of the matrix and decision pages' notes
    stylesheet(app, "behaviour-matrix.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
