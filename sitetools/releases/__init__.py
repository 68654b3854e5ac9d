"""The site's checks on other torch releases: the rerun cell's runner that every download ends with,
the command that records every check on each release (``nox -s releases``), the runner it starts in
each release's environment, and the records the build reads.
"""
