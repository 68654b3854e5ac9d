"""A page shows output only through its own print() calls and the figure helpers
(sitetools/guard/output_channels.py, and ``capture_repr`` off in docs/_shared/conf.py): each way round that the
adversarial review used is refused, naming the page, and what the pages really do still passes.

The pages' prints are recorded while the page runs inside sphinx-gallery's real capture (``gen_rst._LoggingTee``,
which only these tests use), and the text it captured is compared with them as the build compares the built
page's output blocks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from sphinx_gallery import gen_gallery, gen_rst

from sitetools import settings
from sitetools.guard import example as example_guard
from sitetools.guard import output_channels
from tests.gallery_tools import ROOT

WHERE = "gallery/en/part/plot_00_probe.py"
PRELUDE = "import torch\na = torch.ones(3)\n"
HELPERS = output_channels.helper_cell()


def _static(code: str) -> list[str]:
    return output_channels.check_source(WHERE, PRELUDE + code + "\n")


# --- Repr capture is off --------------------------------------------------------------------------


class _Active:
    """An object whose HTML repr is a script, as a page could end a cell with."""

    def _repr_html_(self):
        return "<script>alert(1)</script>"

    def __repr__(self):
        return "tensor([1., 2.])"


def _shown(capture_repr, last) -> str:
    """What sphinx-gallery puts on the page for a cell whose last expression is ``last``."""
    with gen_rst._LoggingTee("probe.py") as tee:
        return gen_rst._get_code_output(True, {"___": last}, {"ignore_repr_types": ""}, tee, "", capture_repr)


@pytest.mark.parametrize("last", [_Active(), "same storage: True"], ids=["repr_html-script", "literal-string"])
def test_a_cells_last_expression_shows_nothing_with_the_sites_configuration(last):
    from docs._shared.conf import configure

    capture = configure("en")["sphinx_gallery_conf"]["capture_repr"]
    default = gen_gallery.DEFAULT_GALLERY_CONF["capture_repr"]
    assert ("<script>" if isinstance(last, _Active) else "same storage") in _shown(default, last), (
        "sphinx-gallery's default no longer shows the last expression: this test proves nothing"
    )
    assert _shown(capture, last).strip() == ""


@pytest.mark.parametrize("setting", ["# sphinx_gallery_capture_repr = ('_repr_html_', '__repr__')",
                                     "# sphinx_gallery_capture_repr_block = ('__repr__',)",
                                     "# sphinx_gallery_thumbnail_number = -1 or 2", "# sphinx_gallery_start_ignore = 1",
                                     "# sphinx_gallery_defer_figures"])
def test_a_sphinx_gallery_setting_in_a_page_is_refused(setting):
    problems = _static(f"{setting}\nprint('a:', a)")
    assert problems and all(p.startswith(f"{WHERE}, line 3:") for p in problems), problems


def test_the_hidden_block_markers_and_the_thumbnails_number_are_allowed():
    assert _static("# sphinx_gallery_start_ignore\nassert a.sum() == 3\n# sphinx_gallery_end_ignore") == []
    assert _static("# sphinx_gallery_thumbnail_number = 2\nprint('a:', a)") == []


# --- Drawing only through the helpers -------------------------------------------------------------


REFUSED_DRAWINGS = {
    "pyplot-outside-the-helper-cell": 'import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.set_title("b")',
    "matplotlib-imported-by-name": "from matplotlib import pyplot\npyplot.figure()",
    "helper-internal": f'{HELPERS}\n_box(_canvas(1, 1, "t", (0, 1), (0, 1)), (0, 0), "tensor([9.])", "#fff")',
    "edited-helper-cell": HELPERS.replace("ax.set_title(title", 'ax.set_url("javascript:1")\n    ax.set_title(title'),
    "literal-tensor-drawn": f'{HELPERS}\ndraw_memory("a", a=torch.tensor([1.0, 2.0]))',
    "constant-versions-drawn": f'{HELPERS}\ndraw_versions("v", ["a"], [("start", (0,)), ("a.add_(1)", (1,))])',
    "literal-tensor-in-a-dict": f'{HELPERS}\ndraw_memory("a", **{{"a": torch.zeros(2)}})',
}
ALLOWED_DRAWINGS = {
    "memory": f'{HELPERS}\nc = a.detach()\ndraw_memory("c = a.detach()", a=a, c=c)',
    "graph": f'{HELPERS}\nb = (a * 2).sum()\ndraw_graph("b = (a * 2).sum()", b, a=a)',
    "versions": f'{HELPERS}\nat_start = (a._version,)\ndraw_versions("_version", ["a"], [("start", at_start)])',
    "dict-of-names": f'{HELPERS}\ndraw_memory("a", **{{"a.grad": a, f"a[{{0}}]": a}})',
    "version-counters-read": f"{HELPERS}\ncounters = shared_counters([a, a.detach()])",
}


@pytest.mark.parametrize("name", sorted(REFUSED_DRAWINGS))
def test_a_drawing_round_the_helpers_is_refused_with_its_line(name):
    problems = _static(REFUSED_DRAWINGS[name])
    assert problems and all(p.startswith(f"{WHERE}, line ") for p in problems), f"{name} passed: {problems}"


@pytest.mark.parametrize("name", sorted(ALLOWED_DRAWINGS))
def test_a_drawing_through_the_helpers_passes(name):
    assert _static(ALLOWED_DRAWINGS[name]) == []


# --- While the page runs: its own prints recorded; after the build, its output compared with them ---


#: name -> (code that writes to the page's output without the page's print, the first line it shows)
REFUSED_WRITES = {
    "pprint": ('import pprint\npprint.pprint("tensor([1., 2.])")', "'tensor([1., 2.])'"),
    "import-this": ("import this", "The Zen of Python, by Tim Peters"),
    "help": ("help(len)", "Help on built-in function len in module builtins:"),
    "traceback": ("import traceback\ntraceback.print_stack()", '  File "'),
    "a-module-that-prints": ("import probe_printer", "probe: tensor([1., 2.])"),
}


def _run_page(tmp_path: Path, code: str) -> tuple[list[str], list[str], str]:
    """Run ``code`` as page ``tmp_path/plot_probe.py`` with its prints recorded, inside sphinx-gallery's
    capture (each ``# %%`` cell an output block of its own, as sphinx-gallery runs them); return (what the
    comparison after the build finds, the text each output block captured, what the page's prints wrote)."""
    page = tmp_path / "plot_probe.py"
    page.write_text(code, encoding="utf-8")
    (tmp_path / "probe_printer.py").write_text('print("probe: tensor([1., 2.])")\n', encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    for name in ("this", "probe_printer"):
        sys.modules.pop(name, None)  # a module prints when it is first imported
    prints = output_channels.PagePrints(page)
    prints.start()
    captured, namespace = [], {"__name__": "__main__"}
    try:
        with gen_rst._LoggingTee(str(page)) as tee:
            for cell in code.split("# %%\n"):
                tee.set_std_and_reset_position()
                exec(compile(cell, str(page), "exec"), namespace)
                captured.append(tee.output.getvalue())
    finally:
        printed = prints.stop()
        sys.path.remove(str(tmp_path))
    blocks = [(cell.strip().splitlines()[0], output_channels.shown_lines(text))
              for cell, text in zip(code.split("# %%\n"), captured, strict=True) if output_channels.shown_lines(text)]
    return output_channels.unprinted(WHERE, blocks, printed), captured, printed


@pytest.mark.parametrize("name", sorted(REFUSED_WRITES))
def test_output_written_by_other_code_than_the_pages_print_fails_naming_the_block_and_text(tmp_path, name):
    code, first_line = REFUSED_WRITES[name]
    problems, captured, printed = _run_page(tmp_path, f'print("a:", 1)\n{code}\nprint("b:", 2)\n')
    assert first_line in captured[0], f"{name} wrote nothing to the capture: this test proves nothing"
    assert printed == "a: 1\nb: 2\n", f"the record holds more than the page's own prints: {printed!r}"
    assert len(problems) == 1, problems
    problem = problems[0]
    assert problem.startswith(f"{WHERE}, output block 1 (after the code cell starting `print(\"a:\", 1)`): shows "
                              f"{first_line!r}"[:-1]), problem  # fmt: skip
    assert "which no print() of the page wrote" in problem and "comes only from its own print() calls" in problem
    assert problem.endswith(output_channels.GUIDE)


def test_the_block_that_shows_the_foreign_text_is_named(tmp_path):
    problems, _, _ = _run_page(tmp_path, 'print("a:", 1)\n# %%\nprint("b:", 2)\n# %%\nimport this\nprint("c:", 3)\n')
    assert len(problems) == 1 and problems[0].startswith(f"{WHERE}, output block 3 (after the code cell starting "
                                                         "`import this`): shows 'The Zen of Python"), problems


OWN_PRINTS = {
    "library-callback": ('print("a:", 1)\ndef key(x):\n    print("x:", x)\n    return x\nsorted([2, 1], key=key)\n',
                         "a: 1\nx: 2\nx: 1\n"),
    "sep-and-end": ('print("a", "b", sep=" | ", end=" ;\\n")\nprint("c", end="")\nprint(" d", 2, sep="=")\n'
                    'print("e", "f", sep=None, end=None)\n', "a | b ;\nc d=2\ne f\n"),
    "stderr": ('import sys\nprint("out:", 1)\nprint("err:", 2, file=sys.stderr)\nprint("out:", 3, file=sys.stdout)\n',
               "out: 1\nerr: 2\nout: 3\n"),
    "a-buffer": ('import io\nbuffer = io.StringIO()\nprint("hidden:", 1, file=buffer)\n'
                 'print("length:", len(buffer.getvalue()))\n', "length: 10\n"),
    "indented-and-blank-lines": ('print("  x:", 1)\nprint()\nprint("  y:\\t2  ")\n# %%\nprint("z:", 3)\n',
                                 "  x: 1\n\n  y:\t2  \nz: 3\n"),
}


@pytest.mark.parametrize("name", sorted(OWN_PRINTS))
def test_the_pages_own_prints_are_recorded_as_shown_and_pass(tmp_path, name):
    code, expected = OWN_PRINTS[name]
    problems, captured, printed = _run_page(tmp_path, code)
    assert printed == expected
    assert "".join(captured) == expected, "a print did not go through"
    assert problems == []


def test_a_print_to_a_buffer_is_neither_shown_nor_recorded(tmp_path):
    _, captured, printed = _run_page(tmp_path, OWN_PRINTS["a-buffer"][0])
    assert "hidden" not in "".join(captured) and "hidden" not in printed


def test_a_print_to_the_stderr_of_the_moment_is_recorded_when_it_is_not_stdout(tmp_path):
    """sphinx-gallery's capture is both streams at once; elsewhere they differ, and either one is the output."""
    import contextlib
    import io

    page = tmp_path / "plot_probe.py"
    code = 'import sys\nprint("out:", 1)\nprint("err:", 2, file=sys.stderr)\n'
    out, err = io.StringIO(), io.StringIO()
    prints = output_channels.PagePrints(page)
    prints.start()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            exec(compile(code, str(page), "exec"), {"__name__": "__main__"})
    finally:
        printed = prints.stop()
    assert (out.getvalue(), err.getvalue(), printed) == ("out: 1\n", "err: 2\n", "out: 1\nerr: 2\n")


def test_prints_recorded_but_not_shown_fail_too():
    problems = output_channels.unprinted(WHERE, [("print(a)", ["a: 1"])], "a: 1\nb: 2\n")
    assert len(problems) == 1 and problems[0].startswith(f"{WHERE}: its own print() calls wrote 'b: 2', which its "
                                                         "page does not show; this should not happen"), problems
    assert "does not hold" in output_channels.unprinted(WHERE, [], None)[0]


def test_a_line_shown_that_differs_from_the_printed_one_fails():
    """A print's line and other code's text on the same line (``end=""`` then ``pprint``)."""
    problems = output_channels.unprinted(WHERE, [("", ["a: 1"]), ("", ["b: 2 {'x': 1}"])], "a: 1\nb: 2 \n")
    assert len(problems) == 1 and problems[0].startswith(f'{WHERE}, output block 2: shows "b: 2 {{\'x\': 1}}"')


def test_the_blocks_are_read_from_the_built_page_with_the_cell_they_follow():
    from sitetools.building.pipeline import OUTPUT_BLOCK

    code = ('<span class="n">print</span><span class="p">(</span><span class="s2">&quot;a &lt; b:&quot;</span>'
            '<span class="p">)</span>\n')
    page = (f'<div class="highlight-Python notranslate"><div class="highlight"><pre tabindex="0"><span></span>{code}'
            '</pre></div>\n</div>\n<div class="sphx-glr-script-out highlight-none notranslate"><div class="highlight">'
            '<pre tabindex="0"><span></span>a &lt; b: True &amp; &#39;x&#39;\n</pre></div>\n</div>')
    blocks = output_channels.shown_blocks(page, list(OUTPUT_BLOCK.finditer(page)))
    assert blocks == [('print("a < b:")', ["a < b: True & 'x'"])]
    assert output_channels.unprinted(WHERE, blocks, "a < b: True & 'x'\n") == []


def test_print_is_put_back_even_when_the_page_fails(tmp_path):
    import builtins

    original = builtins.print
    with pytest.raises(ZeroDivisionError):
        _run_page(tmp_path, 'print("a:", 1)\n1 / 0\n')
    assert builtins.print is original
    left, again = output_channels.PagePrints(tmp_path / "a.py"), output_channels.PagePrints(tmp_path / "b.py")
    left.start()  # and never stopped: a failed example's "after" hook did not run
    again.start()
    again.stop()
    assert builtins.print is original, "a wrapper left in place was wrapped again"


def test_the_guard_keeps_the_pages_prints_in_its_completion_record(tmp_path, monkeypatch):
    monkeypatch.setenv(settings.RECORDS, str(tmp_path / "records"))
    page = tmp_path / "plot_probe.py"
    page.write_text('print("a:", 1)\nimport this\n', encoding="utf-8")
    sys.modules.pop("this", None)
    guard = example_guard._Guard()
    guard.start(WHERE, page)
    try:
        with gen_rst._LoggingTee(str(page)):
            exec(compile(page.read_text(encoding="utf-8"), str(page), "exec"), {"__name__": "__main__"})
    finally:
        guard.stop(WHERE)
    record = json.loads((tmp_path / "records" / f"{Path(WHERE).name}.done").read_text(encoding="utf-8"))
    assert record == {"script": WHERE, "printed": "a: 1\n"}


def test_the_canonical_helper_cell_is_the_figure_modules_text():
    text = (ROOT / "sitetools" / "authoring" / "figure_cell.py").read_text(encoding="utf-8")
    assert HELPERS.startswith("import matplotlib.pyplot as plt") and HELPERS in text
    assert "def draw_memory(" in HELPERS and "def draw_graph(" in HELPERS
