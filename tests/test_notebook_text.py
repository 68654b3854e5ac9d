"""The downloads read cleanly: notebooks hold Markdown, not raw reST (no directive, role or escape), their
cross-references lead to the published pages (or name them, without an address), and no download keeps a
``|substitution|`` unresolved (``tensorcopy_sphinx.notebook_text``)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from pathlib import Path

import pytest
from sphinx.errors import ExtensionError
from sphinx.util.inventory import InventoryFile
from sphinx_gallery.notebook import rst2md
from sphinx_gallery.py_source_parser import split_code_and_text_blocks

from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.gallery_tools import LANGS, gallery_scripts

from tensorcopy_sphinx.notebook_text import (  # noqa: E402  isort: skip
    Pages, boxed_code, clean_notebook, markdown_cell)
from tensorcopy_sphinx.script_text import renumbered, script_text  # noqa: E402  isort: skip

VALUES = {"torch_version": "9.9.9+cpu"}
RAW_DIRECTIVE = re.compile(r"^\s*\.\. [\w-]+::", re.MULTILINE)
SUBSTITUTION = re.compile(r"\|[a-z][a-z0-9_]*\|")

ERRATUM = """Some text before.

.. admonition:: The article vs. torch |torch_version|
   :class: warning

   The output above shows it:
   ``a`` changed.

   A second paragraph.

Text after."""

CAPTION = """.. figure-caption::
   :alt: Diagram: two names, one tensor.

   ``a`` and ``b`` are one tensor object."""


#: A box whose code block comes between two paragraphs, then a code block of the text outside any box.
BOX_WITH_CODE = """Title
=====

.. admonition:: Answer
   :class: answer

   The cause. The fix:

   .. code-block:: python

      with torch.no_grad():
          w -= 1

      w.grad = None

   After the code.

.. code-block:: python

   outside = 1

Text after."""


def _notebook_text(rst: str, cjk: bool = False) -> str:
    """``rst`` as the notebook shows it: Markdown as sphinx-gallery writes it, then this site's clean-up."""
    return markdown_cell(rst2md(rst, {}, "/tmp", {(None, "="): 1}), {}, "x.ipynb", cjk, boxed=boxed_code(rst))


def test_a_box_keeps_its_code_block_inside_its_blockquote():
    assert _notebook_text(BOX_WITH_CODE) == (
        "# Title\n\n"
        "> **Answer**\n>\n> The cause. The fix:\n>\n"
        "> ```python\n> with torch.no_grad():\n>     w -= 1\n>\n> w.grad = None\n> ```\n"
        "> After the code.\n\n"
        "```python\noutside = 1\n```\nText after.")


def test_a_chinese_box_is_joined_around_its_code_and_not_inside_it():
    rst = ".. admonition:: 答案\n   :class: answer\n\n   原因在这里，\n   改法如下：\n\n   .. code-block:: python\n\n" \
          "      a = 1\n      b = 2\n\n正文。\n"
    assert _notebook_text(rst, cjk=True) == (
        "> **答案**\n>\n> 原因在这里，改法如下：\n>\n> ```python\n> a = 1\n> b = 2\n> ```\n\n正文。")


def test_a_boxs_code_block_that_does_not_reach_its_box_fails_naming_the_notebook(tmp_path):
    notebook = tmp_path / "plot_box.ipynb"
    markdown = rst2md(BOX_WITH_CODE, {}, "/tmp", {(None, "="): 1}).replace("```python\nwith", "Text.\n```python\nwith")
    notebook.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": [markdown]}]}))
    with pytest.raises(ExtensionError, match="plot_box.ipynb: a box's code block did not reach its blockquote"):
        clean_notebook(notebook, VALUES, boxed=boxed_code(BOX_WITH_CODE))


def download_problems(notebook: Path) -> list[str]:
    """Raw directives or unresolved substitutions in a notebook's Markdown cells."""
    problems = []
    for number, cell in enumerate(json.loads(notebook.read_text(encoding="utf-8"))["cells"]):
        text = "".join(cell["source"])
        if cell["cell_type"] != "markdown":
            continue
        problems += [f"{notebook.name} cell {number}: raw {m.group().strip()}" for m in RAW_DIRECTIVE.finditer(text)]
        problems += [f"{notebook.name} cell {number}: unresolved {m.group()}" for m in SUBSTITUTION.finditer(text)]
    return problems


