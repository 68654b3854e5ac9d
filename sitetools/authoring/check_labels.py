"""The checks' messages in each edition's language, for the downloads' rerun report.

A check's message is code (``assert same, "copy, share"``), the same in every edition, and written in the
first edition's language. The rerun cell at the end of a download reports each claim by its message
(:mod:`sitetools.releases.rerun_cell`); in another edition it reports the message's translation, read from
``docs/_locale/<language>/LC_MESSAGES/checks.po``: ``msgid`` is the message as the page writes it (an
f-string's template with its ``{fields}``), ``msgstr`` the translation, with the same fields.

A field's value is the page's too, and may be words (``for kind in ("leaf", "view")``, ``f"copy.copy of a
{kind}"``): the same catalog translates each value a reader reads as words (:func:`shown_as_words`), under
``msgctxt "value"`` (``leaf`` -> ``叶子张量``, ``True`` -> ``是``; a name that stays, ``Parameter``, is its
own translation). The values are the ones the loops around a check give its message's fields, read from
the page without running it where a loop goes over literals, or over a name bound to literals once at the
top of the page (:func:`values`).

:func:`check` is a page rule: every message of an edition written in another language has a translation
with the same fields, every such value has one, and the catalog holds no message and no value that no page
has. ``python -m sitetools.authoring.check_labels`` adds the messages and values a catalog lacks, with an empty
translation to fill in.
"""

from __future__ import annotations

import argparse
import ast
import collections
import functools
import re
from collections.abc import Collection
from pathlib import Path

from babel.messages import pofile
from babel.messages.catalog import Catalog

from editions import CODES
from sitetools.releases.rerun_cell import _text, is_must_raise, translatable
from sitetools.rules import sources, syntax
from sitetools.rules.sources import ROOT

GUIDE = "(see CONTRIBUTING.md, 'Checks behind the prose')"
#: An f-string's replacement field, as :func:`ast.unparse` writes it (``{{`` is a literal brace).
FIELD = re.compile(r"(?<!\{)\{(?!\{)[^{}]*\}")


HEADER = ("# The checks' messages in this edition's language, for the downloads' rerun report.\n"
          "# Written by `python -m sitetools.authoring.check_labels`, which adds what pages added; "
          "fill in each msgstr.\n")


def catalog_path(lang: str, root: Path = ROOT) -> Path:
    return root / "docs" / "_locale" / lang / "LC_MESSAGES" / "checks.po"


def messages(source: str) -> list[tuple[int, str]]:
    """``(line, message)`` for every check of a page's code whose message is a string or an f-string, as the
    rerun report writes it (a message the code computes, such as ``str(error)``, is the case's own words)."""
    return list(_messages(source))


@functools.lru_cache(maxsize=256)  # the rules, the rerun cells and the tests ask for the same code in turn
def _messages(source: str) -> tuple[tuple[int, str], ...]:
    found = []
    for node in syntax.walk(syntax.parse(source)):
        message = _message(node)
        if translatable(message):
            found.append((node.lineno, _text(message, "")))
    return tuple(sorted(found))


#: The context of a field value's entry in a catalog (a message's entry has none).
VALUE = "value"
#: A word, or words joined by hyphens (``leaf``, ``non-leaf``, ``Parameter``); a name with an underscore or a
#: digit (``no_grad``, ``float8``) is code.
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


def shown_as_words(value: object) -> bool:
    """Whether a reader reads a field's value as words an edition translates: a bool, a word, or words that
    Python cannot read (``a permuted 4-D tensor``); not code (``x[1:]``, ``torch.stack``, ``del loss``)."""
    if isinstance(value, bool):
        return True
    if not isinstance(value, str):
        return False
    if _WORD.fullmatch(value):
        return True
    try:
        syntax.parse(value)
    except SyntaxError:
        return " " in value  # ``.data`` is code
    return False


