"""A credential's name with a number, a version or an age after it names a credential still.

Found by hand (the namegaps session): ``x-api-key-2`` and ``password_0`` were shown while
``x-api-key`` and ``pw0_password`` were withheld. The name classifier read only a name's last
word (``0``, ``2``, ``v2``, ``old``), and the trigger search looked for a name right before
what assigns it (``password=``), so a text or a body with only affixed names was never read.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision.redact import keywords, redact_text, redact_value
from elision.redact.generic import FIELD_SUFFIXES
from support.engines import trigger_engines, using_engine
from support.regexes import repeats_a_repeat

ENGINES = trigger_engines()
ENGINE_IDS = [type(e).__name__.strip("_").lower() for e in ENGINES]

#: Opaque enough for a weak name (``token2``) too: what a generated key looks like.
VALUE = "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"

AFFIXED = [
    "password_0",  # an index, as a list of them is numbered
    "password2",  # the number glued on
    "api_key_1",
    "x-api-key-2",  # a header's name, numbered
    "X-Api-Key-2",
    "secret_v2",  # a version
    "DB_PASSWORD_1",  # an environment variable
    "token2",  # a weak name: an opaque value only
    "client_secret_old",  # an age
    "AWS_SECRET_ACCESS_KEY_2",
    "passwd-backup",
    "apiKeyV2",  # camel case
    "accessToken_1",
    "db.password.old",  # a properties file's dots
    "password_old_2",  # two affixes
]


def _shown(value: Any) -> bool:
    return VALUE in orjson.dumps(value).decode()


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
@pytest.mark.parametrize("name", AFFIXED)
def test_an_affixed_member_name_is_withheld(name: str, engine: Any) -> None:
    doc = {"user": "ada", name: VALUE}
    with using_engine(engine):
        assert not _shown(redact_value(doc).value)
        # a tool's raw body: one search of its bytes decides whether it is walked at all
        assert not _shown(redact_value(doc, body=orjson.dumps(doc)).value)


@pytest.mark.parametrize("name", AFFIXED)
@pytest.mark.parametrize("form", [
    "{name}={value}\n",  # .env, INI
    "{name}: {value}\n",  # YAML, an HTTP header
    'export {name}="{value}"\n',  # a shell's environment
    "USER=ada\n{name}={value}\nHOME=/home/ada\n",  # an env listing
    '{{"user":"ada","{name}":"{value}"}}\n',  # a line of NDJSON
])
def test_an_affixed_name_in_text_is_withheld(name: str, form: str, keyword_engine: str) -> None:
    text = form.format(name=name, value=VALUE)
    assert VALUE not in redact_text(text).value
    # a long text's search is the trigger engine's, a block at a time
    for engine in ENGINES:
        with using_engine(engine):
            assert VALUE not in redact_text("log line\n" * 4096 + text).value


# What an affix may be, and how it is joined to the name (the spellings).
_AFFIX = st.one_of(
    st.integers(0, 9999).map(str),
    st.integers(0, 99).map(lambda n: f"v{n}"),
    st.sampled_from(["old", "new", "backup", "prev"]),
)
_JOINT = st.sampled_from(["_", "-", ""])


def _opaque(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:32]


def _forms(name: str, value: str) -> list[bool]:
    """Whether ``value`` under ``name`` is shown: in JSON, after ``=`` and after ``: ``."""
    return [
        value in orjson.dumps(redact_value({name: value}).value).decode(),
        value in redact_text(f"{name}={value}\n").value,
        value in redact_text(f"{name}: {value}\n").value,
    ]


@settings(max_examples=120, deadline=None)
@given(name=st.sampled_from(FIELD_SUFFIXES), affix=_AFFIX, joint=_JOINT, upper=st.booleans())
def test_any_credential_name_with_any_affix_is_withheld(
    name: str, affix: str, joint: str, upper: bool
) -> None:
    """An affix changes nothing: what the name withholds, the affixed name withholds (all of
    them in JSON; in text all but a bare ``cookie``'s, which is read as a header's pairs)."""
    bare = name.upper() if upper else name
    affixed = f"{bare}{joint}{affix.upper() if upper else affix}"
    value = _opaque(affixed)
    shown = _forms(affixed, value)
    assert not shown[0]
    assert shown == _forms(bare, value)


#: Names that hold no credential, with or without an affix: what each is counts, limits,
#: cursors and labels.
BENIGN = [
    "password_policy", "password_hash", "password_reset", "secret_name", "secret_santa",
    "token_count", "max_tokens", "input_tokens", "page_token", "next_token", "sort_key",
    "cache_key", "partition_key", "primary_key_id", "private_key_id", "api_key_name",
    "monkey", "keyboard", "passport", "compass", "password_2fa",
]


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(BENIGN), affix=_AFFIX, joint=st.sampled_from(["_", "-"]))
def test_a_benign_name_with_an_affix_stays_shown(name: str, affix: str, joint: str) -> None:
    """An affix says which one of a thing a name is; it never makes the thing a credential."""
    for shown in (name, f"{name}{joint}{affix}"):
        # a content hash: what such names hold, and no credential's shape
        value = hashlib.sha256(shown.encode()).hexdigest()
        assert redact_value({shown: value}).withheld == ()
        assert redact_text(f"{shown}={value}\n").withheld == ()


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
@pytest.mark.parametrize("line", [
    "cache:key_{i}",  # a store's key listing: no assignment after the affix
    "sort_key_{i} = {i}",  # a key that names no credential (``sort_key = 1`` is none)
    "monkey_{i} banana_{i}",  # a name word inside another word
    "rotated token_{i} and password{i}-old today",  # credential words, nothing assigned
])
def test_a_listing_of_affixed_names_is_not_credential_dense(line: str, engine: Any) -> None:
    """Found while fixing the affixes (the namegaps session): the affixed names' triggers, a
    credential word and an affix's start, made these 200 KB listings one ``credential-dense``
    stretch withheld whole. A trigger counts only where its name is then assigned, and an
    affixed ``key`` only after a qualifier, as the names' own triggers do."""
    text = "".join(line.format(i=i) + "\n" for i in range(12_000))
    with using_engine(engine):
        assert redact_text(text).withheld == ()


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
def test_dense_affixed_assignments_are_bounded_as_bare_ones_are(engine: Any) -> None:
    """Lines of ``password_N=x`` cost what lines of ``password=x`` do: withheld whole as one
    credential-dense stretch (the last few lines, past its last dense window, judged one by
    one), not judged one by one."""
    for name in ("password", "password_{i}", "api_key_{i}"):
        text = "".join(f"{name.format(i=i)}=x{i}\n" for i in range(12_000))
        with using_engine(engine):
            reasons = [w["reason"] for w in redact_text(text).withheld]
        assert reasons[0] == "credential-dense"
        assert len(reasons) < 20


