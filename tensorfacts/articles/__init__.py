"""The ledger's claims: one module per source article, gathered here in ledger order.

``CLAIMS`` lists every claim; ``CHECKS`` maps each claim id to its check (tests may replace one);
``ARTICLES`` and ``SECTIONS`` name the articles and their sections in every edition's language.
"""

from __future__ import annotations

from tensorfacts.articles import copying_000, copying_000_clone, copying_000_detach, data_vs_detach_004
from tensorfacts.model import Check, Claim

#: The source articles, in ledger order.
MODULES = (copying_000, copying_000_clone, copying_000_detach, data_vs_detach_004)

#: Article number -> its title, by edition code.
ARTICLES: dict[str, dict[str, str]] = {m.NUMBER: m.TITLE for m in MODULES}

#: (article, section id) -> the section's heading, by edition code.
SECTIONS: dict[tuple[str, str], dict[str, str]] = {
    (m.NUMBER, section): names for m in MODULES for section, names in m.SECTIONS.items()
}

#: Every claim, in ledger order.
CLAIMS: list[Claim] = [entry for m in MODULES for entry in m.CLAIMS.claims]

#: Claim id -> its check.
CHECKS: dict[str, Check] = {claim_id: check for m in MODULES for claim_id, check in m.CLAIMS.checks.items()}

#: The gallery pages a claim may link to (reference labels, the same in every edition).
GALLERY_LABELS = (
    "copying-alias",
    "copying-safe-copy",
    "copying-clone",
    "copying-detach",
    "copying-rebinding",
    "copying-add-rebinding",
    "data-vs-detach-data",
    "data-vs-detach-detach",
    "data-vs-detach-comparison",
)
