"""The site's checks on other torch releases: the rerun cell's runner that every download ends with,
the command that records every check on each release (``nox -s releases``), the runner it starts in
each release's environment, the records the build reads, and the digests of the code each check runs, by which
the build tells the checks a record ran as they now read from those it ran in an older form.
"""
