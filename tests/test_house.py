"""The house stays small as pages grow: no module of the project (outside ``gallery/`` and ``tests/``)
is over 400 lines, and no import circle joins the project's own modules (an import inside a function
counts: it hides a circle, it does not remove one); the front door and the writing guide stay short."""

import ast
import re
from pathlib import Path

import pytest

from tests.gallery_tools import ROOT

LIMIT = 400
#: Folders that are not the project's modules: pages, tests, and what tools write.
SKIPPED = ("gallery", "tests", "build", "node_modules", ".nox", ".git")
#: Import names start at the checkout (sitetools, tensorfacts), or in this folder (tensorcopy_sphinx).
EXTENSIONS = Path("docs", "_ext")

#: Known exceptions, each with its reason (none today). An entry
#: that is no longer needed fails the test too, so that none outlives its reason.
KNOWN_LONG: dict[str, str] = {}
KNOWN_CIRCLES: dict[frozenset[str], str] = {}


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every Python module of the project, by its import name (a script outside a package by its path)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] in SKIPPED or "__pycache__" in relative.parts:
            continue
        base = root / EXTENSIONS if root / EXTENSIONS in path.parents else root
        parts = path.relative_to(base).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """The project modules ``path`` (module ``name``) imports, anywhere in its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:  # ``a.b.function`` is module ``a.b``
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {name: imports_of(path, name, set(modules)) for name, path in modules.items()}


def test_no_module_is_over_the_limit():
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in project_modules().values()}  # fmt: skip
    long = {name: lines for name, lines in sizes.items() if lines > LIMIT}
    unexpected = {name: lines for name, lines in long.items() if name not in KNOWN_LONG}
    assert not unexpected, f"over {LIMIT} lines, split them: {unexpected}"
    stale = sorted(set(KNOWN_LONG) - set(long))
    assert not stale, f"no longer over {LIMIT} lines: remove them from KNOWN_LONG in tests/test_house.py: {stale}"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_no_import_circle_joins_the_project_modules():
    found = circles(import_graph())
    unexpected = [sorted(group) for group in found if group not in KNOWN_CIRCLES]
    assert not unexpected, f"import circles: {unexpected}"
    stale = [sorted(group) for group in KNOWN_CIRCLES if group not in found]
    assert not stale, f"these circles are gone: remove them from KNOWN_CIRCLES in tests/test_house.py: {stale}"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_modules_are_named_as_python_imports_them():
    modules = project_modules()
    assert modules["sitetools.rules.sources"] == ROOT / "sitetools" / "rules" / "sources.py"
    assert modules["tensorcopy_sphinx.verified_stamp"] == ROOT / "docs/_ext/tensorcopy_sphinx/verified_stamp.py"
    assert modules["tensorfacts"] == ROOT / "tensorfacts" / "__init__.py"
    assert modules["editions"] == ROOT / "editions" / "__init__.py"
    graph = import_graph()
    assert "sitetools.web" in graph["sitetools.for_sphinx"]  # ``from sitetools import settings, web``
    assert "sitetools.rules.sources" in graph["sitetools.rules.checks_manifest"]  # ``from sitetools.rules.sources ...``


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_table_of_editions_sits_below_the_tools_and_the_fact_engine():
    """``editions`` imports no module of the project, and the fact engine none of ``sitetools``."""
    graph = import_graph()
    assert graph["editions"] == set()
    assert "editions" in graph["tensorfacts.fact_registry"]
    reaching = {f"{name} imports {target}" for name, targets in graph.items() if name.startswith("tensorfacts")
                for target in targets if target.startswith("sitetools")}  # fmt: skip
    assert not reaching


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_sphinx_side_reaches_the_tools_through_one_entry():
    """The extensions and the shared configuration import :mod:`sitetools.for_sphinx` and nothing else of
    ``sitetools``; the hooks sphinx-gallery imports by name are named there too."""
    graph = import_graph()
    sphinx_side = {name for name in graph if name.startswith("tensorcopy_sphinx") or name == "docs._shared.conf"}
    assert "docs._shared.conf" in sphinx_side and len(sphinx_side) > 20, sorted(sphinx_side)
    around = {f"{name} imports {target}" for name in sphinx_side for target in graph[name]
              if target.startswith("sitetools") and target != "sitetools.for_sphinx"}  # fmt: skip
    assert not around, sorted(around)
    conf = (ROOT / "docs" / "_shared" / "conf.py").read_text(encoding="utf-8")
    named = set(re.findall(r"[\"'](sitetools\.[\w.]+)[\"']", conf))
    assert named and all(name.startswith("sitetools.for_sphinx.") for name in named), named


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"pkg/__init__.py": "", "pkg/a.py": "from pkg import b\n", "pkg/b.py": "def f():\n    from pkg.a import x\n"},
         [frozenset({"pkg.a", "pkg.b"})]),
        ({"pkg/__init__.py": "", "pkg/a.py": "from . import b\n", "pkg/b.py": "from .c import y\n",
          "pkg/c.py": "import pkg.a\n"}, [frozenset({"pkg.a", "pkg.b", "pkg.c"})]),
        ({"pkg/__init__.py": "", "pkg/a.py": "from pkg import b\n", "pkg/b.py": "import os\n"}, []),
    ],
    ids=["lazy-import", "relative-three", "none"],
)
def test_the_circle_finder_sees_circles_through_lazy_and_relative_imports(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert circles(import_graph(tmp_path)) == expected


#: The documents a newcomer reads first, and how long each may be.
DOCUMENTS_LIMIT = 200
FRONT_DOOR, WRITING_GUIDE = "README.md", "CONTRIBUTING.md"


def test_the_front_door_and_the_writing_guide_stay_short_and_say_nothing_twice():
    """README.md (what the site is, the two commands) and CONTRIBUTING.md (the rules a writer meets) stay
    within 200 lines each, and no sentence-long line of one is repeated in the other."""
    texts = {name: (ROOT / name).read_text(encoding="utf-8") for name in (FRONT_DOOR, WRITING_GUIDE)}
    long_ones = {name: len(text.splitlines()) for name, text in texts.items()
                 if len(text.splitlines()) > DOCUMENTS_LIMIT}  # fmt: skip
    assert not long_ones, f"over {DOCUMENTS_LIMIT} lines: {long_ones}; move detail to MAINTAINING.md"
    lines = {name: {line.strip() for line in text.splitlines() if len(line.strip()) >= 60}
             for name, text in texts.items()}  # fmt: skip
    repeated = lines[FRONT_DOOR] & lines[WRITING_GUIDE]
    assert not repeated, f"said in both {FRONT_DOOR} and {WRITING_GUIDE}: {sorted(repeated)}"
