"""Every gallery script runs on its own, its assertions hold, and no warning escapes it."""

import runpy
import warnings

import pytest
import torch

from tests.gallery_tools import LANGS, gallery_scripts, script_id

SCRIPTS = [script for lang in LANGS for script in gallery_scripts(lang)]


def test_there_are_scripts_in_every_language():
    for lang in LANGS:
        assert gallery_scripts(lang), f"gallery/{lang}/ holds no plot_*.py script"


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_script_runs_and_its_assertions_hold(script, capsys):
    torch.manual_seed(0)
    torch.set_printoptions(profile="default")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runpy.run_path(str(script), run_name="__main__")
    assert capsys.readouterr().out.strip(), f"{script_id(script)} printed nothing"
