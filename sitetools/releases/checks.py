"""Run every check of the site on the torch of the interpreter that runs this module, and write what each did.

:mod:`sitetools.releases.record` installs another torch release in an environment of its own and runs this
module with that environment's Python (the checkout on ``PYTHONPATH``, nothing else of the site's
environment): it needs only the standard library, torch, NumPy and matplotlib, as a reader's download does.

- Each page's code (hidden checks included, as the rerun cell of its download runs it) runs in a process of
  its own, in an empty folder, with every check recorded instead of raised
  (:class:`sitetools.releases.rerun_cell._RecordChecks`): ``holds``, ``differs`` (with the value seen),
  ``errored`` (the check's own expression raised), ``not available`` (it raised because this torch lacks a
  name the page uses), ``not run`` (the page stopped before it) or ``no GPU``.
- The named facts, the claims of the ledger and the cells of the computed tables (matrix, views, saved)
  run in one more process; their values are written as they are, and :mod:`sitetools.releases.record` compares
  them with the build's.

``python -m sitetools.releases.checks PAGES.json OUT.json``: ``PAGES.json`` maps a page's name to
``{"code": ..., "checks": {line: normalised check text}}``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sitetools.releases.rerun_cell import _RecordChecks, gpu_lines, page_module

#: Seconds a page may run (they take a few each).
PAGE_TIMEOUT = 300
#: Errors that mean "this torch has no such thing", not "this torch does it differently".
MISSING = (AttributeError, ImportError, NotImplementedError)
#: A value seen is cut to this many characters.
SEEN_LIMIT = 300


def _cut(text: str) -> str:
    return text if len(text) <= SEEN_LIMIT else text[: SEEN_LIMIT - 1] + "…"


def _missing(error: BaseException) -> bool:
    """A missing name or argument of torch (``module 'torch' has no attribute ...``, an unexpected keyword)."""
    if isinstance(error, TypeError):
        return "unexpected keyword argument" in str(error) or "got an unexpected" in str(error)
    return isinstance(error, MISSING)


def _expected(node: ast.AST) -> bool:
    """An operand that states what is expected (a literal, an f-string) rather than holds what was seen."""
    if isinstance(node, ast.JoinedStr):
        return True
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def _has_call(node: ast.AST) -> bool:
    return any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield)) for n in ast.walk(node))


class _SeenChecks(_RecordChecks):
    """:class:`_RecordChecks`, and for an ``assert`` that compares: when it fails, the values it compared
    (only operands that call nothing, so reading them again changes nothing)."""

    def __init__(self):
        super().__init__()
        self.operands = []

    def _new(self, text, line):
        self.operands.append([])
        return super()._new(text, line)

    def visit_Assert(self, node):
        operands = []
        if isinstance(node.test, ast.Compare):
            operands = [o for o in (node.test.left, *node.test.comparators) if not _expected(o)]
        elif isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not):
            operands = [node.test.operand]
        elif not isinstance(node.test, (ast.BoolOp, ast.Constant)):
            operands = [node.test]
        done = super().visit_Assert(node)
        self.operands[-1] = [ast.unparse(o) for o in operands if not _has_call(o)]
        return done


def run_page(code: str, checks: dict[str, str]) -> dict:
    """Run one page's ``code``; what each of its ``checks`` (line -> text) did, and where the page stopped."""
    import torch

    recorder = _SeenChecks()
    parsed = ast.parse(code)
    gpu, no_gpu = gpu_lines(parsed), not torch.cuda.is_available()
    tree = ast.fix_missing_locations(recorder.visit(parsed))
    runs = [[] for _ in recorder.texts]
    namespace = {}  # the page's names, once it runs (page_module)

    def check(index, holds, message):
        try:
            said = str(message()) if message else recorder.texts[index]
        except Exception:  # Python would not have built this message for a check that holds
            said = recorder.texts[index]
        seen = ""
        if isinstance(holds, Exception):
            seen = f"{type(holds).__name__}: {holds}"
        elif holds is not True:
            values = []
            for expression in recorder.operands[index]:
                try:
                    values.append(f"{expression} = {eval(expression, namespace)!r}")  # noqa: S307 (page code)
                except Exception as error:  # a name the comprehension bound, say
                    values.append(f"{expression}: {type(error).__name__}")
            seen = "; ".join(values) or ("no error was raised" if recorder.lines[index] in must_raise else "false")
        runs[index].append({"message": said, "holds": holds is True, "error": isinstance(holds, Exception),
                            "missing": isinstance(holds, Exception) and _missing(holds), "seen": _cut(seen)})

    must_raise = {node.lineno for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Try)}
    namespace["_check_"] = check
    stopped = None
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            with page_module(**namespace) as namespace:
                exec(compile(tree, "<page>", "exec"), namespace)  # noqa: S102 (the page's own code)
        except Exception as error:
            frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<page>"]
            line = code.splitlines()[frames[-1].lineno - 1].strip() if frames else "?"
            stopped = {"line": line, "error": _cut(f"{type(error).__name__}: {error}"), "missing": _missing(error)}
    results = []
    for index, (line, ran) in enumerate(zip(recorder.lines, runs, strict=True)):
        text = checks.get(str(line), recorder.texts[index])
        if not ran:
            status = "no GPU" if no_gpu and line in gpu else (
                "not available" if stopped and stopped["missing"] else "not run")
            results.append({"check": text, "line": line, "status": status, "message": recorder.texts[index]})
            continue
        bad = next((r for r in ran if not r["holds"]), None)
        status = "holds" if bad is None else (
            "not available" if bad["missing"] else "errored" if bad["error"] else "differs")
        result = {"check": text, "line": line, "status": status, "message": (bad or ran[0])["message"]}
        if bad is not None:
            result["seen"] = bad["seen"]
            result["times"] = f"{sum(not r['holds'] for r in ran)} of {len(ran)}"
        results.append(result)
    return {"stopped": stopped, "checks": results}


