"""Shell forms that set a credential-named variable, and curl's user in a JSON text's escaped
quotes, each shown whole by every route on the code before (design.md's "Not yet", found by
the hunt; closed by the leaksa session): ``redact_text``, ``redact_value`` of a JSON member,
``shape()`` of a JSON document, of a text, of NDJSON and of a JSON text as text, and a JSON
text read as text.

- ``${DB_PASSWORD-S}`` (no colon; ``+`` too): the default is the variable's value as typed,
  read as ``${DB_PASSWORD:-S}`` already was (the default alone withheld, the operator kept).
- Other shells' ``set NAME S``: csh's ``setenv``, Windows' ``setx`` (``/M`` after), fish's
  ``set -x``, ``-gx``, ``--export``.
- curl's ``-u \\"adm:S\\"`` and ``-u \\"adm\\":\\"S\\"`` in a JSON text (the plain forms were
  withheld already).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value
from elision.redact.generic import is_credential_value
from support.routes import every_route

SECRET = "Zq8vN3xK7pL2mR9tW4yB6cH1"
_SECRETS = st.text(alphabet="abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
                   min_size=16, max_size=32)
#: Credential-named variables as shells and .env files spell them.
_NAMES = ["DB_PASSWORD", "PASSWORD", "API_TOKEN", "GITHUB_TOKEN", "CLIENT_SECRET", "API_KEY",
          "PGPASSWORD", "AWS_SECRET_ACCESS_KEY", "db_password", "auth_token"]


def _routes(text: str) -> dict[str, str]:
    """What each route shows of ``text``: :func:`support.routes.every_route`'s (a text, a JSON
    string, NDJSON, the proxy's egress gate, ``shape()`` of a JSON body), ``shape()`` of the
    text, and a JSON text carrying it read as text (its line break escaped)."""
    shown = every_route(text.rstrip("\n"))
    shown["shape_text"] = shape(text, 100_000, format="text").text
    shown["json_as_text"] = str(redact_text(json.dumps({"text": text})).value)
    return shown


LEAKS = [
    # a shell's default with no colon (and its alternative), bare or quoted
    "${{DB_PASSWORD-{S}}}\n",
    "echo ${{API_TOKEN-{S}}} | login\n",
    'PGPASSWORD="${{PGPASSWORD-{S}}}" psql -h db\n',
    "${{DB_PASSWORD-'{S}'}}\n",
    "${{PASSWORD+{S}}}\n",
    # the merge's review: a piece with no "=", ":" or "-" was passed unread (generic._declines)
    "echo ${{DB_PASSWORD+{S}}}\n",
    "${{CLIENT_SECRET-{S}}} and more\n",
    # csh and tcsh, Windows, fish
    "setenv DB_PASSWORD {S}\n",
    "setenv  API_TOKEN '{S}'\n",
    "setx DB_PASSWORD {S}\n",
    "setx DB_PASSWORD {S} /M\n",
    'SETX API_TOKEN "{S}" /M\n',
    "set -x DB_PASSWORD {S}\n",
    "set -gx GITHUB_TOKEN {S}\n",
    "set -Ux API_KEY {S}\n",
    "set --export DB_PASSWORD {S}\n",
    "set --global --export DB_PASSWORD '{S}'\n",
]


@pytest.mark.parametrize("text", LEAKS)
@pytest.mark.usefixtures("each_engine", "keyword_engine")
def test_a_shell_variable_set_to_a_credential_is_withheld(text: str) -> None:
    for route, shown in _routes(text.format(S=SECRET)).items():
        assert SECRET not in shown, route


@pytest.mark.usefixtures("each_engine")
def test_a_tab_after_setenv_in_a_text_is_a_gap() -> None:
    """In a text; a JSON string's escaped tab (``setenv\\tNAME``) is not read (as psql's
    ``\\setenv`` is not): design.md's Not yet."""
    text = f"setenv\tAPI_TOKEN '{SECRET}'\n"
    assert SECRET not in str(redact_text(text).value)
    assert SECRET not in shape(text, 100_000, format="text").text


