"""The first mention rule: a Chinese reader may land on any page first, so on every Chinese page the
first mention of a core term carries its English, ``版本计数器（version counter）``.

The core terms are the entries of :data:`sitetools.rules.terms.TERMS` with a ``gloss``; :data:`FIRST_MENTIONS`
is derived from them. What counts, kept simple:

- A mention is a match of the term's ``mention`` pattern (its Chinese word unless the entry says
  otherwise): 原地 counts for 原地操作 (so 原地修改, 原地更新 and 原地操作 are all mentions, but not
  留在原地), 叶子张量 is not a mention inside 非叶子张量, and autograd, as a word of prose, is one for
  自动求导 (``torch.autograd.grad`` is a name, not a mention). The other terms are mentioned only by
  their Chinese word, so a code name (``saved_tensors_hooks``, ``view()``) is never a mention.
- The first mention is glossed when full-width parentheses follow the word (or the compound it starts,
  at most two more characters: 原地修改（in-place）) and hold the gloss anywhere: 视图（view）,
  ``版本计数器（version counter，``C1``）`` and 原地操作（in-place operation） all pass. Later mentions
  may use the word alone.
- Only prose is read: a script's text cells, the gallery's headers (one page, the examples index), a
  narrative page with the sentences its directives write, where the reader meets them (guides, notes,
  facts, claims, definitions: :mod:`sitetools.rules.generated_prose`; a problem there names the module and
  line); not code (code cells,
  code blocks and doctests, MyST comments), not a picture's alt text (a sighted reader never sees it),
  not a section title or a cross-reference's words (a title names the term; the paragraph under it
  glosses it).
- The answer box at the top of a question page has a character budget that must fit a phone's first
  screen (:mod:`sitetools.rules.answer_box`), so it counts only where it glosses: a gloss in the box satisfies
  the rule, an unglossed mention there does not count, and then the first mention after the box carries the
  gloss.
- The gloss is given once: a later mention of a term whose parentheses hold its gloss again is a problem,
  except on the pages whose entries are each read on their own (:data:`ENTRY_PAGES`: the glossary, the
  facts page).
"""

from __future__ import annotations

import re
from pathlib import Path

from sitetools.rules.generated_prose import Piece, in_file, pieces
from sitetools.rules.terms import ROOT, TERMS
from sitetools.rules.wording import chinese_pages

#: ``(term, gloss, mention pattern)`` for each core term of :data:`sitetools.rules.terms.TERMS`.
FIRST_MENTIONS: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (term.zh, term.gloss, re.compile(term.mention or re.escape(term.zh))) for term in TERMS if term.gloss
)


#: Pages made of entries a reader reads one at a time, each glossing its own terms.
ENTRY_PAGES = frozenset({"glossary.md", "facts.md"})

#: The parentheses right after a mention (the mention's compound may run on for two characters).
_AFTER = re.compile(r"[\u4e00-\u9fff]{0,2}（([^）]*)）")


def _blank(text: str, pattern: re.Pattern[str], group: int = 0) -> str:
    """``text`` with each match of ``pattern`` (or of its ``group``) blanked, lines and offsets kept."""
    def blank(match: re.Match[str]) -> str:
        whole, start, end = match.group(), *match.span(group)
        start, end = start - match.start(), end - match.start()
        return whole[:start] + re.sub(r"[^\n]", " ", whole[start:end]) + whole[end:]

    return pattern.sub(blank, text)


#: A picture's ``:alt:`` option and the lines that continue it (indented further).
_ALT_TEXT = re.compile(r"^([ \t]*):alt:.*(?:\n\1[ \t]+\S.*)*", re.MULTILINE)
#: A reST code block (``.. code-block::`` and its indented lines) or a MyST fence that is not prose (a
#: fence opens with a name: ```` ```{doctest} ````; a bare ```` ``` ```` closes one).
_CODE = re.compile(r"^([ \t]*)\.\. (?:code-block|code|doctest|testcode)::.*(?:\n(?:\1[ \t]+.*|[ \t]*))*"
                   r"|^```(?!\{(?:admonition|note|tip|warning)\})\S.*\n(?:.*\n)*?```",
                   re.MULTILINE)
#: A section title: a reST title over its underline, or a MyST heading; a MyST comment line.
_TITLE = re.compile(r"^\S.*(?=\n[=\-~^\"'`#*+]{3,}[ \t]*$)|^#{1,6} .*|^%.*", re.MULTILINE)
#: A cross-reference's words (reST ``:ref:`…``` or MyST ``{ref}`…```).
_XREF = re.compile(r"(?::(?:ref|doc):|\{(?:ref|doc)\})`[^`]*`")
#: The answer box: the admonition titled 答案 and its indented lines.
_BOX = re.compile(r"^\.\. admonition:: 答案.*(?:\n(?:[ \t]+.*|[ \t]*))*", re.MULTILINE)


def prose(text: str) -> str:
    """``text`` with what is not prose blanked out (see the module docstring), offsets kept."""
    for pattern in (_ALT_TEXT, _CODE, _TITLE, _XREF):
        text = _blank(text, pattern)
    return text


