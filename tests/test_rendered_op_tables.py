"""The built view operations and "what operations save" pages, cell by cell: under each column's header,
each row shows what that column's probe returned, in the words of its edition (written here, not
read from the extension), and each operation links to its PyTorch page. The checker is proven on
copies of the built page with a cell, a header or a link changed."""

from __future__ import annotations

import copy

import pytest

from editions import CODES
from tensorfacts import saved_ops, view_ops
from tests.gallery_tools import read_page

#: The words a reader sees, by edition (the tests' own copy).
YES_NO = {"en": {True: "yes", False: "no"}, "zh_CN": {True: "是", False: "否"}}
ERROR = {"en": "error", "zh_CN": "报错"}
VIEW_HEADERS = {
    "en": ["shares storage", "view for autograd", "write reaches the source", "in-place edit refused"],
    "zh_CN": ["共享存储", "自动求导视作视图", "写入落到源张量", "原地修改报错"],
}
SAVES = {
    "en": {"input": "input x", "operand": "other operand", "output": "output", "other": "another tensor",
           (): "nothing", "sep": ", "},
    "zh_CN": {"input": "输入 x", "operand": "另一个操作数", "output": "输出", "other": "另一个张量",
              (): "无", "sep": "、"},
}
OUTCOMES = {
    "en": {"error": "error at backward", "same": "no error, same gradient", "no-error": "no error",
           "error-twice": "error"},
    "zh_CN": {"error": "反向传播时报错", "same": "不报错，梯度不变", "no-error": "不报错", "error-twice": "报错"},
}
DOCS = "https://docs.pytorch.org/docs/"


def _text(node) -> str:
    return " ".join(node.get_text(" ", strip=True).split())


def view_word(value, lang: str) -> str:
    if value is view_ops.NOT_APPLICABLE:
        return "—"
    if isinstance(value, view_ops.Raised):
        return ERROR[lang]
    if isinstance(value, view_ops.Refused):
        return YES_NO[lang][True]
    return YES_NO[lang][value]


def view_problems(soup, lang: str, table: view_ops.Table) -> list[str]:
    problems = []
    tables = soup.select("table.view-table")
    groups = [view_ops.VIEWS, view_ops.MAYBE]
    if len(tables) != len(groups):
        return [f"{len(tables)} view tables, expected {len(groups)}"]
    for html, rows in zip(tables, groups, strict=True):
        headers = [_text(th) for th in html.select("thead tr")[1].find_all("th")][1:]
        if headers != VIEW_HEADERS[lang] * len(view_ops.LAYOUTS):
            problems.append(f"headers {headers}")
        body = html.select("tbody > tr")
        if len(body) != len(rows):
            problems.append(f"{len(body)} rows, expected {len(rows)}")
        for tr, row in zip(body, rows, strict=False):
            cells = tr.find_all(["th", "td"], recursive=False)
            if _text(cells[0]) != row.code:
                problems.append(f"row {_text(cells[0])!r}, expected {row.code!r}")
            link = cells[0].find("a")
            if bool(row.doc) != bool(link) or (link and not link["href"].endswith(f"#{row.doc}")):
                problems.append(f"{row.code}: link {link and link['href']}, expected {row.doc or 'none'}")
            shown = [_text(td) for td in cells[1:]]
            expected = [view_word(table[row.code][lay][col], lang) for lay in view_ops.LAYOUTS
                        for col in view_ops.COLUMNS]
            if shown != expected:
                problems.append(f"{row.code}: {shown}, expected {expected}")
    return problems


def saved_problems(soup, lang: str, table: saved_ops.Table) -> list[str]:
    html = soup.select_one("table.saved-table")
    if html is None:
        return ["no saved table"]
    problems, words = [], SAVES[lang]
    body = html.select("tbody > tr")
    if len(body) != len(saved_ops.ROWS):
        problems.append(f"{len(body)} rows, expected {len(saved_ops.ROWS)}")
    for tr, row in zip(body, saved_ops.ROWS, strict=False):
        cells = [_text(c) for c in tr.find_all(["th", "td"], recursive=False)]
        values = table[row.code]
        saves = words["sep"].join(words[r] for r in values["saves"]) if values["saves"] else words[()]
        expected = [row.code, values["grad_fn"], saves,
                    *(OUTCOMES[lang][values[c]] for c in ("edit_input", "edit_output", "backward_twice"))]
        if cells != expected:
            problems.append(f"{row.code}: {cells}, expected {expected}")
        link = tr.find("a")
        if link is None or not link["href"].startswith(DOCS) or not link["href"].endswith(f"#{row.doc}"):
            problems.append(f"{row.code}: link {link and link['href']}, expected {row.doc}")
    return problems


@pytest.fixture(scope="module")
def tables():
    return view_ops.probe_all(), saved_ops.probe_all()


@pytest.mark.parametrize("lang", CODES)
def test_the_built_tables_show_every_probe(site_dir, tables, lang):
    views, saved = tables
    problems = (view_problems(read_page(site_dir / lang / "views.html"), lang, views)
                + saved_problems(read_page(site_dir / lang / "saved.html"), lang, saved))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", CODES)
def test_the_pages_stay_light(site_dir, lang):
    """No per-cell markup beyond the cell and its paragraph: each page well under the matrix's size."""
    for page in ("views.html", "saved.html"):
        assert (site_dir / lang / page).stat().st_size < 120_000, page


def _one_cell_changed(soup, lang):
    td = soup.select("table.view-table tbody tr")[0].find_all("td")[1]
    td.p.string = YES_NO[lang][False] if _text(td) == YES_NO[lang][True] else YES_NO[lang][True]


def _headers_swapped(soup, lang):
    ths = soup.select("table.view-table thead tr")[1].find_all("th")
    ths[1].p.string, ths[2].p.string = _text(ths[2]), _text(ths[1])


def _link_dropped(soup, lang):
    link = soup.select("table.view-table tbody a")[0]
    link.replace_with(link.code)


def _saved_cell_changed(soup, lang):
    td = soup.select("table.saved-table tbody tr")[0].find_all("td")[2]
    td.p.string = SAVES[lang]["input"]


@pytest.mark.parametrize("lang", CODES)
@pytest.mark.parametrize("break_it", [_one_cell_changed, _headers_swapped, _link_dropped, _saved_cell_changed])
def test_the_checker_names_a_broken_page(site_dir, tables, lang, break_it):
    views, saved = tables
    view_soup = copy.copy(read_page(site_dir / lang / "views.html"))
    saved_soup = copy.copy(read_page(site_dir / lang / "saved.html"))
    break_it(saved_soup if break_it is _saved_cell_changed else view_soup, lang)
    assert view_problems(view_soup, lang, views) + saved_problems(saved_soup, lang, saved)
