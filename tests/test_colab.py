"""Open in Colab, fast tier: the repository setting, the link on an example page, and the deploy
workflow that publishes the notebooks where the links point (checked offline, from its YAML). The
notebooks a built site publishes are checked in tests/test_colab_site.py."""

import re
import shlex
from types import SimpleNamespace

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.utils import new_document

from sitetools.web import colab
from tests.claims_tools import EXT  # noqa: F401  (puts docs/_ext, the extensions, on the path)
from tests.test_web_workflow import build_step, load, steps

from tensorcopy_sphinx import colab_link  # noqa: E402  isort: skip

#: Written here, as Colab documents its GitHub links (not built from sitetools.web.colab).
DETACH_EN = "https://colab.research.google.com/github/octo/tensor-copies/blob/notebooks/en/copying/plot_04_detach.ipynb"


@pytest.mark.parametrize("value", [
    "octo/tensor-copies", "https://github.com/octo/tensor-copies", "https://github.com/octo/tensor-copies.git",
    " https://github.com/octo/tensor-copies/ ",
])  # fmt: skip
def test_the_repository_is_read_as_owner_and_name_in_either_form(value):
    assert colab.repository(value) == "octo/tensor-copies"


@pytest.mark.parametrize("value", ["tensor-copies", "https://gitlab.com/octo/x", "octo/x/y", "a b/c"])
def test_a_repository_that_is_not_on_github_is_refused(value):
    with pytest.raises(ValueError, match="SITE_REPOSITORY"):
        colab.repository(value)


def test_no_repository_no_link():
    assert colab.repository("") == ""
    doctree = _page()
    colab_link._doctree_read(_app(""), doctree)
    assert "colab" not in doctree.pformat()


def _app(slug, language="en", docname="examples/copying/plot_04_detach"):
    config = SimpleNamespace(tensorcopy_colab_repository=slug, language=language,
                             sphinx_gallery_conf={"gallery_dirs": ["examples"]})  # fmt: skip
    translator = SimpleNamespace(gettext=lambda text: text)
    return SimpleNamespace(config=config, env=SimpleNamespace(docname=docname), translator=translator)


def _page():
    doctree = new_document("page", get_default_settings())
    section = nodes.section()
    section += [nodes.title(text="Detach"), nodes.raw("", '<p class="verified-stamp">Verified</p>', format="html"),
                nodes.paragraph(text="Text.")]  # fmt: skip
    doctree += section
    return doctree


def test_an_example_page_links_to_its_notebook_under_its_stamp():
    doctree = _page()
    colab_link._doctree_read(_app("octo/tensor-copies"), doctree)
    section = doctree.next_node(nodes.section)
    assert "verified-stamp" in section[1].astext()
    assert re.search(r'<a href="([^"]+)"', section[2].astext()).group(1) == DETACH_EN


def test_a_narrative_page_has_no_colab_link():
    doctree = _page()
    colab_link._doctree_read(_app("octo/tensor-copies", docname="guide"), doctree)
    assert "colab" not in doctree.pformat()


def _publish_step(workflow):
    return next((step for step in steps(workflow) if "sitetools.web.colab" in step.get("run", "")), None)


def check_publishing(workflow):
    """Fail unless ``workflow`` builds with the repository, then collects the built notebooks into an
    orphan worktree of the notebooks branch and force-pushes that branch, in a job allowed to push."""
    step = _publish_step(workflow)
    assert step is not None, "no step runs python -m sitetools.web.colab"
    commands = [shlex.split(line) for line in step["run"].replace("\\\n", " ").splitlines() if line.strip()]
    worktree = next(c for c in commands if c[:3] == ["git", "worktree", "add"])
    assert worktree[3:6] == ["--orphan", "-b", colab.BRANCH], "the notebooks branch is not a fresh orphan"
    collect = next(c for c in commands if c[1:3] == ["-m", "sitetools.web.colab"])
    assert collect[3:] == ["build/html", worktree[6]], "the notebooks are not collected from the built site"
    assert ["git", "push", "--force", "origin", colab.BRANCH] in commands
    uploads = [s for s in steps(workflow) if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert [s["with"]["path"] for s in uploads] == ["build/html"]
    order = steps(workflow)
    assert order.index(build_step(workflow)) < order.index(step), "notebooks published before the build"
    (job,) = [job for job in workflow["jobs"].values() if step in job["steps"]]
    assert job.get("permissions", {}).get("contents") == "write", "the job cannot push the notebooks branch"
    assert build_step(workflow)["env"].get("SITE_REPOSITORY") == "${{ github.repository }}"


def test_the_workflow_publishes_the_built_notebooks_on_the_branch_the_links_name():
    check_publishing(load())


def test_the_workflow_check_notices_a_push_to_another_branch_or_no_repository():
    workflow = load()
    step = _publish_step(workflow)
    step["run"] = step["run"].replace(f"origin {colab.BRANCH}", "origin gh-notebooks")
    with pytest.raises(AssertionError):
        check_publishing(workflow)
    workflow = load()
    del build_step(workflow)["env"]["SITE_REPOSITORY"]
    with pytest.raises(AssertionError):
        check_publishing(workflow)
