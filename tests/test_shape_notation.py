"""The facts page writes a shape one way, as the rest of the site does: ``3×4``, never ``3 x 4`` or ``3 × 4``.
A fact whose texts write it another way is refused when it registers (``tensorfacts/fact_registry.py``), so
importing the facts, which the build and every test of a fact do, names it."""

from __future__ import annotations

import pytest

from tensorfacts.fact_registry import ABOUT, FACTS, OTHER_SHAPE, Fact, fact


def test_a_shape_is_written_one_way():
    assert OTHER_SHAPE.findall("3 x 4, 3x4, 3 × 4, 1 × n, n × 2, 3×4, 1×n, x4, 4 sources × 3 modes") == [
        "3 x 4", "3x4", "3 × 4", "1 × n", "n × 2"]


@pytest.mark.parametrize("where", ["runs", "scope"])
def test_a_fact_that_writes_a_shape_another_way_is_refused_with_its_file_and_line(where):
    texts = {"en": "a 2×3 tensor", "zh_CN": "2×3 张量"}
    wrong = {"en": "a 2 x 3 tensor", "zh_CN": "2 × 3 张量"}

    def probe() -> Fact:
        raise AssertionError("never run")

    with pytest.raises(ValueError, match=r"^tests/test_shape_notation\.py:\d+: fact 'shape-probe' writes the shapes"):
        fact("shape-probe", runs=wrong if where == "runs" else texts, scope=wrong if where == "scope" else texts)(probe)
    assert "shape-probe" not in FACTS
    fact("shape-probe-written-right", runs=texts, scope=texts)(probe)  # the control: registered
    assert FACTS.pop("shape-probe-written-right") is probe and ABOUT.pop("shape-probe-written-right")
