"""The figures of the example pages: the drawing helpers (``sitetools/authoring/figure_cell.py``), the copies of
them in the pages, the caption extension (``tensorcopy_sphinx.gallery_figures``) and reproducible SVG.

Each checker is first shown a known-bad input. Nothing here writes into the source tree."""

import ast
import io
import re
import sys

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from docutils import nodes  # noqa: E402
from docutils.frontend import get_default_settings  # noqa: E402
from docutils.utils import new_document  # noqa: E402
from sphinx_gallery.directives import imgsgnode  # noqa: E402

from sitetools.authoring import figure_cell  # noqa: E402
from tests.gallery_tools import LANGS, ROOT, gallery_scripts, script_id, split_cells  # noqa: E402

if str(ROOT / "docs" / "_ext") not in sys.path:
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))  # the extensions' package, as docs/_shared/conf.py does
from tensorcopy_sphinx import gallery_figures  # noqa: E402

CELL_START = "import matplotlib.pyplot as plt"
DRAWERS = ("draw_memory(", "draw_graph(", "draw_versions(", "draw_processes(")
SCRIPTS = [script for lang in LANGS for script in gallery_scripts(lang)]
#: The least share of an edition's example pages that draw, and the comment a page without a figure
#: carries to say why (CONTRIBUTING.md, "Figures").
FIGURE_FLOOR, NO_FIGURE = 0.9, re.compile(r"^# no-figure: *(\S.*)$", re.MULTILINE)


def canonical_cell() -> str:
    """The helper cell every drawing page carries: the module from its matplotlib import on."""
    source = figure_cell.__loader__.get_source(figure_cell.__name__)
    start = source.index(CELL_START)
    return re.sub(r"  # the page's helper cell starts on this line", "", source[start:]).strip()


def helper_problems(cells: list[str]) -> list[str]:
    """What is wrong with a page's drawing: a helper cell that is not the canonical one, or drawing without it."""
    helpers = [cell for cell in cells if "def draw_memory(" in cell]
    draws = any(any(drawer in cell for drawer in DRAWERS) for cell in cells if cell not in helpers)
    problems = [f"helper cell {n} differs from sitetools/authoring/figure_cell.py" for n, cell in enumerate(helpers, 1)
                if cell.strip() != canonical_cell()]  # fmt: skip
    if draws and not helpers:
        problems.append("the page draws but carries no helper cell")
    return problems


def texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts] + [ax.get_title()]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- The pages carry the helpers, unchanged ------------------------------------------------------------


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_a_page_that_draws_carries_the_helper_cell_unchanged(script):
    assert not helper_problems(split_cells(script)), f"{script_id(script)}: {helper_problems(split_cells(script))}"


def test_the_helper_check_notices_an_edited_or_missing_cell():
    edited = canonical_cell().replace('"#ffffff"', '"#fefefe"')
    assert helper_problems(["x = 1", edited, 'draw_memory("t", x=x)']) == [
        "helper cell 1 differs from sitetools/authoring/figure_cell.py"
    ]
    assert helper_problems(["x = 1", 'draw_memory("t", x=x)']) == ["the page draws but carries no helper cell"]
    assert helper_problems(["x = 1", canonical_cell(), 'draw_memory("t", x=x)']) == []


