"""Each page writes only its own outputs, and leaves no process behind (inside each Sphinx process).

sphinx-gallery calls :func:`watch` before and after each example (``reset_modules``), and the
extension ``tensorcopy_sphinx.output_ledger`` calls :func:`seal` once every example ran and again once
the downloads are final. Around each page it compares the edition's generated folder
(``docs/<lang>/examples``: ``.rst``, ``.py``, ``.ipynb``, ``.zip``, figures, ``.md5`` ...) by a ``stat``
of each file:

- while a page runs (and sphinx-gallery writes its outputs), only files named after that page may
  appear or change, and its own ``.py`` copy, made before it ran, may not change;
- between two pages, only the next page's ``.py`` copy and the gallery's index pages may;
- while a page runs, no file of the edition's staged sources (``docs/<lang>`` but the generated pages,
  and ``gallery/<lang>``, the page's working folder) may appear or change: a figure or checkpoint saved
  into the working folder is named with its page;
- a file no page produced (an ``examples/verified.rst``, a figure saved by hand) is refused;
- every process a page started (a worker it did not join, double-forked or ``setsid`` ones included) is
  ended after the page and fails it (this process is made their subreaper, so that an orphan stays
  visible).

Each failure names the file and the page. This is a guard against a careless page, not a hostile one
(MAINTAINING.md, "Trust model"): a page that writes a file and sets its time back, or that writes once
the pages have run (a thread, an ``atexit`` handler), is not defended against.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sitetools import settings
from sitetools.building import descendants

GENERATED = "examples"  # sphinx-gallery's gallery_dirs: the edition's generated pages
INDEX = re.compile(r"(^|/)index\.rst$")  # sphinx-gallery's index of the gallery and of each part


class PageWroteElsewhere(Exception):
    """A page wrote outside its own outputs, or left a process running."""


def state(folder: Path, skip: Path | None = None) -> dict[str, tuple[int, int, int]]:
    """What says a file under ``folder`` (but the folder ``skip``) was written, by path relative to it: its
    size, modification time and inode. Taken before and after every page, so it costs a ``stat`` per file,
    not a read: a careless page that writes a file changes its time (a page that sets it back is not
    defended against)."""
    found = {}
    for here, dirs, files in os.walk(folder):
        dirs[:] = [name for name in dirs if Path(here, name) != skip]
        for name in files:
            if (path := Path(here, name)).is_file():
                stamp = path.stat()
                found[path.relative_to(folder).as_posix()] = (stamp.st_size, stamp.st_mtime_ns, stamp.st_ino)
    return found


def diff(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


def belongs_to(name: str, stem: str) -> bool:
    """``name`` (relative to the generated folder) is one of the outputs sphinx-gallery makes of
    ``stem``'s page: ``stem.rst``, ``stem.py``, ``stem.ipynb``, ``stem.zip``, ``stem.*.md5``,
    ``stem_codeobj.pickle``, ``stem.codeobj.json``, ``images/sphx_glr_stem_001.svg``, its thumbnail."""
    base = name.rsplit("/", 1)[-1]
    return bool(re.fullmatch(rf"{re.escape(stem)}(\.[\w.]+|_codeobj\.pickle)", base)
                or re.fullmatch(rf"sphx_glr_{re.escape(stem)}_(\d+\.\w+|thumb\.\w+)", base))  # fmt: skip


class _Ledger:
    def __init__(self) -> None:
        self.generated: Path | None = None
        self.snapshot: dict[str, tuple] = {}
        self.sources: list[Path] = []  # the edition's staged sources: docs/<lang> and gallery/<lang>
        self.sources_before: dict[str, tuple] = {}
        self.owner: dict[str, str] = {}  # file -> the page whose outputs it is
        self.last = "the gallery's start"  # the page that ran last

    def _start(self, gallery_conf: dict) -> None:
        descendants.become_subreaper()
        self.generated = Path(gallery_conf["src_dir"]) / gallery_conf["gallery_dirs"][0]
        self.snapshot = {}  # the build made the folder empty; the first page's copy is already in it
        self.sources = [Path(gallery_conf["src_dir"]), *map(Path, gallery_conf["examples_dirs"])]

    def _fail(self, problems: list[str]) -> None:
        raise PageWroteElsewhere("; ".join(problems))  # one line: the build's last word quotes it

    def before(self, gallery_conf: dict, script: str) -> None:
        if self.generated is None:
            self._start(gallery_conf)
        stem = Path(script).stem
        now = state(self.generated)
        problems = []
        for name in diff(self.snapshot, now):
            if belongs_to(name, stem) and name.endswith((".py", ".md5")) and name not in self.owner:
                self.owner[name] = script  # sphinx-gallery copied the page before running it
            elif not INDEX.search(name):
                problems.append(f"{self.generated.name}/{name} changed between pages, after {self.last} ran "
                                f"(a process it left behind?); {self._whose(name)}")  # fmt: skip
        self.snapshot = now
        self.sources_before = self._sources()
        if problems:
            self._fail(problems)

    def _sources(self) -> dict[str, tuple]:
        return {f"{folder.parent.name}/{folder.name}/{name}": stamp for folder in self.sources
                for name, stamp in state(folder, skip=self.generated).items()}

    def after(self, script: str) -> None:
        stem = Path(script).stem
        problems = [f"{script} started processes that were still running after it: {', '.join(left)}; "
                    f"they were ended" for left in [descendants.end_all(os.getpid())] if left]  # fmt: skip
        now = state(self.generated)
        for name in diff(self.snapshot, now):
            if self.owner.get(name) == script and name.endswith((".py", ".md5")):
                problems.append(f"{script} changed its own download {self.generated.name}/{name} while it ran")
            elif belongs_to(name, stem) and self.owner.get(name, script) == script:
                self.owner[name] = script
            else:
                problems.append(f"{script} wrote {self.generated.name}/{name} while it ran; {self._whose(name)}")
        sources = self._sources()
        problems += [f"{script} wrote {name} (a source) while it ran; a page writes files only into a temporary "
                     f"folder" for name in diff(self.sources_before, sources)]  # fmt: skip
        self.snapshot = now
        self.last = script
        if problems:
            self._fail(problems)

    def _whose(self, name: str) -> str:
        owner = self.owner.get(name)
        return f"it is an output of {owner}" if owner else "no page produced it"

    def seal(self) -> None:
        """Once every page ran, and again once the downloads are final: end what is still running, and
        refuse files no page produced."""
        if self.generated is None:
            return
        if left := descendants.end_all(os.getpid()):
            self._fail([f"processes were still running after the last page ({self.last}): {', '.join(left)}"])
        orphans = [name for name in state(self.generated) if name not in self.owner and not INDEX.search(name)
                   and not any(belongs_to(name, Path(page).stem) for page in set(self.owner.values()))]  # fmt: skip
        if orphans:
            self._fail([f"{self.generated.name}/{name}: no page produced it (written by a page or a process it "
                        f"started; the last page that ran was {self.last})" for name in orphans])  # fmt: skip


_LEDGER = _Ledger()


def watch(gallery_conf: dict, fname: str | None, when: str) -> None:
    """The sphinx-gallery hook (``reset_modules``, order "both"); only in the build's runs (its records
    folder set), not in a sphinx-build run by hand over old outputs."""
    from sitetools.guard.example import _locate

    if settings.current().records is None:
        return

    script = _locate(gallery_conf, fname)[0] if fname else "<unknown example>"
    if when == "before":
        _LEDGER.before(gallery_conf, script)
    else:
        _LEDGER.after(script)


def seal() -> None:
    _LEDGER.seal()
