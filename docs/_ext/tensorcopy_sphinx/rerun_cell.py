"""The last cell of every download reruns the page's checks on the reader's torch, claim by claim.

After sphinx-gallery has written a page's ``.py`` and ``.ipynb`` (and before Sphinx copies them as
downloads), this extension appends one cell to both: the page's code, hidden checks included, as the
string ``PAGE_CODE`` (the notebook's holds it; the ``.py``'s reads it from its own file, up to the cell),
and :func:`sitetools.releases.rerun_cell.rerun_checks` (its code, without docstring or comments), called with
the torch version the page was verified on. The cell needs none of the cells
above it, so a reader whose torch fails an ``assert`` half-way can still run it and see every claim.
Its title and text come from the message catalog (``docs/_locale``), and so do the words of the report
it prints (``rerun_checks.WORDS``, written into the cell in the page's language); the rest of its code
is the same in every edition. A page whose code cannot be held in a raw triple-quoted string fails the
build, naming it.
"""

from __future__ import annotations

import ast
import functools
import html
import inspect
import json
import re
from pathlib import Path

from docutils.utils import column_width
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from editions import edition
from sitetools.for_sphinx import check_labels, numbered_blocks, rerun_checks
from tensorcopy_sphinx.build_info import build_versions
from tensorcopy_sphinx.gallery_html_fixes import plain_title
from tensorcopy_sphinx.theme_i18n import translated

TAG = "rerun-checks"
#: The line that opens the cell in a ``.py`` download; a download that has it already is left alone.
PY_MARKER = f"# %% [{TAG}]"
#: The cell's title and text, translated by the message catalog.
TITLE = "Rerun this page's checks on your torch"
TEXT = (
    "This cell needs none of the cells above. It runs this page's code again on the torch you have, "
    "hidden checks included, and reports every check, claim by claim, instead of stopping at the first "
    "one that differs. It ends with an error if any check differs or did not run. If an `assert` above "
    "stops on your torch, run this cell on its own: in the notebook, or as a `# %%` cell in an editor that runs "
    "it from the saved script (in the script, this cell reads the page's code from the script's own file)."
)


def page_code(script: Path) -> str:
    """A page's code cells, hidden blocks included, joined as one script."""
    blocks = numbered_blocks(script)
    code = "\n\n".join(content.strip("\n") for label, content, _ in blocks if label == "code") + "\n"
    if "'''" in code or code.endswith("\\\n"):
        raise ExtensionError(f"{script.name}: its code cannot be held in r'''...''' for the rerun cell")
    return code


#: A reST section title over its underline.
_TITLE = re.compile(r"^(\S.*)\n([-=~^])\2+[ \t]*$", re.MULTILINE)


def page_sections(script: Path, *, in_script: bool = False) -> list[tuple[int, str]]:
    """``(first line, title)`` of each code block, the title being the one of the section it is in (the
    page's title before its first section), in the lines of :func:`page_code`, or of the script itself."""
    blocks = numbered_blocks(script)
    sections, title, line = [], "", 1
    for label, content, lineno in blocks:
        if label != "code":
            titles = _TITLE.findall(content)
            title = html.unescape(plain_title(titles[-1][0])) if titles else title
            continue
        sections.append((lineno if in_script else line, title))
        line += content.strip("\n").count("\n") + 2
    return sections


@functools.cache
def _runner(words: tuple[tuple[str, str], ...]) -> str:
    """The code of :mod:`sitetools.releases.rerun_cell`, without docstrings and comments (they are English only),
    its ``WORDS`` holding ``words``."""
    module = ast.parse(inspect.getsource(rerun_checks))
    for node in ast.walk(module):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(node, clean=False):
            del node.body[0]
    (table,) = [node for node in module.body if isinstance(node, ast.Assign) and ast.unparse(node.targets) == "WORDS"]
    table.value = ast.parse(repr(dict(words)), mode="eval").body
    return ast.unparse(module)


#: In the ``.py`` download the page's code is the file itself, up to the rerun cell: the cell reads it from
#: there instead of holding a second copy of the page (comments and the docstring change nothing in a run).
PY_PAGE_CODE = f"PAGE_CODE = open(__file__, encoding='utf-8').read().partition({chr(10) + PY_MARKER!r})[0]"


