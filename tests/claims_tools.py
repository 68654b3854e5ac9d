"""Helpers for the claims-ledger and behaviour-matrix tests.

- ``CountTorchCalls``, ``RefuseTorch`` and ``Override`` are torch function modes: while one is
  active, every torch call (functions, tensor methods, property reads such as ``t.data``) goes
  through it. They prove that a check or probe really runs tensor code, and let a test change one
  piece of torch behaviour to see the computed verdict change with it.
- ``build_mini_site`` runs Sphinx in-process on a tiny project that uses the two directives, and
  returns the HTML and the warnings, so the tests can see what a build reports (no site build).
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from pathlib import Path

import torch
from torch.overrides import TorchFunctionMode

from tensorfacts import articles
from tensorfacts.sources import copying_000, data_vs_detach_004

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "docs" / "_ext"
if str(EXT) not in sys.path:
    sys.path.insert(0, str(EXT))  # the extensions' package, as docs/_shared/conf.py does

from tensorcopy_sphinx import (  # noqa: E402  (docs/_ext: the extensions under test)
    behaviour_matrix,
    cjk_linebreaks,
    claims_ledger,
    fact_index,
    gallery_i18n,
    language_switch,
    zh_search,
)

__all__ = ["behaviour_matrix", "cjk_linebreaks", "claims_ledger", "fact_index", "gallery_i18n", "language_switch",
           "zh_search"]


def torch_name(func) -> str:
    """The name a torch function mode sees: ``"detach"``, ``"__repr__"``, or ``"data"`` for a read."""
    name = getattr(func, "__name__", "")
    owner = getattr(func, "__self__", None)
    if name in ("__get__", "__set__") and owner is not None:
        return getattr(owner, "__name__", name)
    return name


class CountTorchCalls(TorchFunctionMode):
    """Count the torch calls made while active."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls += 1
        return func(*args, **(kwargs or {}))


class RefuseTorch(TorchFunctionMode):
    """Make every torch call raise while active (switching grad mode on or off aside)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if torch_name(func) == "_set_grad_enabled":
            return func(*args, **(kwargs or {}))
        raise RuntimeError(f"torch is switched off in this test ({torch_name(func)})")


Replacement = Callable[[Callable, tuple, dict], object]


class Override(TorchFunctionMode):
    """Replace torch calls by name: ``Override(detach=lambda f, a, k: f(*a, **k).clone())``."""

    def __init__(self, **replacements: Replacement) -> None:
        super().__init__()
        self.replacements = replacements

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        replacement = self.replacements.get(torch_name(func))
        if replacement is None:
            return func(*args, **kwargs)
        return replacement(func, args, kwargs)


def call(func, args, kwargs):
    return func(*args, **kwargs)


def _bump_source(func, args, kwargs):
    """Return the real result, but first move the source's version counter (an in-place op)."""
    result = func(*args, **kwargs)
    with torch.no_grad():
        args[0].add_(0)
    return result


def _edit_then_repr(func, args, kwargs):
    """Print a tensor after adding one to it in place."""
    with torch.no_grad():
        args[0].add_(1)
    return func(*args, **kwargs)


def _raise(message: str) -> Replacement:
    def replacement(func, args, kwargs):
        raise RuntimeError(message)

    return replacement


