"""The build's settings have one way in (sitetools/settings.py): no other module of the project names the
variables that carry them, and unset ones take their documented defaults."""

import re

import pytest

from sitetools import settings
from tests.test_house import project_modules

NAMES = (settings.RECORDS, settings.TIMEOUT, settings.CHECKOUT, settings.SITE_URL, settings.SITE_REPOSITORY,
         settings.SITE_BRANCH)  # fmt: skip


@pytest.mark.slow  # over a second: builds a mini-site or a preview, runs the facts, or reads every page
def test_no_other_module_reads_the_settings_variables():
    names = "|".join(map(re.escape, NAMES))
    pattern = re.compile(rf"""["']({names})["']""")
    readers = {name: path for name, path in project_modules().items() if name != "sitetools.settings"
               and pattern.search(path.read_text(encoding="utf-8"))}  # fmt: skip
    assert not readers, f"read the settings through sitetools.settings.current(), not by name: {sorted(readers)}"


def test_unset_settings_take_their_defaults(monkeypatch):
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    given = settings.current()
    assert (given.records, given.checkout, given.site_url, given.repository) == (None, None, "", "")
    assert (given.example_timeout, given.branch) == (180.0, "main")


def test_the_build_passes_what_the_sphinx_process_reads(monkeypatch, tmp_path):
    for name, value in settings.for_sphinx(records=tmp_path / "r", timeout=7.5, checkout=tmp_path).items():
        monkeypatch.setenv(name, value)
    given = settings.current()
    assert (given.records, given.example_timeout, given.checkout) == (tmp_path / "r", 7.5, tmp_path)


def test_a_timeout_that_is_no_number_is_named(monkeypatch):
    monkeypatch.setenv(settings.TIMEOUT, "soon")
    with pytest.raises(ValueError, match=f"{settings.TIMEOUT}='soon' is not a number"):
        settings.current()
