"""The Go reference Guardian's vectors reproduced, and the shipped schemas held to the
standard's.

The vectors and schemas are vendored (tests/data/acs, src/elision/data/acs; Apache-2.0, see
their NOTICE files) so these run on any checkout; where the project's ``shared/acs`` copy is
beside the repository, the vendored files are compared with it byte for byte.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from elision.audit.chain import entry_hash, request_hash
from elision.audit.jcs import canonical
from elision.guard.acs_schema import FILES
from elision.guard.signing import EnvelopeSigner, hkdf_sha256, signing_input
from support.acs import PACKAGED, ROOT, shared_acs

VECTORS = ROOT / "tests" / "data" / "acs"


def vectors(name: str) -> Any:
    return json.loads((VECTORS / name).read_text("utf-8"))


def test_the_chain_vectors_reproduce() -> None:
    data = vectors("go-chain-vectors.json")
    rh = data["request_hash"]
    assert canonical(rh["params"]).decode() == rh["canonical"]
    assert request_hash(rh["params"]) == rh["hash"]
    for case in data["chain"]:
        assert canonical(case["entry"]).decode() == case["canonical_content"]
        assert entry_hash(case["entry"], case["previous_hash"]) == case["entry_hash"]


def test_the_envelope_vectors_reproduce() -> None:
    data = vectors("go-envelope-vectors.json")
    ikm = bytes.fromhex(data["ikm_hex"])
    assert hkdf_sha256(ikm, data["session_id"].encode()).hex() == data["session_key_hex"]
    signer = EnvelopeSigner(ikm, data["key_id"])
    for side, member in (("request", "params"), ("response", "result")):
        signed = data[side]["signed"]
        assert signing_input(signed, member).decode() == data[side]["signing_input"]
        assert signer.verify(signed, member, data["session_id"]) is None
        fresh = {k: v for k, v in signed.items()}
        fresh[member] = {k: v for k, v in signed[member].items() if k != "signature"}
        signer.sign(fresh, member, data["session_id"])
        assert fresh[member]["signature"] == signed[member]["signature"]
        assert base64.b64decode(fresh[member]["signature"]["value"])


def shared_or_skip() -> Path:
    shared = shared_acs()
    if shared is None:
        pytest.skip(f"no shared/acs/v0.1.0 beside {ROOT} (CI puts one there): the vendored "
                    "copies are used as they are")
    return shared


@pytest.mark.parametrize("name", FILES)
def test_the_shipped_schemas_are_the_standards(name: str) -> None:
    assert (PACKAGED / name).read_bytes() == (shared_or_skip() / name).read_bytes()


@pytest.mark.parametrize("name", ["go-chain-vectors.json", "go-envelope-vectors.json"])
def test_the_vendored_vectors_are_the_standards(name: str) -> None:
    assert (VECTORS / name).read_bytes() == (shared_or_skip() / "vectors" / name).read_bytes()
