"""A package whose ``__init__`` is deferred (:func:`elision._startup.defer_package_init`) is
the package once a name is read from it, and nothing else changes.

The proxy holds the MCP SDK's ``mcp`` package so while it sets up: ``import mcp.server.lowlevel``
ran ``mcp/__init__``, which imports client pieces (session groups, the SSE client) the proxy
never uses (issue 24). A submodule must import as ever without it; a name read from the package
(``from mcp import Client``) must run it once and answer as a plain import would, whatever was
imported before, from however many threads.
"""

from __future__ import annotations

import builtins
import importlib
import itertools
import subprocess
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision._startup import defer_package_init

#: The package's files: its __init__ imports a submodule, binds one under another name and a
#: name of a submodule it rebinds, and counts its runs; each module notes that it ran.
INIT = """
import builtins
builtins._deferred_runs.append(__name__)
from . import sub as sub
from .heavy import Heavy
from .rebound import value as rebound
__all__ = ["Heavy", "sub", "rebound"]
ANSWER = 42
"""
FILES = {
    "__init__.py": INIT,
    "sub.py": "import builtins\nbuiltins._deferred_runs.append(__name__)\nSUB = 1\n",
    "heavy.py": "import builtins\nbuiltins._deferred_runs.append(__name__)\nclass Heavy: pass\n",
    "rebound.py": "value = 'rebound'\n",
    "other.py": "OTHER = 2\n",
}
_names = itertools.count()


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("deferred")
    sys.path.insert(0, str(root))
    builtins._deferred_runs = []  # type: ignore[attr-defined]
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        del builtins._deferred_runs  # type: ignore[attr-defined]


def fresh(root: Path, init: str = INIT) -> str:
    """A package of its own name each time, not yet imported."""
    name = f"deferred_pkg_{next(_names)}"
    folder = root / name
    folder.mkdir()
    for file, text in FILES.items():
        (folder / file).write_text(init if file == "__init__.py" else text)
    importlib.invalidate_caches()
    return name


def runs(name: str) -> list[str]:
    return [m for m in builtins._deferred_runs if m.split(".")[0] == name]  # type: ignore[attr-defined]


def namespace(module: types.ModuleType) -> dict[str, object]:
    """What a reader of the package sees: every name bound in it but the import machinery's own
    (the loader and spec objects differ between two imports of the same files)."""
    return {k: v for k, v in vars(module).items()
            if k not in ("__loader__", "__spec__", "__builtins__", "__cached__")}


def test_a_submodule_imports_without_the_init(packages: Path) -> None:
    name = fresh(packages)
    defer_package_init(name)
    sub = importlib.import_module(f"{name}.sub")
    package = sys.modules[name]
    assert runs(name) == [f"{name}.sub"]  # the __init__ did not run, nor what it imports
    assert package.sub is sub  # bound by the import, read without running the __init__
    assert runs(name) == [f"{name}.sub"]
    assert package.__path__ == [str(packages / name)]


def test_the_first_name_read_runs_the_init_once_into_the_same_module(packages: Path) -> None:
    name = fresh(packages)
    defer_package_init(name)
    stand_in = sys.modules[name]
    heavy = importlib.import_module(f"{name}.heavy").Heavy
    assert stand_in.ANSWER == 42
    assert type(stand_in) is types.ModuleType
    assert runs(name) == [f"{name}.heavy", name, f"{name}.sub"]
    assert importlib.import_module(name) is stand_in and stand_in.Heavy is heavy
    assert stand_in.rebound == "rebound"  # the __init__'s binding, not the submodule
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        _ = stand_in.missing
    assert runs(name).count(name) == 1


def test_star_import_follows_all(packages: Path) -> None:
    name = fresh(packages)
    defer_package_init(name)
    scope: dict[str, object] = {}
    exec(f"from {name} import *", scope)
    assert sorted(k for k in scope if not k.startswith("__")) == ["Heavy", "rebound", "sub"]


def test_a_failing_init_leaves_no_module_behind_as_an_import_would(packages: Path) -> None:
    name = fresh(packages, init="raise RuntimeError('init failed')\n")
    defer_package_init(name)
    importlib.import_module(f"{name}.other")  # a submodule still imports
    with pytest.raises(RuntimeError, match="init failed"):
        _ = sys.modules[name].OTHER
    assert name not in sys.modules
    with pytest.raises(RuntimeError, match="init failed"):  # the next import tries again
        importlib.import_module(name)


def test_threads_reading_at_once_run_the_init_once(packages: Path) -> None:
    name = fresh(packages)
    defer_package_init(name)
    package = sys.modules[name]
    seen: list[object] = []
    start = threading.Barrier(8)

    def read() -> None:
        start.wait()
        seen.append(package.Heavy)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and len({id(s) for s in seen}) == 1
    assert runs(name).count(name) == 1


