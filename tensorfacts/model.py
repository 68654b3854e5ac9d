"""The claim model: what a claim is, what its check returns, and the registry an article fills.

A claim is a row of the ledger: its text in every edition's language, where it comes from (article
and section) and the gallery page that demonstrates it. Its verdict is never written down: it is
what the claim's check returns when it runs on the installed torch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from editions import pick

#: The verdicts a check may return. ``NOT_A_CLAIM`` is for a row the article never meant as a
#: claim (code that lost its indentation in publishing, a commented-out line): the ledger shows
#: it, and does not count it for or against the article.
HOLDS = "holds"
DOES_NOT_HOLD = "does-not-hold"
OUTPUT_DIFFERS = "output-differs"
NOT_A_CLAIM = "not-a-claim"
VERDICTS = (HOLDS, DOES_NOT_HOLD, OUTPUT_DIFFERS, NOT_A_CLAIM)


def verdict(condition: bool) -> str:
    return HOLDS if condition else DOES_NOT_HOLD


@dataclasses.dataclass(frozen=True)
class Claim:
    """One row of the ledger. Inline code in a text is written between backticks."""

    id: str
    article: str
    section: str
    gallery: str
    texts: Mapping[str, str]  #: edition code -> the claim in that language
    #: edition code -> a note shown under the claim (history, what a word gets wrong); may be empty.
    #: Inline code between backticks, links as ``[text](https://...)``.
    notes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: edition code -> a qualifier the verdict cell shows after the verdict ("in the author's meaning
    #: only"): for a verdict that holds only in a reading the note explains; may be empty.
    qualifiers: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def text(self, language: str) -> str:
        """The claim in ``language``; a missing translation raises (no fallback)."""
        return pick(self.texts, language, f"claim {self.id}")

    def note(self, language: str) -> str:
        """The note in ``language`` ("" when the claim has none; a missing translation raises)."""
        return pick(self.notes, language, f"the note of claim {self.id}") if self.notes else ""

    def qualifier(self, language: str) -> str:
        """The verdict's qualifier in ``language`` ("" when it has none; a missing translation raises)."""
        return pick(self.qualifiers, language, f"the verdict qualifier of claim {self.id}") if self.qualifiers else ""


#: A trace: code and torch's own output only (the same in every edition), or, when it needs words,
#: one text per edition code (see :func:`said`).
Trace = str | Mapping[str, str]


def said(en: str, zh_CN: str) -> dict[str, str]:
    """A trace with words in it, in every edition's language; code goes between backticks."""
    return {"en": en, "zh_CN": zh_CN}


#: What joins two observations of one trace, in each edition's punctuation.
BETWEEN = {"en": "; ", "zh_CN": "；"}


def observed_each(*codes: str) -> dict[str, str]:
    """A trace of several observations, each shown as code and joined by each edition's semicolon.

    Two observations in one piece of code (``requires_grad = False; grad_fn = None``) would show an
    ASCII ``;`` in the middle of the Chinese column: the separator belongs to the sentence, not the code.
    """
    return said(*(BETWEEN[code].join(f"`{piece}`" for piece in codes) for code in ("en", "zh_CN")))


@dataclasses.dataclass(frozen=True)
class Result:
    """What a check returns: a verdict, and a short trace of what torch did.

    ``observed`` is code and torch's own output alone (shown as code in every edition), or a text per
    edition made with :func:`said` (words around backticked code) when the trace needs words.
    """

    verdict: str
    observed: Trace

    @property
    def worded(self) -> bool:
        """True when the trace has words, one text per edition (code between backticks)."""
        return not isinstance(self.observed, str)

    def trace(self, language: str, what: str = "a trace") -> str:
        """The trace in ``language``; a worded trace without that language raises, naming ``what``."""
        if isinstance(self.observed, str):
            return self.observed
        return pick(self.observed, language, f"{what} (tensorfacts.model.said)")


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What running one check produced: a result, or the reason there is none."""

    claim: Claim
    result: Result | None
    problem: str | None = None

    @property
    def verdict(self) -> str | None:
        return self.result.verdict if self.result else None


Check = Callable[[], Result]


class Registry:
    """The claims of one article, in ledger order, and the check of each."""

    def __init__(self, article: str) -> None:
        self.article = article
        self.claims: list[Claim] = []
        self.checks: dict[str, Check] = {}

    def add(self, claim_id: str, section: str, gallery: str, en: str, zh_CN: str, check: Check,
            notes: Mapping[str, str] | None = None, qualifiers: Mapping[str, str] | None = None) -> Claim:
        if not claim_id.startswith(f"{self.article}-") or claim_id in self.checks:
            raise ValueError(f"claim id {claim_id!r}: must be new and start with {self.article}-")
        entry = Claim(claim_id, self.article, section, gallery, {"en": en, "zh_CN": zh_CN}, dict(notes or {}),
                      dict(qualifiers or {}))
        self.claims.append(entry)
        self.checks[claim_id] = check
        return entry

    def claim(self, claim_id: str, section: str, gallery: str, en: str, zh_CN: str,
              notes: Mapping[str, str] | None = None,
              qualifiers: Mapping[str, str] | None = None) -> Callable[[Check], Check]:
        """Declare a claim; the decorated function is its check."""

        def register(check: Check) -> Check:
            self.add(claim_id, section, gallery, en, zh_CN, check, notes, qualifiers)
            return check

        return register

    def rows(self, *rows) -> None:
        """Declare claims given as table rows (objects with ``id, section, gallery, en, zh_CN, check`` and
        ``notes``)."""
        for row in rows:
            self.add(row.id, row.section, row.gallery, row.en, row.zh_CN, row.check, row.notes)
