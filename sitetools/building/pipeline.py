"""Build the whole site, and publish it only when every check passed.

    python docs/build_site.py [--out build/html] [--lang CODE ...] [--only PART/plot_NAME|PAGE ...]

The build is the gate: what it publishes is complete and was produced by this run, or nothing is
published at all. In order, it

1. refuses an output or staging folder that could hold anything it did not create (the checkout, its
   source folders, ``.git``, home, ``/``, or an existing folder without its marker file);
2. takes a lock, so a second build in the same place waits for nothing and refuses at once;
3. checks the page rules (:mod:`sitetools.rules.sources`: layout, parity between editions, code rules; and
   :mod:`sitetools.rules.active_content`: no raw HTML, scripts, ``javascript:`` links or symlinks) and
   runs the narrative pages' doctests (while Sphinx runs; a preview only those of the narrative pages it
   keeps: the home page and those it names);
4. copies the sources into a fresh staging folder, then runs one ``sphinx-build -W -n --keep-going``
   per edition, side by side, each in a process group of its own, each example under
   :mod:`sitetools.guard.example` (fresh state, time limit, warnings and logging as errors, a completion
   record) and :mod:`sitetools.guard.outputs` (it writes only its own outputs and leaves no process
   running);
5. once every Sphinx process has exited, ends what they left running, then verifies that every example
   ran to its end and has its page with output, that its output blocks show only what its own prints
   wrote (:mod:`sitetools.guard.output_channels`), that editions printed identical output blocks (a
   second execution of the same code, so nondeterminism shows), and that no file of the checkout or of
   the staged sources changed;
6. writes the landing page and the search index, then swaps the new site into place as a whole.

It guards against a careless page, not a hostile one: MAINTAINING.md, "Trust model".

The folders, the lock and the publishing swap are :mod:`sitetools.building.folders`; the Sphinx
processes are :mod:`sitetools.building.sphinx_runs`. A failed, interrupted or concurrent build leaves the
previous site untouched and says so in its last line and its exit code. ``--lang`` or ``--only`` make
a preview: marked on every page, written to ``build/preview`` by default, never allowed to replace a
published site, and without the narrative pages but the home page (and so without their doctests).
``--only`` names examples (``copying/plot_04_detach``) or narrative pages (``quickref``: the page
``docs/<lang>/quickref.md`` of every edition): the preview builds the examples it names and no other,
and keeps the narrative pages it names beside the home page, with their doctests; a name that is
neither fails the build (:func:`preview_parts`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from editions import CODES, edition, pick
from sitetools import settings, web
from sitetools.building import descendants, edition_outputs, sphinx_runs
from sitetools.building.folders import (
    BuildError,
    changes,
    check_owned,
    fingerprint_tree,
    is_within,
    locked,
    make_owned,
    publish,
    remove_abandoned,
    remove_owned,
)
from sitetools.building.sphinx_runs import preview_kept, start_edition, stop, wait_for
from sitetools.guard import output_channels
from sitetools.guard import outputs as page_outputs
from sitetools.rules import active_content, all_rules, checks_manifest, sources
from sitetools.web import search as site_search

ROOT = sources.ROOT
#: What the build copies into its staging folder: everything a Sphinx build of the site imports.
STAGED = ("docs", "gallery", "editions", "sitetools", "tensorfacts")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
STAGE_PREFIX = "tensorcopy-stage-"  # the temporary staging folders (removed when a killed build left one)
EXAMPLES_DIR = page_outputs.GENERATED  # where sphinx-gallery puts the pages of gallery/<lang>/ in each edition
PREVIEW_NOTE = {
    "en": "Preview of {pages}: not the published site. Build the whole site with: nox -s docs",
    "zh_CN": "预览（{pages}）：这不是正式发布的网站。构建完整网站：nox -s docs",
}


#: An output block of a sphinx-gallery page, as it writes one (the same text gives the same markup).
OUTPUT_BLOCK = re.compile(r'<div class="sphx-glr-script-out[^"]*">.*?</div>', flags=re.S)


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM: a KeyboardInterrupt, so that no code in between (doctest's runner catches
    everything else) can swallow it."""


# --- Checking sources ---------------------------------------------------------------------------


