"""The chain detects any edit, deletion, reorder or duplicate; a checkpoint also a cut tail."""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from elision.audit.chain import entry_hash, link, tool_result_entry
from elision.audit.verify import recompute_hash, verify_entries
from elision.errors import AuditError

KEY = "hmac:test-key-that-is-long-enough"
SHA_A = "a" * 64
SHA_B = "b" * 64

# Values JCS can carry: no floats, so every implementation canonicalizes them the same way.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
contents = st.dictionaries(
    st.text(min_size=1, max_size=10).filter(
        # acs is an ACS Guardian's session link, which the verifier checks too.
        lambda k: k not in ("entry_id", "entry_hash", "previous_hash", "acs")
    ),
    json_values,
    max_size=5,
)


def build_chain(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    chain: list[dict[str, Any]] = []
    previous = None
    for n, content in enumerate(items, start=1):
        entry = link({"entry_id": str(n), **content}, previous)
        previous = entry["entry_hash"]
        chain.append(entry)
    return chain


def checkpoint_for(chain: list[dict[str, Any]]) -> dict[str, Any]:
    from elision.audit.checkpoint import make_checkpoint, signer_from_key

    cp = make_checkpoint(signer_from_key(KEY), "test", len(chain), chain[-1]["entry_hash"])
    return {"origin": cp.origin, "size": cp.size, "head": cp.head,
            "algorithm": cp.algorithm, "key_id": cp.key_id, "signature": cp.signature}


def test_matches_the_acs_reference_vectors() -> None:
    # Published interop vectors of the ACS reference implementation (agt-go chain tests):
    # a root entry, and a non-ASCII entry_id linked after a given previous_hash.
    root = {"entry_id": "1", "step_id": "0b2f6f7e-0c1d-4e5f-8a9b-1c2d3e4f5a60",
            "step_type": "steps/sessionStart", "timestamp": "2026-09-19T10:00:00Z"}
    assert entry_hash(root, None) == (
        "1552a42d04ec72f9c18945400488e3f50fba5b3256537db01b705eea66e30373"
    )
    third = {"entry_id": "\u00e9-3", "step_id": "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f",
             "step_type": "steps/toolCallResult", "timestamp": "2026-09-19T10:00:02Z"}
    previous = "14e6d50a913e8295606bc0d86ee9cde870040e0e0a319b13ae15836128d0d111"
    assert entry_hash(third, previous) == (
        "86e28e694a7e762f205dc0739e4764d9cb32ff2c2c03a56ca88ecbbe0f505229"
    )


def test_first_entry_appends_nothing_and_link_fields_are_not_hashed() -> None:
    import hashlib

    import rfc8785

    content = {"entry_id": "1", "step_id": "s", "step_type": "steps/toolCallResult"}
    expected = hashlib.sha256(rfc8785.dumps(content)).hexdigest()
    entry = link(content, None)
    assert entry["previous_hash"] is None
    assert entry["entry_hash"] == expected
    assert recompute_hash(entry) == expected


@given(st.lists(contents, min_size=1, max_size=8))
def test_an_untouched_chain_verifies(items: list[dict[str, Any]]) -> None:
    chain = build_chain(items)
    result = verify_entries(chain, [checkpoint_for(chain)], key=KEY)
    assert result.ok, result.problem
    assert result.entries == len(chain)
    assert result.head == chain[-1]["entry_hash"]


@given(st.lists(contents, min_size=1, max_size=8), st.data())
def test_any_edit_is_caught_at_the_edited_entry(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    chain = build_chain(items)
    n = data.draw(st.integers(0, len(chain) - 1))
    key = data.draw(st.sampled_from(sorted(k for k in chain[n] if k != "entry_hash")))
    value = data.draw(json_values)
    assume(chain[n][key] != value)
    tampered = copy.deepcopy(chain)
    tampered[n][key] = value
    result = verify_entries(tampered)
    assert not result.ok
    assert result.first_bad == n + 1


@given(st.lists(contents, min_size=2, max_size=8), st.data())
def test_any_deletion_is_caught(items: list[dict[str, Any]], data: st.DataObject) -> None:
    chain = build_chain(items)
    n = data.draw(st.integers(0, len(chain) - 2))  # a deleted last entry is a cut tail
    result = verify_entries(chain[:n] + chain[n + 1 :])
    assert not result.ok
    assert result.first_bad == n + 1


@given(st.lists(contents, min_size=2, max_size=8), st.data())
def test_any_reorder_is_caught(items: list[dict[str, Any]], data: st.DataObject) -> None:
    chain = build_chain(items)
    i = data.draw(st.integers(0, len(chain) - 2))
    j = data.draw(st.integers(i + 1, len(chain) - 1))
    swapped = list(chain)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    result = verify_entries(swapped)
    assert not result.ok
    assert result.first_bad == i + 1


@given(st.lists(contents, min_size=1, max_size=8), st.data())
def test_any_duplicate_is_caught(items: list[dict[str, Any]], data: st.DataObject) -> None:
    chain = build_chain(items)
    src = data.draw(st.integers(0, len(chain) - 1))
    at = data.draw(st.integers(0, len(chain)))
    duplicated = [*chain[:at], copy.deepcopy(chain[src]), *chain[at:]]
    result = verify_entries(duplicated)
    assert not result.ok
    # A copy placed just before its original is itself well placed; the original is not.
    assert result.first_bad == (at + 2 if src == at else at + 1)


@given(st.lists(contents, min_size=2, max_size=8), st.data())
def test_a_cut_tail_is_caught_only_with_a_checkpoint(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    chain = build_chain(items)
    cp = checkpoint_for(chain)
    keep = data.draw(st.integers(0, len(chain) - 1))
    cut = chain[:keep]
    # Without the checkpoint a shorter chain is a perfectly good chain: nothing to detect.
    assert verify_entries(cut).ok
    result = verify_entries(cut, [cp], key=KEY)
    assert not result.ok
    assert result.first_bad == keep + 1
    assert "cut" in (result.problem or "")


@given(st.lists(contents, min_size=1, max_size=6), contents)
def test_a_full_rewrite_without_a_checkpoint_is_not_detected(
    items: list[dict[str, Any]], forged: dict[str, Any]
) -> None:
    # Documented limit: whoever can rewrite every entry can recompute every hash. Only a
    # checkpoint kept elsewhere (or a chain_hash someone else recorded) exposes it.
    chain = build_chain(items)
    assume(forged != items[0])
    rewritten = build_chain([forged, *items[1:]])
    assert verify_entries(rewritten).ok
    result = verify_entries(rewritten, [checkpoint_for(chain)], key=KEY)
    assert not result.ok
    assert "rewritten" in (result.problem or "")
    # So does a chain_hash an observer recorded from the Guardian's answers.
    published = verify_entries(rewritten, heads=[chain[-1]["entry_hash"]])
    assert not published.ok
    assert "published chain_hash" in (published.problem or "")


def test_a_forged_checkpoint_is_refused() -> None:
    chain = build_chain([{"a": 1}, {"a": 2}])
    cp = checkpoint_for(chain)
    assert not verify_entries(chain, [cp], key="hmac:another-key-long-enough").ok
    forged = dict(cp, size=1, head=chain[0]["entry_hash"])
    result = verify_entries(chain, [forged], key=KEY)
    assert not result.ok
    assert "signature" in (result.problem or "")


def test_checkpoints_without_a_key_say_how_to_give_one() -> None:
    chain = build_chain([{"a": 1}])
    result = verify_entries(chain, [checkpoint_for(chain)])
    assert not result.ok
    assert "--key" in (result.problem or "")
    with pytest.raises(AuditError, match="ELISION_AUDIT_KEY"):
        result.raise_for_problem()


def test_tool_result_entry_omits_absent_members_and_never_writes_null() -> None:
    entry = tool_result_entry(
        step_id="s1", tool="search", full_sha256=SHA_A, full_bytes=10, shown_sha256=SHA_B,
        shown_bytes=5, complete=False, decision="modify", policy_ids=["redact"],
        withheld={"signed-uri": 2, "secret": 0},
    )
    assert "server" not in entry and "session_id" not in entry
    assert None not in entry.values()
    assert entry["withheld"] == {"signed-uri": 2}
    assert entry["step_type"] == "steps/toolCallResult"
    assert entry["full"] == {"sha256": SHA_A, "bytes": 10}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("decision", "maybe"),  # not one of the wire's three
        ("full_sha256", "A" * 64),  # uppercase hex would not match other implementations
        ("shown_sha256", "abc"),  # too short to be a SHA-256
    ],
)
def test_tool_result_entry_refuses_bad_values(field: str, value: str) -> None:
    kwargs: dict[str, Any] = {
        "step_id": "s", "tool": "t", "full_sha256": SHA_A, "full_bytes": 1,
        "shown_sha256": SHA_A, "shown_bytes": 1, "complete": True, "decision": "allow",
    }
    kwargs[field] = value
    with pytest.raises(AuditError, match=repr(value)[:10]):
        tool_result_entry(**kwargs)


def test_the_verifier_imports_nothing_from_the_writer() -> None:
    import elision.audit.verify as verify

    tree = ast.parse(Path(verify.__file__).read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
            imported.update(f"{node.module}.{alias.name}" for alias in node.names)
    writer = ("elision.audit.chain", "elision.audit.log", "elision.audit.checkpoint")
    assert not [name for name in imported if name.startswith(writer)]
    assert "elision.errors" in imported  # the walk does see elision imports


def test_a_key_with_no_checkpoint_fails() -> None:
    # Holding the key, a verifier given no checkpoint cannot tell a cut tail from a short
    # log; passing would let the deletion of one file hide the cut.
    chain = build_chain([{"a": 1}, {"a": 2}])
    result = verify_entries(chain[:1], [], key=KEY)
    assert not result.ok
    assert "--checkpoints" in (result.problem or "")
