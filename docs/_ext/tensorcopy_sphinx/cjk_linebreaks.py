"""Drop the line breaks and spaces that reST needs inside Chinese sentences but a reader should not see.

A source line break between two Chinese characters reaches the HTML as a newline, which the browser
shows as a space ("。 我们"). Chinese has no spaces between words, so in every edition whose row in
``editions`` is marked ``cjk`` this extension removes a line break when both neighbours
are Chinese characters, or when either is full-width punctuation. A break between Chinese and Latin
text stays a space, which is the site's convention anyway. (MyST gives each line break a text node of
its own; adjacent text nodes are merged first, so that a break is judged by its neighbours there too.
The page rules also refuse such a break in the sources: ``sitetools.rules.typography``.)

reST also needs a space on each side of a link (``见 :ref:`下一页 <label>```), and the site's rule puts
one there; but a link whose words are Chinese, between Chinese words, reads "见 下一页". In the same
editions, the space between a Chinese character and a link (a cross-reference, a web link or a
download) is removed where the link's text on that side is Chinese too: when the page is read, and
again once its references are resolved, since a reference without words of its own (``{doc}`ledger```)
shows its page's title only then. A link whose text starts or
ends with a Latin word (``clone() 那一页``) keeps its space on that side.

The page's meta description was sphinxext-opengraph's, whose reader takes the page from the top
until it has 200 characters, code included (a short opening ran on into the helpers' heading and
code: "import warnings import torch def same_storage(..."), and drops the space before a piece that
starts with ASCII punctuation ("可下载的.py 文件", "reading.grad of"). In every edition it is written
again here (:func:`page_description`) from the page's opening only (:func:`page_intro`: the text
before its first sub-section or code block, boxes left out, and tables, with the sentence that leads
into one), each paragraph's words as the page shows them, cut at the same length; a question page's
comes from its answer box instead (the cause and the lead-in to the fix, not the error message the
opening quotes). In the ``cjk``
editions :func:`tidy_description` then removes the spaces next to full-width punctuation or between
two Chinese characters (where two paragraphs or list items meet), puts one between a Chinese
character and Latin text or code glued to it, drops an ASCII "," or "." after full-width punctuation
("；, 不成立") and makes one after a Chinese character full-width, ends a cut text with "……", and makes
the colon after a Chinese title full-width.
"""

import html
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from editions import edition

HAN = "\u3400-\u9fff"
FULL_WIDTH_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"
BREAK = re.compile(
    rf"(?<=[{HAN}])[ \t]*\n[ \t]*(?=[{HAN}])"
    rf"|(?<=[{FULL_WIDTH_PUNCTUATION}])[ \t]*\n[ \t]*"
    rf"|[ \t]*\n[ \t]*(?=[{FULL_WIDTH_PUNCTUATION}])"
)
#: What a link is in a doctree when it is read: cross-references are still pending then.
LINKS = (nodes.reference, addnodes.pending_xref, addnodes.download_reference)
#: The side of a link's text that stands without a space next to Chinese: a Chinese character, the quotation
#: mark of a short page name (见“版本计数器”那一页), or the title mark of a page's full title (见《视图操作一览》).
_CHINESE = re.compile(f"[{HAN}“”《》]")
_SPACE_BEFORE = re.compile(rf"(?<=[{HAN}])\s+$")
_SPACE_AFTER = re.compile(rf"^\s+(?=[{HAN}])")


def join_lines(text: str) -> str:
    """Remove the line breaks a Chinese reader would see as stray spaces."""
    return BREAK.sub("", text)


def _replace(text: nodes.Text, new: str) -> None:
    if new != text.astext():
        text.parent.replace(text, nodes.Text(new))


