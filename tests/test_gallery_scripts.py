"""Every gallery script runs on its own (as a reader's download would), its assertions hold, and no
warning escapes it. Scripts run in a worker process, never inside pytest."""

import pytest

from tests.gallery_tools import LANGS, ExampleFailed, _Worker, gallery_scripts, run_script, script_id

SCRIPTS = [script for lang in LANGS for script in gallery_scripts(lang)]


def test_there_are_scripts_in_every_language():
    for lang in LANGS:
        assert gallery_scripts(lang), f"gallery/{lang}/ holds no plot_*.py script"


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_script_runs_and_its_assertions_hold(script):
    assert run_script(script).strip(), f"{script_id(script)} printed nothing"


def test_a_script_that_ends_its_process_fails_and_is_named(tmp_path):
    script = tmp_path / "plot_ends_early.py"
    script.write_text("import os\nprint('x =', 1 + 1)\nos._exit(0)\n", encoding="utf-8")
    worker = _Worker()  # a worker of its own: the shared one keeps its imports for the other tests
    with pytest.raises(ExampleFailed, match="plot_ends_early.py ended the process"):
        worker.ask({"script": str(script)}, script.name)
    worker.close()
