"""Measure the site as a phone reads it: Lighthouse (mobile profile) on the pages that matter.

    python -m sitetools.web.audit [--site build/html] [--port 8765] [--reports build/audit-reports]
                              [--page en/examples/index.html --repeat 3]

Without ``--site`` the site is built first into ``build/audit`` with ``SITE_URL`` set to the address it
is served on, so the absolute canonical and hreflang links are checked as they will be published.
The site is served on 127.0.0.1, and Lighthouse (npm, pinned in package-lock.json; the system
Chromium) audits the landing page and, in each edition, one page of every type (:data:`PAGE_TYPES`).
For each page it prints the four scores, the bytes transferred, the blocking time, speed index and
largest paint, the console errors and the requests to other hosts, and fails if one is over its
budget (:data:`BUDGETS`). ``--page`` (repeatable) audits those pages instead.

Each page is measured ``--repeat`` times (default 5) and judged by its median run, as Lighthouse's
own guide to variability advises. Chromium runs with paint holding off (:data:`CHROME_FLAGS`). A run
whose first paint the browser still held back is not counted (:func:`held_paint`): headless Chromium
can withhold frames from a loading page for one or two whole seconds (Lighthouse issue 17148), so its
first paint comes long after its load event while its main thread sits idle, and Lantern turns that
wait into a speed index of 2.4 or 3.7 s. Such runs are reported, and run again, up to
:data:`MAX_ATTEMPTS` times the runs asked for; a page none of whose runs painted freely fails.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import http.server
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from editions import CODES
from sitetools import settings
from sitetools.web import web_build

ROOT = Path(__file__).resolve().parents[2]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
#: Chromium as Lighthouse drives it, headless, with paint holding off (as Playwright launches it): with
#: it on, headless Chromium held the first paint of 22 of 36 runs on this site back by 0.9 or 1.8 s while
#: the page's main thread sat idle (Lighthouse issue 17148), and Lighthouse scores that wait.
CHROME_FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
                "--disable-features=PaintHolding")  # fmt: skip
#: The pages audited, relative to the site root: the landing page, then one page of each type in every
#: edition: the home, an example page with figures, a question page, the claims ledger, the behaviour
#: matrix (long tables), the tables of view operations and of saved tensors, and the examples index (a
#: thumbnail per page).
PAGE_TYPES = ("index.html", "examples/copying/plot_04_detach.html", "examples/questions/plot_03_best_weights.html",
              "ledger.html", "matrix.html", "views.html", "saved.html", "examples/index.html")  # fmt: skip
PAGES = ("", *(f"{code}/{page}" for page in PAGE_TYPES for code in CODES))
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
#: Lowest score of each category, and the most bytes a page may transfer.
BUDGETS = {"performance": 0.98, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}
MAX_BYTES = 150 * 1024
#: Lighthouse's measurements printed beside the scores, to see what costs performance.
TIMINGS = {"tbt": "total-blocking-time", "si": "speed-index", "lcp": "largest-contentful-paint"}
#: A first paint this long after the load event, with the main thread busy for less than
#: :data:`HELD_BUSY_SHARE` of the wait, was held back by the browser, not delayed by the page.
HELD_AFTER_LOAD_MS = 500
HELD_BUSY_SHARE = 0.2
#: Runs tried per page, as a multiple of the runs asked for, before a page whose paint is always held fails.
MAX_ATTEMPTS = 3


#: Text files a static host (GitHub Pages among them) sends compressed when the browser accepts gzip.
COMPRESSED = {".html", ".css", ".js", ".svg", ".json", ".xml", ".txt", ".map"}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """Serves the site as its host (GitHub Pages) does: under its base path (``/tensor-copies/`` for a
    project site; nothing of the site anywhere else on the host), a missing address under it answered
    with status 404 and the site's own ``404.html``, and text files gzip-compressed for a browser that
    accepts it, so the bytes Lighthouse counts are the bytes a reader downloads."""

    base_path = "/"  #: where the site is served (set by :func:`serve`)

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass

    def _in_site(self) -> str | None:
        """The request's path inside the site (``/en/index.html``), or None for an address outside it."""
        path = self.path.split("?")[0].split("#")[0]
        if path == self.base_path.rstrip("/"):
            return "/"  # the base path without its slash: the redirect to the folder's slash
        return "/" + path.removeprefix(self.base_path) if path.startswith(self.base_path) else None

    def translate_path(self, path):
        return super().translate_path(self._in_site() or "/")  # send_head answers an address outside

    def send_head(self):
        inside = self._in_site()
        if inside is None:
            self.send_error(404, "not a page of the site: it is served under " + self.base_path)
            return None
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # the redirect to the folder's slash
            path = path / "index.html"
        if not path.exists() and (not_found := Path(self.directory) / "404.html").is_file():
            return self._send(not_found, 404)
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.suffix in COMPRESSED and path.is_file()):
            return super().send_head()
        return self._send(path, 200)

    def _send(self, path: Path, status: int):
        body = path.read_bytes()
        self.send_response(status)
        self.send_header("Content-Type", self.guess_type(str(path)))
        if "gzip" in self.headers.get("Accept-Encoding", "") and path.suffix in COMPRESSED:
            body = gzip.compress(body, mtime=0)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@contextlib.contextmanager
