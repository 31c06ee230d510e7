"""A UTF-8 text is judged from its own bytes (issue 17): the redact stage no longer decodes a
text result and re-encodes it for the trigger search when nothing in it is to be withheld.
That shortcut must withhold exactly what the full route does, on any text: ASCII or not, with
the Kelvin sign (which only the text rules read as a "k"), or bytes that are not UTF-8."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.pipeline import Capture
from elision.redact import RedactStage, redact_text
from redact.test_redact_prefilter_differential import seeded_texts
from support.engines import hyperscan_only

#: Texts the shortcut must pass through to the full route: a seeded credential, a text that
#: opens as one base64 value, a non-ASCII text (its bytes are not what the search sees).
TEXTS = st.one_of(
    seeded_texts(),
    st.text(alphabet="abcxyz0123456789 =:/\n", max_size=200),
    st.sampled_from(["", "\n\n", "ZXlK" + "a" * 60, "eyJhbGciOiJIUzI1NiJ9" * 3]),
    # Not ASCII: accents, a wide char, the Kelvin sign, a lone surrogate (not UTF-8 once
    # encoded), mixed into text that may hold a trigger.
    st.lists(st.one_of(
        st.text(alphabet="abc\u00e9\u4e2d\U0001f600 =:/\n\r", max_size=30),
        st.sampled_from(["api_\u212aey=Xk2p9Qz7Lm4Rt8Vw12345", "\ud800", "token=",
                         "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "caf\u00e9"]),
        seeded_texts(),
    ), max_size=6).map("".join),
)


def _capture(text: str) -> Capture:
    body = text.encode("utf-8", "surrogatepass")
    return Capture(body, hashlib.sha256(body).hexdigest(), "text")


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_the_stage_withholds_what_redact_text_withholds(text: str) -> None:
    body = text.encode("utf-8", "surrogatepass")
    expected = redact_text(body.decode("utf-8", errors="replace"))
    done = RedactStage().redact(_capture(text))
    assert done.withheld == expected.withheld
    if expected.withheld:
        assert done.value == expected.value


@pytest.mark.parametrize("text", [
    "token=ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + " in a log line",  # a trigger
    "caf\u00e9 token=ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",  # not ASCII
    base64.b64encode(b"api_key=Xk2p9Qz7Lm4Rt8Vw12345").decode(),  # a whole base64 value
])
def test_a_text_with_a_credential_is_still_redacted(text: str) -> None:
    done = RedactStage().redact(_capture(text))
    assert done.withheld
    assert "ghp_A1b2" not in str(done.value) and "YXBpX2tleT1Ya" not in str(done.value)


@hyperscan_only(
    "told from the body's bytes by hyperscan's literals; the regex passes over bytes read \\w, "
    "\\s and \\b as ASCII only, so on a text that is not ASCII their answer is not proven to be "
    "a superset of the str passes' (the text is decoded and searched: its str, 1x)")
@pytest.mark.parametrize("text", [
    "caf\u00e9 build ok\n" * 50,  # Latin-1 range
    "\u4e2d\u6587 \U0001f600 step 3 of 9\n" * 50,  # wide chars
])
def test_a_clean_utf8_text_is_not_decoded(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A 100 MB log with one accent cost two copies (its str, then the str encoded again for
    # the search) only to find nothing: the peak of `elision shape` was 4.3x the log.
    import elision.redact as redact

    def decoded(*_: object, **__: object) -> None:
        raise AssertionError("a text with nothing to withhold was decoded and searched again")

    monkeypatch.setattr(redact, "redact_text", decoded)
    capture = _capture(text)
    done = RedactStage().redact(capture)
    assert done.withheld == () and done.value is capture.value
