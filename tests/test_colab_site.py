"""Open in Colab, on the built site: the notebooks the deploy workflow publishes (``python -m
sitetools.web.colab build/html OUT``) are each page's notebook download, at the path the page's Colab
link names, and they install nothing and say which torch they were verified on."""

import json

from sitetools.web import colab
from tests.gallery_tools import LANGS, gallery_scripts, page_path, read_page, relative_name


def test_every_example_notebook_is_published_where_its_link_points(site_dir, tmp_path):
    written = colab.collect(site_dir, tmp_path)
    expected = {f"{lang}/{relative_name(script)}.ipynb" for lang in LANGS for script in gallery_scripts(lang)}
    assert sorted(written) == sorted(expected)
    for lang in LANGS:
        for script in gallery_scripts(lang):
            page = page_path(site_dir, lang, relative_name(script))
            (href,) = {a["href"] for a in read_page(page).select("a[href]") if a["href"].endswith(".ipynb")}
            published = tmp_path / lang / f"{relative_name(script)}.ipynb"
            assert published.read_bytes() == (page.parent / href).resolve().read_bytes()


def test_a_published_notebook_installs_nothing_and_names_the_torch_it_was_verified_on(site_dir, tmp_path):
    import torch

    colab.collect(site_dir, tmp_path)
    for notebook in sorted(tmp_path.rglob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        stamp = cells[1]  # under the title cell
        assert f"torch {torch.__version__}" in "".join(stamp["source"]), f"{notebook.name}: no torch in cell 2"
        code = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
        assert "pip install" not in code and "!pip" not in code, f"{notebook.name} installs something"
