"""Over 10 MB of realistic clean tool output (tests/redact/benign.py) gives 0 redactions: git
SHAs, UUIDs, content hashes, base64 thumbnails, pagination cursors, page tokens, sort keys,
``PWD`` paths and prose about authentication are kept exactly, in text and as JSON."""

from __future__ import annotations

import orjson
import pytest

from elision.redact import redact_text, redact_value, triggers
from redact.benign import KINDS, corpus
from support.engines import trigger_engines

#: 8 kinds x 1.6 MB: over 10 MB in all.
SIZE = 1_600_000


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_clean_corpus_gives_no_redaction(kind: str) -> None:
    text = corpus(kind, SIZE)
    assert len(text) >= SIZE
    result = redact_text(text)
    assert result.withheld == (), result.withheld[:5]
    assert result.value is text or result.value == text
    if kind == "json":
        body = text.encode()
        parsed = redact_value(orjson.loads(body), body=body)
        assert parsed.withheld == (), parsed.withheld[:5]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_regex_passes_agree_on_a_slice(kind: str) -> None:
    # The same verdict without hyperscan, on a slice (the regex passes are slower).
    text = corpus(kind, 200_000, seed=1)
    for engine in trigger_engines():
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(triggers, "engine", lambda engine=engine: engine)
            assert redact_text(text).withheld == ()
