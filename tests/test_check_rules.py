"""A check that cannot fail, or whose failure is swallowed, and a hidden block that changes what the
page shows are refused before anything runs (sitetools/rules/checks.py, sitetools/rules/folding.py), naming
the file and line; the checks the pages really make pass."""

from __future__ import annotations

import ast

import pytest

from sitetools.rules import checks as check_rules
from sitetools.rules import checks_manifest, folding

WHERE = "gallery/en/part/plot_00_probe.py"
START, END = "# sphinx_gallery_start_ignore", "# sphinx_gallery_end_ignore"

REFUSED = {
    "true-or": "assert True or same_storage(a, b)",
    "or-true": "assert same_storage(a, b) or True",
    "tuple": 'assert (same_storage(a, b), "shared")',
    "folded-compare": "assert 1 + 1 == 2",
    "not-false": "assert not False",
    "constant-if-expression": "assert same_storage(a, b) if False else 1",
    "same-name": "assert a is a",
    "f-string-with-text": 'assert f"{a}!"',
    "if-false": "if False:\n    assert same_storage(a, b)",
    "if-zero": "if 0:\n    assert same_storage(a, b)",
    "while-false": "while False:\n    assert same_storage(a, b)",
    "except-assertion-error": "try:\n    assert same_storage(a, b)\nexcept AssertionError:\n    pass",
    "bare-except": "try:\n    assert same_storage(a, b)\nexcept:\n    pass",
    "except-exception-tuple": "try:\n    assert same_storage(a, b)\nexcept (ValueError, Exception):\n    pass",
    "try-without-else": "try:\n    a.view(-1, 5)\nexcept RuntimeError as e:\n    print(type(e).__name__)",
    "try-else-prints": ("try:\n    a.view(-1, 5)\nexcept RuntimeError as e:\n    print(type(e).__name__)\nelse:\n"
                        "    print('no error')"),
    "hidden-try-finally": f"{START}\ntry:\n    a.view(-1, 5)\nfinally:\n    pass\n{END}",
    "suppress": "import contextlib\nwith contextlib.suppress(AssertionError):\n    assert same_storage(a, b)",
    "hidden-dunder-in-place": f"{START}\na.__iadd__(1)\n{END}",
    "hidden-out-argument": f"{START}\ntorch.add(a, 1, out=a)\n{END}",
    "hidden-inplace-module": f"{START}\ntorch.nn.ReLU(inplace=True)(a)\n{END}",
    "hidden-inplace-functional": f"{START}\ntorch.nn.functional.relu(a, inplace=flag)\n{END}",
    "hidden-inplace-module-kept": f"{START}\nrelu = torch.nn.ReLU(inplace=True)\nrelu(a.sum())\n{END}",
    "hidden-setattr": f"{START}\nsetattr(a, 'grad', None)\n{END}",
    "hidden-numpy-positional-out": f"import numpy as np\n{START}\nnp.multiply(a.numpy(), 0, a.numpy())\n{END}",
    "hidden-numpy-ufunc-at": f"import numpy as np\n{START}\nnp.add.at(np.asarray(a), 0, 1)\n{END}",
    "hidden-numpy-handle-bound": f"{START}\nview = a.numpy()\n{END}",
    "hidden-numpy-handle-fill": f"{START}\na.numpy().fill(0)\n{END}",
    "hidden-array-interface": f"{START}\nassert a.__array__() is not None\n{END}",
    "hidden-memoryview": f"{START}\nassert memoryview(a.numpy()).nbytes == 12\n{END}",
    "hidden-data-method": f"{START}\na.data.mul(0)\n{END}",
    "hidden-augmented-assignment": f"{START}\nb += 1\n{END}",
    "hidden-del-element": f"values = [1, 2]\n{START}\ndel values[0]\n{END}",
    "hidden-loop-target-element": f"values = [1, 2]\n{START}\nfor values[0] in range(3):\n    pass\n{END}",
    "hidden-getattr-of-a-method": f"{START}\ngetattr(a, 'add_')(1)\n{END}",
    "hidden-clears-a-visible-list": f"values = [1, 2]\n{START}\nvalues.clear()\n{END}",
    "hidden-backward-through-visible": (f"w = torch.ones(2, requires_grad=True)\n{START}\n"
                                        f"(w * 2).sum().backward()\n{END}"),
    "starts-apart-said-as-no-memory-shared": 'assert not same_storage(a, b), "the copy has memory of its own"',
    "starts-apart-in-any": 'assert not any(same_storage(a, t) for t in (b,)), "copies on new memory"',
    "starts-apart-without-a-message": "assert not same_storage(a, b)",
}

