"""A core term's English gloss stands on its first mention only: on the narrative pages below, every later mention
of the term is the word alone (CONTRIBUTING.md, 'Typography')."""

from __future__ import annotations

import re

import pytest

from sitetools.rules import first_mentions
from tests.gallery_tools import ROOT

#: The Chinese narrative pages held to the rule.
PAGES = ("decide", "views", "saved", "matrix")


def glossed_mentions(text: str) -> dict[str, int]:
    """How many mentions of each core term in ``text`` (a page's prose) carry its gloss as a word of their
    parentheses (``视图（`_is_view()` 为真）`` does not)."""
    shown = first_mentions.prose(text)
    counts = {}
    for zh, gloss, mention in first_mentions.FIRST_MENTIONS:
        word = re.compile(rf"(?<![\w.]){re.escape(gloss)}(?![\w(])")
        counts[zh] = sum(1 for found in mention.finditer(shown)
                         if (after := first_mentions._AFTER.match(shown, found.end())) and word.search(after.group(1)))
    return counts


def test_a_gloss_is_counted_as_a_word_of_the_parentheses():
    assert glossed_mentions("视图（view）和视图（`_is_view()` 为真），原地（in-place）与原地修改（in-place）") == {
        **{zh: 0 for zh, _, _ in first_mentions.FIRST_MENTIONS}, "视图": 1, "原地操作": 2}


@pytest.mark.slow  # over a second: writes the prose of the pages' directives
@pytest.mark.parametrize("page", PAGES)
def test_a_core_term_is_glossed_once_on_the_page(page):
    path = ROOT / "docs" / "zh_CN" / f"{page}.md"
    text = "\n".join(part for part, _ in first_mentions._pieces(path, ROOT, "zh_CN"))
    again = {zh: n for zh, n in glossed_mentions(text).items() if n > 1}
    assert not again, f"docs/zh_CN/{page}.md: glossed more than once (keep the first gloss only): {again}"
