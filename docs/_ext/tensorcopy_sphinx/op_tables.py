"""Sphinx directives ``view-table`` and ``saved-table``: two reference tables probed during the build.

Usage in a MyST page::

    ```{view-table} views
    ```

    ```{view-table} notes
    ```

    ```{saved-table}
    ```

    ```{saved-table} notes
    ```

``view-table views`` (or ``maybe``) renders one group of rows of :mod:`tensorfacts.view_ops`: the source
tensors as code, with the torch version the probes ran on, then one row per operation and, for each
layout (contiguous, non-contiguous), one column per probe; the messages of the errors the cells name
are listed under the table. ``saved-table`` renders :mod:`tensorfacts.saved_ops` the same way. The
argument ``notes`` renders the table's notes (:mod:`tensorfacts.table_notes`), each checked against the
probed table, and under each note that names facts a "Checked by" line linking them: a note whose premise
fails, like a probe that fails, is a warning, and the build runs with ``-W``. The engine computes; this
module only renders. Each operation's code links to the PyTorch documentation of the object it calls
(intersphinx, through ``tensorcopy_sphinx.torch_links``'s inventory). Words come from ``WORDS``, one entry per
edition; cells are plain text, so a long table stays light.
"""

from __future__ import annotations

import functools

import torch
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from editions import pick
from tensorcopy_sphinx.behaviour_matrix import build_guide
from tensorcopy_sphinx.fact_index import cite
from tensorcopy_sphinx.inline import stylesheet
from tensorcopy_sphinx.torch_links import CLASS
from tensorfacts import saved_ops, table_notes, view_ops
from tensorfacts.matrix import failed_premises

logger = logging.getLogger(__name__)

WORDS = {
    "en": {
        "operation": "operation",
        "source": "source",
        "contiguous": "contiguous source",
        "non-contiguous": "non-contiguous source",
        "sparse_coo": "sparse COO source (one layout only)",
        "shares_storage": "shares storage",
        "autograd_view": "view for autograd",
        "writes_through": "write reaches the source",
        "edit_refused": "in-place edit refused",
        True: "yes",
        False: "no",
        "raised": "error",
        view_ops.MULTI_OUTPUT: "yes",  # the column asks "refused?"; the message is listed under the table
        "not_applicable": "—",
        "sources": "Sources (probed on torch {torch}):",
        "layout": "{name}, {layout}: ",
        "messages": "Each error as torch words it (a message of several lines, or one naming a path, cut to its "
                    "first sentence):",
        "message": ": ",
        "grad_fn": "grad_fn",
        "saves": "saves",
        "edit_input": "edit x in place, then backward",
        "edit_output": "edit the result in place, then backward",
        "backward_twice": "second backward, no retain_graph",
        saved_ops.INPUT: "input x",
        saved_ops.OPERAND: "other operand",
        saved_ops.OUTPUT: "output",
        saved_ops.OTHER: "another tensor",
        "nothing": "nothing",
        "separator": ", ",
        saved_ops.ERROR_AT_BACKWARD: "error at backward",
        saved_ops.SAME_GRADIENT: "no error, same gradient",
        saved_ops.OTHER_GRADIENT: "no error, other gradient",
        saved_ops.NO_ERROR: "no error",
        saved_ops.SECOND_BACKWARD_ERROR: "error",
        "inputs": "Inputs (probed on torch {torch}):",
    },
    "zh_CN": {
        "operation": "操作",
        "source": "源张量",
        "contiguous": "连续的源张量",
        "non-contiguous": "不连续的源张量",
        "sparse_coo": "稀疏（COO）源张量（只有这一种布局）",
        "shares_storage": "共享存储",
        "autograd_view": "自动求导视作视图",
        "writes_through": "写入落到源张量",
        "edit_refused": "原地修改报错",
        True: "是",
        False: "否",
        "raised": "报错",
        view_ops.MULTI_OUTPUT: "是",
        "not_applicable": "—",
        "sources": "源张量（在 torch {torch} 上实测）：",
        "layout": "{name}，{layout}：",
        "messages": "各条报错信息，照 torch 的原文（多行或含路径的信息只取第一句）：",
        "message": "：",
        "grad_fn": "grad_fn",
        "saves": "保存的张量",
        "edit_input": "原地修改 x 后反向传播",
        "edit_output": "原地修改结果后反向传播",
        "backward_twice": "不加 retain_graph 再次反向传播",
        saved_ops.INPUT: "输入 x",
        saved_ops.OPERAND: "另一个操作数",
        saved_ops.OUTPUT: "输出",
        saved_ops.OTHER: "另一个张量",
        "nothing": "无",
        "separator": "、",
        saved_ops.ERROR_AT_BACKWARD: "反向传播时报错",
        saved_ops.SAME_GRADIENT: "不报错，梯度不变",
        saved_ops.OTHER_GRADIENT: "不报错，梯度改变",
        saved_ops.NO_ERROR: "不报错",
        saved_ops.SECOND_BACKWARD_ERROR: "报错",
        "inputs": "输入（在 torch {torch} 上实测）：",
    },
}


