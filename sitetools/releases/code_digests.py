"""Digests of the code each check runs, as the records of other torch releases name it.

A record of another torch release (:mod:`sitetools.releases.record`) gives each check's result; it gives the
result of the check as it is now only where the code the check runs is the code that ran then. This module
names that code by a digest, so that :mod:`sitetools.releases.records` can tell which checks ran in another
form:

- a page: the code of its cells as the rerun cell of its download runs it (its hidden checks included), comments
  and the checks' messages left out (:func:`page_digest`); the pages define every helper they use;
- a named fact, a claim of the ledger or a computed table (matrix, views, saved): the code of its function
  (a scoped fact: its observation, its expectation and the range of cases it asks for; a table: the function
  that probes every cell) and all the site's code that this code names, followed name by name through
  functions, classes, the module-level statements that bind or change a value it reads, the attributes of
  ``self`` a bound method reads, and the facts it runs by their id (:func:`closure_digest`). Code outside the
  project (torch, the standard library) is what is being checked, not part of a digest. Docstrings, comments and
  the decorators that register a fact or a claim (their ids and texts, in every language) are left out: a change
  there changes no result.

Following names is a static reading: a call that reaches code no name in the closure leads to (a function
looked up from a string other than a fact id) is missed. The site's checks call their helpers by name.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import sys
import textwrap
import types
from collections.abc import Callable, Iterable
from pathlib import Path

#: The decorators that register a check under an id with its texts: the id and texts are not code that runs.
REGISTERING = {"fact", "scoped_fact", "claim"}
#: The computed tables, each by the module and the function that probe every cell.
TABLES = {"matrix": ("tensorfacts.probes", "probe_all"), "views": ("tensorfacts.view_ops", "probe_all"),
          "saved": ("tensorfacts.saved_ops", "probe_all")}  # fmt: skip


def _hash(texts: Iterable[str]) -> str:
    return hashlib.sha256("\n\0\n".join(sorted(set(texts))).encode("utf-8")).hexdigest()[:16]


def _strip(tree: ast.AST) -> ast.AST:
    """``tree`` without docstrings, the decorators that register a check, and the messages of its ``assert`` and
    ``raise`` statements (a message is read only where the check fails or the code raises)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(
                    body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            node.decorator_list = [d for d in node.decorator_list if not _registering(d)]
        if isinstance(node, ast.Assert):
            node.msg = None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            node.exc.args, node.exc.keywords = [], []
    return tree


def _registering(decorator: ast.expr) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in REGISTERING


def page_digest(code: str) -> str:
    """A digest of a page's code as its download's rerun cell runs it: comments and the checks' messages left
    out (a message is read only when its check fails)."""
    return _hash([ast.unparse(_strip(ast.parse(code)))])


def _names(tree: ast.AST) -> tuple[list[tuple[str, tuple[str, ...]]], set[str]]:
    """The names ``tree`` reads, each with the attributes read from it (``src.LOOP``: ``("src", ("LOOP",))``),
    and its string constants."""
    names, strings, bases = [], set(), set()
    for node in ast.walk(tree):  # an attribute is met before the name it is read from
        if isinstance(node, ast.Attribute):
            chain, base = [], node
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name):
                names.append((base.id, tuple(reversed(chain))))
                bases.add(id(base))
        elif isinstance(node, ast.Name) and id(node) not in bases:
            names.append((node.id, ()))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
    return names, strings