def draws(source: str) -> bool:
    """Whether a page's code calls a drawing helper (the helper cell only defines them)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and f"{node.func.id}(" in DRAWERS
               for node in ast.walk(ast.parse(source)))  # fmt: skip


def figure_share_problems(pages: dict[str, str], floor: float = FIGURE_FLOOR) -> list[str]:
    """What is wrong with an edition's figures: ``pages`` maps a page's name to its source. A page that draws
    carries no no-figure marker; a page that does not says why in one (``# no-figure: <why>``); and at least
    ``floor`` of the pages draw."""
    drawn = {name for name, source in pages.items() if draws(source)}
    problems = []
    for name, source in sorted(pages.items()):
        marked = NO_FIGURE.search(source)
        if name in drawn and marked:
            problems.append(f"{name} draws, but still says why it has no figure: {marked.group(0)!r}")
        elif name not in drawn and not marked:
            problems.append(f"{name} has no figure and does not say why (a comment line '# no-figure: <why>')")
    if len(drawn) < floor * len(pages):
        problems.append(f"only {len(drawn)} of {len(pages)} pages draw, under {floor:.0%}")
    return problems


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
@pytest.mark.parametrize("lang", LANGS)
def test_nine_in_ten_example_pages_draw_and_a_page_without_a_figure_says_why(lang):
    """Most pages show what they say in a picture drawn from the live tensors; the few that answer with
    printed values alone say why in their source."""
    pages = {script_id(script): script.read_text(encoding="utf-8") for script in gallery_scripts(lang)}
    assert pages and not figure_share_problems(pages), f"{lang}: {figure_share_problems(pages)}"


def test_the_figure_share_check_notices_a_silent_page_a_stale_marker_and_a_low_share():
    draws, silent = 'x = 1\n# %%\ndraw_memory("x", x=x)\n', f"x = 1\n{canonical_cell()}\n"  # helpers, no call
    marked = "x = 1\n# no-figure: the page prints two numbers, which say it all\n"
    assert figure_share_problems({f"p{n}": draws for n in range(9)} | {"p9": marked}) == []
    assert figure_share_problems({f"p{n}": draws for n in range(9)} | {"p9": silent}) == [
        "p9 has no figure and does not say why (a comment line '# no-figure: <why>')"
    ]
    assert figure_share_problems({"p0": draws + marked}) == [
        "p0 draws, but still says why it has no figure: '# no-figure: the page prints two numbers, which say it all'"
    ]
    assert figure_share_problems({"p0": draws, "p1": marked}) == ["only 1 of 2 pages draw, under 90%"]
    assert figure_share_problems({"p0": "x = 1\n# no-figure:\n"}) != [], "a marker needs a reason"


def test_the_helper_cell_runs_on_its_own_after_import_torch():
    namespace: dict = {}
    exec("import torch\n" + canonical_cell(), namespace)  # what a downloaded page does
    assert callable(namespace["draw_memory"]) and callable(namespace["draw_graph"])


# --- What the pictures say ------------------------------------------------------------------------------


def test_storages_are_numbered_in_order_and_detach_shares_the_counter_data_does_not():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c, d, e = a.detach(), a.data, a.clone()
    c[0] = 5.0
    before = [t._version for t in (a, c, d, e)]
    figure_cell.draw_memory("t", a=a, c=c, d=d, e=e)
    labels = texts(plt.gca())
    assert [t._version for t in (a, c, d, e)] == before, "drawing must leave every version as it was"
    assert [label for label in labels if label.startswith("S")] == ["S1", "S2"]
    counters = [re.search(r"\((C\d)\)", label).group(1) for label in labels if "_version=" in label]
    assert counters == ["C1", "C1", "C2", "C3"], counters  # a and c share; .data and clone() do not
    assert not any("0x" in label for label in labels), "no address may be drawn"


def test_shared_counters_tells_a_new_counter_from_a_shared_one():
    a = torch.zeros(2)
    labels = figure_cell.shared_counters([a, a.detach(), a.data, torch.zeros(2)])
    assert list(labels.values()) == ["C1", "C1", "C2", "C3"]


def test_the_graph_shows_leaves_and_the_version_an_edit_broke():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * 2).sum()
    figure_cell.draw_graph("t", z, x=x)
    intact = texts(plt.gca())
    assert {"SumBackward0", "AccumulateGrad", "x\n_version=0"} <= set(intact), intact
    assert "ExpBackward0\nresult: _version 0" in intact
    with torch.no_grad():
        y.add_(1)
    figure_cell.draw_graph("t", z, x=x)
    assert "ExpBackward0\nresult: _version 1 != 0" in texts(plt.gca())


def test_the_timeline_marks_the_steps_where_a_version_moved():
    figure_cell.draw_versions("t", ["a", "b"], [("start", (0, 0)), ("a.add_(1)", (1, 0))])
    boxes = {t.get_text(): t.get_bbox_patch().get_facecolor() for t in plt.gca().texts if t.get_bbox_patch()}
    assert boxes["1"] != boxes["0"]  # the moved version is highlighted
    assert {"start", "a.add_(1)"} <= set(texts(plt.gca()))


def test_the_processes_picture_puts_a_shared_storage_between_them_and_copies_any_other():
    plain, shared = torch.zeros(2), torch.ones(2).share_memory_()
    figure_cell.draw_processes("t", "add_one(t)", plain=plain, shared=shared, again=shared)
    labels = texts(plt.gca())
    assert "plain\n[0.0, 0.0]\nis_shared()=False" in labels and "shared\n[1.0, 1.0]\nis_shared()=True" in labels
    assert sorted(label for label in labels if label.startswith(("S", "copy of"))) == ["S1", "S2", "S2", "copy of S1"]
    assert "child: add_one(t)" in labels
    figure_cell.draw_processes("t", "add_one(t)", plain=plain)
    assert "copy of S1" in texts(plt.gca()) and "S1" in texts(plt.gca())
    figure_cell.draw_processes("t", "add_one(t)", shared=shared)
    assert not any(label.startswith("copy of") for label in texts(plt.gca())), "a shared storage is not copied"


# --- Reproducible SVG -----------------------------------------------------------------------------------


def _svg(rc: dict, metadata: dict | None) -> bytes:
    a = torch.ones(2)
    figure_cell.draw_memory("t", a=a, b=a.detach())
    out = io.BytesIO()
    with matplotlib.rc_context(rc):
        plt.gcf().savefig(out, format="svg", metadata=metadata)
    plt.close("all")
    return out.getvalue()


def test_svg_files_carry_no_date_and_no_random_id_and_repeat_byte_for_byte():
    default = _svg({}, None).decode()
    assert "<dc:date>" in default, "matplotlib's default would date the file: the check must see it"
    first = _svg(gallery_figures.SVG_RC, gallery_figures.SVG_METADATA)
    assert first == _svg(gallery_figures.SVG_RC, gallery_figures.SVG_METADATA)
    text = first.decode()
    assert "<dc:date>" not in text and "<metadata" not in text
    assert not re.search(r'id="[a-z]*[0-9a-f]{8,}"', text), "ids must not be random"
    assert "<text" in text, "labels stay text (small files)"


# --- Captions and alt text --------------------------------------------------------------------------------


def _document(*children: nodes.Node) -> nodes.document:
    doc = new_document("page.rst", get_default_settings())
    section = nodes.section()
    section.extend(children)
    doc += section
    return doc


def _caption(alt: str, text: str) -> nodes.Node:
    node = gallery_figures.figure_caption(alt=alt)
    node += nodes.paragraph(text, text)
    return node


def _image(name: str) -> imgsgnode:
    image = imgsgnode()
    image["uri"], image["alt"], image["srcset"], image["class"] = name, "t", name, ["sphx-glr-single-img"]
    return image


def test_a_caption_becomes_the_figure_caption_and_alt_text_of_the_next_picture():
    doc = _document(_caption('图："a" 与 c', "说明"), nodes.literal_block("draw()", "draw()"), _image("one.svg"))
    assert gallery_figures.attach_captions(doc) == []
    (figure,) = doc.findall(nodes.figure)
    (image,) = figure.findall(imgsgnode)
    assert image["alt"] == "图：&quot;a&quot; 与 c"  # escaped: sphinx-gallery writes the attribute as is
    assert figure.next_node(nodes.caption).astext() == "说明"
    assert figure["ids"], "a captioned figure needs an id"
    assert not list(doc.findall(gallery_figures.figure_caption))


def test_a_picture_without_caption_and_a_caption_without_picture_are_reported():
    uncaptioned = _document(_image("one.svg"))
    assert gallery_figures.attach_captions(uncaptioned) == [
        "the picture one.svg has no figure-caption in the text of the cell that draws it"
    ]
    orphan = _document(_caption("x", "y"), _caption("x", "y"), _image("one.svg"))
    assert gallery_figures.attach_captions(orphan) == ["a figure-caption is not followed by a picture its cell draws"]


# --- The helper code folds away on the page -----------------------------------------------------------------


def test_the_helper_block_is_folded_under_a_summary_and_other_code_is_not():
    helpers = nodes.literal_block(canonical_cell(), canonical_cell())
    plot = "import matplotlib.pyplot as plt\nplt.plot()"
    other = nodes.literal_block(plot, plot)
    doc = _document(other, helpers, _image("one.svg"))
    assert gallery_figures.fold_helpers(doc, "Drawing helpers (click to show)") == []
    (folded,) = doc.findall(gallery_figures.folded_code)
    assert folded["summary"] == "Drawing helpers (click to show)" and folded.children == [helpers]
    assert other.parent is not folded
    # highlighted as Python under a name of its own, which sphinx-gallery's code links pass by
    assert helpers["language"] == gallery_figures.HELPERS_LANGUAGE and "language" not in other
    from sphinx_gallery._doctree_links import _lexer_name

    assert _lexer_name(helpers["language"], canonical_cell()) is None and _lexer_name("Python", plot) == "python"


def test_a_page_that_draws_without_a_helper_block_is_reported():
    edited = canonical_cell().replace("import matplotlib.pyplot as plt", "from matplotlib import pyplot as plt")
    doc = _document(nodes.literal_block(edited, edited), _image("one.svg"))
    assert gallery_figures.fold_helpers(doc, "s") == [
        "the page draws pictures, but no code block of the drawing helpers was found to fold"
    ]
    assert gallery_figures.fold_helpers(_document(nodes.literal_block("x = 1", "x = 1")), "s") == []


def test_the_summary_is_in_each_edition_and_a_missing_one_fails_loudly(monkeypatch):
    from editions import CODES, UnknownEdition

    assert {gallery_figures.helpers_summary(code) for code in CODES} == set(gallery_figures.HELPERS_SUMMARY.values())
    monkeypatch.delitem(gallery_figures.HELPERS_SUMMARY, "zh_CN")
    with pytest.raises(UnknownEdition, match="HELPERS_SUMMARY"):
        gallery_figures.helpers_summary("zh_CN")


def test_the_folded_block_renders_as_details_with_an_escaped_summary():
    class Writer:
        def __init__(self):
            self.body = []

    writer = Writer()
    node = gallery_figures.folded_code(summary="a < b")
    gallery_figures.visit_folded_code(writer, node)
    gallery_figures.depart_folded_code(writer, node)
    assert "".join(writer.body) == '<details class="tc-helpers"><summary>a &lt; b</summary>\n</details>\n'
