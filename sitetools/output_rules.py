"""Every printed line comes from computation, whatever the spelling of the print.

:mod:`sitetools.pages` refuses ``print("literal")``. A page can print the same invented line in other
ways: ``sys.stdout.write("b: tensor(...)")``, ``show = print``, ``exec('print(...)')``,
``print("same storage:", not False)``, ``print("a" + "b")``, an f-string of constants, or
``print(end="tensor(...)")``; or it can print a value that changes from run to run (the hour, a process
id). This module holds every way out to the same rule, on the whole script (hidden blocks included):

- ``print`` is the one way to write output: no ``sys.stdout``/``sys.stderr`` (nor their ``__`` twins),
  no ``os.write``, no ``print(file=...)``, and ``print`` is only ever called, never named as a value
  (an alias, ``map(print, ...)``, ``builtins.print``);
- no ``exec``, ``eval``, ``compile`` or ``__import__``: code in a string is code no rule reads. The one
  exception is ``compile`` in the body of a must-raise block (showing that code does not compile):
  nothing it makes can run;
- an argument of ``print`` that constants alone decide (:func:`sitetools.folding.value`) is text: a
  string, or an f-string laying out strings (a label, a unit, a column). Anything else made of constants
  (``not False``, ``"a" + "b"``, ``f"{True}"``, ``3``) is refused, and so is a print of text alone
  however it is spelled, and an argument that a library call on literals decides
  (``torch.tensor(False).item()``: :func:`sitetools.folding.from_literals`); ``sep`` and ``end`` hold
  only spaces, punctuation or line breaks;
- no call that returns something different on every run: the clock (``time``, ``datetime``), process
  ids, ``uuid``, ``secrets``, ``os.urandom``, the unseeded ``random`` module (``random.seed`` with a
  constant seed, visible on the page, allows it). ``time.sleep`` returns nothing and stays allowed.
"""

from __future__ import annotations

import ast
import re

from sitetools import folding
from sitetools.rerun_checks import is_must_raise

#: Modules whose calls change from run to run; ``module -> calls that do not``.
VOLATILE_MODULES = {"time": {"sleep"}, "datetime": set(), "uuid": set(), "secrets": set()}
#: Calls of ``os`` that change from run to run.
VOLATILE_OS = {"getpid", "getppid", "urandom", "times", "getloadavg"}
STREAMS = {"stdout", "stderr", "__stdout__", "__stderr__"}
WRITE = {"write"}  # os.write: bytes to a file descriptor, round print()
CODE_FROM_TEXT = {"exec", "eval", "compile", "__import__"}
#: What ``sep`` and ``end`` may hold: no letter, no digit.
SEPARATOR = re.compile(r"[^\w]*")
GUIDE = "(see CONTRIBUTING.md, 'Printing')"


def _modules(tree: ast.AST) -> dict[str, str]:
    """Local name -> module, for ``import time``, ``import datetime as dt``, ``import os``."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.split(".")[0]] = alias.name.split(".")[0]
    return found


def _seeded(tree: ast.AST, name: str) -> bool:
    """``name.seed(<constant>)`` appears in the code."""
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "seed"
        and isinstance(node.func.value, ast.Name) and node.func.value.id == name
        and len(node.args) == 1 and folding.value(node.args[0]) is not folding.UNKNOWN
        for node in ast.walk(tree)
    )  # fmt: skip


def _layout_text(arg: ast.expr) -> bool:
    """A string constant, or an f-string that only lays out string constants (``f"{'line':41}"``)."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, str)
    return isinstance(arg, ast.JoinedStr) and all(
        isinstance(part, ast.Constant) or (isinstance(part.value, ast.Constant) and isinstance(part.value.value, str))
        for part in arg.values
    )  # fmt: skip


def _plain(arg: ast.expr) -> bool:
    """What :func:`sitetools.pages.literal_prints` already refuses when a print holds nothing else."""
    return isinstance(arg, ast.Constant) or (
        isinstance(arg, ast.JoinedStr) and all(isinstance(part, ast.Constant) for part in arg.values))


