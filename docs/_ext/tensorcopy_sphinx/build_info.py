"""Expose the versions of the running build to every page.

Defines the substitutions ``|torch_version|``, ``|python_version|``, ``|numpy_version|``... for reST
(gallery text blocks) and ``{{torch_version}}``, ``{{python_version}}``, ``{{numpy_version}}``... for MyST
pages. The values are the installed distributions' metadata (and the interpreter's own version), read
in the process that runs the build and the gallery examples: an example that sets ``torch.__version__``
cannot change what the stamps say.
"""

import platform
import re
from importlib.metadata import version

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

#: What a reST substitution reference looks like (``|torch_version|``).
SUBSTITUTION = re.compile(r"\|([a-z][a-z0-9_]*)\|")


def build_versions() -> dict[str, str]:
    """Return the versions this build runs on, from the installed packages' metadata."""
    return {
        "torch_version": version("torch"),
        "python_version": platform.python_version(),
        "numpy_version": version("numpy"),  # the pages that hand tensors to NumPy run on it
        "sphinx_version": version("sphinx"),
        "sphinx_gallery_version": version("sphinx-gallery"),
    }


def resolve(text: str, values: dict[str, str], where: str) -> str:
    """``text`` with each ``|name|`` of ``values`` replaced, for text that Sphinx does not read as reST (a
    download, a gallery card's tooltip); an unknown name raises, naming ``where``."""

    def value(match: re.Match) -> str:
        if match.group(1) not in values:
            raise ExtensionError(f"{where}: the substitution |{match.group(1)}| is not one the build "
                                 f"defines ({', '.join(sorted(values))})")
        return values[match.group(1)]

    return SUBSTITUTION.sub(value, text)


def _publish(app: Sphinx, config: Config) -> None:
    versions = build_versions()
    epilog = "".join(f"\n.. |{name}| replace:: {value}" for name, value in versions.items())
    config.rst_epilog = (config.rst_epilog or "") + epilog + "\n"
    config.myst_substitutions = {**config.myst_substitutions, **versions}
    config.html_context = {**config.html_context, **versions}


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _publish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
