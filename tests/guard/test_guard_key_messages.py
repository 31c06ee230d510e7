"""A malformed ACS key is named as such, says what to give, and is never shown.

Found in a QA pass: ``ELISION_ACS_KEY=hex:zz`` was refused as "too short", though it was not
hex at all; the fix was to give valid hex, or drop the prefix for a passphrase.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from elision.cli import main
from elision.errors import InputError
from elision.guard.signing import signer_from_text


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("hex:not-hexQQ", "not hex digits"),  # not hex at all
        ("hex:abcQQ", "not hex digits"),  # 'Q' is no hex digit
        ("hex:abc", "odd number"),  # half a byte
        ("hex:abcd", "2 bytes"),  # valid hex, too short to be a key
        ("hex:", "0 bytes"),  # nothing after the prefix
        ("Sh0rtPassQQ", "11 bytes"),  # a passphrase too short
    ],
)
def test_a_malformed_acs_key_says_what_is_wrong_and_what_to_give(
    key: str, expected: str
) -> None:
    with pytest.raises(InputError) as info:
        signer_from_text(key)
    message = str(info.value)
    assert expected in message
    assert "ELISION_ACS_KEY" in message and "hex:" in message  # what to give
    secret = key.removeprefix("hex:")
    assert not secret or secret not in message


def test_the_guardian_refuses_a_non_hex_key_as_bad_usage(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELISION_ACS_KEY", "hex:zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzQQ")
    result = CliRunner().invoke(main, ["guardian", "--no-store", "--log", f"{tmp_path}/a.db"])
    assert result.exit_code == 2, result.output
    assert "not hex digits" in result.stderr and "too short" not in result.stderr
    assert "zzzzQQ" not in result.output
