"""The records of the site's checks on other torch releases (sitetools/releases/records.py), the runner that
takes them (sitetools/releases/checks.py, here on this build's torch) and the workflow that runs the command
weekly (.github/workflows/releases.yml), all without installing a release: the record read here is a small
part of a real one (tests/release_record_sample.json, cut from the record of torch 2.4.1)."""

import copy
import json
import re
from pathlib import Path

import pytest
import yaml

from editions import CODES
from sitetools.releases import record as releases
from sitetools.releases import records as release_records
from sitetools.releases.checks import MISSING, run_page
from tests.test_web_workflow import actionlint_errors, schema_errors

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = Path(__file__).with_name("release_record_sample.json")
WORKFLOW = ROOT / ".github" / "workflows" / "releases.yml"


def sample() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def manifest_of(record: dict) -> dict[str, list[str]]:
    """A manifest whose pages have exactly the checks the record names."""
    return {name: [check["check"] for check in page["checks"]] for name, page in record["pages"].items()}


def test_the_sample_is_read_as_a_record_with_its_counts():
    record = sample()
    counts = release_records.summary(record)
    statuses = [check["status"] for page in record["pages"].values() for check in page["checks"]]
    assert counts["pages"] == len(record["pages"]) == 2
    assert counts["checks"]["differs"] == statuses.count("differs") >= 1
    assert counts["checks"]["holds"] == statuses.count("holds") >= 1
    assert release_records.problems([record], manifest_of(record)) == []


def test_a_page_whose_checks_changed_since_the_record_is_stale_and_its_old_results_are_not_shown():
    record = sample()
    manifest = manifest_of(record)
    assert release_records.stale_pages(record, manifest) == []
    name = "questions/plot_01_inplace_error"
    changed = {**manifest, name: [*manifest[name][1:], "assert a_new_check (hidden)"]}
    assert release_records.stale_pages(record, changed) == [name]
    shown = [row["what"] for row in release_records.changes([record], changed, "2.13.0")]
    assert not any(what.startswith(name) for what in shown), "a stale page's old results are shown"
    assert any(what.startswith(name) for what in
               (row["what"] for row in release_records.changes([record], manifest, "2.13.0")))


def test_a_stale_page_and_its_checks_are_left_out_of_its_record_counts():
    """The records table counts only what the changes table could show: not the old checks of a changed page."""
    record = sample()
    manifest = manifest_of(record)
    name = "questions/plot_01_inplace_error"
    changed = {**manifest, name: [*manifest[name][1:], "assert a_new_check (hidden)"]}
    whole, current = release_records.summary(record, manifest), release_records.summary(record, changed)
    assert whole == release_records.summary(record)
    assert current["pages"] == whole["pages"] - 1
    kept = [check["status"] for page, found in record["pages"].items() if page != name for check in found["checks"]]
    assert sum(current["checks"].values()) == len(kept) < sum(whole["checks"].values())
    row = _release_table().record_row(_release_table().WORDS["en"], record, changed)
    assert row[5] == f"{current['pages_ran_to_end']} / {whole['pages'] - 1}"


def _release_table():
    from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
    from tensorcopy_sphinx import release_table  # isort: skip

    return release_table


def _stale_notes(records: list[dict], manifest: dict[str, list[str]], lang: str) -> list:
    table = _release_table()
    return table.stale_notes(records, manifest, table.WORDS[lang], "2.13.0", "examples", "releases")


def test_the_pages_changed_since_the_records_are_named_once_by_their_titles():
    """Several records older than the same pages: one sentence and one list, not one note per record."""
    from sphinx import addnodes

    first, second = sample(), sample()
    first["release"], second["release"] = "2.4.1", "2.6.0"
    name = "questions/plot_01_inplace_error"
    manifest = manifest_of(first)
    changed = {**manifest, name: [*manifest[name][1:], "assert a_new_check (hidden)"]}
    sentence, pages = _stale_notes([first, second], changed, "zh_CN")
    assert sentence.astext() == "以下 1 页的代码在所有记录之后改过，只在 torch 2.13.0 上运行过："
    links = list(pages.findall(addnodes.pending_xref))
    assert [(link["reftype"], link["reftarget"], link["refexplicit"]) for link in links] == [
        ("doc", f"/examples/{name}", False)], "a link that shows the page's title"
    assert [node.astext() for node in _stale_notes([first, second], manifest, "zh_CN")] == []
    del second["pages"][name]["checks"][0]  # the record of 2.6.0 is as new as the page, not that of 2.4.1
    changed = {**manifest, name: manifest[name][1:]}
    sentence, _ = _stale_notes([first, second], changed, "en")
    assert sentence.astext() == ("The page below, whose code changed after the records of torch 2.4.1 were "
                                 "taken, has not been checked on those releases, only on torch 2.13.0:")
    sentence, _ = _stale_notes([first, second], changed, "zh_CN")
    assert sentence.astext() == ("以下 1 页的代码在 torch 2.4.1 的记录之后改过，在这几个版本上没有运行过，"
                                 "在 torch 2.13.0 上运行过：")
    sentence, _ = _stale_notes([first], changed, "en")
    assert sentence.astext() == ("The page below, whose code changed after every record was taken, is checked "
                                 "on torch 2.13.0 only:"), "the note says it is the page's code that changed"


