"""Make sphinx-gallery's gallery index pages valid HTML, and their cards free of reST markup.

Its thumbnail cards carry a ``tooltip="..."`` attribute, which is not HTML (the Nu checker rejects
it). This extension renames it to ``data-tooltip`` in the generated reST, and keeps the
``sg-tag-list`` id, which the index repeats once per part, on its first use only. The card's link text, which
sphinx-gallery hides with ``display: none`` (so screen readers get a nameless link), is made
visually hidden but readable in ``_static/site.css``.

A card shows two texts sphinx-gallery takes from the page's reST: the tooltip (the first paragraph after
the title) and the title, which it writes as raw HTML. Its clean-up of their inline markup
(``_sanitize_rst``) wants whitespace before a literal and a non-word character after it, so it misses a
literal right after punctuation ("：``module.to()``", "（``grad_fn``", "``a``、``b``") and the second of
two literals one space apart ("``.grad`` ``None``"): the cards showed backquotes. It also leaves the
build's substitutions (``|torch_version|``) as they are. Both texts are rewritten here with the words a
reader sees (:func:`plain_text`) and each substitution's value; the title is HTML-escaped first, as the
tooltip already is, so a ``<`` in a title is shown, not parsed. Being raw HTML, the title escapes Sphinx's
smart quotes, which curl the quotes of the link text above it: where the edition's language takes them
(English; Sphinx leaves Chinese alone), its straight quotes outside literals are curled here the same way
(:func:`curly_quotes`). Text a title quotes is verbatim (a question page's title quotes its error as torch prints
it): its apostrophes stay straight, on the card (:func:`straight_quoted_apostrophes`) as in the page's title and
every link that shows it (:class:`VerbatimQuotesInTitles`, after Sphinx's smart quotes).
"""

import html
import re

from docutils import nodes
from docutils.utils.smartquotes import educateQuotes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from tensorcopy_sphinx.build_info import build_versions, resolve

_TOOLTIP = re.compile(r'(<div class="sphx-glr-thumbcontainer"[^>]*?) tooltip="([^"]*)"')
#: A card's title as sphinx-gallery writes it: raw HTML, on one line.
_TITLE = re.compile(r'(<div class="sphx-glr-thumbnail-title">)(.*?)(</div>)')
#: reST inline markup in a card's text (HTML-escaped), each with the words a reader sees: ``code``,
#: :role:`words <target>` or `words <url>`__, :role:`words`, `words`_.
_MARKUP = (
    (re.compile(r"``(.+?)``"), r"\1"),
    (re.compile(r"(?::[\w.:+-]+:)?`([^`]*?)\s*&lt;[^`]*&gt;`_{0,2}"), r"\1"),
    (re.compile(r":[\w.:+-]+:`~?([^`]*)`"), r"\1"),
    (re.compile(r"`([^`]+)`_{0,2}"), r"\1"),
)


def plain_text(text: str) -> str:
    """``text`` (HTML-escaped) with the words of its inline markup in place of the markup."""
    for pattern, words in _MARKUP:
        text = pattern.sub(words, text)
    return text.strip()


def plain_title(title: str) -> str:
    """A card's title as a reader should see it: from sphinx-gallery's raw title, escaped HTML without
    reST markup."""
    return plain_text(html.escape(title, quote=False))


#: A literal in a card's raw title: its quotes are code and stay straight.
_LITERAL = re.compile(r"(``.+?``)")


def curly_quotes(title: str, language: str) -> str:
    """A card's raw title with its straight quotes outside literals curled as Sphinx's smart quotes curl
    the page's text in ``language`` (each part read after the character before it, as in running text), but
    for the apostrophes of the text it quotes (:func:`straight_quoted_apostrophes`)."""
    parts, before = _LITERAL.split(title), " "
    for index in range(0, len(parts), 2):
        if parts[index]:
            parts[index] = educateQuotes(before + parts[index], language=language)[1:]
        before = (parts[index + 1] if index + 1 < len(parts) else parts[index])[-1:] or before
    return "".join(straight_quoted_apostrophes(parts))


def straight_quoted_apostrophes(texts: list[str], inside: bool = False) -> list[str]:
    """``texts``, read in order as one title, with the curled apostrophes (’) between a “ and its ” made
    straight again: quoted text is verbatim, like an error message torch prints with ``Can't``."""
    found = []
    for text in texts:
        chars = []
        for char in text:
            inside = True if char == "\u201c" else False if char == "\u201d" else inside
            chars.append("'" if inside and char == "\u2019" else char)
        found.append("".join(chars))
    return found


class VerbatimQuotesInTitles(SphinxTransform):
    """After Sphinx's smart quotes (priority 750): the apostrophes a title quotes stay straight
    (:func:`straight_quoted_apostrophes`), in the title and so in every link and list that shows it."""

    default_priority = 760

    def apply(self, **kwargs) -> None:
        for title in self.document.findall(nodes.title):
            texts = [node for node in title.findall(nodes.Text) if not isinstance(node.parent, nodes.literal)]
            for node, text in zip(texts, straight_quoted_apostrophes([str(t) for t in texts]), strict=True):
                if text != str(node):
                    node.parent.replace(node, nodes.Text(text))


def _smart_quotes_language(app: Sphinx | None) -> str | None:
    """The language Sphinx's smart quotes use for this build, or None where it uses none."""
    if app is None or not app.config.smartquotes:
        return None
    excluded = app.config.smartquotes_excludes
    if app.config.language in excluded.get("languages", ()) or app.builder.name in excluded.get("builders", ()):
        return None
    return app.config.language


_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_BREAK = re.compile(rf"(?<=[{_CJK}])\s*\n\s*(?=[{_CJK}])")
_SPACE = re.compile(r"\s+")


def plain_tooltip(text: str) -> str:
    """A card's tooltip as a reader should see it: the words of its inline markup, without the markup.
    A question page's card shows its answer box's text (sphinx-gallery takes the first paragraph after
    the title), which ends by leading into the fix's code: the tooltip keeps the sentences before that
    lead-in, the cause."""
    # one line: a wrapped answer box leaves line breaks and indents, nothing between two Chinese characters
    text = _SPACE.sub(" ", _CJK_BREAK.sub("", plain_text(text))).strip()
    if text.endswith((":", "：")):
        cut = max(text.rfind(". "), text.rfind("。"))
        text = text[: cut + 1] if cut > 0 else text
    return text


_TAG_LIST = "<div id='sg-tag-list' class='sphx-glr-tag-list'></div>"


def _one_tag_list(text: str) -> str:
    """Keep the id on the first tag-list div only: a gallery index repeats it once per part."""
    first = text.find(_TAG_LIST)
    if first < 0:
        return text
    end = first + len(_TAG_LIST)
    return text[:end] + text[end:].replace(_TAG_LIST, "<div class='sphx-glr-tag-list'></div>")


def _source_read(app: Sphinx | None, docname: str, source: list[str]) -> None:
    versions = build_versions()
    language = _smart_quotes_language(app)

    def tooltip(match: re.Match) -> str:
        return f'{match.group(1)} data-tooltip="{plain_tooltip(resolve(match.group(2), versions, docname))}"'

    def title(match: re.Match) -> str:
        raw = resolve(match.group(2), versions, docname)
        return f"{match.group(1)}{plain_title(curly_quotes(raw, language) if language else raw)}{match.group(3)}"

    source[0] = _one_tag_list(_TITLE.sub(title, _TOOLTIP.sub(tooltip, source[0])))


def setup(app: Sphinx) -> dict:
    app.connect("source-read", _source_read)
    app.add_transform(VerbatimQuotesInTitles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
