"""Typography of the gallery's text cells: what docutils would silently misread, and Chinese spacing.

Three rules, all run by the page rules (:func:`sitetools.rules.all_rules.check_sources`) before any build:

- **Inline markup is delimited where docutils recognises it** (every edition). Docutils ends an
  inline literal, a role or a link only where its end-string is followed by whitespace or by
  punctuation of certain kinds, and starts one only after whitespace or such punctuation. A full-width
  "（" right after ````x```` (an opening bracket, not in that set) or a Chinese character right before
  it makes docutils leave the backquotes as text, or pair them with a later end-string, without a
  warning. The check asks docutils' own recognition expressions about every piece of markup.
- **Titles are underlined to their display width** (every edition): as docutils measures a title,
  characters of East Asian width W or F count two columns (:func:`underline_problems`).
- **Chinese spacing** (editions marked ``cjk``): one space between Chinese and Latin letters, digits
  or inline markup; no space between two Chinese characters (a line break inside a paragraph renders
  as one); no space next to full-width punctuation; full-width rather than ASCII punctuation next to
  Chinese; no emphasis (italics) on Chinese text; no English full stop before Chinese punctuation
  (``operation.``；``); no enumeration comma right before a conjunction (``、或``, ``、且``, ``、并``, ``、而``:
  ``……上，或……`` or ``……上或……``), which the narrative pages are held to as well.
- **A named fact's citation is not the only thing in brackets** (every edition): it renders nothing on the
  example pages, so ``(:fact:`x`)`` shows "()" and ``(:fact:`x`; more)`` shows "(; more)"; cite the fact
  after the sentence instead (:func:`bracket_problems`).
- **No line break inside a Chinese sentence** (editions marked ``cjk``, gallery text cells and narrative
  Markdown pages): a source line may not end in a Chinese character or Chinese punctuation when the
  paragraph's next line starts with one (:func:`linebreak_problems`). The site's pages drop such a break
  (``tensorcopy_sphinx.cjk_linebreaks``), but Jupyter, the Markdown of a notebook and any other reader
  of the sources show it as a space; a break next to Latin text or code stays, as a space is wanted there.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from sitetools.rules import syntax

#: One piece of inline markup as a writer means it: ``literal``, :role:`text`, `link`__, |substitution|.
MARKUP = re.compile(r"``\S(?:[^`]|`(?!`))*?``|(?::[\w.:+-]+:)?`[^`\s](?:[^`])*?`(?:__?)?|\|\w+\|")
#: Emphasis or strong emphasis as a writer means it (not a ``*`` inside code or a bullet).
EMPHASIS = re.compile(r"(?<![*\w])\*{1,2}[^*\s](?:[^*]*?[^*\s])?\*{1,2}(?![*\w])")

HAN = r"\u3400-\u4dbf\u4e00-\u9fff"
FULL_WIDTH = "，。：；！？、（）“”‘’《》"
#: Stands in for a piece of inline markup, which reads as a Latin word next to Chinese.
TOKEN = "\ue000"
#: Marks the lines a piece of markup spanned, which belong to the line where it started.
GLUE = "\ue001"
#: Full-width punctuation, next to which the build drops a line break (“ and ” are not among them).
JOINED = "\u3000-\u303f\uff00-\uffef"
#: An enumeration comma right before a conjunction (、或, 、且, 、并, 、而): a clause that 或 joins takes a
#: full comma or none.
CONJUNCTION = (re.compile("、(?=[或且并而])"),
               "an enumeration comma (、) right before 或, 且, 并 or 而; write ，或 or just 或")
CJK_RULES = (
    (re.compile(rf"[{HAN}](?=[A-Za-z0-9{TOKEN}])|[A-Za-z0-9{TOKEN}](?=[{HAN}])"),  # each side of a word once
     "no space between Chinese and Latin text or inline markup; put one space between them"),
    (re.compile(rf"[{HAN}] +[{HAN}]"),
     "a space between two Chinese characters (a line break inside a paragraph shows as one); join them"),
    (re.compile(rf" [{FULL_WIDTH}]|[{FULL_WIDTH}] "),
     "a space next to full-width punctuation; remove it"),
    (re.compile(rf"[{HAN}][,;:!?()]|[,;:!?()][{HAN}]"),
     "ASCII punctuation next to Chinese; use the full-width mark (，；：！？（）)"),
    CONJUNCTION,
)  # fmt: skip
#: An English sentence's full stop (inside a quoted message's markup or not) right before Chinese
#: punctuation: ``operation.``；`` reads as two stops; the quotation ends without its own.
LATIN_STOP = (re.compile(r"[A-Za-z0-9)\]][.!?](?:``|`_{0,2})?(?=[，。；：、！？）])"),
              "an English full stop followed by Chinese punctuation; leave the stop out of the quotation, "
              "or rephrase (see CONTRIBUTING.md, 'Typography')")
#: A Chinese character, Chinese punctuation or a Chinese quotation mark: no line break between two of them.
CJK = rf"{HAN}{JOINED}“”‘’"
#: How a Markdown line that is a block of its own starts (heading, comment, table row, fence).
BLOCK_STARTS = ("#", "%", "|", "```", "~~~")
#: A named fact's citation at the end of a line: it renders nothing, so the line ends before it.
TRAILING_FACT = re.compile(r"\s*(?::fact:|\{fact\})`[^`]*`\s*$")
#: A named fact's citation anywhere: it renders nothing, so the text on its two sides meets, and a space
#: after it in the middle of a line stays (``。:fact:`x` 原文`` reads "。 原文"); end its line there instead.
FACT = re.compile(r"(?::fact:|\{fact\})`[^`]*`")
#: A fence of code in a Markdown page (a language, a doctest, a toctree), whose lines are not prose.
#: The opening line of a MyST directive that is not a code fence (``{behaviour-matrix}``, ``{admonition}``):
#: its prose is checked, and the bare fence that ends it opens no code block.
DIRECTIVE_FENCE = re.compile(r"\s*(```+|~~~+)\s*\{[^}]*\}")
CODE_FENCE = re.compile(r"\s*(```+|~~~+)\s*(?:[\w+-]+|\{(?:doctest|code-block|code|toctree|eval-rst)\}.*)?\s*$")
#: A line that starts a new block of its own rather than continuing the paragraph above it.
NEW_BLOCK = re.compile(r"[-*] |:\w[\w-]*:|\.\. ")
#: A section title's underline.
UNDERLINE = re.compile(r"([=\-~^\"'`#*+])\1{2,}")


@functools.cache
def _recognition() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Docutils' own expressions for what may precede a start-string and follow an end-string."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.parsers.rst.states import Inliner

    inliner = Inliner()
    inliner.init_customizations(get_default_settings(Parser))
    return re.compile(inliner.start_string_prefix), re.compile(inliner.end_string_suffix)


def markup_problems(text: str) -> list[tuple[int, str]]:
    """``(line, message)`` for each piece of inline markup that docutils would not recognise where it
    stands, because of the character just before or just after it (lines count from 1)."""
    before, after = _recognition()
    problems = []
    for match in MARKUP.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        shown = match.group().replace("\n", " ")
        if not before.match(text, match.start()):
            problems.append((line, f"{text[match.start() - 1]!r} right before {shown}: docutils does not start "
                                   "inline markup there; put a space between them"))  # fmt: skip
        if not after.match(text, match.end()):
            problems.append((line, f"{text[match.end()]!r} right after {shown}: docutils does not end inline "
                                   "markup there; put a space between them, or rephrase"))  # fmt: skip
    return problems


def _join(left: str, right: str) -> str:
    """Two lines of one paragraph as the Chinese edition shows them: the build drops a line break
    between two Chinese characters or next to full-width punctuation, and shows any other as a space
    (``docs/_ext/tensorcopy_sphinx/cjk_linebreaks.py``)."""
    drop = re.match(f"[{HAN}]", left[-1]) and re.match(f"[{HAN}]", right[0])
    return left + right if drop or re.search(f"[{JOINED}]", left[-1] + right[0]) else f"{left} {right}"


def _rendered_lines(text: str) -> list[tuple[int, str]]:
    """The text as a reader sees its words, as ``(first line, text)`` pieces: named facts' citations
    left out (they render nothing), quoted titles (《…》) emptied, each piece of markup one token, and each
    paragraph's lines joined as the build joins them."""
    plain = re.sub(r"《[^》]*》", lambda m: "《》" + "\n" * m.group().count("\n"), FACT.sub("", text))
    plain = MARKUP.sub(lambda m: TOKEN + f"\n{GLUE}" * m.group().count("\n"), plain)
    pieces: list[tuple[int, str]] = []
    for number, raw in enumerate(plain.splitlines(), start=1):
        line = raw.strip()
        if line.startswith(GLUE):  # the rest of a piece of markup that spanned lines
            pieces[-1] = (pieces[-1][0], pieces[-1][1] + line.lstrip(GLUE))
        elif not line or UNDERLINE.fullmatch(line):
            pieces.append((number, ""))  # a paragraph ends here
        elif pieces and pieces[-1][1] and not NEW_BLOCK.match(line):
            pieces[-1] = (pieces[-1][0], _join(pieces[-1][1], line))
        else:
            pieces.append((number, line))
    return [(number, line) for number, line in pieces if line]