def serve(site: Path, port: int, base_path: str = "/") -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 under ``base_path`` (``/tensor-copies/``; the host's root by default)
    while the block runs; yield its address (``http://127.0.0.1:PORT/tensor-copies/``). The port is
    taken on entry, so a site can be built for the address before it is there to serve."""
    prefix = "/" + base_path.strip("/") + "/" if base_path.strip("/") else "/"
    handler = functools.partial(type("_Site", (_Quiet,), {"base_path": prefix}), directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()


def lighthouse(url: str, report: Path) -> dict:
    """Run Lighthouse (mobile, simulated throttling) on ``url``; its JSON report."""
    if not LIGHTHOUSE.exists():
        raise SystemExit("lighthouse is not installed: run npm ci --ignore-scripts --no-audit --no-fund")
    chromium = os.environ.get("CHROME_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("Chromium is not installed (apt-get install chromium fonts-noto-cjk)")
    command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}",
               f"--chrome-flags={CHROME_FLAGS}", f"--only-categories={','.join(CATEGORIES)}"]  # fmt: skip
    subprocess.run(command, check=True, env={**os.environ, "CHROME_PATH": chromium})
    return json.loads(report.read_text(encoding="utf-8"))


def figures(result: dict, origin: str) -> dict:
    """The figures of one report: scores, bytes, console errors and requests to other hosts."""
    audits = result["audits"]
    host = urlsplit(origin).netloc
    hosts = {urlsplit(request["url"]) for request in audits["network-requests"]["details"]["items"]}
    return {
        **{name: result["categories"][name]["score"] for name in CATEGORIES},
        "bytes": int(audits["total-byte-weight"]["numericValue"]),
        # What costs the performance score: blocking time, speed index and the largest paint (ms).
        **{key: int(audits[name]["numericValue"]) for key, name in TIMINGS.items()},
        "console_errors": len(audits["errors-in-console"].get("details", {}).get("items", [])),
        "other_hosts": sorted({url.netloc for url in hosts if url.scheme in ("http", "https") and url.netloc != host}),
        "failed": sorted(f"{name}: {audit['title']}" for name, audit in audits.items()
                         if audit.get("scoreDisplayMode") == "binary" and audit.get("score") == 0),
    }  # fmt: skip


def held_paint(result: dict) -> int:
    """How long the browser held back the page's first paint (ms), or 0 if it painted freely.

    Held: the first paint comes more than :data:`HELD_AFTER_LOAD_MS` after the load event, and the
    page's main thread was busy for less than :data:`HELD_BUSY_SHARE` of that wait, so the page had
    nothing left to do before painting."""
    metrics = result["audits"]["metrics"]["details"]["items"][0]
    load, paint = metrics["observedLoad"], metrics["observedFirstPaint"]
    wait = paint - load
    if wait <= HELD_AFTER_LOAD_MS:
        return 0
    tasks = result["audits"]["main-thread-tasks"]["details"]["items"]
    busy = sum(max(0.0, min(t["startTime"] + t["duration"], paint) - max(t["startTime"], load)) for t in tasks)
    return round(wait) if busy < HELD_BUSY_SHARE * wait else 0


def median_run(runs: list[dict]) -> dict:
    """The run of median performance score (the lower middle one of an even count)."""
    ordered = sorted(runs, key=lambda row: row["performance"])
    return ordered[(len(ordered) - 1) // 2]


def measure(url: str, reports: Path, name: str, repeat: int) -> dict:
    """Lighthouse on ``url`` until ``repeat`` runs painted freely (at most ``MAX_ATTEMPTS * repeat``
    runs): the figures of the median of those runs, with ``runs`` and ``held`` (the held runs' waits)."""
    free, held = [], []
    for attempt in range(1, MAX_ATTEMPTS * repeat + 1):
        print(f"Lighthouse (mobile): {url} (run {attempt})", flush=True)
        result = lighthouse(url, reports / f"{name}_run{attempt}.json")
        wait = held_paint(result)
        if wait:
            print(f"  first paint held {wait} ms after the load event, main thread idle: not counted", flush=True)
            held.append(wait)
        else:
            free.append(figures(result, url))
        if len(free) == repeat:
            break
    row = median_run(free) if free else dict.fromkeys(CATEGORIES)
    return {**row, "runs": len(free), "held": held}


def over_budget(page: str, row: dict) -> list[str]:
    if not row["runs"]:
        return [f"{page}: the browser held back the first paint in all {len(row['held'])} runs "
                f"({', '.join(map(str, row['held']))} ms after load); nothing was measured"]  # fmt: skip
    problems = [f"{page}: {name} {row[name]:.2f} < {low:.2f}" for name, low in BUDGETS.items()
                if row[name] is None or row[name] < low]  # fmt: skip
    if row["bytes"] > MAX_BYTES:
        problems.append(f"{page}: {row['bytes'] / 1024:.1f} KB transferred > {MAX_BYTES // 1024} KB")
    if row["console_errors"]:
        problems.append(f"{page}: {row['console_errors']} console error(s)")
    if row["other_hosts"]:
        problems.append(f"{page}: requests to {', '.join(row['other_hosts'])}")
    return problems


def table(rows: dict[str, dict]) -> str:
    head = (f"{'page':<52} {'perf':>5} {'a11y':>5} {'best':>5} {'seo':>5} {'KB':>7} "
            f"{'TBT ms':>7} {'SI ms':>6} {'LCP ms':>7} {'errors':>6} {'runs':>4} {'held':>4}  other hosts")  # fmt: skip
    lines = [head, "-" * len(head)]
    for page, row in rows.items():
        if not row["runs"]:
            lines.append(f"{page or '/':<52} {'nothing measured':>36} {0:>4} {len(row['held']):>4}")
            continue
        scores = " ".join(f"{row[name]:>5.2f}" for name in CATEGORIES)
        lines.append(f"{page or '/':<52} {scores} {row['bytes'] / 1024:>7.1f} {row['tbt']:>7} {row['si']:>6} "
                     f"{row['lcp']:>7} {row['console_errors']:>6} {row['runs']:>4} {len(row['held']):>4}  "
                     f"{', '.join(row['other_hosts']) or '-'}")  # fmt: skip
    return "\n".join(lines)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def built_address(site: Path) -> tuple[int, str]:
    """The port and base path of the 127.0.0.1 SITE_URL a site was built with (read from its robots.txt),
    else (0, "/")."""
    robots = site / "robots.txt"
    text = robots.read_text(encoding="utf-8") if robots.exists() else ""
    match = re.search(r"^Sitemap: http://127\.0\.0\.1:(\d+)(/\S*)sitemap\.xml$", text, re.M)
    return (int(match.group(1)), match.group(2)) if match else (0, "/")


def build(out: Path, base: str) -> Path:
    command = web_build.command(sys.executable, "--out", str(out))
    subprocess.run(command, check=True, env={**os.environ, settings.SITE_URL: base})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="audit this built site instead of building one")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one; with --site, "
                        "the one of the SITE_URL it was built with)")
    parser.add_argument("--reports", type=Path, default=ROOT / "build" / "audit-reports",
                        help="folder for Lighthouse's JSON reports (default %(default)s)")
    parser.add_argument("--page", action="append", dest="pages", metavar="PAGE",
                        help="audit this page (relative to the site root, '' for the landing page) instead of "
                        "every page type; repeatable")
    parser.add_argument("--repeat", type=int, default=5, help="runs per page whose median is judged, not "
                        "counting runs whose first paint the browser held back (default %(default)s)")
    args = parser.parse_args(argv)
    built_port, base_path = built_address(args.site) if args.site else (0, "/")
    port = args.port or built_port or free_port()
    site = args.site or build(ROOT / "build" / "audit", f"http://127.0.0.1:{port}/")
    if not (site / "sitemap.xml").exists():
        print(f"note: {site} was built without SITE_URL, so its hreflang links are relative (an SEO failure)")
    args.reports.mkdir(parents=True, exist_ok=True)
    rows = {}
    with serve(site, port, base_path) as origin:
        for page in args.pages or PAGES:
            name = (page or "landing").replace("/", "__").removesuffix(".html")
            rows[page] = measure(origin + page, args.reports, name, args.repeat)
    print(table(rows))
    held = sum(len(row["held"]) for row in rows.values())
    runs = held + sum(row["runs"] for row in rows.values())
    print(f"Each page judged by the median of its runs; {held} of {runs} runs not counted, their first paint "
          "held back by the browser (Lighthouse issue 17148).")
    problems = [problem for page, row in rows.items() for problem in over_budget(page, row)]
    for page, row in rows.items():
        for failed in row.get("failed", ()):
            print(f"  {page}: failed audit {failed}")
    if problems:
        print("OVER BUDGET:\n  " + "\n  ".join(problems))
        return 1
    print(f"Every page within budget (performance >= {BUDGETS['performance']}, the rest = 1.00, "
          f"<= {MAX_BYTES // 1024} KB, no console error, no other host).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
