"""Shared test settings: Hypothesis profiles sized for a 2-core CI machine."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

# CI draws the same examples on every run (derandomize), so a landing is judged on the code,
# not on which inputs one run happened to draw; the dev profile draws new ones each time, which
# is where new counterexamples are found (and then pinned as table cases).
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# Tests (and the proxy subprocesses they start, which inherit the environment) must never write
# the default store or audit log in the real user's data directory.
_DATA_HOME = tempfile.mkdtemp(prefix="elision-test-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME
# The MCP SDK starts stdio servers with a trimmed environment that keeps HOME but drops
# XDG_DATA_HOME, so a proxy started that way falls back to ~/.local/share: HOME moves too.
os.environ["HOME"] = os.path.join(_DATA_HOME, "home")
os.makedirs(os.environ["HOME"])
# Compiled hyperscan databases are cached under the session HOME (elision._hyperscan).
for _name in ("ELISION_STORE", "ELISION_AUDIT", "ELISION_AUDIT_KEY", "ELISION_CACHE_DIR",
              "XDG_CACHE_HOME"):
    os.environ.pop(_name, None)
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)
