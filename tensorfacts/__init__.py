"""The torch fact engine behind the site's claims ledger and behaviour matrix.

Pure Python: it imports torch, never Sphinx, so the Sphinx extensions, the tests and the command
line (``python -m tensorfacts``) all use the same facts.

- :mod:`tensorfacts.model`: claims, results, verdicts, and the registry each article fills;
- :mod:`tensorfacts.tensors`: small tensor helpers (shared storage, ``grad_fn`` name, error line);
- :mod:`tensorfacts.snippets`: running the articles' code and comparing what it prints;
- :mod:`tensorfacts.pasted`: claims that only compare pasted output with printed output, as rows;
- :mod:`tensorfacts.sources`: the articles' code and pasted outputs, verbatim, one module each;
- :mod:`tensorfacts.articles`: the claims of each source article, one module each;
- :mod:`tensorfacts.verdicts`: running the checks; :mod:`tensorfacts.baseline`: the reviewed verdicts;
- :mod:`tensorfacts.standard_sources`, :mod:`tensorfacts.probes` and :mod:`tensorfacts.matrix`: the
  standard sources, the probes behind the behaviour matrix, and its guide;
- :mod:`tensorfacts.facts`: the named checks narrative sentences cite (registered by
  :mod:`tensorfacts.fact_registry`); :mod:`tensorfacts.scope`: the
  range of cases a general sentence's check runs; :mod:`tensorfacts.general_facts`: those checks;
- :mod:`tensorfacts.cli`: ``python -m tensorfacts [--list | --update-baseline | --matrix]``.
"""
