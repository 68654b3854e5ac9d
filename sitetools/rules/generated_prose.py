"""The prose a narrative page shows that its source does not hold, in the order its reader meets it.

Some directives write sentences of their own: the guides of the matrix and decision pages, the notes of
the views and saved-tensors pages, the facts page's entries, the ledger's claims, and the glossary's
definitions. Their text lives in ``tensorfacts/`` (and ``sitetools/rules/terms.py``), not in the ``.md`` file,
so :func:`pieces` cuts a page at each such directive and puts the text it writes in its place. Each piece
names the file and line of any of its characters, so that a rule reading the page (the first mention
rule, :mod:`sitetools.rules.first_mentions`) points at the sentence to edit.

What each directive writes, as prose (a table's cells are words, not prose, and are left out):

- ``behaviour-matrix`` with ``:guide:``: the entries of that guide (``tensorfacts.decisions.GUIDES``);
- ``view-table notes`` and ``saved-table notes``: the notes of ``tensorfacts.table_notes``;
- ``fact-index``: for each fact, in id order, what it runs and its scope;
- ``claims-ledger``: for each claim of the article, its text, note and verdict's qualifier, and the
  trace its check returns (the checks run here, as the build runs them: a fraction of a second);
- ``terms-table``: each term beside its English (the row glosses it), then its definition;
- ``core-terms``: the list of core terms, each glossed.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import tokenize
from collections.abc import Callable
from pathlib import Path

from sitetools.rules.terms import ROOT, TERMS
from sitetools.rules.wording import string_sources

#: The terminology list, whose definitions the glossary shows.
TERMS_FILE = ROOT / "sitetools" / "rules" / "terms.py"

#: A piece of a page: its text, and the "file:line" of the character at an offset of that text.
Piece = tuple[str, Callable[[int], str]]

#: A MyST directive fence: its name, argument, option lines and body.
_DIRECTIVE = re.compile(r"^```\{(?P<name>[\w-]+)\}[ \t]*(?P<argument>.*)\n(?P<options>(?:[ \t]*:.*\n)*)"
                        r"(?:.*\n)*?```[ \t]*$", re.MULTILINE)


def in_file(where: str, first: int, text: str) -> Piece:
    """A piece that is the text of a file from its line ``first`` on."""
    return text, lambda offset: f"{where}:{first + text.count(chr(10), 0, offset)}"


def pieces(page: Path, root: Path, code: str) -> list[Piece]:
    """A narrative page (MyST) as its reader reads it: its own text, with the prose each directive
    writes right after the directive's fence."""
    where, text = page.relative_to(root).as_posix(), page.read_text(encoding="utf-8")
    found, start = [], 0
    for fence in _DIRECTIVE.finditer(text):
        found.append(in_file(where, text.count("\n", 0, start) + 1, text[start:fence.end()]))
        options = dict(re.findall(r":([\w-]+):[ \t]*\"?([^\"\n]*?)\"?[ \t]*$", fence["options"], re.MULTILINE))
        found += [generated(said, files) for said, files in written(fence["name"], fence["argument"].strip(),
                                                                   options, code) if said]
        start = fence.end()
    return [*found, in_file(where, text.count("\n", 0, start) + 1, text[start:])]