def test_what_a_release_gave_is_shown_as_inline_code_so_no_edition_curls_its_quotes():
    """The last column quotes program output: inline code, which Sphinx's smart quotes leave alone."""
    from docutils import nodes

    seen = "Refused(kind='multi-output', error=\"args...\")"
    cell = _release_table().output_cell(seen)
    assert [type(child) for child in cell.children] == [nodes.literal] and cell.astext() == seen


def test_every_column_of_the_records_table_counts_what_errored_as_the_checks_column_does():
    """The facts and claims of a record can error (a fact of torch 2.4.1 raises in its own code): their cells,
    and the table cells', are written like the checks' cell, every status counted even when it is 0."""
    table = _release_table()
    record = sample()
    record["facts"]["cpu-snapshot"] = {"status": "errored", "seen": "ValueError: output array is read-only"}
    record["facts"]["clone-requires-grad-in-grad-mode"] = {"status": "differs", "seen": "False"}
    record["claims"]["000-add-output"] = {"status": "errored", "seen": "TypeError"}
    row = table.record_row(table.WORDS["en"], record)
    assert row[:6] == ["2.4.1+cu121", "3.11.7", "1.26.4", "2026-12-03", "0cef80c29e", "2 / 2"]
    assert row[6:] == ["44 hold, 5 differ, 0 not available, 0 errored",
                       "1 hold, 1 differ, 0 not available, 1 errored",
                       "2 hold, 0 differ, 0 not available, 1 errored",
                       "1551 hold, 6 differ, 0 not available, 0 errored"]
    assert table.record_row(table.WORDS["zh_CN"], record)[7:9] == ["1 项成立，1 项不同，0 项不可用，1 项出错",
                                                                    "2 项成立，0 项不同，0 项不可用，1 项出错"]


def test_the_checks_column_counts_apart_the_gpu_box_checks_a_record_did_not_run():
    """A record taken without a GPU did not run the checks of the GPU boxes: the checks cell says how many, in
    each edition, and says nothing of them when there are none."""
    table = _release_table()
    record = sample()
    page = next(iter(record["pages"].values()))
    page["checks"][0]["status"] = "no GPU"
    assert table.record_row(table.WORDS["en"], record)[6] == (
        "43 hold, 5 differ, 0 not available, 0 errored, 1 in GPU boxes not run (no GPU)")
    assert table.record_row(table.WORDS["zh_CN"], record)[6] == (
        "43 项成立，5 项不同，0 项不可用，0 项出错，GPU 框内的 1 项未运行（没有 GPU）")
    assert "GPU" not in table.record_row(table.WORDS["en"], sample())[6]


def test_the_checks_column_counts_the_checks_after_the_point_where_their_page_stopped():
    """A check after the point where its page stopped was not run: the checks cell says how many, in each edition,
    so that its counts add up to every check of the pages it counts, and says nothing of them when there are none."""
    table = _release_table()
    record = sample()
    page = next(iter(record["pages"].values()))
    page["checks"][0]["status"] = "not run"
    assert table.record_row(table.WORDS["en"], record)[6] == (
        "43 hold, 5 differ, 0 not available, 0 errored, 1 not run (their page stopped before them)")
    assert table.record_row(table.WORDS["zh_CN"], record)[6] == (
        "43 项成立，5 项不同，0 项不可用，0 项出错，1 项未运行（页面在它们之前就停了）")
    assert "not run" not in table.record_row(table.WORDS["en"], sample())[6]

def with_codes(record: dict, codes: dict[str, str]) -> dict:
    """``record`` as a record taken now names its facts: each with the digest of its code."""
    for fact_id, entry in record["facts"].items():
        entry["code"] = codes.get(fact_id, "0" * 16)
    return record


def test_facts_added_after_some_records_are_named_under_the_records_they_miss():
    """A fact that a record does not hold (added since) is listed under the records it misses, once, in each
    edition; a fact every record holds with its code now is not listed."""
    table = _release_table()
    first, second = sample(), sample()
    first["release"], second["release"] = "2.4.1", "2.6.0"
    held = next(iter(first["facts"]))
    second["facts"].pop(held)
    codes = {fact_id: f"code-of-{fact_id}" for fact_id in (held, "a-fact-added-later")}
    with_codes(first, codes), with_codes(second, codes)
    notes = table.new_facts_notes([first, second], codes, table.WORDS["en"], "2.13.0")
    texts = [node.astext() for node in notes]
    assert texts == ["The fact below, added or changed after the records of torch 2.4.1, 2.6.0 were taken, has not "
                     "run as it now reads on those releases, only on torch 2.13.0:", "a-fact-added-later",
                     "The fact below, added or changed after the records of torch 2.6.0 were taken, has not run as "
                     "it now reads on those releases, only on torch 2.13.0:", held]  # fmt: skip
    two = [node.astext() for node in table.new_facts_notes([first], {**codes, "another-fact": "x"},
                                                             table.WORDS["en"], "2.13.0")]  # fmt: skip
    assert two[0] == ("The 2 facts below, added or changed after the records of torch 2.4.1 were taken, have not "
                      "run as they now read on those releases, only on torch 2.13.0:"), "the English says how many"
    zh = [node.astext() for node in table.new_facts_notes([first], codes, table.WORDS["zh_CN"], "2.13.0")]
    assert zh == ["以下 1 条事实在 torch 2.4.1 的记录之后加入或改过，按现在的写法在这几个版本上没有运行过，"
                  "只在 torch 2.13.0 上运行过：", "a-fact-added-later"]


