"""The gate's promises, each checked in the fast tier without building the site: the editions' output
blocks are compared one by one, every edition runs under the time limit, a failed check publishes
nothing, the language switch links the other edition, and the Chinese query splitter cuts a compound
the index does not hold. The slow tier checks the same through real builds (tests/test_faults.py,
tests/test_search_and_switch.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jinja2
import pytest

from sitetools import settings
from sitetools.building import pipeline
from tests.claims_tools import zh_search
from tests.gallery_tools import ROOT

NAME = "part/plot_01_probe"


def _fake_edition(out: Path, stage: Path, lang: str, outputs: list[str], ran: bool = True) -> None:
    """What a finished edition leaves: the example's page with its output blocks, and its record."""
    page = out / lang / pipeline.EXAMPLES_DIR / f"{NAME}.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("".join(f'<div class="sphx-glr-script-out highlight-none">{o}</div>' for o in outputs),
                    encoding="utf-8")
    if ran:
        records = stage / "records" / lang
        records.mkdir(parents=True, exist_ok=True)
        printed = "".join(f"{o}\n" for o in outputs)  # each block shows what the page's own prints wrote
        (records / f"{Path(NAME).name}.py.done").write_text(json.dumps({"printed": printed}), encoding="utf-8")


def _verify(tmp_path, en: list[str], zh: list[str], zh_ran: bool = True) -> str:
    out, stage = tmp_path / "out", tmp_path / "stage"
    _fake_edition(out, stage, "en", en)
    _fake_edition(out, stage, "zh_CN", zh, ran=zh_ran)
    try:
        pipeline.verify_examples(out, stage, ["en", "zh_CN"], {"en": [NAME], "zh_CN": [NAME]})
    except pipeline.BuildError as error:
        return str(error)
    return ""


def test_identical_outputs_pass(tmp_path):
    assert _verify(tmp_path, ["a: 1", "b: 2"], ["a: 1", "b: 2"]) == ""


def test_one_output_block_that_differs_is_named(tmp_path):
    """Same number of blocks, one differing: a comparison by count would pass it."""
    problem = _verify(tmp_path, ["a: 1", "b: 2", "c: 3"], ["a: 1", "b: 7", "c: 3"])
    assert f"gallery/zh_CN/{NAME}.py printed other output than gallery/en/{NAME}.py (output block 2)" in problem


def test_an_example_without_its_record_did_not_run_to_its_end(tmp_path):
    problem = _verify(tmp_path, ["a: 1"], ["a: 1"], zh_ran=False)
    assert f"gallery/zh_CN/{NAME}.py did not run to its end" in problem


def test_every_edition_runs_under_the_time_limit(tmp_path, monkeypatch):
    seen = {}

    def fake_popen(command, **kwargs):
        seen.update(kwargs["env"])
        return None

    monkeypatch.setattr(pipeline.subprocess, "Popen", fake_popen)
    pipeline.start_edition(tmp_path / "docs", "en", tmp_path / "out", tmp_path, 7.5, "")
    assert seen[settings.TIMEOUT] == "7.5"
    assert seen[settings.RECORDS] == str(tmp_path / "records" / "en")


class _Finished:
    """A Sphinx process that has ended with exit code 0."""

    pid = -1

    def poll(self) -> int:
        return 0

    def wait(self, timeout=None) -> int:
        return 0


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("same_output", [True, False], ids=["passes-and-publishes", "fails-and-keeps-old-site"])
def test_a_failed_check_publishes_nothing(tmp_path, monkeypatch, same_output):
    """The whole path from the editions to ``publish``, with Sphinx replaced by a fake that writes the
    pages: when the editions' outputs differ the build fails and the old site stays as it was."""
    out = pipeline.make_owned(tmp_path / "site", "preview")
    (out / "old.html").write_text("the previous site", encoding="utf-8")
    stage = tmp_path / "stage"
    example = pipeline.sources.gallery_scripts("en")[0]
    only = [pipeline.sources.relative_name(example)]

    def fake_start(docs, lang, building, stage_, timeout, preview, kept=()):
        outputs = ["a: 1"] if same_output or lang == "en" else ["a: 2"]
        page = building / lang / pipeline.EXAMPLES_DIR / f"{only[0]}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f'<div class="sphx-glr-script-out highlight-none">{outputs[0]}</div>', encoding="utf-8")
        records = stage_ / "records" / lang
        records.mkdir(parents=True, exist_ok=True)
        record = json.dumps({"printed": f"{outputs[0]}\n"})
        (records / f"{Path(only[0]).name}.py.done").write_text(record, encoding="utf-8")
        return _Finished()

    monkeypatch.setattr(pipeline, "start_edition", fake_start)
    monkeypatch.setattr(pipeline, "check_doctests", lambda *args, **kwargs: 0)
    monkeypatch.setattr(pipeline.web, "write_root_files", lambda *args, **kwargs: None)
    building = tmp_path / ".site.building"
    if same_output:
        pipeline.run_editions(out, building, stage, ["en", "zh_CN"], only, "preview", 60)
        assert not (out / "old.html").exists() and (out / "en" / pipeline.EXAMPLES_DIR / f"{only[0]}.html").exists()
    else:
        with pytest.raises(pipeline.BuildError, match="printed other output"):
            pipeline.run_editions(out, building, stage, ["en", "zh_CN"], only, "preview", 60)
        assert (out / "old.html").read_text(encoding="utf-8") == "the previous site"
        assert not (out / "en").exists()
    shutil.rmtree(stage, ignore_errors=True)


