"""No pattern of the package repeats something that itself repeats, unless it is read one way.

Found this session: the affixed names' pattern ``(?:[0-9]+|v[0-9]+|…)+`` backtracked
exponentially where it failed, so one JSON key (``a`` + 22 digits + ``v``) took 0.2 s to judge
and four times more each two digits more, and a tool could hold the proxy's loop with one
member. A repeat inside a repeat is where such inputs live (``(a+)+``); this walks every
module-level pattern of ``elision`` (compiled, or ``lazy_compile``'d) and names the ones that
hold one, so a new one is looked at before an attacker finds it. Told by the patterns' parse
trees, not a clock.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import elision
from support.regexes import repeats_a_repeat

#: Each read one way only, so no input backtracks through them (each with why).
READ_ONE_WAY = {
    # each repeat opens with "]", which the repeat before it cannot hold
    "elision.install.tomlcfg._HEADER",
    # only ever .match()ed with nothing after it: its greedy first reading is the answer
    "elision.redact.generic._MESSAGE",
    # each repeat opens with "\\/", a backslash the repeat before it cannot hold (perfauth)
    "elision.redact.authheader._READ_PAST",
    # each repeat of fish's flags opens with white space then "-", which neither the flag
    # before it nor the variable's name after it can hold (leaksa; a MB of " -x" or of
    # white space after "set" is read in a few ms, growing linearly)
    "elision.redact.commands._COMMAND",
}


def _patterns() -> dict[str, str]:
    found: dict[str, str] = {}
    for info in pkgutil.walk_packages(elision.__path__, "elision."):
        if info.name.endswith("__main__"):
            continue  # runs the CLI
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError as missing:  # an optional extra's (elision[fastmcp])
            if (missing.name or "").startswith("elision"):
                raise
            continue
        for name, value in vars(module).items():
            pattern = getattr(value, "pattern", None)
            if not (isinstance(value, re.Pattern) or hasattr(value, "compiled")):
                continue
            if isinstance(pattern, bytes):
                pattern = pattern.decode("latin-1")
            if isinstance(pattern, str):
                found[f"{info.name}.{name}"] = pattern
    return found


def test_no_pattern_repeats_a_repeat() -> None:
    patterns = _patterns()
    assert "elision.redact.generic._GLUED_AFFIX" in patterns  # the walk reaches lazy ones
    nested = sorted(name for name, pattern in patterns.items()
                    if repeats_a_repeat(pattern))
    assert nested == sorted(READ_ONE_WAY)


def test_the_check_finds_the_pattern_that_was_exponential() -> None:
    assert repeats_a_repeat("(.*?[a-z])(?:[0-9]+|v[0-9]+|old)+")
    assert not repeats_a_repeat("(.*?[a-z])(?:[0-9]|v[0-9]|old)+")