#: curl's user in a JSON text's escaped quotes: the text itself, as a tool's argument.
JSON_CURLS = [
    'curl -u \\"adm:{S}\\" https://h.example/a',
    'curl -u \\"adm\\":\\"{S}\\" https://h.example/a',
    'curl -u \\"adm%3Ain\\":\\"{S}\\" https://h.example/a',
    'curl -sku \\"adm:{S}\\" https://h.example/a',
    'curl --user \\"adm:{S}\\" https://h.example/a',
]


@pytest.mark.parametrize("command", JSON_CURLS)
@pytest.mark.usefixtures("each_engine")
def test_curl_user_in_escaped_quotes_of_a_json_text_is_withheld(command: str) -> None:
    text = '{"cmd": "' + command.format(S=SECRET) + '"}'
    routes = {
        "json_as_text": str(redact_text(text).value),
        "shape_json_as_text": shape(text, 100_000, format="text").text,
        "shape_json": shape(text, 100_000).text,
        "redact_value": json.dumps(redact_value(json.loads(text)).value),
        "text_in_json": json.dumps(redact_value({"text": text}).value),
        "shape_text_in_json": shape(json.dumps({"text": text}), 100_000).text,
    }
    for route, shown in routes.items():
        assert SECRET not in shown, route
    # The redacted JSON text is still JSON: the stub ends before the escaped quote's ``\\``.
    assert json.loads(routes["json_as_text"])["cmd"].startswith(command.split("{S}")[0]
                                                               .replace("\\", ""))


KEPT = [
    # a default that is another variable, empty, a message, or not a credential's
    ("${{API_TOKEN-$FALLBACK_TOKEN}}\n", "${API_TOKEN-$FALLBACK_TOKEN}"),
    ("${{API_TOKEN-}}\n", "${API_TOKEN-}"),
    ("${{DB_PASSWORD+}}\n", "${DB_PASSWORD+}"),
    ("${{DB_PASSWORD?DB_PASSWORD must be set}}\n", "${DB_PASSWORD?DB_PASSWORD must be set}"),
    ("${{HOME-/root}}/.config\n", "${HOME-/root}/.config"),
    ("${{EDITOR-vim}} notes.txt\n", "${EDITOR-vim} notes.txt"),
    # a default withheld keeps the operator
    ("${{DB_PASSWORD-{S}}}\n", "${DB_PASSWORD-[credential withheld"),
    ("${{DB_PASSWORD-changeme}}\n", "${DB_PASSWORD-[credential withheld"),
    # words joined with a dash stay prose
    ("a password-protected archive, token-based auth and a key-value store\n",
     "a password-protected archive, token-based auth and a key-value store"),
    ("see {{token-based}} docs\n", "see {token-based} docs"),
    # other variables set by those shells, their flags alone, and a variable as the value
    ("setenv PATH /usr/local/bin\n", "setenv PATH /usr/local/bin"),
    ('setx PATH "C:\\bin" /M\n', 'setx PATH "C:\\bin" /M'),
    ("set -gx EDITOR vim\n", "set -gx EDITOR vim"),
    ("set -e", "set -e"),
    ("set -x; set -u\n", "set -x; set -u"),
    # (no line break after a variable: a JSON text's escaped one after a $NAME is withheld
    # with it, design.md's Not yet)
    ("setenv DB_PASSWORD $HOME", "setenv DB_PASSWORD $HOME"),
    ("set -x DB_PASSWORD $OTHER_PASSWORD # from the vault", "set -x DB_PASSWORD $OTHER_PASSWORD"),
    ("we set the password to expire\n", "we set the password to expire"),
    # the value withheld keeps the command and the name
    ("setx DB_PASSWORD {S} /M\n", "setx DB_PASSWORD [credential withheld"),
    ("set -x DB_PASSWORD {S}\n", "set -x DB_PASSWORD [credential withheld"),
]


@pytest.mark.parametrize(("text", "kept"), KEPT)
@pytest.mark.usefixtures("each_engine")
def test_what_names_no_typed_credential_is_shown(text: str, kept: str) -> None:
    text = text.format(S=SECRET)
    escaped = json.dumps(kept)[1:-1]
    for route, shown in _routes(text).items():
        assert SECRET not in shown, route
        assert kept in shown or escaped in shown, route


