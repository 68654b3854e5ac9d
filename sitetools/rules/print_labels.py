"""A printed label says what its value is: ``print("same storage:", same_storage(a, c))``.

A label that describes a value cannot be followed by a value that says the opposite: "same storage:"
followed by ``not same_storage(a, c)``, "separate storage:" followed by ``same_storage(a, c)``,
"c is a:" followed by ``c is not a``. Such a page prints a true value under a false label, and its
asserts still pass. The rule reads each ``print(...)`` of the visible code and pairs every literal
label that ends with a colon with the argument after it (and, inside an f-string, the text before each
``{value}``), then applies the first rule below that the label matches:

- a label that is an ``is``, ``is not``, ``==`` or ``!=`` comparison in Python (``c is a``,
  ``a.data is a.data``), or one with its left side left out (``is model.weight``): the value is a
  comparison with the same operators (and the same right side, when the label names only that);
- a label that speaks of separate, own or new storage or memory: the value tests that two tensors do
  *not* share storage (``not same_storage(...)``, ``data_ptr() != ...``);
- a label that speaks of the same storage or of sharing storage or memory: the value tests that they
  do (``same_storage(...)``, ``shares(...)``, ``data_ptr() == ...``);
- a label that says "same object": the value is an ``is`` comparison.

Inside an f-string only the storage and "same object" rules apply (``f"{name} is a: {name in same}"``
is a table's column, not Python). Other labels (``a.grad:``, ``loss:``) name a value without
describing it; the rule leaves them alone.
Used by :func:`sitetools.rules.sources.check_script`.
"""

from __future__ import annotations

import ast
import re

from sitetools.rules import syntax

#: Calls that test whether two tensors (or a tensor and an array) share memory.
SHARING_CALLS = ("same_storage", "shares")

NEGATIVE_STORAGE = re.compile(r"\b(separate|own|new|different|distinct|other)\s+(storage|memory)\b"
                              r"|\bnot\s+shar|\bno\s+longer\s+shar")
POSITIVE_STORAGE = re.compile(r"\bsame\s+(storage|memory)\b|\bshar\w*\b.*\b(storage|memory)\b")
SAME_OBJECT = re.compile(r"\bsame object\b")
#: The operators a label may be written with to be read as a comparison ("c is a", "a == b").
IDENTITY = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)


def _label_pairs(call: ast.Call) -> list[tuple[str, ast.expr, bool]]:
    """(label, value, positional) for each labelled value of one ``print(...)``."""
    pairs = []
    args = call.args
    for label, value in zip(args, args[1:], strict=False):
        if isinstance(label, ast.Constant) and isinstance(label.value, str) and label.value.strip().endswith(":"):
            pairs.append((label.value, value, True))
    for arg in args:
        if isinstance(arg, ast.JoinedStr):
            for before, value in zip(arg.values, arg.values[1:], strict=False):
                if (isinstance(before, ast.Constant) and isinstance(value, ast.FormattedValue)
                        and before.value.rstrip().endswith(":")):
                    # the label is the text since the last wide gap or value
                    pairs.append((re.split(r"\s{2,}", before.value.strip())[-1], value.value, False))
    return pairs


def _calls(node: ast.expr) -> set[str]:
    names = set()
    for child in syntax.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


def _sharing(value: ast.expr) -> bool | None:
    """True when ``value`` tests that storage is shared, False when it tests that it is not, None when
    it is no such test."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        inner = _sharing(value.operand)
        return None if inner is None else not inner
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in SHARING_CALLS:
        return True
    if isinstance(value, ast.Compare) and len(value.ops) == 1 and "data_ptr" in _calls(value):
        if isinstance(value.ops[0], ast.Eq | ast.Is):
            return True
        if isinstance(value.ops[0], ast.NotEq | ast.IsNot):
            return False
    return None


def _as_comparison(text: str) -> tuple[ast.Compare, bool] | None:
    """The label as a Python comparison, and whether its left side was left out."""
    for source, partial in ((text, False), (f"_ {text}", True)):
        try:
            node = syntax.parse(source, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(node, ast.Compare) and all(isinstance(op, IDENTITY) for op in node.ops):
            return node, partial
    return None


def _ops(node: ast.Compare) -> list[str]:
    return [type(op).__name__ for op in node.ops]


def label_problem(label: str, value: ast.expr, positional: bool = True) -> str | None:
    """Why ``value`` cannot be printed under ``label`` (None: it can)."""
    text = re.sub(r"\s*\([^()]*\)$", "", label.strip().removesuffix(":").strip())  # "same storage (c, a)"
    shown = ast.unparse(value)
    if positional and (compared := _as_comparison(text)) is not None:
        node, partial = compared
        if not isinstance(value, ast.Compare) or _ops(value) != _ops(node):
            return f"the label {label.strip()!r} is a comparison; the value `{shown}` is not that comparison"
        if partial and ast.unparse(value.comparators[-1]) != ast.unparse(node.comparators[-1]):
            return f"the label {label.strip()!r} names another right side than the value `{shown}`"
        return None
    sharing = _sharing(value)
    if NEGATIVE_STORAGE.search(text):
        if sharing is not False:
            return f"the label {label.strip()!r} says the storage is not shared; the value `{shown}` does not test that"
        return None
    if POSITIVE_STORAGE.search(text):
        if sharing is not True:
            return f"the label {label.strip()!r} says the storage is shared; the value `{shown}` does not test that"
        return None
    if SAME_OBJECT.search(text) and not (isinstance(value, ast.Compare) and _ops(value) == ["Is"]):
        return f"the label {label.strip()!r} speaks of the same object; the value `{shown}` is no `is` comparison"
    return None


def problems(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, problem) for each label of the code's ``print(...)`` calls that its value contradicts."""
    found = []
    for node in syntax.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            for label, value, positional in _label_pairs(node):
                problem = label_problem(label, value, positional)
                if problem:
                    found.append((node.lineno, problem))
    return found
