"""A URL's credential ends where the secret ends, not where a sentence's punctuation starts.

Found by a table of credential values that end in punctuation (issue 13): a URL is cut at its
token's end less the punctuation that usually closes a sentence (``.,;:!?``), so a query value
``secr3t!`` was withheld as ``secr3t`` and its ``!`` showed after the stub. Now only one final
``.``, ``,``, ``;`` or ``:`` (and a ``\\`` that escapes a closing quote) is taken for the
sentence's; anything else after the value goes with the URL.
"""

from __future__ import annotations

import pytest

from elision.redact import redact_text

STUB = "[credential withheld: {}]"


@pytest.mark.parametrize(("text", "shown"), [
    # a value that ends in "!" or "?": the char is the secret's
    ("go https://h.example.com/p?sig=K9abcdefghijkl!", "go " + STUB.format("signed-url")),
    ("go https://h.example.com/p?x=1&token=K9abcdefghijkl! now",
     "go " + STUB.format("credential-param-url") + " now"),
    ("https://h.example.com/p?X-Amz-Signature=K9abcdefghijkl?",
     STUB.format("aws-sigv4-url")),
    ("https://h.example.com/p?token=K9abcdefghijkl!!", STUB.format("credential-param-url")),
    # ...followed by a sentence's full stop or a closing parenthesis: those stay
    ("see https://h.example.com/p?sig=K9abcdefghijkl!.", "see " + STUB.format("signed-url") + "."),
    ("(see https://h.example.com/p?sig=K9abcdefghijkl!)",
     "(see " + STUB.format("signed-url") + ")"),
    ("[x](https://h.example.com/p?a=1&amp;token=K9abcdefghijkl!).",
     "[x](" + STUB.format("credential-param-url") + ")."),
    # percent-encoded inside a redirect
    ("see https://r.example.com/go?next=https%3A%2F%2Fh%2Fp%3Ftoken%3DK9abcdefghijkl!, then",
     "see " + STUB.format("credential-param-url") + ", then"),
    # sentence punctuation after an ordinary value stays, as before
    ("see https://h.example.com/p?sig=K9abcdefghijkl.", "see " + STUB.format("signed-url") + "."),
    ("see https://h.example.com/p?sig=K9abcdefghijkl, and", "see " + STUB.format("signed-url")
     + ", and"),
    ("link: https://h.example.com/p?sig=K9abcdefghijkl;", "link: " + STUB.format("signed-url")
     + ";"),
    # a JSON-escaped quote after the URL keeps its backslash
    ('{\\"u\\": \\"https://h.example.com/p?sig=K9abcdefghijkl\\"}',
     '{\\"u\\": \\"' + STUB.format("signed-url") + '\\"}'),
    # a password in userinfo that ends in punctuation was always withheld whole
    ("see https://user:secr3t!@host/x", "see https://user:" + STUB.format("url-userinfo")
     + "@host/x"),
])
def test_a_url_credential_that_ends_in_punctuation_shows_no_char_of_it(
    text: str, shown: str
) -> None:
    assert redact_text(text).value == shown
