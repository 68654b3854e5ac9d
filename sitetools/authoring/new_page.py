"""Start a new example page in every edition from the template:

    python -m sitetools.authoring.new_page PART/plot_NN_short_name

Writes ``gallery/<code>/PART/plot_NN_short_name.py`` for every edition (and the part's
``GALLERY_HEADER.rst`` if the part is new), then tells you what to fill in. Never overwrites a file.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from editions import CODES
from sitetools.rules import answer_box
from sitetools.rules.sources import GALLERY, HEADER

TEMPLATE = Path(__file__).with_name("page_template.py")
#: The line of the template that the drawing helpers replace, and the line of figure_cell.py they start on.
HELPERS_MARK = re.compile(r"^# FIGURE-HELPERS .*$", flags=re.M)
HELPERS_START = "import matplotlib.pyplot as plt"
#: The template's line that a question page's answer box replaces (sitetools/rules/answer_box.py); elsewhere it goes.
ANSWER_MARK = "ANSWER-BOX\n"
ANSWER_BOX = """
.. admonition:: {title}
   :class: answer

   The cause, in one sentence. The fix, in one short sentence:

   .. code-block:: python

      a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
      d = a.detach()

"""


def helper_cell() -> str:
    """The drawing helpers every drawing page carries: ``sitetools/authoring/figure_cell.py`` from its matplotlib
    import on, as it stands (the page's download must run on its own, so the cell is copied)."""
    source = Path(__file__).with_name("figure_cell.py").read_text(encoding="utf-8")
    return source[source.index(f"\n{HELPERS_START}\n") :].strip()


def page_text(label: str, part: str = "", code: str = CODES[0]) -> str:
    """The template with its reference label and the drawing helpers filled in, and in a question page
    the answer box, titled in edition ``code``'s language, that the page must open with."""
    text = TEMPLATE.read_text(encoding="utf-8").replace("PART-TOPIC", label)
    box = ANSWER_BOX.format(title=answer_box.TITLES[code]) if part == answer_box.PART else "\n"
    return HELPERS_MARK.sub(lambda _: helper_cell(), text.replace(ANSWER_MARK, box, 1), count=1)
NAME = re.compile(r"^[a-z0-9_]+/plot_\d\d_[a-z0-9_]+$")


def label_of(name: str) -> str:
    """The reference label of page ``PART/plot_NN_short_name``: ``part-short-name``."""
    part, stem = name.split("/")
    return f"{part}-{stem.split('_', 2)[2].replace('_', '-')}"


def create(name: str, gallery: Path = GALLERY) -> list[Path]:
    """Create the page ``name`` in every edition; return the files written."""
    if not NAME.match(name):
        raise ValueError(f"{name!r}: expected PART/plot_NN_short_name, for example questions/plot_01_inplace_error")
    part, stem = name.split("/")
    targets = [gallery / code / part / f"{stem}.py" for code in CODES]
    if existing := [t for t in targets if t.exists()]:
        raise FileExistsError(f"already there: {', '.join(map(str, existing))}")
    written = []
    for code, target in zip(CODES, targets, strict=True):
        target.parent.mkdir(parents=True, exist_ok=True)
        header = target.parent / HEADER
        if not header.exists():
            title = part.replace("_", " ").capitalize()
            header.write_text(f"{title}\n{'-' * len(title)}\n\nWhat this part answers, in a sentence.\n", "utf-8")
            written.append(header)
        target.write_text(page_text(label_of(name), part, code), encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="PART/plot_NN_short_name")
    args = parser.parse_args(argv)
    try:
        written = create(args.name)
    except (ValueError, FileExistsError) as error:
        print(f"new_page: {error}", file=sys.stderr)
        return 2
    print("wrote:\n  " + "\n  ".join(str(p.relative_to(GALLERY.parent)) for p in written))
    print(f"Next: write the page in {CODES[0]} (title, label, cells), preview it with `nox -s preview -- {args.name}` "
          f"(a preview runs checks that gallery/asserts.json does not record yet), copy it into the other editions "
          f"with `python -m sitetools.authoring.sync {args.name}` (a page still as written here takes the whole page) "
          f"and translate their text, record its checks with "
          "`python -m sitetools.rules.checks_manifest --update`, then run `nox -s fast` and commit.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
