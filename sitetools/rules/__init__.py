"""The page-source rules, checked before anything builds (a preview too) and by the fast test tier:
the page list and the source rules, parity between editions, what a page may print and import, its
checks and their manifest, labels, boxes, typography, terminology, first mentions, citations and active
content. :mod:`sitetools.rules.all_rules` runs every rule in one call.
"""
