"""The gallery holds scripts in every language, and the worker process that runs page code for the tests
(``tests.gallery_tools``) names a script that ends it. Each script is run by the build (both editions,
warnings as errors) and, as a reader downloads it, by tests/test_downloads.py; its visible code alone
by tests/test_site_fidelity.py."""

import pytest

from tests.gallery_tools import LANGS, ExampleFailed, _Worker, gallery_scripts


def test_there_are_scripts_in_every_language():
    for lang in LANGS:
        assert gallery_scripts(lang), f"gallery/{lang}/ holds no plot_*.py script"


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_a_script_that_ends_its_process_fails_and_is_named(tmp_path):
    script = tmp_path / "plot_ends_early.py"
    script.write_text("import os\nprint('x =', 1 + 1)\nos._exit(0)\n", encoding="utf-8")
    worker = _Worker()  # a worker of its own: the shared one keeps its imports for the other tests
    with pytest.raises(ExampleFailed, match="plot_ends_early.py ended the process"):
        worker.ask({"script": str(script)}, script.name)
    worker.close()
