"""Site tooling that is not Sphinx glue: the table of editions, the list of example scripts, the
page rules and the build pipeline. Importable without Sphinx, so the build, the Sphinx extensions
and the tests all read the same facts from one place."""
