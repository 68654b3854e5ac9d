"""Where a page stopped before its end on a recorded release: the releases page shows the line and the error (the
last cell of a check that never ran there, and a list under the changes table), and the "Changed between" cell of a
check that did not run on the newest release where it does not hold says so instead of naming a change."""

import json

import pytest

from sitetools.releases import records as release_records
from tests.test_release_records import _release_table, _releases_page, manifest_of, sample

PAGE = "questions/plot_01_inplace_error"
STOP = {"line": "decay_sgd.step()", "error": "TypeError: add(): argument 'alpha' must be Number, not Tensor",
        "missing": False}  # fmt: skip


def stopped_records() -> list[dict]:
    """Three records: the page stops at ``STOP`` on the two oldest (its last check not run), runs on the third."""
    records = [sample(), sample(), sample()]
    for record, release in zip(records, ("2.4.1", "2.6.0", "2.8.0"), strict=True):
        record["release"] = record["torch"] = release
    for record in records[:2]:
        record["pages"][PAGE]["stopped"] = dict(STOP)
        record["pages"][PAGE]["checks"][-1]["status"] = "not run"
    return records


def _not_run_row(records: list[dict], built_on: str = "2.13.0") -> dict:
    last = records[0]["pages"][PAGE]["checks"][-1]["message"]
    rows = release_records.changes(records, manifest_of(records[0]), built_on)
    return next(row for row in rows if row["what"] == f"{PAGE}: {last}")


def test_a_check_that_never_ran_keeps_where_its_page_stopped_and_each_stop_is_listed_once():
    records = stopped_records()
    row = _not_run_row(records)
    assert row["by_release"]["2.4.1"] == {"status": "not run", "seen": "", "stopped": STOP}
    stops = release_records.stops(records, manifest_of(records[0]))
    assert stops == [{"page": PAGE, "line": STOP["line"], "error": STOP["error"], "releases": ["2.4.1", "2.6.0"]}]
    changed = {**manifest_of(records[0]), PAGE: ["assert a_new_check (hidden)"]}
    assert release_records.stops(records, changed) == [], "a record whose page is stale shows none of its results"
    records[1]["pages"][PAGE] = {"crashed": "exit code -11", "checks": records[1]["pages"][PAGE]["checks"]}
    crashed = release_records.stops(records, manifest_of(records[0]))
    assert [(stop["line"], stop["error"], stop["releases"]) for stop in crashed] == [
        (STOP["line"], STOP["error"], ["2.4.1"]), ("", "exit code -11", ["2.6.0"])]