def test_a_fact_whose_code_changed_after_a_record_is_not_counted_or_shown_from_it(monkeypatch):
    """A record names each fact's code by its digest: once a fact's code changes, the record's result is not the
    fact's as it now reads, so the record counts none of it, the changes table has no row for it, and the fact is
    listed as changed. Fails when a change of a fact's code goes unseen."""
    from tensorfacts import fact_registry

    table = _release_table()
    codes = release_records.fact_codes()
    record = with_codes(sample(), codes)
    fact_id = next(fact for fact in codes if fact not in fact_registry.SCOPES)  # a fact that is its own function
    record["facts"][fact_id] = {"status": "differs", "seen": "False", "code": codes[fact_id]}
    assert release_records.unverified_facts(record, codes) == sorted(set(codes) - set(record["facts"]))
    assert ("fact", fact_id) in {(row["kind"], row["what"]) for row in release_records.changes(
        [record], manifest_of(record), "2.13.0", {"facts": codes})}  # fmt: skip

    def rewritten():  # the same fact, one more case
        return fact_registry.Fact(True, "")

    monkeypatch.setitem(fact_registry.FACTS, fact_id, rewritten)
    now = release_records.fact_codes()
    assert now[fact_id] != codes[fact_id], "a fact's new code must give a new digest"
    assert fact_id in release_records.unverified_facts(record, now)
    assert release_records.summary(record, codes={"facts": now})["facts"] == {"holds": len(record["facts"]) - 1}
    assert ("fact", fact_id) not in {(row["kind"], row["what"]) for row in release_records.changes(
        [record], manifest_of(record), "2.13.0", {"facts": now})}  # fmt: skip
    from docutils import nodes

    listed = [literal.astext() for note in table.new_facts_notes([record], now, table.WORDS["en"], "2.13.0")
              for literal in note.findall(nodes.literal)]  # fmt: skip
    assert fact_id in listed, listed


def test_a_record_that_names_no_facts_code_counts_no_fact():
    """The records taken before records named each fact's code give no fact's result as it now reads: their
    facts cell says so, the changes table has no fact row from them, and one sentence, with no list, says so."""
    table = _release_table()
    codes = release_records.fact_codes()
    record = sample()
    record["facts"]["cpu-snapshot"] = {"status": "differs", "seen": "False"}
    assert not release_records.names_fact_codes(record)
    assert release_records.unverified_facts(record, codes) == sorted(codes)
    assert table.record_row(table.WORDS["en"], record, manifest_of(record), {"facts": codes})[7] == (
        "not counted (see below)")
    assert table.record_row(table.WORDS["zh_CN"], record, manifest_of(record), {"facts": codes})[7] == (
        "不计入（见下文）")
    assert not [row for row in release_records.changes([record], manifest_of(record), "2.13.0", {"facts": codes})
                if row["kind"] == "fact"]  # fmt: skip
    other = sample()
    other["release"] = "2.6.0"
    texts = [node.astext() for node in table.new_facts_notes([record, other], codes, table.WORDS["en"], "2.13.0")]
    assert texts == ["The records of torch 2.4.1, 2.6.0 were taken before records named each fact's code: any fact "
                     "may have changed since, so none of their facts' results is counted or shown, and every fact "
                     "has run as it now reads on torch 2.13.0 only."]


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_under_the_first_table_a_record_without_fact_codes_gets_a_sentence_and_one_with_them_a_list(lang):
    """The releases page's first paragraph says what stands under the first table in both cases: the facts added or
    changed since a record that names each fact's code, in a list, and for a record that names none one sentence,
    with no list, saying that none of its facts counts."""
    from docutils import nodes

    table = _release_table()
    codes = {fact_id: f"code-of-{fact_id}" for fact_id in (*sample()["facts"], "a-fact-added-later")}
    uncoded, coded = sample(), with_codes(sample(), codes)
    uncoded["release"], coded["release"] = "2.4.1", "2.6.0"
    notes = table.new_facts_notes([uncoded, coded], codes, table.WORDS[lang], "2.13.0")
    assert [type(node) for node in notes] == [nodes.paragraph, nodes.paragraph, nodes.bullet_list]
    sentence, listed = notes[0].astext(), notes[1].astext()
    assert "2.4.1" in sentence and "2.6.0" not in sentence
    assert ("none of its facts' results is counted" if lang == "en" else "一律不计入") in sentence
    assert "2.6.0" in listed and "2.4.1" not in listed
    assert [literal.astext() for literal in notes[2].findall(nodes.literal)] == ["a-fact-added-later"]
    intro = " ".join(_releases_page(lang).split("(releases-records)=", 1)[0].split())
    words = {"en": ("So are the facts added or changed since a record that names each fact's code was taken",
                    "of a record that names no fact's code, a sentence there says instead that none of its facts is "
                    "counted"),
             "zh_CN": ("在写明每条事实代码的记录之后加入或改过的事实，也列在那里",
                       "对没有写明任何事实代码的记录，那里改用一句话说明它的事实一律不计")}[lang]
    assert all(part in intro for part in words), intro


