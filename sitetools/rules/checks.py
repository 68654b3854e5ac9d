"""Every check a page reports can fail, and runs where a reader can see what it checks.

:mod:`sitetools.rules.checks_manifest` keeps the list of a page's checks; this module refuses the ways to keep
a check on the list while making it say nothing (the build also records each check as it runs, see
:mod:`sitetools.guard.check_runs`):

- a condition that constants alone decide (``assert True or x``, ``assert (a, "message")``,
  ``assert x is x``; :func:`sitetools.rules.folding.truth`);
- a block that never runs (``if False:``, ``while 0:``) and a ``try`` that swallows a failed assert
  (``except AssertionError``, ``Exception``, ``BaseException`` or a bare ``except`` around an
  ``assert``, or ``contextlib.suppress`` of one of them);
- a ``try`` at page level (outside a function) that is not the must-raise idiom, ``except E as e:
  print(...)`` then ``else: raise AssertionError(...)``: one that passes when nothing raises says nothing;
- a hidden block that could change what the page shows. Besides the rules of :mod:`sitetools.rules.sources`
  (no print, no in-place method ``*_()``, no assignment to an attribute or element), a hidden block
  makes no write of any spelling: no call of a dunder method (``t.__iadd__(1)``), no ``out=``, no ``inplace=``
  other than ``False`` (``nn.ReLU(inplace=True)``) but on tensors the hidden code made, no
  ``setattr``/``delattr``/``getattr`` of a method, no augmented assignment (``t += 1`` edits a tensor in
  place), no ``del`` of an element or attribute; a handle on a tensor's memory (``.numpy()``,
  ``.data``, ``__array__``, ``memoryview``, ``np.asarray``) is only passed, compared or read, never
  bound to a name or called upon but to copy it; of NumPy only the functions of :data:`HIDDEN_NUMPY`,
  which write none of their arguments (``np.multiply(x, 0, x)`` writes its third); and the methods
  that write through their object without a trailing ``_`` (:data:`WRITERS`: NumPy's ``fill`` or
  ``sort``, a list's ``append``, ``backward``, an optimizer's ``step``) only on objects the hidden code
  made itself.
"""

from __future__ import annotations

import ast

from sitetools.releases.rerun_cell import is_must_raise
from sitetools.rules import folding, syntax
from sitetools.rules.sources import split_hidden

GUIDE_CHECKS = "(see CONTRIBUTING.md, 'Checks behind the prose')"
GUIDE_HIDDEN = "(see CONTRIBUTING.md, 'Hidden checks')"
SWALLOWS = {"AssertionError", "Exception", "BaseException"}
#: NumPy in a hidden block: functions that read their arguments and write none, and dtypes.
HIDDEN_NUMPY = frozenset({"asarray", "array", "array_equal", "allclose", "shares_memory", "may_share_memory",
                          "float16", "float32", "float64", "int32", "int64", "bool_", "complex64",
                          "__version__"})  # fmt: skip  (a check that holds from NumPy 2 on reads the version)
#: What hands out a tensor's memory as an object whose writes are not tensor methods ending in ``_``.
HANDLE_METHODS = frozenset({"numpy", "__array__", "__dlpack__", "__array_interface__", "ctypes"})
HANDLE_ATTRIBUTES = frozenset({"data"})
HANDLE_NUMPY = frozenset({"asarray", "array"})
#: What a hidden block may call on a handle: copies.
HANDLE_READS = frozenset({"copy", "tolist", "clone", "item"})
#: Methods that write through their object though their names do not end in ``_``: NumPy's in-place
#: methods, Python's containers, autograd and optimizers.
WRITERS = frozenset({
    "fill", "put", "itemset", "sort", "partition", "resize", "setfield", "setflags", "byteswap", "copyto",
    "place", "putmask", "at", "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
    "popitem", "discard", "reverse", "backward", "step", "zero_grad", "retain_grad", "register_hook",
    "load_state_dict", "apply", "train", "eval",
})  # fmt: skip


def _catches(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in SWALLOWS for t in types)


def _has_assert(statements: list[ast.stmt]) -> bool:
    return any(isinstance(node, ast.Assert) for statement in statements for node in syntax.walk(statement))


