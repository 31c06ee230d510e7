"""A credential's name right after a ``/``, an affixed flag, and a Basic value glued to the
next header are withheld on every route a text travels.

Found in review of the boundaries work (docs/design.md listed them as "Not yet"): the
name-based finders skipped any name right after a ``/`` (so that ``/etc/passwd: …`` names a
file, not a value), which showed ``/DB_PASSWORD=hunter2-real-secret``, ``path/API_KEY=…`` and
``GET /x/Authorization: Token …``; a flag with an affix and a space (``--password_2 VALUE``,
``--secret-v2 VALUE``) was never a trigger, though ``--password VALUE`` is withheld; and
``Authorization: Basic …=Host:`` with no line break matched no Basic value. A path's last part
with a colon after it still names a file or an endpoint (``file:///etc/passwd: Unsupported URL
protocol``), unless a generated value follows it.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.mcp.gate.egress import Egress
from elision.redact import generic, redact_text, redact_value
from elision.redact.generic import find_assignments
from support.engines import trigger_engines, using_engine

ENGINES = trigger_engines()
ENGINE_IDS = [type(e).__name__.strip("_").lower() for e in ENGINES]

#: Generated: letters and digits, high in entropy (what a weak name's value must be too).
VALUE = "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"
#: A Basic value that ends in padding, and one with none.
PADDED = base64.b64encode(b"user:s3cret-pass-12345").decode()
UNPADDED = base64.b64encode(b"user:s3cret-pass-1234").decode()


def routes(text: str) -> dict[str, str]:
    """What each route a text travels gives back: the text API, ``shape()`` of the text, two
    NDJSON lines that hold it, a JSON string that holds it (as a value and as a body), and the
    proxy's text result."""
    line = orjson.dumps({"log": text}).decode()
    message = {"jsonrpc": "2.0", "id": 1,
               "result": {"content": [{"type": "text", "text": text}]}}
    budget = 100_000
    return {
        "text": redact_text(text).value,
        "shape-text": shape(text.encode(), budget=budget).text,
        "ndjson": shape(f"{line}\n{line}\n".encode(), budget=budget).text,
        "json-value": orjson.dumps(redact_value({"log": text}).value).decode(),
        "json-body": shape(orjson.dumps({"log": text}), budget=budget).text,
        "proxy": Egress().gate_bytes(orjson.dumps(message), "result").decode(),
    }


def shown_on(text: str, secret: str) -> list[str]:
    """The routes on which ``secret`` is shown."""
    return [route for route, out in routes(text).items() if secret in out]


SECRETS = [
    # a path's last part, then "=": an assignment still
    (f"/DB_PASSWORD={'hunter2-real-secret'}", "hunter2-real-secret"),
    (f"path/API_KEY={VALUE}", VALUE),
    (f"export CFG=/srv/app/db_password={VALUE}", VALUE),
    ("curl https://api.example.com/v1/login/password=s3cr3t-x9", "s3cr3t-x9"),
    # a path's last part, then ":", then a generated value
    (f"x/api_key: {VALUE}", VALUE),
    (f"GET /x/Authorization: Token {VALUE}", VALUE),  # a request line glued to its header
    (f'GET /x/Authorization: "Token {VALUE}"', VALUE),
    # a flag with an affix, then a space (as ``--password VALUE`` is read)
    (f"run --secret-v2 {VALUE}", VALUE),
    (f"run --password_2 {VALUE}", VALUE),
    (f"run --api-key-2 {VALUE}", VALUE),
    (f"run -password2 {VALUE}", VALUE),
    (f"run --db-password-old {VALUE}", VALUE),
    (f"run --token-v3 {VALUE}", VALUE),  # a weak name: its value generated
    # a Basic value glued to the next header, no line break between
    (f"Authorization: Basic {PADDED}Host: example.com", PADDED.rstrip("=")),
    (f"Authorization: Basic {PADDED}User-Agent: curl/8.0", PADDED.rstrip("=")),
    (f"Authorization: Basic {UNPADDED}Host: example.com", UNPADDED),  # it takes in "Host"
    (f"Authorization: Basic {UNPADDED}X-Request-Id: 7", UNPADDED),
]


@pytest.mark.parametrize("text, secret", SECRETS, ids=[t for t, _ in SECRETS])
def test_a_credential_after_a_slash_a_flag_or_a_glued_header_is_withheld(
    text: str, secret: str
) -> None:
    assert shown_on(text, secret) == []


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
@pytest.mark.parametrize("text, secret", SECRETS, ids=[t for t, _ in SECRETS])
def test_a_long_text_finds_them_a_block_at_a_time(text: str, secret: str, engine: Any) -> None:
    """A long text's trigger search is the engine's, a block at a time."""
    with using_engine(engine):
        assert secret not in redact_text("log line\n" * 4096 + text + "\n").value