def values(source: str) -> list[tuple[int, str]]:
    """``(line, value)`` for every value shown as words (:func:`shown_as_words`, written as ``str`` writes it)
    that a loop around a check gives a field of its message (a string or an f-string, see :func:`messages`):
    the loop goes over literals (``for kind in ("leaf", "view")``, ``for kind, t in {"leaf": leaf}.items()``,
    unpacking tuples of literals too), or over a name the page binds to such literals once, at its top."""
    return list(_values(source))


@functools.lru_cache(maxsize=256)
def _values(source: str) -> tuple[tuple[int, str], ...]:
    tree = syntax.parse(source)
    assigned = collections.Counter(target.id for node in tree.body if isinstance(node, ast.Assign)
                                   for target in node.targets if isinstance(target, ast.Name))  # fmt: skip
    bound = {node.targets[0].id: node.value for node in tree.body if isinstance(node, ast.Assign)
             and isinstance(node.targets[0], ast.Name) and assigned[node.targets[0].id] == 1}  # fmt: skip
    found = set()
    for loop in (node for node in syntax.walk(tree) if isinstance(node, ast.For)):
        given: dict[str, list] = {}
        for row in _rows(loop.iter, bound):
            _bind(loop.target, row, given)
        for node in syntax.walk(loop):
            message = _message(node)
            if not isinstance(message, ast.JoinedStr):
                continue
            for part in message.values:
                if isinstance(part, ast.FormattedValue) and part.conversion == -1 and isinstance(part.value, ast.Name):
                    found.update((node.lineno, str(value)) for value in given.get(part.value.id, ())
                                 if shown_as_words(value))  # fmt: skip
    return tuple(sorted(found))


def _rows(node: ast.AST, bound: dict[str, ast.AST]) -> list[ast.AST]:
    """What a loop over ``node`` goes over, where the page says it with literals: the items of a tuple, list
    or set, the keys of a dict (its items with ``.items()``); a name bound to one of those stands for it."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
        if node.func.attr not in ("items", "keys"):
            return []
        mapping = bound.get(node.func.value.id) if isinstance(node.func.value, ast.Name) else node.func.value
        if not isinstance(mapping, ast.Dict) or None in mapping.keys:
            return []
        return list(mapping.keys) if node.func.attr == "keys" else [
            ast.Tuple([key, value]) for key, value in zip(mapping.keys, mapping.values, strict=True)]
    node = bound.get(node.id, node) if isinstance(node, ast.Name) else node
    if isinstance(node, ast.Dict) and None not in node.keys:
        return list(node.keys)
    return list(node.elts) if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else []


def _bind(target: ast.AST, row: ast.AST, given: dict[str, list]) -> None:
    """The literal values ``target`` (a name, or names to unpack) takes from ``row``."""
    if isinstance(target, ast.Name) and isinstance(row, ast.Constant):
        given.setdefault(target.id, []).append(row.value)
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(row, (ast.Tuple, ast.List)) and (
            len(target.elts) == len(row.elts)):  # fmt: skip
        for name, value in zip(target.elts, row.elts, strict=True):
            _bind(name, value, given)


def _message(node: ast.AST) -> ast.AST | None:
    """The message of a check: an ``assert``'s, or a must-raise block's ``AssertionError``'s."""
    if isinstance(node, ast.Assert):
        return node.msg
    return node.orelse[0].exc.args[0] if is_must_raise(node) and node.orelse[0].exc.args else None


def _entries(lang: str, root: Path) -> list:
    path = catalog_path(lang, root)
    if not path.exists():
        return []
    with path.open("rb") as file:
        return [entry for entry in pofile.read_po(file) if entry.id]


def read(lang: str, root: Path = ROOT) -> dict[str, str]:
    """The catalog of ``lang``: message -> translation (empty when not translated yet); {} without one."""
    return {entry.id: entry.string for entry in _entries(lang, root) if entry.context is None}


def read_values(lang: str, root: Path = ROOT) -> dict[str, str]:
    """The values of ``lang``'s catalog: a field's value -> its translation (empty when not translated yet)."""
    return {entry.id: entry.string for entry in _entries(lang, root) if entry.context == VALUE}


