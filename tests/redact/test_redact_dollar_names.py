"""A generated secret that opens with a ``$`` was shown under a password's name
(``password=$Xk9fQ2mLp7RtZ4wB``): ``generic.placeholder`` took ``$`` and any identifier for
an environment variable's reference (``$HOME``, ``$DB_PASSWORD``), and ``${…}`` for a
template whatever was inside. Found by another helper's review of the placeholder rules. Now
the name after the ``$`` must read as a variable's (``elision.redact.variables``): a long,
high-entropy one of a generator's shape is the secret and withheld, on every route and
trigger engine; ``${…}`` and ``$(…)`` written bare in a text are read as one value (they were
read as ``$`` alone). A bcrypt hash (``$2b$12$…``) was withheld before and still is.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision.redact.generic import placeholder, variable_name
from support.routes import member_routes, on_every_engine

SECRET = "Xk9fQ2mLp7RtZ4wB"
BCRYPT = "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW"


@pytest.mark.parametrize(("line", "secret"), [
    (f"password=${SECRET}", f"${SECRET}"),  # the leak as found
    (f"password=${{{SECRET}}}", SECRET),  # braced: was a template whatever it held
    (f"password=$({SECRET})", SECRET),  # a command's substitution's spelling
    (f'DB_PASSWORD="${SECRET}"', SECRET),  # quoted
    (f"export DB_PASSWORD=${{{SECRET}}}", SECRET),
    (f"api_token: ${SECRET}", SECRET),  # a weak name: the value is opaque
    (f"--password ${SECRET} --user ada", SECRET),  # a flag's value
    ("secret=$aB3dE5fG7hJ9kL1mN0pQ", "aB3dE5fG7hJ9kL1mN0pQ"),
    ("PASSWORD=$xk9fq2mlp7rtz4wb", "xk9fq2mlp7rtz4wb"),  # one case and digits
    ("PASSWORD=$JBSWY3DPEHPK3PXPQ4RT", "JBSWY3DPEHPK3PXPQ4RT"),  # base32
    ("password=$KpRtXbQmWzNvLhGdJs", "KpRtXbQmWzNvLhGdJs"),  # letters: no word's consonants
    (f"password=${'A' * 30}{SECRET}{'b' * 30}", SECRET),  # longer than any variable's name
    (f"password={BCRYPT}", "R9h/cIPz0gi"),  # bcrypt under a password's name: withheld before
    (f'{{"password": "{BCRYPT}"}}', "R9h/cIPz0gi"),
])
def test_a_generated_secret_after_a_dollar_is_withheld(line: str, secret: str) -> None:
    for route, shown in on_every_engine(line).items():
        assert secret not in shown, (route, line, shown)


@pytest.mark.parametrize("line", [
    "password=$HOME",  # an environment variable's reference
    "password=$DB_PASSWORD",
    "password=${API_KEY}",
    "password=$(DB_PASSWORD)",
    "password=$1",  # a bind parameter
    "password=$password",
    "password=$dbPassword",  # camelCase
    "password=$dbIdPasswordKey",  # camel case with short words, sixteen chars
    "password=$HTTPServerAdminPassword",  # an acronym, then words
    "password=$GITHUB_PERSONAL_ACCESS_TOKEN",  # long, of words
    "password=$DB_PASSWORD_2024_ROTATED",  # digits that are a word of it
    "password=$aws_secret_access_key_v2",
    "password=$K8S_SERVICE_ACCOUNT_TOKEN",  # digits inside one word: once
    "password=$x509CertificatePassphrase",  # five consonants: a word's
    "password=${DB_PASSWORD}/dev",  # a template and more: a template
    "password=${{ secrets.DB_PASSWORD }}",  # a workflow's expression
    "password=$Xk9fQ2mLp7RtZ4w",  # fifteen chars: shorter than a generated secret is
])
def test_a_variables_name_after_a_dollar_is_shown(line: str) -> None:
    for route, shown in on_every_engine(line).items():
        assert set(shown.split("\n")) == {line}, (route, line, shown)  # NDJSON's: 3 lines


@pytest.mark.parametrize(("value", "shown"), [
    (f"${SECRET}", False),
    (f"${{{SECRET}}}", False),
    (f"$({SECRET})", False),
    (BCRYPT, False),
    ("$HOME", True),
    ("${API_KEY}", True),
    ("$dbPassword", True),
    ("$DB_PASSWORD_2", True),
])
def test_a_json_members_dollar_value(value: str, shown: bool) -> None:
    for route, out in member_routes("db_password", value).items():
        assert (out == value) is shown, (route, value, out)


def _random(seed: int, size: int, alphabet: str) -> str:
    """A generator's output: ``size`` chars drawn from ``alphabet``, a letter first."""
    rng = random.Random(seed)
    return rng.choice(string.ascii_letters) + "".join(rng.choices(alphabet, k=size - 1))


_ALPHABETS = st.sampled_from([
    string.ascii_letters + string.digits,  # a random password, an API key's body
    string.ascii_lowercase + string.digits,
    string.ascii_uppercase + string.digits,
])
_CREDENTIAL_FORMS = st.sampled_from([
    "password=${}", "DB_PASSWORD=${{{}}}", "export API_SECRET=$({})", 'passwd: "${}"',
    "--password ${} -h db",
])


# Derandomized: the rule is measured (elision.redact.variables), and 1 in several thousand
# random runs of 32 chars reads as words; a fixed draw keeps the suite deterministic.
@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 1 << 32), size=st.integers(32, 48), alphabet=_ALPHABETS,
       form=_CREDENTIAL_FORMS)
