"""The last cell of every download: rerun the page's checks on the reader's torch, claim by claim.

A downloaded script stops at the first ``assert`` that fails, so on another torch it tells a reader about
one claim at most. The cell that :mod:`tensorcopy_sphinx.rerun_cell` appends to every download holds the
page's code (hidden checks included) and the code of this module (without docstrings and comments): it
runs the page's code in a fresh namespace with every check turned into a record, then prints one line
per claim: ``agrees``, ``DIFFERS`` or ``not run`` (when the page stopped with an error before reaching
it). It ends with an ``AssertionError`` when any claim differs or did not run, so a script exits non-zero.

The checks are the ones :mod:`sitetools.pages_asserts` counts for the manifest and the verified-on stamp:
every ``assert``, and every must-raise block (``try: ... except E: ... else: raise AssertionError(...)``),
which holds when one of its handlers runs. A check in a loop makes one claim per message it shows (its
message names the case). This module needs nothing but the standard library and torch, and holds no
``assert`` of its own: the downloads' checks are the page's.
"""

import ast
import contextlib
import io
import sys
import traceback


def is_must_raise(node):
    """``try: ... except E: ... else: raise AssertionError(...)``: the one idiom for "this must raise"."""
    if not (isinstance(node, ast.Try) and node.handlers and len(node.orelse) == 1):
        return False
    raise_ = node.orelse[0]
    return isinstance(raise_, ast.Raise) and isinstance(raise_.exc, ast.Call) and (
        isinstance(raise_.exc.func, ast.Name) and raise_.exc.func.id == "AssertionError"
    )  # fmt: skip


class _RecordChecks(ast.NodeTransformer):
    """Turn every check into a call of ``_check_(index, test, message)``; ``texts`` collects what each says."""

    def __init__(self):
        self.texts = []

    def _call(self, index, test, message):
        no_args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        arguments = [ast.Constant(index), ast.Lambda(no_args, test), message or ast.Constant(None)]
        return ast.Expr(ast.Call(ast.Name("_check_", ast.Load()), arguments, []))

    def _new(self, test, message):
        self.texts.append(message.value if isinstance(message, ast.Constant) else ast.unparse(message or test))
        return len(self.texts) - 1

    def visit_Assert(self, node):
        node = self.generic_visit(node)
        return ast.copy_location(self._call(self._new(node.test, node.msg), node.test, node.msg), node)

    def visit_Try(self, node):
        if not is_must_raise(node):
            return self.generic_visit(node)
        exc = node.orelse[0].exc
        message = exc.args[0] if exc.args else None
        index = self._new(ast.Constant(False), message)
        node = self.generic_visit(node)
        for handler in node.handlers:  # the expected error came: the claim holds
            handler.body.insert(0, ast.copy_location(self._call(index, ast.Constant(True), message), handler))
        node.orelse = [ast.copy_location(self._call(index, ast.Constant(False), message), node.orelse[0])]
        return node


def rerun_checks(code, verified_on):
    """Run ``code`` (a page's code) with every check recorded instead of raised; report each claim."""
    import torch

    recorder = _RecordChecks()
    tree = ast.fix_missing_locations(recorder.visit(ast.parse(code)))
    results = [[] for _ in recorder.texts]  # per check: (message, holds, why not) each time it ran

    def check(index, test, message):
        try:
            holds, why = bool(test()), ""
        except Exception as error:  # a check that cannot even be evaluated differs
            holds, why = False, f" ({type(error).__name__}: {error})"
        results[index].append((message or recorder.texts[index], holds, why))

    stopped = None
    with contextlib.redirect_stdout(io.StringIO()):  # the page's own prints were shown above
        try:
            exec(compile(tree, "<page>", "exec"), {"__name__": "__rerun__", "_check_": check})
        except Exception as error:
            frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == "<page>"]
            line = code.splitlines()[frames[-1].lineno - 1].strip()
            stopped = f"The page stopped at `{line}`: {type(error).__name__}: {error}"
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")  # the pictures were drawn above

    print(f"This page's checks on torch {torch.__version__} (the page was verified on torch {verified_on}):")
    counts = {"agrees": 0, "DIFFERS": 0, "not run": 0}
    for text, runs in zip(recorder.texts, results, strict=True):
        claims = {}  # message -> (holds, why not) each time, in the order the messages came
        for message, holds, why in runs:
            claims.setdefault(message, []).append((holds, why))
        for message, held in claims.items() or [(text, [])]:
            status = "not run" if not held else "agrees" if all(h for h, _ in held) else "DIFFERS"
            counts[status] += 1
            why = next((why for h, why in held if not h), "")
            print(f"  {status:8} {message}{why}" + (f" ({len(held)} times)" if len(held) > 1 else ""))
    if stopped:
        print(stopped)
    agree, differ, not_run = counts.values()
    print(f"{agree} agree, {differ} differ, {not_run} not run: {sum(counts.values())} claims from the page's "
          f"{len(recorder.texts)} checks")  # fmt: skip
    if differ or not_run:
        raise AssertionError(f"on torch {torch.__version__}, {differ} claims of this page differ "
                             f"and {not_run} did not run; see the lines above")  # fmt: skip
