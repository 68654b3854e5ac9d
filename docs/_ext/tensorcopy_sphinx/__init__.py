"""The site's Sphinx extensions: thin glue, one job each, named ``tensorcopy_sphinx.<module>``.

The facts they render come from the fact engine (``tensorfacts``) and the language editions from
``editions``; both live at the repository root, which the shared configuration
(``docs/_shared/conf.py``) puts on ``sys.path`` together with ``docs/_ext``.
"""
