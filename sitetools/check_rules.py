"""Every check a page reports can fail, and runs where a reader can see what it checks.

:mod:`sitetools.pages_asserts` keeps the list of a page's checks; this module refuses the ways to keep
a check on the list while making it say nothing (the build also records each check as it runs, see
:mod:`sitetools.check_runs`):

- a condition that constants alone decide (``assert True or x``, ``assert (a, "message")``,
  ``assert x is x``; :func:`sitetools.folding.truth`);
- a block that never runs (``if False:``, ``while 0:``) and a ``try`` that swallows a failed assert
  (``except AssertionError``, ``Exception``, ``BaseException`` or a bare ``except`` around an
  ``assert``, or ``contextlib.suppress`` of one of them);
- a hidden block that changes what the page shows: besides the rules of :mod:`sitetools.pages`
  (no print, no in-place method, no assignment to an attribute or element), no call of a dunder method
  (``t.__iadd__(1)``), no ``out=`` argument, no ``setattr``/``delattr``.
"""

from __future__ import annotations

import ast

from sitetools import folding
from sitetools.pages import split_hidden

GUIDE_CHECKS = "(see CONTRIBUTING.md, 'Checks behind the prose')"
GUIDE_HIDDEN = "(see CONTRIBUTING.md, 'Hidden checks')"
SWALLOWS = {"AssertionError", "Exception", "BaseException"}


def _catches(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in SWALLOWS for t in types)


def _has_assert(statements: list[ast.stmt]) -> bool:
    return any(isinstance(node, ast.Assert) for statement in statements for node in ast.walk(statement))


def _suppresses(item: ast.withitem) -> bool:
    call = item.context_expr
    name = call.func.attr if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) else (
        call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else "")
    return name == "suppress" and any(isinstance(a, ast.Name) and a.id in SWALLOWS for a in call.args)


def check_problems(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, problem) for each check that cannot fail and each block that hides a failure."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and folding.truth(node.test) is not None:
            found.append((node.lineno, f"`assert {ast.unparse(node.test)}` holds or fails whatever the code "
                                       "computes; a check must depend on a computed value"))
        elif isinstance(node, ast.If | ast.While) and folding.truth(node.test) is False:
            found.append((node.lineno, f"`{ast.unparse(node.test)}` is always false: the block under it never runs"))
        elif isinstance(node, ast.If) and folding.truth(node.test) is True and node.orelse:
            found.append((node.lineno, f"`{ast.unparse(node.test)}` is always true: its else block never runs"))
        elif isinstance(node, ast.Try) and _has_assert(node.body) and any(map(_catches, node.handlers)):
            found.append((node.lineno, "a try block catches the failure of the assert inside it"))
        elif isinstance(node, ast.With) and _has_assert(node.body) and any(map(_suppresses, node.items)):
            found.append((node.lineno, "a with block suppresses the failure of the assert inside it"))
    return found


def hidden_problems(tree: ast.AST, hidden: set[int]) -> list[tuple[int, str]]:
    """(line, problem) for what a hidden line does that could change what the page shows, beyond
    :func:`sitetools.pages._hidden_effects`."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno not in hidden:
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr.startswith("__") and func.attr.endswith("__"):
            found.append((node.lineno, f"calls the dunder method {func.attr}(), which can change a value in place"))
        elif isinstance(func, ast.Name) and func.id in ("setattr", "delattr"):
            found.append((node.lineno, f"calls {func.id}()"))
        if any(keyword.arg == "out" for keyword in node.keywords):
            found.append((node.lineno, "writes a result into an existing tensor (`out=`)"))
    return found


def check_source(where: str, source: str) -> list[str]:
    """The rules of this module for one script's text; each problem names the file and line."""
    tree = ast.parse(source, where)
    problems = [f"{where}, line {line}: {problem} {GUIDE_CHECKS}" for line, problem in check_problems(tree)]
    hidden = split_hidden(source)[1]
    problems += [f"{where}, line {line}: a hidden block {problem}; hidden blocks may only check {GUIDE_HIDDEN}"
                 for line, problem in hidden_problems(tree, hidden)]
    return problems
