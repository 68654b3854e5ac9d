"""What the editions' built example pages must share, beyond their printed output, and how heavy a
page may be.

The drawing helpers put only code into a picture (names, ``grad_fn`` names, numbers; see
:mod:`sitetools.authoring.figure_cell`), and captions and alt text live outside the image, in the page's text;
the pictures are SVG files written without date, creator or random ids
(``tensorcopy_sphinx.gallery_figures.svg_scraper``), so two runs of the same code write the same bytes.
So the same code must draw the same picture in every edition, and there is no translated text to
leave out: :func:`figure_problems` compares each example page's figures with its twin's byte for byte
(a PNG, if a page ever makes one, pixel for pixel when its bytes differ), as
:func:`sitetools.building.pipeline.verify_examples` compares printed output. A figure drawn from unseeded random
numbers, the clock or anything else that changes from run to run differs.

:func:`weight_problems` refuses a built HTML page heavier than :data:`PAGE_LIMIT_KB` (a page that prints
a list of a million numbers weighs megabytes in every edition).
"""

from __future__ import annotations

import re
from pathlib import Path

#: The heaviest page of a clean build weighed 158 KB (``zh_CN/examples/data_vs_detach/plot_03_comparison``,
#: measured when the limit was set); the limit leaves room for growth, not for a page ten times larger.
PAGE_LIMIT_KB = 400
IMAGE = re.compile(r'<img\b[^>]*\bsrc="([^"]*sphx_glr_[^"]*\.(?:svg|png))"')
GUIDE = "(see CONTRIBUTING.md, 'Figures')"


def figures(page: Path) -> list[Path]:
    """The sphinx-gallery figures an example page shows, in page order (thumbnails excluded)."""
    html = page.read_text(encoding="utf-8")
    return [(page.parent / src).resolve() for src in IMAGE.findall(html) if "_thumb" not in src]


def _same_picture(a: Path, b: Path) -> bool:
    if a.read_bytes() == b.read_bytes():
        return True
    if a.suffix != ".png" or b.suffix != ".png":
        return False
    from PIL import Image

    with Image.open(a) as first, Image.open(b) as second:
        return first.size == second.size and first.convert("RGBA").tobytes() == second.convert("RGBA").tobytes()


def figure_problems(pages: dict[str, dict[str, Path]], reference: str) -> list[str]:
    """``pages``: example name -> language -> built page. One problem for each figure of an edition
    that differs from the reference edition's."""
    problems = []
    for name, by_lang in sorted(pages.items()):
        if reference not in by_lang:
            continue
        theirs = figures(by_lang[reference])
        for lang, page in sorted(by_lang.items()):
            if lang == reference:
                continue
            mine = figures(page)
            if len(mine) != len(theirs):
                problems.append(f"gallery/{lang}/{name}.py drew {len(mine)} figures, gallery/{reference}/{name}.py "
                                f"{len(theirs)} {GUIDE}")
                continue
            for number, (a, b) in enumerate(zip(theirs, mine, strict=True), start=1):
                if not (a.exists() and b.exists()) or not _same_picture(a, b):
                    problems.append(
                        f"gallery/{lang}/{name}.py drew figure {number} differently from gallery/{reference}/"
                        f"{name}.py: the same code gave two pictures (unseeded randomness, the clock?) {GUIDE}"
                    )
    return problems


def weight_problems(out: Path, limit_kb: int = PAGE_LIMIT_KB) -> list[str]:
    """One problem for each HTML page under ``out`` heavier than ``limit_kb``."""
    return [
        f"{page.relative_to(out).as_posix()} weighs {page.stat().st_size // 1024} KB, over the limit of "
        f"{limit_kb} KB a page (sitetools/building/edition_outputs.py): print a summary, not every value"
        for page in sorted(out.rglob("*.html"))
        if page.stat().st_size > limit_kb * 1024
    ]