def _print_argument_problems(call: ast.Call, modules: set[str]) -> list[str]:
    found = []
    args = [arg.value if isinstance(arg, ast.Starred) else arg for arg in call.args]
    constant = [folding.value(arg) is not folding.UNKNOWN for arg in args]
    for arg, fixed in zip(args, constant, strict=True):
        if fixed and not _layout_text(arg):
            found.append(f"prints `{ast.unparse(arg)}`, which constants alone decide; print what the code computed")
        elif not fixed and folding.from_literals(arg, modules):
            found.append(f"prints `{ast.unparse(arg)}`, which literals alone decide (a library called on "
                         "constants); print a value the page's code computed and named")
    if args and len(args) == len(call.args) and all(constant) and not found and not all(map(_plain, args)):
        found.append(f"prints only text that constants decide (`{ast.unparse(call)}`); a printed value must be "
                     "computed by the code")
    for keyword in call.keywords:
        if keyword.arg == "file":
            found.append("prints to a file other than the page's output (`file=`)")
        elif keyword.arg in ("sep", "end"):
            text = folding.value(keyword.value)
            if text is folding.UNKNOWN or not isinstance(text, str) or not SEPARATOR.fullmatch(text):
                found.append(f"passes `{keyword.arg}={ast.unparse(keyword.value)}`; sep and end may hold only "
                             f"spaces, punctuation or line breaks")
    return found


def problems(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, problem) for every way the code writes output that it did not compute."""
    modules = _modules(tree)
    imported = set(modules) | {alias.asname or alias.name for node in ast.walk(tree)
                               if isinstance(node, ast.ImportFrom) for alias in node.names}  # fmt: skip
    found: list[tuple[int, str]] = []
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    must_fail = {id(inner) for node in ast.walk(tree) if is_must_raise(node)
                 for statement in node.body for inner in ast.walk(statement)}  # fmt: skip
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id == "print" and id(node) not in called:
                found.append((line, "names `print` as a value (an alias or an argument); call print() itself"))
            elif node.id in CODE_FROM_TEXT and not (node.id == "compile" and id(node) in must_fail):
                found.append((line, f"uses {node.id}(): code held in a string escapes every page rule"))
            elif node.id in ("__builtins__", "globals", "locals", "vars"):
                found.append((line, f"reaches the namespace through `{node.id}`, around the page rules"))
        elif isinstance(node, ast.Attribute):
            base = node.value.id if isinstance(node.value, ast.Name) else None
            module = modules.get(base or "")
            if node.attr in STREAMS:
                found.append((line, f"writes through `{ast.unparse(node)}`; print() is the one way to output"))
            elif node.attr == "print" or (module == "builtins"):
                found.append((line, f"reaches `{ast.unparse(node)}`; call print() itself"))
            elif module == "os" and node.attr in VOLATILE_OS | WRITE:
                found.append((line, f"calls `{ast.unparse(node)}`, which differs from run to run or writes "
                                    "around print()"))
            elif module in VOLATILE_MODULES and node.attr not in VOLATILE_MODULES[module]:
                found.append((line, f"uses `{ast.unparse(node)}`, which differs from run to run"))
            elif module == "random" and not _seeded(tree, base):
                found.append((line, f"uses `{ast.unparse(node)}` without `{base}.seed(<constant>)` on the page"))
            elif node.attr == "SystemRandom":
                found.append((line, "uses SystemRandom, which no seed repeats"))
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            names = {alias.name for alias in node.names}
            if top in VOLATILE_MODULES and names - VOLATILE_MODULES[top]:
                found.append((line, f"imports {', '.join(sorted(names))} from {node.module}, which differ from "
                                    "run to run"))
            elif top in ("builtins", "random") or (top in ("sys", "os") and names & (STREAMS | VOLATILE_OS | WRITE)):
                found.append((line, f"imports {', '.join(sorted(names))} from {node.module}; use the module's name"))
        elif isinstance(node, ast.Import) and any(alias.name == "builtins" for alias in node.names):
            found.append((line, "imports builtins, around the page rules"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found += [(line, problem) for problem in _print_argument_problems(node, imported)]
    return sorted(set(found))


def check_source(where: str, source: str) -> list[str]:
    """The rules of this module for one script's text; each problem names the file and line."""
    tree = ast.parse(source, where)
    return [f"{where}, line {line}: {problem} {GUIDE}" for line, problem in problems(tree)]