def test_every_committed_record_names_each_facts_code_as_the_pages_say():
    """The releases page says a record names each fact's code by a digest, and the facts and about pages count a
    fact from a record only where that code is its present one: true while every committed record names a code
    for every fact it ran (a record without them would count none of its facts, silently)."""
    for record in release_records.load():
        unnamed = sorted(fact for fact, entry in record["facts"].items() if not entry.get("code"))
        assert not unnamed, (f"docs/_shared/releases/{record['release']}.json names no code for {unnamed}: the "
                             "releases page says every record names each fact's code; take the record again")


def _releases_page(lang: str) -> str:
    return (ROOT / "docs" / lang / "releases.md").read_text(encoding="utf-8")


def test_the_releases_page_says_which_releases_changed_between_names_as_the_code_finds_them():
    """"Changed between" starts at the newest release where the check does not hold, whatever the reason: the
    page says so (a fact that only errored names the release where it errored), and in both editions it says
    that the pages listed are those whose checks changed."""
    errored, holds = sample(), sample()
    holds["release"] = "2.10.0"
    errored["release"] = "2.8.0"
    errored["facts"]["cpu-snapshot"] = {"status": "errored", "seen": "ValueError: output array is read-only"}
    row = next(row for row in release_records.changes([errored, holds], manifest_of(errored), "2.13.0")
               if row["what"] == "cpu-snapshot")
    assert (row["last_differs"], row["changed_in"]) == ("2.8.0", "2.10.0")
    en = " ".join(_releases_page("en").split())
    assert ('"Changed between" names two releases: the newest on which the check differs, is not available, '
            "errored or was not run, and the first one after it that gives this build's result") in en
    assert ("the pages whose checks or code changed since a record was taken are listed under the first table of "
            '"The records". So are the facts added or changed since a record that names each fact\'s code was taken; '
            "of a record that names no fact's code, a sentence there says instead that none of its facts is "
            "counted. So are, last, the claims of the ledger and the computed tables whose code was added or changed "
            "since a record was taken.") in en
    assert "Facts are treated like pages: a record names each fact's code by a digest of the code the fact runs" in en
    assert ("Claims and tables are not left out: where the check of a claim or the probe of a table changed after a "
            "record was taken, that record's results for it are counted and shown as they ran") in en
    zh = _releases_page("zh_CN")
    assert ("“变化发生在”一列给出两个版本：检查结果为“不同”“不可用”“出错”或“未运行”的最新版本，"
            "以及在它之后第一个与本次构建结果相同的版本（本次构建所用的 torch 也算在内）；") in zh
    assert "如果页面的检查或代码在某次记录之后改过，那次记录就不显示这个页面的旧结果" in zh
    assert "事实和页面一样处理：记录用事实所运行代码（它的函数以及它调用的本站代码）的摘要写明每条事实的代码" in zh
    assert ("检查或代码在记录之后改过的页面，列在“记录”一节的第一个表格下面。在写明每条事实代码的记录之后加入或改过的"
            "事实，也列在那里；对没有写明任何事实代码的记录，那里改用一句话说明它的事实一律不计。最后列在那里的，"
            "是代码在记录之后加入或改过的说法和计算出来的表格。") in zh
    assert "说法和表格则不排除：如果某条说法的检查或某个表格的探测代码在某次记录之后改过" in zh


def test_the_releases_page_names_the_errors_not_available_stands_for_and_the_still_differs_cell():
    """"Not available" is any error of ``MISSING`` (or a ``TypeError`` for an unexpected keyword): each edition names
    every one of them, and says what the "Changed between" cell reads when no later release gives this build's
    result (``still``)."""
    for lang, missing_words in (("en", "is *not available* raised an"), ("zh_CN", "“不可用”表示检查抛出了")):
        page = " ".join(_releases_page(lang).split())
        sentence = page[page.index(missing_words):][:400]
        for error in (*MISSING, TypeError):
            assert f"`{error.__name__}`" in sentence, f"{lang}: the releases page does not name {error.__name__}"
        still = _release_table().WORDS[lang]["still"]
        assert f"“{still}”" in page or f'"{still}"' in page, f"{lang}: the releases page does not explain {still!r}"
    assert "an unexpected keyword argument" in " ".join(_releases_page("en").split())
    assert "意外的关键字参数" in _releases_page("zh_CN")


