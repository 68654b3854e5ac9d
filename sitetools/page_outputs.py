"""Each page writes only its own outputs, and leaves no process behind (inside each Sphinx process).

sphinx-gallery calls :func:`watch` before and after each example (``reset_modules``), and the
extension ``tensorcopy_sphinx.output_ledger`` calls :func:`seal` once every example ran and the
downloads are final, and :func:`seal_html` when the HTML is written. Around each page it fingerprints
the edition's generated folder (``docs/<lang>/examples``: ``.rst``, ``.py``, ``.ipynb``, ``.zip``,
figures, ``.md5`` ...) and its HTML folder:

- while a page runs (and sphinx-gallery writes its outputs), only files named after that page may
  appear or change, and its own ``.py`` copy, made before it ran, may not change;
- between two pages, only the next page's ``.py`` copy and the gallery's index pages may;
- no page may write into the HTML folder (Sphinx writes it only after every page ran);
- a file no page produced (an ``examples/verified.rst``) is refused;
- a document Sphinx finds in the edition's source folder outside the generated pages must be one that
  was there before the first page ran (:func:`note_sources`, :func:`check_documents`): the sandbox keeps
  the hand-written sources read-only (:func:`sitetools.sphinx_runs.sealed`), but the folder itself stays
  writable, and a page (or a thread it left) could add a page and remove it once Sphinx read it;
- every process a page started, double-forked or ``setsid`` ones included, is ended after the page
  and fails it (this process is made their subreaper, so they cannot escape by being orphaned).

:func:`seal` and :func:`seal_html` write what they saw into the run records; the build compares the
folders with them once Sphinx has exited (:func:`verify`), so a change made later (an ``atexit``
handler, a thread) fails the build too. Each failure names the file and the page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from sitetools import descendants

GENERATED = "examples"  # sphinx-gallery's gallery_dirs: the edition's generated pages
HTML_ENV = "TENSORCOPY_HTML_OUT"
RECORDS_ENV = "TENSORCOPY_RUN_RECORDS"  # the same folder as sitetools.example_guard's records
LEDGER, HTML_LEDGER = "outputs.json", "html.json"
INDEX = re.compile(r"(^|/)index\.rst$")  # sphinx-gallery's index of the gallery and of each part


class PageWroteElsewhere(Exception):
    """A page wrote outside its own outputs, or left a process running."""


def tree(folder: Path) -> dict[str, str]:
    """A digest of every file under ``folder``, by path relative to it."""
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


def state(folder: Path) -> dict[str, tuple[int, int, int]]:
    """What says a file under ``folder`` was written, by path relative to it: its size, modification time
    and inode. Taken before and after every page, so it costs a ``stat`` per file, not a read: a careless
    page that writes a file changes its time (a page that sets it back is not defended against)."""
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): (s.st_size, s.st_mtime_ns, s.st_ino)
            for p in sorted(folder.rglob("*")) if p.is_file() and (s := p.stat())}  # fmt: skip


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
        self.html: Path | None = None
        self.snapshot: dict[str, tuple] = {}
        self.html_snapshot: dict[str, tuple] = {}
        self.owner: dict[str, str] = {}  # file -> the page whose outputs it is
        self.last = "the gallery's start"  # the page that ran last

    def _start(self, gallery_conf: dict) -> None:
        descendants.become_subreaper()
        self.generated = Path(gallery_conf["src_dir"]) / gallery_conf["gallery_dirs"][0]
        self.html = Path(os.environ.get(HTML_ENV) or "/nonexistent")
        self.snapshot = {}  # the build made the folder empty; the first page's copy is already in it
        self.html_snapshot = state(self.html)

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
        if problems:
            self._fail(problems)

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
        for name in diff(self.html_snapshot, state(self.html)):
            problems.append(f"{script} wrote {name} into the HTML folder while it ran")
        self.snapshot = now
        self.last = script
        if problems:
            self._fail(problems)

    def _whose(self, name: str) -> str:
        owner = self.owner.get(name)
        return f"it is an output of {owner}" if owner else "no page produced it"

    def seal(self, records: Path) -> None:
        """Once the downloads are final: refuse files no page produced, and record every digest."""
        if self.generated is None:
            return
        if left := descendants.end_all(os.getpid()):
            self._fail([f"processes were still running after the last page ({self.last}): {', '.join(left)}"])
        now = tree(self.generated)
        orphans = [name for name in now if name not in self.owner and not INDEX.search(name)
                   and not any(belongs_to(name, Path(page).stem) for page in set(self.owner.values()))]  # fmt: skip
        if orphans:
            self._fail([f"{self.generated.name}/{name}: no page produced it (written by a page or a process it "
                        f"started; the last page that ran was {self.last})" for name in orphans])  # fmt: skip
        owners = {name: self.owner.get(name) or next(
            (page for page in set(self.owner.values()) if belongs_to(name, Path(page).stem)), "the gallery index")
            for name in now}  # fmt: skip
        records.mkdir(parents=True, exist_ok=True)
        (records / LEDGER).write_text(json.dumps({"folder": str(self.generated), "files": now, "owners": owners},
                                                 indent=0), encoding="utf-8")  # fmt: skip


_LEDGER = _Ledger()
#: The files of the edition's source folder (but the generated pages) when Sphinx read its configuration.
_SOURCES: dict[str, set[str]] = {}


def _source_files(srcdir: Path) -> set[str]:
    return {path.relative_to(srcdir).as_posix() for path in srcdir.rglob("*")
            if path.is_file() and GENERATED not in path.relative_to(srcdir).parts[:1]}  # fmt: skip


def note_sources(srcdir: Path) -> None:
    """Before any page runs (Sphinx's ``config-inited``): the hand-written sources of the edition."""
    _SOURCES[str(srcdir)] = _source_files(srcdir)


def check_documents(srcdir: Path, documents: dict[str, Path]) -> None:
    """Once the pages ran, before Sphinx reads (``env-before-read-docs``): every document found outside the
    generated pages (``documents``: docname -> file) is one that was there before the first page ran."""
    known = _SOURCES.get(str(srcdir))
    if known is None:
        return
    lang = srcdir.name
    added = sorted(f"docs/{lang}/{path.relative_to(srcdir).as_posix()}" for name, path in documents.items()
                   if not name.startswith(f"{GENERATED}/") and path.relative_to(srcdir).as_posix() not in known)
    if added:
        raise PageWroteElsewhere(f"{', '.join(added)} appeared in the edition's sources while the examples ran "
                                 f"(written by a page, or a thread or process it left; the last page that ran was "
                                 f"{_LEDGER.last}); only the generated pages may be added")  # fmt: skip


def watch(gallery_conf: dict, fname: str | None, when: str) -> None:
    """The sphinx-gallery hook (``reset_modules``, order "both"); only in the build's runs (its records
    folder set), not in a sphinx-build run by hand over old outputs."""
    from sitetools.example_guard import _locate

    if not os.environ.get(RECORDS_ENV):
        return

    script = _locate(gallery_conf, fname)[0] if fname else "<unknown example>"
    if when == "before":
        _LEDGER.before(gallery_conf, script)
    else:
        _LEDGER.after(script)


def seal(records: Path) -> None:
    _LEDGER.seal(records)


def seal_html(html: Path, records: Path) -> None:
    """Sphinx wrote the HTML: record it, so that a change after Sphinx ends shows."""
    records.mkdir(parents=True, exist_ok=True)
    (records / HTML_LEDGER).write_text(json.dumps({"folder": str(html), "files": tree(html)}, indent=0),
                                       encoding="utf-8")  # fmt: skip


def verify(records: Path, lang: str) -> list[str]:
    """After the Sphinx process of ``lang`` exited: its generated folder and HTML are as it recorded them
    (the build's own check, before publishing). Return the problems, each naming the file (and page)."""
    problems = []
    for ledger_name, what in ((LEDGER, "generated page"), (HTML_LEDGER, "HTML file")):
        ledger = records / ledger_name
        if not ledger.exists():
            problems.append(f"the {lang} edition left no record of its {what}s ({ledger_name}): it did not finish")
            continue
        recorded = json.loads(ledger.read_text(encoding="utf-8"))
        folder, owners = Path(recorded["folder"]), recorded.get("owners", {})
        for name in diff(recorded["files"], tree(folder)):
            page = f" (an output of {owners[name]})" if name in owners else ""
            problems.append(f"{lang}: the {what} {folder.name}/{name}{page} changed after Sphinx wrote it "
                            f"(an atexit handler, a thread or a process a page left?)")  # fmt: skip
    return problems
