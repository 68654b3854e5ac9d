"""The form of a GPU box on an example page, checked before the build.

This build may have no GPU, yet a page may state what a GPU does. It does so in a GPU box: a text cell
holding ``.. admonition:: On a GPU`` (the title in the page's language) with ``:class: note gpu-box``,
and right after it a code cell with a GPU block, a top-level ``if torch.cuda.is_available():`` whose
checks run only where torch has a GPU, and whose last statement prints the mark the build looks for::

    if torch.cuda.is_available():
        ...checks...
        print("GPU checks passed on:", torch.cuda.get_device_name())

The build titles the box from its own record of whether the block ran to that line on a GPU, never
from the printed text (:mod:`tensorcopy_sphinx.gpu_box`), the manifest marks
the block's checks ``(GPU)`` (:mod:`sitetools.rules.checks_manifest`) and the rerun cell of the downloads reports
them as needing a GPU where there is none (:mod:`sitetools.releases.rerun_cell`). A box title that says by hand
whether the build ran it would not follow what ran; this rule refuses one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sitetools.releases.rerun_cell import GPU_MARK, is_gpu_block
from sitetools.rules import syntax
from sitetools.rules.sources import blocks, guide

#: The one last statement of a GPU block, as :func:`ast.unparse` writes it.
MARK_LINE = f"print({GPU_MARK!r}, torch.cuda.get_device_name())"
_BOX = re.compile(r"^\.\. admonition::.*\n(?:[ \t]+:[\w-]+:.*\n)*?[ \t]+:class:.*\bgpu-box\b", re.M)
#: A title that claims by hand that the build ran, or did not run, what the box says.
_HAND_TITLE = re.compile(r"^\.\. admonition::.*(executed by this build|构建\S{0,2}执行)", re.M)
SECTION = guide("Devices and the GPU box")


def _gpu_blocks(code: str) -> list[ast.If]:
    return [node for node in syntax.parse(code).body if is_gpu_block(node)]


def check_gpu_boxes(script: Path) -> list[str]:
    """Every GPU box of ``script`` is followed by a cell with one GPU block ending in the mark, and every
    GPU block follows a box; no admonition title says by hand whether the build ran it."""
    problems, previous = [], ("code", "")
    for kind, content in blocks(script):
        if kind == "text" and _HAND_TITLE.search(content):
            problems.append(f"{script}: a box title says whether this build ran it; make it a GPU box {SECTION}")
        if kind == "code":
            found = _gpu_blocks(content)
            boxed = previous[0] == "text" and _BOX.search(previous[1])
            if found and not boxed:
                problems.append(f"{script}: a GPU block whose cell does not follow a GPU box {SECTION}")
            if boxed and len(found) != 1:
                problems.append(f"{script}: a GPU box must be followed by a cell with one GPU block {SECTION}")
            problems += [f"{script}:{node.lineno}: a GPU block must end with `{MARK_LINE}` {SECTION}"
                         for node in found if ast.unparse(node.body[-1]) != MARK_LINE]  # fmt: skip
        elif previous[0] == "text" and _BOX.search(previous[1]):
            problems.append(f"{script}: a GPU box must be followed by a cell with one GPU block {SECTION}")
        previous = (kind, content)
    return problems
