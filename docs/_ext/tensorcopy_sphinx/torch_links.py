"""torch names in the prose link to the official PyTorch documentation, through intersphinx.

The inventory is ``docs/_shared/pytorch_objects.inv``, a plain-text Sphinx inventory (version 1: one
``name type page`` line per object) kept in the repository, because the build has no network. Its base
URL is the documentation of the torch release the build runs, ``https://docs.pytorch.org/docs/<x.y>/``,
and its ``Version`` line must name that release: a build on another torch fails until the inventory is
checked against that release's documentation and its version line changed.

An inline literal of the prose (not in a heading, not already a link) becomes a reference when its text
is one of the ways prose writes an inventory name (:func:`forms`): a method as ``detach``,
``detach()``, ``a.detach()`` or ``Tensor.detach`` (a bare name of one letter stays plain: ``t`` is a variable,
``t()`` the method); an attribute as ``.grad`` or ``w.grad`` (bare only
``requires_grad`` and ``is_leaf``: a bare ``grad`` could be ``torch.func.grad``); a function or class by
its dotted name (``torch.no_grad()``, ``nn.Parameter``); a ``Module`` method without a receiver, with one
of :data:`MODULE_RECEIVERS`, or as ``Module.to()`` (``optimizer.state_dict()`` is not one; ``model.to(...)``
is ``Module.to``, and a bare ``to()`` stays the tensor's, as any name a ``Tensor`` method shares). A chain
(``a.detach().clone()``), an assignment, a name outside the inventory (``.data``, ``grad_fn``: no page of
their own) and a bare name that the page's own code binds as a variable (``view = base[1:]``) stay plain
code. Intersphinx resolves each reference; one it leaves unresolved fails the build, naming the page.

A link the prose writes by hand to ``https://docs.pytorch.org/docs/stable/...`` (a notes page, a GPU box's
source) is pointed at the same release's documentation too (:func:`pinned`), in the downloads as well
(:func:`pin_text`, which :mod:`tensorcopy_sphinx.download_layout` calls): "stable" moves with each torch release, and
the About page says the links go to the release the build runs.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

from tensorcopy_sphinx.build_info import build_versions

INVENTORY = Path(__file__).resolve().parents[2] / "_shared" / "pytorch_objects.inv"
DOCS_URL = "https://docs.pytorch.org/docs/{version}/"
#: The documentation of whichever release is newest: a hand-written link to it is pinned to the build's release.
STABLE_URL = DOCS_URL.format(version="stable")
PROJECT = "torch"
CLASS = "torch-api"
#: Attributes prose may write bare (``requires_grad``); other attributes need ``.name`` or ``x.name``.
BARE_ATTRIBUTES = ("requires_grad", "is_leaf")
#: Receivers that name a module: ``model.to(...)`` is ``Module.to``, never ``Tensor.to``.
MODULE_RECEIVERS = ("model.", "module.")
#: Names prose writes otherwise than the documentation does.
ALIASES = {
    "torch.autograd.grad_mode.inference_mode": ("torch.inference_mode", "inference_mode"),
    "torch.nn.parameter.Parameter": ("Parameter", "nn.Parameter", "torch.nn.Parameter"),
    "torch.no_grad": ("no_grad",),
    "torch.nn.functional.layer_norm": ("F.layer_norm",),
    "torch.nn.functional.log_softmax": ("F.log_softmax",),
    "torch.nn.functional.relu": ("F.relu",),
    "torch.nn.functional.softmax": ("F.softmax",),
    "torch.utils.checkpoint.checkpoint": ("checkpoint",),
}
#: A literal: an optional receiver (``a.`` or ``.``), a dotted name, an optional call with arguments.
_LITERAL = re.compile(r"(?P<receiver>[a-z_]\w*\.|\.)?(?P<name>[A-Za-z_][\w.]*?)(?P<call>\((?:[^()]|\([^()]*\))*\))?")
_MODULES = ("torch.", "nn.", "Tensor.")


@functools.cache
def inventory() -> tuple[str, dict[str, tuple[str, str]]]:
    """The inventory's version and its objects (name -> (type, page)), read from the file the build uses."""
    lines = INVENTORY.read_text(encoding="utf-8").splitlines()
    if lines[:2] != ["# Sphinx inventory version 1", "# Project: PyTorch"] or not lines[2].startswith("# Version: "):
        raise ExtensionError(f"{INVENTORY.name}: not a version 1 inventory of PyTorch")
    rows = (line.split() for line in lines[3:])
    return lines[2].removeprefix("# Version: "), {name: (kind, page) for name, kind, page in rows}


@functools.cache
def forms() -> dict[str, str]:
    """Every way the prose may write an inventory name, mapped to that name."""
    found: dict[str, str] = {}
    tensor_members = {name.rsplit(".", 1)[1] for name in inventory()[1] if name.startswith("torch.Tensor.")}
    for name, (kind, _) in inventory()[1].items():
        member = name.rsplit(".", 1)[1]
        written = [name, *ALIASES.get(name, ())]
        if name.startswith("torch.Tensor."):
            written += [f"Tensor.{member}"]
            if kind == "method":
                written += [f"{member}()", f"*.{member}()", f".{member}()", f"Tensor.{member}()", f"{name}()"]
                written += [member] if len(member) > 1 else []  # a bare ``t`` in prose is a variable; ``t()`` links
            else:
                written += [f".{member}", f"*.{member}"] + ([member] if member in BARE_ATTRIBUTES else [])
        elif name.startswith("torch.nn.Module."):  # no other receiver: an optimizer has a state_dict() too
            written += [f"{receiver}{member}{call}" for receiver in MODULE_RECEIVERS for call in ("", "()")]
            written += [f"Module.{member}()", f"nn.Module.{member}()"]
            written += [member, f"{member}()"] if member not in tensor_members else []
        elif kind in ("function", "class"):
            written += [f"{form}()" for form in written]
        for form in written:
            if found.setdefault(form, name) != name:
                raise ExtensionError(f"{INVENTORY.name}: {form!r} would name both {found[form]} and {name}")
    return found


