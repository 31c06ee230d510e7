"""A weak plural's map and its unquoted key (docs/design.md, "Keys, queries, pages and wrapped
values"): ``{"tokens": {"alice": S}}`` (a map from each owner to a token) was left to its own
keys by the walk, and an unquoted ``tokens:`` (YAML) or ``<key>tokens</key>`` (a property
list) was no trigger at all, so each showed ``S``; a property list's ``<array>`` or ``<dict>``
under any credential's key was not read either. Found by the keyleak session's "Not yet"
list; each case was red on the code before. An LLM usage log stays shown.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value
from elision.redact.generic import opaque

S = "Xq7vR2mK9pL4wZ8tB3nH6yJ1cF5d"  # a random 28-char secret (opaque)


def walked(value: Any) -> Any:
    body = json.dumps(value).encode()
    return redact_value(json.loads(body), body=body)


@pytest.mark.parametrize(
    "value",
    [
        {"tokens": {"alice": S}},  # owner -> token
        {"jwts": {"session": S}},
        {"jwts": {"prod": {"value": S}}},  # deeper down
        {"data": {"accessTokens": {"bob": S}}},  # a strong plural was read before; still
    ],
)
def test_a_weak_plurals_map_of_names_to_secrets_is_withheld(value: Any) -> None:
    redaction = walked(value)
    assert S not in json.dumps(redaction.value)
    assert S not in redact_text(json.dumps(value)).value
    assert S not in shape(json.dumps(value)).text


@pytest.mark.parametrize(
    "text",
    [
        f"tokens:\n  - {S}\n",  # the text's first line
        f"auth:\n  tokens:\n    alice: {S}\n    count: 2\n",  # a map under it
        f"cookies:\r\n  - {S}\r\n",
        f"<dict>\n<key>tokens</key>\n<array>\n<string>{S}</string>\n</array>\n</dict>",
        f"<key>tokens</key><dict><key>alice</key><string>{S}</string></dict>",
        "<key>passwords</key>\n<array>\n  <string>hunter2xyz</string>\n</array>",
        f"<key>api_keys</key><array><dict><key>prod</key><string>{S}</string></dict></array>",
    ],
)
def test_an_unquoted_weak_plural_and_a_plists_container_are_read(text: str) -> None:
    secret = "hunter2xyz" if "hunter2xyz" in text else S
    assert secret not in redact_text(text).value
    assert secret not in shape(text).text


@pytest.mark.parametrize(
    "value",
    [
        {"usage": {"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52}},
        {"tokens": {"input": 12, "output": 40, "cached": 0}},  # counts under a bare tokens
        {"tokens": {"input": "12", "model": "small", "kind": "bpe"}},
        {"tokens": ["the", "cat", "sat"]},  # a tokenizer's output
    ],
)
def test_an_llm_usage_log_stays_shown(value: Any) -> None:
    assert walked(value).withheld == ()
    assert redact_text(json.dumps(value)).withheld == ()


@pytest.mark.parametrize(
    "text",
    [
        "usage:\n  prompt_tokens: 12\n  total_tokens: 40\n",
        "tokens:\n  input: 12\n  output: 40\n",
        "<key>tokens</key>\n<dict><key>input</key><integer>12</integer></dict>",
        "<key>password</key><dict><key>type</key><string>generated-by-vault-2024</string></dict>",
    ],
)
def test_counts_and_metadata_under_an_unquoted_plural_stay_shown(text: str) -> None:
    assert redact_text(text).withheld == ()


_OWNER = st.from_regex(r"[a-z][a-z0-9_-]{0,11}", fullmatch=True)
_TOKEN = st.text("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=24,
                 max_size=40).filter(lambda s: opaque(s) and len(set(s)) > 12)


@settings(max_examples=40, deadline=None)
@given(
    plural=st.sampled_from(["tokens", "cookies", "jwts", "authTokens", "sessionTokens"]),
    owners=st.lists(_OWNER, min_size=1, max_size=4, unique=True),
    token=_TOKEN,
    form=st.sampled_from(["json", "yaml", "plist"]),
)
def test_any_weak_plurals_map_withholds_every_token(
    plural: str, owners: list[str], token: str, form: str
) -> None:
    """Whatever the plural, the owners and the form, no token under it is shown."""
    tokens = {owner: f"{token[i:]}{token[:i]}" for i, owner in enumerate(owners)}
    if form == "json":
        value: Any = {plural: tokens}
        assert not any(t in json.dumps(walked(value).value) for t in tokens.values())
        if plural == "cookies":
            return  # a text's cookie rule reads a header, not a container (design.md)
        text = json.dumps(value)
    elif form == "yaml":
        text = f"{plural}:\n" + "".join(f"  {o}: {t}\n" for o, t in tokens.items())
    else:
        text = f"<key>{plural}</key><dict>" + "".join(
            f"<key>{o}</key><string>{t}</string>" for o, t in tokens.items()) + "</dict>"
    out = redact_text(text).value
    assert not any(t in out for t in tokens.values())
