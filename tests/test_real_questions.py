"""A reader with a real question reaches the answer: every question of ``tests/real_questions.toml`` (asked
in public, each with its thread's address) typed into the built site's search page in Chromium, in both
editions; the answering page must come first, and within the first three, for at least the share the
search holds today (``tests/search_ranks.py``, BUDGET; the goal is 80 % and 95 %), and no query may
list nothing. The report names every query's rank (``python -m tests.search_ranks``
prints the same table)."""

import re
from urllib.parse import urlsplit

import pytest

from tests.search_ranks import BUDGET, QUERY_FIELD, measure, questions, report, shares

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def ranks(browser, site_url):
    return measure(browser, site_url + "/", list(QUERY_FIELD))


def test_the_question_set_is_real_and_large_enough():
    """Each question names the public thread it comes from, and the answers name pages."""
    asked = questions()
    assert len(asked) >= 40, len(asked)
    for question in asked:
        parts = urlsplit(question["url"])
        assert parts.scheme == "https" and parts.netloc, question["url"]
        assert question["query_en"].strip() and question["query_zh"].strip(), question["url"]
        assert question["answers"] and all(re.fullmatch(r"[\w/.-]+\.html", a["page"]) for a in question["answers"])
    assert len({question["url"] for question in asked}) == len(asked), "a thread is listed twice"


@pytest.mark.parametrize("lang", list(QUERY_FIELD))
def test_the_answer_comes_first_for_most_real_questions(ranks, lang):
    mine = [rank for rank in ranks if rank.lang == lang]
    got = shares(mine)
    print(report(mine))
    assert got["empty"] == 0, "\n" + report([r for r in mine if not r.listed])
    floor = BUDGET[lang]
    assert got["first"] >= floor["first"] and got["top3"] >= floor["top3"], "\n" + report(mine)


def test_every_answer_is_a_page_of_both_editions(site_dir):
    missing = sorted({f"{code}/{answer['page']}" for question in questions() for answer in question["answers"]
                      for code in QUERY_FIELD if not (site_dir / code / answer["page"]).is_file()})  # fmt: skip
    assert not missing, missing
