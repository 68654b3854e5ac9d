"""The one table of language editions: every part of the site reads its language facts here.

An edition is a row: its code (the folder name under ``docs/`` and ``gallery/`` and the output folder),
the Sphinx ``language``, the BCP-47 tag used in ``<html lang>`` and ``hreflang``, the name shown in the
language switch, the noun prose names the language with (the 中英对照 button's words; each edition's
catalog translates it), the site title, and the search options. Looking up an unknown code raises
:class:`UnknownEdition`; there is no fallback to English anywhere.

Adding a language is one row here plus its texts (its ``docs/<code>/`` and ``gallery/<code>/`` folders
and the translated strings each extension asks for, which fail loudly when missing).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class UnknownEdition(LookupError):
    """A language code that is not a row of :data:`EDITIONS`."""


@dataclasses.dataclass(frozen=True)
class Edition:
    code: str  #: folder name under docs/, gallery/ and the output (``zh_CN``)
    sphinx_language: str  #: Sphinx's ``language`` setting
    tag: str  #: BCP-47 tag for ``<html lang>`` and ``hreflang`` (``zh-CN``)
    name: str  #: the language's own name, shown in the language switch
    noun: str  #: the language as English prose names it ("Chinese"); each catalog translates it (中文)
    title: str  #: the site title in this language
    cjk: bool = False  #: text without spaces between words (line-break joining, search segmentation)
    search_dict: str | None = None  #: jieba user dictionary, relative to the repository root

    @property
    def search_options(self) -> dict:
        return {"dict": str(ROOT / self.search_dict)} if self.search_dict else {}


#: The editions, in the order the landing page and the language switch list them.
EDITIONS: tuple[Edition, ...] = (
    Edition(code="en", sphinx_language="en", tag="en", name="English", noun="English",
            title="Tensor copies in PyTorch"),
    Edition(
        code="zh_CN",
        sphinx_language="zh_CN",
        tag="zh-CN",
        name="简体中文",
        noun="Chinese",
        title="PyTorch 张量复制指南",
        cjk=True,
        search_dict="docs/_shared/zh_search_terms.txt",
    ),
)

#: The edition codes, in table order.
CODES: tuple[str, ...] = tuple(edition.code for edition in EDITIONS)


def edition(code: str) -> Edition:
    """The row for ``code``, which may be an edition code or a Sphinx language; raises if unknown."""
    for row in EDITIONS:
        if code in (row.code, row.sphinx_language):
            return row
    raise UnknownEdition(f"unknown language edition {code!r}; the editions are {', '.join(CODES)} "
                         f"(editions/__init__.py)")


def pick(texts: dict[str, object], code: str, what: str) -> object:
    """``texts[code]`` for a translated string table; a missing translation raises, naming ``what``."""
    row = edition(code)
    try:
        return texts[row.code]
    except KeyError:
        raise UnknownEdition(f"{what} has no {row.code} text; add it beside the others") from None
