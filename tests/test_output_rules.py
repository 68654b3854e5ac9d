"""Printed output comes only from computation (sitetools/rules/output.py): each way round the literal
rule that the adversarial review used is refused, naming the file and line, and the prints the pages
really use still pass. A page imports only the allowed modules, and reads none of their attributes that
describe the machine."""

from __future__ import annotations

import pytest

from sitetools.rules import output as output_rules

WHERE = "gallery/en/part/plot_00_probe.py"

#: The faults of the review, each as a page would write it (a tensor ``a`` computed first).
REFUSED = {
    "stdout-write": 'import sys\nsys.stdout.write("b: tensor([1., 2., 3.])\\n")',
    "stderr-write": 'import sys\nsys.stderr.write("b: tensor([1., 2., 3.])\\n")',
    "from-sys-stdout": 'from sys import stdout\nstdout.write("b: 1\\n")',
    "concatenated-constants": 'print("same storage: " + "True")',
    "f-string-of-constants": 'print(f"same storage: {True}")',
    "alias-of-print": 'show = print\nshow("a:", a)',
    "print-as-argument": 'list(map(print, ["a: tensor(1.)"]))',
    "builtins-print": 'import builtins\nbuiltins.print("a:", a)',
    "exec-of-a-string": "exec('print(\"a: tensor([2., 2.])\")')",
    "eval-of-a-string": "eval('print(1)')",
    "compile-outside-must-raise": 'code = compile("print(1)", "x", "exec")',
    "constant-value-after-label": 'print("same storage:", not False)',
    "number-after-label": 'print("a.grad:", 3)',
    "end-holds-output": 'print(end="tensor([2., 2.])\\n")',
    "sep-holds-output": 'print("a:", a, sep=" tensor(1.) ")',
    "print-to-a-file": 'print("a:", a, file=open("/dev/stdout", "w"))',
    "email-formatdate": "import email.utils\nstamp = email.utils.formatdate()",
    "from-email-utils": "from email.utils import formatdate\nstamp = formatdate()",
    "socket-hostname": "import socket\nprint('host:', socket.gethostname())",
    "sys-executable": "import sys\nprint('python:', sys.executable)",
    "from-sys-executable": "from sys import executable",
    "sys-path": "import sys\nfirst = sys.path[0]",
    "torch-file": "where = torch.__file__",
    "hub-folder": "folder = torch.hub.get_dir()",
    "frame-filename": "import sys\nname = sys._getframe().f_code.co_filename",
    "bare-file": "here = __file__",
    "module-as-value": "print('torch:', torch)",
    "module-alias": "import sys\nm = sys",
    "time-even-for-sleep": "import time\ntime.sleep(0)",
    "random-even-seeded": "import random\nrandom.seed(0)\nvalue = random.random()",
    "relative-import": "from . import helpers",
    "clock-hour": "import time\nprint(time.localtime().tm_hour)",
    "clock-aliased": "import time as clock\nnow = clock.time()",
    "from-time-import": "from time import localtime\nprint(localtime().tm_hour)",
    "datetime-now": "import datetime\nstamp = datetime.datetime.now()",
    "process-id": "import os\nprint('pid:', os.getpid())",
    "os-write": "import os\nos.write(1, b'a: tensor(1.)')",
    "uuid": "import uuid\nname = uuid.uuid4()",
    "unseeded-random": "import random\nvalues = [random.random() for _ in range(3)]",
    "system-random": "import random\nrandom.seed(0)\nvalue = random.SystemRandom().random()",
    "globals": 'globals()["print"]("a: 1")',
    # Constant-only expressions: a library called on literals decides the value as surely as a literal.
    "item-of-a-literal-tensor": "print(torch.tensor(False).item())",
    "literal-tensor-after-label": 'print("b:", torch.tensor([1., 2.]))',
    "method-of-a-literal-tensor": 'print("sum:", torch.ones(3).sum())',
    "attribute-of-a-literal-tensor": 'print("requires_grad:", torch.zeros(2).requires_grad)',
    "str-of-a-literal-tensor": 'print("a:", str(torch.zeros(2)))',
    "arithmetic-on-a-literal-tensor": 'print("b:", torch.ones(2) * 2)',
    "f-string-of-a-literal-tensor": 'print(f"a: {torch.ones(2)}")',
    "function-imported-by-name": 'from torch import tensor\nprint("t:", tensor([1.0]))',
    "pformat-of-a-literal": 'import pprint\nprint(pprint.pformat("tensor([1., 2.])"))',
    "starred-constant": 'print("a:", *["tensor(1.)"])',
    # the interpreter and the process, reached through an allowed module
    "module-table": 'import sys\nprint("python:", getattr(sys.modules["sys"], "executable"))',
    "module-table-to-os": 'import sys\nsys.modules["os"].putenv("LEAK", str(a.sum()))',
    "the-tracer-that-records-checks": 'import sys\nsys.gettrace().__self__.failed.clear()',
    "a-profiler": 'import sys\nsys.setprofile(None)',
    "an-audit-hook": 'import sys\nsys.addaudithook(lambda event, args: None)',
    "the-time-limit's-timer": 'import signal\nsignal.setitimer(signal.ITIMER_REAL, 0)',
    "a-blocked-signal": 'import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])',
    "a-torch-switch": 'torch.__future__.set_overwrite_module_params_on_conversion(True)',
    "a-global-module-hook": 'torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: o * 2)',
    # a module's attribute changed for every later page
    "a-module-function-replaced": 'import copy\ncopy.deepcopy = copy.copy',
    "a-class-of-a-module-patched": 'torch.nn.Parameter.__repr__ = torch.Tensor.__repr__',
    "a-module-attribute-deleted": 'del torch.Tensor.__str__',
    "a-module-attribute-set-by-name": 'setattr(torch.Tensor, "__str__", lambda self: "x")',
    "a-docstring-printed-as-output": 'def claim():\n    """a fused step keeps w at version 1"""\n\n\n'
                                     'print("claim:", claim.__doc__)',
}