def _suppresses(item: ast.withitem) -> bool:
    call = item.context_expr
    name = call.func.attr if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) else (
        call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else "")
    return name == "suppress" and any(isinstance(a, ast.Name) and a.id in SWALLOWS for a in call.args)


def loose_trys(tree: ast.AST) -> list[int]:
    """Lines of the ``try`` statements outside functions that are not the must-raise idiom: at page level,
    ``try`` means "this must raise" (a function may catch, to show either outcome)."""
    functions = [node for node in syntax.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    in_functions = {id(node) for function in functions for node in syntax.walk(function)}
    return [node.lineno for node in syntax.walk(tree)
            if isinstance(node, ast.Try) and id(node) not in in_functions and not is_must_raise(node)]


def check_problems(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, problem) for each check that cannot fail, each block that hides a failure, and each page-level
    ``try`` that is not the must-raise idiom."""
    found = [(line, "a try at page level means \"this must raise\": `except E as e: print(...)`, then "
                    "`else: raise AssertionError(...)`; to show either outcome, catch inside a function")
             for line in loose_trys(tree)]
    for node in syntax.walk(tree):
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
        said = ast.unparse(node.msg) if isinstance(node, ast.Assert) and node.msg else ""
        if isinstance(node, ast.Assert) and _starts_apart(node.test) and "storage" not in said:
            found.append((node.lineno, "`not same_storage(...)` says two storages start at different addresses, "
                                       "not that no memory is shared (an alias can start inside its source's "
                                       "storage): assert bytes_apart(...), or say in the message that the check is "
                                       "of storages"))
    return found


def _starts_apart(test: ast.expr) -> bool:
    """Whether ``test`` negates ``same_storage(...)``, alone or as ``not any(same_storage(...) ...)``."""
    def negated(node):
        return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Call)
    return any(negated(node) and any(isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                                     and call.func.id == "same_storage" for call in ast.walk(node.operand))
               for node in ast.walk(test))


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in syntax.walk(tree) for child in ast.iter_child_nodes(node)}


def _root(node: ast.expr) -> ast.expr:
    """The object an attribute chain starts from: ``torch`` for ``torch.utils.data``."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _imported(tree: ast.AST, module: str | None = None) -> set[str]:
    """Names ``import`` binds in the page (of ``module`` only, if given)."""
    return {alias.asname or alias.name.split(".")[0] for node in syntax.walk(tree) if isinstance(node, ast.Import)
            for alias in node.names if module in (None, alias.name)}  # fmt: skip


def _hidden_made(tree: ast.AST, hidden: set[int]) -> set[str]:
    """Names a hidden statement binds (its functions' locals and parameters included)."""
    names = set()
    for node in syntax.walk(tree):
        if getattr(node, "lineno", None) not in hidden:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def _handle(node: ast.AST, numpy: set[str], modules: set[str]) -> str | None:
    """What makes ``node`` a handle on a tensor's memory, or None."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in HANDLE_METHODS:
            return f".{func.attr}()"
        if isinstance(func, ast.Attribute) and func.attr in HANDLE_NUMPY and isinstance(func.value, ast.Name) \
                and func.value.id in numpy:
            return f"np.{func.attr}()"
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in HANDLE_ATTRIBUTES:
        root = _root(node.value)
        if not (isinstance(root, ast.Name) and root.id in modules):  # torch.utils.data is a module
            return f".{node.attr}"
    return None


def _handle_problem(node: ast.AST, parents: dict[int, ast.AST]) -> str | None:
    """How a handle is used, if it is used other than passed, compared, read or copied."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and node is not parent.func or isinstance(parent, ast.Compare | ast.Expr):
        return None
    if isinstance(parent, ast.keyword | ast.BoolOp | ast.UnaryOp):
        return None
    if isinstance(parent, ast.Attribute):
        above = parents.get(id(parent))
        called = isinstance(above, ast.Call) and above.func is parent
        if not called or parent.attr in HANDLE_READS:
            return None
        return f"calls {parent.attr}() on it"
    return f"uses it as `{ast.unparse(parent)[:60]}`" if parent is not None else "binds it"


def hidden_problems(tree: ast.AST, hidden: set[int]) -> list[tuple[int, str]]:
    """(line, problem) for what a hidden line does that could change what the page shows, beyond
    :func:`sitetools.rules.sources._hidden_effects`."""
    found = []
    parents, made = _parents(tree), _hidden_made(tree, hidden)
    numpy, modules = _imported(tree, "numpy"), _imported(tree)
    for node in syntax.walk(tree):
        line = getattr(node, "lineno", None)
        if line not in hidden:
            continue
        handle = _handle(node, numpy, modules)
        if handle and (problem := _handle_problem(node, parents)):
            found.append((line, f"takes a handle on a tensor's memory ({handle}) and {problem}; pass it, compare "
                                "it or copy it"))
        if isinstance(node, ast.AugAssign):
            found.append((line, f"edits in place (`{ast.unparse(node)}`)"))
        elif isinstance(node, ast.Delete) and any(isinstance(t, ast.Attribute | ast.Subscript) for t in node.targets):
            found.append((line, "deletes an attribute or an element"))
        elif isinstance(node, ast.For | ast.comprehension) and any(
                isinstance(t, ast.Attribute | ast.Subscript) for t in syntax.walk(node.target)):
            found.append((line, "assigns to an attribute or an element (a loop's target)"))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in numpy \
                and node.attr not in HIDDEN_NUMPY:
            found.append((line, f"uses numpy.{node.attr}; of NumPy a hidden block may use only "
                                f"{', '.join(sorted(HIDDEN_NUMPY))}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy":
            found.append((line, "imports names from numpy; use the module's name"))
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr.startswith("__") and func.attr.endswith("__"):
            found.append((line, f"calls the dunder method {func.attr}(), which can change a value in place"))
        elif isinstance(func, ast.Name) and func.id in ("setattr", "delattr", "memoryview"):
            found.append((line, f"calls {func.id}()"))
        elif isinstance(func, ast.Name) and func.id == "getattr" and not _reads_attribute(node):
            found.append((line, f"calls `{ast.unparse(node)[:60]}`, which may reach a method that writes"))
        elif isinstance(func, ast.Attribute) and func.attr in WRITERS:
            names = {n.id for n in syntax.walk(func.value) if isinstance(n, ast.Name)} - modules
            if not names or not names <= made:
                found.append((line, f"calls {func.attr}(), which writes through its object, on "
                                    f"`{ast.unparse(func.value)[:60]}`, which the hidden code did not make"))
        if any(keyword.arg == "out" for keyword in node.keywords):
            found.append((line, "writes a result into an existing tensor (`out=`)"))
        if _edits_in_place(node, parents, made, modules):
            found.append((line, f"asks for an in-place edit (`{ast.unparse(node)[:60]}`) of a tensor the hidden code "
                                "did not make"))
    return found


def _edits_in_place(call: ast.Call, parents: dict[int, ast.AST], made: set[str], modules: set[str]) -> bool:
    """``inplace=`` other than ``False``, unless what it edits is named, and only by names the hidden code
    made: the call's own arguments (``relu(t, inplace=True)``) or those of the module it builds
    (``nn.ReLU(inplace=True)(t)``); a module kept to be called later is refused."""
    if not any(keyword.arg == "inplace" and not (isinstance(keyword.value, ast.Constant) and keyword.value.value
                                                   is False) for keyword in call.keywords):
        return False
    parent = parents.get(id(call))
    edited = parent.args if isinstance(parent, ast.Call) and parent.func is call else call.args
    names = {n.id for arg in edited for n in syntax.walk(arg) if isinstance(n, ast.Name)} - modules
    return not names or not names <= made


def _reads_attribute(call: ast.Call) -> bool:
    """``getattr(x, "name")`` of a constant name that is no method writing in place."""
    return (len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)
            and not call.args[1].value.endswith("_") and call.args[1].value not in WRITERS)


def check_source(where: str, source: str) -> list[str]:
    """The rules of this module for one script's text; each problem names the file and line."""
    tree = syntax.parse(source, where)
    problems = [f"{where}, line {line}: {problem} {GUIDE_CHECKS}" for line, problem in check_problems(tree)]
    hidden = split_hidden(source)[1]
    problems += [f"{where}, line {line}: a hidden block {problem}; hidden blocks may only check {GUIDE_HIDDEN}"
                 for line, problem in hidden_problems(tree, hidden)]
    return problems
