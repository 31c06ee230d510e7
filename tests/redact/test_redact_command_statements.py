"""A password in a command's argument or a statement's, where no ``name=value`` says so.

The hunt found each shown whole (docs/design.md, "Leaks found by the hunt"): curl's
``-u user:S``, SQL's ``CREATE USER … PASSWORD 'S'`` and ``IDENTIFIED BY 'S'``, PHP's
``define('DB_PASSWORD', 'S')``, HCL's ``variable "db_password" { default = "S" }`` and Oracle's
``jdbc:oracle:thin:scott/S@db``. Each is read where its command or statement makes the place
a password's (``elision.redact.commands``); the user's name, the flag and the quotes stay.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision.redact import redact_text, redact_value
from elision.redact.families import entropy
from elision.redact.rules import credential_stub

STUB = credential_stub("credential-assignment")
S = "Xq7vR2mK9pL4wT8nB3cF6hJ1"


@pytest.mark.parametrize(("text", "shown"), [
    # curl's user and password, each spelling of its flag; the user's name stays
    (f"curl -u admin:{S} https://api.example.com", f"curl -u admin:{STUB} https://api.example.com"),
    (f"curl --user admin:{S} https://x", f"curl --user admin:{STUB} https://x"),
    (f"curl --user=admin:{S} https://x", f"curl --user=admin:{STUB} https://x"),
    (f"curl -uadmin:{S} https://x", f"curl -uadmin:{STUB} https://x"),  # joined to its flag
    (f'curl -sS -u "admin:{S}" https://x', f'curl -sS -u "admin:{STUB}" https://x'),  # quoted
    (f"curl -x proxy:3128 -U bob:{S} https://x", f"curl -x proxy:3128 -U bob:{STUB} https://x"),
    (f"curl --proxy-user bob:{S} https://x", f"curl --proxy-user bob:{STUB} https://x"),
    (f"curl -u :{S} https://x", f"curl -u :{STUB} https://x"),  # no user's name
    # SQL: PostgreSQL's PASSWORD on a user or a role, MySQL's and Oracle's IDENTIFIED BY
    (f"CREATE USER bob WITH PASSWORD '{S}';", f"CREATE USER bob WITH PASSWORD '{STUB}';"),
    (f"ALTER ROLE bob PASSWORD '{S}';", f"ALTER ROLE bob PASSWORD '{STUB}';"),
    (f"create role app login encrypted password '{S}'",
     f"create role app login encrypted password '{STUB}'"),  # any case
    (f"ALTER USER bob IDENTIFIED BY '{S}';", f"ALTER USER bob IDENTIFIED BY '{STUB}';"),
    (f'ALTER USER bob IDENTIFIED BY "{S}";', f'ALTER USER bob IDENTIFIED BY "{STUB}";'),
    (f"CREATE USER scott IDENTIFIED BY {S};", f"CREATE USER scott IDENTIFIED BY {STUB};"),  # bare
    (f"GRANT ALL ON db.* TO 'u'@'%' IDENTIFIED BY '{S}';",
     f"GRANT ALL ON db.* TO 'u'@'%' IDENTIFIED BY '{STUB}';"),  # no CREATE: quoted only
    # PHP's constants, HCL's variables: the name is judged as any credential name
    (f"define('DB_PASSWORD', '{S}');", f"define('DB_PASSWORD', '{STUB}');"),
    (f'define("AUTH_KEY", "{S}");', f'define("AUTH_KEY", "{STUB}");'),
    (f'variable "db_password" {{ default = "{S}" }}',
     f'variable "db_password" {{ default = "{STUB}" }}'),
    (f'variable "api_key" {{\n  type    = string\n  default = "{S}"\n}}',
     f'variable "api_key" {{\n  type    = string\n  default = "{STUB}"\n}}'),  # across lines
    # Oracle's thin URL: user/password@host, the password alone
    (f"jdbc:oracle:thin:scott/{S}@db:1521:orcl", f"jdbc:oracle:thin:scott/{STUB}@db:1521:orcl"),
])
def test_a_password_in_a_command_or_statement_is_withheld(
    text: str, shown: str, keyword_engine: str
) -> None:
    assert redact_text(text).value == shown


@pytest.mark.parametrize("text", [
    'curl -u "$USER:$TOKEN" https://x',  # variables, not their values
    "curl -u admin https://x:8443/a",  # no ":" after the user: curl asks for the password
    "curl -u ${CREDS} https://x",
    "curl https://x -H 'Accept: a:b'",  # no -u at all
    "ssh -u admin:x host",  # -u is curl's only
    "SELECT * FROM users WHERE password = ?",
    "ALTER USER bob PASSWORD NULL;",  # no password
    "CREATE USER bob;\nSELECT 'x' AS password 'y'",  # the PASSWORD is on another line
    "The bug was identified by Alice in review.",  # prose: no quote after IDENTIFIED BY
    "define('WP_DEBUG', 'true');",  # no credential's name
    "define('DB_PASSWORD', getenv('DB_PASSWORD'));",  # a call, not a value
    'variable "region" { default = "eu-west-1" }',
    'variable "db_password" {\n  sensitive = true\n}\nlocals { default = "eu-west-1" }',
    "jdbc:oracle:thin:@db:1521:orcl",  # no user, no password
    "jdbc:oracle:thin:scott/${DB_PASSWORD}@db:1521",
])
def test_a_command_or_statement_with_no_password_is_shown(text: str, keyword_engine: str) -> None:
    assert redact_text(text).value == text


_SECRET = st.text("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=12,
                  max_size=40).filter(
    # generated, as a password is: mixed (a word, "UNAUTHoRiZED", is a message and shown)
    lambda s: len(set(s)) >= 8 and sum(c.isdigit() for c in s) >= 2)
_USER = st.text("abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=0, max_size=12)
_QUOTE = st.sampled_from(["", "'", '"'])
_GAP = st.sampled_from([" ", "\t", "  "])


@settings(max_examples=150, deadline=None)
@given(_SECRET, _USER, _QUOTE, st.sampled_from(["-u{g}", "-U{g}", "-u", "--user{g}", "--user=",
                                                "--proxy-user{g}"]), _GAP,
       st.sampled_from(["", "-sS ", "-X POST "]))
def test_curls_password_is_withheld_however_written(
    secret: str, user: str, quote: str, flag: str, gap: str, before: str
) -> None:
    assume(secret not in user)
    text = f"$ curl {before}{flag.format(g=gap)}{quote}{user}:{secret}{quote} https://h/x"
    out = redact_text(text).value
    assert secret not in out
    assert f"{user}:{STUB}" in out  # the user's name stays


@settings(max_examples=150, deadline=None)
@given(_SECRET, st.sampled_from(["CREATE", "ALTER", "create", "Alter"]),
       st.sampled_from(["USER", "ROLE", "user"]),
       st.sampled_from(["PASSWORD", "WITH PASSWORD", "WITH ENCRYPTED PASSWORD", "LOGIN password",
                        "IDENTIFIED BY", "identified by"]),
       st.sampled_from(["'", '"']), _GAP)
def test_a_sql_users_password_is_withheld_however_written(
    secret: str, verb: str, kind: str, clause: str, quote: str, gap: str
) -> None:
    # The opening as the trigger search spells it (one space: docs/design.md), the rest spaced
    # any way.
    text = f"{verb} {kind}{gap}app_1 {clause.replace(' ', gap)}{gap}{quote}{secret}{quote};"
    out = redact_text(text).value
    assert secret not in out
    assert out.endswith(f"{quote}{STUB}{quote};")


@settings(max_examples=100, deadline=None)
@given(_SECRET, st.sampled_from(["DB_PASSWORD", "SECURE_AUTH_KEY", "db_password", "api_key",
                                 "client_secret", "smtp_pass"]), _QUOTE.filter(bool), _GAP,
       st.booleans())
def test_a_constants_or_variables_credential_is_withheld(
    secret: str, name: str, quote: str, gap: str, hcl: bool
) -> None:
    if hcl:
        text = f'variable "{name}" {{{gap}default{gap}={gap}"{secret}"{gap}}}'
    else:
        text = f"define({quote}{name}{quote},{gap}{quote}{secret}{quote});"
    assert secret not in redact_text(text).value


def test_a_json_strings_command_is_withheld() -> None:
    # the same reading inside a JSON document's string (a tool's result)
    doc = {"cmd": f"curl -u admin:{S} https://x", "sql": f"ALTER USER a IDENTIFIED BY '{S}'"}
    out = redact_value(doc)
    assert S not in json.dumps(out.value)
    assert out.value["cmd"] == f"curl -u admin:{STUB} https://x"


_LOG = "".join(f"line {i} of an ordinary build log with nothing in it\n" for i in range(2000))


@pytest.mark.parametrize("body", [
    f"curl -u admin:{S} https://x\n",
    f"CREATE USER bob WITH PASSWORD '{S}';\n",
    f"define('DB_PASSWORD', '{S}');\n",
    f'variable "api_key" {{\n  type        = string\n  description = "k"\n  default = "{S}"\n}}\n',
    f"jdbc:oracle:thin:scott/{S}@db:1521:orcl\n",
])
def test_a_long_texts_command_is_withheld(body: str, keyword_engine: str) -> None:
    # judged in a piece around its trigger, far from the text's start and end
    assert S not in redact_text(_LOG + body + _LOG).value


# -- a token as a URL's user, with no password -------------------------------------------

USERINFO = credential_stub("url-userinfo")


@pytest.mark.parametrize(("text", "shown"), [
    # a generated user alone is a token (GitHub, GitLab, Azure DevOps take one so)
    (f"git clone https://{S}@github.com/org/repo.git",
     f"git clone https://{USERINFO}@github.com/org/repo.git"),
    (f"https://{S}@github.com/org/repo.git", f"https://{USERINFO}@github.com/org/repo.git"),
    (f"origin\thttps://{S}@github.com/o/r.git (fetch)",
     f"origin\thttps://{USERINFO}@github.com/o/r.git (fetch)"),  # git remote -v
    (f'url = "https://{S}@dev.azure.com/org"', f'url = "https://{USERINFO}@dev.azure.com/org"'),
])
def test_a_token_as_a_urls_user_is_withheld(text: str, shown: str, keyword_engine: str) -> None:
    assert redact_text(text).value == shown


@pytest.mark.parametrize("text", [
    "git clone git@github.com:org/repo.git",  # ssh's user, not a token
    "https://alice@example.com/x",  # a person's name
    "ssh://git@github.com/org/repo.git",
    "https://deploybotaccountname@host/x",  # letters alone: a name
    "https://build-robot-account-2024@host/x",  # a "-": a name's, no token's
    "https://aaaaaaaaaaaaaaaa1@host/x",  # one char repeated: no entropy
    "mail me at first.last2024@example.com",
])
def test_a_urls_user_that_is_a_name_is_shown(text: str, keyword_engine: str) -> None:
    assert redact_text(text).value == text


@settings(max_examples=150, deadline=None)
@given(st.text("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=16,
               max_size=60).filter(  # generated: 3 bits a char, as a weak name's value
    lambda s: entropy(s) >= 3.0 and sum(c.isdigit() for c in s) >= 2
    and sum(c.isalpha() for c in s) >= 2),
       st.sampled_from(["https", "http", "git+https"]),
       st.sampled_from(["github.com/o/r.git", "gitlab.example.com:8443/g/p", "h"]),
       st.sampled_from(["", "git clone ", "url = ", '"', "origin\t"]))
def test_a_generated_urls_user_is_withheld(user: str, scheme: str, rest: str, before: str) -> None:
    text = f"{before}{scheme}://{user}@{rest}"
    out = redact_text(text).value
    assert user not in out
    assert out.endswith(f"{USERINFO}@{rest}")  # the host and the path stay


def test_a_log_of_users_created_with_no_password_is_not_read_line_by_line() -> None:
    """A migration's log of ``CREATE USER``/``ALTER ROLE`` lines holds no password, yet each
    line was a trigger and read (1 MB: 0.6 -> 167 ms, 250x prose): the statement's opening is
    no trigger; its ``PASSWORD '`` (or ``IDENTIFIED``) is."""
    from elision.redact import keywords

    line = "12:00:01Z migrate: CREATE USER app_1 WITH LOGIN; ALTER ROLE app_1 SET x = y\n"
    assert not keywords.present(line * 40).generic
    assert keywords.present(line.replace("WITH LOGIN", "WITH PASSWORD 'S3cr3t-val'")).generic