def target(text: str, known: dict[str, str]) -> str | None:
    """The inventory name a literal's text writes, or None."""
    match = _LITERAL.fullmatch(text.strip())
    if not match:
        return None
    receiver, name, call = match.group("receiver") or "", match.group("name"), match.group("call")
    if receiver and receiver != "." and (receiver + name).startswith(_MODULES):
        receiver, name = "", receiver + name  # torch.no_grad is a name, not a receiver
    if receiver in MODULE_RECEIVERS:  # a module's method, or nothing: never a tensor's
        return known.get(receiver + name + ("()" if call else ""))
    key = ("*." if receiver not in ("", ".") else receiver) + name + ("()" if call else "")
    return known.get(key)


def _skip(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (nodes.title, nodes.reference, addnodes.pending_xref, nodes.raw, nodes.subtitle)):
            return True
        parent = parent.parent
    return False


def bound_in(code_blocks) -> set[str]:
    """The names some code binds (variables, functions, arguments, loop and ``with`` targets): a bare
    ``view`` on a page whose code says ``view = base[1:]`` names that variable, not the method."""
    names: set[str] = set()
    for text in code_blocks:
        if ">>> " in text:  # a doctest: its source lines only
            text = "\n".join(line[4:] for line in text.splitlines() if line.startswith((">>> ", "... ")))
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


def bound_names(doctree: nodes.document) -> set[str]:
    """The names the code blocks of a page bind."""
    return bound_in(block.astext() for block in doctree.findall(nodes.literal_block))


def shown_text(literal: nodes.literal) -> str:
    """What a literal shows: its text, without raw HTML inside it (a ``<wbr>`` where a header may break)."""
    return "".join(node.astext() for node in literal.findall(nodes.Text)
                   if not isinstance(node.parent, nodes.raw)).strip()  # fmt: skip


def _link(app: Sphinx, doctree: nodes.document) -> None:
    known, bound = forms(), bound_names(doctree)
    for literal in list(doctree.findall(nodes.literal)):
        text = shown_text(literal)
        name = target(text, known)
        if name is None or _skip(literal) or text in bound:
            continue
        literal["classes"].append(CLASS)
        xref = addnodes.pending_xref("", refdomain="py", reftype="obj", reftarget=name, refexplicit=True)
        literal.replace_self(xref)
        xref += literal


def link_late(made: list[nodes.Node]) -> list[nodes.Node]:
    """Link the torch names of nodes made after references were resolved (a page filled in at
    ``doctree-resolved``, such as the facts page): each becomes a reference to the object's page, the URL
    intersphinx would have written."""
    version, objects = inventory()
    known, linked = forms(), []
    for node in made:
        literals = [node] if isinstance(node, nodes.literal) else list(node.findall(nodes.literal))
        for literal in literals:
            name = target(literal.astext(), known)
            if name is None or _skip(literal):
                continue
            literal["classes"].append(CLASS)
            uri = f"{DOCS_URL.format(version=version)}{objects[name][1]}#{name}"
            reference = nodes.reference("", "", internal=False, refuri=uri)
            if literal is node:
                node = reference
            else:
                literal.replace_self(reference)
            reference += literal
        linked.append(node)
    return linked


def pinned(uri: str) -> str:
    """``uri`` with the documentation of the newest release replaced by that of the inventory's release."""
    if not uri.startswith(STABLE_URL):
        return uri
    return DOCS_URL.format(version=inventory()[0]) + uri.removeprefix(STABLE_URL)


def pin_text(text: str) -> str:
    """``text`` (a download's) with every link to the newest release's documentation pointed at the inventory's
    release, as :func:`pinned` points the pages' links."""
    return text.replace(STABLE_URL, DOCS_URL.format(version=inventory()[0]))


def _pin(app: Sphinx, doctree: nodes.document) -> None:
    for reference in doctree.findall(nodes.reference):
        if "refuri" in reference:
            reference["refuri"] = pinned(reference["refuri"])


def _check_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for literal in doctree.findall(nodes.literal):
        if CLASS in literal["classes"] and not isinstance(literal.parent, nodes.reference):
            raise ExtensionError(
                f"{docname}: `{literal.astext()}` names a torch object that the inventory "
                f"docs/_shared/{INVENTORY.name} does not resolve"
            )


def _configure(app: Sphinx, config: Config) -> None:
    version, _ = inventory()
    running = ".".join(build_versions()["torch_version"].split(".")[:2])
    if version != running:
        raise ExtensionError(
            f"docs/_shared/{INVENTORY.name} describes torch {version}, but the build runs torch {running}: "
            f"check its pages against the {running} documentation and change its version line"
        )
    config.intersphinx_mapping = {PROJECT: (DOCS_URL.format(version=version), str(INVENTORY))}


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.intersphinx")
    app.setup_extension("tensorcopy_sphinx.build_info")
    app.connect("config-inited", _configure, priority=400)  # before intersphinx normalises the mapping
    app.connect("doctree-read", _link)
    app.connect("doctree-read", _pin)
    app.connect("doctree-resolved", _check_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
