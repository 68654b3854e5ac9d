"""Negate one operand of a check's condition at a time, to prove that each operand decides.

A claim's check ends in ``verdict(<condition>)`` and a fact's in ``Fact(<condition>, trace)``. A
condition is a tree of ``and``, ``or`` and ``not`` over operands (a comparison, a call, a name). If
negating one operand, the others unchanged, leaves the verdict as it was, that operand checks nothing
on this torch: ``not shared and a[0] == 1`` weakened to ``or`` is such a case, since negating
``not shared`` no longer changes anything. A name in the condition that the function assigned from
a boolean expression (``flows = a.grad is not None and ...``) is followed into that expression.

``flipped(func, index)`` recompiles the function from its source with operand ``index`` negated; the
function's module globals are its globals, so it runs the same code as the original.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable

#: The calls whose first argument is a condition.
CONDITION_CALLS = ("verdict", "Fact")


def _function(func: Callable) -> ast.FunctionDef | None:
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return None
    tree = ast.parse(source)
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, ast.FunctionDef) else None


def _boolean(node: ast.expr) -> bool:
    return isinstance(node, ast.BoolOp | ast.Compare) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))


def _assignments(fdef: ast.FunctionDef) -> dict[str, ast.expr]:
    """Names the function assigns once from a boolean expression."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found.setdefault(node.targets[0].id, []).append(node.value)
    return {name: values[0] for name, values in found.items() if len(values) == 1 and _boolean(values[0])}


def _leaves(node: ast.expr, assigned: dict[str, ast.expr], seen: set[str]) -> list[ast.expr]:
    if isinstance(node, ast.BoolOp):
        return [leaf for value in node.values for leaf in _leaves(value, assigned, seen)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and _boolean(node.operand):
        return _leaves(node.operand, assigned, seen)
    if isinstance(node, ast.Name) and node.id in assigned and node.id not in seen:
        seen.add(node.id)
        return _leaves(assigned[node.id], assigned, seen)
    return [node]


def _conditions(fdef: ast.FunctionDef) -> list[ast.expr]:
    return [node.args[0] for node in ast.walk(fdef)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in CONDITION_CALLS and node.args]


def operands(func: Callable) -> list[str]:
    """The source text of each operand of the function's conditions (empty: none found)."""
    fdef = _function(func)
    if fdef is None:
        return []
    return [ast.unparse(leaf) for leaf in _operand_nodes(fdef)]


def _operand_nodes(fdef: ast.FunctionDef) -> list[ast.expr]:
    assigned, seen, leaves = _assignments(fdef), set(), []
    for condition in _conditions(fdef):
        for leaf in _leaves(condition, assigned, seen):
            if all(leaf is not other for other in leaves):
                leaves.append(leaf)
    return leaves


class _Negate(ast.NodeTransformer):
    def __init__(self, target: ast.expr) -> None:
        self.target = target

    def visit(self, node):
        if node is self.target:
            return ast.UnaryOp(op=ast.Not(), operand=node)
        return super().visit(node)


def flipped(func: Callable, index: int) -> Callable:
    """``func`` recompiled with its operand ``index`` negated (``not (<operand>)``)."""
    fdef = _function(func)
    target = _operand_nodes(fdef)[index]
    fdef.decorator_list = []
    fdef = ast.fix_missing_locations(_Negate(target).visit(fdef))
    namespace = dict(func.__globals__)
    exec(compile(ast.Module(body=[fdef], type_ignores=[]), inspect.getsourcefile(func), "exec"), namespace)
    return namespace[fdef.name]
