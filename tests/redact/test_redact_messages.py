"""What elision itself writes is redacted before it is cut: no part of a secret survives.

Found by an upstream that printed a line holding a ``ghp_`` token on its stdout: the proxy's
stderr quoted pydantic's error, whose ``input_value`` pydantic had already cut to
``'token: ghp_R4nd0mT0k3nF0...3st1ngXyZ12345'``, and a cut token matches no rule.
"""

from __future__ import annotations

import logging
import sys

import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact.messages import RedactingFormatter, clip, describe
from support.seeded import STRAY_FORMS, Seed, by_name, partial_leaks, stray_line

#: The kinds the issue names: a GitHub token, an AWS key, a signed URL, a JWT.
SEEDED = by_name("github-token", "aws-access-key-id", "aws-sigv4-url", "jwt")


def validation_error(line: str) -> Exception:
    """The error the SDK meets reading ``line``: as a message, then as the notification it
    says it is (where a bad log level is found)."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        types.LoggingMessageNotification.model_validate(message.model_dump(), by_name=False)
    except Exception as exc:
        return exc
    raise AssertionError(f"{line!r} validated")


#: Words around the secret, kept apart from it by a space, as in a log line.
words = st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=60)


@settings(max_examples=300, deadline=None)
@given(seed=st.sampled_from(SEEDED), before=words, form=st.integers(0, STRAY_FORMS - 1),
       limit=st.integers(1, 400))
def test_no_part_of_a_secret_survives_a_message(
    seed: Seed, before: str, form: int, limit: int
) -> None:
    line = stray_line(seed, before, form)
    exc = validation_error(line)
    assert not list(partial_leaks(describe(exc, limit), SEEDED))
    assert not list(partial_leaks(clip(line, limit), SEEDED))
    assert len(clip(line, limit)) <= max(limit, 3)


@pytest.mark.parametrize("seed", SEEDED, ids=lambda s: s.name)
def test_a_log_record_is_redacted_before_it_is_cut(seed: Seed) -> None:
    exc = validation_error(stray_line(seed, "token:"))
    try:
        raise exc
    except Exception:
        record = logging.LogRecord(
            "mcp.client.session", logging.WARNING, __file__, 1,
            "upstream sent %s (%s)", (exc, f"at {seed.text}"), sys.exc_info(),
        )
    text = RedactingFormatter("elision proxy: ").format(record)
    assert text.startswith("elision proxy: mcp.client.session: upstream sent ValidationError")
    assert "Traceback" in text  # where it happened is still told
    assert not list(partial_leaks(text, SEEDED))


def test_describe_names_the_first_error_of_a_group() -> None:
    group = ExceptionGroup("tasks", [ValueError(f"bad {SEEDED[0].text}")])
    said = describe(group)
    assert said.startswith("ValueError: bad push with [")
    assert not list(partial_leaks(said, SEEDED))
