"""Run one command (an edition's ``sphinx-build``) where it can write only its own scratch space.

    python -m sitetools.sandbox --write DIR [...] --read-only DIR [...] [--seal FILE ...] -- COMMAND ...

On Linux, where the process may make namespaces (root, or an unprivileged user namespace), the command
runs in a mount namespace of its own in which every ``--read-only`` folder (the checkout, the staging
tree, the work folder, the published site) is mounted read-only, except the ``--write`` folders under
them (this edition's generated pages, doctrees, records and HTML), and every ``--seal`` file (the edition's
hand-written sources, which lie in the folder Sphinx reads and sphinx-gallery writes into) is mounted
read-only again inside its writable folder; and in a PID namespace of its own, so
that when the command ends every process it left behind (a ``setsid`` child, a double fork, a
``sleep``) is ended by the kernel. A write outside its folders fails with "Read-only file system" in
the page that tried it.

Where namespaces cannot be made (a container that forbids them), the command runs as it is and the
first line of its output says so; the build's fingerprints (:mod:`sitetools.page_outputs`,
:func:`sitetools.build_folders.fingerprint_tree`) and its collection of descendants still hold.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
from pathlib import Path

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1, 2, 4, 8, 32, 4096, 16384, 1 << 18)  # fmt: skip
PR_SET_PDEATHSIG = 1
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}
#: The environment variable that tells the command which kind of sandbox it runs in.
KIND_ENV = "TENSORCOPY_SANDBOX"
#: Set (to anything) to run without namespaces, as on a machine that forbids them (for the tests).
OFF_ENV = "TENSORCOPY_NO_SANDBOX"

_libc = ctypes.CDLL(None, use_errno=True)


class SandboxUnavailable(OSError):
    """This machine does not let the build make the namespaces."""


def _call(name: str, *args) -> None:
    if getattr(_libc, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{name}{args!r}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, flags: int, fstype: str | None = None) -> None:
    _call("mount", source and source.encode(), target.encode(), fstype and fstype.encode(), flags, None)


def _bind(path: Path, read_only: bool) -> None:
    """Mount ``path`` over itself, read-only or writable (a bind mount starts with its source's flags)."""
    _mount(str(path), str(path), MS_BIND | MS_REC)
    _mount(None, str(path), MS_BIND | MS_REMOUNT | (MS_RDONLY if read_only else 0))


def enter(read_only: list[Path], write: list[Path], seal: list[Path] = ()) -> str:
    """Make and enter the namespaces (the caller's next fork is the PID namespace's first process);
    return the kind of sandbox made. Raise :class:`SandboxUnavailable` where none can be made."""
    uid, gid = os.getuid(), os.getgid()
    if os.environ.get(OFF_ENV):
        raise SandboxUnavailable(f"{OFF_ENV} is set")
    try:
        if uid == 0:
            _call("unshare", CLONE_NEWNS | CLONE_NEWPID)
            kind = "namespaces"
        else:
            _call("unshare", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID)
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
            Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
            kind = "user namespaces"
        _mount(None, "/", MS_REC | MS_PRIVATE)
    except OSError as error:
        raise SandboxUnavailable(str(error)) from error
    for path in read_only:
        if path.exists():
            _bind(path, read_only=True)
    for path in write:  # a writable mount inside a read-only one
        _bind(path, read_only=False)
    for path in seal:  # a read-only file inside a writable folder: it can be neither written, moved nor removed
        _bind(path, read_only=True)
    os.chdir(os.getcwd())  # the working folder, seen through the new mounts (else it escapes them)
    return kind


def _probe(read_only: list[Path], write: list[Path], seal: list[Path]) -> str | None:
    """Try :func:`enter` and the PID namespace's own ``/proc`` in a throwaway child (a machine may allow
    one step and refuse the next, and a half-made sandbox cannot be undone); return why it failed."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(reading)
        code = 1
        try:
            enter(read_only, write, seal)
            first = os.fork()
            if first == 0:
                try:
                    _mount("proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "proc")
                    os._exit(0)
                except OSError as error:
                    os.write(writing, f"mounting /proc: {error}".encode())
                    os._exit(1)
            _, status = os.waitpid(first, 0)
            code = os.waitstatus_to_exitcode(status)
        except BaseException as error:  # noqa: B036 - the child must end here, whatever happened
            os.write(writing, str(error).encode())
        finally:
            os._exit(code)
    os.close(writing)
    with os.fdopen(reading, "rb") as pipe:
        reason = pipe.read().decode(errors="replace")
    _, status = os.waitpid(child, 0)
    return None if os.waitstatus_to_exitcode(status) == 0 else reason or "refused"


def _die_with_parent() -> None:
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _forward_stop_signals(child: int) -> None:
    """Pass SIGTERM and SIGINT on to the child, then let through any that came while they were blocked."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, lambda s, f: os.kill(child, s))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def _first_process(command: list[str], kind: str) -> int:
    """The PID namespace's first process: run the command, forward SIGTERM/SIGINT to it, and return its
    exit code. When this process returns, the kernel ends every process left in the namespace."""
    _die_with_parent()
    _mount("proc", "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "proc")  # this namespace's processes only
    child = os.fork()  # SIGTERM and SIGINT are still blocked (see main): none is lost before its handler
    if child == 0:
        _die_with_parent()
        os.environ[KIND_ENV] = kind
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # a signal already sent is delivered now
        os.execvp(command[0], command)
    _forward_stop_signals(child)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except ChildProcessError:
            return 1
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status) % 256
    left = [entry.name for entry in Path("/proc").iterdir() if entry.name.isdigit() and entry.name != "1"]
    if left:  # started after the last page (an atexit handler): ended with this namespace, but said
        commands = [(Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    for pid in left if (Path("/proc") / pid / "cmdline").exists()]  # fmt: skip
        print(f"ERROR: processes were still running after Sphinx ended (they were ended): "
              f"{', '.join(c.strip() for c in commands)}", flush=True)  # fmt: skip
        return code or 1
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--read-only", action="append", type=Path, default=[])
    parser.add_argument("--write", action="append", type=Path, default=[])
    parser.add_argument("--seal", action="append", type=Path, default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    try:
        if os.environ.get(OFF_ENV):
            raise SandboxUnavailable(f"{OFF_ENV} is set")
        if refused := _probe(args.read_only, args.write, args.seal):
            raise SandboxUnavailable(refused)
        kind = enter(args.read_only, args.write, args.seal)
    except SandboxUnavailable as error:
        print(f"sandbox: none on this machine ({error}); the build's fingerprints still hold", flush=True)
        os.environ[KIND_ENV] = "none"
        os.execvp(command[0], command)
    print(f"sandbox: {kind} (mount and PID); writable: only its {len(args.write)} own folders, "
          f"{len(args.seal)} sources in them read-only", flush=True)
    # Until this process forwards SIGTERM, a SIGTERM (the build died) would end it with the default action
    # before its child asked to die with it; that child would then run the pages on. Blocked, it waits.
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    first = os.fork()
    if first == 0:
        code = 1
        try:
            code = _first_process(command, kind)
        finally:
            os._exit(code)
    _forward_stop_signals(first)
    while True:
        try:
            _, status = os.waitpid(first, 0)
            return os.waitstatus_to_exitcode(status) % 256
        except InterruptedError:
            continue


if __name__ == "__main__":
    sys.exit(main())
