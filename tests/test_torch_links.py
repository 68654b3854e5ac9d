"""torch names in the prose link to the PyTorch documentation (``tensorcopy_sphinx.torch_links``).

Fast tests: the inventory names real torch objects of the running release, and the prose forms map to
the right names (and ordinary code does not). Slow tests read the built site: every torch link points
at the page and anchor its inventory row gives, every row is used, and no prose literal that names an
inventory object is left unlinked outside headings.
"""

import functools
import importlib

import pytest
import torch
from docutils import nodes
from sphinx.errors import ExtensionError

from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.gallery_tools import LANGS, read_page
from tests.site_audit import html_pages

from tensorcopy_sphinx import torch_links  # noqa: E402  isort: skip


def _resolve(name: str):
    """The object a dotted name names, importing modules on the way (``torch.nn.parameter``)."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        return functools.reduce(getattr, parts[split:], found)
    raise ImportError(name)


@pytest.mark.parametrize("name", sorted(torch_links.inventory()[1]))
def test_every_inventory_name_is_a_torch_object(name):
    assert _resolve(name) is not None


def test_the_inventory_describes_the_running_torch():
    version, objects = torch_links.inventory()
    assert version == ".".join(torch.__version__.split(".")[:2])
    assert {kind for kind, _ in objects.values()} <= {"method", "attribute", "function", "class"}, objects


LINKED = {
    "detach()": "torch.Tensor.detach",
    "a.detach()": "torch.Tensor.detach",
    ".grad": "torch.Tensor.grad",
    "w.grad": "torch.Tensor.grad",
    "requires_grad": "torch.Tensor.requires_grad",
    "resize_": "torch.Tensor.resize_",
    "b.mul_(10)": "torch.Tensor.mul_",
    "numpy(force=True)": "torch.Tensor.numpy",
    "Tensor.clone": "torch.Tensor.clone",
    "torch.no_grad()": "torch.no_grad",
    "no_grad": "torch.no_grad",
    "torch.inference_mode()": "torch.autograd.grad_mode.inference_mode",
    "nn.Parameter": "torch.nn.parameter.Parameter",
    "torch.autograd.grad": "torch.autograd.grad",
    "torch.tensor(a)": "torch.tensor",
    "state_dict()": "torch.nn.Module.state_dict",
    "view": "torch.Tensor.view",
    "load_state_dict": "torch.nn.Module.load_state_dict",
    "Module.to()": "torch.nn.Module.to",
    "to()": "torch.Tensor.to",
    "Tensor.numpy()": "torch.Tensor.numpy",
    "inference_mode": "torch.autograd.grad_mode.inference_mode",
    "model.to(...)": "torch.nn.Module.to",
    "module.to()": "torch.nn.Module.to",
    "model.to(torch.float64)": "torch.nn.Module.to",
    "model.load_state_dict(sd)": "torch.nn.Module.load_state_dict",
    "x.to(...)": "torch.Tensor.to",
    "tensor.to()": "torch.Tensor.to",
    ".to()": "torch.Tensor.to",
    "t()": "torch.Tensor.t",
    "x.t()": "torch.Tensor.t",
}
PLAIN = ["a.detach().clone()", ".data", "a.data", "grad_fn", "grad", "exp", "a = a - a.grad", "copy.deepcopy",
         "np.asarray", "requires_grad=True", "_version", "a.grad.zero_()", "torch.Tensor.data",
         "optimizer.state_dict()", "model.detach()", "module.grad", "t"]  # fmt: skip


@pytest.mark.parametrize("text", LINKED)
def test_prose_forms_name_their_object(text):
    assert torch_links.target(text, torch_links.forms()) == LINKED[text]


@pytest.mark.parametrize("text", PLAIN)
def test_other_code_stays_plain(text):
    assert torch_links.target(text, torch_links.forms()) is None


def test_a_name_the_pages_code_binds_stays_plain():
    """``view`` on a page whose code binds ``view`` is that variable; ``detach()`` is still linked."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    document = new_document("page", get_default_settings(Parser))
    Parser().parse("The edit through ``view`` after ``detach()``.\n\n.. code-block:: python\n\n"
                   "   base = torch.zeros(3)\n   view = base[1:]\n", document)  # fmt: skip
    torch_links._link(None, document)
    linked = [node.astext() for node in document.findall(nodes.literal) if torch_links.CLASS in node["classes"]]
    assert torch_links.bound_names(document) >= {"base", "view"}
    assert linked == ["detach()"]


def test_an_unresolved_name_fails_naming_the_page():
    document = nodes.paragraph()
    document += nodes.literal("detach()", "detach()", classes=[torch_links.CLASS])
    with pytest.raises(ExtensionError, match=r"examples/x: `detach\(\)` .*pytorch_objects.inv"):
        torch_links._check_resolved(None, document, "examples/x")


def test_a_hand_written_stable_link_is_pinned_to_the_running_release():
    version = torch_links.inventory()[0]
    page = "notes/autograd.html#saved-tensors"
    document = nodes.paragraph()
    document += nodes.reference("", "Saved tensors", refuri=torch_links.STABLE_URL + page)
    document += nodes.reference("", "NumPy", refuri="https://numpy.org/doc/stable/")
    torch_links._pin(None, document)
    assert [r["refuri"] for r in document.findall(nodes.reference)] == [
        f"https://docs.pytorch.org/docs/{version}/{page}", "https://numpy.org/doc/stable/"]


# --- The built site ----------------------------------------------------------------------------


def _literals(site_dir, lang):
    """Each page's inline code, with the names its code blocks bind."""
    for page in html_pages(site_dir / lang):
        article = read_page(page).select_one("article")
        if article is not None:
            bound = torch_links.bound_in(pre.get_text() for pre in article.select("pre"))
            yield page, [code for code in article.select("code.literal") if code.get_text().strip() not in bound]


@pytest.mark.slow
def test_torch_links_point_at_their_inventory_page_and_every_row_is_used(site_dir):
    version, objects = torch_links.inventory()
    known, used, problems = torch_links.forms(), set(), []
    base = torch_links.DOCS_URL.format(version=version)
    for page, literals in (found for lang in LANGS for found in _literals(site_dir, lang)):
        for code in literals:
            name = torch_links.target(code.get_text(), known)
            link = code.find_parent("a")
            if name is None:
                continue
            if link is None:
                if code.find_parent(["h1", "h2", "h3", "h4"]) is None:
                    problems.append(f"{page.relative_to(site_dir)}: `{code.get_text()}` names {name} but links nowhere")
                continue
            if not link["href"].startswith("https://"):
                continue  # the prose links it to a page of this site on purpose
            used.add(name)
            if link["href"] != f"{base}{objects[name][1]}#{name}":
                where = page.relative_to(site_dir)
                problems.append(f"{where}: `{code.get_text()}` links to {link['href']}, not to {name}")
    assert not problems, "\n".join(problems)
    unused = sorted(set(objects) - used)
    assert not unused, f"inventory rows no page links to (remove them): {unused}"