def test_the_chinese_releases_page_links_to_pages_by_their_own_titles():
    """A link's words are the page's own title in 《》 (a bare title does not read as a page's name), never a title
    with a gloss put into it (视图（view）操作一览): the first-mention rule does not read a link's words, and the
    views page is titled 视图操作一览."""
    page = _releases_page("zh_CN")
    links = re.findall(r"\{doc\}`([^`]*)`", page)
    titled = re.findall(r"\{doc\}`《([^》`]*)》 <([^>`]*)>`", page)
    assert "views" in [target for _, target in titled]
    assert len(titled) == len(links), "a link without a title in 《》"
    for title, target in titled:
        heading = (ROOT / "docs" / "zh_CN" / f"{target}.md").read_text(encoding="utf-8").splitlines()[0]
        assert heading == f"# {title}", f"{target}: the link's words are not the page's title"


def test_a_changed_checks_label_has_a_full_width_colon_in_chinese():
    table = _release_table()
    row = {"kind": "fact", "what": "detach-write-routes"}
    assert table.change_label(table.WORDS["zh_CN"], row) == "事实：detach-write-routes"
    assert table.change_label(table.WORDS["en"], row) == "fact: detach-write-routes"


def test_a_pages_check_is_labelled_by_its_translated_message_in_chinese():
    """The Chinese edition names a page's check by its message's translation from the catalog (its fields
    filled with the record's values), after a full-width colon; the English edition by the message itself."""
    from sitetools.authoring import check_labels

    table = _release_table()
    labels = check_labels.read("zh_CN")
    name = "questions/plot_01_inplace_error"
    row = {"kind": "page", "what": f"{name}: the message names Sigmoid"}
    translated = labels["the message names Sigmoid"]
    assert translated and table.change_label(table.WORDS["zh_CN"], row, labels) == f"页面：{name}：{translated}"
    assert table.change_label(table.WORDS["en"], row) == f"page: {name}: the message names Sigmoid"
    filled = {"kind": "page", "what": "copying/plot_09: a.t_() must raise"}
    assert table.change_label(table.WORDS["zh_CN"], filled, {"{name} must raise": "{name} 报错"}) == (
        "页面：copying/plot_09：a.t_() 报错")
    untranslated = {"kind": "page", "what": f"{name}: x.grad is None"}
    assert table.change_label(table.WORDS["zh_CN"], untranslated, labels) == f"页面：{name}：x.grad is None"


def test_a_checks_label_has_the_pages_message_now_and_its_fields_values_translated():
    """A record keeps the message a check had when it ran: where the page has reworded it (the same check, a
    string message), the label is the page's message now, in Chinese its translation; a field's value from
    the record is translated too (``leaf`` -> 叶子张量), with no space left between Chinese characters."""
    from sitetools.authoring import check_labels

    table = _release_table()
    labels, values = check_labels.read("zh_CN"), check_labels.read_values("zh_CN")
    name = "copying/plot_02_safe_copy"
    check = "assert bytes_apart(a, by_default) and type(by_default.grad_fn).__name__ == 'CloneBackward0'"
    row = {"kind": "page", "what": f"{name}: a clone", "check": check}
    now = table.current_message(name, check, "a clone")
    assert now != "a clone" and labels[now]
    assert table.change_label(table.WORDS["zh_CN"], row, labels, values) == f"页面：{name}：{labels[now]}"
    assert table.change_label(table.WORDS["en"], row) == f"page: {name}: {now}"
    assert table.current_message(name, "assert a_check_it_does_not_have", "old") == "old"
    kinds = {"kind": "page", "what": "questions/plot_07_deepcopy: copy.copy of a leaf, in grad mode or under no_grad, "
                                     "is a leaf with no .grad"}
    assert table.change_label(table.WORDS["zh_CN"], kinds, labels, values) == (
        "页面：questions/plot_07_deepcopy：不论在梯度模式下还是在 no_grad 下，对叶子张量做 copy.copy，"
        "得到的都是没有 .grad 的叶子张量")


