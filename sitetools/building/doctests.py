"""Run the ``{doctest}`` fences of the MyST narrative pages, as the build's own check.

The published expected output must be the real one, so the build runs these examples itself (the
test suite runs them again through sybil). Each page's examples share one namespace, in page order.

The build runs them in a process of their own (``python -m sitetools.building.doctests``, started by
:func:`sitetools.building.pipeline.check_doctests`) whose working folder is a scratch folder of its own. An example
may write only there. One that writes anywhere it guards (``--guard``: the checkout, the staging tree,
the site) fails, named by its page and line (``docs/en/quickref.md, line 42``): an audit hook
(:func:`sys.addaudithook`) refuses the file opened for writing, removed, renamed or made there, and after
each page the checkout is compared with what it was, so a write the hook cannot see (a process an example
started) still names the page.
"""

from __future__ import annotations

import argparse
import doctest
import io
import json
import os
import re
import sys
from pathlib import Path

FENCE = re.compile(r"^```\{doctest\}[^\n]*\n(.*?)^```", flags=re.S | re.M)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: A directive that turns an example off: its output would be published without being compared.
SKIP = re.compile(r"doctest:.*[+]SKIP")


#: Any fence or directive MyST would render as a doctest: backticks, tildes or colons, indented or not.
ANY_DOCTEST = re.compile(r"^[ \t]*(?:`{3,}|~{3,}|:{3,})[ \t]*\{doctest\}", flags=re.M)


def unseen(page: Path, shown: str) -> list[str]:
    """One problem for each doctest of ``page`` written in a form that :data:`FENCE` (so the build's run)
    does not find: MyST would publish its output, and no build would have compared it."""
    text = page.read_text(encoding="utf-8")
    run = {match.start() for match in FENCE.finditer(text)}
    return [
        f"{shown}, line {text.count(chr(10), 0, match.start()) + 1}: a doctest the build does not run; write "
        "it as a ```{doctest} fence at the start of a line (see CONTRIBUTING.md, 'Pages in every edition')"
        for match in ANY_DOCTEST.finditer(text)
        if match.start() not in run
    ]


def skipped(page: Path, shown: str) -> list[str]:
    """One problem for each example of ``page`` that a ``+SKIP`` directive turns off (the site trims
    doctest flags, so the reader would see output that no build compared)."""
    text = page.read_text(encoding="utf-8")
    return [
        f"{shown}, line {text.count(chr(10), 0, match.start(1)) + number}: a doctest marked +SKIP; every "
        "published example runs and its output is compared (see CONTRIBUTING.md, 'Pages in every edition')"
        for match in FENCE.finditer(text)
        for number, line in enumerate(match.group(1).splitlines(), start=1)
        if SKIP.search(line)
    ]


class _Writes:
    """An audit hook: refuse (``PermissionError``) and record every write of an example into a guarded folder
    outside its scratch folder, with the page and line of the example that ran (set by :class:`_Runner`)."""

    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    #: Audit events that change a file or folder, and which of their arguments are paths.
    EVENTS = {"os.remove": (0,), "os.rmdir": (0,), "os.rename": (0, 1), "os.mkdir": (0,), "os.symlink": (1,),
              "os.link": (1,), "os.truncate": (0,), "os.chmod": (0,), "os.chown": (0,), "os.utime": (0,),
              "shutil.rmtree": (0,), "shutil.copyfile": (1,), "shutil.copytree": (1,), "shutil.move": (1,)}

    def __init__(self, scratch: Path, guarded: list[Path]):
        self.scratch, self.guarded = scratch.resolve(), [folder.resolve() for folder in guarded]
        self.where = "before the first example"
        self.found: list[str] = []

    def _outside(self, path) -> Path | None:
        if not isinstance(path, str | bytes | os.PathLike):
            return None  # a file descriptor: opened earlier, and seen then
        full = Path(os.path.abspath(os.fsdecode(path)))
        if full == self.scratch or self.scratch in full.parents:
            return None
        return full if any(full == folder or folder in full.parents for folder in self.guarded) else None

    def __call__(self, event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, 0))[:3]
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool((flags or 0) & self.WRITE_FLAGS)
            paths = [path] if writes else []
        else:
            paths = [args[i] for i in self.EVENTS.get(event, ()) if i < len(args)]
        for path in paths:
            if (full := self._outside(path)) is not None:
                self.found.append(f"{self.where}: an example wrote {full} ({event}), outside its scratch folder")
                raise PermissionError(f"{event} of {full}: a doctest may write only its scratch folder")


class _Runner(doctest.DocTestRunner):
    """A doctest runner that tells the audit hook which example runs."""

    writes: _Writes | None = None

    def report_start(self, out, test, example) -> None:
        if self.writes is not None:
            self.writes.where = f"{test.filename}, line {test.lineno + example.lineno + 1}"


def run_page(page: Path, shown: str, writes: _Writes | None = None) -> tuple[int, list[str]]:
    """Run every doctest fence of ``page``; return (examples run, failure reports naming ``shown``)."""
    text = page.read_text(encoding="utf-8")
    parser = doctest.DocTestParser()
    globs: dict = {"__name__": "__main__"}
    ran, failures = 0, []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start(1))  # 0-based line of the fence's first example
        test = parser.get_doctest(match.group(1), globs, shown, shown, line)
        report = io.StringIO()
        runner = _Runner(optionflags=FLAGS)
        runner.writes = writes
        result = runner.run(test, out=report.write, clear_globs=False)
        globs = test.globs  # DocTest copies its globals: the next fence continues from these
        ran += result.attempted
        if result.failed:
            failures.append(report.getvalue().rstrip())
    return ran, failures


def run_pages(pages: list[tuple[Path, str]], writes: _Writes | None = None, checkout: Path | None = None,
              ) -> tuple[int, list[str]]:  # fmt: skip
    """Run the doctests of several pages; return (examples run, failure reports). With ``writes``, every
    write it saw outside the scratch folder is a failure; with ``checkout``, so is a change of the
    checkout, named by the page whose examples made it."""
    from sitetools.building.folders import changes, fingerprint_tree

    total, failures = 0, []
    for page, shown in pages:
        before = fingerprint_tree(checkout) if checkout else {}
        ran, failed = run_page(page, shown, writes)
        total += ran
        failures += failed
        if writes is not None:
            failures += writes.found
            writes.found = []
        if checkout and (changed := changes(before, fingerprint_tree(checkout))):
            failures.append(f"{shown}: its examples changed the checkout (a process one of them started?): "
                            + ", ".join(changed))  # fmt: skip
    return total, failures


def main(argv: list[str] | None = None) -> int:
    """Run the pages' doctests in the scratch folder; print ``{"ran": N, "failures": [...]}`` as the last line."""
    parser = argparse.ArgumentParser(description="Run the narrative pages' doctests (the build runs this).")
    parser.add_argument("--scratch", type=Path, required=True, help="the examples' working folder")
    parser.add_argument("--guard", type=Path, action="append", default=[], help="a folder no example may write")
    parser.add_argument("--checkout", type=Path, help="compared before and after each page")
    parser.add_argument("pages", nargs="+", metavar="PAGE=SHOWN")
    args = parser.parse_args(argv)
    os.chdir(args.scratch)
    writes = _Writes(args.scratch, args.guard)
    sys.addaudithook(writes)
    targets = [(Path(page), shown) for page, shown in (item.split("=", 1) for item in args.pages)]
    ran, failures = run_pages(targets, writes, args.checkout)
    print(json.dumps({"ran": ran, "failures": failures}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
