"""Run scripts as a reader runs a download: ``python -W error script.py`` in an empty folder.

Each script runs as ``__main__`` in a process of its own, in its own folder, with warnings as errors.
The processes are forked from a worker started as ``python -W error`` that has imported torch (and
with it NumPy) and done nothing else, so that 21 downloads do not cost 21 imports of torch (about
1.2 s of CPU each, most of a download's run). Every download imports torch itself, so the modules a
script finds loaded are the ones its own imports would load. A forked script shares nothing with its
siblings: its ``__main__`` is a new module (a name it does not import is still a ``NameError``), and
what it changes in torch dies with its process. It ends as the interpreter would: non-daemon threads
are waited for, then ``atexit`` handlers run. Up to one script per core runs at a time.

tests/test_fresh_runs.py runs probe scripts both ways (warning filters, ``__file__``, ``sys.argv``,
pickling, threads, ``atexit``, exit codes, a submodule never imported) and requires the same result.

The tests call :func:`run_alone`; the worker reads ``{"scripts": [path, ...], "timeout": seconds,
"outputs": folder}`` as JSON on stdin and writes a JSON list of results ``{"returncode", "stdout", "stderr"}``.
"""

import atexit
import builtins
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

TIMEOUT = 300  # seconds per script; each takes a few seconds


def _exit_code(stop: SystemExit) -> int:
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


def _child(script: str, outputs: Path) -> None:
    """In the forked process: run ``script`` as ``python -W error script.py`` would, then end the process."""
    import multiprocessing.process

    import numpy
    import torch

    for fd, name in ((1, "stdout"), (2, "stderr")):
        os.dup2(os.open(outputs / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
    path = Path(script)
    os.chdir(path.parent)
    multiprocessing.process.ORIGINAL_DIR = str(path.parent)  # where a spawned child finds the script
    sys.path[0] = str(path.parent)  # as for python script.py: the script's folder comes first, not the project
    for name in [name for name in sys.modules if name == "tests" or name.startswith("tests.")]:
        del sys.modules[name]  # this worker's own modules
    torch.seed()  # a fresh interpreter seeds torch and NumPy anew (Python's random reseeds on fork)
    numpy.random.seed()
    main = types.ModuleType("__main__")
    main.__file__, main.__builtins__, main.__cached__ = str(path), builtins, None
    sys.modules["__main__"] = main
    sys.argv = [path.name]
    code = 0
    try:
        exec(compile(path.read_bytes(), str(path), "exec"), main.__dict__)
    except SystemExit as stop:
        code = _exit_code(stop)
    except BaseException as error:  # noqa: BLE001  (an error in the script is its result)
        sys.excepthook(type(error), error, error.__traceback__.tb_next)  # without this runner's frame
        code = 1
    try:
        threading._shutdown()  # what the interpreter does at exit: wait for non-daemon threads
        atexit._run_exitfuncs()  # then run the atexit handlers (one may end the process itself)
    except SystemExit as stop:
        code = _exit_code(stop)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _result(outputs: Path, returncode: int, note: str = "") -> dict:
    read = {name: (outputs / name).read_text(encoding="utf-8", errors="replace") for name in ("stdout", "stderr")}
    return {"returncode": returncode, "stdout": read["stdout"], "stderr": read["stderr"] + note}


def run_jobs(jobs: list[str], workers: int, outputs: Path, timeout: float) -> list[dict]:
    """Fork one process per script, up to ``workers`` at a time; the results in the order of ``jobs``.
    The output of job ``i`` goes to ``outputs/i/``, outside the script's folder."""
    results: list[dict | None] = [None] * len(jobs)
    running: dict[int, tuple[int, float]] = {}  # pid -> (job index, start time)
    waiting = list(enumerate(jobs))
    while waiting or running:
        while waiting and len(running) < workers:
            index, script = waiting.pop(0)
            (outputs / str(index)).mkdir()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                try:
                    _child(script, outputs / str(index))
                finally:  # the child never returns into this loop, whatever happened
                    os._exit(70)
            running[pid] = (index, time.monotonic())
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            for child, (_, started) in list(running.items()):
                if time.monotonic() - started > timeout:
                    os.kill(child, signal.SIGKILL)
            time.sleep(0.01)
            continue
        index, started = running.pop(pid)
        note = f"\n(stopped after {timeout:g} s)" if time.monotonic() - started > timeout else ""
        results[index] = _result(outputs / str(index), os.waitstatus_to_exitcode(status), note)
    return results


def run_alone(scripts: dict, timeout: float = TIMEOUT) -> dict[str, subprocess.CompletedProcess]:
    """Run each ``{key: (code, name, folder)}`` as ``python -W error name`` in ``folder``, which should
    be empty (it is what the script finds around itself); return the finished runs by key."""
    jobs, keys = [], list(scripts)
    for key in keys:
        code, name, folder = scripts[key]
        (folder / name).write_text(code, encoding="utf-8")
        jobs.append(str(folder / name))
    with tempfile.TemporaryDirectory() as outputs:
        worker = subprocess.run(
            [sys.executable, "-W", "error", "-m", "tests.fresh_runs"],
            input=json.dumps({"scripts": jobs, "timeout": timeout, "outputs": outputs}), capture_output=True,
            text=True, encoding="utf-8", cwd=Path(__file__).resolve().parents[1], timeout=60 + timeout * len(jobs),
        )  # fmt: skip
    if worker.returncode != 0:
        raise RuntimeError(f"tests/fresh_runs.py failed:\n{worker.stderr[-3000:]}")
    results = json.loads(worker.stdout)
    return {key: subprocess.CompletedProcess(job, result["returncode"], result["stdout"], result["stderr"])
            for key, job, result in zip(keys, jobs, results, strict=True)}  # fmt: skip


def main() -> None:
    request = json.loads(sys.stdin.read())
    import torch  # noqa: F401  (under -W error, as the script's own import would be)

    # The worker registers nothing of its own to run at exit: a forked script runs the handlers it
    # finds, which must be those its own imports would register (the outputs folder is the caller's).
    results = run_jobs(request["scripts"], os.cpu_count() or 2, Path(request["outputs"]), request["timeout"])
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