def test_an_admonition_becomes_a_blockquote_with_its_title_in_bold():
    assert markdown_cell(ERRATUM, VALUES, "x.ipynb") == (
        "Some text before.\n\n"
        "> **The article vs. torch 9.9.9+cpu**\n>\n> The output above shows it:\n> ``a`` changed.\n>\n"
        "> A second paragraph.\n\nText after.")


def test_a_figure_caption_becomes_its_caption_text():
    assert markdown_cell(CAPTION, VALUES, "x.ipynb") == "``a`` and ``b`` are one tensor object."


@pytest.mark.parametrize(("text", "message"), [
    (".. topic:: Extra\n\n   text\n", "x.ipynb: .*topic"),
    ("torch |numpy_version|\n", "x.ipynb: the substitution |numpy_version|"),
])
def test_what_cannot_be_converted_fails_naming_the_file(text, message):
    with pytest.raises(ExtensionError, match=message.replace("|", r"\|")):
        markdown_cell(text, VALUES, "x.ipynb")


def test_the_checker_finds_raw_text_in_a_bad_notebook_and_the_cleaner_removes_it(tmp_path):
    notebook = tmp_path / "plot_bad.ipynb"
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [text]} for text in (ERRATUM, CAPTION)]
    cells.append({"cell_type": "code", "metadata": {}, "source": ["x = 1  # |not_text| in code stays"],
                  "outputs": [], "execution_count": None})
    notebook.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    assert len(download_problems(notebook)) == 3  # two directives and one |torch_version|
    clean_notebook(notebook, VALUES)
    assert download_problems(notebook) == []
    assert "|not_text|" in notebook.read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANGS)
def test_no_download_holds_raw_directives_or_unresolved_substitutions(site_dir, lang):
    notebooks = sorted((site_dir / lang / "_downloads").rglob("plot_*.ipynb"))
    scripts = sorted((site_dir / lang / "_downloads").rglob("plot_*.py"))
    assert notebooks and len(notebooks) == len(scripts), f"{lang}: {len(notebooks)} notebooks, {len(scripts)} scripts"
    problems = [p for notebook in notebooks for p in download_problems(notebook)]
    problems += [f"{script.name}: unresolved {m.group()}" for script in scripts
                 for m in SUBSTITUTION.finditer(script.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


# --- The notebooks of the built site: the boxes and the words that are about the notebook ----------

#: Written here, in each edition's words: the answer box's title, what a page says about folding its
#: drawing helpers and what the notebook says instead, and the GPU box's title in the notebook (the page's).
WORDS = {
    "en": {"answer": "> **Answer**", "page folds": "the page folds it away",
           "notebook folds": "so this notebook folds the cell below: open it to read the code.",
           "gpu": r"> \*\*On a GPU \((not executed by this build|executed by this build on .+)\)\*\*"},
    "zh_CN": {"answer": "> **答案**", "page folds": "页面上把它折叠起来",
              "notebook folds": "所以本 notebook 把下面的单元格折叠了起来，展开即可查看代码。",
              "gpu": r"> \*\*在 GPU 上（(本次构建未执行|本次构建已在 .+ 上执行)）\*\*"},
}  # fmt: skip


def _notebooks(site_dir: Path, lang: str) -> dict[str, list[dict]]:
    """Each notebook of an edition's downloads by its page's file name, as its cells."""
    paths = sorted((site_dir / lang / "_downloads").rglob("plot_*.ipynb"))
    assert paths, f"no notebook in {lang}/_downloads"
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))["cells"] for path in paths}


def _markdown(cells: list[dict]) -> list[str]:
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


