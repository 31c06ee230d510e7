"""A password with a ``'`` in a URL's userinfo is withheld (RFC 3986 allows it there).

The userinfo patterns stopped at every quote, so that a single-quoted URL would not run past
its closing quote; a password such as ``it's-secret`` was then not recognised at all and
reached the model whole, in text and in JSON. Now the quote may be part of the password,
except in a URL that a ``'`` opens, where it closes the URL as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from elision.redact import redact_text, redact_value
from support.engines import trigger_engines, using_engine

STUB = "[credential withheld: {}]"


ENGINES = trigger_engines()
IDS = [type(engine).__name__.strip("_").lower() for engine in ENGINES]


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
@pytest.mark.parametrize(("text", "secret"), [
    ("connect postgres://app:pa'ss@db.internal/app now", "pa'ss"),
    ("amqp://guest:it's-secret@mq:5672/vhost", "it's-secret"),
    ('x="https://deploy:p\'w0rd-9Zq@git.example.com/repo.git"', "p'w0rd-9Zq"),
    ("mysql://root:'quoted'@127.0.0.1:3306/shop", "'quoted'"),
    ("redis://:o'neill-Kx81@cache:6379/0", "o'neill-Kx81"),
])
def test_a_password_with_a_quote_is_withheld(engine: Any, text: str, secret: str) -> None:
    with using_engine(engine):
        shown = redact_text(text).value
        as_json = redact_value({"dsn": text}).value
    assert secret not in shown and "withheld" in shown, shown
    assert secret not in as_json["dsn"] and "withheld" in as_json["dsn"], as_json


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
@pytest.mark.parametrize(("text", "shown"), [
    # a single-quoted URL: its closing quote ends it, as before
    ("url='postgres://app:pass@db/app'",
     "url='postgres://app:" + STUB.format("postgres-dsn-password") + "@db/app'"),
    ("['http://a:b','c@d']", "['http://a:b','c@d']"),  # no userinfo at all
    ("'https://h.example.com/x' and 'me@example.com'",
     "'https://h.example.com/x' and 'me@example.com'"),
    ("it's at https://docs.example.com/a:b and mail o'brien@example.com",
     "it's at https://docs.example.com/a:b and mail o'brien@example.com"),
])
def test_a_quoted_url_still_ends_at_its_quote(engine: Any, text: str, shown: str) -> None:
    with using_engine(engine):
        assert redact_text(text).value == shown
