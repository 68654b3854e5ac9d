"""Every rule a page source follows, in one call: what the build runs before it builds anything
(a preview too) and what the fast test tier runs on every source.

The rules live in the modules that know their subject (:mod:`sitetools.rules.sources` for layout, parity and
code, typography through :mod:`sitetools.rules.typography`, :mod:`sitetools.rules.wording` for the wording of the
Chinese pages, :mod:`sitetools.rules.checks_manifest` for the checks a page records); this module only gathers them,
so that none of those modules needs another's checker.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
from collections.abc import Collection, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from editions import CODES, edition
from sitetools.authoring import check_labels
from sitetools.building import doctests
from sitetools.guard import output_channels
from sitetools.rules import (
    answer_box,
    checks_manifest,
    edition_citations,
    errata_box,
    first_mentions,
    gpu_box,
    sources,
    wording,
)
from sitetools.rules import checks as check_rules
from sitetools.rules import output as output_rules
from sitetools.rules.sources import ROOT


def check_sources(langs: Iterable[str] = CODES, root: Path = ROOT, manifest: bool = True,
                  processes: int = 1, only: Collection[str] | None = None) -> list[str]:  # fmt: skip
    """Every page rule for the given editions: layout, parity, the code rules of every script (what it
    prints, what its checks can show, the form of a GPU box), the citations of twin paragraphs, no
    skipped doctest, typography, the answer box that opens every question page
    (:mod:`sitetools.rules.answer_box`), the title of a box that sets an article against torch
    (:mod:`sitetools.rules.errata_box`), and (in editions written in Chinese) the terminology of
    :mod:`sitetools.rules.wording`; then,
    unless ``manifest`` is false, what :func:`unrecorded` names.
    With ``only`` (page names, as a preview of some pages gives them), the rules that read one script at a
    time (its code, its parity with its twins, its checks in the manifest) read those scripts only; the rules
    over a whole edition (typography, answer boxes, terminology, citations) still read every page.
    With ``processes`` above 1 the editions' own rules run side by side, each in a process of its own
    (the build does this: the rules are about a sixth of a clean build)."""
    langs = list(langs)
    with contextlib.ExitStack() as stack:
        if processes > 1 and len(langs) > 1:
            context = multiprocessing.get_context("spawn")  # a fresh interpreter: no state of this one
            pool = stack.enter_context(ProcessPoolExecutor(min(processes, len(langs)), mp_context=context))
            per_edition = [pool.submit(_edition_rules_and_texts, lang, root, only) for lang in langs]
        else:
            per_edition = []
        problems = []
        if len(langs) > 1:
            problems += sources.check_parity(langs, root, only)
        if per_edition:  # each edition's process also reads its texts for the citations, which it parses anyway
            results = [future.result() for future in per_edition]
            read = {lang: texts for lang, (_, texts) in zip(langs, results, strict=True)}
            problems += edition_citations.compare(langs, read)
            problems += [problem for found, _ in results for problem in found]
        else:
            if len(langs) > 1:
                problems += edition_citations.check(langs, root)
            problems += [problem for lang in langs for problem in edition_rules(lang, root, only)]
    if manifest:
        problems += unrecorded(langs, root, only)
    return problems


def unrecorded(langs: Iterable[str] = CODES, root: Path = ROOT, only: Collection[str] | None = None) -> list[str]:
    """What a new or changed page still has to record: its checks in ``gallery/asserts.json`` and their messages
    in each edition's catalog (:mod:`sitetools.authoring.check_labels`). A preview runs such a page; the build
    refuses it. With ``only``, those pages only."""
    langs = list(langs)
    return checks_manifest.check_manifest(langs, root / "gallery", only) + [
        problem for lang in langs for problem in check_labels.check(lang, root, only)]


def _edition_rules_and_texts(lang: str, root: Path, only: Collection[str] | None) -> tuple[list[str], tuple]:
    """:func:`edition_rules`, and the edition's texts for :func:`sitetools.rules.edition_citations.compare`."""
    return edition_rules(lang, root, only), edition_citations.texts(lang, root)


def edition_rules(lang: str, root: Path = ROOT, only: Collection[str] | None = None) -> list[str]:
    """The rules one edition's sources follow on their own (everything but parity and citations); with
    ``only``, the rules of single scripts read those scripts only."""
    problems = sources.check_layout(lang, root)
    for script in sources.gallery_scripts(lang, root / "gallery", only):
        problems += sources.check_script(script, root)
        problems += gpu_box.check_gpu_boxes(script)
        problems += code_rules(script, root)
    for page in sources.narrative_pages(lang, root / "docs"):
        problems += doctests.skipped(page, page.relative_to(root).as_posix())
        problems += doctests.unseen(page, page.relative_to(root).as_posix())
    problems += sources.check_typography(lang, root)
    problems += answer_box.check_answers(lang, root)
    problems += errata_box.check_errata_boxes(lang, root)
    if edition(lang).cjk:
        problems += wording.check_variants(root, lang) + first_mentions.check_first_mentions(root, lang)
    return problems


def code_rules(script: Path, root: Path = ROOT) -> list[str]:
    """The rules on what a script's code prints (:mod:`sitetools.rules.output`), on the channels its
    output takes (:mod:`sitetools.guard.output_channels`) and on its checks (:mod:`sitetools.rules.checks`),
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
        return ()  # :func:`sitetools.rules.sources.check_script` reports it, with the file and line