def cjk_problems(text: str) -> list[tuple[int, str]]:
    """``(line, message)`` for each break of the Chinese spacing and punctuation rules."""
    problems = []
    for match in EMPHASIS.finditer(MARKUP.sub(TOKEN, text)):
        if re.search(f"[{HAN}]", match.group()):
            line = text.count("\n", 0, match.start()) + 1
            problems.append((line, f"emphasis on Chinese text {match.group()!r}: Chinese has no italics; rephrase"))
    for match in LATIN_STOP[0].finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        problems.append((line, f"{LATIN_STOP[1]}: …{text[max(match.start() - 16, 0) : match.end() + 2]}…"))
    for number, line in _rendered_lines(text):
        for pattern, message in CJK_RULES:
            for match in pattern.finditer(line):
                context = line[max(match.start() - 8, 0) : match.end() + 8].replace(TOKEN, "‹markup›")
                problems.append((number, f"{message}: …{context}…"))
    return problems


def conjunction_problems(text: str) -> list[tuple[int, str]]:
    """``(line, message)`` for each enumeration comma right before a conjunction (、或, 、且, 、并, 、而) in
    ``text``: the rule of :data:`CJK_RULES` for a narrative page, which is read line by line."""
    pattern, message = CONJUNCTION
    return [(number, f"{message}: …{line[max(match.start() - 8, 0) : match.end() + 8]}…")
            for number, line in enumerate(text.splitlines(), start=1) for match in pattern.finditer(line)]


