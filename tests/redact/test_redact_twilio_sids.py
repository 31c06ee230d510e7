"""Twilio's SIDs: an API key's SID (``SK`` + 32 hex) is withheld, an Account SID (``AC`` + 32
hex) is an identifier and is kept, and the auth token beside it is withheld
(``twilio-auth-token``). Found by the review of issue 23's speed-ups: the row's pattern took
``AC…`` too, with no keyword of its own, so an Account SID was withheld only where an
``SK0``…``SKf`` happened to stand a short way before it on its line."""

from __future__ import annotations

import pytest

from elision.redact import redact_text, redact_value
from elision.redact.families import PATTERN_FAMILIES
from elision.redact.secrets import prefixes

ACCOUNT = "AC" + "0123456789abcdef" * 2
KEY = "SK" + "fedcba9876543210" * 2
TOKEN = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"


@pytest.mark.parametrize("text", [
    f"{ACCOUNT}",
    f"account {ACCOUNT}",
    f"SK0 then {ACCOUNT}",  # a keyword of the key's row just before: red before
    f"key {KEY} account {ACCOUNT}",  # the key's own SID before it on the line: red before
    f"TWILIO_ACCOUNT_SID={ACCOUNT}",
])
def test_an_account_sid_is_kept_wherever_it_stands(text: str) -> None:
    assert ACCOUNT in redact_text(text).value
    assert ACCOUNT in str(redact_value({"sid": text}).value)


def test_the_api_key_sid_and_the_auth_token_beside_an_account_sid_are_withheld() -> None:
    text = f"TWILIO_ACCOUNT_SID={ACCOUNT}\nTWILIO_API_KEY={KEY}\nTWILIO_AUTH_TOKEN={TOKEN}\n"
    done = redact_text(text)
    assert ACCOUNT in done.value and KEY not in done.value and TOKEN not in done.value
    assert {e["reason"] for e in done.withheld} >= {"twilio-api-key-sid", "twilio-auth-token"}


#: Rows whose opening literals are context a keyword follows in the match (``server=…;
#: password=``): what opens the match is not what names it.
_KEYWORD_LATER = {"ado-connection-string-password"}


def test_each_opening_of_a_family_pattern_is_one_of_its_keywords() -> None:
    """A branch a row's pattern opens with, and that none of its keywords spell, matches
    values the keyword search finds only by chance (twilio's ``AC``)."""
    for index, family in enumerate(PATTERN_FAMILIES):
        opened = prefixes(index)
        if opened is None or family.id in _KEYWORD_LATER:
            continue
        runs, any_case = opened
        keywords = [k.lower() if any_case else k for k in family.keywords]
        for run in runs:
            assert any(k.startswith(run) or run.startswith(k) for k in keywords), (
                family.id, run)
