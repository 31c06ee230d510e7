"""A base64-encoded credential right after an escape in a text is withheld.

Found while the trigger search for base64 runs was rewritten (issue 23): in a log of serialized
strings a value after a line break reads ``a\\nZ2hwX…``. The run of base64 chars takes the
escape's letter (``nZ2hwX…``), so decoding it reads every byte one off and finds nothing; the
trigger search already tried the run from the next char (``rules._Prefilter._b64_hit``) and
flagged the text, but the judge did not, and the credential went through. Red on the code
before for every case below.
"""

from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text
from elision.redact.families import PATTERN_FAMILIES, sample

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AWS = "AKIA" + "QYLPMN5HFIQR7XYZ"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()



@pytest.mark.parametrize("before", [
    "a\\n",          # a line break in a serialized string
    "a\\t",          # a tab
    "log: \\r",      # a carriage return
    "x=\\n",         # after an assignment's escape
    "\\n",           # at the very start of the text
    "one\\ntwo\\n",  # the second of two escapes
])
@pytest.mark.parametrize("secret", [f"token: {GITHUB}", f"aws_access_key_id={AWS}"])
def test_a_base64_credential_after_an_escape_is_withheld(keyword_engine: str, before: str,
                                                         secret: str) -> None:
    encoded = _b64(secret)
    shown = redact_text(f"{before}{encoded} end")
    assert encoded not in shown.value
    assert shown.withheld
    assert shown.value.startswith(before)  # the escape itself is kept: it holds nothing


def test_a_run_after_an_escape_that_decodes_to_nothing_is_kept() -> None:
    """Only a credential is withheld: a plain base64 run after an escape stays."""
    encoded = _b64("just some ordinary words, nothing secret here")
    assert redact_text(f"a\\n{encoded}").value == f"a\\n{encoded}"


@pytest.mark.usefixtures("keyword_engine")
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(family=st.sampled_from(PATTERN_FAMILIES), seed=st.integers(0, 10**6),
       letter=st.sampled_from("nrtbf"), head=st.text("abc xyz=:", max_size=12))
def test_an_escape_never_hides_what_a_space_shows(family: object, seed: int, letter: str,
                                                  head: str) -> None:
    """Whatever base64-encoded credential is withheld after a space is withheld after a JSON
    escape too (the ones the trigger search reads as opening a run: keywords.opens_run), and
    the escape is kept."""
    fake = sample(family, 0, seed)[0]  # type: ignore[arg-type]
    encoded = _b64(f"key: {fake}")
    if encoded in redact_text(f"{head} {encoded}").value:
        return  # not withheld after a space either: nothing to compare
    shown = redact_text(f"{head}\\{letter}{encoded}").value
    assert encoded not in shown
    assert shown.startswith(f"{head}\\{letter}")
