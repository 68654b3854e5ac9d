"""Light thumbnails on the examples index: lazy, sized, and small for a page that draws nothing.

sphinx-gallery gives every example a card on the examples index, with the page's first picture as its
thumbnail (here an SVG of a few KB) or, for a page that draws nothing, its default picture: a PNG of
27 KB that does not compress, so a handful of question pages that answer with printed values made the
index the heaviest page of the site. Their thumbnail is now ``docs/_shared/thumb_no_figure.svg``
(``default_thumb_file`` in ``docs/_shared/conf.py``), under 1 KB.

This extension gives every card's image ``loading="lazy"`` (a phone fetches and draws only the cards it
shows; an SVG image is drawn on the browser's main thread) and the ``width`` and ``height`` it is shown
at: the file's own proportions fitted into sphinx-gallery's thumbnail box, so the grid keeps its place
while the pictures arrive. An image it cannot measure fails the build.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from PIL import Image
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: The box sphinx-gallery's stylesheet shows a thumbnail in (``max-width``, ``max-height`` in px).
BOX = (160, 112)
#: A thumbnail's file, as sphinx-gallery names it: ``…/images/thumb/sphx_glr_<page>_thumb.<ext>``.
THUMBNAIL = re.compile(r"(^|/)images/thumb/sphx_glr_\w+_thumb\.\w+$")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)"


def natural_size(path: Path) -> tuple[float, float]:
    """An image's width and height: an SVG's ``viewBox`` (else its ``width``/``height``), a raster's pixels."""
    if path.suffix.lower() != ".svg":
        with Image.open(path) as image:
            return image.size
    head = path.read_text(encoding="utf-8")
    root = re.search(r"<svg\b[^>]*>", head)
    if root is None:
        raise ValueError(f"{path.name} has no <svg> element")
    box = re.search(rf'viewBox="\s*{_NUMBER}[\s,]+{_NUMBER}[\s,]+({_NUMBER})[\s,]+({_NUMBER})\s*"', root.group(0))
    if box:
        return float(box.group(1)), float(box.group(2))
    sizes = [re.search(rf'\b{name}="({_NUMBER})', root.group(0)) for name in ("width", "height")]
    if not all(sizes):
        raise ValueError(f"{path.name} has neither a viewBox nor a width and a height")
    return float(sizes[0].group(1)), float(sizes[1].group(1))


def shown_size(width: float, height: float, box: tuple[int, int] = BOX) -> tuple[int, int]:
    """The size an image of ``width`` × ``height`` is shown at in ``box``, proportions kept."""
    if width <= 0 or height <= 0:
        raise ValueError(f"an image of {width} x {height} cannot be shown")
    scale = min(box[0] / width, box[1] / height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def lighten(image: nodes.image, srcdir: Path) -> None:
    """Make one thumbnail image lazy and sized (and keep Sphinx from linking a sized image to its file)."""
    width, height = shown_size(*natural_size(srcdir / image["uri"].lstrip("/")))
    image["loading"] = "lazy"
    image["width"], image["height"] = str(width), str(height)
    image["classes"].append("no-scaled-link")


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    for image in doctree.findall(nodes.image):
        if THUMBNAIL.search(image["uri"]):
            try:
                lighten(image, Path(app.srcdir))
            except (OSError, ValueError) as error:
                logger.warning("cannot size the thumbnail %s: %s", image["uri"], error, location=image)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", _doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
