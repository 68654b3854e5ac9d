"""The timings' comparison with an older revision, fast tier: what it counts as pages and the tree it
builds. No site build."""

import subprocess

from sitetools.building import timings


def test_page_count_adds_example_and_narrative_pages_of_every_edition(tmp_path):
    for name in ("gallery/en/part/plot_01_a.py", "gallery/en/part/plot_02_b.py", "gallery/zh_CN/part/plot_01_a.py",
                 "gallery/en/part/helper.py", "docs/en/index.md", "docs/zh_CN/index.md", "docs/en/conf.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    assert timings.page_count(tmp_path) == 5  # three scripts named plot_*, two Markdown pages


def test_revision_tree_is_the_committed_project(tmp_path):
    tree = timings.revision_tree("HEAD", str(tmp_path))
    committed = subprocess.run(["git", "show", "HEAD:noxfile.py"], cwd=timings.ROOT, capture_output=True,
                               text=True, check=True).stdout  # fmt: skip
    assert (tree / "noxfile.py").read_text(encoding="utf-8") == committed
    assert not (tree / ".git").exists() and not (tree / ".nox").exists()


def test_the_build_split_is_read_from_what_the_build_printed():
    printed = ("Building en ...\n"
               "Published en, zh_CN in 38.7 s (Sphinx 34.9 s, the gate's own work 3.8 s): /x/index.html\n")
    assert timings.build_split(printed) == "en, zh_CN in 38.7 s (Sphinx 34.9 s, the gate's own work 3.8 s)"
    assert timings.build_split("FAILED: nothing was published") == "no build summary"


def test_a_budget_line_says_over_only_when_the_figure_is_over_its_budget():
    assert timings.over(479.0, 480.0) == "" and timings.over(480.0, 480.0) == ""
    assert "2.0 times" in timings.over(960.0, 480.0)
