"""Drop the line breaks and spaces that reST needs inside Chinese sentences but a reader should not see.

A source line break between two Chinese characters reaches the HTML as a newline, which the browser
shows as a space ("。 我们"). Chinese has no spaces between words, so in every edition whose row in
``sitetools.editions`` is marked ``cjk`` this extension removes a line break when both neighbours
are Chinese characters, or when either is full-width punctuation. A break between Chinese and Latin
text stays a space, which is the site's convention anyway. (MyST gives each line break a text node of
its own; adjacent text nodes are merged first, so that a break is judged by its neighbours there too.
The page rules also refuse such a break in the sources: ``sitetools.typography``.)

reST also needs a space on each side of a link (``见 :ref:`下一页 <label>```), and the site's rule puts
one there; but a link whose words are Chinese, between Chinese words, reads "见 下一页". In the same
editions, the space between a Chinese character and a link (a cross-reference, a web link or a
download) is removed where the link's text on that side is Chinese too. A link whose text starts or
ends with a Latin word (``clone() 那一页``) keeps its space on that side.

The page's meta description (sphinxext-opengraph's, from its first paragraph) joins the pieces of a
paragraph with a space unless the next one starts with ASCII punctuation, so it read "``grad_fn`` ，".
In the same editions, the spaces of the description next to full-width punctuation or between two
Chinese characters are removed, and the colon it puts after a Chinese title is made full-width.
"""

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from sitetools.editions import edition

HAN = "\u3400-\u9fff"
FULL_WIDTH_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"
BREAK = re.compile(
    rf"(?<=[{HAN}])[ \t]*\n[ \t]*(?=[{HAN}])"
    rf"|(?<=[{FULL_WIDTH_PUNCTUATION}])[ \t]*\n[ \t]*"
    rf"|[ \t]*\n[ \t]*(?=[{FULL_WIDTH_PUNCTUATION}])"
)
#: What a link is in a doctree when it is read: cross-references are still pending then.
LINKS = (nodes.reference, addnodes.pending_xref, addnodes.download_reference)
_CHINESE = re.compile(f"[{HAN}]")
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


def tidy_description(text: str) -> str:
    """A page description without spaces between Chinese characters or next to full-width punctuation,
    and with a full-width colon after a Chinese title (sphinxext-opengraph ends a title with ":")."""
    return _STRAY_SPACE.sub("", _TITLE_COLON.sub("：", text))


def _page_context(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    if edition(app.config.language).cjk and context.get("metatags"):
        context["metatags"] = _DESCRIPTION.sub(
            lambda match: match.group(1) + tidy_description(match.group(2)) + match.group(3), context["metatags"]
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


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", _doctree_read)
    app.connect("html-page-context", _page_context, priority=600)  # after sphinxext-opengraph (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