def cell_code(script: Path, words: dict[str, str] | None = None, *, in_script: bool = False,
              labels: dict[str, str] | None = None, values: dict[str, str] | None = None) -> str:  # fmt: skip
    """The rerun cell of ``script``, reporting in ``words`` (``rerun_checks.WORDS``, English, if None) and
    naming each claim by its message's translation in ``labels`` (the edition's catalog,
    :mod:`sitetools.authoring.check_labels`; none in the first edition), whose fields show their values' translations
    in ``values`` (the catalog's values); the one of the ``.py`` download (``in_script``) reads the page's
    code from its own file."""
    torch_version = build_versions()["torch_version"]
    runner = _runner(tuple((words or rerun_checks.WORDS).items()))
    code = page_code(script)
    page = PY_PAGE_CODE if in_script else f"PAGE_CODE = r'''\n{code}'''"
    sections = f"PAGE_SECTIONS = {page_sections(script, in_script=in_script)!r}"  # before the page: the rest is shared
    call = f"rerun_checks(PAGE_CODE, {torch_version!r}, PAGE_SECTIONS)"
    if labels:  # the page's messages and values only
        page_labels = {message: labels[message] for _, message in check_labels.messages(code) if message in labels}
        call = f"CHECK_LABELS = {page_labels!r}\n{call[:-1]}, CHECK_LABELS)"
        if page_values := check_labels.page_values(code, values or {}):
            call = f"CHECK_VALUES = {page_values!r}\n{call[:-1]}, CHECK_VALUES)"
    return f"{sections}\n{page}\n\n\n{runner}\n\n\n{call}\n"


def script_comment(title: str, text: str) -> str:
    """The cell's title and text as the comment that opens it in a ``.py`` download: the title underlined to
    its display width (a Chinese character takes two columns), as the page's titles are."""
    return "\n".join(f"# {line}".rstrip() for line in (title, "-" * column_width(title), "", text))


def report_words(app: Sphinx) -> dict[str, str]:
    """``rerun_checks.WORDS`` in the edition's language, from its message catalog (a missing one fails
    the build, naming it)."""
    return {key: translated(app, english) for key, english in rerun_checks.WORDS.items()}


def _append(app: Sphinx, env, docnames) -> None:
    conf = app.config.sphinx_gallery_conf
    gallery, sources = Path(app.srcdir) / conf["gallery_dirs"][0], Path(conf["examples_dirs"][0])
    title, text, words = translated(app, TITLE), translated(app, TEXT), report_words(app)
    language = edition(app.config.language).code
    labels, values = check_labels.read(language), check_labels.read_values(language)
    for script in sorted(gallery.rglob("plot_*.py")):
        # the source, not the download being changed
        code = cell_code(sources / script.relative_to(gallery), words, labels=labels, values=values)
        source = script.read_text(encoding="utf-8")
        if PY_MARKER not in source:
            comment = script_comment(title, text)
            in_script = cell_code(sources / script.relative_to(gallery), words, in_script=True,
                                  labels=labels, values=values)  # fmt: skip
            script.write_text(f"{source.rstrip()}\n\n\n{PY_MARKER}\n{comment}\n\n{in_script}", encoding="utf-8")
        notebook = script.with_suffix(".ipynb")
        if not notebook.is_file():
            raise ExtensionError(f"{notebook.relative_to(gallery)}: sphinx-gallery wrote no notebook for it")
        data = json.loads(notebook.read_text(encoding="utf-8"))
        cells = [cell for cell in data["cells"] if TAG not in cell.get("metadata", {}).get("tags", [])]
        tagged = {"tags": [TAG]}
        data["cells"] = [
            *cells,
            {"cell_type": "markdown", "metadata": tagged, "source": [f"## {title}\n\n{text}"]},
            {"cell_type": "code", "execution_count": None, "metadata": tagged, "outputs": [], "source": [code]},
        ]
        notebook.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.setup_extension("tensorcopy_sphinx.build_info")
    app.connect("env-before-read-docs", _append)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