def page_values(source: str, translations: dict[str, str]) -> dict[str, str]:
    """The entries of ``translations`` (:func:`read_values`) for the values of one page's fields, but those
    that stay as they are: what its rerun cell needs."""
    return {value: translations[value] for _, value in values(source) if translations.get(value, value) != value}


def fields(text: str) -> list[str]:
    return sorted(FIELD.findall(text))


def check(lang: str, root: Path = ROOT, only: Collection[str] | None = None) -> list[str]:
    """The page rule for one edition (none for the first edition, whose language the messages are in); with
    ``only``, the messages of those pages (page names) only, and no word on the catalog's unused entries."""
    if lang == CODES[0]:
        return []
    labels, words, seen, shown, problems = read(lang, root), read_values(lang, root), set(), set(), []
    where_catalog = catalog_path(lang, root).relative_to(root).as_posix()
    for script in sources.gallery_scripts(lang, root / "gallery", only):
        where = script.relative_to(root).as_posix()
        try:
            found = messages(script.read_text(encoding="utf-8"))
            given = values(script.read_text(encoding="utf-8"))
        except SyntaxError:
            continue  # :func:`sitetools.rules.sources.check_script` reports it
        for line, value in given:
            if value not in shown and not words.get(value):
                problems.append(f"{where}:{line}: the value {value!r} of a field of the check's message has no "
                                f'translation (msgctxt "{VALUE}") in {where_catalog}; run `python -m '
                                f"sitetools.authoring.check_labels` and fill it in, with the value itself for a name "
                                f"that stays {GUIDE}")
            shown.add(value)
        for line, message in found:
            seen.add(message)
            label = labels.get(message, "")
            if not label:
                problems.append(f"{where}:{line}: the check's message {message!r} has no translation in "
                                f"{where_catalog}; run `python -m sitetools.authoring.check_labels` and fill it in "
                                f"{GUIDE}")
            elif fields(label) != fields(message):
                problems.append(f"{where}:{line}: the translation of {message!r} in {where_catalog} must hold "
                                f"the same fields {fields(message)}, not {fields(label)} {GUIDE}")
    if only is not None:
        return problems
    problems += [f"{where_catalog}: {message!r} is the message of no check; remove it {GUIDE}"
                 for message in sorted(set(labels) - seen)]  # fmt: skip
    problems += [f'{where_catalog}: the value {value!r} (msgctxt "{VALUE}") is given to no field of a check\'s '
                 f"message by a loop over literals; remove it {GUIDE}" for value in sorted(set(words) - shown)]
    return problems


def add_missing(lang: str, root: Path = ROOT) -> int:
    """Add every message and value ``lang``'s catalog lacks, untranslated, and drop those no page has; return
    how many were added."""
    labels, words, found, given = read(lang, root), read_values(lang, root), {}, {}
    for script in sources.gallery_scripts(lang, root / "gallery"):
        source, where = script.read_text(encoding="utf-8"), script.relative_to(root).as_posix()
        for line, message in messages(source):
            found.setdefault(message, (where, line))
        for line, value in values(source):
            given.setdefault(value, (where, line))
    catalog = Catalog(locale=lang, fuzzy=False)
    for message, location in sorted(found.items(), key=lambda item: item[1]):
        catalog.add(message, labels.get(message, ""), locations=[location])
    for value, location in sorted(given.items(), key=lambda item: item[1]):  # after the messages
        catalog.add(value, words.get(value, ""), locations=[location], context=VALUE)
    path = catalog_path(lang, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        file.write(HEADER.encode())
        pofile.write_po(file, catalog, width=0, omit_header=True, sort_output=False)
    return len(set(found) - set(labels)) + len(set(given) - set(words))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Add the checks' messages a catalog lacks, to translate.")
    parser.parse_args()
    for code in CODES[1:]:
        print(f"{catalog_path(code).relative_to(ROOT)}: {add_missing(code)} message(s) to translate")