@functools.cache
def _module(path: str) -> tuple[ast.Module, dict[tuple[str, int], list[ast.AST]]]:
    """A file's tree, and its functions and lambdas by the name and first line their code object has (taken before
    any part of the tree is read: reading strips the parts in place)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    found: dict[tuple[str, int], list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            name = "<lambda>" if isinstance(node, ast.Lambda) else node.name
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            found.setdefault((name, first), []).append(node)
    return tree, found


#: What a piece of code reads: its text (normalised), the names it reads and its string constants.
Read = tuple[str, tuple[tuple[str, tuple[str, ...]], ...], frozenset[str]]


def _read(node: ast.AST) -> Read:
    """``node`` read: stripped in place (:func:`_strip`, which a second time changes nothing), then written out."""
    tree = _strip(node)
    names, strings = _names(tree)
    return ast.unparse(tree), tuple(names), frozenset(strings)


@functools.cache
def _function_reads(path: str, name: str, first: int) -> tuple[Read, ...]:
    """Each function (several lambdas on one line: each of them) that a code object names."""
    return tuple(_read(node) for node in _module(path)[1].get((name, first), []))


@functools.cache
def _class_read(cls: type) -> Read:
    return _read(ast.parse(textwrap.dedent(inspect.getsource(cls))))


@functools.cache
def _self_attributes(func: types.FunctionType) -> tuple[str, ...]:
    names, _ = _names(ast.parse(textwrap.dedent(inspect.getsource(func))))
    return tuple(sorted({attrs[0] for name, attrs in names if name == "self" and attrs}))


@functools.cache
def _statements_of(path: str, name: str) -> tuple[tuple[str, object], ...]:
    """The module-level statements of a file (no function or class) that bind, read or change ``name``: each an
    import (``("import", (module, original name))``, ``module`` None for ``import x``) or code (``("code",
    Read)``)."""
    found = []
    for statement in _module(path)[0].body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    module = statement.module if isinstance(statement, ast.ImportFrom) and not statement.level \
                        else None  # fmt: skip
                    found.append(("import", (module, alias.name)))
        elif any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(statement)):
            found.append(("code", _read(statement)))
    return tuple(found)


@functools.cache
def _in_project(root: Path, path: str | None) -> bool:
    if not path or not Path(path).is_file():
        return False
    resolved = Path(path).resolve()
    return resolved.is_relative_to(root) and not any(part.startswith(".") for part in resolved.relative_to(root).parts)


class Closure:
    """The site's code that a set of roots runs, gathered name by name; :meth:`digest` names it."""

    def __init__(self, root: Path, facts: dict[str, Callable] | None = None, scopes: dict | None = None):
        self.root = root.resolve()
        self.facts, self.scopes = facts or {}, scopes or {}
        self.parts: set[str] = set()
        self.seen: set[object] = set()

    def digest(self) -> str:
        return _hash(self.parts)

    def ours(self, thing: object) -> bool:
        """Whether ``thing`` (a function, class or module) is the site's code: a file of the project, not of an
        environment in a hidden folder of it (``.nox``)."""
        if isinstance(thing, types.FunctionType):
            path = thing.__code__.co_filename
        elif isinstance(thing, type):
            path = getattr(sys.modules.get(thing.__module__), "__file__", None)
        else:
            path = getattr(thing, "__file__", None)
        return _in_project(self.root, path)

    # --- what runs -----------------------------------------------------------------------------------------

    def add(self, thing: object) -> None:
        """A function, bound method, class, ``functools.partial`` or fact id, and what it names."""
        if isinstance(thing, str):
            self.add_fact(thing)
        elif isinstance(thing, types.MethodType):
            self.add(thing.__func__)
            if self.ours(thing.__func__):
                self.add_self(thing.__func__, thing.__self__)
        elif isinstance(thing, functools.partial):
            self.add(thing.func)
            self.add_value(thing.args, "partial args")
            self.add_value(thing.keywords, "partial keywords")
        elif isinstance(thing, (types.FunctionType, type)):
            thing = inspect.unwrap(thing) if isinstance(thing, types.FunctionType) else thing
            if thing in self.seen or not self.ours(thing):
                return
            self.seen.add(thing)
            if isinstance(thing, type):
                self.add_read(_class_read(thing), sys.modules.get(thing.__module__), {})
            else:
                self.add_function(thing)

    def add_fact(self, fact_id: str) -> None:
        if fact_id not in self.facts or ("fact", fact_id) in self.seen:
            return
        self.seen.add(("fact", fact_id))
        parts = self.scopes.get(fact_id)
        if parts is None:
            self.add(self.facts[fact_id])
            return
        import tensorfacts.scope as scope  # the one of the code being read

        devices = parts.devices if parts.devices != scope.DEVICES else "every device"
        self.parts.add(f"scoped fact range: {(parts.sources, parts.dtypes, devices)!r}")
        for thing in (parts.check, parts.expect, type(parts)):
            self.add(thing)

    def add_function(self, func: types.FunctionType) -> None:
        code = func.__code__
        reads = _function_reads(code.co_filename, code.co_name, code.co_firstlineno)
        if not reads:  # not found in its file: its text as inspect gives it
            reads = (_read(ast.parse(textwrap.dedent(inspect.getsource(func)))),)
        free = {}
        for name, cell in zip(code.co_freevars, func.__closure__ or (), strict=True):
            try:
                free[name] = cell.cell_contents
            except ValueError:  # a cell not filled yet
                continue
        for read in reads:
            self.add_read(read, sys.modules.get(func.__module__), free)

    def add_self(self, func: types.FunctionType, instance: object) -> None:
        """The attributes of ``self`` that the method ``func`` reads, as ``instance`` holds them."""
        fields = getattr(instance, "__dict__", {})
        for attr in _self_attributes(func):
            if attr in fields:
                self.add_value(fields[attr], f"self.{attr}")
            elif isinstance(inspect.getattr_static(instance, attr, None), types.MemberDescriptorType):  # a slot
                self.add_value(getattr(instance, attr, None), f"self.{attr}")
            # else the class's code (a method, a property), read with the class

    def add_read(self, read: Read, module: types.ModuleType | None, free: dict[str, object]) -> None:
        text, names, strings = read
        self.parts.add(text)
        for fact_id in strings:
            self.add_fact(fact_id)
        for name, attrs in names:
            if name in free:
                self.add_value(free[name], name)
            elif module is not None and name in vars(module):
                self.add_bound(module, name, attrs)

    def add_bound(self, module: types.ModuleType, name: str, attrs: tuple[str, ...]) -> None:
        """A name of ``module`` that some code reads (with the attributes it reads from it)."""
        value = vars(module).get(name)
        if isinstance(value, types.ModuleType):
            if not self.ours(value):
                return
            if attrs and attrs[0] in vars(value):
                self.add_bound(value, attrs[0], attrs[1:])
            elif ("module", value.__name__) not in self.seen:  # the module itself is read: all of it
                self.seen.add(("module", value.__name__))
                self.add_read(_read(_module(value.__file__)[0]), value, {})
            return
        if isinstance(value, (types.FunctionType, types.MethodType, type, functools.partial)):
            self.add(value)
            return
        if ("name", module.__name__, name) in self.seen or not self.ours(module):
            return
        self.seen.add(("name", module.__name__, name))
        statements = _statements_of(module.__file__, name)
        for kind, found in statements:
            if kind == "code":
                self.add_read(found, module, {})
                continue
            source, original = found
            source = sys.modules.get(source) if source else None
            if source is not None and self.ours(source) and original in vars(source):
                self.add_bound(source, original, attrs)
        if not statements:
            self.add_value(value, name)

    def add_value(self, value: object, name: str) -> None:
        """A value with no statement of its own to read (a closure's cell, an attribute of an instance): its
        repr, and the site's code in it."""
        self.parts.add(f"{name} = {self.describe(value)}")

    def describe(self, value: object, depth: int = 0) -> str:
        if depth > 8:
            return "…"
        if isinstance(value, (types.FunctionType, types.MethodType, type, functools.partial)):
            self.add(value)
            return f"<{getattr(value, '__qualname__', type(value).__name__)}>"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{self.describe(k, depth + 1)}: {self.describe(v, depth + 1)}"
                                   for k, v in value.items()) + "}"  # fmt: skip
        if isinstance(value, (list, tuple, set, frozenset)):
            items = [self.describe(v, depth + 1) for v in value]
            items = sorted(items) if isinstance(value, (set, frozenset)) else items
            return f"{type(value).__name__}({', '.join(items)})"
        if self.ours(type(value)):
            self.add(type(value))
            return f"{type(value).__qualname__}({self.describe(getattr(value, '__dict__', {}), depth + 1)})"
        text = repr(value)
        return type(value).__qualname__ if " at 0x" in text else text