def test_a_random_secret_after_a_dollar_is_withheld(
        seed: int, size: int, alphabet: str, form: str) -> None:
    secret = _random(seed, size, alphabet)
    line = form.format(secret)
    assert not variable_name(secret), secret
    for route, shown in on_every_engine(line).items():
        assert secret not in shown, (route, line, shown)


#: Words of a name, of four letters or more (camel case of shorter ones averages under
#: variables.WORD_CHARS: ``DevProdOldHttpV2`` reads as dice and is withheld); snake case
#: takes the short ones too, each parted by ``_``.
_LONG_WORDS = ["password", "secret", "token", "admin", "root", "user", "home", "path", "prod",
               "staging", "access", "client", "service", "account", "github", "smtp", "redis",
               "postgres", "rotated", "primary", "backup", "signing", "http"]
_SHORT_WORDS = ["db", "id", "api", "key", "aws", "old", "new", "pwd", "jwt", "dev"]


@st.composite
def _variable_names(draw: st.DrawFn) -> str:
    """A person's name for a variable: 1 to 6 words, snake case of either case (any words)
    or camel case (words of four letters or more), a number after the last word at times."""
    style = draw(st.sampled_from(["upper", "lower", "camel", "pascal"]))
    pool = _LONG_WORDS if style in ("camel", "pascal") else _LONG_WORDS + _SHORT_WORDS
    words = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6))
    if style == "upper":
        name = "_".join(words).upper()
    elif style == "lower":
        name = "_".join(words)
    else:
        name = words[0] if style == "camel" else words[0].title()
        name += "".join(w.title() for w in words[1:])
    return name + draw(st.sampled_from(["", "2", "_2", "_2024", "V2"]))


@settings(max_examples=40, deadline=None)
@given(name=_variable_names(), form=st.sampled_from(["${}", "${{{}}}", "$({})"]))
def test_a_variables_name_after_a_dollar_stays_a_placeholder(name: str, form: str) -> None:
    value = form.format(name)
    assert variable_name(name), name
    assert placeholder(value), value
    line = f"password={value}"
    for route, shown in on_every_engine(line).items():
        assert set(shown.split("\n")) == {line}, (route, line, shown)


# The leaks helper (docs/design.md's "Not yet" for ``$`` references): a reference left open
# (``$(Xk9f…`` with no ``)``: read as ``$`` alone in a text) or with more after it
# (``${Xk9fQ2mLp7}tail``: a template whatever its name) was shown by every route. A shell
# reads neither whole, so it is a template only where its name reads as words
# (``variables.scrambled``). Each case marked red was red on the code before.
@pytest.mark.parametrize(("line", "secret"), [
    (f"password=$({SECRET}", SECRET),  # left open: red
    ("password=$(Xk9fQ2mLp7", "Xk9fQ2mLp7"),  # left open, a short name: red
    ("password=${Xk9fQ2mLp7}tail", "Xk9fQ2mLp7"),  # the brief's: red
    (f"password=${{{SECRET}}}tail", SECRET),  # red
    (f"password=$({SECRET})x9", SECRET),  # a command and more: withheld before too
    (f'DB_PASSWORD="$({SECRET}"', SECRET),  # quoted, left open: withheld before too
    (f"password=${{HOME}}{SECRET}", SECRET),  # a variable, then a secret: red
    (f"export DB_PASSWORD=$({SECRET} && run", SECRET),  # red
])
def test_a_dollar_reference_left_open_or_with_a_tail_hides_a_generated_name(
        line: str, secret: str) -> None:
    for route, shown in on_every_engine(line).items():
        assert secret not in shown, (route, line, shown)


@pytest.mark.parametrize("line", [
    "password=$(DB_PASSWORD",  # left open, a variable's name
    "password=${DB_PASSWORD}_old",  # a template and more, a variable's name
    "password=${HOME}/secrets/db",
    "password=${prefix}Suffix",
    "password=$(",  # no name
])
def test_a_dollar_reference_left_open_or_with_a_tail_of_words_stays_shown(line: str) -> None:
    for route, shown in on_every_engine(line).items():
        assert set(shown.split("\n")) == {line}, (route, line, shown)


@pytest.mark.parametrize(("value", "shown"), [
    (f"$({SECRET}", False),  # withheld before too
    ("${Xk9fQ2mLp7}tail", False),  # red
    ("$(DB_PASSWORD", True),
    ("${DB_PASSWORD}tail", True),
])
def test_a_json_members_open_or_tailed_dollar_value(value: str, shown: bool) -> None:
    for route, out in member_routes("db_password", value).items():
        assert (out == value) is shown, (route, value, out)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 1 << 32), size=st.integers(32, 48), alphabet=_ALPHABETS,
       form=st.sampled_from(["password=$({}", "password=${{{}}}x", "password=$({})tail",
                             'passwd: "$({}"']))
def test_a_random_secret_in_an_open_or_tailed_reference_is_withheld(
        seed: int, size: int, alphabet: str, form: str) -> None:
    secret = _random(seed, size, alphabet)
    line = form.format(secret)
    for route, shown in on_every_engine(line).items():
        assert secret not in shown, (route, line, shown)


@settings(max_examples=30, deadline=None)
@given(name=_variable_names(), form=st.sampled_from(["$({}", "${{{}}}_x", "${{{}}}/bin"]))
def test_a_variables_name_open_or_tailed_stays_a_placeholder(name: str, form: str) -> None:
    value = form.format(name)
    assert placeholder(value), value