@pytest.mark.parametrize(("kind", "key", "zh", "en"), [
    ("table matrix", "plain / torch.tensor(a) / raised", "行为对照表：不需要梯度的张量 / torch.tensor(a) / 警告或报错",
     "matrix: a tensor that does not require grad / torch.tensor(a) / warning or error"),
    ("table views", "a.chunk(3)[0] / non-contiguous / edit_refused",
     "视图操作：a.chunk(3)[0] / 不连续的源张量 / 原地修改报错",
     "views: a.chunk(3)[0] / non-contiguous source / in-place edit refused"),
    ("table saved", "checkpoint(torch.exp, x, use_reentrant=False) / saves",
     "保存的张量：checkpoint(torch.exp, x, use_reentrant=False) / 保存的张量",
     "saved: checkpoint(torch.exp, x, use_reentrant=False) / saves"),
])  # fmt: skip
def test_a_table_cells_label_names_its_source_and_columns_in_the_words_of_its_page(kind, key, zh, en):
    table = _release_table()
    row = {"kind": kind, "what": key}
    assert table.change_label(table.WORDS["zh_CN"], row) == zh
    assert table.change_label(table.WORDS["en"], row) == en


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_sources_are_named_as_the_matrix_pages_sections_name_them(lang):
    """``WORDS[lang]["sources"]`` is what each section of the matrix page calls its source ("Source: a leaf
    tensor", "源张量：叶子张量"), its code marks dropped."""
    page = (ROOT / "docs" / lang / "matrix.md").read_text(encoding="utf-8")
    sections = [section.split("\n", 1) for section in page.split("\n## ")[1:]]
    found = {source: re.split("[:：] ?", title, maxsplit=1)[1].replace("`", "") for title, text in sections
             for source in re.findall(r"^:source: (\S+)$", text, re.MULTILINE)}  # fmt: skip
    assert found and found == _release_table().WORDS[lang]["sources"]


def test_every_pages_check_on_the_chinese_releases_page_is_named_in_chinese():
    """The records' rows as the Chinese page shows them: a page's check by a Chinese label (the message's
    translation, that of the page's message now where the record's was reworded)."""
    from sitetools.authoring import check_labels

    table = _release_table()
    manifest = json.loads((ROOT / "gallery" / "asserts.json").read_text(encoding="utf-8"))
    labels, values = check_labels.read("zh_CN"), check_labels.read_values("zh_CN")
    rows = [row for row in release_records.changes(release_records.load(), manifest, "2.13.0") if row["kind"] == "page"]
    shown = [table.change_label(table.WORDS["zh_CN"], row, labels, values).split("：", 2)[2] for row in rows]
    assert [label for label in shown if not re.search("[\u4e00-\u9fff]", label)] == []


def test_a_record_of_a_page_the_site_does_not_have_is_refused():
    record = sample()
    manifest = manifest_of(record)
    del manifest["questions/plot_01_inplace_error"]
    assert "questions/plot_01_inplace_error" in "".join(release_records.problems([record], manifest))
    incomplete = copy.deepcopy(record)
    del incomplete["commit"]
    assert "'commit'" in "".join(release_records.problems([incomplete], manifest_of(record)))


def test_a_check_that_differs_on_the_old_release_changed_in_the_next_one():
    old, new = sample(), sample()
    new["release"], new["torch"] = "2.14.1", "2.14.1"
    for page in new["pages"].values():
        for check in page["checks"]:
            check["status"] = "holds"
    rows = release_records.changes([old, new], manifest_of(old), "2.13.0")
    assert rows and all(row["changed_in"] == "2.13.0" for row in rows if row["kind"] == "page")
    newest_first = release_records.changes([old], manifest_of(old), "2.4.0")
    assert all(row["changed_in"] is None for row in newest_first), "the build's older torch is no change"
    exp = next(row for row in rows if "names Exp" in row["what"])
    assert "ExpBackward0" in exp["by_release"]["2.4.1"]["seen"]


def test_the_runner_tells_each_status_apart_on_this_torch():
    code = "\n".join([
        "import torch",
        "t = torch.ones(2)",
        "assert t.sum() == 2, 'holds'",
        "assert t.shape == (3,), 'differs'",
        "assert t.no_such_method() == 1, 'not available'",
        "assert t + 'text' == 1, 'errored'",
        "try:",
        "    t.add_(1)",
        "except RuntimeError as e:",
        "    pass",
        "else:",
        "    raise AssertionError('add_ must raise')",
        "raise ValueError('the page stops here')",
        "assert t.sum() == 4, 'not run'",
    ])  # fmt: skip
    found = run_page(code, {})
    status = {check["message"]: check["status"] for check in found["checks"]}
    assert status == {"holds": "holds", "differs": "differs", "not available": "not available",
                      "errored": "errored", "add_ must raise": "differs", "not run": "not run"}  # fmt: skip
    seen = {check["message"]: check.get("seen") for check in found["checks"]}
    assert seen["differs"] == "t.shape = torch.Size([2])"
    assert seen["add_ must raise"] == "no error was raised"
    assert found["stopped"]["error"] == "ValueError: the page stops here"


def test_the_records_command_is_never_run_by_the_build_or_the_tests():
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert re.search(r"def releases\(session", noxfile), "nox has no releases session"
    default = re.search(r"nox.options.sessions = (\[.*?\])", noxfile).group(1)
    assert "releases" not in default
    calls = ("record_release(", "releases.main(", '"sitetools.releases.record"', '"-s", "releases"')
    for path in [*ROOT.glob("tests/*.py"), *ROOT.glob("docs/**/*.py"), *ROOT.glob("sitetools/**/*.py")]:
        if path.relative_to(ROOT).as_posix() not in (f"tests/{Path(__file__).name}", "sitetools/releases/record.py",
                                                     "sitetools/releases/records.py",
                                                     "docs/_ext/tensorcopy_sphinx/release_table.py"):
            text = path.read_text(encoding="utf-8")
            assert not any(call in text for call in calls), f"{path.name} runs the records command"


