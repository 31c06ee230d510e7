"""A generated run of letters alone after a path's header name, followed by nothing or by a
bracket (``GET /x/authorization: qwertyuiopasdfgh [retry]``, a request line glued to its
header), was shown (docs/design.md's "Not yet", the leakwave2 task): a path's name is weak,
and a weak name's value had to be ``opaque``, which asks a digit. Before a date or a word it
was withheld already (the run read as a scheme that is none). Red on the code before.

A word a message writes there (``forbidden``, ``405 Method Not Allowed``) is shown still: a
run of letters is withheld only where it looks generated (``authheader.generated``: as long
and as high in entropy as an opaque value).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from elision.redact import authheader, redact_text
from redact.test_redact_header_quote_leaks import _all_routes, _letters

RUN = "qwertyuiopasdfgh"


@pytest.mark.parametrize(("line", "kept"), [
    (f"GET /x/authorization: {RUN} [retry]", ("GET /x/authorization: ", " [retry]")),
    (f"GET /x/authorization: {RUN}", ("GET /x/authorization: ",)),
    (f"GET /x/Authorization: {RUN}[retry]", ("[retry]",)),
    (f"POST /v1/proxy-authorization: {RUN} (expired)", (" (expired)",)),
    (f"(GET /x/authorization: {RUN})", ("(GET /x/authorization: ", ")")),
    (f"GET /x/authorization: {RUN} {{}}", (" {}",)),
    (f"GET /x/authorization: {RUN} <redacted>", (" <redacted>",)),
    (f"GET /x/authorization: {RUN}, retrying", (", retrying",)),
    (f"GET /x/authorization: {RUN}.", ("GET /x/authorization: ",)),
    ("GET /x/authorization: zmxncbvlaksjdhfgqpwoeiruTY [retry]", (" [retry]",)),
    # after a scheme, a run of letters is the credential too
    (f"GET /x/authorization: Token {RUN} [retry]", ("Token ", " [retry]")),
])
def test_a_generated_run_of_letters_after_a_paths_header_is_withheld(
        line: str, kept: tuple[str, ...]) -> None:
    secret = line.split(": ", 1)[1].removeprefix("Token ")[:16]
    for route, shown in _all_routes(line).items():
        assert secret not in shown, (route, line, shown)
        for part in kept:
            assert part in shown, (route, line, part, shown)


def test_a_generated_run_of_letters_at_its_lines_end_is_withheld() -> None:
    shown = str(redact_text(f"GET /x/authorization: {RUN}\n200 OK\n").value)
    assert shown == "GET /x/authorization: [credential withheld: auth-header]\n200 OK\n", shown


@pytest.mark.parametrize("line", [
    # words a message writes after an endpoint: no generated run
    "GET /api/v1/authorization: forbidden [retry]",
    "GET /api/authorization: Unauthorized",
    "GET /api/v1/authorization: 405 Method Not Allowed",
    "GET /api/authorization: Token required",
    "GET /x/authorization: pending (retry)",
    # a run of one char, a mask: a placeholder
    "GET /x/authorization: xxxxxxxxxxxxxxxxxxxx [masked]",
    "GET /x/authorization: XXXXXXXXXXXXXXXX",
])
def test_a_paths_header_shows_what_is_no_generated_run(line: str) -> None:
    assert redact_text(line).value == line


_TRAILING = st.sampled_from(["", " [retry]", "[retry]", " (expired)", ")", "]", " {}",
                             " <x>", " [1] (2)"])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 1 << 32), size=st.integers(16, 40), humps=st.integers(0, 3),
       name=st.sampled_from(["authorization", "Authorization", "proxy-authorization",
                             "X-Authorization"]),
       path=st.sampled_from(["GET /x/", "POST /api/v1/", "/", "PUT https://e.io/a/"]),
       trailing=_TRAILING)
def test_a_generated_run_after_a_paths_header_before_any_bracket_is_withheld(
    seed: int, size: int, humps: int, name: str, path: str, trailing: str
) -> None:
    """Random generated runs of letters (lower-case, a few capitals), random header names
    after random paths, random brackets or nothing after: the run withheld on every route,
    what follows it shown."""
    run = _letters(seed, size, min(humps, size - 1))
    assume(authheader.generated(run))
    line = f"{path}{name}: {run}{trailing}"
    for route, shown in _all_routes(line).items():
        assert run not in shown, (route, line, shown)
        assert shown.endswith(trailing), (route, line, shown)
