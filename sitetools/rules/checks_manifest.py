"""The checks behind each example page, recorded so that a page cannot lose one silently.

Every claim a page makes is backed by a check in its script: an ``assert``, or a "must raise" block
(``try: ... except E as e: ... else: raise AssertionError(...)``). Some are visible on the page, the
bookkeeping ones sit in sphinx-gallery's hidden blocks (``# sphinx_gallery_start_ignore`` ...
``# sphinx_gallery_end_ignore``), which still run on every build. This module lists those checks in a
normalised form, compares them with the manifest ``gallery/asserts.json``, and measures how much of
what a reader sees is ``assert`` lines.

Update the manifest after adding or deliberately removing a check (the command prints what changed)::

    python -m sitetools.rules.checks_manifest --update

A *visible claim* is a check recorded without ``(hidden)``: the reader sees it on the page beside the
prose it backs. The update refuses to move one into a hidden block unless ``--hide`` says that this
was reviewed (:func:`hidden_claims`).
"""

from __future__ import annotations

import argparse
import ast
import collections
import functools
import json
import sys
from collections.abc import Collection
from pathlib import Path

from editions import CODES
from sitetools.releases.rerun_cell import gpu_lines, is_must_raise
from sitetools.rules import syntax
from sitetools.rules.sources import gallery_scripts, guide, numbered_blocks, relative_name, split_hidden

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "gallery"
MANIFEST = GALLERY / "asserts.json"
UPDATE_COMMAND = "python -m sitetools.rules.checks_manifest --update"
REFERENCE = CODES[0]
HIDDEN = " (hidden)"
#: The mark of a check inside a GPU block (``if torch.cuda.is_available():``): it runs only on a build
#: that has a GPU, and the verified-on stamp counts it only when it ran.
GPU = " (GPU)"


def scripts(lang: str, gallery: Path = GALLERY, only: Collection[str] | None = None) -> dict[str, Path]:
    """The example scripts of one language (with ``only``, of these names), keyed by page name
    (``copying/plot_01_alias_and_data``)."""
    return {relative_name(path, gallery): path for path in gallery_scripts(lang, gallery, only)}


def checks(source: str, filename: str = "<page>") -> list[str]:
    """See :func:`_checks` (a copy, so that callers may change it)."""
    try:
        return list(_checks(source))
    except SyntaxError:
        syntax.parse(source, filename)  # raise again, naming the file
        raise


@functools.lru_cache(maxsize=512)
def _checks(source: str) -> tuple[str, ...]:
    """The normalised text of every check in a script, visible or hidden, in source order.

    An ``assert`` is its condition as :func:`ast.unparse` writes it (the message is for the reader and may
    be reworded freely); a must-raise block is ``raises <exception>: <statements of the try body>``. A check
    in a hidden block ends with ``(hidden)``, so that moving a check off the page is a deliberate change too;
    one inside a GPU block ends with ``(GPU)``.
    """
    return tuple(text for _, text in sorted(located_checks(source)))


def located_checks(source: str) -> list[tuple[int, str]]:
    """``(line, normalised text)`` of every check of a script (see :func:`_checks`)."""
    hidden, tree = split_hidden(source)[1], syntax.parse(source)
    gpu = gpu_lines(tree)
    found: list[tuple[int, str]] = []
    for node in syntax.walk(tree):
        if isinstance(node, ast.Assert):
            text = f"assert {ast.unparse(node.test)}"
        elif is_must_raise(node):
            caught = " | ".join(ast.unparse(h.type) if h.type else "BaseException" for h in node.handlers)
            text = f"raises {caught}: " + "; ".join(ast.unparse(statement) for statement in node.body)
        else:
            continue
        marks = (HIDDEN if node.lineno in hidden else "") + (GPU if node.lineno in gpu else "")
        found.append((node.lineno, text + marks))
    return found


def problems(where: str, found: list[str], recorded: list[str]) -> list[str]:
    """What differs between a page's checks and the manifest, one sentence each (empty when they agree)."""
    missing, new = compare(found, recorded)
    report = [f"{where} lost a check the manifest records: {text} {guide('Checks behind the prose')}"
              for text in missing]
    report += [
        f"{where} has a check the manifest does not record yet: {text} (if this change is deliberate, "
        f"run `{UPDATE_COMMAND}` and commit {MANIFEST.relative_to(ROOT)})"
        for text in new
    ]
    return report


def check_manifest(langs: list[str], gallery: Path = GALLERY, only: Collection[str] | None = None) -> list[str]:
    """Every page of ``langs`` (with ``only``, of these page names) keeps exactly the checks the manifest
    (``gallery/asserts.json``) records."""
    manifest = gallery / MANIFEST.name
    recorded = read_manifest(manifest) if manifest.exists() else {}
    found = []
    for lang in langs:
        for name, script in scripts(lang, gallery, only).items():
            found += problems(f"gallery/{lang}/{name}.py", script_checks(script), recorded.get(name, []))
    return found