def test_the_default_list_runs_from_the_oldest_supported_release_to_the_newest():
    oldest, newest = release_records.SUPPORTED
    assert releases.DEFAULT[0].startswith(oldest + ".") and releases.DEFAULT[-1].startswith(newest + ".")
    assert list(releases.DEFAULT) == sorted(releases.DEFAULT, key=release_records.release_key)
    assert releases.requirements("2.4.1")[1] == "numpy<2"
    assert releases.requirements("2.14.1")[0] == "torch==2.14.1"


def test_the_workflow_records_every_minor_release_of_the_range_weekly_and_by_hand():
    assert schema_errors(WORKFLOW) == "" and actionlint_errors(WORKFLOW) == ""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML reads the key "on" as True
    assert "schedule" in triggers and "workflow_dispatch" in triggers
    matrix = workflow["jobs"]["record"]["strategy"]["matrix"]["release"]
    minors = [".".join(release.split(".")[:2]) for release in matrix]
    oldest, newest = (release_records.release_key(r) for r in release_records.SUPPORTED)
    wanted = [f"2.{minor}" for minor in range(oldest[1], newest[1] + 1)]
    assert minors == wanted, "the matrix misses a minor release of the supported range"
    assert set(releases.DEFAULT) <= set(matrix)
    run = " ".join(step.get("run", "") for step in workflow["jobs"]["record"]["steps"])
    assert 'nox -s releases -- "${{ matrix.release }}"' in run


def test_a_broken_workflow_is_caught(tmp_path):
    broken = tmp_path / "releases.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace("matrix.release", "matrix.releases"),
                      encoding="utf-8")
    assert "releases" in actionlint_errors(broken)


#: A refusal's error message in a table cell as a record holds it (``Refused(kind=..., error='...')``).
ERROR_FIELD = re.compile(r", error=(?:'[^']*'|\"[^\"]*\")")


@pytest.mark.parametrize("table", ["views", "saved"])
def test_the_views_and_saved_pages_say_what_the_records_hold_of_their_tables(table):
    """Their note: the table's cells also ran on the recorded releases, some differ on older releases (older than
    this build's torch), and the releases page lists them. The views page says how they differ: the same result
    with another error message."""
    import torch

    records = release_records.load()
    assert records and all(record["tables"][table]["holds"] > 0 for record in records), "every record ran the cells"
    manifest = json.loads((ROOT / "gallery" / "asserts.json").read_text(encoding="utf-8"))
    rows = [row for row in release_records.changes(records, manifest, torch.__version__)
            if row["kind"] == f"table {table}"]  # fmt: skip
    differing = {release for row in rows for release, seen in row["by_release"].items() if seen["status"] != "holds"}
    assert any(seen["status"] == "differs" for row in rows for seen in row["by_release"].values()), "none differs"
    build = release_records.release_key(torch.__version__)
    assert all(release_records.release_key(release) < build for release in differing), differing
    if table == "views":  # same result, another message: a record with another result must change the note
        for record in records:
            for where, cell in record["tables"][table]["differs"].items():
                seen, expected = (ERROR_FIELD.sub("", cell[side]) for side in ("seen", "expected"))
                assert seen == expected and ERROR_FIELD.search(cell["seen"]), (record["release"], where, cell)
    for lang in CODES:
        assert "<releases-records>" in (ROOT / "docs" / lang / f"{table}.md").read_text(encoding="utf-8")


def _with_claim_and_table_codes(record: dict, codes: dict[str, dict[str, str]]) -> dict:
    """``record`` as a record taken now names its claims' and tables' code: each with the digest of its code."""
    for kind in ("claims", "tables"):
        for name, entry in record[kind].items():
            entry["code"] = codes[kind][name]
    return record


