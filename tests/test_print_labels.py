"""A printed label says what its value is (sitetools/rules/print_labels.py), and a printed time or address is
refused (sitetools/rules/sources.py): each rule on lines that break it, on lines that keep it, and on a real
page of both editions with its label turned into its opposite."""

from __future__ import annotations

import ast

import pytest

from sitetools.rules import print_labels, sources
from tests.gallery_tools import ROOT

CONTRADICTED = [
    'print("separate storage:", same_storage(a, c))',
    'print("own memory:", same_storage(a, c))',
    'print("separate storage:", a.is_leaf)',
    'print("same storage:", not same_storage(a, c))',
    'print("same storage (c, a):", a.is_leaf)',
    'print("shares a\'s memory:", a.untyped_storage().data_ptr() != c.untyped_storage().data_ptr())',
    'print("a now in new memory:", a.untyped_storage().data_ptr() == old)',
    'print("c is a:", c is not a)',
    'print("c is a:", not (c is a))',
    'print("a.data is a.data:", a.data == a.data)',
    'print("is model.weight:", params["weight"] is not model.weight)',
    'print("is model.weight:", params["weight"] is model.bias)',
    'print("same object as before:", layer.weight == weight)',
    'print(f"{name}  same storage: {not same_storage(r, a)}")',
    'print("a:", a, " separate storage:", same_storage(a, b))',
]

AGREED = [
    'print("same storage:", same_storage(a, c))',
    'print("same storage (c, a):", same_storage(c, a))',
    'print("separate storage:", not same_storage(a, c))',
    'print("a now in new memory:", a.untyped_storage().data_ptr() != old)',
    'print("shares a\'s memory:", shares(a, view))',
    'print("c is a:", c is a)',
    'print("a.float() is a:", as_float is a)',
    'print("is model.weight:", params["weight"] is model.weight)',
    'print("same object as before:", layer.weight is weight)',
    'print(f"{name:<31} is a: {name in same!s:<5}  same storage: {same_storage(r, a)}")',
    'print("a.grad:", grad)',
    'print("bytes in view:", view.nelement() * view.element_size())',
    'print("copied:", copied)',
]


@pytest.mark.parametrize("line", CONTRADICTED)
def test_a_label_its_value_contradicts_is_named(line):
    assert len(print_labels.problems(ast.parse(line))) == 1, line


@pytest.mark.parametrize("line", AGREED)
def test_a_label_its_value_agrees_with_passes(line):
    assert print_labels.problems(ast.parse(line)) == []


VOLATILE_PRINTS = {
    "time()": 'import time\nprint("now:", time.time())',
    "time_ns()": 'import time\nprint(time.time_ns())',
    "perf_counter()": 'import time\nprint(f"took {time.perf_counter() - start:.2f} s")',
    "monotonic()": 'import time\nprint("t:", time.monotonic())',
    "now()": 'import datetime\nprint("built at", datetime.datetime.now())',
    "today()": 'import datetime\nprint(datetime.date.today())',
    "utcnow()": 'import datetime\nprint(datetime.datetime.utcnow())',
    "ctime()": 'import time\nprint(time.ctime())',
    "id()": 'print("address:", id(a))',
    "data_ptr()": 'print("address:", a.data_ptr())',
    "hash()": 'print("hash:", hash(a))',
    "uuid4()": 'import uuid\nprint(uuid.uuid4())',
}


@pytest.mark.parametrize("what", sorted(VOLATILE_PRINTS))
def test_a_printed_time_or_address_is_refused(what):
    found = sources.volatile_prints(ast.parse(VOLATILE_PRINTS[what]))
    assert [w for _, w in found] == [what], found


def test_a_compared_time_may_be_printed():
    assert sources.volatile_prints(ast.parse('print("fast:", time.time() - start < 60)')) == []


def test_a_page_whose_label_says_the_opposite_is_refused(tmp_path):
    """A real page, both editions, with "same storage:" turned into "separate storage:"."""
    problems = []
    for lang in ("en", "zh_CN"):
        script = next(s for s in sources.gallery_scripts(lang) if 'print("same storage:", same_storage(' in s.read_text(
            encoding="utf-8"))
        text = script.read_text(encoding="utf-8")
        copy = tmp_path / lang / script.name
        copy.parent.mkdir()
        copy.write_text(text.replace('print("same storage:"', 'print("separate storage:"', 1), encoding="utf-8")
        assert sources.check_script(script, root=ROOT) == []
        problems += sources.check_script(copy, root=tmp_path)
    assert len(problems) == 2 and all("separate storage" in p and "Printing" in p for p in problems), problems
