"""The rules every page source follows, checked before anything is built.

Each ``check_*`` function returns a list of problems; each problem names the source file and the
section of CONTRIBUTING.md that states the rule. :mod:`sitetools.rules.all_rules` gathers them with the
rules of the other modules; the build (:mod:`sitetools.building.pipeline`) refuses to start while any rule is
broken, and the fast test tier runs the same functions, so the build and the tests can never disagree
about a page.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Collection, Iterable
from pathlib import Path

from editions import CODES
from sitetools.rules import print_labels, syntax

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "gallery"
DOCS = ROOT / "docs"
HEADER = "GALLERY_HEADER.rst"
SCRIPT_GLOB = "plot_*.py"
HIDDEN_START = "# sphinx_gallery_start_ignore"
HIDDEN_END = "# sphinx_gallery_end_ignore"
SYNC_COMMAND = "python -m sitetools.authoring.sync"  # makes a page's code cells identical (sitetools/authoring/sync.py)


def guide(section: str) -> str:
    """The pointer to the writing guide that every rule's message ends with."""
    return f"(see CONTRIBUTING.md, '{section}')"


# --- Finding pages -----------------------------------------------------------------------------


def gallery_scripts(lang: str, gallery: Path = GALLERY, only: Collection[str] | None = None) -> list[Path]:
    """Every example script of one edition, in file order; with ``only``, those of these page names
    (``copying/plot_01_alias_and_data``) only."""
    found = sorted((gallery / lang).rglob(SCRIPT_GLOB))
    return found if only is None else [script for script in found if relative_name(script, gallery) in only]


def relative_name(script: Path, gallery: Path = GALLERY) -> str:
    """``gallery/en/copying/plot_01_x.py`` -> ``copying/plot_01_x`` (the same in every edition)."""
    lang_dir = next(p for p in script.parents if p.parent == gallery)
    return script.relative_to(lang_dir).with_suffix("").as_posix()


def narrative_pages(lang: str, docs: Path = DOCS) -> list[Path]:
    """The MyST pages of one edition."""
    return sorted((docs / lang).glob("*.md"))


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# --- Splitting scripts -------------------------------------------------------------------------


def blocks(script: Path) -> list[tuple[str, str]]:
    """The script's blocks as ``(kind, content)``, kind "text" or "code" (sphinx-gallery's parser)."""
    source = script.read_text(encoding="utf-8")
    return [(block.type, block.content) for block in syntax.gallery_blocks(source, str(script))]


def numbered_blocks(script: Path) -> list:
    """sphinx-gallery's blocks of a script, each ``(type, content, lineno)`` (``.type``, ``.content``,
    ``.lineno``), as ``split_code_and_text_blocks`` gives them."""
    return list(syntax.gallery_blocks(script.read_text(encoding="utf-8"), str(script)))


def code_cells(script: Path) -> list[str]:
    return [content for kind, content in blocks(script) if kind == "code"]


