"""Where a command's argument, or a statement's, is a password: ``docker login -p VALUE``,
``sshpass -p VALUE``, ``mysql -pVALUE``, ``curl -u user:VALUE``, SQL's ``CREATE USER bob
WITH PASSWORD 'VALUE'`` and ``IDENTIFIED BY 'VALUE'``, PHP's ``define('DB_PASSWORD',
'VALUE')``, HCL's ``variable "db_password" { default = "VALUE" }`` and Oracle's
``jdbc:oracle:thin:scott/VALUE@db``.

Elsewhere ``-p`` is a port or a parent directory, so the flag counts only after one of these
commands' names on its line (``-u`` a user, after ``curl`` only; SQL's ``PASSWORD 'x'`` only
on a ``CREATE`` or ``ALTER`` of a user or a role; HCL's ``default`` only before its
variable's ``}``). The search reads each stretch of a line once: a regex that looks from each
``login`` to the first ``-p`` after it read to the end of the line from every ``login`` in it,
so a line of ``login login …`` cost its length squared (137 s for 256 KB).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

#: curl's short flags that take no value, so may stand before ``-u`` in one group: ``-su``
#: (silent), ``-ku`` (insecure), ``-vu`` (verbose), ``-sLku``.
_CURL_SWITCHES = "sSkvLiIfgGnNqjOJR046#"
#: Words that open a line continuing what a line above opened, each ahead of the value that
#: line's head makes a password's: a netrc entry's tokens under its ``machine`` line, a SQL
#: statement's clauses under its ``CREATE USER`` (PostgreSQL's role options, Oracle's and
#: MySQL's). A text is not cut into pieces before such a line (:mod:`elision.redact.scan`).
CONTINUING_WORDS = (
    "login", "password", "account", "port", "macdef",
    "with", "nologin", "connection", "valid", "superuser", "nosuperuser", "createdb",
    "nocreatedb", "createrole", "nocreaterole", "inherit", "noinherit", "replication",
    "noreplication", "bypassrls", "nobypassrls", "encrypted", "unencrypted", "identified",
    "default", "quota", "profile", "in", "role", "admin", "sysid",
)
#: fish's ``set`` flags that give a variable a scope or export it, alone or grouped.
_FISH_FLAGS = ("x", "g", "u", "l", "gx", "xg", "ux", "xu", "lx", "xl")
_FISH_LONG_FLAGS = ("export", "global", "universal", "local")
_SHELL_SETS = (
    "setenv ", "setenv\t", "setx ", "setx\t",
    *(f"set -{flags} " for flags in _FISH_FLAGS),
    *(f"set --{flag} " for flag in _FISH_LONG_FLAGS),
)
#: Literals of the commands and statements below, each of which a piece must hold for them
#: to be looked for in it (:func:`password_flags`). curl's are its flags' (its name is on
#: every line of a transcript of it, most with no user), and ``curl`` for a ``-u`` in a group
#: of its switches (the trigger is :data:`PASSWORD_COMMANDS`' own: a literal each switch).
COMMAND_GATES = (
    "sshpass", " login ", "mysql", "mariadb", " -u", "--user", "proxy-user", "identified",
    "curl",
    # A user's or a role's password is its PASSWORD and a quote (or IDENTIFIED), on the line
    # of its CREATE or ALTER: those are the triggers, not the statement's opening (a
    # migration's log of CREATE USER lines with no password was 250x prose, each line read).
    # Any other white space before the quote, a line's end among it (the quote on the next
    # line): two spaces (an aligned migration), a tab, a line end, a space then either.
    "password '", 'password "', "password  ", "password\t", "password\n", "password\r",
    "password \t", "password \n", "password \r",
    # ... and PostgreSQL's other strings: E'S', U&'S', $$S$$ (or a tag between the $).
    "password e'", "password u&'", "password $",
    "define(", 'variable "', "jdbc:oracle:",
    # psql's meta-commands that set a variable, or the environment, to the rest of the line
    # (``\\set pw 'S'`` before ``ALTER ROLE x PASSWORD :'pw'``, ``\\setenv PGPASSWORD S``).
    "\\set ", "\\set\t", "\\setenv ", "\\setenv\t",
    # Other shells' ways to set a variable to the next word: csh's and tcsh's ``setenv NAME
    # S``, Windows' ``setx NAME S`` (``/M`` after it), fish's ``set`` with a scope or export
    # flag (``set -x NAME S``, ``-gx``, ``--export``). A bare ``set `` is in every sentence.
    *_SHELL_SETS,
)
#: curl's ``-u`` closing a group of two switches or more, written with its group's last two
#: switches, its ``u`` and the space after it (``sku `` of ``-sku``, ``vsSLu`` of ``-vsSLu``).
#: It is the group's ``-`` that makes one a curl's, so such a literal counts towards the
#: density bound only after one (:mod:`elision.redact.weak`): ``haiku`` and ``tofu`` end so.
CURL_GROUPS = frozenset(
    f"{a.lower()}{b.lower()}u " for a in _CURL_SWITCHES for b in _CURL_SWITCHES)
#: curl's short flags as :data:`_CURL_SWITCHES` writes them: a group's chars.
CURL_SWITCHES = _CURL_SWITCHES
#: What the trigger search looks for: the gates but ``curl`` (on every line of a transcript
#: of it), ``-u`` after curl's switches in one group (:data:`_CURL_SWITCHES`: ``-su``,
#: ``-ku``, ``-vu``; after two or more, ``-sku``, ``-vsSLu``, the group's last two switches,
#: its ``u`` and the space after it: ``-sku`` itself is written with any switches before its
#: last two, and ``sku `` ends no English word but a rare loan, ``haiku``: :data:`CURL_GROUPS`),
#: and a netrc's tokens a line (:mod:`elision.redact.netrc`): its ``login`` and ``password``
#: opening their lines, or a tab before each (`` login `` flags an entry on one line, or
#: indented with spaces; a ``password`` indented with up to eight spaces is flagged too).
PASSWORD_COMMANDS = (
    *(gate for gate in COMMAND_GATES if gate != "curl"),
    *sorted({f" -{switch.lower()}u" for switch in _CURL_SWITCHES}),
    *sorted(CURL_GROUPS),
    "\nlogin ", "\tlogin ", "\npassword ", "\tpassword ",
    # ... and a password opening a line indented with spaces: its entry's `` login `` may be
    # many lines up, in another piece (a long entry, judged under its head: scan._Constructs).
    *(f"\n{' ' * n}password " for n in range(1, 9)),
)

#: curl's ``-u`` after two switches or more (after its dash), glued to its value or to a quote
#: (``-skuadmin:S``, ``-sku"admin:S"``): no literal marks it (``{switch}{switch}u`` then a
#: letter is ``language``, ``issue``; `` -{switch}{switch}`` alone is every ``rm -rf`` and
#: gcc's ``-fno-…``), so it is a pattern of the trigger search's own pass beside the literals
#: (hyperscan's windows, a pass of the regex passes): its matches count towards no dense
#: window. A group spaced from its value is a literal (:data:`PASSWORD_COMMANDS`).
GLUED_CURL_GROUP = r"[" + _CURL_SWITCHES + r"]{2,8}[uU][^\s]"
#: White space as a serialization or an encoding spells it: a JSON string's escaped tab
#: (``\t``, two chars, in a JSON text read as text), a percent-encoded space or tab (``%20``,
#: ``%09``: a command in a URL's query, or a text encoded whole).
SPELLED_GAP = r"(?:\\t|%20|%09)"
#: curl's ``-u``, any switches before it in its group, after such a gap or a tab
#: (``curl\t-sku a:S``, ``curl%20-u%20a%3AS``), or before one (``-u<tab>a:S``, ``-u%20a:S``):
#: no literal marks it (each literal's gap is a space), where the walk of a JSON string
#: decodes ``\t`` to a tab and a JSON text read as text does not.
SPELLED_CURL_TAIL = r"[" + _CURL_SWITCHES + r"]{0,8}[uU]"
SPELLED_CURL_USER = (
    r"(?:\t|\\t|%20|%09)-" + SPELLED_CURL_TAIL
    + r"|[ \t]-" + SPELLED_CURL_TAIL + r"(?:\t|%20|%09)"
)
#: :data:`GLUED_CURL_GROUP` after its dash, a space or a tab before that, or
#: :data:`SPELLED_CURL_USER` (hyperscan's form).
GLUED_CURL_USER = r"(?:[ \t]-" + GLUED_CURL_GROUP + "|" + SPELLED_CURL_USER + ")"
#: A command's name or a statement's opening; ``sshpass`` only with its ``-p`` right after it,
#: and the ones that name their value where they open (``identified by '``, ``define(``,
#: Oracle's URL up to its password) ended where the value starts.
_COMMAND = re.compile(
    # The first chars, before the "\b": a search passes over the others without trying each
    # alternative at each (half the time on prose).
    r"(?=[lsmcaidvjLSCAIDVJ\\])(?:(?P<psql>\\set(?:env)?[ \t]+"
    r"(?P<pname>[A-Za-z_][A-Za-z0-9_]{0,95})[ \t]+)(?=[^\s])|"
    r"\b(?P<shell>(?:(?i:setenv|setx)|set(?:[ \t]+(?:-[xguUl]{1,2}|--(?:"
    + "|".join(_FISH_LONG_FLAGS) + r")))+)[ \t]+"
    r"(?P<sname>[A-Za-z_][A-Za-z0-9_]{0,95})[ \t]+)(?=[^\s])|"
    r"\b(?:(?P<login>login)\b|(?P<sshpass>sshpass[ \t]+-p[ \t]*)"
    r"|(?P<mysql>(?:mysqldump|mysqladmin|mysql|mariadb))\b"
    r"|(?P<curl>curl)\b"
    r"|(?P<sql>(?i:create|alter)[ \t]+(?i:user|role))\b"
    r"|(?P<identified>(?i:identified)[ \t]+(?i:by)[ \t]+)(?=[\"'])"
    r"|(?P<define>define\([ \t]*[\"'](?P<dname>[A-Za-z0-9_.-]{1,96})[\"'][ \t]*,[ \t]*)(?=[\"'])"
    r"|(?P<hcl>variable[ \t]+\"(?P<vname>[A-Za-z0-9_.-]{1,96})\"[ \t]*\{)"
    r"|(?P<oracle>jdbc:oracle:[A-Za-z0-9]{1,16}:[^\s/@:\"']{1,256}/)(?=[^\s/@\"']{1,256}@)))"
)
#: ``login``'s ``-p``, then its gap; mysql's is written joined to the value (``-p app`` names
#: the database and prompts).
_LOGIN_FLAG = re.compile(r"[ \t]-p[ \t]+")
_MYSQL_FLAG = re.compile(r"[ \t]-p(?=[^\s-])")
#: curl's ``-u``/``--user`` (and its proxy's), then the user's name up to its ``:``: the
#: password follows it (a user with no ``:`` is asked for one). Its gaps may be spelled
#: (:data:`SPELLED_GAP`), and so its quote and its colon where a space is percent-encoded
#: (``%22``, ``%27``, ``%3A``); a ``%3A`` with a ``:`` after it in the user is the user's own
#: (``adm%3Ain:S``: curl splits at the ``:``; looked for 256 chars on, so each is read once
#: at most that far), and the user may be quoted apart from the password (``'adm':'S'``).
_GAP = r"(?:[ \t]|" + SPELLED_GAP + ")"
_CURL_FLAG = re.compile(
    _GAP + r"""(?:-[""" + _CURL_SWITCHES + r"""]{0,8}[uU]""" + _GAP + r"""*"""
    r"""|--(?:proxy-)?user(?:""" + _GAP + r"""+|=))(?:(?P<escaped>\\["'])|["']|%2[27])?[^\s:"']*?"""
    r"""(?:\\?["']|%2[27])?(?::|%3[aA](?![^\s:"']{0,256}(?:\\?["']|%2[27])?:))"""
)
#: A user's or a role's ``PASSWORD`` (quoted: ``PASSWORD NULL`` is none; PostgreSQL's other
#: strings too, :data:`_SQL_STRING`) or ``IDENTIFIED BY`` (Oracle's may be bare).
_SQL_FLAG = re.compile(
    r"(?<![^\s])(?i:password(?:[ \t]+|[ \t]*\r?\n[ \t]*)(?=[\"']|[eE]'|[uU]&'|\$[A-Za-z_]{0,16}\$)"
    r"|identified[ \t]+by[ \t]+)")
#: PostgreSQL's string constants but a plain quote's: an escape string's ``E'…'``, a Unicode
#: one's ``U&'…'`` (the value from its quote), a dollar-quoted ``$$…$$`` or ``$tag$…$tag$``
#: (the value up to its closing tag, looked for :data:`_DOLLAR_MOST` chars on).
_SQL_STRING = re.compile(r"(?:[eE]|[uU]&)(?=')|(?P<tag>\$[A-Za-z_]{0,16}\$)")
_DOLLAR_MOST = 4096
#: How far on a curl user's escaped closing quote is looked for (``-u \"adm:S\"``).
_ESCAPED_MOST = 1024
#: A quote with no backslash before it: the end of the JSON string a ``\"`` was read in.
_BARE_QUOTE = {q: re.compile(r"(?<!\\)" + q) for q in "\"'"}
#: An HCL variable's ``default =``, before the ``}`` that closes it.
#: Where a ``CREATE USER`` or ``ALTER ROLE`` statement ends, for its ``PASSWORD``: its ``;``, or
#: a blank line (a log's statements may have no ``;``). Its clauses may each have a line
#: (``CREATE USER bob WITH`` / ``LOGIN`` / ``PASSWORD 'S';``), as many as it has
#: (:func:`_clause_of`).
_SQL_END = re.compile(r";|\n[ \t]*\r?\n")
#: What precedes a clause's word on its own line: white space, and PostgreSQL's words that
#: qualify a password (``ENCRYPTED PASSWORD 'S'``).
_CLAUSE_OPENING = re.compile(r"[ \t]*+(?:(?i:with|encrypted|unencrypted)[ \t]++)*+")
#: Where a command ends: a line end with no ``\`` before it (docs write a long curl over
#: lines, ``-u`` on the third).
_COMMAND_END = re.compile(r"(?<!\\)(?<!\\\r)\n")
_HCL_FLAG = re.compile(r"\bdefault[ \t]*=[ \t]*")
_HCL_END = re.compile(r"\}")
_NEWLINE = re.compile("\n")


class Flag(NamedTuple):
    """Where a password's value starts; the name that holds it where one does (``None``: the
    place says it is a password), and where the value ends where the place says (else -1:
    read it as a flag's value)."""

    at: int
    name: str | None = None
    stop: int = -1


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


def password_flags(text: str) -> Iterator[Flag]:
    """Each password value the commands and statements above hold, in order, found in time
    linear in ``text``: the ends of the matches of ``\\blogin\\b[^\\n]*?[ \\t]-p[ \\t]+``,
    ``\\bsshpass[ \\t]+-p[ \\t]*``, ``\\bcurl\\b[^\\n]*?`` and :data:`_CURL_FLAG`, and so on,
    as one ``finditer`` gives them."""
    flags = {
        "login": NextMatch(_LOGIN_FLAG, text), "mysql": NextMatch(_MYSQL_FLAG, text),
        "curl": NextMatch(_CURL_FLAG, text), "sql": NextMatch(_SQL_FLAG, text),
        "hcl": NextMatch(_HCL_FLAG, text),
    }
    ends = {"hcl": NextMatch(_HCL_END, text), "sql": NextMatch(_SQL_END, text),
            "curl": NextMatch(_COMMAND_END, text)}
    newline = NextMatch(_NEWLINE, text)
    clauses: dict[int, bool] = {}  # each PASSWORD's line read once, whatever opened it
    pos = 0
    while True:
        command = _COMMAND.search(text, pos)
        if command is None:
            return
        kind = command.lastgroup
        assert kind is not None  # the outer group: it closes after the name inside it
        if kind in ("sshpass", "identified"):
            pos = command.end()
            yield Flag(pos)
            continue
        if kind == "define":
            pos = command.end()
            yield Flag(pos, command.group("dname"))
            continue
        if kind == "shell":
            pos = command.end()
            yield Flag(pos, command.group("sname"))
            continue
        if kind == "psql":
            pos = command.end()
            yield Flag(pos, _psql_name(command.group("pname")))
            continue
        if kind == "oracle":
            pos = command.end()
            yield Flag(pos, None, text.index("@", pos))
            continue
        flag = flags[kind].at_or_after(command.end())
        end = ends.get(kind, newline).at_or_after(command.end())
        if flag is not None and (end is None or flag.start() < end.start()) and (
                kind != "sql" or _clause_of(text, command.end(), flag.start(), newline,
                                            clauses)):
            pos = flag.end()
            string = _SQL_STRING.match(text, pos) if kind == "sql" else None
            escaped = flag.group("escaped") if kind == "curl" else None
            if escaped is not None and not text.startswith(("\\", '"', "'"), pos):
                # A JSON text's ``-u \"adm:S\"``: the password ends at the user's escaped
                # quote's close, not at the quote after its ``\`` (half an escape shown).
                close = text.find(escaped, pos, pos + _ESCAPED_MOST)
                # Within its JSON string: a bare quote ends the string first where the user's
                # quote never closes (the merge's review: the rest of the string, and the
                # members after it, were withheld as the password, up to 1 KB).
                bare = _BARE_QUOTE[escaped[-1]].search(text, pos, close)
                if close > pos and bare is None and (end is None or close < end.start()):
                    yield Flag(pos, None, close)
                    continue
            if string is None:
                yield Flag(pos, command.group("vname") if kind == "hcl" else None)
            elif string.group("tag") is None:
                yield Flag(string.end())  # E'S', U&'S': the quoted value after its prefix
            else:
                start = string.end()
                close = text.find(string.group("tag"), start, start + _DOLLAR_MOST)
                yield Flag(start, None, close) if close >= 0 else Flag(start)
        else:
            pos = command.start() + 1  # no flag on this command's line: try the next name


def _psql_name(name: str) -> str:
    """The name a psql variable's value is judged under: its own, but ``pw`` (``\\set pw``,
    ``new_pw``), which psql's docs and scripts use for the password an ``ALTER ROLE … PASSWORD
    :'pw'`` then sends, and no other name's rules read as one."""
    return "password" if "pw" in name.lower().split("_") else name


def _clause_of(
    text: str, opened: int, at: int, newline: NextMatch, clauses: dict[int, bool],
) -> bool:
    """Whether the ``PASSWORD`` (or ``IDENTIFIED``) at ``at`` is a clause of the statement
    opened before ``opened`` (its ``;`` or blank line is after ``at``, the caller's to
    tell): on its line, or opening a line of its own (white space before it, or
    :data:`_CLAUSE_OPENING`'s words) however many clauses are between. Prose that says
    ``create user`` may name a password lines on, mid-sentence (``The password 'x' is…``):
    a clause opens its line. That is read once a ``PASSWORD`` (``clauses``): a line of
    ``create user`` and a ``password '`` on a later line read back from each once was its
    length squared (it was bounded by 512 chars, which left a statement of more clauses
    shown)."""
    first = newline.at_or_after(opened)
    if first is None or first.start() > at:
        return True
    told = clauses.get(at)
    if told is None:
        told = clauses[at] = _CLAUSE_OPENING.fullmatch(
            text, text.rfind("\n", opened, at) + 1, at) is not None
    return told