@pytest.mark.parametrize("lang", LANGS)
def test_every_answer_box_is_one_blockquote_with_its_code_inside(site_dir, lang):
    notebooks = _notebooks(site_dir, lang)
    questions = [script.stem for script in gallery_scripts(lang) if script.parent.name == "questions"]
    assert questions and set(questions) <= set(notebooks), sorted(set(questions) - set(notebooks))
    problems = []
    for name in questions:
        text = next(text for text in _markdown(notebooks[name]) if WORDS[lang]["answer"] in text)
        lines = text[text.index(WORDS[lang]["answer"]):].split("\n")
        end = next((n for n, line in enumerate(lines) if not line.startswith(">")), len(lines))
        box, after = lines[:end], lines[end:]
        fences = [line for line in box if line.startswith("> ```")]
        if len(fences) < 2 or len(fences) % 2:
            problems.append(f"{name}: the box holds {len(fences)} fence lines: {box}")
        if after and after[0].strip():
            problems.append(f"{name}: the box runs into {after[0]!r}")
        if any(line.startswith("```") for line in after[:2]):
            problems.append(f"{name}: a code block right after the box, outside it")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_the_notebook_says_it_folds_the_drawing_helpers_and_not_that_the_page_does(site_dir, lang):
    texts = [text for cells in _notebooks(site_dir, lang).values() for text in _markdown(cells)]
    folding = [text for text in texts if WORDS[lang]["notebook folds"] in " ".join(text.split("\n"))]
    assert folding, f"no {lang} notebook says {WORDS[lang]['notebook folds']!r}"
    page = [text[:80] for text in texts if WORDS[lang]["page folds"] in "".join(text.split())]
    assert not page, page


@pytest.mark.parametrize("lang", LANGS)
def test_a_notebooks_gpu_box_has_the_title_of_the_pages_box(site_dir, lang):
    titles = [line for cells in _notebooks(site_dir, lang).values() for text in _markdown(cells)
              for line in text.split("\n") if line.startswith(("> **On a GPU", "> **在 GPU 上"))]
    assert titles, f"no GPU box in the {lang} notebooks"
    assert [title for title in titles if not re.fullmatch(WORDS[lang]["gpu"], title)] == []


# --- Cross-references and escapes: links to the published pages, no reST left -----------------------

PAGES = Pages(
    labels={"questions-deepcopy": ("examples/questions/plot_07_deepcopy", "questions-deepcopy", "深拷贝的标题"),
            "copying-clone": ("examples/copying/plot_03_clone", "copying-clone", "clone(): new memory"),
            "copying-detach": ("examples/copying/plot_04_detach", "copying-detach",
                               "detach()：同一块内存，脱离计算图")},
    titles={"views": "视图操作一览", "examples/questions/plot_07_deepcopy": "深拷贝的标题"},
    docname="examples/questions/plot_17_containers")  # fmt: skip
BASE = "https://example.org/tensor-copies/zh_CN/"
DEEPCOPY = f"{BASE}examples/questions/plot_07_deepcopy.html#questions-deepcopy"


def _cell(rst: str, cjk: bool, base: str = BASE) -> str:
    pages = Pages(PAGES.labels, PAGES.titles, base, PAGES.docname)
    return markdown_cell(rst2md(rst, {}, "/tmp", {}), VALUES, "x.ipynb", cjk, pages=pages)


