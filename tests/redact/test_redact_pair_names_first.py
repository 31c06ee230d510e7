"""A name/value pair written as JSON in a text is passed on its name before its value is read.

Found by a profile of ``bench/redact.py --worst cookie-jar-text`` (``cookies: [{"name": "sid",
"value": S}]`` repeated on one line, 18,724 a MB; issue 23): ``pairs.find_pairs`` read each
pair's value (a match, a slice) and asked ``is_credential_value`` of it, which passes any pair
whose name holds no credential's first. The name is asked first now. What each pair withholds
must not change: the table says what each kind of pair withholds.
"""

from __future__ import annotations

from typing import Any

import pytest

from elision.redact import pairs


def test_a_cookie_jar_judges_no_value_of_a_plain_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red before: a judge's call a pair (50 here)."""
    judged: list[tuple[str, str]] = []
    judge = pairs.is_credential_value

    def counted(name: str, value: str) -> Any:
        judged.append((name, value))
        return judge(name, value)

    monkeypatch.setattr(pairs, "is_credential_value", counted)
    jar = 'cookies: [{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}] ' * 50
    assert pairs.find_pairs(jar) == []
    assert judged == []


_LONG = "Xq7vR2mK9pL4wT8n" * 300  # past the longest value read (4 KB): withheld unread


@pytest.mark.parametrize(("text", "withheld"), [
    ('{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}', []),  # a name of no credential
    ('{"name": "sid", "value": 12345678}', []),  # ... its number
    (f'{{"name": "sid", "value": "{_LONG}"}}', []),  # ... a long value: not read at all
    ('{"name": "DB_PASSWORD", "value": "hunter2x"}', ["hunter2x"]),  # a strong name
    ('{"name": "DB_PASSWORD", "value": 12345678}', ["12345678"]),  # ... its number
    (f'{{"name": "DB_PASSWORD", "value": "{_LONG}"}}', [_LONG]),  # ... fail closed
    ('{"name": "token", "value": "Xq7vR2mK9pL4wT8n"}',  # a weak name, opaque
     ["Xq7vR2mK9pL4wT8n"]),
    ('{"name": "token", "value": "yes"}', []),  # ... a plain word
    ('{"name": "token", "value": 12345678}', []),  # ... a number: strong names only
    ('{"Name": "/prod/db/password", "Type": "SecureString", "Value": "hunter2x"}',
     ["hunter2x"]),  # a member between (SSM)
    ('{\\"name\\": \\"API_KEY\\", \\"value\\": \\"Xq7vR2mK9pL4wT8n\\"}',  # escaped quotes
     ["Xq7vR2mK9pL4wT8n"]),
], ids=["plain", "plain-number", "plain-long", "strong", "strong-number", "strong-long",
        "weak-opaque", "weak-word", "weak-number", "ssm", "escaped"])
def test_each_pair_withholds_as_its_name_says(text: str, withheld: list[str]) -> None:
    assert [text[s.start:s.end] for s in pairs.find_pairs(text)] == withheld
