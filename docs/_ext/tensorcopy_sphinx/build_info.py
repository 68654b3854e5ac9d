"""Expose the versions of the running build to every page.

Defines the substitutions ``|torch_version|``, ``|python_version|``, ``|numpy_version|``... for reST
(gallery text blocks) and ``{{torch_version}}``, ``{{python_version}}``, ``{{numpy_version}}``... for MyST
pages. The values are read from the
interpreter that runs the build, which is also the one that executes the gallery examples.
"""

import platform

from sphinx.application import Sphinx
from sphinx.config import Config


def build_versions() -> dict[str, str]:
    """Return the versions this build runs on, as the interpreter reports them."""
    import numpy
    import sphinx
    import sphinx_gallery
    import torch

    return {
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "numpy_version": numpy.__version__,  # the pages that hand tensors to NumPy run on it
        "sphinx_version": sphinx.__version__,
        "sphinx_gallery_version": sphinx_gallery.__version__,
    }


def _publish(app: Sphinx, config: Config) -> None:
    versions = build_versions()
    epilog = "".join(f"\n.. |{name}| replace:: {value}" for name, value in versions.items())
    config.rst_epilog = (config.rst_epilog or "") + epilog + "\n"
    config.myst_substitutions = {**config.myst_substitutions, **versions}
    config.html_context = {**config.html_context, **versions}


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _publish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
