"""A credential given as a command-line flag's value: the value is stubbed, the flag kept.

Issue 13, item 4: a command line echoed in a tool result (a CI log, ``ps``, a shell tool's
transcript) carries ``--password VALUE`` as often as ``PASSWORD=VALUE``, and only the ``=``
spelling was found. The flag's name is read by the same classifier as any credential name,
so ``--password-file PATH`` and ``--token-limit 8`` are no credential, and a flag named in
prose (``the --password flag``) takes no word after it.
"""

from __future__ import annotations

import pytest

from elision.redact import redact_text
from elision.redact.rules import credential_stub

STUB = credential_stub("credential-assignment")


@pytest.mark.parametrize(("text", "shown"), [
    # the space-separated spelling, the value stubbed and the flag kept
    ("$ deploy --password hunter2 --region eu", f"$ deploy --password {STUB} --region eu"),
    ("pg_dump --host db --password 'S3cr3t pass'", f"pg_dump --host db --password '{STUB}'"),
    ("tool --api-key K9abcdefghijklmnop", f"tool --api-key {STUB}"),
    ("tool --secret s3cr3tValue", f"tool --secret {STUB}"),
    ("tool --client-secret Zq8rT2wX9vKp", f"tool --client-secret {STUB}"),
    ("tool --access-token Zq8rT2wX9vKpL7mN", f"tool --access-token {STUB}"),
    ("tool --token 4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", f"tool --token {STUB}"),
    ('argv: ["run", "--password", "hunter2"]', f'argv: ["run", "--password", "{STUB}"]'),
    ("cmd -password hunter2 -v", f"cmd -password {STUB} -v"),
    ("login --PASSWORD Hunter2x", f"login --PASSWORD {STUB}"),
    # the = spelling, as before
    ("tool --password=hunter2 --x", f"tool --password={STUB} --x"),
    ("tool --api-key=K9abcdefghijklmnop", f"tool --api-key={STUB}"),
    # a short -p where it means a password
    ("docker login -u ci -p Zq8rT2wX9vKp registry.example.com",
     f"docker login -u ci -p {STUB} registry.example.com"),
    ("sshpass -p hunter2 ssh ops@host", f"sshpass -p {STUB} ssh ops@host"),
    ("mysql -u root -phunter2 app", f"mysql -u root -p{STUB} app"),
])
def test_a_credential_flags_value_is_stubbed_and_the_flag_kept(text: str, shown: str) -> None:
    assert redact_text(text).value == shown


@pytest.mark.parametrize("text", [
    "tool --password-file /run/secrets/db --x",  # a path to the secret, not the secret
    "llm --token-limit 8 --max-tokens 4096",
    "tool --token 8",  # a weak name takes only an opaque value
    "tool --password --user ada",  # no value: it prompts
    "tool --password $DB_PASSWORD",  # a variable, not its value
    "tool --password <your password>",
    "Use the --password flag to give it on the command line.",
    "pass --password option or set PGPASSWORD",
    "the --api-key argument is required",
    "--secret is read from the environment when it is absent",
    "ssh -p 2222 ops@host",  # -p is a port elsewhere
    "docker run -p 8080:80 nginx",
    "mysql -u root -p app",  # -p alone prompts; app is the database
    "grep -r --token-type bearer .",
])
def test_flags_that_hold_no_credential_are_kept(text: str) -> None:
    assert redact_text(text).withheld == ()