def join_links(doctree: nodes.Node) -> None:
    """Remove the space between Chinese text and a link whose text is Chinese on that side."""
    for link in list(doctree.findall(lambda node: isinstance(node, LINKS))):
        words = link.astext()
        if not words or link.parent is None:
            continue
        index = link.parent.index(link)
        before = link.parent[index - 1] if index > 0 else None
        after = link.parent[index + 1] if index + 1 < len(link.parent) else None
        if isinstance(before, nodes.Text) and _CHINESE.match(words[0]):
            _replace(before, _SPACE_BEFORE.sub("", before.astext()))
        if isinstance(after, nodes.Text) and _CHINESE.match(words[-1]):
            _replace(after, _SPACE_AFTER.sub("", after.astext()))


#: The description tags sphinxext-opengraph writes into the page's metatags.
_DESCRIPTION = re.compile(r'(<meta (?:name="description"|property="og:description") content=")([^"]*)(")')
_TITLE_COLON = re.compile(rf"(?<=[{HAN}]):[ \t]*")
_STRAY_SPACE = re.compile(
    rf"(?<=[{HAN}])\s+(?=[{HAN}])|\s+(?=[{FULL_WIDTH_PUNCTUATION}])|(?<=[{FULL_WIDTH_PUNCTUATION}])\s+"
)
#: An ASCII comma or full stop closing a Chinese clause ("；, 不成立", as sphinxext-opengraph ended list items).
_LIST_MARK_AFTER_PUNCTUATION = re.compile(rf"(?<=[{FULL_WIDTH_PUNCTUATION}])[,.](?=\s|$)")
_LIST_MARK_AFTER_HAN = re.compile(rf"(?<=[{HAN}])[,.](?=\s|$)")
#: Latin text or code right after a Chinese character, with no space between ("可下载的.py").
_LATIN_AFTER_HAN = re.compile(rf"(?<=[{HAN}])(?=[._A-Za-z0-9])")
_CUT = re.compile(r"\s*\.\.\.$")
#: What a description leaves out: boxes, comments, code, raw HTML, pictures, tables (the about page's table of
#: versions read as "组件版本 torch 2.13.0+cpu Python 3.11.7 ..." in its description).
_NOT_PROSE = (nodes.Admonition, nodes.Invisible, nodes.literal_block, nodes.raw, nodes.image, nodes.system_message,
              nodes.table)


def tidy_description(text: str) -> str:
    """A Chinese page description as a Chinese reader writes it (see the module's docstring)."""
    text = _CUT.sub("……", _TITLE_COLON.sub("：", text))
    text = _LIST_MARK_AFTER_PUNCTUATION.sub("", text)
    text = _LIST_MARK_AFTER_HAN.sub(lambda mark: "，" if mark.group() == "," else "。", text)
    return _LATIN_AFTER_HAN.sub(" ", _STRAY_SPACE.sub("", text))


def page_intro(doctree: nodes.document) -> nodes.document:
    """A copy of the page's opening: what its first section holds before its first sub-section or code
    block, without its title (an admonition stays: the reader skips it, code and all)."""
    intro = doctree.copy()
    section = next(doctree.findall(nodes.section), None)
    for child in section.children if section is not None else ():
        if isinstance(child, nodes.section) or (
            not isinstance(child, nodes.Admonition) and next(child.findall(nodes.literal_block), None)
        ):
            break
        if not isinstance(child, nodes.title):
            intro += child.deepcopy()
    return intro


def _words(node: nodes.Node) -> list[str]:
    """The text of each paragraph (or other text block) under ``node``, as the page shows it; a paragraph
    that leads into what the description leaves out is left out too (:func:`_leads_in`)."""
    if isinstance(node, _NOT_PROSE):
        return []
    if isinstance(node, nodes.TextElement):
        return [" ".join(node.astext().split())]
    children = node.children
    return [words for index, child in enumerate(children) if not _leads_in(children, index)
            for words in _words(child)]


def _leads_in(children: list[nodes.Node], index: int) -> bool:
    """Whether ``children[index]`` is a paragraph that ends with a colon right before a block the description
    leaves out (the about page's "用的是下面这些版本：" before its table, which furo wraps in a container):
    alone it points at nothing."""
    child = children[index]
    if not isinstance(child, nodes.paragraph) or not child.astext().rstrip().endswith((":", "：")):
        return False
    following = [node for node in children[index + 1:] if not isinstance(node, nodes.Invisible)]
    return bool(following) and not isinstance(following[0], nodes.Text) and not any(_words(following[0]))