@functools.lru_cache(maxsize=4096)
def code_tokens(code: str) -> tuple[tuple[str, str], ...]:
    """The tokens of a code cell, without comments and blank lines: what must match across editions."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return tuple((tokenize.tok_name[t.type], t.string) for t in tokens if t.type not in skip)


def split_hidden(code: str) -> tuple[str, set[int]]:
    """Split a code cell into its visible code and the line numbers (1-based) of its hidden blocks
    (the lines between the sphinx-gallery ignore markers, markers included). Visible code keeps its
    line numbers: hidden lines are blank in it."""
    visible, hidden, inside = [], set(), False
    for number, line in enumerate(code.splitlines(), start=1):
        marker = line.strip()
        if marker in (HIDDEN_START, HIDDEN_END):
            inside = marker == HIDDEN_START
            hidden.add(number)
            visible.append("")
        elif inside:
            hidden.add(number)
            visible.append("")
        else:
            visible.append(line)
    return "\n".join(visible), hidden


# --- Rules -------------------------------------------------------------------------------------


def check_layout(lang: str, root: Path = ROOT) -> list[str]:
    """Every .py under gallery/<lang>/ is an example (``plot_*.py``) and every folder has a header."""
    gallery = root / "gallery" / lang
    problems = []
    if not gallery.is_dir():
        return [f"gallery/{lang}/ is missing {guide('Pages in every edition')}"]
    for path in sorted(gallery.rglob("*.py")):
        if not path.name.startswith("plot_"):
            problems.append(
                f"{_shown(path, root)}: not named plot_*.py, so it would be published without being run; "
                f"rename it or move it out of gallery/ {guide('Where a page goes')}"
            )
    for folder in sorted({p.parent for p in gallery.rglob("*") if p.is_file()} | {gallery}):
        if not (folder / HEADER).exists():
            problems.append(
                f"{_shown(folder, root)}/{HEADER} is missing: sphinx-gallery would silently drop the folder "
                f"{guide('Where a page goes')}"
            )
    return problems


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(value, ast.Constant) for value in node.values)
    if isinstance(node, ast.Starred):
        return _literal(node.value)
    if isinstance(node, ast.Tuple | ast.List):
        return all(_literal(element) for element in node.elts)
    return False


def literal_prints(tree: ast.AST) -> list[int]:
    """Line numbers of ``print(...)`` calls whose every argument is a literal."""
    return [
        node.lineno
        for node in syntax.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and node.args
        and all(_literal(arg) for arg in node.args)
    ]


#: Calls whose value changes from run to run: an address or a time. Compared with each other they may
#: be printed (``a.data_ptr() == b.data_ptr()`` is a fact); printed as values they never may.
VOLATILE = {"id", "data_ptr", "time", "perf_counter", "monotonic", "now", "today", "urandom", "uuid4",
            "time_ns", "perf_counter_ns", "monotonic_ns", "process_time", "utcnow", "ctime", "localtime", "hash"}


def _volatile(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Compare):
        return []
    found = []
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in VOLATILE:
            found.append(f"{name}()")
    for child in ast.iter_child_nodes(node):
        found += _volatile(child)
    return found


def volatile_prints(tree: ast.AST) -> list[tuple[int, str]]:
    """``print(...)`` calls that print an address or a time (line, what)."""
    return [
        (node.lineno, what)
        for node in syntax.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
        for arg in [*node.args, *(k.value for k in node.keywords)]
        for what in _volatile(arg)
    ]


def _bound_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in syntax.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def _read_names(tree: ast.AST) -> set[str]:
    return {node.id for node in syntax.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def _hidden_effects(tree: ast.AST, hidden: set[int]) -> list[tuple[int, str]]:
    """What the hidden lines of a cell do that could change what the page shows."""
    found = []
    for node in syntax.walk(tree):
        if getattr(node, "lineno", None) not in hidden:
            continue
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "print":
                found.append((node.lineno, "prints"))
            elif isinstance(func, ast.Attribute) and func.attr.endswith("_") and not func.attr.startswith("_"):
                found.append((node.lineno, f"calls the in-place method {func.attr}()"))
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute | ast.Subscript) for t in targets):
                found.append((node.lineno, "assigns to an attribute or an element"))
    return found


def _module_bindings(node: ast.AST) -> set[str]:
    """Names ``node`` binds in the page's namespace: not the locals of a comprehension, a lambda or a
    function body (a function's own name is bound), nor ``except ... as e`` (Python unbinds it)."""
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp | ast.Lambda):
        return set()
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    names = set()
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        names.add(node.id)
    elif isinstance(node, ast.alias):
        names.add((node.asname or node.name).split(".")[0])
    for child in ast.iter_child_nodes(node):
        names |= _module_bindings(child)
    return names


def _hidden_bindings(tree: ast.Module, hidden: set[int]) -> set[str]:
    """Names the hidden statements of a cell bind in the page's namespace."""
    names = set()
    for node in syntax.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno in hidden:
            names |= _module_bindings(node)
    return names


