"""An object's many keys are measured once, and only where something in them is found
(issue 23).

Found by profiling ``bench/redact.py --worst json-keys-A`` (the ndkeys2 helper, 1 MB, 10.5 ms
CPU, 15x prose): the keys' lengths were summed a key at a time three times, each a Python
step a key in C, 0.9 ms a MB: twice for the blocks the keys are joined in (once for the
pass, :func:`elision.redact.batch.may_withhold`, once for the names' search,
:func:`elision.redact.generic.naming`) and once more in each block for where its keys
start, which only a match needs, and keys of sixty ``A`` have none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest

from elision.redact import batch, generic, walk
from elision.redact.generic import JOIN_BLOCK
from support.before import redacted

KEYS = [f"{'A' * 60}{i:08d}" for i in range(3000)]


def test_the_keys_blocks_are_told_once_for_the_pass_and_the_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: two (the pass's and the names' search's)."""
    told: list[int] = []
    real = generic.join_blocks

    def counted(texts: Any, chars: int) -> Any:
        told.append(len(texts))
        return real(texts, chars)

    for module in (batch, generic, walk):
        monkeypatch.setattr(module, "join_blocks", counted)
    walk._key_inert.clear()
    assert walk.names_inert(dict.fromkeys(KEYS, 1)) is True
    assert told == [len(KEYS)]


def test_where_the_keys_start_is_counted_only_for_a_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red before: once a block, matched or not."""
    counted: list[int] = []
    real = batch.accumulate

    def counting(*args: Any, **kwargs: Any) -> Any:
        counted.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(batch, "accumulate", counting)
    assert batch.may_withhold(KEYS) == set()
    assert counted == []
    # A key with a credential in it is still found, at its index.
    odd = [*KEYS]
    odd[1234] = "ghp_" + "x1Y2" * 9
    assert batch.may_withhold(odd) == {1234}
    assert counted


@pytest.mark.parametrize("at", [0, 1, 1500, 2999])
def test_an_object_of_keys_with_one_credential_is_redacted_as_before(
    code_before_answers: Callable[[str, str], Any], at: int,
) -> None:
    keys = [*KEYS]
    keys[at] = "ghp_" + "x1Y2" * 9 + "AAAA"
    payload = orjson.dumps(dict.fromkeys(keys, 1)).decode()
    assert redacted("json", payload) == code_before_answers("json", payload)
    assert len(payload) > JOIN_BLOCK  # more than one block