def check_sources(preview: bool, only: list[str] | None) -> None:
    """Every page rule; a preview also accepts checks that ``gallery/asserts.json`` does not record yet
    (it says so), the full build does not. A preview of some examples (``only``, not None) reads those pages'
    scripts only, in the rules that read one script at a time (:func:`sitetools.rules.all_rules.check_sources`)."""
    problems = (all_rules.check_sources(CODES, manifest=False, processes=len(CODES), only=only)
                + active_content.check(ROOT))  # fmt: skip
    unrecorded = all_rules.unrecorded(CODES, only=only)
    if not preview:
        problems += unrecorded
    if problems:
        raise BuildError(f"{len(problems)} page rule(s) broken:\n  " + "\n  ".join(problems))
    if unrecorded:
        print(f"note: the checks of {len(unrecorded)} line(s) below are not recorded in gallery/asserts.json or in "
              f"a catalog of check messages; "
              f"the preview runs them, but `nox -s docs` and `nox -s fast` refuse them until each is recorded as its "
              f"line says (`{checks_manifest.UPDATE_COMMAND}` for the manifest):\n  " + "\n  ".join(unrecorded),
              flush=True)


def check_doctests(langs: list[str], docs: Path = ROOT / "docs", names: tuple[str, ...] | None = None,
                   scratch: Path | None = None, guarded: tuple[Path, ...] = ()) -> int:  # fmt: skip
    """Run the doctests of the narrative pages of ``langs`` (those called ``names``, default all) in a
    process of their own, with ``scratch`` (default: a temporary folder) as their working folder and the
    only folder they may write: a write into the checkout or ``guarded`` fails, named by its page and line
    (:mod:`sitetools.building.doctests`). Return how many examples ran."""
    targets = [f"{page}={page.relative_to(docs.parent).as_posix()}" for lang in langs
               for page in sources.narrative_pages(lang, docs) if names is None or page.name in names]  # fmt: skip
    with contextlib.ExitStack() as stack:
        if scratch is None:
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tensorcopy-doctests-")))
        scratch.mkdir(parents=True, exist_ok=True)
        folders = [folder for folder in dict.fromkeys((ROOT, docs.parent, *guarded)) if folder.exists()]
        command = [sys.executable, "-m", "sitetools.building.doctests", f"--scratch={scratch}",
                   *(f"--guard={f}" for f in folders), f"--checkout={ROOT}", *targets]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
        result = subprocess.run(command, capture_output=True, text=True, cwd=scratch, env=env)
    lines = result.stdout.strip().splitlines()
    try:
        report = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise BuildError("the narrative pages' doctests did not finish (an example ended their process?):\n"
                         + (result.stdout + result.stderr).strip()[-2000:]) from None  # fmt: skip
    if report["failures"]:
        raise BuildError("a narrative page's doctest fails:\n" + "\n".join(report["failures"]))
    return report["ran"]


# --- Building -----------------------------------------------------------------------------------


def compile_catalogs(docs: Path, langs: list[str]) -> None:
    """Compile the theme's message catalogs before staging is fingerprinted, so that the Sphinx processes
    need not write into the staged ``docs/_locale``."""
    from sphinx.util.i18n import CatalogRepository

    for lang in langs:
        for catalog in CatalogRepository(str(docs), ["_locale"], lang, "utf-8").catalogs:
            if catalog.is_outdated():
                catalog.write_mo(lang)


def stage_sources(stage: Path, langs: list[str], only: list[str] | None) -> Path:
    """Copy the sources into ``stage``; with ``only`` (not None), the example scripts of those pages only."""
    for name in STAGED:
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, stage / name, ignore=IGNORE, symlinks=True)
    compile_catalogs(stage / "docs", langs)
    if only is not None:
        for lang in langs:
            for script in sources.gallery_scripts(lang, stage / "gallery"):
                if sources.relative_name(script, stage / "gallery") not in only:
                    script.unlink()
    return stage / "docs"


