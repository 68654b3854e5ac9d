"""The last cell of every download: rerun the page's checks on the reader's torch, claim by claim.

A downloaded script stops at the first ``assert`` that fails, so on another torch it tells a reader about
one claim at most. The cell that :mod:`tensorcopy_sphinx.rerun_cell` appends to every download holds the
page's code (hidden checks included) and the code of this module (without docstrings and comments): it
runs the page's code in a fresh namespace with every check turned into a record, then prints one line
per claim: ``agrees``, ``DIFFERS`` or ``not run`` (when the page stopped with an error before reaching
it). It ends with an ``AssertionError`` when any claim differs or did not run, or the page stopped before
its end, so a script exits non-zero.

The checks are the ones :mod:`sitetools.rules.checks_manifest` counts for the manifest and the verified-on stamp:
every ``assert``, and every must-raise block (``try: ... except E: ... else: raise AssertionError(...)``),
which holds when one of its handlers runs. A check in a loop makes one claim per message it shows (its
message names the case). This module needs nothing but the standard library and torch, and holds no
``assert`` of its own: the downloads' checks are the page's.

A check inside a GPU block (a top-level ``if torch.cuda.is_available():``, see :func:`is_gpu_block`) runs only
where torch has a GPU; on a machine without one it is reported ``no GPU``, not counted as a claim, and does
not fail the cell.

The report's words are ``WORDS``, in English; the rerun cell of another edition holds this code with
``WORDS`` in the page's language (:func:`tensorcopy_sphinx.rerun_cell.cell_code`, from the message
catalog). The checks' own messages are code, the same in every edition: another edition names a claim by
its message's translation (``labels``), and a field of a translated f-string shows its value's translation
where the edition has one (``values``: ``leaf`` -> ``叶子张量``, ``True`` -> ``是``), with no space left
between two Chinese characters where a field met them (:func:`joined`).
"""

import ast
import contextlib
import io
import re
import sys
import traceback
import types
import unicodedata

#: The report's words: the three statuses, then the sentences around them (``str.format`` fields).
WORDS = {
    "agrees": "agrees",
    "DIFFERS": "DIFFERS",
    "not run": "not run",
    "no GPU": "no GPU",
    "gpu": "{count} checks need a GPU, which this machine does not have: they did not run",
    "gpu, one": "{count} check needs a GPU, which this machine does not have: it did not run",
    "header": "This page's checks on torch {torch} (the page was verified on torch {verified_on}):",
    "why": " ({error})",
    "times": " ({count} times)",
    "summary": "{agree} agree, {differ} differ, {not_run} not run: {claims} claims from the page's {checks} checks",
    "stopped": "The page stopped at `{line}`: {error}",
    "after the stop": "The claims after that point did not run, and a loop that stopped may list fewer cases.",
    "failed": "on torch {torch}, {differ} claims of this page differ and {not_run} did not run{ending}; see above",
    "failed, stopped": ", and the page stopped before its end",
}


def is_must_raise(node):
    """``try: ... except E: ... else: raise AssertionError(...)``: the one idiom for "this must raise"."""
    if not (isinstance(node, ast.Try) and node.handlers and len(node.orelse) == 1):
        return False
    raise_ = node.orelse[0]
    return isinstance(raise_, ast.Raise) and isinstance(raise_.exc, ast.Call) and (
        isinstance(raise_.exc.func, ast.Name) and raise_.exc.func.id == "AssertionError"
    )  # fmt: skip


#: What a GPU block prints as its last statement, with the GPU's name, once its checks passed: the build
#: reads it to say that the block ran, and where.
GPU_MARK = "GPU checks passed on:"


def is_gpu_block(node):
    """``if torch.cuda.is_available():`` without ``else``: the checks of a page's box about GPUs, which run
    only where torch has one."""
    return isinstance(node, ast.If) and not node.orelse and ast.unparse(node.test) == "torch.cuda.is_available()"


def gpu_lines(tree):
    """The line numbers of every statement inside the GPU blocks of a parsed page."""
    return {n for node in tree.body if is_gpu_block(node) for n in range(node.lineno, node.end_lineno + 1)}


