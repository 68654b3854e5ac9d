"""Every rule a page source follows, in one call: what the build runs before it builds anything
(a preview too) and what the fast test tier runs on every source.

The rules live in the modules that know their subject (:mod:`sitetools.pages` for layout, parity and
code, typography through :mod:`sitetools.typography`, :mod:`sitetools.wording` for the wording of the
Chinese pages, :mod:`sitetools.pages_asserts` for the checks a page records); this module only gathers them,
so that none of those modules needs another's checker.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sitetools import (
    answer_box,
    check_labels,
    check_rules,
    doctests,
    edition_citations,
    errata_box,
    first_mentions,
    gpu_rule,
    output_channels,
    output_rules,
    pages,
    pages_asserts,
    wording,
)
from sitetools.editions import CODES, edition
from sitetools.pages import ROOT


def check_sources(langs: Iterable[str] = CODES, root: Path = ROOT, manifest: bool = True,
                  processes: int = 1) -> list[str]:  # fmt: skip
    """Every page rule for the given editions: layout, parity, the code rules of every script (what it
    prints, what its checks can show, the form of a GPU box), the citations of twin paragraphs, no
    skipped doctest, typography, the answer box that opens every question page
    (:mod:`sitetools.answer_box`), the title of a box that sets an article against torch
    (:mod:`sitetools.errata_box`), and (in editions written in Chinese) the terminology of
    :mod:`sitetools.wording`; then,
    unless ``manifest`` is false, what :func:`unrecorded` names.
    With ``processes`` above 1 the editions' own rules run side by side, each in a process of its own
    (the build does this: the rules are about a sixth of a clean build)."""
    langs = list(langs)
    with contextlib.ExitStack() as stack:
        if processes > 1 and len(langs) > 1:
            context = multiprocessing.get_context("spawn")  # a fresh interpreter: no state of this one
            pool = stack.enter_context(ProcessPoolExecutor(min(processes, len(langs)), mp_context=context))
            per_edition = [pool.submit(edition_rules, lang, root) for lang in langs]
        else:
            per_edition = []
        problems = []
        if len(langs) > 1:
            problems += pages.check_parity(langs, root)
            problems += edition_citations.check(langs, root)
        if per_edition:
            problems += [problem for future in per_edition for problem in future.result()]
        else:
            problems += [problem for lang in langs for problem in edition_rules(lang, root)]
    if manifest:
        problems += unrecorded(langs, root)
    return problems


def unrecorded(langs: Iterable[str] = CODES, root: Path = ROOT) -> list[str]:
    """What a new or changed page still has to record: its checks in ``gallery/asserts.json`` and their messages
    in each edition's catalog (:mod:`sitetools.check_labels`). A preview runs such a page; the build refuses it."""
    langs = list(langs)
    return pages_asserts.check_manifest(langs, root / "gallery") + [
        problem for lang in langs for problem in check_labels.check(lang, root)]


def edition_rules(lang: str, root: Path = ROOT) -> list[str]:
    """The rules one edition's sources follow on their own (everything but parity and citations)."""
    problems = pages.check_layout(lang, root)
    for script in pages.gallery_scripts(lang, root / "gallery"):
        problems += pages.check_script(script, root)
        problems += gpu_rule.check_gpu_boxes(script)
        problems += code_rules(script, root)
    for page in pages.narrative_pages(lang, root / "docs"):
        problems += doctests.skipped(page, page.relative_to(root).as_posix())
        problems += doctests.unseen(page, page.relative_to(root).as_posix())
    problems += pages.check_typography(lang, root)
    problems += answer_box.check_answers(lang, root)
    problems += errata_box.check_errata_boxes(lang, root)
    if edition(lang).cjk:
        problems += wording.check_variants(root, lang) + first_mentions.check_first_mentions(root, lang)
    return problems


def code_rules(script: Path, root: Path = ROOT) -> list[str]:
    """The rules on what a script's code prints (:mod:`sitetools.output_rules`), on the channels its
    output takes (:mod:`sitetools.output_channels`) and on its checks (:mod:`sitetools.check_rules`),
    each problem naming the file and line."""
    return list(_code_rules(script.relative_to(root).as_posix(), script.read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=1024)
def _code_rules(where: str, source: str) -> tuple[str, ...]:
    """:func:`code_rules` of one text, kept: the rules read nothing but ``where`` and ``source``, and a
    process that checks many copies of the sources (the tests) checks most texts again unchanged."""
    try:
        return tuple(output_rules.check_source(where, source) + output_channels.check_source(where, source)
                     + check_rules.check_source(where, source))
    except SyntaxError:
        return ()  # :func:`sitetools.pages.check_script` reports it, with the file and line
