"""The audit chain: hash-chained entries that bind what a tool returned and what was shown.

``chain`` computes ACS §8.2 entry hashes, ``log`` appends them to SQLite and writes signed
checkpoints (``checkpoint``), and ``verify`` checks a log without importing any of those.
"""