_AFFIX_PIECES = st.sampled_from([
    "api_key_2=", "password_0: ", "token2 =", "secret_v2=", "sort_key_1 = ", "app_key_old=",
    "x", "A", "9", "_", "-", ".", " ", "\n", "key1", "Pass2", "jwt9", "=", ":",
    "QUFB" * 8, "a" * 50, "api_", "secret-",
    "--password_2 ", "-secret-v2\t", "--api-key-1 ",  # flags: a gap after the affix
])


@settings(max_examples=100, deadline=None)
@given(st.lists(_AFFIX_PIECES, min_size=1, max_size=120), st.integers(0, 200))
@example(["password_0" + "x" * 20 + "="], 60)  # the name in one window, its "=" in the next
@example(["y" * 100, "app_key_old=", "y" * 100, "secret_v2="], 3)
def test_affixed_names_are_found_a_window_at_a_time_as_in_the_whole(
    pieces: list[str], pad: int
) -> None:
    """Red before (a memory test: test_redact_text_memory's image-base64-line): a chance
    ``key1`` in a 1 MB base64 line made the keyword search lower all of it. It now reads a
    window at a time, each read on past its end; windows of 64 chars here, so the matches
    fall across their ends: it answers what the whole lowered text does."""
    text = "y" * pad + "".join(pieces)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(keywords, "_AFFIX_WINDOW", 64)
        assert keywords.affixed_in_windows(text) == keywords._affixed_in(text.lower())


@pytest.mark.skipif(not hasattr(keywords._engine(), "_affix_ends"),
                    reason="the affixed names' literals are located by hyperscan")
@settings(max_examples=100, deadline=None)
@given(st.lists(_AFFIX_PIECES, min_size=1, max_size=120), st.integers(0, 200),
       st.sampled_from([1, 3, 64]))
@example(["y" * 300, "api_key_2="], 0, 64)  # a qualified key: its look-behind reads "api_"
@example(["password_0" + "x" * 150 + "="], 5, 64)  # its "=" far past the literal's end
def test_affixed_names_are_found_around_their_literals_as_in_the_whole(
    pieces: list[str], pad: int, most: int
) -> None:
    """Red before (bench/redact.py b64-random-line: 2.7 ms a MB to 9.1 after the affixed
    names came in): a chance ``key1`` in random base64 had the whole text lowered and
    searched. Only windows around the literals' ends are now; past ``most`` literals, all
    of it is. Either way it answers what the whole lowered text does."""
    text = "y" * pad + "".join(pieces)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(keywords, "_AFFIX_HITS", most)
        assert keywords._engine()._affixed(text) == keywords._affixed_in(text.lower())


@pytest.mark.skipif(not hasattr(keywords._engine(), "_affix_ends"),
                    reason="the affixed names' literals are located by hyperscan")
def test_a_chance_affixed_literal_in_random_base64_is_read_around_it_only() -> None:
    """Red on the first merge of the affixed names: every char of the MB was lowered and
    searched (1,048,576 chars), where only the few windows around ``key1``-like chances are."""
    import base64
    import random

    text = base64.b64encode(random.Random(0).randbytes(3 << 18)).decode()
    read: list[int] = []
    real = keywords._affixed_in
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(keywords, "_affixed_in", lambda low: read.append(len(low)) or real(low))
        keywords._engine().present(text)
    assert sum(read) < 64 * 1024


def test_the_affixes_repeat_no_repeat() -> None:
    """Red before: ``(?:[0-9]+|v[0-9]+|…)+`` nests a repeat in a repeat, which backtracks
    exponentially where it fails: a JSON key ``a`` + 22 digits + ``v`` took 0.2 s to judge,
    4x more each two digits (test_redact_foreign_values' property took 14 s, 0.9 s before
    affixed names). Told by the pattern's shape, not a clock: each affix a repeat reads is
    one char or a fixed word."""
    from elision.redact import generic

    assert not repeats_a_repeat(generic._AFFIXES)
    assert not repeats_a_repeat(generic._GLUED_AFFIX.pattern)
    # The words the affixes are read past are the same.
    for name, want in [("password2", ["password"]), ("apikeyv22", ["api", "key"]),
                       ("db_password_10", ["db", "password"]), ("secretold", ["secret"]),
                       ("token_v2_old", ["token"]), ("a" + "1" * 40 + "v", ["a" + "1" * 40 + "v"])]:
        assert generic.words(name) == want
