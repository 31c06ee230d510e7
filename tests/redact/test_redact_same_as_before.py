"""Redaction withholds what it did before its reading was bounded (issue 23), byte for byte.

The judgements of credential names were made linear in the text (a message read to 61 words,
a header's line end found once, a bracketed value's reading budgeted, a command's ``-p``
searched once per stretch, names' readings kept). On every text below, and on the bench
corpora, the redacted text and its withheld entries must be those of the code before: each
digest in ``fixtures/same_as_before.json`` was written by that code with::

    PYTHONPATH=<checkout before>/src .venv/bin/python tests/redact/test_redact_same_as_before.py

Rewritten once since, by the code that judges an ``Authorization`` value by its first word
after the scheme (a placeholder later on the line, ``see <docs>``, had let a real credential
through): 11 of the 400 texts changed, each a header on a line of many; where more is kept
now, the kept word is itself a placeholder (``aaaa…``, forty of one char), kept alone as any
assignment's is. Rewritten again by the code that ends a header's credential at its token
(``Authorization: <value> trailing words``, a cookie's value at a space: the words after
it were withheld in its place, the value shown): 107 of the 400 texts changed, none of the
bench corpora. Each change was read (``hdrleak``'s report): what is kept now is what its
line says after the header's credential, judged by the rules that judge it anywhere (a
``credentials:`` value that is no generated one, a cursor, a placeholder); what is withheld
now and was not is a nameless or quoted cookie's value, and the scalars of a container
after ``Authorization=`` (read as a password's container is, past its line where it does
not close).

Rewritten again by the code that reads a value after a quote that does not close on its
line (hdrleak2: ``db_password\\": \\"<value>; …`` was shown, under any name): 165 of the 400
texts changed, none of the bench corpora, each one an open quote's value now withheld as a
bare value after it is (``="hunter2``, ``\\": \\"Zx8Q…``, ``='sid=abcdefgh1234;``; one
word of a phrase that is no message, as ``password: correct horse …`` withholds
``correct``). The cookie and header changes of the same work changed none of them.

Rewritten again by the code that reads a cookie header on past a member with a ``:`` or a
``/`` and through ``Set-Cookie``'s attributes, and a cookie map or array in a text as a
container (leakcookie): 2 of the 400 texts changed (1 and 276), none of the bench corpora.
Each is a label: ``--token=<value>`` on a ``Cookie='https://…; `` or ``Set-Cookie: ghp_…; ``
line, withheld before by its flag's name, is now a pair of the cookie reading too, so the same
span's stub says ``session-cookie`` for ``credential-assignment``; nothing more withheld, nothing
less. Reading a cookie map or array as a container changed none of them (a reverted attempt
had changed 81).

Rewritten again by the code that reads a cookie after a comma and a space (leakwave2): 8 of
the 400 texts changed (37, 172, 278, 313, 324, 352, 356, 399), none of the bench corpora. In
three (37, 172, 352) a ``Cookie=<value>, `` or ``Cookie => <value>, `` showed a generated
value (``Zx8Qw3Er5Ty7Ui9Op``), now withheld (a value with a comma after it was read as none);
in 278
each ``Set-Cookie=https://example.com/x`` after the first is read as a pair after its comma
and withheld, as any cookie pair's long varied value is after a ``;``; in the other four a
span already withheld is now a cookie pair's too (its stub says ``session-cookie``, and
the quote or ``sid=`` beside it is in it).

The texts mix the forms the generic rules read (assignments with every kind of value,
headers, cookies, flags, commands, containers under credential names, nested ones) with
every family's fake, URLs and prose, a few lines to a few KB, some lines of a run of one form.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
from pathlib import Path

import pytest

from elision.redact import redact_text
from elision.redact.families import FAMILIES, sample

FIXTURE = Path(__file__).parent / "fixtures" / "same_as_before.json"
COUNT = 400
LINE = 6000

NAMES = ["password", "db_password", "dbPassword", "API_KEY", "api-key", "token", "auth_token",
         "page_token", "secret", "client_secret", "Authorization", "Cookie", "Set-Cookie",
         "x-api-key", "pwd", "PWD", "credentials", "session_key", "primaryKey", "sort_key"]
SEPS = ["=", ": ", " = ", '": "', "='", ":=", " => ", "=\"", '\\": \\"']
VALUES = ["hunter2", "x", "correct horse battery staple", "must be at least 12 characters",
          "Zx8Qw3Er5Ty7Ui9Op", "${DB_PASSWORD}", "<token>", "********", "/home/ada",
          "Token abcdefgh12345", "Bearer abcdefghijklmnop", "Custom a=b, c=d", "4096",
          "sid=abcdefgh1234; Path=/; HttpOnly", "incorrect", "None", "ghp_" + "a1B2" * 9,
          "https://example.com/x", "a" * 40, "s3cr3t! and more words follow here", ""]
BRACKETED = ['{"value": "s3cr3t", "sensitive": true}', '["one", "two"]',
             '{"a": {"b": "deep1234"}, "type": "string"}', '{"value": "x"', "[1, 2, 3]"]
FLAGS = ["docker login -u me -p hunter2x", "sshpass -p s3cr3tpw ssh host",
         "mysql -u root -ps3cr3t db", "mysql -p app", "login then -p 8080", "--password hunter2",
         "--password flag is read", "--token=abcd1234efgh5678ijkl"]
URLS = ["https://u:p4ss@db.example.com/x", "https://h.example.com/?sig=abc123&sv=2020",
        "https://api.example.com/v1?access_token=ya29.abcdef", "postgres://app:pw123456@db/x",
        "https://example.com/items/7?page=2&sort=asc"]
PROSE = ["the quick brown fox jumps over the lazy dog", "status ok request cache miss",
         "monkey keys turkey passage bypass", "error: password incorrect for user ada"]


def _families() -> list[str]:
    return [sample(f, 0, "before")[0].replace("\n", " ")
            for f in FAMILIES if f.finder != "field"]


def _fragment(rng: random.Random, fakes: list[str]) -> str:
    kind = rng.randrange(7)
    if kind == 0:
        return rng.choice(NAMES) + rng.choice(SEPS) + rng.choice(VALUES)
    if kind == 1:
        return rng.choice(NAMES) + rng.choice(["=", ": ", '": '])+ rng.choice(BRACKETED)
    if kind == 2:
        return rng.choice(FLAGS)
    if kind == 3:
        return rng.choice(URLS)
    if kind == 4:
        return rng.choice(fakes)
    if kind == 5:
        return rng.choice(PROSE)
    # A run of one form on one line, as a hostile body repeats it.
    unit = rng.choice(NAMES) + rng.choice(SEPS) + rng.choice(VALUES) + rng.choice([" ", ", "])
    return unit * rng.randrange(2, 60)


def texts() -> list[str]:
    rng = random.Random(23)
    fakes = _families()
    out = []
    for _ in range(COUNT):
        lines = []
        for _ in range(rng.randrange(1, 12)):
            parts = [_fragment(rng, fakes) for _ in range(rng.randrange(1, 6))]
            # Under 8 KB: a longer header's value is withheld unread (its own test).
            lines.append(rng.choice([" ", "; ", ", ", " && "]).join(parts)[:LINE])
        out.append(rng.choice(["\n", "\r\n"]).join(lines))
    return out


def digest(text: str) -> str:
    done = redact_text(text)
    seen = json.dumps([done.value, list(done.withheld)], sort_keys=True)
    return hashlib.sha256(seen.encode()).hexdigest()[:16]


def bench_corpora() -> dict[str, str]:
    # bench/redact.py by its path: under pytest, "redact" is this test package.
    path = Path(__file__).parents[2] / "bench" / "redact.py"
    spec = importlib.util.spec_from_file_location("bench_redact", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return {f"text-{kb}KB": bench.text_corpus(kb * 1000, 50) for kb in (10, 200)}


@pytest.fixture(scope="module")
def before() -> dict[str, str]:
    loaded: dict[str, str] = json.loads(FIXTURE.read_text())
    return loaded


def test_each_mixed_text_is_redacted_as_before(before: dict[str, str]) -> None:
    changed = [i for i, text in enumerate(texts()) if digest(text) != before[str(i)]]
    assert not changed, f"{len(changed)} of {COUNT} texts redacted otherwise, e.g. {changed[:5]}"


@pytest.mark.parametrize("name", ["text-10KB", "text-200KB"])
def test_a_bench_corpus_is_redacted_as_before(before: dict[str, str], name: str) -> None:
    assert digest(bench_corpora()[name]) == before[name]


if __name__ == "__main__":
    record = {str(i): digest(text) for i, text in enumerate(texts())}
    record.update({name: digest(text) for name, text in bench_corpora().items()})
    FIXTURE.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n")
    print(f"{len(record)} digests written to {FIXTURE}")