def test_the_build_versions_are_the_installed_ones(monkeypatch):
    """The verified-on stamp and |torch_version| name the torch that is installed, whatever it is, and a
    page that sets ``torch.__version__`` cannot change them."""
    from importlib.metadata import version

    import torch
    from tensorcopy_sphinx import build_info  # on the path since tests.claims_tools

    monkeypatch.setattr(torch, "__version__", "2.99.0")
    assert build_info.build_versions()["torch_version"] == version("torch") != "2.99.0"
    monkeypatch.setattr(build_info, "version", lambda name: f"9.8.7+{name}")
    assert build_info.build_versions()["torch_version"] == "9.8.7+torch"


# --- The language switch template ------------------------------------------------------------------


def _switch(current: str) -> str:
    template = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "docs" / "_templates"))
    links = [
        {"edition": "en", "tag": "en", "name": "English", "href": "../en/page.html", "current": current == "en"},
        {"edition": "zh_CN", "tag": "zh-CN", "name": "简体中文", "href": "../zh_CN/page.html",
         "current": current == "zh_CN"},
    ]
    return template.get_template("language-switch.html").render(language_links=links)


def test_the_switch_links_the_other_edition_and_marks_this_one():
    from bs4 import BeautifulSoup

    for current, other, href in (("en", "简体中文", "../zh_CN/page.html"), ("zh_CN", "English", "../en/page.html")):
        nav = BeautifulSoup(_switch(current), "html.parser").select_one("nav.language-switch")
        links = nav.select("a[href]")
        assert [(a.get_text(strip=True), a["href"]) for a in links] == [(other, href)], current
        here = nav.select('[aria-current="true"]')
        assert [s.name for s in here] == ["span"] and here[0].get_text(strip=True) != other, current


# --- The Chinese query splitter --------------------------------------------------------------------

#: (the words the index holds, what a reader types, the words the search must look up).
SPLITS = [
    (["自动", "求导"], "自动求导", ["自动", "求导"]),
    (["叶子", "张量"], "叶子张量", ["叶子", "张量"]),
    (["张量", "自动", "求导"], "张量的自动求导", ["张量", "自动", "求导"]),
    (["自动求导", "自动"], "自动求导", ["自动求导"]),
    (["版本", "计数器"], "clone 版本计数器", ["clone", "版本", "计数器"]),
]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (the splitter is JavaScript)")
def test_the_query_splitter_cuts_compounds_into_index_words(tmp_path):
    cases = [{"terms": dict.fromkeys(words, 0), "query": query} for words, query, _ in SPLITS]
    script = tmp_path / "split.js"
    script.write_text(
        zh_search.SearchChineseFixed.js_splitter_code  # what the Chinese search pages ship
        + f"\nconst cases = {json.dumps(cases, ensure_ascii=False)};\n"
        "const got = cases.map((c) => { globalThis.Search = {_index: {terms: c.terms, titleterms: {}}};"
        " return splitQuery(c.query); });\nconsole.log(JSON.stringify(got));\n",
        encoding="utf-8")
    got = json.loads(subprocess.run(["node", str(script)], capture_output=True, text=True, check=True,
                                     timeout=60).stdout)
    assert got == [expected for _, _, expected in SPLITS]
