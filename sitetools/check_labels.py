"""The checks' messages in each edition's language, for the downloads' rerun report.

A check's message is code (``assert same, "copy, share"``), the same in every edition, and written in the
first edition's language. The rerun cell at the end of a download reports each claim by its message
(:mod:`sitetools.rerun_checks`); in another edition it reports the message's translation, read from
``docs/_locale/<language>/LC_MESSAGES/checks.po``: ``msgid`` is the message as the page writes it (an
f-string's template with its ``{fields}``), ``msgstr`` the translation, with the same fields.

:func:`check` is a page rule: every message of an edition written in another language has a translation
with the same fields, and the catalog holds no message that no page has. ``python -m sitetools.check_labels``
adds the messages a catalog lacks, with an empty translation to fill in.
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
from pathlib import Path

from babel.messages import pofile
from babel.messages.catalog import Catalog

from sitetools import pages
from sitetools.editions import CODES
from sitetools.pages import ROOT
from sitetools.rerun_checks import _text, is_must_raise, translatable

GUIDE = "(see CONTRIBUTING.md, 'Checks behind the prose')"
#: An f-string's replacement field, as :func:`ast.unparse` writes it (``{{`` is a literal brace).
FIELD = re.compile(r"(?<!\{)\{(?!\{)[^{}]*\}")


HEADER = ("# The checks' messages in this edition's language, for the downloads' rerun report.\n"
          "# Written by `python -m sitetools.check_labels`, which adds what pages added; fill in each msgstr.\n")


def catalog_path(lang: str, root: Path = ROOT) -> Path:
    return root / "docs" / "_locale" / lang / "LC_MESSAGES" / "checks.po"


def messages(source: str) -> list[tuple[int, str]]:
    """``(line, message)`` for every check of a page's code whose message is a string or an f-string, as the
    rerun report writes it (a message the code computes, such as ``str(error)``, is the case's own words)."""
    return list(_messages(source))


@functools.lru_cache(maxsize=4)  # a page's rerun cells (notebook and .py) ask for the same code in turn
def _messages(source: str) -> tuple[tuple[int, str], ...]:
    found = []
    for node in ast.walk(ast.parse(source)):
        message = node.msg if isinstance(node, ast.Assert) else (
            node.orelse[0].exc.args[0] if is_must_raise(node) and node.orelse[0].exc.args else None)  # fmt: skip
        if translatable(message):
            found.append((node.lineno, _text(message, "")))
    return tuple(sorted(found))


def read(lang: str, root: Path = ROOT) -> dict[str, str]:
    """The catalog of ``lang``: message -> translation (empty when not translated yet); {} without one."""
    path = catalog_path(lang, root)
    if not path.exists():
        return {}
    with path.open("rb") as file:
        return {entry.id: entry.string for entry in pofile.read_po(file) if entry.id}


def fields(text: str) -> list[str]:
    return sorted(FIELD.findall(text))


def check(lang: str, root: Path = ROOT) -> list[str]:
    """The page rule for one edition (none for the first edition, whose language the messages are in)."""
    if lang == CODES[0]:
        return []
    labels, seen, problems = read(lang, root), set(), []
    where_catalog = catalog_path(lang, root).relative_to(root).as_posix()
    for script in pages.gallery_scripts(lang, root / "gallery"):
        where = script.relative_to(root).as_posix()
        try:
            found = messages(script.read_text(encoding="utf-8"))
        except SyntaxError:
            continue  # :func:`sitetools.pages.check_script` reports it
        for line, message in found:
            seen.add(message)
            label = labels.get(message, "")
            if not label:
                problems.append(f"{where}:{line}: the check's message {message!r} has no translation in "
                                f"{where_catalog}; run `python -m sitetools.check_labels` and fill it in {GUIDE}")
            elif fields(label) != fields(message):
                problems.append(f"{where}:{line}: the translation of {message!r} in {where_catalog} must hold "
                                f"the same fields {fields(message)}, not {fields(label)} {GUIDE}")
    problems += [f"{where_catalog}: {message!r} is the message of no check; remove it {GUIDE}"
                 for message in sorted(set(labels) - seen)]  # fmt: skip
    return problems


def add_missing(lang: str, root: Path = ROOT) -> int:
    """Add every message ``lang``'s catalog lacks, untranslated, and drop those no page has; return how many
    were added."""
    labels, found = read(lang, root), {}
    for script in pages.gallery_scripts(lang, root / "gallery"):
        for line, message in messages(script.read_text(encoding="utf-8")):
            found.setdefault(message, (script.relative_to(root).as_posix(), line))
    catalog = Catalog(locale=lang, fuzzy=False)
    for message, location in sorted(found.items(), key=lambda item: item[1]):
        catalog.add(message, labels.get(message, ""), locations=[location])
    path = catalog_path(lang, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        file.write(HEADER.encode())
        pofile.write_po(file, catalog, width=0, omit_header=True, sort_output=False)
    return len(set(found) - set(labels))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Add the checks' messages a catalog lacks, to translate.")
    parser.parse_args()
    for code in CODES[1:]:
        print(f"{catalog_path(code).relative_to(ROOT)}: {add_missing(code)} message(s) to translate")
