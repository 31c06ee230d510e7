"""A redaction policy from a config file keeps its stubs' records where the default one does.

``redact = true`` in a Guardian config builds a :class:`RedactionPolicy` before any store is
open; ``GuardianConfig.bind_store`` (what ``elision guardian`` calls once it has the store) must
give it the same ``keep`` as the default policy, or its reference stubs cannot be resolved.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from elision.errors import RefNotFound
from elision.guard.config import config_from_mapping
from elision.guard.policy import Guardian, Policy, RedactionPolicy, ToolCall, ToolResult
from elision.redact import lookup_reference, read_plan
from elision.store.memory import MemoryStore

URI = "https://files.example.com/scan-2291.png"
VALUE = {"hits": [{"type": "image", "uri": URI, "mimeType": "image/png", "data": "iVBORw0K"}]}


def _stub_of(policies: list[Policy]) -> str:
    """The reference stub id in the one modification the Guardian makes to VALUE."""
    result = ToolResult(VALUE, 100, "0" * 64)
    verdict = Guardian(policies).evaluate(result, ToolCall("search", "files"))
    assert verdict.decision == "modify"
    replacements = [str(r.to_wire()["replacement"]) for r in verdict.redactions]
    (stub,) = re.findall(r"\[(ref_[a-z0-9]+)\]", " ".join(replacements))
    return stub


def _resolve(stub: str, store: MemoryStore) -> Any:
    # The path elision_fetch_reference takes: the record from the store, then its read plan.
    return read_plan(stub, lookup_reference(stub, store=store, scope=None))


def test_a_config_policy_bound_to_the_store_resolves_like_the_default() -> None:
    store = MemoryStore()
    config = config_from_mapping({"guardian": {"redact": True}})
    config.bind_store(store)
    from_config = _resolve(_stub_of(config.policies), store)

    from elision.guard.policy import store_keeper

    default = _resolve(_stub_of([RedactionPolicy(keep=store_keeper(store))]), store)
    assert from_config.uri == default.uri == URI
    assert from_config.server == default.server == "files"
    assert from_config.mime_type == default.mime_type == "image/png"


def test_without_a_store_the_stub_has_no_record() -> None:
    # What the binding fixes: the config's policy alone keeps nothing.
    store = MemoryStore()
    config = config_from_mapping({"guardian": {"redact": True}})
    stub = _stub_of(config.policies)
    with pytest.raises(RefNotFound):
        lookup_reference(stub, store=store, scope=None)
    config.bind_store(None)  # nothing to bind: still nothing kept
    with pytest.raises(RefNotFound):
        lookup_reference(_stub_of(config.policies), store=store, scope=None)


def test_a_policy_that_keeps_elsewhere_is_left_alone() -> None:
    kept: dict[str, dict[str, Any]] = {}
    config = config_from_mapping({})
    config.policies.append(RedactionPolicy(keep=kept.__setitem__))
    config.bind_store(MemoryStore())
    stub = _stub_of(config.policies)
    assert kept[stub]["uri"] == URI