@pytest.mark.parametrize("engine", ENGINES, ids=ENGINE_IDS)
@pytest.mark.parametrize("flag", ["--password", "--password_{i}", "--secret-v{i}", "--api-key-{i}"])
def test_dense_affixed_flags_are_bounded_as_bare_ones_are(flag: str, engine: Any) -> None:
    """Lines of ``--password_N x`` count towards the density bound as lines of ``--password
    x`` do, on each engine: withheld whole as one credential-dense stretch, not judged one by
    one (hyperscan's literal of an affixed name counts where a flag's gap follows it)."""
    text = "".join(f"run {flag.format(i=i)} x{i}q\n" for i in range(12_000))
    with using_engine(engine):
        reasons = [w["reason"] for w in redact_text(text).withheld]
    assert reasons[0] == "credential-dense"
    assert len(reasons) < 20


BENIGN = [
    # a path's last part and a colon: a file or an endpoint a message names
    "Error processing file file:///etc/passwd: Unsupported URL protocol",
    "cat: /run/secrets/db_password: No such file or directory",
    "GET /api/v1/password: 405 Method Not Allowed",
    "GET /api/v1/authorization: 405 Method Not Allowed",
    "GET /api/authorization: Token required",
    "GET /oauth/token: 200 OK (12 ms)",
    "See /docs/secret: it explains how secrets are rotated",
    "secret/db-password: configured",
    "/x/api_key: see docs",
    "/home/ada/.config/gh/token: 0600",
    "https://example.com/auth/token:443",
    "/etc/passwd",  # a path alone
    "ls /run/secrets/api_key /run/secrets/db_password",
    # an affixed flag named in prose, or followed by another flag
    "the --password_2 flag is read from a file",
    "run --secret-v2 --verbose",
    "rotated token_1 and password2-old today",
    # Basic as a word
    "Basic authentication is configured per realm",
    "Authorization: Basic realm=Host",
]


@pytest.mark.usefixtures("unbounded")  # a log of 600 is past the density bound: judged here
@pytest.mark.parametrize("text", BENIGN)
def test_a_path_prose_or_word_is_kept_exactly(text: str) -> None:
    assert redact_text(text).withheld == ()
    assert redact_text(text).value == text
    assert redact_value({"log": text}).withheld == ()
    # a log of it: judged a shape at a time (generic._shaped), or a block of dead ones
    # (generic._dead_stretch), not a line at a time
    for lines in (12, 600):
        assert redact_text(f"{text}\n" * lines).withheld == ()


@pytest.mark.parametrize("line", [*BENIGN, *(text for text, _ in SECRETS)])
def test_a_log_of_them_is_judged_as_each_line_is(line: str) -> None:
    """A text that repeats a few shapes is judged a shape at a time, a long one a block of
    dead candidates at a time: each reads a name after a path as the loop does."""
    for lines in (12, 600):
        text = f"{line}\n" * lines
        now = find_assignments(text)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(generic, "_SHAPES", False)
            mp.setattr(generic, "_DEAD_WINDOWS", False)
            assert now == find_assignments(text)


# -- the property -----------------------------------------------------------------------------

#: The chars that may stand right before a name in a text.
PREFIXES = "/\\|([{<>=:;,'\"` "
NAMES = ["DB_PASSWORD", "password", "passwd", "api_key", "API-KEY", "apiKey", "x-api-key",
         "secret", "client_secret", "access_token", "auth_token", "private_key", "passphrase",
         "token"]
#: Names whose last word a ``-`` opens, as a flag's are written.
FLAG_NAMES = ["password", "passwd", "api-key", "x-api-key", "secret", "client-secret",
              "db-password", "access-token", "token", "passphrase"]
AFFIXES = ["", "_2", "-2", "2", "_v2", "-v2", "_old", "-backup"]
#: What assigns a name, ``{}`` its value.
SEPARATORS = ["={}", "= {}", " = {}", ": {}", ":{}", '="{}"', "='{}'", ":={}", " => {}"]


def _opaque(seed: str) -> str:
    return "k" + hashlib.sha256(seed.encode()).hexdigest()[:31]


@st.composite
def assignments(draw: st.DrawFn) -> tuple[str, str]:
    """A credential's name written after a punctuation char: assigned, or as a flag."""
    prefix = draw(st.sampled_from(PREFIXES))
    affix = draw(st.sampled_from(AFFIXES))
    if draw(st.booleans()):
        name = draw(st.sampled_from(NAMES)) + affix
        form = draw(st.sampled_from(SEPARATORS))
    else:
        name = draw(st.sampled_from(["--", "-"])) + draw(st.sampled_from(FLAG_NAMES)) + affix
        form = draw(st.sampled_from([" {}", "  {}"]))
    value = _opaque(name + form)
    lead = draw(st.sampled_from(["", "x", "GET /api", "path/to", "run"]))
    return f"{lead}{prefix}{name}{form.format(value)}", value


@settings(max_examples=150, deadline=None)
@given(assignments())
@example(("/DB_PASSWORD=hunter2-real-secret", "hunter2-real-secret"))
@example((f"path/API_KEY={VALUE}", VALUE))
@example((f"x --password_2 {VALUE}", VALUE))
def test_a_name_after_any_punctuation_is_read_as_a_name(case: tuple[str, str]) -> None:
    """Whatever char stands before a credential's name, its value is withheld on each route
    (a ``/`` before it too, where ``=`` assigns it or its value is generated)."""
    text, value = case
    assert shown_on(text, value) == []