@pytest.mark.parametrize("lang, changed, still, given, listed", [
    ("en", "not run on 2.6.0 (its page stopped before it); holds on 2.8.0", "still not run",
     f"its page stopped before it, at {STOP['line']}, raising {STOP['error']}",
     f"{PAGE} (torch 2.4.1, 2.6.0): stopped at {STOP['line']}, raising {STOP['error']}"),
    ("zh_CN", "在 2.6.0 上未运行（页面停在它之前），在 2.8.0 上成立", "仍未运行",
     f"页面在它之前停在 {STOP['line']}，报错 {STOP['error']}",
     f"{PAGE}（torch 2.4.1、2.6.0）：停在 {STOP['line']}，报错 {STOP['error']}"),
])  # fmt: skip
def test_the_changes_table_shows_the_stop_and_calls_a_check_not_run_no_change(lang, changed, still, given, listed):
    from docutils import nodes

    table = _release_table()
    words = table.WORDS[lang]
    records = stopped_records()
    row = _not_run_row(records)
    assert table.changed_cell(words, row) == changed
    assert table.changed_cell(words, _not_run_row(records[:2], "2.4.0")) == still
    cell = table.given_cell(words, row["by_release"]["2.4.1"])
    assert cell.astext() == given
    assert [child.astext() for child in cell.findall(nodes.literal)] == [STOP["line"], STOP["error"]]
    sentence, items = table.stop_notes(release_records.stops(records, manifest_of(records[0])), words)
    assert sentence.astext() == words["stops"] and items.astext() == listed
    differs = next(row for row in release_records.changes(records, manifest_of(records[0]), "2.13.0")
                   if row["by_release"].get("2.4.1", {}).get("status") == "differs")
    assert table.changed_cell(words, differs) == f"{differs['last_differs']} → {differs['changed_in']}"


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_releases_page_says_what_the_cells_of_a_check_not_run_and_the_list_of_stops_show(lang):
    words = _release_table().WORDS[lang]
    page = " ".join(_releases_page(lang).split()) if lang == "en" else _releases_page(lang)
    quote = ('"', '"') if lang == "en" else ("“", "”")
    for example in (words["not run then"].format(last="2.6.0", changed="2.8.0"), words["still not run"]):
        assert f"{quote[0]}{example}{quote[1]}" in page, f"{lang}: the page does not show {example!r}"
    said = {"en": ("One that *errored* is an `assert` whose condition raised another error",
                   "the last column shows the line where the page stopped and the error",
                   "a list under the second table names each page that stopped before its end on a release"),
            "zh_CN": ("“出错”表示一个 `assert` 的条件抛出了其他错误", "最后一列给出页面停下的那一行和报错",
                      "第二个表格下面还有一个列表，列出在某个版本上没有运行到结尾的每个页面")}[lang]
    assert all(sentence in page for sentence in said)


def test_every_check_the_committed_records_never_ran_shows_where_its_page_stopped():
    """On the committed records: a check not run on the oldest release where it does not hold has the stop in its
    last cell, and every stop of a page shown is listed."""
    records = release_records.load()
    manifest = json.loads((release_records.ROOT / "gallery" / "asserts.json").read_text(encoding="utf-8"))
    codes = release_records.current_codes()
    releases = [record["release"] for record in records]
    for row in release_records.changes(records, manifest, "2.13.0", codes):
        oldest = next(row["by_release"][r] for r in releases if r in row["by_release"])
        assert oldest["seen"] or oldest.get("stopped") or row["kind"] != "page", row["what"]
    stops = release_records.stops(records, manifest, codes)
    for record in records:
        stale = set(release_records.stale_pages(record, manifest, codes["pages"]))
        for name, page in record["pages"].items():
            if page.get("stopped") and name not in stale:
                assert any(s["page"] == name and record["release"] in s["releases"] for s in stops), name


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_check_that_differs_only_on_releases_newer_than_the_build_reads_changed_after_the_build(lang):
    """A check that holds on every release up to the build's torch and differs only on a newer one changed after
    the build's torch: its cell names that release ("still differs" would read as a difference of long standing);
    where an older release differs too, or the build's torch is not older, it still differs. The page says so."""
    words = _release_table().WORDS[lang]
    table = _release_table()
    old, new = sample(), sample()
    new["release"], new["torch"] = "2.14.1", "2.14.1"
    for page in old["pages"].values():
        for check in page["checks"]:
            check["status"] = "holds"
    pages = [row for row in release_records.changes([old, new], manifest_of(old), "2.13.0") if row["kind"] == "page"]
    assert pages and all(row["changed_after_build"] == "2.14.1" for row in pages)
    assert {table.changed_cell(words, row) for row in pages} == {words["after build"].format(first="2.14.1")}
    for records, built_on in (([sample(), new], "2.13.0"), ([old, new], "2.14.1")):
        rows = [row for row in release_records.changes(records, manifest_of(old), built_on) if row["kind"] == "page"]
        assert rows and {table.changed_cell(words, row) for row in rows} == {words["still"]}, built_on
    quote = ('"', '"') if lang == "en" else ("“", "”")
    page = " ".join(_releases_page(lang).split()) if lang == "en" else _releases_page(lang)
    assert f"{quote[0]}{words['after build'].format(first='2.14.1')}{quote[1]}" in page
