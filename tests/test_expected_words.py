"""The extensions print the reviewed words of ``tests/expected_words.py``, and each source caption
of the matrix builds the kind of tensor its table is about."""

from __future__ import annotations

import pytest
import torch

from editions import CODES
from tensorfacts import standard_sources
from tests import expected_words
from tests.claims_tools import behaviour_matrix, claims_ledger


@pytest.mark.parametrize("lang", CODES)
def test_the_ledger_prints_the_reviewed_words(lang):
    assert claims_ledger.words(lang) == expected_words.ledger(lang)


@pytest.mark.parametrize("lang", CODES)
def test_the_matrix_prints_the_reviewed_words(lang):
    assert behaviour_matrix.words(lang) == expected_words.matrix(lang)


def test_the_verdict_words_say_what_they_mean():
    """Spelled out once more, so that a reviewed copy with two words swapped fails too."""
    assert (expected_words.LEDGER["en"]["holds"], expected_words.LEDGER["en"]["does-not-hold"]) == (
        "holds", "does not hold")
    assert (expected_words.LEDGER["zh_CN"]["holds"], expected_words.LEDGER["zh_CN"]["does-not-hold"]) == (
        "成立", "不成立")
    assert (expected_words.MATRIX["en"][True], expected_words.MATRIX["en"][False]) == ("yes", "no")
    assert (expected_words.MATRIX["zh_CN"][True], expected_words.MATRIX["zh_CN"][False]) == ("是", "否")


def _kind(a: torch.Tensor) -> dict[str, object]:
    """What tells the matrix's sources apart."""
    return {"type": type(a).__name__, "is_leaf": a.is_leaf, "requires_grad": a.requires_grad,
            "is_view": a._base is not None, "is_inference": a.is_inference(), "values": a.tolist()}


def test_every_source_has_a_reviewed_caption():
    assert set(expected_words.SOURCE_CAPTIONS) == set(standard_sources.SOURCES)


@pytest.mark.parametrize("source", sorted(standard_sources.SOURCE_CODE))
def test_each_caption_is_the_reviewed_one(source):
    assert standard_sources.SOURCE_CODE[source] == expected_words.SOURCE_CAPTIONS.get(source)


@pytest.mark.parametrize("source", sorted(expected_words.SOURCE_CAPTIONS))
def test_each_caption_builds_the_source_of_its_table(source):
    """Run the caption as code: it makes the same kind of tensor as the source the table probes."""
    names: dict[str, object] = {"torch": torch}
    exec(expected_words.SOURCE_CAPTIONS[source], names)
    _, built = standard_sources.SOURCES[source]()
    assert _kind(names["a"]) == _kind(built)


def test_the_caption_check_tells_every_source_apart():
    """No two sources look alike to the check above, or swapping their captions would pass it."""
    kinds = [repr(_kind(standard_sources.SOURCES[s]()[1])) for s in standard_sources.SOURCES]
    assert len(set(kinds)) == len(kinds), kinds
