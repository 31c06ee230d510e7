"""A credential is withheld whatever stands right before or after it: another credential, a
path's ``/``, a quote, a non-ASCII letter.

Found by the govern2 helper (present on 5742f0f): two ``ghp_`` tokens pasted together were
both shown (the first one's tail met the second's ``g``, and the second one's boundary met the
first's last digit), and ``/ghp_…`` was shown, as 197 of the families' shapes were after a
``/`` (a path's or a URL's: ``/`` was read as a base64 run's char). A family's own guards stay:
a token inside a word (``xghp_…``) is still no match, and the benign corpora stay clean
(tests/redact/test_redact_benign_corpus.py and its kin).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import batch, families, redact_text, redact_value
from elision.redact.batch import BATCH
from elision.redact.families import BY_ID, FAMILIES, Family, fill, sample

GHP = "ghp_" + "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA3bC5"
SECRET = GHP[4:]
#: What may stand right before a credential in a path, an assignment, a quote or a call.
BEFORE = ["/", "\\", ":", "=", '"', "'", "(", " "]
#: What may stand right after it: a non-ASCII letter, punctuation, nothing. Not ``/``, ``=``,
#: ``+`` or ``-``: the rows that guard against a base64 run (Google's, Square's, Facebook's,
#: a Basic value) keep a token that one of them follows, by design.
AFTER = ["é", "ß", "日", ")", "'", '"', ",", ":", "\\", " ", ""]
#: Between two credentials: what may stand both before and after one.
BETWEEN = [c for c in BEFORE if c in AFTER]
#: Shapes still shown glued to a copy of themselves, or after a ``/``, left for later
#: (docs/design.md): a Basic value glued to the next header, and the name-based finders (an
#: assignment, a header, a cookie) after ``/``.
NOT_YET = frozenset({
    "basic-auth", "credential-assignment", "auth-header", "session-cookie",
})
#: Pairs still shown glued (the first's family, the glue, the second's or any), left for
#: later (docs/design.md).
STILL_SHOWN: frozenset[tuple[str, str, str]] = frozenset()
#: Pairs that were shown glued (each family, the glue, the next family), each asked whole.
ONCE_SHOWN = [
    # An Azure DevOps connection string's password before a Slack hook after ":" or "\\":
    # the token was a parameter's URL, which yielded to that password (the hook was shown).
    *(("ado-connection-string-password", glue, "slack-webhook-url") for glue in (":", "\\")),
    # A header's value then a space and more: the value was shown (hdrleak).
    *(("auth-header", " ", f.id) for f in FAMILIES if f.id in ("github-token", "openai-key")),
    # A Slack hook then ":" or "\\" and a DSN: read as one URL, whose span yielded to the
    # DSN's password, so the hook was shown.
    *(("slack-webhook-url", glue, f.id) for glue in (":", "\\") for f in FAMILIES
      if f.id.endswith("dsn-password") or f.id == "jdbc-password"),
    # "csk-…sk-…": the OpenAI match opened inside the Cerebras key, was refused, and read on
    # over the next "sk-": no search found the match that opens there.
    ("cerebras-api-key", "", "openai-key"),
    # A ClickUp key's last "A"s opened the X bearer token's run of "A"s early, so.
    ("clickup-api-token", "", "twitter-bearer-token"),
]
#: Every family's shapes that hold a random value.
ALL = [(f, i) for f in FAMILIES for i in range(len(f.shapes)) if sample(f, i)[1]]
SHAPES = [(f, i) for f, i in ALL if f.id not in NOT_YET]


def _shown(out: str, secrets: tuple[str, ...]) -> list[str]:
    return [s for s in secrets if s in out]


@pytest.mark.parametrize(("text", "shown"), [
    # Two tokens pasted together: each one's neighbour is the other.
    (GHP + GHP, False),
    # A path's or a URL's "/" before it, a non-ASCII letter after it.
    ("/" + GHP + "é", False),
    ("https://example.com/" + GHP, False),
    ("\\" + GHP, False),
    (GHP + "é", False),
    # Inside a word the family's guard stays: no match.
    ("x" + GHP, True),
])
def test_a_token_is_withheld_beside_its_neighbours(text: str, shown: bool) -> None:
    assert (SECRET in redact_text(text).value) is shown
    body = orjson.dumps({"k": text})
    assert (SECRET in shape(body, budget=100_000).text) is shown


def test_a_token_after_a_backslash_in_a_json_string() -> None:
    # A Windows path's "\" before it, and a second token glued on.
    got = redact_value({"k": "C:\\" + GHP + GHP})
    assert SECRET not in orjson.dumps(got.value).decode()


def _bare(family: Family, index: int) -> bool:
    """Whether the sample is its pattern's match and nothing more (``ghp_…``), not a name or
    a header before one (``X-Postmark-Server-Token: …``) nor a path after one (a DSN's)."""
    return (family.pattern is not None
            and family.pattern.fullmatch(sample(family, index)[0]) is not None)


@st.composite
def glued(draw: st.DrawFn) -> tuple[list[str], tuple[str, ...]]:
    """One to three samples (the same family or not, every family's but the name-based
    finders', multi-line keys too), back to back or with a boundary char between, and a
    boundary char before the first and after the last. Only samples that are
    their match and nothing more are put back to back: a name or a path that a sample holds
    beside its match would be read as a word the token is part of (``AKIA…X-Postmark-…``)."""
    picks = draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3))
    seed = draw(st.integers(0, 3))
    parts = [draw(st.sampled_from(BEFORE))]
    secrets: tuple[str, ...] = ()
    bare = False
    last = ""
    for family, index in picks:
        text, values = sample(family, index, seed)
        if secrets:
            glue = bare and _bare(family, index)
            parts.append(draw(st.sampled_from(["", *BETWEEN] if glue else BETWEEN)))
            assume((last, parts[-1], family.id) not in STILL_SHOWN
                   and (last, parts[-1], "*") not in STILL_SHOWN)
        parts.append(text)
        last = family.id
        secrets += values
        bare = _bare(family, index)
    parts.append(draw(st.sampled_from(AFTER)))
    return parts, secrets


