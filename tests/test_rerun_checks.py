"""The rerun cell's runner (``sitetools/releases/rerun_cell.py``) on small pages whose verdicts are known.

Each page below is run by :func:`rerun_checks` in this process; the report is read back line by line.
The downloads' own rerun cells are run in tests/test_downloads.py, on the built site.
"""

import ast
import subprocess
import sys
import textwrap

import pytest

from sitetools.releases.rerun_cell import _RecordChecks, rerun_checks
from sitetools.rules import checks_manifest
from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)

from tensorcopy_sphinx.rerun_cell import cell_code, page_code  # noqa: E402  isort: skip

PAGE = textwrap.dedent("""
    import torch

    a = torch.ones(3)
    print("printed by the page")
    assert a.clone().untyped_storage().data_ptr() != a.untyped_storage().data_ptr(), "clone() copies"
    for n in range(3):
        assert n < 2, f"case {n} holds"
    try:
        torch.ones(2, 3).t().view(6)
    except RuntimeError as e:
        assert "view size" in str(e), "the error names the view size"
    else:
        raise AssertionError("view() of a transposed tensor must raise")
    try:
        a.view(3)
    except RuntimeError:
        pass
    else:
        raise AssertionError("view() of a contiguous tensor must raise")
    assert 1 / 0, "a check that raises"
    b = missing_name
    assert b, "after the stop"
""")


def report(code, capsys) -> tuple[list[str], str]:
    with pytest.raises(AssertionError) as raised:
        rerun_checks(code, "0.0")
    return capsys.readouterr().out.splitlines(), str(raised.value)


def test_every_claim_is_reported_and_the_run_never_stops_at_the_first(capsys):
    lines, error = report(PAGE, capsys)
    assert lines[1:] == [
        "  agrees   clone() copies",
        "  agrees   case 0 holds",
        "  agrees   case 1 holds",
        "  DIFFERS  case 2 holds",
        "  agrees   view() of a transposed tensor must raise",
        "  agrees   the error names the view size",
        "  DIFFERS  view() of a contiguous tensor must raise",
        "  DIFFERS  a check that raises (ZeroDivisionError: division by zero)",
        "  not run  after the stop",
        "5 agree, 3 differ, 1 not run: 9 claims from the page's 7 checks",
        "The page stopped at `b = missing_name`: NameError: name 'missing_name' is not defined",
        "The claims after that point did not run, and a loop that stopped may list fewer cases.",
    ]
    assert "printed by the page" not in "\n".join(lines)  # the page's prints were shown above the cell
    assert "3 claims of this page differ and 1 did not run, and the page stopped before its end" in error


def test_a_page_that_holds_reports_it_and_raises_nothing(capsys):
    rerun_checks("x = [1, 2]\nfor v in x:\n    assert v > 0, 'positive'\nassert len(x) == 2\n", "0.0")
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == ["  agrees   positive (2 times)", "  agrees   len(x) == 2", "2 agree, 0 differ, 0 not run: "
                         "2 claims from the page's 2 checks"]  # fmt: skip


def test_chinese_status_words_are_aligned_by_the_columns_they_take(capsys, monkeypatch):
    """一致 takes four columns, 不一致, 未运行 and 无 GPU six: the messages start at column 2 + 6 + 1 + 1."""
    from sitetools.releases import rerun_cell as runner

    words = {"agrees": "一致", "DIFFERS": "不一致", "not run": "未运行", "no GPU": "无 GPU"}
    monkeypatch.setattr(runner, "WORDS", {**runner.WORDS, **words})
    with pytest.raises(AssertionError):
        rerun_checks("assert True, 'holds'\nassert False, 'differs'\n", "0.0")
    assert capsys.readouterr().out.splitlines()[1:3] == ["  一致    holds", "  不一致  differs"]


