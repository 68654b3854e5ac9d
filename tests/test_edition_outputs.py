"""The editions draw the same figures and no page is too heavy (sitetools/building/edition_outputs.py), on
known-good and known-bad built pages made here; the build's own use is in tests/test_gate_faults.py."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from sitetools.building import edition_outputs

NAME = "part/plot_01_probe"


def _page(root: Path, lang: str, colours: list[tuple[int, int, int]], **png) -> Path:
    folder = root / lang / "examples" / "part"
    (folder / "images").mkdir(parents=True, exist_ok=True)
    tags = []
    for number, colour in enumerate(colours, start=1):
        image = folder / "images" / f"sphx_glr_plot_01_probe_{number:03}.png"
        Image.new("RGB", (8, 6), colour).save(image, **png)
        tags.append(f'<img alt="" src="images/{image.name}" />')
    thumb = folder / "images" / "sphx_glr_plot_01_probe_thumb.png"
    Image.new("RGB", (2, 2), colours[0] if colours else (0, 0, 0)).save(thumb)
    page = folder / "plot_01_probe.html"
    page.write_text(f'<html><body>{"".join(tags)}<img src="images/{thumb.name}"/></body></html>', encoding="utf-8")
    return page


def test_the_same_picture_in_both_editions_passes(tmp_path):
    pages = {NAME: {"en": _page(tmp_path, "en", [(1, 2, 3), (4, 5, 6)]),
                    "zh_CN": _page(tmp_path, "zh_CN", [(1, 2, 3), (4, 5, 6)])}}  # fmt: skip
    assert edition_outputs.figure_problems(pages, "en") == []


def test_the_same_pixels_in_other_png_bytes_pass(tmp_path):
    pages = {NAME: {"en": _page(tmp_path, "en", [(1, 2, 3)], compress_level=0),
                    "zh_CN": _page(tmp_path, "zh_CN", [(1, 2, 3)], compress_level=9)}}  # fmt: skip
    first, second = (edition_outputs.figures(page)[0] for page in pages[NAME].values())
    assert first.read_bytes() != second.read_bytes()
    assert edition_outputs.figure_problems(pages, "en") == []


def test_a_figure_drawn_differently_is_named(tmp_path):
    pages = {NAME: {"en": _page(tmp_path, "en", [(1, 2, 3), (4, 5, 6)]),
                    "zh_CN": _page(tmp_path, "zh_CN", [(1, 2, 3), (4, 5, 7)])}}  # fmt: skip
    problems = edition_outputs.figure_problems(pages, "en")
    assert len(problems) == 1 and problems[0].startswith(f"gallery/zh_CN/{NAME}.py drew figure 2 differently")


def test_a_missing_figure_is_named(tmp_path):
    pages = {NAME: {"en": _page(tmp_path, "en", [(1, 2, 3), (4, 5, 6)]),
                    "zh_CN": _page(tmp_path, "zh_CN", [(1, 2, 3)])}}  # fmt: skip
    assert edition_outputs.figure_problems(pages, "en") == [
        f"gallery/zh_CN/{NAME}.py drew 1 figures, gallery/en/{NAME}.py 2 (see CONTRIBUTING.md, 'Figures')"]


def _svg_page(root: Path, lang: str, text: str) -> Path:
    folder = root / lang / "examples" / "part"
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "images" / "sphx_glr_plot_01_probe_001.svg").write_text(f"<svg><text>{text}</text></svg>")
    page = folder / "plot_01_probe.html"
    page.write_text('<img alt="" src="images/sphx_glr_plot_01_probe_001.svg" class="sphx-glr-single-img"/>')
    return page


def test_svg_figures_are_compared_byte_for_byte(tmp_path):
    same = {NAME: {"en": _svg_page(tmp_path / "a", "en", "a: 1"), "zh_CN": _svg_page(tmp_path / "a", "zh_CN", "a: 1")}}
    assert edition_outputs.figure_problems(same, "en") == []
    other = {NAME: {"en": _svg_page(tmp_path / "b", "en", "a: 1"), "zh_CN": _svg_page(tmp_path / "b", "zh_CN", "a: 2")}}
    assert len(edition_outputs.figure_problems(other, "en")) == 1


def test_a_page_over_the_weight_limit_is_named(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "light.html").write_text("x" * 1024)
    (tmp_path / "en" / "heavy.html").write_text("x" * (3 * 1024 + 1))
    problems = edition_outputs.weight_problems(tmp_path, limit_kb=3)
    assert len(problems) == 1 and problems[0].startswith("en/heavy.html weighs 3 KB, over the limit of 3 KB")
