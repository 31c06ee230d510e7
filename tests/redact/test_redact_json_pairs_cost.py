"""A document of name/value pairs costs a judgement a pair, not a text search a string too.

Issue 23 (the perfjson task): a MB of a Kubernetes env, ``[{"name": "DB_PASSWORD_7",
"value": …}, …]`` (``bench/fuzz_linear.py``'s ``json-pairs``), took 750 ms, 1,000x prose: each
record was walked alone and each of its strings searched as a text of its own (12 us a
name), though the pass over all the records' strings (``batch.may_withhold``) had told the
names clean. The pass's answer now stands for the strings it told clean, as it did for those
it flagged; what is withheld is the same (the slow path, each string judged alone, is the
differential), and the same as the code before where ``ELISION_BEFORE_SRC`` names it.
"""

from __future__ import annotations

import random
import string
from typing import Any

import orjson
import pytest

from elision.redact import generic, redact_value, walk
from elision.shape.jsonparse import parse_json
from support.before import code_before, redacted
from support.calls import counted
from support.engines import hyperscan_only

_COUNT = 2000
_SECRET = "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"
_ALNUM = string.ascii_letters + string.digits


def _ghp(count: int) -> list[str]:
    rng = random.Random(7)
    return ["ghp_" + "".join(rng.choice(_ALNUM) for _ in range(36)) for _ in range(count)]


#: The shapes of the worst JSON rows (bench/fuzz_linear.py's classes, small), and pairs with
#: what a judgement of each string alone would find mixed in.
_DOCS: dict[str, Any] = {
    "json-pairs": [{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"} for i in range(_COUNT)],
    "pairs-mixed": [
        {"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"} if i % 7 else
        {"name": f"note ghp_{_SECRET}{i:04d}", "value": f"password={_SECRET} {i}"}
        for i in range(_COUNT)],
    # other scalars beside the pair, one a string with a token of its own
    "pairs-scalars": [{"name": "api_key", "value": f"{_SECRET}{i}", "n": i, "ok": True,
                       "none": None, "f": 1.5, "note": f"sk-{_SECRET}" if i % 3 else "x"}
                      for i in range(_COUNT)],
    "pairs-clean-names": [{"name": f"VAR_{i}", "value": f"v{i}"} for i in range(_COUNT)]
    + [{"name": "DB_PASSWORD", "value": _SECRET}],
    "json-strings-ghp-distinct": _ghp(_COUNT),
    "records-ghp": [{"id": i, "note": t} for i, t in enumerate(_ghp(_COUNT))],
    "json-keys-affix-strong": {f"password_{i}": "x" for i in range(_COUNT)},
    # names of a few shapes, over a placeholder, secrets, numbers, stubs and the same secret
    "keys-affix-mixed": {f"user_{i}": _SECRET for i in range(40)} | {
        (f"password_{i}" if i % 3 else f"apiKey{i}"): (
            "x" if i % 5 else _SECRET if i % 7 else i if i % 2 else "[credential withheld: a]")
        for i in range(_COUNT)} | {"pwd": "/home/x", "PWD_1": "/home/y", "token": "bpe"}
    | {f"user_{i}": _SECRET for i in range(40)},  # the same value under a name of nothing
    "json-keys-A": {f"{'A' * 60}{i:08d}": i for i in range(_COUNT)},
    "json-strings-sk-numbered": [f"sk-{i}" for i in range(_COUNT)],
}


def _redacted(doc: Any, *, together: bool = True) -> tuple[Any, list[Any]]:
    body = orjson.dumps(doc)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk, "TOGETHER", together)
        mp.setattr(walk, "FLAT", together)
        mp.setattr(generic, "NAME_SHAPES", together)
        done = redact_value(parse_json(body), body=body)
    return done.value, [dict(e) for e in done.withheld]


@hyperscan_only("the records' strings are told together by hyperscan's pass alone")
def test_a_document_of_pairs_searches_no_string_alone() -> None:
    """Red before: each of the 2,000 names was searched as a text of its own."""
    doc = _DOCS["json-pairs"]
    with pytest.MonkeyPatch.context() as mp:
        alone = counted(mp, walk, "redact_spans")
        _, withheld = _redacted(doc)
    assert len(alone) < _COUNT // 16, len(alone)
    assert [e["path"] for e in withheld] == [f"$[{i}].value" for i in range(_COUNT)]


def test_a_big_objects_members_are_judged_once_a_name_shape_and_value() -> None:
    """Red before: each of 2,000 keys ``password_N`` over ``"x"`` was judged afresh."""
    with pytest.MonkeyPatch.context() as mp:
        judged = counted(mp, walk, "is_credential_field")
        _, withheld = _redacted(_DOCS["json-keys-affix-strong"])
    assert withheld == []
    assert len(judged) < 64, len(judged)


@pytest.mark.parametrize("name", sorted(_DOCS))
def test_the_worst_json_rows_withhold_what_each_string_judged_alone_does(name: str) -> None:
    """Byte for byte: the value and the entries, with the strings told together, each moved
    object of scalars judged with no frame and a big object's members judged once a name
    shape and value, and with each string and member judged alone in a frame of its own."""
    fast, slow = _redacted(_DOCS[name]), _redacted(_DOCS[name], together=False)
    assert orjson.dumps(fast) == orjson.dumps(slow)


@pytest.mark.parametrize("name", sorted(_DOCS))
def test_the_worst_json_rows_withhold_what_the_code_before_did(name: str) -> None:
    body = orjson.dumps(_DOCS[name]).decode()
    with code_before() as ask:
        before = ask("json", body)
    assert orjson.dumps(redacted("json", body)) == orjson.dumps(before)