def test_a_repeated_message_differs_when_any_run_of_it_differs(capsys):
    lines, error = report("for v in [1, -1, 2]:\n    assert v > 0, 'positive'\n", capsys)
    assert len(lines) == 3 and lines[1].startswith("  DIFFERS  positive") and lines[1].endswith("(3 times)"), lines
    assert lines[2] == "0 agree, 1 differ, 0 not run: 1 claims from the page's 1 checks"
    assert "1 claims of this page differ" in error


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nfor n in ['clone', 'detach', 'nope']:\n    t = getattr(torch.ones(1), n)()\n"
        "    assert t is not None, f'{n} works'\n",  # stops inside a loop, every check ran once already
        "assert 1 == 1, 'one'\nraise RuntimeError('after the last check')\n",
    ],
    ids=["loop", "after-the-last-check"],
)
def test_a_page_that_stops_fails_even_when_every_check_ran(code, capsys):
    lines, error = report(code, capsys)
    assert "the page stopped before its end" in error
    assert any(line.startswith("The page stopped at") for line in lines), lines


def test_checks_keep_pythons_own_semantics(capsys):
    """The test runs in place (a walrus binds, a class body sees its names, super() works) and the
    message is built only as Python would build it, so none of these reads as a difference."""
    rerun_checks(textwrap.dedent("""
        class Base:
            def value(self):
                return 1
        class C(Base):
            k = 2
            assert k == 2, "a class body sees its names"
            def value(self):
                assert super().value() == 1, "super() works in a check"
                return 2
        assert C().value() == 2, "the method ran"
        assert (n := 3) == 3, "a walrus binds"
        assert n == 3, "the walrus's name is bound after the check"
        x = None
        assert x is None, f"x holds {x.tolist()}"
        try:
            y = 1
            int("nope")
        except ValueError:
            pass
        else:
            raise AssertionError(f"int() must refuse, y={y}")
    """), "0.0")
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "7 agree, 0 differ, 0 not run: 7 claims from the page's 7 checks", lines
    assert "  agrees   x holds {x.tolist()}" in lines  # the message's template: its value was never built