@settings(max_examples=60, deadline=None)
@given(glued())
def test_no_secret_is_shown_beside_a_boundary_char_or_another_credential(
    case: tuple[list[str], tuple[str, ...]],
) -> None:
    parts, secrets = case
    text = "".join(parts)
    assert not _shown(redact_text(text).value, secrets), text
    # A JSON string (the walk), a line of NDJSON (judged as text) and an array of strings as
    # long as the batch path takes (one pass over them all).
    body = orjson.dumps({"k": text})
    assert not _shown(shape(body, budget=100_000).text, secrets), text
    ndjson = b"\n".join(orjson.dumps({"k": text, "n": n}) for n in range(2))
    assert not _shown(shape(ndjson, budget=100_000).text, secrets), text
    many = orjson.dumps([f"{n} {text}" for n in range(BATCH + 2)])
    assert not _shown(shape(many, budget=len(many) * 8 + 100_000).text, secrets), text


@pytest.mark.parametrize(("family", "index"), SHAPES, ids=[f"{f.id}/{i}" for f, i in SHAPES])
def test_every_shape_after_a_slash_and_glued_to_itself(family: object, index: int) -> None:
    text, secrets = sample(family, index)  # type: ignore[arg-type]
    for case in ("/" + text + "é", text + text):
        assert not _shown(redact_text(case).value, secrets), case


# One of each kind of glue: a tail and a boundary, a greedy match over the next one's head
# (``hvs.…hvs.…``), a row that lets a word char stand before it (Telegram's digits).
@pytest.mark.parametrize(
    "family", ["github-token", "aws-access-key-id", "vault-service-token", "telegram-bot-token"])
def test_an_array_of_glued_tokens_told_in_one_pass(family: str) -> None:
    # ASCII strings with no backslash, as many as the batch path judges together
    # (batch._judge_block, asked here): the first token of each pair was shown there.
    row = next(f for f in FAMILIES if f.id == family)
    pairs = [sample(row, 0, n) for n in range(BATCH + 2)]
    value = [f"{text}{text} " for text, _ in pairs] + [f"/{pairs[0][0]} "]
    value += [f"sk-{n}" for n in range(BATCH)]  # trigger-holding strings: many to judge
    told: list[int] = []
    real = batch._judge_block

    def counting(texts: Any, lo: int, hi: int) -> Any:
        told.append(hi - lo)
        return real(texts, lo, hi)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batch, "_judge_block", counting)
        out = orjson.dumps(redact_value(value, body=orjson.dumps(value)).value).decode()
    assert told
    assert not [s for _, values in pairs for s in values if s in out]


@pytest.mark.parametrize("family", [
    "google-oauth-access-token", "telegram-bot-token",
    # Keys glued end to end, read as a whole text's multi-line matches (scan._multiline).
    "private-key", "putty-private-key"])