#: Ways to change torch, each a factory of an active torch function mode.
MODES: dict[str, Callable[[], TorchFunctionMode]] = {
    "detach copies": lambda: Override(detach=lambda f, a, k: call(f, a, k).clone()),
    "detach keeps grad": lambda: Override(detach=lambda f, a, k: call(f, a, k).requires_grad_()),
    "data copies": lambda: Override(data=lambda f, a, k: call(f, a, k).clone()),
    "data keeps grad": lambda: Override(data=lambda f, a, k: call(f, a, k).requires_grad_()),
    "clone aliases": lambda: Override(clone=lambda f, a, k: a[0]),
    "clone detaches": lambda: Override(clone=lambda f, a, k: call(f, a, k).detach()),
    "old grad_fn names": lambda: Override(
        __repr__=lambda f, a, k: call(f, a, k).replace("Backward0", "Backward")),
    "repr changed": lambda: Override(
        __repr__=lambda f, a, k: call(f, a, k).replace("tensor(", "Tensor(")),
    "quiet .grad": lambda: Override(grad=_quiet_grad),
    "setitem never fails": lambda: Override(__setitem__=_lenient_setitem),
    "views bump version": lambda: Override(data=_bump_source, detach=_bump_source),
    "equal is false": lambda: Override(equal=lambda f, a, k: False),
    "tolist reversed": lambda: Override(tolist=lambda f, a, k: list(reversed(call(f, a, k)))),
    "requires_grad reads False": lambda: Override(requires_grad=_requires_grad_false),
    "printing edits the tensor": lambda: Override(__repr__=_edit_then_repr),
    "detach changes dtype": lambda: Override(detach=lambda f, a, k: call(f, a, k).double()),
    "detach changes values": lambda: Override(detach=lambda f, a, k: call(f, a, k) + 1),
    "ones is 1-D": lambda: Override(ones=lambda f, a, k: torch.tensor([1.0, 2.0, 3.0])),
    "sub in place": lambda: Override(sub=lambda f, a, k: a[0].data.sub_(a[1])),
    "add in place": lambda: Override(add=lambda f, a, k: a[0].data.add_(a[1])),
    "backward raises the article's error": lambda: Override(backward=_raise(
        data_vs_detach_004.DETACH_004_ERROR.removeprefix("RuntimeError: "))),
}


def _quiet_grad(func, args, kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _lenient_setitem(func, args, kwargs):
    try:
        return func(*args, **kwargs)
    except (IndexError, RuntimeError):
        return None


def _requires_grad_false(func, args, kwargs):
    if getattr(func, "__name__", "") == "__set__":
        return func(*args, **kwargs)
    return False


def _refuse_metadata_changes(monkeypatch) -> None:
    # Tensor.set_ does not go through torch function modes: patch the four methods themselves.
    def refuse(self, *args, **kwargs):
        raise RuntimeError("metadata change refused")

    for name in ("resize_", "resize_as_", "set_", "transpose_"):
        monkeypatch.setattr(torch.Tensor, name, refuse)


#: Changes that are not torch function modes: each patches something with pytest's monkeypatch.
PATCHES: dict[str, Callable] = {
    # The article's loop, re-indented: the one check that reads text rather than torch.
    "restored loop": lambda mp: mp.setattr(copying_000, "LOOP_AS_PRINTED", copying_000.LOOP_RESTORED),
    "data is a method": lambda mp: mp.setattr(torch.Tensor, "data", lambda self: self.detach()),
    "metadata ops raise": _refuse_metadata_changes,
}


#: The pages the ledger's rows and the guides link: the articles' pages, the version-counter page whose
#: table the "read the values now" advice sends its reader to, the table of what operations save, and the
#: pages the claims' notes link (``[text](ref:label)``).
LINKED_LABELS = tuple(dict.fromkeys((*articles.GALLERY_LABELS, "questions-version-counter", "saved-ops-table", *(
    label for claim in articles.CLAIMS for note in claim.notes.values()
    for label in re.findall(r"\]\(ref:([\w-]+)\)", note)))))  # and the pages the notes link
LABEL_PAGE = "\n\n".join(f"({label})=\n## Page {label}\n\nText." for label in LINKED_LABELS)


def build_mini_site(tmp_path: Path, body: str, language: str = "en") -> tuple[str, str]:
    """Build a one-page Sphinx project whose page body is ``body``; return (html, warnings)."""
    from sphinx.testing.util import SphinxTestApp

    src = tmp_path / "src"
    src.mkdir(parents=True, exist_ok=True)
    (src / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(ROOT)!r}, {str(EXT)!r}]\n"
        "extensions = ['myst_parser', 'tensorcopy_sphinx.claims_ledger', 'tensorcopy_sphinx.behaviour_matrix', "
        "'tensorcopy_sphinx.fact_index']\n"
        f"language = {language!r}\n",
        encoding="utf-8",
    )
    (src / "targets.md").write_text("# Targets\n\n" + LABEL_PAGE + "\n", encoding="utf-8")
    (src / "index.md").write_text(
        "# Test page\n\n```{toctree}\ntargets\n```\n\n" + body + "\n", encoding="utf-8")
    warnings = io.StringIO()
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "build", freshenv=True,
                        status=io.StringIO(), warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()  # unregisters the node classes, so the next test app starts clean
    html = (app.outdir / "index.html").read_text(encoding="utf-8")
    return html, warnings.getvalue()