def check_script(script: Path, root: Path = ROOT) -> list[str]:
    """The code rules of one script: it parses, prints no bare literal, and its hidden blocks only check."""
    return list(_check_script_text(_shown(script, root), script.read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=512)
def _check_script_text(where: str, source: str) -> tuple[str, ...]:
    """:func:`check_script` for a script's text (cached: the tests check many copies of one page)."""
    try:
        script_blocks = syntax.gallery_blocks(source)
    except SyntaxError as error:
        return (f"{where}: does not parse: {error}",)
    cells = [content for kind, content, _ in script_blocks if kind == "code"]
    problems = [f"{where}:{line}: {problem} {guide('Hidden checks')}"
                for line, problem in syntax.marker_problems(script_blocks)]
    visible_reads: set[str] = set()
    hidden_parts = []
    for number, cell in enumerate(cells, start=1):
        visible, hidden = split_hidden(cell)
        try:
            tree = syntax.parse(visible)
        except SyntaxError as error:
            problems.append(f"{where}: code cell {number} does not parse without its hidden blocks: {error}")
            continue
        for line in literal_prints(tree):
            problems.append(
                f"{where}: code cell {number}, line {line}: print() of literals only; a printed value must be "
                f"computed by the code, and prose belongs in comments {guide('Printing')}"
            )
        for line, what in volatile_prints(tree):
            problems.append(
                f"{where}: code cell {number}, line {line}: prints {what}, an address or a time that changes "
                f"from run to run; print a comparison instead {guide('Printing')}"
            )
        for line, problem in print_labels.problems(tree):
            problems.append(f"{where}: code cell {number}, line {line}: {problem} {guide('Printing')}")
        visible_reads |= _read_names(tree)
        if hidden:
            hidden_parts.append((number, syntax.parse(cell), hidden))
    for number, tree, hidden in hidden_parts:
        for line, effect in _hidden_effects(tree, hidden):
            problems.append(
                f"{where}: code cell {number}, line {line}: a hidden block {effect}; hidden blocks may only "
                f"check, never change what the page shows {guide('Hidden checks')}"
            )
        leaked = sorted(_hidden_bindings(tree, hidden) & visible_reads)
        if leaked:
            problems.append(
                f"{where}: a hidden block of code cell {number} binds {', '.join(leaked)}, which visible code "
                f"reads; a reader could not reproduce the page {guide('Hidden checks')}"
            )
    return tuple(problems)


def check_typography(lang: str, root: Path = ROOT) -> list[str]:
    """The text cells of one edition's scripts and part headers: inline markup that docutils
    recognises, and in Chinese editions the spacing and punctuation rules (:mod:`sitetools.rules.typography`);
    in Chinese editions, no line break inside a Chinese sentence and no 、 before a conjunction in the
    narrative pages either."""
    from editions import edition
    from sitetools.rules import typography

    gallery = root / "gallery" / lang
    sources = sorted([*gallery.rglob(SCRIPT_GLOB), *gallery.rglob(HEADER)])
    cjk = edition(lang).cjk
    problems = [
        f"{problem} {guide('Typography')}"
        for source in sources
        for problem in typography.check_page(source, cjk, _shown(source, root))
    ]
    for page in narrative_pages(lang, root / "docs") if cjk else []:
        problems += [f"{_shown(page, root)}:{line}: {message} {guide('Typography')}"
                     for line, message in [*typography.linebreak_problems(page.read_text(encoding="utf-8"), True),
                                           *typography.conjunction_problems(page.read_text(encoding="utf-8"))]]
    return problems


def _names(base: Path, pattern: str) -> set[str]:
    return {path.relative_to(base).as_posix() for path in base.rglob(pattern)}


def _doctests(page: Path) -> list[str]:
    return re.findall(r"```\{doctest\}\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def check_parity(langs: Iterable[str] = CODES, root: Path = ROOT, only: Collection[str] | None = None) -> list[str]:
    """Every edition holds the same pages as the first, with code cells and doctests token for token (with
    ``only``, the code cells of these pages only)."""
    reference, *others = langs
    gallery, docs = root / "gallery", root / "docs"
    rule = guide("Pages in every edition")
    problems = []
    for lang in others:
        for pattern in (SCRIPT_GLOB, HEADER, "*.md"):
            base_ours, base_theirs = (
                (docs / reference, docs / lang) if pattern == "*.md" else (gallery / reference, gallery / lang)
            )
            ours, theirs = _names(base_ours, pattern), _names(base_theirs, pattern)
            for name in sorted(ours - theirs):
                problems.append(f"{_shown(base_theirs, root)}/{name} is missing (it exists in {reference}) {rule}")
            for name in sorted(theirs - ours):
                problems.append(f"{_shown(base_theirs, root)}/{name} has no {reference} twin {rule}")
        for name in sorted(_names(gallery / reference, SCRIPT_GLOB) & _names(gallery / lang, SCRIPT_GLOB)):
            if only is not None and name.removesuffix(".py") not in only:
                continue
            ours, theirs = gallery / reference / name, gallery / lang / name
            where = _shown(theirs, root)
            try:
                blocks_ours, blocks_theirs = blocks(ours), blocks(theirs)
            except SyntaxError as error:
                problems.append(f"{where} or its twin does not parse: {error}")
                continue
            kinds_ours = [kind for kind, _ in blocks_ours]
            kinds_theirs = [kind for kind, _ in blocks_theirs]
            if kinds_ours != kinds_theirs:
                problems.append(f"{where} has cells {kinds_theirs}, but {_shown(ours, root)} has {kinds_ours} {rule}")
                continue
            cells = [(a, b) for (kind, a), (_, b) in zip(blocks_ours, blocks_theirs, strict=True) if kind == "code"]
            for number, (a, b) in enumerate(cells, start=1):
                if code_tokens(a) != code_tokens(b):
                    page = name.removesuffix(".py")
                    problems.append(
                        f"{where}: code cell {number} differs from {_shown(ours, root)} (comments aside); copy "
                        f"one edition's code into the other, keeping its words, with `{SYNC_COMMAND} {page}` "
                        f"(code from {reference}) or `{SYNC_COMMAND} {page} --from {lang}` {rule}:"
                        f"\n--- {reference}\n{a}\n--- {lang}\n{b}"
                    )
                elif code_tokens(split_hidden(a)[0]) != code_tokens(split_hidden(b)[0]):
                    problems.append(
                        f"{where}: code cell {number} hides other lines than {_shown(ours, root)} (its hidden "
                        f"blocks' markers sit elsewhere or are missing); the editions must show the same code {rule}"
                    )
        for name in sorted(_names(docs / reference, "*.md") & _names(docs / lang, "*.md")):
            if _doctests(docs / reference / name) != _doctests(docs / lang / name):
                problems.append(f"docs/{lang}/{name}: doctest blocks differ from docs/{reference}/{name} {rule}")
    return problems