def _text(message, fallback):
    """What a check says, as written: its message (an f-string as its template), else ``fallback``."""
    if isinstance(message, ast.Constant):
        return str(message.value)
    if isinstance(message, ast.JoinedStr):
        return ast.unparse(message)[2:-1]
    return ast.unparse(message) if message is not None else fallback


def translatable(message):
    """A message written as a string or an f-string: the kind an edition's catalog translates."""
    return isinstance(message, ast.JoinedStr) or isinstance(message, ast.Constant) and isinstance(message.value, str)


def _translated(message, labels):
    """``message`` in the edition's language: its translation from ``labels`` (the catalog's entries for the
    page, keyed as :func:`_text` writes a message), an f-string again when it was one; else ``message``."""
    label = labels.get(_text(message, "")) if translatable(message) else None
    if not label:
        return message
    if isinstance(message, ast.Constant):
        return ast.copy_location(ast.Constant(label), message)
    for quote in ("'", '"', "'''", '"""'):
        with contextlib.suppress(SyntaxError):
            return ast.copy_location(_valued(ast.parse(f"f{quote}{label}{quote}", mode="eval").body), message)
    return message


def _valued(label):
    """A translated f-string whose every field shows ``_value_(value)``: its value's translation, or the value
    itself (a field with a conversion, ``{move!r}``, shows code and stays)."""
    for part in label.values:
        if isinstance(part, ast.FormattedValue) and part.conversion == -1:
            part.value = ast.Call(ast.Name("_value_", ast.Load()), [part.value], [])
    return label


#: A space between two Chinese characters or full-width marks, which Chinese text never has: a field whose
#: value's translation is Chinese leaves one where the label spaces its fields from Chinese (``对 {kind} 做``).
_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_CJK_SPACE = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])")


def joined(text):
    """``text`` without a space between two Chinese characters or marks."""
    return _CJK_SPACE.sub("", text)


class _RecordChecks(ast.NodeTransformer):
    """Turn every check into a record: ``_check_(index, holds, message)``, where ``holds`` is the test's
    value computed in place (so the test runs in its own scope, as an ``assert`` would) or the error it
    raised, and ``message`` a function that gives the message (called only after the test, as Python
    evaluates an assert's message only when it fails). ``texts`` collects what each check says."""

    def __init__(self, labels=None):
        self.texts, self.lines, self.labels = [], [], labels or {}

    @staticmethod
    def _record(index, holds, message):
        no_args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        words = ast.Lambda(no_args, message) if message is not None else ast.Constant(None)
        return ast.Expr(ast.Call(ast.Name("_check_", ast.Load()), [ast.Constant(index), holds, words], []))

    def _new(self, text, line):
        self.texts.append(text)
        self.lines.append(line)
        return len(self.texts) - 1

    def visit_Assert(self, node):
        node = self.generic_visit(node)
        node.msg = _translated(node.msg, self.labels) if node.msg is not None else None
        index = self._new(_text(node.msg, ast.unparse(node.test)), node.lineno)
        test = ast.parse("try:\n    _holds_ = bool(0)\nexcept Exception as _error_:\n    _holds_ = _error_").body[0]
        test.body[0].value.args = [node.test]
        held = ast.Name("_holds_", ast.Load())
        return [ast.copy_location(test, node), ast.copy_location(self._record(index, held, node.msg), node)]

    def visit_Try(self, node):
        if not is_must_raise(node):
            return self.generic_visit(node)
        exc = node.orelse[0].exc
        message = _translated(exc.args[0], self.labels) if exc.args else None
        index = self._new(_text(message, ast.unparse(node.body[0]) + " must raise"), node.lineno)
        node = self.generic_visit(node)
        for handler in node.handlers:  # the expected error came: the claim holds
            handler.body.insert(0, ast.copy_location(self._record(index, ast.Constant(True), message), handler))
        node.orelse = [ast.copy_location(self._record(index, ast.Constant(False), message), node.orelse[0])]
        return node


def _columns(word):
    """The columns ``word`` takes in a terminal or a notebook's output: two for a Chinese character."""
    return sum(1 + (unicodedata.east_asian_width(char) in "WF") for char in word)


def _padded(word, width):
    return word + " " * (width - _columns(word))


