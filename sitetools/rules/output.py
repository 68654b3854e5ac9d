"""Every printed line comes from computation, whatever the spelling of the print.

:mod:`sitetools.rules.sources` refuses ``print("literal")``. A page can print the same invented line in other
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
- an argument of ``print`` that constants alone decide (:func:`sitetools.rules.folding.value`) is text: a
  string, or an f-string laying out strings (a label, a unit, a column). Anything else made of constants
  (``not False``, ``"a" + "b"``, ``f"{True}"``, ``3``) is refused, and so is a print of text alone
  however it is spelled, and an argument that a library call on literals decides
  (``torch.tensor(False).item()``: :func:`sitetools.rules.folding.from_literals`); ``sep`` and ``end`` hold
  only spaces, punctuation or line breaks;
- a page imports only the modules of :data:`PAGE_IMPORTS` (an allow-list: what the pages import
  today), so the clock, the host's name, process ids and random sources have no way in, whatever their
  module (``time``, ``socket``, ``email.utils``, ``os``, ``uuid``, ``random`` ...);
- the allowed modules' machine-describing attributes (:data:`MACHINE_ATTRIBUTES`: ``sys.executable``,
  ``sys.path``, ``torch.__file__``, ``torch.__config__`` ...) are refused, and so is a module's name used
  as a value (``print(torch)`` prints the path it was loaded from; ``m = sys`` would hide the rest).
"""

from __future__ import annotations

import ast
import re

from sitetools.releases.rerun_cell import is_must_raise
from sitetools.rules import folding, syntax

#: The modules a page may import (a dotted name allows its submodules too): what the pages import
#: today. A module that is not here is refused where it is imported, with the page and the line.
#: ``tempfile`` gives a page a scratch folder of its own outside the sources, for what needs a file on
#: disk (``torch.from_file`` in questions/plot_23_processes); its names are random, so a page never
#: prints them, and the folder is removed when its ``with`` block ends. ``weakref`` shows whether a
#: tensor is still alive (questions/plot_10_graph_kept_alive), nothing about the machine; ``gc`` is there
#: for ``gc.collect()`` before such a weak reference is read, so that what only a reference cycle still
#: holds is not counted as alive.
PAGE_IMPORTS = frozenset({
    "torch", "numpy", "matplotlib.pyplot", "copy", "gc", "inspect", "io", "signal", "sys", "tempfile", "warnings",
    "weakref", "zipfile", "multiprocessing.reduction", "multiprocessing.resource_sharer",
})  # fmt: skip
#: Attributes of an allowed module that describe the machine or the build rather than the tensors: the
#: interpreter, the paths, the environment, the working directory, where a module was loaded from, how
#: torch was compiled, the machine's core count. Refused on any object reached from a module a page
#: imports.
MACHINE_ATTRIBUTES = frozenset({
    "executable", "_base_executable", "path", "prefix", "base_prefix", "exec_prefix", "base_exec_prefix",
    "platlibdir", "stdlib_module_names", "argv", "orig_argv", "flags", "version", "platform", "implementation",
    "getfilesystemencoding", "environ", "environb", "getcwd", "getcwdb", "getenv", "uname", "node",
    "gethostname", "getlogin", "home", "cwd", "get_config_var", "get_config_vars", "getfile", "getsourcefile",
    "getabsfile", "getsource", "getsourcelines", "getmodule", "currentframe", "get_dir", "get_cpu_capability",
    "get_num_threads", "get_num_interop_threads", "cpu_count", "gettempdir", "gettempdirb", "tempdir",
})  # fmt: skip
#: Attributes refused on whatever object they are read: where code, a frame or a module came from.
WHERE_FROM = frozenset({
    "__file__", "__path__", "__cached__", "__spec__", "__loader__", "__globals__", "__config__",
    "co_filename", "f_code", "f_globals", "f_builtins", "filename",
})  # fmt: skip
#: Attributes of an allowed module that reach the interpreter or the process around the page rules: the
#: module table (``sys.modules["os"]`` is any module), tracing, profiling and audit hooks (the record of the
#: checks that ran is a tracer), the signals and timers behind the page's time limit, the environment, and
#: torch's process-wide switches and module hooks, which change every later page's output.
PROCESS_REACH = frozenset({
    "modules", "gettrace", "settrace", "setprofile", "getprofile", "addaudithook", "monitoring",
    "setitimer", "getitimer", "alarm", "pthread_sigmask", "pthread_kill", "sigtimedwait", "sigwait",
    "sigwaitinfo", "pause", "set_wakeup_fd", "siginterrupt", "putenv", "unsetenv", "__future__",
})  # fmt: skip
STREAMS = {"stdout", "stderr", "__stdout__", "__stderr__"}
CODE_FROM_TEXT = {"exec", "eval", "compile", "__import__"}
#: What ``sep`` and ``end`` may hold: no letter, no digit.
SEPARATOR = re.compile(r"[^\w]*")
GUIDE = "(see CONTRIBUTING.md, 'Printing')"


