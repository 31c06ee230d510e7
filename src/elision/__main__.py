"""``python -m elision``: the same command line as ``elision``."""

from elision.cli import run

run()