def words(language: str) -> dict:
    """The tables' words in ``language``; an edition without them fails loudly."""
    return pick(WORDS, language, "the reference tables' words (tensorcopy_sphinx.op_tables.WORDS)")


@functools.cache
def view_table() -> view_ops.Table:
    return view_ops.probe_all()


@functools.cache
def saved_table() -> saved_ops.Table:
    return saved_ops.probe_all()


def operation(code: str, doc: str) -> nodes.Node:
    """The operation's code, linked to the documentation of ``doc`` (plain when it has none)."""
    literal = nodes.literal(code, code)
    if not doc:
        return literal
    literal["classes"].append(CLASS)
    xref = addnodes.pending_xref("", refdomain="py", reftype="obj", reftarget=doc, refexplicit=True)
    xref += literal
    return xref


def _entry(*children: nodes.Node, **attributes) -> nodes.entry:
    entry = nodes.entry(**attributes)
    entry += nodes.paragraph("", "", *children)
    return entry


def _table(classes: list[str], widths: list[int], head: list[nodes.row], body: list[nodes.row]) -> nodes.table:
    table = nodes.table(classes=["op-table", *classes])
    group = nodes.tgroup(cols=len(widths))
    table += group
    for index, width in enumerate(widths):
        spec = nodes.colspec(colwidth=width)
        if index == 0:
            spec["stub"] = 1  # the operation heads its row (a <th> for screen readers)
        group += spec
    thead, tbody = nodes.thead(), nodes.tbody()
    thead.extend(head)
    tbody.extend(body)
    group += thead
    group += tbody
    return table


def _torch() -> str:
    import torch

    return torch.__version__


def view_cell(value: object, w: dict) -> nodes.Node:
    if value is view_ops.NOT_APPLICABLE:
        return nodes.Text(w["not_applicable"])
    if isinstance(value, view_ops.Raised):
        return nodes.Text(w["raised"])
    if isinstance(value, view_ops.Refused):
        return nodes.Text(w[value.kind])
    if isinstance(value, view_ops.ProbeFailure):
        return nodes.Text("?")
    return nodes.Text(w[bool(value)])


def build_view_table(table: view_ops.Table, rows: tuple[view_ops.Row, ...], language: str) -> nodes.table:
    w = words(language)
    top = nodes.row()  # each header row starts with a label of its own, pinned like the rows' labels
    top += _entry(nodes.Text(w["source"]))
    for layout in view_ops.LAYOUTS:
        top += _entry(nodes.Text(w[layout]), morecols=len(view_ops.COLUMNS) - 1)
    second = nodes.row()
    second += _entry(nodes.Text(w["operation"]))
    for _ in view_ops.LAYOUTS:
        for column in view_ops.COLUMNS:
            second += _entry(nodes.Text(w[column]))
    body = []
    for row in rows:
        line = nodes.row()
        line += _entry(operation(row.code, row.doc))
        for layout in view_ops.LAYOUTS:
            for column in view_ops.COLUMNS:
                line += _entry(view_cell(table[row.code][layout][column], w))
        body.append(line)
    widths = [16, *[6] * (len(view_ops.LAYOUTS) * len(view_ops.COLUMNS))]
    return _table(["view-table"], widths, [top, second], body)


def build_sources(language: str) -> list[nodes.Node]:
    """The source tensors as code, under a line naming the torch the probes ran on."""
    w = words(language)
    items = nodes.bullet_list(classes=["op-table-sources"])
    for name in view_ops.SOURCES:
        for layout in view_ops.LAYOUTS:
            code = view_ops.source_code(name, layout)
            if code is None:
                continue
            kind = "sparse_coo" if view_ops.make_source(name, layout).layout == torch.sparse_coo else layout
            item = nodes.list_item()
            item += nodes.paragraph("", "", nodes.Text(w["layout"].format(name=name, layout=w[kind])),
                                    nodes.literal(code, code))
            items += item
    intro = w["sources"].format(torch=_torch())
    return [nodes.paragraph(intro, intro), items]


def _messages(pairs: list[tuple[str, str]], language: str) -> list[nodes.Node]:
    """Each (operation, message) once, under the table."""
    if not pairs:
        return []
    w = words(language)
    items = nodes.bullet_list(classes=["op-table-messages"])
    for code, message in dict.fromkeys(pairs):
        item = nodes.list_item()
        item += nodes.paragraph("", "", nodes.literal(code, code), nodes.Text(w["message"]),
                                nodes.literal(message, message))
        items += item
    return [nodes.paragraph(w["messages"], w["messages"]), items]