def test_it_counts_the_checks_the_manifest_counts():
    """The runner and the manifest (and so the verified-on stamp) agree on what a check is."""
    recorder = _RecordChecks()
    recorder.visit(ast.parse(PAGE))
    assert len(recorder.texts) == len(checks_manifest.checks(PAGE)) == 7


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_cell_runs_on_its_own_from_a_page_with_a_comment_and_a_hidden_block(tmp_path):
    """The cell written for a real page layout: code blocks only, hidden blocks kept, its own interpreter."""
    script = tmp_path / "plot_x.py"
    script.write_text('"""\nTitle\n=====\n"""\n\n# %%\n# Text.\n\nimport torch\nt = torch.zeros(2)\n'
                      "# sphinx_gallery_start_ignore\nassert t.sum() == 0, 'hidden check'\n"
                      "# sphinx_gallery_end_ignore\n", encoding="utf-8")  # fmt: skip
    assert "Text." not in page_code(script) and "hidden check" in page_code(script)
    result = subprocess.run([sys.executable, "-W", "error", "-c", cell_code(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == ["Title", "  agrees   hidden check", "1 agree, 0 differ, 0 not run: 1 "
                                              "claims from the page's 1 checks"]  # fmt: skip
    runner = cell_code(script).split("'''")[2]
    assert '"""' not in runner and "#" not in runner, "the runner keeps English docstrings or comments"


def test_a_page_the_raw_string_cannot_hold_fails_naming_it(tmp_path):
    from sphinx.errors import ExtensionError

    script = tmp_path / "plot_quotes.py"
    script.write_text("x = '''a'''\n", encoding="utf-8")
    with pytest.raises(ExtensionError, match="plot_quotes.py"):
        page_code(script)


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_scripts_cell_reads_the_page_from_its_own_file_and_holds_no_second_copy(tmp_path):
    """The ``.py`` download's rerun cell: the page above it is read from the file, up to the cell, and run."""
    from tensorcopy_sphinx.rerun_cell import PY_MARKER  # isort: skip

    script = tmp_path / "plot_x.py"
    script.write_text('"""\nTitle\n=====\n"""\n\n# %%\n# Text.\n\nimport torch\nt = torch.zeros(2)\n'
                      "# sphinx_gallery_start_ignore\nassert t.sum() == 0, 'hidden check'\n"
                      "# sphinx_gallery_end_ignore\n", encoding="utf-8")  # fmt: skip
    cell = cell_code(script, in_script=True)
    assert "hidden check" not in cell and "t = torch.zeros(2)" not in cell, "the cell holds the page a second time"
    download = tmp_path / "download.py"
    download.write_text(f"{script.read_text(encoding='utf-8')}\n\n{PY_MARKER}\n# The rerun cell.\n\n{cell}",
                        encoding="utf-8")  # fmt: skip
    result = subprocess.run([sys.executable, "-W", "error", str(download)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-3:] == ["Title", "  agrees   hidden check", "1 agree, 0 differ, 0 not run: 1 "
                                               "claims from the page's 1 checks"]  # fmt: skip
    # the about page and the cell's text: it runs from the saved script, not pasted into a console (no __file__)
    with pytest.raises(NameError, match="'__file__' is not defined"):
        exec(compile(cell, "<console>", "exec"), {"__name__": "__main__"})  # noqa: S102 (the download's own cell)


def test_each_claim_is_listed_under_the_title_of_its_section(capsys):
    rerun_checks("assert 1, 'a'\nassert 1, 'b'\nassert 1, 'c'\n", "0.0", [(1, "第一节"), (2, "第二节")])
    assert capsys.readouterr().out.splitlines()[1:5] == ["第一节", "  agrees   a", "第二节", "  agrees   b"]


SECTIONED = ('"""\nThe page\n========\n\nIntro.\n"""\n\nimport torch\n\n# %%\n# The ``first`` part\n# '
             "------------------\n#\n# Text.\n\nx = torch.ones(1)\nassert x.sum() == 1, 'one'\n\n# %%\n# More "
             "text, no title.\n\ny = x * 2\nassert y.sum() == 2, 'two'\n")


@pytest.mark.parametrize("in_script", [False, True], ids=["notebook", "script"])
def test_the_sections_are_the_pages_titles_at_the_lines_of_their_code(tmp_path, in_script):
    """Each code block is under the last title above it (the page's title before the first section), at the
    line where its code starts in what the cell runs: the notebook's ``PAGE_CODE`` or the script itself."""
    from tensorcopy_sphinx.rerun_cell import page_sections  # isort: skip

    script = tmp_path / "plot_x.py"
    script.write_text(SECTIONED, encoding="utf-8")
    lines = (script.read_text(encoding="utf-8") if in_script else page_code(script)).splitlines()
    sections = page_sections(script, in_script=in_script)
    assert [title for _, title in sections] == ["The page", "The first part", "The first part"]
    starts = [next(i for i in range(line - 1, len(lines)) if lines[i].strip()) for line, _ in sections]
    assert [lines[i] for i in starts] == ["import torch", "x = torch.ones(1)", "y = x * 2"]


def test_each_claim_is_named_by_its_messages_translation_from_the_catalog(capsys):
    """A string, an f-string (its fields computed as in the page) and a must-raise block, each named in the
    catalog's words; a message the catalog lacks and one the page computes keep the page's words."""
    labels = {"clone() copies": "clone() 会复制", "case {n} holds": "情形 {n} 成立",
              "view() of a transposed tensor must raise": "转置张量的 view() 报错"}  # fmt: skip
    with pytest.raises(AssertionError):
        rerun_checks(PAGE, "0.0", labels=labels)
    out = capsys.readouterr().out
    for said in ("agrees   clone() 会复制", "agrees   情形 0 成立", "DIFFERS  情形 2 成立",
                 "agrees   转置张量的 view() 报错", "agrees   the error names the view size"):
        assert said in out, out
    assert "clone() copies" not in out and "case 0 holds" not in out


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_cell_of_a_translated_edition_holds_the_pages_translations_only(tmp_path):
    """The cell carries the catalog's entries for its page's messages, and its report uses them."""
    script = tmp_path / "plot_x.py"
    script.write_text('"""\nTitle\n=====\n"""\n\nimport torch\nt = torch.zeros(2)\n'
                      "assert t.sum() == 0, 'sums to zero'\nassert t.numel() == 2, f'{t.numel()} elements'\n",
                      encoding="utf-8")  # fmt: skip
    labels = {"sums to zero": "和为零", "{t.numel()} elements": "{t.numel()} 个元素", "another page's": "别的页面的"}
    code = cell_code(script, labels=labels)
    assert "别的页面的" not in code and "CHECK_LABELS" not in cell_code(script)
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2:4] == ["  agrees   和为零", "  agrees   2 个元素"]


VALUED = textwrap.dedent("""
    for kind in ("leaf", "view"):
        for zero in (True, False):
            assert kind, f"copy.copy of a {kind}: zero gradient {zero}"
    assert True, f"{'leaf'!r} stays code"
""")


def test_a_translated_messages_fields_show_their_values_translations_with_no_space_between_chinese(capsys):
    """A field shows its value's translation where the catalog has one (a bool as 是/否), the value itself
    otherwise or with a conversion (``!r``); where a Chinese value meets Chinese no space is left. Without
    labels (the first edition) the report is the page's own English, whatever ``values`` holds."""
    labels = {"copy.copy of a {kind}: zero gradient {zero}": "对 {kind} 做 copy.copy，梯度是否为零：{zero}",
              "{'leaf'!r} stays code": "{'leaf'!r} 仍是代码"}
    values = {"leaf": "叶子张量", "True": "是", "False": "否"}
    rerun_checks(VALUED, "0.0", labels=labels, values=values)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:6] == ["  agrees   对叶子张量做 copy.copy，梯度是否为零：是",
                          "  agrees   对叶子张量做 copy.copy，梯度是否为零：否",
                          "  agrees   对 view 做 copy.copy，梯度是否为零：是",
                          "  agrees   对 view 做 copy.copy，梯度是否为零：否",
                          "  agrees   'leaf' 仍是代码"]  # fmt: skip
    rerun_checks(VALUED, "0.0", values=values)
    english = capsys.readouterr().out.splitlines()
    assert english[1:3] == ["  agrees   copy.copy of a leaf: zero gradient True",
                            "  agrees   copy.copy of a leaf: zero gradient False"]  # fmt: skip


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_the_cell_of_a_translated_edition_holds_the_translations_of_its_pages_values_only(tmp_path):
    script = tmp_path / "plot_x.py"
    script.write_text(f'"""\nTitle\n=====\n"""\n\nimport torch\n{VALUED}', encoding="utf-8")
    labels = {"copy.copy of a {kind}: zero gradient {zero}": "对 {kind} 做 copy.copy，梯度是否为零：{zero}"}
    values = {"leaf": "叶子张量", "view": "view", "True": "是", "False": "否", "plain": "不需要梯度的张量"}
    code = cell_code(script, labels=labels, values=values)
    held = ast.literal_eval(next(line for line in code.splitlines() if line.startswith("CHECK_VALUES = "))[15:])
    assert held == {"leaf": "叶子张量", "True": "是", "False": "否"}  # not "view" (as it is) nor "plain" (no loop)
    assert "CHECK_VALUES" not in cell_code(script, values=values)
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2:4] == ["  agrees   对叶子张量做 copy.copy，梯度是否为零：是",
                                               "  agrees   对叶子张量做 copy.copy，梯度是否为零：否"]  # fmt: skip
