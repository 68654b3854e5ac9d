"""The GPU box: its checks run only where torch has a GPU, and nothing claims they ran when they did not.

The build of this project has no GPU, so the branch that runs the checks is proven here with fakes: a
patched ``torch.cuda.is_available`` for the rerun cell and for the title, whose other half, the build's
record of the lines a page ran, is made by running a page under the guard. The branch without a GPU is
the real one: every build takes it (the built pages are read in tests/test_web_site.py, whose stamp
test counts the GPU checks only when they ran).
"""

import ast
import textwrap
import types
from pathlib import Path

import pytest
import torch

from sitetools import settings
from sitetools.guard import example as example_guard
from sitetools.releases.rerun_cell import GPU_MARK, gpu_lines, rerun_checks
from sitetools.rules import checks_manifest
from sitetools.rules import gpu_box as gpu_rule
from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)

from tensorcopy_sphinx import gpu_box, notebook_text  # noqa: E402  isort: skip

PAGE = textwrap.dedent(f"""
    import torch

    assert torch.ones(2).sum() == 2, "a CPU check"
    if torch.cuda.is_available():
        t = torch.ones(2)
        assert t.sum() == 2, "a GPU check"
        try:
            t.view(3)
        except RuntimeError:
            pass
        else:
            raise AssertionError("view(3) of two elements must raise")
        print({GPU_MARK!r}, "Fake GPU")
    """)


def test_the_manifest_marks_the_checks_of_a_gpu_block_and_only_those():
    found = checks_manifest.checks(PAGE)
    assert [check for check in found if check.endswith(checks_manifest.GPU)] == [
        "assert t.sum() == 2 (GPU)", "raises RuntimeError: t.view(3) (GPU)"]
    assert "assert torch.ones(2).sum() == 2" in found, "a check outside the block is not marked"


def test_an_if_with_an_else_or_another_test_is_no_gpu_block():
    with_else = "if torch.cuda.is_available():\n    x = 1\nelse:\n    x = 2\n"
    tree = ast.parse(with_else + "if torch.cuda.is_available() or True:\n    y = 1\n")
    assert gpu_lines(tree) == set()


def test_without_a_gpu_the_rerun_reports_its_checks_as_needing_one_and_does_not_fail(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    rerun_checks(PAGE, "2.13.0")
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[1:4]] == ["agrees", "no", "no"], lines
    assert "2 checks need a GPU" in lines[4] and lines[5].startswith("1 agree, 0 differ, 0 not run: 1 claims"), lines


