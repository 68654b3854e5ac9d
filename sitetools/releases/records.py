"""The records of the site's checks on other torch releases, as the build reads them.

``nox -s releases`` (:mod:`sitetools.releases.record`) writes one record per release into ``RECORDS``. A record
names each page's checks by their normalised text, as ``gallery/asserts.json`` does, and the code of each page,
fact, claim and computed table by a digest of the code it runs (:mod:`sitetools.releases.code_digests`); for a
record taken before records named that code, the digests of the pages, claims and tables are those of the code of
the commit the record names, kept in ``RECORDS/code/<commit>.json``. A check whose code now is not the code the
record names (a page, fact, claim or table added or changed since) did not run on that release as it now reads:

- a page whose checks or code changed since the record was taken is *stale* in that record: the site says it was
  checked on the build's torch only, never shows the old result as the page's. A record of a page the site no
  longer has is refused;
- a fact whose digest the record does not give for its code now (added after the record, changed since, or named
  by a record taken before records named facts' code) is *unverified* in that record: the site counts none of its
  results there and says it ran as it now reads on the build's torch only;
- a claim of the ledger or a computed table whose code changed since (or that the record does not hold) is
  *older* in that record: the site shows the record's results, says how many of them ran with the older code and
  lists the claims and tables, which ran as they now read on the build's torch only.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "docs" / "_shared" / "releases"
#: The oldest and the newest minor release the site supports: from 2.4 (July 2024), which covers the older torch
#: that pinned projects and managed images still run, to 2.14.
SUPPORTED = ("2.4", "2.14")
#: The statuses of a check in a record, in the order the site lists them.
STATUSES = ("holds", "differs", "not available", "errored", "not run", "no GPU")


def release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("+")[0].split("."))


def load(folder: Path = RECORDS) -> list[dict]:
    """Every record of ``folder``, oldest release first."""
    records = [json.loads(path.read_text(encoding="utf-8")) for path in folder.glob("*.json")]
    return sorted(records, key=lambda record: release_key(record["release"]))


def fact_codes() -> dict[str, str]:
    """Every fact of the site with the digest of the code it runs now."""
    from sitetools.releases import code_digests

    return code_digests.fact_codes()


def page_codes() -> dict[str, str]:
    """Every page of the site with the digest of its code now."""
    from sitetools.releases import code_digests

    return code_digests.page_codes()


def current_codes() -> dict[str, dict[str, str]]:
    """The digests of the code each page, fact, claim and table runs now (:mod:`sitetools.releases.code_digests`)."""
    from sitetools.releases import code_digests

    return {"pages": page_codes(), "facts": code_digests.fact_codes(),
            "claims": code_digests.claim_codes(), "tables": code_digests.table_codes()}  # fmt: skip


def names_fact_codes(record: dict) -> bool:
    """Whether ``record`` was taken when records named each fact's code."""
    return any("code" in fact for fact in record["facts"].values())


def unverified_facts(record: dict, codes: dict[str, str]) -> list[str]:
    """The facts of ``codes`` (each fact's digest now) whose result ``record`` does not give for the code they
    have now: added after the record, changed since, or in a record that names no fact's code."""
    return sorted(fact_id for fact_id, code in codes.items() if record["facts"].get(fact_id, {}).get("code") != code)


def recorded_codes(record: dict, kind: str) -> dict[str, str]:
    """The digests of the code of the pages, claims or tables (``kind``) that ``record`` ran, as it names them; none
    for a record that names none (every one of them then counts as changed since)."""
    return {name: entry["code"] for name, entry in record[kind].items() if isinstance(entry, dict) and "code" in entry}


def older(record: dict, codes: dict[str, str], kind: str) -> list[str]:
    """The claims or tables (``kind``) of ``codes`` (each one's digest now) that ``record`` did not run as they now
    read: changed since the record was taken, added after it, or with no digest known for the record."""
    recorded = recorded_codes(record, kind)
    return sorted(name for name, code in codes.items() if recorded.get(name) != code)


