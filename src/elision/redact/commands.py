"""Where a command's short ``-p`` flag is a password: ``docker login -p VALUE``,
``sshpass -p VALUE``, ``mysql -pVALUE``.

Elsewhere ``-p`` is a port or a parent directory, so the flag counts only after one of these
commands' names on its line. The search reads each stretch of a line once: a regex that
looks from each ``login`` to the first ``-p`` after it read to the end of the line from every
``login`` in it, so a line of ``login login …`` cost its length squared (137 s for 256 KB).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: Commands whose short ``-p`` is a password (the trigger search looks for them).
PASSWORD_COMMANDS = ("sshpass", " login ", "mysql", "mariadb")

#: A command's name; ``sshpass`` only with its ``-p`` right after it.
_COMMAND = re.compile(
    r"\b(?:(?P<login>login)\b|(?P<sshpass>sshpass[ \t]+-p[ \t]*)"
    r"|(?P<mysql>(?:mysqldump|mysqladmin|mysql|mariadb))\b)"
)
#: ``login``'s ``-p``, then its gap; mysql's is written joined to the value (``-p app`` names
#: the database and prompts).
_LOGIN_FLAG = re.compile(r"[ \t]-p[ \t]+")
_MYSQL_FLAG = re.compile(r"[ \t]-p(?=[^\s-])")


class NextMatch:
    """The first match of ``pattern`` at or after a position, for positions that only grow:
    a search is only run again once the last answer lies behind the position asked about."""

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        self.pattern, self.text = pattern, text
        self.start = -1
        self.match: re.Match[str] | None = None

    def at_or_after(self, pos: int) -> re.Match[str] | None:
        if self.start < 0 or pos < self.start or (
            self.match is not None and self.match.start() < pos
        ):
            self.start = pos
            self.match = self.pattern.search(self.text, pos)
        return self.match


def password_flags(text: str) -> Iterator[int]:
    """Where the value of each password ``-p`` starts, in order: the ends of the matches of
    ``\\blogin\\b[^\\n]*?[ \\t]-p[ \\t]+``, ``\\bsshpass[ \\t]+-p[ \\t]*`` and
    ``\\b(?:mysql|mysqldump|mysqladmin|mariadb)\\b[^\\n]*?[ \\t]-p(?=[^\\s-])`` as one
    ``finditer`` gives them, found in time linear in ``text``."""
    flags = {"login": NextMatch(_LOGIN_FLAG, text), "mysql": NextMatch(_MYSQL_FLAG, text)}
    newline = NextMatch(re.compile("\n"), text)
    pos = 0
    while True:
        command = _COMMAND.search(text, pos)
        if command is None:
            return
        kind = command.lastgroup
        assert kind is not None
        if kind == "sshpass":
            pos = command.end()
            yield pos
            continue
        flag = flags[kind].at_or_after(command.end())
        line_end = newline.at_or_after(command.end())
        if flag is not None and (line_end is None or flag.start() < line_end.start()):
            pos = flag.end()
            yield pos
        else:
            pos = command.start() + 1  # no flag on this command's line: try the next name