def closure_digest(roots: Iterable[object], root: Path, facts: dict | None = None, scopes: dict | None = None) -> str:
    """The digest of ``roots`` (functions, classes, bound methods, fact ids) and the site's code they name."""
    closure = Closure(root, facts, scopes)
    for thing in roots:
        closure.add(thing)
    return closure.digest()


def _project() -> tuple[Path, dict, dict]:
    """The folder of the code being read, with its facts (every fact registered) and scoped facts."""
    import tensorfacts
    import tensorfacts.facts  # noqa: F401  (registers every fact)
    from tensorfacts import fact_registry

    return Path(tensorfacts.__file__).resolve().parents[1], fact_registry.FACTS, getattr(fact_registry, "SCOPES", {})


def fact_codes() -> dict[str, str]:
    """Every fact of the site with the digest of the code it runs now."""
    root, facts, scopes = _project()
    return {fact_id: closure_digest([fact_id], root, facts, scopes) for fact_id in facts}


def claim_codes() -> dict[str, str]:
    """Every claim of the ledger with the digest of the code its check runs now."""
    from tensorfacts import articles

    root, facts, scopes = _project()
    return {claim_id: closure_digest([check], root, facts, scopes) for claim_id, check in articles.CHECKS.items()}


def table_codes() -> dict[str, str]:
    """Every computed table with the digest of the code that probes its cells now."""
    import importlib

    root, facts, scopes = _project()
    return {table: closure_digest([getattr(importlib.import_module(module), function)], root, facts, scopes)
            for table, (module, function) in TABLES.items()}  # fmt: skip


def page_codes_of(scripts: dict[str, Path]) -> dict[str, str]:
    """The digest of each page's code (``scripts``: the page's name -> its script in the first edition): the text
    cells are comments and the docstring, which the digest leaves out, so it is that of the code cells."""
    return {name: page_digest(script.read_text(encoding="utf-8")) for name, script in scripts.items()}


def page_codes() -> dict[str, str]:
    """Every page with the digest of its code now."""
    from sitetools.rules.checks_manifest import scripts

    return page_codes_of(scripts("en"))