@pytest.mark.parametrize("target", [
    "json",  # loaded already: left alone
    "json.decoder",  # not top-level
    "no_such_package_anywhere",  # not installed
    "this_module_is_not_a_package",  # a plain module has no __init__ to defer
])
def test_nothing_happens_where_there_is_nothing_to_defer(
    packages: Path, target: str
) -> None:
    (packages / "this_module_is_not_a_package.py").write_text("X = 1\n")
    importlib.invalidate_caches()
    before = sys.modules.get(target)
    defer_package_init(target)
    assert sys.modules.get(target) is before


@settings(max_examples=40, deadline=None)
@given(first=st.lists(st.sampled_from(["sub", "heavy", "rebound", "other"]), max_size=4),
       read=st.sampled_from(["ANSWER", "Heavy", "sub", "rebound", "__all__", "__doc__",
                             "other", "missing"]))
def test_whatever_came_first_the_package_ends_as_a_plain_import_makes_it(
    packages: Path, first: list[str], read: str
) -> None:
    """Submodules imported in any order before the first read, then any name read (a dunder,
    a submodule the __init__ rebinds, one it never imports, one that is not there): the
    namespace is the one a plain import of the same files makes after the same steps."""
    deferred, plain = fresh(packages), fresh(packages)
    defer_package_init(deferred)
    outcomes = []
    for name in (deferred, plain):
        for sub in first:
            importlib.import_module(f"{name}.{sub}")
        package = importlib.import_module(name)
        try:
            value = getattr(package, read)
        except AttributeError:
            value = AttributeError
        _ = package.ANSWER  # the deferred one has surely run its __init__ by now
        outcomes.append((package, value))
    (got, got_value), (want, want_value) = outcomes

    def renamed(space: dict[str, object], name: str) -> dict[str, object]:
        return {k: (v.__name__.replace(name, "PKG") if isinstance(v, types.ModuleType)
                    else v.__qualname__ if isinstance(v, type) else
                    v.replace(name, "PKG") if isinstance(v, str) else
                    [p.replace(name, "PKG") for p in v] if isinstance(v, list) else v)
                for k, v in space.items()}

    assert renamed(namespace(got), deferred) == renamed(namespace(want), plain)
    if read == "rebound" and read in first:
        # The one difference, and why defer_package_init suits only a package whose __init__
        # binds no submodule's name to something else (the SDK's does not: see the check
        # below): the submodule imported first is bound until the __init__ runs.
        assert isinstance(got_value, types.ModuleType) and want_value == "rebound"
    else:
        assert type(got_value) is type(want_value) or got_value is want_value
    assert runs(deferred).count(deferred) == 1


SDK_CHECK = """
import json, sys, types
if sys.argv[1] == "deferred":
    from elision._startup import defer_package_init
    defer_package_init("mcp")
    import mcp.server.lowlevel, mcp.client.session, mcp.shared.exceptions
    assert "mcp.client.session_group" not in sys.modules, "the SDK's __init__ ran"
    assert type(sys.modules["mcp"]).__name__ == "_DeferredInit"
    from mcp import Client
else:
    import mcp
    from mcp import Client
mcp = sys.modules["mcp"]
assert type(mcp) is types.ModuleType
def shown(value):
    if isinstance(value, types.ModuleType):
        return "module " + value.__name__
    return getattr(value, "__module__", "") + ":" + getattr(value, "__qualname__", repr(value))
import pkgutil
# A submodule name the __init__ binds to something else would read as the submodule while
# the __init__ is deferred: the SDK binds none (types is the submodule itself).
for found in pkgutil.iter_modules(mcp.__path__):
    bound = vars(mcp).get(found.name)
    assert bound is None or bound is sys.modules[f"mcp.{found.name}"], found.name
print(json.dumps({name: shown(getattr(mcp, name)) for name in sorted(vars(mcp))
                  if name not in ("__loader__", "__spec__", "__builtins__")}))
"""


def test_the_sdk_package_reads_the_same_deferred_or_not() -> None:
    """Differential against a plain ``import mcp`` in a fresh interpreter: every name the SDK's
    package binds, each the same object (by module and name), after a deferred start that
    imported the proxy's submodules first."""
    seen = [subprocess.run([sys.executable, "-c", SDK_CHECK, how], capture_output=True,
                           text=True, timeout=120, check=True).stdout
            for how in ("deferred", "plain")]
    assert seen[0] == seen[1]
    assert '"Client": "mcp.client.client:Client"' in seen[0]