@pytest.mark.parametrize(("rst", "cjk", "base", "expected"), [
    ("（见\\ :ref:`深拷贝那一页 <questions-deepcopy>`）。", True, BASE, f"（见[深拷贝那一页]({DEEPCOPY})）。"),
    ("见 :ref:`深拷贝那一页 <questions-deepcopy>` 一样", True, BASE, f"见[深拷贝那一页]({DEEPCOPY})一样"),
    # A Chinese notebook names a page one way, 《title》: a short name gives way to it, 那一页 included.
    ("见 :ref:`深拷贝那一页 <questions-deepcopy>` 一样", True, "", "见《深拷贝的标题》一样"),
    ("见 :ref:`“深拷贝”那一页的表 <questions-deepcopy>`。", True, "", "见《深拷贝的标题》的表。"),
    ("和 :ref:`“深拷贝”那一页 <questions-deepcopy>` 一样", True, "", "和《深拷贝的标题》一样"),
    ("和 :ref:`深拷贝 <questions-deepcopy>` 一样", True, "", "和《深拷贝的标题》一样"),
    ("（见\\ :ref:`最保险的复制 <questions-deepcopy>`）", True, "", "（见《深拷贝的标题》）"),
    ("和 :ref:`上一页 <questions-deepcopy>` 一样", True, "", "和上一页《深拷贝的标题》一样"),
    # Words the sentence needs stay, the title follows in brackets: an API name even where the title starts with it.
    ("只用 :ref:`detach() <questions-deepcopy>`，", True, "", "只用 detach()（见《深拷贝的标题》），"),
    ("只用 :ref:`detach() <copying-detach>`，结果仍共享内存。", True, "",
     "只用 detach()（见《detach()：同一块内存，脱离计算图》），结果仍共享内存。"),
    ("请用 :ref:`detach() <copying-detach>`。", True, BASE,
     f"请用 [detach()]({BASE}examples/copying/plot_04_detach.html#copying-detach)。"),
    ("only :ref:`clone() <copying-clone>` keeps it", False, "", 'only clone() ("clone(): new memory") keeps it'),
    ("see :ref:`clone <copying-clone>`.", False, "", 'see "clone(): new memory".'),
    ("见 :ref:`“深拷贝”那一页 <questions-deepcopy>`。", True, BASE, f"见[“深拷贝”那一页]({DEEPCOPY})。"),
    ("见 :ref:`下一页 <questions-deepcopy>` 深拷贝的标题。", True, "", "见下一页深拷贝的标题。"),
    ("见 :ref:`深拷贝 <questions-deepcopy>` 一节", True, "", "见《深拷贝的标题》一节"),
    ("use :ref:`copying-clone`.", False, BASE, f"use [clone(): new memory]({BASE}examples/copying/plot_03_clone.html"
                                               "#copying-clone)."),
    ("use :ref:`copying-clone`.", False, "", "use clone(): new memory."),
    ("use :ref:`a copy <copying-clone>`.", False, "", 'use a copy ("clone(): new memory").'),
    ("见 :doc:`视图操作一览 </views>`。", True, BASE, f"见[视图操作一览]({BASE}views.html)。"),
    ("in :doc:`/views`.", False, "", "in 视图操作一览."),
    ("实测结果见 :doc:`视图操作一览 </views>`。", True, "", "实测结果见《视图操作一览》。"),
    ("（见 :doc:`/views`）", True, "", "（见《视图操作一览》）"),
    ("实测结果见 :doc:`《视图操作一览》 </views>`。", True, "", "实测结果见《视图操作一览》。"),
    ("两张表 :doc:`《视图操作一览》 </views>` 和", True, "", "两张表《视图操作一览》和"),
    ("见\\ :ref:`questions-deepcopy`。", True, "", "见《深拷贝的标题》。"),
    ("an escaped\\ space, ``a\\ b`` and `assert` stay code.", False, BASE,
     "an escapedspace, ``a\\ b`` and `assert` stay code."),
])  # fmt: skip
def test_a_cross_reference_leads_to_its_page_or_names_it_and_no_escape_is_left(rst, cjk, base, expected):
    assert _cell(rst, cjk, base) == expected


def test_a_role_the_notebook_cannot_show_fails_naming_the_file():
    with pytest.raises(ExtensionError, match=r"x.ipynb: .*:func:"):
        _cell("Call :func:`torch.clone` here.", False)


SCRIPT = '''"""
A :doc:`/views` page and :ref:`the deep
copy <questions-deepcopy>`.
"""
x = 1 + \\
    2

# %%
# 见\\ :ref:`深拷贝那一页 <questions-deepcopy>` 一样。:fact:`some-fact`
# and ``a\\ b`` stays.
'''


