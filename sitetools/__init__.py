"""Site tooling that is not Sphinx glue, importable without Sphinx, so the build, the Sphinx extensions and
the tests all read the same facts from one place. By concern:

- :mod:`sitetools.building`: the build pipeline, from the staged sources to the published site;
- :mod:`sitetools.rules`: the page-source rules, checked before anything builds;
- :mod:`sitetools.guard`: what runs around each example inside Sphinx;
- :mod:`sitetools.authoring`: starting a page, copying its code between editions, the drawing helpers;
- :mod:`sitetools.web`: the site as the web sees it (root files, search index, audit, notebooks, deploy);
- :mod:`sitetools.releases`: the checks run on other torch releases and their records;
- :mod:`sitetools.for_sphinx`: the one entry the Sphinx side (extensions, shared configuration) imports;
- :mod:`sitetools.settings`: how a build was asked to run, the one way in for its settings (the build
  passes them to its Sphinx processes, and the code there reads them back, through this module).

The table of language editions is :mod:`editions`, at the repository root beside ``sitetools`` and
``tensorfacts``, which both read it.
"""
