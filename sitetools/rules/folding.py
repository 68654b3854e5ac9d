"""What an expression is worth before anything runs: the value of an expression built from constants
only, and the truth of a condition that no computed name can change (``x or True``, ``(a, b)``).

A printed value or a check made of constants says nothing the code computed; the page rules
(:mod:`sitetools.rules.output`, :mod:`sitetools.rules.checks`) refuse both. Folding is deliberately
small: constants, f-strings, containers, operators, comparisons, conditional expressions and a few
pure built-in calls; anything else is "unknown", which is what a computed value looks like.

:func:`from_literals` goes one step further for printed values: an expression that calls a library on
literals only (``torch.tensor(False).item()``, ``torch.ones(3).sum()``) is decided by those literals
too, even though nothing here can compute it.
"""

from __future__ import annotations

import ast
import operator

UNKNOWN = object()

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}  # fmt: skip
_UNARY = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not}  # fmt: skip
#: Built-in calls whose value follows from their arguments alone.
PURE = {"str": str, "repr": repr, "bool": bool, "int": int, "float": float, "len": len, "format": format,
        "abs": abs, "min": min, "max": max, "tuple": tuple, "list": list, "sorted": sorted, "chr": chr}  # fmt: skip
_LIMIT = 10_000  # a folded value larger than this is not worth computing


def value(node: ast.expr) -> object:
    """The value of ``node`` if constants alone decide it, else :data:`UNKNOWN`."""
    try:
        found = _value(node)
    except Exception:  # an operation on constants that raises: the code would raise too
        return UNKNOWN
    if isinstance(found, str | bytes | tuple | list) and len(found) > _LIMIT:
        return UNKNOWN
    return found


def _value(node: ast.expr) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [value(part) for part in node.values]
        return UNKNOWN if UNKNOWN in parts else "".join(map(str, parts))
    if isinstance(node, ast.FormattedValue):
        inner, spec = value(node.value), value(node.format_spec) if node.format_spec else ""
        if inner is UNKNOWN or spec is UNKNOWN:
            return UNKNOWN
        inner = {115: str, 114: repr, 97: ascii}.get(node.conversion, lambda v: v)(inner)
        return format(inner, spec)
    if isinstance(node, ast.Tuple | ast.List):
        items = [value(element) for element in node.elts]
        return UNKNOWN if UNKNOWN in items else (tuple if isinstance(node, ast.Tuple) else list)(items)
    if isinstance(node, ast.UnaryOp):
        operand = value(node.operand)
        if operand is UNKNOWN:
            truth_ = truth(node.operand)
            return (not truth_) if isinstance(node.op, ast.Not) and truth_ is not None else UNKNOWN
        return _UNARY[type(node.op)](operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = value(node.left), value(node.right)
        if UNKNOWN in (left, right):
            return UNKNOWN
        big = any(isinstance(v, int) and abs(v) > _LIMIT for v in (left, right))
        if isinstance(node.op, ast.Pow | ast.Mult) and big:
            return UNKNOWN
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):
        values = [value(operand) for operand in node.values]
        if UNKNOWN in values:
            return UNKNOWN
        result = values[0]
        for item in values[1:]:
            result = (result or item) if isinstance(node.op, ast.Or) else (result and item)
        return result
    if isinstance(node, ast.Compare):
        operands = [value(node.left), *(value(c) for c in node.comparators)]
        if UNKNOWN in operands:
            return UNKNOWN
        return all(_COMPARE[type(op)](a, b) for op, a, b in zip(node.ops, operands, operands[1:], strict=False))
    if isinstance(node, ast.IfExp):
        test = truth(node.test)
        return UNKNOWN if test is None else value(node.body if test else node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PURE and not node.keywords:
        args = [value(arg) for arg in node.args]
        return UNKNOWN if UNKNOWN in args else PURE[node.func.id](*args)
    return UNKNOWN


def truth(node: ast.expr) -> bool | None:
    """Whether ``node`` is true, when no computed value can change it; None when one can."""
    known = value(node)
    if known is not UNKNOWN:
        try:
            return bool(known)
        except Exception:
            return None
    if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
        return bool(node.elts if not isinstance(node, ast.Dict) else node.keys)  # a non-empty container
    if isinstance(node, ast.JoinedStr) and any(isinstance(p, ast.Constant) and p.value for p in node.values):
        return True  # an f-string with text of its own is never empty
    if isinstance(node, ast.Lambda):
        return True
    if isinstance(node, ast.BoolOp):
        truths = [truth(operand) for operand in node.values]
        decisive = isinstance(node.op, ast.Or)  # True decides an "or", False an "and"
        if decisive in truths:
            return decisive
        return (not decisive) if all(t is (not decisive) for t in truths) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Is | ast.IsNot):
        left, right = node.left, node.comparators[0]
        if isinstance(left, ast.Name) and isinstance(right, ast.Name) and left.id == right.id:  # ``x is x``
            return isinstance(node.ops[0], ast.Is)
    if isinstance(node, ast.IfExp):
        body, orelse = truth(node.body), truth(node.orelse)
        test = truth(node.test)
        if test is not None:
            return body if test else orelse
        return body if body is not None and body == orelse else None
    return None


def from_literals(node: ast.expr, modules: set[str]) -> bool:
    """Whether ``node`` is built from literals alone through calls of imported modules (``modules``: the
    local names that ``import`` and ``from ... import`` statements bind) and of what those calls return:
    ``torch.tensor(False).item()``, ``torch.ones(3) + 1``, ``str(torch.zeros(2))``, ``torch.float32``.
    A name the code bound (``a``), a call without arguments of a module (``torch.is_grad_enabled()``,
    which reads state) or anything else that is not built from literals makes it computed."""
    if value(node) is not UNKNOWN:
        return True
    if isinstance(node, ast.Attribute):
        return _module_path(node, modules) or from_literals(node.value, modules)
    if isinstance(node, ast.Call):
        arguments = [arg.value if isinstance(arg, ast.Starred) else arg for arg in node.args]
        arguments += [keyword.value for keyword in node.keywords]
        if not all(from_literals(arg, modules) for arg in arguments):
            return False
        func = node.func
        if isinstance(func, ast.Name):  # a pure built-in, or a name imported from a module
            return (func.id in PURE or func.id in modules) and bool(arguments)
        if isinstance(func, ast.Attribute):
            if _module_path(func, modules):
                return bool(arguments)  # a module's call on literals, not a read of its state
            return from_literals(func.value, modules)  # a method of a value built from literals
        return False
    if isinstance(node, ast.Subscript):
        return from_literals(node.value, modules) and from_literals(node.slice, modules)
    parts = {ast.BinOp: ("left", "right"), ast.UnaryOp: ("operand",), ast.BoolOp: ("values",),
             ast.Compare: ("left", "comparators"), ast.IfExp: ("test", "body", "orelse"),
             ast.Tuple: ("elts",), ast.List: ("elts",), ast.JoinedStr: ("values",),
             ast.FormattedValue: ("value",), ast.Slice: ("lower", "upper", "step")}  # fmt: skip
    if type(node) in parts:
        children = [child for field in parts[type(node)] for child in _as_list(getattr(node, field))]
        return all(from_literals(child, modules) for child in children)
    return False


def _as_list(field) -> list:
    return [item for item in (field if isinstance(field, list) else [field]) if item is not None]


def _module_path(node: ast.expr, modules: set[str]) -> bool:
    """``torch.nn.functional.relu``: a dotted path that starts at an imported module's name."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in modules