def linebreak_problems(text: str, markdown: bool = False) -> list[tuple[int, str]]:
    """``(line, message)`` for each line break between two Chinese characters or punctuation marks in
    ``text`` (a gallery text cell in reST, or with ``markdown`` a MyST page, whose code fences and
    headings are left out), at the line before the break."""
    problems, fence, directives = [], None, []
    lines = text.splitlines()
    for number, (line, following) in enumerate(zip(lines, lines[1:] + [""], strict=True), start=1):
        if markdown:
            opened = CODE_FENCE.match(line) if fence is None else None
            if fence is not None:  # inside a code fence: it ends at a line of the same marks
                fence = None if line.strip() == fence else fence
                continue
            if directives and line.strip() == directives[-1]:  # the end of a directive, not a code fence
                directives.pop()
                continue
            if not opened and (directive := DIRECTIVE_FENCE.match(line)):
                directives.append(directive.group(1))
                continue
            if opened:
                fence = opened.group(1)
                continue
            if line.lstrip().startswith(BLOCK_STARTS) or following.lstrip().startswith(("```", "~~~")):
                continue  # a heading, a comment, a table row or a directive's fence is a block of its own
        end, start = TRAILING_FACT.sub("", line).rstrip(), following.lstrip()
        if end and start and re.match(f"[{CJK}]", end[-1]) and re.match(f"[{CJK}]", start[0]):
            problems.append((number, f"a line break between {end[-1]!r} and {start[0]!r} inside a Chinese "
                                     f"sentence (a notebook or a Markdown reader shows it as a space); join the "
                                     f"lines: "
                                     f"…{end[-12:]}⏎{start[:12]}…"))  # fmt: skip
    return problems