def _cell(value) -> str:
    return _cut(repr(value))


def run_tables() -> dict:
    """The named facts, the ledger's claims and every cell of the computed tables, as this torch gives them."""
    from tensorfacts import facts as _facts  # noqa: F401  (registers every fact)
    from tensorfacts import probes, saved_ops, verdicts, view_ops
    from tensorfacts.fact_registry import FACTS

    found = {"facts": {}, "claims": {}, "tables": {}}
    for fact_id, run in sorted(FACTS.items()):
        try:
            result = run()
            found["facts"][fact_id] = {"holds": bool(result.holds), "seen": _cut(result.trace)}
        except Exception as error:
            found["facts"][fact_id] = {"error": _cut(f"{type(error).__name__}: {error}"), "missing": _missing(error)}
    for outcome in verdicts.run_all():
        found["claims"][outcome.claim.id] = {"verdict": outcome.verdict, "problem": outcome.problem}
    found["tables"]["matrix"] = {f"{s} / {o} / {c}": _cell(v) for s, rows in probes.probe_all().items()
                                 for o, cells in rows.items() for c, v in cells.items()}
    found["tables"]["views"] = {f"{r} / {lay} / {c}": _cell(v) for r, layouts in view_ops.probe_all().items()
                                for lay, cells in layouts.items() for c, v in cells.items()}
    found["tables"]["saved"] = {f"{r} / {c}": _cell(v) for r, cells in saved_ops.probe_all().items()
                                for c, v in cells.items()}
    return found


def _child(kind: str, name: str, pages: Path, out: Path) -> dict:
    """Run one page (or the tables) in a process of its own, in an empty folder."""
    with tempfile.TemporaryDirectory() as folder:
        result = Path(folder) / "result.json"
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "MPLBACKEND": "Agg"}
        try:
            done = subprocess.run([sys.executable, "-m", "sitetools.releases.checks", "--one", kind, name,
                                   str(pages), str(result)], cwd=folder, env=env, capture_output=True, text=True,
                                  timeout=PAGE_TIMEOUT)  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"crashed": f"stopped after {PAGE_TIMEOUT} s"}
        if done.returncode != 0 or not result.exists():
            return {"crashed": _cut(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else
                                    f"exit code {done.returncode}")}  # fmt: skip
        return json.loads(result.read_text(encoding="utf-8"))


def main(argv: list[str]) -> int:
    if argv[0] == "--one":
        kind, name, pages, out = argv[1:]
        if kind == "tables":
            found = run_tables()
        else:
            page = json.loads(Path(pages).read_text(encoding="utf-8"))[name]
            found = run_page(page["code"], page["checks"])
        Path(out).write_text(json.dumps(found, ensure_ascii=False), encoding="utf-8")
        return 0
    pages, out = Path(argv[0]), Path(argv[1])
    names = sorted(json.loads(pages.read_text(encoding="utf-8")))
    jobs = [("tables", "")] + [("page", name) for name in names]
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        done = list(pool.map(lambda job: _child(*job, pages, out), jobs))
    import numpy
    import torch

    found = {"torch": torch.__version__, "python": sys.version.split()[0], "numpy": numpy.__version__,
             "tables": done[0], "pages": dict(zip(names, done[1:], strict=True))}
    out.write_text(json.dumps(found, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
