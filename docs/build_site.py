"""Build the whole site: every language edition, then the landing page.

    python docs/build_site.py [--out build/html] [--stage build/stage] [--lang en] [--lang zh_CN]

The sources (docs/ and gallery/) are copied into a fresh staging folder first, because
sphinx-gallery writes its generated pages next to the Sphinx sources: the source tree stays clean
and no generated page or cached output can survive from an earlier build. Each edition is built by
its own ``sphinx-build -W -n --keep-going -E`` process; the editions run side by side. Any warning
or error fails the build, and the failing edition's log is printed.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

from sitetools.editions import CODES as LANGUAGES  # noqa: E402  (the table of editions)

IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


def stage_sources(stage: Path) -> Path:
    """Copy docs/, gallery/ and the packages the build imports into a new, empty ``stage``; return
    the staged docs folder."""
    if stage.exists():
        shutil.rmtree(stage)
    for name in ("docs", "gallery", "sitetools", "tensorfacts"):
        shutil.copytree(ROOT / name, stage / name, ignore=IGNORE)
    return stage / "docs"


def start_edition(docs: Path, language: str, out: Path, log: Path) -> subprocess.Popen:
    """Start the Sphinx build of one edition, writing its output to ``log``."""
    target = out / language
    if target.exists():
        shutil.rmtree(target)
    command = [
        sys.executable, "-m", "sphinx",
        "-W", "-n", "--keep-going", "-E",
        "-b", "html",
        "-d", str(docs.parent / "doctrees" / language),
        str(docs / language), str(target),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env)


def build(out: Path, stage: Path, languages: list[str]) -> int:
    """Build ``languages`` into ``out``; return the number of editions that failed."""
    started = time.perf_counter()
    docs = stage_sources(stage)
    out.mkdir(parents=True, exist_ok=True)
    running = {}
    for language in languages:
        log = stage / f"sphinx-{language}.log"
        running[language] = (start_edition(docs, language, out, log), log)
    failed = []
    for language, (process, log) in running.items():
        if process.wait() != 0:
            failed.append(language)
            print(log.read_text(encoding="utf-8"), file=sys.stderr)
            print(f"FAILED: the {language} edition (docs/{language}, gallery/{language}); "
                  f"log above, also in {log}", file=sys.stderr)
    shutil.copyfile(DOCS / "_landing" / "index.html", out / "index.html")
    seconds = time.perf_counter() - started
    built = ", ".join(lang for lang in languages if lang not in failed) or "nothing"
    print(f"Built {built} in {seconds:.1f} s. Open {(out / 'index.html').resolve()}")
    return len(failed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "html")
    parser.add_argument("--stage", type=Path, default=ROOT / "build" / "stage")
    parser.add_argument("--lang", action="append", choices=LANGUAGES, dest="languages")
    args = parser.parse_args()
    return 1 if build(args.out, args.stage, args.languages or list(LANGUAGES)) else 0


if __name__ == "__main__":
    sys.exit(main())