#: Named facts' citations alone in brackets, or between a separator and a closing bracket: "()" or "(; ...)"
#: once they render nothing.
_CITED = rf"(?:\s*{FACT.pattern})+\s*"
_EMPTIED = re.compile(rf"[(（]{_CITED}[)）;；,，]|[;；,，]{_CITED}[)）]")


def bracket_problems(text: str) -> list[tuple[int, str]]:
    """``(line, message)`` for each pair of brackets that named facts' citations leave empty, or a separator
    they leave dangling, in the text as a page shows it (a citation renders nothing there)."""
    return [(text.count("\n", 0, match.start()) + 1,
             f"{' '.join(match.group().split())} shows as {FACT.sub('', match.group()).replace(' ', '')!r}: a fact's "
             "citation renders nothing; cite the fact after the sentence instead (see CONTRIBUTING.md, 'Typography')")
            for match in _EMPTIED.finditer(text)]  # fmt: skip

def underline_problems(text: str) -> list[tuple[int, str]]:
    """``(line, message)`` for each section title whose underline (or overline) is not exactly as long
    as the title is wide. Width is docutils' own measure (``docutils.utils.column_width``): characters
    of East Asian width W or F (Chinese characters, full-width punctuation) count two columns, the rest
    one. Docutils warns only when an underline is shorter; the rule asks for the exact width."""
    from docutils.utils import column_width

    lines, problems = text.splitlines(), []
    for number, line in enumerate(lines[1:], start=2):
        title = lines[number - 2]
        if not UNDERLINE.fullmatch(line) or not title.strip() or title[0].isspace() or UNDERLINE.fullmatch(title):
            continue
        width = column_width(title.rstrip())
        overline = lines[number - 3] if number >= 3 and UNDERLINE.fullmatch(lines[number - 3]) else None
        for where, rule in ((number, line), (number - 2, overline)):
            if rule is not None and len(rule) != width:
                problems.append((where, f"the title {title.strip()!r} is {width} columns wide (Chinese characters "
                                        f"and full-width punctuation count two), but its line of {rule[0]!r} has "
                                        f"{len(rule)}; make it {width}"))  # fmt: skip
    return problems


def text_cells(path: Path) -> list[tuple[int, str]]:
    """``(first line in the file, reST text)`` of each text cell of a gallery script or header."""
    source = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return [(1, source)]
    script_blocks = syntax.gallery_blocks(source, str(path))
    lines, cells = source.splitlines(), []
    for block in script_blocks:
        if block.type != "text":
            continue
        first = next(line for line in block.content.splitlines() if line.strip())
        start = block.lineno - 1
        while first.strip() not in lines[start]:  # the block's line is its marker; find its first words
            start += 1
        offset = next(i for i, line in enumerate(block.content.splitlines()) if line.strip())
        cells.append((start + 1 - offset, block.content))
    return cells


#: check_page's answers by (file content, suffix, cjk, shown name): the checks read nothing else, so a
#: copy of an unchanged file (a test's broken copy of the gallery, say) is not parsed again.
_CHECKED: dict[tuple[str, str, bool, str], tuple[str, ...]] = {}


def check_page(path: Path, cjk: bool, shown: str) -> list[str]:
    """Every typography problem of one gallery script or header, as "file:line: ..." messages."""
    key = (path.read_text(encoding="utf-8"), path.suffix, cjk, shown)
    if key not in _CHECKED:
        problems = []
        for first, text in text_cells(path):
            found = markup_problems(text) + underline_problems(text) + bracket_problems(text) + (
                cjk_problems(text) + linebreak_problems(text) if cjk else [])
            problems += [f"{shown}:{first + line - 1}: {message}" for line, message in found]
        _CHECKED[key] = tuple(problems)
    return list(_CHECKED[key])