def written(name: str, argument: str, options: dict[str, str], code: str) -> list[tuple[str, list[Path]]]:
    """``(text, the files it may come from, likeliest first)`` for each piece of prose the directive
    ``name`` writes in the edition ``code``, in page order."""
    from tensorfacts import articles, facts, table_notes, verdicts
    from tensorfacts.decisions import GUIDES

    def source(function: Callable) -> Path:
        return Path(inspect.getsourcefile(inspect.unwrap(function)))

    notes = {"view-table": table_notes.VIEW_NOTES, "saved-table": table_notes.SAVED_NOTES}
    if name == "behaviour-matrix" and "guide" in options or name in notes and argument == "notes":
        guide = GUIDES[options["guide"]] if name == "behaviour-matrix" else notes[name]
        return [(advice.text(code), [source(advice.premise)]) for advice in guide]
    if name == "fact-index":
        return [(text, [source(facts.SCOPES[fact_id].check if fact_id in facts.SCOPES else facts.FACTS[fact_id])])
                for fact_id in sorted(facts.FACTS)
                for text in (facts.ABOUT[fact_id].runs_in(code), facts.ABOUT[fact_id].scope_in(code))]
    if name == "claims-ledger":
        chosen = [c for c in articles.CLAIMS if options.get("article") in (None, c.article)]
        return [(text, [source(articles.CHECKS[outcome.claim.id]), *(Path(m.__file__) for m in articles.MODULES)])
                for outcome in verdicts.run_all(chosen)
                for text in (outcome.claim.text(code), outcome.claim.note(code), outcome.claim.qualifier(code),
                             outcome.result.trace(code) if outcome.result and outcome.result.worded else "")]
    if name == "terms-table":
        return [(text, [TERMS_FILE]) for term in TERMS
                for text in (f"{term.zh}（{term.en}）", getattr(term, "define_en" if code == "en" else "define_zh"))]
    if name == "core-terms":
        return [(core_terms(code), [TERMS_FILE])]
    return []


def core_terms(code: str) -> str:
    """The core terms (the entries with a ``gloss``), in list order, as the glossary lists them in the edition
    ``code``: in English by their English name, in Chinese each glossed as its first mention would be."""
    names = [(term.zh, term.en.split(", ")[0]) for term in TERMS if term.gloss]
    if code == "en":
        return ", ".join(en for _, en in names) + "."
    return "、".join(f"{zh}（{en}）" for zh, en in names) + "。"



def generated(text: str, files: list[Path]) -> Piece:
    """A piece written by a directive: the line of a character is the line of the string literal that
    holds it with the words before it, in ``files`` or else in any module whose strings the pages show."""
    def where(offset: int) -> str:
        line_start = text.rfind("\n", 0, offset) + 1
        for context in (12, 4, 0):  # the words before the character, and its own two (a mention's first)
            needle = text[max(line_start, offset - context):offset + 2]
            for path in [*files, *_everywhere()]:
                flat, spans = _literals(path)
                found = flat.find(needle)
                if found >= 0:
                    return f"{_shown(path)}:{_line(flat, spans, found + len(needle) - len(text[offset:offset + 2]))}"
        return f"{_shown(files[0])}:1"

    return text, where


def _shown(path: Path) -> str:
    return path.resolve().relative_to(ROOT).as_posix()


@functools.cache
def _everywhere() -> tuple[Path, ...]:
    return (*string_sources(ROOT), TERMS_FILE)


@functools.cache
def _literals(path: Path) -> tuple[str, tuple[tuple[int, int, bool], ...]]:
    """The string literals of a module run together as Python joins them (with a NUL between two that
    are not adjacent), and ``(offset, line, spans lines)`` for each."""
    flat, spans, adjacent = [], [], False
    size = 0
    with path.open(encoding="utf-8") as stream:
        for token in tokenize.generate_tokens(stream.readline):
            if token.type in (tokenize.NL, tokenize.COMMENT):
                continue
            if token.type != tokenize.STRING:
                adjacent = False
                continue
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):  # an f-string: its text as written
                value = re.sub(r"^[A-Za-z]*('''|\"\"\"|'|\")|('''|\"\"\"|'|\")$", "", token.string)
            value = value if isinstance(value, str) else ""
            if not adjacent:
                flat.append("\0")
                size += 1
            spans.append((size, token.start[0], token.start[0] != token.end[0]))
            flat.append(value)
            size += len(value)
            adjacent = True
    return "".join(flat), tuple(spans)


def _line(flat: str, spans: tuple[tuple[int, int, bool], ...], offset: int) -> int:
    """The file line of the character at ``offset`` of :func:`_literals`' text."""
    start, line, multiline = next(span for span in reversed(spans) if span[0] <= offset)
    return line + (flat.count("\n", start, offset) if multiline else 0)
