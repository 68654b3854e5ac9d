"""The build runs every example under a seed of its own, so a page whose output depends on random
numbers it does not seed in its own code prints different output in its editions, and the build
refuses it. The pages run here through the build's own hook (``sitetools.guard.example``) and the
build's own comparison of the editions (``sitetools.building.pipeline.verify_examples``)."""

import contextlib
import html
import io
import json
import random

import numpy
import pytest
import torch

from sitetools.building import pipeline
from sitetools.guard import example as example_guard

NAME = "questions/plot_99_dice"
UNSEEDED = "print('roll:', torch.randint(1, 7, (5,)).tolist(), numpy.random.randint(6), random.random())\n"
SEEDED = "torch.manual_seed(0); numpy.random.seed(0); random.seed(0)\n" + UNSEEDED


def _run_as_the_build_does(code: str) -> str:
    """Run ``code`` between the build's "before" and "after" hooks; return what it printed."""
    output = io.StringIO()
    example_guard.reset_torch({}, "plot_99_dice.py", "before")
    try:
        with contextlib.redirect_stdout(output):
            exec(code, {"torch": torch, "numpy": numpy, "random": random})
    finally:
        example_guard.reset_torch({}, "plot_99_dice.py", "after")
    return output.getvalue()


def _build_editions(tmp_path, code: str) -> None:
    """Write the page each edition's run would give, then check them as the build does."""
    out, stage = tmp_path / "html", tmp_path / "stage"
    for lang in ("en", "zh_CN"):
        printed = _run_as_the_build_does(code)
        page = out / lang / pipeline.EXAMPLES_DIR / f"{NAME}.html"
        page.parent.mkdir(parents=True)
        shown = html.escape(printed)
        page.write_text(f'<div class="sphx-glr-script-out highlight-none"><pre>{shown}</pre></div>', encoding="utf-8")
        records = stage / "records" / lang
        records.mkdir(parents=True)
        (records / "plot_99_dice.py.done").write_text(json.dumps({"printed": printed}), encoding="utf-8")
    pipeline.verify_examples(out, stage, ["en", "zh_CN"], {"en": [NAME], "zh_CN": [NAME]})


def test_each_run_of_an_example_draws_other_random_numbers():
    draws = {_run_as_the_build_does(UNSEEDED) for _ in range(3)}
    assert len(draws) == 3, f"three runs of an unseeded page printed {draws}: the build seeds every page alike"


def test_a_page_that_seeds_in_its_own_code_prints_the_same_in_every_run():
    draws = {_run_as_the_build_does(SEEDED) for _ in range(3)}
    assert len(draws) == 1, f"three runs of a seeded page printed {draws}"


def test_the_build_refuses_a_page_whose_output_depends_on_an_unseeded_generator(tmp_path):
    with pytest.raises(pipeline.BuildError, match=r"gallery/zh_CN/questions/plot_99_dice\.py printed other output"):
        _build_editions(tmp_path, UNSEEDED)


def test_the_build_accepts_the_same_page_seeded(tmp_path):
    _build_editions(tmp_path, SEEDED)
