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
#: Netrc pairs, each a name (``login``, ``account``, ``port``) and its value, and the white
#: space after them: what may stand between an entry's opening and its ``password``.
PAIRS = lazy_compile(r"[ \t\r\n]*+(?:(?:login|account|port)[ \t\r\n]++[^\s]++[ \t\r\n]*+)*+")


def find_netrc(text: str) -> list[Span]:
    """The value of each ``password`` token of a netrc entry in ``text``: one whose tokens
    before it, back to an entry's opening (at a line's start), are netrc pairs, however many
    (:data:`PAIRS`). Each stretch of the text is read once: the openings are found in one
    pass, and the pairs after an opening are read on from where the last ``password``'s
    reading stopped (a ``password`` ends them: the next one's tokens hold it)."""
    if "machine" not in text and "default" not in text:
        return []
    found: list[Span] = []
    openings = _OPENING.finditer(text)
    opening = next(openings, None)
    last = None  # the last opening before the password read, and how far its pairs reach
    read_to, pairs = -1, False
    for match in _PASSWORD.finditer(text):
        at = match.start()
        while opening is not None and opening.end() <= at:
            last, opening = opening, next(openings, None)
        if last is None:
            continue
        if read_to < last.end():  # a new entry: its pairs read from its opening
            read_to, pairs = last.end(), True
        if pairs and read_to < at:
            pairs = PAIRS.fullmatch(text, read_to, at) is not None
        read_to = max(read_to, at)
        if pairs and is_credential_value("password", match.group(1)):
            found.append(make_span((match.start(1), match.end(1), ASSIGNMENT)))
        pairs = False  # this password stands between the opening and any later one
    return found