def verify_examples(out: Path, stage: Path, langs: list[str], scripts: dict[str, list[str]]) -> None:
    """Every example ran to its end, its page shows its code and output, its output is what its own prints
    wrote (:func:`sitetools.guard.output_channels.unprinted`), the editions printed and drew the same, and no
    page is over the weight limit (:mod:`sitetools.building.edition_outputs`)."""
    problems = []
    outputs: dict[str, dict[str, list[str]]] = {}
    built: dict[str, dict[str, Path]] = {}
    for lang in langs:
        done = {p.name.removesuffix(".done"): p for p in (stage / "records" / lang).glob("*.done")}
        for name in scripts[lang]:
            source = f"gallery/{lang}/{name}.py"
            if Path(name).name + ".py" not in done:
                problems.append(f"{source} did not run to its end (an exit(), os._exit() or a killed process?)")
                continue
            page = out / lang / EXAMPLES_DIR / f"{name}.html"
            if not page.exists():
                problems.append(f"{source} has no page {page.relative_to(out)}")
                continue
            built.setdefault(name, {})[lang] = page
            text = page.read_text(encoding="utf-8")
            matches = list(OUTPUT_BLOCK.finditer(text))
            blocks = [match.group(0) for match in matches]
            if not blocks:
                problems.append(f"{source}: its page shows no output block")
            printed = json.loads(done[Path(name).name + ".py"].read_text(encoding="utf-8")).get("printed")
            problems += output_channels.unprinted(source, output_channels.shown_blocks(text, matches), printed)
            outputs.setdefault(name, {})[lang] = blocks
    reference = langs[0]
    for name, by_lang in outputs.items():
        for lang, blocks in by_lang.items():
            if lang != reference and reference in by_lang and blocks != by_lang[reference]:
                first = next((i for i, (a, b) in enumerate(zip(by_lang[reference], blocks, strict=False)) if a != b),
                             min(len(blocks), len(by_lang[reference])))  # fmt: skip
                problems.append(
                    f"gallery/{lang}/{name}.py printed other output than gallery/{reference}/{name}.py "
                    f"(output block {first + 1}): the same code gave two results, so the page is not "
                    f"reproducible (unseeded randomness, an address, a time?) {sources.guide('Printing')}"
                )
    problems += edition_outputs.figure_problems(built, reference) + edition_outputs.weight_problems(out)
    if problems:
        raise BuildError(f"{len(problems)} example(s) incomplete, showing output they did not print, or not "
                         "reproducible:\n  " + "\n  ".join(problems))  # fmt: skip


def check_unchanged(checkout: dict, staged: dict, stage: Path, own: tuple[Path, ...],
                    scratch: tuple[Path, ...]) -> None:  # fmt: skip
    """Before publishing, once every Sphinx process has exited: the checkout and the staged sources are as
    they were (a page that saved a file into its working folder, or wrote into the checkout, is found)."""
    touched = [f"the checkout's {item}" for item in changes(checkout, fingerprint_tree(ROOT, leave_out=own))]
    touched += [f"the staged {item}" for item in changes(staged, fingerprint_tree(stage, leave_out=scratch))]
    if touched:
        raise BuildError("files changed while the examples ran (an example, or a process it started, wrote where "
                         "it must not; or a file was edited during the build: then build again):\n  "
                         + "\n  ".join(touched))  # fmt: skip


def write_landing(out: Path) -> None:
    shutil.copyfile(ROOT / "docs" / "_landing" / "index.html", out / "index.html")


