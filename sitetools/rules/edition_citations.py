"""Twin paragraphs cite the same checks: a paragraph of one edition that contradicts its twin in the
other at least cannot cite what its twin cites.

The code of a gallery page is identical in every edition, so its text cells pair up by position; a
narrative page's sections pair up by position too (the pages have the same headings, translated).
Each text cell or section must cite the same named facts (``{fact}`id```, ``:fact:`id```) and the same
cross-references (``:ref:`target```, ``{ref}`target```), as many times, as its twin in the reference
edition. A translation that drops a citation, or cites another fact, is refused, naming both files and
lines.

What this cannot catch: a sentence that cites nothing. "c 与 a 不共享内存" in a cell that cites no fact
says the opposite of its English twin, and only a reader (or the output printed right below it) shows
it; see CONTRIBUTING.md, 'Pages in every edition'.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable
from pathlib import Path

from editions import CODES
from sitetools.rules.sources import ROOT, blocks, gallery_scripts, narrative_pages, relative_name

#: A citation: a role and its target (``<target>`` when the role gives a title first).
CITATION = re.compile(r"(?::(fact|ref):|\{(fact|ref)\})`([^`]*)`")
HEADING = re.compile(r"^#{1,6} ", re.M)
FENCE = re.compile(r"^(```|~~~)", re.M)
GUIDE = "(see CONTRIBUTING.md, 'Pages in every edition')"


def citations(text: str) -> collections.Counter:
    """What ``text`` cites: ``fact:id`` and ``ref:target``, with their counts."""
    found = collections.Counter()
    for role_a, role_b, body in CITATION.findall(text):
        target = re.search(r"<([^<>]+)>\s*$", body)
        found[f"{role_a or role_b}:{(target.group(1) if target else body).strip()}"] += 1
    return found


def _cells(script: Path) -> list[tuple[int, str]]:
    """(first line, text) of each text cell of a gallery script."""
    source = script.read_text(encoding="utf-8")
    found, start = [], 0
    for kind, content in blocks(script):
        if kind == "text":
            first = source.find(content.strip().splitlines()[0] if content.strip() else content, start)
            start = max(first, start)
            found.append((source.count("\n", 0, max(first, 0)) + 1, content))
    return found


def _sections(page: Path) -> list[tuple[int, str]]:
    """(first line, text) of each section of a MyST page: split at headings outside code fences."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, current, start, fenced = [], [], 1, False
    for number, line in enumerate(lines, start=1):
        if FENCE.match(line):
            fenced = not fenced
        if not fenced and HEADING.match(line) and current:
            found.append((start, "\n".join(current)))
            current, start = [], number
        current.append(line)
    found.append((start, "\n".join(current)))
    return found


def _compare(where: str, twin: str, mine: list[tuple[int, str]], theirs: list[tuple[int, str]], unit: str) -> list[str]:
    if len(mine) != len(theirs):
        return [f"{where} has {len(mine)} {unit}s and {twin} {len(theirs)}; twin {unit}s must pair up {GUIDE}"]
    problems = []
    for (line, text), (twin_line, twin_text) in zip(mine, theirs, strict=True):
        ours, their = citations(text), citations(twin_text)
        if ours != their:
            extra = ", ".join(sorted((ours - their).elements())) or "nothing more"
            missing = ", ".join(sorted((their - ours).elements())) or "nothing less"
            problems.append(f"{where}, line {line}: this {unit} cites {extra} beyond its twin ({twin}, line "
                            f"{twin_line}) and lacks {missing}; twin {unit}s cite the same facts and pages {GUIDE}")
    return problems


def texts(lang: str, root: Path = ROOT) -> tuple[dict[str, list[tuple[int, str]]], dict[str, list[tuple[int, str]]]]:
    """What :func:`compare` reads of one edition: the text cells of each gallery script, by page name, and the
    sections of each narrative page, by file name (the build reads them where it reads the edition's other rules)."""
    gallery = root / "gallery"
    return ({relative_name(script, gallery): _cells(script) for script in gallery_scripts(lang, gallery)},
            {page.name: _sections(page) for page in narrative_pages(lang, root / "docs")})  # fmt: skip


def compare(langs: list[str], read: dict[str, tuple[dict, dict]]) -> list[str]:
    """Every text cell and narrative section of each edition cites what its twin in the first cites, from the
    :func:`texts` of each edition."""
    reference, problems = langs[0], []
    for name, cells in read[reference][0].items():
        for lang in langs[1:]:
            if name in read[lang][0]:
                problems += _compare(f"gallery/{lang}/{name}.py", f"gallery/{reference}/{name}.py",
                                     read[lang][0][name], cells, "text cell")  # fmt: skip
    for page, sections in read[reference][1].items():
        for lang in langs[1:]:
            if page in read[lang][1]:
                problems += _compare(f"docs/{lang}/{page}", f"docs/{reference}/{page}",
                                     read[lang][1][page], sections, "section")  # fmt: skip
    return problems


def check(langs: Iterable[str] = CODES, root: Path = ROOT) -> list[str]:
    """Every text cell and narrative section of each edition cites what its twin in the first cites."""
    langs = list(langs)
    return compare(langs, {lang: texts(lang, root) for lang in langs})