def view_messages(table: view_ops.Table, rows: tuple[view_ops.Row, ...]) -> list[tuple[str, str]]:
    return [(row.code, value.error) for row in rows for cells in table[row.code].values()
            for value in cells.values() if isinstance(value, (view_ops.Raised, view_ops.Refused))]


def saves_text(value: object, w: dict) -> str:
    if isinstance(value, saved_ops.ProbeFailure):
        return "?"
    return w["separator"].join(w[role] for role in value) if value else w["nothing"]


def build_saved_table(table: saved_ops.Table, language: str) -> nodes.table:
    w = words(language)
    head = nodes.row()
    for key in ("operation", *saved_ops.COLUMNS):
        head += _entry(nodes.literal(w[key], w[key]) if key == "grad_fn" else nodes.Text(w[key]))
    body = []
    for row in saved_ops.ROWS:
        cells = table[row.code]
        line = nodes.row()
        line += _entry(operation(row.code, row.doc))
        for column in saved_ops.COLUMNS:
            value = cells[column]
            if isinstance(value, saved_ops.ProbeFailure):
                shown: nodes.Node = nodes.Text("?")
            elif column == "grad_fn":
                shown = nodes.literal(str(value), str(value))
            elif column == "saves":
                shown = nodes.Text(saves_text(value, w))
            else:
                shown = nodes.Text(w[value])
            line += _entry(shown)
        body.append(line)
    return _table(["saved-table"], [16, 12, 10, 12, 12, 10], [head], body)


def build_inputs(language: str) -> list[nodes.Node]:
    w = words(language)
    items = nodes.bullet_list(classes=["op-table-sources"])
    for name, code in saved_ops.INPUTS.items():
        item = nodes.list_item()
        text = f"{name} = {code}"
        item += nodes.paragraph("", "", nodes.literal(text, text))
        items += item
    intro = w["inputs"].format(torch=_torch())
    return [nodes.paragraph(intro, intro), items]


class _TableDirective(SphinxDirective):
    has_content = False
    optional_arguments = 1

    def warn(self, what: str, problem: str) -> None:
        logger.warning("%s: %s", what, problem, location=self.get_location(), type="optable", subtype="probe")

    def notes(self, table: object, notes: tuple) -> list[nodes.Node]:
        for note in notes:
            for fact_id in note.facts:
                cite(self.env, fact_id, self.env.docname)  # for the facts page
        for note_id in failed_premises(table, notes):
            self.warn("reference table note", f"the premises of {note_id!r} do not hold on this torch; rewrite it")
        # under each note that rests on facts, the "Checked by" line linking them, as the pages' intros say
        return [build_guide(self.env.config.language, notes, self.env.docname, with_facts=True)]


class ViewTable(_TableDirective):
    """``view-table views``, ``view-table maybe`` or ``view-table notes`` (see the module docstring)."""

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(view_ops.__file__)
        self.env.note_dependency(table_notes.__file__)
        table, language = view_table(), self.env.config.language
        for problem in view_ops.failures(table):
            self.warn("view table: probe failed", problem)
        for problem in view_ops.one_layout_problems():
            self.warn("view table: a source with one layout", problem)
        for problem in view_ops.column_layout_problems():
            self.warn("view table: a non-contiguous source", problem)
        for problem in view_ops.view_source_problems():
            self.warn("view table: a source that is a view", problem)
        what = (self.arguments or ["views"])[0]
        if what == "notes":
            return self.notes(table, table_notes.VIEW_NOTES)
        if what not in view_ops.GROUPS:
            self.warn("view table", f"unknown group {what!r}; use one of {sorted(view_ops.GROUPS)} or notes")
            return []
        rows = view_ops.GROUPS[what]
        sources = build_sources(language) if what == "views" else []
        return [*sources, build_view_table(table, rows, language),
                *_messages(view_messages(table, rows), language)]


class SavedTable(_TableDirective):
    """``saved-table`` or ``saved-table notes`` (see the module docstring)."""

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(saved_ops.__file__)
        self.env.note_dependency(table_notes.__file__)
        table, language = saved_table(), self.env.config.language
        for problem in saved_ops.failures(table):
            self.warn("saved table: probe failed", problem)
        for problem in saved_ops.input_problems():
            self.warn("saved table: an input", problem)
        if (self.arguments or [""])[0] == "notes":
            return self.notes(table, table_notes.SAVED_NOTES)
        return [*build_inputs(language), build_saved_table(table, language)]


def setup(app: Sphinx) -> dict:
    app.add_directive("view-table", ViewTable)
    app.add_directive("saved-table", SavedTable)
    stylesheet(app, "op-tables.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
