"""The examples index stays light on a phone: small thumbnails, each lazy and shown at a fixed size.

The unit tests run the thumbnail extension (``tensorcopy_sphinx.gallery_thumbnails``) on images made
here; the site tests measure the built examples index of every edition as a host serves it. The
expected sizes are worked out by hand or read from the files with other tools (Pillow, ElementTree)."""

import gzip
import re
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from docutils import nodes
from PIL import Image

from editions import CODES
from tests.gallery_tools import ROOT, read_page

if str(ROOT / "docs" / "_ext") not in sys.path:
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))  # the extensions' package, as docs/_shared/conf.py does
from tensorcopy_sphinx import gallery_thumbnails  # noqa: E402

#: sphinx-gallery's thumbnail box (its stylesheet: max-width 160px, max-height 112px).
BOX = (160, 112)
#: The most one thumbnail may weigh as served (gzip-compressed where the host compresses it), and the
#: most on average over the cards: sphinx-gallery's default PNG alone weighs 27 KB.
MOST_BYTES, MOST_AVERAGE = 8 * 1024, 4 * 1024
SVG = '<svg xmlns="http://www.w3.org/2000/svg" {}><rect width="1" height="1"/></svg>'


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("size", "shown"), [
    ((403.2, 172.8), (160, 69)),  # wide: the width fills the box, 172.8 * 160 / 403.2 = 68.57
    ((400, 280), (160, 112)),  # the box's own proportions
    ((100, 200), (56, 112)),  # tall: the height fills the box, 100 * 112 / 200 = 56
    ((40, 28), (160, 112)),  # small: scaled up to the box
])  # fmt: skip
def test_a_thumbnail_is_shown_at_its_proportions_fitted_in_the_box(size, shown):
    assert gallery_thumbnails.shown_size(*size) == shown


def test_an_image_without_an_area_is_refused():
    with pytest.raises(ValueError):
        gallery_thumbnails.shown_size(0, 10)


def test_the_natural_size_is_read_from_the_view_box_the_svg_size_or_the_pixels(tmp_path):
    viewbox = write(tmp_path / "a.svg", SVG.format('width="403.2pt" height="172.8pt" viewBox="0 0 403.2 172.8"'))
    assert gallery_thumbnails.natural_size(viewbox) == (403.2, 172.8)
    sized = write(tmp_path / "b.svg", SVG.format('width="50pt" height="20pt"'))
    assert gallery_thumbnails.natural_size(sized) == (50, 20)
    Image.new("RGBA", (40, 30)).save(tmp_path / "c.png")
    assert gallery_thumbnails.natural_size(tmp_path / "c.png") == (40, 30)
    with pytest.raises(ValueError):
        gallery_thumbnails.natural_size(write(tmp_path / "d.svg", SVG.format("")))


def test_a_card_image_becomes_lazy_sized_and_unlinked(tmp_path):
    thumbs = tmp_path / "examples" / "images" / "thumb"
    thumbs.mkdir(parents=True)
    write(thumbs / "sphx_glr_plot_01_x_thumb.svg", SVG.format('viewBox="0 0 200 100"'))
    image = nodes.image(uri="examples/images/thumb/sphx_glr_plot_01_x_thumb.svg")
    assert gallery_thumbnails.THUMBNAIL.search(image["uri"])
    gallery_thumbnails.lighten(image, tmp_path)
    assert (image["loading"], image["width"], image["height"]) == ("lazy", "160", "80")
    assert "no-scaled-link" in image["classes"]  # Sphinx would wrap a sized image in a link to its file
    assert not gallery_thumbnails.THUMBNAIL.search("examples/images/sphx_glr_plot_01_x_001.svg")  # a figure


def test_the_default_thumbnail_is_a_small_svg():
    settings = (ROOT / "docs" / "_shared" / "conf.py").read_text(encoding="utf-8")
    name = re.search(r'"default_thumb_file": str\(DOCS / "_shared" / "([^"]+)"\)', settings)
    assert name, "docs/_shared/conf.py sets no default_thumb_file in docs/_shared"
    default = ROOT / "docs" / "_shared" / name.group(1)
    assert default.suffix == ".svg" and default.stat().st_size < 1024, default
    assert ElementTree.parse(default).getroot().get("viewBox"), "the default thumbnail has no viewBox"


def served_bytes(path: Path) -> int:
    """What a host sends for the file: SVG gzip-compressed, a raster image as it is."""
    data = path.read_bytes()
    return len(gzip.compress(data, mtime=0)) if path.suffix == ".svg" else len(data)


def file_size(path: Path) -> tuple[float, float]:
    """The image's proportions, read without the extension: Pillow, or the SVG's viewBox."""
    if path.suffix != ".svg":
        with Image.open(path) as image:
            return image.size
    _, _, width, height = (float(number) for number in ElementTree.parse(path).getroot().get("viewBox").split())
    return width, height


@pytest.mark.slow
@pytest.mark.parametrize("code", CODES)
def test_the_examples_index_thumbnails_are_light_lazy_and_sized(site_dir, code):
    page = site_dir / code / "examples" / "index.html"
    cards = read_page(page).select("div.sphx-glr-thumbcontainer")
    assert cards, f"{code}/examples/index.html has no cards"
    weights = {}
    for card in cards:
        (image,) = card.find_all("img")
        path = (page.parent / image["src"]).resolve()
        weights[path.name] = served_bytes(path)
        assert image.get("loading") == "lazy", f"{path.name} is not lazy"
        assert image.find_parent("a") is None, f"{path.name} is wrapped in a link to its file"
        width, height = int(image["width"]), int(image["height"])
        natural = file_size(path)
        assert max(width / BOX[0], height / BOX[1]) == pytest.approx(1, abs=0.01), (path.name, width, height)
        assert width / height == pytest.approx(natural[0] / natural[1], rel=0.03), (path.name, width, height, natural)
    heavy = {name: size for name, size in weights.items() if size > MOST_BYTES}
    assert not heavy, f"thumbnails over {MOST_BYTES} bytes as served: {heavy}"
    average = sum(weights.values()) / len(weights)
    assert average <= MOST_AVERAGE, f"the thumbnails weigh {average:.0f} bytes on average as served"