def summary(record: dict, manifest: dict[str, list[str]] | None = None,
            codes: dict[str, dict[str, str]] | None = None) -> dict:
    """How many pages ran to their end, and how many checks, facts, claims and table cells had each status; given
    ``manifest`` (``gallery/asserts.json``), the pages stale in the record and their checks are left out, as the
    site shows none of their old results; given ``codes`` (:func:`current_codes`, or some of its kinds), so are the
    pages whose code changed and the facts unverified in the record, and the claims and table cells that ran with
    older code are counted apart ("older")."""
    stale = set(stale_pages(record, manifest, (codes or {}).get("pages"))) if manifest is not None else set()
    unverified = set(unverified_facts(record, codes["facts"])) if codes and "facts" in codes else set()
    claims = set(older(record, codes["claims"], "claims")) if codes and "claims" in codes else set()
    tables = set(older(record, codes["tables"], "tables")) if codes and "tables" in codes else set()
    pages = [page for name, page in record["pages"].items() if name not in stale]
    checks = collections.Counter(c["status"] for page in pages for c in page.get("checks", []))
    claim_counts = collections.Counter(c["status"] for c in record["claims"].values())
    claim_counts["older"] = sum(1 for claim_id in record["claims"] if claim_id in claims)
    cells = {"holds": sum(t["holds"] for t in record["tables"].values()),
             "differs": sum(len(t["differs"]) for t in record["tables"].values()),
             "older": sum(t["holds"] + len(t["differs"]) for name, t in record["tables"].items() if name in tables)}
    return {
        "pages": len(pages),
        "pages_ran_to_end": sum(1 for page in pages if "checks" in page and not page["stopped"]),
        "pages_crashed": sum(1 for page in pages if "crashed" in page),
        "checks": {status: checks[status] for status in STATUSES if checks[status]},
        "facts": dict(collections.Counter(f["status"] for fact_id, f in record["facts"].items()
                                          if fact_id not in unverified)),
        "claims": {status: count for status, count in claim_counts.items() if count},
        "table_cells": {status: count for status, count in cells.items() if count or status != "older"},
    }  # fmt: skip


def stale_pages(record: dict, manifest: dict[str, list[str]], codes: dict[str, str] | None = None) -> list[str]:
    """The pages whose checks in ``record`` are not the ones ``manifest`` (``gallery/asserts.json``) lists; given
    ``codes`` (each page's digest now), also those whose code the record does not name as it now is."""
    recorded = recorded_codes(record, "pages") if codes is not None else {}
    stale = []
    for name, page in record["pages"].items():
        seen = collections.Counter(check["check"] for check in page.get("checks", []))
        if "crashed" not in page and seen != collections.Counter(manifest.get(name, [])):
            stale.append(name)
        elif codes is not None and name in codes and recorded.get(name) != codes[name]:
            stale.append(name)
    return sorted(stale + [name for name in manifest if name not in record["pages"]])


def problems(records: list[dict], manifest: dict[str, list[str]]) -> list[str]:
    """What the build refuses: a record of a page the site does not have, or of no release."""
    found = []
    for record in records:
        for key in ("release", "torch", "python", "numpy", "date", "commit", "pages", "facts", "claims", "tables"):
            if key not in record:
                found.append(f"the record of torch {record.get('release', '?')} has no {key!r}")
        found += [f"the record of torch {record.get('release')} names a page the site does not have: {name}"
                  for name in record.get("pages", {}) if name not in manifest]  # fmt: skip
    return found