def run_editions(out: Path, building: Path, stage: Path, langs: list[str], only: list[str], kind: str,
                 timeout: float) -> float:  # fmt: skip
    """Stage, build every edition into ``building``, verify, then publish it as ``out``; return the
    seconds the Sphinx processes ran (the rest of the build's time is its own checks). ``only``: the names
    a preview was given (:func:`preview_parts`)."""
    examples, pages = preview_parts(only, langs) if only else (None, [])
    kept = preview_kept(pages)  # the narrative pages a preview keeps
    if any(char.isspace() for char in str(stage)):
        raise BuildError(f"the staging folder {stage} has a space in its path, which sphinx-gallery cannot "
                         f"build from; choose another with --stage (the checkout itself may have spaces)")
    own = (out, building, out.parent / f".{out.name}.previous", out.parent / f".{out.name}.lock", stage)
    checkout_before = fingerprint_tree(ROOT, leave_out=own)
    remove_owned(stage)
    make_owned(stage, "stage")
    remove_owned(building)
    make_owned(building, kind)
    docs = stage_sources(stage, langs, examples)
    if kind == "preview":  # the staged manifest records the previewed pages' checks as they stand
        checks_manifest.record_for_preview(stage / "gallery")
    scratch = tuple(folder for lang in langs for folder in sphinx_runs.scratch(docs, lang, building, stage))
    logs = tuple(stage / f"sphinx-{lang}.log" for lang in langs)
    doctest_scratch = stage / "doctests"  # the narrative pages' doctests run there (check_doctests)
    scratch += (doctest_scratch,)
    staged_before = fingerprint_tree(stage, leave_out=scratch + logs)
    staged = stage / "gallery"
    scripts = {lang: [sources.relative_name(s, staged) for s in sources.gallery_scripts(lang, staged)]
               for lang in langs}
    notes = {lang: "" for lang in langs}
    if kind == "preview":
        names = ", ".join(only) if only else "+".join(langs)
        notes = {lang: str(pick(PREVIEW_NOTE, lang, "the preview note")).format(pages=names) for lang in langs}
    print(f"Building {', '.join(langs)} ({sum(map(len, scripts.values()))} examples) ...", flush=True)
    processes: dict[str, subprocess.Popen] = {}
    ours = tuple(descendants.of(os.getpid()))  # processes this one had before (none, unless it is a test run)
    sphinx_started = time.monotonic()
    try:
        for lang in langs:
            processes[lang] = start_edition(docs, lang, building, stage, timeout, notes[lang], kept)
        guarded = tuple(path for path in (stage, building, out) if path.exists())
        if kind == "preview":  # it leaves the other narrative pages out, and so the checks they make
            ran = check_doctests(langs, names=kept, scratch=doctest_scratch, guarded=guarded)
            print(f"  doctests of the narrative pages it shows ({', '.join(kept)}): {ran} examples pass", flush=True)
        else:
            ran = check_doctests(langs, scratch=doctest_scratch, guarded=guarded)
            print(f"  doctests of the narrative pages: {ran} examples pass", flush=True)
        longest = max(map(len, scripts.values()), default=0)
        wait_for(processes, stage, scripts, time.monotonic() + timeout * (longest + 1) + 120)
        sphinx_seconds = time.monotonic() - sphinx_started
    finally:
        stop(processes)
        left = descendants.end_all(os.getpid(), keep=ours)  # orphans of the Sphinx runs (this is their subreaper)
    if left:
        raise BuildError(f"processes started while the examples ran were still running after Sphinx ended "
                         f"(they were ended): {', '.join(left)}")  # fmt: skip
    verify_examples(building, stage, langs, scripts)
    check_unchanged(checkout_before, staged_before, stage, own, scratch + logs)
    write_landing(building)
    web.write_root_files(building, langs)  # favicon, 404, robots.txt, sitemap, the landing page's alternates
    indexing = time.monotonic()
    try:
        sizes = site_search.write(building, langs, complete=kind != "preview")
    except site_search.SearchIndexError as error:
        raise BuildError(f"the search index: {error}") from None
    print("  search index: " + ", ".join(f"{lang} {size / 1024:.0f} KB" for lang, size in sizes.items())
          + f" ({time.monotonic() - indexing:.1f} s)", flush=True)
    publish(building, out)
    return sphinx_seconds


def refuse_optimised() -> None:
    """Python run optimised (``-O``, ``PYTHONOPTIMIZE``, here or in the Sphinx processes, which inherit the
    environment) strips every ``assert``: each page would report checks that never ran."""
    if sys.flags.optimize or os.environ.get("PYTHONOPTIMIZE"):
        raise BuildError("refusing to build with Python optimised (-O or PYTHONOPTIMIZE): it strips every assert, so "
                         "the pages would report checks that never ran; run without it")


def refuse_overlap(stage: Path | None, out: Path, building: Path) -> None:
    """The staging folder is the build's scratch space: it may not be, hold or sit inside the output, its work
    folder or the published site, which a failed build would otherwise lose."""
    if stage is None:
        return
    for folder, what in ((out, "the output folder"), (building, "its work folder"),
                         (ROOT / "build" / "html", "the published site")):
        if is_within(stage, folder) or is_within(folder, stage):
            raise BuildError(f"refusing --stage {stage}: it overlaps {what} ({folder})")


