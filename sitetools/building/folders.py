"""The folders of a build: which ones it may create, replace or delete, its lock, the fingerprint that
shows whether sources changed, and the swap that publishes a finished site as a whole.

The build never deletes a folder it did not create: it marks its own with :data:`MARKER`, and refuses
an output or staging folder that could hold anything else (the checkout, its source folders, home, ``/``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from sitetools.rules.sources import ROOT

#: Source folders of the checkout that no build may write into or delete.
SOURCES = (".git", ".ci", "docs", "gallery", "editions", "sitetools", "tensorfacts", "tests", "node_modules")
MARKER = ".tensorcopy-build"
COMPILED = (".pyc", ".mo")  # written by Python and by Sphinx's catalog compiler while building


class BuildError(Exception):
    """A reason to stop the build; its message is the build's last word."""


def is_within(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it."""
    return path == folder or folder in path.parents


def check_owned(path: Path, what: str, kind: str | None = None) -> Path:
    """Return ``path`` resolved if the build may create and replace it, else raise :class:`BuildError`."""
    path = path.expanduser().resolve()
    for precious in (ROOT, Path.home().resolve()):
        if is_within(precious, path):
            raise BuildError(f"refusing {what} {path}: it is or contains {precious}; nothing was deleted")
    for name in SOURCES:
        if is_within(path, ROOT / name):
            raise BuildError(f"refusing {what} {path}: it lies in the source folder {name}/; nothing was deleted")
    if path.exists():
        marker = path / MARKER
        if path.is_dir() and not marker.exists() and not any(path.iterdir()):
            return path  # an empty folder holds nothing to lose
        if not marker.is_file():
            raise BuildError(
                f"refusing {what} {path}: it exists and was not made by this build (no {MARKER} inside); "
                f"choose another folder or remove it yourself"
            )
        if kind == "preview" and json.loads(marker.read_text(encoding="utf-8")).get("kind") == "site":
            raise BuildError(f"refusing to replace the published site in {path} with a preview; use --out")
    return path


def make_owned(path: Path, kind: str) -> Path:
    """Mark ``path`` as this build's. A staging folder's marker also names the build's process, so that
    a later build can tell an abandoned one (:func:`remove_abandoned`); the marker that ends up in the
    published site names none, so that two builds publish the same files."""
    path.mkdir(parents=True, exist_ok=True)
    mark = {"kind": kind, "pid": os.getpid()} if kind == "stage" else {"kind": kind}
    (path / MARKER).write_text(json.dumps(mark) + "\n", encoding="utf-8")
    return path


def remove_abandoned(folders: list[Path]) -> list[Path]:
    """Delete those of ``folders`` that a build made (its marker) whose process no longer runs (a build
    killed outright cannot clean up); return them. Folders without the marker are never touched."""
    removed = []
    for folder in folders:
        if folder.is_symlink() or not folder.is_dir():
            continue  # a link someone put where builds stage: never followed, never removed
        marker = folder / MARKER
        try:
            pid = int(json.loads(marker.read_text(encoding="utf-8"))["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not ours, or from a build that did not record its process
        try:
            os.kill(pid, 0)
            continue  # still running
        except ProcessLookupError:
            pass
        except PermissionError:
            continue  # another user's running process
        shutil.rmtree(folder)
        removed.append(folder)
    return removed


def remove_owned(path: Path) -> None:
    """Delete a folder this build created (it carries the marker); anything else is left alone."""
    if path.is_dir() and (path / MARKER).exists():
        shutil.rmtree(path)


@contextlib.contextmanager
def locked(out: Path) -> Iterator[None]:
    """Hold the build lock of ``out``; a second build of the same output refuses at once."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lock_path = out.parent / f".{out.name}.lock"
    with lock_path.open("a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            raise BuildError(
                f"another build is writing {out} (pid {lock.read().strip() or '?'}); wait for it to finish"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        yield


# --- Fingerprints and publishing ----------------------------------------------------------------


#: Folders of the checkout whose content no page can change what the site says: what builds and tools
#: write (the build's own output is left out by the caller), and git's own records, which any git
#: command writes while a build runs (a commit, a new worktree). Of ``.git`` only what makes git run
#: code or changes what it does is watched: :data:`GIT_WATCHED`.
UNWATCHED = ("build", ".nox", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache", ".git")
GIT_WATCHED = (".git/hooks", ".git/config", ".git/info")


def fingerprint_tree(root: Path, leave_out: tuple[Path, ...] = (), unwatched: tuple[str, ...] = UNWATCHED,
                     ) -> dict[str, str]:  # fmt: skip
    """A digest of every file under ``root`` (tracked, untracked, ignored alike), by relative path, but
    for the folders ``unwatched`` (relative to ``root``, or a bare name anywhere) and ``leave_out``,
    compiled files, and symlinks (named by their target instead)."""
    prints = {}
    skipped = {root / name for name in unwatched if "/" in name} | set(leave_out)
    names = {name for name in unwatched if "/" not in name}
    walked = [root] + [root / name for name in GIT_WATCHED if ".git" in unwatched and (root / name).is_dir()]
    prints |= {name: hashlib.sha256((root / name).read_bytes()).hexdigest()
               for name in GIT_WATCHED if ".git" in unwatched and (root / name).is_file()}  # fmt: skip
    for folder, dirs, files in (step for top in walked for step in os.walk(top)):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in names and here / d not in skipped)
        for name in files:
            path = here / name
            if path.suffix in COMPILED or path in skipped:
                continue
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                prints[relative] = f"symlink to {os.readlink(path)}"
            elif path.is_file():
                prints[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return prints


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(
        [f"{name} changed" for name in before.keys() & after.keys() if before[name] != after[name]]
        + [f"{name} was deleted" for name in before.keys() - after.keys()]
        + [f"{name} was created" for name in after.keys() - before.keys()]
    )


def publish(building: Path, out: Path) -> None:
    """Swap the finished site into place as a whole; the old one goes only after the new one is there."""
    previous = out.parent / f".{out.name}.previous"
    remove_owned(previous)
    if out.exists() and any(out.iterdir()):
        out.rename(previous)
    elif out.exists():
        out.rmdir()
    building.rename(out)
    remove_owned(previous)