@pytest.mark.parametrize(("cjk", "base", "expected"), [
    (True, BASE, f'''"""
A 《视图操作一览》（{BASE}views.html） page and the deep
copy（见《深拷贝的标题》）（{DEEPCOPY}）.
"""
x = 1 + \\
    2

# %%
# 见《深拷贝的标题》（{DEEPCOPY}）一样。
# and ``a\\ b`` stays.
'''),
    (False, "", '''"""
A 视图操作一览 page and the deep
copy ("深拷贝的标题").
"""
x = 1 + \\
    2

# %%
# 见深拷贝那一页 ("深拷贝的标题") 一样。
# and ``a\\ b`` stays.
'''),
])  # fmt: skip
def test_a_scripts_text_names_each_referenced_page_and_its_address_and_its_code_is_untouched(cjk, base, expected):
    pages = Pages(PAGES.labels, PAGES.titles, base, PAGES.docname)
    assert script_text(SCRIPT, VALUES, "x.py", cjk, pages) == expected


BOXED_SCRIPT = {
    "en": '''"""
Title
=====

.. admonition:: Answer
   :class: answer

   The cause, see `pytorch/pytorch#1 <https://github.com/pytorch/pytorch/issues/1>`__. The fix:

   .. code-block:: python

      b = a.clone()

Text after the box.
"""
x = 1  # `a comment of code <https://example.org>`__ stays

# %%
# .. figure-caption::
#    :alt: Diagram: the alt text.
#
#    The caption, as in `the
#    docs <https://docs.pytorch.org/x.html>`_.

draw()

# %%
# .. admonition:: On a GPU
#    :class: note gpu-box
#
#    The box's text.

if cuda:
    pass
''',
    "zh_CN": '''"""
标题
====

.. admonition:: 答案
   :class: answer

   原因见 `pytorch/pytorch#1 <https://github.com/pytorch/pytorch/issues/1>`__。解决办法：

   .. code-block:: python

      b = a.clone()
"""

# %%
# PyTorch 文档：`示例 <https://docs.pytorch.org/amp.html>`__ 里也有。
''',
}
SCRIPT_AS_TEXT = {
    "en": '''"""
Title
=====

Answer:
The cause, see pytorch/pytorch#1 (https://github.com/pytorch/pytorch/issues/1). The fix:

    b = a.clone()

Text after the box.
"""
x = 1  # `a comment of code <https://example.org>`__ stays

# %%
# The caption, as in the
# docs (https://docs.pytorch.org/x.html).

draw()

# %%
# On a GPU (not executed by this build):
# The box's text.

if cuda:
    pass
''',
    "zh_CN": '''"""
标题
====

答案：
原因见 pytorch/pytorch#1（https://github.com/pytorch/pytorch/issues/1）。解决办法：

    b = a.clone()
"""

# %%
# PyTorch 文档：示例（https://docs.pytorch.org/amp.html）里也有。
''',
}
GPU_TITLE = {"en": "On a GPU (not executed by this build)", "zh_CN": "在 GPU 上（本次构建未执行）"}


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_a_scripts_boxes_captions_code_blocks_and_links_become_plain_text_and_its_code_stays(lang):
    """A box is its title and a colon, then its text dedented (a GPU box titled as the notebook's), a caption
    its text without the alt text, a code block its code indented, a link its words and address in brackets
    (full-width, without the spaces around it, next to Chinese); a comment on a line of code is code."""
    text = script_text(BOXED_SCRIPT[lang], VALUES, "x.py", lang == "zh_CN", gpu=GPU_TITLE[lang])
    assert text == SCRIPT_AS_TEXT[lang]
    assert script_text(text, VALUES, "x.py", lang == "zh_CN", gpu=GPU_TITLE[lang]) == text


def test_a_directive_the_script_cannot_show_fails_naming_the_file():
    with pytest.raises(ExtensionError, match="x.py: .*topic"):
        script_text('"""\nTitle\n=====\n"""\n\n# %%\n# .. topic:: Extra\n#\n#    text\n', VALUES, "x.py")