def test_a_claim_or_table_whose_code_changed_after_a_record_is_counted_apart_and_listed(monkeypatch):
    """A record names the code of each claim and table it ran (or the commit it names does): once a claim's check or
    a table's probe changes, the record's results for it come from the older code. Its row says how many of its
    claims and table cells ran with older code, and the claim and the table are listed under the first table, in
    each edition; the results are still shown. Fails when a change of a check's code after a record goes unseen."""
    from docutils import nodes
    from sphinx import addnodes

    from sitetools.releases import code_digests
    from tensorfacts import articles

    table = _release_table()
    record = sample()
    now = {"claims": code_digests.claim_codes(), "tables": code_digests.table_codes()}
    codes = {kind: {name: code for name, code in now[kind].items() if name in record[kind]} for kind in now}
    record = _with_claim_and_table_codes(record, codes)
    assert release_records.older(record, codes["claims"], "claims") == []
    assert release_records.older(record, codes["tables"], "tables") == []
    assert table.older_notes([record], codes, table.WORDS["en"], "2.13.0", "releases") == []
    claim = next(iter(record["claims"]))
    monkeypatch.setitem(articles.CHECKS, claim, lambda: None)  # the claim's check, rewritten
    now = {"claims": {name: code for name, code in code_digests.claim_codes().items() if name in record["claims"]},
           "tables": {**codes["tables"], "views": "a new probe"}}  # fmt: skip
    assert now["claims"][claim] != codes["claims"][claim], "a claim's new check must give a new digest"
    assert release_records.older(record, now["claims"], "claims") == [claim]
    assert release_records.older(record, now["tables"], "tables") == ["views"]
    views = record["tables"]["views"]["holds"] + len(record["tables"]["views"]["differs"])
    row = table.record_row(table.WORDS["en"], record, None, now)
    assert row[8] == (f"{len(record['claims'])} hold, 0 differ, 0 not available, 0 errored; "
                      "1 ran with older code (see below)")
    assert row[9].endswith(f"; {views} ran with older code (see below)")
    assert table.record_row(table.WORDS["zh_CN"], record, None, now)[8].endswith("；其中 1 项运行的是旧代码（见下文）")
    notes = table.older_notes([record], now, table.WORDS["en"], "2.13.0", "releases")
    assert [type(node) for node in notes] == [nodes.paragraph, nodes.bullet_list] * 2
    assert notes[0].astext() == ("The check of the claim below was added or changed after the records of torch 2.4.1 "
                                 "were taken: those records' results for it come from the older check; as it now "
                                 "reads, it has run on torch 2.13.0 only:")
    assert [literal.astext() for literal in notes[1].findall(nodes.literal)] == [claim]
    assert notes[2].astext() == ("The probe of the table below changed after the records of torch 2.4.1 were taken: "
                                 "those records' results for its cells come from the older probe; as it now reads, "
                                 "it has run on torch 2.13.0 only:")
    assert [link["reftarget"] for link in notes[3].findall(addnodes.pending_xref)] == ["/views"]
    zh = [node.astext() for node in table.older_notes([record], now, table.WORDS["zh_CN"], "2.13.0", "releases")]
    assert zh[0] == ("以下 1 条说法的检查在 torch 2.4.1 的记录之后加入或改过：那些记录里的结果来自旧的检查代码；"
                     "按现在的写法，只在 torch 2.13.0 上运行过：")
    assert zh[2] == ("以下 1 个表格的探测代码在 torch 2.4.1 的记录之后改过：那些记录里其单元格的结果来自旧的探测代码；"
                     "按现在的写法，只在 torch 2.13.0 上运行过：")
    shown = {(row["kind"], row["what"])
             for row in release_records.changes([record], manifest_of(record), "2.13.0", now)}
    assert any(kind == "table views" for kind, _ in shown), "the results that ran with the older probe are shown"


def test_a_record_whose_code_is_named_nowhere_counts_every_claim_and_table_as_older():
    """A record that names no claim's or table's code, taken at a commit whose digests are not kept, cannot say which
    of them ran as they now read: every one is listed, none is taken as today's."""
    codes = {"claims": {"000-add-output": "x"}, "tables": {"matrix": "y", "views": "z", "saved": "w"}}
    record = sample()
    record["commit"] = "0" * 40
    assert release_records.older(record, codes["claims"], "claims") == ["000-add-output"]
    assert release_records.older(record, codes["tables"], "tables") == ["matrix", "saved", "views"]


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_releases_page_lists_every_claim_and_table_that_a_record_did_not_run_as_it_now_reads(lang):
    """The committed records, against the code now: the claims and tables listed under the first table are exactly
    those whose digest now is not the one the record names, each under the records that ran it in another form."""
    from docutils import nodes
    from sphinx import addnodes

    from sitetools.releases import code_digests

    table = _release_table()
    records = release_records.load()
    codes = {"claims": code_digests.claim_codes(), "tables": code_digests.table_codes()}
    expected: dict[str, set[str]] = {}
    for record in records:
        for kind in codes:
            recorded = {name: entry.get("code") for name, entry in record[kind].items()}
            for name, code in codes[kind].items():
                if recorded.get(name) != code:
                    expected.setdefault(f"{kind}:{name}", set()).add(record["release"])
    notes = table.older_notes(records, codes, table.WORDS[lang], "2.13.0", "releases")
    listed: dict[str, set[str]] = {}
    for sentence, items in zip(notes[::2], notes[1::2], strict=True):
        where = {release for release in (r["release"] for r in records) if release in sentence.astext()}
        for literal in items.findall(nodes.literal):
            listed.setdefault(f"claims:{literal.astext()}", set()).update(where)
        for link in items.findall(addnodes.pending_xref):
            listed.setdefault(f"tables:{link['reftarget'].strip('/')}", set()).update(where)
    assert listed == expected
