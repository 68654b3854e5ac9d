"""Stable, readable anchors for headings that docutils can only number.

docutils derives a section's id from its title in ASCII; a Chinese title has none, so the section gets
``id1``, ``id2``…: a shared link says nothing and points elsewhere once a heading is added above it.
This transform gives every such section an id made from its own title (or keeps only its label's id,
when it has one) (:func:`slug`: letters of any
script and digits kept, everything else one hyphen), unique within the page, so
``#detach-同一块内存-脱离计算图`` reads as the heading and stays the same on every build while the
heading stays the same. References to the old id in the page are updated with it.
"""

import re
import unicodedata

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

_NUMBERED = re.compile(r"^id\d+$")


def slug(title: str) -> str:
    """``'detach()：同一块内存，脱离计算图'`` -> ``'detach-同一块内存-脱离计算图'``; '' for no letters."""
    text = unicodedata.normalize("NFKC", title).lower()
    return "-".join(re.findall(r"[^\W_]+", text))


class ReadableSectionIds(SphinxTransform):
    default_priority = 870  # after references resolve (850), before doctree-read (880) collects the contents

    def apply(self, **kwargs) -> None:
        document = self.document
        renamed = {}
        for section in document.findall(nodes.section):
            numbered = [name for name in section["ids"] if _NUMBERED.match(name)]
            readable = [name for name in section["ids"] if not _NUMBERED.match(name)]
            if not numbered:
                continue
            if not readable:  # no id from the title or a label: make one from the title
                base = slug(section[0].astext()) if section.children else ""
                if not base:
                    continue
                new, count = base, 1
                while new in document.ids:
                    count += 1
                    new = f"{base}-{count}"
                readable = [new]
                document.ids[new] = section
            section["ids"] = readable
            for old in numbered:
                document.ids.pop(old, None)
                renamed[old] = readable[0]
        if renamed:
            for name, target in list(document.nameids.items()):
                if target in renamed:
                    document.nameids[name] = renamed[target]
            for node in document.findall(nodes.Element):
                if node.get("refid") in renamed:
                    node["refid"] = renamed[node["refid"]]


def setup(app: Sphinx) -> dict:
    app.add_transform(ReadableSectionIds)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