def test_the_rerun_cells_sections_are_set_to_the_lines_of_the_code_blocks_in_the_finished_script():
    """The sections name each of the page's code blocks by the line it starts at: the script's text may have
    lost lines (a box's class, a caption's alt text) or gained some (the helpers' banners)."""
    cell = "# %% [rerun-checks]\n# Rerun\n\nPAGE_SECTIONS = [(9, 'Title'), (17, 'First'), (25, 'GPU')]\nrerun()\n"
    after = renumbered(script_text(f"{BOXED_SCRIPT['en']}\n{cell}", VALUES, "x.py"), "x.py")
    lines = after.splitlines()
    sections = ast.literal_eval(re.search(r"^PAGE_SECTIONS = (.*)$", after, re.MULTILINE).group(1))
    starts = [next(line for line in lines[start - 1:] if line.strip()) for start, _ in sections]
    assert starts == ["x = 1  # `a comment of code <https://example.org>`__ stays", "draw()", "if cuda:"]
    assert [title for _, title in sections] == ["Title", "First", "GPU"]
    with pytest.raises(ExtensionError, match="x.py: the rerun cell names 4 code blocks"):
        renumbered(after.replace("'GPU')]", "'GPU'), (26, 'More')]"), "x.py")


def test_the_rerun_cells_title_in_a_script_is_underlined_to_its_display_width():
    from sitetools.rules.typography import underline_problems
    from tensorcopy_sphinx.rerun_cell import script_comment  # isort: skip

    comment = script_comment("在你的 torch 上重跑本页的检查", "这个单元格。")
    assert comment.splitlines()[:3] == ["# 在你的 torch 上重跑本页的检查", "# " + "-" * 29, "#"]
    assert underline_problems("\n".join(line[2:] for line in comment.splitlines())) == []


def test_a_reference_to_no_page_is_a_reference_warning(caplog):
    assert _cell("see :ref:`the page <no-such-label>`.", False) == "see the page."
    assert "'no-such-label' leads to no page" in caplog.text


#: In a built notebook's text, outside code: a reST role, escaped whitespace, a single-quoted code span (what
#: sphinx-gallery leaves of a cross-reference), a Markdown link.
ROLE = re.compile(r"(?<![\w`]):[a-z][\w-]*(?::[a-z][\w-]*)?:`")
ESCAPE = re.compile(r"\\[ \t]|\\$", re.MULTILINE)
CODE = re.compile(r"```.*?```|``.+?``", re.DOTALL)
SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")
LINK = re.compile(r"\]\((?P<url>[^)\s]+)\)")
#: The end of a reST link (```words <url>`__``).
REST_LINK = re.compile(r"<[a-z]+://[^<>\s]*>`_")
#: In a Chinese notebook built without an address, a page named other than by its title: a short name left
#: (“.data”那一页) or the title with 那一页 after it; and words the page shows replaced by the title (只用《).
OTHER_NAME = re.compile(r"“[^“”]{1,30}”那一页|》那一页|用《")


def _published_base(site: Path) -> str:
    """The SITE_URL the site was built with ('' for a local build), read from its robots.txt."""
    match = re.search(r"^Sitemap: (\S+)sitemap\.xml$", (site / "robots.txt").read_text(encoding="utf-8"), re.M)
    return match.group(1) if match else ""


def _references(script: Path) -> int:
    """How many cross-references (``:ref:``, ``:doc:``) the text of a page holds."""
    _, blocks = split_code_and_text_blocks(str(script))
    return sum(len(re.findall(r":(?:ref|doc):`", text)) for label, text, _ in blocks if label == "text")