ALLOWED = {
    "labelled-value": 'print("a:", a)',
    "blank-line": "print()",
    "layout-of-values": 'print(f"{name:>10} {value:>8}")',
    "column-header-beside-values": 'print(f"{\'line\':41}", a)',
    "sep-and-end-as-punctuation": 'print("a:", a, sep=" ", end=";\\n")',
    "compile-that-must-fail": ('try:\n    compile(text, "loop", "exec")\nexcept IndentationError as e:\n'
                               '    print(type(e).__name__)\nelse:\n    raise AssertionError("must not compile")'),
    "the-pages-imports": ("import copy\nimport inspect\nimport io\nimport signal\nimport sys\nimport warnings\n"
                          "import zipfile\nimport numpy as np\nimport matplotlib.pyplot as plt\n"
                          "import torch.multiprocessing as mp\nfrom torch.func import grad\n"
                          "from multiprocessing import resource_sharer\n"
                          "from multiprocessing.reduction import ForkingPickler\nresource_sharer.stop()\n"
                          "line = sys._getframe().f_lineno\nfig, ax = plt.subplots()"),
    "id-in-a-dict": "seen = {id(a): 1}",
    "state-read-by-a-call-without-arguments": 'print("grad enabled:", torch.is_grad_enabled())',
    "method-of-a-computed-tensor": 'print("a.sum():", a.sum())',
    "literal-tensor-beside-a-computed-one": 'print("b:", torch.ones(3) + a)',
    "dtype-of-a-computed-tensor": 'print("a.dtype:", a.dtype, torch.float32 == a.dtype)',
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_print_round_the_rule_is_refused_with_its_file_and_line(name):
    source = "import torch\na = torch.ones(3)\n" + REFUSED[name] + "\n"
    problems = output_rules.check_source(WHERE, source)
    assert problems, f"{name} passed the output rules:\n{source}"
    last = len(source.splitlines())
    assert any(p.startswith(f"{WHERE}, line ") for p in problems), problems
    lines = {int(p.split(", line ")[1].split(":")[0]) for p in problems}
    assert lines <= set(range(3, last + 1)), (lines, problems)


def test_the_refusal_names_the_page_the_line_and_the_module():
    source = "import torch\na = torch.ones(3)\nimport socket\n"
    assert output_rules.check_source(WHERE, source) == [
        f"{WHERE}, line 3: imports the module socket, which is not one a page may import (PAGE_IMPORTS in "
        "sitetools/rules/output.py: what the pages import today; the clock, the host, the environment and other "
        f"values that differ from run to run or from machine to machine stay out) {output_rules.GUIDE}"
    ]


def test_every_module_the_pages_import_is_allowed():
    """The allow-list holds what the pages need (the pages themselves pass the rules in the page-rule tests)."""
    assert all(map(output_rules.allowed_import, ["torch", "torch.utils.data", "numpy", "matplotlib.pyplot"]))
    assert not any(map(output_rules.allowed_import, ["torchvision", "matplotlib", "multiprocessing", "os"]))


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_a_computed_print_passes(name):
    source = "import torch\na = torch.ones(3)\ntext = name = value = 'x'\n" + ALLOWED[name] + "\n"
    assert output_rules.check_source(WHERE, source) == []
