"""The GPU box says whether this build ran its checks, and on which GPU, from what the build knows.

A page states GPU-only behaviour in a box, ``.. admonition:: On a GPU`` with ``:class: note gpu-box``
(the title in the page's language), followed by a code cell whose checks sit in a GPU block,
``if torch.cuda.is_available():``, that ends by printing ``sitetools.releases.rerun_cell.GPU_MARK`` and the
GPU's name (:func:`sitetools.rules.gpu_box.check_gpu_boxes` holds pages to this form). The title never comes
from the page's output (a page can print the mark anywhere): it says "On a GPU (executed by this build
on <GPU>)" only when torch in this Sphinx process has a GPU and the build's own record of the lines the
page ran (:func:`sitetools.guard.example.gpu_blocks_ran`, from :mod:`sitetools.guard.check_runs`) shows that
the block ran to its last line, after every check in it; the GPU's name is asked of torch here. Else
"On a GPU (not executed by this build)". The notebook's box (:mod:`tensorcopy_sphinx.notebook_text`) has
the same title, in the same words (:func:`box_title`): "this build" is the site's build, which stays true
when the reader runs the notebook again. The verified-on stamp counts the GPU checks only when they
ran (:mod:`tensorcopy_sphinx.verified_stamp`).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from sitetools.for_sphinx import gpu_blocks_ran
from tensorcopy_sphinx.theme_i18n import translated

CLASS = "gpu-box"
TITLE = "On a GPU"
RAN = "On a GPU (executed by this build on {gpu})"
NOT_RAN = "On a GPU (not executed by this build)"


def ran_on(name: str) -> list[str]:
    """The GPU each GPU block of example ``name`` (``questions/plot_13_module_to``) ran on in this build, for
    the blocks that ran: empty without a GPU, or when no block ran to its end. Read from the build's
    record of the lines that ran, never from the page's output."""
    ran = gpu_blocks_ran(name)
    if not any(ran):
        return []
    import torch

    if not torch.cuda.is_available():
        return []
    device = torch.cuda.get_device_name()
    return [device for block in ran if block]


def example_name(app: Sphinx, docname: str) -> str | None:
    """``examples/questions/plot_13_module_to`` -> ``questions/plot_13_module_to`` (None for other pages)."""
    prefix = app.config.sphinx_gallery_conf["gallery_dirs"][0] + "/"
    return docname.removeprefix(prefix) if docname.startswith(prefix) else None


def box_title(app: Sphinx, gpus: list[str]) -> str:
    """The title of a GPU box, on the page and in its notebook, in the edition's language: executed on
    ``gpus[0]``, or not executed."""
    return translated(app, RAN).format(gpu=gpus[0]) if gpus else translated(app, NOT_RAN)


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    boxes = [node for node in doctree.findall(nodes.admonition) if CLASS in node["classes"]]
    if not boxes:
        return
    name = example_name(app, app.env.docname)
    gpus = ran_on(name) if name else []
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
