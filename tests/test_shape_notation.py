"""The facts page writes a shape one way, as the rest of the site does: ``3×4``, never ``3 x 4`` or ``3 × 4``."""

from __future__ import annotations

import re

import pytest

#: A shape written another way: ``3 x 4``, ``3x4`` or ``3 × 4``.
OTHER_SHAPE = re.compile(r"\b\d+(?: ?x ?| × )\d+\b")


def test_a_shape_is_written_one_way():
    assert OTHER_SHAPE.findall("3 x 4, 3x4, 3 × 4, 3×4") == ["3 x 4", "3x4", "3 × 4"]


@pytest.mark.slow  # over a second: imports every fact
def test_the_facts_page_writes_shapes_as_the_site_does():
    from tensorfacts import facts

    found = [(name, edition, shape) for name, about in facts.ABOUT.items() for texts in (about.runs, about.scope)
             if isinstance(texts, dict) for edition, text in texts.items() for shape in OTHER_SHAPE.findall(text)]
    assert not found, f"write a shape as 3×4 (no spaces): {found}"
