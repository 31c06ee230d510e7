"""A deferred module (:func:`elision._startup.defer_import`) is the module once anything is read.

The executable holds ``inspect`` by a stand-in while it sets up, since orjson's import pulls it
in through ``dataclasses`` for nothing a hook does (issue 24). Whoever imported the stand-in
must get the real module's behaviour on first use, and later imports the real module.
"""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
from elision._startup import defer_import
defer_import("inspect")
import dataclasses  # binds the stand-in, reads nothing from it
assert "tokenize" not in sys.modules and "ast" not in sys.modules
import inspect
stand_in = inspect
assert type(stand_in).__name__ == "_Deferred"

@dataclasses.dataclass
class Made:  # building a dataclass reads inspect.signature through dataclasses' own binding
    x: int

assert Made.__doc__ == "Made(x: int)", Made.__doc__
assert type(sys.modules["inspect"]).__name__ == "module"
import inspect as again
from inspect import getdoc
assert again is sys.modules["inspect"] and getdoc is again.getdoc
assert stand_in.signature is again.signature and stand_in.__file__ == again.__file__
defer_import("inspect")  # already loaded: nothing changes
assert sys.modules["inspect"] is again
print("ok")
"""


def test_a_deferred_module_loads_on_first_read_and_then_is_the_module() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          timeout=60)
    assert done.stderr == ""
    assert done.stdout == "ok\n"