ALLOWED = {
    "computed": "assert same_storage(a, b)",
    "attribute-twice": "assert a.data is not a.data",
    "two-names": "assert a is not b",
    "must-raise": ("try:\n    a.view(-1, 5)\nexcept RuntimeError as e:\n    print(type(e).__name__)\nelse:\n"
                   "    raise AssertionError('must raise')"),
    "try-in-a-function": ("def attempt(x):\n    try:\n        return x.view(-1, 5)\n    except RuntimeError as e:\n"
                          "        return type(e).__name__\n\nprint(attempt(a))"),
    "visible-dunder": "a.__iadd__(1)",
    "hidden-plain-check": f"{START}\nassert a.sum() == 3\n{END}",
    "hidden-numpy-reads": (f"import numpy as np\n{START}\nassert np.array_equal(a.numpy(), np.asarray(a))\n"
                           f"assert a.numpy().copy() is not a.numpy() and a.data is not a\n{END}"),
    "hidden-data-version": f"{START}\nassert a.data._version == 0\n{END}",
    "hidden-own-list": f"{START}\nseen = []\nseen.append(a.sum())\nassert len(seen) == 1\n{END}",
    "hidden-backward-of-its-own": f"{START}\nw = torch.ones(2, requires_grad=True)\n(w * 2).sum().backward()\n{END}",
    "hidden-getattr-of-a-value": f"{START}\nassert getattr(a, 'is_leaf')\n{END}",
    "hidden-inplace-false": f"{START}\nassert torch.nn.ReLU(inplace=False)(a).sum() == 3\n{END}",
    "hidden-inplace-on-its-own": f"{START}\nc = a * 2\ntorch.nn.ReLU(inplace=True)(c)\nassert c.sum() == 6\n{END}",
    "starts-apart-said-of-storages": 'assert not same_storage(a, b), "an alias with a storage of its own"',
    "no-memory-shared-by-bytes": 'assert bytes_apart(a, b), "the copy has memory of its own"',
}


def _source(code: str) -> str:
    return "import torch\na = torch.ones(3)\nb = a\n\ndef same_storage(x, y):\n    return x is y\n\n" + code + "\n"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_check_that_cannot_fail_or_a_changing_hidden_block_is_refused(name):
    source = _source(REFUSED[name])
    problems = check_rules.check_source(WHERE, source)
    assert problems, f"{name} passed the check rules:\n{source}"
    assert all(p.startswith(f"{WHERE}, line ") for p in problems)
    first = source.splitlines().index(REFUSED[name].splitlines()[0]) + 1
    assert any(int(p.split(", line ")[1].split(":")[0]) >= first for p in problems), problems


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_a_check_that_can_fail_passes(name):
    assert check_rules.check_source(WHERE, _source(ALLOWED[name])) == []


@pytest.mark.parametrize(("expression", "expected"), [
    ("x", None), ("x or True", True), ("x and False", False), ("(x,)", True), ("()", False),
    ("not (x or 1)", False), ("x == 1", None), ("'a' + 'b' == 'ab'", True), ("x if y else z", None),
])  # fmt: skip
def test_folding_knows_a_truth_only_when_constants_decide_it(expression, expected):
    assert folding.truth(ast.parse(expression, mode="eval").body) is expected


def test_moving_a_visible_check_into_a_hidden_block_is_refused_by_the_update():
    old = {"part/plot_01": ["assert same_storage(a, b)", "assert x (hidden)"]}
    moved = {"part/plot_01": ["assert same_storage(a, b) (hidden)", "assert x (hidden)"]}
    assert checks_manifest.hidden_claims(old, moved) == ["part/plot_01: assert same_storage(a, b)"]
    revealed = {"part/plot_01": ["assert same_storage(a, b)", "assert x"]}
    assert checks_manifest.hidden_claims(old, revealed) == []


def test_the_update_command_stops_before_writing_a_hidden_claim(monkeypatch, capsys):
    old = {"part/plot_01": ["assert same_storage(a, b)"]}
    monkeypatch.setattr(checks_manifest, "read_manifest", lambda path=None: old)
    now = {"part/plot_01": ["assert same_storage(a, b) (hidden)"]}
    monkeypatch.setattr(checks_manifest, "current", lambda gallery=None: now)
    written = []
    monkeypatch.setattr(checks_manifest.Path, "write_text", lambda self, *a, **k: written.append(self))
    assert checks_manifest.main(["--update"]) == 1
    assert "moved into hidden blocks" in capsys.readouterr().out and written == []