def _modules(tree: ast.AST) -> dict[str, str]:
    """Local name -> module it names, for ``import torch``, ``import numpy as np``,
    ``from multiprocessing import resource_sharer`` (a module of :data:`PAGE_IMPORTS`)."""
    found = {}
    for node in syntax.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name  # import torch.multiprocessing as mp
                else:
                    found[alias.name.split(".")[0]] = alias.name.split(".")[0]  # import torch.nn binds torch
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in PAGE_IMPORTS:
                    found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _root(node: ast.expr) -> ast.expr:
    """The object an attribute chain starts from: ``torch`` for ``torch.hub.get_dir``."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def allowed_import(name: str) -> bool:
    """``name`` is a module of :data:`PAGE_IMPORTS` or one of their submodules."""
    return any(name == allowed or name.startswith(allowed + ".") for allowed in PAGE_IMPORTS)


def _import_problems(node: ast.Import | ast.ImportFrom) -> list[str]:
    """What an import brings in that a page may not use: a module off :data:`PAGE_IMPORTS`, a
    machine-describing name, or a stream (``from sys import stdout``)."""
    if isinstance(node, ast.Import):
        refused = [alias.name for alias in node.names if not allowed_import(alias.name)]
        names: list[str] = []
    else:
        module = "." * node.level + (node.module or "")
        names = [alias.name for alias in node.names]
        fits = node.level == 0 and (allowed_import(module) or all(allowed_import(f"{module}.{n}") for n in names))
        refused = [] if fits else [module]
    found = [f"imports the module {name}, which is not one a page may import (PAGE_IMPORTS in "
             "sitetools/rules/output.py: what the pages import today; the clock, the host, the environment and "
             "other values that differ from run to run or from machine to machine stay out)" for name in refused]
    found += [f"imports `{name}`, which describes the machine, not the tensors" for name in names
              if name in MACHINE_ATTRIBUTES | WHERE_FROM]  # fmt: skip
    found += [f"imports `{name}`; print() is the one way to output" for name in names if name in STREAMS | {"print"}]
    return found


def _layout_text(arg: ast.expr) -> bool:
    """A string constant, or an f-string that only lays out string constants (``f"{'line':41}"``)."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, str)
    return isinstance(arg, ast.JoinedStr) and all(
        isinstance(part, ast.Constant) or (isinstance(part.value, ast.Constant) and isinstance(part.value.value, str))
        for part in arg.values
    )  # fmt: skip


def _plain(arg: ast.expr) -> bool:
    """What :func:`sitetools.rules.sources.literal_prints` already refuses when a print holds nothing else."""
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


