"""A signer's repr never shows its key (found reading the audit signer while converting it
from a dataclass for issue 24: ``repr(HmacSigner(...))`` printed the HMAC secret, so a log line,
a traceback's locals or a debugger showed the audit key)."""

from __future__ import annotations

import pytest

from elision.audit.checkpoint import HmacSigner
from elision.guard.signing import EnvelopeSigner

SECRET = b"s3cr3t-audit-key-0123456789abcdefXYZ"


@pytest.mark.parametrize("signer", [
    HmacSigner(SECRET),  # the audit log's checkpoint signer
    EnvelopeSigner(SECRET, key_id="k1"),  # the Guardian's ACS envelope signer
], ids=["HmacSigner", "EnvelopeSigner"])
def test_a_signers_repr_does_not_show_its_key(signer: object) -> None:
    shown = f"{signer!r} {signer!s}"
    assert SECRET.decode() not in shown
    assert repr(SECRET) not in shown
    assert SECRET.hex() not in shown
    # It still says what it is and how long its key is.
    assert f"<{len(SECRET)} bytes>" in shown
    assert type(signer).__name__ in shown