def preview_parts(only: list[str], langs: list[str], gallery: Path = sources.GALLERY,
                  docs: Path = ROOT / "docs") -> tuple[list[str], list[str]]:  # fmt: skip
    """The names given to ``--only``, split into examples (``copying/plot_04_detach``) and narrative pages
    (``quickref``: ``docs/<lang>/quickref.md`` in every edition of ``langs``), each in the order given; a name
    that is neither fails the build, named."""
    examples = {sources.relative_name(s, gallery) for lang in langs for s in sources.gallery_scripts(lang, gallery)}
    pages = set.intersection(*({page.stem for page in sources.narrative_pages(lang, docs)} for lang in langs))
    if unknown := [name for name in only if name not in examples | pages]:
        raise BuildError(f"--only: no such example or narrative page {', '.join(unknown)}; the examples are "
                         f"{', '.join(sorted(examples))}; the narrative pages are {', '.join(sorted(pages))}")
    return [name for name in only if name in examples], [name for name in only if name in pages]


def build(args: argparse.Namespace) -> str:
    started = time.monotonic()
    refuse_optimised()
    langs = args.languages or list(CODES)
    for lang in langs:
        edition(lang)
    preview = bool(args.only) or set(langs) != set(CODES)
    kind = "preview" if preview else "site"
    out = check_owned(args.out or ROOT / "build" / ("preview" if preview else "html"), "the output folder", kind)
    building = check_owned(out.parent / f".{out.name}.building", "the work folder")
    stage = check_owned(args.stage, "the staging folder") if args.stage else None
    refuse_overlap(stage, out, building)
    only = sorted(set(args.only or []))
    examples = preview_parts(only, langs)[0] if only else None  # fails on a name that is no page
    with locked(out):
        abandoned = remove_abandoned(sorted(Path(tempfile.gettempdir()).glob(f"{STAGE_PREFIX}*")))
        for folder in abandoned:
            print(f"removed {folder}: the staging folder of a build that no longer runs (killed?)", flush=True)
        check_sources(preview, examples)
        descendants.become_subreaper()  # what the Sphinx processes leave behind stays ours to end
        temporary = stage is None
        stage = stage or Path(tempfile.mkdtemp(prefix=STAGE_PREFIX))
        try:
            sphinx_seconds = run_editions(out, building, stage, langs, only, kind, args.example_timeout)
        finally:
            remove_owned(building)  # still there only when the build failed
            if temporary:
                remove_owned(stage)
    seconds = time.monotonic() - started
    what = "a preview of " + (", ".join(only) if only else ", ".join(langs)) if preview else ", ".join(langs)
    return (f"Published {what} in {seconds:.1f} s (Sphinx {sphinx_seconds:.1f} s, the gate's own work "
            f"{seconds - sphinx_seconds:.1f} s): {out / 'index.html'}")


def _interrupt(signum, frame):
    raise Interrupted(f"interrupted by {signal.Signals(signum).name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="output folder (default build/html; build/preview for a preview)")
    parser.add_argument("--stage", type=Path, help="staging folder, kept after the build (default: a temporary one)")
    parser.add_argument("--lang", action="append", dest="languages", help=f"one edition only ({', '.join(CODES)})")
    parser.add_argument("--only", action="append", metavar="PART/plot_NAME|PAGE",
                        help="preview these examples only, and these narrative pages (quickref) beside the home page")
    parser.add_argument("--example-timeout", type=float, default=settings.current().example_timeout,
                        help="seconds one example may run (default %(default)s)")  # fmt: skip
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    previous = "the previous site, if any, is untouched"
    try:
        print(build(args), flush=True)
        return 0
    except Interrupted as error:
        print(f"STOPPED: {error}; nothing was published, {previous}.", file=sys.stderr, flush=True)
        return 130
    except BuildError as error:
        print(f"FAILED: {error}\nFAILED: nothing was published; {previous}.", file=sys.stderr, flush=True)
        return 1