JSON_KEPT = [
    # a user with no password (curl asks for one), a placeholder, a header's colon
    ('curl -u \\"adm\\" https://h.example/a', 'curl -u \\"adm\\" https'),
    ('curl -u \\"adm:\\" https://h.example/a', 'curl -u \\"adm:\\" https'),
    ('curl -u \\"adm:$PASS\\" https://h.example/a', 'curl -u \\"adm:$PASS\\" https'),
    ('curl -H \\"Accept: a/b\\" -u adm https://h.example/a', '-H \\"Accept: a/b\\" -u adm'),
]


@pytest.mark.parametrize(("command", "kept"), JSON_KEPT)
@pytest.mark.usefixtures("each_engine")
def test_curl_in_a_json_text_with_no_password_is_shown(command: str, kept: str) -> None:
    text = '{"cmd": "' + command + '"}'
    assert kept in str(redact_text(text).value)
    assert kept in shape(text, 100_000, format="text").text


@settings(max_examples=60, deadline=None)
@given(_SECRETS, st.sampled_from(_NAMES),
       st.sampled_from(["${{{n}-{v}}}", "${{{n}+{v}}}", "setenv {n} {v}", "setx {n} {v}",
                        "setx {n} {v} /M", "set -x {n} {v}", "set -gx {n} {v}",
                        "set --export {n} {v}", "set -xU {n} {v}"]),
       st.sampled_from(["", "'", '"']), st.sampled_from(["", "$ ", "  ", "x; "]))
def test_property_a_typed_value_of_a_credential_variable_is_withheld(
    secret: str, name: str, form: str, quote: str, before: str,
) -> None:
    # Where the same value assigned (``NAME=S``) is withheld: each form is read as that.
    assume(is_credential_value(name, secret))
    text = before + form.format(n=name, v=f"{quote}{secret}{quote}") + "\n"
    for route, shown in _routes(text).items():
        assert secret not in shown, route
    shown = str(redact_text(text).value)
    assert shown.startswith(before + form.split("{v}")[0].format(n=name))


@settings(max_examples=60, deadline=None)
@given(_SECRETS, st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-.", min_size=1, max_size=12),
       st.sampled_from(['\\"{u}:{v}\\"', '\\"{u}\\":\\"{v}\\"', '\\"{u}\\":{v}']),
       st.sampled_from(["-u", "--user", "-su", "-sku", "--proxy-user"]))
def test_property_curl_user_in_a_json_text_is_withheld(
    secret: str, user: str, quoted: str, flag: str,
) -> None:
    assume(is_credential_value("password", secret))
    text = ('{"cmd": "curl ' + flag + " " + quoted.format(u=user, v=secret)
            + ' https://h.example/a"}')
    assert secret not in str(redact_text(text).value)
    assert secret not in shape(text, 100_000, format="text").text
    assert secret not in shape(text, 100_000).text


@pytest.mark.parametrize("form", ["${{DB_PASSWORD-{v}}}", "x=${{DB_PASSWORD+{v}}} y",
                                  "setx DB_PASSWORD {v} /M", "set -gx DB_PASSWORD {v}"])
@pytest.mark.usefixtures("each_engine")
def test_a_text_dense_with_them_withholds_each_as_one_alone(form: str) -> None:
    """Many lines of one shape are told a shape at a time (``generic._shaped``), and each
    window's stretch with no value may be passed over whole: neither may read the name past
    the shell's (``DB_PASSWORD-S`` is one name's chars)."""
    lines = [form.format(v=SECRET) + "\n"] * 300
    shown = str(redact_text("".join(lines)).value)
    assert shown == "".join(str(redact_text(line).value) for line in lines)
    assert SECRET not in shown


@pytest.mark.parametrize("flag", ["-u", "--user"])
def test_a_curl_user_whose_escaped_quote_never_closes_ends_with_its_json_string(
    flag: str,
) -> None:
    """The merge's review: with no escaped close before the JSON string's end, the rest of the
    string and the members after it (up to 1 KB) were withheld as the password, the JSON text
    torn. The password is withheld as a bare one; the rest is shown."""
    text = ('{"cmd": "curl ' + flag + ' \\"admin:' + SECRET + ' https://x -d data", '
            '"next": "some \\"quoted\\" text"}')
    done = str(redact_text(text).value)
    assert SECRET not in done
    assert 'https://x -d data", "next": "some \\"quoted\\" text"}' in done
    assert json.loads(done)["next"] == 'some "quoted" text'