def notebook_problems(site: Path, lang: str, names: Collection[str] | None = None) -> list[str]:
    """What is wrong in the text of the notebooks of edition ``lang`` of a built ``site``: a reST role or
    escape, a cross-reference left as its label, a link into the site that is relative (it leads nowhere
    from a notebook opened alone), or leads to no page or no anchor of the site, and a page whose
    cross-references did not all become links (on a site built with an address) or became any. It reads
    the notebooks of the example pages ``names`` (``copying/plot_04_detach``; the site must have them),
    by default of every example page (the site must have those and no other)."""
    base = _published_base(site)
    inventory = InventoryFile.loads((site / lang / "objects.inv").read_bytes(), uri="").data
    labels = set(inventory["std:label"]) | set(inventory["std:doc"])
    scripts = {script.stem: script for script in gallery_scripts(lang)}
    notebooks = sorted((site / lang / "_downloads").rglob("plot_*.ipynb"))
    if names is None:
        assert notebooks and {notebook.stem for notebook in notebooks} == set(scripts), f"{lang}: notebooks and pages"
    else:
        wanted = {Path(name).name for name in names}
        notebooks = [notebook for notebook in notebooks if notebook.stem in wanted]
        assert notebooks and {notebook.stem for notebook in notebooks} == wanted, f"{lang}: no notebook of {names}"
    problems = []
    for notebook in notebooks:
        links = 0
        for number, cell in enumerate(json.loads(notebook.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] != "markdown":
                continue
            where = f"{lang}: {notebook.name} cell {number}"
            prose = CODE.sub(" ", "".join(cell["source"]))
            problems += [f"{where}: the role {m.group()}" for m in ROLE.finditer(prose)]
            problems += [f"{where}: a reST escape {m.group()!r}" for m in ESCAPE.finditer(prose)]
            if lang == "zh_CN" and not base:
                problems += [f"{where}: a page named as {m.group()!r}, not by its title alone"
                             for m in OTHER_NAME.finditer(prose)]
            problems += [f"{where}: the cross-reference `{m.group(1)}` left as a label" for m in SPAN.finditer(prose)
                         if m.group(1).strip() in labels or re.search(r"<([^<>\s]+)>\s*$", m.group(1))]
            for url in (m.group("url") for m in LINK.finditer(prose)):
                if "://" not in url:
                    problems.append(f"{where}: the relative link {url}, which leads nowhere in a notebook")
                elif base and url.startswith(base):
                    links += 1
                    path, _, anchor = url.removeprefix(base).partition("#")
                    page = site / path
                    if not page.is_file():
                        problems.append(f"{where}: {url} leads to no page of the site")
                    elif anchor and f'id="{anchor}"' not in page.read_text(encoding="utf-8"):
                        problems.append(f"{where}: {url} leads to no anchor of {path}")
        expected = _references(scripts[notebook.stem]) if base else 0
        if links != expected:
            problems.append(f"{lang}: {notebook.name} links {links} times into the site; its page's text holds "
                            f"{_references(scripts[notebook.stem])} cross-references "
                            f"({'built for ' + base if base else 'built without an address'})")  # fmt: skip
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_no_notebook_holds_a_role_an_escape_or_a_reference_that_leads_nowhere(site_dir, lang):
    problems = notebook_problems(site_dir, lang)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_no_scripts_text_holds_a_role_or_an_escape_and_each_reference_gives_an_address(site_dir, lang):
    """The ``.py`` downloads: their docstring and comments (the text blocks) hold no reST role, escape,
    directive (``.. admonition::``, ``.. figure-caption::``) or link (```words <url>`__``), and on a site
    built with an address, each of the page's cross-references became one address of the site."""
    base, sources = _published_base(site_dir), {script.stem: script for script in gallery_scripts(lang)}
    scripts = sorted((site_dir / lang / "_downloads").rglob("plot_*.py"))
    assert {script.stem for script in scripts} == set(sources), f"{lang}: scripts and pages"
    problems = []
    for script in scripts:
        _, blocks = split_code_and_text_blocks(str(script))
        text = CODE.sub(" ", "\n".join(text for label, text, _ in blocks if label == "text"))
        problems += [f"{lang}: {script.name}: the role {m.group()}" for m in ROLE.finditer(text)]
        problems += [f"{lang}: {script.name}: a reST escape {m.group()!r}" for m in ESCAPE.finditer(text)]
        problems += [f"{lang}: {script.name}: the directive {m.group().strip()}" for m in RAW_DIRECTIVE.finditer(text)]
        problems += [f"{lang}: {script.name}: the reST link {m.group()}" for m in REST_LINK.finditer(text)]
        urls = re.findall(rf"{re.escape(base)}([^\s#）)]+)", text) if base else []
        problems += [f"{lang}: {script.name}: {base}{url} leads to no page" for url in urls
                     if not (site_dir / url).is_file()]
        if len(urls) != (_references(sources[script.stem]) if base else 0):
            problems.append(f"{lang}: {script.name} gives {len(urls)} addresses of the site; its page's text holds "
                            f"{_references(sources[script.stem])} cross-references")
    assert not problems, "\n".join(problems)
