"""Expose the versions of the running build to every page.

Defines the substitutions ``|torch_version|``, ``|python_version|``, ``|numpy_version|``... for reST
(gallery text blocks) and ``{{torch_version}}``, ``{{python_version}}``, ``{{numpy_version}}``... for MyST
pages. The values are the installed distributions' metadata (and the interpreter's own version), read
in the process that runs the build and the gallery examples: an example that sets ``torch.__version__``
cannot change what the stamps say.
"""

import platform
from importlib.metadata import version

from sphinx.application import Sphinx
from sphinx.config import Config


def build_versions() -> dict[str, str]:
    """Return the versions this build runs on, from the installed packages' metadata."""
    return {
        "torch_version": version("torch"),
        "python_version": platform.python_version(),
        "numpy_version": version("numpy"),  # the pages that hand tensors to NumPy run on it
        "sphinx_version": version("sphinx"),
        "sphinx_gallery_version": version("sphinx-gallery"),
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
