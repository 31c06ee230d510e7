"""A real FCM server key glued right after a placeholder (``xxxxAAAA…:APA91b…``) is withheld.

A config template's ``FCM_KEY=xxxx`` edited by pasting the real key after the mask, not over
it, showed the key whole on every route: the family's boundary refused a match with a letter
right before it (a token inside a word). An FCM key needs no such guard: its ``:APA91b`` and
the 120 chars or more after it are the key whatever stands before its ``AAAA``, so the row
lets a word char stand there (``boundary = false``), and the mask stays shown. Found on the
leak list of issue 23's sessions; each case marked red was red on the code before.
"""

from __future__ import annotations

import json
import random

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value
from elision.redact.families import BY_ID, fill

FCM = BY_ID["firebase-cloud-messaging-key"]


def key(seed: int) -> str:
    return fill(FCM.shapes[0], random.Random(seed))


def shown_anywhere(text: str, secret: str) -> bool:
    body = orjson.dumps({"config": text})
    return (secret in redact_text(text).value
            or secret in orjson.dumps(redact_value({"config": text}).value).decode()
            or secret in shape(body, budget=100_000).text
            or secret in redact_text(json.dumps({"outer": body.decode()})).value)


@pytest.mark.parametrize(
    "before",
    [
        "xxxx",  # the brief's: red before
        "XXXX",  # red before
        "x",  # red before
        "FCM_SERVER_KEY=xxxxxxxx",  # a template's mask, edited by pasting after it: red
        "your_key_here",  # red before
        "0000",  # red before
        "",  # alone: withheld before too
        "****",  # a mask of no word chars: withheld before too
    ],
)
def test_an_fcm_key_glued_after_a_placeholder_is_withheld(before: str) -> None:
    secret = key(7)
    assert not shown_anywhere(before + secret, secret[12:])


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # The mask before the key is no credential: it stays, the key becomes a stub.
        ("xxxx" + key(1), "xxxx[credential withheld: firebase-cloud-messaging-key]"),
        # A registration token's prefix with too few chars after it is no key.
        ("xxxxAAAAb7Qz2pX:APA91b" + "aZ3" * 30, "APA91b"),
        # A run of one char (no entropy) after a mask stays shown, as it did alone.
        ("xxxxAAAAbbbbbbb:APA91b" + "b" * 134, "APA91b"),
    ],
)
def test_what_is_no_key_beside_a_placeholder_stays_shown(text: str, shown: str) -> None:
    assert shown in redact_text(text).value


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    mask=st.text("xX0*#_-.", min_size=1, max_size=12),
    word=st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", max_size=8),
    after=st.sampled_from(["", " ", "\n", "\"", ",", "é"]),
    glued=st.booleans(),
)
def test_an_fcm_key_after_any_mask_or_word_is_withheld(
    seed: int, mask: str, word: str, after: str, glued: bool
) -> None:
    """A random key after a random mask or word (and a second key glued to the first): no
    part of either key past its ``AAAA`` is shown."""
    first, second = key(seed), key(seed + 1)
    text = word + mask + first + after + (mask + second if glued else "")
    out = redact_text(text).value
    assert first[12:] not in out
    if glued:
        assert second[12:] not in out
    assert first[12:] not in orjson.dumps(redact_value({"k": text}).value).decode()
