"""Shared helpers for the tests: find gallery scripts, split them into cells, run cells, read pages."""

import ast
import contextlib
import functools
import http.server
import io
import threading
import tokenize
import warnings
from pathlib import Path

from bs4 import BeautifulSoup
from sphinx_gallery.py_source_parser import split_code_and_text_blocks

from sitetools.editions import CODES

ROOT = Path(__file__).resolve().parents[1]

LANGS = CODES

GALLERY = ROOT / "gallery"
#: Where sphinx-gallery puts the pages of gallery/<lang>/ inside each edition.
EXAMPLES_DIR = "examples"


def gallery_scripts(lang: str) -> list[Path]:
    """Every example script of one language, in file order."""
    return sorted((GALLERY / lang).rglob("plot_*.py"))


def relative_name(script: Path) -> str:
    """``gallery/en/copying/plot_01_x.py`` -> ``copying/plot_01_x`` (the same in every language)."""
    lang_dir = next(p for p in script.parents if p.parent == GALLERY)
    return script.relative_to(lang_dir).with_suffix("").as_posix()


def script_id(script: Path) -> str:
    """A readable test id: ``en/copying/plot_01_x``."""
    lang_dir = next(p for p in script.parents if p.parent == GALLERY)
    return f"{lang_dir.name}/{relative_name(script)}"


def page_path(site: Path, lang: str, name: str) -> Path:
    """The built HTML page of gallery script ``name`` (as given by :func:`relative_name`)."""
    return site / lang / EXAMPLES_DIR / f"{name}.html"


def blocks(script: Path) -> list[tuple[str, str]]:
    """The script's blocks as ``(kind, content)``, kind "text" or "code" (sphinx-gallery's parser)."""
    _, script_blocks = split_code_and_text_blocks(str(script))
    return [(block.type, block.content) for block in script_blocks]


def split_cells(script: Path) -> list[str]:
    """The code cells of a script, as sphinx-gallery splits them."""
    return [content for kind, content in blocks(script) if kind == "code"]


def code_tokens(code: str) -> list[tuple[str, str]]:
    """The tokens of a code cell, without comments and blank lines: what must match across languages."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [(tokenize.tok_name[t.type], t.string) for t in tokens if t.type not in skip]


def _run_cell(code: str, namespace: dict, filename: str) -> None:
    """Run one cell like sphinx-gallery: the repr of a last bare expression is printed."""
    tree = ast.parse(code, filename)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
        if value is not None:
            print(repr(value))


def run_cells(cells: list[str], filename: str = "<gallery>") -> list[str]:
    """Run code cells in one fresh namespace; return what each cell printed (stdout and stderr).

    torch gets the same fresh state as in the build (see docs/_ext/tensorcopy_sphinx/gallery_hooks.py), and any
    warning a cell does not catch itself is raised as an error.
    """
    import torch

    torch.manual_seed(0)
    torch.set_printoptions(profile="default")
    namespace = {"__name__": "__main__", "__file__": filename}
    outputs = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for code in cells:
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                _run_cell(code, namespace, filename)
            outputs.append(buffer.getvalue())
    return outputs


def normalise(text: str) -> str:
    """Output text as a page shows it: no trailing spaces, no leading or trailing blank lines."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()).strip("\n")


def printed_blocks(outputs: list[str]) -> list[str]:
    """The output blocks a page shows for these cell outputs (cells that print nothing show none)."""
    return [normalise(out) for out in outputs if out.strip()]


def parse_html(html_path: Path) -> BeautifulSoup:
    """A parsed HTML page."""
    return BeautifulSoup(html_path.read_text(encoding="utf-8"), "html.parser")


def html_output_blocks(html_path: Path) -> list[str]:
    """The output blocks of a built gallery page, in page order."""
    return [
        normalise(div.pre.get_text())
        for div in parse_html(html_path).select("div.sphx-glr-script-out")
    ]


def html_code_cells(html_path: Path) -> list[str]:
    """The code cells of a built gallery page, in page order, as plain text."""
    return [div.pre.get_text() for div in parse_html(html_path).select("div.highlight-Python")]


def html_cells_with_outputs(html_path: Path) -> list[tuple[str, str | None]]:
    """Each code cell of a built gallery page with the output block shown right after it (None
    when the cell shows none), in page order. An output block that follows no code cell is an error."""
    pairs: list[tuple[str, str | None]] = []
    for div in parse_html(html_path).select("div.highlight-Python, div.sphx-glr-script-out"):
        if "sphx-glr-script-out" in div["class"]:
            if not pairs or pairs[-1][1] is not None:
                raise ValueError(f"{html_path}: an output block follows no code cell")
            pairs[-1] = (pairs[-1][0], normalise(div.pre.get_text()))
        else:
            pairs.append((div.pre.get_text(), None))
    return pairs


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve ``directory`` on 127.0.0.1 (a free port) while the block runs; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
