"""A mutation audit of the tests: small, meaningful breakages of the engine, the build, the extensions
and the pages, each with the fast tests expected to catch it.

``python -m tests.mutations`` (``nox -s mutate``) applies each mutation alone to a temporary copy of
the project, never to the working tree, runs its tests there, and reports it killed (a test failed)
or survived. The catalog is :data:`tests.mutations.catalog.MUTATIONS`; the runner is
:mod:`tests.mutations.run`.
"""
