"""A worker process that runs example code for the tests, so that no example runs inside pytest.

It reads one JSON job per line on stdin and answers one JSON line on its own copy of stdout. A job is
``{"cells": [...], "filename": ...}`` (run code cells like sphinx-gallery, in one fresh namespace) or
``{"script": path}`` (run a whole script as ``__main__``). Before every job the global state is
reset as the build resets it (``sitetools.guard.example``), with seed 0 where the build draws a fresh
seed for every page, so that a repeated run prints the same; any warning is an error.
An example that ends this process (``exit()``, ``os._exit()``) ends only the worker: the tests see
it die and name the script.
"""

import ast
import contextlib
import io
import json
import os
import runpy
import sys
import traceback
import warnings

from sitetools.guard.example import reset_state


def _run_cell(code: str, namespace: dict, filename: str) -> None:
    """Run one cell like sphinx-gallery: the repr of a last bare expression is printed."""
    tree = ast.parse(code, filename)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
        if value is not None:
            print(repr(value))


def run_job(job: dict) -> dict:
    reset_state()
    outputs: list[str] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            if "script" in job:
                buffer = io.StringIO()
                with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                    try:
                        runpy.run_path(job["script"], run_name="__main__")
                    finally:
                        outputs.append(buffer.getvalue())
            else:
                namespace = {"__name__": "__main__", "__file__": job["filename"]}
                for code in job["cells"]:
                    buffer = io.StringIO()
                    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                        try:
                            _run_cell(code, namespace, job["filename"])
                        finally:
                            outputs.append(buffer.getvalue())
    except BaseException as error:  # noqa: BLE001  (SystemExit too: it is reported, not obeyed)
        return {"outputs": outputs, "error": type(error).__name__, "traceback": traceback.format_exc()}
    return {"outputs": outputs}


def main() -> None:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # stray writes to fd 1 must not corrupt the answers
    for line in sys.stdin:
        answers.write(json.dumps(run_job(json.loads(line))) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