def script_checks(script: Path) -> list[str]:
    return checks(script.read_text(encoding="utf-8"), str(script))


def read_manifest(path: Path = MANIFEST) -> dict[str, list[str]]:
    return json.loads(path.read_text(encoding="utf-8"))


def compare(found: list[str], recorded: list[str]) -> tuple[list[str], list[str]]:
    """``(missing, new)``: recorded checks the script lacks, and checks the manifest does not record yet.

    Checks are compared as multisets: a page that states the same check twice must keep both."""
    have, want = collections.Counter(found), collections.Counter(recorded)
    return sorted((want - have).elements()), sorted((have - want).elements())


def record_for_preview(gallery: Path) -> list[str]:
    """In a preview's staging copy of ``gallery/``: record the checks of the pages it holds as they stand,
    so that a page whose checks are not recorded yet can be previewed (the page's stamp counts them).
    The checkout's manifest is not touched; return the pages whose record changed."""
    manifest = gallery / MANIFEST.name
    recorded = read_manifest(manifest) if manifest.exists() else {}
    now = current(gallery)
    changed = sorted(name for name in now if recorded.get(name) != now[name])
    manifest.write_text(json.dumps({**recorded, **now}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return changed


# --- what a reader sees -------------------------------------------------------------------------


def visible_cells(script: Path) -> list[str]:
    """The code cells of a script as the rendered page shows them: hidden blocks removed."""
    from sphinx_gallery.py_source_parser import remove_ignore_blocks

    return [remove_ignore_blocks(block.content) for block in numbered_blocks(script) if block.type == "code"]


def _counted(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def visible_counts(script: Path) -> tuple[int, int]:
    """``(assert lines, code lines)`` a reader sees on the page; blank and comment lines are not counted."""
    asserts = code = 0
    for cell in visible_cells(script):
        lines = cell.splitlines()
        code += sum(_counted(line) for line in lines)
        assert_lines: set[int] = set()
        for node in syntax.walk(syntax.parse(cell)):
            if isinstance(node, ast.Assert):
                assert_lines.update(range(node.lineno, node.end_lineno + 1))
        asserts += sum(_counted(lines[n - 1]) for n in assert_lines)
    return asserts, code


# --- the update command -------------------------------------------------------------------------


def current(gallery: Path = GALLERY) -> dict[str, list[str]]:
    """The checks of every page of the reference language; raises if another language differs."""
    pages = {name: script_checks(path) for name, path in scripts(REFERENCE, gallery).items()}
    for lang in CODES[1:]:
        for name, path in scripts(lang, gallery).items():
            if name in pages and sorted(script_checks(path)) != sorted(pages[name]):
                raise SystemExit(
                    f"gallery/{lang}/{name}.py has other checks than gallery/{REFERENCE}/{name}.py; "
                    "make their code cells identical first"
                )
    return {name: sorted(found) for name, found in sorted(pages.items())}


def hidden_claims(old: dict[str, list[str]], new: dict[str, list[str]]) -> list[str]:
    """Visible claims that ``new`` moves into a hidden block: a check recorded in ``old`` without
    ``(hidden)`` (so a reader saw it beside the prose) and found in ``new`` only with it."""
    moved = []
    for name in sorted(set(old) & set(new)):
        missing, added = compare(new[name], old[name])
        moved += [f"{name}: {text}" for text in missing if not text.endswith(HIDDEN) and text + HIDDEN in added]
    return moved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {MANIFEST.relative_to(ROOT)}")
    parser.add_argument("--hide", action="store_true",
                        help="allow the update to move visible checks into hidden blocks (a reviewed decision)")
    args = parser.parse_args(argv)
    new = current()
    old = read_manifest() if MANIFEST.exists() else {}
    moved = hidden_claims(old, new)
    if moved and not args.hide:
        print("these visible checks moved into hidden blocks, where a reader no longer sees the claim beside "
              "its prose; keep them visible, or pass --hide after review:\n" + "\n".join(f"  {m}" for m in moved))
        return 1
    changes = []
    for name in sorted(set(old) | set(new)):
        missing, added = compare(new.get(name, []), old.get(name, []))
        changes += [f"- {name}: {text}" for text in missing] + [f"+ {name}: {text}" for text in added]
    print("\n".join(changes) if changes else "the manifest is up to date")
    if args.update and changes:
        MANIFEST.write_text(json.dumps(new, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {MANIFEST.relative_to(ROOT)}")
    return 0 if (args.update or not changes) else 1


if __name__ == "__main__":
    sys.exit(main())