def changes(records: list[dict], manifest: dict[str, list[str]], built_on: str,
            codes: dict[str, dict[str, str]] | None = None) -> list[dict]:
    """Every check, fact, claim or table cell whose result is not the build's on some release: what it is (and,
    for a page's check, its normalised text), its status on each release where it does not hold (for a check that
    never ran there, the line and the error where its page stopped, as ``stopped``), the newest such
    release and the first release after it, the build's included, that gives the build's result ("changed in
    2.x": between the two); given ``codes`` (:func:`current_codes`), none of a record's unverified facts and none of
    the pages whose code changed since it. A claim or table cell that ran with older code is shown as it ran."""
    rows: dict[tuple[str, str], dict] = {}
    for record in records:
        stale = set(stale_pages(record, manifest, (codes or {}).get("pages")))
        unverified = set(unverified_facts(record, codes["facts"])) if codes and "facts" in codes else set()
        release = record["release"]
        items = [(("page", f"{name}: {c['message']}"), {**c, "stopped": page.get("stopped")})
                 for name, page in record["pages"].items() if name not in stale for c in page.get("checks", [])]
        items += [(("fact", fact_id), f) for fact_id, f in record["facts"].items() if fact_id not in unverified]
        items += [(("claim", claim_id), c) for claim_id, c in record["claims"].items()]
        items += [((f"table {table}", key), {"status": "differs", "seen": d["seen"], "expected": d["expected"]})
                  for table, t in record["tables"].items() for key, d in t["differs"].items()]  # fmt: skip
        for key, item in items:
            if item["status"] in ("holds", "no GPU"):
                continue
            row = rows.setdefault(key, {"kind": key[0], "what": key[1], "by_release": {}, "check": item.get("check")})
            row["by_release"][release] = {"status": item["status"], "seen": item.get("seen", "")}
            if not item.get("seen") and item.get("stopped"):  # it never ran: where its page stopped instead
                row["by_release"][release]["stopped"] = item["stopped"]
    releases = [record["release"] for record in records]
    known = sorted({*releases, built_on}, key=release_key)  # the build's own torch gives the build's result
    for row in rows.values():
        row["last_differs"] = [r for r in releases if r in row["by_release"]][-1]
        later = [r for r in known if release_key(r) > release_key(row["last_differs"])]
        row["changed_in"] = later[0] if later else None
        row["changed_after_build"] = _changed_after(row, releases, built_on) if not later else None
    return sorted(rows.values(), key=lambda row: (row["kind"], row["what"]))


def _changed_after(row: dict, releases: list[str], built_on: str) -> str | None:
    """For a row that no release after its newest difference gives the build's result: the oldest release of the run
    of releases, up to the newest recorded, on which the check ran and does not give the build's result, when that
    release is newer than the build's torch and the release before it, if any, gives the build's result (the change
    came after the build's torch); else None."""
    run, before = [], None
    for release in sorted(releases, key=release_key, reverse=True):
        status = row["by_release"].get(release, {"status": "holds"})["status"]  # as the changes table shows it
        if status in ("holds", "not run"):
            before = status
            break
        run.append(release)
    after_build = bool(run) and release_key(run[-1]) > release_key(built_on)
    return run[-1] if after_build and before in (None, "holds") else None


def stops(records: list[dict], manifest: dict[str, list[str]],
          codes: dict[str, dict[str, str]] | None = None) -> list[dict]:  # fmt: skip
    """Every page that stopped before its end on some release (an error of its code, or its process crashed),
    leaving out the records in which the page is stale: the page, the line it stopped at and the error (a crash:
    no line, and what the process said), and the releases that stopped there alike, in the records' order."""
    found: dict[tuple[str, str, str], list[str]] = {}
    for record in records:
        stale = set(stale_pages(record, manifest, (codes or {}).get("pages")))
        for name, page in record["pages"].items():
            if name in stale or not (page.get("stopped") or page.get("crashed")):
                continue
            where = page.get("stopped") or {"line": "", "error": page["crashed"]}
            found.setdefault((name, where["line"], where["error"]), []).append(record["release"])
    return [{"page": page, "line": line, "error": error, "releases": releases}
            for (page, line, error), releases in sorted(found.items(), key=lambda item: item[0][0])]
