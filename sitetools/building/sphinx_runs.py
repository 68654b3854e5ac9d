"""The Sphinx processes of a build: one ``sphinx-build`` per edition, side by side, each in a process
group of its own and each example under :mod:`sitetools.guard.example` and :mod:`sitetools.guard.outputs`;
waiting for them while reporting each example as it completes, and stopping all of them (and what they
started) on the first failure, an interruption or a time-out.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Collection
from pathlib import Path

from sitetools import settings
from sitetools.building.folders import ROOT, BuildError
from sitetools.guard import outputs as page_outputs
from sitetools.rules import sources

#: The narrative page every preview keeps (each edition's home); ``--only PAGE`` keeps others beside it.
PREVIEW_KEPT = "index.md"
#: The only warnings a preview may have: links to the pages it leaves out.
PREVIEW_QUIET = "toc.not_readable,ref.ref,ref.doc"


def scratch(docs: Path, lang: str, out: Path, stage: Path) -> list[Path]:
    """The folders edition ``lang`` writes: its generated pages, doctrees, run records and HTML."""
    return [docs / lang / page_outputs.GENERATED, stage / "doctrees" / lang, stage / "records" / lang, out / lang]


def preview_kept(pages: Collection[str] = ()) -> tuple[str, ...]:
    """The narrative pages (file names) a preview keeps: the home page and ``pages`` (``quickref``)."""
    return tuple(dict.fromkeys((PREVIEW_KEPT, *(f"{page}.md" for page in pages))))


def sphinx_command(docs: Path, lang: str, out: Path, stage: Path, preview: str,
                   kept: Collection[str] = (PREVIEW_KEPT,)) -> list[str]:  # fmt: skip
    """The edition's ``sphinx-build`` command; for a preview (``preview``: its note), one that leaves out the
    narrative pages but ``kept`` (file names, ``index.md``)."""
    command = [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-E", "-b", "html",
               "-d", str(stage / "doctrees" / lang), str(docs / lang), str(out / lang)]  # fmt: skip
    if preview:  # the chosen pages only: the other narrative pages (and the checks they run) are left out
        skipped = ",".join(page.name for page in sources.narrative_pages(lang, docs) if page.name not in kept)
        command += ["-D", f"html_theme_options.announcement={preview}", "-D", f"exclude_patterns={skipped}",
                    "-D", f"suppress_warnings={PREVIEW_QUIET}"]  # fmt: skip
    return command


def start_edition(docs: Path, lang: str, out: Path, stage: Path, timeout: float, preview: str,
                  kept: Collection[str] = (PREVIEW_KEPT,)) -> subprocess.Popen:  # fmt: skip
    """Start the edition's Sphinx process (:func:`sphinx_command`), in a process group of its own (:func:`stop`
    ends the group)."""
    for folder in scratch(docs, lang, out, stage):
        folder.mkdir(parents=True, exist_ok=True)
    command = sphinx_command(docs, lang, out, stage, preview, kept)
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        **settings.for_sphinx(records=stage / "records" / lang, timeout=timeout, checkout=ROOT),
    }
    with (stage / f"sphinx-{lang}.log").open("w", encoding="utf-8") as log:  # the child keeps its own handle
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                preexec_fn=functools.partial(_die_with_parent, os.getpid()))  # fmt: skip


def _die_with_parent(parent: int) -> None:
    """In the child: receive SIGTERM when the build process dies, even if it is killed outright (and
    stop at once if it died while this child was starting)."""
    import ctypes

    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os._exit(1)


def stop(processes: dict[str, subprocess.Popen]) -> None:
    """Stop every still-running Sphinx process (and anything it started)."""
    for process in processes.values():
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
    for process in processes.values():
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def failure_reason(log: str) -> str:
    """The line of a Sphinx log that says why it failed, for the build's last word."""
    lines = log.splitlines()
    for line in reversed(lines):
        if "(exception: " in line:
            return line.split("(exception: ", 1)[1].rstrip(")")
    flagged = [line.strip() for line in lines if ": WARNING: " in line or ": ERROR: " in line]
    if flagged:
        more = f" (and {len(flagged) - 3} more)" if len(flagged) > 3 else ""
        return "; ".join(flagged[:3]) + more
    for line in reversed(lines):
        if "failed to execute correctly" in line or re.match(r"^\S*(Error|Exception|Warning)\b", line.strip()):
            return line.strip()
    return lines[-1].strip() if lines else "no output"


def wait_for(processes: dict[str, subprocess.Popen], stage: Path, scripts: dict[str, list[str]], deadline: float,
             ) -> None:  # fmt: skip
    """Wait for every edition, printing each example as it completes; fail fast on the first failure."""
    seen: set[tuple[str, str]] = set()
    while True:
        for lang, names in scripts.items():
            records = stage / "records" / lang
            done = {p.name.removesuffix(".done") for p in records.glob("*.done")} if records.exists() else set()
            for name in names:
                base = Path(name).name + ".py"
                if base in done and (lang, name) not in seen:
                    seen.add((lang, name))
                    count = sum(1 for key in seen if key[0] == lang)
                    print(f"  [{lang}] ran {name} ({count}/{len(names)})", flush=True)
        finished = {lang: p.poll() for lang, p in processes.items()}
        failed = [lang for lang, code in finished.items() if code not in (None, 0)]
        if failed:
            stop(processes)
            lang = failed[0]
            log = (stage / f"sphinx-{lang}.log").read_text(encoding="utf-8")
            print(log, file=sys.stderr)
            raise BuildError(f"the {lang} edition failed: {failure_reason(log)} (full log above)")
        if all(code == 0 for code in finished.values()):
            return
        if time.monotonic() > deadline:
            stop(processes)
            raise BuildError("the build ran past its time limit; an example is stuck outside Python code")
        time.sleep(0.2)