def test_a_long_chain_is_followed_back_once(family: str) -> None:
    """Two hundred tokens glued end to end are all withheld, each link asked about a few
    times, not once from each link after it (a first version read 10,000 ``ya29.`` tokens
    in 27 s)."""
    row = next(f for f in FAMILIES if f.id == family)
    text, values = sample(row)
    asked: list[int] = []
    real = families._glued_to

    def counting(*args: Any) -> bool:
        asked.append(args[1])
        return real(*args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(families, "_glued_to", counting)
        out = redact_text(text * 200).value
    assert not _shown(out, values)
    # A key's link is asked from its piece, the whole text's multi-line pass and the judge of
    # what is glued after the key before it: once more than a token's.
    assert len(asked) <= (4 if family.endswith("private-key") else 3) * 200


@pytest.mark.parametrize("family", ["jwt", "google-oauth-access-token", "vault-service-token"])
@pytest.mark.parametrize("count", [2, 3, 5])
def test_tokens_whose_match_takes_in_the_next_head(family: str, count: int) -> None:
    # The first match reads into the next token (a JWT's signature takes in the next header;
    # its payload's ``eyJ`` opens a match that is no JWT): three JWTs showed the last two.
    row = next(f for f in FAMILIES if f.id == family)
    text, values = sample(row)
    assert not _shown(redact_text("/" + text * count + "é").value, values)


# --- Every family glued to a copy of itself and to every other family's sample (gluedself).

#: The rows whose match spans lines: a private key's armour and body.
KEYS = [BY_ID[id] for id in ("private-key", "ssh2-private-key", "putty-private-key")]


def _glue(*parts: tuple[str, tuple[str, ...]]) -> tuple[str, tuple[str, ...]]:
    return "".join(text for text, _ in parts), tuple(s for _, values in parts for s in values)


def _key(family: Family, index: int = 0, seed: object = 0, lines: int = 1) -> tuple[
        str, tuple[str, ...]]:
    """A fake key of ``family``, its body ``lines`` lines of 64 more than its shape's (a
    real RSA key is some 1.7 KB: longer than the line window the glue is looked for in)."""
    text, secrets = sample(family, index, seed)
    if lines > 1:
        rng = random.Random(f"{family.id}/{seed}")
        body = [fill("{b64:64}", rng) for _ in range(lines)]
        cut = text.index("\n") + 1
        text = text[:cut] + "\n".join(body) + "\n" + text[cut:]
        secrets += tuple(body)
    return text, secrets


@pytest.mark.parametrize(("text", "secrets"), [
    # Two PEM keys glued end to end: the second's header after the first's "-----".
    pytest.param(*_glue(_key(BY_ID["private-key"], 1), _key(BY_ID["private-key"], 1, 1)),
                 id="pem-pem"),
    # The same, keys of real length (2 KB a body: past the 1 KB the glue read back).
    pytest.param(*_glue(_key(BY_ID["private-key"], 1, lines=32),
                        _key(BY_ID["private-key"], 1, 1, lines=32)), id="pem-pem-2kb"),
    # SSH2 and PuTTY keys glued to a copy of themselves (the MAC's hex meets the next head).
    pytest.param(*_glue(_key(BY_ID["ssh2-private-key"]), _key(BY_ID["ssh2-private-key"], 0, 1)),
                 id="ssh2-ssh2"),
    pytest.param(*_glue(_key(BY_ID["putty-private-key"]),
                        _key(BY_ID["putty-private-key"], 0, 1)), id="ppk-ppk"),
    # A token glued after a key's last line, and one before its header.
    pytest.param(*_glue(_key(BY_ID["private-key"], 0, lines=32), sample(BY_ID["github-token"])),
                 id="pem-2kb-ghp"),
    pytest.param(*_glue(_key(BY_ID["putty-private-key"]), sample(BY_ID["github-token"])),
                 id="ppk-ghp"),
    pytest.param(*_glue(sample(BY_ID["github-token"]), _key(BY_ID["ssh2-private-key"])),
                 id="ghp-ssh2"),
    # An FCM key's body reads the next key's head; a Teams hook's path reads the next "https".
    pytest.param(*_glue(sample(BY_ID["firebase-cloud-messaging-key"]),
                        sample(BY_ID["firebase-cloud-messaging-key"], 0, 1)), id="fcm-fcm"),
    pytest.param(*_glue(sample(BY_ID["teams-webhook-url"]),
                        sample(BY_ID["teams-webhook-url"], 0, 1)), id="teams-teams"),
    # An IFTTT key's fixed length meets the next hook's "https": its tail refused it.
    pytest.param(*_glue(sample(BY_ID["ifttt-webhook-key"]),
                        sample(BY_ID["ifttt-webhook-key"], 0, 1)), id="ifttt-ifttt"),
    # Datadog's any-case hex reads the "DD" of the next assignment's name.
    pytest.param(*_glue(sample(BY_ID["datadog-api-key"], 0),
                        sample(BY_ID["datadog-api-key"], 1, 1)), id="datadog-datadog"),
])
def test_keys_and_hooks_glued_to_a_copy_of_themselves(text: str, secrets: tuple[str, ...]) -> None:
    """Found by the gluedself helper (present on cb8c067), extending the pairs above to every
    family: the second of two glued keys was shown, and whatever followed a key's last line;
    a hook or an FCM key whose match read the next one's head showed its rest."""
    assert not _shown(redact_text(text).value, secrets), text
    # In a JSON string: the key's line breaks are "\n" escapes, one line of the body.
    body = orjson.dumps({"k": text})
    assert not _shown(shape(body, budget=100_000).text, secrets), text
    # And the body judged as text (a log that prints the JSON), and a level of JSON-in-JSON
    # down ("\\n"): every key on one line.
    assert not _shown(redact_text(body.decode()).value, secrets), text
    nested = orjson.dumps({"outer": body.decode()})
    assert not _shown(shape(nested, budget=100_000).text, secrets), text


@pytest.mark.parametrize("key", KEYS, ids=[f.id for f in KEYS])
def test_every_shape_glued_before_and_after_a_key(key: Family) -> None:
    """Each family's sample glued right after a key's last line and right before its header
    (a sample that is more than its match, a name or a path beside it, a space before the
    key: a key glued to a word stays shown): what followed a key was shown (its boundary
    refused, and the key's keyword was lines back, out of the line the glue was looked for
    in)."""
    text, secrets = _key(key)
    shown = []
    for family, index in ALL:
        if family.id == "auth-header":
            continue  # a header's value then a space and more is shown: left (docs/design.md)
        other, values = sample(family, index, 1)
        for case in (text + other, other + ("" if _bare(family, index) else " ") + text):
            if _shown(redact_text(" " + case + " ").value, secrets + values):
                shown.append((family.id, index, case.startswith(text)))
    assert not shown


@pytest.mark.parametrize(("first", "glue", "then"), ONCE_SHOWN)
def test_pairs_once_shown_glued_are_withheld(first: str, glue: str, then: str) -> None:
    """Found by the gluedself helper and left in STILL_SHOWN; each of the two families'
    shapes, glued, with the first's last char made an ``A`` (ClickUp's key may end so)."""
    rows = {f.id: f for f in FAMILIES}
    for i, j, seed in itertools.product(range(len(rows[first].shapes)),
                                        range(len(rows[then].shapes)), range(3)):
        text, values = sample(rows[first], i, seed)
        after, more = sample(rows[then], j, seed)
        for head in (text, text[:-1] + "A" if first == "clickup-api-token" else text):
            line = f" {head}{glue}{after} "
            secrets = (*(v for v in values if v in head), *more)
            assert not _shown(redact_text(line).value, secrets), line


_KEY_HEAD = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"


@pytest.mark.parametrize("before, glued", [
    # a key cut short (no closing armour), then the next member: read as ending at the
    # token, the key's \Z matched there; the token is inside the key, glued to nothing
    (_KEY_HEAD + '","k1":"aws_', False),
    (_KEY_HEAD + " x_", False),
    # a whole key, its closing armour right before the token: glued
    (_KEY_HEAD + "\\n-----END PRIVATE KEY-----", True),
])
def test_a_key_is_glued_to_what_follows_its_closing_armour_only(before: str, glued: bool) -> None:
    """Red before: a key open to the text's end was taken as a credential that ends at any
    token after a word char on its line (a random draw of the NDJSON judge's property, the
    propfix helper), so the fast judge withheld the key through the next member's name."""
    text = before + "secret_access_key = nGFzJK6tv5Wim9IwmenQyjWLOiBPYGDZ9G1AfC4o"
    assert families._glued_to(text, len(before), 0, "aws-secret-access-key", {}) is glued