def _module_attribute(node: ast.AST, modules: dict[str, str]) -> bool:
    """``node`` is a chain of attributes of a module (``copy``, ``torch.nn.Parameter``), no call between."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in modules


def _patched_module(node: ast.AST, modules: dict[str, str]) -> str | None:
    """The module attribute ``node`` assigns, deletes or ``setattr``s (``copy.deepcopy = ...``,
    ``torch.nn.Parameter.__repr__ = ...``), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
        return ast.unparse(node) if node.args and _module_attribute(node.args[0], modules) else None
    if not isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
        return None
    targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
    for target in targets:
        for part in syntax.walk(target):
            if isinstance(part, ast.Attribute) and isinstance(part.ctx, ast.Store | ast.Del):
                if _module_attribute(part, modules):
                    return ast.unparse(part)
    return None


def problems(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, problem) for every way the code writes output that it did not compute."""
    modules = _modules(tree)
    imported = set(modules) | {alias.asname or alias.name for node in syntax.walk(tree)
                               if isinstance(node, ast.ImportFrom) for alias in node.names}  # fmt: skip
    found: list[tuple[int, str]] = []
    called = {id(node.func) for node in syntax.walk(tree) if isinstance(node, ast.Call)}
    must_fail = {id(inner) for node in syntax.walk(tree) if is_must_raise(node)
                 for statement in node.body for inner in syntax.walk(statement)}  # fmt: skip
    bases = {id(node.value) for node in syntax.walk(tree) if isinstance(node, ast.Attribute)}
    for node in syntax.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id == "print" and id(node) not in called:
                found.append((line, "names `print` as a value (an alias or an argument); call print() itself"))
            elif node.id in CODE_FROM_TEXT and not (node.id == "compile" and id(node) in must_fail):
                found.append((line, f"uses {node.id}(): code held in a string escapes every page rule"))
            elif node.id in ("__builtins__", "globals", "locals", "vars"):
                found.append((line, f"reaches the namespace through `{node.id}`, around the page rules"))
            elif node.id in WHERE_FROM:
                found.append((line, f"reads `{node.id}`, which describes the machine, not the tensors"))
            elif node.id in modules and id(node) not in bases:
                found.append((line, f"uses the module {modules[node.id]} as a value (its repr names the path it "
                                    "was loaded from); reach only its attributes"))
        elif isinstance(node, ast.Attribute):
            root = _root(node)
            module = modules.get(root.id) if isinstance(root, ast.Name) else None
            if node.attr in STREAMS:
                found.append((line, f"writes through `{ast.unparse(node)}`; print() is the one way to output"))
            elif node.attr == "print" or (module == "builtins"):
                found.append((line, f"reaches `{ast.unparse(node)}`; call print() itself"))
            elif module and (node.attr in PROCESS_REACH or node.attr.startswith("register_module_")):
                found.append((line, f"reaches `{ast.unparse(node)}` of the module {module}, which acts on the "
                                    "interpreter or the process, beyond this page"))
            elif node.attr == "__doc__":
                found.append((line, f"reads `{ast.unparse(node)}`: a docstring is text the page wrote, printed "
                                    "as if computed; print text as a label"))
            elif node.attr in WHERE_FROM or (module and node.attr in MACHINE_ATTRIBUTES):
                found.append((line, f"reads `{ast.unparse(node)}`"
                                    f"{f' of the module {module}' if module else ''}, which describes the "
                                    "machine, not the tensors"))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found += [(line, problem) for problem in _import_problems(node)]
        if patched := _patched_module(node, modules):
            found.append((line, f"changes `{patched}`, an attribute of a module every later page shares; "
                                "a page may change only its own objects"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found += [(line, problem) for problem in _print_argument_problems(node, imported)]
    return sorted(set(found))


def check_source(where: str, source: str) -> list[str]:
    """The rules of this module for one script's text; each problem names the file and line."""
    tree = syntax.parse(source, where)
    return [f"{where}, line {line}: {problem} {GUIDE}" for line, problem in problems(tree)]