#: Where a cut description may end: before a clause mark in Chinese, at a space in English.
_CLAUSE_END = re.compile(r"[。；，：！？]")
_WORD_END = re.compile(r"\s")
_HAN = re.compile(rf"[{HAN}]")


def _cut(text: str, length: int, cjk: bool) -> str:
    """``text`` in at most ``length`` characters: whole when it fits, else cut where a clause (Chinese)
    or a word (English) ends, if one ends in the second half, and marked "..."; a last colon, which
    leads into what the description leaves out, becomes a full stop."""
    if len(text) > length:
        head = text[: length - 3]
        ends = [match.start() for match in (_CLAUSE_END if cjk else _WORD_END).finditer(head)
                if not cjk or _HAN.search(head[: match.start()])]  # a Chinese cut keeps some Chinese
        text = (head[: ends[-1]] if ends and ends[-1] > length // 2 else head).rstrip() + "..."
    return text[:-1] + {":": ".", "：": "。"}[text[-1]] if text[-1:] in (":", "：") else text


def _answer_words(intro: nodes.document) -> list[str]:
    """The words of a question page's answer box before its code (the cause, and the sentence that leads
    into the fix), or nothing on a page without one."""
    box = next(intro.findall(lambda node: isinstance(node, nodes.Admonition) and "answer" in node["classes"]), None)
    return [" ".join(child.astext().split()) for child in box.children if isinstance(child, nodes.paragraph)] if (
        box is not None) else []


def page_description(doctree: nodes.document, length: int, cjk: bool) -> str:
    """The page's opening as one line of at most ``length`` characters (a cut one ends with "..."),
    tidied for a Chinese edition, HTML-escaped for the meta tag. A question page's opening often starts
    with the English error message it is about, which filled a Chinese search result with English cut
    mid-word: its description is its answer box's text instead."""
    intro = page_intro(doctree)
    words = _answer_words(intro) or _words(intro)
    text = _cut(" ".join(word for word in words if word), length, cjk)
    return html.escape(tidy_description(text) if cjk else text, quote=True)


def _page_context(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    if doctree is None or not context.get("metatags"):
        return
    description = page_description(doctree, app.config.ogp_description_length, edition(app.config.language).cjk)
    if description:
        context["metatags"] = _DESCRIPTION.sub(
            lambda match: match.group(1) + description + match.group(3), context["metatags"]
        )


def _merge_texts(doctree: nodes.Node) -> None:
    """Merge adjacent text nodes. MyST gives each soft line break a text node of its own ("\\n"), in
    which the characters around the break cannot be seen; reST keeps the break inside its line's text."""
    for parent in list(doctree.findall(nodes.Element)):
        index = 0
        while index + 1 < len(parent.children):
            left, right = parent.children[index], parent.children[index + 1]
            if isinstance(left, nodes.Text) and isinstance(right, nodes.Text):
                parent[index] = nodes.Text(left.astext() + right.astext())
                del parent[index + 1]
            else:
                index += 1


def join_paragraph_lines(doctree: nodes.Node) -> None:
    """Remove, in the text of ``doctree`` outside code, the line breaks :func:`join_lines` removes."""
    _merge_texts(doctree)
    for text in list(doctree.findall(nodes.Text)):
        if isinstance(text.parent, nodes.FixedTextElement | nodes.literal):
            continue  # code and literal blocks keep their lines
        joined = join_lines(text.astext())
        if joined != text.astext():
            text.parent.replace(text, nodes.Text(joined))


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    if not edition(app.config.language).cjk:
        return
    join_paragraph_lines(doctree)
    join_links(doctree)


def _doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """A reference without words of its own (``{doc}`releases```) gets its page's title only now."""
    if edition(app.config.language).cjk:
        join_links(doctree)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", _doctree_read)
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("html-page-context", _page_context, priority=600)  # after sphinxext-opengraph (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