@contextlib.contextmanager
def page_module(**names):
    """The namespace of a module ``__rerun__`` that holds ``names``, importable while the page runs in it:
    ``torch.compile`` before torch 2.13 imports the module a compiled function comes from."""
    module = types.ModuleType("__rerun__")
    vars(module).update(names)
    sys.modules["__rerun__"] = module
    try:
        yield vars(module)
    finally:
        sys.modules.pop("__rerun__", None)


def rerun_checks(code, verified_on, sections=(), labels=None, values=None):
    """Run ``code`` (a page's code) with every check recorded instead of raised; report each claim, under
    the title of the page's section it is in (``sections``: ``(first line, title)`` in ``code``'s lines,
    in order; the titles are the page's, in its language), by its message in the page's language
    (``labels``: message -> translation, from the edition's catalog, :mod:`sitetools.authoring.check_labels`; and
    ``values``: a field's value, as ``str`` writes it -> its translation, from the same catalog)."""
    import torch

    def value(shown):
        word = (values or {}).get(str(shown))
        return shown if word is None else word

    recorder = _RecordChecks(labels)
    parsed = ast.parse(code)
    gpu, no_gpu = gpu_lines(parsed), not torch.cuda.is_available()
    tree = ast.fix_missing_locations(recorder.visit(parsed))
    results = [[] for _ in recorder.texts]  # per check: (message, holds, why not) each time it ran

    def check(index, holds, message):
        why = WORDS["why"].format(error=f"{type(holds).__name__}: {holds}") if isinstance(holds, Exception) else ""
        try:
            said = str(message()) if message else recorder.texts[index]
        except Exception:  # Python would not have built this message for a check that holds
            said = recorder.texts[index]
        results[index].append((joined(said) if labels else said, holds is True, why))

    stopped = None
    with contextlib.redirect_stdout(io.StringIO()):  # the page's own prints were shown above
        try:
            with page_module(_check_=check, _value_=value) as namespace:
                exec(compile(tree, "<page>", "exec"), namespace)
        except Exception as error:
            frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == "<page>"]
            line = code.splitlines()[frames[-1].lineno - 1].strip() if frames else "?"
            stopped = WORDS["stopped"].format(line=line, error=f"{type(error).__name__}: {error}")
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")  # the pictures were drawn above

    print(WORDS["header"].format(torch=torch.__version__, verified_on=verified_on))
    counts = {"agrees": 0, "DIFFERS": 0, "not run": 0}
    width = max(_columns(WORDS[status]) for status in (*counts, "no GPU")) + 1
    skipped, shown = 0, None
    for text, runs, line in zip(recorder.texts, results, recorder.lines, strict=True):
        title = next((title for first, title in reversed(sections) if first <= line), None)
        if title != shown:
            print(title)
            shown = title
        if not runs and no_gpu and line in gpu and not stopped:
            skipped += 1
            print(f"  {_padded(WORDS['no GPU'], width)} {text}")
            continue
        claims = {}  # message -> (holds, why not) each time, in the order the messages came
        for message, holds, why in runs:
            claims.setdefault(message, []).append((holds, why))
        for message, held in claims.items() or [(text, [])]:
            status = "not run" if not held else "agrees" if all(h for h, _ in held) else "DIFFERS"
            counts[status] += 1
            why = next((why for h, why in held if not h), "")
            times = WORDS["times"].format(count=len(held)) if len(held) > 1 else ""
            print(f"  {_padded(WORDS[status], width)} {message}{why}{times}")
    agree, differ, not_run = counts.values()
    if skipped:
        print(WORDS["gpu, one" if skipped == 1 else "gpu"].format(count=skipped))
    print(WORDS["summary"].format(agree=agree, differ=differ, not_run=not_run, claims=sum(counts.values()),
                                  checks=len(recorder.texts)))  # fmt: skip
    if stopped:
        print(f"{stopped}\n{WORDS['after the stop']}")
    if differ or not_run or stopped:
        ending = WORDS["failed, stopped"] if stopped else ""
        raise AssertionError(WORDS["failed"].format(torch=torch.__version__, differ=differ, not_run=not_run,
                                                    ending=ending))  # fmt: skip