def test_one_check_needing_a_gpu_is_reported_in_the_singular(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    one_check = PAGE.replace("    assert t.sum() == 2, \"a GPU check\"\n", "")
    assert one_check != PAGE
    rerun_checks(one_check, "2.13.0")
    lines = capsys.readouterr().out.splitlines()
    assert "1 check needs a GPU, which this machine does not have: it did not run" in lines, lines


def test_a_failing_cpu_check_still_fails_next_to_a_gpu_block(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(AssertionError, match="1 claims of this page differ"):
        rerun_checks(PAGE.replace("sum() == 2, \"a CPU check\"", "sum() == 3, \"a CPU check\""), "2.13.0")


def test_with_a_gpu_faked_the_gpu_checks_run_and_count(capsys, monkeypatch):
    """A fake: the GPU block runs on the CPU (its code needs no GPU); this proves the branch's logic only."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    rerun_checks(PAGE, "2.13.0")
    out = capsys.readouterr().out
    assert "no GPU" not in out and "3 agree, 0 differ, 0 not run: 3 claims from the page's 3 checks" in out, out


def test_a_gpu_block_that_does_not_run_is_not_run_when_the_page_stopped_before_it(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(AssertionError, match="did not run"):
        rerun_checks("import torch\nraise ValueError('stop')\n" + PAGE, "2.13.0")


def _guarded_run(tmp_path, code: str, monkeypatch) -> None:
    """Run ``code`` as the page ``gallery/en/questions/plot_00_gpu.py`` under the guard (which records
    the lines that ran) with a GPU faked, and print what a page may print."""
    monkeypatch.delenv(settings.RECORDS, raising=False)
    path = tmp_path / "plot_00_gpu.py"
    path.write_text(code, encoding="utf-8")
    guard = example_guard._Guard()
    guard.start("gallery/en/questions/plot_00_gpu.py", path)
    try:
        exec(compile(code, str(path), "exec"), {"__name__": "__main__"})
    finally:
        guard.stop("gallery/en/questions/plot_00_gpu.py")


@pytest.fixture
def fake_gpu(monkeypatch):
    example_guard._warm_up()  # its one compile asks torch.cuda for its state: done on the real torch, as in a build
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "Fake GPU 80GB")


def test_a_block_that_ran_to_its_end_on_a_gpu_is_executed(tmp_path, monkeypatch, fake_gpu):
    _guarded_run(tmp_path, PAGE, monkeypatch)  # the fake GPU block runs on the CPU: its code needs none
    assert gpu_box.ran_on("questions/plot_00_gpu") == ["Fake GPU 80GB"]


def test_the_mark_printed_outside_the_block_does_not_title_the_box(tmp_path, monkeypatch, capsys):
    """The fault: on a build without a GPU, a page prints the mark itself, outside its GPU block. The output
    holds the mark; the title stays "not executed", even were torch to claim a GPU afterwards."""
    _guarded_run(tmp_path, PAGE + f"print({GPU_MARK!r}, 'Fake GPU 80GB')\n", monkeypatch)  # the real CPU run
    assert f"{GPU_MARK} Fake GPU 80GB" in capsys.readouterr().out, "the page printed the mark"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "Fake GPU 80GB")
    assert example_guard.gpu_blocks_ran("questions/plot_00_gpu") == [False], "the block did not run"
    assert gpu_box.box_title(_App, gpu_box.ran_on("questions/plot_00_gpu")) == "On a GPU (not executed by this build)"


def test_a_block_that_ran_is_not_executed_where_torch_has_no_gpu(tmp_path, monkeypatch, fake_gpu):
    _guarded_run(tmp_path, PAGE, monkeypatch)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert gpu_box.ran_on("questions/plot_00_gpu") == []


def test_a_page_the_build_did_not_run_has_no_gpu_block_that_ran(fake_gpu):
    assert gpu_box.ran_on("questions/plot_99_never_ran") == []


class _App:
    """Enough of a Sphinx application for the titles: the English edition, whose message ids are its words."""

    config = types.SimpleNamespace(language="en")
    translator = types.SimpleNamespace(gettext=lambda text: text)


def test_the_title_says_executed_only_when_a_block_ran():
    assert gpu_box.box_title(_App, []) == "On a GPU (not executed by this build)"
    assert gpu_box.box_title(_App, ["Fake GPU 80GB"]) == "On a GPU (executed by this build on Fake GPU 80GB)"


def test_the_notebooks_title_is_the_pages_own(fake_gpu):
    """One box, one title: the notebook's says what the page's says ("this build" is the site's build)."""
    assert notebook_text.gpu_title(_App, "questions/plot_99_never_ran") == "On a GPU (not executed by this build)"
    chinese = _chinese_app()
    assert notebook_text.gpu_title(chinese, "questions/plot_99_never_ran") == "在 GPU 上（本次构建未执行）"
    assert notebook_text.gpu_title(chinese, "questions/plot_99_never_ran") == gpu_box.box_title(chinese, [])


def _chinese_app() -> types.SimpleNamespace:
    """The Chinese edition, its words from the message catalog."""
    from tests.test_web_units import catalog

    words = catalog("zh_CN")
    return types.SimpleNamespace(config=types.SimpleNamespace(language="zh_CN"),
                                 translator=types.SimpleNamespace(gettext=lambda text: words.get(text) or text))


def test_without_a_gpu_the_chinese_rerun_report_says_the_checks_did_not_run_in_few_words(capsys, monkeypatch):
    from sitetools.releases import rerun_cell as runner
    from tensorcopy_sphinx.rerun_cell import report_words  # isort: skip

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(runner, "WORDS", report_words(_chinese_app()))
    rerun_checks(PAGE, "2.13.0")
    lines = capsys.readouterr().out.splitlines()
    assert "2 项检查需要 GPU，本机没有 GPU，未运行" in lines, lines


def test_the_notebook_gets_the_title_it_is_given_for_a_gpu_box():
    cell = ".. admonition:: On a GPU\n   :class: note gpu-box\n\n   What a GPU does.\n"
    text = notebook_text.markdown_cell(cell, {}, "page.ipynb", gpu_title="On a GPU (a given title)")
    assert text.startswith("> **On a GPU (a given title)**"), text
    plain = ".. admonition:: Note\n   :class: note\n\n   Words.\n"
    assert notebook_text.markdown_cell(plain, {}, "page.ipynb", gpu_title="x").startswith("> **Note**")


GOOD = textwrap.dedent(f'''
    """
    Title
    =====
    """

    # %%
    # .. admonition:: On a GPU
    #    :class: note gpu-box
    #
    #    What a GPU does.

    import torch

    if torch.cuda.is_available():
        assert torch.ones(1, device="cuda").is_cuda, "on the GPU"
        print({GPU_MARK!r}, torch.cuda.get_device_name())
    ''')


@pytest.mark.parametrize(("change", "problem"), [
    (lambda page: page, None),
    (lambda page: page.replace(":class: note gpu-box", ":class: note"), "does not follow a GPU box"),
    (lambda page: page.replace(f"    print({GPU_MARK!r}, torch.cuda.get_device_name())\n", ""), "must end with"),
    (lambda page: page.replace("if torch.cuda.is_available():", "if torch.cuda.device_count():"), "one GPU block"),
    (lambda page: page.replace("On a GPU\n", "On a GPU (not executed by this build)\n"), "says whether this build"),
], ids=["good", "no box", "no mark", "no block", "hand title"])
def test_the_page_rule_holds_a_gpu_box_to_its_form(tmp_path, change, problem):
    script = tmp_path / "plot_01_x.py"
    script.write_text(change(GOOD), encoding="utf-8")
    found = gpu_rule.check_gpu_boxes(script)
    assert (not found) if problem is None else any(problem in p for p in found), found


def test_every_gpu_box_of_the_gallery_has_its_checks_recorded_as_gpu_checks():
    recorded = checks_manifest.read_manifest()
    boxed = {name for name, checks in recorded.items() if any(c.endswith(checks_manifest.GPU) for c in checks)}
    pages = {checks_manifest.relative_name(p) for p in Path(checks_manifest.GALLERY, "en").rglob("plot_*.py")
             if "gpu-box" in p.read_text(encoding="utf-8")}  # fmt: skip
    assert pages and boxed == pages
