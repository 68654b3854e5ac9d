"""The GPU box says whether this build ran its checks, and on which GPU, from what the page printed.

A page states GPU-only behaviour in a box, ``.. admonition:: On a GPU`` with ``:class: note gpu-box``
(the title in the page's language), followed by a code cell whose checks sit in a GPU block,
``if torch.cuda.is_available():``, that ends by printing ``sitetools.rerun_checks.GPU_MARK`` and the
GPU's name (:func:`sitetools.gpu_rule.check_gpu_boxes` holds pages to this form). On a build with a GPU
the block runs, and its last line prints only after every check in it passed; on a build without one
nothing in it runs and nothing is printed. So the build reads the page's captured output (the ``.rst``
sphinx-gallery wrote) and titles each box "On a GPU (executed by this build on <GPU>)" when the mark
is there, "On a GPU (not executed by this build)" when it is not: the title follows what ran, not what
the machine claims to have. The notebook (:mod:`tensorcopy_sphinx.notebook_text`) is run again by its
reader, maybe on a GPU, so its box says the same in words that stay true then: "On a GPU (run on <GPU>
when the site was built)", or "On a GPU (needs a GPU; not run when the site was built)"
(:func:`notebook_title`). The verified-on stamp counts the GPU checks only when they ran
(:mod:`tensorcopy_sphinx.verified_stamp`).
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from sitetools.rerun_checks import GPU_MARK
from tensorcopy_sphinx.theme_i18n import translated

CLASS = "gpu-box"
TITLE = "On a GPU"
RAN = "On a GPU (executed by this build on {gpu})"
NOT_RAN = "On a GPU (not executed by this build)"
#: The same, in the notebook: about the site's build, not about the run the reader is making.
NOTEBOOK_RAN = "On a GPU (run on {gpu} when the site was built)"
NOTEBOOK_NOT_RAN = "On a GPU (needs a GPU; not run when the site was built)"
#: The mark as sphinx-gallery writes a captured line into the ``.rst``: indented by four spaces in an
#: output block (a line of code that prints it starts with ``print(`` and does not match).
_PRINTED = re.compile(rf"^ {{4}}{re.escape(GPU_MARK)} (?P<gpu>\S.*)$", flags=re.M)


def ran_on(rst: str) -> list[str]:
    """The GPU each GPU block of a page ran on, in page order, from the ``.rst`` sphinx-gallery wrote
    (its captured output): empty when no block ran."""
    return [match.group("gpu").strip() for match in _PRINTED.finditer(rst)]


def generated_rst(app: Sphinx, name: str) -> Path:
    """The ``.rst`` sphinx-gallery wrote for example ``name`` (``questions/plot_13_module_to``)."""
    return Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"][0] / f"{name}.rst"


def box_title(app: Sphinx, gpus: list[str]) -> str:
    """The title of a GPU box, in the edition's language: executed on ``gpus[0]``, or not executed."""
    return translated(app, RAN).format(gpu=gpus[0]) if gpus else translated(app, NOT_RAN)


def notebook_title(app: Sphinx, gpus: list[str]) -> str:
    """The title of a GPU box in the notebook, in the edition's language: what the site's build did."""
    return translated(app, NOTEBOOK_RAN).format(gpu=gpus[0]) if gpus else translated(app, NOTEBOOK_NOT_RAN)


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    boxes = [node for node in doctree.findall(nodes.admonition) if CLASS in node["classes"]]
    if not boxes:
        return
    gpus = ran_on(Path(app.env.doc2path(app.env.docname)).read_text(encoding="utf-8"))
    if gpus and len(gpus) != len(boxes):
        raise ExtensionError(f"{app.env.docname}: {len(boxes)} GPU box(es), but {len(gpus)} GPU block(s) ran")
    title = box_title(app, gpus)
    for box in boxes:
        heading = box.next_node(nodes.title)
        if heading is None or heading.astext() != translated(app, TITLE):
            raise ExtensionError(f"{app.env.docname}: a GPU box must be titled {translated(app, TITLE)!r}; "
                                 "the build adds whether it ran")  # fmt: skip
        heading.children = [nodes.Text(title)]


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
