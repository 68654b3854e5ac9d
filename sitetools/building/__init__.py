"""The build pipeline: stage the sources, run one Sphinx process per edition under the guard, verify
what every example printed and drew, and publish the site only when every check passed. Its folders
(staging, output, locks, fingerprints), the Sphinx processes, the processes pages leave running, the
narrative pages' doctests, the editions' figures and page weight, and the timings of builds and tiers.
"""
