"""A password in a ``.netrc`` (curl's, ftp's, git's): ``machine HOST login USER password PASS``.

A netrc names its tokens with words and separates them with whitespace, no ``=`` or ``:``, so
the name rules read no assignment in it, and ``cat ~/.netrc`` showed every password. The
trigger search flags a `` login `` (a command's, for ``-p``: a space before it), and a
``login`` or a ``password`` that opens its line or follows a tab
(:data:`~elision.redact.commands.PASSWORD_COMMANDS`: ``machine h`` / ``login u`` /
``password p``, as GitHub's docs write it), and a piece is read one line on, so an entry on
one line or a token a line is judged. Here a ``password`` token is a
netrc's when the tokens before it, back to ``machine HOST`` or ``default`` at a line's start,
are netrc pairs (``login``, ``account``, ``port`` and a value each): ``the machine room login
and password policy`` is prose, not a netrc. Its value is then judged as a password's.
"""

from __future__ import annotations

from elision._lazyre import lazy_compile
from elision.redact.generic import ASSIGNMENT, is_credential_value
from elision.redact.rules import Span, make_span

_PASSWORD = lazy_compile(r"(?<![^\s])password[ \t\r\n]+([^\s]{1,4096})")
#: An entry opens a line: ``machine`` and its host, or ``default``.
_OPENING = lazy_compile(r"(?m)^[ \t]*(?:machine[ \t\r\n]+[^\s]+|default)(?![^\s])")
#: How far before a ``password`` its entry's opening is looked for: three pairs of a name and
#: a value of 64 chars each, and the host's.
_REACH = 512
_PAIRS = frozenset({"login", "account", "port"})


def find_netrc(text: str) -> list[Span]:
    """The value of each ``password`` token of a netrc entry in ``text``."""
    if "machine" not in text and "default" not in text:
        return []
    found: list[Span] = []
    for match in _PASSWORD.finditer(text):
        if _in_entry(text, match.start()) and is_credential_value("password", match.group(1)):
            found.append(make_span((match.start(1), match.end(1), ASSIGNMENT)))
    return found


def _in_entry(text: str, at: int) -> bool:
    """Whether the ``password`` at ``at`` follows an entry's opening (at a line's start, within
    :data:`_REACH` chars) and nothing but netrc pairs after it: ``login``, ``account`` or
    ``port`` and a value each."""
    lo = max(0, at - _REACH)
    if lo:
        line = text.find("\n", lo - 1, at)  # the first line start within reach
        if line < 0:
            return False
        lo = line + 1
    openings = list(_OPENING.finditer(text, lo, at))
    if not openings:
        return False
    tokens = text[openings[-1].end():at].split()
    return len(tokens) % 2 == 0 and all(name in _PAIRS for name in tokens[::2])
