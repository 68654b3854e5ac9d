"""The "Checked by" lines that link a sentence's facts to their entries on the facts page.

A guide entry of the matrix page or of the decision page ends with one (``behaviour_matrix.build_guide``). On
the pages of ``LINKED_PAGES`` the ``{fact}`` role leaves a marker too, and once the page is read each block that
holds markers gets the same line under it, naming its facts in the order they are cited: a paragraph gets it after
itself, an item of a list (an outermost one: the nested items of a list item share its line) at its end. The
markers go then; on any other page the role renders nothing at all. ``behaviour_matrix``, which defines the
role, connects :func:`add_checked_by`.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from editions import pick

#: The narrative pages whose notes show their facts: the matrix and decision pages, whose guide entries show theirs.
LINKED_PAGES = frozenset({"matrix", "decide"})

#: The line that names the facts, by edition code: (its start, the word between two facts).
CHECKED_BY = {"en": ("Checked by: ", ", "), "zh_CN": ("检查它的事实：", "、")}


class cited_fact(nodes.Inline, nodes.Element):  # noqa: N801 (docutils names its node classes so)
    """Where a sentence cites the fact ``fact_id``; taken out once the page is read."""


def checked_by(language: str, fact_ids: tuple[str, ...], kind: str = "guide") -> nodes.paragraph:
    """"Checked by: ..." and the facts, each linked to its entry on the facts page (as the glossary does)."""
    start, between = pick(CHECKED_BY, language, "the 'checked by' words (fact_links.CHECKED_BY)")
    parts: list[nodes.Node] = []
    for fact_id in fact_ids:
        parts += [nodes.Text(between if parts else start),
                  nodes.reference(fact_id, "", nodes.literal(fact_id, fact_id), internal=True,
                                  refuri=f"facts.html#{nodes.make_id('fact-' + fact_id)}")]
    return nodes.paragraph("", "", *parts, classes=[f"{kind}-checked-by"])


def marker(docname: str, fact_id: str) -> list[nodes.Node]:
    """What the ``{fact}`` role leaves on ``docname``: a marker on a page of ``LINKED_PAGES``, else nothing."""
    return [cited_fact(fact_id=fact_id)] if docname in LINKED_PAGES else []


def _block(marked: nodes.Node) -> nodes.Element:
    """The block whose line names ``marked``'s fact: the outermost list item holding it, else its paragraph."""
    block, item = marked.parent, None
    while block is not None:
        if isinstance(block, nodes.list_item):
            item = block
        block = block.parent
    return item or marked.parent


def add_checked_by(app: Sphinx, doctree: nodes.document) -> None:
    """Under each block of the page that cites facts, the line that names them; then drop the markers."""
    blocks: dict[nodes.Element, list[str]] = {}
    for marked in list(doctree.findall(cited_fact)):
        facts = blocks.setdefault(_block(marked), [])
        if marked["fact_id"] not in facts:
            facts.append(marked["fact_id"])
        marked.parent.remove(marked)
    for block, facts in blocks.items():
        line = checked_by(app.config.language, tuple(facts), "note")
        if isinstance(block, nodes.list_item):
            block += line
        else:
            block.parent.insert(block.parent.index(block) + 1, line)

