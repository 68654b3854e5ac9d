"""The Lighthouse audit (``sitetools/audit.py``) covers every type of page a reader meets, in every
edition: the landing page, the home, an example page with figures, a question page, the ledger, the
matrix and the examples index. The list of types is written here."""

from sitetools import audit
from sitetools.editions import CODES
from tests.gallery_tools import ROOT


def test_the_audit_covers_every_page_type_in_every_edition():
    pages = set(audit.PAGES)
    assert "" in pages, "the landing page is not audited"
    for code in CODES:
        for page in ("index.html", "ledger.html", "matrix.html", "examples/index.html"):
            assert f"{code}/{page}" in pages, f"{code}/{page} is not audited"
        examples = [page.removeprefix(f"{code}/examples/").removesuffix(".html") for page in pages
                    if page.startswith(f"{code}/examples/") and "/plot_" in page]  # fmt: skip
        scripts = {name: ROOT / "gallery" / code / f"{name}.py" for name in examples}
        assert all(script.is_file() for script in scripts.values()), f"{code}: an audited example does not exist"
        drawing = [name for name, script in scripts.items() if "draw_" in script.read_text(encoding="utf-8")]
        assert any(not name.startswith("questions/") for name in drawing), f"{code}: no example page with figures"
        assert any(name.startswith("questions/") for name in examples), f"{code}: no question page"
