"""Tools for writing pages: a new page in every edition from the template, a page's code cells copied
between editions, the drawing helpers' master copy, and the catalog of the checks' messages that each
edition translates.
"""
