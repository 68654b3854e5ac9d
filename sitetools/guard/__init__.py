"""What runs around each example inside Sphinx (sphinx-gallery's ``reset_modules`` hook): a fresh
global state and a time limit, the record of the checks that ran, the fingerprint of global state an
example must leave as it found it, the channels its output takes, and the files it writes and the
processes it leaves running.
"""