def first_unglossed(text: str, gloss: str, mention: re.Pattern[str]) -> re.Match[str] | None:
    """The page's first mention of a term when it is not glossed (``None`` when the rule holds)."""
    text = prose(text)
    return _first_unglossed(text, [box.span() for box in _BOX.finditer(text)], gloss, mention)


def _first_unglossed(text: str, boxes: list[tuple[int, int]], gloss: str, mention: re.Pattern[str],
                     ) -> re.Match[str] | None:  # fmt: skip
    """:func:`first_unglossed` in ``text`` already made :func:`prose`, whose answer boxes span ``boxes``."""
    for found in mention.finditer(text):
        after = _AFTER.match(text, found.end())
        if after and gloss in after.group(1):
            return None
        if not any(start <= found.start() < end for start, end in boxes):
            return found
    return None


def _glossed(text: str, found: re.Match[str], gloss: str) -> bool:
    """Whether the parentheses after the mention ``found`` hold ``gloss`` as a word of their own
    (``视图（view）`` does, ``视图（`_is_view()` 为真）`` does not)."""
    after = _AFTER.match(text, found.end())
    return bool(after and re.search(rf"(?<![\w.]){re.escape(gloss)}(?![\w(])", after.group(1)))


def _unglossed(text: str, once: bool = True) -> list[tuple[int, str]]:
    """``(offset, message)`` for each term of :data:`FIRST_MENTIONS` whose first mention in ``text`` is
    not glossed and, with ``once``, for each later mention glossed again."""
    found = []
    shown = prose(text)  # once for every term
    boxes = [box.span() for box in _BOX.finditer(shown)]
    for zh, gloss, mention in FIRST_MENTIONS:
        first = _first_unglossed(shown, boxes, gloss, mention)
        if first:
            context = text[first.start() : first.start() + 12].split("\n")[0]
            found.append((first.start(), f"the first mention of {zh} on the page, {context!r}, is not glossed: "
                                         f"write {first.group()}（{gloss}）"))
        glossed = [mention for mention in mention.finditer(shown) if _glossed(shown, mention, gloss)]
        found += [(again.start(), f"a later mention of {zh} glosses it again: write {again.group()} alone")
                  for again in (glossed[1:] if once else [])]
    return found


def first_mention_problems(text: str) -> list[tuple[int, str]]:
    """``(line, message)`` for each term of :data:`FIRST_MENTIONS` whose first mention in ``text`` (a
    page's prose) is not glossed."""
    return [(text.count("\n", 0, offset) + 1, message) for offset, message in _unglossed(text)]


def _pieces(page: Path, root: Path, code: str) -> list[Piece]:
    """What a reader reads on a page, in order: a script's text cells (its code and comments inside code
    are left out), a header's whole text, a narrative page's text with the prose its directives write
    (:mod:`sitetools.rules.generated_prose`)."""
    where = page.relative_to(root).as_posix()
    if page.suffix == ".md":
        return pieces(page, root, code)
    if page.suffix == ".py":
        from sitetools.rules.typography import text_cells

        return [in_file(where, first, cell) for first, cell in text_cells(page)]
    return [in_file(where, 1, page.read_text(encoding="utf-8"))]


def _reader_pages(root: Path, code: str) -> list[list[Path]]:
    """The Chinese sources grouped by the page a reader sees: each script or narrative page alone, and the
    gallery's headers together, since they all show on one page, the examples index: the edition's own
    header first, then its parts' (in path order, which is the gallery's part order, ``GALLERY_PARTS`` in
    ``docs/_shared/conf.py``). The theme's words and stray scripts are left out."""
    pages = [page for page in chinese_pages(root, code)
             if page.suffix != ".po" and not (page.suffix == ".py" and not page.name.startswith("plot_"))]
    headers = [page for page in pages if page.name == "GALLERY_HEADER.rst"]
    return [[page] for page in pages if page.name != "GALLERY_HEADER.rst"] + ([headers] if headers else [])


def check_first_mentions(root: Path = ROOT, code: str = "zh_CN") -> list[str]:
    """The first mention rule over the Chinese edition's pages (gallery scripts, part headers, narrative
    pages with the prose their directives write), as "file:line: ..." problems: the file and line of the
    unglossed mention, in the page's source or in the module that holds the generated sentence."""
    problems = []
    for group in _reader_pages(root, code):
        parts = [piece for page in group for piece in _pieces(page, root, code)]
        text = "\n".join(part for part, _ in parts)
        starts = [sum(len(part) + 1 for part, _ in parts[:index]) for index in range(len(parts))]
        for offset, message in _unglossed(text, once=not any(page.name in ENTRY_PAGES for page in group)):
            index = max(i for i, start in enumerate(starts) if start <= offset)
            problems.append(f"{parts[index][1](offset - starts[index])}: {message} "
                            f"(see CONTRIBUTING.md, 'Typography'; the core terms carry a gloss in "
                            f"sitetools/rules/terms.py)")
    return problems
