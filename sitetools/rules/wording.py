"""The wording rule: a variant the Chinese pages avoid (原位 for 原地操作, 拷贝 where the house word is 复制)
is refused on a Chinese page, and in the strings the Chinese pages render, outside quotation marks (a quoted
article keeps its own words). The words come from :data:`sitetools.rules.terms.TERMS` and
:data:`sitetools.rules.terms.WORDING`.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from sitetools.rules.terms import ROOT, TERMS, WORDING

#: Text between these marks is a quotation; a variant inside one is the quoted author's word.
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』")


def chinese_pages(root: Path = ROOT, code: str = "zh_CN") -> list[Path]:
    """The sources of the Chinese edition: example scripts, part headers, narrative pages and the
    translations of the theme's and sphinx-gallery's words (``docs/_locale``)."""
    gallery, locale = root / "gallery" / code, root / "docs" / "_locale" / code
    return sorted([*gallery.rglob("*.py"), *gallery.rglob("*.rst"), *(root / "docs" / code).glob("*.md"),
                   *locale.rglob("*.po")])


def string_sources(root: Path = ROOT) -> list[Path]:
    """The Python modules whose strings appear on the Chinese pages: the fact engine's texts (ledger,
    matrix guide, decisions, facts) and the Sphinx extensions' words."""
    return sorted([*(root / "tensorfacts").rglob("*.py"), *(root / "docs" / "_ext").rglob("*.py")])


def variants_in(text: str) -> list[tuple[int, str, str]]:
    """:func:`_variants_in`, as a list of its own."""
    return list(_variants_in(text))


@functools.lru_cache(maxsize=1024)
def _variants_in(text: str) -> tuple[tuple[int, str, str], ...]:
    """``(line, variant, term)`` for each variant to avoid outside quotation marks (a quotation may
    span lines); where variants overlap (原位操作, 原位) only the longest is reported, a variant
    inside the accepted word itself (代码单元 in 代码单元格) is not one, and a variant that holds the
    accepted word (来源张量 holds 源张量) is one."""
    bare = QUOTED.sub(lambda quote: "\n" * quote.group().count("\n"), text)
    # only the terms with a variant somewhere in the text can have one on a line (most texts hold none)
    plans = [plan for plan in _plans() if any(variant in bare for variant in (*plan[2], *plan[3]))]
    found = []
    for number, line in enumerate(bare.splitlines() if plans else (), start=1):
        for term, accepted, holding, others in plans:
            if not any(variant in line for variant in (*holding, *others)):
                continue  # the common case; blanking words out below can only remove variants
            rest = _take(line, holding, number, term, found)
            for word in accepted:
                rest = rest.replace(word, "\0")
            _take(rest, others, number, term, found)
    return tuple(found)


@functools.cache
def _plans() -> tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]:
    """For each term: the accepted words and the variants that hold one (longest first), and the other
    variants, longest first."""
    plans = []
    for term in (*TERMS, *WORDING):
        accepted = tuple(sorted((term.zh, *term.also), key=len, reverse=True))
        variants = sorted(term.avoid, key=len, reverse=True)
        holding = tuple(variant for variant in variants if any(word in variant for word in accepted))
        plans.append((term.zh, accepted, holding, tuple(v for v in variants if v not in holding)))
    return tuple(plans)


def _take(line: str, variants: list[str], number: int, term: str, found: list) -> str:
    """Add each of ``variants`` (longest first) that ``line`` holds to ``found``; return the line with
    them blanked out, so that a shorter variant inside a longer one is not reported again."""
    for variant in variants:
        if variant in line:
            found.append((number, variant, term))
            line = line.replace(variant, "\0")
    return line


def check_variants(root: Path = ROOT, code: str = "zh_CN") -> list[str]:
    """Every variant to avoid on a Chinese page or in the strings the Chinese pages render
    (:func:`string_sources`), outside quotations, as "file:line: ..." problems (run by the page rules,
    :mod:`sitetools.rules.all_rules`, before every build and preview)."""
    return [
        f"{page.relative_to(root).as_posix()}:{line}: {variant!r} outside a quotation; write {term!r} "
        f"(see CONTRIBUTING.md, 'Typography'; the list of terms is sitetools/rules/terms.py)"
        for page in [*chinese_pages(root, code), *string_sources(root)]
        for line, variant, term in variants_in(page.read_text(encoding="utf-8"))
    ]
